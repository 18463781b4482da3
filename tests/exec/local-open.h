/* tests/exec/local-open.h - how the single-process exec tests open a backend: a world of
 * one (MPI off), the named backend or, with NULL, the one exec_backend_open picks. */
#pragma once

#include "exec/backend.h"

static G_GNUC_UNUSED ExecBackend *
local_backend_open (const char *backend)
{
  g_autoptr (GError) error = NULL;
  ExecConfig cfg;
  exec_config_init (&cfg);
  cfg.backend = backend;
  cfg.mpi = EXEC_MPI_OFF;
  ExecBackend *b = exec_backend_open (&cfg, &error);
  g_assert_no_error (error);
  g_assert_nonnull (b);
  return b;
}
