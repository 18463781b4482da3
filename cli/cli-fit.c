/* cli/cli-fit.c - suggestions for a plan that does not fit: each change applied to a copy
 * of the plan, resolved and measured by the same memory model as the verdict. */
#include "cli/cli-fit.h"
#include "cli/cli-table.h"

#include "sim/predict.h"
#include "util/input.h"

#include <math.h>
#include <stdio.h>

/* One kind of change. `apply` edits a copy of the plan and writes its flags and words;
 * it returns FALSE when the change does not apply to this plan (already recomputing
 * everything, mbs 1, ...). */
typedef gboolean (*FitApply) (Plan *plan, const TopoCluster *cluster, GString *flags,
                              GString *what);

static gboolean
fit_recompute_selective (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (p->recompute != PLAN_RECOMPUTE_NONE)
    return FALSE;
  p->recompute = PLAN_RECOMPUTE_SELECTIVE;
  g_string_append (flags, "--recompute-granularity selective");
  g_string_append (what, "recompute the attention core");
  return TRUE;
}

static gboolean
fit_recompute_full (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (p->recompute == PLAN_RECOMPUTE_FULL && p->recompute_num_layers == 0)
    return FALSE;
  p->recompute = PLAN_RECOMPUTE_FULL;
  p->recompute_method = PLAN_RECOMPUTE_UNIFORM;
  p->recompute_num_layers = 0;
  g_string_append (flags, "--recompute-granularity full");
  g_string_append (what, "recompute whole layers");
  return TRUE;
}

/* the ranks ZeRO shards over, as the suggestion says it: "dp 8", or "dp x cp = 8" */
static const char *
shard_group (const Plan *p)
{
  static char buf[64];
  /* the group as the changes leave it: dp is derived again only when the plan is
   * resolved, so after a cp change dp x cp read the old dp ("dp x cp = 32" on 16 GPUs) */
  const int group = p->world_size > 0 && p->tp * p->pp > 0 ? p->world_size / (p->tp * p->pp)
                    : p->dp * p->cp;
  if (p->cp > 1)
    g_snprintf (buf, sizeof buf, "dp x cp = %d", group);
  else
    g_snprintf (buf, sizeof buf, "dp %d", group);
  return buf;
}

static gboolean
fit_shard (Plan *p, PlanSharding to)
{
  /* ZeRO shards over the gradient group dp x cp: one rank saves nothing; HSDP is already
   * ZeRO-3 within its groups */
  if (p->dp * p->cp <= 1 || p->sharding >= to || p->sharding == PLAN_SHARD_HSDP)
    return FALSE;
  p->sharding = to;
  return TRUE;
}

static gboolean
fit_zero1 (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (!fit_shard (p, PLAN_SHARD_ZERO1))
    return FALSE;
  /* beside a --sharding none that was typed, the distributed optimizer's flag is refused
   * as contradicting it (plan-args.c plan_parse_check): the change is that flag's value */
  g_string_append (flags, p->sharding_set ? "--sharding zero1" : "--use-distributed-optimizer");
  g_string_append_printf (what, "shard optimizer states over %s (ZeRO-1)", shard_group (p));
  return TRUE;
}

static gboolean
fit_zero2 (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (!fit_shard (p, PLAN_SHARD_ZERO2))
    return FALSE;
  g_string_append (flags, "--sharding zero2");
  g_string_append_printf (what, "shard optimizer states and gradients over %s (ZeRO-2)",
                          shard_group (p));
  return TRUE;
}

static gboolean
fit_zero3 (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (!fit_shard (p, PLAN_SHARD_ZERO3))
    return FALSE;
  g_string_append (flags, "--sharding zero3");
  g_string_append_printf (what, "shard parameters too over %s (ZeRO-3 / FSDP)",
                          shard_group (p));
  return TRUE;
}

static gboolean
fit_tp (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  /* tensor parallelism stays inside a server: across servers every layer's all-reduce
   * would cross the NIC (Narayanan et al. SC'21, takeaway 1) */
  if ((guint64) p->tp * 2 > topo_cluster_level_size (cluster, 0))
    return FALSE;
  gboolean add_sp = p->tp == 1;
  p->tp *= 2;
  if (add_sp)
    p->sequence_parallel = TRUE;
  g_string_append_printf (flags, "--tp %d%s", p->tp, add_sp ? " --sequence-parallel" : "");
  g_string_append_printf (what, "split each layer over %d GPUs", p->tp);
  return TRUE;
}

static gboolean
fit_sp (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (p->tp <= 1 || p->sequence_parallel)
    return FALSE;
  p->sequence_parallel = TRUE;
  g_string_append (flags, "--sequence-parallel");
  g_string_append_printf (what, "split norms and dropout along the sequence over tp %d",
                          p->tp);
  return TRUE;
}

static gboolean
fit_pp (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  /* uneven first/last stages stay as given: plan_resolve refuses the change when the
   * middle stages no longer split evenly */
  p->pp *= 2;
  g_string_append_printf (flags, "--pp %d", p->pp);
  g_string_append_printf (what, "split the layers over %d pipeline stages", p->pp);
  return TRUE;
}

static gboolean
fit_cp (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  p->cp *= 2;
  g_string_append_printf (flags, "--cp %d", p->cp);
  g_string_append_printf (what, "split each sequence over %d GPUs", p->cp);
  return TRUE;
}

static gboolean
fit_mbs (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (p->micro_batch <= 1)
    return FALSE;
  p->micro_batch /= 2;
  g_string_append_printf (flags, "--mbs %d", p->micro_batch);
  g_string_append_printf (what, "micro-batches of %d sequence%s (same global batch)",
                          p->micro_batch, p->micro_batch == 1 ? "" : "s");
  return TRUE;
}

static gboolean
fit_offload (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (p->optimizer_offload)
    return FALSE;
  p->optimizer_offload = TRUE;
  g_string_append (flags, "--optimizer-offload");
  g_string_append (what, "keep optimizer states in host memory");
  return TRUE;
}

/* The largest d <= limit dividing both a and b (1 when none larger). */
static int
common_divisor_at_most (gint64 a, gint64 b, gint64 limit)
{
  for (gint64 d = MIN (MIN (a, b), limit); d > 1; d--)
    if (a % d == 0 && b % d == 0)
      return (int) d;
  return 1;
}

/* Expert parallelism spreads the routed experts over more ranks of the same pipeline
 * stage: each holds E / ep of them (their weights, gradients and optimizer states), the
 * tokens travel by all-to-all instead (Megatron-Core MoE parallel folding). Megatron
 * needs sequence parallelism with ep > 1 and tp > 1. */
static void
ep_to (Plan *p, int ep, GString *flags, GString *what)
{
  gboolean add_sp = p->tp > 1 && !p->sequence_parallel;
  p->ep = ep;
  if (add_sp)
    p->sequence_parallel = TRUE;
  g_string_append_printf (flags, "--expert-model-parallel-size %d%s", p->ep,
                          add_sp ? " --sequence-parallel" : "");
  g_string_append_printf (what, "spread the %d experts over %d GPUs (%d each)",
                          p->num_experts, p->ep, p->num_experts / p->ep);
}

static gboolean
fit_ep (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (p->num_experts <= 0 || p->ep * 2 > p->num_experts)
    return FALSE;
  ep_to (p, p->ep * 2, flags, what);
  return TRUE;
}

static gboolean
fit_ep_max (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (p->num_experts <= 0)
    return FALSE;
  /* etp x ep must divide the tp x cp x dp ranks of a stage, ep the experts */
  /* a stage's ranks as the changes leave them (dp is derived again only on resolve) */
  gint64 ranks = (p->world_size > 0 && p->pp > 0 ? (gint64) p->world_size / p->pp
                                                 : (gint64) p->tp * p->cp * p->dp)
                 / MAX (p->etp, 1);
  int ep = common_divisor_at_most (p->num_experts, ranks, p->num_experts);
  if (ep <= p->ep * 2)   /* doubling says it already */
    return FALSE;
  ep_to (p, ep, flags, what);
  return TRUE;
}

static gboolean
fit_etp (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  /* expert tensor parallelism splits each expert's matrices; like tp it stays inside a
   * server */
  int etp = MAX (p->etp, 1);
  if (p->num_experts <= 0 || (guint64) etp * 2 > topo_cluster_level_size (cluster, 0))
    return FALSE;
  p->etp = etp * 2;
  g_string_append_printf (flags, "--expert-tensor-parallel-size %d", p->etp);
  g_string_append_printf (what, "split each expert over %d GPUs", p->etp);
  return TRUE;
}

/* The changes, with a group: two changes of one group never combine. Their cost in step
 * time is not ranked by hand: every suggestion that fits is simulated and the list is
 * ordered by the simulated step time (cli-fit.h). `timed` is FALSE for a change whose
 * cost the step program does not model: optimizer offload (the host's optimizer step and
 * the PCIe copies are not simulated), which is then listed after the simulated ones. */
typedef struct {
  FitApply apply;
  int      group;
  gboolean timed;
} FitChange;

enum { GROUP_RECOMPUTE, GROUP_SHARD, GROUP_TP, GROUP_SP, GROUP_PP, GROUP_CP, GROUP_MBS,
       GROUP_OFFLOAD, GROUP_EP, GROUP_ETP };

static const FitChange changes[] = {
  { fit_sp, GROUP_SP, TRUE },
  { fit_zero1, GROUP_SHARD, TRUE },
  { fit_zero2, GROUP_SHARD, TRUE },
  { fit_recompute_selective, GROUP_RECOMPUTE, TRUE },
  { fit_mbs, GROUP_MBS, TRUE },
  { fit_tp, GROUP_TP, TRUE },
  { fit_cp, GROUP_CP, TRUE },
  { fit_pp, GROUP_PP, TRUE },
  { fit_zero3, GROUP_SHARD, TRUE },
  { fit_recompute_full, GROUP_RECOMPUTE, TRUE },
  { fit_offload, GROUP_OFFLOAD, FALSE },
  { fit_ep, GROUP_EP, TRUE },
  { fit_ep_max, GROUP_EP, TRUE },
  { fit_etp, GROUP_ETP, TRUE },
};
#define N_CHANGES ((guint) G_N_ELEMENTS (changes))

static void
suggestion_clear (gpointer data)
{
  CliFitSuggestion *s = data;
  g_free (s->flags);
  g_free (s->what);
}

/* Applies the changes in `mask` (bit i = changes[i]) to a copy of `base`, in table order;
 * on success the copy is resolved, its memory computed into *mem, and TRUE returned
 * (mem then to be cleared by the caller). */
static gboolean
try_changes (const ModelSpec *model, const Plan *base, const TopoCluster *cluster,
             const FwStack *stack, const SimOptions *opts, guint mask, PlanMemory *mem,
             GString *flags, GString *what, Plan *out)
{
  Plan p;
  plan_copy (&p, base);
  p.dp_given = 0;   /* dp follows the changed degrees */
  gboolean ok = TRUE;
  /* the degrees first (tp, sp, pp, cp, mbs), then what reads them: ZeRO's group and the
   * largest ep are of the changed degrees (a combination said "over dp 32" for the dp x
   * cp of 16 its tp 4 and cp 2 left) */
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < N_CHANGES && ok; i++)
      {
        const int g = changes[i].group;
        const gboolean degree = g == GROUP_TP || g == GROUP_SP || g == GROUP_PP
                                || g == GROUP_CP || g == GROUP_MBS;
        if (!(mask & (1u << i)) || degree != (pass == 0))
          continue;
        if (flags->len > 0)
          g_string_append_c (flags, ' ');
        if (what->len > 0)
          g_string_append (what, "; ");
        ok = changes[i].apply (&p, cluster, flags, what);
      }
  ok = ok && plan_resolve (&p, model, cluster, NULL);
  /* the stack as predict applies it: what it refuses (ZeRO-1 as the distributed
   * optimizer under torchtitan, pp on pytorch-fsdp: suggested, then refused by the same
   * command), the schedule it runs where none was chosen (maxtext's GPipe: its pp 2 was
   * costed as 1F1B, 108 GiB against 249), the overlaps it always runs */
  if (ok && stack != NULL)
    ok = plan_adopt_stack (&p, stack, NULL) && plan_resolve (&p, model, cluster, NULL)
         && plan_check_stack_model (&p, model, stack, NULL);
  if (ok && opts != NULL)
    sim_plan_apply_stack (&p, &opts->cost);
  /* the flags reproduce the plan evaluated: a MoE plan keeps its resolved expert TP
   * degree when a change moves tp, and pasted without it the expert TP would follow the
   * new tp (Megatron's default) into another plan, often one that does not fold
   * (mixtral-8x7b on 8 GPUs at ep 8: "--tp 2" alone is etp 2 x ep 8 = 16 ranks) */
  if (ok && p.num_experts > 0 && p.etp > 0 && p.etp != p.tp
      && strstr (flags->str, "--expert-tensor-parallel-size") == NULL)
    g_string_append_printf (flags, " --expert-tensor-parallel-size %d", p.etp);
  /* ... and the batch it keeps: a global batch derived from the plan (no --gbs) would be
   * derived again from the changed dp or micro-batch when pasted (llama3-8b on 8 GPUs:
   * "--pp 2" alone runs gbs 4, not the 8 it was costed with) */
  if (ok && base->global_batch_derived)
    {
      const gint64 again = (gint64) (p.local_batch > 0 ? p.local_batch : p.micro_batch) * p.dp;
      if (again != p.global_batch)
        g_string_append_printf (flags, " --global-batch-size %d", p.global_batch);
    }
  if (ok)
    plan_memory_compute (model, &p, cluster, mem);
  if (ok && out != NULL)
    plan_copy (out, &p);
  plan_clear (&p);
  return ok;
}

/* Simulates a resolved plan that fits: TRUE with its step time and tokens/s. */
static gboolean
simulate (const ModelSpec *model, const Plan *plan, const TopoCluster *cluster,
          const SimOptions *opts, double *step_s, double *tokens_s)
{
  *step_s = *tokens_s = NAN;
  if (opts == NULL)
    return FALSE;
  SimOptions o = *opts;
  o.keep_timeline = FALSE;   /* a trace is of the plan asked for, not of a suggestion */
  g_autoptr (SimPrediction) pred = sim_predict (model, plan, cluster, &o, NULL);
  if (pred == NULL || !isfinite (pred->result->step_time_s))
    return FALSE;
  *step_s = pred->result->step_time_s;
  *tokens_s = pred->result->tokens_per_s;
  return TRUE;
}

/* Simulated first, fastest first; then fitting but not simulated; then the rest; each
 * of the last two by peak. */
static gint
by_speed_then_peak (gconstpointer a, gconstpointer b)
{
  const CliFitSuggestion *x = a, *y = b;
  int cx = x->simulated ? 0 : x->fits ? 1 : 2, cy = y->simulated ? 0 : y->fits ? 1 : 2;
  if (cx != cy)
    return cx < cy ? -1 : 1;
  if (cx == 0 && x->step_time_s != y->step_time_s)
    return x->step_time_s < y->step_time_s ? -1 : 1;
  return x->peak_bytes < y->peak_bytes ? -1 : x->peak_bytes > y->peak_bytes;
}

/* Whether every change of `mask` has a modelled step time. */
static gboolean
mask_timed (guint mask)
{
  for (guint i = 0; i < N_CHANGES; i++)
    if ((mask & (1u << i)) && !changes[i].timed)
      return FALSE;
  return TRUE;
}

static void
add_suggestion (GArray *out, const ModelSpec *model, const Plan *changed,
                const TopoCluster *cluster, const SimOptions *opts, guint mask,
                const PlanMemory *before, const PlanMemory *after, const char *flags,
                GString *what, const char *prefix)
{
  if (after->fits && !mask_timed (mask))
    g_string_append (what, " (step time not modelled: the host optimizer step and its "
                     "copies are not simulated)");
  CliFitSuggestion s = { g_strdup (flags), g_strconcat (prefix, what->str, NULL),
                         after->peak_bytes, (gint64) (before->peak_bytes - after->peak_bytes),
                         after->peak_stage, after->fits, FALSE, NAN, NAN };
  if (after->fits && mask_timed (mask))
    s.simulated = simulate (model, changed, cluster, opts, &s.step_time_s, &s.tokens_per_s);
  g_array_append_val (out, s);
}

GArray *
cli_fit_suggestions (const ModelSpec *model, const Plan *plan, const TopoCluster *cluster,
                     const PlanMemory *mem, const SimOptions *opts, const FwStack *stack)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (CliFitSuggestion));
  g_array_set_clear_func (out, suggestion_clear);
  gboolean any_fits = FALSE;
  for (guint i = 0; i < N_CHANGES; i++)
    {
      PlanMemory m;
      Plan changed;
      g_autoptr (GString) flags = g_string_new (NULL);
      g_autoptr (GString) what = g_string_new (NULL);
      if (!try_changes (model, plan, cluster, stack, opts, 1u << i, &m, flags, what,
                        &changed))
        continue;
      if (m.peak_bytes < mem->peak_bytes)
        {
          add_suggestion (out, model, &changed, cluster, opts, 1u << i, mem, &m, flags->str,
                          what, "");
          any_fits |= m.fits;
        }
      plan_memory_clear (&m);
      plan_clear (&changed);
    }
  if (!any_fits && out->len > 0)
    {
      /* No single change fits: the combinations of two changes (of different groups),
       * else of three, that fit; of those the fastest simulated (without options, the
       * lowest peak). 14 changes give 455 combinations of up to three, each a
       * plan_resolve and a memory computation (microseconds); only those that fit are
       * simulated. */
      for (int n = 2; n <= 3; n++)
        {
          guint best = 0;
          double best_step = INFINITY;
          guint64 best_peak = 0;
          for (guint mask = 1; mask < (1u << N_CHANGES); mask++)
            {
              if (__builtin_popcount (mask) != n)
                continue;
              guint groups = 0;
              gboolean clash = FALSE;
              for (guint i = 0; i < N_CHANGES; i++)
                if (mask & (1u << i))
                  {
                    clash |= (groups & (1u << changes[i].group)) != 0;
                    groups |= 1u << changes[i].group;
                  }
              if (clash)
                continue;
              PlanMemory m;
              Plan changed;
              g_autoptr (GString) flags = g_string_new (NULL);
              g_autoptr (GString) what = g_string_new (NULL);
              if (!try_changes (model, plan, cluster, stack, opts, mask, &m, flags, what,
                                &changed))
                continue;
              if (m.fits)
                {
                  double step = INFINITY, tokens;
                  if (!mask_timed (mask)
                      || !simulate (model, &changed, cluster, opts, &step, &tokens))
                    step = INFINITY;
                  if (best == 0 || step < best_step
                      || (step == best_step && m.peak_bytes < best_peak))
                    best = mask, best_step = step, best_peak = m.peak_bytes;
                }
              plan_memory_clear (&m);
              plan_clear (&changed);
            }
          if (best == 0)
            continue;
          PlanMemory m;
          Plan changed;
          g_autoptr (GString) flags = g_string_new (NULL);
          g_autoptr (GString) what = g_string_new (NULL);
          if (try_changes (model, plan, cluster, stack, opts, best, &m, flags, what, &changed))
            {
              add_suggestion (out, model, &changed, cluster, opts, best, mem, &m,
                              flags->str, what, "together: ");
              plan_memory_clear (&m);
              plan_clear (&changed);
            }
          break;
        }
    }
  g_array_sort (out, by_speed_then_peak);
  return out;
}

void
cli_fit_print (const GArray *sugg, const PlanMemory *mem, const char *indent)
{
  if (sugg->len == 0)
    {
      printf ("%sno change of recompute, sharding, tp, sequence parallelism, pp, cp, "
              "micro-batch, offload or expert parallelism lowers the peak (hint: tandem search finds plans that fit)\n", indent);
      return;
    }
  printf ("%swhat would fit (each change to this plan, memory computed again; those that "
          "fit simulated, fastest first):\n", indent);
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "change", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "peak", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "saves", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "verdict", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "step s", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "tokens/s", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "what it does", CLI_ALIGN_LEFT);
  for (guint i = 0; i < sugg->len; i++)
    {
      const CliFitSuggestion *s = &g_array_index (sugg, CliFitSuggestion, i);
      cli_table_add_row (t);
      cli_table_cell (t, "%s", s->flags);
      cli_table_cell (t, "%s", cli_fmt_bytes ((double) s->peak_bytes));
      cli_table_cell (t, "%s", cli_fmt_bytes ((double) s->saved_bytes));
      cli_table_cell (t, "%s", s->fits ? "fits" : "OOM");
      if (s->simulated)
        {
          cli_table_cell (t, "%.3f", s->step_time_s);
          cli_table_cell (t, "%s", cli_fmt_count ((guint64) llround (s->tokens_per_s)));
        }
      else
        {
          cli_table_cell (t, "-");
          cli_table_cell (t, "-");
        }
      cli_table_cell (t, "%s", s->what);
    }
  g_autofree char *inner = g_strconcat (indent, "  ", NULL);
  cli_table_print (t, stdout, inner);
}

void
cli_fit_to_json (const GArray *sugg, JsonObject *object)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_array (b);
  for (guint i = 0; i < sugg->len; i++)
    {
      const CliFitSuggestion *s = &g_array_index (sugg, CliFitSuggestion, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "flags");
      json_builder_add_string_value (b, s->flags);
      json_builder_set_member_name (b, "what");
      json_builder_add_string_value (b, s->what);
      json_builder_set_member_name (b, "peak_bytes");
      json_builder_add_int_value (b, (gint64) s->peak_bytes);
      json_builder_set_member_name (b, "saved_bytes");
      json_builder_add_int_value (b, s->saved_bytes);
      json_builder_set_member_name (b, "peak_stage");
      json_builder_add_int_value (b, s->peak_stage);
      json_builder_set_member_name (b, "fits");
      json_builder_add_boolean_value (b, s->fits);
      util_json_member_number (b, "step_time_s", s->step_time_s);
      util_json_member_number (b, "tokens_per_s", s->tokens_per_s);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_object_set_member (object, "fit_suggestions", json_builder_get_root (b));
}
