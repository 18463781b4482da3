/* results/store-write.c - inserts. Each public function is one transaction
 * (BEGIN IMMEDIATE ... COMMIT, ROLLBACK on any failure), so other connections see all
 * of a run's rows or none of them. */
#include "results/store-private.h"

#include <math.h>

#include "config.h"

/* Binds a run's row; NULL host means this machine. */
static gint64
insert_run (ResStore *store, const ResRunInfo *info, ResRunStatus status,
            double stale_after_s, GError **error)
{
  g_return_val_if_fail ((guint) info->kind < RES_KIND_N, -1);
  g_return_val_if_fail ((guint) status < RES_STATUS_N && status != RES_STATUS_DIED, -1);

  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_INSERT_RUN, error);
  if (stmt == NULL)
    return -1;
  res_bind_text (stmt, 1, res_run_kind_to_string (info->kind));
  res_bind_text (stmt, 2, res_run_status_to_string (status));
  res_bind_text (stmt, 3, TANDEM_VERSION);
  res_bind_text (stmt, 4, info->host != NULL ? info->host : g_get_host_name ());
  res_bind_text (stmt, 5, info->model);
  res_bind_text (stmt, 6, info->cluster);
  res_bind_text (stmt, 7, info->plan);
  res_bind_text (stmt, 8, info->plan_json);
  res_bind_text (stmt, 9, info->model_json);
  res_bind_text (stmt, 10, info->cluster_json);
  res_bind_int_or_null (stmt, 11, info->world_size, 1);
  res_bind_text (stmt, 12, info->note);
  res_bind_text (stmt, 13, info->error);
  res_bind_text (stmt, 14, info->framework);
  res_bind_double (stmt, 15, stale_after_s > 0 ? stale_after_s : NAN);
  if (!res_store_step_done (store, stmt, "cannot insert a run into", error))
    return -1;
  return sqlite3_last_insert_rowid (store->db);
}

/* Binds the 20 metric columns from ?2 in METRIC_NAMES order; returns the next index. */
static int
bind_metrics (sqlite3_stmt *stmt, const ResMetrics *m)
{
  int c = 2;
  res_bind_double (stmt, c++, m->step_time_s);
  res_bind_double (stmt, c++, m->tokens_per_s);
  res_bind_double (stmt, c++, m->tflops_per_gpu);
  res_bind_text (stmt, c++, m->mfu_json);
  res_bind_text (stmt, c++, m->hfu_json);
  res_bind_double (stmt, c++, m->bubble_fraction);
  res_bind_double (stmt, c++, m->compute_s);
  for (guint i = 0; i < RES_COMM_N; i++)
    res_bind_double (stmt, c++, m->exposed_s[i]);
  res_bind_double (stmt, c++, m->overlap_ratio);
  res_bind_int_or_null (stmt, c++, m->peak_memory_bytes, 0);
  res_bind_int_or_null (stmt, c++, m->fits, 0);
  res_bind_text (stmt, c++, m->memory_json);
  res_bind_text (stmt, c++, m->extra_json);
  res_bind_double (stmt, c++, m->mfu);
  res_bind_text (stmt, c++, m->flops_convention);
  res_bind_double (stmt, c++, m->hfu);
  g_assert (c == 2 + RES_N_METRIC_COLUMNS);
  return c;
}

static gboolean
insert_prediction (ResStore *store, gint64 run_id, const ResMetrics *m, GError **error)
{
  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_INSERT_PREDICTION, error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, run_id);
  int c = bind_metrics (stmt, m);
  res_bind_double (stmt, c, m->sim_wall_s);
  return res_store_step_done (store, stmt, "cannot insert a prediction into", error);
}

static gboolean
insert_measurement (ResStore *store, gint64 run_id, const ResMetrics *m,
                    const ResMeasureInfo *mi, GError **error)
{
  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_INSERT_MEASUREMENT, error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, run_id);
  int c = bind_metrics (stmt, m);
  if (mi != NULL)
    {
      res_bind_int_or_null (stmt, c, mi->steps, 0);
      res_bind_int_or_null (stmt, c + 1, mi->warmup, 0);
      res_bind_int_or_null (stmt, c + 2, mi->ranks, 1);
      res_bind_text (stmt, c + 3, mi->step_times_json);
    }
  return res_store_step_done (store, stmt, "cannot insert a measurement into", error);
}

static gboolean
insert_phases (ResStore *store, gint64 run_id, const ResPhase *phases, guint n,
               GError **error)
{
  for (guint i = 0; i < n; i++)
    {
      const ResPhase *p = &phases[i];
      g_return_val_if_fail ((guint) p->source < RES_SOURCE_N, FALSE);
      sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_INSERT_PHASE, error);
      if (stmt == NULL)
        return FALSE;
      sqlite3_bind_int64 (stmt, 1, run_id);
      res_bind_text (stmt, 2, res_source_to_string (p->source));
      sqlite3_bind_int64 (stmt, 3, p->rank);
      res_bind_text (stmt, 4, p->kind);
      res_bind_double (stmt, 5, p->busy_s);
      res_bind_double (stmt, 6, p->exposed_s);
      if (!res_store_step_done (store, stmt, "cannot insert a phase into", error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
insert_candidates (ResStore *store, gint64 run_id, const ResSearchCandidate *cands, guint n,
                   GError **error)
{
  for (guint i = 0; i < n; i++)
    {
      const ResSearchCandidate *k = &cands[i];
      sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_INSERT_CANDIDATE, error);
      if (stmt == NULL)
        return FALSE;
      sqlite3_bind_int64 (stmt, 1, run_id);
      sqlite3_bind_int64 (stmt, 2, i);
      res_bind_int_or_null (stmt, 3, k->place, 1);
      res_bind_text (stmt, 4, k->plan);
      const gint64 deg[] = { k->tp, k->cp, k->pp, k->vpp, k->dp, k->ep, k->mbs };
      for (guint d = 0; d < G_N_ELEMENTS (deg); d++)
        res_bind_int_or_null (stmt, 5 + (int) d, deg[d], 1);
      res_bind_text (stmt, 12, k->sharding);
      res_bind_text (stmt, 13, k->recompute);
      res_bind_text (stmt, 14, k->schedule);
      res_bind_double (stmt, 15, k->step_time_s);
      res_bind_double (stmt, 16, k->tokens_per_s);
      res_bind_double (stmt, 17, k->mfu);
      res_bind_double (stmt, 18, k->hfu);
      res_bind_int_or_null (stmt, 19, k->peak_memory_bytes, 0);
      res_bind_int_or_null (stmt, 20, k->fits, 0);
      res_bind_text (stmt, 21, k->flags);
      if (!res_store_step_done (store, stmt, "cannot insert a search candidate into", error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
insert_validations (ResStore *store, gint64 run_id, const ResValidationRow *rows, guint n,
                    GError **error)
{
  for (guint i = 0; i < n; i++)
    {
      const ResValidationRow *r = &rows[i];
      sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_INSERT_VALIDATION, error);
      if (stmt == NULL)
        return FALSE;
      /* err_pct = 100 (predicted - measured) / measured when not given. */
      double err = r->err_pct;
      if (isnan (err) && r->measured_step_s != 0)
        err = 100.0 * (r->predicted_step_s - r->measured_step_s) / r->measured_step_s;
      sqlite3_bind_int64 (stmt, 1, run_id);
      sqlite3_bind_int64 (stmt, 2, r->row_id);
      res_bind_double (stmt, 3, r->predicted_step_s);
      res_bind_double (stmt, 4, r->measured_step_s);
      res_bind_double (stmt, 5, err);
      if (!res_store_step_done (store, stmt, "cannot insert a validation row into", error))
        return FALSE;
    }
  return TRUE;
}

/* The children of a run, whichever are given. */
typedef struct {
  const ResMetrics         *pred, *meas;
  const ResMeasureInfo     *mi;
  const ResPhase           *phases;
  guint                     n_phases;
  const ResValidationRow   *rows;
  guint                     n_rows;
  const ResSearchCandidate *cands;
  guint                     n_cands;
} RunChildren;

static gboolean
insert_children (ResStore *store, gint64 run_id, const RunChildren *ch, GError **error)
{
  return (ch->pred == NULL || insert_prediction (store, run_id, ch->pred, error))
         && (ch->meas == NULL || insert_measurement (store, run_id, ch->meas, ch->mi, error))
         && insert_phases (store, run_id, ch->phases, ch->n_phases, error)
         && insert_validations (store, run_id, ch->rows, ch->n_rows, error)
         && insert_candidates (store, run_id, ch->cands, ch->n_cands, error);
}

/* The one shape of every run insert: the run row, then whichever children are given,
 * all in one transaction. */
static gint64
add_run_rows (ResStore *store, const ResRunInfo *info, ResRunStatus status,
              double stale_after_s, const RunChildren *ch, GError **error)
{
  if (!res_store_begin (store, error))
    return -1;

  gint64 run_id = insert_run (store, info, status, stale_after_s, error);
  if (run_id < 0 || !insert_children (store, run_id, ch, error)
      || !res_store_commit (store, error))
    {
      res_store_rollback (store);
      return -1;
    }
  return run_id;
}

gint64
res_store_add_prediction (ResStore *store, const ResRunInfo *info, const ResMetrics *pred,
                          const ResPhase *phases, guint n_phases, GError **error)
{
  g_return_val_if_fail (store != NULL && info != NULL && pred != NULL, -1);
  g_return_val_if_fail (phases != NULL || n_phases == 0, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);
  RunChildren ch = { .pred = pred, .phases = phases, .n_phases = n_phases };
  return add_run_rows (store, info, info->status, NAN, &ch, error);
}

gint64
res_store_add_run (ResStore *store, const ResRunInfo *info, const ResMetrics *pred,
                   const ResMetrics *meas, const ResMeasureInfo *mi,
                   const ResPhase *phases, guint n_phases, GError **error)
{
  g_return_val_if_fail (store != NULL && info != NULL && meas != NULL, -1);
  g_return_val_if_fail (phases != NULL || n_phases == 0, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);
  RunChildren ch = { .pred = pred, .meas = meas, .mi = mi, .phases = phases,
                     .n_phases = n_phases };
  return add_run_rows (store, info, info->status, NAN, &ch, error);
}

gint64
res_store_add_failed_run (ResStore *store, const ResRunInfo *info, GError **error)
{
  g_return_val_if_fail (store != NULL && info != NULL, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);
  ResRunStatus status = info->status == RES_STATUS_OOM ? RES_STATUS_OOM : RES_STATUS_FAILED;
  RunChildren ch = { 0 };
  return add_run_rows (store, info, status, NAN, &ch, error);
}

gint64
res_store_add_validation (ResStore *store, const ResRunInfo *info,
                          const ResValidationRow *rows, guint n_rows, GError **error)
{
  g_return_val_if_fail (store != NULL && info != NULL, -1);
  g_return_val_if_fail (rows != NULL || n_rows == 0, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);
  RunChildren ch = { .rows = rows, .n_rows = n_rows };
  return add_run_rows (store, info, info->status, NAN, &ch, error);
}

gint64
res_store_add_search (ResStore *store, const ResRunInfo *info, const ResMetrics *best,
                      const ResSearchCandidate *candidates, guint n, GError **error)
{
  g_return_val_if_fail (store != NULL && info != NULL, -1);
  g_return_val_if_fail (candidates != NULL || n == 0, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);
  RunChildren ch = { .pred = best, .cands = candidates, .n_cands = n };
  return add_run_rows (store, info, info->status, NAN, &ch, error);
}

gint64
res_store_start_run (ResStore *store, const ResRunInfo *info, double stale_after_s,
                     GError **error)
{
  g_return_val_if_fail (store != NULL && info != NULL, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);
  RunChildren ch = { 0 };
  return add_run_rows (store, info, RES_STATUS_RUNNING, stale_after_s, &ch, error);
}

/* Runs an UPDATE of one running run; RES_ERROR_CLOSED when no running row matched. */
static gboolean
update_running (ResStore *store, sqlite3_stmt *stmt, gint64 run_id, const char *what,
                GError **error)
{
  if (!res_store_step_done (store, stmt, what, error))
    return FALSE;
  if (sqlite3_changes (store->db) == 0)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_CLOSED,
                   "run %" G_GINT64_FORMAT " in %s is not running (closed already, or no "
                   "such run)", run_id, store->path);
      return FALSE;
    }
  return TRUE;
}

gboolean
res_store_heartbeat (ResStore *store, gint64 run_id, GError **error)
{
  g_return_val_if_fail (store != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  /* one statement: its own transaction (autocommit), no BEGIN needed */
  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_HEARTBEAT, error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, run_id);
  return update_running (store, stmt, run_id, "cannot update the heartbeat in", error);
}

gboolean
res_store_finish_run (ResStore *store, gint64 run_id, ResRunStatus status,
                      const char *error_text, const ResMetrics *pred, const ResMetrics *meas,
                      const ResMeasureInfo *mi, const ResPhase *phases, guint n_phases,
                      GError **error)
{
  g_return_val_if_fail (store != NULL, FALSE);
  g_return_val_if_fail (status == RES_STATUS_OK || status == RES_STATUS_FAILED
                        || status == RES_STATUS_OOM, FALSE);
  g_return_val_if_fail (phases != NULL || n_phases == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!res_store_begin (store, error))
    return FALSE;
  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_FINISH_RUN, error);
  RunChildren ch = { .pred = pred, .meas = meas, .mi = mi, .phases = phases,
                     .n_phases = n_phases };
  if (stmt != NULL)
    {
      sqlite3_bind_int64 (stmt, 1, run_id);
      res_bind_text (stmt, 2, res_run_status_to_string (status));
      res_bind_text (stmt, 3, error_text);
    }
  if (stmt == NULL || !update_running (store, stmt, run_id, "cannot close a run in", error)
      || !insert_children (store, run_id, &ch, error) || !res_store_commit (store, error))
    {
      res_store_rollback (store);
      return FALSE;
    }
  return TRUE;
}

gint64
res_store_add_profile (ResStore *store, const char *backend, const char *host,
                       const char *name, const char *profile_json, GError **error)
{
  g_return_val_if_fail (store != NULL && backend != NULL && profile_json != NULL, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!res_store_begin (store, error))
    return -1;
  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_INSERT_PROFILE, error);
  if (stmt == NULL)
    goto fail;
  res_bind_text (stmt, 1, backend);
  res_bind_text (stmt, 2, host != NULL ? host : g_get_host_name ());
  res_bind_text (stmt, 3, name);
  res_bind_text (stmt, 4, TANDEM_VERSION);
  res_bind_text (stmt, 5, profile_json);
  if (!res_store_step_done (store, stmt, "cannot insert a profile into", error))
    goto fail;
  gint64 id = sqlite3_last_insert_rowid (store->db);
  if (!res_store_commit (store, error))
    goto fail;
  return id;

fail:
  res_store_rollback (store);
  return -1;
}

gboolean
res_store_import_published (ResStore *store, const ResPublishedRow *rows, guint n_rows,
                            GError **error)
{
  g_return_val_if_fail (store != NULL && (rows != NULL || n_rows == 0), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!res_store_begin (store, error))
    return FALSE;
  /* The published table is one numbering of rows, and earlier validate runs' rows join it
   * by row_id (validation_rows, report validation): a CSV whose row 1 is another run
   * (another model, GPU type or GPU count) relabelled run 4's Llama 3.1 405B row as
   * "GPT-style 1.7B, 48 GPUs" without a word. A row that earlier runs validated keeps its
   * identity: a corrected value (a step time, a note) still updates it, another run under
   * its id is refused, nothing imported. */
  sqlite3_stmt *probe = NULL;
  if (sqlite3_prepare_v2 (store->db,
                          "SELECT p.model, p.gpu_type, p.n_gpus,"
                          " (SELECT group_concat (run_id, ', ') FROM (SELECT DISTINCT run_id"
                          "  FROM validations WHERE row_id = p.row_id ORDER BY run_id"
                          "  LIMIT 5)), p.row_json"
                          " FROM published AS p WHERE p.row_id = ?1", -1, &probe, NULL)
      != SQLITE_OK)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_FAILED, "cannot read the published rows of "
                   "%s: %s", store->path, sqlite3_errmsg (store->db));
      goto fail;
    }
  for (guint i = 0; i < n_rows; i++)
    {
      const ResPublishedRow *r = &rows[i];
      sqlite3_reset (probe);
      sqlite3_bind_int64 (probe, 1, r->row_id);
      if (sqlite3_step (probe) == SQLITE_ROW && sqlite3_column_type (probe, 3) != SQLITE_NULL)
        {
          const char *m = (const char *) sqlite3_column_text (probe, 0);
          const char *g = (const char *) sqlite3_column_text (probe, 1);
          const gboolean n_null = sqlite3_column_type (probe, 2) == SQLITE_NULL;
          const gint64 n = sqlite3_column_int64 (probe, 2);
          /* the very cells stored before are the same row, whatever tandem now reads from
           * them ("2 nodes x 8 GPUs" was stored as 2 GPUs before the n_gpus reader was the
           * mapping's, and a re-run of that CSV was refused as another row) */
          const char *stored_cells = (const char *) sqlite3_column_text (probe, 4);
          const gboolean same = (stored_cells != NULL && r->row_json != NULL
                                 && strcmp (stored_cells, r->row_json) == 0)
                                || (g_strcmp0 (m, r->model) == 0
                                    && g_strcmp0 (g, r->gpu_type) == 0
                                    && (n_null ? r->n_gpus <= 0 : n == r->n_gpus));
          if (!same)
            {
              g_set_error (error, RES_ERROR, RES_ERROR_CONSTRAINT,
                           "row %" G_GINT64_FORMAT " of this CSV (%s, %s, %" G_GINT64_FORMAT " GPUs) is not the "
                           "published row %" G_GINT64_FORMAT " that run%s %s of %s validated "
                           "(%s, %s, %" G_GINT64_FORMAT " GPUs): one results database numbers "
                           "published rows once, and storing this one would relabel those "
                           "runs (hint: --db another file for this CSV, or give its rows "
                           "ids the database does not hold)",
                           r->row_id, r->model != NULL ? r->model : "?",
                           r->gpu_type != NULL ? r->gpu_type : "?", (gint64) r->n_gpus, r->row_id,
                           strchr ((const char *) sqlite3_column_text (probe, 3), ',')
                             ? "s" : "",
                           (const char *) sqlite3_column_text (probe, 3), store->path,
                           m != NULL ? m : "?", g != NULL ? g : "?", n_null ? 0 : n);
              sqlite3_finalize (probe);
              goto fail;
            }
        }
    }
  sqlite3_finalize (probe);
  for (guint i = 0; i < n_rows; i++)
    {
      const ResPublishedRow *r = &rows[i];
      sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_UPSERT_PUBLISHED, error);
      if (stmt == NULL)
        goto fail;
      sqlite3_bind_int64 (stmt, 1, r->row_id);
      res_bind_text (stmt, 2, r->source);
      res_bind_text (stmt, 3, r->model);
      res_bind_text (stmt, 4, r->gpu_type);
      res_bind_int_or_null (stmt, 5, r->n_gpus, 1);
      res_bind_text (stmt, 6, r->row_json);
      if (!res_store_step_done (store, stmt, "cannot import a published row into", error))
        goto fail;
    }
  if (!res_store_commit (store, error))
    goto fail;
  return TRUE;

fail:
  res_store_rollback (store);
  return FALSE;
}
