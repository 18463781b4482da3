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
      for (int i = 0; i < d->Tq; i++)
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
      for (int i = 0; i < d->Tq; i++)
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
