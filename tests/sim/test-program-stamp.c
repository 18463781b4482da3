/* tests/sim/test-program-stamp.c - the step program's stamped units (plan/program.c,
 * prog_stamp_units): a program whose steady-middle units are copies of a template equals,
 * task by task and dependency by dependency, the program with every unit expanded, over
 * the schedules and the program's other streams; the plans that reach across units
 * (torch's lock step, Megatron's synchronize after an exchange, DualPipe, CPU offload) are
 * built without stamps; and the simulator, which sets a copy up from its template
 * (sim/simulate.c program_setup), predicts exactly what it predicts for the expanded
 * program, whole step and steady-state path alike. And the same cases predicted with the
 * event set's keys wide (sim/simulate.c heap_push) equal those with narrow keys. */
#include "plan/program-private.h"
#include "sim/predict.h"
#include "sim/simulate-private.h"

#include "../plan/plan-flags.h"

#include <string.h>

/* The plan of `flags`, resolved (the caller clears it). */
static void
resolve (const ModelSpec *model, const TopoCluster *cluster, const char *flags, int p2p_sync,
         int zero2_grad_sync, Plan *plan_out)
{
  g_autoptr (GError) error = NULL;
  Plan plan;
  PlanArgs args;
  plan_init_defaults (&plan);
  memset (&args, 0, sizeof args);
  g_assert_true (plan_flags_parse (&plan, &args, flags, &error));
  g_assert_no_error (error);
  /* the stack's fields the builder reads (sim_plan_apply_stack's, set here by hand) */
  plan.pp_p2p_sync = p2p_sync;
  plan.zero2_grad_sync = zero2_grad_sync;
  if (!plan_resolve (&plan, model, cluster, &error))
    g_error ("%s: %s", flags, error->message);
  plan_args_clear (&args);
  *plan_out = plan;
}

static ProgProgram *
build (const char *model_name, const char *flags, gboolean stamp, int p2p_sync,
       int zero2_grad_sync)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) model = model_spec_lookup (model_name, &error);
  g_assert_no_error (error);
  g_autoptr (TopoCluster) cluster = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
  Plan plan;
  resolve (model, cluster, flags, p2p_sync, zero2_grad_sync, &plan);
  g_autoptr (PlanLayout) layout = plan_layout_new (&plan, cluster, &error);
  g_assert_no_error (error);
  prog_stamp_units = stamp;
  ProgProgram *prog = prog_program_new (model, &plan, layout, &error);
  prog_stamp_units = TRUE;
  g_assert_no_error (error);
  g_assert_nonnull (prog);
  plan_clear (&plan);
  return prog;
}

/* Every field of every task, the dependency lists and the stages' unit boundaries. */
static void
assert_same_program (const char *flags, const ProgProgram *a, const ProgProgram *b)
{
  g_assert_cmpuint (a->tasks->len, ==, b->tasks->len);
  g_assert_cmpuint (a->deps->len, ==, b->deps->len);
  for (guint32 i = 0; i < a->tasks->len; i++)
    {
      const ProgTask *x = prog_task (a, i), *y = prog_task (b, i);
      gboolean same = x->id == y->id && x->kind == y->kind && x->stream == y->stream
                      && x->phase == y->phase && x->comm == y->comm && x->coll == y->coll
                      && x->axis == y->axis && x->role == y->role
                      && x->host_sync == y->host_sync && x->stage == y->stage
                      && x->mb == y->mb && x->chunk == y->chunk && x->layer == y->layer
                      && x->block == y->block && x->dep_first == y->dep_first
                      && x->n_deps == y->n_deps && x->peer_stage == y->peer_stage
                      && x->peer_task == y->peer_task && x->bytes == y->bytes
                      && x->model_flops == y->model_flops && x->hw_flops == y->hw_flops;
      if (!same)
        g_error ("%s: task %u differs (stage %d mb %d chunk %d layer %d)", flags, i, x->stage,
                 x->mb, x->chunk, x->layer);
    }
  g_assert_cmpmem (a->deps->data, sizeof (guint32) * a->deps->len, b->deps->data,
                   sizeof (guint32) * b->deps->len);
  g_assert_cmpint (a->n_stages, ==, b->n_stages);
  for (int s = 0; s < a->n_stages; s++)
    {
      const ProgStage *x = &a->stages[s], *y = &b->stages[s];
      g_assert_cmpuint (x->n_slots, ==, y->n_slots);
      g_assert_cmpmem (x->slot_first, sizeof (guint32) * (x->n_slots + 1), y->slot_first,
                       sizeof (guint32) * (y->n_slots + 1));
      g_assert_cmpfloat (x->model_flops, ==, y->model_flops);
      g_assert_cmpfloat (x->hw_flops, ==, y->hw_flops);
    }
}

typedef struct {
  const char *model, *flags;
  int p2p_sync, zero2_grad_sync;
  /* units stamped: a stage's units of micro-batches 1 .. m - 2 of each (direction, chunk),
   * less the first of them, which is the template: pp x 2 v x (m - 3); 0 where nothing
   * may be stamped */
  guint stamped;
} StampCase;

static const StampCase cases[] = {
  /* 1F1B, pp 4, m 8 (gbs 64 / dp 8), TP2 SP ZeRO-1 overlapped: 4 x 2 x 5 = 40 */
  { "llama3-8b", "--gpus 64 --tp 2 --pp 4 --sp --gbs 64 --seq 2048 --sharding zero1 "
    "--overlap-grad-reduce --overlap-param-gather", 0, 0, 40 },
  /* 1F1B, pp 4, m 32 (gbs 64 / dp 2), long enough for the steady-state path: 4 x 2 x 29 */
  { "llama3-8b", "--gpus 16 --tp 2 --pp 4 --sp --gbs 64 --seq 2048 --sharding zero1 "
    "--overlap-grad-reduce", 0, 0, 232 },
  /* interleaved, pp 4, vpp 2, m 12 (gbs 24 / dp 2): 4 x 4 x 9 = 144 */
  { "llama3-8b", "--gpus 16 --tp 2 --pp 4 --vpp 2 --sp --gbs 24 --seq 2048", 0, 0, 144 },
  /* GPipe with full recompute, pp 2, m 6: 2 x 2 x 3 = 12 */
  { "llama3-8b", "--gpus 8 --tp 2 --pp 2 --schedule gpipe --recompute-granularity full "
    "--recompute-method uniform --recompute-num-layers 1 --gbs 12 --seq 2048", 0, 0, 12 },
  /* ZeRO-3 with TP, SP and selective recompute, 1F1B pp 2, m 5 (gbs 10 / dp 2): 2 x 2 x 2 */
  { "llama3-8b", "--gpus 8 --tp 2 --pp 2 --sp --sharding zero3 --recompute-granularity "
    "selective --gbs 10 --seq 2048", 0, 0, 8 },
  /* TP-comm overlap and CP 2 with ZeRO-2's per-micro-batch gradient sync, pp 2, m 6
   * (gbs 12 / dp 2): 2 x 2 x 3 = 12 */
  { "llama3-8b", "--gpus 16 --tp 2 --cp 2 --pp 2 --sp --tp-comm-overlap --sharding zero2 "
    "--gbs 12 --seq 4096", 0, 1, 12 },
  /* MoE: 8 experts over ep 4, pp 2, m 6 (gbs 24 / dp 4): 2 x 2 x 3 = 12 */
  { "llama3-8b", "--gpus 16 --tp 2 --pp 2 --sp --num-experts 8 --moe-router-topk 2 --ep 4 "
    "--etp 1 --gbs 24 --seq 2048", 0, 0, 12 },
  /* the README's main job at 16 micro-batches, VPP2, 3 layers on the first and last
   * stage: 16 x 4 x 13 = 832 */
  { "llama3-405b", "--gpus 16384 --tp 8 --pp 16 --vpp 2 --sp --gbs 2048 --seq 8192 "
    "--first-chunk-layers 3 --last-chunk-layers 3 "
    "--sharding zero2 --overlap-grad-reduce --overlap-param-gather "
    "--rank-order tp-cp-ep-pp-dp", 0, 0, 832 },
  /* Megatron's synchronize after each exchange (1F1B, pp_p2p_sync): every unit expanded */
  { "llama3-8b", "--gpus 16 --tp 2 --pp 4 --sp --gbs 16 --seq 2048", 1, 0, 0 },
  /* torch's lock step (interleaved, m a multiple of pp): every unit expanded */
  { "llama3-8b", "--gpus 16 --tp 2 --pp 4 --vpp 2 --sp --gbs 16 --seq 2048 --pp-lockstep",
    0, 0, 0 },
  /* DualPipe: every unit expanded */
  { "llama3-8b", "--gpus 16 --tp 2 --pp 4 --sp --schedule dualpipe --gbs 16 --seq 2048", 0,
    0, 0 },
  /* CPU offload: every unit expanded */
  { "llama3-8b", "--gpus 16 --tp 2 --pp 1 --sp --cpu-offloading-num-layers 2 --gbs 48 "
    "--seq 2048", 0, 0, 0 },
};

static void
test_stamped_equals_expanded (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const StampCase *c = &cases[i];
      g_autoptr (ProgProgram) stamped = build (c->model, c->flags, TRUE, c->p2p_sync,
                                               c->zero2_grad_sync);
      g_autoptr (ProgProgram) expanded = build (c->model, c->flags, FALSE, c->p2p_sync,
                                                c->zero2_grad_sync);
      g_test_message ("%s: %u tasks, %u units stamped", c->flags, stamped->tasks->len,
                      stamped->stamped_units);
      g_assert_cmpuint (expanded->stamped_units, ==, 0);
      g_assert_cmpuint (stamped->stamped_units, ==, c->stamped);
      assert_same_program (c->flags, stamped, expanded);
    }
}

/* Every figure of two predictions, to the bit (the same tasks simulated in the same
 * order give the same doubles). */
static void
assert_same_result (const char *flags, const SimResult *a, const SimResult *b)
{
  g_test_message ("%s: step %.9f s, %" G_GUINT64_FORMAT " events, %d periods", flags,
                  a->step_time_s, a->n_events, a->steady_periods);
  g_assert_cmpfloat (a->step_time_s, ==, b->step_time_s);
  g_assert_cmpfloat (a->tokens_per_s, ==, b->tokens_per_s);
  g_assert_cmpfloat (a->hfu, ==, b->hfu);
  g_assert_cmpfloat (a->bubble_fraction, ==, b->bubble_fraction);
  g_assert_cmpfloat (a->compute_s, ==, b->compute_s);
  g_assert_cmpfloat (a->overlap_ratio, ==, b->overlap_ratio);
  g_assert_cmpfloat (a->steady_period_s, ==, b->steady_period_s);
  g_assert_cmpint (a->critical_stage, ==, b->critical_stage);
  g_assert_cmpint (a->steady_periods, ==, b->steady_periods);
  g_assert_cmpuint (a->n_tasks, ==, b->n_tasks);
  g_assert_cmpuint (a->n_events, ==, b->n_events);
  g_assert_cmpuint (a->n_fired, ==, b->n_fired);
  for (int k = 0; k < SIM_KINDS; k++)
    {
      g_assert_cmpfloat (a->comm_s[k], ==, b->comm_s[k]);
      g_assert_cmpfloat (a->exposed_comm_s[k], ==, b->exposed_comm_s[k]);
    }
  g_assert_cmpint (a->n_stages, ==, b->n_stages);
  for (int s = 0; s < a->n_stages; s++)
    {
      const SimStageStats *x = &a->stages[s], *y = &b->stages[s];
      g_assert_cmpfloat (x->end_s, ==, y->end_s);
      g_assert_cmpfloat (x->compute_s, ==, y->compute_s);
      g_assert_cmpfloat (x->bubble_s, ==, y->bubble_s);
      for (int k = 0; k < SIM_KINDS; k++)
        {
          g_assert_cmpfloat (x->comm_s[k], ==, y->comm_s[k]);
          g_assert_cmpfloat (x->exposed_s[k], ==, y->exposed_s[k]);
        }
    }
}

/* The cases above predicted from stamped and from expanded programs: whole step
 * (--full-simulation) and the default path (the steady-state extension where it applies);
 * and the main job at 256 micro-batches, which takes the steady-state path on a step of
 * 48. */
static void
test_stamped_predicts_the_same (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) cluster = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
  for (guint i = 0; i <= G_N_ELEMENTS (cases); i++)
    {
      const StampCase *c = &cases[i < G_N_ELEMENTS (cases) ? i : 7];
      g_autofree char *flags = i < G_N_ELEMENTS (cases)
                                 ? g_strdup (c->flags)
                                 : g_strconcat (c->flags, " --gbs 32768", NULL);
      g_autoptr (ModelSpec) model = model_spec_lookup (c->model, &error);
      g_assert_no_error (error);
      Plan plan;
      resolve (model, cluster, flags, c->p2p_sync, c->zero2_grad_sync, &plan);
      for (int full = 0; full < 2; full++)
        {
          SimOptions opts;
          sim_options_init (&opts, cluster);
          opts.full_simulation = full;
          g_autoptr (SimPrediction) stamped = sim_predict (model, &plan, cluster, &opts, &error);
          g_assert_no_error (error);
          prog_stamp_units = FALSE;
          g_autoptr (SimPrediction) expanded = sim_predict (model, &plan, cluster, &opts,
                                                            &error);
          prog_stamp_units = TRUE;
          g_assert_no_error (error);
          g_assert_cmpuint (expanded->program->stamped_units, ==, 0);
          assert_same_result (flags, stamped->result, expanded->result);
        }
      plan_clear (&plan);
    }
}

/* The cases above (whole step and default path) and the main job at 256 micro-batches,
 * with the narrow keys' window cut to 2^8 ps (the heap wide from the first completion
 * scheduled), 2^36 (69 ms: the heap's base moved 2,075 times, and wide in mid-run in two
 * of them) and 2^40 (narrow throughout, its base moved 95 times), against the uncut
 * window. */
static void
test_event_keys_wide (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) cluster = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
  static const guint windows[] = { 8, 36, 40 };
  for (guint i = 0; i <= G_N_ELEMENTS (cases); i++)
    {
      const StampCase *c = &cases[i < G_N_ELEMENTS (cases) ? i : 7];
      g_autofree char *flags = i < G_N_ELEMENTS (cases)
                                 ? g_strdup (c->flags)
                                 : g_strconcat (c->flags, " --gbs 32768", NULL);
      g_autoptr (ModelSpec) model = model_spec_lookup (c->model, &error);
      g_assert_no_error (error);
      Plan plan;
      resolve (model, cluster, flags, c->p2p_sync, c->zero2_grad_sync, &plan);
      for (int full = 0; full < 2; full++)
        {
          SimOptions opts;
          sim_options_init (&opts, cluster);
          opts.full_simulation = full;
          g_autoptr (SimPrediction) narrow = sim_predict (model, &plan, cluster, &opts, &error);
          g_assert_no_error (error);
          for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
            {
              sim_key_window_log2 = windows[w];
              g_autoptr (SimPrediction) cut = sim_predict (model, &plan, cluster, &opts, &error);
              sim_key_window_log2 = 64;
              g_assert_no_error (error);
              assert_same_result (flags, narrow->result, cut->result);
            }
        }
      plan_clear (&plan);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plan/program/stamped-equals-expanded", test_stamped_equals_expanded);
  g_test_add_func ("/sim/stamped-predicts-the-same", test_stamped_predicts_the_same);
  g_test_add_func ("/sim/event-keys-wide", test_event_keys_wide);
  return g_test_run ();
}
