/* plan/sched-dualpipe.c - DualPipe (DeepSeek-V3 technical report, arXiv 2412.19437,
 * Sec. 3.2.1, Fig. 5; the public schedule deepseek-ai/DualPipe, DualPipe.step): a
 * bidirectional pipeline. Rank r holds two model chunks: chunk 0 is stage r of the
 * forward direction, chunk 1 stage pp - 1 - r of the reverse direction (plan.c
 * plan_model_chunk), so the model's parameters are held twice. Half of the m
 * micro-batches (0 .. m/2 - 1) enter at rank 0 and run through chunk 0 of every rank;
 * the other half (m/2 .. m - 1) enter at rank pp - 1 and run through chunk 1.
 *
 * DualPipe.step counts in "phases": on the first half of the ranks phase 0 is the forward
 * direction, on the second half the reverse one. With H = pp/2 and h = min(r, pp-1-r) the
 * rank's order is eight steps:
 *   1  2 (H - h - 1) x F0
 *   2  (h + 1) x F0 F1
 *   3  (H - h - 1) x B1 W F1          (B1 zero-bubble: its weight gradient deferred)
 *   4  (m/2 - pp + h + 1) x F0&B1 F1&B0   (overlapped forward-backward pairs)
 *   5  (H - h - 1) x B1 F1&B0
 *   6  (h + 1) x B1 B0
 *   7  (H - h - 1) x W B0
 *   8  (h + 1) x W
 * Here a backward unit is the whole backward, input and weight gradients together: the
 * W steps are not slots of their own and a deferred weight gradient runs inside its B
 * (so the zero-bubble part of the saving, 3W per rank pair in Table 2's
 * (pp/2 - 1)(F&B + B - 3W), is not taken: the bubble is the W = 0 bound). An overlapped
 * pair F&B is the forward unit followed by the backward unit on the rank's compute
 * stream; the communication the pairing hides (the MoE all-to-alls) is hidden by the
 * stack's moe_a2a_overlap (program.c a2a_next_layer), not by the slot order. */
#include "plan/program.h"

static void
append (GArray *slots, int backward, int chunk, int mb)
{
  ProgSlot s = { .backward = (guint8) backward, .mb = (gint16) mb, .chunk = (gint16) chunk };
  g_array_append_val (slots, s);
}

typedef struct {
  GArray *slots;
  int     second_half;      /* phase p is chunk p ^ second_half */
  int     half_m;
  int     next[2][2];       /* [backward][chunk]: the next micro-batch of the direction */
} Order;

static void
unit (Order *o, int backward, int phase)
{
  int chunk = phase ^ o->second_half;
  int j = o->next[backward][chunk]++;
  append (o->slots, backward, chunk, chunk * o->half_m + j);
}

static void
dualpipe_build (int pp, int v, int m, int group, int stage, GArray *slots)
{
  (void) v;
  (void) group;
  int H = pp / 2, h = MIN (stage, pp - 1 - stage);
  Order o = { .slots = slots, .second_half = stage >= H, .half_m = m / 2 };
  for (int i = 0; i < 2 * (H - h - 1); i++)              /* 1 */
    unit (&o, 0, 0);
  for (int i = 0; i < h + 1; i++)                        /* 2 */
    {
      unit (&o, 0, 0);
      unit (&o, 0, 1);
    }
  for (int i = 0; i < H - h - 1; i++)                    /* 3 */
    {
      unit (&o, 1, 1);
      unit (&o, 0, 1);
    }
  for (int i = 0; i < m / 2 - pp + h + 1; i++)           /* 4 */
    {
      unit (&o, 0, 0);
      unit (&o, 1, 1);
      unit (&o, 0, 1);
      unit (&o, 1, 0);
    }
  for (int i = 0; i < H - h - 1; i++)                    /* 5 */
    {
      unit (&o, 1, 1);
      unit (&o, 0, 1);
      unit (&o, 1, 0);
    }
  for (int i = 0; i < h + 1; i++)                        /* 6 */
    {
      unit (&o, 1, 1);
      unit (&o, 1, 0);
    }
  for (int i = 0; i < H - h - 1; i++)                    /* 7 */
    unit (&o, 1, 0);
}

const ProgSchedOps prog_sched_dualpipe = {
  .name = "DualPipe",
  .id = PLAN_SCHED_DUALPIPE,
  .about = "bidirectional pipeline, two stages a rank, half the micro-batches from each end "
           "(DeepSeek-V3)",
  .build = dualpipe_build,
};
