/* exec/backend.h - the execution engine's backend: one ops table that a CPU backend
 * (OpenBLAS + Open MPI) and a CUDA backend (cuBLAS + NCCL) both fill.
 *
 * Contract:
 *  - A backend is opened once per process (MPI can be initialised only once) and owns
 *    everything it hands out: buffers, streams, events and groups die in its close, so
 *    their free functions are optional. All handles start with a public base struct that
 *    names their backend; each backend appends its own fields.
 *  - Buffers hold device memory (plain aligned host memory on the CPU); `data` is what
 *    ExecGemm and ExecColl take. Matrices are row-major, as in llm.c and CBLAS.
 *  - Work is issued on streams. An event recorded on a stream completes when everything
 *    issued there before it has completed; exec_event_wait makes later work on a stream
 *    wait for it. Data dependencies always go through events: compute on the CPU runs
 *    synchronously on the calling thread, and CPU communication issued on one stream is
 *    posted at once and may run concurrently with earlier communication on that stream
 *    (a CUDA stream would serialise them), so the CPU's event_wait blocks the host until
 *    the event has completed, whichever stream it was recorded on.
 *  - Collectives are non-blocking: they are posted at issue (MPI_I* on the CPU, NCCL on a
 *    communication stream) and complete later, so communication overlaps compute; a
 *    progress thread keeps MPI moving while the host computes. Every member of a group
 *    must issue the group's collectives in the same order (MPI rule), and every rank must
 *    create groups in the same order (MPI_Comm_split is collective).
 *  - Every GEMM and collective can be timed: it fills an ExecSample (seconds since the
 *    backend was opened). For collectives the end is written when the backend sees the
 *    operation complete, so the sample must stay valid until the stream is synchronized.
 *  - Errors come back as EXEC_ERROR GErrors that name the failing call (MPI_Error_string,
 *    cuBLAS/NCCL strings); the library never prints and never exits. A peer that does not
 *    answer within ExecConfig.timeout_s gives EXEC_ERROR_TIMEOUT naming the operation and
 *    the group; exec_backend_abort (MPI_Abort / ncclCommAbort) is the caller's choice. */
#pragma once

#include <glib.h>
#include "plan/collective.h"
#include "plan/layout.h"

G_BEGIN_DECLS

#define EXEC_ERROR (exec_error_quark ())
GQuark exec_error_quark (void);

typedef enum {
  EXEC_ERROR_UNAVAILABLE,   /* backend not built, library or device missing */
  EXEC_ERROR_INVALID,       /* bad argument: unsupported dtype, sizes that do not fit */
  EXEC_ERROR_MPI,           /* an MPI call failed (message from MPI_Error_string) */
  EXEC_ERROR_BLAS,          /* a BLAS call refused its arguments */
  EXEC_ERROR_DEVICE,        /* a device (CUDA, cuBLAS, NCCL) call failed */
  EXEC_ERROR_TIMEOUT,       /* a peer did not answer within timeout_s */
  EXEC_ERROR_MEMORY,        /* an allocation failed */
} ExecError;

/* Element types. GEMM inputs of the narrow types are packed on the host with
 * exec/dtype-convert.h; the CPU backend multiplies EXEC_DTYPE_F32 only. */
typedef enum {
  EXEC_DTYPE_F32,
  EXEC_DTYPE_BF16,          /* CUDA: inputs in BF16, accumulation in FP32 */
  EXEC_DTYPE_F16,
  EXEC_DTYPE_FP8_E4M3,      /* OCP FP8 E4M3 ("E4M3FN": no infinities, max 448). CUDA GEMM
                             * through cuBLASLt: FP32 accumulation and output, compute
                             * capability 8.9 or newer, only trans_a FALSE and trans_b
                             * TRUE, m, n, k, lda, ldb multiples of 16 (backend-cuda-fp8.c) */
  EXEC_DTYPE_FP8_E5M2,      /* OCP FP8 E5M2 (max 57344); no GEMM: cuBLASLt pairs E5M2
                             * only with E4M3 (gradients), never E5M2 with E5M2 */
} ExecDtype;

gsize       exec_dtype_size (ExecDtype dtype);   /* bytes per element: 4, 2, 2, 1, 1 */
/* "float32", "bfloat16", "float16", "float8_e4m3", "float8_e5m2" (PyTorch's names,
 * without the "fn" suffix of torch.float8_e4m3fn) */
const char *exec_dtype_name (ExecDtype dtype);

/* How the CPU backend uses MPI. */
typedef enum {
  EXEC_MPI_AUTO,   /* use MPI when launched by mpirun/srun (OMPI_/PMI_/PMIX_ variables) */
  EXEC_MPI_ON,     /* always initialise MPI (a lone process is a world of one) */
  EXEC_MPI_OFF,    /* no MPI: a world of one, collectives are local copies */
} ExecMpiMode;

#define EXEC_DEFAULT_TIMEOUT_S 300.0   /* a hung peer; long enough for a slow first step */
#define EXEC_DEFAULT_PROGRESS_US 50    /* progress-thread poll interval, microseconds */

typedef struct {
  const char *backend;     /* "cpu", "cuda"; NULL = the first available */
  ExecMpiMode mpi;
  int         blas_threads;  /* BLAS threads per rank; 0 = 1 (one rank per core) */
  double      timeout_s;     /* give up waiting on a peer; 0 = EXEC_DEFAULT_TIMEOUT_S */
  int         progress_us;   /* CPU: progress-thread poll interval; 0 = default, < 0 = no
                              * thread (MPI then progresses only inside waits) */
  int         device;        /* CUDA device; -1 = local rank modulo device count */
} ExecConfig;

/* Zero is a valid config too, except that it picks device 0. */
void exec_config_init (ExecConfig *config);

/* When an operation ran, seconds since the backend was opened. */
typedef struct {
  double start_s, end_s;
} ExecSample;

/* Progress beats: every rank tells the others, a few times per timeout, how far it got
 * (a small non-blocking message per peer, sent by the backend's progress thread whether
 * or not the rank's own thread is busy), so that a wait that runs out can tell a slow
 * peer (its beats come and its count grows) from a stuck one (beats, no growth) and a
 * dead or stopped one (no beats). */
typedef struct {
  gint64  count;        /* grows with every task started (any increasing count) */
  int     step, steps;  /* step now (0-based, warm-up included), and in all */
  guint32 task;         /* the task started last (program id) */
  char    what[40];     /* its label, NUL-terminated ("fwd L3", "grad-reduce", "report") */
} ExecProgress;

typedef struct {
  ExecProgress p;        /* the last one received (zero when never heard) */
  gboolean     heard;    /* anything received from that rank */
  double       beat_age_s;    /* seconds since its last beat arrived (since open: never) */
  double       change_age_s;  /* seconds since its count last changed (since open: never) */
  double       period_s;      /* how often beats are sent */
} ExecPeerProgress;

typedef struct ExecBackendOps ExecBackendOps;
typedef struct ExecKernels    ExecKernels;      /* layers.h: element-wise, norm, attention */

/* Public bases of the handles; backends extend them (the base is the first member). */
typedef struct {
  const ExecBackendOps *ops;
  ExecConfig config;        /* copy, defaults applied */
  int        rank, world;   /* in MPI_COMM_WORLD (0 and 1 without MPI) */
  int        local_rank;    /* on this node */
  int        local_ranks;   /* ranks on this node, sharing its memory (0 or 1: alone) */
  double     timeout_s;     /* waits give up after this; may be changed between calls */
  guint64    device_memory_bytes;  /* the accelerator's memory; 0 = buffers live in host
                                    * memory (CPU backend) */
  int        device_count;  /* accelerators visible to this process; 0 on the CPU */
} ExecBackend;

typedef struct {
  ExecBackend *backend;
  void        *data;        /* device pointer; host memory on the CPU backend */
  gsize        bytes;
} ExecBuffer;

typedef enum {
  EXEC_STREAM_COMPUTE,
  EXEC_STREAM_COMM,
} ExecStreamKind;

typedef struct {
  ExecBackend   *backend;
  ExecStreamKind kind;
  char          *name;      /* "compute", "tp", "dp", ... (for error messages) */
} ExecStream;

typedef struct {
  ExecBackend *backend;
} ExecEvent;

typedef struct {
  ExecBackend *backend;
  char        *name;        /* "tp", "dp", "world", ... (named in errors) */
  int          size;        /* members */
  int          rank;        /* this process's index in members */
  int          color;       /* MPI_Comm_split colour: equal for exactly these members */
  int         *members;     /* world ranks in group order (size) */
} ExecGroup;

/* C = alpha op(A) op(B) + beta C, row-major; op(A) is m x k, op(B) k x n, C m x n.
 * A leading dimension of 0 means tightly packed. batch > 1 repeats it with the strides
 * (elements) added to a, b and c each time. */
typedef struct {
  ExecDtype   dtype;        /* of A and B; C and the accumulation are FP32 */
  gboolean    trans_a, trans_b;
  int         m, n, k;
  float       alpha, beta;
  const void *a;
  int         lda;
  const void *b;
  int         ldb;
  void       *c;
  int         ldc;
  int         batch;        /* 0 or 1 = one product */
  gint64      stride_a, stride_b, stride_c;
  gboolean    fast_bf16;    /* dtype F32 only: FP32 storage, products on BF16 tensor cores,
                             * FP32 accumulation (cuBLAS CUBLAS_COMPUTE_32F_FAST_16BF);
                             * FALSE = full FP32 math. The CPU backend ignores it. */
} ExecGemm;

typedef enum {
  EXEC_COLL_ALL_REDUCE,     /* sum of count elements */
  EXEC_COLL_REDUCE_SCATTER, /* sum; send holds size x count, recv this rank's count */
  EXEC_COLL_ALL_GATHER,     /* send holds count, recv size x count in group order */
  EXEC_COLL_ALL_TO_ALL,     /* count elements to and from each member (size x count) */
  EXEC_COLL_SEND,           /* count elements to member `peer` */
  EXEC_COLL_RECV,           /* count elements from member `peer` */
  EXEC_COLL_SEND_RECV,      /* both at once: send to `peer`, receive from `recv_peer` (one
                             * ring step of context parallelism; a NCCL group call) */
  EXEC_COLL_ALL_TO_ALLV,    /* send_counts[p] elements from send + send_displs[p] to member
                             * p, recv_counts[p] from p into recv + recv_displs[p] (the MoE
                             * token dispatch and combine: MPI_Ialltoallv; NCCL grouped
                             * send/recv); `count` unused */
  EXEC_COLL_N,
} ExecCollKind;

const char *exec_coll_name    (ExecCollKind kind);   /* "all_reduce", "send", ... */
PlanColl    exec_coll_to_plan (ExecCollKind kind);   /* SEND, RECV -> SEND_RECV */

/* In place: all-reduce with send == recv; all-gather with send == recv + rank x count
 * (NCCL's convention). Reduce-scatter and all-to-all need separate buffers. */
typedef struct {
  ExecCollKind kind;
  ExecDtype    dtype;       /* CPU: EXEC_DTYPE_F32 only */
  const void  *send;        /* unused by RECV */
  void        *recv;        /* unused by SEND */
  gsize        count;       /* elements, as described for each kind above */
  int          peer;        /* SEND, RECV, SEND_RECV (destination): a member index */
  int          recv_peer;   /* SEND_RECV: the member received from */
  int          tag;         /* point-to-point: 0 .. 32767 (MPI guarantees MPI_TAG_UB >=
                             * 32767); messages between two members with equal tags
                             * match in issue order */
  /* ALL_TO_ALLV: group-size host arrays, in elements. Like MPI_Ialltoallv's, they must
   * stay valid and unchanged until the stream is synchronized. */
  const int   *send_counts, *send_displs, *recv_counts, *recv_displs;
} ExecColl;

/* ALL_TO_ALLV's arrays: present, counts and displacements >= 0, extents within int, the
 * send and receive regions apart, and in a group of one recv_counts[0] = send_counts[0].
 * FALSE with EXEC_ERROR_INVALID naming the group. Both backends' checks call it. */
gboolean exec_coll_alltoallv_check (const ExecGroup *g, const ExecColl *op, gsize elem_bytes,
                                    GError **error);

/* STYLE.md section 5. Every function that can fail takes GError ** last. */
struct ExecBackendOps {
  const char *name;                                         /* "cpu", "cuda" */
  gboolean     (*available) (GError **error);               /* libraries and device there? */
  ExecBackend *(*open)      (const ExecConfig *config, GError **error);
  void         (*close)     (ExecBackend *b);               /* frees every handle */
  void         (*abort)     (ExecBackend *b, int code);     /* ends all ranks (MPI_Abort) */

  /* memory */
  ExecBuffer *(*buffer_new)      (ExecBackend *b, gsize bytes, GError **error);  /* zeroed */
  void        (*buffer_free)     (ExecBackend *b, ExecBuffer *buffer);
  gboolean    (*buffer_upload)   (ExecBackend *b, ExecBuffer *dst, gsize offset,
                                  const void *src, gsize bytes, GError **error);
  gboolean    (*buffer_download) (ExecBackend *b, void *dst, const ExecBuffer *src,
                                  gsize offset, gsize bytes, GError **error);

  /* streams and events */
  ExecStream *(*stream_new)         (ExecBackend *b, ExecStreamKind kind, const char *name,
                                     GError **error);
  void        (*stream_free)        (ExecBackend *b, ExecStream *stream);
  gboolean    (*stream_synchronize) (ExecBackend *b, ExecStream *stream, GError **error);
  ExecEvent  *(*event_new)          (ExecBackend *b, GError **error);
  void        (*event_free)         (ExecBackend *b, ExecEvent *event);
  gboolean    (*event_record)       (ExecBackend *b, ExecEvent *event, ExecStream *stream,
                                     GError **error);
  gboolean    (*event_wait)         (ExecBackend *b, ExecStream *stream, ExecEvent *event,
                                     GError **error);
  gboolean    (*event_synchronize)  (ExecBackend *b, ExecEvent *event, GError **error);
  gboolean    (*event_query)        (ExecBackend *b, ExecEvent *event, gboolean *done,
                                     GError **error);
  /* When a completed event completed, seconds since open (cudaEventElapsedTime against
   * an event recorded at open; the host clock on the CPU). */
  gboolean    (*event_time)         (ExecBackend *b, ExecEvent *event, double *time_s,
                                     GError **error);

  /* compute */
  gboolean (*gemm) (ExecBackend *b, ExecStream *stream, const ExecGemm *op, ExecSample *out,
                    GError **error);
  /* element-wise, norm, rotary, attention, loss and optimizer kernels on device
   * pointers (layers.h); NULL = the CPU reference, usable only on host memory */
  const ExecKernels *kernels;

  /* groups and collectives */
  ExecGroup *(*group_new)  (ExecBackend *b, const char *name, int color, const int *members,
                            int n_members, GError **error);
  void       (*group_free) (ExecBackend *b, ExecGroup *group);
  gboolean   (*collective) (ExecBackend *b, ExecStream *stream, ExecGroup *group,
                            const ExecColl *op, ExecSample *out, GError **error);

  /* progress beats (optional, NULL: none; progress.c): publish this rank's progress, read
   * what a peer last sent */
  void       (*progress_publish) (ExecBackend *b, const ExecProgress *mine);
  gboolean   (*progress_peer)    (ExecBackend *b, int rank, ExecPeerProgress *out);
};

/* ---- registry.c: the backends built into this binary --------------------------------- */

/* NULL-terminated, CPU first. */
const ExecBackendOps *const *exec_backends (void);
/* NULL with EXEC_ERROR_UNAVAILABLE naming the known backends. */
const ExecBackendOps *exec_backend_lookup (const char *name, GError **error);
/* Opens config->backend (or the first available one); `config` may be NULL. */
ExecBackend *exec_backend_open  (const ExecConfig *config, GError **error);
void         exec_backend_close (ExecBackend *b);                     /* NULL-safe */
void         exec_backend_abort (ExecBackend *b, int code);

/* Groups. Every rank of the world calls these in the same order. exec_group_new takes the
 * members of the group this rank belongs to (it must be one of them) and uses the
 * smallest member as colour, as plan_layout_group_color does. */
ExecGroup *exec_group_new             (ExecBackend *b, const char *name, const int *members,
                                       int n_members, GError **error);
/* The group of `axis` that contains this rank, from the plan's layout function (members
 * from plan_layout_group_members, colour from plan_layout_group_color); named after the
 * axis. Fails with EXEC_ERROR_INVALID when the layout's world is not the backend's. */
ExecGroup *exec_group_new_from_layout (ExecBackend *b, const PlanLayout *layout,
                                       PlanAxis axis, GError **error);
void       exec_group_free            (ExecGroup *group);             /* NULL-safe */

/* Thin dispatchers over the ops table, for readability at call sites. */
static inline ExecBuffer *
exec_buffer_new (ExecBackend *b, gsize bytes, GError **error)
{
  return b->ops->buffer_new (b, bytes, error);
}
static inline void
exec_buffer_free (ExecBuffer *buffer)
{
  if (buffer)
    buffer->backend->ops->buffer_free (buffer->backend, buffer);
}
static inline ExecStream *
exec_stream_new (ExecBackend *b, ExecStreamKind kind, const char *name, GError **error)
{
  return b->ops->stream_new (b, kind, name, error);
}
static inline void
exec_stream_free (ExecStream *stream)
{
  if (stream)
    stream->backend->ops->stream_free (stream->backend, stream);
}
static inline gboolean
exec_stream_synchronize (ExecStream *stream, GError **error)
{
  return stream->backend->ops->stream_synchronize (stream->backend, stream, error);
}
static inline ExecEvent *
exec_event_new (ExecBackend *b, GError **error)
{
  return b->ops->event_new (b, error);
}
static inline void
exec_event_free (ExecEvent *event)
{
  if (event)
    event->backend->ops->event_free (event->backend, event);
}
static inline gboolean
exec_event_record (ExecEvent *event, ExecStream *stream, GError **error)
{
  return event->backend->ops->event_record (event->backend, event, stream, error);
}
static inline gboolean
exec_event_wait (ExecStream *stream, ExecEvent *event, GError **error)
{
  return stream->backend->ops->event_wait (stream->backend, stream, event, error);
}
static inline gboolean
exec_event_synchronize (ExecEvent *event, GError **error)
{
  return event->backend->ops->event_synchronize (event->backend, event, error);
}
static inline gboolean
exec_event_query (ExecEvent *event, gboolean *done, GError **error)
{
  return event->backend->ops->event_query (event->backend, event, done, error);
}
static inline gboolean
exec_event_time (ExecEvent *event, double *time_s, GError **error)
{
  return event->backend->ops->event_time (event->backend, event, time_s, error);
}
static inline gboolean
exec_gemm (ExecStream *stream, const ExecGemm *op, ExecSample *out, GError **error)
{
  return stream->backend->ops->gemm (stream->backend, stream, op, out, error);
}
static inline gboolean
exec_collective (ExecStream *stream, ExecGroup *group, const ExecColl *op, ExecSample *out,
                 GError **error)
{
  return stream->backend->ops->collective (stream->backend, stream, group, op, out, error);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExecBackend, exec_backend_close)

/* ---- progress.c: progress beats ------------------------------------------------------- */

/* Publishes this rank's progress (count grows by one; step, steps, task, what as given);
 * nothing on a backend without beats. `what` may be NULL. */
void     exec_progress_note  (ExecBackend *b, int step, int steps, guint32 task,
                              const char *what);
/* What `rank` last sent; FALSE when the backend has no beats (or rank is out of range). */
gboolean exec_progress_peer  (ExecBackend *b, int rank, ExecPeerProgress *out);
/* A wait on `ranks` (n of them; this rank is skipped) ran for timeout_s: TRUE when it
 * should go on, because every one of them beat within timeout_s and (need_progress) at
 * least one of them moved on within timeout_s: a slow peer, not a dead one. FALSE with
 * *why (g_free; NULL when the backend has no beats) naming the peer to blame: "rank 3
 * sent nothing for 4.2 s (dead, stopped or hung)" or "rank 3 is alive but made no
 * progress for 5.0 s: at step 2 of 4, task 17 (fwd L3)". */
gboolean exec_progress_keep_waiting (ExecBackend *b, const int *ranks, int n,
                                     double timeout_s, gboolean need_progress, char **why);

/* The CPU reference backend, always built (registry.c lists it first). */
extern const ExecBackendOps exec_cpu_ops;

G_END_DECLS
