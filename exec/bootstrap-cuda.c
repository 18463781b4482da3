/* exec/bootstrap-cuda.c - who this process is (rank, world, local rank) and the NCCL world
 * communicator: the unique id from rank 0 through MPI_Bcast, or through a file on a shared
 * filesystem when the ranks were started without MPI (torchrun, srun). The protocol is
 * described in backend-cuda.h. */
#include "exec/backend-cuda-private.h"
#include "exec/mpi-world.h"

#include <glib/gstdio.h>
#include <string.h>

#define ID_MAGIC       "tandem-nccl-id 1 "
#define ID_POLL_US     50000      /* 50 ms between looks at the id file */
#define ID_STALE_S     120        /* an id file older than this before our open is stale
                                   * (a crashed run); allows for clocks of nodes that differ */

/* ---- MPI --------------------------------------------------------------------------------- */

static gboolean
launched_by_mpi (void)
{
  /* the variables the CPU backend looks at (backend-cpu.c) */
  static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                      "PMI_SIZE", "MPI_LOCALNRANKS" };
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    if (g_getenv (vars[i]))
      return TRUE;
  return FALSE;
}

#if HAVE_MPI

/* MPI as the CPU backend opens it (exec/mpi-world.c). */
static gboolean
world_mpi (CudaBackend *b, GError **error)
{
  ExecMpiWorld w;
  if (!exec_mpi_world_open (&w, "cuda", error))
    return FALSE;
  b->own_mpi = w.own_mpi;
  b->mpi_world = w.world;
  b->use_mpi = TRUE;
  b->base.rank = w.rank;
  b->base.world = w.size;
  b->base.local_rank = w.local_rank;
  b->bootstrap = "mpi";
  return TRUE;
}

/* Rank 0's id, or its failure, to every rank. */
static gboolean
id_mpi (CudaBackend *b, ncclUniqueId *id, GError **error)
{
  struct {
    int          ok;
    ncclUniqueId id;
  } msg;
  memset (&msg, 0, sizeof msg);
  GError *local = NULL;
  if (b->base.rank == 0)
    {
      ncclResult_t r = ncclGetUniqueId (&msg.id);
      msg.ok = r == ncclSuccess;
      if (!msg.ok)
        exec_set_nccl_error (&local, r, "ncclGetUniqueId", "rank 0");
    }
  int rc = MPI_Bcast (&msg, (int) sizeof msg, MPI_BYTE, 0, b->mpi_world);
  if (rc != MPI_SUCCESS)
    {
      g_clear_error (&local);
      return exec_mpi_error (error, rc, "MPI_Bcast", "the NCCL unique id");
    }
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (!msg.ok)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_DEVICE,
                   "rank 0 could not create the NCCL unique id (see rank 0's error)");
      return FALSE;
    }
  *id = msg.id;
  return TRUE;
}
#endif

/* ---- environment ------------------------------------------------------------------------- */

static gboolean
env_int (const char *name, int *out)
{
  const char *v = g_getenv (name);
  gint64 x = 0;
  if (!v || !g_ascii_string_to_signed (v, 10, 0, G_MAXINT, &x, NULL))
    return FALSE;
  *out = (int) x;
  return TRUE;
}

static gboolean
world_env (CudaBackend *b, GError **error)
{
  static const struct {
    const char *how, *rank, *size, *local;
  } schemes[] = {
    { "torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK" },
    { "slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID" },
    { "open-mpi-env", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
      "OMPI_COMM_WORLD_LOCAL_RANK" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      int rank, size, local;
      if (!env_int (schemes[i].rank, &rank) || !env_int (schemes[i].size, &size))
        continue;
      if (size < 1 || rank >= size)
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                       "%s=%d and %s=%d do not describe a rank of the world", schemes[i].rank,
                       rank, schemes[i].size, size);
          return FALSE;
        }
      b->base.rank = rank;
      b->base.world = size;
      /* without a local rank, assume one node (the GPU is then rank modulo devices) */
      b->base.local_rank = env_int (schemes[i].local, &local) ? local : rank;
      b->bootstrap = schemes[i].how;
      return TRUE;
    }
  b->base.rank = b->base.local_rank = 0;
  b->base.world = 1;
  b->bootstrap = "single";
  return TRUE;
}

gboolean
cuda_bootstrap_world (CudaBackend *b, GError **error)
{
  const ExecConfig *c = &b->base.config;
  gboolean want_mpi = c->mpi == EXEC_MPI_ON || (c->mpi == EXEC_MPI_AUTO && launched_by_mpi ());
#if HAVE_MPI
  if (want_mpi)
    return world_mpi (b, error);
#else
  if (c->mpi == EXEC_MPI_ON)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
                   "MPI asked for, but tandem was built without MPI (install libopenmpi-dev "
                   "and reconfigure, or start the ranks with torchrun or srun)");
      return FALSE;
    }
  (void) want_mpi;   /* an MPI launcher without MPI built: its OMPI_ variables still work */
#endif
  return world_env (b, error);
}

/* ---- the unique id through a file -------------------------------------------------------- */

static char *
id_path (GError **error)
{
  const char *dir = g_getenv ("TANDEM_NCCL_ID_DIR");
  if (!dir || !*dir)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
                   "several ranks started without MPI: set TANDEM_NCCL_ID_DIR to a directory "
                   "every rank can read (a shared filesystem across nodes) so that rank 0 "
                   "can hand out the NCCL unique id");
      return NULL;
    }
  const char *key = g_getenv ("TANDEM_NCCL_ID_KEY");
  g_autofree char *k = NULL;
  if (key && *key)
    k = g_strdup (key);
  else if (g_getenv ("SLURM_JOB_ID"))
    k = g_strdup_printf ("%s.%s", g_getenv ("SLURM_JOB_ID"),
                         g_getenv ("SLURM_STEP_ID") ? g_getenv ("SLURM_STEP_ID") : "0");
  else if (g_getenv ("TORCHELASTIC_RUN_ID") && g_strcmp0 (g_getenv ("TORCHELASTIC_RUN_ID"), "none"))
    k = g_strdup (g_getenv ("TORCHELASTIC_RUN_ID"));
  else if (g_getenv ("MASTER_ADDR") && g_getenv ("MASTER_PORT"))
    k = g_strdup_printf ("%s-%s", g_getenv ("MASTER_ADDR"), g_getenv ("MASTER_PORT"));
  else
    k = g_strdup ("default");
  g_strcanon (k, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-", '_');
  g_autofree char *name = g_strdup_printf ("tandem-nccl-%s.id", k);
  return g_build_filename (dir, name, NULL);
}

static char *
id_encode (const ncclUniqueId *id)
{
  GString *s = g_string_new (ID_MAGIC);
  const guchar *p = (const guchar *) id;
  for (gsize i = 0; i < sizeof *id; i++)
    g_string_append_printf (s, "%02x", p[i]);
  g_string_append_c (s, '\n');
  return g_string_free (s, FALSE);
}

static gboolean
id_decode (const char *text, ncclUniqueId *id)
{
  if (!g_str_has_prefix (text, ID_MAGIC))
    return FALSE;
  const char *h = text + strlen (ID_MAGIC);
  guchar *p = (guchar *) id;
  for (gsize i = 0; i < sizeof *id; i++)
    {
      int hi = g_ascii_xdigit_value (h[2 * i]), lo = hi < 0 ? -1 : g_ascii_xdigit_value (h[2 * i + 1]);
      if (hi < 0 || lo < 0)
        return FALSE;
      p[i] = (guchar) (hi * 16 + lo);
    }
  return TRUE;
}

static gboolean
id_file (CudaBackend *b, ncclUniqueId *id, GError **error)
{
  g_autofree char *path = id_path (error);
  if (!path)
    return FALSE;
  if (b->base.rank == 0)
    {
      EXEC_NCCL_TRY (ncclGetUniqueId (id), error);
      g_autofree char *text = id_encode (id);
      GError *local = NULL;
      /* g_file_set_contents writes a temporary file and renames it: readers see all or
       * nothing */
      if (!g_file_set_contents (path, text, -1, &local))
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
                       "cannot write the NCCL unique id to %s (TANDEM_NCCL_ID_DIR): %s", path,
                       local->message);
          g_error_free (local);
          return FALSE;
        }
      b->id_file = g_steal_pointer (&path);
      return TRUE;
    }
  gint64 opened_s = g_get_real_time () / G_USEC_PER_SEC;
  double deadline = cuda_now (b) + b->base.timeout_s;
  for (;;)
    {
      GStatBuf st;
      g_autofree char *text = NULL;
      if (g_stat (path, &st) == 0 && (gint64) st.st_mtime >= opened_s - ID_STALE_S
          && g_file_get_contents (path, &text, NULL, NULL))
        {
          if (id_decode (text, id))
            return TRUE;
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                       "%s is not a NCCL unique id written by tandem", path);
          return FALSE;
        }
      if (cuda_now (b) >= deadline)
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT,
                       "rank %d waited %g s for rank 0's NCCL unique id in %s: is rank 0 "
                       "running, and is TANDEM_NCCL_ID_DIR the same shared directory on every "
                       "node?", b->base.rank, b->base.timeout_s, path);
          return FALSE;
        }
      g_usleep (ID_POLL_US);
    }
}

/* ---- the world communicator -------------------------------------------------------------- */

gboolean
cuda_bootstrap_comm (CudaBackend *b, GError **error)
{
  ncclUniqueId id;
  memset (&id, 0, sizeof id);
  if (b->base.world == 1)
    EXEC_NCCL_TRY (ncclGetUniqueId (&id), error);
#if HAVE_MPI
  else if (b->use_mpi)
    {
      if (!id_mpi (b, &id, error))
        return FALSE;
    }
#endif
  else if (!id_file (b, &id, error))
    return FALSE;

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = b->nccl_blocking ? 1 : 0;
  ncclResult_t rc = ncclCommInitRankConfig (&b->world_comm, b->base.world, id, b->base.rank,
                                            &config);
  g_autofree char *what = g_strdup_printf ("world of %d ranks, device %d", b->base.world,
                                           b->device);
  if (!cuda_nccl_settle (b, b->world_comm, rc, "ncclCommInitRankConfig", what, error))
    return FALSE;
  /* every rank has joined, so every rank has read the id: the file can go */
  if (b->id_file)
    g_unlink (b->id_file);
  g_clear_pointer (&b->id_file, g_free);
  return TRUE;
}

void
cuda_bootstrap_close (CudaBackend *b, gboolean clean)
{
  if (b->id_file)
    g_unlink (b->id_file);   /* the world never came up */
#if HAVE_MPI
  /* MPI_Finalize waits for outstanding communication, which after a timeout may never
   * come: then leave MPI as it is (as the CPU backend does) */
  if (b->use_mpi && clean)
    {
      int finalized = 0;
      MPI_Comm_free (&b->mpi_world);
      MPI_Finalized (&finalized);
      if (b->own_mpi && !finalized)
        MPI_Finalize ();
    }
#endif
}

void
cuda_bootstrap_abort (CudaBackend *b, int code)
{
#if HAVE_MPI
  if (b->use_mpi)
    MPI_Abort (b->mpi_world, code);
#endif
  /* without MPI the launcher (torchrun, srun) ends the other ranks when this one exits */
}
