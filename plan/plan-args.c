/* plan/plan-args.c - Megatron-LM flag spellings (and short aliases) into a Plan.
 *
 * Flag names follow megatron/training/arguments.py; HSDP, schedule and rank order use
 * TorchTitan / PyTorch names where Megatron has none (shared/reference/conventions.md
 * section 3). Values are checked here only for their syntax; plan_resolve() checks that
 * they fit the model and cluster. */
#include "plan/plan.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  Plan     *plan;
  PlanArgs *args;
  /* the first of --bf16, --fp16, --precision given (g_free'd), and the compute dtype it
   * set: a second that sets another dtype contradicts it (Megatron-LM refuses --fp16 with
   * --bf16 too) */
  char         *dtype_flag;
  PlanPrecision dtype;
  /* the first --fp8-format given (g_free'd): FP8 GEMMs over the base dtype that --bf16,
   * --fp16 or --precision bf16/fp16 names, in either order (Megatron-LM's FP8 command
   * line is --bf16 --fp8-format hybrid); with --precision fp32 or nvfp4 it contradicts */
  char         *fp8_flag;
  /* the last --sharding (or its alias) as typed, "--sharding none" (g_free'd), and whether
   * it left the states whole; whether --use-distributed-optimizer was given. Each set the
   * sharding and the last one given won: none with the distributed optimizer was zero1 or
   * none by their order (plan_parse_check) */
  char         *sharding_flag;
  gboolean      sharding_none;
  gboolean      dist_opt;
  /* --recompute-activations given, and the last --recompute-granularity as typed with the
   * granularity it names: the same pair, full won or selective won by their order */
  gboolean      recompute_activations;
  char         *granularity_flag;
  PlanRecompute granularity;
} PlanParse;

/* --fp8-format beside a dtype flag that computes neither in FP8 nor on a bf16/fp16 base
 * it could run FP8 GEMMs over: a usage error naming both */
static gboolean
fp8_base_agrees (PlanParse *pp, const char *flag, PlanPrecision dtype, const char *fp8_flag,
                 GError **error)
{
  if (dtype == PLAN_PREC_FP32 || dtype == PLAN_PREC_FP4)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s and %s contradict each other: FP8 GEMMs, and %s compute (hint: "
                   "--bf16 --fp8-format hybrid for FP8 GEMMs over bf16, or drop %s)",
                   fp8_flag, flag, dtype == PLAN_PREC_FP32 ? "fp32" : "nvfp4", fp8_flag);
      return FALSE;
    }
  (void) pp;
  return TRUE;
}

/* FALSE with a usage error when an earlier --bf16, --fp16 or --precision set a compute
 * dtype other than `dtype`: the last one given silently won. */
static gboolean
dtype_agrees (PlanParse *pp, const char *flag, PlanPrecision dtype, GError **error)
{
  if (pp->dtype_flag == NULL)
    {
      pp->dtype_flag = g_strdup (flag);
      pp->dtype = dtype;
      return TRUE;
    }
  if (pp->dtype == dtype)
    return TRUE;
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "%s and %s contradict each other: each sets the compute dtype (hint: give one "
               "of them)", pp->dtype_flag, flag);
  return FALSE;
}

static gboolean
parse_int (const char *option, const char *value, int min, int *out, GError **error)
{
  char *end = NULL;
  errno = 0;
  gint64 v = g_ascii_strtoll (value, &end, 10);
  /* strtoll skips leading blanks: ' 4' passed where '4 ' did not */
  if (end == value || *end != '\0' || v < min || g_ascii_isspace (value[0]))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s expects an integer >= %d, got '%s'", option, min, value);
      return FALSE;
    }
  /* a value past 2^31 - 1 is too large, not "below the minimum" */
  if (v > G_MAXINT || errno == ERANGE)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s %s is too large: it takes integers from %d to %d", option, value, min,
                   G_MAXINT);
      return FALSE;
    }
  *out = (int) v;
  return TRUE;
}

static gboolean
parse_double (const char *option, const char *value, double min, double *out, GError **error)
{
  char *end = NULL;
  double v = g_ascii_strtod (value, &end);
  /* decimal only: strtod also reads hexadecimal (0x2, 0x1p1) and skips leading blanks,
   * which the integer flags refuse */
  if (end == value || *end != '\0' || !(v >= min) || !(v <= 1e6)
      || g_ascii_isspace (value[0]) || strpbrk (value, "xX") != NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s expects a number between %g and 1e6, got '%s'", option, min, value);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* One of a flag's named values (any case); the error lists them as `hint` says. */
typedef struct {
  const char *name;
  int         value;
} Choice;

static gboolean
parse_choice (const char *option, const char *value, const Choice *choices, const char *hint,
              int *out, GError **error)
{
  for (const Choice *c = choices; c->name != NULL; c++)
    if (g_ascii_strcasecmp (value, c->name) == 0)
      {
        *out = c->value;
        return TRUE;
      }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "unknown --%s '%s' (hint: %s)",
               option, value, hint);
  return FALSE;
}

/* Accepts every name users know for a sharding level (conventions.md 3.3-3.6). */
static gboolean
plan_parse_sharding (const char *value, PlanSharding *out, int *hsdp_k, GError **error)
{
  static const struct { const char *name; PlanSharding level; } names[] = {
    { "none", PLAN_SHARD_NONE }, { "ddp", PLAN_SHARD_NONE }, { "zero0", PLAN_SHARD_NONE },
    { "no_shard", PLAN_SHARD_NONE },
    { "zero1", PLAN_SHARD_ZERO1 }, { "optim", PLAN_SHARD_ZERO1 },
    { "distributed_optimizer", PLAN_SHARD_ZERO1 },
    { "zero2", PLAN_SHARD_ZERO2 }, { "optim_grads", PLAN_SHARD_ZERO2 },
    { "shard_grad_op", PLAN_SHARD_ZERO2 },
    { "zero3", PLAN_SHARD_ZERO3 }, { "fsdp", PLAN_SHARD_ZERO3 },
    { "optim_grads_params", PLAN_SHARD_ZERO3 }, { "full_shard", PLAN_SHARD_ZERO3 },
  };
  if (g_ascii_strncasecmp (value, "hsdp", 4) == 0)
    {
      const char *k = value + 4;
      if (*k != ':' || !parse_int ("--sharding hsdp:K", k + 1, 1, hsdp_k, NULL))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--sharding '%s': HSDP needs its shard-group size, e.g. hsdp:8 "
                       "(shard over 8 DP ranks, replicate across the rest)", value);
          return FALSE;
        }
      *out = PLAN_SHARD_HSDP;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (value, names[i].name) == 0)
      {
        *out = names[i].level;
        return TRUE;
      }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "unknown sharding '%s' (hint: none|zero1|zero2|zero3|fsdp|hsdp:K; "
               "Megatron-FSDP and PyTorch names work too)", value);
  return FALSE;
}

static gboolean
plan_parse_schedule (const char *value, PlanSchedule *out, GError **error)
{
  /* PyTorch's get_schedule_class is case-insensitive. */
  if (g_ascii_strcasecmp (value, "gpipe") == 0)
    *out = PLAN_SCHED_GPIPE;
  else if (g_ascii_strcasecmp (value, "1f1b") == 0)
    *out = PLAN_SCHED_1F1B;
  else if (g_ascii_strcasecmp (value, "interleaved1f1b") == 0
           || g_ascii_strcasecmp (value, "interleaved") == 0)
    *out = PLAN_SCHED_INTERLEAVED_1F1B;
  else if (g_ascii_strcasecmp (value, "dualpipe") == 0)
    *out = PLAN_SCHED_DUALPIPE;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown schedule '%s' (hint: GPipe, 1F1B, Interleaved1F1B or DualPipe)", value);
      return FALSE;
    }
  return TRUE;
}

static gboolean
plan_parse_precision (const char *option, const char *value, PlanPrecision *out,
                      GError **error)
{
  static const char *const names[] = { "fp32", "bf16", "fp16", "fp8", "fp4" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (value, names[i]) == 0)
      {
        *out = (PlanPrecision) i;
        return TRUE;
      }
  if (g_ascii_strcasecmp (value, "nvfp4") == 0)
    {
      *out = PLAN_PREC_FP4;
      return TRUE;
    }
  /* the PyTorch names (torch.float32, torch.bfloat16, torch.float16; torchao's float8
   * training), as topology's dtype table spells them */
  static const char *const torch_names[] = { "float32", "bfloat16", "float16", "float8" };
  for (guint i = 0; i < G_N_ELEMENTS (torch_names); i++)
    if (g_ascii_strcasecmp (value, torch_names[i]) == 0)
      {
        *out = (PlanPrecision) i;
        return TRUE;
      }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "%s: unknown dtype '%s' (hint: fp32, bf16, fp16, fp8 or nvfp4)", option, value);
  return FALSE;
}

static gboolean
on_option (const char *option, const char *value, gpointer data, GError **error)
{
  PlanParse *pp = data;
  Plan *plan = pp->plan;
  const char *name = option + 2;   /* skip "--" */

  if (g_str_equal (name, "sharding") || g_str_equal (name, "data-parallel-sharding-strategy"))
    {
      plan->sharding_set = TRUE;
      if (!plan_parse_sharding (value, &plan->sharding, &plan->hsdp_shard_size, error))
        return FALSE;
      g_free (pp->sharding_flag);
      pp->sharding_flag = g_strdup_printf ("%s %s", option, value);
      pp->sharding_none = plan->sharding == PLAN_SHARD_NONE;
      return TRUE;
    }
  if (g_str_equal (name, "use-distributed-optimizer"))
    {
      /* zero2, zero3 and HSDP shard the optimizer states too: the flag agrees with them */
      if (plan->sharding < PLAN_SHARD_ZERO1)
        plan->sharding = PLAN_SHARD_ZERO1;
      pp->dist_opt = TRUE;
      return TRUE;
    }
  if (g_str_equal (name, "schedule") || g_str_equal (name, "pipeline-parallel-schedule"))
    {
      plan->schedule_set = TRUE;
      return plan_parse_schedule (value, &plan->schedule, error);
    }
  if (g_str_equal (name, "cp-comm-type"))
    {
      static const Choice c[] = {
        { "p2p", PLAN_CP_P2P }, { "ring", PLAN_CP_P2P },
        { "all_gather", PLAN_CP_ALLGATHER }, { "allgather", PLAN_CP_ALLGATHER },
        { "a2a", PLAN_CP_A2A }, { "ulysses", PLAN_CP_A2A }, { NULL, 0 } };
      plan->cp_comm_set = TRUE;
      return parse_choice (name, value, c, "p2p (ring attention), all_gather (K/V "
                           "all-gather) or a2a (Ulysses)", (int *) &plan->cp_comm, error);
    }
  if (g_str_equal (name, "attention-backend"))
    {
      /* Megatron-Core's choices: flash, fused (cuDNN / TE fused attention) and auto run a
       * fused kernel; unfused and local materialize the scores. */
      static const Choice c[] = {
        { "flash", PLAN_ATTN_FLASH }, { "fused", PLAN_ATTN_FLASH }, { "auto", PLAN_ATTN_FLASH },
        { "unfused", PLAN_ATTN_UNFUSED }, { "local", PLAN_ATTN_UNFUSED }, { NULL, 0 } };
      plan->attention_backend_set = TRUE;
      return parse_choice (name, value, c, "flash, fused, auto (a fused kernel) or unfused, "
                           "local (scores materialized)", (int *) &plan->attention_backend,
                           error);
    }
  plan_release_written_defaults (plan, name);
  if (g_str_equal (name, "recompute-granularity") || g_str_equal (name, "recompute"))
    {
      static const Choice c[] = {
        { "full", PLAN_RECOMPUTE_FULL }, { "selective", PLAN_RECOMPUTE_SELECTIVE },
        { "selective-op", PLAN_RECOMPUTE_SELECTIVE_OP },
        { "none", PLAN_RECOMPUTE_NONE }, { NULL, 0 } };
      if (!parse_choice ("recompute-granularity", value, c,
                         "full, selective, selective-op (torchtitan's op-level AC) or none",
                         (int *) &plan->recompute, error))
        return FALSE;
      g_free (pp->granularity_flag);
      pp->granularity_flag = g_strdup_printf ("%s %s", option, value);
      pp->granularity = plan->recompute;
      return TRUE;
    }
  if (g_str_equal (name, "recompute-modules"))
    {
      /* '' or ',' named no module and changed nothing without a word (--cuda-graph-scope
       * refuses the same); a plan file's empty list still means none */
      if (value[strspn (value, ", ")] == '\0')
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--recompute-modules '%s' names no module (hint: e.g. core_attn or "
                       "moe_act,moe, or leave the flag out)",
                       value);
          return FALSE;
        }
      return plan_recompute_modules_parse (value, plan, error);
    }
  if (g_str_equal (name, "recompute-method"))
    {
      static const Choice c[] = {
        { "uniform", PLAN_RECOMPUTE_UNIFORM }, { "block", PLAN_RECOMPUTE_BLOCK }, { NULL, 0 } };
      return parse_choice (name, value, c, "uniform or block", (int *) &plan->recompute_method,
                           error);
    }
  if (g_str_equal (name, "bf16") || g_str_equal (name, "fp16"))
    {
      const PlanPrecision d = g_str_equal (name, "bf16") ? PLAN_PREC_BF16 : PLAN_PREC_FP16;
      if (!dtype_agrees (pp, option, d, error))
        return FALSE;
      /* the base dtype; after --fp8-format the GEMMs stay FP8 over it (it dropped FP8
       * without a word when it came second) */
      plan->param_dtype = d;
      plan->compute_dtype = pp->fp8_flag != NULL ? PLAN_PREC_FP8 : d;
      return TRUE;
    }
  if (g_str_equal (name, "fp8-format"))
    {
      if (g_ascii_strcasecmp (value, "e4m3") != 0 && g_ascii_strcasecmp (value, "hybrid") != 0)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "unknown --fp8-format '%s' (hint: e4m3 or hybrid)", value);
          return FALSE;
        }
      g_autofree char *flag = g_strdup_printf ("%s %s", option, value);
      if (pp->dtype_flag != NULL && !fp8_base_agrees (pp, pp->dtype_flag, pp->dtype, flag, error))
        return FALSE;
      if (pp->fp8_flag == NULL)
        pp->fp8_flag = g_steal_pointer (&flag);
      /* Transformer Engine FP8 runs the GEMMs in FP8 and keeps bf16 weights. */
      plan->compute_dtype = PLAN_PREC_FP8;
      return TRUE;
    }
  if (g_str_equal (name, "fp8-recipe"))
    {
      if (!plan_fp8_recipe_parse (value, &plan->fp8_recipe))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "unknown --fp8-recipe '%s' (hint: delayed, tensorwise, mxfp8, blockwise "
                       "or rowwise)", value);
          return FALSE;
        }
      return TRUE;
    }
  if (g_str_equal (name, "precision"))
    {
      PlanPrecision p;
      /* the FP8 spellings that name a recipe or a format too (NeMo's "FP8-hybrid": E4M3
       * forward, E5M2 gradients, which --fp8-format hybrid reads as FP8 GEMMs; "MXFP8":
       * FP8 with one E8M0 scale per 32 values, --fp8-recipe mxfp8) */
      if (g_ascii_strcasecmp (value, "fp8-hybrid") == 0
          || g_ascii_strcasecmp (value, "fp8_hybrid") == 0)
        p = PLAN_PREC_FP8;
      else if (g_ascii_strcasecmp (value, "mxfp8") == 0)
        {
          p = PLAN_PREC_FP8;
          plan->fp8_recipe = FW_SCALING_BLOCK;
        }
      else if (!plan_parse_precision (option, value, &p, error))
        return FALSE;
      g_autofree char *flag = g_strdup_printf ("%s %s", option, value);
      if (!dtype_agrees (pp, flag, p, error))
        return FALSE;
      if (pp->fp8_flag != NULL && !fp8_base_agrees (pp, flag, p, pp->fp8_flag, error))
        return FALSE;
      /* after --fp8-format, bf16 or fp16 is the base of its FP8 GEMMs */
      plan->compute_dtype = pp->fp8_flag != NULL ? PLAN_PREC_FP8 : p;
      plan->param_dtype = p == PLAN_PREC_FP8 || p == PLAN_PREC_FP4 ? PLAN_PREC_BF16 : p;
      if (p == PLAN_PREC_FP32)
        plan->master_weights = FALSE;
      return TRUE;
    }
  if (g_str_equal (name, "fp32-matmul-precision"))
    {
      if (!plan_matmul_precision_parse (value, &plan->fp32_matmul))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "%s: unknown precision '%s' (hint: highest, high or medium, as "
                       "torch.set_float32_matmul_precision)", option, value);
          return FALSE;
        }
      plan->fp32_matmul_set = TRUE;
      return TRUE;
    }
  if (g_str_equal (name, "param-dtype"))
    return plan_parse_precision (option, value, &plan->param_dtype, error);
  if (g_str_equal (name, "grad-dtype"))
    return plan_parse_precision (option, value, &plan->grad_dtype, error);
  if (g_str_equal (name, "optimizer-dtype"))
    return plan_parse_precision (option, value, &plan->optim_dtype, error);
  if (g_str_equal (name, "no-master-weights"))
    {
      plan->master_weights = FALSE;
      return TRUE;
    }
  if (g_str_equal (name, "ddp-bucket-size"))
    {
      int elements;
      if (!parse_int (option, value, 1, &elements, error))
        return FALSE;
      /* elements: bytes are taken in the gradient dtype when the plan is used, so that a
       * --grad-dtype after this flag counts (40M bf16 elements read as 20 MB or 40 MB by
       * the order of the two flags) */
      plan->bucket_elements = elements;
      return TRUE;
    }
  if (g_str_equal (name, "rank-order"))
    {
      g_free (plan->rank_order);
      plan->rank_order = g_strdup (value);
      plan->rank_order_set = TRUE;
      return TRUE;
    }
  if (g_str_equal (name, "moe-token-dispatcher-type"))
    {
      static const Choice c[] = {
        { "alltoall", PLAN_MOE_ALLTOALL }, { "allgather", PLAN_MOE_ALLGATHER },
        { "flex", PLAN_MOE_FLEX }, { "deepep", PLAN_MOE_FLEX }, { NULL, 0 } };
      return parse_choice (name, value, c, "alltoall, allgather or flex (DeepEP)",
                           (int *) &plan->moe_dispatcher, error);
    }
  if (g_str_equal (name, "moe-flex-dispatcher-backend"))
    {
      static const Choice c[] = {
        { "deepep", PLAN_MOE_FLEX_DEEPEP }, { "hybridep", PLAN_MOE_FLEX_HYBRIDEP },
        { NULL, 0 } };
      return parse_choice (name, value, c, "deepep or hybridep",
                           (int *) &plan->moe_flex_backend, error);
    }
  if (g_str_equal (name, "moe-expert-capacity-factor"))
    {
      /* Megatron: a float; unset means dropless. "none" says so explicitly. */
      if (g_ascii_strcasecmp (value, "none") == 0 || g_ascii_strcasecmp (value, "dropless") == 0)
        {
          plan->moe_capacity_factor = 0;
          return TRUE;
        }
      return parse_double (option, value, 1.0, &plan->moe_capacity_factor, error);
    }
  if (g_str_equal (name, "moe-imbalance"))
    {
      plan->moe_imbalance_typed = TRUE;
      return parse_double (option, value, 1.0, &plan->moe_imbalance, error);
    }
  if (g_str_equal (name, "cuda-graph-impl"))
    {
      static const Choice c[] = {
        { "none", PLAN_CG_IMPL_NONE }, { "local", PLAN_CG_IMPL_LOCAL },
        { "transformer_engine", PLAN_CG_IMPL_TRANSFORMER_ENGINE }, { NULL, 0 } };
      return parse_choice (name, value, c, "none, local or transformer_engine",
                           (int *) &plan->cuda_graph_impl, error);
    }
  if (g_str_equal (name, "cuda-graph-scope"))
    return plan_cuda_graph_scope_parse (value, plan, error);
  if (g_str_equal (name, "cross-entropy-fusion-impl"))
    {
      static const Choice c[] = { { "native", 0 }, { "te", 1 }, { NULL, 0 } };
      int v = plan->te_cross_entropy ? 1 : 0;
      if (!parse_choice (name, value, c, "native or te", &v, error))
        return FALSE;
      plan->te_cross_entropy = v == 1;
      return TRUE;
    }
  if (g_str_equal (name, "plan"))
    {
      g_free (pp->args->plan_file);
      pp->args->plan_file = g_strdup (value);
      /* Loaded now, so flags after --plan override the file. */
      GError *local = NULL;
      /* a TorchTitan job TOML by its name, else a plan JSON */
      gboolean toml = g_str_has_suffix (value, ".toml") || g_str_has_suffix (value, ".TOML");
      Plan before, def;
      plan_copy (&before, plan);
      plan_init_defaults (&def);
      if (!(toml ? plan_load_toml (plan, value, &local) : plan_load_json (plan, value, &local)))
        {
          /* a TOML under another name ("x.Toml", none) read as JSON: say how TOML is told */
          char head[256];
          gsize hl = 0;
          const char *h = NULL;
          FILE *f = !toml && g_file_test (value, G_FILE_TEST_IS_REGULAR)
                    ? fopen (value, "rb") : NULL;
          if (f != NULL)
            {
              hl = fread (head, 1, sizeof head, f);
              fclose (f);
              h = head;
              while (h < head + hl && g_ascii_isspace (*h))
                h++;
            }
          if (h != NULL && h < head + hl && (*h == '[' || *h == '#'))
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s (hint: a "
                         "TorchTitan TOML is read as TOML when its name ends in .toml)",
                         local->message);
          else
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s", local->message);
          g_error_free (local);
          plan_clear (&before);
          plan_clear (&def);
          return FALSE;
        }
      /* a flag before --plan that the file then replaces was dropped without a word (--tp
       * 4 --plan a tp-8 file ran tp 8): refused, naming it, since flags after --plan are
       * what overrides the file */
      static const struct { const char *flag; gsize off; } shape[] = {
        { "--tp", G_STRUCT_OFFSET (Plan, tp) }, { "--pp", G_STRUCT_OFFSET (Plan, pp) },
        { "--cp", G_STRUCT_OFFSET (Plan, cp) }, { "--ep", G_STRUCT_OFFSET (Plan, ep) },
        { "--etp", G_STRUCT_OFFSET (Plan, etp) }, { "--vpp", G_STRUCT_OFFSET (Plan, vpp) },
        { "--gpus", G_STRUCT_OFFSET (Plan, world_size) },
        { "--mbs", G_STRUCT_OFFSET (Plan, micro_batch) },
        { "--gbs", G_STRUCT_OFFSET (Plan, global_batch) },
        { "--seq-length", G_STRUCT_OFFSET (Plan, seq_length) },
        { "--sharding", G_STRUCT_OFFSET (Plan, sharding) },
        { "--recompute-granularity", G_STRUCT_OFFSET (Plan, recompute) },
        { "--sequence-parallel", G_STRUCT_OFFSET (Plan, sequence_parallel) },
        { "--precision", G_STRUCT_OFFSET (Plan, compute_dtype) },
        { "--schedule", G_STRUCT_OFFSET (Plan, schedule) },
      };
      const char *replaced = NULL;
      for (guint i = 0; i < G_N_ELEMENTS (shape) && replaced == NULL; i++)
        {
          const int b = G_STRUCT_MEMBER (int, &before, shape[i].off);
          const int d = G_STRUCT_MEMBER (int, &def, shape[i].off);
          const int a = G_STRUCT_MEMBER (int, plan, shape[i].off);
          if (b != d && a != b)
            replaced = shape[i].flag;
        }
      plan_clear (&before);
      plan_clear (&def);
      if (replaced != NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s before --plan %s "
                       "is replaced by the file's value (hint: put it after --plan: flags "
                       "after the file override its keys)", replaced, value);
          return FALSE;
        }
      return TRUE;
    }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "unhandled %s", option);
  return FALSE;
}

/* Integer options are parsed by hand so that 0 and negatives get a clear message. */
typedef struct { const char *name; gsize offset; int min; } IntOpt;

static const IntOpt int_opts[] = {
  { "tensor-model-parallel-size", G_STRUCT_OFFSET (Plan, tp), 1 },
  { "tp", G_STRUCT_OFFSET (Plan, tp), 1 },
  { "pipeline-model-parallel-size", G_STRUCT_OFFSET (Plan, pp), 1 },
  { "pp", G_STRUCT_OFFSET (Plan, pp), 1 },
  { "context-parallel-size", G_STRUCT_OFFSET (Plan, cp), 1 },
  { "cp", G_STRUCT_OFFSET (Plan, cp), 1 },
  { "expert-model-parallel-size", G_STRUCT_OFFSET (Plan, ep), 1 },
  { "ep", G_STRUCT_OFFSET (Plan, ep), 1 },
  { "expert-tensor-parallel-size", G_STRUCT_OFFSET (Plan, etp), 1 },
  { "etp", G_STRUCT_OFFSET (Plan, etp), 1 },
  { "num-experts", G_STRUCT_OFFSET (Plan, num_experts), 1 },
  { "moe-router-topk", G_STRUCT_OFFSET (Plan, moe_topk), 1 },
  { "dp", G_STRUCT_OFFSET (Plan, dp_given), 1 },
  { "data-parallel-size", G_STRUCT_OFFSET (Plan, dp_given), 1 },
  { "num-virtual-stages-per-pipeline-rank", G_STRUCT_OFFSET (Plan, vpp), 1 },
  { "vpp", G_STRUCT_OFFSET (Plan, vpp), 1 },
  { "microbatch-group-size-per-virtual-pipeline-stage", G_STRUCT_OFFSET (Plan, vpp_group), 1 },
  { "num-layers-per-virtual-pipeline-stage", G_STRUCT_OFFSET (Plan, layers_per_virtual_stage), 1 },
  { "decoder-first-pipeline-num-layers", G_STRUCT_OFFSET (Plan, first_stage_layers), 0 },
  { "decoder-last-pipeline-num-layers", G_STRUCT_OFFSET (Plan, last_stage_layers), 0 },
  { "first-chunk-layers", G_STRUCT_OFFSET (Plan, first_chunk_layers), 0 },
  { "last-chunk-layers", G_STRUCT_OFFSET (Plan, last_chunk_layers), 0 },
  { "micro-batch-size", G_STRUCT_OFFSET (Plan, micro_batch), 1 },
  { "mbs", G_STRUCT_OFFSET (Plan, micro_batch), 1 },
  { "global-batch-size", G_STRUCT_OFFSET (Plan, global_batch), 1 },
  { "gbs", G_STRUCT_OFFSET (Plan, global_batch), 1 },
  { "seq-length", G_STRUCT_OFFSET (Plan, seq_length), 1 },
  { "seq", G_STRUCT_OFFSET (Plan, seq_length), 1 },
  { "recompute-num-layers", G_STRUCT_OFFSET (Plan, recompute_num_layers), 1 },
  { "cpu-offloading-num-layers", G_STRUCT_OFFSET (Plan, cpu_offload_layers), 0 },
  { "mtp-num-layers", G_STRUCT_OFFSET (Plan, mtp_num_layers), 0 },
  { "gpus", G_STRUCT_OFFSET (Plan, world_size), 1 },
  { "world-size", G_STRUCT_OFFSET (Plan, world_size), 1 },
  { "data-parallel-replicate-degree", G_STRUCT_OFFSET (Plan, dp_replicate), 1 },
};

static gboolean
on_int_option (const char *option, const char *value, gpointer data, GError **error)
{
  PlanParse *pp = data;
  /* --mbs given: it is the micro-batch whatever a plan file's local batch says (plan.h
   * micro_batch_flag) */
  if (g_str_equal (option + 2, "mbs") || g_str_equal (option + 2, "micro-batch-size"))
    pp->plan->micro_batch_flag = TRUE;
  /* a degree or batch given after a plan file changes what the file's derived counts were
   * derived from (plan.h dp_file): they no longer hold, and are not checked */
  plan_drop_file_counts (pp->plan, TRUE);
  plan_release_written_defaults (pp->plan, option + 2);
  for (guint i = 0; i < G_N_ELEMENTS (int_opts); i++)
    if (g_str_equal (option + 2, int_opts[i].name))
      return parse_int (option, value, int_opts[i].min,
                        G_STRUCT_MEMBER_P (pp->plan, int_opts[i].offset), error);
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "unhandled %s", option);
  return FALSE;
}

static gboolean
on_flag (const char *option, const char *value, gpointer data, GError **error)
{
  PlanParse *pp = data;
  Plan *plan = pp->plan;
  const char *name = option + 2;
  if (g_str_equal (name, "sequence-parallel") || g_str_equal (name, "sp"))
    plan->sequence_parallel = TRUE;
  else if (g_str_equal (name, "account-for-embedding-in-pipeline-split"))
    plan->account_embedding = TRUE;
  else if (g_str_equal (name, "account-for-loss-in-pipeline-split"))
    plan->account_loss = TRUE;
  else if (g_str_equal (name, "overlap-grad-reduce"))
    plan->overlap_grad_reduce = TRUE;
  else if (g_str_equal (name, "overlap-param-gather"))
    plan->overlap_param_gather = TRUE;
  else if (g_str_equal (name, "tp-comm-overlap"))
    plan->tp_comm_overlap = TRUE;
  else if (g_str_equal (name, "async-tp"))
    /* TorchTitan's async TP decomposes the TP all-gather / reduce-scatter and the GEMMs
     * next to them into per-rank chunks that overlap (micro-pipelining, torchtitan
     * docs/async_tp.md): the mechanism --tp-comm-overlap models (TE userbuffers' chunked
     * overlap), so it turns that on and records that the run asked for it by this name */
    plan->async_tp = plan->tp_comm_overlap = TRUE;
  else if (g_str_equal (name, "compile"))
    plan->compile = TRUE;
  else if (g_str_equal (name, "no-rope-fusion"))
    plan->no_rope_fusion = TRUE;
  else if (g_str_equal (name, "no-gradient-accumulation-fusion"))
    plan->zero3_grad_copy_in = 1;
  else if (g_str_equal (name, "fsdp-float8-all-gather"))
    plan->fsdp_float8_all_gather = TRUE;
  else if (g_str_equal (name, "fp8-param-gather"))
    plan->fp8_param_gather = 1;
  else if (g_str_equal (name, "no-fp8-param-gather"))
    plan->fp8_param_gather = 0;
  else if (g_str_equal (name, "pp-lockstep"))
    plan->pp_lockstep = 1;
  else if (g_str_equal (name, "no-batch-p2p-sync"))
    plan->pp_p2p_sync = 0;
  else if (g_str_equal (name, "scatter-gather-tensors-in-pipeline"))
    plan->pp_scatter_gather = 1;
  else if (g_str_equal (name, "no-scatter-gather-tensors-in-pipeline"))
    plan->pp_scatter_gather = 0;
  else if (g_str_equal (name, "optimizer-offload") || g_str_equal (name, "offload-optimizer"))
    plan->optimizer_offload = TRUE;
  else if (g_str_equal (name, "moe-grouped-gemm"))
    plan->moe_grouped_gemm = TRUE;
  else if (g_str_equal (name, "moe-shared-expert-overlap"))
    plan->moe_shared_expert_overlap = TRUE;
  else if (g_str_equal (name, "moe-pad-expert-input-to-capacity"))
    plan->moe_pad_to_capacity = TRUE;
  else if (g_str_equal (name, "overlap-moe-expert-parallel-comm"))
    plan->moe_a2a_overlap = TRUE;
  else if (g_str_equal (name, "recompute-activations"))
    /* Megatron-LM's older flag: its argument check turns it into
     * --recompute-granularity selective. */
    {
      plan->recompute = PLAN_RECOMPUTE_SELECTIVE;
      pp->recompute_activations = TRUE;
    }
  else
    return on_option (option, value, data, error);
  return TRUE;
}

static void
plan_parse_free (gpointer data)
{
  PlanParse *pp = data;
  g_free (pp->dtype_flag);
  g_free (pp->fp8_flag);
  g_free (pp->sharding_flag);
  g_free (pp->granularity_flag);
  g_free (pp);
}

/* After the whole command line: two flags that each set one setting to different values
 * are refused, in either order (the last one given won without a word). Megatron-LM's
 * argument check turns --recompute-activations into recompute_granularity 'selective'
 * whatever else is given, so with --recompute-granularity full Megatron runs selective
 * where tandem ran full; --use-distributed-optimizer shards the optimizer states over DP,
 * which --sharding none keeps whole. The pairs that agree stay: the distributed optimizer
 * with zero1 (the same thing), zero2, zero3 or HSDP (which shard the states too), and
 * --recompute-activations with --recompute-granularity selective. */
static gboolean
plan_parse_check (GOptionContext *context, GOptionGroup *group, gpointer data,
                  GError **error)
{
  PlanParse *pp = data;
  (void) context, (void) group;
  if (pp->dist_opt && pp->sharding_none)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s and --use-distributed-optimizer contradict each other: the first "
                   "keeps the optimizer states whole on every DP rank, the second shards them "
                   "over DP, ZeRO-1 (hint: drop one: %s alone keeps them whole, "
                   "--use-distributed-optimizer alone is --sharding zero1)", pp->sharding_flag,
                   pp->sharding_flag);
      return FALSE;
    }
  if (pp->recompute_activations && pp->granularity_flag != NULL
      && pp->granularity != PLAN_RECOMPUTE_SELECTIVE)
    {
      const char *what = pp->granularity == PLAN_RECOMPUTE_FULL
                         ? "recomputes whole layers"
                         : pp->granularity == PLAN_RECOMPUTE_NONE
                         ? "recomputes nothing"
                         : "is torchtitan's op-level recompute";
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--recompute-activations and %s contradict each other: the first is "
                   "Megatron-LM's older flag for --recompute-granularity selective (the "
                   "attention core recomputed; Megatron runs selective whatever else is "
                   "given), the second %s (hint: drop --recompute-activations for what %s "
                   "says, or %s for selective)", pp->granularity_flag, what,
                   pp->granularity_flag, pp->granularity_flag);
      return FALSE;
    }
  return TRUE;
}

/* The plan flags' entries, a NULL-terminated copy (g_free) whose strings land in *args. */
static GOptionEntry *
plan_entries_new (PlanArgs *args)
{
#define CB(f) (gpointer) (f)
  const GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_STRING, &args->model_name,
      "Model: preset name or Hugging Face config.json (default llama3-405b; tandem run: tiny-llama)", "NAME|FILE" },
    { "cluster", 0, 0, G_OPTION_ARG_STRING, &args->cluster_name,
      "Cluster: preset name or cluster JSON (default h100-24k; tandem run: see above)", "NAME|FILE" },
    { "gpus", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "World size (default: the whole cluster); alias --world-size", "N" },
    { "world-size", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "N" },
    { "plan", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Plan JSON with TorchTitan key names, or a TorchTitan job .toml; flags after it "
      "override it", "FILE" },
    { "tensor-model-parallel-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "TP degree; alias --tp", "N" },
    { "tp", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "N" },
    { "pipeline-model-parallel-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "PP degree; alias --pp", "N" },
    { "pp", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "N" },
    { "context-parallel-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "CP degree; alias --cp", "N" },
    { "cp", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "N" },
    { "cp-comm-type", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "CP algorithm: p2p (ring attention), all_gather, a2a (Ulysses)", "TYPE" },
    { "attention-backend", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Attention core: flash (default; also fused, auto) or unfused (also local: the "
      "s x s scores materialized, as before FlashAttention)", "KIND" },
    { "expert-model-parallel-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "EP degree: experts split over N ranks (MoE models; dense: 1); alias --ep", "N" },
    { "ep", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "N" },
    { "expert-tensor-parallel-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Expert TP degree (default: the TP degree); alias --etp", "N" },
    { "etp", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "N" },
    { "num-experts", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Routed experts per MoE layer (default: the model's; on a dense model every MLP "
      "becomes N experts of its size)", "N" },
    { "moe-router-topk", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Experts per token (default: the model's, else 2)", "K" },
    { "moe-token-dispatcher-type", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "MoE token dispatcher: alltoall (default), allgather, flex (DeepEP)", "TYPE" },
    { "moe-flex-dispatcher-backend", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "The flex dispatcher's library: deepep (default; RDMA between servers) or hybridep "
      "(RDMA between NVLink domains)", "NAME" },
    { "moe-expert-capacity-factor", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Tokens an expert takes at most, x the mean (default: dropless)", "F" },
    { "moe-grouped-gemm", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "Local experts as one grouped GEMM (else one GEMM per expert)", NULL },
    { "moe-pad-expert-input-to-capacity", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK,
      CB (on_flag), "With --moe-expert-capacity-factor: every expert padded to its capacity "
      "(token drop and pad; the dispatcher needs no host sync)", NULL },
    { "moe-shared-expert-overlap", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "Shared expert computes during the dispatch all-to-all", NULL },
    { "overlap-moe-expert-parallel-comm", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK,
      CB (on_flag), "EP all-to-all of one micro-batch under another's compute (1F1B)", NULL },
    { "moe-imbalance", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Busiest EP rank's routed tokens / mean (default 1.3; 1 = balanced)", "R" },
    { "cuda-graph-impl", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "CUDA graphs: none (default), local, transformer_engine", "IMPL" },
    { "cross-entropy-fusion-impl", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Fused cross entropy: native (Megatron-Core's, default) or te (Transformer Engine's "
      "Triton kernel)", "IMPL" },
    { "cuda-graph-scope", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "What the CUDA graphs capture: attn, mlp, moe, moe_router, moe_preprocess, "
      "full_iteration (comma-separated; default the whole layer)", "LIST" },
    { "dp", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "DP degree: derived from the world size; if given it must agree", "N" },
    { "data-parallel-size", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "N" },
    { "num-virtual-stages-per-pipeline-rank", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Interleaved model chunks per pipeline rank; alias --vpp", "V" },
    { "vpp", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "V" },
    { "microbatch-group-size-per-virtual-pipeline-stage", 0, 0, G_OPTION_ARG_CALLBACK,
      CB (on_int_option), "Interleaved schedule: micro-batches run through a model chunk "
      "together before the next chunk (default: pp)", "N" },
    { "num-layers-per-virtual-pipeline-stage", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Layers per model chunk (sets --vpp)", "N" },
    { "decoder-first-pipeline-num-layers", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Layers on the first pipeline stage, all its chunks (uneven split; with --vpp V, N / V "
      "a chunk, as Megatron-Core)", "N" },
    { "decoder-last-pipeline-num-layers", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Layers on the last pipeline stage, all its chunks (uneven split; with --vpp V, N / V "
      "a chunk)", "N" },
    { "first-chunk-layers", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Layers in the first model chunk alone, the other chunks sharing the rest (tandem's "
      "own; the same as --decoder-first-pipeline-num-layers when --vpp is 1)", "N" },
    { "last-chunk-layers", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Layers in the last model chunk alone (tandem's own)", "N" },
    { "account-for-embedding-in-pipeline-split", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK,
      CB (on_flag), "The embedding takes one layer slot of the pipeline split (first chunk: one "
      "layer fewer, possibly none)", NULL },
    { "account-for-loss-in-pipeline-split", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK,
      CB (on_flag), "The output layer and loss take one layer slot of the pipeline split (last "
      "chunk: one layer fewer, possibly none)", NULL },
    { "sequence-parallel", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "Megatron sequence parallelism in the TP group; alias --sp", NULL },
    { "sp", 0, G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_flag), NULL, NULL },
    { "micro-batch-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Sequences per micro-batch (default 1); alias --mbs", "B" },
    { "mbs", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "B" },
    { "global-batch-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Sequences per step (default mbs x dp); alias --gbs", "B" },
    { "gbs", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "B" },
    { "seq-length", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Tokens per sequence (default: model context, at most 8192); alias --seq", "S" },
    { "seq", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_int_option), NULL, "S" },
    { "schedule", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Pipeline schedule: GPipe, 1F1B, Interleaved1F1B, DualPipe", "NAME" },
    { "pipeline-parallel-schedule", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_option), NULL, "NAME" },
    { "sharding", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "none|zero1|zero2|zero3|fsdp|hsdp:K (K = shard-group size)", "LEVEL" },
    { "data-parallel-sharding-strategy", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_option), NULL, "S" },
    { "data-parallel-replicate-degree", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "HSDP replica groups R (shard over dp/R)", "R" },
    { "use-distributed-optimizer", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Shard optimizer states over DP (= zero1)", NULL },
    { "recompute-granularity", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Activation recompute: full, selective or selective-op (torchtitan)", "G" },
    { "recompute-activations", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "Megatron's older flag for --recompute-granularity selective", NULL },
    { "recompute-modules", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Megatron's selective modules: core_attn, moe_act, moe (comma-separated)", "LIST" },
    { "recompute-method", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "uniform or block (full recompute)", "M" },
    { "recompute-num-layers", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Layers per recompute unit (uniform) or recomputed per stage (block)", "N" },
    { "cpu-offloading-num-layers", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Megatron's CPU offloading: the activations of N layers kept in host memory "
      "(PP 1, no recompute)", "N" },
    { "mtp-num-layers", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int_option),
      "Multi-token-prediction modules trained on the last stage (Megatron-Core; default 0: "
      "none, even where the model's config has num_nextn_predict_layers)", "N" },
    { "bf16", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_option),
      "BF16 mixed precision (default)", NULL },
    { "fp16", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_option),
      "FP16 mixed precision", NULL },
    { "fp8-format", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "FP8 GEMMs (Transformer Engine): e4m3 or hybrid", "F" },
    { "fp8-recipe", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "FP8 scaling recipe: delayed, tensorwise (current scaling), mxfp8 (Blackwell, MI355X), "
      "blockwise (1x128/128x128, FP8-SC) or rowwise (torchao); default the stack's", "R" },
    { "precision", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Compute dtype: fp32, bf16, fp16, fp8 (float8, FP8-hybrid; MXFP8 = fp8 with "
      "--fp8-recipe mxfp8), nvfp4", "DTYPE" },
    { "fp32-matmul-precision", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "GEMM math over fp32 tensors: highest (fp32), high (TF32), medium (BF16 tensor cores)",
      "P" },
    { "param-dtype", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Parameter dtype (default bf16)", "DTYPE" },
    { "grad-dtype", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Gradient accumulation/reduction dtype (default fp32)", "DTYPE" },
    { "optimizer-dtype", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Adam moment dtype (default fp32)", "DTYPE" },
    { "no-master-weights", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_option),
      "No fp32 master copy of the weights", NULL },
    { "overlap-grad-reduce", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "Overlap DP gradient reduction with backward", NULL },
    { "overlap-param-gather", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "Overlap parameter all-gather with forward", NULL },
    { "compile", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "torch.compile the model (TorchTitan training.compile); stacks with a compiled mode", NULL },
    { "async-tp", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "TorchTitan async TP: TP collectives micro-pipelined with the GEMMs (needs --compile)",
      NULL },
    { "no-rope-fusion", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "RoPE as unfused PyTorch ops (Megatron-Core with apply_rope_fusion off)", NULL },
    { "no-gradient-accumulation-fusion", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK,
      CB (on_flag), "ZeRO-3: weight gradients written apart and copied into the "
      "reduce-scatter bucket each micro-batch (Megatron-FSDP without gradient-accumulation "
      "fusion)", NULL },
    { "tp-comm-overlap", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "Overlap TP communication with GEMMs", NULL },
    { "fsdp-float8-all-gather", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "FP8 plans under ZeRO-3/FSDP: linear weights gathered in fp8 (torchao "
      "enable_fsdp_float8_all_gather)", NULL },
    { "fp8-param-gather", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "FP8 plans (delayed or current scaling): linear weights held in fp8 and gathered in "
      "fp8 by the distributed optimizer (Megatron-LM --fp8-param-gather; the nemo stack's "
      "default)", NULL },
    { "no-fp8-param-gather", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "FP8 plans: linear weights held and gathered in the parameter dtype", NULL },
    { "pp-lockstep", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "Interleaved 1F1B in lock step, as torch.distributed.pipelining runs it (the "
      "torchtitan stack's default)", NULL },
    { "no-batch-p2p-sync", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "1F1B without Megatron-Core's device synchronize after each pipeline exchange "
      "(batch_p2p_sync False; the megatron-core and nemo stacks synchronize)", NULL },
    { "scatter-gather-tensors-in-pipeline", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK,
      CB (on_flag), "Without SP, each TP rank sends 1/tp of a pipeline activation and the "
      "receiver all-gathers it over TP (Megatron-LM before Megatron-Core; simulated only)",
      NULL },
    { "no-scatter-gather-tensors-in-pipeline", 0, G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_HIDDEN,
      G_OPTION_ARG_CALLBACK, CB (on_flag), NULL, NULL },
    { "optimizer-offload", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, CB (on_flag),
      "Optimizer states in host memory", NULL },
    { "offload-optimizer", 0, G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, CB (on_flag), NULL, NULL },
    { "ddp-bucket-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "DP gradient bucket in elements (default 40M)", "N" },
    { "rank-order", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_option),
      "Axis order innermost first (default tp-cp-ep-dp-pp)", "ORDER" },
    { NULL },
  };
#undef CB
  return g_memdup2 (entries, sizeof entries);
}

GOptionGroup *
plan_option_group_new (Plan *plan, PlanArgs *args)
{
  PlanParse *pp = g_new0 (PlanParse, 1);
  pp->plan = plan;
  pp->args = args;

  GOptionGroup *group = g_option_group_new ("plan", "Parallel plan (Megatron-LM flag names):",
                                            "Show the plan options", pp, plan_parse_free);
  g_option_group_set_parse_hooks (group, NULL, plan_parse_check);
  g_autofree GOptionEntry *entries = plan_entries_new (args);
  g_option_group_add_entries (group, entries);
  return group;
}

const GOptionEntry *
plan_option_entries (void)
{
  /* string options write into this, were anyone to parse with them */
  static PlanArgs unused;
  static GOptionEntry *entries;
  static gsize once;
  if (g_once_init_enter (&once))
    {
      entries = plan_entries_new (&unused);
      g_once_init_leave (&once, 1);
    }
  return entries;
}

void
plan_args_clear (PlanArgs *args)
{
  if (args == NULL)
    return;
  g_clear_pointer (&args->model_name, g_free);
  g_clear_pointer (&args->cluster_name, g_free);
  g_clear_pointer (&args->plan_file, g_free);
}

/* The groups of more than one rank of `order` (dp unknown, 0, counts), innermost first,
 * as one string ("tpdppp"): two orders with the same key place every rank alike, a group
 * of one being nowhere. A dp not derived yet is the world over tp x cp x pp where that
 * divides (the search checks its candidates before dp is derived: at dp 1 it counted
 * every pp > 1 plan of the meta-llama3 stack, whose order puts dp outside pp, as laid
 * out otherwise than the stack does, which predict ran). g_free it. */
static char *
layout_key (const Plan *plan, const char *order)
{
  static const char *const dims[] = { "tp", "cp", "ep", "dp", "pp" };
  int dp = plan->dp;
  const gint64 model = (gint64) plan->tp * plan->cp * plan->pp;
  if (dp == 0 && plan->world_size > 0 && model > 0 && plan->world_size % model == 0)
    dp = (int) (plan->world_size / model);
  const int deg[] = { plan->tp, plan->cp, plan->ep, dp, plan->pp };
  GString *key = g_string_new (NULL);
  g_auto (GStrv) parts = g_strsplit (order, "-", -1);
  for (char **p = parts; *p; p++)
    for (int d = 0; d < 5; d++)
      if (g_str_equal (*p, dims[d]) && (deg[d] > 1 || deg[d] == 0))
        g_string_append (key, dims[d]);
  return g_string_free (key, FALSE);
}

/* Whether the plan's rank order lays ranks out as one the stack offers (layout_key). */
static gboolean
rank_order_offered (const Plan *plan, const FwStack *stack)
{
  g_autofree char *mine = layout_key (plan, plan->rank_order ? plan->rank_order
                                                             : "tp-cp-ep-dp-pp");
  gboolean ok = FALSE;
  for (char **r = stack->offers_rank_orders; *r != NULL && !ok; r++)
    {
      g_autofree char *theirs = layout_key (plan, *r);
      ok = g_str_equal (mine, theirs);
    }
  return ok;
}

void
plan_apply_stack_rank_order (Plan *plan, const FwStack *stack)
{
  g_return_if_fail (plan != NULL && stack != NULL);
  if (plan->rank_order_set || stack->offers_rank_orders == NULL
      || rank_order_offered (plan, stack))
    return;
  g_free (plan->rank_order);
  plan->rank_order = g_strdup (stack->offers_rank_orders[0]);
}

gboolean
plan_check_recompute_flags (const Plan *plan, GError **error)
{
  if (plan->recompute == PLAN_RECOMPUTE_FULL
      || (plan->recompute_method != PLAN_RECOMPUTE_BLOCK && plan->recompute_num_layers <= 0))
    return TRUE;
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID, "%s applies to --recompute-granularity "
               "full only, and this plan's recompute is %s (hint: add "
               "--recompute-granularity full, or drop it)",
               plan->recompute_method == PLAN_RECOMPUTE_BLOCK ? "--recompute-method block"
               : "--recompute-num-layers", plan_recompute_name (plan->recompute));
  return FALSE;
}

gboolean
plan_check_stack (const Plan *plan, const FwStack *stack, GError **error)
{
  g_return_val_if_fail (plan != NULL && stack != NULL, FALSE);
  if (plan->compile && stack->compile == FW_OPT_NO)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--compile: the %s stack has no compiled mode (fusion %s) (hint: drop the "
                   "flag, or --framework torchtitan for torch.compile)", stack->name,
                   fw_fusion_name (stack->fusion));
      return FALSE;
    }
  if (plan->async_tp && stack->async_tp == FW_OPT_NO)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--async-tp: the %s stack has no async TP (hint: --tp-comm-overlap for "
                   "its own TP overlap, or --framework torchtitan)", stack->name);
      return FALSE;
    }
  /* a TP-comm overlap the stack has in no form (deepspeed, pytorch-fsdp, ...): refused
   * as the search leaves it out of that stack's space, not costed as Megatron's */
  if (plan->tp_comm_overlap && !plan->async_tp && stack->tp_comm_overlap == FW_OPT_NO
      && stack->async_tp == FW_OPT_NO)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--tp-comm-overlap: the %s stack does not offer it (hint: drop the flag, "
                   "or --framework megatron-core or nemo)", stack->name);
      return FALSE;
    }
  /* a stack whose TP overlap is async TP, and async TP only where asked (TorchTitan:
   * "offered only as async TP; no separate userbuffers-style overlap", its preset): the
   * plain flag would be costed as TE's userbuffers overlap, which that stack does not run
   * (the search turns its TP-overlap candidates into async TP the same way) */
  if (plan->tp_comm_overlap && !plan->async_tp && stack->async_tp == FW_OPT_OPTIONAL
      && stack->tp_comm_overlap != FW_OPT_DEFAULT)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--tp-comm-overlap: the %s stack overlaps TP only as async TP (hint: "
                   "--async-tp --compile instead)", stack->name);
      return FALSE;
    }
  if (plan->ep > 1 && !stack->offers_ep)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--ep %d: the %s stack has no expert parallelism (hint: --ep 1, each "
                   "rank holding its layers' experts whole, or --framework megatron-core / "
                   "torchtitan / deepspeed)", plan->ep, stack->name);
      return FALSE;
    }
  /* low-precision GEMMs the stack does not run: costed otherwise as that stack's FP8 (a
   * stack whose fp8.ops is "none" has no FP8 training at all, frameworks/stack.h), which
   * would predict a speed-up the framework cannot give */
  if ((plan->compute_dtype == PLAN_PREC_FP8 || plan->compute_dtype == PLAN_PREC_FP4)
      && stack->fp8_ops == FW_FP8_NONE)
    {
      /* a stack file that leaves "fp8" out gets the loader's default, no FP8 training */
      gboolean file = stack->source != NULL && !g_str_has_prefix (stack->source, "preset:");
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--precision %s: the %s stack has no FP8 training (its fp8.ops is none%s) "
                   "(hint: --precision bf16, or --framework megatron-core / nemo / "
                   "torchtitan%s)",
                   plan->compute_dtype == PLAN_PREC_FP4 ? "nvfp4" : "fp8", stack->name,
                   file ? ", the default of a stack file without \"fp8\"" : "",
                   file ? "; a stack file whose framework trains in FP8 says so with "
                          "\"fp8\": {\"ops\": \"gemm\"}" : "");
      return FALSE;
    }
  if (plan->compute_dtype == PLAN_PREC_FP4 && !stack->nvfp4)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--precision nvfp4: the %s stack has no NVFP4 recipe (hint: --precision "
                   "fp8, or --framework megatron-core / nemo)", stack->name);
      return FALSE;
    }
  if (plan->fp8_recipe == FW_SCALING_BLOCK && !stack->mxfp8)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--fp8-recipe mxfp8: the %s stack has no MXFP8 recipe (hint: --fp8-recipe "
                   "tensorwise, or --framework megatron-core / nemo / torchtitan)", stack->name);
      return FALSE;
    }
  /* Per-tensor scaling: the Transformer Engine stacks (delayed by default) run both
   * delayed and current scaling (TE's DelayedScaling and Float8CurrentScaling); torchao's
   * float8 (the stacks whose default is current scaling: torchtitan, pytorch-fsdp, NeMo
   * AutoModel) has no delayed scaling since 2025 (torchtitan PR 812 "Delete delayed
   * scaling", 30 Jan 2025; torchao PR 1753, 21 Feb 2025), and DeepSeek's blockwise stack
   * neither. A recipe the stack does not run was costed as asked without a word
   * (torchtitan with delayed scaling read 6.6% faster than with its own). */
  if (stack->fp8_ops != FW_FP8_NONE && !plan->fp8_recipe_as_run
      && ((plan->fp8_recipe == FW_SCALING_DELAYED && stack->fp8_scaling != FW_SCALING_DELAYED)
          || (plan->fp8_recipe == FW_SCALING_CURRENT
              && stack->fp8_scaling == FW_SCALING_BLOCKWISE)))
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--fp8-recipe %s: the %s stack has no %s scaling (hint: --fp8-recipe %s, "
                   "its own, or --framework megatron-core / nemo)",
                   plan_fp8_recipe_name (plan->fp8_recipe), stack->name,
                   plan_fp8_recipe_name (plan->fp8_recipe),
                   plan_fp8_recipe_name (stack->fp8_scaling));
      return FALSE;
    }
  if ((plan->fp8_recipe == FW_SCALING_BLOCKWISE && !stack->blockwise)
      || (plan->fp8_recipe == FW_SCALING_ROWWISE && !stack->rowwise))
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--fp8-recipe %s: the %s stack has no %s recipe (hint: --fp8-recipe "
                   "tensorwise, or --framework %s)", plan_fp8_recipe_name (plan->fp8_recipe),
                   stack->name, plan_fp8_recipe_name (plan->fp8_recipe),
                   plan->fp8_recipe == FW_SCALING_ROWWISE ? "torchtitan (torchao float8)"
                                                          : "megatron-core / nemo");
      return FALSE;
    }
  if (plan->async_tp && !plan->compile && stack->compile != FW_OPT_DEFAULT)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--async-tp: async TP needs a compiled model (TorchTitan refuses "
                   "enable_async_tensor_parallel without compiling the model) (hint: add "
                   "--compile)");
      return FALSE;
    }
  /* the copy into the reduce-scatter bucket is what Megatron-FSDP does without the fusion
   * (plan.h zero3_grad_copy_in); under other sharding the gradient buffer's accumulation
   * without the fusion is not modelled, so the flag would change nothing */
  if (plan->zero3_grad_copy_in > 0 && plan->sharding != PLAN_SHARD_ZERO3
      && plan->sharding != PLAN_SHARD_HSDP)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--no-gradient-accumulation-fusion is modelled for fully sharded plans "
                   "(Megatron-FSDP's copy of each micro-batch's gradients into the "
                   "reduce-scatter bucket), and this plan's sharding is %s (hint: add "
                   "--sharding zero3, or drop the flag)", plan_sharding_name (plan->sharding));
      return FALSE;
    }
  if (plan->sharding == PLAN_SHARD_HSDP && !stack->hsdp)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--sharding hsdp: the %s stack does not offer HSDP (hint: zero3, or "
                   "--framework torchtitan, pytorch-fsdp, deepspeed, llm-foundry or maxtext)",
                   stack->name);
      return FALSE;
    }
  /* the sharding, pipeline schedule, CP exchange and rank order the stack offers
   * (frameworks/stack.h offers_*: a run of that framework cannot ask for another one) */
  G_STATIC_ASSERT (PLAN_SHARD_NONE == 0 && PLAN_SHARD_ZERO3 == 3 && PLAN_SHARD_HSDP == 4);
  G_STATIC_ASSERT (PLAN_SCHED_GPIPE == 0 && PLAN_SCHED_1F1B == 1
                   && PLAN_SCHED_INTERLEAVED_1F1B == 2 && PLAN_SCHED_DUALPIPE == 3);
  G_STATIC_ASSERT (PLAN_CP_P2P == 0 && PLAN_CP_ALLGATHER == 1 && PLAN_CP_A2A == 2);
  if (!((stack->offers_sharding >> plan->sharding) & 1))
    {
      g_autofree char *list = fw_offer_list_text (stack->offers_sharding,
                                                  fw_offer_sharding_names);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--sharding %s: the %s stack does not offer it (hint: --sharding %s, or "
                   "another --framework)", plan_sharding_name (plan->sharding), stack->name,
                   list);
      return FALSE;
    }
  if (plan->pp > 1 && stack->offers_schedules == 0)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--pp %d: the %s stack has no pipeline parallelism (hint: --pp 1, or "
                   "another --framework)", plan->pp, stack->name);
      return FALSE;
    }
  if (plan->pp > 1 && !((stack->offers_sharding_pp >> plan->sharding) & 1))
    {
      g_autofree char *list = fw_offer_list_text (stack->offers_sharding_pp,
                                                  fw_offer_sharding_names);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--sharding %s with --pp %d: the %s stack does not combine them (hint: "
                   "--sharding %s, or --pp 1)", plan_sharding_name (plan->sharding), plan->pp,
                   stack->name, list);
      return FALSE;
    }
  if (plan->pp > 1 && !((stack->offers_schedules >> plan->schedule) & 1))
    {
      static const char *const sched_names[] = { "GPipe", "1F1B", "Interleaved1F1B",
                                                 "DualPipe", NULL };
      g_autofree char *list = fw_offer_list_text (stack->offers_schedules, sched_names);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--schedule %s: the %s stack does not offer it (it offers %s)",
                   plan_schedule_name (plan->schedule), stack->name, list);
      return FALSE;
    }
  if (plan->cp > 1 && stack->offers_cp_comm == 0)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--cp %d: the %s stack has no context parallelism (hint: --cp 1, or "
                   "another --framework)", plan->cp, stack->name);
      return FALSE;
    }
  if (plan->cp > 1 && !((stack->offers_cp_comm >> plan->cp_comm) & 1))
    {
      g_autofree char *list = fw_offer_list_text (stack->offers_cp_comm, fw_offer_cp_names);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--cp-comm-type %s: the %s stack does not offer it (hint: --cp-comm-type %s)",
                   fw_offer_cp_names[plan->cp_comm], stack->name, list);
      return FALSE;
    }
  if (stack->offers_rank_orders != NULL && !rank_order_offered (plan, stack))
    {
      g_autofree char *list = g_strjoinv (" or ", stack->offers_rank_orders);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--rank-order %s: the %s stack lays ranks out as %s (hint: --rank-order %s)",
                   plan->rank_order ? plan->rank_order : "tp-cp-ep-dp-pp", stack->name, list,
                   stack->offers_rank_orders[0]);
      return FALSE;
    }
  if (plan->moe_shared_expert_overlap && stack->moe_shared_expert_overlap == FW_OPT_NO)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--moe-shared-expert-overlap: the %s stack does not offer it (hint: drop "
                   "the flag or pick --framework megatron-core)", stack->name);
      return FALSE;
    }
  /* Megatron-Core's MoEAlltoAllTokenDispatcher (token_dispatcher.py): drop_and_pad is its
   * option, and its __init__ asserts moe_expert_capacity_factor is set */
  if (plan->moe_pad_to_capacity && !(plan->moe_capacity_factor > 0))
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--moe-pad-expert-input-to-capacity pads to a capacity that "
                   "--moe-expert-capacity-factor sets (hint: add --moe-expert-capacity-factor 1)");
      return FALSE;
    }
  if (plan->moe_pad_to_capacity
      && (plan->moe_dispatcher != PLAN_MOE_ALLTOALL || !stack->moe_dispatch_host_sync))
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--moe-pad-expert-input-to-capacity is an option of Megatron-Core's alltoall "
                   "token dispatcher (hint: --moe-token-dispatcher-type alltoall with "
                   "--framework megatron-core or nemo)");
      return FALSE;
    }
  /* the backend is the flex dispatcher's (Megatron-Core's moe_flex_dispatcher_backend,
   * read by its MoEFlexTokenDispatcher only): with another dispatcher it would change
   * nothing, so the plan would not be what its flags say */
  if (plan->moe_flex_backend == PLAN_MOE_FLEX_HYBRIDEP && plan->moe_dispatcher != PLAN_MOE_FLEX)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--moe-flex-dispatcher-backend hybridep selects a backend of the flex token "
                   "dispatcher, and this plan's dispatcher is not flex (hint: add "
                   "--moe-token-dispatcher-type flex)");
      return FALSE;
    }
  if (plan->moe_a2a_overlap && stack->moe_a2a_overlap == FW_OPT_NO)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--overlap-moe-expert-parallel-comm: the %s stack does not offer it (hint: "
                   "drop the flag or pick --framework megatron-core)", stack->name);
      return FALSE;
    }
  /* Transformer Engine's all-to-all attention (AttnFuncWithCPAndQKVOA2A) runs its fused
   * kernels only (the stacks that take it mark it with cp.a2a_kv_heads "divide") */
  if (plan->cp > 1 && plan->cp_comm == PLAN_CP_A2A && stack->cp_a2a_kv_divide
      && plan->attention_backend == PLAN_ATTN_UNFUSED)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "Ulysses (a2a) context parallelism on the %s stack runs Transformer "
                   "Engine's fused attention only (hint: --attention-backend flash, or "
                   "--cp 1)", stack->name);
      return FALSE;
    }
  /* Megatron-Core's other asserts on --overlap-moe-expert-parallel-comm
   * (TransformerConfig.__post_init__, 0.14+): expert parallelism ("only supported with
   * expert model parallelism"), the alltoall or flex dispatcher, no full recomputation,
   * bf16 or fp16 weights, and (later releases) no --moe-shared-expert-overlap beside it.
   * Each was accepted and simulated with the overlap's saving, and the search ranked
   * such plans first (DeepSeek-V3 with full recompute and both overlaps). */
  if (plan->moe_a2a_overlap && stack->moe_a2a_overlap == FW_OPT_OPTIONAL)
    {
      const char *why = NULL, *hint = NULL;
      if (plan->ep <= 1)
        why = "is only supported with expert parallelism (an ep above one)",
        hint = "--ep 2 or more";
      else if (plan->moe_dispatcher != PLAN_MOE_ALLTOALL && plan->moe_dispatcher != PLAN_MOE_FLEX)
        why = "needs the alltoall or flex token dispatcher",
        hint = "--moe-token-dispatcher-type alltoall";
      else if (plan->recompute == PLAN_RECOMPUTE_FULL)
        why = "does not run with full recomputation", hint = "--recompute-granularity selective";
      else if (plan->moe_shared_expert_overlap)
        why = "does not run beside --moe-shared-expert-overlap",
        hint = "drop --moe-shared-expert-overlap";
      else if (plan->compute_dtype == PLAN_PREC_FP32)
        why = "needs bf16 or fp16 weights", hint = "--bf16";
      if (why != NULL)
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                       "--overlap-moe-expert-parallel-comm %s on the %s stack (Megatron-Core "
                       "asserts it) (hint: %s, or drop the overlap)", why, stack->name, hint);
          return FALSE;
        }
    }
  /* Megatron-Core's combined 1F1B with PP > 1 extends the interleaved schedule:
   * "pipeline_model_parallel_size > 1 requires virtual pipeline parallelism"
   * (moe_a2a_overlap.md); its arguments.py asserts it */
  if (plan->moe_a2a_overlap && stack->moe_a2a_overlap == FW_OPT_OPTIONAL && plan->pp > 1
      && plan->vpp <= 1)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--overlap-moe-expert-parallel-comm with --pp %d needs virtual pipeline "
                   "stages on the %s stack (hint: add --vpp 2 or more)", plan->pp,
                   stack->name);
      return FALSE;
    }
  return TRUE;
}

gboolean
plan_check_stack_model (const Plan *plan, const ModelSpec *model, const FwStack *stack,
                        GError **error)
{
  g_return_val_if_fail (plan != NULL && model != NULL && stack != NULL, FALSE);
  /* Ulysses on a stack whose all-to-all attention needs the KV heads split, not repeated
   * (Transformer Engine's AttnFuncWithCPAndQKVOA2A asserts that the key heads of a rank
   * divide by the CP size: the stack's "cp.a2a_kv_heads" source). plan_validate lets a
   * CP degree that the KV heads divide through, for the stacks that repeat each KV head
   * to cp / kv ranks; on these it would fail at the first forward. Below one KV head a TP
   * rank (kv < tp) Megatron-Core repeats them to one a rank. */
  if (plan->cp > 1 && plan->cp_comm == PLAN_CP_A2A && stack->cp_a2a_kv_divide
      && plan->tp > 0 && model->n_kv_heads > 0)
    {
      const guint64 kv = MAX (model->n_kv_heads / (guint64) plan->tp, 1);
      if (kv % (guint64) plan->cp != 0)
        {
          int best = 1;
          for (int d = 1; d <= plan->cp; d++)
            if (kv % (guint64) d == 0)
              best = d;
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
                       "Ulysses (a2a) context parallelism of degree %d on the %s stack "
                       "needs it to divide the KV heads per TP rank, %" G_GUINT64_FORMAT ": "
                       "Transformer Engine's all-to-all attention splits K and V by heads and "
                       "does not repeat them (hint: --cp %d, --cp-comm-type p2p, or a smaller "
                       "--tp)", plan->cp, stack->name, kv, best);
          return FALSE;
        }
    }
  /* Megatron-Core (TransformerConfig, with shared experts): "moe_shared_expert_overlap
   * only works with alltoall token dispatcher" (later releases: "alltoall or flex") */
  if (plan->moe_shared_expert_overlap && stack->moe_shared_expert_overlap == FW_OPT_OPTIONAL
      && model->shared_expert_ffn > 0 && plan->moe_dispatcher == PLAN_MOE_ALLGATHER)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
                   "--moe-shared-expert-overlap works with the alltoall or flex token "
                   "dispatcher on the %s stack, not allgather (Megatron-Core asserts it) "
                   "(hint: --moe-token-dispatcher-type alltoall, or drop the overlap)",
                   stack->name);
      return FALSE;
    }
  return TRUE;
}

void
plan_apply_stack_moe (Plan *plan, const FwStack *stack)
{
  g_return_if_fail (plan != NULL && stack != NULL);
  if (plan->ep > 1 && stack->moe_a2a_overlap == FW_OPT_DEFAULT)
    plan->moe_a2a_overlap = TRUE;
  if (plan->ep > 1 && stack->moe_shared_expert_overlap == FW_OPT_DEFAULT)
    plan->moe_shared_expert_overlap = TRUE;
}

void
plan_stack_fold_error (const Plan *plan, const FwStack *stack, GError **error)
{
  g_return_if_fail (plan != NULL && stack != NULL);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
               "the %s stack lays ranks out as %s, and this plan's expert layout (etp x "
               "ep x edp) does not fold onto that order's pipeline stages (hint: --pp 1, "
               "or another --framework whose rank orders keep pp outermost, e.g. "
               "megatron-core)", stack->name, plan->rank_order);
}

gboolean
plan_adopt_stack (Plan *plan, const FwStack *stack, GError **error)
{
  g_return_val_if_fail (plan != NULL && stack != NULL, FALSE);
  g_autofree char *order_before = g_strdup (plan->rank_order);
  plan_apply_stack_rank_order (plan, stack);
  /* the order the stack gave was never checked against the expert layout (meta-llama3's
   * tp-cp-pp-dp order took qwen3-30b-a3b at pp 2 cp 2, which no order the user gives for
   * it can fold) */
  if (g_strcmp0 (order_before, plan->rank_order) != 0 && !plan_check_fold (plan, NULL))
    {
      plan_stack_fold_error (plan, stack, error);
      return FALSE;
    }
  /* a CP exchange nobody chose follows the stack as the schedule does (meta-llama3 runs
   * the all-gather exchange alone; --cp 2 under it was refused for a "--cp-comm-type p2p"
   * never given) */
  if (!plan->cp_comm_set && plan->cp > 1 && stack->offers_cp_comm != 0
      && !((stack->offers_cp_comm >> plan->cp_comm) & 1))
    for (int k = 0; k < 3; k++)
      if ((stack->offers_cp_comm >> k) & 1)
        {
          plan->cp_comm = (PlanCpComm) k;
          break;
        }
  /* a schedule nobody chose follows the stack as its rank order does: MaxText's pipeline
   * is GPipe alone, and --pp 2 under it was refused for a "--schedule 1F1B" never given */
  if (!plan->schedule_set && plan->pp > 1 && plan->vpp <= 1
      && !((stack->offers_schedules >> plan->schedule) & 1))
    {
      if ((stack->offers_schedules >> PLAN_SCHED_1F1B) & 1)
        plan->schedule = PLAN_SCHED_1F1B;
      else if ((stack->offers_schedules >> PLAN_SCHED_GPIPE) & 1)
        plan->schedule = PLAN_SCHED_GPIPE;
    }
  /* the stack's own schedule where the plan names none (hai-llm: DualPipe, its
   * defaults.pp_schedule, the DeepSeek-V3 report Sec. 3.2.1), on a pipeline it can run:
   * one chunk a rank, an even pp, an even count of at least 2 pp micro-batches, one
   * schedule a step; validate reads such a row so (published.c), and predict ran 1F1B */
  if (!plan->schedule_set && plan->pp > 1 && plan->vpp <= 1 && stack->default_pp_dualpipe
      && plan->schedule != PLAN_SCHED_DUALPIPE
      && ((stack->offers_schedules >> PLAN_SCHED_DUALPIPE) & 1) && plan_dualpipe_pp_ok (plan->pp)
      && plan->grad_accum > 0 && plan_dualpipe_counts_ok (plan->pp, plan->grad_accum)
      && plan_pp_schedules (plan) <= 1)
    plan->schedule = PLAN_SCHED_DUALPIPE;
  /* a sharding nobody chose follows the stack where it does not run none (a stack of
   * FSDP alone, offers.sharding ["zero3", "hsdp"]: every plan was refused for a "--sharding
   * none" never given): its documented default, where that is a ZeRO stage it offers */
  const guint offered = plan->pp > 1 ? stack->offers_sharding_pp : stack->offers_sharding;
  if (!plan->sharding_set && plan->sharding == PLAN_SHARD_NONE
      && !((offered >> PLAN_SHARD_NONE) & 1)
      && (PlanSharding) stack->default_sharding != PLAN_SHARD_HSDP
      && ((offered >> (PlanSharding) stack->default_sharding) & 1))
    plan->sharding = (PlanSharding) stack->default_sharding;
  if (!plan_check_stack (plan, stack, error))
    return FALSE;
  plan_apply_stack_moe (plan, stack);
  return TRUE;
}

/* A Ulysses refusal (plan_resolve) for a stack whose only exchange is Ulysses (DeepSpeed):
 * its hint without "--cp-comm-type p2p", which the stack refuses, nor another stack's
 * rule; NULL where the message is no Ulysses refusal or the stack offers p2p. DeepSpeed's
 * default Ulysses and a typed --cp-comm-type a2a both hinted p2p, which the stack then
 * refused. */
char *
plan_ulysses_message_for_stack (const char *message, const FwStack *stack)
{
  if (stack == NULL || message == NULL || ((stack->offers_cp_comm >> PLAN_CP_P2P) & 1)
      || !g_str_has_prefix (message, "Ulysses"))
    return NULL;
  g_autoptr (GRegex) te = g_regex_new (" \\(--cp \\d+ on Megatron-Core and NeMo[^)]*\\)",
                                       0, 0, NULL);
  g_autofree char *a = g_regex_replace_literal (te, message, -1, 0, "", 0, NULL);
  GString *m = g_string_new (a);
  g_string_replace (m, ", or --cp-comm-type p2p", "", 0);
  /* the KV rule's hint was p2p alone: the degrees that divide the KV heads instead */
  g_string_replace (m, " (hint: --cp-comm-type p2p)",
                    " (hint: a --cp that divides the KV heads per TP rank, or that they divide)", 0);
  return g_string_free (m, FALSE);
}

gboolean
plan_adopt_stack_resolve (Plan *plan, const FwStack *stack, const ModelSpec *model,
                          const TopoCluster *cluster, GError **error)
{
  const PlanSchedule schedule = plan->schedule;
  const PlanSharding sharding = plan->sharding;
  const PlanCpComm cp_comm = plan->cp_comm;
  if (!plan_adopt_stack (plan, stack, error))
    return FALSE;
  /* a schedule, sharding or CP exchange the stack chose: resolved again, as its checks and
   * derived counts depend on them (DeepSpeed's Ulysses, taken by default, was never
   * checked against the heads: tiny-llama at tp 4 cp 4, 2 heads a TP rank, ran, at 137%
   * MFU) */
  if (plan->schedule != schedule || plan->sharding != sharding || plan->cp_comm != cp_comm)
    {
      GError *local = NULL;
      if (plan_resolve (plan, model, cluster, &local))
        return TRUE;
      /* an exchange the stack chose, where it offers no other: the hint names no
       * --cp-comm-type the stack refuses, nor another stack's rule (DeepSpeed's Ulysses
       * hinted "--cp-comm-type p2p", which the stack then refused) */
      g_autofree char *m = plan_ulysses_message_for_stack (local->message, stack);
      if (plan->cp_comm != cp_comm && m != NULL)
        {
          g_set_error (error, local->domain, local->code, "the %s stack's context parallelism "
                       "is Ulysses (all-to-all), its only exchange: %s", stack->name, m);
          g_error_free (local);
          return FALSE;
        }
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}
