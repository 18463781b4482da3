/* exec/backend-cuda.h - the CUDA backend: cuBLAS for GEMMs, small CUDA kernels for the
 * rest of the layer math (exec/kernels/), NCCL for every collective and point-to-point
 * transfer. Built only when meson finds the CUDA toolkit, cuBLAS and NCCL (HAVE_CUDA);
 * registry.c lists it after the CPU reference.
 *
 * Needs CUDA 12 or newer (meson checks) and NCCL 2.18 or newer (ncclCommSplit; checked when
 * compiling); the kernels run on compute capability 9.0 (Hopper) and newer.
 *
 * Contract (on top of backend.h):
 *  - available() asks cudaGetDeviceCount; without a driver or a device it fails with
 *    EXEC_ERROR_UNAVAILABLE "no CUDA device (cudaGetDeviceCount: ...)" and the CPU backend
 *    is unaffected. open() fails the same way.
 *  - Buffers are plain cudaMalloc device memory (no managed memory), zeroed. Upload and
 *    download wait (up to timeout_s) until every stream of the backend is idle, then copy:
 *    as on the CPU, they see all work issued before them. Freeing a buffer waits the same
 *    way (cudaFree would synchronise the device anyway).
 *  - Streams are non-blocking CUDA streams; communication streams get the highest
 *    priority. Events are CUDA events. Waiting (stream or event synchronize) polls, so a
 *    hung peer gives EXEC_ERROR_TIMEOUT after timeout_s instead of blocking forever, and
 *    asynchronous NCCL errors (ncclCommGetAsyncError) are reported while waiting.
 *  - Timing: a GEMM or collective given an ExecSample is bracketed by two CUDA events; the
 *    sample is filled when its stream is synchronized (for GEMMs too, unlike the CPU).
 *    exec_event_time is cudaEventElapsedTime against an origin event recorded at open,
 *    chained through anchor events every few seconds so that FP32 milliseconds keep
 *    microsecond resolution over long runs.
 *  - GEMM (ExecGemm): float32, bfloat16 or float16 inputs, FP32 output and accumulation
 *    (cublasGemmEx / cublasGemmStridedBatchedEx, CUBLAS_COMPUTE_32F).
 *  - Kernels (ops->kernels): the ExecKernels table on device pointers, FP32 storage.
 *    Its matmuls are cuBLAS FP32 by default; TANDEM_CUDA_MATMUL=tf32 or bf16 lets cuBLAS
 *    use tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32 / _FAST_16BF, FP32 accumulation).
 *    Index arrays (tokens, targets, positions) may also be host pointers: they are then
 *    staged to the device on the stream. Kernels cannot return errors: a failed launch or
 *    cuBLAS call is kept on its stream and reported by the next synchronize, GEMM or
 *    collective there.
 *  - Collectives: NCCL on the stream given, data types float32, bfloat16, float16. NCCL
 *    has no tags: point-to-point messages between two members match in issue order, so
 *    every pair must issue its sends and receives in the same order. All-to-all is a
 *    group of ncclSend / ncclRecv (nccl-tests' alltoall), SEND_RECV one NCCL group.
 *
 * Bootstrap (open): the world, this rank, the local rank and the NCCL unique id.
 *  1. MPI, when ExecConfig.mpi says so (ON, or AUTO under an MPI launcher: OMPI_, PMIX_,
 *     PMI_ variables) and the build has MPI: MPI is initialised (or reused), rank 0 calls
 *     ncclGetUniqueId and MPI_Bcast sends it to every rank; the local rank comes from
 *     MPI_Comm_split_type (MPI_COMM_TYPE_SHARED).
 *  2. Otherwise environment variables, first set wins:
 *       torchrun:  RANK, WORLD_SIZE, LOCAL_RANK
 *       Slurm:     SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
 *       Open MPI:  OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
 *     With more than one rank, the unique id travels through a file in the directory
 *     TANDEM_NCCL_ID_DIR, which every rank must see (a shared filesystem across nodes):
 *     rank 0 writes "tandem-nccl-KEY.id" atomically (temporary file + rename), the others
 *     poll for it for up to timeout_s and ignore files older than 2 minutes before their
 *     open (stale ones from a crashed run). KEY is TANDEM_NCCL_ID_KEY, else
 *     SLURM_JOB_ID.SLURM_STEP_ID, else TORCHELASTIC_RUN_ID, else MASTER_ADDR-MASTER_PORT,
 *     else "default": two jobs sharing the directory at once need different keys. Rank 0
 *     removes the file once the world communicator is up (every rank has read it then).
 *  3. No variables: a world of one.
 *  The GPU is ExecConfig.device, or else the local rank modulo the device count. The
 *  world communicator is ncclCommInitRankConfig; groups are ncclCommSplit (world, colour,
 *  key = index in the member list), with the colours of plan_layout_group_color, so the
 *  real groups are the simulated ones. Communicators are non-blocking (so creating them
 *  obeys timeout_s too); TANDEM_NCCL_BLOCKING=1 makes them blocking. */
#pragma once

#include "exec/backend.h"

G_BEGIN_DECLS

/* Listed by registry.c when HAVE_CUDA. */
extern const ExecBackendOps exec_cuda_ops;

G_END_DECLS
