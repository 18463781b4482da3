/* exec/backend-cpu.c - the CPU reference backend: OpenBLAS for GEMM, host memory for
 * buffers, opening and closing MPI, and the ops table. Streams and events are in
 * backend-cpu-stream.c, groups and collectives (Open MPI) in backend-cpu-coll.c.
 *
 * Compute runs synchronously on the calling thread, so a compute stream has nothing
 * outstanding; communication is posted non-blocking and completes later. */
#include "exec/backend-cpu-private.h"
#include "exec/layers.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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


/* ---- buffers -------------------------------------------------------------------------- */

static void
buffer_destroy (gpointer data)
{
  ExecBuffer *buf = data;
  cpu_backend (buf->backend)->buffer_bytes -= buf->bytes;
  free (buf->data);
  g_free (buf);
}

static ExecBuffer *
cpu_buffer_new (ExecBackend *base, gsize bytes, GError **error)
{
  CpuBackend *b = cpu_backend (base);
  /* Past the host's memory a buffer can only end in the OOM killer (zeroing touches every
   * page) or, where the kernel refuses it, in GLib's abort: g_aligned_alloc0 aborts on
   * failure (tandem run --model llama3-405b on one rank asked for 1.6 TB and died on
   * SIGTRAP). Refused here instead, and the allocation itself may fail too; the error
   * reaches the user as "does not fit". */
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  guint64 host = pages > 0 && page > 0 ? (guint64) pages * (guint64) page : G_MAXUINT64;
  /* The ranks on this host share its memory: each gets its part, as the plan's ranks hold
   * alike (two ranks of llama3-8b at TP 2 each checked against the whole host, together
   * asked for 32 GB of 25 and the kernel killed one, no row stored) */
  const guint64 local = MAX (base->local_ranks, 1);
  const guint64 share = host == G_MAXUINT64 ? host : host / local;
  if (bytes > share || b->buffer_bytes > share - bytes)
    {
      if (local > 1)
        g_set_error (error, EXEC_ERROR, EXEC_ERROR_MEMORY, "cannot allocate %"
                     G_GSIZE_FORMAT " bytes of host memory: with the %" G_GUINT64_FORMAT
                     " bytes this rank holds already, more than its share of this host's %"
                     G_GUINT64_FORMAT " with %" G_GUINT64_FORMAT " ranks on it (%"
                     G_GUINT64_FORMAT " each)", bytes, b->buffer_bytes, host, local, share);
      else
        g_set_error (error, EXEC_ERROR, EXEC_ERROR_MEMORY, "cannot allocate %"
                     G_GSIZE_FORMAT " bytes of host memory: with the %" G_GUINT64_FORMAT
                     " bytes this rank holds already, more than this host's %"
                     G_GUINT64_FORMAT, bytes, b->buffer_bytes, host);
      return NULL;
    }
  void *data = NULL;
  if (posix_memalign (&data, CPU_ALIGN, MAX (bytes, 1)) != 0)
    data = NULL;
  else
    memset (data, 0, MAX (bytes, 1));
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
  b->buffer_bytes += bytes;
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
                   "the cpu backend multiplies float32 only, not %s (BF16 and FP8 GEMMs "
                   "need the cuda backend)", exec_dtype_name (op->dtype));
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
  (void) clean;   /* read only by the MPI paths below */
  g_mutex_lock (&b->lock);
  cpu_beats_stop (b);
  g_clear_pointer (&b->events, g_ptr_array_unref);   /* before the streams they point into */
  g_clear_pointer (&b->streams, g_ptr_array_unref);
  g_clear_pointer (&b->buffers, g_ptr_array_unref);
  for (guint i = 0; i < b->groups->len; i++)
    {
      CpuGroup *g = g_ptr_array_index (b->groups, i);
#if HAVE_MPI
      if (!clean)
        g->comm = MPI_COMM_NULL;   /* abandoned with its outstanding requests */
#endif
      cpu_group_destroy (b, g);
    }
  g_clear_pointer (&b->groups, g_ptr_array_unref);
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
    {
      g_mutex_lock (&b->lock);   /* not while the progress thread is inside MPI */
      MPI_Abort (b->world, code);
      g_mutex_unlock (&b->lock);
    }
#endif
  /* without MPI there are no other ranks to end: return to the caller */
}

#if HAVE_MPI
static gboolean
cpu_open_mpi (CpuBackend *b, GError **error)
{
  ExecMpiWorld w;
  if (!exec_mpi_world_open (&w, "cpu", error))
    return FALSE;
  b->own_mpi = w.own_mpi;
  b->world = w.world;
  b->base.rank = w.rank;
  b->base.world = w.size;
  b->base.local_rank = w.local_rank;
  b->base.local_ranks = w.local_size;
  b->use_mpi = TRUE;
  if (w.provided < MPI_THREAD_SERIALIZED)
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
  b->streams = g_ptr_array_new_with_free_func (cpu_stream_destroy);
  b->events = g_ptr_array_new_with_free_func (cpu_event_destroy);
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
  cpu_beats_start (b);
  if (b->use_mpi && c->progress_us > 0)
    b->progress = g_thread_new ("exec-progress", cpu_progress_main, b);
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
  .progress_publish = cpu_progress_publish,
  .progress_peer = cpu_progress_peer,
};
