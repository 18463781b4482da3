/* tests/exec/cuda-open.h - how the CUDA tests open their backend: a world of one whatever
 * launched them (the backend reads torchrun / Slurm / Open MPI variables), no MPI. Only the
 * public ops table is used, so the tests build with or without CUDA. */
#pragma once

#include "exec/backend.h"

/* The cuda backend, or NULL with *skip_reason set: built without it, or no device
 * (available()'s message). A device that is present but does not open is an error. */
static G_GNUC_UNUSED ExecBackend *
cuda_open_or_skip (char **skip_reason)
{
  static const char *const launcher_vars[] = {
    "RANK", "WORLD_SIZE", "LOCAL_RANK", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK" };
  for (guint i = 0; i < G_N_ELEMENTS (launcher_vars); i++)
    g_unsetenv (launcher_vars[i]);
  g_autoptr (GError) error = NULL;
  const ExecBackendOps *ops = exec_backend_lookup ("cuda", NULL);
  if (!ops)
    {
      *skip_reason = g_strdup ("built without the cuda backend (configure with -Dcuda=enabled)");
      return NULL;
    }
  if (!ops->available (&error))
    {
      *skip_reason = g_strdup (error->message);
      return NULL;
    }
  ExecConfig cfg;
  exec_config_init (&cfg);
  cfg.backend = "cuda";
  cfg.mpi = EXEC_MPI_OFF;
  cfg.timeout_s = 60;
  ExecBackend *b = exec_backend_open (&cfg, &error);
  if (!b)
    g_error ("a CUDA device is present but the backend does not open: %s", error->message);
  return b;
}
