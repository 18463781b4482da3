/* exec/backend-cpu-stream.c - the CPU backend's streams and events, and the progress
 * engine behind them: a stream is the ordered list of its outstanding MPI requests, an
 * event a position in it, and waiting polls with MPI_Test until the requests before that
 * position are done or timeout_s has passed (MPI_Wait could block forever on a dead or
 * hung peer). A progress thread tests outstanding requests every progress_us, so that
 * Open MPI's non-blocking collectives advance while the host computes. */
#include "exec/backend-cpu-private.h"

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
                  g_autofree char *what = g_strdup_printf ("%s on group '%s', stream '%s'",
                                                           op->name, op->group, s->base.name);
                  exec_mpi_error (&s->error, rc, "MPI_Test", what);
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

/* ---- progress beats ------------------------------------------------------------------ */

#define BEAT_TAG 7301

/* A quarter of the timeout, between 20 ms and 1 s: several beats per timeout, so one that
 * comes late does not make a live peer look dead. */
void
cpu_beats_start (CpuBackend *b)
{
  int n = b->base.world;
  b->peer = g_new0 (ExecProgress, n);
  b->peer_beat_us = g_new0 (gint64, n);
  b->peer_change_us = g_new0 (gint64, n);
  for (int r = 0; r < n; r++)
    b->peer_beat_us[r] = b->peer_change_us[r] = b->t0_us;
#if HAVE_MPI
  if (!b->use_mpi || n < 2 || b->base.config.progress_us < 0
      || MPI_Comm_dup (b->world, &b->beat_comm) != MPI_SUCCESS)
    return;
  MPI_Comm_set_errhandler (b->beat_comm, MPI_ERRORS_RETURN);
  b->beat_req = g_new (MPI_Request, n);
  for (int r = 0; r < n; r++)
    b->beat_req[r] = MPI_REQUEST_NULL;
  b->beat_buf = g_new0 (ExecProgress, n);
  b->beat_us = CLAMP ((gint64) (b->base.timeout_s * 1e6 / 4), 20000, 1000000);
  b->next_beat_us = g_get_monotonic_time ();
#endif
}

void
cpu_beats_tick (CpuBackend *b, gboolean receive)
{
#if HAVE_MPI
  if (b->beat_us <= 0)
    return;
  gint64 now = g_get_monotonic_time ();
  if (now < b->next_beat_us && !receive)
    return;   /* the thread polls every progress_us: beats cost nothing in between */
  if (now >= b->next_beat_us)
    {
      b->next_beat_us = now + b->beat_us;
      for (int r = 0; r < b->base.world; r++)
        {
          int done = 1;
          if (r == b->base.rank)
            continue;
          if (b->beat_req[r] != MPI_REQUEST_NULL
              && MPI_Test (&b->beat_req[r], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            done = 0;
          if (!done)
            continue;   /* the last one is still on its way: a slow or gone peer */
          b->beat_buf[r] = b->mine;
          if (MPI_Isend (&b->beat_buf[r], sizeof (ExecProgress), MPI_BYTE, r, BEAT_TAG,
                         b->beat_comm, &b->beat_req[r]) != MPI_SUCCESS)
            b->beat_req[r] = MPI_REQUEST_NULL;
        }
    }
  for (;;)
    {
      int flag = 0;
      MPI_Status st;
      if (MPI_Iprobe (MPI_ANY_SOURCE, BEAT_TAG, b->beat_comm, &flag, &st) != MPI_SUCCESS
          || !flag)
        break;
      ExecProgress p;
      if (MPI_Recv (&p, sizeof p, MPI_BYTE, st.MPI_SOURCE, BEAT_TAG, b->beat_comm,
                    MPI_STATUS_IGNORE) != MPI_SUCCESS)
        break;
      int r = st.MPI_SOURCE;
      if (r < 0 || r >= b->base.world)
        continue;
      p.what[sizeof p.what - 1] = '\0';
      now = g_get_monotonic_time ();
      if (p.count != b->peer[r].count)
        b->peer_change_us[r] = now;
      b->peer[r] = p;
      b->peer_beat_us[r] = now;
    }
#else
  (void) b;
  (void) receive;
#endif
}

void
cpu_beats_stop (CpuBackend *b)
{
#if HAVE_MPI
  if (b->beat_us > 0)
    {
      /* a beat still in flight completes on its own (a few bytes, sent eagerly) */
      for (int r = 0; r < b->base.world; r++)
        if (b->beat_req[r] != MPI_REQUEST_NULL)
          MPI_Request_free (&b->beat_req[r]);
      cpu_beats_tick (b, TRUE);   /* take in what came */
      b->beat_us = 0;
      MPI_Comm_free (&b->beat_comm);
    }
  g_clear_pointer (&b->beat_req, g_free);
  g_clear_pointer (&b->beat_buf, g_free);
#endif
  b->beat_us = 0;
  g_clear_pointer (&b->peer, g_free);
  g_clear_pointer (&b->peer_beat_us, g_free);
  g_clear_pointer (&b->peer_change_us, g_free);
}

void
cpu_progress_publish (ExecBackend *base, const ExecProgress *mine)
{
  CpuBackend *b = cpu_backend (base);
  g_mutex_lock (&b->lock);
  b->mine = *mine;
  g_mutex_unlock (&b->lock);
}

gboolean
cpu_progress_peer (ExecBackend *base, int rank, ExecPeerProgress *out)
{
  CpuBackend *b = cpu_backend (base);
  gboolean ok = FALSE;
  g_mutex_lock (&b->lock);
  if (rank == b->base.rank)
    {
      out->p = b->mine;
      out->heard = TRUE;
      ok = TRUE;
    }
  else if (b->beat_us > 0 && b->peer != NULL)
    {
      cpu_beats_tick (b, TRUE);
      gint64 now = g_get_monotonic_time ();
      out->p = b->peer[rank];
      out->heard = b->peer_beat_us[rank] > b->t0_us;
      out->beat_age_s = (now - b->peer_beat_us[rank]) * 1e-6;
      out->change_age_s = (now - b->peer_change_us[rank]) * 1e-6;
      out->period_s = b->beat_us * 1e-6;
      ok = TRUE;
    }
  g_mutex_unlock (&b->lock);
  return ok;
}

/* The progress thread: while anything is outstanding, test it every progress_us; beats
 * every beat_us. */
gpointer
cpu_progress_main (gpointer data)
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
      cpu_beats_tick (b, FALSE);
      if (!busy)
        {
          if (b->beat_us > 0)
            g_cond_wait_until (&b->wake, &b->lock, b->next_beat_us);
          else
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

/* ---- streams and events --------------------------------------------------------------- */

void
cpu_stream_destroy (gpointer data)
{
  CpuStream *s = data;
  CpuBackend *b = cpu_backend (s->base.backend);
  for (guint i = 0; b->events && i < b->events->len; i++)
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

ExecStream *
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

void
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

gboolean
cpu_stream_synchronize (ExecBackend *base, ExecStream *stream, GError **error)
{
  return cpu_stream_wait (cpu_backend (base), (CpuStream *) stream, G_MAXUINT64, error);
}

static void
event_detach (CpuEvent *e)
{
  if (e->stream)
    e->stream->events = g_list_remove (e->stream->events, e);
  e->stream = NULL;
}

void
cpu_event_destroy (gpointer data)
{
  CpuEvent *e = data;
  event_detach (e);
  g_free (e);
}

ExecEvent *
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

void
cpu_event_free (ExecBackend *base, ExecEvent *event)
{
  CpuBackend *b = cpu_backend (base);
  if (!event)
    return;
  g_mutex_lock (&b->lock);
  g_ptr_array_remove_fast (b->events, event);
  g_mutex_unlock (&b->lock);
}

gboolean
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
gboolean
cpu_event_wait (ExecBackend *base, ExecStream *stream, ExecEvent *event, GError **error)
{
  if (!event_wait_host (cpu_backend (base), (CpuEvent *) event, error))
    {
      g_prefix_error (error, "stream '%s' waiting for an event: ", stream->name);
      return FALSE;
    }
  return TRUE;
}

gboolean
cpu_event_synchronize (ExecBackend *base, ExecEvent *event, GError **error)
{
  return event_wait_host (cpu_backend (base), (CpuEvent *) event, error);
}

gboolean
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

gboolean
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
