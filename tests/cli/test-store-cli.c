/* tests/cli/test-store-cli.c - print, then store (docs/contracts.md) end to end: a result
 * the store refuses (a lock held past --db-timeout, a read-only database, a directory
 * that does not take a file) is printed, kept in a fallback file, and the exit status is
 * 1; read-only commands work on files nobody may write and do not migrate them; output
 * paths are checked before the work and written through FIFOs and symbolic links.
 * Everything happens in a temporary directory that is also the working directory of the
 * program (where fallback files go). Nothing needs root, and nothing assumes it: the
 * permission cases are skipped as root, whose writes permission bits do not stop. */
#include "cli-run.h"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
  char *dir;
  char *db;
} Fixture;

#define PREDICT "predict --model llama3-8b --cluster h200-node --tp 8 "

static void
setup (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("tandem-store-cli-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->db = g_build_filename (f->dir, "t.db", NULL);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  remove_tree (f->dir);
  g_free (f->db);
  g_free (f->dir);
}

/* tandem ARGS in the fixture's directory; {DB} is f->db, {DIR} the directory. */
static void
run_in (Fixture *f, const char *args, RunResult *r)
{
  const char *subst[] = { "{DB}", f->db, "{DIR}", f->dir, NULL };
  run_tandem_words (args, subst, f->dir, r);
  g_test_message ("tandem %s -> %d\nstdout (tail): %s\nstderr: %s", args, r->status,
                  strlen (r->out) > 400 ? r->out + strlen (r->out) - 400 : r->out, r->err);
}

static gint64
count_rows (const char *db, const char *sql)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  g_assert_cmpint (sqlite3_open_v2 (db, &h, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (h, sql, -1, &st, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  gint64 n = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  sqlite3_close (h);
  return n;
}

/* The last line of the text output says where the result went; returns the fallback's
 * path (in the fixture's directory) or NULL. */
static char *
fallback_of (Fixture *f, const char *out)
{
  const char *p = strstr (out, "; result written to ");
  if (p == NULL)
    return NULL;
  p += strlen ("; result written to ");
  g_autofree char *name = g_strndup (p, strcspn (p, "\n"));
  return g_path_is_absolute (name) ? g_steal_pointer (&name)
                                   : g_build_filename (f->dir, name, NULL);
}

/* The fallback holds the result as JSON, with why it was not stored. */
static void
assert_fallback (const char *path, const char *kind, const char *reason)
{
  g_assert_nonnull (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *prefix = g_strdup_printf ("tandem-unstored-%s-", kind);
  g_assert_true (g_str_has_prefix (base, prefix));
  g_assert_true (g_str_has_suffix (base, ".json"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_get_null_member (o, "run_id"));
  g_assert_nonnull (strstr (json_object_get_string_member (o, "store_error"), reason));
}

/* A writer holds the lock past --db-timeout: the prediction is printed whole, then
 * "not stored: ... locked ...; result written to F", F holds it, exit 1; the same with
 * --json (run_id null, store_error, fallback_file). The lock released, it stores. */
static void
test_locked (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "stored as run 1 in "));
  run_result_clear (&r);

  sqlite3 *h = NULL;
  g_assert_cmpint (sqlite3_open (f->db, &h), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (h, "BEGIN IMMEDIATE", NULL, NULL, NULL), ==, SQLITE_OK);
  run_in (f, PREDICT "--db {DB} --db-timeout 50", &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.out, "step time"));          /* printed first */
  g_assert_nonnull (strstr (r.out, "not stored: "));
  g_assert_nonnull (strstr (r.out, "locked by another process (waited 50 ms)"));
  g_assert_nonnull (strstr (r.err, "tandem: error: the result was not stored"));
  g_autofree char *fb = fallback_of (f, r.out);
  assert_fallback (fb, "predict", "locked");
  run_result_clear (&r);

  run_in (f, PREDICT "--db {DB} --db-timeout 50 --json", &r);
  g_assert_cmpint (r.status, ==, 1);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_get_null_member (o, "run_id"));
  g_assert_nonnull (strstr (json_object_get_string_member (o, "store_error"), "locked"));
  const char *fb2 = json_object_get_string_member (o, "fallback_file");
  g_autofree char *fb2_path = g_build_filename (f->dir, fb2, NULL);
  assert_fallback (fb2_path, "predict", "locked");
  g_assert_true (json_object_has_member (o, "step_time_s"));
  run_result_clear (&r);

  g_assert_cmpint (sqlite3_exec (h, "ROLLBACK", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (h);
  /* the two refused predictions are not in the store; the first one is */
  g_assert_cmpint (count_rows (f->db, "SELECT count(*) FROM runs"), ==, 1);
  run_in (f, PREDICT "--db {DB} --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"run_id\" : 2"));
  run_result_clear (&r);
}

/* The reports read the store as `tandem runs` does and take its --db-timeout: a writer
 * that holds an exclusive lock (a rollback-journal database, where readers wait too) past
 * 50 ms is a failure at run time naming the wait, exit 1, after 50 ms rather than the
 * default 5000. They refused --db-timeout as an unknown option (exit 2), while their
 * error line said "waited 5000 ms". A negative wait is bad input. */
static void
test_report_locked (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);

  sqlite3 *h = NULL;
  g_assert_cmpint (sqlite3_open (f->db, &h), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (h, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL), ==,
                   SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (h, "BEGIN EXCLUSIVE", NULL, NULL, NULL), ==, SQLITE_OK);
  static const char *const cmds[] = {
    "runs --db {DB} --db-timeout 50",
    "report run 1 --db {DB} --db-timeout 50 --out {DIR}/r1",
    "report validation --db {DB} --db-timeout 50 --out {DIR}/r2",
    "report scaling --model llama3-8b --cluster h200-node --tp 8 --gpus 8 --gbs 8 --strong "
    "--db {DB} --db-timeout 50 --out {DIR}/r3",
  };
  for (guint i = 0; i < G_N_ELEMENTS (cmds); i++)
    {
      run_in (f, cmds[i], &r);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_nonnull (strstr (r.err, "locked by another process (waited 50 ms)"));
      run_result_clear (&r);
    }
  g_assert_cmpint (sqlite3_exec (h, "ROLLBACK", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (h);

  run_in (f, "report run 1 --db {DB} --db-timeout -1 --out {DIR}/r4", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "tandem: error: --db-timeout -1: expected milliseconds >= 0 "
                   "(hint: --db-timeout 5000)\n");
  run_result_clear (&r);
  /* the lock released, the page is written */
  run_in (f, "report run 1 --db {DB} --db-timeout 50 --out {DIR}/r5", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
}

/* A directory that does not take the database: the missing one always, a read-only one
 * when not root. Validate and predict keep their results in fallback files. */
static void
test_unwritable_dir (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DIR}/no-such-dir/t.db", &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.out, "does not exist"));
  g_autofree char *fb = fallback_of (f, r.out);
  assert_fallback (fb, "predict", "does not exist");
  run_result_clear (&r);
  /* a plan that does not fit keeps its 3 when the store fails too, with both lines (the
   * store's failure took it to 1, and the "does not fit" line was never printed): llama3-8b
   * at tp 2 on 8 GPUs, 32 sequences of 8K, needs 96 GiB of 80 */
  run_in (f, "predict --model llama3-8b --gpus 8 --tp 2 --gbs 32 "
             "--db {DIR}/no-such-dir/t.db", &r);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "the result was not stored"));
  g_assert_nonnull (strstr (r.err, "does not fit: stage 0 needs"));
  g_autofree char *fb3 = fallback_of (f, r.out);
  g_assert_nonnull (fb3);
  run_result_clear (&r);

  g_autofree char *csv = g_build_filename (f->dir, "pub.csv", NULL);
  g_assert_true (g_file_set_contents (csv, "row_id,source,model,gpu_type,n_gpus,n_layers,"
                                      "hidden,n_heads,seq_len,global_batch,step_time_s\n"
                                      "1,x,Llama,H100,8,,,,,,\n", -1, NULL));
  /* a row validate cannot map is skipped, so nothing is stored: no store tried, and the
   * output says why (it said nothing) */
  run_in (f, "validate pub.csv --db {DIR}/no-such-dir/t.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "not stored: no row was predicted"));
  g_assert_null (strstr (r.out, "written to"));
  run_result_clear (&r);

  if (geteuid () == 0)
    {
      g_test_message ("root: the read-only directory case needs permission bits");
      return;
    }
  g_autofree char *ro = g_build_filename (f->dir, "ro", NULL);
  g_assert_cmpint (g_mkdir (ro, 0555), ==, 0);
  run_in (f, PREDICT "--db {DIR}/ro/t.db", &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.out, "not writable"));
  g_autofree char *fb2 = fallback_of (f, r.out);
  assert_fallback (fb2, "predict", "not writable");
  run_result_clear (&r);
}

/* In the child, after GLib's chdir into the working directory: remove that directory,
 * which leaves its permission bits saying writable while no file can be created in it
 * (ENOENT), as a full disk refuses the write after access () said yes. */
static void
remove_cwd (gpointer path)
{
  g_rmdir (path);
}

/* The store refuses (--db names a directory) and the working directory takes no file: the
 * result goes to TMPDIR instead of being lost. Before, the fallback was tried in the
 * working directory alone ("nothing was kept instead"), so a full disk under the working
 * directory lost a result the temporary directory had room for. Predict and search, text
 * and --json. */
static void
test_fallback_tmpdir (Fixture *f, gconstpointer data)
{
  g_autofree char *tmp = g_build_filename (f->dir, "tmp", NULL);
  g_assert_cmpint (g_mkdir (tmp, 0700), ==, 0);
  g_autofree char *gone = g_build_filename (f->dir, "gone", NULL);
  g_autofree char *adir = g_build_filename (f->dir, "adir", NULL);
  g_assert_cmpint (g_mkdir (adir, 0700), ==, 0);
  const char *cases[] = {
    "predict --model llama3-8b --cluster h200-node --gpus 8 --tp 8",
    "predict --model llama3-8b --cluster h200-node --gpus 8 --tp 8 --json",
    "search --model llama3-8b --cluster h200-node --gpus 8 --tp 8 --gbs 8 --top 1",
    "search --model llama3-8b --cluster h200-node --gpus 8 --tp 8 --gbs 8 --top 1 --json",
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_cmpint (g_mkdir (gone, 0700), ==, 0);
      g_autofree char *line = g_strdup_printf ("%s %s --db %s", g_getenv ("TANDEM_EXE"),
                                               cases[i], adir);
      g_auto (GStrv) argv = g_strsplit (line, " ", -1);
      g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "TMPDIR", tmp, TRUE);
      g_autofree char *out = NULL, *err = NULL;
      int status = 0;
      g_autoptr (GError) error = NULL;
      g_assert_true (g_spawn_sync (gone, argv, env, G_SPAWN_DEFAULT, remove_cwd, gone, &out,
                                   &err, &status, &error));
      g_assert_no_error (error);
      g_test_message ("%s -> %d\nstderr: %s", cases[i], status, err);
      g_assert_false (g_file_test (gone, G_FILE_TEST_EXISTS));
      /* not stored: exit 1 (the exit table's store failure), saying where it went */
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 1);
      g_assert_nonnull (strstr (err, "it is a directory"));
      g_assert_nonnull (strstr (err, tmp));
      g_assert_null (strstr (err, "nothing was kept"));
      g_assert_null (strstr (err, "fallback file failed"));
      /* exactly one file in TMPDIR, the result as JSON naming itself */
      g_autoptr (GDir) d = g_dir_open (tmp, 0, NULL);
      const char *name = g_dir_read_name (d);
      g_assert_nonnull (name);
      g_autofree char *path = g_build_filename (tmp, name, NULL);
      g_assert_null (g_dir_read_name (d));
      assert_fallback (path, i < 2 ? "predict" : "search", "it is a directory");
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_assert_true (json_parser_load_from_file (parser, path, &error));
      JsonObject *o = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpstr (json_object_get_string_member (o, "fallback_file"), ==, path);
      if (strstr (cases[i], "--json"))
        {
          /* the JSON on stdout names the same file */
          g_autoptr (JsonNode) root = run_parse_json (out);
          JsonObject *so = json_node_get_object (root);
          g_assert_cmpstr (json_object_get_string_member (so, "fallback_file"), ==, path);
        }
      g_unlink (path);
    }
}

/* A report whose directory passed its checks but whose files the disk refuses (the
 * working directory removed under `--out .`: ENOENT on every new file, as ENOSPC on a full
 * disk) is a failure at run time, exit 1, not bad input, exit 2: the user's flags were
 * right. Before, report run said 2 ("cannot write trace", PLAN_ERROR_USAGE) and report
 * validation 2 (REPORT_ERROR_WRITE). A --out that is a file stays 2 (bad input). */
static void
test_report_write_fails (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *gone = g_build_filename (f->dir, "gone", NULL);
  const char *cases[] = { "report run 1 --out .", "report run 1 --out . --format md",
                          "report validation --out . --format csv" };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_cmpint (g_mkdir (gone, 0700), ==, 0);
      g_autofree char *line = g_strdup_printf ("%s %s --db %s", g_getenv ("TANDEM_EXE"),
                                               cases[i], f->db);
      g_auto (GStrv) argv = g_strsplit (line, " ", -1);
      g_autofree char *out = NULL, *err = NULL;
      int status = 0;
      g_autoptr (GError) error = NULL;
      g_assert_true (g_spawn_sync (gone, argv, NULL, G_SPAWN_DEFAULT, remove_cwd, gone, &out,
                                   &err, &status, &error));
      g_assert_no_error (error);
      g_test_message ("%s -> %#x\nstderr: %s", cases[i], status, err);
      g_assert_true (WIFEXITED (status));
      if (i == 2)
        {
          /* no measurement stored (the one run is a prediction): input, 2, before writing */
          g_assert_cmpint (WEXITSTATUS (status), ==, 2);
          g_assert_nonnull (strstr (err, "no stored run has a measurement"));
          continue;
        }
      g_assert_cmpint (WEXITSTATUS (status), ==, 1);
      g_assert_nonnull (strstr (err, "cannot write"));
    }
  /* the scatter of a validation report: a validate run with a measured row first */
  g_autofree char *csv = g_test_build_filename (G_TEST_DIST, "..", "data",
                                                "published-runs.csv", NULL);
  g_autofree char *validate = g_strdup_printf ("validate %s --only 1 --db {DB}", csv);
  run_in (f, validate, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "stored as run 2"));
  run_result_clear (&r);
  /* a validate run has no one world size: null in runs --json (NULL in the store, blank
   * in the CSV), where it read 0 */
  run_in (f, "runs --json --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  {
    g_autoptr (JsonParser) jp = json_parser_new ();
    g_assert_true (json_parser_load_from_data (jp, r.out, -1, NULL));
    JsonNode *root = json_parser_get_root (jp);
    JsonArray *runs = JSON_NODE_HOLDS_ARRAY (root) ? json_node_get_array (root)
                      : json_object_get_array_member (json_node_get_object (root), "runs");
    gboolean seen = FALSE;
    for (guint i = 0; i < json_array_get_length (runs); i++)
      {
        JsonObject *o = json_array_get_object_element (runs, i);
        if (g_str_equal (json_object_get_string_member (o, "kind"), "validate"))
          {
            seen = TRUE;
            g_assert_true (json_node_is_null (json_object_get_member (o, "world_size")));
          }
      }
    g_assert_true (seen);
  }
  run_result_clear (&r);
  g_assert_cmpint (g_mkdir (gone, 0700), ==, 0);
  g_autofree char *line = g_strdup_printf ("%s report validation --out . --db %s",
                                           g_getenv ("TANDEM_EXE"), f->db);
  g_auto (GStrv) argv = g_strsplit (line, " ", -1);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (gone, argv, NULL, G_SPAWN_DEFAULT, remove_cwd, gone, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("report validation -> %#x\nstderr: %s", status, err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_assert_nonnull (strstr (err, "cannot write"));

  /* bad input stays 2: --out names a file */
  g_autofree char *file = g_build_filename (f->dir, "a-file", NULL);
  g_assert_true (g_file_set_contents (file, "", -1, NULL));
  run_in (f, "report run 1 --out {DIR}/a-file --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "it is a file, not a directory"));
  run_result_clear (&r);
}

/* validate --db stored only when a dense dev row was predicted: a run of MoE or held-out
 * rows alone (--only 701-705) exited 0 with no word and no file, its JSON saying
 * "--no-db". Every predicted row is stored; with none predicted (row 13 is a TPU row,
 * skipped) the output says there was nothing to store, and the status stays 0. */
static void
test_validate_stores_any_row (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  g_autofree char *csv = g_test_build_filename (G_TEST_DIST, "..", "data",
                                                "published-runs.csv", NULL);
  g_autofree char *moe = g_strdup_printf ("validate %s --only 701-705 --db {DB}", csv);
  run_in (f, moe, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "stored as run 1"));
  run_result_clear (&r);
  run_in (f, "runs show 1 --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "5 rows predicted (held-out or MoE), 0 skipped"));
  run_result_clear (&r);
  g_autofree char *none = g_strdup_printf ("validate %s --only 13 --db {DB}", csv);
  run_in (f, none, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "not stored: no row was predicted"));
  run_result_clear (&r);
  g_autofree char *none_json = g_strdup_printf ("validate %s --only 13 --db {DB} --json", csv);
  run_in (f, none_json, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"store_error\" : \"no row was predicted: nothing to store\""));
  run_result_clear (&r);
}

/* A stack file is stored by its path: a copy of a preset keeps the preset's "name", and
 * its runs were stored as the preset's (neither told apart nor re-simulated with the file:
 * report run costed them with the preset). report run re-simulates with the file, and
 * says so when the file is gone instead of falling back to the default stack. */
static void
test_stack_file_stored (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, "show framework megatron-core --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *edited = NULL;
  {
    g_autoptr (JsonNode) root = run_parse_json (r.out);
    json_object_set_double_member (json_node_get_object (root), "kernel_overhead_us", 500);
    edited = json_to_string (root, TRUE);
  }
  run_result_clear (&r);
  g_autofree char *path = g_build_filename (f->dir, "mine.json", NULL);
  g_assert_true (g_file_set_contents (path, edited, -1, NULL));
  run_in (f, PREDICT "--framework mine.json --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_in (f, "runs --db {DB} --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *want = g_strdup_printf ("\"framework\" : \"%s\"", path);
  g_assert_nonnull (strstr (r.out, want));
  run_result_clear (&r);
  /* from another directory too: the path is kept absolute (as typed, it re-simulated
   * only from the directory of the run) */
  g_autofree char *sub = g_build_filename (f->dir, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  {
    const char *subst[] = { "{DB}", f->db, "{DIR}", f->dir, NULL };
    run_tandem_words ("report run 1 --db {DB} --out {DIR}/r0 --format md", subst, sub, &r);
    g_assert_cmpint (r.status, ==, 0);
    g_autofree char *p0 = g_build_filename (f->dir, "r0", "report.md", NULL);
    g_autofree char *md0 = NULL;
    g_assert_true (g_file_get_contents (p0, &md0, NULL, NULL));
    g_assert_null (strstr (md0, "timeline: none"));
    run_result_clear (&r);
  }
  run_in (f, "report run 1 --db {DB} --out {DIR}/r1 --format md", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *md1 = NULL;
  g_autofree char *p1 = g_build_filename (f->dir, "r1", "report.md", NULL);
  g_assert_true (g_file_get_contents (p1, &md1, NULL, NULL));
  g_assert_null (strstr (md1, "timeline: none"));
  run_result_clear (&r);
  g_unlink (path);
  run_in (f, "report run 1 --db {DB} --out {DIR}/r2 --format md", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *md2 = NULL;
  g_autofree char *p2 = g_build_filename (f->dir, "r2", "report.md", NULL);
  g_assert_true (g_file_get_contents (p2, &md2, NULL, NULL));
  g_assert_nonnull (strstr (md2, "is neither a preset nor a readable stack file"));
  run_result_clear (&r);
}

/* Writes a file of schema 1 (what tandem 0.1 made) holding one run. */
static void
write_v1 (const char *path)
{
  sqlite3 *h = NULL;
  g_assert_cmpint (sqlite3_open (path, &h), ==, SQLITE_OK);
  const char *sql =
    "CREATE TABLE runs (run_id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, kind TEXT NOT "
    "NULL, status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'oom')), tool_version TEXT "
    "NOT NULL, host TEXT, model TEXT, cluster TEXT, plan TEXT, plan_json TEXT, model_json "
    "TEXT, cluster_json TEXT, world_size INTEGER, note TEXT, error TEXT) STRICT;"
    "CREATE TABLE predictions (run_id INTEGER PRIMARY KEY, step_time_s REAL, tokens_per_s "
    "REAL, tflops_per_gpu REAL, mfu_json TEXT, hfu_json TEXT, bubble_fraction REAL, "
    "compute_s REAL, exposed_tp_s REAL, exposed_cp_s REAL, exposed_pp_s REAL, exposed_dp_s "
    "REAL, exposed_ep_s REAL, overlap_ratio REAL, peak_memory_bytes INTEGER, fits INTEGER, "
    "memory_json TEXT, extra_json TEXT, sim_wall_s REAL) STRICT;"
    "CREATE TABLE measurements (run_id INTEGER PRIMARY KEY, step_time_s REAL, tokens_per_s "
    "REAL, tflops_per_gpu REAL, mfu_json TEXT, hfu_json TEXT, bubble_fraction REAL, "
    "compute_s REAL, exposed_tp_s REAL, exposed_cp_s REAL, exposed_pp_s REAL, exposed_dp_s "
    "REAL, exposed_ep_s REAL, overlap_ratio REAL, peak_memory_bytes INTEGER, fits INTEGER, "
    "memory_json TEXT, extra_json TEXT, steps INTEGER, warmup INTEGER, ranks INTEGER, "
    "step_times_json TEXT) STRICT;"
    "CREATE TABLE phases (run_id INTEGER NOT NULL, source TEXT NOT NULL, rank INTEGER NOT "
    "NULL, kind TEXT NOT NULL, busy_s REAL, exposed_s REAL, PRIMARY KEY (run_id, source, "
    "rank, kind)) STRICT, WITHOUT ROWID;"
    "CREATE TABLE profiles (profile_id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, backend "
    "TEXT NOT NULL, host TEXT NOT NULL, name TEXT, tool_version TEXT NOT NULL, profile_json "
    "TEXT NOT NULL) STRICT;"
    "CREATE TABLE published (row_id INTEGER PRIMARY KEY, source TEXT NOT NULL, model TEXT, "
    "gpu_type TEXT, n_gpus INTEGER, row_json TEXT NOT NULL, imported_at TEXT NOT NULL) STRICT;"
    "CREATE TABLE validations (run_id INTEGER NOT NULL, row_id INTEGER NOT NULL, "
    "predicted_step_s REAL NOT NULL, measured_step_s REAL NOT NULL, err_pct REAL NOT NULL, "
    "PRIMARY KEY (run_id, row_id)) STRICT;"
    "INSERT INTO runs VALUES (1, '2026-11-30T10:00:00.000Z', 'predict', 'ok', '0.1.0', 'h',"
    " 'llama3-8b', 'h200-node', 'tp8', '{\"tp\":8}', NULL, NULL, 8, NULL, NULL);"
    "INSERT INTO predictions (run_id, step_time_s, mfu_json) VALUES"
    " (1, 1.25, '{\"palm\":0.4}');"
    "PRAGMA application_id = 1414415437; PRAGMA user_version = 1;";
  char *msg = NULL;
  if (sqlite3_exec (h, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s", msg);
  sqlite3_close (h);
}

/* tandem runs reads without writing: a file of schema 1 is listed and stays schema 1
 * byte for byte; as non-root, also with the file and its directory read-only. */
static void
test_runs_read_only (Fixture *f, gconstpointer data)
{
  write_v1 (f->db);
  g_autofree char *before = NULL;
  gsize n_before = 0;
  g_assert_true (g_file_get_contents (f->db, &before, &n_before, NULL));
  RunResult r = { 0 };
  run_in (f, "runs --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "llama3-8b"));
  g_assert_nonnull (strstr (r.out, "1.250"));
  run_result_clear (&r);
  run_in (f, "runs show 1 --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "run 1 in "));
  g_assert_nonnull (strstr (r.out, "MFU"));
  run_result_clear (&r);
  g_autofree char *after = NULL;
  gsize n_after = 0;
  g_assert_true (g_file_get_contents (f->db, &after, &n_after, NULL));
  g_assert_cmpuint (n_after, ==, n_before);
  g_assert_true (memcmp (before, after, n_before) == 0);
  g_assert_cmpint (count_rows (f->db, "PRAGMA user_version"), ==, 1);

  if (geteuid () == 0)
    {
      g_test_message ("root: the read-only file and directory case needs permission bits");
      return;
    }
  /* a schema-2 file in WAL mode, then file and directory made read-only */
  g_autofree char *sub = g_build_filename (f->dir, "ro", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_autofree char *db2 = g_build_filename (sub, "t.db", NULL);
  g_autofree char *args = g_strdup_printf (PREDICT "--db %s", db2);
  run_in (f, args, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_assert_cmpint (g_chmod (db2, 0444), ==, 0);
  g_assert_cmpint (g_chmod (sub, 0555), ==, 0);
  g_autofree char *list = g_strdup_printf ("runs --db %s", db2);
  run_in (f, list, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "llama3-8b"));
  run_result_clear (&r);
  /* and a prediction into it is kept in a fallback file */
  run_in (f, args, &r);
  g_assert_cmpint (r.status, ==, 1);
  g_autofree char *fb = fallback_of (f, r.out);
  assert_fallback (fb, "predict", "");
  run_result_clear (&r);
}

/* report run N of a run row without figures (it failed, died or is still running) says
 * so, with the stored error, instead of "hint: a predict, run or search row", which told
 * the user of a run row to look for another id. A validate row keeps that hint. */
static void
test_report_run_no_figures (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  /* run 2: a run closed as failed before any figure (what a killed rank leaves); run 3: a
   * run whose heartbeat is fresh (still running, stale after a day) */
  sqlite3 *h = NULL;
  g_assert_cmpint (sqlite3_open_v2 (f->db, &h, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (h, "INSERT INTO runs (kind, status, tool_version, model, "
                                 "started_at, heartbeat_at, finished_at, error) VALUES "
                                 "('run', 'failed', 't', 'tiny-llama', "
                                 "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
                                 "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
                                 "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
                                 "'rank 0: interrupted by SIGTERM'); "
                                 "INSERT INTO runs (kind, status, tool_version, model, "
                                 "started_at, heartbeat_at, stale_after_s) VALUES "
                                 "('run', 'running', 't', 'tiny-llama', "
                                 "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
                                 "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 86400);",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (h);
  run_in (f, "report run 2 --db {DB} --out {DIR}/r2", &r);
  /* bad input (an id with nothing to draw): 2, as before; the message is what changed */
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "run 2 (run, failed) has no figures to show: it stored "
                                   "none before it ended: rank 0: interrupted by SIGTERM"));
  g_assert_nonnull (strstr (r.err, "tandem runs show 2 says how it ended"));
  g_assert_null (strstr (r.err, "a predict, run or search row"));
  run_result_clear (&r);
  run_in (f, "report run 3 --db {DB} --out {DIR}/r3", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "run 3 (run, running) has no figures to show: it is "
                                   "still running"));
  g_assert_null (strstr (r.err, "a predict, run or search row"));
  run_result_clear (&r);
}

/* In the child: files may not grow past 16 KiB (RLIMIT_FSIZE), and a write past it fails
 * with EFBIG instead of killing the process (SIGXFSZ ignored, which exec keeps). */
static void
limit_file_size (gpointer data)
{
  struct rlimit lim = { 16384, 16384 };
  signal (SIGXFSZ, SIG_IGN);
  setrlimit (RLIMIT_FSIZE, &lim);
}

/* A store whose file the system refuses to grow says the system's reason: SQLite's own
 * message for every failed read, write or mmap is "disk I/O error", which on a full disk
 * (the -shm's mmap gets ENOSPC) sent the user looking for a failing disk. With EFBIG
 * standing in for ENOSPC (which needs a full file system, root to mount one): exit 1,
 * "disk I/O error: File too large". */
static void
test_store_io_error (Fixture *f, gconstpointer data)
{
  g_autofree char *line = g_strdup_printf ("%s " PREDICT "--db %s", g_getenv ("TANDEM_EXE"),
                                           f->db);
  g_auto (GStrv) argv = g_strsplit (line, " ", -1);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (f->dir, argv, NULL, G_SPAWN_DEFAULT, limit_file_size, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("stderr: %s", err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_assert_nonnull (strstr (err, "the result was not stored"));
  g_autofree char *reason = g_strdup_printf ("disk I/O error: %s", g_strerror (EFBIG));
  g_assert_nonnull (strstr (err, reason));
}

/* Copies file `from` to `to`. */
static void
copy_file (const char *from, const char *to)
{
  g_autofree char *data = NULL;
  gsize n = 0;
  g_assert_true (g_file_get_contents (from, &data, &n, NULL));
  g_assert_true (g_file_set_contents (to, data, (gssize) n, NULL));
}

/* A WAL database whose last commit is still in its -wal (the writer ended before
 * checkpointing: killed, or the files copied), in a directory nobody may write. Before,
 * the read-only open there was immutable, which ignores the -wal: `runs` listed 1 run of
 * 2 without a word. Now: with the -shm beside it, both runs; without one, status 1 and a
 * message naming the -wal, never a short list. Needs permission bits: skipped as root. */
/* A shared database: the owner's file in a directory everyone may write (a group or
 * sticky directory). Another user reading it (`tandem runs`) left a -wal and a -shm that
 * belonged to them, and the owner's next write failed on them ("attempt to write a
 * readonly database"). The reader now opens such a file immutable and leaves nothing.
 * Needs root to drop to nobody, and a tandem that nobody may run; skipped otherwise. */
static void
test_runs_shared_db (Fixture *f, gconstpointer data)
{
  g_autofree char *setpriv = g_find_program_in_path ("setpriv");
  const char *exe = g_getenv ("TANDEM_EXE");
  if (geteuid () != 0 || setpriv == NULL || exe == NULL)
    {
      g_test_skip ("needs root, setpriv and $TANDEM_EXE");
      return;
    }
  g_autofree char *sub = g_build_filename (f->dir, "shared", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_cmpint (g_chmod (sub, 01777), ==, 0);
  g_assert_cmpint (g_chmod (f->dir, 0755), ==, 0);
  g_autofree char *db = g_build_filename (sub, "team.db", NULL);
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf (PREDICT "--db %s", db);
  run_in (f, args, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_assert_cmpint (g_chmod (db, 0644), ==, 0);
  const char *argv[] = { setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", exe,
                         "runs", "--db", db, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync ("/", (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL) && strstr (err, "ermission denied") != NULL)
    {
      g_test_skip ("nobody may not run this build's tandem");
      return;
    }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "llama3-8b"));
  g_autofree char *wal = g_strconcat (db, "-wal", NULL);
  g_autofree char *shm = g_strconcat (db, "-shm", NULL);
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (shm, G_FILE_TEST_EXISTS));
}

static void
test_runs_read_only_wal (Fixture *f, gconstpointer data)
{
  if (geteuid () == 0)
    {
      g_test_skip ("root: a read-only directory needs permission bits");
      return;
    }
  g_autofree char *sub = g_build_filename (f->dir, "ro", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_autofree char *db = g_build_filename (sub, "t.db", NULL);
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf (PREDICT "--db %s", db);
  run_in (f, args, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  /* a second run committed into the -wal by a connection that stays open (so nothing
   * checkpoints it into the file) */
  sqlite3 *h = NULL;
  g_assert_cmpint (sqlite3_open_v2 (db, &h, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (h, "PRAGMA wal_autocheckpoint = 0; "
                                 "INSERT INTO runs (kind, status, created_at, tool_version, "
                                 "model, cluster, finished_at) SELECT kind, status, "
                                 "created_at, tool_version, 'second-run', cluster, "
                                 "finished_at FROM runs;",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  g_autofree char *wal = g_strconcat (db, "-wal", NULL);
  g_assert_true (g_file_test (wal, G_FILE_TEST_EXISTS));
  /* the same two files without a -shm, in a second read-only directory */
  g_autofree char *sub2 = g_build_filename (f->dir, "ro2", NULL);
  g_assert_cmpint (g_mkdir (sub2, 0755), ==, 0);
  g_autofree char *db2 = g_build_filename (sub2, "t.db", NULL);
  g_autofree char *wal2 = g_strconcat (db2, "-wal", NULL);
  copy_file (db, db2);
  copy_file (wal, wal2);
  g_assert_cmpint (g_chmod (sub, 0555), ==, 0);
  g_assert_cmpint (g_chmod (sub2, 0555), ==, 0);

  /* both runs: the predict (llama3-8b) and the one in the -wal (second-run) */
  g_autofree char *list = g_strdup_printf ("runs --db %s", db);
  run_in (f, list, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "llama3-8b"));
  g_assert_nonnull (strstr (r.out, "second-run"));
  run_result_clear (&r);

  /* no -shm: SQLite cannot read the -wal here; refused (exit 1, a run-time failure of the
   * store), never the one run of the file alone */
  g_autofree char *list2 = g_strdup_printf ("runs --db %s", db2);
  run_in (f, list2, &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_null (strstr (r.out, "llama3-8b"));
  g_assert_nonnull (strstr (r.err, "-wal"));
  g_assert_nonnull (strstr (r.err, "hint:"));
  run_result_clear (&r);

  sqlite3_close (h);
  g_chmod (sub, 0755);
  g_chmod (sub2, 0755);
}

/* A run on one rank says "on 1 rank" (it said "on 1 ranks"). */
static void
test_one_rank_words (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, "run --steps 1 --warmup 0 --seq 64 --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, " on 1 rank (cpu backend)"));
  g_assert_null (strstr (r.out, "1 ranks"));
  /* fp32 runs say nothing about precision */
  g_assert_null (strstr (r.err, "fp32"));
  run_result_clear (&r);

  /* bf16 asked for by name: the cpu backend still runs fp32 (it has no BF16 GEMM), and
   * says so rather than store an fp32 measurement as the bf16 plan's */
  run_in (f, "run --steps 1 --warmup 0 --seq 64 --precision bf16 --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "note: --precision bf16: the cpu backend keeps and "
                                   "multiplies everything in fp32"));
  run_result_clear (&r);
  run_in (f, "run --steps 1 --warmup 0 --seq 64 --grad-dtype bf16 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "note: --grad-dtype bf16: the cpu backend"));
  run_result_clear (&r);
  /* a GPU cluster's prediction beside a CPU run is said to compare two machines (it
   * printed -99% as any run's error) */
  run_in (f, "run --steps 1 --warmup 0 --seq 64 --cluster h100-24k --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "warning: the cluster h100-24k is of H100-SXM5-80GB, a GPU, "
                                   "but the cpu backend runs on this host's CPU cores"));
  run_result_clear (&r);
}

/* Output paths are checked before the work: a --trace in a missing directory is refused
 * with status 2, and tandem run stores nothing (no run started). */
static void
test_bad_trace_first (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DB} --trace {DIR}/none/t.json", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--trace: cannot write"));
  g_assert_null (strstr (r.out, "step time"));
  run_result_clear (&r);
  run_in (f, "run --steps 1 --warmup 0 --seq 64 --db {DB} --trace {DIR}/none/t.json", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--trace: cannot write"));
  g_assert_null (strstr (r.err, "step"));
  run_result_clear (&r);
  g_assert_false (g_file_test (f->db, G_FILE_TEST_EXISTS));
  run_in (f, "run --steps 1 --warmup 0 --seq 64 --db {DB} --timeout nan", &r);
  g_assert_cmpint (r.status, ==, 2);
  run_result_clear (&r);
  run_in (f, "run --steps 1 --warmup 0 --seq 64 --db {DB} --timeout inf", &r);
  g_assert_cmpint (r.status, ==, 2);
  run_result_clear (&r);
  run_in (f, "runs --db {DB} --db-timeout -1", &r);
  g_assert_cmpint (r.status, ==, 2);
  run_result_clear (&r);
}

/* --trace through a symbolic link writes its target and keeps the link; through a FIFO
 * the reader gets the trace and the FIFO stays a FIFO. */
static void
test_trace_special (Fixture *f, gconstpointer data)
{
  g_autofree char *target = g_build_filename (f->dir, "real.json", NULL);
  g_autofree char *link = g_build_filename (f->dir, "link.json", NULL);
  g_assert_cmpint (symlink ("real.json", link), ==, 0);
  RunResult r = { 0 };
  run_in (f, PREDICT "--no-db --trace {DIR}/link.json", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  GStatBuf st;
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (target, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "{\"displayTimeUnit\""));

  g_autofree char *fifo = g_build_filename (f->dir, "pipe", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  int fds[2];
  g_assert_cmpint (pipe (fds), ==, 0);
  pid_t pid = fork ();
  if (pid == 0)
    {
      close (fds[0]);
      g_autofree char *got = NULL;
      gsize n = 0;
      _exit (g_file_get_contents (fifo, &got, &n, NULL) && write (fds[1], &n, sizeof n) > 0
             ? 0 : 2);
    }
  close (fds[1]);
  run_in (f, PREDICT "--no-db --trace {DIR}/pipe", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  gsize n = 0;
  g_assert_cmpint (read (fds[0], &n, sizeof n), ==, sizeof n);
  close (fds[0]);
  int status = 0;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  /* the reader got the whole trace: as long as the regular file's */
  g_assert_cmpuint (n, ==, strlen (text));
  g_assert_cmpint (g_lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
}

/* runs --csv: a header and one RFC 4180 line per run; runs show N of a missing run is a
 * usage error. */
static void
test_runs_csv_show (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DB} --note a,b", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_in (f, "runs --db {DB} --csv", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (r.out, "\r\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "run_id,created_at,kind,status,model,"));
  g_assert_true (g_str_has_prefix (lines[1], "1,"));
  g_assert_nonnull (strstr (lines[1], ",predict,ok,llama3-8b,h200-node,"));
  g_assert_cmpstr (lines[2], ==, "");
  run_result_clear (&r);
  run_in (f, "runs show 7 --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "has no run 7"));
  run_result_clear (&r);
  run_in (f, "runs show 1 --db {DB} --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"terms\""));
  g_assert_nonnull (strstr (r.out, "\"plan_json\""));
  run_result_clear (&r);
}

/* A note with a terminal escape sequence (ESC [ 2 J clears the screen, ESC ] 0 ; ... BEL
 * sets the window title) and a second line: `runs` and `runs show` printed it raw, so a
 * note pasted from a coloured log recoloured or cleared the reader's terminal. Now every
 * control is written as \xNN (ESC is 0x1b, BEL 0x07); in `runs show` a newline starts an
 * indented line, in the one-line `runs` table it is a space. The JSON keeps the note as
 * given (json-glib escapes it as \u001b). */
static void
test_runs_control_chars (Fixture *f, gconstpointer data)
{
  const char *note = "red \x1b[31mX\x1b[0m clear \x1b[2J title \x1b]0;pwned\x07\nline two "
                     "\u202e" "drow";
  const char *subst[] = { "{DB}", f->db, "{NOTE}", note, NULL };
  RunResult r = { 0 };
  run_tandem_words (PREDICT "--db {DB} --note {NOTE}", subst, f->dir, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_in (f, "runs show 1 --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strchr (r.out, '\x1b'));
  g_assert_null (strchr (r.out, '\x07'));
  g_assert_nonnull (strstr (r.out, "  note         red \\x1b[31mX\\x1b[0m clear \\x1b[2J title "
                                   "\\x1b]0;pwned\\x07\n               line two "
                                   "\\u202edrow\n"));
  /* the right-to-left override (U+202E) turned the rest of the line around: shown as its
   * code point */
  g_assert_null (strstr (r.out, "\u202e"));
  run_result_clear (&r);
  run_in (f, "runs show 1 --db {DB} --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\\u001b[31m"));
  run_result_clear (&r);
}

/* A stored row whose kind or status no tandem writes (the CHECK constraints turned off
 * while it was edited, or another program wrote it): runs, runs show and report run
 * refuse it, exit 1 (the store), in one line naming the run, the value and a fix. Before,
 * an unknown status read as "failed" and an unknown kind as "predict", so the row was
 * shown, and reported on, as what it was not, exit 0. */
static void
test_corrupt_enums (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--gpus 8 --db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  static const struct { const char *sql, *needle; } cases[] = {
    { "UPDATE runs SET status = 'weird' WHERE run_id = 1", "run 1 has status 'weird'" },
    { "UPDATE runs SET kind = 'nope' WHERE run_id = 1", "run 1 has kind 'nope'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      sqlite3 *h = NULL;
      g_assert_cmpint (sqlite3_open (f->db, &h), ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_exec (h, "PRAGMA ignore_check_constraints = 1", NULL, NULL, NULL),
                       ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_exec (h, cases[i].sql, NULL, NULL, NULL), ==, SQLITE_OK);
      sqlite3_close (h);
      static const char *const cmds[] = { "runs --db {DB}", "runs show 1 --db {DB}",
                                          "report run 1 --db {DB} --out {DIR}/r --force" };
      for (guint k = 0; k < G_N_ELEMENTS (cmds); k++)
        {
          run_in (f, cmds[k], &r);
          g_assert_cmpint (r.status, ==, 1);
          g_assert_true (g_str_has_prefix (r.err, "tandem: error: "));
          g_assert_nonnull (strstr (r.err, cases[i].needle));
          g_assert_nonnull (strstr (r.err, "which no tandem writes"));
          g_assert_nonnull (strstr (r.err, "hint: sqlite3 "));
          g_assert_cmpstr (strchr (r.err, '\n'), ==, r.err + strlen (r.err) - 1);
          run_result_clear (&r);
        }
      /* the hint's repair makes it readable again */
      g_assert_cmpint (sqlite3_open (f->db, &h), ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_exec (h, "UPDATE runs SET status = 'ok', kind = 'predict'",
                                     NULL, NULL, NULL), ==, SQLITE_OK);
      sqlite3_close (h);
      run_in (f, "runs show 1 --db {DB}", &r);
      g_assert_cmpint (r.status, ==, 0);
      run_result_clear (&r);
    }
  g_autofree char *page = g_build_filename (f->dir, "r", "report.html", NULL);
  g_assert_false (g_file_test (page, G_FILE_TEST_EXISTS));
}

/* --db naming a symbolic link that resolves to nothing (its target moved away, or a loop
 * of links) for a read-only command: runs, report run and report validation said "no
 * results database at LINK", though the name is there; they say what it is now, the link,
 * its target and why it does not resolve, with the same exit 2. */
static void
test_db_dangling_link (Fixture *f, gconstpointer data)
{
  g_autofree char *gone = g_build_filename (f->dir, "gone.db", NULL);
  g_autofree char *loop1 = g_build_filename (f->dir, "loop1.db", NULL);
  g_autofree char *loop2 = g_build_filename (f->dir, "loop2.db", NULL);
  g_assert_cmpint (symlink ("moved-away.db", gone), ==, 0);
  g_assert_cmpint (symlink ("loop2.db", loop1), ==, 0);
  g_assert_cmpint (symlink ("loop1.db", loop2), ==, 0);
  static const struct { const char *name, *target, *why; } links[] = {
    { "gone.db", "moved-away.db", "No such file or directory" },
    { "loop1.db", "loop2.db", "Too many levels of symbolic links" },
  };
  static const char *const cmds[] = { "runs --db {DIR}/%s", "report run 1 --db {DIR}/%s",
                                      "report validation --db {DIR}/%s --out {DIR}/r" };
  for (guint i = 0; i < G_N_ELEMENTS (links); i++)
    for (guint k = 0; k < G_N_ELEMENTS (cmds); k++)
      {
        RunResult r = { 0 };
        g_autofree char *args = g_strdup_printf (cmds[k], links[i].name);
        run_in (f, args, &r);
        g_assert_cmpint (r.status, ==, 2);
        g_assert_true (g_str_has_prefix (r.err, "tandem: error: no results database at "));
        g_autofree char *what = g_strdup_printf ("(a symbolic link to '%s', which does not "
                                                 "resolve: %s)", links[i].target,
                                                 links[i].why);
        g_assert_nonnull (strstr (r.err, what));
        run_result_clear (&r);
      }
}

/* Paths are printed as text too (audit of 6 Dec): a --db or --trace whose name holds an
 * escape sequence was written raw in "stored as run 1 in ...", "trace: ..." and the runs
 * show header. runs prints a short step with four significant digits (a tiny model's
 * 0.0006 s read 0.000) and no non-finite number (an edited Inf printed "inf" where --json
 * and --csv leave it out). A file whose user_version was set back by hand gets a hint,
 * and nothing in it changes. */
static void
test_runs_paths_and_numbers (Fixture *f, gconstpointer data)
{
  g_autofree char *db = g_build_filename (f->dir, "d\x1b[31mb.db", NULL);
  g_autofree char *trace = g_build_filename (f->dir, "t\x1b[31m.json", NULL);
  const char *subst[] = { "{XDB}", db, "{XTRACE}", trace, NULL };
  RunResult r = { 0 };
  run_tandem_words ("predict --model tiny-llama --cluster h200-node --gpus 2 --db {XDB} "
                    "--trace {XTRACE}", subst, f->dir, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strchr (r.out, '\x1b'));
  g_assert_nonnull (strstr (r.out, "t\\x1b[31m.json (open in ui.perfetto.dev)"));
  g_assert_nonnull (strstr (r.out, "stored as run 1 in "));
  g_assert_nonnull (strstr (r.out, "d\\x1b[31mb.db\n"));
  run_result_clear (&r);
  run_tandem_words ("runs show 1 --db {XDB}", subst, f->dir, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strchr (r.out, '\x1b'));
  run_result_clear (&r);
  /* and a report's --out ("wrote ..." cleared the terminal) */
  g_autofree char *out = g_build_filename (f->dir, "r\x1b[2Jc", NULL);
  const char *rsubst[] = { "{XOUT}", out, NULL };
  run_tandem_words ("report scaling --model llama3-8b --cluster dgx-h100-superpod --gpus 8,16 "
                    "--strong --gbs 64 --format md --out {XOUT}", rsubst, f->dir, &r);
  /* (no size fits at 8,192 tokens: exit 3 after writing, the paths printed) */
  g_assert_cmpint (r.status, ==, 3);
  g_assert_null (strchr (r.out, '\x1b'));
  g_assert_nonnull (strstr (r.out, "r\\x1b[2Jc/report.md"));
  run_result_clear (&r);
  /* tiny-llama on two H200s predicts well under 10 ms: three figures, not 0.000 */
  run_tandem_words ("runs --db {XDB}", subst, f->dir, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, " 0.000 "));
  g_assert_nonnull (strstr (r.out, " 0.000"));
  run_result_clear (&r);
  sqlite3 *h = NULL;
  g_assert_cmpint (sqlite3_open (db, &h), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (h, "UPDATE predictions SET step_time_s = 9e999", NULL, NULL,
                                 NULL), ==, SQLITE_OK);
  run_tandem_words ("runs --db {XDB}", subst, f->dir, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "inf"));
  run_result_clear (&r);
  /* a schema-2 file set back to 1: the migration fails on tables it does not expect */
  g_assert_cmpint (sqlite3_exec (h, "PRAGMA user_version = 1", NULL, NULL, NULL), ==,
                   SQLITE_OK);
  sqlite3_close (h);
  run_tandem_words ("predict --model tiny-llama --cluster h200-node --gpus 2 --db {XDB}",
                    subst, f->dir, &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot apply schema migration 2"));
  g_assert_nonnull (strstr (r.err, "(hint: the file says schema version 1, but its tables "
                                   "may be a later version's"));
  run_result_clear (&r);
  g_assert_cmpint (count_rows (db, "PRAGMA user_version"), ==, 1);
  g_assert_cmpint (count_rows (db, "SELECT count(*) FROM runs"), ==, 1);
}

/* runs show N --json gives MFU and HFU as predict's JSON does (docs/contracts.md): the
 * object by FLOP convention, flops_convention, one hfu, bubble_fraction; its terms in
 * the contract's units (fractions, seconds, bytes: MFU read 58.6 "%" and peak memory in
 * "GiB") and the exposed kinds in its order tp, cp, ep, pp, dp (ep came last). */
static void
test_runs_show_contract (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DB} --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) pn = run_parse_json (r.out);
  JsonObject *po = json_node_get_object (pn);
  run_result_clear (&r);
  run_in (f, "runs show 1 --db {DB} --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) sn = run_parse_json (r.out);
  JsonObject *so = json_node_get_object (sn);
  const char *conv = json_object_get_string_member (po, "flops_convention");
  g_assert_cmpstr (json_object_get_string_member (so, "flops_convention"), ==, conv);
  g_assert_true (json_object_get_null_member (so, "measured"));
  JsonObject *pred = json_object_get_object_member (so, "predicted");
  JsonObject *mfu = json_object_get_object_member (pred, "mfu");
  JsonObject *want = json_object_get_object_member (po, "mfu");
  g_assert_cmpuint (json_object_get_size (mfu), ==, json_object_get_size (want));
  g_autoptr (GList) keys = json_object_get_members (want);
  for (GList *k = keys; k != NULL; k = k->next)
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (mfu, k->data),
                                    json_object_get_double_member (want, k->data), 1e-12);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (pred, "hfu"),
                                  json_object_get_double_member (po, "hfu"), 1e-12);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (pred, "bubble_fraction"),
                                  json_object_get_double_member (po, "bubble_fraction"), 1e-12);
  JsonArray *terms = json_object_get_array_member (so, "terms");
  g_autoptr (GString) exposed = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (terms); i++)
    {
      JsonObject *t = json_array_get_object_element (terms, i);
      const char *name = json_object_get_string_member (t, "term");
      const char *unit = json_object_get_string_member (t, "unit");
      double v = json_object_get_double_member (t, "predicted");
      if (g_str_equal (name, "MFU"))
        {
          g_assert_cmpstr (unit, ==, "fraction");
          g_assert_cmpfloat_with_epsilon (v, json_object_get_double_member (want, conv), 1e-12);
        }
      else if (g_str_equal (name, "HFU") || g_str_equal (name, "bubble fraction"))
        g_assert_cmpstr (unit, ==, "fraction");
      else if (g_str_equal (name, "bubble"))
        g_assert_cmpstr (unit, ==, "s");
      else if (g_str_equal (name, "peak memory"))
        {
          g_assert_cmpstr (unit, ==, "bytes");
          g_assert_cmpfloat (v, >, 1e9);
        }
      else if (g_str_has_prefix (name, "exposed "))
        {
          g_assert_cmpstr (unit, ==, "s");
          g_string_append_printf (exposed, "%s ", name + 8);
        }
    }
  g_assert_cmpstr (exposed->str, ==, "tp cp ep pp dp ");
  run_result_clear (&r);
}

/* report run N --json and runs show N --json give each term they share in one unit (MFU
 * was a "fraction" in one and "%" in the other, peak memory "bytes" and "GiB", bubble "s"
 * and "%"), the exposed kinds in one order, and the same flops_convention and mfu object. */
static void
test_report_run_units (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DB}", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_in (f, "runs show 1 --db {DB} --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) sn = run_parse_json (r.out);
  run_result_clear (&r);
  g_autofree char *rep = g_strdup_printf ("report run 1 --db {DB} --json --out %s/rep", f->dir);
  run_in (f, rep, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) rn = run_parse_json (r.out);
  run_result_clear (&r);
  JsonObject *so = json_node_get_object (sn), *ro = json_node_get_object (rn);
  g_assert_nonnull (json_object_get_string_member (ro, "flops_convention"));
  g_assert_cmpstr (json_object_get_string_member (ro, "flops_convention"), ==,
                   json_object_get_string_member (so, "flops_convention"));
  g_assert_true (json_node_equal (json_object_get_member (ro, "predicted"),
                                  json_object_get_member (so, "predicted")));
  g_assert_true (json_object_get_null_member (ro, "measured"));
  g_autoptr (GHashTable) units = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GString) order_s = g_string_new (NULL), order_r = g_string_new (NULL);
  JsonArray *st = json_object_get_array_member (so, "terms");
  for (guint i = 0; i < json_array_get_length (st); i++)
    {
      JsonObject *t = json_array_get_object_element (st, i);
      const char *name = json_object_get_string_member (t, "term");
      g_hash_table_insert (units, (gpointer) name,
                           (gpointer) json_object_get_string_member (t, "unit"));
      if (g_str_has_prefix (name, "exposed "))
        g_string_append_printf (order_s, "%s ", name + 8);
    }
  JsonArray *rt = json_object_get_array_member (ro, "terms");
  guint shared = 0;
  for (guint i = 0; i < json_array_get_length (rt); i++)
    {
      JsonObject *t = json_array_get_object_element (rt, i);
      const char *name = json_object_get_string_member (t, "term");
      const char *unit = g_hash_table_lookup (units, name);
      if (g_str_has_prefix (name, "exposed "))
        g_string_append_printf (order_r, "%s ", name + 8);
      if (unit == NULL)
        continue;
      shared++;
      g_assert_cmpstr (json_object_get_string_member (t, "unit"), ==, unit);
    }
  /* step time, tokens/s, MFU, HFU, compute, bubble, five exposed kinds, peak memory */
  g_assert_cmpuint (shared, ==, 12);
  g_assert_cmpstr (order_r->str, ==, "tp cp ep pp dp ");
  g_assert_cmpstr (order_r->str, ==, order_s->str);
}

/* runs --json: beside its flat predicted_mfu .. measured_hfu (kept), each row gives the
 * contract's shape, predicted and measured with mfu as the object by convention and hfu
 * one number, as predict's JSON has them; measured is null for a prediction. */
static void
test_runs_list_contract (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, PREDICT "--db {DB} --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) pn = run_parse_json (r.out);
  JsonObject *po = json_node_get_object (pn);
  run_result_clear (&r);
  run_in (f, "runs --db {DB} --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) ln = run_parse_json (r.out);
  run_result_clear (&r);
  JsonObject *row = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (ln), "runs"), 0);
  const char *conv = json_object_get_string_member (row, "flops_convention");
  g_assert_cmpstr (conv, ==, json_object_get_string_member (po, "flops_convention"));
  JsonObject *pred = json_object_get_object_member (row, "predicted");
  JsonObject *mfu = json_object_get_object_member (pred, "mfu");
  JsonObject *want = json_object_get_object_member (po, "mfu");
  g_autoptr (GList) keys = json_object_get_members (want);
  g_assert_cmpuint (json_object_get_size (mfu), ==, g_list_length (keys));
  for (GList *k = keys; k != NULL; k = k->next)
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (mfu, k->data),
                                    json_object_get_double_member (want, k->data), 1e-12);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (pred, "hfu"),
                                  json_object_get_double_member (po, "hfu"), 1e-12);
  /* the flat keys stay, the headline of the object */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (row, "predicted_mfu"),
                                  json_object_get_double_member (mfu, conv), 1e-12);
  g_assert_true (json_object_get_null_member (row, "measured_mfu"));
  g_assert_true (json_object_get_null_member (row, "measured"));
}

/* A run that fails prints the object a run's JSON is (docs/contracts.md): the plan as an
 * object with its summary (it was the summary string), the stack, and in the prediction
 * made for a plan that does not fit this host, MFU by convention and one HFU. */
static void
test_run_failed_shape (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_in (f, "run --model llama3-405b --steps 1 --json --no-db", &r);
  g_assert_cmpint (r.status, ==, 3);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  run_result_clear (&r);
  JsonObject *o = json_node_get_object (root);
  JsonObject *plan = json_object_get_object_member (o, "plan");
  g_assert_nonnull (plan);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (plan, "summary"), "tp1-"));
  g_assert_cmpstr (json_object_get_string_member (o, "framework"), ==, "megatron-core");
  JsonObject *pred = json_object_get_object_member (o, "predicted");
  JsonObject *mfu = json_object_get_object_member (pred, "mfu");
  g_assert_cmpfloat (json_object_get_double_member (mfu, "palm"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (pred, "hfu"), >, 0);
  g_assert_true (json_object_get_null_member (o, "measured"));
}

/* A run that fails where the store fails too (--db names a directory) keeps its object in
 * a fallback file as every command keeps an unstored result (docs/contracts.md): the JSON
 * has run_id null, store_error and fallback_file, and that file holds the failed run. It
 * said "could not store the failed run" and wrote nothing. Without --json the same file is
 * written and stderr names it. */
static void
test_run_failed_unstored (Fixture *f, gconstpointer data)
{
  g_autofree char *sub = g_build_filename (f->dir, "dbdir", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  RunResult r = { 0 };
  run_in (f, "run --model llama3-405b --steps 1 --json --db {DIR}/dbdir", &r);
  g_assert_cmpint (r.status, ==, 3);   /* the failure's own status */
  g_assert_nonnull (strstr (r.err, "could not store the failed run"));
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_true (json_object_get_null_member (o, "run_id"));
  g_assert_nonnull (strstr (json_object_get_string_member (o, "store_error"), "directory"));
  const char *fb = json_object_get_string_member (o, "fallback_file");
  g_assert_nonnull (fb);
  g_autofree char *path = g_path_is_absolute (fb) ? g_strdup (fb)
                                                  : g_build_filename (f->dir, fb, NULL);
  assert_fallback (path, "run", "directory");
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  JsonObject *kept = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (kept, "status"), ==, "oom");
  g_assert_cmpstr (json_object_get_string_member (kept, "fallback_file"), ==, fb);
  g_assert_nonnull (strstr (r.err, fb));
  g_unlink (path);
  run_result_clear (&r);

  run_in (f, "run --model llama3-405b --steps 1 --db {DIR}/dbdir", &r);
  g_assert_cmpint (r.status, ==, 3);
  const char *kept_at = strstr (r.err, "the result was not stored (");
  g_assert_nonnull (kept_at);
  kept_at += strlen ("the result was not stored (");
  g_autofree char *name = g_strndup (kept_at, strcspn (kept_at, " "));
  g_autofree char *text_fb = g_path_is_absolute (name) ? g_strdup (name)
                                                       : g_build_filename (f->dir, name, NULL);
  assert_fallback (text_fb, "run", "directory");
  run_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/cli/store/locked", Fixture, NULL, setup, test_locked, teardown);
  g_test_add ("/cli/store/one-rank-words", Fixture, NULL, setup, test_one_rank_words, teardown);
  g_test_add ("/cli/store/db-dangling-link", Fixture, NULL, setup, test_db_dangling_link,
              teardown);
  g_test_add ("/cli/store/corrupt-enums", Fixture, NULL, setup, test_corrupt_enums, teardown);
  g_test_add ("/cli/store/report-locked", Fixture, NULL, setup, test_report_locked, teardown);
  g_test_add ("/cli/store/unwritable-dir", Fixture, NULL, setup, test_unwritable_dir,
              teardown);
  g_test_add ("/cli/store/fallback-tmpdir", Fixture, NULL, setup, test_fallback_tmpdir,
              teardown);
  g_test_add ("/cli/store/report-write-fails", Fixture, NULL, setup, test_report_write_fails,
              teardown);
  g_test_add ("/cli/store/runs-shared-db", Fixture, NULL, setup, test_runs_shared_db,
              teardown);
  g_test_add ("/cli/store/runs-read-only", Fixture, NULL, setup, test_runs_read_only,
              teardown);
  g_test_add ("/cli/store/runs-read-only-wal", Fixture, NULL, setup, test_runs_read_only_wal,
              teardown);
  g_test_add ("/cli/store/report-run-no-figures", Fixture, NULL, setup,
              test_report_run_no_figures, teardown);
  g_test_add ("/cli/store/io-error", Fixture, NULL, setup, test_store_io_error, teardown);
  g_test_add ("/cli/store/stack-file-stored", Fixture, NULL, setup, test_stack_file_stored,
              teardown);
  g_test_add ("/cli/store/validate-stores-any-row", Fixture, NULL, setup,
              test_validate_stores_any_row, teardown);
  g_test_add ("/cli/store/bad-trace-first", Fixture, NULL, setup, test_bad_trace_first,
              teardown);
  g_test_add ("/cli/store/trace-special", Fixture, NULL, setup, test_trace_special, teardown);
  g_test_add ("/cli/store/runs-csv-show", Fixture, NULL, setup, test_runs_csv_show, teardown);
  g_test_add ("/cli/store/runs-show-contract", Fixture, NULL, setup, test_runs_show_contract,
              teardown);
  g_test_add ("/cli/store/runs-list-contract", Fixture, NULL, setup, test_runs_list_contract,
              teardown);
  g_test_add ("/cli/store/run-failed-shape", Fixture, NULL, setup, test_run_failed_shape,
              teardown);
  g_test_add ("/cli/store/run-failed-unstored", Fixture, NULL, setup,
              test_run_failed_unstored, teardown);
  g_test_add ("/cli/store/report-run-units", Fixture, NULL, setup, test_report_run_units,
              teardown);
  g_test_add ("/cli/store/runs-control-chars", Fixture, NULL, setup, test_runs_control_chars,
              teardown);
  g_test_add ("/cli/store/runs-paths-and-numbers", Fixture, NULL, setup,
              test_runs_paths_and_numbers, teardown);
  return g_test_run ();
}
