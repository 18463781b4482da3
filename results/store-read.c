/* results/store-read.c - reading runs and profiles back. A run is read inside one
 * read transaction, so its parts come from one snapshot even while others write. */
#include "results/store-private.h"
#include "util/input.h"

#include <math.h>

static double
column_double (sqlite3_stmt *stmt, int col)
{
  return sqlite3_column_type (stmt, col) == SQLITE_NULL
         ? NAN : sqlite3_column_double (stmt, col);
}

static gint64
column_int (sqlite3_stmt *stmt, int col, gint64 if_null)
{
  return sqlite3_column_type (stmt, col) == SQLITE_NULL
         ? if_null : sqlite3_column_int64 (stmt, col);
}

static char *
column_strdup (sqlite3_stmt *stmt, int col)
{
  return g_strdup ((const char *) sqlite3_column_text (stmt, col));
}

/* A string owned by the record's chunk, or NULL. */
static const char *
column_chunk (sqlite3_stmt *stmt, int col, GStringChunk *chunk)
{
  const char *s = (const char *) sqlite3_column_text (stmt, col);
  return s != NULL ? g_string_chunk_insert (chunk, s) : NULL;
}

/* ---- profiles -------------------------------------------------------------------- */

char *
res_store_latest_profile (ResStore *store, const char *backend, const char *host,
                          GError **error)
{
  return res_store_latest_profile_info (store, backend, host, NULL, NULL, error);
}

char *
res_store_latest_profile_info (ResStore *store, const char *backend, const char *host,
                               gint64 *profile_id, char **created_at, GError **error)
{
  g_return_val_if_fail (store != NULL && backend != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  sqlite3_stmt *stmt = res_store_stmt (store, host != NULL ? RES_STMT_LATEST_PROFILE
                                                           : RES_STMT_LATEST_PROFILE_ANY_HOST,
                                       error);
  if (stmt == NULL)
    return NULL;
  res_bind_text (stmt, 1, backend);
  if (host != NULL)
    res_bind_text (stmt, 2, host);
  char *json = NULL;
  int rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    {
      json = column_strdup (stmt, 0);
      if (profile_id != NULL)
        *profile_id = sqlite3_column_int64 (stmt, 1);
      if (created_at != NULL)
        *created_at = column_strdup (stmt, 2);
    }
  else if (rc != SQLITE_DONE)
    res_store_set_error (store, rc, "cannot read profiles from", error);
  res_store_stmt_done (stmt);
  return json;
}

/* ---- list ------------------------------------------------------------------------ */

void
res_run_row_free (ResRunRow *row)
{
  if (row == NULL)
    return;
  g_free (row->created_at);
  g_free (row->model);
  g_free (row->cluster);
  g_free (row->plan);
  g_free (row->mfu_json);
  g_free (row->measured_mfu_json);
  g_free (row->error);
  g_free (row->framework);
  g_free (row->started_at);
  g_free (row->heartbeat_at);
  g_free (row->finished_at);
  g_free (row->flops_convention);
  g_free (row);
}

/* A kind or status no tandem writes (the CHECK constraints refuse one; a row edited by
 * hand with the checks off, or written by another program, has it): read as some other
 * value, the row would be shown as what it is not ("predict, failed"), so it is refused,
 * naming the row and the value. */
static gboolean
run_enums_read (ResStore *store, sqlite3_stmt *stmt, int col, gint64 run_id,
                ResRunKind *kind, ResRunStatus *status, GError **error)
{
  const char *k = (const char *) sqlite3_column_text (stmt, col);
  const char *st = (const char *) sqlite3_column_text (stmt, col + 1);
  const gboolean kind_ok = res_run_kind_from_string (k, kind);
  if (kind_ok && res_run_status_from_string (st, status))
    return TRUE;
  g_set_error (error, RES_ERROR, RES_ERROR_CORRUPT,
               "%s: run %" G_GINT64_FORMAT " has %s '%s', which no tandem writes (the row was "
               "edited or written by another program; hint: sqlite3 %s \"UPDATE runs SET %s = "
               "'%s' WHERE run_id = %" G_GINT64_FORMAT "\", or DELETE the row)",
               store->path, run_id, kind_ok ? "status" : "kind",
               kind_ok ? (st ? st : "NULL") : (k ? k : "NULL"), store->path,
               kind_ok ? "status" : "kind", kind_ok ? "failed" : "predict", run_id);
  return FALSE;
}

GPtrArray *
res_store_list_runs (ResStore *store, guint limit, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_LIST_RUNS, error);
  if (stmt == NULL)
    return NULL;
  /* LIMIT -1: no limit (https://sqlite.org/lang_select.html#limitoffset). */
  sqlite3_bind_int64 (stmt, 1, limit == 0 ? -1 : (gint64) limit);

  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) res_run_row_free);
  int rc;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      ResRunRow *row = g_new0 (ResRunRow, 1);
      row->run_id = sqlite3_column_int64 (stmt, 0);
      row->created_at = column_strdup (stmt, 1);
      if (!run_enums_read (store, stmt, 2, row->run_id, &row->kind, &row->status, error))
        {
          res_run_row_free (row);
          res_store_stmt_done (stmt);
          return NULL;
        }
      row->model = column_strdup (stmt, 4);
      row->cluster = column_strdup (stmt, 5);
      row->plan = column_strdup (stmt, 6);
      row->world_size = column_int (stmt, 7, 0);
      row->predicted_step_s = column_double (stmt, 8);
      row->measured_step_s = column_double (stmt, 9);
      row->mfu_json = column_strdup (stmt, 10);
      row->measured_mfu_json = column_strdup (stmt, 11);
      row->error = column_strdup (stmt, 12);
      row->framework = column_strdup (stmt, 13);
      row->started_at = column_strdup (stmt, 14);
      row->heartbeat_at = column_strdup (stmt, 15);
      row->finished_at = column_strdup (stmt, 16);
      row->predicted_mfu = column_double (stmt, 17);
      row->measured_mfu = column_double (stmt, 18);
      row->flops_convention = column_strdup (stmt, 19);
      row->predicted_hfu = column_double (stmt, 20);
      row->measured_hfu = column_double (stmt, 21);
      g_ptr_array_add (rows, row);
    }
  if (rc != SQLITE_DONE)
    {
      res_store_set_error (store, rc, "cannot list runs of", error);
      res_store_stmt_done (stmt);
      return NULL;
    }
  res_store_stmt_done (stmt);
  return g_steal_pointer (&rows);
}

/* ---- one run --------------------------------------------------------------------- */

void
res_run_record_free (ResRunRecord *record)
{
  if (record == NULL)
    return;
  g_clear_pointer (&record->phases, g_array_unref);
  g_clear_pointer (&record->validations, g_array_unref);
  g_clear_pointer (&record->candidates, g_array_unref);
  if (record->strings != NULL)
    g_string_chunk_free (record->strings);
  g_free (record);
}

/* Reads the 20 metric columns from column 0 (METRIC_NAMES order); returns the next. */
static int
read_metrics (sqlite3_stmt *stmt, ResMetrics *m, GStringChunk *chunk)
{
  int c = 0;
  res_metrics_init (m);
  m->step_time_s = column_double (stmt, c++);
  m->tokens_per_s = column_double (stmt, c++);
  m->tflops_per_gpu = column_double (stmt, c++);
  m->mfu_json = column_chunk (stmt, c++, chunk);
  m->hfu_json = column_chunk (stmt, c++, chunk);
  m->bubble_fraction = column_double (stmt, c++);
  m->compute_s = column_double (stmt, c++);
  for (guint i = 0; i < RES_COMM_N; i++)
    m->exposed_s[i] = column_double (stmt, c++);
  m->overlap_ratio = column_double (stmt, c++);
  m->peak_memory_bytes = column_int (stmt, c++, -1);
  m->fits = (int) column_int (stmt, c++, -1);
  m->memory_json = column_chunk (stmt, c++, chunk);
  m->extra_json = column_chunk (stmt, c++, chunk);
  m->mfu = column_double (stmt, c++);
  m->flops_convention = column_chunk (stmt, c++, chunk);
  m->hfu = column_double (stmt, c++);
  g_assert (c == RES_N_METRIC_COLUMNS);
  return c;
}

/* Binds run_id and steps once. Returns the SQLite code, or -1 (error set) when the
 * statement could not be prepared. */
static int
step_run (ResStore *store, ResStmt id, gint64 run_id, sqlite3_stmt **out, GError **error)
{
  *out = res_store_stmt (store, id, error);
  if (*out == NULL)
    return -1;
  sqlite3_bind_int64 (*out, 1, run_id);
  return sqlite3_step (*out);
}

/* Resets the statement; sets error unless rc is a row or the end. */
static gboolean
step_finish (ResStore *store, sqlite3_stmt *stmt, int rc, GError **error)
{
  if (rc == -1)
    return FALSE;
  gboolean ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
  if (!ok)
    res_store_set_error (store, rc, "cannot read a run from", error);
  res_store_stmt_done (stmt);
  return ok;
}

static gboolean
read_run (ResStore *store, gint64 run_id, ResRunRecord *r, GError **error)
{
  GStringChunk *ch = r->strings;
  sqlite3_stmt *stmt;

  int rc = step_run (store, RES_STMT_GET_RUN, run_id, &stmt, error);
  if (rc == SQLITE_DONE)
    {
      res_store_stmt_done (stmt);
      g_set_error (error, RES_ERROR, RES_ERROR_NOT_FOUND, "%s has no run %" G_GINT64_FORMAT,
                   store->path, run_id);
      return FALSE;
    }
  if (rc == SQLITE_ROW)
    {
      r->created_at = column_chunk (stmt, 0, ch);
      r->tool_version = column_chunk (stmt, 1, ch);
      if (!run_enums_read (store, stmt, 2, run_id, &r->info.kind, &r->info.status, error))
        {
          res_store_stmt_done (stmt);
          return FALSE;
        }
      r->info.model = column_chunk (stmt, 4, ch);
      r->info.cluster = column_chunk (stmt, 5, ch);
      r->info.plan = column_chunk (stmt, 6, ch);
      r->info.plan_json = column_chunk (stmt, 7, ch);
      r->info.model_json = column_chunk (stmt, 8, ch);
      r->info.cluster_json = column_chunk (stmt, 9, ch);
      r->info.world_size = column_int (stmt, 10, 0);
      r->info.host = column_chunk (stmt, 11, ch);
      r->info.note = column_chunk (stmt, 12, ch);
      r->info.error = column_chunk (stmt, 13, ch);
      r->info.framework = column_chunk (stmt, 14, ch);
      r->started_at = column_chunk (stmt, 15, ch);
      r->heartbeat_at = column_chunk (stmt, 16, ch);
      r->finished_at = column_chunk (stmt, 17, ch);
      r->stale_after_s = column_double (stmt, 18);
    }
  if (!step_finish (store, stmt, rc, error))
    return FALSE;

  res_metrics_init (&r->pred);
  rc = step_run (store, RES_STMT_GET_PREDICTION, run_id, &stmt, error);
  r->has_prediction = rc == SQLITE_ROW;
  if (r->has_prediction)
    {
      int c = read_metrics (stmt, &r->pred, ch);
      r->pred.sim_wall_s = column_double (stmt, c);
    }
  if (!step_finish (store, stmt, rc, error))
    return FALSE;

  res_metrics_init (&r->meas);
  r->measure = (ResMeasureInfo) { .steps = -1, .warmup = -1, .ranks = -1 };
  rc = step_run (store, RES_STMT_GET_MEASUREMENT, run_id, &stmt, error);
  r->has_measurement = rc == SQLITE_ROW;
  if (r->has_measurement)
    {
      int c = read_metrics (stmt, &r->meas, ch);
      r->measure.steps = column_int (stmt, c, -1);
      r->measure.warmup = column_int (stmt, c + 1, -1);
      r->measure.ranks = column_int (stmt, c + 2, -1);
      r->measure.step_times_json = column_chunk (stmt, c + 3, ch);
    }
  if (!step_finish (store, stmt, rc, error))
    return FALSE;

  for (rc = step_run (store, RES_STMT_GET_PHASES, run_id, &stmt, error); rc == SQLITE_ROW;
       rc = sqlite3_step (stmt))
    {
      ResPhase p = {
        .source = g_strcmp0 ((const char *) sqlite3_column_text (stmt, 0), "measured") == 0
                  ? RES_SOURCE_MEASURED : RES_SOURCE_PREDICTED,
        .rank = sqlite3_column_int64 (stmt, 1),
        .kind = column_chunk (stmt, 2, ch),
        .busy_s = column_double (stmt, 3),
        .exposed_s = column_double (stmt, 4),
      };
      g_array_append_val (r->phases, p);
    }
  if (!step_finish (store, stmt, rc, error))
    return FALSE;

  for (rc = step_run (store, RES_STMT_GET_VALIDATIONS, run_id, &stmt, error);
       rc == SQLITE_ROW; rc = sqlite3_step (stmt))
    {
      ResValidationRow v = {
        .row_id = sqlite3_column_int64 (stmt, 0),
        .predicted_step_s = column_double (stmt, 1),
        .measured_step_s = column_double (stmt, 2),
        .err_pct = column_double (stmt, 3),
        .model = column_chunk (stmt, 4, r->strings),
        .gpu_type = column_chunk (stmt, 5, r->strings),
        .n_gpus = sqlite3_column_type (stmt, 6) == SQLITE_NULL ? 0
                  : sqlite3_column_int64 (stmt, 6),
      };
      g_array_append_val (r->validations, v);
    }
  if (!step_finish (store, stmt, rc, error))
    return FALSE;

  for (rc = step_run (store, RES_STMT_GET_CANDIDATES, run_id, &stmt, error);
       rc == SQLITE_ROW; rc = sqlite3_step (stmt))
    {
      ResSearchCandidate k = {
        .place = column_int (stmt, 1, 0),
        .plan = column_chunk (stmt, 2, ch),
        .tp = column_int (stmt, 3, 0),
        .cp = column_int (stmt, 4, 0),
        .pp = column_int (stmt, 5, 0),
        .vpp = column_int (stmt, 6, 0),
        .dp = column_int (stmt, 7, 0),
        .ep = column_int (stmt, 8, 0),
        .mbs = column_int (stmt, 9, 0),
        .sharding = column_chunk (stmt, 10, ch),
        .recompute = column_chunk (stmt, 11, ch),
        .schedule = column_chunk (stmt, 12, ch),
        .step_time_s = column_double (stmt, 13),
        .tokens_per_s = column_double (stmt, 14),
        .mfu = column_double (stmt, 15),
        .hfu = column_double (stmt, 16),
        .peak_memory_bytes = column_int (stmt, 17, -1),
        .fits = (int) column_int (stmt, 18, -1),
        .flags = column_chunk (stmt, 19, ch),
      };
      g_array_append_val (r->candidates, k);
    }
  return step_finish (store, stmt, rc, error);
}

ResRunRecord *
res_store_get_run (ResStore *store, gint64 run_id, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_autoptr (ResRunRecord) r = g_new0 (ResRunRecord, 1);
  r->run_id = run_id;
  r->strings = g_string_chunk_new (1024);
  r->phases = g_array_new (FALSE, TRUE, sizeof (ResPhase));
  r->validations = g_array_new (FALSE, TRUE, sizeof (ResValidationRow));
  r->candidates = g_array_new (FALSE, TRUE, sizeof (ResSearchCandidate));
  r->stale_after_s = NAN;

  /* A deferred transaction: the reads share one snapshot, and take no write lock. */
  sqlite3_stmt *begin = res_store_stmt (store, RES_STMT_BEGIN_READ, error);
  if (begin == NULL || !res_store_step_done (store, begin, "cannot read a run from", error))
    return NULL;
  gboolean ok = read_run (store, run_id, r, error);
  res_store_rollback (store);          /* nothing was written: ending it is enough */
  return ok ? g_steal_pointer (&r) : NULL;
}

gboolean
res_store_get_run_status (ResStore *store, gint64 run_id, ResRunStatus *out, GError **error)
{
  g_return_val_if_fail (store != NULL && out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  sqlite3_stmt *stmt;
  int rc = step_run (store, RES_STMT_RUN_STATE, run_id, &stmt, error);
  gboolean found = rc == SQLITE_ROW
                   && res_run_status_from_string ((const char *) sqlite3_column_text (stmt, 0),
                                                  out);
  if (!step_finish (store, stmt, rc, error))
    return FALSE;
  if (!found)
    g_set_error (error, RES_ERROR, RES_ERROR_NOT_FOUND, "%s has no run %" G_GINT64_FORMAT,
                 store->path, run_id);
  return found;
}

gint64
res_store_count_published (ResStore *store, GError **error)
{
  g_return_val_if_fail (store != NULL, -1);
  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_COUNT_PUBLISHED, error);
  if (stmt == NULL)
    return -1;
  gint64 n = -1;
  int rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  else
    res_store_set_error (store, rc, "cannot count published rows in", error);
  res_store_stmt_done (stmt);
  return n;
}

void
res_json_member_raw (JsonBuilder *b, const char *name, const char *json_text)
{
  json_builder_set_member_name (b, name);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonNode *root = NULL;
  if (json_text != NULL && json_parser_load_from_data (parser, json_text, -1, NULL))
    root = json_parser_get_root (parser);
  if (root != NULL)
    json_builder_add_value (b, json_node_copy (root));
  else
    json_builder_add_null_value (b);
}

void
res_metrics_member (JsonBuilder *b, const char *name, const ResMetrics *m)
{
  if (m == NULL)
    {
      json_builder_set_member_name (b, name);
      json_builder_add_null_value (b);
      return;
    }
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  /* the object by convention as stored (a refused convention is null in it), so that a
   * stored run reads as its prediction's JSON did, not one headline number */
  res_json_member_raw (b, "mfu", m->mfu_json);
  /* the real column: one number, no convention */
  util_json_member_number (b, "hfu", m->hfu);
  util_json_member_number (b, "bubble_fraction", m->bubble_fraction);
  json_builder_end_object (b);
}
