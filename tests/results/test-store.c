/* tests/results/test-store.c - the SQLite results store.
 *
 * Tests that are not about the file use ":memory:"; the others work in a temporary
 * directory made by setup () and removed by teardown (). Raw sqlite3 calls here only
 * prepare odd files or look under the store's API (row counts after a rollback). */
#include <math.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "results/store.h"

typedef struct {
  char *dir;   /* temporary directory, removed with its files */
  char *db;    /* dir/tandem.db */
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  f->dir = g_dir_make_tmp ("tandem-store-XXXXXX", &error);
  g_assert_no_error (error);
  f->db = g_build_filename (f->dir, "tandem.db", NULL);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_autoptr (GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);
      g_assert_cmpint (g_remove (path), ==, 0);
    }
  g_assert_cmpint (g_rmdir (f->dir), ==, 0);
  g_free (f->db);
  g_free (f->dir);
}

/* Runs SQL on a file through a raw connection, outside the store. */
static void
raw_exec (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  char *msg = NULL;
  int rc = sqlite3_exec (db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
  sqlite3_close (db);
}

static gint64
raw_count (const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  gint64 n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return n;
}

static ResRunInfo
sample_info (ResRunKind kind)
{
  return (ResRunInfo) {
    .kind = kind,
    .status = RES_STATUS_OK,
    .model = "llama3-8b",
    .cluster = "dgx-h100-2node",
    .plan = "tp2.pp2.dp4.mbs1",
    .plan_json = "{\"tp\":2,\"pp\":2,\"dp\":4,\"mbs\":1}",
    .model_json = "{\"model_type\":\"llama\",\"hidden_size\":4096}",
    .cluster_json = "{\"name\":\"dgx-h100-2node\",\"gpus\":16}",
    .world_size = 16,
    .host = "node017",
    .note = "round trip",
    .error = NULL,
  };
}

/* Arbitrary distinct values (not physics): each field gets its own so that a swapped
 * column would show. */
static ResMetrics
sample_metrics (double base)
{
  ResMetrics m;
  res_metrics_init (&m);
  m.step_time_s = base + 0.125;
  m.tokens_per_s = base * 1000.0 + 1.5;
  m.tflops_per_gpu = base + 400.25;
  m.mfu_json = "{\"megatron\":0.41,\"palm\":0.43}";
  m.hfu_json = "{\"megatron\":0.52,\"palm\":0.54}";
  m.bubble_fraction = 0.0625;
  m.compute_s = base + 0.0625;
  m.exposed_s[RES_COMM_TP] = 0.001;
  m.exposed_s[RES_COMM_CP] = 0.002;
  m.exposed_s[RES_COMM_PP] = 0.003;
  m.exposed_s[RES_COMM_DP] = 0.004;
  m.exposed_s[RES_COMM_EP] = 0.005;
  m.overlap_ratio = 0.75;
  m.peak_memory_bytes = G_GINT64_CONSTANT (71000000000);
  m.fits = 1;
  m.memory_json = "{\"weights\":16000000000,\"activations\":30000000000}";
  m.sim_wall_s = 0.0315;
  m.extra_json = "{\"seed\":42}";
  return m;
}

/* Equal, or both unknown (NaN). */
#define assert_same_double(a, b) G_STMT_START {                                  \
    double a_ = (a), b_ = (b);                                                  \
    if (isnan (a_) || isnan (b_))                                               \
      g_assert_true (isnan (a_) && isnan (b_));                                 \
    else                                                                        \
      g_assert_cmpfloat (a_, ==, b_);                                           \
  } G_STMT_END

static void
assert_metrics_equal (const ResMetrics *a, const ResMetrics *b)
{
  assert_same_double (a->step_time_s, b->step_time_s);
  assert_same_double (a->tokens_per_s, b->tokens_per_s);
  assert_same_double (a->tflops_per_gpu, b->tflops_per_gpu);
  g_assert_cmpstr (a->mfu_json, ==, b->mfu_json);
  g_assert_cmpstr (a->hfu_json, ==, b->hfu_json);
  assert_same_double (a->bubble_fraction, b->bubble_fraction);
  assert_same_double (a->compute_s, b->compute_s);
  for (guint i = 0; i < RES_COMM_N; i++)
    assert_same_double (a->exposed_s[i], b->exposed_s[i]);
  assert_same_double (a->overlap_ratio, b->overlap_ratio);
  g_assert_cmpint (a->peak_memory_bytes, ==, b->peak_memory_bytes);
  g_assert_cmpint (a->fits, ==, b->fits);
  g_assert_cmpstr (a->memory_json, ==, b->memory_json);
  g_assert_cmpstr (a->extra_json, ==, b->extra_json);
}

static void
assert_info_equal (const ResRunInfo *a, const ResRunInfo *b)
{
  g_assert_cmpint (a->kind, ==, b->kind);
  g_assert_cmpint (a->status, ==, b->status);
  g_assert_cmpstr (a->model, ==, b->model);
  g_assert_cmpstr (a->cluster, ==, b->cluster);
  g_assert_cmpstr (a->plan, ==, b->plan);
  g_assert_cmpstr (a->plan_json, ==, b->plan_json);
  g_assert_cmpstr (a->model_json, ==, b->model_json);
  g_assert_cmpstr (a->cluster_json, ==, b->cluster_json);
  g_assert_cmpint (a->world_size, ==, b->world_size);
  g_assert_cmpstr (a->host, ==, b->host);
  g_assert_cmpstr (a->note, ==, b->note);
  g_assert_cmpstr (a->error, ==, b->error);
}

static gint64
add_simple_prediction (ResStore *store, const char *model, const char *plan, double step_s)
{
  GError *error = NULL;
  ResRunInfo info = { .kind = RES_KIND_PREDICT, .model = model, .plan = plan,
                      .world_size = 8 };
  ResMetrics m;
  res_metrics_init (&m);
  m.step_time_s = step_s;
  gint64 id = res_store_add_prediction (store, &info, &m, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  return id;
}

/* ---- open, migrations, refusals -------------------------------------------------- */

/* An empty database is migrated to the newest schema. */
static void
test_migrate_empty (void)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  g_assert_no_error (error);
  g_assert_cmpint (res_store_get_schema_version (store, NULL), ==, RES_SCHEMA_VERSION);
  /* SQLite keeps ":memory:" in journal mode "memory", whatever is asked. */
  g_assert_cmpstr (res_store_get_journal_mode (store), ==, "memory");
}

/* Opening the same file again migrates nothing and loses nothing. */
static void
test_reopen (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  gint64 id;
  {
    g_autoptr (ResStore) store = res_store_open (f->db, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (res_store_get_journal_mode (store), ==, "wal");
    id = add_simple_prediction (store, "m", "p", 1.0);
  }
  for (int i = 0; i < 2; i++)
    {
      g_autoptr (ResStore) store = res_store_open (f->db, &error);
      g_assert_no_error (error);
      g_assert_cmpint (res_store_get_schema_version (store, NULL), ==, RES_SCHEMA_VERSION);
      g_autoptr (GPtrArray) rows = res_store_list_runs (store, 0, &error);
      g_assert_no_error (error);
      /* one run written before, none since */
      g_assert_cmpuint (rows->len, ==, 1);
      g_assert_cmpint (((ResRunRow *) rows->pdata[0])->run_id, ==, id);
    }
}

/* A file written by a newer tandem is refused, and left as it was. */
static void
test_too_new (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  /* 1414415437 = 0x544E444D, tandem's application_id ("TNDM") */
  raw_exec (f->db, "PRAGMA application_id = 1414415437; PRAGMA user_version = 7;");
  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_null (store);
  g_assert_error (error, RES_ERROR, RES_ERROR_TOO_NEW);
  g_autofree char *expect =
    g_strdup_printf ("%s has schema version 7, this tandem knows up to %d: upgrade tandem",
                     f->db, RES_SCHEMA_VERSION);
  g_assert_cmpstr (error->message, ==, expect);
  g_clear_error (&error);
  g_assert_cmpint (raw_count (f->db, "PRAGMA user_version"), ==, 7);
}

/* A text file is not a database: refused, named, and not overwritten. */
static void
test_text_file (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  const char *text = "step_time_s,mfu\n1.25,0.41\n"
                     "this is a CSV file that someone passed as --db by mistake\n"
                     "padding so that the file is longer than SQLite's 100-byte header\n";
  g_assert_true (g_file_set_contents (f->db, text, -1, NULL));
  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_null (store);
  g_assert_error (error, RES_ERROR, RES_ERROR_NOT_A_DATABASE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, f->db));
  g_assert_nonnull (strstr (error->message, "is not a SQLite database"));
  g_assert_nonnull (strstr (error->message, "--db"));
  g_clear_error (&error);
  g_autofree char *after = NULL;
  g_assert_true (g_file_get_contents (f->db, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, text);
}

/* A SQLite file of another program is not touched either. */
static void
test_other_program (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  raw_exec (f->db, "CREATE TABLE bookmarks (url TEXT);");
  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_null (store);
  g_assert_error (error, RES_ERROR, RES_ERROR_NOT_A_DATABASE);
  g_assert_nonnull (strstr (error->message, "another program"));
  g_clear_error (&error);
}

/* A tandem file whose schema page is damaged is reported as corrupt. */
static void
test_corrupt (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  {
    g_autoptr (ResStore) store = res_store_open (f->db, &error);
    g_assert_no_error (error);
    add_simple_prediction (store, "m", "p", 1.0);
  } /* the last close checkpoints the WAL into the file */
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (f->db, &bytes, &len, NULL));
  /* Page 1 = the 100-byte file header, then the sqlite_schema b-tree page
   * (https://sqlite.org/fileformat.html): scribble over that page's header and cells. */
  g_assert_cmpuint (len, >=, 1024);
  memset (bytes + 100, 0xA5, 900);
  g_assert_true (g_file_set_contents (f->db, bytes, len, NULL));

  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_null (store);
  g_assert_error (error, RES_ERROR, RES_ERROR_CORRUPT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, f->db));
  g_assert_nonnull (strstr (error->message, "corrupt"));
  g_clear_error (&error);
}

/* Paths SQLite cannot create a file at. */
static void
test_unwritable (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autofree char *missing = g_build_filename (f->dir, "no-such-dir", "tandem.db", NULL);
  ResStore *store = res_store_open (missing, &error);
  g_assert_null (store);
  g_assert_error (error, RES_ERROR, RES_ERROR_OPEN);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "does not exist"));
  g_clear_error (&error);

  store = res_store_open (f->dir, &error);
  g_assert_null (store);
  g_assert_error (error, RES_ERROR, RES_ERROR_OPEN);
  g_assert_nonnull (strstr (error->message, "is a directory"));
  g_clear_error (&error);

  /* Permission bits do not stop root. */
  if (geteuid () == 0)
    {
      g_test_message ("running as root: read-only file case skipped");
      return;
    }
  g_assert_true (g_file_set_contents (f->db, "", 0, NULL));
  g_assert_cmpint (g_chmod (f->db, 0444), ==, 0);
  store = res_store_open (f->db, &error);
  g_assert_null (store);
  g_assert_error (error, RES_ERROR, RES_ERROR_READ_ONLY);
  g_clear_error (&error);
}

/* Another connection holding the write lock makes a writer wait, then fail clearly;
 * the lock released, the same store writes again. */
static void
test_busy (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_no_error (error);
  res_store_set_busy_timeout (store, 50);

  sqlite3 *other = NULL;
  g_assert_cmpint (sqlite3_open (f->db, &other), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (other, "BEGIN IMMEDIATE", NULL, NULL, NULL), ==, SQLITE_OK);

  ResRunInfo info = { .kind = RES_KIND_PREDICT };
  ResMetrics m;
  res_metrics_init (&m);
  g_assert_cmpint (res_store_add_prediction (store, &info, &m, NULL, 0, &error), ==, -1);
  g_assert_error (error, RES_ERROR, RES_ERROR_BUSY);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "locked by another process"));
  g_clear_error (&error);

  g_assert_cmpint (sqlite3_exec (other, "ROLLBACK", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (other);
  g_assert_cmpint (res_store_add_prediction (store, &info, &m, NULL, 0, &error), >, 0);
  g_assert_no_error (error);
}

/* ---- inserts and reads ----------------------------------------------------------- */

/* Every field of a prediction, of a run (measured next to predicted) and of their phases
 * comes back as written. */
static void
test_round_trip (void)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  g_assert_no_error (error);

  ResRunInfo info = sample_info (RES_KIND_PREDICT);
  ResMetrics pred = sample_metrics (1.0);
  ResPhase phases[] = {
    { RES_SOURCE_PREDICTED, 0, "compute", 0.9, NAN },
    { RES_SOURCE_PREDICTED, 0, "tp", 0.2, 0.001 },
    { RES_SOURCE_PREDICTED, 4, "dp", 0.3, 0.004 },
  };
  gint64 id = res_store_add_prediction (store, &info, &pred, phases, G_N_ELEMENTS (phases),
                                        &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);

  g_autoptr (ResRunRecord) r = res_store_get_run (store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->run_id, ==, id);
  assert_info_equal (&r->info, &info);
  g_assert_true (g_regex_match_simple ("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$",
                                       r->created_at, 0, 0));
  g_assert_nonnull (r->tool_version);
  g_assert_true (r->has_prediction);
  g_assert_false (r->has_measurement);
  assert_metrics_equal (&r->pred, &pred);
  assert_same_double (r->pred.sim_wall_s, pred.sim_wall_s);
  g_assert_cmpuint (r->phases->len, ==, G_N_ELEMENTS (phases));
  for (guint i = 0; i < r->phases->len; i++)  /* stored in (source, rank, kind) order */
    {
      const ResPhase *p = &g_array_index (r->phases, ResPhase, i);
      g_assert_cmpint (p->source, ==, phases[i].source);
      g_assert_cmpint (p->rank, ==, phases[i].rank);
      g_assert_cmpstr (p->kind, ==, phases[i].kind);
      g_assert_cmpfloat (p->busy_s, ==, phases[i].busy_s);
      assert_same_double (p->exposed_s, phases[i].exposed_s);
    }

  /* A real run: measurement next to prediction, unknown fields stay unknown. */
  ResRunInfo run_info = sample_info (RES_KIND_RUN);
  run_info.host = NULL;
  ResMetrics meas = sample_metrics (1.1);
  meas.sim_wall_s = NAN;
  meas.memory_json = NULL;
  meas.exposed_s[RES_COMM_EP] = NAN;
  meas.fits = -1;
  ResMeasureInfo mi = { .steps = 20, .warmup = 3, .ranks = 16,
                        .step_times_json = "[1.225,1.226,1.224]" };
  ResPhase mphases[] = {
    { RES_SOURCE_MEASURED, 1, "compute", 0.95, 0.0 },
    { RES_SOURCE_PREDICTED, 1, "compute", 0.9, 0.0 },
  };
  gint64 id2 = res_store_add_run (store, &run_info, &pred, &meas, &mi, mphases,
                                  G_N_ELEMENTS (mphases), &error);
  g_assert_no_error (error);
  g_assert_cmpint (id2, >, id);
  g_autoptr (ResRunRecord) r2 = res_store_get_run (store, id2, &error);
  g_assert_no_error (error);
  run_info.host = g_get_host_name ();  /* NULL host is stored as this machine */
  assert_info_equal (&r2->info, &run_info);
  g_assert_true (r2->has_prediction && r2->has_measurement);
  assert_metrics_equal (&r2->pred, &pred);
  assert_metrics_equal (&r2->meas, &meas);
  g_assert_true (isnan (r2->meas.sim_wall_s));
  g_assert_cmpint (r2->measure.steps, ==, 20);
  g_assert_cmpint (r2->measure.warmup, ==, 3);
  g_assert_cmpint (r2->measure.ranks, ==, 16);
  g_assert_cmpstr (r2->measure.step_times_json, ==, mi.step_times_json);
  /* 'measured' sorts before 'predicted' */
  g_assert_cmpuint (r2->phases->len, ==, 2);
  g_assert_cmpint (g_array_index (r2->phases, ResPhase, 0).source, ==, RES_SOURCE_MEASURED);
  g_assert_cmpfloat (g_array_index (r2->phases, ResPhase, 0).busy_s, ==, 0.95);

  g_autoptr (GPtrArray) rows = res_store_list_runs (store, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 2);
  ResRunRow *row = rows->pdata[0];
  g_assert_cmpint (row->run_id, ==, id2);
  g_assert_cmpint (row->kind, ==, RES_KIND_RUN);
  g_assert_cmpint (row->status, ==, RES_STATUS_OK);
  g_assert_cmpstr (row->model, ==, info.model);
  g_assert_cmpstr (row->cluster, ==, info.cluster);
  g_assert_cmpstr (row->plan, ==, info.plan);
  g_assert_cmpint (row->world_size, ==, 16);
  g_assert_cmpfloat (row->predicted_step_s, ==, pred.step_time_s);
  g_assert_cmpfloat (row->measured_step_s, ==, meas.step_time_s);
  g_assert_cmpstr (row->mfu_json, ==, pred.mfu_json);
  g_assert_cmpstr (row->measured_mfu_json, ==, meas.mfu_json);
  g_assert_cmpstr (row->created_at, ==, r2->created_at);
  /* the prediction-only run has no measured step time */
  g_assert_true (isnan (((ResRunRow *) rows->pdata[1])->measured_step_s));

  g_assert_null (res_store_get_run (store, id2 + 1000, &error));
  g_assert_error (error, RES_ERROR, RES_ERROR_NOT_FOUND);
  g_clear_error (&error);
}

/* A failed run keeps its error text and has no metrics. */
static void
test_failed_run (void)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  g_assert_no_error (error);
  ResRunInfo info = sample_info (RES_KIND_RUN);
  info.status = RES_STATUS_OK;  /* add_failed_run stores 'failed' anyway */
  info.error = "rank 3: NCCL error: unhandled system error";
  gint64 id = res_store_add_failed_run (store, &info, &error);
  g_assert_no_error (error);

  g_autoptr (ResRunRecord) r = res_store_get_run (store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->info.status, ==, RES_STATUS_FAILED);
  g_assert_cmpstr (r->info.error, ==, info.error);
  g_assert_false (r->has_prediction);
  g_assert_false (r->has_measurement);
  g_assert_cmpuint (r->phases->len, ==, 0);

  info.status = RES_STATUS_OOM;
  gint64 id2 = res_store_add_failed_run (store, &info, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) rows = res_store_list_runs (store, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 2);
  ResRunRow *oom = rows->pdata[0], *failed = rows->pdata[1];
  g_assert_cmpint (oom->run_id, ==, id2);
  g_assert_cmpint (oom->status, ==, RES_STATUS_OOM);
  g_assert_cmpint (failed->status, ==, RES_STATUS_FAILED);
  g_assert_true (isnan (failed->predicted_step_s));
  g_assert_null (failed->mfu_json);
  g_assert_cmpstr (failed->error, ==, info.error);
}

/* A constraint failure anywhere in a multi-row insert leaves none of its rows. */
static void
test_rollback (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_no_error (error);
  ResRunInfo info = sample_info (RES_KIND_VALIDATE);

  ResValidationRow rows[] = {
    { 1, 1.10, 1.00, NAN },
    { 2, 2.00, 2.50, NAN },
    { 3, 3.00, -1.0, NAN },   /* breaks CHECK (measured_step_s > 0) */
    { 4, 4.00, 4.00, NAN },
  };
  g_assert_cmpint (res_store_add_validation (store, &info, rows, G_N_ELEMENTS (rows), &error),
                   ==, -1);
  g_assert_error (error, RES_ERROR, RES_ERROR_CONSTRAINT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "measured_step_s"));
  g_clear_error (&error);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM runs"), ==, 0);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM validations"), ==, 0);

  /* Invalid JSON in a metric, and a duplicated phase: same outcome. */
  ResMetrics bad = sample_metrics (1.0);
  bad.mfu_json = "{megatron: 0.41";
  g_assert_cmpint (res_store_add_prediction (store, &info, &bad, NULL, 0, &error), ==, -1);
  g_assert_error (error, RES_ERROR, RES_ERROR_CONSTRAINT);
  g_clear_error (&error);
  ResMetrics good = sample_metrics (1.0);
  ResPhase dup[] = {
    { RES_SOURCE_PREDICTED, 0, "compute", 0.9, 0.0 },
    { RES_SOURCE_PREDICTED, 0, "compute", 0.8, 0.0 },
  };
  g_assert_cmpint (res_store_add_prediction (store, &info, &good, dup, 2, &error), ==, -1);
  g_assert_error (error, RES_ERROR, RES_ERROR_CONSTRAINT);
  g_clear_error (&error);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM runs"), ==, 0);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM predictions"), ==, 0);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM phases"), ==, 0);

  /* The good rows alone go in; err_pct computed when not given. */
  gint64 id = res_store_add_validation (store, &info, rows, 2, &error);
  g_assert_no_error (error);
  g_autoptr (ResRunRecord) r = res_store_get_run (store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->validations->len, ==, 2);
  /* row 1: 100 (1.10 - 1.00) / 1.00 = +10 %; row 2: 100 (2.00 - 2.50) / 2.50 = -20 % */
  g_assert_cmpfloat_with_epsilon (g_array_index (r->validations, ResValidationRow, 0).err_pct,
                                  10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (r->validations, ResValidationRow, 1).err_pct,
                                  -20.0, 1e-9);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM validations"), ==, 2);
}

/* Newest first, and limit cuts the list. */
static void
test_list_order_limit (void)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  g_assert_no_error (error);
  gint64 ids[5];
  for (int i = 0; i < 5; i++)
    {
      g_autofree char *plan = g_strdup_printf ("dp%d", 1 << i);
      ids[i] = add_simple_prediction (store, "m", plan, 1.0 + i);
    }
  g_autoptr (GPtrArray) three = res_store_list_runs (store, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (three->len, ==, 3);
  for (guint i = 0; i < 3; i++)  /* newest first: ids[4], ids[3], ids[2] */
    {
      ResRunRow *row = three->pdata[i];
      g_assert_cmpint (row->run_id, ==, ids[4 - i]);
      /* inserted with step time 1.0 + i */
      g_assert_cmpfloat (row->predicted_step_s, ==, 1.0 + (4 - i));
    }
  g_autoptr (GPtrArray) all = res_store_list_runs (store, 0, &error);
  g_assert_cmpuint (all->len, ==, 5);
  g_autoptr (GPtrArray) more = res_store_list_runs (store, 10, &error);
  g_assert_cmpuint (more->len, ==, 5);
  g_assert_cmpint (((ResRunRow *) all->pdata[4])->run_id, ==, ids[0]);
}

/* The newest profile per backend and host. */
static void
test_profiles (void)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  g_assert_no_error (error);
  g_assert_cmpint (res_store_add_profile (store, "cpu", "a", "first", "{\"v\":1}", &error),
                   >, 0);
  g_assert_cmpint (res_store_add_profile (store, "cpu", "b", NULL, "{\"v\":2}", &error), >, 0);
  g_assert_cmpint (res_store_add_profile (store, "cpu", "a", "third", "{\"v\":3}", &error),
                   >, 0);
  g_assert_no_error (error);
  g_autofree char *a = res_store_latest_profile (store, "cpu", "a", &error);
  g_assert_cmpstr (a, ==, "{\"v\":3}");
  g_autofree char *b = res_store_latest_profile (store, "cpu", "b", &error);
  g_assert_cmpstr (b, ==, "{\"v\":2}");
  g_autofree char *any = res_store_latest_profile (store, "cpu", NULL, &error);
  g_assert_cmpstr (any, ==, "{\"v\":3}");
  g_assert_null (res_store_latest_profile (store, "cuda", "a", &error));
  g_assert_no_error (error);
  g_assert_cmpint (res_store_add_profile (store, "cpu", "a", NULL, "not json", &error), ==, -1);
  g_assert_error (error, RES_ERROR, RES_ERROR_CONSTRAINT);
  g_clear_error (&error);
}

/* Published rows are replaced by row_id, not duplicated. */
static void
test_published (void)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  g_assert_no_error (error);
  ResPublishedRow rows[] = {
    { 1, "Llama 3 paper", "Llama 3.1 405B", "H100-SXM-80GB", 8192, "{\"mfu_pct\":43}" },
    { 2, "Llama 3 paper", "Llama 3.1 405B", "H100-SXM-80GB", 16384, "{\"mfu_pct\":41}" },
  };
  g_assert_true (res_store_import_published (store, rows, 2, &error));
  rows[1].row_json = "{\"mfu_pct\":41,\"tflops_per_gpu\":400}";
  g_assert_true (res_store_import_published (store, &rows[1], 1, &error));
  g_assert_no_error (error);
  /* rows 1 and 2, the second replaced */
  g_assert_cmpint (res_store_count_published (store, &error), ==, 2);
}

/* ---- several processes ----------------------------------------------------------- */

#define N_CHILDREN 4
#define N_PER_CHILD 50

static int
child_main (const char *path, int child)
{
  GError *error = NULL;
  /* Each child opens the fresh file itself: they race on the migration as well. */
  ResStore *store = res_store_open (path, &error);
  if (store == NULL)
    {
      g_printerr ("child %d: %s\n", child, error->message);
      return 1;
    }
  for (int i = 0; i < N_PER_CHILD; i++)
    {
      g_autofree char *model = g_strdup_printf ("child%d", child);
      g_autofree char *plan = g_strdup_printf ("i%d", i);
      ResRunInfo info = { .kind = RES_KIND_SEARCH, .model = model, .plan = plan,
                          .world_size = 8 };
      ResMetrics m = sample_metrics (child + i / 100.0);
      ResPhase ph[] = { { RES_SOURCE_PREDICTED, 0, "compute", 1.0, 0.0 },
                        { RES_SOURCE_PREDICTED, 0, "dp", 0.5, 0.1 } };
      if (res_store_add_prediction (store, &info, &m, ph, 2, &error) < 0)
        {
          g_printerr ("child %d, insert %d: %s\n", child, i, error->message);
          res_store_close (store);
          return 1;
        }
    }
  res_store_close (store);
  return 0;
}

static void
test_concurrent (Fixture *f, gconstpointer data)
{
  pid_t pids[N_CHILDREN];
  for (int c = 0; c < N_CHILDREN; c++)
    {
      pids[c] = fork ();
      g_assert_cmpint (pids[c], >=, 0);
      if (pids[c] == 0)
        _exit (child_main (f->db, c));
    }
  for (int c = 0; c < N_CHILDREN; c++)
    {
      int status = 0;
      g_assert_cmpint (waitpid (pids[c], &status, 0), ==, pids[c]);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
    }

  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) rows = res_store_list_runs (store, 0, &error);
  g_assert_no_error (error);
  /* 4 children x 50 inserts = 200 runs */
  g_assert_cmpuint (rows->len, ==, N_CHILDREN * N_PER_CHILD);
  gboolean seen[N_CHILDREN][N_PER_CHILD] = { { FALSE } };
  for (guint k = 0; k < rows->len; k++)
    {
      ResRunRow *row = rows->pdata[k];
      int c = -1, i = -1;
      g_assert_cmpint (sscanf (row->model, "child%d", &c), ==, 1);
      g_assert_cmpint (sscanf (row->plan, "i%d", &i), ==, 1);
      g_assert_true (c >= 0 && c < N_CHILDREN && i >= 0 && i < N_PER_CHILD);
      g_assert_false (seen[c][i]);
      seen[c][i] = TRUE;
      /* every run is complete: its prediction row came with it, step = c + i/100 + 0.125 */
      g_assert_cmpfloat_with_epsilon (row->predicted_step_s, c + i / 100.0 + 0.125, 1e-12);
    }
  /* 200 runs x 1 prediction and x 2 phases */
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM predictions"), ==, 200);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM phases"), ==, 400);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM runs AS r WHERE NOT EXISTS"
                                     " (SELECT 1 FROM predictions AS p"
                                     "  WHERE p.run_id = r.run_id)"), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/results/store/migrate-empty", test_migrate_empty);
  g_test_add ("/results/store/reopen", Fixture, NULL, setup, test_reopen, teardown);
  g_test_add ("/results/store/too-new", Fixture, NULL, setup, test_too_new, teardown);
  g_test_add ("/results/store/text-file", Fixture, NULL, setup, test_text_file, teardown);
  g_test_add ("/results/store/other-program", Fixture, NULL, setup, test_other_program,
              teardown);
  g_test_add ("/results/store/corrupt", Fixture, NULL, setup, test_corrupt, teardown);
  g_test_add ("/results/store/unwritable", Fixture, NULL, setup, test_unwritable, teardown);
  g_test_add ("/results/store/busy", Fixture, NULL, setup, test_busy, teardown);
  g_test_add_func ("/results/store/round-trip", test_round_trip);
  g_test_add_func ("/results/store/failed-run", test_failed_run);
  g_test_add ("/results/store/rollback", Fixture, NULL, setup, test_rollback, teardown);
  g_test_add_func ("/results/store/list-order-limit", test_list_order_limit);
  g_test_add_func ("/results/store/profiles", test_profiles);
  g_test_add_func ("/results/store/published", test_published);
  g_test_add ("/results/store/concurrent", Fixture, NULL, setup, test_concurrent, teardown);

  return g_test_run ();
}
