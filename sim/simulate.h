/* sim/simulate.h - run a step program on modelled resources: timeline and metrics.
 *
 * Contract:
 *  - Pure function of (program, cluster, layout, options): the discrete-event engine
 *    fires task completions in (time, sequence) order.
 *  - One representative rank per pipeline stage (DESIGN.md section 3). Each stage has
 *    one compute stream and one stream per communication kind; a stream runs its tasks
 *    one at a time in program order; a task starts when it heads its stream and its
 *    dependencies are done. Overlap is whatever the program's streams and dependencies
 *    allow: no user-given ratio.
 *  - Times are seconds (double) in results; picoseconds inside the engine.
 *  - Metrics: step time (last task of any stage); MFU per FLOP convention against the
 *    peak of the plan's compute dtype; HFU from the executed FLOPs; per stage the busy
 *    compute time, the communication time by kind, the exposed part of it (running while
 *    the stage's compute stream is idle, charged to the first active kind in the order
 *    tp, cp, pp, dp: the order in which compute waits on them), and
 *    the bubble (compute idle with no communication running). Reported figures are the
 *    means over stages; per-stage figures are kept.
 *  - Failures (a program that cannot finish: a dependency cycle or an order that
 *    deadlocks) come back as SIM_ERROR. */
#pragma once

#include <glib.h>
#include "plan/program.h"
#include "sim/cost.h"

G_BEGIN_DECLS

typedef struct {
  SimCostOptions cost;          /* defaults from sim_cost_options_init */
  gboolean       keep_timeline; /* record every task's start and end (traces) */
  /* Test knob: embedding and head blocks cost nothing, so every stage of an evenly
   * split model does the same work (the textbook pipeline of the bubble formulas). */
  gboolean       ideal_pipeline;
  /* Simulate every micro-batch (--full-simulation): sim_predict's steady-state path off.
   * keep_timeline implies it. */
  gboolean       full_simulation;
} SimOptions;

void sim_options_init (SimOptions *opts, const TopoCluster *cluster);

typedef ProgTaskTime SimTaskTime;

/* The kinds busy and exposed time is kept by: the ProgCommKinds, then the CPU offload
 * copies (PROG_TASK_COPY on PROG_STREAM_HOST). Idle compute is charged to the first
 * active kind in the order tp, cp, pp, offload, dp, ep (a layer's backward waits on its
 * reload as on a TP collective; DP is overlapped wherever the program can). */
#define SIM_KIND_OFFLOAD PROG_COMM_N
#define SIM_KINDS        (PROG_COMM_N + 1)

typedef struct {
  double end_s;                       /* when the stage's last task ends */
  double compute_s;                   /* compute stream busy */
  double comm_s[SIM_KINDS];           /* communication busy, by kind (SIM_KINDS) */
  double exposed_s[SIM_KINDS];        /* ... while compute was idle */
  double bubble_s;                    /* compute idle, nothing communicating */
  double model_flops, hw_flops;       /* per rank */
} SimStageStats;

typedef struct {
  double step_time_s;
  double tokens_per_s;
  double model_tflops_per_gpu[MODEL_FLOPS_N_CONVENTIONS];
  double mfu[MODEL_FLOPS_N_CONVENTIONS];
  double hw_tflops_per_gpu;
  double hfu;
  double peak_flops;                  /* per GPU, of the compute dtype */
  double bubble_fraction;             /* mean stage bubble / step time */
  double compute_s;                   /* mean over stages */
  double comm_s[SIM_KINDS];           /* mean over stages (SIM_KINDS) */
  double exposed_comm_s[SIM_KINDS];   /* mean over stages */
  double overlap_ratio;               /* hidden / total communication */
  int    critical_stage;              /* the stage that ends last */
  int    n_stages;
  SimStageStats *stages;
  guint  n_tasks;
  SimTaskTime *times;                 /* n_tasks entries when keep_timeline, else NULL */
  guint64 n_events;                   /* tasks simulated (a fused chain of communication
                                       * tasks, one engine event, counts each task) */
  guint64 n_fired;                    /* completion events fired (a fused chain is one) */
  int     steady_periods;             /* periods added by the steady-state extension, 0 when
                                       * every micro-batch was simulated */
  double  steady_period_s;            /* their length */
  int     steady_tries;               /* shorter steps sim_predict simulated to look for a
                                       * steady state (sim/predict.c predict_steady; the
                                       * one extended counts), 0 where none was tried */
  guint64 sim_tasks;                  /* tasks simulated by the whole prediction: every
                                       * shorter step tried (sim/predict.c, each simulated
                                       * whole, those that showed no period too) and the
                                       * whole step where it ran; n_events counts only the
                                       * simulation whose result this is. Set by
                                       * sim_predict (0 from sim_simulate alone) */
  double sim_wall_s;                  /* host time spent simulating (not a pure output) */
} SimResult;

SimResult *sim_simulate    (const ProgProgram *prog, const TopoCluster *cluster,
                            const PlanLayout *layout, const SimOptions *opts, GError **error);
void       sim_result_free (SimResult *result);                        /* NULL-safe */

/* The steady-state path: `prog` is the step with m' micro-batches; the result is that of
 * m' + extra_mb micro-batches, with `tokens_per_step` of that step, found by extending the
 * steady state of the simulated step exactly (simulate.c explains) by whole periods of c x
 * period_mb micro-batches (period_mb: 1 for 1F1B, the group size for Interleaved1F1B), the
 * smallest c <= max_multiple that recurs on every stage and divides extra_mb. n_tasks
 * counts the whole step's tasks, n_events those simulated. NULL without an error when the
 * simulated step shows no such steady state (the caller then simulates the whole step);
 * `cyclicity` (may be NULL) then says the smallest c that recurs (0: none), with which a
 * step of m'' = m' (mod c x period_mb) micro-batches would extend. */
SimResult *sim_simulate_extended (const ProgProgram *prog, int extra_mb, int period_mb,
                                  int max_multiple, int *cyclicity, double tokens_per_step,
                                  const TopoCluster *cluster, const PlanLayout *layout,
                                  const SimOptions *opts, GError **error);

/* The whole step of `prog` (1F1B), as sim_simulate gives it, looked at on the way for a
 * period of c <= max_multiple micro-batches (simulate.c): where one shows, `probe` is
 * called with c and the micro-batches a shorter step needs to hold the settled stretch
 * (`need_mb`), and the fraction of the first stage's units done (`done`: what is left of
 * the whole step is about 1 - done of its events); the result it returns (the
 * steady-state path's, of the whole step) ends the
 * simulation and is returned; NULL lets it run on (with *error set: fails). At most two
 * calls. */
typedef SimResult *(*SimSteadyProbe) (int cyclicity, int need_mb, double done, gpointer data,
                                      GError **error);
SimResult *sim_simulate_watched (const ProgProgram *prog, int max_multiple,
                                 SimSteadyProbe probe, gpointer data,
                                 const TopoCluster *cluster, const PlanLayout *layout,
                                 const SimOptions *opts, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimResult, sim_result_free)

G_END_DECLS
