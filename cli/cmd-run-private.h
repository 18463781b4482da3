/* cli/cmd-run-private.h - what cmd-run.c (the command, failures, --verify) and
 * cmd-run-report.c (storing and printing measured next to predicted) share. */
#pragma once

#include "cli/cli.h"
#include "exec/runner.h"
#include "sim/predict.h"
#include "cli/cli-store.h"

#define VERIFY_LOSS_TOL 1e-5   /* relative: fp32 sums in another order (TP, CP, DP splits) */
#define VERIFY_GNORM_TOL 1e-4  /* relative: a norm over every gradient, more sums */

/* The flags of tandem run besides the plan's. */
typedef struct {
  gboolean json, verify;
  int      steps, warmup;
  double   timeout_s;
  gint64   seed;
  char    *trace, *pred_trace, *note;
  char    *merged_trace;  /* --merged-trace: measured and predicted in one file */
  char   **cost;
  char    *backend;       /* --backend (NULL: cpu) */
} RunArgs;

/* One rank's run: the backend, what the plan was resolved against, the flags. */
typedef struct {
  ExecBackend *b;
  ModelSpec   *model;
  TopoCluster *cluster;
  gboolean     calibrated;
  Plan         plan;
  PlanArgs     pargs;
  RunArgs      a;
  CliDbArgs    dba;         /* --db, --db-timeout, --no-db */
  int          rank, world;
  gint64       run_id;      /* the row written at the start, known to every rank; -1:
                             * none (--no-db, or the store was not reachable) */
  char        *start_error; /* why rank 0 could not write that row */
  struct RunHeartbeat *heartbeat;   /* rank 0: the thread that keeps the row fresh */
  /* measurement hygiene (cli/cli-hygiene.h): rank 0's 1-minute load average before the
   * run (-1 unknown), and the stored profile the prediction used (-1: none from the
   * store: a --cluster file's own profile, or no profile) */
  double       load_before;
  gint64       profile_id;
  char        *profile_stored_at;
  /* rank 0's share of a core while runnable over the run (exec_sched_share; 0 unknown),
   * and the step predicted with it in place of the calibration's (sim/cost-cpu.c term 3;
   * 0 when the contention model does not apply) */
  double       run_share;
  double       step_with_share_s;
  /* the share that prediction took: the median step's slowest rank's (each rank samples
   * its own around every step; sim_cost_cpu_step_share) and that rank, else run_share
   * with rank -1 (no rank measured its steps) */
  double       step_share;
  int          step_share_rank;
  /* term 4 (sim_cost_cpu_skew_s): the time the ranks' drift between collectives adds to
   * step_with_share_s, over how many segments; -1 when not known (no per-rank compute
   * figures, or the model does not apply) */
  double       skew_s;
  int          skew_segments;
  double       skew_poisson_s;   /* the same with each rank's waits as the compound Poisson
                                  * sum alone (no task-to-task variance measured) */
  /* the world group the end barrier reduces over, made at the start with every rank there
   * (after run_start): made at the end, its creation's barrier had a fixed deadline of
   * --timeout, so the ranks waiting for rank 0's --verify check or its store gave up
   * while rank 0 still beat (the barrier's own wait goes on while it beats) */
  ExecGroup   *end_group;
  /* the ranks have compared their flags (check_ranks_agree): a rank that fails before
   * that tells the others there instead of leaving them waiting in it */
  gboolean     agreed;
} RunCtx;

/* --verify: the first step of the parallel run against the single-rank reference. */
typedef struct {
  gboolean ok;
  double   loss, ref_loss, gnorm, ref_gnorm, loss_err, gnorm_err;
  double   loss_tol, gnorm_tol;   /* relative; the backend's (fp32 on the CPU, BF16 math
                                   * on cuda) */
} Verify;

/* Stores the run (prediction and measurement under one run id): closes the row written at
 * the start (c->run_id), or inserts the whole run; -1 with error set. */
gint64    cli_run_store      (RunCtx *c, const ExecRunResult *m, const SimPrediction *p,
                              const PlanMemory *mem, const Verify *v, GError **error);
/* Rank 0's output; v NULL without --verify. The JSON object, or the text without the
 * store's line (print, then store: docs/contracts.md). */
/* The members of a run's "predicted" object, in the open object of `b`: the step, its
 * parts, MFU by convention and HFU, and the peak memory (bubble_s where >= 0: the failed
 * run's object has none). */
void      cli_run_predicted_members (JsonBuilder *b, const SimPrediction *p, double bubble_s,
                                     guint64 peak_bytes);
/* The stack a run is predicted with: `run` has no --framework, and its prediction takes
 * sim_cost_options_init's default stack; stored in the row and named in the JSON. */
#define CLI_RUN_STACK FW_STACK_DEFAULT
JsonNode *cli_run_json       (RunCtx *c, const ExecRunResult *m, const SimPrediction *p,
                              const PlanMemory *mem, const Verify *v);
void      cli_run_print_text (RunCtx *c, const ExecRunResult *m, const SimPrediction *p,
                              const PlanMemory *mem, const Verify *v);
/* The CPU contention model's host for this run's prediction (sim/cost-cpu.c): the cores
 * this process may run on now (sched_getaffinity) and the ranks on this host (mpirun's
 * local size, else the world). Nothing changes for a cluster the model does not apply to. */
void      cli_run_cpu_host   (const RunCtx *c, SimCostOptions *o);
/* On stderr, "tandem: warning: ..." for each reason not to trust the measured step time
 * (its spread over the timed steps, the machine's load before the run). */
void      cli_run_warn_hygiene (RunCtx *c, const ExecRunResult *m);
