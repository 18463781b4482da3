/* results/report-validation.c - predicted against measured: the stored `run` rows (term
 * by term) and the published rows a stored `validate` run checked (step time); a scatter
 * with y = x and a +-10% band, the error per term, and the worst rows. */
#include "results/report-private.h"
#include "util/output.h"
#include "util/input.h"

#include <math.h>
#include <stdlib.h>

static const char *const term_names[] = {
  "step time", "compute", "bubble", "exposed tp", "exposed cp", "exposed ep", "exposed pp",
  "exposed dp", "peak memory",
};
G_STATIC_ASSERT (G_N_ELEMENTS (term_names) == REPORT_TERM_N);

const char *
report_term_name (ReportTerm t)
{
  g_return_val_if_fail (t < REPORT_TERM_N, "?");
  return term_names[t];
}

/* CSV column stems, one per term. */
static const char *const term_keys[] = {
  "step", "compute", "bubble", "exposed_tp", "exposed_cp", "exposed_ep", "exposed_pp",
  "exposed_dp", "memory",
};

static void
vrow_free (ReportValidationRow *row)
{
  if (row == NULL)
    return;
  g_free (row->kind);
  g_free (row->model);
  g_free (row->cluster);
  g_free (row->plan);
  g_free (row);
}

void
report_validation_free (ReportValidation *v)
{
  if (v == NULL)
    return;
  g_clear_pointer (&v->rows, g_ptr_array_unref);
  g_free (v);
}

/* 100 (pred - meas) / meas; unknown where either is unknown or the measurement is 0
 * (a relative error of nothing is not defined, and two zeros say nothing). */
static double
err_pct (double pred, double meas)
{
  if (!isfinite (pred) || !isfinite (meas) || meas == 0)
    return NAN;
  return 100.0 * (pred - meas) / meas;
}

static void
terms_of (const ResMetrics *m, double *out)
{
  out[REPORT_TERM_STEP] = m->step_time_s;
  out[REPORT_TERM_COMPUTE] = m->compute_s;
  out[REPORT_TERM_BUBBLE] = m->bubble_fraction * m->step_time_s;
  static const struct { ReportTerm t; ResComm c; } comm[] = {
    { REPORT_TERM_TP, RES_COMM_TP }, { REPORT_TERM_CP, RES_COMM_CP },
    { REPORT_TERM_EP, RES_COMM_EP }, { REPORT_TERM_PP, RES_COMM_PP },
    { REPORT_TERM_DP, RES_COMM_DP },
  };
  for (guint i = 0; i < G_N_ELEMENTS (comm); i++)
    out[comm[i].t] = m->exposed_s[comm[i].c];
  out[REPORT_TERM_MEMORY] = m->peak_memory_bytes >= 0 ? (double) m->peak_memory_bytes : NAN;
}

static ReportValidationRow *
vrow_new (const ResRunRecord *rec, const char *kind)
{
  ReportValidationRow *row = g_new0 (ReportValidationRow, 1);
  row->run_id = rec->run_id;
  row->kind = g_strdup (kind);
  row->model = g_strdup (rec->info.model);
  row->cluster = g_strdup (rec->info.cluster);
  row->plan = g_strdup (rec->info.plan);
  row->gpus = (int) rec->info.world_size;
  for (int t = 0; t < REPORT_TERM_N; t++)
    row->predicted[t] = row->measured[t] = row->err_pct[t] = NAN;
  return row;
}

/* The key of a published row of a validate run: its CSV's name (the run's model column)
 * and the row id. */
static char *
published_key (const ResRunRecord *rec, gint64 row_id)
{
  return g_strdup_printf ("%s\x1f%" G_GINT64_FORMAT,
                          rec->info.model != NULL ? rec->info.model : "", row_id);
}

/* Adds the rows of one run; FALSE when it has nothing to compare. `latest` (NULL: every
 * row) maps a published row's key to the id of the latest run that holds it: a row of an
 * older run is left out and counted. */
static gboolean
add_run (ReportValidation *v, const ResRunRecord *rec, GHashTable *latest)
{
  if (rec->has_prediction && rec->has_measurement)
    {
      ReportValidationRow *row = vrow_new (rec, "run");
      terms_of (&rec->pred, row->predicted);
      terms_of (&rec->meas, row->measured);
      for (int t = 0; t < REPORT_TERM_N; t++)
        row->err_pct[t] = err_pct (row->predicted[t], row->measured[t]);
      g_ptr_array_add (v->rows, row);
      return TRUE;
    }
  if (rec->validations != NULL && rec->validations->len > 0)
    {
      for (guint i = 0; i < rec->validations->len; i++)
        {
          const ResValidationRow *vr = &g_array_index (rec->validations, ResValidationRow, i);
          if (latest != NULL)
            {
              g_autofree char *key = published_key (rec, vr->row_id);
              gint64 *newest = g_hash_table_lookup (latest, key);
              if (newest != NULL && *newest != rec->run_id)
                {
                  v->n_superseded++;
                  continue;
                }
            }
          ReportValidationRow *row = vrow_new (rec, "validate");
          row->published_row = vr->row_id;
          /* the published row's own model, GPUs and GPU count (the run's model column
           * holds the CSV's name, which every row showed as its model; the cluster a row
           * maps to is not stored, so its gpu_type as the CSV gives it); none where the
           * row was never imported */
          g_free (row->model);
          row->model = g_strdup (vr->model);
          g_free (row->cluster);
          row->cluster = g_strdup (vr->gpu_type);
          if (vr->n_gpus > 0)
            row->gpus = (int) MIN (vr->n_gpus, (gint64) G_MAXINT);
          row->predicted[REPORT_TERM_STEP] = vr->predicted_step_s;
          row->measured[REPORT_TERM_STEP] = vr->measured_step_s;
          /* as validate stored it: the same formula */
          row->err_pct[REPORT_TERM_STEP] = isfinite (vr->err_pct)
            ? vr->err_pct : err_pct (vr->predicted_step_s, vr->measured_step_s);
          g_ptr_array_add (v->rows, row);
        }
      return TRUE;
    }
  return FALSE;
}

ReportValidation *
report_validation_compute (ResStore *store, const gint64 *runs, guint n_runs, GError **error)
{
  g_autoptr (ReportValidation) v = g_new0 (ReportValidation, 1);
  v->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) vrow_free);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (n_runs > 0)
    g_array_append_vals (ids, runs, n_runs);
  else
    {
      g_autoptr (GPtrArray) all = res_store_list_runs (store, 0, error);
      if (all == NULL)
        return NULL;
      for (guint i = all->len; i-- > 0;)    /* oldest first */
        {
          const ResRunRow *r = g_ptr_array_index (all, i);
          if (r->kind == RES_KIND_RUN || r->kind == RES_KIND_VALIDATE)
            g_array_append_val (ids, r->run_id);
        }
    }
  /* every run's record, then (by default) each published row's latest run: ids are in
   * the order the runs were stored, so the last one seen holds the latest */
  g_autoptr (GPtrArray) recs = g_ptr_array_new_with_free_func ((GDestroyNotify) res_run_record_free);
  g_autoptr (GHashTable) latest = n_runs > 0 ? NULL
    : g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < ids->len; i++)
    {
      ResRunRecord *rec = res_store_get_run (store, g_array_index (ids, gint64, i), error);
      if (rec == NULL)
        return NULL;
      g_ptr_array_add (recs, rec);
      if (latest != NULL && rec->info.kind == RES_KIND_VALIDATE && rec->validations != NULL)
        for (guint j = 0; j < rec->validations->len; j++)
          g_hash_table_insert (latest, published_key (rec, g_array_index (
                                 rec->validations, ResValidationRow, j).row_id),
                               g_memdup2 (&rec->run_id, sizeof (gint64)));
    }
  for (guint i = 0; i < ids->len; i++)
    {
      gint64 id = g_array_index (ids, gint64, i);
      const ResRunRecord *rec = g_ptr_array_index (recs, i);
      if (!add_run (v, rec, latest) && n_runs > 0)
        {
          g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                       "run %" G_GINT64_FORMAT " (%s) has no measurement to compare with "
                       "(hint: tandem runs lists the run and validate rows)", id,
                       res_run_kind_to_string (rec->info.kind));
          return NULL;
        }
    }
  for (guint i = 0; i < v->rows->len; i++)
    {
      const ReportValidationRow *row = g_ptr_array_index (v->rows, i);
      if (fabs (row->err_pct[REPORT_TERM_STEP]) <= 10)
        v->n_within_10pct++;
    }
  return g_steal_pointer (&v);
}

/* ---- plots ---- */

void
report_plot_scatter (const ReportValidation *v, cairo_t *cr, double w, double h)
{
  PlotAxes ax;
  plot_begin (cr, w, h, "Step time: predicted against measured", &ax);
  ax.x1 = ax.x0 + (ax.y1 - ax.y0) * 1.25;   /* near-square: y = x reads as a diagonal */
  double lo = INFINITY, hi = 0;
  for (guint i = 0; i < v->rows->len; i++)
    {
      const ReportValidationRow *row = g_ptr_array_index (v->rows, i);
      double p = row->predicted[REPORT_TERM_STEP], m = row->measured[REPORT_TERM_STEP];
      if (p > 0 && m > 0)
        lo = MIN (lo, MIN (p, m)), hi = MAX (hi, MAX (p, m));
    }
  ax.xlog = ax.ylog = TRUE;
  plot_nice_log (lo, hi, &ax.xmin, &ax.xmax);
  ax.ymin = ax.xmin;
  ax.ymax = ax.xmax;
  /* the +-10% band around y = x, then y = x */
  cairo_save (cr);
  cairo_rectangle (cr, ax.x0, ax.y0, ax.x1 - ax.x0, ax.y1 - ax.y0);
  cairo_clip (cr);
  cairo_move_to (cr, plot_x (&ax, ax.xmin), plot_y (&ax, ax.xmin * 1.1));
  cairo_line_to (cr, plot_x (&ax, ax.xmax), plot_y (&ax, ax.xmax * 1.1));
  cairo_line_to (cr, plot_x (&ax, ax.xmax), plot_y (&ax, ax.xmax * 0.9));
  cairo_line_to (cr, plot_x (&ax, ax.xmin), plot_y (&ax, ax.xmin * 0.9));
  cairo_close_path (cr);
  cairo_set_source_rgb (cr, 0.86, 0.86, 0.86);
  cairo_fill (cr);
  cairo_restore (cr);
  double ticks[32];
  guint nt = 0;
  for (double d = ax.xmin; d <= ax.xmax * 1.0001 && nt < 30; d *= 10)
    ticks[nt++] = d;
  /* x ticks at decades, labelled as seconds */
  plot_font (cr, 12, FALSE);
  for (guint i = 0; i < nt; i++)
    {
      double x = plot_x (&ax, ticks[i]);
      cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
      cairo_move_to (cr, x, ax.y0);
      cairo_line_to (cr, x, ax.y1);
      cairo_stroke (cr);
      cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
      char buf[32];
      g_snprintf (buf, sizeof buf, "%g", ticks[i]);
      plot_text (cr, x, ax.y1 + 8, 0.5, 0, buf);
    }
  plot_font (cr, 13, FALSE);
  plot_text (cr, (ax.x0 + ax.x1) / 2, ax.y1 + 30, 0.5, 0, "measured step time (s, log scale)");
  plot_axis_y (cr, &ax, "s", "predicted step time (s, log scale)");
  cairo_save (cr);
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_line_width (cr, 1.2);
  cairo_move_to (cr, plot_x (&ax, ax.xmin), plot_y (&ax, ax.xmin));
  cairo_line_to (cr, plot_x (&ax, ax.xmax), plot_y (&ax, ax.xmax));
  cairo_stroke (cr);
  cairo_restore (cr);
  gboolean kinds[2] = { FALSE, FALSE };
  for (guint i = 0; i < v->rows->len; i++)
    {
      const ReportValidationRow *row = g_ptr_array_index (v->rows, i);
      double p = row->predicted[REPORT_TERM_STEP], m = row->measured[REPORT_TERM_STEP];
      if (!(p > 0 && m > 0))
        continue;
      int k = g_str_equal (row->kind, "run") ? 0 : 1;
      kinds[k] = TRUE;
      plot_marker (cr, plot_x (&ax, m), plot_y (&ax, p), plot_series_style (k), TRUE);
    }
  plot_frame (cr, &ax);
  static const PlotStyle band = { 0.86, 0.86, 0.86, 0, 0, 0 };
  static const PlotStyle diag = { 0.2, 0.2, 0.2, 0, 0, 0 };
  PlotLegendEntry legend[4];
  guint nl = 0;
  if (kinds[0])
    legend[nl++] = (PlotLegendEntry) { "tandem run", plot_series_style (0), 0 };
  if (kinds[1])
    legend[nl++] = (PlotLegendEntry) { "published (validate)", plot_series_style (1), 0 };
  legend[nl++] = (PlotLegendEntry) { "y = x", &diag, 2 };
  legend[nl++] = (PlotLegendEntry) { "within +-10%", &band, 1 };
  PlotAxes side = ax;
  side.x0 = ax.x1 + 4;
  side.x1 = w - 4;
  plot_legend (cr, &side, legend, nl, TRUE);
  g_autofree char *count = g_strdup_printf ("%u of %u rows within +-10%%", v->n_within_10pct,
                                            v->rows->len);
  plot_font (cr, 12, FALSE);
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  plot_text (cr, side.x0 + 10, side.y0 + 24 + 18 * nl, 0, 0, count);
}

void
report_plot_term_error (const ReportValidation *v, cairo_t *cr, double w, double h)
{
  PlotAxes ax;
  plot_begin (cr, w, h, "Error per term: mean (bar) and range (whisker)", &ax);
  ax.y1 = h - 80;   /* room for slanted term names */
  double mean[REPORT_TERM_N], mn[REPORT_TERM_N], mx[REPORT_TERM_N];
  int n[REPORT_TERM_N];
  double hi = 0.1, lo = 0.1;   /* the +-10% guides always show */
  for (int t = 0; t < REPORT_TERM_N; t++)
    {
      double sum = 0;
      n[t] = 0;
      mn[t] = INFINITY;
      mx[t] = -INFINITY;
      for (guint i = 0; i < v->rows->len; i++)
        {
          const ReportValidationRow *row = g_ptr_array_index (v->rows, i);
          double e = row->err_pct[t] / 100;
          if (!isfinite (e))
            continue;
          sum += e;
          n[t]++;
          mn[t] = MIN (mn[t], e);
          mx[t] = MAX (mx[t], e);
        }
      mean[t] = n[t] ? sum / n[t] : NAN;
      if (n[t])
        hi = MAX (hi, mx[t]), lo = MAX (lo, -mn[t]);
    }
  /* errors below -100% cannot happen (a time is not negative); beyond +1000% is off the
   * chart, clamped at the frame */
  plot_nice_linear (MIN (hi, 10.0) * 1.05, &ax.ymax);
  plot_nice_linear (MIN (lo, 1.0) * 1.05, &ax.ymin);
  ax.ymin = -ax.ymin;
  plot_axis_y (cr, &ax, "%", "error, (predicted - measured) / measured");
  double slot = (ax.x1 - ax.x0) / REPORT_TERM_N;
  cairo_save (cr);
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_line_width (cr, 1.2);
  cairo_move_to (cr, ax.x0, plot_y (&ax, 0));
  cairo_line_to (cr, ax.x1, plot_y (&ax, 0));
  cairo_stroke (cr);
  cairo_restore (cr);
  for (int t = 0; t < REPORT_TERM_N; t++)
    {
      double cx = ax.x0 + slot * (t + 0.5);
      cairo_save (cr);
      plot_font (cr, 12, FALSE);
      cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
      cairo_translate (cr, cx, ax.y1 + 8);
      cairo_rotate (cr, -G_PI / 8);
      plot_text (cr, 0, 0, 0.7, 0, term_names[t]);
      cairo_restore (cr);
      if (n[t] == 0)
        {
          cairo_save (cr);
          plot_font (cr, 11, FALSE);
          cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
          plot_text (cr, cx, plot_y (&ax, 0) - 4, 0.5, 1, "n/a");
          cairo_restore (cr);
          continue;
        }
      double clamp_m = CLAMP (mean[t], ax.ymin, ax.ymax);
      double y0 = plot_y (&ax, 0), y1 = plot_y (&ax, clamp_m);
      plot_fill_rect (cr, cx - slot * 0.3, MIN (y0, y1), slot * 0.6, fabs (y1 - y0),
                      plot_segment_style (t == 0 ? 0 : 2 + (t % 5)));
      double ya = plot_y (&ax, CLAMP (mn[t], ax.ymin, ax.ymax));
      double yb = plot_y (&ax, CLAMP (mx[t], ax.ymin, ax.ymax));
      cairo_save (cr);
      cairo_set_source_rgb (cr, 0.05, 0.05, 0.05);
      cairo_set_line_width (cr, 1.6);
      cairo_move_to (cr, cx, ya);
      cairo_line_to (cr, cx, yb);
      cairo_move_to (cr, cx - 6, ya);
      cairo_line_to (cr, cx + 6, ya);
      cairo_move_to (cr, cx - 6, yb);
      cairo_line_to (cr, cx + 6, yb);
      cairo_stroke (cr);
      plot_font (cr, 10, FALSE);
      g_autofree char *lab = g_strdup_printf ("n=%d", n[t]);
      plot_text (cr, cx, ax.y0 + 4, 0.5, 0, lab);
      cairo_restore (cr);
    }
  /* +-10% guide lines */
  cairo_save (cr);
  cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
  double d[] = { 4, 4 };
  cairo_set_dash (cr, d, 2, 0);
  cairo_set_line_width (cr, 1);
  for (int s = -1; s <= 1; s += 2)
    {
      cairo_move_to (cr, ax.x0, plot_y (&ax, 0.1 * s));
      cairo_line_to (cr, ax.x1, plot_y (&ax, 0.1 * s));
    }
  cairo_stroke (cr);
  cairo_restore (cr);
  plot_frame (cr, &ax);
}

/* ---- writers ---- */

void
report_validation_to_json (const ReportValidation *v, JsonBuilder *b)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "report");
  json_builder_add_string_value (b, "validation");
  json_builder_set_member_name (b, "within_10pct");
  json_builder_add_int_value (b, v->n_within_10pct);
  json_builder_set_member_name (b, "superseded");
  json_builder_add_int_value (b, v->n_superseded);
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < v->rows->len; i++)
    {
      const ReportValidationRow *row = g_ptr_array_index (v->rows, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "run_id");
      json_builder_add_int_value (b, row->run_id);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, row->kind);
      json_builder_set_member_name (b, "published_row");
      if (row->published_row > 0)
        json_builder_add_int_value (b, row->published_row);
      else
        json_builder_add_null_value (b);
      const char *strs[][2] = { { "model", row->model }, { "cluster", row->cluster },
                                { "plan", row->plan } };
      for (guint k = 0; k < G_N_ELEMENTS (strs); k++)
        {
          json_builder_set_member_name (b, strs[k][0]);
          if (strs[k][1])
            json_builder_add_string_value (b, strs[k][1]);
          else
            json_builder_add_null_value (b);
        }
      /* as the CSV and the Markdown table have it */
      json_builder_set_member_name (b, "gpus");
      if (row->gpus > 0)
        json_builder_add_int_value (b, row->gpus);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "terms");
      json_builder_begin_object (b);
      for (int t = 0; t < REPORT_TERM_N; t++)
        {
          json_builder_set_member_name (b, term_keys[t]);
          json_builder_begin_object (b);
          util_json_member_number (b, "predicted", row->predicted[t]);
          util_json_member_number (b, "measured", row->measured[t]);
          util_json_member_number (b, "err_pct", row->err_pct[t]);
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static char *
validation_csv (const ReportValidation *v)
{
  GString *s = g_string_new ("run_id,kind,published_row,model,cluster,gpus,plan");
  for (int t = 0; t < REPORT_TERM_N; t++)
    g_string_append_printf (s, ",predicted_%s,measured_%s,err_%s_pct", term_keys[t],
                            term_keys[t], term_keys[t]);
  g_string_append_c (s, '\n');
  for (guint i = 0; i < v->rows->len; i++)
    {
      const ReportValidationRow *row = g_ptr_array_index (v->rows, i);
      g_string_append_printf (s, "%" G_GINT64_FORMAT ",%s,", row->run_id, row->kind);
      if (row->published_row > 0)
        g_string_append_printf (s, "%" G_GINT64_FORMAT, row->published_row);
      g_string_append_c (s, ',');
      report_csv_field (s, row->model);
      g_string_append_c (s, ',');
      report_csv_field (s, row->cluster);
      g_string_append_c (s, ',');
      if (row->gpus > 0)
        g_string_append_printf (s, "%d", row->gpus);
      g_string_append_c (s, ',');
      report_csv_field (s, row->plan);
      for (int t = 0; t < REPORT_TERM_N; t++)
        {
          g_string_append_c (s, ',');
          report_csv_number (s, row->predicted[t]);
          g_string_append_c (s, ',');
          report_csv_number (s, row->measured[t]);
          g_string_append_c (s, ',');
          report_csv_number (s, row->err_pct[t]);
        }
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

static int
by_abs_step_error (gconstpointer a, gconstpointer b)
{
  const ReportValidationRow *x = *(ReportValidationRow *const *) a;
  const ReportValidationRow *y = *(ReportValidationRow *const *) b;
  double ex = fabs (x->err_pct[REPORT_TERM_STEP]), ey = fabs (y->err_pct[REPORT_TERM_STEP]);
  if (isnan (ex))
    ex = -1;
  if (isnan (ey))
    ey = -1;
  return ex < ey ? 1 : ex > ey ? -1 : 0;
}

static const char *const table_header[] = {
  "run", "row", "model", "cluster", "GPUs", "predicted s", "measured s", "step error",
  "compute", "bubble", "exp. TP", "exp. PP", "exp. DP", "memory",
};

static void
row_cells (const ReportValidationRow *row, GPtrArray *cells)
{
  char b[64];
  g_ptr_array_add (cells, g_strdup_printf ("%" G_GINT64_FORMAT, row->run_id));
  g_ptr_array_add (cells, row->published_row > 0
                   ? g_strdup_printf ("published %" G_GINT64_FORMAT, row->published_row)
                   : g_strdup (row->kind));
  g_ptr_array_add (cells, g_strdup (row->model ? row->model : "-"));
  g_ptr_array_add (cells, g_strdup (row->cluster ? row->cluster : "-"));
  g_ptr_array_add (cells, row->gpus > 0 ? g_strdup_printf ("%d", row->gpus) : g_strdup ("-"));
  g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.4f",
                                                row->predicted[REPORT_TERM_STEP])));
  g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%.4f",
                                                row->measured[REPORT_TERM_STEP])));
  static const ReportTerm shown[] = { REPORT_TERM_STEP, REPORT_TERM_COMPUTE, REPORT_TERM_BUBBLE,
                                      REPORT_TERM_TP, REPORT_TERM_PP, REPORT_TERM_DP,
                                      REPORT_TERM_MEMORY };
  for (guint k = 0; k < G_N_ELEMENTS (shown); k++)
    g_ptr_array_add (cells, g_strdup (report_fmt (b, sizeof b, "%+.1f%%",
                                                  row->err_pct[shown[k]])));
}

static void
html_rows (GString *s, GPtrArray *rows, guint limit)
{
  g_string_append (s, "<div class=\"scroll\"><table>\n<tr>");
  for (guint k = 0; k < G_N_ELEMENTS (table_header); k++)
    g_string_append_printf (s, "<th%s>%s</th>", k >= 1 && k <= 3 ? " class=\"l\"" : "",
                            table_header[k]);
  g_string_append (s, "</tr>\n");
  for (guint i = 0; i < rows->len && i < limit; i++)
    {
      g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
      row_cells (g_ptr_array_index (rows, i), cells);
      g_string_append (s, "<tr>");
      for (guint k = 0; k < cells->len; k++)
        {
          g_string_append_printf (s, "<td%s>", k >= 1 && k <= 3 ? " class=\"l\"" : "");
          report_html_escape (s, g_ptr_array_index (cells, k));
          g_string_append (s, "</td>");
        }
      g_string_append (s, "</tr>\n");
    }
  g_string_append (s, "</table></div>\n");
}

static void
md_rows (GString *s, GPtrArray *rows, guint limit)
{
  g_string_append (s, "|");
  for (guint k = 0; k < G_N_ELEMENTS (table_header); k++)
    g_string_append_printf (s, " %s |", table_header[k]);
  g_string_append (s, "\n|");
  for (guint k = 0; k < G_N_ELEMENTS (table_header); k++)
    g_string_append (s, k >= 1 && k <= 3 ? "---|" : "--:|");
  g_string_append_c (s, '\n');
  for (guint i = 0; i < rows->len && i < limit; i++)
    {
      g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
      row_cells (g_ptr_array_index (rows, i), cells);
      g_string_append (s, "|");
      for (guint k = 0; k < cells->len; k++)
        {
          g_string_append_c (s, ' ');
          report_md_escape (s, g_ptr_array_index (cells, k));
          g_string_append (s, " |");
        }
      g_string_append_c (s, '\n');
    }
}

typedef void (*ValidationPlot) (const ReportValidation *, cairo_t *, double, double);
static const struct {
  const char *png;
  ValidationPlot draw;
  const char *alt;
  const char *caption;
} validation_plots[] = {
  { "scatter.png", report_plot_scatter, "Predicted against measured step time",
    "Each point is one stored run or one published row a stored validate run checked; on "
    "the line y = x the prediction is exact, in the grey band it is within 10%." },
  { "terms.png", report_plot_term_error, "Error per term",
    "Mean relative error per term over the rows that have it (bar) and its range (whisker); "
    "n counts the rows. Published rows carry the step time only." },
};

#define WORST 10

static char *
summary_text (const ReportValidation *v)
{
  g_autofree char *older = v->n_superseded == 0 ? g_strdup ("")
    : g_strdup_printf (" %u rows of older validate runs left out: each published row is "
                       "shown from the latest run of its CSV (--run N chooses runs).",
                       v->n_superseded);
  return g_strdup_printf ("%u rows compared; %u within +-10%% of the measurement in step time. "
                          "Error = (predicted - measured) / measured.%s", v->rows->len,
                          v->n_within_10pct, older);
}

static gboolean
validation_stage (gconstpointer data, const char *dir, guint formats,
                  gboolean force, GPtrArray *staged, GError **error)
{
  const ReportValidation *v = data;
  const char *names[8];
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
    for (guint i = 0; i < G_N_ELEMENTS (validation_plots); i++)
      names[n++] = validation_plots[i].png;
  names[n] = NULL;
  if (!report_dir_prepare (dir, names, force, error))
    return FALSE;
  /* borrowed pointers: the copy must not free the rows (g_ptr_array_copy would) */
  g_autoptr (GPtrArray) worst = g_ptr_array_sized_new (v->rows->len);
  for (guint i = 0; i < v->rows->len; i++)
    g_ptr_array_add (worst, g_ptr_array_index (v->rows, i));
  g_ptr_array_sort (worst, by_abs_step_error);
  g_autofree char *summary = summary_text (v);
  if (formats & REPORT_FORMAT_PNG)
    for (guint i = 0; i < G_N_ELEMENTS (validation_plots); i++)
      if (!report_plot_png ((ReportPlotFunc) validation_plots[i].draw, v, dir,
                            validation_plots[i].png, staged, error))
        return FALSE;
  if (formats & REPORT_FORMAT_HTML)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      report_html_begin (s, "Validation report");
      g_string_append (s, "<h1>Validation report: predicted against measured</h1>\n<p>");
      report_html_escape (s, summary);
      g_string_append (s, "</p>\n<h2>Plots</h2>\n");
      for (guint i = 0; i < G_N_ELEMENTS (validation_plots); i++)
        {
          g_autofree char *uri = report_plot_svg_uri ((ReportPlotFunc) validation_plots[i].draw,
                                                      v, error);
          if (uri == NULL)
            return FALSE;
          report_html_figure (s, uri, validation_plots[i].alt, validation_plots[i].caption);
        }
      g_string_append_printf (s, "<h2>The worst %u rows (by step-time error)</h2>\n",
                              MIN (WORST, worst->len));
      html_rows (s, worst, WORST);
      g_string_append (s, "<h2>Every row</h2>\n");
      html_rows (s, v->rows, G_MAXUINT);
      report_html_end (s);
      if (!report_file_write (dir, "report.html", s->str, s->len, staged, error))
        return FALSE;
    }
  if (formats & REPORT_FORMAT_MD)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      g_autofree char *summary_md = report_md_escaped (summary);
      g_string_append_printf (s, "# Validation report\n\n%s\n\n## The worst rows\n\n",
                              summary_md);
      md_rows (s, worst, WORST);
      g_string_append (s, "\n## Every row\n\n");
      md_rows (s, v->rows, G_MAXUINT);
      if (formats & REPORT_FORMAT_PNG)
        {
          g_string_append_c (s, '\n');
          for (guint i = 0; i < G_N_ELEMENTS (validation_plots); i++)
            g_string_append_printf (s, "![%s](%s)\n", validation_plots[i].alt,
                                    validation_plots[i].png);
        }
      if (!report_file_write (dir, "report.md", s->str, s->len, staged, error))
        return FALSE;
    }
  if (formats & REPORT_FORMAT_CSV)
    {
      g_autofree char *csv = validation_csv (v);
      if (!report_file_write (dir, "report.csv", csv, -1, staged, error))
        return FALSE;
    }
  if (formats & REPORT_FORMAT_JSON)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      report_validation_to_json (v, b);
      if (!report_json_write (dir, "report.json", b, staged, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
report_validation_write (const ReportValidation *v, const char *dir, guint formats,
                         gboolean force, GPtrArray *written, GError **error)
{
  return report_write_staged (validation_stage, v, dir, formats, force, written, error);
}
