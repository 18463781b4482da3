/* exec/backend-cuda-private.h - the CUDA backend's structs, shared by backend-cuda.c
 * (open, close, buffers, GEMM, the table), backend-cuda-stream.c (streams, events,
 * timing, waits), backend-cuda-coll.c (groups, NCCL collectives), bootstrap-cuda.c
 * (world, device, NCCL unique id) and backend-cuda-kernels.c (the ExecKernels table).
 *
 * The backend is used from one host thread (the runner's), so nothing here is locked:
 * unlike the CPU backend there is no progress thread, because CUDA streams and NCCL make
 * their own progress. Vendor codes become GErrors at this boundary (STYLE.md section 4):
 * the EXEC_*_TRY macros return FALSE from the calling function with the failing call's
 * text and the vendor's message. */
#pragma once

#include "config.h"
#include "exec/backend-cuda.h"
#include "exec/layers.h"

#include <cublas_v2.h>
/* cublasLt.h declares cublasLtLoggerForceDisable () without (void), as nccl.h does */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop
#include <cuda_runtime_api.h>
/* nccl.h declares ncclGroupStart () and friends without (void), which the project's
 * -Werror=strict-prototypes rejects: the toolkit's header, not ours to change */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 18, 0)
#error "the cuda backend needs NCCL 2.18 or newer (ncclCommSplit); reconfigure with -Dcuda=disabled"
#endif
#if HAVE_MPI
#include <mpi.h>
#endif

/* A new anchor event (for timing) once the last one is this old, host clock: cudaEventElapsedTime
 * returns FP32 milliseconds, whose resolution at 4000 ms is 2^-12 ms = 0.24 us (around the
 * 0.5 us the CUDA runtime documents for events), so samples stay at event resolution. */
#define CUDA_ANCHOR_PERIOD_S 4.0

/* Vendor error -> GError (EXEC_ERROR_DEVICE, or EXEC_ERROR_MEMORY for allocations).
 * `call` is the failing call's text, `what` the context (G_STRLOC or a group name).
 * They always return FALSE. */
gboolean exec_set_cuda_error   (GError **error, cudaError_t rc, const char *call,
                                const char *what);
gboolean exec_set_cublas_error (GError **error, cublasStatus_t rc, const char *call,
                                const char *what);
gboolean exec_set_nccl_error   (GError **error, ncclResult_t rc, const char *call,
                                const char *what);

#define EXEC_CUDA_TRY(call, err)                                                          \
  G_STMT_START {                                                                          \
    cudaError_t r_ = (call);                                                              \
    if (r_ != cudaSuccess)                                                                \
      return exec_set_cuda_error ((err), r_, #call, G_STRLOC);                            \
  } G_STMT_END
#define EXEC_CUBLAS_TRY(call, err)                                                        \
  G_STMT_START {                                                                          \
    cublasStatus_t r_ = (call);                                                           \
    if (r_ != CUBLAS_STATUS_SUCCESS)                                                      \
      return exec_set_cublas_error ((err), r_, #call, G_STRLOC);                          \
  } G_STMT_END
/* For calls that cannot answer ncclInProgress (ncclGetUniqueId, ncclGroupStart, ...);
 * calls on a communicator go through cuda_nccl_settle. */
#define EXEC_NCCL_TRY(call, err)                                                          \
  G_STMT_START {                                                                          \
    ncclResult_t r_ = (call);                                                             \
    if (r_ != ncclSuccess)                                                                \
      return exec_set_nccl_error ((err), r_, #call, G_STRLOC);                            \
  } G_STMT_END

/* A timed point on a stream: a CUDA event and the anchor it is measured from. */
typedef struct {
  cudaEvent_t ev;
  guint       anchor;       /* index into CudaBackend.anchors */
} CudaMark;

typedef struct {
  cudaEvent_t ev;
  double      offset_s;     /* seconds since the origin (anchors[0]); valid when resolved */
  gboolean    resolved;
} CudaAnchor;

/* A GEMM or collective whose ExecSample is written when its stream is synchronized. */
typedef struct {
  CudaMark    start, end;
  ExecSample *out;          /* caller's */
} CudaSample;

typedef struct {
  ExecStream     base;
  cudaStream_t   stream;
  cublasHandle_t blas;        /* created with the stream (compute) or at its first GEMM */
  GQueue         samples;     /* CudaSample *, in issue order */
  GError        *error;       /* first failed kernel launch or cuBLAS call (sticky) */
  const char    *last_op;     /* last collective issued here (static), for timeouts */
  char          *last_group;
  int            last_group_size;
  int           *ints;        /* device staging area for host index arrays */
  gsize          ints_cap, ints_off;   /* ints */
  GSList        *retired;     /* outgrown staging areas, freed at close */
} CudaStream;

typedef struct {
  ExecEvent   base;
  CudaMark    mark;
  CudaStream *stream;         /* last recorded on; NULL = never recorded */
} CudaEvent;

typedef struct {
  ExecGroup  base;
  ncclComm_t comm;
} CudaGroup;

typedef struct {
  ExecBackend  base;
  int          device, n_devices;
  char         device_name[256];
  const char  *bootstrap;     /* "mpi", "torchrun", "slurm", "open-mpi-env", "single" */
  gboolean     nccl_blocking; /* TANDEM_NCCL_BLOCKING=1 */
  ncclComm_t   world_comm;    /* NULL until the bootstrap made it */
  gboolean     stuck;         /* a wait timed out: work may stay outstanding forever */
  cudaStream_t copy_stream;   /* uploads, downloads and zeroing (non-blocking) */
  gboolean     use_mpi, own_mpi;
#if HAVE_MPI
  MPI_Comm     mpi_world;     /* duplicate of MPI_COMM_WORLD, MPI_ERRORS_RETURN */
#endif
  char        *id_file;       /* rank 0: the unique-id file, removed once the world is up */
  gint64       t0_us;         /* host clock at open */
  GArray      *anchors;       /* CudaAnchor; [0] is the origin, recorded at open */
  gint64       anchor_us;     /* host clock when the last anchor was recorded */
  GArray      *event_pool;    /* cudaEvent_t, free for marks */
  cublasComputeType_t matmul_compute;   /* of the kernel table's matmuls */
  GPtrArray   *buffers, *streams, *events, *groups;   /* owned */
  /* FP8 GEMMs (backend-cuda-fp8.c): all made at the first FP8 GEMM, freed by cuda_fp8_clear */
  int          cc_major, cc_minor;   /* compute capability, from open_device */
  gboolean     fp8;           /* cuBLASLt FP8 kernels exist: compute capability >= 8.9 */
  cublasLtHandle_t lt;
  GPtrArray   *fp8_plans;     /* descriptors and algorithm per shape */
  GHashTable  *fp8_workspaces;   /* CudaStream * -> device workspace */
} CudaBackend;

static inline CudaBackend *
cuda_backend (ExecBackend *b)
{
  return (CudaBackend *) b;
}

double cuda_now (CudaBackend *b);   /* host seconds since open */

/* backend-cuda.c */
/* C = alpha op(A) op(B) + beta C, row-major (ExecGemm's convention) on stream s, through
 * the column-major cuBLAS as C^T = op(B)^T op(A)^T. a, b are of `ab_type`, C is FP32. */
gboolean cuda_gemm_rowmajor (CudaBackend *b, CudaStream *s, cublasComputeType_t compute,
                             cudaDataType ab_type,
                             gboolean trans_a, gboolean trans_b, int m, int n, int k,
                             float alpha, const void *a, int lda, const void *bm, int ldb,
                             float beta, float *c, int ldc, int batch, gint64 stride_a,
                             gint64 stride_b, gint64 stride_c, GError **error);

/* backend-cuda-fp8.c */
/* An EXEC_DTYPE_FP8_* GEMM through cublasLtMatmul (layout rules in that file and in
 * backend.h); EXEC_ERROR_INVALID for what cuBLASLt cannot run, with the reason. */
gboolean cuda_gemm_fp8  (CudaBackend *b, CudaStream *s, const ExecGemm *op, ExecSample *out,
                         GError **error);
/* Frees the plans, the workspaces (not when stuck) and the cuBLASLt handle. */
void     cuda_fp8_clear (CudaBackend *b);

/* backend-cuda-stream.c */
gboolean    cuda_clock_init      (CudaBackend *b, GError **error);   /* the origin */
void        cuda_clock_clear     (CudaBackend *b);
gboolean    cuda_mark_init       (CudaBackend *b, CudaMark *m, GError **error);
void        cuda_mark_clear      (CudaBackend *b, CudaMark *m);   /* back to the pool */
gboolean    cuda_mark_record     (CudaBackend *b, CudaMark *m, CudaStream *s, GError **error);
/* Seconds since open of a completed mark. */
gboolean    cuda_mark_time       (CudaBackend *b, const CudaMark *m, double *time_s,
                                  GError **error);
/* Brackets an operation on `s` with two marks when `out` is non-NULL: begin before it is
 * issued, end after (the sample then waits on the stream's queue). */
gboolean    cuda_sample_begin    (CudaBackend *b, CudaStream *s, ExecSample *out,
                                  CudaSample **sample, GError **error);
gboolean    cuda_sample_end      (CudaBackend *b, CudaStream *s, CudaSample *sample,
                                  GError **error);
void        cuda_sample_free     (CudaBackend *b, CudaSample *sample);
/* The first sticky kernel error of the stream, if any. */
gboolean    cuda_stream_check    (CudaStream *s, GError **error);
/* Keeps `take` as the stream's sticky error (the first one wins). */
void        cuda_stream_fail     (CudaStream *s, GError *take);
/* Polls the stream until idle (timeout_s, NCCL async errors), then fills its samples. */
gboolean    cuda_stream_wait     (CudaBackend *b, CudaStream *s, GError **error);
/* Every stream of the backend idle. */
gboolean    cuda_wait_idle       (CudaBackend *b, GError **error);
gboolean    cuda_stream_blas     (CudaBackend *b, CudaStream *s, GError **error);
void        cuda_stream_destroy  (gpointer stream);
void        cuda_event_destroy   (gpointer event);
ExecStream *cuda_stream_new      (ExecBackend *b, ExecStreamKind kind, const char *name,
                                  GError **error);
void        cuda_stream_free     (ExecBackend *b, ExecStream *stream);
gboolean    cuda_stream_synchronize (ExecBackend *b, ExecStream *stream, GError **error);
ExecEvent  *cuda_event_new       (ExecBackend *b, GError **error);
void        cuda_event_free      (ExecBackend *b, ExecEvent *event);
gboolean    cuda_event_record    (ExecBackend *b, ExecEvent *event, ExecStream *stream,
                                  GError **error);
gboolean    cuda_event_wait      (ExecBackend *b, ExecStream *stream, ExecEvent *event,
                                  GError **error);
gboolean    cuda_event_synchronize (ExecBackend *b, ExecEvent *event, GError **error);
gboolean    cuda_event_query     (ExecBackend *b, ExecEvent *event, gboolean *done,
                                  GError **error);
gboolean    cuda_event_time      (ExecBackend *b, ExecEvent *event, double *time_s,
                                  GError **error);

/* backend-cuda-coll.c */
/* Finishes a NCCL call on `comm`: a non-blocking communicator answers ncclInProgress,
 * then ncclCommGetAsyncError is polled until it settles or timeout_s passes. */
gboolean   cuda_nccl_settle   (CudaBackend *b, ncclComm_t comm, ncclResult_t rc,
                               const char *call, const char *what, GError **error);
/* An asynchronous error on any communicator of the backend (a peer died, ...). */
gboolean   cuda_nccl_check    (CudaBackend *b, GError **error);
/* ncclCommFinalize + ncclCommDestroy, or ncclCommAbort when `abort` (or stuck). */
void       cuda_nccl_release  (CudaBackend *b, ncclComm_t comm, gboolean abort);
ExecGroup *cuda_group_new     (ExecBackend *b, const char *name, int color, const int *members,
                               int n_members, GError **error);
void       cuda_group_free    (ExecBackend *b, ExecGroup *group);
void       cuda_group_destroy (CudaBackend *b, CudaGroup *g, gboolean abort);
gboolean   cuda_collective    (ExecBackend *b, ExecStream *stream, ExecGroup *group,
                               const ExecColl *op, ExecSample *out, GError **error);

/* bootstrap-cuda.c */
/* rank, world and local rank (MPI or environment); MPI initialised when used. */
gboolean cuda_bootstrap_world (CudaBackend *b, GError **error);
/* The NCCL unique id shared and the world communicator made (after cudaSetDevice). */
gboolean cuda_bootstrap_comm  (CudaBackend *b, GError **error);
/* MPI finalised when this backend initialised it (only when `clean`). */
void     cuda_bootstrap_close (CudaBackend *b, gboolean clean);
void     cuda_bootstrap_abort (CudaBackend *b, int code);

/* backend-cuda-kernels.c: the ExecKernels table on device pointers. */
extern const ExecKernels exec_kernels_cuda;
