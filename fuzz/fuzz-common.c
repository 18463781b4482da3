/* fuzz/fuzz-common.c - the checks every harness shares (fuzz/fuzz.h). */
#include "fuzz/fuzz.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/memory.h"
#include "sim/predict.h"
#include "util/input.h"

/* A library never logs: an error, critical or warning is a finding. It aborts here,
 * because GLib's own fatal path raises SIGTRAP, which libFuzzer does not catch (the
 * process would end without the input saved); anything else is dropped. */
static void
on_log (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    fuzz_fail ("GLib", "%s-%s: %s", domain ? domain : "?",
               (level & G_LOG_LEVEL_ERROR) ? "ERROR"
               : (level & G_LOG_LEVEL_CRITICAL) ? "CRITICAL" : "WARNING", message);
}

static void
on_trap (int sig)
{
  abort ();
}

void
fuzz_init (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done))
    {
      g_log_set_default_handler (on_log, NULL);
      signal (SIGTRAP, on_trap);   /* G_BREAKPOINT () anywhere else */
      g_once_init_leave (&done, 1);
    }
}

ModelSpec *
fuzz_preset_model (const char *what, const char *name)
{
  g_autoptr (GError) error = NULL;
  ModelSpec *m = model_spec_load_preset (name, &error);
  if (m == NULL)
    fuzz_fail (what, "preset %s: %s", name, error->message);
  return m;
}

TopoCluster *
fuzz_preset_cluster (const char *what, const char *name)
{
  g_autoptr (GError) error = NULL;
  TopoCluster *c = topo_cluster_load_preset (name, &error);
  if (c == NULL)
    fuzz_fail (what, "preset %s: %s", name, error->message);
  return c;
}

char *
fuzz_text (const uint8_t *data, size_t size)
{
  char *text = g_malloc (size + 1);
  if (size > 0)
    memcpy (text, data, size);
  text[size] = '\0';
  return text;
}

void
fuzz_fail (const char *what, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fprintf (stderr, "fuzz: %s: ", what);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
  abort ();
}

/* ---- a strict RFC 8259 reader: accepts exactly the JSON grammar, nothing json-glib or
 * JavaScript would also take (NaN, Infinity, hex, "1.", ".5", "1e+22.0", trailing commas,
 * control characters in strings, lone surrogate escapes). */

typedef struct {
  const char *p, *end;
  const char *error;
} Strict;

#define STRICT_MAX_DEPTH 512

static void
skip_ws (Strict *s)
{
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

static gboolean
fail (Strict *s, const char *why)
{
  if (s->error == NULL)
    s->error = why;
  return FALSE;
}

static gboolean
is_digit (Strict *s)
{
  return s->p < s->end && *s->p >= '0' && *s->p <= '9';
}

static gboolean
strict_number (Strict *s)
{
  const char *start = s->p;
  if (s->p < s->end && *s->p == '-')
    s->p++;
  if (!is_digit (s))
    return fail (s, "a number without digits");
  if (*s->p == '0')
    s->p++;
  else
    while (is_digit (s))
      s->p++;
  if (s->p < s->end && *s->p == '.')
    {
      s->p++;
      if (!is_digit (s))
        return fail (s, "no digit after a decimal point");
      while (is_digit (s))
        s->p++;
    }
  if (s->p < s->end && (*s->p == 'e' || *s->p == 'E'))
    {
      s->p++;
      if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
        s->p++;
      if (!is_digit (s))
        return fail (s, "no digit in an exponent");
      while (is_digit (s))
        s->p++;
    }
  /* finite as a double: JSON has no infinity, and 1e999 reads back as one */
  g_autofree char *copy = g_strndup (start, (gsize) (s->p - start));
  if (!isfinite (g_ascii_strtod (copy, NULL)))
    return fail (s, "a number beyond the range of a double");
  return TRUE;
}

static gboolean
hex4 (Strict *s, guint *out)
{
  *out = 0;
  for (int i = 0; i < 4; i++, s->p++)
    {
      if (s->p >= s->end || !g_ascii_isxdigit (*s->p))
        return fail (s, "a \\u escape without four hex digits");
      *out = *out * 16 + (guint) g_ascii_xdigit_value (*s->p);
    }
  return TRUE;
}

static gboolean
strict_string (Strict *s)
{
  s->p++;   /* the opening quote */
  while (s->p < s->end)
    {
      unsigned char c = (unsigned char) *s->p;
      if (c == '"')
        {
          s->p++;
          return TRUE;
        }
      if (c < 0x20)
        return fail (s, "a control character inside a string");
      if (c != '\\')
        {
          s->p++;
          continue;
        }
      s->p++;
      if (s->p >= s->end)
        break;
      char e = *s->p++;
      if (strchr ("\"\\/bfnrt", e) != NULL && e != '\0')
        continue;
      if (e != 'u')
        return fail (s, "an unknown escape in a string");
      guint u;
      if (!hex4 (s, &u))
        return FALSE;
      if (u >= 0xDC00 && u <= 0xDFFF)
        return fail (s, "a lone low surrogate escape");
      if (u >= 0xD800 && u <= 0xDBFF)
        {
          guint lo;
          if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
            return fail (s, "a high surrogate escape without its low half");
          s->p += 2;
          if (!hex4 (s, &lo))
            return FALSE;
          if (lo < 0xDC00 || lo > 0xDFFF)
            return fail (s, "a high surrogate escape without its low half");
        }
    }
  return fail (s, "an unterminated string");
}

static gboolean
literal (Strict *s, const char *word)
{
  gsize n = strlen (word);
  if ((gsize) (s->end - s->p) < n || memcmp (s->p, word, n) != 0)
    return fail (s, "an unknown literal");
  s->p += n;
  return TRUE;
}

static gboolean
strict_value (Strict *s, int depth)
{
  if (depth > STRICT_MAX_DEPTH)
    return fail (s, "nested deeper than the checker follows");
  skip_ws (s);
  if (s->p >= s->end)
    return fail (s, "a value is missing");
  switch (*s->p)
    {
    case '"':
      return strict_string (s);
    case 't':
      return literal (s, "true");
    case 'f':
      return literal (s, "false");
    case 'n':
      return literal (s, "null");
    case '[':
    case '{':
      {
        gboolean object = *s->p == '{';
        char close = object ? '}' : ']';
        s->p++;
        skip_ws (s);
        if (s->p < s->end && *s->p == close)
          {
            s->p++;
            return TRUE;
          }
        for (;;)
          {
            if (object)
              {
                skip_ws (s);
                if (s->p >= s->end || *s->p != '"')
                  return fail (s, "an object member without a string name");
                if (!strict_string (s))
                  return FALSE;
                skip_ws (s);
                if (s->p >= s->end || *s->p != ':')
                  return fail (s, "an object member without ':'");
                s->p++;
              }
            if (!strict_value (s, depth + 1))
              return FALSE;
            skip_ws (s);
            if (s->p < s->end && *s->p == ',')
              {
                s->p++;
                continue;
              }
            if (s->p < s->end && *s->p == close)
              {
                s->p++;
                return TRUE;
              }
            return fail (s, object ? "an object without ',' or '}'" : "an array without ',' or ']'");
          }
      }
    default:
      return strict_number (s);
    }
}

void
fuzz_check_json_text (const char *text, gssize length, const char *what)
{
  if (text == NULL)
    fuzz_fail (what, "no JSON text was produced");
  gsize n = length < 0 ? strlen (text) : (gsize) length;
  const char *bad = NULL;
  if (!g_utf8_validate (text, (gssize) n, &bad))
    fuzz_fail (what, "produced JSON that is not UTF-8 (byte %zu of %zu): %.200s",
               (gsize) (bad - text), n, text);

  Strict s = { text, text + n, NULL };
  if (strict_value (&s, 1))
    {
      skip_ws (&s);
      if (s.p != s.end)
        fail (&s, "text after the value");
    }
  if (s.error != NULL)
    fuzz_fail (what, "produced invalid JSON (%s at byte %zu): %.300s", s.error,
               (gsize) (s.p - text), MAX (s.p - 100, text));

  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_data (parser, text, (gssize) n, &error))
    fuzz_fail (what, "json-glib cannot read back the JSON it produced: %s", error->message);
}

void
fuzz_check_json (JsonBuilder *builder, const char *what)
{
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  if (root == NULL)
    fuzz_fail (what, "the JSON builder holds no complete value");
  g_autofree char *compact = util_json_to_data (root, FALSE);
  fuzz_check_json_text (compact, -1, what);
  g_autofree char *pretty = util_json_to_data (root, TRUE);
  fuzz_check_json_text (pretty, -1, what);
}

#define FUZZ_MAX_SIM_WORK 4096

gboolean
fuzz_predict_json (const ModelSpec *model, const TopoCluster *cluster, Plan *plan,
                   const char *what)
{
  g_autoptr (GError) error = NULL;
  if (!plan_resolve (plan, model, cluster, &error))
    return FALSE;

  g_autoptr (JsonBuilder) pb = json_builder_new ();
  plan_to_json (plan, pb);
  fuzz_check_json (pb, what);

  /* Valid plans can take seconds to simulate under the sanitizers (a Llama 3 405B step is
   * 30,000 tasks; 832 micro-batches of tiny-llama took 0.4 s), which libFuzzer would
   * report as hangs: simulate only up to FUZZ_MAX_SIM_WORK micro-batches x layers. */
  if ((guint64) MAX (plan->grad_accum, 1) * model->n_layers > FUZZ_MAX_SIM_WORK)
    return FALSE;
  SimOptions opts;
  sim_options_init (&opts, cluster);
  g_autoptr (SimPrediction) p = sim_predict (model, plan, cluster, &opts, &error);
  if (p == NULL)
    return FALSE;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  sim_prediction_to_json (p, MODEL_FLOPS_PALM, b);
  fuzz_check_json (b, what);
  g_autoptr (JsonBuilder) mb = json_builder_new ();
  plan_memory_to_json (&p->memory, mb);
  fuzz_check_json (mb, what);
  return TRUE;
}
