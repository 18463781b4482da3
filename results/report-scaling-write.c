/* results/report-scaling-write.c - the scaling table as JSON, CSV, Markdown and one
 * self-contained HTML page with its plots; each writer reads the table only. */
#include "results/report-private.h"
#include "util/output.h"
#include "util/input.h"

#include <math.h>

static const char *
mode_name (const ReportScaling *r)
{
  return r->mode == REPORT_STRONG ? "strong" : "weak";
}

static void
row_to_json (const ReportScaling *r, const ReportScalingRow *row, JsonBuilder *b)
{
  json_builder_begin_object (b);
  util_json_member_string (b, "cluster", row->cluster);
  json_builder_set_member_name (b, "gpus");
  json_builder_add_int_value (b, row->gpus);
  util_json_member_string (b, "status", row->status);
  util_json_member_string (b, "reason", row->reason);
  util_json_member_string (b, "plan", row->plan);
  util_json_member_string (b, "flags", row->flags);
  /* a weak-scaled batch that is no whole or past the cap has none: null, not 0 */
  json_builder_set_member_name (b, "global_batch");
  if (row->global_batch > 0)
    json_builder_add_int_value (b, row->global_batch);
  else
    json_builder_add_null_value (b);
  if (row->predicted)
    {
      util_json_member_number (b, "step_time_s", row->step_time_s);
      util_json_member_number (b, "tokens_per_s", row->tokens_per_s);
      util_json_member_number (b, "tokens_per_s_per_gpu", row->tokens_per_s_per_gpu);
      util_json_member_string (b, "flops_convention", model_flop_convention_name (r->conv));
      json_builder_set_member_name (b, "mfu");
      json_builder_begin_object (b);
      for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
        util_json_member_number (b, model_flop_convention_name (c), row->mfu_by_conv[c]);
      json_builder_end_object (b);
      util_json_member_number (b, "hfu", row->hfu);
      util_json_member_number (b, "speedup", row->speedup);
      util_json_member_number (b, "efficiency", row->efficiency);
      util_json_member_number (b, "bubble_fraction", row->bubble_fraction);
      util_json_member_number (b, "compute_s", row->compute_s);
      /* both, in the kinds' order, as a prediction's JSON (docs/contracts.md); rows had
       * only the exposed part */
      json_builder_set_member_name (b, "comm_s");
      json_builder_begin_object (b);
      for (int k = 0; k < REPORT_COMM_N; k++)
        util_json_member_number (b, report_comm_name (k), row->comm_s[k]);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "exposed_comm_s");
      json_builder_begin_object (b);
      for (int k = 0; k < REPORT_COMM_N; k++)
        util_json_member_number (b, report_comm_name (k), row->exposed_s[k]);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "peak_memory_bytes");
      json_builder_add_int_value (b, (gint64) row->peak_memory_bytes);
      json_builder_set_member_name (b, "memory_bytes");
      json_builder_begin_object (b);
      for (int k = 0; k < PLAN_MEM_N; k++)
        {
          json_builder_set_member_name (b, plan_mem_category_name (k));
          json_builder_add_int_value (b, (gint64) row->memory_bytes[k]);
        }
      json_builder_end_object (b);
      json_builder_set_member_name (b, "hbm_bytes");
      json_builder_add_int_value (b, (gint64) row->capacity_bytes);
      json_builder_set_member_name (b, "fits");
      json_builder_add_boolean_value (b, row->fits);
    }
  json_builder_end_object (b);
}

void
report_scaling_to_json (const ReportScaling *r, JsonBuilder *b)
{
  json_builder_begin_object (b);
  util_json_member_string (b, "report", "scaling");
  util_json_member_string (b, "model", r->model);
  util_json_member_string (b, "scaling", mode_name (r));
  util_json_member_string (b, "plan_per_size", r->plan_per_size == REPORT_PLAN_FIXED ? "fixed" : "search");
  json_builder_set_member_name (b, "gbs");
  json_builder_add_int_value (b, r->gbs);
  util_json_member_string (b, "flops_convention", model_flop_convention_name (r->conv));
  json_builder_set_member_name (b, "bases");
  json_builder_begin_array (b);
  for (guint c = 0; c < r->clusters->len; c++)
    {
      json_builder_begin_object (b);
      util_json_member_string (b, "cluster", g_ptr_array_index (r->clusters, c));
      json_builder_set_member_name (b, "gpus");
      int g = g_array_index (r->base_gpus, int, c);
      if (g > 0)
        json_builder_add_int_value (b, g);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "fits");
      json_builder_add_boolean_value (b, report_scaling_base_fits (r, c));
      if (r->accuracy != NULL && c < r->accuracy->len)
        util_json_member_string (b, "accuracy", g_ptr_array_index (r->accuracy, c));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->rows->len; i++)
    row_to_json (r, g_ptr_array_index (r->rows, i), b);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "measured");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->measured->len; i++)
    {
      const ReportMeasuredPoint *m = g_ptr_array_index (r->measured, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "run_id");
      json_builder_add_int_value (b, m->run_id);
      util_json_member_string (b, "cluster", m->cluster);
      json_builder_set_member_name (b, "gpus");
      json_builder_add_int_value (b, m->gpus);
      util_json_member_string (b, "plan", m->plan);
      util_json_member_number (b, "measured_step_s", m->measured_step_s);
      util_json_member_number (b, "measured_tokens_per_s", m->measured_tokens_per_s);
      util_json_member_number (b, "predicted_step_s", m->predicted_step_s);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "measured_apart");
  json_builder_add_int_value (b, r->measured_apart);
  json_builder_end_object (b);
}

char *
report_scaling_csv (const ReportScaling *r)
{
  GString *s = g_string_new ("cluster,gpus,plan,global_batch,step_time_s,tokens_per_s,"
                             "tokens_per_s_per_gpu,flops_convention,mfu,hfu,speedup,efficiency,"
                             "bubble_fraction,compute_s,exposed_tp_s,exposed_cp_s,exposed_pp_s,"
                             "exposed_dp_s,exposed_ep_s,peak_memory_bytes,fits,status,reason\n");
  for (guint i = 0; i < r->rows->len; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      report_csv_field (s, row->cluster);
      g_string_append_printf (s, ",%d,", row->gpus);
      report_csv_field (s, row->plan);
      if (row->global_batch > 0)
        g_string_append_printf (s, ",%d,", row->global_batch);
      else
        g_string_append (s, ",,");
      if (row->predicted)
        {
          const double v[] = { row->step_time_s, row->tokens_per_s, row->tokens_per_s_per_gpu };
          for (guint k = 0; k < G_N_ELEMENTS (v); k++)
            report_csv_number (s, v[k]), g_string_append_c (s, ',');
          g_string_append_printf (s, "%s,", model_flop_convention_name (r->conv));
          const double w[] = { row->mfu, row->hfu, row->speedup, row->efficiency,
                               row->bubble_fraction, row->compute_s,
                               row->exposed_s[REPORT_COMM_TP], row->exposed_s[REPORT_COMM_CP],
                               row->exposed_s[REPORT_COMM_PP], row->exposed_s[REPORT_COMM_DP],
                               row->exposed_s[REPORT_COMM_EP] };
          for (guint k = 0; k < G_N_ELEMENTS (w); k++)
            report_csv_number (s, w[k]), g_string_append_c (s, ',');
          g_string_append_printf (s, "%" G_GUINT64_FORMAT ",%s,", row->peak_memory_bytes,
                                  row->fits ? "true" : "false");
        }
      else
        g_string_append (s, ",,,,,,,,,,,,,,,,,");   /* 16 figures + fits, all unknown */
      report_csv_field (s, row->status);
      g_string_append_c (s, ',');
      report_csv_field (s, row->reason);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

static const char *
base_text (const ReportScaling *r, guint c, char *buf, gsize n)
{
  return report_scaling_base_text (r, c, buf, n);
}

static char *
summary_line (const ReportScaling *r)
{
  g_autofree char *clusters = g_strjoinv (", ", (char **) r->clusters->pdata);
  if (r->mode == REPORT_STRONG)
    return g_strdup_printf ("%s on %s, strong scaling at a fixed global batch of %d sequences; "
                            "plan per size: %s. S = T_base / T_G, E = S x G_base / G.",
                            r->model, clusters, r->gbs,
                            r->plan_per_size == REPORT_PLAN_FIXED
                            ? "the given plan scaled in data parallelism" : "searched");
  return g_strdup_printf ("%s on %s, weak scaling: global batch %d sequences at the smallest "
                          "size, growing in proportion to the GPUs; plan per size: %s. "
                          "E = T_base / T_G.", r->model, clusters, r->gbs,
                          r->plan_per_size == REPORT_PLAN_FIXED
                          ? "the given plan scaled in data parallelism" : "searched");
}

static const char *
cell_bytes (char *buf, gsize n, guint64 v)
{
  g_snprintf (buf, n, "%.1f GiB", (double) v / (1024.0 * 1024 * 1024));
  return buf;
}

/* One table row's cells, shared by Markdown and HTML (sep between cells). */
static void
row_cells (const ReportScaling *r, const ReportScalingRow *row, GPtrArray *cells)
{
  char b[160];
  g_ptr_array_add (cells, g_strdup (row->cluster));
  g_ptr_array_add (cells, g_strdup_printf ("%d", row->gpus));
  g_ptr_array_add (cells, g_strdup (row->plan ? row->plan : "-"));
  if (!row->predicted)
    {
      for (int k = 0; k < 14; k++)
        g_ptr_array_add (cells, g_strdup ("-"));
    }
  else
    {
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.3f", row->step_time_s)));
      g_ptr_array_add (cells, report_fmt_count (row->tokens_per_s));
      g_ptr_array_add (cells, report_fmt_count (row->tokens_per_s_per_gpu));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.1f%%", row->mfu * 100)));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.1f%%", row->hfu * 100)));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.2f", row->speedup)));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.1f%%",
                                                    row->efficiency * 100)));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.1f%%",
                                                    row->bubble_fraction * 100)));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.3f",
                                                    row->exposed_s[REPORT_COMM_TP])));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.3f",
                                                    row->exposed_s[REPORT_COMM_PP])));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.3f",
                                                    row->exposed_s[REPORT_COMM_DP])));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.3f",
                                                    row->exposed_s[REPORT_COMM_CP])));
      g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.3f",
                                                    row->exposed_s[REPORT_COMM_EP])));
      g_ptr_array_add (cells, g_strdup (cell_bytes (b, sizeof b, row->peak_memory_bytes)));
    }
  g_ptr_array_add (cells, row->reason ? g_strdup_printf ("%s: %s", row->status, row->reason)
                                      : g_strdup (row->status));
}

static const char *const header[] = {
  "cluster", "GPUs", "plan", "step s", "tokens/s", "tokens/s/GPU", "MFU", "HFU", "speed-up",
  "efficiency", "bubble", "exp. TP s", "exp. PP s", "exp. DP s", "exp. CP s", "exp. EP s",
  "peak mem/GPU", "status",
};


char *
report_scaling_markdown (const ReportScaling *r, const char *const *pngs)
{
  GString *s = g_string_new (NULL);
  g_autofree char *summary = summary_line (r);
  g_autofree char *model_md = report_md_escaped (r->model);
  g_autofree char *summary_md = report_md_escaped (summary);
  g_string_append_printf (s, "# Scaling report: %s\n\n%s\n\n", model_md, summary_md);
  for (guint c = 0; c < r->clusters->len; c++)
    {
      char b[160];
      g_autofree char *cluster_md = report_md_escaped (g_ptr_array_index (r->clusters, c));
      g_autofree char *base_md = report_md_escaped (base_text (r, c, b, sizeof b));
      g_string_append_printf (s, "- base of %s: %s\n", cluster_md, base_md);
      if (r->accuracy != NULL && c < r->accuracy->len)
        {
          g_string_append_printf (s, "- accuracy on %s: ", cluster_md);
          report_md_escape (s, g_ptr_array_index (r->accuracy, c));
          g_string_append_c (s, '\n');
        }
    }
  g_string_append_printf (s, "- MFU in the %s FLOP convention; HFU counts executed FLOPs "
                          "(recompute included)\n\n", model_flop_convention_name (r->conv));
  g_string_append (s, "|");
  for (guint k = 0; k < G_N_ELEMENTS (header); k++)
    g_string_append_printf (s, " %s |", header[k]);
  g_string_append (s, "\n|");
  for (guint k = 0; k < G_N_ELEMENTS (header); k++)
    g_string_append (s, k < 3 || k == G_N_ELEMENTS (header) - 1 ? "---|" : "--:|");
  g_string_append_c (s, '\n');
  for (guint i = 0; i < r->rows->len; i++)
    {
      g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
      row_cells (r, g_ptr_array_index (r->rows, i), cells);
      g_string_append (s, "|");
      for (guint k = 0; k < cells->len; k++)
        {
          g_string_append_c (s, ' ');
          report_md_escape (s, g_ptr_array_index (cells, k));
          g_string_append (s, " |");
        }
      g_string_append_c (s, '\n');
    }
  if (r->measured->len > 0)
    {
      g_string_append (s, "\nMeasured points (stored `run` rows of the same model and cluster, "
                       "at a size of the report with its batch, sequence length and "
                       "dtype):\n\n"
                       "| run | cluster | GPUs | plan | measured step s | predicted step s |\n"
                       "|--:|---|--:|---|--:|--:|\n");
      for (guint i = 0; i < r->measured->len; i++)
        {
          const ReportMeasuredPoint *m = g_ptr_array_index (r->measured, i);
          char a[32], b[32];
          g_autofree char *cluster_md = report_md_escaped (m->cluster);
          g_autofree char *plan_md = report_md_escaped (m->plan ? m->plan : "-");
          g_string_append_printf (s, "| %" G_GINT64_FORMAT " | %s | %d | %s | %s | %s |\n",
                                  m->run_id, cluster_md, m->gpus, plan_md,
                                  report_fmt (a, sizeof a, "%.4f", m->measured_step_s),
                                  report_fmt (b, sizeof b, "%.4f", m->predicted_step_s));
        }
    }
  if (r->measured_apart > 0)
    g_string_append_printf (s, "\n%u stored run%s of the model on %s left out: another "
                            "size, global batch, sequence length or dtype than the report's\n",
                            r->measured_apart, r->measured_apart == 1 ? "" : "s",
                            r->clusters->len == 1 ? "this cluster" : "these clusters");
  if (pngs != NULL)
    {
      g_string_append_c (s, '\n');
      for (guint i = 0; pngs[i]; i++)
        g_string_append_printf (s, "![%s](%s)\n", pngs[i], pngs[i]);
    }
  return g_string_free (s, FALSE);
}

typedef void (*ScalingPlot) (const ReportScaling *, cairo_t *, double, double);
static const struct {
  const char *png;
  ScalingPlot draw;
  const char *alt;
  const char *caption;
} scaling_plots[] = {
  { "throughput.png", report_plot_throughput, "Throughput against GPUs",
    "Predicted tokens/s against GPUs on log-log axes; the dashed line is linear scaling from "
    "the base point. Hollow markers do not fit in HBM." },
  { "efficiency.png", report_plot_efficiency, "Scaling efficiency against GPUs",
    "Efficiency E_G against the base of each cluster; 100% is linear scaling." },
  { "breakdown.png", report_plot_breakdown, "Where the step goes",
    "Share of the step time per size: compute, pipeline bubble and the communication that "
    "compute waits on (exposed), by kind; means over pipeline stages as predict reports them." },
  { "memory.png", report_plot_memory, "Memory per GPU",
    "Peak memory per GPU (the fullest pipeline stage) by category, against the device's HBM." },
};

static void
html_table (GString *s, const ReportScaling *r)
{
  g_string_append (s, "<div class=\"scroll\"><table>\n<tr>");
  for (guint k = 0; k < G_N_ELEMENTS (header); k++)
    g_string_append_printf (s, "<th%s>%s</th>", k < 3 || k == G_N_ELEMENTS (header) - 1
                            ? " class=\"l\"" : "", header[k]);
  g_string_append (s, "</tr>\n");
  for (guint i = 0; i < r->rows->len; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
      row_cells (r, row, cells);
      g_string_append_printf (s, "<tr%s>", g_str_equal (row->status, "ok") ? "" : " class=\"bad\"");
      for (guint k = 0; k < cells->len; k++)
        {
          g_string_append_printf (s, "<td%s>", k == cells->len - 1 ? " class=\"l w\""
                                  : k < 3 ? " class=\"l\"" : "");
          report_html_escape (s, g_ptr_array_index (cells, k));
          g_string_append (s, "</td>");
        }
      g_string_append (s, "</tr>\n");
    }
  g_string_append (s, "</table></div>\n");
}

static char *
scaling_html (const ReportScaling *r, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *title = g_strdup_printf ("Scaling report: %s", r->model);
  report_html_begin (s, title);
  g_string_append (s, "<h1>");
  report_html_escape (s, title);
  g_string_append (s, "</h1>\n<p>");
  g_autofree char *summary = summary_line (r);
  report_html_escape (s, summary);
  g_string_append (s, "</p>\n<dl>\n");
  for (guint c = 0; c < r->clusters->len; c++)
    {
      char b[160];
      g_string_append (s, "<dt>base of ");
      report_html_escape (s, g_ptr_array_index (r->clusters, c));
      g_string_append (s, "</dt><dd>");
      report_html_escape (s, base_text (r, c, b, sizeof b));
      g_string_append (s, "</dd>\n");
      if (r->accuracy != NULL && c < r->accuracy->len)
        {
          g_string_append (s, "<dt>accuracy on ");
          report_html_escape (s, g_ptr_array_index (r->clusters, c));
          g_string_append (s, "</dt><dd>");
          report_html_escape (s, g_ptr_array_index (r->accuracy, c));
          g_string_append (s, "</dd>\n");
        }
    }
  g_string_append_printf (s, "<dt>FLOP convention</dt><dd>%s (MFU); HFU counts executed FLOPs, "
                          "recompute included</dd>\n</dl>\n",
                          model_flop_convention_name (r->conv));

  g_string_append (s, "<h2>Plots</h2>\n");
  for (guint i = 0; i < G_N_ELEMENTS (scaling_plots); i++)
    {
      g_autofree char *uri = report_plot_svg_uri ((ReportPlotFunc) scaling_plots[i].draw, r,
                                                  error);
      if (uri == NULL)
        return NULL;
      report_html_figure (s, uri, scaling_plots[i].alt, scaling_plots[i].caption);
    }
  g_string_append (s, "<h2>Figures per size</h2>\n");
  html_table (s, r);
  if (r->measured->len > 0)
    {
      g_string_append (s, "<h2>Measured points</h2>\n<table>\n<tr><th>run</th><th class=\"l\">"
                       "cluster</th><th>GPUs</th><th class=\"l\">plan</th><th>measured step s"
                       "</th><th>predicted step s</th></tr>\n");
      for (guint i = 0; i < r->measured->len; i++)
        {
          const ReportMeasuredPoint *m = g_ptr_array_index (r->measured, i);
          char a[32], b[32];
          g_string_append_printf (s, "<tr><td>%" G_GINT64_FORMAT "</td><td class=\"l\">", m->run_id);
          report_html_escape (s, m->cluster);
          g_string_append_printf (s, "</td><td>%d</td><td class=\"l\">", m->gpus);
          report_html_escape (s, m->plan);
          g_string_append_printf (s, "</td><td>%s</td><td>%s</td></tr>\n",
                                  report_fmt (a, sizeof a, "%.4f", m->measured_step_s),
                                  report_fmt (b, sizeof b, "%.4f", m->predicted_step_s));
        }
      g_string_append (s, "</table>\n");
    }
  if (r->measured_apart > 0)
    g_string_append_printf (s, "<p>%u stored run%s of the model on %s left out: another "
                            "size, global batch, sequence length or dtype than the report's."
                            "</p>\n", r->measured_apart, r->measured_apart == 1 ? "" : "s",
                            r->clusters->len == 1 ? "this cluster" : "these clusters");
  report_html_end (s);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gboolean
scaling_stage (gconstpointer data, const char *dir, guint formats, gboolean force,
              GPtrArray *staged, GError **error)
{
  const ReportScaling *r = data;
  const char *names[16];
  guint n = 0;
  if (formats & REPORT_FORMAT_HTML)
    names[n++] = "report.html";
  if (formats & REPORT_FORMAT_MD)
    names[n++] = "report.md";
  if (formats & REPORT_FORMAT_CSV)
    names[n++] = "report.csv";
  if (formats & REPORT_FORMAT_JSON)
    names[n++] = "report.json";
  if (formats & REPORT_FORMAT_PNG)
    for (guint i = 0; i < G_N_ELEMENTS (scaling_plots); i++)
      names[n++] = scaling_plots[i].png;
  names[n] = NULL;
  if (!report_dir_prepare (dir, names, force, error))
    return FALSE;
  const char *pngs[G_N_ELEMENTS (scaling_plots) + 1] = { NULL };
  if (formats & REPORT_FORMAT_PNG)
    for (guint i = 0; i < G_N_ELEMENTS (scaling_plots); i++)
      {
        if (!report_plot_png ((ReportPlotFunc) scaling_plots[i].draw, r, dir,
                              scaling_plots[i].png, staged, error))
          return FALSE;
        pngs[i] = scaling_plots[i].png;
      }
  if (formats & REPORT_FORMAT_HTML)
    {
      g_autofree char *html = scaling_html (r, error);
      if (html == NULL || !report_file_write (dir, "report.html", html, -1, staged, error))
        return FALSE;
    }
  if (formats & REPORT_FORMAT_MD)
    {
      g_autofree char *md = report_scaling_markdown (r, (formats & REPORT_FORMAT_PNG) ? pngs : NULL);
      if (!report_file_write (dir, "report.md", md, -1, staged, error))
        return FALSE;
    }
  if (formats & REPORT_FORMAT_CSV)
    {
      g_autofree char *csv = report_scaling_csv (r);
      if (!report_file_write (dir, "report.csv", csv, -1, staged, error))
        return FALSE;
    }
  if (formats & REPORT_FORMAT_JSON)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      report_scaling_to_json (r, b);
      if (!report_json_write (dir, "report.json", b, staged, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
report_scaling_write (const ReportScaling *r, const char *dir, guint formats, gboolean force,
                      GPtrArray *written, GError **error)
{
  return report_write_staged (scaling_stage, r, dir, formats, force, written, error);
}
