/* exec/backend-cpu.c - the CPU reference backend: OpenBLAS for GEMM, Open MPI for the
 * collectives (backend-cpu-coll.c), host memory for buffers.
 *
 * Compute runs synchronously on the calling thread, so a compute stream has nothing
 * outstanding. Communication is posted non-blocking; a stream keeps its outstanding
 * requests in issue order, an event is a position in that list, and waiting polls with
 * MPI_Test until the requests before the position are done or timeout_s has passed
 * (MPI_Wait could block forever on a dead or hung peer). */
#include "exec/backend-cpu-private.h"
#include "exec/layers.h"

#include <string.h>

#if HAVE_BLAS
#include <cblas.h>
#endif
#if EXEC_DECLARE_OPENBLAS_THREADS
void openblas_set_num_threads (int num_threads);   /* OpenBLAS, not in this cblas.h */
#endif

#define CPU_ALIGN 64   /* bytes: a cache line, and the widest AVX-512 load */

double
cpu_now (CpuBackend *b)
{
  return (double) (g_get_monotonic_time () - b->t0_us) * 1e-6;
}

static gboolean
cpu_available (GError **error)
{
  if (!HAVE_MPI || !HAVE_BLAS)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
                   "the cpu backend was built without %s (install libopenblas-dev and "
                   "libopenmpi-dev, then reconfigure): it runs only as a single process "
                   "with mpi = off", !HAVE_MPI ? "MPI" : "BLAS");
      return FALSE;
    }
  return TRUE;
}

/* Launched by an MPI starter? (Open MPI, PMIx, Hydra/PMI) */
static gboolean
launched_by_mpi (void)
{
  static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                      "PMI_SIZE", "MPI_LOCALNRANKS" };
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    if (g_getenv (vars[i]))
      return TRUE;
  return FALSE;
}

/* ---- progress ------------------------------------------------------------------------- */

void
cpu_op_free (CpuOp *op)
{
  g_free (op->group);
  g_free (op);
}

static gboolean
event_complete (const CpuEvent *e)
{
  if (!e->stream)
    return TRUE;
  const CpuOp *head = g_queue_peek_head ((GQueue *) &e->stream->pending);
  return !head || head->seq >= e->seq;
}

void
cpu_stream_progress (CpuBackend *b, CpuStream *s)
{
#if HAVE_MPI
  for (GList *l = s->pending.head; l;)
    {
      GList *next = l->next;
      CpuOp *op = l->data;
      gboolean done = TRUE;
      for (int r = 0; r < op->n_req; r++)
        {
          if (op->req[r] == MPI_REQUEST_NULL)
            continue;
          int flag = 0;
          int rc = MPI_Test (&op->req[r], &flag, MPI_STATUS_IGNORE);
          if (rc != MPI_SUCCESS)
            {
              if (!s->error)
                {
                  g_autofree char *what = g_strdup_printf ("%s on group '%s'", op->name,
                                                           op->group);
                  cpu_mpi_error (&s->error, rc, "MPI_Test", what);
                }
              op->req[r] = MPI_REQUEST_NULL;   /* dropped: the stream is failed */
            }
          else if (!flag)
            done = FALSE;
        }
      if (done)
        {
          if (op->out)
            op->out->end_s = cpu_now (b);
          g_queue_delete_link (&s->pending, l);
          cpu_op_free (op);
        }
      l = next;
    }
#endif
  for (GList *l = s->events; l;)
    {
      GList *next = l->next;
      CpuEvent *e = l->data;
      if (event_complete (e))
        {
          e->time_s = cpu_now (b);
          s->events = g_list_delete_link (s->events, l);
        }
      l = next;
    }
}

void
cpu_stream_push (CpuBackend *b, CpuStream *s, CpuOp *op)
{
  op->seq = s->n_issued++;
  g_queue_push_tail (&s->pending, op);
  g_cond_signal (&b->wake);
}

/* The progress thread: while anything is outstanding, test it every progress_us. */
static gpointer
progress_main (gpointer data)
{
  CpuBackend *b = data;
  gulong period = (gulong) b->base.config.progress_us;
  g_mutex_lock (&b->lock);
  while (!b->stop)
    {
      gboolean busy = FALSE;
      for (guint i = 0; i < b->streams->len; i++)
        {
          CpuStream *s = g_ptr_array_index (b->streams, i);
          if (s->pending.length == 0)
            continue;
          cpu_stream_progress (b, s);
          busy |= s->pending.length > 0;
        }
      if (!busy)
        {
          g_cond_wait (&b->wake, &b->lock);
          continue;
        }
      g_mutex_unlock (&b->lock);
      g_usleep (period);
      g_mutex_lock (&b->lock);
    }
  g_mutex_unlock (&b->lock);
  return NULL;
}

gboolean
cpu_stream_wait (CpuBackend *b, CpuStream *s, guint64 seq, GError **error)
{
  double deadline = cpu_now (b) + b->base.timeout_s;
  gulong nap_us = 1;
  g_mutex_lock (&b->lock);
  for (;;)
    {
      cpu_stream_progress (b, s);
      if (s->error)
        {
          g_propagate_error (error, g_error_copy (s->error));
          g_mutex_unlock (&b->lock);
          return FALSE;
        }
      CpuOp *head = g_queue_peek_head (&s->pending);
      if (!head || head->seq >= seq)
        break;
      if (cpu_now (b) >= deadline)
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT,
                       "%s on group '%s' (%d ranks, stream '%s') timed out after %g s: a "
                       "peer did not take part (missing, hung or dead)", head->name,
                       head->group, head->group_size, s->base.name, b->base.timeout_s);
          b->stuck = TRUE;
          g_mutex_unlock (&b->lock);
          return FALSE;
        }
      /* back off from spinning to 1 ms naps: ranks may share cores (oversubscribed) */
      g_mutex_unlock (&b->lock);
      g_usleep (nap_us);
      nap_us = MIN (nap_us * 2, 1000);
      g_mutex_lock (&b->lock);
    }
  g_mutex_unlock (&b->lock);
  return TRUE;
}

/* ---- buffers -------------------------------------------------------------------------- */

static void
buffer_destroy (gpointer data)
{
  ExecBuffer *buf = data;
  g_aligned_free (buf->data);
  g_free (buf);
}

static ExecBuffer *
cpu_buffer_new (ExecBackend *base, gsize bytes, GError **error)
{
  CpuBackend *b = cpu_backend (base);
  void *data = g_aligned_alloc0 (MAX (bytes, 1), 1, CPU_ALIGN);
  if (!data)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_MEMORY, "cannot allocate %" G_GSIZE_FORMAT
                   " bytes of host memory", bytes);
      return NULL;
    }
  ExecBuffer *buf = g_new0 (ExecBuffer, 1);
  buf->backend = base;
  buf->data = data;
  buf->bytes = bytes;
  g_ptr_array_add (b->buffers, buf);
  return buf;
}

static void
cpu_buffer_free (ExecBackend *base, ExecBuffer *buffer)
{
  if (buffer)
    g_ptr_array_remove_fast (cpu_backend (base)->buffers, buffer);
}

static gboolean
check_range (const ExecBuffer *buf, gsize offset, gsize bytes, const char *what, GError **error)
{
  if (offset > buf->bytes || bytes > buf->bytes - offset)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s of %" G_GSIZE_FORMAT " bytes at offset %" G_GSIZE_FORMAT
                   " overruns a buffer of %" G_GSIZE_FORMAT " bytes", what, bytes, offset,
                   buf->bytes);
      return FALSE;
    }
  return TRUE;
}

static gboolean
cpu_buffer_upload (ExecBackend *b, ExecBuffer *dst, gsize offset, const void *src, gsize bytes,
                   GError **error)
{
  if (!check_range (dst, offset, bytes, "upload", error))
    return FALSE;
  memcpy ((char *) dst->data + offset, src, bytes);
  return TRUE;
}

static gboolean
cpu_buffer_download (ExecBackend *b, void *dst, const ExecBuffer *src, gsize offset,
                     gsize bytes, GError **error)
{
  if (!check_range (src, offset, bytes, "download", error))
    return FALSE;
  memcpy (dst, (const char *) src->data + offset, bytes);
  return TRUE;
}

/* ---- streams and events --------------------------------------------------------------- */

static void
stream_destroy (gpointer data)
{
  CpuStream *s = data;
  CpuBackend *b = cpu_backend (s->base.backend);
  for (guint i = 0; i < b->events->len; i++)
    {
      CpuEvent *e = g_ptr_array_index (b->events, i);
      if (e->stream == s)
        e->stream = NULL;
    }
  g_list_free (s->events);
  /* Requests still outstanding here (only after a timeout) cannot be freed: MPI forbids
   * MPI_Request_free on a non-blocking collective. They are abandoned. */
  g_queue_clear_full (&s->pending, (GDestroyNotify) cpu_op_free);
  g_clear_error (&s->error);
  g_free (s->base.name);
  g_free (s);
}

static ExecStream *
cpu_stream_new (ExecBackend *base, ExecStreamKind kind, const char *name, GError **error)
{
  CpuBackend *b = cpu_backend (base);
  CpuStream *s = g_new0 (CpuStream, 1);
  s->base.backend = base;
  s->base.kind = kind;
  s->base.name = g_strdup (name ? name : kind == EXEC_STREAM_COMPUTE ? "compute" : "comm");
  g_queue_init (&s->pending);
  g_mutex_lock (&b->lock);
  g_ptr_array_add (b->streams, s);
  g_mutex_unlock (&b->lock);
  return &s->base;
}

static void
cpu_stream_free (ExecBackend *base, ExecStream *stream)
{
  CpuBackend *b = cpu_backend (base);
  CpuStream *s = (CpuStream *) stream;
  if (!s)
    return;
  g_mutex_lock (&b->lock);
  cpu_stream_progress (b, s);
  if (s->pending.length == 0)     /* else close abandons it */
    g_ptr_array_remove_fast (b->streams, s);
  g_mutex_unlock (&b->lock);
}

static gboolean
cpu_stream_synchronize (ExecBackend *base, ExecStream *stream, GError **error)
{
  if (!cpu_stream_wait (cpu_backend (base), (CpuStream *) stream, G_MAXUINT64, error))
    {
      g_prefix_error (error, "synchronizing stream '%s': ", stream->name);
      return FALSE;
    }
  return TRUE;
}

static void
event_detach (CpuEvent *e)
{
  if (e->stream)
    e->stream->events = g_list_remove (e->stream->events, e);
  e->stream = NULL;
}

static void
event_destroy (gpointer data)
{
  CpuEvent *e = data;
  event_detach (e);
  g_free (e);
}

static ExecEvent *
cpu_event_new (ExecBackend *base, GError **error)
{
  CpuBackend *b = cpu_backend (base);
  CpuEvent *e = g_new0 (CpuEvent, 1);
  e->base.backend = base;
  e->time_s = 0;
  g_mutex_lock (&b->lock);
  g_ptr_array_add (b->events, e);
  g_mutex_unlock (&b->lock);
  return &e->base;
}

static void
cpu_event_free (ExecBackend *base, ExecEvent *event)
{
  CpuBackend *b = cpu_backend (base);
  if (!event)
    return;
  g_mutex_lock (&b->lock);
  g_ptr_array_remove_fast (b->events, event);
  g_mutex_unlock (&b->lock);
}

static gboolean
cpu_event_record (ExecBackend *base, ExecEvent *event, ExecStream *stream, GError **error)
{
  CpuBackend *b = cpu_backend (base);
  CpuEvent *e = (CpuEvent *) event;
  CpuStream *s = (CpuStream *) stream;
  g_mutex_lock (&b->lock);
  event_detach (e);
  e->stream = s;
  e->seq = s->n_issued;
  e->time_s = -1;
  s->events = g_list_append (s->events, e);
  cpu_stream_progress (b, s);     /* stamps it now when nothing is outstanding */
  g_mutex_unlock (&b->lock);
  return TRUE;
}

static gboolean
event_wait_host (CpuBackend *b, CpuEvent *e, GError **error)
{
  g_mutex_lock (&b->lock);
  CpuStream *s = e->stream;
  guint64 seq = e->seq;
  g_mutex_unlock (&b->lock);
  if (s && !cpu_stream_wait (b, s, seq, error))
    return FALSE;
  g_mutex_lock (&b->lock);
  if (e->stream)
    cpu_stream_progress (b, e->stream);   /* stamps the event */
  g_mutex_unlock (&b->lock);
  return TRUE;
}

/* Compute on the CPU runs when issued, so "later work waits" means the host waits. */
static gboolean
cpu_event_wait (ExecBackend *base, ExecStream *stream, ExecEvent *event, GError **error)
{
  if (!event_wait_host (cpu_backend (base), (CpuEvent *) event, error))
    {
      g_prefix_error (error, "stream '%s' waiting for an event: ", stream->name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
cpu_event_synchronize (ExecBackend *base, ExecEvent *event, GError **error)
{
  return event_wait_host (cpu_backend (base), (CpuEvent *) event, error);
}

static gboolean
cpu_event_query (ExecBackend *base, ExecEvent *event, gboolean *done, GError **error)
{
  CpuBackend *b = cpu_backend (base);
  CpuEvent *e = (CpuEvent *) event;
  gboolean ok = TRUE;
  g_mutex_lock (&b->lock);
  if (e->stream)
    {
      cpu_stream_progress (b, e->stream);
      if (e->stream->error)
        {
          g_propagate_error (error, g_error_copy (e->stream->error));
          ok = FALSE;
        }
    }
  *done = event_complete (e);
  g_mutex_unlock (&b->lock);
  return ok;
}

static gboolean
cpu_event_time (ExecBackend *base, ExecEvent *event, double *time_s, GError **error)
{
  CpuBackend *b = cpu_backend (base);
  CpuEvent *e = (CpuEvent *) event;
  g_mutex_lock (&b->lock);
  double t = e->time_s;
  g_mutex_unlock (&b->lock);
  if (t < 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "event time asked before the event completed (synchronize it first)");
      return FALSE;
    }
  *time_s = t;
  return TRUE;
}

/* ---- GEMM ----------------------------------------------------------------------------- */

static gboolean
check_ld (int ld, int min, const char *name, GError **error)
{
  if (ld < MAX (min, 1))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_BLAS,
                   "cblas_sgemm: %s = %d is below its minimum %d", name, ld, MAX (min, 1));
      return FALSE;
    }
  return TRUE;
}

static gboolean
cpu_gemm (ExecBackend *base, ExecStream *stream, const ExecGemm *op, ExecSample *out,
          GError **error)
{
  CpuBackend *b = cpu_backend (base);
  if (op->dtype != EXEC_DTYPE_F32)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "the cpu backend multiplies float32 only, not %s",
                   exec_dtype_name (op->dtype));
      return FALSE;
    }
  if (op->m < 0 || op->n < 0 || op->k < 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_BLAS,
                   "cblas_sgemm: negative size (m %d, n %d, k %d)", op->m, op->n, op->k);
      return FALSE;
    }
  /* row-major: A is m x k (k x m transposed), B k x n (n x k), C m x n */
  int lda_min = op->trans_a ? op->m : op->k, ldb_min = op->trans_b ? op->k : op->n;
  int lda = op->lda ? op->lda : MAX (lda_min, 1);
  int ldb = op->ldb ? op->ldb : MAX (ldb_min, 1);
  int ldc = op->ldc ? op->ldc : MAX (op->n, 1);
  if (!check_ld (lda, lda_min, "lda", error) || !check_ld (ldb, ldb_min, "ldb", error)
      || !check_ld (ldc, op->n, "ldc", error))
    return FALSE;
  double t0 = cpu_now (b);
  const float *a = op->a, *bm = op->b;
  float *c = op->c;
  for (int i = 0; i < MAX (op->batch, 1); i++)
    exec_cpu_sgemm (op->trans_a, op->trans_b, op->m, op->n, op->k, op->alpha,
                    a + i * op->stride_a, lda, bm + i * op->stride_b, ldb, op->beta,
                    c + i * op->stride_c, ldc);
  if (out)
    {
      out->start_s = t0;
      out->end_s = cpu_now (b);
    }
  return TRUE;
}

/* ---- open and close ------------------------------------------------------------------- */

static void
cpu_close (ExecBackend *base)
{
  CpuBackend *b = cpu_backend (base);
  if (!b)
    return;
  if (b->progress)
    {
      g_mutex_lock (&b->lock);
      b->stop = TRUE;
      g_cond_signal (&b->wake);
      g_mutex_unlock (&b->lock);
      g_thread_join (b->progress);
      b->progress = NULL;
    }
  /* Let what is outstanding finish (unless a wait already timed out). */
  gboolean clean = TRUE;
  for (guint i = 0; i < b->streams->len; i++)
    {
      CpuStream *s = g_ptr_array_index (b->streams, i);
      if (s->pending.length && (b->stuck || !cpu_stream_wait (b, s, G_MAXUINT64, NULL)))
        clean = FALSE;
    }
  g_mutex_lock (&b->lock);
  g_ptr_array_unref (b->events);       /* before the streams they point into */
  b->events = g_ptr_array_new ();
  g_ptr_array_unref (b->streams);
  g_ptr_array_unref (b->buffers);
  for (guint i = 0; i < b->groups->len; i++)
    if (clean)
      cpu_group_destroy (b, g_ptr_array_index (b->groups, i));
  g_ptr_array_unref (b->groups);
  g_ptr_array_unref (b->events);
#if HAVE_MPI
  /* MPI_Finalize waits for outstanding communication, which after a timeout may never
   * come: then leave MPI as it is and let the launcher see the failure. */
  if (b->use_mpi && clean)
    {
      MPI_Comm_free (&b->world);
      if (b->own_mpi)
        MPI_Finalize ();
    }
#endif
  g_mutex_unlock (&b->lock);
  g_mutex_clear (&b->lock);
  g_cond_clear (&b->wake);
  g_free (b);
}

static void
cpu_abort (ExecBackend *base, int code)
{
#if HAVE_MPI
  CpuBackend *b = cpu_backend (base);
  if (b->use_mpi)
    MPI_Abort (b->world, code);
#endif
  /* without MPI there are no other ranks to end: return to the caller */
}

#if HAVE_MPI
static gboolean
cpu_open_mpi (CpuBackend *b, GError **error)
{
  int inited = 0, finalized = 0, provided = MPI_THREAD_SINGLE, rc;
  MPI_Initialized (&inited);
  MPI_Finalized (&finalized);
  if (finalized)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_MPI,
                   "MPI was already finalized in this process (open the cpu backend once "
                   "per process)");
      return FALSE;
    }
  if (!inited)
    {
      /* SERIALIZED: the progress thread and the caller take turns under b->lock */
      rc = MPI_Init_thread (NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
      if (rc != MPI_SUCCESS)
        return cpu_mpi_error (error, rc, "MPI_Init_thread", "opening the cpu backend");
      b->own_mpi = TRUE;
      MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
  else
    MPI_Query_thread (&provided);
  if ((rc = MPI_Comm_dup (MPI_COMM_WORLD, &b->world)) != MPI_SUCCESS)
    return cpu_mpi_error (error, rc, "MPI_Comm_dup", "MPI_COMM_WORLD");
  MPI_Comm_set_errhandler (b->world, MPI_ERRORS_RETURN);
  MPI_Comm_rank (b->world, &b->base.rank);
  MPI_Comm_size (b->world, &b->base.world);
  MPI_Comm node;
  if ((rc = MPI_Comm_split_type (b->world, MPI_COMM_TYPE_SHARED, b->base.rank, MPI_INFO_NULL,
                                 &node)) != MPI_SUCCESS)
    return cpu_mpi_error (error, rc, "MPI_Comm_split_type", "finding the local rank");
  MPI_Comm_rank (node, &b->base.local_rank);
  MPI_Comm_free (&node);
  b->use_mpi = TRUE;
  if (provided < MPI_THREAD_SERIALIZED)
    b->base.config.progress_us = -1;   /* the caller's MPI forbids a second thread */
  return TRUE;
}
#endif

static ExecBackend *
cpu_open (const ExecConfig *config, GError **error)
{
  CpuBackend *b = g_new0 (CpuBackend, 1);
  b->base.ops = &exec_cpu_ops;
  if (config)
    b->base.config = *config;
  else
    exec_config_init (&b->base.config);
  ExecConfig *c = &b->base.config;
  c->backend = "cpu";
  if (c->timeout_s <= 0)
    c->timeout_s = EXEC_DEFAULT_TIMEOUT_S;
  if (c->progress_us == 0)
    c->progress_us = EXEC_DEFAULT_PROGRESS_US;
  if (c->blas_threads <= 0)
    c->blas_threads = 1;
  b->base.timeout_s = c->timeout_s;
  b->base.world = 1;
  b->t0_us = g_get_monotonic_time ();
  g_mutex_init (&b->lock);
  g_cond_init (&b->wake);
  b->buffers = g_ptr_array_new_with_free_func (buffer_destroy);
  b->streams = g_ptr_array_new_with_free_func (stream_destroy);
  b->events = g_ptr_array_new_with_free_func (event_destroy);
  b->groups = g_ptr_array_new ();

#if EXEC_HAVE_OPENBLAS_THREADS
  /* OpenBLAS starts one thread per core; with one rank per core that oversubscribes. */
  openblas_set_num_threads (c->blas_threads);
#endif

  gboolean want_mpi = c->mpi == EXEC_MPI_ON || (c->mpi == EXEC_MPI_AUTO && launched_by_mpi ());
  if (want_mpi)
    {
#if HAVE_MPI
      if (!cpu_open_mpi (b, error))
        {
          cpu_close (&b->base);
          return NULL;
        }
#else
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
                   "this process was started by an MPI launcher, but the cpu backend was "
                   "built without MPI (install libopenmpi-dev and reconfigure)");
      cpu_close (&b->base);
      return NULL;
#endif
    }
  if (b->use_mpi && c->progress_us > 0)
    b->progress = g_thread_new ("exec-progress", progress_main, b);
  return &b->base;
}

const ExecBackendOps exec_cpu_ops = {
  .name = "cpu",
  .available = cpu_available,
  .open = cpu_open,
  .close = cpu_close,
  .abort = cpu_abort,
  .buffer_new = cpu_buffer_new,
  .buffer_free = cpu_buffer_free,
  .buffer_upload = cpu_buffer_upload,
  .buffer_download = cpu_buffer_download,
  .stream_new = cpu_stream_new,
  .stream_free = cpu_stream_free,
  .stream_synchronize = cpu_stream_synchronize,
  .event_new = cpu_event_new,
  .event_free = cpu_event_free,
  .event_record = cpu_event_record,
  .event_wait = cpu_event_wait,
  .event_synchronize = cpu_event_synchronize,
  .event_query = cpu_event_query,
  .event_time = cpu_event_time,
  .gemm = cpu_gemm,
  .kernels = &exec_kernels_cpu,
  .group_new = cpu_group_new,
  .group_free = cpu_group_free,
  .collective = cpu_collective,
};
