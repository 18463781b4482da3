/* tests/exec/check-cuda.h - the fixture of the CUDA backend tests (test-backend-cuda.c,
 * test-kernels-cuda.c): one backend per program, opened by main before g_test_run, and
 * helpers that move arrays to and from the device.
 *
 * Only the public ops table is used, so the tests build with or without CUDA. Without
 * the backend or without a device every GPU test skips with the reason: available()'s
 * message, "no CUDA device (cudaGetDeviceCount: ...)".
 *
 * Tolerance. FP32 results that differ from the CPU reference only in summation order and
 * in the device's expf / logf (at most 2 ulp: CUDA C++ Programming Guide, "Mathematical
 * Functions") are compared with a relative Frobenius error of TOL_F32 = 1e-5: for sums of
 * n <= 300 terms the expected rounding is ~sqrt(n) u = 17 x 6e-8 = 1e-6, ten times below. */
#pragma once

#include "check.h"
#include "cuda-open.h"

#define TOL_F32 1e-5

static ExecBackend *gpu;          /* NULL: GPU tests skip */
static char        *skip_reason;
static ExecStream  *compute;
static GPtrArray   *bufs;         /* ExecBuffer *, freed by cuda_fixture_close */

static void
cuda_fixture_open (void)
{
  gpu = cuda_open_or_skip (&skip_reason);
  if (!gpu)
    return;
  g_autoptr (GError) error = NULL;
  compute = exec_stream_new (gpu, EXEC_STREAM_COMPUTE, "compute", &error);
  g_assert_no_error (error);
  bufs = g_ptr_array_new ();
}

static void
cuda_fixture_close (void)
{
  if (gpu)
    {
      for (guint i = 0; i < bufs->len; i++)
        exec_buffer_free (g_ptr_array_index (bufs, i));
      g_ptr_array_unref (bufs);
      exec_stream_free (compute);
      exec_backend_close (gpu);
    }
  g_free (skip_reason);
}

static gboolean
have_gpu (void)
{
  if (!gpu)
    g_test_skip (skip_reason);
  return gpu != NULL;
}

/* A device copy of `bytes` bytes of host memory (freed at the end of the program). */
static void *
up (const void *host, gsize bytes)
{
  g_autoptr (GError) error = NULL;
  ExecBuffer *buf = exec_buffer_new (gpu, MAX (bytes, 4), &error);
  g_assert_no_error (error);
  g_assert_true (gpu->ops->buffer_upload (gpu, buf, 0, host, bytes, &error));
  g_assert_no_error (error);
  g_ptr_array_add (bufs, buf);
  return buf->data;
}

static ExecBuffer *
buf_of (const void *dev)
{
  for (guint i = 0; i < bufs->len; i++)
    if (((ExecBuffer *) g_ptr_array_index (bufs, i))->data == dev)
      return g_ptr_array_index (bufs, i);
  g_assert_not_reached ();
  return NULL;
}

/* Synchronizes the compute stream (reporting its errors) and copies n floats back. */
static float *
down (const void *dev, gsize n)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (exec_stream_synchronize (compute, &error));
  g_assert_no_error (error);
  float *host = g_new (float, MAX (n, 1));
  g_assert_true (gpu->ops->buffer_download (gpu, host, buf_of (dev), 0, n * sizeof (float),
                                            &error));
  g_assert_no_error (error);
  return host;
}

static void
assert_close (const char *what, const float *got, const float *want, gsize n, double tol)
{
  double e = rel_err (got, want, n);
  g_test_message ("%s: relative error %.3g (tolerance %.0e)", what, e, tol);
  if (!(e <= tol))
    g_error ("%s: relative error %g above %g", what, e, tol);
}

static const ExecKernels *
kernels (void)
{
  return exec_kernels_for (compute);
}

G_GNUC_UNUSED static guint16
to_bf16 (float f)
{
  guint32 u;
  memcpy (&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);   /* round to nearest even; inputs are finite */
  return (guint16) (u >> 16);
}

G_GNUC_UNUSED static float
from_bf16 (guint16 h)
{
  guint32 u = (guint32) h << 16;
  float f;
  memcpy (&f, &u, 4);
  return f;
}
