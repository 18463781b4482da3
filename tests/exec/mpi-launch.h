/* tests/exec/mpi-launch.h - what the tests that start `mpirun` share: whether they can,
 * the command prefix with its hard time limit, and the environment. */
#pragma once

#include <glib.h>
#include <string.h>
#include "exec/backend.h"

/* Skips the test (with the reason) and returns FALSE when mpirun, timeout, the CPU
 * backend or, if `need_exe`, TANDEM_EXE (set by meson) is missing. */
static inline gboolean
mpi_test_can_launch (gboolean need_exe)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *mpirun = g_find_program_in_path ("mpirun");
  g_autofree char *timeout = g_find_program_in_path ("timeout");
  if (!exec_cpu_ops.available (&error))
    {
      g_test_skip (error->message);
      return FALSE;
    }
  if (!mpirun || !timeout)
    {
      g_test_skip (!mpirun ? "mpirun is not on PATH (Debian: openmpi-bin)"
                           : "timeout is not on PATH (coreutils)");
      return FALSE;
    }
  if (need_exe && !g_getenv ("TANDEM_EXE"))
    {
      g_test_skip ("TANDEM_EXE is not set (run through meson test)");
      return FALSE;
    }
  return TRUE;
}

/* A new argv (g_free'd strings) "timeout -k 5 60 mpirun --allow-run-as-root
 * --oversubscribe": the hard limit ends a hung job, SIGKILL 5 s after SIGTERM. */
static inline GPtrArray *
mpi_test_argv_new (void)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_find_program_in_path ("timeout"));
  g_ptr_array_add (argv, g_strdup ("-k"));
  g_ptr_array_add (argv, g_strdup ("5"));
  g_ptr_array_add (argv, g_strdup ("60"));
  g_ptr_array_add (argv, g_find_program_in_path ("mpirun"));
  g_ptr_array_add (argv, g_strdup ("--allow-run-as-root"));
  g_ptr_array_add (argv, g_strdup ("--oversubscribe"));
  return argv;
}

/* This process's environment for mpirun: containers often forbid the cross-memory
 * attach of Open MPI's shared-memory BTL, so it is turned off unless the caller chose. */
static inline char **
mpi_test_environ (void)
{
  char **env = g_get_environ ();
  if (!g_environ_getenv (env, "OMPI_MCA_btl_vader_single_copy_mechanism"))
    env = g_environ_setenv (env, "OMPI_MCA_btl_vader_single_copy_mechanism", "none", TRUE);
  return env;
}

/* TAP results in the ranks' output under --tag-output: each starts right after
 * "[job,rank]<stdout>:", though mpirun may join two ranks' lines into one. */
static inline guint
mpi_test_count_results (const char *text, const char *result)
{
  g_autofree char *needle = g_strconcat ("<stdout>:", result, NULL);
  guint n = 0;
  for (const char *p = strstr (text, needle); p; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* In a rank process started by mpirun: the CPU backend with MPI on, each operation bounded
 * by 60 s (a lost peer fails the test instead of hanging it). */
static inline ExecBackend *
mpi_rank_backend_open (void)
{
  g_autoptr (GError) error = NULL;
  ExecConfig cfg;
  exec_config_init (&cfg);
  cfg.backend = "cpu";
  cfg.mpi = EXEC_MPI_ON;
  cfg.timeout_s = 60;
  ExecBackend *b = exec_backend_open (&cfg, &error);
  g_assert_no_error (error);
  return b;
}
