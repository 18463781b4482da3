/* exec/calibrate-contention.c - what an all-reduce in flight takes from compute on the
 * same cores (the CPU contention model's inputs, sim/cost-cpu.c).
 *
 * Method: every rank times an FP32 GEMM of m^3 alone, then the same GEMMs while it keeps
 * one all-reduce of `bytes` in flight on a communication stream (the next posted as soon
 * as the last is seen done between two GEMMs, a fixed number of them, so that every rank
 * issues the same collectives); the backend's progress thread moves the all-reduce
 * (exec/backend-cpu-stream.c), as it moves the runner's overlapped collectives. The two
 * loops alternate CONTENTION_PAIRS times, short, so that a burst of others' load falls on
 * one pair, and the median pair's ratio is kept. The GEMM time with an all-reduce in flight over the
 * time alone, less one, is the fraction of the compute thread's core that the
 * collective's memory copies and reductions (and the progress thread's polling) took:
 * what the simulator's comm_compute_slowdown means. Also recorded: the cores this process
 * may run on (sched_getaffinity, g_get_num_processors), its BLAS and progress threads.
 * The GEMM is checked (inputs of ones: every output element is exactly m) and so is the
 * all-reduce (ones summed: the world size). CPU backend under MPI only: a world of one
 * has nothing to contend with, and a GPU's collectives do not run on its host cores. */
#include "exec/calibrate-private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* "ON_CPU_NS WAIT_NS TIMESLICES\n" (Documentation/scheduler/sched-stats.rst); the file
 * named by TANDEM_SCHEDSTAT_FILE instead, which tests use (a file that does not change
 * gives no share: unknown). Returns how many of the three fields it read. */
static int
sched_read (unsigned long long v[3])
{
  const char *path = g_getenv ("TANDEM_SCHEDSTAT_FILE");
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path != NULL ? path : "/proc/thread-self/schedstat", &text, NULL,
                            NULL))
    return 0;
  int n = sscanf (text, "%llu %llu %llu", &v[0], &v[1], &v[2]);
  return n > 0 ? n : 0;
}

gboolean
exec_sched_sample (double sample[2])
{
  unsigned long long v[3] = { 0, 0, 0 };
  if (sched_read (v) < 2)
    return FALSE;
  sample[0] = (double) v[0] * 1e-9;
  sample[1] = (double) v[1] * 1e-9;
  return TRUE;
}

gboolean
exec_sched_sample_slices (double sample[3])
{
  unsigned long long v[3] = { 0, 0, 0 };
  if (sched_read (v) < 3)
    return FALSE;
  sample[0] = (double) v[0] * 1e-9;
  sample[1] = (double) v[1] * 1e-9;
  sample[2] = (double) v[2];
  return TRUE;
}

double
exec_sched_share (const double before[2], const double after[2])
{
  const double run = after[0] - before[0], wait = after[1] - before[1];
  return run > 0 && wait >= 0 ? run / (run + wait) : 0.0;
}

#define CONTENTION_PAIRS 7

typedef struct {
  double alone_s, with_s, coll_s;   /* per GEMM alone, per GEMM with, per all-reduce */
  gint64 wrong;
} Pair;

static gboolean
gemm_loop (ExecStream *s, const ExecGemm *op, int reps, double *per_s, GError **error)
{
  const double t0 = cal_now_s ();
  gboolean ok = TRUE;
  for (int r = 0; ok && r < reps; r++)
    ok = exec_gemm (s, op, NULL, error);
  ok = ok && exec_stream_synchronize (s, error);
  *per_s = (cal_now_s () - t0) / MAX (reps, 1);
  return ok;
}

/* GEMMs while n_coll all-reduces go one after another on `cs`; per GEMM and per
 * all-reduce wall time. */
static gboolean
gemm_with_colls (CalCtx *ctx, ExecStream *s, ExecStream *cs, ExecEvent *ev, const ExecGemm *op,
                 const ExecColl *coll, int n_coll, double *gemm_s, double *coll_s,
                 GError **error)
{
  int issued = 0, gemms = 0;
  gboolean ok = TRUE, in_flight = FALSE;
  const double t0 = cal_now_s ();
  while (ok)
    {
      if (in_flight)
        {
          gboolean done = FALSE;
          ok = exec_event_query (ev, &done, error);
          if (ok && done)
            in_flight = FALSE;
        }
      if (ok && !in_flight)
        {
          if (issued == n_coll)
            break;
          ok = exec_collective (cs, ctx->world, coll, NULL, error)
               && exec_event_record (ev, cs, error);
          issued++;
          in_flight = TRUE;
        }
      ok = ok && exec_gemm (s, op, NULL, error) && exec_stream_synchronize (s, error);
      gemms++;
    }
  const double wall = cal_now_s () - t0;
  *gemm_s = wall / MAX (gemms, 1);
  *coll_s = wall / MAX (n_coll, 1);
  return ok;
}

gboolean
exec_calibrate_contention (ExecBackend *b, const ExecCalibrateOptions *o, ExecCalibration *cal,
                           GError **error)
{
  if (b->world < 2 || b->device_memory_bytes > 0 || g_strcmp0 (b->ops->name, "cpu") != 0)
    return TRUE;   /* not measured: cal->contention.cores stays 0 */
  const int m = o->quick ? 256 : 384;
  const gsize count = (gsize) 1 << 20;              /* 4 MiB of floats */
  const double min_time_s = o->quick ? 0.04 : 0.15;   /* per loop */
  CalCtx *ctx = cal_ctx_new (b, error);
  if (ctx == NULL)
    return FALSE;
  CalBufs bs = { .b = b };
  ExecStream *s = exec_stream_new (b, EXEC_STREAM_COMPUTE, "calibrate-contention", error);
  ExecStream *cs = s ? exec_stream_new (b, EXEC_STREAM_COMM, "calibrate-contention-comm", error)
                     : NULL;
  ExecEvent *ev = cs ? exec_event_new (b, error) : NULL;
  const gsize nn = (gsize) m * m;
  g_autofree float *ones = g_new (float, MAX (nn, count));
  for (gsize i = 0; i < MAX (nn, count); i++)
    ones[i] = 1.0f;
  float *a = NULL, *bm = NULL, *c = NULL, *send = NULL, *recv = NULL;
  gboolean ok = ev != NULL
                && (a = cal_bufs_add (&bs, nn * sizeof (float), ones, error)) != NULL
                && (bm = cal_bufs_add (&bs, nn * sizeof (float), ones, error)) != NULL
                && (c = cal_bufs_add (&bs, nn * sizeof (float), NULL, error)) != NULL
                && (send = cal_bufs_add (&bs, count * sizeof (float), ones, error)) != NULL
                && (recv = cal_bufs_add (&bs, count * sizeof (float), NULL, error)) != NULL;
  ExecGemm op = { .dtype = EXEC_DTYPE_F32, .m = m, .n = m, .k = m, .alpha = 1, .beta = 0,
                  .a = a, .b = bm, .c = c };
  ExecColl coll = { .kind = EXEC_COLL_ALL_REDUCE, .dtype = EXEC_DTYPE_F32, .send = send,
                    .recv = recv, .count = count };

  /* warm up both, size the loops: the same all-reduce count on every rank */
  double one_gemm = 0, one_coll = 0;
  ok = ok && cal_barrier (ctx, ctx->world, error) && gemm_loop (s, &op, 2, &one_gemm, error);
  if (ok)
    {
      const double t0 = cal_now_s ();
      for (int r = 0; ok && r < 3; r++)
        ok = exec_collective (cs, ctx->world, &coll, NULL, error)
             && exec_stream_synchronize (cs, error);
      one_coll = (cal_now_s () - t0) / 3;
    }
  double size[2] = { ceil (min_time_s / MAX (one_gemm, 1e-7)),
                     ceil (min_time_s / MAX (one_coll, 1e-7)) };
  ok = ok && cal_group_sum (ctx, ctx->world, size, 2, error);
  const int reps = (int) CLAMP (size[0] / b->world, 3, 100000);
  const int n_coll = (int) CLAMP (size[1] / b->world, 3, 1000);

  Pair p[CONTENTION_PAIRS];
  double ratio[CONTENTION_PAIRS];
  for (int w = 0; ok && w < CONTENTION_PAIRS; w++)
    {
      memset (&p[w], 0, sizeof p[w]);
      ok = cal_barrier (ctx, ctx->world, error)
           && gemm_loop (s, &op, reps, &p[w].alone_s, error)
           && cal_barrier (ctx, ctx->world, error)
           && gemm_with_colls (ctx, s, cs, ev, &op, &coll, n_coll, &p[w].with_s, &p[w].coll_s,
                               error)
           && exec_stream_synchronize (cs, error);
      ratio[w] = ok ? p[w].with_s / MAX (p[w].alone_s, 1e-12) : 1.0;
    }
  /* check: every element of c is m (sums of ones), every element of recv the world size */
  gint64 wrong = 0;
  if (ok)
    {
      const gsize probe = MIN (nn, (gsize) 4096);
      g_autofree float *h = g_new (float, MAX (probe, (gsize) 4096));
      ok = cal_bufs_get (&bs, h, c, probe * sizeof (float), error);
      for (gsize i = 0; ok && i < probe; i++)
        wrong += h[i] != (float) m;
      ok = ok && cal_bufs_get (&bs, h, recv, 4096 * sizeof (float), error);
      for (gsize i = 0; ok && i < 4096; i++)
        wrong += h[i] != (float) b->world;
    }
  if (ok)
    {
      /* the median pair of this rank, then means over the ranks */
      int mid = 0;
      double sorted[CONTENTION_PAIRS];
      memcpy (sorted, ratio, sizeof sorted);
      const double med = cal_median (sorted, CONTENTION_PAIRS);
      for (int w = 0; w < CONTENTION_PAIRS; w++)
        if (ratio[w] == med)
          mid = w;
      double v[6] = { p[mid].alone_s, p[mid].with_s, p[mid].coll_s, (double) wrong,
                      (double) g_get_num_processors (), cal->contention.compute_share };
      ok = cal_group_sum (ctx, ctx->world, v, 6, error);
      if (ok)
        {
          ExecContentionRow *r = &cal->contention;
          r->cores = (int) lround (v[4] / b->world);
          r->blas_threads = MAX (b->config.blas_threads, 1);
          r->progress_threads = b->config.progress_us > 0 ? 1 : 0;
          r->gemm_m = m;
          r->gemm_alone_s = v[0] / b->world;
          r->gemm_coll_s = v[1] / b->world;
          r->coll_bytes = (double) count * sizeof (float);
          r->coll_s = v[2] / b->world;
          r->reps = reps;
          r->n_coll = n_coll;
          r->wrong = (gint64) llround (v[3]);
          r->compute_share = v[5] / b->world;
        }
    }
  exec_event_free (ev);
  exec_stream_free (cs);
  exec_stream_free (s);
  cal_bufs_clear (&bs);
  cal_ctx_free (ctx);
  return ok;
}
