/* exec/backend-cuda-stream.c - the CUDA backend's streams, events and clock.
 *
 * Streams are non-blocking CUDA streams (no implicit ordering with the legacy default
 * stream); communication streams get the device's highest priority, so that a collective
 * queued behind compute starts as soon as its inputs are ready (Megatron-LM does the
 * same for its NCCL streams). Every wait polls cudaStreamQuery / cudaEventQuery with a
 * growing nap, so it can give up after timeout_s and report an asynchronous NCCL error
 * (a dead peer) instead of blocking forever in cudaStreamSynchronize.
 *
 * The clock: an origin event recorded at open is time 0. cudaEventElapsedTime gives FP32
 * milliseconds (resolution about 0.5 us, CUDA runtime API reference), which would lose
 * microseconds after ~10 s from a single origin, so a new anchor event is recorded every
 * CUDA_ANCHOR_PERIOD_S and each event is measured from its anchor; anchors are chained to
 * the origin once, in double. */
#include "exec/backend-cuda-private.h"

/* ---- clock --------------------------------------------------------------------------- */

gboolean
cuda_clock_init (CudaBackend *b, GError **error)
{
  CudaAnchor origin = { .resolved = TRUE, .offset_s = 0 };
  EXEC_CUDA_TRY (cudaEventCreate (&origin.ev), error);
  g_array_append_val (b->anchors, origin);   /* owned by the array from here on */
  EXEC_CUDA_TRY (cudaEventRecord (origin.ev, b->copy_stream), error);
  EXEC_CUDA_TRY (cudaEventSynchronize (origin.ev), error);
  /* host clock and device clock share (about) the same zero */
  b->t0_us = b->anchor_us = g_get_monotonic_time ();
  return TRUE;
}

void
cuda_clock_clear (CudaBackend *b)
{
  for (guint i = 0; b->anchors && i < b->anchors->len; i++)
    cudaEventDestroy (g_array_index (b->anchors, CudaAnchor, i).ev);
  for (guint i = 0; b->event_pool && i < b->event_pool->len; i++)
    cudaEventDestroy (g_array_index (b->event_pool, cudaEvent_t, i));
  g_clear_pointer (&b->anchors, g_array_unref);
  g_clear_pointer (&b->event_pool, g_array_unref);
}

gboolean
cuda_mark_init (CudaBackend *b, CudaMark *m, GError **error)
{
  m->anchor = 0;
  if (b->event_pool->len > 0)
    {
      m->ev = g_array_index (b->event_pool, cudaEvent_t, b->event_pool->len - 1);
      g_array_set_size (b->event_pool, b->event_pool->len - 1);
      return TRUE;
    }
  EXEC_CUDA_TRY (cudaEventCreate (&m->ev), error);   /* timing enabled */
  return TRUE;
}

void
cuda_mark_clear (CudaBackend *b, CudaMark *m)
{
  if (!m->ev)
    return;
  /* re-recording an event that is still pending is allowed: later waits see the new one */
  if (b->event_pool)
    g_array_append_val (b->event_pool, m->ev);
  else
    cudaEventDestroy (m->ev);
  m->ev = NULL;
}

gboolean
cuda_mark_record (CudaBackend *b, CudaMark *m, CudaStream *s, GError **error)
{
  gint64 now = g_get_monotonic_time ();
  if ((double) (now - b->anchor_us) * 1e-6 > CUDA_ANCHOR_PERIOD_S)
    {
      /* on the same stream just before the mark, so the mark's elapsed time is >= 0 */
      CudaAnchor a = { 0 };
      EXEC_CUDA_TRY (cudaEventCreate (&a.ev), error);
      cudaError_t rc = cudaEventRecord (a.ev, s->stream);
      if (rc != cudaSuccess)
        {
          cudaEventDestroy (a.ev);
          return exec_set_cuda_error (error, rc, "cudaEventRecord", "timing anchor");
        }
      g_array_append_val (b->anchors, a);
      b->anchor_us = now;
    }
  m->anchor = b->anchors->len - 1;
  EXEC_CUDA_TRY (cudaEventRecord (m->ev, s->stream), error);
  return TRUE;
}

/* Gives anchors 1..k that have completed their offset from the nearest resolved anchor
 * before them (the origin always is). */
static void
anchors_resolve (CudaBackend *b, guint k)
{
  for (guint i = 1; i <= k && i < b->anchors->len; i++)
    {
      CudaAnchor *a = &g_array_index (b->anchors, CudaAnchor, i);
      if (a->resolved || cudaEventQuery (a->ev) != cudaSuccess)
        continue;
      for (guint j = i; j-- > 0;)
        {
          const CudaAnchor *p = &g_array_index (b->anchors, CudaAnchor, j);
          float ms = 0;
          if (p->resolved && cudaEventElapsedTime (&ms, p->ev, a->ev) == cudaSuccess)
            {
              a->offset_s = p->offset_s + ms * 1e-3;
              a->resolved = TRUE;
              break;
            }
        }
    }
}

gboolean
cuda_mark_time (CudaBackend *b, const CudaMark *m, double *time_s, GError **error)
{
  cudaError_t rc = cudaEventQuery (m->ev);
  if (rc == cudaErrorNotReady)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "event time asked before the event completed (synchronize it first)");
      return FALSE;
    }
  if (rc != cudaSuccess)
    return exec_set_cuda_error (error, rc, "cudaEventQuery", "event time");
  anchors_resolve (b, m->anchor);
  /* its own anchor normally; an older one if that anchor sits on a stream still busy */
  for (guint j = m->anchor + 1; j-- > 0;)
    {
      const CudaAnchor *a = &g_array_index (b->anchors, CudaAnchor, j);
      float ms = 0;
      if (!a->resolved)
        continue;
      rc = cudaEventElapsedTime (&ms, a->ev, m->ev);
      if (rc == cudaSuccess)
        {
          *time_s = a->offset_s + ms * 1e-3;
          return TRUE;
        }
      if (rc != cudaErrorNotReady)
        return exec_set_cuda_error (error, rc, "cudaEventElapsedTime", "event time");
    }
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_DEVICE,
               "cudaEventElapsedTime: no completed reference event for this event");
  return FALSE;
}

/* ---- samples --------------------------------------------------------------------------- */

void
cuda_sample_free (CudaBackend *b, CudaSample *sample)
{
  if (!sample)
    return;
  cuda_mark_clear (b, &sample->start);
  cuda_mark_clear (b, &sample->end);
  g_free (sample);
}

gboolean
cuda_sample_begin (CudaBackend *b, CudaStream *s, ExecSample *out, CudaSample **sample,
                   GError **error)
{
  *sample = NULL;
  if (!out)
    return TRUE;
  CudaSample *smp = g_new0 (CudaSample, 1);
  smp->out = out;
  if (!cuda_mark_init (b, &smp->start, error) || !cuda_mark_init (b, &smp->end, error)
      || !cuda_mark_record (b, &smp->start, s, error))
    {
      cuda_sample_free (b, smp);
      return FALSE;
    }
  *sample = smp;
  return TRUE;
}

gboolean
cuda_sample_end (CudaBackend *b, CudaStream *s, CudaSample *sample, GError **error)
{
  if (!sample)
    return TRUE;
  if (!cuda_mark_record (b, &sample->end, s, error))
    {
      cuda_sample_free (b, sample);
      return FALSE;
    }
  g_queue_push_tail (&s->samples, sample);
  return TRUE;
}

/* Fills the samples of `s` whose operations have completed, in issue order. */
static void
samples_resolve (CudaBackend *b, CudaStream *s)
{
  CudaSample *smp;
  while ((smp = g_queue_peek_head (&s->samples)) && cudaEventQuery (smp->end.ev) == cudaSuccess)
    {
      double t0, t1;
      if (cuda_mark_time (b, &smp->start, &t0, NULL) && cuda_mark_time (b, &smp->end, &t1, NULL))
        {
          smp->out->start_s = t0;
          smp->out->end_s = t1;
        }
      g_queue_pop_head (&s->samples);
      cuda_sample_free (b, smp);
    }
}

/* ---- waiting --------------------------------------------------------------------------- */

gboolean
cuda_stream_check (CudaStream *s, GError **error)
{
  if (s->error)
    {
      g_propagate_error (error, g_error_copy (s->error));
      return FALSE;
    }
  return TRUE;
}

void
cuda_stream_fail (CudaStream *s, GError *take)
{
  if (!s->error)
    s->error = take;
  else
    g_error_free (take);
}

static void
set_timeout (CudaBackend *b, CudaStream *s, const char *what, GError **error)
{
  b->stuck = TRUE;
  if (s && s->last_op)
    g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT,
                 "%s on group '%s' (%d ranks, stream '%s') timed out after %g s: a peer did "
                 "not take part (missing, hung or dead)", s->last_op, s->last_group,
                 s->last_group_size, s->base.name, b->base.timeout_s);
  else
    g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT,
                 "%s%s%s timed out after %g s: a kernel did not finish, or the stream waits "
                 "on an event of another stream that did not", what, s ? " on stream " : "",
                 s ? s->base.name : "", b->base.timeout_s);
}

/* Polls `query` (cudaStreamQuery or cudaEventQuery on `obj`) until it succeeds, fails, or
 * `deadline` (cuda_now) passes; NCCL's asynchronous errors are checked every 10 ms. */
static gboolean
poll_until (CudaBackend *b, gboolean is_event, gpointer obj, CudaStream *s, const char *what,
            double deadline, GError **error)
{
  const double start = cuda_now (b);
  double next_check = start + 0.01;
  gulong nap_us = 0;
  for (;;)
    {
      cudaError_t rc = is_event ? cudaEventQuery ((cudaEvent_t) obj)
                                : cudaStreamQuery ((cudaStream_t) obj);
      if (rc == cudaSuccess)
        return TRUE;
      if (rc != cudaErrorNotReady)
        {
          exec_set_cuda_error (error, rc, is_event ? "cudaEventQuery" : "cudaStreamQuery",
                               what);
          if (s)
            g_prefix_error (error, "stream '%s': ", s->base.name);
          return FALSE;
        }
      double now = cuda_now (b);
      if (now >= next_check)
        {
          if (!cuda_nccl_check (b, error))
            {
              g_prefix_error (error, "while waiting for %s: ", what);
              return FALSE;
            }
          next_check = now + 0.01;
        }
      if (now >= deadline)
        {
          set_timeout (b, s, what, error);
          return FALSE;
        }
      /* spin (yielding) for the first millisecond, then nap up to 100 us: the host
       * thread is idle here, but a nap sleeps at least the timer slack (50 us by
       * default, prctl PR_SET_TIMERSLACK), which host-timed operations of tens of
       * microseconds (calibration's collectives on NVLink, 1 KiB - 4 MiB) took as
       * their own latency when the naps began at the second poll */
      if (now - start < 1e-3)
        {
          g_thread_yield ();
          continue;
        }
      g_usleep (nap_us == 0 ? 1 : nap_us);
      nap_us = nap_us == 0 ? 2 : MIN (nap_us * 2, 100);
    }
}

gboolean
cuda_stream_wait (CudaBackend *b, CudaStream *s, GError **error)
{
  if (!cuda_stream_check (s, error)
      || !poll_until (b, FALSE, s->stream, s, "synchronize", cuda_now (b) + b->base.timeout_s,
                      error))
    return FALSE;
  samples_resolve (b, s);
  return TRUE;
}

gboolean
cuda_wait_idle (CudaBackend *b, GError **error)
{
  double deadline = cuda_now (b) + b->base.timeout_s;
  for (guint i = 0; i < b->streams->len; i++)
    {
      CudaStream *s = g_ptr_array_index (b->streams, i);
      if (!poll_until (b, FALSE, s->stream, s, "waiting for the device", deadline, error))
        return FALSE;
      samples_resolve (b, s);
    }
  return TRUE;
}

/* ---- streams ----------------------------------------------------------------------------- */

gboolean
cuda_stream_blas (CudaBackend *b, CudaStream *s, GError **error)
{
  if (s->blas)
    return TRUE;
  cublasHandle_t h = NULL;
  EXEC_CUBLAS_TRY (cublasCreate (&h), error);
  cublasStatus_t rc = cublasSetStream (h, s->stream);
  if (rc != CUBLAS_STATUS_SUCCESS)
    {
      cublasDestroy (h);
      return exec_set_cublas_error (error, rc, "cublasSetStream", s->base.name);
    }
  s->blas = h;
  return TRUE;
}

void
cuda_stream_destroy (gpointer data)
{
  CudaStream *s = data;
  CudaBackend *b = cuda_backend (s->base.backend);
  for (guint i = 0; b->events && i < b->events->len; i++)
    {
      CudaEvent *e = g_ptr_array_index (b->events, i);
      if (e->stream == s)
        e->stream = NULL;   /* its CUDA event stays valid; it just has no stream to name */
    }
  CudaSample *smp;
  while ((smp = g_queue_pop_head (&s->samples)))
    cuda_sample_free (b, smp);
  /* cublasDestroy and cudaFree synchronise the device: not after a timeout */
  if (!b->stuck)
    {
      if (s->blas)
        cublasDestroy (s->blas);
      cudaFree (s->ints);
      for (GSList *l = s->retired; l; l = l->next)
        cudaFree (l->data);
    }
  if (s->stream)
    cudaStreamDestroy (s->stream);   /* returns at once; queued work still completes */
  g_slist_free (s->retired);
  g_clear_error (&s->error);
  g_free (s->last_group);
  g_free (s->base.name);
  g_free (s);
}

static gboolean
stream_create (CudaStream *s, GError **error)
{
  int least = 0, greatest = 0;
  EXEC_CUDA_TRY (cudaDeviceGetStreamPriorityRange (&least, &greatest), error);
  int prio = s->base.kind == EXEC_STREAM_COMM ? greatest : least;
  EXEC_CUDA_TRY (cudaStreamCreateWithPriority (&s->stream, cudaStreamNonBlocking, prio), error);
  return TRUE;
}

ExecStream *
cuda_stream_new (ExecBackend *base, ExecStreamKind kind, const char *name, GError **error)
{
  CudaBackend *b = cuda_backend (base);
  CudaStream *s = g_new0 (CudaStream, 1);
  s->base.backend = base;
  s->base.kind = kind;
  s->base.name = g_strdup (name ? name : kind == EXEC_STREAM_COMPUTE ? "compute" : "comm");
  g_queue_init (&s->samples);
  g_ptr_array_add (b->streams, s);   /* destroyed by the array from here on */
  /* compute streams get their cuBLAS handle now: cublasCreate is slow, keep it off steps */
  if (!stream_create (s, error)
      || (kind == EXEC_STREAM_COMPUTE && !cuda_stream_blas (b, s, error)))
    {
      g_prefix_error (error, "creating stream '%s': ", s->base.name);
      g_ptr_array_remove_fast (b->streams, s);
      return NULL;
    }
  return &s->base;
}

void
cuda_stream_free (ExecBackend *base, ExecStream *stream)
{
  CudaBackend *b = cuda_backend (base);
  CudaStream *s = (CudaStream *) stream;
  if (!s)
    return;
  /* samples still point into the caller's memory: fill them now */
  if (!b->stuck && s->samples.length)
    cuda_stream_wait (b, s, NULL);
  /* cublasDestroy and cudaFree would wait for the device without a limit */
  if (!b->stuck && (s->blas || s->ints))
    cuda_wait_idle (b, NULL);
  g_ptr_array_remove_fast (b->streams, s);
}

gboolean
cuda_stream_synchronize (ExecBackend *base, ExecStream *stream, GError **error)
{
  return cuda_stream_wait (cuda_backend (base), (CudaStream *) stream, error);
}

/* ---- events ------------------------------------------------------------------------------ */

void
cuda_event_destroy (gpointer data)
{
  CudaEvent *e = data;
  cuda_mark_clear (cuda_backend (e->base.backend), &e->mark);
  g_free (e);
}

ExecEvent *
cuda_event_new (ExecBackend *base, GError **error)
{
  CudaBackend *b = cuda_backend (base);
  CudaEvent *e = g_new0 (CudaEvent, 1);
  e->base.backend = base;
  if (!cuda_mark_init (b, &e->mark, error))
    {
      g_free (e);
      return NULL;
    }
  g_ptr_array_add (b->events, e);
  return &e->base;
}

void
cuda_event_free (ExecBackend *base, ExecEvent *event)
{
  if (event)
    g_ptr_array_remove_fast (cuda_backend (base)->events, event);
}

gboolean
cuda_event_record (ExecBackend *base, ExecEvent *event, ExecStream *stream, GError **error)
{
  CudaEvent *e = (CudaEvent *) event;
  CudaStream *s = (CudaStream *) stream;
  if (!cuda_mark_record (cuda_backend (base), &e->mark, s, error))
    {
      g_prefix_error (error, "recording an event on stream '%s': ", stream->name);
      return FALSE;
    }
  e->stream = s;
  return TRUE;
}

gboolean
cuda_event_wait (ExecBackend *base, ExecStream *stream, ExecEvent *event, GError **error)
{
  CudaEvent *e = (CudaEvent *) event;
  CudaStream *s = (CudaStream *) stream;
  if (!e->stream)
    return TRUE;   /* never recorded: nothing to wait for (cudaStreamWaitEvent agrees) */
  cudaError_t rc = cudaStreamWaitEvent (s->stream, e->mark.ev, 0);
  if (rc != cudaSuccess)
    {
      exec_set_cuda_error (error, rc, "cudaStreamWaitEvent", G_STRLOC);
      g_prefix_error (error, "stream '%s' waiting for an event of stream '%s': ", stream->name,
                      e->stream->base.name);
      return FALSE;
    }
  return TRUE;
}

gboolean
cuda_event_synchronize (ExecBackend *base, ExecEvent *event, GError **error)
{
  CudaBackend *b = cuda_backend (base);
  CudaEvent *e = (CudaEvent *) event;
  if (!e->stream)
    return TRUE;
  if (!cuda_stream_check (e->stream, error)
      || !poll_until (b, TRUE, e->mark.ev, e->stream, "an event", cuda_now (b) + b->base.timeout_s,
                      error))
    return FALSE;
  samples_resolve (b, e->stream);
  return TRUE;
}

gboolean
cuda_event_query (ExecBackend *base, ExecEvent *event, gboolean *done, GError **error)
{
  CudaBackend *b = cuda_backend (base);
  CudaEvent *e = (CudaEvent *) event;
  *done = TRUE;
  if (!e->stream)
    return TRUE;
  if (!cuda_stream_check (e->stream, error) || !cuda_nccl_check (b, error))
    return FALSE;
  cudaError_t rc = cudaEventQuery (e->mark.ev);
  if (rc == cudaErrorNotReady)
    {
      *done = FALSE;
      return TRUE;
    }
  if (rc != cudaSuccess)
    return exec_set_cuda_error (error, rc, "cudaEventQuery", e->stream->base.name);
  samples_resolve (b, e->stream);
  return TRUE;
}

gboolean
cuda_event_time (ExecBackend *base, ExecEvent *event, double *time_s, GError **error)
{
  CudaEvent *e = (CudaEvent *) event;
  if (!e->stream)
    {
      *time_s = 0;   /* never recorded: the CPU backend says 0 too */
      return TRUE;
    }
  return cuda_mark_time (cuda_backend (base), &e->mark, time_s, error);
}
