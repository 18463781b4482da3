/* topology/profile.c - the "profile" object of a cluster JSON: measured GEMM, memory and
 * collective tables (written by `tandem calibrate`, or imported from nccl-tests).
 *
 *   "profile": {
 *     "source": "tandem calibrate on HOST, DATE",   required, non-empty
 *     "backend": "cpu", "host": "HOST",              optional strings
 *     "date": "2025-01-31T12:00:00Z",
 *     "ranks": 2,                                    optional integer >= 1
 *     "gemm": [ [m, n, k, "fp32", FLOP/s], ... ],    optional; integers > 0, a dtype of
 *                                                    topo_dtype_parse, achieved FLOP/s > 0
 *     "memory": { "copy_GBps": 9.1,                  optional, each > 0: STREAM-style
 *                 "triad_GBps": 10.2 },              copy and triad bandwidth per rank
 *     "collectives": [                               optional; nccl-tests columns:
 *       ["all_reduce", ranks, bytes, time_us,        name, group size (integer >= 1),
 *        algbw_GBps, busbw_GBps], ... ]              size > 0, time > 0, bandwidths >= 0
 *     "attention": [                                 optional; integers > 0, a boolean,
 *       [b, heads, kv_heads, s_q, s_kv, head_dim,    a dtype, achieved FLOP/s > 0 (the
 *        causal, "fp32", fwd FLOP/s, bwd FLOP/s] ]   program's FLOP counting, cluster.h)
 *     "kernels": {                                   optional; each key a TopoKernel name,
 *       "norm": [ [elements, GBps], ... ], ... }     rows of integer > 0, bandwidth > 0
 *     "contention": {                                optional (CPU profiles): how the ranks
 *       "cores": 2, "blas_threads": 1,               shared the cores (integers >= 1;
 *       "progress_threads": 1, "gemm_m": 256,        progress_threads may be 0), a GEMM of
 *       "gemm_alone_us": 900.0,                      gemm_m^3 alone and with all-reduces
 *       "gemm_with_allreduce_us": 1400.0,            of allreduce_bytes kept in flight
 *       "allreduce_bytes": 4194304,                  (times > 0), and the all-reduce's
 *       "allreduce_us": 5000.0,                      wall time meanwhile (> 0); optional:
 *       "compute_share": 0.8 }                       the core share over the compute rows'
 *                                                    kept windows, in (0, 1]
 *   }
 *
 * As in cluster-load.c, keys starting with '_' are comments and any other unknown key is
 * TOPO_ERROR_INVALID_FIELD; messages start with the file and name the field path. Measured
 * figures are bounded (get_bounded): rates 1e6..1e18 FLOP/s and 1e-3..1e6 GB/s, collective
 * sizes 1 B..1 PiB and times 1 ns..1 hour. */
#include "topology/cluster.h"
#include "util/input.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* plan/collective.h spellings (nccl-tests binary names without _perf). topology/ does
 * not include plan/, so the list is repeated here; sim/cost-comm.c maps them back with
 * plan_coll_parse. */
static const char *const coll_names[] = {
  "all_reduce", "reduce_scatter", "all_gather", "alltoall", "sendrecv", NULL,
};
static const char *const profile_keys[] = {
  "source", "backend", "host", "date", "ranks", "gemm", "memory", "collectives", "attention",
  "kernels", "contention", NULL,
};
static const char *const contention_keys[] = {
  "cores", "blas_threads", "progress_threads", "gemm_m", "gemm_alone_us",
  "gemm_with_allreduce_us", "allreduce_bytes", "allreduce_us", "compute_share", NULL,
};
#define CONTENTION_REQUIRED 8   /* the keys above before compute_share */
/* TopoKernel order */
static const char *const kernel_names[] = {
  "norm", "norm_grad", "rotary", "rotary_grad", "swiglu", "swiglu_grad", "residual",
  "residual_grad", "embedding", "embedding_grad", "loss", "loss_grad", "adamw", NULL,
};
G_STATIC_ASSERT (G_N_ELEMENTS (kernel_names) == TOPO_KERNEL_N + 1);

const char *
topo_kernel_name (TopoKernel kernel)
{
  return (guint) kernel < TOPO_KERNEL_N ? kernel_names[kernel] : "unknown";
}

/* Element accesses (reads + writes) per element of each kind, as the cost model counts a
 * memory-bound op (sim/cost-compute.c keeps the reasons), in TopoKernel order:
 *  - norm: read x, write y = 2; backward read x and dy, write dx = 3;
 *  - rotary (elements of Q and K): read, write = 2 / 2;
 *  - swiglu (per output element): read gate and up, write out = 3; backward read gate, up,
 *    dout, write dgate, dup = 5;
 *  - residual (and other element-wise ops): read two, write one = 3 / 3;
 *  - embedding (tokens x h): gather rows, write = 2; backward read dy, read and write the
 *    gradient rows = 3;
 *  - loss (tokens x V logits): read for the max, again for the sum, write the softmax = 3;
 *    backward read it, write the gradient = 2.
 * AdamW is counted in bytes per parameter instead (topo_kernel_bytes). */
static const double kernel_accesses[TOPO_KERNEL_N] = {
  2, 3, 2, 2, 3, 5, 3, 3, 2, 3, 3, 2, 0,
};

/* AdamW bytes per parameter (Megatron distributed optimizer, fp32 main grads and master
 * weights): read master 4, grad 4, m 4, v 4; write master 4, m 4, v 4, bf16 param 2. */
#define ADAMW_BYTES_PER_PARAM 30.0

double
topo_kernel_bytes (TopoKernel kernel, double elements, TopoDtype dtype)
{
  g_return_val_if_fail ((guint) kernel < TOPO_KERNEL_N, 0.0);
  if (kernel == TOPO_KERNEL_ADAMW)
    return elements * ADAMW_BYTES_PER_PARAM;
  /* activations are bf16 outside GEMMs, also in fp8 training; fp32 runs keep fp32 */
  const double elt = dtype == TOPO_DTYPE_FP32 || dtype == TOPO_DTYPE_TF32 ? 4.0 : 2.0;
  return elements * kernel_accesses[kernel] * elt;
}

gboolean
topo_kernel_parse (const char *name, TopoKernel *out)
{
  for (guint i = 0; name != NULL && i < TOPO_KERNEL_N; i++)
    if (g_str_equal (name, kernel_names[i]))
      {
        *out = (TopoKernel) i;
        return TRUE;
      }
  return FALSE;
}
static const char *const memory_keys[] = { "copy_GBps", "triad_GBps", NULL };

TopoProfile *
topo_profile_new (void)
{
  TopoProfile *p = g_new0 (TopoProfile, 1);
  p->gemm = g_array_new (FALSE, TRUE, sizeof (TopoProfileGemm));
  p->colls = g_array_new (FALSE, TRUE, sizeof (TopoProfileColl));
  p->attention = g_array_new (FALSE, TRUE, sizeof (TopoProfileAttn));
  for (int k = 0; k < TOPO_KERNEL_N; k++)
    p->kernels[k] = g_array_new (FALSE, TRUE, sizeof (TopoProfileKernel));
  return p;
}

void
topo_profile_free (TopoProfile *profile)
{
  if (profile == NULL)
    return;
  g_free (profile->source);
  g_free (profile->backend);
  g_free (profile->host);
  g_free (profile->date);
  g_clear_pointer (&profile->gemm, g_array_unref);
  g_clear_pointer (&profile->colls, g_array_unref);
  g_clear_pointer (&profile->attention, g_array_unref);
  for (int k = 0; k < TOPO_KERNEL_N; k++)
    g_clear_pointer (&profile->kernels[k], g_array_unref);
  g_free (profile);
}

TopoProfile *
topo_profile_copy (const TopoProfile *profile)
{
  g_return_val_if_fail (profile != NULL, NULL);
  TopoProfile *p = topo_profile_new ();
  p->source = g_strdup (profile->source);
  p->backend = g_strdup (profile->backend);
  p->host = g_strdup (profile->host);
  p->date = g_strdup (profile->date);
  p->ranks = profile->ranks;
  p->copy_Bps = profile->copy_Bps;
  p->triad_Bps = profile->triad_Bps;
  p->contention = profile->contention;
  g_array_append_vals (p->gemm, profile->gemm->data, profile->gemm->len);
  g_array_append_vals (p->colls, profile->colls->data, profile->colls->len);
  g_array_append_vals (p->attention, profile->attention->data, profile->attention->len);
  for (int k = 0; k < TOPO_KERNEL_N; k++)
    g_array_append_vals (p->kernels[k], profile->kernels[k]->data, profile->kernels[k]->len);
  return p;
}

void
topo_profile_add_attention (TopoProfile *profile, const TopoProfileAttn *row)
{
  g_return_if_fail (profile != NULL && row != NULL && (guint) row->dtype < TOPO_DTYPE_N);
  g_array_append_val (profile->attention, *row);
}

gboolean
topo_profile_add_kernel (TopoProfile *profile, TopoKernel kernel, guint64 elements, double Bps)
{
  g_return_val_if_fail (profile != NULL && (guint) kernel < TOPO_KERNEL_N, FALSE);
  if (elements == 0 || !(Bps > 0) || !isfinite (Bps))
    return FALSE;
  GArray *rows = profile->kernels[kernel];
  TopoProfileKernel row = { elements, Bps };
  guint i = 0;
  while (i < rows->len && g_array_index (rows, TopoProfileKernel, i).elements < elements)
    i++;
  if (i < rows->len && g_array_index (rows, TopoProfileKernel, i).elements == elements)
    g_array_index (rows, TopoProfileKernel, i) = row;
  else
    g_array_insert_val (rows, i, row);
  return TRUE;
}

void
topo_profile_add_gemm (TopoProfile *profile, guint64 m, guint64 n, guint64 k, TopoDtype dtype,
                       double flops_per_s)
{
  g_return_if_fail (profile != NULL && (guint) dtype < TOPO_DTYPE_N);
  TopoProfileGemm row = { m, n, k, dtype, flops_per_s };
  g_array_append_val (profile->gemm, row);
}

gboolean
topo_profile_coll_name_valid (const char *coll)
{
  return coll != NULL && g_strv_contains (coll_names, coll);
}

gboolean
topo_profile_add_coll (TopoProfile *profile, const char *coll, guint ranks, double bytes,
                       double time_s, double algbw_Bps, double busbw_Bps)
{
  g_return_val_if_fail (profile != NULL, FALSE);
  if (!topo_profile_coll_name_valid (coll) || ranks < 1 || !(bytes > 0) || !(time_s > 0)
      || !(algbw_Bps >= 0) || !(busbw_Bps >= 0))
    return FALSE;
  TopoProfileColl row = { .ranks = ranks, .bytes = bytes, .time_s = time_s,
                          .algbw_Bps = algbw_Bps, .busbw_Bps = busbw_Bps };
  g_strlcpy (row.coll, coll, sizeof row.coll);
  for (guint i = 0; i < profile->colls->len; i++)
    {
      TopoProfileColl *r = &g_array_index (profile->colls, TopoProfileColl, i);
      if (r->ranks == ranks && r->bytes == bytes && g_str_equal (r->coll, coll))
        {
          *r = row;
          return TRUE;
        }
    }
  g_array_append_val (profile->colls, row);
  return TRUE;
}

/* ---- loading --------------------------------------------------------------------------- */

static gboolean G_GNUC_PRINTF (4, 5)
fail (GError **error, const char *file, const char *field, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD, "%s: field '%s' %s", file, field,
               what);
  return FALSE;
}

static const char *
type_name (JsonNode *node)
{
  if (node == NULL)
    return "nothing";
  if (JSON_NODE_HOLDS_OBJECT (node))
    return "an object";
  if (JSON_NODE_HOLDS_ARRAY (node))
    return "an array";
  if (JSON_NODE_HOLDS_NULL (node))
    return "null";
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return "a string";
    case G_TYPE_BOOLEAN:
      return "a boolean";
    default:
      return "a number";
    }
}

static gboolean
is_number (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node)
         && (json_node_get_value_type (node) == G_TYPE_INT64
             || json_node_get_value_type (node) == G_TYPE_DOUBLE);
}

/* A number > 0 (or >= 0 when `zero_ok`). */
static gboolean
get_number (JsonNode *node, gboolean zero_ok, double *out, const char *file, const char *field,
            GError **error)
{
  if (!is_number (node))
    return fail (error, file, field, "must be a number, not %s", type_name (node));
  double v = json_node_get_double (node);
  if (!(zero_ok ? v >= 0 : v > 0) || !isfinite (v))
    return fail (error, file, field, "must be %s (got %g)", zero_ok ? ">= 0" : "> 0", v);
  *out = v;
  return TRUE;
}

/* get_number within [lo, hi], `what` naming the bounds: a measured row of 1e308 FLOP/s or
 * 1e-308 us loaded and moved every prediction (GEMM at 1e308 FLOP/s: 0.59 x the step) */
static gboolean
get_bounded (JsonNode *node, gboolean zero_ok, double lo, double hi, const char *what,
             double *out, const char *file, const char *field, GError **error)
{
  if (!get_number (node, zero_ok, out, file, field, error))
    return FALSE;
  if ((*out > 0 && *out < lo) || *out > hi)
    return fail (error, file, field, "is %g, outside %s (hint: check the unit)", *out, what);
  return TRUE;
}

#define RATE_FLOPS_LO 1e6
#define RATE_FLOPS_HI 1e18
#define RATE_FLOPS_WHAT "1e6 to 1e18 FLOP/s (1 MFLOP/s to 1 EFLOP/s)"
#define RATE_GBPS_LO  1e-3
#define RATE_GBPS_HI  1e6
#define RATE_GBPS_WHAT "1e-3 to 1e6 GB/s"

/* An integer >= 1 (written as 12 or 12.0). */
static gboolean
get_count (JsonNode *node, guint64 *out, const char *file, const char *field, GError **error)
{
  if (!is_number (node))
    return fail (error, file, field, "must be an integer, not %s", type_name (node));
  double v = json_node_get_double (node);
  if (v != floor (v) || v < 1 || v > 9.0e15)
    return fail (error, file, field, "must be an integer >= 1 (got %g)", v);
  *out = (guint64) v;
  return TRUE;
}

static gboolean
get_string (JsonNode *node, const char **out, const char *file, const char *field,
            GError **error)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return fail (error, file, field, "must be a string, not %s", type_name (node));
  if (json_node_get_string (node)[0] == '\0')
    return fail (error, file, field, "must not be empty");
  *out = json_node_get_string (node);
  return TRUE;
}

static gboolean
check_keys (JsonObject *obj, const char *const *known, const char *file, const char *path,
            GError **error)
{
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *key = l->data;
      if (key[0] == '_' || g_strv_contains (known, key))
        continue;
      g_autofree char *list = g_strjoinv (", ", (char **) known);
      g_set_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD,
                   "%s: unknown key '%s.%s' (known keys here: %s)", file, path, key, list);
      return FALSE;
    }
  return TRUE;
}

/* `node` (at `field`) as an array of arrays of exactly `width` elements in *out. */
static gboolean
get_rows (JsonNode *node, const char *field, guint width, JsonArray **out, const char *file,
          GError **error)
{
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return fail (error, file, field, "must be an array of rows, not %s", type_name (node));
  JsonArray *rows = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonNode *row = json_array_get_element (rows, i);
      g_autofree char *rf = g_strdup_printf ("%s[%u]", field, i);
      if (!JSON_NODE_HOLDS_ARRAY (row))
        return fail (error, file, rf, "must be an array of %u values, not %s", width,
                     type_name (row));
      if (json_array_get_length (json_node_get_array (row)) != width)
        return fail (error, file, rf, "must hold %u values (got %u)", width,
                     json_array_get_length (json_node_get_array (row)));
    }
  *out = rows;
  return TRUE;
}

/* Member `key` as rows of `width` (get_rows); *out = NULL (and TRUE) when absent. */
static gboolean
get_table (JsonObject *obj, const char *key, guint width, JsonArray **out, const char *file,
           GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);
  g_autofree char *field = g_strdup_printf ("profile.%s", key);
  *out = NULL;
  return node == NULL || get_rows (node, field, width, out, file, error);
}

static gboolean
load_gemm (JsonObject *obj, TopoProfile *p, const char *file, GError **error)
{
  JsonArray *rows;
  if (!get_table (obj, "gemm", 5, &rows, file, error))
    return FALSE;
  if (rows == NULL)
    return TRUE;
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonArray *row = json_array_get_array_element (rows, i);
      g_autofree char *f = g_strdup_printf ("profile.gemm[%u]", i);
      guint64 mnk[3];
      const char *dtype_name;
      TopoDtype dtype;
      double flops;
      for (guint j = 0; j < 3; j++)
        if (!get_count (json_array_get_element (row, j), &mnk[j], file, f, error))
          return FALSE;
      if (!get_string (json_array_get_element (row, 3), &dtype_name, file, f, error))
        return FALSE;
      if (!topo_dtype_parse (dtype_name, &dtype))
        return fail (error, file, f, "names an unknown dtype '%s' (fp32, tf32, fp16, bf16, fp8)",
                     dtype_name);
      if (!get_bounded (json_array_get_element (row, 4), FALSE, RATE_FLOPS_LO, RATE_FLOPS_HI,
                        RATE_FLOPS_WHAT, &flops, file, f, error))
        return FALSE;
      topo_profile_add_gemm (p, mnk[0], mnk[1], mnk[2], dtype, flops);
    }
  return TRUE;
}

static gboolean
load_colls (JsonObject *obj, TopoProfile *p, const char *file, GError **error)
{
  JsonArray *rows;
  if (!get_table (obj, "collectives", 6, &rows, file, error))
    return FALSE;
  if (rows == NULL)
    return TRUE;
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonArray *row = json_array_get_array_element (rows, i);
      g_autofree char *f = g_strdup_printf ("profile.collectives[%u]", i);
      const char *coll;
      guint64 ranks;
      double bytes, time_us, algbw, busbw;
      if (!get_string (json_array_get_element (row, 0), &coll, file, f, error))
        return FALSE;
      if (!topo_profile_coll_name_valid (coll))
        {
          g_autofree char *list = g_strjoinv (", ", (char **) coll_names);
          return fail (error, file, f, "names an unknown collective '%s' (known: %s)", coll, list);
        }
      if (!get_count (json_array_get_element (row, 1), &ranks, file, f, error)
          || !get_bounded (json_array_get_element (row, 2), FALSE, 1, 0x1p50,
                           "1 B to 1 PiB", &bytes, file, f, error)
          || !get_bounded (json_array_get_element (row, 3), FALSE, 1e-3, 3.6e9,
                           "1 ns to an hour", &time_us, file, f, error)
          || !get_bounded (json_array_get_element (row, 4), TRUE, 0, RATE_GBPS_HI,
                           "0 to 1e6 GB/s", &algbw, file, f, error)
          || !get_bounded (json_array_get_element (row, 5), TRUE, 0, RATE_GBPS_HI,
                           "0 to 1e6 GB/s", &busbw, file, f, error))
        return FALSE;
      if (ranks > G_MAXUINT)
        return fail (error, file, f, "has too many ranks (%" G_GUINT64_FORMAT ")", ranks);
      /* units: time in us, bandwidths in GB/s = 1e9 B/s (nccl-tests) */
      topo_profile_add_coll (p, coll, (guint) ranks, bytes, time_us * 1e-6, algbw * 1e9,
                             busbw * 1e9);
    }
  return TRUE;
}

static gboolean
load_memory (JsonObject *obj, TopoProfile *p, const char *file, GError **error)
{
  JsonNode *node = json_object_get_member (obj, "memory");
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, file, "profile.memory", "must be an object, not %s", type_name (node));
  JsonObject *mem = json_node_get_object (node);
  if (!check_keys (mem, memory_keys, file, "profile.memory", error))
    return FALSE;
  double v;
  if (json_object_has_member (mem, "copy_GBps"))
    {
      if (!get_bounded (json_object_get_member (mem, "copy_GBps"), FALSE, RATE_GBPS_LO,
                        RATE_GBPS_HI, RATE_GBPS_WHAT, &v, file,
                       "profile.memory.copy_GBps", error))
        return FALSE;
      p->copy_Bps = v * 1e9;
    }
  if (json_object_has_member (mem, "triad_GBps"))
    {
      if (!get_bounded (json_object_get_member (mem, "triad_GBps"), FALSE, RATE_GBPS_LO,
                        RATE_GBPS_HI, RATE_GBPS_WHAT, &v, file,
                       "profile.memory.triad_GBps", error))
        return FALSE;
      p->triad_Bps = v * 1e9;
    }
  return TRUE;
}

/* The "contention" object: every field required (a partial measurement is not one). */
static gboolean
load_contention (JsonObject *obj, TopoProfile *p, const char *file, GError **error)
{
  JsonNode *node = json_object_get_member (obj, "contention");
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, file, "profile.contention", "must be an object, not %s",
                 type_name (node));
  JsonObject *co = json_node_get_object (node);
  if (!check_keys (co, contention_keys, file, "profile.contention", error))
    return FALSE;
  for (int i = 0; i < CONTENTION_REQUIRED; i++)
    if (!json_object_has_member (co, contention_keys[i]))
      return fail (error, file, "profile.contention", "lacks '%s' (hint: tandem calibrate "
                   "under mpirun writes all of them)", contention_keys[i]);
  TopoProfileContention *c = &p->contention;
  guint64 cores, blas, m;
  double progress, v[4];
  if (!get_count (json_object_get_member (co, "cores"), &cores, file,
                  "profile.contention.cores", error)
      || !get_count (json_object_get_member (co, "blas_threads"), &blas, file,
                     "profile.contention.blas_threads", error)
      || !get_number (json_object_get_member (co, "progress_threads"), TRUE, &progress, file,
                      "profile.contention.progress_threads", error)
      || !get_count (json_object_get_member (co, "gemm_m"), &m, file,
                     "profile.contention.gemm_m", error))
    return FALSE;
  if (progress != floor (progress) || progress > 64)
    return fail (error, file, "profile.contention.progress_threads",
                 "must be an integer from 0 to 64 (got %g)", progress);
  static const char *const times[] = { "gemm_alone_us", "gemm_with_allreduce_us",
                                       "allreduce_bytes", "allreduce_us" };
  for (int i = 0; i < 4; i++)
    {
      g_autofree char *f = g_strdup_printf ("profile.contention.%s", times[i]);
      if (!get_number (json_object_get_member (co, times[i]), FALSE, &v[i], file, f, error))
        return FALSE;
    }
  if (cores > 1u << 20 || blas > 1u << 20 || m > 1u << 20)
    return fail (error, file, "profile.contention", "has a count above 2^20");
  c->cores = (guint) cores;
  c->blas_threads = (guint) blas;
  c->progress_threads = (guint) progress;
  c->gemm_m = m;
  c->gemm_alone_s = v[0] * 1e-6;
  c->gemm_coll_s = v[1] * 1e-6;
  c->coll_bytes = v[2];
  c->coll_s = v[3] * 1e-6;
  if (json_object_has_member (co, "compute_share"))
    {
      double share;
      if (!get_number (json_object_get_member (co, "compute_share"), FALSE, &share, file,
                       "profile.contention.compute_share", error))
        return FALSE;
      if (share > 1)
        return fail (error, file, "profile.contention.compute_share",
                     "must be a fraction in (0, 1] (got %g)", share);
      c->compute_share = share;
    }
  return TRUE;
}

static gboolean
get_dtype (JsonNode *node, TopoDtype *out, const char *file, const char *field, GError **error)
{
  const char *name;
  if (!get_string (node, &name, file, field, error))
    return FALSE;
  if (!topo_dtype_parse (name, out))
    return fail (error, file, field, "names an unknown dtype '%s' (fp32, tf32, fp16, bf16, fp8)",
                 name);
  return TRUE;
}

static gboolean
load_attention (JsonObject *obj, TopoProfile *p, const char *file, GError **error)
{
  JsonArray *rows;
  if (!get_table (obj, "attention", 10, &rows, file, error))
    return FALSE;
  for (guint i = 0; rows != NULL && i < json_array_get_length (rows); i++)
    {
      JsonArray *row = json_array_get_array_element (rows, i);
      g_autofree char *f = g_strdup_printf ("profile.attention[%u]", i);
      guint64 dims[6];
      for (guint j = 0; j < 6; j++)
        if (!get_count (json_array_get_element (row, j), &dims[j], file, f, error))
          return FALSE;
      JsonNode *causal = json_array_get_element (row, 6);
      if (!JSON_NODE_HOLDS_VALUE (causal) || json_node_get_value_type (causal) != G_TYPE_BOOLEAN)
        return fail (error, file, f, "must have true or false as its 7th value (causal), not %s",
                     type_name (causal));
      TopoProfileAttn a = { .b = dims[0], .heads = dims[1], .kv_heads = dims[2],
                            .s_q = dims[3], .s_kv = dims[4], .head_dim = dims[5],
                            .causal = json_node_get_boolean (causal) };
      if (!get_dtype (json_array_get_element (row, 7), &a.dtype, file, f, error)
          || !get_bounded (json_array_get_element (row, 8), FALSE, RATE_FLOPS_LO, RATE_FLOPS_HI,
                           RATE_FLOPS_WHAT, &a.fwd_flops_per_s, file, f,
                          error)
          || !get_bounded (json_array_get_element (row, 9), FALSE, RATE_FLOPS_LO, RATE_FLOPS_HI,
                           RATE_FLOPS_WHAT, &a.bwd_flops_per_s, file, f,
                          error))
        return FALSE;
      topo_profile_add_attention (p, &a);
    }
  return TRUE;
}

static gboolean
load_kernels (JsonObject *obj, TopoProfile *p, const char *file, GError **error)
{
  JsonNode *node = json_object_get_member (obj, "kernels");
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, file, "profile.kernels", "must be an object, not %s", type_name (node));
  JsonObject *ko = json_node_get_object (node);
  if (!check_keys (ko, kernel_names, file, "profile.kernels", error))
    return FALSE;
  for (int k = 0; k < TOPO_KERNEL_N; k++)
    {
      JsonNode *kn = json_object_get_member (ko, kernel_names[k]);
      g_autofree char *field = g_strdup_printf ("profile.kernels.%s", kernel_names[k]);
      JsonArray *rows;
      if (kn == NULL)
        continue;
      if (!get_rows (kn, field, 2, &rows, file, error))
        return FALSE;
      for (guint i = 0; i < json_array_get_length (rows); i++)
        {
          JsonArray *row = json_array_get_array_element (rows, i);
          g_autofree char *f = g_strdup_printf ("%s[%u]", field, i);
          guint64 elements;
          double GBps;
          if (!get_count (json_array_get_element (row, 0), &elements, file, f, error)
              || !get_bounded (json_array_get_element (row, 1), FALSE, RATE_GBPS_LO, RATE_GBPS_HI,
                              RATE_GBPS_WHAT, &GBps, file, f, error))
            return FALSE;
          topo_profile_add_kernel (p, (TopoKernel) k, elements, GBps * 1e9);   /* GB/s = 1e9 B/s */
        }
    }
  return TRUE;
}

static gboolean
load_strings (JsonObject *obj, TopoProfile *p, const char *file, GError **error)
{
  static const char *const keys[] = { "source", "backend", "host", "date" };
  char **fields[] = { &p->source, &p->backend, &p->host, &p->date };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      JsonNode *node = json_object_get_member (obj, keys[i]);
      g_autofree char *f = g_strdup_printf ("profile.%s", keys[i]);
      const char *s;
      if (node == NULL)
        {
          if (i == 0)
            {
              g_set_error (error, TOPO_ERROR, TOPO_ERROR_MISSING_FIELD,
                           "%s: missing required field 'profile.source'", file);
              return FALSE;
            }
          continue;
        }
      if (!get_string (node, &s, file, f, error))
        return FALSE;
      *fields[i] = g_strdup (s);
    }
  return TRUE;
}

gboolean
topo_profile_load (JsonNode *node, const char *file, TopoProfile **out, GError **error)
{
  g_return_val_if_fail (node != NULL && out != NULL, FALSE);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, file, "profile", "must be an object, not %s", type_name (node));
  JsonObject *obj = json_node_get_object (node);
  g_autoptr (TopoProfile) p = topo_profile_new ();
  if (!check_keys (obj, profile_keys, file, "profile", error)
      || !load_strings (obj, p, file, error))
    return FALSE;
  if (json_object_has_member (obj, "ranks"))
    {
      guint64 ranks;
      if (!get_count (json_object_get_member (obj, "ranks"), &ranks, file, "profile.ranks", error))
        return FALSE;
      p->ranks = (guint) MIN (ranks, G_MAXUINT);
    }
  if (!load_gemm (obj, p, file, error) || !load_memory (obj, p, file, error)
      || !load_colls (obj, p, file, error) || !load_attention (obj, p, file, error)
      || !load_kernels (obj, p, file, error) || !load_contention (obj, p, file, error))
    return FALSE;
  topo_profile_free (*out);
  *out = g_steal_pointer (&p);
  return TRUE;
}

/* ---- writing --------------------------------------------------------------------------- */

/* Integers stay integers in the JSON (m, n, k, ranks, bytes). */
static void
add_count (JsonBuilder *b, double v)
{
  if (v == floor (v) && fabs (v) < 9.0e15)
    json_builder_add_int_value (b, (gint64) v);
  else
    json_builder_add_double_value (b, v);
}

/* A unit-converted value (s -> us, B/s -> GB/s) to 15 significant digits, so that 9.81 us
 * read as 9.81e-6 s is written back as 9.81, not 9.809999999999999. */
static double
tidy (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_ascii_strtod (g_ascii_formatd (buf, sizeof buf, "%.15g", v), NULL);
}

static void
add_string (JsonBuilder *b, const char *key, const char *value)
{
  if (value == NULL)
    return;
  json_builder_set_member_name (b, key);
  json_builder_add_string_value (b, value);
}

JsonNode *
topo_profile_to_json_node (const TopoProfile *profile)
{
  g_return_val_if_fail (profile != NULL, NULL);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  add_string (b, "source", profile->source != NULL ? profile->source : "unknown");
  add_string (b, "backend", profile->backend);
  add_string (b, "host", profile->host);
  add_string (b, "date", profile->date);
  if (profile->ranks > 0)
    {
      json_builder_set_member_name (b, "ranks");
      json_builder_add_int_value (b, profile->ranks);
    }
  if (profile->gemm->len > 0)
    {
      add_string (b, "_gemm", "rows: m, n, k, dtype, achieved FLOP/s per rank");
      json_builder_set_member_name (b, "gemm");
      json_builder_begin_array (b);
      for (guint i = 0; i < profile->gemm->len; i++)
        {
          const TopoProfileGemm *g = &g_array_index (profile->gemm, TopoProfileGemm, i);
          json_builder_begin_array (b);
          add_count (b, (double) g->m);
          add_count (b, (double) g->n);
          add_count (b, (double) g->k);
          json_builder_add_string_value (b, topo_dtype_name (g->dtype));
          json_builder_add_double_value (b, g->flops_per_s);
          json_builder_end_array (b);
        }
      json_builder_end_array (b);
    }
  if (profile->copy_Bps > 0 || profile->triad_Bps > 0)
    {
      json_builder_set_member_name (b, "memory");
      json_builder_begin_object (b);
      if (profile->copy_Bps > 0)
        {
          json_builder_set_member_name (b, "copy_GBps");
          json_builder_add_double_value (b, tidy (profile->copy_Bps / 1e9));
        }
      if (profile->triad_Bps > 0)
        {
          json_builder_set_member_name (b, "triad_GBps");
          json_builder_add_double_value (b, tidy (profile->triad_Bps / 1e9));
        }
      json_builder_end_object (b);
    }
  if (profile->colls->len > 0)
    {
      add_string (b, "_collectives",
                  "rows: collective, ranks, size (B), time (us), algbw (GB/s), busbw (GB/s)");
      json_builder_set_member_name (b, "collectives");
      json_builder_begin_array (b);
      for (guint i = 0; i < profile->colls->len; i++)
        {
          const TopoProfileColl *c = &g_array_index (profile->colls, TopoProfileColl, i);
          json_builder_begin_array (b);
          json_builder_add_string_value (b, c->coll);
          json_builder_add_int_value (b, c->ranks);
          add_count (b, c->bytes);
          json_builder_add_double_value (b, tidy (c->time_s * 1e6));
          json_builder_add_double_value (b, tidy (c->algbw_Bps / 1e9));
          json_builder_add_double_value (b, tidy (c->busbw_Bps / 1e9));
          json_builder_end_array (b);
        }
      json_builder_end_array (b);
    }
  if (profile->attention->len > 0)
    {
      add_string (b, "_attention", "rows: b, heads, kv_heads, s_q, s_kv, head_dim, causal, "
                  "dtype, achieved forward and backward FLOP/s per rank (forward FLOPs 4 b "
                  "heads s_q s_kv head_dim, halved when causal; backward 2.5x)");
      json_builder_set_member_name (b, "attention");
      json_builder_begin_array (b);
      for (guint i = 0; i < profile->attention->len; i++)
        {
          const TopoProfileAttn *a = &g_array_index (profile->attention, TopoProfileAttn, i);
          json_builder_begin_array (b);
          const guint64 dims[6] = { a->b, a->heads, a->kv_heads, a->s_q, a->s_kv, a->head_dim };
          for (guint j = 0; j < 6; j++)
            add_count (b, (double) dims[j]);
          json_builder_add_boolean_value (b, a->causal);
          json_builder_add_string_value (b, topo_dtype_name (a->dtype));
          json_builder_add_double_value (b, a->fwd_flops_per_s);
          json_builder_add_double_value (b, a->bwd_flops_per_s);
          json_builder_end_array (b);
        }
      json_builder_end_array (b);
    }
  gboolean any_kernel = FALSE;
  for (int k = 0; k < TOPO_KERNEL_N; k++)
    any_kernel |= profile->kernels[k]->len > 0;
  if (any_kernel)
    {
      add_string (b, "_kernels", "per kind, rows: elements, achieved GB/s per rank, bytes "
                  "counted as the cost model counts them (topology/presets/README.md)");
      json_builder_set_member_name (b, "kernels");
      json_builder_begin_object (b);
      for (int k = 0; k < TOPO_KERNEL_N; k++)
        {
          const GArray *rows = profile->kernels[k];
          if (rows->len == 0)
            continue;
          json_builder_set_member_name (b, kernel_names[k]);
          json_builder_begin_array (b);
          for (guint i = 0; i < rows->len; i++)
            {
              const TopoProfileKernel *r = &g_array_index (rows, TopoProfileKernel, i);
              json_builder_begin_array (b);
              add_count (b, (double) r->elements);
              json_builder_add_double_value (b, tidy (r->Bps / 1e9));
              json_builder_end_array (b);
            }
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
    }
  const TopoProfileContention *ct = &profile->contention;
  if (ct->cores > 0 && ct->gemm_alone_s > 0)
    {
      add_string (b, "_contention", "cores the ranks could run on, threads per rank, a GEMM "
                  "of gemm_m^3 (FP32) per rank alone and while all-reduces of allreduce_bytes "
                  "were kept in flight, and the all-reduce's time meanwhile (sim/cost-cpu.c)");
      json_builder_set_member_name (b, "contention");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "cores");
      json_builder_add_int_value (b, ct->cores);
      json_builder_set_member_name (b, "blas_threads");
      json_builder_add_int_value (b, ct->blas_threads);
      json_builder_set_member_name (b, "progress_threads");
      json_builder_add_int_value (b, ct->progress_threads);
      json_builder_set_member_name (b, "gemm_m");
      add_count (b, (double) ct->gemm_m);
      json_builder_set_member_name (b, "gemm_alone_us");
      json_builder_add_double_value (b, tidy (ct->gemm_alone_s * 1e6));
      json_builder_set_member_name (b, "gemm_with_allreduce_us");
      json_builder_add_double_value (b, tidy (ct->gemm_coll_s * 1e6));
      json_builder_set_member_name (b, "allreduce_bytes");
      add_count (b, ct->coll_bytes);
      json_builder_set_member_name (b, "allreduce_us");
      json_builder_add_double_value (b, tidy (ct->coll_s * 1e6));
      if (ct->compute_share > 0)
        {
          json_builder_set_member_name (b, "compute_share");
          json_builder_add_double_value (b, tidy (ct->compute_share));
        }
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* json-glib's pretty printer puts every array element on its own line; a table row
 * (an array of scalars) reads better on one: "[ 64, 64, 64, "fp32", 1.1e+11 ]". */
static char *
compact_rows (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"')
        {
          /* copy a string literal as is */
          const char *q = p + 1;
          while (*q != '\0' && *q != '"')
            q += q[0] == '\\' && q[1] != '\0' ? 2 : 1;
          g_string_append_len (out, p, q - p + (*q != '\0'));
          p = *q != '\0' ? q : q - 1;
          continue;
        }
      if (*p != '[')
        {
          g_string_append_c (out, *p);
          continue;
        }
      /* an array of scalars only? find its end outside strings */
      const char *q = p + 1;
      gboolean leaf = TRUE, in_str = FALSE;
      for (; *q != '\0' && (in_str || *q != ']'); q++)
        {
          if (in_str && q[0] == '\\' && q[1] != '\0')
            q++;
          else if (*q == '"')
            in_str = !in_str;
          else if (!in_str && (*q == '[' || *q == '{'))
            leaf = FALSE;
        }
      if (!leaf || *q == '\0')
        {
          g_string_append_c (out, *p);
          continue;
        }
      /* copy it with the whitespace outside strings squeezed out */
      g_string_append (out, "[ ");
      in_str = FALSE;
      for (const char *r = p + 1; r < q; r++)
        {
          if (in_str && r[0] == '\\' && r + 1 < q)
            {
              g_string_append_len (out, r, 2);
              r++;
              continue;
            }
          if (*r == '"')
            in_str = !in_str;
          if (!in_str && g_ascii_isspace (*r))
            continue;
          g_string_append_c (out, *r);
          if (!in_str && *r == ',')
            g_string_append_c (out, ' ');
        }
      g_string_append (out, " ]");
      p = q;
    }
  return g_string_free (out, FALSE);
}

char *
topo_cluster_json_set_profile (const char *cluster_json, const TopoProfile *profile,
                               GError **error)
{
  g_return_val_if_fail (cluster_json != NULL && profile != NULL, NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  if (!json_parser_load_from_data (parser, cluster_json, -1, &local))
    {
      g_set_error (error, TOPO_ERROR, TOPO_ERROR_PARSE, "cluster JSON: %s", local->message);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, TOPO_ERROR, TOPO_ERROR_PARSE,
                   "cluster JSON: the top level must be a JSON object");
      return NULL;
    }
  json_object_set_member (json_node_get_object (root), "profile",
                          topo_profile_to_json_node (profile));
  g_autofree char *pretty = util_json_to_data (root, TRUE);   /* indent 2 */
  return compact_rows (pretty);
}
