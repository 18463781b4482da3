/* exec/progress.c - progress beats: what a rank publishes, and how a wait that ran out
 * tells a slow peer from a stuck or dead one (exec/backend.h). The transport is the
 * backend's (backend-cpu.c: non-blocking MPI messages from the progress thread). */
#include <string.h>
#include "exec/backend.h"

void
exec_progress_note (ExecBackend *b, int step, int steps, guint32 task, const char *what)
{
  if (b == NULL || b->ops->progress_publish == NULL)
    return;
  /* the count lives with the backend: read back through the peer view of ourselves */
  ExecPeerProgress self;
  gint64 count = exec_progress_peer (b, b->rank, &self) ? self.p.count : 0;
  ExecProgress p = { .count = count + 1, .step = step, .steps = steps, .task = task };
  if (what)
    g_strlcpy (p.what, what, sizeof p.what);
  b->ops->progress_publish (b, &p);
}

gboolean
exec_progress_peer (ExecBackend *b, int rank, ExecPeerProgress *out)
{
  memset (out, 0, sizeof *out);
  if (b == NULL || b->ops->progress_peer == NULL || rank < 0 || rank >= b->world)
    return FALSE;
  return b->ops->progress_peer (b, rank, out);
}

/* "at step 2 of 4, task 17 (fwd L3)", "waiting for rank 0", "before its first task" */
static char *
describe (const ExecProgress *p)
{
  if (p->count == 0)
    return g_strdup ("before its first task");
  if (p->steps == 0)
    return g_strdup (p->what);
  return g_strdup_printf ("at step %d of %d, task %u%s%s%s", p->step + 1, p->steps, p->task,
                          p->what[0] ? " (" : "", p->what, p->what[0] ? ")" : "");
}

gboolean
exec_progress_keep_waiting (ExecBackend *b, const int *ranks, int n, double timeout_s,
                            gboolean need_progress, char **why)
{
  *why = NULL;
  int silent = -1, behind = -1, moving = 0, peers = 0;
  ExecPeerProgress ps = { 0 }, pb = { 0 };
  for (int i = 0; i < n; i++)
    {
      ExecPeerProgress p;
      if (ranks[i] == b->rank)
        continue;
      if (!exec_progress_peer (b, ranks[i], &p))
        return FALSE;                     /* no beats: the plain timeout stands */
      peers++;
      if (p.beat_age_s >= timeout_s)
        {
          if (silent < 0 || p.beat_age_s > ps.beat_age_s)
            silent = ranks[i], ps = p;
          continue;
        }
      if (p.change_age_s < timeout_s)
        moving++;
      /* the one furthest behind: fewest tasks started, then the longest still */
      if (behind < 0 || p.p.count < pb.p.count
          || (p.p.count == pb.p.count && p.change_age_s > pb.change_age_s))
        behind = ranks[i], pb = p;
    }
  if (peers == 0)
    return FALSE;
  if (silent >= 0)
    {
      g_autofree char *last = describe (&ps.p);
      *why = ps.heard
        ? g_strdup_printf ("rank %d sent nothing for %.1f s (dead, stopped or hung; its last "
                           "word: %s)", silent, ps.beat_age_s, last)
        : g_strdup_printf ("rank %d sent nothing for %.1f s (dead, stopped or hung; never "
                           "heard from)", silent, ps.beat_age_s);
      return FALSE;
    }
  if (!need_progress || moving > 0)
    return TRUE;
  g_autofree char *at = describe (&pb.p);
  if (pb.beat_age_s >= 3 * pb.period_s)
    /* no beat for three periods: more than a slow progress thread */
    *why = g_strdup_printf ("rank %d sent nothing for %.1f s (dead, stopped or hung; its last "
                            "word: %s)", behind, pb.beat_age_s, at);
  else
    *why = g_strdup_printf ("rank %d is alive but made no progress for %.1f s (%s)", behind,
                            pb.change_age_s, at);
  return FALSE;
}
