/* results/report-output.c - files of a report: the directory, no silent overwrite, plots
 * as PNG files and SVG data URIs, the HTML frame and table helpers. */
#include "config.h"
#include "results/report-private.h"
#include "util/output.h"
#include "util/input.h"

#include <cairo-svg.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean
report_formats_parse (const char *text, guint *out, GError **error)
{
  static const struct { const char *name; guint bit; } names[] = {
    { "html", REPORT_FORMAT_HTML }, { "md", REPORT_FORMAT_MD }, { "markdown", REPORT_FORMAT_MD },
    { "csv", REPORT_FORMAT_CSV }, { "json", REPORT_FORMAT_JSON }, { "png", REPORT_FORMAT_PNG },
  };
  guint bits = 0;
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i]; i++)
    {
      const char *p = g_strstrip (parts[i]);
      guint k;
      for (k = 0; k < G_N_ELEMENTS (names); k++)
        if (g_ascii_strcasecmp (p, names[k].name) == 0)
          break;
      if (k == G_N_ELEMENTS (names))
        {
          g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                       "unknown report format '%s' (hint: html, md, csv, json, png)", p);
          return FALSE;
        }
      bits |= names[k].bit;
    }
  if (bits == 0)
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                   "--format names no format (hint: html,md,csv,json,png)");
      return FALSE;
    }
  *out = bits;
  return TRUE;
}

gboolean
report_dir_prepare (const char *dir, const char *const *names, gboolean force, GError **error)
{
  /* --out "" (an unset variable): mkdir("") said "cannot create the report directory :
   * Invalid argument" */
  if (*dir == '\0')
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                   "--out '' names no directory (hint: --out report, or drop --out for the "
                   "default)");
      return FALSE;
    }
  if (g_file_test (dir, G_FILE_TEST_EXISTS) && !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_WRITE,
                   "cannot write the report to %s: it is a file, not a directory "
                   "(hint: --out DIR names a directory)", dir);
      return FALSE;
    }
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int e = errno;
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_WRITE,
                   "cannot create the report directory %s: %s (hint: --out DIR elsewhere)",
                   dir, g_strerror (e));
      return FALSE;
    }
  if (access (dir, W_OK | X_OK) != 0)
    {
      int e = errno;
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_WRITE,
                   "cannot write to the report directory %s: %s (hint: --out DIR elsewhere)",
                   dir, g_strerror (e));
      return FALSE;
    }
  if (!force)
    for (guint i = 0; names && names[i]; i++)
      {
        g_autofree char *path = g_build_filename (dir, names[i], NULL);
        if (g_file_test (path, G_FILE_TEST_EXISTS))
          {
            g_set_error (error, REPORT_ERROR, REPORT_ERROR_EXISTS,
                         "%s already exists; not overwriting a report (hint: --force, or "
                         "--out DIR elsewhere)", path);
            return FALSE;
          }
      }
  return TRUE;
}

GPtrArray *
report_staged_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) util_output_staged_free);
}

gboolean
report_file_write (const char *dir, const char *name, const char *data, gssize len,
                   GPtrArray *staged, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) ferr = NULL;
  /* a temporary file beside it, renamed by report_staged_commit once every file of the
   * report is written; an interrupt waits for the renames (util_output_hold_signals) */
  UtilOutputStaged *s = util_output_stage (path, data, len < 0 ? strlen (data) : (gsize) len,
                                           &ferr);
  if (s == NULL)
    {
      /* the directory was checked (report_dir_prepare): a file that fails now is the
       * disk's doing (full, an I/O error), a failure at run time, not the user's input */
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_FAILED,
                   "%s; no file of the report in %s was replaced", ferr->message, dir);
      return FALSE;
    }
  g_ptr_array_add (staged, s);
  return TRUE;
}

gboolean
report_staged_commit (GPtrArray *staged, const char *dir, GPtrArray *written, GError **error)
{
  for (guint i = 0; i < staged->len; i++)
    {
      UtilOutputStaged *s = g_ptr_array_index (staged, i);
      g_autoptr (GError) ferr = NULL;
      if (!util_output_staged_commit (s, &ferr))
        {
          /* a rename in one directory fails only on a broken file system; what was
           * renamed before it cannot be taken back, so the message says how far it got */
          g_set_error (error, REPORT_ERROR, REPORT_ERROR_FAILED,
                       "%s; %u of the report's %u files in %s were replaced before it",
                       ferr->message, i, staged->len, dir);
          return FALSE;
        }
      if (written)
        g_ptr_array_add (written, g_strdup (util_output_staged_path (s)));
    }
  return TRUE;
}

/* Two reports written to one directory at once (two `report --force` runs, a script's
 * loop run in parallel) would each rename its files over the other's, leaving a page of
 * one beside the plots of the other. A report takes DIR/REPORT_LOCK_NAME with flock
 * first: a second one says it waits and then runs after the first (its existence check
 * and files come after the first's). The lock file is removed by its holder, under the
 * lock; a waiter that then gets the lock of the removed file tries the new one (the
 * file's inode is compared), so two can never hold the lock of one path. Returns the
 * descriptor, or -1 when no lock can be taken (the directory is missing or not
 * writable: report_dir_prepare then says why). */
static int
report_dir_lock (const char *dir)
{
  if (*dir == '\0' || g_mkdir_with_parents (dir, 0755) != 0)
    return -1;
  g_autofree char *path = g_build_filename (dir, REPORT_LOCK_NAME, NULL);
  gboolean said = FALSE;
  for (;;)
    {
      int fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0)
        return -1;
      if (flock (fd, LOCK_EX | LOCK_NB) != 0)
        {
          if (errno != EWOULDBLOCK)
            {
              close (fd);
              return -1;
            }
          if (!said)
            g_printerr ("tandem: another report is being written to %s; waiting for it to "
                        "finish\n", dir);
          said = TRUE;
          while (flock (fd, LOCK_EX) != 0)
            if (errno != EINTR)
              {
                close (fd);
                return -1;
              }
        }
      struct stat held, now;
      if (fstat (fd, &held) == 0 && g_stat (path, &now) == 0 && held.st_ino == now.st_ino
          && held.st_dev == now.st_dev)
        return fd;
      close (fd);   /* its holder removed it as it finished: take the new one */
    }
}

static void
report_dir_unlock (const char *dir, int fd)
{
  if (fd < 0)
    return;
  g_autofree char *path = g_build_filename (dir, REPORT_LOCK_NAME, NULL);
  g_unlink (path);
  close (fd);
}

gboolean
report_write_staged (ReportStageFunc stage, gconstpointer report, const char *dir,
                     guint formats, gboolean force, GPtrArray *written, GError **error)
{
  int lock = report_dir_lock (dir);
  g_autoptr (GPtrArray) staged = report_staged_new ();
  util_output_hold_signals ();
  /* the files the report before wrote here (REPORT_FILES_NAME): a --force report of other
   * formats left them beside its own (report.html and the PNGs of another run next to a
   * new report.csv); read before the new list replaces it */
  g_autofree char *list_path = g_build_filename (dir, REPORT_FILES_NAME, NULL);
  g_autofree char *before = NULL;
  g_file_get_contents (list_path, &before, NULL, NULL);
  gboolean ok = stage (report, dir, formats, force, staged, error);
  g_autoptr (GString) list = g_string_new (NULL);
  g_autoptr (GHashTable) now = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; ok && i < staged->len; i++)
    {
      char *base = g_path_get_basename (util_output_staged_path (g_ptr_array_index (staged, i)));
      g_string_append_printf (list, "%s\n", base);
      g_hash_table_add (now, base);
    }
  /* the last report's files this one does not write (plain names in the directory) */
  g_auto (GStrv) old = before != NULL ? g_strsplit (before, "\n", -1) : g_new0 (char *, 1);
  g_autoptr (GPtrArray) stale = g_ptr_array_new_with_free_func (g_free);
  /* only the names a report writes (report.html / .md / .csv / .json and the plots):
   * another name on the list (a copied or edited list) was removed by --force, where the
   * README says a report leaves every other file in the directory alone */
  static const char *const ours[] = { "report.html", "report.md", "report.csv", "report.json",
                                      "throughput.png", "efficiency.png", "breakdown.png",
                                      "memory.png", "scatter.png", "terms.png", NULL };
  for (guint i = 0; ok && old[i] != NULL; i++)
    if (*old[i] != '\0' && g_strv_contains (ours, old[i])
        && !g_hash_table_contains (now, old[i]))
      {
        char *path = g_build_filename (dir, old[i], NULL);
        if (g_file_test (path, G_FILE_TEST_EXISTS))
          {
            g_ptr_array_add (stale, path);
            /* without --force nothing of the report before was replaced (its files
             * refused the report otherwise): they stay on the list, for a later --force
             * to take away */
            if (!force)
              g_string_append_printf (list, "%s\n", old[i]);
          }
        else
          g_free (path);
      }
  if (ok)
    {
      ok = report_file_write (dir, REPORT_FILES_NAME, list->str, (gssize) list->len, staged,
                              error)
           && report_staged_commit (staged, dir, written, error);
      /* the written list names the report's own files */
      if (ok && written != NULL && written->len > 0)
        for (guint i = written->len; i-- > 0;)
          if (g_str_has_suffix (g_ptr_array_index (written, i), REPORT_FILES_NAME))
            g_ptr_array_remove_index (written, i);
    }
  for (guint i = 0; ok && force && i < stale->len; i++)
    g_unlink (g_ptr_array_index (stale, i));
  g_ptr_array_set_size (staged, 0);   /* what was not renamed is removed */
  report_dir_unlock (dir, lock);
  util_output_release_signals ();
  return ok;
}

gboolean
report_json_write (const char *dir, const char *name, JsonBuilder *builder,
                   GPtrArray *staged, GError **error)
{
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  g_autofree char *text = util_json_to_data (root, TRUE);
  return report_file_write (dir, name, text, -1, staged, error);
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

gboolean
report_plot_png (ReportPlotFunc f, const void *data, const char *dir, const char *name,
                 GPtrArray *staged, GError **error)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                         (int) REPORT_PLOT_W, (int) REPORT_PLOT_H);
  cairo_t *cr = cairo_create (surface);
  f (data, cr, REPORT_PLOT_W, REPORT_PLOT_H);
  cairo_status_t st = cairo_status (cr);
  cairo_destroy (cr);
  g_autoptr (GByteArray) png = g_byte_array_new ();
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_write_to_png_stream (surface, append_bytes, png);
  cairo_surface_destroy (surface);
  if (st != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_FAILED, "cannot draw %s: %s", name,
                   cairo_status_to_string (st));
      return FALSE;
    }
  return report_file_write (dir, name, (const char *) png->data, png->len, staged, error);
}

char *
report_plot_svg_uri (ReportPlotFunc f, const void *data, GError **error)
{
  g_autoptr (GByteArray) svg = g_byte_array_new ();
  cairo_surface_t *surface = cairo_svg_surface_create_for_stream (append_bytes, svg,
                                                                  REPORT_PLOT_W, REPORT_PLOT_H);
  cairo_t *cr = cairo_create (surface);
  f (data, cr, REPORT_PLOT_W, REPORT_PLOT_H);
  cairo_status_t st = cairo_status (cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (st != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_FAILED, "cannot draw a plot: %s",
                   cairo_status_to_string (st));
      return NULL;
    }
  g_autofree char *b64 = g_base64_encode (svg->data, svg->len);
  return g_strconcat ("data:image/svg+xml;base64,", b64, NULL);
}

void
report_html_escape (GString *s, const char *text)
{
  for (const char *p = text ? text : ""; *p; p++)
    switch (*p)
      {
      case '<': g_string_append (s, "&lt;"); break;
      case '>': g_string_append (s, "&gt;"); break;
      case '&': g_string_append (s, "&amp;"); break;
      case '"': g_string_append (s, "&quot;"); break;
      default: g_string_append_c (s, *p); break;
      }
}

void
report_html_begin (GString *s, const char *title)
{
  g_string_append (s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<title>");
  report_html_escape (s, title);
  /* One file: the style is inline, the plots are data URIs; nothing is fetched. The
   * plots' frame colour (#5a6b7c) is used nowhere else, so a reader (or a test) can
   * find each plot's box on a screenshot. */
  g_string_append (s, "</title>\n<style>\n"
                   "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;color:#222;"
                   "background:#fff;margin:24px auto;max-width:1100px;padding:0 16px;"
                   "line-height:1.4}\n"
                   "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}\n"
                   "table{border-collapse:collapse;font-size:12px;margin:8px 0}\n"
                   "th,td{border:1px solid #bbb;padding:3px 6px;text-align:right;"
                   "white-space:nowrap}\n"
                   "td.w{white-space:normal;min-width:260px}\n"
                   "div.scroll{overflow-x:auto}\n"
                   "th{background:#eee}td.l,th.l{text-align:left}\n"
                   "tr.bad td{background:#f4f4f4;color:#555}\n"
                   "figure{margin:16px 0}\n"
                   "img.plot{display:block;border:1px solid #5a6b7c}\n"
                   "figcaption{font-size:13px;color:#444;max-width:760px}\n"
                   "dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}\n"
                   "dt{font-weight:bold}dd{margin:0}\n"
                   "</style>\n</head>\n<body>\n");
}

void
report_html_end (GString *s)
{
  g_string_append_printf (s, "<p style=\"font-size:12px;color:#666\">Generated by tandem %s."
                          "</p>\n</body>\n</html>\n", TANDEM_VERSION);
}

void
report_html_figure (GString *s, const char *uri, const char *alt, const char *caption)
{
  g_string_append_printf (s, "<figure>\n<img class=\"plot\" width=\"%d\" height=\"%d\" alt=\"",
                          (int) REPORT_PLOT_W, (int) REPORT_PLOT_H);
  report_html_escape (s, alt);
  g_string_append_printf (s, "\" src=\"%s\">\n<figcaption>", uri);
  report_html_escape (s, caption);
  g_string_append (s, "</figcaption>\n</figure>\n");
}

const char *
report_fmt (char *buf, gsize n, const char *format, double v)
{
  if (isnan (v) || !isfinite (v))
    g_strlcpy (buf, "-", n);
  else if (fabs (v) >= 1e15)
    /* a fixed-point format of 1e308 (a stored err_pct) filled the buffer with the first
     * digits of a 309-digit number, which read as another number */
    g_snprintf (buf, n, "%.3g", v);
  else
    g_snprintf (buf, n, format, v);
  return buf;
}

/* Text that a Markdown reader shows as written: a name from a user's file (a model, a
 * cluster, a plan) with "<img onerror=...>", "[link](javascript:...)" or a newline and
 * "| row |" became HTML, a link or a table row of its own. HTML's three as entities, the
 * punctuation Markdown reads as backslash escapes (CommonMark shows the character), line
 * breaks and other control characters as a space. */
void
report_md_escape (GString *s, const char *text)
{
  if (text == NULL)
    return;
  for (const char *p = text; *p; p++)
    {
      if (*p == '<')
        g_string_append (s, "&lt;");
      else if (*p == '>')
        g_string_append (s, "&gt;");
      else if (*p == '&')
        g_string_append (s, "&amp;");
      else if (strchr ("|\\`*_[]#!", *p) != NULL)
        {
          g_string_append_c (s, '\\');
          g_string_append_c (s, *p);
        }
      else if ((unsigned char) *p < 0x20 || *p == 0x7f)
        g_string_append_c (s, ' ');
      else
        g_string_append_c (s, *p);
    }
}

char *
report_md_escaped (const char *text)
{
  GString *s = g_string_new (NULL);
  report_md_escape (s, text);
  return g_string_free (s, FALSE);
}

char *
report_fmt_count (double v)
{
  if (!isfinite (v) || v < 0 || v > 1e18)
    return g_strdup ("-");
  /* under 100, three figures: 0.406 tokens/s read "0" (predict says 0.406) */
  if (v > 0 && v < 99.5)
    return g_strdup_printf ("%.3g", v);
  char digits[32];
  g_snprintf (digits, sizeof digits, "%.0f", v);
  GString *s = g_string_new (NULL);
  int len = (int) strlen (digits);
  for (int i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (s, ',');
      g_string_append_c (s, digits[i]);
    }
  return g_string_free (s, FALSE);
}

void
report_csv_field (GString *s, const char *text)
{
  util_csv_field (s, text);
}

void
report_csv_number (GString *s, double v)
{
  if (isnan (v) || !isfinite (v))
    return;
  /* exact: a whole number (bytes, counts) in full, else the shortest of 15 or 17
   * significant digits that reads back as v (9 digits wrote a peak of 90,519,614,720
   * bytes as 9.05196147e+10) */
  if (v == floor (v) && fabs (v) < 9007199254740992.0)
    {
      g_string_append_printf (s, "%.0f", v);
      return;
    }
  char buf[40];
  g_snprintf (buf, sizeof buf, "%.15g", v);
  if (g_ascii_strtod (buf, NULL) != v)
    g_snprintf (buf, sizeof buf, "%.17g", v);
  g_string_append (s, buf);
}
