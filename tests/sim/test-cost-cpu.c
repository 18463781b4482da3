/* tests/sim/test-cost-cpu.c - the CPU contention model (sim/cost-cpu.c) and the profile's
 * "contention" object (topology/profile.c), against figures derived by hand.
 *
 * The test host (CPU_JSON): 2 devices on one level, a cpu profile measured by 2 ranks
 * with one FP32 GEMM row (256^3 at 5e10 FLOP/s, launch 2 us) and a contention object:
 * 2 cores, 1 BLAS + 1 progress thread per rank, a 256^3 GEMM 1000 us alone and 1500 us
 * with an all-reduce of 4 MiB in flight (all-reduce 5000 us meanwhile), and the
 * calibrating threads ran 0.8 of the time they were runnable; all-reduce over 2 ranks
 * 1 KiB in 50 us and 1 MiB in 200 us. So the measured
 * slowdown is 1500 / 1000 - 1 = 0.5, and the calibration ran 2 ranks x 1 BLAS thread on
 * 2 cores: share(C_cal, R_cal) = min (1, 2 / 2) = 1. */
#include "sim/cost.h"
#include "sim/predict.h"
#include "cost-ops.h"

#include <math.h>
#include <string.h>

#define HEAD(name, backend)                                                                \
  "{ \"name\": \"" name "\",\n"                                                            \
  "  \"device\": { \"name\": \"" name "\", \"peak_tflops\": { \"fp32\": 0.1, \"bf16\": 0.1 },\n" \
  "              \"hbm_GB\": 16, \"hbm_GBps\": 20, \"launch_overhead_us\": 2 },\n"         \
  "  \"levels\": [ { \"name\": \"host\", \"count\": 2, \"bw_GBps\": 1 } ],\n"              \
  "  \"profile\": { \"source\": \"hand-written\", \"backend\": \"" backend "\", \"ranks\": 2,\n" \
  "    \"gemm\": [ [256, 256, 256, \"fp32\", 5e10] ], \"memory\": { \"triad_GBps\": 10 },\n"    \
  "    \"collectives\": [ [\"all_reduce\", 2, 1024, 50, 0.02, 0.02],\n"                     \
  "                       [\"all_reduce\", 2, 1048576, 200, 5.24, 5.24] ]"

#define CONTENTION(cores)                                                                  \
  ",\n    \"contention\": { \"cores\": " cores ", \"blas_threads\": 1, \"progress_threads\": 1,\n" \
  "      \"gemm_m\": 256, \"gemm_alone_us\": 1000, \"gemm_with_allreduce_us\": 1500,\n"    \
  "      \"allreduce_bytes\": 4194304, \"allreduce_us\": 5000, \"compute_share\": 0.8 }"

static const char cpu_json[] = HEAD ("test-cpu", "cpu") CONTENTION ("2") " } }\n";
/* calibrated with the 2 ranks squeezed onto 1 core */
static const char one_core_json[] = HEAD ("test-cpu1", "cpu") CONTENTION ("1") " } }\n";
/* the same profile without the contention object (a profile from before it) */
static const char plain_json[] = HEAD ("test-cpu0", "cpu") " } }\n";
/* a contention object in a profile that is not the cpu backend's: not applied */
static const char cuda_json[] = HEAD ("test-gpu", "cuda") CONTENTION ("2") " } }\n";

/* two attention rows (FP32, causal, program FLOP counting): 8 heads / 4 KV of head_dim
 * 32 at 256 tokens, 2e9 forward; 2 / 2 heads of head_dim 64 at 512 tokens, 3e9 forward */
#define ATTN_ROWS                                                                          \
  ",\n    \"attention\": [ [1, 8, 4, 256, 256, 32, true, \"fp32\", 2e9, 4e9],\n"              \
  "                     [1, 2, 2, 512, 512, 64, true, \"fp32\", 3e9, 5e9] ]"
static const char cpu_attn_json[] = HEAD ("test-cpu-attn", "cpu") ATTN_ROWS " } }\n";
static const char cuda_attn_json[] = HEAD ("test-gpu-attn", "cuda") ATTN_ROWS " } }\n";

static TopoCluster *
load (const char *text)
{
  g_autoptr (GError) error = NULL;
  TopoCluster *c = topo_cluster_new_from_data (text, -1, "test.json", &error);
  g_assert_no_error (error);
  return c;
}

/* the 256^3 GEMM with the options, as the simulator costs it */
static double
gemm_s (const TopoCluster *c, const SimCostOptions *o)
{
  SimCost *cost = sim_cost_new (c, NULL, o);
  ModelOp op = gemm_op (256, 256, 256);
  const double s = sim_cost_op_s (cost, &op, TOPO_DTYPE_FP32, FALSE);
  sim_cost_free (cost);
  return s;
}

static void
test_load_round_trip (void)
{
  g_autoptr (TopoCluster) c = load (cpu_json);
  const TopoProfileContention *ct = &c->profile->contention;
  g_assert_cmpuint (ct->cores, ==, 2);
  g_assert_cmpuint (ct->blas_threads, ==, 1);
  g_assert_cmpuint (ct->progress_threads, ==, 1);
  g_assert_cmpuint (ct->gemm_m, ==, 256);
  g_assert_cmpfloat_with_epsilon (ct->gemm_alone_s, 1e-3, 1e-15);
  g_assert_cmpfloat_with_epsilon (ct->gemm_coll_s, 1.5e-3, 1e-15);
  g_assert_cmpfloat (ct->coll_bytes, ==, 4194304);
  g_assert_cmpfloat_with_epsilon (ct->coll_s, 5e-3, 1e-15);
  g_assert_cmpfloat_with_epsilon (ct->compute_share, 0.8, 1e-15);

  /* written back and read again: the same figures */
  g_autoptr (JsonNode) node = topo_profile_to_json_node (c->profile);
  TopoProfile *back = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (topo_profile_load (node, "round-trip", &back, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (&back->contention, sizeof back->contention, ct, sizeof *ct);
  topo_profile_free (back);

  /* absent: all zero */
  g_autoptr (TopoCluster) p = load (plain_json);
  g_assert_cmpuint (p->profile->contention.cores, ==, 0);
}

static void
test_load_bad (void)
{
  static const struct {
    const char *contention, *needle;
  } cases[] = {
    { "{ \"cores\": 2 }", "lacks 'blas_threads'" },
    { "{ \"cores\": 0, \"blas_threads\": 1, \"progress_threads\": 1, \"gemm_m\": 256, "
      "\"gemm_alone_us\": 1, \"gemm_with_allreduce_us\": 1, \"allreduce_bytes\": 1, "
      "\"allreduce_us\": 1 }", "profile.contention.cores" },
    { "{ \"cores\": 2, \"blas_threads\": 1, \"progress_threads\": 1.5, \"gemm_m\": 256, "
      "\"gemm_alone_us\": 1, \"gemm_with_allreduce_us\": 1, \"allreduce_bytes\": 1, "
      "\"allreduce_us\": 1 }", "progress_threads" },
    { "{ \"cores\": 2, \"blas_threads\": 1, \"progress_threads\": 1, \"gemm_m\": 256, "
      "\"gemm_alone_us\": -1, \"gemm_with_allreduce_us\": 1, \"allreduce_bytes\": 1, "
      "\"allreduce_us\": 1 }", "gemm_alone_us" },
    { "{ \"cores\": 2, \"blas_threads\": 1, \"progress_threads\": 1, \"gemm_m\": 256, "
      "\"gemm_alone_us\": 1, \"gemm_with_allreduce_us\": 1, \"allreduce_bytes\": 1, "
      "\"allreduce_us\": 1, \"extra\": 3 }", "extra" },
    { "[ 1 ]", "must be an object" },
    { "{ \"cores\": 2, \"blas_threads\": 1, \"progress_threads\": 1, \"gemm_m\": 256, "
      "\"gemm_alone_us\": 1, \"gemm_with_allreduce_us\": 1, \"allreduce_bytes\": 1, "
      "\"allreduce_us\": 1, \"compute_share\": 1.5 }", "fraction in (0, 1]" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf (HEAD ("bad", "cpu") ",\n \"contention\": %s } }",
                                               cases[i].contention);
      g_autoptr (GError) error = NULL;
      g_autoptr (TopoCluster) c = topo_cluster_new_from_data (text, -1, "bad.json", &error);
      g_assert_null (c);
      g_assert_nonnull (error);
      if (strstr (error->message, cases[i].needle) == NULL)
        g_error ("case %u: '%s' lacks '%s'", i, error->message, cases[i].needle);
    }
}

static void
test_model (void)
{
  g_autoptr (TopoCluster) c = load (cpu_json);
  SimCpuContention m;

  /* as calibrated (2 cores, the cluster's 2 ranks): compute share 1 / 1, scale 1; 2 ranks
   * x (1 BLAS + 1 progress) = 4 threads > 2 cores: oversubscribed, slowdown = 0.5 */
  SimCostOptions o;
  sim_cost_options_init (&o, c);
  g_assert_true (sim_cost_cpu_contention (c, &o, &m));
  g_assert_cmpfloat (m.cal_cores, ==, 2);
  g_assert_cmpfloat (m.cal_ranks, ==, 2);
  g_assert_cmpfloat (m.ranks, ==, 2);
  g_assert_cmpfloat (m.threads_per_rank, ==, 2);
  g_assert_cmpfloat_with_epsilon (m.measured_slowdown, 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (m.compute_scale, 1.0, 1e-12);
  g_assert_true (m.oversubscribed);
  g_assert_cmpfloat_with_epsilon (o.comm_compute_slowdown, 0.5, 1e-12);
  /* the GEMM as the profile row alone: 2 x 256^3 / 5e10 + 2 us launch */
  const double base = 2.0 * 256 * 256 * 256 / 5e10 + 2e-6;
  g_assert_cmpfloat_with_epsilon (gemm_s (c, &o), base, 1e-12);

  /* 2 ranks on 1 core: share min (1, 1 / 2) = 1/2, so every compute op takes twice as
   * long (launch included: the core is shared while the call is issued too); still
   * oversubscribed: slowdown 0.5 */
  sim_cost_options_cpu_host (&o, c, 1, 2);
  g_assert_true (sim_cost_cpu_contention (c, &o, &m));
  g_assert_cmpfloat_with_epsilon (m.compute_scale, 2.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (o.comm_compute_slowdown, 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (gemm_s (c, &o), 2.0 * base, 1e-12);

  /* 4 cores for 2 ranks: each of the 2 x 2 threads has a core: scale 1, slowdown 0 (the
   * progress thread's copies no longer take the compute thread's core) */
  sim_cost_options_cpu_host (&o, c, 4, 2);
  g_assert_true (sim_cost_cpu_contention (c, &o, &m));
  g_assert_false (m.oversubscribed);
  g_assert_cmpfloat_with_epsilon (m.compute_scale, 1.0, 1e-12);
  g_assert_cmpfloat (o.comm_compute_slowdown, ==, 0.0);
  g_assert_cmpfloat_with_epsilon (gemm_s (c, &o), base, 1e-12);

  /* 4 ranks on the 2 cores: share 2 / 4 = 1/2: twice as long; 8 threads > 2: 0.5 */
  sim_cost_options_cpu_host (&o, c, 2, 4);
  g_assert_true (sim_cost_cpu_contention (c, &o, &m));
  g_assert_cmpfloat_with_epsilon (m.compute_scale, 2.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (o.comm_compute_slowdown, 0.5, 1e-12);

  /* calibrated with 2 ranks on 1 core (share 1/2), predicted on 2 cores (share 1): the
   * profile's rates were half a core's, so compute takes half as long */
  /* the run measured its own core share: 0.4 of the time runnable against the
   * calibration's 0.8, so compute takes 0.8 / 0.4 = 2x, whatever the cores and ranks say
   * (the shares already hold them); the slowdown still follows the thread count */
  sim_cost_options_cpu_host (&o, c, 2, 2);
  o.cpu_share = 0.4;
  g_assert_true (sim_cost_cpu_contention (c, &o, &m));
  g_assert_true (m.measured_share);
  g_assert_cmpfloat_with_epsilon (m.compute_scale, 2.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (gemm_s (c, &o), 2.0 * base, 1e-12);
  sim_cost_options_cpu_host (&o, c, 4, 2);
  g_assert_true (sim_cost_cpu_contention (c, &o, &m));
  g_assert_cmpfloat_with_epsilon (m.compute_scale, 2.0, 1e-12);
  g_assert_cmpfloat (o.comm_compute_slowdown, ==, 0.0);
  o.cpu_share = 0;

  g_autoptr (TopoCluster) one = load (one_core_json);
  SimCostOptions o1;
  sim_cost_options_init (&o1, one);
  sim_cost_options_cpu_host (&o1, one, 2, 2);
  g_assert_true (sim_cost_cpu_contention (one, &o1, &m));
  g_assert_cmpfloat_with_epsilon (m.compute_scale, 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (gemm_s (one, &o1), 0.5 * base, 1e-12);
}

/* A CPU host's collectives are its threads' copies and reductions: they time-share the
 * cores as compute does. The measured 1 MiB all-reduce over the DP pair takes its 200 us
 * as calibrated, and 400 us both with 2 ranks on 1 core (share 1/2: scale 2) and with a
 * run that measured a core share of 0.4 against the calibration's 0.8 (scale 2); the
 * latency (the 1 KiB row's 50 us) scales alike. */
static void
test_collectives (void)
{
  g_autoptr (TopoCluster) c = load (cpu_json);
  g_autoptr (GError) error = NULL;
  Plan plan;
  plan_init_defaults (&plan);
  plan.dp = 2;
  plan.world_size = 2;
  g_autoptr (PlanLayout) layout = plan_layout_new (&plan, c, &error);
  g_assert_no_error (error);
  plan_clear (&plan);
  const double expect[3] = { 200e-6, 400e-6, 400e-6 }, lat[3] = { 50e-6, 100e-6, 100e-6 };
  for (int i = 0; i < 3; i++)
    {
      SimCostOptions o;
      sim_cost_options_init (&o, c);
      if (i == 1)
        sim_cost_options_cpu_host (&o, c, 1, 2);
      if (i == 2)
        o.cpu_share = 0.4;
      SimCost *cost = sim_cost_new (c, layout, &o);
      g_assert_cmpfloat_with_epsilon (sim_cost_coll_s (cost, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP,
                                                       1048576), expect[i], 1e-12);
      g_assert_cmpfloat_with_epsilon (sim_cost_latency_s (cost, PLAN_COLL_ALL_REDUCE,
                                                          PLAN_AXIS_DP), lat[i], 1e-12);
      sim_cost_free (cost);
    }
}

/* Clusters the model does not apply to keep every figure: a cpu profile without the
 * object keeps the documented default slowdown, a non-cpu profile and a GPU preset too,
 * and their op times do not move with cpu_cores. */
static void
test_not_applied (void)
{
  const char *texts[] = { plain_json, cuda_json };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr (TopoCluster) c = load (texts[i]);
      SimCostOptions o, d;
      sim_cost_options_init (&o, c);
      sim_cost_options_init_documented (&d, c);
      SimCpuContention m;
      g_assert_false (sim_cost_cpu_contention (c, &o, &m));
      const double slow = o.comm_compute_slowdown, t = gemm_s (c, &o);
      g_assert_cmpfloat (slow, ==, d.comm_compute_slowdown);
      sim_cost_options_cpu_host (&o, c, 1, 8);
      g_assert_cmpfloat (o.comm_compute_slowdown, ==, slow);
      g_assert_cmpfloat (gemm_s (c, &o), ==, t);
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) gpu = topo_cluster_lookup ("dgx-h100-superpod", &error);
  g_assert_no_error (error);
  SimCostOptions o;
  sim_cost_options_init (&o, gpu);
  const double slow = o.comm_compute_slowdown, t = gemm_s (gpu, &o);
  sim_cost_options_cpu_host (&o, gpu, 1, 8);
  g_assert_cmpfloat (o.comm_compute_slowdown, ==, slow);
  g_assert_cmpfloat (gemm_s (gpu, &o), ==, t);
}

/* tiny-llama on the test host's 2 ranks, seq 256, global batch 4: DP2 (tp 1) or TP2 with
 * sequence parallelism (tp 2), resolved (the caller clears it) */
static void
tiny_plan (Plan *p, const ModelSpec *model, const TopoCluster *c, int tp)
{
  g_autoptr (GError) error = NULL;
  plan_init_defaults (p);
  p->world_size = 2;
  p->tp = tp;
  p->sequence_parallel = tp > 1;
  p->seq_length = 256;
  p->global_batch = 4;
  g_assert_true (plan_resolve (p, model, c, &error));
  g_assert_no_error (error);
}

/* Through the simulator: tiny-llama, DP2, seq 256, with communication free (so no
 * collective runs next to compute and the slowdown never applies): 2 ranks on 1 core
 * give exactly twice the compute of 2 ranks on 2 cores, and so twice the step. */
static void
test_predict_doubles (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = load (cpu_json);
  g_autoptr (ModelSpec) model = model_spec_lookup ("tiny-llama", &error);
  g_assert_no_error (error);
  double compute[2], step[2];
  for (int i = 0; i < 2; i++)
    {
      Plan p;
      tiny_plan (&p, model, c, 1);
      SimOptions so;
      sim_options_init (&so, c);
      sim_cost_options_cpu_host (&so.cost, c, i == 0 ? 2 : 1, 2);
      so.cost.free_comm = TRUE;
      g_autoptr (SimPrediction) pr = sim_predict (model, &p, c, &so, &error);
      g_assert_no_error (error);
      compute[i] = pr->result->compute_s;
      step[i] = pr->result->step_time_s;
      plan_clear (&p);
    }
  g_test_message ("compute %.6f s on 2 cores, %.6f s on 1", compute[0], compute[1]);
  g_assert_cmpfloat (compute[0], >, 0);
  /* picosecond event times: equal to 1e-9 */
  g_assert_cmpfloat (fabs (compute[1] - 2 * compute[0]), <=, 1e-9 * compute[0]);
  g_assert_cmpfloat (fabs (step[1] - 2 * step[0]), <=, 1e-9 * step[0]);
}

/* The measured slowdown holds while a collective runs, not for the whole compute block
 * that starts beside it. tiny-llama TP2 with SP, seq 256, on the test host: predicted on
 * its 2 cores (4 threads > 2 cores: s = 0.5, the progress thread takes its share of the
 * core while a collective runs) and on 4 cores (s = 0, every other figure the same: scale
 * 1, the collectives' times do not depend on the cores here). Hand derivation, for a
 * compute block of d seconds alone that starts at t0 while the stage's collectives run
 * until e (the last of them to end; any number of them is one progress thread): it runs
 * at 1 / (1 + s) of its rate until e, then at the full rate, so
 *   d' = d (1 + s)                   when d (1 + s) <= e - t0 (done before e)
 *   d' = d + (e - t0) s / (1 + s)    otherwise (e - t0 at 2/3 of the rate: a third lost),
 * and d' = d with none running at t0. The old rule stretched every such block to
 * d (1 + s), which is what over-predicted TP's backward on the real host: a layer's
 * backward of ~14 ms beside a 0.13 ms all-gather came out 26 ms, measured 14 ms. */
static void
test_slowdown_span (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = load (cpu_json);
  g_autoptr (ModelSpec) model = model_spec_lookup ("tiny-llama", &error);
  g_assert_no_error (error);
  const double s = 0.5;
  SimPrediction *pr[2];
  for (int i = 0; i < 2; i++)
    {
      Plan p;
      tiny_plan (&p, model, c, 2);
      SimOptions so;
      sim_options_init (&so, c);
      so.keep_timeline = TRUE;
      sim_cost_options_cpu_host (&so.cost, c, i == 0 ? 2 : 4, 2);
      g_assert_cmpfloat (so.cost.comm_compute_slowdown, ==, i == 0 ? s : 0.0);
      pr[i] = sim_predict (model, &p, c, &so, &error);
      g_assert_no_error (error);
      plan_clear (&p);
    }
  const ProgProgram *prog = pr[0]->program;
  g_assert_cmpuint (prog->tasks->len, ==, pr[1]->program->tasks->len);
  const SimTaskTime *ta = pr[0]->result->times, *tb = pr[1]->result->times;
  guint beside = 0, partly = 0, alone = 0;
  for (guint i = 0; i < prog->tasks->len; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      if (t->kind != PROG_TASK_COMPUTE || t->stage != 0)
        continue;
      const double t0 = ta[i].start_s, d = tb[i].end_s - tb[i].start_s;
      const double got = ta[i].end_s - t0;
      double e = -1;
      for (guint j = 0; j < prog->tasks->len; j++)
        {
          const ProgTask *u = prog_task (prog, j);
          if (u->kind == PROG_TASK_COLL && u->stage == 0 && ta[j].end_s > ta[j].start_s
              && ta[j].start_s <= t0 && ta[j].end_s > t0)
            e = MAX (e, ta[j].end_s);
        }
      double want = d;
      if (e > t0 && d * (1 + s) <= e - t0)
        want = d * (1 + s), beside++;
      else if (e > t0)
        want = d + (e - t0) * s / (1 + s), partly++;
      else
        alone++;
      /* picosecond event times */
      g_assert_cmpfloat (fabs (got - want), <=, 1e-9 + 1e-9 * want);
    }
  g_test_message ("compute blocks on stage 0: %u alone, %u done beside a collective, "
                  "%u outlasting it", alone, beside, partly);
  /* the program has blocks of each kind, the last the case the old rule got wrong */
  g_assert_cmpuint (alone, >, 0);
  g_assert_cmpuint (partly, >, 0);
  sim_prediction_free (pr[0]);
  sim_prediction_free (pr[1]);
}

/* A step's ranks wait for each other at every collective, so the run's core share that
 * the prediction takes is the slowest rank's (sim_cost_cpu_step_share), not rank 0's.
 * Ranks that got 0.9 and 0.6 of a core over the step: 0.6, rank 1; a rank that measured
 * nothing (0) is skipped; none measured gives 0 and rank -1; a share above 1 (clock
 * skew between the two schedstat counters) counts as 1. Through the simulator,
 * tiny-llama DP2 with free communication on the test host (calibration's share 0.8):
 * with the share 0.8 every op keeps its profile time (scale 0.8 / 0.8 = 1); with the
 * ranks' {0.9, 0.6} it takes 0.8 / 0.6 = 4/3 of that, where rank 0's 0.9 would have
 * given 0.8 / 0.9 = 8/9 (a step predicted a third too short against the slow rank). */
static void
test_step_share (void)
{
  int rank = 7;
  const double two[2] = { 0.9, 0.6 }, one_unknown[2] = { 0, 0.7 }, none[2] = { 0, 0 };
  const double over[1] = { 1.2 };
  g_assert_cmpfloat (sim_cost_cpu_step_share (two, 2, &rank), ==, 0.6);
  g_assert_cmpint (rank, ==, 1);
  g_assert_cmpfloat (sim_cost_cpu_step_share (one_unknown, 2, &rank), ==, 0.7);
  g_assert_cmpint (rank, ==, 1);
  g_assert_cmpfloat (sim_cost_cpu_step_share (none, 2, &rank), ==, 0.0);
  g_assert_cmpint (rank, ==, -1);
  g_assert_cmpfloat (sim_cost_cpu_step_share (over, 1, NULL), ==, 1.0);

  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = load (cpu_json);
  g_autoptr (ModelSpec) model = model_spec_lookup ("tiny-llama", &error);
  g_assert_no_error (error);
  const double share[3] = { 0.8, sim_cost_cpu_step_share (two, 2, NULL), two[0] };
  double step[3];
  for (int i = 0; i < 3; i++)
    {
      Plan p;
      tiny_plan (&p, model, c, 1);
      SimOptions so;
      sim_options_init (&so, c);
      so.cost.free_comm = TRUE;
      so.cost.cpu_share = share[i];
      g_autoptr (SimPrediction) pr = sim_predict (model, &p, c, &so, &error);
      g_assert_no_error (error);
      step[i] = pr->result->step_time_s;
      plan_clear (&p);
    }
  g_assert_cmpfloat (step[0], >, 0);
  /* picosecond event times: equal to 1e-9 */
  g_assert_cmpfloat (fabs (step[1] - 4.0 / 3.0 * step[0]), <=, 1e-9 * step[0]);
  g_assert_cmpfloat (fabs (step[2] - 8.0 / 9.0 * step[0]), <=, 1e-9 * step[0]);
}

/* The attention row a cpu profile predicts from: the nearest per-head problem (s_q, s_kv,
 * head_dim) first, the loop counts (b, heads, kv_heads) only among rows equally near in
 * it. small-llama's attention, b 2, 8 / 8 heads of 64 at 512 tokens, causal: FLOPs
 * 4 x 2 x 8 x 512 x 512 x 64 / 2 = 2^29. Euclidean over all six logs, the 8-head row of
 * 32 at 256 is nearer (b, kv, s_q, s_kv, head_dim each a factor 2 off: 5 (ln 2)^2) than
 * the 2-head row of 64 at 512 (b 2x, heads and kv 4x: (1 + 4 + 4) (ln 2)^2): 2^29 / 2e9 =
 * 0.268435456 s, plus the 2 us launch. The cpu kernel repeats one per-head loop b x heads
 * times, so the row of 64 at 512 is the op's own problem: 2^29 / 3e9 = 0.178956971 s plus
 * 2 us. A cuda profile with the same rows keeps the Euclidean choice. */
static void
test_attn_row (void)
{
  ModelOp op = { 0 };
  op.name = "attn_core";
  op.kind = MODEL_OP_ATTENTION;
  op.b = 2;
  op.heads = op.kv_heads = 8;
  op.s_q = op.s_kv = 512;
  op.head_dim = 64;
  op.causal = TRUE;
  op.fwd_flops = 4.0 * 2 * 8 * 512 * 512 * 64 / 2;
  g_assert_cmpfloat (op.fwd_flops, ==, 536870912.0);
  const char *texts[2] = { cpu_attn_json, cuda_attn_json };
  const double want[2] = { 536870912.0 / 3e9 + 2e-6, 536870912.0 / 2e9 + 2e-6 };
  for (int i = 0; i < 2; i++)
    {
      g_autoptr (TopoCluster) c = load (texts[i]);
      SimCostOptions o;
      sim_cost_options_init (&o, c);
      SimCost *cost = sim_cost_new (c, NULL, &o);
      g_assert_cmpfloat_with_epsilon (sim_cost_op_s (cost, &op, TOPO_DTYPE_FP32, FALSE),
                                      want[i], 1e-12);
      sim_cost_free (cost);
    }
}

/* With the quick grid's small-llama rows (exec/calibrate-attn.c: 8 / 8 and 4 / 4 heads of
 * 64 at 512 tokens, here at 2.5e9 and 2.8e9 forward) next to the 2 / 2-head row of 64 at
 * 512 (3e9): the three are equally near in the per-head problem, and the loop counts
 * decide. small-llama's op (b 2, 8 / 8 heads): to 8 / 8 (ln 2)^2, to 4 / 4
 * (1 + 1 + 1) (ln 2)^2, to 2 / 2 (1 + 4 + 4) (ln 2)^2: the 8 / 8 row, 2^29 / 2.5e9 =
 * 0.2147483648 s plus the 2 us launch. Its TP 2 half (4 / 4 heads, 2^28 FLOPs): the
 * 4 / 4 row at (ln 2)^2 (8 / 8 and 2 / 2 at 3 (ln 2)^2), 2^28 / 2.8e9 = 0.0958698057 s
 * plus 2 us. Before these rows both took the 2 / 2 row's 3e9: 0.1789 and 0.0895 s. */
#define ATTN_ROWS_SMALL                                                                    \
  ",\n    \"attention\": [ [1, 8, 4, 256, 256, 32, true, \"fp32\", 2e9, 4e9],\n"           \
  "                     [1, 2, 2, 512, 512, 64, true, \"fp32\", 3e9, 5e9],\n"              \
  "                     [1, 8, 8, 512, 512, 64, true, \"fp32\", 2.5e9, 4e9],\n"            \
  "                     [1, 4, 4, 512, 512, 64, true, \"fp32\", 2.8e9, 4e9] ]"
static const char cpu_attn_small_json[] = HEAD ("test-cpu-attn2", "cpu") ATTN_ROWS_SMALL " } }\n";

static void
test_attn_row_stride (void)
{
  g_autoptr (TopoCluster) c = load (cpu_attn_small_json);
  SimCostOptions o;
  sim_cost_options_init (&o, c);
  SimCost *cost = sim_cost_new (c, NULL, &o);
  for (int tp = 1; tp <= 2; tp++)
    {
      ModelOp op = { 0 };
      op.name = "attn_core";
      op.kind = MODEL_OP_ATTENTION;
      op.b = 2;
      op.heads = op.kv_heads = 8 / tp;
      op.s_q = op.s_kv = 512;
      op.head_dim = 64;
      op.causal = TRUE;
      op.fwd_flops = 4.0 * 2 * op.heads * 512 * 512 * 64 / 2;
      const double want = tp == 1 ? 536870912.0 / 2.5e9 : 268435456.0 / 2.8e9;
      g_assert_cmpfloat_with_epsilon (sim_cost_op_s (cost, &op, TOPO_DTYPE_FP32, FALSE),
                                      want + 2e-6, 1e-12);
    }
  sim_cost_free (cost);
}

/* Term 4, the ranks' drift between collectives (sim_cost_cpu_skew_s), by hand.
 * Two ranks at share 0.5 that run 10 ms between waits of 10 ms on average, one segment
 * of w = 0.1 s on a CPU: each takes 0.1 / 0.5 = 0.2 s on average, its waits a compound
 * Poisson sum of 0.1 / 0.01 = 10 waits of mean 0.01 s, exponential (E[X^2] = 2 x 0.01^2):
 * variance 10 x 2e-4 = 2e-3. The larger of two independent normals of equal mean is
 * theta / sqrt (2 pi) above it, theta = sqrt (2e-3 + 2e-3) = 0.0632455532 (Clark 1961
 * with alpha 0): 0.0632455532 x 0.3989422804 = 0.0252313252 s.
 * The same work in four segments of 0.025 s: each variance 5e-4, theta 0.0316227766,
 * 0.0126156626 s each, 0.0504626504 s in all: twice the one segment (sqrt 4), since the
 * ranks meet four times.
 * Rank 1 at share 0.25 (mean 0.4 s, the same waits: variance 2e-3): alpha = (0.2 - 0.4) /
 * theta = -3.16227766; E[max] - 0.4 = theta phi (alpha) - 0.2 Phi (-|alpha|) =
 * 0.0632455532 x 0.0026880807 - 0.2 x 0.0007827011 = 1.3467106e-5 s: the slower rank
 * sets the step, as term 3 already has it.
 * With the waits' task-to-task variance measured at 0.05 s^2 per second on a CPU (in place
 * of the Poisson 2 x 0.01^2 / 0.01 = 0.02): variance 0.1 x 0.05 = 5e-3 each, theta = 0.1,
 * 0.1 x 0.3989422804 = 0.0398942280 s.
 * No waits measured (run 0), one rank, no segment: 0. */
static void
test_skew (void)
{
  SimCpuRankSched two[2] = { { 0.5, 0.01, 0.01, 0 }, { 0.5, 0.01, 0.01, 0 } };
  const double one[1] = { 0.1 }, four[4] = { 0.025, 0.025, 0.025, 0.025 };
  g_assert_cmpfloat_with_epsilon (sim_cost_cpu_skew_s (one, 1, two, 2), 0.0252313252, 1e-9);
  g_assert_cmpfloat_with_epsilon (sim_cost_cpu_skew_s (four, 4, two, 2), 0.0504626504, 1e-9);
  SimCpuRankSched slow[2] = { { 0.5, 0.01, 0.01, 0 }, { 0.25, 0.01, 0.01, 0 } };
  g_assert_cmpfloat_with_epsilon (sim_cost_cpu_skew_s (one, 1, slow, 2), 1.3467106e-5, 1e-12);
  SimCpuRankSched bursty[2] = { { 0.5, 0.01, 0.01, 0.05 }, { 0.5, 0.01, 0.01, 0.05 } };
  g_assert_cmpfloat_with_epsilon (sim_cost_cpu_skew_s (one, 1, bursty, 2), 0.0398942280, 1e-9);
  SimCpuRankSched quiet[2] = { { 1.0, 0, 0, 0 }, { 1.0, 0, 0, 0 } };
  g_assert_cmpfloat (sim_cost_cpu_skew_s (one, 1, quiet, 2), ==, 0.0);
  g_assert_cmpfloat (sim_cost_cpu_skew_s (one, 1, two, 1), ==, 0.0);
  g_assert_cmpfloat (sim_cost_cpu_skew_s (one, 0, two, 2), ==, 0.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/cost-cpu/load-round-trip", test_load_round_trip);
  g_test_add_func ("/sim/cost-cpu/load-bad", test_load_bad);
  g_test_add_func ("/sim/cost-cpu/model", test_model);
  g_test_add_func ("/sim/cost-cpu/not-applied", test_not_applied);
  g_test_add_func ("/sim/cost-cpu/collectives", test_collectives);
  g_test_add_func ("/sim/cost-cpu/predict-doubles", test_predict_doubles);
  g_test_add_func ("/sim/cost-cpu/slowdown-span", test_slowdown_span);
  g_test_add_func ("/sim/cost-cpu/step-share", test_step_share);
  g_test_add_func ("/sim/cost-cpu/attn-row", test_attn_row);
  g_test_add_func ("/sim/cost-cpu/attn-row-stride", test_attn_row_stride);
  g_test_add_func ("/sim/cost-cpu/skew", test_skew);
  return g_test_run ();
}
