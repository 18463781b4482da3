/* cli/cli-store.c - what `predict` and `run` both put in the results store: a
 * prediction's metrics and its per-stage phases, and the small JSON texts they carry. */
#include "cli/cli-store.h"
#include "util/input.h"

#include <math.h>

char *
cli_json_text (JsonBuilder *b)
{
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  return util_json_to_data (root, FALSE);
}

char *
cli_conv_json (const double *values, double scale)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    {
      json_builder_set_member_name (b, model_flop_convention_name (c));
      json_builder_add_double_value (b, values[c] * scale);
    }
  json_builder_end_object (b);
  return cli_json_text (b);
}

char *
cli_number_json (double v)
{
  /* a builder needs an object or array at its root: format the one number directly,
   * locale-independent, round-tripping (17 significant digits) */
  if (!isfinite (v))
    return g_strdup ("null");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

void
cli_predicted_metrics (const SimPrediction *p, const PlanMemory *mem, const char *mfu_json,
                       const char *hfu_json, const char *memory_json, ResMetrics *m)
{
  const SimResult *r = p->result;
  res_metrics_init (m);
  m->step_time_s = r->step_time_s;
  m->tokens_per_s = r->tokens_per_s;
  m->tflops_per_gpu = r->model_tflops_per_gpu[MODEL_FLOPS_PALM];
  m->mfu_json = mfu_json;
  m->hfu_json = hfu_json;
  m->bubble_fraction = r->bubble_fraction;
  m->compute_s = r->compute_s;
  /* ProgCommKind and ResComm agree on tp, cp, pp, dp */
  for (int k = 0; k < PROG_COMM_N; k++)
    m->exposed_s[k] = r->exposed_comm_s[k];
  m->overlap_ratio = r->overlap_ratio;
  m->peak_memory_bytes = (gint64) mem->peak_bytes;
  m->fits = mem->fits ? 1 : 0;
  m->memory_json = memory_json;
  m->sim_wall_s = p->wall_s;
  /* the real columns: headline MFU in palm unless the caller names another convention */
  m->mfu = r->mfu[MODEL_FLOPS_PALM];
  m->flops_convention = model_flop_convention_name (MODEL_FLOPS_PALM);
  m->hfu = r->hfu;
}

void
cli_predicted_phases (const SimResult *r, GArray *phases)
{
  for (int s = 0; s < r->n_stages; s++)
    {
      const SimStageStats *st = &r->stages[s];
      ResPhase ph = { RES_SOURCE_PREDICTED, s, "compute", st->compute_s, NAN };
      g_array_append_val (phases, ph);
      for (int k = 0; k < PROG_COMM_N; k++)
        {
          ResPhase c = { RES_SOURCE_PREDICTED, s, prog_comm_name (k), st->comm_s[k],
                         st->exposed_s[k] };
          g_array_append_val (phases, c);
        }
      ResPhase bub = { RES_SOURCE_PREDICTED, s, "bubble", st->bubble_s, NAN };
      g_array_append_val (phases, bub);
    }
}
