/* results/report.h - scaling, validation and single-run reports: a table computed once,
 * then rendered by writers (HTML, Markdown, CSV, JSON) and plots (cairo, PNG and SVG).
 *
 * Contract:
 *  - Every figure in a report comes from the library calls `tandem predict` uses
 *    (sim_predict, its SimResult and PlanMemory) or from the store as written; no writer
 *    and no plot computes a metric of its own. The only arithmetic done here is the one
 *    the report defines: speed-up and efficiency against the base point, and relative
 *    errors of predicted against measured.
 *  - Strong scaling (fixed global batch B): S_G = T_base / T_G, E_G = S_G x G_base / G.
 *    Weak scaling (B at the smallest requested size, growing in proportion to G):
 *    E_G = T_base / T_G, S_G = E_G x G / G_base. The base is the smallest size of a
 *    cluster whose plan is valid and fits (else the smallest that was predicted); a
 *    size whose plan does not fit has no S and E when the base fits.
 *  - A size without a valid plan is a row with status "invalid" and the reason; a plan
 *    that does not fit is predicted and marked "oom" with the reason.
 *  - Plan per size: "fixed" scales the given plan in dp; "search" takes the best plan of
 *    sim/search.h at that size (objective: step time, the batch being fixed there), then
 *    predicts it by the same sim_predict.
 *  - Units: seconds, tokens per second, bytes; fractions in [0, 1].
 *  - The library never prints; files are written only where the caller asks, and an
 *    existing report is refused unless `force`. Errors are REPORT_ERROR GErrors. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <cairo.h>

#include "models/model.h"
#include "topology/cluster.h"
#include "plan/plan.h"
#include "plan/memory.h"
#include "frameworks/stack.h"
#include "sim/simulate.h"
#include "results/store.h"

G_BEGIN_DECLS

#define REPORT_ERROR (report_error_quark ())
GQuark report_error_quark (void);

typedef enum {
  REPORT_ERROR_INPUT,        /* contradictory or missing options: the user's input */
  REPORT_ERROR_EXISTS,       /* the output would overwrite a report (no force) */
  REPORT_ERROR_WRITE,        /* the output directory cannot be made or written */
  REPORT_ERROR_FAILED,       /* anything else (a file whose write failed: a full disk;
                              * a cairo failure, the store) */
} ReportError;

/* Exposed communication columns, in the contract's order (docs/contracts.md). */
typedef enum {
  REPORT_COMM_TP, REPORT_COMM_CP, REPORT_COMM_EP, REPORT_COMM_PP, REPORT_COMM_DP,
  REPORT_COMM_N,
} ReportComm;
const char *report_comm_name (ReportComm k);   /* "tp", "cp", "ep", "pp", "dp" */

typedef enum { REPORT_STRONG, REPORT_WEAK } ReportMode;
typedef enum { REPORT_PLAN_FIXED, REPORT_PLAN_SEARCH } ReportPlanPerSize;

/* Output formats, as a bit set. */
enum {
  REPORT_FORMAT_HTML = 1 << 0,
  REPORT_FORMAT_MD   = 1 << 1,
  REPORT_FORMAT_CSV  = 1 << 2,
  REPORT_FORMAT_JSON = 1 << 3,   /* DIR/report.json */
  REPORT_FORMAT_PNG  = 1 << 4,   /* the plots beside the HTML */
};
/* "html,md,csv,json,png" -> bits; FALSE with REPORT_ERROR_INPUT on an unknown name. */
gboolean report_formats_parse (const char *text, guint *out, GError **error);

/* One size of one cluster. Strings are owned by the row. */
typedef struct {
  char    *cluster;
  int      gpus;
  char    *status;                /* "ok", "oom", "invalid" */
  char    *reason;                /* why not ok; NULL when ok */
  gboolean predicted;             /* the figures below are set */
  char    *plan;                  /* plan_to_string (its suffixes tell the overlaps, CP
                                     exchange and rank order), NULL when invalid */
  char    *flags;                 /* --plan-per-size search: tandem predict flags that
                                     reproduce the row's plan (search_plan_flags); NULL for
                                     a fixed plan (the user's own flags and --gpus) */
  int      global_batch;          /* sequences per step */
  int      seq_length;
  double   step_time_s;
  double   tokens_per_s;
  double   tokens_per_s_per_gpu;
  double   mfu;                   /* in the report's FLOP convention */
  double   mfu_by_conv[MODEL_FLOPS_N_CONVENTIONS];
  double   hfu;                   /* executed FLOPs; no convention */
  double   speedup;               /* NaN when the cluster has no base */
  double   efficiency;
  double   bubble_fraction;
  double   compute_s;             /* mean over stages, as predict reports it */
  double   exposed_s[REPORT_COMM_N];
  double   comm_s[REPORT_COMM_N];  /* busy, as predict's comm_s (docs/contracts.md) */
  guint64  peak_memory_bytes;
  guint64  memory_bytes[PLAN_MEM_N]; /* of the peak stage */
  int      peak_stage;
  guint64  capacity_bytes;        /* device HBM */
  gboolean fits;
} ReportScalingRow;

/* A stored `run` row measured on one of the report's clusters with the same model, at one
 * of its sizes, with that size's global batch, the same sequence length and the same
 * compute dtype (results/report-scaling.c collect_measured). */
typedef struct {
  gint64   run_id;
  char    *cluster;
  int      gpus;
  char    *plan;
  double   measured_step_s;
  double   measured_tokens_per_s;  /* NaN when not stored */
  double   predicted_step_s;       /* NaN when not stored */
} ReportMeasuredPoint;

typedef struct {
  char             *model;
  ReportMode        mode;
  ReportPlanPerSize plan_per_size;
  ModelFlopConvention conv;
  int               gbs;            /* as given (strong: all sizes; weak: the smallest) */
  GPtrArray        *clusters;       /* char*, in the order given */
  GArray           *base_gpus;      /* int per cluster; 0 when the cluster has no base */
  GPtrArray        *rows;           /* ReportScalingRow*, cluster-major, sizes ascending */
  GPtrArray        *measured;       /* ReportMeasuredPoint* */
  guint             measured_apart; /* stored runs of the model on a cluster of the report
                                       left out: another size, batch, length or dtype */
  GPtrArray        *accuracy;       /* char* per cluster: how well published runs of this
                                       kind on its device family were predicted
                                       (results/accuracy.h res_accuracy_sentence) */
} ReportScaling;

typedef struct {
  const ModelSpec     *model;
  const Plan          *plan;        /* the template: degrees, mbs, schedule, ...; not resolved */
  TopoCluster *const  *clusters;
  guint                n_clusters;
  const int           *gpus;        /* ascending, distinct */
  guint                n_gpus;
  ReportMode           mode;
  ReportPlanPerSize    plan_per_size;
  int                  gbs;         /* > 0 */
  ModelFlopConvention  conv;
  const SimOptions    *opts;        /* NULL: sim_options_init for each cluster, then the
                                       stack's cost options, as `tandem predict` does */
  const FwStack       *stack;       /* NULL: the default stack (megatron-core) */
  ResStore            *store;       /* read for measured points; may be NULL */
  const char          *extra_flags; /* the plan flags typed that the search does not set
                                       (--precision fp8, --framework F, ...), for the
                                       search rows' flags; may be NULL */
  const char          *fixed_flags; /* the same without --dp (the fixed plan is scaled in
                                       dp): after the model, cluster, size, batch and
                                       sequence, a fixed row's flags; NULL: the rows get
                                       none (a --plan file, whose counts are dropped at
                                       each size) */
} ReportScalingSpec;

ReportScaling *report_scaling_compute (const ReportScalingSpec *spec, GError **error);
/* Whether cluster c's base fits in memory: FALSE where no size of it fits (its base is
 * then its smallest predicted size, and its speed-up and efficiency compare plans that
 * do not fit) or it has no base. */
gboolean report_scaling_base_fits (const ReportScaling *r, guint c);
/* The base of cluster c as the reports write it: "8 GPUs", "8 GPUs (no size fits in
 * memory: ...)", "none (no size has a plan)". */
const char *report_scaling_base_text (const ReportScaling *r, guint c, char *buf, gsize n);
void           report_scaling_free    (ReportScaling *r);                /* NULL-safe */

/* Writers of the scaling report. */
void     report_scaling_to_json (const ReportScaling *r, JsonBuilder *b);
char    *report_scaling_csv     (const ReportScaling *r);
char    *report_scaling_markdown (const ReportScaling *r, const char *const *pngs);
gboolean report_scaling_write   (const ReportScaling *r, const char *dir, guint formats,
                                 gboolean force, GPtrArray *written, GError **error);

/* Plots: each draws one figure of w x h points on cr (axes, ticks with units, series,
 * legend) and knows nothing of files. */
void report_plot_throughput (const ReportScaling *r, cairo_t *cr, double w, double h);
void report_plot_efficiency (const ReportScaling *r, cairo_t *cr, double w, double h);
void report_plot_breakdown  (const ReportScaling *r, cairo_t *cr, double w, double h);
void report_plot_memory     (const ReportScaling *r, cairo_t *cr, double w, double h);

/* Validation: predicted against measured, per stored run (kind run) and per published
 * row of a stored `validate` run. */
typedef enum {
  REPORT_TERM_STEP, REPORT_TERM_COMPUTE, REPORT_TERM_BUBBLE,
  REPORT_TERM_TP, REPORT_TERM_CP, REPORT_TERM_EP, REPORT_TERM_PP, REPORT_TERM_DP,
  REPORT_TERM_MEMORY, REPORT_TERM_N,
} ReportTerm;
const char *report_term_name (ReportTerm t);

typedef struct {
  gint64  run_id;
  gint64  published_row;          /* > 0 for a row of a validate run, else 0 */
  char   *kind;                   /* "run" or "validate" */
  char   *model;
  char   *cluster;
  char   *plan;
  int     gpus;
  double  predicted[REPORT_TERM_N];  /* NaN where unknown */
  double  measured[REPORT_TERM_N];
  double  err_pct[REPORT_TERM_N];    /* 100 (pred - meas) / meas; NaN where unknown */
} ReportValidationRow;

typedef struct {
  GPtrArray *rows;                /* ReportValidationRow* in run order */
  guint      n_within_10pct;      /* rows whose step-time error is within +-10% */
  guint      n_superseded;        /* rows of older validate runs left out: a later run of
                                     the same CSV (by name) predicted that published row */
} ReportValidation;

/* runs NULL / n_runs 0: every stored run with a measurement, and each published row of
 * the stored validate runs once, from the latest run of its CSV (by file name) that
 * predicted it (the older ones counted in n_superseded); runs asked for: all their rows. A run
 * asked for that has neither is REPORT_ERROR_INPUT, one that is not there is the
 * store's RES_ERROR_NOT_FOUND. */
ReportValidation *report_validation_compute (ResStore *store, const gint64 *runs,
                                             guint n_runs, GError **error);
void              report_validation_free    (ReportValidation *v);      /* NULL-safe */
void     report_validation_to_json (const ReportValidation *v, JsonBuilder *b);
gboolean report_validation_write   (const ReportValidation *v, const char *dir, guint formats,
                                    gboolean force, GPtrArray *written, GError **error);
void report_plot_scatter    (const ReportValidation *v, cairo_t *cr, double w, double h);
void report_plot_term_error (const ReportValidation *v, cairo_t *cr, double w, double h);



/* One stored run (predict, run or search) as a page: summary, figures predicted and
 * measured with their errors, where the step went, memory by pipeline stage, and the
 * timeline: re-simulated from the stored model, cluster and plan by sim_predict (the
 * prediction's own code) and written beside the page as timeline.json. A run with no
 * figures is REPORT_ERROR_INPUT; one that is not stored, the store's RES_ERROR_NOT_FOUND. */
typedef struct ReportRun ReportRun;
ReportRun *report_run_compute (ResStore *store, gint64 run_id, GError **error);
void       report_run_free    (ReportRun *r);                            /* NULL-safe */
void       report_run_to_json (const ReportRun *r, JsonBuilder *b);
gboolean   report_run_write   (const ReportRun *r, const char *dir, guint formats,
                               gboolean force, GPtrArray *written, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ReportScaling, report_scaling_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ReportRun, report_run_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ReportValidation, report_validation_free)

G_END_DECLS
