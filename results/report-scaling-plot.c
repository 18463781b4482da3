/* results/report-scaling-plot.c - the scaling report's four plots. They read the table
 * only: every number drawn is a field of a ReportScalingRow. */
#include "results/report-private.h"

#include <math.h>

static guint
n_sizes (const ReportScaling *r)
{
  return r->rows->len / MAX (r->clusters->len, 1);
}

static const ReportScalingRow *
row_at (const ReportScaling *r, guint cluster, guint size)
{
  return g_ptr_array_index (r->rows, cluster * n_sizes (r) + size);
}

static int
base_of (const ReportScaling *r, guint c)
{
  return g_array_index (r->base_gpus, int, c);
}

static const ReportScalingRow *
base_row (const ReportScaling *r, guint c)
{
  for (guint i = 0; i < n_sizes (r); i++)
    if (row_at (r, c, i)->gpus == base_of (r, c))
      return row_at (r, c, i);
  return NULL;
}

static void
x_log_axes (const ReportScaling *r, PlotAxes *ax, double *ticks)
{
  guint n = n_sizes (r);
  for (guint i = 0; i < n; i++)
    ticks[i] = row_at (r, 0, i)->gpus;
  ax->xlog = TRUE;
  ax->xmin = ticks[0] / 1.3;
  ax->xmax = ticks[n - 1] * 1.3;
}

/* "no plan" under a size where no cluster could predict, so the gap is explained; written
 * upwards from the axis where it would overlap the next one across (many failing sizes of
 * a fine --gpus list: "no planno plan" ran together) */
static void
mark_missing_x (cairo_t *cr, const PlotAxes *ax, double x, const char *what,
                gboolean upright)
{
  cairo_save (cr);
  plot_font (cr, 11, FALSE);
  cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
  if (upright)
    {
      cairo_translate (cr, x, ax->y1 - 6);
      cairo_rotate (cr, -G_PI / 2);
      plot_text (cr, 0, 0, 0, 0.5, what);
    }
  else
    plot_text (cr, x, ax->y1 - 6, 0.5, 1, what);
  cairo_restore (cr);
}

static void
draw_series (cairo_t *cr, const PlotAxes *ax, const ReportScaling *r, guint c,
             double (*value) (const ReportScalingRow *))
{
  const PlotStyle *s = plot_series_style (c);
  cairo_save (cr);
  cairo_set_source_rgb (cr, s->r, s->g, s->b);
  cairo_set_line_width (cr, 2.2);
  double d[] = { s->dash, s->dash * 0.6 };
  cairo_set_dash (cr, d, s->dash > 0 ? 2 : 0, 0);
  gboolean open = FALSE;
  for (guint i = 0; i < n_sizes (r); i++)
    {
      const ReportScalingRow *row = row_at (r, c, i);
      double v = row->predicted ? value (row) : NAN;
      if (!(v > 0) && !(v == 0 && !ax->ylog))
        {
          open = FALSE;
          continue;
        }
      double x = plot_x (ax, row->gpus), y = plot_y (ax, v);
      if (open)
        cairo_line_to (cr, x, y);
      else
        cairo_move_to (cr, x, y);
      open = TRUE;
    }
  cairo_stroke (cr);
  cairo_restore (cr);
  for (guint i = 0; i < n_sizes (r); i++)
    {
      const ReportScalingRow *row = row_at (r, c, i);
      double v = row->predicted ? value (row) : NAN;
      if (v > 0 || (v == 0 && !ax->ylog))
        plot_marker (cr, plot_x (ax, row->gpus), plot_y (ax, v), s, row->fits);
    }
}

/* Is the size at i one no cluster could predict? */
static gboolean
size_missing (const ReportScaling *r, guint i)
{
  for (guint c = 0; c < r->clusters->len; c++)
    if (row_at (r, c, i)->predicted)
      return FALSE;
  return TRUE;
}

static void
mark_invalid_sizes (cairo_t *cr, const PlotAxes *ax, const ReportScaling *r)
{
  /* across if every label clears its neighbour by 4 px, else all of them upright */
  cairo_save (cr);
  plot_font (cr, 11, FALSE);
  cairo_text_extents_t te;
  cairo_text_extents (cr, "no plan", &te);
  cairo_restore (cr);
  gboolean upright = FALSE;
  double last = -1e9;
  for (guint i = 0; i < n_sizes (r); i++)
    if (size_missing (r, i))
      {
        double x = plot_x (ax, row_at (r, 0, i)->gpus);
        upright |= x - last < te.x_advance + 4;
        last = x;
      }
  for (guint i = 0; i < n_sizes (r); i++)
    if (size_missing (r, i))
      mark_missing_x (cr, ax, plot_x (ax, row_at (r, 0, i)->gpus), "no plan", upright);
}

static double
v_tokens (const ReportScalingRow *row)
{
  return row->tokens_per_s;
}

static double
v_eff (const ReportScalingRow *row)
{
  return row->efficiency;
}

static gboolean
any_oom (const ReportScaling *r)
{
  for (guint i = 0; i < r->rows->len; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      if (row->predicted && !row->fits)
        return TRUE;
    }
  return FALSE;
}

void
report_plot_throughput (const ReportScaling *r, cairo_t *cr, double w, double h)
{
  PlotAxes ax;
  g_autofree char *title = g_strdup_printf ("%s: throughput against GPUs (%s scaling)", r->model,
                                            r->mode == REPORT_STRONG ? "strong" : "weak");
  plot_begin (cr, w, h, title, &ax);
  double ticks[256];
  x_log_axes (r, &ax, ticks);
  double lo = INFINITY, hi = 0;
  for (guint c = 0; c < r->clusters->len; c++)
    {
      const ReportScalingRow *b = base_row (r, c);
      for (guint i = 0; i < n_sizes (r); i++)
        {
          const ReportScalingRow *row = row_at (r, c, i);
          if (row->predicted && row->tokens_per_s > 0)
            lo = MIN (lo, row->tokens_per_s), hi = MAX (hi, row->tokens_per_s);
          if (b && row->gpus >= b->gpus)
            hi = MAX (hi, b->tokens_per_s * row->gpus / b->gpus);
        }
    }
  for (guint i = 0; i < r->measured->len; i++)
    {
      const ReportMeasuredPoint *m = g_ptr_array_index (r->measured, i);
      if (m->measured_tokens_per_s > 0)
        lo = MIN (lo, m->measured_tokens_per_s), hi = MAX (hi, m->measured_tokens_per_s);
    }
  ax.ylog = TRUE;
  plot_nice_log (lo, hi, &ax.ymin, &ax.ymax);
  plot_axis_x_values (cr, &ax, ticks, n_sizes (r), "GPUs (log scale)");
  plot_axis_y (cr, &ax, "si", "tokens/s (log scale)");

  PlotLegendEntry legend[16];
  guint nl = 0;
  static PlotStyle ideal[4];
  for (guint c = 0; c < r->clusters->len && c < 4; c++)
    {
      const ReportScalingRow *b = base_row (r, c);
      const PlotStyle *s = plot_series_style (c);
      if (b != NULL)
        {
          /* ideal: the base's throughput times G / G_base (linear scaling) */
          ideal[c] = *s;
          ideal[c].dash = 3;
          cairo_save (cr);
          cairo_set_source_rgb (cr, s->r, s->g, s->b);
          cairo_set_line_width (cr, 1.2);
          double d[] = { 3, 3 };
          cairo_set_dash (cr, d, 2, 0);
          double g1 = row_at (r, c, n_sizes (r) - 1)->gpus;
          cairo_move_to (cr, plot_x (&ax, b->gpus), plot_y (&ax, b->tokens_per_s));
          cairo_line_to (cr, plot_x (&ax, g1), plot_y (&ax, b->tokens_per_s * g1 / b->gpus));
          cairo_stroke (cr);
          cairo_restore (cr);
        }
      draw_series (cr, &ax, r, c, v_tokens);
      legend[nl++] = (PlotLegendEntry) { g_ptr_array_index (r->clusters, c), s, 0 };
      if (b != NULL)
        legend[nl++] = (PlotLegendEntry) { "ideal (linear from the base)", &ideal[c], 2 };
    }
  static const PlotStyle measured_style = { 0, 0, 0, 0, 3, 0 };
  for (guint i = 0; i < r->measured->len; i++)
    {
      const ReportMeasuredPoint *m = g_ptr_array_index (r->measured, i);
      if (m->measured_tokens_per_s > 0 && m->gpus > 0)
        plot_marker (cr, plot_x (&ax, m->gpus), plot_y (&ax, m->measured_tokens_per_s),
                     &measured_style, TRUE);
    }
  if (r->measured->len > 0)
    legend[nl++] = (PlotLegendEntry) { "measured (stored runs)", &measured_style, 3 };
  static const PlotStyle oom_style = { 0.3, 0.3, 0.3, 0, 0, 0 };
  if (any_oom (r))
    legend[nl++] = (PlotLegendEntry) { "hollow: does not fit in HBM", &oom_style, 3 };
  mark_invalid_sizes (cr, &ax, r);
  plot_frame (cr, &ax);
  plot_legend (cr, &ax, legend, nl, TRUE);
}

void
report_plot_efficiency (const ReportScaling *r, cairo_t *cr, double w, double h)
{
  PlotAxes ax;
  g_autofree char *title = g_strdup_printf ("%s: scaling efficiency E_G (%s scaling)", r->model,
                                            r->mode == REPORT_STRONG ? "strong" : "weak");
  plot_begin (cr, w, h, title, &ax);
  double ticks[256];
  x_log_axes (r, &ax, ticks);
  double hi = 1.0;
  for (guint i = 0; i < r->rows->len; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      if (row->predicted && isfinite (row->efficiency))
        hi = MAX (hi, row->efficiency);
    }
  ax.ymin = 0;
  plot_nice_linear (hi * 1.08, &ax.ymax);
  plot_axis_x_values (cr, &ax, ticks, n_sizes (r), "GPUs (log scale)");
  plot_axis_y (cr, &ax, "%", "efficiency E_G (% of ideal)");
  cairo_save (cr);
  cairo_set_source_rgb (cr, 0.25, 0.25, 0.25);
  cairo_set_line_width (cr, 1.2);
  double d[] = { 5, 4 };
  cairo_set_dash (cr, d, 2, 0);
  cairo_move_to (cr, ax.x0, plot_y (&ax, 1.0));
  cairo_line_to (cr, ax.x1, plot_y (&ax, 1.0));
  cairo_stroke (cr);
  cairo_restore (cr);
  PlotLegendEntry legend[8];
  guint nl = 0;
  static const PlotStyle ideal_style = { 0.25, 0.25, 0.25, 5, 0, 0 };
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  for (guint c = 0; c < r->clusters->len && c < 4; c++)
    {
      draw_series (cr, &ax, r, c, v_eff);
      char *label = base_of (r, c) > 0
        ? g_strdup_printf ("%s (base %d GPUs)", (char *) g_ptr_array_index (r->clusters, c),
                           base_of (r, c))
        : g_strdup_printf ("%s (no base)", (char *) g_ptr_array_index (r->clusters, c));
      g_ptr_array_add (labels, label);
      legend[nl++] = (PlotLegendEntry) { label, plot_series_style (c), 0 };
    }
  legend[nl++] = (PlotLegendEntry) { "ideal (100%)", &ideal_style, 2 };
  mark_invalid_sizes (cr, &ax, r);
  plot_frame (cr, &ax);
  /* efficiency falls to the right: the legend goes where the curve is not */
  plot_legend (cr, &ax, legend, nl, FALSE);
}

static const char *const segment_names[] = {
  "compute", "bubble", "exposed TP", "exposed CP", "exposed EP", "exposed PP", "exposed DP",
  "other (stage idle)",
};

/* Draws bars grouped by size, one bar per cluster, with `segs` segments each. */
typedef gboolean (*SegmentsFunc) (const ReportScalingRow *row, double *seg);

static void
draw_bars (cairo_t *cr, const PlotAxes *ax, const ReportScaling *r, SegmentsFunc f, guint nseg,
           gboolean *used)
{
  guint n = n_sizes (r), nc = r->clusters->len;
  double slot = (ax->x1 - ax->x0) / n, group = slot * 0.72, bw = group / nc;
  for (guint i = 0; i < n; i++)
    for (guint c = 0; c < nc; c++)
      {
        const ReportScalingRow *row = row_at (r, c, i);
        double x = ax->x0 + slot * i + (slot - group) / 2 + bw * c;
        double seg[16] = { 0 };
        if (!row->predicted || !f (row, seg))
          {
            cairo_save (cr);
            plot_font (cr, 11, FALSE);
            cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
            plot_text_vertical (cr, x + bw / 2, ax->y1 - 40, "no plan");
            cairo_restore (cr);
            continue;
          }
        double acc = 0;
        for (guint k = 0; k < nseg; k++)
          {
            if (seg[k] <= 0)
              continue;
            used[k] = TRUE;
            double ya = plot_y (ax, acc), yb = plot_y (ax, acc + seg[k]);
            plot_fill_rect (cr, x + 1, yb, bw - 2, ya - yb, plot_segment_style (k));
            acc += seg[k];
          }
        if (!row->fits)
          {
            /* inside the bar's top, on white, so it never meets the title */
            cairo_save (cr);
            plot_font (cr, 10, TRUE);
            cairo_text_extents_t te;
            cairo_text_extents (cr, "OOM", &te);
            double ty = MAX (plot_y (ax, acc), ax->y0) + 3;
            cairo_rectangle (cr, x + bw / 2 - te.x_advance / 2 - 2, ty, te.x_advance + 4, 13);
            cairo_set_source_rgb (cr, 1, 1, 1);
            cairo_fill (cr);
            cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
            plot_text (cr, x + bw / 2, ty + 1, 0.5, 0, "OOM");
            cairo_restore (cr);
          }
        if (nc > 1)
          {
            /* which cluster: its index under the bar, named in the legend */
            cairo_save (cr);
            plot_font (cr, 10, FALSE);
            cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
            char tag[4] = { (char) ('A' + c), 0 };
            plot_text (cr, x + bw / 2, ax->y1 + 22, 0.5, 0, tag);
            cairo_restore (cr);
          }
      }
}

static gboolean
breakdown_segments (const ReportScalingRow *row, double *seg)
{
  if (!(row->step_time_s > 0))
    return FALSE;
  double t = row->step_time_s, sum = 0;
  seg[0] = row->compute_s / t;
  seg[1] = row->bubble_fraction;
  for (int k = 0; k < REPORT_COMM_N; k++)
    seg[2 + k] = row->exposed_s[k] / t;
  for (int k = 0; k < 7; k++)
    sum += seg[k];
  /* stages that end before the critical one idle until the step ends */
  seg[7] = sum < 1 ? 1 - sum : 0;
  return TRUE;
}

static void
size_labels (const ReportScaling *r, GPtrArray *out)
{
  for (guint i = 0; i < n_sizes (r); i++)
    g_ptr_array_add (out, g_strdup_printf ("%d", row_at (r, 0, i)->gpus));
}

/* Which letter under a bar is which cluster: listed in the side panel, below y. */
static void
cluster_key (cairo_t *cr, const ReportScaling *r, double x, double y)
{
  if (r->clusters->len < 2)
    return;
  cairo_save (cr);
  plot_font (cr, 12, FALSE);
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  plot_text (cr, x, y, 0, 0, "bars per size:");
  for (guint c = 0; c < r->clusters->len; c++)
    {
      g_autofree char *line = g_strdup_printf ("%c = %s", 'A' + c,
                                               (char *) g_ptr_array_index (r->clusters, c));
      plot_text (cr, x, y + 16 * (c + 1), 0, 0, line);
    }
  cairo_restore (cr);
}

void
report_plot_breakdown (const ReportScaling *r, cairo_t *cr, double w, double h)
{
  PlotAxes ax;
  g_autofree char *title = g_strdup_printf ("%s: where the step goes", r->model);
  plot_begin (cr, w, h, title, &ax);
  ax.x1 = w - 190;   /* room for the legend beside the bars */
  ax.ymin = 0;
  ax.ymax = 1;
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  size_labels (r, labels);
  plot_axis_x_categories (cr, &ax, (const char *const *) labels->pdata, labels->len,
                          "GPUs");
  plot_axis_y (cr, &ax, "%", "share of the step time (%)");
  gboolean used[8] = { 0 };
  draw_bars (cr, &ax, r, breakdown_segments, 8, used);
  plot_frame (cr, &ax);
  PlotLegendEntry legend[8];
  guint nl = 0;
  for (int k = 7; k >= 0; k--)     /* top segment first, as stacked */
    if (used[k])
      legend[nl++] = (PlotLegendEntry) { segment_names[k], plot_segment_style (k), 1 };
  PlotAxes side = ax;
  side.x0 = ax.x1 + 2;
  side.x1 = w - 4;
  plot_legend (cr, &side, legend, nl, TRUE);
  cluster_key (cr, r, side.x0 + 10, side.y0 + 30 + 18 * nl);
}

static gboolean
memory_segments (const ReportScalingRow *row, double *seg)
{
  for (int k = 0; k < PLAN_MEM_N; k++)
    seg[k] = (double) row->memory_bytes[k];
  return row->peak_memory_bytes > 0;
}

void
report_plot_memory (const ReportScaling *r, cairo_t *cr, double w, double h)
{
  PlotAxes ax;
  g_autofree char *title = g_strdup_printf ("%s: memory per GPU (peak stage) against HBM",
                                            r->model);
  plot_begin (cr, w, h, title, &ax);
  ax.x1 = w - 190;
  double hi = 0;
  for (guint i = 0; i < r->rows->len; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      if (row->predicted)
        hi = MAX (hi, MAX ((double) row->peak_memory_bytes, (double) row->capacity_bytes));
    }
  ax.ymin = 0;
  plot_nice_linear (hi * 1.05 / (1024.0 * 1024 * 1024), &ax.ymax);
  ax.ymax *= 1024.0 * 1024 * 1024;
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  size_labels (r, labels);
  plot_axis_x_categories (cr, &ax, (const char *const *) labels->pdata, labels->len,
                          "GPUs");
  plot_axis_y (cr, &ax, "GiB", "memory per GPU (GiB)");
  gboolean used[PLAN_MEM_N] = { 0 };
  draw_bars (cr, &ax, r, memory_segments, PLAN_MEM_N, used);
  /* HBM capacity per cluster: a dashed line with its figure (once when equal) */
  guint64 caps[8] = { 0 };
  gboolean all_equal = TRUE;
  for (guint c = 0; c < r->clusters->len && c < 8; c++)
    {
      for (guint i = 0; i < n_sizes (r); i++)
        if (row_at (r, c, i)->predicted)
          caps[c] = row_at (r, c, i)->capacity_bytes;
      all_equal &= caps[c] == 0 || caps[c] == caps[0] || caps[0] == 0;
    }
  for (guint c = 0; c < r->clusters->len && c < 8; c++)
    {
      guint64 cap = caps[c];
      gboolean seen = FALSE;
      for (guint e = 0; e < c; e++)
        seen |= caps[e] == cap;
      if (cap == 0 || seen)
        continue;
      double y = plot_y (&ax, (double) cap);
      cairo_save (cr);
      cairo_set_source_rgb (cr, 0.75, 0.1, 0.1);
      cairo_set_line_width (cr, 1.8);
      double d[] = { 7, 4 };
      cairo_set_dash (cr, d, 2, c * 5.0);
      cairo_move_to (cr, ax.x0, y);
      cairo_line_to (cr, ax.x1, y);
      cairo_stroke (cr);
      plot_font (cr, 11, TRUE);
      g_autofree char *lab = r->clusters->len > 1 && !all_equal
        ? g_strdup_printf ("HBM %c %.0f GiB", 'A' + c, (double) cap / (1 << 30))
        : g_strdup_printf ("HBM %.0f GiB", (double) cap / (1 << 30));
      cairo_text_extents_t te;
      cairo_text_extents (cr, lab, &te);
      cairo_rectangle (cr, ax.x1 - te.x_advance - 8, y - 17, te.x_advance + 6, 14);
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 0.75, 0.1, 0.1);
      plot_text (cr, ax.x1 - 5, y - 3, 1, 1, lab);
      cairo_restore (cr);
    }
  plot_frame (cr, &ax);
  PlotLegendEntry legend[PLAN_MEM_N];
  guint nl = 0;
  static const char *const mem_names[] = { "parameters", "gradients", "optimizer",
                                           "activations", "comm buffers", "reserve" };
  G_STATIC_ASSERT (G_N_ELEMENTS (mem_names) == PLAN_MEM_N);
  for (int k = PLAN_MEM_N - 1; k >= 0; k--)
    if (used[k])
      legend[nl++] = (PlotLegendEntry) { mem_names[k], plot_segment_style (k), 1 };
  PlotAxes side = ax;
  side.x0 = ax.x1 + 2;
  side.x1 = w - 4;
  plot_legend (cr, &side, legend, nl, TRUE);
  cluster_key (cr, r, side.x0 + 10, side.y0 + 30 + 18 * nl);
}
