/* exec/backend-cuda-fp8.c - FP8 (E4M3) GEMMs through cuBLASLt: cublasGemmEx takes no FP8
 * operands, cublasLtMatmul does.
 *
 * What cuBLASLt asks of an FP8 matmul on Hopper and Ada (cuBLAS documentation,
 * cublasLtMatmul, "FP8 data types"; NVIDIA/CUDALibrarySamples cuBLASLt/LtFp8Matmul):
 *  - compute type CUBLAS_COMPUTE_32F and scale type CUDA_R_32F (alpha, beta are floats);
 *  - the "TN" layout: cuBLAS's A transposed, B not, both column-major;
 *  - tensor-core alignment: pointers on 16 bytes, leading dimensions of 16 bytes (16 FP8
 *    elements; 4 for an FP32 C), and the dimensions multiples of 16 here (k is what the
 *    kernels load 16 bytes at a time along; m and n are asked for too, to stay on the
 *    kernels the library documents rather than on a fallback that may not exist);
 *  - compute capability 8.9 (Ada) or 9.0 (Hopper) and newer.
 * The output stays FP32 (ExecGemm's C), one of the output types cuBLASLt lists for E4M3 x
 * E4M3 inputs (BF16, FP16, E4M3 and FP32). The per-tensor scale pointers are left unset:
 * "If not specified, or set to NULL, the scaling factor is assumed to be 1" (cublasLt.h,
 * CUBLASLT_MATMUL_DESC_A_SCALE_POINTER). FAST_ACCUM stays 0 (its default), so partial sums
 * are promoted to FP32 periodically (cublasLt.h, CUBLASLT_MATMUL_DESC_FAST_ACCUM).
 *
 * Row-major ExecGemm to column-major cuBLASLt as in cuda_gemm_rowmajor: C^T (n x m) =
 * op(B)^T op(A)^T, cuBLAS's A being our B and its B our A. TN then means our trans_b TRUE
 * and trans_a FALSE: A is m x k and B is n x k, both row-major with k contiguous (the
 * layout of a linear layer's weight, [out, in]), which is the only one accepted.
 *
 * Descriptors and the heuristic's choice are kept per shape (FP8_MAX_PLANS), so a call
 * in a loop costs one cublasLtMatmul; each stream gets its own workspace, because two
 * streams may run GEMMs at once. */
#include "exec/backend-cuda-private.h"

#include <string.h>

/* cuBLAS documentation, cublasSetWorkspace: "the recommended workspace size ... 32 MiB
 * for Hopper architecture" */
#define FP8_WORKSPACE_BYTES ((size_t) 32 << 20)
/* Shapes remembered; on overflow the cache starts over (a run uses a handful). */
#define FP8_MAX_PLANS 128

typedef struct {
  int                    m, n, k, lda, ldb, ldc, batch;   /* the key */
  gint64                 stride_a, stride_b, stride_c;
  cublasLtMatmulDesc_t   desc;
  cublasLtMatrixLayout_t la, lb, lc;   /* cuBLAS's A (our B), B (our A), C and D */
  cublasLtMatmulAlgo_t   algo;
  size_t                 workspace_bytes;
} Fp8Plan;

static void
plan_free (gpointer data)
{
  Fp8Plan *p = data;
  if (p->la)
    cublasLtMatrixLayoutDestroy (p->la);
  if (p->lb)
    cublasLtMatrixLayoutDestroy (p->lb);
  if (p->lc)
    cublasLtMatrixLayoutDestroy (p->lc);
  if (p->desc)
    cublasLtMatmulDescDestroy (p->desc);
  g_free (p);
}

void
cuda_fp8_clear (CudaBackend *b)
{
  g_clear_pointer (&b->fp8_plans, g_ptr_array_unref);
  if (b->fp8_workspaces)
    {
      /* cudaFree waits for the device, which may never be idle after a timeout */
      GHashTableIter it;
      gpointer ws;
      g_hash_table_iter_init (&it, b->fp8_workspaces);
      while (!b->stuck && g_hash_table_iter_next (&it, NULL, &ws))
        cudaFree (ws);
      g_clear_pointer (&b->fp8_workspaces, g_hash_table_unref);
    }
  if (b->lt && !b->stuck)
    cublasLtDestroy (b->lt);
  b->lt = NULL;
}

static gboolean
fp8_invalid (GError **error, const ExecGemm *op, const char *why)
{
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
               "FP8 GEMM %d x %d x %d (%s, trans_a %d, trans_b %d, lda %d, ldb %d, ldc %d): %s",
               op->m, op->n, op->k, exec_dtype_name (op->dtype), op->trans_a, op->trans_b,
               op->lda, op->ldb, op->ldc, why);
  return FALSE;
}

/* The layout rules of the file's header. */
static gboolean
fp8_check (CudaBackend *b, const ExecGemm *op, int lda, int ldb, int ldc, GError **error)
{
  if (!b->fp8)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "FP8 GEMM: CUDA device %d (%s) has compute capability %d.%d; cuBLASLt's "
                   "FP8 kernels need 8.9 (Ada) or 9.0 (Hopper) and newer", b->device,
                   b->device_name, b->cc_major, b->cc_minor);
      return FALSE;
    }
  if (op->dtype != EXEC_DTYPE_FP8_E4M3)
    return fp8_invalid (error, op, "cuBLASLt multiplies E5M2 only by E4M3 (gradients times "
                        "activations), never E5M2 by E5M2; use float8_e4m3");
  if (op->trans_a || !op->trans_b)
    return fp8_invalid (error, op, "FP8 needs cuBLASLt's TN layout: A row-major m x k "
                        "(trans_a FALSE) and B row-major n x k (trans_b TRUE)");
  if (op->m % 16 || op->n % 16 || op->k % 16 || op->k == 0)
    return fp8_invalid (error, op, "m, n and k must be positive multiples of 16");
  if (lda % 16 || ldb % 16 || ldc % 4)
    return fp8_invalid (error, op, "lda and ldb must be multiples of 16 elements and ldc "
                        "of 4 (16 bytes)");
  if (((guintptr) op->a | (guintptr) op->b | (guintptr) op->c) % 16)
    return fp8_invalid (error, op, "a, b and c must be 16-byte aligned");
  if (op->batch > 1 && (op->stride_a % 16 || op->stride_b % 16 || op->stride_c % 4))
    return fp8_invalid (error, op, "batch strides must keep every matrix 16-byte aligned");
  return TRUE;
}

static gboolean
layout_new (cublasLtMatrixLayout_t *l, cudaDataType type, int rows, int cols, int ld,
            int batch, gint64 stride, GError **error)
{
  EXEC_CUBLAS_TRY (cublasLtMatrixLayoutCreate (l, type, (uint64_t) rows, (uint64_t) cols,
                                               (int64_t) ld), error);
  if (batch > 1)
    {
      const int32_t count = batch;
      const int64_t offset = stride;
      EXEC_CUBLAS_TRY (cublasLtMatrixLayoutSetAttribute (*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                         &count, sizeof count), error);
      EXEC_CUBLAS_TRY (cublasLtMatrixLayoutSetAttribute (
                         *l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                         sizeof offset), error);
    }
  return TRUE;
}

/* Descriptors and the heuristic's first algorithm for p's key. */
static gboolean
plan_build (CudaBackend *b, Fp8Plan *p, GError **error)
{
  EXEC_CUBLAS_TRY (cublasLtMatmulDescCreate (&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), error);
  const int32_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;   /* int32_t attributes */
  EXEC_CUBLAS_TRY (cublasLtMatmulDescSetAttribute (p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_t,
                                                   sizeof op_t), error);
  EXEC_CUBLAS_TRY (cublasLtMatmulDescSetAttribute (p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_n,
                                                   sizeof op_n), error);
  /* cuBLAS's A = our B, stored k x n (ld ldb) and transposed; its B = our A, stored k x m
   * (ld lda); C = D: n x m (ld ldc) */
  if (!layout_new (&p->la, CUDA_R_8F_E4M3, p->k, p->n, p->ldb, p->batch, p->stride_b, error)
      || !layout_new (&p->lb, CUDA_R_8F_E4M3, p->k, p->m, p->lda, p->batch, p->stride_a, error)
      || !layout_new (&p->lc, CUDA_R_32F, p->n, p->m, p->ldc, p->batch, p->stride_c, error))
    return FALSE;

  cublasLtMatmulPreference_t pref = NULL;
  EXEC_CUBLAS_TRY (cublasLtMatmulPreferenceCreate (&pref), error);
  const uint64_t max_ws = FP8_WORKSPACE_BYTES;
  cublasStatus_t rc = cublasLtMatmulPreferenceSetAttribute (
    pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof max_ws);
  cublasLtMatmulHeuristicResult_t res;
  int found = 0;
  memset (&res, 0, sizeof res);
  if (rc == CUBLAS_STATUS_SUCCESS)
    rc = cublasLtMatmulAlgoGetHeuristic (b->lt, p->desc, p->la, p->lb, p->lc, p->lc, pref, 1,
                                         &res, &found);
  cublasLtMatmulPreferenceDestroy (pref);
  if (rc == CUBLAS_STATUS_NOT_SUPPORTED || (rc == CUBLAS_STATUS_SUCCESS && found == 0))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "cuBLASLt has no FP8 kernel for %d x %d x %d (batch %d) on %s (%s)", p->m,
                   p->n, p->k, MAX (p->batch, 1), b->device_name,
                   rc == CUBLAS_STATUS_SUCCESS ? "no heuristic result"
                                               : cublasGetStatusString (rc));
      return FALSE;
    }
  if (rc != CUBLAS_STATUS_SUCCESS)
    return exec_set_cublas_error (error, rc, "cublasLtMatmulAlgoGetHeuristic", G_STRLOC);
  p->algo = res.algo;
  p->workspace_bytes = res.workspaceSize;
  return TRUE;
}

static Fp8Plan *
plan_get (CudaBackend *b, const ExecGemm *op, int lda, int ldb, int ldc, GError **error)
{
  const int batch = MAX (op->batch, 1);
  const gint64 sa = batch > 1 ? op->stride_a : 0, sb = batch > 1 ? op->stride_b : 0;
  const gint64 sc = batch > 1 ? op->stride_c : 0;
  for (guint i = 0; i < b->fp8_plans->len; i++)
    {
      Fp8Plan *p = g_ptr_array_index (b->fp8_plans, i);
      if (p->m == op->m && p->n == op->n && p->k == op->k && p->lda == lda && p->ldb == ldb
          && p->ldc == ldc && p->batch == batch && p->stride_a == sa && p->stride_b == sb
          && p->stride_c == sc)
        return p;
    }
  if (b->fp8_plans->len >= FP8_MAX_PLANS)
    g_ptr_array_remove_range (b->fp8_plans, 0, b->fp8_plans->len);
  Fp8Plan *p = g_new0 (Fp8Plan, 1);
  *p = (Fp8Plan) { .m = op->m, .n = op->n, .k = op->k, .lda = lda, .ldb = ldb, .ldc = ldc,
                   .batch = batch, .stride_a = sa, .stride_b = sb, .stride_c = sc };
  if (!plan_build (b, p, error))
    {
      plan_free (p);
      return NULL;
    }
  g_ptr_array_add (b->fp8_plans, p);
  return p;
}

/* The stream's workspace, allocated at its first FP8 GEMM that needs one. */
static gboolean
stream_workspace (CudaBackend *b, CudaStream *s, void **ws, GError **error)
{
  *ws = g_hash_table_lookup (b->fp8_workspaces, s);
  if (*ws)
    return TRUE;
  cudaError_t rc = cudaMalloc (ws, FP8_WORKSPACE_BYTES);
  if (rc != cudaSuccess)
    {
      cudaGetLastError ();
      *ws = NULL;
      return exec_set_cuda_error (error, rc, "cudaMalloc", "the FP8 GEMM workspace");
    }
  g_hash_table_insert (b->fp8_workspaces, s, *ws);
  return TRUE;
}

static gboolean
fp8_issue (CudaBackend *b, CudaStream *s, const ExecGemm *op, const Fp8Plan *p,
           GError **error)
{
  void *ws = NULL;
  if (p->workspace_bytes > 0 && !stream_workspace (b, s, &ws, error))
    return FALSE;
  const float alpha = op->alpha, beta = op->beta;
  EXEC_CUBLAS_TRY (cublasLtMatmul (b->lt, p->desc, &alpha, op->b, p->la, op->a, p->lb, &beta,
                                   op->c, p->lc, op->c, p->lc, &p->algo, ws,
                                   p->workspace_bytes, s->stream), error);
  return TRUE;
}

gboolean
cuda_gemm_fp8 (CudaBackend *b, CudaStream *s, const ExecGemm *op, ExecSample *out,
               GError **error)
{
  if (op->m < 0 || op->n < 0 || op->k < 0 || op->batch < 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_BLAS,
                   "cublasLtMatmul: negative size (m %d, n %d, k %d, batch %d)", op->m, op->n,
                   op->k, op->batch);
      return FALSE;
    }
  /* A m x k and B n x k row-major (the only layout accepted), C m x n */
  const int lda = op->lda ? op->lda : MAX (op->k, 1), ldb = op->ldb ? op->ldb : MAX (op->k, 1);
  const int ldc = op->ldc ? op->ldc : MAX (op->n, 1);
  if (lda < op->k || ldb < op->k || ldc < op->n)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_BLAS,
                   "cublasLtMatmul: lda %d, ldb %d (at least k = %d) or ldc %d (at least "
                   "n = %d) too small", lda, ldb, op->k, ldc, op->n);
      return FALSE;
    }
  if (!fp8_check (b, op, lda, ldb, ldc, error) || !cuda_stream_check (s, error))
    return FALSE;
  if (op->m == 0 || op->n == 0)
    return TRUE;   /* nothing to write, as the other dtypes */
  /* a cuBLAS handle on the stream, although cuBLASLt does not use it: cuda_stream_free
   * then waits for the device before the stream goes, so a later stream that reuses the
   * address (the workspace key) never shares the workspace with work still running */
  if (!cuda_stream_blas (b, s, error))
    return FALSE;
  if (!b->lt)
    EXEC_CUBLAS_TRY (cublasLtCreate (&b->lt), error);
  if (!b->fp8_plans)
    b->fp8_plans = g_ptr_array_new_with_free_func (plan_free);
  if (!b->fp8_workspaces)
    b->fp8_workspaces = g_hash_table_new (NULL, NULL);
  const Fp8Plan *p = plan_get (b, op, lda, ldb, ldc, error);
  if (!p)
    return FALSE;
  if (out)
    out->start_s = out->end_s = cuda_now (b);   /* replaced by event times at synchronize */
  CudaSample *sample = NULL;
  if (!cuda_sample_begin (b, s, out, &sample, error))
    return FALSE;
  if (!fp8_issue (b, s, op, p, error))
    {
      cuda_sample_free (b, sample);
      g_prefix_error (error, "GEMM %d x %d x %d (%s) on stream '%s': ", op->m, op->n, op->k,
                      exec_dtype_name (op->dtype), s->base.name);
      return FALSE;
    }
  return cuda_sample_end (b, s, sample, error);
}
