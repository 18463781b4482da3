/* exec/kernels/moe.cu - the mixture-of-experts routing kernels on the device: router
 * softmax + top-k, the permutation into expert order with counts, the weighted combine
 * (unpermute) and the backward of the combine and of the top-k weights. The CPU
 * reference is exec/moe.c; semantics, ties (to the lower expert) and the stable order
 * (token order inside an expert) are the same.
 *
 * Simple kernels, meant for the small expert counts of the shipped presets: one thread per
 * token for the routing (E is tens to a few hundred), one thread per expert for the
 * permutation's order (each scans the N k assignments: O(E N k) work, no atomics, so the
 * order is deterministic), grid-stride loops for the row copies. */
#include "common.cuh"

__global__ void
moe_topk_kernel (float *probs, int *idx, float *wts, const float *logits, int N, int E, int k,
                 int norm)
{
  EK_GRID_STRIDE (n, (size_t) N)
    {
      const float *l = logits + n * E;
      float *p = probs + n * E;
      float mx = -INFINITY, sum = 0;
      for (int e = 0; e < E; e++)
        mx = fmaxf (mx, l[e]);
      for (int e = 0; e < E; e++)
        {
          p[e] = expf (l[e] - mx);   /* l may be p */
          sum += p[e];
        }
      for (int e = 0; e < E; e++)
        p[e] /= sum;
      int *id = idx + n * k;
      float *w = wts + n * k, wsum = 0;
      for (int j = 0; j < k; j++)
        {
          int best = -1;
          for (int e = 0; e < E; e++)
            {
              bool taken = false;
              for (int i = 0; i < j && !taken; i++)
                taken = id[i] == e;
              if (!taken && (best < 0 || p[e] > p[best]))
                best = e;
            }
          id[j] = best;
          w[j] = p[best];
          wsum += w[j];
        }
      if (norm)
        for (int j = 0; j < k; j++)
          w[j] /= wsum;
    }
}

__global__ void
moe_topk_backward_kernel (float *dlogits, const float *dwts, const float *probs,
                          const int *idx, const float *wts, int N, int E, int k, int norm)
{
  EK_GRID_STRIDE (n, (size_t) N)
    {
      const float *p = probs + n * E, *dw = dwts + n * k, *w = wts + n * k;
      const int *id = idx + n * k;
      float *dl = dlogits + n * E;
      for (int e = 0; e < E; e++)
        dl[e] = 0;
      float S = 0, dot = 0;
      for (int j = 0; j < k; j++)
        {
          S += p[id[j]];
          dot += dw[j] * w[j];
        }
      for (int j = 0; j < k; j++)
        dl[id[j]] = norm ? (dw[j] - dot) / S : dw[j];
      float pdp = 0;
      for (int j = 0; j < k; j++)
        pdp += dl[id[j]] * p[id[j]];
      for (int e = 0; e < E; e++)
        dl[e] = p[e] * (dl[e] - pdp);
    }
}

/* Thread e: its offset (assignments to lower experts), its count, then the rows of its
 * assignments in token order. */
__global__ void
moe_order_kernel (int *pos, float *counts, const int *idx, int Nk, int E)
{
  EK_GRID_STRIDE (e, (size_t) E)
    {
      int off = 0, cnt = 0;
      for (int a = 0; a < Nk; a++)
        {
          off += idx[a] < (int) e;
          cnt += idx[a] == (int) e;
        }
      counts[e] = (float) cnt;
      for (int a = 0; a < Nk; a++)
        if (idx[a] == (int) e)
          pos[a] = off++;
    }
}

__global__ void
moe_gather_kernel (float *xp, const int *pos, const float *x, int Nk, int k, int C)
{
  EK_GRID_STRIDE (i, (size_t) Nk * C)
    {
      size_t a = i / C, c = i % C;
      xp[(size_t) pos[a] * C + c] = x[(a / k) * C + c];
    }
}

__global__ void
moe_unpermute_kernel (float *out, const float *xp, const int *pos, const float *wts, int N,
                      int k, int C, float beta)
{
  EK_GRID_STRIDE (i, (size_t) N * C)
    {
      size_t n = i / C, c = i % C;
      float v = beta == 0.0f ? 0.0f : beta * out[i];
      for (int j = 0; j < k; j++)
        {
          size_t a = n * k + j;
          v += (wts ? wts[a] : 1.0f) * xp[(size_t) pos[a] * C + c];
        }
      out[i] = v;
    }
}

__global__ void
moe_combine_dx_kernel (float *dxp, const float *dout, const int *pos, const float *wts,
                       int Nk, int k, int C)
{
  EK_GRID_STRIDE (i, (size_t) Nk * C)
    {
      size_t a = i / C, c = i % C;
      dxp[(size_t) pos[a] * C + c] = wts[a] * dout[(a / k) * C + c];
    }
}

/* one thread per assignment: the dot product in channel order, as the CPU */
__global__ void
moe_combine_dw_kernel (float *dwts, const float *dout, const float *yp, const int *pos,
                       int Nk, int k, int C)
{
  EK_GRID_STRIDE (a, (size_t) Nk)
    {
      const float *d = dout + (a / k) * C, *y = yp + (size_t) pos[a] * C;
      float dot = 0;
      for (int c = 0; c < C; c++)
        dot += d[c] * y[c];
      dwts[a] = dot;
    }
}

extern "C" cudaError_t
exec_cuda_moe_topk (cudaStream_t s, float *probs, int *idx, float *wts, const float *logits,
                    int N, int E, int k, int norm)
{
  if (N <= 0)
    return cudaSuccess;
  EK_LAUNCH (moe_topk_kernel, ek_blocks (N, EK_THREADS), EK_THREADS, 0, s, probs, idx, wts,
             logits, N, E, k, norm);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_moe_topk_backward (cudaStream_t s, float *dlogits, const float *dwts,
                             const float *probs, const int *idx, const float *wts, int N,
                             int E, int k, int norm)
{
  if (N <= 0)
    return cudaSuccess;
  EK_LAUNCH (moe_topk_backward_kernel, ek_blocks (N, EK_THREADS), EK_THREADS, 0, s, dlogits,
             dwts, probs, idx, wts, N, E, k, norm);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_moe_permute (cudaStream_t s, float *xp, int *pos, float *counts, const int *idx,
                       const float *x, int N, int k, int E, int C)
{
  int Nk = N * k;
  EK_LAUNCH (moe_order_kernel, ek_blocks (E, EK_THREADS), EK_THREADS, 0, s, pos, counts, idx,
             Nk, E);
  cudaError_t rc = cudaGetLastError ();
  if (rc != cudaSuccess || Nk == 0)
    return rc;
  EK_LAUNCH (moe_gather_kernel, ek_blocks ((size_t) Nk * C, EK_THREADS), EK_THREADS, 0, s, xp,
             pos, x, Nk, k, C);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_moe_unpermute (cudaStream_t s, float *out, const float *xp, const int *pos,
                         const float *wts, int N, int k, int C, float beta)
{
  if (N <= 0)
    return cudaSuccess;
  EK_LAUNCH (moe_unpermute_kernel, ek_blocks ((size_t) N * C, EK_THREADS), EK_THREADS, 0, s,
             out, xp, pos, wts, N, k, C, beta);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_moe_combine_backward (cudaStream_t s, float *dxp, float *dwts, const float *dout,
                                const float *yp, const int *pos, const float *wts, int N,
                                int k, int C)
{
  int Nk = N * k;
  if (Nk <= 0)
    return cudaSuccess;
  EK_LAUNCH (moe_combine_dx_kernel, ek_blocks ((size_t) Nk * C, EK_THREADS), EK_THREADS, 0, s,
             dxp, dout, pos, wts, Nk, k, C);
  cudaError_t rc = cudaGetLastError ();
  if (rc != cudaSuccess)
    return rc;
  EK_LAUNCH (moe_combine_dw_kernel, ek_blocks (Nk, EK_THREADS), EK_THREADS, 0, s, dwts, dout,
             yp, pos, Nk, k, C);
  return cudaGetLastError ();
}
