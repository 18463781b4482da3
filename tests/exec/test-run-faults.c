/* tests/exec/test-run-faults.c - `tandem run` under the MPI faults of issue 15 that
 * test-run-kill.c (kill -9 of one rank) does not cover, each with the run in the store
 * exactly once afterwards and the job over long before the hard limit of `timeout 60`
 * (a hang, the fault these guard against, would reach it and fail the asserts):
 *
 *  - a rank that stalls before MPI_Init (TANDEM_TEST_STALL=init, rank 1, then rank 0): the
 *    watchdog of rank 0 prints "MPI_Init did not complete within 10 s" (--timeout, but at
 *    least 10 s) and stores the run as failed with that message;
 *  - a rank that stalls after MPI_Init, before its first group (TANDEM_TEST_STALL=groups):
 *    rank 0 gives up creating the group after --timeout and stores the failure;
 *  - a rank that stalls before MPI_Finalize (TANDEM_TEST_STALL=finalize): the run was
 *    stored ok before; the watchdog ends the ranks (exit status 1, "MPI_Finalize");
 *  - SIGSTOP of rank 0 (TANDEM_TEST_DIE_SIGNAL=STOP): its beats stop; rank 1 says
 *    "rank 0 sent nothing for ... (dead, stopped or hung ...)" and stores the failure;
 *  - a slow rank (TANDEM_TEST_SLOW_MS=400 before each of its tasks, --timeout 2): rank 0
 *    waits longer than the timeout for it (without beats it fails: "task 12 (recv from
 *    stage 1 ...) timed out after 2 s"), but rank 1's beats show it moving on, so the run
 *    ends ok;
 *  - a hung rank (5 s before each task, --timeout 2): alive (its beats come) but not
 *    moving: "rank 1 is alive but made no progress for ... s: at step 1 of 1, task ...";
 *  - kill -9 of the whole job (every process under mpirun frozen, then killed) during a
 *    long run: nobody can close the row, so it stays 'running' until its heartbeat is one
 *    timeout old, and then `tandem runs` shows it as died, once.
 *  - tandem calibrate with rank 1 stopped mid-way (TANDEM_TEST_CALIBRATE_STOP_RANK): rank 0
 *    gives up after --timeout (it waited the backend's 300 s, with no flag), exit 1.
 *
 * Each case: `timeout -k 5 60 mpirun -np 2 TANDEM_EXE run` on tiny-llama (128 tokens, PP 2,
 * global batch 4 or 2). Skipped when mpirun, timeout or the MPI/BLAS backend are missing. */
#include "results/store.h"
#include "mpi-launch.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

typedef struct {
  char  *dir, *db;
  char  *out, *err;
  int    status;
} Job;

static void
job_clear (Job *j)
{
  g_autoptr (GDir) d = j->dir ? g_dir_open (j->dir, 0, NULL) : NULL;
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (j->dir, name, NULL);
      g_unlink (p);
    }
  if (j->dir)
    g_rmdir (j->dir);
  g_free (j->dir);
  g_free (j->db);
  g_free (j->out);
  g_free (j->err);
}

/* The command line: `timeout -k 5 60 mpirun ... -x VAR... -np 2 TANDEM_EXE run ARGS --db DB`
 * with vars[] = { "NAME=VALUE", ..., NULL } in the environment too. */
static GPtrArray *
job_argv (Job *j, const char *const *vars, const char *args, char ***envp)
{
  j->dir = g_dir_make_tmp ("tandem-faults-XXXXXX", NULL);
  j->db = g_build_filename (j->dir, "t.db", NULL);
  GPtrArray *argv = mpi_test_argv_new ();
  char **env = mpi_test_environ ();
  /* Open MPI 4.1's mpirun crashes in pmix_server_log when an abort message meets meson's
   * MALLOC_PERTURB_ (see test-run-mpi.c) */
  env = g_environ_unsetenv (env, "MALLOC_PERTURB_");
  for (guint i = 0; vars && vars[i]; i++)
    {
      g_auto (GStrv) kv = g_strsplit (vars[i], "=", 2);
      env = g_environ_setenv (env, kv[0], kv[1], TRUE);
      g_ptr_array_add (argv, g_strdup ("-x"));
      g_ptr_array_add (argv, g_strdup (kv[0]));
    }
  g_ptr_array_add (argv, g_strdup ("-np"));
  g_ptr_array_add (argv, g_strdup ("2"));
  g_ptr_array_add (argv, g_strdup (g_getenv ("TANDEM_EXE")));
  g_auto (GStrv) words = g_strsplit (args, " ", -1);
  for (guint i = 0; words[i]; i++)
    g_ptr_array_add (argv, g_strdup (words[i]));
  g_ptr_array_add (argv, g_strdup ("--db"));
  g_ptr_array_add (argv, g_strdup (j->db));
  g_ptr_array_add (argv, NULL);
  *envp = env;
  return argv;
}

/* Runs the job to its end; FALSE (test skipped) when it cannot be launched here. */
static gboolean
job_run (Job *j, const char *const *vars, const char *args)
{
  if (!mpi_test_can_launch (TRUE))
    return FALSE;
  char **env = NULL;
  g_autoptr (GPtrArray) argv = job_argv (j, vars, args, &env);
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
                               &j->out, &j->err, &j->status, &error));
  g_assert_no_error (error);
  g_strfreev (env);
  g_test_message ("%s: status %d after %.1f s\nstderr:\n%s", args, j->status,
                  (g_get_monotonic_time () - t0) * 1e-6, j->err);
  return TRUE;
}

/* The job failed on its own: not through `timeout` (which exits 124 after its SIGTERM, 137
 * after its SIGKILL). mpirun itself may die of a signal once its ranks left without
 * MPI_Finalize (Open MPI 4.1.4 crashed in PMIx_server_finalize so, SIGSEGV), and it may
 * hang in its own teardown after it has reported every rank's exit (seen twice in the
 * stall-finalize case under ASan on an idle machine: both ranks' "did not complete"
 * lines at 10 s, mpirun's closing "mpirun detected that one or more processes exited
 * with non-zero status" report, then no exit until timeout's SIGKILL at 65 s). That
 * report is printed only after the ranks have exited, so with it a killed mpirun still
 * shows that no tandem rank hung: accepted, and said in the log. */
static void
assert_ended_failed (const Job *j)
{
  int status = j->status;
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  const gboolean ranks_ended
    = j->err != NULL
      && strstr (j->err, "mpirun detected that one or more processes exited") != NULL;
  const gboolean killed = WIFEXITED (status) ? WEXITSTATUS (status) == 124
                                                 || WEXITSTATUS (status) == 137
                                             : WTERMSIG (status) == SIGKILL;
  if (killed && ranks_ended)
    {
      g_test_message ("mpirun hung in its own teardown after reporting its ranks' exit "
                      "(status %d): not a tandem rank", status);
      return;
    }
  if (WIFEXITED (status))
    {
      g_assert_cmpint (WEXITSTATUS (status), !=, 124);
      g_assert_cmpint (WEXITSTATUS (status), !=, 137);
    }
  else
    g_assert_cmpint (WTERMSIG (status), !=, SIGKILL);
}

/* The one run in the store (asserts there is exactly one). */
static ResRunRow *
only_run (const Job *j)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ResStore) store = res_store_open_full (j->db, RES_OPEN_READ_ONLY, 1000, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) runs = res_store_list_runs (store, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (runs->len, ==, 1);
  return g_ptr_array_steal_index (runs, 0);
}

#define ARGS_PP2 "run --model tiny-llama --seq 128 --steps 1 --warmup 0 --pp 2 --gbs 4"

static void
stall_init (const char *rank)
{
  Job j = { 0 };
  g_autofree char *who = g_strdup_printf ("TANDEM_TEST_STALL_RANK=%s", rank);
  const char *vars[] = { "TANDEM_TEST_STALL=init", who, NULL };
  if (!job_run (&j, vars, ARGS_PP2 " --timeout 2"))
    return;
  g_assert_nonnull (strstr (j.err, "TANDEM_TEST_STALL: stalling before MPI_Init"));
  /* ended by the watchdog, not by `timeout` */
  assert_ended_failed (&j);
  g_assert_nonnull (strstr (j.err, "rank 0: MPI_Init did not complete within 10 s (--timeout"));
  g_autoptr (ResRunRow) row = only_run (&j);
  g_assert_cmpint (row->kind, ==, RES_KIND_RUN);
  g_assert_cmpint (row->status, ==, RES_STATUS_FAILED);
  g_assert_cmpint (row->world_size, ==, 2);
  g_assert_cmpstr (row->model, ==, "tiny-llama");
  g_assert_nonnull (strstr (row->error, "MPI_Init did not complete"));
  job_clear (&j);
}

/* Bad input on one rank only (mpirun's "-np 1 A : -np 1 B", as a second node without the
 * model file): the failing rank still comes to the flag comparison, so both end at once
 * with its exit status 2 and its own message, named. Before, the other rank waited in the
 * comparison until the job broke (32 s, exit 1, "MPI_Finalize did not complete ... the
 * run's result was printed and stored before"), and the model error was never shown. */
/* mpirun with one rank of each of the two tandem command lines (argument lists ended by
 * NULL; "-np 1 TANDEM_EXE" before each): its exit status and stderr. */
static int
run_two_lines (const char *const *line0, const char *const *line1, char **err)
{
  g_autoptr (GPtrArray) argv = mpi_test_argv_new ();
  char **env = g_environ_unsetenv (mpi_test_environ (), "MALLOC_PERTURB_");
  for (int r = 0; r < 2; r++)
    {
      if (r == 1)
        g_ptr_array_add (argv, g_strdup (":"));
      g_ptr_array_add (argv, g_strdup ("-np"));
      g_ptr_array_add (argv, g_strdup ("1"));
      g_ptr_array_add (argv, g_strdup (g_getenv ("TANDEM_EXE")));
      const char *const *words = r == 0 ? line0 : line1;
      for (guint i = 0; words[i]; i++)
        g_ptr_array_add (argv, g_strdup (words[i]));
    }
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, err, &status, &error));
  g_assert_no_error (error);
  g_strfreev (env);
  g_test_message ("status %d\nstderr:\n%s", status, *err);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
one_rank_bad (int bad)
{
  if (!mpi_test_can_launch (TRUE))
    return;
  g_autofree char *dir = g_dir_make_tmp ("tandem-onebad-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  const char *good[] = { "run", "--model", "tiny-llama", "--seq", "128", "--steps", "1",
                         "--warmup", "0", "--tp", "2", "--gbs", "2", "--db", db, NULL };
  const char *worse[G_N_ELEMENTS (good)];
  memcpy (worse, good, sizeof good);
  worse[2] = "no-such-dir/config.json";
  g_autofree char *err = NULL;
  g_assert_cmpint (run_two_lines (bad == 0 ? worse : good, bad == 1 ? worse : good, &err), ==, 2);
  g_assert_null (strstr (err, "MPI_Finalize did not complete"));
  g_assert_null (strstr (err, "comparing the ranks' flags"));
  if (bad == 1)
    {
      g_assert_nonnull (strstr (err, "tandem: error: rank 1: no model config file "
                                     "'no-such-dir/config.json'"));
      g_assert_nonnull (strstr (err, "rank 1 of 2 could not prepare the run"));
    }
  else
    g_assert_nonnull (strstr (err, "tandem: error: no model config file "
                                   "'no-such-dir/config.json'"));
  g_unlink (db);
  g_rmdir (dir);
}

/* ... and one whose flags fail before MPI is up on rank 1 only (a --plan file missing on
 * its node): rank 0 waits in MPI_Init while rank 1 exits 2, and the job had ended with
 * exit 2 and no message at all; rank 1 says why now. */
static void
one_rank_bad_plan_file (void)
{
  if (!mpi_test_can_launch (TRUE))
    return;
  const char *good[] = { "run", "--model", "tiny-llama", "--seq", "128", "--steps", "1",
                         "--tp", "2", "--gbs", "2", "--no-db", NULL };
  const char *worse[] = { "run", "--model", "tiny-llama", "--seq", "128", "--steps", "1",
                          "--tp", "2", "--gbs", "2", "--no-db", "--plan",
                          "no-such-dir/plan.json", NULL };
  g_autofree char *err = NULL;
  g_assert_cmpint (run_two_lines (good, worse, &err), ==, 2);
  g_assert_nonnull (strstr (err, "tandem: error: rank 1: "));
  g_assert_nonnull (strstr (err, "no-such-dir/plan.json"));
}

static void
test_one_rank_bad_input (void)
{
  one_rank_bad (1);
  one_rank_bad (0);
  one_rank_bad_plan_file ();
}

static void
test_stall_init_rank1 (void)
{
  stall_init ("1");
}

static void
test_stall_init_rank0 (void)
{
  stall_init ("0");
}

/* A rank that stalls after MPI start-up, before its first group (TANDEM_TEST_STALL=groups,
 * rank 1): rank 0 has stored the row (running) and waits to create the world group for the
 * run id. MPI_Comm_split has no timeout: before, rank 0 sat in it until `timeout` ended the
 * job at 60 s, and the row read as died once its heartbeat was a timeout old. Now the
 * barrier before the split gives up after --timeout 2 s, rank 0 closes the row as failed
 * with that reason and exits 1; mpirun ends rank 1. */
static void
test_stall_groups (void)
{
  Job j = { 0 };
  const char *vars[] = { "TANDEM_TEST_STALL=groups", NULL };
  if (!job_run (&j, vars, ARGS_PP2 " --timeout 2"))
    return;
  g_assert_nonnull (strstr (j.err, "TANDEM_TEST_STALL: stalling before creating its groups"));
  assert_ended_failed (&j);
  g_assert_nonnull (strstr (j.err, "creating group 'world': not every one of the 2 ranks came "
                                   "to create its groups within 2 s"));
  g_autoptr (ResRunRow) row = only_run (&j);
  g_assert_cmpint (row->status, ==, RES_STATUS_FAILED);
  g_assert_nonnull (strstr (row->error, "not every one of the 2 ranks"));
  job_clear (&j);
}

/* Rank 0's report (its --verify single-rank check, its store) outlasting --timeout while
 * rank 1 waits at the end: the end barrier's group was made there, and its creation's
 * barrier had a fixed deadline of --timeout that ignored rank 0's beats, so rank 1 gave up
 * ("creating group 'world': not every one of the 2 ranks came ... within 1 s") and the
 * verified run failed. The group is made at the start now; the wait goes on while rank 0
 * beats: a report 4 s long under --timeout 1 ends ok, stored. */
static void
test_slow_report (void)
{
  Job j = { 0 };
  const char *vars[] = { "TANDEM_TEST_REPORT_DELAY_S=4", NULL };
  if (!job_run (&j, vars, ARGS_PP2 " --timeout 1"))
    return;
  g_assert_cmpint (j.status, ==, 0);
  g_assert_null (strstr (j.err, "creating group"));
  g_assert_nonnull (strstr (j.out, "stored as run 1"));
  g_autoptr (ResRunRow) row = only_run (&j);
  g_assert_cmpint (row->status, ==, RES_STATUS_OK);
  job_clear (&j);
}

static void
test_stall_finalize (void)
{
  Job j = { 0 };
  const char *vars[] = { "TANDEM_TEST_STALL=finalize", NULL };
  if (!job_run (&j, vars, ARGS_PP2 " --timeout 2"))
    return;
  g_assert_nonnull (strstr (j.err, "TANDEM_TEST_STALL: stalling before MPI_Finalize"));
  assert_ended_failed (&j);
  g_assert_nonnull (strstr (j.err, "MPI_Finalize did not complete within 10 s (--timeout"));
  /* the result came first: printed, and stored ok */
  g_assert_nonnull (strstr (j.out, "stored as run 1"));
  g_autoptr (ResRunRow) row = only_run (&j);
  g_assert_cmpint (row->status, ==, RES_STATUS_OK);
  g_assert_true (row->measured_step_s > 0);
  job_clear (&j);
}

static void
test_sigstop_rank0 (void)
{
  Job j = { 0 };
  const char *vars[] = { "TANDEM_TEST_DIE_AT_TASK=5", "TANDEM_TEST_DIE_RANK=0",
                         "TANDEM_TEST_DIE_SIGNAL=STOP", NULL };
  if (!job_run (&j, vars, ARGS_PP2 " --timeout 2"))
    return;
  g_assert_nonnull (strstr (j.err, "TANDEM_TEST_DIE_AT_TASK: SIGSTOP"));
  assert_ended_failed (&j);
  g_autoptr (ResRunRow) row = only_run (&j);
  g_assert_cmpint (row->status, ==, RES_STATUS_FAILED);
  /* rank 1 closed it: rank 0 was stopped, so its beats stopped */
  g_assert_nonnull (strstr (row->error, "rank 1: "));
  g_assert_nonnull (strstr (row->error, "rank 0 sent nothing for"));
  g_assert_nonnull (strstr (row->error, "dead, stopped or hung"));
  job_clear (&j);
}

static void
test_slow_rank (void)
{
  Job j = { 0 };
  /* 400 ms before each of rank 1's tasks: its first backward gradient reaches rank 0
   * some 5.2 s after rank 0 asked for it (13 tasks of stage 1 for micro-batch 0), 2.6
   * timeouts; rank 1 starts a task every 0.4 s all that time */
  const char *vars[] = { "TANDEM_TEST_SLOW_MS=400", "TANDEM_TEST_SLOW_RANK=1", NULL };
  if (!job_run (&j, vars, "run --model tiny-llama --seq 128 --steps 1 --warmup 0 --pp 2 "
                          "--gbs 2 --timeout 2"))
    return;
  g_assert_true (g_spawn_check_wait_status (j.status, NULL));
  g_assert_null (strstr (j.err, "timed out"));
  g_autoptr (ResRunRow) row = only_run (&j);
  g_assert_cmpint (row->status, ==, RES_STATUS_OK);
  /* the step took longer than the timeout: the beats carried the waits */
  g_assert_cmpfloat (row->measured_step_s, >, 2.0);
  job_clear (&j);
}

static void
test_hung_rank (void)
{
  Job j = { 0 };
  /* 5 s before each task of rank 1: alive (its progress thread beats) but still for more
   * than the 2 s timeout and the quarter timeout the wait looks again after */
  const char *vars[] = { "TANDEM_TEST_SLOW_MS=5000", "TANDEM_TEST_SLOW_RANK=1", NULL };
  if (!job_run (&j, vars, ARGS_PP2 " --timeout 2"))
    return;
  assert_ended_failed (&j);
  g_autoptr (ResRunRow) row = only_run (&j);
  g_assert_cmpint (row->status, ==, RES_STATUS_FAILED);
  g_assert_nonnull (strstr (row->error, "rank 0: "));
  g_assert_nonnull (strstr (row->error, "rank 1 is alive but made no progress for"));
  g_assert_nonnull (strstr (row->error, "(at step 1 of 1, task "));
  job_clear (&j);
}

/* Every process below `pid` (from /proc), children before parents. */
static void
descendants (GPid pid, GArray *out)
{
  g_autoptr (GDir) d = g_dir_open ("/proc", 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      if (!g_ascii_isdigit (name[0]))
        continue;
      g_autofree char *path = g_build_filename ("/proc", name, "stat", NULL);
      g_autofree char *text = NULL;
      if (!g_file_get_contents (path, &text, NULL, NULL))
        continue;
      const char *paren = strrchr (text, ')');   /* "pid (comm) S ppid ..." */
      int ppid = 0;
      char state;
      if (paren == NULL || sscanf (paren + 1, " %c %d", &state, &ppid) != 2 || ppid != pid)
        continue;
      GPid child = (GPid) g_ascii_strtoll (name, NULL, 10);
      descendants (child, out);
      g_array_append_val (out, child);
    }
}

static void
test_kill_whole_job (void)
{
  if (!mpi_test_can_launch (TRUE))
    return;
  Job j = { 0 };
  char **env = NULL;
  /* long enough to be killed in the middle: 200 steps */
  g_autoptr (GPtrArray) argv = job_argv (&j, NULL, "run --model tiny-llama --seq 128 "
                                         "--steps 200 --warmup 0 --pp 2 --gbs 4 --timeout 1",
                                         &env);
  g_autoptr (GError) error = NULL;
  GPid pid;
  g_assert_true (g_spawn_async (NULL, (char **) argv->pdata, env, G_SPAWN_DO_NOT_REAP_CHILD
                                | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                                NULL, &pid, &error));
  g_assert_no_error (error);
  g_strfreev (env);
  /* wait (up to 40 s) for the running row and a heartbeat after its start */
  gboolean running = FALSE;
  for (int i = 0; i < 400 && !running; i++)
    {
      g_usleep (100000);
      if (!g_file_test (j.db, G_FILE_TEST_EXISTS))
        continue;
      g_autoptr (ResStore) store = res_store_open_full (j.db, RES_OPEN_READ_ONLY, 1000, NULL);
      g_autoptr (GPtrArray) runs = store ? res_store_list_runs (store, 0, NULL) : NULL;
      if (runs && runs->len == 1)
        {
          const ResRunRow *row = g_ptr_array_index (runs, 0);
          running = row->status == RES_STATUS_RUNNING
                    && g_strcmp0 (row->heartbeat_at, row->started_at) != 0;
        }
    }
  g_assert_true (running);
  /* kill -9 of the whole job: freeze every process first, so that none of them sees
   * another die (and closes the run), then kill them all */
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  descendants (pid, pids);
  g_array_append_val (pids, pid);
  for (guint i = 0; i < pids->len; i++)
    kill (g_array_index (pids, GPid, i), SIGSTOP);
  for (guint i = 0; i < pids->len; i++)
    kill (g_array_index (pids, GPid, i), SIGKILL);
  int status = 0;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFSIGNALED (status));
  g_test_message ("killed %u processes", pids->len);

  /* stale after one timeout (1 s) without a heartbeat (period 0.25 s): died */
  g_usleep (1500000);
  g_autoptr (ResRunRow) row = only_run (&j);
  g_assert_cmpint (row->status, ==, RES_STATUS_DIED);
  g_assert_null (row->finished_at);
  /* and so in `tandem runs`, once */
  g_autofree char *out = NULL;
  const char *runs_argv[] = { g_getenv ("TANDEM_EXE"), "runs", "--db", j.db, NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) runs_argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                               NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_test_message ("tandem runs:\n%s", out);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  const char *died = strstr (out, " died ");
  g_assert_nonnull (died);
  g_assert_null (strstr (died + 1, " died "));
  g_assert_null (strstr (out, " running "));
  job_clear (&j);
}

/* tandem calibrate under mpirun -np 2 with rank 1 stopped 1.5 s into the benchmarks
 * (TANDEM_TEST_CALIBRATE_STOP_RANK=1, after its groups are made): rank 0 waited in the
 * next barrier for the backend's default of 300 s, and calibrate had no flag to shorten
 * it. With --timeout 3 rank 0 gives up 3 s after rank 1 stopped: exit 1 within about
 * start-up + 1.5 + 3 s (far under the 60 s of `timeout`), one line naming the wait and
 * the flag, and no profile stored (the store is written only after the measurement). */
static void
test_calibrate_stopped_rank (void)
{
  Job j = { 0 };
  const char *vars[] = { "TANDEM_TEST_CALIBRATE_STOP_RANK=1", NULL };
  if (!job_run (&j, vars, "calibrate --quick --timeout 3 --out /dev/null"))
    return;
  assert_ended_failed (&j);
  g_assert_true (WIFEXITED (j.status));
  g_assert_cmpint (WEXITSTATUS (j.status), ==, 1);
  g_assert_nonnull (strstr (j.err, "tandem: rank 1: TANDEM_TEST_CALIBRATE_STOP_RANK: SIGSTOP"));
  g_assert_nonnull (strstr (j.err, "tandem: error: rank 0: calibrate: "));
  g_assert_nonnull (strstr (j.err, "timed out after 3 s: a peer did not take part"));
  g_assert_nonnull (strstr (j.err, "--timeout S waits longer"));
  g_assert_false (g_file_test (j.db, G_FILE_TEST_EXISTS));
  job_clear (&j);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/run-faults/one-rank-bad-input", test_one_rank_bad_input);
  g_test_add_func ("/exec/run-faults/stall-init-rank1", test_stall_init_rank1);
  g_test_add_func ("/exec/run-faults/stall-init-rank0", test_stall_init_rank0);
  g_test_add_func ("/exec/run-faults/stall-groups", test_stall_groups);
  g_test_add_func ("/exec/run-faults/stall-finalize", test_stall_finalize);
  g_test_add_func ("/exec/run-faults/slow-report", test_slow_report);
  g_test_add_func ("/exec/run-faults/sigstop-rank0", test_sigstop_rank0);
  g_test_add_func ("/exec/run-faults/slow-rank", test_slow_rank);
  g_test_add_func ("/exec/run-faults/hung-rank", test_hung_rank);
  g_test_add_func ("/exec/run-faults/kill-whole-job", test_kill_whole_job);
  g_test_add_func ("/exec/run-faults/calibrate-stopped-rank", test_calibrate_stopped_rank);
  return g_test_run ();
}
