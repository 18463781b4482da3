/* tests/sim/test-simulate.c - the step program on the simulator: schedules' bubbles,
 * overlap from dependencies, compute-bound DP, determinism and the program's shape. */
#include "sim/predict.h"
#include "program-asserts.h"

#include <math.h>
#include <string.h>

typedef struct {
  ModelSpec   *model;
  TopoCluster *cluster;
  Plan         plan;
} Case;

/* A model whose stages are equal when the embedding and head are free: 8 layers of
 * hidden 1024, 16 heads, vocab 64. */
static void
case_init (Case *c, const char *flags_model)
{
  memset (c, 0, sizeof *c);
  g_autoptr (GError) error = NULL;
  if (flags_model)
    c->model = model_spec_lookup (flags_model, &error);
  else
    c->model = model_spec_new_custom ("uniform-8", MODEL_MLP_SWIGLU, 1024, 2816, 8, 16, 16, 64,
                                      2048, FALSE);
  g_assert_no_error (error);
  c->cluster = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
  plan_init_defaults (&c->plan);
}

/* ZeRO-3 over 2 GPUs, one sequence of 2048 each: the layer gathers and scatters alone. */
static void
case_init_zero3_dp2 (Case *c, const char *model)
{
  case_init (c, model);
  c->plan.world_size = 2;
  c->plan.global_batch = 2;
  c->plan.seq_length = 2048;
  c->plan.sharding = PLAN_SHARD_ZERO3;
}

/* TP 2 with SP on 2 GPUs, one sequence of 2048: a TP group and nothing else. */
static void
case_init_tp2_sp (Case *c)
{
  case_init (c, NULL);
  c->plan.world_size = 2;
  c->plan.tp = 2;
  c->plan.sequence_parallel = TRUE;
  c->plan.global_batch = 1;
  c->plan.seq_length = 2048;
}

/* PP 2 x DP 2 under ZeRO-2 with its gradient sync once per step (zero2_grad_sync 0),
 * `global_batch` micro-batches of one sequence of 2048. */
static void
case_init_pp2_zero2 (Case *c, int global_batch)
{
  case_init (c, NULL);
  c->plan.world_size = 4;
  c->plan.pp = 2;
  c->plan.global_batch = global_batch;
  c->plan.micro_batch = 1;
  c->plan.seq_length = 2048;
  c->plan.sharding = PLAN_SHARD_ZERO2;
  c->plan.zero2_grad_sync = 0;
}

static void
case_clear (Case *c)
{
  model_spec_unref (c->model);
  topo_cluster_unref (c->cluster);
  plan_clear (&c->plan);
}

/* Resolves the case's plan and predicts it under opts. */
static SimPrediction *
case_predict_with (Case *c, const SimOptions *opts)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (plan_resolve (&c->plan, c->model, c->cluster, &error));
  g_assert_no_error (error);
  SimPrediction *p = sim_predict (c->model, &c->plan, c->cluster, opts, &error);
  g_assert_no_error (error);
  g_assert_nonnull (p);
  return p;
}

static SimPrediction *
case_predict_opt (Case *c, gboolean ideal, gboolean free_optimizer)
{
  SimOptions opts;
  sim_options_init (&opts, c->cluster);
  if (ideal)
    {
      opts.cost.free_comm = TRUE;
      opts.cost.free_optimizer = TRUE;
      opts.ideal_pipeline = TRUE;
    }
  if (free_optimizer)
    opts.cost.free_optimizer = TRUE;
  opts.keep_timeline = TRUE;
  return case_predict_with (c, &opts);
}

static SimPrediction *
case_predict (Case *c, gboolean ideal)
{
  return case_predict_opt (c, ideal, FALSE);
}

/* With free communication and equal stages, GPipe and 1F1B leave each stage idle for
 * p - 1 of the m + p - 1 slot pairs: bubble = (p-1)/(m+p-1). p = 4, m = 4: 3/7 = 42.86%
 * (utilisation 4/7 = 57.1%); m = 8: 3/11 = 27.27%. */
static void
test_bubble_gpipe_1f1b (void)
{
  static const struct { PlanSchedule sched; int m; double bubble; } cases[] = {
    { PLAN_SCHED_GPIPE, 4, 3.0 / 7 }, { PLAN_SCHED_1F1B, 4, 3.0 / 7 },
    { PLAN_SCHED_GPIPE, 8, 3.0 / 11 }, { PLAN_SCHED_1F1B, 8, 3.0 / 11 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Case c;
      case_init (&c, NULL);
      c.plan.world_size = 4;
      c.plan.pp = 4;
      c.plan.schedule = cases[i].sched;
      c.plan.schedule_set = TRUE;
      c.plan.global_batch = cases[i].m;
      c.plan.pp_p2p_sync = 0;   /* the textbook pipeline: no host between the units */
      g_autoptr (SimPrediction) p = case_predict (&c, TRUE);
      g_assert_cmpfloat_with_epsilon (p->result->bubble_fraction, cases[i].bubble, 1e-6);
      /* every stage computes m (F + B): step = (m + p - 1)/m of one stage's compute */
      g_assert_cmpfloat_with_epsilon (p->result->step_time_s,
                                      p->result->compute_s * (cases[i].m + 3) / cases[i].m,
                                      1e-9);
      case_clear (&c);
    }
}

/* Interleaving with v chunks divides the bubble time by v: (p-1)/v slots of F + B.
 * p = 4, v = 2, m = 4: bubble fraction (3/2) / (4 + 3/2) = 27.27%;
 * m = 8: (3/2) / (8 + 3/2) = 15.79%. */
static void
test_bubble_interleaved (void)
{
  static const struct { int m; double bubble; } cases[] = {
    { 4, 1.5 / 5.5 }, { 8, 1.5 / 9.5 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Case c;
      case_init (&c, NULL);
      c.plan.world_size = 4;
      c.plan.pp = 4;
      c.plan.vpp = 2;
      c.plan.global_batch = cases[i].m;
      g_autoptr (SimPrediction) p = case_predict (&c, TRUE);
      g_assert_cmpint (p->plan.schedule, ==, PLAN_SCHED_INTERLEAVED_1F1B);
      g_assert_cmpfloat_with_epsilon (p->result->bubble_fraction, cases[i].bubble, 1e-6);
      case_clear (&c);
    }
}

/* --microbatch-group-size-per-virtual-pipeline-stage N (the Llama 3 paper's N): with
 * N >= p every rank still works from the moment the first micro-batch reaches it until
 * the last leaves it, so fill and drain stay (p-1)/v micro-batch slots: p = 4, v = 2,
 * m = 8 with N = 8 (all micro-batches through chunk 0, then chunk 1) has the bubble of
 * N = 4, 1.5 / 9.5 = 15.79%. What changes is the order: stage 0 runs the forwards of
 * chunk 0 for micro-batches 0..7 before any of chunk 1 (with N = 4: 0..3, then chunk 1
 * of 0..3), and holds 2 x 3 + 8 + 1 = 15 chunk-micro-batches at its peak (N = 4: 11). */
static void
test_interleaved_group (void)
{
  for (int n = 4; n <= 8; n += 4)
    {
      Case c;
      case_init (&c, NULL);
      c.plan.world_size = 4;
      c.plan.pp = 4;
      c.plan.vpp = 2;
      c.plan.vpp_group = n;
      c.plan.global_batch = 8;
      g_autoptr (SimPrediction) p = case_predict (&c, TRUE);
      g_assert_cmpfloat_with_epsilon (p->result->bubble_fraction, 1.5 / 9.5, 1e-6);
      /* the first 8 forward compute units of stage 0, by (chunk, micro-batch) */
      int seen = 0, last_key = -1;
      for (guint32 i = 0; i < p->program->tasks->len && seen < 8; i++)
        {
          const ProgTask *t = prog_task (p->program, i);
          if (t->stage != 0 || t->kind != PROG_TASK_COMPUTE || t->phase != PROG_PHASE_FORWARD
              || t->layer < 0)
            continue;
          int key = t->chunk * 100 + t->mb;
          if (key == last_key)
            continue;   /* the unit's next block */
          last_key = key;
          int want_chunk = seen / n, want_mb = seen % n;
          g_assert_cmpint (t->chunk, ==, want_chunk);
          g_assert_cmpint (t->mb, ==, want_mb);
          seen++;
        }
      g_assert_cmpint (seen, ==, 8);
      g_assert_cmpint (p->memory.stages[0].inflight_microbatches, ==, n == 8 ? 15 : 11);
      case_clear (&c);
    }
}

/* Micro-batch counts that are not a multiple of the stage count still schedule (the
 * Llama 3 405B run): p = 4, v = 2, m = 5, 6 and 7 finish, every task once. On the ideal
 * pipeline (free communication, equal stages: test_bubble_interleaved's) the remainder
 * adds no bubble: fill and drain stay (p - 1)/v = 1.5 slots of F + B, bubble 1.5 / (m +
 * 1.5) = 23.08%, 20% and 17.65%, and the step is (m + 1.5)/m of a stage's compute, which
 * is m times the same F + B. */
static void
test_interleaved_odd_counts (void)
{
  double unit = 0;   /* one micro-batch's F + B on a stage */
  for (int m = 5; m <= 7; m++)
    {
      Case c;
      case_init (&c, NULL);
      c.plan.world_size = 4;
      c.plan.pp = 4;
      c.plan.vpp = 2;
      c.plan.global_batch = m;
      g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
      g_assert_cmpfloat (p->result->step_time_s, >, 0);
      g_assert_cmpuint (p->result->n_events, ==, p->program->tasks->len);
      g_autoptr (SimPrediction) q = case_predict (&c, TRUE);
      g_test_message ("m %d: compute %.6f ms, step %.6f ms, bubble %.4f", m,
                      q->result->compute_s * 1e3, q->result->step_time_s * 1e3,
                      q->result->bubble_fraction);
      g_assert_cmpfloat_with_epsilon (q->result->bubble_fraction, 1.5 / (m + 1.5), 1e-6);
      g_assert_cmpfloat_with_epsilon (q->result->step_time_s,
                                      q->result->compute_s * (m + 1.5) / m, 1e-9);
      if (m == 5)
        unit = q->result->compute_s / m;
      g_assert_cmpfloat_with_epsilon (q->result->compute_s / m, unit, 1e-12);
      case_clear (&c);
    }
}

/* Data parallelism only, free communication: the step is the compute of one rank, and a
 * large-GEMM model is compute-bound: step ~ FLOPs / (peak x GEMM efficiency). Model:
 * 2 layers, h 8192, ffn 32768 (GeLU), s 2048, b 1, vocab 64: per layer per token the
 * GEMMs do 2 x (4 h^2 + 2 h ffn) = 24 h^2 forward, 72 h^2 with backward; attention is
 * s/(6h) = 4% on top. The cost model's efficiency for these shapes (multiples of the
 * 128 x 256 tile) is sim_cost_gemm_efficiency; flash attention (2 s^2 h per layer
 * forward, 3.5x that with its backward, at 45-60% efficiency: ~4%) and the memory-bound
 * norms and activations (~5%) make up the rest, so we require agreement within 12%.
 * The optimizer step is left out (free_optimizer). */
static void
test_compute_bound_dp (void)
{
  Case c;
  memset (&c, 0, sizeof c);
  g_autoptr (GError) error = NULL;
  c.model = model_spec_new_custom ("gemm-heavy", MODEL_MLP_GELU, 8192, 32768, 2, 64, 64, 64,
                                   2048, FALSE);
  c.cluster = topo_cluster_lookup ("h100-24k", &error);
  plan_init_defaults (&c.plan);
  c.plan.world_size = 8;
  c.plan.global_batch = 8;
  /* the documented (uncalibrated) cost defaults, whose efficiencies the derivation uses */
  SimOptions opts;
  sim_options_init (&opts, c.cluster);
  sim_cost_options_init_documented (&opts.cost, c.cluster);
  opts.cost.free_optimizer = TRUE;
  g_autoptr (SimPrediction) p = case_predict_with (&c, &opts);
  g_autoptr (PlanLayout) lay = plan_layout_new (&p->plan, c.cluster, &error);
  SimCost *cost = sim_cost_new (c.cluster, lay, &opts.cost);
  double eff = sim_cost_gemm_efficiency (cost, 2048, 8192, 8192, TOPO_DTYPE_BF16);
  sim_cost_free (cost);
  /* hardware FLOPs of one rank: 72 h^2 per token per layer x 2 layers x 2048 tokens, plus
   * the attention (causal, flash backward 2.5x) */
  double gemm_flops = 72.0 * 8192.0 * 8192.0 * 2 * 2048;
  double expected = gemm_flops / (989.4e12 * eff);
  double compute = p->result->stages[0].compute_s;
  g_test_message ("compute %.6f s, expected %.6f s (eff %.4f)", compute, expected, eff);
  g_assert_cmpfloat (compute, >, expected);
  g_assert_cmpfloat ((compute - expected) / expected, <, 0.12);
  /* DP all-reduce after the backward (no overlap asked) is fully exposed */
  g_assert_cmpfloat (p->result->exposed_comm_s[PROG_COMM_DP], >, 0);
  g_assert_cmpfloat_with_epsilon (p->result->exposed_comm_s[PROG_COMM_DP],
                                  p->result->comm_s[PROG_COMM_DP], 1e-9);
  case_clear (&c);
}

/* Overlap comes from dependencies: with --overlap-grad-reduce the gradient buckets of the
 * later layers reduce while earlier layers still compute their backward, so less DP
 * time is exposed than without. TP collectives between the compute blocks are exposed;
 * the backward's re-gathers of sequence parallelism, issued a block ahead, are not. */
static void
test_overlap_from_dependencies (void)
{
  double exposed[2], busy[2];
  for (int overlap = 0; overlap < 2; overlap++)
    {
      Case c;
      case_init (&c, "llama3-8b");
      c.plan.world_size = 64;
      c.plan.tp = 8;
      c.plan.sequence_parallel = TRUE;
      c.plan.global_batch = 8;
      c.plan.seq_length = 8192;
      c.plan.overlap_grad_reduce = overlap;
      g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
      exposed[overlap] = p->result->exposed_comm_s[PROG_COMM_DP];
      busy[overlap] = p->result->comm_s[PROG_COMM_DP];
      /* With SP the backward re-gathers each block's input (ProgRole): 2 per layer, 64
       * for the 32 layers of the one micro-batch, each one all-gather of the block input
       * (64 MiB). Each is issued during the block before the one that needs it and hides
       * behind it, except the first of the backward, which runs before any backward
       * compute: exposed TP = busy TP - (sum of the re-gathers - the first). */
      const ProgProgram *prog = p->program;
      double rg = 0, rg_first = -1;
      int n_rg = 0;
      for (guint32 i = 0; i < prog->tasks->len; i++)
        {
          const ProgTask *t = prog_task (prog, i);
          if (t->stage != 0 || t->role == PROG_ROLE_NONE)
            continue;
          g_assert_cmpint (t->coll, ==, PLAN_COLL_ALL_GATHER);
          g_assert_cmpfloat (t->bytes, ==, 8192.0 * 4096 * 2);
          double d = p->result->times[i].end_s - p->result->times[i].start_s;
          if (rg_first < 0)
            rg_first = d;
          rg += d;
          n_rg++;
        }
      g_assert_cmpint (n_rg, ==, 64);
      g_assert_cmpfloat (rg_first, >, 0);
      g_assert_cmpfloat_with_epsilon (p->result->exposed_comm_s[PROG_COMM_TP],
                                      p->result->comm_s[PROG_COMM_TP] - (rg - rg_first),
                                      1e-3 * p->result->comm_s[PROG_COMM_TP]);
      case_clear (&c);
    }
  g_assert_cmpfloat_with_epsilon (busy[0], busy[1], 1e-9);
  g_assert_cmpfloat (exposed[1], <, 0.5 * exposed[0]);
}

/* --tp-comm-overlap splits each TP block into pieces whose collectives overlap the next
 * piece: the same TP bytes move (4 pieces of a quarter each), but far less of the time
 * is exposed. */
static void
test_tp_comm_overlap (void)
{
  double exposed[2], busy[2];
  guint tasks[2];
  for (int overlap = 0; overlap < 2; overlap++)
    {
      Case c;
      case_init (&c, "llama3-70b");
      c.plan.world_size = 8;
      c.plan.tp = 8;
      c.plan.sequence_parallel = TRUE;
      c.plan.global_batch = 1;
      c.plan.seq_length = 8192;
      c.plan.tp_comm_overlap = overlap;
      g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
      exposed[overlap] = p->result->exposed_comm_s[PROG_COMM_TP];
      busy[overlap] = p->result->comm_s[PROG_COMM_TP];
      tasks[overlap] = p->program->tasks->len;
      case_clear (&c);
    }
  /* per layer and direction: 2 blocks x (4 pieces + 8 collectives) instead of 2 x 3 */
  g_assert_cmpuint (tasks[1], >, 3 * tasks[0]);
  g_assert_cmpfloat (busy[1], >=, busy[0]);          /* more latency terms, same bytes */
  g_assert_cmpfloat (exposed[1], <, 0.5 * exposed[0]);
}

/* A run is a pure function of its inputs: two predictions of the same plan (llama3-70b,
 * 512 GPUs, TP 8 PP 4 VPP 5 with SP and overlapped ZeRO-1) give the same step, fire the
 * same events and put every task of the trace at the same start and end, to the bit. */
static void
test_deterministic (void)
{
  double step[2];
  SimPrediction *pr[2];
  for (int i = 0; i < 2; i++)
    {
      Case c;
      case_init (&c, "llama3-70b");
      c.plan.world_size = 512;
      c.plan.tp = 8;
      c.plan.pp = 4;
      c.plan.vpp = 5;
      c.plan.sequence_parallel = TRUE;
      c.plan.global_batch = 128;
      c.plan.sharding = PLAN_SHARD_ZERO1;
      c.plan.overlap_grad_reduce = TRUE;
      c.plan.overlap_param_gather = TRUE;
      pr[i] = case_predict (&c, FALSE);
      step[i] = pr[i]->result->step_time_s;
      case_clear (&c);
    }
  g_assert_cmpfloat (step[0], ==, step[1]);
  const SimResult *a = pr[0]->result, *b = pr[1]->result;
  g_assert_cmpuint (a->n_tasks, ==, b->n_tasks);
  g_assert_cmpuint (a->n_fired, ==, b->n_fired);
  g_assert_nonnull (a->times);
  for (guint i = 0; i < a->n_tasks; i++)
    {
      g_assert_cmpfloat (a->times[i].start_s, ==, b->times[i].start_s);
      g_assert_cmpfloat (a->times[i].end_s, ==, b->times[i].end_s);
    }
  for (int s = 0; s < a->n_stages; s++)
    g_assert_cmpfloat (a->stages[s].bubble_s, ==, b->stages[s].bubble_s);
  sim_prediction_free (pr[0]);
  sim_prediction_free (pr[1]);
}

/* Every sharding, CP algorithm and recompute mode builds a program that runs to the end,
 * with every pipeline receive matched to a send of the neighbouring stage. */
static void
test_program_variants (void)
{
  static const char *const variants[] = { "none", "zero1", "zero2", "zero3", "hsdp" };
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    for (int cpa = 0; cpa < 3; cpa++)
      for (int rc = 0; rc < 3; rc++)
        {
          Case c;
          case_init (&c, "tiny-llama");
          c.plan.world_size = 32;
          c.plan.tp = 2;
          c.plan.cp = 2;
          c.plan.pp = 2;
          c.plan.cp_comm = (PlanCpComm) cpa;
          c.plan.recompute = (PlanRecompute) rc;
          c.plan.seq_length = 1024;
          c.plan.global_batch = 16;
          c.plan.sequence_parallel = TRUE;
          c.plan.overlap_grad_reduce = TRUE;
          if (v == 4)
            {
              c.plan.sharding = PLAN_SHARD_HSDP;
              c.plan.hsdp_shard_size = 2;
            }
          else
            c.plan.sharding = (PlanSharding) v;
          g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
          const ProgProgram *prog = p->program;
          assert_pipeline_peers (prog);
          g_assert_cmpuint (p->result->n_events, ==, prog->tasks->len);
          if (cpa == PLAN_CP_P2P)
            g_assert_cmpfloat (p->result->comm_s[PROG_COMM_CP], >, 0);
          case_clear (&c);
        }
}

/* Model FLOPs of the program add up to the causal convention: per rank model FLOPs x
 * (tp cp dp) summed over stages = causal FLOPs per token x tokens, except the logits'
 * vocab padding (none here: 128256 / 8 is whole). */
static void
test_program_flops (void)
{
  Case c;
  case_init (&c, "llama3-8b");
  c.plan.world_size = 64;
  c.plan.tp = 8;
  c.plan.pp = 2;
  c.plan.global_batch = 16;
  c.plan.seq_length = 8192;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  double total = 0;
  for (int s = 0; s < p->program->n_stages; s++)
    total += p->program->stages[s].model_flops;
  total *= 8 * 1 * 4;          /* tp x cp x dp */
  double expected = model_spec_flops_per_token (c.model, 8192, MODEL_FLOPS_CAUSAL)
                    * 16 * 8192;
  g_assert_cmpfloat (fabs (total - expected) / expected, <, 1e-9);

  /* Unfused attention: the same model FLOPs (the convention counts causal attention
   * whatever runs), more executed ones. Per layer and sequence the core executes the
   * full 4 s^2 a d forward (flash: half) and 2x that backward (flash: 2.5 x half):
   * 1 + 2 - 0.5 - 1.25 = 1.25 x 4 s^2 a d more; over 32 layers and 16 sequences of 8192
   * with a d = 4096: 1.25 x 4 x 8192^2 x 4096 x 32 x 16 = 7.0369e14 over all GPUs. */
  double hw_flash = p->program->hw_flops_per_step;
  c.plan.attention_backend = PLAN_ATTN_UNFUSED;
  g_autoptr (SimPrediction) u = case_predict (&c, FALSE);
  double total_u = 0;
  for (int s = 0; s < u->program->n_stages; s++)
    total_u += u->program->stages[s].model_flops;
  g_assert_cmpfloat (fabs (total_u * 8 * 4 - expected) / expected, <, 1e-9);
  double extra = 1.25 * 4.0 * 8192.0 * 8192.0 * 4096.0 * 32 * 16;
  g_assert_cmpfloat (fabs ((u->program->hw_flops_per_step - hw_flash) - extra) / extra, <, 1e-9);
  /* and it takes longer: the scores go through memory */
  g_assert_cmpfloat (u->result->step_time_s, >, p->result->step_time_s);

  /* Full recompute: the same model FLOPs (the re-run forward is phase RECOMPUTE and
   * counts none), and one more forward of every layer executed; with SP each layer's
   * backward re-gathers its two block inputs only after its recompute has rebuilt them
   * (the recompute's own all-gathers come first). */
  c.plan.attention_backend = PLAN_ATTN_FLASH;
  c.plan.recompute = PLAN_RECOMPUTE_FULL;
  c.plan.sequence_parallel = TRUE;
  g_autoptr (SimPrediction) r = case_predict (&c, FALSE);
  double total_r = 0;
  for (int s = 0; s < r->program->n_stages; s++)
    total_r += r->program->stages[s].model_flops;
  g_assert_cmpfloat (fabs (total_r * 8 * 4 - expected) / expected, <, 1e-9);
  int n_rc = 0, n_rg = 0, rc_layer = -1;
  for (guint32 i = 0; i < r->program->tasks->len; i++)
    {
      const ProgTask *t = prog_task (r->program, i);
      if (t->stage != 0 || t->mb != 0)
        continue;
      if (t->kind == PROG_TASK_COMPUTE && t->phase == PROG_PHASE_RECOMPUTE)
        {
          g_assert_cmpfloat (t->model_flops, ==, 0);
          g_assert_cmpfloat (t->hw_flops, >, 0);
          n_rc++;
          rc_layer = t->layer;
        }
      if (t->role != PROG_ROLE_NONE)
        {
          g_assert_cmpint (t->layer, ==, rc_layer);   /* after that layer's recompute */
          n_rg++;
        }
    }
  /* 16 layers on stage 0, attention and MLP each: 32 recompute blocks, 32 re-gathers */
  g_assert_cmpint (n_rc, ==, 32);
  g_assert_cmpint (n_rg, ==, 32);
  case_clear (&c);
}

/* fp32 tensors with GEMMs on BF16 tensor cores (--fp32-matmul-precision medium, what
 * `tandem run --backend cuda` does): the program's GEMM math is BF16 over fp32 storage,
 * MFU is against the BF16 peak (989.4 TFLOP/s on H100). Ordering, op by op: against
 * fp32 math (vector peak 66.9 TFLOP/s) every GEMM is faster and every other op the same,
 * so the step is shorter; against bf16 storage the GEMMs are the same math and the
 * memory-bound ops move twice the bytes, so the step is longer. */
static void
test_fp32_matmul_precision (void)
{
  double step[3];
  for (int i = 0; i < 3; i++)
    {
      Case c;
      case_init (&c, NULL);
      c.plan.world_size = 8;
      c.plan.global_batch = 8;
      c.plan.seq_length = 2048;
      if (i < 2)
        c.plan.compute_dtype = c.plan.param_dtype = PLAN_PREC_FP32;
      if (i == 1)
        c.plan.fp32_matmul = PLAN_MATMUL_MEDIUM;
      g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
      g_assert_cmpint (p->program->compute_dtype, ==, i < 2 ? TOPO_DTYPE_FP32 : TOPO_DTYPE_BF16);
      g_assert_cmpint (p->program->gemm_dtype, ==, i == 0 ? TOPO_DTYPE_FP32 : TOPO_DTYPE_BF16);
      g_assert_cmpfloat (p->result->peak_flops, ==,
                         c.cluster->device.peak_flops[p->program->gemm_dtype]);
      step[i] = p->result->step_time_s;
      case_clear (&c);
    }
  g_assert_cmpfloat (step[0], >, step[1]);
  g_assert_cmpfloat (step[1], >, step[2]);
}

/* A plan that does not fit is still predicted and says so. Llama 3 70B (70,553,706,496
 * parameters, meta-llama/Meta-Llama-3-70B) over tp 8 and nothing else holds 70,553,706,496
 * / 8 = 8,819,213,312 parameters a GPU (the norms, replicated, 80 x 2 x 8192 + 8192 =
 * 1,318,912 elements, add under 2e-4): bf16 params 17,638,426,624 B, fp32 grads twice
 * that, Adam with fp32 master weights six times (the defaults, 2 + 4 + 12 B a parameter):
 * 158.7 GB of model states alone against the H100's 80 GB. The verdict does not touch the
 * time: the same plan on a device with 4x the HBM fits and predicts the same step to the
 * bit. */
static void
test_oom_still_predicted (void)
{
  Case c;
  case_init (&c, "llama3-70b");
  c.plan.world_size = 8;
  c.plan.tp = 8;
  c.plan.global_batch = 1;
  ModelParams n;
  model_spec_params (c.model, &n);
  g_assert_cmpuint (n.total, ==, G_GUINT64_CONSTANT (70553706496));
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  g_assert_false (p->memory.fits);
  const PlanMemStage *st = &p->memory.stages[0];
  g_assert_cmpfloat (fabs ((double) st->bytes[PLAN_MEM_PARAMS] / 17638426624.0 - 1), <, 2e-4);
  g_assert_cmpfloat (fabs ((double) st->bytes[PLAN_MEM_GRADS] / 35276853248.0 - 1), <, 2e-4);
  g_assert_cmpfloat (fabs ((double) st->bytes[PLAN_MEM_OPTIMIZER] / 105830559744.0 - 1), <,
                     2e-4);
  g_assert_cmpuint (p->memory.peak_bytes, >, 2 * p->memory.capacity_bytes);
  g_assert_cmpfloat (p->result->step_time_s, >, 0);
  /* the same plan where it fits */
  c.cluster->device.hbm_bytes *= 4;
  g_autoptr (SimPrediction) q = case_predict (&c, FALSE);
  g_assert_true (q->memory.fits);
  g_assert_cmpfloat (q->result->step_time_s, ==, p->result->step_time_s);
  case_clear (&c);
}

/* ZeRO-3 as DeepSpeed issues it (frameworks/presets/deepspeed.json): mcore-gpt-1.7b (24
 * layers, hidden 2048, ffn 8192, LayerNorm, biases; layer = 12 h^2 + 13 h = 50,358,272
 * parameters) on 2 ranks, tp 1, one micro-batch, full recompute. */
static SimPrediction *
zero3_predict_ahead (double prefetch, double reuse, int per_tensor, int copies, int ahead)
{
  Case c;
  case_init_zero3_dp2 (&c, "mcore-gpt-1.7b");
  c.plan.recompute = PLAN_RECOMPUTE_FULL;
  c.plan.zero3_prefetch_params = prefetch;
  c.plan.zero3_reuse_params = reuse;
  c.plan.zero3_per_tensor = per_tensor;
  c.plan.zero3_rank_copies = copies;
  c.plan.zero3_gather_ahead = ahead;
  SimPrediction *p = case_predict_opt (&c, FALSE, FALSE);
  case_clear (&c);
  return p;
}

/* ... with each backward gather issued at its own layer's turn (gather_ahead off) */
static SimPrediction *
zero3_predict (double prefetch, double reuse, int per_tensor, int copies)
{
  return zero3_predict_ahead (prefetch, reuse, per_tensor, copies, 0);
}

static void
count_zero3 (const ProgProgram *prog, int *gathers, int *scatters)
{
  *gathers = *scatters = 0;
  for (guint i = 0; i < prog->tasks->len; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      if (t->kind != PROG_TASK_COLL || t->comm != PROG_COMM_DP || t->mb < 0 || t->layer < 0)
        continue;
      *gathers += t->coll == PLAN_COLL_ALL_GATHER;
      *scatters += t->coll == PLAN_COLL_REDUCE_SCATTER;
    }
}

/* ZeRO-2 shards the gradients, so each micro-batch's are reduce-scattered to their owners
 * in its backward, in the gradient dtype (fp32 here), over the DP group: mcore-gpt-1.7b
 * on 2 ranks (dp 2, tp 1), 2 micro-batches. Per micro-batch one reduce-scatter per layer
 * of 12 h^2 + 13 h = 50,358,272 parameters x 4 B = 201,433,088 B, one for the embedding
 * (131072 x 2048 words + 4096 x 2048 positions = 276,824,064 parameters) and one for the
 * untied head and final LayerNorm (131072 x 2048 + 2 x 2048 = 268,439,552): per
 * micro-batch 24 x 50,358,272 + 276,824,064 + 268,439,552 = 1,753,862,144 parameters,
 * 7,015,448,576 B. None at the end of the step. With the stack's sync per step (and for
 * ZeRO-1) no per-micro-batch reduce-scatter: the buckets are reduced once. */
static void
zero2_scatters (int sync, PlanSharding sharding, int *per_mb, double *mb0_bytes,
                double *layer_bytes, int *per_step)
{
  Case c;
  case_init (&c, "mcore-gpt-1.7b");
  c.plan.world_size = 2;
  c.plan.global_batch = 4;
  c.plan.seq_length = 2048;
  c.plan.sharding = sharding;
  c.plan.overlap_grad_reduce = TRUE;
  c.plan.zero2_grad_sync = sync;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  *per_mb = *per_step = 0;
  *mb0_bytes = *layer_bytes = 0;
  for (guint i = 0; i < p->program->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p->program, i);
      if (t->kind != PROG_TASK_COLL || t->comm != PROG_COMM_DP
          || t->coll != PLAN_COLL_REDUCE_SCATTER)
        continue;
      if (t->mb < 0)
        (*per_step)++;
      else
        {
          (*per_mb)++;
          if (t->mb == 0)
            *mb0_bytes += t->bytes;
          if (t->layer == 5)
            *layer_bytes = t->bytes;
        }
    }
  case_clear (&c);
}

static void
test_zero2_per_microbatch (void)
{
  int per_mb, per_step;
  double mb0, layer;
  zero2_scatters (-1, PLAN_SHARD_ZERO2, &per_mb, &mb0, &layer, &per_step);   /* the stack's */
  g_assert_cmpint (per_mb, ==, 2 * (24 + 2));
  g_assert_cmpint (per_step, ==, 0);
  g_assert_cmpfloat (layer, ==, 201433088.0);
  g_assert_cmpfloat (mb0, ==, 7015448576.0);
  zero2_scatters (0, PLAN_SHARD_ZERO2, &per_mb, &mb0, &layer, &per_step);
  g_assert_cmpint (per_mb, ==, 0);
  g_assert_cmpint (per_step, >, 0);
  zero2_scatters (-1, PLAN_SHARD_ZERO1, &per_mb, &mb0, &layer, &per_step);
  g_assert_cmpint (per_mb, ==, 0);
  g_assert_cmpint (per_step, >, 0);
}

/* FSDP1's passes before each per-micro-batch reduce-scatter (plan.h zero2_reduce_passes),
 * on zero2_scatters' plan: mcore-gpt-1.7b on 2 ranks, 2 micro-batches, bf16 parameters,
 * fp32 gradients. The cast reads 2 B and writes 4 B a parameter; the pre-divide factor of
 * 2 ranks is 2 (1 doubles once: 2 % 1 = 0 and 2 / 1 > 1; then 2 / 2 = 1 is not > 2), so
 * the in-place division reads and writes 4 + 4 B: 14 B a parameter. A layer: 50,358,272
 * x 14 = 705,015,808 B; the embedding 276,824,064 x 14 = 3,875,536,896 B; the head and
 * final norm 268,439,552 x 14 = 3,758,153,728 B. One pass before each of the 2 x (24 + 2)
 * reduce-scatters, which waits for it; off (0): none, and the step is shorter. With bf16
 * gradients there is no cast, only the division: 2 + 2 = 4 B a parameter. */
static void
reduce_passes (int flag, PlanPrecision grad, int *passes, int *rs_after, double *layer_b,
               double *embed_b, double *head_b, double *step)
{
  Case c;
  case_init (&c, "mcore-gpt-1.7b");
  c.plan.world_size = 2;
  c.plan.global_batch = 4;
  c.plan.seq_length = 2048;
  c.plan.sharding = PLAN_SHARD_ZERO2;
  c.plan.overlap_grad_reduce = TRUE;
  c.plan.zero2_grad_sync = 1;
  c.plan.zero2_reduce_passes = flag;
  c.plan.grad_dtype = grad;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *pg = p->program;
  *passes = *rs_after = 0;
  *layer_b = *embed_b = *head_b = 0;
  for (guint i = 0; i < pg->tasks->len; i++)
    {
      const ProgTask *t = prog_task (pg, i);
      if (t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_DP
          && t->coll == PLAN_COLL_REDUCE_SCATTER && t->mb >= 0)
        {
          g_assert_cmpuint (t->n_deps, ==, 1);
          const ProgTask *d = prog_task (pg, prog_task_deps (pg, t)[0]);
          if (d->kind == PROG_TASK_COMPUTE
              && g_str_equal (prog_block (pg, d->block)->name, "fsdp_reduce_passes"))
            (*rs_after)++;
        }
      if (t->kind != PROG_TASK_COMPUTE
          || !g_str_equal (prog_block (pg, t->block)->name, "fsdp_reduce_passes"))
        continue;
      (*passes)++;
      const ProgBlock *blk = prog_block (pg, t->block);
      const ModelOp *op = &g_array_index (pg->ops, ModelOp, blk->first_op);
      g_assert_cmpstr (op->name, ==, "fsdp_copy");
      /* the two passes outside the layers: the embedding's (the larger) and the head's */
      if (t->layer == 5)
        *layer_b = (double) op->elements;
      else if (t->layer < 0)
        *(op->elements > 3.8e9 ? embed_b : head_b) = (double) op->elements;
    }
  *step = p->result->step_time_s;
  case_clear (&c);
}

static void
test_zero2_reduce_passes (void)
{
  int passes, rs;
  double layer, embed, head, with, without;
  reduce_passes (1, PLAN_PREC_FP32, &passes, &rs, &layer, &embed, &head, &with);
  g_assert_cmpint (passes, ==, 2 * (24 + 2));
  g_assert_cmpint (rs, ==, 2 * (24 + 2));
  g_assert_cmpfloat (layer, ==, 705015808.0);
  g_assert_cmpfloat (embed, ==, 3875536896.0);
  g_assert_cmpfloat (head, ==, 3758153728.0);
  reduce_passes (1, PLAN_PREC_BF16, &passes, &rs, &layer, &embed, &head, &with);
  g_assert_cmpint (passes, ==, 2 * (24 + 2));
  g_assert_cmpfloat (layer, ==, 201433088.0);
  reduce_passes (1, PLAN_PREC_FP32, &passes, &rs, &layer, &embed, &head, &with);
  reduce_passes (0, PLAN_PREC_FP32, &passes, &rs, &layer, &embed, &head, &without);
  g_assert_cmpint (passes + rs, ==, 0);
  g_assert_cmpfloat (with, >, without);
}

/* FSDP1's pre-divide factor (DefaultState._get_gradient_predivide_factor), by hand: the
 * factor doubles while it divides n and n / factor > factor. 128: 1, 2, 4, 8, 16 (128 / 16
 * = 8 is not > 16): 16. 64: 8 (64 / 8 = 8 not > 8). 12: 4 (12 / 4 = 3). 2: 2. 1: 1. */
static void
test_fsdp_predivide_factor (void)
{
  g_assert_cmpint (prog_fsdp_predivide_factor (128), ==, 16);
  g_assert_cmpint (prog_fsdp_predivide_factor (64), ==, 8);
  g_assert_cmpint (prog_fsdp_predivide_factor (12), ==, 4);
  g_assert_cmpint (prog_fsdp_predivide_factor (2), ==, 2);
  g_assert_cmpint (prog_fsdp_predivide_factor (1), ==, 1);
}

static void
test_zero3_as_deepspeed (void)
{
  const int L = 24;
  /* FSDP-like (the plan's defaults resolved with the default stack: layer prefetch,
   * parameters kept from recompute to backward, one collective per layer): a gather in
   * the forward and one before the recompute, one reduce-scatter per layer */
  g_autoptr (SimPrediction) fsdp = zero3_predict (-1, -1, -1, -1);
  int ag, rs;
  count_zero3 (fsdp->program, &ag, &rs);
  g_assert_cmpint (ag, ==, 2 * L);
  g_assert_cmpint (rs, ==, L);
  g_assert_cmpint (fsdp->program->zero3_calls, ==, 1);

  /* stage3_max_reuse_distance 1e9 > 50.4 M: still kept */
  g_autoptr (SimPrediction) kept = zero3_predict (0, 1e9, 0, 0);
  count_zero3 (kept->program, &ag, &rs);
  g_assert_cmpint (ag, ==, 2 * L);
  /* a reuse distance below the layer's 50,358,272 parameters: gathered again after the
   * recompute, 3 gathers per layer */
  g_autoptr (SimPrediction) regather = zero3_predict (0, 5e7, 0, 0);
  count_zero3 (regather->program, &ag, &rs);
  g_assert_cmpint (ag, ==, 3 * L);
  g_assert_cmpint (rs, ==, L);

  /* per tensor: linear_qkv, linear_proj, linear_fc1, linear_fc2 + their 4 biases + 2
   * LayerNorms x (weight, bias) = 12 collectives; each gather or reduce-scatter lasts
   * the flat one plus 11 latencies of its collective */
  g_autoptr (SimPrediction) tensors = zero3_predict (0, 0, 1, 0);
  g_assert_cmpint (tensors->program->zero3_calls, ==, 12);
  /* with per-rank list collectives, each of the 12 calls also copies 2 pieces (2 ranks),
   * one kernel each at the stack's per-kernel cost, and the copies move the collective's
   * bytes: 3 passes for a gather (the zeroed buffer, PyTorch's copy out of its flat
   * buffer: read + write), 2 for a reduce-scatter (the copy into the flat input) at
   * the device's HBM bandwidth x mem_efficiency */
  g_autoptr (SimPrediction) copies = zero3_predict (0, 0, 1, 1);
  const ProgProgram *pf = fsdp->program, *pt = tensors->program;
  g_assert_cmpuint (pf->tasks->len, ==, pt->tasks->len);
  g_assert_cmpuint (copies->program->tasks->len, ==, pt->tasks->len);
  SimOptions so;
  sim_options_init (&so, tensors->cluster);
  const double launch = so.cost.launch_overhead_s;
  g_assert_cmpfloat (launch, >, 0);
  int checked = 0;
  for (guint i = 0; i < pt->tasks->len; i++)
    {
      const ProgTask *t = prog_task (pt, i);
      if (t->kind != PROG_TASK_COLL || t->comm != PROG_COMM_DP || t->mb < 0 || t->layer < 0)
        continue;
      double flat = fsdp->result->times[i].end_s - fsdp->result->times[i].start_s;
      double split = tensors->result->times[i].end_s - tensors->result->times[i].start_s;
      /* latency = NCCL base + (n - 1) steps x the NVLink alpha for 2 ranks in a server:
       * recover it from the cost model's figure for this group */
      SimCostOptions o;
      sim_cost_options_init (&o, tensors->cluster);
      g_autoptr (SimCost) cost = sim_cost_new (tensors->cluster, tensors->layout, &o);
      double lat = sim_cost_latency_s (cost, (PlanColl) t->coll, (PlanAxis) t->axis);
      g_assert_cmpfloat (lat, >, 0);
      g_assert_cmpfloat_with_epsilon (split - flat, 11 * lat, 1e-12 + 1e-9 * split);
      double copied = copies->result->times[i].end_s - copies->result->times[i].start_s;
      const double passes = t->coll == PLAN_COLL_ALL_GATHER ? 3.0 : 2.0;
      const double hbm = tensors->cluster->device.hbm_Bps * o.mem_efficiency;
      g_assert_cmpfloat (hbm, >, 0);
      g_assert_cmpfloat_with_epsilon (copied - split, 12 * 2 * launch + passes * t->bytes / hbm,
                                      1e-12 + 1e-9 * copied);
      checked++;
    }
  g_assert_cmpint (checked, ==, 3 * L);

  /* prefetch of 5e7 parameters, under one layer: the forward gather of layer l > 0
   * waits for the compute of layer l - 1 (a dependency on a compute task of that
   * layer), where the layer prefetch lets it start after layer l - 2 */
  g_autoptr (SimPrediction) serial = zero3_predict (5e7, 0, 0, 0);
  for (int pass = 0; pass < 2; pass++)
    {
      const ProgProgram *prog = pass ? serial->program : fsdp->program;
      int waits_prev = 0, gathers = 0;
      for (guint i = 0; i < prog->tasks->len; i++)
        {
          const ProgTask *t = prog_task (prog, i);
          if (t->kind != PROG_TASK_COLL || t->comm != PROG_COMM_DP
              || t->coll != PLAN_COLL_ALL_GATHER || t->phase != PROG_PHASE_FORWARD
              || t->layer < 2)
            continue;
          gathers++;
          const guint32 *deps = prog_task_deps (prog, t);
          for (guint d = 0; d < t->n_deps; d++)
            {
              const ProgTask *dt = prog_task (prog, deps[d]);
              waits_prev += dt->kind == PROG_TASK_COMPUTE && dt->layer == t->layer - 1;
            }
        }
      g_assert_cmpint (gathers, ==, L - 2);
      g_assert_cmpint (waits_prev, ==, pass ? L - 2 : 0);
    }
  /* and the step is longer without the prefetch */
  g_assert_cmpfloat (serial->result->step_time_s, >, kept->result->step_time_s);
}

/* The recompute of a layer gathered without prefetch (DeepSpeed 2021) reads its
 * parameters: its first task waits for the layer's first backward gather, so the gather
 * no longer hides under the recompute. With the layer prefetch (FSDP) it does not wait. */
static void
test_zero3_recompute_waits (void)
{
  const int L = 24;
  for (int pass = 0; pass < 2; pass++)
    {
      /* pass 0: DeepSpeed's 5e7 prefetch (under a layer's 50,358,272 parameters) and
       * the re-gather after the recompute; pass 1: FSDP's layer prefetch */
      g_autoptr (SimPrediction) p = pass == 0 ? zero3_predict (5e7, 5e7, 0, 0)
                                              : zero3_predict (-1, -1, -1, -1);
      const ProgProgram *prog = p->program;
      int waiting = 0, recomputed = 0;
      for (int layer = 0; layer < L; layer++)
        {
          gint32 first_ag = -1, first_rc = -1;
          for (guint i = 0; i < prog->tasks->len; i++)
            {
              const ProgTask *t = prog_task (prog, i);
              if (t->layer != layer || t->mb != 0)
                continue;
              if (first_ag < 0 && t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_DP
                  && t->coll == PLAN_COLL_ALL_GATHER && t->phase == PROG_PHASE_BACKWARD)
                first_ag = (gint32) i;
              if (first_rc < 0 && t->kind == PROG_TASK_COMPUTE
                  && t->phase == PROG_PHASE_RECOMPUTE)
                first_rc = (gint32) i;
            }
          g_assert_cmpint (first_ag, >=, 0);
          g_assert_cmpint (first_rc, >=, 0);
          recomputed++;
          const ProgTask *rc = prog_task (prog, (guint) first_rc);
          const guint32 *deps = prog_task_deps (prog, rc);
          gboolean dep = FALSE;
          for (guint d = 0; d < rc->n_deps; d++)
            dep |= deps[d] == (guint32) first_ag;
          waiting += dep;
          if (dep)   /* and the simulated times honour it */
            g_assert_cmpfloat (p->result->times[first_rc].start_s, >=,
                               p->result->times[first_ag].end_s);
        }
      g_assert_cmpint (recomputed, ==, L);
      g_assert_cmpint (waiting, ==, pass == 0 ? L : 0);
    }
}

/* The DP stream's order in the backward (program.c gather_ahead): task ids on a stream
 * are its order. With the next layer's gather issued ahead (Megatron-FSDP, the stack's
 * default), for each layer l = 23 .. 1 the gather of layer l - 1 precedes the
 * reduce-scatter of layer l; the gather of layer l < 22 has one dependency, the last
 * backward compute of layer l + 2 (two layers before it in the backward), and that of
 * layer 22, issued during layer 23 (the first of the backward), none; the recompute
 * of each layer waits for its gather (24 of 24). Issued at its own turn, each gather of
 * layer l - 1 follows the reduce-scatter of layer l and no recompute waits (the test
 * above). Same gathers either way: 2 x 24. */
static void
test_zero3_gather_ahead (void)
{
  const int L = 24;
  for (int ahead = 0; ahead < 2; ahead++)
    {
      g_autoptr (SimPrediction) p = zero3_predict_ahead (-1, -1, -1, -1, ahead ? -1 : 0);
      const ProgProgram *prog = p->program;
      int ag_n, rs_n;
      count_zero3 (prog, &ag_n, &rs_n);
      g_assert_cmpint (ag_n, ==, 2 * L);
      g_assert_cmpint (rs_n, ==, L);
      gint32 ag[24], rs[24], rc[24], bwd_last[24];
      for (int l = 0; l < L; l++)
        ag[l] = rs[l] = rc[l] = bwd_last[l] = -1;
      for (guint i = 0; i < prog->tasks->len; i++)
        {
          const ProgTask *t = prog_task (prog, i);
          if (t->mb != 0 || t->layer < 0 || t->layer >= L)
            continue;
          if (t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_DP
              && t->phase == PROG_PHASE_BACKWARD)
            {
              if (t->coll == PLAN_COLL_ALL_GATHER)
                ag[t->layer] = (gint32) i;
              else if (t->coll == PLAN_COLL_REDUCE_SCATTER)
                rs[t->layer] = (gint32) i;
            }
          if (t->kind == PROG_TASK_COMPUTE && t->phase == PROG_PHASE_RECOMPUTE
              && rc[t->layer] < 0)
            rc[t->layer] = (gint32) i;
          if (t->kind == PROG_TASK_COMPUTE && t->phase == PROG_PHASE_BACKWARD)
            bwd_last[t->layer] = (gint32) i;
        }
      int waiting = 0;
      for (int l = L - 1; l >= 0; l--)
        {
          g_assert_cmpint (ag[l], >=, 0);
          g_assert_cmpint (rs[l], >=, 0);
          if (l > 0)
            {
              if (ahead)
                g_assert_cmpint (ag[l - 1], <, rs[l]);
              else
                g_assert_cmpint (ag[l - 1], >, rs[l]);
            }
          const ProgTask *rt = prog_task (prog, (guint) rc[l]);
          const guint32 *deps = prog_task_deps (prog, rt);
          for (guint d = 0; d < rt->n_deps; d++)
            waiting += deps[d] == (guint32) ag[l];
          if (ahead && l < L - 1)
            {
              const ProgTask *at = prog_task (prog, (guint) ag[l]);
              const guint32 *ad = prog_task_deps (prog, at);
              if (l == L - 2)
                g_assert_cmpint (at->n_deps, ==, 0);
              else
                {
                  g_assert_cmpint (at->n_deps, ==, 1);
                  g_assert_cmpint (ad[0], ==, (guint32) bwd_last[l + 2]);
                }
            }
        }
      g_assert_cmpint (waiting, ==, ahead ? L : 0);
    }
}

/* torchao Float8 tensor parallelism gathers in fp8: uniform-8 (hidden 1024) at tp 2 with
 * SP, one micro-batch of 2048 tokens: an activation is 2048 x 1024 x 2 B = 4,194,304 B.
 * With the TP all-gathers in fp8 (an FP8 plan), a layer's all-gathers (forward input,
 * backward gradient, re-gather) move 2048 x 1024 x 1 B = 2,097,152 B and its
 * reduce-scatters still 4,194,304 B; the output layer's gather (layer -1) stays bf16. A
 * bf16 plan, or the flag off, moves 4,194,304 B in every one; the default stack's (-1:
 * megatron-core, whose Transformer Engine layers gather FP8 too) as the flag on. */
static void
tp_bytes_recipe (PlanPrecision dtype, int fp8_ag, int recipe, double *layer_ag,
                 double *layer_rs, double *head_ag)
{
  Case c;
  case_init_tp2_sp (&c);
  c.plan.compute_dtype = dtype;
  c.plan.tp_all_gather_fp8 = fp8_ag;
  c.plan.fp8_recipe = recipe;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  *layer_ag = *layer_rs = *head_ag = -1;
  for (guint i = 0; i < p->program->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p->program, i);
      if (t->kind != PROG_TASK_COLL || t->comm != PROG_COMM_TP)
        continue;
      double *slot = t->coll == PLAN_COLL_ALL_GATHER ? (t->layer >= 0 ? layer_ag : head_ag)
                     : t->coll == PLAN_COLL_REDUCE_SCATTER && t->layer >= 0 ? layer_rs : NULL;
      if (slot == NULL)
        continue;
      /* every collective of a kind moves the same bytes */
      if (*slot >= 0)
        g_assert_cmpfloat (*slot, ==, t->bytes);
      *slot = t->bytes;
    }
  case_clear (&c);
}

static void
tp_bytes (PlanPrecision dtype, int fp8_ag, double *layer_ag, double *layer_rs, double *head_ag)
{
  tp_bytes_recipe (dtype, fp8_ag, -1, layer_ag, layer_rs, head_ag);
}

static void
test_tp_all_gather_fp8 (void)
{
  double ag, rs, head;
  tp_bytes (PLAN_PREC_FP8, 1, &ag, &rs, &head);
  g_assert_cmpfloat (ag, ==, 2097152.0);
  g_assert_cmpfloat (rs, ==, 4194304.0);
  g_assert_cmpfloat (head, ==, 4194304.0);
  tp_bytes (PLAN_PREC_BF16, 1, &ag, &rs, &head);
  g_assert_cmpfloat (ag, ==, 4194304.0);
  tp_bytes (PLAN_PREC_FP8, 0, &ag, &rs, &head);
  g_assert_cmpfloat (ag, ==, 4194304.0);
  tp_bytes (PLAN_PREC_FP8, -1, &ag, &rs, &head);
  g_assert_cmpfloat (ag, ==, 2097152.0);
  g_assert_cmpfloat (rs, ==, 4194304.0);
  /* the stack's FP8 gather covers the per-tensor recipes (delayed, tensorwise); a
   * block-scaled plan (1x128 / 128x128 blockwise) or torchao's rowwise gathers bf16 */
  tp_bytes_recipe (PLAN_PREC_FP8, -1, FW_SCALING_CURRENT, &ag, &rs, &head);
  g_assert_cmpfloat (ag, ==, 2097152.0);
  tp_bytes_recipe (PLAN_PREC_FP8, -1, FW_SCALING_BLOCKWISE, &ag, &rs, &head);
  g_assert_cmpfloat (ag, ==, 4194304.0);
  tp_bytes_recipe (PLAN_PREC_FP8, -1, FW_SCALING_ROWWISE, &ag, &rs, &head);
  g_assert_cmpfloat (ag, ==, 4194304.0);
}

/* FSDP's float8 all-gather: uniform-8 (hidden 1024, SwiGLU ffn 2816, 16 heads with 16 KV
 * heads) under ZeRO-3 on 2 ranks. A layer's linear weights are q, k, v, o 4 x 1024 x 1024
 * = 4,194,304 and gate, up, down 3 x 1024 x 2816 = 8,650,752: 12,845,056, gathered at
 * 1 B instead of bf16's 2 B, so each layer's gather moves 12,845,056 B less; its norms
 * stay bf16. A bf16 plan with the flag gathers as without it. */
static double
layer_gather_bytes (PlanPrecision dtype, gboolean fp8_ag)
{
  Case c;
  case_init_zero3_dp2 (&c, NULL);
  c.plan.compute_dtype = dtype;
  c.plan.fsdp_float8_all_gather = fp8_ag;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  double bytes = -1;
  for (guint i = 0; i < p->program->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p->program, i);
      if (t->kind != PROG_TASK_COLL || t->comm != PROG_COMM_DP
          || t->coll != PLAN_COLL_ALL_GATHER || t->layer < 0)
        continue;
      if (bytes >= 0)
        g_assert_cmpfloat (bytes, ==, t->bytes);   /* every layer's gather alike */
      bytes = t->bytes;
    }
  case_clear (&c);
  return bytes;
}

static void
test_fsdp_float8_all_gather (void)
{
  const double bf16 = layer_gather_bytes (PLAN_PREC_FP8, FALSE);
  g_assert_cmpfloat (bf16, >, 2 * 12845056.0);
  g_assert_cmpfloat (layer_gather_bytes (PLAN_PREC_FP8, TRUE), ==, bf16 - 12845056.0);
  g_assert_cmpfloat (layer_gather_bytes (PLAN_PREC_BF16, TRUE),
                     ==, layer_gather_bytes (PLAN_PREC_BF16, FALSE));
}

/* The distributed optimizer's parameter gather with fp8 weights (plan.h
 * fp8_param_gather, Megatron --fp8-param-gather): uniform-8 on 2 ranks under ZeRO-1. Each
 * layer's linear weights, 12,845,056 (as above), travel at 1 B instead of 2: the step's
 * DP all-gathers move 8 x 12,845,056 = 102,760,448 B less; the embedding, head and norms
 * stay bf16. Without the flag, with bf16 GEMMs or with a block-scaled recipe (blockwise),
 * the same bytes. */
static double
zero1_gather_bytes (PlanPrecision dtype, int fp8_pg, int recipe)
{
  Case c;
  case_init_zero3_dp2 (&c, NULL);
  c.plan.sharding = PLAN_SHARD_ZERO1;
  c.plan.compute_dtype = dtype;
  c.plan.fp8_param_gather = fp8_pg;
  c.plan.fp8_recipe = recipe;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  double bytes = 0;
  for (guint i = 0; i < p->program->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p->program, i);
      if (t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_DP
          && t->coll == PLAN_COLL_ALL_GATHER)
        bytes += t->bytes;
    }
  case_clear (&c);
  return bytes;
}

static void
test_fp8_param_gather (void)
{
  const double bf16 = zero1_gather_bytes (PLAN_PREC_FP8, 0, -1);
  g_assert_cmpfloat (bf16, >, 2 * 8 * 12845056.0);
  g_assert_cmpfloat (zero1_gather_bytes (PLAN_PREC_FP8, 1, -1), ==, bf16 - 102760448.0);
  g_assert_cmpfloat (zero1_gather_bytes (PLAN_PREC_FP8, 1, FW_SCALING_CURRENT), ==,
                     bf16 - 102760448.0);
  g_assert_cmpfloat (zero1_gather_bytes (PLAN_PREC_FP8, 1, FW_SCALING_BLOCKWISE), ==, bf16);
  g_assert_cmpfloat (zero1_gather_bytes (PLAN_PREC_BF16, 1, -1), ==,
                     zero1_gather_bytes (PLAN_PREC_BF16, 0, -1));
}

/* The functional collectives' re-laying copies (plan.h tp_seq_copies; plan/program-blocks.c
 * tp_seq_copy): uniform-8 (hidden 1,024) at TP 2 with SP, one sequence of 2,048 tokens.
 * D: a copy of the whole gathered (or to-be-scattered) 2,048 x 1,024 tensor in bf16,
 * read and written, is 2 x 2 B x 2,048 x 1,024 = 8,388,608 B. Per layer each of the two
 * blocks has one all-gather and one reduce-scatter each way: forward 4 copies,
 * backward 4. Compiled, the backward's input-gradient reduce-scatter is re-laid by the
 * sum that produces it: backward 2. With async TP (TP-comm overlap) only those two are
 * left, and not when compiled. The step is longer by at least the copies' bytes at the
 * HBM roofline where nothing else moves (8 layers x 8 x 8,388,608 B = 536,870,912 B at
 * h100-24k's 3,350 GB/s x 0.90: 0.178 ms; the copies sit on the compute stream). */
static void
seq_copies (int on, gboolean compile, gboolean overlap, int *n_fwd, int *n_bwd, double *step)
{
  Case c;
  case_init_tp2_sp (&c);
  c.plan.tp_seq_copies = on;
  c.plan.compile = compile;
  c.plan.tp_comm_overlap = overlap;
  if (overlap)
    c.plan.tp_grad_rs_whole = 1;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *pg = p->program;
  *n_fwd = *n_bwd = 0;
  for (guint i = 0; i < pg->tasks->len; i++)
    {
      const ProgTask *t = prog_task (pg, i);
      if (t->kind != PROG_TASK_COMPUTE || t->layer < 0)
        continue;
      const ProgBlock *b = prog_block (pg, t->block);
      for (guint32 o = b->first_op; o < b->first_op + b->n_ops; o++)
        {
          const ModelOp *op = &g_array_index (pg->ops, ModelOp, o);
          if (op->name == NULL || !g_str_equal (op->name, "tp_seq_copy"))
            continue;
          g_assert_cmpuint (op->elements, ==, 8388608);
          if (t->phase == PROG_PHASE_BACKWARD)
            (*n_bwd)++;
          else
            (*n_fwd)++;
        }
    }
  *step = p->result->step_time_s;
  case_clear (&c);
}

static void
test_tp_seq_copies (void)
{
  int nf, nb;
  double off, on, step;
  seq_copies (0, FALSE, FALSE, &nf, &nb, &off);
  g_assert_cmpint (nf + nb, ==, 0);
  seq_copies (1, FALSE, FALSE, &nf, &nb, &on);
  g_assert_cmpint (nf, ==, 8 * 4);
  g_assert_cmpint (nb, ==, 8 * 4);
  g_assert_cmpfloat (on - off, >=, 536870912.0 / (3350e9 * 0.90) * 0.999);
  seq_copies (1, TRUE, FALSE, &nf, &nb, &step);
  g_assert_cmpint (nf, ==, 8 * 4);
  g_assert_cmpint (nb, ==, 8 * 2);
  seq_copies (1, FALSE, TRUE, &nf, &nb, &step);
  g_assert_cmpint (nf, ==, 0);
  g_assert_cmpint (nb, ==, 8 * 2);
  seq_copies (1, TRUE, TRUE, &nf, &nb, &step);
  g_assert_cmpint (nf + nb, ==, 0);
}

/* The backward's input-gradient reduce-scatter under TP-comm overlap: uniform-8 (hidden
 * 1024) at tp 2 with SP and one micro-batch of 2048 tokens; an activation is 2048 x 1024 x
 * 2 B = 4,194,304 B. The overlapped path of Transformer Engine (0) runs a block as 4
 * pieces: forward 8 layers x 2 blocks x 4 pieces = 64 reduce-scatters of 4,194,304 / 4 =
 * 1,048,576 B, and the backward with the pieces' own 64 more of 1,048,576 B. PyTorch's
 * async TP (1) decomposes into tp = 2 pieces (test_async_tp_pieces): forward 8 x 2 x 2 =
 * 32 of 2,097,152 B; backward whole, 8 x 2 = 16 of 4,194,304 B, each after its block's
 * rest (its only dependency a compute task of the same layer and phase). The bytes per
 * direction are the same, 16 x 4,194,304 = 67,108,864 B; only when they can move changes
 * (the two steps differ in their pieces too, so they are not compared). */
static void
tp_grad_rs (int whole, int *n_fwd, double *fwd_bytes, int *n_bwd, double *bwd_bytes,
            gboolean *after_block, double *step)
{
  Case c;
  case_init_tp2_sp (&c);
  c.plan.tp_comm_overlap = TRUE;
  c.plan.tp_grad_rs_whole = whole;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *pg = p->program;
  *n_fwd = *n_bwd = 0;
  *fwd_bytes = *bwd_bytes = 0;
  *after_block = TRUE;
  for (guint i = 0; i < pg->tasks->len; i++)
    {
      const ProgTask *t = prog_task (pg, i);
      if (t->kind != PROG_TASK_COLL || t->comm != PROG_COMM_TP
          || t->coll != PLAN_COLL_REDUCE_SCATTER || t->layer < 0)
        continue;
      if (t->phase == PROG_PHASE_FORWARD)
        {
          (*n_fwd)++;
          *fwd_bytes += t->bytes;
          continue;
        }
      (*n_bwd)++;
      *bwd_bytes += t->bytes;
      g_assert_cmpuint (t->n_deps, ==, 1);
      const ProgTask *d = prog_task (pg, prog_task_deps (pg, t)[0]);
      if (d->kind != PROG_TASK_COMPUTE || d->layer != t->layer || d->phase != t->phase)
        *after_block = FALSE;
    }
  *step = p->result->step_time_s;
  case_clear (&c);
}

static void
test_tp_grad_rs_whole (void)
{
  int nf, nb;
  double fb, bb, step_pieces, step_whole;
  gboolean after;
  tp_grad_rs (0, &nf, &fb, &nb, &bb, &after, &step_pieces);
  g_assert_cmpint (nf, ==, 64);
  g_assert_cmpfloat (fb, ==, 64 * 1048576.0);
  g_assert_cmpint (nb, ==, 64);
  g_assert_cmpfloat (bb, ==, 67108864.0);
  tp_grad_rs (1, &nf, &fb, &nb, &bb, &after, &step_whole);
  g_assert_cmpint (nf, ==, 32);
  g_assert_cmpfloat (fb, ==, 64 * 1048576.0);
  g_assert_cmpint (nb, ==, 16);
  g_assert_cmpfloat (bb, ==, 67108864.0);
  g_assert_true (after);
  g_assert_cmpfloat (step_whole, >, 0);
  g_assert_cmpfloat (step_pieces, >, 0);
}

/* Async TP as PyTorch decomposes it (plan/program.c async_tp_split), TP 2 with SP, one
 * sequence of 2048 tokens of uniform-8 (hidden 1,024, SwiGLU ffn 2,816, 16 heads of 64,
 * 16 KV heads), with the stack's whole backward input-gradient reduce-scatter:
 *  - tp = 2 pieces per block, each on 2,048 / 2 = 1,024 tokens;
 *  - a forward piece holds the fused GEMMs only: the attention's qkv (m 1,024, n (16 +
 *    2 x 16) x 64 / 2 = 1,536, k 1,024) and attn_out (m 1,024, n 1,024, k 8 x 64 = 512),
 *    the MLP's mlp_up (n 2 x 2,816 / 2 = 2,816, k 1,024) and mlp_down (n 1,024, k 1,408);
 *    a backward piece the row-parallel data gradient alone, attn_out_dgrad (m 1,024,
 *    n 512, k 1,024) and mlp_down_dgrad (n 1,408, k 1,024);
 *  - forward reduce-scatters: 2 pieces x 2 blocks x 8 layers = 32, each 1,024 x 1,024 x
 *    2 B = 2,097,152 B; backward: one per block, 16, each 4,194,304 B;
 *  - each forward TP all-gather waits for the block's rest (no GEMM in it: norm, RoPE,
 *    core, residual), not for the block before;
 *  - after each forward block's last reduce-scatter one sum of the pulled partials: 16
 *    tasks of 2 x 2,048 x 1,024 x (1 + 1/2) = 6,291,456 B read and written, each after a
 *    reduce-scatter. */
static void
test_async_tp_pieces (void)
{
  Case c;
  case_init_tp2_sp (&c);
  c.plan.tp_comm_overlap = c.plan.async_tp = TRUE;
  c.plan.tp_grad_rs_whole = 1;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *pg = p->program;
  int n_rs_f = 0, n_rs_b = 0, n_ag_f = 0, n_reduce = 0, n_piece_f = 0, n_piece_b = 0;
  for (guint i = 0; i < pg->tasks->len; i++)
    {
      const ProgTask *t = prog_task (pg, i);
      if (t->layer < 0)
        continue;
      if (t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_TP
          && t->coll == PLAN_COLL_REDUCE_SCATTER)
        {
          const gboolean f = t->phase == PROG_PHASE_FORWARD;
          f ? n_rs_f++ : n_rs_b++;
          g_assert_cmpfloat (t->bytes, ==, f ? 2097152.0 : 4194304.0);
          continue;
        }
      if (t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_TP
          && t->coll == PLAN_COLL_ALL_GATHER && t->phase == PROG_PHASE_FORWARD)
        {
          n_ag_f++;
          g_assert_cmpuint (t->n_deps, ==, 1);
          const ProgTask *d = prog_task (pg, prog_task_deps (pg, t)[0]);
          g_assert_cmpint (d->kind, ==, PROG_TASK_COMPUTE);
          const ProgBlock *b = prog_block (pg, d->block);
          g_assert_cmpuint (b->n_ops, >, 0);
          for (guint32 o = b->first_op; o < b->first_op + b->n_ops; o++)
            g_assert_cmpint (g_array_index (pg->ops, ModelOp, o).kind, !=, MODEL_OP_GEMM);
          continue;
        }
      if (t->kind != PROG_TASK_COMPUTE)
        continue;
      const ProgBlock *b = prog_block (pg, t->block);
      const ModelOp *op0 = b->n_ops > 0 ? &g_array_index (pg->ops, ModelOp, b->first_op) : NULL;
      if (g_str_equal (b->name, "async_tp_reduce"))
        {
          n_reduce++;
          g_assert_cmpuint (b->n_ops, ==, 1);
          g_assert_cmpuint (op0->elements, ==, 6291456);
          g_assert_cmpuint (t->n_deps, ==, 1);
          const ProgTask *d = prog_task (pg, prog_task_deps (pg, t)[0]);
          g_assert_true (d->kind == PROG_TASK_COLL && d->coll == PLAN_COLL_REDUCE_SCATTER);
          continue;
        }
      if (op0 == NULL || op0->kind != MODEL_OP_GEMM || op0->m != 1024)
        continue;
      if (t->phase == PROG_PHASE_FORWARD)
        {
          n_piece_f++;
          g_assert_cmpuint (b->n_ops, ==, 2);
          const ModelOp *op1 = &g_array_index (pg->ops, ModelOp, b->first_op + 1);
          if (g_str_equal (op0->name, "qkv"))
            {
              g_assert_cmpuint (op0->n, ==, 1536);
              g_assert_cmpuint (op0->k, ==, 1024);
              g_assert_cmpstr (op1->name, ==, "attn_out");
              g_assert_cmpuint (op1->n, ==, 1024);
              g_assert_cmpuint (op1->k, ==, 512);
            }
          else
            {
              g_assert_cmpstr (op0->name, ==, "mlp_up");
              g_assert_cmpuint (op0->n, ==, 2816);
              g_assert_cmpstr (op1->name, ==, "mlp_down");
              g_assert_cmpuint (op1->k, ==, 1408);
            }
        }
      else if (t->phase == PROG_PHASE_BACKWARD)
        {
          n_piece_b++;
          g_assert_cmpuint (b->n_ops, ==, 1);
          if (g_str_equal (op0->name, "attn_out_dgrad"))
            g_assert_cmpuint (op0->n, ==, 512);
          else
            {
              g_assert_cmpstr (op0->name, ==, "mlp_down_dgrad");
              g_assert_cmpuint (op0->n, ==, 1408);
            }
        }
    }
  g_assert_cmpint (n_rs_f, ==, 32);
  g_assert_cmpint (n_rs_b, ==, 16);
  g_assert_cmpint (n_ag_f, ==, 32);
  g_assert_cmpint (n_reduce, ==, 16);
  g_assert_cmpint (n_piece_f, ==, 32);
  g_assert_cmpint (n_piece_b, ==, 32);
  case_clear (&c);
}

/* The PP 2 ZeRO-2 case of 8 layers with overlapped reduction, one bucket per layer, its
 * reductions after each stage's last backward (after_stage 1) or per bucket (0). */
static void
case_init_pp_buckets (Case *c, int after_stage)
{
  case_init_pp2_zero2 (c, 8);
  c->plan.overlap_grad_reduce = TRUE;
  c->plan.bucket_elements = 0;   /* bytes, as a plan file's bucket_bytes gives them */
  c->plan.bucket_bytes = 1;
  c->plan.pp_grad_after_stage = after_stage;
}

/* Gradient reduction under PP, once per step (ZeRO-2 with per-step sync, as torchtitan's
 * FSDP2 under torch.distributed.pipelining): uniform-8 on pp 2 x dp 2, 4 micro-batches of
 * one sample, 1F1B, overlap_grad_reduce on, buckets of 1 B so that every layer is a
 * bucket of its own: stage 1 has 4 (layers 7 with the head, 6, 5, 4), stage 0 has 5
 * (layers 3, 2, 1, 0, then the embedding), 9 reductions. 1F1B ends each stage with
 * micro-batch 3's backward; its last compute task is layer 4's on stage 1 and the
 * embedding's on stage 0. Per bucket (0): a bucket leaves when its own layer's last
 * backward is done, so only 2 wait for that last task (layer 4's and the embedding's
 * buckets). After the stage (1): all 9 wait for it. */
static void
pp_grad_reductions (int after_stage, int *n, int *at_end)
{
  Case c;
  case_init_pp_buckets (&c, after_stage);
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *pg = p->program;
  *n = *at_end = 0;
  for (int s = 0; s < pg->n_stages; s++)
    {
      const ProgStage *st = &pg->stages[s];
      guint32 last_bwd = G_MAXUINT32;
      for (guint32 i = st->first; i < st->first + st->n_tasks; i++)
        {
          const ProgTask *t = prog_task (pg, i);
          /* (not FSDP2's post_backward wait, an empty block: test below) */
          if (t->kind == PROG_TASK_COMPUTE && t->phase == PROG_PHASE_BACKWARD
              && prog_block (pg, t->block)->n_ops > 0)
            last_bwd = i;
        }
      g_assert_cmpuint (last_bwd, !=, G_MAXUINT32);
      g_assert_cmpint (prog_task (pg, last_bwd)->mb, ==, 3);
      for (guint32 i = st->first; i < st->first + st->n_tasks; i++)
        {
          const ProgTask *t = prog_task (pg, i);
          if (t->kind != PROG_TASK_COLL || t->comm != PROG_COMM_DP || t->mb != -1
              || t->phase != PROG_PHASE_BACKWARD)
            continue;
          (*n)++;
          g_assert_cmpuint (t->n_deps, ==, 1);
          if (prog_task_deps (pg, t)[0] == last_bwd)
            (*at_end)++;
        }
    }
  case_clear (&c);
}

static void
test_pp_grad_after_stage (void)
{
  int n, at_end;
  pp_grad_reductions (0, &n, &at_end);
  g_assert_cmpint (n, ==, 9);
  g_assert_cmpint (at_end, ==, 2);
  pp_grad_reductions (1, &n, &at_end);
  g_assert_cmpint (n, ==, 9);
  g_assert_cmpint (at_end, ==, 9);
}

/* FSDP2's post_backward under torch.distributed.pipelining (program.c
 * post_backward_wait), on the case above (uniform-8, pp 2 x dp 2, 4 micro-batches, 1F1B,
 * every layer a bucket of its own). Stage 1 (model chunk 1: layers 4-7 and the head)
 * issues its 4 reduce-scatters after micro-batch 3's backward in backward order (layer 7
 * with the head, 6, 5, 4); each group's post_backward makes the compute stream wait for
 * the previous group's reduce-scatter, so the stream passes the last post_backward once
 * the third (layer 5's) is done: one empty compute task waits for it, and the send of
 * micro-batch 3's input gradient to stage 0 waits for that task. Stage 0 (model chunk 0)
 * has no send after its last backward and gets no wait. Timing, by hand: stage 0's
 * backward of micro-batch 3 needs that gradient, so its first compute task starts no
 * earlier than the end of stage 1's third reduce-scatter, which itself starts no earlier
 * than stage 1's last backward compute ends plus the two reduce-scatters before it
 * (the reductions of a stage run one after another on its dp stream), i.e. the wait is
 * at least the sum of the first three durations. Without after_stage: no wait task. */
static void
pp_post_backward_wait (int after_stage, int *n_wait)
{
  Case c;
  case_init_pp_buckets (&c, after_stage);
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *pg = p->program;
  const SimTaskTime *tt = p->result->times;
  g_assert_nonnull (tt);
  *n_wait = 0;
  gint32 wait = -1, red[8], bwd0 = -1, last1 = -1;
  int n_red = 0;
  for (int s = 0; s < pg->n_stages; s++)
    {
      const ProgStage *st = &pg->stages[s];
      for (guint32 i = st->first; i < st->first + st->n_tasks; i++)
        {
          const ProgTask *t = prog_task (pg, i);
          if (t->kind == PROG_TASK_COMPUTE && prog_block (pg, t->block)->n_ops == 0)
            {
              g_assert_cmpint (s, ==, 1);
              (*n_wait)++;
              wait = (gint32) i;
            }
          else if (s == 1 && t->kind == PROG_TASK_COMPUTE && t->phase == PROG_PHASE_BACKWARD
                   && t->mb == 3 && wait < 0)
            last1 = (gint32) i;
          else if (s == 1 && t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_DP
                   && t->mb == -1 && t->phase == PROG_PHASE_BACKWARD)
            {
              g_assert_cmpint (n_red, <, (int) G_N_ELEMENTS (red));
              red[n_red++] = (gint32) i;
            }
          else if (s == 0 && bwd0 < 0 && t->kind == PROG_TASK_COMPUTE
                   && t->phase == PROG_PHASE_BACKWARD && t->mb == 3)
            bwd0 = (gint32) i;
        }
    }
  g_assert_cmpint (n_red, ==, 4);
  if (*n_wait == 1)
    {
      const ProgTask *w = prog_task (pg, (guint32) wait);
      const guint32 *d = prog_task_deps (pg, w);
      g_assert_cmpuint (w->n_deps, ==, 2);
      g_assert_cmpuint (d[0], ==, (guint32) last1);
      g_assert_cmpuint (d[1], ==, (guint32) red[2]);
      g_assert_cmpint (prog_task (pg, (guint32) red[2])->layer, ==, 5);
      /* the send of micro-batch 3's gradient waits for it */
      gboolean found = FALSE;
      for (guint32 i = (guint32) wait + 1; i < pg->tasks->len && !found; i++)
        {
          const ProgTask *t = prog_task (pg, i);
          if (t->kind == PROG_TASK_SEND && t->stage == 1 && t->mb == 3)
            {
              g_assert_cmpuint (t->n_deps, >=, 1);
              g_assert_cmpuint (prog_task_deps (pg, t)[0], ==, (guint32) wait);
              found = TRUE;
            }
        }
      g_assert_true (found);
      double three = 0;
      for (int k = 0; k < 3; k++)
        three += tt[red[k]].end_s - tt[red[k]].start_s;
      g_assert_cmpfloat (three, >, 0);
      g_assert_cmpfloat (tt[bwd0].start_s, >=, tt[red[2]].end_s);
      g_assert_cmpfloat (tt[red[2]].end_s, >=, tt[last1].end_s + three - 1e-12);
    }
  case_clear (&c);
}

static void
test_pp_post_backward_wait (void)
{
  int n_wait;
  pp_post_backward_wait (1, &n_wait);
  g_assert_cmpint (n_wait, ==, 1);
  pp_post_backward_wait (0, &n_wait);
  g_assert_cmpint (n_wait, ==, 0);
}

/* FSDP2's unsharded gradient accumulation (plan.h grad_accum_upcast): uniform-8 on pp 2 x
 * dp 2, ZeRO-2 reduced once per step. A layer holds 12,847,104 parameters (q, k, v, o
 * 4 x 1024^2 = 4,194,304; gate, up, down 3 x 1024 x 2816 = 8,650,752; 2 norms of 1024).
 * With 4 micro-batches each of the 8 layers' backward is followed by one accumulation task
 * per micro-batch, 32 in all: micro-batch 0's upcast (8), the others' add (24), each over
 * 12,847,104 elements and waiting on its own layer and micro-batch's backward. With one
 * micro-batch (nothing to accumulate) or the flag off there are none. */
static void
grad_accum_tasks (int flag, int gbs, int *upcast, int *accum)
{
  Case c;
  case_init_pp2_zero2 (&c, gbs);
  c.plan.grad_accum_upcast = flag;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *pg = p->program;
  *upcast = *accum = 0;
  for (guint i = 0; i < pg->tasks->len; i++)
    {
      const ProgTask *t = prog_task (pg, i);
      if (t->kind != PROG_TASK_COMPUTE)
        continue;
      const ProgBlock *blk = prog_block (pg, t->block);
      if (blk->kind != PROG_BLOCK_GRAD_ACCUM)
        continue;
      g_assert_cmpuint (blk->n_ops, ==, 1);
      const ModelOp *op = &g_array_index (pg->ops, ModelOp, blk->first_op);
      g_assert_cmpuint (op->elements, ==, 12847104);
      g_assert_cmpint (t->phase, ==, PROG_PHASE_BACKWARD);
      if (g_str_equal (op->name, "fsdp_grad_upcast"))
        {
          g_assert_cmpint (t->mb, ==, 0);
          (*upcast)++;
        }
      else
        {
          g_assert_cmpstr (op->name, ==, "fsdp_grad_accum");
          g_assert_cmpint (t->mb, >, 0);
          (*accum)++;
        }
      g_assert_cmpuint (t->n_deps, ==, 1);
      const ProgTask *d = prog_task (pg, prog_task_deps (pg, t)[0]);
      g_assert_cmpint (d->layer, ==, t->layer);
      g_assert_cmpint (d->mb, ==, t->mb);
      g_assert_cmpint (d->phase, ==, PROG_PHASE_BACKWARD);
    }
  case_clear (&c);
}

static void
test_grad_accum_upcast (void)
{
  int up, acc;
  grad_accum_tasks (1, 8, &up, &acc);
  g_assert_cmpint (up, ==, 8);
  g_assert_cmpint (acc, ==, 24);
  grad_accum_tasks (1, 2, &up, &acc);
  g_assert_cmpint (up + acc, ==, 0);
  grad_accum_tasks (0, 8, &up, &acc);
  g_assert_cmpint (up + acc, ==, 0);
}

/* FSDP2's copies around its collectives (plan.h zero3_copy_in_out): uniform-8 under ZeRO-3
 * on 2 ranks, one micro-batch, no recompute. A layer holds 12,847,104 parameters, gathered
 * in bf16: 25,694,208 B; the copy out of the all-gather buffer reads and writes them,
 * 51,388,416 B, once after the forward's gather and once before the backward's (2 x 8
 * tasks); the copy into the reduce-scatter reads the bf16 gradients and writes fp32 (the
 * plan's gradient dtype), 12,847,104 x 6 = 77,082,624 B, once per layer (8 tasks), and
 * that reduce-scatter waits for it. The flag off: no copies, and the step is shorter.
 * Megatron-FSDP without gradient-accumulation fusion (plan.h zero3_grad_copy_in) has the
 * copy-in alone: the same 8 copies of 77,082,624 B before the 8 reduce-scatters, no copy
 * out (Megatron-FSDP gathers into the buffer the layer computes from), and a longer step
 * than without copies. */
static void
fsdp_copies (int flag, int grad_copy_in, int *out, int *in, int *rs_after_copy, double *step)
{
  Case c;
  case_init_zero3_dp2 (&c, NULL);
  c.plan.zero3_copy_in_out = flag;
  c.plan.zero3_grad_copy_in = grad_copy_in;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *pg = p->program;
  *out = *in = *rs_after_copy = 0;
  for (guint i = 0; i < pg->tasks->len; i++)
    {
      const ProgTask *t = prog_task (pg, i);
      if (t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_DP
          && t->coll == PLAN_COLL_REDUCE_SCATTER && t->layer >= 0)
        {
          g_assert_cmpuint (t->n_deps, ==, 1);
          const ProgTask *d = prog_task (pg, prog_task_deps (pg, t)[0]);
          if (d->kind == PROG_TASK_COMPUTE
              && g_str_equal (prog_block (pg, d->block)->name, "fsdp_copy_in"))
            (*rs_after_copy)++;
        }
      if (t->kind != PROG_TASK_COMPUTE)
        continue;
      const ProgBlock *blk = prog_block (pg, t->block);
      if (blk->kind != PROG_BLOCK_GRAD_ACCUM)
        continue;
      const ModelOp *op = &g_array_index (pg->ops, ModelOp, blk->first_op);
      g_assert_cmpstr (op->name, ==, "fsdp_copy");
      if (g_str_equal (blk->name, "fsdp_copy_out"))
        {
          g_assert_cmpuint (op->elements, ==, 51388416);
          (*out)++;
        }
      else
        {
          g_assert_cmpstr (blk->name, ==, "fsdp_copy_in");
          g_assert_cmpuint (op->elements, ==, 77082624);
          (*in)++;
        }
    }
  *step = p->result->step_time_s;
  case_clear (&c);
}

static void
test_zero3_copy_in_out (void)
{
  int out, in, rs;
  double with, without, in_only;
  fsdp_copies (1, 0, &out, &in, &rs, &with);
  g_assert_cmpint (out, ==, 16);
  g_assert_cmpint (in, ==, 8);
  g_assert_cmpint (rs, ==, 8);
  fsdp_copies (0, 0, &out, &in, &rs, &without);
  g_assert_cmpint (out + in + rs, ==, 0);
  g_assert_cmpfloat (with, >, without);
  fsdp_copies (0, 1, &out, &in, &rs, &in_only);
  g_assert_cmpint (out, ==, 0);
  g_assert_cmpint (in, ==, 8);
  g_assert_cmpint (rs, ==, 8);
  g_assert_cmpfloat (in_only, >, without);
  g_assert_cmpfloat (in_only, <, with);
}

/* sim_plan_apply_stack: every stack-dependent field the plan leaves unset (-1 from
 * plan_init_defaults) takes the stack's figure, a field the plan sets is kept, and with
 * no options (NULL) the unset fields take "none of it" (0). `tandem run` builds its step
 * program through the same call, so it runs the program its prediction simulates. */
static void
test_plan_apply_stack (void)
{
  Plan p;
  plan_init_defaults (&p);
  g_assert_cmpfloat (p.zero3_prefetch_params, <, 0);
  g_assert_cmpint (p.zero3_gather_ahead, <, 0);
  SimCostOptions co = { 0 };
  co.zero3_prefetch_params = 5e8;
  co.zero3_reuse_params = 1e9;
  co.zero3_per_tensor = TRUE;
  co.zero3_rank_copies = TRUE;
  co.zero3_gather_ahead = TRUE;
  co.zero2_grad_per_mb = TRUE;
  co.fp8_tp_all_gather = TRUE;
  co.tp_grad_rs_whole = TRUE;
  co.pp_grad_after_stage = TRUE;
  co.grad_accum_upcast = TRUE;
  co.zero3_copy_in_out = TRUE;
  co.zero2_reduce_passes = TRUE;
  co.loss_eager = TRUE;
  co.pp_free_stage_input = TRUE;
  co.pp_p2p_sync = TRUE;
  p.zero3_rank_copies = 0;            /* set by the plan: kept */
  sim_plan_apply_stack (&p, &co);
  g_assert_cmpfloat (p.zero3_prefetch_params, ==, 5e8);
  g_assert_cmpfloat (p.zero3_reuse_params, ==, 1e9);
  g_assert_cmpint (p.zero3_per_tensor, ==, 1);
  g_assert_cmpint (p.zero3_rank_copies, ==, 0);
  g_assert_cmpint (p.zero3_gather_ahead, ==, 1);
  g_assert_cmpint (p.zero2_grad_sync, ==, 1);
  g_assert_cmpint (p.tp_all_gather_fp8, ==, 1);
  g_assert_cmpint (p.tp_grad_rs_whole, ==, 1);
  g_assert_cmpint (p.pp_grad_after_stage, ==, 1);
  g_assert_cmpint (p.grad_accum_upcast, ==, 1);
  g_assert_cmpint (p.zero3_copy_in_out, ==, 1);
  g_assert_cmpint (p.zero2_reduce_passes, ==, 1);
  g_assert_cmpint (p.loss_eager, ==, 1);
  g_assert_cmpint (p.pp_free_stage_input, ==, 1);
  g_assert_cmpint (p.pp_p2p_sync, ==, 1);
  plan_clear (&p);

  /* a once-a-step ZeRO-2 stack (torchtitan's, from torch.distributed.pipelining) syncs
   * once a step under a pipeline only: at pp 1 torchtitan's train_step reduce-scatters
   * every micro-batch's gradients (the once-a-step reading held the whole unsharded fp32
   * gradient at pp 1) */
  {
    SimCostOptions once = co;
    once.zero2_grad_per_mb = FALSE;
    Plan q;
    plan_init_defaults (&q);
    q.pp = 1;
    sim_plan_apply_stack (&q, &once);
    g_assert_cmpint (q.zero2_grad_sync, ==, 1);
    plan_clear (&q);
    plan_init_defaults (&q);
    q.pp = 4;
    sim_plan_apply_stack (&q, &once);
    g_assert_cmpint (q.zero2_grad_sync, ==, 0);
    plan_clear (&q);
  }

  /* the megatron-lm-2021 stack's every-exchange sync (2) and scatter-gather sends reach
   * a plan that leaves them unset, and a plan's own 0 stays */
  Plan r;
  plan_init_defaults (&r);
  SimCostOptions co2 = co;
  co2.pp_p2p_sync = 2;
  co2.pp_scatter_gather = TRUE;
  sim_plan_apply_stack (&r, &co2);
  g_assert_cmpint (r.pp_p2p_sync, ==, 2);
  g_assert_cmpint (r.pp_scatter_gather, ==, 1);
  plan_clear (&r);
  plan_init_defaults (&r);
  r.pp_scatter_gather = 0;
  sim_plan_apply_stack (&r, &co2);
  g_assert_cmpint (r.pp_scatter_gather, ==, 0);
  plan_clear (&r);

  /* a stack whose model code drops nothing (llm-foundry) turns the model's dropout (-1)
   * off in every command that applies the stack, not only in validate; a plan that says
   * dropout on keeps it, and a stack without the key leaves the model's */
  SimCostOptions co3 = { 0 };
  co3.no_dropout = TRUE;
  plan_init_defaults (&r);
  g_assert_cmpint (r.dropout, ==, -1);
  sim_plan_apply_stack (&r, &co2);
  g_assert_cmpint (r.dropout, ==, -1);
  sim_plan_apply_stack (&r, &co3);
  g_assert_cmpint (r.dropout, ==, 0);
  plan_clear (&r);
  plan_init_defaults (&r);
  r.dropout = 1;
  sim_plan_apply_stack (&r, &co3);
  g_assert_cmpint (r.dropout, ==, 1);
  plan_clear (&r);

  Plan q;
  plan_init_defaults (&q);
  sim_plan_apply_stack (&q, NULL);
  g_assert_cmpfloat (q.zero3_prefetch_params, ==, 0);
  g_assert_cmpfloat (q.zero3_reuse_params, ==, 0);
  g_assert_cmpint (q.zero3_per_tensor, ==, 0);
  g_assert_cmpint (q.zero3_gather_ahead, ==, 0);
  g_assert_cmpint (q.zero2_grad_sync, ==, 0);
  g_assert_cmpint (q.tp_all_gather_fp8, ==, 0);
  g_assert_cmpint (q.tp_grad_rs_whole, ==, 0);
  g_assert_cmpint (q.pp_grad_after_stage, ==, 0);
  g_assert_cmpint (q.grad_accum_upcast, ==, 0);
  g_assert_cmpint (q.zero3_copy_in_out, ==, 0);
  g_assert_cmpint (q.zero2_reduce_passes, ==, 0);
  g_assert_cmpint (q.loss_eager, ==, 0);
  g_assert_cmpint (q.pp_free_stage_input, ==, 0);
  g_assert_cmpint (q.pp_p2p_sync, ==, 0);
  g_assert_cmpint (q.pp_scatter_gather, ==, 0);
  plan_clear (&q);
}

/* Compute beside an NCCL collective runs on the SMs its CTAs leave (sim_cost_coll_sms).
 * DP 8 in one H100 server (h100-24k: 132 SMs), ZeRO-1 with the gradient reduce-scatter
 * overlapped with the backward: a ring reduce-scatter inside one NVLink domain holds
 * nccl_ctas_nvlink = 24 CTAs (NCCL's 12 search channels duplicated, sim/cost.c), so a
 * compute kernel beside it runs on 108 SMs: 132 / 108 = 1 + 24 / 108 = 11/9 times as
 * long while it runs. A kernel of b seconds alone that starts r seconds before the
 * collective ends takes 11/9 b if that is at most r, else r + (b - 9/11 r): r at 9/11
 * of its rate, the rest at full rate.
 * The reference is the same step with no CTAs: up to the first compute kernel that starts
 * beside a collective both timelines are the same, so its start, its alone duration b
 * and the collective's end are read from the reference; with 24 CTAs its duration must
 * be the one derived above. */
static void
test_compute_beside_nccl (void)
{
  Case c;
  case_init (&c, NULL);
  c.plan.world_size = 8;
  c.plan.global_batch = 32;
  c.plan.sharding = PLAN_SHARD_ZERO1;
  c.plan.overlap_grad_reduce = TRUE;
  g_autoptr (GError) error = NULL;
  g_assert_true (plan_resolve (&c.plan, c.model, c.cluster, &error));
  SimOptions opts[2];
  SimPrediction *p[2];
  for (int k = 0; k < 2; k++)
    {
      sim_options_init (&opts[k], c.cluster);
      g_assert_cmpfloat (opts[k].cost.comm_compute_slowdown, ==, 0);
      g_assert_cmpfloat (opts[k].cost.nccl_ctas_nvlink, ==, 24);
      if (k == 0)
        opts[k].cost.nccl_ctas_nvlink = 0;
      opts[k].keep_timeline = TRUE;
      opts[k].full_simulation = TRUE;
      p[k] = sim_predict (c.model, &c.plan, c.cluster, &opts[k], &error);
      g_assert_no_error (error);
    }
  const ProgProgram *prog = p[0]->program;
  const SimTaskTime *ref = p[0]->result->times, *got = p[1]->result->times;
  /* the first compute kernel (by start) that starts while a DP reduce-scatter runs */
  guint32 first = G_MAXUINT32, coll = G_MAXUINT32;
  for (guint32 i = 0; i < prog->tasks->len; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      if (t->kind != PROG_TASK_COMPUTE || (first != G_MAXUINT32
                                           && ref[i].start_s >= ref[first].start_s))
        continue;
      for (guint32 j = 0; j < prog->tasks->len; j++)
        {
          const ProgTask *u = prog_task (prog, j);
          if (u->kind == PROG_TASK_COLL && u->stage == t->stage && u->comm == PROG_COMM_DP
              && ref[j].start_s < ref[i].start_s && ref[j].end_s > ref[i].start_s)
            {
              g_assert_cmpint (u->coll, ==, PLAN_COLL_REDUCE_SCATTER);
              first = i, coll = j;
            }
        }
    }
  g_assert_cmpuint (first, !=, G_MAXUINT32);
  const double b = ref[first].end_s - ref[first].start_s;
  const double r = ref[coll].end_s - ref[first].start_s;
  const double want = 11.0 / 9.0 * b <= r ? 11.0 / 9.0 * b : r + (b - 9.0 / 11.0 * r);
  g_test_message ("compute %.6f ms alone, collective ends %.6f ms after its start: "
                  "%.6f ms beside it (derived %.6f)", b * 1e3, r * 1e3,
                  (got[first].end_s - got[first].start_s) * 1e3, want * 1e3);
  g_assert_cmpfloat (got[first].start_s, ==, ref[first].start_s);
  g_assert_cmpfloat (want, >, b * 1.01);   /* the case shows a slowdown */
  g_assert_cmpfloat_with_epsilon (got[first].end_s - got[first].start_s, want, 2e-12);
  /* Every compute kernel of the step with 24 CTAs against the same rule: b is the
   * duration of its block where it started with no collective running (one block, one
   * duration alone), r from the collective running when it started (DP 8, TP 1, PP 1:
   * the DP collectives are the only kernels beside compute). Both cases of the rule
   * occur: slowed throughout, and slowed until the collective ends. */
  const SimTaskTime *tt = got;
  GHashTable *alone = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  for (int pass = 0; pass < 2; pass++)
    {
      int n_whole = 0, n_part = 0;
      for (guint32 i = 0; i < prog->tasks->len; i++)
        {
          const ProgTask *t = prog_task (prog, i);
          if (t->kind != PROG_TASK_COMPUTE || tt[i].end_s <= tt[i].start_s)
            continue;
          guint32 j = G_MAXUINT32;
          for (guint32 k = 0; k < prog->tasks->len; k++)
            {
              const ProgTask *u = prog_task (prog, k);
              if (u->kind == PROG_TASK_COLL && u->stage == t->stage
                  && tt[k].end_s > tt[k].start_s && tt[k].start_s < tt[i].start_s
                  && tt[k].end_s > tt[i].start_s)
                {
                  g_assert_cmpuint (j, ==, G_MAXUINT32);   /* one at a time here */
                  j = k;
                }
            }
          const double d = tt[i].end_s - tt[i].start_s;
          gpointer key = GUINT_TO_POINTER (t->block + 1);
          if (j == G_MAXUINT32)
            {
              if (pass == 0 && !g_hash_table_contains (alone, key))
                g_hash_table_insert (alone, key, g_memdup2 (&d, sizeof d));
              continue;
            }
          const double *bp = g_hash_table_lookup (alone, key);
          if (pass == 0 || bp == NULL)
            continue;
          const double bb = *bp, rr = tt[j].end_s - tt[i].start_s;
          const gboolean whole = 11.0 / 9.0 * bb <= rr;
          const double w = whole ? 11.0 / 9.0 * bb : rr + (bb - 9.0 / 11.0 * rr);
          g_assert_cmpfloat_with_epsilon (d, w, 4e-12);
          n_whole += whole;
          n_part += !whole;
        }
      if (pass == 1)
        {
          g_test_message ("%d kernels slowed throughout, %d until the collective ended",
                          n_whole, n_part);
          g_assert_cmpint (n_whole, >, 0);
          g_assert_cmpint (n_part, >, 0);
        }
    }
  g_hash_table_unref (alone);
  /* and the whole step is longer, by at most 24/108 of the compute */
  g_assert_cmpfloat (p[1]->result->step_time_s, >, p[0]->result->step_time_s);
  g_assert_cmpfloat (p[1]->result->step_time_s - p[0]->result->step_time_s, <=,
                     24.0 / 108.0 * p[0]->result->compute_s);
  for (int k = 0; k < 2; k++)
    sim_prediction_free (p[k]);
  case_clear (&c);
}

/* The pipeline-synchronize tests' step: the uniform 8-layer model on pp stages of one GPU
 * each, vpp model chunks a stage, the schedule, global batch gbs (micro-batch 1),
 * plan.pp_p2p_sync = sync, free communication and optimizer, the host's re-issue time
 * after a synchronize L; ideal: free embedding and head too (ideal_pipeline). marked[s]
 * (pp entries): stage s's tasks marked host_sync, each asserted to be a compute task. */
static SimPrediction *
sync_case_predict (int pp, int vpp, PlanSchedule sched, int gbs, int sync, double L,
                   gboolean ideal, int *marked)
{
  Case c;
  case_init (&c, NULL);
  c.plan.world_size = pp;
  c.plan.pp = pp;
  c.plan.vpp = vpp;
  c.plan.schedule = sched;
  c.plan.schedule_set = TRUE;
  c.plan.global_batch = gbs;
  c.plan.pp_p2p_sync = sync;
  SimOptions opts;
  sim_options_init (&opts, c.cluster);
  opts.cost.free_comm = TRUE;
  opts.cost.free_optimizer = TRUE;
  opts.ideal_pipeline = ideal;
  opts.cost.pp_sync_reissue_s = L;
  SimPrediction *p = case_predict_with (&c, &opts);
  for (int s = 0; s < pp; s++)
    marked[s] = 0;
  for (guint32 i = 0; i < p->program->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p->program, i);
      if (t->host_sync)
        {
          g_assert_cmpint (t->kind, ==, PROG_TASK_COMPUTE);
          marked[t->stage]++;
        }
    }
  case_clear (&c);
  return p;
}

/* Megatron-Core's torch.cuda.synchronize after each batched exchange of the non-
 * interleaved 1F1B (plan.h pp_p2p_sync), on 2 equal stages, m = 2, free communication and
 * optimizer, free embedding and head (ideal), every forward f and backward b; L the host's
 * re-issue time after a synchronize (set to 100 us here, b > L).
 * Without the sync (textbook 1F1B): stage 0 runs F0 [0, f], F1 [f, 2f], B0 after stage 1's
 * B0 [2f + b, 2f + 2b], B1 after stage 1's B1 [3f + 2b, 3f + 3b]; stage 1 runs F0 [f, 2f],
 * B0 [2f, 2f + b], F1 [2f + b, 3f + b], B1 [3f + b, 3f + 2b]: step 3f + 3b.
 * With it, a synchronize sits between two units where the first sends or the second
 * receives; the next unit's first kernel runs L after everything before it and the
 * exchange are done. Stage 0 (sends after F, receives before B): F1 at f + L, ends 2f + L;
 * B0 waits for stage 1's gradient, then L: starts max (2f + L, 2f + b) + L = 2f + b + L,
 * ends 2f + 2b + L. Stage 1 (receives before F, sends after B; no call between its F and B):
 * F0 [f, 2f], B0 [2f, 2f + b], F1 after B0's send and stage 0's F1 (2f + L):
 * max (2f + b, 2f + L) + L = 2f + b + L, ends 3f + b + L; B1 ends 3f + 2b + L, its send
 * synchronized before the optimizer (free) at 3f + 2b + 2L. Stage 0's B1 waits for that
 * gradient (3f + 2b + L) and L: ends 3f + 3b + 2L, the step. So the sync costs 2L here. */
static void
test_pp_p2p_sync (void)
{
  const double L = 100e-6;
  double step[2], compute[2];
  for (int sync = 0; sync < 2; sync++)
    {
      /* the program: a unit's first compute task after a synchronize is marked, 3 on
       * stage 0 (F1, B0, B1), 2 on stage 1 (F1, the optimizer) */
      int marked[2];
      g_autoptr (SimPrediction) p = sync_case_predict (2, 1, PLAN_SCHED_1F1B, 2, sync, L, TRUE,
                                                       marked);
      step[sync] = p->result->step_time_s;
      compute[sync] = p->result->compute_s;
      g_assert_cmpint (marked[0], ==, sync ? 3 : 0);
      g_assert_cmpint (marked[1], ==, sync ? 2 : 0);
    }
  /* one stage's compute is m (f + b) = 2 (f + b); with b >= f / 2, b >= (f + b) / 3 > L */
  g_assert_cmpfloat (compute[0] / 2 / 3, >, L);
  g_assert_cmpfloat_with_epsilon (step[0], compute[0] * 3 / 2, 1e-9);
  g_assert_cmpfloat_with_epsilon (compute[1], compute[0], 1e-9);
  g_assert_cmpfloat_with_epsilon (step[1], step[0] + 2 * L, 1e-9);
}

/* Megatron-LM before Megatron-Core synchronized the device after every exchange of the
 * interleaved schedule too (plan.h pp_p2p_sync 2, the megatron-lm-2021 stack's
 * "every_exchange"; megatron/schedules.py forward_backward_pipelining_with_interleaving of
 * 2021-22 calls _communicate, which ends in torch.cuda.synchronize, after each warm-up
 * forward, each steady-state (forward, backward) pair and each cool-down backward).
 * pp 2, V 2, m 4 on the uniform 8-layer model (2 layers a model chunk): the warm-up is
 * 2 (pp - s - 1) + (V - 1) pp units, 4 on stage 0 and 2 on stage 1, of m V = 8 forwards;
 * each stage runs 16 units: the warm-up forwards, 8 - warm-up (forward, backward) pairs,
 * then the warm-up's count of backwards. A unit waits for a synchronize unless it is the
 * backward of a pair: stage 0: 15 units after the first, less 4 pairs' backwards = 11,
 * stage 1: 15 - 6 = 9; and the last backward's exchange is synchronized before the
 * optimizer, whose task is marked too: 12 and 10 first compute tasks marked host_sync.
 * Megatron-Core's sync (pp_p2p_sync 1) leaves the interleaved schedule alone (its
 * overlap_p2p_comm): none marked. The synchronized step is longer than the unsynchronized
 * one, and each marked unit starts at least the re-issue time L after the synchronize. */
static void
test_pp_p2p_sync_interleaved (void)
{
  const double L = 100e-6;
  double step[3];
  for (int sync = 0; sync < 3; sync++)
    {
      int marked[2];
      g_autoptr (SimPrediction) p = sync_case_predict (2, 2, PLAN_SCHED_INTERLEAVED_1F1B, 4, sync,
                                                       L, FALSE, marked);
      step[sync] = p->result->step_time_s;
      g_assert_cmpint (marked[0], ==, sync == 2 ? 12 : 0);
      g_assert_cmpint (marked[1], ==, sync == 2 ? 10 : 0);
    }
  g_assert_cmpfloat_with_epsilon (step[1], step[0], 1e-12);
  g_assert_cmpfloat (step[2], >, step[0] + L);
}

/* Megatron-LM's scatter-gather pipeline sends (plan.h pp_scatter_gather;
 * megatron/p2p_communication.py before Megatron-Core), on 2 stages, tp 2, 1F1B, m = 2,
 * micro-batch 1 of 2048 tokens, hidden 1024, bf16. The boundary tensor is
 * [2048, 1024] x 2 bytes = 4194304 bytes. Without SP and with scatter-gather each TP rank
 * sends 4194304 / tp = 2097152 bytes, and every receive is followed by an all-gather of
 * the whole 4194304 bytes over the TP group, which the receive is a dependency of: stage
 * 1's 2 forward receives and stage 0's 2 backward receives, 4 all-gathers. Off: 4194304
 * bytes a send and no TP all-gather at all (without SP a layer all-reduces only). With SP
 * the boundary is already split (2048 / 2 tokens: 2097152 bytes) and Megatron skips the
 * scatter-gather: the same program with the flag as without. */
static void
test_pp_scatter_gather (void)
{
  static const struct { int sg; gboolean sp; double wire; int gathers; } cases[] = {
    { 0, FALSE, 4194304.0, 0 }, { 1, FALSE, 2097152.0, 4 },
    { 0, TRUE, 2097152.0, -1 }, { 1, TRUE, 2097152.0, -1 },
  };
  guint n_tasks[4];
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Case c;
      case_init (&c, NULL);
      c.plan.world_size = 4;
      c.plan.tp = 2;
      c.plan.pp = 2;
      c.plan.sequence_parallel = cases[i].sp;
      c.plan.seq_length = 2048;
      c.plan.micro_batch = 1;
      c.plan.schedule = PLAN_SCHED_1F1B;
      c.plan.schedule_set = TRUE;
      c.plan.global_batch = 2;
      c.plan.pp_scatter_gather = cases[i].sg;
      g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
      g_assert_cmpfloat (p->result->step_time_s, >, 0.0);
      int sends = 0, recvs = 0, gathers = 0, tp_gathers = 0;
      for (guint32 k = 0; k < p->program->tasks->len; k++)
        {
          const ProgTask *t = prog_task (p->program, k);
          if ((t->kind == PROG_TASK_SEND || t->kind == PROG_TASK_RECV) && t->bytes > 0)
            {
              g_assert_cmpfloat (t->bytes, ==, cases[i].wire);
              *(t->kind == PROG_TASK_SEND ? &sends : &recvs) += 1;
            }
          if (t->kind != PROG_TASK_COLL || t->coll != PLAN_COLL_ALL_GATHER
              || t->axis != PLAN_AXIS_TP)
            continue;
          tp_gathers++;
          const guint32 *deps = prog_task_deps (p->program, t);
          for (guint32 d = 0; d < t->n_deps; d++)
            if (prog_task (p->program, deps[d])->kind == PROG_TASK_RECV)
              {
                g_assert_cmpfloat (t->bytes, ==, 4194304.0);
                gathers++;
                break;   /* (with Megatron-Core's batch_p2p_sync it may wait on two) */
              }
        }
      g_assert_cmpint (sends, ==, 4);
      g_assert_cmpint (recvs, ==, 4);
      if (!cases[i].sp)
        {
          g_assert_cmpint (gathers, ==, cases[i].gathers);
          g_assert_cmpint (tp_gathers, ==, cases[i].gathers);
        }
      n_tasks[i] = p->program->tasks->len;
      case_clear (&c);
    }
  /* scatter-gather adds just the 4 all-gathers without SP, nothing with it */
  g_assert_cmpuint (n_tasks[1], ==, n_tasks[0] + 4);
  g_assert_cmpuint (n_tasks[3], ==, n_tasks[2]);
}


/* ---- CPU activation offload (program.h; TE's OffloadSynchronizer) --------------------- */

/* The host link figures: the GB300 preset gives NVLink-C2C 450 GB/s per direction shared
 * by the 2 GPUs of one Grace, 450 / 2 = 225 GB/s; h100-24k gives none, so the Gen5
 * default applies: 16 lanes x 32 GT/s x 128/130 / 8 = 63.015 GB/s; a V100 part Gen3:
 * 16 x 8 x 128/130 / 8 = 15.754 GB/s. */
static void
test_offload_host_link (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) gb300 = topo_cluster_lookup ("gb300-nvl72-superpod", &error);
  g_assert_no_error (error);
  const char *src = NULL;
  g_assert_cmpfloat_with_epsilon (sim_cost_host_link_Bps (gb300, &src), 225e9, 1);
  g_assert_nonnull (strstr (src, "NVLink-C2C"));
  g_autoptr (TopoCluster) h100 = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (sim_cost_host_link_Bps (h100, &src), 16 * 32e9 * 128 / 130 / 8,
                                  1);
  g_assert_nonnull (strstr (src, "Gen5"));
  g_autoptr (TopoCluster) v100 = topo_cluster_lookup ("dgx-2h-v100-cluster", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (sim_cost_host_link_Bps (v100, NULL), 16 * 8e9 * 128 / 130 / 8,
                                  1);
  /* a device that names its link: 64 GB/s shared by 4 devices -> 16 GB/s each */
  const char *json = "{\"name\":\"x\",\"device\":{\"name\":\"X\",\"peak_tflops\":{\"bf16\":100},"
                     "\"hbm_GB\":80, \"hbm_GBps\": 1000,\"host_link_GBps\":64,\"host_link_devices\":4},"
                     "\"levels\":[{\"name\":\"server\",\"count\":8,\"bw_GBps\":100}]}";
  g_autoptr (TopoCluster) x = topo_cluster_new_from_data (json, -1, "x.json", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (sim_cost_host_link_Bps (x, NULL), 16e9, 1);
  /* no device shares nothing */
  g_autofree char *bad = g_strdup (json);
  memcpy (strstr (bad, "\"host_link_devices\":4") + strlen ("\"host_link_devices\":"), "0", 1);
  g_autoptr (TopoCluster) y = topo_cluster_new_from_data (bad, -1, "bad.json", &error);
  g_assert_null (y);
  g_assert_nonnull (error);
}

/* The default host link of a device whose preset names none comes from its row in
 * sim/cost.c's device table (architecture, Grace), per direction:
 *   A100-SXM4-80GB (Ampere): PCIe Gen4 x16 = 16 lanes x 16 GT/s x 128/130 / 8 = 31.508 GB/s
 *   A800-SXM4-80GB (Ampere): the same 31.508 GB/s
 *   H100-SXM5-80GB (Hopper), B200-SXM-180GB (Blackwell): PCIe Gen5 x16 = 16 x 32 x 128/130
 *     / 8 = 63.015 GB/s
 *   GB200-186GB (Grace Blackwell): NVLink-C2C 450 GB/s per direction / 2 GPUs = 225 GB/s
 *   GH200-96GB (Grace Hopper): 450 / 1 = 450 GB/s
 *   MI300X (no row): Gen5 63.015 GB/s
 * and a cost model copies at that rate: 1 GB over the A100's link = 1e9 / 31.508e9
 * = 31.74 ms. */
static void
test_offload_host_link_arch (void)
{
  static const struct { const char *name; double Bps; const char *src; } cases[] = {
    { "A100-SXM4-80GB", 16 * 16e9 * 128 / 130 / 8, "Gen4" },
    { "A800-SXM4-80GB", 16 * 16e9 * 128 / 130 / 8, "Gen4" },
    { "H100-SXM5-80GB", 16 * 32e9 * 128 / 130 / 8, "Gen5" },
    { "B200-SXM-180GB", 16 * 32e9 * 128 / 130 / 8, "Gen5" },
    { "GB200-186GB", 225e9, "NVLink-C2C" },
    { "GH200-96GB", 450e9, "NVLink-C2C" },
    { "MI300X-192GB", 16 * 32e9 * 128 / 130 / 8, "Gen5" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *json = g_strdup_printf (
          "{\"name\":\"x\",\"device\":{\"name\":\"%s\",\"peak_tflops\":{\"bf16\":100},"
          "\"hbm_GB\":80, \"hbm_GBps\": 1000},\"levels\":[{\"name\":\"server\",\"count\":8,\"bw_GBps\":100}]}",
          cases[i].name);
      g_autoptr (TopoCluster) cl = topo_cluster_new_from_data (json, -1, "x.json", &error);
      g_assert_no_error (error);
      const char *src = NULL;
      g_assert_cmpfloat_with_epsilon (sim_cost_host_link_Bps (cl, &src), cases[i].Bps, 1);
      g_assert_nonnull (strstr (src, cases[i].src));
      if (i == 0)
        {
          g_autoptr (SimCost) cost = sim_cost_new (cl, NULL, NULL);
          g_assert_cmpfloat_with_epsilon (sim_cost_host_copy_s (cost, 1e9), 31.74e-3, 0.01e-3);
        }
    }
}

/* Offloading N = 3 of the 8 layers of uniform-8 on one GPU, 2 micro-batches: per
 * micro-batch 3 device-to-host copies (layers 0, 1, 2, each after its forward) and 3
 * host-to-device copies, each of one layer's stored activations; the forward of layer
 * 8 - 3 + i waits for copy i, the reload of layer i is issued before the backward of
 * layer 8 - 1 - 3 + i = 4 + i (after the backward of layer 5 + i), and the backward of
 * layer i waits for it. */
static void
test_offload_program (void)
{
  Case c;
  case_init (&c, NULL);
  c.plan.world_size = 1;
  c.plan.global_batch = 2;
  c.plan.cpu_offload_layers = 3;
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *prog = p->program;
  PlanMemLayerActs acts;
  plan_memory_layer_activations (c.model, &p->plan, NULL, &acts);
  int copies = 0;
  for (guint i = 0; i < prog->tasks->len; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      if (t->kind != PROG_TASK_COPY)
        continue;
      copies++;
      g_assert_cmpint (t->stream, ==, PROG_STREAM_HOST);
      g_assert_cmpfloat (t->bytes, ==, (double) acts.total);
      g_assert_cmpint (t->layer, >=, 0);
      g_assert_cmpint (t->layer, <, 3);
      const gboolean d2h = t->phase == PROG_PHASE_FORWARD;
      /* the compute task that waits for it: the forward of layer 5 + i, or the backward
       * of layer i; and for a reload, it comes after every backward task of layer 5 + i
       * and before those of layer 4 + i */
      const int waiter = d2h ? 5 + t->layer : t->layer;
      gboolean found = FALSE;
      for (guint j = i + 1; j < prog->tasks->len && !found; j++)
        {
          const ProgTask *u = prog_task (prog, j);
          const guint32 *deps = prog_task_deps (prog, u);
          for (guint k = 0; k < u->n_deps; k++)
            if (deps[k] == i)
              {
                g_assert_cmpint (u->kind, ==, PROG_TASK_COMPUTE);
                g_assert_cmpint (u->layer, ==, waiter);
                g_assert_cmpint (u->mb, ==, t->mb);
                g_assert_cmpint (u->phase, ==, t->phase);
                found = TRUE;
              }
        }
      g_assert_true (found);
      if (!d2h)
        for (guint j = 0; j < prog->tasks->len; j++)
          {
            const ProgTask *u = prog_task (prog, j);
            if (u->kind != PROG_TASK_COMPUTE || u->phase != PROG_PHASE_BACKWARD
                || u->mb != t->mb)
              continue;
            if (u->layer == 5 + t->layer)
              g_assert_cmpuint (j, <, i);
            if (u->layer == 4 + t->layer)
              g_assert_cmpuint (j, >, i);
          }
    }
  g_assert_cmpint (copies, ==, 2 * 3 * 2);
  case_clear (&c);
}

/* With N = L - 1 = 7 there is no window: the forward of layer 1 + i waits for the copy of
 * layer i, which starts when layer i's forward ends, and the reload of layer i starts
 * when the backward of layer i + 1 ends and the backward of layer i waits for it. On one
 * GPU nothing else runs meanwhile, so every copy is exposed: exposed = busy = 2 m N
 * bytes / 63.015 GB/s (h100-24k: the Gen5 default), and the step is the step without
 * offload plus that. */
static void
test_offload_exposed (void)
{
  double step0 = 0;
  for (int n = 0; n <= 7; n += 7)
    {
      Case c;
      case_init (&c, NULL);
      c.plan.world_size = 1;
      c.plan.global_batch = 2;
      c.plan.cpu_offload_layers = n;
      g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
      const SimResult *r = p->result;
      if (n == 0)
        {
          step0 = r->step_time_s;
          g_assert_cmpfloat (r->comm_s[SIM_KIND_OFFLOAD], ==, 0);
          case_clear (&c);
          continue;
        }
      PlanMemLayerActs acts;
      plan_memory_layer_activations (c.model, &p->plan, NULL, &acts);
      const double busy = 2.0 * 2 * 7 * (double) acts.total / (16 * 32e9 * 128 / 130 / 8);
      g_assert_cmpfloat_with_epsilon (r->comm_s[SIM_KIND_OFFLOAD], busy, 1e-9);
      g_assert_cmpfloat_with_epsilon (r->exposed_comm_s[SIM_KIND_OFFLOAD], busy, 1e-9);
      g_assert_cmpfloat_with_epsilon (r->step_time_s, step0 + busy, 1e-9);
      case_clear (&c);
    }
}

/* Llama 3 8B (32 layers), 8 H100s, ZeRO-3, seq 8192, 2 micro-batches, N = 4: a layer's
 * copy (its ~1.14 GB of stored activations at 63 GB/s: ~18 ms) has 32 - 4 - 1 = 27
 * layers of forward (~8 ms each) to finish in, and a reload is issued 27 layers of
 * backward (~16 ms each) before its layer needs it: every copy hides under compute, the
 * host stream is busy 16 copies x ~18 ms and the step does not change. */
static void
test_offload_hidden (void)
{
  double step[2];
  for (int k = 0; k < 2; k++)
    {
      Case c;
      case_init (&c, "llama3-8b");
      c.plan.world_size = 8;
      c.plan.sharding = PLAN_SHARD_ZERO3;
      c.plan.seq_length = 8192;
      c.plan.global_batch = 16;
      c.plan.cpu_offload_layers = 4 * k;
      g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
      step[k] = p->result->step_time_s;
      if (k == 1)
        {
          PlanMemLayerActs acts;
          plan_memory_layer_activations (c.model, &p->plan, NULL, &acts);
          const double one = (double) acts.total / (16 * 32e9 * 128 / 130 / 8);
          g_assert_cmpfloat (one, >, 0.010);
          g_assert_cmpfloat (one, <, 0.030);
          g_assert_cmpfloat_with_epsilon (p->result->comm_s[SIM_KIND_OFFLOAD], 16 * one, 1e-9);
          g_assert_cmpfloat (p->result->exposed_comm_s[SIM_KIND_OFFLOAD], ==, 0);
        }
      case_clear (&c);
    }
  g_assert_cmpfloat_with_epsilon (step[1], step[0], 1e-12);
}

/* The statistics sweep (sim/simulate.c stage_stats) against a reference that needs no
 * stream order, stage by stage: cut the stage's step at every start and end of its tasks;
 * a piece where no compute task of duration > 0 runs is charged to the first kind running
 * then in the order tp, cp, pp, offload, dp, ep (simulate.h), or to the bubble when none
 * runs, and the bubble takes the wait from the stage's last point to the step's end.
 * Busy time is each kind's durations summed. The sums differ from the sweep's in the
 * order of their additions only: equal to 1e-9, relative. */
static int
stats_piece_kind (const ProgProgram *pg, const SimTaskTime *tt, int s, double a, double b)
{
  static const int order[SIM_KINDS] = { PROG_COMM_TP, PROG_COMM_CP, PROG_COMM_PP,
                                        SIM_KIND_OFFLOAD, PROG_COMM_DP, PROG_COMM_EP };
  const ProgStage *st = &pg->stages[s];
  int first = SIM_KINDS;
  for (guint i = st->first; i < st->first + st->n_tasks; i++)
    {
      const ProgTask *t = prog_task (pg, i);
      if (!(tt[i].end_s > tt[i].start_s) || tt[i].start_s > a || tt[i].end_s < b)
        continue;
      if (t->kind == PROG_TASK_COMPUTE)
        return -1;
      int kind = t->kind == PROG_TASK_COPY ? SIM_KIND_OFFLOAD : t->comm;
      for (int r = 0; r < first; r++)
        if (order[r] == kind)
          first = r;
    }
  return first < SIM_KINDS ? order[first] : SIM_KINDS;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
stats_check_stage (const SimPrediction *p, int s)
{
  const ProgProgram *pg = p->program;
  const ProgStage *ps = &pg->stages[s];
  const SimTaskTime *tt = p->result->times;
  g_autoptr (GArray) points = g_array_new (FALSE, FALSE, sizeof (double));
  double zero = 0;                            /* the sweep charges from time 0 */
  g_array_append_val (points, zero);
  double busy[SIM_KINDS + 1] = { 0 };         /* [SIM_KINDS]: compute */
  for (guint i = ps->first; i < ps->first + ps->n_tasks; i++)
    {
      const ProgTask *t = prog_task (pg, i);
      g_array_append_val (points, tt[i].start_s);
      g_array_append_val (points, tt[i].end_s);
      double d = tt[i].end_s - tt[i].start_s;
      if (d > 0)
        busy[t->kind == PROG_TASK_COMPUTE ? SIM_KINDS
             : t->kind == PROG_TASK_COPY ? SIM_KIND_OFFLOAD : t->comm] += d;
    }
  g_array_sort (points, cmp_double);
  double exposed[SIM_KINDS + 1] = { 0 };     /* [SIM_KINDS]: the bubble */
  for (guint j = 1; j < points->len; j++)
    {
      double a = g_array_index (points, double, j - 1), b = g_array_index (points, double, j);
      if (b > a)
        {
          int k = stats_piece_kind (pg, tt, s, a, b);
          if (k >= 0)
            exposed[k] += b - a;
        }
    }
  exposed[SIM_KINDS] += p->result->step_time_s - g_array_index (points, double, points->len - 1);
  const SimStageStats *st = &p->result->stages[s];
  const double tol = 1e-9 * p->result->step_time_s;
  for (int k = 0; k < SIM_KINDS; k++)
    {
      g_assert_cmpfloat (fabs (st->exposed_s[k] - exposed[k]), <=, tol);
      g_assert_cmpfloat (fabs (st->comm_s[k] - busy[k]), <=, tol);
    }
  g_assert_cmpfloat (fabs (st->bubble_s - exposed[SIM_KINDS]), <=, tol);
  g_assert_cmpfloat (fabs (st->compute_s - busy[SIM_KINDS]), <=, tol);
}

/* TP 2 with SP, one micro-batch, whose TP reduce-scatter and the next block's all-gather
 * run back to back on the TP stream (the sweep takes such a start without picking the
 * stream again). */
static void
test_stats_tp_chain (void)
{
  Case c;
  case_init_tp2_sp (&c);
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  const ProgProgram *pg = p->program;
  const SimTaskTime *tt = p->result->times;
  g_assert_nonnull (tt);
  g_assert_cmpint (pg->n_stages, ==, 1);
  /* the TP tasks that start the moment the one before them on the stream ends */
  int chained = 0;
  double prev_end = -1;
  for (guint i = 0; i < pg->tasks->len; i++)
    {
      const ProgTask *t = prog_task (pg, i);
      if (t->stream != PROG_STREAM_TP)
        continue;
      chained += tt[i].start_s == prev_end && tt[i].end_s > tt[i].start_s;
      prev_end = tt[i].end_s;
    }
  g_assert_cmpint (chained, >, 0);
  g_assert_cmpfloat (p->result->stages[0].exposed_s[PROG_COMM_TP], >, 0);
  stats_check_stage (p, 0);
  case_clear (&c);
}

/* The streams other than compute and TP, which the sweep keeps apart from those two
 * (sim/simulate.c stage_stats): PP 2 with ZeRO-2 and 8 micro-batches puts pipeline sends
 * and receives and DP reduce-scatters on each stage, and both stages wait on them. */
static void
test_stats_other_streams (void)
{
  Case c;
  case_init_pp2_zero2 (&c, 8);
  g_autoptr (SimPrediction) p = case_predict (&c, FALSE);
  g_assert_nonnull (p->result->times);
  g_assert_cmpint (p->program->n_stages, ==, 2);
  double pp_busy = 0, dp_busy = 0;
  for (int s = 0; s < 2; s++)
    {
      pp_busy += p->result->stages[s].comm_s[PROG_COMM_PP];
      dp_busy += p->result->stages[s].comm_s[PROG_COMM_DP];
      stats_check_stage (p, s);
    }
  g_assert_cmpfloat (pp_busy, >, 0);
  g_assert_cmpfloat (dp_busy, >, 0);
  case_clear (&c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/simulate/bubble-gpipe-1f1b", test_bubble_gpipe_1f1b);
  g_test_add_func ("/sim/simulate/async-tp-pieces", test_async_tp_pieces);
  g_test_add_func ("/sim/simulate/tp-seq-copies", test_tp_seq_copies);
  g_test_add_func ("/sim/simulate/stats-tp-chain", test_stats_tp_chain);
  g_test_add_func ("/sim/simulate/stats-other-streams", test_stats_other_streams);
  g_test_add_func ("/sim/simulate/bubble-interleaved", test_bubble_interleaved);
  g_test_add_func ("/sim/simulate/interleaved-odd-counts", test_interleaved_odd_counts);
  g_test_add_func ("/sim/simulate/interleaved-group", test_interleaved_group);
  g_test_add_func ("/sim/simulate/compute-bound-dp", test_compute_bound_dp);
  g_test_add_func ("/sim/simulate/overlap-from-dependencies", test_overlap_from_dependencies);
  g_test_add_func ("/sim/simulate/tp-comm-overlap", test_tp_comm_overlap);
  g_test_add_func ("/sim/simulate/deterministic", test_deterministic);
  g_test_add_func ("/sim/simulate/program-variants", test_program_variants);
  g_test_add_func ("/sim/simulate/program-flops", test_program_flops);
  g_test_add_func ("/sim/simulate/oom-still-predicted", test_oom_still_predicted);
  g_test_add_func ("/sim/simulate/fp32-matmul-precision", test_fp32_matmul_precision);
  g_test_add_func ("/sim/simulate/zero3-as-deepspeed", test_zero3_as_deepspeed);
  g_test_add_func ("/sim/simulate/zero3-recompute-waits", test_zero3_recompute_waits);
  g_test_add_func ("/sim/simulate/zero2-per-microbatch", test_zero2_per_microbatch);
  g_test_add_func ("/sim/simulate/zero2-reduce-passes", test_zero2_reduce_passes);
  g_test_add_func ("/sim/simulate/fsdp-predivide-factor", test_fsdp_predivide_factor);
  g_test_add_func ("/sim/simulate/zero3-gather-ahead", test_zero3_gather_ahead);
  g_test_add_func ("/sim/simulate/tp-all-gather-fp8", test_tp_all_gather_fp8);
  g_test_add_func ("/sim/simulate/fsdp-float8-all-gather", test_fsdp_float8_all_gather);
  g_test_add_func ("/sim/simulate/fp8-param-gather", test_fp8_param_gather);
  g_test_add_func ("/sim/simulate/tp-grad-rs-whole", test_tp_grad_rs_whole);
  g_test_add_func ("/sim/simulate/pp-grad-after-stage", test_pp_grad_after_stage);
  g_test_add_func ("/sim/simulate/pp-post-backward-wait", test_pp_post_backward_wait);
  g_test_add_func ("/sim/simulate/grad-accum-upcast", test_grad_accum_upcast);
  g_test_add_func ("/sim/simulate/zero3-copy-in-out", test_zero3_copy_in_out);
  g_test_add_func ("/sim/simulate/plan-apply-stack", test_plan_apply_stack);
  g_test_add_func ("/sim/simulate/compute-beside-nccl", test_compute_beside_nccl);
  g_test_add_func ("/sim/simulate/pp-p2p-sync", test_pp_p2p_sync);
  g_test_add_func ("/sim/simulate/pp-p2p-sync-interleaved", test_pp_p2p_sync_interleaved);
  g_test_add_func ("/sim/simulate/pp-scatter-gather", test_pp_scatter_gather);
  g_test_add_func ("/sim/simulate/offload-host-link", test_offload_host_link);
  g_test_add_func ("/sim/simulate/offload-host-link-arch", test_offload_host_link_arch);
  g_test_add_func ("/sim/simulate/offload-program", test_offload_program);
  g_test_add_func ("/sim/simulate/offload-exposed", test_offload_exposed);
  g_test_add_func ("/sim/simulate/offload-hidden", test_offload_hidden);
  return g_test_run ();
}
