/* tests/exec/test-run-kill.c - `tandem run` when a rank is killed outright (kill -9: no
 * handler, no cleanup), rank 0 or another, with 2 and 4 ranks. The run was recorded as
 * 'running' at its start; afterwards it must be in the store exactly once, closed as
 * failed by a survivor or, when none could, read as 'died' once its heartbeat is older
 * than the timeout; and the job must end within one timeout of the kill.
 *
 * Each case: `timeout -k 5 60 mpirun -np N TANDEM_EXE run` on tiny-llama (128 tokens,
 * one step, --timeout 3) with TANDEM_TEST_DIE_AT_TASK=5 TANDEM_TEST_DIE_RANK=R
 * TANDEM_TEST_DIE_SIGNAL=9: rank R raises SIGKILL before its 6th task. Skipped when
 * mpirun, timeout or the MPI/BLAS backend are missing. */
#include "results/store.h"
#include "mpi-launch.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define TIMEOUT_S 3.0

/* Seconds between two of the store's UTC timestamps (2026-12-01T19:29:42.123Z). */
static double
seconds_between (const char *a, const char *b)
{
  g_autoptr (GDateTime) ta = g_date_time_new_from_iso8601 (a, NULL);
  g_autoptr (GDateTime) tb = g_date_time_new_from_iso8601 (b, NULL);
  g_assert_nonnull (ta);
  g_assert_nonnull (tb);
  return g_date_time_difference (tb, ta) * 1e-6;
}

static void
kill_case (int np, int victim, const char *plan)
{
  if (!mpi_test_can_launch (TRUE))
    return;
  g_autofree char *dir = g_dir_make_tmp ("tandem-kill-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  g_autoptr (GPtrArray) argv = mpi_test_argv_new ();
  const char *vars[] = { "TANDEM_TEST_DIE_AT_TASK", "TANDEM_TEST_DIE_RANK",
                         "TANDEM_TEST_DIE_SIGNAL" };
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      g_ptr_array_add (argv, g_strdup ("-x"));
      g_ptr_array_add (argv, g_strdup (vars[i]));
    }
  g_ptr_array_add (argv, g_strdup ("-np"));
  g_ptr_array_add (argv, g_strdup_printf ("%d", np));
  g_ptr_array_add (argv, g_strdup (g_getenv ("TANDEM_EXE")));
  g_autofree char *args = g_strdup_printf ("run --model tiny-llama --seq 128 --steps 1 "
                                           "--warmup 0 --timeout %g %s --db", TIMEOUT_S, plan);
  g_auto (GStrv) words = g_strsplit (args, " ", -1);
  for (guint i = 0; words[i]; i++)
    g_ptr_array_add (argv, g_strdup (words[i]));
  g_ptr_array_add (argv, g_strdup (db));
  g_ptr_array_add (argv, NULL);
  g_auto (GStrv) env = mpi_test_environ ();
  env = g_environ_setenv (env, "TANDEM_TEST_DIE_AT_TASK", "5", TRUE);
  g_autofree char *victim_s = g_strdup_printf ("%d", victim);
  env = g_environ_setenv (env, "TANDEM_TEST_DIE_RANK", victim_s, TRUE);
  env = g_environ_setenv (env, "TANDEM_TEST_DIE_SIGNAL", "9", TRUE);
  /* Open MPI 4.1's mpirun crashes in pmix_server_log when an abort message meets meson's
   * MALLOC_PERTURB_ (see test-run-mpi.c) */
  env = g_environ_unsetenv (env, "MALLOC_PERTURB_");

  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gint64 t0 = g_get_monotonic_time ();
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  double wall = (g_get_monotonic_time () - t0) * 1e-6;
  g_test_message ("np %d, rank %d killed: status %d after %.1f s\nstderr:\n%s", np, victim,
                  status, wall, err);
  g_assert_nonnull (strstr (err, "TANDEM_TEST_DIE_AT_TASK: SIGKILL"));
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  /* start-up (a few seconds under load) plus at most one timeout after the kill; the
   * 60 s of `timeout` would mean a hang */
  g_assert_cmpfloat (wall, <, 25.0);

  g_autoptr (ResStore) store = res_store_open_full (db, RES_OPEN_READ_ONLY, 1000, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) runs = res_store_list_runs (store, 0, &error);
  g_assert_no_error (error);
  /* exactly once */
  g_assert_cmpuint (runs->len, ==, 1);
  const ResRunRow *row = g_ptr_array_index (runs, 0);
  g_assert_cmpint (row->kind, ==, RES_KIND_RUN);
  g_assert_cmpint (row->world_size, ==, np);
  if (row->status == RES_STATUS_FAILED)
    {
      /* closed by a survivor within one timeout of the start (the kill comes at the 6th
       * task, well inside the first second), with 3 s for a loaded machine */
      g_assert_nonnull (row->error);
      g_assert_nonnull (row->finished_at);
      double took = seconds_between (row->started_at, row->finished_at);
      g_test_message ("closed as failed %.2f s after its start: %s", took, row->error);
      g_assert_cmpfloat (took, <, TIMEOUT_S + 3.0);
    }
  else
    {
      /* nobody closed it: still 'running' until the heartbeat is one timeout old */
      g_assert_true (row->status == RES_STATUS_RUNNING || row->status == RES_STATUS_DIED);
      g_usleep ((gulong) ((TIMEOUT_S + 0.5) * G_USEC_PER_SEC));
      ResRunStatus now;
      g_assert_true (res_store_get_run_status (store, row->run_id, &now, &error));
      g_assert_cmpint (now, ==, RES_STATUS_DIED);
    }
  g_autoptr (ResRunRecord) rec = res_store_get_run (store, row->run_id, &error);
  g_assert_no_error (error);
  g_assert_false (rec->has_measurement);
  g_assert_cmpuint (rec->phases->len, ==, 0);
  g_clear_pointer (&store, res_store_close);

  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

static void
test_np2_rank0 (void)
{
  kill_case (2, 0, "--pp 2 --gbs 4");
}

static void
test_np2_rank1 (void)
{
  kill_case (2, 1, "--pp 2 --gbs 4");
}

static void
test_np4_rank0 (void)
{
  kill_case (4, 0, "--tp 2 --pp 2 --gbs 4");
}

static void
test_np4_rank3 (void)
{
  kill_case (4, 3, "--tp 2 --pp 2 --gbs 4");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/run-kill/np2-rank0", test_np2_rank0);
  g_test_add_func ("/exec/run-kill/np2-rank1", test_np2_rank1);
  g_test_add_func ("/exec/run-kill/np4-rank0", test_np4_rank0);
  g_test_add_func ("/exec/run-kill/np4-rank3", test_np4_rank3);
  return g_test_run ();
}
