/* results/training-log.c - Megatron-LM and TorchTitan training logs (training-log.h). */
#include "results/training-log.h"
#include "util/input.h"

#include <errno.h>
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

/* How the number after a key read. */
typedef enum {
  NUM_ABSENT,         /* the key is not in the line */
  NUM_OK,
  NUM_BAD,            /* no finite, non-negative number after it */
  NUM_BAD_GROUPING,   /* a ',' not followed by exactly three digits ("5,0") */
} NumRead;

/* Thousands grouping as printed by Python's "{:,}": 1 to 3 digits, then groups of ','
 * and exactly three digits, none after the point. "5,0" was read as 50. */
static gboolean
grouping_ok (const char *s, gsize n)
{
  if (memchr (s, ',', n) == NULL)
    return TRUE;
  gsize i = 0, lead = 0;
  if (i < n && (s[i] == '+' || s[i] == '-'))
    i++;
  for (; i < n && g_ascii_isdigit (s[i]); i++)
    lead++;
  if (lead < 1 || lead > 3)
    return FALSE;
  while (i < n && s[i] == ',')
    {
      i++;
      for (int k = 0; k < 3; k++, i++)
        if (i >= n || !g_ascii_isdigit (s[i]))
          return FALSE;
      if (i < n && g_ascii_isdigit (s[i]))
        return FALSE;
    }
  return memchr (s + i, ',', n - i) == NULL;
}

/* The number right after `key` in `line` (blanks skipped, ',' thousands separators
 * dropped); *out NaN when the key is absent. *after (may be NULL) points past the
 * number. A ',' that no digit follows ends the number ("step: 10, loss"). */
static NumRead
number_after (const char *line, const char *key, double *out, const char **after)
{
  *out = NAN;
  const char *k = strstr (line, key);
  if (k == NULL)
    return NUM_ABSENT;
  const char *p = k + strlen (key);
  while (*p == ' ' || *p == '\t')
    p++;
  const char *start = p;
  char buf[64];
  gsize n = 0;
  while ((g_ascii_isdigit (*p) || *p == '.' || (*p == ',' && g_ascii_isdigit (p[1]))
          || *p == 'e' || *p == 'E' || *p == '+' || *p == '-') && n + 1 < sizeof buf)
    {
      if (*p != ',')
        buf[n++] = *p;
      p++;
    }
  buf[n] = '\0';
  if (after != NULL)
    *after = p;
  if (!grouping_ok (start, (gsize) (p - start)))
    return NUM_BAD_GROUPING;
  char *end = NULL;
  double v = g_ascii_strtod (buf, &end);
  if (n == 0 || end == buf || *end != '\0' || !isfinite (v) || v < 0)
    return NUM_BAD;
  *out = v;
  return NUM_OK;
}

/* FALSE with the error set, for a key whose number did not read as `r` said. */
static gboolean
bad_number (GError **error, const char *source, int line, const char *what, NumRead r,
            gboolean positive)
{
  if (r == NUM_BAD_GROUPING)
    g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                 "%s:%d: the number after '%s' groups its thousands wrongly (a ',' is "
                 "followed by exactly three digits, as in 6,543) (hint: the line as "
                 "Megatron-LM or TorchTitan logs it; was it cut short?)", source, line, what);
  else
    g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                 "%s:%d: '%s' is not followed by a finite, %s number (hint: the line as "
                 "Megatron-LM or TorchTitan logs it)", source, line, what,
                 positive ? "positive" : "non-negative");
  return FALSE;
}

/* Whether the number that ends at `after` is followed, past blanks, by `term`: Megatron
 * closes every field with " |", TorchTitan's mfu with '%'; a line cut short is not. */
static gboolean
closed_by (const char *after, char term)
{
  if (after == NULL)
    return FALSE;
  if (term == ' ')
    return *after == ' ' || *after == '\t';
  while (*after == ' ' || *after == '\t')
    after++;
  return *after == term;
}

#define MEGATRON_ELAPSED "elapsed time per iteration (ms):"
#define MEGATRON_TFLOPS  "throughput per GPU (TFLOP/s/GPU):"
#define MEGATRON_BATCH   "global batch size:"

/* Whether the number that ends at `after` ends there: Megatron follows each with " |";
 * "(ms): 6700x |" read as 6700 */
static gboolean
megatron_number_ends (const char *after)
{
  return *after == '\0' || *after == ' ' || *after == '\t' || *after == '|';
}

/* Megatron: " iteration      100/  500000 | ... | elapsed time per iteration (ms): 6721.3
 * | throughput per GPU (TFLOP/s/GPU): 401.2 | ... | global batch size:   512 | ..."
 * Sets *complete: every field it has is closed by " |" (training.py training_log).
 * Returns 1 for a step line, 0 for another line, -1 on an error (set), -3 for a step line
 * with a number run on into other text ("6700x"; *field names its key). */
static int
parse_megatron (const char *line, const char *source, int lineno, TrainingLogEntry *e,
                gboolean *complete, const char **field, GError **error)
{
  const char *it = strstr (line, "iteration ");
  if (it == NULL || strstr (line, MEGATRON_ELAPSED) == NULL)
    return 0;
  char *end = NULL;
  errno = 0;
  gint64 step = g_ascii_strtoll (it + strlen ("iteration "), &end, 10);
  const gboolean overflow = errno == ERANGE;
  while (end && *end == ' ')
    end++;
  if (end == NULL || *end != '/')
    return 0;
  /* "iteration -50/": left out without a word, and the interval across it quietly
   * counted as one */
  if (step < 0)
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE, "%s:%d: the iteration "
                   "number %" G_GINT64_FORMAT " is negative (hint: the line as Megatron-LM "
                   "logs it; was the file edited or corrupted?)", source, lineno, step);
      return -1;
    }
  /* past 2^63 strtoll saturates: the step read as 9223372036854775807, and the next
   * line's "step numbers go back" blamed a restarted job */
  if (overflow)
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE, "%s:%d: the iteration "
                   "number is out of range (more than 19 digits) (hint: the line as Megatron-LM "
                   "logs it; was the file edited or corrupted?)", source, lineno);
      return -1;
    }
  e->step = step;
  const char *after = NULL;
  NumRead r = number_after (line, MEGATRON_ELAPSED, &e->elapsed_s, &after);
  *complete = closed_by (after, '|');
  if (r != NUM_OK || !(e->elapsed_s > 0))
    return bad_number (error, source, lineno, MEGATRON_ELAPSED, r, TRUE) ? 0 : -1;
  /* a number with text run on ("6700x |", "6700ms |"): not a time Megatron printed, and
   * its line not a step (the caller counts it and says so) */
  if (!megatron_number_ends (after))
    {
      *field = MEGATRON_ELAPSED;
      return -3;
    }
  e->elapsed_s /= 1e3;
  r = number_after (line, MEGATRON_TFLOPS, &e->tflops_per_gpu, &after);
  if (r == NUM_BAD || r == NUM_BAD_GROUPING)
    return bad_number (error, source, lineno, MEGATRON_TFLOPS, r, FALSE) ? 0 : -1;
  if (r == NUM_OK && !megatron_number_ends (after))
    {
      *field = MEGATRON_TFLOPS;
      return -3;
    }
  *complete = *complete && (r == NUM_ABSENT || closed_by (after, '|'));
  double gb;
  r = number_after (line, MEGATRON_BATCH, &gb, &after);
  /* Megatron logs the batch it ran, at least one sequence (0 passed as "not logged") */
  if (r == NUM_BAD || r == NUM_BAD_GROUPING || (!isnan (gb) && (gb < 1 || gb != floor (gb))))
    return bad_number (error, source, lineno, MEGATRON_BATCH, r, TRUE) ? 0 : -1;
  if (r == NUM_OK && !megatron_number_ends (after))
    {
      *field = MEGATRON_BATCH;
      return -3;
    }
  /* past --gbs's own range (2^31 - 1 sequences) a batch is no count a plan can take (and
   * past 2^63 the cast is undefined): it read as "not logged", any --gbs passed the check
   * against it, and then a batch of 2^31 was hinted as a --gbs that flag refuses */
  if (!isnan (gb) && gb > (double) G_MAXINT)
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE, "%s:%d: '%s' is "
                   "followed by %.17g, more than the %d sequences a plan's global batch can "
                   "be: not a batch a job ran (hint: the line as Megatron-LM logs it; was the "
                   "file edited or corrupted?)", source, lineno, MEGATRON_BATCH, gb, G_MAXINT);
      return -1;
    }
  *complete = *complete && (r == NUM_ABSENT || closed_by (after, '|'));
  e->global_batch = isnan (gb) ? 0 : (gint64) gb;
  return 1;
}

/* TorchTitan: "step: 10  loss:  7.8231  memory: 45.12GiB(47.48%)  tps: 6,543
 * tflops: 312.45  mfu: 31.59%". Sets *complete: tps and tflops are followed by a blank
 * (the next field) and mfu by its '%' (torchtitan/components/metrics.py). Returns 1 for a
 * step line, 0 for another line, -1 on an error (set), -2 for a metrics line without its
 * tps (counted by the caller). */
static int
parse_titan (const char *line, const char *source, int lineno, TrainingLogEntry *e,
             gboolean *complete, GError **error)
{
  const char *st = strstr (line, "step:");
  if (st == NULL)
    return 0;
  /* TorchTitan's metrics line always carries tps: one without it (cut or edited) is
   * counted and left out, which the caller says (it vanished without a word) */
  if (strstr (line, "tps:") == NULL)
    return strstr (st, "loss:") != NULL && strstr (st, "memory:") != NULL ? -2 : 0;
  double step;
  /* a step number is a count: beyond 2^53 it is not one (and beyond 2^63 the cast to an
   * integer is undefined; fuzz-training-log found 1e308); a negative one neither. Both
   * were left out without a word; refused, naming the line */
  NumRead sr = number_after (st, "step:", &step, NULL);
  if (sr == NUM_ABSENT)
    return 0;
  if (sr != NUM_OK || step < 0 || step > 0x1p53 || step != floor (step))
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE, "%s:%d: 'step:' is not "
                   "followed by a step number from 0 to 2^53 (hint: the line as TorchTitan "
                   "logs it; was the file edited or corrupted?)", source, lineno);
      return -1;
    }
  e->step = (gint64) step;
  const char *after = NULL;
  NumRead r = number_after (line, "tps:", &e->tps, &after);
  *complete = closed_by (after, ' ');
  if (r != NUM_OK || e->tps <= 0)
    return bad_number (error, source, lineno, "tps:", r, TRUE) ? 0 : -1;
  /* TorchTitan prints tps rounded and grouped with ',' (metrics.py: {round(tps):,}): a
   * fraction is no tps of its, and "5.121" (thousands grouped with '.') read as 5 tokens a
   * second made a step 1,000 times too long */
  if (e->tps != floor (e->tps))
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE, "%s:%d: 'tps:' is "
                   "followed by %g, a fraction: TorchTitan logs tps as a whole number grouped "
                   "with ',' (6,543) (hint: a '.' grouping thousands, from another locale? the "
                   "line as TorchTitan logs it)", source, lineno, e->tps);
      return -1;
    }
  r = number_after (line, "tflops:", &e->tflops_per_gpu, &after);
  if (r == NUM_BAD || r == NUM_BAD_GROUPING)
    return bad_number (error, source, lineno, "tflops:", r, FALSE) ? 0 : -1;
  *complete = *complete && (r == NUM_ABSENT || closed_by (after, ' '));
  r = number_after (line, "mfu:", &e->mfu_pct, &after);
  if (r == NUM_BAD || r == NUM_BAD_GROUPING)
    return bad_number (error, source, lineno, "mfu:", r, FALSE) ? 0 : -1;
  *complete = *complete && (r == NUM_ABSENT || closed_by (after, '%'));
  return 1;
}

/* The integer after `key` where the key starts a word ("tensor-model-parallel size:" is
 * not the tail of "encoder-tensor-model-parallel size:"); 0 when absent or not one. */
static int
size_after (const char *line, const char *key)
{
  for (const char *k = strstr (line, key); k != NULL; k = strstr (k + 1, key))
    {
      if (k != line && k[-1] != ' ' && k[-1] != ',')
        continue;
      const char *p = k + strlen (key);
      char *end = NULL;
      gint64 v = g_ascii_strtoll (p, &end, 10);
      return end != p && v > 0 && v <= G_MAXINT ? (int) v : 0;
    }
  return 0;
}

/* Megatron's arguments.py: "using world size: 8, data-parallel size: 1, context-parallel
 * size: 1, ... tensor-model-parallel size: 8, ... pipeline-model-parallel size: 1" */
/* "world size 8, tp 1, pp 1": the sizes a header states (0: not stated, left out) */
static char *
header_sizes_text (int world, int tp, int pp, int cp)
{
  GString *s = g_string_new (NULL);
  const struct { const char *name; int v; } f[] = {
    { "world size", world }, { "tp", tp }, { "pp", pp }, { "cp", cp },
  };
  for (guint i = 0; i < G_N_ELEMENTS (f); i++)
    if (f[i].v > 0)
      g_string_append_printf (s, "%s%s %d", s->len ? ", " : "", f[i].name, f[i].v);
  if (s->len == 0)
    g_string_append (s, "no sizes stated");
  return g_string_free (s, FALSE);
}

static gboolean
parse_megatron_header (TrainingLog *log, const char *line, int lineno, const char *source,
                       GError **error)
{
  if (strstr (line, "using world size:") == NULL)
    return TRUE;
  /* a second header: the same job started again (its sizes) goes on; another job's
   * (other sizes) in the same file is refused, as steps that go back are: its steps were
   * merged with the first job's and the median taken over both (one job at 8 GPUs, tp 1,
   * then one at 16, tp 2: the median was the second's, checked against the first's
   * header) */
  if (log->header_line > 0)
    {
      const int w = size_after (line, "world size:"), t = size_after (line, "tensor-model-parallel size:");
      const int pp = size_after (line, "pipeline-model-parallel size:");
      const int c = size_after (line, "context-parallel size:");
      if (w != log->header_world || t != log->header_tp || pp != log->header_pp
          || c != log->header_cp)
        {
          g_autofree char *now = header_sizes_text (w, t, pp, c);
          g_autofree char *first = header_sizes_text (log->header_world, log->header_tp,
                                                      log->header_pp, log->header_cp);
          g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                       "%s:%d: a second job's header (%s) after line %d's (%s): one job's "
                       "log at a time (hint: split the file at line %d)", source, lineno, now,
                       log->header_line, first, lineno);
          return FALSE;
        }
      return TRUE;
    }
  log->header_line = lineno;
  log->header_world = size_after (line, "world size:");
  log->header_tp = size_after (line, "tensor-model-parallel size:");
  log->header_pp = size_after (line, "pipeline-model-parallel size:");
  log->header_cp = size_after (line, "context-parallel size:");
  return TRUE;
}

/* Whether two entries of one step carry the same figures (one line printed by several
 * ranks). NaN == NaN here: both lines lack the field. */
static gboolean
same_figures (const TrainingLogEntry *a, const TrainingLogEntry *b)
{
#define SAME(x) ((isnan (a->x) && isnan (b->x)) || a->x == b->x)
  return SAME (elapsed_s) && SAME (tps) && SAME (tflops_per_gpu) && SAME (mfu_pct)
         && a->global_batch == b->global_batch;
#undef SAME
}

/* The entry's step time without the plan: larger is slower (TorchTitan's from 1 / tps) */
static double
slowness (const TrainingLogEntry *e)
{
  return isfinite (e->elapsed_s) ? e->elapsed_s : 1.0 / e->tps;
}

/* Adds a parsed step line, one entry per step number (training-log.h). FALSE with the
 * error set when the step numbers go back. */
static gboolean
add_entry (TrainingLog *log, GHashTable *by_step, const TrainingLogEntry *e, GError **error)
{
  gpointer found;
  if (g_hash_table_lookup_extended (by_step, &e->step, NULL, &found))
    {
      guint i = GPOINTER_TO_UINT (found);
      TrainingLogEntry *old = &g_array_index (log->entries, TrainingLogEntry, i);
      if (same_figures (old, e))
        {
          log->duplicates++;
          return TRUE;
        }
      if (i + 1 == log->entries->len)
        {
          /* the latest step again, timed by another rank: the step lasts as long as the
           * slowest rank's (synchronous training); the first line's number is kept */
          log->merged++;
          if (slowness (e) > slowness (old))
            {
              int line = old->line;
              *old = *e;
              old->line = line;
            }
          return TRUE;
        }
    }
  if (log->entries->len > 0)
    {
      const TrainingLogEntry *last = &g_array_index (log->entries, TrainingLogEntry,
                                                     log->entries->len - 1);
      if (e->step <= last->step)
        {
          g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                       "%s:%d: step %" G_GINT64_FORMAT " after step %" G_GINT64_FORMAT
                       " (line %d): the step numbers go back, as when a restarted job "
                       "appends to the same log (hint: import each run alone: cut the log "
                       "before line %d, e.g. tail -n +%d LOG for the run after the restart)",
                       log->source, e->line, e->step, last->step, last->line, e->line,
                       e->line);
          return FALSE;
        }
    }
  g_array_append_val (log->entries, *e);
  g_hash_table_insert (by_step, g_memdup2 (&e->step, sizeof e->step),
                       GUINT_TO_POINTER (log->entries->len - 1));
  return TRUE;
}

/* A line's text as the file holds it: up to LF, CR LF, a lone CR (old Mac line ends), a
 * run of NULs or the end; `ended` says whether a line break ended it. */
typedef struct {
  const char *text;
  gsize       len;
  gboolean    ended;
  int         line;       /* 1-based; a NUL run does not start a new line number */
} LogLine;

static gboolean
next_line (const char **pos, const char *end, int *lineno, guint64 *nuls, LogLine *out)
{
  const char *p = *pos;
  if (p >= end)
    return FALSE;
  const char *q = p;
  while (q < end && *q != '\n' && *q != '\r' && *q != '\0')
    q++;
  out->text = p;
  out->len = (gsize) (q - p);
  out->line = *lineno;
  out->ended = q < end && *q != '\0';
  if (q < end && *q == '\0')
    {
      while (q < end && *q == '\0')
        q++, (*nuls)++;
    }
  else if (q < end)
    {
      q += *q == '\r' && q + 1 < end && q[1] == '\n' ? 2 : 1;
      (*lineno)++;
    }
  *pos = q;
  return TRUE;
}

/* Past spaces, a whole number and the spaces after it; NULL where no number stands */
static const char *
past_number (const char *p)
{
  while (*p == ' ')
    p++;
  if (!g_ascii_isdigit (*p))
    return NULL;
  while (g_ascii_isdigit (*p))
    p++;
  while (*p == ' ')
    p++;
  return p;
}

/* A TorchTitan metrics line that has begun: "step:" and its number, then "loss:" (the
 * next field; a line cut after it lost its tps), and no validation line ("validate step:",
 * which logs no tps) nor a message that names a step ("Saving checkpoint at step: 40") */
static gboolean
titan_metrics_started (const char *line)
{
  const char *st = strstr (line, "step:");
  if (st == NULL || strstr (line, "validat") != NULL)
    return FALSE;
  const char *p = past_number (st + strlen ("step:"));
  return p != NULL && g_str_has_prefix (p, "loss:");
}

/* A Megatron step line that has begun: "iteration", its number and the '/' before the
 * number of iterations ("iteration      50/    1000 |"); a message that names an
 * iteration ("saved checkpoint from iteration 50 to ...") has no '/' after the number */
static gboolean
megatron_step_started (const char *line)
{
  const char *it = strstr (line, "iteration ");
  if (it == NULL)
    return FALSE;
  const char *p = past_number (it + strlen ("iteration "));
  return p != NULL && *p == '/';
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
  /* step number -> index in entries */
  g_autoptr (GHashTable) by_step = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                          NULL);
  const char *pos = text, *text_end = text + n;
  int lineno = 1;
  LogLine ll;
  while (next_line (&pos, text_end, &lineno, &log->nul_bytes, &ll))
    {
      g_autofree char *raw = g_strndup (ll.text, ll.len);
      g_autofree char *line = strip_ansi (raw);
      TrainingLogEntry e = { 0 };
      e.elapsed_s = e.tps = e.tflops_per_gpu = e.mfu_pct = NAN;
      e.line = ll.line;
      int got = 0;
      gboolean complete = FALSE;
      if (!parse_megatron_header (log, line, ll.line, source, error))
        return NULL;
      if (log->format != TRAINING_LOG_TORCHTITAN)
        {
          const char *field = NULL;
          got = parse_megatron (line, source, e.line, &e, &complete, &field,
                                ll.ended ? error : NULL);
          if (got > 0 || got == -3)
            log->format = TRAINING_LOG_MEGATRON;
          if (got == -3)
            {
              if (log->run_on++ == 0)
                {
                  log->run_on_line = e.line;
                  log->run_on_field = field;
                }
              continue;
            }
        }
      if (got == 0 && log->format != TRAINING_LOG_MEGATRON)
        {
          got = parse_titan (line, source, e.line, &e, &complete, ll.ended ? error : NULL);
          if (got > 0)
            log->format = TRAINING_LOG_TORCHTITAN;
          if (got == -2)
            {
              if (log->no_tps++ == 0)
                log->no_tps_line = e.line;
              continue;
            }
        }
      /* the last line of a TorchTitan log cut before its tps ("step: 40  loss: 7.2"), or
       * of a Megatron log before its elapsed time ("iteration 50/ 1000 | consumed
       * samples: 3200 | elaps"): no step line to either parser, and it vanished without
       * the note that other cut lines get */
      if (!ll.ended && got == 0
          && ((log->format == TRAINING_LOG_TORCHTITAN && titan_metrics_started (line))
              || (log->format != TRAINING_LOG_TORCHTITAN && megatron_step_started (line))))
        {
          if (log->incomplete++ == 0)
            log->incomplete_line = e.line;
          continue;
        }
      /* a line no line break ends (the end of the file, or NULs where a node crashed) may
       * be cut short: "(ms): 14" of "(ms): 1400.0 |" read as 0.014 s. It counts only when
       * every field it has is closed and it has every field the step before had. */
      if (!ll.ended && got != 0)
        {
          const TrainingLogEntry *prev = log->entries->len > 0
            ? &g_array_index (log->entries, TrainingLogEntry, log->entries->len - 1) : NULL;
          if (got < 0 || !complete
              || (prev != NULL && ((isfinite (prev->tflops_per_gpu) && isnan (e.tflops_per_gpu))
                                   || (isfinite (prev->mfu_pct) && isnan (e.mfu_pct))
                                   || (prev->global_batch > 0 && e.global_batch == 0))))
            {
              if (log->incomplete++ == 0)
                log->incomplete_line = e.line;
              continue;
            }
        }
      if (got < 0)
        return NULL;
      /* the format was the first step line's guess: a step line of the other kind later
       * (two jobs' logs in one file) was silently left out of the import */
      if (got == 0 && format == TRAINING_LOG_AUTO && log->format != TRAINING_LOG_AUTO)
        {
          TrainingLogEntry x = e;
          gboolean ignored_complete;
          const char *ignored_field = NULL;
          g_autoptr (GError) ignored = NULL;
          const gboolean megatron = log->format == TRAINING_LOG_MEGATRON;
          if ((megatron ? parse_titan (line, source, e.line, &x, &ignored_complete, &ignored)
                        : parse_megatron (line, source, e.line, &x, &ignored_complete,
                                          &ignored_field, &ignored)) > 0)
            {
              /* the line that set the format may have been left out (cut short) and
               * no entry kept: then its number is the one dropped first */
              int first = log->entries->len > 0
                          ? g_array_index (log->entries, TrainingLogEntry, 0).line
                          : log->incomplete_line;
              g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                           "%s:%d: a %s step line, but line %d was %s's: two kinds of log "
                           "in one file (hint: --format megatron or --format torchtitan "
                           "imports that kind alone)", source, e.line,
                           megatron ? "TorchTitan" : "Megatron-LM", first,
                           megatron ? "Megatron-LM" : "TorchTitan");
              return NULL;
            }
        }
      if (got > 0 && !add_entry (log, by_step, &e, error))
        return NULL;
    }
  if (log->entries->len == 0)
    {
      /* a log saved as UTF-16 (PowerShell's `>` writes it; a BOM or every ASCII
       * character's NUL half at the start) holds no step line a UTF-8 reader can see: say
       * so rather than "no step line". NULs elsewhere are a crashed node's padding, which
       * the lines around them survive, so only the file's first bytes are looked at. */
      const guchar *u = (const guchar *) text;
      GError *enc = NULL;
      if (n >= 4
          && ((u[1] == 0 && u[3] == 0 && u[0] != 0) || (u[0] == 0 && u[2] == 0 && u[1] != 0)
              || (u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))
          && !util_text_encoding_check (text, MIN (n, 4), source, &enc))
        {
          g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE, "%s", enc->message);
          g_error_free (enc);
          return NULL;
        }
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
      /* a long run's log can pass the cap: only its header and step lines are read */
      if (g_error_matches (local, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TOO_LARGE))
        g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_READ, "cannot read training "
                     "log: '%s' is larger than the %d MiB input cap (hint: only the header and "
                     "the step lines are read: (grep -m1 'using world size' LOG; grep -E "
                     "'iteration|step:' LOG | tail -n 100000) | tandem import-log /dev/stdin "
                     "..., which keeps the header its sizes are checked against)", path,
                     (int) (UTIL_INPUT_MAX_BYTES >> 20));
      else
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
                   "%s: %u logged step%s, all skipped by --skip %u (hint: a smaller --skip)",
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
