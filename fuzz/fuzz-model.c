/* fuzz/fuzz-model.c - a Hugging Face config.json (`--model FILE`, model_spec_new_from_data).
 *
 * An accepted model goes through what `tandem show model --json` computes from it
 * (parameter counts, FLOPs per token under every convention, the per-layer ops) into a
 * JSON object of those numbers and the file's strings, then through a one-GPU prediction
 * (`tandem predict --json --model FILE --gpus 1 --cluster h200-node`); each JSON is
 * checked by fuzz_check_json. */
#include "fuzz/fuzz.h"

static TopoCluster *cluster;

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init ();
  cluster = fuzz_preset_cluster ("model", "h200-node");
  return 0;
}

/* The numbers `tandem show model --json` prints (cli/cmd-show.c), as the harness can
 * reach them from the library. */
static void
show_json (const ModelSpec *m)
{
  guint64 seq = MIN (m->max_positions, 8192);
  ModelParams p;
  model_spec_params (m, &p);
  g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  model_spec_ops (m, 1, seq, ops);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, m->name);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, m->source);
  json_builder_set_member_name (b, "model_type");
  json_builder_add_string_value (b, m->model_type);
#define I(k, v) (json_builder_set_member_name (b, k), json_builder_add_int_value (b, (gint64) (v)))
#define D(k, v) (json_builder_set_member_name (b, k), json_builder_add_double_value (b, v))
  I ("n_layers", m->n_layers);
  I ("hidden", m->hidden);
  I ("vocab", m->vocab);
  I ("total", p.total);
  I ("per_layer", p.per_layer);
  I ("attention_per_layer", p.attention_per_layer);
  I ("mlp_per_layer", p.mlp_per_layer);
  I ("palm_params", model_spec_palm_params (m));
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    D (model_flop_convention_name (c), model_spec_flops_per_token (m, seq, c));
  D ("hw_no_recompute", model_spec_hw_flops_per_token (m, seq, 0));
  D ("hw_full_recompute", model_spec_hw_flops_per_token (m, seq, 1));
  json_builder_set_member_name (b, "ops");
  json_builder_begin_array (b);
  for (guint i = 0; i < ops->len; i++)
    {
      const ModelOp *op = &g_array_index (ops, ModelOp, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, op->name);
      D ("fwd_flops", op->fwd_flops);
      I ("params", op->weight_params);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
#undef I
#undef D
  json_builder_end_object (b);
  fuzz_check_json (b, "model: show --json");
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_text (data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) m = model_spec_new_from_data (text, (gssize) size, "fuzz/config.json",
                                                      &error);
  if (m == NULL)
    return 0;
  show_json (m);

  Plan plan;
  plan_init_defaults (&plan);
  plan.world_size = 1;
  plan.global_batch = 1;
  fuzz_predict_json (m, cluster, &plan, "model: predict --json --gpus 1");
  plan_clear (&plan);
  return 0;
}
