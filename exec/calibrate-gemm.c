/* exec/calibrate-gemm.c - the GEMM sweep of a calibration: the call overhead, then the
 * grid and the extra (plan) shapes in FP32 and, where the backend multiplies them, in
 * BF16 and FP8 E4M3.
 *
 * Method (llm.c's and MAMF-finder's way of measuring a GEMM):
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
 *  - All ranks run at once (a barrier before each shape), then times are averaged over
 *    ranks (nccl-tests' default `-a 1`) and wrong elements summed.
 *  - BF16 and FP8 E4M3 (gemm_narrow): the FP32 grid and extra shapes again in each dtype
 *    the backend accepts (a 16 x 16 x 16 probe; EXEC_ERROR_INVALID means "not this dtype").
 *    FP8 uses the layout its kernels need, B stored n x k (trans_b). The check runs on
 *    inputs of its own: B dense with entries ((7p + 11j) mod 5) - 2, A with the same kind
 *    of entries in at most 128 columns per row (p + 3i = 0 mod ceil(k / 128)), so every
 *    value is an integer in [-2, 2] (exact in BF16, FP16, E4M3 and E5M2), every product
 *    an integer of magnitude <= 4 and every partial sum, in any order, an integer of
 *    magnitude <= 512 < 2^10. Any accumulator of at least 10 significant bits computes it
 *    exactly: FP32 (24 bits) and Hopper's FP8 tensor-core accumulation (about 14 bits
 *    between promotions to FP32: DeepSeek-V3 technical report, arXiv:2412.19437, section
 *    3.3.2). The tolerance is the FP32 bound above, 2 gamma_k sum |a b| <= 2 k 2^-24 512,
 *    which is below 1 for k < 2^14: in effect the check demands the exact integer. The
 *    timed calls then run on uniform [-1, 1) inputs rounded to the dtype (realistic bit
 *    patterns: a GPU's power, hence its clock, depends on the data). */
#include "exec/calibrate-private.h"
#include "exec/dtype-convert.h"

#include <math.h>

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

/* Elements of C checked against the double reference: up to 8 rows x 8 columns spread
 * evenly, first and last included. */
static gint64
gemm_check (const float *a, const float *bm, gboolean trans_b, const float *c, int m, int n,
            int k)
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
            const float bv = trans_b ? bm[(gsize) j * k + p] : bm[(gsize) p * n + j];
            const double t = (double) a[(gsize) i * k + p] * bv;
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

/* A timed warm-up call sizes the loop; then the calls in CAL_WINDOWS windows, one sync
 * each, and the median window (calibrate-private.h). Fills time_s (this rank) and reps. */
static gboolean
gemm_time (ExecStream *s, const ExecGemm *op, const Timing *tm, ExecGemmRow *row,
           GError **error)
{
  double t0 = cal_now_s ();
  gboolean ok = exec_gemm (s, op, NULL, error) && exec_stream_synchronize (s, error);
  const double one = MAX (cal_now_s () - t0, 1e-7);
  const int reps = (int) CLAMP (ceil (tm->min_time_s / one), tm->min_reps, tm->max_reps);
  const int per = MAX (reps / CAL_WINDOWS, 1);
  double w[CAL_WINDOWS], unsorted[CAL_WINDOWS], before[CAL_WINDOWS][2], after[CAL_WINDOWS][2];
  for (int i = 0; ok && i < CAL_WINDOWS; i++)
    {
      cal_window_sched (before[i]);
      t0 = cal_now_s ();
      for (int r = 0; ok && r < per; r++)
        ok = exec_gemm (s, op, NULL, error);
      ok = ok && exec_stream_synchronize (s, error);
      w[i] = unsorted[i] = (cal_now_s () - t0) / per;
      cal_window_sched (after[i]);
    }
  if (ok)
    {
      row->reps = per * CAL_WINDOWS;
      row->time_s = cal_median (w, CAL_WINDOWS);   /* sorts w: fastest first */
      row->window_min_s = w[0];
      row->window_max_s = w[CAL_WINDOWS - 1];
      row->share = cal_windows_keep (unsorted, (const double (*)[2]) before,
                                     (const double (*)[2]) after, CAL_WINDOWS, row->time_s);
    }
  return ok;
}

/* One FP32 shape: check, warm up, time. Fills time_s (this rank), reps and wrong. */
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
    row->wrong = gemm_check (ha, hb, FALSE, hc, row->m, row->n, row->k);
  ok = ok && gemm_time (s, &op, tm, row, error);
  exec_stream_free (s);
  exec_buffer_free (dc);
  exec_buffer_free (db);
  exec_buffer_free (da);
  return ok;
}

static gboolean
dtype_is_fp8 (ExecDtype d)
{
  return d == EXEC_DTYPE_FP8_E4M3 || d == EXEC_DTYPE_FP8_E5M2;
}

/* The check inputs of the narrow dtypes (file header): integers in [-2, 2]; A has at most
 * 128 non-zero columns per row, spread over all of k with a row-dependent offset. */
static float
check_a (int i, int p, int k)
{
  const gint64 every = MAX (1, (k + 127) / 128);
  return ((gint64) p + 3 * (gint64) i) % every == 0
         ? (float) ((2 * (gint64) i + 3 * (gint64) p + 1) % 5 - 2) : 0.0f;
}

static float
check_b (int p, int j)
{
  return (float) ((7 * (gint64) p + 11 * (gint64) j) % 5 - 2);
}

/* One BF16 or FP8 shape: the check on integer inputs, then the timed calls on uniform
 * [-1, 1) inputs rounded to the dtype (file header). FP8 keeps B as n x k (trans_b). */
static gboolean
gemm_measure_narrow (CalCtx *ctx, guint64 *state, const Timing *tm, ExecGemmRow *row,
                     GError **error)
{
  ExecBackend *b = ctx->b;
  const ExecDtype d = row->dtype;
  const gboolean tb = dtype_is_fp8 (d);
  const int m = row->m, n = row->n, k = row->k;
  const gsize na = (gsize) m * k, nb = (gsize) k * n, nc = (gsize) m * n;
  const gsize es = exec_dtype_size (d);
  g_autofree float *ha = g_new (float, na), *hb = g_new (float, nb), *hc = g_new (float, nc);
  g_autofree guint8 *pa = g_malloc (na * es), *pb = g_malloc (nb * es);
  for (int i = 0; i < m; i++)
    for (int p = 0; p < k; p++)
      ha[(gsize) i * k + p] = check_a (i, p, k);
  for (int p = 0; p < k; p++)
    for (int j = 0; j < n; j++)
      hb[tb ? (gsize) j * k + p : (gsize) p * n + j] = check_b (p, j);
  exec_dtype_pack (d, ha, pa, na);
  exec_dtype_pack (d, hb, pb, nb);
  ExecBuffer *da = exec_buffer_new (b, na * es, error);
  ExecBuffer *db = da ? exec_buffer_new (b, nb * es, error) : NULL;
  ExecBuffer *dc = db ? exec_buffer_new (b, nc * 4, error) : NULL;
  ExecStream *s = dc ? exec_stream_new (b, EXEC_STREAM_COMPUTE, "calibrate-gemm", error) : NULL;
  gboolean ok = s != NULL;
  ExecGemm op = { .dtype = d, .trans_b = tb, .m = m, .n = n, .k = k, .alpha = 1, .beta = 0,
                  .a = da ? da->data : NULL, .b = db ? db->data : NULL,
                  .c = dc ? dc->data : NULL };
  ok = ok && b->ops->buffer_upload (b, da, 0, pa, na * es, error)
       && b->ops->buffer_upload (b, db, 0, pb, nb * es, error)
       && exec_gemm (s, &op, NULL, error) && exec_stream_synchronize (s, error)
       && b->ops->buffer_download (b, hc, dc, 0, nc * 4, error);
  if (ok)
    row->wrong = gemm_check (ha, hb, tb, hc, m, n, k);
  g_clear_pointer (&ha, g_free);
  g_clear_pointer (&hb, g_free);
  if (ok)
    {
      g_autofree float *ta = cal_host_uniform (state, na, -1.0, 1.0);
      g_autofree float *tbv = cal_host_uniform (state, nb, -1.0, 1.0);
      exec_dtype_pack (d, ta, pa, na);
      exec_dtype_pack (d, tbv, pb, nb);
      ok = b->ops->buffer_upload (b, da, 0, pa, na * es, error)
           && b->ops->buffer_upload (b, db, 0, pb, nb * es, error);
    }
  ok = ok && gemm_time (s, &op, tm, row, error);
  exec_stream_free (s);
  exec_buffer_free (dc);
  exec_buffer_free (db);
  exec_buffer_free (da);
  return ok;
}

/* Does the backend multiply `d`? A 16 x 16 x 16 GEMM of zeros on every rank, in the
 * layout the sweep uses; all ranks must accept it. Any failure means "not this dtype"
 * (*why says the first rank's reason); only the sum over ranks can fail the run. */
static gboolean
gemm_probe (CalCtx *ctx, ExecDtype d, gboolean *accepted, char **why, GError **error)
{
  ExecBackend *b = ctx->b;
  g_autoptr (GError) local = NULL;
  /* A, B and C at 1 KiB offsets: 16-byte aligned for FP8 (C is 16 x 16 floats) */
  ExecBuffer *buf = exec_buffer_new (b, 3 * 1024, &local);
  ExecStream *s = buf ? exec_stream_new (b, EXEC_STREAM_COMPUTE, "calibrate-probe", &local)
                      : NULL;
  if (s != NULL)
    {
      char *base = buf->data;
      ExecGemm op = { .dtype = d, .trans_b = dtype_is_fp8 (d), .m = 16, .n = 16, .k = 16,
                      .alpha = 1, .a = base, .b = base + 1024, .c = base + 2048 };
      if (exec_gemm (s, &op, NULL, &local))
        exec_stream_synchronize (s, &local);
    }
  exec_stream_free (s);
  exec_buffer_free (buf);
  double refused[1] = { local != NULL ? 1.0 : 0.0 };
  if (!cal_group_sum (ctx, ctx->world, refused, 1, error))
    return FALSE;
  *accepted = refused[0] < 0.5;
  *why = *accepted ? NULL
         : g_strdup_printf ("%s: %s", exec_dtype_name (d),
                            local ? local->message : "refused by another rank");
  return TRUE;
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

/* The grid and the extra shapes in one dtype: a barrier, the measurement, the sums over
 * ranks, the kernel's rate and its fraction of the device's peak. */
static gboolean
gemm_sweep (CalCtx *ctx, const ExecCalibrateOptions *o, ExecCalibration *cal, ExecDtype dtype,
            const int (*grid)[3], guint n_grid, const Timing *tm, double max_flops, GRand *rng,
            guint64 *state, GError **error)
{
  ExecBackend *b = ctx->b;
  const TopoDtype td = cal_topo_dtype (dtype);
  const double peak = o->device != NULL ? o->device->peak_flops[td] : 0.0;
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < n_grid + o->n_extra_shapes; i++)
    {
      const int *shape = i < n_grid ? grid[i] : o->extra_shapes[i - n_grid];
      gboolean seen = FALSE;
      for (guint j = 0; j < cal->gemm->len && !seen; j++)
        {
          const ExecGemmRow *r = &g_array_index (cal->gemm, ExecGemmRow, j);
          seen = r->m == shape[0] && r->n == shape[1] && r->k == shape[2] && r->dtype == dtype;
        }
      char *why = NULL;
      if (seen)
        continue;
      if (i >= n_grid && !shape_fits (shape, max_flops, &why))
        {
          /* said once, in the FP32 pass */
          if (dtype == EXEC_DTYPE_F32)
            g_ptr_array_add (cal->skipped, why);
          else
            g_free (why);
          continue;
        }
      if (dtype_is_fp8 (dtype) && (shape[0] % 16 || shape[1] % 16 || shape[2] % 16))
        {
          g_ptr_array_add (cal->skipped,
                           g_strdup_printf ("%d x %d x %d in %s: FP8 kernels need m, n and k "
                                            "multiples of 16", shape[0], shape[1], shape[2],
                                            exec_dtype_name (dtype)));
          continue;
        }
      ExecGemmRow row = { .m = shape[0], .n = shape[1], .k = shape[2],
                          .dtype = dtype, .from_plan = i >= n_grid };
      ok = cal_barrier (ctx, ctx->world, error)
           && (dtype == EXEC_DTYPE_F32 ? gemm_measure (ctx, rng, tm, &row, error)
                                       : gemm_measure_narrow (ctx, state, tm, &row, error));
      double sums[4] = { row.time_s, (double) row.wrong, 0, 0 };
      cal_share_sum (row.share, &sums[2], &sums[3]);
      ok = ok && cal_group_sum (ctx, ctx->world, sums, 4, error);
      if (!ok)
        break;
      row.time_s = sums[0] / b->world;
      row.wrong = (gint64) llround (sums[1]);
      row.share = cal_share_mean (sums[2], sums[3]);
      /* the kernel's rate: the call overhead comes back in the cost model */
      const double kernel_s = cal->launch_s < 0.5 * row.time_s ? row.time_s - cal->launch_s
                                                               : row.time_s;
      row.flops_per_s = 2.0 * row.m * row.n * row.k / kernel_s;
      if (peak > 0)
        {
          row.peak_flops_per_s = peak;
          row.peak_fraction = row.flops_per_s / peak;
        }
      g_array_append_val (cal->gemm, row);
      if (b->rank == 0 && o->on_gemm)
        o->on_gemm (&row, o->user_data);
    }
  return ok;
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

  /* FP32 first (what the CPU backend measures, unchanged), then the narrow dtypes the
   * backend accepts, each over the grid and the extra shapes */
  static const ExecDtype narrow[] = { EXEC_DTYPE_BF16, EXEC_DTYPE_FP8_E4M3 };
  guint64 state = ((guint64) o->seed << 32) ^ (guint64) b->rank;   /* narrow timing inputs */
  for (guint di = 0; ok && di < 1 + (o->gemm_narrow ? G_N_ELEMENTS (narrow) : 0); di++)
    {
      const ExecDtype dtype = di == 0 ? EXEC_DTYPE_F32 : narrow[di - 1];
      if (dtype != EXEC_DTYPE_F32)
        {
          gboolean accepted = FALSE;
          char *why = NULL;
          ok = gemm_probe (ctx, dtype, &accepted, &why, error);
          if (ok && !accepted)
            g_ptr_array_add (cal->gemm_dtypes_skipped, why);
          if (!ok || !accepted)
            continue;
        }
      ok = ok && gemm_sweep (ctx, o, cal, dtype, grid, n_grid, &tm, max_flops, rng, &state,
                             error);
    }
  cal_ctx_free (ctx);
  return ok;
}
