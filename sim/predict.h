/* sim/predict.h - one prediction: layout, step program, simulation and memory of a plan.
 *
 * Contract:
 *  - `plan` must be resolved (plan_resolve) against the same model and cluster.
 *  - The returned SimPrediction owns everything in it; free with sim_prediction_free.
 *  - A plan that does not fit in memory is still predicted; `memory.fits` says so.
 *  - Unless opts->full_simulation or opts->keep_timeline, a 1F1B or interleaved step of
 *    many micro-batches is simulated up to its steady state and extended exactly
 *    (sim_simulate_extended); every figure equals the full simulation's.
 *  - Never prints. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include "plan/memory.h"
#include "plan/program.h"
#include "sim/simulate.h"

G_BEGIN_DECLS

typedef struct {
  ModelSpec   *model;     /* ref */
  TopoCluster *cluster;   /* ref */
  Plan         plan;      /* copy */
  PlanLayout  *layout;
  /* the step program simulated: with the steady-state path (result->steady_periods > 0)
   * the step of fewer micro-batches that was extended (its plan.grad_accum says how many),
   * whose tokens_per_step and hw_flops_per_step are the whole step's; a trace
   * (keep_timeline) or full_simulation gets the whole step's program */
  ProgProgram *program;
  SimResult   *result;
  PlanMemory   memory;
  double       wall_s;    /* host time of the whole prediction (layout to memory) */
} SimPrediction;

/* The plan's unset stack-dependent fields (-1) from the stack's cost options, as
 * sim_predict resolves them before building the step program. */
void sim_plan_apply_stack (Plan *plan, const SimCostOptions *co);

SimPrediction *sim_predict (const ModelSpec *model, const Plan *plan,
                            const TopoCluster *cluster, const SimOptions *opts,
                            GError **error);
void           sim_prediction_free (SimPrediction *p);                 /* NULL-safe */

/* The object of `tandem predict --json` (without run ids). `conv` names the FLOP
 * convention of the headline MFU; every convention is listed too. */
void sim_prediction_to_json (const SimPrediction *p, ModelFlopConvention conv,
                             JsonBuilder *builder);

/* Adds member `name`: an object of communication seconds by kind with the keys of
 * docs/contracts.md, always tp, cp, ep, pp, dp in that order. A key with no ProgCommKind
 * (ep: the step program has no expert parallelism) is 0.0; a non-finite value is null. */
void sim_comm_kinds_to_json (JsonBuilder *builder, const char *name,
                             const double v[PROG_COMM_N]);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimPrediction, sim_prediction_free)

G_END_DECLS
