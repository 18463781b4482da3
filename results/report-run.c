/* results/report-run.c - one stored run as a page: what it was, its figures predicted and
 * measured with their errors, where its step went, memory by pipeline stage, and the
 * timeline, re-simulated from the stored model, cluster and plan by sim_predict and
 * written beside the page as Perfetto JSON. */
#include "results/report-private.h"
#include "util/output.h"
#include "util/input.h"
#include "sim/predict.h"

#include <math.h>

struct ReportRun {
  ResRunRecord  *rec;
  SimPrediction *sim;          /* the re-simulation with its timeline; NULL: see why */
  char          *sim_why_not;  /* why there is no timeline */
  char          *resim_plan;   /* the re-simulated plan's string, where it is not the
                                * stored one (a plan JSON edited after it was stored) */
  JsonParser    *memory;       /* the stored predicted memory_json, NULL when none */
};

void
report_run_free (ReportRun *r)
{
  if (r == NULL)
    return;
  res_run_record_free (r->rec);
  sim_prediction_free (r->sim);
  g_free (r->sim_why_not);
  g_free (r->resim_plan);
  g_clear_object (&r->memory);
  g_free (r);
}

static void
copy_member (JsonObject *from, const char *key, JsonObject *to, const char *as)
{
  if (from != NULL && json_object_has_member (from, key))
    json_object_set_member (to, as, json_node_copy (json_object_get_member (from, key)));
}

static JsonObject *
section (JsonObject *o, const char *name)
{
  return o && json_object_has_member (o, name)
         && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, name))
         ? json_object_get_object_member (o, name) : NULL;
}

/* The store keeps the plan as plan_to_json wrote it; the plan loader reads TorchTitan's
 * plan files. This maps one onto the other, key by key; what has no plan-file key (the
 * attention backend, the FP8 recipe) is left at its default, which is why the page
 * compares the re-simulated step with the stored one. */
static char *
stored_plan_to_plan_file (const char *plan_json, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, plan_json, -1, error))
    return NULL;
  JsonObject *in = JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))
    ? json_node_get_object (json_parser_get_root (parser)) : NULL;
  JsonObject *par_in = section (in, "parallelism"), *tr_in = section (in, "training");
  JsonObject *ac_in = section (in, "activation_checkpoint"), *ov_in = section (in, "overlap");
  JsonObject *pr_in = section (in, "precision");
  JsonObject *par = json_object_new (), *tr = json_object_new (), *ac = json_object_new ();
  static const char *const par_keys[] = {
    "world_size", "tensor_parallel_degree", "pipeline_parallel_degree",
    "context_parallel_degree", "expert_parallel_degree", "virtual_stages_per_rank",
    "microbatch_group_size_per_vp_stage", "sequence_parallel", "pipeline_parallel_schedule",
    "sharding", "rank_order", "context_parallel_comm",
    /* Megatron-Core's accounted split (the embedding and the loss a layer slot each): left
     * out, Llama 3 405B at PP16 VPP8 (128 chunks of 126 layers + 2) did not re-simulate,
     * and the page of the search's own best plan had no timeline */
    "account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split",
    /* likewise expert TP (a MoE plan at tp 2, etp 1 re-simulated at etp 2), HSDP's
     * groups, interleaved schedules per step and FP8 all-gathers: each left out made the
     * page say "not the stored prediction's (the cost model or options differ)" */
    "expert_tensor_parallel_degree", "pipeline_schedules_per_step",
    "enable_fsdp_float8_all_gather",
  };
  for (guint i = 0; i < G_N_ELEMENTS (par_keys); i++)
    copy_member (par_in, par_keys[i], par, par_keys[i]);
  /* HSDP is stored as "hsdp" with its shard-group size beside it; the plan file reads
   * "hsdp:K" (a bare "hsdp" was refused, and the page had no timeline) */
  if (par_in != NULL && json_object_has_member (par_in, "data_parallel_shard_degree")
      && g_strcmp0 (json_object_get_string_member_with_default (par_in, "sharding", ""),
                    "hsdp") == 0)
    {
      g_autofree char *hsdp = g_strdup_printf (
        "hsdp:%" G_GINT64_FORMAT, json_object_get_int_member (par_in,
                                                              "data_parallel_shard_degree"));
      json_object_set_string_member (par, "sharding", hsdp);
    }
  static const char *const split[] = { "first_stage_layers", "last_stage_layers",
                                       "first_chunk_layers", "last_chunk_layers" };
  for (guint i = 0; i < G_N_ELEMENTS (split); i++)
    if (par_in && json_object_has_member (par_in, split[i])
        && !JSON_NODE_HOLDS_NULL (json_object_get_member (par_in, split[i]))
        && json_object_get_int_member (par_in, split[i]) >= 0)   /* runs stored before: -1 */
      copy_member (par_in, split[i], par, split[i]);
  /* the overlaps in the plan file's own overlap section: TP-comm overlap went to
   * enable_async_tensor_parallel, so every stored run with --tp-comm-overlap re-simulated
   * as async TP and was reported as a plan that differs (audit of 7 Dec) */
  JsonObject *ov = json_object_new ();
  copy_member (ov_in, "grad_reduce", ov, "grad_reduce");
  copy_member (ov_in, "param_gather", ov, "param_gather");
  copy_member (ov_in, "tp_comm", ov, "tp_comm");
  /* the micro-batch: parallelism.pipeline_parallel_microbatch_size where plan_to_json
   * writes it; in plans stored before, training.local_batch_size was the micro-batch */
  if (par_in && json_object_has_member (par_in, "pipeline_parallel_microbatch_size"))
    copy_member (par_in, "pipeline_parallel_microbatch_size", par,
                 "pipeline_parallel_microbatch_size");
  else
    copy_member (tr_in, "local_batch_size", par, "pipeline_parallel_microbatch_size");
  copy_member (tr_in, "global_batch_size", tr, "global_batch_size");
  copy_member (tr_in, "seq_len", tr, "seq_len");
  copy_member (tr_in, "compile", tr, "compile");
  copy_member (pr_in, "compute", tr, "precision");
  /* --grad-dtype: the plan file's reduce dtype, for the two it names */
  {
    const char *grad = pr_in ? json_object_get_string_member_with_default (pr_in, "grad", "")
                             : "";
    if (g_str_equal (grad, "bf16") || g_str_equal (grad, "fp32"))
      json_object_set_string_member (tr, "mixed_precision_reduce",
                                     g_str_equal (grad, "bf16") ? "bfloat16" : "float32");
  }
  if (in && json_object_has_member (in, "optimizer_offload")
      && json_object_get_boolean_member (in, "optimizer_offload"))
    copy_member (in, "optimizer_offload", tr, "optimizer_offload");
  static const char *const ac_keys[] = { "mode", "method", "num_layers" };
  for (guint i = 0; i < G_N_ELEMENTS (ac_keys); i++)
    copy_member (ac_in, ac_keys[i], ac, ac_keys[i]);
  JsonObject *out = json_object_new ();
  /* the MoE options: stored under the plan file's own moe keys (plan_to_json) */
  JsonObject *moe_in = section (in, "moe");
  if (moe_in != NULL)
    {
      JsonObject *moe = json_object_new ();
      static const char *const moe_keys[] = {
        "num_experts", "router_topk", "token_dispatcher_type", "flex_dispatcher_backend",
        "expert_capacity_factor", "pad_expert_input_to_capacity", "grouped_gemm",
        "shared_expert_overlap", "a2a_overlap", "cuda_graph_impl", "cuda_graph_scope",
        "recompute_modules", "imbalance",
      };
      for (guint i = 0; i < G_N_ELEMENTS (moe_keys); i++)
        copy_member (moe_in, moe_keys[i], moe, moe_keys[i]);
      json_object_set_object_member (out, "moe", moe);
    }
  json_object_set_object_member (out, "parallelism", par);
  json_object_set_object_member (out, "training", tr);
  json_object_set_object_member (out, "activation_checkpoint", ac);
  json_object_set_object_member (out, "overlap", ov);
  g_autoptr (JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (root, out);
  return json_to_string (root, FALSE);
}

/* The stored description, simulated again with the timeline kept. */
static SimPrediction *
resimulate (const ResRunRecord *rec, GError **error)
{
  const ResRunInfo *in = &rec->info;
  if (in->model_json == NULL || in->cluster_json == NULL || in->plan_json == NULL)
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                   "the run does not store its model, cluster and plan");
      return NULL;
    }
  g_autoptr (ModelSpec) model = model_spec_new_from_data (in->model_json, -1, in->model, error);
  if (model == NULL)
    return NULL;
  g_autoptr (TopoCluster) cluster = topo_cluster_new_from_data (in->cluster_json, -1,
                                                                in->cluster, error);
  if (cluster == NULL)
    return NULL;
  g_autofree char *plan_file = stored_plan_to_plan_file (in->plan_json, error);
  if (plan_file == NULL)
    return NULL;
  Plan plan;
  plan_init_defaults (&plan);
  if (!plan_load_json_data (&plan, plan_file, -1, "stored plan", error))
    {
      plan_clear (&plan);
      return NULL;
    }
  if (in->world_size > 0)
    plan.world_size = (int) in->world_size;
  plan.dp_given = 0;
  if (!plan_model_apply_moe (&plan, &model, error) || !plan_resolve (&plan, model, cluster, error))
    {
      plan_clear (&plan);
      return NULL;
    }
  /* the stack the run was costed with: a preset by name, a stack file by its path
   * (fw_stack_stored_name); one that cannot be read any more is said, not replaced by
   * the default stack without a word */
  g_autoptr (GError) serr = NULL;
  g_autoptr (FwStack) stack = fw_stack_lookup (in->framework, &serr);
  if (stack == NULL && in->framework != NULL && *in->framework != '\0')
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT, "the run's stack '%s' is neither "
                   "a preset nor a readable stack file (hint: report run re-simulates with "
                   "the stack file the run used; put it back at that path)", in->framework);
      plan_clear (&plan);
      return NULL;
    }
  SimOptions opts;
  sim_options_init (&opts, cluster);
  if (stack != NULL)
    sim_cost_options_init_stack (&opts.cost, cluster, stack);
  opts.keep_timeline = TRUE;
  SimPrediction *p = sim_predict (model, &plan, cluster, &opts, error);
  plan_clear (&plan);
  return p;
}

ReportRun *
report_run_compute (ResStore *store, gint64 run_id, GError **error)
{
  g_autoptr (ResRunRecord) rec = res_store_get_run (store, run_id, error);
  if (rec == NULL)
    return NULL;
  if (!rec->has_prediction && !rec->has_measurement)
    {
      ResRunKind kind = rec->info.kind;
      if (kind == RES_KIND_VALIDATE || kind == RES_KIND_CALIBRATE)
        g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                     "run %" G_GINT64_FORMAT " (%s, %s) has no figures to show (hint: a "
                     "predict, run or search row; tandem report validation shows validate "
                     "runs)", run_id, res_run_kind_to_string (kind),
                     res_run_status_to_string (rec->info.status));
      else
        /* a run that failed, died or is still running: its kind is right, it ended (or
         * has not yet come) before storing figures; saying "a predict, run or search row"
         * to a run row sent the user looking for another id */
        g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                     "run %" G_GINT64_FORMAT " (%s, %s) has no figures to show: %s%s%s "
                     "(hint: tandem runs show %" G_GINT64_FORMAT " says %s)", run_id,
                     res_run_kind_to_string (kind),
                     res_run_status_to_string (rec->info.status),
                     rec->info.status == RES_STATUS_RUNNING
                       ? "it is still running (they are stored when it ends)"
                       : "it stored none before it ended",
                     rec->info.error != NULL ? ": " : "",
                     rec->info.error != NULL ? rec->info.error : "", run_id,
                     rec->info.status == RES_STATUS_RUNNING ? "where it is"
                                                            : "how it ended");
      return NULL;
    }
  ReportRun *r = g_new0 (ReportRun, 1);
  r->rec = g_steal_pointer (&rec);
  g_autoptr (GError) serr = NULL;
  r->sim = resimulate (r->rec, &serr);
  if (r->sim == NULL)
    r->sim_why_not = g_strdup (serr->message);
  else if (r->rec->info.plan != NULL)
    {
      /* the stored plan string was written from the same plan as the stored JSON
       * (plan_to_string and plan_to_json of one Plan, after sim_predict's stack fields):
       * where the JSON reads as another plan, the row was edited, and the step that differs
       * is that plan's, not a change of the cost model */
      g_autofree char *again = plan_to_string (&r->sim->plan);
      if (g_strcmp0 (again, r->rec->info.plan) != 0)
        r->resim_plan = g_steal_pointer (&again);
    }
  const char *mj = r->rec->has_prediction ? r->rec->pred.memory_json : NULL;
  if (mj != NULL)
    {
      r->memory = json_parser_new ();
      if (!json_parser_load_from_data (r->memory, mj, -1, NULL)
          || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (r->memory)))
        g_clear_object (&r->memory);
    }
  return r;
}

/* ---- the figures, as rows of (term, predicted, measured) ---- */

typedef struct {
  const char *name;
  const char *unit;     /* "s", "fraction" (printed as %), "tokens/s", "bytes" */
  double      pred, meas;
} RunTerm;

static guint
run_terms (const ReportRun *r, RunTerm *t)
{
  const ResRunRecord *rec = r->rec;
  const ResMetrics *p = rec->has_prediction ? &rec->pred : NULL;
  const ResMetrics *m = rec->has_measurement ? &rec->meas : NULL;
#define V(x, f) ((x) ? (f) : NAN)
  guint n = 0;
  t[n++] = (RunTerm) { "step time", "s", V (p, p->step_time_s), V (m, m->step_time_s) };
  t[n++] = (RunTerm) { "tokens/s", "tokens/s", V (p, p->tokens_per_s), V (m, m->tokens_per_s) };
  /* fractions (0.21, not 21) in the CSV and JSON, as everywhere else; the page and the
   * Markdown print them as percentages */
  t[n++] = (RunTerm) { "MFU", "fraction", V (p, p->mfu), V (m, m->mfu) };
  t[n++] = (RunTerm) { "HFU", "fraction", V (p, p->hfu), V (m, m->hfu) };
  t[n++] = (RunTerm) { "compute", "s", V (p, p->compute_s), V (m, m->compute_s) };
  t[n++] = (RunTerm) { "bubble", "s", V (p, p->bubble_fraction * p->step_time_s),
                       V (m, m->bubble_fraction * m->step_time_s) };
  /* the contract's order, tp, cp, ep, pp, dp (docs/contracts.md), as runs show lists them */
  static const char *const names[] = { "exposed tp", "exposed cp", "exposed ep", "exposed pp",
                                       "exposed dp" };
  static const ResComm order[] = { RES_COMM_TP, RES_COMM_CP, RES_COMM_EP, RES_COMM_PP,
                                   RES_COMM_DP };
  for (guint k = 0; k < G_N_ELEMENTS (order); k++)
    t[n++] = (RunTerm) { names[k], "s", V (p, p->exposed_s[order[k]]),
                         V (m, m->exposed_s[order[k]]) };
  t[n++] = (RunTerm) { "peak memory", "bytes",
                       V (p && p->peak_memory_bytes >= 0, (double) p->peak_memory_bytes),
                       V (m && m->peak_memory_bytes >= 0, (double) m->peak_memory_bytes) };
#undef V
  return n;
}

static const char *
fmt_term (char *buf, gsize n, const RunTerm *t, double v)
{
  if (!isfinite (v))
    return g_strlcpy (buf, "-", n), buf;
  if (g_str_equal (t->unit, "fraction"))
    g_snprintf (buf, n, "%.1f%%", v * 100);
  else if (g_str_equal (t->unit, "bytes"))
    g_snprintf (buf, n, "%.2f GiB", v / (1024.0 * 1024 * 1024));
  else if (g_str_equal (t->unit, "tokens/s"))
    {
      g_autofree char *c = report_fmt_count (v);
      g_strlcpy (buf, c, n);
    }
  else
    g_snprintf (buf, n, "%.4f s", v);
  return buf;
}

static double
rel_err (double p, double m)
{
  return isfinite (p) && isfinite (m) && m != 0 ? 100 * (p - m) / m : NAN;
}

/* ---- plots ---- */

/* Predicted and measured step side by side, in seconds, by where the time went. */
static void
plot_run_breakdown (const ReportRun *r, cairo_t *cr, double w, double h)
{
  PlotAxes ax;
  g_autofree char *title = g_strdup_printf ("Run %" G_GINT64_FORMAT ": where the step goes",
                                            r->rec->run_id);
  plot_begin (cr, w, h, title, &ax);
  ax.x1 = w - 190;
  const ResMetrics *src[2] = { r->rec->has_prediction ? &r->rec->pred : NULL,
                               r->rec->has_measurement ? &r->rec->meas : NULL };
  static const char *const labels[] = { "predicted", "measured" };
  static const ResComm order[] = { RES_COMM_TP, RES_COMM_CP, RES_COMM_EP, RES_COMM_PP,
                                   RES_COMM_DP };
  double seg[2][8] = { { 0 } }, hi = 0;
  for (int i = 0; i < 2; i++)
    {
      const ResMetrics *m = src[i];
      if (m == NULL || !(m->step_time_s > 0))
        continue;
      double sum = 0;
      seg[i][0] = isfinite (m->compute_s) ? m->compute_s : 0;
      seg[i][1] = isfinite (m->bubble_fraction) ? m->bubble_fraction * m->step_time_s : 0;
      for (int k = 0; k < 5; k++)
        seg[i][2 + k] = isfinite (m->exposed_s[order[k]]) ? m->exposed_s[order[k]] : 0;
      for (int k = 0; k < 7; k++)
        sum += seg[i][k];
      seg[i][7] = m->step_time_s > sum ? m->step_time_s - sum : 0;
      hi = MAX (hi, MAX (sum, m->step_time_s));
    }
  ax.ymin = 0;
  plot_nice_linear (hi * 1.05, &ax.ymax);
  plot_axis_x_categories (cr, &ax, labels, 2, "");
  plot_axis_y (cr, &ax, "s", "seconds per step");
  double slot = (ax.x1 - ax.x0) / 2;
  gboolean used[8] = { 0 };
  for (int i = 0; i < 2; i++)
    {
      double x = ax.x0 + slot * i + slot * 0.25;
      if (src[i] == NULL)
        {
          cairo_save (cr);
          plot_font (cr, 12, FALSE);
          cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
          plot_text (cr, x + slot * 0.25, ax.y1 - 20, 0.5, 1, i ? "not measured" : "no prediction");
          cairo_restore (cr);
          continue;
        }
      double acc = 0;
      for (int k = 0; k < 8; k++)
        {
          if (seg[i][k] <= 0)
            continue;
          used[k] = TRUE;
          double ya = plot_y (&ax, acc), yb = plot_y (&ax, acc + seg[i][k]);
          plot_fill_rect (cr, x, yb, slot * 0.5, ya - yb, plot_segment_style (k));
          acc += seg[i][k];
        }
    }
  plot_frame (cr, &ax);
  static const char *const names[] = { "compute", "bubble", "exposed TP", "exposed CP",
                                       "exposed EP", "exposed PP", "exposed DP",
                                       "other (idle)" };
  PlotLegendEntry legend[8];
  guint nl = 0;
  for (int k = 7; k >= 0; k--)
    if (used[k])
      legend[nl++] = (PlotLegendEntry) { names[k], plot_segment_style (k), 1 };
  PlotAxes side = ax;
  side.x0 = ax.x1 + 2;
  side.x1 = w - 4;
  plot_legend (cr, &side, legend, nl, TRUE);
}

static double
member_bytes (JsonObject *o, const char *name)
{
  return o && json_object_has_member (o, name) ? json_object_get_double_member (o, name) : 0;
}

/* Predicted memory per pipeline stage by category, against HBM. */
static void
plot_run_memory (const ReportRun *r, cairo_t *cr, double w, double h)
{
  PlotAxes ax;
  plot_begin (cr, w, h, "Predicted memory per GPU by pipeline stage", &ax);
  ax.x1 = w - 190;
  JsonObject *mem = r->memory ? json_node_get_object (json_parser_get_root (r->memory)) : NULL;
  JsonArray *stages = mem && json_object_has_member (mem, "stages")
    ? json_object_get_array_member (mem, "stages") : NULL;
  guint n = stages ? json_array_get_length (stages) : 0;
  double cap = member_bytes (mem, "capacity_bytes"), hi = cap;
  for (guint i = 0; i < n; i++)
    hi = MAX (hi, member_bytes (json_array_get_object_element (stages, i), "total_bytes"));
  ax.ymin = 0;
  plot_nice_linear (MAX (hi, 1) * 1.05 / (1024.0 * 1024 * 1024), &ax.ymax);
  ax.ymax *= 1024.0 * 1024 * 1024;
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < MAX (n, 1); i++)
    g_ptr_array_add (labels, g_strdup_printf ("%u", i));
  plot_axis_x_categories (cr, &ax, (const char *const *) labels->pdata, labels->len,
                          "pipeline stage");
  plot_axis_y (cr, &ax, "GiB", "memory per GPU (GiB)");
  if (n == 0)
    {
      cairo_save (cr);
      plot_font (cr, 13, FALSE);
      cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
      plot_text (cr, (ax.x0 + ax.x1) / 2, (ax.y0 + ax.y1) / 2, 0.5, 0.5,
                 "no memory breakdown stored for this run");
      cairo_restore (cr);
    }
  double slot = (ax.x1 - ax.x0) / MAX (n, 1);
  gboolean used[PLAN_MEM_N] = { 0 };
  for (guint i = 0; i < n; i++)
    {
      JsonObject *st = json_array_get_object_element (stages, i);
      JsonObject *cat = json_object_has_member (st, "categories")
        ? json_object_get_object_member (st, "categories") : NULL;
      double acc = 0, x = ax.x0 + slot * i + slot * 0.15;
      for (int k = 0; k < PLAN_MEM_N; k++)
        {
          double b = member_bytes (cat, plan_mem_category_name (k));
          if (b <= 0)
            continue;
          used[k] = TRUE;
          double ya = plot_y (&ax, acc), yb = plot_y (&ax, acc + b);
          plot_fill_rect (cr, x, yb, slot * 0.7, ya - yb, plot_segment_style (k));
          acc += b;
        }
    }
  if (cap > 0)
    {
      double y = plot_y (&ax, cap);
      cairo_save (cr);
      cairo_set_source_rgb (cr, 0.75, 0.1, 0.1);
      cairo_set_line_width (cr, 1.8);
      double d[] = { 7, 4 };
      cairo_set_dash (cr, d, 2, 0);
      cairo_move_to (cr, ax.x0, y);
      cairo_line_to (cr, ax.x1, y);
      cairo_stroke (cr);
      plot_font (cr, 11, TRUE);
      g_autofree char *lab = g_strdup_printf ("HBM %.1f GiB", cap / (1024.0 * 1024 * 1024));
      plot_text (cr, ax.x1 - 5, y - 3, 1, 1, lab);
      cairo_restore (cr);
    }
  plot_frame (cr, &ax);
  static const char *const mem_names[] = { "parameters", "gradients", "optimizer",
                                           "activations", "comm buffers", "reserve" };
  PlotLegendEntry legend[PLAN_MEM_N];
  guint nl = 0;
  for (int k = PLAN_MEM_N - 1; k >= 0; k--)
    if (used[k])
      legend[nl++] = (PlotLegendEntry) { mem_names[k], plot_segment_style (k), 1 };
  PlotAxes side = ax;
  side.x0 = ax.x1 + 2;
  side.x1 = w - 4;
  plot_legend (cr, &side, legend, nl, TRUE);
}

/* ---- writers ---- */

void
report_run_to_json (const ReportRun *r, JsonBuilder *b)
{
  const ResRunRecord *rec = r->rec;
  json_builder_begin_object (b);
  util_json_member_string (b, "report", "run");
  json_builder_set_member_name (b, "run_id");
  json_builder_add_int_value (b, rec->run_id);
  util_json_member_string (b, "kind", res_run_kind_to_string (rec->info.kind));
  util_json_member_string (b, "status", res_run_status_to_string (rec->info.status));
  util_json_member_string (b, "created_at", rec->created_at);
  util_json_member_string (b, "model", rec->info.model);
  util_json_member_string (b, "cluster", rec->info.cluster);
  util_json_member_string (b, "plan", rec->info.plan);
  json_builder_set_member_name (b, "gpus");
  json_builder_add_int_value (b, rec->info.world_size);
  json_builder_set_member_name (b, "terms");
  json_builder_begin_array (b);
  RunTerm t[16];
  guint n = run_terms (r, t);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_object (b);
      util_json_member_string (b, "term", t[i].name);
      util_json_member_string (b, "unit", t[i].unit);
      util_json_member_number (b, "predicted", t[i].pred);
      util_json_member_number (b, "measured", t[i].meas);
      util_json_member_number (b, "err_pct", rel_err (t[i].pred, t[i].meas));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  /* the convention the MFU term is in (it was unnamed), and MFU and HFU as a prediction's
   * JSON has them (docs/contracts.md), as runs show N --json gives them */
  util_json_member_string (b, "flops_convention",
                           rec->has_prediction && rec->pred.flops_convention != NULL
                           ? rec->pred.flops_convention
                           : rec->has_measurement ? rec->meas.flops_convention : NULL);
  res_metrics_member (b, "predicted", rec->has_prediction ? &rec->pred : NULL);
  res_metrics_member (b, "measured", rec->has_measurement ? &rec->meas : NULL);
  util_json_member_number (b, "resimulated_step_time_s", r->sim ? r->sim->result->step_time_s : NAN);
  /* the plan the stored JSON reads as, where it is not the run's (null: it is) */
  util_json_member_string (b, "resimulated_plan_differs", r->resim_plan);
  util_json_member_string (b, "timeline", r->sim ? "timeline.json" : NULL);
  util_json_member_string (b, "timeline_missing", r->sim_why_not);
  json_builder_end_object (b);
}

typedef void (*RunPlot) (const ReportRun *, cairo_t *, double, double);
static const struct {
  const char *png;
  RunPlot draw;
  const char *alt;
  const char *caption;
} run_plots[] = {
  { "breakdown.png", plot_run_breakdown, "Where the step goes",
    "Seconds per step: compute, pipeline bubble and exposed communication by kind "
    "(means over pipeline stages, as stored); what remains of the step is idle time." },
  { "memory.png", plot_run_memory, "Memory by pipeline stage",
    "The predicted per-GPU memory of each pipeline stage by category, against HBM." },
};

static void
dl_item (GString *s, const char *name, const char *value)
{
  if (value == NULL || *value == '\0')
    return;
  g_string_append_printf (s, "<dt>%s</dt><dd>", name);
  report_html_escape (s, value);
  g_string_append (s, "</dd>\n");
}

static gboolean
run_stage (gconstpointer data, const char *dir, guint formats, gboolean force,
           GPtrArray *staged, GError **error)
{
  const ReportRun *r = data;
  const ResRunRecord *rec = r->rec;
  const char *names[10];
  guint nn = 0;
  if (formats & REPORT_FORMAT_HTML)
    names[nn++] = "report.html";
  if (formats & REPORT_FORMAT_MD)
    names[nn++] = "report.md";
  if (formats & REPORT_FORMAT_CSV)
    names[nn++] = "report.csv";
  if (formats & REPORT_FORMAT_JSON)
    names[nn++] = "report.json";
  if (formats & REPORT_FORMAT_PNG)
    for (guint i = 0; i < G_N_ELEMENTS (run_plots); i++)
      names[nn++] = run_plots[i].png;
  if (r->sim)
    names[nn++] = "timeline.json";
  names[nn] = NULL;
  if (!report_dir_prepare (dir, names, force, error))
    return FALSE;
  if (r->sim)
    {
      /* the Perfetto timeline, one process per pipeline stage as predict writes it */
      const SimPrediction *p = r->sim;
      g_autofree int *ranks = g_new (int, p->plan.pp);
      for (int st = 0; st < p->plan.pp; st++)
        {
          PlanCoord c = { { 0 } };
          c.coord[PLAN_AXIS_PP] = st;
          ranks[st] = plan_layout_rank_of (p->layout, &c);
        }
      gsize len = 0;
      g_autofree char *trace = prog_trace_to_data (p->program, p->result->times, ranks,
                                                   "predicted", &len);
      if (!report_file_write (dir, "timeline.json", trace, (gssize) len, staged, error))
        return FALSE;
    }
  if (formats & REPORT_FORMAT_PNG)
    for (guint i = 0; i < G_N_ELEMENTS (run_plots); i++)
      if (!report_plot_png ((ReportPlotFunc) run_plots[i].draw, r, dir, run_plots[i].png,
                            staged, error))
        return FALSE;
  RunTerm t[16];
  guint n = run_terms (r, t);
  g_autofree char *gpus = g_strdup_printf ("%" G_GINT64_FORMAT, rec->info.world_size);
  g_autofree char *title = g_strdup_printf ("Run %" G_GINT64_FORMAT ": %s (%s), %s on %s",
                                            rec->run_id, res_run_kind_to_string (rec->info.kind),
                                            res_run_status_to_string (rec->info.status),
                                            rec->info.model ? rec->info.model : "?",
                                            rec->info.cluster ? rec->info.cluster : "?");
  double resim = r->sim ? r->sim->result->step_time_s : NAN;
  gboolean same = rec->has_prediction
                  && fabs (resim - rec->pred.step_time_s) <= 1e-6 * rec->pred.step_time_s;
  g_autofree char *differs = r->resim_plan != NULL
    ? g_strdup_printf ("not the stored prediction's: the stored plan JSON reads as %s, the "
                       "run's plan is %s (the row was edited after it was stored, or written "
                       "by another tool)", r->resim_plan, rec->info.plan)
    : g_strdup ("not the stored prediction's (the cost model differs from when it was "
                "stored, or the plan has an option the stored plan does not carry: the FP8 "
                "recipe, the parameter and optimizer dtypes, the master weights)");
  g_autofree char *timeline_note = r->sim
    ? g_strdup_printf ("Perfetto JSON beside this page (open it in ui.perfetto.dev), "
                       "re-simulated from the stored model, cluster and plan: step %.4f s, %s",
                       resim, same ? "the stored prediction's" : differs)
    : g_strdup_printf ("none: %s", r->sim_why_not);
  if (formats & REPORT_FORMAT_HTML)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      report_html_begin (s, title);
      g_string_append (s, "<h1>");
      report_html_escape (s, title);
      g_string_append (s, "</h1>\n<h2>Summary</h2>\n<dl>\n");
      dl_item (s, "created", rec->created_at);
      dl_item (s, "plan", rec->info.plan);
      dl_item (s, "GPUs / ranks", gpus);
      dl_item (s, "framework", rec->info.framework);
      dl_item (s, "host", rec->info.host);
      dl_item (s, "note", rec->info.note);
      dl_item (s, "error", rec->info.error);
      dl_item (s, "FLOP convention (MFU)", rec->pred.flops_convention);
      g_string_append (s, "<dt>timeline</dt><dd>");
      if (r->sim)
        g_string_append (s, "<a href=\"timeline.json\">timeline.json</a> ");
      report_html_escape (s, timeline_note);
      g_string_append (s, "</dd>\n</dl>\n<h2>Figures</h2>\n<table>\n<tr><th class=\"l\">term"
                       "</th><th>predicted</th><th>measured</th><th>error</th></tr>\n");
      for (guint i = 0; i < n; i++)
        {
          char a[64], b[64], e[32];
          g_string_append_printf (s, "<tr><td class=\"l\">%s</td><td>%s</td><td>%s</td>"
                                  "<td>%s</td></tr>\n", t[i].name,
                                  fmt_term (a, sizeof a, &t[i], t[i].pred),
                                  fmt_term (b, sizeof b, &t[i], t[i].meas),
                                  report_fmt (e, sizeof e, "%+.1f%%",
                                              rel_err (t[i].pred, t[i].meas)));
        }
      g_string_append (s, "</table>\n<h2>Plots</h2>\n");
      for (guint i = 0; i < G_N_ELEMENTS (run_plots); i++)
        {
          g_autofree char *uri = report_plot_svg_uri ((ReportPlotFunc) run_plots[i].draw, r,
                                                      error);
          if (uri == NULL)
            return FALSE;
          report_html_figure (s, uri, run_plots[i].alt, run_plots[i].caption);
        }
      report_html_end (s);
      if (!report_file_write (dir, "report.html", s->str, s->len, staged, error))
        return FALSE;
    }
  if (formats & (REPORT_FORMAT_MD | REPORT_FORMAT_CSV))
    {
      g_autoptr (GString) md = g_string_new (NULL);
      g_autoptr (GString) csv = g_string_new ("term,unit,predicted,measured,err_pct\n");
      g_autofree char *title_md = report_md_escaped (title);
      g_autofree char *plan_md = report_md_escaped (rec->info.plan ? rec->info.plan : "-");
      g_autofree char *note_md = report_md_escaped (timeline_note);
      g_string_append_printf (md, "# %s\n\n- plan: %s\n- GPUs / ranks: %s\n- timeline: %s\n\n"
                              "| term | predicted | measured | error |\n|---|--:|--:|--:|\n",
                              title_md, plan_md, gpus, note_md);
      for (guint i = 0; i < n; i++)
        {
          char a[64], b[64], e[32];
          g_string_append_printf (md, "| %s | %s | %s | %s |\n", t[i].name,
                                  fmt_term (a, sizeof a, &t[i], t[i].pred),
                                  fmt_term (b, sizeof b, &t[i], t[i].meas),
                                  report_fmt (e, sizeof e, "%+.1f%%",
                                              rel_err (t[i].pred, t[i].meas)));
          g_string_append_printf (csv, "%s,%s,", t[i].name, t[i].unit);
          report_csv_number (csv, t[i].pred);
          g_string_append_c (csv, ',');
          report_csv_number (csv, t[i].meas);
          g_string_append_c (csv, ',');
          report_csv_number (csv, rel_err (t[i].pred, t[i].meas));
          g_string_append_c (csv, '\n');
        }
      if (formats & REPORT_FORMAT_PNG)
        for (guint i = 0; i < G_N_ELEMENTS (run_plots); i++)
          g_string_append_printf (md, "\n![%s](%s)\n", run_plots[i].alt, run_plots[i].png);
      if ((formats & REPORT_FORMAT_MD)
          && !report_file_write (dir, "report.md", md->str, md->len, staged, error))
        return FALSE;
      if ((formats & REPORT_FORMAT_CSV)
          && !report_file_write (dir, "report.csv", csv->str, csv->len, staged, error))
        return FALSE;
    }
  if (formats & REPORT_FORMAT_JSON)
    {
      g_autoptr (JsonBuilder) jb = json_builder_new ();
      report_run_to_json (r, jb);
      if (!report_json_write (dir, "report.json", jb, staged, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
report_run_write (const ReportRun *r, const char *dir, guint formats, gboolean force,
                  GPtrArray *written, GError **error)
{
  return report_write_staged (run_stage, r, dir, formats, force, written, error);
}
