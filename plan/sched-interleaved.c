/* plan/sched-interleaved.c - interleaved 1F1B (Narayanan et al. SC'21, Megatron's
 * forward_backward_pipelining_with_interleaving): each rank holds v model chunks (chunk
 * c of rank i is model chunk c x p + i). Micro-batches go through the chunks in groups
 * of N (--microbatch-group-size-per-virtual-pipeline-stage, default p; the Llama 3
 * paper's tunable N, its Figure 6): forward unit k is chunk (k / g) mod v of micro-batch
 * (group start + k mod g), backward units visit the chunks in reverse. Warm-up:
 * 2 (p - i - 1) + (v - 1) N units, capped at m v. The bubble shrinks by v. When m is not a
 * multiple of N the last group is shorter (Megatron-Core's schedule table; the Llama 3
 * paper's 405B run used such counts), unless the remainder is below p: Megatron-Core
 * refuses those counts, because a group shorter than p deadlocks (stage 0 would run the
 * forward of chunk 1 for a micro-batch still on its way through chunk 0 of the later
 * stages, while those wait on stage 0's backwards); here the remainder joins the group
 * before it, a group of N + r >= p (plan_vpp_group_split), and when that is the only group
 * the warm-up counts it whole, as Megatron-Core does for N = m. N > p holds more
 * micro-batches in flight and gives
 * the pipeline transfers more time to hide; N < p is refused (plan-validate.c): a rank
 * would need a micro-batch back before it has passed all p ranks. */
#include "plan/program.h"

/* The rank's units are written in place, with the group split found once: appended one by
 * one through g_array_append_val, each asking plan_vpp_unit, they cost 0.56 M
 * instructions a prediction of the main job at m256 (its trial of 48 micro-batches),
 * 0.11 M so (callgrind). */
typedef struct {
  int v, n, n_groups, last;
} Groups;

static inline ProgSlot *
put (ProgSlot *out, const Groups *g, int k, int backward)
{
  int mb;
  int chunk = plan_vpp_unit_split (g->v, g->n, g->n_groups, g->last, k, backward, &mb);
  *out = (ProgSlot) { .backward = (guint8) backward, .mb = (gint32) mb, .chunk = (gint16) chunk };
  return out + 1;
}

static void
interleaved_build (int pp, int v, int m, int group, int stage, GArray *slots)
{
  int n = group > 0 ? group : pp;
  int total = m * v;
  int warmup = MIN ((pp - stage - 1) * 2 + (v - 1) * plan_vpp_warmup_group (pp, m, n), total);
  Groups g = { MAX (v, 1), MAX (n, 1), 0, 0 };
  g.n_groups = plan_vpp_group_split (pp, m, g.n, &g.last);
  guint first = slots->len;
  g_array_set_size (slots, first + 2 * (guint) MAX (total, 0));
  ProgSlot *out = &g_array_index (slots, ProgSlot, first);
  for (int k = 0; k < warmup; k++)
    out = put (out, &g, k, 0);
  for (int k = 0; k < total - warmup; k++)
    {
      out = put (out, &g, warmup + k, 0);
      out = put (out, &g, k, 1);
    }
  for (int k = total - warmup; k < total; k++)
    out = put (out, &g, k, 1);
  g_assert (out == &g_array_index (slots, ProgSlot, slots->len));
}

const ProgSchedOps prog_sched_interleaved = {
  .name = "Interleaved1F1B",
  .id = PLAN_SCHED_INTERLEAVED_1F1B,
  .about = "1F1B over v model chunks per rank; bubble divided by v (Megatron virtual pipeline)",
  .build = interleaved_build,
};
