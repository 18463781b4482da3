/* tests/cli/test-report.c - `tandem report` as a person meets it: the files it writes,
 * its numbers against `tandem predict --json`, refusals (existing report, unwritable
 * directory), and the HTML page rendered by headless Chromium, whose screenshot must
 * show every plot inked inside its box, with no console error.
 * TANDEM_EXE (set by tests/cli/meson.build) is the binary under test. */
#include "cli-run.h"

#include <cairo.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

static void
run_argv (const char *const *argv, RunResult *r)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                    | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  r->status = g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc) : -1;
}

/* Runs tandem with the space-separated arguments; "{OUT}" expands to `dir`. */
static void
run_report (const char *args, const char *dir, RunResult *r)
{
  const char *subst[] = { dir != NULL ? "{OUT}" : NULL, dir, NULL };
  run_tandem_words (args, subst, NULL, r);
}

static int
count_lines (const char *text)
{
  int n = 0;
  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

/* The report under test: Llama 3.1 8B, TP2 PP2, strong scaling at 64 sequences over
 * 6 (no plan: dp would be 1.5), 8, 16, 32 and 64 GPUs on h100-24k. */
#define PLAN "--model llama3-8b --cluster h100-24k --tp 2 --pp 2 --gbs 64"
#define SIZES "--gpus 6,8,16,32,64 --strong"

typedef struct {
  char *dir;      /* a fresh temporary directory */
  char *out;      /* dir/r: the report */
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("tandem-report-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->out = g_build_filename (f->dir, "r", NULL);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->out);
}

static void
make_report (Fixture *f, const char *formats)
{
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("report scaling " PLAN " " SIZES " --out {OUT} "
                                           "--format %s", formats);
  run_report (args, f->out, &r);
  if (r.status != 0)
    g_printerr ("%s%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
}

/* CSV line -> fields (no quoted commas in the numeric part; the reason may be quoted). */
static GStrv
csv_fields (const char *line)
{
  g_autoptr (GPtrArray) f = g_ptr_array_new ();
  GString *cur = g_string_new (NULL);
  gboolean q = FALSE;
  for (const char *p = line; *p; p++)
    {
      if (q && *p == '"' && p[1] == '"')
        g_string_append_c (cur, '"'), p++;
      else if (*p == '"')
        q = !q;
      else if (*p == ',' && !q)
        {
          g_ptr_array_add (f, g_strdup (cur->str));
          g_string_truncate (cur, 0);
        }
      else
        g_string_append_c (cur, *p);
    }
  g_ptr_array_add (f, g_string_free (cur, FALSE));
  g_ptr_array_add (f, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&f), FALSE);
}

static int
column (GStrv header, const char *name)
{
  for (int i = 0; header[i]; i++)
    if (g_str_equal (header[i], name))
      return i;
  g_error ("no CSV column %s", name);
  return -1;
}

static double
predict_member (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  g_assert_nonnull (n);
  /* hfu is one number by the contract; an older predict printed it per convention */
  if (JSON_NODE_HOLDS_OBJECT (n))
    return json_object_get_double_member (json_node_get_object (n), "palm");
  return json_node_get_double (n);
}

static void
assert_close (double got, double want, const char *what)
{
  /* the CSV prints each number so that it reads back as itself (a whole number in full,
   * else 15 or 17 significant digits): equal to predict's JSON, not within %.9g's 1e-8 */
  if (!(got == want))
    g_error ("%s: CSV %.12g, predict %.12g", what, got, want);
}

/* The CSV has a row per size with the columns, the no-plan size says why, and
 * two points agree with `tandem predict --json` for the same plan at that size. */
static void
test_csv_matches_predict (Fixture *f, gconstpointer data)
{
  make_report (f, "csv");
  g_autofree char *path = g_build_filename (f->out, "report.csv", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_assert_cmpint (count_lines (text), ==, 6);    /* header + 5 sizes */
  g_auto (GStrv) h = csv_fields (lines[0]);
  const char *required[] = { "gpus", "plan", "step_time_s", "tokens_per_s",
                             "tokens_per_s_per_gpu", "flops_convention", "mfu", "hfu",
                             "speedup", "efficiency", "bubble_fraction", "exposed_tp_s",
                             "exposed_cp_s", "exposed_pp_s", "exposed_dp_s", "exposed_ep_s",
                             "peak_memory_bytes", "fits", "status", "reason" };
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    column (h, required[i]);
  guint ncol = g_strv_length (h);
  for (int i = 1; i <= 5; i++)
    {
      g_auto (GStrv) row = csv_fields (lines[i]);
      g_assert_cmpuint (g_strv_length (row), ==, ncol);
    }
  /* 6 GPUs: 6 / (tp 2 x pp 2) is no whole dp: a row with status and reason */
  g_auto (GStrv) r6 = csv_fields (lines[1]);
  g_assert_cmpstr (r6[column (h, "gpus")], ==, "6");
  g_assert_cmpstr (r6[column (h, "status")], ==, "invalid");
  g_assert_cmpstr (r6[column (h, "step_time_s")], ==, "");
  g_assert_true (strlen (r6[column (h, "reason")]) > 10);

  double t8 = 0;
  const int sizes[] = { 8, 64 };
  const int line_of[] = { 2, 5 };
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      g_auto (GStrv) row = csv_fields (lines[line_of[k]]);
      g_assert_cmpint (atoi (row[column (h, "gpus")]), ==, sizes[k]);
      g_assert_cmpstr (row[column (h, "status")], ==, "ok");
      RunResult r = { 0 };
      g_autofree char *args = g_strdup_printf ("predict --json --no-db " PLAN " --gpus %d",
                                               sizes[k]);
      run_report (args, NULL, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonParser) p = json_parser_new ();
      g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
      JsonObject *o = json_node_get_object (json_parser_get_root (p));
      double step = json_object_get_double_member (o, "step_time_s");
      assert_close (g_ascii_strtod (row[column (h, "step_time_s")], NULL), step, "step_time_s");
      assert_close (g_ascii_strtod (row[column (h, "tokens_per_s")], NULL),
                    json_object_get_double_member (o, "tokens_per_s"), "tokens_per_s");
      /* tokens/s per GPU: tokens/s / G */
      assert_close (g_ascii_strtod (row[column (h, "tokens_per_s_per_gpu")], NULL),
                    json_object_get_double_member (o, "tokens_per_s") / sizes[k],
                    "tokens_per_s_per_gpu");
      g_assert_cmpstr (row[column (h, "flops_convention")], ==,
                       json_object_get_string_member (o, "flops_convention"));
      assert_close (g_ascii_strtod (row[column (h, "mfu")], NULL),
                    json_object_get_double_member (json_object_get_object_member (o, "mfu"),
                                                   "palm"), "mfu");
      assert_close (g_ascii_strtod (row[column (h, "hfu")], NULL), predict_member (o, "hfu"),
                    "hfu");
      assert_close (g_ascii_strtod (row[column (h, "bubble_fraction")], NULL),
                    json_object_get_double_member (o, "bubble_fraction"), "bubble_fraction");
      JsonObject *ex = json_object_get_object_member (o, "exposed_comm_s");
      const char *kinds[] = { "tp", "pp", "dp" };
      for (guint j = 0; j < G_N_ELEMENTS (kinds); j++)
        {
          g_autofree char *col = g_strdup_printf ("exposed_%s_s", kinds[j]);
          assert_close (g_ascii_strtod (row[column (h, col)], NULL),
                        json_object_get_double_member (ex, kinds[j]), col);
        }
      JsonObject *mem = json_object_get_object_member (o, "memory");
      g_assert_cmpint (g_ascii_strtoll (row[column (h, "peak_memory_bytes")], NULL, 10), ==,
                       json_object_get_int_member (mem, "peak_bytes"));
      if (k == 0)
        {
          /* 8 GPUs is the base (the smallest size with a plan): S = E = 1 */
          t8 = step;
          assert_close (g_ascii_strtod (row[column (h, "speedup")], NULL), 1.0, "base speedup");
          assert_close (g_ascii_strtod (row[column (h, "efficiency")], NULL), 1.0, "base E");
        }
      else
        {
          /* strong scaling: S = T_8 / T_64, E = S x 8 / 64, from predict's step times */
          assert_close (g_ascii_strtod (row[column (h, "speedup")], NULL), t8 / step, "speedup");
          assert_close (g_ascii_strtod (row[column (h, "efficiency")], NULL),
                        t8 / step * 8 / 64, "efficiency");
        }
      run_result_clear (&r);
    }
}

/* --json prints the rows; hfu is one number and exposed_comm_s has the five keys. */
static void
test_json_rows (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_report ("report scaling " PLAN " --gpus 8,16 --weak --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  g_assert_cmpstr (json_object_get_string_member (o, "scaling"), ==, "weak");
  JsonArray *rows = json_object_get_array_member (o, "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 2);
  JsonObject *r16 = json_array_get_object_element (rows, 1);
  /* weak: the batch grows with the GPUs, 64 x 16 / 8 = 128 sequences */
  g_assert_cmpint (json_object_get_int_member (r16, "global_batch"), ==, 128);
  g_assert_true (JSON_NODE_HOLDS_VALUE (json_object_get_member (r16, "hfu")));
  /* exposed and busy, as a prediction's JSON has them (docs/contracts.md: report rows
   * carry its keys; comm_s was missing), each exposed time at most its busy time */
  const char *want[] = { "tp", "cp", "ep", "pp", "dp" };
  const char *objs[] = { "exposed_comm_s", "comm_s" };
  for (guint k = 0; k < G_N_ELEMENTS (objs); k++)
    {
      JsonObject *ex = json_object_get_object_member (r16, objs[k]);
      g_assert_nonnull (ex);
      GList *members = json_object_get_members (ex);
      guint i = 0;
      for (GList *l = members; l; l = l->next, i++)
        g_assert_cmpstr (l->data, ==, want[i]);
      g_list_free (members);
      g_assert_cmpuint (i, ==, 5);
    }
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (r16,
                                                        "exposed_comm_s"), want[i]), <=,
                       json_object_get_double_member (json_object_get_object_member (r16,
                                                        "comm_s"), want[i]) + 1e-12);
  /* weak: E = T_8 / T_16 (the work per GPU is constant) */
  JsonObject *r8 = json_array_get_object_element (rows, 0);
  assert_close (json_object_get_double_member (r16, "efficiency"),
                json_object_get_double_member (r8, "step_time_s")
                / json_object_get_double_member (r16, "step_time_s"), "weak efficiency");
  run_result_clear (&r);
}

/* A list flag given twice adds to its list, as search's --gpus does: "--gpus 8 --gpus 16"
 * is the two sizes, "--cluster A --cluster B" the two clusters (the last of each was kept,
 * the first dropped without a word) */
static void
test_repeated_lists (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_report ("report scaling --model llama3-8b --tp 2 --pp 2 --gbs 64 --gpus 8 --gpus 16 "
              "--weak --json --cluster h100-24k --cluster mi300x-cluster", NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  JsonArray *rows = json_object_get_array_member (o, "rows");
  /* two sizes on each of two clusters */
  g_assert_cmpuint (json_array_get_length (rows), ==, 4);
  run_result_clear (&r);
}

/* A plan every size refuses for one reason no size changes ends with that reason, as
 * predict gives it (it ended with a hint about sizes and degrees, none of which helps) */
static void
test_same_refusal (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_report ("report scaling --model llama3-8b --ep 4 --cluster h100-24k --gbs 64 --strong "
              "--gpus 8,16 --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "tandem: error: every size refuses the plan: --ep 4: "
                                   "expert parallelism needs a mixture-of-experts model"));
  run_result_clear (&r);
  /* both --strong and --weak: named as the contradiction (it read "say --strong or
   * --weak", as if neither were given) */
  run_report ("report scaling " PLAN " --gpus 8,16 --strong --weak --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--strong and --weak contradict each other"));
  run_result_clear (&r);
}

/* --force takes away only the files a report writes: a name on the directory's list that
 * no report writes (a copied or edited list) stays (it was removed) */
static void
test_force_keeps_others (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_build_filename (f->dir, "fz", NULL);
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_autofree char *notes = g_build_filename (dir, "notes.txt", NULL);
  g_autofree char *list = g_build_filename (dir, ".tandem-report-files", NULL);
  g_assert_true (g_file_set_contents (notes, "n\n", -1, NULL));
  g_assert_true (g_file_set_contents (list, "notes.txt\nreport.md\n", -1, NULL));
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("report scaling " PLAN " --gpus 8,16 --strong "
                                           "--out %s --format csv --force", dir);
  run_report (args, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (notes, G_FILE_TEST_EXISTS));
  run_result_clear (&r);
}

/* Measured points are stored runs that are points of the report's curve: the model on
 * one of its clusters at one of its sizes, with that size's global batch, sequence
 * length and compute dtype. Before, every run of the model and cluster was drawn (a run
 * of 64 sequences of 8192 tokens beside a report of 8 sequences of 1024, an fp8 run
 * beside a bf16 report). megatron.log imported as an 8-GPU TP8 run, 64 x 8192. */
static void
test_measured_points_match (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_tandem_set_tmp (f->dir);
  run_tandem ("import-log {DATA}/logs/megatron.log --model llama3-8b --cluster h200-node "
              "--gpus 8 --tp 8 --gbs 64 --seq 8192 --db {TMP}/m.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  static const struct { const char *args; int points, apart; } cases[] = {
    { "--gbs 64 --seq 8192", 1, 0 },               /* its size, batch, length, dtype */
    { "--gbs 32 --seq 8192", 0, 1 },               /* another batch */
    { "--gbs 64 --seq 4096", 0, 1 },               /* another length */
    { "--gbs 64 --seq 8192 --fp8-format hybrid", 0, 1 },   /* another dtype */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *args = g_strdup_printf ("report scaling --model llama3-8b --cluster "
                                               "h200-node --tp 4 --gpus 4,8 --strong %s "
                                               "--db {TMP}/m.db --json", cases[i].args);
      run_tandem (args, &r);
      if (r.status != 0)
        g_error ("case %u: %s", i, r.err);
      g_autoptr (JsonParser) p = json_parser_new ();
      g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
      JsonObject *o = json_node_get_object (json_parser_get_root (p));
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "measured")),
                        ==, cases[i].points);
      g_assert_cmpint (json_object_get_int_member (o, "measured_apart"), ==, cases[i].apart);
      run_result_clear (&r);
    }
  /* a cluster file whose name holds a comma is one cluster, not the list 'a' and 'b.json'
   * (it was refused as a cluster named 'a') */
  g_autofree char *preset = g_test_build_filename (G_TEST_DIST, "..", "topology", "presets",
                                                   "h200-node.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (preset, &text, NULL, NULL));
  g_autofree char *comma = g_build_filename (f->dir, "a,b.json", NULL);
  g_assert_true (g_file_set_contents (comma, text, -1, NULL));
  run_tandem ("report scaling --model llama3-8b --cluster {TMP}/a,b.json --tp 8 --gpus 8 "
              "--strong --gbs 64 --seq 8192 --db {TMP}/m.db --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"measured_apart\" : 0"));
  run_result_clear (&r);
  run_tandem_set_tmp (NULL);
}

/* Two reports into one directory at once: the second waits for the first (README,
 * report's files). The test holds the directory's lock (.tandem-report.lock, flock) as a
 * first report would; `report --force` says on stderr that it waits, leaves the report
 * there untouched while it waits, and once the lock is let go writes its own, whole,
 * exit 0, and removes the lock file. Before, the two runs renamed their files over each
 * other's and could leave a page of one beside the plots of the other. */
static void
test_concurrent_waits (Fixture *f, gconstpointer data)
{
  make_report (f, "csv");
  g_autofree char *csv = g_build_filename (f->out, "report.csv", NULL);
  g_autofree char *lock = g_build_filename (f->out, ".tandem-report.lock", NULL);
  char *before = NULL;
  g_assert_true (g_file_get_contents (csv, &before, NULL, NULL));
  int fd = open (lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX), ==, 0);

  const char *exe = g_getenv ("TANDEM_EXE");
  g_assert_nonnull (exe);
  /* another size than the report there, so that its CSV differs */
  const char *argv[] = { exe, "report", "scaling", "--model", "llama3-8b", "--cluster",
                         "h100-24k", "--tp", "2", "--pp", "2", "--gbs", "64", "--gpus", "8,16",
                         "--strong", "--out", f->out, "--format", "csv", "--force", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                          | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                                    &error);
  g_assert_no_error (error);
  g_autoptr (GDataInputStream) err_in =
    g_data_input_stream_new (g_subprocess_get_stderr_pipe (proc));
  g_autofree char *line = g_data_input_stream_read_line_utf8 (err_in, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, "tandem: another report is being written to "));
  g_assert_nonnull (strstr (line, "waiting for it to finish"));
  /* it waits: the report there is the same, byte for byte */
  char *during = NULL;
  g_assert_true (g_file_get_contents (csv, &during, NULL, NULL));
  g_assert_cmpstr (during, ==, before);
  g_free (during);

  close (fd);   /* the first report is done */
  g_autofree char *out = NULL, *rest = NULL;
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &rest, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  g_assert_nonnull (strstr (out, "wrote "));
  char *after = NULL;
  g_assert_true (g_file_get_contents (csv, &after, NULL, NULL));
  g_assert_cmpstr (after, !=, before);
  g_assert_false (g_file_test (lock, G_FILE_TEST_EXISTS));
  g_free (after);
  g_free (before);
}

/* Each file of dir, by name -> its bytes (GBytes). */
static GHashTable *
dir_contents (const char *dir)
{
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) g_bytes_unref);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  const char *e;
  while ((e = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, e, NULL);
      char *text = NULL;
      gsize len = 0;
      g_assert_true (g_file_get_contents (path, &text, &len, NULL));
      g_hash_table_insert (h, g_strdup (e), g_bytes_new_take (text, len));
    }
  return h;
}

/* A disk that fills while `report --force` replaces a report (TANDEM_TEST_WRITE_FAIL_AFTER:
 * every write fails with ENOSPC after N bytes in all): the report that was there stays
 * whole, byte for byte, with no file more (no NAME.XXXXXX temporary), and the command
 * says which file, why and what to do, in one line, exit 1 (README "Exit status": I/O).
 * Before, each file was replaced as it came: a disk full at the third PNG left two new
 * plots beside an old page (or, for a first report, plots and no page). The budgets: 0
 * (the first file), 30000 bytes (inside the second PNG: each is 18-28 kB), 300000 (inside
 * report.html, some 550 kB with its SVG plots; the PNGs come first). */
static void
test_full_disk (Fixture *f, gconstpointer data)
{
  make_report (f, "html,md,csv,png");
  g_autoptr (GHashTable) before = dir_contents (f->out);
  /* 4 PNG, html, md, csv, and the list of them (.tandem-report-files) */
  g_assert_cmpuint (g_hash_table_size (before), ==, 8);
  static const char *const budgets[] = { "0", "30000", "300000" };
  for (guint b = 0; b < G_N_ELEMENTS (budgets); b++)
    {
      g_test_message ("budget %s bytes", budgets[b]);
      RunResult r = { 0 };
      /* other sizes than the report there: every file would differ */
      run_tandem_setenv ("TANDEM_TEST_WRITE_FAIL_AFTER", budgets[b]);
      run_report ("report scaling " PLAN " --gpus 8,16 --strong --out {OUT} "
                  "--format html,md,csv,png --force", f->out, &r);
      run_tandem_setenv ("TANDEM_TEST_WRITE_FAIL_AFTER", NULL);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_true (g_str_has_prefix (r.err, "tandem: error: cannot write "));
      g_assert_cmpint (count_lines (r.err), ==, 1);
      g_assert_nonnull (strstr (r.err, f->out));
      g_assert_nonnull (strstr (r.err, g_strerror (ENOSPC)));
      g_assert_nonnull (strstr (r.err, "hint: free space"));
      g_assert_nonnull (strstr (r.err, "no file of the report"));
      g_assert_null (strstr (r.out, "wrote "));
      g_autoptr (GHashTable) after = dir_contents (f->out);
      g_assert_cmpuint (g_hash_table_size (after), ==, g_hash_table_size (before));
      GHashTableIter it;
      gpointer name, bytes;
      g_hash_table_iter_init (&it, before);
      while (g_hash_table_iter_next (&it, &name, &bytes))
        {
          GBytes *now = g_hash_table_lookup (after, name);
          g_assert_nonnull (now);
          g_assert_true (g_bytes_equal (now, bytes));
        }
      run_result_clear (&r);
    }
  /* with room, the same command replaces them all */
  RunResult r = { 0 };
  run_report ("report scaling " PLAN " --gpus 8,16 --strong --out {OUT} "
              "--format html,md,csv,png --force", f->out, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (GHashTable) after = dir_contents (f->out);
  g_assert_cmpuint (g_hash_table_size (after), ==, 8);
  g_assert_false (g_bytes_equal (g_hash_table_lookup (after, "report.csv"),
                                 g_hash_table_lookup (before, "report.csv")));
  run_result_clear (&r);
}

/* An existing report is not overwritten without --force; an unwritable place is one
 * line and exit 2. */
static void
test_refusals (Fixture *f, gconstpointer data)
{
  make_report (f, "md");
  /* the report says how far to trust it: how well published dense runs on the cluster's
   * device family (h100-24k: H100) were predicted (data/accuracy.json), as predict does */
  {
    g_autofree char *md = g_build_filename (f->out, "report.md", NULL);
    g_autofree char *page = NULL;
    g_assert_true (g_file_get_contents (md, &page, NULL, NULL));
    g_assert_nonnull (strstr (page, "\n- accuracy on h100-24k: dense runs on h100 were "
                                    "predicted with "));
  }
  RunResult r = { 0 };
  run_report ("report scaling " PLAN " " SIZES " --out {OUT} --format md", f->out, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "tandem: error: "));
  g_assert_nonnull (strstr (r.err, "--force"));
  g_assert_cmpint (count_lines (r.err), ==, 1);
  run_result_clear (&r);
  run_report ("report scaling " PLAN " " SIZES " --out {OUT} --format md --force", f->out, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  /* --force with other formats takes away the files of the report before that it does not
   * write (report.md of other sizes stayed beside the new report.csv); a file of the
   * user's in the directory stays */
  g_autofree char *mine = g_build_filename (f->out, "notes.txt", NULL);
  g_assert_true (g_file_set_contents (mine, "mine", -1, NULL));
  run_report ("report scaling " PLAN " " SIZES " --out {OUT} --format csv --force", f->out, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *md_path = g_build_filename (f->out, "report.md", NULL);
  g_autofree char *csv_path = g_build_filename (f->out, "report.csv", NULL);
  g_assert_false (g_file_test (md_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (csv_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (mine, G_FILE_TEST_EXISTS));
  /* a report without --force beside it (md: no file of its name there) keeps the csv on
   * the list, so that the next --force takes both away */
  run_report ("report scaling " PLAN " " SIZES " --out {OUT} --format md", f->out, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_report ("report scaling " PLAN " " SIZES " --out {OUT} --format json --force", f->out,
              &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_assert_false (g_file_test (md_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (csv_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (mine, G_FILE_TEST_EXISTS));

  /* a directory below a regular file cannot be created, even by root */
  g_autofree char *file = g_build_filename (f->dir, "plain-file", NULL);
  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  g_autofree char *bad = g_build_filename (file, "sub", NULL);
  run_report ("report scaling " PLAN " " SIZES " --out {OUT}", bad, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "tandem: error: "));
  g_assert_cmpint (count_lines (r.err), ==, 1);
  run_result_clear (&r);

  run_report ("report scaling " PLAN " --gpus 8,16 --strong --out {OUT}/x --format pdf",
              f->dir, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpint (count_lines (r.err), ==, 1);
  run_result_clear (&r);
  run_report ("report scaling " PLAN " --gpus 16,8 --strong --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 2);
  run_result_clear (&r);
  run_report ("report scaling " PLAN " --gpus 8,16 --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 2);   /* neither --strong nor --weak */
  run_result_clear (&r);

  /* a fixed plan the stack refuses is refused as predict refuses it, before any size is
   * computed and any file written (it used to be reported row by row: a plain PyTorch FSDP
   * plan with pipeline stages, an FP8 plan of a stack without FP8 training) */
  static const struct { const char *flags, *err; } stack_refusals[] = {
    { "--framework pytorch-fsdp --pp 2",
      "tandem: error: --pp 2: the pytorch-fsdp stack has no pipeline parallelism (hint: --pp "
      "1, or another --framework)\n" },
    { "--framework megatron-lm-2021 --precision fp8",
      "tandem: error: --precision fp8: the megatron-lm-2021 stack has no FP8 training (its "
      "fp8.ops is none) (hint: --precision bf16, or --framework megatron-core / nemo / "
      "torchtitan)\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (stack_refusals); i++)
    {
      g_autofree char *sub = g_build_filename (f->dir, "refused", NULL);
      g_autofree char *args = g_strdup_printf ("report scaling --model llama3-8b --cluster "
                                               "h100-24k --gbs 64 --gpus 8,16 --weak %s "
                                               "--out {OUT}", stack_refusals[i].flags);
      run_report (args, sub, &r);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_cmpstr (r.err, ==, stack_refusals[i].err);
      g_assert_false (g_file_test (sub, G_FILE_TEST_EXISTS));
      run_result_clear (&r);
    }
}

static char *
find_chromium (void)
{
  const char *names[] = { "chromium", "chromium-browser", "google-chrome" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      char *p = g_find_program_in_path (names[i]);
      if (p)
        return p;
    }
  return NULL;
}

/* The plot frames on the page are 1 px of #5a6b7c (report-output.c), a colour used
 * nowhere else; a box is a horizontal run of it at least 600 px long, paired with the
 * next run of the same extent below. */
typedef struct { int x0, x1, y0, y1; } Box;

static gboolean
is_frame (const guint8 *px)
{
  /* CAIRO_FORMAT_(A)RGB32, little endian: B G R A */
  return abs (px[2] - 0x5a) <= 2 && abs (px[1] - 0x6b) <= 2 && abs (px[0] - 0x7c) <= 2;
}

static GArray *
find_boxes (cairo_surface_t *img)
{
  int w = cairo_image_surface_get_width (img), h = cairo_image_surface_get_height (img);
  int stride = cairo_image_surface_get_stride (img);
  const guint8 *data = cairo_image_surface_get_data (img);
  GArray *boxes = g_array_new (FALSE, FALSE, sizeof (Box));
  Box open = { -1, -1, -1, -1 };
  for (int y = 0; y < h; y++)
    {
      const guint8 *row = data + (gsize) y * stride;
      int best0 = -1, best1 = -1;
      for (int x = 0; x < w;)
        {
          if (!is_frame (row + 4 * x))
            {
              x++;
              continue;
            }
          int x0 = x;
          while (x < w && is_frame (row + 4 * x))
            x++;
          if (x - x0 >= 600)
            best0 = x0, best1 = x - 1;
        }
      if (best0 < 0)
        continue;
      if (open.y0 >= 0 && abs (open.x0 - best0) <= 1 && abs (open.x1 - best1) <= 1
          && y - open.y0 > 100)
        {
          open.y1 = y;
          g_array_append_val (boxes, open);
          open.y0 = -1;
        }
      else if (open.y0 < 0 || y - open.y0 > 1)
        {
          if (open.y0 < 0 || y - open.y0 > 100)
            open = (Box) { best0, best1, y, -1 };
        }
    }
  return boxes;
}

/* Ink: pixels clearly darker than the white page, per quadrant of the box. */
static void
ink_of (cairo_surface_t *img, const Box *b, double *fraction, int *quadrants)
{
  int stride = cairo_image_surface_get_stride (img);
  const guint8 *data = cairo_image_surface_get_data (img);
  guint64 inked = 0, total = 0, q[4] = { 0 };
  int mx = (b->x0 + b->x1) / 2, my = (b->y0 + b->y1) / 2;
  for (int y = b->y0 + 2; y < b->y1 - 1; y++)
    for (int x = b->x0 + 2; x < b->x1 - 1; x++)
      {
        const guint8 *px = data + (gsize) y * stride + 4 * x;
        total++;
        if (px[0] + px[1] + px[2] < 3 * 200)
          {
            inked++;
            q[(y > my) * 2 + (x > mx)]++;
          }
      }
  *fraction = total ? (double) inked / total : 0;
  *quadrants = 0;
  for (int i = 0; i < 4; i++)
    *quadrants += q[i] > 200;
}

/* Renders `html` in headless Chromium and checks the page as a person would: `n_plots`
 * plot boxes, each inked across the box (not blank, not a broken-image icon in one
 * corner), and no console error. FALSE (test skipped) where Chromium cannot run. */
static gboolean
check_in_chromium (Fixture *f, const char *html, guint n_plots)
{
  g_autofree char *chromium = find_chromium ();
  if (chromium == NULL)
    {
      g_test_skip ("chromium is not installed (scripts/test-deps.sh installs it: "
                   "apt-get install chromium fonts-dejavu-core)");
      return FALSE;
    }
  g_autofree char *uri = g_filename_to_uri (html, NULL, NULL);
  g_autofree char *shot = g_build_filename (f->dir, "shot.png", NULL);
  g_autofree char *shot_arg = g_strdup_printf ("--screenshot=%s", shot);
  g_autofree char *profile = g_build_filename (f->dir, "chromium-profile", NULL);
  g_autofree char *profile_arg = g_strdup_printf ("--user-data-dir=%s", profile);
  const char *argv[] = { "timeout", "180", chromium, "--headless", "--no-sandbox",
                         "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                         "--force-device-scale-factor=1", "--window-size=1200,3400",
                         "--no-first-run", "--disable-extensions", "--enable-logging=stderr",
                         "--v=0", profile_arg, shot_arg, uri, NULL };
  RunResult r = { 0 };
  run_argv (argv, &r);
  if (!g_file_test (shot, G_FILE_TEST_EXISTS))
    {
      g_autofree char *why = g_strdup_printf ("chromium cannot run here (exit %d): %s", r.status,
                                              r.err);
      g_test_skip (why);
      run_result_clear (&r);
      return FALSE;
    }
  /* console messages are logged as "...:CONSOLE(line)] message"; the page has no script,
   * so any is an error (a failed resource, a CSP refusal) */
  g_assert_null (strstr (r.err, ":CONSOLE("));
  cairo_surface_t *img = cairo_image_surface_create_from_png (shot);
  g_assert_cmpint (cairo_surface_status (img), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_flush (img);
  g_autoptr (GArray) boxes = find_boxes (img);
  if (boxes->len != n_plots)
    g_error ("expected %u plot boxes on the page, found %u (screenshot %s)", n_plots,
             boxes->len, shot);
  for (guint i = 0; i < boxes->len; i++)
    {
      const Box *b = &g_array_index (boxes, Box, i);
      /* the box is the <img> (760 x 440) and its 1 px border */
      g_assert_cmpint (b->x1 - b->x0 + 1, ==, 762);
      g_assert_cmpint (b->y1 - b->y0 + 1, ==, 442);
      double frac;
      int quads;
      ink_of (img, b, &frac, &quads);
      g_test_message ("plot %u at (%d,%d): %.1f%% inked, %d quadrants", i, b->x0, b->y0,
                      frac * 100, quads);
      g_assert_cmpfloat (frac, >, 0.02);
      g_assert_cmpint (quads, ==, 4);
    }
  cairo_surface_destroy (img);
  run_result_clear (&r);
  return TRUE;
}

/* The scaling page: four plots. */
static void
test_html_in_chromium (Fixture *f, gconstpointer data)
{
  make_report (f, "html");
  g_autofree char *html = g_build_filename (f->out, "report.html", NULL);
  check_in_chromium (f, html, 4);
}

/* The validation report over a store that `tandem validate` filled: a CSV row per
 * published row checked, each error (predicted - measured) / measured of its own
 * columns, and a page with its two plots. */
static void
test_validation_report (Fixture *f, gconstpointer data)
{
  g_autofree char *db = g_build_filename (f->dir, "v.db", NULL);
  g_autofree char *csv_in = g_test_build_filename (G_TEST_DIST, "data", "published", "rows.csv",
                                                   NULL);
  g_autofree char *args = g_strdup_printf ("validate %s --db %s --json", csv_in, db);
  RunResult r = { 0 };
  run_report (args, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *rep = g_strdup_printf ("report validation --db %s --out {OUT} "
                                          "--format html,csv", db);
  run_report (rep, f->out, &r);
  if (r.status != 0)
    g_printerr ("%s%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *path = g_build_filename (f->out, "report.csv", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_auto (GStrv) h = csv_fields (lines[0]);
  int rows = 0;
  for (guint i = 1; lines[i] && *lines[i]; i++, rows++)
    {
      g_auto (GStrv) row = csv_fields (lines[i]);
      g_assert_cmpstr (row[column (h, "kind")], ==, "validate");
      double p = g_ascii_strtod (row[column (h, "predicted_step")], NULL);
      double m = g_ascii_strtod (row[column (h, "measured_step")], NULL);
      double e = g_ascii_strtod (row[column (h, "err_step_pct")], NULL);
      g_assert_cmpfloat_with_epsilon (e, 100 * (p - m) / m, 1e-6 * fabs (e) + 1e-6);
    }
  g_assert_cmpint (rows, >, 0);
  g_autofree char *html = g_build_filename (f->out, "report.html", NULL);
  check_in_chromium (f, html, 2);

  /* a run id that is not stored: one line, exit 2 */
  g_autofree char *bad = g_strdup_printf ("report validation --db %s --run 999 --json", db);
  run_report (bad, NULL, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpint (count_lines (r.err), ==, 1);
  run_result_clear (&r);
}

/* Two validate runs of one CSV that overlap: tests/data/published/rows.csv predicts rows
 * 1, 2, 6, 7, 8 and 10 (3-5, 9 and 11 are skipped). `--only 1-7` stores 1, 2, 6, 7 (run 1),
 * `--only 6-10` stores 6, 7, 8, 10 (run 2). By default the report takes each published row
 * from the latest run that predicted it: 1 and 2 from run 1, 6, 7, 8, 10 from run 2 = 6
 * rows, and run 1's 6 and 7 are left out (superseded 2); `--run 1,2` asks for both runs
 * whole: 4 + 4 = 8 rows, none left out. */
static void
test_validation_latest (Fixture *f, gconstpointer data)
{
  g_autofree char *db = g_build_filename (f->dir, "v2.db", NULL);
  g_autofree char *csv_in = g_test_build_filename (G_TEST_DIST, "data", "published", "rows.csv",
                                                   NULL);
  const char *only[] = { "1-7", "6-10" };
  RunResult r = { 0 };
  for (guint i = 0; i < G_N_ELEMENTS (only); i++)
    {
      g_autofree char *args = g_strdup_printf ("validate %s --only %s --db %s --json", csv_in,
                                               only[i], db);
      run_report (args, NULL, &r);
      g_assert_cmpint (r.status, ==, 0);
      run_result_clear (&r);
    }
  struct { const char *extra; guint rows, superseded; const char *runs_rows; } cases[] = {
    { "", 6, 2, "1:1 1:2 2:6 2:7 2:8 2:10" },
    { " --run 1,2", 8, 0, "1:1 1:2 1:6 1:7 2:6 2:7 2:8 2:10" },
    /* a run named twice is that run once: run 1's 4 rows, not 8 (each row was counted
     * twice, in the rows and in "within +-10%") */
    { " --run 1,1 --run 1", 4, 0, "1:1 1:2 1:6 1:7" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *args = g_strdup_printf ("report validation --db %s --json%s", db,
                                               cases[c].extra);
      run_report (args, NULL, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonNode) root = run_parse_json (r.out);
      JsonObject *o = json_node_get_object (root);
      g_assert_cmpint (json_object_get_int_member (o, "superseded"), ==, cases[c].superseded);
      JsonArray *rows = json_object_get_array_member (o, "rows");
      g_assert_cmpuint (json_array_get_length (rows), ==, cases[c].rows);
      g_autoptr (GString) got = g_string_new (NULL);
      for (guint i = 0; i < json_array_get_length (rows); i++)
        {
          JsonObject *row = json_array_get_object_element (rows, i);
          g_string_append_printf (got, "%s%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                                  i ? " " : "", json_object_get_int_member (row, "run_id"),
                                  json_object_get_int_member (row, "published_row"));
        }
      g_assert_cmpstr (got->str, ==, cases[c].runs_rows);
      run_result_clear (&r);
    }
}

/* One stored prediction as a page: the timeline beside it is Perfetto JSON re-simulated
 * to the stored step time, and the page shows its two plots. */
static void
test_run_report (Fixture *f, gconstpointer data)
{
  g_autofree char *db = g_build_filename (f->dir, "p.db", NULL);
  g_autofree char *args = g_strdup_printf ("predict " PLAN " --gpus 16 --json --db %s", db);
  RunResult r = { 0 };
  run_report (args, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  gint64 id = json_object_get_int_member (o, "run_id");
  double step = json_object_get_double_member (o, "step_time_s");
  run_result_clear (&r);
  g_autofree char *rep = g_strdup_printf ("report run %" G_GINT64_FORMAT " --db %s --out {OUT} "
                                          "--format html,json", id, db);
  run_report (rep, f->out, &r);
  if (r.status != 0)
    g_printerr ("%s%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *jpath = g_build_filename (f->out, "report.json", NULL);
  g_autoptr (JsonParser) jp = json_parser_new ();
  g_assert_true (json_parser_load_from_file (jp, jpath, NULL));
  JsonObject *j = json_node_get_object (json_parser_get_root (jp));
  /* the same model, cluster and plan simulated again: the same step, to the digit */
  assert_close (json_object_get_double_member (j, "resimulated_step_time_s"), step,
                "re-simulated step");
  g_assert_cmpstr (json_object_get_string_member (j, "timeline"), ==, "timeline.json");
  g_autofree char *tpath = g_build_filename (f->out, "timeline.json", NULL);
  g_autoptr (JsonParser) tp = json_parser_new ();
  g_assert_true (json_parser_load_from_file (tp, tpath, NULL));
  JsonArray *ev = json_object_get_array_member (json_node_get_object (json_parser_get_root (tp)),
                                                "traceEvents");
  g_assert_cmpuint (json_array_get_length (ev), >, 100);
  g_autofree char *html = g_build_filename (f->out, "report.html", NULL);
  g_autofree char *page = NULL;
  g_assert_true (g_file_get_contents (html, &page, NULL, NULL));
  g_assert_nonnull (strstr (page, "href=\"timeline.json\""));
  check_in_chromium (f, html, 2);

  /* plans whose options the page's re-simulation dropped, each re-simulated now to the
   * stored step (bit for bit but the last digit):
   * - Megatron-Core's accounted split: llama3-8b's 32 layers + the embedding + the loss =
   *   34 slots in pp x vpp = 2 x 17 chunks. Without the two flags: "timeline: none: ... 34
   *   model chunks, more than the 32 layers" (the README's Llama 3 405B search best, PP16
   *   VPP8, met it);
   * - expert TP 1 under TP 2 (Mixtral): re-simulated at etp = tp = 2, 1.18 s against the
   *   1.43 s stored, "the cost model or options differ";
   * - HSDP (torchtitan, 4 groups of 4): stored as "hsdp", which the plan file refuses
   *   without its K: no timeline;
   * - --grad-dtype bf16: re-simulated with fp32 gradients. */
  static const char *const carried[] = {
    "--model llama3-8b --cluster h100-24k --gpus 8 --tp 4 --pp 2 --vpp 17 --schedule "
    "Interleaved1F1B --account-for-embedding-in-pipeline-split "
    "--account-for-loss-in-pipeline-split --mbs 1 --gbs 8 --seq-length 1024",
    "--model mixtral-8x7b --cluster h100-24k --gpus 64 --tp 2 --ep 8 --etp 1 "
    "--sequence-parallel --gbs 64 --seq-length 4096 --sharding zero1",
    "--model llama3-8b --cluster h100-24k --gpus 16 --framework torchtitan --sharding hsdp:4 "
    "--gbs 32 --seq-length 2048",
    "--model llama3-8b --cluster h100-24k --gpus 8 --optimizer-offload --gbs 16 "
    "--seq-length 2048 --grad-dtype bf16",
    /* TP-comm overlap: it was carried as async TP, so the run read as a plan that differs
     * (audit of 7 Dec) */
    "--model llama3-8b --cluster h100-24k --gpus 16 --tp 2 --sp --tp-comm-overlap "
    "--use-distributed-optimizer --overlap-grad-reduce --gbs 8 --seq-length 2048",
  };
  for (guint c = 0; c < G_N_ELEMENTS (carried); c++)
    {
      g_autofree char *pr = g_strdup_printf ("predict %s --json --db %s", carried[c], db);
      run_report (pr, NULL, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonParser) ap = json_parser_new ();
      g_assert_true (json_parser_load_from_data (ap, r.out, -1, NULL));
      JsonObject *ao = json_node_get_object (json_parser_get_root (ap));
      gint64 acc_id = json_object_get_int_member (ao, "run_id");
      double acc_step = json_object_get_double_member (ao, "step_time_s");
      run_result_clear (&r);
      g_autofree char *acc_rep = g_strdup_printf ("report run %" G_GINT64_FORMAT " --db %s "
                                                  "--json", acc_id, db);
      run_report (acc_rep, NULL, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonParser) arp = json_parser_new ();
      g_assert_true (json_parser_load_from_data (arp, r.out, -1, NULL));
      JsonObject *aj = json_node_get_object (json_parser_get_root (arp));
      if (json_object_get_null_member (aj, "resimulated_step_time_s"))
        g_error ("%s: no re-simulation: %s", carried[c],
                 json_object_get_string_member_with_default (aj, "timeline_missing", "?"));
      assert_close (json_object_get_double_member (aj, "resimulated_step_time_s"), acc_step,
                    carried[c]);
      /* and it reads as the run's own plan: nothing blamed on an edit */
      g_assert_true (json_object_get_null_member (aj, "resimulated_plan_differs"));
      run_result_clear (&r);
    }

  /* A stored plan JSON edited after it was stored (here tp 8 -> 4 in SQLite, as a user
   * editing the row would): the page said "the cost model differs from when it was stored".
   * The plan string stored beside it was written from the same Plan (plan_to_string and
   * plan_to_json, cmd-predict.c), so the re-simulated plan's string names the edit: tp4 and
   * dp 16 / 4 = 4 on 16 GPUs, where the run's plan is tp8 dp2. */
  {
    g_autofree char *pr = g_strdup_printf ("predict --model llama3-8b --cluster h100-24k "
                                           "--gpus 16 --tp 8 --gbs 16 --seq-length 2048 "
                                           "--json --db %s", db);
    run_report (pr, NULL, &r);
    g_assert_cmpint (r.status, ==, 0);
    g_autoptr (JsonParser) ep = json_parser_new ();
    g_assert_true (json_parser_load_from_data (ep, r.out, -1, NULL));
    gint64 eid = json_object_get_int_member (json_node_get_object (json_parser_get_root (ep)),
                                             "run_id");
    run_result_clear (&r);
    sqlite3 *sdb = NULL;
    g_assert_cmpint (sqlite3_open (db, &sdb), ==, SQLITE_OK);
    g_autofree char *sql = g_strdup_printf (
      "UPDATE runs SET plan_json = replace(plan_json, '\"tensor_parallel_degree\":8', "
      "'\"tensor_parallel_degree\":4') WHERE run_id = %" G_GINT64_FORMAT, eid);
    g_assert_cmpint (sqlite3_exec (sdb, sql, NULL, NULL, NULL), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_changes (sdb), ==, 1);
    sqlite3_close (sdb);
    g_autofree char *erep = g_strdup_printf ("report run %" G_GINT64_FORMAT " --db %s --json",
                                             eid, db);
    run_report (erep, NULL, &r);
    g_assert_cmpint (r.status, ==, 0);
    g_autoptr (JsonParser) erp = json_parser_new ();
    g_assert_true (json_parser_load_from_data (erp, r.out, -1, NULL));
    JsonObject *ej = json_node_get_object (json_parser_get_root (erp));
    const char *resim = json_object_get_string_member (ej, "resimulated_plan_differs");
    g_assert_nonnull (resim);
    g_assert_true (g_str_has_prefix (resim, "tp4-cp1-pp1-vpp1-dp4-"));
    g_assert_true (g_str_has_prefix (json_object_get_string_member (ej, "plan"),
                                     "tp8-cp1-pp1-vpp1-dp2-"));
    run_result_clear (&r);
  }

  g_autofree char *bad = g_strdup_printf ("report run 999 --db %s --json", db);
  run_report (bad, NULL, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpint (count_lines (r.err), ==, 1);
  run_result_clear (&r);
}

/* Bad inputs and empty stores, as a new user meets them: each one line on stderr with the
 * exit status of docs/contracts.md, and no figure that lies.
 *  - scaling where no size has a valid plan (--tp 3 divides neither 8 nor 16 GPUs): bad
 *    input, 2, not "does not fit"; where every size runs out of memory (Llama 3 405B on 8
 *    and 16 H100s without sharding: its bf16 weights alone are 810 GB): 3;
 *  - run ids that are not numbers, or not in the store (with where to list them); a store
 *    that has no runs at all (a zero-byte file, as SQLite creates one);
 *  - report run of a stored search: MFU and HFU in the CSV and JSON are fractions with
 *    the unit "fraction" (they were labelled "%" with 0.21 for 21%), the page in %. */
static void
test_bad_inputs (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_report ("report scaling --model llama3-8b --cluster h100-24k --tp 3 --gbs 64 "
              "--gpus 8,16 --strong --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpint (count_lines (r.err), ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "tandem: error: no size has a valid plan"));
  run_result_clear (&r);
  /* the same with --out: no report files of refusals only (they made the corrected rerun
   * need --force); the table and the error as above */
  g_autofree char *inv = g_build_filename (f->dir, "invalid-report", NULL);
  run_report ("report scaling --model llama3-8b --cluster h100-24k --tp 3 --gbs 64 "
              "--gpus 8,16 --strong --out {OUT}", inv, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "tandem: error: no size has a valid plan"));
  g_assert_false (g_file_test (inv, G_FILE_TEST_EXISTS));
  run_result_clear (&r);
  run_report ("report scaling --model llama3-405b --cluster h100-24k --gbs 64 --gpus 8,16 "
              "--strong --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_cmpint (count_lines (r.err), ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "tandem: error: no size has a plan that fits"));
  run_result_clear (&r);
  /* with --plan-per-size search every plan of each size was tried already (405B's bf16
   * weights alone, 810 GB, exceed 8 or 16 x 80 GiB): the hint no longer offers
   * "--plan-per-size search" to a report that ran it */
  run_report ("report scaling --model llama3-405b --cluster h100-24k --gbs 8 --gpus 8,16 "
              "--strong --plan-per-size search --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_cmpstr (r.err, ==, "tandem: error: no size has a plan that fits in memory (the "
                   "table gives each size's peak) (hint: more GPUs, a smaller --gbs or "
                   "--seq-length)\n");
  run_result_clear (&r);
  /* under a stack with one rank order (meta-llama3: tp-cp-ep-pp-dp), a MoE layout that
   * does not fold onto it gets the stack's reason in each row, as predict gives it; the
   * rows hinted at "--rank-order tp-cp-ep-dp-pp", which that stack does not offer */
  run_report ("report scaling --model mixtral-8x7b --framework meta-llama3 --gpus 32,64 "
              "--strong --gbs 512 --tp 2 --pp 2 --cp 2 --sequence-parallel --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 2);
  {
    g_autoptr (JsonNode) root = json_from_string (r.out, NULL);
    g_assert_nonnull (root);
    JsonArray *rows = json_object_get_array_member (json_node_get_object (root), "rows");
    g_assert_cmpuint (json_array_get_length (rows), ==, 2);
    for (guint i = 0; i < 2; i++)
      {
        const char *why = json_object_get_string_member (json_array_get_object_element (rows, i),
                                                         "reason");
        g_assert_nonnull (strstr (why, "the meta-llama3 stack lays ranks out as tp-cp-ep-pp-dp"));
        g_assert_null (strstr (why, "--rank-order"));
      }
  }
  run_result_clear (&r);
  /* two clusters side by side, one of which fits at no size: Llama 3 8B at tp 2, 4,096
   * tokens, ZeRO-1 needs 49.0 / 43.1 GiB at 8 / 16 GPUs, within an H100's 80 GB and over
   * an A100-40GB's. The A100 rows compared plans that do not fit (S 1.92, E 96.2%) and
   * the report exited 0; alone, that cluster exits 3. Now the base says so, the JSON's
   * base has "fits": false, and the exit is 3 after the table, naming the cluster */
  run_report ("report scaling --model llama3-8b --tp 2 --seq-length 4096 "
              "--use-distributed-optimizer --cluster dgx-h100-superpod,a100-40g-cluster "
              "--gpus 8,16 --strong --gbs 64 --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_cmpstr (r.err, ==, "tandem: error: a100-40g-cluster: no size has a plan that fits "
                   "in memory, so its speed-up and efficiency compare nothing that could run "
                   "(the table gives each size's peak) (hint: more GPUs, a smaller --gbs or "
                   "--seq-length, or --plan-per-size search)\n");
  {
    g_autoptr (JsonNode) root = json_from_string (r.out, NULL);
    g_assert_nonnull (root);
    JsonArray *bases = json_object_get_array_member (json_node_get_object (root), "bases");
    g_assert_cmpuint (json_array_get_length (bases), ==, 2);
    JsonObject *h = json_array_get_object_element (bases, 0);
    JsonObject *a = json_array_get_object_element (bases, 1);
    g_assert_cmpstr (json_object_get_string_member (h, "cluster"), ==, "dgx-h100-superpod");
    g_assert_true (json_object_get_boolean_member (h, "fits"));
    g_assert_cmpstr (json_object_get_string_member (a, "cluster"), ==, "a100-40g-cluster");
    g_assert_false (json_object_get_boolean_member (a, "fits"));
    g_assert_cmpint (json_object_get_int_member (a, "gpus"), ==, 8);
  }
  run_result_clear (&r);
  g_autofree char *side = g_build_filename (f->dir, "side-by-side", NULL);
  run_report ("report scaling --model llama3-8b --tp 2 --seq-length 4096 "
              "--use-distributed-optimizer --cluster dgx-h100-superpod,a100-40g-cluster "
              "--gpus 8,16 --strong --gbs 64 --out {OUT}", side, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.out, "base of a100-40g-cluster: 8 GPUs (no size fits in memory: "
                            "speed-up and efficiency compare plans that do not fit)"));
  g_assert_nonnull (strstr (r.out, "base of dgx-h100-superpod: 8 GPUs\n"));
  /* the report is written before the exit says what does not fit */
  g_autofree char *side_md = g_build_filename (side, "report.md", NULL);
  g_assert_true (g_file_test (side_md, G_FILE_TEST_EXISTS));
  run_result_clear (&r);

  /* --db '' (an unset shell variable) was "no results database at  (hint: ...)", the
   * empty name printed; it names no file, as predict and runs say */
  static const char *const empty_db[] = {
    "report run 1 --db ", "report validation --db ",
    "report scaling --model llama3-8b --gbs 64 --strong --gpus 8 --json --db ",
  };
  for (guint i = 0; i < G_N_ELEMENTS (empty_db); i++)
    {
      g_auto (GStrv) words = g_strsplit (empty_db[i], " ", -1);
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      g_ptr_array_add (argv, (char *) g_getenv ("TANDEM_EXE"));
      for (guint w = 0; words[w] && *words[w]; w++)
        g_ptr_array_add (argv, words[w]);
      g_ptr_array_add (argv, "");   /* the empty --db value */
      g_ptr_array_add (argv, NULL);
      g_autofree char *err = NULL;
      int wstatus = 0;
      g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL,
                                   G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                                   &wstatus, NULL));
      g_assert_true (WIFEXITED (wstatus));
      g_assert_cmpint (WEXITSTATUS (wstatus), ==, 2);
      g_assert_cmpstr (err, ==, "tandem: error: --db '' names no file (hint: --db tandem.db, "
                       "or leave --db out for the default)\n");
    }

  /* a cluster file that names itself as another cluster given (a copy of the h100-24k
   * preset, to change one bandwidth) gave two sets of rows and plot lines both labelled
   * h100-24k; refused, naming both */
  {
    g_autofree char *preset = g_test_build_filename (G_TEST_DIST, "..", "topology", "presets",
                                                     "h100-24k.json", NULL);
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (preset, &text, NULL, NULL));
    g_autofree char *copy = g_build_filename (f->dir, "copy.json", NULL);
    g_assert_true (g_file_set_contents (copy, text, -1, NULL));
    g_autofree char *args = g_strdup_printf ("report scaling --model llama3-8b --cluster "
                                             "h100-24k,%s --gbs 64 --gpus 8,16 --strong --json",
                                             copy);
    run_report (args, NULL, &r);
    g_assert_cmpint (r.status, ==, 2);
    g_autofree char *want = g_strdup_printf ("tandem: error: --cluster: h100-24k and %s are "
                                             "both named 'h100-24k', and the report labels its "
                                             "rows and plots by that name (hint: give the "
                                             "file's \"name\" another value)\n", copy);
    g_assert_cmpstr (r.err, ==, want);
    run_result_clear (&r);
  }

  /* weak scaling grows the batch with the GPUs: 2,000,000,000 x 16 / 8 = 4e9 sequences is
   * whole but past the 2^31 - 1 of a batch; the row said "is not a whole number of
   * sequences" */
  run_report ("report scaling --model llama3-8b --cluster h100-24k --gbs 2000000000 "
              "--gpus 8,16 --weak --json", NULL, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.out, "\"the weak-scaled batch 2000000000 x 16 / 8 = 4000000000 "
                            "sequences is above the cap of 2147483647 (hint: a smaller "
                            "--gbs)\""));
  /* and it has no batch: null, where it read 0 */
  g_assert_nonnull (strstr (r.out, "\"global_batch\" : null"));
  run_result_clear (&r);

  g_autofree char *empty = g_build_filename (f->dir, "empty.db", NULL);
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  static const struct { const char *args; const char *starts; } cases[] = {
    { "report run abc --db {OUT}", "tandem: error: report run: 'abc' is not a run id" },
    { "report run 0 --db {OUT}", "tandem: error: report run: '0' is not a run id" },
    { "report run 1 --db {OUT}", "tandem: error: " },
    { "report validation --db {OUT}", "tandem: error: no stored run has a measurement" },
    { "report validation --run x --db {OUT}", "tandem: error: --run: 'x' is not a run id" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      run_report (cases[i].args, empty, &r);
      if (r.status != 2 || count_lines (r.err) != 1
          || !g_str_has_prefix (r.err, cases[i].starts))
        g_error ("tandem %s: status %d, stderr '%s'", cases[i].args, r.status, r.err);
      run_result_clear (&r);
    }
  run_report ("report run 1 --db {OUT}", empty, &r);
  g_assert_nonnull (strstr (r.err, "has no run 1 (hint: tandem runs --db "));
  run_result_clear (&r);

  g_autofree char *db = g_build_filename (f->dir, "s.db", NULL);
  g_autofree char *search = g_strdup_printf (
    "search --model small-llama --cluster dgx-h100-superpod --gpus 8 --seq-length 1024 "
    "--gbs 32 --mbs 1 --top 1 --json --db %s", db);
  run_report (search, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *rep = g_strdup_printf ("report run 1 --db %s --out {OUT} --format csv,md "
                                          "--json", db);
  run_report (rep, f->out, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  g_assert_cmpstr (json_object_get_string_member (o, "kind"), ==, "search");
  JsonArray *terms = json_object_get_array_member (o, "terms");
  guint seen = 0;
  for (guint i = 0; i < json_array_get_length (terms); i++)
    {
      JsonObject *t = json_array_get_object_element (terms, i);
      const char *name = json_object_get_string_member (t, "term");
      if (g_strcmp0 (name, "MFU") != 0 && g_strcmp0 (name, "HFU") != 0)
        continue;
      seen++;
      g_assert_cmpstr (json_object_get_string_member (t, "unit"), ==, "fraction");
      double v = json_object_get_double_member (t, "predicted");
      g_assert_cmpfloat (v, >, 0);
      g_assert_cmpfloat (v, <, 1);
    }
  g_assert_cmpuint (seen, ==, 2);
  run_result_clear (&r);
  g_autofree char *csv = g_build_filename (f->out, "report.csv", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\nMFU,fraction,0."));
  g_autofree char *md = g_build_filename (f->out, "report.md", NULL);
  g_autofree char *page = NULL;
  g_assert_true (g_file_get_contents (md, &page, NULL, NULL));
  g_assert_nonnull (strstr (page, "| MFU | "));
  g_assert_nonnull (strstr (strstr (page, "| MFU | "), "% |"));
}

/* --plan-per-size search: at each size the best plan `tandem search` finds, named per
 * row. The search is exact and its space holds the default plan (TP1 PP1, micro-batch 1,
 * no sharding), so its step is never slower than the fixed default's at the same size. */
static void
test_search_per_size (Fixture *f, gconstpointer data)
{
  const char *common = "report scaling --model tiny-llama --cluster cpu-host --gpus 2,4 "
                       "--gbs 8 --seq-length 256 --strong --json";
  g_autofree char *searched = g_strdup_printf ("%s --plan-per-size search", common);
  RunResult a = { 0 }, b = { 0 };
  run_report (searched, NULL, &a);
  run_report (common, NULL, &b);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  g_autoptr (JsonParser) pa = json_parser_new ();
  g_autoptr (JsonParser) pb = json_parser_new ();
  g_assert_true (json_parser_load_from_data (pa, a.out, -1, NULL));
  g_assert_true (json_parser_load_from_data (pb, b.out, -1, NULL));
  JsonObject *oa = json_node_get_object (json_parser_get_root (pa));
  g_assert_cmpstr (json_object_get_string_member (oa, "plan_per_size"), ==, "search");
  JsonArray *ra = json_object_get_array_member (oa, "rows");
  JsonArray *rb = json_object_get_array_member (json_node_get_object (json_parser_get_root (pb)),
                                                "rows");
  g_assert_cmpuint (json_array_get_length (ra), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *x = json_array_get_object_element (ra, i);
      JsonObject *y = json_array_get_object_element (rb, i);
      g_assert_cmpstr (json_object_get_string_member (x, "status"), ==, "ok");
      g_assert_true (g_str_has_prefix (json_object_get_string_member (x, "plan"), "tp"));
      g_assert_cmpfloat (json_object_get_double_member (x, "step_time_s"), <=,
                         json_object_get_double_member (y, "step_time_s") * (1 + 1e-12));
    }
  run_result_clear (&a);
  run_result_clear (&b);
}

/* --plan-per-size search chooses the degrees at each size, so a plan flag that fixes one
 * is named (exit 2) rather than dropped in silence: --tp 8 was ignored before. */
static void
test_search_per_size_fixed_flag (Fixture *f, gconstpointer data)
{
  RunResult a = { 0 };
  run_report ("report scaling --model llama3-8b --cluster dgx-h100-superpod --gpus 8,16 "
              "--gbs 64 --strong --plan-per-size search --tp 8 --json", NULL, &a);
  g_assert_cmpint (a.status, ==, 2);
  g_assert_cmpstr (a.err, ==, "tandem: error: --tp with --plan-per-size search: the search "
                   "chooses it at each size, so the flag would be ignored (hint: drop it, or "
                   "tandem search --gpus A,B,... --tp ... for a narrowed search per size)\n");
  run_result_clear (&a);
  /* a flag that sets what each searched candidate sets for itself (search_base_check), as
   * `tandem search` refuses it: DP overlap is the search's --dp-overlap */
  run_report ("report scaling --model llama3-8b --cluster dgx-h100-superpod --gpus 8,16 "
              "--gbs 64 --strong --plan-per-size search --overlap-grad-reduce --json", NULL, &a);
  g_assert_cmpint (a.status, ==, 2);
  g_assert_cmpstr (a.err, ==, "tandem: error: --plan-per-size search: --overlap-grad-reduce/"
                   "--overlap-param-gather: the search sets it for each candidate, so the flag "
                   "would be ignored (hint: drop it: the search tries it at each size)\n");
  run_result_clear (&a);
  /* the dimensions the search chooses that were copied after its own flags into each
   * row's (audit of 6 Dec: --cp-comm-type a2a named a p2p row whose flags predicted
   * 2.963 s against its 2.897; --schedule GPipe gave rows predict refused), and a plan
   * file, which predict refused after the search's flags */
  static const char *const dims[] = { "--cp-comm-type a2a", "--rank-order tp-cp-ep-pp-dp",
                                      "--schedule=GPipe", "--plan {DATA}/plan/llama3-8b-titan.toml" };
  for (guint i = 0; i < G_N_ELEMENTS (dims); i++)
    {
      g_autofree char *args = g_strdup_printf ("report scaling --model llama3-8b --cluster "
                                               "dgx-h100-superpod --gpus 8,16 --gbs 64 "
                                               "--strong --plan-per-size search %s --json",
                                               dims[i]);
      run_tandem (args, &a);
      g_assert_cmpint (a.status, ==, 2);
      g_autofree char *flag = g_strndup (dims[i], strcspn (dims[i], " ="));
      g_autofree char *want = g_strdup_printf ("tandem: error: %s with --plan-per-size search",
                                               flag);
      if (!g_str_has_prefix (a.err, want))
        g_error ("%s: %s", dims[i], a.err);
      run_result_clear (&a);
    }
  /* a size where every candidate is invalid gives the commonest reason, as the error's
   * hint promises (it said only "no valid plan among 29319 candidates") */
  run_report ("report scaling --model llama3-8b --cluster dgx-h100-superpod --gpus 8,16 "
              "--gbs 64 --strong --plan-per-size search --compile --json", NULL, &a);
  g_assert_cmpint (a.status, ==, 2);
  g_assert_nonnull (strstr (a.out, "of them: --compile: the megatron-core stack has no "
                                   "compiled mode"));
  run_result_clear (&a);
}

/* --plan FILE as every command reads it: the report read the file a second time as JSON,
 * which refused a TorchTitan .toml and put the file's keys back over the flags after it
 * (--tp 4 after a TP-8 plan reported tp 8) */
static void
test_plan_file_as_read (Fixture *f, gconstpointer data)
{
  RunResult a = { 0 };
  g_autofree char *toml = g_build_filename (f->dir, "s8.toml", NULL);
  g_assert_true (g_file_set_contents (toml, "[parallelism]\ntensor_parallel_degree = 8\n"
                                      "data_parallel_shard_degree = 8\n[training]\n"
                                      "global_batch_size = 64\n", -1, NULL));
  g_autofree char *args = g_strdup_printf ("report scaling --model llama3-8b --gpus 64,128 "
                                           "--strong --plan %s --json", toml);
  run_report (args, NULL, &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "tp8-cp1-pp1-vpp1-dp16-mbs1-gbs64-seq8192-sp-zero3-full-1F1B"));
  run_result_clear (&a);
  run_report ("plan show --model llama3-8b --gpus 64 --tp 8 --gbs 64 --json", NULL, &a);
  g_assert_cmpint (a.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, a.out, -1, NULL));
  g_autofree char *plan = json_to_string (json_object_get_member (
                                            json_node_get_object (json_parser_get_root (p)),
                                            "plan"), FALSE);
  run_result_clear (&a);
  g_autofree char *pj = g_build_filename (f->dir, "p8.json", NULL);
  g_assert_true (g_file_set_contents (pj, plan, -1, NULL));
  g_autofree char *args2 = g_strdup_printf ("report scaling --model llama3-8b --gpus 64,128 "
                                            "--strong --plan %s --tp 4 --json", pj);
  run_report (args2, NULL, &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "\"plan\" : \"tp4-"));
  g_assert_null (strstr (a.out, "\"plan\" : \"tp8-"));
  /* under a plan file the rows give no flags (the file's counts are dropped at each
   * size, which its flags would not do) */
  g_assert_null (strstr (a.out, "\"flags\" : \"--"));
  run_result_clear (&a);
}

/* Fixed rows give their `flags` as search rows do (they had none): the model, cluster,
 * size, batch and sequence, then the typed plan flags but --dp (the plan is scaled in dp:
 * dp 4 at 8 GPUs, 8 at 16); each reproduces its row's step under predict to the bit. */
static void
test_fixed_row_flags (Fixture *f, gconstpointer data)
{
  RunResult a = { 0 };
  run_report ("report scaling --model llama3-8b --cluster dgx-h100-superpod --gpus 8,16 "
              "--strong --gbs 64 --seq-length 4096 --dp 4 --tp 2 --recompute-granularity full "
              "--json", NULL, &a);
  g_assert_cmpint (a.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, a.out, -1, NULL));
  JsonArray *rows = json_object_get_array_member (json_node_get_object (
                                                    json_parser_get_root (p)), "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      const char *flags = json_object_get_string_member (row, "flags");
      g_assert_nonnull (flags);
      g_assert_null (strstr (flags, "--dp"));
      g_autofree char *pa = g_strdup_printf ("predict %s --no-db --json", flags);
      RunResult q = { 0 };
      run_tandem (pa, &q);
      g_assert_cmpint (q.status, ==, 0);
      g_autoptr (JsonNode) qr = run_parse_json (q.out);
      g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (qr), "step_time_s"),
                         ==, json_object_get_double_member (row, "step_time_s"));
      run_result_clear (&q);
    }
  run_result_clear (&a);
  /* a typed --dp is the plan's at the smallest size (8 / (tp 2) = 4 above); another was
   * dropped at every size without a word (round 39's leftover): exit 2, the derived value
   * given */
  run_report ("report scaling --model llama3-8b --cluster dgx-h100-superpod --gpus 8,16 "
              "--strong --gbs 64 --seq-length 4096 --dp 8 --tp 2 --json", NULL, &a);
  g_assert_cmpint (a.status, ==, 2);
  g_assert_cmpstr (a.err, ==, "tandem: error: --dp 8 is not the plan's dp at the smallest "
                   "size (8 GPUs / (tp 2 x cp 1 x pp 1) = 4): report scaling scales the fixed "
                   "plan in dp, each size's dp being its GPUs / (tp x cp x pp) (hint: drop "
                   "--dp)\n");
  g_assert_cmpstr (a.out, ==, "");
  run_result_clear (&a);
}

/* --plan-per-size search is `tandem search` at that size (README): the same stack's
 * space, so the same plan. Llama 3.1 8B on 8 GPUs of dgx-h100-superpod, 64 sequences
 * of 8,192 tokens: `tandem search ... --gpus 8 --gbs 64 --top 1` picks
 * tp1-cp2-pp1-vpp1-dp4-mbs2-gbs64-seq8192-zero2-1F1B (6.424 s); the report once picked
 * an HSDP plan (dp4x2, 6.413 s), which megatron-core does not offer and `tandem search`
 * refuses ("the megatron-core stack does not offer HSDP"), because its search ran
 * without the stack. Golden: the report's row equals the search's #1, plan and step. */
static void
test_search_per_size_is_search (Fixture *f, gconstpointer data)
{
  RunResult a = { 0 }, b = { 0 };
  run_report ("report scaling --model llama3-8b --cluster dgx-h100-superpod --gpus 8 "
              "--gbs 64 --strong --plan-per-size search --json", NULL, &a);
  run_report ("search --model llama3-8b --cluster dgx-h100-superpod --gpus 8 --gbs 64 "
              "--top 1 --no-db --json", NULL, &b);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  g_autoptr (JsonParser) pa = json_parser_new ();
  g_autoptr (JsonParser) pb = json_parser_new ();
  g_assert_true (json_parser_load_from_data (pa, a.out, -1, NULL));
  g_assert_true (json_parser_load_from_data (pb, b.out, -1, NULL));
  JsonObject *row = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (json_parser_get_root (pa)), "rows"), 0);
  JsonObject *top = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (json_parser_get_root (pb)), "top"), 0);
  const char *plan = json_object_get_string_member (row, "plan");
  g_assert_null (strstr (plan, "hsdp"));
  /* the row's name is the plan's, with the searched options as the search's table writes
   * them ("-dpov": the report's rows read "zero2" for plans that needed
   * --overlap-grad-reduce to reproduce; the plan's own name has them now), and its flags
   * are the search's */
  g_assert_cmpstr (plan, ==, json_object_get_string_member (
                               json_object_get_object_member (top, "plan"), "summary"));
  g_assert_true (g_str_has_suffix (plan, "-1F1B-dpov"));
  g_assert_cmpstr (json_object_get_string_member (row, "flags"), ==,
                   json_object_get_string_member (top, "flags"));
  g_assert_cmpfloat (json_object_get_double_member (row, "step_time_s"), ==,
                     json_object_get_double_member (top, "step_time_s"));
  run_result_clear (&a);
  run_result_clear (&b);
}

/* Many sizes without a plan (llama3-8b at TP 8, 64 sequences: 12, 20, 24, 28, 36, 40, 44
 * and 48 GPUs leave dp = 1.5, 2.5, ...): their "no plan" marks, 0.35 grey, stood across the
 * plot's foot and ran together ("no planno plan" between 36 and 48 on the log axis). Now
 * they stand upright where any two would overlap. Read back from throughput.png: in the
 * band just above the x axis, the columns holding that grey form one run per size, each
 * about a line of 11 px text wide (upright), not a word of ~45 px (across), and never
 * merged: 8 runs inside the frame, none wider than 20 px. The axis is the lowest row that
 * is dark (the
 * frame, 0.2 grey at 1.2 px, so antialiased to at most ~0.6) over more than half the
 * width. */
static void
test_no_plan_marks_apart (Fixture *f, gconstpointer data)
{
  RunResult r = { 0 };
  run_report ("report scaling --model llama3-8b --cluster h100-24k --tp 8 --gbs 64 "
              "--seq-length 4096 --gpus 8,12,16,20,24,28,32,36,40,44,48,64 --strong "
              "--out {OUT} --format png", f->out, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *png = g_build_filename (f->out, "throughput.png", NULL);
  cairo_surface_t *img = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (img), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_flush (img);
  const int w = cairo_image_surface_get_width (img), h = cairo_image_surface_get_height (img);
  const int stride = cairo_image_surface_get_stride (img);
  const unsigned char *px = cairo_image_surface_get_data (img);
#define GREY_AT(x, y, lo, hi) \
  ({ const guint32 v_ = *(const guint32 *) (px + (y) * stride + 4 * (x)); \
     const int r_ = (v_ >> 16) & 255, g_ = (v_ >> 8) & 255, b_ = v_ & 255; \
     r_ == g_ && g_ == b_ && r_ >= (lo) && r_ <= (hi); })
  int axis = -1;
  for (int y = h - 1; y >= 0 && axis < 0; y--)
    {
      int dark = 0;
      for (int x = 0; x < w; x++)
        dark += GREY_AT (x, y, 0, 160);
      if (dark > w / 2)
        axis = y;
    }
  g_assert_cmpint (axis, >, 60);
  /* inside the frame: the longest dark run of that row (the y axis's "10k", left of it on
   * the same row, is dark text as well) */
  int left = 0, right = -1;
  for (int x = 0, start = -1; x <= w; x++)
    if (x < w && GREY_AT (x, axis, 0, 160))
      start = start < 0 ? x : start;
    else if (start >= 0)
      {
        if (x - 1 - start > right - left)
          left = start, right = x - 1;
        start = -1;
      }
  int runs = 0, widest = 0, run = 0;
  for (int x = left + 4; x <= right - 4; x++)
    {
      gboolean ink = FALSE;
      for (int y = axis - 60; y < axis - 8 && !ink; y++)
        ink = GREY_AT (x, y, 70, 120);
      if (ink)
        run++;
      else if (run > 0)
        {
          runs++;
          widest = MAX (widest, run);
          run = 0;
        }
    }
#undef GREY_AT
  cairo_surface_destroy (img);
  g_assert_cmpint (runs, ==, 8);
  g_assert_cmpint (widest, <=, 20);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/cli/report/scaling-csv-matches-predict", Fixture, NULL, fixture_setup,
              test_csv_matches_predict, fixture_teardown);
  g_test_add ("/cli/report/measured-points-match", Fixture, NULL, fixture_setup,
              test_measured_points_match, fixture_teardown);
  g_test_add ("/cli/report/same-refusal", Fixture, NULL, fixture_setup, test_same_refusal,
              fixture_teardown);
  g_test_add ("/cli/report/force-keeps-others", Fixture, NULL, fixture_setup,
              test_force_keeps_others, fixture_teardown);
  g_test_add ("/cli/report/repeated-lists", Fixture, NULL, fixture_setup,
              test_repeated_lists, fixture_teardown);
  g_test_add ("/cli/report/scaling-json", Fixture, NULL, fixture_setup, test_json_rows,
              fixture_teardown);
  g_test_add ("/cli/report/concurrent-waits", Fixture, NULL, fixture_setup,
              test_concurrent_waits, fixture_teardown);
  g_test_add ("/cli/report/full-disk", Fixture, NULL, fixture_setup, test_full_disk,
              fixture_teardown);
  g_test_add ("/cli/report/refusals", Fixture, NULL, fixture_setup, test_refusals,
              fixture_teardown);
  g_test_add ("/cli/report/html-in-chromium", Fixture, NULL, fixture_setup,
              test_html_in_chromium, fixture_teardown);
  g_test_add ("/cli/report/validation", Fixture, NULL, fixture_setup, test_validation_report,
              fixture_teardown);
  g_test_add ("/cli/report/validation-latest", Fixture, NULL, fixture_setup,
              test_validation_latest, fixture_teardown);
  g_test_add ("/cli/report/run", Fixture, NULL, fixture_setup, test_run_report,
              fixture_teardown);
  g_test_add ("/cli/report/search-per-size", Fixture, NULL, fixture_setup, test_search_per_size,
              fixture_teardown);
  g_test_add ("/cli/report/search-per-size-is-search", Fixture, NULL, fixture_setup,
              test_search_per_size_is_search, fixture_teardown);
  g_test_add ("/cli/report/search-per-size-fixed-flag", Fixture, NULL, fixture_setup,
              test_search_per_size_fixed_flag, fixture_teardown);
  g_test_add ("/cli/report/no-plan-marks-apart", Fixture, NULL, fixture_setup,
              test_no_plan_marks_apart, fixture_teardown);
  g_test_add ("/cli/report/fixed-row-flags", Fixture, NULL, fixture_setup,
              test_fixed_row_flags, fixture_teardown);
  g_test_add ("/cli/report/plan-file-as-read", Fixture, NULL, fixture_setup,
              test_plan_file_as_read, fixture_teardown);
  g_test_add ("/cli/report/bad-inputs", Fixture, NULL, fixture_setup, test_bad_inputs,
              fixture_teardown);
  return g_test_run ();
}
