/* cli/cli-common.c - plan context, errors, JSON and number formatting for subcommands. */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>

int
cli_fail (int status, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  fprintf (stderr, "tandem: error: %s\n", msg);
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
  if (extra != NULL)
    g_option_context_add_main_entries (octx, extra, NULL);
  g_option_context_set_strict_posix (octx, FALSE);

  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (octx, argc, argv, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s (hint: tandem %s --help)", error->message, what);

  const char *model = ctx->args.model_name ? ctx->args.model_name : CLI_DEFAULT_MODEL;
  const char *cluster = ctx->args.cluster_name ? ctx->args.cluster_name : CLI_DEFAULT_CLUSTER;
  ctx->model = model_spec_lookup (model, &error);
  if (ctx->model == NULL)
    return cli_fail (cli_status_for_error (error), "%s", error->message);
  ctx->cluster = topo_cluster_lookup (cluster, &error);
  if (ctx->cluster == NULL)
    return cli_fail (cli_status_for_error (error), "%s", error->message);
  if (!plan_resolve (&ctx->plan, ctx->model, ctx->cluster, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  ctx->layout = plan_layout_new (&ctx->plan, ctx->cluster, &error);
  if (ctx->layout == NULL)
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  return 0;
}

void
cli_plan_context_clear (CliPlanContext *ctx)
{
  g_clear_pointer (&ctx->layout, plan_layout_free);
  g_clear_pointer (&ctx->model, model_spec_unref);
  g_clear_pointer (&ctx->cluster, topo_cluster_unref);
  plan_clear (&ctx->plan);
  plan_args_clear (&ctx->args);
}
