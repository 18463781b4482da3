/* topology/cluster.c - TopoCluster lifetime, dtypes and queries over the level hierarchy.
 *
 * The hierarchy is a mixed-radix number: level i groups levels[i].count units of level
 * i-1, so device d sits in unit d / size(i) of level i, with size(i) = prod(count[0..i]).
 * Two devices share level i exactly when those quotients are equal. Loading lives in
 * cluster-load.c. */
#include "topology/cluster-private.h"

G_DEFINE_QUARK (topo-error-quark, topo_error)

/* Names follow PyTorch/Megatron spellings; aliases are the Hugging Face `torch_dtype`
 * values, so a model's config.json dtype parses directly. */
static const struct {
  const char *name;
  const char *alias;
  guint       bytes;   /* storage bytes per element; TF32 is stored as FP32 */
} dtypes[TOPO_DTYPE_N] = {
  [TOPO_DTYPE_FP32] = { "fp32", "float32",  4 },
  [TOPO_DTYPE_TF32] = { "tf32", "tfloat32", 4 },
  [TOPO_DTYPE_FP16] = { "fp16", "float16",  2 },
  [TOPO_DTYPE_BF16] = { "bf16", "bfloat16", 2 },
  [TOPO_DTYPE_FP8]  = { "fp8",  "float8",   1 },
  /* NVFP4: 4-bit values plus an FP8 scale per 16 (0.5625 B); counted as one byte where
   * whole bytes are needed (the GEMM's operand traffic uses 0.5625, sim/cost-compute.c) */
  [TOPO_DTYPE_FP4]  = { "fp4",  "nvfp4",    1 },
};

const char *
topo_dtype_name (TopoDtype dtype)
{
  g_return_val_if_fail ((guint) dtype < TOPO_DTYPE_N, NULL);
  return dtypes[dtype].name;
}

gboolean
topo_dtype_parse (const char *name, TopoDtype *out)
{
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < TOPO_DTYPE_N; i++)
    if (g_ascii_strcasecmp (name, dtypes[i].name) == 0
        || g_ascii_strcasecmp (name, dtypes[i].alias) == 0)
      {
        if (out != NULL)
          *out = (TopoDtype) i;
        return TRUE;
      }
  return FALSE;
}

guint
topo_dtype_bytes (TopoDtype dtype)
{
  g_return_val_if_fail ((guint) dtype < TOPO_DTYPE_N, 0);
  return dtypes[dtype].bytes;
}

TopoCluster *
topo_cluster_alloc (void)
{
  TopoCluster *cluster = g_new0 (TopoCluster, 1);

  cluster->ref_count = 1;
  cluster->device.sources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  cluster->sources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return cluster;
}

const char *
topo_device_part (const TopoDevice *dev)
{
  g_return_val_if_fail (dev != NULL, NULL);
  return dev->part != NULL ? dev->part : dev->name;
}

/* The parts sim/cost.c's device table knows (each there with its FP8 GEMM ceiling,
 * architecture and host link), and the architectures it takes by name; a test checks
 * that the cost model recognises every one (tests/sim). */
const char *const *
topo_known_parts (void)
{
  static const char *const parts[] = {
    "GH200", "GB300", "GB200", "B300", "B200", "H100", "H800", "H200", "H20",
    "A100", "A800", "A40", "A30", "V100", "L40", "MI250",
    "Hopper", "Ampere", "Blackwell", NULL,
  };
  return parts;
}

TopoCluster *
topo_cluster_ref (TopoCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL, NULL);
  g_return_val_if_fail (cluster->ref_count > 0, NULL);

  g_atomic_int_inc (&cluster->ref_count);
  return cluster;
}

void
topo_cluster_unref (TopoCluster *cluster)
{
  if (cluster == NULL)
    return;
  g_return_if_fail (cluster->ref_count > 0);
  if (!g_atomic_int_dec_and_test (&cluster->ref_count))
    return;

  g_free (cluster->name);
  g_free (cluster->description);
  g_free (cluster->source);
  g_free (cluster->json);
  g_free (cluster->device.name);
  g_free (cluster->device.part);
  g_free (cluster->device.vendor);
  g_clear_pointer (&cluster->device.sources, g_hash_table_unref);
  for (guint i = 0; i < cluster->n_levels; i++)
    {
      g_free (cluster->levels[i].name);
      g_free (cluster->levels[i].source);
    }
  g_free (cluster->levels);
  g_clear_pointer (&cluster->sources, g_hash_table_unref);
  g_clear_pointer (&cluster->profile, topo_profile_free);
  g_free (cluster);
}

guint64
topo_cluster_level_size (const TopoCluster *cluster, guint level)
{
  guint64 size = 1;

  g_return_val_if_fail (cluster != NULL, 0);
  g_return_val_if_fail (level < cluster->n_levels, 0);

  /* The loader checked that the full product fits in 64 bits, so no prefix overflows. */
  for (guint i = 0; i <= level; i++)
    size *= cluster->levels[i].count;
  return size;
}

guint
topo_cluster_common_level (const TopoCluster *cluster, guint64 dev_a, guint64 dev_b)
{
  guint64 size = 1;

  g_return_val_if_fail (cluster != NULL && cluster->n_levels > 0, 0);
  g_return_val_if_fail (dev_a < cluster->n_devices, 0);
  g_return_val_if_fail (dev_b < cluster->n_devices, 0);

  for (guint i = 0; i < cluster->n_levels; i++)
    {
      size *= cluster->levels[i].count;
      if (dev_a / size == dev_b / size)
        return i;
    }
  /* Not reached: at the outermost level size == n_devices, so both quotients are 0. */
  return cluster->n_levels - 1;
}

guint
topo_cluster_scale_up_level (const TopoCluster *cluster)
{
  g_return_val_if_fail (cluster != NULL && cluster->n_levels > 0, 0);
  const TopoLevel *l0 = &cluster->levels[0];
  guint top = 0;
  while (top + 1 < cluster->n_levels
         && cluster->levels[top + 1].bw_Bps == l0->bw_Bps
         && cluster->levels[top + 1].busbw_Bps == l0->busbw_Bps)
    top++;
  return top;
}

gint
topo_cluster_find_level (const TopoCluster *cluster, const char *name)
{
  g_return_val_if_fail (cluster != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);

  for (guint i = 0; i < cluster->n_levels; i++)
    if (g_strcmp0 (cluster->levels[i].name, name) == 0)
      return (gint) i;
  return -1;
}

void
topo_cluster_aggregate (const TopoCluster *cluster, TopoAggregate *out)
{
  const TopoDevice *dev;
  guint64 n;

  g_return_if_fail (cluster != NULL);
  g_return_if_fail (out != NULL);

  dev = &cluster->device;
  n = cluster->n_devices;
  *out = (TopoAggregate) { 0 };
  out->gpus = n;
  out->hbm_bytes = n * dev->hbm_bytes;
  /* Core counts stay 0 when the per-SM figure is unknown (0 in the JSON). */
  out->fp32_cores = n * (guint64) dev->sms * dev->fp32_cores_per_sm;
  out->tensor_cores = n * (guint64) dev->sms * dev->tensor_cores_per_sm;
  for (guint i = 0; i < TOPO_DTYPE_N; i++)
    out->peak_flops[i] = (double) n * dev->peak_flops[i];
}
