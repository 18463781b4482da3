/* sim/search-recipe.c - the rule of thumb a course on large-scale training teaches, as a
 * baseline for the search to beat.
 *
 * The rule (as taught): data parallel up to ~128 GPUs and ~1B parameters; FSDP above ~1B;
 * HSDP above ~256 GPUs; CP, PP and TP only above ~1,000 GPUs, ~50B parameters or 16K-token
 * sequences; activation checkpointing to fit a larger micro-batch; the largest micro-batch
 * that fits. It gives no degrees, so they are fixed here as:
 *   - below those sizes: tp = pp = cp = 1; sharding none up to 128 GPUs and 1B
 *     parameters, else zero3 (FSDP) up to 256 GPUs, else hsdp:K with K the largest power
 *     of two <= 256 dividing dp (FSDP within 256 GPUs, replicated across), or zero3
 *     where the stack offers no HSDP (megatron-core);
 *   - above them: tp = GPUs per server, read as the NVLink domain capped at 8: the
 *     largest divisor of the attention and KV heads not above min(NVLink domain, 8),
 *     with sequence parallelism. The course's "server" is the unit whose GPUs talk over
 *     NVLink, which TP needs (Narayanan et al., SC'21, Takeaway #1: tensor parallelism
 *     up to degree g on g-GPU servers, pipeline parallelism across them); on a DGX it is 8 GPUs, on a GB200/GB300 NVL72 rack the 4-GPU
 *     compute tray is not a boundary (every GPU reaches the rack's NVLink switches) but
 *     72-way TP is not practice: NVIDIA's Megatron Bridge parallelism guide (Parallelism
 *     Strategy Selection, dense models) starts every size from TP 2-8 and 175-500B
 *     models at TP 8, so the rule stays at 8 there too; cp = 1, or the power of two that brings the sequence to
 *     16K tokens per rank when it is longer; pp = the smallest that fits (balanced split
 *     of the layers); the Megatron distributed optimizer (zero1) over dp;
 *   - a mixture-of-experts model, at any size: ep = the largest divisor of the experts
 *     that folds onto a stage's tp x cp x dp ranks, expert TP 1 (the same guide, MoE
 *     models: EP is the primary dimension, ETP rarely used); a fixed --ep is kept;
 *   - the micro-batch: the largest divisor of the local batch (up to the space's mbs_max)
 *     that fits without recompute, or with full recompute when that fits a larger one;
 *   - 1F1B, DP overlap on, TP-comm overlap off, Megatron's rank order; where the plan
 *     asks for Megatron-Core's EP all-to-all overlap (--overlap-moe-expert-parallel-comm),
 *     which needs virtual stages with pp > 1 (plan_check_stack), pp > 1 runs
 *     Interleaved1F1B with the fewest virtual stages that split the layers (it kept
 *     pp 1 there, and found no plan at all where pp 1 does not fit).
 * "Fits" is the search's memory check (peak + headroom <= HBM), on a plan the stack
 * accepts. Where the stack does not offer a choice of the rule (its "offers",
 * frameworks/stack.h), the rule takes the nearest one it does: ZeRO-1 becomes the
 * stack's next sharding up (FSDP's SHARD_GRAD_OP, zero2, where there is no sharded
 * optimizer alone), 1F1B its GPipe (MaxText), CP's ring its exchange (DeepSpeed's
 * Ulysses), Megatron's rank order the stack's own (Meta's [TP, CP, PP, DP]); a stack
 * without pipeline or context parallelism keeps pp = 1 or cp = 1. */
#include "sim/search-private.h"

static gboolean
fits (const SearchSpace *s, Plan *plan)
{
  const SearchSpec *spec = search_space_spec (s);
  /* what the stack refuses, predict refuses (a candidate's check, search-run.c) */
  if (spec->stack != NULL)
    {
      plan_apply_stack_moe (plan, spec->stack);
      if (!plan_check_stack (plan, spec->stack, NULL)
          || !plan_check_stack_model (plan, spec->model, spec->stack, NULL))
        return FALSE;
    }
  if (!plan_resolve (plan, spec->model, spec->cluster, NULL))
    return FALSE;
  /* as the search's screen and sim_predict count it: the stack's plan fields filled in */
  Plan filled = *plan;
  sim_plan_apply_stack (&filled, &spec->sim.cost);
  PlanMemory mem;
  plan_memory_compute (spec->model, &filled, spec->cluster, &mem);
  gboolean ok = (double) mem.peak_bytes + spec->headroom_bytes <= (double) mem.capacity_bytes;
  plan_memory_clear (&mem);
  return ok;
}

/* The sharding the rule wants, or the nearest one `offered` holds (bit i = PlanSharding
 * i): a stronger one first (what the rule shards, sharded further), then a weaker one. */
static PlanSharding
nearest_sharding (PlanSharding want, guint offered)
{
  static const PlanSharding order[][4] = {
    [PLAN_SHARD_NONE] = { PLAN_SHARD_NONE, PLAN_SHARD_ZERO1, PLAN_SHARD_ZERO2, PLAN_SHARD_ZERO3 },
    [PLAN_SHARD_ZERO1] = { PLAN_SHARD_ZERO1, PLAN_SHARD_ZERO2, PLAN_SHARD_ZERO3, PLAN_SHARD_NONE },
    [PLAN_SHARD_ZERO2] = { PLAN_SHARD_ZERO2, PLAN_SHARD_ZERO3, PLAN_SHARD_ZERO1, PLAN_SHARD_NONE },
    [PLAN_SHARD_ZERO3] = { PLAN_SHARD_ZERO3, PLAN_SHARD_ZERO2, PLAN_SHARD_ZERO1, PLAN_SHARD_NONE },
  };
  if (want == PLAN_SHARD_HSDP)
    {
      if ((offered >> PLAN_SHARD_HSDP) & 1)
        return want;
      want = PLAN_SHARD_ZERO3;
    }
  for (int i = 0; i < 4; i++)
    if ((offered >> order[want][i]) & 1)
      return order[want][i];
  return want;   /* nothing offered: plan_check_stack says why */
}

gboolean
search_recipe (const SearchSpace *s, int gpus, Plan *out, char **why)
{
  const SearchSpec *spec = search_space_spec (s);
  const ModelSpec *m = spec->model;
  ModelParams params;
  model_spec_params (m, &params);
  double P = (double) params.total;
  gboolean moe = m->n_experts > 0;
  int seq = spec->base.seq_length, gbs = spec->base.global_batch;
  /* the NVLink domain (search.c: the innermost levels at level 0's bandwidth), at most 8 */
  int server = MIN (search_nvlink_domain (spec->cluster), 8);
  int heads = (int) m->n_heads, kv = (int) (m->n_kv_heads ? m->n_kv_heads : m->n_heads);
  int L = (int) m->n_layers;
  gboolean big = gpus > 1000 || P > 50e9 || seq > 16384;
  gboolean a2a_needs_vpp = spec->base.moe_a2a_overlap && spec->stack != NULL
                           && spec->stack->moe_a2a_overlap == FW_OPT_OPTIONAL;

  int tp = 1, cp = 1;
  if (big)
    {
      for (int t = MIN (server, gpus); t >= 1; t--)
        if (heads % t == 0 && kv % t == 0)
          {
            tp = t;
            break;
          }
      while (seq / cp > 16384 && cp < 64)
        cp *= 2;
    }
  /* what the stack offers (frameworks/stack.h offers_*; no stack: everything) */
  const FwStack *st = spec->stack;
  if (st != NULL && st->offers_cp_comm == 0)
    cp = 1;
  /* TP and CP in the GPUs there are: a long sequence on one server (8 GPUs at 32K tokens:
   * tp 8 x cp 2 = 16), or a GPU count that tp x cp does not divide (12 GPUs: tp 4 x cp 2),
   * gives up TP first, to the next divisor of the heads, as the rule keeps CP for the
   * length; CP only beyond the GPUs themselves. After the stack's CP: a stack without CP
   * keeps its TP */
  while (cp > 1 && gpus % cp != 0)
    cp /= 2;
  while (tp > 1 && gpus % (tp * cp) != 0)
    {
      int t = tp - 1;
      while (t > 1 && (heads % t != 0 || kv % t != 0))
        t--;
      tp = t;
    }
  int pp_max = big && (st == NULL || st->offers_schedules != 0) ? L : 1;
  int tried = 0;   /* the pp whose data-parallel size divides the global batch */
  for (int pp = 1; pp <= pp_max; pp++)
    {
      if (gpus % (tp * cp * pp) != 0)
        continue;
      int dp = gpus / (tp * cp * pp);
      if (gbs % dp != 0)
        continue;
      tried++;
      /* Megatron-Core runs the EP all-to-all overlap with pp > 1 only on the interleaved
       * schedule ("pipeline_model_parallel_size > 1 requires virtual pipeline
       * parallelism", moe_a2a_overlap.md; plan_check_stack): where the plan asks for it,
       * the rule takes the fewest virtual stages that split the layers, else it would
       * find no pp above 1 at all */
      int v = 1;
      int first, last;
      if (pp > 1 && a2a_needs_vpp)
        {
          for (v = 2; v * pp <= L; v++)
            if (search_split_layers (L, pp * v, &first, &last))
              break;
          if (v * pp > L)
            continue;
        }
      else if (!search_split_layers (L, pp, &first, &last))
        continue;
      int local = gbs / dp;
      for (int mbs = MIN (local, spec->mbs_max); mbs >= 1; mbs--)
        {
          if (local % mbs != 0)
            continue;
          /* the interleaved schedule as Megatron-LM's arguments.py long asserted it: the
           * micro-batches a multiple of pp (fewer deadlock the step program) */
          if (v > 1 && (local / mbs) % pp != 0)
            continue;
          for (int rc = 0; rc < 2; rc++)
            {
              Plan p;
              plan_copy (&p, &spec->base);
              p.world_size = gpus;
              /* a fixed --ep is the user's; else, for a mixture-of-experts model, expert
               * parallelism as its primary dimension (NVIDIA Megatron Bridge, Parallelism
               * Strategy Selection, MoE models: "EP is the primary scaling dimension",
               * "EP = num_experts or num_experts / experts_per_gpu"):
               * the largest ep that divides the experts and folds onto the tp x cp x dp
               * ranks of a stage, with expert TP 1 ("ETP is rarely used") */
              if (spec->ep != NULL && spec->ep->len == 1)
                p.ep = g_array_index (spec->ep, int, 0);
              else if (moe)
                {
                  int experts = (int) m->n_experts, ranks = tp * cp * dp;
                  p.ep = 1;
                  for (int e = MIN (experts, ranks); e >= 1; e--)
                    if (experts % e == 0 && ranks % e == 0)
                      {
                        p.ep = e;
                        break;
                      }
                  p.etp = 1;
                }
              p.tp = tp, p.cp = cp, p.pp = pp, p.vpp = v;
              p.dp = 0, p.dp_given = 0, p.dp_replicate = 0;
              /* a split of model chunks (search_split_layers over pp x v): with v > 1
               * only the first and the last chunk differ, tandem's chunk split */
              p.first_stage_layers = p.last_stage_layers = -1;
              p.first_chunk_layers = p.last_chunk_layers = -1;
              if (v > 1)
                p.first_chunk_layers = first, p.last_chunk_layers = last;
              else
                p.first_stage_layers = first, p.last_stage_layers = last;
              p.layers_per_virtual_stage = 0;
              p.micro_batch = mbs, p.local_batch = 0, p.grad_accum = 0;
              p.schedule = v > 1 ? PLAN_SCHED_INTERLEAVED_1F1B : PLAN_SCHED_1F1B;
              /* a stack whose one-chunk schedule is GPipe only (MaxText) */
              if (v == 1 && pp > 1 && st != NULL
                  && !((st->offers_schedules >> PLAN_SCHED_1F1B) & 1)
                  && ((st->offers_schedules >> PLAN_SCHED_GPIPE) & 1))
                p.schedule = PLAN_SCHED_GPIPE;
              p.schedule_set = TRUE;
              /* the stack's CP exchange where it has no ring */
              if (cp > 1 && st != NULL && !((st->offers_cp_comm >> p.cp_comm) & 1))
                for (int k = PLAN_CP_P2P; k <= PLAN_CP_A2A; k++)
                  if ((st->offers_cp_comm >> k) & 1)
                    {
                      p.cp_comm = (PlanCpComm) k;
                      break;
                    }
              p.sequence_parallel = tp > 1;
              p.tp_comm_overlap = FALSE;
              p.overlap_grad_reduce = p.overlap_param_gather = dp > 1;
              p.recompute = rc ? PLAN_RECOMPUTE_FULL : PLAN_RECOMPUTE_NONE;
              p.recompute_method = PLAN_RECOMPUTE_UNIFORM;
              p.recompute_num_layers = 0;
              p.hsdp_shard_size = 0;
              if (big)
                p.sharding = dp > 1 ? PLAN_SHARD_ZERO1 : PLAN_SHARD_NONE;
              else if (gpus <= 128 && P <= 1e9)
                p.sharding = PLAN_SHARD_NONE;
              else if (gpus <= 256 || dp <= 256)
                p.sharding = dp > 1 ? PLAN_SHARD_ZERO3 : PLAN_SHARD_NONE;
              else
                {
                  /* a stack without HSDP (megatron-core) gets the rule's FSDP: the same
                   * advice in the form it offers, not a plan it refuses */
                  int k = spec->stack != NULL && !spec->stack->hsdp ? 1 : 256;
                  while (k > 1 && dp % k != 0)
                    k /= 2;
                  p.sharding = k > 1 ? PLAN_SHARD_HSDP : PLAN_SHARD_ZERO3;
                  p.hsdp_shard_size = k > 1 ? k : 0;
                }
              if (st != NULL)
                p.sharding = nearest_sharding (p.sharding, pp > 1 ? st->offers_sharding_pp
                                                                  : st->offers_sharding);
              g_free (p.rank_order);
              p.rank_order = g_strdup (st != NULL && st->offers_rank_orders != NULL
                                       && !g_strv_contains ((const char *const *)
                                                            st->offers_rank_orders,
                                                            SEARCH_ORDER_MEGATRON)
                                       ? st->offers_rank_orders[0] : SEARCH_ORDER_MEGATRON);
              if (fits (s, &p))
                {
                  *out = p;
                  return TRUE;
                }
              plan_clear (&p);
            }
        }
    }
  if (tried == 0)
    {
      /* no plan to try: the GPUs do not split into tp x cp x pp x dp with dp dividing the
       * global batch (e.g. 96 GPUs, no pp, a batch of 64: dp 96) */
      *why = g_strdup_printf ("the rule of thumb has no plan to try on %d GPUs: with tp %d, "
                              "cp %d and %s, no data-parallel size divides the global batch "
                              "of %d (hint: a global batch that is a multiple of %d)", gpus,
                              tp, cp, big ? "any pp" : "no pp", gbs, gpus / (tp * cp));
      return FALSE;
    }
  *why = g_strdup_printf ("the rule of thumb finds no plan that fits (and that the stack "
                          "accepts) on %d GPUs (tp %d, cp %d, %s, every micro-batch with and "
                          "without full recompute)",
                          gpus, tp, cp, big ? "every pp" : "no pp");
  return FALSE;
}
