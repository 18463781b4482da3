/* exec/kernels/elementwise.cu - SwiGLU (Shazeer 2020), the vocab-parallel embedding
 * (Megatron VocabParallelEmbedding), AdamW (Loshchilov and Hutter 2019, as
 * torch.optim.AdamW), fill and add on the device; the CPU reference is exec/layers.c.
 *
 * The embedding gradient adds rows of dout into the rows of dwte that the tokens pick;
 * two tokens may pick the same row, so one thread owns one column and walks the tokens in
 * order: no atomics, and the same sums in the same order as the CPU. */
#include "common.cuh"

__device__ __forceinline__ float
ek_sigmoid (float x)
{
  return 1.0f / (1.0f + expf (-x));
}

__global__ void
swiglu_forward_kernel (float *h, const float *gate, const float *up, size_t n)
{
  EK_GRID_STRIDE (i, n)
    h[i] = gate[i] * ek_sigmoid (gate[i]) * up[i];
}

/* d silu / dg = sigmoid (g) (1 + g (1 - sigmoid (g))); outputs set */
__global__ void
swiglu_backward_kernel (float *dgate, float *dup, const float *dh, const float *gate,
                        const float *up, size_t n)
{
  EK_GRID_STRIDE (i, n)
    {
      float g = gate[i], sg = ek_sigmoid (g), d = dh[i];
      float u = up[i];
      dup[i] = d * g * sg;
      dgate[i] = d * u * sg * (1.0f + g * (1.0f - sg));
    }
}

__global__ void
embed_forward_kernel (float *out, const int *tokens, const float *wte, int vocab_start,
                      int vocab_local, int N, int C)
{
  size_t total = (size_t) N * C;
  EK_GRID_STRIDE (idx, total)
    {
      size_t t = idx / C, c = idx % C;
      int row = tokens[t] - vocab_start;
      out[idx] = row >= 0 && row < vocab_local ? wte[(size_t) row * C + c] : 0.0f;
    }
}

__global__ void
embed_backward_kernel (float *dwte, const float *dout, const int *tokens, int vocab_start,
                       int vocab_local, int N, int C)
{
  for (size_t c = (size_t) blockIdx.x * blockDim.x + threadIdx.x; c < (size_t) C;
       c += (size_t) gridDim.x * blockDim.x)
    for (int t = 0; t < N; t++)
      {
        int row = tokens[t] - vocab_start;
        if (row >= 0 && row < vocab_local)
          dwte[(size_t) row * C + c] += dout[(size_t) t * C + c];
      }
}

__global__ void
adamw_kernel (float *param, const float *grad, float *m, float *v, size_t n, float lr,
              float beta1, float beta2, float eps, float wd, float c1, float c2)
{
  EK_GRID_STRIDE (i, n)
    {
      float g = grad[i];
      float mi = beta1 * m[i] + (1.0f - beta1) * g;
      float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
      m[i] = mi;
      v[i] = vi;
      float mhat = mi / c1, vhat = vi / c2;
      param[i] -= lr * (wd * param[i] + mhat / (sqrtf (vhat) + eps));
    }
}

__global__ void
fill_kernel (float *dst, float value, size_t n)
{
  EK_GRID_STRIDE (i, n)
    dst[i] = value;
}

__global__ void
add_kernel (float *out, const float *a, const float *b, size_t n)
{
  EK_GRID_STRIDE (i, n)
    out[i] = a[i] + b[i];
}

extern "C" cudaError_t
exec_cuda_swiglu_forward (cudaStream_t s, float *h, const float *gate, const float *up, size_t n)
{
  if (n == 0)
    return cudaSuccess;
  EK_LAUNCH (swiglu_forward_kernel, ek_blocks (n, EK_THREADS), EK_THREADS, 0, s, h, gate, up, n);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_swiglu_backward (cudaStream_t s, float *dgate, float *dup, const float *dh,
                           const float *gate, const float *up, size_t n)
{
  if (n == 0)
    return cudaSuccess;
  EK_LAUNCH (swiglu_backward_kernel, ek_blocks (n, EK_THREADS), EK_THREADS, 0, s, dgate, dup,
             dh, gate, up, n);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_embed_forward (cudaStream_t s, float *out, const int *tokens, const float *wte,
                         int vocab_start, int vocab_local, int N, int C)
{
  size_t total = (size_t) N * C;
  if (N <= 0 || C <= 0)
    return cudaSuccess;
  EK_LAUNCH (embed_forward_kernel, ek_blocks (total, EK_THREADS), EK_THREADS, 0, s, out,
             tokens, wte, vocab_start, vocab_local, N, C);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_embed_backward (cudaStream_t s, float *dwte, const float *dout, const int *tokens,
                          int vocab_start, int vocab_local, int N, int C)
{
  if (N <= 0 || C <= 0)
    return cudaSuccess;
  /* 128 threads per block: more blocks for small C (one column per thread) */
  EK_LAUNCH (embed_backward_kernel, ek_blocks ((size_t) C, 128), 128, 0, s, dwte, dout,
             tokens, vocab_start, vocab_local, N, C);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_adamw (cudaStream_t s, float *param, const float *grad, float *m, float *v, size_t n,
                 float lr, float beta1, float beta2, float eps, float weight_decay, float c1,
                 float c2)
{
  if (n == 0)
    return cudaSuccess;
  EK_LAUNCH (adamw_kernel, ek_blocks (n, EK_THREADS), EK_THREADS, 0, s, param, grad, m, v, n,
             lr, beta1, beta2, eps, weight_decay, c1, c2);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_fill (cudaStream_t s, float *dst, float value, size_t n)
{
  if (n == 0)
    return cudaSuccess;
  if (value == 0.0f && !signbit (value))
    {
      (void) cudaGetLastError ();
      return cudaMemsetAsync (dst, 0, n * sizeof (float), s);   /* +0.0f is all zero bits */
    }
  EK_LAUNCH (fill_kernel, ek_blocks (n, EK_THREADS), EK_THREADS, 0, s, dst, value, n);
  return cudaGetLastError ();
}

extern "C" cudaError_t
exec_cuda_add (cudaStream_t s, float *out, const float *a, const float *b, size_t n)
{
  if (n == 0)
    return cudaSuccess;
  EK_LAUNCH (add_kernel, ek_blocks (n, EK_THREADS), EK_THREADS, 0, s, out, a, b, n);
  return cudaGetLastError ();
}
