/* tests/sim/test-moe-sim.c - mixture-of-experts plans predicted: the expert-parallel
 * all-to-all costed on the topology, ep in the breakdown, ep and expert TP in the search
 * space. The MoE model is llama3-8b made MoE by --num-experts (Megatron's semantics: every
 * MLP becomes E experts of its size); numbers derived by hand in the comments. */
#include "sim/predict.h"
#include "plan/memory.h"
#include "sim/search.h"
#include "sim/cost.h"
#include "cost-ops.h"
#include "program-asserts.h"

#include <math.h>
#include <string.h>

static ModelSpec *
llama8b (void)
{
  g_autoptr (GError) error = NULL;
  ModelSpec *m = model_spec_lookup ("llama3-8b", &error);
  g_assert_no_error (error);
  return m;
}

static TopoCluster *
h100 (void)
{
  g_autoptr (GError) error = NULL;
  TopoCluster *c = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
  return c;
}

static void
moe_plan (Plan *p, int gpus, int tp, int ep, int etp)
{
  plan_init_defaults (p);
  p->world_size = gpus;
  p->tp = tp;
  p->sequence_parallel = tp > 1;
  p->ep = ep;
  p->etp = etp;
  p->num_experts = 8;
  p->moe_topk = 2;
  p->seq_length = 4096;
  p->global_batch = gpus / tp * 2;
  p->sharding = PLAN_SHARD_ZERO1;
}

/* The plan of the host-excess tests: Qwen3-30B-A3B on 8 GPUs (EP 1, so all 128 experts are
 * local), top-2, balanced, grouped GEMMs, FP8 current scaling, 8,192-token sequences, one per
 * GPU. */
static void
qwen_host_plan (Plan *p)
{
  moe_plan (p, 8, 1, 1, 1);
  p->num_experts = 128;
  p->moe_topk = 2;
  p->moe_imbalance = 1.0;
  p->moe_grouped_gemm = TRUE;
  p->compute_dtype = PLAN_PREC_FP8;
  p->fp8_recipe = FW_SCALING_CURRENT;
  p->seq_length = 8192;
  p->global_batch = 8;
}

/* Qwen3-30B-A3B on 8 GPUs, ep 8 (16 local experts of its 128, top-8), 128 tokens a
 * micro-batch: both passes host-bound (test_host_excess). */
static void
qwen_ep8_plan (Plan *p, int global_batch)
{
  moe_plan (p, 8, 1, 8, 1);
  p->num_experts = 128;
  p->moe_topk = 8;
  p->seq_length = 128;
  p->global_batch = global_batch;
}

/* The plan of test_predict_ep (llama3-8b, 8 experts top-2, ep 8, PP 1) at m = 4
 * micro-batches per rank: the combined-1F1B tests' plan. */
static void
overlap_plan (Plan *p)
{
  moe_plan (p, 64, 1, 8, 1);
  p->global_batch = 64 * 4;
}

/* The megatron-core stack's cost options on `c`, communication free: what is left is the
 * compute and the host's issue time. The tests that use it check the pass-level host
 * figures, some on SequentialMLP plans (no --moe-grouped-gemm): the module-call floor of
 * each SequentialMLP expert linear (moe_seq_expert_fwd_s, test_host_costs) is left out. */
static void
mcore_free_comm_options (SimOptions *opts, const TopoCluster *c)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", &error);
  g_assert_no_error (error);
  sim_options_init (opts, c);
  sim_cost_options_init_stack (&opts->cost, c, mc);
  opts->cost.free_comm = TRUE;
  opts->cost.moe_seq_expert_fwd_s = 0.0;
}


/* The EP all-to-all on the topology (h100-24k: 8 GPUs per server on NVLink, busbw 370
 * GB/s; servers joined by one 400 Gb/s NIC per GPU, bw 50 GB/s of which NCCL reaches busbw 47,
 * sim/cost.h all-to-all):
 *  - ep 8, tp 1: the EP group is ranks 0..7, one server: the 7/8 of the buffer that
 *    leaves a rank stays on NVLink: t_bw = 7/8 B / 370 GB/s; 1 GB: 2.36 ms.
 *  - ep 8, tp = etp 2: expert rank = etp + 2 (ep + 8 edp), the EP group is ranks 0, 2,
 *    ..., 14, 4 in each of 2 servers: half the buffer (the peers in the other server)
 *    crosses the NICs: t_bw = 1/2 B / 47 GB/s; 1 GB: 10.6 ms, over 4x the NVLink case.
 * Latencies (a few us) are negligible at 1 GB; the test allows 3%. */
static void
test_a2a_topology (void)
{
  g_autoptr (ModelSpec) m = llama8b ();
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  Plan p;
  moe_plan (&p, 64, 1, 8, 1);
  g_assert_true (plan_resolve (&p, m, c, &error));
  g_autoptr (PlanLayout) in = plan_layout_new (&p, c, &error);
  g_assert_no_error (error);
  SimCost *cin = sim_cost_new (c, in, NULL);
  double t_in = sim_cost_coll_s (cin, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, 1e9);
  plan_clear (&p);
  moe_plan (&p, 64, 2, 8, 2);
  g_assert_true (plan_resolve (&p, m, c, &error));
  g_autoptr (PlanLayout) out = plan_layout_new (&p, c, &error);
  g_assert_no_error (error);
  SimCost *cout = sim_cost_new (c, out, NULL);
  double t_out = sim_cost_coll_s (cout, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, 1e9);
  g_test_message ("all-to-all of 1 GB: %.3f ms in a server, %.3f ms over two", t_in * 1e3,
                  t_out * 1e3);
  g_assert_cmpfloat (fabs (t_in - 0.875e9 / 370e9) / (0.875e9 / 370e9), <, 0.03);
  g_assert_cmpfloat (fabs (t_out - 0.5e9 / 47e9) / (0.5e9 / 47e9), <, 0.03);
  sim_cost_free (cin);
  sim_cost_free (cout);
  plan_clear (&p);
}

/* A predicted MoE plan names ep in its breakdown: llama3-8b with 8 experts, top-2, ep 8,
 * on 64 GPUs: every layer sends two all-to-alls forward and two backward on the ep
 * stream, which nothing overlaps (no shared expert), so busy = exposed > 0; a dense plan
 * of the same model has ep 0. */
static void
test_predict_ep (void)
{
  g_autoptr (ModelSpec) m = llama8b ();
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  Plan p;
  moe_plan (&p, 64, 1, 8, 1);
  g_assert_true (plan_resolve (&p, m, c, &error));
  SimOptions opts;
  sim_options_init (&opts, c);
  g_autoptr (SimPrediction) pr = sim_predict (m, &p, c, &opts, &error);
  g_assert_no_error (error);
  const SimResult *r = pr->result;
  g_test_message ("ep busy %.4f s exposed %.4f s per stage, step %.3f s", r->comm_s[PROG_COMM_EP],
                  r->exposed_comm_s[PROG_COMM_EP], r->step_time_s);
  g_assert_cmpfloat (r->comm_s[PROG_COMM_EP], >, 0);
  g_assert_cmpfloat (fabs (r->exposed_comm_s[PROG_COMM_EP] - r->comm_s[PROG_COMM_EP]), <,
                     1e-6 * r->comm_s[PROG_COMM_EP]);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  sim_prediction_to_json (pr, MODEL_FLOPS_PALM, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *comm = json_object_get_object_member (json_node_get_object (root), "comm_s");
  g_assert_cmpfloat (json_object_get_double_member (comm, "ep"), >, 0);
  plan_clear (&p);

  Plan d;
  plan_init_defaults (&d);
  d.world_size = 8;
  d.seq_length = 4096;
  g_assert_true (plan_resolve (&d, m, c, &error));
  g_autoptr (SimPrediction) pd = sim_predict (m, &d, c, &opts, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (pd->result->comm_s[PROG_COMM_EP], ==, 0);
  plan_clear (&d);
}

/* The search space of an MoE model holds ep and expert TP: 16 GPUs, pp 1, cp 1, tp in
 * {1, 2}: with tp 1, ep in {1, 2, 4, 8} (the divisors of 8 experts; each folds onto 16
 * ranks); with tp 2 (and sp), etp 2 or 1, ep with etp x ep | 16. ZeRO-3 is searched with
 * every layout (it folds: the experts shard over their data-parallel group; the search
 * left it out, so an FSDP stack's MoE search lost to its own rule of thumb, ZeRO-3 at
 * ep 1), HSDP never (it does not fold); --ep 4 fixes ep. A dense model's space has only
 * ep 1. */
static void
test_search_space (void)
{
  SearchSpec spec;
  search_spec_init (&spec);
  spec.model = llama8b ();
  spec.cluster = h100 ();
  spec.base.seq_length = 4096;
  spec.base.global_batch = 64;
  spec.base.num_experts = 8;
  sim_options_init (&spec.sim, spec.cluster);
  spec.gpus = g_array_new (FALSE, FALSE, sizeof (int));
  int v = 16;
  g_array_append_val (spec.gpus, v);
  spec.tp = g_array_new (FALSE, FALSE, sizeof (int));
  for (int t = 1; t <= 2; t++)
    g_array_append_val (spec.tp, t);
  spec.pp = g_array_new (FALSE, FALSE, sizeof (int));
  v = 1;
  g_array_append_val (spec.pp, v);
  g_autoptr (GError) error = NULL;
  SearchSpace *s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  gboolean seen[9][3] = { { FALSE } }, zero3[9] = { FALSE };
  for (guint64 i = 0; i < search_space_size (s); i++)
    {
      Plan p;
      search_candidate_plan (s, i, &p);
      g_assert_cmpint (p.sharding, !=, PLAN_SHARD_HSDP);
      g_assert_true (p.ep >= 1 && p.ep <= 8 && 8 % p.ep == 0);
      g_assert_true (p.etp == 1 || p.etp == p.tp);
      seen[p.ep][p.etp] = TRUE;
      if (p.sharding == PLAN_SHARD_ZERO3)
        zero3[p.ep] = TRUE;
      plan_clear (&p);
    }
  search_space_free (s);
  for (int ep = 1; ep <= 8; ep *= 2)
    {
      g_assert_true (seen[ep][1]);
      g_assert_true (seen[ep][2]);   /* tp 2, etp 2: 2 x 8 = 16 folds */
      g_assert_true (zero3[ep]);
    }
  spec.base.ep = 4;
  s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  for (guint64 i = 0; i < search_space_size (s); i++)
    {
      Plan p;
      search_candidate_plan (s, i, &p);
      g_assert_cmpint (p.ep, ==, 4);
      plan_clear (&p);
    }
  search_space_free (s);
  spec.base.ep = 1;
  spec.base.num_experts = 0;
  s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  for (guint64 i = 0; i < search_space_size (s); i++)
    {
      Plan p;
      search_candidate_plan (s, i, &p);
      g_assert_cmpint (p.ep, ==, 1);
      plan_clear (&p);
    }
  search_space_free (s);
  search_spec_clear (&spec);
}

/* The MoE host costs of the megatron-core stack on h100-24k (frameworks/presets
 * megatron-core.json "moe"; sim/cost.c):
 *  - the dispatcher's device-to-host sync of the tokens per expert: one launch plus a
 *    synchronize, 5 us (hardware.md: 4-6 us per launch-plus-sync);
 *  - a grouped GEMM of 16 experts of 256 tokens x 2048 x 1536 (Qwen3-30B-A3B's fc1 at EP 8,
 *    MBS 1: 4096 x 8 / 128 tokens per expert): TE GroupedLinear issues 16 cuBLAS GEMMs,
 *    and behind the sync the host cannot run ahead, so the forward op costs the host
 *    16 x 61.46875 us = 983.5 us (a training step's expert GEMM call: the experts' forward
 *    of Qwen3-30B-A3B measured at 2.187 ms, less the two GroupedLinear calls' own
 *    2 x (115 - 20) us and the activation's 2 x 15 us, over 2 x 16 calls, 1967 / 32 us:
 *    sim/cost.c TE_GEMM_CALL_TRAIN_HOST_S, above h100-24k's documented launch figure, 4 us), not
 *    its GPU time: 16 x 2 x 256 x 2048 x 1536 = 25.8 GFLOP at under 1 PFLOP/s is about
 *    26 us at best;
 *  - TE GroupedLinear also loops over the experts in Python (moe.expert_eager_op): one
 *    eager PyTorch op per expert, 15 us each (sim/cost.c: the middle of 5-25 us per op),
 *    with FP8 in the forward (each expert's weight cast): the FP8 forward costs
 *    16 x (61.46875 + 15) = 1223.5 us;
 *  - the backward has no sync: with the stack's per-pass host figures
 *    (moe_expert_host_s) its data and weight gradients cost their GPU time, the
 *    one-kernel figure of a stack without per-expert launches and 15 kernels more (the
 *    16 cuBLAS GEMMs where one kernel is counted, 1 us each, the stack's kernel_overhead;
 *    bf16, so no quantize kernels), and the host's calls count against the whole pass
 *    (test_host_excess); without those figures they keep the per-GEMM floor, the weight
 *    gradient 16 x (61.46875 + 15) = 1223.5 us (each expert's wgrad buffer), the data
 *    gradient 16 x 61.46875 = 983.5 us;
 *  - the same op as one GEMM launch (a stack without per-expert launches) costs its GPU
 *    time, below 64 us; the default plan (megatron-core) prices the sync op at 5 us, a
 *    stack without the sync at 0. */
static void
test_host_costs (void)
{
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", &error);
  g_assert_no_error (error);
  g_assert_true (mc->moe_dispatch_host_sync);
  g_assert_true (mc->moe_grouped_gemm_per_expert);
  SimCostOptions o;
  sim_cost_options_init_stack (&o, c, mc);
  g_assert_cmpfloat (o.host_launch_s, ==, 4e-6);
  g_assert_cmpfloat (fabs (o.moe_gemm_call_s - 61.46875e-6), <, 1e-15);
  g_assert_cmpfloat (o.moe_host_sync_s, ==, 5e-6);
  g_assert_true (mc->moe_expert_eager_op);
  g_assert_cmpfloat (o.moe_expert_op_s, ==, 15e-6);
  SimCost *cost = sim_cost_new (c, NULL, &o);
  ModelOp g = named_gemm_op ("expert_up", 256, 1536, 2048, 16);
  double grouped = sim_cost_op_s (cost, &g, TOPO_DTYPE_BF16, FALSE);
  g_assert_cmpfloat (fabs (grouped - 16 * 61.46875e-6), <, 1e-12);
  g_assert_cmpfloat (fabs (sim_cost_op_s (cost, &g, TOPO_DTYPE_FP8, FALSE) - 16 * 76.46875e-6), <,
                     1e-12);
  ModelOp w = g, dg = g;
  w.name = "expert_up_wgrad";
  w.m = 2048, w.n = 1536, w.k = 256;
  dg.name = "expert_up_dgrad";
  dg.m = 256, dg.n = 2048, dg.k = 1536;
  g_assert_cmpfloat (o.launch_overhead_s, ==, 1e-6);
  const double wgrad_pass = sim_cost_op_s (cost, &w, TOPO_DTYPE_BF16, TRUE);
  const double dgrad_pass = sim_cost_op_s (cost, &dg, TOPO_DTYPE_BF16, TRUE);
  g_assert_cmpfloat (wgrad_pass, <, 64e-6 + 15e-6);
  g_assert_cmpfloat (dgrad_pass, <, 64e-6 + 15e-6);
  sim_cost_free (cost);
  SimCostOptions np = o;
  for (int i = 0; i < 2; i++)
    np.moe_layer_host_s[i] = np.moe_expert_host_s[i] = np.moe_expert_host_fp8_s[i] = 0.0;
  cost = sim_cost_new (c, NULL, &np);
  g_assert_cmpfloat (fabs (sim_cost_op_s (cost, &w, TOPO_DTYPE_BF16, TRUE) - 16 * 76.46875e-6), <,
                     1e-12);
  g_assert_cmpfloat (fabs (sim_cost_op_s (cost, &dg, TOPO_DTYPE_BF16, TRUE) - 16 * 61.46875e-6), <,
                     1e-12);
  g_assert_cmpfloat (fabs (sim_cost_op_s (cost, &g, TOPO_DTYPE_BF16, FALSE) - grouped), <, 1e-15);
  /* without grouped GEMM (SequentialMLP) one expert's fc1 is a GEMM of its own, and in the
   * forward a whole TE linear module call behind the sync: 115 us (TE_MODULE_FWD_HOST_S),
   * so 16 experts' fc1 cost the host 16 x 115 = 1840 us against the grouped GEMM's
   * 983.5 us (it was the 4 us launch, and the grouped GEMM always read slower); its
   * backward GEMMs keep the launch floor */
  g_assert_cmpfloat (np.moe_seq_expert_fwd_s, ==, 115e-6);
  ModelOp one_fwd = named_gemm_op ("expert_up", 256, 1536, 2048, 1);
  g_assert_cmpfloat (fabs (16 * sim_cost_op_s (cost, &one_fwd, TOPO_DTYPE_BF16, FALSE)
                           - 1840e-6), <, 1e-12);
  g_assert_cmpfloat (16 * sim_cost_op_s (cost, &one_fwd, TOPO_DTYPE_BF16, FALSE), >, grouped);
  ModelOp one_dg = dg;
  one_dg.b = 1;
  g_assert_cmpfloat (sim_cost_op_s (cost, &one_dg, TOPO_DTYPE_BF16, TRUE), <, 115e-6);
  ModelOp sync;
  memset (&sync, 0, sizeof sync);
  sync.name = "moe_host_sync";
  sync.kind = MODEL_OP_ELEMENTWISE;
  g_assert_cmpfloat (fabs (sim_cost_op_s (cost, &sync, TOPO_DTYPE_BF16, FALSE) - 5e-6), <, 1e-12);
  sim_cost_free (cost);

  o.moe_grouped_per_expert = FALSE;
  o.moe_host_sync_s = 0;
  cost = sim_cost_new (c, NULL, &o);
  double one = sim_cost_op_s (cost, &g, TOPO_DTYPE_BF16, FALSE);
  g_assert_cmpfloat (fabs (sim_cost_op_s (cost, &w, TOPO_DTYPE_BF16, TRUE) + 15e-6 - wgrad_pass),
                     <, 1e-15);
  g_assert_cmpfloat (fabs (sim_cost_op_s (cost, &dg, TOPO_DTYPE_BF16, TRUE) + 15e-6 - dgrad_pass),
                     <, 1e-15);
  g_test_message ("16-expert grouped GEMM: %.1f us as 16 host calls, %.1f us as one kernel",
                  grouped * 1e6, one * 1e6);
  g_assert_cmpfloat (one, <, 64e-6);
  g_assert_cmpfloat (one, >, 25.8e9 / 989.4e12);
  g_assert_cmpfloat (sim_cost_op_s (cost, &sync, TOPO_DTYPE_BF16, FALSE), ==, 0.0);
  sim_cost_free (cost);

  /* CUDA graphs: over attn, moe_router and moe_preprocess (Megatron-Bridge's MoE recipes)
   * the experts stay eager and so does the sync; the host issues the router's 14 eager ops
   * and the dispatcher preprocess's 9 before its copies to the host (the stack's
   * moe.host_ops router_fwd, preprocess_fwd_graphed) as one graph call, one eager op:
   * the layer's forward host time drops by (14 + 9 - 1) x 15 us = 330 us; moe_router alone
   * (13 x 15 us) 195 us; the backward's and the after-sync part do not move. Over the MoE
   * layer (scope moe) the graph
   * replays the 16 launches and the per-expert ops, and holds no sync: the grouped GEMM
   * costs its GPU time (the one-kernel figure above), FP8 forward and wgrad too, and the
   * sync 0 */
  SimCostOptions og, eager;
  sim_cost_options_init_stack (&og, c, mc);
  eager = og;
  Plan cg;
  plan_init_defaults (&cg);
  cg.cuda_graph_impl = PLAN_CG_IMPL_TRANSFORMER_ENGINE;
  cg.cuda_graph_scope = PLAN_CG_ATTN | PLAN_CG_MOE_ROUTER | PLAN_CG_MOE_PREPROCESS;
  sim_cost_options_apply_plan (&og, &cg);
  g_assert_cmpfloat (fabs (eager.moe_layer_host_s[0] - og.moe_layer_host_s[0] - 330e-6), <,
                     1e-12);
  g_assert_cmpfloat (og.moe_layer_host_s[1], ==, eager.moe_layer_host_s[1]);
  g_assert_cmpfloat (og.moe_layer_host_after_sync_s, ==, eager.moe_layer_host_after_sync_s);
  {
    SimCostOptions orouter = eager;
    Plan r = cg;
    r.cuda_graph_scope = PLAN_CG_MOE_ROUTER;
    sim_cost_options_apply_plan (&orouter, &r);
    g_assert_cmpfloat (fabs (eager.moe_layer_host_s[0] - orouter.moe_layer_host_s[0] - 195e-6),
                       <, 1e-12);
    /* the local implementation captures no partial MoE scope: nothing moves */
    SimCostOptions olocal = eager;
    r.cuda_graph_impl = PLAN_CG_IMPL_LOCAL;
    r.cuda_graph_scope = PLAN_CG_ATTN;
    sim_cost_options_apply_plan (&olocal, &r);
    g_assert_cmpfloat (olocal.moe_layer_host_s[0], ==, eager.moe_layer_host_s[0]);
  }
  og = eager;
  sim_cost_options_apply_plan (&og, &cg);
  g_assert_true (og.moe_grouped_per_expert);
  g_assert_cmpfloat (og.moe_expert_op_s, ==, 15e-6);
  g_assert_cmpfloat (og.moe_host_sync_s, ==, 5e-6);
  cg.cuda_graph_scope = PLAN_CG_MOE;
  sim_cost_options_apply_plan (&og, &cg);
  g_assert_false (og.moe_grouped_per_expert);
  g_assert_cmpfloat (og.moe_gemm_call_s, ==, 0.0);
  g_assert_cmpfloat (og.moe_expert_op_s, ==, 0.0);
  g_assert_cmpfloat (og.moe_host_sync_s, ==, 0.0);
  cost = sim_cost_new (c, NULL, &og);
  g_assert_cmpfloat (sim_cost_op_s (cost, &g, TOPO_DTYPE_BF16, FALSE), ==, one);
  g_assert_cmpfloat (sim_cost_op_s (cost, &g, TOPO_DTYPE_FP8, FALSE), <, 64e-6);
  g_assert_cmpfloat (sim_cost_op_s (cost, &sync, TOPO_DTYPE_BF16, FALSE), ==, 0.0);
  sim_cost_free (cost);
  plan_clear (&cg);

  /* a stack file without a "moe" object (torchtitan's preset states none) has neither */
  g_autoptr (FwStack) tt = fw_stack_lookup ("torchtitan", &error);
  g_assert_no_error (error);
  g_assert_false (tt->moe_dispatch_host_sync);
  g_assert_false (tt->moe_grouped_gemm_per_expert);
  g_assert_false (tt->moe_expert_eager_op);
}

/* The GPU side of a grouped GEMM issued per expert (TE GroupedLinear: one cuBLAS GEMM per
 * local expert, and with FP8 on the passes that quantize A, TE's split_quantize per
 * expert): a backward op of the megatron-core stack on h100-24k, which has the per-pass
 * host figures, so it costs its GPU time with no per-GEMM host floor. 16 experts of 256
 * tokens, Qwen3-30B-A3B's fc1 (m 256, n 2048, k 1536 for the data gradient; m 2048,
 * n 1536, k 256 for the weight gradient), against the same op as one kernel (a stack
 * without per-expert launches), at the stack's 1 us per kernel:
 *  - bf16: 15 GEMM kernels more, 15 us, data and weight gradient alike;
 *  - FP8 data gradient (it quantizes its output gradient, A): 15 GEMMs and per expert the
 *    recipe's quantize kernels, where the one-kernel op counts one cast as a dense GEMM
 *    does (none apart): delayed scaling 0 (one fused multi-tensor cast), so 15 x (1 + 0)
 *    = 15 us; MXFP8 1, 15 x 2 = 30 us; current scaling 3 (amax, scale, cast), 15 x 4 =
 *    60 us;
 *  - FP8 weight gradient: reads the transposed copies the other passes wrote (casts per
 *    operand), so it quantizes nothing: 15 us under every recipe.
 *
 * The GEMMs themselves: each expert's shape takes its own tile and wave quantization
 * (sim/cost-compute.c gemm_efficiency), which reproduces Transformer Engine's measurement
 * of general_grouped_gemm on H100 in BF16 (TE PR 2045, "Benchmark the performance of
 * general_grouped_gemm with TE 2.7 and CUDA 12.9", multi-stream cuBLAS column):
 *  - 16 experts of m 2048, n 768, k 2048, measured 553.9 TFLOP/s: 128 x 256 tiles give
 *    16 x 3 = 48 output tiles, split 2 ways along k (132 / 48 = 2 whole splits) into 96
 *    units on 132 SMs, 96 / 132 = 0.727 (the transposed tile gives the same; the half tile,
 *    16 x 6 = 96 tiles, 0.727 x 0.9); k 2048 against small_k_half 32, 2048 / 2080 = 0.985;
 *    0.785 (H100 BF16 MAMF / peak) x 0.727 x 0.985 = 0.562 of 989.4 = 556 TFLOP/s, so with
 *    the one launch, within 1% of the measured 553.9;
 *  - 8 experts of m 4096, measured 627.9 TFLOP/s: 32 x 3 = 96 tiles, no split (132 / 96 =
 *    1), the same 0.727: the same 553 TFLOP/s, 12% below the measurement, which TE's four
 *    compute streams reach by running two experts' last waves side by side (not modelled:
 *    the model stays at or below it). */
static void
test_grouped_launches (void)
{
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", &error);
  g_assert_no_error (error);
  ModelOp dg = named_gemm_op ("expert_up_dgrad", 256, 2048, 1536, 16);
  ModelOp w = dg;
  w.name = "expert_up_wgrad";
  w.m = 2048, w.n = 1536, w.k = 256;
  const FwScaling recipes[3] = { FW_SCALING_DELAYED, FW_SCALING_BLOCK, FW_SCALING_CURRENT };
  const double dgrad_fp8_extra[3] = { 15e-6, 30e-6, 60e-6 };
  for (int r = 0; r < 3; r++)
    {
      SimCostOptions o;
      sim_cost_options_init_stack (&o, c, mc);
      g_assert_true (o.moe_grouped_per_expert);
      g_assert_cmpfloat (o.moe_expert_host_s[1], >, 0.0);
      g_assert_cmpfloat (o.launch_overhead_s, ==, 1e-6);
      o.fp8_scaling = recipes[r];
      SimCostOptions one = o;
      one.moe_grouped_per_expert = FALSE;
      SimCost *per = sim_cost_new (c, NULL, &o), *single = sim_cost_new (c, NULL, &one);
      const TopoDtype dts[2] = { TOPO_DTYPE_BF16, TOPO_DTYPE_FP8 };
      for (int i = 0; i < 2; i++)
        {
          const double d = sim_cost_op_s (per, &dg, dts[i], TRUE)
                           - sim_cost_op_s (single, &dg, dts[i], TRUE);
          const double wd = sim_cost_op_s (per, &w, dts[i], TRUE)
                            - sim_cost_op_s (single, &w, dts[i], TRUE);
          g_assert_cmpfloat (fabs (d - (i == 0 ? 15e-6 : dgrad_fp8_extra[r])), <, 1e-12);
          g_assert_cmpfloat (fabs (wd - 15e-6), <, 1e-12);
        }
      sim_cost_free (per);
      sim_cost_free (single);
    }
  {
    SimCostOptions o;
    sim_cost_options_init_stack (&o, c, mc);
    o.moe_grouped_per_expert = FALSE;
    SimCost *cost = sim_cost_new (c, NULL, &o);
    ModelOp g = named_gemm_op ("expert_up", 2048, 768, 2048, 16);
    double t16 = sim_cost_op_s (cost, &g, TOPO_DTYPE_BF16, FALSE);
    g.m = 4096, g.b = 8;
    double t8 = sim_cost_op_s (cost, &g, TOPO_DTYPE_BF16, FALSE);
    g_test_message ("TE PR 2045 shapes: 16 x 2048: %.1f TFLOP/s, 8 x 4096: %.1f TFLOP/s, eff %.4f",
                    g.fwd_flops / t16 / 1e12, g.fwd_flops / t8 / 1e12,
                    sim_cost_gemm_efficiency (cost, 2048, 768, 2048, TOPO_DTYPE_BF16));
    g_assert_cmpfloat (fabs (g.fwd_flops / t16 / 553.9e12 - 1.0), <, 0.01);
    g_assert_cmpfloat (fabs (t8 - t16), <, 1e-12);
    g_assert_cmpfloat (g.fwd_flops / t8, <, 627.9e12);
    sim_cost_free (cost);
  }
}

/* The host's issue time of an MoE layer (frameworks/presets megatron-core.json
 * "moe.host_ops", sim/cost.c) on h100-24k, whose documented launch figure is 4 us, with
 * an eager op at 15 us and a TE module's forward call at 115 us (TE PR 1191), 95 us for a
 * GroupedLinear's without its one GEMM call (20 us):
 *  - forward: 58 eager ops outside the experts' loops = 0.87 ms, 2 TE linear modules =
 *    0.23 ms and 2 GroupedLinear calls = 0.19 ms, 1.29 ms in all; per local expert 2 GEMM
 *    calls at 61.46875 us (TE_GEMM_CALL_TRAIN_HOST_S) = 122.9375 us, with FP8 2 weight-workspace
 *    calls more (30 us) and
 *    2 quantize calls of the recipe's launches (test_quant_launches);
 *  - backward: 70 eager ops = 1.05 ms, per local expert 4 GEMM calls and 4 eager ops,
 *    4 x 61.46875 + 4 x 15 = 305.875 us, with FP8 2 quantize calls more.
 * Qwen3-30B-A3B (48 layers, 128 experts of 768, top-8) on 8 GPUs (ep 8: 16 local experts)
 * at 128 tokens, BF16: forward host 1.29 ms + 16 x 122.9375 us = 3.257 ms, backward 1.05 ms +
 * 16 x 305.875 us = 5.944 ms (in the forward both parts of the layer, before and after the
 * dispatcher's sync, are host-bound at 128 tokens, so their split does not matter here:
 * test_host_excess_split); the excess is that minus the GPU time of the pass's attention and MoE
 * blocks one layer runs (layer_runs_block), summed here as the engine sums them. The engine adds the excess to each experts
 * block, so with free communication a pipeline-free step grows by layers x micro-batches
 * x (forward + backward excess) over the same step without host costs. For llama3-8b
 * made MoE (8 experts of its MLP, top-2) at 4096 tokens the layer's GPU time (over 6 ms of GEMMs alone: 6 x 4096 x 0.2 GFLOP per
 * token-layer at under 1 PFLOP/s) exceeds the host's: no excess. A dense program has
 * none, nor a CUDA-graphed MoE layer. */
/* Whether one MoE layer without context parallelism and without selective recompute runs
 * block `blk` of its token mixer: the whole attention block; the program also holds the
 * attention's pre / core / post pieces (run only with cp > 1), the recomputed core (only
 * under selective recompute) and the selective-op block (never a MoE layer's). */
static gboolean
layer_runs_block (const ProgBlock *blk)
{
  const char *n = blk->name != NULL ? blk->name : "";
  return !(g_str_has_prefix (n, "attn_pre_") || g_str_has_prefix (n, "attn_core_")
           || g_str_has_prefix (n, "attn_post_") || g_str_equal (n, "sac_op_recompute"));
}

static double
pass_gpu_s (const SimCost *cost, const ProgProgram *prog, int backward)
{
  double g = 0;
  for (guint b = 0; b < prog->blocks->len; b++)
    {
      const ProgBlock *blk = prog_block (prog, b);
      gboolean pass = backward ? blk->phase == PROG_PHASE_BACKWARD
                                   || blk->phase == PROG_PHASE_RECOMPUTE
                               : blk->phase == PROG_PHASE_FORWARD;
      if (!pass || blk->kind == PROG_BLOCK_EMBED || blk->kind == PROG_BLOCK_HEAD
          || blk->kind == PROG_BLOCK_OPTIMIZER || blk->kind == PROG_BLOCK_MLP
          || !layer_runs_block (blk))
        continue;
      for (guint i = 0; i < blk->n_ops; i++)
        g += sim_cost_op_math_s (cost, &g_array_index (prog->ops, ModelOp, blk->first_op + i),
                                 prog->compute_dtype, prog->gemm_dtype,
                                 blk->phase == PROG_PHASE_BACKWARD);
    }
  return g;
}

/* The GPU time of a forward pass's attention and MoE blocks split at the router block's
 * "moe_host_sync" op: attention, router and the counts before, the rest after. */
static void
fwd_gpu_split (const SimCost *cost, const ProgProgram *prog, double *before, double *after)
{
  *before = *after = 0;
  for (guint b = 0; b < prog->blocks->len; b++)
    {
      const ProgBlock *blk = prog_block (prog, b);
      if (blk->phase != PROG_PHASE_FORWARD || blk->kind == PROG_BLOCK_EMBED
          || blk->kind == PROG_BLOCK_HEAD || blk->kind == PROG_BLOCK_OPTIMIZER
          || blk->kind == PROG_BLOCK_MLP || !layer_runs_block (blk))
        continue;
      gboolean late = blk->kind == PROG_BLOCK_MOE_EXPERTS || blk->kind == PROG_BLOCK_MOE_COMBINE
                      || blk->kind == PROG_BLOCK_MOE_SHARED;
      for (guint i = 0; i < blk->n_ops; i++)
        {
          const ModelOp *op = &g_array_index (prog->ops, ModelOp, blk->first_op + i);
          double t = sim_cost_op_math_s (cost, op, prog->compute_dtype, prog->gemm_dtype, FALSE);
          *(late ? after : before) += t;
          if (op->name != NULL && g_str_equal (op->name, "moe_host_sync"))
            late = TRUE;
        }
    }
}

/* The forward's two parts (sim/cost-compute.c sim_cost_moe_host_excess_s): Qwen3-30B-A3B
 * made top-2 at 8,192 tokens with all 128 experts local (ep 1, 8 GPUs of DP) on h100-24k,
 * FP8 GEMMs:
 *  - after the sync the host issues the 17 eager ops of permute .. combine (megatron-core
 *    moe.host_ops layer_fwd_after_sync) and the two GroupedLinear calls at 95 us, and per
 *    local expert 2 GEMM calls at 61.46875 us plus, with FP8 current scaling, 2 weight-
 *    workspace calls at 15 us and 2 quantize calls of 3 launches at 4 us: A = 17 x 15 +
 *    2 x 95 + 128 x (122.9375 + 30 + 24) us = 23.093 ms, against a GPU time a of 128
 *    experts of 128 tokens (9.7 GFLOP each at most, microseconds) plus the floor of the
 *    grouped GEMMs' calls behind the sync (2 x 128 x (61.46875 + 15) us = 19.576 ms) and the
 *    permutes: a < A, host-bound;
 *  - before the next sync the host issues 41 eager ops and the 2 TE linear modules at
 *    115 us, B = 0.845 ms, while the GPU runs the
 *    attention block of 8,192 tokens (over 0.5 TFLOP of causal attention alone): b > B,
 *    GPU-bound.
 * The GPU cannot start b before it is issued, at A, so the forward takes A + b and the
 * excess over a + b is A - a; max(host, GPU) over the whole layer would give only
 * A + B - a - b, which hides the host-bound experts under the attention. */
static void
test_host_excess_split (void)
{
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  SimOptions opts;
  mcore_free_comm_options (&opts, c);
  g_assert_cmpfloat (fabs (opts.cost.moe_layer_host_after_sync_s - (17 * 15e-6 + 2 * 95e-6)), <,
                     1e-15);
  g_assert_cmpint (opts.cost.fp8_scaling, ==, FW_SCALING_DELAYED);
  opts.cost.fp8_scaling = FW_SCALING_CURRENT;
  g_autoptr (ModelSpec) qw = model_spec_lookup ("qwen3-30b-a3b", &error);
  g_assert_no_error (error);
  Plan p;
  qwen_host_plan (&p);
  g_assert_true (plan_resolve (&p, qw, c, &error));
  g_autoptr (SimPrediction) pr = sim_predict (qw, &p, c, &opts, &error);
  g_assert_no_error (error);
  const ProgProgram *prog = pr->program;
  g_assert_cmpint (prog->moe.local_experts, ==, 128);
  SimCost *cost = sim_cost_new (c, NULL, &opts.cost);
  double b, a;
  fwd_gpu_split (cost, prog, &b, &a);
  const double A = 17 * 15e-6 + 2 * 95e-6 + 128 * (122.9375e-6 + 30e-6 + 24e-6),
               B = 41 * 15e-6 + 2 * 115e-6;
  double ef = sim_cost_moe_host_excess_s (cost, prog, PROG_PHASE_FORWARD);
  g_test_message ("8K tokens, 128 local experts: host %.3f + %.3f ms, GPU %.3f + %.3f ms, "
                  "excess %.3f ms", A * 1e3, B * 1e3, a * 1e3, b * 1e3, ef * 1e3);
  g_assert_cmpfloat (A, >, a);
  g_assert_cmpfloat (b, >, B);
  g_assert_cmpfloat (fabs (ef - (A - a)), <, 1e-12);
  g_assert_cmpfloat (ef, >, A + B - a - b + 1e-4);
  sim_cost_free (cost);
  plan_clear (&p);
}

/* Token drop and pad (--moe-expert-capacity-factor 1 --moe-pad-expert-input-to-capacity):
 * Megatron-Core's alltoall dispatcher knows every local expert's tokens (its capacity) on
 * the host, so it takes no device-to-host sync (token_dispatcher.py preprocess returns
 * before the dropless branch that sets cuda_sync_point "before_ep_alltoall"), and the host
 * runs ahead of the GPU in the forward as in the backward. The plan of
 * test_host_excess_split (Qwen3-30B-A3B top-2, 8,192 tokens, all 128 experts local, FP8
 * current scaling; balanced, so padding adds no tokens):
 *  - synced (dropless): the forward takes A + b (test_host_excess_split), A = 23.093 ms
 *    the host's time after the sync, b the GPU's attention part;
 *  - padded: the "moe_host_sync" op costs nothing, the grouped GEMMs lose their per-GEMM
 *    floor of 128 x (61.46875 + 15) us behind the sync, and the pass takes max(host, GPU)
 *    = the host's whole forward A + B = 1.29 ms + 128 x (122.9375 + 30 + 24) us =
 *    23.938 ms, above the GPU's. So padding saves b - B per layer forward (B = 0.845 ms,
 *    the host's part before the sync, b > B) and the 5 us sync, and the engine's step
 *    (free communication, PP 1, one micro-batch) shrinks by 48 layers x that. The
 *    backward is the same either way. */
static void
test_pad_no_sync (void)
{
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  SimOptions opts;
  mcore_free_comm_options (&opts, c);
  opts.cost.fp8_scaling = FW_SCALING_CURRENT;
  g_autoptr (ModelSpec) qw = model_spec_lookup ("qwen3-30b-a3b", &error);
  g_assert_no_error (error);
  Plan p, q;
  qwen_host_plan (&p);
  p.moe_capacity_factor = 1.0;
  plan_copy (&q, &p);
  q.moe_pad_to_capacity = TRUE;
  g_assert_true (plan_resolve (&p, qw, c, &error));
  g_assert_true (plan_resolve (&q, qw, c, &error));
  g_autoptr (SimPrediction) synced = sim_predict (qw, &p, c, &opts, &error);
  g_assert_no_error (error);
  g_autoptr (SimPrediction) padded = sim_predict (qw, &q, c, &opts, &error);
  g_assert_no_error (error);
  const ProgProgram *prog = synced->program;
  g_assert_cmpint (prog->moe.local_experts, ==, 128);

  SimCostOptions os = opts.cost, op = opts.cost;
  sim_cost_options_apply_plan (&os, &p);
  sim_cost_options_apply_plan (&op, &q);
  g_assert_false (os.moe_dispatch_no_sync);
  g_assert_true (op.moe_dispatch_no_sync);
  SimCost *cs = sim_cost_new (c, NULL, &os), *cp = sim_cost_new (c, NULL, &op);
  /* the sync op and the up projection's per-GEMM floor */
  for (guint i = 0; i < prog->ops->len; i++)
    {
      const ModelOp *o = &g_array_index (prog->ops, ModelOp, i);
      if (o->name != NULL && g_str_equal (o->name, "moe_host_sync"))
        {
          g_assert_cmpfloat (sim_cost_op_math_s (cs, o, prog->compute_dtype, prog->gemm_dtype,
                                                 FALSE), ==, 5e-6);
          g_assert_cmpfloat (sim_cost_op_math_s (cp, o, prog->compute_dtype, prog->gemm_dtype,
                                                 FALSE), ==, 0.0);
        }
      if (o->name != NULL && g_str_equal (o->name, "expert_up"))
        {
          const double floor = 128 * (61.46875e-6 + 15e-6);
          g_assert_cmpfloat (fabs (sim_cost_op_math_s (cs, o, prog->compute_dtype,
                                                       prog->gemm_dtype, FALSE) - floor), <,
                             1e-12);
          g_assert_cmpfloat (sim_cost_op_math_s (cp, o, prog->compute_dtype, prog->gemm_dtype,
                                                 FALSE), <, floor / 2);
        }
    }
  const double A = 17 * 15e-6 + 2 * 95e-6 + 128 * (122.9375e-6 + 30e-6 + 24e-6),
               B = 41 * 15e-6 + 2 * 115e-6;
  double bs, as, bp, ap;
  fwd_gpu_split (cs, prog, &bs, &as);
  fwd_gpu_split (cp, prog, &bp, &ap);
  const double es = sim_cost_moe_host_excess_s (cs, prog, PROG_PHASE_FORWARD),
               ep = sim_cost_moe_host_excess_s (cp, prog, PROG_PHASE_FORWARD);
  g_test_message ("synced: GPU %.3f + %.3f ms, excess %.3f ms; padded: GPU %.3f + %.3f ms, "
                  "excess %.3f ms", bs * 1e3, as * 1e3, es * 1e3, bp * 1e3, ap * 1e3, ep * 1e3);
  g_assert_cmpfloat (fabs (bs - bp - 5e-6), <, 1e-12);   /* the sync op */
  g_assert_cmpfloat (bs, >, B);
  g_assert_cmpfloat (fabs ((as + bs + es) - (A + bs)), <, 1e-12);
  g_assert_cmpfloat (ap + bp, <, A + B);
  g_assert_cmpfloat (fabs ((ap + bp + ep) - (A + B)), <, 1e-12);
  g_assert_cmpfloat (fabs (sim_cost_moe_host_excess_s (cs, prog, PROG_PHASE_BACKWARD)
                           - sim_cost_moe_host_excess_s (cp, prog, PROG_PHASE_BACKWARD)), <,
                     1e-15);
  /* the engine: 48 layers x 1 micro-batch x (bs - B) shorter */
  const double saved = synced->result->step_time_s - padded->result->step_time_s;
  g_test_message ("step %.4f s synced, %.4f s padded", synced->result->step_time_s,
                  padded->result->step_time_s);
  g_assert_cmpfloat (fabs (saved - 48 * (bs - B)), <, 1e-9 + 1e-6 * saved);
  sim_cost_free (cs);
  sim_cost_free (cp);
  plan_clear (&q);
  plan_clear (&p);
}

/* The GPU time of the named blocks of `prog` in the pass `backward` (0 or 1). */
static double
named_blocks_s (const SimCost *cost, const ProgProgram *prog, const char *const *names)
{
  double g = 0;
  for (guint b = 0; b < prog->blocks->len; b++)
    {
      const ProgBlock *blk = prog_block (prog, b);
      for (int j = 0; names[j] != NULL; j++)
        if (blk->name != NULL && g_str_equal (blk->name, names[j]))
          for (guint i = 0; i < blk->n_ops; i++)
            g += sim_cost_op_math_s (cost, &g_array_index (prog->ops, ModelOp, blk->first_op + i),
                                     prog->compute_dtype, prog->gemm_dtype,
                                     blk->phase == PROG_PHASE_BACKWARD);
    }
  return g;
}

/* One layer runs one token mixer (plan/program.c attn_part, mixer_block), and the host's
 * excess is measured against that one. The backward of Qwen3-30B-A3B on 8 GPUs (ep 8, 16
 * local experts) at 128 tokens, BF16, megatron-core stack: host 1.05 ms + 16 x 305.875 us =
 * 5.944 ms (test_host_excess); GPU: attn_bwd, moe_route_bwd, moe_experts_bwd and
 * moe_combine_bwd. The program also holds attn_pre_bwd, attn_core_bwd and attn_post_bwd
 * (the same attention in pieces, run only with context parallelism) and attn_core_recompute
 * (run only under selective recompute); counted too, they took their time (asserted
 * non-zero) off the excess. Qwen3-Next-80B-A3B (48 layers: 36 Gated DeltaNet, 12 full
 * attention, every one MoE; 512 experts, top-10, one shared expert) on 8 GPUs (ep 8, 64
 * local experts) at 128 tokens: host 1.05 ms + 64 x 305.875 us = 20.626 ms, far above the
 * GPU; a GDN layer's backward runs gdn_bwd, a full layer's attn_bwd, so the excess is
 * host - (36/48 gdn_bwd + 12/48 attn_bwd + route + experts + combine + shared). */
static void
test_host_excess_one_mixer (void)
{
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  SimOptions opts;
  mcore_free_comm_options (&opts, c);
  static const char *const moe_b[] = { "moe_route_bwd", "moe_experts_bwd", "moe_combine_bwd",
                                       "moe_shared_bwd", NULL };
  static const char *const attn_b[] = { "attn_bwd", NULL };
  static const char *const gdn_b[] = { "gdn_bwd", NULL };
  static const char *const pieces[] = { "attn_pre_bwd", "attn_core_bwd", "attn_post_bwd",
                                        "attn_core_recompute", NULL };

  g_autoptr (ModelSpec) qw = model_spec_lookup ("qwen3-30b-a3b", &error);
  g_assert_no_error (error);
  Plan p;
  qwen_ep8_plan (&p, 8);
  g_assert_true (plan_resolve (&p, qw, c, &error));
  g_autoptr (SimPrediction) pr = sim_predict (qw, &p, c, &opts, &error);
  g_assert_no_error (error);
  SimCost *cost = sim_cost_new (c, NULL, &opts.cost);
  const double host_b = 1.05e-3 + 16 * 305.875e-6;
  const double gpu = named_blocks_s (cost, pr->program, attn_b)
                     + named_blocks_s (cost, pr->program, moe_b);
  const double unused = named_blocks_s (cost, pr->program, pieces);
  const double eb = sim_cost_moe_host_excess_s (cost, pr->program, PROG_PHASE_BACKWARD);
  g_test_message ("qwen3-30b: host %.3f ms, one layer's GPU %.3f ms, pieces not run %.3f ms, "
                  "excess %.3f ms", host_b * 1e3, gpu * 1e3, unused * 1e3, eb * 1e3);
  g_assert_cmpfloat (unused, >, 1e-6);
  g_assert_cmpfloat (gpu, <, host_b);
  g_assert_cmpfloat (fabs (eb - (host_b - gpu)), <, 1e-12);
  sim_cost_free (cost);
  plan_clear (&p);

  g_autoptr (ModelSpec) nx = model_spec_lookup ("qwen3-next-80b-a3b", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (model_spec_n_linear_layers (nx), ==, 36);
  g_assert_cmpuint (model_spec_n_moe_layers (nx), ==, 48);
  Plan q;
  qwen_ep8_plan (&q, 8);
  q.num_experts = 512;
  q.moe_topk = 10;
  g_assert_true (plan_resolve (&q, nx, c, &error));
  g_autoptr (SimPrediction) pn = sim_predict (nx, &q, c, &opts, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pn->program->moe.local_experts, ==, 64);
  cost = sim_cost_new (c, NULL, &opts.cost);
  const double host_n = 1.05e-3 + 64 * 305.875e-6;
  const double gdn = named_blocks_s (cost, pn->program, gdn_b);
  const double attn = named_blocks_s (cost, pn->program, attn_b);
  const double moe = named_blocks_s (cost, pn->program, moe_b);
  const double en = sim_cost_moe_host_excess_s (cost, pn->program, PROG_PHASE_BACKWARD);
  g_test_message ("qwen3-next: host %.3f ms, gdn %.3f / attn %.3f / moe %.3f ms, excess %.3f ms",
                  host_n * 1e3, gdn * 1e3, attn * 1e3, moe * 1e3, en * 1e3);
  g_assert_cmpfloat (gdn, >, 0.0);
  g_assert_cmpfloat (attn, >, 0.0);
  g_assert_cmpfloat (0.75 * gdn + 0.25 * attn + moe, <, host_n);
  g_assert_cmpfloat (fabs (en - (host_n - (0.75 * gdn + 0.25 * attn + moe))), <, 1e-12);
  sim_cost_free (cost);
  plan_clear (&q);
}

/* The quantize launches per local expert follow the recipe (TE cast.cpp
 * multi_tensor_quantize_impl, quantizer.cpp): delayed scaling casts every expert in one
 * fused launch per call (0 per expert), current scaling launches amax, scale and cast (3),
 * MXFP8 and the block-wise recipe one. Qwen3-30B-A3B at 128 tokens on 8 GPUs (ep 8: 16
 * local experts), FP8 GEMMs: both passes are host-bound (test_host_excess), so a pass's
 * excess moves by the host time itself: 16 experts x 2 quantize calls x (3 - 1) launches x
 * 4 us = 256 us from MXFP8 to current scaling, 16 x 2 x 1 x 4 us = 128 us from delayed to
 * MXFP8, in each pass. The recipes' GPU time is held equal: the stack's cast figure is
 * left at its own recipe's and current scaling's norm-fed casts keep their amax read
 * (fp8_norm_amax_fused off; test-cost.c test_fp8_norm_amax has that saving). */
static void
test_quant_launches (void)
{
  g_assert_cmpfloat (sim_cost_moe_quant_launches (FW_SCALING_DELAYED, FALSE), ==, 0.0);
  g_assert_cmpfloat (sim_cost_moe_quant_launches (FW_SCALING_CURRENT, FALSE), ==, 3.0);
  g_assert_cmpfloat (sim_cost_moe_quant_launches (FW_SCALING_BLOCK, FALSE), ==, 1.0);
  g_assert_cmpfloat (sim_cost_moe_quant_launches (FW_SCALING_BLOCKWISE, FALSE), ==, 1.0);
  g_assert_cmpfloat (sim_cost_moe_quant_launches (FW_SCALING_DELAYED, TRUE), ==, 1.0);

  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  SimOptions opts;
  mcore_free_comm_options (&opts, c);
  g_autoptr (ModelSpec) qw = model_spec_lookup ("qwen3-30b-a3b", &error);
  g_assert_no_error (error);
  Plan p;
  qwen_ep8_plan (&p, 8);
  p.compute_dtype = PLAN_PREC_FP8;
  g_assert_true (plan_resolve (&p, qw, c, &error));
  g_autoptr (SimPrediction) pr = sim_predict (qw, &p, c, &opts, &error);
  g_assert_no_error (error);
  const ProgProgram *prog = pr->program;
  g_assert_cmpint (prog->moe.local_experts, ==, 16);
  g_assert_cmpint (prog->gemm_dtype, ==, TOPO_DTYPE_FP8);
  const FwScaling recipes[3] = { FW_SCALING_DELAYED, FW_SCALING_BLOCK, FW_SCALING_CURRENT };
  double ex[3][2];
  for (int r = 0; r < 3; r++)
    {
      SimCostOptions o = opts.cost;
      o.fp8_scaling = recipes[r];
      o.fp8_norm_amax_fused = FALSE;
      SimCost *cost = sim_cost_new (c, NULL, &o);
      ex[r][0] = sim_cost_moe_host_excess_s (cost, prog, PROG_PHASE_FORWARD);
      ex[r][1] = sim_cost_moe_host_excess_s (cost, prog, PROG_PHASE_BACKWARD);
      sim_cost_free (cost);
    }
  for (int ph = 0; ph < 2; ph++)
    {
      g_assert_cmpfloat (ex[0][ph], >, 0.0);
      g_assert_cmpfloat (fabs (ex[1][ph] - ex[0][ph] - 128e-6), <, 1e-12);
      g_assert_cmpfloat (fabs (ex[2][ph] - ex[1][ph] - 256e-6), <, 1e-12);
    }
  plan_clear (&p);
}

static void
test_host_excess (void)
{
  g_autoptr (ModelSpec) m = llama8b ();
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  SimOptions opts;
  mcore_free_comm_options (&opts, c);
  g_assert_cmpfloat (fabs (opts.cost.moe_layer_host_s[0] - 1.29e-3), <, 1e-12);
  g_assert_cmpfloat (fabs (opts.cost.moe_layer_host_s[1] - 1.05e-3), <, 1e-12);
  g_assert_cmpfloat (fabs (opts.cost.moe_expert_host_s[0] - 122.9375e-6), <, 1e-12);
  g_assert_cmpfloat (fabs (opts.cost.moe_expert_host_s[1] - 305.875e-6), <, 1e-12);
  g_assert_cmpfloat (fabs (opts.cost.moe_expert_host_fp8_s[0] - 30e-6), <, 1e-12);
  g_assert_cmpfloat (opts.cost.moe_expert_host_fp8_s[1], ==, 0.0);
  g_assert_cmpfloat (opts.cost.moe_expert_fp8_quants, ==, 2.0);

  g_autoptr (ModelSpec) qw = model_spec_lookup ("qwen3-30b-a3b", &error);
  g_assert_no_error (error);
  Plan p;
  qwen_ep8_plan (&p, 8 * 4);   /* 4 micro-batches of 1 */
  g_assert_true (plan_resolve (&p, qw, c, &error));
  g_autoptr (SimPrediction) on = sim_predict (qw, &p, c, &opts, &error);
  g_assert_no_error (error);
  const ProgProgram *prog = on->program;
  g_assert_cmpint (prog->moe.local_experts, ==, 16);
  SimCost *cost = sim_cost_new (c, NULL, &opts.cost);
  double host_f = 1.29e-3 + 16 * 122.9375e-6, host_b = 1.05e-3 + 16 * 305.875e-6;
  double gpu_f = pass_gpu_s (cost, prog, 0), gpu_b = pass_gpu_s (cost, prog, 1);
  double ef = sim_cost_moe_host_excess_s (cost, prog, PROG_PHASE_FORWARD);
  double eb = sim_cost_moe_host_excess_s (cost, prog, PROG_PHASE_BACKWARD);
  g_test_message ("128 tokens: host %.3f / %.3f ms, GPU %.3f / %.3f ms, excess %.3f / %.3f ms",
                  host_f * 1e3, host_b * 1e3, gpu_f * 1e3, gpu_b * 1e3, ef * 1e3, eb * 1e3);
  g_assert_cmpfloat (gpu_f, <, host_f);
  g_assert_cmpfloat (gpu_b, <, host_b);
  g_assert_cmpfloat (fabs (ef - (host_f - gpu_f)), <, 1e-12);
  g_assert_cmpfloat (fabs (eb - (host_b - gpu_b)), <, 1e-12);
  g_assert_cmpfloat (sim_cost_moe_host_excess_s (cost, prog, PROG_PHASE_OPTIMIZER), ==, 0.0);
  sim_cost_free (cost);

  /* the engine: 48 layers x 4 micro-batches x (ef + eb) more than without host costs */
  SimOptions none = opts;
  for (int i = 0; i < 2; i++)
    none.cost.moe_layer_host_s[i] = none.cost.moe_expert_host_s[i]
      = none.cost.moe_expert_host_fp8_s[i] = 0.0;
  g_autoptr (SimPrediction) off = sim_predict (qw, &p, c, &none, &error);
  g_assert_no_error (error);
  double added = on->result->step_time_s - off->result->step_time_s;
  g_assert_cmpfloat (fabs (added - 48 * 4 * (ef + eb)), <, 1e-9 + 1e-6 * added);

  /* GPU-bound: 8 experts, 4096 tokens */
  Plan q;
  moe_plan (&q, 8, 1, 8, 1);
  g_assert_true (plan_resolve (&q, m, c, &error));
  g_autoptr (SimPrediction) big = sim_predict (m, &q, c, &opts, &error);
  g_assert_no_error (error);
  cost = sim_cost_new (c, NULL, &opts.cost);
  g_assert_cmpfloat (pass_gpu_s (cost, big->program, 0), >, 6e-3);
  g_assert_cmpfloat (sim_cost_moe_host_excess_s (cost, big->program, PROG_PHASE_FORWARD), ==, 0.0);
  g_assert_cmpfloat (sim_cost_moe_host_excess_s (cost, big->program, PROG_PHASE_BACKWARD), ==,
                     0.0);
  sim_cost_free (cost);

  /* dense: no MoE layer, no excess */
  Plan d;
  plan_init_defaults (&d);
  d.world_size = 8;
  d.seq_length = 128;
  d.global_batch = 8;
  g_assert_true (plan_resolve (&d, m, c, &error));
  g_autoptr (SimPrediction) dense = sim_predict (m, &d, c, &opts, &error);
  g_assert_no_error (error);
  cost = sim_cost_new (c, NULL, &opts.cost);
  g_assert_cmpfloat (sim_cost_moe_host_excess_s (cost, dense->program, PROG_PHASE_FORWARD), ==,
                     0.0);
  sim_cost_free (cost);

  /* a CUDA graph over the MoE layer replays its launches: no host time */
  SimCostOptions og = opts.cost;
  Plan cg;
  plan_init_defaults (&cg);
  cg.cuda_graph_impl = PLAN_CG_IMPL_TRANSFORMER_ENGINE;
  cg.cuda_graph_scope = PLAN_CG_MOE;
  sim_cost_options_apply_plan (&og, &cg);
  cost = sim_cost_new (c, NULL, &og);
  g_assert_cmpfloat (sim_cost_moe_host_excess_s (cost, prog, PROG_PHASE_BACKWARD), ==, 0.0);
  sim_cost_free (cost);
  plan_clear (&cg);
  plan_clear (&d);
  plan_clear (&q);
  plan_clear (&p);
}

/* --overlap-moe-expert-parallel-comm (Megatron-Core's combined 1F1B): the plan of
 * test_predict_ep (llama3-8b, 8 experts top-2, ep 8 inside one h100-24k server, PP 1) at
 * m = 4 micro-batches per rank. Megatron's combined_1f1b_schedule_for_no_pipelining runs
 * F0 alone, then F1+B0, F2+B1, F3+B2 as combined pairs, then B3 alone. A layer's
 * all-to-all (4096 tokens x top-2 x 4096 x 2 B = 64 MiB, 7/8 of it over NVLink at 370
 * GB/s: 0.15 ms, 0.2 ms at the busiest rank's 1.3 pace) is far shorter than the other
 * unit's attention or experts that it runs beside (a layer's attention forward alone,
 * 4096 x 2 x 4096 x 6144 + the causal core, is over 0.5 ms), so inside a pair nothing of
 * ep is exposed, and outside it all of it is: each unit exposes what it exposes alone, a
 * forward e_F and a backward e_B, the same for every micro-batch. Without the overlap the
 * step exposes m (e_F + e_B); with it F0's and B3's, e_F + e_B = 1/m of that. So (a) ep
 * busy is unchanged; (b) ep exposed with the overlap = 1/4 of without (5%: the DP
 * reduction and the units' edges shift); (c) the step shortens by the other 3/4 (5%; the
 * alltoall dispatcher holds no SMs: no slowdown beside it); (d) the program: in the pair
 * F1+B0 the EP stream runs, for layer pair i (F's layer i with B's layer 31 - i), B's
 * combine backward, F's dispatch, B's dispatch backward, F's combine (Megatron's issue
 * order), and every forward experts task waits for an ep task (its own dispatch). */
static void
test_a2a_overlap (void)
{
  g_autoptr (ModelSpec) m = llama8b ();
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  Plan p;
  overlap_plan (&p);
  g_assert_true (plan_resolve (&p, m, c, &error));
  g_assert_cmpint (p.grad_accum, ==, 4);
  SimOptions opts;
  sim_options_init (&opts, c);
  g_autoptr (SimPrediction) off = sim_predict (m, &p, c, &opts, &error);
  g_assert_no_error (error);
  p.moe_a2a_overlap = TRUE;
  g_autoptr (SimPrediction) on = sim_predict (m, &p, c, &opts, &error);
  g_assert_no_error (error);
  const SimResult *a = off->result, *b = on->result;
  g_test_message ("ep busy %.4f / %.4f s, exposed %.4f / %.4f s, step %.4f / %.4f s",
                  a->comm_s[PROG_COMM_EP], b->comm_s[PROG_COMM_EP],
                  a->exposed_comm_s[PROG_COMM_EP], b->exposed_comm_s[PROG_COMM_EP],
                  a->step_time_s, b->step_time_s);
  double e_off = a->exposed_comm_s[PROG_COMM_EP];
  g_assert_cmpfloat (e_off, >, 0.9 * a->comm_s[PROG_COMM_EP]);
  g_assert_cmpfloat (fabs (b->comm_s[PROG_COMM_EP] - a->comm_s[PROG_COMM_EP]), <,
                     1e-9 + 1e-6 * a->comm_s[PROG_COMM_EP]);
  g_assert_cmpfloat (fabs (b->exposed_comm_s[PROG_COMM_EP] - e_off / 4), <, 0.05 * e_off / 4);
  double saved = a->step_time_s - b->step_time_s;
  g_assert_cmpfloat (fabs (saved - 0.75 * e_off), <, 0.05 * 0.75 * e_off);

  /* the program: slots F0 | F1 B0 | F2 B1 | F3 B2 | B3 */
  const ProgProgram *prog = on->program;
  const ProgStage *st = &prog->stages[0];
  g_assert_cmpuint (st->n_slots, ==, 8);
  static const ProgPhase first_phase[8] = {
    PROG_PHASE_FORWARD, PROG_PHASE_FORWARD, PROG_PHASE_BACKWARD, PROG_PHASE_FORWARD,
    PROG_PHASE_BACKWARD, PROG_PHASE_FORWARD, PROG_PHASE_BACKWARD, PROG_PHASE_BACKWARD };
  static const int first_mb[8] = { 0, 1, 0, 2, 1, 3, 2, 3 };
  for (guint j = 0; j < 8; j++)
    {
      const ProgTask *t = prog_task (prog, st->slot_first[j]);
      g_assert_cmpint (t->phase, ==, first_phase[j]);
      g_assert_cmpint (t->mb, ==, first_mb[j]);
    }
  /* the EP stream of the pair F1 + B0 (slots 1 and 2) */
  int n_ep = 0;
  for (guint32 i = st->slot_first[1]; i < st->slot_first[3]; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      if (t->stream != PROG_STREAM_EP)
        continue;
      int pair = n_ep / 4, k = n_ep % 4;
      gboolean bwd = k == 0 || k == 2;
      g_assert_cmpint (t->phase, ==, bwd ? PROG_PHASE_BACKWARD : PROG_PHASE_FORWARD);
      g_assert_cmpint (t->mb, ==, bwd ? 0 : 1);
      g_assert_cmpint (t->layer, ==, bwd ? 31 - pair : pair);
      n_ep++;
    }
  g_assert_cmpint (n_ep, ==, 4 * 32);
  for (guint i = 0; i < prog->tasks->len; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      if (t->kind != PROG_TASK_COMPUTE || t->phase != PROG_PHASE_FORWARD
          || prog_block (prog, t->block)->kind != PROG_BLOCK_MOE_EXPERTS)
        continue;
      gboolean ep_dep = FALSE;
      const guint32 *deps = prog_task_deps (prog, t);
      for (guint j = 0; j < t->n_deps; j++)
        {
          g_assert_cmpuint (deps[j], <, i);   /* the merged order keeps deps backward */
          ep_dep |= prog_task (prog, deps[j])->stream == PROG_STREAM_EP;
        }
      g_assert_true (ep_dep);
    }
  plan_clear (&p);
}

/* The flex dispatcher (DeepEP) with the overlap: DeepEP's normal kernels hold
 * ep_comm_sms = 20 of an H100's 132 SMs while they run (Megatron-Core
 * --moe-deepep-num-sms, default 20), so a compute kernel that starts beside one runs on
 * 112: 132 / 112 = 1 + 20 / 112 = 1.17857 times as long. (a) The cost model says 20/112;
 * (b) without the overlap nothing computes beside an all-to-all on this plan (PP 1, no
 * shared expert: every compute task waits for the all-to-all before it), so the step is
 * the same to the picosecond with 20 SMs or 0; (c) with it, the pairs' compute runs
 * beside the all-to-alls: the step is longer with 20 SMs than with 0, by at most
 * 20/112 of the compute (the slowdown of every compute kernel at once). */
static void
test_a2a_overlap_deepep_sms (void)
{
  g_autoptr (ModelSpec) m = llama8b ();
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  Plan p;
  overlap_plan (&p);
  p.moe_dispatcher = PLAN_MOE_FLEX;
  g_assert_true (plan_resolve (&p, m, c, &error));
  SimOptions o20, o0;
  sim_options_init (&o20, c);
  sim_options_init (&o0, c);
  g_assert_cmpfloat (o20.cost.ep_comm_sms, ==, 20);
  o0.cost.ep_comm_sms = 0;
  SimCost *cost = sim_cost_new (c, NULL, &o20.cost);
  g_assert_cmpfloat (fabs (sim_cost_ep_compute_slowdown (cost) - 20.0 / 112.0), <, 1e-15);
  sim_cost_free (cost);
  g_autoptr (SimPrediction) off20 = sim_predict (m, &p, c, &o20, &error);
  g_autoptr (SimPrediction) off0 = sim_predict (m, &p, c, &o0, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (off20->result->step_time_s, ==, off0->result->step_time_s);
  p.moe_a2a_overlap = TRUE;
  g_autoptr (SimPrediction) on20 = sim_predict (m, &p, c, &o20, &error);
  g_autoptr (SimPrediction) on0 = sim_predict (m, &p, c, &o0, &error);
  g_assert_no_error (error);
  double d = on20->result->step_time_s - on0->result->step_time_s;
  g_test_message ("step %.5f s with 20 SMs held, %.5f s with none; compute %.5f s",
                  on20->result->step_time_s, on0->result->step_time_s,
                  on0->result->compute_s);
  g_assert_cmpfloat (d, >, 0);
  g_assert_cmpfloat (d, <=, 20.0 / 112.0 * on0->result->compute_s);
  plan_clear (&p);
}

/* Combined 1F1B holds one more micro-batch: row 722's plan (pp 8, vpp 4, N = 8, m = 128)
 * warms stage 0 up with (8 - 0 - 1) x 2 + (4 - 1) x 8 = 38 chunk-forwards, then one more
 * forward precedes each backward: 39 in flight; Megatron-Core's overlap adds one more
 * warm-up forward (get_pp_rank_microbatches): 40. Stage 7: 0 + 24 + 1 = 25, then 26. PP 1
 * (1F1B, m = 4): 1 without, 2 with (F1 runs before B0). A 1F1B plan with PP 2 is not
 * combined (Megatron needs VPP there): 2 - 0 = 2 either way. */
static void
test_a2a_overlap_inflight (void)
{
  Plan p;
  plan_init_defaults (&p);
  p.pp = 8;
  p.vpp = 4;
  p.schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  p.grad_accum = 128;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 39);
  g_assert_cmpint (plan_memory_inflight (&p, 7), ==, 25);
  p.moe_a2a_overlap = TRUE;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 40);
  g_assert_cmpint (plan_memory_inflight (&p, 7), ==, 26);
  p.pp = 1;
  p.vpp = 1;
  p.schedule = PLAN_SCHED_1F1B;
  p.grad_accum = 4;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 2);
  p.moe_a2a_overlap = FALSE;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 1);
  p.pp = 2;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 2);
  p.moe_a2a_overlap = TRUE;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 2);
  plan_clear (&p);
}

/* 32 GPUs, tp 1, ep 8, pp 4, vpp 2 (dp 8): `m` micro-batches of one sequence */
static void
a2a_interleaved_plan (Plan *p, int m, gboolean overlap)
{
  moe_plan (p, 32, 1, 8, 1);
  p->pp = 4;
  p->vpp = 2;
  p->schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  p->schedule_set = TRUE;
  p->global_batch = 8 * m;
  p->moe_a2a_overlap = overlap;
}

/* The steady-state path stays exact on combined 1F1B pairs: an interleaved plan (pp 4,
 * vpp 2, 4 layers per chunk) with the overlap, the flex dispatcher (its SM slowdown
 * included) at m = 32 is extended from a shorter step, and its step time equals the
 * full simulation's (to 1e-9: the extension adds whole periods). The pairs reorder their
 * units' tasks (plan/program.c), the receives among them included, whose pipeline peers
 * still name each other. */
static void
test_a2a_overlap_steady (void)
{
  g_autoptr (ModelSpec) m = llama8b ();
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  Plan p;
  a2a_interleaved_plan (&p, 32, TRUE);
  p.moe_dispatcher = PLAN_MOE_FLEX;
  g_assert_true (plan_resolve (&p, m, c, &error));
  SimOptions opts;
  sim_options_init (&opts, c);
  g_autoptr (SimPrediction) fast = sim_predict (m, &p, c, &opts, &error);
  g_assert_no_error (error);
  opts.full_simulation = TRUE;
  g_autoptr (SimPrediction) full = sim_predict (m, &p, c, &opts, &error);
  g_assert_no_error (error);
  g_test_message ("full %.9f s, steady-state path %.9f s (%d periods)",
                  full->result->step_time_s, fast->result->step_time_s,
                  fast->result->steady_periods);
  g_assert_cmpint (fast->result->steady_periods, >, 0);
  g_assert_cmpfloat (fabs (full->result->step_time_s - fast->result->step_time_s), <,
                     1e-9 * full->result->step_time_s);
  g_assert_cmpfloat (fabs (full->result->exposed_comm_s[PROG_COMM_EP]
                           - fast->result->exposed_comm_s[PROG_COMM_EP]), <,
                     1e-6 * full->result->step_time_s);
  g_assert_cmpuint (assert_pipeline_peers (fast->program), >, 0);
  g_assert_cmpuint (assert_pipeline_peers (full->program), >, 0);
  plan_clear (&p);
}

/* --overlap-moe-expert-parallel-comm on the interleaved schedule with few micro-batches:
 * 32 GPUs, tp 1, pp 4, vpp 2, so dp 8 and m = global batch / 8 (micro-batch 1). Below
 * 2 pp - 1 = 7 micro-batches the first stage's warm-up with the combined 1F1B's extra
 * forward, 2 (4 - 1) + (2 - 1) m + 1 = m + 7, exceeds its whole step of 2 m units, so
 * Megatron-Core caps it and tandem runs the step unpaired (plan/program.c): at m = 4 and
 * m = 6 the step simulates (it deadlocked before) and is the plan without the flag, to
 * the bit, memory included (no extra unit in flight); at m = 7 the pairs are built and
 * the step differs from the plan without the flag. */
static void
test_a2a_overlap_few_microbatches (void)
{
  g_autoptr (ModelSpec) m = llama8b ();
  g_autoptr (TopoCluster) c = h100 ();
  static const int mbs[] = { 4, 6, 7 };
  for (guint i = 0; i < G_N_ELEMENTS (mbs); i++)
    {
      double step[2], peak[2];
      for (int k = 0; k < 2; k++)
        {
          g_autoptr (GError) error = NULL;
          Plan p;
          a2a_interleaved_plan (&p, mbs[i], k == 1);
          g_assert_true (plan_resolve (&p, m, c, &error));
          g_assert_no_error (error);
          SimOptions opts;
          sim_options_init (&opts, c);
          g_autoptr (SimPrediction) pr = sim_predict (m, &p, c, &opts, &error);
          g_assert_no_error (error);
          step[k] = pr->result->step_time_s;
          peak[k] = (double) pr->memory.peak_bytes;
          plan_clear (&p);
        }
      g_test_message ("m %d: step %.9f s without, %.9f s with the flag", mbs[i], step[0],
                      step[1]);
      if (mbs[i] < 7)
        {
          g_assert_cmpfloat (step[1], ==, step[0]);
          g_assert_cmpfloat (peak[1], ==, peak[0]);
        }
      else
        g_assert_cmpfloat (step[1], !=, step[0]);
    }
}

/* --recompute-modules moe: the MoE MLP's forward runs again before its backward, its
 * all-to-alls included (Megatron-Core checkpoints the whole MoE layer). On the plan of
 * test_predict_ep (ep 8, etp 1: a dispatch and a combine all-to-all per pass, no expert-TP
 * gathers) a layer and micro-batch issues 2 forward + 2 backward all-to-alls, and 2 more
 * in the recompute: 6 / 4 = 1.5 times the ep tasks, and as many recomputed experts
 * blocks as forward ones. */
static void
test_moe_recompute (void)
{
  g_autoptr (ModelSpec) m = llama8b ();
  g_autoptr (TopoCluster) c = h100 ();
  g_autoptr (GError) error = NULL;
  Plan p;
  moe_plan (&p, 64, 1, 8, 1);
  g_assert_true (plan_resolve (&p, m, c, &error));
  SimOptions opts;
  sim_options_init (&opts, c);
  guint ep[2] = { 0, 0 }, fwd[2] = { 0, 0 }, rc[2] = { 0, 0 };
  for (int k = 0; k < 2; k++)
    {
      p.moe_recompute = k == 0 ? 0 : PLAN_MOE_RECOMPUTE_LAYER;
      g_autoptr (SimPrediction) pr = sim_predict (m, &p, c, &opts, &error);
      g_assert_no_error (error);
      const ProgProgram *prog = pr->program;
      for (guint i = 0; i < prog->tasks->len; i++)
        {
          const ProgTask *t = prog_task (prog, i);
          if (t->stream == PROG_STREAM_EP)
            ep[k]++;
          if (t->kind == PROG_TASK_COMPUTE
              && prog_block (prog, t->block)->kind == PROG_BLOCK_MOE_EXPERTS)
            {
              fwd[k] += t->phase == PROG_PHASE_FORWARD;
              rc[k] += t->phase == PROG_PHASE_RECOMPUTE;
            }
        }
    }
  g_assert_cmpuint (ep[0], >, 0);
  g_assert_cmpuint (2 * ep[1], ==, 3 * ep[0]);
  g_assert_cmpuint (rc[0], ==, 0);
  g_assert_cmpuint (rc[1], ==, fwd[1]);
  g_assert_cmpuint (fwd[1], ==, fwd[0]);
  plan_clear (&p);
}

/* --recompute-modules in the step program: the recomputed module's forward runs again
 * before its backward, as hardware FLOPs only. DeepSeek-V3 (61 layers, MLA: 128 heads,
 * q / kv ranks 1536 / 512, nope 128, rope 64, v 128; 58 MoE layers) on 64 GPUs, ep 64,
 * one 4,096-token micro-batch per rank, T = 4096:
 *   mla_up_proj, per layer: q_up 2 T 1536 x 128 x 192 = 309,237,645,312 and kv_up
 *     2 T 512 x 128 x 256 = 137,438,953,472 FLOPs, the q and kv norms 5 T (1536 + 512)
 *     = 41,943,040 and the rotary part of 129 heads 3 T 129 x 64 = 101,449,728:
 *     446,819,991,552 a layer, x 61 layers;
 *   layernorm: MLA's input norm in every layer and the pre-MLP norm of the 58 MoE layers,
 *     5 T 7168 = 146,800,640 each: (61 + 58) x 146,800,640 = 17,469,276,160.
 * The model FLOPs do not change. */
static void
test_recompute_modules_program (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) m = model_spec_lookup ("deepseek-v3", &error);
  g_assert_no_error (error);
  g_autoptr (TopoCluster) c = h100 ();
  double hw[3], model[3];
  const guint mods[3] = { 0, PLAN_MOE_RECOMPUTE_MLA_UP, PLAN_MOE_RECOMPUTE_LAYERNORM };
  for (int k = 0; k < 3; k++)
    {
      Plan p;
      plan_init_defaults (&p);
      p.world_size = 64;
      p.ep = 64;
      p.seq_length = 4096;
      p.global_batch = 64;
      p.sharding = PLAN_SHARD_ZERO1;
      p.moe_recompute = mods[k];
      g_assert_true (plan_resolve (&p, m, c, &error));
      SimOptions opts;
      sim_options_init (&opts, c);
      g_autoptr (SimPrediction) pr = sim_predict (m, &p, c, &opts, &error);
      g_assert_no_error (error);
      hw[k] = pr->program->stages[0].hw_flops;
      model[k] = pr->program->stages[0].model_flops;
      plan_clear (&p);
    }
  double T = 4096;
  double mla = 2 * T * 1536 * 128 * 192 + 2 * T * 512 * 128 * 256 + 5 * T * (1536 + 512)
               + 3 * T * 129 * 64;
  double ln = (61 + 58) * 5 * T * 7168;
  g_test_message ("mla_up_proj %.6g FLOPs, layernorm %.6g FLOPs a step", hw[1] - hw[0],
                  hw[2] - hw[0]);
  g_assert_cmpfloat (fabs (hw[1] - hw[0] - 61 * mla), <, 1e-9 * hw[0]);
  g_assert_cmpfloat (fabs (hw[2] - hw[0] - ln), <, 1e-9 * hw[0]);
  g_assert_cmpfloat (model[1], ==, model[0]);
  g_assert_cmpfloat (model[2], ==, model[0]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/moe-sim/a2a-topology", test_a2a_topology);
  g_test_add_func ("/moe-sim/host-costs", test_host_costs);
  g_test_add_func ("/moe-sim/host-excess", test_host_excess);
  g_test_add_func ("/moe-sim/host-excess-split", test_host_excess_split);
  g_test_add_func ("/moe-sim/pad-no-sync", test_pad_no_sync);
  g_test_add_func ("/moe-sim/host-excess-one-mixer", test_host_excess_one_mixer);
  g_test_add_func ("/moe-sim/quant-launches", test_quant_launches);
  g_test_add_func ("/moe-sim/grouped-launches", test_grouped_launches);
  g_test_add_func ("/moe-sim/a2a-overlap", test_a2a_overlap);
  g_test_add_func ("/moe-sim/a2a-overlap-deepep-sms", test_a2a_overlap_deepep_sms);
  g_test_add_func ("/moe-sim/a2a-overlap-steady", test_a2a_overlap_steady);
  g_test_add_func ("/moe-sim/a2a-overlap-inflight", test_a2a_overlap_inflight);
  g_test_add_func ("/moe-sim/a2a-overlap-few-microbatches",
                   test_a2a_overlap_few_microbatches);
  g_test_add_func ("/moe-sim/moe-recompute", test_moe_recompute);
  g_test_add_func ("/moe-sim/recompute-modules-program", test_recompute_modules_program);
  g_test_add_func ("/moe-sim/predict-ep", test_predict_ep);
  g_test_add_func ("/moe-sim/search-space", test_search_space);
  return g_test_run ();
}
