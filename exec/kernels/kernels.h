/* exec/kernels/kernels.h - launchers of the CUDA kernels behind the cuda backend's
 * ExecKernels table (backend-cuda-kernels.c). Compiled by nvcc (the .cu files) and read by
 * gcc (the table), so plain C types only.
 *
 * Contract:
 *  - Every launcher queues its kernel(s) on `s` and returns the launch status
 *    (cudaGetLastError after the launch); execution errors show up at the next
 *    synchronisation. All pointers are device pointers; index arrays may be NULL where the
 *    ExecKernels table allows it (positions: 0 .. T - 1).
 *  - Semantics, shapes and accumulate-vs-set are those of the CPU reference in
 *    exec/layers.c and exec/layers-attn.c, which the tests use as the oracle. FP32
 *    storage and math; reductions keep FP32 partial sums in a fixed order (deterministic
 *    results, no atomics), except where noted.
 *  - Attention: one warp per query row (forward, dq) or key row (dk, dv), head_dim <=
 *    EXEC_CUDA_MAX_HEAD_DIM; a larger one gives cudaErrorInvalidValue. */
#pragma once

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EXEC_CUDA_MAX_HEAD_DIM 256   /* 8 elements per lane of a warp */

/* Same fields and order as ExecAttnDims (exec/layers.h). */
typedef struct {
  int B;                 /* sequences */
  int Tq, Tk;            /* queries and keys per sequence in this chunk */
  int n_head, n_kv_head; /* query heads; KV heads (n_head a multiple) */
  int head_dim;
} ExecCudaAttnDims;

/* norm.cu */
cudaError_t exec_cuda_rmsnorm_forward  (cudaStream_t s, float *out, float *rstd,
                                        const float *inp, const float *w, int N, int C,
                                        float eps);
cudaError_t exec_cuda_rmsnorm_backward (cudaStream_t s, float *dinp, float *dw,
                                        const float *dout, const float *inp, const float *w,
                                        const float *rstd, int N, int C);
/* sign = 1 forward, -1 backward (the inverse rotation) */
cudaError_t exec_cuda_rope (cudaStream_t s, float *x, const int *pos, int B, int T, int H,
                            int D, float theta, float sign);

/* attention.cu */
cudaError_t exec_cuda_attn_init     (cudaStream_t s, float *out, float *lse,
                                     ExecCudaAttnDims d);
cudaError_t exec_cuda_attn_forward  (cudaStream_t s, float *out, float *lse, const float *q,
                                     const int *q_pos, const float *k, const float *v,
                                     const int *kv_pos, ExecCudaAttnDims d);
cudaError_t exec_cuda_attn_backward_prep (cudaStream_t s, float *delta, const float *out,
                                          const float *dout, ExecCudaAttnDims d);
cudaError_t exec_cuda_attn_backward (cudaStream_t s, float *dq, float *dk, float *dv,
                                     const float *dout, const float *delta, const float *lse,
                                     const float *q, const int *q_pos, const float *k,
                                     const float *v, const int *kv_pos, ExecCudaAttnDims d);

/* elementwise.cu */
cudaError_t exec_cuda_swiglu_forward  (cudaStream_t s, float *h, const float *gate,
                                       const float *up, size_t n);
cudaError_t exec_cuda_swiglu_backward (cudaStream_t s, float *dgate, float *dup,
                                       const float *dh, const float *gate, const float *up,
                                       size_t n);
cudaError_t exec_cuda_embed_forward   (cudaStream_t s, float *out, const int *tokens,
                                       const float *wte, int vocab_start, int vocab_local,
                                       int N, int C);
cudaError_t exec_cuda_embed_backward  (cudaStream_t s, float *dwte, const float *dout,
                                       const int *tokens, int vocab_start, int vocab_local,
                                       int N, int C);
/* c1 = 1 - beta1^step, c2 = 1 - beta2^step, computed by the caller as the CPU does */
cudaError_t exec_cuda_adamw (cudaStream_t s, float *param, const float *grad, float *m,
                             float *v, size_t n, float lr, float beta1, float beta2,
                             float eps, float weight_decay, float c1, float c2);
cudaError_t exec_cuda_fill  (cudaStream_t s, float *dst, float value, size_t n);
cudaError_t exec_cuda_add   (cudaStream_t s, float *out, const float *a, const float *b,
                             size_t n);

/* loss.cu */
cudaError_t exec_cuda_ce_forward  (cudaStream_t s, float *lse_part, float *tgt_part,
                                   const float *logits, const int *targets, int vocab_start,
                                   int vocab_valid, int vocab_local, int N);
cudaError_t exec_cuda_ce_combine  (cudaStream_t s, float *lse, float *loss,
                                   const float *lse_parts, int n_parts, const float *tgt_sum,
                                   const int *targets, int N);
cudaError_t exec_cuda_ce_backward (cudaStream_t s, float *dlogits, const float *logits,
                                   const float *lse, const int *targets, int vocab_start,
                                   int vocab_valid, int vocab_local, int N, float dloss);

/* moe.cu (exec/moe.h; norm: 0 or 1) */
cudaError_t exec_cuda_moe_topk (cudaStream_t s, float *probs, int *idx, float *wts,
                                const float *logits, int N, int E, int k, int norm);
cudaError_t exec_cuda_moe_topk_backward (cudaStream_t s, float *dlogits, const float *dwts,
                                         const float *probs, const int *idx,
                                         const float *wts, int N, int E, int k, int norm);
cudaError_t exec_cuda_moe_permute (cudaStream_t s, float *xp, int *pos, float *counts,
                                   const int *idx, const float *x, int N, int k, int E,
                                   int C);
cudaError_t exec_cuda_moe_unpermute (cudaStream_t s, float *out, const float *xp,
                                     const int *pos, const float *wts, int N, int k, int C,
                                     float beta);
cudaError_t exec_cuda_moe_combine_backward (cudaStream_t s, float *dxp, float *dwts,
                                            const float *dout, const float *yp,
                                            const int *pos, const float *wts, int N, int k,
                                            int C);

#ifdef __cplusplus
}
#endif
