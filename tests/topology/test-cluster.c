/* tests/topology/test-cluster.c - the cluster JSON loader, the shipped presets and the
 * queries over the level hierarchy.
 *
 * Every file in tests/data/topology/ is loaded once by its own test case
 * (g_test_add_data_func_full, as json-glib's conformance tests do); load_cases[] says what
 * each must give, and a file without an entry there fails. Every preset is likewise
 * loaded once and checked for sources and device count. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "topology/cluster.h"

#define LOADS (-1)

typedef struct {
  const char *file;
  int         code;    /* TopoError, or LOADS */
  const char *field;   /* quoted in the message, or NULL */
} LoadCase;

static const LoadCase load_cases[] = {
  { "valid-minimal.json",         LOADS,                    NULL },
  { "malformed.json",             TOPO_ERROR_PARSE,         NULL },
  { "top-level-array.json",       TOPO_ERROR_PARSE,         NULL },
  { "missing-device.json",        TOPO_ERROR_MISSING_FIELD, "device" },
  { "missing-bf16.json",          TOPO_ERROR_MISSING_FIELD, "device.peak_tflops.bf16" },
  { "missing-hbm.json",           TOPO_ERROR_MISSING_FIELD, "device.hbm_GiB" },
  { "missing-level-bw.json",      TOPO_ERROR_MISSING_FIELD, "levels[1].bw_GBps" },
  { "unknown-key.json",           TOPO_ERROR_INVALID_FIELD, "device.peak_tfops" },
  { "unknown-level-key.json",     TOPO_ERROR_INVALID_FIELD, "levels[0].bw_GBs" },
  { "unknown-source-key.json",    TOPO_ERROR_INVALID_FIELD, "device.sources.hbm_GiBs" },
  { "zero-count.json",            TOPO_ERROR_INVALID_FIELD, "levels[1].count" },
  { "negative-bw.json",           TOPO_ERROR_INVALID_FIELD, "levels[0].bw_GBps" },
  { "string-count.json",          TOPO_ERROR_INVALID_FIELD, "levels[0].count" },
  { "both-hbm.json",              TOPO_ERROR_INVALID_FIELD, "device.hbm_GB" },
  { "duplicate-level.json",       TOPO_ERROR_INVALID_FIELD, "levels[1].name" },
  { "low-oversubscription.json",  TOPO_ERROR_INVALID_FIELD, "levels[0].oversubscription" },
  { "nvls-without-flag.json",     TOPO_ERROR_INVALID_FIELD, "device.nvls_busbw_GBps" },
  { "mxfp8-ratio-without-flag.json", TOPO_ERROR_INVALID_FIELD, "device.mxfp8_gemm_ratio" },
  /* a standard deviation of 80% of the median part: not a part-to-part spread */
  { "perf-sigma-too-large.json",  TOPO_ERROR_INVALID_FIELD, "device.perf_sigma" },
};

/* Devices per preset: prod(level counts) as stated in each preset's sources. */
static const struct {
  const char *name;
  guint64     n_devices;
} preset_sizes[] = {
  { "a100-40g-cluster",  8 * 16 },           /* 16 example nodes of 8 */
  { "b200-node",         8 },
  { "cpu-host",          64 },               /* up to 64 ranks on one host */
  { "dgx-b200-superpod", 8 * 32 * 4 * 16 },  /* 16 pods x 4 SU x 32 DGX x 8 = 16,384 */
  { "dgx-2h-v100-cluster", 16 * 32 },        /* 32 DGX-2H x 16 = 512 */
  { "dgx1-v100-cluster", 8 * 64 },           /* 64 DGX-1 x 8 = 512 */
  { "dgx-b300-superpod", 8 * 64 * 16 },      /* 16 SU x 64 DGX x 8 = 8,192 */
  { "frontier",          2 * 4 * 128 * 74 }, /* 74 cabinets x 128 nodes x 8 GCDs = 75,776 */
  { "hgx-h20-cluster",   8 * 16 },           /* 16 example servers of 8 */
  { "l40s-pcie-cluster", 8 * 16 },           /* 16 example servers of 8 */
  { "dgx-h100-superpod", 8 * 32 * 4 },       /* 4 SU x 32 DGX x 8 = 1,024 */
  { "dgx-h100-superpod-64su", 8 * 32 * 4 * 16 }, /* 64 SU = 16,384 */
  { "dgx-h800-superpod", 8 * 32 * 4 },       /* the H100 SuperPOD's shape: 1,024 */
  { "dgx-h800-superpod-64su", 8 * 32 * 4 * 16 }, /* 16,384 */
  { "a800-superpod",     8 * 20 * 28 },      /* selene's shape: 4,480 */
  { "gb200-nvl72",       4 * 18 },           /* 18 trays x 4 = 72 */
  { "gb200-nvl72-superpod", 4 * 18 * 8 * 4 * 8 }, /* 72 x 8 racks x 4 SU x 8 pods = 18,432 */
  { "gb300-nvl72-superpod", 4 * 18 * 8 * 4 * 8 }, /* 18,432 */
  { "gh200-nvl4-cluster", 4 * 112 * 24 },    /* 24 cabinets x 112 nodes x 4 = 10,752 (Alps) */
  { "jean-zay",          8 * 52 },           /* 52 nodes x 8 = 416 (BLOOM's 384 + 32 in reserve) */
  { "juwels-booster",    4 * 48 * 20 },      /* 20 cells x 48 nodes x 4 = 3,840 places (936 nodes) */
  { "leonardo",          4 * 3456 },         /* 3,456 Booster nodes x 4 = 13,824 */
  { "h100-24k",          8 * 2 * 192 * 8 },  /* 24,576 */
  { "h100-nvl-cluster",  8 * 32 * 4 },       /* 1,024 */
  { "h100-pcie-cluster", 8 * 32 * 4 },       /* 1,024 */
  { "a100-pcie-cluster", 8 * 128 },          /* 128 example servers of 8 */
  { "a100-pcie-40g-cluster", 8 * 128 },
  { "h100-sxm-96g-superpod", 8 * 32 * 4 },   /* 1,024 */
  { "h200-node",         8 },
  { "h200-superpod",     8 * 32 * 4 * 16 },  /* 16,384 */
  { "mi300x-node",       8 },
  { "mi325x-node",       8 },
  { "mi300x-cluster",    8 * 128 },          /* 1,024 */
  { "mi325x-cluster",    8 * 128 },          /* 1,024 */
  { "mi350x-cluster",    8 * 128 },          /* 1,024 */
  { "mi355x-cluster",    8 * 128 },          /* 1,024 */
  { "selene",            8 * 20 * 28 },      /* 560 DGX A100 = 4,480 */
  { "tpu-v5p-pod",       4 * 16 * 140 },     /* 16 x 20 x 28 = 8,960 */
  { "trn2-ultraserver",  16 * 4 },           /* 64 */
};

static char *
data_path (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "data", "topology", file, NULL);
}

static void
assert_message_has (const GError *error, const char *needle)
{
  if (strstr (error->message, needle) == NULL)
    g_error ("message \"%s\" does not contain \"%s\"", error->message, needle);
}

/* One data file: loads, or fails with the expected code, naming the file and the field. */
static void
test_load_file (gconstpointer data)
{
  const char *file = data;
  g_autofree char *path = data_path (file);
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) cluster = NULL;
  const LoadCase *c = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (load_cases); i++)
    if (g_strcmp0 (load_cases[i].file, file) == 0)
      c = &load_cases[i];
  if (c == NULL)
    {
      g_test_message ("tests/data/topology/%s has no entry in load_cases[]", file);
      g_test_fail ();
      return;
    }

  cluster = topo_cluster_load_file (path, &error);
  if (c->code == LOADS)
    {
      g_assert_no_error (error);
      g_assert_nonnull (cluster);
      return;
    }
  g_assert_null (cluster);
  g_assert_error (error, TOPO_ERROR, c->code);
  assert_message_has (error, file);
  if (c->field != NULL)
    {
      g_autofree char *quoted = g_strdup_printf ("'%s'", c->field);

      assert_message_has (error, quoted);
    }
  if (c->code == TOPO_ERROR_PARSE && g_str_equal (file, "malformed.json"))
    {
      /* A syntax error reads like a compiler's: "PATH/malformed.json:LINE:COL: ...". */
      g_assert_true (g_regex_match_simple ("malformed\\.json:[0-9]+:[0-9]+: ", error->message,
                                           0, 0));
    }
}

/* The valid file converts units as the format says. */
static void
test_load_units (void)
{
  g_autofree char *path = data_path ("valid-minimal.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_load_file (path, &error);
  const TopoDevice *d;

  g_assert_no_error (error);
  d = &c->device;
  g_assert_cmpstr (c->name, ==, "valid-minimal");   /* default: file name without .json */
  g_assert_cmpstr (c->source, ==, path);
  g_assert_cmpstr (c->description, ==, "");
  g_assert_nonnull (strstr (c->json, "TestGPU"));
  g_assert_cmpstr (d->name, ==, "TestGPU");
  g_assert_cmpstr (d->vendor, ==, "unknown");
  /* peak_tflops bf16 100 -> 100e12 FLOP/s; fp8 200 -> 200e12; absent dtypes -> 0 */
  g_assert_cmpfloat_with_epsilon (d->peak_flops[TOPO_DTYPE_BF16], 100e12, 1);
  g_assert_cmpfloat_with_epsilon (d->peak_flops[TOPO_DTYPE_FP8], 200e12, 1);
  g_assert_cmpfloat (d->peak_flops[TOPO_DTYPE_FP32], ==, 0);
  /* hbm_GB 16 -> 16 x 1e9 bytes (GB, not GiB) */
  g_assert_cmpuint (d->hbm_bytes, ==, G_GUINT64_CONSTANT (16000000000));
  /* hbm_GBps 1000 -> 1e12 bytes/s */
  g_assert_cmpfloat_with_epsilon (d->hbm_Bps, 1e12, 1);
  g_assert_cmpuint (d->sms, ==, 10);
  g_assert_cmpuint (d->fp32_cores_per_sm, ==, 64);
  g_assert_cmpuint (d->tensor_cores_per_sm, ==, 2);
  /* absent optional numbers stay 0 ("not given") */
  g_assert_cmpfloat (d->clock_hz, ==, 0);
  g_assert_cmpfloat (d->gemm_efficiency, ==, 0);
  g_assert_cmpfloat (d->mem_efficiency, ==, 0);
  /* launch_overhead_us 5 -> 5e-6 s; nvls_busbw_GBps 120 -> 1.2e11 bytes/s */
  g_assert_cmpfloat_with_epsilon (d->launch_overhead_s, 5e-6, 1e-15);
  g_assert_true (d->has_nvls);
  g_assert_cmpfloat_with_epsilon (d->nvls_busbw_Bps, 120e9, 1);
  /* sources: given ones are kept, "_x" is a comment */
  g_assert_cmpstr (g_hash_table_lookup (d->sources, "hbm_GB"), ==, "test input");
  g_assert_null (g_hash_table_lookup (d->sources, "_x"));
  g_assert_cmpstr (g_hash_table_lookup (c->sources, "nic_Gbps"), ==, "test input");
  /* nic_Gbps 100 -> 100e9 bits/s / 8 = 12.5e9 bytes/s, 2 per device */
  g_assert_cmpuint (c->nics_per_device, ==, 2);
  g_assert_cmpfloat_with_epsilon (c->nic_Bps, 12.5e9, 1);
  /* levels: 4 x 2 = 8 devices */
  g_assert_cmpuint (c->n_levels, ==, 2);
  g_assert_cmpuint (c->n_devices, ==, 8);
  g_assert_cmpstr (c->levels[0].name, ==, "server");
  g_assert_cmpuint (c->levels[0].count, ==, 4);
  g_assert_cmpfloat_with_epsilon (c->levels[0].bw_Bps, 100e9, 1);
  g_assert_cmpfloat_with_epsilon (c->levels[0].busbw_Bps, 80e9, 1);
  /* latency_us 2 -> 2e-6 s; oversubscription defaults to 1 */
  g_assert_cmpfloat_with_epsilon (c->levels[0].latency_s, 2e-6, 1e-15);
  g_assert_cmpfloat (c->levels[0].oversubscription, ==, 1);
  g_assert_cmpstr (c->levels[0].source, ==, "test input");
  /* bw_GBps 12.5 -> 12.5e9; absent busbw / latency -> 0; source -> "" */
  g_assert_cmpfloat_with_epsilon (c->levels[1].bw_Bps, 12.5e9, 1);
  g_assert_cmpfloat (c->levels[1].busbw_Bps, ==, 0);
  g_assert_cmpfloat (c->levels[1].latency_s, ==, 0);
  g_assert_cmpfloat (c->levels[1].oversubscription, ==, 2);
  g_assert_cmpstr (c->levels[1].source, ==, "");
}

/* Text given directly: messages name "<data>" (or the given source), name defaults. */
static void
test_load_data (void)
{
  const char *text = "{ \"device\": { \"name\": \"g\", \"peak_tflops\": { \"bf16\": 1 }, "
                     "\"hbm_GiB\": 1, \"hbm_GBps\": 1000 }, \"levels\": [ { \"name\": \"s\", \"count\": 2, "
                     "\"bw_GBps\": 1 } ] }";
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_new_from_data (text, -1, NULL, &error);
  TopoCluster *bad;

  g_assert_no_error (error);
  g_assert_cmpstr (c->name, ==, "cluster");
  g_assert_cmpstr (c->source, ==, "<data>");
  /* hbm_GiB 1 -> 2^30 bytes */
  g_assert_cmpuint (c->device.hbm_bytes, ==, G_GUINT64_CONSTANT (1073741824));

  /* a device with FP16 tensor cores only (V100) loads without bf16: fp16 130 -> 130e12,
   * bf16 absent -> 0 */
  {
    const char *v100 = "{ \"device\": { \"name\": \"v\", \"peak_tflops\": { \"fp16\": 130 }, "
                       "\"hbm_GiB\": 32, \"hbm_GBps\": 1000 }, \"levels\": [ { \"name\": \"s\", \"count\": 16, "
                       "\"bw_GBps\": 150 } ] }";
    g_autoptr (TopoCluster) v = topo_cluster_new_from_data (v100, -1, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (v->device.peak_flops[TOPO_DTYPE_FP16], ==, 130e12);
    g_assert_cmpfloat (v->device.peak_flops[TOPO_DTYPE_BF16], ==, 0);
  }

  bad = topo_cluster_new_from_data ("{ \"levels\": [] }", -1, "inline", &error);
  g_assert_null (bad);
  g_assert_error (error, TOPO_ERROR, TOPO_ERROR_MISSING_FIELD);
  assert_message_has (error, "inline:");
  assert_message_has (error, "'device'");
}

/* Bounds below, for what a prediction divides by, and the integer caps: a positive figure
 * far below any hardware (1e-308 GB/s, a peak of 1e-6 TFLOP/s) loaded, and every
 * prediction failed with a hint about the plan; 2^31 SMs loaded and the step grew
 * 50,000-fold with exit 0; a level's bw below its measured busbw was ignored (the cost
 * model takes busbw). Each is refused naming the field; the floor itself loads. */
static void
test_load_bounds (void)
{
  static const struct { const char *device, *level; const char *field; } cases[] = {
    { "\"peak_tflops\": { \"bf16\": 1e-6 }", "\"bw_GBps\": 1", "device.peak_tflops.bf16" },
    { "\"peak_tflops\": { \"bf16\": 1e-4 }", "\"bw_GBps\": 1", NULL },
    { "\"peak_tflops\": { \"bf16\": 1, \"fp8\": 0 }", "\"bw_GBps\": 1", NULL },
    { "\"peak_tflops\": { \"bf16\": 1 }, \"hbm_GBps\": 1e-308", "\"bw_GBps\": 1",
      "device.hbm_GBps" },
    { "\"peak_tflops\": { \"bf16\": 1 }, \"clock_GHz\": 1e-9", "\"bw_GBps\": 1",
      "device.clock_GHz" },
    { "\"peak_tflops\": { \"bf16\": 1 }, \"gemm_efficiency\": 1e-308", "\"bw_GBps\": 1",
      "device.gemm_efficiency" },
    { "\"peak_tflops\": { \"bf16\": 1 }, \"sms\": 2147483647", "\"bw_GBps\": 1",
      "device.sms" },
    { "\"peak_tflops\": { \"bf16\": 1 }, \"sms\": 100000", "\"bw_GBps\": 1", NULL },
    /* 0 SMs was read as "not given" and changed the step without a word */
    { "\"peak_tflops\": { \"bf16\": 1 }, \"sms\": 0", "\"bw_GBps\": 1", "device.sms" },
    { "\"peak_tflops\": { \"bf16\": 1 }", "\"bw_GBps\": 1e-308", "levels[0].bw_GBps" },
    { "\"peak_tflops\": { \"bf16\": 1 }", "\"bw_GBps\": 1e-3", NULL },
    { "\"peak_tflops\": { \"bf16\": 1 }", "\"bw_GBps\": 100, \"busbw_GBps\": 370",
      "levels[0].busbw_GBps" },
    { "\"peak_tflops\": { \"bf16\": 1 }", "\"bw_GBps\": 450, \"busbw_GBps\": 450", NULL },
    /* a ratio of 1e-300 loaded and every prediction failed blaming the plan */
    { "\"peak_tflops\": { \"bf16\": 1 }, \"power_cap_clock_ratio\": 1e-300",
      "\"bw_GBps\": 1", "device.power_cap_clock_ratio" },
    { "\"peak_tflops\": { \"bf16\": 1 }, \"power_cap_clock_ratio\": 0.001",
      "\"bw_GBps\": 1", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "{ \"device\": { \"name\": \"g\", %s, \"hbm_GiB\": 1%s }, \"levels\": [ { \"name\": "
        "\"s\", \"count\": 2, %s } ] }", cases[i].device,
        strstr (cases[i].device, "hbm_GBps") ? "" : ", \"hbm_GBps\": 1000", cases[i].level);
      g_autoptr (GError) error = NULL;
      g_autoptr (TopoCluster) c = topo_cluster_new_from_data (text, -1, "b.json", &error);
      if (cases[i].field == NULL)
        {
          g_assert_no_error (error);
          g_assert_nonnull (c);
          continue;
        }
      g_assert_null (c);
      g_assert_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD);
      assert_message_has (error, cases[i].field);
    }
  /* no scale-out NIC at all was costed as one a device: refused, naming the field */
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_new_from_data (
    "{ \"device\": { \"name\": \"g\", \"peak_tflops\": { \"bf16\": 1 }, \"hbm_GiB\": 1, \"hbm_GBps\": 1000 }, "
    "\"nics_per_device\": 0, \"levels\": [ { \"name\": \"s\", \"count\": 2, \"bw_GBps\": 1 } ] }",
    -1, "b.json", &error);
  g_assert_null (c);
  g_assert_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD);
  assert_message_has (error, "nics_per_device' must be >= 1 (got 0)");
  g_clear_error (&error);

  /* ESC in a name (the cluster's, a device's, a level's) acted on the terminal where the
   * name was printed (predict, search, report scaling): refused, naming the field */
  static const struct { const char *json, *field; } names[] = {
    { "{ \"name\": \"a\\u001b]0;t\\u0007b\", \"device\": { \"name\": \"g\", \"peak_tflops\": "
      "{ \"bf16\": 1 }, \"hbm_GiB\": 1, \"hbm_GBps\": 1000 }, \"levels\": [ { \"name\": \"s\", \"count\": 2, "
      "\"bw_GBps\": 1 } ] }", "field 'name' holds a control character (byte 0x1b at offset 1)" },
    { "{ \"device\": { \"name\": \"g\\n\", \"peak_tflops\": { \"bf16\": 1 }, \"hbm_GiB\": 1, \"hbm_GBps\": 1000 }, "
      "\"levels\": [ { \"name\": \"s\", \"count\": 2, \"bw_GBps\": 1 } ] }",
      "field 'device.name' holds a control character (byte 0x0a" },
    { "{ \"device\": { \"name\": \"g\", \"peak_tflops\": { \"bf16\": 1 }, \"hbm_GiB\": 1, \"hbm_GBps\": 1000 }, "
      "\"levels\": [ { \"name\": \"s\\u009b\", \"count\": 2, \"bw_GBps\": 1 } ] }",
      "field 'levels[0].name' holds a control character (byte 0xc2" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (TopoCluster) k = topo_cluster_new_from_data (names[i].json, -1, "b.json", &e);
      g_assert_null (k);
      assert_message_has (e, names[i].field);
    }

  /* the totals wrapped: 2^31 devices of 80 GiB are 2^31 x 85,899,345,920 bytes = 1.8e20,
   * past 2^63 = 9.2e18, and showed as 0 B of HBM (2^60 devices as a negative count);
   * refused at the count that makes them wrap (8 x 268,435,456 = 2^31 devices). 2^26 =
   * 8 x 8,388,608 of them (5.8e18 bytes) still load. */
  static const struct { const char *count; gboolean ok; } counts[] = {
    { "268435456", FALSE }, { "1152921504606846977", FALSE }, { "8388608", TRUE } };
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "{ \"device\": { \"name\": \"g\", \"peak_tflops\": { \"bf16\": 1 }, \"hbm_GiB\": 80, \"hbm_GBps\": 1000 }, "
        "\"levels\": [ { \"name\": \"s\", \"count\": 8, \"bw_GBps\": 1 }, "
        "{ \"name\": \"p\", \"count\": %s, \"bw_GBps\": 1 } ] }", counts[i].count);
      g_autoptr (GError) e = NULL;
      g_autoptr (TopoCluster) k = topo_cluster_new_from_data (text, -1, "b.json", &e);
      if (counts[i].ok)
        {
          g_assert_no_error (e);
          TopoAggregate agg;
          topo_cluster_aggregate (k, &agg);
          g_assert_cmpuint (agg.hbm_bytes, ==, G_GUINT64_CONSTANT (8) * 8388608 * 85899345920);
          continue;
        }
      g_assert_null (k);
      assert_message_has (e, "levels[1].count' makes ");
      assert_message_has (e, "pass the 2^63");
    }
}

/* "part" names the part a renamed device is: kept as given, and what topo_device_part
 * returns (the name where absent); a part that contains none of topo_known_parts () is
 * refused, naming the field, as is an empty one. */
static void
test_load_part (void)
{
  const char *fmt = "{ \"device\": { \"name\": \"our-gpu\"%s, \"peak_tflops\": "
                    "{ \"bf16\": 989.4 }, \"hbm_GiB\": 80, \"hbm_GBps\": 1000 }, \"levels\": [ { \"name\": "
                    "\"s\", \"count\": 8, \"bw_GBps\": 450 } ] }";
  g_autoptr (GError) error = NULL;
  {
    g_autofree char *text = g_strdup_printf (fmt, "");
    g_autoptr (TopoCluster) c = topo_cluster_new_from_data (text, -1, NULL, &error);
    g_assert_no_error (error);
    g_assert_null (c->device.part);
    g_assert_cmpstr (topo_device_part (&c->device), ==, "our-gpu");
  }
  {
    /* "h100 sxm": contains "H100" case-insensitively */
    g_autofree char *text = g_strdup_printf (fmt, ", \"part\": \"h100 sxm\"");
    g_autoptr (TopoCluster) c = topo_cluster_new_from_data (text, -1, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (c->device.part, ==, "h100 sxm");
    g_assert_cmpstr (topo_device_part (&c->device), ==, "h100 sxm");
    g_assert_cmpstr (c->device.name, ==, "our-gpu");
  }
  {
    g_autofree char *text = g_strdup_printf (fmt, ", \"part\": \"X9\"");
    TopoCluster *bad = topo_cluster_new_from_data (text, -1, "f.json", &error);
    g_assert_null (bad);
    g_assert_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD);
    assert_message_has (error, "f.json");
    assert_message_has (error, "device.part");
    assert_message_has (error, "'X9' names no part");
    assert_message_has (error, "H100");
    g_clear_error (&error);
  }
  {
    g_autofree char *text = g_strdup_printf (fmt, ", \"part\": \"\"");
    TopoCluster *bad = topo_cluster_new_from_data (text, -1, "f.json", &error);
    g_assert_null (bad);
    g_assert_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD);
    g_clear_error (&error);
  }
}

static void
test_load_missing_file (void)
{
  g_autofree char *path = data_path ("no-such-file.json");
  g_autoptr (GError) error = NULL;
  TopoCluster *c = topo_cluster_load_file (path, &error);

  g_assert_null (c);
  g_assert_error (error, TOPO_ERROR, TOPO_ERROR_NOT_FOUND);
  assert_message_has (error, "no-such-file.json");
}

static guint64
preset_expected_size (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (preset_sizes); i++)
    if (g_str_equal (preset_sizes[i].name, name))
      return preset_sizes[i].n_devices;
  return 0;
}

/* Every number in a preset carries its source: each device field (peak_tflops per dtype
 * or as a whole), each top-level number, each level. Read from the raw JSON so that a
 * field the loader ignored would still be caught. */
static void
assert_preset_sources (const TopoCluster *c)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *root, *dev;
  g_autoptr (GList) dev_keys = NULL;

  json_parser_load_from_data (parser, c->json, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  dev = json_object_get_object_member (root, "device");
  dev_keys = json_object_get_members (dev);
  for (GList *l = dev_keys; l != NULL; l = l->next)
    {
      const char *key = l->data;

      if (key[0] == '_' || g_str_equal (key, "name") || g_str_equal (key, "vendor")
          || g_str_equal (key, "sources"))
        continue;
      if (g_str_equal (key, "peak_tflops")
          && !g_hash_table_contains (c->device.sources, "peak_tflops"))
        {
          g_autoptr (GList) dtypes =
            json_object_get_members (json_object_get_object_member (dev, key));

          for (GList *d = dtypes; d != NULL; d = d->next)
            {
              g_autofree char *k = g_strconcat ("peak_tflops.", (char *) d->data, NULL);

              if (!g_hash_table_contains (c->device.sources, k))
                g_error ("%s: device.%s has no source", c->name, k);
            }
          continue;
        }
      if (!g_str_equal (key, "peak_tflops") && !g_hash_table_contains (c->device.sources, key))
        g_error ("%s: device.%s has no source", c->name, key);
    }
  if (json_object_has_member (root, "nics_per_device"))
    g_assert_true (g_hash_table_contains (c->sources, "nics_per_device"));
  if (json_object_has_member (root, "nic_Gbps"))
    g_assert_true (g_hash_table_contains (c->sources, "nic_Gbps"));
  for (guint i = 0; i < c->n_levels; i++)
    if (c->levels[i].source[0] == '\0')
      g_error ("%s: level %s has no source", c->name, c->levels[i].name);
}

/* One preset: loads, has its expected size, sane numbers and a source for each. */
static void
test_preset (gconstpointer data)
{
  const char *name = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_load_preset (name, &error);
  g_autofree char *source = g_strconcat ("preset:", name, NULL);
  guint64 product = 1;

  g_assert_no_error (error);
  g_assert_cmpstr (c->name, ==, name);
  g_assert_cmpstr (c->source, ==, source);
  g_assert_cmpstr (c->description, !=, "");
  g_assert_cmpuint (preset_expected_size (name), ==, c->n_devices);
  /* a 16-bit tensor rate: BF16, or FP16 on a device without BF16 (dgx-2h-v100-cluster) */
  g_assert_cmpfloat (MAX (c->device.peak_flops[TOPO_DTYPE_BF16],
                          c->device.peak_flops[TOPO_DTYPE_FP16]), >, 0);
  g_assert_cmpuint (c->device.hbm_bytes, >, 0);
  g_assert_cmpfloat (c->device.hbm_Bps, >, 0);
  g_assert_cmpfloat (c->device.gemm_efficiency, <=, 1);
  for (guint i = 0; i < c->n_levels; i++)
    {
      const TopoLevel *l = &c->levels[i];

      product *= l->count;
      g_assert_cmpuint (topo_cluster_level_size (c, i), ==, product);
      g_assert_cmpfloat (l->bw_Bps, >, 0);
      g_assert_cmpfloat (l->oversubscription, >=, 1);
      /* a measured ring busbw never beats the per-direction link rate */
      g_assert_cmpfloat (l->busbw_Bps, <=, l->bw_Bps);
    }
  g_assert_cmpuint (product, ==, c->n_devices);
  assert_preset_sources (c);
}

/* Device memory as the device gives it to a process: the total nvidia-smi (rocm-smi for
 * AMD) reports, from public logs, in MiB (bytes for MI300X); NVIDIA's 80 GB parts read as
 * 80 GiB (the project's reference reading). Read as decimal bytes the published figures
 * left 6-13 GiB less (H200: 141e9 B = 131.3 GiB against 143,771 MiB = 140.4 GiB). */
static void
test_preset_hbm_totals (void)
{
  static const struct { const char *preset; guint64 bytes; } totals[] = {
    { "h200-superpod", 143771ull << 20 },
    { "h200-node", 143771ull << 20 },
    { "h100-nvl-cluster", 95830ull << 20 },
    { "hgx-h20-cluster", 97871ull << 20 },
    { "gh200-nvl4-cluster", 97871ull << 20 },
    { "l40s-pcie-cluster", 46068ull << 20 },
    { "dgx-b200-superpod", 183359ull << 20 },
    { "dgx-b300-superpod", 275040ull << 20 },
    { "gb200-nvl72-superpod", 189471ull << 20 },
    { "gb300-nvl72-superpod", 284208ull << 20 },
    { "mi300x-cluster", 205822885888ull },
    { "mi325x-node", 261824ull << 20 },
    { "mi350x-cluster", 294592ull << 20 },
    { "mi355x-cluster", 294592ull << 20 },
    { "h100-pcie-cluster", 80ull << 30 },
    { "a100-pcie-cluster", 80ull << 30 },
    { "a100-pcie-40g-cluster", 40ull << 30 },
    { "dgx-h100-superpod", 80ull << 30 },
    { "selene", 80ull << 30 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (totals); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (TopoCluster) c = topo_cluster_load_preset (totals[i].preset, &error);
      g_assert_no_error (error);
      /* the JSON holds GiB with the digits to give whole MiB: at most a byte off */
      if (c->device.hbm_bytes + 1 < totals[i].bytes || c->device.hbm_bytes > totals[i].bytes + 1)
        g_error ("%s: %" G_GUINT64_FORMAT " bytes, expected %" G_GUINT64_FORMAT,
                 totals[i].preset, c->device.hbm_bytes, totals[i].bytes);
    }
}

static void
test_preset_names (void)
{
  g_auto (GStrv) names = topo_preset_names ();

  /* one entry per shipped preset, sorted, each with an expected size above */
  g_assert_cmpuint (g_strv_length (names), ==, G_N_ELEMENTS (preset_sizes));
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_assert_cmpuint (preset_expected_size (names[i]), >, 0);
      if (i > 0)
        g_assert_cmpint (strcmp (names[i - 1], names[i]), <, 0);
    }
  g_assert_true (g_strv_contains ((const char *const *) names, "h100-24k"));
}

static void
test_lookup (void)
{
  g_autofree char *path = data_path ("valid-minimal.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) by_name = topo_cluster_lookup ("h100-24k", &error);
  g_autoptr (TopoCluster) by_path = NULL;
  TopoCluster *none;

  g_assert_no_error (error);
  g_assert_cmpstr (by_name->source, ==, "preset:h100-24k");
  by_path = topo_cluster_lookup (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (by_path->source, ==, path);

  /* neither a file nor a preset: NOT_FOUND, and the message lists the presets */
  none = topo_cluster_lookup ("no-such-cluster", &error);
  g_assert_null (none);
  g_assert_error (error, TOPO_ERROR, TOPO_ERROR_NOT_FOUND);
  assert_message_has (error, "'no-such-cluster'");
  assert_message_has (error, "h100-24k");
  assert_message_has (error, "trn2-ultraserver");
  g_clear_error (&error);

  /* a preset name cannot walk out of the resource folder */
  none = topo_cluster_load_preset ("../topology/h100-24k", &error);
  g_assert_null (none);
  g_assert_error (error, TOPO_ERROR, TOPO_ERROR_NOT_FOUND);
}

/* Meta's 24K cluster [LLAMA3]: 8 GPUs/server, 2 servers/rack, 192 racks/pod, 8 pods. */
static void
test_h100_24k_aggregate (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_load_preset ("h100-24k", &error);
  const TopoDevice *d;
  TopoAggregate agg;
  double per_sm_cycle;

  g_assert_no_error (error);
  d = &c->device;
  topo_cluster_aggregate (c, &agg);

  /* 8 x 2 x 192 x 8 = 24,576 GPUs */
  g_assert_cmpuint (agg.gpus, ==, 24576);
  /* 24,576 x 80 GiB = 24,576 x 85,899,345,920 = 2,111,062,325,329,920 bytes
   * = 1.875 PiB (1.875 x 2^50) */
  g_assert_cmpuint (agg.hbm_bytes, ==, G_GUINT64_CONSTANT (2111062325329920));
  g_assert_cmpuint (agg.hbm_bytes, ==, (G_GUINT64_CONSTANT (1) << 50) * 15 / 8);
  /* 24,576 x 132 SMs x 128 FP32 cores = 415,236,096 */
  g_assert_cmpuint (agg.fp32_cores, ==, 415236096);
  /* 24,576 x 132 SMs x 4 tensor cores = 12,976,128 */
  g_assert_cmpuint (agg.tensor_cores, ==, 12976128);
  /* 24,576 x 989.4e12 = 2.43154944e19 FLOP/s BF16 */
  g_assert_cmpfloat_with_epsilon (agg.peak_flops[TOPO_DTYPE_BF16], 2.43154944e19, 2.43154944e19 * 1e-12);
  /* 24,576 x 1,978.9e12 = 4.86334464e19 FLOP/s FP8 */
  g_assert_cmpfloat_with_epsilon (agg.peak_flops[TOPO_DTYPE_FP8], 4.86334464e19, 4.86334464e19 * 1e-12);

  /* The BF16 peak is the tensor-core arithmetic: 132 SMs x 4 tensor cores x 1024 FLOP
   * per cycle ([SB-gpus]) = 540,672 FLOP/cycle; x 1.83 GHz = 989.43e12, within 0.1% of
   * the datasheet 989.4e12. */
  per_sm_cycle = (double) d->tensor_cores_per_sm * 1024;
  g_assert_cmpfloat (per_sm_cycle, ==, 4096);
  g_assert_cmpfloat (fabs (d->sms * per_sm_cycle * d->clock_hz - 989.4e12) / 989.4e12, <, 1e-3);
  g_assert_cmpfloat (fabs (132.0 * 4096 * 1.83e9 - 989.4e12) / 989.4e12, <, 1e-3);
  /* 1:7 above the pod; 400 Gb/s NIC = 50e9 bytes/s */
  g_assert_cmpfloat (c->levels[3].oversubscription, ==, 7);
  g_assert_cmpfloat_with_epsilon (c->nic_Bps, 50e9, 1);
  /* NVLink 4: 450 GB/s per direction; measured ring busbw 370 */
  g_assert_cmpfloat_with_epsilon (c->levels[0].bw_Bps, 450e9, 1);
  g_assert_cmpfloat_with_epsilon (c->levels[0].busbw_Bps, 370e9, 1);
}

static void
test_h100_24k_levels (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_load_preset ("h100-24k", &error);

  g_assert_no_error (error);
  g_assert_cmpuint (c->n_levels, ==, 4);
  /* 8; 8 x 2 = 16; 16 x 192 = 3,072; 3,072 x 8 = 24,576 */
  g_assert_cmpuint (topo_cluster_level_size (c, 0), ==, 8);
  g_assert_cmpuint (topo_cluster_level_size (c, 1), ==, 16);
  g_assert_cmpuint (topo_cluster_level_size (c, 2), ==, 3072);
  g_assert_cmpuint (topo_cluster_level_size (c, 3), ==, 24576);
  g_assert_cmpint (topo_cluster_find_level (c, "server"), ==, 0);
  g_assert_cmpint (topo_cluster_find_level (c, "pod"), ==, 2);
  g_assert_cmpint (topo_cluster_find_level (c, "row"), ==, -1);

  /* devices 0..7 share a server; 8 is the other server of rack 0; 16 is in rack 1 of
   * pod 0; 3,072 is in pod 1 */
  g_assert_cmpuint (topo_cluster_common_level (c, 0, 0), ==, 0);
  g_assert_cmpuint (topo_cluster_common_level (c, 0, 7), ==, 0);
  g_assert_cmpuint (topo_cluster_common_level (c, 0, 8), ==, 1);
  g_assert_cmpuint (topo_cluster_common_level (c, 8, 0), ==, 1);
  g_assert_cmpuint (topo_cluster_common_level (c, 0, 15), ==, 1);
  g_assert_cmpuint (topo_cluster_common_level (c, 0, 16), ==, 2);
  g_assert_cmpuint (topo_cluster_common_level (c, 0, 3071), ==, 2);
  g_assert_cmpuint (topo_cluster_common_level (c, 0, 3072), ==, 3);
  g_assert_cmpuint (topo_cluster_common_level (c, 24575, 0), ==, 3);
  /* 8..15 is one server: 9 and 15 share level 0; 7 and 8 straddle servers */
  g_assert_cmpuint (topo_cluster_common_level (c, 9, 15), ==, 0);
  g_assert_cmpuint (topo_cluster_common_level (c, 7, 8), ==, 1);
}

/* Selene-like A100 cluster: 8 x 20 x 28 = 4,480 GPUs. */
static void
test_selene_aggregate (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_load_preset ("selene", &error);
  TopoAggregate agg;

  g_assert_no_error (error);
  topo_cluster_aggregate (c, &agg);
  g_assert_cmpuint (agg.gpus, ==, 4480);
  /* 4,480 x 80 GiB = 358,400 GiB = 384,829,069,721,600 bytes */
  g_assert_cmpuint (agg.hbm_bytes, ==, G_GUINT64_CONSTANT (384829069721600));
  /* 4,480 x 108 SMs x 64 FP32 cores = 30,965,760 */
  g_assert_cmpuint (agg.fp32_cores, ==, 30965760);
  /* 4,480 x 312e12 = 1.39776e18 FLOP/s BF16; no FP8 on A100 */
  g_assert_cmpfloat_with_epsilon (agg.peak_flops[TOPO_DTYPE_BF16], 1.39776e18, 1.39776e18 * 1e-12);
  g_assert_cmpfloat (agg.peak_flops[TOPO_DTYPE_FP8], ==, 0);
}

/* A device with unknown core counts aggregates them as 0, not garbage. */
static void
test_aggregate_unknown_cores (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_load_preset ("gb200-nvl72", &error);
  TopoAggregate agg;

  g_assert_no_error (error);
  topo_cluster_aggregate (c, &agg);
  g_assert_cmpuint (agg.gpus, ==, 72);
  g_assert_cmpuint (agg.fp32_cores, ==, 0);
  g_assert_cmpuint (agg.tensor_cores, ==, 0);
  /* 72 x 189,471 MiB (a GB200's total as nvidia-smi reports it; the preset's hbm_GiB
   * 185.0302734375 = 189471 / 1024) = 72 x 198,674,743,296 = 14,304,581,517,312 bytes */
  g_assert_cmpuint (agg.hbm_bytes, ==, G_GUINT64_CONSTANT (14304581517312));
}

static void
test_dtype (void)
{
  static const guint bytes[TOPO_DTYPE_N] = { 4, 4, 2, 2, 1, 1 };
  TopoDtype t = TOPO_DTYPE_N;

  for (guint i = 0; i < TOPO_DTYPE_N; i++)
    {
      g_assert_true (topo_dtype_parse (topo_dtype_name (i), &t));
      g_assert_cmpint (t, ==, i);
      g_assert_cmpuint (topo_dtype_bytes (i), ==, bytes[i]);
    }
  g_assert_cmpstr (topo_dtype_name (TOPO_DTYPE_BF16), ==, "bf16");
  g_assert_true (topo_dtype_parse ("BF16", &t));
  g_assert_cmpint (t, ==, TOPO_DTYPE_BF16);
  g_assert_true (topo_dtype_parse ("bfloat16", &t));   /* Hugging Face torch_dtype */
  g_assert_cmpint (t, ==, TOPO_DTYPE_BF16);
  g_assert_true (topo_dtype_parse ("float32", &t));
  g_assert_cmpint (t, ==, TOPO_DTYPE_FP32);
  g_assert_false (topo_dtype_parse ("int8", &t));
  g_assert_false (topo_dtype_parse ("", NULL));
}

static void
test_ref (void)
{
  g_autoptr (GError) error = NULL;
  TopoCluster *c = topo_cluster_load_preset ("h200-node", &error);

  g_assert_no_error (error);
  g_assert_cmpint (c->ref_count, ==, 1);
  g_assert_true (topo_cluster_ref (c) == c);
  g_assert_cmpint (c->ref_count, ==, 2);
  topo_cluster_unref (c);
  g_assert_cmpint (c->ref_count, ==, 1);
  topo_cluster_unref (c);
  topo_cluster_unref (NULL);
}

/* g_ptr_array_sort passes pointers to the elements. */
static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* topo_cluster_scale_out: selene is 8 x 20 x 28 = 4,480 GPUs; 10,000 need
 * ceil(10000 / 4480) = 3 repeats of its outermost level: 28 x 3 = 84 units, 13,440 GPUs,
 * with the inner levels and every bandwidth as they were. A one-level cluster (one
 * server) has no scale-out level to repeat: refused. */
static void
test_scale_out (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) sel = topo_cluster_lookup ("selene", &error);
  g_assert_no_error (error);
  g_autoptr (TopoCluster) big = topo_cluster_scale_out (sel, 10000, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (big->n_devices, ==, 13440);
  g_assert_cmpuint (big->n_levels, ==, sel->n_levels);
  g_assert_cmpuint (big->levels[big->n_levels - 1].count, ==, 84);
  for (guint i = 0; i < sel->n_levels; i++)
    {
      g_assert_cmpfloat (big->levels[i].bw_Bps, ==, sel->levels[i].bw_Bps);
      if (i + 1 < sel->n_levels)
        g_assert_cmpuint (big->levels[i].count, ==, sel->levels[i].count);
    }
  g_assert_cmpstr (big->name, ==, "selene");
  g_assert_nonnull (strstr (big->description, "grown 3x to 84 units for 10000 devices"));

  g_autoptr (TopoCluster) node = topo_cluster_lookup ("h200-node", &error);
  g_assert_no_error (error);
  g_autoptr (TopoCluster) none = topo_cluster_scale_out (node, 16, &error);
  g_assert_null (none);
  g_assert_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD);
  g_assert_nonnull (strstr (error->message, "no scale-out level"));
}

/* The export variants differ from their base part only in NVLink (arXiv 2505.09343 Sec.
 * 4.1 for the H800; tweakers.net / techpowerup.com, after Reuters, for the A800):
 *   H800: 400 GB/s bidirectional / 2 = 200 GB/s per direction (H100: 900 / 2 = 450);
 *         busbw 160 GB/s, the achievable NVLink bandwidth of DeepSeek-V3's H800 nodes
 *         (arXiv 2412.19437 Sec. 3.2.2), 160 / 200 = 0.80 of the link (H100 370 / 450);
 *         no NVLS (no measurement on H800);
 *   A800: 400 / 2 = 200 GB/s per direction (A100: 600 / 2 = 300); busbw 235 / 300 x 200 =
 *         156.7 -> 157 GB/s;
 * every compute ceiling, the memory and the levels above the server stay the base
 * preset's, and the device name keeps the generation (sim/cost.c matches "H800" to
 * Hopper, "A800" to Ampere). */
static void
test_export_variants (void)
{
  static const struct { const char *variant, *base, *device; double bw, busbw; } cases[] = {
    { "dgx-h800-superpod", "dgx-h100-superpod", "H800-SXM5-80GB", 200e9, 160e9 },
    { "dgx-h800-superpod-64su", "dgx-h100-superpod-64su", "H800-SXM5-80GB", 200e9, 160e9 },
    { "a800-superpod", "selene", "A800-SXM4-80GB", 200e9, 157e9 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (TopoCluster) v = topo_cluster_lookup (cases[i].variant, &error);
      g_assert_no_error (error);
      g_autoptr (TopoCluster) b = topo_cluster_lookup (cases[i].base, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (v->device.name, ==, cases[i].device);
      g_assert_cmpfloat (v->levels[0].bw_Bps, ==, cases[i].bw);
      g_assert_cmpfloat (v->levels[0].busbw_Bps, ==, cases[i].busbw);
      g_assert_cmpfloat (v->levels[0].bw_Bps, <, b->levels[0].bw_Bps);
      g_assert_false (v->device.has_nvls);
      for (guint d = 0; d < TOPO_DTYPE_N; d++)
        g_assert_cmpfloat (v->device.peak_flops[d], ==, b->device.peak_flops[d]);
      g_assert_cmpuint (v->device.hbm_bytes, ==, b->device.hbm_bytes);
      g_assert_cmpfloat (v->device.hbm_Bps, ==, b->device.hbm_Bps);
      g_assert_cmpfloat (v->device.gemm_efficiency, ==, b->device.gemm_efficiency);
      g_assert_cmpuint (v->n_levels, ==, b->n_levels);
      for (guint l = 1; l < b->n_levels; l++)
        {
          g_assert_cmpuint (v->levels[l].count, ==, b->levels[l].count);
          g_assert_cmpfloat (v->levels[l].bw_Bps, ==, b->levels[l].bw_Bps);
          g_assert_cmpfloat (v->levels[l].busbw_Bps, ==, b->levels[l].busbw_Bps);
        }
    }
}

int
main (int argc, char **argv)
{
  g_autofree char *dir_path = NULL;
  g_autoptr (GDir) dir = NULL;
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) presets = NULL;
  const char *name;

  g_test_init (&argc, &argv, NULL);

  dir_path = g_test_build_filename (G_TEST_DIST, "data", "topology", NULL);
  dir = g_dir_open (dir_path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".json"))
      g_ptr_array_add (files, g_strdup (name));
  g_ptr_array_sort (files, compare_names);
  for (guint i = 0; i < files->len; i++)
    {
      const char *file = g_ptr_array_index (files, i);
      g_autofree char *test = g_strdup_printf ("/topology/cluster/load-file/%s", file);

      g_test_add_data_func_full (test, g_strdup (file), test_load_file, g_free);
    }
  g_test_add_func ("/topology/cluster/load-units", test_load_units);
  g_test_add_func ("/topology/cluster/preset-hbm-totals", test_preset_hbm_totals);
  g_test_add_func ("/topology/cluster/load-data", test_load_data);
  g_test_add_func ("/topology/cluster/load-bounds", test_load_bounds);
  g_test_add_func ("/topology/cluster/load-part", test_load_part);
  g_test_add_func ("/topology/cluster/load-missing-file", test_load_missing_file);
  g_test_add_func ("/topology/cluster/lookup", test_lookup);
  g_test_add_func ("/topology/cluster/ref", test_ref);
  g_test_add_func ("/topology/cluster/scale-out", test_scale_out);

  presets = topo_preset_names ();
  for (guint i = 0; presets[i] != NULL; i++)
    {
      g_autofree char *test = g_strdup_printf ("/topology/preset/load/%s", presets[i]);

      g_test_add_data_func_full (test, g_strdup (presets[i]), test_preset, g_free);
    }
  g_test_add_func ("/topology/preset/names", test_preset_names);
  g_test_add_func ("/topology/preset/h100-24k-aggregate", test_h100_24k_aggregate);
  g_test_add_func ("/topology/preset/h100-24k-levels", test_h100_24k_levels);
  g_test_add_func ("/topology/preset/selene-aggregate", test_selene_aggregate);
  g_test_add_func ("/topology/preset/export-variants", test_export_variants);
  g_test_add_func ("/topology/preset/aggregate-unknown-cores", test_aggregate_unknown_cores);
  g_test_add_func ("/topology/dtype/names", test_dtype);

  return g_test_run ();
}
