/* exec/layers-attn.c - the causal attention core, chunk by chunk, and its backward.
 *
 * softmax (q k^T / sqrt (d)) v with the causal mask, in the straightforward O(s^2) way:
 * each query's scores over a K/V chunk are computed, exponentiated and summed. What makes
 * it usable for context parallelism is that a query's result is kept normalised together
 * with the log-sum-exp of its scores so far, so chunks merge in any order (the online
 * softmax of Milakov and Gimelshein 2018, as in FlashAttention and ring attention):
 *   lse' = log (exp (lse) + exp (lse_c)),  out' = out exp (lse - lse') + out_c exp (lse_c - lse')
 * The backward is FlashAttention-2's (Dao 2023, algorithm 2) with the final lse:
 *   p = exp (s - lse), dv += p do, dp = do . v, ds = p (dp - delta), delta = do . out,
 *   dq += ds k / sqrt (d), dk += ds q / sqrt (d).
 * GQA (Ainslie et al. 2023): query head h reads KV head h / (n_head / n_kv_head). */
#include "exec/layers.h"

#include <math.h>
#include <string.h>
#include <cblas.h>

static volatile int *attn_cancel;

void
exec_cpu_attn_set_cancel (volatile int *flag)
{
  attn_cancel = flag;
}

static inline gboolean
cancelled (void)
{
  volatile int *f = attn_cancel;
  return f != NULL && *f != 0;
}

static inline float
dotf (const float *a, const float *b, int n)
{
  float acc = 0;
  for (int i = 0; i < n; i++)
    acc += a[i] * b[i];
  return acc;
}

void
exec_cpu_attn_init (float *out, float *lse, const ExecAttnDims *d)
{
  gsize rows = (gsize) d->B * d->Tq * d->n_head;
  memset (out, 0, sizeof (float) * rows * d->head_dim);
  for (gsize i = 0; i < rows; i++)
    lse[i] = -INFINITY;
}

void
exec_cpu_attn_forward (float *out, float *lse, const float *q, const int *q_pos,
                       const float *k, const float *v, const int *kv_pos, const ExecAttnDims *d)
{
  int D = d->head_dim, Hq = d->n_head, Hkv = d->n_kv_head, group = Hq / Hkv;
  float scale = 1.0f / sqrtf ((float) D);
  float *score = g_new (float, MAX (d->Tk, 1));
  for (int b = 0; b < d->B; b++)
    for (int h = 0; h < Hq; h++)
      for (int i = 0; i < d->Tq && !cancelled (); i++)
        {
          const float *qi = q + (((gsize) b * d->Tq + i) * Hq + h) * D;
          float *oi = out + (((gsize) b * d->Tq + i) * Hq + h) * D;
          float *li = lse + ((gsize) b * Hq + h) * d->Tq + i;
          int qp = q_pos ? q_pos[i] : i;

          /* scores of the visible keys of this chunk and their maximum */
          float m = -INFINITY;
          for (int j = 0; j < d->Tk; j++)
            {
              int kp = kv_pos ? kv_pos[j] : j;
              if (kp > qp)
                {
                  score[j] = -INFINITY;
                  continue;
                }
              const float *kj = k + (((gsize) b * d->Tk + j) * Hkv + h / group) * D;
              score[j] = dotf (qi, kj, D) * scale;
              m = MAX (m, score[j]);
            }
          if (m == -INFINITY)
            continue;   /* the whole chunk lies in this query's future */
          double sum = 0;
          for (int j = 0; j < d->Tk; j++)
            sum += score[j] == -INFINITY ? 0.0 : exp ((double) score[j] - m);
          float lse_c = m + (float) log (sum);

          /* merge: rescale what is there, add this chunk's share */
          float lse_new = *li == -INFINITY ? lse_c
                          : MAX (*li, lse_c) + log1pf (expf (-fabsf (*li - lse_c)));
          float keep = *li == -INFINITY ? 0.0f : expf (*li - lse_new);
          for (int c = 0; c < D; c++)
            oi[c] *= keep;
          for (int j = 0; j < d->Tk; j++)
            {
              if (score[j] == -INFINITY)
                continue;
              float p = expf (score[j] - lse_new);
              const float *vj = v + (((gsize) b * d->Tk + j) * Hkv + h / group) * D;
              for (int c = 0; c < D; c++)
                oi[c] += p * vj[c];
            }
          *li = lse_new;
        }
  g_free (score);
}

void
exec_cpu_attn_backward_prep (float *delta, const float *out, const float *dout,
                             const ExecAttnDims *d)
{
  int D = d->head_dim, Hq = d->n_head;
  for (int b = 0; b < d->B; b++)
    for (int h = 0; h < Hq; h++)
      for (int i = 0; i < d->Tq; i++)
        {
          gsize at = (((gsize) b * d->Tq + i) * Hq + h) * D;
          delta[((gsize) b * Hq + h) * d->Tq + i] = dotf (out + at, dout + at, D);
        }
}

void
exec_cpu_attn_backward (float *dq, float *dk, float *dv, const float *dout, const float *delta,
                        const float *lse, const float *q, const int *q_pos, const float *k,
                        const float *v, const int *kv_pos, const ExecAttnDims *d)
{
  int D = d->head_dim, Hq = d->n_head, Hkv = d->n_kv_head, group = Hq / Hkv;
  float scale = 1.0f / sqrtf ((float) D);
  for (int b = 0; b < d->B; b++)
    for (int h = 0; h < Hq; h++)
      for (int i = 0; i < d->Tq && !cancelled (); i++)
        {
          gsize qa = (((gsize) b * d->Tq + i) * Hq + h) * D;
          gsize row = ((gsize) b * Hq + h) * d->Tq + i;
          const float *qi = q + qa, *doi = dout + qa;
          float *dqi = dq + qa;
          float li = lse[row], di = delta[row];
          int qp = q_pos ? q_pos[i] : i;
          if (li == -INFINITY)
            continue;
          for (int j = 0; j < d->Tk; j++)
            {
              int kp = kv_pos ? kv_pos[j] : j;
              if (kp > qp)
                continue;
              gsize ka = (((gsize) b * d->Tk + j) * Hkv + h / group) * D;
              const float *kj = k + ka, *vj = v + ka;
              float p = expf (dotf (qi, kj, D) * scale - li);
              float ds = p * (dotf (doi, vj, D) - di) * scale;
              for (int c = 0; c < D; c++)
                {
                  dv[ka + c] += p * doi[c];
                  dqi[c] += ds * kj[c];
                  dk[ka + c] += ds * qi[c];
                }
            }
        }
}

/* ---- unfused: the scores materialized (--attention-backend unfused) -------------------
 *
 * What frameworks ran before FlashAttention (Megatron's core attention with its fused
 * scale-mask-softmax): per sequence and query head h (KV head g = h / group), in
 * row-major with the heads interleaved in the rows of q, k, v (leading dimensions
 * n_head D and n_kv_head D):
 *   forward   S = q_h k_g^T / sqrt (d)            GEMM, Tq x Tk, written to probs
 *             P = softmax over the visible keys    in place, masked entries 0
 *             out_h = P v_g                        GEMM
 *   backward  dv_g += P^T dout_h                   GEMM
 *             dP = dout_h v_g^T                    GEMM, into dprobs
 *             dS = P (dP - rowsum (dP P)) / sqrt (d)   in place
 *             dq_h += dS k_g,  dk_g += dS^T q_h    GEMMs
 * The same function as the online-softmax path above, computed in another order. */
void
exec_cpu_attn_unfused_forward (float *out, float *probs, const float *q, const int *q_pos,
                               const float *k, const float *v, const int *kv_pos,
                               const ExecAttnDims *d)
{
  const int D = d->head_dim, Hq = d->n_head, Hkv = d->n_kv_head, group = Hq / Hkv;
  const int Tq = d->Tq, Tk = d->Tk;
  const float scale = 1.0f / sqrtf ((float) D);
  for (int b = 0; b < d->B; b++)
    for (int h = 0; h < Hq && !cancelled (); h++)
      {
        const int g = h / group;
        const float *qh = q + ((gsize) b * Tq * Hq + h) * D;
        const float *kg = k + ((gsize) b * Tk * Hkv + g) * D;
        const float *vg = v + ((gsize) b * Tk * Hkv + g) * D;
        float *P = probs + ((gsize) b * Hq + h) * Tq * Tk;
        float *oh = out + ((gsize) b * Tq * Hq + h) * D;
        cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, Tq, Tk, D, scale, qh, Hq * D,
                     kg, Hkv * D, 0.0f, P, Tk);
        for (int i = 0; i < Tq; i++)
          {
            float *row = P + (gsize) i * Tk;
            const int qp = q_pos ? q_pos[i] : i;
            float m = -INFINITY;
            for (int j = 0; j < Tk; j++)
              if ((kv_pos ? kv_pos[j] : j) <= qp)
                m = MAX (m, row[j]);
            double sum = 0;
            for (int j = 0; j < Tk; j++)
              {
                const gboolean visible = (kv_pos ? kv_pos[j] : j) <= qp;
                row[j] = visible ? expf (row[j] - m) : 0.0f;
                sum += row[j];
              }
            const float inv = sum > 0 ? (float) (1.0 / sum) : 0.0f;
            for (int j = 0; j < Tk; j++)
              row[j] *= inv;
          }
        cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, Tq, D, Tk, 1.0f, P, Tk,
                     vg, Hkv * D, 0.0f, oh, Hq * D);
      }
}

void
exec_cpu_attn_unfused_backward (float *dq, float *dk, float *dv, float *dprobs,
                                const float *dout, const float *probs, const float *q,
                                const float *k, const float *v, const ExecAttnDims *d)
{
  const int D = d->head_dim, Hq = d->n_head, Hkv = d->n_kv_head, group = Hq / Hkv;
  const int Tq = d->Tq, Tk = d->Tk;
  const float scale = 1.0f / sqrtf ((float) D);
  for (int b = 0; b < d->B; b++)
    for (int h = 0; h < Hq && !cancelled (); h++)
      {
        const int g = h / group;
        const gsize qo = ((gsize) b * Tq * Hq + h) * D, ko = ((gsize) b * Tk * Hkv + g) * D;
        const float *P = probs + ((gsize) b * Hq + h) * Tq * Tk;
        float *dP = dprobs + ((gsize) b * Hq + h) * Tq * Tk;
        cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, Tk, D, Tq, 1.0f, P, Tk,
                     dout + qo, Hq * D, 1.0f, dv + ko, Hkv * D);
        cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, Tq, Tk, D, 1.0f, dout + qo,
                     Hq * D, v + ko, Hkv * D, 0.0f, dP, Tk);
        for (int i = 0; i < Tq; i++)
          {
            const float *p = P + (gsize) i * Tk;
            float *dp = dP + (gsize) i * Tk;
            double dot = 0;
            for (int j = 0; j < Tk; j++)
              dot += (double) dp[j] * p[j];
            for (int j = 0; j < Tk; j++)
              dp[j] = p[j] * (dp[j] - (float) dot) * scale;
          }
        cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, Tq, D, Tk, 1.0f, dP, Tk,
                     k + ko, Hkv * D, 1.0f, dq + qo, Hq * D);
        cblas_sgemm (CblasRowMajor, CblasTrans, CblasNoTrans, Tk, D, Tq, 1.0f, dP, Tk,
                     q + qo, Hq * D, 1.0f, dk + ko, Hkv * D);
      }
}
