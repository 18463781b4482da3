/* exec/mpi-world.h - what the CPU and CUDA backends share about MPI (private to exec/).
 *
 * Contract: never prints; failures come back as EXEC_ERROR_MPI GErrors naming the call.
 * Only built with MPI (HAVE_MPI). */
#pragma once

#include "config.h"
#include "exec/backend.h"

#if HAVE_MPI
#include <mpi.h>

/* EXEC_ERROR_MPI "CALL (WHAT) failed: MPI_Error_string"; returns FALSE. */
gboolean exec_mpi_error (GError **error, int rc, const char *call, const char *what);

typedef struct {
  MPI_Comm world;       /* a duplicate of MPI_COMM_WORLD that returns errors */
  gboolean own_mpi;     /* this call initialised MPI (the backend finalises it) */
  int      provided;    /* the thread level MPI provides */
  int      rank, size;  /* in world */
  int      local_rank;  /* among the ranks that share this node's memory */
  int      local_size;  /* the ranks that share this node's memory */
} ExecMpiWorld;

/* Initialises MPI (MPI_THREAD_SERIALIZED: the caller and a progress thread take turns)
 * unless the caller did, refuses a finalised MPI, duplicates the world with
 * MPI_ERRORS_RETURN and finds the local rank. `who` names the backend in messages. */
gboolean exec_mpi_world_open (ExecMpiWorld *out, const char *who, GError **error);
#endif
