/* cli/cli-hygiene.c - spread of repeated measurements and the machine's load. */
#include "cli/cli-hygiene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double
cli_load_average (void)
{
  const char *path = g_getenv ("TANDEM_LOADAVG_FILE");
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path ? path : "/proc/loadavg", &text, NULL, NULL))
    return -1;
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  return end != text && isfinite (v) && v >= 0 ? v : -1;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

void
cli_spread_compute (const double *v, int n, double load1, int procs, CliSpread *out)
{
  memset (out, 0, sizeof *out);
  out->n = n;
  out->load1 = load1;
  out->cores = (int) g_get_num_processors ();
  out->procs = procs;
  if (n >= 1)
    {
      g_autofree double *s = g_memdup2 (v, sizeof (double) * (gsize) n);
      qsort (s, (size_t) n, sizeof (double), cmp_double);
      out->min_s = s[0];
      out->max_s = s[n - 1];
      out->median_s = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
      out->spread = out->median_s > 0 ? (out->max_s - out->min_s) / out->median_s : 0;
    }
  out->spread_high = out->spread > CLI_SPREAD_WARN;
  /* the load average counts runnable processes: more than half a core beyond what this
   * measurement's own processes leave free means others competed for the cores */
  out->loaded = load1 >= 0 && load1 > (double) (out->cores - procs) + 0.5;
}

gboolean
cli_share_loaded (double share, int procs)
{
  const double p = MAX (procs, 1);
  return share < p / (p + 0.5);
}

void
cli_spread_set_share (CliSpread *s, double share)
{
  g_return_if_fail (s != NULL);
  if (!(share > 0 && share <= 1))
    return;
  s->share = share;
  s->loaded = cli_share_loaded (share, s->procs);
}

GPtrArray *
cli_spread_warnings (const CliSpread *s, const char *what, const char *hint)
{
  GPtrArray *w = g_ptr_array_new_with_free_func (g_free);
  if (s->spread_high)
    g_ptr_array_add (w, g_strdup_printf ("%s varied by %.0f%% over %d repetitions (min %.4g, "
                                         "median %.4g, max %.4g s), above %.0f%%: not a "
                                         "trustworthy figure (hint: %s)", what,
                                         100 * s->spread, s->n, s->min_s, s->median_s,
                                         s->max_s, 100 * CLI_SPREAD_WARN, hint));
  const double p = MAX (s->procs, 1);
  if (s->loaded && s->share > 0)
    g_ptr_array_add (w, g_strdup_printf ("the machine was loaded: the measurement's compute "
                                         "thread ran %.2f of the time it was runnable, below "
                                         "%d / (%d + 0.5) = %.2f: others took more than half "
                                         "a core from its %d process%s on %d core%s (load "
                                         "average %.2f before); the %s was taken under load "
                                         "(hint: rerun when nothing else runs)", s->share,
                                         (int) p, (int) p, p / (p + 0.5), s->procs,
                                         s->procs == 1 ? "" : "es", s->cores,
                                         s->cores == 1 ? "" : "s", s->load1, what));
  else if (s->loaded)
    g_ptr_array_add (w, g_strdup_printf ("the machine was loaded: load average %.2f before "
                                         "the measurement, whose %d process%s on %d core%s "
                                         "had to share them with others; the %s was taken "
                                         "under load (hint: rerun when the load average is "
                                         "below %.1f)", s->load1, s->procs,
                                         s->procs == 1 ? "" : "es", s->cores,
                                         s->cores == 1 ? "" : "s", what,
                                         MAX (s->cores - s->procs, 0) + 0.5));
  return w;
}

void
cli_spread_to_json (const CliSpread *s, const char *what, const char *hint, const char *name,
                    JsonBuilder *b)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "repetitions");
  json_builder_add_int_value (b, s->n);
  json_builder_set_member_name (b, "min_s");
  json_builder_add_double_value (b, s->min_s);
  json_builder_set_member_name (b, "median_s");
  json_builder_add_double_value (b, s->median_s);
  json_builder_set_member_name (b, "max_s");
  json_builder_add_double_value (b, s->max_s);
  json_builder_set_member_name (b, "spread");
  json_builder_add_double_value (b, s->spread);
  json_builder_set_member_name (b, "load_avg_1m");
  if (s->load1 >= 0)
    json_builder_add_double_value (b, s->load1);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "cores");
  json_builder_add_int_value (b, s->cores);
  json_builder_set_member_name (b, "core_share");
  if (s->share > 0)
    json_builder_add_double_value (b, s->share);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "trustworthy");
  json_builder_add_boolean_value (b, !s->spread_high && !s->loaded);
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  g_autoptr (GPtrArray) w = cli_spread_warnings (s, what, hint);
  for (guint i = 0; i < w->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (w, i));
  json_builder_end_array (b);
  json_builder_end_object (b);
}
