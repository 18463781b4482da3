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
  "memory_json, extra_json, mfu, flops_convention, hfu"

/* 20 placeholders for METRIC_NAMES, numbered from ?2 (?1 is run_id). */
#define METRIC_PARAMS                                                         \
  "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, " \
  "?19, ?20, ?21"

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


/* A plan degree read from a plan's JSON: the canonical key that plan_to_json writes, else
 * the short key ("tp", "mbs", ...) a hand-written plan uses; NULL when neither is an
 * integer, or when the text is not JSON (whose insert the CHECK then refuses). */
#define PLAN_INT(J, LONG, SHORT)                                              \
  "CASE WHEN json_valid (" J ") THEN coalesce ("                              \
  "iif (json_type (" J ", '" LONG "') = 'integer', json_extract (" J ", '" LONG "'), NULL), " \
  "iif (json_type (" J ", '" SHORT "') = 'integer', json_extract (" J ", '" SHORT "'), NULL)) END"

/* The micro-batch: parallelism.pipeline_parallel_microbatch_size where plan_to_json
 * writes it, else training.local_batch_size (the micro-batch in plans stored before), else
 * a hand-written "mbs". */
#define PLAN_MBS(J)                                                           \
  "CASE WHEN json_valid (" J ") THEN coalesce ("                              \
  "iif (json_type (" J ", '$.parallelism.pipeline_parallel_microbatch_size') = 'integer', " \
  "json_extract (" J ", '$.parallelism.pipeline_parallel_microbatch_size'), NULL), " \
  "iif (json_type (" J ", '$.training.local_batch_size') = 'integer', "      \
  "json_extract (" J ", '$.training.local_batch_size'), NULL), "              \
  "iif (json_type (" J ", '$.mbs') = 'integer', json_extract (" J ", '$.mbs'), NULL)) END"

#define PLAN_DEGREES(J)                                                       \
  PLAN_INT (J, "$.parallelism.tensor_parallel_degree", "$.tp") ", "           \
  PLAN_INT (J, "$.parallelism.context_parallel_degree", "$.cp") ", "          \
  PLAN_INT (J, "$.parallelism.pipeline_parallel_degree", "$.pp") ", "         \
  PLAN_INT (J, "$.parallelism.virtual_stages_per_rank", "$.vpp") ", "         \
  PLAN_INT (J, "$.parallelism.data_parallel_degree", "$.dp") ", "             \
  PLAN_INT (J, "$.parallelism.expert_parallel_degree", "$.ep") ", "           \
  PLAN_MBS (J) ", "                                                           \
  PLAN_INT (J, "$.training.global_batch_size", "$.gbs") ", "                  \
  PLAN_INT (J, "$.training.seq_len", "$.seq_len")

#define DEGREE_NAMES "tp, cp, pp, vpp, dp, ep, mbs, gbs, seq_len"

#define POSITIVE_OR_NULL(col) "CHECK (" col " IS NULL OR " col " >= 1)"

/* The one migration 1 -> 2 (docs/contracts.md). SQLite cannot change a CHECK, so runs is
 * rebuilt (https://sqlite.org/lang_altertable.html#otheralter: new table, copy, drop,
 * rename; foreign keys are off while migrate () runs, and the children's
 * REFERENCES runs resolve to the new table by name). v1 rows keep every column; they get
 * started_at = finished_at = created_at, their degrees from plan_json, and their
 * predictions and measurements a headline MFU in the palm convention (the default of
 * `tandem predict` in v1, and a key of every v1 mfu_json) and the one HFU that v1 wrote
 * under every convention key. */
static const char migration_2[] =
  "CREATE TABLE runs_v2 (\n"
  "  run_id       INTEGER PRIMARY KEY,\n"
  "  created_at   TEXT NOT NULL DEFAULT " NOW_UTC ",\n"
  "  kind         TEXT NOT NULL\n"
  "               CHECK (kind IN ('predict', 'run', 'validate', 'search', 'calibrate')),\n"
  "  status       TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'oom', 'running')),\n"
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
  "  error        TEXT,\n"
  "  framework    TEXT,\n"
  "  started_at   TEXT,\n"
  "  heartbeat_at TEXT,\n"
  "  finished_at  TEXT,\n"
  "  stale_after_s REAL CHECK (stale_after_s IS NULL OR stale_after_s > 0),\n"
  "  tp           INTEGER " POSITIVE_OR_NULL ("tp") ",\n"
  "  cp           INTEGER " POSITIVE_OR_NULL ("cp") ",\n"
  "  pp           INTEGER " POSITIVE_OR_NULL ("pp") ",\n"
  "  vpp          INTEGER " POSITIVE_OR_NULL ("vpp") ",\n"
  "  dp           INTEGER " POSITIVE_OR_NULL ("dp") ",\n"
  "  ep           INTEGER " POSITIVE_OR_NULL ("ep") ",\n"
  "  mbs          INTEGER " POSITIVE_OR_NULL ("mbs") ",\n"
  "  gbs          INTEGER " POSITIVE_OR_NULL ("gbs") ",\n"
  "  seq_len      INTEGER " POSITIVE_OR_NULL ("seq_len") ",\n"
  "  CHECK ((status = 'running') = (finished_at IS NULL))\n"
  ") STRICT;\n"
  "INSERT INTO runs_v2 (run_id, created_at, kind, status, tool_version, host, model,"
  " cluster, plan, plan_json, model_json, cluster_json, world_size, note, error,"
  " started_at, finished_at, " DEGREE_NAMES ")\n"
  "  SELECT run_id, created_at, kind, status, tool_version, host, model, cluster, plan,"
  " plan_json, model_json, cluster_json, world_size, note, error, created_at, created_at, "
  PLAN_DEGREES ("plan_json") " FROM runs;\n"
  "DROP TABLE runs;\n"
  "ALTER TABLE runs_v2 RENAME TO runs;\n"
  "CREATE INDEX runs_by_model ON runs (model, cluster, plan);\n"
  "CREATE INDEX runs_running ON runs (status) WHERE status = 'running';\n"
  "\n"
  "ALTER TABLE predictions ADD COLUMN mfu REAL " NONNEG_OR_NULL ("mfu") ";\n"
  "ALTER TABLE predictions ADD COLUMN flops_convention TEXT;\n"
  "ALTER TABLE predictions ADD COLUMN hfu REAL " NONNEG_OR_NULL ("hfu") ";\n"
  "ALTER TABLE measurements ADD COLUMN mfu REAL " NONNEG_OR_NULL ("mfu") ";\n"
  "ALTER TABLE measurements ADD COLUMN flops_convention TEXT;\n"
  "ALTER TABLE measurements ADD COLUMN hfu REAL " NONNEG_OR_NULL ("hfu") ";\n"
#define BACKFILL(T)                                                           \
  "UPDATE " T " SET flops_convention = 'palm', mfu = json_extract (mfu_json, '$.palm')" \
  " WHERE json_type (mfu_json, '$.palm') IN ('real', 'integer');\n"           \
  "UPDATE " T " SET hfu = CASE json_type (hfu_json)"                          \
  " WHEN 'real' THEN json_extract (hfu_json, '$')"                            \
  " WHEN 'integer' THEN json_extract (hfu_json, '$')"                         \
  " WHEN 'object' THEN (SELECT value FROM json_each (hfu_json)"               \
  "   WHERE type IN ('real', 'integer') ORDER BY key = 'palm' DESC LIMIT 1) END"  \
  " WHERE hfu_json IS NOT NULL;\n"
  BACKFILL ("predictions")
  BACKFILL ("measurements")
  "\n"
  "CREATE TABLE search_candidates (\n"
  "  run_id       INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
  "  candidate    INTEGER NOT NULL CHECK (candidate >= 0),\n"
  "  place        INTEGER " POSITIVE_OR_NULL ("place") ",\n"
  "  plan         TEXT NOT NULL,\n"
  "  tp           INTEGER " POSITIVE_OR_NULL ("tp") ",\n"
  "  cp           INTEGER " POSITIVE_OR_NULL ("cp") ",\n"
  "  pp           INTEGER " POSITIVE_OR_NULL ("pp") ",\n"
  "  vpp          INTEGER " POSITIVE_OR_NULL ("vpp") ",\n"
  "  dp           INTEGER " POSITIVE_OR_NULL ("dp") ",\n"
  "  ep           INTEGER " POSITIVE_OR_NULL ("ep") ",\n"
  "  mbs          INTEGER " POSITIVE_OR_NULL ("mbs") ",\n"
  "  sharding     TEXT,\n"
  "  recompute    TEXT,\n"
  "  schedule     TEXT,\n"
  "  step_time_s  REAL " NONNEG_OR_NULL ("step_time_s") ",\n"
  "  tokens_per_s REAL " NONNEG_OR_NULL ("tokens_per_s") ",\n"
  "  mfu          REAL " NONNEG_OR_NULL ("mfu") ",\n"
  "  hfu          REAL " NONNEG_OR_NULL ("hfu") ",\n"
  "  peak_memory_bytes INTEGER " NONNEG_OR_NULL ("peak_memory_bytes") ",\n"
  "  fits         INTEGER CHECK (fits IS NULL OR fits IN (0, 1)),\n"
  "  flags        TEXT,\n"
  "  PRIMARY KEY (run_id, candidate),\n"
  "  UNIQUE (run_id, place)\n"
  ") STRICT;\n"
  "\n"
  /* One row per run and term that has both numbers: rel_err = (predicted - measured) /
   * measured, NULL when the measurement is 0. */
#define TERM(name, expr_p, expr_m)                                            \
  "  SELECT run_id, " #name " AS term_order, '" expr_p "' AS term, p_" expr_p " AS predicted," \
  " m_" expr_m " AS measured FROM pm\n"
  "CREATE VIEW comparison AS\n"
  "WITH pm AS (\n"
  "  SELECT r.run_id AS run_id,"
  " p.step_time_s AS p_step_time_s, m.step_time_s AS m_step_time_s,"
  " p.tokens_per_s AS p_tokens_per_s, m.tokens_per_s AS m_tokens_per_s,"
  " p.tflops_per_gpu AS p_tflops_per_gpu, m.tflops_per_gpu AS m_tflops_per_gpu,"
  " p.mfu AS p_mfu, m.mfu AS m_mfu, p.hfu AS p_hfu, m.hfu AS m_hfu,"
  " p.bubble_fraction AS p_bubble_fraction, m.bubble_fraction AS m_bubble_fraction,"
  " p.compute_s AS p_compute_s, m.compute_s AS m_compute_s,"
  " p.exposed_tp_s AS p_exposed_tp_s, m.exposed_tp_s AS m_exposed_tp_s,"
  " p.exposed_cp_s AS p_exposed_cp_s, m.exposed_cp_s AS m_exposed_cp_s,"
  " p.exposed_pp_s AS p_exposed_pp_s, m.exposed_pp_s AS m_exposed_pp_s,"
  " p.exposed_dp_s AS p_exposed_dp_s, m.exposed_dp_s AS m_exposed_dp_s,"
  " p.exposed_ep_s AS p_exposed_ep_s, m.exposed_ep_s AS m_exposed_ep_s,"
  " p.overlap_ratio AS p_overlap_ratio, m.overlap_ratio AS m_overlap_ratio,"
  " p.peak_memory_bytes AS p_peak_memory_bytes, m.peak_memory_bytes AS m_peak_memory_bytes\n"
  "  FROM runs AS r JOIN predictions AS p ON p.run_id = r.run_id\n"
  "  JOIN measurements AS m ON m.run_id = r.run_id),\n"
  "terms AS (\n"
  TERM (1, "step_time_s", "step_time_s") "  UNION ALL\n"
  TERM (2, "tokens_per_s", "tokens_per_s") "  UNION ALL\n"
  TERM (3, "tflops_per_gpu", "tflops_per_gpu") "  UNION ALL\n"
  TERM (4, "mfu", "mfu") "  UNION ALL\n"
  TERM (5, "hfu", "hfu") "  UNION ALL\n"
  TERM (6, "bubble_fraction", "bubble_fraction") "  UNION ALL\n"
  TERM (7, "compute_s", "compute_s") "  UNION ALL\n"
  TERM (8, "exposed_tp_s", "exposed_tp_s") "  UNION ALL\n"
  TERM (9, "exposed_cp_s", "exposed_cp_s") "  UNION ALL\n"
  TERM (10, "exposed_pp_s", "exposed_pp_s") "  UNION ALL\n"
  TERM (11, "exposed_dp_s", "exposed_dp_s") "  UNION ALL\n"
  TERM (12, "exposed_ep_s", "exposed_ep_s") "  UNION ALL\n"
  TERM (13, "overlap_ratio", "overlap_ratio") "  UNION ALL\n"
  TERM (14, "peak_memory_bytes", "peak_memory_bytes") ")\n"
  "SELECT t.run_id, r.model, r.cluster, r.plan, t.term_order, t.term, t.predicted,"
  " t.measured,"
  " CASE WHEN t.measured <> 0 THEN (t.predicted - t.measured) / t.measured END AS rel_err\n"
  "FROM terms AS t JOIN runs AS r ON r.run_id = t.run_id\n"
  "WHERE t.predicted IS NOT NULL AND t.measured IS NOT NULL;\n"
  "\n"
  "CREATE VIEW validation_rows AS\n"
  "SELECT v.run_id, r.created_at, v.row_id, p.model, p.gpu_type, p.n_gpus, p.source,"
  " v.predicted_step_s, v.measured_step_s, v.err_pct\n"
  "FROM validations AS v JOIN runs AS r ON r.run_id = v.run_id\n"
  "LEFT JOIN published AS p ON p.row_id = v.row_id;\n";
#undef TERM
#undef BACKFILL

const ResMigration res_migrations[] = {
  { 1, migration_1 },
  { 2, migration_2 },
};
const guint res_n_migrations = G_N_ELEMENTS (res_migrations);

G_STATIC_ASSERT (G_N_ELEMENTS (res_migrations) == RES_SCHEMA_VERSION);

/* How a run's status reads: 'running' whose heartbeat is older than its stale_after_s is
 * 'died' (the process that was to close it is gone). P is the table prefix ("r." or ""). */
#define STATUS_AS_READ(P)                                                     \
  "CASE WHEN " P "status = 'running' AND " P "stale_after_s IS NOT NULL AND"  \
  " (julianday ('now') - julianday (" P "heartbeat_at)) * 86400.0 > " P "stale_after_s" \
  " THEN 'died' ELSE " P "status END"

const char *const res_stmt_sql[RES_STMT_N] = {
  [RES_STMT_BEGIN] = "BEGIN IMMEDIATE",
  [RES_STMT_BEGIN_READ] = "BEGIN DEFERRED",
  [RES_STMT_COMMIT] = "COMMIT",
  [RES_STMT_ROLLBACK] = "ROLLBACK",
  /* started_at is now; a run that is not 'running' is finished now too. The degrees
   * come from plan_json; framework from the info, else from the plan's "framework". */
  [RES_STMT_INSERT_RUN] =
    "INSERT INTO runs (kind, status, tool_version, host, model, cluster, plan, plan_json,"
    " model_json, cluster_json, world_size, note, error, framework, stale_after_s,"
    " started_at, heartbeat_at, finished_at, " DEGREE_NAMES ")"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
    " coalesce (?14, CASE WHEN json_valid (?8) AND json_type (?8, '$.framework') = 'text'"
    " THEN json_extract (?8, '$.framework') END), ?15, " NOW_UTC ","
    " iif (?2 = 'running', " NOW_UTC ", NULL), iif (?2 = 'running', NULL, " NOW_UTC "), "
    PLAN_DEGREES ("?8") ")",
  [RES_STMT_HEARTBEAT] =
    "UPDATE runs SET heartbeat_at = " NOW_UTC " WHERE run_id = ?1 AND status = 'running'",
  [RES_STMT_FINISH_RUN] =
    "UPDATE runs SET status = ?2, error = coalesce (?3, error), finished_at = " NOW_UTC ","
    " heartbeat_at = " NOW_UTC " WHERE run_id = ?1 AND status = 'running'",
  [RES_STMT_RUN_STATE] =
    "SELECT " STATUS_AS_READ ("") " FROM runs WHERE run_id = ?1",
  [RES_STMT_INSERT_CANDIDATE] =
    "INSERT INTO search_candidates (run_id, candidate, place, plan, tp, cp, pp, vpp, dp, ep,"
    " mbs, sharding, recompute, schedule, step_time_s, tokens_per_s, mfu, hfu,"
    " peak_memory_bytes, fits, flags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
    " ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
  [RES_STMT_GET_CANDIDATES] =
    "SELECT candidate, place, plan, tp, cp, pp, vpp, dp, ep, mbs, sharding, recompute,"
    " schedule, step_time_s, tokens_per_s, mfu, hfu, peak_memory_bytes, fits, flags"
    " FROM search_candidates WHERE run_id = ?1"
    " ORDER BY place IS NULL, place, candidate",
  [RES_STMT_INSERT_PREDICTION] =
    "INSERT INTO predictions (run_id, " METRIC_NAMES ", sim_wall_s)"
    " VALUES (?1, " METRIC_PARAMS ", ?22)",
  [RES_STMT_INSERT_MEASUREMENT] =
    "INSERT INTO measurements (run_id, " METRIC_NAMES ", steps, warmup, ranks,"
    " step_times_json) VALUES (?1, " METRIC_PARAMS ", ?22, ?23, ?24, ?25)",
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
    "SELECT profile_json, profile_id, created_at FROM profiles WHERE backend = ?1 AND host = ?2"
    " ORDER BY profile_id DESC LIMIT 1",
  [RES_STMT_LATEST_PROFILE_ANY_HOST] =
    "SELECT profile_json, profile_id, created_at FROM profiles WHERE backend = ?1"
    " ORDER BY profile_id DESC LIMIT 1",
  [RES_STMT_LIST_RUNS] =
    "SELECT r.run_id, r.created_at, r.kind, " STATUS_AS_READ ("r.") ", r.model, r.cluster,"
    " r.plan, r.world_size, p.step_time_s, m.step_time_s, p.mfu_json, m.mfu_json, r.error,"
    " r.framework, r.started_at, r.heartbeat_at, r.finished_at, p.mfu, m.mfu,"
    " coalesce (p.flops_convention, m.flops_convention), p.hfu, m.hfu"
    " FROM runs AS r"
    " LEFT JOIN predictions AS p ON p.run_id = r.run_id"
    " LEFT JOIN measurements AS m ON m.run_id = r.run_id"
    " ORDER BY r.run_id DESC LIMIT ?1",
  [RES_STMT_GET_RUN] =
    "SELECT created_at, tool_version, kind, " STATUS_AS_READ ("") ", model, cluster, plan,"
    " plan_json, model_json, cluster_json, world_size, host, note, error, framework,"
    " started_at, heartbeat_at, finished_at, stale_after_s"
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
    "SELECT v.row_id, v.predicted_step_s, v.measured_step_s, v.err_pct, p.model,"
    " p.gpu_type, p.n_gpus FROM validations AS v LEFT JOIN published AS p"
    " ON p.row_id = v.row_id WHERE v.run_id = ?1 ORDER BY v.row_id",
  [RES_STMT_COUNT_PUBLISHED] = "SELECT count(*) FROM published",
};
