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
 * A zero-bubble backward (steps 3 and 7, and the second half of step 6's: from its
 * middle iteration, before that iteration's B1 on an odd h, before its B0 on an even h)
 * computes the input gradients only and sends them on; its weight-gradient GEMMs wait
 * in a FIFO for a W slot (ProgSlot.w; program.c expand_w), as DualPipe's
 * WeightGradStore. Every other backward is whole. An overlapped pair F&B is the forward
 * unit followed by the backward unit on the rank's compute stream; the communication the
 * pairing hides (the MoE all-to-alls) is hidden by the stack's moe_a2a_overlap (program.c
 * a2a_next_layer), not by the slot order. */
#include "plan/program.h"

static void
append (GArray *slots, int backward, int w, int chunk, int mb)
{
  ProgSlot s = { .backward = (guint8) backward, .w = (guint8) w, .mb = (gint32) mb,
                 .chunk = (gint16) chunk };
  g_array_append_val (slots, s);
}

typedef struct {
  GArray *slots;
  int     second_half;      /* phase p is chunk p ^ second_half */
  int     half_m;
  int     next[2][2];       /* [backward][chunk]: the next micro-batch of the direction */
  int     zb;               /* backwards defer their weight gradients */
  /* the deferred backwards, oldest first (at most m of them) */
  int     fifo_head, fifo_tail;
  gint32 *fifo_mb, *fifo_chunk;
} Order;

static void
unit (Order *o, int backward, int phase)
{
  int chunk = phase ^ o->second_half;
  int j = o->next[backward][chunk]++;
  int mb = chunk * o->half_m + j;
  append (o->slots, backward, backward && o->zb, chunk, mb);
  if (backward && o->zb)
    {
      o->fifo_mb[o->fifo_tail] = mb;
      o->fifo_chunk[o->fifo_tail++] = chunk;
    }
}

/* DualPipe's _weight_chunk: the oldest deferred backward's weight gradients */
static void
weight (Order *o)
{
  g_assert (o->fifo_head < o->fifo_tail);
  append (o->slots, 1, 2, o->fifo_chunk[o->fifo_head], o->fifo_mb[o->fifo_head]);
  o->fifo_head++;
}

static void
dualpipe_build (int pp, int v, int m, int group, int stage, GArray *slots)
{
  (void) v;
  (void) group;
  int H = pp / 2, h = MIN (stage, pp - 1 - stage);
  Order ord = { 0 }, *o = &ord;
  g_autofree gint32 *fifo = g_new (gint32, 2 * (gsize) MAX (m, 1));
  o->fifo_mb = fifo;
  o->fifo_chunk = fifo + MAX (m, 1);
  o->slots = slots;
  o->second_half = stage >= H;
  o->half_m = m / 2;
  for (int i = 0; i < 2 * (H - h - 1); i++)              /* 1 */
    unit (o, 0, 0);
  for (int i = 0; i < h + 1; i++)                        /* 2 */
    {
      unit (o, 0, 0);
      unit (o, 0, 1);
    }
  for (int i = 0; i < H - h - 1; i++)                    /* 3 */
    {
      o->zb = 1;
      unit (o, 1, 1);
      o->zb = 0;
      weight (o);
      unit (o, 0, 1);
    }
  for (int i = 0; i < m / 2 - pp + h + 1; i++)           /* 4 */
    {
      unit (o, 0, 0);
      unit (o, 1, 1);
      unit (o, 0, 1);
      unit (o, 1, 0);
    }
  for (int i = 0; i < H - h - 1; i++)                    /* 5 */
    {
      unit (o, 1, 1);
      unit (o, 0, 1);
      unit (o, 1, 0);
    }
  for (int i = 0; i < h + 1; i++)                        /* 6 */
    {
      if (i == (h + 1) / 2 && h % 2 == 1)
        o->zb = 1;
      unit (o, 1, 1);
      if (i == (h + 1) / 2 && h % 2 == 0)
        o->zb = 1;
      unit (o, 1, 0);
    }
  o->zb = 1;
  for (int i = 0; i < H - h - 1; i++)                    /* 7 */
    {
      weight (o);
      unit (o, 1, 0);
    }
  for (int i = 0; i < h + 1; i++)                        /* 8 */
    weight (o);
  g_assert (o->fifo_head == o->fifo_tail);
}

const ProgSchedOps prog_sched_dualpipe = {
  .name = "DualPipe",
  .id = PLAN_SCHED_DUALPIPE,
  .about = "bidirectional pipeline, two stages a rank, half the micro-batches from each end "
           "(DeepSeek-V3)",
  .build = dualpipe_build,
};
