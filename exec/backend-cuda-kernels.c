/* exec/backend-cuda-kernels.c - the cuda backend's ExecKernels table: matmuls through
 * cuBLAS, the rest through the launchers of exec/kernels/ (nvcc-built .cu files).
 *
 * The table's functions return nothing (layers.h), so a failure is kept on the stream as
 * its sticky error (cuda_stream_fail) and comes back from the next synchronize, GEMM or
 * collective on that stream, naming the kernel. Index arrays (tokens, targets, positions)
 * that live in host memory are copied onto the stream first (see stage_ints). */
#include "exec/backend-cuda-private.h"
#include "exec/kernels/kernels.h"

#include <math.h>

#define STAGE_MIN_INTS 65536   /* first staging area: 256 KiB */

static CudaStream *
cstream (ExecStream *s)
{
  return (CudaStream *) s;
}

static void
check (ExecStream *stream, cudaError_t rc, const char *kernel)
{
  if (rc == cudaSuccess)
    return;
  GError *e = NULL;
  exec_set_cuda_error (&e, rc, kernel, "launch");
  g_prefix_error (&e, "kernel %s on stream '%s': ", kernel, stream->name);
  cuda_stream_fail (cstream (stream), e);
}

static void
fail_invalid (ExecStream *stream, const char *kernel, const char *why)
{
  cuda_stream_fail (cstream (stream), g_error_new (EXEC_ERROR, EXEC_ERROR_INVALID,
                                                   "kernel %s on stream '%s': %s", kernel,
                                                   stream->name, why));
}

/* A device copy of n ints at p when p is host memory (p itself otherwise). The copy is
 * queued on the stream, so the kernel after it reads it in order; cudaMemcpyAsync from
 * pageable memory has staged the source before it returns (CUDA runtime API, "API
 * synchronization behavior"), so the caller may reuse p at once. The area is reused
 * round-robin: a copy that overwrites a slot is queued after every earlier reader of it,
 * all on this stream. It holds at least 4 x the largest request, so the two arrays of one
 * call never overlap. */
static const int *
stage_ints (ExecStream *stream, const int *p, gsize n, const char *kernel)
{
  CudaStream *s = cstream (stream);
  if (!p || n == 0)
    return p;
  struct cudaPointerAttributes attr;
  if (cudaPointerGetAttributes (&attr, p) != cudaSuccess)
    {
      (void) cudaGetLastError ();
      return p;   /* CUDA does not know it: let the kernel try */
    }
  if (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged)
    return p;
  if (s->ints_off + n > s->ints_cap)
    {
      if (4 * n > s->ints_cap)
        {
          gsize cap = MAX (4 * n, STAGE_MIN_INTS);
          int *area = NULL;
          cudaError_t rc = cudaMalloc ((void **) &area, cap * sizeof (int));
          if (rc != cudaSuccess)
            {
              check (stream, rc, kernel);
              return p;
            }
          if (s->ints)
            s->retired = g_slist_prepend (s->retired, s->ints);   /* may still be read */
          s->ints = area;
          s->ints_cap = cap;
        }
      s->ints_off = 0;
    }
  int *dst = s->ints + s->ints_off;
  cudaError_t rc = cudaMemcpyAsync (dst, p, n * sizeof (int), cudaMemcpyHostToDevice,
                                    s->stream);
  if (rc != cudaSuccess)
    {
      check (stream, rc, kernel);
      return p;
    }
  s->ints_off += n;
  return dst;
}

static ExecCudaAttnDims
dims (const ExecAttnDims *d)
{
  return (ExecCudaAttnDims) { .B = d->B, .Tq = d->Tq, .Tk = d->Tk, .n_head = d->n_head,
                              .n_kv_head = d->n_kv_head, .head_dim = d->head_dim };
}

/* ---- matmuls (cuBLAS) -------------------------------------------------------------------- */

static void
gemm (ExecStream *stream, const char *kernel, gboolean ta, gboolean tb, int m, int n, int k,
      const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
  CudaBackend *be = cuda_backend (stream->backend);
  GError *e = NULL;
  if (!cuda_gemm_rowmajor (be, cstream (stream), be->matmul_compute, CUDA_R_32F, ta, tb, m, n,
                           k, 1.0f, a, lda, b, ldb, beta, c, ldc, 1, 0, 0, 0, &e))
    {
      g_prefix_error (&e, "kernel %s on stream '%s': ", kernel, stream->name);
      cuda_stream_fail (cstream (stream), e);
    }
}

/* out (N, OC) = beta out + inp (N, C) w^T, as exec_cpu_matmul_forward */
static void
k_matmul_forward (ExecStream *s, float *out, const float *inp, const float *w, int N, int C,
                  int OC, float beta)
{
  gemm (s, "matmul_forward", FALSE, TRUE, N, OC, C, inp, C, w, C, beta, out, OC);
}

/* dinp = beta dinp + dout w; dw += dout^T inp; either may be NULL */
static void
k_matmul_backward (ExecStream *s, float *dinp, float *dw, const float *dout, const float *inp,
                   const float *w, int N, int C, int OC, float beta)
{
  if (dinp)
    gemm (s, "matmul_backward (dinp)", FALSE, FALSE, N, C, OC, dout, OC, w, C, beta, dinp, C);
  if (dw)
    gemm (s, "matmul_backward (dw)", TRUE, FALSE, OC, C, N, dout, OC, inp, C, 1.0f, dw, C);
}

/* ---- the rest (exec/kernels/) ------------------------------------------------------------ */

static void
k_rmsnorm_forward (ExecStream *s, float *out, float *rstd, const float *inp, const float *w,
                   int N, int C, float eps)
{
  check (s, exec_cuda_rmsnorm_forward (cstream (s)->stream, out, rstd, inp, w, N, C, eps),
         "rmsnorm_forward");
}

static void
k_rmsnorm_backward (ExecStream *s, float *dinp, float *dw, const float *dout, const float *inp,
                    const float *w, const float *rstd, int N, int C)
{
  check (s, exec_cuda_rmsnorm_backward (cstream (s)->stream, dinp, dw, dout, inp, w, rstd, N,
                                        C), "rmsnorm_backward");
}

static void
k_rope_forward (ExecStream *s, float *x, const int *pos, int B, int T, int H, int D, float th)
{
  pos = stage_ints (s, pos, (gsize) MAX (T, 0), "rope_forward");
  check (s, exec_cuda_rope (cstream (s)->stream, x, pos, B, T, H, D, th, 1.0f), "rope_forward");
}

static void
k_rope_backward (ExecStream *s, float *dx, const int *pos, int B, int T, int H, int D, float th)
{
  pos = stage_ints (s, pos, (gsize) MAX (T, 0), "rope_backward");
  check (s, exec_cuda_rope (cstream (s)->stream, dx, pos, B, T, H, D, th, -1.0f),
         "rope_backward");
}

static void
k_attn_init (ExecStream *s, float *out, float *lse, const ExecAttnDims *d)
{
  check (s, exec_cuda_attn_init (cstream (s)->stream, out, lse, dims (d)), "attn_init");
}

static gboolean
attn_dims_ok (ExecStream *s, const ExecAttnDims *d, const char *kernel)
{
  if (d->head_dim > EXEC_CUDA_MAX_HEAD_DIM)
    {
      g_autofree char *why = g_strdup_printf ("head_dim %d is above the %d these kernels "
                                              "handle", d->head_dim, EXEC_CUDA_MAX_HEAD_DIM);
      fail_invalid (s, kernel, why);
      return FALSE;
    }
  return TRUE;
}

static void
k_attn_forward (ExecStream *s, float *out, float *lse, const float *q, const int *q_pos,
                const float *k, const float *v, const int *kv_pos, const ExecAttnDims *d)
{
  if (!attn_dims_ok (s, d, "attn_forward"))
    return;
  q_pos = stage_ints (s, q_pos, (gsize) MAX (d->Tq, 0), "attn_forward");
  kv_pos = stage_ints (s, kv_pos, (gsize) MAX (d->Tk, 0), "attn_forward");
  check (s, exec_cuda_attn_forward (cstream (s)->stream, out, lse, q, q_pos, k, v, kv_pos,
                                    dims (d)), "attn_forward");
}

static void
k_attn_backward_prep (ExecStream *s, float *delta, const float *out, const float *dout,
                      const ExecAttnDims *d)
{
  check (s, exec_cuda_attn_backward_prep (cstream (s)->stream, delta, out, dout, dims (d)),
         "attn_backward_prep");
}

static void
k_attn_backward (ExecStream *s, float *dq, float *dk, float *dv, const float *dout,
                 const float *delta, const float *lse, const float *q, const int *q_pos,
                 const float *k, const float *v, const int *kv_pos, const ExecAttnDims *d)
{
  if (!attn_dims_ok (s, d, "attn_backward"))
    return;
  q_pos = stage_ints (s, q_pos, (gsize) MAX (d->Tq, 0), "attn_backward");
  kv_pos = stage_ints (s, kv_pos, (gsize) MAX (d->Tk, 0), "attn_backward");
  check (s, exec_cuda_attn_backward (cstream (s)->stream, dq, dk, dv, dout, delta, lse, q,
                                     q_pos, k, v, kv_pos, dims (d)), "attn_backward");
}

static void
k_swiglu_forward (ExecStream *s, float *h, const float *gate, const float *up, gsize n)
{
  check (s, exec_cuda_swiglu_forward (cstream (s)->stream, h, gate, up, n), "swiglu_forward");
}

static void
k_swiglu_backward (ExecStream *s, float *dgate, float *dup, const float *dh, const float *gate,
                   const float *up, gsize n)
{
  check (s, exec_cuda_swiglu_backward (cstream (s)->stream, dgate, dup, dh, gate, up, n),
         "swiglu_backward");
}

static void
k_embed_forward (ExecStream *s, float *out, const int *tokens, const float *wte, int start,
                 int local, int N, int C)
{
  tokens = stage_ints (s, tokens, (gsize) MAX (N, 0), "embed_forward");
  check (s, exec_cuda_embed_forward (cstream (s)->stream, out, tokens, wte, start, local, N, C),
         "embed_forward");
}

static void
k_embed_backward (ExecStream *s, float *dwte, const float *dout, const int *tokens, int start,
                  int local, int N, int C)
{
  tokens = stage_ints (s, tokens, (gsize) MAX (N, 0), "embed_backward");
  check (s, exec_cuda_embed_backward (cstream (s)->stream, dwte, dout, tokens, start, local, N,
                                      C), "embed_backward");
}

static void
k_ce_forward (ExecStream *s, float *lse_part, float *tgt_part, const float *logits,
              const int *targets, int start, int valid, int local, int N)
{
  targets = stage_ints (s, targets, (gsize) MAX (N, 0), "ce_forward");
  check (s, exec_cuda_ce_forward (cstream (s)->stream, lse_part, tgt_part, logits, targets,
                                  start, valid, local, N), "ce_forward");
}

static void
k_ce_combine (ExecStream *s, float *lse, float *loss, const float *lse_parts, int n_parts,
              const float *tgt_sum, const int *targets, int N)
{
  targets = stage_ints (s, targets, (gsize) MAX (N, 0), "ce_combine");
  check (s, exec_cuda_ce_combine (cstream (s)->stream, lse, loss, lse_parts, n_parts, tgt_sum,
                                  targets, N), "ce_combine");
}

static void
k_ce_backward (ExecStream *s, float *dlogits, const float *logits, const float *lse,
               const int *targets, int start, int valid, int local, int N, float dloss)
{
  targets = stage_ints (s, targets, (gsize) MAX (N, 0), "ce_backward");
  check (s, exec_cuda_ce_backward (cstream (s)->stream, dlogits, logits, lse, targets, start,
                                   valid, local, N, dloss), "ce_backward");
}

static void
k_adamw (ExecStream *s, float *param, const float *grad, float *m, float *v, gsize n,
         const ExecAdamW *hp, int step)
{
  /* bias corrections on the host in float, exactly as exec_cpu_adamw */
  float c1 = 1.0f - powf (hp->beta1, (float) step);
  float c2 = 1.0f - powf (hp->beta2, (float) step);
  check (s, exec_cuda_adamw (cstream (s)->stream, param, grad, m, v, n, hp->lr, hp->beta1,
                             hp->beta2, hp->eps, hp->weight_decay, c1, c2), "adamw");
}

static void
k_copy (ExecStream *s, float *dst, const float *src, gsize n)
{
  if (dst == src || n == 0)
    return;
  if (dst < src + n && src < dst + n)
    {
      fail_invalid (s, "copy", "overlapping source and destination (memmove is not "
                    "supported on the device)");
      return;
    }
  (void) cudaGetLastError ();
  check (s, cudaMemcpyAsync (dst, src, n * sizeof (float), cudaMemcpyDeviceToDevice,
                             cstream (s)->stream), "copy");
}

static void
k_fill (ExecStream *s, float *dst, float value, gsize n)
{
  check (s, exec_cuda_fill (cstream (s)->stream, dst, value, n), "fill");
}

static void
k_add (ExecStream *s, float *out, const float *a, const float *b, gsize n)
{
  check (s, exec_cuda_add (cstream (s)->stream, out, a, b, n), "add");
}

/* MoE routing (kernels/moe.cu); idx, pos and counts live in device buffers (moe.h acts) */
static void
k_moe_topk (ExecStream *s, float *probs, int *idx, float *wts, const float *logits, int N,
            int E, int k, gboolean norm)
{
  check (s, exec_cuda_moe_topk (cstream (s)->stream, probs, idx, wts, logits, N, E, k, !!norm),
         "moe_topk");
}

static void
k_moe_topk_backward (ExecStream *s, float *dlogits, const float *dwts, const float *probs,
                     const int *idx, const float *wts, int N, int E, int k, gboolean norm)
{
  check (s, exec_cuda_moe_topk_backward (cstream (s)->stream, dlogits, dwts, probs, idx, wts,
                                         N, E, k, !!norm), "moe_topk_backward");
}

static void
k_moe_permute (ExecStream *s, float *xp, int *pos, float *counts, const int *idx,
               const float *x, int N, int k, int E, int C)
{
  check (s, exec_cuda_moe_permute (cstream (s)->stream, xp, pos, counts, idx, x, N, k, E, C),
         "moe_permute");
}

static void
k_moe_unpermute (ExecStream *s, float *out, const float *xp, const int *pos, const float *wts,
                 int N, int k, int C, float beta)
{
  check (s, exec_cuda_moe_unpermute (cstream (s)->stream, out, xp, pos, wts, N, k, C, beta),
         "moe_unpermute");
}

static void
k_moe_combine_backward (ExecStream *s, float *dxp, float *dwts, const float *dout,
                        const float *yp, const int *pos, const float *wts, int N, int k, int C)
{
  check (s, exec_cuda_moe_combine_backward (cstream (s)->stream, dxp, dwts, dout, yp, pos,
                                            wts, N, k, C), "moe_combine_backward");
}

const ExecKernels exec_kernels_cuda = {
  .name = "cuda",
  .matmul_forward = k_matmul_forward,
  .matmul_backward = k_matmul_backward,
  .rmsnorm_forward = k_rmsnorm_forward,
  .rmsnorm_backward = k_rmsnorm_backward,
  .rope_forward = k_rope_forward,
  .rope_backward = k_rope_backward,
  .attn_init = k_attn_init,
  .attn_forward = k_attn_forward,
  .attn_backward_prep = k_attn_backward_prep,
  .attn_backward = k_attn_backward,
  .swiglu_forward = k_swiglu_forward,
  .swiglu_backward = k_swiglu_backward,
  .embed_forward = k_embed_forward,
  .embed_backward = k_embed_backward,
  .ce_forward = k_ce_forward,
  .ce_combine = k_ce_combine,
  .ce_backward = k_ce_backward,
  .adamw = k_adamw,
  .copy = k_copy,
  .fill = k_fill,
  .add = k_add,
  .moe_topk = k_moe_topk,
  .moe_topk_backward = k_moe_topk_backward,
  .moe_permute = k_moe_permute,
  .moe_unpermute = k_moe_unpermute,
  .moe_combine_backward = k_moe_combine_backward,
};
