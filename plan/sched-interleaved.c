/* plan/sched-interleaved.c - interleaved 1F1B (Narayanan et al. SC'21, Megatron's
 * forward_backward_pipelining_with_interleaving): each rank holds v model chunks (chunk
 * c of rank i is model chunk c x p + i). Micro-batches go through the chunks in groups
 * of p: forward unit k is chunk (k / g) mod v of micro-batch (group start + k mod g),
 * backward units visit the chunks in reverse. Warm-up: 2 (p - i - 1) + (v - 1) p units,
 * capped at m v. The bubble shrinks by v. When m is not a multiple of p the last group is
 * shorter (Megatron's microbatch_group_size_per_vp_stage generalisation; the Llama 3
 * paper's 405B run used such counts). */
#include "plan/program.h"

/* The i-th forward (or backward) unit of the rank. */
static void
unit_of (int pp, int v, int m, int k, gboolean backward, int *mb, int *chunk)
{
  int per_group = pp * v;
  int group = k / per_group;
  int start = group * pp;
  int g = MIN (pp, m - start);          /* the last group may be shorter */
  int in_group = k - group * per_group;
  int c = in_group / g;
  *mb = start + in_group % g;
  *chunk = backward ? v - 1 - c : c;
}

static void
append (GArray *slots, int pp, int v, int m, int k, int backward)
{
  int mb, chunk;
  unit_of (pp, v, m, k, backward, &mb, &chunk);
  ProgSlot s = { .backward = (guint8) backward, .mb = (gint16) mb, .chunk = (gint16) chunk };
  g_array_append_val (slots, s);
}

static void
interleaved_build (int pp, int v, int m, int stage, GArray *slots)
{
  int total = m * v;
  int warmup = MIN ((pp - stage - 1) * 2 + (v - 1) * pp, total);
  for (int k = 0; k < warmup; k++)
    append (slots, pp, v, m, k, 0);
  for (int k = 0; k < total - warmup; k++)
    {
      append (slots, pp, v, m, warmup + k, 0);
      append (slots, pp, v, m, k, 1);
    }
  for (int k = total - warmup; k < total; k++)
    append (slots, pp, v, m, k, 1);
}

const ProgSchedOps prog_sched_interleaved = {
  .name = "Interleaved1F1B",
  .id = PLAN_SCHED_INTERLEAVED_1F1B,
  .about = "1F1B over v model chunks per rank; bubble divided by v (Megatron virtual pipeline)",
  .build = interleaved_build,
};
