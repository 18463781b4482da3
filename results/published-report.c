/* results/published-report.c - validate every row, summarize, JSON and the store. */
#include "results/published.h"
#include "util/input.h"
#include "sim/predict.h"

#include <math.h>
#include <string.h>

void
res_published_summarize (ResPublishedCase *const *cases, guint n_cases,
                         ResPublishedSummary *out)
{
  memset (out, 0, sizeof *out);
  double sum = 0, sum_family[RES_PUB_FAMILY_N] = { 0 };
  out->max_abs_err_pct = out->max_abs_err_moe_pct = NAN;
  out->max_err_row_id = out->max_err_moe_row_id = -1;
  double sum_moe = 0, sum_held = 0, sum_held_family[RES_PUB_FAMILY_N] = { 0 };
  out->max_abs_err_held_pct = NAN;
  out->max_err_held_row_id = -1;
  for (guint i = 0; i < n_cases; i++)
    {
      const ResPublishedCase *c = cases[i];
      if (c->moe.present)
        out->n_moe_rows++;
      else if (c->held_out)
        out->n_held_rows++;
      if (!c->predicted)
        {
          out->n_skipped++;
          continue;
        }
      double a = fabs (c->err_pct);
      if (c->moe.present)
        {
          /* MoE rows apart: issue 13's targets stay on the dense rows (issue 16 item 5) */
          out->n_moe++;
          sum_moe += a;
          if (isnan (out->max_abs_err_moe_pct) || a > out->max_abs_err_moe_pct)
            {
              out->max_abs_err_moe_pct = a;
              out->max_err_moe_row_id = c->row_id;
            }
          continue;
        }
      if (c->held_out)
        {
          /* check rows apart: they measure the model, they do not define the dev MAPE */
          out->n_held++;
          sum_held += a;
          out->n_held_family[c->family]++;
          sum_held_family[c->family] += a;
          if (isnan (out->max_abs_err_held_pct) || a > out->max_abs_err_held_pct)
            {
              out->max_abs_err_held_pct = a;
              out->max_err_held_row_id = c->row_id;
            }
          continue;
        }
      out->n++;
      sum += a;
      out->n_family[c->family]++;
      sum_family[c->family] += a;
      if (isnan (out->max_abs_err_pct) || a > out->max_abs_err_pct)
        {
          out->max_abs_err_pct = a;
          out->max_err_row_id = c->row_id;
        }
    }
  /* MAPE = mean |100 (predicted - measured) / measured| over the predicted rows. */
  out->mape_pct = out->n > 0 ? sum / out->n : NAN;
  out->mape_moe_pct = out->n_moe > 0 ? sum_moe / out->n_moe : NAN;
  out->mape_held_pct = out->n_held > 0 ? sum_held / out->n_held : NAN;
  for (int f = 0; f < RES_PUB_FAMILY_N; f++)
    {
      out->mape_family_pct[f] = out->n_family[f] > 0 ? sum_family[f] / out->n_family[f] : NAN;
      out->mape_held_family_pct[f] = out->n_held_family[f] > 0
                                     ? sum_held_family[f] / out->n_held_family[f] : NAN;
    }
}

/* ---- micro-batch scaling ------------------------------------------------------------ */

static void
mb_scaling_free (ResPublishedMbScaling *g)
{
  g_array_unref (g->row_ids);
  g_array_unref (g->micro_batches);
  g_free (g);
}

/* Everything that decides a row's per-micro-batch work and its pipeline, i.e. the plan
 * but for dp and the global batch (which only change m and the DP group). */
static char *
mb_scaling_key (const ResPublishedCase *c)
{
  const Plan *p = &c->plan;
  /* ... and the stack, the schedules a step, the FP8 recipe, compile and async TP and
   * the MoE options (routing, dispatcher, capacity): rows 833 and 834, four schedules a
   * step against one, were fitted as one series ("fixed -1.717 s") */
  g_autofree char *more = g_strdup_printf ("%s|pps%d|r%d|c%d%d|e%d k%d d%d/%d cf%g pad%d "
                                           "imb%g a2a%d",
                                           c->stack != NULL ? c->stack->name : "",
                                           plan_pp_schedules (p), p->fp8_recipe, p->compile,
                                           p->async_tp, p->num_experts, p->moe_topk,
                                           p->moe_dispatcher, p->moe_flex_backend,
                                           p->moe_capacity_factor, p->moe_pad_to_capacity,
                                           p->moe_imbalance, p->moe_a2a_overlap);
  return g_strdup_printf ("%s|%s|%s|%s|%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "|tp%d cp%d "
                          "pp%d vpp%d ep%d first%d last%d chunks%d/%d acct%d%d sp%d cpc%d mbs%d "
                          "seq%d shard%d/%d rc%d/%d/%d dt%d/%d/%d/%d mm%d sched%d ovl%d%d%d off%d",
                          more,
                          c->model_label, c->cluster_name, c->gpu_type,
                          (gint64) c->model->n_layers, (gint64) c->model->hidden, p->tp, p->cp,
                          p->pp, p->vpp, p->ep, p->first_stage_layers, p->last_stage_layers,
                          p->first_chunk_layers, p->last_chunk_layers,
                          p->account_embedding, p->account_loss,
                          p->sequence_parallel, p->cp_comm, p->micro_batch, p->seq_length,
                          p->sharding, p->hsdp_shard_size, p->recompute, p->recompute_method,
                          p->recompute_num_layers, p->compute_dtype, p->param_dtype,
                          p->grad_dtype, p->optim_dtype, p->fp32_matmul, p->schedule,
                          p->overlap_grad_reduce, p->overlap_param_gather, p->tp_comm_overlap,
                          p->optimizer_offload);
}

/* Least squares of y = a x + b; FALSE when the x are all equal. */
static gboolean
fit_line (const double *x, const double *y, guint n, double *a, double *b)
{
  double mx = 0, my = 0;
  for (guint i = 0; i < n; i++)
    mx += x[i], my += y[i];
  mx /= n, my /= n;
  double sxx = 0, sxy = 0;
  for (guint i = 0; i < n; i++)
    sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
  if (!(sxx > 0))
    return FALSE;
  *a = sxy / sxx;
  *b = my - *a * mx;
  return TRUE;
}

GPtrArray *
res_published_mb_scaling (ResPublishedCase *const *cases, guint n_cases)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) mb_scaling_free);
  g_autofree char **keys = g_new0 (char *, n_cases + 1);
  for (guint i = 0; i < n_cases; i++)
    if (cases[i]->predicted && isfinite (cases[i]->measured_step_s)
        && cases[i]->model != NULL && cases[i]->plan.grad_accum > 0)
      keys[i] = mb_scaling_key (cases[i]);
  g_autofree gboolean *taken = g_new0 (gboolean, n_cases + 1);
  for (guint i = 0; i < n_cases; i++)
    {
      if (keys[i] == NULL || taken[i])
        continue;
      g_autoptr (GArray) members = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint j = i; j < n_cases; j++)
        if (keys[j] != NULL && !taken[j] && g_str_equal (keys[i], keys[j]))
          {
            taken[j] = TRUE;
            g_array_append_val (members, j);
          }
      guint n = members->len;
      if (n < 2)
        continue;
      g_autofree double *m = g_new (double, n), *tm = g_new (double, n),
                        *tp = g_new (double, n);
      for (guint k = 0; k < n; k++)
        {
          const ResPublishedCase *c = cases[g_array_index (members, guint, k)];
          m[k] = c->plan.grad_accum;
          tm[k] = c->measured_step_s;
          tp[k] = c->predicted_step_s;
        }
      ResPublishedMbScaling *g = g_new0 (ResPublishedMbScaling, 1);
      if (!fit_line (m, tm, n, &g->measured_per_mb_s, &g->measured_fixed_s)
          || !fit_line (m, tp, n, &g->predicted_per_mb_s, &g->predicted_fixed_s))
        {
          g_free (g);        /* all rows run the same m: nothing to separate */
          continue;
        }
      g->row_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
      g->micro_batches = g_array_new (FALSE, FALSE, sizeof (int));
      for (guint k = 0; k < n; k++)
        {
          const ResPublishedCase *c = cases[g_array_index (members, guint, k)];
          int mk = c->plan.grad_accum;
          g_array_append_val (g->row_ids, c->row_id);
          g_array_append_val (g->micro_batches, mk);
        }
      g->per_mb_err_pct = 100.0 * (g->predicted_per_mb_s - g->measured_per_mb_s)
                          / g->measured_per_mb_s;
      /* the same fit at each V of the rows' V sweeps, when they all swept the same Vs */
      const ResPubVSweep *w0 = &cases[g_array_index (members, guint, 0)]->v_sweep;
      gboolean same = w0->n > 0;
      for (guint k = 1; k < n && same; k++)
        {
          const ResPubVSweep *w = &cases[g_array_index (members, guint, k)]->v_sweep;
          same = w->n == w0->n && memcmp (w->v, w0->v, sizeof w->v) == 0;
        }
      for (int v = 0; same && v < w0->n; v++)
        {
          for (guint k = 0; k < n; k++)
            tp[k] = cases[g_array_index (members, guint, k)]->v_sweep.step_s[v];
          if (fit_line (m, tp, n, &g->predicted_per_mb_by_v_s[g->n_vs],
                        &g->predicted_fixed_by_v_s[g->n_vs]))
            g->vs[g->n_vs++] = w0->v[v];
        }
      g_ptr_array_add (out, g);
    }
  for (guint i = 0; i < n_cases; i++)
    g_free (keys[i]);
  return out;
}

static gboolean
id_kept (gint64 id, const ResPublishedOptions *opts)
{
  if (opts->only_ids == NULL)
    return TRUE;
  for (guint i = 0; i < opts->n_only_ids; i++)
    if (opts->only_ids[i] == id)
      return TRUE;
  return FALSE;
}

static gboolean
gpu_kept (const char *gpu_type, const ResPublishedOptions *opts)
{
  if (opts->gpu_type_substr == NULL || *opts->gpu_type_substr == '\0')
    return TRUE;
  g_autofree char *h = g_ascii_strdown (gpu_type, -1);
  g_autofree char *n = g_ascii_strdown (opts->gpu_type_substr, -1);
  return strstr (h, n) != NULL;
}

ResPublishedReport *
res_published_validate (const ResCsv *csv, const ResPublishedOptions *opts)
{
  g_return_val_if_fail (csv != NULL, NULL);
  ResPublishedOptions none = { 0 };
  if (opts == NULL)
    opts = &none;

  ResPublishedReport *report = g_new0 (ResPublishedReport, 1);
  report->source = g_strdup (csv->source);
  report->cases = g_ptr_array_new_with_free_func ((GDestroyNotify) res_published_case_free);

  /* Filter first (on the raw cells) so that progress counts the rows that will run. */
  GArray *kept = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint r = 0; r < res_csv_n_rows (csv); r++)
    {
      /* the id as the mapping reads it (res_published_row_id: "4.0" is 4, "1e1" 10) */
      gint64 id = -1;
      if (opts->only_ids != NULL && (!res_published_row_id (csv, r, &id) || !id_kept (id, opts)))
        continue;
      if (!gpu_kept (res_csv_get (csv, r, "gpu_type"), opts))
        continue;
      g_array_append_val (kept, r);
    }
  for (guint i = 0; i < kept->len; i++)
    {
      ResPublishedCase *c = res_published_case_new_on (csv, g_array_index (kept, guint, i),
                                                       opts->cluster);
      c->cost_overrides = opts ? opts->cost_overrides : NULL;
      res_published_case_predict (c);
      res_published_case_v_sweep (c);   /* a row whose V is not stated: each V, as a planner */
      g_ptr_array_add (report->cases, c);
      if (opts->progress != NULL)
        opts->progress (i + 1, kept->len, opts->progress_data);
    }
  g_array_unref (kept);
  res_published_summarize ((ResPublishedCase *const *) report->cases->pdata,
                           report->cases->len, &report->summary);
  report->mb_scaling = res_published_mb_scaling ((ResPublishedCase *const *)
                                                 report->cases->pdata, report->cases->len);
  return report;
}

void
res_published_report_free (ResPublishedReport *report)
{
  if (report == NULL)
    return;
  g_free (report->source);
  if (report->cases != NULL)
    g_ptr_array_unref (report->cases);
  if (report->mb_scaling != NULL)
    g_ptr_array_unref (report->mb_scaling);
  g_free (report);
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void
add_int (JsonBuilder *b, const char *name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

/* A row id, null where the row's own could not be read (case_map's -1: a row_id of -5
 * was listed as -1, a number nobody wrote) */
static void
add_row_id (JsonBuilder *b, gint64 v)
{
  json_builder_set_member_name (b, "row_id");
  if (v >= 1)
    json_builder_add_int_value (b, v);
  else
    json_builder_add_null_value (b);
}

static void
row_to_json (const ResPublishedCase *c, JsonBuilder *b)
{
  json_builder_begin_object (b);
  add_int (b, "row_id", c->row_id);
  util_json_member_string (b, "model", c->model_label);
  util_json_member_string (b, "gpu_type", c->gpu_type);
  add_int (b, "n_gpus", c->n_gpus);
  util_json_member_string (b, "cluster", c->cluster_name);
  g_autofree char *plan = res_published_case_plan_string (c);
  util_json_member_string (b, "plan", plan);
  util_json_member_number (b, "measured_step_s", c->measured_step_s);
  util_json_member_string (b, "measured_source", c->measured_source);
  util_json_member_number (b, "predicted_step_s", c->predicted_step_s);
  util_json_member_number (b, "err_pct", c->err_pct);
  json_builder_set_member_name (b, "fits");
  json_builder_add_boolean_value (b, c->fits);
  util_json_member_number (b, "peak_memory_bytes", c->peak_memory_bytes);
  /* a 6N-alone row: PaLM's count without its attention term (flops_6n_ratio) */
  util_json_member_string (b, "flops_convention",
              !c->has_convention ? NULL
              : c->flops_6n ? "6n" : model_flop_convention_name (c->convention));
  util_json_member_number (b, "published_mfu_pct", c->published_mfu_pct);
  util_json_member_number (b, "predicted_mfu_pct",
              c->has_convention ? c->predicted_mfu_pct[c->convention] * c->flops_6n_ratio
                                : NAN);
  /* MFU and HFU as a prediction's JSON has them (docs/contracts.md), fractions: the
   * object by convention (null for one the model refuses: megatron96/72 on MoE or MLA)
   * and one hfu. flops_convention is the row's published count, the key of the object
   * its predicted_mfu_pct is; a 6N-alone row's "6n" is added to the object for it */
  json_builder_set_member_name (b, "mfu");
  json_builder_begin_object (b);
  for (int k = 0; k < MODEL_FLOPS_N_CONVENTIONS; k++)
    util_json_member_number (b, model_flop_convention_name (k),
                             c->model != NULL && model_flop_convention_refusal (c->model, k)
                             ? NAN : c->predicted_mfu_pct[k] / 100.0);
  if (c->has_convention && c->flops_6n)
    util_json_member_number (b, "6n",
                             c->predicted_mfu_pct[c->convention] * c->flops_6n_ratio / 100.0);
  json_builder_end_object (b);
  util_json_member_number (b, "predicted_hfu", c->predicted_hfu);
  util_json_member_number (b, "predicted_compute_s", c->predicted_compute_s);
  util_json_member_number (b, "predicted_bubble_s", c->predicted_bubble_s);
  sim_comm_kinds_to_json (b, "predicted_exposed_comm_s", c->predicted_exposed_s);
  json_builder_set_member_name (b, "moe");
  json_builder_add_boolean_value (b, c->moe.present);
  /* the software stack it was read with, and why that is not the one its framework cell
   * names (NULL: it is): a framework tandem does not recognise is read as megatron-core */
  util_json_member_string (b, "stack", c->stack != NULL ? c->stack->name : NULL);
  util_json_member_string (b, "stack_note", c->stack_why);
  /* a check row ("[held out" in its notes): scored apart, never fitted on (tools/) */
  json_builder_set_member_name (b, "held_out");
  json_builder_add_boolean_value (b, c->held_out);
  json_builder_end_object (b);
}

void
res_published_report_to_json (const ResPublishedReport *report, JsonBuilder *b)
{
  const ResPublishedSummary *s = &report->summary;
  json_builder_begin_object (b);
  util_json_member_string (b, "source", report->source);

  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->cases->len; i++)
    {
      const ResPublishedCase *c = report->cases->pdata[i];
      if (c->predicted)
        row_to_json (c, b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "skipped");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->cases->len; i++)
    {
      const ResPublishedCase *c = report->cases->pdata[i];
      if (c->predicted)
        continue;
      json_builder_begin_object (b);
      add_row_id (b, c->row_id);
      util_json_member_string (b, "model", c->model_label);
      util_json_member_string (b, "gpu_type", c->gpu_type);
      util_json_member_string (b, "reason", c->skip_reason);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "summary");
  json_builder_begin_object (b);
  add_int (b, "n", s->n);
  util_json_member_number (b, "mape_pct", s->mape_pct);
  util_json_member_number (b, "max_abs_err_pct", s->max_abs_err_pct);
  json_builder_set_member_name (b, "max_err_row_id");
  if (s->max_err_row_id >= 0)
    json_builder_add_int_value (b, s->max_err_row_id);
  else
    json_builder_add_null_value (b);
  add_int (b, "skipped", s->n_skipped);
  json_builder_set_member_name (b, "moe");
  json_builder_begin_object (b);
  add_int (b, "rows", s->n_moe_rows);
  add_int (b, "n", s->n_moe);
  util_json_member_number (b, "mape_pct", s->mape_moe_pct);
  util_json_member_number (b, "max_abs_err_pct", s->max_abs_err_moe_pct);
  json_builder_set_member_name (b, "max_err_row_id");
  if (s->max_err_moe_row_id >= 0)
    json_builder_add_int_value (b, s->max_err_moe_row_id);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
  /* always there, as "moe" is, every family listed as in "by_device": a run without
   * held-out rows left the key out, and its by_device listed only the families it had */
    {
      json_builder_set_member_name (b, "held_out");
      json_builder_begin_object (b);
      add_int (b, "rows", s->n_held_rows);
      add_int (b, "n", s->n_held);
      util_json_member_number (b, "mape_pct", s->mape_held_pct);
      util_json_member_number (b, "max_abs_err_pct", s->max_abs_err_held_pct);
      json_builder_set_member_name (b, "max_err_row_id");
      if (s->max_err_held_row_id >= 0)
        json_builder_add_int_value (b, s->max_err_held_row_id);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "by_device");
      json_builder_begin_object (b);
      for (int i = RES_PUB_FAMILY_H100; i <= RES_PUB_FAMILY_N; i++)
        {
          const int f = i < RES_PUB_FAMILY_N ? i : RES_PUB_FAMILY_OTHER;
          json_builder_set_member_name (b, res_pub_family_name (f));
          json_builder_begin_object (b);
          add_int (b, "n", s->n_held_family[f]);
          util_json_member_number (b, "mape_pct", s->n_held_family[f] > 0
                                                  ? s->mape_held_family_pct[f] : NAN);
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_set_member_name (b, "by_device");
  json_builder_begin_object (b);
  /* the named families, then "other" (its rows were in the summary and nowhere here) */
  for (int i = RES_PUB_FAMILY_H100; i <= RES_PUB_FAMILY_N; i++)
    {
      const int f = i < RES_PUB_FAMILY_N ? i : RES_PUB_FAMILY_OTHER;
      json_builder_set_member_name (b, res_pub_family_name (f));
      json_builder_begin_object (b);
      add_int (b, "n", s->n_family[f]);
      util_json_member_number (b, "mape_pct", s->mape_family_pct[f]);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  /* The Llama 3 production rows (mapped to h100-24k): predicted PaLM MFU next to the
   * paper's (Table 4). */
  json_builder_set_member_name (b, "llama3_mfu");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->cases->len; i++)
    {
      const ResPublishedCase *c = report->cases->pdata[i];
      if (!c->predicted || g_strcmp0 (c->cluster_name, "h100-24k") != 0)
        continue;
      json_builder_begin_object (b);
      add_int (b, "row_id", c->row_id);
      util_json_member_number (b, "published_mfu_pct", c->published_mfu_pct);
      util_json_member_number (b, "predicted_mfu_palm_pct", c->predicted_mfu_pct[MODEL_FLOPS_PALM]);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "mb_scaling");
  json_builder_begin_array (b);
  for (guint i = 0; report->mb_scaling != NULL && i < report->mb_scaling->len; i++)
    {
      const ResPublishedMbScaling *g = report->mb_scaling->pdata[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "row_ids");
      json_builder_begin_array (b);
      for (guint k = 0; k < g->row_ids->len; k++)
        json_builder_add_int_value (b, g_array_index (g->row_ids, gint64, k));
      json_builder_end_array (b);
      json_builder_set_member_name (b, "micro_batches");
      json_builder_begin_array (b);
      for (guint k = 0; k < g->micro_batches->len; k++)
        json_builder_add_int_value (b, g_array_index (g->micro_batches, int, k));
      json_builder_end_array (b);
      util_json_member_number (b, "measured_per_mb_s", g->measured_per_mb_s);
      util_json_member_number (b, "measured_fixed_s", g->measured_fixed_s);
      util_json_member_number (b, "predicted_per_mb_s", g->predicted_per_mb_s);
      util_json_member_number (b, "predicted_fixed_s", g->predicted_fixed_s);
      util_json_member_number (b, "per_mb_err_pct", g->per_mb_err_pct);
      if (g->n_vs > 0)
        {
          json_builder_set_member_name (b, "by_v");
          json_builder_begin_array (b);
          for (int v = 0; v < g->n_vs; v++)
            {
              json_builder_begin_object (b);
              add_int (b, "v", g->vs[v]);
              util_json_member_number (b, "predicted_per_mb_s", g->predicted_per_mb_by_v_s[v]);
              util_json_member_number (b, "predicted_fixed_s", g->predicted_fixed_by_v_s[v]);
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  /* rows whose V is not stated, at each V a planner would try */
  json_builder_set_member_name (b, "v_sweep");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->cases->len; i++)
    {
      const ResPublishedCase *c = report->cases->pdata[i];
      const ResPubVSweep *w = &c->v_sweep;
      if (w->n == 0)
        continue;
      json_builder_begin_object (b);
      add_int (b, "row_id", c->row_id);
      util_json_member_number (b, "published_mfu_pct", c->published_mfu_pct);
      json_builder_set_member_name (b, "convention");
      json_builder_add_string_value (b, model_flop_convention_name (c->has_convention
                                                                     ? c->convention
                                                                     : MODEL_FLOPS_PALM));
      json_builder_set_member_name (b, "best_v");
      if (w->best >= 0)
        json_builder_add_int_value (b, w->v[w->best]);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "by_v");
      json_builder_begin_array (b);
      for (int v = 0; v < w->n; v++)
        {
          json_builder_begin_object (b);
          add_int (b, "v", w->v[v]);
          util_json_member_number (b, "step_s", w->step_s[v]);
          util_json_member_number (b, "mfu_pct", w->mfu_pct[v]);
          json_builder_set_member_name (b, "fits");
          json_builder_add_boolean_value (b, w->fits[v]);
          util_json_member_number (b, "peak_gib", w->peak_bytes[v] / (1024.0 * 1024 * 1024));
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_end_object (b);
}

/* ---- store ---------------------------------------------------------------------------- */

gint64
res_published_report_store (const ResPublishedReport *report, ResStore *store,
                            const char *note, GError **error)
{
  g_return_val_if_fail (report != NULL && store != NULL, -1);
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (ResValidationRow));
  for (guint i = 0; i < report->cases->len; i++)
    {
      const ResPublishedCase *c = report->cases->pdata[i];
      if (!c->predicted)
        continue;
      ResValidationRow r = { c->row_id, c->predicted_step_s, c->measured_step_s, c->err_pct };
      g_array_append_val (rows, r);
    }
  g_autofree char *base = g_path_get_basename (report->source);
  g_autofree char *auto_note = NULL;
  /* the dense dev rows' MAPE where there are any; the rows stored are all predicted ones
   * (held-out and MoE rows too) */
  if (note == NULL && report->summary.n > 0)
    note = auto_note = g_strdup_printf ("%u rows predicted, %u skipped, MAPE %.1f%%",
                                        rows->len, report->summary.n_skipped,
                                        report->summary.mape_pct);
  else if (note == NULL)
    note = auto_note = g_strdup_printf ("%u rows predicted (held-out or MoE), %u skipped",
                                        rows->len, report->summary.n_skipped);
  ResRunInfo info = {
    .kind = RES_KIND_VALIDATE,
    .status = RES_STATUS_OK,
    .model = base,
    .note = note,
  };
  gint64 id = res_store_add_validation (store, &info, (const ResValidationRow *) rows->data,
                                        rows->len, error);
  if (id < 0)
    g_prefix_error (error, "storing the validation of %s: ", report->source);
  return id;
}
