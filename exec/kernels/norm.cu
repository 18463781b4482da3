/* exec/kernels/norm.cu - RMSNorm (Zhang and Sennrich 2019) and rotary position embedding
 * (Su et al. 2021) on the device; the CPU reference is exec/layers.c.
 *
 * RMSNorm forward and the input gradient run one block per token row (a block reduction
 * of the row); the weight gradient dw_j += sum_t dout_tj x_tj rstd_t runs 32 columns per
 * block with 8 row-strided partial sums added in a fixed order, so it needs no atomics
 * and is deterministic. */
#include "common.cuh"

#define DW_COLS 32
#define DW_ROWS 8

__global__ void
rmsnorm_forward_kernel (float *out, float *rstd, const float *inp, const float *w, int C,
                        float eps)
{
  const float *x = inp + (size_t) blockIdx.x * C;
  float *o = out + (size_t) blockIdx.x * C;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    ss += x[i] * x[i];
  ss = ek_block_sum (ss);
  float r = 1.0f / sqrtf (ss / C + eps);
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    o[i] = x[i] * r * w[i];
  if (threadIdx.x == 0)
    rstd[blockIdx.x] = r;
}

/* dx_j += rstd (dout_j w_j - xhat_j mean_i (dout_i w_i xhat_i)), xhat = x rstd */
__global__ void
rmsnorm_backward_dx_kernel (float *dinp, const float *dout, const float *inp, const float *w,
                            const float *rstd, int C)
{
  size_t row = (size_t) blockIdx.x * C;
  const float *x = inp + row, *dy = dout + row;
  float *dx = dinp + row;
  float r = rstd[blockIdx.x];
  float dot = 0.0f;
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    dot += dy[i] * w[i] * x[i] * r;
  float mean = ek_block_sum (dot) / C;
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    {
      float xhat = x[i] * r;
      dx[i] += r * (dy[i] * w[i] - xhat * mean);
    }
}

__global__ void
rmsnorm_backward_dw_kernel (float *dw, const float *dout, const float *inp, const float *rstd,
                            int N, int C)
{
  __shared__ float part[DW_ROWS][DW_COLS + 1];
  int j = blockIdx.x * DW_COLS + threadIdx.x;
  float acc = 0.0f;
  if (j < C)
    for (int t = threadIdx.y; t < N; t += DW_ROWS)
      acc += dout[(size_t) t * C + j] * (inp[(size_t) t * C + j] * rstd[t]);
  part[threadIdx.y][threadIdx.x] = acc;
  __syncthreads ();
  if (threadIdx.y == 0 && j < C)
    {
      float sum = 0.0f;
      for (int y = 0; y < DW_ROWS; y++)
        sum += part[y][threadIdx.x];
      dw[j] += sum;
    }
}

/* The "rotate half" pairing (i with i + D/2), angle = pos theta^(-2i/D), computed in
 * double as the CPU reference does. */
__global__ void
rope_kernel (float *x, const int *pos, int B, int T, int H, int D, float theta, float sign)
{
  int half = D / 2;
  size_t total = (size_t) B * T * H * half;
  EK_GRID_STRIDE (idx, total)
    {
      int i = (int) (idx % half);
      size_t r = idx / half;
      int h = (int) (r % H);
      r /= H;
      int t = (int) (r % T);
      size_t b = r / T;
      double p = pos ? pos[t] : t;
      double angle = p * pow ((double) theta, -2.0 * i / D);
      double sn, cs;
      sincos (angle, &sn, &cs);
      float c = (float) cs, s = sign * (float) sn;
      float *v = x + ((b * T + t) * H + h) * (size_t) D;
      float x1 = v[i], x2 = v[i + half];
      v[i] = x1 * c - x2 * s;
      v[i + half] = x2 * c + x1 * s;
    }
}

extern "C" cudaError_t
exec_cuda_rmsnorm_forward (cudaStream_t s, float *out, float *rstd, const float *inp,
                           const float *w, int N, int C, float eps)
{
  if (N <= 0)
    return cudaSuccess;
  EK_LAUNCH (rmsnorm_forward_kernel, N, EK_THREADS, 0, s, out, rstd, inp, w, C, eps);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_rmsnorm_backward (cudaStream_t s, float *dinp, float *dw, const float *dout,
                            const float *inp, const float *w, const float *rstd, int N, int C)
{
  if (N <= 0 || C <= 0)
    return cudaSuccess;
  EK_LAUNCH (rmsnorm_backward_dx_kernel, N, EK_THREADS, 0, s, dinp, dout, inp, w, rstd, C);
  cudaError_t rc = cudaGetLastError ();
  if (rc != cudaSuccess)
    return rc;
  dim3 block (DW_COLS, DW_ROWS);
  EK_LAUNCH (rmsnorm_backward_dw_kernel, (C + DW_COLS - 1) / DW_COLS, block, 0, s, dw, dout,
             inp, rstd, N, C);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_rope (cudaStream_t s, float *x, const int *pos, int B, int T, int H, int D,
                float theta, float sign)
{
  size_t total = (size_t) B * T * H * (D / 2);
  if (total == 0)
    return cudaSuccess;
  EK_LAUNCH (rope_kernel, ek_blocks (total, EK_THREADS), EK_THREADS, 0, s, x, pos, B, T, H, D,
             theta, sign);
  return cudaGetLastError ();
}
