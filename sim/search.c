/* sim/search.c - the search space: its enumeration, a candidate's plan and flags, and the
 * lower bound that pruning uses. The run (threads, ranking) is in search-run.c, the rule
 * of thumb in search-recipe.c.
 *
 * The space, for a fixed global batch and sequence length (README "tandem search"):
 *   gpus   the list given, else the base plan's world size, else the whole cluster
 *   tp     divisors of the attention and KV heads whose groups each lie within one
 *          NVLink domain (the innermost levels at level 0's bandwidth: an 8-GPU DGX H100
 *          server, a 72-GPU GB200/GB300 NVL72 rack; tp_straddles) unless
 *          allow_cross_node_tp, dividing gpus
 *   cp     1 and powers of two leaving >= 1,024 tokens per rank, with each cp comm type
 *   pp     1..layers dividing gpus / (tp cp); where pp x vpp model chunks do not divide
 *          the layers, the most balanced uneven split: middle chunks hold
 *          q = ceil(L / chunks), the first and last share the rest (at most q each);
 *          where neither exists (more chunks than layers), Megatron-Core's accounted
 *          split, the embedding and the loss a slot each, when L + 2 divides
 *   vpp    1 (GPipe, 1F1B) or 2.. layers/pp (Interleaved1F1B) where the layers split
 *   dp     derived; the global batch must divide by it
 *   mbs    divisors of the local batch gbs / dp, up to mbs_max (16) by default
 *   sharding none, zero1, zero2, zero3, hsdp:K (K a power of two, 1 < K < dp, K | dp);
 *          only none when dp x cp = 1 (ZeRO shards over the dp x cp gradient group)
 *   recompute none, selective, full (every layer)
 *   sp     off/on when tp > 1; tp-comm overlap only with sp (Megatron requires it)
 *   dp overlap (grad reduce + param gather) off/on when dp x cp > 1; only off with ZeRO-3 and
 *          HSDP, where it leaves the step program as it is
 *   rank order Megatron's tp-cp-ep-dp-pp and tp-cp-ep-pp-dp when pp > 1 and dp > 1
 *   ep, etp (MoE models) ep a divisor of the experts, etp 1 or tp, where etp x ep folds
 *          onto the tp x cp x dp ranks of a stage (and, pp inner, etp x ep = tp x cp);
 *          ep > 1 with tp > 1 only with sp; none of ZeRO-3/HSDP. --ep / --etp fix them.
 * The order of the loops above (outermost first) is the candidates' index order. */
#include "sim/search.h"
#include "sim/search-private.h"
#include "util/input.h"

#include <string.h>

G_DEFINE_QUARK (search-error-quark, search_error)

static const char *const objective_names[] = {
  "tokens_per_s", "step_time", "mfu", "tokens_per_gpu_hour",
};

const char *
search_objective_name (SearchObjective o)
{
  return (guint) o < G_N_ELEMENTS (objective_names) ? objective_names[o] : "?";
}

gboolean
search_objective_parse (const char *name, SearchObjective *out)
{
  static const struct { const char *name; SearchObjective o; } names[] = {
    { "tokens_per_s", SEARCH_OBJ_TOKENS_PER_S }, { "tokens/s", SEARCH_OBJ_TOKENS_PER_S },
    { "tokens-per-s", SEARCH_OBJ_TOKENS_PER_S }, { "throughput", SEARCH_OBJ_TOKENS_PER_S },
    /* issue 11's short spellings: tokens, step */
    { "tokens", SEARCH_OBJ_TOKENS_PER_S }, { "step", SEARCH_OBJ_STEP_TIME },
    { "step_time", SEARCH_OBJ_STEP_TIME }, { "step-time", SEARCH_OBJ_STEP_TIME },
    { "mfu", SEARCH_OBJ_MFU },
    { "tokens_per_gpu_hour", SEARCH_OBJ_TOKENS_PER_GPU_HOUR },
    { "tokens-per-gpu-hour", SEARCH_OBJ_TOKENS_PER_GPU_HOUR },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (name, names[i].name) == 0)
      {
        *out = names[i].o;
        return TRUE;
      }
  return FALSE;
}

void
search_spec_init (SearchSpec *spec)
{
  memset (spec, 0, sizeof *spec);
  plan_init_defaults (&spec->base);
  spec->top_k = 5;
  spec->mbs_max = 16;
}

void
search_spec_clear (SearchSpec *spec)
{
  g_clear_pointer (&spec->model, model_spec_unref);
  g_clear_pointer (&spec->cluster, topo_cluster_unref);
  g_clear_pointer (&spec->stack, fw_stack_unref);
  plan_clear (&spec->base);
  g_clear_pointer (&spec->gpus, g_array_unref);
  g_clear_pointer (&spec->tp, g_array_unref);
  g_clear_pointer (&spec->cp, g_array_unref);
  g_clear_pointer (&spec->pp, g_array_unref);
  g_clear_pointer (&spec->vpp, g_array_unref);
  g_clear_pointer (&spec->mbs, g_array_unref);
  g_clear_pointer (&spec->ep, g_array_unref);
  g_clear_pointer (&spec->sharding, g_array_unref);
}

/* A list of ints (NULL or empty: open) restricted to 1 where the stack has no such
 * parallelism: an explicit value above 1 is a contradiction (--fast fills none of these
 * lists, so what is there the user gave). */
static gboolean
only_one (GArray **list, const char *flag, const char *what, const FwStack *stack,
          GError **error)
{
  if (*list != NULL && (*list)->len > 0)
    {
      for (guint i = 0; i < (*list)->len; i++)
        if (g_array_index (*list, int, i) > 1)
          {
            g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "%s %d: the %s stack "
                         "has no %s (hint: %s 1, or another --framework)", flag,
                         g_array_index (*list, int, i), stack->name, what, flag);
            return FALSE;
          }
      g_array_set_size (*list, 0);
    }
  if (*list == NULL)
    *list = g_array_new (FALSE, FALSE, sizeof (int));
  int one = 1;
  g_array_append_val (*list, one);
  return TRUE;
}

/* A mask of the space (0: every value) kept to what the stack offers: an explicit value
 * it does not offer is a contradiction; under --fast (whose narrowed masks are defaults,
 * not asked for) the offered part is kept, or all that is offered where none is. */
static gboolean
mask_offered (guint *mask, guint offered, gboolean fast, const char *flag,
              const char *const *names, const FwStack *stack, GError **error)
{
  if (*mask == 0)
    {
      *mask = offered;
      return TRUE;
    }
  guint bad = *mask & ~offered;
  if (bad != 0 && !fast)
    {
      int i = 0;
      while (!((bad >> i) & 1))
        i++;
      g_autofree char *list = fw_offer_list_text (offered, names);
      g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "%s %s: the %s stack does not "
                   "offer it (it offers %s)", flag, names[i], stack->name, list);
      return FALSE;
    }
  *mask &= offered;
  if (*mask == 0)
    *mask = offered;
  return TRUE;
}

/* The space's sharding kinds, schedules, CP exchanges and rank orders kept to those the
 * stack offers (frameworks/stack.h offers_*; the sharding it allows with pp > 1 is
 * applied per candidate in enumerate). */
static gboolean
offers_restrict (SearchSpec *spec, const FwStack *stack, GError **error)
{
  /* --fast may narrow a list the user left open to values the stack does not offer
   * (its defaults, not asked for): those are trimmed to what is offered. What the user
   * gave is held to the stack as in the exact search, --fast or not (before, --fast
   * dropped a --cp 2, a --schedule or a --sharding the stack lacks and answered with
   * plans that contradict them). */
  gboolean fast = spec->fast && spec->fast_sharding_filled;
  /* sharding: an open list becomes the offered kinds (HSDP as every group size) */
  if (spec->sharding == NULL || spec->sharding->len == 0)
    {
      if (spec->sharding == NULL)
        spec->sharding = g_array_new (FALSE, FALSE, sizeof (SearchShard));
      for (int k = PLAN_SHARD_NONE; k <= PLAN_SHARD_HSDP; k++)
        if ((stack->offers_sharding >> k) & 1)
          {
            SearchShard sh = { (PlanSharding) k, 0 };
            g_array_append_val (spec->sharding, sh);
          }
    }
  else
    for (guint i = spec->sharding->len; i-- > 0;)
      {
        SearchShard sh = g_array_index (spec->sharding, SearchShard, i);
        if ((stack->offers_sharding >> sh.kind) & 1)
          continue;
        /* HSDP keeps its own message (below, as before) */
        if (sh.kind != PLAN_SHARD_HSDP && !fast)
          {
            g_autofree char *list = fw_offer_list_text (stack->offers_sharding,
                                                        fw_offer_sharding_names);
            g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "--sharding %s: the %s "
                         "stack does not offer it (it offers %s)",
                         plan_sharding_name (sh.kind), stack->name, list);
            return FALSE;
          }
        if (sh.kind != PLAN_SHARD_HSDP)
          g_array_remove_index (spec->sharding, i);
      }
  /* pipeline: none at all, or the schedules offered (DualPipe is not a dimension) */
  if (stack->offers_schedules == 0)
    {
      if (!only_one (&spec->pp, "--pp", "pipeline parallelism", stack, error))
        return FALSE;
    }
  else
    {
      guint offered = stack->offers_schedules & 7u;
      if (offered == 0)
        {
          g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "the %s stack's only "
                       "pipeline schedule is DualPipe, which the search does not vary (hint: "
                       "tandem predict --schedule dualpipe)", stack->name);
          return FALSE;
        }
      /* as --schedule spells them (plan_schedule_name) */
      static const char *const sched_names[] = { "GPipe", "1F1B", "Interleaved1F1B",
                                                 "DualPipe", NULL };
      if (!mask_offered (&spec->schedule_mask, offered, FALSE, "--schedule", sched_names,
                         stack, error))
        return FALSE;
    }
  /* context parallelism: none at all, or the exchanges offered */
  if (stack->offers_cp_comm == 0)
    {
      if (!only_one (&spec->cp, "--cp", "context parallelism", stack, error))
        return FALSE;
    }
  else if (!mask_offered (&spec->cp_comm_mask, stack->offers_cp_comm,
                          spec->fast && spec->fast_cp_comm_filled, "--cp-comm-type",
                          fw_offer_cp_names, stack, error))
    return FALSE;
  /* expert parallelism: none at all, or any degree that divides the experts */
  if (!stack->offers_ep)
    {
      if (spec->base.ep > 1)
        {
          g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "--ep %d: the %s stack "
                       "has no expert parallelism (hint: --ep 1, or another --framework)",
                       spec->base.ep, stack->name);
          return FALSE;
        }
      spec->base.ep = 1;
      if (!only_one (&spec->ep, "--ep", "expert parallelism", stack, error))
        return FALSE;
    }
  /* rank orders: bit 0 Megatron's tp-cp-ep-dp-pp, bit 1 tp-cp-ep-pp-dp */
  if (stack->offers_rank_orders != NULL)
    {
      guint offered = 0;
      for (char **r = stack->offers_rank_orders; *r != NULL; r++)
        offered |= g_str_equal (*r, "tp-cp-ep-dp-pp") ? 1u
                   : g_str_equal (*r, "tp-cp-ep-pp-dp") ? 2u : 0u;
      static const char *const order_names[] = { "tp-cp-ep-dp-pp", "tp-cp-ep-pp-dp", NULL };
      if (offered != 0 && !mask_offered (&spec->order_mask, offered, FALSE, "--rank-order",
                                         order_names, stack, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
search_spec_set_stack (SearchSpec *spec, FwStack *stack, GError **error)
{
  g_return_val_if_fail (spec->model != NULL && stack != NULL, FALSE);
  g_clear_pointer (&spec->stack, fw_stack_unref);
  spec->stack = fw_stack_ref (stack);
  /* a stack with async TP overlaps TP that way in every candidate (search_cand_to_plan),
   * and async TP needs a compiled model where compiling is not the stack's default
   * (TorchTitan refuses enable_async_tensor_parallel without it, plan_check_stack):
   * without --compile the stack offers no TP overlap, and the space leaves it out
   * rather than count every such candidate invalid */
  gboolean async_needs_compile = stack->async_tp != FW_OPT_NO && !spec->base.compile
                                 && stack->compile != FW_OPT_DEFAULT;
  if ((stack->tp_comm_overlap == FW_OPT_NO && stack->async_tp == FW_OPT_NO)
      || async_needs_compile)
    {
      if (spec->tp_overlap_mask == 2)
        {
          if (async_needs_compile)
            g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "--tp-comm-overlap: the "
                         "%s stack overlaps TP only as async TP, which needs a compiled model "
                         "(hint: add --compile, or drop --tp-comm-overlap)", stack->name);
          else
            g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "--tp-comm-overlap: the "
                         "%s stack does not offer it (hint: drop --tp-comm-overlap or pick "
                         "another --framework)", stack->name);
          return FALSE;
        }
      spec->tp_overlap_mask = 1;
    }
  /* a device whose SMs the communication kernels' CTAs hold all of (a cluster file's
   * device.sms of 16): every candidate would fail predict's check, and the search said
   * "no plan fits" with a closest miss by memory (exit 3); refused once, as predict does
   * (the plan-independent part of sim_cost_options_check_device: a probe at tp 1) */
  if (spec->cluster != NULL)
    {
      Plan probe;
      plan_copy (&probe, &spec->base);
      probe.tp = 1;
      probe.tp_comm_overlap = FALSE;
      g_autoptr (GError) derr = NULL;
      /* no --cost hint: the search does not take the option */
      const gboolean ok = sim_cost_options_check_device (&spec->sim.cost, spec->cluster,
                                                         &probe, FALSE, &derr);
      plan_clear (&probe);
      if (!ok)
        {
          g_set_error_literal (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, derr->message);
          return FALSE;
        }
    }
  /* a stack whose TP-comm overlap kernels hold the device's SMs or more cannot run it
   * there (sim_cost_options_check_device, which predict applies, on NVIDIA parts whose
   * SMs the counts are): refused where the search is told to try it (--tp-comm-overlap),
   * else left out of the space as an option the stack does not offer there */
  if (spec->tp_overlap_mask != 1u && spec->cluster != NULL && spec->cluster->device.sms > 0
      && g_strcmp0 (spec->cluster->device.vendor, "nvidia") == 0)
    {
      const guint sms = spec->cluster->device.sms;
      const double held = MAX (stack->tp_overlap_ag_sms, stack->tp_overlap_rs_sms);
      /* left out of the space where the search was not told to try it */
      if (held >= (double) sms && spec->tp_overlap_mask != 2u)
        spec->tp_overlap_mask = 1u;
      else if (held >= (double) sms)
        {
          const gboolean ag = stack->tp_overlap_ag_sms >= (double) sms;
          g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "the %s stack's TP-comm "
                       "overlap kernels hold %g SMs (tp_overlap_sms.%s), but %s has %u: no SM "
                       "would be left for the GEMM they overlap (hint: %u at most in the stack "
                       "file, or drop --tp-comm-overlap)", stack->name, held,
                       ag ? "all_gather" : "reduce_scatter", spec->cluster->device.name, sms,
                       sms - 1);
          return FALSE;
        }
    }
  /* a stack whose DP reductions run from its hooks (stack.h dp_overlap_always: FSDP, DDP's
   * reducer) has no switch to run them after the backward: every candidate overlaps
   * (the off candidates were plans the stack cannot run, some predicted faster) */
  if (stack->dp_overlap_always)
    {
      if (spec->dp_overlap_mask == 1u)
        {
          g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "--dp-overlap off: the %s "
                       "stack runs its data-parallel reductions from its backward hooks, "
                       "overlapped, with no switch to turn that off (hint: drop --dp-overlap "
                       "or pick another --framework)", stack->name);
          return FALSE;
        }
      spec->dp_overlap_stack = TRUE;
    }
  /* the MoE shared-expert overlap only helps: on where the stack offers it and the
   * model has shared experts (else the plan's JSON would say an overlap that its flags,
   * which name it only for a shared expert, do not reproduce) */
  if (stack->moe_shared_expert_overlap != FW_OPT_NO)
    {
      /* except where Megatron-Core refuses it (plan_check_stack): beside its EP A2A
       * overlap, or with the allgather dispatcher */
      const gboolean megatron_no = stack->moe_shared_expert_overlap == FW_OPT_OPTIONAL
        && ((spec->base.moe_a2a_overlap && stack->moe_a2a_overlap == FW_OPT_OPTIONAL)
            || spec->base.moe_dispatcher == PLAN_MOE_ALLGATHER);
      if (!megatron_no)
        spec->base.moe_shared_expert_overlap |= spec->model->shared_expert_ffn > 0;
    }
  else if (spec->base.moe_shared_expert_overlap)
    {
      g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "--moe-shared-expert-overlap: "
                   "the %s stack does not offer it (hint: drop the flag or pick another "
                   "--framework)", stack->name);
      return FALSE;
    }
  /* a flag the stack refuses holds for every candidate: a contradiction, not a space
   * of invalid plans (exit 2, as --tp-comm-overlap above) */
  if (spec->base.moe_a2a_overlap && stack->moe_a2a_overlap == FW_OPT_NO)
    {
      g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT,
                   "--overlap-moe-expert-parallel-comm: the %s stack does not offer it "
                   "(hint: drop the flag or pick another --framework)", stack->name);
      return FALSE;
    }
  /* HSDP named in a list of the user's (--sharding zero1,hsdp:2; not --fast's own) */
  gboolean hsdp_listed = FALSE;
  for (guint i = 0; !(spec->fast && spec->fast_sharding_filled) && spec->sharding != NULL
                    && i < spec->sharding->len; i++)
    hsdp_listed |= g_array_index (spec->sharding, SearchShard, i).kind == PLAN_SHARD_HSDP;
  if (!offers_restrict (spec, stack, error))
    return FALSE;
  if (!stack->hsdp)
    {
      if (spec->sharding == NULL || spec->sharding->len == 0)
        {
          static const PlanSharding open[] = { PLAN_SHARD_NONE, PLAN_SHARD_ZERO1,
                                               PLAN_SHARD_ZERO2, PLAN_SHARD_ZERO3 };
          if (spec->sharding == NULL)
            spec->sharding = g_array_new (FALSE, FALSE, sizeof (SearchShard));
          for (guint i = 0; i < G_N_ELEMENTS (open); i++)
            {
              SearchShard sh = { open[i], 0 };
              g_array_append_val (spec->sharding, sh);
            }
        }
      for (guint i = spec->sharding->len; i-- > 0;)
        if (g_array_index (spec->sharding, SearchShard, i).kind == PLAN_SHARD_HSDP)
          g_array_remove_index (spec->sharding, i);
      /* refused as any other kind the stack lacks, in a list too (zero1,hsdp:2 searched
       * zero1 alone, exit 0, as though HSDP had been tried) */
      if (spec->sharding->len == 0 || hsdp_listed)
        {
          g_set_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, "--sharding hsdp: the %s "
                       "stack does not offer HSDP (hint: zero3, or another --framework)",
                       stack->name);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
search_spec_fast (SearchSpec *spec, gboolean recompute)
{
  g_return_val_if_fail (spec->model != NULL && spec->cluster != NULL, FALSE);
  const ModelSpec *m = spec->model;
  int heads = (int) m->n_heads, kv = (int) (m->n_kv_heads ? m->n_kv_heads : m->n_heads);
  int server = search_nvlink_domain (spec->cluster);
  spec->fast = TRUE;
  /* tp: powers of two that divide the heads, within one NVLink domain (TP inside the
   * NVLink domain is what Megatron's guides recommend; odd degrees are not used) */
  if (spec->tp == NULL || spec->tp->len == 0)
    {
      if (spec->tp == NULL)
        spec->tp = g_array_new (FALSE, FALSE, sizeof (int));
      spec->fast_tp_filled = TRUE;
      for (int t = 1; t <= server || (spec->allow_cross_node_tp && t <= heads); t *= 2)
        if (heads % t == 0 && kv % t == 0)
          g_array_append_val (spec->tp, t);
      /* (those whose groups straddle two domains at a size go at that size, below) */
    }
  /* cp: every degree, but only ring attention (Megatron's default cp_comm_type p2p).
   * Not cp 1 below 16K tokens, as the rule of thumb has it: on Llama 3 405B at 8K the
   * exact best uses cp 4, and cp 1 alone ends 14% behind it (README "tandem search") */
  if (spec->cp_comm_mask == 0)
    {
      /* except where ring CP is refused (plan_resolve): a sliding window shorter than the
       * sequence, which Transformer Engine runs under a2a (Ulysses) or all_gather only;
       * a2a, the one whose attention keeps the window (program-blocks.c). Before, --fast
       * found no CP plan at all for StarCoder2 at 16K (2,134 candidates invalid). */
      gboolean window = m->n_sliding_layers > 0 && m->sliding_window > 0
                        && m->sliding_window < (guint64) spec->base.seq_length;
      spec->cp_comm_mask = 1u << (window ? PLAN_CP_A2A : PLAN_CP_P2P);
      spec->fast_cp_comm_filled = TRUE;
    }
  /* micro-batch 1 or 2: large models run 1 (the Llama 3 and Megatron recipes) */
  if (spec->mbs == NULL || spec->mbs->len == 0)
    {
      if (spec->mbs == NULL)
        spec->mbs = g_array_new (FALSE, FALSE, sizeof (int));
      for (int b = 1; b <= 2; b++)
        g_array_append_val (spec->mbs, b);
    }
  /* sharding: none, ZeRO-1, -2 or -3, no HSDP (its shard-group sizes multiply the space) */
  if (spec->sharding == NULL || spec->sharding->len == 0)
    {
      if (spec->sharding == NULL)
        spec->sharding = g_array_new (FALSE, FALSE, sizeof (SearchShard));
      const SearchShard sh[4] = { { PLAN_SHARD_NONE, 0 }, { PLAN_SHARD_ZERO1, 0 },
                                  { PLAN_SHARD_ZERO2, 0 }, { PLAN_SHARD_ZERO3, 0 } };
      g_array_append_vals (spec->sharding, sh, 4);
      spec->fast_sharding_filled = TRUE;
    }
  /* recompute only when needed to fit: none, or (second pass) selective and full */
  gboolean open = spec->recompute_mask == 0 || spec->fast_recompute_open;
  if (open)
    {
      spec->fast_recompute_open = TRUE;
      spec->recompute_mask = recompute ? (1u << PLAN_RECOMPUTE_SELECTIVE)
                                         | (1u << PLAN_RECOMPUTE_FULL)
                                       : 1u << PLAN_RECOMPUTE_NONE;
    }
  return open;
}

/* GPUs in one NVLink domain (topo_cluster_scale_up_level): level 0 and the levels
 * above it that carry the same bandwidth (bw and busbw) as level 0, i.e. traffic
 * between their units stays on the same scale-up fabric. On an NVL72 superpod the 4-GPU tray is a host boundary, not a
 * bandwidth one (its level source says so): tray and rack both carry NVLink 5's
 * 900 GB/s, so the domain is 4 x 18 = 72; on a DGX H100 superpod the server's 450 GB/s
 * is followed by the 50 GB/s network, so it is the server's 8. */
int
search_nvlink_domain (const TopoCluster *cl)
{
  const guint64 n = topo_cluster_level_size (cl, topo_cluster_scale_up_level (cl));
  return (int) MIN (n, (guint64) G_MAXINT);
}

/* Whether consecutive groups of t ranks (tp is the innermost axis of both rank orders)
 * cross a boundary of the NVLink domains of `server` GPUs among g ranks: tp 3 or 6 on
 * 8-GPU servers ({6, 7, 8}), tp 4 on 6-GPU servers ({4, 5, 6, 7}). A tp above the domain
 * is the span rule's (--allow-cross-node-tp). Not for a power-of-two tp on a rack-scale
 * domain of 64 GPUs or more whose size is no power of two, the 72-GPU NVL72 rack: a job
 * of several racks is placed in segments of 16 of its 18 trays, 64 GPUs (NVIDIA's Slurm
 * block-scheduling guidance for GB200 NVL72: segment size 16 for jobs of 128 GPUs and
 * more), so its power-of-two groups do not straddle there, though tandem's presets count
 * 72 GPUs a rack. Every other domain is taken as it is: the exemption once covered every
 * size that is no power of two, so a cluster file of 6- or 12-GPU servers had tp 4 (or
 * 8) searched and ranked first with groups across two servers (audit of 7 Dec). */
static gboolean
tp_straddles (int t, int server, int g)
{
  if (t <= 1 || t > server || server % t == 0 || g <= server)
    return FALSE;
  if ((server & (server - 1)) != 0 && server >= 64 && (t & (t - 1)) == 0)
    return FALSE;
  for (gint64 k = 0; (k + 1) * t <= g; k++)
    if (k * t / server != (k * t + t - 1) / server)
      return TRUE;
  return FALSE;
}

static GArray *
ints_copy (const GArray *a)
{
  GArray *b = g_array_new (FALSE, FALSE, sizeof (int));
  if (a != NULL && a->len > 0)
    g_array_append_vals (b, a->data, a->len);
  return b;
}

static gboolean
ints_has (const GArray *a, int v)
{
  for (guint i = 0; i < a->len; i++)
    if (g_array_index (a, int, i) == v)
      return TRUE;
  return FALSE;
}

static int
ints_max (const GArray *a)
{
  int m = 0;
  for (guint i = 0; i < a->len; i++)
    m = MAX (m, g_array_index (a, int, i));
  return m;
}

static guint
mask_or_all (guint mask, guint all)
{
  return mask == 0 ? all : (mask & all);
}

static gboolean
constraint (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);
static gboolean
constraint (GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error_literal (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT, msg);
  return FALSE;
}

static gboolean base_check (const Plan *base, gboolean report, GError **error);

gboolean
search_base_check (const Plan *base, GError **error)
{
  return base_check (base, FALSE, error);
}

gboolean
search_base_check_report (const Plan *base, GError **error)
{
  return base_check (base, TRUE, error);
}

static gboolean
base_check (const Plan *base, gboolean report, GError **error)
{
  /* the fields search_cand_to_plan overwrites that no search flag sets: taken in silence,
   * they were ignored, and each row's `tandem predict` line (which repeats the typed
   * flags) then failed (--dp 3) or predicted another step (--overlap-grad-reduce) */
  Plan d;
  plan_init_defaults (&d);
  const char *flag = NULL, *hint = NULL;
  if (base->dp_given != d.dp_given)
    flag = "--dp", hint = "the search derives dp from the GPUs and the degrees; narrow "
                          "--gpus, --tp, --cp or --pp instead";
  else if (base->dp_replicate != d.dp_replicate)
    flag = "--data-parallel-replicate-degree", hint = "--sharding hsdp:K";
  else if (base->etp != d.etp)
    flag = "--expert-tensor-parallel-size", hint = "the search tries etp 1 and etp = tp; "
                                                   "drop it";
  else if (base->layers_per_virtual_stage != d.layers_per_virtual_stage)
    flag = "--num-layers-per-virtual-pipeline-stage", hint = "--vpp N";
  else if (base->first_stage_layers != d.first_stage_layers
           || base->last_stage_layers != d.last_stage_layers)
    flag = "--decoder-first/last-pipeline-num-layers", hint = "the search splits the layers "
                                                              "itself; drop it";
  else if (base->first_chunk_layers != d.first_chunk_layers
           || base->last_chunk_layers != d.last_chunk_layers)
    flag = "--first/last-chunk-layers", hint = "the search splits the layers itself; drop it";
  else if (base->account_embedding != d.account_embedding
           || base->account_loss != d.account_loss)
    flag = "--account-for-embedding/loss-in-pipeline-split",
    hint = "the search takes that split where the layers split no other way; drop it";
  else if (base->recompute != d.recompute)
    flag = "--recompute-activations", hint = "--recompute selective";
  else if (base->recompute_method != d.recompute_method
           || base->recompute_num_layers != d.recompute_num_layers)
    flag = "--recompute-method/--recompute-num-layers", hint = "--recompute none,selective,"
                                                               "full (full: every layer)";
  else if (base->overlap_grad_reduce != d.overlap_grad_reduce
           || base->overlap_param_gather != d.overlap_param_gather)
    flag = "--overlap-grad-reduce/--overlap-param-gather", hint = "--dp-overlap on";
  plan_clear (&d);
  if (flag == NULL)
    return TRUE;
  constraint (error, "%s: the search sets it for each candidate, so the flag would be "
              "ignored (hint: %s)", flag, report ? "drop it: the search tries it at each size"
                                                 : hint);
  return FALSE;
}

/* The most balanced split of L layers into `chunks` model chunks: even when it divides,
 * else middle chunks of q = ceil(L / chunks) and first/last sharing the rest, each at
 * most q and at least 1. FALSE when neither exists. */
gboolean
search_split_layers (int L, int chunks, int *first, int *last)
{
  *first = *last = -1;
  if (chunks < 1 || chunks > L)
    return FALSE;
  if (L % chunks == 0)
    return TRUE;
  if (chunks == 1)
    return FALSE;
  if (chunks == 2)
    {
      *first = L / 2;
      *last = L - L / 2;
      return TRUE;
    }
  int q = (L + chunks - 1) / chunks;
  int rest = L - (chunks - 2) * q;
  if (rest < 2 || rest > 2 * q)
    return FALSE;
  *first = rest / 2;
  *last = rest - rest / 2;
  return TRUE;
}

/* Whether `v` is one of the values of `list` (empty: every value). */
static gboolean
int_listed (const GArray *list, int v)
{
  if (list == NULL || list->len == 0)
    return TRUE;
  for (guint i = 0; i < list->len; i++)
    if (g_array_index (list, int, i) == v)
      return TRUE;
  return FALSE;
}

/* The (ep, etp) pairs of a MoE model for one (tp, cp, dp, sp, sharding, order); dense
 * models get (1, 0). */
static guint
expert_pairs (const SearchSpace *s, int tp, int cp, int dp, int spv, PlanSharding sh, int ord,
              gint16 (*out)[2], guint max)
{
  const Plan *base = &s->spec.base;
  PlanMoe moe;
  plan_moe (base, s->spec.model, &moe);
  guint n = 0;
  if (moe.experts <= 0)
    {
      out[0][0] = 1, out[0][1] = 0;
      return 1;
    }
  /* ZeRO-3 / FSDP folds (the dense weights shard over dp x cp, the experts' over the
   * expert data-parallel group: plan-validate.c) and is searched; HSDP does not fold */
  if (sh == PLAN_SHARD_HSDP)
    return 0;
  gint64 stage = (gint64) tp * cp * dp;
  for (int ep = 1; ep <= moe.experts && n < max; ep++)
    {
      if (moe.experts % ep != 0 || !int_listed (s->spec.ep, ep))
        continue;
      if (ep > 1 && tp > 1 && !spv)
        continue;
      const int etps[2] = { tp, 1 };
      for (int e = 0; e < (tp > 1 ? 2 : 1) && n < max; e++)
        {
          int etp = etps[e];
          if ((base->etp > 0 && etp != base->etp) || moe.expert_ffn % (guint64) etp != 0
              || stage % ((gint64) etp * ep) != 0
              || (ord == 1 && (gint64) etp * ep != (gint64) tp * cp))
            continue;
          out[n][0] = (gint16) ep, out[n][1] = (gint16) etp;
          n++;
        }
    }
  return n;
}

/* Whether DP overlap changes nothing in the step program of this sharding. */
static gboolean
dp_overlap_idle (int sharding)
{
  return sharding == PLAN_SHARD_ZERO3 || sharding == PLAN_SHARD_HSDP;
}

static void
enumerate (SearchSpace *s, int gpus, GArray *tps, GArray *cps, GArray *pps)
{
  const SearchSpec *sp = &s->spec;
  int L = (int) sp->model->n_layers;
  int seq = sp->base.seq_length;
  int gbs = sp->base.global_batch;
  guint sched_mask = mask_or_all (sp->schedule_mask, 7);
  guint cpc_mask = mask_or_all (sp->cp_comm_mask, 7);
  guint rec_mask = mask_or_all (sp->recompute_mask, 7);
  guint sp_mask = mask_or_all (sp->sp_mask, 3);
  guint tpo_mask = mask_or_all (sp->tp_overlap_mask, 3);
  guint dpo_mask = mask_or_all (sp->dp_overlap_mask, 3);
  guint ord_mask = mask_or_all (sp->order_mask, 3);

  for (guint ti = 0; ti < tps->len; ti++)
    {
      int tp = g_array_index (tps, int, ti);
      if (gpus % tp != 0)
        continue;
      for (guint ci = 0; ci < cps->len; ci++)
        {
          int cp = g_array_index (cps, int, ci);
          if ((gpus / tp) % cp != 0 || (seq > 0 && seq % (2 * cp) != 0 && cp > 1))
            continue;
          for (guint pi = 0; pi < pps->len; pi++)
            {
              int pp = g_array_index (pps, int, pi);
              if ((gpus / tp / cp) % pp != 0 || pp > L)
                continue;
              int dp = gpus / tp / cp / pp;
              s->reach = MAX (s->reach, SEARCH_REACH_DEGREES);
              if (gbs % dp != 0)
                continue;
              int local = gbs / dp;
              s->reach = MAX (s->reach, SEARCH_REACH_BATCH);
              s->max_local = MAX (s->max_local, local);
              s->max_dp = MAX (s->max_dp, dp);
              /* virtual stages: 1, then the interleaved values */
              GArray *vs = s->vpp_values;
              g_array_set_size (vs, 0);
              if (sched_mask & ((1u << PLAN_SCHED_GPIPE) | (1u << PLAN_SCHED_1F1B)))
                {
                  int one = 1;
                  if (sp->vpp == NULL || sp->vpp->len == 0 || ints_has (sp->vpp, 1))
                    g_array_append_val (vs, one);
                }
              if (pp > 1 && (sched_mask & (1u << PLAN_SCHED_INTERLEAVED_1F1B)))
                for (int v = 2; v * pp <= L + 2; v++)   /* + 2: the accounted split */
                  if (sp->vpp == NULL || sp->vpp->len == 0 || ints_has (sp->vpp, v))
                    g_array_append_val (vs, v);
              for (guint vi = 0; vi < vs->len; vi++)
                {
                  int v = g_array_index (vs, int, vi);
                  int first, last;
                  if (!search_split_layers (L, pp * v, &first, &last))
                    {
                      /* no split of the layers alone: Megatron-Core's accounted split
                       * (the embedding and the loss a layer slot each, an even split of
                       * L + 2 slots; the main job's plan) where it divides */
                      if ((L + 2) % (pp * v) != 0)
                        continue;
                      first = last = SEARCH_SPLIT_ACCOUNTED;
                    }
                  for (int sched = 0; sched < 3; sched++)
                    {
                      if (!(sched_mask & (1u << sched)))
                        continue;
                      if ((v > 1) != (sched == PLAN_SCHED_INTERLEAVED_1F1B))
                        continue;
                      if (sp->fast && sp->schedule_mask == 0 && pp > 1
                          && sched == PLAN_SCHED_GPIPE)
                        continue;   /* --fast: 1F1B holds fewer micro-batches */
                      /* with one stage GPipe is 1F1B: keep one of them */
                      if (pp == 1 && sched == PLAN_SCHED_GPIPE
                          && (sched_mask & (1u << PLAN_SCHED_1F1B)))
                        continue;
                      /* the micro-batches run to the largest one allowed (the --mbs
                       * list's or mbs_max), not to the local batch: a local batch of
                       * 2^31 - 1 (prime) stepped mbs past INT_MAX, then took local % 0 */
                      s->reach = MAX (s->reach, SEARCH_REACH_SPLIT);
                      int mbs_hi = MIN (local, sp->mbs_max);
                      if (sp->mbs != NULL && sp->mbs->len > 0)
                        mbs_hi = MIN (local, ints_max (sp->mbs));
                      for (int mbs = 1; mbs <= mbs_hi; mbs++)
                        {
                          if (local % mbs != 0)
                            continue;
                          if (sp->mbs != NULL && sp->mbs->len > 0
                              && !ints_has (sp->mbs, mbs))
                            continue;
                          s->reach = MAX (s->reach, SEARCH_REACH_MBS);
                          for (guint si = 0; si < s->shards->len; si++)
                            {
                              SearchShard sh = g_array_index (s->shards, SearchShard, si);
                              int k_lo = 0, k_hi = 0;
                              /* ZeRO shards over the gradient group, dp x cp
                               * (Megatron-Core's data-parallel group with context
                               * parallelism): at dp 1 and cp 1 the same plan as none;
                               * at dp 1 with cp > 1 it shards over the CP ranks (Llama 3
                               * 8B at 32K tokens on 8 GPUs: cp 8 with ZeRO-3 fits and
                               * beat the search's best by 11%, which it never tried) */
                              if (dp * cp == 1 && sh.kind != PLAN_SHARD_NONE)
                                continue;
                              /* a sharding the stack does not combine with a pipeline
                               * (DeepSpeed: ZeRO-2 and ZeRO-3): not in its space */
                              if (pp > 1 && sp->stack != NULL
                                  && !((sp->stack->offers_sharding_pp >> sh.kind) & 1))
                                continue;
                              if (sh.kind == PLAN_SHARD_HSDP)
                                {
                                  if (sh.hsdp_k > 0)
                                    {
                                      if (dp % sh.hsdp_k != 0 || sh.hsdp_k <= 1
                                          || sh.hsdp_k >= dp)
                                        continue;
                                      k_lo = k_hi = sh.hsdp_k;
                                    }
                                  else
                                    k_lo = 2, k_hi = dp / 2;
                                }
                              for (int k = k_lo; k <= k_hi; k = k == 0 ? 1 : k * 2)
                                {
                                  if (sh.kind == PLAN_SHARD_HSDP && dp % k != 0)
                                    continue;
                                  s->reach = MAX (s->reach, SEARCH_REACH_SHARD);
                                  for (int rc = 0; rc < 3; rc++)
                                    {
                                      if (!(rec_mask & (1u << rc)))
                                        continue;
                                      for (int spv = 0; spv < 2; spv++)
                                        {
                                          if (!(sp_mask & (1u << spv)) || (tp == 1 && spv))
                                            continue;
                                          if (sp->fast && sp->sp_mask == 0 && spv != (tp > 1))
                                            continue;   /* --fast: SP exactly with TP */
                                          for (int tpo = 0; tpo < 2; tpo++)
                                            {
                                              if (!(tpo_mask & (1u << tpo)) || (tpo && !spv))
                                                continue;
                                              for (int dpo = 0; dpo < 2; dpo++)
                                                {
                                                  /* the stack's hooks: on wherever the
                                                   * gradient group dp x cp has more than one
                                                   * rank, and a plan of one has nothing to
                                                   * overlap, --dp-overlap on or not */
                                                  const int dpc = dp * cp;
                                                  if (sp->dp_overlap_stack)
                                                    {
                                                      if (dpo != (dpc > 1))
                                                        continue;
                                                    }
                                                  else if (!(dpo_mask & (1u << dpo))
                                                           || (dpc == 1 && dpo))
                                                    continue;
                                                  if (sp->fast && sp->dp_overlap_mask == 0
                                                      && dpo != (dpc > 1)
                                                      && !dp_overlap_idle (sh.kind))
                                                    continue;   /* --fast: DP overlap on */
                                                  /* ZeRO-3 and HSDP reduce-scatter each
                                                   * micro-batch's gradients in its backward
                                                   * and gather each layer's parameters before
                                                   * it either way (plan/program.c: no bucket
                                                   * left to overlap, no ZeRO-1/2 gather to
                                                   * move), so DP overlap leaves the step as
                                                   * it is: one candidate, off where off is
                                                   * open (on where --dp-overlap on asks) */
                                                  if (dpo && dp_overlap_idle (sh.kind)
                                                      && (dpo_mask & 1u)
                                                      && !sp->dp_overlap_stack)
                                                    continue;
                                                  for (int cc = 0; cc < 3; cc++)
                                                    {
                                                      if (cp == 1 ? cc != PLAN_CP_P2P
                                                          : !(cpc_mask & (1u << cc)))
                                                        continue;
                                                      for (int ord = 0; ord < 2; ord++)
                                                        {
                                                          if (ord == 1 && (pp == 1 || dp == 1))
                                                            continue;
                                                          if (!(ord_mask & (1u << ord))
                                                              && !(ord == 0 && (pp == 1 || dp == 1)))
                                                            continue;
                                                          s->reach = MAX (s->reach, SEARCH_REACH_SWITCHES);
                                                          gint16 pairs[64][2];
                                                          guint np = expert_pairs (s, tp, cp, dp, spv, sh.kind, ord, pairs, 64);
                                                          for (guint ei = 0; ei < np; ei++)
                                                          {
                                                          SearchCand c;
                                                          memset (&c, 0, sizeof c);
                                                          c.ep = pairs[ei][0], c.etp = pairs[ei][1];
                                                          c.gpus = gpus;
                                                          c.tp = tp, c.cp = cp, c.pp = pp;
                                                          c.vpp = v, c.mbs = mbs;
                                                          c.first = first, c.last = last;
                                                          c.cp_comm = cc;
                                                          c.sharding = sh.kind;
                                                          c.hsdp_k = k;
                                                          c.recompute = rc;
                                                          c.sp = spv, c.tpo = tpo, c.dpo = dpo;
                                                          c.sched = sched, c.order = ord;
                                                          g_array_append_val (s->cands, c);
                                                          }
                                                        }
                                                    }
                                                }
                                            }
                                        }
                                    }
                                  if (k_hi == 0)
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/* "8" or "64,128": a list as it was typed. */
static char *
ints_text (const GArray *a)
{
  GString *t = g_string_new (NULL);
  for (guint i = 0; i < a->len; i++)
    g_string_append_printf (t, "%s%d", i ? "," : "", g_array_index (a, int, i));
  return g_string_free (t, FALSE);
}

/* Why the enumeration left nothing, by the furthest filter it passed (SearchReach): a
 * fixed degree that divides no GPU count or a micro-batch that divides no local batch is
 * named, not blamed on the global batch. */
static void
empty_space_error (const SearchSpace *s, GError **error)
{
  const SearchSpec *sp = &s->spec;
  g_autofree char *gpus = ints_text (sp->gpus);
  if (s->reach == SEARCH_REACH_NONE)
    {
      /* every default list holds 1, so a fixed --tp, --cp or --pp is what failed */
      GString *given = g_string_new (NULL);
      const struct { const char *flag; const GArray *values; } dims[] = {
        { "--tp", sp->tp }, { "--cp", sp->cp }, { "--pp", sp->pp },
      };
      for (guint i = 0; i < G_N_ELEMENTS (dims); i++)
        /* --fast's own tp list is no flag the user gave: "--tp 1,2,4,8 --pp 3" named one */
        if (dims[i].values->len > 0 && !(i == 0 && sp->fast_tp_filled))
          {
            g_autofree char *v = ints_text (dims[i].values);
            g_string_append_printf (given, "%s%s %s", given->len ? " " : "", dims[i].flag, v);
          }
      g_autofree char *flags = g_string_free (given, FALSE);
      constraint (error, "%s: no tp x cp x pp of these values divides --gpus %s, so no "
                  "data-parallel degree is left (hint: degrees whose product divides the "
                  "GPU count)", flags, gpus);
    }
  else if (s->reach == SEARCH_REACH_BATCH)
    {
      /* the --mbs line below said "--mbs 1 divides no local batch" here (--vpp 15 --pp 2
       * on 32 layers: 30 chunks split neither evenly, nor unevenly, nor as 32 + 2 slots) */
      g_autofree char *pps = sp->pp->len > 0 ? ints_text (sp->pp) : g_strdup ("any");
      g_autofree char *vpps = sp->vpp->len > 0 ? ints_text (sp->vpp) : g_strdup ("any");
      constraint (error, "the constraints leave no plan to try for %s on %s with global batch "
                  "%d: no split of its %d layers into pp x vpp model chunks is left for --pp "
                  "%s and --vpp %s under the schedules searched (an even split, middle chunks "
                  "of ceil(layers / chunks) with the first and last sharing the rest, or "
                  "layers + 2 slots with the embedding and the loss accounted) (hint: %s)",
                  sp->model->name, sp->cluster->name, sp->base.global_batch,
                  (int) sp->model->n_layers, pps, vpps,
                  /* neither was narrowed: the GPU count and the batch left only depths
                   * that do not split (15 GPUs, a batch of 64: dp 1, so pp 15, 5 or 3) */
                  sp->pp->len == 0 && sp->vpp->len == 0
                    ? "the GPU count and the global batch leave only those pipeline depths "
                      "whose data-parallel degree divides the batch; a GPU count with more "
                      "divisors (a power of two), or another --gbs"
                    : "widen --vpp or --pp");
    }
  else if (s->reach == SEARCH_REACH_SPLIT && sp->mbs->len > 0)
    {
      g_autofree char *mbs = ints_text (sp->mbs);
      constraint (error, "--mbs %s divides no local batch: global batch %d / dp leaves at "
                  "most %d sequences per data-parallel rank on --gpus %s (hint: an --mbs "
                  "dividing the local batch, or a larger --gbs)", mbs,
                  sp->base.global_batch, s->max_local, gpus);
    }
  else if (s->reach == SEARCH_REACH_MBS && sp->sharding->len > 0)
    {
      /* "--sharding hsdp:64" on 8 GPUs read "the values given exclude each other (the
       * layer split, --vpp, --schedule, --mbs or the switches)" */
      GString *given = g_string_new (NULL);
      for (guint i = 0; i < sp->sharding->len; i++)
        {
          SearchShard sh = g_array_index (sp->sharding, SearchShard, i);
          g_string_append_printf (given, "%s%s", i ? "," : "", plan_sharding_name (sh.kind));
          if (sh.kind == PLAN_SHARD_HSDP && sh.hsdp_k > 0)
            g_string_append_printf (given, ":%d", sh.hsdp_k);
        }
      g_autofree char *list = g_string_free (given, FALSE);
      constraint (error, "--sharding %s: no sharding given applies to the plans left, whose "
                  "data-parallel degree is at most %d (ZeRO and FSDP shard over dp x cp > 1, "
                  "hsdp:K needs 1 < K < dp with K dividing dp%s) (hint: widen --sharding, or "
                  "more --gpus)", list, s->max_dp,
                  sp->stack != NULL ? "; the stack may not shard so with a pipeline" : "");
    }
  else if (s->reach == SEARCH_REACH_SHARD)
    {
      /* the switches the user fixed, by name: "--dp-overlap on" on dp 1 read as "the layer
       * split, --vpp, --schedule, --mbs or the switches" */
      g_autoptr (GPtrArray) sw = g_ptr_array_new ();
      if (sp->sp_mask == 1u || sp->sp_mask == 2u)
        g_ptr_array_add (sw, sp->sp_mask == 2u ? "--sequence-parallel" : "--no-sequence-parallel");
      if (sp->tp_overlap_mask == 2u)   /* (off can be the stack's, search_spec_set_stack) */
        g_ptr_array_add (sw, "--tp-comm-overlap");
      if (sp->dp_overlap_mask == 2u)
        g_ptr_array_add (sw, "--dp-overlap on");
      if (sw->len == 0)
        constraint (error, "the constraints leave no plan to try for %s on %s with global batch "
                    "%d: the values given exclude each other (the switches) (hint: widen the "
                    "lists)", sp->model->name, sp->cluster->name, sp->base.global_batch);
      else
        {
          g_ptr_array_add (sw, NULL);
          g_autofree char *names = g_strjoinv (", ", (char **) sw->pdata);
          constraint (error, "the constraints leave no plan to try for %s on %s with global "
                      "batch %d: %s excludes every plan the degrees leave (SP needs tp > 1, "
                      "TP-comm overlap needs SP, DP overlap needs dp x cp > 1; the largest dp here "
                      "is %d) (hint: drop it, or widen the degrees)", sp->model->name,
                      sp->cluster->name,
                      sp->base.global_batch, names, s->max_dp);
        }
    }
  else if (s->reach == SEARCH_REACH_SWITCHES)
    {
      /* a MoE model whose experts fit no layout the degrees leave: "--sharding zero3"
       * read "the values given exclude each other (the layer split, --vpp, ...)" */
      PlanMoe moe;
      plan_moe (&sp->base, sp->model, &moe);
      /* where the stack fixed ep or the rank order, say so: "with --ep 1 ... widen --ep"
       * named a flag the user never gave and could not widen (meta-llama3) */
      const FwStack *st = sp->stack;
      const gboolean stack_ep = st != NULL && !st->offers_ep;
      const gboolean stack_order = st != NULL && st->offers_rank_orders != NULL
                                   && st->offers_rank_orders[0] != NULL
                                   && st->offers_rank_orders[1] == NULL;
      g_autofree char *eps = sp->ep->len > 0 && !stack_ep ? ints_text (sp->ep) : NULL;
      g_autofree char *why = stack_ep || stack_order
        ? g_strdup_printf ("; the %s stack %s%s%s", st->name,
                           stack_ep ? "runs no expert parallelism" : "",
                           stack_ep && stack_order ? " and " : "",
                           stack_order ? "lays ranks out as its one rank order, " : "")
        : g_strdup ("");
      g_autofree char *order = stack_order ? g_strdup (st->offers_rank_orders[0]) : g_strdup ("");
      /* --sharding hsdp alone: the flag at fault is the sharding ("--pp 1" was hinted with
       * --pp 1 given) */
      gboolean hsdp_only = sp->sharding->len > 0;
      for (guint i = 0; i < sp->sharding->len; i++)
        hsdp_only &= g_array_index (sp->sharding, SearchShard, i).kind == PLAN_SHARD_HSDP;
      constraint (error, "the constraints leave no plan to try for %s on %s with global batch "
                  "%d: no expert layout is left for its %d experts%s%s%s%s (ep divides the "
                  "experts and tp x cp x dp with the expert TP, and the layout folds onto the "
                  "rank order's pipeline stages; ep > 1 with tp > 1 needs SP; HSDP does not fold "
                  "with experts) (hint: %s)", sp->model->name,
                  sp->cluster->name, sp->base.global_batch, (int) moe.experts,
                  eps ? " with --ep " : "", eps ? eps : "", why, order,
                  hsdp_only ? "--sharding zero3, which folds with experts where HSDP does not"
                  : stack_ep || stack_order ? "--pp 1, or another --framework"
                                            : "widen --ep, --sharding, --sequence-parallel or "
                                              "--gpus");
    }
  else if (s->reach == SEARCH_REACH_DEGREES)
    constraint (error, "the constraints leave no plan to try for %s on %s with global batch "
                "%d: every data-parallel degree they leave on --gpus %s (GPUs / (tp x cp x "
                "pp)) fails to divide the batch (hint: widen --tp/--pp/--cp/--gpus or change "
                "--gbs)", sp->model->name, sp->cluster->name, sp->base.global_batch, gpus);
  else
    constraint (error, "the constraints leave no plan to try for %s on %s with global batch "
                "%d: the values given exclude each other (the layer split, --vpp, "
                "--schedule, --mbs or the switches) (hint: widen the lists)",
                sp->model->name, sp->cluster->name, sp->base.global_batch);
}

/* Default list of a dimension, or the user's. */
static GArray *
values_or (const GArray *given, GArray *dflt)
{
  if (given != NULL && given->len > 0)
    {
      g_array_unref (dflt);
      return ints_copy (given);
    }
  return dflt;
}

SearchSpace *
search_space_new (const SearchSpec *spec, GError **error)
{
  g_return_val_if_fail (spec->model != NULL && spec->cluster != NULL, NULL);
  g_autoptr (SearchSpace) s = g_new0 (SearchSpace, 1);
  s->spec = *spec;
  s->spec.model = model_spec_ref (spec->model);
  s->spec.cluster = topo_cluster_ref (spec->cluster);
  s->spec.stack = spec->stack != NULL ? fw_stack_ref (spec->stack) : NULL;
  plan_copy (&s->spec.base, &spec->base);
  s->spec.gpus = ints_copy (spec->gpus);
  s->spec.tp = ints_copy (spec->tp);
  s->spec.cp = ints_copy (spec->cp);
  s->spec.pp = ints_copy (spec->pp);
  s->spec.vpp = ints_copy (spec->vpp);
  s->spec.mbs = ints_copy (spec->mbs);
  s->spec.ep = ints_copy (spec->ep);
  /* a base plan's ep above 1 fixes it, as before ep was a list */
  if (s->spec.ep->len == 0 && spec->base.ep > 1)
    g_array_append_val (s->spec.ep, spec->base.ep);
  s->spec.sharding = g_array_new (FALSE, FALSE, sizeof (SearchShard));
  if (spec->sharding != NULL)
    g_array_append_vals (s->spec.sharding, spec->sharding->data, spec->sharding->len);
  if (s->spec.top_k < 1)
    s->spec.top_k = 1;
  s->cands = g_array_new (FALSE, FALSE, sizeof (SearchCand));
  s->vpp_values = g_array_new (FALSE, FALSE, sizeof (int));
  s->bounds = g_hash_table_new_full (search_cand_key_hash, search_cand_key_equal, g_free,
                                     search_ingredients_free);
  s->layouts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) plan_layout_free);
  s->coarse = g_hash_table_new_full (search_cand_key_hash, search_cand_key_equal, g_free,
                                     search_ingredients_free);
  s->slot_tables = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_array_unref);
  s->pair_tables = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          search_kind_pairs_free);
  g_mutex_init (&s->lock);

  const ModelSpec *m = spec->model;
  const TopoCluster *cl = spec->cluster;
  int L = (int) m->n_layers;
  int heads = (int) m->n_heads, kv = (int) (m->n_kv_heads ? m->n_kv_heads : m->n_heads);
  int server = search_nvlink_domain (cl);
  Plan *base = &s->spec.base;
  /* pipeline schedules a step (plan.h pp_schedules) are an input from a stack and its run,
   * not a dimension: each candidate runs one schedule a step (a base plan's count would not
   * divide the micro-batches of other dp and micro-batch sizes) */
  base->pp_schedules = 0;
  if (base->seq_length <= 0)
    base->seq_length = (int) MIN (m->max_positions > 0 ? m->max_positions : 8192, 8192);
  if (base->global_batch <= 0)
    {
      constraint (error, "the search needs a global batch (hint: --gbs N sequences)");
      return NULL;
    }
  /* the sequence cap holds for every candidate: one line, as predict says it, not a space
   * of candidates each invalid for it and "no plan fits" (exit 3, hint: more GPUs) */
  if (base->seq_length > PLAN_MAX_SEQ)
    {
      constraint (error, "--seq-length %d is above the cap of %d tokens (16M: far beyond any "
                  "training context) (hint: --seq-length %d at most)", base->seq_length,
                  PLAN_MAX_SEQ, PLAN_MAX_SEQ);
      return NULL;
    }

  /* GPU counts */
  GArray *gpus = s->spec.gpus;
  if (gpus->len == 0)
    {
      /* the whole cluster, as predict takes it: one past the cap is refused by name here
       * (cast to int, 2^32 + 512 devices read as 512 and were searched in silence) */
      if (base->world_size <= 0 && cl->n_devices > PLAN_MAX_WORLD)
        {
          constraint (error, "cluster %s has %" G_GUINT64_FORMAT " devices, above the cap "
                      "of %d GPUs for one plan (hint: pass --gpus N)", cl->name,
                      cl->n_devices, PLAN_MAX_WORLD);
          return NULL;
        }
      int g = base->world_size > 0 ? base->world_size : (int) cl->n_devices;
      g_array_append_val (gpus, g);
    }
  for (guint i = 0; i < gpus->len; i++)
    {
      int g = g_array_index (gpus, int, i);
      /* the cluster's size first: naming the global cap sent the user to --gpus 1048576
       * on a cluster of 24,576 */
      if (g > PLAN_MAX_WORLD && cl->n_devices > (guint64) PLAN_MAX_WORLD)
        {
          constraint (error, "--gpus %d is above the cap of %d GPUs for one plan (hint: "
                      "--gpus %d at most)", g, PLAN_MAX_WORLD, PLAN_MAX_WORLD);
          return NULL;
        }
      if (g < 1 || (guint64) g > cl->n_devices)
        {
          constraint (error, "--gpus %d: cluster %s has %" G_GUINT64_FORMAT " GPUs (hint: "
                      "--gpus at most %" G_GUINT64_FORMAT ", or another --cluster)", g,
                      cl->name, cl->n_devices, cl->n_devices);
          return NULL;
        }
    }

  /* fixed values that contradict the model or cluster */
  for (guint i = 0; i < s->spec.tp->len; i++)
    {
      int tp = g_array_index (s->spec.tp, int, i);
      if (tp < 1 || heads % tp != 0 || kv % tp != 0)
        {
          /* name the count it fails: llama3-8b --tp 16 divides the 32 heads, not the
           * 8 KV heads */
          gboolean kv_fails = tp >= 1 && heads % tp == 0;
          /* the hint's count is the KV heads' where there are fewer: name both then
           * ("the 8 attention heads ... a divisor of 4" read as a contradiction) */
          g_autofree char *both = kv < heads && !kv_fails
            ? g_strdup_printf (" (nor its %d KV heads)", kv) : g_strdup ("");
          g_autofree char *which = kv < heads
            ? g_strdup_printf (", which divides both the %d attention and %d KV heads", heads,
                               kv) : g_strdup ("");
          constraint (error, "--tp %d does not divide the %d %s heads of %s%s (hint: --tp a "
                      "divisor of %d%s)", tp, kv_fails ? kv : heads,
                      kv_fails ? "KV" : "attention", m->name, both, kv < heads ? kv : heads,
                      which);
          return NULL;
        }
      if (tp > server && !spec->allow_cross_node_tp)
        {
          constraint (error, "--tp %d spans more than one NVLink domain of %d GPUs on %s "
                      "(hint: --allow-cross-node-tp, or --tp at most %d)", tp, server,
                      cl->name, server);
          return NULL;
        }
      /* within one domain, groups that straddle two at every size asked for */
      gboolean every = gpus->len > 0;
      int g0 = 0;
      for (guint k = 0; k < gpus->len && every; k++)
        {
          g0 = g_array_index (gpus, int, k);
          every = tp_straddles (tp, server, g0);
        }
      if (every && !spec->allow_cross_node_tp)
        {
          constraint (error, "--tp %d does not divide the NVLink domains of %d GPUs on %s: "
                      "some of its groups of %d consecutive ranks would straddle two "
                      "domains (hint: --allow-cross-node-tp, or --tp dividing %d)", tp,
                      server, cl->name, tp, server);
          return NULL;
        }
      (void) g0;
    }
  for (guint i = 0; i < s->spec.pp->len; i++)
    {
      int pp = g_array_index (s->spec.pp, int, i);
      if (pp < 1 || pp > L)
        {
          constraint (error, "--pp %d: %s has %d layers (hint: --pp between 1 and %d)", pp,
                      m->name, L, L);
          return NULL;
        }
    }
  for (guint i = 0; i < s->spec.cp->len; i++)
    {
      int cp = g_array_index (s->spec.cp, int, i);
      if (cp < 1 || (cp > 1 && base->seq_length % (2 * cp) != 0))
        {
          /* an odd length has no 2 x cp split at all: "a cp dividing (s - 1) / 2" named
           * values that fail the same way */
          if (base->seq_length % 2 != 0)
            constraint (error, "--cp %d does not split the %d-token sequence into 2 x cp "
                        "chunks: an odd length splits for cp 1 only (hint: --cp 1, or an "
                        "even --seq-length)", cp, base->seq_length);
          else
            constraint (error, "--cp %d does not split the %d-token sequence into 2 x cp "
                        "chunks (hint: a cp dividing %d)", cp, base->seq_length,
                        base->seq_length / 2);
          return NULL;
        }
    }
  for (guint i = 0; i < s->spec.mbs->len; i++)
    if (g_array_index (s->spec.mbs, int, i) < 1)
      {
        constraint (error, "--mbs %d: micro-batches hold at least one sequence",
                    g_array_index (s->spec.mbs, int, i));
        return NULL;
      }
  for (guint i = 0; i < s->spec.vpp->len; i++)
    if (g_array_index (s->spec.vpp, int, i) < 1)
      {
        constraint (error, "--vpp %d: at least 1", g_array_index (s->spec.vpp, int, i));
        return NULL;
      }
  {
    PlanMoe moe;
    plan_moe (base, m, &moe);
    for (guint i = 0; i < s->spec.ep->len; i++)
      {
        int ep = g_array_index (s->spec.ep, int, i);
        if (ep < 1 || (moe.experts <= 0 && ep > 1)
            || (moe.experts > 0 && moe.experts % ep != 0))
          {
            if (moe.experts > 0)
              constraint (error, "--ep %d does not divide the %d experts of %s (hint: --ep a "
                          "divisor of %d)", ep, (int) moe.experts, m->name, (int) moe.experts);
            else
              constraint (error, "--ep %d: %s has no experts (hint: drop --ep)", ep, m->name);
            return NULL;
          }
      }
  }
  /* switches that exclude each other whatever the degrees: named, not "no plan to try" */
  gboolean tp_above_1 = s->spec.tp->len == 0;
  for (guint i = 0; i < s->spec.tp->len; i++)
    tp_above_1 |= g_array_index (s->spec.tp, int, i) > 1;
  if (s->spec.tp_overlap_mask == 2u && (s->spec.sp_mask == 1u || !tp_above_1))
    {
      gboolean no_sp = s->spec.sp_mask == 1u;
      constraint (error, "--tp-comm-overlap needs sequence parallelism with tp > 1 (Megatron "
                  "asserts --sequence-parallel with it), which %s rules out (hint: drop "
                  "--tp-comm-overlap%s)", no_sp ? "--no-sequence-parallel" : "--tp 1",
                  no_sp ? " or --no-sequence-parallel" : ", or let --tp take more values");
      return NULL;
    }
  gboolean vpp_1 = s->spec.vpp->len == 0;
  for (guint i = 0; i < s->spec.vpp->len; i++)
    vpp_1 |= g_array_index (s->spec.vpp, int, i) == 1;
  if (!vpp_1 && s->spec.schedule_mask != 0
      && !(s->spec.schedule_mask & (1u << PLAN_SCHED_INTERLEAVED_1F1B)))
    {
      constraint (error, "--vpp above 1 runs the Interleaved1F1B schedule, which --schedule "
                  "leaves out (hint: add Interleaved1F1B to --schedule, or --vpp 1)");
      return NULL;
    }
  /* the mirror: Interleaved1F1B alone with vpp 1 alone (it was blamed on the layer split,
   * hint "widen --vpp or --pp", though no --pp helps) */
  gboolean vpp_above_1 = s->spec.vpp->len == 0;
  for (guint i = 0; i < s->spec.vpp->len; i++)
    vpp_above_1 |= g_array_index (s->spec.vpp, int, i) > 1;
  if (!vpp_above_1 && s->spec.schedule_mask == (1u << PLAN_SCHED_INTERLEAVED_1F1B))
    {
      constraint (error, "--schedule Interleaved1F1B runs two or more model chunks per "
                  "pipeline rank, which --vpp 1 rules out (hint: --vpp 2 or more, or add "
                  "1F1B to --schedule)");
      return NULL;
    }
  /* one pipeline stage has nothing to interleave (the enumeration gives pp 1 only
   * vpp 1 and no Interleaved1F1B): named, not "no plan to try ... the batch" */
  gboolean pp_above_1 = s->spec.pp->len == 0;
  for (guint i = 0; i < s->spec.pp->len; i++)
    pp_above_1 |= g_array_index (s->spec.pp, int, i) > 1;
  if (!pp_above_1 && !vpp_1)
    {
      constraint (error, "--vpp above 1 interleaves pipeline stages, which --pp 1 rules out "
                  "(hint: --pp 2 or more, or --vpp 1)");
      return NULL;
    }
  if (!pp_above_1 && s->spec.schedule_mask == (1u << PLAN_SCHED_INTERLEAVED_1F1B))
    {
      constraint (error, "--schedule Interleaved1F1B interleaves pipeline stages, which --pp 1 "
                  "rules out (hint: --pp 2 or more, or --schedule 1F1B)");
      return NULL;
    }
  /* every virtual stage count given splits the layers into more model chunks than they
   * have, even at the smallest pp above 1: named, not "the values given exclude each
   * other" (or, under --fast, "--mbs 1,2 divides no local batch") */
  if (!vpp_1)
    {
      int vmin = G_MAXINT, pmin = s->spec.pp->len == 0 ? 2 : G_MAXINT;
      for (guint i = 0; i < s->spec.vpp->len; i++)
        vmin = MIN (vmin, g_array_index (s->spec.vpp, int, i));
      for (guint i = 0; i < s->spec.pp->len; i++)
        if (g_array_index (s->spec.pp, int, i) > 1)
          pmin = MIN (pmin, g_array_index (s->spec.pp, int, i));
      if ((gint64) vmin * pmin > (gint64) L + 2)
        {
          int vmax = (L + 2) / pmin;
          g_autofree char *hint = vmax >= 2
            ? g_strdup_printf ("--vpp between 2 and %d, or --vpp 1", vmax)
            : g_strdup ("--vpp 1, or a smaller --pp");
          constraint (error, "--vpp %d: %s has %d layers, so with --pp %d or more no more "
                      "than %d model chunks per pipeline rank hold a layer slot each (the "
                      "layers, the embedding and the loss) (hint: %s)", vmin, m->name, L,
                      pmin, vmax, hint);
          return NULL;
        }
    }

  /* shardings */
  s->shards = g_array_new (FALSE, FALSE, sizeof (SearchShard));
  if (s->spec.sharding->len > 0)
    g_array_append_vals (s->shards, s->spec.sharding->data, s->spec.sharding->len);
  else
    for (int k = PLAN_SHARD_NONE; k <= PLAN_SHARD_HSDP; k++)
      {
        SearchShard sh = { k, 0 };
        g_array_append_val (s->shards, sh);
      }

  for (guint gi = 0; gi < gpus->len; gi++)
    {
      int g = g_array_index (gpus, int, gi);
      g_autoptr (GArray) tps = g_array_new (FALSE, FALSE, sizeof (int));
      for (int t = 1; t <= heads && t <= g; t++)
        if (heads % t == 0 && kv % t == 0 && (t <= server || spec->allow_cross_node_tp))
          g_array_append_val (tps, t);
      tps = values_or (s->spec.tp, g_steal_pointer (&tps));
      /* TP groups inside one NVLink domain each: a degree whose groups straddle two
       * (tp 3 on 8-GPU servers) only with --allow-cross-node-tp */
      for (guint k = tps->len; k-- > 0 && !spec->allow_cross_node_tp;)
        if (tp_straddles (g_array_index (tps, int, k), server, g))
          g_array_remove_index (tps, k);
      g_autoptr (GArray) cps = g_array_new (FALSE, FALSE, sizeof (int));
      for (int c = 1; c <= 64; c *= 2)
        if (c == 1 || (base->seq_length % (2 * c) == 0 && base->seq_length / c >= 1024))
          g_array_append_val (cps, c);
      cps = values_or (s->spec.cp, g_steal_pointer (&cps));
      g_autoptr (GArray) pps = g_array_new (FALSE, FALSE, sizeof (int));
      for (int p = 1; p <= L && p <= g; p++)
        g_array_append_val (pps, p);
      pps = values_or (s->spec.pp, g_steal_pointer (&pps));
      enumerate (s, g, tps, cps, pps);
    }
  if (s->cands->len == 0)
    {
      empty_space_error (s, error);
      return NULL;
    }
  return g_steal_pointer (&s);
}

void
search_space_free (SearchSpace *s)
{
  if (s == NULL)
    return;
  search_spec_clear (&s->spec);
  g_clear_pointer (&s->cands, g_array_unref);
  g_clear_pointer (&s->vpp_values, g_array_unref);
  g_clear_pointer (&s->shards, g_array_unref);
  g_clear_pointer (&s->bounds, g_hash_table_unref);
  g_clear_pointer (&s->coarse, g_hash_table_unref);
  g_clear_pointer (&s->layouts, g_hash_table_unref);
  g_clear_pointer (&s->slot_tables, g_hash_table_unref);
  g_clear_pointer (&s->pair_tables, g_hash_table_unref);
  g_mutex_clear (&s->lock);
  g_free (s);
}

guint64
search_space_size (const SearchSpace *s)
{
  return s->cands->len;
}

guint64
search_space_size_at (const SearchSpace *s, int gpus)
{
  guint64 n = 0;
  for (guint i = 0; i < s->cands->len; i++)
    n += g_array_index (s->cands, SearchCand, i).gpus == gpus;
  return n;
}

const SearchSpec *
search_space_spec (const SearchSpace *s)
{
  return &s->spec;
}

const SearchCand *
search_cand (const SearchSpace *s, guint64 i)
{
  return &g_array_index (s->cands, SearchCand, i);
}

void
search_cand_to_plan (const SearchSpace *s, const SearchCand *c, Plan *plan)
{
  plan_copy (plan, &s->spec.base);
  plan->world_size = c->gpus;
  plan->tp = c->tp;
  plan->cp = c->cp;
  plan->pp = c->pp;
  plan->ep = c->ep;
  plan->etp = c->etp;
  plan->edp = 0;
  plan->dp = 0;
  plan->dp_given = 0;
  plan->dp_replicate = 0;
  plan->vpp = c->vpp;
  plan->layers_per_virtual_stage = 0;
  plan->first_stage_layers = plan->last_stage_layers = -1;
  plan->first_chunk_layers = plan->last_chunk_layers = -1;
  if (c->first == SEARCH_SPLIT_ACCOUNTED)
    plan->account_embedding = plan->account_loss = TRUE;
  else if (c->vpp > 1)
    {
      /* the uneven split is of model chunks: only the first and the last differ, which
       * Megatron-Core's stage flags cannot say with vpp > 1 (they split a stage's layers
       * evenly over its chunks) */
      plan->first_chunk_layers = c->first;
      plan->last_chunk_layers = c->last;
    }
  else
    {
      plan->first_stage_layers = c->first;
      plan->last_stage_layers = c->last;
    }
  plan->cp_comm = c->cp_comm;
  plan->micro_batch = c->mbs;
  plan->local_batch = 0;
  plan->grad_accum = 0;
  plan->schedule = c->sched;
  plan->schedule_set = TRUE;
  plan->sharding = c->sharding;
  plan->hsdp_shard_size = c->sharding == PLAN_SHARD_HSDP ? c->hsdp_k : 0;
  plan->recompute = c->recompute;
  plan->recompute_method = PLAN_RECOMPUTE_UNIFORM;
  plan->recompute_num_layers = 0;
  plan->sequence_parallel = c->sp;
  plan->tp_comm_overlap = c->tpo;
  /* a stack that offers async TP overlaps TP that way (TorchTitan: 'offered only as
   * async TP', its preset's note; MaxText's collective matmul, which predicts the same
   * either way), with what that needs (plan_check_stack: TorchTitan refuses it
   * without a compiled model) */
  const FwStack *st = s->spec.stack;
  if (st != NULL && st->async_tp != FW_OPT_NO)
    plan->async_tp = c->tpo;
  /* the MoE overlaps the stack always runs with ep > 1, as predict turns them on */
  if (st != NULL)
    plan_apply_stack_moe (plan, st);
  plan->overlap_grad_reduce = c->dpo;
  plan->overlap_param_gather = c->dpo;
  g_free (plan->rank_order);
  plan->rank_order = g_strdup (c->order ? SEARCH_ORDER_PP_INNER : SEARCH_ORDER_MEGATRON);
}

void
search_candidate_plan (const SearchSpace *s, guint64 i, Plan *plan)
{
  search_cand_to_plan (s, search_cand (s, i), plan);
}

/* The plan as `tandem predict` flags, in Megatron-LM's spelling wherever Megatron has the
 * flag and predict reads it (docs: shared/reference/conventions.md, Megatron's
 * arguments.py): --tensor-model-parallel-size, --pipeline-model-parallel-size,
 * --context-parallel-size, --expert-model-parallel-size, --expert-tensor-parallel-size,
 * --num-virtual-stages-per-pipeline-rank, --micro-batch-size, --global-batch-size,
 * --seq-length, --decoder-first/last-pipeline-num-layers, --account-for-*,
 * --use-distributed-optimizer (ZeRO-1), --recompute-granularity, --sequence-parallel,
 * --tp-comm-overlap, --overlap-grad-reduce, --overlap-param-gather. tandem's own where
 * Megatron has none: --model, --cluster, --gpus (Megatron takes the world size from the
 * launcher), --schedule (Megatron infers it from the virtual stages), --sharding for
 * ZeRO-2/3 and HSDP (Megatron-FSDP's --data-parallel-sharding-strategy needs
 * --use-megatron-fsdp, a different stack), --async-tp (TorchTitan), --rank-order. */
/* What --model or --cluster must say to load the same spec again: a preset by its name,
 * a file by its path (a file's name is its basename, which --model does not look up:
 * "--model glm-4.5" for tests/data/models/glm-4.5.json fails as an unknown preset).
 * A source that is no file (a preset, a spec built from flags) gives the name. A path
 * with a character a shell reads is quoted. */
char *
search_spec_arg (const char *name, const char *source)
{
  if (source == NULL || g_str_has_prefix (source, "preset:")
      || !g_file_test (source, G_FILE_TEST_EXISTS))
    return g_strdup (name);
  for (const char *c = source; *c; c++)
    if (!g_ascii_isalnum (*c) && strchr ("_./+-:=@,", *c) == NULL)
      return util_shell_quote (source);
  return g_strdup (source);
}

guint
search_plan_legend (const Plan *p)
{
  /* which of plan_to_string's suffixes the table's legend explains (the suffixes are the
   * plan's name's own: predict and runs named two plans apart only there alike) */
  guint bits = 0;
  if (p->cp > 1 && p->cp_comm == PLAN_CP_ALLGATHER)
    bits |= SEARCH_EXTRA_CPAG;
  else if (p->cp > 1 && p->cp_comm == PLAN_CP_A2A)
    bits |= SEARCH_EXTRA_CPA2A;
  if (p->tp_comm_overlap)
    bits |= SEARCH_EXTRA_TPOV;
  if (p->overlap_grad_reduce && p->overlap_param_gather)
    bits |= SEARCH_EXTRA_DPOV;
  else if (p->overlap_grad_reduce)
    bits |= SEARCH_EXTRA_GRADOV;
  else if (p->overlap_param_gather)
    bits |= SEARCH_EXTRA_PARAMOV;
  if (p->pp > 1 && p->dp > 1 && p->rank_order != NULL
      && !g_str_equal (p->rank_order, SEARCH_ORDER_MEGATRON))
    bits |= SEARCH_EXTRA_PPDP;
  if (p->account_embedding || p->account_loss)
    bits |= SEARCH_EXTRA_ACCT;
  if (p->first_stage_layers >= 0 || p->last_stage_layers >= 0)
    bits |= SEARCH_EXTRA_SPLIT;
  if (p->first_chunk_layers >= 0 || p->last_chunk_layers >= 0)
    bits |= SEARCH_EXTRA_CHUNKS;
  return bits;
}

char *
search_plan_flags (const SearchSpace *s, const Plan *p, const char *extra)
{
  GString *f = g_string_new (NULL);
  g_autofree char *model = search_spec_arg (s->spec.model->name, s->spec.model->source);
  g_autofree char *cluster = search_spec_arg (s->spec.cluster->name, s->spec.cluster->source);
  g_string_append_printf (f, "--model %s --cluster %s --gpus %d "
                          "--tensor-model-parallel-size %d --pipeline-model-parallel-size %d",
                          model, cluster, p->world_size, p->tp, p->pp);
  if (p->cp > 1)
    g_string_append_printf (f, " --context-parallel-size %d --cp-comm-type %s", p->cp,
                            plan_cp_comm_name (p->cp_comm));
  if (p->ep > 1 || (p->etp > 0 && p->etp != p->tp))
    g_string_append_printf (f, " --expert-model-parallel-size %d "
                            "--expert-tensor-parallel-size %d", p->ep,
                            p->etp > 0 ? p->etp : p->tp);
  PlanMoe moe;
  plan_moe (p, s->spec.model, &moe);
  if (p->moe_shared_expert_overlap && moe.shared_ffn > 0)
    g_string_append (f, " --moe-shared-expert-overlap");
  if (p->vpp > 1)
    g_string_append_printf (f, " --num-virtual-stages-per-pipeline-rank %d", p->vpp);
  g_string_append_printf (f, " --schedule %s", plan_schedule_name (p->schedule));
  if (p->first_stage_layers >= 0)
    g_string_append_printf (f, " --decoder-first-pipeline-num-layers %d",
                            p->first_stage_layers);
  if (p->last_stage_layers >= 0)
    g_string_append_printf (f, " --decoder-last-pipeline-num-layers %d",
                            p->last_stage_layers);
  if (p->first_chunk_layers >= 0)
    g_string_append_printf (f, " --first-chunk-layers %d", p->first_chunk_layers);
  if (p->last_chunk_layers >= 0)
    g_string_append_printf (f, " --last-chunk-layers %d", p->last_chunk_layers);
  if (p->account_embedding)
    g_string_append (f, " --account-for-embedding-in-pipeline-split");
  if (p->account_loss)
    g_string_append (f, " --account-for-loss-in-pipeline-split");
  g_string_append_printf (f, " --micro-batch-size %d --global-batch-size %d --seq-length %d",
                          p->micro_batch, p->global_batch, p->seq_length);
  if (p->sharding == PLAN_SHARD_HSDP)
    g_string_append_printf (f, " --sharding hsdp:%d", p->hsdp_shard_size);
  else if (p->sharding == PLAN_SHARD_ZERO1)
    g_string_append (f, " --use-distributed-optimizer");
  else if (p->sharding != PLAN_SHARD_NONE)
    g_string_append_printf (f, " --sharding %s", plan_sharding_name (p->sharding));
  if (p->recompute != PLAN_RECOMPUTE_NONE)
    g_string_append_printf (f, " --recompute-granularity %s",
                            plan_recompute_name (p->recompute));
  if (p->sequence_parallel)
    g_string_append (f, " --sequence-parallel");
  if (p->async_tp && p->tp_comm_overlap)
    g_string_append (f, " --async-tp");
  else if (p->tp_comm_overlap)
    g_string_append (f, " --tp-comm-overlap");
  if (p->overlap_grad_reduce)
    g_string_append (f, " --overlap-grad-reduce");
  if (p->overlap_param_gather)
    g_string_append (f, " --overlap-param-gather");
  if (p->rank_order && !g_str_equal (p->rank_order, SEARCH_ORDER_MEGATRON))
    g_string_append_printf (f, " --rank-order %s", p->rank_order);
  if (extra != NULL && *extra)
    g_string_append_printf (f, " %s", extra);
  return g_string_free (f, FALSE);
}

char *
search_candidate_flags (const SearchSpace *s, guint64 i, const char *extra)
{
  Plan p;
  search_candidate_plan (s, i, &p);
  char *flags = search_plan_flags (s, &p, extra);
  plan_clear (&p);
  return flags;
}

SimPrediction *
search_candidate_predict (const SearchSpace *s, guint64 i, gboolean keep_timeline,
                          GError **error)
{
  Plan p;
  search_candidate_plan (s, i, &p);
  SimPrediction *pred = NULL;
  if (plan_resolve (&p, s->spec.model, s->spec.cluster, error))
    {
      SimOptions opts = s->spec.sim;
      opts.keep_timeline = keep_timeline;
      pred = sim_predict (s->spec.model, &p, s->spec.cluster, &opts, error);
    }
  plan_clear (&p);
  return pred;
}

double
search_score (const SearchSpace *s, double step_time_s, int gpus)
{
  switch (s->spec.objective)
    {
    case SEARCH_OBJ_MFU:
    case SEARCH_OBJ_TOKENS_PER_GPU_HOUR:
      return step_time_s * gpus;
    case SEARCH_OBJ_TOKENS_PER_S:
    case SEARCH_OBJ_STEP_TIME:
    default:
      return step_time_s;
    }
}
