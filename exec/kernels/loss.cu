/* exec/kernels/loss.cu - softmax cross-entropy over a vocab-parallel head (Megatron
 * vocab_parallel_cross_entropy) on the device; the CPU reference is exec/layers.c.
 *
 * Each vocab shard gives per token the log-sum-exp of its valid logits and the target's
 * logit if the shard holds it; the caller gathers the shards and ce_combine merges them.
 * Sums of exponentials are kept in double, as the CPU reference keeps them. */
#include "common.cuh"

/* one block per token row */
__global__ void
ce_forward_kernel (float *lse_part, float *tgt_part, const float *logits, const int *targets,
                   int vocab_start, int vocab_valid, int vocab_local)
{
  int t = blockIdx.x;
  const float *l = logits + (size_t) t * vocab_local;
  float m = -INFINITY;
  for (int i = threadIdx.x; i < vocab_valid; i += blockDim.x)
    m = fmaxf (m, l[i]);
  m = ek_block_max (m);
  double sum = 0.0;
  for (int i = threadIdx.x; i < vocab_valid; i += blockDim.x)
    sum += exp ((double) l[i] - m);
  sum = ek_block_sum (sum);
  if (threadIdx.x == 0)
    {
      lse_part[t] = vocab_valid > 0 ? m + (float) log (sum) : -INFINITY;
      int tg = targets[t], row = tg - vocab_start;
      tgt_part[t] = tg >= 0 && row >= 0 && row < vocab_valid ? l[row] : 0.0f;
    }
}

/* one thread per token; lse_parts is (n_parts, N) */
__global__ void
ce_combine_kernel (float *lse, float *loss, const float *lse_parts, int n_parts,
                   const float *tgt_sum, const int *targets, int N)
{
  EK_GRID_STRIDE (t, (size_t) N)
    {
      float m = -INFINITY;
      for (int p = 0; p < n_parts; p++)
        m = fmaxf (m, lse_parts[(size_t) p * N + t]);
      double sum = 0.0;
      for (int p = 0; p < n_parts; p++)
        sum += exp ((double) lse_parts[(size_t) p * N + t] - m);
      float l = m + (float) log (sum);
      lse[t] = l;
      loss[t] = targets[t] >= 0 ? l - tgt_sum[t] : 0.0f;
    }
}

/* dlogits = dloss (softmax - onehot), 0 in padding columns and for ignored targets */
__global__ void
ce_backward_kernel (float *dlogits, const float *logits, const float *lse, const int *targets,
                    int vocab_start, int vocab_valid, int vocab_local, int N, float dloss)
{
  size_t total = (size_t) N * vocab_local;
  EK_GRID_STRIDE (idx, total)
    {
      size_t t = idx / vocab_local;
      int i = (int) (idx % vocab_local), tg = targets[t];
      if (tg < 0)
        {
          dlogits[idx] = 0.0f;
          continue;
        }
      float p = i < vocab_valid ? expf (logits[idx] - lse[t]) : 0.0f;
      dlogits[idx] = dloss * (p - (i == tg - vocab_start ? 1.0f : 0.0f));
    }
}

extern "C" cudaError_t
exec_cuda_ce_forward (cudaStream_t s, float *lse_part, float *tgt_part, const float *logits,
                      const int *targets, int vocab_start, int vocab_valid, int vocab_local,
                      int N)
{
  if (N <= 0)
    return cudaSuccess;
  EK_LAUNCH (ce_forward_kernel, N, EK_THREADS, 0, s, lse_part, tgt_part, logits, targets,
             vocab_start, vocab_valid, vocab_local);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_ce_combine (cudaStream_t s, float *lse, float *loss, const float *lse_parts,
                      int n_parts, const float *tgt_sum, const int *targets, int N)
{
  if (N <= 0)
    return cudaSuccess;
  EK_LAUNCH (ce_combine_kernel, ek_blocks ((size_t) N, EK_THREADS), EK_THREADS, 0, s, lse,
             loss, lse_parts, n_parts, tgt_sum, targets, N);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_ce_backward (cudaStream_t s, float *dlogits, const float *logits, const float *lse,
                       const int *targets, int vocab_start, int vocab_valid, int vocab_local,
                       int N, float dloss)
{
  size_t total = (size_t) N * vocab_local;
  if (total == 0 || N <= 0)
    return cudaSuccess;
  EK_LAUNCH (ce_backward_kernel, ek_blocks (total, EK_THREADS), EK_THREADS, 0, s, dlogits,
             logits, lse, targets, vocab_start, vocab_valid, vocab_local, N, dloss);
  return cudaGetLastError ();
}
