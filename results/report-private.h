/* results/report-private.h - what the report's files share: the plot toolkit (axes,
 * ticks, series styles that read in grey, legends) and the output helpers (the directory
 * check, files that refuse to overwrite, plots as PNG files and as data URIs). */
#pragma once

#include "results/report.h"

G_BEGIN_DECLS

/* Plot size in points (= CSS px at 100%): one figure per row of the page. */
#define REPORT_PLOT_W 760.0
#define REPORT_PLOT_H 440.0

/* One series' look: a colour of its own lightness, a dash, a marker, a hatch. The
 * lightness steps are far apart so that a grey print still tells them apart. */
typedef struct {
  double   r, g, b;
  double   dash;        /* 0: solid, else the dash length */
  int      marker;      /* 0 circle, 1 square, 2 triangle, 3 diamond */
  int      hatch;       /* 0 none, 1 diagonal, 2 cross-hatch, 3 dots, 4 horizontal */
} PlotStyle;

const PlotStyle *plot_series_style (guint i);     /* lines: clusters */
const PlotStyle *plot_segment_style (guint i);    /* stacked bar segments */

typedef struct {
  double   x0, y0, x1, y1;        /* plot area on the surface: x0 left, y1 bottom */
  double   xmin, xmax, ymin, ymax;
  gboolean xlog, ylog;
} PlotAxes;

double plot_x (const PlotAxes *ax, double v);
double plot_y (const PlotAxes *ax, double v);

/* White page, title at the top; returns the plot area left for axes. */
void plot_begin (cairo_t *cr, double w, double h, const char *title, PlotAxes *ax);
void plot_font (cairo_t *cr, double size, gboolean bold);
/* Text anchored at (x, y): ha 0 left / 0.5 centre / 1 right, va likewise (0 top). */
void plot_text (cairo_t *cr, double x, double y, double ha, double va, const char *text);
void plot_text_vertical (cairo_t *cr, double x, double y, const char *text);

/* Axes with ticks, grid and labels. x ticks: the given values (log or linear, labelled
 * with thousands separators) or n categorical labels when `categories`. */
void plot_axis_x_values (cairo_t *cr, const PlotAxes *ax, const double *ticks, guint n,
                         const char *label);
void plot_axis_x_categories (cairo_t *cr, const PlotAxes *ax, const char *const *labels,
                             guint n, const char *label);
/* y ticks: decades with 2 and 5 for a log axis, a 1-2-5 step for a linear one; `unit`
 * formats a tick ("%" multiplies by 100; "si" writes 1.5M; "GiB" divides by 2^30). */
void plot_axis_y (cairo_t *cr, const PlotAxes *ax, const char *unit, const char *label);
void plot_frame (cairo_t *cr, const PlotAxes *ax);

void plot_marker (cairo_t *cr, double x, double y, const PlotStyle *s, gboolean filled);
void plot_fill_rect (cairo_t *cr, double x, double y, double w, double h, const PlotStyle *s);

typedef struct {
  const char      *label;
  const PlotStyle *style;
  int              kind;           /* 0 line + marker, 1 filled box, 2 dashed line only,
                                      3 hollow marker */
} PlotLegendEntry;
/* A boxed legend at the top right (or top left when `left`) inside the plot area. */
void plot_legend (cairo_t *cr, const PlotAxes *ax, const PlotLegendEntry *e, guint n,
                  gboolean left);

/* Scale from data: nice bounds for a linear axis from 0, or decades for a log one. */
void plot_nice_linear (double max, double *out_max);
void plot_nice_log (double min, double max, double *out_min, double *out_max);

/* Output. The directory is created when missing; FALSE with REPORT_ERROR_WRITE when it
 * cannot be, or REPORT_ERROR_EXISTS when one of `names` is there and !force. */
gboolean report_dir_prepare (const char *dir, const char *const *names, gboolean force,
                             GError **error);
/* A report's files are staged, then renamed together: report_staged_new () holds them
 * (freeing it removes the temporaries of those not renamed); report_file_write writes
 * dir/name to a temporary beside it and adds it, FALSE with REPORT_ERROR_FAILED when the
 * write fails (a full disk: a run-time failure, the directory having been checked);
 * report_staged_commit renames each over its target, in order, and adds its path to
 * `written` (may be NULL). */
GPtrArray *report_staged_new (void);
gboolean report_file_write (const char *dir, const char *name, const char *data, gssize len,
                            GPtrArray *staged, GError **error);
gboolean report_staged_commit (GPtrArray *staged, const char *dir, GPtrArray *written,
                               GError **error);
/* Stages a report's files with `stage` (which calls report_file_write for each), then
 * renames them together, signals held from the first temporary to the last rename: a disk
 * that fills half-way leaves the report that was there whole, and no temporary. One
 * report at a time per directory (REPORT_LOCK_NAME, flock): a second waits. */
#define REPORT_LOCK_NAME ".tandem-report.lock"   /* held while a report is written */
/* The names of the files the last report wrote in its directory, one a line: a --force
 * report removes those of the last that it does not write itself */
#define REPORT_FILES_NAME ".tandem-report-files"
typedef gboolean (*ReportStageFunc) (gconstpointer report, const char *dir, guint formats,
                                     gboolean force, GPtrArray *staged, GError **error);
gboolean report_write_staged (ReportStageFunc stage, gconstpointer report, const char *dir,
                              guint formats, gboolean force, GPtrArray *written,
                              GError **error);
/* The builder's root as pretty JSON in dir/name, through util_json_to_data (the one way
 * JSON leaves the program: no inf/nan, valid UTF-8). */
gboolean report_json_write (const char *dir, const char *name, JsonBuilder *builder,
                            GPtrArray *staged, GError **error);

typedef void (*ReportPlotFunc) (const void *data, cairo_t *cr, double w, double h);
/* Draws the plot on a PNG surface and writes it to dir/name. */
gboolean report_plot_png (ReportPlotFunc f, const void *data, const char *dir,
                          const char *name, GPtrArray *staged, GError **error);
/* Draws the plot on an SVG surface and returns "data:image/svg+xml;base64,..." */
char    *report_plot_svg_uri (ReportPlotFunc f, const void *data, GError **error);

/* HTML pieces. */
void report_html_begin (GString *s, const char *title);
void report_html_end (GString *s);
void report_html_escape (GString *s, const char *text);
/* `text` shown as written in Markdown, in a table cell, a heading or a line: HTML's
 * three as entities, Markdown's punctuation ('|', '[', '*', ...) backslash-escaped, line
 * breaks and other control characters as blanks (a '|' or a newline in a model or plan
 * name broke the table; "<img ...>" in a cluster name was HTML) */
void report_md_escape (GString *s, const char *text);
/* The same as a new string (g_free). */
char *report_md_escaped (const char *text);
/* <figure> with the plot as an <img> (the SVG as data URI) and a caption. */
void report_html_figure (GString *s, const char *uri, const char *alt, const char *caption);

/* Numbers for tables: "%.3f" etc. or "-" for NaN. */
const char *report_fmt (char *buf, gsize n, const char *format, double v);
/* "1,234,567" (rounded), or "-" for NaN; newly allocated. */
char *report_fmt_count (double v);
/* CSV field: quoted when it holds a comma, quote or newline. */
void report_csv_field (GString *s, const char *text);
/* CSV number: %.9g, empty for NaN. */
void report_csv_number (GString *s, double v);

G_END_DECLS
