/* plan/plan-validate.c - derive what a plan leaves implicit and refuse what cannot run.
 *
 * Every message says what is wrong with the numbers involved and, after "hint:", how to
 * fix it, on one line (the CLI prints it and exits with status 2). */
#include "plan/plan.h"

#include <stdarg.h>

static gboolean G_GNUC_PRINTF (2, 3)
invalid (GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error_literal (error, PLAN_ERROR, PLAN_ERROR_INVALID, msg);
  return FALSE;
}

/* Largest divisor of n that is <= limit (for hints). */
static int
largest_divisor_at_most (int n, int limit)
{
  for (int d = MIN (n, limit); d > 1; d--)
    if (n % d == 0)
      return d;
  return 1;
}

/* Greatest common divisor (for hints); gcd64 (n, 0) = n. */
static gint64
gcd64 (gint64 a, gint64 b)
{
  while (b != 0)
    {
      gint64 t = a % b;
      a = b;
      b = t;
    }
  return a;
}

/* The caps of plan.h and model.h, checked before any two flags are multiplied: after
 * this every degree is <= 2^20, every layer count <= 4,096 and every batch figure fits
 * the products below in 64 bits. */
static gboolean
check_limits (const Plan *plan, const ModelSpec *model, GError **error)
{
  static const char world_why[] = "about 10x the largest GPU cluster built";
  const struct { const char *what; int v; } degrees[] = {
    { "--gpus", plan->world_size }, { "--tp", plan->tp }, { "--pp", plan->pp },
    { "--cp", plan->cp }, { "--ep", plan->ep }, { "--dp", plan->dp_given },
    { "--data-parallel-replicate-degree", plan->dp_replicate },
    { "the HSDP shard-group size", plan->hsdp_shard_size },
  };
  for (guint i = 0; i < G_N_ELEMENTS (degrees); i++)
    if (degrees[i].v > PLAN_MAX_WORLD)
      return invalid (error, "%s %d is above the cap of %d GPUs (%s) (hint: a degree is at "
                      "most the number of GPUs)", degrees[i].what, degrees[i].v,
                      PLAN_MAX_WORLD, world_why);

  /* every model chunk holds at least one layer slot: a transformer layer, or the
   * embedding / the loss when they are accounted in the split; the model has at most
   * 4,096 layers */
  const gint64 L = (gint64) model->n_layers;
  const gint64 chunks = (gint64) plan->pp * plan->vpp;
  const gint64 slots = L + (plan->account_embedding ? 1 : 0) + (plan->account_loss ? 1 : 0);
  if (plan->vpp > 1 && chunks > slots && slots == L)
    return invalid (error, "pp x vpp = %d x %d = %" G_GINT64_FORMAT " model chunks, more than "
                    "the %" G_GINT64_FORMAT " layers of %s (each chunk holds at least one "
                    "layer) (hint: --vpp %" G_GINT64_FORMAT " at most, or "
                    "--account-for-embedding-in-pipeline-split / "
                    "--account-for-loss-in-pipeline-split for a chunk holding only the "
                    "embedding / the loss)", plan->pp, plan->vpp, chunks, L, model->name,
                    MAX (L / plan->pp, 1));
  if (plan->vpp > 1 && chunks > slots)
    return invalid (error, "pp x vpp = %d x %d = %" G_GINT64_FORMAT " model chunks, more than "
                    "the %" G_GINT64_FORMAT " layer slots of %s (its layers, the embedding "
                    "and/or the loss accounted in the split; each chunk holds at least one) "
                    "(hint: --vpp %" G_GINT64_FORMAT " at most)", plan->pp, plan->vpp, chunks,
                    slots, model->name, MAX (slots / plan->pp, 1));
  const struct { const char *what; int v; } layer_counts[] = {
    { "--num-layers-per-virtual-pipeline-stage", plan->layers_per_virtual_stage },
    { "--decoder-first-pipeline-num-layers", plan->first_stage_layers },
    { "--decoder-last-pipeline-num-layers", plan->last_stage_layers },
    { "--first-chunk-layers", plan->first_chunk_layers },
    { "--last-chunk-layers", plan->last_chunk_layers },
    { "--recompute-num-layers", plan->recompute_num_layers },
  };
  for (guint i = 0; i < G_N_ELEMENTS (layer_counts); i++)
    if (layer_counts[i].v > L)
      return invalid (error, "%s %d exceeds the %" G_GINT64_FORMAT " layers of %s (hint: at "
                      "most %" G_GINT64_FORMAT ")", layer_counts[i].what, layer_counts[i].v, L,
                      model->name, L);
  if (plan->vpp_group > PLAN_MAX_MICROBATCHES)
    return invalid (error, "--microbatch-group-size-per-virtual-pipeline-stage %d is above the "
                    "cap of %d micro-batches per step (hint: at most --pp micro-batches are "
                    "needed)", plan->vpp_group, PLAN_MAX_MICROBATCHES);
  if (plan->seq_length > PLAN_MAX_SEQ)
    return invalid (error, "--seq-length %d is above the cap of %d tokens (16M: far beyond "
                    "any training context, and it keeps the simulated time and the token "
                    "counts exact) (hint: --seq-length %d at most)", plan->seq_length,
                    PLAN_MAX_SEQ, PLAN_MAX_SEQ);
  return TRUE;
}

/* Megatron-Core's uneven stage split (get_num_layers_to_build): the first (last)
 * pipeline stage holds --decoder-first (last)-pipeline-num-layers over all its model
 * chunks, the middle stages share the rest evenly, and every stage's layers split evenly
 * over its vpp chunks (Megatron asserts both). */
static gboolean
resolve_stage_split (Plan *plan, const ModelSpec *model, GError **error)
{
  int L = (int) model->n_layers, pp = plan->pp, v = plan->vpp;
  int first = plan->first_stage_layers, last = plan->last_stage_layers;
  int given = (first >= 0) + (last >= 0);
  int given_layers = MAX (first, 0) + MAX (last, 0);
  if (pp < 2)
    return invalid (error, "--decoder-first/last-pipeline-num-layers need at least 2 "
                    "pipeline stages (pp = %d) (hint: drop them or raise --pp)", pp);
  if (first == 0 || last == 0)
    /* Megatron-Core's TransformerConfig raises on 0 ("must be larger than 0") */
    return invalid (error, "--decoder-%s-pipeline-num-layers 0 leaves the %s pipeline stage "
                    "without a layer, which Megatron-Core refuses (hint: at least 1; for a "
                    "%s chunk that holds only the %s, --account-for-%s-in-pipeline-split)",
                    first == 0 ? "first" : "last", first == 0 ? "first" : "last",
                    first == 0 ? "first" : "last", first == 0 ? "embedding" : "loss",
                    first == 0 ? "embedding" : "loss");
  if (given_layers > L)
    return invalid (error, "first + last stage layers = %d exceed the model's %d layers",
                    given_layers, L);
  int rest = L - given_layers, n_rest = pp - given;
  if (n_rest == 0 && rest != 0)
    return invalid (error, "first + last stage layers = %d but the model has %d layers "
                    "(hint: they must add up when pp = 2)", given_layers, L);
  if (n_rest > 0 && rest % n_rest != 0)
    return invalid (error, "after the first/last stage layers, %d layers remain for %d "
                    "pipeline stages, which does not divide (hint: adjust "
                    "--decoder-first/last-pipeline-num-layers so that %d - first - last "
                    "is a multiple of %d)", rest, n_rest, L, n_rest);
  int middle = n_rest > 0 ? rest / n_rest : 0;
  const struct { const char *flag, *which; int n; } stages[] = {
    { "--decoder-first-pipeline-num-layers", "first-chunk", first },
    { "--decoder-last-pipeline-num-layers", "last-chunk", last },
  };
  for (guint i = 0; i < G_N_ELEMENTS (stages); i++)
    if (stages[i].n >= 0 && stages[i].n % v != 0)
      {
        /* the hint: the nearest counts (by total distance) that make the whole split
         * work, moving only a given count that does not divide by v */
        int bf = -1, bl = -1;
        const gboolean vary_f = first >= 0 && first % v != 0;
        const gboolean vary_l = last >= 0 && last % v != 0;
        for (int d = 0; d <= 2 * L && bf < 0; d++)
          for (int df = -d; df <= d && bf < 0; df++)
            {
              int dl = d - abs (df);
              if ((!vary_f && df != 0) || (!vary_l && dl != 0))
                continue;
              for (int sl = -1; sl <= 1 && bf < 0; sl += 2)
                {
                  int cf = first >= 0 ? first + df : -1, cl = last >= 0 ? last + sl * dl : -1;
                  if ((first >= 0 && (cf <= 0 || cf % v != 0))
                      || (last >= 0 && (cl <= 0 || cl % v != 0)))
                    continue;
                  int r = L - MAX (cf, 0) - MAX (cl, 0);
                  if (r < 0)
                    continue;
                  if (n_rest == 0 ? r == 0
                      : r % n_rest == 0 && r / n_rest > 0 && (r / n_rest) % v == 0)
                    bf = MAX (cf, 0), bl = cl;
                  if (dl == 0)
                    break;
                }
            }
        g_autofree char *how = NULL;
        if (bf < 0)
          how = g_strdup_printf ("counts that divide by %d", v);
        else if (first >= 0 && last >= 0)
          how = g_strdup_printf ("--decoder-first-pipeline-num-layers %d "
                                 "--decoder-last-pipeline-num-layers %d", bf, bl);
        else
          how = g_strdup_printf ("%s %d", stages[i].flag, first >= 0 ? bf : bl);
        return invalid (error, "%s %d is the %s pipeline stage's layers over its %d model "
                        "chunks, which Megatron-Core splits evenly: %d does not divide by "
                        "--vpp %d (hint: %s)", stages[i].flag, stages[i].n,
                        i == 0 ? "first" : "last", v, stages[i].n, v, how);
      }
  if (n_rest > 0 && middle % v != 0)
    return invalid (error, "the %d middle pipeline stages hold %d layers each, which does "
                    "not divide into --vpp %d model chunks (Megatron-Core splits each "
                    "stage's layers evenly over its chunks) (hint: adjust "
                    "--decoder-first/last-pipeline-num-layers or --vpp)", n_rest, middle, v);
  if (n_rest > 0 && middle == 0 && given == 1)
    return invalid (error, "--decoder-%s-pipeline-num-layers %d takes all %d layers, leaving "
                    "none for the other %d pipeline stage%s (hint: at most %d, %d layer%s for "
                    "each of them)", first >= 0 ? "first" : "last", given_layers, L, n_rest,
                    n_rest == 1 ? "" : "s", L - n_rest * v, v, v == 1 ? "" : "s");
  if (n_rest > 0 && middle == 0)
    return invalid (error, "first + last stage layers = %d take all %d layers, leaving "
                    "none for the %d middle pipeline stage%s (hint: fewer first/last layers, "
                    "or lower --pp)", given_layers, L, n_rest, n_rest == 1 ? "" : "s");
  return TRUE;
}

static gboolean
resolve_layers (Plan *plan, const ModelSpec *model, GError **error)
{
  int L = (int) model->n_layers;
  int chunks = plan->pp * plan->vpp;   /* <= 4,096 x 2^20: check_limits */
  int given = 0, given_layers = 0;
  gboolean stage_split = plan->first_stage_layers >= 0 || plan->last_stage_layers >= 0;
  gboolean chunk_split = plan->first_chunk_layers >= 0 || plan->last_chunk_layers >= 0;
  if (plan->first_chunk_layers >= 0)
    given++, given_layers += plan->first_chunk_layers;
  if (plan->last_chunk_layers >= 0)
    given++, given_layers += plan->last_chunk_layers;

  if (stage_split && chunk_split)
    return invalid (error, "--decoder-first/last-pipeline-num-layers (a pipeline stage's "
                    "layers) and --first/last-chunk-layers (a model chunk's) are two ways "
                    "to split unevenly (hint: keep one of the two)");
  if (plan->account_embedding || plan->account_loss)
    {
      given += stage_split;
      /* Megatron-Core (get_num_layers_to_build, TransformerConfig): the accounted split
       * is an even split of L + 1 (+ 1) slots and excludes the uneven first/last one */
      int slots = L + (plan->account_embedding ? 1 : 0) + (plan->account_loss ? 1 : 0);
      if (given > 0)
        return invalid (error, "--account-for-embedding/loss-in-pipeline-split cannot be "
                        "combined with --decoder-first/last-pipeline-num-layers (Megatron-Core "
                        "refuses it too) or --first/last-chunk-layers (hint: drop one of the "
                        "two)");
      if (slots % chunks != 0)
        return invalid (error, "%d layers + %d accounted slot%s (embedding, loss) = %d do not "
                        "divide into pp x vpp = %d x %d = %d model chunks (hint: choose pp x "
                        "vpp dividing %d)", L, slots - L, slots - L == 1 ? "" : "s", slots,
                        plan->pp, plan->vpp, chunks, slots);
      return TRUE;
    }
  if (stage_split)
    return resolve_stage_split (plan, model, error);
  if (given > 0 && chunks < 2)
    return invalid (error, "--first/last-chunk-layers need at least 2 model chunks (pp x "
                    "vpp = %d x %d) (hint: drop them or raise --pp)", plan->pp, plan->vpp);
  if (given_layers > L)
    return invalid (error, "first + last chunk layers = %d exceed the model's %d layers",
                    given_layers, L);
  int rest = L - given_layers, n_rest = chunks - given;
  if (n_rest == 0 && rest != 0)
    return invalid (error, "first + last chunk layers = %d but the model has %d layers "
                    "(hint: they must add up when pp x vpp = 2)", given_layers, L);
  if (n_rest > 0 && rest % n_rest != 0)
    {
      if (given == 0)
        {
          /* a split that works with this pp x vpp, as the hint: Megatron-Core's accounted
           * split where L + 2 slots divide (the embedding and the loss a layer slot each:
           * Llama 3's 126 + 2 = 128), else the uneven one with ceil(L / chunks) layers in
           * every middle chunk and the rest shared by the first and the last */
          g_autofree char *how = NULL;
          int q = (L + chunks - 1) / chunks, r = L - (chunks - 2) * q;
          if ((L + 2) % chunks == 0)
            how = g_strdup_printf ("--account-for-embedding-in-pipeline-split "
                                   "--account-for-loss-in-pipeline-split (%d + 2 = %d slots, "
                                   "%d a chunk)", L, L + 2, (L + 2) / chunks);
          else if (chunks >= 2 && r >= 2 && plan->vpp == 1)
            how = g_strdup_printf ("--decoder-first-pipeline-num-layers %d "
                                   "--decoder-last-pipeline-num-layers %d (%d a middle stage)",
                                   r / 2, r - r / 2, q);
          else if (chunks >= 2 && r >= 2)
            how = g_strdup_printf ("--first-chunk-layers %d --last-chunk-layers %d (%d a "
                                   "middle chunk)", r / 2, r - r / 2, q);
          return invalid (error, "%d layers do not divide into pp x vpp = %d x %d = %d "
                          "model chunks (hint: %s%s%schoose pp x vpp dividing %d)", L,
                          plan->pp, plan->vpp, chunks, how ? how : "",
                          how ? ", or " : "", "", L);
        }
      return invalid (error, "after the first/last chunk layers, %d layers remain for %d "
                      "model chunks, which does not divide (hint: adjust "
                      "--first/last-chunk-layers so that %d - first - last is a multiple "
                      "of %d)", rest, n_rest, L, n_rest);
    }
  /* here rest is a multiple of n_rest, so a chunk without a layer means rest = 0: the
   * given stages took every layer. With one of first/last given the chunks left are not
   * the middle ones (pp 2: the other end stage); "0 layers leave no layer for the middle
   * model chunks (hint: lower --pp or --vpp)" named neither the flag nor its bound */
  if (n_rest > 0 && rest / n_rest == 0)
    {
      if (given == 1)
        return invalid (error, "--%s-chunk-layers %d takes all %d layers, leaving none "
                        "for the other %d model chunk%s (hint: at most %d, a layer for each "
                        "of them)", plan->first_chunk_layers >= 0 ? "first" : "last",
                        given_layers, L, n_rest, n_rest == 1 ? "" : "s", L - n_rest);
      return invalid (error, "first + last chunk layers = %d take all %d layers, leaving "
                      "none for the %d middle model chunk%s (hint: fewer first/last layers, "
                      "or lower --pp or --vpp)", given_layers, L, n_rest,
                      n_rest == 1 ? "" : "s");
    }
  return TRUE;
}

/* Position of `axis` (one of "tp", "cp", "ep", "dp", "pp") in a rank order string, -1
 * when absent. */
static int
order_index (char **parts, const char *axis)
{
  for (int i = 0; parts[i]; i++)
    if (g_ascii_strcasecmp (parts[i], axis) == 0)
      return i;
  return -1;
}

/* MoE parallel folding (Megatron-Core, parallel_state.initialize_model_parallel): the
 * dense side decomposes the ranks as tp x cp x dp x pp (ep 1), the expert side as
 * etp x ep x edp x pp (cp 1), both in the plan's rank order, and the two must give every
 * rank the same pipeline stage (Megatron asserts that the pipeline groups of both
 * decompositions are equal). With pp outermost this always holds; otherwise the stages
 * are compared rank by rank. Returns the first rank where they differ, or -1. */
static gint64
fold_mismatch (const Plan *plan, int etp)
{
  g_auto (GStrv) parts = g_strsplit (plan->rank_order ? plan->rank_order : "tp-cp-ep-dp-pp",
                                     "-", -1);
  static const char *const names[] = { "tp", "cp", "ep", "dp", "pp" };
  const int dense[] = { plan->tp, plan->cp, 1, plan->dp, plan->pp };
  const int expert[] = { etp, 1, plan->ep, plan->edp, plan->pp };
  int idx[5];
  for (int a = 0; a < 5; a++)
    if ((idx[a] = order_index (parts, names[a])) < 0)
      return -1;   /* a bad order string is the layout's message */
  guint64 sd = 1, se = 1, stride_d = 0, stride_e = 0;
  for (int pos = 0; pos < 5; pos++)
    for (int a = 0; a < 5; a++)
      if (idx[a] == pos)
        {
          if (a == 4)
            stride_d = sd, stride_e = se;
          sd *= (guint64) dense[a];
          se *= (guint64) expert[a];
        }
  if (stride_d == stride_e)
    return -1;   /* the same stride and size: the same pipeline coordinate everywhere */
  for (gint64 r = 0; r < plan->world_size; r++)
    if ((guint64) r / stride_d % (guint64) plan->pp != (guint64) r / stride_e % (guint64) plan->pp)
      return r;
  return -1;
}

const char *
plan_moe_option_flag (const Plan *plan)
{
  return plan->moe_dispatcher != PLAN_MOE_ALLTOALL ? "--moe-token-dispatcher-type"
         : plan->moe_flex_backend != PLAN_MOE_FLEX_DEEPEP ? "--moe-flex-dispatcher-backend"
         : plan->moe_capacity_factor > 0              ? "--moe-expert-capacity-factor"
         : plan->moe_pad_to_capacity                  ? "--moe-pad-expert-input-to-capacity"
         : plan->moe_grouped_gemm                     ? "--moe-grouped-gemm"
         : plan->moe_shared_expert_overlap            ? "--moe-shared-expert-overlap"
         : plan->moe_a2a_overlap                      ? "--overlap-moe-expert-parallel-comm"
         : plan->moe_imbalance > 0                    ? "--moe-imbalance"
                                                      : NULL;
}

/* The expert side of the plan: experts, top-k, expert TP and EP against the model, and
 * the expert data-parallel size derived from the folding. */
static gboolean
resolve_moe (Plan *plan, const ModelSpec *model, GError **error)
{
  PlanMoe moe;
  plan_moe (plan, model, &moe);
  int etp = plan->etp > 0 ? plan->etp : plan->tp;   /* Megatron: ETP defaults to TP */
  if (moe.experts == 0)
    {
      if (plan->ep > 1)
        return invalid (error, "--ep %d: expert parallelism needs a mixture-of-experts model, "
                        "and %s is dense (hint: drop --ep, or give --num-experts N to make "
                        "its MLPs experts)", plan->ep, model->name);
      if (plan->moe_topk > 0)
        return invalid (error, "--moe-router-topk %d needs a mixture-of-experts model, and %s "
                        "is dense (hint: drop it, or give --num-experts N)", plan->moe_topk,
                        model->name);
      if (plan->etp > 0 && plan->etp != plan->tp)
        return invalid (error, "--expert-tensor-parallel-size %d needs a mixture-of-experts "
                        "model, and %s is dense (hint: drop it)", plan->etp, model->name);
      if (plan->edp_given > 0)
        return invalid (error, "parallelism.expert_data_parallel_degree %d needs a "
                        "mixture-of-experts model, and %s is dense (hint: drop the key)",
                        plan->edp_given, model->name);
      /* the other MoE options change nothing on a dense model: refused as --ep and
       * --moe-router-topk are, so that the plan is what its flags say (they were ignored
       * with exit 0). The dispatcher and backend are refused where they differ from the
       * defaults (an explicit "alltoall" cannot be told from none); a stack sets the two
       * overlaps only where ep > 1 (plan-args.c) */
      const char *moe_flag = plan_moe_option_flag (plan);
      if (moe_flag != NULL)
        return invalid (error, "%s is an option of mixture-of-experts layers, and %s is dense "
                        "(hint: drop it, or give --num-experts N to make its MLPs experts)",
                        moe_flag, model->name);
      plan->edp = 0;
      return TRUE;
    }
  if (moe.top_k > moe.experts)
    return invalid (error, "--moe-router-topk %d is larger than the %d experts of %s (each "
                    "token picks k distinct experts) (hint: --moe-router-topk %d at most)",
                    moe.top_k, moe.experts, model->name, moe.experts);
  /* the default itself is capped, not refused: plan_to_json writes it for a plan that set
   * none, so a stored ep 1 run read back (report run) said "1.3 is more than routing can
   * give" and drew no timeline */
  /* whole experts a rank first: the bound below is 0 where ep is above the experts ("at
   * most 0 times the mean (hint: from 1 to 0)") */
  if (moe.experts % plan->ep != 0)
    return invalid (error, "ep = %d does not divide the %d experts of %s (each EP rank holds "
                    "experts / ep whole experts) (hint: --ep %d)", plan->ep, moe.experts,
                    model->name, largest_divisor_at_most (moe.experts, plan->ep));
  /* a typed value is checked whatever it is (--moe-imbalance 1.3, the default's value,
   * ran at the cap where 1.2 was refused) */
  const double imb_max = plan_moe_imbalance_max (plan->ep, moe.experts, moe.top_k);
  if (plan->moe_imbalance > 0 && !plan_moe_padded (plan)
      && (plan->moe_imbalance != PLAN_MOE_IMBALANCE_DEFAULT || plan->moe_imbalance_typed)
      && plan->moe_imbalance > imb_max + 1e-9)
    return invalid (error, "--moe-imbalance %.10g is more than routing can give: the busiest "
                    "of ep = %d ranks receives at most %.10g times the mean (ep x min(k, "
                    "experts / ep) / k with %d experts, top-%d) (hint: --moe-imbalance from 1 "
                    "to %.10g)", plan->moe_imbalance, plan->ep, imb_max, moe.experts,
                    moe.top_k, imb_max);
  if (moe.expert_ffn % (guint64) etp != 0)
    return invalid (error, "expert tp = %d does not divide the expert FFN size %"
                    G_GUINT64_FORMAT " of %s (hint: --expert-tensor-parallel-size %d)", etp,
                    moe.expert_ffn, model->name,
                    largest_divisor_at_most ((int) MIN (moe.expert_ffn, G_MAXINT), etp));
  /* folding: per pipeline stage, etp x ep x edp = tp x cp x dp ranks */
  gint64 stage_ranks = (gint64) plan->tp * plan->cp * plan->dp;
  gint64 expert_mp = (gint64) etp * plan->ep;
  if (stage_ranks % expert_mp != 0)
    {
      /* The hint must itself be a valid layout: an expert TP that divides the stage's
       * ranks (and the expert FFN) where etp does not, else an ep that divides both the
       * stage's ranks over etp and the experts (--etp 3 on 64 ranks hinted --ep 7, from
       * 64 / 3 = 21; ep 160 on 512 / 8 = 64 ranks hinted --ep 64, which 160 experts
       * refuse) */
      if (stage_ranks % etp != 0)
        return invalid (error, "the expert layout does not fold onto the ranks: expert tp x "
                        "ep = %d x %d = %" G_GINT64_FORMAT " does not divide the tp x cp x "
                        "dp = %" G_GINT64_FORMAT " ranks of a pipeline stage (hint: "
                        "--expert-tensor-parallel-size %d)", etp, plan->ep, expert_mp,
                        stage_ranks,
                        largest_divisor_at_most ((int) gcd64 (stage_ranks,
                                                              (gint64) MIN (moe.expert_ffn,
                                                                            G_MAXINT)),
                                                 etp));
      return invalid (error, "the expert layout does not fold onto the ranks: expert tp x ep = "
                      "%d x %d = %" G_GINT64_FORMAT " does not divide the tp x cp x dp = %"
                      G_GINT64_FORMAT " ranks of a pipeline stage (hint: --ep %d)", etp,
                      plan->ep, expert_mp, stage_ranks,
                      largest_divisor_at_most ((int) gcd64 (stage_ranks / etp, moe.experts),
                                               plan->ep));
    }
  plan->edp = (int) (stage_ranks / expert_mp);
  if (plan->edp_given > 0 && plan->edp_given != plan->edp)
    return invalid (error, "expert_data_parallel_degree %d disagrees with the derived "
                    "(tp x cp x dp) / (etp x ep) = %" G_GINT64_FORMAT " / %" G_GINT64_FORMAT
                    " = %d (hint: leave the key out: it is derived)", plan->edp_given,
                    stage_ranks, expert_mp, plan->edp);
  if (!plan_check_fold (plan, error))
    return FALSE;
  /* Megatron-LM (arguments.py): "When using expert parallelism and tensor parallelism,
   * sequence parallelism must be used."; and at ep 1 too, Megatron-Core's MoELayer.forward
   * raises in training when tensor_model_parallel_size > 1 without sequence_parallel
   * ("During training, performance may degrade if MoE and tensor parallelism are enabled
   * without also enabling sequence parallelism"). At ep 1 such a plan was timed with the
   * replicated sequence gathered once more over expert TP: tp times the experts' work
   * (mixtral-8x7b tp 8: 6.4 s a step against 2.4 s with SP) */
  if (plan->tp > 1 && !plan->sequence_parallel)
    return invalid (error, "%s with tensor parallelism (tp %d) needs sequence parallelism, "
                    "as Megatron-Core requires (arguments.py with expert parallelism, "
                    "MoELayer.forward in training) (hint: add --sequence-parallel)",
                    plan->ep > 1 ? "expert parallelism" : "a mixture-of-experts layer",
                    plan->tp);
  /* ZeRO-3/FSDP folds: the dense weights shard over dp x cp and the experts' over the
   * expert data-parallel group (Megatron-Core's FSDP keeps expert parameters in their own
   * buffer, sharded over the expert data-parallel group). HSDP does not: its shard groups
   * are K consecutive dp ranks with replicas across dp / K, and the expert side has no such
   * split of edp into shard and replica groups. */
  if (plan->sharding == PLAN_SHARD_HSDP || plan->dp_replicate > 0)
    return invalid (error, "hsdp sharding of a mixture-of-experts model does not fold: HSDP "
                    "shards over groups of dp ranks and replicates across them, and the "
                    "expert weights' data-parallel group (edp %d) has no shard/replica split "
                    "(hint: --sharding zero3, which shards the experts over edp)", plan->edp);
  plan->num_experts = moe.experts;
  plan->moe_topk = moe.top_k;
  plan->etp = etp;
  return TRUE;
}

static gboolean
resolve (Plan *plan, const ModelSpec *model, const TopoCluster *cluster, GError **error)
{
  guint64 devices = cluster->n_devices;

  if (!check_limits (plan, model, error))
    return FALSE;
  /* a TorchTitan file's data-parallel degrees give its world where no --gpus does */
  if (plan->world_size == 0 && plan->dp_titan > 0)
    {
      const gint64 w = (gint64) plan->dp_titan * plan->tp * plan->pp * plan->cp;
      if (w <= PLAN_MAX_WORLD)
        plan->world_size = (int) w;
    }
  if (plan->world_size == 0)
    {
      if (devices > PLAN_MAX_WORLD)
        return invalid (error, "cluster %s has %" G_GUINT64_FORMAT " devices, above the cap "
                        "of %d GPUs for one plan (hint: pass --gpus N)", cluster->name,
                        devices, PLAN_MAX_WORLD);
      plan->world_size = (int) devices;
    }
  if ((guint64) plan->world_size > devices)
    return invalid (error, "the plan needs %d GPUs but cluster %s has only %" G_GUINT64_FORMAT
                    " (hint: lower --gpus or pick a larger --cluster)", plan->world_size,
                    cluster->name, devices);

  /* Degrees. DP is derived, as Megatron does: world / (tp x pp x cp). EP is carved out of
   * DP (Megatron); dense models keep ep = 1. */
  gint64 model_par = (gint64) plan->tp * plan->pp * plan->cp;
  if (plan->world_size % model_par != 0)
    {
      /* the multiples either side; below tp x pp x cp there is only one */
      gint64 below = plan->world_size / model_par * model_par;
      gint64 above = (plan->world_size / model_par + 1) * model_par;
      g_autofree char *both = below > 0 ? g_strdup_printf ("%" G_GINT64_FORMAT " or ", below)
                                        : g_strdup ("");
      return invalid (error, "world size %d is not a multiple of tp x pp x cp = %d x %d x %d "
                      "= %" G_GINT64_FORMAT " (hint: use --gpus %s%" G_GINT64_FORMAT ")",
                      plan->world_size, plan->tp, plan->pp, plan->cp, model_par, both, above);
    }
  plan->dp = (int) (plan->world_size / model_par);
  if (plan->dp_file > 0 && plan->dp_file != plan->dp)
    return invalid (error, "parallelism.data_parallel_degree %d in the plan file disagrees with "
                    "world / (tp x pp x cp) = %d / %" G_GINT64_FORMAT " = %d (hint: the key is "
                    "derived: leave it out, or make world_size %" G_GINT64_FORMAT ")",
                    plan->dp_file, plan->world_size, model_par, plan->dp,
                    model_par * plan->dp_file);
  if (plan->dp_titan > 0 && plan->dp_titan != plan->dp && plan->dp_titan_replicate)
    {
      /* HSDP is the other reading where the replicate degree divides dp */
      g_autofree char *hsdp = plan->dp % plan->dp_titan == 0
        ? g_strdup_printf (", data_parallel_shard_degree %d beside it for HSDP (%d x %d = %d)",
                           plan->dp / plan->dp_titan, plan->dp / plan->dp_titan,
                           plan->dp_titan, plan->dp)
        : g_strdup ("");
      return invalid (error, "parallelism.data_parallel_replicate_degree %d without a shard "
                      "degree (DDP over its ranks) in the plan file disagrees with world / (tp "
                      "x pp x cp) = %d / %" G_GINT64_FORMAT " = %d: TorchTitan asserts the "
                      "degrees multiply to the world (hint: data_parallel_replicate_degree %d "
                      "for DDP over all of dp%s, or --gpus %" G_GINT64_FORMAT ")",
                      plan->dp_titan, plan->world_size, model_par, plan->dp, plan->dp, hsdp,
                      model_par * plan->dp_titan);
    }
  if (plan->dp_titan > 0 && plan->dp_titan != plan->dp)
    return invalid (error, "parallelism.data_parallel_shard_degree x data_parallel_replicate_"
                    "degree = %d in the plan file disagrees with world / (tp x pp x cp) = %d / %"
                    G_GINT64_FORMAT " = %d: TorchTitan asserts they multiply to the world "
                    "(hint: data_parallel_shard_degree -1, or --gpus %" G_GINT64_FORMAT ")",
                    plan->dp_titan, plan->world_size, model_par, plan->dp,
                    model_par * plan->dp_titan);
  if (plan->dp_given > 0 && plan->dp_given != plan->dp)
    return invalid (error, "--dp %d disagrees with world / (tp x pp x cp) = %d / %"
                    G_GINT64_FORMAT " = %d (hint: drop --dp, it is derived, or run on %"
                    G_GINT64_FORMAT " GPUs: --gpus %" G_GINT64_FORMAT ", or mpirun -np %"
                    G_GINT64_FORMAT " where a launcher sets the world)", plan->dp_given,
                    plan->world_size, model_par, plan->dp, model_par * plan->dp_given,
                    model_par * plan->dp_given, model_par * plan->dp_given);
  if (!resolve_moe (plan, model, error))
    return FALSE;
  /* Megatron-Core: a scope needs a capture implementation, and the whole-iteration graph
   * is the local implementation's (FullCudaGraphWrapper) */
  if (plan->cuda_graph_scope != 0 && plan->cuda_graph_impl == PLAN_CG_IMPL_NONE)
    return invalid (error, "--cuda-graph-scope needs CUDA graphs (hint: add "
                    "--cuda-graph-impl transformer_engine, or local)");
  if ((plan->cuda_graph_scope & PLAN_CG_FULL_ITERATION)
      && plan->cuda_graph_impl != PLAN_CG_IMPL_LOCAL)
    return invalid (error, "--cuda-graph-scope full_iteration is captured by the local "
                    "implementation only (hint: --cuda-graph-impl local)");

  /* Tensor parallelism splits heads and KV groups (Megatron: num_attention_heads and
   * num_query_groups must both be divisible by the TP size). */
  /* the hinted degree divides both counts (qwen2-7b's 28 heads hinted --tp 7, which its 4
   * KV heads then refused) */
  const int tp_both = largest_divisor_at_most ((int) gcd64 ((gint64) model->n_heads,
                                                            (gint64) model->n_kv_heads),
                                               plan->tp);
  if (model->n_heads % plan->tp != 0)
    return invalid (error, "tp = %d does not divide the %" G_GUINT64_FORMAT " attention heads "
                    "of %s (hint: --tp %d)", plan->tp, model->n_heads, model->name, tp_both);
  if (model->n_kv_heads % plan->tp != 0)
    return invalid (error, "tp = %d does not divide the %" G_GUINT64_FORMAT " KV heads of %s "
                    "(hint: --tp %d)", plan->tp, model->n_kv_heads, model->name, tp_both);
  if (plan->tp == 1)
    plan->sequence_parallel = FALSE;   /* Megatron disables SP without TP */
  /* Megatron-LM (arguments.py) asserts sequence parallelism with --tp-comm-overlap: the
   * overlapped all-gather and reduce-scatter are SP's (search's space keeps the same rule) */
  if (plan->tp_comm_overlap && plan->tp > 1 && !plan->sequence_parallel)
    {
      /* --async-tp turns the overlap on too: the message named --tp-comm-overlap, a flag
       * the user had not given; async TP micro-pipelines the same SP collectives */
      if (plan->async_tp)
        return invalid (error, "--async-tp overlaps sequence parallelism's all-gather and "
                        "reduce-scatter with the GEMMs, and tp %d runs without it (hint: add "
                        "--sequence-parallel)", plan->tp);
      return invalid (error, "--tp-comm-overlap needs sequence parallelism with tp %d, as "
                      "Megatron-LM asserts (hint: add --sequence-parallel)", plan->tp);
    }

  /* Sequence. */
  if (plan->seq_length == 0)
    plan->seq_length = (int) MIN (model->max_positions, 8192);
  /* learned absolute positions are a table of max_position_embeddings rows: a longer
   * sequence has no row to look up (Megatron-LM asserts max_position_embeddings >=
   * seq_length for them); rotary positions have no table and no such limit */
  if (model->pos == MODEL_POS_LEARNED && model->max_positions > 0
      && (guint64) plan->seq_length > model->max_positions)
    return invalid (error, "seq length %d is longer than the %" G_GUINT64_FORMAT " learned "
                    "positions of %s (its position table has max_position_embeddings rows, "
                    "as Megatron-LM asserts) (hint: --seq-length %" G_GUINT64_FORMAT ", or a "
                    "model whose table has at least %d rows: n_positions or "
                    "max_position_embeddings in its config.json, --max-position-embeddings "
                    "with Megatron's model flags)", plan->seq_length,
                    model->max_positions, model->name, model->max_positions,
                    plan->seq_length);
  if (plan->cp > 1)
    {
      /* Causal load balancing gives each CP rank two chunks of the sequence
       * (Megatron: seq_length % (2 x cp) == 0). */
      if (plan->seq_length % (2 * plan->cp) != 0)   /* cp <= 2^20: no wrap */
        return invalid (error, "seq length %d is not divisible by 2 x cp = %d (context "
                        "parallelism splits each sequence into 2 x cp chunks) (hint: a "
                        "multiple of %d)", plan->seq_length, 2 * plan->cp, 2 * plan->cp);
      if (plan->cp_comm == PLAN_CP_A2A)
        {
          guint64 heads_per_tp = model->n_heads / plan->tp;
          guint64 kv_per_tp = model->n_kv_heads / plan->tp;
          if ((guint64) plan->cp > heads_per_tp || heads_per_tp % plan->cp != 0)
            {
              /* the hinted degree passes the KV rule below too (--cp 4 was hinted for
               * Llama 3 8B at tp 8, one KV head a rank, and then refused by it) */
              int d = largest_divisor_at_most ((int) heads_per_tp, plan->cp);
              while (d > 1 && kv_per_tp > 0 && kv_per_tp % (guint64) d != 0
                     && (guint64) d % kv_per_tp != 0)
                d = largest_divisor_at_most ((int) heads_per_tp, d - 1);
              /* and the degree that also splits the KV heads, which Transformer Engine's
               * stacks need (plan_check_stack_model) */
              int dk = d;
              while (dk > 1 && kv_per_tp > 0 && kv_per_tp % (guint64) dk != 0)
                dk = largest_divisor_at_most ((int) heads_per_tp, dk - 1);
              g_autofree char *te = dk != d ? g_strdup_printf (" (--cp %d on Megatron-Core "
                                                               "and NeMo, whose Ulysses "
                                                               "splits the %" G_GUINT64_FORMAT
                                                               " KV head%s of a rank)", dk,
                                                               kv_per_tp,
                                                               kv_per_tp == 1 ? "" : "s")
                                            : g_strdup ("");
              return invalid (error, "Ulysses (a2a) context parallelism of degree %d needs "
                              "it to divide the %" G_GUINT64_FORMAT " heads per TP rank "
                              "(hint: --cp %d%s, or --cp-comm-type p2p)", plan->cp,
                              heads_per_tp, d, te);
            }
          if (kv_per_tp % plan->cp != 0 && (guint64) plan->cp % kv_per_tp != 0)
            return invalid (error, "Ulysses degree %d and the %" G_GUINT64_FORMAT " KV heads "
                            "per TP rank do not divide either way (hint: --cp-comm-type p2p)",
                            plan->cp, kv_per_tp);
        }
    }
  /* Sequence parallelism splits the seq / cp tokens a rank holds over the TP group, whole:
   * Megatron-Core asserts the first dimension divides by the TP size
   * (tensor_parallel/mappings.py, _split_along_first_dim). --seq-length 7 with --tp 8 --sp
   * was predicted as if each rank held 7/8 of a token. The hint's length is the next
   * multiple of tp x cp that also splits into 2 x cp chunks. */
  if (plan->sequence_parallel && plan->tp > 1
      && (plan->seq_length / plan->cp) % plan->tp != 0)
    {
      gint64 m = (gint64) plan->tp * plan->cp;          /* tp, cp <= 2^20: no wrap */
      if (plan->cp > 1 && m % (2 * plan->cp) != 0)
        m *= 2;
      gint64 next = ((gint64) plan->seq_length + m - 1) / m * m;
      return invalid (error, "sequence parallelism splits the %d tokens %s over tp = %d "
                      "ranks, which does not divide them (hint: --seq-length %" G_GINT64_FORMAT
                      ", a multiple of %" G_GINT64_FORMAT ", or drop --sequence-parallel)",
                      plan->seq_length / plan->cp,
                      plan->cp > 1 ? "each CP rank holds of a sequence" : "of each sequence",
                      plan->tp, next, m);
    }

  /* Megatron runs context parallelism only through Transformer Engine's fused attention
   * (its unfused DotProductAttention asserts context_parallel_size == 1): the ring and
   * all-gather schemes run the attention core tile by tile. Ulysses (a2a) gives each rank
   * whole sequences of its heads, which any attention takes (DeepSpeed-Ulysses runs the
   * materialized one; Transformer Engine's a2a is fused only: plan_check_stack). The
   * memory command had computed such a plan's memory from a stack's unfused default
   * after this check, and its fit suggestions, each checked again, found none. */
  if (plan->cp > 1 && plan->attention_backend == PLAN_ATTN_UNFUSED && plan->cp_comm != PLAN_CP_A2A)
    return invalid (error, "context parallelism (cp %d) needs a fused attention backend: "
                    "the ring and all-gather schemes run the attention core tile by tile "
                    "(hint: --attention-backend flash, or --cp 1)",
                    plan->cp);

  /* Transformer Engine runs Megatron's context parallelism, and its backend selection
   * (attention/dot_product_attention/utils.py, get_attention_backend, NVIDIA/
   * TransformerEngine at 002a3e5) leaves no backend for an ALiBi bias under CP: with
   * context parallelism it disables FlashAttention and FusedAttention for any bias type
   * but no_bias and post_scale_bias, and UnfusedDotProductAttention runs no CP at all;
   * a ring step would also need the slopes times each K/V chunk's global positions. */
  if (plan->cp > 1 && model->pos == MODEL_POS_ALIBI)
    return invalid (error, "context parallelism (cp %d) of '%s', whose attention adds an "
                    "ALiBi bias, has no attention backend: Transformer Engine's CP kernels "
                    "take no ALiBi, and a ring step would need position-aware biases (hint: "
                    "--cp 1; a long sequence fits with --tp or --recompute-granularity)",
                    plan->cp, model->name);
  /* Sliding-window attention under ring (p2p) CP: Transformer Engine asserts it out
   * (attn_forward_func_with_cp, dot_product_attention/context_parallel.py: "The context
   * parallel running configs cannot support sliding window attention!" unless cp_comm_type
   * is a2a or all_gather). Only where the window is shorter than the sequence, where it
   * masks anything (program-blocks.c models it only then). */
  if (plan->cp > 1 && plan->cp_comm == PLAN_CP_P2P && model->n_sliding_layers > 0
      && model->sliding_window > 0 && model->sliding_window < (guint64) plan->seq_length)
    return invalid (error, "ring (p2p) context parallelism does not run the %" G_GUINT64_FORMAT
                    "-token sliding window of '%s' (Transformer Engine asserts it out) "
                    "(hint: --cp-comm-type a2a or all_gather)", model->sliding_window,
                    model->name);

  /* Pipeline: virtual stages and the schedule. */
  if (plan->layers_per_virtual_stage > 0
      && (plan->first_stage_layers >= 0 || plan->last_stage_layers >= 0
          || plan->first_chunk_layers >= 0 || plan->last_chunk_layers >= 0
          || plan->account_embedding || plan->account_loss))
    /* Megatron-LM's arguments.py asserts it: the per-rank layer count it divides is not
     * even under an uneven split (tandem built chunks of neither size) */
    return invalid (error, "--num-layers-per-virtual-pipeline-stage counts the layers of an "
                    "even split; with an uneven or accounted split give the chunks per rank "
                    "instead (hint: --num-virtual-stages-per-pipeline-rank V)");
  if (plan->layers_per_virtual_stage > 0)
    {
      int per_rank = (int) model->n_layers / plan->pp;
      if (model->n_layers % plan->pp != 0 || per_rank % plan->layers_per_virtual_stage != 0)
        return invalid (error, "--num-layers-per-virtual-pipeline-stage %d does not divide "
                        "the %" G_GUINT64_FORMAT " layers per pipeline rank evenly "
                        "(hint: use --vpp)", plan->layers_per_virtual_stage,
                        model->n_layers / plan->pp);
      /* both spellings given and disagreeing: a contradiction (Megatron-LM's arguments.py
       * refuses the two flags together), not the layer count silently winning */
      const int derived = per_rank / plan->layers_per_virtual_stage;
      if (plan->vpp > 1 && plan->vpp != derived)
        return invalid (error, "--num-layers-per-virtual-pipeline-stage %d makes %d model "
                        "chunks of the %d layers per pipeline rank, but --vpp is %d (hint: "
                        "give one of the two)", plan->layers_per_virtual_stage, derived,
                        per_rank, plan->vpp);
      plan->vpp = derived;
    }
  if (plan->vpp > 1 && plan->pp == 1)
    return invalid (error, "--vpp %d needs pipeline parallelism (pp = 1) (hint: drop --vpp "
                    "or set --pp)", plan->vpp);
  if (plan->vpp > 1 && plan->schedule == PLAN_SCHED_DUALPIPE)
    return invalid (error, "DualPipe holds two model chunks per rank of its own, so --vpp %d "
                    "does not apply (hint: drop --vpp)", plan->vpp);
  if (plan->vpp > 1 && !plan->schedule_set)
    plan->schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  if (plan->vpp > 1 && plan->schedule != PLAN_SCHED_INTERLEAVED_1F1B)
    return invalid (error, "--vpp %d asks for virtual stages but the schedule is %s "
                    "(hint: --schedule Interleaved1F1B)", plan->vpp,
                    plan_schedule_name (plan->schedule));
  /* DualPipe (deepseek-ai/DualPipe, DualPipe.step: "assert num_ranks % 2 == 0", and two
   * model chunks per rank in place of virtual stages) */
  if (plan->schedule == PLAN_SCHED_DUALPIPE && !plan_dualpipe_pp_ok (plan->pp))
    return invalid (error, "DualPipe needs an even pipeline size of at least 2, not pp = %d "
                    "(hint: --pp 2, 4, ... or --schedule 1F1B)", plan->pp);
  if (plan->schedule == PLAN_SCHED_INTERLEAVED_1F1B && plan->vpp < 2)
    return invalid (error, "Interleaved1F1B needs at least 2 virtual stages per rank "
                    "(hint: --vpp 2, or --schedule 1F1B)");
  if (plan->vpp_group > 0 && plan->schedule != PLAN_SCHED_INTERLEAVED_1F1B)
    return invalid (error, "--microbatch-group-size-per-virtual-pipeline-stage %d applies to "
                    "the interleaved schedule only, and the schedule is %s (hint: set --vpp, "
                    "or drop the group size)", plan->vpp_group,
                    plan_schedule_name (plan->schedule));
  if (plan->vpp_group > 0 && plan->vpp_group < plan->pp)
    /* a micro-batch comes back to a rank for its next model chunk only after all pp
     * ranks: with fewer in a group, the rank's next transfer in order waits for one that
     * waits on it (the step program deadlocks) */
    return invalid (error, "--microbatch-group-size-per-virtual-pipeline-stage %d is below "
                    "the %d pipeline stages: a micro-batch would be needed back on its rank "
                    "before it has passed them all (hint: use at least %d)", plan->vpp_group,
                    plan->pp, plan->pp);
  if (!resolve_layers (plan, model, error))
    return FALSE;
  /* the step program's size: micro-batches x layers of the busiest pipeline rank */
  gint64 rank_layers = 0;
  for (int s = 0; s < plan->pp; s++)
    rank_layers = MAX (rank_layers, plan_stage_layers (plan, model, s));

  /* TorchTitan's training.local_batch_size (a plan file's): the sequences a DP rank runs
   * through its model in one forward-backward, one forward without a pipeline, split into
   * pipeline_parallel_microbatch_size micro-batches under one; global_batch_size / (local
   * x dp) of those a step (gradient accumulation; under a pipeline, whole schedules).
   * Before, a given global batch made the local one ignored in silence (local 3, global
   * 64 on dp 8 ran 8 micro-batches of 1), and without a pipeline the local batch ran as
   * that many micro-batches of 1 instead of one forward. */
  if (plan->local_batch > 0)
    {
      /* without a pipeline the local batch is the micro-batch: --mbs, where given,
       * replaces it (as flags replace a plan file's keys); a file's
       * pipeline_parallel_microbatch_size, which TorchTitan reads under PP only, does not
       * (--mbs 1 was dropped without a word, --mbs 2 refused) */
      if (plan->pp <= 1)
        {
          if (plan->micro_batch_flag)
            plan->local_batch = plan->micro_batch;
          else
            plan->micro_batch = plan->local_batch;
        }
      else if (plan->local_batch % plan->micro_batch != 0)
        return invalid (error, "training.local_batch_size %d does not divide into "
                        "pipeline_parallel_microbatch_size %d micro-batches (hint: a local "
                        "batch that is a multiple of %d)", plan->local_batch,
                        plan->micro_batch, plan->micro_batch);
      gint64 per = (gint64) plan->local_batch * plan->dp;
      if (plan->global_batch > 0 && plan->global_batch % per != 0)
        return invalid (error, "training.global_batch_size %d is not a multiple of "
                        "local_batch_size x dp = %d x %d = %" G_GINT64_FORMAT ": each step "
                        "accumulates whole local batches (hint: global_batch_size %"
                        G_GINT64_FORMAT ", or leave it out for one local batch a step)",
                        plan->global_batch, plan->local_batch, plan->dp, per,
                        MAX (plan->global_batch / per, 1) * per);
      int k = plan->global_batch > 0 ? (int) (plan->global_batch / per) : 1;
      if (plan->pp > 1)
        {
          if (plan->pp_schedules > 1 && plan->pp_schedules != k)
            return invalid (error, "pipeline_schedules_per_step %d, but the step runs %d "
                            "local batch%s of %d (global_batch_size / (local_batch_size x "
                            "dp)), one schedule each (hint: drop "
                            "pipeline_schedules_per_step)", plan->pp_schedules, k,
                            k == 1 ? "" : "es", plan->local_batch);
          if (k > 1)
            plan->pp_schedules = k;
        }
    }
  /* Batch. Products in 64 bits: micro-batch and global batch are ints up to 2^31 - 1,
   * dp is at most 2^20. */
  gint64 mb_tokens = (gint64) plan->micro_batch * plan->seq_length;
  if (mb_tokens > PLAN_MAX_MB_TOKENS)
    return invalid (error, "micro-batch x seq length = %d x %d = %" G_GINT64_FORMAT " tokens, "
                    "above the cap of %d per micro-batch (64M: 4 sequences of the 16M-token "
                    "cap; it keeps element counts exact in 64 bits) (hint: a smaller --mbs)",
                    plan->micro_batch, plan->seq_length, mb_tokens, PLAN_MAX_MB_TOKENS);
  if (plan->global_batch == 0)
    {
      gint64 gb = (gint64) (plan->local_batch > 0 ? plan->local_batch : plan->micro_batch)
                  * plan->dp;
      if (gb > G_MAXINT)
        return invalid (error, "the default global batch, %s x dp = %d x %d = %"
                        G_GINT64_FORMAT " sequences, does not fit a 32-bit count (hint: a "
                        "smaller --mbs, or --gbs)", plan->local_batch > 0 ? "local batch"
                        : "micro-batch", plan->local_batch > 0 ? plan->local_batch
                        : plan->micro_batch, plan->dp, gb);
      plan->global_batch = (int) gb;
      plan->global_batch_derived = TRUE;
    }
  /* The memory model counts bytes in 64 bits (plan/memory.c). A generous bound on one
   * micro-batch's activations over the whole model, in double: per token and layer at
   * most 4 bytes x (16 h + 8 q + 12 f) (Korthikanti et al. count 34 h bytes in bf16),
   * plus materialized scores of 6 bytes per element (bf16 scores, bf16 softmax, dropout
   * mask), plus 8 bytes per token and vocab entry for the loss. Every per-rank figure is
   * a part of it; below 2^62 bytes (4 EiB) nothing can wrap. */
  double mb_act_bound;
  {
    double T = (double) mb_tokens, s = (double) plan->seq_length;
    double q = (double) model->n_heads * (double) model->head_dim;
    double per_layer = T * 4.0 * (16.0 * (double) model->hidden + 8.0 * q
                                  + 12.0 * (double) model->ffn_hidden);
    if (plan->attention_backend == PLAN_ATTN_UNFUSED)
      per_layer += 6.0 * (double) plan->micro_batch * (double) model->n_heads * s * s;
    double bound = per_layer * (double) model->n_layers + 8.0 * T * (double) model->vocab;
    mb_act_bound = bound;
    if (!(bound < 0x1p62))
      return invalid (error, "one micro-batch of %d x %d tokens would hold about %.3g bytes "
                      "of activations, beyond the 2^62 bytes (4 EiB) the memory model counts "
                      "exactly in 64 bits (hint: a smaller --mbs or --seq-length%s)",
                      plan->micro_batch, plan->seq_length, bound,
                      plan->attention_backend == PLAN_ATTN_UNFUSED
                      ? ", or --attention-backend flash" : "");
  }
  gint64 per_step = (gint64) plan->micro_batch * plan->dp;
  if (plan->global_batch % per_step != 0)
    {
      gint64 lo = plan->global_batch / per_step * per_step;
      /* below one micro-batch per DP rank the nearest multiples are one value: name it
       * once ("--global-batch-size 8 or 8" read as a typo) */
      if (lo == 0)
        return invalid (error, "global batch %d is not divisible by micro-batch x dp = %d x %d "
                        "= %" G_GINT64_FORMAT ": each data-parallel rank needs a whole "
                        "micro-batch (hint: --global-batch-size %" G_GINT64_FORMAT ", or "
                        "fewer --gpus)", plan->global_batch, plan->micro_batch, plan->dp,
                        per_step, per_step);
      /* the hint names only batches the flag takes and the step's micro-batch cap allows
       * (2147483647 on 8 ranks was told "2147483640 or 2147483648", the second above the
       * flag's maximum and both far above the cap) */
      const gint64 cap = (gint64) PLAN_MAX_MICROBATCHES * per_step;
      const gint64 hi = lo + per_step;
      if (lo > cap)
        return invalid (error, "global batch %d is not divisible by micro-batch x dp = %d x %d "
                        "= %" G_GINT64_FORMAT ", and its micro-batches would pass the cap of "
                        "%d a step (hint: --global-batch-size %" G_GINT64_FORMAT " or less, a "
                        "multiple of %" G_GINT64_FORMAT ")", plan->global_batch,
                        plan->micro_batch, plan->dp, per_step, PLAN_MAX_MICROBATCHES, cap,
                        per_step);
      if (hi > G_MAXINT || hi > cap)
        return invalid (error, "global batch %d is not divisible by micro-batch x dp = %d x %d "
                        "= %" G_GINT64_FORMAT " (hint: --global-batch-size %" G_GINT64_FORMAT
                        ")", plan->global_batch, plan->micro_batch, plan->dp, per_step, lo);
      return invalid (error, "global batch %d is not divisible by micro-batch x dp = %d x %d "
                      "= %" G_GINT64_FORMAT " (hint: --global-batch-size %" G_GINT64_FORMAT
                      " or %" G_GINT64_FORMAT ")", plan->global_batch, plan->micro_batch,
                      plan->dp, per_step, lo, hi);
    }
  gint64 grad_accum = plan->global_batch / per_step;
  if (grad_accum > PLAN_MAX_MICROBATCHES)
    return invalid (error, "global batch / (micro-batch x dp) = %d / (%d x %d) = %"
                    G_GINT64_FORMAT " micro-batches per step, above the cap of %d (the step "
                    "program grows with them; real plans use at most a few thousand) (hint: "
                    "raise --mbs or --gpus, or lower --gbs)", plan->global_batch,
                    plan->micro_batch, plan->dp, grad_accum, PLAN_MAX_MICROBATCHES);
  /* a plan file's gradient_accumulation_steps (tandem writes it with every plan) is the
   * derived count; one that disagrees names a batch the file does not give */
  if (plan->grad_accum_given > 0 && plan->grad_accum_given != grad_accum)
    return invalid (error, "gradient_accumulation_steps %d disagrees with global batch / "
                    "(micro-batch x dp) = %d / (%d x %d) = %" G_GINT64_FORMAT " (hint: "
                    "global_batch_size %" G_GINT64_FORMAT " for %d, or leave the key out: it "
                    "is derived)", plan->grad_accum_given, plan->global_batch,
                    plan->micro_batch, plan->dp, grad_accum,
                    (gint64) plan->grad_accum_given * per_step, plan->grad_accum_given);
  plan->grad_accum = (int) grad_accum;
  /* ... and what a rank holds at once: every micro-batch under GPipe (and, bounded the
   * same way, interleaved chunks), at most pp under 1F1B (one more with the combined
   * 1F1B of --overlap-moe-expert-parallel-comm) and pp + 1 under DualPipe (plan/memory.c
   * plan_memory_inflight). One micro-batch below 2^62 bytes could still wrap the stage's
   * sum of several (a 1 M-wide model under GPipe printed 68 PiB for 160 EiB) */
  {
    const gboolean all = plan->schedule == PLAN_SCHED_GPIPE
                         || plan->schedule == PLAN_SCHED_INTERLEAVED_1F1B;
    const int most = plan->pp + (plan->schedule == PLAN_SCHED_DUALPIPE
                                 || plan_moe_a2a_pairs (plan, (int) grad_accum) ? 1 : 0);
    const double held = all ? (double) grad_accum : (double) MIN (grad_accum, most);
    if (!(mb_act_bound * held < 0x1p62))
      return invalid (error, "%.0f micro-batches of %d x %d tokens held at once would be "
                      "about %.3g bytes of activations a rank, beyond the 2^62 bytes (4 EiB) "
                      "the memory model counts exactly in 64 bits (hint: a smaller --mbs, "
                      "--seq-length or --gbs%s)", held, plan->micro_batch, plan->seq_length,
                      mb_act_bound * held,
                      plan->schedule == PLAN_SCHED_GPIPE ? ", or --schedule 1F1B" : "");
  }
  if (grad_accum * rank_layers > PLAN_MAX_LAYER_PASSES)
    return invalid (error, "%" G_GINT64_FORMAT " micro-batches x %" G_GINT64_FORMAT " layers "
                    "per pipeline rank = %" G_GINT64_FORMAT " layer passes per step, above the "
                    "cap of %d (the step program holds a few dozen tasks for each: at the cap "
                    "~9 M tasks and ~1.2 GB) (hint: raise --mbs or --pp, or lower --gbs)",
                    grad_accum, rank_layers, grad_accum * rank_layers, PLAN_MAX_LAYER_PASSES);
  {
    const gint64 step_layers = (gint64) model->n_layers + (gint64) model->mtp_layers;
    if (grad_accum * step_layers > PLAN_MAX_STEP_LAYER_PASSES)
      return invalid (error, "%" G_GINT64_FORMAT " micro-batches x %" G_GINT64_FORMAT
                      " layers = %" G_GINT64_FORMAT " layer passes per step over all pipeline "
                      "ranks, above the cap of %d (a simulation of the whole step holds every "
                      "rank's tasks: ~5-10 GB at the cap) (hint: raise --mbs, or lower --gbs)",
                      grad_accum, step_layers, grad_accum * step_layers,
                      PLAN_MAX_STEP_LAYER_PASSES);
  }
  /* DualPipe.step: "num_chunks > 0 and num_chunks % 2 == 0 and num_chunks >= num_ranks
   * * 2": half the micro-batches enter at each end, and the main step (overlapped
   * forward-backward pairs) runs m/2 - pp + 1 times on the outermost ranks */
  if (plan->schedule == PLAN_SCHED_DUALPIPE
      && !plan_dualpipe_counts_ok (plan->pp, plan->grad_accum))
    return invalid (error, "DualPipe with pp = %d needs an even number of at least %d "
                    "micro-batches per step, but global / (micro x dp) = %d (hint: raise "
                    "--global-batch-size to %" G_GINT64_FORMAT " or use 1F1B)", plan->pp,
                    2 * plan->pp, plan->grad_accum, per_step * 2 * plan->pp);
  if (plan->schedule == PLAN_SCHED_INTERLEAVED_1F1B && plan->grad_accum < plan->pp)
    return invalid (error, "Interleaved1F1B with pp = %d needs at least %d micro-batches per "
                    "step, but global / (micro x dp) = %d (hint: raise --global-batch-size "
                    "to %" G_GINT64_FORMAT " or use 1F1B)", plan->pp, plan->pp,
                    plan->grad_accum, per_step * plan->pp);
  /* pp_schedules (plan.h): whole schedules of m / k micro-batches each, as
   * torch.distributed.pipelining runs one per local batch; the interleaved schedule needs
   * pp of them in each (as above). DualPipe's halves, Megatron-Core's combined 1F1B and
   * torch's lock-step table are built for one schedule a step (program.c): refused. */
  int k = plan_pp_schedules (plan);
  if (k > 1)
    {
      if (plan->grad_accum % k != 0)
        return invalid (error, "%d pipeline schedules a step need the %d micro-batches to "
                        "divide among them", k, plan->grad_accum);
      if (plan->schedule == PLAN_SCHED_INTERLEAVED_1F1B && plan->grad_accum / k < plan->pp)
        return invalid (error, "Interleaved1F1B with pp = %d needs at least %d micro-batches "
                        "per schedule, but %d schedules of %d micro-batches run a step",
                        plan->pp, plan->pp, k, plan->grad_accum / k);
      if (plan->schedule == PLAN_SCHED_DUALPIPE || plan->pp_lockstep > 0
          || plan_moe_a2a_pairs (plan, plan->grad_accum / k))
        return invalid (error, "%d pipeline schedules a step are modelled for 1F1B, GPipe and "
                        "dataflow interleaved 1F1B only (not DualPipe, torch's lock step or "
                        "combined 1F1B)", k);
    }

  /* Megatron-Core's rule (forward_backward_pipelining_with_interleaving): the micro-batches
   * of a schedule divided into groups of N (--microbatch-group-size-per-vp-stage, default
   * pp) must leave a remainder of 0 or at least pp, "otherwise, it introduces dependency
   * bubbles in the pipeline" (RuntimeError). tandem runs a remainder below pp joined to
   * the group before it (plan_vpp_group_split): where that is the step's only group (m
   * from N to 2N - 1, the Llama 3 paper's flexible count) the warm-up counts it whole and
   * the order is sound; after whole groups the warm-up holds (v - 1) N units while the
   * joined group runs N + r a chunk, so backwards came before their own forwards (pp 4,
   * v 4, 11 micro-batches: 7 on every stage), which the stream ran as though the
   * activations were there and the memory walk counted below zero (16 EiB). Refused
   * there, as Megatron-Core refuses it. */
  if (plan->schedule == PLAN_SCHED_INTERLEAVED_1F1B && plan->vpp > 1)
    {
      const int k_sched = plan_pp_schedules (plan);
      const int m_sched = plan->grad_accum / MAX (k_sched, 1);
      const int n = plan_vpp_group (plan);
      const int r = m_sched % n;
      if (m_sched >= 2 * n && r > 0 && r < plan->pp)
        {
          /* the nearest batches whose count divides into whole groups; with several
           * schedules a step, their size (a TorchTitan local batch) is what to change */
          const gint64 unit = per_step * k_sched * n;
          const gint64 lo = (gint64) (m_sched / n) * unit, hi = lo + unit;
          g_autofree char *hint = k_sched > 1
            ? g_strdup_printf ("%d or %d micro-batches per schedule", m_sched / n * n,
                               (m_sched / n + 1) * n)
            : g_strdup_printf ("--global-batch-size %" G_GINT64_FORMAT " or %"
                               G_GINT64_FORMAT, lo, hi);
          return invalid (error, "Interleaved1F1B: %d micro-batches per schedule in groups of "
                          "%d leave %d after whole groups, which Megatron-Core refuses (the "
                          "remainder must be none or at least pp = %d, or the last group adds "
                          "dependency bubbles) (hint: %s, or 1F1B)", m_sched, n, r, plan->pp,
                          hint);
        }
    }
  /* Sharding. */
  /* an explicit --sharding none too (it is also the default, so only where given: the
   * replicate degree alone builds HSDP; before, "none" was overridden without a word) */
  if (plan->dp_replicate > 0
      && (plan->sharding == PLAN_SHARD_ZERO1 || plan->sharding == PLAN_SHARD_ZERO2
          || (plan->sharding == PLAN_SHARD_NONE && plan->sharding_set)))
    return invalid (error, "--data-parallel-replicate-degree %d builds HSDP (parameters "
                    "sharded within groups of dp / %d ranks) and contradicts --sharding %s, "
                    "which keeps them whole (hint: drop one of the two; the replicate degree "
                    "alone, or with --sharding zero3, is HSDP)", plan->dp_replicate,
                    plan->dp_replicate, plan_sharding_name (plan->sharding));
  /* --sharding zero3 with a replicate degree of all of dp: shard groups of one rank
   * shard nothing (plain data parallelism), the opposite of what zero3 asks */
  if (plan->dp_replicate > 0 && plan->dp > 1 && plan->dp_replicate == plan->dp
      && plan->sharding_set && plan->sharding == PLAN_SHARD_ZERO3)
    return invalid (error, "--data-parallel-replicate-degree %d replicates over all of dp = "
                    "%d: HSDP shard groups of 1 rank shard nothing, which contradicts "
                    "--sharding zero3 (hint: a replicate degree below dp, e.g. "
                    "--data-parallel-replicate-degree %d, or leave it out for zero3 over all "
                    "of dp)",
                    plan->dp_replicate, plan->dp, largest_divisor_at_most (plan->dp, plan->dp / 2));
  if (plan->sharding == PLAN_SHARD_HSDP || plan->dp_replicate > 0)
    {
      if (plan->dp_replicate > 0 && plan->hsdp_shard_size == 0)
        {
          if (plan->dp % plan->dp_replicate != 0)
            return invalid (error, "--data-parallel-replicate-degree %d does not divide dp "
                            "= world / (tp x pp x cp) = %d / %d = %d (hint: "
                            "--data-parallel-replicate-degree %d)", plan->dp_replicate,
                            plan->world_size, plan->tp * plan->pp * plan->cp, plan->dp,
                            largest_divisor_at_most (plan->dp, plan->dp_replicate));
          plan->hsdp_shard_size = plan->dp / plan->dp_replicate;
          plan->sharding = PLAN_SHARD_HSDP;
        }
      if (plan->hsdp_shard_size < 1 || plan->dp % plan->hsdp_shard_size != 0)
        return invalid (error, "HSDP shard-group size %d does not divide dp = %d (hint: "
                        "hsdp:%d)", plan->hsdp_shard_size, plan->dp,
                        largest_divisor_at_most (plan->dp, MAX (plan->hsdp_shard_size, 1)));
      if (plan->dp_replicate > 0
          && (gint64) plan->dp_replicate * plan->hsdp_shard_size != plan->dp)
        /* it said "HSDP replicate 4 x shard 8 != dp 64" and no more; the shard size
         * divides dp here, so dp / shard is a replicate degree that fits */
        return invalid (error, "--data-parallel-replicate-degree %d x the HSDP shard-group "
                        "size %d = %" G_GINT64_FORMAT " ranks, not dp = %d (hint: "
                        "--data-parallel-replicate-degree %d, or leave it out: hsdp:%d "
                        "replicates over the rest)", plan->dp_replicate, plan->hsdp_shard_size,
                        (gint64) plan->dp_replicate * plan->hsdp_shard_size, plan->dp,
                        plan->dp / plan->hsdp_shard_size, plan->hsdp_shard_size);
    }

  /* Recompute. */
  if (plan->recompute == PLAN_RECOMPUTE_SELECTIVE_OP)
    {
      PlanMoe moe;
      plan_moe (plan, model, &moe);
      if (moe.experts > 0 || model_spec_is_mla (model))
        return invalid (error, "--recompute-granularity selective-op models torchtitan's "
                        "op-level AC of a dense layer with separate q, k, v projections "
                        "(hint: selective or full for '%s')", model->name);
    }
  /* Gated DeltaNet layers under context parallelism would pass their recurrent state
   * between the CP ranks' sequence chunks, which the step program does not model */
  /* Mamba-2 layers under context parallelism: Megatron-Core runs them with all-to-alls
   * that trade the sequence split for a head split around the conv and the scan
   * (megatron/core/ssm/mamba_context_parallel.py), which the step program does not model */
  if (model_spec_is_mamba (model) && plan->cp > 1)
    return invalid (error, "context parallelism of '%s' is not modelled: Megatron-Core runs "
                    "its Mamba-2 layers' CP as all-to-alls around the conv and the scan "
                    "(mamba_context_parallel.py), which tandem does not time yet (hint: --cp 1)",
                    model->name);
  if (model_spec_is_mamba (model) && plan->recompute == PLAN_RECOMPUTE_SELECTIVE_OP)
    return invalid (error, "--recompute-granularity selective-op models torchtitan's op-level "
                    "AC of a dense layer, which '%s' has not (hint: selective or full)",
                    model->name);
  if (model_spec_is_gdn (model) && plan->cp > 1)
    return invalid (error, "context parallelism of '%s', whose Gated DeltaNet layers carry "
                    "a state along the sequence, is not modelled (hint: --cp 1)", model->name);
  if (plan->recompute == PLAN_RECOMPUTE_FULL && plan->recompute_every > 0
      && plan->recompute_method == PLAN_RECOMPUTE_BLOCK && plan->recompute_num_layers == 0)
    {
      /* torchtitan's selective_ac_option N (plan.h): floor(L / N) of a chunk's L blocks
       * recompute, the block method's count (the largest chunk's; none: no recompute) */
      int per_chunk = 0;
      for (int s = 0; s < plan->pp; s++)
        for (int v = 0; v < plan->vpp; v++)
          per_chunk = MAX (per_chunk, plan_chunk_layers (plan, model, s, v));
      plan->recompute_method = PLAN_RECOMPUTE_BLOCK;
      plan->recompute_num_layers = per_chunk / plan->recompute_every;
      if (plan->recompute_num_layers == 0)
        plan->recompute = PLAN_RECOMPUTE_NONE;
    }
  if (plan->recompute == PLAN_RECOMPUTE_FULL && plan->recompute_num_layers == 0)
    plan->recompute_num_layers = 1;   /* Megatron: uniform, 1 layer per checkpoint */
  if (plan->recompute == PLAN_RECOMPUTE_FULL)
    {
      /* a recompute unit (uniform) or the recomputed block (block) lies inside one model
       * chunk: Megatron's checkpointed forward runs per chunk. The largest chunk counts
       * (an uneven first / last stage may be the larger). */
      int per_chunk = 0;
      for (int s = 0; s < plan->pp; s++)
        for (int v = 0; v < plan->vpp; v++)
          per_chunk = MAX (per_chunk, plan_chunk_layers (plan, model, s, v));
      if (plan->recompute_num_layers > per_chunk)
        return invalid (error, "--recompute-num-layers %d exceeds the %d layers per model "
                        "chunk (hint: at most %d)", plan->recompute_num_layers, per_chunk,
                        per_chunk);
    }

  /* CPU offloading of activations: Megatron-Core's checks (TransformerConfig
   * __post_init__: 0 <= cpu_offloading_num_layers < num_layers, no pipeline parallelism,
   * no recompute; CUDA graphs refused with it, Megatron-Bridge docs, CPU offloading) */
  if (plan->cpu_offload_layers > 0)
    {
      if ((gint64) plan->cpu_offload_layers >= (gint64) model->n_layers)
        return invalid (error, "--cpu-offloading-num-layers %d: Megatron offloads fewer layers "
                        "than the %" G_GINT64_FORMAT " of %s (hint: at most %" G_GINT64_FORMAT
                        ")", plan->cpu_offload_layers, (gint64) model->n_layers, model->name,
                        (gint64) model->n_layers - 1);
      if (plan->pp > 1)
        return invalid (error, "--cpu-offloading-num-layers with --pp %d: Megatron-Core has no "
                        "CPU offloading under pipeline parallelism (hint: --pp 1, or "
                        "--optimizer-offload)", plan->pp);
      if (plan->recompute != PLAN_RECOMPUTE_NONE || plan->moe_recompute != 0)
        return invalid (error, "--cpu-offloading-num-layers with activation recompute: "
                        "Megatron-Core refuses the two together (hint: drop one of them)");
      if (plan->cuda_graph_impl != PLAN_CG_IMPL_NONE)
        return invalid (error, "--cpu-offloading-num-layers with CUDA graphs: Megatron refuses "
                        "the two together (hint: --cuda-graph-impl none)");
    }

  /* Multi-token prediction (plan.h mtp_num_layers). Megatron-Core builds each module
   * from the decoder's last layer spec whatever the checkpoint holds; tandem takes the
   * module's shape from a config that declares MTP modules (num_nextn_predict_layers:
   * DeepSeek-V3, GLM-4.5), so a model without them is refused rather than given modules
   * its published configuration never had. */
  if (plan->mtp_num_layers > 0)
    {
      if (model->mtp_layers == 0)
        return invalid (error, "--mtp-num-layers %d: %s has no multi-token-prediction "
                        "modules (its config sets no num_nextn_predict_layers) (hint: drop "
                        "--mtp-num-layers, or use a config with num_nextn_predict_layers, "
                        "e.g. --model deepseek-v3)", plan->mtp_num_layers, model->name);
      if (plan->mtp_num_layers > PLAN_MAX_MTP)
        return invalid (error, "--mtp-num-layers %d exceeds %d modules (hint: DeepSeek-V3 "
                        "trains 1)", plan->mtp_num_layers, PLAN_MAX_MTP);
    }

  /* --recompute-modules that name parts the model has not: moe, moe_act and
   * shared_experts on a dense model, mla_up_proj without MLA; they changed nothing */
  if (plan->moe_recompute != 0)
    {
      PlanMoe moe;
      plan_moe (plan, model, &moe);
      const guint moe_only = PLAN_MOE_RECOMPUTE_ACT | PLAN_MOE_RECOMPUTE_LAYER
                             | PLAN_MOE_RECOMPUTE_SHARED;
      if (moe.experts == 0 && (plan->moe_recompute & moe_only) != 0)
        return invalid (error, "--recompute-modules %s: '%s' has no MoE layers (hint: drop "
                        "it; core_attn, layernorm and mlp apply to a dense model)",
                        (plan->moe_recompute & PLAN_MOE_RECOMPUTE_LAYER) ? "moe"
                        : (plan->moe_recompute & PLAN_MOE_RECOMPUTE_ACT) ? "moe_act"
                        : "shared_experts", model->name);
      if (!model_spec_is_mla (model) && (plan->moe_recompute & PLAN_MOE_RECOMPUTE_MLA_UP))
        return invalid (error, "--recompute-modules mla_up_proj: '%s' has no multi-head "
                        "latent attention (hint: drop it)", model->name);
    }

  /* Precision. */
  if (!plan_check_precision (plan, cluster, error))
    return FALSE;
  if (plan->param_dtype == PLAN_PREC_FP32)
    plan->master_weights = FALSE;
  return TRUE;
}

gboolean
plan_resolve (Plan *plan, const ModelSpec *model, const TopoCluster *cluster, GError **error)
{
  if (!resolve (plan, model, cluster, error))
    return FALSE;
  /* a plan file's derived counts held (plan.h dp_file): a copy changed after this is not
   * held to them */
  plan_drop_file_counts (plan, FALSE);
  return TRUE;
}

/* The plan's precision against the device: the tensor-core formats the chip has and the
 * peaks its preset gives (plan.h). */
gboolean
plan_check_precision (const Plan *plan, const TopoCluster *cluster, GError **error)
{
  if (plan->compute_dtype == PLAN_PREC_FP8 && cluster->device.peak_flops[TOPO_DTYPE_FP8] <= 0)
    return invalid (error, "%s has no FP8 tensor cores (hint: --precision %s)",
                    cluster->device.name,
                    cluster->device.peak_flops[TOPO_DTYPE_BF16] > 0 ? "bf16" : "fp16");
  if (plan->compute_dtype == PLAN_PREC_BF16 && cluster->device.peak_flops[TOPO_DTYPE_BF16] <= 0
      && cluster->device.peak_flops[TOPO_DTYPE_FP16] > 0)
    return invalid (error, "%s has no BF16 tensor cores (hint: --precision fp16)",
                    cluster->device.name);
  if (plan->compute_dtype == PLAN_PREC_FP4 && cluster->device.peak_flops[TOPO_DTYPE_FP4] <= 0)
    {
      /* the formats this device has (an A100's hint offered fp8, which it lacks too) */
      const TopoDevice *d = &cluster->device;
      const char *alt = d->peak_flops[TOPO_DTYPE_FP8] > 0 ? "--precision fp8 or bf16"
                        : d->peak_flops[TOPO_DTYPE_BF16] > 0 ? "--precision bf16"
                        : "--precision fp16";
      return invalid (error, "%s has no FP4 (NVFP4) tensor cores (hint: %s; NVFP4 needs "
                      "Blackwell: a b200, gb200 or gb300 cluster)", d->name, alt);
    }
  /* The GEMMs' math (plan/program.c: fp32 plans multiply on FP32, TF32 or BF16 units by
   * --fp32-matmul-precision) needs a peak in the preset: without one the GEMMs would cost
   * only their bytes and the step would come out too fast with an MFU of 0. Presets leave
   * a peak out where the reference does not know it (GB200's FP32, hardware.md A1 "U"). */
  {
    const TopoDtype g = plan_gemm_dtype (plan);
    const char *flag = plan->compute_dtype == PLAN_PREC_FP16 ? "--precision fp16"
                       : g == TOPO_DTYPE_TF32 ? "--precision fp32 --fp32-matmul-precision high"
                       : g == TOPO_DTYPE_BF16 ? "--precision fp32 --fp32-matmul-precision medium"
                       : "--precision fp32";
    /* the hint names a 16-bit precision the device has (on a V100, with no BF16, it
     * offered --precision bf16, which is refused there in turn) */
    const char *alt = cluster->device.peak_flops[TOPO_DTYPE_BF16] > 0 ? "--precision bf16"
                      : cluster->device.peak_flops[TOPO_DTYPE_FP16] > 0 ? "--precision fp16"
                      : NULL;
    if ((plan->compute_dtype == PLAN_PREC_FP16 || plan->compute_dtype == PLAN_PREC_FP32)
        && cluster->device.peak_flops[g] <= 0)
      return invalid (error, "%s: %s has no %s peak in its preset, so its GEMMs cannot be "
                      "timed (hint: %s%sa cluster file whose device has peak_tflops.%s)", flag,
                      cluster->device.name, topo_dtype_name (g),
                      alt != NULL && g_strcmp0 (alt + strlen ("--precision "),
                                                topo_dtype_name (g)) != 0 ? alt : "",
                      alt != NULL && g_strcmp0 (alt + strlen ("--precision "),
                                                topo_dtype_name (g)) != 0 ? ", or " : "",
                      topo_dtype_name (g));
  }
  if (plan->fp8_recipe >= 0 && plan->compute_dtype != PLAN_PREC_FP8)
    return invalid (error, "--fp8-recipe %s applies to FP8 GEMMs, the plan computes in %s "
                    "(hint: add --fp8-format e4m3 or --precision fp8)",
                    plan_fp8_recipe_name (plan->fp8_recipe),
                    plan_precision_name (plan->compute_dtype));
  if (plan->fp8_recipe == FW_SCALING_BLOCK && !cluster->device.mxfp8)
    /* tensorwise: every stack with FP8 runs it (delayed only the Transformer Engine
     * stacks: torchtitan refuses it) */
    return invalid (error, "%s has no MXFP8 block-scaled GEMMs (hint: --fp8-recipe tensorwise; "
                    "MXFP8 needs Blackwell or CDNA4: a b200, gb200, gb300, mi350x or mi355x cluster)",
                    cluster->device.name);
  return TRUE;
}

TopoDtype
plan_gemm_dtype (const Plan *plan)
{
  switch (plan->compute_dtype)
    {
    case PLAN_PREC_FP4:  return TOPO_DTYPE_FP4;
    case PLAN_PREC_FP8:  return TOPO_DTYPE_FP8;
    case PLAN_PREC_FP16: return TOPO_DTYPE_FP16;
    case PLAN_PREC_FP32:
      return plan->fp32_matmul == PLAN_MATMUL_HIGH ? TOPO_DTYPE_TF32
             : plan->fp32_matmul == PLAN_MATMUL_MEDIUM ? TOPO_DTYPE_BF16 : TOPO_DTYPE_FP32;
    default:             return TOPO_DTYPE_BF16;
    }
}

gboolean
plan_check_fold (const Plan *plan, GError **error)
{
  g_return_val_if_fail (plan != NULL, FALSE);
  if (plan->edp <= 0 || plan->dp <= 0 || plan->rank_order == NULL)
    return TRUE;
  const int etp = plan->etp > 0 ? plan->etp : plan->tp;
  gint64 bad = fold_mismatch (plan, etp);
  if (bad >= 0)
    return invalid (error, "the expert layout does not fold onto the ranks: with rank order "
                    "%s, rank %" G_GINT64_FORMAT " lands on different pipeline stages in the "
                    "dense (tp x cp x dp) and expert (etp x ep x edp) decompositions (hint: "
                    "keep pp outermost, e.g. --rank-order tp-cp-ep-dp-pp)", plan->rank_order,
                    bad);
  return TRUE;
}
