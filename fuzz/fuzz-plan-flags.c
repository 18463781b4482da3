/* fuzz/fuzz-plan-flags.c - the plan flags on a command line (plan_option_group_new under
 * g_option_context_parse, as every tandem command parses them).
 *
 * The input is argv after "tandem": one argument per line (a NUL also ends one), at most
 * 64. Inputs naming --plan are skipped (it reads a file; fuzz-plan-json covers the file's
 * contents); --model and --cluster are honoured when they name a preset, else tiny-llama
 * and h200-node are used. A parsed plan is resolved and laid out as `tandem plan` does,
 * and its JSON and memory estimate checked by fuzz_check_json. It is not simulated:
 * flags reach plans of millions of micro-batches that are valid but take seconds to
 * simulate; fuzz-plan-json runs the simulator. */
#include "fuzz/fuzz.h"

#include <string.h>

#include "plan/layout.h"
#include "plan/memory.h"

#define MAX_ARGS 64

static ModelSpec *default_model;
static TopoCluster *default_cluster;
static GHashTable *models, *clusters;   /* preset name -> loaded spec */

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init ();
  models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                  (GDestroyNotify) model_spec_unref);
  clusters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                    (GDestroyNotify) topo_cluster_unref);
  g_auto (GStrv) mnames = model_preset_names ();
  for (char **n = mnames; *n != NULL; n++)
    {
      g_autoptr (GError) error = NULL;
      ModelSpec *m = model_spec_load_preset (*n, &error);
      if (m == NULL)
        fuzz_fail ("plan-flags", "preset %s: %s", *n, error->message);
      g_hash_table_insert (models, g_strdup (*n), m);
    }
  g_auto (GStrv) cnames = topo_preset_names ();
  for (char **n = cnames; *n != NULL; n++)
    {
      g_autoptr (GError) error = NULL;
      TopoCluster *c = topo_cluster_load_preset (*n, &error);
      if (c == NULL)
        fuzz_fail ("plan-flags", "preset %s: %s", *n, error->message);
      g_hash_table_insert (clusters, g_strdup (*n), c);
    }
  default_model = g_hash_table_lookup (models, "tiny-llama");
  default_cluster = g_hash_table_lookup (clusters, "h200-node");
  if (default_model == NULL || default_cluster == NULL)
    fuzz_fail ("plan-flags", "presets tiny-llama and h200-node are needed");
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* argv: "tandem", then the input's lines */
  g_autofree char *text = fuzz_text (data, size);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup ("tandem"));
  const char *p = text, *end = text + size;
  while (p < end && args->len <= MAX_ARGS)
    {
      const char *nl = p;
      while (nl < end && *nl != '\n' && *nl != '\0')
        nl++;
      char *arg = g_strndup (p, (gsize) (nl - p));
      if (g_str_equal (arg, "--plan") || g_str_has_prefix (arg, "--plan="))
        {
          g_free (arg);
          return 0;
        }
      g_ptr_array_add (args, arg);
      p = nl + 1;
    }
  /* g_option_context_parse_strv frees what it consumes: give it a copy */
  char **argv = g_new0 (char *, args->len + 1);
  for (guint i = 0; i < args->len; i++)
    argv[i] = g_strdup (g_ptr_array_index (args, i));

  Plan plan;
  plan_init_defaults (&plan);
  PlanArgs pargs = { 0 };
  GOptionContext *octx = g_option_context_new ("fuzz");
  g_option_context_set_help_enabled (octx, FALSE);
  g_option_context_set_main_group (octx, plan_option_group_new (&plan, &pargs));
  g_autoptr (GError) error = NULL;
  gboolean parsed = g_option_context_parse_strv (octx, &argv, &error);
  g_option_context_free (octx);
  g_strfreev (argv);

  if (parsed)
    {
      const ModelSpec *m = default_model;
      const TopoCluster *c = default_cluster;
      if (pargs.model_name != NULL && g_hash_table_contains (models, pargs.model_name))
        m = g_hash_table_lookup (models, pargs.model_name);
      if (pargs.cluster_name != NULL && g_hash_table_contains (clusters, pargs.cluster_name))
        c = g_hash_table_lookup (clusters, pargs.cluster_name);
      if (plan_resolve (&plan, m, c, &error))
        {
          g_autofree char *s = plan_to_string (&plan);
          g_autoptr (JsonBuilder) b = json_builder_new ();
          plan_to_json (&plan, b);
          fuzz_check_json (b, "plan-flags: plan JSON");
          PlanLayout *layout = plan_layout_new (&plan, c, &error);
          if (layout != NULL)
            {
              PlanMemory mem;
              plan_memory_compute (m, &plan, c, &mem);
              g_autoptr (JsonBuilder) mb = json_builder_new ();
              plan_memory_to_json (&mem, mb);
              fuzz_check_json (mb, "plan-flags: memory JSON");
              plan_memory_clear (&mem);
              plan_layout_free (layout);
            }
        }
    }
  plan_args_clear (&pargs);
  plan_clear (&plan);
  return 0;
}
