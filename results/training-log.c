/* results/training-log.c - Megatron-LM and TorchTitan training logs (training-log.h). */
#include "results/training-log.h"
#include "util/input.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (training-log-error-quark, training_log_error)

const char *
training_log_format_name (TrainingLogFormat f)
{
  return f == TRAINING_LOG_MEGATRON ? "megatron" : f == TRAINING_LOG_TORCHTITAN ? "torchtitan"
                                                                                 : "auto";
}

gboolean
training_log_format_parse (const char *name, TrainingLogFormat *out)
{
  for (int f = TRAINING_LOG_AUTO; f <= TRAINING_LOG_TORCHTITAN; f++)
    if (g_ascii_strcasecmp (name, training_log_format_name (f)) == 0)
      {
        *out = (TrainingLogFormat) f;
        return TRUE;
      }
  return FALSE;
}

/* The line without ANSI escape sequences (TorchTitan colours its metrics). */
static char *
strip_ansi (const char *line)
{
  GString *s = g_string_new (NULL);
  for (const char *p = line; *p; p++)
    {
      if (*p == '\x1b' && p[1] == '[')
        {
          p += 2;
          while (*p && !g_ascii_isalpha (*p))
            p++;
          if (*p == '\0')
            break;
          continue;
        }
      g_string_append_c (s, *p);
    }
  return g_string_free (s, FALSE);
}

/* The number right after `key` in `line` (blanks skipped, ',' thousands separators
 * dropped); NaN when the key is absent; FALSE when it is there without a number. */
static gboolean
number_after (const char *line, const char *key, double *out)
{
  *out = NAN;
  const char *k = strstr (line, key);
  if (k == NULL)
    return TRUE;
  const char *p = k + strlen (key);
  while (*p == ' ' || *p == '\t')
    p++;
  char buf[64];
  gsize n = 0;
  while ((g_ascii_isdigit (*p) || *p == '.' || *p == ',' || *p == 'e' || *p == 'E'
          || *p == '+' || *p == '-') && n + 1 < sizeof buf)
    {
      if (*p != ',')
        buf[n++] = *p;
      p++;
    }
  buf[n] = '\0';
  char *end = NULL;
  double v = g_ascii_strtod (buf, &end);
  if (n == 0 || end == buf || *end != '\0' || !isfinite (v) || v < 0)
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
bad_number (GError **error, const char *source, int line, const char *what)
{
  g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
               "%s:%d: '%s' is not followed by a finite, non-negative number (hint: the "
               "line as Megatron-LM or TorchTitan logs it)", source, line, what);
  return FALSE;
}

/* Megatron: " iteration      100/  500000 | ... | elapsed time per iteration (ms): 6721.3
 * | throughput per GPU (TFLOP/s/GPU): 401.2 | ... | global batch size:   512 | ..." */
static int
parse_megatron (const char *line, const char *source, int lineno, TrainingLogEntry *e,
                GError **error)
{
  const char *it = strstr (line, "iteration ");
  if (it == NULL || strstr (line, "elapsed time per iteration (ms):") == NULL)
    return 0;
  char *end = NULL;
  gint64 step = g_ascii_strtoll (it + strlen ("iteration "), &end, 10);
  while (end && *end == ' ')
    end++;
  if (end == NULL || *end != '/' || step < 0)
    return 0;
  e->step = step;
  if (!number_after (line, "elapsed time per iteration (ms):", &e->elapsed_s)
      || !(e->elapsed_s > 0))
    return bad_number (error, source, lineno, "elapsed time per iteration (ms):") ? 0 : -1;
  e->elapsed_s /= 1e3;
  if (!number_after (line, "throughput per GPU (TFLOP/s/GPU):", &e->tflops_per_gpu))
    return bad_number (error, source, lineno, "throughput per GPU (TFLOP/s/GPU):") ? 0 : -1;
  double gb;
  /* Megatron logs the batch it ran, at least one sequence (0 passed as "not logged") */
  if (!number_after (line, "global batch size:", &gb)
      || (!isnan (gb) && (gb < 1 || gb != floor (gb))))
    return bad_number (error, source, lineno, "global batch size:") ? 0 : -1;
  e->global_batch = isnan (gb) || gb > 0x1p53 ? 0 : (gint64) gb;
  return 1;
}

/* TorchTitan: "step: 10  loss:  7.8231  memory: 45.12GiB(47.48%)  tps: 6,543
 * tflops: 312.45  mfu: 31.59%" */
static int
parse_titan (const char *line, const char *source, int lineno, TrainingLogEntry *e,
             GError **error)
{
  const char *st = strstr (line, "step:");
  if (st == NULL || strstr (line, "tps:") == NULL)
    return 0;
  double step;
  /* a step number is a count: beyond 2^53 it is not one (and beyond 2^63 the cast to an
   * integer is undefined; fuzz-training-log found 1e308) */
  if (!number_after (st, "step:", &step) || isnan (step) || step > 0x1p53)
    return 0;
  e->step = (gint64) step;
  if (!number_after (line, "tps:", &e->tps) || isnan (e->tps) || e->tps <= 0)
    return bad_number (error, source, lineno, "tps:") ? 0 : -1;
  if (!number_after (line, "tflops:", &e->tflops_per_gpu))
    return bad_number (error, source, lineno, "tflops:") ? 0 : -1;
  if (!number_after (line, "mfu:", &e->mfu_pct))
    return bad_number (error, source, lineno, "mfu:") ? 0 : -1;
  return 1;
}

TrainingLog *
training_log_parse (const char *text, gssize len, TrainingLogFormat format,
                    const char *source, GError **error)
{
  g_autoptr (TrainingLog) log = g_new0 (TrainingLog, 1);
  log->entries = g_array_new (FALSE, TRUE, sizeof (TrainingLogEntry));
  log->source = g_strdup (source);
  log->format = format;
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  g_autofree char *copy = g_strndup (text, n);   /* stops at a NUL: the rest is not text */
  g_auto (GStrv) lines = g_strsplit (copy, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *line = strip_ansi (lines[i]);
      TrainingLogEntry e = { 0 };
      e.elapsed_s = e.tps = e.tflops_per_gpu = e.mfu_pct = NAN;
      e.line = (int) i + 1;
      int got = 0;
      if (log->format != TRAINING_LOG_TORCHTITAN)
        {
          got = parse_megatron (line, source, e.line, &e, error);
          if (got > 0)
            log->format = TRAINING_LOG_MEGATRON;
        }
      if (got == 0 && log->format != TRAINING_LOG_MEGATRON)
        {
          got = parse_titan (line, source, e.line, &e, error);
          if (got > 0)
            log->format = TRAINING_LOG_TORCHTITAN;
        }
      if (got < 0)
        return NULL;
      /* the format was the first step line's guess: a step line of the other kind later
       * (two jobs' logs in one file) was silently left out of the import */
      if (got == 0 && format == TRAINING_LOG_AUTO && log->format != TRAINING_LOG_AUTO)
        {
          TrainingLogEntry x = e;
          g_autoptr (GError) ignored = NULL;
          const gboolean megatron = log->format == TRAINING_LOG_MEGATRON;
          if ((megatron ? parse_titan (line, source, e.line, &x, &ignored)
                        : parse_megatron (line, source, e.line, &x, &ignored)) > 0)
            {
              int first = g_array_index (log->entries, TrainingLogEntry, 0).line;
              g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                           "%s:%d: a %s step line, but line %d was %s's: two kinds of log "
                           "in one file (hint: --format megatron or --format torchtitan "
                           "imports that kind alone)", source, e.line,
                           megatron ? "TorchTitan" : "Megatron-LM", first,
                           megatron ? "Megatron-LM" : "TorchTitan");
              return NULL;
            }
        }
      if (got > 0)
        g_array_append_val (log->entries, e);
    }
  if (log->entries->len == 0)
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                   "%s: no %s step line (hint: Megatron-LM's 'iteration N/ M | ... | elapsed "
                   "time per iteration (ms): T' or TorchTitan's 'step: N ... tps: X')",
                   source, format == TRAINING_LOG_AUTO ? "Megatron-LM or TorchTitan"
                   : format == TRAINING_LOG_MEGATRON ? "Megatron-LM" : "TorchTitan");
      return NULL;
    }
  return g_steal_pointer (&log);
}

TrainingLog *
training_log_load (const char *path, TrainingLogFormat format, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  GError *local = NULL;
  if (!util_input_read_file (path, 0, &text, &len, &local))
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_READ, "cannot read training "
                   "log: %s", local->message);
      g_error_free (local);
      return NULL;
    }
  return training_log_parse (text, (gssize) len, format, path, error);
}

void
training_log_free (TrainingLog *log)
{
  if (log == NULL)
    return;
  g_array_unref (log->entries);
  g_free (log->source);
  g_free (log);
}

guint
training_log_step_times (const TrainingLog *log, guint skip, double tokens_per_step, int gpus,
                         double **out, GError **error)
{
  *out = NULL;
  if (skip >= log->entries->len)
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                   "%s: %u step line%s, all skipped by --skip %u (hint: a smaller --skip)",
                   log->source, log->entries->len, log->entries->len == 1 ? "" : "s", skip);
      return 0;
    }
  guint n = log->entries->len - skip;
  double *v = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      const TrainingLogEntry *e = &g_array_index (log->entries, TrainingLogEntry, skip + i);
      /* TorchTitan's tps counts tokens per second on each GPU (metrics.py: the tokens
       * since the last log / (time x the non-data-parallel size)) */
      v[i] = log->format == TRAINING_LOG_MEGATRON ? e->elapsed_s
             : tokens_per_step / (e->tps * MAX (gpus, 1));
      /* a step from a microsecond to a day, validate's bound for a published step: 1e305 s
       * (a logged 1e308 ms) was printed as the median and stored */
      if (!(isfinite (v[i]) && v[i] >= TRAINING_LOG_MIN_STEP_S
            && v[i] <= TRAINING_LOG_MAX_STEP_S))
        {
          g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                       "%s:%d: a step time of %g s is not a measurement (a step lasts from "
                       "1 us to a day) (hint: check the line%s, or --skip past it)",
                       log->source, e->line, v[i],
                       log->format == TRAINING_LOG_MEGATRON ? "'s elapsed time (ms)"
                       : "'s tps against --gbs and --seq-length");
          g_free (v);
          return 0;
        }
    }
  *out = v;
  return n;
}
