/* sim/predict.c - layout + program + simulation + memory, and their JSON. */
#include "sim/predict.h"

#include <math.h>

SimPrediction *
sim_predict (const ModelSpec *model, const Plan *plan, const TopoCluster *cluster,
             const SimOptions *opts, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (SimPrediction) p = g_new0 (SimPrediction, 1);
  p->model = model_spec_ref ((ModelSpec *) model);
  p->cluster = topo_cluster_ref ((TopoCluster *) cluster);
  plan_copy (&p->plan, plan);
  p->layout = plan_layout_new (plan, cluster, error);
  if (p->layout == NULL)
    return NULL;
  p->program = prog_program_new (model, plan, p->layout, error);
  if (p->program == NULL)
    return NULL;
  p->result = sim_simulate (p->program, cluster, p->layout, opts, error);
  if (p->result == NULL)
    return NULL;
  plan_memory_compute (model, plan, cluster, &p->memory);
  p->wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  return g_steal_pointer (&p);
}

void
sim_prediction_free (SimPrediction *p)
{
  if (p == NULL)
    return;
  model_spec_unref (p->model);
  topo_cluster_unref (p->cluster);
  plan_clear (&p->plan);
  plan_layout_free (p->layout);
  prog_program_free (p->program);
  sim_result_free (p->result);
  plan_memory_clear (&p->memory);
  g_free (p);
}

static void
set_double (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, v);
}

void
sim_comm_kinds_to_json (JsonBuilder *b, const char *name, const double v[PROG_COMM_N])
{
  static const char *const keys[] = { "tp", "cp", "ep", "pp", "dp" };
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      double x = 0.0;
      for (int k = 0; k < PROG_COMM_N; k++)
        if (g_str_equal (prog_comm_name (k), keys[i]))
          x = v[k];
      json_builder_set_member_name (b, keys[i]);
      if (isfinite (x))
        json_builder_add_double_value (b, x);
      else
        json_builder_add_null_value (b);
    }
  json_builder_end_object (b);
}

void
sim_prediction_to_json (const SimPrediction *p, ModelFlopConvention conv, JsonBuilder *b)
{
  const SimResult *r = p->result;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, p->model->name);
  json_builder_set_member_name (b, "cluster");
  json_builder_add_string_value (b, p->cluster->name);
  json_builder_set_member_name (b, "plan");
  plan_to_json (&p->plan, b);
  set_double (b, "step_time_s", r->step_time_s);
  set_double (b, "tokens_per_s", r->tokens_per_s);
  set_double (b, "tflops_per_gpu", r->model_tflops_per_gpu[conv]);
  set_double (b, "hw_tflops_per_gpu", r->hw_tflops_per_gpu);
  json_builder_set_member_name (b, "flops_convention");
  json_builder_add_string_value (b, model_flop_convention_name (conv));
  json_builder_set_member_name (b, "mfu");
  json_builder_begin_object (b);
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    set_double (b, model_flop_convention_name (c), r->mfu[c]);
  json_builder_end_object (b);
  /* HFU counts the FLOPs executed (causal attention, recompute included): it has no
   * convention, so it is one number (docs/contracts.md) */
  set_double (b, "hfu", r->hfu);
  set_double (b, "peak_flops_per_gpu", r->peak_flops);
  set_double (b, "bubble_fraction", r->bubble_fraction);
  set_double (b, "compute_s", r->compute_s);
  sim_comm_kinds_to_json (b, "exposed_comm_s", r->exposed_comm_s);
  sim_comm_kinds_to_json (b, "comm_s", r->comm_s);
  set_double (b, "overlap_ratio", r->overlap_ratio);
  json_builder_set_member_name (b, "critical_stage");
  json_builder_add_int_value (b, r->critical_stage);
  json_builder_set_member_name (b, "stages");
  json_builder_begin_array (b);
  for (int s = 0; s < r->n_stages; s++)
    {
      const SimStageStats *st = &r->stages[s];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "stage");
      json_builder_add_int_value (b, s);
      set_double (b, "end_s", st->end_s);
      set_double (b, "compute_s", st->compute_s);
      set_double (b, "bubble_s", st->bubble_s);
      sim_comm_kinds_to_json (b, "comm_s", st->comm_s);
      sim_comm_kinds_to_json (b, "exposed_comm_s", st->exposed_s);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "memory");
  plan_memory_to_json (&p->memory, b);
  json_builder_set_member_name (b, "oom");
  json_builder_add_boolean_value (b, !p->memory.fits);
  json_builder_set_member_name (b, "tasks");
  json_builder_add_int_value (b, r->n_tasks);
  json_builder_set_member_name (b, "events");
  json_builder_add_int_value (b, (gint64) r->n_events);
  set_double (b, "sim_wall_s", p->wall_s);
  json_builder_end_object (b);
}
