/* exec/kernels/attention.cu - the causal attention core, one K/V chunk at a time, and its
 * backward, on the device; the CPU reference (and the formulas) are in
 * exec/layers-attn.c.
 *
 * Correctness first, in the straightforward way: one warp per query row walks the visible
 * keys of the chunk with an online softmax (Milakov and Gimelshein 2018), each lane
 * holding head_dim / 32 elements of q and of the accumulator; the chunk's result is then
 * merged with what (out, lse) already hold, as the CPU does. The backward is
 * FlashAttention-2's (Dao 2023, algorithm 2) with the final lse, split in two passes so
 * that nothing is accumulated by two warps at once: one warp per query row for dq, one
 * warp per key row (over the query heads of its KV group) for dk and dv. It recomputes
 * the probabilities in each pass; no atomics, deterministic.
 *
 * Rows: query row r = (b n_head + h) Tq + i, the index of lse and delta; key row
 * r = (b n_kv_head + hk) Tk + j. GQA (Ainslie et al. 2023): head h reads KV head
 * h / (n_head / n_kv_head). */
#include "common.cuh"

#define AT_LANE_ELEMS (EXEC_CUDA_MAX_HEAD_DIM / 32)
#define AT_WARPS      4   /* warps (rows) per block */

__device__ __forceinline__ size_t
q_offset (const ExecCudaAttnDims &d, int b, int i, int h)
{
  return (((size_t) b * d.Tq + i) * d.n_head + h) * d.head_dim;
}

__device__ __forceinline__ size_t
kv_offset (const ExecCudaAttnDims &d, int b, int j, int hk)
{
  return (((size_t) b * d.Tk + j) * d.n_kv_head + hk) * d.head_dim;
}

/* x[c] for c = lane + 32 e, 0 past head_dim */
__device__ __forceinline__ void
load_row (float (&r)[AT_LANE_ELEMS], const float *x, int D, int lane)
{
#pragma unroll
  for (int e = 0; e < AT_LANE_ELEMS; e++)
    {
      int c = lane + 32 * e;
      r[e] = c < D ? x[c] : 0.0f;
    }
}

__device__ __forceinline__ float
dot_row (const float (&r)[AT_LANE_ELEMS], const float *x, int D, int lane)
{
  float acc = 0.0f;
#pragma unroll
  for (int e = 0; e < AT_LANE_ELEMS; e++)
    {
      int c = lane + 32 * e;
      if (c < D)
        acc += r[e] * x[c];
    }
  return ek_warp_sum (acc);
}

__global__ void
attn_forward_kernel (float *out, float *lse, const float *q, const int *q_pos, const float *k,
                     const float *v, const int *kv_pos, ExecCudaAttnDims d, float scale)
{
  size_t row = ((size_t) blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= (size_t) d.B * d.n_head * d.Tq)
    return;   /* the whole warp: rows are per warp */
  int i = (int) (row % d.Tq), h = (int) ((row / d.Tq) % d.n_head);
  int b = (int) (row / ((size_t) d.Tq * d.n_head));
  int D = d.head_dim, hk = h / (d.n_head / d.n_kv_head);
  int qp = q_pos ? q_pos[i] : i;
  float qr[AT_LANE_ELEMS], acc[AT_LANE_ELEMS];
  load_row (qr, q + q_offset (d, b, i, h), D, lane);
#pragma unroll
  for (int e = 0; e < AT_LANE_ELEMS; e++)
    acc[e] = 0.0f;

  /* online softmax over this chunk: m the running maximum, l the running sum */
  float m = -INFINITY, l = 0.0f;
  for (int j = 0; j < d.Tk; j++)
    {
      int kp = kv_pos ? kv_pos[j] : j;
      if (kp > qp)
        continue;   /* the same for every lane: the warp stays converged */
      size_t ka = kv_offset (d, b, j, hk);
      float s = dot_row (qr, k + ka, D, lane) * scale;
      float m_new = fmaxf (m, s);
      float corr = expf (m - m_new), p = expf (s - m_new);
      l = l * corr + p;
      const float *vj = v + ka;
#pragma unroll
      for (int e = 0; e < AT_LANE_ELEMS; e++)
        {
          int c = lane + 32 * e;
          if (c < D)
            acc[e] = acc[e] * corr + p * vj[c];
        }
      m = m_new;
    }
  if (l == 0.0f)
    return;   /* the whole chunk lies in this query's future */

  /* merge with (out, lse): lse' = log (exp (lse) + exp (lse_c)),
   * out' = out exp (lse - lse') + out_c exp (lse_c - lse'), out_c = acc / l */
  float lse_c = m + logf (l), old = lse[row];
  float lse_new = old == -INFINITY ? lse_c
                  : fmaxf (old, lse_c) + log1pf (expf (-fabsf (old - lse_c)));
  float keep = old == -INFINITY ? 0.0f : expf (old - lse_new);
  float wc = expf (lse_c - lse_new) / l;
  float *o = out + q_offset (d, b, i, h);
#pragma unroll
  for (int e = 0; e < AT_LANE_ELEMS; e++)
    {
      int c = lane + 32 * e;
      if (c < D)
        o[c] = o[c] * keep + acc[e] * wc;
    }
  __syncwarp ();
  if (lane == 0)
    lse[row] = lse_new;
}

__global__ void
attn_backward_prep_kernel (float *delta, const float *out, const float *dout, ExecCudaAttnDims d)
{
  size_t row = ((size_t) blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= (size_t) d.B * d.n_head * d.Tq)
    return;
  int i = (int) (row % d.Tq), h = (int) ((row / d.Tq) % d.n_head);
  int b = (int) (row / ((size_t) d.Tq * d.n_head));
  size_t at = q_offset (d, b, i, h);
  float acc = 0.0f;
  for (int c = lane; c < d.head_dim; c += 32)
    acc += out[at + c] * dout[at + c];
  acc = ek_warp_sum (acc);
  if (lane == 0)
    delta[row] = acc;
}

/* dq += sum_j ds_ij k_j, ds = p (do . v_j - delta) / sqrt (d), p = exp (s - lse) */
__global__ void
attn_backward_dq_kernel (float *dq, const float *dout, const float *delta, const float *lse,
                         const float *q, const int *q_pos, const float *k, const float *v,
                         const int *kv_pos, ExecCudaAttnDims d, float scale)
{
  size_t row = ((size_t) blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= (size_t) d.B * d.n_head * d.Tq)
    return;
  float li = lse[row], di = delta[row];
  if (li == -INFINITY)
    return;
  int i = (int) (row % d.Tq), h = (int) ((row / d.Tq) % d.n_head);
  int b = (int) (row / ((size_t) d.Tq * d.n_head));
  int D = d.head_dim, hk = h / (d.n_head / d.n_kv_head);
  int qp = q_pos ? q_pos[i] : i;
  size_t qa = q_offset (d, b, i, h);
  float qr[AT_LANE_ELEMS], dor[AT_LANE_ELEMS], acc[AT_LANE_ELEMS];
  load_row (qr, q + qa, D, lane);
  load_row (dor, dout + qa, D, lane);
#pragma unroll
  for (int e = 0; e < AT_LANE_ELEMS; e++)
    acc[e] = 0.0f;
  for (int j = 0; j < d.Tk; j++)
    {
      int kp = kv_pos ? kv_pos[j] : j;
      if (kp > qp)
        continue;
      size_t ka = kv_offset (d, b, j, hk);
      float p = expf (dot_row (qr, k + ka, D, lane) * scale - li);
      float ds = p * (dot_row (dor, v + ka, D, lane) - di) * scale;
      const float *kj = k + ka;
#pragma unroll
      for (int e = 0; e < AT_LANE_ELEMS; e++)
        {
          int c = lane + 32 * e;
          if (c < D)
            acc[e] += ds * kj[c];
        }
    }
#pragma unroll
  for (int e = 0; e < AT_LANE_ELEMS; e++)
    {
      int c = lane + 32 * e;
      if (c < D)
        dq[qa + c] += acc[e];
    }
}

/* dv_j += sum_i p_ij do_i, dk_j += sum_i ds_ij q_i over the query heads of KV head hk */
__global__ void
attn_backward_dkv_kernel (float *dk, float *dv, const float *dout, const float *delta,
                          const float *lse, const float *q, const int *q_pos, const float *k,
                          const float *v, const int *kv_pos, ExecCudaAttnDims d, float scale)
{
  size_t row = ((size_t) blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= (size_t) d.B * d.n_kv_head * d.Tk)
    return;
  int j = (int) (row % d.Tk), hk = (int) ((row / d.Tk) % d.n_kv_head);
  int b = (int) (row / ((size_t) d.Tk * d.n_kv_head));
  int D = d.head_dim, group = d.n_head / d.n_kv_head;
  int kp = kv_pos ? kv_pos[j] : j;
  size_t ka = kv_offset (d, b, j, hk);
  float kr[AT_LANE_ELEMS], vr[AT_LANE_ELEMS], dka[AT_LANE_ELEMS], dva[AT_LANE_ELEMS];
  load_row (kr, k + ka, D, lane);
  load_row (vr, v + ka, D, lane);
#pragma unroll
  for (int e = 0; e < AT_LANE_ELEMS; e++)
    dka[e] = dva[e] = 0.0f;
  for (int g = 0; g < group; g++)
    {
      int h = hk * group + g;
      for (int i = 0; i < d.Tq; i++)
        {
          int qp = q_pos ? q_pos[i] : i;
          if (kp > qp)
            continue;
          size_t qrow = ((size_t) b * d.n_head + h) * d.Tq + i;
          float li = lse[qrow];
          if (li == -INFINITY)
            continue;
          size_t qa = q_offset (d, b, i, h);
          const float *qi = q + qa, *doi = dout + qa;
          float p = expf (dot_row (kr, qi, D, lane) * scale - li);
          float ds = p * (dot_row (vr, doi, D, lane) - delta[qrow]) * scale;
#pragma unroll
          for (int e = 0; e < AT_LANE_ELEMS; e++)
            {
              int c = lane + 32 * e;
              if (c < D)
                {
                  dva[e] += p * doi[c];
                  dka[e] += ds * qi[c];
                }
            }
        }
    }
#pragma unroll
  for (int e = 0; e < AT_LANE_ELEMS; e++)
    {
      int c = lane + 32 * e;
      if (c < D)
        {
          dk[ka + c] += dka[e];
          dv[ka + c] += dva[e];
        }
    }
}

__global__ void
attn_init_kernel (float *lse, size_t rows)
{
  EK_GRID_STRIDE (r, rows)
    lse[r] = -INFINITY;
}

static bool
dims_ok (const ExecCudaAttnDims &d)
{
  return d.head_dim > 0 && d.head_dim <= EXEC_CUDA_MAX_HEAD_DIM && d.n_kv_head > 0
         && d.n_head % d.n_kv_head == 0 && d.B >= 0 && d.Tq >= 0 && d.Tk >= 0;
}

static unsigned
warp_blocks (size_t rows)
{
  return ek_blocks (rows, AT_WARPS);   /* AT_WARPS rows per block */
}

extern "C" cudaError_t
exec_cuda_attn_init (cudaStream_t s, float *out, float *lse, ExecCudaAttnDims d)
{
  size_t rows = (size_t) d.B * d.Tq * d.n_head;
  if (rows == 0)
    return cudaSuccess;
  (void) cudaGetLastError ();
  cudaError_t rc = cudaMemsetAsync (out, 0, rows * d.head_dim * sizeof (float), s);
  if (rc != cudaSuccess)
    return rc;
  EK_LAUNCH (attn_init_kernel, ek_blocks (rows, EK_THREADS), EK_THREADS, 0, s, lse, rows);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_attn_forward (cudaStream_t s, float *out, float *lse, const float *q,
                        const int *q_pos, const float *k, const float *v, const int *kv_pos,
                        ExecCudaAttnDims d)
{
  if (!dims_ok (d))
    return cudaErrorInvalidValue;
  size_t rows = (size_t) d.B * d.n_head * d.Tq;
  if (rows == 0)
    return cudaSuccess;
  float scale = 1.0f / sqrtf ((float) d.head_dim);
  /* grid limits: warp_blocks caps at EK_MAX_GRID blocks of AT_WARPS rows */
  if (rows > (size_t) EK_MAX_GRID * AT_WARPS)
    return cudaErrorInvalidConfiguration;
  EK_LAUNCH (attn_forward_kernel, warp_blocks (rows), 32 * AT_WARPS, 0, s, out, lse, q, q_pos,
             k, v, kv_pos, d, scale);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_attn_backward_prep (cudaStream_t s, float *delta, const float *out,
                              const float *dout, ExecCudaAttnDims d)
{
  size_t rows = (size_t) d.B * d.n_head * d.Tq;
  if (rows == 0)
    return cudaSuccess;
  if (rows > (size_t) EK_MAX_GRID * AT_WARPS)
    return cudaErrorInvalidConfiguration;
  EK_LAUNCH (attn_backward_prep_kernel, warp_blocks (rows), 32 * AT_WARPS, 0, s, delta, out,
             dout, d);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_attn_backward (cudaStream_t s, float *dq, float *dk, float *dv, const float *dout,
                         const float *delta, const float *lse, const float *q,
                         const int *q_pos, const float *k, const float *v, const int *kv_pos,
                         ExecCudaAttnDims d)
{
  if (!dims_ok (d))
    return cudaErrorInvalidValue;
  size_t q_rows = (size_t) d.B * d.n_head * d.Tq, k_rows = (size_t) d.B * d.n_kv_head * d.Tk;
  if (q_rows == 0 || k_rows == 0)
    return cudaSuccess;
  if (q_rows > (size_t) EK_MAX_GRID * AT_WARPS || k_rows > (size_t) EK_MAX_GRID * AT_WARPS)
    return cudaErrorInvalidConfiguration;
  float scale = 1.0f / sqrtf ((float) d.head_dim);
  EK_LAUNCH (attn_backward_dq_kernel, warp_blocks (q_rows), 32 * AT_WARPS, 0, s, dq, dout,
             delta, lse, q, q_pos, k, v, kv_pos, d, scale);
  cudaError_t rc = cudaGetLastError ();
  if (rc != cudaSuccess)
    return rc;
  EK_LAUNCH (attn_backward_dkv_kernel, warp_blocks (k_rows), 32 * AT_WARPS, 0, s, dk, dv,
             dout, delta, lse, q, q_pos, k, v, kv_pos, d, scale);
  return cudaGetLastError ();
}
