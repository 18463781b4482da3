/* results/report-plot.c - the plot toolkit on cairo: axes, ticks with units, grid,
 * markers, hatched fills and legends. Knows nothing of reports or files. */
#include "results/report-private.h"

#include <math.h>

/* Lines (clusters): dark blue, then orange, then a mid grey-green; lightness about 25%,
 * 70% and 50%, so grey prints still differ, and the markers and dashes differ too. */
static const PlotStyle series_styles[] = {
  { 0.11, 0.23, 0.45, 0, 0, 0 },
  { 0.90, 0.55, 0.05, 6, 1, 0 },
  { 0.30, 0.55, 0.40, 2, 2, 0 },
  { 0.55, 0.20, 0.50, 9, 3, 0 },
};

/* Stacked segments: lightness alternates dark / light and every other one is hatched,
 * so neighbours differ in grey and in texture. */
static const PlotStyle segment_styles[] = {
  { 0.16, 0.29, 0.52, 0, 0, 0 },   /* compute: dark blue, plain */
  { 0.85, 0.85, 0.85, 0, 0, 3 },   /* bubble: light grey, dots */
  { 0.86, 0.42, 0.10, 0, 0, 1 },   /* tp: orange, diagonal */
  { 0.55, 0.78, 0.90, 0, 0, 0 },   /* cp: light blue, plain */
  { 0.40, 0.20, 0.45, 0, 0, 2 },   /* ep: dark purple, cross */
  { 0.95, 0.80, 0.30, 0, 0, 4 },   /* pp: yellow, horizontal */
  { 0.20, 0.50, 0.35, 0, 0, 1 },   /* dp: green, diagonal */
  { 1.00, 1.00, 1.00, 0, 0, 2 },   /* other: white, cross */
};

const PlotStyle *
plot_series_style (guint i)
{
  return &series_styles[i % G_N_ELEMENTS (series_styles)];
}

const PlotStyle *
plot_segment_style (guint i)
{
  return &segment_styles[i % G_N_ELEMENTS (segment_styles)];
}

double
plot_x (const PlotAxes *ax, double v)
{
  double t = ax->xlog ? (log (v) - log (ax->xmin)) / (log (ax->xmax) - log (ax->xmin))
                      : (v - ax->xmin) / (ax->xmax - ax->xmin);
  return ax->x0 + t * (ax->x1 - ax->x0);
}

double
plot_y (const PlotAxes *ax, double v)
{
  double t = ax->ylog ? (log (v) - log (ax->ymin)) / (log (ax->ymax) - log (ax->ymin))
                      : (v - ax->ymin) / (ax->ymax - ax->ymin);
  return ax->y1 - t * (ax->y1 - ax->y0);
}

void
plot_font (cairo_t *cr, double size, gboolean bold)
{
  cairo_select_font_face (cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                          bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
}

void
plot_text (cairo_t *cr, double x, double y, double ha, double va, const char *text)
{
  cairo_text_extents_t te;
  cairo_font_extents_t fe;
  cairo_text_extents (cr, text, &te);
  cairo_font_extents (cr, &fe);
  double h = fe.ascent + fe.descent;
  cairo_move_to (cr, x - ha * te.x_advance, y - va * h + fe.ascent);
  cairo_show_text (cr, text);
}

void
plot_text_vertical (cairo_t *cr, double x, double y, const char *text)
{
  cairo_save (cr);
  cairo_translate (cr, x, y);
  cairo_rotate (cr, -G_PI / 2);
  plot_text (cr, 0, 0, 0.5, 0, text);
  cairo_restore (cr);
}

void
plot_begin (cairo_t *cr, double w, double h, const char *title, PlotAxes *ax)
{
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  plot_font (cr, 15, TRUE);
  plot_text (cr, w / 2, 10, 0.5, 0, title);
  memset (ax, 0, sizeof *ax);
  ax->x0 = 86;
  ax->x1 = w - 24;
  ax->y0 = 40;
  ax->y1 = h - 62;
}

static void
fmt_thousands (char *buf, gsize n, double v)
{
  char digits[32];
  g_snprintf (digits, sizeof digits, "%.0f", v);
  int len = (int) strlen (digits), o = 0;
  for (int i = 0; i < len && o < (int) n - 2; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        buf[o++] = ',';
      buf[o++] = digits[i];
    }
  buf[o] = '\0';
}

static void
fmt_tick (char *buf, gsize n, double v, const char *unit)
{
  if (fabs (v) < 1e-9)
    v = 0;   /* a tick stepped to zero from below is not "-0" */
  if (g_strcmp0 (unit, "%") == 0)
    g_snprintf (buf, n, "%.0f%%", v * 100);
  else if (g_strcmp0 (unit, "GiB") == 0)
    g_snprintf (buf, n, "%.0f", v / (1024.0 * 1024 * 1024));
  else if (g_strcmp0 (unit, "si") == 0)
    {
      static const char *const pre[] = { "", "k", "M", "G", "T" };
      int p = 0;
      while (fabs (v) >= 1000 && p < 4)
        v /= 1000, p++;
      g_snprintf (buf, n, "%g%s", v, pre[p]);
    }
  else if (g_strcmp0 (unit, "s") == 0)
    g_snprintf (buf, n, "%g", v);
  else
    fmt_thousands (buf, n, v);
}

static void
grid_line (cairo_t *cr, double x0, double y0, double x1, double y1)
{
  cairo_save (cr);
  cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, x0, y0);
  cairo_line_to (cr, x1, y1);
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
plot_frame (cairo_t *cr, const PlotAxes *ax)
{
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_line_width (cr, 1.2);
  cairo_rectangle (cr, ax->x0, ax->y0, ax->x1 - ax->x0, ax->y1 - ax->y0);
  cairo_stroke (cr);
}

void
plot_axis_x_values (cairo_t *cr, const PlotAxes *ax, const double *ticks, guint n,
                    const char *label)
{
  plot_font (cr, 12, FALSE);
  /* thin out labels that would collide; ticks stay */
  double last_right = -1e9;
  for (guint i = 0; i < n; i++)
    {
      double x = plot_x (ax, ticks[i]);
      grid_line (cr, x, ax->y0, x, ax->y1);
      cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
      cairo_move_to (cr, x, ax->y1);
      cairo_line_to (cr, x, ax->y1 + 5);
      cairo_stroke (cr);
      char buf[32];
      fmt_thousands (buf, sizeof buf, ticks[i]);
      cairo_text_extents_t te;
      cairo_text_extents (cr, buf, &te);
      if (x - te.x_advance / 2 > last_right + 6)
        {
          plot_text (cr, x, ax->y1 + 8, 0.5, 0, buf);
          last_right = x + te.x_advance / 2;
        }
    }
  plot_font (cr, 13, FALSE);
  plot_text (cr, (ax->x0 + ax->x1) / 2, ax->y1 + 30, 0.5, 0, label);
}

void
plot_axis_x_categories (cairo_t *cr, const PlotAxes *ax, const char *const *labels, guint n,
                        const char *label)
{
  plot_font (cr, 12, FALSE);
  double slot = (ax->x1 - ax->x0) / n;
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  for (guint i = 0; i < n; i++)
    plot_text (cr, ax->x0 + slot * (i + 0.5), ax->y1 + 8, 0.5, 0, labels[i]);
  plot_font (cr, 13, FALSE);
  /* below the per-bar cluster letters, when there are any */
  plot_text (cr, (ax->x0 + ax->x1) / 2, ax->y1 + 38, 0.5, 0, label);
}

void
plot_axis_y (cairo_t *cr, const PlotAxes *ax, const char *unit, const char *label)
{
  plot_font (cr, 12, FALSE);
  double ticks[64];
  guint n = 0;
  if (ax->ylog)
    {
      for (double d = pow (10, floor (log10 (ax->ymin))); d <= ax->ymax * 1.0001 && n < 60; d *= 10)
        {
          static const double m[] = { 1, 2, 5 };
          for (guint k = 0; k < 3; k++)
            if (d * m[k] >= ax->ymin * 0.9999 && d * m[k] <= ax->ymax * 1.0001)
              ticks[n++] = d * m[k];
        }
    }
  else
    {
      double span = ax->ymax - ax->ymin;
      double raw = span / 6, mag = pow (10, floor (log10 (raw)));
      double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag
                                                                                  : 10 * mag;
      if (g_strcmp0 (unit, "GiB") == 0)
        {
          /* GiB ticks on whole multiples of 2^30 x 1-2-5 */
          double gib = 1024.0 * 1024 * 1024, r = span / gib / 6, mg = pow (10, floor (log10 (r)));
          step = (r / mg < 1.5 ? mg : r / mg < 3.5 ? 2 * mg : r / mg < 7.5 ? 5 * mg : 10 * mg) * gib;
        }
      for (double v = ceil (ax->ymin / step) * step; v <= ax->ymax + step * 1e-6 && n < 60; v += step)
        ticks[n++] = v;
    }
  for (guint i = 0; i < n; i++)
    {
      double y = plot_y (ax, ticks[i]);
      grid_line (cr, ax->x0, y, ax->x1, y);
      cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
      cairo_move_to (cr, ax->x0 - 5, y);
      cairo_line_to (cr, ax->x0, y);
      cairo_stroke (cr);
      char buf[32];
      fmt_tick (buf, sizeof buf, ticks[i], unit);
      plot_text (cr, ax->x0 - 8, y, 1, 0.5, buf);
    }
  plot_font (cr, 13, FALSE);
  plot_text_vertical (cr, 18, (ax->y0 + ax->y1) / 2, label);
}

static void
marker_path (cairo_t *cr, double x, double y, int marker)
{
  double r = 4.5;
  switch (marker)
    {
    case 1:
      cairo_rectangle (cr, x - r, y - r, 2 * r, 2 * r);
      break;
    case 2:
      cairo_move_to (cr, x, y - r * 1.2);
      cairo_line_to (cr, x + r * 1.1, y + r * 0.8);
      cairo_line_to (cr, x - r * 1.1, y + r * 0.8);
      cairo_close_path (cr);
      break;
    case 3:
      cairo_move_to (cr, x, y - r * 1.3);
      cairo_line_to (cr, x + r * 1.1, y);
      cairo_line_to (cr, x, y + r * 1.3);
      cairo_line_to (cr, x - r * 1.1, y);
      cairo_close_path (cr);
      break;
    default:
      cairo_new_sub_path (cr);
      cairo_arc (cr, x, y, r, 0, 2 * G_PI);
      break;
    }
}

void
plot_marker (cairo_t *cr, double x, double y, const PlotStyle *s, gboolean filled)
{
  cairo_save (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  marker_path (cr, x, y, s->marker);
  cairo_set_source_rgb (cr, filled ? s->r : 1, filled ? s->g : 1, filled ? s->b : 1);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, s->r, s->g, s->b);
  cairo_set_line_width (cr, 1.6);
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
plot_fill_rect (cairo_t *cr, double x, double y, double w, double h, const PlotStyle *s)
{
  if (w <= 0 || h <= 0)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, x, y, w, h);
  cairo_set_source_rgb (cr, s->r, s->g, s->b);
  cairo_fill_preserve (cr);
  cairo_clip (cr);
  /* the hatch in black or white, whichever contrasts with the fill */
  double lum = 0.3 * s->r + 0.59 * s->g + 0.11 * s->b;
  double ink = lum > 0.5 ? 0.15 : 0.95;
  cairo_set_source_rgb (cr, ink, ink, ink);
  cairo_set_line_width (cr, 1);
  switch (s->hatch)
    {
    case 1:
    case 2:
      for (double d = -h; d < w + h; d += 7)
        {
          cairo_move_to (cr, x + d, y + h);
          cairo_line_to (cr, x + d + h, y);
          if (s->hatch == 2)
            {
              cairo_move_to (cr, x + d, y);
              cairo_line_to (cr, x + d + h, y + h);
            }
        }
      cairo_stroke (cr);
      break;
    case 3:
      for (double yy = y + 3; yy < y + h; yy += 6)
        for (double xx = x + 3 + (fmod (yy - y, 12) < 6 ? 0 : 3); xx < x + w; xx += 6)
          {
            cairo_new_sub_path (cr);
            cairo_arc (cr, xx, yy, 1.1, 0, 2 * G_PI);
          }
      cairo_fill (cr);
      break;
    case 4:
      for (double yy = y + 3; yy < y + h; yy += 5)
        {
          cairo_move_to (cr, x, yy);
          cairo_line_to (cr, x + w, yy);
        }
      cairo_stroke (cr);
      break;
    default:
      break;
    }
  cairo_reset_clip (cr);
  cairo_rectangle (cr, x, y, w, h);
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_line_width (cr, 0.8);
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
plot_legend (cairo_t *cr, const PlotAxes *ax, const PlotLegendEntry *e, guint n, gboolean left)
{
  plot_font (cr, 12, FALSE);
  double wmax = 0;
  for (guint i = 0; i < n; i++)
    {
      cairo_text_extents_t te;
      cairo_text_extents (cr, e[i].label, &te);
      wmax = MAX (wmax, te.x_advance);
    }
  double row = 18, bw = wmax + 48, bh = n * row + 8;
  double x = left ? ax->x0 + 10 : ax->x1 - bw - 10, y = ax->y0 + 10;
  cairo_save (cr);
  cairo_rectangle (cr, x, y, bw, bh);
  cairo_set_source_rgba (cr, 1, 1, 1, 0.92);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 0.6, 0.6, 0.6);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  for (guint i = 0; i < n; i++)
    {
      double cy = y + 4 + row * i + row / 2;
      const PlotStyle *s = e[i].style;
      if (e[i].kind == 1)
        plot_fill_rect (cr, x + 8, cy - 6, 24, 12, s);
      else
        {
          if (e[i].kind != 3)
            {
              cairo_set_source_rgb (cr, s->r, s->g, s->b);
              cairo_set_line_width (cr, 2);
              double d[] = { s->dash, s->dash * 0.6 };
              cairo_set_dash (cr, d, s->dash > 0 ? 2 : 0, 0);
              cairo_move_to (cr, x + 6, cy);
              cairo_line_to (cr, x + 34, cy);
              cairo_stroke (cr);
              cairo_set_dash (cr, NULL, 0, 0);
            }
          if (e[i].kind == 0 || e[i].kind == 3)
            plot_marker (cr, x + 20, cy, s, e[i].kind == 0);
        }
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      plot_text (cr, x + 40, cy, 0, 0.5, e[i].label);
    }
  cairo_restore (cr);
}

void
plot_nice_linear (double max, double *out_max)
{
  if (!(max > 0) || !isfinite (max))
    max = 1;
  double mag = pow (10, floor (log10 (max)));
  double m = max / mag;
  double nice = m <= 1 ? 1 : m <= 1.2 ? 1.2 : m <= 1.5 ? 1.5 : m <= 2 ? 2 : m <= 2.5 ? 2.5
              : m <= 3 ? 3 : m <= 4 ? 4 : m <= 5 ? 5 : m <= 6 ? 6 : m <= 8 ? 8 : 10;
  *out_max = nice * mag;
}

void
plot_nice_log (double min, double max, double *out_min, double *out_max)
{
  if (!(min > 0) || !isfinite (min))
    min = 1;
  if (!(max > min) || !isfinite (max))
    max = min * 10;
  *out_min = pow (10, floor (log10 (min)));
  *out_max = pow (10, ceil (log10 (max)));
}
