/* cli/cli-fit.c - suggestions for a plan that does not fit: each change applied to a copy
 * of the plan, resolved and measured by the same memory model as the verdict. */
#include "cli/cli-fit.h"
#include "cli/cli-table.h"

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

static gboolean
fit_shard (Plan *p, PlanSharding to)
{
  /* sharding over dp = 1 saves nothing; HSDP is already ZeRO-3 within its groups */
  if (p->dp <= 1 || p->sharding >= to || p->sharding == PLAN_SHARD_HSDP)
    return FALSE;
  p->sharding = to;
  return TRUE;
}

static gboolean
fit_zero1 (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (!fit_shard (p, PLAN_SHARD_ZERO1))
    return FALSE;
  g_string_append (flags, "--use-distributed-optimizer");
  g_string_append_printf (what, "shard optimizer states over dp %d (ZeRO-1)", p->dp);
  return TRUE;
}

static gboolean
fit_zero2 (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (!fit_shard (p, PLAN_SHARD_ZERO2))
    return FALSE;
  g_string_append (flags, "--sharding zero2");
  g_string_append_printf (what, "shard optimizer states and gradients over dp %d (ZeRO-2)",
                          p->dp);
  return TRUE;
}

static gboolean
fit_zero3 (Plan *p, const TopoCluster *cluster, GString *flags, GString *what)
{
  if (!fit_shard (p, PLAN_SHARD_ZERO3))
    return FALSE;
  g_string_append (flags, "--sharding zero3");
  g_string_append_printf (what, "shard parameters too over dp %d (ZeRO-3 / FSDP)", p->dp);
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

/* The changes, with a group (two changes of one group never combine) and a rank of what
 * they usually cost in step time, cheapest first, used only to choose among combinations
 * that fit: sequence parallelism replaces the all-reduce by a reduce-scatter and an
 * all-gather of the same volume (Korthikanti et al. 2022, section 4.2.2); ZeRO-1 and -2
 * move the same bytes as DDP's all-reduce (Rajbhandari et al. 2020, section 7); selective
 * recompute adds ~2.7% of FLOPs and smaller micro-batches shorten GEMMs (Korthikanti
 * et al., table 4); more tp/cp/pp add communication or bubble; ZeRO-3 gathers the
 * parameters again (1.5x DDP's volume, ZeRO section 7.2.2); full recompute adds a
 * forward (~33% of FLOPs); offload moves the optimizer step to the host. */
typedef struct {
  FitApply apply;
  int      group;
  int      cost;
} FitChange;

enum { GROUP_RECOMPUTE, GROUP_SHARD, GROUP_TP, GROUP_SP, GROUP_PP, GROUP_CP, GROUP_MBS,
       GROUP_OFFLOAD };

static const FitChange changes[] = {
  { fit_sp, GROUP_SP, 1 },
  { fit_zero1, GROUP_SHARD, 1 },
  { fit_zero2, GROUP_SHARD, 2 },
  { fit_recompute_selective, GROUP_RECOMPUTE, 2 },
  { fit_mbs, GROUP_MBS, 3 },
  { fit_tp, GROUP_TP, 4 },
  { fit_cp, GROUP_CP, 4 },
  { fit_pp, GROUP_PP, 4 },
  { fit_zero3, GROUP_SHARD, 5 },
  { fit_recompute_full, GROUP_RECOMPUTE, 6 },
  { fit_offload, GROUP_OFFLOAD, 7 },
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
             guint mask, PlanMemory *mem, GString *flags, GString *what)
{
  Plan p;
  plan_copy (&p, base);
  p.dp_given = 0;   /* dp follows the changed degrees */
  gboolean ok = TRUE;
  for (guint i = 0; i < N_CHANGES && ok; i++)
    if (mask & (1u << i))
      {
        if (flags->len > 0)
          g_string_append_c (flags, ' ');
        if (what->len > 0)
          g_string_append (what, "; ");
        ok = changes[i].apply (&p, cluster, flags, what);
      }
  ok = ok && plan_resolve (&p, model, cluster, NULL);
  if (ok)
    plan_memory_compute (model, &p, cluster, mem);
  plan_clear (&p);
  return ok;
}

static gint
by_peak (gconstpointer a, gconstpointer b)
{
  const CliFitSuggestion *x = a, *y = b;
  return x->peak_bytes < y->peak_bytes ? -1 : x->peak_bytes > y->peak_bytes;
}

GArray *
cli_fit_suggestions (const ModelSpec *model, const Plan *plan, const TopoCluster *cluster,
                     const PlanMemory *mem)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (CliFitSuggestion));
  g_array_set_clear_func (out, suggestion_clear);
  gboolean any_fits = FALSE;
  for (guint i = 0; i < N_CHANGES; i++)
    {
      PlanMemory m;
      g_autoptr (GString) flags = g_string_new (NULL);
      g_autoptr (GString) what = g_string_new (NULL);
      if (!try_changes (model, plan, cluster, 1u << i, &m, flags, what))
        continue;
      if (m.peak_bytes < mem->peak_bytes)
        {
          CliFitSuggestion s = { g_strdup (flags->str), g_strdup (what->str), m.peak_bytes,
                                 (gint64) (mem->peak_bytes - m.peak_bytes), m.peak_stage,
                                 m.fits };
          any_fits |= m.fits;
          g_array_append_val (out, s);
        }
      plan_memory_clear (&m);
    }
  if (!any_fits && out->len > 0)
    {
      /* No single change fits: the combination of two or three changes (of different
       * groups) that fits with the fewest changes, then the lowest summed cost rank, then
       * the lowest peak. 11 changes give 220 combinations, each a plan_resolve and a
       * memory computation (microseconds). */
      guint best = 0;
      int best_n = 0, best_cost = 0;
      guint64 best_peak = 0;
      int best_stage = 0;
      for (guint mask = 1; mask < (1u << N_CHANGES); mask++)
        {
          int n = __builtin_popcount (mask);
          if (n < 2 || n > 3)
            continue;
          guint groups = 0;
          int cost = 0;
          gboolean clash = FALSE;
          for (guint i = 0; i < N_CHANGES; i++)
            if (mask & (1u << i))
              {
                clash |= (groups & (1u << changes[i].group)) != 0;
                groups |= 1u << changes[i].group;
                cost += changes[i].cost;
              }
          if (clash)
            continue;
          if (best != 0 && (n > best_n || (n == best_n && cost > best_cost)))
            continue;
          PlanMemory m;
          g_autoptr (GString) flags = g_string_new (NULL);
          g_autoptr (GString) what = g_string_new (NULL);
          if (!try_changes (model, plan, cluster, mask, &m, flags, what))
            continue;
          gboolean better = best == 0 || n < best_n
                            || (n == best_n && (cost < best_cost
                                                || (cost == best_cost
                                                    && m.peak_bytes < best_peak)));
          if (m.fits && better)
            best = mask, best_n = n, best_cost = cost, best_peak = m.peak_bytes,
            best_stage = m.peak_stage;
          plan_memory_clear (&m);
        }
      if (best != 0)
        {
          PlanMemory m;
          g_autoptr (GString) flags = g_string_new (NULL);
          g_autoptr (GString) what = g_string_new (NULL);
          if (try_changes (model, plan, cluster, best, &m, flags, what))
            {
              CliFitSuggestion s = { g_strdup (flags->str),
                                     g_strconcat ("together: ", what->str, NULL), m.peak_bytes,
                                     (gint64) (mem->peak_bytes - m.peak_bytes), best_stage,
                                     m.fits };
              g_array_append_val (out, s);
              plan_memory_clear (&m);
            }
        }
    }
  g_array_sort (out, by_peak);
  return out;
}

void
cli_fit_print (const GArray *sugg, const PlanMemory *mem, const char *indent)
{
  if (sugg->len == 0)
    {
      printf ("%sno change of recompute, sharding, tp, sequence parallelism, pp, cp, "
              "micro-batch or offload lowers the peak (hint: tandem search finds plans that fit)\n", indent);
      return;
    }
  printf ("%swhat would fit (each change to this plan, memory computed again):\n", indent);
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "change", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "peak", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "saves", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "verdict", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "what it does", CLI_ALIGN_LEFT);
  for (guint i = 0; i < sugg->len; i++)
    {
      const CliFitSuggestion *s = &g_array_index (sugg, CliFitSuggestion, i);
      cli_table_add_row (t);
      cli_table_cell (t, "%s", s->flags);
      cli_table_cell (t, "%s", cli_fmt_bytes ((double) s->peak_bytes));
      cli_table_cell (t, "%s", cli_fmt_bytes ((double) s->saved_bytes));
      cli_table_cell (t, "%s", s->fits ? "fits" : "OOM");
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
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_object_set_member (object, "fit_suggestions", json_builder_get_root (b));
}
