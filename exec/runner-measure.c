/* exec/runner-measure.c - steps, waits and measurement.
 *
 * A step starts after a world barrier (an all-gather of one value), so every rank's times
 * are measured from nearly the same instant; within the step each task's start and end
 * come from events (compute) and ExecSample (communication: posted, seen complete). After
 * the last step every rank's records go to every rank (all-gather; only rank 0 uses
 * them) and rank 0 computes, for the median step, per rank the busy time of compute and
 * of each communication kind and the exposed and bubble time by the simulator's rule
 * (sim/simulate.c stage_stats): while compute is idle, the time goes to the first active
 * kind in the order tp, cp, pp, dp, else to the bubble, until the step's end. Each rank
 * also samples its compute thread's scheduler statistics around every timed step (the
 * share of a core it got while runnable, exec_sched_share); rank 0 keeps the median
 * step's share per rank and the lowest of them (ExecRunResult slowest_share). */
#include "exec/runner-private.h"
#include "exec/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

double
runner_now (ExecRunner *r)
{
  double t = 0;
  /* when the compute stream gets here: at once on the CPU (it computes synchronously);
   * a device's event time exists only once the event has completed */
  exec_event_record (r->mark, r->compute, NULL);
  exec_event_synchronize (r->mark, NULL);
  exec_event_time (r->mark, &t, NULL);
  return t;
}

/* warm-up and measured steps together: r->step runs from 0 to this less one */
static int
runner_total_steps (const ExecRunner *r)
{
  return MAX (r->opts.warmup, 0) + MAX (r->opts.steps, 1);
}

static const char *
task_label (const ExecRunner *r, const ProgTask *t, char *buf, gsize len)
{
  switch (t->kind)
    {
    case PROG_TASK_COMPUTE:
      return prog_block (r->prog, t->block)->name;
    case PROG_TASK_COLL:
      g_snprintf (buf, len, "%s %s", plan_coll_name (t->coll), plan_axis_name (t->axis));
      return buf;
    case PROG_TASK_SEND:
      g_snprintf (buf, len, "send to stage %d", t->peer_stage);
      return buf;
    default:
      g_snprintf (buf, len, "recv from stage %d", t->peer_stage);
      return buf;
    }
}

static char *
group_text (ExecRunner *r, int axis)
{
  if (axis < 0)
    return g_strdup ("a peer");
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "group '%s'", plan_axis_name (axis));
  ExecGroup *g = r->opts.local ? NULL : r->groups[axis];
  if (g)
    {
      g_string_append (s, " (ranks ");
      for (int i = 0; i < g->size; i++)
        g_string_append_printf (s, i ? ",%d" : "%d", g->members[i]);
      g_string_append (s, ")");
    }
  return g_string_free (s, FALSE);
}

/* The group a wait is on: the communication task's axis (pp for sends and receives). */
static int
wait_axis (const ProgTask *t, const ProgTask *on, int axis)
{
  if (on && on->kind != PROG_TASK_COMPUTE)
    return on->kind == PROG_TASK_COLL ? on->axis : PLAN_AXIS_PP;
  if (axis < 0 && t && t->kind != PROG_TASK_COMPUTE)
    return t->kind == PROG_TASK_COLL ? t->axis : PLAN_AXIS_PP;
  return axis;
}

const char *
runner_signal_name (int sig)
{
  switch (sig)
    {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
    }
}

gboolean
runner_interrupted (ExecRunner *r, const ProgTask *t, GError **error)
{
  int sig = r->opts.interrupted != NULL ? *r->opts.interrupted : 0;
  if (sig == 0)
    return FALSE;
  char buf[64];
  /* steps counted from 1 of warm-up and measured together, as the progress a peer
   * reports (exec/progress.c "at step 2 of 4"): the two read the same step alike */
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT,
               "rank %d: interrupted by %s before task %u (%s, stage %d, micro-batch %d), "
               "in step %d of %d", r->rank, runner_signal_name (sig), t->id,
               task_label (r, t, buf, sizeof buf), t->stage, t->mb, r->step + 1,
               runner_total_steps (r));
  return TRUE;
}

void
runner_progress_note (ExecRunner *r, const ProgTask *t)
{
  char buf[64];
  if (r->opts.local)
    return;
  exec_progress_note (r->b, r->step, runner_total_steps (r), t->id,
                      task_label (r, t, buf, sizeof buf));
}

/* The wait on `axis` ran out: go on while its peers beat and one of them moves on (a slow
 * peer); FALSE with *why naming the one to blame otherwise. */
static gboolean
wait_keep_going (ExecRunner *r, int axis, char **why)
{
  *why = NULL;
  if (r->opts.local)
    return FALSE;
  ExecGroup *g = axis >= 0 ? r->groups[axis] : NULL;
  if (g)
    return exec_progress_keep_waiting (r->b, g->members, g->size, r->opts.timeout_s, TRUE, why);
  g_autofree int *all = g_new (int, r->world);
  for (int q = 0; q < r->world; q++)
    all[q] = q;
  return exec_progress_keep_waiting (r->b, all, r->world, r->opts.timeout_s, TRUE, why);
}

static gboolean
wait_failed (ExecRunner *r, const ProgTask *t, const ProgTask *on, const char *what, int axis,
             gboolean interrupted, const GError *cause, const char *why, GError **error)
{
  char b1[64], b2[64];
  const ProgTask *named = on && on->kind != PROG_TASK_COMPUTE ? on : t ? t : on;
  axis = wait_axis (t, on, axis);
  g_autofree char *group = group_text (r, axis);
  GString *m = g_string_new (NULL);
  g_string_append_printf (m, "rank %d: ", r->rank);
  if (named)
    g_string_append_printf (m, "task %u (%s, stage %d, micro-batch %d)", named->id,
                            task_label (r, named, b1, sizeof b1), named->stage, named->mb);
  else
    g_string_append (m, "the end of the step");
  if (cause)
    g_string_append_printf (m, " failed waiting for %s: %s", group, cause->message);
  else if (interrupted)
    g_string_append_printf (m, " was interrupted by %s (the job is being ended: by the user, "
                            "or by the launcher because another rank died or was killed) "
                            "while waiting for %s",
                            runner_signal_name (*r->opts.interrupted), group);
  else
    g_string_append_printf (m, " timed out after %g s waiting for %s%s%s", r->opts.timeout_s,
                            group, why ? ": " : "", why ? why : "");
  if (what)
    g_string_append_printf (m, " (%s)", what);
  if (t && named != t)
    g_string_append_printf (m, "; task %u (%s) needed it", t->id,
                            task_label (r, t, b2, sizeof b2));
  g_string_append_printf (m, ", in step %d of %d", r->step + 1, runner_total_steps (r));
  g_set_error_literal (error, EXEC_ERROR, cause ? cause->code : EXEC_ERROR_TIMEOUT, m->str);
  g_string_free (m, TRUE);
  return FALSE;
}

gboolean
runner_wait (ExecRunner *r, ExecEvent *ev, const ProgTask *t, const ProgTask *on,
             const char *what, int axis, GError **error)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (r->opts.timeout_s * 1e6);
  gulong nap_us = 1;
  for (;;)
    {
      gboolean done = FALSE;
      g_autoptr (GError) local = NULL;
      if (!exec_event_query (ev, &done, &local))
        return wait_failed (r, t, on, what, axis, FALSE, local, NULL, error);
      if (done)
        return TRUE;
      gboolean stop = r->opts.interrupted && *r->opts.interrupted;
      if (stop)
        return wait_failed (r, t, on, what, axis, TRUE, NULL, NULL, error);
      if (g_get_monotonic_time () >= deadline)
        {
          /* out of time: a peer that beats and moves on is slow, not gone; look again a
           * quarter of a timeout later */
          g_autofree char *why = NULL;
          if (!wait_keep_going (r, wait_axis (t, on, axis), &why))
            return wait_failed (r, t, on, what, axis, FALSE, NULL, why, error);
          deadline = g_get_monotonic_time () + (gint64) (r->opts.timeout_s * 1e6 / 4);
        }
      /* back off to 1 ms naps: ranks may share cores (oversubscribed) */
      g_usleep (nap_us);
      nap_us = MIN (nap_us * 2, 1000);
    }
}

gboolean
runner_post (ExecRunner *r, ProgStream stream, ExecGroup *g, const ExecColl *op,
             ExecSample *sample, GError **error)
{
  /* The collective reads what compute issued before it and may overwrite what queued
   * compute still reads (a pooled buffer): on a device whose compute runs behind the
   * host, its stream first waits for the compute stream (the CPU computes
   * synchronously, so there the event has completed already). */
  if (stream != PROG_STREAM_COMPUTE
      && (!exec_event_record (r->cev, r->compute, error)
          || !exec_event_wait (r->streams[stream], r->cev, error)))
    {
      g_prefix_error (error, "rank %d: ", r->rank);
      return FALSE;
    }
  if (!exec_collective (r->streams[stream], g, op, sample, error))
    {
      g_prefix_error (error, "rank %d: ", r->rank);
      return FALSE;
    }
  return TRUE;
}

gboolean
runner_world_gather (ExecRunner *r, const double *mine, gsize n, double *all, GError **error)
{
  if (r->opts.local || r->world_group == NULL)
    {
      memcpy (all, mine, n * sizeof (double));
      return TRUE;
    }
  /* through device memory (NCCL reads nothing else): [mine | all of world], grown to the
   * largest request; not counted in alloc_peak (host arrays before) */
  gsize need = n * (1 + (gsize) r->world);
  if (r->wg_doubles < need)
    {
      exec_buffer_free (r->wg_buf);
      r->wg_doubles = 0;
      if (!(r->wg_buf = exec_buffer_new (r->b, need * sizeof (double), error)))
        return FALSE;
      r->wg_doubles = need;
    }
  double *dev = r->wg_buf->data;
  if (!runner_upload (r, r->wg_buf, dev, mine, n * sizeof (double), error))
    return FALSE;
  /* doubles travel as pairs of floats: an all-gather copies bits, it adds nothing */
  ExecColl op = { .kind = EXEC_COLL_ALL_GATHER, .send = dev, .recv = dev + n,
                  .count = n * (sizeof (double) / sizeof (float)) };
  ExecStream *s = r->streams[PROG_STREAM_N];
  if (!runner_post (r, PROG_STREAM_N, r->world_group, &op, NULL, error))
    return FALSE;
  exec_event_record (r->mark, s, NULL);
  return runner_wait (r, r->mark, NULL, NULL, "the world all-gather between steps", -1, error)
         && runner_download (r, r->wg_buf, dev + n, all, n * r->world * sizeof (double),
                             error);
}

static gint64
peak_rss_bytes (void)
{
  g_autofree char *status = NULL;
  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    {
      const char *p = strstr (status, "VmHWM:");
      if (p)
        return g_ascii_strtoll (p + 6, NULL, 10) * 1024;   /* kB */
    }
  struct rusage ru;
  if (getrusage (RUSAGE_SELF, &ru) == 0)
    return (gint64) ru.ru_maxrss * 1024;                  /* Linux: kilobytes */
  return -1;
}

/* ---- one step --------------------------------------------------------------------------- */

static void
step_begin (ExecRunner *r)
{
  for (guint32 i = 0; i < r->n_tasks; i++)
    {
      RunTaskState *ts = &r->ts[i];
      ts->first = ts->last = (ExecSample) { -1, -1 };
      ts->extra[0] = ts->extra[1] = (ExecSample) { -1, -1 };
      ts->extra_kind[0] = ts->extra_kind[1] = -1;
      ts->gap[0] = ts->gap[1] = -1;
      ts->wait_s = 0;
      ts->issued = FALSE;
    }
  for (guint b = 0; b < r->buckets->len; b++)
    {
      RunBucket *bk = &g_array_index (r->buckets, RunBucket, b);
      bk->gathered = FALSE;
      bk->ag_done = bk->rs_done = NULL;
    }
  r->next_reduction = r->next_ereduction = 0;
  r->ring_ts = NULL;
  r->loss_sum = r->grad_ss = 0;
  r->n_loss = 0;
}

static gsize
max_stage_tasks (const ExecRunner *r)
{
  gsize m = 0;
  for (int s = 0; s < r->prog->n_stages; s++)
    m = MAX (m, r->prog->stages[s].n_tasks);
  return m;
}

static gsize
rec_stride (const ExecRunner *r)
{
  return 1 + max_stage_tasks (r) * REC_N;
}

/* Waits for everything the step issued, then writes its times relative to t0. */
static gboolean
step_end (ExecRunner *r, double *rec, GError **error)
{
  for (guint32 i = 0; i < r->n_tasks; i++)
    {
      const ProgTask *t = prog_task (r->prog, r->first_task + i);
      if (!runner_wait (r, r->ts[i].done, NULL, t, NULL, -1, error))
        return FALSE;
    }
  /* every task's start and end event too (a task's done may be on another stream) */
  if (!exec_stream_synchronize (r->compute, error))
    return FALSE;
  double end = 0;
  for (guint32 i = 0; i < r->n_tasks; i++)
    {
      const ProgTask *t = prog_task (r->prog, r->first_task + i);
      RunTaskState *ts = &r->ts[i];
      double *x = rec + 1 + (gsize) i * REC_N;
      if (t->kind == PROG_TASK_COMPUTE)
        {
          double a = 0, z = 0;
          exec_event_time (ts->start, &a, NULL);
          exec_event_time (ts->end, &z, NULL);
          x[REC_START] = a - r->t0;
          x[REC_END] = z - r->t0;
          x[REC_GAP0] = ts->gap[0] >= 0 ? ts->gap[0] - r->t0 : -1;
          x[REC_GAP1] = ts->gap[1] >= 0 ? ts->gap[1] - r->t0 : -1;
          x[REC_WAIT] = ts->wait_s;
        }
      else
        {
          const ExecSample *last = ts->last.end_s >= 0 ? &ts->last : &ts->first;
          x[REC_START] = ts->first.start_s - r->t0;
          x[REC_END] = MAX (last->end_s, ts->first.end_s) - r->t0;
          x[REC_GAP0] = x[REC_GAP1] = -1;
          x[REC_WAIT] = 0;
        }
      end = MAX (end, x[REC_END]);
      for (int k = 0; k < 2; k++)
        {
          double *e = x + (k ? REC_X1S : REC_X0S);
          if (ts->extra_kind[k] >= 0 && ts->extra[k].start_s >= 0)
            {
              e[0] = ts->extra[k].start_s - r->t0;
              e[1] = MAX (ts->extra[k].end_s, ts->extra[k].start_s) - r->t0;
              e[2] = ts->extra_kind[k];
              end = MAX (end, e[1]);
            }
          else
            e[0] = e[1] = e[2] = -1;
        }
    }
  rec[0] = end;
  return TRUE;
}

/* ---- statistics ------------------------------------------------------------------------- */

typedef struct {
  double t;
  int    delta;   /* +1 start, -1 end */
  int    cls;     /* 0 compute, 1 + ProgCommKind */
} Point;

static int
point_cmp (const void *a, const void *b)
{
  const Point *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return x->delta - y->delta;   /* ends first */
}

static void
add_interval (GArray *pts, double a, double z, int cls)
{
  if (!(z > a) || a < 0)
    return;
  Point p = { a, 1, cls }, q = { z, -1, cls };
  g_array_append_val (pts, p);
  g_array_append_val (pts, q);
}

static int
rank_of_stage (const ExecRunner *r, int rank, int stage)
{
  PlanCoord c;
  plan_layout_coord_of (r->layout, rank, &c);
  c.coord[PLAN_AXIS_PP] = stage;
  return plan_layout_rank_of (r->layout, &c);
}

/* A pipeline transfer counts from the later of its own post and its peer's post: a RECV
 * posted before its SEND, or a SEND posted before its RECV (a rendezvous send waits for
 * the receive), is idle until the peer arrives, which the model counts as bubble, not
 * as exposed pipeline communication. The peer's post is known only after the fact, from
 * the records gathered at the end of the run; both are relative to their rank's step
 * start, which the step's world barrier aligns to within the barrier's skew (an
 * approximation: microseconds on one host, against transfers of milliseconds). */
static double
transfer_start (const ExecRunner *r, const double *all, gsize per_rank, gsize step_off, int rank,
            const ProgTask *t, const double *x)
{
  if ((t->kind != PROG_TASK_RECV && t->kind != PROG_TASK_SEND) || t->peer_task < 0)
    return x[REC_START];
  const ProgTask *peer = prog_task (r->prog, (guint32) t->peer_task);
  int peer_rank = rank_of_stage (r, rank, peer->stage);
  const double *prec = all + (gsize) peer_rank * per_rank + step_off;
  const double *px = prec + 1 + (gsize) (peer->id - r->prog->stages[peer->stage].first) * REC_N;
  return CLAMP (px[REC_START], x[REC_START], MAX (x[REC_END], x[REC_START]));
}

static void
rank_stats (const ExecRunner *r, const double *all, gsize per_rank, gsize step_off, int rank,
            double step_time, ExecRankStats *st)
{
  const double *hdr = all + (gsize) rank * per_rank;
  const double *rec = hdr + step_off;
  int stage = (int) hdr[0];
  const ProgStage *ps = &r->prog->stages[stage];
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (Point));
  for (guint32 i = 0; i < ps->n_tasks; i++)
    {
      const ProgTask *t = prog_task (r->prog, ps->first + i);
      const double *x = rec + 1 + (gsize) i * REC_N;
      if (t->kind == PROG_TASK_COMPUTE)
        {
          double end = x[REC_END] - x[REC_WAIT];
          if (x[REC_GAP0] >= 0)
            {
              add_interval (pts, x[REC_START], x[REC_GAP0], 0);
              add_interval (pts, x[REC_GAP1], end, 0);
            }
          else
            add_interval (pts, x[REC_START], end, 0);
        }
      else
        add_interval (pts, transfer_start (r, all, per_rank, step_off, rank, t, x), x[REC_END],
                      1 + t->comm);
      if (x[REC_X0K] >= 0)
        add_interval (pts, x[REC_X0S], x[REC_X0E], 1 + (int) x[REC_X0K]);
      if (x[REC_X1K] >= 0)
        add_interval (pts, x[REC_X1S], x[REC_X1E], 1 + (int) x[REC_X1K]);
    }
  qsort (pts->data, pts->len, sizeof (Point), point_cmp);
  memset (st, 0, sizeof *st);
  st->rank = rank;
  st->stage = stage;
  st->end_s = rec[0];
  st->peak_rss_bytes = (gint64) hdr[1];
  st->peak_alloc_bytes = (gint64) hdr[2];
  int count[1 + PROG_COMM_N] = { 0 };
  double last = 0, busy[1 + PROG_COMM_N] = { 0 };
  for (guint i = 0; i < pts->len; i++)
    {
      const Point *p = &g_array_index (pts, Point, i);
      double dt = p->t - last;
      if (dt > 0)
        {
          for (int c = 0; c <= PROG_COMM_N; c++)
            if (count[c] > 0)
              busy[c] += dt;
          if (count[0] == 0)
            {
              int k = 0;
              while (k < PROG_COMM_N && count[1 + k] == 0)
                k++;
              if (k == PROG_COMM_N)
                st->bubble_s += dt;
              else
                st->exposed_s[k] += dt;
            }
          last = p->t;
        }
      count[p->cls] += p->delta;
    }
  if (step_time > last)
    st->bubble_s += step_time - last;
  st->compute_s = busy[0];
  for (int k = 0; k < PROG_COMM_N; k++)
    st->comm_s[k] = busy[1 + k];
}

static int
double_cmp (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
compute_stats (ExecRunner *r, const double *all, gsize per_rank, const double *shares)
{
  ExecRunResult *res = &r->result;
  const ProgProgram *p = r->prog;
  int steps = r->opts.steps, world = r->world;
  gsize stride = rec_stride (r);
  res->step_times_s = g_new0 (double, MAX (steps, 1));
  for (int k = 0; k < steps; k++)
    for (int q = 0; q < world; q++)
      res->step_times_s[k] = MAX (res->step_times_s[k],
                                  all[(gsize) q * per_rank + 4 + (gsize) k * stride]);
  /* the median, of an even count the faster of the middle two (as calibrate and the
   * nccl-tests import take it): the step whose figures are reported, so that compute,
   * exposed communication and bubble add up to it (with the mean of the middle two and
   * the faster one's figures, --steps 4 read 0.7311 s against terms summing to 0.6335) */
  g_autofree double *sorted = g_memdup2 (res->step_times_s, sizeof (double) * MAX (steps, 1));
  qsort (sorted, steps, sizeof (double), double_cmp);
  int mid = (steps - 1) / 2;
  res->step_time_s = sorted[mid];
  res->median_step = 0;
  for (int k = 0; k < steps; k++)
    if (res->step_times_s[k] == sorted[mid])
      res->median_step = k;
  double step = res->step_times_s[res->median_step];
  gsize step_off = 4 + (gsize) res->median_step * stride;

  res->ranks = g_new0 (ExecRankStats, world);
  double comm_total = 0, exposed_total = 0;
  for (int q = 0; q < world; q++)
    {
      ExecRankStats *st = &res->ranks[q];
      rank_stats (r, all, per_rank, step_off, q, step, st);
      res->compute_s += st->compute_s / world;
      res->bubble_s += st->bubble_s / world;
      for (int k = 0; k < PROG_COMM_N; k++)
        {
          res->comm_s[k] += st->comm_s[k] / world;
          res->exposed_s[k] += st->exposed_s[k] / world;
          comm_total += st->comm_s[k];
          exposed_total += st->exposed_s[k];
        }
      res->peak_rss_bytes = MAX (res->peak_rss_bytes, st->peak_rss_bytes);
      res->peak_alloc_bytes = MAX (res->peak_alloc_bytes, st->peak_alloc_bytes);
      const double *sh = shares + ((gsize) q * steps + res->median_step) * SHARE_N;
      st->core_share = sh[0];
      st->compute_oncpu_s = sh[1];
      st->compute_waiting_s = sh[2];
      st->compute_slices = sh[3];
      /* the waits' variance per second on a CPU, about their mean rate m = D / w:
       * sum (D_i - m w_i)^2 / sum w_i */
      if (sh[1] > 0)
        {
          const double rate = sh[2] / sh[1];
          st->compute_wait_var_s = MAX (sh[4] - 2 * rate * sh[5] + rate * rate * sh[6], 0.0)
                                   / sh[1];
        }
    }
  /* over the step time reported, so that fraction x step_time_s is the bubble measured
   * (report run had shown 0.0630 s for a run's 0.0550 s when the two differed) */
  res->bubble_fraction = res->step_time_s > 0 ? res->bubble_s / res->step_time_s : 0;
  res->overlap_ratio = comm_total > 0 ? 1.0 - exposed_total / comm_total : 1.0;

  /* the trace: each stage's representative rank (tp = cp = dp = 0) */
  res->stage_rank = g_new0 (int, p->n_stages);
  res->times = g_new0 (ProgTaskTime, p->tasks->len);
  for (int s = 0; s < p->n_stages; s++)
    {
      int q = rank_of_stage (r, 0, s);
      res->stage_rank[s] = q;
      const double *rec = all + (gsize) q * per_rank + step_off;
      for (guint32 i = 0; i < p->stages[s].n_tasks; i++)
        {
          const ProgTask *t = prog_task (p, p->stages[s].first + i);
          const double *x = rec + 1 + (gsize) i * REC_N;
          res->times[t->id].start_s = MAX (transfer_start (r, all, per_rank, step_off, q, t, x), 0);
          res->times[t->id].end_s = MAX (x[REC_END], res->times[t->id].start_s);
        }
    }
}

/* ---- the steps -------------------------------------------------------------------------- */

/* This rank's share of the step's loss: the token losses its head forwards recorded,
 * summed in double in the order they were computed (TP rank 0 only: the others hold
 * the same values). */
void *
runner_host_try_alloc (gsize bytes, const char *what, GError **error)
{
  void *p = g_try_malloc (MAX (bytes, 1));
  if (p == NULL)
    g_set_error (error, EXEC_ERROR, EXEC_ERROR_MEMORY, "cannot allocate %" G_GSIZE_FORMAT
                 " bytes of host memory for %s", bytes, what);
  return p;
}

static gboolean
step_loss (ExecRunner *r, GError **error)
{
  if (r->loss_rec == NULL || r->tp_rank != 0 || r->n_loss == 0)
    return TRUE;
  gsize n = (gsize) r->n_loss * r->N;
  g_autofree float *host = runner_host_try_alloc (n * sizeof (float), "the step's losses",
                                                  error);
  if (host == NULL
      || !runner_download (r, r->loss_buf, r->loss_rec, host, n * sizeof (float), error))
    return FALSE;
  for (gsize i = 0; i < n; i++)
    r->loss_sum += host[i];
  return TRUE;
}

gboolean
runner_steps (ExecRunner *r, GError **error)
{
  ExecRunResult *res = &r->result;
  int warmup = MAX (r->opts.warmup, 0), steps = MAX (r->opts.steps, 1);
  r->opts.steps = steps;
  int total = warmup + steps;
  gsize stride = rec_stride (r);
  g_free (r->recs);
  r->recs = g_new0 (double, 4 + (gsize) steps * stride);
  g_free (r->shares);
  r->shares = g_new0 (double, (gsize) steps * SHARE_N);
  g_free (res->losses);
  res->losses = g_new0 (double, total);
  res->world = r->world;
  res->n_stages = r->prog->n_stages;
  res->steps = steps;
  res->warmup = warmup;
  double tokens = (double) r->plan->global_batch * r->plan->seq_length;
  g_autofree double *sums = g_new0 (double, 2 * (gsize) r->world);

  for (int step = 0; step < total; step++)
    {
      r->step = step;
      step_begin (r);
      if (!runner_data_upload (r, error))
        return FALSE;
      double zero = 0;
      if (!runner_world_gather (r, &zero, 1, sums, error))   /* the barrier */
        return FALSE;
      r->t0 = runner_now (r);
      double sched0[2], sched1[2];
      const gboolean sched = exec_sched_sample (sched0);
      memset (r->compute_sched, 0, sizeof r->compute_sched);
      r->compute_sched_ok = sched;
      for (guint32 i = 0; i < r->n_tasks; i++)
        if (!runner_task_run (r, i, error))
          return FALSE;
      double *rec = step >= warmup ? r->recs + 4 + (gsize) (step - warmup) * stride : NULL;
      g_autofree double *tmp = rec ? NULL : g_new0 (double, stride);
      if (!step_end (r, rec ? rec : tmp, error))
        return FALSE;
      if (step >= warmup && sched && exec_sched_sample (sched1))
        {
          double *sh = r->shares + (gsize) (step - warmup) * SHARE_N;
          sh[0] = exec_sched_share (sched0, sched1);
          if (r->compute_sched_ok)
            memcpy (sh + 1, r->compute_sched, sizeof r->compute_sched);
        }
      runner_units_free (r);
      if (!step_loss (r, error) || !runner_grad_norm (r, error))
        return FALSE;
      double mine[2] = { r->loss_sum, r->grad_ss };
      if (!runner_world_gather (r, mine, 2, sums, error))
        return FALSE;
      double loss = 0, ss = 0;
      for (int q = 0; q < r->world; q++)
        loss += sums[2 * q], ss += sums[2 * q + 1];
      res->losses[step] = loss / tokens;
      if (step == 0)
        {
          res->loss = loss / tokens;
          res->grad_norm = sqrt (ss);
        }
    }

  /* a signal during the last step's last kernels: the attention kernels stop at once on
   * it (exec_cpu_attn_set_cancel), so that step's outputs are incomplete; never a result */
  if (r->opts.interrupted != NULL && *r->opts.interrupted != 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT, "rank %d: interrupted by %s in the "
                   "last step (%d)", r->rank, runner_signal_name (*r->opts.interrupted),
                   r->step);
      return FALSE;
    }

  /* every rank's records to rank 0 */
  r->recs[0] = r->stage;
  r->recs[1] = (double) peak_rss_bytes ();
  r->recs[2] = (double) r->alloc_peak;
  r->recs[3] = r->n_tasks;
  gsize per_rank = 4 + (gsize) steps * stride;
  g_autofree double *all = g_new0 (double, per_rank * r->world);
  if (!runner_world_gather (r, r->recs, per_rank, all, error))
    return FALSE;
  g_autofree double *shares = g_new0 (double, (gsize) steps * SHARE_N * r->world);
  if (!runner_world_gather (r, r->shares, (gsize) steps * SHARE_N, shares, error))
    return FALSE;
  if (r->rank == 0)
    compute_stats (r, all, per_rank, shares);
  return TRUE;
}
