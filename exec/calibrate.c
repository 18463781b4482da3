/* exec/calibrate.c - the memory microbenchmark and the calibration record, with the
 * helpers the parts share. The GEMM sweep is in calibrate-gemm.c, the collective sweep
 * and the table format in calibrate-coll.c, the attention core in calibrate-attn.c, the
 * memory-bound kernels in calibrate-kernels.c (both with the buffer, timing and check
 * helpers below), the profile and the cluster JSON in calibrate-profile.c, the
 * nccl-tests reader in nccl-tests-import.c.
 *
 * Method (STREAM's for memory):
 *  - Memory: STREAM's copy (c = a, 16 B per element) and triad (a = b + 3 c, 24 B per
 *    element) over three arrays of doubles well beyond the last-level cache, the best of
 *    `reps` repetitions, as STREAM reports (McCalpin, STREAM FAQ: "best rate").
 *  - All ranks run at once (a barrier first), then bandwidths are averaged over ranks
 *    (nccl-tests' default `-a 1`) and wrong elements summed. */
#include "exec/calibrate-private.h"
#include "exec/layers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
exec_calibrate_options_init (ExecCalibrateOptions *o)
{
  memset (o, 0, sizeof *o);
  o->gemm = o->memory = o->collectives = TRUE;
  o->attention = o->kernels = TRUE;
  o->gemm_narrow = TRUE;
  o->seed = 20250131;
}

ExecCalibration *
exec_calibration_new (const char *backend)
{
  ExecCalibration *cal = g_new0 (ExecCalibration, 1);
  cal->backend = g_strdup (backend != NULL ? backend : "cpu");
  cal->host = g_strdup (g_get_host_name ());
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  cal->date = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  cal->ranks = cal->ranks_per_host = 1;
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  cal->host_memory_bytes = pages > 0 && page > 0 ? (guint64) pages * (guint64) page : 0;
  cal->gemm = g_array_new (FALSE, TRUE, sizeof (ExecGemmRow));
  cal->colls = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  cal->skipped = g_ptr_array_new_with_free_func (g_free);
  cal->attention = g_array_new (FALSE, TRUE, sizeof (ExecAttnRow));
  cal->kernels = g_array_new (FALSE, TRUE, sizeof (ExecKernelRow));
  cal->gemm_dtypes_skipped = g_ptr_array_new_with_free_func (g_free);
  return cal;
}

void
exec_calibration_free (ExecCalibration *cal)
{
  if (cal == NULL)
    return;
  g_free (cal->backend);
  g_free (cal->host);
  g_free (cal->date);
  g_clear_pointer (&cal->gemm, g_array_unref);
  g_clear_pointer (&cal->colls, g_array_unref);
  g_clear_pointer (&cal->skipped, g_ptr_array_unref);
  g_clear_pointer (&cal->attention, g_array_unref);
  g_clear_pointer (&cal->kernels, g_array_unref);
  g_clear_pointer (&cal->gemm_dtypes_skipped, g_ptr_array_unref);
  g_free (cal);
}

/* ---- shared with calibrate-coll.c ----------------------------------------------------- */

CalCtx *
cal_ctx_new (ExecBackend *b, GError **error)
{
  CalCtx *ctx = g_new0 (CalCtx, 1);
  ctx->b = b;
  int *all = g_new (int, b->world);
  for (int r = 0; r < b->world; r++)
    all[r] = r;
  ctx->stream = exec_stream_new (b, EXEC_STREAM_COMM, "calibrate", error);
  if (ctx->stream != NULL)
    ctx->world = exec_group_new (b, "calibrate-world", all, b->world, error);
  if (ctx->world != NULL)
    ctx->scratch = exec_buffer_new (b, CAL_SCRATCH_FLOATS * sizeof (float), error);
  g_free (all);
  if (ctx->scratch == NULL)
    {
      cal_ctx_free (ctx);
      return NULL;
    }
  return ctx;
}

void
cal_ctx_free (CalCtx *ctx)
{
  if (ctx == NULL)
    return;
  exec_buffer_free (ctx->scratch);
  exec_group_free (ctx->world);
  exec_stream_free (ctx->stream);
  g_free (ctx);
}

/* Sums v[0..n) over the members of `group` (an all-reduce through the ops table, so it
 * works on device memory too); with one member it is a copy. */
gboolean
cal_group_sum (CalCtx *ctx, ExecGroup *group, double *v, int n, GError **error)
{
  g_return_val_if_fail (n <= CAL_SCRATCH_FLOATS, FALSE);
  ExecBackend *b = ctx->b;
  float f[CAL_SCRATCH_FLOATS];
  for (int i = 0; i < n; i++)
    f[i] = (float) v[i];
  ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .dtype = EXEC_DTYPE_F32,
                  .send = ctx->scratch->data, .recv = ctx->scratch->data, .count = (gsize) n };
  if (!b->ops->buffer_upload (b, ctx->scratch, 0, f, n * sizeof (float), error)
      || !exec_collective (ctx->stream, group, &op, NULL, error)
      || !exec_stream_synchronize (ctx->stream, error)
      || !b->ops->buffer_download (b, f, ctx->scratch, 0, n * sizeof (float), error))
    return FALSE;
  for (int i = 0; i < n; i++)
    v[i] = f[i];
  return TRUE;
}

gboolean
cal_barrier (CalCtx *ctx, ExecGroup *group, GError **error)
{
  double token = 0;
  return cal_group_sum (ctx, group, &token, 1, error);
}

double
cal_now_s (void)
{
  return (double) g_get_monotonic_time () * 1e-6;
}

static int
cmp_double (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
cal_median (double *v, int n)
{
  g_return_val_if_fail (n >= 1, 0.0);
  qsort (v, (gsize) n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- shared with calibrate-attn.c and calibrate-kernels.c: buffers, timing, checks ---- */

void
cal_bufs_clear (CalBufs *bs)
{
  for (int i = 0; i < bs->n; i++)
    exec_buffer_free (bs->buf[i]);
  bs->n = 0;
}

/* A device buffer of `bytes`, filled from `host` (NULL: zero). Returns its pointer. */
void *
cal_bufs_add (CalBufs *bs, gsize bytes, const void *host, GError **error)
{
  g_assert (bs->n < CAL_MAX_BUFS);
  ExecBuffer *buf = exec_buffer_new (bs->b, MAX (bytes, 4), error);
  if (buf == NULL)
    return NULL;
  bs->buf[bs->n++] = buf;
  if (host != NULL && !bs->b->ops->buffer_upload (bs->b, buf, 0, host, bytes, error))
    return NULL;
  return buf->data;
}

/* Copies a device buffer (found by its pointer) back to the host. */
gboolean
cal_bufs_get (CalBufs *bs, void *host, const void *dev, gsize bytes, GError **error)
{
  for (int i = 0; i < bs->n; i++)
    if (bs->buf[i]->data == dev)
      return bs->b->ops->buffer_download (bs->b, host, bs->buf[i], 0, bytes, error);
  g_assert_not_reached ();
  return FALSE;
}

/* Uniform in [lo, hi) from a SplitMix64 stream (Steele, Lea and Flood 2014): GRand's
 * doubles cost ~20 ns each, too slow for the 16 MiB arrays of the kernel grid. */
float *
cal_host_uniform (guint64 *state, gsize n, double lo, double hi)
{
  float *x = g_new (float, MAX (n, 1));
  for (gsize i = 0; i < n; i++)
    {
      guint64 z = (*state += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      x[i] = (float) (lo + (hi - lo) * ((double) (z >> 11) / 9007199254740992.0));   /* 2^53 */
    }
  return x;
}

/* on CPU and waiting, seconds, over the windows kept so far (calibrate-private.h) */
static double kept_sched[2];

void
cal_window_sched (double sample[2])
{
  if (!exec_sched_sample (sample))
    sample[0] = sample[1] = -1;
}

double
cal_windows_keep (const double *w, const double (*before)[2], const double (*after)[2], int n,
                  double median)
{
  for (int i = 0; i < n; i++)
    if (w[i] == median)
      {
        const double run = after[i][0] - before[i][0], wait = after[i][1] - before[i][1];
        if (before[i][0] >= 0 && after[i][0] >= 0 && run > 0 && wait >= 0)
          {
            kept_sched[0] += run;
            kept_sched[1] += wait;
            return run / (run + wait);
          }
        return 0.0;
      }
  return 0.0;
}

void
cal_share_sum (double share, double *sum, double *count)
{
  if (share > 0 && share <= 1)
    {
      *sum += share;
      *count += 1;
    }
}

double
cal_share_mean (double sum, double count)
{
  return count > 0 ? MIN (sum / count, 1.0) : 0.0;
}

double
cal_kept_share (void)
{
  return kept_sched[0] > 0 ? kept_sched[0] / (kept_sched[0] + kept_sched[1]) : 0.0;
}

void
cal_kept_reset (void)
{
  kept_sched[0] = kept_sched[1] = 0;
}

/* Warm-up (timed, sizes the loop), then the calls in CAL_WINDOWS windows of reps /
 * CAL_WINDOWS back-to-back calls, one synchronize each: the median window's mean per
 * call (calibrate-private.h). */
gboolean
cal_time_calls (ExecStream *s, const CalTiming *tm, CalCallFunc call, gpointer data,
                double *mean_s, int *reps_out, double *share_out, GError **error)
{
  double t0 = cal_now_s ();
  call (data);
  if (!exec_stream_synchronize (s, error))
    return FALSE;
  const double one = MAX (cal_now_s () - t0, 1e-7);
  const int reps = (int) CLAMP (ceil (tm->min_time_s / one), tm->min_reps, tm->max_reps);
  const int per = MAX (reps / CAL_WINDOWS, 1);
  double w[CAL_WINDOWS], sorted[CAL_WINDOWS], before[CAL_WINDOWS][2], after[CAL_WINDOWS][2];
  for (int i = 0; i < CAL_WINDOWS; i++)
    {
      cal_window_sched (before[i]);
      t0 = cal_now_s ();
      for (int r = 0; r < per; r++)
        call (data);
      if (!exec_stream_synchronize (s, error))
        return FALSE;
      w[i] = sorted[i] = (cal_now_s () - t0) / per;
      cal_window_sched (after[i]);
    }
  *mean_s = cal_median (sorted, CAL_WINDOWS);
  const double share = cal_windows_keep (w, (const double (*)[2]) before,
                                         (const double (*)[2]) after, CAL_WINDOWS, *mean_s);
  if (share_out != NULL)
    *share_out = share;
  *reps_out = per * CAL_WINDOWS;
  return TRUE;
}

/* The kernel's time: the call overhead comes back in the cost model (calibrate.c). */
double
cal_kernel_time (const ExecCalibration *cal, double t)
{
  return cal->launch_s > 0 && cal->launch_s < 0.5 * t ? t - cal->launch_s : t;
}

/* |got - ref| within 2 gamma_n mag (+ 1e-5 relative for transcendental functions). */
gboolean
cal_close_enough (double got, double ref, double mag, double n_terms)
{
  const double u = ldexp (1.0, -24), gamma = n_terms * u / (1.0 - n_terms * u);
  return isfinite (got) && fabs (got - ref) <= 2.0 * gamma * mag + 1e-5 * fabs (ref) + 1e-6;
}

/* ---- memory bandwidth ------------------------------------------------------------------ */

/* Device memory (HBM): STREAM's method on device buffers through the kernel table, timed
 * with events around DEV_MEM_INNER back-to-back calls (a 256 MiB copy takes ~0.2 ms on
 * an H100 at ~3 TB/s, too short for a host clock around one call). Copy c = a moves 8 B
 * per float, add a = b + c 12 B (STREAM's triad without the scalar; the same traffic per
 * element as its 24 B of doubles halved). Arrays: 3 x 256 MiB (quick: 3 x 64 MiB), far
 * beyond the 50 MiB L2 of an H100 (hardware.md). Checked: after r rounds of c = a;
 * a = b + c with a = 1, b = 2 every a is 1 + 2 r (exact in floats): a sample of a is
 * downloaded and compared. */
#define DEV_MEM_INNER 10

static gboolean
calibrate_memory_device (ExecBackend *b, const ExecCalibrateOptions *o, CalCtx *ctx,
                         ExecMemRow *row, GError **error)
{
  const ExecKernels *k = b->ops->kernels;
  const gsize n = o->quick ? (gsize) 1 << 24 : (gsize) 1 << 26;
  const int reps = o->quick ? 3 : 5;
  CalBufs bs = { .b = b };
  ExecStream *s = exec_stream_new (b, EXEC_STREAM_COMPUTE, "calibrate-memory", error);
  ExecEvent *e0 = s ? exec_event_new (b, error) : NULL;
  ExecEvent *e1 = e0 ? exec_event_new (b, error) : NULL;
  ExecEvent *e2 = e1 ? exec_event_new (b, error) : NULL;
  float *a = NULL, *bb = NULL, *c = NULL;
  gboolean ok = e2 != NULL
                && (a = cal_bufs_add (&bs, n * sizeof (float), NULL, error)) != NULL
                && (bb = cal_bufs_add (&bs, n * sizeof (float), NULL, error)) != NULL
                && (c = cal_bufs_add (&bs, n * sizeof (float), NULL, error)) != NULL;
  double best_copy = G_MAXDOUBLE, best_add = G_MAXDOUBLE;
  if (ok)
    {
      k->fill (s, a, 1.0f, n);
      k->fill (s, bb, 2.0f, n);
      ok = exec_stream_synchronize (s, error) && cal_barrier (ctx, ctx->world, error);
    }
  for (int r = 0; ok && r < reps + 1; r++)   /* the first round warms up */
    {
      ok = exec_event_record (e0, s, error);
      for (int i = 0; ok && i < DEV_MEM_INNER; i++)
        k->copy (s, c, a, n);
      ok = ok && exec_event_record (e1, s, error);
      for (int i = 0; ok && i < DEV_MEM_INNER; i++)
        k->add (s, a, bb, c, n);   /* a = b + c, with c the copy of a */
      double t0 = 0, t1 = 0, t2 = 0;
      ok = ok && exec_event_record (e2, s, error) && exec_event_synchronize (e2, error)
           && exec_event_time (e0, &t0, error) && exec_event_time (e1, &t1, error)
           && exec_event_time (e2, &t2, error);
      if (ok && r > 0)
        {
          best_copy = MIN (best_copy, (t1 - t0) / DEV_MEM_INNER);
          best_add = MIN (best_add, (t2 - t1) / DEV_MEM_INNER);
        }
    }
  /* within a round the copies all read the same a and the adds all write b + c, so each
   * round (not each call) advances a by 2 */
  gint64 wrong = 0;
  if (ok)
    {
      const float expect = 1.0f + 2.0f * (float) (reps + 1);
      const gsize probe = MIN (n, (gsize) 4096);
      float *h = g_new (float, probe);
      ok = cal_bufs_get (&bs, h, a, probe * sizeof (float), error);
      for (gsize i = 0; ok && i < probe; i++)
        wrong += h[i] != expect;
      g_free (h);
    }
  *row = (ExecMemRow) {
    .bytes = n * sizeof (float), .reps = reps * DEV_MEM_INNER, .wrong = wrong, .on_device = TRUE,
    .copy_GBps = best_copy > 0 && best_copy < G_MAXDOUBLE ? 8.0 * n / best_copy / 1e9 : 0,
    .triad_GBps = best_add > 0 && best_add < G_MAXDOUBLE ? 12.0 * n / best_add / 1e9 : 0 };
  exec_event_free (e2);
  exec_event_free (e1);
  exec_event_free (e0);
  cal_bufs_clear (&bs);
  exec_stream_free (s);
  return ok;
}

/* Host memory: STREAM's loops on this rank's arrays; the figures of this rank. */
static gboolean
calibrate_memory_host (const ExecCalibrateOptions *o, CalCtx *ctx, ExecMemRow *row,
                       GError **error)
{
  /* 3 x 32 MiB (quick) or 3 x 128 MiB: STREAM asks for 4x the last-level cache */
  const gsize n = o->quick ? (gsize) 1 << 22 : (gsize) 1 << 24;
  const int reps = o->quick ? 5 : 10;
  double *a = g_aligned_alloc (n, sizeof (double), 64);
  double *bb = g_aligned_alloc (n, sizeof (double), 64);
  double *c = g_aligned_alloc (n, sizeof (double), 64);
  for (gsize i = 0; i < n; i++)
    a[i] = 1.0, bb[i] = 2.0, c[i] = 0.0;
  double best_copy = G_MAXDOUBLE, best_triad = G_MAXDOUBLE, expect = 1.0;
  gboolean ok = cal_barrier (ctx, ctx->world, error);
  for (int r = 0; ok && r < reps; r++)
    {
      double t0 = cal_now_s ();
      for (gsize i = 0; i < n; i++)
        c[i] = a[i];
      double t1 = cal_now_s ();
      for (gsize i = 0; i < n; i++)
        a[i] = bb[i] + 3.0 * c[i];
      double t2 = cal_now_s ();
      best_copy = MIN (best_copy, t1 - t0);
      best_triad = MIN (best_triad, t2 - t1);
      expect = 2.0 + 3.0 * expect;   /* exact in doubles: integers below 2^53 */
    }
  gint64 wrong = 0;
  for (gsize i = 0; ok && i < n; i++)
    wrong += a[i] != expect;
  /* GB/s = 1e9 B/s; a zero time (a too coarse clock) is left at 0 = not measured */
  *row = (ExecMemRow) { .bytes = n * sizeof (double), .reps = reps, .wrong = wrong,
                        .copy_GBps = best_copy > 0 ? 16.0 * n / best_copy / 1e9 : 0,
                        .triad_GBps = best_triad > 0 ? 24.0 * n / best_triad / 1e9 : 0 };
  g_aligned_free (a);
  g_aligned_free (bb);
  g_aligned_free (c);
  return ok;
}

/* Device memory on a backend with its own (an accelerator's), else host memory; all ranks
 * at once, bandwidths averaged and wrong elements summed over the ranks. */
gboolean
exec_calibrate_memory (ExecBackend *b, const ExecCalibrateOptions *o, ExecCalibration *cal,
                       GError **error)
{
  CalCtx *ctx = cal_ctx_new (b, error);
  if (ctx == NULL)
    return FALSE;
  ExecMemRow row = { 0 };
  gboolean ok = b->device_memory_bytes > 0 && b->ops->kernels != NULL
                  ? calibrate_memory_device (b, o, ctx, &row, error)
                  : calibrate_memory_host (o, ctx, &row, error);
  double v[3] = { row.copy_GBps, row.triad_GBps, (double) row.wrong };
  ok = ok && cal_group_sum (ctx, ctx->world, v, 3, error);
  if (ok)
    {
      row.copy_GBps = v[0] / b->world;
      row.triad_GBps = v[1] / b->world;
      row.wrong = (gint64) llround (v[2]);
      cal->memory = row;
    }
  cal_ctx_free (ctx);
  return ok;
}

/* ---- all parts ------------------------------------------------------------------------- */

ExecCalibration *
exec_calibrate_run (ExecBackend *b, const ExecCalibrateOptions *o, GError **error)
{
  ExecCalibrateOptions defaults;
  if (o == NULL)
    {
      exec_calibrate_options_init (&defaults);
      o = &defaults;
    }
  g_autoptr (ExecCalibration) cal = exec_calibration_new (b->ops->name);
  cal->ranks = b->world;
  cal->device_memory_bytes = b->device_memory_bytes;
  const char *local = g_getenv ("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (local == NULL)
    local = g_getenv ("MPI_LOCALNRANKS");
  cal->ranks_per_host = local != NULL && atoi (local) > 0 ? MIN (atoi (local), b->world)
                                                          : b->world;
  /* the kernels run on the backend's buffers: a backend without its own table would
   * hand device pointers to the CPU reference (exec/layers.h) */
  const gboolean has_kernels = b->ops->kernels != NULL;
  if ((o->attention || o->kernels) && !has_kernels)
    g_ptr_array_add (cal->skipped, g_strdup_printf ("attention and kernels: the '%s' backend "
                                                    "has no kernels table", b->ops->name));
  /* the core share of this rank's thread over the compute parts (calibrate-contention.c),
   * which end before the collectives */
  double sched0[2], sched1[2];
  const gboolean sched = exec_sched_sample (sched0);
  cal_kept_reset ();
  if ((o->gemm && !exec_calibrate_gemm (b, o, cal, error))
      || (o->memory && !exec_calibrate_memory (b, o, cal, error))
      || (o->attention && has_kernels && !exec_calibrate_attention (b, o, cal, error))
      || (o->kernels && has_kernels && !exec_calibrate_kernels (b, o, cal, error)))
    {
      g_prefix_error (error, "calibrate: ");
      return NULL;
    }
  /* the share the kept windows ran at (the rates' own), else the whole parts' */
  if (sched && exec_sched_sample (sched1))
    cal->contention.compute_share = exec_sched_share (sched0, sched1);
  g_debug ("core share over the compute parts %.4f, over the windows kept %.4f",
           cal->contention.compute_share, cal_kept_share ());
  if (cal_kept_share () > 0)
    cal->contention.compute_share = cal_kept_share ();
  if ((o->collectives && !exec_calibrate_collectives (b, o, cal, error))
      || (o->collectives && !exec_calibrate_contention (b, o, cal, error)))
    {
      g_prefix_error (error, "calibrate: ");
      return NULL;
    }
  return g_steal_pointer (&cal);
}
