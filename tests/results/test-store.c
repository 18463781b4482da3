/* tests/results/test-store.c - the SQLite results store.
 *
 * Tests that are not about the file use ":memory:"; the others work in a temporary
 * directory made by setup () and removed by teardown (). Raw sqlite3 calls here only
 * prepare odd files or look under the store's API (row counts after a rollback). */
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "results/store.h"
#include "results/store-private.h"   /* res_migrations: to write a v1 file */

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

/* A tandem file whose user_version was set below any version tandem writes (hand-edited:
 * -5, or 0 with tables) is refused as damaged, saying so, and left as it was; before,
 * migration 1 ran on it and failed with "table runs already exists". */
static void
test_version_below (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autoptr (ResStore) made = res_store_open (f->db, &error);
  g_assert_no_error (error);
  g_clear_pointer (&made, res_store_close);
  const int versions[] = { -5, 0 };
  for (guint i = 0; i < G_N_ELEMENTS (versions); i++)
    {
      g_autofree char *set = g_strdup_printf ("PRAGMA user_version = %d;", versions[i]);
      raw_exec (f->db, set);
      g_autoptr (ResStore) store = res_store_open (f->db, &error);
      g_assert_null (store);
      g_assert_error (error, RES_ERROR, RES_ERROR_CORRUPT);
      /* "F has schema version -5 with N tables and indexes, which no tandem writes ..." */
      g_autofree char *start = g_strdup_printf ("%s has schema version %d with ", f->db,
                                                versions[i]);
      g_assert_true (g_str_has_prefix (error->message, start));
      g_assert_nonnull (strstr (error->message, "which no tandem writes"));
      g_assert_null (strstr (error->message, "already exists"));
      g_clear_error (&error);
      /* read-only opens say the same */
      store = res_store_open_full (f->db, RES_OPEN_READ_ONLY, 100, &error);
      g_assert_null (store);
      g_assert_error (error, RES_ERROR, RES_ERROR_CORRUPT);
      g_clear_error (&error);
      g_assert_cmpint (raw_count (f->db, "PRAGMA user_version"), ==, versions[i]);
    }
}

/* A tandem table rebuilt without STRICT (by hand: CREATE TABLE ... AS SELECT makes a loose
 * one) is refused at open, read-write and read-only, naming the table, and the file is
 * left as it was: in such a table a REAL column can hold the text 'fast', which the
 * readers took for 0. A table of the user's own beside tandem's is not tandem's concern. */
static void
test_not_strict (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autoptr (ResStore) made = res_store_open (f->db, &error);
  g_assert_no_error (error);
  g_clear_pointer (&made, res_store_close);
  /* the user's own loose table: still opens */
  raw_exec (f->db, "CREATE TABLE notes (run INTEGER, text);");
  made = res_store_open (f->db, &error);
  g_assert_no_error (error);
  g_clear_pointer (&made, res_store_close);
  raw_exec (f->db, "PRAGMA foreign_keys = OFF; BEGIN;"
                   " CREATE TABLE loose AS SELECT * FROM profiles;"
                   " DROP TABLE profiles; ALTER TABLE loose RENAME TO profiles; COMMIT;");
  g_autofree char *expect =
    g_strdup_printf ("%s: table profiles was rebuilt without STRICT, which tandem gives "
                     "every table it creates (edited by hand), so a number column may hold "
                     "text that would read as 0: move the file away so that tandem starts a "
                     "new one, or copy its rows into a store that tandem created", f->db);
  for (int read_only = 0; read_only < 2; read_only++)
    {
      g_autoptr (ResStore) store =
        res_store_open_full (f->db, read_only ? RES_OPEN_READ_ONLY : RES_OPEN_DEFAULT, 100,
                             &error);
      g_assert_null (store);
      g_assert_error (error, RES_ERROR, RES_ERROR_CORRUPT);
      g_assert_cmpstr (error->message, ==, expect);
      g_clear_error (&error);
    }
  /* two such tables are named together */
  raw_exec (f->db, "BEGIN; CREATE TABLE loose AS SELECT * FROM search_candidates;"
                   " DROP TABLE search_candidates; ALTER TABLE loose RENAME TO search_candidates;"
                   " COMMIT;");
  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_null (store);
  g_assert_error (error, RES_ERROR, RES_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "tables profiles, search_candidates were rebuilt")
                    ? error->message
                    : strstr (error->message, "tables search_candidates, profiles were rebuilt"));
  g_clear_error (&error);
  /* left as it was: the loose table is still there, and not made STRICT again */
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM pragma_table_list"
                                     " WHERE name = 'profiles' AND strict = 0"), ==, 1);
}

/* A path that is not a regular file (/dev/null, a FIFO) is refused at open, saying so:
 * before, a writer opened /dev/null and failed at its first commit with "disk I/O error",
 * and a reader said "no such file" of a FIFO that is there. */
static void
test_not_regular (Fixture *f, gconstpointer data)
{
  g_autofree char *fifo = g_build_filename (f->dir, "fifo.db", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  const char *paths[] = { "/dev/null", fifo };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    for (int ro = 0; ro < 2; ro++)
      {
        GError *error = NULL;
        g_autoptr (ResStore) store =
          res_store_open_full (paths[i], ro ? RES_OPEN_READ_ONLY : RES_OPEN_DEFAULT, 100,
                               &error);
        g_assert_null (store);
        g_assert_error (error, RES_ERROR, RES_ERROR_OPEN);
        g_autofree char *expect =
          g_strdup_printf ("cannot open results database %s: it is not a regular file (a "
                           "device, FIFO or socket); pass a file path with --db", paths[i]);
        g_assert_cmpstr (error->message, ==, expect);
        g_clear_error (&error);
      }
  g_unlink (fifo);
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
  /* the newest of host b is the second profile stored: id 2, with its time */
  gint64 id = -1;
  g_autofree char *when = NULL;
  g_autofree char *b2 = res_store_latest_profile_info (store, "cpu", "b", &id, &when, &error);
  g_assert_cmpstr (b2, ==, "{\"v\":2}");
  g_assert_cmpint (id, ==, 2);
  g_assert_nonnull (when);
  g_assert_true (g_str_has_suffix (when, "Z"));
  g_assert_null (res_store_latest_profile (store, "cuda", "a", &error));
  g_assert_no_error (error);
  g_assert_cmpint (res_store_add_profile (store, "cpu", "a", NULL, "not json", &error), ==, -1);
  g_assert_error (error, RES_ERROR, RES_ERROR_CONSTRAINT);
  g_clear_error (&error);
}

/* Published rows are replaced by row_id, not duplicated; a row a validate run holds keeps
 * its identity. */
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
  /* Once a validate run holds row 1, another run under that id (another model, GPU type
   * or count: a second CSV numbered from 1) is refused and nothing is imported, since
   * validation_rows would relabel the run's row; the same run with a corrected value
   * still updates it. */
  ResRunInfo info = sample_info (RES_KIND_VALIDATE);
  ResValidationRow v[] = { { 1, 12.0, 12.1, NAN } };
  g_assert_cmpint (res_store_add_validation (store, &info, v, 1, &error), >, 0);
  g_assert_no_error (error);
  ResPublishedRow other[] = {
    { 3, "another paper", "GPT-7B", "A100-SXM-80GB", 64, "{}" },
    { 1, "another paper", "GPT-style 1.7B", "H100-SXM-80GB", 48, "{}" },
  };
  g_assert_false (res_store_import_published (store, other, 2, &error));
  g_assert_error (error, RES_ERROR, RES_ERROR_CONSTRAINT);
  g_assert_nonnull (strstr (error->message, "row 1 of this CSV (GPT-style 1.7B, H100-SXM-80GB, "
                                            "48 GPUs) is not the published row 1 that run 1"));
  g_clear_error (&error);
  g_assert_cmpint (res_store_count_published (store, &error), ==, 2);   /* row 3 not in */
  other[1].model = "Llama 3.1 405B";
  other[1].n_gpus = 8192;
  other[1].row_json = "{\"mfu_pct\":43.2}";
  g_assert_true (res_store_import_published (store, &other[1], 1, &error));
  g_assert_no_error (error);
  /* the very cells stored before are the same row whatever is read from them now: row 1
   * stored with its n_gpus misread (an older reader took "2 nodes x 8 GPUs" as 2) and read
   * again as 16 is updated, not refused as another run */
  ResPublishedRow cells = { 5, "Llama 3 paper", "Llama 3.1 405B", "H100-SXM-80GB", 2,
                            "{\"n_gpus\":\"2 nodes x 8 GPUs\"}" };
  g_assert_true (res_store_import_published (store, &cells, 1, &error));
  ResValidationRow v5[] = { { 5, 12.0, 12.1, NAN } };
  g_assert_cmpint (res_store_add_validation (store, &info, v5, 1, &error), >, 0);
  cells.n_gpus = 16;
  g_assert_true (res_store_import_published (store, &cells, 1, &error));
  g_assert_no_error (error);
  /* a row no run holds may still be renumbered to another run */
  ResPublishedRow two = { 2, "x", "GPT-7B", "A100-SXM-80GB", 64, "{}" };
  g_assert_true (res_store_import_published (store, &two, 1, &error));
  g_assert_no_error (error);
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

/* ---- the migration 1 -> 2 -------------------------------------------------------- */

/* A file as tandem 0.1 (schema 1) left it: migration 1 alone, then rows inserted the way
 * the v1 code inserted them (a canonical plan_json from plan_to_json, a hand-written one
 * with short keys, a run with a measurement, a validation, a profile, a published row). */
static void
write_v1_file (const char *path)
{
  g_assert_cmpstr (res_migrations[0].sql, !=, NULL);
  g_assert_cmpint (res_migrations[0].version, ==, 1);
  raw_exec (path, res_migrations[0].sql);
  raw_exec (path, "PRAGMA application_id = 1414415437; PRAGMA user_version = 1;");
  raw_exec (path,
    "INSERT INTO runs (run_id, created_at, kind, status, tool_version, host, model, cluster,"
    " plan, plan_json, model_json, cluster_json, world_size, note, error) VALUES"
    " (1, '2026-11-30T10:00:00.000Z', 'predict', 'ok', '0.1.0', 'h1', 'llama3-8b', 'h200-node',"
    "  'tp8.mbs1', '{\"summary\":\"tp8.mbs1\",\"parallelism\":{\"world_size\":8,"
    "\"tensor_parallel_degree\":8,\"pipeline_parallel_degree\":1,\"context_parallel_degree\":1,"
    "\"expert_parallel_degree\":1,\"data_parallel_degree\":1,\"virtual_stages_per_rank\":1},"
    "\"training\":{\"local_batch_size\":1,\"global_batch_size\":4,\"seq_len\":8192}}',"
    "  '{\"hidden_size\":4096}', '{\"name\":\"h200-node\"}', 8, 'first', NULL),"
    " (2, '2026-11-30T10:01:00.000Z', 'run', 'ok', '0.1.0', 'h1', 'tiny-llama', 'cpu-host',"
    "  'tp2.pp2.dp4.mbs1', '{\"tp\":2,\"pp\":2,\"dp\":4,\"mbs\":1}', NULL, NULL, 16, NULL, NULL),"
    " (3, '2026-11-30T10:02:00.000Z', 'run', 'failed', '0.1.0', 'h2', 'tiny-llama', NULL,"
    "  'tp2', NULL, NULL, NULL, 2, NULL, 'rank 1: timed out'),"
    " (4, '2026-11-30T10:03:00.000Z', 'validate', 'ok', '0.1.0', 'h1', 'published-runs.csv',"
    "  NULL, NULL, NULL, NULL, NULL, NULL, '2 rows', NULL);"
    "INSERT INTO predictions (run_id, step_time_s, tokens_per_s, mfu_json, hfu_json, fits,"
    " peak_memory_bytes, sim_wall_s) VALUES"
    " (1, 1.5, 21845.3, '{\"megatron96\":0.40,\"palm\":0.42}',"
    "  '{\"megatron96\":0.51,\"palm\":0.51}', 1, 33000000000, 0.01),"
    " (2, 0.25, 4096.0, '{\"megatron96\":0.20,\"palm\":0.22}', NULL, 1, 1000000, 0.002);"
    "INSERT INTO measurements (run_id, step_time_s, tokens_per_s, mfu_json, hfu_json, steps,"
    " warmup, ranks, step_times_json) VALUES"
    " (2, 0.2, 5120.0, '{\"megatron96\":0.25,\"palm\":0.275}', '{\"palm\":0.3}', 3, 1, 16,"
    "  '[0.2,0.2,0.2]');"
    "INSERT INTO phases VALUES (2, 'measured', 0, 'compute', 0.15, NULL),"
    " (2, 'predicted', 0, 'compute', 0.2, NULL);"
    "INSERT INTO published (row_id, source, model, gpu_type, n_gpus, row_json) VALUES"
    " (1, 'Llama 3 paper', 'Llama 3.1 405B', 'H100-SXM-80GB', 8192, '{\"row_id\":\"1\"}');"
    "INSERT INTO validations VALUES (4, 1, 11.0, 10.0, 10.0), (4, 2, 4.0, 5.0, -20.0);"
    "INSERT INTO profiles (backend, host, name, tool_version, profile_json) VALUES"
    " ('cpu', 'h1', 'p', '0.1.0', '{\"v\":1}');");
}

/* Every v1 column of every row, as text: what the migration must not change. */
static char *
raw_dump (const char *path)
{
  static const char *const queries[] = {
    "SELECT group_concat (quote (run_id) || quote (created_at) || quote (kind) ||"
    " quote (status) || quote (tool_version) || quote (host) || quote (model) ||"
    " quote (cluster) || quote (plan) || quote (plan_json) || quote (model_json) ||"
    " quote (cluster_json) || quote (world_size) || quote (note) || quote (error), '|')"
    " FROM (SELECT * FROM runs ORDER BY run_id)",
    "SELECT group_concat (quote (run_id) || quote (step_time_s) || quote (tokens_per_s) ||"
    " quote (mfu_json) || quote (hfu_json) || quote (fits) || quote (peak_memory_bytes) ||"
    " quote (sim_wall_s), '|') FROM (SELECT * FROM predictions ORDER BY run_id)",
    "SELECT group_concat (quote (run_id) || quote (step_time_s) || quote (mfu_json) ||"
    " quote (hfu_json) || quote (steps) || quote (warmup) || quote (ranks) ||"
    " quote (step_times_json), '|') FROM (SELECT * FROM measurements ORDER BY run_id)",
    "SELECT group_concat (quote (run_id) || source || rank || kind || quote (busy_s), '|')"
    " FROM (SELECT * FROM phases ORDER BY run_id, source)",
    "SELECT group_concat (row_id || source || quote (n_gpus) || row_json, '|') FROM published",
    "SELECT group_concat (run_id || row_id || predicted_step_s || measured_step_s || err_pct,"
    " '|') FROM (SELECT * FROM validations ORDER BY row_id)",
    "SELECT group_concat (backend || host || profile_json, '|') FROM profiles",
  };
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (queries); i++)
    {
      sqlite3_stmt *stmt = NULL;
      g_assert_cmpint (sqlite3_prepare_v2 (db, queries[i], -1, &stmt, NULL), ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
      g_string_append_printf (out, "%s\n", (const char *) sqlite3_column_text (stmt, 0));
      sqlite3_finalize (stmt);
    }
  sqlite3_close (db);
  return g_string_free (out, FALSE);
}

/* A v1 file migrates to v2 losing nothing: every v1 column of every row reads the same,
 * the new columns are back-filled from the old ones, the views answer. */
static void
test_migrate_v1 (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  write_v1_file (f->db);
  g_autofree char *before = raw_dump (f->db);
  g_test_message ("v1 rows:\n%s", before);
  {
    g_autoptr (ResStore) store = res_store_open (f->db, &error);
    g_assert_no_error (error);
    g_assert_cmpint (res_store_get_schema_version (store, NULL), ==, 2);
  }
  g_autofree char *after = raw_dump (f->db);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpint (raw_count (f->db, "PRAGMA user_version"), ==, 2);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM runs"), ==, 4);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM pragma_foreign_key_check"), ==, 0);
  /* degrees from the canonical plan_json (run 1) and from short keys (run 2); none for
   * a run without plan_json (run 3) */
  g_assert_cmpint (raw_count (f->db, "SELECT tp * 1000000 + cp * 100000 + pp * 10000 + vpp * 1000"
                                     " + dp * 100 + ep * 10 + mbs FROM runs WHERE run_id = 1"),
                   ==, 8111111);
  g_assert_cmpint (raw_count (f->db, "SELECT gbs FROM runs WHERE run_id = 1"), ==, 4);
  g_assert_cmpint (raw_count (f->db, "SELECT seq_len FROM runs WHERE run_id = 1"), ==, 8192);
  g_assert_cmpint (raw_count (f->db, "SELECT tp * 100 + pp * 10 + dp FROM runs"
                                     " WHERE run_id = 2"), ==, 224);
  g_assert_cmpint (raw_count (f->db, "SELECT cp IS NULL AND ep IS NULL FROM runs"
                                     " WHERE run_id = 2"), ==, 1);
  g_assert_cmpint (raw_count (f->db, "SELECT tp IS NULL FROM runs WHERE run_id = 3"), ==, 1);
  /* v1 rows were finished when created */
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM runs WHERE started_at = created_at"
                                     " AND finished_at = created_at"), ==, 4);

  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_no_error (error);
  g_autoptr (ResRunRecord) r = res_store_get_run (store, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (r->info.plan_json, ==, "{\"tp\":2,\"pp\":2,\"dp\":4,\"mbs\":1}");
  /* mfu in palm from mfu_json; hfu: the one number v1 wrote under each key */
  g_assert_cmpstr (r->pred.flops_convention, ==, "palm");
  g_assert_cmpfloat (r->pred.mfu, ==, 0.22);
  g_assert_true (isnan (r->pred.hfu));          /* v1 row had no hfu_json */
  g_assert_cmpfloat (r->meas.mfu, ==, 0.275);
  g_assert_cmpfloat (r->meas.hfu, ==, 0.3);
  g_assert_cmpint (r->measure.ranks, ==, 16);
  g_assert_cmpuint (r->phases->len, ==, 2);
  g_autoptr (ResRunRecord) r1 = res_store_get_run (store, 1, &error);
  g_assert_cmpfloat (r1->pred.mfu, ==, 0.42);
  g_assert_cmpfloat (r1->pred.hfu, ==, 0.51);
  g_assert_cmpint (r1->info.status, ==, RES_STATUS_OK);

  /* comparison: run 2 step time 0.25 predicted vs 0.2 measured: (0.25 - 0.2) / 0.2 = 0.25;
   * mfu 0.22 vs 0.275: (0.22 - 0.275) / 0.275 = -0.2 */
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open (f->db, &db), ==, SQLITE_OK);
  sqlite3_stmt *stmt = NULL;
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT term, rel_err FROM comparison"
                                       " WHERE run_id = 2 ORDER BY term_order", -1, &stmt,
                                       NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 0), ==, "step_time_s");
  g_assert_cmpfloat_with_epsilon (sqlite3_column_double (stmt, 1), 0.25, 1e-12);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 0), ==, "tokens_per_s");
  /* (4096 - 5120) / 5120 = -0.2 */
  g_assert_cmpfloat_with_epsilon (sqlite3_column_double (stmt, 1), -0.2, 1e-12);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 0), ==, "mfu");
  g_assert_cmpfloat_with_epsilon (sqlite3_column_double (stmt, 1), -0.2, 1e-12);
  sqlite3_finalize (stmt);
  /* validation_rows: row 1 joined to its published row, row 2 (not imported) without */
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT row_id, model, gpu_type, source, err_pct"
                                       " FROM validation_rows ORDER BY row_id", -1, &stmt,
                                       NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 1), ==, "Llama 3.1 405B");
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 2), ==, "H100-SXM-80GB");
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 3), ==, "Llama 3 paper");
  g_assert_cmpfloat (sqlite3_column_double (stmt, 4), ==, 10.0);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int (stmt, 0), ==, 2);
  g_assert_cmpint (sqlite3_column_type (stmt, 1), ==, SQLITE_NULL);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  sqlite3_finalize (stmt);
  sqlite3_close (db);

  /* new writes go on from the old ids, foreign keys on again */
  gint64 id = add_simple_prediction (store, "m", "p", 1.0);
  g_assert_cmpint (id, ==, 5);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM runs"), ==, 5);
}

/* The file at `path` holds exactly the `n` bytes of `before` */
static void
assert_file_is (const char *path, const char *before, gsize n)
{
  g_autofree char *after = NULL;
  gsize n_after = 0;
  g_assert_true (g_file_get_contents (path, &after, &n_after, NULL));
  g_assert_cmpuint (n_after, ==, n);
  g_assert_true (memcmp (before, after, n) == 0);
}

/* Read-only: a v1 file is read through an in-memory copy migrated there; the file stays
 * v1 and unchanged. */
static void
test_read_only_v1 (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  write_v1_file (f->db);
  g_autofree char *before = NULL;
  gsize n_before = 0;
  g_assert_true (g_file_get_contents (f->db, &before, &n_before, NULL));
  {
    g_autoptr (ResStore) store = res_store_open_full (f->db, RES_OPEN_READ_ONLY, 100, &error);
    g_assert_no_error (error);
    g_autoptr (GPtrArray) rows = res_store_list_runs (store, 0, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rows->len, ==, 4);
    ResRunRow *r2 = rows->pdata[2];   /* newest first: 4, 3, 2, 1 */
    g_assert_cmpint (r2->run_id, ==, 2);
    g_assert_cmpfloat (r2->predicted_mfu, ==, 0.22);
    g_assert_cmpfloat (r2->measured_step_s, ==, 0.2);
    /* a read-only store refuses to write */
    ResRunInfo info = { .kind = RES_KIND_PREDICT };
    ResMetrics m;
    res_metrics_init (&m);
    g_assert_cmpint (res_store_add_prediction (store, &info, &m, NULL, 0, &error), ==, -1);
    g_assert_nonnull (error);
    g_clear_error (&error);
  }
  assert_file_is (f->db, before, n_before);
  g_assert_cmpint (raw_count (f->db, "PRAGMA user_version"), ==, 1);

  /* no file: refused, and none is created */
  g_autofree char *missing = g_build_filename (f->dir, "none.db", NULL);
  g_assert_null (res_store_open_full (missing, RES_OPEN_READ_ONLY, 100, &error));
  g_assert_error (error, RES_ERROR, RES_ERROR_OPEN);
  g_clear_error (&error);
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
}

/* Read-only on a WAL file in a writable directory: reading leaves neither a -wal nor a
 * -shm behind and does not change the file (a SQLITE_OPEN_READONLY connection created
 * both and, not allowed to checkpoint, left them when it closed). */
static void
test_read_only_leaves_no_wal (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  {
    g_autoptr (ResStore) store = res_store_open (f->db, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (res_store_get_journal_mode (store), ==, "wal");
    ResRunInfo info = { .kind = RES_KIND_PREDICT };
    ResMetrics m;
    res_metrics_init (&m);
    m.step_time_s = 1.5;
    g_assert_cmpint (res_store_add_prediction (store, &info, &m, NULL, 0, &error), ==, 1);
    g_assert_no_error (error);
  }
  g_autofree char *wal = g_strconcat (f->db, "-wal", NULL);
  g_autofree char *shm = g_strconcat (f->db, "-shm", NULL);
  /* the writer's last close removed its own */
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (shm, G_FILE_TEST_EXISTS));
  g_autofree char *before = NULL;
  gsize n_before = 0;
  g_assert_true (g_file_get_contents (f->db, &before, &n_before, NULL));
  {
    g_autoptr (ResStore) store = res_store_open_full (f->db, RES_OPEN_READ_ONLY, 100, &error);
    g_assert_no_error (error);
    g_autoptr (GPtrArray) rows = res_store_list_runs (store, 0, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rows->len, ==, 1);
    /* still refuses to write */
    ResRunInfo info = { .kind = RES_KIND_PREDICT };
    ResMetrics m;
    res_metrics_init (&m);
    g_assert_cmpint (res_store_add_prediction (store, &info, &m, NULL, 0, &error), ==, -1);
    g_assert_nonnull (error);
    g_clear_error (&error);
  }
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (shm, G_FILE_TEST_EXISTS));
  assert_file_is (f->db, before, n_before);
}

/* A -wal that holds commits (a writer killed before its checkpoint; here a copy of the
 * file and its -wal taken while the writer had them open): a reader sees those runs and
 * neither folds them into the file nor removes the -wal (a read-write reader, the last
 * connection, checkpointed them: the file's bytes changed under `tandem runs`). */
static void
test_read_only_keeps_pending_wal (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autofree char *copy = g_build_filename (f->dir, "copy.db", NULL);
  g_autofree char *copy_wal = g_strconcat (copy, "-wal", NULL);
  {
    g_autoptr (ResStore) store = res_store_open (f->db, &error);
    g_assert_no_error (error);
    ResRunInfo info = { .kind = RES_KIND_PREDICT };
    ResMetrics m;
    res_metrics_init (&m);
    m.step_time_s = 2.5;
    g_assert_cmpint (res_store_add_prediction (store, &info, &m, NULL, 0, &error), ==, 1);
    g_assert_no_error (error);
    g_autofree char *wal = g_strconcat (f->db, "-wal", NULL);
    g_autofree char *text = NULL;
    gsize n = 0;
    g_assert_true (g_file_get_contents (f->db, &text, &n, NULL));
    g_assert_true (g_file_set_contents (copy, text, (gssize) n, NULL));
    g_free (text);
    g_assert_true (g_file_get_contents (wal, &text, &n, NULL));
    g_assert_cmpuint (n, >, 0);
    g_assert_true (g_file_set_contents (copy_wal, text, (gssize) n, NULL));
  }
  g_autofree char *before = NULL;
  gsize n_before = 0;
  g_assert_true (g_file_get_contents (copy, &before, &n_before, NULL));
  {
    g_autoptr (ResStore) store = res_store_open_full (copy, RES_OPEN_READ_ONLY, 100, &error);
    g_assert_no_error (error);
    g_autoptr (GPtrArray) rows = res_store_list_runs (store, 0, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rows->len, ==, 1);
    g_assert_cmpfloat (((ResRunRow *) rows->pdata[0])->predicted_step_s, ==, 2.5);
  }
  g_assert_true (g_file_test (copy_wal, G_FILE_TEST_EXISTS));
  assert_file_is (copy, before, n_before);
}

/* ---- runs recorded from their start ---------------------------------------------- */

static void
test_running (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (f->db, &error);
  g_assert_no_error (error);
  ResRunInfo info = sample_info (RES_KIND_RUN);
  info.framework = "megatron-core";
  gint64 id = res_store_start_run (store, &info, 3600, &error);
  g_assert_no_error (error);
  ResRunStatus st;
  g_assert_true (res_store_get_run_status (store, id, &st, &error));
  g_assert_cmpint (st, ==, RES_STATUS_RUNNING);
  g_assert_true (res_store_heartbeat (store, id, &error));
  g_assert_no_error (error);
  /* degrees from the short-key plan_json of sample_info: tp2 pp2 dp4 mbs1 */
  g_assert_cmpint (raw_count (f->db, "SELECT tp * 1000 + pp * 100 + dp * 10 + mbs FROM runs"),
                   ==, 2241);
  g_assert_cmpint (raw_count (f->db, "SELECT finished_at IS NULL FROM runs"), ==, 1);

  ResMetrics pred = sample_metrics (1.0), meas = sample_metrics (1.1);
  pred.mfu = 0.43;
  pred.flops_convention = "palm";
  pred.hfu = 0.5;
  ResMeasureInfo mi = { .steps = 3, .warmup = 1, .ranks = 16 };
  g_assert_true (res_store_finish_run (store, id, RES_STATUS_OK, NULL, &pred, &meas, &mi,
                                       NULL, 0, &error));
  g_assert_no_error (error);
  /* a second close (another rank) writes nothing and says so */
  g_assert_false (res_store_finish_run (store, id, RES_STATUS_FAILED, "late", NULL, NULL,
                                        NULL, NULL, 0, &error));
  g_assert_error (error, RES_ERROR, RES_ERROR_CLOSED);
  g_clear_error (&error);
  g_assert_false (res_store_heartbeat (store, id, &error));
  g_assert_error (error, RES_ERROR, RES_ERROR_CLOSED);
  g_clear_error (&error);
  g_autoptr (ResRunRecord) r = res_store_get_run (store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->info.status, ==, RES_STATUS_OK);
  g_assert_null (r->info.error);
  g_assert_cmpstr (r->info.framework, ==, "megatron-core");
  g_assert_nonnull (r->finished_at);
  g_assert_cmpfloat (r->pred.mfu, ==, 0.43);
  g_assert_cmpstr (r->pred.flops_convention, ==, "palm");
  g_assert_cmpfloat (r->pred.hfu, ==, 0.5);
  g_assert_cmpfloat (r->stale_after_s, ==, 3600);
  g_assert_cmpint (raw_count (f->db, "SELECT count(*) FROM runs"), ==, 1);

  /* a run whose heartbeat is older than stale_after_s reads as died */
  gint64 id2 = res_store_start_run (store, &info, 10, &error);
  g_assert_no_error (error);
  g_assert_true (res_store_get_run_status (store, id2, &st, &error));
  g_assert_cmpint (st, ==, RES_STATUS_RUNNING);
  raw_exec (f->db, "UPDATE runs SET heartbeat_at = strftime ('%Y-%m-%dT%H:%M:%fZ', 'now',"
                   " '-11 seconds') WHERE status = 'running'");
  g_assert_true (res_store_get_run_status (store, id2, &st, &error));
  g_assert_cmpint (st, ==, RES_STATUS_DIED);
  g_autoptr (GPtrArray) rows = res_store_list_runs (store, 0, &error);
  g_assert_cmpint (((ResRunRow *) rows->pdata[0])->status, ==, RES_STATUS_DIED);
  /* whoever can still closes it as failed */
  g_assert_true (res_store_finish_run (store, id2, RES_STATUS_FAILED, "rank 0 died", NULL,
                                       NULL, NULL, NULL, 0, &error));
  g_assert_true (res_store_get_run_status (store, id2, &st, &error));
  g_assert_cmpint (st, ==, RES_STATUS_FAILED);
}

/* ---- searches -------------------------------------------------------------------- */

static void
test_search (void)
{
  GError *error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  g_assert_no_error (error);
  ResRunInfo info = { .kind = RES_KIND_SEARCH, .model = "llama3-70b", .cluster = "h200-node",
                      .plan = "tp4.pp2.dp1.mbs1", .world_size = 8 };
  ResMetrics best;
  res_metrics_init (&best);
  best.step_time_s = 2.5;
  ResSearchCandidate c[] = {
    { .place = 2, .plan = "tp8.mbs1", .tp = 8, .cp = 1, .pp = 1, .vpp = 1, .dp = 1,
      .ep = 1, .mbs = 1, .sharding = "none", .recompute = "none", .schedule = "1f1b",
      .step_time_s = 3.0, .tokens_per_s = 1000, .mfu = 0.3, .hfu = 0.35,
      .peak_memory_bytes = 100, .fits = 1, .flags = NULL },
    { .place = 0, .plan = "tp1.mbs1", .tp = 1, .step_time_s = NAN, .tokens_per_s = NAN,
      .mfu = NAN, .hfu = NAN, .peak_memory_bytes = 900, .fits = 0, .flags = "oom" },
    { .place = 1, .plan = "tp4.pp2.dp1.mbs1", .tp = 4, .pp = 2, .step_time_s = 2.5,
      .tokens_per_s = 1200, .mfu = 0.36, .hfu = 0.4, .peak_memory_bytes = 80, .fits = 1 },
  };
  gint64 id = res_store_add_search (store, &info, &best, c, G_N_ELEMENTS (c), &error);
  g_assert_no_error (error);
  g_autoptr (ResRunRecord) r = res_store_get_run (store, id, &error);
  g_assert_no_error (error);
  g_assert_true (r->has_prediction);
  g_assert_cmpuint (r->candidates->len, ==, 3);
  /* read back by place: 1, 2, then the unranked one */
  const ResSearchCandidate *k0 = &g_array_index (r->candidates, ResSearchCandidate, 0);
  const ResSearchCandidate *k1 = &g_array_index (r->candidates, ResSearchCandidate, 1);
  const ResSearchCandidate *k2 = &g_array_index (r->candidates, ResSearchCandidate, 2);
  g_assert_cmpint (k0->place, ==, 1);
  g_assert_cmpstr (k0->plan, ==, "tp4.pp2.dp1.mbs1");
  g_assert_cmpint (k0->pp, ==, 2);
  g_assert_cmpint (k0->cp, ==, 0);             /* not given: unknown */
  g_assert_cmpint (k1->place, ==, 2);
  g_assert_cmpstr (k1->schedule, ==, "1f1b");
  g_assert_cmpfloat (k1->hfu, ==, 0.35);
  g_assert_cmpint (k2->place, ==, 0);
  g_assert_cmpint (k2->fits, ==, 0);
  g_assert_true (isnan (k2->step_time_s));
  g_assert_cmpstr (k2->flags, ==, "oom");

  /* one transaction: a bad candidate (two at place 1) leaves no search behind */
  c[0].place = 1;
  g_assert_cmpint (res_store_add_search (store, &info, &best, c, 3, &error), ==, -1);
  g_assert_error (error, RES_ERROR, RES_ERROR_CONSTRAINT);
  g_clear_error (&error);
  g_autoptr (GPtrArray) rows = res_store_list_runs (store, 0, &error);
  g_assert_cmpuint (rows->len, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/results/store/migrate-empty", test_migrate_empty);
  g_test_add ("/results/store/reopen", Fixture, NULL, setup, test_reopen, teardown);
  g_test_add ("/results/store/too-new", Fixture, NULL, setup, test_too_new, teardown);
  g_test_add ("/results/store/not-regular", Fixture, NULL, setup, test_not_regular,
              teardown);
  g_test_add ("/results/store/version-below", Fixture, NULL, setup, test_version_below,
              teardown);
  g_test_add ("/results/store/not-strict", Fixture, NULL, setup, test_not_strict, teardown);
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

  g_test_add ("/results/store/migrate-v1", Fixture, NULL, setup, test_migrate_v1, teardown);
  g_test_add ("/results/store/read-only-v1", Fixture, NULL, setup, test_read_only_v1,
              teardown);
  g_test_add ("/results/store/read-only-leaves-no-wal", Fixture, NULL, setup,
              test_read_only_leaves_no_wal, teardown);
  g_test_add ("/results/store/read-only-keeps-pending-wal", Fixture, NULL, setup,
              test_read_only_keeps_pending_wal, teardown);
  g_test_add ("/results/store/running", Fixture, NULL, setup, test_running, teardown);
  g_test_add_func ("/results/store/search", test_search);

  return g_test_run ();
}
