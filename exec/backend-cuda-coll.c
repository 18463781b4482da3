/* exec/backend-cuda-coll.c - groups (ncclCommSplit of the world communicator) and
 * collectives (ncclAllReduce, ncclReduceScatter, ncclAllGather; ncclSend / ncclRecv for
 * all-to-all and point-to-point) on the CUDA backend.
 *
 * A group is its own communicator, split from the world with the layout's colour and the
 * member index as key, so NCCL's rank in it is the index in ExecGroup.members and peers
 * are member indices as on the CPU. All-to-all is one NCCL group of a send and a receive
 * per member (nccl-tests src/alltoall.cu does the same); SEND_RECV is one NCCL group of
 * the send and the receive, so a ring of them cannot deadlock. */
#include "exec/backend-cuda-private.h"

#include <string.h>

/* ---- NCCL state -------------------------------------------------------------------------- */

gboolean
cuda_nccl_settle (CudaBackend *b, ncclComm_t comm, ncclResult_t rc, const char *call,
                  const char *what, GError **error)
{
  double deadline = cuda_now (b) + b->base.timeout_s;
  gulong nap_us = 1;
  while (rc == ncclInProgress)
    {
      if (cuda_now (b) >= deadline)
        {
          b->stuck = TRUE;
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT,
                       "%s (%s) timed out after %g s: a peer did not take part (missing, "
                       "hung or dead)", call, what, b->base.timeout_s);
          return FALSE;
        }
      g_usleep (nap_us);
      nap_us = MIN (nap_us * 2, 1000);
      ncclResult_t state = ncclSuccess;
      ncclResult_t q = ncclCommGetAsyncError (comm, &state);
      if (q != ncclSuccess)
        return exec_set_nccl_error (error, q, "ncclCommGetAsyncError", what);
      rc = state;
    }
  if (rc != ncclSuccess)
    return exec_set_nccl_error (error, rc, call, what);
  return TRUE;
}

static gboolean
comm_check (ncclComm_t comm, const char *name, GError **error)
{
  ncclResult_t state = ncclSuccess;
  ncclResult_t q = ncclCommGetAsyncError (comm, &state);
  if (q != ncclSuccess)
    return exec_set_nccl_error (error, q, "ncclCommGetAsyncError", name);
  if (state != ncclSuccess && state != ncclInProgress)
    {
      exec_set_nccl_error (error, state, "NCCL (asynchronous)", name);
      g_prefix_error (error, "communicator of group '%s' failed: ", name);
      return FALSE;
    }
  return TRUE;
}

gboolean
cuda_nccl_check (CudaBackend *b, GError **error)
{
  if (b->world_comm && !comm_check (b->world_comm, "world", error))
    return FALSE;
  for (guint i = 0; b->groups && i < b->groups->len; i++)
    {
      CudaGroup *g = g_ptr_array_index (b->groups, i);
      if (g->comm && !comm_check (g->comm, g->base.name, error))
        return FALSE;
    }
  return TRUE;
}

void
cuda_nccl_release (CudaBackend *b, ncclComm_t comm, gboolean abort)
{
  if (!comm)
    return;
  if (abort || b->stuck)
    {
      ncclCommAbort (comm);   /* does not wait for peers */
      return;
    }
  if (!b->nccl_blocking)
    {
      /* ncclCommFinalize waits for every member to finalize too (nccl.h): bounded here */
      if (!cuda_nccl_settle (b, comm, ncclCommFinalize (comm), "ncclCommFinalize", "close",
                             NULL))
        {
          ncclCommAbort (comm);
          return;
        }
    }
  ncclCommDestroy (comm);
}

/* ---- groups ------------------------------------------------------------------------------ */

void
cuda_group_destroy (CudaBackend *b, CudaGroup *g, gboolean abort)
{
  cuda_nccl_release (b, g->comm, abort);
  g_free (g->base.name);
  g_free (g->base.members);
  g_free (g);
}

static gboolean
group_split (CudaBackend *b, CudaGroup *g, GError **error)
{
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = b->nccl_blocking ? 1 : 0;
  ncclResult_t rc = ncclCommSplit (b->world_comm, g->base.color, g->base.rank, &g->comm,
                                   &config);
  /* a non-blocking split hands back the new communicator at once, still in progress */
  if (!cuda_nccl_settle (b, g->comm ? g->comm : b->world_comm, rc, "ncclCommSplit",
                         g->base.name, error))
    return FALSE;
  int n = 0, r = -1;
  if (!cuda_nccl_settle (b, g->comm, ncclCommCount (g->comm, &n), "ncclCommCount",
                         g->base.name, error)
      || !cuda_nccl_settle (b, g->comm, ncclCommUserRank (g->comm, &r), "ncclCommUserRank",
                            g->base.name, error))
    return FALSE;
  if (n != g->base.size || r != g->base.rank)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "group '%s': ncclCommSplit gave %d ranks (this one %d) where the layout "
                   "lists %d (this one %d): ranks disagree on the layout", g->base.name, n, r,
                   g->base.size, g->base.rank);
      return FALSE;
    }
  return TRUE;
}

ExecGroup *
cuda_group_new (ExecBackend *base, const char *name, int color, const int *members,
                int n_members, GError **error)
{
  CudaBackend *b = cuda_backend (base);
  CudaGroup *g = g_new0 (CudaGroup, 1);
  g->base.backend = base;
  g->base.name = g_strdup (name);
  g->base.size = n_members;
  g->base.color = color;
  g->base.members = g_memdup2 (members, sizeof (int) * (gsize) MAX (n_members, 1));
  g->base.rank = -1;
  for (int i = 0; i < n_members; i++)
    if (members[i] == base->rank)
      g->base.rank = i;
  if (g->base.rank < 0 || n_members < 1)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "group '%s': rank %d is not among its %d members", name, base->rank,
                   n_members);
      cuda_group_destroy (b, g, FALSE);
      return NULL;
    }
  if (!group_split (b, g, error))
    {
      g_prefix_error (error, "creating group '%s' (colour %d, %d members): ", name, color,
                      n_members);
      cuda_group_destroy (b, g, TRUE);
      return NULL;
    }
  g_ptr_array_add (b->groups, g);
  return &g->base;
}

void
cuda_group_free (ExecBackend *base, ExecGroup *group)
{
  CudaBackend *b = cuda_backend (base);
  if (!group)
    return;
  /* collectives still queued on it must finish before its communicator goes */
  if (!b->stuck)
    cuda_wait_idle (b, NULL);
  if (g_ptr_array_remove_fast (b->groups, group))
    cuda_group_destroy (b, (CudaGroup *) group, b->stuck);
}

/* ---- collectives ------------------------------------------------------------------------ */

static gboolean
overlap (const void *a, gsize a_bytes, const void *b, gsize b_bytes)
{
  const char *x = a, *y = b;
  return a_bytes && b_bytes && x < y + b_bytes && y < x + a_bytes;
}

static gboolean
nccl_type (ExecDtype dtype, ncclDataType_t *t)
{
  switch (dtype)
    {
    case EXEC_DTYPE_F32:  *t = ncclFloat32; return TRUE;
    case EXEC_DTYPE_BF16: *t = ncclBfloat16; return TRUE;
    case EXEC_DTYPE_F16:  *t = ncclFloat16; return TRUE;
    case EXEC_DTYPE_FP8_E4M3:
    case EXEC_DTYPE_FP8_E5M2:
      return FALSE;   /* no FP8 collectives: gradients and activations travel in bf16/fp32 */
    }
  return FALSE;
}

static gboolean
check_op (const ExecGroup *g, const ExecColl *op, ncclDataType_t *t, GError **error)
{
  const char *name = exec_coll_name (op->kind);
  if ((guint) op->kind >= EXEC_COLL_N)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "unknown collective %d", op->kind);
      return FALSE;
    }
  if (!nccl_type (op->dtype, t))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "%s on group '%s': unknown dtype %d",
                   name, g->name, op->dtype);
      return FALSE;
    }
  if (op->kind == EXEC_COLL_ALL_TO_ALLV
      && !exec_coll_alltoallv_check (g, op, exec_dtype_size (op->dtype), error))
    return FALSE;
  gboolean p2p = op->kind >= EXEC_COLL_SEND && op->kind <= EXEC_COLL_SEND_RECV;
  if (p2p && (op->peer < 0 || op->peer >= g->size
              || (op->kind == EXEC_COLL_SEND_RECV
                  && (op->recv_peer < 0 || op->recv_peer >= g->size))))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s on group '%s': peer %d (from %d) is not a member index 0..%d", name,
                   g->name, op->peer, op->recv_peer, g->size - 1);
      return FALSE;
    }
  if (g->size == 1 && (op->kind == EXEC_COLL_SEND || op->kind == EXEC_COLL_RECV))
    {
      /* NCCL matches a send to oneself only with a receive in the same group call */
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s on group '%s': a group of one has nobody to talk to", name, g->name);
      return FALSE;
    }
  gsize n = (gsize) g->size, bytes = op->count * exec_dtype_size (op->dtype);
  if ((op->kind == EXEC_COLL_REDUCE_SCATTER && overlap (op->send, bytes * n, op->recv, bytes))
      || (op->kind == EXEC_COLL_ALL_TO_ALL && overlap (op->send, bytes * n, op->recv, bytes * n))
      || (op->kind == EXEC_COLL_SEND_RECV && overlap (op->send, bytes, op->recv, bytes)))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s on group '%s': send and receive buffers overlap", name, g->name);
      return FALSE;
    }
  return TRUE;
}

/* Ends a NCCL group call whatever happened inside it: the first failure wins. */
static ncclResult_t
group_end (ncclResult_t inner, const char **call, const char *inner_call)
{
  ncclResult_t end = ncclGroupEnd ();
  if (inner != ncclSuccess && inner != ncclInProgress)
    {
      *call = inner_call;
      return inner;
    }
  *call = "ncclGroupEnd";
  return end;
}

/* Queues `op` on `st`; the result may be ncclInProgress (non-blocking communicators). */
static ncclResult_t
post (const CudaGroup *g, const ExecColl *op, ncclDataType_t t, cudaStream_t st,
      const char **call)
{
  ncclComm_t c = g->comm;
  size_t n = op->count;
  gsize step = op->count * exec_dtype_size (op->dtype);
  ncclResult_t rc = ncclSuccess;
  switch (op->kind)
    {
    case EXEC_COLL_ALL_REDUCE:
      *call = "ncclAllReduce";
      return ncclAllReduce (op->send, op->recv, n, t, ncclSum, c, st);
    case EXEC_COLL_REDUCE_SCATTER:
      *call = "ncclReduceScatter";
      return ncclReduceScatter (op->send, op->recv, n, t, ncclSum, c, st);
    case EXEC_COLL_ALL_GATHER:
      *call = "ncclAllGather";   /* in place when send == recv + rank x count */
      return ncclAllGather (op->send, op->recv, n, t, c, st);
    case EXEC_COLL_ALL_TO_ALL:
      *call = "ncclGroupStart";
      if ((rc = ncclGroupStart ()) != ncclSuccess)
        return rc;
      for (int p = 0; p < g->base.size && (rc == ncclSuccess || rc == ncclInProgress); p++)
        {
          rc = ncclSend ((const char *) op->send + (gsize) p * step, n, t, p, c, st);
          if (rc == ncclSuccess || rc == ncclInProgress)
            rc = ncclRecv ((char *) op->recv + (gsize) p * step, n, t, p, c, st);
        }
      return group_end (rc, call, "ncclSend/ncclRecv (all-to-all)");
    case EXEC_COLL_ALL_TO_ALLV:
      {
        gsize es = exec_dtype_size (op->dtype);
        *call = "ncclGroupStart";
        if ((rc = ncclGroupStart ()) != ncclSuccess)
          return rc;
        for (int p = 0; p < g->base.size && (rc == ncclSuccess || rc == ncclInProgress); p++)
          {
            if (op->send_counts[p] > 0)
              rc = ncclSend ((const char *) op->send + (gsize) op->send_displs[p] * es,
                             (size_t) op->send_counts[p], t, p, c, st);
            if ((rc == ncclSuccess || rc == ncclInProgress) && op->recv_counts[p] > 0)
              rc = ncclRecv ((char *) op->recv + (gsize) op->recv_displs[p] * es,
                             (size_t) op->recv_counts[p], t, p, c, st);
          }
        return group_end (rc, call, "ncclSend/ncclRecv (all-to-allv)");
      }
    case EXEC_COLL_SEND:
      *call = "ncclSend";
      return ncclSend (op->send, n, t, op->peer, c, st);
    case EXEC_COLL_RECV:
      *call = "ncclRecv";
      return ncclRecv (op->recv, n, t, op->peer, c, st);
    case EXEC_COLL_SEND_RECV:
      *call = "ncclGroupStart";
      if ((rc = ncclGroupStart ()) != ncclSuccess)
        return rc;
      rc = ncclSend (op->send, n, t, op->peer, c, st);
      if (rc == ncclSuccess || rc == ncclInProgress)
        rc = ncclRecv (op->recv, n, t, op->recv_peer, c, st);
      return group_end (rc, call, "ncclSend/ncclRecv (send_recv)");
    default:
      g_assert_not_reached ();
    }
}

gboolean
cuda_collective (ExecBackend *base, ExecStream *stream, ExecGroup *group, const ExecColl *op,
                 ExecSample *out, GError **error)
{
  CudaBackend *b = cuda_backend (base);
  CudaStream *s = (CudaStream *) stream;
  CudaGroup *g = (CudaGroup *) group;
  ncclDataType_t t = ncclFloat32;
  if (out)
    out->start_s = out->end_s = cuda_now (b);   /* replaced by event times at synchronize */
  if (!check_op (group, op, &t, error) || !cuda_stream_check (s, error))
    return FALSE;
  CudaSample *sample = NULL;
  if (!cuda_sample_begin (b, s, out, &sample, error))
    return FALSE;
  const char *name = exec_coll_name (op->kind), *call = "?";
  ncclResult_t rc = post (g, op, t, s->stream, &call);
  g_autofree char *what = g_strdup_printf ("%s on group '%s', %d ranks, stream '%s'", name,
                                           group->name, group->size, stream->name);
  if (!cuda_nccl_settle (b, g->comm, rc, call, what, error))
    {
      cuda_sample_free (b, sample);
      return FALSE;
    }
  /* named by a timeout on this stream */
  s->last_op = name;
  if (g_strcmp0 (s->last_group, group->name) != 0)
    {
      g_free (s->last_group);
      s->last_group = g_strdup (group->name);
    }
  s->last_group_size = group->size;
  return cuda_sample_end (b, s, sample, error);
}
