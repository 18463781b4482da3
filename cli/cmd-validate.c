/* cli/cmd-validate.c - `tandem validate FILE.csv [--json] [--db FILE] [--no-db]
 * [--only ROW_IDS] [--gpu-type SUBSTR]`: predict the published runs of a CSV (columns of
 * data/published-runs.csv), compare with their measured step times, store the validation.
 * The mapping rules are in results/published.h. */
#include "cli/cli.h"
#include "results/accuracy.h"
#include "results/published.h"
#include "cli/cli-store.h"
#include "cli/cli-table.h"
#include "sim/cost.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

/* "1,2,5-9" -> ids. FALSE on anything else, with the item at fault in *bad (an empty
 * item, as in "1,,2" or "1,", is refused too: it is a typo more often than an intent). */
static gboolean
parse_ids (const char *text, GArray *ids, char **bad)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *p = g_strstrip (parts[i]);
      char *end = NULL;
      /* a number past 2^63 - 1 came back as G_MAXINT64 (ERANGE), and the loop below ran
       * past it: signed overflow, then an endless append */
      errno = 0;
      gint64 lo = g_ascii_strtoll (p, &end, 10), hi = lo;
      gboolean ok = end != p && lo >= 0 && errno == 0;
      gboolean wide = FALSE;
      if (ok && *end == '-')
        {
          char *start = end + 1;
          hi = g_ascii_strtoll (start, &end, 10);
          ok = end != start && errno == 0 && hi >= lo;
          wide = ok && hi - lo > 100000;
        }
      if (!ok || *end != '\0')
        {
          *bad = g_strdup_printf ("item '%s' is not a row id or a range low-high", p);
          return FALSE;
        }
      /* each id of a range is kept: a range is at most 100,001 ids */
      if (wide)
        {
          *bad = g_strdup_printf ("range '%s' spans %" G_GINT64_FORMAT " row ids, more than "
                                  "the 100,001 a range may", p, hi - lo + 1);
          return FALSE;
        }
      for (gint64 id = lo;; id++)
        {
          g_array_append_val (ids, id);
          if (id == hi)
            break;
        }
    }
  return ids->len > 0;
}

static void
on_progress (guint done, guint total, gpointer data)
{
  fprintf (stderr, "\rvalidating: %u/%u rows", done, total);
  if (done == total)
    fprintf (stderr, "\r%*s\r", 40, "");
  fflush (stderr);
}

static const char *
fmt_num (double v, const char *format)
{
  static char bufs[8][32];
  static int next;
  next = (next + 1) % 8;
  if (!isfinite (v))
    return "-";
  g_snprintf (bufs[next], sizeof bufs[next], format, v);
  return bufs[next];
}

/* One line: a label's line breaks and tabs become spaces (a CSV cell may hold them), and
 * its other control characters \xNN (cli_printable): a cell's ESC [ ... is text to show,
 * not a command to the terminal. */
static char *
flat (const char *s)
{
  g_autofree char *spaced = g_strdelimit (g_strdup (s ? s : "-"), "\r\n\t", ' ');
  return cli_printable (spaced, NULL);
}


/* "GPUs rows MAPE %" per GPU family with rows (nothing when no family has one). */
static void
print_family_table (const guint *n, const double *mape)
{
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "GPUs", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "rows", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "MAPE %", CLI_ALIGN_RIGHT);
  gboolean any = FALSE;
  /* the named families, then the others (MI300X, GH200, L40S, V100, ...: they were left
   * out, so the table summed to fewer rows than the summary line) */
  for (int i = RES_PUB_FAMILY_H100; i <= RES_PUB_FAMILY_N; i++)
    if (n[i < RES_PUB_FAMILY_N ? i : RES_PUB_FAMILY_OTHER] > 0)
      {
        const int f = i < RES_PUB_FAMILY_N ? i : RES_PUB_FAMILY_OTHER;
        any = TRUE;
        cli_table_add_row (t);
        cli_table_cell (t, "%s", res_pub_family_name (f));
        cli_table_cell (t, "%u", n[f]);
        cli_table_cell (t, "%s", fmt_num (mape[f], "%.1f"));
      }
  if (any)
    cli_table_print (t, stdout, "  ");
}

/* One line for a group of rows scored apart from the dev summary (MoE, held out). */
static void
print_apart_line (const char *label, const char *what, guint n, guint n_rows, double mape,
                  double max_abs, gint64 max_row, const char *apart)
{
  printf ("%s: %u of %u %s predicted; MAPE %s%%, max |err| %s%%", label, n, n_rows, what,
          fmt_num (mape, "%.1f"), fmt_num (max_abs, "%.1f"));
  if (max_row >= 0)
    printf (" (row %" G_GINT64_FORMAT ")", max_row);
  printf (" (%s)\n", apart);
}

/* Rows whose V is not stated, as a planner sees them: MFU at each V that splits the
 * layers, peak memory, and the fastest V that fits (res_published_case_v_sweep). */
static void
print_v_sweep (const ResPublishedReport *r)
{
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "row", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "published MFU %", CLI_ALIGN_RIGHT);
  static const int vs[RES_PUB_N_VS] = { 1, 2, 4, 8 };
  for (int v = 0; v < RES_PUB_N_VS; v++)
    {
      g_autofree char *h = g_strdup_printf ("V = %d: MFU %% (GiB)", vs[v]);
      cli_table_add_column (t, h, CLI_ALIGN_RIGHT);
    }
  cli_table_add_column (t, "best that fits", CLI_ALIGN_LEFT);
  gboolean any = FALSE;
  for (guint i = 0; i < r->cases->len; i++)
    {
      const ResPublishedCase *c = r->cases->pdata[i];
      const ResPubVSweep *w = &c->v_sweep;
      if (w->n == 0)
        continue;
      any = TRUE;
      cli_table_add_row (t);
      cli_table_cell (t, "%" G_GINT64_FORMAT, c->row_id);
      cli_table_cell (t, "%s", fmt_num (c->published_mfu_pct, "%.1f"));
      for (int v = 0; v < RES_PUB_N_VS; v++)
        {
          int k = -1;
          for (int j = 0; j < w->n; j++)
            if (w->v[j] == vs[v])
              k = j;
          if (k < 0)
            cli_table_cell (t, "-");
          else
            cli_table_cell (t, "%s (%s%s)", fmt_num (w->mfu_pct[k], "%.1f"),
                            fmt_num (w->peak_bytes[k] / (1024.0 * 1024 * 1024), "%.1f"),
                            w->fits[k] ? "" : " OOM");
        }
      if (w->best < 0)
        cli_table_cell (t, "none");
      else if (isfinite (c->published_mfu_pct))
        {
          /* the difference to one decimal, without a "-0.0" */
          double d = round (10.0 * (w->mfu_pct[w->best] - c->published_mfu_pct)) / 10.0;
          cli_table_cell (t, "V = %d, %s (%s)", w->v[w->best],
                          fmt_num (w->mfu_pct[w->best], "%.1f"), fmt_num (d + 0.0, "%+.1f"));
        }
      else
        cli_table_cell (t, "V = %d, %s", w->v[w->best], fmt_num (w->mfu_pct[w->best], "%.1f"));
    }
  if (!any)
    return;
  printf ("rows with V not stated, as a planner sees them (validate runs the chunking the "
          "row's stack documents, else the smallest V that splits the layers; here each V, "
          "MFU in the row's convention, peak memory per GPU, and the fastest V that fits):\n");
  cli_table_print (t, stdout, "  ");
}

/* Rows predicted with the default stack because their framework cell names none tandem
 * knows: a silent guess in the table above otherwise (only --explain said so). */
static void
print_default_stack (const ResPublishedReport *r)
{
  g_autoptr (GString) ids = g_string_new (NULL);
  guint n = 0;
  for (guint i = 0; i < r->cases->len; i++)
    {
      const ResPublishedCase *c = r->cases->pdata[i];
      if (!c->predicted || c->stack_why == NULL
          || !g_str_has_prefix (c->stack_why, "framework not recognised"))
        continue;
      if (n++ < 12)
        g_string_append_printf (ids, "%s%" G_GINT64_FORMAT, n > 1 ? ", " : "", c->row_id);
    }
  if (n == 0)
    return;
  printf ("default stack: %u predicted row%s name%s a framework tandem does not recognise and "
          "%s read with megatron-core (row%s %s%s; tandem validate --explain ROW)\n", n,
          n == 1 ? "" : "s", n == 1 ? "s" : "", n == 1 ? "is" : "are", n == 1 ? "" : "s",
          ids->str, n > 12 ? ", ..." : "");
}

static void
print_text (const ResPublishedReport *r, gboolean breakdown)
{
  const ResPublishedSummary *s = &r->summary;
  /* s->n counts the dense dev rows only: a selection of MoE or held-out rows has rows too */
  if (s->n + s->n_moe + s->n_held > 0)
    {
      g_autoptr (CliTable) t = cli_table_new ();
      static const struct { const char *head; CliAlign align; } cols[] = {
        { "row_id", CLI_ALIGN_RIGHT }, { "model", CLI_ALIGN_LEFT }, { "gpus", CLI_ALIGN_RIGHT },
        { "plan", CLI_ALIGN_LEFT }, { "measured_s", CLI_ALIGN_RIGHT },
        { "predicted_s", CLI_ALIGN_RIGHT }, { "err_%", CLI_ALIGN_RIGHT },
        { "measured from", CLI_ALIGN_LEFT },
      };
      for (guint c = 0; c < G_N_ELEMENTS (cols); c++)
        cli_table_add_column (t, cols[c].head, cols[c].align);
      for (guint i = 0; i < r->cases->len; i++)
        {
          const ResPublishedCase *c = r->cases->pdata[i];
          if (!c->predicted)
            continue;
          g_autofree char *plan = res_published_case_plan_string (c);
          g_autofree char *model = flat (c->model_label);
          cli_table_add_row (t);
          cli_table_cell (t, "%" G_GINT64_FORMAT, c->row_id);
          cli_table_cell (t, "%s", model);
          cli_table_cell (t, "%" G_GINT64_FORMAT, c->n_gpus);
          cli_table_cell (t, "%s", plan ? plan : "-");
          cli_table_cell (t, "%s", fmt_num (c->measured_step_s, "%.3f"));
          cli_table_cell (t, "%s", fmt_num (c->predicted_step_s, "%.3f"));
          cli_table_cell (t, "%s", fmt_num (c->err_pct, "%+.1f"));
          cli_table_cell (t, "%s%s", c->measured_source, c->fits ? "" : " (OOM predicted)");
          if (breakdown)
            {
              g_autoptr (GString) line = g_string_new (NULL);
              g_string_append_printf (line, "        compute %s s, bubble %s s, exposed",
                                      fmt_num (c->predicted_compute_s, "%.3f"),
                                      fmt_num (c->predicted_bubble_s, "%.3f"));
              for (int k = 0; k < PROG_COMM_N; k++)
                g_string_append_printf (line, " %s %s", prog_comm_name (k),
                                        fmt_num (c->predicted_exposed_s[k], "%.3f"));
              g_string_append (line, " s");
              cli_table_add_note (t, line->str);
            }
        }
      cli_table_print (t, stdout, "");
    }
  printf ("%ssummary: %u predicted, %u skipped; MAPE %s%%, max |err| %s%%",
          s->n + s->n_moe + s->n_held > 0 ? "\n" : "", s->n, s->n_skipped, fmt_num (s->mape_pct, "%.1f"),
          fmt_num (s->max_abs_err_pct, "%.1f"));
  if (s->max_err_row_id >= 0)
    printf (" (row %" G_GINT64_FORMAT ")", s->max_err_row_id);
  printf ("\n");
  print_family_table (s->n_family, s->mape_family_pct);
  if (s->n_moe_rows > 0)
    print_apart_line ("moe", "mixture-of-experts rows", s->n_moe, s->n_moe_rows, s->mape_moe_pct,
                      s->max_abs_err_moe_pct, s->max_err_moe_row_id,
                      "apart from the summary above, which is the dense rows");
  if (s->n_held_rows > 0)
    {
      print_apart_line ("held out", "dense check rows", s->n_held, s->n_held_rows,
                        s->mape_held_pct, s->max_abs_err_held_pct, s->max_err_held_row_id,
                        "apart from the dev summary above");
      print_family_table (s->n_held_family, s->mape_held_family_pct);
    }
  print_default_stack (r);
  g_autoptr (CliTable) lt = cli_table_new ();
  cli_table_add_column (lt, "row", CLI_ALIGN_RIGHT);
  cli_table_add_column (lt, "predicted MFU %", CLI_ALIGN_RIGHT);
  cli_table_add_column (lt, "published MFU %", CLI_ALIGN_RIGHT);
  gboolean header = FALSE;
  for (guint i = 0; i < r->cases->len; i++)
    {
      const ResPublishedCase *c = r->cases->pdata[i];
      if (!c->predicted || g_strcmp0 (c->cluster_name, "h100-24k") != 0)
        continue;
      header = TRUE;
      cli_table_add_row (lt);
      cli_table_cell (lt, "%" G_GINT64_FORMAT, c->row_id);
      cli_table_cell (lt, "%s", fmt_num (c->predicted_mfu_pct[MODEL_FLOPS_PALM], "%.1f"));
      cli_table_cell (lt, "%s", fmt_num (c->published_mfu_pct, "%.1f"));
    }
  if (header)
    {
      printf ("Llama 3 rows, MFU (palm convention): predicted vs published\n");
      cli_table_print (lt, stdout, "  ");
    }
  print_v_sweep (r);
  if (r->mb_scaling != NULL && r->mb_scaling->len > 0)
    {
      printf ("micro-batch scaling (rows alike but for dp and the global batch; "
              "step = m x per micro-batch + fixed, least squares):\n");
      for (guint i = 0; i < r->mb_scaling->len; i++)
        {
          const ResPublishedMbScaling *g = r->mb_scaling->pdata[i];
          g_autoptr (GString) ids = g_string_new (NULL), ms = g_string_new (NULL);
          for (guint k = 0; k < g->row_ids->len; k++)
            {
              g_string_append_printf (ids, "%s%" G_GINT64_FORMAT, k ? ", " : "",
                                      g_array_index (g->row_ids, gint64, k));
              g_string_append_printf (ms, "%s%d", k ? ", " : "",
                                      g_array_index (g->micro_batches, int, k));
            }
          /* a fit whose fixed part is below zero is no time: said so (the measured steps
           * do not follow m x per micro-batch + fixed; two releases, other containers) */
          printf ("  rows %s (m %s): per micro-batch %s s measured, %s s predicted (%s%%); "
                  "fixed %s s measured%s, %s s predicted\n", ids->str, ms->str,
                  fmt_num (g->measured_per_mb_s, "%.4f"), fmt_num (g->predicted_per_mb_s, "%.4f"),
                  fmt_num (g->per_mb_err_pct, "%+.1f"), fmt_num (g->measured_fixed_s, "%.3f"),
                  g->measured_fixed_s < 0 ? " (below zero: the measured steps are not m x a "
                                            "micro-batch + a fixed part)" : "",
                  fmt_num (g->predicted_fixed_s, "%.3f"));
          for (int v = 0; v < g->n_vs; v++)
            printf ("    at V = %d: per micro-batch %s s predicted (%s%%), fixed %s s predicted\n",
                    g->vs[v], fmt_num (g->predicted_per_mb_by_v_s[v], "%.4f"),
                    fmt_num (100.0 * (g->predicted_per_mb_by_v_s[v] - g->measured_per_mb_s)
                             / g->measured_per_mb_s, "%+.1f"),
                    fmt_num (g->predicted_fixed_by_v_s[v], "%.3f"));
        }
    }
  if (s->n_skipped > 0)
    {
      printf ("\nskipped:\n");
      g_autoptr (CliTable) st = cli_table_new ();
      cli_table_add_column (st, "row_id", CLI_ALIGN_RIGHT);
      cli_table_add_column (st, "model", CLI_ALIGN_LEFT);
      cli_table_add_column (st, "why", CLI_ALIGN_LEFT);
      for (guint i = 0; i < r->cases->len; i++)
        {
          const ResPublishedCase *c = r->cases->pdata[i];
          if (c->predicted)
            continue;
          g_autofree char *model = flat (c->model_label);
          g_autofree char *why = flat (c->skip_reason);
          cli_table_add_row (st);
          if (c->row_id >= 1)
            cli_table_cell (st, "%" G_GINT64_FORMAT, c->row_id);
          else
            cli_table_cell (st, "-");   /* unreadable: the reason quotes the cell */
          cli_table_cell (st, "%s", model);
          cli_table_cell (st, "%s", why);
        }
      cli_table_print (st, stdout, "  ");
    }
}

/* The CSV's rows as the store's published table holds them: row_id, source, model,
 * gpu_type, n_gpus and the whole row as a JSON object of its cells. Rows without an
 * integer row_id are left out (the report lists them as skipped). The strings live in
 * `texts`. */
static GArray *
published_rows (const ResCsv *csv, GPtrArray *texts)
{
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (ResPublishedRow));
  for (guint r = 0; r < res_csv_n_rows (csv); r++)
    {
      gint64 id;
      if (!res_published_row_id (csv, r, &id))
        continue;
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      for (guint c = 0; c < csv->n_columns; c++)
        {
          json_builder_set_member_name (b, csv->columns[c]);
          json_builder_add_string_value (b, res_csv_get (csv, r, csv->columns[c]));
        }
      json_builder_end_object (b);
      g_autoptr (JsonGenerator) gen = json_generator_new ();
      g_autoptr (JsonNode) root = json_builder_get_root (b);
      json_generator_set_root (gen, root);
      char *json = json_generator_to_data (gen, NULL);
      g_ptr_array_add (texts, json);
      const char *source = res_csv_get (csv, r, "source");
      ResPublishedRow row = {
        .row_id = id,
        .source = *source != '\0' ? source : "(no source)",
        .model = res_csv_get (csv, r, "model"),
        .gpu_type = res_csv_get (csv, r, "gpu_type"),
        .n_gpus = res_published_row_gpus (csv, r),
        .row_json = json,
      };
      g_array_append_val (rows, row);
    }
  return rows;
}

/* --explain ROW: map and predict that row alone and say how each column was read; on
 * `cluster` (--cluster, NULL: the preset its gpu_type maps to). */
static int
explain_row (const ResCsv *csv, gint64 id, const char *const *cost, TopoCluster *cluster)
{
  for (guint r = 0; r < res_csv_n_rows (csv); r++)
    {
      gint64 v;
      if (!res_published_row_id (csv, r, &v) || v != id)
        continue;
      g_autoptr (ResPublishedCase) c = res_published_case_new_on (csv, r, cluster);
      if (cluster != NULL)
        printf ("on cluster %s (--cluster; %s GPUs), not the preset the row's gpu_type maps "
                "to\n", cluster->name, cli_fmt_count (cluster->n_devices));
      c->cost_overrides = cost;
      res_published_case_predict (c);
      g_autofree char *text = res_published_explain (csv, r, c);
      /* the row's cells are quoted in it: their controls as \xNN, its own lines kept */
      g_autofree char *shown = cli_printable (text, "\n");
      fputs (shown, stdout);
      return CLI_EXIT_OK;
    }
  /* the ids the file holds, for the hint (it said only "no row with that row_id"), and
   * the first id that is no whole number (a "4.5" the user may have meant) */
  gint64 lo = G_MAXINT64, hi = G_MININT64;
  const char *unread = NULL;
  for (guint r = 0; r < res_csv_n_rows (csv); r++)
    {
      gint64 v;
      if (res_published_row_id (csv, r, &v))
        {
          lo = MIN (lo, v);
          hi = MAX (hi, v);
        }
      else if (unread == NULL)
        unread = res_csv_get (csv, r, "row_id");
    }
  g_autofree char *also = unread != NULL
    ? g_strdup_printf ("; row_id '%s' is not a whole number, a row validate skips", unread)
    : g_strdup ("");
  if (lo > hi)
    return cli_fail (CLI_EXIT_USAGE, "--explain %" G_GINT64_FORMAT ": no row with that row_id "
                     "(hint: the file has no whole-number row_id%s)", id, also);
  return cli_fail (CLI_EXIT_USAGE, "--explain %" G_GINT64_FORMAT ": no row with that row_id "
                   "(hint: its row ids run from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT "%s)",
                   id, lo, hi, also);
}

static void
print_ranking (const ResPublishedReport *r)
{
  ResPublishedRanking rk;
  res_published_ranking (r, &rk);
  printf ("\nranking (pairs of different plans within one model, GPU type, GPU count and "
          "batch):\n  %u groups, %u pairs, %u ordered as measured (%s%%); measured more than "
          "5%% apart: %u pairs, %u ordered (%s%%)\n", rk.n_groups, rk.n_pairs, rk.n_ordered,
          fmt_num (rk.n_pairs ? 100.0 * rk.n_ordered / rk.n_pairs : NAN, "%.1f"),
          rk.n_pairs_wide, rk.n_ordered_wide,
          fmt_num (rk.n_pairs_wide ? 100.0 * rk.n_ordered_wide / rk.n_pairs_wide : NAN, "%.1f"));
  for (guint i = 0; i < rk.misordered->len; i++)
    printf ("  out of order: %s\n", (const char *) rk.misordered->pdata[i]);
  res_published_ranking_clear (&rk);
}

/* A column every row needs, absent from the header, would skip each row with a reason
 * that reads as an empty cell: refuse the file instead, naming the columns. gpu_type
 * is not needed when --cluster names the cluster; the measurement may be any of the
 * columns the mapping reads it from (results/published.h). */
static gboolean
check_columns (const ResCsv *csv, const char *path, gboolean cluster_given)
{
  static const char *const needed[] = { "gpu_type", "n_gpus", "n_layers", "hidden", "n_heads",
                                        "seq_len", "global_batch" };
  static const char *const measured[] = { "step_time_s", "tokens_per_s_total",
                                          "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu_pct" };
  g_autoptr (GString) missing = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (needed); i++)
    if (!(i == 0 && cluster_given) && res_csv_column (csv, needed[i]) < 0)
      g_string_append_printf (missing, "%s%s", missing->len ? ", " : "", needed[i]);
  if (missing->len > 0)
    {
      cli_fail (CLI_EXIT_USAGE, "%s: no %s column%s (hint: validate reads the columns of "
                "data/published-runs.csv; an empty cell is a value not stated, a missing "
                "column is a different file)", path, missing->str,
                strchr (missing->str, ',') ? "s" : "");
      return FALSE;
    }
  gboolean any = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (measured); i++)
    any = any || res_csv_column (csv, measured[i]) >= 0;
  if (!any)
    {
      cli_fail (CLI_EXIT_USAGE, "%s: no measurement column (one of step_time_s, "
                "tokens_per_s_total, tokens_per_s_per_gpu, tflops_per_gpu, mfu_pct): nothing "
                "to compare a prediction with", path);
      return FALSE;
    }
  if (res_csv_n_rows (csv) == 0)
    {
      cli_fail (CLI_EXIT_USAGE, "%s: no rows after the header", path);
      return FALSE;
    }
  return TRUE;
}

/* --ranking in --json: the counts print_ranking prints, and its out-of-order lines */
static JsonNode *
ranking_json (const ResPublishedReport *r)
{
  ResPublishedRanking rk;
  res_published_ranking (r, &rk);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "groups");
  json_builder_add_int_value (b, rk.n_groups);
  json_builder_set_member_name (b, "pairs");
  json_builder_add_int_value (b, rk.n_pairs);
  json_builder_set_member_name (b, "ordered");
  json_builder_add_int_value (b, rk.n_ordered);
  json_builder_set_member_name (b, "pairs_apart_5pct");
  json_builder_add_int_value (b, rk.n_pairs_wide);
  json_builder_set_member_name (b, "ordered_apart_5pct");
  json_builder_add_int_value (b, rk.n_ordered_wide);
  json_builder_set_member_name (b, "out_of_order");
  json_builder_begin_array (b);
  for (guint i = 0; i < rk.misordered->len; i++)
    json_builder_add_string_value (b, rk.misordered->pdata[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  res_published_ranking_clear (&rk);
  return json_builder_get_root (b);
}

int
cli_cmd_validate (int argc, char **argv)
{
  gboolean json = FALSE, breakdown = FALSE, ranking = FALSE, accuracy = FALSE;
  /* G_MININT64: not given (any id the user can type, negative ones too, is looked up) */
  gint64 explain = G_MININT64;
  g_autofree char *only = NULL, *gpu_type = NULL, *cluster_arg = NULL;
  g_auto (CliDbArgs) dba;
  cli_db_args_init (&dba);
  g_auto (GStrv) cost = NULL;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Machine-readable output", NULL },
    { "cost", 0, 0, G_OPTION_ARG_STRING_ARRAY, &cost,
      "Override a cost-model default for every row (calibration studies)", "KEY=VALUE" },
    CLI_DB_ENTRIES (&dba),
    CLI_NO_DB_ENTRY (&dba),
    { "breakdown", 0, 0, G_OPTION_ARG_NONE, &breakdown,
      "Under each row: predicted compute, bubble and exposed communication by kind", NULL },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only, "Only these rows (e.g. 1,2,15-24)",
      "ROW_IDS" },
    { "gpu-type", 0, 0, G_OPTION_ARG_STRING, &gpu_type,
      "Only rows whose gpu_type contains SUBSTR (any case)", "SUBSTR" },
    { "cluster", 0, 0, G_OPTION_ARG_STRING, &cluster_arg,
      "Every row on this cluster (a preset or your own cluster JSON) instead of the preset "
      "its gpu_type maps to", "NAME|FILE" },
    { "explain", 0, 0, G_OPTION_ARG_INT64, &explain,
      "How each column of row ROW was read, then its prediction (nothing stored)", "ROW" },
    { "ranking", 0, 0, G_OPTION_ARG_NONE, &ranking,
      "After the summary: within groups of one model, GPU type, size and batch, the share "
      "of row pairs the prediction orders as measured (with --json: its \"ranking\" object)", NULL },
    { "accuracy-json", 0, 0, G_OPTION_ARG_NONE, &accuracy,
      "Print only the accuracy table that predict and search quote (mean error by kind of "
      "run and device family, and the ranking), the text of data/accuracy.json", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("FILE.csv");
  g_option_context_set_summary (octx,
    "Predict the published training runs of a CSV (the columns of "
    "data/published-runs.csv) and compare with their measured step times: per row the "
    "relative error, then n, MAPE and the worst row. Rows that cannot be mapped to a "
    "cluster preset, model and plan are listed with the reason. The mapping rules are "
    "documented in results/published.h.");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!cli_option_context_parse (octx, (const GOptionEntry *const[]) { entries, NULL }, &argc,
                                 &argv, &error))
    return cli_fail_options (octx, error, "tandem validate");
  if (argc != 2)
    return cli_fail (CLI_EXIT_USAGE, "expected one CSV file (hint: tandem validate "
                     "data/published-runs.csv)");

  /* the accuracy table summarizes the whole CSV on its own clusters with the device
   * defaults: a subset or an override would write figures predict then quotes as the
   * repository's */
  if (accuracy && (only != NULL || gpu_type != NULL || cluster_arg != NULL || cost != NULL
                   || explain != G_MININT64))
    return cli_fail (CLI_EXIT_USAGE, "--accuracy-json summarizes every row of the CSV as "
                     "validate maps it (hint: drop --only, --gpu-type, --cluster, --cost and "
                     "--explain)");
  /* --explain prints one row's reading as text: a JSON request or a row filter beside it
   * would be ignored (it printed text under --json, exit 0) */
  if (explain != G_MININT64 && (json || only != NULL || gpu_type != NULL || ranking || breakdown))
    return cli_fail (CLI_EXIT_USAGE, "--explain %" G_GINT64_FORMAT " prints that row's reading "
                     "as text and takes no %s (hint: drop it; the row's figures as JSON: "
                     "tandem validate FILE --json --only %" G_GINT64_FORMAT ")", explain,
                     json ? "--json" : only != NULL ? "--only" : gpu_type != NULL
                     ? "--gpu-type" : ranking ? "--ranking" : "--breakdown", explain);
  g_autofree char *gpu_type_blank = gpu_type != NULL ? g_strstrip (g_strdup (gpu_type)) : NULL;
  if (gpu_type_blank != NULL && *gpu_type_blank == '\0')
    return cli_fail (CLI_EXIT_USAGE, "--gpu-type '%s' is empty: it would keep every row "
                     "(hint: a part of a gpu_type such as H100, or leave the flag out)",
                     gpu_type);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *bad_id = NULL;
  if (only != NULL && !parse_ids (only, ids, &bad_id))
    return cli_fail (CLI_EXIT_USAGE, "--only '%s': %s (hint: row ids like 1,2,15-24, no "
                     "empty item)", only, bad_id != NULL ? bad_id
                     : "item '' is not a row id or a range low-high");

  if (!cli_db_args_check (&dba, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  if (!dba.no_db && !cli_fallback_check (&error))
    return cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
  g_autoptr (TopoCluster) cluster = NULL;
  if (cluster_arg != NULL)
    {
      cluster = topo_cluster_lookup (cluster_arg, &error);
      if (cluster == NULL)
        {
          g_autofree char *text = cli_lookup_error_text (error, cluster_arg);
          return cli_fail (CLI_EXIT_USAGE, "--cluster: %s", text);
        }
    }
  /* --cost checked once, before any row: a bad key or value was the skip reason of every
   * row, and the run ended "0 predicted, 242 skipped" with exit 0 */
  if (cost != NULL)
    {
      SimCostOptions co;
      sim_cost_options_init (&co, cluster);
      if (!sim_cost_options_apply (&co, (const char *const *) cost, &error))
        return cli_fail (CLI_EXIT_USAGE, "--cost: %s", error->message);
    }
  g_autoptr (ResCsv) csv = res_csv_load (argv[1], &error);
  if (csv == NULL)
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  if (!check_columns (csv, argv[1], cluster != NULL))
    return CLI_EXIT_USAGE;
  /* records shorter than the header: read, their missing cells empty, and said (stderr,
   * so that --json stays one document) */
  for (char **w = csv->short_rows; w != NULL && *w != NULL; w++)
    {
      g_autofree char *shown = cli_printable (*w, NULL);
      g_printerr ("tandem: warning: %s\n", shown);
    }

  if (explain != G_MININT64)
    return explain_row (csv, explain, (const char *const *) cost, cluster);

  ResPublishedOptions opts = {
    .only_ids = only != NULL ? (const gint64 *) ids->data : NULL,
    .n_only_ids = ids->len,
    .gpu_type_substr = gpu_type,
    .cost_overrides = (const char *const *) cost,
    .progress = isatty (fileno (stderr)) ? on_progress : NULL,
    .cluster = cluster,
  };
  g_autoptr (ResPublishedReport) report = res_published_validate (csv, &opts);
  /* a filter that keeps no row (a typo such as --gpu-type H10O, or an id past the last
   * row) printed "0 predicted" and exited 0, which reads as a validation that passed */
  if ((only != NULL || gpu_type != NULL) && report->cases->len == 0)
    {
      /* the ids and a few gpu types (without their notes in parentheses) to pick from */
      g_autoptr (GPtrArray) types = g_ptr_array_new_with_free_func (g_free);
      gint64 lo = G_MAXINT64, hi = G_MININT64;
      for (guint r = 0; r < res_csv_n_rows (csv); r++)
        {
          gint64 id;
          if (res_published_row_id (csv, r, &id))
            lo = MIN (lo, id), hi = MAX (hi, id);
          const char *t = res_csv_get (csv, r, "gpu_type");
          char *base = g_strstrip (g_strndup (t, strcspn (t, "(")));
          gboolean seen = *base == '\0' || types->len >= 8;
          for (guint k = 0; k < types->len && !seen; k++)
            seen = g_ascii_strcasecmp (g_ptr_array_index (types, k), base) == 0;
          if (seen)
            g_free (base);
          else
            g_ptr_array_add (types, base);
        }
      g_ptr_array_add (types, NULL);
      g_autofree char *list = g_strjoinv (", ", (char **) types->pdata);
      g_autofree char *range = lo <= hi
        ? g_strdup_printf ("row ids %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT, lo, hi)
        : g_strdup ("no whole-number row id");
      return cli_fail (CLI_EXIT_USAGE, "%s%s%s%s%s%s selects no row of %s (%s; gpu types such "
                       "as %s) (hint: --only takes ids of its row_id column, --gpu-type a part "
                       "of a gpu_type, any case)", only ? "--only " : "", only ? only : "",
                       only && gpu_type ? " with " : "", gpu_type ? "--gpu-type '" : "",
                       gpu_type ? gpu_type : "", gpu_type ? "'" : "", argv[1], range, list);
    }

  /* the table data/accuracy.json holds (results/accuracy.h): nothing else printed or
   * stored */
  if (accuracy)
    {
      ResAccuracy acc;
      res_accuracy_from_report (report, &acc);
      g_autofree char *text = res_accuracy_to_json (&acc);
      puts (text);
      return CLI_EXIT_OK;
    }
  /* print, then store (docs/contracts.md); --json stores first to carry the run id */
  CliStored st;
  cli_stored_init (&st, &dba);
  /* every predicted row is stored (held-out and MoE rows too: a run of those alone was
   * dropped without a word, its JSON saying "--no-db"); with none predicted there is
   * nothing to store, and the output says so */
  guint n_predicted = 0;
  for (guint i = 0; i < report->cases->len; i++)
    n_predicted += ((const ResPublishedCase *) report->cases->pdata[i])->predicted ? 1 : 0;
  st.tried = !dba.no_db && n_predicted > 0;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  res_published_report_to_json (report, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  if (json && ranking)
    json_object_set_member (json_node_get_object (root), "ranking", ranking_json (report));
  if (!json)
    {
      print_text (report, breakdown);
      if (ranking)
        print_ranking (report);
      printf ("\n");
      fflush (stdout);
    }
  if (st.tried)
    {
      gint64 run_id = -1;
      g_autoptr (ResStore) store = cli_store_open (&dba, FALSE, &error);
      /* the published rows first, so that validation_rows can join them */
      g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GArray) pub = published_rows (csv, texts);
      if (store != NULL
          && res_store_import_published (store, (const ResPublishedRow *) pub->data, pub->len,
                                         &error))
        run_id = res_published_report_store (report, store, NULL, &error);
      cli_stored_set (&st, run_id, error);
      g_clear_error (&error);
    }
  const gboolean nothing = !dba.no_db && n_predicted == 0;
  cli_stored_apply (&st, "validate", root);
  if (nothing)
    json_object_set_string_member (json_node_get_object (root), "store_error",
                                   "no row was predicted: nothing to store");
  if (json)
    {
      g_autofree char *text = util_json_to_data (root, TRUE);
      printf ("%s\n", text);
      cli_stored_print_error (&st);
    }
  else if (nothing)
    printf ("not stored: no row was predicted\n");
  else
    cli_stored_print (&st, "");
  int status = cli_stored_status (&st);
  cli_stored_clear (&st);
  return status;
}
