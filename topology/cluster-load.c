/* topology/cluster-load.c - read a cluster JSON file (or a compiled-in preset).
 *
 * The cluster JSON format (also in topology/presets/README.md)
 * -----------------------------------------------------------
 * Units are in the key names; the loader converts them to the SI units of cluster.h
 * (bytes/s, seconds, bytes, FLOP/s, Hz). 1 GB = 1e9 bytes, 1 GiB = 2^30 bytes,
 * 1 GB/s = 1e9 bytes/s, 1 Gb/s = 1e9 bits/s = 1.25e8 bytes/s. Bandwidths are per
 * direction (a "900 GB/s" bidirectional NVLink 4 figure is 450 here).
 *
 *   {
 *     "_comment": "any key that starts with '_' is a comment, at any depth",
 *     "name": "h100-24k",                        optional; default: file name without .json
 *     "description": "text",                     optional
 *     "device": {                                required
 *       "name": "H100-SXM5-80GB",                required
 *       "part": "H100",                          optional: the GPU part the device is,
 *                                                where its name does not say (a renamed
 *                                                copy of a preset: "name": "our-gpu");
 *                                                the cost model's fitted knobs and the
 *                                                accuracy figures then know it as that
 *                                                part; must contain one of
 *                                                topo_known_parts () (case-insensitive)
 *       "vendor": "nvidia",                      optional ("unknown")
 *       "peak_tflops": {                         required; dense TFLOP/s per device
 *         "fp32": 66.9, "tf32": 494.7, "fp16": 989.4,
 *         "bf16": 989.4,                         bf16 required (> 0) unless fp16 > 0
 *                                                is given (V100: no BF16); others >= 0,
 *         "fp8": 1978.9 },                       absent or 0 = not supported
 *       "hbm_GiB": 80,  or  "hbm_GB": 141,       exactly one, > 0
 *       "hbm_GBps": 3350,                        required, > 0 (memory-bound ops
 *                                                are free without it)
 *       "sms": 132,                              optional integers (SMs / CUs / cores),
 *       "fp32_cores_per_sm": 128,                absent = unknown; sms >= 1 where given
 *                                                (0 read as absent had changed the step
 *                                                without a word); caps 100,000 SMs,
 *                                                65,536 cores an SM
 *       "tensor_cores_per_sm": 4,
 *       "clock_GHz": 1.83,                       optional, > 0: the clock of the peak
 *       "exp_per_clk_per_sm": 16,                optional, > 0: SFU exp2 results per clock
 *                                                per SM (the softmax's exponentials)
 *       "gemm_efficiency": 0.803,                optional, in (0, 1]: best GEMM / peak
 *       "sustained_matmul_ratio": 0.823,         optional, in (0, 1]: measured sustained
 *                                                matmul rate (MSMF) over the burst MAMF of
 *                                                the same protocol (cluster.h)
 *       "power_cap_clock_ratio": 0.879,          optional, in (0, 1]: measured SM clock at
 *                                                the power cap the part runs at over the
 *                                                clock at its TDP (the one the peaks and
 *                                                gemm_efficiency describe); scales the tensor,
 *                                                vector FP32 and SFU rates the cost model
 *                                                uses, not HBM bandwidth and not the peak
 *                                                MFU is reported against; absent = 1
 *       "perf_sigma": 0.0148,                    optional, in [0, 0.5): standard deviation of
 *                                                one part's kernel speed across parts of the
 *                                                same SKU, as a fraction of the median part
 *                                                (manufacturing and power-management
 *                                                variation); the cost model runs a job's
 *                                                compute at its slowest GPU's speed
 *                                                (sim/cost.c); absent = 0 = none
 *       "mem_efficiency": 0.9,                   optional, in (0, 1]: achieved / hbm_GBps
 *       "launch_overhead_us": 4,                 optional, >= 0
 *       "nvls": true,                            optional bool: NVLink SHARP at level 0
 *       "nvls_busbw_GBps": 475,                  optional, > 0, only with "nvls": true
 *       "fp8_any_layout": true,                  optional bool: FP8 GEMMs take either operand
 *                                                transposed (TN, NT, NN: Blackwell), so a
 *                                                per-tensor FP8 copy serves both usages
 *       "mxfp8": true,                           optional bool: MXFP8 block-scaled GEMMs
 *                                                (E8M0 scale per 32 elements: Blackwell)
 *       "mxfp8_gemm_ratio": 0.95,                optional, in (0, 1], only with "mxfp8":
 *                                                MXFP8 GEMM rate / per-tensor FP8 rate
 *       "host_link_GBps": 450,                   optional, > 0: the link to the host CPU's
 *                                                memory, per direction (PCIe x16, NVLink-C2C);
 *                                                absent = the cost model's default for the
 *                                                device family (sim/cost.c)
 *       "host_link_devices": 2,                  optional integer >= 1 (default 1): devices
 *                                                that share that link (GB200/GB300: 2 GPUs
 *                                                per Grace)
 *       "sources": { "peak_tflops": "text",      optional: field name -> where the number
 *                    "peak_tflops.fp8": "text",  comes from; keys must name a device field
 *                    "hbm_GiB": "text", ... }    (or peak_tflops.DTYPE)
 *     },
 *     "nics_per_device": 1,                      optional integer >= 1 (scale-out NICs; 0
 *                                                was costed as 1)
 *     "nic_Gbps": 400,                           optional, > 0, per NIC per direction
 *                                                (both NIC fields describe the part for
 *                                                show cluster; a prediction reads each
 *                                                level's bw_GBps, which is required, so
 *                                                the scale-out levels carry the NICs'
 *                                                share themselves)
 *     "sources": { "nic_Gbps": "text" },         optional: sources of the top-level fields
 *     "levels": [                                required, >= 1 entry, innermost first
 *       { "name": "server",                      required, unique
 *         "count": 8,                            required integer > 0: units of the level
 *                                                below (devices for the first level)
 *         "bw_GBps": 450,                        required, > 0: per direction per device,
 *                                                for traffic that stays inside this level
 *         "busbw_GBps": 370,                     optional, > 0, <= bw_GBps: measured
 *                                                collective busbw
 *         "a2a_busbw_GBps": 47,                  optional, > 0, <= bw_GBps: what an
 *                                                all-to-all reaches, where below busbw
 *                                                (one plane of a multi-plane NIC)
 *         "latency_us": 1.9,                     optional, >= 0: per algorithm step
 *         "oversubscription": 1,                 optional, >= 1 (default 1); 7 means 1:7
 *         "source": "text" }                     optional: where these numbers come from
 *     ],
 *     "profile": { ... }                         optional: measured GEMM, memory and
 *                                                collective tables (topology/profile.c)
 *   }
 *
 * Strictness: a key the format does not know is TOPO_ERROR_INVALID_FIELD (so a typo such
 * as "bw_GBs" is not silently ignored), as is a value of the wrong type or out of range;
 * an absent required field is TOPO_ERROR_MISSING_FIELD; text that is not JSON is
 * TOPO_ERROR_PARSE with json-glib's line:column. Every message starts with the file (or
 * "preset:NAME") and names the field by its path ("levels[1].count"). Presets and
 * lookup by name are in cluster-preset.c. */
#include "topology/cluster-private.h"
#include "util/input.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static const char *const top_keys[] = {
  "name", "description", "device", "nics_per_device", "nic_Gbps", "levels", "sources",
  "profile", NULL,
};
static const char *const device_keys[] = {
  "name", "part", "vendor", "peak_tflops", "hbm_GiB", "hbm_GB", "hbm_GBps", "sms",
  "fp32_cores_per_sm", "tensor_cores_per_sm", "clock_GHz", "exp_per_clk_per_sm", "gemm_efficiency",
  "power_cap_clock_ratio", "sustained_matmul_ratio", "perf_sigma", "mem_efficiency", "launch_overhead_us", "nvls", "nvls_busbw_GBps", "fp8_any_layout", "mxfp8", "mxfp8_gemm_ratio", "host_link_GBps", "host_link_devices", "sources", NULL,
};
static const char *const level_keys[] = {
  "name", "count", "bw_GBps", "busbw_GBps", "a2a_busbw_GBps", "latency_us", "oversubscription",
  "source", NULL,
};

/* Where a value sits, for messages: the file and the field path ("levels[1].count"). */
typedef struct {
  const char *file;
  const char *path;   /* "" at the top level */
} Where;

static char *
field_name (const Where *w, const char *key)
{
  return w->path[0] != '\0' ? g_strdup_printf ("%s.%s", w->path, key) : g_strdup (key);
}

static gboolean
fail_missing (const Where *w, const char *key, GError **error)
{
  g_autofree char *field = field_name (w, key);

  g_set_error (error, TOPO_ERROR, TOPO_ERROR_MISSING_FIELD,
               "%s: missing required field '%s'", w->file, field);
  return FALSE;
}

static gboolean G_GNUC_PRINTF (4, 5)
fail_invalid (const Where *w, const char *key, GError **error, const char *format, ...)
{
  g_autofree char *field = field_name (w, key);
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD,
               "%s: field '%s' %s", w->file, field, what);
  return FALSE;
}

static gboolean
key_is_known (const char *key, const char *const *known)
{
  return key[0] == '_' || g_strv_contains (known, key);
}

/* Every member of obj must be in `known` or start with '_' (a comment). */
static gboolean
check_keys (JsonObject *obj, const char *const *known, const Where *w, GError **error)
{
  g_autoptr (GList) members = json_object_get_members (obj);

  for (GList *l = members; l != NULL; l = l->next)
    if (!key_is_known (l->data, known))
      {
        g_autofree char *field = field_name (w, l->data);
        g_autofree char *list = g_strjoinv (", ", (char **) known);

        /* `tandem show cluster NAME --json` writes "gpus" and SI units (bw_Bps): a
         * report, which users fed back as a cluster file */
        const gboolean shown = g_str_equal (field, "gpus") || g_str_has_suffix (field, "_Bps")
                               || g_str_has_suffix (field, "_s");
        g_set_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD,
                     "%s: unknown key '%s' (known keys here: %s)%s", w->file, field, list,
                     shown ? " (hint: this looks like `tandem show cluster --json` output, a "
                             "report in SI units, not a cluster file; start from the preset "
                             "file topology/presets/NAME.json of the source tree instead)"
                           : "");
        return FALSE;
      }
  return TRUE;
}

static const char *
node_type_name (JsonNode *node)
{
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
node_is_number (JsonNode *node)
{
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  return json_node_get_value_type (node) == G_TYPE_INT64
         || json_node_get_value_type (node) == G_TYPE_DOUBLE;
}

typedef enum {
  RULE_POSITIVE,     /* > 0 */
  RULE_NONNEGATIVE,  /* >= 0 */
  RULE_FRACTION,     /* (0, 1] */
  RULE_AT_LEAST_ONE, /* >= 1 */
} Rule;

/* Upper bounds with their reasons (issue 15): a value past one is a typo or a unit
 * mistake, and each keeps the cost model's arithmetic finite. Keys not listed have only
 * their rule's lower bound (fractions are bounded by the rule). */
static const struct {
  const char *key;
  double      max;
  const char *why;
} number_caps[] = {
  { "bw_GBps", 1e5, "100 TB/s per direction, over 100x NVLink 5's 900 GB/s" },
  { "busbw_GBps", 1e5, "100 TB/s per direction, over 100x NVLink 5's 900 GB/s" },
  { "a2a_busbw_GBps", 1e5, "100 TB/s per direction, over 100x NVLink 5's 900 GB/s" },
  { "nvls_busbw_GBps", 1e5, "100 TB/s per direction, over 100x NVLink 5's 900 GB/s" },
  { "host_link_GBps", 1e5, "100 TB/s per direction, over 100x NVLink-C2C's 450 GB/s" },
  { "hbm_GBps", 1e6, "1 PB/s, over 100x the 8 TB/s of B200 HBM3e" },
  { "nic_Gbps", 1e6, "1 Pb/s per NIC, over 1000x a 800 Gb/s NIC" },
  { "latency_us", 1e6, "one second per algorithm step" },
  { "launch_overhead_us", 1e6, "one second per kernel" },
  { "clock_GHz", 100, "100 GHz, over 40x any GPU clock" },
  { "exp_per_clk_per_sm", 4096, "4,096 exponentials per clock per SM, 128x an SM's 32 SFU lanes" },
  { "oversubscription", 1e4, "a 1:10,000 fabric carries nothing" },
  { "hbm_GiB", 1048576, "1 PiB per device, over 1000x any GPU's HBM" },
  { "hbm_GB", 1125899.906842624, "1 PiB per device, over 1000x any GPU's HBM" },
  /* peak_tflops.DTYPE: keys are dtype names */
  { "fp32", 1e6, "1 EFLOP/s per device, over 100x a B200's FP8 peak" },
  { "tf32", 1e6, "1 EFLOP/s per device, over 100x a B200's FP8 peak" },
  { "fp16", 1e6, "1 EFLOP/s per device, over 100x a B200's FP8 peak" },
  { "bf16", 1e6, "1 EFLOP/s per device, over 100x a B200's FP8 peak" },
  { "fp8", 1e6, "1 EFLOP/s per device, over 100x a B200's FP8 peak" },
  { "fp4", 1e6, "1 EFLOP/s per device, over 50x a B200's FP4 peak" },
};

/* Lower bounds for the figures a prediction divides by, with their reasons: a positive
 * value below one (1e-308 GB/s, a peak of 1e-6 TFLOP/s) loaded, and every prediction then
 * failed with "the simulated step lasts 18446744 s or more", a hint about the plan. Each
 * floor is far below the slowest preset (cpu-host: 0.08 TFLOP/s, 10 GB/s memory, 5 GB/s
 * links; mi300x's GEMM fraction 0.511). A zero peak still means "no such dtype". */
static const struct {
  const char *key;
  double      min;
  const char *why;
} number_floors[] = {
  { "bw_GBps", 1e-3, "1 MB/s, below any interconnect" },
  { "busbw_GBps", 1e-3, "1 MB/s, below any interconnect" },
  { "a2a_busbw_GBps", 1e-3, "1 MB/s, below any interconnect" },
  { "nvls_busbw_GBps", 1e-3, "1 MB/s, below any interconnect" },
  { "host_link_GBps", 1e-3, "1 MB/s, below any host link" },
  { "hbm_GBps", 1e-2, "10 MB/s, below any memory" },
  { "nic_Gbps", 1e-2, "10 Mb/s, below any NIC" },
  { "clock_GHz", 1e-3, "1 MHz" },
  { "exp_per_clk_per_sm", 1e-3, "one exponential per 1,000 clocks" },
  { "gemm_efficiency", 1e-3, "0.1% of the peak" },
  { "mem_efficiency", 1e-3, "0.1% of the bandwidth" },
  { "power_cap_clock_ratio", 1e-3, "0.1% of the boost clock" },
  { "sustained_matmul_ratio", 1e-3, "0.1% of the burst matmul rate" },
  { "mxfp8_gemm_ratio", 1e-3, "0.1% of the FP8 rate" },
  { "fp32", 1e-4, "100 MFLOP/s, below one CPU core" },
  { "tf32", 1e-4, "100 MFLOP/s, below one CPU core" },
  { "fp16", 1e-4, "100 MFLOP/s, below one CPU core" },
  { "bf16", 1e-4, "100 MFLOP/s, below one CPU core" },
  { "fp8", 1e-4, "100 MFLOP/s, below one CPU core" },
  { "fp4", 1e-4, "100 MFLOP/s, below one CPU core" },
};

/* Reads a number; leaves *out untouched when the key is absent and not required.
 * *present (may be NULL) tells whether the key was there. */
static gboolean
read_number (JsonObject *obj, const char *key, gboolean required, Rule rule, double *out,
             gboolean *present, const Where *w, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);
  double v;

  if (present != NULL)
    *present = node != NULL;
  if (node == NULL)
    return required ? fail_missing (w, key, error) : TRUE;
  if (!node_is_number (node))
    return fail_invalid (w, key, error, "must be a number, not %s", node_type_name (node));
  v = json_node_get_double (node);
  /* json-glib reads 1e999 as inf: an infinite bandwidth made every transfer take 0 s */
  if (!isfinite (v))
    return fail_invalid (w, key, error, "must be a finite number (got %g; hint: check the "
                         "exponent)", v);
  for (guint i = 0; i < G_N_ELEMENTS (number_caps); i++)
    if (g_str_equal (number_caps[i].key, key) && v > number_caps[i].max)
      return fail_invalid (w, key, error, "is %.10g, above the cap of %.10g (%s; hint: check the "
                           "unit in the key name)", v, number_caps[i].max, number_caps[i].why);
  for (guint i = 0; i < G_N_ELEMENTS (number_floors); i++)
    if (g_str_equal (number_floors[i].key, key) && v > 0 && v < number_floors[i].min)
      return fail_invalid (w, key, error, "is %.10g, below the floor of %.10g (%s; hint: check "
                           "the unit in the key name)", v, number_floors[i].min,
                           number_floors[i].why);
  switch (rule)
    {
    case RULE_POSITIVE:
      if (!(v > 0))
        return fail_invalid (w, key, error, "must be > 0 (got %g)", v);
      break;
    case RULE_NONNEGATIVE:
      if (!(v >= 0))
        return fail_invalid (w, key, error, "must be >= 0 (got %g)", v);
      break;
    case RULE_FRACTION:
      if (!(v > 0 && v <= 1))
        return fail_invalid (w, key, error, "must be in (0, 1] (got %g)", v);
      break;
    case RULE_AT_LEAST_ONE:
      if (!(v >= 1))
        return fail_invalid (w, key, error, "must be >= 1 (got %g)", v);
      break;
    }
  *out = v;
  return TRUE;
}

/* Reads an integer in [min, max]; leaves *out untouched when absent and not required. */
static gboolean
read_uint (JsonObject *obj, const char *key, gboolean required, guint64 min, guint64 max,
           guint64 *out, const Where *w, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);
  gint64 v;

  if (node == NULL)
    return required ? fail_missing (w, key, error) : TRUE;
  if (!node_is_number (node))
    return fail_invalid (w, key, error, "must be an integer, not %s", node_type_name (node));
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (node);

      if (d != floor (d) || fabs (d) > 9.0e15)
        return fail_invalid (w, key, error, "must be an integer (got %g)", d);
      v = (gint64) d;
    }
  else
    v = json_node_get_int (node);
  if (v < 0 || (guint64) v < min)
    return fail_invalid (w, key, error, "must be >= %" G_GUINT64_FORMAT " (got %" G_GINT64_FORMAT ")",
                         min, v);
  if ((guint64) v > max)
    return fail_invalid (w, key, error, "must be <= %" G_GUINT64_FORMAT " (got %" G_GINT64_FORMAT ")",
                         max, v);
  *out = (guint64) v;
  return TRUE;
}

static gboolean
read_guint (JsonObject *obj, const char *key, guint *out, const Where *w, GError **error)
{
  guint64 v = *out;

  if (!read_uint (obj, key, FALSE, 0, G_MAXUINT, &v, w, error))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

/* Reads a non-empty string into a new allocation; *out stays NULL when absent. */
static gboolean
read_string (JsonObject *obj, const char *key, gboolean required, char **out,
             const Where *w, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (node == NULL)
    return required ? fail_missing (w, key, error) : TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return fail_invalid (w, key, error, "must be a string, not %s", node_type_name (node));
  if (json_node_get_string (node)[0] == '\0')
    return fail_invalid (w, key, error, "must not be empty");
  gssize at = util_text_control_at (json_node_get_string (node));
  if (at >= 0)
    return fail_invalid (w, key, error, "holds a control character (byte 0x%02x at offset %"
                         G_GSSIZE_FORMAT "), which a terminal would act on when it is "
                         "printed (hint: plain text)",
                         (guint) (guchar) json_node_get_string (node)[at], at);
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

static gboolean
read_bool (JsonObject *obj, const char *key, gboolean *out, const Where *w, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fail_invalid (w, key, error, "must be true or false, not %s", node_type_name (node));
  *out = json_node_get_boolean (node);
  return TRUE;
}

/* Member `key` of obj as an object; NULL with *error set when it is something else, and
 * NULL without error when it is absent and optional. */
static JsonObject *
get_object (JsonObject *obj, const char *key, gboolean required, const Where *w, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (node == NULL)
    {
      if (required)
        fail_missing (w, key, error);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail_invalid (w, key, error, "must be an object, not %s", node_type_name (node));
      return NULL;
    }
  return json_node_get_object (node);
}

/* A "sources" object: keys must satisfy `valid`, values are non-empty strings. */
static gboolean
read_sources (JsonObject *parent, gboolean (*valid) (const char *key), GHashTable *into,
              const Where *w, GError **error)
{
  g_autofree char *path = field_name (w, "sources");
  Where sw = { w->file, path };
  JsonObject *obj;
  g_autoptr (GList) members = NULL;

  if (!json_object_has_member (parent, "sources"))
    return TRUE;
  obj = get_object (parent, "sources", FALSE, w, error);
  if (obj == NULL)
    return FALSE;
  members = json_object_get_members (obj);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *key = l->data;
      char *text = NULL;

      if (key[0] == '_')
        continue;
      if (!valid (key))
        {
          g_autofree char *field = field_name (&sw, key);

          g_set_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD,
                       "%s: unknown key '%s' (a source must name a field of %s)",
                       w->file, field, w->path[0] != '\0' ? w->path : "the top level");
          return FALSE;
        }
      if (!read_string (obj, key, TRUE, &text, &sw, error))
        return FALSE;
      g_hash_table_replace (into, g_strdup (key), text);
    }
  return TRUE;
}

static gboolean
device_source_key_valid (const char *key)
{
  if (g_str_has_prefix (key, "peak_tflops."))
    {
      for (guint i = 0; i < TOPO_DTYPE_N; i++)
        if (g_strcmp0 (key + strlen ("peak_tflops."), topo_dtype_name ((TopoDtype) i)) == 0)
          return TRUE;
      return FALSE;
    }
  return g_strcmp0 (key, "sources") != 0 && g_strv_contains (device_keys, key);
}

static gboolean
top_source_key_valid (const char *key)
{
  return g_strcmp0 (key, "sources") != 0 && g_strv_contains (top_keys, key);
}

static gboolean
load_peaks (JsonObject *dev_obj, TopoDevice *dev, const Where *dw, GError **error)
{
  g_autofree char *path = field_name (dw, "peak_tflops");
  Where pw = { dw->file, path };
  const char *names[TOPO_DTYPE_N + 1];
  JsonObject *obj = get_object (dev_obj, "peak_tflops", TRUE, dw, error);

  if (obj == NULL)
    return FALSE;
  for (guint i = 0; i < TOPO_DTYPE_N; i++)
    names[i] = topo_dtype_name ((TopoDtype) i);
  names[TOPO_DTYPE_N] = NULL;
  if (!check_keys (obj, names, &pw, error))
    return FALSE;
  for (guint i = 0; i < TOPO_DTYPE_N; i++)
    {
      double tflops = 0;
      gboolean bf16 = i == TOPO_DTYPE_BF16;

      /* BF16, where given, must be a rate (> 0); absent is allowed for a device with
       * FP16 tensor cores only (V100: Volta has no BF16), checked below. */
      if (!read_number (obj, names[i], FALSE, bf16 ? RULE_POSITIVE : RULE_NONNEGATIVE,
                        &tflops, NULL, &pw, error))
        return FALSE;
      dev->peak_flops[i] = tflops * 1e12;
    }
  /* The 16-bit rate every training plan here uses must be known: BF16, or FP16 on a
   * device without BF16 (plans there must say --precision fp16; plan_validate). */
  if (!(dev->peak_flops[TOPO_DTYPE_BF16] > 0) && !(dev->peak_flops[TOPO_DTYPE_FP16] > 0))
    return fail_missing (&pw, "bf16", error);
  return TRUE;
}

/* contains one of topo_known_parts (), ASCII case-insensitively */
static gboolean
part_is_known (const char *part)
{
  g_autofree char *p = g_ascii_strdown (part, -1);
  for (const char *const *k = topo_known_parts (); *k != NULL; k++)
    {
      g_autofree char *n = g_ascii_strdown (*k, -1);
      if (strstr (p, n) != NULL)
        return TRUE;
    }
  return FALSE;
}

static gboolean
load_device (JsonObject *root, TopoDevice *dev, const char *file, GError **error)
{
  Where top = { file, "" };
  Where dw = { file, "device" };
  JsonObject *obj = get_object (root, "device", TRUE, &top, error);
  double v;
  gboolean has_gib = FALSE, has_gb = FALSE, has_nvls_bw = FALSE;
  double gib = 0, gb = 0;

  if (obj == NULL)
    return FALSE;
  if (!check_keys (obj, device_keys, &dw, error)
      || !read_string (obj, "name", TRUE, &dev->name, &dw, error)
      || !read_string (obj, "part", FALSE, &dev->part, &dw, error)
      || !read_string (obj, "vendor", FALSE, &dev->vendor, &dw, error)
      || !load_peaks (obj, dev, &dw, error))
    return FALSE;
  if (dev->vendor == NULL)
    dev->vendor = g_strdup ("unknown");
  if (dev->part != NULL && !part_is_known (dev->part))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) topo_known_parts ());
      return fail_invalid (&dw, "part", error, "'%s' names no part tandem knows (one of: %s); "
                           "leave it out for a device that is none of them (its predictions "
                           "then say extrapolated)", dev->part, list);
    }

  /* Capacity: vendors quote GB or GiB; take the unit as published. */
  if (!read_number (obj, "hbm_GiB", FALSE, RULE_POSITIVE, &gib, &has_gib, &dw, error)
      || !read_number (obj, "hbm_GB", FALSE, RULE_POSITIVE, &gb, &has_gb, &dw, error))
    return FALSE;
  if (has_gib && has_gb)
    return fail_invalid (&dw, "hbm_GB", error, "and 'device.hbm_GiB' are both given; keep one");
  if (!has_gib && !has_gb)
    {
      g_set_error (error, TOPO_ERROR, TOPO_ERROR_MISSING_FIELD,
                   "%s: missing required field 'device.hbm_GiB' (or 'device.hbm_GB')", file);
      return FALSE;
    }
  /* the caps above keep the product under 2^50 bytes, far from 2^63 (it overflowed to
   * "8 EiB"); a size that rounds to less than 1 MiB is no device memory (it rounded to 0 B) */
  {
    double bytes = has_gib ? gib * 1073741824.0 /* 2^30 */ : gb * 1e9;
    if (bytes < 1048576.0)
      return fail_invalid (&dw, has_gib ? "hbm_GiB" : "hbm_GB", error, "is %g, which is "
                           "%.0f bytes, below 1 MiB (hint: the unit is GiB or GB, not bytes)",
                           has_gib ? gib : gb, bytes);
    dev->hbm_bytes = (guint64) llround (bytes);
  }

  v = 0;
  /* required: without it every memory-bound op cost nothing (the roofline's memory term
   * is skipped at 0 B/s), and the step came out faster than at 100 TB/s (h200-node
   * without it: 0.680 s against 0.772 s) with the part's accuracy line beside it */
  if (!read_number (obj, "hbm_GBps", TRUE, RULE_POSITIVE, &v, NULL, &dw, error))
    return FALSE;
  dev->hbm_Bps = v * 1e9;
  /* caps, as the float fields have: 2^31 SMs made a step of 10,068 s with exit 0 (B200:
   * 148 SMs, 128 FP32 cores and 4 tensor cores an SM; a CPU host counts cores as SMs) */
  guint64 u = dev->sms;
  if (!read_uint (obj, "sms", FALSE, 1, 100000, &u, &dw, error))
    return FALSE;
  dev->sms = (guint) u;
  u = dev->fp32_cores_per_sm;
  if (!read_uint (obj, "fp32_cores_per_sm", FALSE, 0, 65536, &u, &dw, error))
    return FALSE;
  dev->fp32_cores_per_sm = (guint) u;
  u = dev->tensor_cores_per_sm;
  if (!read_uint (obj, "tensor_cores_per_sm", FALSE, 0, 65536, &u, &dw, error))
    return FALSE;
  dev->tensor_cores_per_sm = (guint) u;
  v = 0;
  if (!read_number (obj, "clock_GHz", FALSE, RULE_POSITIVE, &v, NULL, &dw, error))
    return FALSE;
  dev->clock_hz = v * 1e9;
  if (!read_number (obj, "exp_per_clk_per_sm", FALSE, RULE_POSITIVE, &dev->exp_per_clk_per_sm,
                    NULL, &dw, error))
    return FALSE;
  if (!read_number (obj, "gemm_efficiency", FALSE, RULE_FRACTION, &dev->gemm_efficiency,
                    NULL, &dw, error)
      || !read_number (obj, "power_cap_clock_ratio", FALSE, RULE_FRACTION,
                       &dev->power_cap_clock_ratio, NULL, &dw, error)
      || !read_number (obj, "sustained_matmul_ratio", FALSE, RULE_FRACTION,
                       &dev->sustained_matmul_ratio, NULL, &dw, error)
      || !read_number (obj, "mem_efficiency", FALSE, RULE_FRACTION, &dev->mem_efficiency,
                       NULL, &dw, error)
      || !read_number (obj, "perf_sigma", FALSE, RULE_NONNEGATIVE, &dev->perf_sigma, NULL,
                       &dw, error))
    return FALSE;
  if (!(dev->perf_sigma < 0.5))
    return fail_invalid (&dw, "perf_sigma", error, "is %g, not below 0.5 (hint: a fraction "
                         "of the median part's speed, such as 0.0148 for 1.48%%)",
                         dev->perf_sigma);
  v = 0;
  if (!read_number (obj, "launch_overhead_us", FALSE, RULE_NONNEGATIVE, &v, NULL, &dw, error))
    return FALSE;
  dev->launch_overhead_s = v * 1e-6;
  if (!read_bool (obj, "nvls", &dev->has_nvls, &dw, error))
    return FALSE;
  v = 0;
  if (!read_number (obj, "nvls_busbw_GBps", FALSE, RULE_POSITIVE, &v, &has_nvls_bw, &dw, error))
    return FALSE;
  if (has_nvls_bw && !dev->has_nvls)
    return fail_invalid (&dw, "nvls_busbw_GBps", error, "is given but 'device.nvls' is not true");
  dev->nvls_busbw_Bps = v * 1e9;
  if (!read_bool (obj, "fp8_any_layout", &dev->fp8_any_layout, &dw, error)
      || !read_bool (obj, "mxfp8", &dev->mxfp8, &dw, error))
    return FALSE;
  gboolean has_mx_ratio = FALSE;
  if (!read_number (obj, "mxfp8_gemm_ratio", FALSE, RULE_FRACTION, &dev->mxfp8_gemm_ratio,
                    &has_mx_ratio, &dw, error))
    return FALSE;
  if (has_mx_ratio && !dev->mxfp8)
    return fail_invalid (&dw, "mxfp8_gemm_ratio", error, "is given but 'device.mxfp8' is not true");
  v = 0;
  if (!read_number (obj, "host_link_GBps", FALSE, RULE_POSITIVE, &v, NULL, &dw, error))
    return FALSE;
  dev->host_link_Bps = v * 1e9;
  dev->host_link_devices = 1;
  if (!read_guint (obj, "host_link_devices", &dev->host_link_devices, &dw, error))
    return FALSE;
  if (dev->host_link_devices == 0)
    return fail_invalid (&dw, "host_link_devices", error, "must be at least 1");
  return read_sources (obj, device_source_key_valid, dev->sources, &dw, error);
}

static gboolean
load_level (JsonObject *obj, TopoLevel *level, const Where *lw, GError **error)
{
  double v;

  if (!check_keys (obj, level_keys, lw, error)
      || !read_string (obj, "name", TRUE, &level->name, lw, error)
      || !read_uint (obj, "count", TRUE, 1, G_MAXUINT64, &level->count, lw, error))
    return FALSE;
  if (!read_number (obj, "bw_GBps", TRUE, RULE_POSITIVE, &v, NULL, lw, error))
    return FALSE;
  level->bw_Bps = v * 1e9;
  v = 0;
  if (!read_number (obj, "busbw_GBps", FALSE, RULE_POSITIVE, &v, NULL, lw, error))
    return FALSE;
  level->busbw_Bps = v * 1e9;
  /* the cost model takes the measured busbw where it is given, so a bw below it was
   * ignored in silence (1e-308 GB/s predicted as the preset); a ring's bus bandwidth
   * cannot exceed the link's */
  if (level->busbw_Bps > level->bw_Bps * (1 + 1e-9))
    return fail_invalid (lw, "busbw_GBps", error, "is %.10g, above the level's bw_GBps %.10g "
                         "(a collective's bus bandwidth cannot exceed the link's; hint: bw_GBps "
                         "is the link's rate per direction, busbw_GBps what nccl-tests measured)",
                         level->busbw_Bps / 1e9, level->bw_Bps / 1e9);
  v = 0;
  if (!read_number (obj, "a2a_busbw_GBps", FALSE, RULE_POSITIVE, &v, NULL, lw, error))
    return FALSE;
  level->a2a_busbw_Bps = v * 1e9;
  if (level->a2a_busbw_Bps > level->bw_Bps * (1 + 1e-9))
    return fail_invalid (lw, "a2a_busbw_GBps", error, "is %.10g, above the level's bw_GBps "
                         "%.10g (an all-to-all cannot exceed the link's rate; hint: give what "
                         "one plane of the NIC carries)", level->a2a_busbw_Bps / 1e9,
                         level->bw_Bps / 1e9);
  v = 0;
  if (!read_number (obj, "latency_us", FALSE, RULE_NONNEGATIVE, &v, NULL, lw, error))
    return FALSE;
  level->latency_s = v * 1e-6;
  level->oversubscription = 1;
  if (!read_number (obj, "oversubscription", FALSE, RULE_AT_LEAST_ONE,
                    &level->oversubscription, NULL, lw, error)
      || !read_string (obj, "source", FALSE, &level->source, lw, error))
    return FALSE;
  if (level->source == NULL)
    level->source = g_strdup ("");
  return TRUE;
}

static gboolean
load_levels (JsonObject *root, TopoCluster *cluster, const char *file, GError **error)
{
  Where top = { file, "" };
  JsonNode *node = json_object_get_member (root, "levels");
  JsonArray *array;
  guint n;

  if (node == NULL)
    return fail_missing (&top, "levels", error);
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return fail_invalid (&top, "levels", error, "must be an array, not %s", node_type_name (node));
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n == 0)
    return fail_invalid (&top, "levels", error, "must hold at least one level");
  /* a generated file of 20,002 levels made predict, memory and plan show run past two
   * minutes (their cost grows with levels x GPUs); the deepest preset has 5 */
  if (n > TOPO_MAX_LEVELS)
    return fail_invalid (&top, "levels", error, "holds %u levels, more than the %d tandem "
                         "takes (a real cluster nests a few: GPU, server, rack, pod, "
                         "cluster; hint: merge levels of the same bandwidth)", n,
                         TOPO_MAX_LEVELS);

  cluster->levels = g_new0 (TopoLevel, n);
  cluster->n_devices = 1;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = g_strdup_printf ("levels[%u]", i);
      Where lw = { file, path };
      JsonNode *elem = json_array_get_element (array, i);
      TopoLevel *level = &cluster->levels[i];

      /* Counted before filling, so unref frees the names of a half-read level. */
      cluster->n_levels = i + 1;
      if (!JSON_NODE_HOLDS_OBJECT (elem))
        {
          g_set_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD,
                       "%s: field '%s' must be an object, not %s", file, path,
                       node_type_name (elem));
          return FALSE;
        }
      if (!load_level (json_node_get_object (elem), level, &lw, error))
        return FALSE;
      for (guint j = 0; j < i; j++)
        if (g_strcmp0 (cluster->levels[j].name, level->name) == 0)
          return fail_invalid (&lw, "name", error, "repeats the name of levels[%u] ('%s')",
                               j, level->name);
      if (!g_uint64_checked_mul (&cluster->n_devices, cluster->n_devices, level->count))
        return fail_invalid (&lw, "count", error, "makes the device count overflow 64 bits");
      /* the cluster's totals (topo_cluster_aggregate: HBM bytes, cores) are counted in 63
       * bits and written as JSON integers: a count that makes one wrap is refused here
       * (2^31 H100s made 0 B of HBM, 2^60 of them a negative GPU count) */
      const TopoDevice *d = &cluster->device;
      guint64 hbm, cores;
      if (!g_uint64_checked_mul (&hbm, cluster->n_devices, MAX (d->hbm_bytes, 1))
          || !g_uint64_checked_mul (&cores, cluster->n_devices,
                                    (guint64) d->sms * MAX (MAX (d->fp32_cores_per_sm,
                                                                 d->tensor_cores_per_sm), 1))
          || hbm > (guint64) G_MAXINT64 || cores > (guint64) G_MAXINT64)
        return fail_invalid (&lw, "count", error, "makes %" G_GUINT64_FORMAT " devices up to this level, whose "
                             "total memory or cores pass the 2^63 that the cluster's totals "
                             "are counted in (hint: a smaller count; predictions take at most "
                             "%d GPUs of a cluster)", cluster->n_devices, 1 << 20);
    }
  return TRUE;
}

/* "preset:h100-24k" -> "h100-24k"; "dir/x.json" -> "x"; NULL -> "cluster". */
static char *
default_name (const char *source)
{
  g_autofree char *base = NULL;

  if (source == NULL)
    return g_strdup ("cluster");
  if (g_str_has_prefix (source, "preset:"))
    return g_strdup (source + strlen ("preset:"));
  base = g_path_get_basename (source);
  if (g_str_has_suffix (base, ".json"))
    base[strlen (base) - strlen (".json")] = '\0';
  return util_text_blank_controls (g_steal_pointer (&base));
}

TopoCluster *
topo_cluster_new_from_data (const char *json_text, gssize length, const char *source,
                            GError **error)
{
  g_autoptr (TopoCluster) cluster = NULL;
  g_autoptr (JsonParser) parser = NULL;
  g_autoptr (GError) local = NULL;
  const char *file = source != NULL ? source : "<data>";
  Where top = { file, "" };
  JsonNode *root;
  JsonObject *obj;
  double nic_Gbps = 0;
  guint64 nics = 0;

  g_return_val_if_fail (json_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (length < 0)
    length = (gssize) strlen (json_text);
  parser = json_parser_new ();
  if (!util_json_check_depth (json_text, length, 0, file, &local))
    {
      g_set_error_literal (error, TOPO_ERROR, TOPO_ERROR_PARSE, local->message);
      return NULL;
    }
  if (!json_parser_load_from_data (parser, json_text, length, &local))
    {
      /* json-glib says "<data>:LINE:COLUMN: Parse error: ..."; put the file in its place
       * so the message reads like a compiler's: "x.json:3:12: Parse error: ...". */
      const char *rest = g_str_has_prefix (local->message, "<data>:")
                           ? local->message + strlen ("<data>:") : NULL;

      if (rest != NULL)
        g_set_error (error, TOPO_ERROR, TOPO_ERROR_PARSE, "%s:%s", file, rest);
      else
        g_set_error (error, TOPO_ERROR, TOPO_ERROR_PARSE, "%s: malformed JSON: %s",
                     file, local->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, TOPO_ERROR, TOPO_ERROR_PARSE,
                   "%s: the top level must be a JSON object", file);
      return NULL;
    }
  obj = json_node_get_object (root);

  cluster = topo_cluster_alloc ();
  cluster->source = g_strdup (file);
  cluster->json = g_strndup (json_text, (gsize) length);
  if (!check_keys (obj, top_keys, &top, error)
      || !read_string (obj, "name", FALSE, &cluster->name, &top, error)
      || !read_string (obj, "description", FALSE, &cluster->description, &top, error)
      || !load_device (obj, &cluster->device, file, error)
      || !read_uint (obj, "nics_per_device", FALSE, 1, 1024, &nics, &top, error)
      || !read_number (obj, "nic_Gbps", FALSE, RULE_POSITIVE, &nic_Gbps, NULL, &top, error)
      || !load_levels (obj, cluster, file, error)
      || !read_sources (obj, top_source_key_valid, cluster->sources, &top, error))
    return NULL;
  /* the measured tables of `tandem calibrate` (topology/profile.c) */
  if (json_object_has_member (obj, "profile")
      && !topo_profile_load (json_object_get_member (obj, "profile"), file, &cluster->profile,
                             error))
    return NULL;
  if (cluster->name == NULL)
    cluster->name = default_name (source);
  if (cluster->description == NULL)
    cluster->description = g_strdup ("");
  cluster->nics_per_device = (guint) nics;
  cluster->nic_Bps = nic_Gbps * 1e9 / 8;   /* bits -> bytes */
  return g_steal_pointer (&cluster);
}

TopoCluster *
topo_cluster_load_file (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) local = NULL;
  gsize length = 0;

  g_return_val_if_fail (path != NULL, NULL);

  if (!util_input_read_file (path, 0, &text, &length, &local))
    {
      g_set_error (error, TOPO_ERROR, TOPO_ERROR_NOT_FOUND, "%s: cannot read the cluster file: %s",
                   path, local->message);
      return NULL;
    }
  return topo_cluster_new_from_data (text, (gssize) length, path, error);
}

/* The cluster with its outermost level repeated k = ceil(n_devices / cluster's devices)
 * times: more units of the same scale-out fabric, every level's bandwidth, latency and
 * oversubscription unchanged. `validate` uses it for a published run larger than the
 * preset its gpu_type maps to (a preset describes one build of a system, not its largest
 * possible size). A cluster of one level (one server) cannot grow this way: there is no
 * scale-out level to repeat, and FALSE says so. The result keeps the name, with the
 * description saying how it was grown. */
TopoCluster *
topo_cluster_scale_out (const TopoCluster *cluster, guint64 n_devices, GError **error)
{
  g_return_val_if_fail (cluster != NULL && cluster->json != NULL, NULL);
  if (n_devices <= cluster->n_devices)
    return topo_cluster_new_from_data (cluster->json, -1, cluster->source, error);
  if (cluster->n_levels < 2)
    {
      g_set_error (error, TOPO_ERROR, TOPO_ERROR_INVALID_FIELD,
                   "%s has one level (%s of %" G_GUINT64_FORMAT " devices) and no scale-out "
                   "level to repeat for %" G_GUINT64_FORMAT " devices", cluster->name,
                   cluster->levels[0].name, cluster->n_devices, n_devices);
      return NULL;
    }
  guint64 k = (n_devices + cluster->n_devices - 1) / cluster->n_devices;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, cluster->json, -1, error))
    return NULL;
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonArray *levels = json_object_get_array_member (root, "levels");
  JsonObject *top = json_array_get_object_element (levels, json_array_get_length (levels) - 1);
  guint64 count = (guint64) json_object_get_int_member (top, "count") * k;
  json_object_set_int_member (top, "count", (gint64) count);
  g_autofree char *desc = g_strdup_printf ("%s; outermost level '%s' grown %" G_GUINT64_FORMAT
                                           "x to %" G_GUINT64_FORMAT " units for %"
                                           G_GUINT64_FORMAT " devices",
                                           cluster->description ? cluster->description : "",
                                           cluster->levels[cluster->n_levels - 1].name, k, count,
                                           n_devices);
  json_object_set_string_member (root, "description", desc);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_autofree char *text = json_generator_to_data (gen, NULL);
  return topo_cluster_new_from_data (text, -1, cluster->source, error);
}
