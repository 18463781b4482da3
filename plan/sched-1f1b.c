/* plan/sched-1f1b.c - 1F1B (PipeDream-Flush; Narayanan et al. 2021, Megatron's
 * forward_backward_pipelining_without_interleaving): stage i runs min(p - i - 1, m)
 * warm-up forwards, then alternates one forward and one backward, then drains the
 * remaining backwards. Same bubble as GPipe, but stage i holds at most p - i
 * micro-batches of activations. */
#include "plan/program.h"

static void
append (GArray *slots, int backward, int mb)
{
  ProgSlot s = { .backward = (guint8) backward, .mb = (gint32) mb, .chunk = 0 };
  g_array_append_val (slots, s);
}

static void
one_f_one_b_build (int pp, int v, int m, int group, int stage, GArray *slots)
{
  (void) group;
  int warmup = MIN (pp - stage - 1, m);
  for (int i = 0; i < warmup; i++)
    append (slots, 0, i);
  for (int i = 0; i < m - warmup; i++)
    {
      append (slots, 0, warmup + i);
      append (slots, 1, i);
    }
  for (int i = m - warmup; i < m; i++)
    append (slots, 1, i);
}

const ProgSchedOps prog_sched_1f1b = {
  .name = "1F1B",
  .id = PLAN_SCHED_1F1B,
  .about = "one forward one backward after min(p-i-1, m) warm-up forwards (PipeDream-Flush)",
  .build = one_f_one_b_build,
};
