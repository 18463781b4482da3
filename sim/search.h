/* sim/search.h - enumerate the plans of a model, a cluster and a batch; rank them.
 *
 * Contract:
 *  - The space is a list of candidates in a fixed order (search_space_new enumerates it
 *    once from a SearchSpec): search_space_size() counts it and search_candidate_plan()
 *    turns index i into a plan (unresolved), so threads and MPI ranks can split it by
 *    index ranges and agree on what index i is.
 *  - search_run() is exact: a candidate leaves the ranking only when it is invalid
 *    (plan_resolve refuses it, or its simulation fails), out of memory (peak + headroom
 *    over the device's HBM), or pruned because its lower bound (search_bound_s) is already
 *    worse than the K-th best score found. The bound never exceeds the step time the
 *    predictor returns: it is the compute that the plan's busiest chain of compute tasks
 *    must execute at the cost model's own per-block times (the simulator only ever
 *    stretches them), plus the pipeline fill and drain its schedule cannot avoid.
 *  - Scores are lower = better: step time for the step-time and tokens/s objectives (a
 *    fixed batch), step time x GPUs for MFU and tokens per GPU-hour (one precision, so
 *    the peak is common). Ties: lower peak memory, then lower index.
 *  - Predictions go through sim_predict (sim/predict.h), the same call `tandem predict`
 *    makes, with the spec's SimOptions.
 *  - Never prints; the progress callback (optional) is called from worker threads with a
 *    lock held, so it must be quick.
 */
#pragma once

#include <glib.h>
#include "plan/plan.h"
#include "sim/predict.h"

G_BEGIN_DECLS

#define SEARCH_ERROR (search_error_quark ())
GQuark search_error_quark (void);

typedef enum {
  SEARCH_ERROR_CONSTRAINT,   /* contradictory or impossible constraints (exit 2) */
  SEARCH_ERROR_FAILED,       /* a run-time failure */
} SearchError;

typedef enum {
  SEARCH_OBJ_TOKENS_PER_S,       /* default */
  SEARCH_OBJ_STEP_TIME,
  SEARCH_OBJ_MFU,
  SEARCH_OBJ_TOKENS_PER_GPU_HOUR,
} SearchObjective;

const char *search_objective_name  (SearchObjective o);     /* "tokens_per_s", ... */
gboolean    search_objective_parse (const char *name, SearchObjective *out);

/* The two rank orders searched (innermost first). */
#define SEARCH_ORDER_MEGATRON "tp-cp-ep-dp-pp"   /* Megatron-Core's default */
#define SEARCH_ORDER_PP_INNER "tp-cp-ep-pp-dp"

/* One sharding choice; hsdp_k 0 with PLAN_SHARD_HSDP means "every power of two K with
 * 1 < K < dp dividing dp". */
typedef struct {
  PlanSharding kind;
  int          hsdp_k;
} SearchShard;

/* What to search. Int lists (GArray of int) that are NULL or empty take the default
 * values (see search_space_new); masks are bit sets over the enum values (1 << value),
 * 0 = every value. */
typedef struct {
  ModelSpec   *model;     /* ref */
  TopoCluster *cluster;   /* ref */
  Plan         base;      /* seq length, global batch, precision, ...: every field that
                           * is not a dimension below (copied; not resolved) */
  SimOptions   sim;       /* options of every prediction */
  FwStack     *stack;     /* ref or NULL: the software stack; a candidate it refuses
                           * (plan_check_stack, as predict applies it) is invalid, and
                           * TP-comm overlap takes its form (async TP where the stack
                           * offers it) */
  GArray      *gpus;      /* world sizes; empty = the base plan's, else the cluster */
  GArray      *tp, *cp, *pp, *vpp, *mbs;
  GArray      *ep;        /* MoE: expert-parallel degrees; empty = every divisor of the
                           * experts that folds onto the stage (--ep 1 included) */
  GArray      *sharding;  /* SearchShard; empty = none, zero1, zero2, zero3, hsdp:* */
  guint        cp_comm_mask;    /* PlanCpComm */
  guint        recompute_mask;  /* PlanRecompute */
  guint        schedule_mask;   /* PlanSchedule */
  guint        sp_mask;         /* bit 0 off, bit 1 on */
  guint        tp_overlap_mask; /* bit 0 off, bit 1 on */
  guint        dp_overlap_mask; /* bit 0 off, bit 1 on (grad reduce and param gather) */
  gboolean     dp_overlap_stack; /* the stack always overlaps (FwStack dp_overlap_always):
                                  * on wherever dp > 1, set by the stack, not the user */
  guint        order_mask;      /* bit 0 SEARCH_ORDER_MEGATRON, bit 1 SEARCH_ORDER_PP_INNER */
  gboolean     allow_cross_node_tp;
  int          mbs_max;         /* default micro-batch sizes: divisors <= this (16) */
  double       headroom_bytes;  /* kept free on top of the predicted peak */
  int          top_k;
  SearchObjective objective;
  /* --fast (heuristic, search_spec_fast): the open switches follow practice instead of
   * being searched: sequence parallelism on exactly when tp > 1, DP overlap on when
   * dp > 1, no GPipe when pp > 1. Set by search_spec_fast, with the narrowed lists. */
  gboolean     fast;
  gboolean     fast_recompute_open;   /* the user left recompute open (search_spec_fast) */
  gboolean     fast_tp_filled;        /* search_spec_fast chose the tp list, not the user */
  gboolean     fast_cp_comm_filled;   /* ... the CP exchanges */
  gboolean     fast_sharding_filled;  /* ... the sharding kinds */
} SearchSpec;

void search_spec_init  (SearchSpec *spec);    /* zeroes, top_k 5, mbs_max 16 */

/* The --fast rules (heuristic: the best of the narrowed space may miss the exact best),
 * applied to the dimensions the user left open: tp powers of two within a server, cp
 * with ring attention only, micro-batch 1 or 2, sharding none to ZeRO-3 without HSDP,
 * recompute none (`recompute`: selective or full instead, for the second pass when
 * nothing fits without it), and spec->fast for the switches (above); TP-comm overlap,
 * vpp, pp and the rank order stay searched. Call after the model, cluster and base plan
 * are set and before search_space_new. Returns whether the recompute dimension was open
 * (so that a second pass means something). */
gboolean search_spec_fast (SearchSpec *spec, gboolean recompute);
void search_spec_clear (SearchSpec *spec);    /* frees the lists, drops the refs */

/* The software stack as an input (README "tandem search"): takes a ref on `stack` and
 * keeps in the space only the options it offers: no TP-comm overlap where it has none
 * (or where its only form, async TP, needs --compile), the MoE shared-expert overlap on
 * where it offers it and the model has shared experts, no HSDP where it has none. A
 * constraint that asks for what the stack refuses is SEARCH_ERROR_CONSTRAINT (exit 2).
 * Call after the model and base plan are set; `tandem search` and `tandem report
 * scaling --plan-per-size search` both use it, so they search the same space. */
gboolean search_spec_set_stack (SearchSpec *spec, FwStack *stack, GError **error);

/* FALSE with SEARCH_ERROR_CONSTRAINT when the base plan (from plan flags, before any stack)
 * sets a field that every candidate sets for itself (search_candidate_plan: dp, expert
 * TP, the layer split, recompute's method, DP overlap, ...): the search would ignore it.
 * The message names the flag and the search's own way to ask for it. */
gboolean search_base_check (const Plan *base, GError **error);
/* The same for `report scaling --plan-per-size search`, whose hint cannot name the search's
 * own options (--dp-overlap, --recompute LIST): the report takes none of them. */
gboolean search_base_check_report (const Plan *base, GError **error);

typedef struct SearchSpace SearchSpace;

/* Enumerates the space. FALSE-like NULL with SEARCH_ERROR_CONSTRAINT when the constraints
 * contradict the model or cluster (a fixed --tp that does not divide the heads, a pp above
 * the layers, more GPUs than the cluster has, nothing left to enumerate). The space keeps
 * a copy of the spec. */
SearchSpace *search_space_new  (const SearchSpec *spec, GError **error);
void         search_space_free (SearchSpace *space);                    /* NULL-safe */
guint64      search_space_size (const SearchSpace *space);
/* ... of one size of the --gpus list. */
guint64      search_space_size_at (const SearchSpace *space, int gpus);
const SearchSpec *search_space_spec (const SearchSpace *space);

/* Candidate i as a plan (plan_init_defaults + the base + its dimensions; unresolved).
 * `plan` is overwritten; plan_clear it afterwards. */
void  search_candidate_plan  (const SearchSpace *space, guint64 i, Plan *plan);
/* The `tandem predict` flags that reproduce candidate i ("--model ... --tp 8 ..."), with
 * `extra` (the base plan's own flags as typed, may be NULL) appended. */
char *search_candidate_flags (const SearchSpace *space, guint64 i, const char *extra);
/* What --model or --cluster says to load a spec again: its path where it was read from a
 * file, else its name (search.c). */
char *search_spec_arg (const char *name, const char *source);

/* Candidate i resolved and predicted (with a timeline when keep_timeline). */
SimPrediction *search_candidate_predict (const SearchSpace *space, guint64 i,
                                         gboolean keep_timeline, GError **error);

/* Lower bound (seconds) on the step time of a resolved plan, as search_run uses it. */
gboolean search_bound_s (const SearchSpace *space, const Plan *resolved, double *out,
                         GError **error);

/* The score of a step time for a plan of `gpus` GPUs (lower = better). */
double search_score (const SearchSpace *space, double step_time_s, int gpus);

/* One simulated candidate. */
typedef struct {
  guint64 index;
  double  score;
  double  bound_s;
  double  step_time_s;
  double  tokens_per_s;
  double  mfu;            /* palm convention */
  double  hfu;
  guint64 peak_bytes;
  int     place;          /* 1 = best; 0 = not ranked (beyond top K or failed) */
} SearchRow;

typedef struct {
  guint64 enumerated, invalid, oom, pruned, simulated;
  /* invalid reasons: message with its numbers replaced by N -> count (guint) */
  GHashTable *invalid_reasons;
  /* the closest miss among out-of-memory candidates: least peak memory */
  gboolean closest_set;
  guint64  closest_index;
  guint64  closest_peak_bytes;
  guint64  closest_capacity_bytes;
  /* every simulated candidate (SearchRow), in index order; `place` filled */
  GArray  *rows;
  /* the top K, best first (indices into rows) */
  GArray  *top;            /* guint */
  double   wall_s;
  int      ranks;      /* MPI ranks whose counts are summed here (0 or 1: one process) */
} SearchResult;

SearchResult *search_result_new  (void);
void          search_result_free (SearchResult *r);                      /* NULL-safe */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SearchResult, search_result_free)

/* `phase` is "screening" (validity, memory, bound of every candidate: done / total count
 * the space's candidates) or "simulating" (done / total count the candidates that fit,
 * taken best bound first; each taken one is simulated or pruned by its bound, and
 * `simulated` and `pruned` say how many so far; 0 while screening). Called at most ~10
 * times a second; the phase's last call has done = total and the final counts. */
typedef void (*SearchProgress) (const char *phase, guint64 done, guint64 total,
                                guint64 simulated, guint64 pruned, gpointer user_data);

typedef struct {
  guint64        first, last;   /* index range [first, last); last 0 = the whole space */
  int            threads;       /* 0 = every core */
  gboolean       no_prune;      /* simulate every candidate that fits (tests) */
  SearchProgress progress;
  gpointer       progress_data;
} SearchRunOptions;

/* Runs the search over a range. Returns NULL only on a run-time failure (a simulation
 * that fails makes its candidate invalid, with its reason). */
SearchResult *search_run (const SearchSpace *space, const SearchRunOptions *opts,
                          GError **error);

/* Merges results of disjoint ranges (MPI ranks) into `into`: counts, reasons, closest
 * miss and rows; then re-ranks the top K. */
void search_result_merge (const SearchSpace *space, SearchResult *into,
                          const SearchResult *other);
/* Sorts rows by index, ranks them (score, peak, index) and fills `top` and `place`. */
void search_result_rank  (const SearchSpace *space, SearchResult *r);

/* The rule-of-thumb plan for `gpus` GPUs (see search-recipe.c), resolved; FALSE with
 * the reason in `why` (g_free) when the rule finds nothing that fits. */
gboolean search_recipe (const SearchSpace *space, int gpus, Plan *out, char **why);
/* Which of plan_to_string's parts that the search varies and its degrees do not say
 * (-acct..., and after the schedule -cpag / -cpa2a, -tpov, -dpov / -gradov / -paramov,
 * -ppdp, -splitF.L, -chunksF.L) a plan's name carries, as SEARCH_EXTRA_* bits: the
 * search table's legend explains those it used. */
enum { SEARCH_EXTRA_TPOV = 1, SEARCH_EXTRA_DPOV = 2, SEARCH_EXTRA_GRADOV = 4,
       SEARCH_EXTRA_PARAMOV = 8, SEARCH_EXTRA_PPDP = 16, SEARCH_EXTRA_CPAG = 32,
       SEARCH_EXTRA_CPA2A = 64, SEARCH_EXTRA_ACCT = 128, SEARCH_EXTRA_SPLIT = 256,
       SEARCH_EXTRA_CHUNKS = 512 };
guint    search_plan_legend (const Plan *plan);
/* Flags of any resolved plan, as search_candidate_flags writes them. */
char    *search_plan_flags (const SearchSpace *space, const Plan *plan, const char *extra);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SearchSpace, search_space_free)

G_END_DECLS
