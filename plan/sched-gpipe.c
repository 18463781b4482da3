/* plan/sched-gpipe.c - GPipe (Huang et al. 2019): every forward, then every backward.
 * Each stage holds the activations of all m micro-batches; the bubble is
 * (p-1)/(m+p-1) of the step. */
#include "plan/program.h"

static void
gpipe_build (int pp, int v, int m, int group, int stage, GArray *slots)
{
  (void) group;
  for (int chunk = 0; chunk < v; chunk++)
    for (int mb = 0; mb < m; mb++)
      {
        ProgSlot s = { .backward = 0, .mb = (gint32) mb, .chunk = (gint16) chunk };
        g_array_append_val (slots, s);
      }
  for (int chunk = v - 1; chunk >= 0; chunk--)
    for (int mb = 0; mb < m; mb++)
      {
        ProgSlot s = { .backward = 1, .mb = (gint32) mb, .chunk = (gint16) chunk };
        g_array_append_val (slots, s);
      }
}

const ProgSchedOps prog_sched_gpipe = {
  .name = "GPipe",
  .id = PLAN_SCHED_GPIPE,
  .about = "all forwards, then all backwards (Huang et al. 2019); holds m micro-batches",
  .build = gpipe_build,
};
