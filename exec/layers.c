/* exec/layers.c - the CPU reference kernels: GEMM, RMSNorm, rotary, SwiGLU, embedding,
 * cross-entropy, AdamW; and the exec_kernels_cpu table that points at them.
 *
 * Written to be read first (llm.c's train_gpt2.c is the model): plain loops over host
 * memory, one function per operation, the backward next to its forward. The attention
 * core lives in layers-attn.c, the blocks built from these in layers-block.c. */
#include "config.h"
#include "exec/layers.h"
#include "exec/moe.h"

#include <math.h>
#include <string.h>

#if HAVE_BLAS
#include <cblas.h>
#endif

/* ---- GEMM --------------------------------------------------------------------------- */

/* C = alpha op(A) op(B) + beta C, row-major. */
void
exec_cpu_sgemm (gboolean trans_a, gboolean trans_b, int m, int n, int k, float alpha,
                const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
  if (m <= 0 || n <= 0)
    return;
#if HAVE_BLAS
  cblas_sgemm (CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
               trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c,
               ldc);
#else
  /* The naive product, for builds without BLAS. */
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      {
        double acc = 0;
        for (int p = 0; p < k; p++)
          {
            float av = trans_a ? a[(gsize) p * lda + i] : a[(gsize) i * lda + p];
            float bv = trans_b ? b[(gsize) j * ldb + p] : b[(gsize) p * ldb + j];
            acc += (double) av * bv;
          }
        float *cv = &c[(gsize) i * ldc + j];
        *cv = alpha * (float) acc + (beta != 0.0f ? beta * *cv : 0.0f);
      }
#endif
}

/* out (N, OC) = beta out + inp (N, C) w^T: a torch.nn.Linear without bias. */
void
exec_cpu_matmul_forward (float *out, const float *inp, const float *w, int N, int C, int OC,
                         float beta)
{
  exec_cpu_sgemm (FALSE, TRUE, N, OC, C, 1.0f, inp, C, w, C, beta, out, OC);
}

/* dinp (N, C) = beta dinp + dout (N, OC) w (OC, C); dw (OC, C) += dout^T inp.
 * Either output may be NULL when it is not wanted. */
void
exec_cpu_matmul_backward (float *dinp, float *dw, const float *dout, const float *inp,
                          const float *w, int N, int C, int OC, float beta)
{
  if (dinp)
    exec_cpu_sgemm (FALSE, FALSE, N, C, OC, 1.0f, dout, OC, w, C, beta, dinp, C);
  if (dw)
    exec_cpu_sgemm (TRUE, FALSE, OC, C, N, 1.0f, dout, OC, inp, C, 1.0f, dw, C);
}

/* ---- RMSNorm (Zhang and Sennrich 2019) ---------------------------------------------- */

/* out = x rstd w, rstd = 1 / sqrt (mean (x^2) + eps). */
void
exec_cpu_rmsnorm_forward (float *out, float *rstd, const float *inp, const float *w, int N,
                          int C, float eps)
{
  for (int t = 0; t < N; t++)
    {
      const float *x = inp + (gsize) t * C;
      float *o = out + (gsize) t * C;
      double ss = 0;
      for (int i = 0; i < C; i++)
        ss += (double) x[i] * x[i];
      float r = (float) (1.0 / sqrt (ss / C + eps));
      for (int i = 0; i < C; i++)
        o[i] = x[i] * r * w[i];
      rstd[t] = r;
    }
}

/* With xhat = x rstd and g = dout w:
 *   dx_j = rstd (g_j - xhat_j mean_i (g_i xhat_i))   (d rstd / dx_j = -rstd^3 x_j / C)
 *   dw_j += sum over tokens of dout_j xhat_j */
void
exec_cpu_rmsnorm_backward (float *dinp, float *dw, const float *dout, const float *inp,
                           const float *w, const float *rstd, int N, int C)
{
  for (int t = 0; t < N; t++)
    {
      const float *x = inp + (gsize) t * C, *dy = dout + (gsize) t * C;
      float *dx = dinp + (gsize) t * C;
      float r = rstd[t];
      double dot = 0;
      for (int i = 0; i < C; i++)
        dot += (double) dy[i] * w[i] * x[i] * r;
      float mean = (float) (dot / C);
      for (int i = 0; i < C; i++)
        {
          float xhat = x[i] * r;
          dx[i] += r * (dy[i] * w[i] - xhat * mean);
          dw[i] += dy[i] * xhat;
        }
    }
}

/* ---- rotary position embedding (Su et al. 2021, RoFormer eq. 34) --------------------- */

/* The "rotate half" pairing of GPT-NeoX, Megatron-LM and Hugging Face Llama: dimension i
 * pairs with i + D/2, angle = pos theta^(-2i/D). sign = -1 rotates back (the backward,
 * since a rotation's transpose is its inverse). */
static void
rope_apply (float *x, const int *pos, int B, int T, int H, int D, float theta, float sign)
{
  int half = D / 2;
  float *cs = g_new (float, 2 * (gsize) half);
  double *inv_freq = g_new (double, half);
  for (int i = 0; i < half; i++)
    inv_freq[i] = pow (theta, -2.0 * i / D);
  for (int t = 0; t < T; t++)
    {
      double p = pos ? pos[t] : t;
      for (int i = 0; i < half; i++)
        {
          double angle = p * inv_freq[i];
          cs[2 * i] = (float) cos (angle);
          cs[2 * i + 1] = sign * (float) sin (angle);
        }
      for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
          {
            float *v = x + (((gsize) b * T + t) * H + h) * D;
            for (int i = 0; i < half; i++)
              {
                float x1 = v[i], x2 = v[i + half], c = cs[2 * i], s = cs[2 * i + 1];
                v[i] = x1 * c - x2 * s;
                v[i + half] = x2 * c + x1 * s;
              }
          }
    }
  g_free (inv_freq);
  g_free (cs);
}

void
exec_cpu_rope_forward (float *x, const int *pos, int B, int T, int H, int D, float theta)
{
  rope_apply (x, pos, B, T, H, D, theta, 1.0f);
}

void
exec_cpu_rope_backward (float *dx, const int *pos, int B, int T, int H, int D, float theta)
{
  rope_apply (dx, pos, B, T, H, D, theta, -1.0f);
}

/* ---- SwiGLU (Shazeer 2020, "GLU Variants Improve Transformer") ----------------------- */

static inline float
sigmoidf (float x)
{
  return 1.0f / (1.0f + expf (-x));
}

/* h = silu (gate) up, silu (g) = g sigmoid (g). */
void
exec_cpu_swiglu_forward (float *h, const float *gate, const float *up, gsize n)
{
  for (gsize i = 0; i < n; i++)
    h[i] = gate[i] * sigmoidf (gate[i]) * up[i];
}

/* d silu / dg = sigmoid (g) (1 + g (1 - sigmoid (g))). Outputs are set. */
void
exec_cpu_swiglu_backward (float *dgate, float *dup, const float *dh, const float *gate,
                          const float *up, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      float sg = sigmoidf (gate[i]);
      dup[i] = dh[i] * gate[i] * sg;
      dgate[i] = dh[i] * up[i] * sg * (1.0f + gate[i] * (1.0f - sg));
    }
}

/* ---- embedding (vocab-parallel, Megatron VocabParallelEmbedding) --------------------- */

void
exec_cpu_embed_forward (float *out, const int *tokens, const float *wte, int vocab_start,
                        int vocab_local, int N, int C)
{
  for (int t = 0; t < N; t++)
    {
      int row = tokens[t] - vocab_start;
      float *o = out + (gsize) t * C;
      if (row >= 0 && row < vocab_local)
        memcpy (o, wte + (gsize) row * C, sizeof (float) * C);
      else
        memset (o, 0, sizeof (float) * C);
    }
}

void
exec_cpu_embed_backward (float *dwte, const float *dout, const int *tokens, int vocab_start,
                         int vocab_local, int N, int C)
{
  for (int t = 0; t < N; t++)
    {
      int row = tokens[t] - vocab_start;
      if (row < 0 || row >= vocab_local)
        continue;
      float *d = dwte + (gsize) row * C;
      const float *g = dout + (gsize) t * C;
      for (int i = 0; i < C; i++)
        d[i] += g[i];
    }
}

/* ---- softmax cross-entropy, vocab-parallel (Megatron vocab_parallel_cross_entropy) ---- */

/* Per shard: log-sum-exp of the valid logits and the target's logit (0 if elsewhere). */
void
exec_cpu_ce_forward (float *lse_part, float *tgt_part, const float *logits, const int *targets,
                     int vocab_start, int vocab_valid, int vocab_local, int N)
{
  for (int t = 0; t < N; t++)
    {
      const float *l = logits + (gsize) t * vocab_local;
      float m = -INFINITY;
      for (int i = 0; i < vocab_valid; i++)
        m = MAX (m, l[i]);
      double sum = 0;
      for (int i = 0; i < vocab_valid; i++)
        sum += exp ((double) l[i] - m);
      lse_part[t] = vocab_valid > 0 ? m + (float) log (sum) : -INFINITY;
      int row = targets[t] - vocab_start;
      tgt_part[t] = targets[t] >= 0 && row >= 0 && row < vocab_valid ? l[row] : 0.0f;
    }
}

/* lse = log sum_p exp (lse_p); loss = lse - target logit. */
void
exec_cpu_ce_combine (float *lse, float *loss, const float *lse_parts, int n_parts,
                     const float *tgt_sum, const int *targets, int N)
{
  for (int t = 0; t < N; t++)
    {
      float m = -INFINITY;
      for (int p = 0; p < n_parts; p++)
        m = MAX (m, lse_parts[(gsize) p * N + t]);
      double sum = 0;
      for (int p = 0; p < n_parts; p++)
        sum += exp ((double) lse_parts[(gsize) p * N + t] - m);
      lse[t] = m + (float) log (sum);
      loss[t] = targets[t] >= 0 ? lse[t] - tgt_sum[t] : 0.0f;
    }
}

/* d loss / d logit_i = softmax_i - [i == target]. */
void
exec_cpu_ce_backward (float *dlogits, const float *logits, const float *lse, const int *targets,
                      int vocab_start, int vocab_valid, int vocab_local, int N, float dloss)
{
  for (int t = 0; t < N; t++)
    {
      const float *l = logits + (gsize) t * vocab_local;
      float *d = dlogits + (gsize) t * vocab_local;
      if (targets[t] < 0)
        {
          memset (d, 0, sizeof (float) * vocab_local);
          continue;
        }
      int row = targets[t] - vocab_start;
      for (int i = 0; i < vocab_local; i++)
        {
          float p = i < vocab_valid ? expf (l[i] - lse[t]) : 0.0f;
          d[i] = dloss * (p - (i == row ? 1.0f : 0.0f));
        }
    }
}

/* ---- AdamW --------------------------------------------------------------------------- */

/* torch.optim.AdamW (docs, "Algorithm"): decoupled decay p -= lr wd p, then
 * m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
 * p -= lr (m / (1 - b1^t)) / (sqrt (v / (1 - b2^t)) + eps). */
void
exec_cpu_adamw (float *param, const float *grad, float *m, float *v, gsize n,
                const ExecAdamW *hp, int step)
{
  float c1 = 1.0f - powf (hp->beta1, (float) step);
  float c2 = 1.0f - powf (hp->beta2, (float) step);
  for (gsize i = 0; i < n; i++)
    {
      float g = grad[i];
      m[i] = hp->beta1 * m[i] + (1.0f - hp->beta1) * g;
      v[i] = hp->beta2 * v[i] + (1.0f - hp->beta2) * g * g;
      float mhat = m[i] / c1, vhat = v[i] / c2;
      param[i] -= hp->lr * (hp->weight_decay * param[i] + mhat / (sqrtf (vhat) + hp->eps));
    }
}

/* ---- the table ----------------------------------------------------------------------- */

static void
k_matmul_forward (ExecStream *s, float *out, const float *inp, const float *w, int N, int C,
                  int OC, float beta)
{
  exec_cpu_matmul_forward (out, inp, w, N, C, OC, beta);
}
static void
k_matmul_backward (ExecStream *s, float *dinp, float *dw, const float *dout, const float *inp,
                   const float *w, int N, int C, int OC, float beta)
{
  exec_cpu_matmul_backward (dinp, dw, dout, inp, w, N, C, OC, beta);
}
static void
k_rmsnorm_forward (ExecStream *s, float *out, float *rstd, const float *inp, const float *w,
                   int N, int C, float eps)
{
  exec_cpu_rmsnorm_forward (out, rstd, inp, w, N, C, eps);
}
static void
k_rmsnorm_backward (ExecStream *s, float *dinp, float *dw, const float *dout, const float *inp,
                    const float *w, const float *rstd, int N, int C)
{
  exec_cpu_rmsnorm_backward (dinp, dw, dout, inp, w, rstd, N, C);
}
static void
k_rope_forward (ExecStream *s, float *x, const int *pos, int B, int T, int H, int D, float th)
{
  exec_cpu_rope_forward (x, pos, B, T, H, D, th);
}
static void
k_rope_backward (ExecStream *s, float *dx, const int *pos, int B, int T, int H, int D, float th)
{
  exec_cpu_rope_backward (dx, pos, B, T, H, D, th);
}
static void
k_attn_init (ExecStream *s, float *out, float *lse, const ExecAttnDims *d)
{
  exec_cpu_attn_init (out, lse, d);
}
static void
k_attn_forward (ExecStream *s, float *out, float *lse, const float *q, const int *q_pos,
                const float *k, const float *v, const int *kv_pos, const ExecAttnDims *d)
{
  exec_cpu_attn_forward (out, lse, q, q_pos, k, v, kv_pos, d);
}
static void
k_attn_backward_prep (ExecStream *s, float *delta, const float *out, const float *dout,
                      const ExecAttnDims *d)
{
  exec_cpu_attn_backward_prep (delta, out, dout, d);
}
static void
k_attn_backward (ExecStream *s, float *dq, float *dk, float *dv, const float *dout,
                 const float *delta, const float *lse, const float *q, const int *q_pos,
                 const float *k, const float *v, const int *kv_pos, const ExecAttnDims *d)
{
  exec_cpu_attn_backward (dq, dk, dv, dout, delta, lse, q, q_pos, k, v, kv_pos, d);
}
static void
k_attn_unfused_forward (ExecStream *s, float *out, float *probs, const float *q,
                        const int *q_pos, const float *k, const float *v, const int *kv_pos,
                        const ExecAttnDims *d)
{
  exec_cpu_attn_unfused_forward (out, probs, q, q_pos, k, v, kv_pos, d);
}
static void
k_attn_unfused_backward (ExecStream *s, float *dq, float *dk, float *dv, float *dprobs,
                         const float *dout, const float *probs, const float *q, const float *k,
                         const float *v, const ExecAttnDims *d)
{
  exec_cpu_attn_unfused_backward (dq, dk, dv, dprobs, dout, probs, q, k, v, d);
}
static void
k_swiglu_forward (ExecStream *s, float *h, const float *gate, const float *up, gsize n)
{
  exec_cpu_swiglu_forward (h, gate, up, n);
}
static void
k_swiglu_backward (ExecStream *s, float *dgate, float *dup, const float *dh, const float *gate,
                   const float *up, gsize n)
{
  exec_cpu_swiglu_backward (dgate, dup, dh, gate, up, n);
}
static void
k_embed_forward (ExecStream *s, float *out, const int *tokens, const float *wte, int start,
                 int local, int N, int C)
{
  exec_cpu_embed_forward (out, tokens, wte, start, local, N, C);
}
static void
k_embed_backward (ExecStream *s, float *dwte, const float *dout, const int *tokens, int start,
                  int local, int N, int C)
{
  exec_cpu_embed_backward (dwte, dout, tokens, start, local, N, C);
}
static void
k_ce_forward (ExecStream *s, float *lse_part, float *tgt_part, const float *logits,
              const int *targets, int start, int valid, int local, int N)
{
  exec_cpu_ce_forward (lse_part, tgt_part, logits, targets, start, valid, local, N);
}
static void
k_ce_combine (ExecStream *s, float *lse, float *loss, const float *lse_parts, int n_parts,
              const float *tgt_sum, const int *targets, int N)
{
  exec_cpu_ce_combine (lse, loss, lse_parts, n_parts, tgt_sum, targets, N);
}
static void
k_ce_backward (ExecStream *s, float *dlogits, const float *logits, const float *lse,
               const int *targets, int start, int valid, int local, int N, float dloss)
{
  exec_cpu_ce_backward (dlogits, logits, lse, targets, start, valid, local, N, dloss);
}
static void
k_adamw (ExecStream *s, float *param, const float *grad, float *m, float *v, gsize n,
         const ExecAdamW *hp, int step)
{
  exec_cpu_adamw (param, grad, m, v, n, hp, step);
}
static void
k_copy (ExecStream *s, float *dst, const float *src, gsize n)
{
  if (dst != src)
    memmove (dst, src, n * sizeof (float));
}
static void
k_fill (ExecStream *s, float *dst, float value, gsize n)
{
  for (gsize i = 0; i < n; i++)
    dst[i] = value;
}
static void
k_add (ExecStream *s, float *out, const float *a, const float *b, gsize n)
{
  for (gsize i = 0; i < n; i++)
    out[i] = a[i] + b[i];
}

static void
k_moe_topk (ExecStream *s, float *probs, int *idx, float *wts, const float *logits, int N,
            int E, int k, gboolean norm)
{
  exec_cpu_moe_topk (probs, idx, wts, logits, N, E, k, norm);
}
static void
k_moe_topk_backward (ExecStream *s, float *dlogits, const float *dwts, const float *probs,
                     const int *idx, const float *wts, int N, int E, int k, gboolean norm)
{
  exec_cpu_moe_topk_backward (dlogits, dwts, probs, idx, wts, N, E, k, norm);
}
static void
k_moe_permute (ExecStream *s, float *xp, int *pos, float *counts, const int *idx,
               const float *x, int N, int k, int E, int C)
{
  exec_cpu_moe_permute (xp, pos, counts, idx, x, N, k, E, C);
}
static void
k_moe_unpermute (ExecStream *s, float *out, const float *xp, const int *pos, const float *wts,
                 int N, int k, int C, float beta)
{
  exec_cpu_moe_unpermute (out, xp, pos, wts, N, k, C, beta);
}
static void
k_moe_combine_backward (ExecStream *s, float *dxp, float *dwts, const float *dout,
                        const float *yp, const int *pos, const float *wts, int N, int k, int C)
{
  exec_cpu_moe_combine_backward (dxp, dwts, dout, yp, pos, wts, N, k, C);
}

const ExecKernels exec_kernels_cpu = {
  .name = "cpu",
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
  .attn_unfused_forward = k_attn_unfused_forward,
  .attn_unfused_backward = k_attn_unfused_backward,
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

const ExecKernels *
exec_kernels_for (ExecStream *stream)
{
  if (stream && stream->backend->ops->kernels)
    return stream->backend->ops->kernels;
  return &exec_kernels_cpu;
}
