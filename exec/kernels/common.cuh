/* exec/kernels/common.cuh - what the .cu files share: launch sizes, warp and block
 * reductions, and the launch-status idiom. */
#pragma once

#include "kernels.h"

#include <cuda_runtime.h>
#include <math.h>

#define EK_THREADS   256      /* threads per block of the element-wise and row kernels */
#define EK_MAX_GRID  524288u  /* blocks; grid-stride loops cover the rest (limit 2^31 - 1) */
#define EK_FULL_MASK 0xffffffffu

/* Blocks for n items at one item per thread, capped (the kernels loop). */
static inline unsigned
ek_blocks (size_t n, unsigned threads)
{
  size_t b = (n + threads - 1) / threads;
  if (b == 0)
    b = 1;
  return b > EK_MAX_GRID ? EK_MAX_GRID : (unsigned) b;
}

/* The launch status. The error state is cleared before the launch so that an earlier
 * non-sticky status (cudaErrorNotReady from a poll, say) is not blamed on this kernel;
 * sticky errors (a faulted context) are returned by every call anyway. */
#define EK_LAUNCH(kernel, grid, block, shmem, stream, ...)                                \
  do {                                                                                    \
    (void) cudaGetLastError ();                                                           \
    kernel<<<(grid), (block), (shmem), (stream)>>> (__VA_ARGS__);                         \
  } while (0)

#define EK_GRID_STRIDE(i, n)                                                              \
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < (n);               \
       i += (size_t) gridDim.x * blockDim.x)

template <typename T>
__device__ __forceinline__ T
ek_warp_sum (T v)
{
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync (EK_FULL_MASK, v, o);
  return v;
}

__device__ __forceinline__ float
ek_warp_max (float v)
{
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf (v, __shfl_xor_sync (EK_FULL_MASK, v, o));
  return v;
}

/* Sum over the block; every thread gets it. All threads of the block must call it. The
 * first barrier keeps a previous call's readers ahead of this call's writers. */
template <typename T>
__device__ T
ek_block_sum (T v)
{
  __shared__ T part[32];
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v = ek_warp_sum (v);
  __syncthreads ();
  if (lane == 0)
    part[wid] = v;
  __syncthreads ();
  return ek_warp_sum (lane < nw ? part[lane] : (T) 0);
}

__device__ __forceinline__ float
ek_block_max (float v)
{
  __shared__ float part[32];
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v = ek_warp_max (v);
  __syncthreads ();
  if (lane == 0)
    part[wid] = v;
  __syncthreads ();
  return ek_warp_max (lane < nw ? part[lane] : -INFINITY);
}
