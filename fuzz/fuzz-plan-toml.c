/* fuzz/fuzz-plan-toml.c - a TorchTitan job TOML (`--plan FILE.toml`,
 * plan_load_toml_data).
 *
 * An accepted plan is resolved against tiny-llama on h200-node (8 GPUs) and, when it
 * resolves, predicted (`tandem predict --json --model tiny-llama --cluster h200-node
 * --plan FILE.toml`); its plan and prediction JSON are checked by fuzz_check_json. tiny-llama
 * keeps a prediction to a few hundred tasks for any plan that fits 8 GPUs. */
#include "fuzz/fuzz.h"
#include "util/input.h"

static ModelSpec *model;
static TopoCluster *cluster;

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init ();
  model = fuzz_preset_model ("plan-toml", "tiny-llama");
  cluster = fuzz_preset_cluster ("plan-toml", "h200-node");
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_text (data, size);
  g_autoptr (GError) error = NULL;
  Plan plan;
  plan_init_defaults (&plan);
  if (plan_load_toml_data (&plan, text, (gssize) size, "fuzz/plan.toml", &error))
    {
      fuzz_predict_json (model, cluster, &plan, "plan-toml: predict --json");
    }
  plan_clear (&plan);
  /* the subset's document as JSON (what the plan reader builds on) must be valid JSON */
  JsonNode *doc = NULL;
  g_clear_error (&error);
  if (plan_toml_parse (text, (gssize) size, "fuzz/plan.toml", &doc, &error))
    {
      g_autofree char *json = util_json_to_data (doc, FALSE);
      fuzz_check_json_text (json, -1, "plan-toml: plan_toml_parse");
      json_node_unref (doc);
    }
  return 0;
}
