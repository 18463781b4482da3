/* plan/plan-json.c - plan files with TorchTitan's section and key names
 * (torchtitan/config/job_config.py: [parallelism], [training], [activation_checkpoint]),
 * so a TorchTitan TOML maps one to one. Keys TorchTitan lacks (uneven pipeline split,
 * virtual stages, sharding level, precision details) use tandem's names in the same
 * sections. Unknown keys are errors: a typo must not silently become a default.
 *
 *   {"parallelism": {"tensor_parallel_degree": 8, "pipeline_parallel_degree": 16,
 *                    "data_parallel_shard_degree": -1, "pipeline_parallel_schedule": "1F1B"},
 *    "training": {"local_batch_size": 16, "seq_len": 8192, "global_batch_size": 2048},
 *    "activation_checkpoint": {"mode": "none"}} */
#include "plan/plan.h"
#include "util/input.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

typedef struct {
  Plan       *plan;
  const char *source;
  int         shard_degree;      /* data_parallel_shard_degree, -1 = rest */
  gboolean    shard_degree_given;
  int         replicate_degree;  /* data_parallel_replicate_degree */
  const char *reshard;           /* fsdp_reshard_after_forward */
  gboolean    sharding_named;    /* an explicit "sharding" key wins */
  gboolean    mbs_named;         /* parallelism.pipeline_parallel_microbatch_size given */
  /* cuda_graph_impl / cuda_graph_scope as first read, and the section they were read in
   * (both "training" and, as tandem wrote them before, "moe" hold them) */
  const char *cuda_graph[2];
  const char *cuda_graph_section[2];
} PlanJson;

static gboolean
json_get_int (PlanJson *pj, const char *section, const char *key, JsonNode *node, int min,
              int *out, GError **error)
{
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    {
      gint64 v = json_node_get_int (node);
      if (v >= min && v <= G_MAXINT)
        {
          *out = (int) v;
          return TRUE;
        }
      /* a whole number past the 32-bit counts (world_size 4294967297 read "must be an
       * integer >= 1", which it is): the range, as the flags say it */
      if (v > G_MAXINT)
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                       "%s: %s.%s is %" G_GINT64_FORMAT ", too large for a count (at most "
                       "%d)", pj->source, section, key, v, G_MAXINT);
          return FALSE;
        }
    }
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
               "%s: %s.%s must be an integer >= %d", pj->source, section, key, min);
  return FALSE;
}

static gboolean
json_get_bool (PlanJson *pj, const char *section, const char *key, JsonNode *node,
               gboolean *out, GError **error)
{
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    {
      *out = json_node_get_boolean (node);
      return TRUE;
    }
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: %s.%s must be true or false",
               pj->source, section, key);
  return FALSE;
}

static const char *
json_get_str (PlanJson *pj, const char *section, const char *key, JsonNode *node,
              GError **error)
{
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: %s.%s must be a string",
               pj->source, section, key);
  return NULL;
}

/* Re-uses the flag parser for string values, so the accepted spellings are the same. */
static gboolean
apply_as_flag (PlanJson *pj, const char *flag, const char *value, GError **error)
{
  Plan *plan = pj->plan;
  PlanArgs args = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  GOptionGroup *group = plan_option_group_new (plan, &args);
  g_option_context_set_main_group (ctx, group);
  g_autofree char *opt = g_strdup_printf ("--%s=%s", flag, value);
  char *argv_data[] = { (char *) "plan", opt, NULL };
  char **argv = argv_data;
  int argc = 2;
  GError *local = NULL;
  gboolean ok = g_option_context_parse (ctx, &argc, &argv, &local);
  plan_args_clear (&args);
  if (!ok)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: %s", pj->source, local->message);
      g_error_free (local);
    }
  return ok;
}

/* "cuda_graph_impl" / "cuda_graph_scope" of section S (training, or moe where tandem
 * wrote them before): as the flag; the same key in both sections must agree (the file
 * would otherwise mean whichever section came last) */
static gboolean
apply_cuda_graph (PlanJson *pj, const char *S, const char *key, JsonNode *n, GError **error)
{
  const int k = g_str_equal (key, "cuda_graph_impl") ? 0 : 1;
  const char *v = json_get_str (pj, S, key, n, error);
  if (v == NULL)
    return FALSE;
  if (pj->cuda_graph[k] != NULL && g_strcmp0 (pj->cuda_graph[k], v) != 0)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                   "%s: %s.%s is \"%s\" but %s.%s is \"%s\" (hint: keep one of them; "
                   "tandem writes it under \"training\")",
                   pj->source, S, key, v, pj->cuda_graph_section[k], key, pj->cuda_graph[k]);
      return FALSE;
    }
  pj->cuda_graph[k] = v;
  pj->cuda_graph_section[k] = S;
  return apply_as_flag (pj, k == 0 ? "cuda-graph-impl" : "cuda-graph-scope", v, error);
}

static gboolean
parse_parallelism (PlanJson *pj, JsonObject *obj, GError **error)
{
  Plan *p = pj->plan;
  const char *S = "parallelism";
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *n = json_object_get_member (obj, key);
      gboolean ok;
      if (g_str_equal (key, "tensor_parallel_degree"))
        ok = json_get_int (pj, S, key, n, 1, &p->tp, error);
      else if (g_str_equal (key, "pipeline_parallel_degree"))
        ok = json_get_int (pj, S, key, n, 1, &p->pp, error);
      else if (g_str_equal (key, "context_parallel_degree"))
        ok = json_get_int (pj, S, key, n, 1, &p->cp, error);
      else if (g_str_equal (key, "expert_parallel_degree"))
        ok = json_get_int (pj, S, key, n, 1, &p->ep, error);
      else if (g_str_equal (key, "expert_tensor_parallel_degree"))
        ok = json_get_int (pj, S, key, n, 1, &p->etp, error);
      else if (g_str_equal (key, "world_size"))
        ok = json_get_int (pj, S, key, n, 1, &p->world_size, error);
      else if (g_str_equal (key, "data_parallel_shard_degree"))
        ok = (pj->shard_degree_given = TRUE)
             && json_get_int (pj, S, key, n, -1, &pj->shard_degree, error);
      else if (g_str_equal (key, "data_parallel_replicate_degree"))
        ok = json_get_int (pj, S, key, n, 1, &pj->replicate_degree, error);
      else if (g_str_equal (key, "pipeline_parallel_microbatch_size"))
        ok = pj->mbs_named = json_get_int (pj, S, key, n, 1, &p->micro_batch, error);
      else if (g_str_equal (key, "virtual_stages_per_rank"))
        ok = json_get_int (pj, S, key, n, 1, &p->vpp, error);
      else if (g_str_equal (key, "microbatch_group_size_per_vp_stage"))
        ok = json_get_int (pj, S, key, n, 1, &p->vpp_group, error);
      else if (g_str_equal (key, "pipeline_schedules_per_step"))
        ok = json_get_int (pj, S, key, n, 1, &p->pp_schedules, error);
      else if (g_str_equal (key, "pipeline_parallel_layers_per_stage"))
        ok = json_get_int (pj, S, key, n, 1, &p->layers_per_virtual_stage, error);
      /* the uneven split's counts; null leaves the split even (as tandem writes it) */
      else if (g_str_equal (key, "first_stage_layers"))
        ok = JSON_NODE_HOLDS_NULL (n) || json_get_int (pj, S, key, n, 0, &p->first_stage_layers, error);
      else if (g_str_equal (key, "last_stage_layers"))
        ok = JSON_NODE_HOLDS_NULL (n) || json_get_int (pj, S, key, n, 0, &p->last_stage_layers, error);
      else if (g_str_equal (key, "first_chunk_layers"))
        ok = JSON_NODE_HOLDS_NULL (n) || json_get_int (pj, S, key, n, 0, &p->first_chunk_layers, error);
      else if (g_str_equal (key, "last_chunk_layers"))
        ok = JSON_NODE_HOLDS_NULL (n) || json_get_int (pj, S, key, n, 0, &p->last_chunk_layers, error);
      else if (g_str_equal (key, "account_for_embedding_in_pipeline_split"))
        ok = json_get_bool (pj, S, key, n, &p->account_embedding, error);
      else if (g_str_equal (key, "account_for_loss_in_pipeline_split"))
        ok = json_get_bool (pj, S, key, n, &p->account_loss, error);
      else if (g_str_equal (key, "sequence_parallel"))
        ok = json_get_bool (pj, S, key, n, &p->sequence_parallel, error);
      else if (g_str_equal (key, "enable_async_tensor_parallel"))
        {
          /* --async-tp: async TP is the stack's TP-comm overlap (plan-args.c) */
          ok = json_get_bool (pj, S, key, n, &p->async_tp, error);
          p->tp_comm_overlap = p->tp_comm_overlap || p->async_tp;
        }
      else if (g_str_equal (key, "enable_fsdp_float8_all_gather"))
        ok = json_get_bool (pj, S, key, n, &p->fsdp_float8_all_gather, error);
      else if (g_str_equal (key, "overlap_grad_reduce"))
        ok = json_get_bool (pj, S, key, n, &p->overlap_grad_reduce, error);
      else if (g_str_equal (key, "overlap_param_gather"))
        ok = json_get_bool (pj, S, key, n, &p->overlap_param_gather, error);
      else if (g_str_equal (key, "fsdp_reshard_after_forward"))
        {
          /* TorchTitan takes "default", "always" or "never"; any other word (a typo of
           * "never") was read as "not never" and silently gave ZeRO-3 instead of ZeRO-2 */
          ok = (pj->reshard = json_get_str (pj, S, key, n, error)) != NULL;
          if (ok && !g_str_equal (pj->reshard, "default") && !g_str_equal (pj->reshard, "always")
              && !g_str_equal (pj->reshard, "never"))
            {
              g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                           "%s: parallelism.fsdp_reshard_after_forward is '%s' (hint: default, "
                           "always or never, as TorchTitan takes it)", pj->source, pj->reshard);
              return FALSE;
            }
        }
      else if (g_str_equal (key, "sharding") && (n != NULL && JSON_NODE_HOLDS_VALUE (n)
                                                  && json_node_get_value_type (n) == G_TYPE_STRING
                                                  && g_str_equal (json_node_get_string (n), "hsdp")))
        {
          /* "hsdp" without :K, as tandem writes HSDP: the shard group's size is
           * data_parallel_shard_degree (checked after the section) */
          p->sharding = PLAN_SHARD_HSDP;
          p->hsdp_shard_size = 0;
          p->sharding_set = pj->sharding_named = TRUE;
          ok = TRUE;
        }
      else if (g_str_equal (key, "pipeline_parallel_schedule")
               || g_str_equal (key, "sharding") || g_str_equal (key, "rank_order"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          const char *flag = g_str_equal (key, "pipeline_parallel_schedule") ? "schedule"
                             : g_str_equal (key, "sharding") ? "sharding" : "rank-order";
          ok = v != NULL && apply_as_flag (pj, flag, v, error);
          if (g_str_equal (key, "sharding"))
            pj->sharding_named = TRUE;
        }
      else if (g_str_equal (key, "context_parallel_rotate_method"))
        {
          /* TorchTitan: "allgather" or "alltoall" (ring pass of K/V shards). */
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL;
          if (ok && g_str_equal (v, "allgather"))
            p->cp_comm = PLAN_CP_ALLGATHER, p->cp_comm_set = TRUE;
          else if (ok && g_str_equal (v, "alltoall"))
            p->cp_comm = PLAN_CP_P2P, p->cp_comm_set = TRUE;
          else if (ok)
            ok = apply_as_flag (pj, "cp-comm-type", v, error);
        }
      else if (g_str_equal (key, "context_parallel_comm"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL && apply_as_flag (pj, "cp-comm-type", v, error);
        }
      /* Megatron-LM's --fp8-param-gather, as plan_to_json writes it */
      else if (g_str_equal (key, "fp8_param_gather"))
        {
          gboolean v = FALSE;
          ok = json_get_bool (pj, S, key, n, &v, error);
          p->fp8_param_gather = v ? 1 : 0;
        }
      /* how the pipeline's exchanges run (--pp-lockstep, --no-batch-p2p-sync,
       * --[no-]scatter-gather-tensors-in-pipeline), as plan_to_json writes them */
      else if (g_str_equal (key, "pipeline_lockstep")
               || g_str_equal (key, "batch_p2p_sync")
               || g_str_equal (key, "scatter_gather_tensors_in_pipeline"))
        {
          gboolean v = FALSE;
          ok = json_get_bool (pj, S, key, n, &v, error);
          int *to = g_str_equal (key, "pipeline_lockstep") ? &p->pp_lockstep
                    : g_str_equal (key, "batch_p2p_sync") ? &p->pp_p2p_sync
                    : &p->pp_scatter_gather;
          *to = v ? 1 : 0;
        }
      /* what tandem writes besides (plan_to_json): the derived dp, checked as --dp is,
       * and the attention core as --attention-backend */
      else if (g_str_equal (key, "data_parallel_degree"))
        ok = json_get_int (pj, S, key, n, 1, &p->dp_file, error);
      else if (g_str_equal (key, "expert_data_parallel_degree"))
        ok = json_get_int (pj, S, key, n, 1, &p->edp_given, error);
      else if (g_str_equal (key, "attention_backend"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL && apply_as_flag (pj, "attention-backend", v, error);
        }
      else
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                       "%s: unknown key parallelism.%s (hint: TorchTitan names such as "
                       "tensor_parallel_degree, pipeline_parallel_degree, "
                       "context_parallel_degree, data_parallel_shard_degree)",
                       pj->source, key);
          return FALSE;
        }
      if (!ok)
        return FALSE;
    }
  if (p->schedule == PLAN_SCHED_INTERLEAVED_1F1B || p->schedule == PLAN_SCHED_DUALPIPE)
    p->schedule_set = TRUE;
  return TRUE;
}

static gboolean
json_get_number (PlanJson *pj, const char *section, const char *key, JsonNode *node,
                 double min, double *out, GError **error)
{
  if (JSON_NODE_HOLDS_VALUE (node) && (json_node_get_value_type (node) == G_TYPE_INT64
                                       || json_node_get_value_type (node) == G_TYPE_DOUBLE))
    {
      double v = json_node_get_double (node);
      if (v >= min && v <= 1e6)
        {
          *out = v;
          return TRUE;
        }
    }
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
               "%s: %s.%s must be a number between %g and 1e6", pj->source, section, key, min);
  return FALSE;
}

/* "moe": Megatron-Core's --moe-* options without the prefix (plan_to_json writes the
 * same keys). */
static gboolean
parse_moe (PlanJson *pj, JsonObject *obj, GError **error)
{
  Plan *p = pj->plan;
  const char *S = "moe";
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *n = json_object_get_member (obj, key);
      gboolean ok;
      /* at least 1, as the flags take them (0 was read as "the model's" silently) */
      if (g_str_equal (key, "num_experts"))
        ok = json_get_int (pj, S, key, n, 1, &p->num_experts, error);
      else if (g_str_equal (key, "router_topk"))
        ok = json_get_int (pj, S, key, n, 1, &p->moe_topk, error);
      else if (g_str_equal (key, "token_dispatcher_type"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL && apply_as_flag (pj, "moe-token-dispatcher-type", v, error);
        }
      else if (g_str_equal (key, "flex_dispatcher_backend"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL && apply_as_flag (pj, "moe-flex-dispatcher-backend", v, error);
        }
      else if (g_str_equal (key, "expert_capacity_factor"))
        {
          if (JSON_NODE_HOLDS_NULL (n))   /* dropless */
            {
              p->moe_capacity_factor = 0;
              ok = TRUE;
            }
          else
            ok = json_get_number (pj, S, key, n, 1.0, &p->moe_capacity_factor, error);
        }
      else if (g_str_equal (key, "grouped_gemm"))
        ok = json_get_bool (pj, S, key, n, &p->moe_grouped_gemm, error);
      else if (g_str_equal (key, "pad_expert_input_to_capacity"))
        ok = json_get_bool (pj, S, key, n, &p->moe_pad_to_capacity, error);
      else if (g_str_equal (key, "shared_expert_overlap"))
        ok = json_get_bool (pj, S, key, n, &p->moe_shared_expert_overlap, error);
      else if (g_str_equal (key, "imbalance"))
        ok = json_get_number (pj, S, key, n, 1.0, &p->moe_imbalance, error);
      else if (g_str_equal (key, "a2a_overlap"))
        ok = json_get_bool (pj, S, key, n, &p->moe_a2a_overlap, error);
      else if (g_str_equal (key, "cuda_graph_impl") || g_str_equal (key, "cuda_graph_scope"))
        ok = apply_cuda_graph (pj, S, key, n, error);
      else if (g_str_equal (key, "recompute_modules"))
        {
          /* --recompute-modules names (plan.h); core_attn belongs to
           * activation_checkpoint.mode "selective" */
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL;
          if (ok)
            {
              p->moe_recompute = 0;
              if (strstr (v, "core_attn") != NULL)
                {
                  g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                               "%s: moe.recompute_modules '%s' names 'core_attn' (hint: "
                               "activation_checkpoint.mode \"selective\")", pj->source, v);
                  ok = FALSE;
                }
              if (ok)
                ok = plan_recompute_modules_parse (v, p, error);
            }
        }
      else
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                       "%s: unknown key moe.%s (hint: num_experts, router_topk, "
                       "token_dispatcher_type, flex_dispatcher_backend, expert_capacity_factor, pad_expert_input_to_capacity, grouped_gemm, "
                       "shared_expert_overlap, imbalance, a2a_overlap, recompute_modules, cuda_graph_impl, "
                       "cuda_graph_scope)", pj->source,
                       key);
          return FALSE;
        }
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static gboolean
parse_training (PlanJson *pj, JsonObject *obj, GError **error)
{
  Plan *p = pj->plan;
  const char *S = "training";
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *n = json_object_get_member (obj, key);
      gboolean ok;
      if (g_str_equal (key, "local_batch_size"))
        ok = json_get_int (pj, S, key, n, 1, &p->local_batch, error);
      else if (g_str_equal (key, "compile"))
        ok = json_get_bool (pj, S, key, n, &p->compile, error);   /* --compile */
      else if (g_str_equal (key, "mtp_num_layers"))   /* --mtp-num-layers */
        ok = json_get_int (pj, S, key, n, 0, &p->mtp_num_layers, error);
      else if (g_str_equal (key, "global_batch_size"))
        ok = json_get_int (pj, S, key, n, 1, &p->global_batch, error);
      else if (g_str_equal (key, "seq_len"))
        ok = json_get_int (pj, S, key, n, 1, &p->seq_length, error);
      else if (g_str_equal (key, "mixed_precision_param"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL;
          if (ok && g_str_equal (v, "bfloat16"))
            p->param_dtype = PLAN_PREC_BF16;
          else if (ok && g_str_equal (v, "float32"))
            p->param_dtype = p->compute_dtype = PLAN_PREC_FP32;
          else if (ok)
            {
              g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                           "%s: training.mixed_precision_param '%s' (hint: bfloat16 or "
                           "float32)", pj->source, v);
              ok = FALSE;
            }
        }
      else if (g_str_equal (key, "mixed_precision_reduce"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL;
          if (ok && g_str_equal (v, "bfloat16"))
            p->grad_dtype = PLAN_PREC_BF16;
          else if (ok && g_str_equal (v, "float32"))
            p->grad_dtype = PLAN_PREC_FP32;
          else if (ok)
            {
              g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                           "%s: training.mixed_precision_reduce '%s' (hint: bfloat16 or "
                           "float32)", pj->source, v);
              ok = FALSE;
            }
        }
      else if (g_str_equal (key, "precision"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL && apply_as_flag (pj, "precision", v, error);
        }
      else if (g_str_equal (key, "optimizer_offload"))
        ok = json_get_bool (pj, S, key, n, &p->optimizer_offload, error);
      else if (g_str_equal (key, "gradient_accumulation_steps"))
        ok = json_get_int (pj, S, key, n, 1, &p->grad_accum_given, error);
      /* (tandem wrote them under "moe" before; both are read) */
      else if (g_str_equal (key, "cuda_graph_impl") || g_str_equal (key, "cuda_graph_scope"))
        ok = apply_cuda_graph (pj, S, key, n, error);
      else if (g_str_equal (key, "rope_fusion"))
        {
          gboolean v = TRUE;
          ok = json_get_bool (pj, S, key, n, &v, error);
          p->no_rope_fusion = !v;
        }
      else if (g_str_equal (key, "cross_entropy_fusion_impl"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL && apply_as_flag (pj, "cross-entropy-fusion-impl", v, error);
        }
      else if (g_str_equal (key, "gradient_accumulation_fusion"))
        {
          gboolean v = TRUE;
          ok = json_get_bool (pj, S, key, n, &v, error);
          p->zero3_grad_copy_in = v ? 0 : 1;
        }
      else
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                       "%s: unknown key training.%s (hint: local_batch_size, "
                       "global_batch_size, seq_len, gradient_accumulation_steps, "
                       "mixed_precision_param, mixed_precision_reduce, precision, compile, "
                       "mtp_num_layers, optimizer_offload, cuda_graph_impl, cuda_graph_scope, "
                       "rope_fusion, cross_entropy_fusion_impl, gradient_accumulation_fusion)",
                       pj->source, key);
          return FALSE;
        }
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* "precision": the dtypes as plan_to_json writes them, each read as its flag (--precision,
 * --param-dtype, --grad-dtype, --optimizer-dtype, --fp32-matmul-precision,
 * --fp8-recipe, --no-master-weights), so the spellings and checks are the flags'. */
static gboolean
parse_precision (PlanJson *pj, JsonObject *obj, GError **error)
{
  Plan *p = pj->plan;
  const char *S = "precision";
  static const struct { const char *key, *flag; } keys[] = {
    { "compute", "precision" }, { "param", "param-dtype" }, { "grad", "grad-dtype" },
    { "optimizer", "optimizer-dtype" }, { "fp32_matmul", "fp32-matmul-precision" },
    { "fp8_recipe", "fp8-recipe" },
  };
  /* compute first: --precision sets the parameters' dtype too, which "param" then says */
  JsonNode *compute = json_object_get_member (obj, "compute");
  if (compute != NULL)
    {
      const char *v = json_get_str (pj, S, "compute", compute, error);
      if (v == NULL || !apply_as_flag (pj, "precision", v, error))
        return FALSE;
    }
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *n = json_object_get_member (obj, key);
      if (g_str_equal (key, "compute"))
        continue;
      if (g_str_equal (key, "master_weights"))
        {
          if (!json_get_bool (pj, S, key, n, &p->master_weights, error))
            return FALSE;
          continue;
        }
      const char *flag = NULL;
      for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
        if (g_str_equal (key, keys[i].key))
          flag = keys[i].flag;
      if (flag == NULL)
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                       "%s: unknown key precision.%s (hint: compute, param, grad, optimizer, "
                       "fp32_matmul, fp8_recipe, master_weights)", pj->source, key);
          return FALSE;
        }
      const char *v = json_get_str (pj, S, key, n, error);
      if (v == NULL || !apply_as_flag (pj, flag, v, error))
        return FALSE;
    }
  return TRUE;
}

/* "overlap": --overlap-grad-reduce, --overlap-param-gather, --tp-comm-overlap */
static gboolean
parse_overlap (PlanJson *pj, JsonObject *obj, GError **error)
{
  Plan *p = pj->plan;
  const char *S = "overlap";
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *n = json_object_get_member (obj, key);
      gboolean *to = g_str_equal (key, "grad_reduce") ? &p->overlap_grad_reduce
                     : g_str_equal (key, "param_gather") ? &p->overlap_param_gather
                     : g_str_equal (key, "tp_comm") ? &p->tp_comm_overlap : NULL;
      if (to == NULL)
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                       "%s: unknown key overlap.%s (hint: grad_reduce, param_gather, "
                       "tp_comm)", pj->source, key);
          return FALSE;
        }
      if (!json_get_bool (pj, S, key, n, to, error))
        return FALSE;
    }
  /* async TP is the stack's TP-comm overlap (plan-args.c --async-tp) */
  p->tp_comm_overlap = p->tp_comm_overlap || p->async_tp;
  return TRUE;
}

static gboolean
parse_checkpoint (PlanJson *pj, JsonObject *obj, GError **error)
{
  Plan *p = pj->plan;
  const char *S = "activation_checkpoint";
  gboolean op_level = FALSE;
  /* mode and method first, then the keys that refine them: an option before its mode
   * was refused with a hint about flags nobody typed ("--recompute-method block applies
   * to --recompute-granularity full only") */
  g_autoptr (GList) members = json_object_get_members (obj);
  GList *firsts = NULL, *rest = NULL;
  for (GList *l = members; l; l = l->next)
    {
      if (g_str_equal (l->data, "mode") || g_str_equal (l->data, "method"))
        firsts = g_list_append (firsts, l->data);
      else
        rest = g_list_append (rest, l->data);
    }
  g_list_free (members);
  members = g_list_concat (firsts, rest);
  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *n = json_object_get_member (obj, key);
      gboolean ok;
      if (g_str_equal (key, "mode"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL && apply_as_flag (pj, "recompute-granularity", v, error);
        }
      else if (g_str_equal (key, "method"))
        {
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL && apply_as_flag (pj, "recompute-method", v, error);
        }
      else if (g_str_equal (key, "num_layers"))
        ok = json_get_int (pj, S, key, n, 0, &p->recompute_num_layers, error);
      else if (g_str_equal (key, "cpu_offloading_num_layers"))
        ok = json_get_int (pj, S, key, n, 0, &p->cpu_offload_layers, error);
      else if (g_str_equal (key, "selective_ac_option"))
        {
          /* "op" is op-level selective AC (with mode "selective": selective-op, plan.h);
           * an integer string N checkpoints every N-th layer fully (torchtitan). */
          const char *v = json_get_str (pj, S, key, n, error);
          ok = v != NULL;
          if (ok && g_str_equal (v, "op"))
            op_level = TRUE;
          if (ok && !g_str_equal (v, "op"))
            {
              char *end;
              /* parsed in 64 bits, then bounded: a cast to int wrapped 4294967297 to 1 */
              gint64 every = g_ascii_strtoll (v, &end, 10);
              if (end == v || *end != '\0' || every < 1 || every > G_MAXINT)
                {
                  g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                               "%s: activation_checkpoint.selective_ac_option '%s' "
                               "(hint: \"op\" or a layer interval such as \"2\")",
                               pj->source, v);
                  ok = FALSE;
                }
              else
                {
                  /* torchtitan wraps a block when its running count is a multiple of
                   * N: the others are not checkpointed (not Megatron's uniform groups
                   * of N, which recompute every layer) */
                  p->recompute = PLAN_RECOMPUTE_FULL;
                  p->recompute_method = PLAN_RECOMPUTE_BLOCK;
                  p->recompute_every = (int) every;
                }
            }
        }
      else
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                       "%s: unknown key activation_checkpoint.%s (hint: mode, method, "
                       "num_layers, selective_ac_option, cpu_offloading_num_layers)",
                       pj->source, key);
          return FALSE;
        }
      if (!ok)
        return FALSE;
    }
  if (op_level && p->recompute == PLAN_RECOMPUTE_SELECTIVE)
    p->recompute = PLAN_RECOMPUTE_SELECTIVE_OP;
  return TRUE;
}

gboolean
plan_load_json_data (Plan *plan, const char *text, gssize len, const char *source,
                     GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  GError *local = NULL;
  if (!util_json_check_depth (text, len, 0, source, &local))
    {
      g_set_error_literal (error, PLAN_ERROR, PLAN_ERROR_PARSE, local->message);
      g_error_free (local);
      return FALSE;
    }
  if (!json_parser_load_from_data (parser, text, len, &local))
    {
      /* json-glib says "<data>:LINE:COL: Parse error: ..."; the file goes in the place of
       * <data>, as a model or cluster file's error reads ("x.json:5:20: malformed JSON:
       * ..."; it was "x.json: malformed JSON: <data>:5:20: ...") */
      const char *msg = local->message;
      const char *at = g_str_has_prefix (msg, "<data>:") ? strstr (msg, ": ") : NULL;
      if (at != NULL)
        {
          const char *what = at + 2;
          if (g_str_has_prefix (what, "Parse error: "))
            what += strlen ("Parse error: ");
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s:%.*s: malformed JSON: %s",
                       source, (int) (at - msg - strlen ("<data>:")), msg + strlen ("<data>:"),
                       what);
        }
      else
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: malformed JSON: %s", source,
                     msg);
      g_error_free (local);
      return FALSE;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                   "%s: a plan file is a JSON object with sections parallelism, training, "
                   "activation_checkpoint", source);
      return FALSE;
    }
  PlanJson pj = { .plan = plan, .source = source, .shard_degree = 0, .replicate_degree = 0 };
  gboolean written = FALSE;      /* the plan object tandem writes (its "summary") */
  JsonObject *obj = json_node_get_object (root);
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *n = json_object_get_member (obj, key);
      if (key[0] == '_')        /* comments */
        continue;
      /* the plan object tandem writes (plan_to_json: plan show --json, predict --json)
       * reads back as the same plan: its "summary" line is derived from the rest, and its
       * top-level optimizer_offload and bucket_bytes are the flags' */
      if (g_str_equal (key, "summary"))
        {
          if (json_get_str (&pj, "plan", key, n, error) == NULL)
            return FALSE;
          written = TRUE;
          continue;
        }
      if (g_str_equal (key, "optimizer_offload"))
        {
          if (!json_get_bool (&pj, "plan", key, n, &plan->optimizer_offload, error))
            return FALSE;
          continue;
        }
      if (g_str_equal (key, "ddp_bucket_size"))
        {
          /* elements of one DP gradient bucket, as --ddp-bucket-size */
          if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
              || json_node_get_int (n) < 1 || json_node_get_int (n) > ((gint64) 1 << 53)
              || json_object_has_member (obj, "bucket_bytes"))
            {
              g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                           "%s: ddp_bucket_size must be a whole number of elements between 1 "
                           "and 2^53, and not beside bucket_bytes (hint: one of the two)",
                           source);
              return FALSE;
            }
          plan->bucket_elements = (double) json_node_get_int (n);
          continue;
        }
      if (g_str_equal (key, "bucket_bytes"))
        {
          /* bytes of one DP gradient bucket (--ddp-bucket-size counts elements) */
          if (!JSON_NODE_HOLDS_VALUE (n)
              || (json_node_get_value_type (n) != G_TYPE_INT64
                  && json_node_get_value_type (n) != G_TYPE_DOUBLE)
              || !(json_node_get_double (n) >= 1 && json_node_get_double (n) <= 0x1p53)
              || json_node_get_double (n) != floor (json_node_get_double (n)))
            {
              g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                           "%s: bucket_bytes must be a whole number of bytes between 1 and "
                           "2^53", source);
              return FALSE;
            }
          plan->bucket_bytes = json_node_get_double (n);
          plan->bucket_elements = 0;   /* bytes as given, whatever the gradient dtype */
          continue;
        }
      gboolean known = g_str_equal (key, "parallelism") || g_str_equal (key, "training")
                       || g_str_equal (key, "activation_checkpoint") || g_str_equal (key, "moe")
                       || g_str_equal (key, "precision") || g_str_equal (key, "overlap");
      if (!known)
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                       "%s: unknown section '%s' (hint: parallelism, training, "
                       "activation_checkpoint, moe, precision, overlap)", source, key);
          return FALSE;
        }
      if (!JSON_NODE_HOLDS_OBJECT (n))
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: '%s' must be an object",
                       source, key);
          return FALSE;
        }
      JsonObject *sec = json_node_get_object (n);
      gboolean ok = g_str_equal (key, "parallelism") ? parse_parallelism (&pj, sec, error)
                    : g_str_equal (key, "training") ? parse_training (&pj, sec, error)
                    : g_str_equal (key, "moe") ? parse_moe (&pj, sec, error)
                    : g_str_equal (key, "precision") ? parse_precision (&pj, sec, error)
                    : g_str_equal (key, "overlap") ? parse_overlap (&pj, sec, error)
                    : parse_checkpoint (&pj, sec, error);
      if (!ok)
        return FALSE;
    }

  /* The plan object tandem writes carries its micro-batch (pipeline_parallel_microbatch_size)
   * and schedules a step beside local_batch_size, which it derived from them: read as
   * those, a flag after --plan that changes the degrees or the batch gives the plan the same
   * flags alone give (local_batch_size 1 from a pp 1 plan, with --pp 2 after it, ran 4
   * schedules of one micro-batch where the flags run one of 4) */
  /* the defaults the written plan holds (plan.h written_defaults) */
  if (written)
    {
      guint w = 0;
      if (plan->etp > 0 && plan->etp == plan->tp)
        w |= PLAN_WRITTEN_ETP;
      if (plan->vpp_group > 0 && plan->vpp_group == plan->pp)
        w |= PLAN_WRITTEN_VPP_GROUP;
      if (plan->vpp > 1 && plan->schedule == PLAN_SCHED_INTERLEAVED_1F1B)
        w |= PLAN_WRITTEN_SCHEDULE;
      if (plan->recompute == PLAN_RECOMPUTE_FULL && plan->recompute_num_layers == 1)
        w |= PLAN_WRITTEN_RECOMPUTE_LAYERS;
      plan->written_defaults = w;
    }
  if (written && plan->local_batch > 0)
    {
      if (!pj.mbs_named)
        plan->micro_batch = plan->local_batch;
      plan->local_batch = 0;
      plan->pps_file = plan->pp_schedules > 0;
    }
  /* TorchTitan asserts dp_shard of -1 or at least 1, and that the degrees multiply to
   * the world (ParallelDims): a shard degree of 0 is refused, and a count is held to
   * world / (tp x pp x cp) at resolve, or gives the world where no --gpus does */
  if (pj.shard_degree_given && pj.shard_degree == 0)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: parallelism.data_parallel_shard_"
                   "degree 0 (hint: -1 for FSDP over the ranks left, or a count of at least "
                   "1)", source);
      return FALSE;
    }
  if (!written && pj.shard_degree >= 1)
    plan->dp_titan = pj.shard_degree * MAX (pj.replicate_degree, 1);
  /* a replicate degree without a shard degree is DDP over its ranks (below): they are
   * all of dp, as TorchTitan asserts. {"tensor_parallel_degree": 4,
   * "data_parallel_replicate_degree": 3} on 16 GPUs was read as DDP over 4. (A named
   * HSDP takes its shard group from the sharding, and the replicate degree is checked
   * against it at resolve.) */
  else if (!written && !pj.shard_degree_given && pj.replicate_degree >= 1
           && !(pj.sharding_named && plan->sharding == PLAN_SHARD_HSDP))
    {
      plan->dp_titan = pj.replicate_degree;
      plan->dp_titan_replicate = TRUE;
    }
  /* TorchTitan's data-parallel degrees to a sharding level: replicate > 1 with shard > 1
   * is HSDP; shard > 1 (or -1) alone is FSDP, whose reshard_after_forward "never" keeps
   * the parameters gathered (ZeRO-2-like); replicate alone is DDP. */
  if (!pj.sharding_named)
    {
      gboolean never = pj.reshard && g_str_equal (pj.reshard, "never");
      if (pj.replicate_degree > 1 && (pj.shard_degree > 1 || pj.shard_degree == -1))
        {
          plan->sharding = PLAN_SHARD_HSDP;
          plan->dp_replicate = pj.replicate_degree;
          plan->hsdp_shard_size = pj.shard_degree > 1 ? pj.shard_degree : 0;
        }
      else if (pj.shard_degree > 1 || pj.shard_degree == -1)
        plan->sharding = never ? PLAN_SHARD_ZERO2 : PLAN_SHARD_ZERO3;
      else if (pj.replicate_degree > 1)
        plan->sharding = PLAN_SHARD_NONE;
    }
  /* "sharding": "hsdp" named with its degrees, as tandem writes an HSDP plan: the shard
   * group's size is the shard degree (hsdp:K) */
  else if (plan->sharding == PLAN_SHARD_HSDP && plan->hsdp_shard_size == 0)
    {
      /* 1 is a group of one (tandem writes it for --data-parallel-replicate-degree dp) */
      if (pj.shard_degree < 1)
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE,
                       "%s: parallelism.sharding 'hsdp' needs its shard-group size (hint: "
                       "\"sharding\": \"hsdp:K\" or parallelism.data_parallel_shard_degree K, "
                       "K dividing the data-parallel degree)", source);
          return FALSE;
        }
      plan->hsdp_shard_size = pj.shard_degree;
    }
  return TRUE;
}

gboolean
plan_load_json (Plan *plan, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  GError *local = NULL;
  if (!util_input_read_file (path, UTIL_INPUT_MAX_DOC_BYTES, &text, &len, &local))
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE, "cannot read plan file: %s",
                   local->message);
      g_error_free (local);
      return FALSE;
    }
  return plan_load_json_data (plan, text, (gssize) len, path, error);
}
