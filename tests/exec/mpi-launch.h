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

/* Runs `self`, a test binary whose rank processes run their own TAP tests, on `np` ranks
 * under mpirun with a hard limit of `limit_s` seconds (SIGKILL 5 s after SIGTERM), `extra`
 * (or NULL) one more argument for the ranks, and checks that every rank passed its
 * `per_rank` tests. On a failure it logs the ranks' output and exit, fails the test and
 * returns FALSE; else `out` (may be NULL) takes the ranks' stdout. */
static inline gboolean
mpi_test_run_self (const char *self, int np, int limit_s, const char *extra, guint per_rank,
                   char **out)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *mpirun = g_find_program_in_path ("mpirun");
  g_autofree char *timeout = g_find_program_in_path ("timeout");
  g_autofree char *limit = g_strdup_printf ("%d", limit_s);
  g_autofree char *n = g_strdup_printf ("%d", np);
  const char *argv[] = { timeout, "-k", "5", limit, mpirun, "--allow-run-as-root",
                         "--oversubscribe", "--tag-output", "-np", n, self, extra, NULL };
  g_auto (GStrv) env = mpi_test_environ ();
  g_autofree char *text = NULL, *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &text,
                               &err, &status, &error));
  g_assert_no_error (error);
  gboolean ok = g_spawn_check_wait_status (status, &error);
  guint passed = mpi_test_count_results (text, "ok ");
  guint failed = mpi_test_count_results (text, "not ok");
  if (!ok || passed != (guint) np * per_rank || failed)
    {
      g_test_message ("ranks' stdout:\n%s", text);
      g_test_message ("ranks' stderr:\n%s", err);
      g_test_message ("exit: %s; %u ok lines of %u", error ? error->message : "0", passed,
                      (guint) np * per_rank);
      g_test_fail ();
      return FALSE;
    }
  if (out)
    *out = g_steal_pointer (&text);
  return TRUE;
}
