/* tests/plan/test-plan.c - flags, plan JSON, derivation and validation of plans. */
#define PLAN_FIXTURE_MODEL "llama3-405b"
#include "plan-fixture.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* Parses a space-separated flag string into f->plan; returns the parse result. */
static gboolean
parse_flags (Fixture *f, const char *flags, GError **error)
{
  return plan_flags_parse (&f->plan, &f->args, flags, error);
}

static gboolean
parse_and_resolve (Fixture *f, const char *flags, GError **error)
{
  if (!parse_flags (f, flags, error))
    return FALSE;
  return plan_resolve (&f->plan, f->model, f->cluster, error);
}

/* The Llama 3 405B plan (Llama 3 paper Table 4, row 2): TP8 PP16 on 16,384 GPUs,
 * seq 8192, global batch 2048; dp = 16384 / (8 x 16) = 128; micro-batches per step =
 * 2048 / (1 x 128) = 16. 126 layers on 16 stages: 7 + 14 x 8 + 7 = 126. */
static void
test_llama3_plan (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (parse_and_resolve (f, "--tp 8 --pp 16 --gpus 16384 --seq-length 8192 "
                                    "--gbs 2048 --decoder-first-pipeline-num-layers 7 "
                                    "--decoder-last-pipeline-num-layers 7", &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.dp, ==, 128);
  g_assert_cmpint (f->plan.grad_accum, ==, 16);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 0), ==, 7);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 1), ==, 8);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 14), ==, 8);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 15), ==, 7);
  int total = 0;
  for (int s = 0; s < 16; s++)
    total += plan_stage_layers (&f->plan, f->model, s);
  g_assert_cmpint (total, ==, 126);
  /* Stage 1 starts after stage 0's 7 layers. */
  g_assert_cmpint (plan_chunk_first_layer (&f->plan, f->model, 1, 0), ==, 7);
  g_assert_cmpint (f->plan.schedule, ==, PLAN_SCHED_1F1B);
}

/* plan_chunk_first_layer is the running sum of the model chunks before it, for every
 * chunk of every stage: an even split, uneven first / last stages (interleaved or not),
 * the embedding and loss taking a slot (128 slots over 16 x 8 and 8 x 2 chunks), and a
 * last chunk of 12 with 114 = 19 x 6 before it. The closed form adds chunk 0 and the
 * middle chunks' count. */
static void
test_chunk_first_layer_sums (Fixture *f, gconstpointer data)
{
  static const char *const plans[] = {
    "--tp 8 --pp 14 --gpus 14336 --gbs 2048",
    "--tp 8 --pp 16 --gpus 16384 --gbs 2048 --decoder-first-pipeline-num-layers 7 "
    "--decoder-last-pipeline-num-layers 7",
    "--tp 8 --pp 16 --vpp 4 --gpus 16384 --gbs 2048 --first-chunk-layers 1 "
    "--last-chunk-layers 1",
    /* Megatron's stage split at vpp 2: 12 layers on stage 0 (6 a chunk), 2 on stage 15
     * (1 a chunk), 126 - 14 = 112 = 14 x 8 on the middle stages (4 a chunk) */
    "--tp 8 --pp 16 --vpp 2 --gpus 16384 --gbs 2048 --decoder-first-pipeline-num-layers 12 "
    "--decoder-last-pipeline-num-layers 2",
    "--tp 8 --pp 16 --vpp 8 --gpus 16384 --gbs 2048 "
    "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split",
    "--tp 8 --pp 8 --vpp 2 --gpus 16384 --gbs 2048 "
    "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split",
    "--tp 8 --pp 2 --gpus 16384 --gbs 2048 --decoder-first-pipeline-num-layers 60",
    "--tp 8 --pp 5 --vpp 4 --gpus 1280 --gbs 2560 --last-chunk-layers 12",
  };
  for (guint i = 0; i < G_N_ELEMENTS (plans); i++)
    {
      g_autoptr (GError) error = NULL;
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      plan_args_clear (&f->args);
      memset (&f->args, 0, sizeof f->args);
      gboolean ok = parse_and_resolve (f, plans[i], &error);
      g_assert_no_error (error);
      g_assert_true (ok);
      int n_chunks = f->plan.pp * MAX (f->plan.vpp, 1);
      for (int st = 0; st < f->plan.pp; st++)
        for (int c = 0; c < plan_rank_chunks (&f->plan); c++)
          {
            int target = plan_model_chunk (&f->plan, st, c), sum = 0;
            g_assert_cmpint (target, <, n_chunks);
            /* every (stage, chunk) whose model chunk comes before the target */
            for (int s2 = 0; s2 < f->plan.pp; s2++)
              for (int c2 = 0; c2 < plan_rank_chunks (&f->plan); c2++)
                if (plan_model_chunk (&f->plan, s2, c2) < target)
                  sum += plan_chunk_layers (&f->plan, f->model, s2, c2);
            g_assert_cmpint (plan_chunk_first_layer (&f->plan, f->model, st, c), ==, sum);
          }
    }
}

/* Long flags and short aliases set the same fields. */
static void
test_aliases (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (parse_flags (f, "--tensor-model-parallel-size 4 --pipeline-model-parallel-size 2 "
                              "--context-parallel-size 2 --micro-batch-size 2 "
                              "--global-batch-size 64 --sequence-parallel "
                              "--use-distributed-optimizer --overlap-grad-reduce "
                              "--recompute-granularity selective --cp-comm-type a2a", &error));
  g_assert_no_error (error);
  Plan a;
  plan_copy (&a, &f->plan);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (parse_flags (f, "--tp 4 --pp 2 --cp 2 --mbs 2 --gbs 64 --sp --sharding zero1 "
                              "--overlap-grad-reduce --recompute-granularity selective "
                              "--cp-comm-type a2a", &error));
  g_assert_cmpint (a.tp, ==, 4);
  g_assert_cmpint (f->plan.tp, ==, 4);
  g_assert_cmpint (a.pp, ==, f->plan.pp);
  g_assert_cmpint (a.cp, ==, f->plan.cp);
  g_assert_cmpint (a.micro_batch, ==, 2);
  g_assert_cmpint (f->plan.micro_batch, ==, 2);
  g_assert_cmpint (a.global_batch, ==, f->plan.global_batch);
  g_assert_true (a.sequence_parallel && f->plan.sequence_parallel);
  g_assert_cmpint (a.sharding, ==, PLAN_SHARD_ZERO1);
  g_assert_cmpint (f->plan.sharding, ==, PLAN_SHARD_ZERO1);
  g_assert_cmpint (a.recompute, ==, PLAN_RECOMPUTE_SELECTIVE);
  g_assert_cmpint (a.cp_comm, ==, PLAN_CP_A2A);
  g_assert_true (a.overlap_grad_reduce);
  g_assert_cmpint (a.attention_backend, ==, PLAN_ATTN_FLASH);     /* the default */
  plan_clear (&a);

  /* Megatron-Core's --attention-backend names: unfused and local materialize the
   * scores; flash, fused and auto run a fused kernel */
  static const struct { const char *v; PlanAttnBackend want; } backends[] = {
    { "unfused", PLAN_ATTN_UNFUSED }, { "local", PLAN_ATTN_UNFUSED },
    { "flash", PLAN_ATTN_FLASH }, { "fused", PLAN_ATTN_FLASH }, { "auto", PLAN_ATTN_FLASH },
  };
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_autofree char *flags = g_strdup_printf ("--attention-backend %s", backends[i].v);
      g_assert_true (parse_flags (f, flags, &error));
      g_assert_no_error (error);
      g_assert_cmpint (f->plan.attention_backend, ==, backends[i].want);
    }
  g_autofree char *str = plan_to_string (&f->plan);
  g_assert_null (strstr (str, "unfused"));
  f->plan.attention_backend = PLAN_ATTN_UNFUSED;
  g_autofree char *str2 = plan_to_string (&f->plan);
  g_assert_nonnull (strstr (str2, "-unfused"));
}

static void
test_sharding_names (Fixture *f, gconstpointer data)
{
  static const struct { const char *name; PlanSharding level; int k; } cases[] = {
    { "none", PLAN_SHARD_NONE, 0 }, { "ddp", PLAN_SHARD_NONE, 0 },
    { "zero1", PLAN_SHARD_ZERO1, 0 }, { "optim", PLAN_SHARD_ZERO1, 0 },
    { "zero2", PLAN_SHARD_ZERO2, 0 }, { "shard_grad_op", PLAN_SHARD_ZERO2, 0 },
    { "zero3", PLAN_SHARD_ZERO3, 0 }, { "fsdp", PLAN_SHARD_ZERO3, 0 },
    { "FULL_SHARD", PLAN_SHARD_ZERO3, 0 }, { "optim_grads_params", PLAN_SHARD_ZERO3, 0 },
    { "hsdp:8", PLAN_SHARD_HSDP, 8 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *flags = g_strdup_printf ("--sharding %s", cases[i].name);
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_assert_true (parse_flags (f, flags, &error));
      g_assert_cmpint (f->plan.sharding, ==, cases[i].level);
      if (cases[i].k)
        g_assert_cmpint (f->plan.hsdp_shard_size, ==, cases[i].k);
    }
  g_autoptr (GError) error = NULL;
  g_assert_false (parse_flags (f, "--sharding zero4", &error));
  g_assert_nonnull (strstr (error->message, "zero4"));
  g_clear_error (&error);
  g_assert_false (parse_flags (f, "--sharding hsdp", &error));
  g_assert_nonnull (strstr (error->message, "hsdp:8"));
}

/* --precision nvfp4 (or fp4): FP4 GEMMs with bf16 weights; the H100 of h100-24k has no
 * FP4 peak, so validation refuses the plan and names Blackwell. */
static void
test_precision_fp4 (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (parse_flags (f, "--precision nvfp4", &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.compute_dtype, ==, PLAN_PREC_FP4);
  g_assert_cmpint (f->plan.param_dtype, ==, PLAN_PREC_BF16);
  g_assert_cmpstr (plan_precision_name (f->plan.compute_dtype), ==, "fp4");
  g_assert_false (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_nonnull (strstr (error->message, "no FP4 (NVFP4) tensor cores"));
  g_assert_nonnull (strstr (error->message, "(hint: --precision fp8 or bf16;"));
  /* the hint offers only what the device has: an A100 has no FP8 either, a V100 no BF16 */
  static const struct { const char *cluster, *hint; } alt[] = {
    { "a100-40g-cluster", "(hint: --precision bf16;" },
    { "dgx-2h-v100-cluster", "(hint: --precision fp16;" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (alt); i++)
    {
      g_autoptr (TopoCluster) cl = topo_cluster_lookup (alt[i].cluster, NULL);
      g_assert_nonnull (cl);
      g_clear_error (&error);
      g_assert_false (plan_check_precision (&f->plan, cl, &error));
      if (strstr (error->message, alt[i].hint) == NULL)
        g_error ("%s: '%s' lacks '%s'", alt[i].cluster, error->message, alt[i].hint);
    }
}

/* --fp8-recipe (Megatron-LM's names, Megatron-Bridge's fp8cs / fp8sc, torchao's rowwise):
 * tensorwise sets current scaling and the plan's name says it; blockwise (FP8-SC) and
 * rowwise parse to their recipes; an unknown name is refused with the five names; a
 * recipe without FP8 GEMMs is refused; blockwise and rowwise need a stack that offers
 * them (megatron-core offers blockwise, not rowwise; torchtitan rowwise; deepspeed
 * neither); MXFP8
 * needs MXFP8 block-scaled GEMMs, which the H100 of h100-24k lacks (its preset has no
 * "mxfp8"), and a stack that offers it (deepspeed's preset has "mxfp8": false refuses). */
static void
test_fp8_recipe (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_cmpint (f->plan.fp8_recipe, ==, -1);
  g_assert_true (parse_and_resolve (f, "--fp8-format e4m3 --fp8-recipe tensorwise", &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.fp8_recipe, ==, FW_SCALING_CURRENT);
  g_autofree char *name = plan_to_string (&f->plan);
  g_assert_nonnull (strstr (name, "-fp8-tensorwise-"));
  g_assert_false (parse_flags (f, "--fp8-recipe per-block", &error));
  g_assert_nonnull (strstr (error->message, "hint: delayed, tensorwise, mxfp8, blockwise or "
                                            "rowwise"));
  g_clear_error (&error);
  const struct { const char *flag; int recipe; const char *name; } names[] = {
    { "blockwise", FW_SCALING_BLOCKWISE, "-fp8-blockwise-" },
    { "FP8-SC", FW_SCALING_BLOCKWISE, "-fp8-blockwise-" },
    { "fp8sc", FW_SCALING_BLOCKWISE, "-fp8-blockwise-" },
    { "fp8cs", FW_SCALING_CURRENT, "-fp8-tensorwise-" },
    { "rowwise", FW_SCALING_ROWWISE, "-fp8-rowwise-" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_autofree char *flags = g_strdup_printf ("--precision fp8 --fp8-recipe %s",
                                                names[i].flag);
      g_assert_true (parse_and_resolve (f, flags, &error));
      g_assert_no_error (error);
      g_assert_cmpint (f->plan.fp8_recipe, ==, names[i].recipe);
      g_autofree char *s = plan_to_string (&f->plan);
      g_assert_nonnull (strstr (s, names[i].name));
    }
  g_autoptr (FwStack) mc = fw_stack_load_preset ("megatron-core", &error);
  g_assert_no_error (error);
  g_autoptr (FwStack) tt = fw_stack_load_preset ("torchtitan", &error);
  g_assert_no_error (error);
  g_autoptr (FwStack) dss = fw_stack_load_preset ("deepspeed", &error);
  g_assert_no_error (error);
  g_assert_true (plan_check_stack (&f->plan, tt, &error));
  g_assert_false (plan_check_stack (&f->plan, mc, &error));
  g_assert_nonnull (strstr (error->message, "--fp8-recipe rowwise: the megatron-core stack has "
                                            "no rowwise recipe"));
  g_clear_error (&error);
  f->plan.fp8_recipe = FW_SCALING_BLOCKWISE;
  g_assert_true (plan_check_stack (&f->plan, mc, &error));
  g_assert_false (plan_check_stack (&f->plan, dss, &error));
  g_assert_nonnull (strstr (error->message, "the deepspeed stack has no blockwise recipe"));
  g_clear_error (&error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_false (parse_and_resolve (f, "--fp8-recipe delayed", &error));
  g_assert_nonnull (strstr (error->message, "applies to FP8 GEMMs, the plan computes in bf16"));
  g_clear_error (&error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_false (parse_and_resolve (f, "--precision fp8 --fp8-recipe mxfp8", &error));
  g_assert_nonnull (strstr (error->message, "has no MXFP8 block-scaled GEMMs"));
  g_clear_error (&error);
  g_autoptr (FwStack) ds = fw_stack_load_preset ("deepspeed", &error);
  g_assert_no_error (error);
  g_assert_false (plan_check_stack (&f->plan, ds, &error));
  g_assert_nonnull (strstr (error->message, "the deepspeed stack has no MXFP8 recipe"));
}

/* Low-precision GEMMs a stack does not run are refused, not costed as its FP8: a stack
 * whose fp8.ops is "none" (megatron-lm-2021: FP8 came with Hopper and Transformer Engine;
 * meta-llama3: the Llama 3 paper trains in BF16) refuses fp8 and nvfp4; a stack with FP8
 * but without "nvfp4" (torchtitan, deepspeed) refuses nvfp4 only; nemo runs both. */
static void
test_precision_stack (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  static const struct { const char *stack, *precision, *refusal; } cases[] = {
    { "megatron-lm-2021", "fp8", "--precision fp8: the megatron-lm-2021 stack has no FP8 training" },
    { "megatron-lm-2021", "nvfp4", "--precision nvfp4: the megatron-lm-2021 stack has no FP8 training" },
    { "meta-llama3", "fp8", "--precision fp8: the meta-llama3 stack has no FP8 training" },
    { "torchtitan", "fp8", NULL },
    { "torchtitan", "nvfp4", "--precision nvfp4: the torchtitan stack has no NVFP4 recipe" },
    { "deepspeed", "nvfp4", "--precision nvfp4: the deepspeed stack has no NVFP4 recipe" },
    { "nemo", "fp8", NULL },
    { "nemo", "nvfp4", NULL },
    { "megatron-lm-2021", "bf16", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_autofree char *flags = g_strdup_printf ("--precision %s", cases[i].precision);
      g_assert_true (parse_flags (f, flags, &error));
      g_assert_no_error (error);
      g_autoptr (FwStack) st = fw_stack_load_preset (cases[i].stack, &error);
      g_assert_no_error (error);
      gboolean ok = plan_check_stack (&f->plan, st, &error);
      if (cases[i].refusal == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          continue;
        }
      g_assert_false (ok);
      g_assert_nonnull (error);
      g_assert_true (g_str_has_prefix (error->message, cases[i].refusal));
      g_assert_nonnull (strstr (error->message, "(hint: "));
      g_clear_error (&error);
    }
}

/* Expert parallelism only where the stack has it ("offers": {"ep": false} on plain PyTorch
 * FSDP, Meta's dense Llama 3 stack and Megatron-LM of 2021): --ep 8 is refused there and
 * accepted by megatron-core; --ep 1 (experts whole on every rank) by all. */
static void
test_stack_ep (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  static const char *const none[] = { "pytorch-fsdp", "meta-llama3", "megatron-lm-2021" };
  g_autoptr (FwStack) mc = fw_stack_load_preset ("megatron-core", &error);
  g_assert_no_error (error);
  g_assert_true (mc->offers_ep);
  for (int ep = 1; ep <= 8; ep *= 8)
    {
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      f->plan.ep = ep;
      g_assert_true (plan_check_stack (&f->plan, mc, &error));
      g_assert_no_error (error);
      for (guint i = 0; i < G_N_ELEMENTS (none); i++)
        {
          g_autoptr (FwStack) st = fw_stack_load_preset (none[i], &error);
          g_assert_no_error (error);
          g_assert_false (st->offers_ep);
          gboolean ok = plan_check_stack (&f->plan, st, &error);
          g_assert_cmpint (ok, ==, ep == 1);
          if (ep == 1)
            continue;
          g_autofree char *want = g_strdup_printf ("--ep 8: the %s stack has no expert "
                                                   "parallelism (hint: --ep 1", none[i]);
          g_assert_true (g_str_has_prefix (error->message, want));
          g_clear_error (&error);
        }
    }
}

/* Volta has FP16 tensor cores and no BF16 (dgx-2h-v100-cluster has no bf16 peak): the
 * default bf16 plan is refused with the fp16 hint, --precision fp16 resolves, and an FP8
 * plan's hint names fp16 rather than bf16. */
static void
test_precision_v100 (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) v100 = topo_cluster_lookup ("dgx-2h-v100-cluster", &error);
  g_assert_no_error (error);
  g_assert_true (parse_flags (f, "--tp 8 --pp 1 --gpus 64 --gbs 64", &error));
  g_assert_false (plan_resolve (&f->plan, f->model, v100, &error));
  g_assert_cmpstr (error->message, ==,
                   "V100-SXM3-32GB has no BF16 tensor cores (hint: --precision fp16)");
  g_clear_error (&error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (parse_flags (f, "--tp 8 --pp 1 --gpus 64 --gbs 64 --precision fp16", &error));
  g_assert_true (plan_resolve (&f->plan, f->model, v100, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.compute_dtype, ==, PLAN_PREC_FP16);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (parse_flags (f, "--tp 8 --pp 1 --gpus 64 --gbs 64 --precision fp8", &error));
  g_assert_false (plan_resolve (&f->plan, f->model, v100, &error));
  g_assert_cmpstr (error->message, ==,
                   "V100-SXM3-32GB has no FP8 tensor cores (hint: --precision fp16)");
}

/* A GEMM dtype without a peak in the preset is refused, not timed by its bytes alone:
 * gb200-nvl72's device gives no fp32 peak (hardware.md A1 lists GB200 FP32 as unknown),
 * tpu-v5p-pod gives only bf16 and fp8, so fp16 and fp32 on TF32 units are refused there;
 * dgx-h100-superpod has all three (66.9 / 494.7 / 989.4 TFLOP/s) and resolves. */
static void
test_precision_no_peak (Fixture *f, gconstpointer data)
{
  static const struct { const char *cluster, *flags, *message; } cases[] = {
    { "gb200-nvl72", "--precision fp32",
      "--precision fp32: GB200-186GB has no fp32 peak in its preset, so its GEMMs cannot be "
      "timed (hint: --precision bf16, or a cluster file whose device has peak_tflops.fp32)" },
    { "tpu-v5p-pod", "--precision fp16",
      "--precision fp16: TPU-v5p has no fp16 peak in its preset, so its GEMMs cannot be "
      "timed (hint: --precision bf16, or a cluster file whose device has peak_tflops.fp16)" },
    { "tpu-v5p-pod", "--precision fp32 --fp32-matmul-precision high",
      "--precision fp32 --fp32-matmul-precision high: TPU-v5p has no tf32 peak in its "
      "preset, so its GEMMs cannot be timed (hint: --precision bf16, or a cluster file whose "
      "device has peak_tflops.tf32)" },
    /* a V100 has no BF16: the hint offers the fp16 it has (it offered --precision bf16,
     * refused there in turn) */
    { "dgx-2h-v100-cluster", "--precision fp32 --fp32-matmul-precision medium",
      "--precision fp32 --fp32-matmul-precision medium: V100-SXM3-32GB has no bf16 peak in "
      "its preset, so its GEMMs cannot be timed (hint: --precision fp16, or a cluster file "
      "whose device has peak_tflops.bf16)" },
    { "dgx-h100-superpod", "--precision fp32", NULL },
    { "dgx-h100-superpod", "--precision fp16", NULL },
    { "dgx-h100-superpod", "--precision fp32 --fp32-matmul-precision high", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (TopoCluster) cl = topo_cluster_lookup (cases[i].cluster, &error);
      g_assert_no_error (error);
      g_autofree char *flags = g_strdup_printf ("--tp 8 --pp 1 --gpus 8 --gbs 8 %s",
                                                cases[i].flags);
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_assert_true (parse_flags (f, flags, &error));
      gboolean ok = plan_resolve (&f->plan, f->model, cl, &error);
      if (cases[i].message == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
        }
      else
        {
          g_assert_false (ok);
          g_assert_cmpstr (error->message, ==, cases[i].message);
        }
    }
}

/* --tp-comm-overlap overlaps sequence parallelism's all-gather and reduce-scatter, so
 * without SP at tp > 1 it is refused as Megatron-LM's arguments.py asserts; with SP it
 * resolves, and at tp 1 (no TP communication, SP off) it is harmless. */
static void
test_tp_overlap_needs_sp (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_false (parse_and_resolve (f, "--tp 8 --pp 1 --gpus 8 --gbs 8 --tp-comm-overlap",
                                     &error));
  g_assert_cmpstr (error->message, ==, "--tp-comm-overlap needs sequence parallelism with "
                   "tp 8, as Megatron-LM asserts (hint: add --sequence-parallel)");
  g_clear_error (&error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (parse_and_resolve (f, "--tp 8 --pp 1 --gpus 8 --gbs 8 --tp-comm-overlap "
                                    "--sequence-parallel", &error));
  g_assert_no_error (error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (parse_and_resolve (f, "--tp 1 --pp 1 --gpus 8 --gbs 8 --tp-comm-overlap",
                                    &error));
  g_assert_no_error (error);
}

/* HSDP over dp = 16384 / 8 = 2048 DP ranks with shard groups of 8: sharded state is
 * divided by 8 (x cp = 1), replicated 256 times. ZeRO-3 divides by all 2048. */
static void
test_shards (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (parse_and_resolve (f, "--tp 8 --pp 1 --gpus 16384 --sharding hsdp:8 "
                                    "--gbs 2048", &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.dp, ==, 2048);
  g_assert_cmpint (plan_param_shards (&f->plan), ==, 8);
  g_assert_cmpint (plan_optim_shards (&f->plan), ==, 8);
  /* the same from TorchTitan's replicate degree: dp 2048 / 256 replicas = groups of 8,
   * alone or with --sharding zero3 (FSDP, which the replicas make hybrid) */
  static const char *const replicate[] = {
    "--tp 8 --pp 1 --gpus 16384 --data-parallel-replicate-degree 256 --gbs 2048",
    "--tp 8 --pp 1 --gpus 16384 --sharding zero3 --data-parallel-replicate-degree 256 "
    "--gbs 2048",
  };
  for (guint i = 0; i < G_N_ELEMENTS (replicate); i++)
    {
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_assert_true (parse_and_resolve (f, replicate[i], &error));
      g_assert_cmpint (f->plan.sharding, ==, PLAN_SHARD_HSDP);
      g_assert_cmpint (f->plan.hsdp_shard_size, ==, 8);
      g_assert_cmpint (plan_param_shards (&f->plan), ==, 8);
    }
  f->plan.sharding = PLAN_SHARD_ZERO3;
  g_assert_cmpint (plan_param_shards (&f->plan), ==, 2048);
  f->plan.sharding = PLAN_SHARD_ZERO1;
  g_assert_cmpint (plan_param_shards (&f->plan), ==, 1);
  g_assert_cmpint (plan_grad_shards (&f->plan), ==, 1);
  g_assert_cmpint (plan_optim_shards (&f->plan), ==, 2048);
}

/* GPT-3 175B has learned positions, a table of 2048 rows (n_positions): a sequence of
 * 4096 has no row for its tokens 2048-4095 and is refused, naming the limit and what to
 * pass (Megatron-LM asserts max_position_embeddings >= seq_length for them); 2048 fits. A
 * rotary model has no table: 405B takes 16384 and more (its own fixture, other tests). */
static void
test_learned_positions (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_false (parse_and_resolve (f, "--tp 8 --pp 8 --gpus 64 --gbs 64 --seq-length 4096",
                                     &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "seq length 4096 is longer than the 2048 learned "
                                            "positions of gpt3-175b"));
  g_assert_nonnull (strstr (error->message, "hint: --seq-length 2048"));
  g_clear_error (&error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (parse_and_resolve (f, "--tp 8 --pp 8 --gpus 64 --gbs 64 --seq-length 2048",
                                    &error));
  g_assert_no_error (error);
}

typedef struct {
  const char *flags;
  const char *expect;     /* substring of the message */
} BadPlan;

/* Each impossible plan fails with PLAN_ERROR and a message that explains it. */
static void
test_invalid_plans (Fixture *f, gconstpointer data)
{
  static const BadPlan cases[] = {
    /* 100 is not a multiple of 8 x 16 x 1 = 128 */
    { "--tp 8 --pp 16 --gpus 100", "not a multiple of tp x pp x cp" },
    /* 405B has 128 heads: tp 3 does not divide them */
    { "--tp 3 --gpus 3", "does not divide the 128 attention heads" },
    /* 8 KV heads: tp 16 divides 128 heads but not 8 KV heads */
    { "--tp 16 --gpus 16", "does not divide the 8 KV heads" },
    /* 126 layers on pp 4 x vpp 1 = 4 chunks: 126 / 4 is not whole; the hint names a
     * split that works: 126 + 2 = 128 accounted slots, 32 a chunk */
    { "--tp 8 --pp 4 --gpus 32", "do not divide into pp x vpp = 4 x 1 = 4 model chunks "
      "(hint: --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split "
      "(126 + 2 = 128 slots, 32 a chunk), or choose pp x vpp dividing 126)" },
    /* pp 5: 128 slots do not divide either; ceil(126 / 5) = 26 in each of the 3 middle
     * chunks leaves 126 - 78 = 48 for the first and last, 24 each */
    { "--tp 8 --pp 5 --gpus 40", "(hint: --decoder-first-pipeline-num-layers 24 "
      "--decoder-last-pipeline-num-layers 24 (26 a middle stage), or choose pp x vpp "
      "dividing 126)" },
    /* uneven split whose middle does not divide: 126 - 5 - 5 = 116 on 14 stages */
    { "--tp 8 --pp 16 --gpus 128 --decoder-first-pipeline-num-layers 5 "
      "--decoder-last-pipeline-num-layers 5", "does not divide" },
    /* the first stage takes all 126 layers, none left for the last (pp 2): the message
     * said "0 layers leave no layer for the middle model chunks (hint: lower --pp or
     * --vpp)", with no middle chunk; the bound is 126 - 1 chunk left = 125 */
    { "--tp 8 --pp 2 --gpus 16 --decoder-first-pipeline-num-layers 126",
      "--decoder-first-pipeline-num-layers 126 takes all 126 layers, leaving none for the "
      "other 1 pipeline stage (hint: at most 125, 1 layer for each of them)" },
    /* 63 + 63 = 126 on pp 4: the 2 middle chunks get none */
    { "--tp 8 --pp 4 --gpus 32 --decoder-first-pipeline-num-layers 63 "
      "--decoder-last-pipeline-num-layers 63", "first + last stage layers = 126 take all 126 "
      "layers, leaving none for the 2 middle pipeline stages" },
    /* Ulysses degree 32 above the 128 / 8 = 16 heads per TP rank */
    { "--tp 8 --cp 32 --cp-comm-type a2a --gpus 256 --seq-length 131072", "Ulysses" },
    /* 2048 sequences not divisible by 3 x 128 */
    { "--tp 8 --pp 16 --gpus 16384 --decoder-first-pipeline-num-layers 7 "
      "--decoder-last-pipeline-num-layers 7 --gbs 2048 --mbs 3", "not divisible by micro-batch" },
    /* interleaving with 8 micro-batches on 16 stages: 1024 / (1 x 128) = 8 < 16 */
    { "--tp 8 --pp 16 --vpp 2 --gpus 16384 --gbs 1024 --first-chunk-layers 3 "
      "--last-chunk-layers 3", "needs at least 16 micro-batches" },
    /* h100-24k has 24,576 GPUs */
    { "--tp 8 --gpus 32768", "has only 24576" },
    /* --dp must agree with 16384 / (8 x 16) = 128 */
    { "--tp 8 --pp 16 --gpus 16384 --dp 64 --decoder-first-pipeline-num-layers 7 "
      "--decoder-last-pipeline-num-layers 7", "disagrees" },
    /* vpp without an interleaved schedule */
    { "--tp 8 --pp 2 --vpp 3 --schedule 1F1B --gpus 16", "Interleaved1F1B" },
    /* a micro-batch group smaller than the 16 stages */
    { "--tp 8 --pp 16 --vpp 2 --gpus 16384 --gbs 2048 --first-chunk-layers 3 "
      "--last-chunk-layers 3 --microbatch-group-size-per-virtual-pipeline-stage 8",
      "below the 16 pipeline stages" },
    /* a micro-batch group without interleaving */
    { "--tp 8 --pp 16 --gpus 16384 --gbs 2048 --decoder-first-pipeline-num-layers 7 "
      "--decoder-last-pipeline-num-layers 7 --microbatch-group-size-per-virtual-pipeline-stage 16",
      "interleaved schedule only" },
    /* 8191 tokens do not split into 2 x cp = 4 chunks */
    { "--tp 8 --cp 2 --gpus 16 --seq-length 8191", "2 x cp" },
    /* context parallelism runs the core tile by tile: not with materialized scores */
    { "--tp 8 --cp 2 --gpus 16 --attention-backend unfused", "fused attention backend" },
    /* Megatron-Core's CPU offloading (TransformerConfig checks): fewer layers than the
     * model's 126, PP 1, no recompute, no CUDA graphs */
    { "--tp 8 --gpus 8 --cpu-offloading-num-layers 126", "at most 125" },
    { "--tp 8 --pp 2 --gpus 16 --cpu-offloading-num-layers 10", "pipeline parallelism" },
    { "--tp 8 --gpus 8 --cpu-offloading-num-layers 10 --recompute-granularity selective",
      "activation recompute" },
    { "--tp 8 --gpus 8 --cpu-offloading-num-layers 10 --cuda-graph-impl local", "CUDA graphs" },
    /* recompute modules of parts the dense Llama has not: they changed nothing */
    { "--tp 8 --gpus 8 --recompute-modules moe_act", "--recompute-modules moe_act: "
      "'llama3-405b' has no MoE layers" },
    { "--tp 8 --gpus 8 --recompute-modules mla_up_proj", "no multi-head latent attention" },
    /* TorchTitan's replicate degree makes HSDP, which shards the parameters within a
     * group: it contradicts a sharding level that keeps them whole (it used to override
     * it silently) */
    { "--tp 8 --gpus 256 --sharding zero1 --data-parallel-replicate-degree 4",
      "contradicts --sharding zero1" },
    { "--tp 8 --gpus 256 --use-distributed-optimizer --data-parallel-replicate-degree 4",
      "contradicts --sharding zero1" },
    { "--tp 8 --gpus 256 --sharding zero2 --data-parallel-replicate-degree 4",
      "contradicts --sharding zero2" },
    /* an explicit none, too (the default none is no contradiction: the degree alone is
     * HSDP); and zero3 with a replicate degree of all of dp = 256 / 8 = 32, whose shard
     * groups of one rank shard nothing */
    { "--tp 8 --gpus 256 --sharding none --data-parallel-replicate-degree 4",
      "contradicts --sharding none" },
    { "--tp 8 --gpus 256 --sharding zero3 --data-parallel-replicate-degree 32",
      "--data-parallel-replicate-degree 32 replicates over all of dp = 32: HSDP shard groups "
      "of 1 rank shard nothing, which contradicts --sharding zero3 (hint: a replicate degree "
      "below dp, e.g. --data-parallel-replicate-degree 16" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      gboolean ok = parse_and_resolve (f, cases[i].flags, &error);
      if (ok || error == NULL || strstr (error->message, cases[i].expect) == NULL)
        g_error ("plan '%s': expected an error containing '%s', got %s", cases[i].flags,
                 cases[i].expect, error ? error->message : "success");
      g_assert_error (error, PLAN_ERROR, PLAN_ERROR_INVALID);
      /* one line, with a hint where a fix exists */
      g_assert_null (strchr (error->message, '\n'));
    }
}

/* --recompute-method block and --recompute-num-layers shape full recompute only; given
 * without it (none or selective) they changed nothing and are refused as given, before
 * plan_resolve (which turns full's missing count into 1 and must accept plans callers
 * derive from a resolved one) */
static void
test_recompute_flags (Fixture *f, gconstpointer data)
{
  static const struct { const char *flags, *expect; } cases[] = {
    { "--recompute-method block", "--recompute-method block applies to "
      "--recompute-granularity full only, and this plan's recompute is none" },
    { "--recompute-granularity selective --recompute-num-layers 4", "--recompute-num-layers "
      "applies to --recompute-granularity full only, and this plan's recompute is selective" },
    { "--recompute-granularity full --recompute-method block --recompute-num-layers 4", NULL },
    { "--recompute-granularity selective", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_assert_true (parse_flags (f, cases[i].flags, &error));
      gboolean ok = plan_check_recompute_flags (&f->plan, &error);
      if (cases[i].expect == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          continue;
        }
      g_assert_false (ok);
      g_assert_error (error, PLAN_ERROR, PLAN_ERROR_INVALID);
      if (strstr (error->message, cases[i].expect) == NULL)
        g_error ("'%s': expected '%s', got '%s'", cases[i].flags, cases[i].expect,
                 error->message);
    }
}

static void
test_bad_values (Fixture *f, gconstpointer data)
{
  static const char *const cases[] = {
    "--tp 0", "--tp x", "--pp -1", "--schedule zigzag", "--cp-comm-type ring2",
    "--recompute-granularity partial", "--precision fp6", "--gbs 1.5",
    "--fp32-matmul-precision low", "--attention-backend sdpa",
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (parse_flags (f, cases[i], &error));
      g_assert_nonnull (error);
    }
}

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "plan", name, NULL);
}

/* A plan file with TorchTitan keys gives the same plan as the flags. */
static void
test_plan_json (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = data_path ("llama3-405b-16k.json");
  g_assert_true (plan_load_json (&f->plan, path, &error));
  g_assert_no_error (error);
  f->plan.world_size = 16384;
  g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.tp, ==, 8);
  g_assert_cmpint (f->plan.pp, ==, 16);
  g_assert_cmpint (f->plan.dp, ==, 128);
  g_assert_cmpint (f->plan.global_batch, ==, 2048);
  g_assert_cmpint (f->plan.grad_accum, ==, 16);
  /* data_parallel_shard_degree -1 with fsdp_reshard_after_forward "never" is FSDP
   * keeping parameters gathered after forward: ZeRO-2-like. */
  g_assert_cmpint (f->plan.sharding, ==, PLAN_SHARD_ZERO2);
  g_assert_cmpint (f->plan.first_stage_layers, ==, 7);

  /* Flags after --plan override the file. */
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_autofree char *flags = g_strdup_printf ("--plan %s --pp 2", path);
  g_assert_true (parse_flags (f, flags, &error));
  g_assert_cmpint (f->plan.pp, ==, 2);
  g_assert_cmpint (f->plan.tp, ==, 8);
}

/* torchtitan's activation_checkpoint in a plan file: mode "selective" with
 * selective_ac_option "2" wraps every second block (Llama 3.1 405B, 126 layers, pp 1:
 * floor(126 / 2) = 63 layers recompute, the block method; not uniform groups of 2, which
 * would recompute all 126); "3": floor(126 / 3) = 42; "op" is selective-op; a mode
 * "full" keeps full recompute whatever the option. */
static void
test_plan_json_titan_ac (Fixture *f, gconstpointer data)
{
  static const struct { const char *json; PlanRecompute r; int n; } rows[] = {
    { "{\"activation_checkpoint\": {\"mode\": \"selective\", \"selective_ac_option\": \"2\"}}",
      PLAN_RECOMPUTE_FULL, 63 },
    { "{\"activation_checkpoint\": {\"mode\": \"selective\", \"selective_ac_option\": \"3\"}}",
      PLAN_RECOMPUTE_FULL, 42 },
    { "{\"activation_checkpoint\": {\"selective_ac_option\": \"op\", \"mode\": \"selective\"}}",
      PLAN_RECOMPUTE_SELECTIVE_OP, 0 },
    { "{\"activation_checkpoint\": {\"mode\": \"full\", \"selective_ac_option\": \"op\"}}",
      PLAN_RECOMPUTE_FULL, 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (GError) error = NULL;
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_assert_true (plan_load_json_data (&f->plan, rows[i].json, -1, "inline", &error));
      g_assert_no_error (error);
      f->plan.world_size = 8;
      g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
      g_assert_no_error (error);
      g_assert_cmpint (f->plan.recompute, ==, rows[i].r);
      g_assert_cmpint (f->plan.recompute_num_layers, ==, rows[i].n);
      if (rows[i].r == PLAN_RECOMPUTE_FULL && rows[i].n > 1)
        g_assert_cmpint (f->plan.recompute_method, ==, PLAN_RECOMPUTE_BLOCK);
    }
}

/* TorchTitan's data_parallel_replicate_degree in a JSON plan file, against dp = world /
 * (tp x pp x cp) = 16 / 4 = 4 (TorchTitan's ParallelDims asserts the degrees multiply to
 * the world). Alone it is DDP over its ranks: 3 was read as DDP over all 4, refused now;
 * 4 is all of dp (DDP, sharding none). With shard -1 (the rest) it must divide dp: 3 does
 * not (HSDP over 4 / 3 ranks). */
static void
test_plan_json_titan_replicate (Fixture *f, gconstpointer data)
{
  static const struct { const char *json; const char *want; } rows[] = {
    { "{\"parallelism\": {\"tensor_parallel_degree\": 4, "
      "\"data_parallel_replicate_degree\": 3}}",
      "parallelism.data_parallel_replicate_degree 3 without a shard degree (DDP over "
      "its ranks) in the plan file disagrees with world / (tp x pp x cp) = 16 / 4 = 4" },
    { "{\"parallelism\": {\"tensor_parallel_degree\": 4, "
      "\"data_parallel_replicate_degree\": 3, \"data_parallel_shard_degree\": -1}}",
      "does not divide dp = world / (tp x pp x cp) = 16 / 4 = 4" },
    { "{\"parallelism\": {\"tensor_parallel_degree\": 4, "
      "\"data_parallel_replicate_degree\": 4}}", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (GError) error = NULL;
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_assert_true (plan_load_json_data (&f->plan, rows[i].json, -1, "inline", &error));
      g_assert_no_error (error);
      f->plan.world_size = 16;
      gboolean ok = plan_resolve (&f->plan, f->model, f->cluster, &error);
      if (rows[i].want == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          g_assert_cmpint (f->plan.dp, ==, 4);
          g_assert_cmpint (f->plan.sharding, ==, PLAN_SHARD_NONE);
          continue;
        }
      g_assert_false (ok);
      if (error == NULL || strstr (error->message, rows[i].want) == NULL)
        g_error ("row %u: '%s' lacks '%s'", i, error ? error->message : "(no error)",
                 rows[i].want);
    }
}

/* Megatron's CPU offloading in a plan file (activation_checkpoint.cpu_offloading_num_layers,
 * the key plan_to_json writes), and back out: 20 of the 126 layers, no recompute. */
static void
test_plan_json_cpu_offload (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  const char *json = "{\"activation_checkpoint\": {\"mode\": \"none\", "
                     "\"cpu_offloading_num_layers\": 20}}";
  g_assert_true (plan_load_json_data (&f->plan, json, -1, "inline", &error));
  g_assert_no_error (error);
  f->plan.world_size = 8;
  f->plan.tp = 8;
  g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.cpu_offload_layers, ==, 20);
  g_autofree char *name = plan_to_string (&f->plan);
  g_assert_nonnull (strstr (name, "-off20-"));
  g_autoptr (JsonBuilder) b = json_builder_new ();
  plan_to_json (&f->plan, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *ac = json_object_get_object_member (json_node_get_object (root),
                                                  "activation_checkpoint");
  g_assert_cmpint (json_object_get_int_member (ac, "cpu_offloading_num_layers"), ==, 20);
}

/* The plan object tandem writes (plan_to_json: `plan show --json`, `predict --json`) read
 * back as a plan file gives the same plan: its JSON again, key for key. The reader
 * refused it before ("unknown section 'summary'"), and the fp8 recipe, the precision
 * section, the overlaps, the bucket, the HSDP group, the pipeline's exchange options,
 * the fused kernels' flags and a dense plan's CUDA graphs were not read or not written
 * (the same plan string then predicted another step). */
static void
test_plan_json_round_trip (Fixture *f, gconstpointer data)
{
  static const char *const cases[] = {
    "--gpus 16384 --tp 8 --pp 16 --vpp 8 --sp --gbs 2048 --account-for-embedding-in-pipeline-split "
    "--account-for-loss-in-pipeline-split --sharding zero2 --overlap-grad-reduce "
    "--overlap-param-gather --rank-order tp-cp-ep-pp-dp",
    "--gpus 1024 --tp 8 --pp 8 --decoder-first-pipeline-num-layers 15 "
    "--decoder-last-pipeline-num-layers 15 --gbs 512 --mbs 2 --precision fp8 "
    "--fp8-recipe tensorwise --tp-comm-overlap --sp --recompute-granularity full "
    "--recompute-method block --recompute-num-layers 3",
    "--gpus 512 --tp 8 --cp 4 --cp-comm-type a2a --gbs 64 --seq-length 32768 "
    "--recompute-granularity selective",
    "--gpus 512 --tp 8 --gbs 64 --attention-backend unfused --seq-length 4096",
    "--gpus 2048 --sharding hsdp:64 --gbs 2048 --optimizer-offload --ddp-bucket-size 1000000 "
    "--grad-dtype bf16",
    "--gpus 512 --tp 8 --pp 2 --gbs 64 --no-rope-fusion --cross-entropy-fusion-impl te "
    "--cuda-graph-impl local --no-batch-p2p-sync --scatter-gather-tensors-in-pipeline",
    "--gpus 512 --tp 8 --pp 2 --vpp 3 --gbs 64 --pp-lockstep",
    "--gpus 512 --tp 8 --gbs 64 --precision fp8 --use-distributed-optimizer "
    "--fp8-param-gather",
    "--gpus 512 --tp 8 --gbs 64 --precision fp8 --no-fp8-param-gather",
    "--gpus 512 --gbs 512 --sharding zero3 --no-gradient-accumulation-fusion",
    /* GPipe at pp 1 holds every micro-batch's activations: the schedule is kept */
    "--gpus 512 --tp 8 --gbs 256 --schedule GPipe",
    "--gpus 64 --gbs 64 --sharding hsdp:64 --data-parallel-replicate-degree 1",
    "--gpus 64 --tp 8 --pp 2 --vpp 3 --microbatch-group-size-per-virtual-pipeline-stage 4 "
    "--gbs 64 --precision fp32 --fp32-matmul-precision high --no-master-weights",
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      if (!parse_and_resolve (f, cases[i], &error))
        g_error ("case %u: %s", i, error->message);
      g_autoptr (JsonBuilder) b = json_builder_new ();
      plan_to_json (&f->plan, b);
      g_autoptr (JsonNode) root = json_builder_get_root (b);
      g_autofree char *text = json_to_string (root, TRUE);
      Plan back;
      plan_init_defaults (&back);
      if (!plan_load_json_data (&back, text, -1, "written.json", &error))
        g_error ("case %u: %s\n%s", i, error->message, text);
      if (!plan_resolve (&back, f->model, f->cluster, &error))
        g_error ("case %u: %s\n%s", i, error->message, text);
      g_autoptr (JsonBuilder) b2 = json_builder_new ();
      plan_to_json (&back, b2);
      g_autoptr (JsonNode) root2 = json_builder_get_root (b2);
      g_autofree char *text2 = json_to_string (root2, TRUE);
      g_assert_cmpstr (text2, ==, text);
      plan_clear (&back);
    }
  /* what the written plan derives is checked, not taken: a file whose accumulation
   * count disagrees with its batch (TP 8 PP 2 on 16,384 GPUs: dp 1,024; 2048 / (1 x 1024) = 2, not 8) is refused */
  g_autoptr (GError) error = NULL;
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (plan_load_json_data (&f->plan, "{\"parallelism\": {\"tensor_parallel_degree\": "
                                      "8, \"pipeline_parallel_degree\": 2, "
                                      "\"data_parallel_degree\": 1024}, \"training\": "
                                      "{\"global_batch_size\": 2048, "
                                      "\"gradient_accumulation_steps\": 8}}", -1, "inline",
                                      &error));
  f->plan.world_size = 16384;
  g_assert_false (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_nonnull (strstr (error->message, "gradient_accumulation_steps 8 disagrees with "
                            "global batch / (micro-batch x dp) = 2048 / (1 x 1024) = 2"));
  /* "hsdp" without its group size, and with neither :K nor a shard degree */
  g_clear_error (&error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_false (plan_load_json_data (&f->plan, "{\"parallelism\": {\"sharding\": \"hsdp\"}}",
                                       -1, "inline", &error));
  g_assert_nonnull (strstr (error->message, "'hsdp' needs its shard-group size"));
  /* CUDA graphs are read under "training" and, as tandem wrote them before, under "moe":
   * the same value in both is one setting; two values would leave the plan to whichever
   * section came last, so they are refused with both named */
  g_clear_error (&error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (plan_load_json_data (&f->plan, "{\"training\": {\"cuda_graph_impl\": "
                                      "\"transformer_engine\"}, \"moe\": {\"cuda_graph_impl\": "
                                      "\"transformer_engine\"}}", -1, "inline", &error));
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_false (plan_load_json_data (&f->plan, "{\"training\": {\"cuda_graph_impl\": "
                                       "\"transformer_engine\"}, \"moe\": {\"cuda_graph_impl\": "
                                       "\"local\"}}", -1, "inline", &error));
  g_assert_nonnull (strstr (error->message, "moe.cuda_graph_impl is \"local\" but "
                            "training.cuda_graph_impl is \"transformer_engine\""));
}

static void
test_plan_json_errors (Fixture *f, gconstpointer data)
{
  static const struct { const char *file; const char *expect; } cases[] = {
    { "bad-malformed.json", "malformed JSON" },
    { "bad-unknown-key.json", "parallelism.tensor_paralel_degree" },
    { "bad-unknown-section.json", "unknown section" },
    { "bad-type.json", "must be an integer" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = data_path (cases[i].file);
      g_assert_false (plan_load_json (&f->plan, path, &error));
      g_assert_error (error, PLAN_ERROR, PLAN_ERROR_PARSE);
      if (strstr (error->message, cases[i].expect) == NULL)
        g_error ("%s: '%s' lacks '%s'", cases[i].file, error->message, cases[i].expect);
      g_assert_nonnull (strstr (error->message, cases[i].file));
    }
  /* TorchTitan HSDP: replicate 4 x shard 8 */
  g_autoptr (GError) error = NULL;
  const char *hsdp = "{\"parallelism\": {\"data_parallel_replicate_degree\": 4, "
                     "\"data_parallel_shard_degree\": 8, \"tensor_parallel_degree\": 8}}";
  g_assert_true (plan_load_json_data (&f->plan, hsdp, -1, "inline", &error));
  f->plan.world_size = 256;
  g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.sharding, ==, PLAN_SHARD_HSDP);
  g_assert_cmpint (f->plan.hsdp_shard_size, ==, 8);
  g_assert_cmpint (f->plan.dp, ==, 32);
}

/* Interleaved, tandem's chunk split: 126 layers, pp 16 x vpp 4 = 64 chunks; first and
 * last chunk 1 layer each, the other 62 chunks (126 - 2) / 62 = 2 layers. Rank 0 holds
 * chunks 0, 16, 32, 48 = 1 + 2 + 2 + 2 = 7 layers; rank 15 holds 15, 31, 47, 63 =
 * 2 + 2 + 2 + 1 = 7; others 8. Chunk 16 (rank 0, chunk 1) starts after chunks 0..15 =
 * 1 + 15 x 2 = 31 layers. */
static void
test_interleaved_split (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (parse_and_resolve (f, "--tp 8 --pp 16 --vpp 4 --gpus 16384 --gbs 2048 "
                                    "--first-chunk-layers 1 --last-chunk-layers 1", &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.schedule, ==, PLAN_SCHED_INTERLEAVED_1F1B);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 0), ==, 7);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 15), ==, 7);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 7), ==, 8);
  g_assert_cmpint (plan_chunk_first_layer (&f->plan, f->model, 0, 1), ==, 31);
  g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 0, 0), ==, 1);
  g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 15, 3), ==, 1);
}

/* Megatron-Core's stage split with interleaving (get_num_layers_to_build): the flags give
 * a pipeline stage's layers over all its chunks, each chunk an equal share. llama3-70b's
 * 80 layers, pp 4 x vpp 2, first 4 and last 4: stage 0 holds 4 (2 a chunk), stage 3
 * holds 4 (2 a chunk), the 72 left split over the 2 middle stages, 36 each (18 a chunk):
 * stages 4 / 36 / 36 / 4. (tandem read the flags as the first and last model chunk's
 * layers: 4 + 6 x 12 + 4, stages 16 / 24 / 24 / 16, a plan Megatron does not build.)
 * Model chunk 4 (stage 0, chunk 1) starts after chunks 0..3 = 2 + 18 + 18 + 2 = 40
 * layers; model chunk 7 (stage 3, chunk 1) after 40 + 2 + 18 + 18 = 78; model chunk 2
 * (stage 2, chunk 0) after 2 + 18 = 20. A count that does not divide by vpp is refused
 * as Megatron asserts, naming the chunk flag that says the other split; so are the two
 * splits together. */
static void
test_stage_split_interleaved (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_clear_pointer (&f->model, model_spec_unref);
  f->model = model_spec_lookup ("llama3-70b", &error);
  g_assert_no_error (error);
  g_assert_true (parse_and_resolve (f, "--tp 8 --pp 4 --vpp 2 --gpus 64 --gbs 64 "
                                    "--decoder-first-pipeline-num-layers 4 "
                                    "--decoder-last-pipeline-num-layers 4", &error));
  g_assert_no_error (error);
  const int stage_layers[] = { 4, 36, 36, 4 };
  const int chunk_layers[] = { 2, 18, 18, 2 };
  for (int st = 0; st < 4; st++)
    {
      g_assert_cmpint (plan_stage_layers (&f->plan, f->model, st), ==, stage_layers[st]);
      for (int c = 0; c < 2; c++)
        g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, st, c), ==, chunk_layers[st]);
    }
  g_assert_cmpint (plan_chunk_first_layer (&f->plan, f->model, 0, 1), ==, 40);
  g_assert_cmpint (plan_chunk_first_layer (&f->plan, f->model, 3, 1), ==, 78);
  g_assert_cmpint (plan_chunk_first_layer (&f->plan, f->model, 2, 0), ==, 20);

  static const struct { const char *args, *expect; } cases[] = {
    /* 3 layers on stage 0 over 2 chunks (and 5 on stage 3); the hint moves both to the
     * nearest counts that work: 2 and 6 (distance 2), 80 - 8 = 72 over the 2 middle
     * stages, 36 each, 18 a chunk */
    { "--tp 8 --pp 4 --vpp 2 --gpus 64 --gbs 64 --decoder-first-pipeline-num-layers 3 "
      "--decoder-last-pipeline-num-layers 5", "--decoder-first-pipeline-num-layers 3 is the "
      "first pipeline stage's layers over its 2 model chunks, which Megatron-Core splits "
      "evenly: 3 does not divide by --vpp 2 (hint: --decoder-first-pipeline-num-layers 2 "
      "--decoder-last-pipeline-num-layers 6)" },
    /* 80 - 8 - 16 = 56 over 2 middle stages = 28 each, 28 / 8 chunks is not whole */
    { "--tp 8 --pp 4 --vpp 8 --gpus 64 --gbs 64 --decoder-first-pipeline-num-layers 8 "
      "--decoder-last-pipeline-num-layers 16", "the 2 middle pipeline stages hold 28 layers "
      "each, which does not divide into --vpp 8 model chunks" },
    /* Megatron-Core refuses a stage without a layer */
    { "--tp 8 --pp 4 --gpus 64 --gbs 64 --decoder-last-pipeline-num-layers 0",
      "--decoder-last-pipeline-num-layers 0 leaves the last pipeline stage without a layer" },
    /* the flag that names chunk sizes of an even split */
    { "--tp 8 --pp 4 --gpus 64 --gbs 64 --decoder-first-pipeline-num-layers 4 "
      "--decoder-last-pipeline-num-layers 4 --num-layers-per-virtual-pipeline-stage 2",
      "--num-layers-per-virtual-pipeline-stage counts the layers of an even split" },
    /* both spellings of the chunk count, disagreeing: 80 / 4 = 20 layers per rank in
     * chunks of 5 are 4 chunks, not --vpp 2 (before, the layer count silently won) */
    { "--tp 8 --pp 4 --vpp 2 --gpus 64 --gbs 64 --num-layers-per-virtual-pipeline-stage 5",
      "--num-layers-per-virtual-pipeline-stage 5 makes 4 model chunks of the 20 layers per "
      "pipeline rank, but --vpp is 2 (hint: give one of the two)" },
    /* 80 - 16 = 64 over 2 middle stages, 32 each, 8 a chunk; 2 a chunk at the ends */
    { "--tp 8 --pp 4 --vpp 4 --gpus 64 --gbs 64 --decoder-first-pipeline-num-layers 8 "
      "--decoder-last-pipeline-num-layers 8", NULL },
    { "--tp 8 --pp 4 --vpp 2 --gpus 64 --gbs 64 --decoder-first-pipeline-num-layers 4 "
      "--last-chunk-layers 2", "two ways to split unevenly" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      gboolean ok = parse_and_resolve (f, cases[i].args, &error);
      if (cases[i].expect == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 0, 3), ==, 2);
          g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 1, 3), ==, 8);
          g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 3, 0), ==, 2);
          continue;
        }
      g_assert_false (ok);
      g_assert_nonnull (error);
      if (strstr (error->message, cases[i].expect) == NULL)
        g_error ("%s: expected '%s', got '%s'", cases[i].args, cases[i].expect,
                 error->message);
      g_clear_error (&error);
    }
}

/* Megatron-Core --account-for-embedding-in-pipeline-split / --account-for-loss-in-
 * pipeline-split (get_num_layers_to_build): 126 layers + the embedding + the loss = 128
 * slots over pp 16 x vpp 8 = 128 model chunks, 1 slot each; model chunk 0 (rank 0,
 * chunk 0) holds only the embedding (1 - 1 = 0 layers) and model chunk 127 (rank 15,
 * chunk 7) only the output layer and loss. Rank 0: 0 + 7 x 1 = 7 layers, rank 15:
 * 7 x 1 + 0 = 7, rank 7: 8. Rank 0's chunk 1 is model chunk 16, after chunks 0..15 =
 * 0 + 15 x 1 = 15 layers. The same plan from the plan JSON, and back into its JSON. */
static void
test_accounted_split (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (parse_and_resolve (f, "--tp 8 --pp 16 --vpp 8 --gpus 16384 --gbs 2048 "
                                    "--account-for-embedding-in-pipeline-split "
                                    "--account-for-loss-in-pipeline-split", &error));
  g_assert_no_error (error);
  g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 0, 0), ==, 0);
  g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 15, 7), ==, 0);
  g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 1, 0), ==, 1);
  g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 0, 7), ==, 1);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 0), ==, 7);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 15), ==, 7);
  g_assert_cmpint (plan_stage_layers (&f->plan, f->model, 7), ==, 8);
  g_assert_cmpint (plan_chunk_first_layer (&f->plan, f->model, 0, 1), ==, 15);
  g_assert_cmpint (plan_chunk_first_layer (&f->plan, f->model, 15, 7), ==, 126);
  int total = 0;
  for (int s = 0; s < 16; s++)
    total += plan_stage_layers (&f->plan, f->model, s);
  g_assert_cmpint (total, ==, 126);
  g_autofree char *str = plan_to_string (&f->plan);
  g_assert_cmpstr (str, ==, "tp8-cp1-pp16-vpp8-acctel-dp128-mbs1-gbs2048-seq8192-"
                            "Interleaved1F1B");

  /* only the embedding accounted at pp 2: 126 + 1 = 127 slots, odd, refused */
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_false (parse_and_resolve (f, "--tp 8 --pp 2 --gpus 16 --gbs 2 "
                                     "--account-for-embedding-in-pipeline-split", &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "= 127 do not divide"));
  g_clear_error (&error);

  /* Megatron refuses the accounted split together with the uneven first/last one */
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_false (parse_and_resolve (f, "--tp 8 --pp 16 --gpus 16384 --gbs 2048 "
                                     "--decoder-first-pipeline-num-layers 7 "
                                     "--decoder-last-pipeline-num-layers 7 "
                                     "--account-for-loss-in-pipeline-split", &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "cannot be combined"));
  g_clear_error (&error);

  /* without the accounting, 128 chunks are more than the 126 layers; the hint names it */
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_false (parse_and_resolve (f, "--tp 8 --pp 16 --vpp 8 --gpus 16384 --gbs 2048",
                                     &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "--account-for-embedding-in-pipeline-split"));
  g_clear_error (&error);

  /* plan JSON: the Megatron-Core config names, and back in plan_to_json */
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  const char *json = "{\"parallelism\": {\"tensor_parallel_degree\": 8, "
                     "\"pipeline_parallel_degree\": 16, \"virtual_stages_per_rank\": 8, "
                     "\"account_for_embedding_in_pipeline_split\": true, "
                     "\"account_for_loss_in_pipeline_split\": true}}";
  g_assert_true (plan_load_json_data (&f->plan, json, -1, "inline", &error));
  g_assert_no_error (error);
  f->plan.world_size = 16384;
  f->plan.global_batch = 2048;
  g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_no_error (error);
  g_assert_cmpint (plan_chunk_layers (&f->plan, f->model, 0, 0), ==, 0);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  plan_to_json (&f->plan, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *par = json_object_get_object_member (json_node_get_object (root), "parallelism");
  g_assert_true (json_object_get_boolean_member (par, "account_for_embedding_in_pipeline_split"));
  g_assert_true (json_object_get_boolean_member (par, "account_for_loss_in_pipeline_split"));
}

static void
test_to_json (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (parse_and_resolve (f, "--tp 8 --pp 16 --gpus 16384 --gbs 2048 "
                                    "--decoder-first-pipeline-num-layers 7 "
                                    "--decoder-last-pipeline-num-layers 7", &error));
  g_autoptr (JsonBuilder) b = json_builder_new ();
  plan_to_json (&f->plan, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *par = json_object_get_object_member (json_node_get_object (root), "parallelism");
  g_assert_cmpint (json_object_get_int_member (par, "data_parallel_degree"), ==, 128);
  /* the uneven split in the name (7 and 7 layers on the first and last stage): two plans
   * apart only there read alike */
  g_autofree char *s = plan_to_string (&f->plan);
  g_assert_cmpstr (s, ==, "tp8-cp1-pp16-vpp1-dp128-mbs1-gbs2048-seq8192-1F1B-split7.7");

  /* a micro-batch group other than pp shows in the string and the JSON */
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (parse_and_resolve (f, "--tp 8 --pp 16 --vpp 2 --gpus 16384 --gbs 2048 "
                                    "--first-chunk-layers 3 --last-chunk-layers 3 "
                                    "--microbatch-group-size-per-virtual-pipeline-stage 20",
                                    &error));
  g_autofree char *s2 = plan_to_string (&f->plan);
  g_assert_cmpstr (s2, ==, "tp8-cp1-pp16-vpp2n20-dp128-mbs1-gbs2048-seq8192-Interleaved1F1B-"
                           "chunks3.3");
  g_autoptr (JsonBuilder) b2 = json_builder_new ();
  plan_to_json (&f->plan, b2);
  g_autoptr (JsonNode) root2 = json_builder_get_root (b2);
  JsonObject *par2 = json_object_get_object_member (json_node_get_object (root2), "parallelism");
  g_assert_cmpint (json_object_get_int_member (par2, "microbatch_group_size_per_vp_stage"), ==,
                   20);
  /* the chunk split is written under its own keys, not Megatron's stage split's */
  g_assert_cmpint (json_object_get_int_member (par2, "first_chunk_layers"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (par2, "last_chunk_layers"), ==, 3);
  g_assert_true (json_object_get_null_member (par2, "first_stage_layers"));   /* unset */

  /* pipeline schedules a step (plan.h pp_schedules): shown in the string, written to the
   * JSON and read back; unset is one schedule */
  f->plan.schedule = PLAN_SCHED_1F1B;
  f->plan.vpp = 1;
  f->plan.first_stage_layers = f->plan.last_stage_layers = -1;
  f->plan.first_chunk_layers = f->plan.last_chunk_layers = -1;
  f->plan.vpp_group = 0;
  f->plan.pp_schedules = 2;
  g_autofree char *s3 = plan_to_string (&f->plan);
  g_assert_nonnull (strstr (s3, "-pps2"));
  g_autoptr (JsonBuilder) b3 = json_builder_new ();
  plan_to_json (&f->plan, b3);
  g_autoptr (JsonNode) root3 = json_builder_get_root (b3);
  JsonObject *par3 = json_object_get_object_member (json_node_get_object (root3), "parallelism");
  g_assert_cmpint (json_object_get_int_member (par3, "pipeline_schedules_per_step"), ==, 2);
  Plan back;
  plan_init_defaults (&back);
  g_assert_true (plan_load_json_data (&back, "{\"parallelism\": {\"pipeline_parallel_degree\": "
                                      "4, \"pipeline_schedules_per_step\": 3}}", -1, "inline",
                                      &error));
  g_assert_no_error (error);
  g_assert_cmpint (back.pp_schedules, ==, 3);
  g_assert_cmpint (plan_pp_schedules (&back), ==, 3);
  plan_clear (&back);
  plan_init_defaults (&back);
  g_assert_cmpint (plan_pp_schedules (&back), ==, 1);   /* unset: one schedule */
  plan_clear (&back);
}

/* TorchTitan's training.local_batch_size in a plan file: the sequences of one forward-
 * backward of a DP rank (one forward without a pipeline; pipeline_parallel_microbatch_size
 * micro-batches under one), global_batch_size / (local x dp) of them a step. Before, a
 * given global batch made the local one ignored (local 3, global 64 on dp 8 ran as 8
 * micro-batches of 1), and plan_to_json wrote the micro-batch under local_batch_size. */
static void
test_plan_json_local_batch (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  /* no pipeline: tp 8 on 64 GPUs, dp = 64 / 8 = 8; local 2 is the micro-batch, and
   * 64 / (2 x 8) = 4 of them a step */
  g_assert_true (plan_load_json_data (&f->plan, "{\"parallelism\": {\"tensor_parallel_degree\": "
                                      "8}, \"training\": {\"local_batch_size\": 2, "
                                      "\"global_batch_size\": 64, \"seq_len\": 8192}}", -1,
                                      "inline", &error));
  f->plan.world_size = 64;
  g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.micro_batch, ==, 2);
  g_assert_cmpint (f->plan.grad_accum, ==, 4);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);

  /* --mbs replaces the local batch without a pipeline (flags replace a file's keys; --mbs
   * 1 was dropped without a word, --mbs 2 refused), and a file's
   * pipeline_parallel_microbatch_size, which TorchTitan reads under PP only, does not:
   * local 4 with it at 2 is a micro-batch of 4 */
  g_assert_true (plan_load_json_data (&f->plan, "{\"parallelism\": {\"tensor_parallel_degree\": "
                                      "8}, \"training\": {\"local_batch_size\": 4}}", -1,
                                      "inline", &error));
  f->plan.world_size = 64;
  f->plan.micro_batch = 2, f->plan.micro_batch_flag = TRUE;   /* as --mbs 2 sets it */
  g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.micro_batch, ==, 2);
  g_assert_cmpint (f->plan.global_batch, ==, 16);   /* 2 x dp 8 */
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (plan_load_json_data (&f->plan, "{\"parallelism\": {\"tensor_parallel_degree\": "
                                      "8, \"pipeline_parallel_microbatch_size\": 2}, "
                                      "\"training\": {\"local_batch_size\": 4}}", -1,
                                      "inline", &error));
  f->plan.world_size = 64;
  g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.micro_batch, ==, 4);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);

  /* local 3 x dp 8 = 24 does not divide 64: refused with the nearest multiple, 48 */
  g_assert_true (plan_load_json_data (&f->plan, "{\"parallelism\": {\"tensor_parallel_degree\": "
                                      "8}, \"training\": {\"local_batch_size\": 3, "
                                      "\"global_batch_size\": 64}}", -1, "inline", &error));
  f->plan.world_size = 64;
  g_assert_false (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_nonnull (strstr (error->message, "training.global_batch_size 64 is not a multiple "
                            "of local_batch_size x dp = 3 x 8 = 24"));
  g_assert_nonnull (strstr (error->message, "global_batch_size 48"));
  g_clear_error (&error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);

  /* a pipeline: tp 8 pp 16 on 16,384 GPUs, dp 128; local 4 of micro-batches of 2 is two
   * micro-batches a schedule, and 2048 / (4 x 128) = 4 local batches a step, a schedule
   * each: 8 micro-batches in 4 schedules */
  static const char *pp_json =
    "{\"parallelism\": {\"tensor_parallel_degree\": 8, \"pipeline_parallel_degree\": 16, "
    "\"pipeline_parallel_microbatch_size\": 2, \"first_stage_layers\": 7, "
    "\"last_stage_layers\": 7}, \"training\": {\"local_batch_size\": 4, "
    "\"global_batch_size\": 2048, \"seq_len\": 8192}}";
  g_assert_true (plan_load_json_data (&f->plan, pp_json, -1, "inline", &error));
  f->plan.world_size = 16384;
  g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.micro_batch, ==, 2);
  g_assert_cmpint (f->plan.grad_accum, ==, 8);
  g_assert_cmpint (plan_pp_schedules (&f->plan), ==, 4);
  /* and written back in the same meaning: local 2 x 8 / 4 = 4, the micro-batch 2 */
  g_autoptr (JsonBuilder) b = json_builder_new ();
  plan_to_json (&f->plan, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "training"),
                                               "local_batch_size"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "parallelism"),
                                               "pipeline_parallel_microbatch_size"), ==, 2);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);

  /* a local batch of 3 cannot split into micro-batches of 2 */
  g_assert_true (plan_load_json_data (&f->plan, "{\"parallelism\": {\"tensor_parallel_degree\": "
                                      "8, \"pipeline_parallel_degree\": 16, "
                                      "\"pipeline_parallel_microbatch_size\": 2, "
                                      "\"first_stage_layers\": 7, \"last_stage_layers\": 7}, "
                                      "\"training\": {\"local_batch_size\": 3}}", -1,
                                      "inline", &error));
  f->plan.world_size = 16384;
  g_assert_false (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_nonnull (strstr (error->message, "training.local_batch_size 3 does not divide into "
                            "pipeline_parallel_microbatch_size 2 micro-batches"));
  g_clear_error (&error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);

  /* pipeline_schedules_per_step against the local batches a step: 2048 / (16 x 128) = 1 */
  g_assert_true (plan_load_json_data (&f->plan, "{\"parallelism\": {\"tensor_parallel_degree\": "
                                      "8, \"pipeline_parallel_degree\": 16, "
                                      "\"pipeline_schedules_per_step\": 2, "
                                      "\"first_stage_layers\": 7, \"last_stage_layers\": 7}, "
                                      "\"training\": {\"local_batch_size\": 16, "
                                      "\"global_batch_size\": 2048}}", -1, "inline", &error));
  f->plan.world_size = 16384;
  g_assert_false (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_nonnull (strstr (error->message, "pipeline_schedules_per_step 2, but the step runs "
                            "1 local batch of 16"));
  g_clear_error (&error);
}

/* Swaps the fixture's model for tests/data/models/FILE. */
static void
use_model_file (Fixture *f, const char *file)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "models", file,
                                                 NULL);
  g_clear_pointer (&f->model, model_spec_unref);
  f->model = model_spec_lookup (path, &error);
  g_assert_no_error (error);
}

/* Context parallelism with ALiBi (Falcon-RW-1B, BLOOM): Transformer Engine, which runs
 * Megatron's CP, leaves no backend for an ALiBi bias under CP (get_attention_backend:
 * FlashAttention and FusedAttention only take no_bias / post_scale_bias with CP, the
 * unfused path no CP), so cp 2 at 8192 tokens (8192 % (2 x 2) = 0, otherwise valid) is
 * refused, every CP scheme alike; cp 1 at the same length resolves. */
static void
test_cp_alibi (Fixture *f, gconstpointer data)
{
  use_model_file (f, "falcon-rw-1b.json");
  g_autoptr (GError) e = NULL;
  g_assert_true (parse_and_resolve (f, "--gpus 64 --cp 1 --seq-length 8192", &e));
  g_assert_no_error (e);
  const char *schemes[] = { "p2p", "all_gather", "a2a" };
  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      g_autofree char *flags = g_strdup_printf ("--gpus 64 --cp 2 --seq-length 8192 "
                                                "--cp-comm-type %s", schemes[i]);
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_autoptr (GError) err = NULL;
      g_assert_false (parse_and_resolve (f, flags, &err));
      g_assert_nonnull (strstr (err->message, "ALiBi"));
      g_assert_nonnull (strstr (err->message, "hint: --cp 1"));
    }
}

/* Sliding window under ring CP (StarCoder2-3B: a 4096-token window on all 30 layers):
 * Transformer Engine's attn_forward_func_with_cp asserts the window out unless
 * cp_comm_type is a2a or all_gather. At 16384 tokens (window 4096 < 16384) p2p is refused
 * and names the other two; a2a (24 heads / cp 2 = 12, 2 KV heads / 2 = 1 per rank) and
 * all_gather resolve; at 4096 tokens the window covers the whole sequence, masks nothing
 * (the attention FLOPs count it only when W < s), and p2p resolves. */
static void
test_cp_sliding_window (Fixture *f, gconstpointer data)
{
  use_model_file (f, "starcoder2-3b.json");
  g_autoptr (GError) e = NULL;
  g_assert_false (parse_and_resolve (f, "--gpus 64 --cp 2 --seq-length 16384 "
                                     "--cp-comm-type p2p", &e));
  g_assert_nonnull (strstr (e->message, "4096-token sliding window"));
  g_assert_nonnull (strstr (e->message, "hint: --cp-comm-type a2a or all_gather"));
  const char *ok[] = { "--gpus 64 --cp 2 --seq-length 16384 --cp-comm-type a2a",
                       "--gpus 64 --cp 2 --seq-length 16384 --cp-comm-type all_gather",
                       "--gpus 64 --cp 2 --seq-length 4096 --cp-comm-type p2p" };
  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_autoptr (GError) err = NULL;
      g_assert_true (parse_and_resolve (f, ok[i], &err));
      g_assert_no_error (err);
    }
}

/* Ulysses on Transformer Engine's stacks needs the KV heads split, not repeated: llama3-70b
 * has 8 KV heads, so at tp 8 a rank holds one and --cp 2 --cp-comm-type a2a, which
 * plan_resolve lets through (the KV head repeated to two ranks, DeepSpeed's scheme), is
 * refused on megatron-core and nemo (TE asserts k.shape[-2] % cp == 0) with the degree that
 * divides (1) in the hint, and still runs on deepspeed. At tp 4 a rank holds 8 / 4 = 2 KV
 * heads: cp 2 divides them on every stack; cp 4 does not on megatron-core (hint --cp 2). */
static void
test_stack_ulysses_kv (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_clear_pointer (&f->model, model_spec_unref);
  f->model = model_spec_lookup ("llama3-70b", &error);
  g_assert_no_error (error);
  g_autoptr (FwStack) mc = fw_stack_load_preset ("megatron-core", &error);
  g_autoptr (FwStack) nemo = fw_stack_load_preset ("nemo", &error);
  g_autoptr (FwStack) ds = fw_stack_load_preset ("deepspeed", &error);
  g_assert_no_error (error);
  g_assert_true (mc->cp_a2a_kv_divide && nemo->cp_a2a_kv_divide && !ds->cp_a2a_kv_divide);
  g_assert_true (parse_and_resolve (f, "--gpus 64 --tp 8 --cp 2 --cp-comm-type a2a "
                                    "--seq-length 16384 --gbs 64", &error));
  g_assert_no_error (error);
  g_assert_false (plan_check_stack_model (&f->plan, f->model, mc, &error));
  g_assert_nonnull (strstr (error->message, "degree 2 on the megatron-core stack needs it to "
                                            "divide the KV heads per TP rank, 1:"));
  g_assert_nonnull (strstr (error->message, "hint: --cp 1, --cp-comm-type p2p"));
  g_clear_error (&error);
  g_assert_false (plan_check_stack_model (&f->plan, f->model, nemo, &error));
  g_clear_error (&error);
  g_assert_true (plan_check_stack_model (&f->plan, f->model, ds, &error));
  g_assert_no_error (error);
  /* the ring needs nothing of the heads */
  f->plan.cp_comm = PLAN_CP_P2P;
  g_assert_true (plan_check_stack_model (&f->plan, f->model, mc, &error));
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (parse_and_resolve (f, "--gpus 64 --tp 4 --cp 2 --cp-comm-type a2a "
                                    "--seq-length 16384 --gbs 64", &error));
  g_assert_true (plan_check_stack_model (&f->plan, f->model, mc, &error));
  g_assert_no_error (error);
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (parse_and_resolve (f, "--gpus 64 --tp 4 --cp 4 --cp-comm-type a2a "
                                    "--seq-length 16384 --gbs 64", &error));
  g_assert_false (plan_check_stack_model (&f->plan, f->model, mc, &error));
  g_assert_nonnull (strstr (error->message, "the KV heads per TP rank, 2:"));
  g_assert_nonnull (strstr (error->message, "hint: --cp 2,"));
  g_clear_error (&error);
  /* cp 16 at tp 8: 8 query heads a rank; the plan's hint (8) passes the replication rule,
   * and the degree TE's stacks take (1) is named beside it, not left to a second refusal */
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_false (parse_and_resolve (f, "--gpus 128 --tp 8 --cp 16 --cp-comm-type a2a "
                                     "--seq-length 65536 --gbs 64", &error));
  g_assert_nonnull (strstr (error->message, "(hint: --cp 8 (--cp 1 on Megatron-Core and NeMo, "
                                            "whose Ulysses splits the 1 KV head of a rank), "
                                            "or --cp-comm-type p2p)"));
}

/* Plans apart only in an option that moves the step have names apart (predict, runs and
 * the published-run ranking tell plans by name): without and with --tp-comm-overlap both
 * read ...-sp-1F1B (1.298 against 1.121 s), six Mixtral plans of 2.33-3.97 s one name. The
 * suffixes come after the schedule, as the search's table has always written the first
 * four. */
static void
test_names_apart (Fixture *f, gconstpointer data)
{
  static const struct { const char *flags, *suffix; } cases[] = {
    { "", "-sp-1F1B" },
    { "--tp-comm-overlap", "-sp-1F1B-tpov" },
    { "--use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather",
      "-sp-zero1-1F1B-dpov" },
    { "--use-distributed-optimizer --overlap-grad-reduce", "-sp-zero1-1F1B-gradov" },
    { "--cp 2 --cp-comm-type a2a --gpus 16", "-sp-1F1B-cpa2a" },
    { "--cp 2 --cp-comm-type all_gather --gpus 16", "-sp-1F1B-cpag" },
    { "--pp 2 --gpus 32 --rank-order tp-cp-ep-pp-dp", "-sp-1F1B-ppdp" },
    /* another order, by the axes that lay ranks out (tp 8, dp 2, pp 2; cp and ep of 1
     * place nothing): it was -ppdp too */
    { "--pp 2 --gpus 32 --rank-order dp-tp-cp-ep-pp", "-sp-1F1B-order_dp-tp-pp" },
    { "--pp 4 --gpus 32 --decoder-first-pipeline-num-layers 7 "
      "--decoder-last-pipeline-num-layers 7", "-sp-1F1B-split7.7" },
    /* --num-experts makes the MLPs experts with Megatron's top-2 router */
    { "--num-experts 8 --ep 2", "-sp-1F1B-e8-k2" },
    { "--num-experts 8 --ep 2 --moe-router-topk 1", "-sp-1F1B-e8-k1" },
    { "--num-experts 8 --ep 2 --moe-token-dispatcher-type allgather", "-sp-1F1B-e8-k2-dispag" },
    { "--num-experts 8 --ep 2 --moe-expert-capacity-factor 1", "-sp-1F1B-e8-k2-cf1" },
    { "--num-experts 8 --ep 2 --moe-imbalance 1", "-sp-1F1B-e8-k2-imb1" },
  };
  /* and an order that lays ranks out as Megatron's does (ep of 1 placed elsewhere) reads
   * as Megatron's: no suffix */
  {
    g_autoptr (GError) error = NULL;
    plan_clear (&f->plan);
    plan_init_defaults (&f->plan);
    g_assert_true (parse_and_resolve (f, "--tp 8 --sp --gpus 32 --pp 2 --gbs 64 --rank-order "
                                      "tp-cp-dp-ep-pp", &error));
    g_autofree char *name = plan_to_string (&f->plan);
    g_assert_true (g_str_has_suffix (name, "-sp-1F1B"));
  }
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      plan_clear (&f->plan);
      plan_init_defaults (&f->plan);
      g_autoptr (GError) error = NULL;
      g_autofree char *flags = g_strdup_printf ("--tp 8 --sp --gpus 16 --gbs 64 %s",
                                                cases[i].flags);
      if (!parse_and_resolve (f, flags, &error))
        g_error ("%s: %s", flags, error->message);
      char *name = plan_to_string (&f->plan);
      if (!g_str_has_suffix (name, cases[i].suffix))
        g_error ("%s: %s, not ending %s", flags, name, cases[i].suffix);
      for (guint k = 0; k < names->len; k++)
        g_assert_cmpstr (name, !=, names->pdata[k]);
      g_ptr_array_add (names, name);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/plan/resolve/llama3-405b", Fixture, NULL, setup, test_llama3_plan, teardown);
  g_test_add ("/plan/json/round-trip", Fixture, NULL, setup, test_plan_json_round_trip, teardown);
  g_test_add ("/plan/precision-fp4", Fixture, NULL, setup, test_precision_fp4, teardown);
  g_test_add ("/plan/fp8-recipe", Fixture, NULL, setup, test_fp8_recipe, teardown);
  g_test_add ("/plan/precision-v100", Fixture, NULL, setup, test_precision_v100, teardown);
  g_test_add ("/plan/precision-stack", Fixture, NULL, setup, test_precision_stack, teardown);
  g_test_add ("/plan/stack-ep", Fixture, NULL, setup, test_stack_ep, teardown);
  g_test_add ("/plan/stack-ulysses-kv", Fixture, NULL, setup, test_stack_ulysses_kv, teardown);
  g_test_add ("/plan/tp-overlap-needs-sp", Fixture, NULL, setup, test_tp_overlap_needs_sp,
              teardown);
  g_test_add ("/plan/precision-no-peak", Fixture, NULL, setup, test_precision_no_peak,
              teardown);
  g_test_add ("/plan/args/aliases", Fixture, NULL, setup, test_aliases, teardown);
  g_test_add ("/plan/args/sharding-names", Fixture, NULL, setup, test_sharding_names, teardown);
  g_test_add ("/plan/args/bad-values", Fixture, NULL, setup, test_bad_values, teardown);
  g_test_add ("/plan/args/recompute-flags", Fixture, NULL, setup, test_recompute_flags, teardown);
  g_test_add ("/plan/resolve/shards", Fixture, NULL, setup, test_shards, teardown);
  g_test_add ("/plan/resolve/invalid", Fixture, NULL, setup, test_invalid_plans, teardown);
  g_test_add ("/plan/resolve/learned-positions", Fixture, "gpt3-175b", setup,
              test_learned_positions, teardown);
  g_test_add ("/plan/json/cpu-offload", Fixture, NULL, setup, test_plan_json_cpu_offload,
              teardown);
  g_test_add ("/plan/resolve/interleaved-split", Fixture, NULL, setup, test_interleaved_split,
              teardown);
  g_test_add ("/plan/resolve/stage-split-interleaved", Fixture, NULL, setup,
              test_stage_split_interleaved, teardown);
  g_test_add ("/plan/resolve/accounted-split", Fixture, NULL, setup, test_accounted_split,
              teardown);
  g_test_add ("/plan/json/torchtitan", Fixture, NULL, setup, test_plan_json, teardown);
  g_test_add ("/plan/json/errors", Fixture, NULL, setup, test_plan_json_errors, teardown);
  g_test_add ("/plan/json/local-batch", Fixture, NULL, setup, test_plan_json_local_batch,
              teardown);
  g_test_add ("/plan/split/chunk-first-layer-sums", Fixture, NULL, setup,
              test_chunk_first_layer_sums, teardown);
  g_test_add ("/plan/json/titan-ac", Fixture, NULL, setup, test_plan_json_titan_ac, teardown);
  g_test_add ("/plan/json/titan-replicate", Fixture, NULL, setup,
              test_plan_json_titan_replicate, teardown);
  g_test_add ("/plan/json/to-json", Fixture, NULL, setup, test_to_json, teardown);
  g_test_add ("/plan/names-apart", Fixture, NULL, setup, test_names_apart, teardown);
  g_test_add ("/plan/resolve/cp-alibi", Fixture, NULL, setup, test_cp_alibi, teardown);
  g_test_add ("/plan/resolve/cp-sliding-window", Fixture, NULL, setup, test_cp_sliding_window,
              teardown);
  return g_test_run ();
}
