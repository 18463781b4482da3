/* plan/plan.c - Plan defaults, names, layer split and shard degrees. */
#include "plan/plan.h"

#include <json-glib/json-glib.h>

G_DEFINE_QUARK (plan-error-quark, plan_error)

void
plan_init_defaults (Plan *plan)
{
  memset (plan, 0, sizeof *plan);
  plan->tp = plan->pp = plan->cp = plan->ep = 1;
  plan->dp = 0;                         /* derived */
  plan->vpp = 1;
  plan->first_stage_layers = plan->last_stage_layers = -1;
  plan->first_chunk_layers = plan->last_chunk_layers = -1;
  plan->cp_comm = PLAN_CP_P2P;          /* Megatron's default --cp-comm-type */
  plan->micro_batch = 1;                /* Megatron --micro-batch-size default */
  plan->schedule = PLAN_SCHED_1F1B;
  plan->sharding = PLAN_SHARD_NONE;
  plan->hsdp_shard_size = 0;
  plan->recompute = PLAN_RECOMPUTE_NONE;
  plan->recompute_method = PLAN_RECOMPUTE_UNIFORM;
  /* Mixed precision as Megatron runs it with --bf16: bf16 weights and activations, fp32
   * gradient accumulation buffers (accumulate_allreduce_grads_in_fp32 is the default
   * with the distributed optimizer), fp32 Adam moments and master weights. */
  plan->compute_dtype = PLAN_PREC_BF16;
  plan->param_dtype = PLAN_PREC_BF16;
  plan->grad_dtype = PLAN_PREC_FP32;
  plan->optim_dtype = PLAN_PREC_FP32;
  plan->master_weights = TRUE;
  /* Megatron DDP bucket: max(40M, 1M x dp) elements; 40M fp32 elements = 160 MB
   * (megatron/core/distributed/distributed_data_parallel.py). We keep the 40M floor. */
  plan->bucket_elements = 40e6;
  plan->bucket_bytes = 40e6 * 4;
  plan->fp8_recipe = -1;              /* the stack's */
  plan->dropout = -1;                 /* the model's */
  plan->zero3_prefetch_params = -1;   /* the stack's */
  plan->zero3_reuse_params = -1;
  plan->zero3_per_tensor = -1;
  plan->zero3_gather_ahead = -1;
  plan->zero3_rank_copies = -1;
  plan->zero2_grad_sync = -1;
  plan->tp_all_gather_fp8 = -1;
  plan->fp8_param_gather = -1;
  plan->tp_grad_rs_whole = -1;
  plan->tp_seq_copies = -1;
  plan->pp_grad_after_stage = -1;
  plan->pp_lockstep = -1;
  plan->pp_p2p_sync = -1;
  plan->pp_scatter_gather = -1;
  plan->grad_accum_upcast = -1;
  plan->zero3_copy_in_out = -1;
  plan->zero3_grad_copy_in = -1;
  plan->zero2_reduce_passes = -1;
  plan->fsdp_fp32_shards = -1;
  plan->cp_ring_merge = -1;
  plan->cp_kv_repeated = -1;
  plan->loss_eager = -1;
  plan->pp_free_stage_input = -1;
  plan->remat_named = -1;
  plan->pp_keep_stage_output = -1;
  plan->swiglu_eager_saves = -1;
  plan->fp8_moe_act_input = -1;
  plan->fp8_attn_out_e5m6 = -1;
  plan->fp8_attention = -1;
  plan->fp8_moe_dispatch = -1;
  plan->rank_order = g_strdup ("tp-cp-ep-dp-pp");
  /* MoE: Megatron-Core's defaults (megatron/training/arguments.py): alltoall dispatcher,
   * dropless (capacity factor None), no grouped GEMM, no shared-expert overlap; the
   * expert TP size follows --tensor-model-parallel-size. */
  plan->moe_dispatcher = PLAN_MOE_ALLTOALL;
  plan->moe_flex_backend = PLAN_MOE_FLEX_DEEPEP;
}

static const struct { const char *name; guint bit; } cg_scopes[] = {
  { "attn", PLAN_CG_ATTN }, { "mlp", PLAN_CG_MLP }, { "moe", PLAN_CG_MOE },
  { "moe_router", PLAN_CG_MOE_ROUTER }, { "moe_preprocess", PLAN_CG_MOE_PREPROCESS },
  { "full_iteration", PLAN_CG_FULL_ITERATION } };

gboolean
plan_cuda_graph_scope_parse (const char *list, Plan *plan, GError **error)
{
  g_auto (GStrv) parts = g_strsplit_set (list, ", ", -1);
  guint bits = 0;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (parts[i][0] == '\0')
        continue;
      guint j = 0;
      while (j < G_N_ELEMENTS (cg_scopes) && !g_str_equal (parts[i], cg_scopes[j].name))
        j++;
      if (j == G_N_ELEMENTS (cg_scopes))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "unknown --cuda-graph-scope '%s' (hint: attn, mlp, moe, moe_router, "
                       "moe_preprocess or full_iteration)", parts[i]);
          return FALSE;
        }
      bits |= cg_scopes[j].bit;
    }
  if (bits == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--cuda-graph-scope '%s' names no scope (hint: e.g. attn,moe_router,"
                   "moe_preprocess)", list);
      return FALSE;
    }
  plan->cuda_graph_scope = bits;
  return TRUE;
}

gboolean
plan_cuda_graph_moe_router (const Plan *plan)
{
  return plan->cuda_graph_impl == PLAN_CG_IMPL_TRANSFORMER_ENGINE
         && (plan->cuda_graph_scope & PLAN_CG_MOE_ROUTER) != 0 && !plan_cuda_graph_moe (plan);
}

const char *
plan_cuda_graph_impl_name (PlanCudaGraphImpl impl)
{
  static const char *const names[] = { "none", "local", "transformer_engine" };
  return (guint) impl < G_N_ELEMENTS (names) ? names[impl] : "?";
}

char *
plan_cuda_graph_scope_string (guint scope)
{
  GString *s = g_string_new (NULL);
  for (guint j = 0; j < G_N_ELEMENTS (cg_scopes); j++)
    if (scope & cg_scopes[j].bit)
      g_string_append_printf (s, "%s%s", s->len > 0 ? "," : "", cg_scopes[j].name);
  return g_string_free (s, FALSE);
}

gboolean
plan_cuda_graph_moe (const Plan *plan)
{
  return plan->cuda_graph_impl != PLAN_CG_IMPL_NONE
         && (plan->cuda_graph_scope == 0
             || (plan->cuda_graph_scope & (PLAN_CG_MOE | PLAN_CG_FULL_ITERATION)) != 0);
}

const char *
plan_moe_dispatcher_name (PlanMoeDispatcher d)
{
  static const char *const names[] = { "alltoall", "allgather", "flex" };
  return (guint) d < G_N_ELEMENTS (names) ? names[d] : "?";
}

gboolean
plan_moe_padded (const Plan *plan)
{
  return plan->moe_pad_to_capacity && plan->moe_capacity_factor > 0;
}

double
plan_moe_imbalance_max (int ep, int experts, int top_k)
{
  if (ep <= 1 || experts <= 0 || top_k <= 0)
    return 1.0;
  /* a token sends at most min(k, E / ep) of its k copies to one rank: the busiest rank
   * gets at most T min(k, E / ep) of the mean's T k / ep */
  return (double) ep * MIN (top_k, experts / ep) / top_k;
}

void
plan_moe (const Plan *plan, const ModelSpec *model, PlanMoe *out)
{
  memset (out, 0, sizeof *out);
  /* the model's MoE shape (models/model.h), then the plan's overrides; a dense model
   * turned MoE by --num-experts keeps its MLP as each expert, as Megatron's
   * --moe-ffn-hidden-size defaults to --ffn-hidden-size */
  gboolean model_moe = model_spec_is_moe (model);
  out->experts = plan->num_experts > 0 ? plan->num_experts : (int) model->n_experts;
  if (out->experts <= 0)
    {
      out->experts = 0;
      return;
    }
  out->expert_ffn = model_moe ? model->moe_ffn : model->ffn_hidden;
  out->top_k = plan->moe_topk > 0 ? plan->moe_topk
               : model_moe ? (int) model->moe_top_k : PLAN_MOE_TOPK_DEFAULT;
  out->shared_ffn = model_moe ? model->shared_expert_ffn : 0;
  out->first_dense = model_moe ? (int) model->first_dense_layers : 0;
  out->layer_step = model_moe ? (int) MAX (model->moe_layer_step, 1) : 1;
  double imb = plan->moe_imbalance > 0 ? plan->moe_imbalance : PLAN_MOE_IMBALANCE_DEFAULT;
  /* no EP rank can receive more than all of its experts' possible copies: the default
   * 1.3 was charged at ep 1 too, where the one rank is the mean (plan-validate.c refuses
   * a --moe-imbalance above the bound) */
  imb = MIN (imb, plan_moe_imbalance_max (plan->ep, out->experts, out->top_k));
  /* a capacity factor drops what exceeds cf x the mean (Megatron-Core token drop); padded
   * to capacity (drop_and_pad) every expert runs exactly cf x the mean */
  if (plan->moe_capacity_factor > 0)
    imb = plan_moe_padded (plan) ? plan->moe_capacity_factor
                                 : MIN (imb, plan->moe_capacity_factor);
  out->imbalance = MAX (imb, 1.0);
}

gboolean
plan_model_apply_moe (const Plan *plan, ModelSpec **model, GError **error)
{
  ModelSpec *m = *model;
  const gboolean moe = model_spec_is_moe (m);
  if (plan->num_experts <= 0 && (plan->moe_topk <= 0 || !moe))
    return TRUE;
  const guint64 e = plan->num_experts > 0 ? (guint64) plan->num_experts : m->n_experts;
  const guint64 k = plan->moe_topk > 0 ? (guint64) plan->moe_topk
                    : moe ? m->moe_top_k : PLAN_MOE_TOPK_DEFAULT;
  if (moe && e == m->n_experts && k == m->moe_top_k)
    return TRUE;
  ModelSpec *c = model_spec_copy (m);
  c->n_experts = e;
  c->moe_top_k = k;
  if (!moe)
    {
      c->moe_ffn = c->ffn_hidden;
      c->n_shared_experts = 0;
      c->shared_expert_ffn = 0;
      c->first_dense_layers = 0;
      c->moe_layer_step = 1;
      c->router_score = MODEL_ROUTER_SOFTMAX;
      c->router_norm_topk = TRUE;
    }
  g_autofree char *problem = model_moe_problem (c);
  if (problem != NULL)
    {
      /* the hint for what failed: more experts only widens experts x width (it was the
       * top-k hint whatever the problem) */
      g_autofree char *hint = NULL;
      if (c->n_experts > MODEL_MAX_EXPERTS
          || (c->moe_ffn > 0 && c->n_experts * c->moe_ffn > MODEL_MAX_EXPERT_WIDTH))
        hint = g_strdup_printf ("at most %" G_GUINT64_FORMAT " --num-experts of this "
                                "width", MIN (MODEL_MAX_EXPERTS, MODEL_MAX_EXPERT_WIDTH
                                                                 / MAX (c->moe_ffn, 1)));
      else if (c->moe_top_k == 0 || c->moe_top_k > c->n_experts)
        hint = g_strdup ("--moe-router-topk at most the experts, or more --num-experts");
      else
        hint = g_strdup ("check the model's MoE sizes");
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID, "%s with --num-experts %" G_GUINT64_FORMAT
                   " and --moe-router-topk %" G_GUINT64_FORMAT "%s: %s (hint: %s)", m->name, e,
                   k, plan->moe_topk > 0 ? "" : " (the default)", problem, hint);
      model_spec_unref (c);
      return FALSE;
    }
  model_spec_unref (m);
  *model = c;
  return TRUE;
}

static double
mlp_params (const ModelSpec *m, guint64 f)
{
  double h = (double) m->hidden, F = (double) f;
  if (m->mlp == MODEL_MLP_SWIGLU)
    return 3 * h * F + (m->mlp_bias ? 2 * F + h : 0);
  return 2 * h * F + (m->mlp_bias ? F + h : 0);
}

/* For a MoE model the counts are the model's (models/model-params.c: biases, the router's
 * balancing bias and the shared expert's gate included); a dense model turned MoE by
 * --num-experts gets its own MLP per expert and an h x E router. */
double
plan_moe_expert_params (const ModelSpec *model, const PlanMoe *moe)
{
  if (moe->experts <= 0)
    return 0;
  if (model_spec_is_moe (model))
    {
      ModelParams mp;
      model_spec_params (model, &mp);
      return (double) mp.expert;
    }
  return mlp_params (model, moe->expert_ffn);
}

double
plan_moe_router_params (const ModelSpec *model, const PlanMoe *moe)
{
  if (model_spec_is_moe (model) && model->n_experts > 0)
    {
      ModelParams mp;
      model_spec_params (model, &mp);
      return (double) mp.router_per_layer / (double) model->n_experts * moe->experts;
    }
  return (double) moe->experts * (double) model->hidden;
}

double
plan_moe_shared_params (const ModelSpec *model, const PlanMoe *moe)
{
  if (model_spec_is_moe (model))
    {
      ModelParams mp;
      model_spec_params (model, &mp);
      return (double) mp.shared_per_layer;
    }
  return 0;
}

double
plan_layer_mixer_params (const ModelSpec *model, int layer)
{
  ModelParams mp;
  model_spec_params (model, &mp);
  if (model_spec_is_mamba (model))
    {
      /* one part per layer: a Mamba layer's mixer, an attention layer's attention, an MLP
       * layer none */
      if (layer < 0)
        return ((double) mp.n_linear_layers * (double) mp.linear_attention_per_layer
                + (double) mp.n_attn_layers * (double) mp.attention_per_layer)
               / (double) model->n_layers;
      const char k = model_spec_layer_kind (model, (guint64) layer);
      return k == 'M' ? (double) mp.linear_attention_per_layer
             : k == '*' ? (double) mp.attention_per_layer : 0.0;
    }
  if (!model_spec_is_gdn (model))
    return (double) mp.attention_per_layer;
  if (layer < 0)
    return ((double) (model->n_layers - mp.n_linear_layers) * (double) mp.attention_per_layer
            + (double) mp.n_linear_layers * (double) mp.linear_attention_per_layer)
           / (double) model->n_layers;
  return model_spec_layer_is_linear (model, (guint64) layer)
           ? (double) mp.linear_attention_per_layer : (double) mp.attention_per_layer;
}

double
plan_mixer_tp_replicated (const ModelSpec *model)
{
  /* Multi-head latent attention's down projections h -> q_lora and h -> kv_lora + rope
   * and the latents' RMSNorms are whole on every TP rank: Megatron-Core's MLA layer spec
   * builds linear_q_down_proj and linear_kv_down_proj with backend.linear() (Transformer
   * Engine's Linear, parallel_mode "duplicated"), and the norms go with the column-split
   * up projections (their LayerNormColumnParallelLinear keeps the norm whole). Counted
   * split by TP before: DeepSeek-V3 at TP 8 held 808 M elements a GPU fewer (61 layers x
   * 7/8 x 15,140,864). */
  if (!model_spec_is_mla (model))
    return 0;
  const double h = (double) model->hidden, rq = (double) model->q_lora_rank;
  const double rkv = (double) model->kv_lora_rank, rope = (double) model->qk_rope_head_dim;
  return (rq > 0 ? h * rq + rq : 0) + h * (rkv + rope) + rkv;
}

void
plan_layer_params_local (const Plan *plan, const ModelSpec *model, const PlanMoe *moe,
                         int layer, double *dense, double *expert)
{
  ModelParams mp;
  model_spec_params (model, &mp);
  double t = MAX (plan->tp, 1);
  const double repl = plan_mixer_tp_replicated (model);
  double attn = (plan_layer_mixer_params (model, layer) - repl) / t + repl
                + (double) mp.norms_per_layer;
  if (model_spec_is_mamba (model))
    {
      /* a hybrid's layer holds its one part and one norm (mp.norms_per_layer); the MLP
       * only in an MLP layer ('-'; the mean layer: its share of them) */
      const double mlp = layer < 0 ? (double) mp.n_mlp_layers / (double) model->n_layers
                         : model_spec_layer_kind (model, (guint64) layer) == '-' ? 1.0 : 0.0;
      *dense = attn + mlp * mlp_params (model, model->ffn_hidden) / t;
      *expert = 0;
      return;
    }
  if (!plan_moe_layer (moe, layer))
    {
      *dense = attn + mlp_params (model, model->ffn_hidden) / t;
      *expert = 0;
      return;
    }
  /* the router is replicated (Megatron's TopKRouter weight is not TP-split); shared
   * experts are TP-split like a dense MLP; routed experts split over ep (whole experts)
   * and etp */
  int etp = plan->etp > 0 ? plan->etp : plan->tp;
  *dense = attn + plan_moe_router_params (model, moe) + plan_moe_shared_params (model, moe) / t;
  *expert = (double) (moe->experts / MAX (plan->ep, 1)) * plan_moe_expert_params (model, moe)
            / MAX (etp, 1);
}

void
plan_mtp_params_local (const Plan *plan, const ModelSpec *model, const PlanMoe *moe,
                       double *dense, double *expert)
{
  const double h = (double) model->hidden, t = MAX (plan->tp, 1);
  ModelParams mp;
  model_spec_params (model, &mp);
  plan_layer_params_local (plan, model, moe, (int) model->n_layers - 1, dense, expert);
  /* three norms of the model's kind (mp.final_norm: h for RMSNorm, 2h for LayerNorm) */
  *dense += 3 * (double) mp.final_norm + 2 * h * h / t;
}

static const struct { const char *name; guint bit; } recompute_modules[] = {
  { "moe_act", PLAN_MOE_RECOMPUTE_ACT }, { "moe", PLAN_MOE_RECOMPUTE_LAYER },
  { "layernorm", PLAN_MOE_RECOMPUTE_LAYERNORM }, { "mla_up_proj", PLAN_MOE_RECOMPUTE_MLA_UP },
  { "mlp", PLAN_MOE_RECOMPUTE_MLP }, { "shared_experts", PLAN_MOE_RECOMPUTE_SHARED },
};

gboolean
plan_recompute_modules_parse (const char *list, Plan *plan, GError **error)
{
  g_auto (GStrv) names = g_strsplit_set (list != NULL ? list : "", ", ", -1);
  for (guint i = 0; names[i] != NULL; i++)
    {
      const char *n = names[i];
      guint j = 0;
      if (*n == '\0')
        continue;
      if (g_str_equal (n, "core_attn"))
        {
          plan->recompute = PLAN_RECOMPUTE_SELECTIVE;
          continue;
        }
      while (j < G_N_ELEMENTS (recompute_modules) && !g_str_equal (n, recompute_modules[j].name))
        j++;
      if (j == G_N_ELEMENTS (recompute_modules))
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                       "--recompute-modules: '%s' is not a Megatron-Core recompute module "
                       "(hint: core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, "
                       "shared_experts)", n);
          return FALSE;
        }
      plan->moe_recompute |= recompute_modules[j].bit;
    }
  return TRUE;
}

char *
plan_recompute_modules_string (const Plan *plan)
{
  GString *s = g_string_new (NULL);
  for (guint j = 0; j < G_N_ELEMENTS (recompute_modules); j++)
    if (plan->moe_recompute & recompute_modules[j].bit)
      g_string_append_printf (s, "%s%s", s->len > 0 ? "," : "", recompute_modules[j].name);
  return g_string_free (s, FALSE);
}

gboolean
plan_moe_layer (const PlanMoe *moe, int layer)
{
  /* models/model.h: after the leading dense layers, layer i is MoE when
   * (i - first_dense + 1) % step == 0 */
  return moe->experts > 0 && layer >= moe->first_dense
         && (layer - moe->first_dense + 1) % MAX (moe->layer_step, 1) == 0;
}

void
plan_clear (Plan *plan)
{
  if (plan == NULL)
    return;
  g_clear_pointer (&plan->rank_order, g_free);
}

double
plan_bucket_bytes (const Plan *plan)
{
  return plan->bucket_elements > 0
         ? plan->bucket_elements * plan_precision_bytes (plan->grad_dtype) : plan->bucket_bytes;
}

void
plan_copy (Plan *dst, const Plan *src)
{
  *dst = *src;
  dst->rank_order = g_strdup (src->rank_order);
}

const char *
plan_schedule_name (PlanSchedule s)
{
  switch (s)
    {
    case PLAN_SCHED_GPIPE: return "GPipe";
    case PLAN_SCHED_1F1B: return "1F1B";
    case PLAN_SCHED_INTERLEAVED_1F1B: return "Interleaved1F1B";
    case PLAN_SCHED_DUALPIPE: return "DualPipe";
    default: return "?";
    }
}

const char *
plan_sharding_name (PlanSharding s)
{
  static const char *const names[] = { "none", "zero1", "zero2", "zero3", "hsdp" };
  return (guint) s < G_N_ELEMENTS (names) ? names[s] : "?";
}

const char *
plan_cp_comm_name (PlanCpComm c)
{
  static const char *const names[] = { "p2p", "all_gather", "a2a" };
  return (guint) c < G_N_ELEMENTS (names) ? names[c] : "?";
}

const char *
plan_attn_backend_name (PlanAttnBackend a)
{
  static const char *const names[] = { "flash", "unfused" };
  return (guint) a < G_N_ELEMENTS (names) ? names[a] : "?";
}

const char *
plan_matmul_precision_name (PlanMatmulPrecision m)
{
  static const char *const names[] = { "highest", "high", "medium" };
  return (guint) m < G_N_ELEMENTS (names) ? names[m] : "?";
}

gboolean
plan_matmul_precision_parse (const char *name, PlanMatmulPrecision *out)
{
  for (int i = PLAN_MATMUL_HIGHEST; i <= PLAN_MATMUL_MEDIUM; i++)
    if (g_ascii_strcasecmp (name, plan_matmul_precision_name ((PlanMatmulPrecision) i)) == 0)
      {
        *out = (PlanMatmulPrecision) i;
        return TRUE;
      }
  return FALSE;
}

const char *
plan_recompute_name (PlanRecompute r)
{
  static const char *const names[] = { "none", "selective", "full", "selective-op" };
  return (guint) r < G_N_ELEMENTS (names) ? names[r] : "?";
}

const char *
plan_precision_name (PlanPrecision p)
{
  static const char *const names[] = { "fp32", "bf16", "fp16", "fp8", "fp4" };
  return (guint) p < G_N_ELEMENTS (names) ? names[p] : "?";
}

/* Megatron-LM's --fp8-recipe names (megatron/training/arguments.py: tensorwise, delayed,
 * mxfp8, blockwise) and torchao's rowwise (Float8LinearRecipeName.ROWWISE) for the recipes
 * the cost model tells apart (frameworks/stack.h); the Megatron-Bridge recipe names
 * (fp8cs, fp8mx, fp8sc: its performance scripts' compute_dtype) and the spellings of the
 * published rows ("FP8-CS", "current", "FP8-MX", "FP8-SC") read the same. */
const char *
plan_fp8_recipe_name (int recipe)
{
  switch (recipe)
    {
    case FW_SCALING_DELAYED: return "delayed";
    case FW_SCALING_CURRENT: return "tensorwise";
    case FW_SCALING_ROWWISE: return "rowwise";
    case FW_SCALING_BLOCK: return "mxfp8";
    case FW_SCALING_BLOCKWISE: return "blockwise";
    default: return "stack";
    }
}

gboolean
plan_fp8_recipe_parse (const char *text, int *out)
{
  g_return_val_if_fail (text != NULL && out != NULL, FALSE);
  static const struct { const char *name; int recipe; } names[] = {
    { "delayed", FW_SCALING_DELAYED },
    { "tensorwise", FW_SCALING_CURRENT }, { "current", FW_SCALING_CURRENT },
    { "fp8-cs", FW_SCALING_CURRENT }, { "fp8cs", FW_SCALING_CURRENT },
    { "mxfp8", FW_SCALING_BLOCK }, { "fp8-mx", FW_SCALING_BLOCK }, { "fp8mx", FW_SCALING_BLOCK },
    { "blockwise", FW_SCALING_BLOCKWISE }, { "fp8-sc", FW_SCALING_BLOCKWISE },
    { "fp8sc", FW_SCALING_BLOCKWISE },
    { "rowwise", FW_SCALING_ROWWISE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (text, names[i].name) == 0)
      {
        *out = names[i].recipe;
        return TRUE;
      }
  return FALSE;
}

guint
plan_precision_bytes (PlanPrecision p)
{
  static const guint bytes[] = { 4, 2, 2, 1, 1 };
  return (guint) p < G_N_ELEMENTS (bytes) ? bytes[p] : 4;
}

/* The group over which ZeRO/FSDP shards: DP x CP, since CP ranks hold the same weights
 * and Megatron reduces gradients over the combined data-and-context group. HSDP shards
 * over K DP ranks (x CP) and replicates across the rest. */
static int
plan_shard_group (const Plan *plan)
{
  int dp = MAX (plan->dp, 1);
  if (plan->sharding == PLAN_SHARD_HSDP)
    return MAX (plan->hsdp_shard_size, 1) * plan->cp;
  return dp * plan->cp;
}

gboolean
plan_fp8_params (const Plan *plan)
{
  g_return_val_if_fail (plan != NULL, FALSE);
  /* Megatron-LM's --fp8-param-gather is Transformer Engine's fp8_model_init: a
   * Float8Tensor per linear weight, quantized with one scale per tensor, so a delayed or
   * current-scaling recipe (an MXFP8 weight needs a rowwise and a columnwise copy, each
   * block-scaled; the stacks that set it for MXFP8 reuse the gradient buffer for the
   * gather, which is not modelled: bf16 here). Under ZeRO-3 / FSDP the gather is the
   * stack's own (fsdp_float8_all_gather). */
  return plan->fp8_param_gather > 0 && plan->compute_dtype == PLAN_PREC_FP8
         && (plan->fp8_recipe < 0 || plan->fp8_recipe == FW_SCALING_DELAYED
             || plan->fp8_recipe == FW_SCALING_CURRENT)
         && (plan->sharding == PLAN_SHARD_NONE || plan->sharding == PLAN_SHARD_ZERO1
             || plan->sharding == PLAN_SHARD_ZERO2);
}

void
plan_fill_fp8_param_gather (Plan *plan, gboolean stack_on, int stack_scaling)
{
  g_return_if_fail (plan != NULL);
  if (plan->fp8_param_gather >= 0 || !stack_on || plan->compute_dtype != PLAN_PREC_FP8)
    return;
  const int recipe = plan->fp8_recipe >= 0 ? plan->fp8_recipe : stack_scaling;
  if (recipe == FW_SCALING_DELAYED || recipe == FW_SCALING_CURRENT)
    plan->fp8_param_gather = 1;
}

int
plan_param_shards (const Plan *plan)
{
  return plan->sharding >= PLAN_SHARD_ZERO3 ? plan_shard_group (plan) : 1;
}

int
plan_grad_shards (const Plan *plan)
{
  return plan->sharding >= PLAN_SHARD_ZERO2 ? plan_shard_group (plan) : 1;
}

int
plan_optim_shards (const Plan *plan)
{
  return plan->sharding >= PLAN_SHARD_ZERO1 ? plan_shard_group (plan) : 1;
}

/* Model chunk c = chunk * pp + stage (Megatron's interleaved numbering). With the stage
 * split (Megatron-Core's --decoder-first/last-pipeline-num-layers, get_num_layers_to_build)
 * the first (last) pipeline stage holds first_stage_layers (last_stage_layers), the
 * middle stages share the rest evenly, and each stage's layers split evenly over its
 * chunks; with the chunk split (first/last_chunk_layers) only the first (last) model
 * chunk is uneven and the other chunks share the rest. plan_resolve has checked that
 * they divide. */
static int
plan_model_chunk_layers (const Plan *plan, const ModelSpec *model, int c)
{
  int n_chunks = plan->pp * plan->vpp;
  if (plan->first_stage_layers >= 0 || plan->last_stage_layers >= 0)
    {
      int v = n_chunks / plan->pp, stage = c % plan->pp;
      int rest = (int) model->n_layers, n_rest = plan->pp;
      if (plan->first_stage_layers >= 0)
        rest -= plan->first_stage_layers, n_rest--;
      if (plan->last_stage_layers >= 0)
        rest -= plan->last_stage_layers, n_rest--;
      int stage_layers = stage == 0 && plan->first_stage_layers >= 0 ? plan->first_stage_layers
                         : stage == plan->pp - 1 && plan->last_stage_layers >= 0
                         ? plan->last_stage_layers
                         : n_rest > 0 ? rest / n_rest : 0;
      return stage_layers / v;
    }
  int rest = (int) model->n_layers;
  int n_rest = n_chunks;
  if (plan->account_embedding || plan->account_loss)
    {
      /* Megatron-Core get_num_layers_to_build: L + 1 (+ 1) slots split evenly over the
       * chunks, then the slot of the embedding (of the loss) taken from the first (last)
       * model chunk */
      int per = (rest + (plan->account_embedding ? 1 : 0) + (plan->account_loss ? 1 : 0))
                / n_chunks;
      return per - (c == 0 && plan->account_embedding ? 1 : 0)
             - (c == n_chunks - 1 && plan->account_loss ? 1 : 0);
    }
  if (plan->first_chunk_layers >= 0)
    {
      if (c == 0)
        return plan->first_chunk_layers;
      rest -= plan->first_chunk_layers;
      n_rest--;
    }
  if (plan->last_chunk_layers >= 0)
    {
      if (c == n_chunks - 1)
        return plan->last_chunk_layers;
      rest -= plan->last_chunk_layers;
      n_rest--;
    }
  return n_rest > 0 ? rest / n_rest : 0;
}

int
plan_chunk_layers (const Plan *plan, const ModelSpec *model, int stage, int chunk)
{
  return plan_model_chunk_layers (plan, model, plan_model_chunk (plan, stage, chunk));
}

int
plan_rank_chunks (const Plan *plan)
{
  return plan->schedule == PLAN_SCHED_DUALPIPE ? 2 : MAX (plan->vpp, 1);
}

gboolean
plan_dualpipe_pp_ok (int pp)
{
  return pp >= 2 && pp % 2 == 0;
}

gboolean
plan_dualpipe_counts_ok (int pp, int microbatches)
{
  return plan_dualpipe_pp_ok (pp) && microbatches >= 2 * pp && microbatches % 2 == 0;
}

int
plan_model_chunk (const Plan *plan, int stage, int chunk)
{
  if (plan->schedule == PLAN_SCHED_DUALPIPE)
    return chunk == 0 ? stage : plan->pp - 1 - stage;
  return chunk * plan->pp + stage;
}

int
plan_model_chunk_stage (const Plan *plan, int model_chunk, int chunk)
{
  if (plan->schedule == PLAN_SCHED_DUALPIPE)
    return chunk == 0 ? model_chunk : plan->pp - 1 - model_chunk;
  return model_chunk % plan->pp;
}

int
plan_chunk_first_layer (const Plan *plan, const ModelSpec *model, int stage, int chunk)
{
  int target = plan_model_chunk (plan, stage, chunk);
  if (target <= 0)
    return 0;
  /* the sum of the model chunks before it: plan_model_chunk_layers gives every chunk
   * but the first and the last the same count, and the last is never before another, so
   * chunk 0 and target - 1 middle ones (a search's memory check asks this for every
   * chunk of every stage: a loop made it quadratic in pp x vpp) */
  if (plan->first_stage_layers >= 0 || plan->last_stage_layers >= 0)
    {
      /* the stage split: chunks c < target on stage 0 (c mod pp = 0) hold the first
       * stage's share, those on stage pp - 1 the last's, the others a middle one */
      int pp = plan->pp;
      int n_first = (target + pp - 1) / pp, n_last = pp > 1 ? target / pp : 0;
      int n_mid = target - n_first - n_last;
      return n_first * plan_model_chunk_layers (plan, model, 0)
             + n_last * (pp > 1 ? plan_model_chunk_layers (plan, model, pp - 1) : 0)
             + (n_mid > 0 ? n_mid * plan_model_chunk_layers (plan, model, 1) : 0);
    }
  int first = plan_model_chunk_layers (plan, model, 0);
  return target == 1 ? first : first + (target - 1) * plan_model_chunk_layers (plan, model, 1);
}

int
plan_stage_layers (const Plan *plan, const ModelSpec *model, int stage)
{
  int n = 0;
  for (int chunk = 0; chunk < plan_rank_chunks (plan); chunk++)
    n += plan_chunk_layers (plan, model, stage, chunk);
  return n;
}

int
plan_vpp_group (const Plan *plan)
{
  return plan->vpp_group > 0 ? plan->vpp_group : MAX (plan->pp, 1);
}

int
plan_pp_schedules (const Plan *plan)
{
  return plan->pp > 1 ? MAX (plan->pp_schedules, 1) : 1;
}

gboolean
plan_moe_a2a_combined_schedule (const Plan *plan)
{
  return plan->pp <= 1 || (plan->schedule == PLAN_SCHED_INTERLEAVED_1F1B && plan->vpp > 1);
}

gboolean
plan_moe_a2a_pairs (const Plan *plan, int m)
{
  /* one micro-batch has no other to pair with: F0, B0 as plain 1F1B (the runner stopped
   * with "backward of MoE layer 1 (micro-batch 0) without its activations") */
  return plan->moe_a2a_overlap && plan_moe_a2a_combined_schedule (plan)
         && (plan->pp <= 1 ? m >= 2 : m >= 2 * plan->pp - 1);
}

int
plan_vpp_group_split (int pp, int m, int n, int *last)
{
  n = MAX (n, 1);
  int full = m / n, r = m % n;
  if (full == 0)
    {
      *last = m;
      return 1;
    }
  if (r == 0)
    {
      *last = n;
      return full;
    }
  if (r < pp)
    {
      *last = n + r;
      return full;
    }
  *last = r;
  return full + 1;
}

int
plan_vpp_warmup_group (int pp, int m, int n)
{
  int last;
  int groups = plan_vpp_group_split (pp, m, n, &last);
  return groups == 1 ? MAX (last, n) : n;
}

int
plan_vpp_unit (int pp, int v, int m, int n, int k, gboolean backward, int *mb)
{
  int last;
  n = MAX (n, 1);
  v = MAX (v, 1);
  int n_groups = plan_vpp_group_split (pp, m, n, &last);
  return plan_vpp_unit_split (v, n, n_groups, last, k, backward, mb);
}

/* "-LABELf.l" for an uneven layer split given on either side (-1: not given, read "x";
 * "-split5.-1" was the unset last stage) */
static void
append_split (GString *s, const char *label, int first, int last)
{
  if (first < 0 && last < 0)
    return;
  g_string_append_printf (s, "-%s", label);
  if (first >= 0)
    g_string_append_printf (s, "%d", first);
  else
    g_string_append_c (s, 'x');
  g_string_append_c (s, '.');
  if (last >= 0)
    g_string_append_printf (s, "%d", last);
  else
    g_string_append_c (s, 'x');
}

/* `order` ("tp-cp-ep-dp-pp") without the axes of degree 1, which lay nothing out */
static char *
rank_order_laid_out (const Plan *plan, const char *order)
{
  g_auto (GStrv) axes = g_strsplit (order, "-", -1);
  GString *out = g_string_new (NULL);
  for (guint i = 0; axes[i] != NULL; i++)
    {
      const char *a = axes[i];
      const int degree = g_str_equal (a, "tp") ? plan->tp : g_str_equal (a, "cp") ? plan->cp
                         : g_str_equal (a, "ep") ? plan->ep : g_str_equal (a, "dp") ? plan->dp
                         : g_str_equal (a, "pp") ? plan->pp : 2;
      if (degree > 1)
        g_string_append_printf (out, "%s%s", out->len ? "-" : "", a);
    }
  return g_string_free (out, FALSE);
}

char *
plan_to_string (const Plan *plan)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "tp%d-cp%d-pp%d-vpp%d", plan->tp, plan->cp, plan->pp, plan->vpp);
  if (plan->vpp > 1 && plan_vpp_group (plan) != plan->pp)
    g_string_append_printf (s, "n%d", plan_vpp_group (plan));   /* micro-batch group */
  if (plan_pp_schedules (plan) > 1)
    g_string_append_printf (s, "-pps%d", plan_pp_schedules (plan));   /* schedules a step */
  /* the embedding / loss taking a layer slot of the split (Megatron's
   * --account-for-embedding/loss-in-pipeline-split) */
  if (plan->account_embedding || plan->account_loss)
    g_string_append_printf (s, "-acct%s%s", plan->account_embedding ? "e" : "",
                            plan->account_loss ? "l" : "");
  g_string_append_printf (s, "-dp%d", plan->dp);
  if (plan->ep > 1 || (plan->etp > 0 && plan->etp != plan->tp))
    g_string_append_printf (s, "-ep%d-etp%d", plan->ep, plan->etp > 0 ? plan->etp : plan->tp);
  if (plan->sharding == PLAN_SHARD_HSDP)
    g_string_append_printf (s, "x%d", plan->hsdp_shard_size);
  g_string_append_printf (s, "-mbs%d-gbs%d-seq%d", plan->micro_batch, plan->global_batch,
                          plan->seq_length);
  if (plan->sequence_parallel)
    g_string_append (s, "-sp");
  if (plan->sharding != PLAN_SHARD_NONE)
    g_string_append_printf (s, "-%s", plan_sharding_name (plan->sharding));
  if (plan->recompute != PLAN_RECOMPUTE_NONE)
    g_string_append_printf (s, "-%s", plan->recompute == PLAN_RECOMPUTE_FULL ? "full"
                                      : plan->recompute == PLAN_RECOMPUTE_SELECTIVE_OP ? "selop"
                                      : "sel");
  /* activations in host memory change the memory a plan needs (plan/memory.c) */
  if (plan->cpu_offload_layers > 0)
    g_string_append_printf (s, "-off%d", plan->cpu_offload_layers);
  /* the MTP modules add work and memory on the last stage (plan.h mtp_num_layers) */
  if (plan->mtp_num_layers > 0)
    g_string_append_printf (s, "-mtp%d", plan->mtp_num_layers);
  /* --recompute-modules moe_act / moe and the 1F1B all-to-all overlap change the step:
   * two stored plans that differ only there must not read the same */
  if (plan->moe_recompute & PLAN_MOE_RECOMPUTE_LAYER)
    g_string_append (s, "-rcmoe");
  else if (plan->moe_recompute & PLAN_MOE_RECOMPUTE_ACT)
    g_string_append (s, "-rcmoeact");
  /* the other --recompute-modules change memory and the step as well */
  if (plan->moe_recompute & PLAN_MOE_RECOMPUTE_LAYERNORM)
    g_string_append (s, "-rcln");
  if (plan->moe_recompute & PLAN_MOE_RECOMPUTE_MLA_UP)
    g_string_append (s, "-rcmla");
  if (plan->moe_recompute & PLAN_MOE_RECOMPUTE_MLP)
    g_string_append (s, "-rcmlp");
  if (plan->moe_recompute & PLAN_MOE_RECOMPUTE_SHARED)
    g_string_append (s, "-rcshared");
  if (plan->moe_a2a_overlap)
    g_string_append (s, "-a2aov");
  /* token drop and pad: every expert at its capacity, no dispatcher host sync */
  if (plan_moe_padded (plan))
    g_string_append_printf (s, "-pad%g", plan->moe_capacity_factor);
  /* a compiled run and async TP change the step: two plans apart only there must not
   * read the same */
  if (plan->compile)
    g_string_append (s, "-compile");
  if (plan->async_tp)
    g_string_append (s, "-asynctp");
  if (plan->fsdp_float8_all_gather && plan->compute_dtype == PLAN_PREC_FP8)
    g_string_append (s, "-fp8ag");
  /* CUDA graphs over the MoE layer remove its host work (plan_cuda_graph_moe) */
  if (plan_cuda_graph_moe (plan))
    g_string_append (s, "-cgmoe");
  else if (plan_cuda_graph_moe_router (plan))
    g_string_append (s, (plan->cuda_graph_scope & PLAN_CG_MOE_PREPROCESS) ? "-cgrouterpre"
                                                                          : "-cgrouter");
  if (plan->compute_dtype == PLAN_PREC_FP8)
    {
      g_string_append (s, "-fp8");
      /* a recipe the plan names moves the step (sim_cost_options_apply_plan) */
      if (plan->fp8_recipe >= 0)
        g_string_append_printf (s, "-%s", plan_fp8_recipe_name (plan->fp8_recipe));
    }
  else if (plan->compute_dtype == PLAN_PREC_FP4)
    g_string_append (s, "-fp4");
  if (plan->attention_backend == PLAN_ATTN_UNFUSED)
    g_string_append (s, "-unfused");
  g_string_append_printf (s, "-%s", plan_schedule_name (plan->schedule));
  /* The options that change the step but no degree, after the schedule as the search's
   * table has always named them (sim/search.c search_plan_legend keeps their legend):
   * the CP exchange, the TP and DP overlaps and a rank order other than Megatron's. Two
   * plans apart only there read the same in predict, runs and the ranking (1.298 and
   * 1.121 s, without and with --tp-comm-overlap, both ...-sp-1F1B) */
  if (plan->cp > 1 && plan->cp_comm == PLAN_CP_ALLGATHER)
    g_string_append (s, "-cpag");
  else if (plan->cp > 1 && plan->cp_comm == PLAN_CP_A2A)
    g_string_append (s, "-cpa2a");
  if (plan->tp_comm_overlap)
    g_string_append (s, "-tpov");
  if (plan->overlap_grad_reduce && plan->overlap_param_gather)
    g_string_append (s, "-dpov");
  else if (plan->overlap_grad_reduce)
    g_string_append (s, "-gradov");
  else if (plan->overlap_param_gather)
    g_string_append (s, "-paramov");
  /* the rank order by the axes that lay anything out (degree above 1): tp-cp-dp-ep-pp is
   * Megatron's order on a dense model and was named -ppdp, as was dp-tp-cp-ep-pp, a
   * third plan (audit of 7 Dec) */
  if (plan->pp > 1 && plan->dp > 1 && plan->rank_order != NULL)
    {
      g_autofree char *order = rank_order_laid_out (plan, plan->rank_order);
      g_autofree char *megatron = rank_order_laid_out (plan, "tp-cp-ep-dp-pp");
      g_autofree char *pp_inner = rank_order_laid_out (plan, "tp-cp-ep-pp-dp");
      if (g_str_equal (order, pp_inner))
        g_string_append (s, "-ppdp");
      else if (!g_str_equal (order, megatron))
        g_string_append_printf (s, "-order_%s", order);
    }
  /* ... and the MoE options and layer splits that move the step (six Mixtral plans of
   * 2.33-3.97 s had one name; the published pairs apart only in routing were taken for
   * one plan measured twice) */
  if (plan->num_experts > 0)
    g_string_append_printf (s, "-e%d", plan->num_experts);
  if (plan->moe_topk > 0)
    g_string_append_printf (s, "-k%d", plan->moe_topk);
  if (plan->moe_dispatcher == PLAN_MOE_ALLGATHER)
    g_string_append (s, "-dispag");
  else if (plan->moe_dispatcher == PLAN_MOE_FLEX)
    g_string_append (s, plan->moe_flex_backend == PLAN_MOE_FLEX_HYBRIDEP ? "-hybridep"
                                                                         : "-deepep");
  if (plan->moe_capacity_factor > 0 && !plan_moe_padded (plan))
    g_string_append_printf (s, "-cf%g", plan->moe_capacity_factor);
  if (plan->moe_imbalance > 0 && plan->moe_imbalance != PLAN_MOE_IMBALANCE_DEFAULT)
    g_string_append_printf (s, "-imb%g", plan->moe_imbalance);
  append_split (s, "split", plan->first_stage_layers, plan->last_stage_layers);
  append_split (s, "chunks", plan->first_chunk_layers, plan->last_chunk_layers);
  return g_string_free (s, FALSE);
}

void
plan_to_json (const Plan *plan, JsonBuilder *b)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "summary");
  g_autofree char *str = plan_to_string (plan);
  json_builder_add_string_value (b, str);

#define SET_INT(name, v) G_STMT_START { json_builder_set_member_name (b, name); \
    json_builder_add_int_value (b, v); } G_STMT_END
#define SET_BOOL(name, v) G_STMT_START { json_builder_set_member_name (b, name); \
    json_builder_add_boolean_value (b, v); } G_STMT_END
#define SET_STR(name, v) G_STMT_START { json_builder_set_member_name (b, name); \
    json_builder_add_string_value (b, v); } G_STMT_END

  json_builder_set_member_name (b, "parallelism");
  json_builder_begin_object (b);
  SET_INT ("world_size", plan->world_size);
  SET_INT ("tensor_parallel_degree", plan->tp);
  SET_INT ("pipeline_parallel_degree", plan->pp);
  SET_INT ("context_parallel_degree", plan->cp);
  SET_INT ("expert_parallel_degree", plan->ep);
  SET_INT ("data_parallel_degree", plan->dp);
  if (plan->num_experts > 0)
    {
      /* where given: unset it follows tp (Megatron's default), also when a flag after the
       * file changes tp */
      if (plan->etp > 0)
        SET_INT ("expert_tensor_parallel_degree", plan->etp);
      SET_INT ("expert_data_parallel_degree", plan->edp);
    }
  if (plan->sharding == PLAN_SHARD_HSDP)
    {
      SET_INT ("data_parallel_shard_degree", plan->hsdp_shard_size);
      SET_INT ("data_parallel_replicate_degree", plan->dp / MAX (plan->hsdp_shard_size, 1));
    }
  SET_INT ("pipeline_parallel_microbatch_size", plan->micro_batch);
  SET_INT ("virtual_stages_per_rank", plan->vpp);
  if (plan->vpp > 1)
    SET_INT ("microbatch_group_size_per_vp_stage", plan_vpp_group (plan));
  if (plan_pp_schedules (plan) > 1)
    SET_INT ("pipeline_schedules_per_step", plan_pp_schedules (plan));
  /* an even split leaves these unset: null, not the -1 that stands for it inside */
  {
    const struct { const char *key; int v; } split[] = {
      { "first_stage_layers", plan->first_stage_layers },
      { "last_stage_layers", plan->last_stage_layers },
      { "first_chunk_layers", plan->first_chunk_layers },
      { "last_chunk_layers", plan->last_chunk_layers },
    };
    for (guint i = 0; i < G_N_ELEMENTS (split); i++)
      {
        json_builder_set_member_name (b, split[i].key);
        if (split[i].v >= 0)
          json_builder_add_int_value (b, split[i].v);
        else
          json_builder_add_null_value (b);
      }
  }
  SET_BOOL ("account_for_embedding_in_pipeline_split", plan->account_embedding);
  SET_BOOL ("account_for_loss_in_pipeline_split", plan->account_loss);
  SET_BOOL ("sequence_parallel", plan->sequence_parallel);
  SET_BOOL ("enable_async_tensor_parallel", plan->async_tp);
  if (plan->fsdp_float8_all_gather)
    SET_BOOL ("enable_fsdp_float8_all_gather", TRUE);
  /* the CP exchange where there is one (cp > 1), and the schedule where there is one or
   * it is not the default 1F1B (GPipe at pp 1 holds every micro-batch's activations):
   * read back, a key names a choice, and 1F1B named at pp 1 kept a stack from taking its
   * own when a copy of the plan was split over stages (memory's fit suggestions) */
  if (plan->cp > 1)
    SET_STR ("context_parallel_comm", plan_cp_comm_name (plan->cp_comm));
  SET_STR ("attention_backend", plan_attn_backend_name (plan->attention_backend));
  if (plan->pp > 1 || plan->schedule != PLAN_SCHED_1F1B)
    SET_STR ("pipeline_parallel_schedule", plan_schedule_name (plan->schedule));
  SET_STR ("sharding", plan_sharding_name (plan->sharding));
  SET_STR ("rank_order", plan->rank_order);
  /* how the pipeline's exchanges run, where the plan or its stack says (-1: the stack's,
   * not yet applied: left out) */
  if (plan->fp8_param_gather >= 0)
    SET_BOOL ("fp8_param_gather", plan->fp8_param_gather == 1);
  if (plan->pp_lockstep >= 0)
    SET_BOOL ("pipeline_lockstep", plan->pp_lockstep == 1);
  if (plan->pp_p2p_sync >= 0)
    SET_BOOL ("batch_p2p_sync", plan->pp_p2p_sync == 1);
  if (plan->pp_scatter_gather >= 0)
    SET_BOOL ("scatter_gather_tensors_in_pipeline", plan->pp_scatter_gather == 1);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "training");
  json_builder_begin_object (b);
  /* TorchTitan's meaning, as a plan file is read (plan-validate.c): the sequences of one
   * forward-backward of a DP rank, split into pipeline_parallel_microbatch_size
   * micro-batches under a pipeline (it was the micro-batch, which a plan file reads as
   * local batches of one micro-batch, a schedule each) */
  SET_INT ("local_batch_size", plan->pp > 1 && plan->grad_accum > 0
           ? plan->micro_batch * (plan->grad_accum / plan_pp_schedules (plan))
           : plan->micro_batch);
  SET_INT ("global_batch_size", plan->global_batch);
  SET_INT ("seq_len", plan->seq_length);
  SET_INT ("gradient_accumulation_steps", plan->grad_accum);
  SET_BOOL ("compile", plan->compile);
  /* the kernels Megatron's flags choose, where not the default (--no-rope-fusion,
   * --cross-entropy-fusion-impl te, --no-gradient-accumulation-fusion) */
  if (plan->no_rope_fusion)
    SET_BOOL ("rope_fusion", FALSE);
  if (plan->te_cross_entropy)
    SET_STR ("cross_entropy_fusion_impl", "te");
  if (plan->zero3_grad_copy_in >= 0)
    SET_BOOL ("gradient_accumulation_fusion", plan->zero3_grad_copy_in == 0);
  if (plan->mtp_num_layers > 0)
    SET_INT ("mtp_num_layers", plan->mtp_num_layers);
  /* --cuda-graph-impl / --cuda-graph-scope (no scope: the whole layer, left out; a
   * dense model's plan keeps them too) */
  if (plan->cuda_graph_impl != PLAN_CG_IMPL_NONE)
    {
      SET_STR ("cuda_graph_impl", plan_cuda_graph_impl_name (plan->cuda_graph_impl));
      if (plan->cuda_graph_scope != 0)
        {
          g_autofree char *scope = plan_cuda_graph_scope_string (plan->cuda_graph_scope);
          SET_STR ("cuda_graph_scope", scope);
        }
    }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "activation_checkpoint");
  json_builder_begin_object (b);
  SET_STR ("mode", plan_recompute_name (plan->recompute));
  SET_STR ("method", plan->recompute_method == PLAN_RECOMPUTE_BLOCK ? "block" : "uniform");
  SET_INT ("num_layers", plan->recompute_num_layers);
  if (plan->cpu_offload_layers > 0)
    SET_INT ("cpu_offloading_num_layers", plan->cpu_offload_layers);
  /* torchtitan's every-N-th-layer checkpointing, as a plan file reads it */
  if (plan->recompute == PLAN_RECOMPUTE_FULL && plan->recompute_every > 0)
    {
      g_autofree char *every = g_strdup_printf ("%d", plan->recompute_every);
      SET_STR ("selective_ac_option", every);
    }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "precision");
  json_builder_begin_object (b);
  SET_STR ("compute", plan_precision_name (plan->compute_dtype));
  SET_STR ("param", plan_precision_name (plan->param_dtype));
  SET_STR ("grad", plan_precision_name (plan->grad_dtype));
  SET_STR ("optimizer", plan_precision_name (plan->optim_dtype));
  if (plan->compute_dtype == PLAN_PREC_FP32)
    SET_STR ("fp32_matmul", plan_matmul_precision_name (plan->fp32_matmul));
  /* the recipe named (--fp8-recipe); unnamed, the stack's runs */
  if ((plan->compute_dtype == PLAN_PREC_FP8 || plan->compute_dtype == PLAN_PREC_FP4)
      && plan->fp8_recipe >= 0)
    SET_STR ("fp8_recipe", plan_fp8_recipe_name (plan->fp8_recipe));
  SET_BOOL ("master_weights", plan->master_weights);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "overlap");
  json_builder_begin_object (b);
  SET_BOOL ("grad_reduce", plan->overlap_grad_reduce);
  SET_BOOL ("param_gather", plan->overlap_param_gather);
  SET_BOOL ("tp_comm", plan->tp_comm_overlap);
  json_builder_end_object (b);
  if (plan->num_experts > 0)
    {
      /* the MoE options under Megatron-Core's names without the leading moe_ */
      json_builder_set_member_name (b, "moe");
      json_builder_begin_object (b);
      SET_INT ("num_experts", plan->num_experts);
      SET_INT ("router_topk", plan->moe_topk);
      SET_STR ("token_dispatcher_type", plan_moe_dispatcher_name (plan->moe_dispatcher));
      if (plan->moe_flex_backend == PLAN_MOE_FLEX_HYBRIDEP)
        SET_STR ("flex_dispatcher_backend", "hybridep");
      json_builder_set_member_name (b, "expert_capacity_factor");
      if (plan->moe_capacity_factor > 0)
        json_builder_add_double_value (b, plan->moe_capacity_factor);
      else
        json_builder_add_null_value (b);   /* dropless */
      SET_BOOL ("pad_expert_input_to_capacity", plan->moe_pad_to_capacity);
      SET_BOOL ("grouped_gemm", plan->moe_grouped_gemm);
      SET_BOOL ("shared_expert_overlap", plan->moe_shared_expert_overlap);
      SET_BOOL ("a2a_overlap", plan->moe_a2a_overlap);
      /* Megatron's --recompute-modules names but core_attn ("" when none) */
      {
        g_autofree char *mods = plan_recompute_modules_string (plan);
        SET_STR ("recompute_modules", mods);
      }
      json_builder_set_member_name (b, "imbalance");
      json_builder_add_double_value (b, plan->moe_imbalance > 0 ? plan->moe_imbalance
                                                                : PLAN_MOE_IMBALANCE_DEFAULT);
      json_builder_end_object (b);
    }
  SET_BOOL ("optimizer_offload", plan->optimizer_offload);
  /* the bucket as the plan holds it: Megatron's --ddp-bucket-size in elements (their bytes
   * follow the gradient dtype, a flag after --plan included), or bytes a file gave (as
   * bytes, a saved plan read back beside --grad-dtype bf16 kept the fp32 figure: 160 MB
   * where the flags give 80) */
  if (plan->bucket_elements > 0)
    {
      json_builder_set_member_name (b, "ddp_bucket_size");
      json_builder_add_int_value (b, (gint64) plan->bucket_elements);
    }
  else
    {
      json_builder_set_member_name (b, "bucket_bytes");
      json_builder_add_double_value (b, plan->bucket_bytes);
    }
  json_builder_end_object (b);
#undef SET_INT
#undef SET_BOOL
#undef SET_STR
}

void
plan_release_written_defaults (Plan *plan, const char *name)
{
  g_return_if_fail (plan != NULL && name != NULL);
  guint *w = &plan->written_defaults;
  if ((*w & PLAN_WRITTEN_ETP)
      && (g_str_equal (name, "tp") || g_str_equal (name, "tensor-model-parallel-size")))
    plan->etp = 0, *w &= ~(guint) PLAN_WRITTEN_ETP;
  if ((*w & PLAN_WRITTEN_VPP_GROUP)
      && (g_str_equal (name, "pp") || g_str_equal (name, "pipeline-model-parallel-size")
          || g_str_equal (name, "vpp") || g_str_equal (name, "num-virtual-stages-per-pipeline-rank")))
    plan->vpp_group = 0, *w &= ~(guint) PLAN_WRITTEN_VPP_GROUP;
  if ((*w & PLAN_WRITTEN_SCHEDULE)
      && (g_str_equal (name, "vpp") || g_str_equal (name, "num-virtual-stages-per-pipeline-rank")))
    {
      plan->schedule = PLAN_SCHED_1F1B;
      plan->schedule_set = FALSE;
      *w &= ~(guint) PLAN_WRITTEN_SCHEDULE;
    }
  if ((*w & PLAN_WRITTEN_RECOMPUTE_LAYERS)
      && (g_str_equal (name, "recompute-granularity") || g_str_equal (name, "recompute")))
    plan->recompute_num_layers = 0, *w &= ~(guint) PLAN_WRITTEN_RECOMPUTE_LAYERS;
}

void
plan_drop_file_counts (Plan *plan, gboolean schedules)
{
  g_return_if_fail (plan != NULL);
  plan->dp_file = plan->edp_given = plan->grad_accum_given = plan->dp_titan = 0;
  plan->dp_titan_replicate = FALSE;
  if (!schedules)
    plan->written_defaults = 0;   /* resolved: a copy changed after is not held to them */
  if (schedules && plan->pps_file)
    plan->pp_schedules = 0;
  plan->pps_file = FALSE;
}
