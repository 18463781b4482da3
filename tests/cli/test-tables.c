/* tests/cli/test-tables.c - the human tables of plan show, runs, runs show N, validate and
 * search are aligned from their cells (cli/cli-table.c), so a long cell (a model name, a
 * plan string, an error message) never pushes the columns after it out of line.
 *
 * The check: the header line names the columns; a left-aligned column starts where its
 * header starts, a right-aligned one ends where its header ends. On every row of the table
 * a left-aligned cell starts at its column (a non-blank there, two blanks before it) and a
 * right-aligned cell ends at its column (a non-blank just before, a blank or the end of the
 * line just after). A cell that overflowed its column breaks one of these on its row.
 * TANDEM_EXE (set by tests/cli/meson.build) is the binary under test; "{SRC}" in the
 * arguments is the source root and "{TMP}" the test's scratch folder. */
#include <glib.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cli-run.h"

static char *tmp_dir;

/* A column: its header and '<' (left-aligned) or '>' (right-aligned). */
typedef struct {
  const char *head;
  char        align;
} Col;

/* Checks the table whose header line starts with `header` (exactly, blanks included):
 * the rows are the lines after it up to the first empty line, less those starting with
 * `note` (NULL: none). Returns the number of rows checked. */
static guint
check_table (const char *text, const char *header, const Col *cols, guint n_cols,
             const char *note)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint h = 0;
  while (lines[h] != NULL && !g_str_has_prefix (lines[h], header))
    h++;
  if (lines[h] == NULL)
    g_error ("no header line '%s' in:\n%s", header, text);
  gsize pos[32];
  g_assert_cmpuint (n_cols, <=, G_N_ELEMENTS (pos));
  const char *from = lines[h];
  for (guint c = 0; c < n_cols; c++)
    {
      const char *at = strstr (from, cols[c].head);
      if (at == NULL)
        g_error ("header '%s' lacks column '%s'", lines[h], cols[c].head);
      gsize start = (gsize) (at - lines[h]), len = strlen (cols[c].head);
      pos[c] = cols[c].align == '<' ? start : start + len;
      from = at + len;
    }
  guint rows = 0;
  for (guint i = h + 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      const char *l = lines[i];
      if (note != NULL && g_str_has_prefix (l, note))
        continue;
      gsize n = strlen (l);
      for (guint c = 0; c < n_cols; c++)
        {
          gboolean ok;
          if (cols[c].align == '<')
            ok = pos[c] < n && l[pos[c]] != ' '
                 && (pos[c] == 0 || (pos[c] >= 2 && l[pos[c] - 1] == ' '
                                     && l[pos[c] - 2] == ' ')) ;
          else
            ok = pos[c] >= 1 && pos[c] <= n && l[pos[c] - 1] != ' '
                 && (pos[c] == n || (c + 1 < n_cols && l[pos[c]] == ' '
                                     && pos[c] + 1 < n && l[pos[c] + 1] == ' '));
          if (!ok)
            g_error ("column '%s' out of line (offset %" G_GSIZE_FORMAT ") in row:\n%s\n"
                     "under header:\n%s", cols[c].head, pos[c], l, lines[h]);
        }
      rows++;
    }
  return rows;
}

/* plan show's layout table, with six-figure strides and group members past a 16,384-GPU
 * cluster's rank 10,000. */
static void
test_plan_show (void)
{
  RunResult r = { 0 };
  run_tandem ("plan show --model llama3-70b --cluster h100-24k --gpus 16384 --tp 8 --pp 16 "
              "--cp 2 --gbs 2048", &r);
  g_assert_cmpint (r.status, ==, 0);
  static const Col cols[] = { { "group", '<' }, { "size", '>' }, { "groups", '>' },
                              { "stride", '>' }, { "spans", '<' },
                              { "members of rank 0's group", '<' } };
  /* tp, cp, dp, pp: the dense axes (no HSDP, no experts) */
  g_assert_cmpuint (check_table (r.out, "  group ", cols, G_N_ELEMENTS (cols), NULL), ==, 4);
  /* pp's stride is tp x cp x dp = 8 x 2 x 64 = 1024 and its last member 15 x 1024 */
  g_assert_nonnull (strstr (r.out, "1024"));
  g_assert_nonnull (strstr (r.out, ",...,15360}"));
  run_result_clear (&r);
}

/* A CSV of published rows 40 and 41 (GPT 175B, predicted) under a model label longer than
 * any other cell, and row 13 (skipped: tp not stated). */
static char *
write_long_label_csv (void)
{
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "..", "data",
                                                "published-runs.csv", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (lines[0]);
  g_string_append_c (out, '\n');
  for (guint i = 1; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "40,") || g_str_has_prefix (lines[i], "41,")
        || g_str_has_prefix (lines[i], "13,"))
      {
        GString *l = g_string_new (lines[i]);
        g_assert_cmpuint (g_string_replace (l, ",GPT 175B (Megatron),",
                                            ",GPT 175B (Megatron) under a model label far "
                                            "longer than any other cell of the table,", 1),
                          <=, 1);
        g_string_append_len (out, l->str, (gssize) l->len);
        g_string_append_c (out, '\n');
        g_string_free (l, TRUE);
      }
  char *path = g_build_filename (tmp_dir, "long-labels.csv", NULL);
  g_assert_true (g_file_set_contents (path, out->str, -1, NULL));
  g_string_free (out, TRUE);
  return path;
}

static const Col validate_cols[] = {
  { "row_id", '>' }, { "model", '<' }, { "gpus", '>' }, { "plan", '<' },
  { "measured_s", '>' }, { "predicted_s", '>' }, { "err_%", '>' }, { "measured from", '<' } };

/* validate's per-row table (with --breakdown lines between rows), its per-GPU summary and
 * its skipped table, all with the long label. */
static void
test_validate (void)
{
  g_autofree char *csv = write_long_label_csv ();
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("validate %s --no-db --breakdown", csv);
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "far longer than any other cell of the table  "));
  g_assert_cmpuint (check_table (r.out, "row_id  model ", validate_cols,
                                 G_N_ELEMENTS (validate_cols), "        compute "), ==, 2);
  static const Col fam[] = { { "GPUs", '<' }, { "rows", '>' }, { "MAPE %", '>' } };
  g_assert_cmpuint (check_table (r.out, "  GPUs ", fam, G_N_ELEMENTS (fam), NULL), ==, 1);
  g_assert_nonnull (strstr (r.out, "  a100     2  "));
  static const Col skip[] = { { "row_id", '>' }, { "model", '<' }, { "why", '<' } };
  g_assert_cmpuint (check_table (r.out, "  row_id ", skip, G_N_ELEMENTS (skip), NULL), ==, 1);
  g_assert_nonnull (strstr (r.out, "tp not stated"));
  run_result_clear (&r);
}

/* A selection of mixture-of-experts rows only (the README's `--only 701-741`): the summary
 * counts dense rows apart (0 here), and the per-row table still lists every predicted row.
 * Rows 703 (gpt-oss-120b, 64 GPUs) and 704 (Qwen3-30B-A3B, 8 GPUs) of the shipped CSV are
 * both predicted (neither is in validate's skipped list), so the table has 2 rows. */
static void
test_validate_moe_only (void)
{
  RunResult r = { 0 };
  run_tandem ("validate {SRC}/data/published-runs.csv --only 703,704 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "summary: 0 predicted"));
  g_assert_nonnull (strstr (r.out, "moe: 2 of 2 mixture-of-experts rows predicted"));
  /* the summary line follows the table's last row directly */
  const char *summary = strstr (r.out, "\nsummary:");
  g_assert_nonnull (summary);
  g_autofree char *table = g_strndup (r.out, (gsize) (summary - r.out));
  g_assert_cmpuint (check_table (table, "row_id  model ", validate_cols,
                                 G_N_ELEMENTS (validate_cols), NULL), ==, 2);
  g_assert_nonnull (strstr (table, "gpt-oss-120b"));
  g_assert_nonnull (strstr (table, "Qwen3-30B-A3B"));
  run_result_clear (&r);
}

/* search's top-K table: a plan column after the figures, the rule-of-thumb row below. */
static void
test_search (void)
{
  RunResult r = { 0 };
  run_tandem ("search --model llama3-8b --cluster h100-24k --gpus 8 --gbs 8 --top 3 --no-db",
              &r);
  g_assert_cmpint (r.status, ==, 0);
  static const Col cols[] = {
    { "#", '>' }, { "step s", '>' }, { "tokens/s", '>' }, { "MFU", '>' }, { "HFU", '>' },
    { "bubble", '>' }, { "exp tp", '>' }, { "exp cp", '>' }, { "exp ep", '>' }, { "exp pp", '>' },
    { "exp dp", '>' }, { "peak GiB", '>' }, { "GPUs", '>' }, { "plan", '<' } };
  /* three places and the rule row */
  g_assert_cmpuint (check_table (r.out, "   #  step s", cols, G_N_ELEMENTS (cols), NULL), ==,
                    4);
  g_assert_nonnull (strstr (r.out, "\nrule  "));
  run_result_clear (&r);
}

/* runs: a model whose name is longer than every other cell, an OOM run with its error,
 * a model by Megatron flags; runs show N for a prediction (its terms), a search (its
 * candidates, plan strings and flags) and a validation (its rows). */
static void
test_runs (void)
{
  g_autofree char *src_model = g_test_build_filename (G_TEST_DIST, "data", "models",
                                                      "mistral-7b.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (src_model, &text, NULL, NULL));
  g_autofree char *model = g_build_filename (tmp_dir, "a-mistral-variant-with-an-uncommonly-"
                                             "long-name-for-the-runs-table.json", NULL);
  g_assert_true (g_file_set_contents (model, text, -1, NULL));
  RunResult r = { 0 };
  g_autofree char *a1 = g_strdup_printf ("predict --model %s --cluster h100-24k --gpus 8 "
                                         "--tp 8 --gbs 8 --db {TMP}/runs.db", model);
  run_tandem (a1, &r);                                                /* run 1 */
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_tandem ("predict --model llama3-70b --cluster h100-24k --gpus 8 --gbs 16 "
              "--db {TMP}/runs.db", &r);                              /* run 2: OOM */
  g_assert_cmpint (r.status, ==, 3);
  run_result_clear (&r);
  run_tandem ("predict --num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
              "--vocab-size 128256 --swiglu --cluster h100-24k --gpus 16 --tp 8 --gbs 16 "
              "--db {TMP}/runs.db", &r);                              /* run 3 */
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_tandem ("search --model llama3-8b --cluster h100-24k --gpus 8 --gbs 8 --top 3 "
              "--db {TMP}/runs.db", &r);                              /* run 4 */
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *csv = write_long_label_csv ();
  g_autofree char *a5 = g_strdup_printf ("validate %s --db {TMP}/runs.db", csv);
  run_tandem (a5, &r);                                                /* run 5 */
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);

  run_tandem ("runs --db {TMP}/runs.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  static const Col cols[] = {
    { "run", '>' }, { "created (UTC)", '<' }, { "kind", '<' }, { "status", '<' },
    { "model", '<' }, { "cluster", '<' }, { "GPUs", '>' }, { "predicted s", '>' },
    { "measured s", '>' }, { "plan", '<' }, { "error", '<' } };
  g_assert_cmpuint (check_table (r.out, "run  created", cols, G_N_ELEMENTS (cols), NULL), ==,
                    5);
  g_assert_nonnull (strstr (r.out, "long-name-for-the-runs-table  h100-24k"));
  g_assert_nonnull (strstr (r.out, "megatron-L32-h4096-a32-swiglu"));
  g_assert_nonnull (strstr (r.out, "does not fit in device memory"));
  /* a validation spans rows of many sizes: its GPUs cell is "-", not 0 */
  g_assert_null (strstr (r.out, "  0  "));
  run_result_clear (&r);

  run_tandem ("runs show 1 --db {TMP}/runs.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  static const Col terms[] = { { "term", '<' }, { "predicted", '>' }, { "measured", '>' },
                               { "error", '>' } };
  /* step time, tokens/s, TFLOP/s, MFU, HFU, compute, five exposed kinds, bubble (s),
   * bubble fraction, overlap, peak memory */
  g_assert_cmpuint (check_table (r.out, "  term ", terms, G_N_ELEMENTS (terms), "  (MFU"),
                    ==, 15);
  run_result_clear (&r);

  run_tandem ("runs show 4 --db {TMP}/runs.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  static const Col cand[] = { { "place", '>' }, { "plan", '<' }, { "step s", '>' },
                              { "tokens/s", '>' }, { "MFU %", '>' }, { "peak GiB", '>' },
                              { "fits", '<' }, { "flags", '<' } };
  g_assert_cmpuint (check_table (r.out, "  place ", cand, G_N_ELEMENTS (cand), NULL), >=, 3);
  run_result_clear (&r);

  run_tandem ("runs show 5 --db {TMP}/runs.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  static const Col val[] = { { "row", '>' }, { "predicted s", '>' }, { "measured s", '>' },
                             { "err %", '>' } };
  g_assert_cmpuint (check_table (r.out, "  row ", val, G_N_ELEMENTS (val), NULL), ==, 2);
  g_assert_null (strstr (r.out, "(0 GPUs)"));
  run_result_clear (&r);
}

/* runs show N of a run predicted on a calibrated cluster names the profile in one line
 * (where and when it was measured, rows per table) instead of printing raw JSON: the
 * profile here is nccl-tests' all_reduce_perf output for 8 H100 (tests/data/calibrate),
 * whose 11 rows (8 B .. 8 GiB) are the only measured table. */
static void
test_runs_show_profile (void)
{
  g_autofree char *nccl = g_test_build_filename (G_TEST_DIST, "data", "calibrate",
                                                 "all_reduce_perf-8xh100.txt", NULL);
  RunResult r = { 0 };
  g_autofree char *cal = g_strdup_printf ("calibrate --no-bench --import-nccl-tests %s "
                                          "--cluster cpu-host --out {TMP}/prof.json --no-db",
                                          nccl);
  run_tandem (cal, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_tandem ("predict --model tiny-llama --cluster {TMP}/prof.json --gpus 1 "
              "--db {TMP}/prof.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_tandem ("runs show 1 --db {TMP}/prof.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  const char *line = strstr (r.out, "\n  profile      measured");
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, ", 11 collectives rows (all of it: tandem runs show 1 "
                                  "--json)\n"));
  g_assert_null (strstr (r.out, "{\""));   /* no raw JSON */
  run_result_clear (&r);
}

/* report scaling and show cluster: a cluster whose name is longer than the old fixed 18-character column
 * (here h100-24k's preset under a 44-character name) and a size it refuses (its reason is
 * the last column) keep every column under its header. */
static void
test_report_scaling (void)
{
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "..", "topology", "presets",
                                                "h100-24k.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  g_autoptr (GString) renamed = g_string_new (text);
  g_assert_cmpuint (g_string_replace (renamed, "\"name\": \"h100-24k\"",
                                      "\"name\": \"h100-24k-renamed-to-something-much-longer\"",
                                      1), ==, 1);
  g_autofree char *cl = g_build_filename (tmp_dir, "long-cluster.json", NULL);
  g_assert_true (g_file_set_contents (cl, renamed->str, -1, NULL));
  g_autofree char *args = g_strdup_printf ("report scaling --model llama3-8b --cluster %s,"
                                           "h100-24k --gpus 8,16,100000 --strong "
                                           "--gbs 64 --tp 8 --out {TMP}/scaling", cl);
  RunResult r = { 0 };
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 0);
  static const Col cols[] = {
    { "cluster", '<' }, { "GPUs", '>' }, { "step s", '>' }, { "tokens/s", '>' },
    { "MFU", '>' }, { "S", '>' }, { "E", '>' }, { "peak GiB", '>' },
    { "status / plan", '<' } };
  /* 2 clusters x 3 sizes */
  g_assert_cmpuint (check_table (r.out, "  cluster ", cols, G_N_ELEMENTS (cols), NULL), ==, 6);
  g_assert_nonnull (strstr (r.out, "h100-24k-renamed-to-something-much-longer       8"));
  run_result_clear (&r);

  /* show cluster: a level renamed past the old fixed 10 characters keeps the level table
   * (4 levels of h100-24k) in line */
  g_assert_cmpuint (g_string_replace (renamed, "\"name\": \"server\"",
                                      "\"name\": \"grand-teton-server-nvlink\"", 1), ==, 1);
  g_assert_true (g_file_set_contents (cl, renamed->str, -1, NULL));
  g_autofree char *show = g_strdup_printf ("show cluster %s", cl);
  run_tandem (show, &r);
  g_assert_cmpint (r.status, ==, 0);
  static const Col levels[] = {
    { "level", '<' }, { "count", '>' }, { "devices", '>' }, { "bw/dir/device", '>' },
    { "busbw", '>' }, { "latency", '>' }, { "oversub", '>' } };
  g_assert_cmpuint (check_table (r.out, "  level ", levels, G_N_ELEMENTS (levels), NULL), ==,
                    4);
  g_assert_nonnull (strstr (r.out, "grand-teton-server-nvlink      8"));
  run_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("tandem-tables-XXXXXX", NULL);
  run_tandem_set_tmp (tmp_dir);
  g_assert_nonnull (tmp_dir);
  g_test_add_func ("/cli/tables/plan-show", test_plan_show);
  g_test_add_func ("/cli/tables/validate", test_validate);
  g_test_add_func ("/cli/tables/validate-moe-only", test_validate_moe_only);
  g_test_add_func ("/cli/tables/search", test_search);
  g_test_add_func ("/cli/tables/runs", test_runs);
  g_test_add_func ("/cli/tables/runs-show-profile", test_runs_show_profile);
  g_test_add_func ("/cli/tables/report-scaling", test_report_scaling);
  int status = g_test_run ();
  g_autoptr (GDir) dir = g_dir_open (tmp_dir, 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmp_dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  return status;
}
