/* tests/exec/test-backend-cuda.c - the CUDA backend's GEMM, collectives and events,
 * against the CPU reference (the kernel table is in test-kernels-cuda.c).
 *
 * Everything goes through the public ops table (backend.h), so this file builds with or
 * without CUDA. Without a device (or without the backend in the build) the GPU tests skip
 * with the reason available() gives ("no CUDA device (cudaGetDeviceCount: ...)"), and the
 * tests that need no GPU check that failure: a clear UNAVAILABLE error and a CPU backend
 * that still works. With a device, one backend (a world of one) serves the whole program;
 * seeds are printed with --verbose; tolerances in check-cuda.h. Copies and collectives on
 * a world of one are exact (==). */
#include "check-cuda.h"
#include "exec/calibrate.h"
#include "exec/dtype-convert.h"

/* ---- without a GPU ---------------------------------------------------------------------- */

/* The registry names the backend when it is built, and says what is built when not. */
static void
test_registry (void)
{
  g_autoptr (GError) error = NULL;
  const ExecBackendOps *ops = exec_backend_lookup ("cuda", &error);
  if (!ops)
    {
      g_assert_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "built: cpu"));
      g_test_skip ("built without the cuda backend");
      return;
    }
  g_assert_cmpstr (ops->name, ==, "cuda");
  g_assert_nonnull (ops->kernels);
  g_assert_cmpstr (ops->kernels->name, ==, "cuda");
}

/* No device: available() and open() fail with UNAVAILABLE naming cudaGetDeviceCount, and
 * the CPU backend still runs a GEMM: 1 x 1 x 2, [1 2] . [3 4]^T = 3 + 8 = 11. */
static void
test_no_device (void)
{
  g_autoptr (GError) error = NULL;
  const ExecBackendOps *ops = exec_backend_lookup ("cuda", NULL);
  if (!ops)
    {
      g_test_skip ("built without the cuda backend");
      return;
    }
  if (ops->available (NULL))
    {
      g_test_skip ("a CUDA device is present");
      return;
    }
  g_assert_false (ops->available (&error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE);
  g_assert_true (g_str_has_prefix (error->message, "no CUDA device (cudaGetDeviceCount: "));
  g_clear_error (&error);
  ExecConfig cfg;
  exec_config_init (&cfg);
  cfg.backend = "cuda";
  cfg.mpi = EXEC_MPI_OFF;
  g_assert_null (exec_backend_open (&cfg, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE);
  g_clear_error (&error);

  cfg.backend = "cpu";
  g_autoptr (ExecBackend) cpu = exec_backend_open (&cfg, &error);
  g_assert_no_error (error);
  ExecStream *s = exec_stream_new (cpu, EXEC_STREAM_COMPUTE, NULL, &error);
  g_assert_no_error (error);
  float a[2] = { 1, 2 }, b[2] = { 3, 4 }, c = 0;
  ExecGemm op = { .dtype = EXEC_DTYPE_F32, .trans_b = TRUE, .m = 1, .n = 1, .k = 2,
                  .alpha = 1, .a = a, .b = b, .c = &c };
  g_assert_true (exec_gemm (s, &op, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (c, ==, 11.0f);
}

/* ---- GEMM ---------------------------------------------------------------------------------- */

/* Every transpose pair, alpha 0.5, beta 0.25 on a random C, padded leading dimensions, a
 * batch of 2; k = 129 FP32 products summed in another order: ~sqrt(129) 6e-8 = 7e-7. */
static void
test_gemm_f32 (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (21);
  int m = 37, n = 53, k = 129;
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      {
        int lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
        gsize sa = (gsize) lda * (ta ? k : m), sb = (gsize) ldb * (tb ? n : k);
        gsize sc = (gsize) ldc * m;
        g_autofree float *a = randv (r, 2 * sa, -1, 1), *b = randv (r, 2 * sb, -1, 1);
        g_autofree float *want = randv (r, 2 * sc, -1, 1);
        float *dc = up (want, 2 * sc * sizeof (float));
        ExecGemm op = { .dtype = EXEC_DTYPE_F32, .trans_a = ta, .trans_b = tb, .m = m, .n = n,
                        .k = k, .alpha = 0.5f, .beta = 0.25f, .a = up (a, 2 * sa * 4),
                        .lda = lda, .b = up (b, 2 * sb * 4), .ldb = ldb, .c = dc, .ldc = ldc,
                        .batch = 2, .stride_a = (gint64) sa, .stride_b = (gint64) sb,
                        .stride_c = (gint64) sc };
        ExecSample t = { -1, -1 };
        g_autoptr (GError) error = NULL;
        g_assert_true (exec_gemm (compute, &op, &t, &error));
        g_assert_no_error (error);
        for (int i = 0; i < 2; i++)
          exec_cpu_sgemm (ta, tb, m, n, k, 0.5f, a + i * sa, lda, b + i * sb, ldb, 0.25f,
                          want + i * sc, ldc);
        g_autofree float *got = down (dc, 2 * sc);
        assert_close ("gemm f32", got, want, 2 * sc, TOL_F32);
        /* the sample is filled at synchronize, from CUDA events */
        g_assert_cmpfloat (t.start_s, >=, 0);
        g_assert_cmpfloat (t.end_s, >=, t.start_s);
      }
}

/* BF16 inputs, FP32 accumulation and output. Against the CPU on the same rounded inputs:
 * a BF16 x BF16 product (8 + 8 significant bits) is exact in FP32, so only the order of
 * the k = 96 sums differs (1e-5 as above). Against the unrounded FP32 inputs: rounding to
 * BF16 costs each input at most 2^-9 = 2.0e-3 relative, a product 2 x 2^-9 = 3.9e-3; with
 * random signs the sum's relative error stays below that, so 1e-2 bounds it. */
static void
test_gemm_bf16 (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (22);
  int m = 45, n = 31, k = 96;
  gsize na = (gsize) m * k, nb = (gsize) k * n, nc = (gsize) m * n;
  g_autofree float *a = randv (r, na, -1, 1), *b = randv (r, nb, -1, 1);
  g_autofree float *ar = g_new (float, na), *br = g_new (float, nb);
  g_autofree guint16 *a16 = g_new (guint16, na), *b16 = g_new (guint16, nb);
  for (gsize i = 0; i < na; i++)
    ar[i] = from_bf16 (a16[i] = to_bf16 (a[i]));
  for (gsize i = 0; i < nb; i++)
    br[i] = from_bf16 (b16[i] = to_bf16 (b[i]));
  g_autofree float *zero = g_new0 (float, nc);
  float *dc = up (zero, nc * 4);
  ExecGemm op = { .dtype = EXEC_DTYPE_BF16, .m = m, .n = n, .k = k, .alpha = 1,
                  .a = up (a16, na * 2), .b = up (b16, nb * 2), .c = dc };
  g_autoptr (GError) error = NULL;
  g_assert_true (exec_gemm (compute, &op, NULL, &error));
  g_assert_no_error (error);
  g_autofree float *got = down (dc, nc);
  g_autofree float *exact = g_new0 (float, nc), *full = g_new0 (float, nc);
  exec_cpu_sgemm (FALSE, FALSE, m, n, k, 1, ar, k, br, n, 0, exact, n);
  exec_cpu_sgemm (FALSE, FALSE, m, n, k, 1, a, k, b, n, 0, full, n);
  assert_close ("gemm bf16 vs rounded inputs", got, exact, nc, TOL_F32);
  assert_close ("gemm bf16 vs fp32 inputs", got, full, nc, 1e-2);
}

/* Integers in [-2, 2] from an index: exact in BF16 and FP8 E4M3. */
static float
small_int (gsize i, int salt)
{
  return (float) ((gint64) ((i * 2654435761u + (gsize) salt) % 5) - 2);
}

/* BF16 on integer inputs in every transpose pair: every value is an integer in [-2, 2]
 * (exact in BF16), every product an integer of magnitude <= 4, every partial sum of the
 * k = 80 terms an integer of magnitude <= 320 < 2^24, so FP32 accumulation in any order
 * gives the exact result: compared with ==. */
static void
test_gemm_bf16_exact (void)
{
  if (!have_gpu ())
    return;
  const int m = 33, n = 17, k = 80;
  const gsize na = (gsize) m * k, nb = (gsize) k * n, nc = (gsize) m * n;
  g_autofree float *a = g_new (float, na), *b = g_new (float, nb);
  g_autofree guint16 *a16 = g_new (guint16, na), *b16 = g_new (guint16, nb);
  for (gsize i = 0; i < na; i++)
    a[i] = small_int (i, 1);
  for (gsize i = 0; i < nb; i++)
    b[i] = small_int (i, 2);
  exec_dtype_pack (EXEC_DTYPE_BF16, a, a16, na);
  exec_dtype_pack (EXEC_DTYPE_BF16, b, b16, nb);
  const void *da = up (a16, na * 2), *db = up (b16, nb * 2);
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      {
        g_autofree float *zero = g_new0 (float, nc), *want = g_new0 (float, nc);
        float *dc = up (zero, nc * 4);
        /* the same buffers read as m x k or k x m, k x n or n x k */
        ExecGemm op = { .dtype = EXEC_DTYPE_BF16, .trans_a = ta, .trans_b = tb, .m = m,
                        .n = n, .k = k, .alpha = 1, .a = da, .b = db, .c = dc };
        g_autoptr (GError) error = NULL;
        g_assert_true (exec_gemm (compute, &op, NULL, &error));
        g_assert_no_error (error);
        exec_cpu_sgemm (ta, tb, m, n, k, 1, a, ta ? m : k, b, tb ? k : n, 0, want, n);
        g_autofree float *got = down (dc, nc);
        for (gsize i = 0; i < nc; i++)
          if (got[i] != want[i])
            g_error ("bf16 ta %d tb %d: C[%" G_GSIZE_FORMAT "] = %g, want %g", ta, tb, i,
                     got[i], want[i]);
      }
}

/* FP8 E4M3 through cuBLASLt, A m x k and B n x k row-major (trans_b). Integer inputs in
 * [-2, 2] with k = 64: partial sums are integers of magnitude <= 4 x 64 = 256 < 2^9, which
 * any accumulator of >= 10 significant bits holds exactly (FP32; Hopper's FP8 path keeps
 * about 14 between promotions to FP32: DeepSeek-V3 report, arXiv:2412.19437, 3.3.2), so
 * the result is compared with ==. Then random inputs rounded to E4M3 on the host, padded
 * leading dimensions, alpha 0.5, beta 0.25 on a random C and a batch of 2, against the
 * CPU's FP32 GEMM of the same rounded values: an E4M3 x E4M3 product (4 + 4 significant
 * bits) is exact in FP32, so only the accumulation differs. Taking the coarsest model, a
 * 14-bit accumulator (relative error <= 2^-13 per addition of the running sum), k = 64
 * additions of random-sign terms, whose running sums stay of the order of the result,
 * are off by at most about 64 x 2^-13 = 7.8e-3 of it; 1e-2 relative (Frobenius) bounds
 * that, and an FP32 accumulator (64 x 2^-24 = 4e-6) passes with room. */
static void
test_gemm_fp8 (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GError) error = NULL;
  {
    const int m = 48, n = 32, k = 64;
    const gsize na = (gsize) m * k, nb = (gsize) n * k, nc = (gsize) m * n;
    g_autofree float *a = g_new (float, na), *b = g_new (float, nb);
    g_autofree guint8 *a8 = g_new (guint8, na), *b8 = g_new (guint8, nb);
    for (gsize i = 0; i < na; i++)
      a[i] = small_int (i, 3);
    for (gsize i = 0; i < nb; i++)
      b[i] = small_int (i, 4);
    exec_dtype_pack (EXEC_DTYPE_FP8_E4M3, a, a8, na);
    exec_dtype_pack (EXEC_DTYPE_FP8_E4M3, b, b8, nb);
    g_autofree float *zero = g_new0 (float, nc), *want = g_new0 (float, nc);
    float *dc = up (zero, nc * 4);
    ExecGemm op = { .dtype = EXEC_DTYPE_FP8_E4M3, .trans_b = TRUE, .m = m, .n = n, .k = k,
                    .alpha = 1, .a = up (a8, na), .b = up (b8, nb), .c = dc };
    ExecSample t = { -1, -1 };
    g_assert_true (exec_gemm (compute, &op, &t, &error));
    g_assert_no_error (error);
    exec_cpu_sgemm (FALSE, TRUE, m, n, k, 1, a, k, b, k, 0, want, n);
    g_autofree float *got = down (dc, nc);
    for (gsize i = 0; i < nc; i++)
      if (got[i] != want[i])
        g_error ("fp8 exact: C[%" G_GSIZE_FORMAT "] = %g, want %g", i, got[i], want[i]);
    g_assert_cmpfloat (t.start_s, >=, 0);
    g_assert_cmpfloat (t.end_s, >=, t.start_s);
  }
  {
    g_autoptr (GRand) r = seeded (23);
    const int m = 32, n = 48, k = 64, lda = k + 16, ldb = k + 32, ldc = n + 4;
    const gsize sa = (gsize) lda * m, sb = (gsize) ldb * n, sc = (gsize) ldc * m;
    g_autofree float *a = randv (r, 2 * sa, -1, 1), *b = randv (r, 2 * sb, -1, 1);
    g_autofree float *want = randv (r, 2 * sc, -1, 1);
    g_autofree guint8 *a8 = g_new (guint8, 2 * sa), *b8 = g_new (guint8, 2 * sb);
    exec_dtype_pack (EXEC_DTYPE_FP8_E4M3, a, a8, 2 * sa);
    exec_dtype_pack (EXEC_DTYPE_FP8_E4M3, b, b8, 2 * sb);
    exec_dtype_unpack (EXEC_DTYPE_FP8_E4M3, a8, a, 2 * sa);   /* the rounded values */
    exec_dtype_unpack (EXEC_DTYPE_FP8_E4M3, b8, b, 2 * sb);
    float *dc = up (want, 2 * sc * 4);
    ExecGemm op = { .dtype = EXEC_DTYPE_FP8_E4M3, .trans_b = TRUE, .m = m, .n = n, .k = k,
                    .alpha = 0.5f, .beta = 0.25f, .a = up (a8, 2 * sa), .lda = lda,
                    .b = up (b8, 2 * sb), .ldb = ldb, .c = dc, .ldc = ldc, .batch = 2,
                    .stride_a = (gint64) sa, .stride_b = (gint64) sb, .stride_c = (gint64) sc };
    g_assert_true (exec_gemm (compute, &op, NULL, &error));
    g_assert_no_error (error);
    for (int i = 0; i < 2; i++)
      exec_cpu_sgemm (FALSE, TRUE, m, n, k, 0.5f, a + i * sa, lda, b + i * sb, ldb, 0.25f,
                      want + i * sc, ldc);
    g_autofree float *got = down (dc, 2 * sc);
    assert_close ("gemm fp8 vs rounded inputs", got, want, 2 * sc, 1e-2);
  }
}

/* What cuBLASLt's FP8 kernels cannot run is refused before anything is queued, with
 * EXEC_ERROR_INVALID and the rule: B not transposed, k not a multiple of 16, E5M2. */
static void
test_gemm_fp8_errors (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GError) error = NULL;
  float *p = up ((float[1024]) { 0 }, 4096);
  ExecGemm op = { .dtype = EXEC_DTYPE_FP8_E4M3, .trans_b = FALSE, .m = 16, .n = 16, .k = 16,
                  .alpha = 1, .a = p, .b = p + 256, .c = p + 512 };
  g_assert_false (exec_gemm (compute, &op, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "TN layout"));
  g_clear_error (&error);
  op.trans_b = TRUE;
  op.k = 40;
  g_assert_false (exec_gemm (compute, &op, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "multiples of 16"));
  g_clear_error (&error);
  op.k = 16;
  op.dtype = EXEC_DTYPE_FP8_E5M2;
  g_assert_false (exec_gemm (compute, &op, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
  /* the stream is still usable: the refusals queued nothing */
  op.dtype = EXEC_DTYPE_FP8_E4M3;
  g_assert_true (exec_gemm (compute, &op, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (exec_stream_synchronize (compute, &error));
  g_assert_no_error (error);
}

/* The quick GEMM sweep on the GPU: FP32, BF16 and FP8 rows of the 7 grid shapes, every
 * one checked right (calibrate-gemm.c's integer check inputs: exact), none left out. */
static void
test_calibrate_narrow (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GError) error = NULL;
  ExecCalibrateOptions o;
  exec_calibrate_options_init (&o);
  o.quick = TRUE;
  o.memory = o.collectives = o.attention = o.kernels = FALSE;
  g_autoptr (ExecCalibration) cal = exec_calibrate_run (gpu, &o, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < cal->gemm_dtypes_skipped->len; i++)
    g_test_message ("not measured: %s",
                    (const char *) g_ptr_array_index (cal->gemm_dtypes_skipped, i));
  g_assert_cmpuint (cal->gemm_dtypes_skipped->len, ==, 0);
  g_assert_cmpuint (cal->gemm->len, ==, 21);
  for (guint i = 0; i < cal->gemm->len; i++)
    {
      const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
      g_test_message ("%-12s %5d %5d %5d %10.1f GFLOP/s, wrong %" G_GINT64_FORMAT,
                      exec_dtype_name (g->dtype), g->m, g->n, g->k, g->flops_per_s / 1e9,
                      g->wrong);
      g_assert_cmpint (g->dtype, ==, i < 7 ? EXEC_DTYPE_F32 : i < 14 ? EXEC_DTYPE_BF16
                                                                    : EXEC_DTYPE_FP8_E4M3);
      g_assert_cmpint (g->wrong, ==, 0);
      g_assert_cmpfloat (g->flops_per_s, >, 0);
    }
}

/* Leading dimensions below their minimum and unknown dtypes come back as errors. */
static void
test_gemm_errors (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GError) error = NULL;
  float *p = up ((float[4]) { 0 }, 16);
  ExecGemm op = { .dtype = EXEC_DTYPE_F32, .m = 2, .n = 2, .k = 2, .alpha = 1, .a = p,
                  .lda = 1, .b = p, .c = p };
  g_assert_false (exec_gemm (compute, &op, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_BLAS);
  g_clear_error (&error);
  op.lda = 0;
  op.dtype = (ExecDtype) 42;
  g_assert_false (exec_gemm (compute, &op, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
}

/* ---- collectives on a world of one ------------------------------------------------------- */

/* Every collective over one member is a copy: the received data equal what was sent. */
static void
test_collectives (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GError) error = NULL;
  ExecStream *comm = exec_stream_new (gpu, EXEC_STREAM_COMM, "world", &error);
  g_assert_no_error (error);
  ExecGroup *world = exec_group_new (gpu, "world", (int[1]) { 0 }, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (world->size, ==, 1);
  g_assert_cmpint (world->rank, ==, 0);
  g_assert_cmpint (world->color, ==, 0);
  g_autoptr (GRand) r = seeded (41);
  const gsize n = 1000;
  g_autofree float *in = randv (r, n, -4, 4), *zero = g_new0 (float, n);
  for (int kind = EXEC_COLL_ALL_REDUCE; kind < EXEC_COLL_N; kind++)
    {
      if (kind == EXEC_COLL_SEND || kind == EXEC_COLL_RECV || kind == EXEC_COLL_ALL_TO_ALLV)
        continue;   /* below: a group of one has nobody to talk to; counts: test-moe */
      float *send = up (in, n * 4), *recv = up (zero, n * 4);
      ExecColl op = { .kind = kind, .dtype = EXEC_DTYPE_F32, .send = send, .recv = recv,
                      .count = n };
      ExecSample t = { -1, -1 };
      g_assert_true (exec_collective (comm, world, &op, &t, &error));
      g_assert_no_error (error);
      g_assert_true (exec_stream_synchronize (comm, &error));
      g_assert_no_error (error);
      g_autofree float *got = down (recv, n);
      for (gsize i = 0; i < n; i++)
        g_assert_cmpfloat (got[i], ==, in[i]);
      g_assert_cmpfloat (t.start_s, >=, 0);
      g_assert_cmpfloat (t.end_s, >=, t.start_s);
      g_test_message ("%s: %.1f us", exec_coll_name (kind), (t.end_s - t.start_s) * 1e6);
    }
  /* in place: all-reduce with send == recv, all-gather with send == recv + rank x count */
  float *buf = up (in, n * 4);
  ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .dtype = EXEC_DTYPE_F32, .send = buf,
                  .recv = buf, .count = n };
  g_assert_true (exec_collective (comm, world, &op, NULL, &error));
  op.kind = EXEC_COLL_ALL_GATHER;
  g_assert_true (exec_collective (comm, world, &op, NULL, &error));
  g_assert_true (exec_stream_synchronize (comm, &error));
  g_assert_no_error (error);
  g_autofree float *got = down (buf, n);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpfloat (got[i], ==, in[i]);
  /* BF16 travels too (2 bytes an element) */
  g_autofree guint16 *h16 = g_new (guint16, n), *g16 = g_new (guint16, n);
  for (gsize i = 0; i < n; i++)
    h16[i] = to_bf16 (in[i]);
  void *d16 = up (h16, n * 2);
  op = (ExecColl) { .kind = EXEC_COLL_ALL_REDUCE, .dtype = EXEC_DTYPE_BF16, .send = d16,
                    .recv = d16, .count = n };
  g_assert_true (exec_collective (comm, world, &op, NULL, &error));
  g_assert_true (exec_stream_synchronize (comm, &error));
  g_assert_no_error (error);
  g_assert_true (gpu->ops->buffer_download (gpu, g16, buf_of (d16), 0, n * 2, &error));
  g_assert_cmpmem (g16, n * 2, h16, n * 2);
  /* errors: a lone send, a peer out of range */
  op = (ExecColl) { .kind = EXEC_COLL_SEND, .dtype = EXEC_DTYPE_F32, .send = buf, .count = n };
  g_assert_false (exec_collective (comm, world, &op, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
  op.kind = EXEC_COLL_SEND_RECV;
  op.recv = buf;
  op.peer = 1;
  g_assert_false (exec_collective (comm, world, &op, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  exec_group_free (world);
  exec_stream_free (comm);
}

/* ---- events ------------------------------------------------------------------------------- */

/* An event orders work across streams (a fill of 3 on one, a copy on the other), and its
 * times increase: t(before) <= t(after). A never-recorded event is at 0, as on the CPU. */
static void
test_events (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GError) error = NULL;
  const gsize n = 1 << 22;
  g_autofree float *zero = g_new0 (float, n);
  float *x = up (zero, n * 4), *y = up (zero, n * 4);
  ExecStream *other = exec_stream_new (gpu, EXEC_STREAM_COMM, "other", &error);
  ExecEvent *before = exec_event_new (gpu, &error), *after = exec_event_new (gpu, &error);
  g_assert_no_error (error);
  double t = -1;
  g_assert_true (exec_event_time (before, &t, &error));
  g_assert_cmpfloat (t, ==, 0);
  g_assert_true (exec_event_record (before, compute, &error));
  kernels ()->fill (compute, x, 3.0f, n);
  g_assert_true (exec_event_record (after, compute, &error));
  g_assert_true (exec_event_wait (other, after, &error));
  kernels ()->copy (other, y, x, n);
  g_assert_true (exec_stream_synchronize (other, &error));
  g_assert_true (exec_event_synchronize (after, &error));
  g_assert_no_error (error);
  gboolean done = FALSE;
  g_assert_true (exec_event_query (after, &done, &error));
  g_assert_true (done);
  double t0 = -1, t1 = -1;
  g_assert_true (exec_event_time (before, &t0, &error));
  g_assert_true (exec_event_time (after, &t1, &error));
  g_assert_no_error (error);
  g_test_message ("fill of %" G_GSIZE_FORMAT " floats: %.1f us", n, (t1 - t0) * 1e6);
  g_assert_cmpfloat (t0, >=, 0);
  g_assert_cmpfloat (t1, >=, t0);
  g_autofree float *got = down (y, n);
  for (gsize i = 0; i < n; i += 4099)
    g_assert_cmpfloat (got[i], ==, 3.0f);
  exec_event_free (before);
  exec_event_free (after);
  exec_stream_free (other);
}

/* A kernel that cannot run (head_dim 300 > 256) fails its stream, and the next
 * synchronize says which kernel. */
static void
test_sticky_error (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GError) error = NULL;
  ExecStream *s = exec_stream_new (gpu, EXEC_STREAM_COMPUTE, "doomed", &error);
  g_assert_no_error (error);
  ExecAttnDims d = { .B = 1, .Tq = 1, .Tk = 1, .n_head = 1, .n_kv_head = 1, .head_dim = 300 };
  float *p = up ((float[600]) { 0 }, 600 * 4);
  exec_kernels_for (s)->attn_forward (s, p, p + 300, p, NULL, p, p, NULL, &d);
  g_assert_false (exec_stream_synchronize (s, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "attn_forward"));
  exec_stream_free (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cuda_fixture_open ();
  g_test_add_func ("/exec/cuda/registry", test_registry);
  g_test_add_func ("/exec/cuda/no-device", test_no_device);
  g_test_add_func ("/exec/cuda/gemm/f32", test_gemm_f32);
  g_test_add_func ("/exec/cuda/gemm/bf16", test_gemm_bf16);
  g_test_add_func ("/exec/cuda/gemm/errors", test_gemm_errors);
  g_test_add_func ("/exec/cuda/gemm/bf16-exact", test_gemm_bf16_exact);
  g_test_add_func ("/exec/cuda/gemm/fp8", test_gemm_fp8);
  g_test_add_func ("/exec/cuda/gemm/fp8-errors", test_gemm_fp8_errors);
  g_test_add_func ("/exec/cuda/calibrate/narrow", test_calibrate_narrow);
  g_test_add_func ("/exec/cuda/collectives/world-of-one", test_collectives);
  g_test_add_func ("/exec/cuda/events", test_events);
  g_test_add_func ("/exec/cuda/sticky-error", test_sticky_error);
  int rc = g_test_run ();

  cuda_fixture_close ();
  return rc;
}
