/* fuzz/fuzz-cluster.c - a cluster JSON (`--cluster FILE`, topo_cluster_new_from_data),
 * with or without a measured profile.
 *
 * An accepted cluster is aggregated, its profile (if any) written back as JSON, the file
 * rewritten with that profile (what `tandem calibrate --import-nccl-tests` does), which
 * the loader must accept again, and tiny-llama predicted on up to 8 of its devices
 * (`tandem predict --json --model tiny-llama --cluster FILE --gpus N`). */
#include "fuzz/fuzz.h"

static ModelSpec *model;

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init ();
  model = fuzz_preset_model ("cluster", "tiny-llama");
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_text (data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_new_from_data (text, (gssize) size,
                                                          "fuzz/cluster.json", &error);
  if (c == NULL)
    return 0;

  TopoAggregate agg;
  topo_cluster_aggregate (c, &agg);
  {
    g_autoptr (JsonBuilder) b = json_builder_new ();
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "device");
    json_builder_add_string_value (b, c->device.name);
    json_builder_set_member_name (b, "gpus");
    json_builder_add_int_value (b, (gint64) agg.gpus);
    json_builder_set_member_name (b, "hbm_bytes");
    json_builder_add_int_value (b, (gint64) agg.hbm_bytes);
    json_builder_set_member_name (b, "peak_flops");
    json_builder_begin_array (b);
    for (int d = 0; d < TOPO_DTYPE_N; d++)
      json_builder_add_double_value (b, agg.peak_flops[d]);
    json_builder_end_array (b);
    for (guint l = 0; l < c->n_levels; l++)
      {
        json_builder_set_member_name (b, c->levels[l].name);
        json_builder_add_int_value (b, (gint64) topo_cluster_level_size (c, l));
      }
    json_builder_end_object (b);
    fuzz_check_json (b, "cluster: aggregate as JSON");
  }

  if (c->profile != NULL)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "profile");
      json_builder_add_value (b, topo_profile_to_json_node (c->profile));
      json_builder_end_object (b);
      fuzz_check_json (b, "cluster: profile as JSON");

      g_autofree char *rewritten = topo_cluster_json_set_profile (c->json, c->profile, &error);
      if (rewritten == NULL)
        fuzz_fail ("cluster", "cannot rewrite its own profile: %s", error->message);
      fuzz_check_json_text (rewritten, -1, "cluster: rewritten with its profile");
      g_autoptr (TopoCluster) again = topo_cluster_new_from_data (rewritten, -1, "rewritten",
                                                                  &error);
      if (again == NULL)
        fuzz_fail ("cluster", "refuses the file it wrote itself: %s", error->message);
    }

  Plan plan;
  plan_init_defaults (&plan);
  plan.world_size = (int) MIN (c->n_devices, 8);
  plan.global_batch = plan.world_size;
  if (plan.world_size >= 1)
    fuzz_predict_json (model, c, &plan, "cluster: predict --json");
  plan_clear (&plan);
  return 0;
}
