/* exec/backend-cpu-coll.c - groups (MPI_Comm_split) and non-blocking collectives
 * (MPI_Iallreduce, MPI_Ireduce_scatter_block, MPI_Iallgather, MPI_Ialltoall,
 * MPI_Isend / MPI_Irecv) for the CPU backend.
 *
 * Without MPI (a world of one) every group has one member and the collectives are local
 * copies, so a single-process run goes through the same calls. */
#include "exec/backend-cpu-private.h"

#include <string.h>


/* ---- groups --------------------------------------------------------------------------- */

static CpuGroup *
group_alloc (ExecBackend *b, const char *name, int color, const int *members, int n)
{
  CpuGroup *g = g_new0 (CpuGroup, 1);
  g->base.backend = b;
  g->base.name = g_strdup (name);
  g->base.size = n;
  g->base.color = color;
  g->base.members = g_memdup2 (members, sizeof (int) * (gsize) n);
  for (int i = 0; i < n; i++)
    if (members[i] == b->rank)
      g->base.rank = i;
#if HAVE_MPI
  g->comm = MPI_COMM_NULL;
#endif
  return g;
}

void
cpu_group_destroy (CpuBackend *b, CpuGroup *g)
{
#if HAVE_MPI
  if (g->comm != MPI_COMM_NULL)
    MPI_Comm_free (&g->comm);
#endif
  g_free (g->base.name);
  g_free (g->base.members);
  g_free (g);
}

#if HAVE_MPI
/* Every rank of the world at group creation, within the backend's timeout. MPI_Comm_split
 * is collective over the world and blocking, with no timeout of its own: a rank stalled
 * (or stopped) between MPI_Init and its groups held every other rank inside the split
 * until the launcher ended the job, with nothing said. A non-blocking barrier first,
 * polled with the lock released between naps (as cpu_stream_wait does: the beat thread
 * keeps beating), turns that into an error after timeout_s; after it the barrier stays
 * outstanding, so the backend is marked stuck and skips MPI_Finalize. Called with
 * b->lock held. */
static gboolean
world_arrived (CpuBackend *b, const char *name, GError **error)
{
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_Ibarrier (b->world, &req);
  if (rc != MPI_SUCCESS)
    return exec_mpi_error (error, rc, "MPI_Ibarrier", name);
  double deadline = cpu_now (b) + b->base.timeout_s;
  gulong nap_us = 1;
  for (;;)
    {
      int done = 0;
      rc = MPI_Test (&req, &done, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS)
        return exec_mpi_error (error, rc, "MPI_Test", name);
      if (done)
        return TRUE;
      if (cpu_now (b) >= deadline)
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT,
                       "creating group '%s': not every one of the %d ranks came to create "
                       "its groups within %g s (a rank stalled, hung or died after MPI "
                       "start-up)", name, b->base.world, b->base.timeout_s);
          b->stuck = TRUE;
          return FALSE;
        }
      g_mutex_unlock (&b->lock);
      g_usleep (nap_us);
      nap_us = MIN (nap_us * 2, 1000);
      g_mutex_lock (&b->lock);
    }
}

/* MPI_Comm_split gave a communicator; do its members agree with the layout's list? */
static gboolean
group_check_members (CpuBackend *b, CpuGroup *g, GError **error)
{
  int n = 0, rc;
  MPI_Comm_size (g->comm, &n);
  if (n != g->base.size)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "group '%s': MPI_Comm_split gave %d ranks where the layout lists %d "
                   "(ranks disagree on the layout)", g->base.name, n, g->base.size);
      return FALSE;
    }
  MPI_Group world_group, group;
  MPI_Comm_group (b->world, &world_group);
  MPI_Comm_group (g->comm, &group);
  g_autofree int *idx = g_new (int, n), *world_ranks = g_new (int, n);
  for (int i = 0; i < n; i++)
    idx[i] = i;
  rc = MPI_Group_translate_ranks (group, n, idx, world_group, world_ranks);
  MPI_Group_free (&group);
  MPI_Group_free (&world_group);
  if (rc != MPI_SUCCESS)
    return exec_mpi_error (error, rc, "MPI_Group_translate_ranks", g->base.name);
  for (int i = 0; i < n; i++)
    if (world_ranks[i] != g->base.members[i])
      {
        g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                     "group '%s': member %d is world rank %d in the communicator but %d in "
                     "the layout (ranks disagree on the layout)", g->base.name, i,
                     world_ranks[i], g->base.members[i]);
        return FALSE;
      }
  return TRUE;
}
#endif

ExecGroup *
cpu_group_new (ExecBackend *base, const char *name, int color, const int *members,
               int n_members, GError **error)
{
  CpuBackend *b = cpu_backend (base);
  CpuGroup *g = group_alloc (base, name, color, members, n_members);
  if (!b->use_mpi)
    {
      if (n_members != 1 || members[0] != 0)
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                       "group '%s' has %d members, but this process runs without MPI (a "
                       "world of one; hint: launch with mpirun)", name, n_members);
          cpu_group_destroy (b, g);
          return NULL;
        }
      g_ptr_array_add (b->groups, g);
      return &g->base;
    }
#if HAVE_MPI
  g_mutex_lock (&b->lock);
  if (!world_arrived (b, name, error))
    {
      cpu_group_destroy (b, g);
      g_mutex_unlock (&b->lock);
      return NULL;
    }
  /* the key orders the new communicator as the layout orders the group */
  int rc = MPI_Comm_split (b->world, color, g->base.rank, &g->comm);
  gboolean ok = rc == MPI_SUCCESS;
  if (!ok)
    exec_mpi_error (error, rc, "MPI_Comm_split", name);
  else
    {
      MPI_Comm_set_errhandler (g->comm, MPI_ERRORS_RETURN);
      ok = group_check_members (b, g, error);
    }
  if (!ok)
    {
      cpu_group_destroy (b, g);
      g_mutex_unlock (&b->lock);
      return NULL;
    }
  g_ptr_array_add (b->groups, g);
  g_mutex_unlock (&b->lock);
#endif
  return &g->base;
}

void
cpu_group_free (ExecBackend *base, ExecGroup *group)
{
  CpuBackend *b = cpu_backend (base);
  if (!group)
    return;
  g_mutex_lock (&b->lock);
  if (g_ptr_array_remove_fast (b->groups, group))
    cpu_group_destroy (b, (CpuGroup *) group);
  g_mutex_unlock (&b->lock);
}

/* ---- collectives ---------------------------------------------------------------------- */

static gboolean
overlap (const void *a, gsize a_bytes, const void *b, gsize b_bytes)
{
  const char *x = a, *y = b;
  return a_bytes && b_bytes && x < y + b_bytes && y < x + a_bytes;
}

static gboolean
check_op (const ExecGroup *g, const ExecColl *op, GError **error)
{
  const char *name = exec_coll_name (op->kind);
  gsize n = (gsize) g->size, bytes = op->count * sizeof (float);
  if ((guint) op->kind >= EXEC_COLL_N)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "unknown collective %d", op->kind);
      return FALSE;
    }
  if (op->dtype != EXEC_DTYPE_F32)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s on group '%s': the cpu backend communicates float32 only, not %s",
                   name, g->name, exec_dtype_name (op->dtype));
      return FALSE;
    }
  if (op->count > G_MAXINT || op->count * n > G_MAXINT)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s on group '%s': %" G_GSIZE_FORMAT " elements exceed MPI's int counts",
                   name, g->name, op->count);
      return FALSE;
    }
  if (op->kind == EXEC_COLL_ALL_TO_ALLV && !exec_coll_alltoallv_check (g, op, sizeof (float), error))
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

/* A group of one: every collective is a copy (or nothing when in place). */
static gboolean
local_collective (const ExecGroup *g, const ExecColl *op, GError **error)
{
  gsize bytes = op->count * sizeof (float);
  switch (op->kind)
    {
    case EXEC_COLL_ALL_REDUCE:
    case EXEC_COLL_REDUCE_SCATTER:
    case EXEC_COLL_ALL_GATHER:
    case EXEC_COLL_ALL_TO_ALL:
      if (op->send != op->recv && bytes)
        memmove (op->recv, op->send, bytes);
      return TRUE;
    case EXEC_COLL_SEND_RECV:   /* to and from oneself */
      if (bytes)
        memmove (op->recv, op->send, bytes);
      return TRUE;
    case EXEC_COLL_ALL_TO_ALLV:   /* checked: recv_counts[0] == send_counts[0] */
      if (op->send_counts[0])
        memmove ((float *) op->recv + op->recv_displs[0],
                 (const float *) op->send + op->send_displs[0],
                 (gsize) op->send_counts[0] * sizeof (float));
      return TRUE;
    default:
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s on group '%s': a group of one has nobody to talk to",
                   exec_coll_name (op->kind), g->name);
      return FALSE;
    }
}

#if HAVE_MPI
/* Posts the MPI calls of `op`; lock held. */
static int
post (const CpuGroup *g, const ExecColl *op, MPI_Request req[2], int *n_req, const char **call)
{
  int count = (int) op->count;
  MPI_Comm comm = g->comm;
  *n_req = 1;
  switch (op->kind)
    {
    case EXEC_COLL_ALL_REDUCE:
      *call = "MPI_Iallreduce";
      return MPI_Iallreduce (op->send == op->recv ? MPI_IN_PLACE : op->send, op->recv, count,
                             MPI_FLOAT, MPI_SUM, comm, &req[0]);
    case EXEC_COLL_REDUCE_SCATTER:
      *call = "MPI_Ireduce_scatter_block";
      return MPI_Ireduce_scatter_block (op->send, op->recv, count, MPI_FLOAT, MPI_SUM, comm,
                                        &req[0]);
    case EXEC_COLL_ALL_GATHER:
      {
        /* NCCL's in-place convention: this rank's slot of the output is the input */
        const float *slot = (const float *) op->recv + (gsize) g->base.rank * op->count;
        *call = "MPI_Iallgather";
        return MPI_Iallgather (op->send == slot ? MPI_IN_PLACE : op->send, count, MPI_FLOAT,
                               op->recv, count, MPI_FLOAT, comm, &req[0]);
      }
    case EXEC_COLL_ALL_TO_ALL:
      *call = "MPI_Ialltoall";
      return MPI_Ialltoall (op->send, count, MPI_FLOAT, op->recv, count, MPI_FLOAT, comm,
                            &req[0]);
    case EXEC_COLL_ALL_TO_ALLV:
      *call = "MPI_Ialltoallv";
      return MPI_Ialltoallv (op->send, op->send_counts, op->send_displs, MPI_FLOAT, op->recv,
                             op->recv_counts, op->recv_displs, MPI_FLOAT, comm, &req[0]);
    case EXEC_COLL_SEND:
      *call = "MPI_Isend";
      return MPI_Isend (op->send, count, MPI_FLOAT, op->peer, op->tag, comm, &req[0]);
    case EXEC_COLL_RECV:
      *call = "MPI_Irecv";
      return MPI_Irecv (op->recv, count, MPI_FLOAT, op->peer, op->tag, comm, &req[0]);
    case EXEC_COLL_SEND_RECV:
      {
        /* receive posted first, so a ring of these never waits on itself */
        *call = "MPI_Irecv";
        int rc = MPI_Irecv (op->recv, count, MPI_FLOAT, op->recv_peer, op->tag, comm, &req[0]);
        if (rc != MPI_SUCCESS)
          return rc;
        *call = "MPI_Isend";
        rc = MPI_Isend (op->send, count, MPI_FLOAT, op->peer, op->tag, comm, &req[1]);
        *n_req = rc == MPI_SUCCESS ? 2 : 1;
        return rc;
      }
    default:
      g_assert_not_reached ();
    }
}
#endif

gboolean
cpu_collective (ExecBackend *base, ExecStream *stream, ExecGroup *group, const ExecColl *op,
                ExecSample *out, GError **error)
{
  CpuBackend *b = cpu_backend (base);
  double t0 = cpu_now (b);
  if (out)
    out->start_s = out->end_s = t0;
  if (!check_op (group, op, error))
    return FALSE;
  if (!b->use_mpi || (group->size == 1
                        && (op->kind < EXEC_COLL_SEND || op->kind == EXEC_COLL_ALL_TO_ALLV)))
    {
      if (!local_collective (group, op, error))
        return FALSE;
      if (out)
        out->end_s = cpu_now (b);
      return TRUE;
    }
#if HAVE_MPI
  CpuStream *s = (CpuStream *) stream;
  CpuGroup *g = (CpuGroup *) group;
  CpuOp *cop = g_new0 (CpuOp, 1);
  cop->name = exec_coll_name (op->kind);
  cop->group = g_strdup (group->name);
  cop->group_size = group->size;
  cop->out = out;
  cop->req[0] = cop->req[1] = MPI_REQUEST_NULL;
  const char *call = "?";
  g_mutex_lock (&b->lock);
  int rc = post (g, op, cop->req, &cop->n_req, &call);
  if (rc != MPI_SUCCESS)
    {
      g_autofree char *what = g_strdup_printf ("%s on group '%s'", cop->name, group->name);
      exec_mpi_error (error, rc, call, what);   /* MPI_Error_string: under the lock too */
      /* a half-posted SEND_RECV keeps its receive outstanding on the stream */
      if (cop->req[0] == MPI_REQUEST_NULL)
        cpu_op_free (cop);
      else
        cpu_stream_push (b, s, cop);
      g_mutex_unlock (&b->lock);
      return FALSE;
    }
  cpu_stream_push (b, s, cop);
  g_mutex_unlock (&b->lock);
#endif
  return TRUE;
}
