/* cli/cmd-report.c - `tandem report scaling|validation|run`: computes a report's table
 * with the results/report library and writes it (HTML, Markdown, CSV, JSON, PNG plots). */
#include "cli/cli.h"
#include "cli/cli-table.h"
#include "cli/cli-store.h"
#include "results/report.h"
#include "sim/search.h"
#include "util/output.h"

#include <math.h>
#include <stdio.h>

#define DEFAULT_FORMATS (REPORT_FORMAT_HTML | REPORT_FORMAT_MD | REPORT_FORMAT_CSV \
                         | REPORT_FORMAT_PNG)

static int
report_status_for_error (const GError *error)
{
  if (error->domain == REPORT_ERROR)
    return error->code == REPORT_ERROR_FAILED ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
  return cli_status_for_error (error);
}

/* "64,128,256" -> ascending sizes. */
static GArray *
parse_sizes (const char *text, GError **error)
{
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i]; i++)
    {
      const char *p = g_strstrip (parts[i]);
      guint64 v = 0;
      if (!g_ascii_string_to_unsigned (p, 10, 1, 1 << 24, &v, NULL))
        {
          g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                       "--gpus: '%s' is not a GPU count from 1 to 16777216 (hint: --gpus "
                       "64,128,256)", p);
          return NULL;
        }
      int g = (int) v;
      g_array_append_val (sizes, g);
    }
  if (sizes->len == 0 || sizes->len > 64)
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                   "--gpus takes 1 to 64 sizes (hint: --gpus 64,128,256)");
      return NULL;
    }
  return g_steal_pointer (&sizes);
}

/* --gpus is a list here, while the plan options read it as one number: take it out of
 * argv before they see it. */
static char *
take_gpus_option (int *argc, char **argv)
{
  char *value = NULL;
  int o = 1;
  for (int i = 1; i < *argc; i++)
    {
      const char *a = argv[i];
      /* given twice, the lists join, as every list flag's do (search's --gpus; the
       * second --gpus replaced the first, and its sizes were dropped without a word) */
      const char *v = NULL;
      if ((g_str_equal (a, "--gpus") || g_str_equal (a, "--world-size")) && i + 1 < *argc)
        v = argv[++i];
      else if (g_str_has_prefix (a, "--gpus=") || g_str_has_prefix (a, "--world-size="))
        v = strchr (a, '=') + 1;
      if (v != NULL)
        {
          char *joined = value != NULL ? g_strconcat (value, ",", v, NULL) : g_strdup (v);
          g_free (value);
          value = joined;
          continue;
        }
      argv[o++] = argv[i];
    }
  *argc = o;
  argv[o] = NULL;
  return value;
}

/* A list option given more than once (--cluster A --cluster B, --format csv --format md)
 * as one, its values joined by commas: GOption keeps the last of a string option, and
 * the first cluster or format was dropped without a word. argv is rewritten in place (the
 * joined value is owned by `keep`). */
static void
join_repeated_option (int *argc, char **argv, const char *name, GPtrArray *keep)
{
  g_autofree char *flag = g_strconcat ("--", name, NULL);
  g_autofree char *flag_eq = g_strconcat ("--", name, "=", NULL);
  int n = 0;
  for (int i = 1; i < *argc; i++)
    n += g_str_equal (argv[i], flag) || g_str_has_prefix (argv[i], flag_eq);
  if (n < 2)
    return;
  GString *all = g_string_new (NULL);
  int o = 1, at = -1;
  for (int i = 1; i < *argc; i++)
    {
      const char *v = NULL;
      if (g_str_equal (argv[i], flag) && i + 1 < *argc)
        v = argv[++i];
      else if (g_str_has_prefix (argv[i], flag_eq))
        v = argv[i] + strlen (flag_eq);
      if (v != NULL)
        {
          g_string_append_printf (all, "%s%s", all->len ? "," : "", v);
          if (at < 0)
            at = o++;
          continue;
        }
      argv[o++] = argv[i];
    }
  char *joined = g_strdup_printf ("%s%s", flag_eq, all->str);
  g_string_free (all, TRUE);
  g_ptr_array_add (keep, joined);
  argv[at] = joined;
  *argc = o;
  argv[o] = NULL;
}

/* --db '' (an unset shell variable) names no file: said so, not "no results database at "
 * with the empty name (the store commands refuse it the same way, cli_db_path_check) */
static gboolean
db_named (const char *db, GError **error)
{
  if (db != NULL && *db == '\0')
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                   "--db '' names no file (hint: --db tandem.db, or leave --db out for the "
                   "default)");
      return FALSE;
    }
  /* an SQLite URI, refused as the store commands refuse it (cli_db_path_check): report
   * read "file:x.db" as a file of that name where runs refused it */
  g_autoptr (GError) uri = NULL;
  if (db != NULL && !cli_db_path_check (db, &uri))
    {
      g_set_error_literal (error, REPORT_ERROR, REPORT_ERROR_INPUT, uri->message);
      return FALSE;
    }
  return TRUE;
}

static ResStore *
open_store_if_any (const char *db, int timeout_ms, GError **error)
{
  if (!db_named (db, error))
    return NULL;
  const char *path = db ? db : "tandem.db";
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *why = cli_db_missing_why (path);
      if (db != NULL)
        g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                     "no results database at %s%s (hint: tandem run stores there, or drop "
                     "--db)", path, why);
      return NULL;
    }
  return res_store_open_full (path, RES_OPEN_READ_ONLY, (guint) timeout_ms, error);
}

/* --db-timeout MS, as the other commands that open the store take it: a store another
 * process holds locked is waited for this long (the error line names the wait) */
#define REPORT_DB_TIMEOUT_ENTRY(ms)                                                   \
  { "db-timeout", 0, 0, G_OPTION_ARG_INT, (ms),                                      \
    "Wait up to MS for another process's lock on the store (default 5000)", "MS" }

static int
check_db_timeout (int timeout_ms)
{
  if (timeout_ms < 0)
    return cli_fail (CLI_EXIT_USAGE, "--db-timeout %d: expected milliseconds >= 0 (hint: "
                     "--db-timeout 5000)", timeout_ms);
  return CLI_EXIT_OK;
}

static void
print_written (GPtrArray *written)
{
  /* the paths as text: an escape sequence in --out was written raw (it cleared the
   * terminal; audit of 7 Dec) */
  for (guint i = 0; i < written->len; i++)
    {
      g_autofree char *shown = cli_printable (g_ptr_array_index (written, i), NULL);
      printf ("  wrote %s\n", shown);
    }
}

static void
print_scaling_text (const ReportScaling *r)
{
  printf ("scaling report: %s, %s scaling, gbs %d%s, MFU in %s\n", r->model,
          r->mode == REPORT_STRONG ? "strong" : "weak", r->gbs,
          r->mode == REPORT_WEAK ? " at the smallest size" : "",
          model_flop_convention_name (r->conv));
  for (guint c = 0; c < r->clusters->len; c++)
    {
      char b[160];
      printf ("  base of %s: %s\n", (char *) g_ptr_array_index (r->clusters, c),
              report_scaling_base_text (r, c, b, sizeof b));
    }
  /* cli-table: a user's cluster file name of any length keeps the columns in line */
  g_autoptr (CliTable) t = cli_table_new ();
  static const struct { const char *head; CliAlign align; } cols[] = {
    { "cluster", CLI_ALIGN_LEFT }, { "GPUs", CLI_ALIGN_RIGHT }, { "step s", CLI_ALIGN_RIGHT },
    { "tokens/s", CLI_ALIGN_RIGHT }, { "MFU", CLI_ALIGN_RIGHT }, { "S", CLI_ALIGN_RIGHT },
    { "E", CLI_ALIGN_RIGHT }, { "peak GiB", CLI_ALIGN_RIGHT },
    { "status / plan", CLI_ALIGN_LEFT },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cols); c++)
    cli_table_add_column (t, cols[c].head, cols[c].align);
  for (guint i = 0; i < r->rows->len; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      cli_table_add_row (t);
      cli_table_cell (t, "%s", row->cluster);
      cli_table_cell (t, "%d", row->gpus);
      if (!row->predicted)
        {
          for (int k = 0; k < 6; k++)
            cli_table_cell (t, "-");
          cli_table_cell (t, "%s: %s", row->status, row->reason);
          continue;
        }
      cli_table_cell (t, "%.3f", row->step_time_s);
      cli_table_cell (t, "%s", cli_fmt_count ((guint64) llround (row->tokens_per_s)));
      cli_table_cell (t, "%.1f%%", row->mfu * 100);
      if (isfinite (row->speedup))
        cli_table_cell (t, "%.2f", row->speedup);
      else
        cli_table_cell (t, "-");
      if (isfinite (row->efficiency))
        cli_table_cell (t, "%.1f%%", row->efficiency * 100);
      else
        cli_table_cell (t, "-");
      cli_table_cell (t, "%.1f", (double) row->peak_memory_bytes / (1024.0 * 1024 * 1024));
      cli_table_cell (t, "%s %s", row->status, row->plan);
    }
  printf ("\n");
  cli_table_print (t, stdout, "  ");
  printf ("\n");
}

/* The plan flags of a scaling report's command line that a search row's flags need beside
 * what the search sets (search_plan_flags writes the model, cluster, GPUs, degrees,
 * batch and sequence itself): everything but the report's own options, as typed. */
static char *
report_extra_flags (int argc, char **argv, gboolean fixed)
{
  static const char *const own_bare[] = { "strong", "weak", "json", "force", "no-db", NULL };
  static const char *const own_value[] = { "plan-per-size", "out", "format", "db", "db-timeout",
                                           "flops", "model", "cluster", "gbs",
                                           "global-batch-size", "seq-length", "seq", "gpus",
                                           "world-size", NULL };
  /* a fixed row's plan is scaled in dp: a typed dp is not its */
  static const char *const dp_value[] = { "dp", "data-parallel-size", NULL };
  GString *out = g_string_new (NULL);
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (!g_str_has_prefix (a, "--"))
        continue;
      g_autofree char *name = g_strndup (a + 2, strcspn (a + 2, "="));
      const gboolean eq = strchr (a, '=') != NULL;
      const gboolean has_value = !eq && i + 1 < argc && !g_str_has_prefix (argv[i + 1], "--");
      if (g_strv_contains (own_bare, name))
        continue;
      if (g_strv_contains (own_value, name) || (fixed && g_strv_contains (dp_value, name)))
        {
          i += has_value ? 1 : 0;
          continue;
        }
      /* --flag=value as --flag value, the value quoted as a shell reads it (the = form was
       * copied raw: "--framework=my stack.json" ran another command when pasted) */
      if (eq)
        {
          g_autofree char *flag = g_strndup (a, (gsize) (strchr (a, '=') - a));
          g_string_append_printf (out, "%s%s", out->len ? " " : "", flag);
          util_append_shell_word (out, strchr (a, '=') + 1);
          continue;
        }
      g_string_append_printf (out, "%s%s", out->len ? " " : "", a);
      if (has_value)
        util_append_shell_word (out, argv[++i]);
    }
  return g_string_free (out, FALSE);
}

static int
cmd_scaling (int argc, char **argv)
{
  gboolean strong = FALSE, weak = FALSE, json = FALSE, force = FALSE;
  g_autofree char *plan_per_size = NULL, *out = NULL, *format = NULL, *db = NULL, *flops = NULL;
  g_autofree char *framework = NULL;
  int db_timeout = RES_BUSY_TIMEOUT_MS;
  const GOptionEntry extra[] = {
    { "strong", 0, 0, G_OPTION_ARG_NONE, &strong, "Strong scaling: the global batch stays --gbs",
      NULL },
    { "weak", 0, 0, G_OPTION_ARG_NONE, &weak,
      "Weak scaling: --gbs at the smallest size, growing in proportion to the GPUs", NULL },
    { "plan-per-size", 0, 0, G_OPTION_ARG_STRING, &plan_per_size,
      "fixed (the given plan scaled in dp; default) or search", "fixed|search" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "Output directory (default tandem-report)", "DIR" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "Files to write: html,md,csv,json,png (default html,md,csv,png)", "LIST" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "Print the rows as JSON on stdout (files only with --out)", NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Overwrite an existing report", NULL },
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db,
      "Results store read for measured points (default tandem.db when present)", "FILE" },
    REPORT_DB_TIMEOUT_ENTRY (&db_timeout),
    { "flops", 0, 0, G_OPTION_ARG_STRING, &flops,
      "FLOP convention of MFU: palm (default), megatron96, megatron72, mcore, causal", "CONV" },
    { "framework", 0, 0, G_OPTION_ARG_STRING, &framework,
      "Software stack: preset name or JSON file (default megatron-core)", "NAME|FILE" },
    { NULL },
  };
  /* before --gpus is taken out: its value may be the flag after it (--gpus --strong) */
  {
    g_autoptr (GError) missing = NULL;
    const GOptionEntry *const tables[] = { plan_option_entries (), extra, NULL };
    if (!cli_options_check_values (tables, argc, argv, &missing))
      return cli_fail (CLI_EXIT_USAGE, "%s", missing->message);
  }
  g_autofree char *gpus_text = take_gpus_option (&argc, argv);
  g_autoptr (GPtrArray) joined = g_ptr_array_new_with_free_func (g_free);
  join_repeated_option (&argc, argv, "cluster", joined);
  join_repeated_option (&argc, argv, "format", joined);
  g_autofree char *extra_flags = report_extra_flags (argc, argv, FALSE);
  g_autofree char *fixed_flags = report_extra_flags (argc, argv, TRUE);
  /* typed at all, whatever the value (a --rank-order equal to the default still came
   * after a -ppdp row's own) */
  const char *typed_dimension = NULL;
  static const char *const dims[] = { "--schedule", "--cp-comm-type", "--rank-order" };
  for (int i = 1; i < argc && typed_dimension == NULL; i++)
    for (guint k = 0; k < G_N_ELEMENTS (dims); k++)
      if (g_str_equal (argv[i], dims[k])
          || (g_str_has_prefix (argv[i], dims[k]) && argv[i][strlen (dims[k])] == '='))
        typed_dimension = dims[k];
  Plan tmpl;
  PlanArgs args = { 0 };
  plan_init_defaults (&tmpl);
  g_autoptr (GOptionContext) octx = g_option_context_new ("--gpus LIST (--strong|--weak) --gbs B");
  g_option_context_set_summary (octx, "Scaling report: one prediction per size (and cluster), "
                                "speed-up and efficiency against the smallest size that has a "
                                "plan, where the step goes, memory against HBM.\n"
                                "--gpus LIST: sizes in ascending order, e.g. 512,1024,2048; "
                                "--cluster A,B puts two clusters side by side.");
  g_option_context_set_main_group (octx, plan_option_group_new (&tmpl, &args));
  g_option_context_add_main_entries (octx, extra, NULL);
  g_autoptr (GError) error = NULL;
  int status = CLI_EXIT_OK;
  g_autoptr (GPtrArray) clusters = g_ptr_array_new_with_free_func ((GDestroyNotify) topo_cluster_unref);
  g_autoptr (ModelSpec) model = NULL;
  g_autoptr (GArray) sizes = NULL;
  g_autoptr (ResStore) store = NULL;
  g_autoptr (FwStack) stack = NULL;
  g_autoptr (ReportScaling) r = NULL;
  g_autoptr (GPtrArray) written = g_ptr_array_new_with_free_func (g_free);
  ModelFlopConvention conv = MODEL_FLOPS_PALM;
  guint formats = DEFAULT_FORMATS;

  if (!g_option_context_parse (octx, &argc, &argv, &error))
    {
      status = cli_fail_options (octx, error, "tandem report scaling");
      goto out;
    }
  if (argc > 1)
    {
      status = cli_fail (CLI_EXIT_USAGE, "unexpected argument '%s' (hint: tandem report scaling "
                         "--help)", argv[1]);
      goto out;
    }
  if (gpus_text == NULL)
    {
      status = cli_fail (CLI_EXIT_USAGE, "report scaling needs the sizes (hint: --gpus "
                         "512,1024,2048)");
      goto out;
    }
  if (strong == weak)
    {
      /* both given is the mistake to name (the message read as if neither were) */
      status = cli_fail (CLI_EXIT_USAGE, "%s (hint: --strong keeps the global batch, --weak "
                         "grows it with the GPUs)",
                         strong ? "--strong and --weak contradict each other: say one"
                                : "say --strong or --weak");
      goto out;
    }
  if (tmpl.global_batch <= 0)
    {
      status = cli_fail (CLI_EXIT_USAGE, "the scaling report needs a global batch (hint: "
                         "--gbs B sequences)");
      goto out;
    }
  if ((status = check_db_timeout (db_timeout)) != CLI_EXIT_OK)
    goto out;
  if (flops && !model_flop_convention_parse (flops, &conv))
    {
      status = cli_fail (CLI_EXIT_USAGE, "unknown FLOP convention '%s' (hint: palm, megatron96, "
                         "megatron72, mcore or causal)", flops);
      goto out;
    }
  ReportPlanPerSize pps = REPORT_PLAN_FIXED;
  if (plan_per_size && g_str_equal (plan_per_size, "search"))
    pps = REPORT_PLAN_SEARCH;
  else if (plan_per_size && !g_str_equal (plan_per_size, "fixed"))
    {
      status = cli_fail (CLI_EXIT_USAGE, "--plan-per-size takes fixed or search, not '%s'",
                         plan_per_size);
      goto out;
    }
  if (format && !report_formats_parse (format, &formats, &error))
    {
      status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
      goto out;
    }
  /* --plan FILE was read by its option, as every command reads it (a TorchTitan TOML as
   * TOML; the flags after it over its keys): it was read here again as JSON, which
   * refused every .toml and put the file's keys back over the flags that followed it */
  /* --plan-per-size search searches the degrees, micro-batch, sharding, recompute, SP and
   * TP overlap at every size (tandem search without narrowing): a plan flag that fixes
   * one of them would be dropped in silence, so it is named instead */
  if (pps == REPORT_PLAN_SEARCH)
    {
      /* a plan file fixes the plan (and, put after the search's flags, was refused by
       * predict as replacing them); tandem search takes none either */
      if (args.plan_file != NULL)
        {
          status = cli_fail (CLI_EXIT_USAGE, "--plan with --plan-per-size search: the "
                             "search chooses the plan at each size (hint: --plan-per-size "
                             "fixed to scale the file's plan, or give the model, batch and "
                             "options as flags)");
          goto out;
        }
      Plan d;
      plan_init_defaults (&d);
      const char *fixed = tmpl.tp != d.tp ? "--tp" : tmpl.pp != d.pp ? "--pp"
                          : tmpl.cp != d.cp ? "--cp" : tmpl.ep != d.ep ? "--ep"
                          : tmpl.vpp != d.vpp ? "--vpp"
                          : tmpl.micro_batch != d.micro_batch ? "--mbs"
                          : tmpl.sharding != d.sharding ? "--sharding"
                          : tmpl.recompute != d.recompute ? "--recompute-granularity"
                          : tmpl.sequence_parallel != d.sequence_parallel ? "--sequence-parallel"
                          /* the flag typed: --async-tp sets the overlap too, and was told
                           * as a --tp-comm-overlap never given */
                          : tmpl.async_tp ? "--async-tp"
                          : tmpl.tp_comm_overlap != d.tp_comm_overlap ? "--tp-comm-overlap"
                          /* the dimensions the search also chooses, which were copied
                           * into each row's flags after the search's own: the row named
                           * one plan and its flags another (--cp-comm-type a2a: 2.897
                           * against 2.963 s), or a plan predict refused (--schedule GPipe
                           * after an interleaved row) */
                          : typed_dimension;
      plan_clear (&d);
      if (fixed != NULL)
        {
          status = cli_fail (CLI_EXIT_USAGE, "%s with --plan-per-size search: the search "
                             "chooses it at each size, so the flag would be ignored (hint: "
                             "drop it, or tandem search --gpus A,B,... %s ... for a narrowed "
                             "search per size)", fixed, fixed);
          goto out;
        }
      if (!search_base_check_report (&tmpl, &error))
        {
          status = cli_fail (CLI_EXIT_USAGE, "--plan-per-size search: %s", error->message);
          goto out;
        }
    }
  sizes = parse_sizes (gpus_text, &error);
  if (sizes == NULL)
    {
      status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
      goto out;
    }
  /* the fixed plan is scaled in dp: each size's dp is its GPUs / (tp cp pp). A typed --dp
   * is the given plan's at the smallest size (as predict's flags at that size read); one
   * that is not was dropped at every size without a word */
  if (pps == REPORT_PLAN_FIXED && tmpl.dp_given > 0)
    {
      const int first = g_array_index (sizes, int, 0);
      const int mp = MAX (tmpl.tp, 1) * MAX (tmpl.cp, 1) * MAX (tmpl.pp, 1);
      if (first % mp != 0 || first / mp != tmpl.dp_given)
        {
          char eq[32];
          g_snprintf (eq, sizeof eq, " = %d", first / mp);
          status = cli_fail (CLI_EXIT_USAGE, "--dp %d is not the plan's dp at the smallest "
                             "size (%d GPUs / (tp %d x cp %d x pp %d)%s): report scaling scales "
                             "the fixed plan in dp, each size's dp being its GPUs / (tp x cp x "
                             "pp) (hint: drop --dp)", tmpl.dp_given, first, MAX (tmpl.tp, 1),
                             MAX (tmpl.cp, 1), MAX (tmpl.pp, 1),
                             first % mp == 0 ? eq : "");
          goto out;
        }
    }
  model = cli_model_lookup (args.model_name ? args.model_name : CLI_DEFAULT_MODEL, &error);
  if (model == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, args.model_name);
      status = cli_fail (cli_status_for_error (error), "%s", text);
      goto out;
    }
  /* the model as the plan runs it (--num-experts on a dense model: plan.h) */
  if (!plan_model_apply_moe (&tmpl, &model, &error))
    {
      status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
      goto out;
    }
  /* a convention without a term for the model's experts printed "MFU 0.0%" per size */
  if (flops && model_flop_convention_refusal (model, conv) != NULL)
    {
      status = cli_fail (CLI_EXIT_USAGE, "--flops %s does not apply to %s: %s", flops,
                         model->name, model_flop_convention_refusal (model, conv));
      goto out;
    }
  {
    /* A,B is a list; a file whose own name holds a comma ('my,cluster.json') is one
     * cluster (it was split and refused as 'my') */
    const char *given = args.cluster_name ? args.cluster_name : CLI_DEFAULT_CLUSTER;
    g_auto (GStrv) names = g_file_test (given, G_FILE_TEST_IS_REGULAR) && strchr (given, ',')
                           ? g_strdupv ((char *[]) { (char *) given, NULL })
                           : g_strsplit (given, ",", -1);
    /* "" (an unset shell variable) named no cluster, and report_scaling_compute's
     * precondition on n_clusters then crashed; a name twice printed one cluster twice */
    if (names[0] == NULL || (names[1] == NULL && *g_strstrip (names[0]) == '\0'))
      {
        status = cli_fail (CLI_EXIT_USAGE, "--cluster '%s' names no cluster (hint: --cluster "
                           "h100-24k, or A,B for clusters side by side)", args.cluster_name);
        goto out;
      }
    for (guint i = 0; names[i]; i++)
      {
        /* "h100-24k," or "a,,b": the empty item was looked up as a cluster named '' */
        if (*g_strstrip (names[i]) == '\0')
          {
            status = cli_fail (CLI_EXIT_USAGE, "--cluster '%s' has an empty name in its list "
                               "(hint: names separated by single commas, e.g. --cluster "
                               "h100-24k,dgx-b200-superpod)", args.cluster_name);
            goto out;
          }
        for (guint k = 0; k < i; k++)
          if (g_str_equal (g_strstrip (names[i]), names[k]))
            {
              status = cli_fail (CLI_EXIT_USAGE, "--cluster names %s twice (hint: each cluster "
                                 "once, e.g. --cluster h100-24k,dgx-b200-superpod)", names[k]);
              goto out;
            }
        TopoCluster *c = topo_cluster_lookup (g_strstrip (names[i]), &error);
        if (c == NULL)
          {
            g_autofree char *text = cli_lookup_error_text (error, names[i]);
            status = cli_fail (cli_status_for_error (error), "%s", text);
            goto out;
          }
        /* rows, columns and plot legends go by the cluster's own name: a file that names
         * itself as another cluster given (a copy of h100-24k.json with one bandwidth
         * changed) gave two sets of rows labelled alike */
        for (guint k = 0; k < clusters->len; k++)
          {
            const TopoCluster *o = g_ptr_array_index (clusters, k);
            if (g_strcmp0 (o->name, c->name) == 0)
              {
                status = cli_fail (CLI_EXIT_USAGE, "--cluster: %s and %s are both named '%s', "
                                   "and the report labels its rows and plots by that name "
                                   "(hint: give the file's \"name\" another value)", names[k],
                                   names[i], c->name);
                topo_cluster_unref (c);
                goto out;
              }
          }
        g_ptr_array_add (clusters, c);
      }
    if (clusters->len > 4)
      {
        status = cli_fail (CLI_EXIT_USAGE, "--cluster takes at most 4 clusters side by side");
        goto out;
      }
  }
  cli_warn_untimed (&tmpl);
  for (guint i = 0; i < clusters->len; i++)
    cli_warn_unknown_part (g_ptr_array_index (clusters, i));
  stack = cli_stack_lookup (framework, &error);
  if (stack == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, framework);
      status = cli_fail (CLI_EXIT_USAGE, "--framework: %s", text);
      goto out;
    }
  /* a fixed plan is the stack's as predict takes it (cmd-predict.c): its rank order, what
   * the stack refuses (exit 2 before any size is computed), the MoE overlaps it always
   * runs; a plan per size is the search's, which keeps to the stack itself */
  if (pps == REPORT_PLAN_FIXED && (!plan_adopt_stack (&tmpl, stack, &error)
                                   || !plan_check_stack_model (&tmpl, model, stack, &error)))
    {
      status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
      goto out;
    }
  store = open_store_if_any (db, db_timeout, &error);
  if (store == NULL && error != NULL)
    {
      status = cli_fail (report_status_for_error (error), "%s", error->message);
      goto out;
    }
  ReportScalingSpec spec = {
    .model = model, .plan = &tmpl, .clusters = (TopoCluster *const *) clusters->pdata,
    .n_clusters = clusters->len, .gpus = (const int *) sizes->data, .n_gpus = sizes->len,
    .mode = strong ? REPORT_STRONG : REPORT_WEAK, .plan_per_size = pps,
    .gbs = tmpl.global_batch, .conv = conv, .opts = NULL, .stack = stack, .store = store,
    .extra_flags = extra_flags, .fixed_flags = args.plan_file == NULL ? fixed_flags : NULL,
  };
  r = report_scaling_compute (&spec, &error);
  if (r == NULL)
    {
      status = cli_fail (report_status_for_error (error), "%s", error->message);
      goto out;
    }
  /* a report where no size has a plan that fits, after printing it: "does not fit" (3)
   * when some size ran out of memory, bad input (2) when every size was invalid (the
   * table says why of each); that one writes no files, which would hold only the
   * refusals and make the corrected rerun need --force */
  gboolean any_fits = FALSE, any_oom = FALSE;
  for (guint i = 0; i < r->rows->len; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      any_fits |= row->fits;
      any_oom |= g_strcmp0 (row->status, "oom") == 0;
    }
  if ((out != NULL || !json) && (any_fits || any_oom))
    {
      if (!report_scaling_write (r, out ? out : "tandem-report", formats, force, written, &error))
        {
          status = cli_fail (report_status_for_error (error), "%s", error->message);
          goto out;
        }
    }
  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      report_scaling_to_json (r, b);
      cli_print_json (b);
    }
  else
    {
      print_scaling_text (r);
      print_written (written);
    }
  /* with --plan-per-size search the search has already tried every plan at each size:
   * it is no hint then */
  if (!any_fits && any_oom)
    status = cli_fail (CLI_EXIT_NOFIT, "no size has a plan that fits in memory (the table "
                       "gives each size's peak) (hint: more GPUs, a smaller --gbs or "
                       "--seq-length%s)", pps == REPORT_PLAN_SEARCH ? ""
                       : ", or --plan-per-size search");
  else if (!any_fits && pps == REPORT_PLAN_SEARCH)
    status = cli_fail (CLI_EXIT_USAGE, "no size has a valid plan (the table says why of "
                       "each) (hint: the search's reason in each row)");
  else if (!any_fits)
    {
      /* every row refused for one reason that no size changes (an ep on a dense model,
       * a recipe the device has not): that reason, as predict gives it, not a hint
       * about sizes none of which would help */
      const char *same = NULL;
      gboolean all_same = r->rows->len > 0;
      for (guint i = 0; i < r->rows->len && all_same; i++)
        {
          const ReportScalingRow *row = r->rows->pdata[i];
          if (row->reason == NULL || g_strcmp0 (row->status, "invalid") != 0)
            all_same = FALSE;
          else if (same == NULL)
            same = row->reason;
          else
            all_same = g_str_equal (same, row->reason);
        }
      if (all_same && same != NULL && r->rows->len > 1)
        status = cli_fail (CLI_EXIT_USAGE, "every size refuses the plan: %s", same);
      else
        status = cli_fail (CLI_EXIT_USAGE, "no size has a valid plan (the table says why of "
                           "each) (hint: sizes and degrees whose product divides them, or "
                           "--plan-per-size search)");
    }
  else
    {
      /* side by side: a cluster none of whose sizes fits has no speed-up or efficiency
       * to compare with the others' (its rows compare plans that do not fit): "does not
       * fit", as the same cluster alone, after the report is printed and written */
      g_autoptr (GString) none = g_string_new (NULL);
      gboolean oom_only = FALSE;
      for (guint c = 0; c < r->clusters->len; c++)
        if (!report_scaling_base_fits (r, c))
          {
            g_string_append_printf (none, "%s%s", none->len ? ", " : "",
                                    (char *) g_ptr_array_index (r->clusters, c));
            const char *name = g_ptr_array_index (r->clusters, c);
            for (guint i = 0; i < r->rows->len; i++)
              {
                const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
                if (g_strcmp0 (row->cluster, name) == 0 && g_strcmp0 (row->status, "oom") == 0)
                  oom_only = TRUE;
              }
          }
      if (none->len > 0)
        status = cli_fail (oom_only ? CLI_EXIT_NOFIT : CLI_EXIT_USAGE,
                           "%s: no size has a plan that %s, so its speed-up and efficiency "
                           "compare nothing that could run (the table gives each size's "
                           "%s) (hint: more GPUs, a smaller --gbs or --seq-length%s)",
                           none->str, oom_only ? "fits in memory" : "is valid",
                           oom_only ? "peak" : "reason",
                           pps == REPORT_PLAN_SEARCH ? "" : ", or --plan-per-size search");
    }
out:
  plan_clear (&tmpl);
  plan_args_clear (&args);
  return status;
}

static int
write_or_print (gboolean json, const char *out, JsonBuilder *b, GPtrArray *written,
                const char *summary)
{
  if (json)
    cli_print_json (b);
  else
    {
      if (summary)
        printf ("%s\n", summary);
      print_written (written);
    }
  return CLI_EXIT_OK;
}

/* A run the store does not have: bad input (2) with where to find the ids; any other
 * failure of the store keeps its own status. */
static int
fail_lookup (const GError *error, const char *db)
{
  if (error->domain != RES_ERROR || error->code != RES_ERROR_NOT_FOUND)
    return cli_fail (report_status_for_error (error), "%s", error->message);
  if (strstr (error->message, "(hint:") != NULL)
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  return cli_fail (CLI_EXIT_USAGE, "%s (hint: tandem runs%s%s lists the run ids)",
                   error->message, db ? " --db " : "", db ? db : "");
}

/* The store a read-only report reads: it must be there. */
static ResStore *
open_store_required (const char *db, int timeout_ms, GError **error)
{
  if (!db_named (db, error))
    return NULL;
  const char *path = db ? db : "tandem.db";
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *why = cli_db_missing_why (path);
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                   "no results database at %s%s (hint: tandem run, predict and validate store "
                   "there, or pass --db FILE)", path, why);
      return NULL;
    }
  return res_store_open_full (path, RES_OPEN_READ_ONLY, (guint) timeout_ms, error);
}

static gboolean
parse_run_ids (char **texts, GArray *ids, GError **error)
{
  for (guint i = 0; texts && texts[i]; i++)
    {
      /* "" split into no ids at all, and the report took every run */
      if (*g_strstrip (texts[i]) == '\0')
        {
          g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                       "--run '' names no run (hint: --run N or --run 3,5, ids from tandem "
                       "runs; leave it out for every run)");
          return FALSE;
        }
      g_auto (GStrv) parts = g_strsplit (texts[i], ",", -1);
      for (guint k = 0; parts[k]; k++)
        {
          gint64 id;
          if (!cli_run_id (g_strstrip (parts[k]), &id))
            {
              g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                           "--run: '%s' is not a run id (hint: tandem runs lists them)",
                           parts[k]);
              return FALSE;
            }
          /* an id named twice is one run: "--run 3,3" counted each of its rows twice */
          gboolean seen = FALSE;
          for (guint j = 0; j < ids->len && !seen; j++)
            seen = g_array_index (ids, gint64, j) == id;
          if (!seen)
            g_array_append_val (ids, id);
        }
    }
  return TRUE;
}

static int
cmd_validation (int argc, char **argv)
{
  gboolean json = FALSE, force = FALSE;
  g_autofree char *out = NULL, *format = NULL, *db = NULL;
  int db_timeout = RES_BUSY_TIMEOUT_MS;
  g_auto (GStrv) run_texts = NULL;
  const GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, "Results store (default tandem.db)", "FILE" },
    REPORT_DB_TIMEOUT_ENTRY (&db_timeout),
    { "run", 0, 0, G_OPTION_ARG_STRING_ARRAY, &run_texts,
      "Only these runs (repeatable, or N,M; default: every run row, and each published row from the latest validate run of its CSV)", "N" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "Output directory (default tandem-report)", "DIR" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "Files to write: html,md,csv,json,png (default html,md,csv,png)", "LIST" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the rows as JSON (files only with --out)",
      NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Overwrite an existing report", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new (NULL);
  g_option_context_set_summary (octx, "Validation report: predicted against measured for the "
                                "stored run rows (term by term) and the published rows of "
                                "stored validate runs (step time), with the worst rows.");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!cli_option_context_parse (octx, (const GOptionEntry *const[]) { entries, NULL }, &argc,
                                 &argv, &error))
    return cli_fail_options (octx, error, "tandem report validation");
  if (argc > 1)
    return cli_fail (CLI_EXIT_USAGE, "unexpected argument '%s' (hint: tandem report validation "
                     "--help)", argv[1]);
  guint formats = DEFAULT_FORMATS;
  if (format && !report_formats_parse (format, &formats, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (!parse_run_ids (run_texts, ids, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  if (check_db_timeout (db_timeout) != CLI_EXIT_OK)
    return CLI_EXIT_USAGE;
  g_autoptr (ResStore) store = open_store_required (db, db_timeout, &error);
  if (store == NULL)
    return cli_fail (report_status_for_error (error), "%s", error->message);
  g_autoptr (ReportValidation) v = report_validation_compute (store, (gint64 *) ids->data,
                                                              ids->len, &error);
  if (v == NULL)
    return fail_lookup (error, db);
  if (v->rows->len == 0)
    return cli_fail (CLI_EXIT_USAGE, "no stored run has a measurement to compare with "
                     "(hint: tandem run or tandem validate FILE.csv store some)");
  g_autoptr (GPtrArray) written = g_ptr_array_new_with_free_func (g_free);
  if ((out != NULL || !json)
      && !report_validation_write (v, out ? out : "tandem-report", formats, force, written,
                                   &error))
    return cli_fail (report_status_for_error (error), "%s", error->message);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  report_validation_to_json (v, b);
  g_autofree char *older = v->n_superseded == 0 ? g_strdup ("")
    : g_strdup_printf (" (%u rows of older validate runs left out: the latest run of each "
                       "published row; --run N chooses)", v->n_superseded);
  g_autofree char *summary = g_strdup_printf ("validation report: %u rows, %u within +-10%% in "
                                              "step time%s", v->rows->len, v->n_within_10pct,
                                              older);
  return write_or_print (json, out, b, written, summary);
}

static int
cmd_run (int argc, char **argv)
{
  gboolean json = FALSE, force = FALSE;
  g_autofree char *out = NULL, *format = NULL, *db = NULL;
  int db_timeout = RES_BUSY_TIMEOUT_MS;
  const GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, "Results store (default tandem.db)", "FILE" },
    REPORT_DB_TIMEOUT_ENTRY (&db_timeout),
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "Output directory (default tandem-report)", "DIR" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "Files to write: html,md,csv,json,png (default html,md,csv,png)", "LIST" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the figures as JSON (files only with --out)",
      NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Overwrite an existing report", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("N");
  g_option_context_set_summary (octx, "One stored run as a page: summary, figures predicted and "
                                "measured, where the step goes, memory by stage, and the "
                                "timeline (Perfetto JSON beside the page).");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!cli_option_context_parse (octx, (const GOptionEntry *const[]) { entries, NULL }, &argc,
                                 &argv, &error))
    return cli_fail_options (octx, error, "tandem report run");
  gint64 id = 0;
  if (argc == 2 && !cli_run_id (argv[1], &id))
    return cli_fail (CLI_EXIT_USAGE, "report run: '%s' is not a run id (a number from 1 up) "
                     "(hint: tandem runs lists the run ids)", argv[1]);
  if (argc != 2)
    return cli_fail (CLI_EXIT_USAGE, "usage: tandem report run N [--db FILE] [--out DIR] "
                     "(hint: tandem runs lists the run ids)");
  guint formats = DEFAULT_FORMATS;
  if (format && !report_formats_parse (format, &formats, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  if (check_db_timeout (db_timeout) != CLI_EXIT_OK)
    return CLI_EXIT_USAGE;
  g_autoptr (ResStore) store = open_store_required (db, db_timeout, &error);
  if (store == NULL)
    return cli_fail (report_status_for_error (error), "%s", error->message);
  g_autoptr (ReportRun) r = report_run_compute (store, id, &error);
  if (r == NULL)
    return fail_lookup (error, db);
  g_autoptr (GPtrArray) written = g_ptr_array_new_with_free_func (g_free);
  if ((out != NULL || !json)
      && !report_run_write (r, out ? out : "tandem-report", formats, force, written, &error))
    return cli_fail (report_status_for_error (error), "%s", error->message);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  report_run_to_json (r, b);
  g_autofree char *summary = g_strdup_printf ("run report: run %" G_GINT64_FORMAT, id);
  return write_or_print (json, out, b, written, summary);
}

int
cli_cmd_report (int argc, char **argv)
{
  if (argc < 2 || g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h"))
    {
      FILE *o = argc < 2 ? stderr : stdout;
      fprintf (o, "usage: tandem report scaling [plan flags] --gpus LIST (--strong|--weak) --gbs B\n"
               "                             [--cluster A,B] [--plan-per-size fixed|search]\n"
               "                             [--out DIR] [--format html,md,csv,json,png] [--json] [--force]\n"
               "       tandem report validation [--db F] [--db-timeout MS] [--run N ...] [--out DIR] [--json]\n"
               "       tandem report run N [--db F] [--db-timeout MS] [--out DIR] [--json]\n"
               "(tandem report KIND --help for every option)\n");
      return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
  /* an interrupt ends the report between files, never with a NAME.XXXXXX left behind */
  util_output_guard_signals ();
  const char *what = argv[1];
  g_autofree char *prog = g_strdup_printf ("tandem report %s", what);
  g_set_prgname (prog);
  argv[1] = prog;
  if (g_str_equal (what, "scaling"))
    return cmd_scaling (argc - 1, argv + 1);
  if (g_str_equal (what, "validation"))
    return cmd_validation (argc - 1, argv + 1);
  if (g_str_equal (what, "run"))
    return cmd_run (argc - 1, argv + 1);
  static const char *const reports[] = { "scaling", "validation", "run", NULL };
  g_autofree char *dym = cli_did_you_mean (what, reports);
  return cli_fail (CLI_EXIT_USAGE, "unknown report '%s'%s (hint: scaling, validation or run)",
                   what, dym);
}
