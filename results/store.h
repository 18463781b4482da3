/* results/store.h - the SQLite results store: runs, predictions, measurements, phases,
 * calibrated profiles, imported published rows and validations.
 *
 * Contract:
 *  - One SQLite file (`tandem.db` by default; ":memory:" for tests). On open: WAL on
 *    local disk (DELETE where WAL cannot work: network file systems, ":memory:"),
 *    synchronous=NORMAL, foreign_keys=ON, busy_timeout=5000 ms.
 *  - The schema is versioned by PRAGMA user_version and upgraded by numbered migrations,
 *    each in one BEGIN IMMEDIATE ... COMMIT. A file whose version is newer than
 *    RES_SCHEMA_VERSION, a file that is not a SQLite database, a SQLite database of
 *    another program, a corrupt file or an unwritable path is refused with a RES_ERROR
 *    that names the path and says what to do.
 *  - Every res_store_add_* call is one transaction: either all of its rows are visible
 *    to other connections, or none is. Several processes (MPI ranks, parallel sweeps)
 *    may write the same file at once; a writer waits for the lock up to the busy timeout,
 *    then fails with RES_ERROR_BUSY.
 *  - Units are in the names: seconds (_s), bytes (_bytes), tokens per second, TFLOP/s
 *    per GPU; fractions in [0, 1]. MFU/HFU are JSON objects keyed by FLOP convention
 *    (e.g. {"megatron": 0.41, "palm": 0.43}) because the number depends on the FLOP
 *    count used.
 *  - In ResMetrics, NaN means "unknown" and is stored as NULL (read back as NaN);
 *    likewise peak_memory_bytes < 0, fits < 0 and NULL strings. JSON columns must hold
 *    valid JSON (CHECK json_valid), or the insert fails with RES_ERROR_CONSTRAINT.
 *  - Input structs and their strings are borrowed. Results (ResRunRow, ResRunRecord,
 *    strings) belong to the caller and are freed with the named free function.
 *  - A ResStore is one connection: use it from one thread at a time, and open a new one
 *    after fork(). The library never prints. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define RES_ERROR (res_error_quark ())
GQuark res_error_quark (void);

typedef enum {
  RES_ERROR_OPEN,            /* the path cannot be opened or created */
  RES_ERROR_NOT_A_DATABASE,  /* not a SQLite file, or a SQLite file of another program */
  RES_ERROR_CORRUPT,         /* a SQLite file whose pages are damaged */
  RES_ERROR_TOO_NEW,         /* schema version newer than this tandem knows */
  RES_ERROR_READ_ONLY,       /* no write permission on the file or its directory */
  RES_ERROR_BUSY,            /* another process held the lock past the busy timeout */
  RES_ERROR_CONSTRAINT,      /* a row broke a CHECK / NOT NULL / foreign key */
  RES_ERROR_NOT_FOUND,       /* no run of that id */
  RES_ERROR_FAILED,          /* any other SQLite failure (disk full, I/O error, ...) */
  RES_ERROR_CLOSED,          /* the run was already closed (by another rank) */
} ResError;

/* The newest schema this code knows; migrations bring older files up to it. */
#define RES_SCHEMA_VERSION 2

/* Default busy timeout: how long a writer waits for another process's lock. */
#define RES_BUSY_TIMEOUT_MS 5000

typedef enum {
  RES_KIND_PREDICT,          /* "predict": a simulated plan */
  RES_KIND_RUN,              /* "run": real execution, measured next to predicted */
  RES_KIND_VALIDATE,         /* "validate": predictions checked against published rows */
  RES_KIND_SEARCH,           /* "search": one candidate of a plan search */
  RES_KIND_CALIBRATE,        /* "calibrate": microbenchmarks for a hardware profile */
  RES_KIND_N,
} ResRunKind;

typedef enum {
  RES_STATUS_OK,             /* "ok" */
  RES_STATUS_FAILED,         /* "failed": an error stopped the run (see error) */
  RES_STATUS_OOM,            /* "oom": the plan does not fit (predicted or measured) */
  RES_STATUS_RUNNING,        /* "running": started, not closed yet, heartbeat fresh */
  RES_STATUS_DIED,           /* "died": read only: running, but its heartbeat is stale */
  RES_STATUS_N,
} ResRunStatus;

/* Exposed (not overlapped with compute) communication time by parallel axis. */
typedef enum {
  RES_COMM_TP,               /* tensor parallel collectives */
  RES_COMM_CP,               /* context parallel ring / all-gather */
  RES_COMM_PP,               /* pipeline send/recv (not the bubble) */
  RES_COMM_DP,               /* data parallel gradient reduce / parameter gather */
  RES_COMM_EP,               /* expert parallel all-to-all (MoE) */
  RES_COMM_N,
} ResComm;

typedef enum {
  RES_SOURCE_PREDICTED,      /* "predicted" */
  RES_SOURCE_MEASURED,       /* "measured" */
  RES_SOURCE_N,
} ResSource;

/* What a run was. Every string may be NULL. */
typedef struct {
  ResRunKind    kind;
  ResRunStatus  status;
  const char   *model;         /* short name: preset name or config basename */
  const char   *cluster;       /* short name of the cluster */
  const char   *plan;          /* canonical short plan string, e.g. "tp8.pp16.dp64.mbs1" */
  const char   *plan_json;     /* the full plan (JSON) */
  const char   *model_json;    /* the model's raw config.json */
  const char   *cluster_json;  /* the cluster's raw JSON */
  gint64        world_size;    /* GPUs / ranks; <= 0: unknown */
  const char   *host;          /* NULL: this machine (g_get_host_name) */
  const char   *note;          /* free text from the user */
  const char   *error;         /* why it failed (status failed / oom) */
  const char   *framework;     /* software stack (frameworks/); NULL: the plan_json's
                                * "framework" member, if any */
} ResRunInfo;

/* One step's metrics, predicted or measured. Call res_metrics_init () first: it sets
 * every field to "unknown". */
typedef struct {
  double        step_time_s;                  /* one optimizer step */
  double        tokens_per_s;                 /* whole job */
  double        tflops_per_gpu;               /* model TFLOP/s per GPU */
  const char   *mfu_json;                     /* {"convention": fraction, ...} */
  const char   *hfu_json;                     /* one number: executed FLOPs incl. recompute */
  double        bubble_fraction;              /* pipeline idle / step time */
  double        compute_s;                    /* compute busy time per step */
  double        exposed_s[RES_COMM_N];        /* exposed comm per step, by axis */
  double        overlap_ratio;                /* hidden comm / total comm, in [0, 1] */
  gint64        peak_memory_bytes;            /* per GPU; < 0: unknown */
  int           fits;                         /* 1 fits, 0 OOM, < 0 unknown */
  const char   *memory_json;                  /* per-GPU bytes by category */
  double        sim_wall_s;                   /* simulator wall time (predictions only) */
  const char   *extra_json;                   /* anything else, as a JSON object */
  double        mfu;                          /* headline MFU in flops_convention */
  const char   *flops_convention;             /* "palm", "megatron96", ... (NULL: none) */
  double        hfu;                          /* executed FLOPs / peak: one number */
} ResMetrics;

/* How a measurement was taken. */
typedef struct {
  gint64        steps;                        /* timed steps */
  gint64        warmup;                       /* untimed steps before them */
  gint64        ranks;                        /* ranks that reported */
  const char   *step_times_json;              /* [seconds, ...] one per timed step */
} ResMeasureInfo;

/* Busy and exposed time of one kind of work on one rank. */
typedef struct {
  ResSource     source;
  gint64        rank;                         /* >= 0 */
  const char   *kind;                         /* "compute", "tp", "cp", "pp", "dp", "bubble", ... */
  double        busy_s;                       /* time the stream was busy per step */
  double        exposed_s;                    /* of which not hidden behind compute; NaN: n/a */
} ResPhase;

/* One published row checked by `tandem validate`. */
typedef struct {
  gint64        row_id;                       /* published.row_id (need not be imported) */
  double        predicted_step_s;             /* > 0 */
  double        measured_step_s;              /* > 0 */
  double        err_pct;                      /* NaN: computed, 100 (pred - meas) / meas */
  /* read back only (res_store_get_run), from the published row of that row_id where it
   * was imported (validate imports each row before its run): NULL / 0 otherwise */
  const char   *model;
  const char   *gpu_type;
  gint64        n_gpus;
} ResValidationRow;

/* One imported published measurement (data/published-runs.csv). */
typedef struct {
  gint64        row_id;                       /* the CSV's row_id */
  const char   *source;                       /* paper / report it comes from */
  const char   *model;
  const char   *gpu_type;
  gint64        n_gpus;                       /* <= 0: unknown */
  const char   *row_json;                     /* the whole CSV row as a JSON object */
} ResPublishedRow;

/* A row of res_store_list_runs. Owns its strings. */
typedef struct {
  gint64        run_id;
  char         *created_at;                   /* UTC ISO-8601, "2025-01-31T12:00:00.123Z" */
  ResRunKind    kind;
  ResRunStatus  status;
  char         *model;
  char         *cluster;
  char         *plan;
  gint64        world_size;                   /* <= 0: unknown */
  double        predicted_step_s;             /* NaN: no prediction */
  double        measured_step_s;              /* NaN: no measurement */
  char         *mfu_json;                     /* predicted MFU, NULL if none */
  char         *measured_mfu_json;            /* measured MFU, NULL if none */
  char         *error;
  char         *framework;
  char         *started_at;                   /* NULL for none */
  char         *heartbeat_at;
  char         *finished_at;                  /* NULL while running */
  double        predicted_mfu;                /* NaN: none; in flops_convention */
  double        measured_mfu;
  char         *flops_convention;
  double        predicted_hfu;
  double        measured_hfu;
} ResRunRow;

/* One plan a search looked at (the search_candidates table). */
typedef struct {
  gint64        place;                        /* 1 = best; <= 0: not ranked */
  const char   *plan;                         /* canonical short plan string; required */
  gint64        tp, cp, pp, vpp, dp, ep, mbs; /* <= 0: unknown */
  const char   *sharding, *recompute, *schedule;
  double        step_time_s;                  /* NaN: unknown */
  double        tokens_per_s;
  double        mfu;                          /* in the run's flops_convention */
  double        hfu;
  gint64        peak_memory_bytes;            /* < 0: unknown */
  int           fits;                         /* 1, 0, < 0 unknown */
  const char   *flags;                        /* free text, e.g. "pruned:memory" */
} ResSearchCandidate;

/* Everything stored for one run, read back. The strings inside (including those of
 * info, pred, meas, measure and phases) belong to the record. */
typedef struct {
  gint64            run_id;
  const char       *created_at;
  const char       *tool_version;
  ResRunInfo        info;                     /* info.host is the stored host */
  gboolean          has_prediction;
  ResMetrics        pred;
  gboolean          has_measurement;
  ResMetrics        meas;                     /* sim_wall_s is NaN */
  ResMeasureInfo    measure;
  GArray           *phases;                   /* ResPhase, by source, rank, kind */
  GArray           *validations;              /* ResValidationRow, by row_id */
  const char       *started_at;
  const char       *heartbeat_at;
  const char       *finished_at;              /* NULL while running */
  double            stale_after_s;            /* NaN: none */
  GArray           *candidates;               /* ResSearchCandidate: ranked by place,
                                               * then unranked in insert order */
  GStringChunk     *strings;                  /* private: owns every string above */
} ResRunRecord;

typedef struct ResStore ResStore;

const char   *res_run_kind_to_string   (ResRunKind kind);
gboolean      res_run_kind_from_string (const char *s, ResRunKind *out);
const char   *res_run_status_to_string (ResRunStatus status);
gboolean      res_run_status_from_string (const char *s, ResRunStatus *out);
const char   *res_source_to_string     (ResSource source);

void          res_metrics_init         (ResMetrics *metrics);

ResStore     *res_store_open           (const char *path, GError **error);

typedef enum {
  RES_OPEN_DEFAULT   = 0,
  /* Read-only: nothing is created, migrated or written. Works on a read-only file or in
   * a read-only directory (there a WAL file is opened immutable: nobody can write it).
   * A file of an older schema is copied into memory and migrated there. */
  RES_OPEN_READ_ONLY = 1 << 0,
} ResOpenFlags;

/* res_store_open with flags and a busy timeout (ms) that applies from the first
 * statement on (the migration included). */
ResStore     *res_store_open_full      (const char *path, ResOpenFlags flags,
                                        guint busy_timeout_ms, GError **error);
void          res_store_close          (ResStore *store);                  /* NULL-safe */
const char   *res_store_get_path       (const ResStore *store);
/* "wal", "delete" or "memory": what the file actually runs in. */
const char   *res_store_get_journal_mode (const ResStore *store);
int           res_store_get_schema_version (ResStore *store, GError **error);
void          res_store_set_busy_timeout (ResStore *store, guint timeout_ms);

/* Inserts. Each is one transaction and returns the new run id, or -1 with error set. */
gint64        res_store_add_prediction (ResStore *store, const ResRunInfo *info,
                                        const ResMetrics *pred,
                                        const ResPhase *phases, guint n_phases,
                                        GError **error);
/* A real run: the measurement next to the prediction made for the hardware that ran
 * (pred may be NULL when no prediction could be made). */
gint64        res_store_add_run        (ResStore *store, const ResRunInfo *info,
                                        const ResMetrics *pred, const ResMetrics *meas,
                                        const ResMeasureInfo *mi,
                                        const ResPhase *phases, guint n_phases,
                                        GError **error);
/* A run that produced no metrics. Stored with info->status when that is failed or
 * oom, else with status failed. */
gint64        res_store_add_failed_run (ResStore *store, const ResRunInfo *info,
                                        GError **error);
gint64        res_store_add_validation (ResStore *store, const ResRunInfo *info,
                                        const ResValidationRow *rows, guint n_rows,
                                        GError **error);
/* A run recorded from its start: a row with status 'running', started and heartbeat
 * now. stale_after_s > 0: readers show it as 'died' once its heartbeat is older. */
gint64        res_store_start_run      (ResStore *store, const ResRunInfo *info,
                                        double stale_after_s, GError **error);
/* Refreshes a running run's heartbeat. RES_ERROR_CLOSED when it is closed already. */
gboolean      res_store_heartbeat      (ResStore *store, gint64 run_id, GError **error);
/* Closes a running run as status (ok, failed or oom) with its rows, in one transaction:
 * error text (may be NULL), and whichever of pred, meas (with mi) and phases are given.
 * Exactly once: RES_ERROR_CLOSED, and nothing written, when someone closed it before. */
gboolean      res_store_finish_run     (ResStore *store, gint64 run_id, ResRunStatus status,
                                        const char *error_text, const ResMetrics *pred,
                                        const ResMetrics *meas, const ResMeasureInfo *mi,
                                        const ResPhase *phases, guint n_phases,
                                        GError **error);
/* How a run reads now (running, died, ok, ...); FALSE with RES_ERROR_NOT_FOUND. */
gboolean      res_store_get_run_status (ResStore *store, gint64 run_id, ResRunStatus *out,
                                        GError **error);
/* A search: the run (kind search), the best plan's prediction (may be NULL) and every
 * candidate row, in one transaction. */
gint64        res_store_add_search     (ResStore *store, const ResRunInfo *info,
                                        const ResMetrics *best,
                                        const ResSearchCandidate *candidates, guint n,
                                        GError **error);
/* host NULL: this machine. Returns the profile id. */
gint64        res_store_add_profile    (ResStore *store, const char *backend,
                                        const char *host, const char *name,
                                        const char *profile_json, GError **error);
/* Inserts or replaces published rows by row_id, all in one transaction. */
gboolean      res_store_import_published (ResStore *store, const ResPublishedRow *rows,
                                          guint n_rows, GError **error);

/* Reads. */
/* The newest profile_json for backend on host (host NULL: any host). NULL without
 * error set when there is none. */
char         *res_store_latest_profile (ResStore *store, const char *backend,
                                        const char *host, GError **error);
/* The same, with the profile's id and when it was stored (either out pointer may be
 * NULL; set only when a profile is returned; *created_at to g_free). */
char         *res_store_latest_profile_info (ResStore *store, const char *backend,
                                             const char *host, gint64 *profile_id,
                                             char **created_at, GError **error);
/* Newest first; limit 0: all. Returns a GPtrArray of ResRunRow that frees them. */
GPtrArray    *res_store_list_runs      (ResStore *store, guint limit, GError **error);
void          res_run_row_free         (ResRunRow *row);                   /* NULL-safe */
/* NULL with RES_ERROR_NOT_FOUND when there is no such run. */
ResRunRecord *res_store_get_run        (ResStore *store, gint64 run_id, GError **error);
void          res_run_record_free      (ResRunRecord *record);             /* NULL-safe */
/* Number of published rows stored. -1 on error. */
gint64        res_store_count_published (ResStore *store, GError **error);

/* ---- the shared JSON shape (docs/contracts.md) ---------------------------------------- */
/* Sets `name` to the stored JSON text `json_text` as a value (an mfu_json object read
 * back stays an object, not a string of one); null when NULL or not JSON. */
void          res_json_member_raw      (JsonBuilder *b, const char *name, const char *json_text);
/* Sets `name` to the contract's figures of stored metrics: {"mfu": {convention:
 * fraction}, "hfu": fraction, "bubble_fraction": fraction} (null each where unknown), as
 * a prediction's JSON has them; null when `m` is NULL (no prediction, no measurement). */
void          res_metrics_member       (JsonBuilder *b, const char *name, const ResMetrics *m);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResStore, res_store_close)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResRunRow, res_run_row_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResRunRecord, res_run_record_free)

G_END_DECLS
