/* fuzz/fuzz-plan-json.c - a plan file with TorchTitan key names (`--plan FILE`,
 * plan_load_json_data).
 *
 * An accepted plan is resolved against tiny-llama on h200-node (8 GPUs) and, when it
 * resolves, predicted (`tandem predict --json --model tiny-llama --cluster h200-node
 * --plan FILE`); its plan and prediction JSON are checked by fuzz_check_json. tiny-llama
 * keeps a prediction to a few hundred tasks for any plan that fits 8 GPUs. */
#include "fuzz/fuzz.h"

static ModelSpec *model;
static TopoCluster *cluster;

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init ();
  model = fuzz_preset_model ("plan-json", "tiny-llama");
  cluster = fuzz_preset_cluster ("plan-json", "h200-node");
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_text (data, size);
  g_autoptr (GError) error = NULL;
  Plan plan;
  plan_init_defaults (&plan);
  if (plan_load_json_data (&plan, text, (gssize) size, "fuzz/plan.json", &error))
    {
      g_autofree char *s = plan_to_string (&plan);
      fuzz_predict_json (model, cluster, &plan, "plan-json: predict --json");
    }
  plan_clear (&plan);
  return 0;
}
