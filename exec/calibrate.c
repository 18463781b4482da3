/* exec/calibrate.c - GEMM and memory microbenchmarks and the calibration record. The
 * collective sweep and the table format are in calibrate-coll.c, the attention core in
 * calibrate-attn.c, the memory-bound kernels in calibrate-kernels.c (both with the
 * buffer, timing and check helpers below), the profile and the cluster JSON in
 * calibrate-profile.c, the nccl-tests reader in nccl-tests-import.c.
 *
 * Method (llm.c's and MAMF-finder's way of measuring a GEMM; STREAM's for memory):
 *  - GEMM: A and B uniform in [-1, 1) from a seeded GRand; one call is checked against a
 *    double-precision reference on up to 8 x 8 elements spread over C, then one warm-up
 *    and timed calls until min_time has passed (at least min_reps), in CAL_WINDOWS windows
 *    of which the median counts (calibrate-private.h). The error bound of a
 *    k-term FP32 dot product is gamma_k sum |a_i b_i|, gamma_k = k u / (1 - k u), u =
 *    2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 3.5);
 *    an element is wrong beyond twice that.
 *  - The call overhead (launch_s) is the mean time of a 1 x 1 x 1 GEMM. A row's
 *    flops_per_s is 2 m n k / (time - launch_s): the rate of the kernel, since the cost
 *    model adds the launch back (sim/cost-compute.c), so it predicts the measured time.
 *  - Memory: STREAM's copy (c = a, 16 B per element) and triad (a = b + 3 c, 24 B per
 *    element) over three arrays of doubles well beyond the last-level cache, the best of
 *    `reps` repetitions, as STREAM reports (McCalpin, STREAM FAQ: "best rate").
 *  - All ranks run at once (a barrier before each shape), then times are averaged over
 *    ranks (nccl-tests' default `-a 1`) and wrong elements summed. */
#include "exec/calibrate-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Grids. Quick: a handful of squares 64..1024 and two skinny shapes, ~0.3 s of GEMM per
 * rank on one core at ~20 GFLOP/s. Full: squares up to 4096 and rectangles around the
 * shapes of transformer layers (wide n for MLP up-projections, long k for the down ones). */
static const int quick_grid[][3] = {
  { 64, 64, 64 }, { 128, 128, 128 }, { 256, 256, 256 }, { 512, 512, 512 },
  { 1024, 1024, 1024 }, { 1024, 256, 1024 }, { 256, 1024, 256 },
};
static const int full_grid[][3] = {
  { 64, 64, 64 }, { 128, 128, 128 }, { 256, 256, 256 }, { 512, 512, 512 },
  { 1024, 1024, 1024 }, { 2048, 2048, 2048 }, { 4096, 4096, 4096 },
  { 2048, 512, 2048 }, { 512, 2048, 2048 }, { 2048, 2048, 512 },
  { 4096, 1024, 1024 }, { 1024, 4096, 1024 }, { 1024, 1024, 4096 },
  { 128, 4096, 4096 }, { 4096, 4096, 128 },
};

#define QUICK_MAX_PLAN_FLOPS 8589934592.0     /* 2^33: ~0.4 s at 20 GFLOP/s */
#define FULL_MAX_PLAN_FLOPS 137438953472.0    /* 2^37 = 2 x 4096^3 */
#define MAX_PLAN_BYTES (1ULL << 30)           /* A + B + C in FP32 */

void
exec_calibrate_options_init (ExecCalibrateOptions *o)
{
  memset (o, 0, sizeof *o);
  o->gemm = o->memory = o->collectives = TRUE;
  o->attention = o->kernels = TRUE;
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

/* Warm-up (timed, sizes the loop), then the calls in CAL_WINDOWS windows of reps /
 * CAL_WINDOWS back-to-back calls, one synchronize each: the median window's mean per
 * call (calibrate-private.h). */
gboolean
cal_time_calls (ExecStream *s, const CalTiming *tm, CalCallFunc call, gpointer data,
                double *mean_s, int *reps_out, GError **error)
{
  double t0 = cal_now_s ();
  call (data);
  if (!exec_stream_synchronize (s, error))
    return FALSE;
  const double one = MAX (cal_now_s () - t0, 1e-7);
  const int reps = (int) CLAMP (ceil (tm->min_time_s / one), tm->min_reps, tm->max_reps);
  const int per = MAX (reps / CAL_WINDOWS, 1);
  double w[CAL_WINDOWS];
  for (int i = 0; i < CAL_WINDOWS; i++)
    {
      t0 = cal_now_s ();
      for (int r = 0; r < per; r++)
        call (data);
      if (!exec_stream_synchronize (s, error))
        return FALSE;
      w[i] = (cal_now_s () - t0) / per;
    }
  *mean_s = cal_median (w, CAL_WINDOWS);
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

/* ---- GEMM ------------------------------------------------------------------------------ */

/* Elements of C checked against the double reference: up to 8 rows x 8 columns spread
 * evenly, first and last included. */
static gint64
gemm_check (const float *a, const float *bm, const float *c, int m, int n, int k)
{
  const int rows = MIN (m, 8), cols = MIN (n, 8);
  const double u = ldexp (1.0, -24), gamma = k * u / (1.0 - k * u);
  gint64 wrong = 0;
  for (int ri = 0; ri < rows; ri++)
    for (int ci = 0; ci < cols; ci++)
      {
        const int i = rows > 1 ? (int) ((gint64) ri * (m - 1) / (rows - 1)) : 0;
        const int j = cols > 1 ? (int) ((gint64) ci * (n - 1) / (cols - 1)) : 0;
        double ref = 0, mag = 0;
        for (int p = 0; p < k; p++)
          {
            const double t = (double) a[(gsize) i * k + p] * bm[(gsize) p * n + j];
            ref += t;
            mag += fabs (t);
          }
        if (!(fabs (c[(gsize) i * n + j] - ref) <= 2.0 * gamma * mag + 1e-30))
          wrong++;
      }
  return wrong;
}

typedef struct {
  double min_time_s;
  int    min_reps, max_reps;
} Timing;

/* One shape: check, warm up, time. Fills time_s (this rank), reps and wrong. */
static gboolean
gemm_measure (CalCtx *ctx, GRand *rng, const Timing *tm, ExecGemmRow *row, GError **error)
{
  ExecBackend *b = ctx->b;
  const gsize na = (gsize) row->m * row->k, nb = (gsize) row->k * row->n;
  const gsize nc = (gsize) row->m * row->n;
  g_autofree float *ha = g_new (float, na), *hb = g_new (float, nb), *hc = g_new (float, nc);
  for (gsize i = 0; i < na; i++)
    ha[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  for (gsize i = 0; i < nb; i++)
    hb[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  ExecBuffer *da = exec_buffer_new (b, na * 4, error);
  ExecBuffer *db = da ? exec_buffer_new (b, nb * 4, error) : NULL;
  ExecBuffer *dc = db ? exec_buffer_new (b, nc * 4, error) : NULL;
  ExecStream *s = dc ? exec_stream_new (b, EXEC_STREAM_COMPUTE, "calibrate-gemm", error) : NULL;
  gboolean ok = s != NULL;
  ExecGemm op = { .dtype = row->dtype, .m = row->m, .n = row->n, .k = row->k, .alpha = 1,
                  .beta = 0, .a = da ? da->data : NULL, .b = db ? db->data : NULL,
                  .c = dc ? dc->data : NULL };
  ok = ok && b->ops->buffer_upload (b, da, 0, ha, na * 4, error)
       && b->ops->buffer_upload (b, db, 0, hb, nb * 4, error)
       && exec_gemm (s, &op, NULL, error) && exec_stream_synchronize (s, error)
       && b->ops->buffer_download (b, hc, dc, 0, nc * 4, error);
  if (ok)
    row->wrong = gemm_check (ha, hb, hc, row->m, row->n, row->k);
  /* a timed warm-up call sizes the loop; then the calls in CAL_WINDOWS windows, one sync
   * each, and the median window (calibrate-private.h) */
  double t0 = cal_now_s ();
  ok = ok && exec_gemm (s, &op, NULL, error) && exec_stream_synchronize (s, error);
  const double one = MAX (cal_now_s () - t0, 1e-7);
  const int reps = (int) CLAMP (ceil (tm->min_time_s / one), tm->min_reps, tm->max_reps);
  const int per = MAX (reps / CAL_WINDOWS, 1);
  double w[CAL_WINDOWS];
  for (int i = 0; ok && i < CAL_WINDOWS; i++)
    {
      t0 = cal_now_s ();
      for (int r = 0; ok && r < per; r++)
        ok = exec_gemm (s, &op, NULL, error);
      ok = ok && exec_stream_synchronize (s, error);
      w[i] = (cal_now_s () - t0) / per;
    }
  if (ok)
    {
      row->reps = per * CAL_WINDOWS;
      row->time_s = cal_median (w, CAL_WINDOWS);
    }
  exec_stream_free (s);
  exec_buffer_free (dc);
  exec_buffer_free (db);
  exec_buffer_free (da);
  return ok;
}

/* Mean time of a 1 x 1 x 1 GEMM: what one call through the ops table costs. */
static gboolean
launch_measure (CalCtx *ctx, int reps, double *out, GError **error)
{
  ExecBackend *b = ctx->b;
  ExecBuffer *buf = exec_buffer_new (b, 3 * sizeof (float), error);
  if (buf == NULL)
    return FALSE;
  ExecStream *s = exec_stream_new (b, EXEC_STREAM_COMPUTE, "calibrate-launch", error);
  float *p = buf->data;
  ExecGemm op = { .dtype = EXEC_DTYPE_F32, .m = 1, .n = 1, .k = 1, .alpha = 1, .a = p,
                  .b = p + 1, .c = p + 2 };
  gboolean ok = s != NULL && exec_gemm (s, &op, NULL, error);   /* warm-up */
  double t0 = cal_now_s ();
  for (int i = 0; ok && i < reps; i++)
    ok = exec_gemm (s, &op, NULL, error);
  ok = ok && exec_stream_synchronize (s, error);
  *out = (cal_now_s () - t0) / reps;
  exec_stream_free (s);
  exec_buffer_free (buf);
  return ok;
}

static gboolean
shape_fits (const int *shape, double max_flops, char **why)
{
  const double flops = 2.0 * shape[0] * shape[1] * shape[2];
  const double bytes = 4.0 * ((double) shape[0] * shape[2] + (double) shape[2] * shape[1]
                              + (double) shape[0] * shape[1]);
  if (shape[0] <= 0 || shape[1] <= 0 || shape[2] <= 0)
    *why = g_strdup_printf ("%d x %d x %d: empty", shape[0], shape[1], shape[2]);
  else if (flops > max_flops)
    *why = g_strdup_printf ("%d x %d x %d: %.3g GFLOP per call is above the %.3g GFLOP limit",
                            shape[0], shape[1], shape[2], flops / 1e9, max_flops / 1e9);
  else if (bytes > (double) MAX_PLAN_BYTES)
    *why = g_strdup_printf ("%d x %d x %d: %.3g GiB of operands", shape[0], shape[1],
                            shape[2], bytes / 1073741824.0);
  else
    return TRUE;
  return FALSE;
}

gboolean
exec_calibrate_gemm (ExecBackend *b, const ExecCalibrateOptions *o, ExecCalibration *cal,
                     GError **error)
{
  g_autoptr (GRand) rng = g_rand_new_with_seed (o->seed + (guint32) b->rank);
  CalCtx *ctx = cal_ctx_new (b, error);
  if (ctx == NULL)
    return FALSE;
  const Timing tm = o->quick ? (Timing) { 0.03, 3, 2000 } : (Timing) { 0.2, 3, 20000 };
  const double max_flops = o->max_plan_flops > 0 ? o->max_plan_flops
                           : o->quick ? QUICK_MAX_PLAN_FLOPS : FULL_MAX_PLAN_FLOPS;
  const int (*grid)[3] = o->quick ? quick_grid : full_grid;
  const guint n_grid = o->quick ? G_N_ELEMENTS (quick_grid) : G_N_ELEMENTS (full_grid);
  gboolean ok = cal_barrier (ctx, ctx->world, error);
  double launch[1] = { 0 };
  ok = ok && launch_measure (ctx, o->quick ? 2000 : 20000, &launch[0], error)
       && cal_group_sum (ctx, ctx->world, launch, 1, error);
  cal->launch_s = launch[0] / b->world;

  for (guint i = 0; ok && i < n_grid + o->n_extra_shapes; i++)
    {
      const int *shape = i < n_grid ? grid[i] : o->extra_shapes[i - n_grid];
      gboolean seen = FALSE;
      for (guint j = 0; j < cal->gemm->len && !seen; j++)
        {
          const ExecGemmRow *r = &g_array_index (cal->gemm, ExecGemmRow, j);
          seen = r->m == shape[0] && r->n == shape[1] && r->k == shape[2];
        }
      char *why = NULL;
      if (seen)
        continue;
      if (i >= n_grid && !shape_fits (shape, max_flops, &why))
        {
          g_ptr_array_add (cal->skipped, why);
          continue;
        }
      ExecGemmRow row = { .m = shape[0], .n = shape[1], .k = shape[2],
                          .dtype = EXEC_DTYPE_F32, .from_plan = i >= n_grid };
      ok = cal_barrier (ctx, ctx->world, error) && gemm_measure (ctx, rng, &tm, &row, error);
      double sums[2] = { row.time_s, (double) row.wrong };
      ok = ok && cal_group_sum (ctx, ctx->world, sums, 2, error);
      if (!ok)
        break;
      row.time_s = sums[0] / b->world;
      row.wrong = (gint64) llround (sums[1]);
      /* the kernel's rate: the call overhead comes back in the cost model */
      const double kernel_s = cal->launch_s < 0.5 * row.time_s ? row.time_s - cal->launch_s
                                                               : row.time_s;
      row.flops_per_s = 2.0 * row.m * row.n * row.k / kernel_s;
      g_array_append_val (cal->gemm, row);
      if (b->rank == 0 && o->on_gemm)
        o->on_gemm (&row, o->user_data);
    }
  cal_ctx_free (ctx);
  return ok;
}

/* ---- memory bandwidth ------------------------------------------------------------------ */

gboolean
exec_calibrate_memory (ExecBackend *b, const ExecCalibrateOptions *o, ExecCalibration *cal,
                       GError **error)
{
  /* 3 x 32 MiB (quick) or 3 x 128 MiB: STREAM asks for 4x the last-level cache */
  const gsize n = o->quick ? (gsize) 1 << 22 : (gsize) 1 << 24;
  const int reps = o->quick ? 5 : 10;
  CalCtx *ctx = cal_ctx_new (b, error);
  if (ctx == NULL)
    return FALSE;
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
  double v[3] = { best_copy > 0 ? 16.0 * n / best_copy / 1e9 : 0,
                  best_triad > 0 ? 24.0 * n / best_triad / 1e9 : 0, (double) wrong };
  ok = ok && cal_group_sum (ctx, ctx->world, v, 3, error);
  if (ok)
    {
      cal->memory.bytes = n * sizeof (double);
      cal->memory.reps = reps;
      cal->memory.copy_GBps = v[0] / b->world;
      cal->memory.triad_GBps = v[1] / b->world;
      cal->memory.wrong = (gint64) llround (v[2]);
    }
  g_aligned_free (a);
  g_aligned_free (bb);
  g_aligned_free (c);
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
  if ((o->gemm && !exec_calibrate_gemm (b, o, cal, error))
      || (o->memory && !exec_calibrate_memory (b, o, cal, error))
      || (o->attention && has_kernels && !exec_calibrate_attention (b, o, cal, error))
      || (o->kernels && has_kernels && !exec_calibrate_kernels (b, o, cal, error))
      || (o->collectives && !exec_calibrate_collectives (b, o, cal, error)))
    {
      g_prefix_error (error, "calibrate: ");
      return NULL;
    }
  return g_steal_pointer (&cal);
}
