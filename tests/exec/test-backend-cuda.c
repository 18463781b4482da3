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
      if (kind == EXEC_COLL_SEND || kind == EXEC_COLL_RECV)
        continue;   /* below: a group of one has nobody to talk to */
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
  g_test_add_func ("/exec/cuda/collectives/world-of-one", test_collectives);
  g_test_add_func ("/exec/cuda/events", test_events);
  g_test_add_func ("/exec/cuda/sticky-error", test_sticky_error);
  int rc = g_test_run ();

  cuda_fixture_close ();
  return rc;
}
