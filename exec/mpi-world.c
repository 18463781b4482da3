/* exec/mpi-world.c - MPI start-up and errors shared by the CPU and CUDA backends. */
#include <string.h>
#include "exec/mpi-world.h"

#if HAVE_MPI
gboolean
exec_mpi_error (GError **error, int rc, const char *call, const char *what)
{
  char msg[MPI_MAX_ERROR_STRING + 1] = "";
  int len = 0;
  if (MPI_Error_string (rc, msg, &len) != MPI_SUCCESS)
    g_snprintf (msg, sizeof msg, "MPI error code %d", rc);
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_MPI, "%s (%s) failed: %s", call, what, msg);
  return FALSE;
}

gboolean
exec_mpi_world_open (ExecMpiWorld *out, const char *who, GError **error)
{
  int inited = 0, finalized = 0, rc;
  memset (out, 0, sizeof *out);
  out->provided = MPI_THREAD_SINGLE;
  MPI_Initialized (&inited);
  MPI_Finalized (&finalized);
  if (finalized)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_MPI,
                   "MPI was already finalized in this process (open the %s backend once "
                   "per process)", who);
      return FALSE;
    }
  if (!inited)
    {
      g_autofree char *what = g_strdup_printf ("opening the %s backend", who);
      rc = MPI_Init_thread (NULL, NULL, MPI_THREAD_SERIALIZED, &out->provided);
      if (rc != MPI_SUCCESS)
        return exec_mpi_error (error, rc, "MPI_Init_thread", what);
      out->own_mpi = TRUE;
      MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
  else
    MPI_Query_thread (&out->provided);
  if ((rc = MPI_Comm_dup (MPI_COMM_WORLD, &out->world)) != MPI_SUCCESS)
    return exec_mpi_error (error, rc, "MPI_Comm_dup", "MPI_COMM_WORLD");
  MPI_Comm_set_errhandler (out->world, MPI_ERRORS_RETURN);
  MPI_Comm_rank (out->world, &out->rank);
  MPI_Comm_size (out->world, &out->size);
  MPI_Comm node;
  if ((rc = MPI_Comm_split_type (out->world, MPI_COMM_TYPE_SHARED, out->rank, MPI_INFO_NULL,
                                 &node)) != MPI_SUCCESS)
    return exec_mpi_error (error, rc, "MPI_Comm_split_type", "finding the local rank");
  MPI_Comm_rank (node, &out->local_rank);
  MPI_Comm_size (node, &out->local_size);
  MPI_Comm_free (&node);
  return TRUE;
}
#endif
