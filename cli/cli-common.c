/* cli/cli-common.c - plan context, errors, JSON and number formatting for subcommands. */
#include "cli/cli.h"

#include <math.h>
#include "sim/cost.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int
cli_fail (int status, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *raw = g_strdup_vprintf (format, ap);
  va_end (ap);
  /* one line, whatever it quotes: a newline or ESC in a refused name (a file's value, a
   * flag's) is written as \x0a, \x1b (the terminal acted on them) */
  g_autofree char *msg = cli_printable (raw, NULL);
  /* a message quotes what it refuses, and a 1 MB model_type made a 1 MB error line: a run
   * of more than CLI_FAIL_MAX_WORD characters without a blank is cut to its start and its
   * length (paths, names and numbers are far shorter) */
  GString *out = g_string_sized_new (strlen (msg) + 1);
  for (const char *p = msg; *p != '\0';)
    {
      gsize n = strcspn (p, " \t\n");
      if (n > CLI_FAIL_MAX_WORD)
        {
          const char *cut = g_utf8_find_prev_char (p, p + 96);
          cut = cut != NULL ? cut : p + 96;
          g_string_append_len (out, p, cut - p);
          g_string_append_printf (out, "...(%" G_GSIZE_FORMAT " characters)", n);
        }
      else
        g_string_append_len (out, p, (gssize) n);
      p += n;
      gsize blanks = strspn (p, " \t\n");
      g_string_append_len (out, p, (gssize) blanks);
      p += blanks;
    }
  fprintf (stderr, "tandem: error: %s\n", out->str);
  g_string_free (out, TRUE);
  return status;
}

int
cli_status_for_error (const GError *error)
{
  if (error == NULL)
    return CLI_EXIT_FAILURE;
  if (error->domain == PLAN_ERROR || error->domain == G_OPTION_ERROR)
    return CLI_EXIT_USAGE;
  if (error->domain == MODEL_ERROR || error->domain == TOPO_ERROR)
    return CLI_EXIT_USAGE;   /* a bad or unknown model / cluster is the user's input */
  return CLI_EXIT_FAILURE;
}

guint
cli_edit_distance (const char *a, const char *b)
{
  /* Optimal string alignment: insertions, deletions, substitutions and swaps of two
   * neighbours ("predcit" -> "predict" is 1) each cost 1. Three rows of the DP table. */
  gsize n = strlen (a), m = strlen (b);
  g_autofree guint *prev2 = g_new0 (guint, m + 1);
  g_autofree guint *prev = g_new0 (guint, m + 1);
  g_autofree guint *cur = g_new0 (guint, m + 1);
  for (gsize j = 0; j <= m; j++)
    prev[j] = (guint) j;
  for (gsize i = 1; i <= n; i++)
    {
      cur[0] = (guint) i;
      for (gsize j = 1; j <= m; j++)
        {
          guint cost = a[i - 1] == b[j - 1] ? 0 : 1;
          guint d = MIN (prev[j] + 1, cur[j - 1] + 1);
          d = MIN (d, prev[j - 1] + cost);
          if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
            d = MIN (d, prev2[j - 2] + 1);
          cur[j] = d;
        }
      guint *t = prev2;
      prev2 = prev, prev = cur, cur = t;
    }
  return prev[m];
}

const char *
cli_closest (const char *word, const char *const *candidates, guint n)
{
  /* Close enough to be a slip: 1 edit up to 4 characters, 2 up to 8, then 3. */
  gsize len = strlen (word);
  guint limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
  const char *best = NULL;
  guint best_d = limit + 1;
  for (guint i = 0; i < n; i++)
    {
      guint d = cli_edit_distance (word, candidates[i]);
      if (d < best_d)
        best = candidates[i], best_d = d;
    }
  return best;
}

/* The option names an option context knows ("--tp", ...), read off its --help text so
 * that every group and extra entry counts. */
static GPtrArray *
option_names (GOptionContext *octx)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *help = g_option_context_get_help (octx, FALSE, NULL);
  for (const char *p = help; (p = strstr (p, "--")) != NULL;)
    {
      const char *q = p + 2;
      while (g_ascii_isalnum (*q) || *q == '-')
        q++;
      if (q > p + 2 && (p == help || g_ascii_isspace (p[-1]) || p[-1] == ','))
        g_ptr_array_add (names, g_strndup (p, q - p));
      p = q;
    }
  return names;
}

char *
cli_did_you_mean (const char *word, const char *const *names)
{
  /* compared without case (values are matched so), named as spelled in `names` */
  g_autoptr (GPtrArray) lower = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    g_ptr_array_add (lower, g_ascii_strdown (names[i], -1));
  g_autofree char *w = word != NULL ? g_ascii_strdown (word, -1) : NULL;
  const char *near = w != NULL ? cli_closest (w, (const char *const *) lower->pdata,
                                              lower->len) : NULL;
  for (guint i = 0; near != NULL && i < lower->len; i++)
    if (near == g_ptr_array_index (lower, i))
      return g_strdup_printf (" (did you mean '%s'?)", names[i]);
  return g_strdup ("");
}

/* A plan flag's "unknown schedule '1f1bb' (hint: GPipe, 1F1B or Interleaved1F1B)": the
 * message with "(did you mean '1F1B'?)" after the value, when the value is a slip of the
 * first word of one of the hint's choices (separated by commas, "or", "|" or ";"; words in
 * parentheses are explanations, not choices); NULL otherwise. */
/* GLib's own messages for an integer option (G_OPTION_ARG_INT), in tandem's words: "Integer
 * value “99999999999” for --seq-length out of range" and "Cannot parse integer value “x”
 * for --steps" (goption.c, parse_int; the quotes are GLib's typographic ones). They went
 * out as they were, unlike the integers the plan flags parse themselves (plan-args.c:
 * "--gbs 99999999999 is too large: it takes integers from 1 to 2147483647"). NULL for any
 * other message. */
static char *
int_value_text (const char *message, const char *command)
{
  static const char *const lead[] = { "Integer value \u201c", "Cannot parse integer value \u201c" };
  for (guint k = 0; k < G_N_ELEMENTS (lead); k++)
    {
      if (!g_str_has_prefix (message, lead[k]))
        continue;
      const char *v = message + strlen (lead[k]);
      const char *ve = strstr (v, "\u201d for ");
      if (ve == NULL)
        return NULL;
      const char *o = ve + strlen ("\u201d for ");
      g_autofree char *value = g_strndup (v, (gsize) (ve - v));
      g_autofree char *option = g_strndup (o, strcspn (o, " "));
      /* the option's own range may be narrower (run --steps: 1..10000): 2^31 - 1 is only
       * what an integer option can hold, not a value to try next */
      if (k == 0)
        return g_strdup_printf ("%s %s is too %s: past %d, the %s integer an option can "
                                "hold (hint: %s --help gives its range)", option, value,
                                value[0] == '-' ? "small" : "large",
                                value[0] == '-' ? G_MININT : G_MAXINT,
                                value[0] == '-' ? "smallest" : "largest", command);
      return g_strdup_printf ("%s expects an integer, got '%s' (hint: %s --help)", option,
                              value, command);
    }
  return NULL;
}

static char *
bad_value_suggestion (const char *message)
{
  const char *u = strstr (message, "unknown ");
  const char *q1 = u ? strchr (u, '\'') : NULL;
  const char *q2 = q1 ? strchr (q1 + 1, '\'') : NULL;
  const char *h = q2 ? strstr (q2, "(hint: ") : NULL;
  if (h == NULL)
    return NULL;
  g_autofree char *value = g_strndup (q1 + 1, (gsize) (q2 - q1 - 1));
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  gboolean want = TRUE;       /* at the start of a choice */
  int depth = 0;
  for (const char *p = h + 7; *p != '\0'; p++)
    {
      if (*p == '(')
        depth++;
      else if (*p == ')')
        {
          if (depth-- == 0)
            break;              /* the hint's own closing parenthesis */
        }
      else if (depth > 0)
        continue;
      else if (*p == ',' || *p == '|' || *p == ';')
        want = TRUE;
      else if (g_str_has_prefix (p, " or "))
        want = TRUE, p += 3;
      else if (want && (g_ascii_isalnum (*p) || *p == '_'))
        {
          const char *e = p;
          while (g_ascii_isalnum (*e) || *e == '_' || *e == '-' || *e == '.')
            e++;
          g_ptr_array_add (names, g_strndup (p, (gsize) (e - p)));
          want = FALSE;
          p = e - 1;
        }
    }
  g_ptr_array_add (names, NULL);
  g_autofree char *dym = cli_did_you_mean (value, (const char *const *) names->pdata);
  if (*dym == '\0')
    return NULL;
  return g_strdup_printf ("%.*s%s%s", (int) (q2 + 1 - message), message, dym, q2 + 1);
}

char *
cli_options_error_text (GOptionContext *octx, const GError *error, const char *command,
                        const char *const *more)
{
  if (g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION))
    {
      /* GLib's message is "Unknown option --x[=value]". */
      const char *dash = strstr (error->message, "-");
      if (dash != NULL)
        {
          g_autofree char *bad = g_strndup (dash, strcspn (dash, "= \t"));
          /* "-1" where a run id or count goes: GLib takes it for an option */
          if (g_ascii_isdigit (bad[1]))
            return g_strdup_printf ("'%s' is a negative number: ids and counts here are "
                                    "positive (hint: %s --help)", bad, command);
          g_autoptr (GPtrArray) names = option_names (octx);
          for (guint i = 0; more != NULL && more[i] != NULL; i++)
            g_ptr_array_add (names, g_strdup (more[i]));
          const char *near = cli_closest (bad, (const char *const *) names->pdata, names->len);
          if (near != NULL)
            return g_strdup_printf ("unknown option '%s' (did you mean '%s'?)", bad, near);
          return g_strdup_printf ("unknown option '%s' (hint: %s --help)", bad, command);
        }
    }
  if (g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE))
    {
      char *own = int_value_text (error->message, command);
      if (own != NULL)
        return own;
      char *near = bad_value_suggestion (error->message);
      if (near != NULL)
        return near;
    }
  /* GOption takes string options as UTF-8 (main sets LC_CTYPE to C.UTF-8); a value in
   * another encoding, a Latin-1 file name say, stopped at GLib's bare "Invalid byte
   * sequence in conversion input" */
  if (error->domain == G_CONVERT_ERROR)
    return g_strdup_printf ("an option's value is not UTF-8 text, which names, notes and "
                            "--model, --cluster or --framework files must be (hint: rename "
                            "the file, or link to it under a UTF-8 name; %s --help)", command);
  /* a message with its own hint (a plan file's error) needs no second one, whether in
   * parentheses or after a semicolon in them (JSON nested too deep: "...; hint: is it the
   * right file?)", which got "(hint: tandem predict --help)" after it) */
  if (strstr (error->message, "hint: ") != NULL)
    return g_strdup (error->message);
  return g_strdup_printf ("%s (hint: %s --help)", error->message, command);
}

int
cli_fail_options (GOptionContext *octx, const GError *error, const char *command)
{
  g_autofree char *text = cli_options_error_text (octx, error, command, NULL);
  return cli_fail (CLI_EXIT_USAGE, "%s", text);
}

char *
cli_lookup_error_text (const GError *error, const char *name)
{
  const char *kind = NULL;
  g_auto (GStrv) names = NULL;
  if (g_error_matches (error, MODEL_ERROR, MODEL_ERROR_NOT_FOUND))
    kind = "model", names = model_preset_names ();
  else if (g_error_matches (error, TOPO_ERROR, TOPO_ERROR_NOT_FOUND))
    kind = "cluster", names = topo_preset_names ();
  else if (g_error_matches (error, FW_ERROR, FW_ERROR_NOT_FOUND))
    kind = "framework", names = fw_stack_preset_names ();
  /* a slip of a preset's name, not a file: the nearest name instead of the whole list */
  if (kind != NULL && name != NULL && !g_file_test (name, G_FILE_TEST_EXISTS))
    {
      g_autofree char *dym = cli_did_you_mean (name, (const char *const *) names);
      if (*dym != '\0')
        return g_strdup_printf ("unknown %s '%s'%s", kind, name, dym);
    }
  return g_strdup (error->message);
}

ModelSpec *
cli_model_lookup (const char *name, GError **error)
{
  ModelSpec *m = model_spec_lookup (name, error);
  if (m != NULL && m->config_warning != NULL)
    fprintf (stderr, "tandem: warning: %s\n", m->config_warning);
  return m;
}

FwStack *
cli_stack_lookup (const char *name, GError **error)
{
  if (name != NULL)
    {
      g_autofree char *v = g_strstrip (g_strdup (name));
      if (*v == '\0')
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "'%s' names no framework stack (hint: megatron-core, or leave "
                       "--framework out for that default; tandem --help lists the stacks)",
                       name);
          return NULL;
        }
    }
  return fw_stack_lookup (name, error);
}

void
cli_warn_pipeline_bubble (const Plan *p)
{
  if (p->pp <= 1 || p->grad_accum <= 0 || p->grad_accum >= p->pp)
    return;
  /* With m micro-batches on pp stages (1F1B or GPipe) each stage idles pp - 1 micro-batch
   * slots of the m + pp - 1 an ideal step takes (equal forward and backward slots; the
   * simulated bubble differs a little); interleaving cuts a slot to 1/vpp of a
   * micro-batch: (pp-1) / (vpp m + pp - 1). m = 4 pp keeps it under 20% (Megatron-LM's
   * advice of m >> pp, Narayanan et al. 2021, sec. 2.2). */
  int v = MAX (p->vpp, 1);
  double bubble = (double) (p->pp - 1) / ((double) v * p->grad_accum + p->pp - 1);
  gint64 fix = (gint64) 4 * p->pp * p->micro_batch * p->dp;
  fprintf (stderr, "tandem: warning: %d micro-batch%s per step on %d pipeline stages: the "
           "pipeline idles (pp-1)/(%sm+pp-1) = %.1f%% of an ideal step (hint: --gbs %"
           G_GINT64_FORMAT " gives m = 4 x pp = %d)\n", p->grad_accum,
           p->grad_accum == 1 ? "" : "es", p->pp, v > 1 ? "vpp " : "", 100.0 * bubble, fix,
           4 * p->pp);
}

gboolean
cli_run_id (const char *text, gint64 *id)
{
  guint64 v = 0;
  if (text == NULL || !g_ascii_string_to_unsigned (text, 10, 1, G_MAXINT64, &v, NULL))
    return FALSE;
  *id = (gint64) v;
  return TRUE;
}

void
cli_warn_unknown_part (const TopoCluster *c)
{
  /* A compiled-in preset is what it is (an MI300X is no renamed H100); a cluster file whose
   * device the cost model does not know by name (sim/cost.c's device table) is most often
   * a preset copied and renamed, which would lose the part's fitted knobs without a word */
  /* nor a CPU host (`tandem run`'s devices: no GPU part to name) or a cluster that
   * carries a measured profile (tandem calibrate: its tables stand for the machine) */
  if (c == NULL || c->source == NULL || g_str_has_prefix (c->source, "preset:")
      || sim_cost_device_known (c) || g_strcmp0 (c->device.vendor, "cpu") == 0
      || c->profile != NULL)
    return;
  g_autofree char *list = g_strjoinv (", ", (char **) topo_known_parts ());
  /* the path as a terminal may print it (a file named with ESC or U+202E) */
  g_autofree char *src = cli_printable (c->source, NULL);
  g_autofree char *dev = cli_printable (c->device.name, NULL);
  fprintf (stderr, "tandem: note: the device '%s' of %s is no part tandem knows by name: it "
           "takes no fitted knob and its figures are extrapolated; if it is one (a renamed "
           "copy of a preset), say which with \"part\" in the file's device, e.g. \"part\": "
           "\"H100\" (known: %s)\n", dev, src, list);
}

void
cli_warn_untimed (const Plan *p)
{
  /* plan/memory.c moves the optimizer states to the host; no task of the step program
   * (plan/program.c) runs the host's Adam step or the PCIe copies of the gradients and
   * the updated parameters, so the step time is that of the same plan without offload.
   * The what-would-fit table says the same of its --optimizer-offload rows (cli-fit.c). */
  if (p->optimizer_offload)
    fprintf (stderr, "tandem: warning: --optimizer-offload: the step time leaves out the "
             "host's optimizer step and the copies of gradients and parameters over PCIe "
             "(not simulated; the memory is modelled): it is the same plan's step without "
             "offload\n");
}

void
cli_print_json (JsonBuilder *builder)
{
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  g_autofree char *text = util_json_to_data (root, TRUE);
  fputs (text, stdout);
  fputc ('\n', stdout);
}

#define RING 8
static char *
ring_slot (void)
{
  static char bufs[RING][64];
  static int next;
  next = (next + 1) % RING;
  return bufs[next];
}

/* A Hugging Face config's num_nextn_predict_layers says the checkpoint holds MTP modules;
 * Megatron-LM trains them only when --mtp-num-layers asks (its default None builds none).
 * Say which: the plan's modules are in the step time and the memory (plan.h
 * mtp_num_layers), the config's untrained ones in neither (model.h: counted apart from the
 * total), so that the figures do not read as the model with its MTP when they are not. */
void
cli_print_mtp_note (const ModelSpec *m, int trained, const char *indent)
{
  if (m == NULL || (m->mtp_layers == 0 && trained <= 0))
    return;
  ModelParams mp;
  model_spec_params (m, &mp);
  if (trained > 0)
    {
      printf ("%snote: the plan trains %d multi-token-prediction module%s of %s on the last "
              "stage (--mtp-num-layers %d; %s parameters each): in the step time and the "
              "memory\n", indent, trained, trained == 1 ? "" : "s", m->name, trained,
              cli_fmt_count (mp.mtp / MAX (m->mtp_layers, 1)));
      return;
    }
  printf ("%snote: the %" G_GUINT64_FORMAT " multi-token-prediction module%s of %s (%s "
          "parameters) %s in neither the step time nor the memory: the plan trains the main "
          "model only, as Megatron-LM does without --mtp-num-layers (add --mtp-num-layers %"
          G_GUINT64_FORMAT " to train %s)\n", indent,
          m->mtp_layers, m->mtp_layers == 1 ? "" : "s", m->name, cli_fmt_count (mp.mtp),
          m->mtp_layers == 1 ? "is" : "are", m->mtp_layers, m->mtp_layers == 1 ? "it" : "them");
}

const char *
cli_fmt_count (guint64 v)
{
  char digits[32];
  g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, v);
  char *out = ring_slot ();
  int len = (int) strlen (digits), o = 0;
  for (int i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        out[o++] = ',';
      out[o++] = digits[i];
    }
  out[o] = '\0';
  return out;
}

const char *
cli_fmt_bytes (double bytes)
{
  static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  int u = 0;
  while (bytes >= 1024.0 && u < (int) G_N_ELEMENTS (units) - 1)
    bytes /= 1024.0, u++;
  char *out = ring_slot ();
  g_snprintf (out, 64, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return out;
}

int
cli_seconds_decimals (double s)
{
  if (!(s > 0) || s >= 1.0)
    return 3;
  return MIN (9, 3 - (int) floor (log10 (s)));
}

const char *
cli_fmt_si (double v, const char *unit)
{
  static const char *const prefixes[] = { "", "k", "M", "G", "T", "P", "E", "Z" };
  int p = 0;
  while (v >= 1000.0 && p < (int) G_N_ELEMENTS (prefixes) - 1)
    v /= 1000.0, p++;
  char *out = ring_slot ();
  g_snprintf (out, 64, "%.4g %s%s", v, prefixes[p], unit);
  return out;
}

/* The value a command's own string option `name` took (NULL: not given, or no such) */
static const char *
extra_string_option (const GOptionEntry *extra, const char *name)
{
  for (const GOptionEntry *e = extra; e != NULL && e->long_name != NULL; e++)
    if (g_str_equal (e->long_name, name) && e->arg == G_OPTION_ARG_STRING && e->arg_data != NULL)
      return *(const char **) e->arg_data;
  return NULL;
}

int
cli_plan_context_init (CliPlanContext *ctx, const char *what, const char *summary,
                       const GOptionEntry *extra, int *argc, char ***argv)
{
  memset (ctx, 0, sizeof *ctx);
  plan_init_defaults (&ctx->plan);

  g_autoptr (GOptionContext) octx = g_option_context_new (what);
  g_option_context_set_summary (octx, summary);
  GOptionGroup *group = plan_option_group_new (&ctx->plan, &ctx->args);
  g_option_context_set_main_group (octx, group);
  CliModelFlags *mf = &ctx->model_flags;
  g_option_context_add_group (octx, cli_model_flags_group (mf));
  if (extra != NULL)
    g_option_context_add_main_entries (octx, extra, NULL);
  g_option_context_set_strict_posix (octx, FALSE);

  g_autoptr (GError) error = NULL;
  const GOptionEntry *const tables[] = { plan_option_entries (), cli_model_flags_entries (),
                                         extra, NULL };
  if (!cli_option_context_parse (octx, tables, argc, argv, &error))
    {
      /* main() set the program name to "tandem COMMAND"; `what` is a subcommand's own
       * word ("show" for `tandem plan show`) or "". */
      const char *prog = g_get_prgname () != NULL ? g_get_prgname () : "tandem";
      g_autofree char *command = g_strdup_printf ("%s%s%s", prog, *what != '\0' ? " " : "",
                                                  what);
      return cli_fail_options (octx, error, command);
    }

  const char *model = ctx->args.model_name ? ctx->args.model_name : CLI_DEFAULT_MODEL;
  const char *cluster = ctx->args.cluster_name ? ctx->args.cluster_name : CLI_DEFAULT_CLUSTER;
  if (cli_model_flags_given (mf))
    {
      /* a model by Megatron's flags, instead of --model */
      if (ctx->args.model_name != NULL)
        return cli_fail (CLI_EXIT_USAGE, "--model %s and Megatron model flags (--num-layers, "
                         "--hidden-size, ...) both describe the model (hint: one of them)",
                         ctx->args.model_name);
      ctx->model = cli_model_flags_build (mf, &ctx->plan, &error);
    }
  else
    ctx->model = cli_model_lookup (model, &error);
  if (ctx->model == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, model);
      return cli_fail (cli_status_for_error (error), "%s", text);
    }
  ctx->cluster = topo_cluster_lookup (cluster, &error);
  if (ctx->cluster == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, cluster);
      return cli_fail (cli_status_for_error (error), "%s", text);
    }
  if (!plan_check_recompute_flags (&ctx->plan, &error)
      || !plan_model_apply_moe (&ctx->plan, &ctx->model, &error)
      || !plan_resolve (&ctx->plan, ctx->model, ctx->cluster, &error))
    {
      /* a typed --cp-comm-type a2a refused on the heads under a stack whose only exchange
       * is Ulysses (DeepSpeed): no hint at p2p, which that stack refuses */
      g_autofree char *ulysses = NULL;
      const char *framework = extra_string_option (extra, "framework");
      if (framework != NULL)
        {
          g_autoptr (FwStack) stack = cli_stack_lookup (framework, NULL);
          ulysses = plan_ulysses_message_for_stack (error->message, stack);
        }
      g_autofree char *text = cli_plan_file_message (ulysses ? ulysses : error->message,
                                                     ctx->args.plan_file);
      return cli_fail (CLI_EXIT_USAGE, "%s", text);
    }
  ctx->layout = plan_layout_new (&ctx->plan, ctx->cluster, &error);
  if (ctx->layout == NULL)
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  return 0;
}

char *
cli_plan_file_message (const char *message, const char *plan_file)
{
  /* the flags plan validation's hints name, and the TorchTitan key (plan/plan-json.c,
   * plan/plan-toml.c) each stands for */
  static const struct { const char *flag, *key; } keys[] = {
    { "--tp", "parallelism.tensor_parallel_degree" },
    { "--pp", "parallelism.pipeline_parallel_degree" },
    { "--cp", "parallelism.context_parallel_degree" },
    { "--ep", "parallelism.expert_parallel_degree" },
    { "--etp", "parallelism.expert_tensor_parallel_degree" },
    { "--mbs", "parallelism.pipeline_parallel_microbatch_size" },
    { "--micro-batch-size", "parallelism.pipeline_parallel_microbatch_size" },
    { "--gbs", "training.global_batch_size" },
    { "--global-batch-size", "training.global_batch_size" },
    { "--seq-length", "training.seq_len" },
  };
  if (plan_file == NULL)
    return g_strdup (message);
  g_autoptr (GString) named = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      /* the flag as a word of its own: "--tp" in "--tp 2", not in "--tp-comm-overlap" */
      gsize n = strlen (keys[i].flag);
      gboolean found = FALSE;
      for (const char *p = strstr (message, keys[i].flag); p != NULL && !found;
           p = strstr (p + 1, keys[i].flag))
        found = !(g_ascii_isalnum (p[n]) || p[n] == '-' || p[n] == '_');
      if (found)
        g_string_append_printf (named, "%s%s after --plan replaces its %s",
                                named->len ? "; " : "", keys[i].flag, keys[i].key);
    }
  if (named->len > 0)
    return g_strdup_printf ("%s (in %s: %s)", message, plan_file, named->str);
  return g_strdup_printf ("%s (the plan came from %s; flags after --plan replace its keys)",
                          message, plan_file);
}

void
cli_plan_context_clear (CliPlanContext *ctx)
{
  g_clear_pointer (&ctx->layout, plan_layout_free);
  g_clear_pointer (&ctx->model, model_spec_unref);
  g_clear_pointer (&ctx->cluster, topo_cluster_unref);
  plan_clear (&ctx->plan);
  plan_args_clear (&ctx->args);
  cli_model_flags_clear (&ctx->model_flags);
}

/* Stored text as a terminal may print it: a note, a model's or a cluster's name, an error
 * come from users' flags and files, and an escape sequence in one (ESC [ ... from
 * `--note "$(cat some-log)"`) was written raw, moving the cursor, recolouring or clearing
 * the screen. Invalid UTF-8 becomes U+FFFD; the C0 controls, DEL and the C1 controls
 * (U+0080-U+009F, which some terminals also obey) are written as \xNN; a newline is kept
 * as `newline` (NULL: written as \x0a too). */
char *
cli_printable (const char *s, const char *newline)
{
  g_autofree char *valid = g_utf8_make_valid (s, -1);
  GString *out = g_string_sized_new (strlen (valid));
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (c == '\n' && newline != NULL)
        g_string_append (out, newline);
      else if (util_unichar_is_control (c))
        g_string_append_printf (out, "\\x%02x", (guint) c);
      /* the bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069):
       * a stored name with U+202E turned the rest of the terminal line around, as a
       * "Trojan Source" text does; shown as their code points */
      else if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
        g_string_append_printf (out, "\\u%04x", (guint) c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (out, FALSE);
}

JsonObject *
cli_stragglers_json (double perf_sigma, guint64 gpus)
{
  JsonObject *so = json_object_new ();
  json_object_set_double_member (so, "perf_sigma", perf_sigma);
  json_object_set_int_member (so, "gpus", (gint64) gpus);
  json_object_set_double_member (so, "expected_max_z", sim_cost_expected_max_normal (gpus));
  json_object_set_double_member (so, "compute_factor",
                                 sim_cost_straggler_factor_for (perf_sigma, gpus));
  return so;
}
