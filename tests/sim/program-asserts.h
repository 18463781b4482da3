/* tests/sim/program-asserts.h - checks of a built step program that several simulator
 * tests share. */
#pragma once

#include "plan/program.h"

/* Every RECV of `prog` and its SEND name each other, across the stages they join; returns
 * the number of RECV tasks. */
static G_GNUC_UNUSED guint
assert_pipeline_peers (const ProgProgram *prog)
{
  guint n_recv = 0;
  for (guint32 i = 0; i < prog->tasks->len; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      if (t->kind != PROG_TASK_RECV)
        continue;
      const ProgTask *s = prog_task (prog, (guint32) t->peer_task);
      g_assert_cmpint (s->kind, ==, PROG_TASK_SEND);
      g_assert_cmpint (s->stage, ==, t->peer_stage);
      g_assert_cmpint (s->peer_stage, ==, t->stage);
      g_assert_cmpint ((gint32) s->peer_task, ==, (gint32) i);
      n_recv++;
    }
  return n_recv;
}
