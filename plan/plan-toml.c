/* plan/plan-toml.c - `--plan FILE.toml`: a TorchTitan job TOML read as a plan.
 *
 * Debian has no C TOML library, so this is a small reader of the subset TorchTitan's
 * configs use (the train_configs of torchtitan's models): comments, [section] headers,
 * `key = value` with bare or quoted keys, and values that are basic or literal strings,
 * integers (with _ separators), floats, booleans, and one-line or multi-line arrays of
 * those. Inline tables, arrays of tables ([[x]]), dotted keys and headers, multi-line
 * strings and dates are outside it: a clear error names the line.
 *
 * The plan is read from [parallelism], [training] and [activation_checkpoint] (the keys
 * plan-json.c maps, TorchTitan's names) and [float8] (or [model] converters = ["float8"]):
 * float8 linears make the GEMMs fp8, and tp > 1 brings sequence parallelism as TorchTitan
 * applies it. Keys of those sections that do not shape a step
 * (steps, seed, dataset, max_norm, ...) and the other sections TorchTitan defines (job,
 * model, optimizer, lr_scheduler, metrics, checkpoint, ...) are skipped; an unknown
 * section, or an unknown key in a plan section, is an error (a typo must not become a
 * default). The kept keys go through plan_load_json_data, so the two formats agree. */
#include "plan/plan.h"
#include "util/input.h"

#include <json-glib/json-glib.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *p, *end;   /* cursor in the text */
  int         line;      /* 1-based, for errors */
  const char *source;
} Toml;

static gboolean
toml_fail (Toml *t, GError **error, const char *what, const char *hint)
{
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s:%d: %s (hint: %s)", t->source,
               t->line, what, hint);
  return FALSE;
}

#define SUBSET_HINT "tandem reads the TOML subset TorchTitan's configs use: [section], " \
                    "key = string, integer, float, boolean or array of those"

static void
skip_blank (Toml *t)
{
  while (t->p < t->end && (*t->p == ' ' || *t->p == '\t'))
    t->p++;
}

/* Blanks, comments and newlines (inside arrays). */
static void
skip_space_nl (Toml *t)
{
  for (;;)
    {
      skip_blank (t);
      if (t->p < t->end && *t->p == '#')
        while (t->p < t->end && *t->p != '\n')
          t->p++;
      if (t->p < t->end && (*t->p == '\n' || *t->p == '\r'))
        {
          if (*t->p == '\n')
            t->line++;
          t->p++;
          continue;
        }
      return;
    }
}

/* After a value or header: blanks, an optional comment, then the end of the line. */
static gboolean
end_of_line (Toml *t, GError **error)
{
  skip_blank (t);
  if (t->p < t->end && *t->p == '#')
    while (t->p < t->end && *t->p != '\n')
      t->p++;
  if (t->p < t->end && *t->p == '\r')
    t->p++;
  if (t->p < t->end && *t->p != '\n')
    return toml_fail (t, error, "unexpected text after the value", SUBSET_HINT);
  return TRUE;
}

static gboolean
is_bare (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '-';
}

/* A basic ("...", escapes \" \\ \/ \b \f \n \r \t \uXXXX \UXXXXXXXX) or literal ('...')
 * string on one line. */
static char *
parse_string (Toml *t, GError **error)
{
  char q = *t->p;
  if (t->p + 2 < t->end && t->p[1] == q && t->p[2] == q)
    {
      toml_fail (t, error, "multi-line strings are outside the subset", SUBSET_HINT);
      return NULL;
    }
  t->p++;
  GString *s = g_string_new (NULL);
  while (t->p < t->end && *t->p != q)
    {
      char c = *t->p++;
      if (c == '\n' || c == '\0')
        break;
      if (q == '"' && c == '\\')
        {
          if (t->p >= t->end)
            break;
          char e = *t->p++;
          int hex = e == 'u' ? 4 : e == 'U' ? 8 : 0;
          if (hex > 0)
            {
              gunichar u = 0;
              for (int i = 0; i < hex; i++)
                {
                  if (t->p >= t->end || !g_ascii_isxdigit (*t->p))
                    goto bad;
                  u = u * 16 + (gunichar) g_ascii_xdigit_value (*t->p++);
                }
              if (!g_unichar_validate (u) || u == 0)
                goto bad;
              g_string_append_unichar (s, u);
              continue;
            }
          const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
          const char *k = e != '\0' ? strchr (from, e) : NULL;
          if (k == NULL)
            goto bad;
          g_string_append_c (s, to[k - from]);
          continue;
        }
      g_string_append_c (s, c);
    }
  if (t->p >= t->end || *t->p != q)
    {
      g_string_free (s, TRUE);
      toml_fail (t, error, "unterminated string", "close it on the same line");
      return NULL;
    }
  t->p++;
  if (!g_utf8_validate (s->str, (gssize) s->len, NULL) || strlen (s->str) != s->len)
    {
      g_string_free (s, TRUE);
      toml_fail (t, error, "a string that is not UTF-8 text", "save the file as UTF-8");
      return NULL;
    }
  return g_string_free (s, FALSE);
bad:
  g_string_free (s, TRUE);
  toml_fail (t, error, "bad escape in a string", "\\\" \\\\ \\n \\t \\uXXXX");
  return NULL;
}

static JsonNode *parse_value (Toml *t, int depth, GError **error);

static JsonNode *
parse_array (Toml *t, int depth, GError **error)
{
  if (depth > 8)
    {
      toml_fail (t, error, "arrays nested more than 8 deep", SUBSET_HINT);
      return NULL;
    }
  t->p++;   /* [ */
  JsonArray *arr = json_array_new ();
  for (;;)
    {
      skip_space_nl (t);
      if (t->p < t->end && *t->p == ']')
        {
          t->p++;
          break;
        }
      JsonNode *v = parse_value (t, depth + 1, error);
      if (v == NULL)
        {
          json_array_unref (arr);
          return NULL;
        }
      json_array_add_element (arr, v);
      skip_space_nl (t);
      if (t->p < t->end && *t->p == ',')
        {
          t->p++;
          continue;
        }
      if (t->p < t->end && *t->p == ']')
        {
          t->p++;
          break;
        }
      json_array_unref (arr);
      toml_fail (t, error, "an array needs ',' between values and ']' at its end",
                 "[\"a\", \"b\"]");
      return NULL;
    }
  JsonNode *n = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (n, arr);
  return n;
}

static JsonNode *
parse_value (Toml *t, int depth, GError **error)
{
  skip_blank (t);
  if (t->p >= t->end || *t->p == '\n' || *t->p == '#')
    {
      toml_fail (t, error, "a key without a value", "key = value");
      return NULL;
    }
  char c = *t->p;
  if (c == '"' || c == '\'')
    {
      char *s = parse_string (t, error);
      if (s == NULL)
        return NULL;
      JsonNode *n = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (n, s);
      g_free (s);
      return n;
    }
  if (c == '[')
    return parse_array (t, depth, error);
  if (c == '{')
    {
      toml_fail (t, error, "inline tables are outside the subset", SUBSET_HINT);
      return NULL;
    }
  /* a bare token: boolean, integer or float */
  const char *start = t->p;
  while (t->p < t->end && (g_ascii_isalnum (*t->p) || strchr ("+-._:", *t->p) != NULL))
    t->p++;
  g_autofree char *tok = g_strndup (start, (gsize) (t->p - start));
  if (g_str_equal (tok, "true") || g_str_equal (tok, "false"))
    {
      JsonNode *n = json_node_new (JSON_NODE_VALUE);
      json_node_set_boolean (n, tok[0] == 't');
      return n;
    }
  /* underscores only between digits (TOML 1.0); removed before conversion */
  GString *num = g_string_new (NULL);
  gboolean ok = tok[0] != '\0';
  for (const char *q = tok; *q; q++)
    {
      if (*q == '_')
        {
          if (q == tok || !g_ascii_isdigit (q[-1]) || !g_ascii_isdigit (q[1]))
            ok = FALSE;
          continue;
        }
      g_string_append_c (num, *q);
    }
  g_autofree char *digits = g_string_free (num, FALSE);
  /* decimal only: hex, octal and binary integers, inf, nan and dates are outside */
  ok = ok && strspn (digits, "0123456789+-.eE") == strlen (digits);
  /* TOML 1.0 forbids leading zeros in an integer and in a float's integer part (010,
   * 007.5; "0", "-0" and "0.5" are fine): a reader that took 010 as 10, or as octal 8,
   * would read a file TorchTitan's tomllib refuses */
  const char *mag = digits + (digits[0] == '+' || digits[0] == '-');
  if (ok && mag[0] == '0' && g_ascii_isdigit (mag[1]))
    {
      toml_fail (t, error, "a number with a leading zero, which TOML does not allow",
                 "drop the leading zeros");
      return NULL;
    }
  if (ok && strpbrk (digits, ".eE") == NULL)
    {
      char *end;
      errno = 0;
      gint64 v = g_ascii_strtoll (digits, &end, 10);
      if (*end == '\0' && errno == 0 && end != digits)
        {
          JsonNode *n = json_node_new (JSON_NODE_VALUE);
          json_node_set_int (n, v);
          return n;
        }
      if (errno == ERANGE)
        {
          toml_fail (t, error, "an integer beyond 64 bits", "a smaller number");
          return NULL;
        }
    }
  else if (ok)
    {
      char *end;
      double v = g_ascii_strtod (digits, &end);
      if (*end == '\0' && end != digits && isfinite (v))
        {
          JsonNode *n = json_node_new (JSON_NODE_VALUE);
          json_node_set_double (n, v);
          return n;
        }
    }
  toml_fail (t, error, "a value that is not a string, number, boolean or array "
             "(dates, inf and nan are outside the subset)", SUBSET_HINT);
  return NULL;
}

static char *
parse_key (Toml *t, GError **error)
{
  skip_blank (t);
  if (t->p < t->end && (*t->p == '"' || *t->p == '\''))
    return parse_string (t, error);
  const char *start = t->p;
  while (t->p < t->end && is_bare (*t->p))
    t->p++;
  if (t->p == start)
    {
      toml_fail (t, error, "expected a key", "key = value, or [section]");
      return NULL;
    }
  return g_strndup (start, (gsize) (t->p - start));
}

gboolean
plan_toml_parse (const char *text, gssize len, const char *source, JsonNode **out,
                 GError **error)
{
  Toml t = { text, text + (len < 0 ? (gssize) strlen (text) : len), 1, source };
  if (memchr (text, '\0', (gsize) (t.end - text)) != NULL)
    return toml_fail (&t, error, "a NUL byte in the file", "a text file");
  /* a UTF-8 byte-order mark, as Windows editors write one, is not part of the text
   * (TOML 1.0 leaves it to the reader; the JSON loaders already skip it) */
  if (t.end - t.p >= 3 && memcmp (t.p, "\xef\xbb\xbf", 3) == 0)
    t.p += 3;
  JsonObject *root = json_object_new ();
  JsonObject *section = NULL;    /* NULL: top level (before any header) */
  gboolean ok = TRUE;
  while (ok)
    {
      skip_space_nl (&t);
      if (t.p >= t.end)
        break;
      if (*t.p == '[')
        {
          if (t.p + 1 < t.end && t.p[1] == '[')
            {
              ok = toml_fail (&t, error, "arrays of tables ([[...]]) are outside the subset",
                              SUBSET_HINT);
              break;
            }
          t.p++;
          g_autofree char *name = parse_key (&t, error);
          skip_blank (&t);
          if (name == NULL)
            ok = FALSE;
          else if (t.p < t.end && *t.p == '.')
            ok = toml_fail (&t, error, "dotted section names are outside the subset",
                            SUBSET_HINT);
          else if (t.p >= t.end || *t.p != ']')
            ok = toml_fail (&t, error, "a section header needs its ']'", "[parallelism]");
          else if (json_object_has_member (root, name))
            ok = toml_fail (&t, error, "a section defined twice", "one [section] each");
          else
            {
              t.p++;
              ok = end_of_line (&t, error);
              section = json_object_new ();
              json_object_set_object_member (root, name, section);
            }
          continue;
        }
      g_autofree char *key = parse_key (&t, error);
      if (key == NULL)
        {
          ok = FALSE;
          break;
        }
      skip_blank (&t);
      if (t.p < t.end && *t.p == '.')
        {
          ok = toml_fail (&t, error, "dotted keys are outside the subset", SUBSET_HINT);
          break;
        }
      if (t.p >= t.end || *t.p != '=')
        {
          ok = toml_fail (&t, error, "expected '=' after the key", "key = value");
          break;
        }
      t.p++;
      JsonNode *v = parse_value (&t, 0, error);
      if (v == NULL)
        {
          ok = FALSE;
          break;
        }
      JsonObject *target = section != NULL ? section : root;
      if (json_object_has_member (target, key))
        {
          json_node_unref (v);
          ok = toml_fail (&t, error, "a key defined twice", "one value per key");
          break;
        }
      json_object_set_member (target, key, v);
      ok = end_of_line (&t, error);
    }
  if (!ok)
    {
      json_object_unref (root);
      return FALSE;
    }
  *out = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (*out, root);
  return TRUE;
}

/* TorchTitan keys of the plan sections that do not shape one step's time or memory:
 * skipped (torchtitan/config/job_config.py). */
static const char *const skipped_training[] = {
  "steps", "max_norm", "warmup_steps", "dataset", "dataset_path", "seed", "deterministic",
  "gc_freq", "gc_debug", "enable_cpu_offload",
  "debug_moe_force_load_balance", "mixed_precision_param_dtype", NULL,
};
static const char *const skipped_parallelism[] = {
  "disable_loss_parallel", "enable_compiled_autograd", "fsdp_reshard_after_forward_policy",
  "tensor_parallel_degree_dp", "pipeline_parallel_split_points", "module_fqns_per_model_part",
  "pipeline_parallel_first_stage_less_layers", "pipeline_parallel_last_stage_less_layers",
  "pipeline_parallel_schedule_csv", "pipeline_parallel_layers_per_stage_csv", NULL,
};
static const char *const skipped_checkpoint[] = {
  "preserve_rng_state", "early_stop", "per_op_sac_force_recompute_mm_shapes_by_fqns", NULL,
};
/* The other sections of a TorchTitan job config: not the plan. */
static const char *const other_sections[] = {
  "job", "profiling", "metrics", "model", "optimizer", "lr_scheduler", "checkpoint",
  "comm", "experimental", "validation", "fault_tolerance", "memory_estimation",
  "mx", "quantize", "dataloader", NULL,
};

static gboolean
in_list (const char *const *list, const char *s)
{
  for (guint i = 0; list[i]; i++)
    if (g_str_equal (list[i], s))
      return TRUE;
  return FALSE;
}

/* float8 linears on: [float8] enable_float8_linear = true (older TorchTitan) or
 * [model] converters = ["float8"] (newer); the [float8] section's other keys (recipe,
 * all-gather in fp8, filter_fqns) tune it and are accepted. */
static gboolean
float8_section (JsonObject *sec, const char *source, gboolean *on, gboolean *fsdp_ag,
                const char **recipe, GError **error)
{
  static const char *const known[] = {
    "enable_float8_linear", "enable_fsdp_float8_all_gather",
    "precompute_float8_dynamic_scale_for_fsdp", "recipe_name", "filter_fqns", "emulate",
    "force_recompute_fp8_weight_in_bwd", "moe_fqns_prototype", NULL,
  };
  g_autoptr (GList) members = json_object_get_members (sec);
  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      if (!in_list (known, key))
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: unknown key float8.%s "
                       "(hint: enable_float8_linear, recipe_name, "
                       "enable_fsdp_float8_all_gather, filter_fqns)", source, key);
          return FALSE;
        }
      JsonNode *n = json_object_get_member (sec, key);
      if (g_str_equal (key, "enable_fsdp_float8_all_gather") && JSON_NODE_HOLDS_VALUE (n)
          && json_node_get_value_type (n) == G_TYPE_BOOLEAN)
        *fsdp_ag = json_node_get_boolean (n);
      /* torchao's recipes (Float8LinearRecipeName): "tensorwise", "rowwise" and
       * "rowwise_with_gw_hp" (rowwise with the weight gradient's GEMM in high precision,
       * costed as rowwise); it was skipped, the stack's tensorwise taken (a rowwise run
       * predicted 23% faster) */
      if (g_str_equal (key, "recipe_name"))
        {
          const char *v = JSON_NODE_HOLDS_VALUE (n)
                          && json_node_get_value_type (n) == G_TYPE_STRING
                          ? json_node_get_string (n) : NULL;
          if (v == NULL || !(g_str_equal (v, "tensorwise") || g_str_equal (v, "rowwise")
                             || g_str_equal (v, "rowwise_with_gw_hp")))
            {
              g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: float8.recipe_name must "
                           "be \"tensorwise\", \"rowwise\" or \"rowwise_with_gw_hp\"",
                           source);
              return FALSE;
            }
          *recipe = g_str_equal (v, "tensorwise") ? "tensorwise" : "rowwise";
        }
      if (g_str_equal (key, "enable_float8_linear"))
        {
          if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
            {
              g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: float8.%s must be true "
                           "or false", source, key);
              return FALSE;
            }
          *on = *on || json_node_get_boolean (n);
        }
    }
  return TRUE;
}

gboolean
plan_load_toml_data (Plan *plan, const char *text, gssize len, const char *source,
                     GError **error)
{
  g_autoptr (JsonNode) doc = NULL;
  /* a TOML plan saved as UTF-16 was a syntax error far from the cause, as JSON was */
  g_autoptr (GError) local = NULL;
  if (!util_text_encoding_check (text, len < 0 ? strlen (text) : (gsize) len, source, &local))
    {
      g_set_error_literal (error, PLAN_ERROR, PLAN_ERROR_PARSE, local->message);
      return FALSE;
    }
  if (!plan_toml_parse (text, len, source, &doc, error))
    return FALSE;
  JsonObject *root = json_node_get_object (doc);
  g_autoptr (JsonObject) kept = json_object_new ();
  gboolean fp8 = FALSE, compile = FALSE, fsdp_fp8_ag = FALSE;
  const char *fp8_recipe = NULL;
  g_autoptr (GList) members = json_object_get_members (root);
  for (GList *l = members; l; l = l->next)
    {
      const char *name = l->data;
      JsonNode *n = json_object_get_member (root, name);
      if (!JSON_NODE_HOLDS_OBJECT (n))
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: key '%s' outside any "
                       "section (hint: put it under [parallelism] or [training])", source,
                       name);
          return FALSE;
        }
      JsonObject *sec = json_node_get_object (n);
      const char *const *skip = g_str_equal (name, "training") ? skipped_training
                                : g_str_equal (name, "parallelism") ? skipped_parallelism
                                : g_str_equal (name, "activation_checkpoint")
                                  ? skipped_checkpoint : NULL;
      if (skip != NULL)
        {
          JsonObject *copy = json_object_new ();
          g_autoptr (GList) keys = json_object_get_members (sec);
          for (GList *k = keys; k; k = k->next)
            {
              const char *key = k->data;
              /* explicit split points place every stage's layers, which tandem's
               * even split with an uneven first and last stage does not express: an
               * empty list (TorchTitan's default) is skipped, another refused (it was
               * skipped: "layers.8" on pp 2 ran 16 + 16) */
              if (skip == skipped_parallelism && g_str_equal (key, "pipeline_parallel_split_points"))
                {
                  JsonNode *sp = json_object_get_member (sec, key);
                  if (!JSON_NODE_HOLDS_ARRAY (sp) || json_array_get_length (json_node_get_array (sp)) > 0)
                    {
                      json_object_unref (copy);
                      g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: "
                                   "parallelism.pipeline_parallel_split_points is not "
                                   "modelled (hint: an empty list, and the uneven first or "
                                   "last stage as --decoder-first-pipeline-num-layers / "
                                   "--decoder-last-pipeline-num-layers after --plan)",
                                   source);
                      return FALSE;
                    }
                  continue;
                }
              if (in_list (skip, key))
                continue;
              /* TorchTitan before local_batch_size called it training.batch_size */
              if (skip == skipped_training && g_str_equal (key, "batch_size"))
                {
                  if (json_object_has_member (sec, "local_batch_size"))
                    {
                      json_object_unref (copy);
                      g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: "
                                   "training.batch_size and training.local_batch_size both "
                                   "given (hint: local_batch_size, TorchTitan's newer "
                                   "name)", source);
                      return FALSE;
                    }
                  key = "local_batch_size";
                }
              json_object_set_member (copy, key,
                                      json_node_copy (json_object_get_member (sec, k->data)));
            }
          json_object_set_object_member (kept, name, copy);
        }
      else if (g_str_equal (name, "compile"))
        {
          /* newer TorchTitan: [compile] enable = true with "model" among its components
           * is the older training.compile (--compile) */
          JsonNode *en = json_object_get_member (sec, "enable");
          JsonNode *comp = json_object_get_member (sec, "components");
          /* a typo or a string was read as "not compiled" without a word */
          static const char *const compile_keys[] = { "enable", "components", "backend", NULL };
          g_autoptr (GList) ck = json_object_get_members (sec);
          for (GList *k = ck; k; k = k->next)
            if (!in_list (compile_keys, k->data))
              {
                g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: unknown key compile.%s "
                             "(hint: enable, components, backend)", source,
                             (const char *) k->data);
                return FALSE;
              }
          if (en != NULL && !(JSON_NODE_HOLDS_VALUE (en)
                              && json_node_get_value_type (en) == G_TYPE_BOOLEAN))
            {
              g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: compile.enable must be "
                           "true or false", source);
              return FALSE;
            }
          gboolean model = comp == NULL || !JSON_NODE_HOLDS_ARRAY (comp);
          if (comp != NULL && JSON_NODE_HOLDS_ARRAY (comp))
            {
              JsonArray *a = json_node_get_array (comp);
              for (guint i = 0; i < json_array_get_length (a); i++)
                {
                  JsonNode *e = json_array_get_element (a, i);
                  if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING
                      && g_str_equal (json_node_get_string (e), "model"))
                    model = TRUE;
                }
            }
          compile = en != NULL && JSON_NODE_HOLDS_VALUE (en)
                    && json_node_get_value_type (en) == G_TYPE_BOOLEAN
                    && json_node_get_boolean (en) && model;
        }
      else if (g_str_equal (name, "float8"))
        {
          if (!float8_section (sec, source, &fp8, &fsdp_fp8_ag, &fp8_recipe, error))
            return FALSE;
        }
      else if (g_str_equal (name, "model"))
        {
          JsonNode *conv = json_object_get_member (sec, "converters");
          if (conv != NULL && !JSON_NODE_HOLDS_ARRAY (conv))
            {
              g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: model.converters must be "
                           "an array (hint: converters = [\"float8\"])", source);
              return FALSE;
            }
          if (conv != NULL && JSON_NODE_HOLDS_ARRAY (conv))
            {
              JsonArray *a = json_node_get_array (conv);
              for (guint i = 0; i < json_array_get_length (a); i++)
                {
                  JsonNode *e = json_array_get_element (a, i);
                  if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING
                      && g_str_equal (json_node_get_string (e), "float8"))
                    fp8 = TRUE;
                }
            }
        }
      else if (!in_list (other_sections, name))
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: unknown section [%s] (hint: "
                       "the plan is read from [parallelism], [training], "
                       "[activation_checkpoint] and [float8])", source, name);
          return FALSE;
        }
    }
  /* TorchTitan's defaults where the file leaves a key out (torchtitan/config/
   * job_config.py): Parallelism.data_parallel_shard_degree -1 (FSDP over the ranks left)
   * and expert_tensor_parallel_degree 1; ActivationCheckpoint.mode "selective" with
   * selective_ac_option "2" (every second block checkpointed). A file without them was
   * read as no sharding (a 3x memory figure and "does not fit"), expert TP = tp and no
   * checkpointing. The option counts only under mode "selective" (apply_ac: "full" wraps
   * every block, "none" none); it was applied under any mode. */
  {
    if (!json_object_has_member (kept, "parallelism"))
      json_object_set_object_member (kept, "parallelism", json_object_new ());
    JsonObject *par = json_object_get_object_member (kept, "parallelism");
    if (!json_object_has_member (par, "data_parallel_shard_degree"))
      json_object_set_int_member (par, "data_parallel_shard_degree", -1);
    if (json_object_has_member (par, "expert_parallel_degree")
        && !json_object_has_member (par, "expert_tensor_parallel_degree"))
      json_object_set_int_member (par, "expert_tensor_parallel_degree", 1);
    if (!json_object_has_member (kept, "activation_checkpoint"))
      json_object_set_object_member (kept, "activation_checkpoint", json_object_new ());
    JsonObject *ac = json_object_get_object_member (kept, "activation_checkpoint");
    JsonNode *mode_n = json_object_get_member (ac, "mode");
    const char *mode = mode_n != NULL && JSON_NODE_HOLDS_VALUE (mode_n)
                       && json_node_get_value_type (mode_n) == G_TYPE_STRING
                       ? json_node_get_string (mode_n) : mode_n == NULL ? "selective" : NULL;
    if (mode != NULL && g_str_equal (mode, "selective"))
      {
        JsonNode *opt_n = json_object_get_member (ac, "selective_ac_option");
        const char *opt = opt_n == NULL ? "2"
                          : JSON_NODE_HOLDS_VALUE (opt_n)
                            && json_node_get_value_type (opt_n) == G_TYPE_STRING
                          ? json_node_get_string (opt_n) : NULL;
        /* every N-th block: tandem's plan reads it as full recompute of those blocks */
        if (opt != NULL && !g_str_equal (opt, "op"))
          {
            g_autofree char *o = g_strdup (opt);
            json_object_set_string_member (ac, "mode", "full");
            json_object_set_string_member (ac, "selective_ac_option", o);
          }
        else if (opt != NULL)
          json_object_set_string_member (ac, "mode", "selective");
      }
    else if (mode != NULL)
      json_object_remove_member (ac, "selective_ac_option");
  }
  /* TorchTitan's tensor parallelism shards the norms along the sequence (its llama
   * parallelize plans put SequenceParallel on attention_norm and ffn_norm): sequence
   * parallelism comes with tp > 1 unless the file says otherwise */
  if (json_object_has_member (kept, "parallelism"))
    {
      JsonObject *par = json_object_get_object_member (kept, "parallelism");
      JsonNode *tp = json_object_get_member (par, "tensor_parallel_degree");
      if (tp != NULL && JSON_NODE_HOLDS_VALUE (tp)
          && json_node_get_value_type (tp) == G_TYPE_INT64 && json_node_get_int (tp) > 1
          && !json_object_has_member (par, "sequence_parallel"))
        json_object_set_boolean_member (par, "sequence_parallel", TRUE);
    }
  if (compile)
    {
      if (!json_object_has_member (kept, "training"))
        json_object_set_object_member (kept, "training", json_object_new ());
      JsonObject *tr = json_object_get_object_member (kept, "training");
      JsonNode *old = json_object_get_member (tr, "compile");
      if (old != NULL && JSON_NODE_HOLDS_VALUE (old)
          && json_node_get_value_type (old) == G_TYPE_BOOLEAN && !json_node_get_boolean (old))
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: training.compile = false and "
                       "[compile] enable = true contradict each other (hint: one of them)",
                       source);
          return FALSE;
        }
      if (!json_object_has_member (tr, "compile"))
        json_object_set_boolean_member (tr, "compile", TRUE);
    }
  if (fp8)
    {
      if (!json_object_has_member (kept, "training"))
        json_object_set_object_member (kept, "training", json_object_new ());
      JsonObject *tr = json_object_get_object_member (kept, "training");
      if (json_object_has_member (tr, "precision"))
        {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_PARSE, "%s: float8 and "
                       "training.precision both given (hint: one of them)", source);
          return FALSE;
        }
      json_object_set_string_member (tr, "precision", "fp8");
      if (fp8_recipe != NULL)
        {
          JsonObject *prec = json_object_new ();
          json_object_set_string_member (prec, "fp8_recipe", fp8_recipe);
          json_object_set_object_member (kept, "precision", prec);
        }
      if (fsdp_fp8_ag)
        {
          if (!json_object_has_member (kept, "parallelism"))
            json_object_set_object_member (kept, "parallelism", json_object_new ());
          json_object_set_boolean_member (json_object_get_object_member (kept, "parallelism"),
                                          "enable_fsdp_float8_all_gather", TRUE);
        }
    }
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, kept);
  /* through util_json_to_data: json-glib's own writer prints 1e-08 as "1e-08.0"
   * (fuzz-plan-toml found it on the seed with an [optimizer] eps) */
  g_autofree char *json = util_json_to_data (node, FALSE);
  return plan_load_json_data (plan, json, -1, source, error);
}

gboolean
plan_load_toml (Plan *plan, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  GError *local = NULL;
  if (!util_input_read_file (path, UTIL_INPUT_MAX_DOC_BYTES, &text, &len, &local))
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE, "cannot read plan file: %s",
                   local->message);
      g_error_free (local);
      return FALSE;
    }
  return plan_load_toml_data (plan, text, (gssize) len, path, error);
}
