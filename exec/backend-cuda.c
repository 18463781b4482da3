/* exec/backend-cuda.c - the CUDA backend: vendor errors, device buffers (cudaMalloc),
 * GEMM (cuBLAS), opening and closing, and the ops table. Streams, events and timing are
 * in backend-cuda-stream.c, groups and collectives (NCCL) in backend-cuda-coll.c, the
 * world and the NCCL unique id in bootstrap-cuda.c, the kernel table in
 * backend-cuda-kernels.c over exec/kernels/ (the .cu files).
 *
 * Work on streams is asynchronous: a GEMM returns once cuBLAS has queued it. What the
 * host sees (uploads, downloads, samples, event times) waits for the device first. */
#include "exec/backend-cuda-private.h"

#include <string.h>

/* ---- errors ----------------------------------------------------------------------------- */

gboolean
exec_set_cuda_error (GError **error, cudaError_t rc, const char *call, const char *what)
{
  int code = rc == cudaErrorMemoryAllocation ? EXEC_ERROR_MEMORY : EXEC_ERROR_DEVICE;
  g_set_error (error, EXEC_ERROR, code, "%s failed (%s): %s (%s)", call, what,
               cudaGetErrorString (rc), cudaGetErrorName (rc));
  return FALSE;
}

gboolean
exec_set_cublas_error (GError **error, cublasStatus_t rc, const char *call, const char *what)
{
  int code = rc == CUBLAS_STATUS_ALLOC_FAILED ? EXEC_ERROR_MEMORY : EXEC_ERROR_DEVICE;
  g_set_error (error, EXEC_ERROR, code, "%s failed (%s): %s (%s)", call, what,
               cublasGetStatusString (rc), cublasGetStatusName (rc));
  return FALSE;
}

gboolean
exec_set_nccl_error (GError **error, ncclResult_t rc, const char *call, const char *what)
{
  /* ncclGetLastError holds NCCL's detailed message (which peer, which transport) */
  const char *last = ncclGetLastError (NULL);
  /* NCCL allocates its buffers as it connects, lazily at the first collective since 2.22,
   * after the runner's own: out of device memory there is the plan's "does not fit"
   * (status 3) as a cudaMalloc failure is, not a device failure (status 1). NCCL reports a
   * CUDA failure as ncclUnhandledCudaError and leaves the CUDA error to be read. */
  int code = EXEC_ERROR_DEVICE;
  if (rc == ncclUnhandledCudaError && cudaPeekAtLastError () == cudaErrorMemoryAllocation)
    {
      cudaGetLastError ();
      code = EXEC_ERROR_MEMORY;
    }
  /* its buffers through the driver API (cuMem*, NCCL_CUMEM_ENABLE) set no runtime error:
   * its own message names the failure ("Cuda failure 2 'out of memory'", "Cuda driver
   * error 2 ... out of memory") */
  else if ((rc == ncclUnhandledCudaError || rc == ncclSystemError) && last != NULL
           && strstr (last, "out of memory") != NULL)
    code = EXEC_ERROR_MEMORY;
  g_set_error (error, EXEC_ERROR, code, "%s failed (%s): %s%s%s%s", call, what,
               ncclGetErrorString (rc), last && *last ? ": " : "", last ? last : "",
               code == EXEC_ERROR_MEMORY ? " (out of device memory)" : "");
  return FALSE;
}

double
cuda_now (CudaBackend *b)
{
  return (double) (g_get_monotonic_time () - b->t0_us) * 1e-6;
}

/* ---- available ------------------------------------------------------------------------- */

static gboolean
device_count (int *n, GError **error)
{
  *n = 0;
  cudaError_t rc = cudaGetDeviceCount (n);
  if (rc != cudaSuccess)
    {
      cudaGetLastError ();   /* not sticky, but leave nothing behind */
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
                   "no CUDA device (cudaGetDeviceCount: %s, %s)%s", cudaGetErrorString (rc),
                   cudaGetErrorName (rc),
                   /* the driver is there but older than this CUDA runtime needs (CUDA
                    * 13: driver 580 or newer) */
                   rc == cudaErrorInsufficientDriver
                   ? "; the NVIDIA driver is older than this build's CUDA runtime needs "
                     "(nvidia-smi shows its version; CUDA 13 needs 580 or newer), or there is "
                     "none: update it, or build tandem against the CUDA the driver supports; "
                     "the cpu backend still works"
                   : rc == cudaErrorNoDevice
                   ? "; is an NVIDIA GPU and its driver installed? the cpu backend still works"
                   : "");
      *n = 0;
      return FALSE;
    }
  if (*n <= 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
                   "no CUDA device (cudaGetDeviceCount: 0 devices; CUDA_VISIBLE_DEVICES=%s)",
                   g_getenv ("CUDA_VISIBLE_DEVICES") ? g_getenv ("CUDA_VISIBLE_DEVICES")
                   : "(unset)");
      return FALSE;
    }
  return TRUE;
}

static gboolean
cuda_available (GError **error)
{
  int n;
  return device_count (&n, error);
}

/* ---- buffers ----------------------------------------------------------------------------- */

static void
buffer_destroy (gpointer data)
{
  ExecBuffer *buf = data;
  CudaBackend *b = cuda_backend (buf->backend);
  /* after a timeout the device may never be idle again: cudaFree would wait for it */
  if (buf->data && !b->stuck)
    cudaFree (buf->data);
  g_free (buf);
}

static ExecBuffer *
cuda_buffer_new (ExecBackend *base, gsize bytes, GError **error)
{
  CudaBackend *b = cuda_backend (base);
  void *p = NULL;
  cudaError_t rc = cudaMalloc (&p, MAX (bytes, 1));
  if (rc != cudaSuccess)
    {
      cudaGetLastError ();
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_MEMORY,
                   "cudaMalloc of %" G_GSIZE_FORMAT " bytes on device %d (%s) failed: %s",
                   bytes, b->device, b->device_name, cudaGetErrorString (rc));
      return NULL;
    }
  /* zeroed (backend.h); on the copy stream, complete before anyone can use it */
  rc = cudaMemsetAsync (p, 0, MAX (bytes, 1), b->copy_stream);
  if (rc == cudaSuccess)
    rc = cudaStreamSynchronize (b->copy_stream);
  if (rc != cudaSuccess)
    {
      cudaFree (p);
      exec_set_cuda_error (error, rc, "cudaMemsetAsync", "zeroing a new buffer");
      return NULL;
    }
  ExecBuffer *buf = g_new0 (ExecBuffer, 1);
  buf->backend = base;
  buf->data = p;
  buf->bytes = bytes;
  g_ptr_array_add (b->buffers, buf);
  return buf;
}

static void
cuda_buffer_free (ExecBackend *base, ExecBuffer *buffer)
{
  CudaBackend *b = cuda_backend (base);
  if (!buffer)
    return;
  /* work still queued may use it; a timeout marks the backend stuck (then it leaks) */
  if (!b->stuck)
    cuda_wait_idle (b, NULL);
  g_ptr_array_remove_fast (b->buffers, buffer);
}

static gboolean
check_range (const ExecBuffer *buf, gsize offset, gsize bytes, const char *what, GError **error)
{
  if (offset > buf->bytes || bytes > buf->bytes - offset)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s of %" G_GSIZE_FORMAT " bytes at offset %" G_GSIZE_FORMAT
                   " overruns a buffer of %" G_GSIZE_FORMAT " bytes", what, bytes, offset,
                   buf->bytes);
      return FALSE;
    }
  return TRUE;
}

static gboolean
cuda_buffer_upload (ExecBackend *base, ExecBuffer *dst, gsize offset, const void *src,
                    gsize bytes, GError **error)
{
  CudaBackend *b = cuda_backend (base);
  if (!check_range (dst, offset, bytes, "upload", error) || !cuda_wait_idle (b, error))
    return FALSE;
  if (bytes == 0)
    return TRUE;
  EXEC_CUDA_TRY (cudaMemcpyAsync ((char *) dst->data + offset, src, bytes,
                                  cudaMemcpyHostToDevice, b->copy_stream), error);
  EXEC_CUDA_TRY (cudaStreamSynchronize (b->copy_stream), error);
  return TRUE;
}

static gboolean
cuda_buffer_download (ExecBackend *base, void *dst, const ExecBuffer *src, gsize offset,
                      gsize bytes, GError **error)
{
  CudaBackend *b = cuda_backend (base);
  if (!check_range (src, offset, bytes, "download", error) || !cuda_wait_idle (b, error))
    return FALSE;
  if (bytes == 0)
    return TRUE;
  EXEC_CUDA_TRY (cudaMemcpyAsync (dst, (const char *) src->data + offset, bytes,
                                  cudaMemcpyDeviceToHost, b->copy_stream), error);
  EXEC_CUDA_TRY (cudaStreamSynchronize (b->copy_stream), error);
  return TRUE;
}

/* ---- GEMM -------------------------------------------------------------------------------- */

gboolean
cuda_gemm_rowmajor (CudaBackend *b, CudaStream *s, cublasComputeType_t compute,
                    cudaDataType ab_type, gboolean trans_a, gboolean trans_b, int m, int n,
                    int k, float alpha, const void *a, int lda, const void *bm, int ldb,
                    float beta, float *c, int ldc, int batch, gint64 stride_a,
                    gint64 stride_b, gint64 stride_c, GError **error)
{
  if (m <= 0 || n <= 0)
    return TRUE;   /* nothing to write, as exec_cpu_sgemm */
  if (!cuda_stream_blas (b, s, error))
    return FALSE;
  /* Row-major X is column-major X^T: C^T (n x m) = op(B)^T (n x k) op(A)^T (k x m), so
   * cuBLAS gets B first, and each operand's transpose flag unchanged. */
  cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (batch <= 1)
    EXEC_CUBLAS_TRY (cublasGemmEx (s->blas, op_b, op_a, n, m, k, &alpha, bm, ab_type, ldb, a,
                                   ab_type, lda, &beta, c, CUDA_R_32F, ldc, compute,
                                   CUBLAS_GEMM_DEFAULT), error);
  else
    EXEC_CUBLAS_TRY (cublasGemmStridedBatchedEx (s->blas, op_b, op_a, n, m, k, &alpha, bm,
                                                 ab_type, ldb, stride_b, a, ab_type, lda,
                                                 stride_a, &beta, c, CUDA_R_32F, ldc, stride_c,
                                                 batch, compute, CUBLAS_GEMM_DEFAULT), error);
  return TRUE;
}

static gboolean
check_ld (int ld, int min, const char *name, GError **error)
{
  if (ld < MAX (min, 1))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_BLAS,
                   "cublasGemmEx: %s = %d is below its minimum %d", name, ld, MAX (min, 1));
      return FALSE;
    }
  return TRUE;
}

static gboolean
cuda_gemm (ExecBackend *base, ExecStream *stream, const ExecGemm *op, ExecSample *out,
           GError **error)
{
  CudaBackend *b = cuda_backend (base);
  CudaStream *s = (CudaStream *) stream;
  cudaDataType ab_type;
  switch (op->dtype)
    {
    case EXEC_DTYPE_F32:  ab_type = CUDA_R_32F; break;
    case EXEC_DTYPE_BF16: ab_type = CUDA_R_16BF; break;
    case EXEC_DTYPE_F16:  ab_type = CUDA_R_16F; break;
    case EXEC_DTYPE_FP8_E4M3:
    case EXEC_DTYPE_FP8_E5M2:
      return cuda_gemm_fp8 (b, s, op, out, error);   /* cuBLASLt: backend-cuda-fp8.c */
    default:
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "cuda GEMM: unknown dtype %d",
                   op->dtype);
      return FALSE;
    }
  if (op->m < 0 || op->n < 0 || op->k < 0 || op->batch < 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_BLAS,
                   "cublasGemmEx: negative size (m %d, n %d, k %d, batch %d)", op->m, op->n,
                   op->k, op->batch);
      return FALSE;
    }
  int lda_min = op->trans_a ? op->m : op->k, ldb_min = op->trans_b ? op->k : op->n;
  int lda = op->lda ? op->lda : MAX (lda_min, 1);
  int ldb = op->ldb ? op->ldb : MAX (ldb_min, 1);
  int ldc = op->ldc ? op->ldc : MAX (op->n, 1);
  if (!check_ld (lda, lda_min, "lda", error) || !check_ld (ldb, ldb_min, "ldb", error)
      || !check_ld (ldc, op->n, "ldc", error) || !cuda_stream_check (s, error))
    return FALSE;
  if (out)
    out->start_s = out->end_s = cuda_now (b);   /* replaced by event times at synchronize */
  CudaSample *sample = NULL;
  if (!cuda_sample_begin (b, s, out, &sample, error))
    return FALSE;
  /* FP32 storage with BF16 tensor-core products and FP32 accumulation when asked
   * (cublas_api.h: CUBLAS_COMPUTE_32F_FAST_16BF, "allows down-converting inputs to
   * bfloat16"); other input types already choose their tensor-core path by type */
  cublasComputeType_t compute = op->fast_bf16 && op->dtype == EXEC_DTYPE_F32
                                  ? CUBLAS_COMPUTE_32F_FAST_16BF : CUBLAS_COMPUTE_32F;
  if (!cuda_gemm_rowmajor (b, s, compute, ab_type, op->trans_a, op->trans_b,
                           op->m, op->n, op->k, op->alpha, op->a, lda, op->b, ldb, op->beta,
                           op->c, ldc, op->batch, op->stride_a, op->stride_b, op->stride_c,
                           error))
    {
      cuda_sample_free (b, sample);
      g_prefix_error (error, "GEMM %d x %d x %d (%s) on stream '%s': ", op->m, op->n, op->k,
                      exec_dtype_name (op->dtype), stream->name);
      return FALSE;
    }
  return cuda_sample_end (b, s, sample, error);
}

/* ---- open and close -------------------------------------------------------------------- */

static void
cuda_close (ExecBackend *base)
{
  CudaBackend *b = cuda_backend (base);
  if (!b)
    return;
  /* Let what is queued finish, unless a wait already timed out (then it may never). */
  if (!b->stuck && b->streams && !cuda_wait_idle (b, NULL))
    b->stuck = TRUE;
  gboolean clean = !b->stuck;
  cuda_fp8_clear (b);
  g_clear_pointer (&b->events, g_ptr_array_unref);
  g_clear_pointer (&b->streams, g_ptr_array_unref);
  if (b->groups)
    {
      for (guint i = 0; i < b->groups->len; i++)
        cuda_group_destroy (b, g_ptr_array_index (b->groups, i), !clean);
      g_clear_pointer (&b->groups, g_ptr_array_unref);
    }
  if (b->world_comm)
    cuda_nccl_release (b, b->world_comm, !clean);
  b->world_comm = NULL;
  g_clear_pointer (&b->buffers, g_ptr_array_unref);
  cuda_clock_clear (b);
  if (b->copy_stream && clean)
    cudaStreamDestroy (b->copy_stream);
  cuda_bootstrap_close (b, clean);
  g_free (b->id_file);
  g_free (b);
}

static void
cuda_abort (ExecBackend *base, int code)
{
  CudaBackend *b = cuda_backend (base);
  /* ncclCommAbort frees the communicators without waiting for peers, so a rank stuck in
   * a collective returns; then MPI (if any) ends every rank */
  b->stuck = TRUE;
  for (guint i = 0; b->groups && i < b->groups->len; i++)
    {
      CudaGroup *g = g_ptr_array_index (b->groups, i);
      if (g->comm)
        ncclCommAbort (g->comm);
      g->comm = NULL;
    }
  if (b->world_comm)
    ncclCommAbort (b->world_comm);
  b->world_comm = NULL;
  cuda_bootstrap_abort (b, code);
}

/* TANDEM_CUDA_MATMUL: fp32 (default), tf32 or bf16, for the kernel table's matmuls. */
static gboolean
matmul_mode (CudaBackend *b, GError **error)
{
  const char *m = g_getenv ("TANDEM_CUDA_MATMUL");
  if (!m || !*m || g_ascii_strcasecmp (m, "fp32") == 0)
    b->matmul_compute = CUBLAS_COMPUTE_32F;
  else if (g_ascii_strcasecmp (m, "tf32") == 0)
    b->matmul_compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  else if (g_ascii_strcasecmp (m, "bf16") == 0)
    b->matmul_compute = CUBLAS_COMPUTE_32F_FAST_16BF;
  else
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "TANDEM_CUDA_MATMUL=%s: expected fp32, tf32 or bf16", m);
      return FALSE;
    }
  return TRUE;
}

static gboolean
open_device (CudaBackend *b, GError **error)
{
  const ExecConfig *c = &b->base.config;
  b->device = c->device >= 0 ? c->device : b->base.local_rank % b->n_devices;
  if (b->device >= b->n_devices)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "CUDA device %d asked for, but only %d visible", b->device, b->n_devices);
      return FALSE;
    }
  EXEC_CUDA_TRY (cudaSetDevice (b->device), error);
  struct cudaDeviceProp prop;
  EXEC_CUDA_TRY (cudaGetDeviceProperties (&prop, b->device), error);
  g_strlcpy (b->device_name, prop.name, sizeof b->device_name);
  b->cc_major = prop.major;
  b->cc_minor = prop.minor;
  b->base.device_memory_bytes = (guint64) prop.totalGlobalMem;
  /* cuBLASLt's FP8 kernels: Ada (8.9), Hopper (9.0) and newer (backend-cuda-fp8.c) */
  b->fp8 = prop.major > 8 || (prop.major == 8 && prop.minor >= 9);
  if (prop.major < 9)
    {
      /* exec/meson.build builds the kernels as sm_90 SASS + compute_90 PTX: the PTX runs
       * on 9.0 and newer, nothing runs on older devices */
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
                   "CUDA device %d (%s) has compute capability %d.%d, but tandem's kernels are "
                   "built for sm_90 (Hopper) and newer", b->device, b->device_name, prop.major,
                   prop.minor);
      return FALSE;
    }
  EXEC_CUDA_TRY (cudaStreamCreateWithFlags (&b->copy_stream, cudaStreamNonBlocking), error);
  return TRUE;
}

static ExecBackend *
cuda_open (const ExecConfig *config, GError **error)
{
  int n_devices = 0;
  if (!device_count (&n_devices, error))
    return NULL;
  CudaBackend *b = g_new0 (CudaBackend, 1);
  b->base.ops = &exec_cuda_ops;
  if (config)
    b->base.config = *config;
  else
    exec_config_init (&b->base.config);
  ExecConfig *c = &b->base.config;
  c->backend = "cuda";
  if (c->timeout_s <= 0)
    c->timeout_s = EXEC_DEFAULT_TIMEOUT_S;
  b->base.timeout_s = c->timeout_s;
  b->base.world = 1;
  b->n_devices = n_devices;
  b->base.device_count = n_devices;
  b->t0_us = g_get_monotonic_time ();
  b->nccl_blocking = g_strcmp0 (g_getenv ("TANDEM_NCCL_BLOCKING"), "1") == 0;
  b->buffers = g_ptr_array_new_with_free_func (buffer_destroy);
  b->streams = g_ptr_array_new_with_free_func (cuda_stream_destroy);
  b->events = g_ptr_array_new_with_free_func (cuda_event_destroy);
  b->groups = g_ptr_array_new ();
  b->event_pool = g_array_new (FALSE, FALSE, sizeof (cudaEvent_t));
  b->anchors = g_array_new (FALSE, TRUE, sizeof (CudaAnchor));

  if (!matmul_mode (b, error) || !cuda_bootstrap_world (b, error) || !open_device (b, error)
      || !cuda_clock_init (b, error) || !cuda_bootstrap_comm (b, error))
    {
      g_prefix_error (error, "opening the cuda backend (rank %d of %d, %s): ", b->base.rank,
                      b->base.world, b->bootstrap ? b->bootstrap : "no bootstrap yet");
      cuda_close (&b->base);
      return NULL;
    }
  return &b->base;
}

const ExecBackendOps exec_cuda_ops = {
  .name = "cuda",
  .available = cuda_available,
  .open = cuda_open,
  .close = cuda_close,
  .abort = cuda_abort,
  .buffer_new = cuda_buffer_new,
  .buffer_free = cuda_buffer_free,
  .buffer_upload = cuda_buffer_upload,
  .buffer_download = cuda_buffer_download,
  .stream_new = cuda_stream_new,
  .stream_free = cuda_stream_free,
  .stream_synchronize = cuda_stream_synchronize,
  .event_new = cuda_event_new,
  .event_free = cuda_event_free,
  .event_record = cuda_event_record,
  .event_wait = cuda_event_wait,
  .event_synchronize = cuda_event_synchronize,
  .event_query = cuda_event_query,
  .event_time = cuda_event_time,
  .gemm = cuda_gemm,
  .kernels = &exec_kernels_cuda,
  .group_new = cuda_group_new,
  .group_free = cuda_group_free,
  .collective = cuda_collective,
};
