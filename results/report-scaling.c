/* results/report-scaling.c - the scaling table: one prediction per (cluster, size), by
 * sim_predict, then speed-up and efficiency against each cluster's base point. */
#include "results/accuracy.h"
#include "results/report-private.h"
#include "sim/predict.h"
#include "sim/search.h"

#include <math.h>

G_DEFINE_QUARK (report-error-quark, report_error)

const char *
report_comm_name (ReportComm k)
{
  static const char *const names[] = { "tp", "cp", "ep", "pp", "dp" };
  g_return_val_if_fail (k < REPORT_COMM_N, "?");
  return names[k];
}

/* The simulator's kinds mapped by name onto the contract's columns, so that a kind the
 * simulator gains (ep) lands in its column without a change here. */
static int
comm_column (const char *sim_name)
{
  for (int k = 0; k < REPORT_COMM_N; k++)
    if (g_str_equal (sim_name, report_comm_name (k)))
      return k;
  return -1;
}

static void
row_free (ReportScalingRow *row)
{
  if (row == NULL)
    return;
  g_free (row->cluster);
  g_free (row->status);
  g_free (row->reason);
  g_free (row->plan);
  g_free (row->flags);
  g_free (row);
}

static void
measured_free (ReportMeasuredPoint *m)
{
  if (m == NULL)
    return;
  g_free (m->cluster);
  g_free (m->plan);
  g_free (m);
}

void
report_scaling_free (ReportScaling *r)
{
  if (r == NULL)
    return;
  g_free (r->model);
  g_clear_pointer (&r->clusters, g_ptr_array_unref);
  g_clear_pointer (&r->base_gpus, g_array_unref);
  g_clear_pointer (&r->rows, g_ptr_array_unref);
  g_clear_pointer (&r->measured, g_ptr_array_unref);
  g_clear_pointer (&r->accuracy, g_ptr_array_unref);
  g_free (r);
}

static ReportScalingRow *
row_new (const char *cluster, int gpus)
{
  ReportScalingRow *row = g_new0 (ReportScalingRow, 1);
  row->cluster = g_strdup (cluster);
  row->gpus = gpus;
  row->speedup = row->efficiency = NAN;
  return row;
}

/* Fills the figures of `row` from one prediction, as `tandem predict` reports them. */
static void
row_take_prediction (ReportScalingRow *row, const SimPrediction *p, ModelFlopConvention conv)
{
  const SimResult *res = p->result;
  row->predicted = TRUE;
  row->plan = plan_to_string (&p->plan);
  row->global_batch = p->plan.global_batch;
  row->seq_length = p->plan.seq_length;
  row->step_time_s = res->step_time_s;
  row->tokens_per_s = res->tokens_per_s;
  row->tokens_per_s_per_gpu = res->tokens_per_s / p->plan.world_size;
  row->mfu = res->mfu[conv];
  memcpy (row->mfu_by_conv, res->mfu, sizeof row->mfu_by_conv);
  /* a convention with no term for the experts or latent attention: unknown (null), as
   * predict's JSON has it, not 0 */
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    if (model_flop_convention_refusal (p->model, c) != NULL)
      row->mfu_by_conv[c] = NAN;
  row->hfu = res->hfu;
  row->bubble_fraction = res->bubble_fraction;
  row->compute_s = res->compute_s;
  for (int k = 0; k < PROG_COMM_N; k++)
    {
      int col = comm_column (prog_comm_name (k));
      if (col >= 0)
        {
          row->exposed_s[col] = res->exposed_comm_s[k];
          row->comm_s[col] = res->comm_s[k];
        }
    }
  row->peak_memory_bytes = p->memory.peak_bytes;
  row->peak_stage = p->memory.peak_stage;
  row->capacity_bytes = p->memory.capacity_bytes;
  row->fits = p->memory.fits;
  for (int s = 0; s < p->memory.n_stages; s++)
    if (p->memory.stages[s].stage == p->memory.peak_stage)
      memcpy (row->memory_bytes, p->memory.stages[s].bytes, sizeof row->memory_bytes);
  if (row->fits)
    row->status = g_strdup ("ok");
  else
    {
      row->status = g_strdup ("oom");
      row->reason = g_strdup_printf ("stage %d needs %.1f GiB of %.1f GiB HBM",
                                     p->memory.peak_stage,
                                     (double) p->memory.peak_bytes / (1 << 30),
                                     (double) p->memory.capacity_bytes / (1 << 30));
    }
}

static ReportScalingRow *
predict_size (const ReportScalingSpec *spec, TopoCluster *cluster, int gpus, int gbs,
              GError **error)
{
  const char *cname = cluster->name;
  ReportScalingRow *row = row_new (cname, gpus);
  row->global_batch = gbs;
  Plan plan;
  plan_copy (&plan, spec->plan);
  plan.world_size = gpus;
  plan.global_batch = gbs;
  plan.dp = 0;
  plan.dp_given = 0;   /* dp follows the size: the plan is scaled in dp */
  plan.grad_accum = 0;
  /* and so do a plan file's derived counts (plan.h dp_file): every size but the file's
   * was refused by them */
  plan_drop_file_counts (&plan, TRUE);
  g_autoptr (GError) perr = NULL;
  if (!plan_resolve (&plan, spec->model, cluster, &perr))
    {
      /* a layout that does not fold onto the one rank order the stack lays out (meta-
       * llama3's tp-cp-ep-pp-dp): the stack's refusal, as predict gives it; the generic
       * one hinted at a --rank-order the stack does not offer */
      if (spec->stack != NULL && spec->stack->offers_rank_orders != NULL
          && g_strv_length (spec->stack->offers_rank_orders) == 1
          && g_strcmp0 (spec->stack->offers_rank_orders[0], plan.rank_order) == 0
          && g_str_has_prefix (perr->message, "the expert layout does not fold onto the ranks"))
        {
          g_clear_error (&perr);
          plan_stack_fold_error (&plan, spec->stack, &perr);
        }
      row->status = g_strdup ("invalid");
      row->reason = g_strdup (perr->message);
      plan_clear (&plan);
      return row;
    }
  /* at this size, the schedule or sharding the stack takes where the plan names none
   * (hai-llm's DualPipe where the size's micro-batches allow it), as predict takes it */
  if (spec->stack != NULL
      && !plan_adopt_stack_resolve (&plan, spec->stack, spec->model, cluster, &perr))
    {
      row->status = g_strdup ("invalid");
      row->reason = g_strdup (perr->message);
      plan_clear (&plan);
      return row;
    }
  SimOptions opts;
  if (spec->opts != NULL)
    opts = *spec->opts;
  else
    {
      sim_options_init (&opts, cluster);
      if (spec->stack != NULL)
        sim_cost_options_init_stack (&opts.cost, cluster, spec->stack);
    }
  opts.keep_timeline = FALSE;
  g_autoptr (SimPrediction) p = sim_predict (spec->model, &plan, cluster, &opts, &perr);
  plan_clear (&plan);
  if (p == NULL)
    {
      /* a plan that resolves but cannot be laid out or simulated is still the user's
       * plan at this size: say why in the row */
      row->status = g_strdup ("invalid");
      row->reason = g_strdup (perr->message);
      return row;
    }
  row_take_prediction (row, p, spec->conv);
  /* the flags that predict this row (as a search row has them): the model, cluster, size,
   * batch and sequence, then the plan flags typed (the rows had none) */
  if (spec->fixed_flags != NULL)
    {
      g_autofree char *m = search_spec_arg (spec->model->name, spec->model->source);
      g_autofree char *cl = search_spec_arg (cluster->name, cluster->source);
      row->flags = g_strdup_printf ("--model %s --cluster %s --gpus %d --global-batch-size %d "
                                    "--seq-length %d%s%s", m, cl, gpus, gbs,
                                    p->plan.seq_length, *spec->fixed_flags ? " " : "",
                                    spec->fixed_flags);
    }
  return row;
}

/* The best plan `tandem search` finds at this size (fastest step for this batch), then
 * predicted by the same call; a size where nothing is valid or nothing fits says why. */
static ReportScalingRow *
search_size (const ReportScalingSpec *spec, TopoCluster *cluster, int gpus, int gbs)
{
  ReportScalingRow *row = row_new (cluster->name, gpus);
  row->global_batch = gbs;
  SearchSpec ss;
  search_spec_init (&ss);
  ss.model = model_spec_ref ((ModelSpec *) spec->model);
  ss.cluster = topo_cluster_ref (cluster);
  plan_clear (&ss.base);   /* search_spec_init filled defaults; plan_copy overwrites them */
  plan_copy (&ss.base, spec->plan);
  ss.base.world_size = gpus;
  ss.base.global_batch = gbs;
  ss.base.dp = ss.base.dp_given = ss.base.grad_accum = 0;
  if (spec->opts != NULL)
    ss.sim = *spec->opts;
  else
    {
      sim_options_init (&ss.sim, cluster);
      if (spec->stack != NULL)
        sim_cost_options_init_stack (&ss.sim.cost, cluster, spec->stack);
    }
  ss.sim.keep_timeline = FALSE;
  ss.gpus = g_array_new (FALSE, FALSE, sizeof (int));
  g_array_append_val (ss.gpus, gpus);
  ss.top_k = 1;
  ss.objective = SEARCH_OBJ_STEP_TIME;   /* the batch is fixed at this size */
  g_autoptr (GError) err = NULL;
  /* the stack's space, as `tandem search` has it: without it a megatron-core report
   * picked HSDP plans the stack does not offer */
  SearchSpace *space = NULL;
  if (spec->stack == NULL || search_spec_set_stack (&ss, (FwStack *) spec->stack, &err))
    space = search_space_new (&ss, &err);
  search_spec_clear (&ss);
  if (space == NULL)
    {
      row->status = g_strdup ("invalid");
      row->reason = g_strdup_printf ("search: %s", err->message);
      return row;
    }
  SearchRunOptions ro = { 0 };
  g_autoptr (SearchResult) res = search_run (space, &ro, &err);
  if (res == NULL || res->top->len == 0)
    {
      if (res != NULL && res->closest_set)
        {
          row->status = g_strdup ("oom");
          row->reason = g_strdup_printf ("no plan of %" G_GUINT64_FORMAT " fits; the closest "
                                         "needs %.1f GiB of %.1f GiB HBM", res->enumerated,
                                         (double) res->closest_peak_bytes / (1 << 30),
                                         (double) res->closest_capacity_bytes / (1 << 30));
        }
      else
        {
          row->status = g_strdup ("invalid");
          /* and why, as tandem search counts it: the commonest reason (its figures as N1,
           * N2 where they vary), the row had said only "no valid plan" */
          const char *why = NULL;
          guint most = 0;
          GHashTableIter it;
          gpointer k, v;
          if (res != NULL && res->invalid_reasons != NULL)
            {
              g_hash_table_iter_init (&it, res->invalid_reasons);
              while (g_hash_table_iter_next (&it, &k, &v))
                if (GPOINTER_TO_UINT (v) > most
                    || (GPOINTER_TO_UINT (v) == most && g_strcmp0 (k, why) < 0))
                  most = GPOINTER_TO_UINT (v), why = k;
            }
          row->reason = res == NULL ? g_strdup_printf ("search: %s", err->message)
                        : why != NULL ? g_strdup_printf ("no valid plan among %"
                                                         G_GUINT64_FORMAT " candidates; "
                                                         "%u of them: %s", res->enumerated,
                                                         most, why)
                        : g_strdup_printf ("no valid plan among %" G_GUINT64_FORMAT
                                           " candidates", res->enumerated);
        }
      search_space_free (space);
      return row;
    }
  const SearchRow *best = &g_array_index (res->rows, SearchRow,
                                          g_array_index (res->top, guint, 0));
  g_autoptr (SimPrediction) p = search_candidate_predict (space, best->index, FALSE, &err);
  /* the plan as flags: the row's name alone did not give them (the rows said "zero1" for a
   * plan whose DP overlap predict then needs --overlap-grad-reduce for: 1.443 s against
   * 1.554 without) */
  char *flags = p != NULL ? search_candidate_flags (space, best->index, spec->extra_flags)
                          : NULL;
  search_space_free (space);
  if (p == NULL)
    {
      row->status = g_strdup ("invalid");
      row->reason = g_strdup_printf ("search: %s", err->message);
      return row;
    }
  row_take_prediction (row, p, spec->conv);
  row->flags = flags;
  return row;
}

/* The base of one cluster: the smallest size that fits, else the smallest predicted. */
static void
set_efficiency (ReportScaling *r, guint first, guint n, int *base_gpus)
{
  const ReportScalingRow *base = NULL;
  for (guint i = first; i < first + n && base == NULL; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      if (row->predicted && row->fits)
        base = row;
    }
  for (guint i = first; i < first + n && base == NULL; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      if (row->predicted)
        base = row;
    }
  *base_gpus = base ? base->gpus : 0;
  if (base == NULL)
    return;
  for (guint i = first; i < first + n; i++)
    {
      ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      /* a plan that does not fit is no point of the curve, unless nothing fits */
      if (!row->predicted || (base->fits && !row->fits))
        continue;
      double g_ratio = (double) base->gpus / row->gpus;
      if (r->mode == REPORT_STRONG)
        {
          row->speedup = base->step_time_s / row->step_time_s;
          row->efficiency = row->speedup * g_ratio;
        }
      else
        {
          row->efficiency = base->step_time_s / row->step_time_s;
          row->speedup = row->efficiency / g_ratio;
        }
    }
}

gboolean
report_scaling_base_fits (const ReportScaling *r, guint c)
{
  g_return_val_if_fail (r != NULL && c < r->clusters->len, FALSE);
  const int g = g_array_index (r->base_gpus, int, c);
  const char *name = g_ptr_array_index (r->clusters, c);
  for (guint i = 0; g > 0 && i < r->rows->len; i++)
    {
      const ReportScalingRow *row = g_ptr_array_index (r->rows, i);
      if (row->gpus == g && g_strcmp0 (row->cluster, name) == 0)
        return row->predicted && row->fits;
    }
  return FALSE;
}

const char *
report_scaling_base_text (const ReportScaling *r, guint c, char *buf, gsize n)
{
  g_return_val_if_fail (r != NULL && c < r->clusters->len && buf != NULL, NULL);
  const int g = g_array_index (r->base_gpus, int, c);
  if (g <= 0)
    g_strlcpy (buf, "none (no size has a plan)", n);
  else if (!report_scaling_base_fits (r, c))
    g_snprintf (buf, n, "%d GPUs (no size fits in memory: speed-up and efficiency compare "
                "plans that do not fit)", g);
  else
    g_snprintf (buf, n, "%d GPUs", g);
  return buf;
}

/* What a stored plan ran: its plan_json's training.global_batch_size and seq_len (0 when
 * not stored) and precision.compute (NULL when not stored). */
static char *
stored_plan_facts (const char *plan_json, gint64 *gbs, gint64 *seq)
{
  *gbs = *seq = 0;
  if (plan_json == NULL)
    return NULL;
  g_autoptr (JsonParser) p = json_parser_new ();
  if (!json_parser_load_from_data (p, plan_json, -1, NULL))
    return NULL;
  JsonNode *root = json_parser_get_root (p);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  JsonObject *o = json_node_get_object (root);
  JsonNode *tn = json_object_get_member (o, "training");
  if (tn != NULL && JSON_NODE_HOLDS_OBJECT (tn))
    {
      JsonObject *t = json_node_get_object (tn);
      JsonNode *g = json_object_get_member (t, "global_batch_size");
      JsonNode *q = json_object_get_member (t, "seq_len");
      if (g != NULL && JSON_NODE_HOLDS_VALUE (g) && json_node_get_value_type (g) == G_TYPE_INT64)
        *gbs = json_node_get_int (g);
      if (q != NULL && JSON_NODE_HOLDS_VALUE (q) && json_node_get_value_type (q) == G_TYPE_INT64)
        *seq = json_node_get_int (q);
    }
  JsonNode *pn = json_object_get_member (o, "precision");
  if (pn == NULL || !JSON_NODE_HOLDS_OBJECT (pn))
    return NULL;
  JsonNode *c = json_object_get_member (json_node_get_object (pn), "compute");
  if (c == NULL || !JSON_NODE_HOLDS_VALUE (c) || json_node_get_value_type (c) != G_TYPE_STRING)
    return NULL;
  return g_strdup (json_node_get_string (c));
}

/* Measured points: stored `run` rows of the model on one of the report's clusters, each
 * at a size of the report with that size's global batch and sequence length and the same
 * compute dtype as the report's plans (any plan of them otherwise). Before, every run of
 * the model and cluster was drawn: a run of another batch, length, dtype or size beside
 * the curve it was not a point of. The others are counted in measured_apart. */
static void
collect_measured (ReportScaling *r, const ReportScalingSpec *spec)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) runs = res_store_list_runs (spec->store, 0, &error);
  if (runs == NULL)
    return;   /* measured points are optional: a store that cannot be read adds none */
  const char *dtype = plan_precision_name (spec->plan->compute_dtype);
  for (guint i = runs->len; i-- > 0;)
    {
      const ResRunRow *run = g_ptr_array_index (runs, i);
      if (run->kind != RES_KIND_RUN || run->status != RES_STATUS_OK
          || isnan (run->measured_step_s) || run->model == NULL || run->cluster == NULL
          || !g_str_equal (run->model, r->model))
        continue;
      gboolean ours = FALSE;
      for (guint c = 0; c < r->clusters->len; c++)
        ours |= g_str_equal (run->cluster, g_ptr_array_index (r->clusters, c));
      if (!ours)
        continue;
      /* the report's row of that cluster and size: its batch and length */
      const ReportScalingRow *row = NULL;
      for (guint k = 0; k < r->rows->len && row == NULL; k++)
        {
          const ReportScalingRow *x = g_ptr_array_index (r->rows, k);
          if (x->gpus == run->world_size && g_str_equal (x->cluster, run->cluster))
            row = x;
        }
      g_autoptr (ResRunRecord) rec = res_store_get_run (spec->store, run->run_id, NULL);
      gint64 gbs = 0, seq = 0;
      g_autofree char *run_dtype = rec != NULL ? stored_plan_facts (rec->info.plan_json, &gbs,
                                                                    &seq)
                                               : NULL;
      if (row == NULL || rec == NULL || gbs != row->global_batch || seq != row->seq_length
          || row->global_batch <= 0
          || run_dtype == NULL || !g_str_equal (run_dtype, dtype))
        {
          r->measured_apart++;
          continue;
        }
      ReportMeasuredPoint *m = g_new0 (ReportMeasuredPoint, 1);
      m->run_id = run->run_id;
      m->cluster = g_strdup (run->cluster);
      m->gpus = (int) run->world_size;
      m->plan = g_strdup (run->plan);
      m->measured_step_s = run->measured_step_s;
      m->predicted_step_s = run->predicted_step_s;
      m->measured_tokens_per_s = rec->has_measurement ? rec->meas.tokens_per_s : NAN;
      g_ptr_array_add (r->measured, m);
    }
}

ReportScaling *
report_scaling_compute (const ReportScalingSpec *spec, GError **error)
{
  g_return_val_if_fail (spec != NULL && spec->n_clusters > 0 && spec->n_gpus > 0, NULL);
  if (spec->gbs <= 0)
    {
      g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                   "the scaling report needs a global batch (hint: --gbs B)");
      return NULL;
    }
  for (guint i = 1; i < spec->n_gpus; i++)
    if (spec->gpus[i] <= spec->gpus[i - 1])
      {
        g_set_error (error, REPORT_ERROR, REPORT_ERROR_INPUT,
                     "--gpus must list distinct sizes in ascending order (%d after %d)",
                     spec->gpus[i], spec->gpus[i - 1]);
        return NULL;
      }
  g_autoptr (ReportScaling) r = g_new0 (ReportScaling, 1);
  r->model = g_strdup (spec->model->name);
  r->mode = spec->mode;
  r->plan_per_size = spec->plan_per_size;
  r->conv = spec->conv;
  r->gbs = spec->gbs;
  r->clusters = g_ptr_array_new_null_terminated (0, g_free, TRUE);   /* g_strjoinv reads it */
  r->base_gpus = g_array_new (FALSE, TRUE, sizeof (int));
  r->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  r->measured = g_ptr_array_new_with_free_func ((GDestroyNotify) measured_free);
  r->accuracy = g_ptr_array_new_with_free_func (g_free);
  ResAccuracy acc;
  res_accuracy_load (&acc);
  for (guint c = 0; c < spec->n_clusters; c++)
    {
      TopoCluster *cluster = spec->clusters[c];
      g_ptr_array_add (r->clusters, g_strdup (cluster->name));
      g_ptr_array_add (r->accuracy, res_accuracy_sentence (&acc, topo_device_part (&cluster->device),
                                                           spec->stack != NULL
                                                           ? spec->stack->name
                                                           : FW_STACK_DEFAULT,
                                                           model_spec_is_moe (spec->model)));
      guint first = r->rows->len;
      for (guint i = 0; i < spec->n_gpus; i++)
        {
          int gpus = spec->gpus[i];
          int gbs = spec->gbs;
          if (spec->mode == REPORT_WEAK)
            {
              /* the batch grows in proportion: B x G / G_min, whole sequences */
              gint64 scaled = (gint64) spec->gbs * gpus / spec->gpus[0];
              if (scaled > G_MAXINT || (gint64) spec->gbs * gpus % spec->gpus[0] != 0)
                {
                  ReportScalingRow *row = row_new (cluster->name, gpus);
                  row->status = g_strdup ("invalid");
                  /* past 2^31 - 1 it is whole but too large: said so, not "not a whole
                   * number" (--gbs 2000000000 --gpus 8,16 gives 4e9) */
                  if (scaled > G_MAXINT)
                    row->reason = g_strdup_printf ("the weak-scaled batch %d x %d / %d = %"
                                                   G_GINT64_FORMAT " sequences is above the "
                                                   "cap of %d (hint: a smaller --gbs)",
                                                   spec->gbs, gpus, spec->gpus[0], scaled,
                                                   G_MAXINT);
                  else
                    row->reason = g_strdup_printf ("the weak-scaled batch %d x %d / %d is not "
                                                   "a whole number of sequences", spec->gbs,
                                                   gpus, spec->gpus[0]);
                  g_ptr_array_add (r->rows, row);
                  continue;
                }
              gbs = (int) scaled;
            }
          g_ptr_array_add (r->rows, spec->plan_per_size == REPORT_PLAN_SEARCH
                                    ? search_size (spec, cluster, gpus, gbs)
                                    : predict_size (spec, cluster, gpus, gbs, error));
        }
      int base = 0;
      set_efficiency (r, first, spec->n_gpus, &base);
      g_array_append_val (r->base_gpus, base);
    }
  if (spec->store != NULL)
    collect_measured (r, spec);
  return g_steal_pointer (&r);
}
