/* tests/results/test-report.c - the validation report's table from a store holding one
 * run (measured next to predicted) and one validate run, with the errors derived by hand;
 * and its files. Uses ":memory:" and a temporary directory. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>

#include "results/report.h"
#include "results/report-private.h"

static gint64
add_run (ResStore *store)
{
  ResRunInfo info = { 0 };
  info.kind = RES_KIND_RUN;
  info.status = RES_STATUS_OK;
  info.model = "tiny-llama";
  info.cluster = "cpu-host";
  info.plan = "tp2-cp1-pp1-vpp1-dp1-mbs1-gbs4-seq256-1F1B";
  info.world_size = 2;
  ResMetrics pred, meas;
  res_metrics_init (&pred);
  res_metrics_init (&meas);
  pred.step_time_s = 1.05, meas.step_time_s = 1.0;
  pred.compute_s = 0.8, meas.compute_s = 1.0;
  pred.bubble_fraction = 0.1, meas.bubble_fraction = 0.2;
  for (int k = 0; k < RES_COMM_N; k++)
    pred.exposed_s[k] = meas.exposed_s[k] = 0;
  pred.exposed_s[RES_COMM_TP] = 0.05, meas.exposed_s[RES_COMM_TP] = 0.04;
  pred.exposed_s[RES_COMM_DP] = 0.01;     /* measured 0: no relative error */
  pred.peak_memory_bytes = 110, meas.peak_memory_bytes = 100;
  ResMeasureInfo mi = { 2, 1, 2, "[1.0, 1.0]" };
  g_autoptr (GError) error = NULL;
  gint64 id = res_store_add_run (store, &info, &pred, &meas, &mi, NULL, 0, &error);
  g_assert_no_error (error);
  return id;
}

static gint64
add_validate (ResStore *store)
{
  ResRunInfo info = { 0 };
  info.kind = RES_KIND_VALIDATE;
  info.status = RES_STATUS_OK;
  info.model = "published-runs.csv";
  const ResValidationRow rows[] = {
    { 7, 2.0, 4.0, NAN },      /* -50% */
    { 9, 2.75, 2.5, NAN },     /* +10%: 100 x 0.25 / 2.5, exact in binary */
  };
  g_autoptr (GError) error = NULL;
  /* validate imports the rows it checks first: row 7 is, row 9 is not */
  const ResPublishedRow pub = { 7, "a paper", "GPT-7B", "A100-SXM-80GB", 64, "{}" };
  g_assert_true (res_store_import_published (store, &pub, 1, &error));
  g_assert_no_error (error);
  gint64 id = res_store_add_validation (store, &info, rows, G_N_ELEMENTS (rows), &error);
  g_assert_no_error (error);
  return id;
}

static void
assert_err (double got, double want)
{
  g_assert_cmpfloat_with_epsilon (got, want, 1e-9);
}

/* Each term's error is 100 (predicted - measured) / measured, as derived below. */
static void
test_validation_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  g_assert_no_error (error);
  gint64 run = add_run (store);
  gint64 val = add_validate (store);
  g_autoptr (ReportValidation) v = report_validation_compute (store, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (v->rows->len, ==, 3);
  const ReportValidationRow *r = g_ptr_array_index (v->rows, 0);
  g_assert_cmpint (r->run_id, ==, run);
  g_assert_cmpstr (r->kind, ==, "run");
  assert_err (r->err_pct[REPORT_TERM_STEP], 5.0);        /* 100 x 0.05 / 1.0 */
  assert_err (r->err_pct[REPORT_TERM_COMPUTE], -20.0);   /* 100 x -0.2 / 1.0 */
  /* bubble in seconds: 0.1 x 1.05 = 0.105 against 0.2 x 1.0 = 0.2: -47.5% */
  assert_err (r->predicted[REPORT_TERM_BUBBLE], 0.105);
  assert_err (r->err_pct[REPORT_TERM_BUBBLE], -47.5);
  assert_err (r->err_pct[REPORT_TERM_TP], 25.0);         /* 100 x 0.01 / 0.04 */
  g_assert_true (isnan (r->err_pct[REPORT_TERM_DP]));    /* measured 0 */
  g_assert_true (isnan (r->err_pct[REPORT_TERM_CP]));    /* 0 against 0 */
  assert_err (r->err_pct[REPORT_TERM_MEMORY], 10.0);     /* 110 against 100 bytes */
  const ReportValidationRow *p7 = g_ptr_array_index (v->rows, 1);
  g_assert_cmpint (p7->run_id, ==, val);
  g_assert_cmpint (p7->published_row, ==, 7);
  assert_err (p7->err_pct[REPORT_TERM_STEP], -50.0);
  /* the row's own model, GPU type and count, not the run's (the CSV's name) */
  g_assert_cmpstr (p7->model, ==, "GPT-7B");
  g_assert_cmpstr (p7->cluster, ==, "A100-SXM-80GB");
  g_assert_cmpint (p7->gpus, ==, 64);
  g_assert_true (isnan (p7->err_pct[REPORT_TERM_COMPUTE]));   /* published: step only */
  /* within +-10% (bounds included): the run (+5%) and row 9 (+10%) */
  const ReportValidationRow *p9 = g_ptr_array_index (v->rows, 2);
  g_assert_cmpfloat (p9->err_pct[REPORT_TERM_STEP], ==, 10.0);
  g_assert_null (p9->model);     /* never imported: unknown, not "published-runs.csv" */
  g_assert_cmpint (p9->gpus, ==, 0);
  g_assert_cmpuint (v->n_within_10pct, ==, 2);

  /* one run asked for: only its rows */
  gint64 only[] = { val };
  g_autoptr (ReportValidation) v2 = report_validation_compute (store, only, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (v2->rows->len, ==, 2);
  /* a run that is not there */
  gint64 missing[] = { 99 };
  g_assert_null (report_validation_compute (store, missing, 1, &error));
  g_assert_error (error, RES_ERROR, RES_ERROR_NOT_FOUND);
}

/* The files: CSV with one line per row plus the header; PNGs that are PNGs; and a
 * second write into the same directory refused without force. */
static void
test_validation_files (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  add_run (store);
  add_validate (store);
  g_autoptr (ReportValidation) v = report_validation_compute (store, NULL, 0, &error);
  g_assert_no_error (error);
  g_autofree char *dir = g_dir_make_tmp ("tandem-report-XXXXXX", NULL);
  g_autoptr (GPtrArray) written = g_ptr_array_new_with_free_func (g_free);
  guint formats = REPORT_FORMAT_CSV | REPORT_FORMAT_PNG | REPORT_FORMAT_HTML;
  g_assert_true (report_validation_write (v, dir, formats, FALSE, written, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (written->len, ==, 4);   /* scatter.png, terms.png, html, csv */
  g_autofree char *csv_path = g_build_filename (dir, "report.csv", NULL);
  g_autofree char *csv = NULL;
  g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 5);   /* header, 3 rows, "" */
  g_assert_true (g_str_has_prefix (lines[0], "run_id,kind,published_row,"));
  g_autofree char *png = g_build_filename (dir, "scatter.png", NULL);
  g_autofree char *head = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (png, &head, &len, NULL));
  g_assert_cmpuint (len, >, 1000);
  g_assert_true (memcmp (head, "\x89PNG", 4) == 0);
  g_assert_false (report_validation_write (v, dir, formats, FALSE, written, &error));
  g_assert_error (error, REPORT_ERROR, REPORT_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_true (report_validation_write (v, dir, formats, TRUE, written, &error));
  for (guint i = 0; i < written->len; i++)
    g_unlink (g_ptr_array_index (written, i));
  g_rmdir (dir);
}

/* A Markdown table cell keeps its table: '|' escaped, a line break (and any control
 * character) a blank; and a number past 1e15 is printed in %g, not as the first digits
 * of a 309-digit fixed-point number (a stored err_pct of 1e308 read as 1.0e61). */
static void
test_md_cell_and_huge (void)
{
  g_autoptr (GString) s = g_string_new (NULL);
  report_md_escape (s, "my|model\nv2\t");
  g_assert_cmpstr (s->str, ==, "my\\|model v2 ");
  /* and shown as written in a heading or a line: a cluster named
   * "<img src=x onerror=f()>", then a newline, a table row and a link, was HTML, a row of
   * its own and a javascript: link in report.md */
  g_autofree char *t = report_md_escaped ("<img src=x onerror=f()>\n| row |\n[l](javascript:f())"
                                          " a_b*c & `d` #1 !x \\");
  g_assert_cmpstr (t, ==, "&lt;img src=x onerror=f()&gt; \\| row \\| \\[l\\](javascript:f()) "
                   "a\\_b\\*c &amp; \\`d\\` \\#1 \\!x \\\\");
  char b[32];
  g_assert_cmpstr (report_fmt (b, sizeof b, "%+.1f%%", 1e308), ==, "1e+308");
  g_assert_cmpstr (report_fmt (b, sizeof b, "%+.1f%%", -12.34), ==, "-12.3%");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/results/report/validation-errors", test_validation_errors);
  g_test_add_func ("/results/report/validation-files", test_validation_files);
  g_test_add_func ("/results/report/md-cell-and-huge", test_md_cell_and_huge);
  return g_test_run ();
}
