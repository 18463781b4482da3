/* frameworks/stack.c - load a software stack (JSON), the compiled-in presets, lookup.
 *
 * The format is in frameworks/presets/README.md. Strict like the cluster loader: a key
 * the format does not know, a value of the wrong type or out of range is
 * FW_ERROR_INVALID_FIELD with the file and the field; keys starting with '_' are
 * comments at any depth. */
#include "frameworks/stack.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "frameworks-resources.h"
#include "util/input.h"

G_DEFINE_QUARK (fw-error-quark, fw_error)

#define PRESET_DIR "/tandem/frameworks/"

static const char *const attn_names[] = { "cudnn", "flash3", "flash2", "triton", "xla",
                                          "unfused", NULL };
static const char *const fusion_names[] = { "fused", "compiled", "eager", NULL };
static const char *const avail_names[] = { "no", "optional", "default", NULL };
static const char *const fp8_ops_names[] = { "none", "gemm", "gemm+attention", NULL };
static const char *const scaling_names[] = { "delayed", "current", "rowwise", "block", "blockwise",
                                                 NULL };
static const char *const sharding_names[] = { "none", "zero1", "zero2", "zero3", NULL };

const char *fw_attn_kernel_name (FwAttnKernel k)
{ return (guint) k < FW_ATTN_N ? attn_names[k] : "?"; }
const char *fw_fusion_name (FwFusion f)
{ return (guint) f < FW_FUSION_N ? fusion_names[f] : "?"; }
const char *fw_avail_name (FwAvail a)
{ return (guint) a <= FW_OPT_DEFAULT ? avail_names[a] : "?"; }
const char *fw_fp8_ops_name (FwFp8Ops o)
{ return (guint) o <= FW_FP8_GEMM_ATTENTION ? fp8_ops_names[o] : "?"; }
const char *fw_scaling_name (FwScaling s)
{ return (guint) s < FW_SCALING_N ? scaling_names[s] : "?"; }
const char *fw_sharding_name (FwSharding s)
{ return (guint) s <= FW_SHARD_ZERO3 ? sharding_names[s] : "?"; }

/* ---- reading -------------------------------------------------------------------------- */

typedef struct {
  const char *file;
  const char *path;
} Where;

static gboolean G_GNUC_PRINTF (4, 5)
fail (const Where *w, const char *key, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *what = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, FW_ERROR, FW_ERROR_INVALID_FIELD, "%s: field '%s%s%s' %s", w->file,
               w->path, *w->path ? "." : "", key, what);
  return FALSE;
}

static gboolean
check_keys (JsonObject *obj, const char *const *known, const Where *w, GError **error)
{
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *k = l->data;
      if (k[0] != '_' && !g_strv_contains (known, k))
        {
          g_autofree char *list = g_strjoinv (", ", (char **) known);
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID_FIELD,
                       "%s: unknown key '%s%s%s' (known keys here: %s)", w->file, w->path,
                       *w->path ? "." : "", k, list);
          return FALSE;
        }
    }
  return TRUE;
}

/* A string member that must be one of `names`; absent keeps *out. */
static gboolean
get_enum (JsonObject *obj, const char *key, const char *const *names, int *out,
          gboolean required, const Where *w, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);
  if (node == NULL)
    return required ? fail (w, key, error, "is required") : TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return fail (w, key, error, "must be a string");
  const char *s = json_node_get_string (node);
  for (int i = 0; names[i] != NULL; i++)
    if (g_ascii_strcasecmp (s, names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  g_autofree char *list = g_strjoinv (", ", (char **) names);
  return fail (w, key, error, "is '%s' (expected one of %s)", s, list);
}

static gboolean
get_bool (JsonObject *obj, const char *key, gboolean *out, const Where *w, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fail (w, key, error, "must be true or false");
  *out = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
get_num (JsonObject *obj, const char *key, double lo, double hi, double *out,
         gboolean required, const Where *w, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);
  if (node == NULL)
    return required ? fail (w, key, error, "is required") : TRUE;
  GType t = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return fail (w, key, error, "must be a number");
  double v = json_node_get_double (node);
  if (!isfinite (v) || v < lo || v > hi)
    return fail (w, key, error, "is %g (expected %g to %g)", v, lo, hi);
  *out = v;
  return TRUE;
}

/* An optional whole number from `lo` to `hi` (get_num's checks), counting `unit`; *out
 * keeps its value where the key is absent */
static gboolean
get_whole (JsonObject *obj, const char *key, double lo, double hi, int *out, const char *unit,
           const Where *w, GError **error)
{
  double v = *out;
  if (!get_num (obj, key, lo, hi, &v, FALSE, w, error))
    return FALSE;
  if (v != (int) v)
    return fail (w, key, error, "is %g, not a whole number of %s", v, unit);
  *out = (int) v;
  return TRUE;
}

static JsonObject *
get_obj (JsonObject *obj, const char *key, const Where *w, GError **error, gboolean *ok)
{
  JsonNode *node = json_object_get_member (obj, key);
  *ok = TRUE;
  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      *ok = fail (w, key, error, "must be an object");
      return NULL;
    }
  return json_node_get_object (node);
}

/* A list of names (each one of `names`) as a bit set; an absent key leaves *out. */
static gboolean
get_name_set (JsonObject *obj, const char *key, const char *const *names, guint *out,
              const Where *w, GError **error)
{
  if (!json_object_has_member (obj, key))
    return TRUE;
  JsonNode *n = json_object_get_member (obj, key);
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return fail (w, key, error, "must be a list of names");
  JsonArray *a = json_node_get_array (n);
  guint set = 0;
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      const char *v = JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING
                      ? json_node_get_string (e) : NULL;
      int k = -1;
      for (int j = 0; v != NULL && names[j] != NULL; j++)
        if (g_ascii_strcasecmp (v, names[j]) == 0)
          k = j;
      if (k < 0)
        {
          g_autofree char *all = g_strjoinv (", ", (char **) names);
          return fail (w, key, error, "element %u is %s%s%s, not one of %s", i + 1,
                       v ? "'" : "", v ? v : "not a string", v ? "'" : "", all);
        }
      set |= 1u << k;
    }
  *out = set;
  return TRUE;
}

static const char *const top_keys[] = {
  "name", "description", "attention", "fusion", "compile", "kernel_overhead_us", "tp_comm_overlap",
  "async_tp", "tp_grad_reduce_scatter", "tp_seq_dim_copies", "pp_schedule_runtime", "pp_p2p_sync", "pp_scatter_gather", "pp_stage_input", "pp_stage_output", "dp_overlap", "swiglu_saves", "moe_shared_expert_overlap", "optimizer_bytes_per_param", "grad_reduce_dtype", "cross_entropy", "tflops_convention", "dropout", "remat", "fsdp", "fp8", "defaults",
  "moe", "cp", "tp_overlap_sms", "offers", "nccl", "sources", NULL,
};
static const char *const nccl_keys[] = { "pat", NULL };
static const char *const tp_sms_keys[] = { "all_gather", "reduce_scatter", NULL };
static const char *const cp_keys[] = { "merge", "kv_heads", "a2a_kv_heads", NULL };
static const char *const cp_a2a_kv_names[] = { "replicate", "divide", NULL };
static const char *const cp_merge_names[] = { "none", "fp32_per_step", NULL };
static const char *const cp_kv_names[] = { "grouped", "repeated", NULL };
static const char *const fsdp_keys[] = { "reshard_after_forward", "reshard_under_pp",
                                         "hsdp", "prefetch_params", "max_reuse_params",
                                         "gather", "rank_copies", "zero2_grad_sync",
                                         "gather_before_reduce", "pp_grad_reduce",
                                         "grad_accumulation", "copy_in_out", "reduce_passes",
                                         "fp32_shards", NULL };
static const char *const grad_accum_names[] = { "fused", "upcast_add", NULL };
static const char *const pp_grad_names[] = { "per_bucket", "after_stage", NULL };
static const char *const tp_grad_rs_names[] = { "overlapped", "after_block", NULL };
static const char *const pp_runtime_names[] = { "dataflow", "lockstep", NULL };
static const char *const pp_p2p_sync_names[] = { "none", "device", "every_exchange", NULL };
static const char *const pp_stage_input_names[] = { "kept", "freed", NULL };
static const char *const dp_overlap_names[] = { "optional", "always", NULL };
static const char *const pp_stage_output_names[] = { "freed", "kept", NULL };
static const char *const swiglu_saves_names[] = { "fused", "eager", NULL };
static const char *const zero2_sync_names[] = { "per_step", "per_microbatch", NULL };
static const char *const gather_names[] = { "flat", "per_tensor", NULL };
static const char *const fp8_keys[] = { "ops", "scaling", "cast_passes", "compiled_cast_passes",
                                        "mxfp8", "nvfp4", "blockwise", "rowwise",
                                        "tp_all_gather", "gemm_rate", "casts",
                                        "weight_cast_bytes", "output_layer", "fast_accum",
                                        "moe_act_input", "attn_out_input", "moe_dispatch",
                                        "norm_amax", "param_gather", NULL };
static const char *const tp_ag_names[] = { "bf16", "fp8", NULL };
static const char *const fp8_rate_names[] = { "fitted", "kernel", NULL };
static const char *const fp8_cast_names[] = { "per_gemm", "per_operand", NULL };
static const char *const fp8_output_names[] = { "fp8", "bf16", NULL };
static const char *const fp8_fast_accum_names[] = { "off", "forward", NULL };
static const char *const fp8_act_cache_names[] = { "bf16", "fp8", NULL };
static const char *const fp8_attn_out_names[] = { "fp8", "e5m6", NULL };
static const char *const fp8_norm_amax_names[] = { "separate", "fused", NULL };
static const char *const moe_keys[] = { "dispatch_host_sync", "grouped_gemm_launches",
                                        "expert_eager_op", "a2a_overlap", "host_ops", NULL };
static const char *const host_ops_keys[] = { "layer_fwd", "layer_bwd", "layer_fwd_after_sync",
                                             "expert_launch_fwd",
                                             "expert_launch_bwd", "expert_eager_fwd",
                                             "expert_eager_bwd", "expert_fp8_launch",
                                             "expert_fp8_eager_fwd", "te_linear_fwd",
                                             "te_grouped_fwd", "router_fwd",
                                             "preprocess_fwd_graphed", NULL };
static const char *const launches_names[] = { "one", "per_expert", NULL };
static const char *const default_keys[] = { "sharding", "sequence_parallel",
                                            "overlap_grad_reduce", "overlap_param_gather",
                                            "pp_microbatches", "cp_comm", "pp_schedule",
                                            "pp_layers_per_chunk", "model_parallel", "grad_accum",
                                            NULL };
static const char *const model_parallel_names[] = { "stated", "none", NULL };
static const char *const cp_comm_names[] = { "p2p", "allgather", NULL };
static const char *const offers_keys[] = { "sharding", "sharding_with_pp", "schedules",
                                           "cp_comm", "ep", "rank_orders", NULL };
/* in the order of plan/plan.h's PlanSharding, PlanSchedule and PlanCpComm (asserted in
 * plan/plan-args.c) */
const char *const fw_offer_sharding_names[] = { "none", "zero1", "zero2", "zero3", "hsdp",
                                                NULL };
const char *const fw_offer_schedule_names[] = { "gpipe", "1f1b", "interleaved", "dualpipe",
                                                NULL };
const char *const fw_offer_cp_names[] = { "p2p", "allgather", "a2a", NULL };
const char *const fw_nccl_pat_names[] = { "all_gather", "reduce_scatter", NULL };
#define OFFER_HSDP (1u << 4)
static const char *const pp_mb_names[] = { "one_sample", "stages", NULL };
static const char *const pp_schedule_names[] = { "1f1b", "dualpipe", NULL };

static void
init_defaults (FwStack *s)
{
  s->ref = 1;
  s->attention = FW_ATTN_FLASH2;
  s->fusion = FW_FUSION_FUSED;
  s->tp_comm_overlap = FW_OPT_NO;
  s->async_tp = FW_OPT_NO;
  /* not stated: TP-comm overlap pieces run on NCCL's kernels (sim_cost_coll_sms) */
  s->tp_overlap_ag_sms = -1;
  s->tp_overlap_rs_sms = -1;
  s->moe_shared_expert_overlap = FW_OPT_NO;
  s->fsdp_reshard_after_forward = TRUE;
  s->fsdp_reshard_under_pp = TRUE;
  /* ZeRO-2 shards the gradients: each bucket is reduce-scattered to its owner as the
   * backward produces it, in every micro-batch (Rajbhandari et al. 2020, ZeRO, Sec. 5.2;
   * DeepSpeed stage 2 "communicates during non gradient accumulation boundaries as
   * well", deepspeed PR 338; PyTorch FSDP SHARD_GRAD_OP reduce-scatters in every
   * backward outside no_sync) */
  s->zero2_grad_per_microbatch = TRUE;
  s->fp8_ops = FW_FP8_NONE;
  s->fp8_scaling = FW_SCALING_DELAYED;
  s->fp8_cast_passes_compiled = -1;   /* the eager figure unless the file gives one */
  s->default_sharding = FW_SHARD_NONE;
  s->default_overlap_grad_reduce = TRUE;
  s->default_overlap_param_gather = TRUE;
  s->sources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

FwStack *
fw_stack_new_from_data (const char *data, gssize length, const char *source, GError **error)
{
  g_return_val_if_fail (data != NULL && source != NULL, NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  /* depth checked first: json-glib recurses once per level (util/input.h) */
  if (!util_json_check_depth (data, length, 0, source, &local))
    {
      g_set_error_literal (error, FW_ERROR, FW_ERROR_PARSE, local->message);
      return NULL;
    }
  /* an empty file (nothing but white space) says so */
  gsize len = length < 0 ? strlen (data) : (gsize) length, at = 0;
  while (at < len && g_ascii_isspace (data[at]))
    at++;
  if (at == len)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_PARSE, "%s: empty file (hint: a stack is a "
                   "JSON object, as frameworks/presets/megatron-core.json)", source);
      return NULL;
    }
  if (!json_parser_load_from_data (parser, data, length, &local))
    {
      /* json-glib says "<data>:LINE:COLUMN: ..."; the file in its place, as a cluster
       * or model file's message reads */
      if (g_str_has_prefix (local->message, "<data>:"))
        g_set_error (error, FW_ERROR, FW_ERROR_PARSE, "%s:%s", source,
                     local->message + strlen ("<data>:"));
      else
        g_set_error (error, FW_ERROR, FW_ERROR_PARSE, "%s: %s", source, local->message);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_PARSE, "%s: a stack is a JSON object", source);
      return NULL;
    }
  JsonObject *o = json_node_get_object (root);
  Where w = { source, "" };
  g_autoptr (FwStack) s = g_new0 (FwStack, 1);
  init_defaults (s);
  s->source = g_strdup (source);
  if (!check_keys (o, top_keys, &w, error))
    return NULL;

  JsonNode *n = json_object_get_member (o, "name");
  if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
      && *json_node_get_string (n) != '\0')
    s->name = g_strdup (json_node_get_string (n));
  else if (n != NULL)
    {
      fail (&w, "name", error, "must be a non-empty string");
      return NULL;
    }
  else
    {
      g_autofree char *base = g_path_get_basename (source);
      if (g_str_has_prefix (base, "preset:"))
        memmove (base, base + 7, strlen (base + 7) + 1);
      if (g_str_has_suffix (base, ".json"))
        base[strlen (base) - 5] = '\0';
      s->name = util_text_blank_controls (g_steal_pointer (&base));
    }
  if (util_text_control_at (s->name) >= 0)
    {
      fail (&w, "name", error, "holds a control character, which a terminal would act on "
            "when it is printed (hint: plain text)");
      return NULL;
    }
  n = json_object_get_member (o, "description");
  if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
    s->description = g_strdup (json_node_get_string (n));
  else if (n != NULL)
    {
      fail (&w, "description", error, "must be a string");
      return NULL;
    }
  /* printed by show framework as the name is: "x\u001b[2Jy" cleared the screen */
  if (s->description != NULL && util_text_control_at (s->description) >= 0)
    {
      fail (&w, "description", error, "holds a control character, which a terminal would "
            "act on when it is printed (hint: plain text)");
      return NULL;
    }

  int e;
  double us = 0, grad = 0;
  e = s->attention;
  if (!get_enum (o, "attention", attn_names, &e, TRUE, &w, error))
    return NULL;
  s->attention = e;
  e = s->fusion;
  if (!get_enum (o, "fusion", fusion_names, &e, TRUE, &w, error))
    return NULL;
  s->fusion = e;
  /* a stack that fuses by compiling (XLA) is compiled by default; else it says */
  e = s->fusion == FW_FUSION_COMPILED ? FW_OPT_DEFAULT : FW_OPT_NO;
  if (!get_enum (o, "compile", avail_names, &e, FALSE, &w, error))
    return NULL;
  s->compile = e;
  if (!get_num (o, "kernel_overhead_us", 0, 1000, &us, TRUE, &w, error))
    return NULL;
  s->kernel_overhead_s = us * 1e-6;
  e = s->tp_comm_overlap;
  if (!get_enum (o, "tp_comm_overlap", avail_names, &e, FALSE, &w, error))
    return NULL;
  s->tp_comm_overlap = e;
  e = s->async_tp;
  if (!get_enum (o, "async_tp", avail_names, &e, FALSE, &w, error))
    return NULL;
  s->async_tp = e;
  e = s->tp_grad_rs_after_block ? 1 : 0;
  if (!get_enum (o, "tp_grad_reduce_scatter", tp_grad_rs_names, &e, FALSE, &w, error))
    return NULL;
  s->tp_grad_rs_after_block = e == 1;
  if (!get_bool (o, "tp_seq_dim_copies", &s->tp_seq_copies, &w, error))
    return NULL;
  e = s->pp_lockstep ? 1 : 0;
  if (!get_enum (o, "pp_schedule_runtime", pp_runtime_names, &e, FALSE, &w, error))
    return NULL;
  s->pp_lockstep = e == 1;
  e = s->pp_p2p_sync;
  if (!get_enum (o, "pp_p2p_sync", pp_p2p_sync_names, &e, FALSE, &w, error))
    return NULL;
  s->pp_p2p_sync = e;
  if (!get_bool (o, "pp_scatter_gather", &s->pp_scatter_gather, &w, error))
    return NULL;
  e = s->pp_free_stage_input ? 1 : 0;
  if (!get_enum (o, "pp_stage_input", pp_stage_input_names, &e, FALSE, &w, error))
    return NULL;
  s->pp_free_stage_input = e == 1;
  e = s->pp_keep_stage_output ? 1 : 0;
  if (!get_enum (o, "pp_stage_output", pp_stage_output_names, &e, FALSE, &w, error))
    return NULL;
  s->pp_keep_stage_output = e == 1;
  e = s->dp_overlap_always ? 1 : 0;
  if (!get_enum (o, "dp_overlap", dp_overlap_names, &e, FALSE, &w, error))
    return NULL;
  s->dp_overlap_always = e == 1;
  e = s->swiglu_eager_saves ? 1 : 0;
  if (!get_enum (o, "swiglu_saves", swiglu_saves_names, &e, FALSE, &w, error))
    return NULL;
  s->swiglu_eager_saves = e == 1;
  e = s->moe_shared_expert_overlap;
  if (!get_enum (o, "moe_shared_expert_overlap", avail_names, &e, FALSE, &w, error))
    return NULL;
  s->moe_shared_expert_overlap = e;
  static const char *const grad_names[] = { "fp32", "bf16", NULL };
  e = 0;
  if (!get_enum (o, "grad_reduce_dtype", grad_names, &e, FALSE, &w, error))
    return NULL;
  s->grad_reduce_bf16 = e == 1;
  static const char *const dropout_names[] = { "model", "none", NULL };
  e = s->no_dropout ? 1 : 0;
  if (!get_enum (o, "dropout", dropout_names, &e, FALSE, &w, error))
    return NULL;
  s->no_dropout = e == 1;
  static const char *const remat_names[] = { "modules", "named", NULL };
  e = s->remat_named ? 1 : 0;
  if (!get_enum (o, "remat", remat_names, &e, FALSE, &w, error))
    return NULL;
  s->remat_named = e == 1;
  static const char *const ce_names[] = { "fused", "eager", NULL };
  e = s->loss_eager ? 1 : 0;
  if (!get_enum (o, "cross_entropy", ce_names, &e, FALSE, &w, error))
    return NULL;
  s->loss_eager = e == 1;
  static const char *const conv_names[] = { "none", "mcore", "megatron96", "palm", NULL };
  e = 0;
  if (!get_enum (o, "tflops_convention", conv_names, &e, FALSE, &w, error))
    return NULL;
  s->tflops_convention = e > 0 ? conv_names[e] : NULL;
  if (!get_num (o, "optimizer_bytes_per_param", 0, 1000, &s->optimizer_bytes_per_param, FALSE,
                &w, error))
    return NULL;
  (void) grad;

  gboolean ok;
  JsonObject *sub = get_obj (o, "fsdp", &w, error, &ok);
  if (!ok)
    return NULL;
  if (sub != NULL)
    {
      Where ws = { source, "fsdp" };
      if (!check_keys (sub, fsdp_keys, &ws, error)
          || !get_bool (sub, "reshard_after_forward", &s->fsdp_reshard_after_forward, &ws, error)
          || !get_bool (sub, "reshard_under_pp", &s->fsdp_reshard_under_pp, &ws, error)
          || !get_bool (sub, "hsdp", &s->hsdp, &ws, error)
          || !get_num (sub, "prefetch_params", 0, 1e15, &s->fsdp_prefetch_params, FALSE, &ws,
                       error)
          || !get_num (sub, "max_reuse_params", 0, 1e15, &s->fsdp_max_reuse_params, FALSE,
                       &ws, error)
          || !get_bool (sub, "rank_copies", &s->fsdp_rank_copies, &ws, error)
          || !get_bool (sub, "copy_in_out", &s->fsdp_copy_in_out, &ws, error)
          || !get_bool (sub, "reduce_passes", &s->fsdp_reduce_passes, &ws, error)
          || !get_bool (sub, "fp32_shards", &s->fsdp_fp32_shards, &ws, error)
          || !get_bool (sub, "gather_before_reduce", &s->fsdp_gather_before_reduce, &ws,
                        error))
        return NULL;
      int g = s->fsdp_gather_per_tensor ? 1 : 0;
      if (!get_enum (sub, "gather", gather_names, &g, FALSE, &ws, error))
        return NULL;
      s->fsdp_gather_per_tensor = g == 1;
      int z = s->zero2_grad_per_microbatch ? 1 : 0;
      if (!get_enum (sub, "zero2_grad_sync", zero2_sync_names, &z, FALSE, &ws, error))
        return NULL;
      s->zero2_grad_per_microbatch = z == 1;
      int pg = s->fsdp_pp_grad_after_stage ? 1 : 0;
      if (!get_enum (sub, "pp_grad_reduce", pp_grad_names, &pg, FALSE, &ws, error))
        return NULL;
      s->fsdp_pp_grad_after_stage = pg == 1;
      int ga = s->fsdp_grad_accum_upcast ? 1 : 0;
      if (!get_enum (sub, "grad_accumulation", grad_accum_names, &ga, FALSE, &ws, error))
        return NULL;
      s->fsdp_grad_accum_upcast = ga == 1;
    }
  sub = get_obj (o, "fp8", &w, error, &ok);
  if (!ok)
    return NULL;
  if (sub != NULL)
    {
      Where ws = { source, "fp8" };
      int ops = s->fp8_ops, sc = s->fp8_scaling, ag = s->fp8_tp_all_gather ? 1 : 0;
      int rate = s->fp8_kernel_rate ? 1 : 0, casts = s->fp8_cast_per_operand ? 1 : 0;
      int out = s->fp8_output_bf16 ? 1 : 0, fa = s->fp8_fast_accum_fwd ? 1 : 0;
      int act_in = s->fp8_moe_act_input ? 1 : 0, attn_out = s->fp8_attn_out_e5m6 ? 1 : 0;
      int disp = s->fp8_moe_dispatch ? 1 : 0, namax = s->fp8_norm_amax_fused ? 1 : 0;
      int pg = s->fp8_param_gather ? 1 : 0;
      if (!check_keys (sub, fp8_keys, &ws, error)
          || !get_enum (sub, "ops", fp8_ops_names, &ops, FALSE, &ws, error)
          || !get_enum (sub, "scaling", scaling_names, &sc, FALSE, &ws, error)
          || !get_num (sub, "cast_passes", 0, 20, &s->fp8_cast_passes, FALSE, &ws, error)
          || !get_num (sub, "compiled_cast_passes", 0, 20, &s->fp8_cast_passes_compiled, FALSE,
                       &ws, error)
          || !get_bool (sub, "mxfp8", &s->mxfp8, &ws, error)
          || !get_bool (sub, "nvfp4", &s->nvfp4, &ws, error)
          || !get_bool (sub, "blockwise", &s->blockwise, &ws, error)
          || !get_bool (sub, "rowwise", &s->rowwise, &ws, error)
          || !get_enum (sub, "tp_all_gather", tp_ag_names, &ag, FALSE, &ws, error)
          || !get_enum (sub, "param_gather", tp_ag_names, &pg, FALSE, &ws, error)
          || !get_enum (sub, "gemm_rate", fp8_rate_names, &rate, FALSE, &ws, error)
          || !get_enum (sub, "casts", fp8_cast_names, &casts, FALSE, &ws, error)
          || !get_num (sub, "weight_cast_bytes", 0, 64, &s->fp8_weight_cast_bytes, FALSE, &ws,
                       error)
          || !get_enum (sub, "output_layer", fp8_output_names, &out, FALSE, &ws, error)
          || !get_enum (sub, "fast_accum", fp8_fast_accum_names, &fa, FALSE, &ws, error)
          || !get_enum (sub, "moe_act_input", fp8_act_cache_names, &act_in, FALSE, &ws, error)
          || !get_enum (sub, "attn_out_input", fp8_attn_out_names, &attn_out, FALSE, &ws, error)
          || !get_enum (sub, "moe_dispatch", fp8_act_cache_names, &disp, FALSE, &ws, error)
          || !get_enum (sub, "norm_amax", fp8_norm_amax_names, &namax, FALSE, &ws, error))
        return NULL;
      s->fp8_norm_amax_fused = namax == 1;
      s->fp8_moe_act_input = act_in == 1;
      s->fp8_attn_out_e5m6 = attn_out == 1;
      s->fp8_moe_dispatch = disp == 1;
      s->fp8_tp_all_gather = ag == 1;
      s->fp8_param_gather = pg == 1;
      s->fp8_kernel_rate = rate == 1;
      s->fp8_cast_per_operand = casts == 1;
      s->fp8_output_bf16 = out == 1;
      s->fp8_fast_accum_fwd = fa == 1;
      s->fp8_ops = ops;
      s->fp8_scaling = sc;
      /* a stack offers the recipe it runs by default */
      s->blockwise = s->blockwise || sc == FW_SCALING_BLOCKWISE;
      s->rowwise = s->rowwise || sc == FW_SCALING_ROWWISE;
    }
  if (s->fp8_cast_passes_compiled < 0)
    s->fp8_cast_passes_compiled = s->fp8_cast_passes;
  sub = get_obj (o, "moe", &w, error, &ok);
  if (!ok)
    return NULL;
  if (sub != NULL)
    {
      Where ws = { source, "moe" };
      int gl = s->moe_grouped_gemm_per_expert ? 1 : 0, ov = s->moe_a2a_overlap;
      if (!check_keys (sub, moe_keys, &ws, error)
          || !get_bool (sub, "dispatch_host_sync", &s->moe_dispatch_host_sync, &ws, error)
          || !get_enum (sub, "grouped_gemm_launches", launches_names, &gl, FALSE, &ws, error)
          || !get_bool (sub, "expert_eager_op", &s->moe_expert_eager_op, &ws, error)
          || !get_enum (sub, "a2a_overlap", avail_names, &ov, FALSE, &ws, error))
        return NULL;
      s->moe_grouped_gemm_per_expert = gl == 1;
      s->moe_a2a_overlap = ov;
      JsonObject *ho = get_obj (sub, "host_ops", &ws, error, &ok);
      if (!ok)
        return NULL;
      if (ho != NULL)
        {
          Where wh = { source, "moe.host_ops" };
          FwMoeHostOps *h = &s->moe_host_ops;
          if (!check_keys (ho, host_ops_keys, &wh, error)
              || !get_num (ho, "layer_fwd", 0, 1e5, &h->layer_fwd, FALSE, &wh, error)
              || !get_num (ho, "layer_bwd", 0, 1e5, &h->layer_bwd, FALSE, &wh, error)
              || !get_num (ho, "expert_launch_fwd", 0, 1e3, &h->expert_launch_fwd, FALSE, &wh,
                           error)
              || !get_num (ho, "expert_launch_bwd", 0, 1e3, &h->expert_launch_bwd, FALSE, &wh,
                           error)
              || !get_num (ho, "expert_eager_fwd", 0, 1e3, &h->expert_eager_fwd, FALSE, &wh,
                           error)
              || !get_num (ho, "expert_eager_bwd", 0, 1e3, &h->expert_eager_bwd, FALSE, &wh,
                           error)
              || !get_num (ho, "expert_fp8_launch", 0, 1e3, &h->expert_fp8_launch, FALSE, &wh,
                           error)
              || !get_num (ho, "expert_fp8_eager_fwd", 0, 1e3, &h->expert_fp8_eager_fwd, FALSE,
                           &wh, error)
              || !get_num (ho, "layer_fwd_after_sync", 0, 1e5, &h->layer_fwd_after_sync, FALSE,
                           &wh, error)
              || !get_num (ho, "te_linear_fwd", 0, 1e3, &h->te_linear_fwd, FALSE, &wh, error)
              || !get_num (ho, "te_grouped_fwd", 0, 1e3, &h->te_grouped_fwd, FALSE, &wh, error)
              || !get_num (ho, "router_fwd", 0, 1e5, &h->router_fwd, FALSE, &wh, error)
              || !get_num (ho, "preprocess_fwd_graphed", 0, 1e5, &h->preprocess_fwd_graphed,
                           FALSE, &wh, error))
            return NULL;
          /* counts of host operations: a fraction (0.5, 1e-308) is no count */
          const struct { const char *key; double v; } counts[] = {
            { "layer_fwd", h->layer_fwd }, { "layer_bwd", h->layer_bwd },
            { "expert_launch_fwd", h->expert_launch_fwd },
            { "expert_launch_bwd", h->expert_launch_bwd },
            { "expert_eager_fwd", h->expert_eager_fwd },
            { "expert_eager_bwd", h->expert_eager_bwd },
            { "expert_fp8_launch", h->expert_fp8_launch },
            { "expert_fp8_eager_fwd", h->expert_fp8_eager_fwd },
            { "layer_fwd_after_sync", h->layer_fwd_after_sync },
            { "te_linear_fwd", h->te_linear_fwd }, { "te_grouped_fwd", h->te_grouped_fwd },
            { "router_fwd", h->router_fwd },
            { "preprocess_fwd_graphed", h->preprocess_fwd_graphed },
          };
          for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
            if (counts[i].v != floor (counts[i].v))
              {
                fail (&wh, counts[i].key, error, "is %g: a count of host operations is a whole "
                      "number", counts[i].v);
                return NULL;
              }
          if (h->layer_fwd_after_sync > h->layer_fwd)
            {
              fail (&wh, "layer_fwd_after_sync", error, "is %g, more than layer_fwd (%g)",
                    h->layer_fwd_after_sync, h->layer_fwd);
              return NULL;
            }
          if (h->router_fwd + h->preprocess_fwd_graphed > h->layer_fwd - h->layer_fwd_after_sync)
            {
              fail (&wh, "router_fwd", error, "with preprocess_fwd_graphed is %g, more than "
                    "layer_fwd's %g ops before the sync",
                    h->router_fwd + h->preprocess_fwd_graphed,
                    h->layer_fwd - h->layer_fwd_after_sync);
              return NULL;
            }
        }
    }
  sub = get_obj (o, "cp", &w, error, &ok);
  if (!ok)
    return NULL;
  if (sub != NULL)
    {
      Where ws = { source, "cp" };
      int mg = s->cp_ring_merge ? 1 : 0, kvr = s->cp_kv_repeated ? 1 : 0;
      int a2a = s->cp_a2a_kv_divide ? 1 : 0;
      if (!check_keys (sub, cp_keys, &ws, error)
          || !get_enum (sub, "merge", cp_merge_names, &mg, FALSE, &ws, error)
          || !get_enum (sub, "kv_heads", cp_kv_names, &kvr, FALSE, &ws, error)
          || !get_enum (sub, "a2a_kv_heads", cp_a2a_kv_names, &a2a, FALSE, &ws, error))
        return NULL;
      s->cp_ring_merge = mg == 1;
      s->cp_kv_repeated = kvr == 1;
      s->cp_a2a_kv_divide = a2a == 1;
    }
  sub = get_obj (o, "tp_overlap_sms", &w, error, &ok);
  if (!ok)
    return NULL;
  if (sub != NULL)
    {
      Where ws = { source, "tp_overlap_sms" };
      double ag = s->tp_overlap_ag_sms, rs = s->tp_overlap_rs_sms;
      if (!check_keys (sub, tp_sms_keys, &ws, error)
          || !get_num (sub, "all_gather", 0, 1024, &ag, FALSE, &ws, error)
          || !get_num (sub, "reduce_scatter", 0, 1024, &rs, FALSE, &ws, error))
        return NULL;
      if (ag != floor (ag) || rs != floor (rs))
        {
          fail (&ws, ag != floor (ag) ? "all_gather" : "reduce_scatter", error,
                "is %g: SMs are whole", ag != floor (ag) ? ag : rs);
          return NULL;
        }
      s->tp_overlap_ag_sms = ag;
      s->tp_overlap_rs_sms = rs;
    }
  sub = get_obj (o, "nccl", &w, error, &ok);
  if (!ok)
    return NULL;
  if (sub != NULL)
    {
      Where ws = { source, "nccl" };
      if (!check_keys (sub, nccl_keys, &ws, error)
          || !get_name_set (sub, "pat", fw_nccl_pat_names, &s->nccl_pat, &ws, error))
        return NULL;
    }
  /* what the stack offers (stack.h offers_*): everything unless the file says */
  s->offers_sharding = 0xF | (s->hsdp ? OFFER_HSDP : 0);
  s->offers_sharding_pp = s->offers_sharding;
  s->offers_schedules = 0xF;
  s->offers_cp_comm = 0x7;
  s->offers_ep = TRUE;
  sub = get_obj (o, "offers", &w, error, &ok);
  if (!ok)
    return NULL;
  if (sub != NULL)
    {
      Where ws = { source, "offers" };
      guint shp = G_MAXUINT;
      if (!check_keys (sub, offers_keys, &ws, error)
          || !get_name_set (sub, "sharding", fw_offer_sharding_names, &s->offers_sharding, &ws,
                            error)
          || !get_name_set (sub, "sharding_with_pp", fw_offer_sharding_names, &shp, &ws, error)
          || !get_name_set (sub, "schedules", fw_offer_schedule_names, &s->offers_schedules,
                            &ws, error)
          || !get_name_set (sub, "cp_comm", fw_offer_cp_names, &s->offers_cp_comm, &ws, error)
          || !get_bool (sub, "ep", &s->offers_ep, &ws, error))
        return NULL;
      /* HSDP has one switch: fsdp.hsdp; the list may repeat it, not contradict it */
      if (json_object_has_member (sub, "sharding")
          && ((s->offers_sharding & OFFER_HSDP) != 0) != (s->hsdp != FALSE))
        {
          fail (&ws, "sharding", error, "%s hsdp where fsdp.hsdp is %s (hint: make them agree)",
                s->hsdp ? "leaves out" : "lists", s->hsdp ? "true" : "false");
          return NULL;
        }
      s->offers_sharding = (s->offers_sharding & ~OFFER_HSDP) | (s->hsdp ? OFFER_HSDP : 0);
      if (s->offers_sharding == 0)
        {
          fail (&ws, "sharding", error, "is empty (a run shards somehow: list \"none\" at least)");
          return NULL;
        }
      if (shp != G_MAXUINT && (shp & ~s->offers_sharding) != 0)
        {
          fail (&ws, "sharding_with_pp", error, "lists a sharding that \"sharding\" does not");
          return NULL;
        }
      s->offers_sharding_pp = shp != G_MAXUINT ? shp : s->offers_sharding;
      /* with a pipeline some sharding runs: an empty list refused every pp > 1 plan with
       * a hint that named the refused sharding itself */
      if (shp == 0 && s->offers_schedules != 0)
        {
          fail (&ws, "sharding_with_pp", error, "is empty while \"schedules\" offers a "
                "pipeline (hint: list \"none\" at least, or empty \"schedules\" for a stack "
                "without pipeline parallelism)");
          return NULL;
        }
      if (json_object_has_member (sub, "rank_orders"))
        {
          JsonNode *n = json_object_get_member (sub, "rank_orders");
          JsonArray *a = JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
          guint len = a ? json_array_get_length (a) : 0;
          if (a == NULL || len == 0)
            {
              fail (&ws, "rank_orders", error, "must be a non-empty list of orders such as "
                    "\"tp-cp-ep-dp-pp\"");
              return NULL;
            }
          s->offers_rank_orders = g_new0 (char *, len + 1);
          for (guint i = 0; i < len; i++)
            {
              JsonNode *e = json_array_get_element (a, i);
              const char *v = JSON_NODE_HOLDS_VALUE (e)
                              && json_node_get_value_type (e) == G_TYPE_STRING
                              ? json_node_get_string (e) : NULL;
              /* five distinct names of tp, cp, ep, dp, pp */
              g_auto (GStrv) parts = v ? g_strsplit (v, "-", -1) : NULL;
              guint seen = 0;
              gboolean good = parts != NULL && g_strv_length (parts) == 5;
              static const char *const dims[] = { "tp", "cp", "ep", "dp", "pp" };
              for (guint p = 0; good && p < 5; p++)
                {
                  int k = -1;
                  for (int d = 0; d < 5; d++)
                    if (g_str_equal (parts[p], dims[d]))
                      k = d;
                  good = k >= 0 && !(seen & (1u << k));
                  if (good)
                    seen |= 1u << k;
                }
              if (!good)
                {
                  fail (&ws, "rank_orders", error, "element %u is not an order of tp, cp, ep, "
                        "dp and pp such as \"tp-cp-ep-dp-pp\"", i + 1);
                  return NULL;
                }
              s->offers_rank_orders[i] = g_strdup (v);
            }
        }
    }
  sub = get_obj (o, "defaults", &w, error, &ok);
  if (!ok)
    return NULL;
  if (sub != NULL)
    {
      Where ws = { source, "defaults" };
      int sh = s->default_sharding, mb = s->default_pp_microbatches,
          cpc = s->default_cp_allgather ? 1 : 0, pps = s->default_pp_dualpipe ? 1 : 0;
      if (!check_keys (sub, default_keys, &ws, error)
          || !get_enum (sub, "sharding", sharding_names, &sh, FALSE, &ws, error)
          || !get_bool (sub, "sequence_parallel", &s->default_sequence_parallel, &ws, error)
          || !get_bool (sub, "overlap_grad_reduce", &s->default_overlap_grad_reduce, &ws,
                        error)
          || !get_bool (sub, "overlap_param_gather", &s->default_overlap_param_gather, &ws,
                        error)
          || !get_enum (sub, "pp_microbatches", pp_mb_names, &mb, FALSE, &ws, error)
          || !get_enum (sub, "cp_comm", cp_comm_names, &cpc, FALSE, &ws, error)
          || !get_enum (sub, "pp_schedule", pp_schedule_names, &pps, FALSE, &ws, error))
        return NULL;
      int mp = s->default_degrees_one ? 1 : 0;
      if (!get_enum (sub, "model_parallel", model_parallel_names, &mp, FALSE, &ws, error))
        return NULL;
      s->default_degrees_one = mp == 1;
      int slots = s->default_pp_chunk_slots;
      /* grad_accum 0 (the default) is "not documented", so --json prints a stack without
       * one as it loads back */
      int ga = s->default_grad_accum;
      if (!get_whole (sub, "pp_layers_per_chunk", 0, 1000, &slots, "layers", &ws, error)
          || !get_whole (sub, "grad_accum", 0, 1e6, &ga, "steps", &ws, error))
        return NULL;
      /* a default the stack does not offer made every plan on its defaults one that the
       * same stack refuses by name ("--sharding zero3 to follow the stack", then "the
       * stack does not offer it"): refused here */
      if ((s->offers_sharding & (1u << sh)) == 0)
        {
          fail (&ws, "sharding", error, "is %s, which offers.sharding leaves out (hint: add "
                "it to offers.sharding, or a default from it)", sharding_names[sh]);
          return NULL;
        }
      s->default_pp_chunk_slots = slots;
      s->default_grad_accum = ga;
      s->default_pp_dualpipe = pps == 1;
      s->default_cp_allgather = cpc == 1;
      s->default_sharding = sh;
      s->default_pp_microbatches = mb;
    }
  sub = get_obj (o, "sources", &w, error, &ok);
  if (!ok)
    return NULL;
  if (sub != NULL)
    {
      g_autoptr (GList) members = json_object_get_members (sub);
      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *v = json_object_get_member (sub, l->data);
          if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_STRING)
            {
              Where ws = { source, "sources" };
              fail (&ws, l->data, error, "must be a string");
              return NULL;
            }
          if (util_text_control_at (json_node_get_string (v)) >= 0
              || util_text_control_at (l->data) >= 0)
            {
              Where ws = { source, "sources" };
              g_autofree char *key = util_text_blank_controls (g_strdup (l->data));
              fail (&ws, key, error, "holds a control character, which a terminal would act "
                    "on when it is printed (hint: plain text)");
              return NULL;
            }
          g_hash_table_insert (s->sources, g_strdup (l->data),
                               g_strdup (json_node_get_string (v)));
        }
    }
  return g_steal_pointer (&s);
}

FwStack *
fw_stack_load_file (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!util_input_read_file (path, UTIL_INPUT_MAX_DOC_BYTES, &data, &len, &local))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_NOT_FOUND, "%s", local->message);
      return NULL;
    }
  FwStack *s = fw_stack_new_from_data (data, (gssize) len, path, error);
  if (s != NULL)
    s->file = g_canonicalize_filename (path, NULL);
  return s;
}

static int
cmp_str (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

char **
fw_stack_preset_names (void)
{
  g_auto (GStrv) children = g_resource_enumerate_children (tandem_frameworks_get_resource (),
                                                           PRESET_DIR,
                                                           G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  GPtrArray *names = g_ptr_array_new ();
  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    if (g_str_has_suffix (children[i], ".json"))
      g_ptr_array_add (names, g_strndup (children[i], strlen (children[i]) - 5));
  g_ptr_array_sort (names, cmp_str);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

static void
set_not_found (GError **error, const char *what)
{
  g_auto (GStrv) names = fw_stack_preset_names ();
  g_autofree char *list = g_strjoinv (", ", names);
  g_set_error (error, FW_ERROR, FW_ERROR_NOT_FOUND, "%s (hint: a stack file or one of %s)",
               what, list);
}

FwStack *
fw_stack_load_preset (const char *name, GError **error)
{
  g_return_val_if_fail (name != NULL, NULL);
  /* preset names are lower case; a name is matched regardless of case (TorchTitan) */
  g_autofree char *stem = g_str_has_suffix (name, ".json") ? g_ascii_strdown (name, strlen (name) - 5)
                                                          : g_ascii_strdown (name, -1);
  g_autoptr (GBytes) bytes = NULL;
  if (stem[0] != '\0' && strchr (stem, '/') == NULL)
    {
      g_autofree char *path = g_strconcat (PRESET_DIR, stem, ".json", NULL);
      bytes = g_resource_lookup_data (tandem_frameworks_get_resource (), path,
                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
    }
  if (bytes == NULL)
    {
      g_autofree char *what = g_strdup_printf ("no framework preset named '%s'", name);
      set_not_found (error, what);
      return NULL;
    }
  gsize size = 0;
  const char *data = g_bytes_get_data (bytes, &size);
  g_autofree char *source = g_strconcat ("preset:", stem, NULL);
  return fw_stack_new_from_data (data, (gssize) size, source, error);
}

FwStack *
fw_stack_lookup (const char *name_or_path, GError **error)
{
  if (name_or_path == NULL || *name_or_path == '\0')
    name_or_path = FW_STACK_DEFAULT;
  /* any file that exists, as a model is looked up (a process substitution is a pipe) */
  if (g_file_test (name_or_path, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *what = g_strdup_printf ("'%s' is a directory, not a framework file",
                                               name_or_path);
      set_not_found (error, what);
      return NULL;
    }
  if (g_file_test (name_or_path, G_FILE_TEST_EXISTS))
    return fw_stack_load_file (name_or_path, error);
  g_autoptr (GError) local = NULL;
  FwStack *s = fw_stack_load_preset (name_or_path, &local);
  if (s == NULL)
    {
      if (g_error_matches (local, FW_ERROR, FW_ERROR_NOT_FOUND))
        {
          g_autofree char *what = g_strdup_printf ("'%s' is neither a framework file nor a "
                                                   "framework preset", name_or_path);
          set_not_found (error, what);
        }
      else
        g_propagate_error (error, g_steal_pointer (&local));
    }
  return s;
}

FwStack *
fw_stack_ref (FwStack *stack)
{
  g_return_val_if_fail (stack != NULL, NULL);
  g_atomic_int_inc (&stack->ref);
  return stack;
}

void
fw_stack_unref (FwStack *stack)
{
  if (stack == NULL || !g_atomic_int_dec_and_test (&stack->ref))
    return;
  g_free (stack->name);
  g_free (stack->description);
  g_free (stack->source);
  g_free (stack->file);
  g_strfreev (stack->offers_rank_orders);
  g_clear_pointer (&stack->sources, g_hash_table_unref);
  g_free (stack);
}

char *
fw_offer_list_text (guint mask, const char *const *names)
{
  GString *out = g_string_new (NULL);
  int n = 0, total = 0;
  for (int i = 0; names[i] != NULL; i++)
    total += (mask >> i) & 1;
  for (int i = 0; names[i] != NULL; i++)
    if ((mask >> i) & 1)
      {
        if (n > 0)
          g_string_append (out, n == total - 1 ? " or " : ", ");
        g_string_append (out, names[i]);
        n++;
      }
  if (n == 0)
    g_string_append (out, "none");
  return g_string_free (out, FALSE);
}

/* ---- free text -> preset -------------------------------------------------------------- */

/* A year from 2023 on standing alone in the text ("Megatron-LM (2024)"; not inside
 * "2201.11990" or "r0.8.0"). */
static gboolean
names_year_from_2023 (const char *t)
{
  for (const char *p = t; *p != '\0'; p++)
    if ((p == t || !g_ascii_isalnum (p[-1])) && p[0] == '2' && p[1] == '0'
        && g_ascii_isdigit (p[2]) && g_ascii_isdigit (p[3]) && !g_ascii_isalnum (p[4])
        && p[4] != '.' && (p[2] - '0') * 10 + (p[3] - '0') >= 23)
      return TRUE;
  return FALSE;
}

/* A version numbered by year and month from 2023 on ("Megatron-LM v23.08", "Megatron-LM
 * 24.01": NVIDIA's YY.MM numbering, as its NGC containers have; Megatron-LM's releases
 * before Megatron-Core were v1.x-v3.0.x), read as a year from 2023 is; not inside a longer
 * number ("2205.05198", "1.23.08") nor a date's DD.MM ("23.10.2021"), and the month
 * 01-12. A "22.xx" is of 2022, as a year 2022 is. */
static gboolean
names_release_from_2023 (const char *t)
{
  for (const char *p = t; *p != '\0'; p++)
    {
      const char *q = p;
      if ((*q == 'v' || *q == 'V') && (q == t || !g_ascii_isalnum (q[-1])))
        q++;
      else if (q != t && (g_ascii_isalnum (q[-1]) || q[-1] == '.'))
        continue;
      if (!(g_ascii_isdigit (q[0]) && g_ascii_isdigit (q[1]) && q[2] == '.'
            && g_ascii_isdigit (q[3]) && g_ascii_isdigit (q[4]) && !g_ascii_isdigit (q[5])))
        continue;
      /* a date's day and month, DD.MM.YYYY ("commit of 23.10.2021", "24.05.2022
       * checkout"), is no YY.MM: its year is read as a year (it read megatron-core) */
      if (q[5] == '.' && g_ascii_isdigit (q[6]))
        continue;
      int year = (q[0] - '0') * 10 + (q[1] - '0'), month = (q[3] - '0') * 10 + (q[4] - '0');
      if (year >= 23 && month >= 1 && month <= 12)
        return TRUE;
    }
  return FALSE;
}

/* Whether `word` stands as a word of its own in the lower-case `t` (no letter or digit
 * before it, no letter after it; a version may follow, "NeMo2"): "meta" in "Meta
 * internal", not in "metaseq"; "nemo" in "NeMo 24.07", not in "Nemotron" */
static gboolean
has_word (const char *t, const char *word)
{
  gsize n = strlen (word);
  for (const char *p = strstr (t, word); p != NULL; p = strstr (p + 1, word))
    if ((p == t || !g_ascii_isalnum (p[-1])) && !g_ascii_isalpha (p[n]))
      return TRUE;
  return FALSE;
}

/* First match wins, so the more specific names come first: "NeMo ... (Megatron-Core)" is
 * NeMo, "Megatron-DeepSpeed" is DeepSpeed's fork of Megatron-LM (its pipeline engine and
 * ZeRO optimizer, no sequence parallelism before 2023), "GPT-NeoX" runs on DeepSpeed.
 * "Megatron-LM" without "Core" and without a year or a YY.MM release from 2023 on is
 * Megatron-LM before Megatron-Core (2019-2022: "Megatron-LM (2021)", "Megatron-LM (2022)",
 * "Megatron-LM PTD", a bare "Megatron-LM", "NVIDIA Megatron-LM"): megatron-lm-2021, the
 * code of Narayanan et al. SC'21 (arXiv 2104.04473) and Korthikanti et al. 2022 (arXiv
 * 2205.05198), Megatron-LM v2.x-v3.0 (frameworks/presets/megatron-lm-2021.json). Its DP is
 * the local DDP: the distributed optimizer (megatron/optimizer/distrib_optimizer.py,
 * --use-distributed-optimizer, docs/distrib_optimizer.md) came late in 2022 and is the
 * Megatron-Core era's, so a bare Megatron-LM row that names it is read on megatron-core
 * (res_published_case_new: the framework cell alone does not say it). Megatron-LM's own
 * releases name their core from 2023 (core_r0.x branches, "Megatron-Core (Megatron-LM
 * main)"), and a row that means the Core-based Megatron-LM of 2023 or later says so by
 * "Core", its year or a YY.MM version from 23 ("v23.08"): megatron-core. */
static const struct {
  const char *needle;
  const char *preset;
  gboolean pre_core;
  const char *with_word;   /* a word the text must also hold, or NULL */
} text_rows[] = {
  { "hai-llm", "hai-llm", FALSE, NULL },   /* DeepSeek's in-house framework (DeepSeek-V3 report) */
  /* torchtitan named is torchtitan, whatever else the cell says of its parallelism
   * ("torchtitan (4D parallelism)", "TorchTitan with NCCLX-free 4D parallel": torchtitan
   * calls its own TP/PP/CP/FSDP composition 4D too); these were Meta's stack, which then
   * read "FSDP (PyTorch, FULL_SHARD)" as zero2 */
  { "torchtitan", "torchtitan", FALSE, NULL },
  /* Meta's Llama 3 stack: the paper's name for its parallelism ("4D parallelism", Sec.
   * 3.3.2) beside the word "Meta", or its NCCL fork (NCCLX, Sec. 3.3.3); not a bare
   * "meta" (metaseq is FSDP + Megatron TP), and not "4D" alone, which names no stack (any
   * trainer that composes TP, CP, PP and DP says it) */
  { "4d parallel", "meta-llama3", FALSE, "meta" },
  { "ncclx", "meta-llama3", FALSE, NULL },
  /* NeMo AutoModel is NeMo's PyTorch-native backend (its performance summary: "NeMo
   * Pytorch backend - i.e. NeMo Automodel"): Hugging Face model code sharded with PyTorch
   * FSDP2 and run with Transformer Engine kernels, not Megatron-Core; so before "nemo",
   * which is NeMo on Megatron-Core */
  { "automodel", "nemo-automodel", FALSE, NULL },
  /* NeMo as a word: not inside "Nemotron", a model family that Megatron-LM and
   * Megatron-Core recipes train ("Megatron-LM (Nemotron recipe)" was the nemo stack) */
  { "nemo", "nemo", FALSE, "nemo" },
  /* Megatron-Bridge is NeMo's Megatron-Core training library (github.com/NVIDIA-NeMo/
   * Megatron-Bridge; the performance tables call it "NeMo Megatron-Bridge"): the nemo
   * stack whether or not the cell says NeMo */
  { "megatron-bridge", "nemo", FALSE, NULL },
  { "megatron bridge", "nemo", FALSE, NULL },
  { "megatron-deepspeed", "deepspeed", FALSE, NULL },
  { "deepspeed", "deepspeed", FALSE, NULL },
  { "gpt-neox", "deepspeed", FALSE, NULL },
  { "megatron-lm", "megatron-lm-2021", TRUE, NULL },
  { "megatron lm", "megatron-lm-2021", TRUE, NULL },   /* the same name spelled without the hyphen */
  { "megatronlm", "megatron-lm-2021", TRUE, NULL },
  { "megatron_lm", "megatron-lm-2021", TRUE, NULL },
  { "llm-foundry", "llm-foundry", FALSE, NULL },
  /* the same name spelled with a space ("LLM Foundry", as MosaicML's docs write it), as
   * its Python package (llmfoundry) or with an underscore; these were not recognised */
  { "llm foundry", "llm-foundry", FALSE, NULL },
  { "llmfoundry", "llm-foundry", FALSE, NULL },
  { "llm_foundry", "llm-foundry", FALSE, NULL },
  { "composer", "llm-foundry", FALSE, NULL },
  { "maxtext", "maxtext", FALSE, NULL },
  { "jax", "maxtext", FALSE, NULL },
  { "pax", "maxtext", FALSE, NULL },
  /* other JAX trainers, XLA-compiled as MaxText is (as "jax" above) */
  { "levanter", "maxtext", FALSE, NULL },
  { "t5x", "maxtext", FALSE, NULL },
  { "praxis", "maxtext", FALSE, NULL },    /* Pax's layer library ("pax" above is Paxml) */
  { "easylm", "maxtext", FALSE, NULL },    /* JAX / Flax (pjit) */
  { "axlearn", "maxtext", FALSE, NULL },   /* Apple's JAX trainer */
  { "megatron", "megatron-core", FALSE, NULL },
  /* AMD's Primus (AMD-AGI/Primus README: a training framework over Megatron and, since
   * June 2025, TorchTitan backends; its Megatron trainer came first and its quick start
   * runs it): Megatron-Core where the cell names no TorchTitan backend (a row above reads
   * "Primus (TorchTitan backend)" as torchtitan) */
  { "primus", "megatron-core", FALSE, NULL },
  { "mcore", "megatron-core", FALSE, NULL },    /* Megatron-Core's short names ("MCore 0.12") */
  { "m-core", "megatron-core", FALSE, NULL },
  /* a PyTorch-native trainer that composes FSDP2 with DTensor tensor parallelism or
   * PyTorch's pipeline API (torch.distributed.tensor.parallel, torch.distributed.
   * pipelining) is torchtitan's composition, which the torchtitan stack models (FSDP2's
   * copy-in / copy-out, TP with SP, the pipeline schedules); plain FSDP has no pipeline:
   * "KempnerForge (PyTorch FSDP2 + DTensor TP + torch.distributed.pipelining)" was
   * pytorch-fsdp, its pp 2 and pp 4 rows refused (audit of 7 Dec) */
  { "torch.distributed.pipelining", "torchtitan", FALSE, NULL },
  { "dtensor", "torchtitan", FALSE, NULL },
  /* torchtune: PyTorch-native, sharded with FSDP2 (its recipes' fully_shard) */
  { "torchtune", "pytorch-fsdp", FALSE, NULL },
  { "fsdp", "pytorch-fsdp", FALSE, NULL },
  { "fairscale", "pytorch-fsdp", FALSE, NULL },
  { "metaseq", "pytorch-fsdp", FALSE, NULL },
  /* OLMo and OLMo-core (AI2): PyTorch FSDP (the OLMo paper, arXiv 2402.00838 Sec. 3.1:
   * "the ZeRO optimizer strategy via PyTorch's FSDP framework"; OLMo's
   * distributed_strategy fsdp, OLMo-core's FSDP / HSDP data-parallel configs) */
  { "olmo", "pytorch-fsdp", FALSE, NULL },
  /* Lightning Fabric / LitGPT: PyTorch FSDP through Lightning's FSDPStrategy (its default
   * FULL_SHARD; LitGPT's pretrain passes HYBRID_SHARD, litgpt/pretrain.py, which the
   * mapping reads for an unstated sharding cell) */
  { "litgpt", "pytorch-fsdp", FALSE, NULL },
  { "lit-gpt", "pytorch-fsdp", FALSE, NULL },
  { "lightning", "pytorch-fsdp", FALSE, NULL },
  /* Hugging Face's 3D-parallel trainers (TP, PP, ZeRO-1 data parallelism, no FSDP) are no
   * FSDP stack: stay unrecognised ("Hugging Face Nanotron" read as pytorch-fsdp) */
  { "nanotron", NULL, FALSE, NULL },
  { "picotron", NULL, FALSE, NULL },
  { "hugging face", "pytorch-fsdp", FALSE, NULL },
  { "huggingface", "pytorch-fsdp", FALSE, NULL },
  { "hf transformers", "pytorch-fsdp", FALSE, NULL },   /* Hugging Face's short name */
  { "hf trainer", "pytorch-fsdp", FALSE, NULL },
  { "accelerate", "pytorch-fsdp", FALSE, NULL },
  { "pytorch", "pytorch-fsdp", FALSE, NULL },
};

const char *
fw_stack_preset_for_text (const char *text)
{
  if (text == NULL)
    return NULL;
  g_autofree char *t = g_ascii_strdown (text, -1);
  /* a trainer said to run 3D parallelism (tensor, pipeline and data parallel) is not
   * PyTorch FSDP, which has no pipeline: "Gigatron (TII in-house, PyTorch 3D parallelism)"
   * was pytorch-fsdp by its "PyTorch", then skipped for pp > 1. It names no stack the
   * mapping models (the default stack, said not recognised), unless a name above it in
   * the table does (Megatron, DeepSpeed, NeMo) */
  gboolean three_d = strstr (t, "3d parallel") != NULL || strstr (t, "3d-parallel") != NULL
                     || strstr (t, "3-d parallel") != NULL;
  for (guint i = 0; i < G_N_ELEMENTS (text_rows); i++)
    if (strstr (t, text_rows[i].needle) != NULL
        && !(three_d && g_strcmp0 (text_rows[i].preset, "pytorch-fsdp") == 0)
        && !(text_rows[i].pre_core && (strstr (t, "core") != NULL || names_year_from_2023 (t)
                                         || names_release_from_2023 (t)))
        && (text_rows[i].with_word == NULL || has_word (t, text_rows[i].with_word)))
      return text_rows[i].preset;
  return NULL;
}

/* ---- output --------------------------------------------------------------------------- */

void
fw_stack_to_json (const FwStack *s, JsonBuilder *b)
{
  json_builder_begin_object (b);
#define S(k, v) G_STMT_START { json_builder_set_member_name (b, k); \
    json_builder_add_string_value (b, v); } G_STMT_END
#define B(k, v) G_STMT_START { json_builder_set_member_name (b, k); \
    json_builder_add_boolean_value (b, v); } G_STMT_END
#define D(k, v) G_STMT_START { json_builder_set_member_name (b, k); \
    json_builder_add_double_value (b, v); } G_STMT_END
  S ("name", s->name);
  if (s->description != NULL)
    S ("description", s->description);
  S ("attention", fw_attn_kernel_name (s->attention));
  S ("fusion", fw_fusion_name (s->fusion));
  S ("compile", fw_avail_name (s->compile));
  D ("kernel_overhead_us", s->kernel_overhead_s * 1e6);
  S ("tp_comm_overlap", fw_avail_name (s->tp_comm_overlap));
  S ("async_tp", fw_avail_name (s->async_tp));
  if (s->tp_overlap_ag_sms >= 0 || s->tp_overlap_rs_sms >= 0)
    {
      json_builder_set_member_name (b, "tp_overlap_sms");
      json_builder_begin_object (b);
      if (s->tp_overlap_ag_sms >= 0)
        D ("all_gather", s->tp_overlap_ag_sms);
      if (s->tp_overlap_rs_sms >= 0)
        D ("reduce_scatter", s->tp_overlap_rs_sms);
      json_builder_end_object (b);
    }
  S ("tp_grad_reduce_scatter", tp_grad_rs_names[s->tp_grad_rs_after_block ? 1 : 0]);
  B ("tp_seq_dim_copies", s->tp_seq_copies);
  S ("pp_schedule_runtime", pp_runtime_names[s->pp_lockstep ? 1 : 0]);
  S ("pp_p2p_sync", pp_p2p_sync_names[s->pp_p2p_sync]);
  B ("pp_scatter_gather", s->pp_scatter_gather);
  S ("pp_stage_input", pp_stage_input_names[s->pp_free_stage_input ? 1 : 0]);
  S ("dp_overlap", dp_overlap_names[s->dp_overlap_always ? 1 : 0]);
  S ("pp_stage_output", pp_stage_output_names[s->pp_keep_stage_output ? 1 : 0]);
  S ("swiglu_saves", swiglu_saves_names[s->swiglu_eager_saves ? 1 : 0]);
  S ("moe_shared_expert_overlap", fw_avail_name (s->moe_shared_expert_overlap));
  S ("grad_reduce_dtype", s->grad_reduce_bf16 ? "bf16" : "fp32");
  S ("cross_entropy", s->loss_eager ? "eager" : "fused");
  S ("tflops_convention", s->tflops_convention ? s->tflops_convention : "none");
  S ("dropout", s->no_dropout ? "none" : "model");
  S ("remat", s->remat_named ? "named" : "modules");
  D ("optimizer_bytes_per_param", s->optimizer_bytes_per_param);
  json_builder_set_member_name (b, "moe");
  json_builder_begin_object (b);
  B ("dispatch_host_sync", s->moe_dispatch_host_sync);
  S ("grouped_gemm_launches", s->moe_grouped_gemm_per_expert ? "per_expert" : "one");
  B ("expert_eager_op", s->moe_expert_eager_op);
  S ("a2a_overlap", fw_avail_name (s->moe_a2a_overlap));
  json_builder_set_member_name (b, "host_ops");
  json_builder_begin_object (b);
  D ("layer_fwd", s->moe_host_ops.layer_fwd);
  D ("layer_bwd", s->moe_host_ops.layer_bwd);
  D ("layer_fwd_after_sync", s->moe_host_ops.layer_fwd_after_sync);
  D ("expert_launch_fwd", s->moe_host_ops.expert_launch_fwd);
  D ("expert_launch_bwd", s->moe_host_ops.expert_launch_bwd);
  D ("expert_eager_fwd", s->moe_host_ops.expert_eager_fwd);
  D ("expert_eager_bwd", s->moe_host_ops.expert_eager_bwd);
  D ("expert_fp8_launch", s->moe_host_ops.expert_fp8_launch);
  D ("expert_fp8_eager_fwd", s->moe_host_ops.expert_fp8_eager_fwd);
  D ("te_linear_fwd", s->moe_host_ops.te_linear_fwd);
  D ("te_grouped_fwd", s->moe_host_ops.te_grouped_fwd);
  /* every key the loader reads (host_ops_keys): these two were left out, so a stack shown
   * and fed back lost the graphed router's saving (qwen3-30b-a3b on B200 with CUDA graphs
   * over the router: 32.42 s a step from the preset, 33.44 s from its own JSON) */
  D ("router_fwd", s->moe_host_ops.router_fwd);
  D ("preprocess_fwd_graphed", s->moe_host_ops.preprocess_fwd_graphed);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "fsdp");
  json_builder_begin_object (b);
  B ("reshard_after_forward", s->fsdp_reshard_after_forward);
  B ("reshard_under_pp", s->fsdp_reshard_under_pp);
  B ("hsdp", s->hsdp);
  D ("prefetch_params", s->fsdp_prefetch_params);
  D ("max_reuse_params", s->fsdp_max_reuse_params);
  S ("gather", s->fsdp_gather_per_tensor ? "per_tensor" : "flat");
  B ("rank_copies", s->fsdp_rank_copies);
  B ("copy_in_out", s->fsdp_copy_in_out);
  B ("reduce_passes", s->fsdp_reduce_passes);
  B ("fp32_shards", s->fsdp_fp32_shards);
  B ("gather_before_reduce", s->fsdp_gather_before_reduce);
  S ("zero2_grad_sync", s->zero2_grad_per_microbatch ? "per_microbatch" : "per_step");
  S ("pp_grad_reduce", pp_grad_names[s->fsdp_pp_grad_after_stage ? 1 : 0]);
  S ("grad_accumulation", grad_accum_names[s->fsdp_grad_accum_upcast ? 1 : 0]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "fp8");
  json_builder_begin_object (b);
  S ("ops", fw_fp8_ops_name (s->fp8_ops));
  S ("scaling", fw_scaling_name (s->fp8_scaling));
  D ("cast_passes", s->fp8_cast_passes);
  D ("compiled_cast_passes", s->fp8_cast_passes_compiled);
  B ("mxfp8", s->mxfp8);
  B ("nvfp4", s->nvfp4);
  B ("blockwise", s->blockwise);
  B ("rowwise", s->rowwise);
  S ("tp_all_gather", tp_ag_names[s->fp8_tp_all_gather ? 1 : 0]);
  S ("param_gather", tp_ag_names[s->fp8_param_gather ? 1 : 0]);
  S ("gemm_rate", fp8_rate_names[s->fp8_kernel_rate ? 1 : 0]);
  S ("casts", fp8_cast_names[s->fp8_cast_per_operand ? 1 : 0]);
  D ("weight_cast_bytes", s->fp8_weight_cast_bytes);
  S ("output_layer", fp8_output_names[s->fp8_output_bf16 ? 1 : 0]);
  S ("fast_accum", fp8_fast_accum_names[s->fp8_fast_accum_fwd ? 1 : 0]);
  S ("moe_act_input", fp8_act_cache_names[s->fp8_moe_act_input ? 1 : 0]);
  S ("attn_out_input", fp8_attn_out_names[s->fp8_attn_out_e5m6 ? 1 : 0]);
  S ("moe_dispatch", fp8_act_cache_names[s->fp8_moe_dispatch ? 1 : 0]);
  S ("norm_amax", fp8_norm_amax_names[s->fp8_norm_amax_fused ? 1 : 0]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "cp");
  json_builder_begin_object (b);
  S ("merge", cp_merge_names[s->cp_ring_merge ? 1 : 0]);
  S ("kv_heads", cp_kv_names[s->cp_kv_repeated ? 1 : 0]);
  S ("a2a_kv_heads", cp_a2a_kv_names[s->cp_a2a_kv_divide ? 1 : 0]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "nccl");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "pat");
  json_builder_begin_array (b);
  for (int i = 0; fw_nccl_pat_names[i] != NULL; i++)
    if ((s->nccl_pat >> i) & 1)
      json_builder_add_string_value (b, fw_nccl_pat_names[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "offers");
  json_builder_begin_object (b);
  {
    const struct { const char *key; guint mask; const char *const *names; } sets[] = {
      { "sharding", s->offers_sharding, fw_offer_sharding_names },
      { "sharding_with_pp", s->offers_sharding_pp, fw_offer_sharding_names },
      { "schedules", s->offers_schedules, fw_offer_schedule_names },
      { "cp_comm", s->offers_cp_comm, fw_offer_cp_names },
    };
    for (guint k = 0; k < G_N_ELEMENTS (sets); k++)
      {
        json_builder_set_member_name (b, sets[k].key);
        json_builder_begin_array (b);
        for (int i = 0; sets[k].names[i] != NULL; i++)
          if ((sets[k].mask >> i) & 1)
            json_builder_add_string_value (b, sets[k].names[i]);
        json_builder_end_array (b);
      }
    json_builder_set_member_name (b, "ep");
    json_builder_add_boolean_value (b, s->offers_ep);
    if (s->offers_rank_orders != NULL)
      {
        json_builder_set_member_name (b, "rank_orders");
        json_builder_begin_array (b);
        for (char **r = s->offers_rank_orders; *r != NULL; r++)
          json_builder_add_string_value (b, *r);
        json_builder_end_array (b);
      }
  }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "defaults");
  json_builder_begin_object (b);
  S ("sharding", fw_sharding_name (s->default_sharding));
  B ("sequence_parallel", s->default_sequence_parallel);
  B ("overlap_grad_reduce", s->default_overlap_grad_reduce);
  B ("overlap_param_gather", s->default_overlap_param_gather);
  S ("pp_microbatches", pp_mb_names[s->default_pp_microbatches]);
  S ("cp_comm", cp_comm_names[s->default_cp_allgather ? 1 : 0]);
  S ("pp_schedule", pp_schedule_names[s->default_pp_dualpipe ? 1 : 0]);
  D ("pp_layers_per_chunk", s->default_pp_chunk_slots);
  D ("grad_accum", s->default_grad_accum);
  S ("model_parallel", model_parallel_names[s->default_degrees_one ? 1 : 0]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "sources");
  json_builder_begin_object (b);
  g_autoptr (GList) keys = g_hash_table_get_keys (s->sources);
  keys = g_list_sort (keys, (GCompareFunc) g_strcmp0);
  for (GList *l = keys; l != NULL; l = l->next)
    S (l->data, g_hash_table_lookup (s->sources, l->data));
  json_builder_end_object (b);
#undef S
#undef B
#undef D
  json_builder_end_object (b);
}

const char *
fw_stack_stored_name (const FwStack *s)
{
  g_return_val_if_fail (s != NULL, NULL);
  /* the absolute path: the path as typed re-simulated only from the same directory */
  return s->file != NULL ? s->file
         : s->source != NULL && !g_str_has_prefix (s->source, "preset:") ? s->source : s->name;
}
