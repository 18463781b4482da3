/* tests/frameworks/test-compile.c - a compiled run (--compile) and async TP (--async-tp):
 * plan options whose effect is the stack's (docs/contracts.md). The flags round-trip
 * through the plan string and the plan JSON, a stack without the mode refuses them, and
 * the cost model's compiled figures are derived by hand below. */
#include <math.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "frameworks/stack.h"
#include "plan/plan.h"
#include "sim/cost.h"
#include "results/published.h"
#include "../plan/plan-flags.h"
#include "../sim/cost-ops.h"

static gboolean
parse_flags (Plan *plan, const char *flags, GError **error)
{
  PlanArgs args = { 0 };
  gboolean ok = plan_flags_parse (plan, &args, flags, error);
  plan_args_clear (&args);
  return ok;
}

/* --compile and --async-tp are stored in the plan string and the plan JSON (training.
 * compile, parallelism.enable_async_tensor_parallel: TorchTitan's names) and read back
 * from the JSON; --async-tp turns the TP-comm overlap on. */
static void
test_round_trip (void)
{
  Plan p;
  plan_init_defaults (&p);
  g_autoptr (GError) error = NULL;
  g_assert_true (parse_flags (&p, "--tp 8 --compile --async-tp", &error));
  g_assert_no_error (error);
  g_assert_true (p.compile);
  g_assert_true (p.async_tp);
  g_assert_true (p.tp_comm_overlap);
  g_autofree char *s = plan_to_string (&p);
  g_assert_nonnull (strstr (s, "-compile-asynctp-"));

  g_autoptr (JsonBuilder) b = json_builder_new ();
  plan_to_json (&p, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *o = json_node_get_object (root);
  JsonObject *tr = json_object_get_object_member (o, "training");
  JsonObject *par = json_object_get_object_member (o, "parallelism");
  g_assert_true (json_object_get_boolean_member (tr, "compile"));
  g_assert_true (json_object_get_boolean_member (par, "enable_async_tensor_parallel"));
  /* the stored sections given back as a plan file (--plan) */
  g_autoptr (JsonObject) wrap = json_object_new ();
  JsonObject *t2 = json_object_new ();
  json_object_set_boolean_member (t2, "compile", json_object_get_boolean_member (tr, "compile"));
  json_object_set_object_member (wrap, "training", t2);
  JsonObject *p2 = json_object_new ();
  json_object_set_boolean_member (p2, "enable_async_tensor_parallel",
                                  json_object_get_boolean_member (par,
                                                                  "enable_async_tensor_parallel"));
  json_object_set_object_member (wrap, "parallelism", p2);
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, wrap);
  g_autofree char *text = json_to_string (node, FALSE);
  Plan q;
  plan_init_defaults (&q);
  g_assert_false (q.compile);
  g_assert_true (plan_load_json_data (&q, text, -1, "test", &error));
  g_assert_no_error (error);
  g_assert_true (q.compile);
  g_assert_true (q.async_tp);
  g_assert_true (q.tp_comm_overlap);

  /* a TorchTitan job file: [compile] enable with "model" among the components */
  static const char toml[] = "[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n";
  Plan r;
  plan_init_defaults (&r);
  g_assert_true (plan_load_toml_data (&r, toml, -1, "test.toml", &error));
  g_assert_no_error (error);
  g_assert_true (r.compile);
  static const char toml_off[] = "[compile]\nenable = true\ncomponents = [\"loss\"]\n";
  Plan r2;
  plan_init_defaults (&r2);
  g_assert_true (plan_load_toml_data (&r2, toml_off, -1, "test.toml", &error));
  g_assert_false (r2.compile);
  plan_clear (&p);
  plan_clear (&q);
  plan_clear (&r);
  plan_clear (&r2);
}

/* A stack without a compiled mode refuses --compile; async TP needs a stack that has it
 * and a compiled model (TorchTitan raises otherwise); XLA is compiled by default. */
static void
test_refusal (void)
{
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", NULL);
  g_autoptr (FwStack) tt = fw_stack_lookup ("torchtitan", NULL);
  g_autoptr (FwStack) mx = fw_stack_lookup ("maxtext", NULL);
  g_assert_cmpint (mc->compile, ==, FW_OPT_NO);
  g_assert_cmpint (tt->compile, ==, FW_OPT_OPTIONAL);
  g_assert_cmpint (mx->compile, ==, FW_OPT_DEFAULT);
  Plan p;
  plan_init_defaults (&p);
  g_autoptr (GError) error = NULL;
  g_assert_true (plan_check_stack (&p, mc, &error));
  p.compile = TRUE;
  g_assert_false (plan_check_stack (&p, mc, &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "--compile: the megatron-core stack has no compiled"));
  g_clear_error (&error);
  g_assert_true (plan_check_stack (&p, tt, &error));
  g_assert_true (plan_check_stack (&p, mx, &error));
  p.compile = FALSE;
  p.async_tp = p.tp_comm_overlap = TRUE;
  g_assert_false (plan_check_stack (&p, tt, &error));
  g_assert_nonnull (strstr (error->message, "--compile"));
  g_clear_error (&error);
  g_assert_false (plan_check_stack (&p, mc, &error));
  g_assert_nonnull (strstr (error->message, "no async TP"));
  g_clear_error (&error);
  p.compile = TRUE;
  g_assert_true (plan_check_stack (&p, tt, &error));
  g_assert_no_error (error);
  plan_clear (&p);
}

/* The compiled figures of the torchtitan stack on the h100-sxm-96g preset:
 *  - HBM: 2,400 GB/s (torchtitan docs/performance.md, Grand Teton's 96 GB HBM2e);
 *  - an RMSNorm of 16,384 x 4,096 elements: eager 2.1 passes (sim/cost.c
 *    EAGER_ELEMENTWISE_PASSES), compiled 1: memory-bound either way, so its time less the
 *    one launch is 2.1 times as long eager;
 *  - the FP8 cast of a GEMM operand (m x k = 16,384 x 4,096), counted in passes of 3 B
 *    (read 2 B, write 1 B) per element: eager torchao 11.67 passes (abs 2+2 B, max 2,
 *    to(fp32) 2+4, mul 4+4, clamp 4+4, to(fp8) 4+1 = 33 B, and the transposed fp8 copy
 *    the weight gradient reads, 1+1 B: 35 B), compiled 1.33 (torchao's roofline model:
 *    the amax fused into the producing kernel, one cast reading 2 B and writing both fp8
 *    layouts, 2 x 1 B: 4 B). */
static void
test_compiled_costs (void)
{
  g_autoptr (TopoCluster) cl = topo_cluster_lookup ("h100-sxm-96g-superpod", NULL);
  g_assert_nonnull (cl);
  g_assert_cmpfloat_with_epsilon (cl->device.hbm_Bps, 2400e9, 1.0);
  g_autoptr (FwStack) tt = fw_stack_lookup ("torchtitan", NULL);
  SimCostOptions eager, comp;
  sim_cost_options_init_stack (&eager, cl, tt);
  comp = eager;
  sim_cost_options_compile (&comp);
  g_assert_cmpfloat (eager.elementwise_passes, ==, 2.1);
  g_assert_cmpfloat (comp.elementwise_passes, ==, 1.0);
  g_assert_cmpfloat (eager.fp8_cast_passes, ==, 11.67);
  g_assert_cmpfloat (comp.fp8_cast_passes, ==, 1.33);
  SimCostOptions again = comp;
  sim_cost_options_compile (&again);   /* idempotent */
  g_assert_cmpfloat (again.fp8_cast_passes, ==, 1.33);

  g_autoptr (SimCost) ce = sim_cost_new (cl, NULL, &eager);
  g_autoptr (SimCost) cc = sim_cost_new (cl, NULL, &comp);
  ModelOp norm = { 0 };
  norm.kind = MODEL_OP_NORM;
  norm.name = "attn_norm";
  norm.elements = 16384ull * 4096ull;
  const double te = sim_cost_op_s (ce, &norm, TOPO_DTYPE_BF16, FALSE) - eager.launch_overhead_s;
  const double tc = sim_cost_op_s (cc, &norm, TOPO_DTYPE_BF16, FALSE) - comp.launch_overhead_s;
  g_assert_cmpfloat_with_epsilon (te / tc, 2.1, 1e-9);

  /* the cast: the GEMM with cast_passes X costs X x 3 x m x k / rate more than with 0
   * (the weight's cast, fp8_weight_cast_bytes, is the same in all three and cancels) */
  ModelOp mm = { 0 };
  mm.kind = MODEL_OP_GEMM;
  mm.name = "attn_qkv";
  mm.m = 16384, mm.k = 4096, mm.n = 6144, mm.b = 1;
  SimCostOptions none = comp;
  none.fp8_cast_passes = 0;
  g_autoptr (SimCost) cn = sim_cost_new (cl, NULL, &none);
  g_autoptr (SimCost) ce8 = sim_cost_new (cl, NULL, &eager);
  const double t0 = sim_cost_op_s (cn, &mm, TOPO_DTYPE_FP8, FALSE);
  const double d_eager = sim_cost_op_s (ce8, &mm, TOPO_DTYPE_FP8, FALSE) - t0;
  const double d_comp = sim_cost_op_s (cc, &mm, TOPO_DTYPE_FP8, FALSE) - t0;
  g_assert_cmpfloat (d_comp, >, 0);
  g_assert_cmpfloat_with_epsilon (d_eager / d_comp, 11.67 / 1.33, 1e-9);
  /* and in seconds: 1.33 x 3 B x 16,384 x 4,096 / (2,400 GB/s x mem_efficiency) */
  const double want = 1.33 * 3.0 * 16384.0 * 4096.0 / (2400e9 * comp.mem_efficiency);
  g_assert_cmpfloat_with_epsilon (d_comp / want, 1.0, 1e-9);
}

/* validate reads the row text (data/published-runs.csv rows 781, 782, 791, 792, the
 * columns that matter): "torch.compile" in the framework cell is --compile on the
 * torchtitan stack, "AsyncTP" is --async-tp (and the TP-comm overlap); "eager" is
 * neither. Measured: 16 x 8192 tokens / (5,762 tokens/s x 8 GPUs) = 2.8431 s and
 * 16 x 8192 / (6,667 x 8) = 2.4572 s. The compiled row is predicted faster than the eager
 * one (its norms and activations at 1 pass instead of 2.1). On the megatron-core stack
 * the same text sets nothing (no compiled mode). */
static void
test_validate_reads_text (void)
{
  static const char text[] =
    "row_id,model,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,seq_len,gpu_type,"
    "n_gpus,tp,pp,cp,dp,sequence_parallel,zero_stage_or_fsdp,micro_batch,global_batch,"
    "recompute,precision,framework,tokens_per_s_per_gpu,notes\r\n"
    "781,Llama 3.1 8B,32,4096,32,8,14336,128256,8192,H100-SXM-96GB-HBM2e (500 W),8,1,1,1,8,,"
    "FSDP2 (full shard),2,16,selective,bf16,\"torchtitan (FSDP2, eager)\",5762,\r\n"
    "782,Llama 3.1 8B,32,4096,32,8,14336,128256,8192,H100-SXM-96GB-HBM2e (500 W),8,1,1,1,8,,"
    "FSDP2 (full shard),2,16,selective,bf16,\"torchtitan (FSDP2, torch.compile)\",6667,\r\n"
    "791,Llama 3.1 70B,80,8192,64,8,28672,128256,8192,H100-SXM-96GB-HBM2e (500 W),256,8,1,1,"
    "32,yes,FSDP2 (full shard),16,512,full,float8,"
    "\"torchtitan (FSDP2+TP, torch.compile, Float8)\",829,\r\n"
    "792,Llama 3.1 70B,80,8192,64,8,28672,128256,8192,H100-SXM-96GB-HBM2e (500 W),256,8,1,1,"
    "32,yes,FSDP2 (full shard),16,512,full,float8,"
    "\"torchtitan (FSDP2+TP, torch.compile, Float8, AsyncTP)\",876,\r\n"
    "900,Llama 3.1 8B,32,4096,32,8,14336,128256,8192,H100-SXM-96GB-HBM2e (500 W),8,1,1,1,8,,"
    "FSDP2 (full shard),2,16,selective,bf16,Megatron-Core,6667,compiled\r\n";
  g_autoptr (GError) error = NULL;
  ResCsv *csv = res_csv_parse (text, -1, "test.csv", &error);
  g_assert_no_error (error);
  ResPublishedCase *c[5];
  for (guint i = 0; i < 5; i++)
    {
      c[i] = res_published_case_new (csv, i);
      if (!c[i]->ready)
        g_error ("row %u: %s", i, c[i]->skip_reason);
    }
  g_assert_false (c[0]->plan.compile);
  g_assert_true (c[1]->plan.compile);
  g_assert_false (c[1]->plan.async_tp);
  g_assert_true (c[2]->plan.compile);
  g_assert_false (c[2]->plan.tp_comm_overlap);
  g_assert_true (c[3]->plan.async_tp);
  g_assert_true (c[3]->plan.tp_comm_overlap);
  g_assert_false (c[4]->plan.compile);     /* megatron-core: no compiled mode */
  g_assert_cmpfloat_with_epsilon (c[0]->measured_step_s, 16.0 * 8192 / (5762.0 * 8), 1e-9);
  g_assert_cmpfloat_with_epsilon (c[1]->measured_step_s, 16.0 * 8192 / (6667.0 * 8), 1e-9);
  g_assert_true (res_published_case_predict (c[0]));
  g_assert_true (res_published_case_predict (c[1]));
  g_assert_cmpfloat (c[1]->predicted_step_s, <, c[0]->predicted_step_s);
  for (guint i = 0; i < 5; i++)
    res_published_case_free (c[i]);
  res_csv_free (csv);
}

/* torchao's float8 as the torchtitan stack runs it (frameworks/presets/torchtitan.json
 * fp8), on the h100-sxm-96g preset (device row "H100": FP8 MAMF 1,402.6 of 1,978.9):
 *  - GEMM rate "kernel": the BF16 GEMMs' fitted fraction of MAMF (0.7847 / 0.803) on the
 *    FP8 MAMF: 0.9772 x 0.7088 = 0.6926 of the FP8 peak; megatron-core keeps the rate
 *    fitted on TE rows, 0.602 / 0.709 of the MAMF = 0.6018;
 *  - casts by operand, compiled 1.33 passes of 3 B (3.99 B per element): Llama 3 8B's w2
 *    at 2 x 8,192 tokens, forward m = 16,384, n = 4,096, k = 14,336. Against the same
 *    options without casts (passes 0, weight bytes 0) the forward GEMM costs the input's
 *    cast, 3.99 x m x k B, plus the bf16 weight's, 6 x k x n B (an amax read of 2 B,
 *    a read of 2 B and both fp8 layouts, 2 x 1 B); the data gradient (m = 16,384,
 *    n = 14,336, k = 4,096: A is the output gradient, 16,384 x 4,096) 3.99 x 16,384 x
 *    4,096 B; the weight gradient nothing. Megatron-core (Transformer Engine) casts by
 *    operand too, 1 pass of 3 B and no weight cast (TE keeps its weights cast for the
 *    step): the forward 3 x 16,384 x 14,336 B, the data gradient 3 x 16,384 x 4,096 B and
 *    the weight gradient (m = 14,336, k = 16,384) nothing, where a cast of its A per
 *    GEMM would charge it 3 x 14,336 x 16,384 B more: it reads the transposed copies
 *    the other two casts wrote (TE's cast-transpose);
 *  - with enable_fsdp_float8_all_gather the weights come cast: 0 B; the rowwise recipe
 *    moves 10 B per quantization against tensorwise's 6 (sim_cost_fp8_quant_bytes), so
 *    the weight's 6 B become 10 and the 1.33 passes 1.33 x 10 / 6 = 2.2167;
 *  - the output layer stays bf16 (module_filter_fn fqn != "output"): a logits GEMM asked
 *    in fp8 costs exactly its bf16 time, forward and backward; so it does under
 *    megatron-core (its output_layer is a ColumnParallelLinear, no TE module), and the
 *    MoE router's gating GEMM with it. */
static void
test_torchao_fp8 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) cl = topo_cluster_lookup ("h100-sxm-96g-superpod", NULL);
  g_autoptr (FwStack) tt = fw_stack_lookup ("torchtitan", NULL);
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", NULL);
  g_assert_nonnull (cl);
  SimCostOptions ot, om;
  sim_cost_options_init_stack (&ot, cl, tt);
  sim_cost_options_init_stack (&om, cl, mc);
  g_assert_cmpfloat_with_epsilon (ot.gemm_fp8_efficiency,
                                  0.7847 / 0.803 * (1402.6 / 1978.9), 1e-12);
  g_assert_cmpfloat_with_epsilon (ot.gemm_fp8_efficiency, 0.6926, 1e-4);
  g_assert_cmpfloat_with_epsilon (om.gemm_fp8_efficiency, 0.602 / 0.709 * (1402.6 / 1978.9),
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (om.gemm_fp8_efficiency, 0.6018, 1e-4);
  g_assert_true (ot.fp8_cast_per_operand && ot.fp8_output_bf16);
  g_assert_cmpfloat (ot.fp8_weight_cast_bytes, ==, 6.0);
  g_assert_true (om.fp8_cast_per_operand);
  g_assert_true (om.fp8_output_bf16);   /* ColumnParallelLinear, no TE module */
  g_assert_cmpfloat (om.fp8_cast_passes, ==, 1.0);
  g_assert_cmpfloat (om.fp8_weight_cast_bytes, ==, 0.0);
  sim_cost_options_compile (&ot);
  g_assert_cmpfloat (ot.fp8_cast_passes, ==, 1.33);

  SimCostOptions ot0 = ot, om0 = om;
  ot0.fp8_cast_passes = ot0.fp8_weight_cast_bytes = 0.0;
  om0.fp8_cast_passes = 0.0;
  g_autoptr (SimCost) ct = sim_cost_new (cl, NULL, &ot);
  g_autoptr (SimCost) ct0 = sim_cost_new (cl, NULL, &ot0);
  g_autoptr (SimCost) cm = sim_cost_new (cl, NULL, &om);
  g_autoptr (SimCost) cm0 = sim_cost_new (cl, NULL, &om0);
  const double T = 16384, H = 4096, F = 14336;
  ModelOp fwd = named_gemm_op ("mlp_down", 16384, 4096, 14336, 0);
  ModelOp dgrad = named_gemm_op ("mlp_down_dgrad", 16384, 14336, 4096, 0);
  ModelOp wgrad = named_gemm_op ("mlp_down_wgrad", 14336, 4096, 16384, 0);
#define EXTRA(c, c0, op) (sim_cost_op_s (c, &op, TOPO_DTYPE_FP8, FALSE) \
                          - sim_cost_op_s (c0, &op, TOPO_DTYPE_FP8, FALSE))
  g_assert_cmpfloat_with_epsilon (EXTRA (ct, ct0, fwd),
                                  sim_cost_hbm_s (ct, 3.99 * T * F + 6.0 * F * H), 1e-12);
  g_assert_cmpfloat_with_epsilon (EXTRA (ct, ct0, dgrad), sim_cost_hbm_s (ct, 3.99 * T * H),
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (EXTRA (ct, ct0, wgrad), 0.0, 1e-15);
  g_assert_cmpfloat_with_epsilon (EXTRA (cm, cm0, fwd), sim_cost_hbm_s (cm, 3.0 * T * F),
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (EXTRA (cm, cm0, dgrad), sim_cost_hbm_s (cm, 3.0 * T * H),
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (EXTRA (cm, cm0, wgrad), 0.0, 1e-15);
  /* the faster kernel: the same GEMM without casts, torchao's rate against TE's fit */
  g_assert_cmpfloat (sim_cost_op_s (ct0, &fwd, TOPO_DTYPE_FP8, FALSE), <,
                     sim_cost_op_s (cm0, &fwd, TOPO_DTYPE_FP8, FALSE));

  /* fast accumulation in the forward only (torchao's gemm_config_output): without the
   * casts the forward GEMM is compute-bound (2 x 16,384 x 4,096 x 14,336 = 1.92 TFLOP
   * against 0.43 GB of operands), so its time less the launch divides by
   * FP8_FAST_ACCUM_SPEEDUP 1.15 against the same options with it off; the two backward
   * GEMMs and megatron-core's stack are unchanged */
  g_assert_true (ot.fp8_fast_accum_fwd);
  g_assert_false (om.fp8_fast_accum_fwd);
  SimCostOptions off0 = ot0;
  off0.fp8_fast_accum_fwd = FALSE;
  g_autoptr (SimCost) coff = sim_cost_new (cl, NULL, &off0);
  const double launch = ot0.launch_overhead_s;
  g_assert_cmpfloat_with_epsilon ((sim_cost_op_s (coff, &fwd, TOPO_DTYPE_FP8, FALSE) - launch)
                                  / (sim_cost_op_s (ct0, &fwd, TOPO_DTYPE_FP8, FALSE) - launch),
                                  1.15, 1e-9);
  g_assert_cmpfloat (sim_cost_op_s (coff, &dgrad, TOPO_DTYPE_FP8, FALSE), ==,
                     sim_cost_op_s (ct0, &dgrad, TOPO_DTYPE_FP8, FALSE));
  g_assert_cmpfloat (sim_cost_op_s (coff, &wgrad, TOPO_DTYPE_FP8, FALSE), ==,
                     sim_cost_op_s (ct0, &wgrad, TOPO_DTYPE_FP8, FALSE));
  /* a bf16 forward GEMM does not change */
  g_assert_cmpfloat (sim_cost_op_s (coff, &fwd, TOPO_DTYPE_BF16, FALSE), ==,
                     sim_cost_op_s (ct0, &fwd, TOPO_DTYPE_BF16, FALSE));

  Plan plan;
  plan_init_defaults (&plan);
  plan.compute_dtype = PLAN_PREC_FP8;
  SimCostOptions ag = ot, rw = ot;
  plan.fsdp_float8_all_gather = TRUE;
  sim_cost_options_apply_plan (&ag, &plan);
  g_assert_cmpfloat (ag.fp8_weight_cast_bytes, ==, 0.0);
  plan.fsdp_float8_all_gather = FALSE;
  plan.fp8_recipe = FW_SCALING_ROWWISE;
  sim_cost_options_apply_plan (&rw, &plan);
  g_assert_cmpfloat_with_epsilon (rw.fp8_weight_cast_bytes, 10.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (rw.fp8_cast_passes, 1.33 * 10.0 / 6.0, 1e-12);
  plan_clear (&plan);

  const char *const logits[] = { "logits", "logits_dgrad", "logits_wgrad" };
  for (guint i = 0; i < G_N_ELEMENTS (logits); i++)
    {
      ModelOp op = named_gemm_op (logits[i], 16384, 128256, 4096, 0);
      g_assert_cmpfloat (sim_cost_op_math_s (ct, &op, TOPO_DTYPE_BF16, TOPO_DTYPE_FP8, i > 0), ==,
                         sim_cost_op_math_s (ct, &op, TOPO_DTYPE_BF16, TOPO_DTYPE_BF16, i > 0));
      g_assert_cmpfloat (sim_cost_op_math_s (cm, &op, TOPO_DTYPE_BF16, TOPO_DTYPE_FP8, i > 0), ==,
                         sim_cost_op_math_s (cm, &op, TOPO_DTYPE_BF16, TOPO_DTYPE_BF16, i > 0));
    }
  /* megatron-core's MoE router gating GEMM (TopKRouter, fp32 or bf16) too, where an FP8
   * layer GEMM of the same shape is faster than its bf16 twin */
  const char *const routers[] = { "router", "router_dgrad", "router_wgrad" };
  for (guint i = 0; i < G_N_ELEMENTS (routers); i++)
    {
      ModelOp router = named_gemm_op (routers[i], 16384, 128, 4096, 0);
      g_assert_cmpfloat (sim_cost_op_math_s (cm, &router, TOPO_DTYPE_BF16, TOPO_DTYPE_FP8, i > 0),
                         ==,
                         sim_cost_op_math_s (cm, &router, TOPO_DTYPE_BF16, TOPO_DTYPE_BF16, i > 0));
    }
  ModelOp up = named_gemm_op ("mlp_up", 16384, 128256, 4096, 0);
  g_assert_cmpfloat (sim_cost_op_math_s (cm, &up, TOPO_DTYPE_BF16, TOPO_DTYPE_FP8, FALSE), <,
                     sim_cost_op_math_s (cm, &up, TOPO_DTYPE_BF16, TOPO_DTYPE_BF16, FALSE));
#undef EXTRA
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/frameworks/compile/round-trip", test_round_trip);
  g_test_add_func ("/frameworks/compile/refusal", test_refusal);
  g_test_add_func ("/frameworks/compile/costs", test_compiled_costs);
  g_test_add_func ("/frameworks/compile/validate", test_validate_reads_text);
  g_test_add_func ("/frameworks/compile/torchao-fp8", test_torchao_fp8);
  return g_test_run ();
}
