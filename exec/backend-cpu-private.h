/* exec/backend-cpu-private.h - the CPU backend's structs, shared by backend-cpu.c
 * (buffers, streams, events, GEMM, progress) and backend-cpu-coll.c (groups, MPI).
 *
 * A stream is the ordered list of its outstanding MPI requests. One mutex serialises
 * every MPI call of the backend (MPI_THREAD_SERIALIZED) between the caller's thread and
 * the progress thread, which tests the outstanding requests every progress_us so that
 * Open MPI's non-blocking collectives (libnbc schedules) advance while the host computes. */
#pragma once

#include "config.h"
#include "exec/backend.h"
#include "exec/mpi-world.h"

#if HAVE_MPI
#include <mpi.h>
#endif

typedef struct {
  const char *name;        /* exec_coll_name (static) */
  char       *group;       /* group name, for messages */
  int         group_size;
  guint64     seq;         /* issue number on its stream */
  int         n_req;
#if HAVE_MPI
  MPI_Request req[2];
#endif
  ExecSample *out;         /* caller's; end_s written at completion */
} CpuOp;

typedef struct {
  ExecStream base;
  guint64    n_issued;     /* operations issued so far: the next one's seq */
  GQueue     pending;      /* CpuOp *, in issue order, not yet complete */
  GList     *events;       /* CpuEvent * recorded here and not yet complete */
  GError    *error;        /* first failure the progress engine saw (sticky) */
} CpuStream;

typedef struct {
  ExecEvent  base;
  CpuStream *stream;       /* NULL until recorded */
  guint64    seq;          /* complete when no op of stream with seq < this is pending */
  double     time_s;       /* when it was seen complete; < 0 while pending */
} CpuEvent;

typedef struct {
  ExecGroup base;
#if HAVE_MPI
  MPI_Comm  comm;          /* MPI_COMM_NULL without MPI */
#endif
} CpuGroup;

typedef struct {
  ExecBackend base;
  GMutex      lock;        /* every MPI call, and the streams' pending lists and events */
  GCond       wake;        /* signalled when work is posted or on close */
  GThread    *progress;
  gboolean    stop;
  gboolean    use_mpi;     /* MPI initialised and in use */
  gboolean    own_mpi;     /* we called MPI_Init, so we finalise */
  gboolean    stuck;       /* a wait timed out: requests may stay outstanding */
#if HAVE_MPI
  MPI_Comm    world;       /* duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN */
#endif
  gint64      t0_us;       /* g_get_monotonic_time at open */
  /* progress beats (backend-cpu-stream.c), under lock */
  ExecProgress mine;       /* what this rank publishes */
  ExecProgress *peer;      /* world entries: the last received */
  gint64     *peer_beat_us, *peer_change_us;   /* when it arrived, when its count grew */
  gint64      beat_us;     /* period; 0: no beats */
  gint64      next_beat_us;
#if HAVE_MPI
  MPI_Comm    beat_comm;   /* a duplicate of world for the beats alone */
  MPI_Request *beat_req;   /* per peer: the beat in flight, or MPI_REQUEST_NULL */
  ExecProgress *beat_buf;  /* per peer: its bytes (kept until that send completes) */
#endif
  GPtrArray  *buffers, *streams, *events, *groups;   /* owned */
  guint64     buffer_bytes;   /* held in buffers now (refused past the host's memory) */
} CpuBackend;

static inline CpuBackend *
cpu_backend (ExecBackend *b)
{
  return (CpuBackend *) b;
}

double   cpu_now (CpuBackend *b);                          /* seconds since open */
/* Tests the stream's outstanding requests; lock held. */
void     cpu_stream_progress (CpuBackend *b, CpuStream *s);
void     cpu_stream_push (CpuBackend *b, CpuStream *s, CpuOp *op);     /* lock held */
void     cpu_op_free (CpuOp *op);
/* Waits, polling, until the stream has no pending op issued before `seq` (G_MAXUINT64:
 * all); EXEC_ERROR_TIMEOUT after b->base.timeout_s. Takes the lock itself. */
gboolean cpu_stream_wait (CpuBackend *b, CpuStream *s, guint64 seq, GError **error);

/* backend-cpu-stream.c: progress beats (lock held for the first three) */
void        cpu_beats_start        (CpuBackend *b);   /* after MPI is up */
void        cpu_beats_tick         (CpuBackend *b, gboolean receive);   /* when due (or
                                                     * `receive`): send, take in what came */
void        cpu_beats_stop         (CpuBackend *b);   /* before the world is freed */
void        cpu_progress_publish   (ExecBackend *b, const ExecProgress *mine);
gboolean    cpu_progress_peer      (ExecBackend *b, int rank, ExecPeerProgress *out);

/* backend-cpu-stream.c: the table's stream and event functions */
gpointer    cpu_progress_main      (gpointer backend);          /* the progress thread */
void        cpu_stream_destroy     (gpointer stream);           /* lock held */
void        cpu_event_destroy      (gpointer event);            /* lock held */
ExecStream *cpu_stream_new         (ExecBackend *b, ExecStreamKind kind, const char *name,
                                    GError **error);
void        cpu_stream_free        (ExecBackend *b, ExecStream *stream);
gboolean    cpu_stream_synchronize (ExecBackend *b, ExecStream *stream, GError **error);
ExecEvent  *cpu_event_new          (ExecBackend *b, GError **error);
void        cpu_event_free         (ExecBackend *b, ExecEvent *event);
gboolean    cpu_event_record       (ExecBackend *b, ExecEvent *event, ExecStream *stream,
                                    GError **error);
gboolean    cpu_event_wait         (ExecBackend *b, ExecStream *stream, ExecEvent *event,
                                    GError **error);
gboolean    cpu_event_synchronize  (ExecBackend *b, ExecEvent *event, GError **error);
gboolean    cpu_event_query        (ExecBackend *b, ExecEvent *event, gboolean *done,
                                    GError **error);
gboolean    cpu_event_time         (ExecBackend *b, ExecEvent *event, double *time_s,
                                    GError **error);

/* backend-cpu-coll.c */
ExecGroup *cpu_group_new    (ExecBackend *b, const char *name, int color, const int *members,
                             int n_members, GError **error);
void       cpu_group_free   (ExecBackend *b, ExecGroup *group);
void       cpu_group_destroy (CpuBackend *b, CpuGroup *g);   /* lock held; for close */
gboolean   cpu_collective   (ExecBackend *b, ExecStream *stream, ExecGroup *group,
                             const ExecColl *op, ExecSample *out, GError **error);
#if HAVE_MPI
/* Sets an EXEC_ERROR_MPI naming `call` and `what`, with MPI_Error_string; returns FALSE. */
#endif
