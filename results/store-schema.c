/* results/store-schema.c - the schema (numbered migrations) and every statement the
 * store prepares. All SQL of the store lives here; values are always bound (?N), never
 * formatted into the text. */
#include "results/store-private.h"

/* UTC ISO-8601 with milliseconds, e.g. 2025-01-31T12:00:00.123Z: sorts as text.
 * %f is SS.SSS (https://sqlite.org/lang_datefunc.html). */
#define NOW_UTC "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"

#define JSON_OR_NULL(col) "CHECK (" col " IS NULL OR json_valid (" col "))"
#define NONNEG_OR_NULL(col) "CHECK (" col " IS NULL OR " col " >= 0)"

/* The per-step metrics shared by predictions and measurements, in the order
 * METRIC_NAMES lists them (store-write.c binds, store-read.c reads in this order). */
#define METRIC_COLUMNS                                                        \
  "  step_time_s       REAL " NONNEG_OR_NULL ("step_time_s") ",\n"            \
  "  tokens_per_s      REAL " NONNEG_OR_NULL ("tokens_per_s") ",\n"           \
  "  tflops_per_gpu    REAL " NONNEG_OR_NULL ("tflops_per_gpu") ",\n"         \
  "  mfu_json          TEXT " JSON_OR_NULL ("mfu_json") ",\n"                 \
  "  hfu_json          TEXT " JSON_OR_NULL ("hfu_json") ",\n"                 \
  "  bubble_fraction   REAL " NONNEG_OR_NULL ("bubble_fraction") ",\n"        \
  "  compute_s         REAL " NONNEG_OR_NULL ("compute_s") ",\n"              \
  "  exposed_tp_s      REAL " NONNEG_OR_NULL ("exposed_tp_s") ",\n"           \
  "  exposed_cp_s      REAL " NONNEG_OR_NULL ("exposed_cp_s") ",\n"           \
  "  exposed_pp_s      REAL " NONNEG_OR_NULL ("exposed_pp_s") ",\n"           \
  "  exposed_dp_s      REAL " NONNEG_OR_NULL ("exposed_dp_s") ",\n"           \
  "  exposed_ep_s      REAL " NONNEG_OR_NULL ("exposed_ep_s") ",\n"           \
  "  overlap_ratio     REAL CHECK (overlap_ratio IS NULL OR overlap_ratio BETWEEN 0 AND 1),\n" \
  "  peak_memory_bytes INTEGER " NONNEG_OR_NULL ("peak_memory_bytes") ",\n"   \
  "  fits              INTEGER CHECK (fits IS NULL OR fits IN (0, 1)),\n"     \
  "  memory_json       TEXT " JSON_OR_NULL ("memory_json") ",\n"              \
  "  extra_json        TEXT " JSON_OR_NULL ("extra_json") ",\n"

#define METRIC_NAMES                                                          \
  "step_time_s, tokens_per_s, tflops_per_gpu, mfu_json, hfu_json, "           \
  "bubble_fraction, compute_s, exposed_tp_s, exposed_cp_s, exposed_pp_s, "    \
  "exposed_dp_s, exposed_ep_s, overlap_ratio, peak_memory_bytes, fits, "      \
  "memory_json, extra_json"

/* 17 placeholders for METRIC_NAMES, numbered from ?2 (?1 is run_id). */
#define METRIC_PARAMS                                                         \
  "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18"

static const char migration_1[] =
  "CREATE TABLE runs (\n"
  "  run_id       INTEGER PRIMARY KEY,\n"
  "  created_at   TEXT NOT NULL DEFAULT " NOW_UTC ",\n"
  "  kind         TEXT NOT NULL\n"
  "               CHECK (kind IN ('predict', 'run', 'validate', 'search', 'calibrate')),\n"
  "  status       TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'oom')),\n"
  "  tool_version TEXT NOT NULL,\n"
  "  host         TEXT,\n"
  "  model        TEXT,\n"
  "  cluster      TEXT,\n"
  "  plan         TEXT,\n"
  "  plan_json    TEXT " JSON_OR_NULL ("plan_json") ",\n"
  "  model_json   TEXT " JSON_OR_NULL ("model_json") ",\n"
  "  cluster_json TEXT " JSON_OR_NULL ("cluster_json") ",\n"
  "  world_size   INTEGER CHECK (world_size IS NULL OR world_size >= 1),\n"
  "  note         TEXT,\n"
  "  error        TEXT\n"
  ") STRICT;\n"
  "CREATE INDEX runs_by_model ON runs (model, cluster, plan);\n"
  "\n"
  "CREATE TABLE predictions (\n"
  "  run_id       INTEGER PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,\n"
  METRIC_COLUMNS
  "  sim_wall_s   REAL " NONNEG_OR_NULL ("sim_wall_s") "\n"
  ") STRICT;\n"
  "\n"
  "CREATE TABLE measurements (\n"
  "  run_id       INTEGER PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,\n"
  METRIC_COLUMNS
  "  steps        INTEGER " NONNEG_OR_NULL ("steps") ",\n"
  "  warmup       INTEGER " NONNEG_OR_NULL ("warmup") ",\n"
  "  ranks        INTEGER CHECK (ranks IS NULL OR ranks >= 1),\n"
  "  step_times_json TEXT " JSON_OR_NULL ("step_times_json") "\n"
  ") STRICT;\n"
  "\n"
  "CREATE TABLE phases (\n"
  "  run_id       INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
  "  source       TEXT NOT NULL CHECK (source IN ('predicted', 'measured')),\n"
  "  rank         INTEGER NOT NULL CHECK (rank >= 0),\n"
  "  kind         TEXT NOT NULL,\n"
  "  busy_s       REAL " NONNEG_OR_NULL ("busy_s") ",\n"
  "  exposed_s    REAL " NONNEG_OR_NULL ("exposed_s") ",\n"
  "  PRIMARY KEY (run_id, source, rank, kind)\n"
  ") STRICT, WITHOUT ROWID;\n"
  "\n"
  "CREATE TABLE profiles (\n"
  "  profile_id   INTEGER PRIMARY KEY,\n"
  "  created_at   TEXT NOT NULL DEFAULT " NOW_UTC ",\n"
  "  backend      TEXT NOT NULL,\n"
  "  host         TEXT NOT NULL,\n"
  "  name         TEXT,\n"
  "  tool_version TEXT NOT NULL,\n"
  "  profile_json TEXT NOT NULL CHECK (json_valid (profile_json))\n"
  ") STRICT;\n"
  "CREATE INDEX profiles_by_backend ON profiles (backend, host, profile_id);\n"
  "\n"
  "CREATE TABLE published (\n"
  "  row_id       INTEGER PRIMARY KEY,\n"
  "  source       TEXT NOT NULL,\n"
  "  model        TEXT,\n"
  "  gpu_type     TEXT,\n"
  "  n_gpus       INTEGER CHECK (n_gpus IS NULL OR n_gpus >= 1),\n"
  "  row_json     TEXT NOT NULL CHECK (json_valid (row_json)),\n"
  "  imported_at  TEXT NOT NULL DEFAULT " NOW_UTC "\n"
  ") STRICT;\n"
  "\n"
  "CREATE TABLE validations (\n"
  "  run_id           INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
  "  row_id           INTEGER NOT NULL,\n"
  "  predicted_step_s REAL NOT NULL CHECK (predicted_step_s > 0),\n"
  "  measured_step_s  REAL NOT NULL CHECK (measured_step_s > 0),\n"
  "  err_pct          REAL NOT NULL,\n"
  "  PRIMARY KEY (run_id, row_id)\n"
  ") STRICT;\n";

const ResMigration res_migrations[] = {
  { 1, migration_1 },
};
const guint res_n_migrations = G_N_ELEMENTS (res_migrations);

G_STATIC_ASSERT (G_N_ELEMENTS (res_migrations) == RES_SCHEMA_VERSION);

const char *const res_stmt_sql[RES_STMT_N] = {
  [RES_STMT_BEGIN] = "BEGIN IMMEDIATE",
  [RES_STMT_BEGIN_READ] = "BEGIN DEFERRED",
  [RES_STMT_COMMIT] = "COMMIT",
  [RES_STMT_ROLLBACK] = "ROLLBACK",
  [RES_STMT_INSERT_RUN] =
    "INSERT INTO runs (kind, status, tool_version, host, model, cluster, plan, plan_json,"
    " model_json, cluster_json, world_size, note, error)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
  [RES_STMT_INSERT_PREDICTION] =
    "INSERT INTO predictions (run_id, " METRIC_NAMES ", sim_wall_s)"
    " VALUES (?1, " METRIC_PARAMS ", ?19)",
  [RES_STMT_INSERT_MEASUREMENT] =
    "INSERT INTO measurements (run_id, " METRIC_NAMES ", steps, warmup, ranks,"
    " step_times_json) VALUES (?1, " METRIC_PARAMS ", ?19, ?20, ?21, ?22)",
  [RES_STMT_INSERT_PHASE] =
    "INSERT INTO phases (run_id, source, rank, kind, busy_s, exposed_s)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
  [RES_STMT_INSERT_VALIDATION] =
    "INSERT INTO validations (run_id, row_id, predicted_step_s, measured_step_s, err_pct)"
    " VALUES (?1, ?2, ?3, ?4, ?5)",
  [RES_STMT_INSERT_PROFILE] =
    "INSERT INTO profiles (backend, host, name, tool_version, profile_json)"
    " VALUES (?1, ?2, ?3, ?4, ?5)",
  [RES_STMT_UPSERT_PUBLISHED] =
    "INSERT INTO published (row_id, source, model, gpu_type, n_gpus, row_json)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
    " ON CONFLICT (row_id) DO UPDATE SET source = excluded.source,"
    " model = excluded.model, gpu_type = excluded.gpu_type, n_gpus = excluded.n_gpus,"
    " row_json = excluded.row_json, imported_at = " NOW_UTC,
  [RES_STMT_LATEST_PROFILE] =
    "SELECT profile_json FROM profiles WHERE backend = ?1 AND host = ?2"
    " ORDER BY profile_id DESC LIMIT 1",
  [RES_STMT_LATEST_PROFILE_ANY_HOST] =
    "SELECT profile_json FROM profiles WHERE backend = ?1"
    " ORDER BY profile_id DESC LIMIT 1",
  [RES_STMT_LIST_RUNS] =
    "SELECT r.run_id, r.created_at, r.kind, r.status, r.model, r.cluster, r.plan,"
    " r.world_size, p.step_time_s, m.step_time_s, p.mfu_json, m.mfu_json, r.error"
    " FROM runs AS r"
    " LEFT JOIN predictions AS p ON p.run_id = r.run_id"
    " LEFT JOIN measurements AS m ON m.run_id = r.run_id"
    " ORDER BY r.run_id DESC LIMIT ?1",
  [RES_STMT_GET_RUN] =
    "SELECT created_at, tool_version, kind, status, model, cluster, plan, plan_json,"
    " model_json, cluster_json, world_size, host, note, error"
    " FROM runs WHERE run_id = ?1",
  [RES_STMT_GET_PREDICTION] =
    "SELECT " METRIC_NAMES ", sim_wall_s FROM predictions WHERE run_id = ?1",
  [RES_STMT_GET_MEASUREMENT] =
    "SELECT " METRIC_NAMES ", steps, warmup, ranks, step_times_json"
    " FROM measurements WHERE run_id = ?1",
  [RES_STMT_GET_PHASES] =
    "SELECT source, rank, kind, busy_s, exposed_s FROM phases WHERE run_id = ?1"
    " ORDER BY source, rank, kind",
  [RES_STMT_GET_VALIDATIONS] =
    "SELECT row_id, predicted_step_s, measured_step_s, err_pct FROM validations"
    " WHERE run_id = ?1 ORDER BY row_id",
  [RES_STMT_COUNT_PUBLISHED] = "SELECT count(*) FROM published",
};
