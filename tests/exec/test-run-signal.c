/* tests/exec/test-run-signal.c - `tandem run` on one rank (no launcher) asked to end by
 * SIGTERM (kill, a batch system's cancel) or SIGINT (Ctrl-C) while it runs. The run was
 * recorded as 'running' at its start; afterwards it must be in the store exactly once,
 * closed as failed with the signal named, and the process must end soon after the signal
 * with exit status 1 (a failure at run time).
 *
 * Before: SIGTERM set a flag that only a wait for a peer read, and one rank never waits,
 * so the run went on to its last step and was stored as ok with exit status 0; SIGINT had
 * no handler and left the row 'running' (read as 'died' a --timeout later).
 *
 * Also here (store_refused): a run whose row the store took at the start but whose result
 * it refuses at the end is closed as failed, naming the file that holds the result.
 *
 * Each signal case: TANDEM_EXE run on tiny-llama (128 tokens) with --steps 5000, far more than
 * the test waits; the signal is sent once the store holds the 'running' row. Skipped when
 * the CPU backend or TANDEM_EXE is missing. */
#include "results/store.h"
#include "exec/backend.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>

/* TRUE (the test skipped) where the CPU backend or TANDEM_EXE is missing. */
static gboolean
skip_unless_runnable (void)
{
  g_autoptr (GError) error = NULL;
  if (!exec_cpu_ops.available (&error))
    {
      g_test_skip (error->message);
      return TRUE;
    }
  if (!g_getenv ("TANDEM_EXE"))
    {
      g_test_skip ("TANDEM_EXE is not set (run through meson test)");
      return TRUE;
    }
  return FALSE;
}

/* A test's scratch directory and the files in it (the store and its -wal / -shm). */
static void
remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *entry;
  while (d != NULL && (entry = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, entry, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

/* The store's one run, a `run` closed as failed with an error; `*runs` (the caller's,
 * freed with it) holds the row. */
static const ResRunRow *
the_failed_run (ResStore *store, GPtrArray **runs)
{
  g_autoptr (GError) error = NULL;
  *runs = res_store_list_runs (store, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint ((*runs)->len, ==, 1);
  const ResRunRow *row = g_ptr_array_index (*runs, 0);
  g_assert_cmpint (row->kind, ==, RES_KIND_RUN);
  g_assert_cmpint (row->status, ==, RES_STATUS_FAILED);
  g_assert_nonnull (row->finished_at);
  g_assert_nonnull (row->error);
  return row;
}

/* The one run of `db`, once the store has it as running (NULL after `wait_s`). */
static ResRunRow *
wait_running (const char *db, double wait_s)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (wait_s * G_USEC_PER_SEC);
  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ResStore) store = NULL;
      if (g_file_test (db, G_FILE_TEST_EXISTS))
        store = res_store_open_full (db, RES_OPEN_READ_ONLY, 1000, &error);
      g_autoptr (GPtrArray) runs = store ? res_store_list_runs (store, 0, &error) : NULL;
      if (runs != NULL && runs->len == 1)
        {
          ResRunRow *row = g_ptr_array_steal_index (runs, 0);
          if (row->status == RES_STATUS_RUNNING)
            return row;
          res_run_row_free (row);
        }
      g_usleep (100000);
    }
  return NULL;
}

/* data: the signal; SIGINT | 0x100: SIGINT and at once SIGTERM, as mpirun follows a
 * Ctrl-C or a batch system a cancel: a different second signal must not end the process
 * before it closed the run (only the same one twice does) */
static void
signal_case (gconstpointer data)
{
  int sig = GPOINTER_TO_INT (data) & 0xff;
  gboolean then_term = (GPOINTER_TO_INT (data) & 0x100) != 0;
  /* 0x200: one long step at 16,384 tokens, whose attention kernel alone runs about two
   * minutes on this VM; the signal was read only between tasks, so it went unanswered
   * that long. The kernel now polls it between query rows. */
  gboolean long_attn = (GPOINTER_TO_INT (data) & 0x200) != 0;
  const char *name = sig == SIGINT ? "SIGINT" : "SIGTERM";
  g_autoptr (GError) error = NULL;
  if (skip_unless_runnable ())
    return;
  g_autofree char *dir = g_dir_make_tmp ("tandem-signal-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  const char *argv[] = { g_getenv ("TANDEM_EXE"), "run", "--model", "tiny-llama", "--seq",
                         long_attn ? "16384" : "128", "--steps", long_attn ? "2" : "5000",
                         "--warmup", "0", "--db", db, NULL };
  GPid pid = 0;
  g_assert_true (g_spawn_async (dir, (char **) argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL
                                | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, &error));
  g_assert_no_error (error);

  ResRunRow *running = wait_running (db, 60);
  if (running == NULL)
    kill (pid, SIGKILL);
  g_assert_nonnull (running);
  res_run_row_free (running);
  g_usleep (long_attn ? 1500000 : 300000);   /* into the steps (the attention kernel) */
  g_assert_cmpint (kill (pid, sig), ==, 0);
  if (then_term)
    g_assert_cmpint (kill (pid, SIGTERM), ==, 0);

  /* the next task boundary comes within milliseconds on tiny-llama; 20 s is a hang
   * (before the fix: 5000 steps, minutes) */
  gint64 t0 = g_get_monotonic_time ();
  int status = 0;
  pid_t got = 0;
  while ((got = waitpid (pid, &status, WNOHANG)) == 0
         && g_get_monotonic_time () - t0 < 20 * G_USEC_PER_SEC)
    g_usleep (50000);
  double wall = (g_get_monotonic_time () - t0) * 1e-6;
  if (got == 0)
    {
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
    }
  g_test_message ("%s: ended after %.2f s, wait status %#x", name, wall, status);
  g_assert_cmpint (got, ==, pid);
  /* exited, not killed by the signal: the handler closed the run; exit status 1 is the
   * exit table's "failure at run time" (tandem --help) */
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);

  g_autoptr (ResStore) store = res_store_open_full (db, RES_OPEN_READ_ONLY, 1000, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) runs = NULL;
  /* exactly once: the row written as running at the start, now closed */
  const ResRunRow *row = the_failed_run (store, &runs);
  g_assert_nonnull (row->error);
  g_test_message ("stored error: %s", row->error);
  /* "rank 0: interrupted by SIGTERM before task T (...), in step S of N"; of two signals
   * sent back to back, either may be handled first */
  g_autofree char *said = then_term ? g_strdup ("rank 0: interrupted by SIG")
                                    : g_strdup_printf ("rank 0: interrupted by %s", name);
  g_assert_nonnull (strstr (row->error, said));
  /* counted from 1 out of warm-up and measured steps together, as a peer's progress
   * ("at step 1 of 5") reads the same step; it said "in step 0" */
  g_assert_nonnull (strstr (row->error, ", in step "));
  g_assert_null (strstr (row->error, ", in step 0"));
  g_assert_nonnull (strstr (row->error, " of "));
  g_autoptr (ResRunRecord) rec = res_store_get_run (store, row->run_id, &error);
  g_assert_no_error (error);
  g_assert_false (rec->has_measurement);
  g_clear_pointer (&store, res_store_close);

  remove_dir (dir);
}

/* A cancel that lands while --verify's single-rank reference runs (the hook raises
 * SIGTERM there, after the measured steps finished): the run is closed as failed, exit 1,
 * and the message says it was stopped during the reference, not that the reference
 * "failed" (it said "the single-rank reference run failed: rank 0: interrupted by SIGTERM",
 * which reads as a wrong result). */
static void
signal_in_verify (void)
{
  g_autoptr (GError) error = NULL;
  if (skip_unless_runnable ())
    return;
  g_autofree char *dir = g_dir_make_tmp ("tandem-signal-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  const char *argv[] = { g_getenv ("TANDEM_EXE"), "run", "--model", "tiny-llama", "--seq",
                         "128", "--steps", "1", "--warmup", "0", "--verify", "--db", db, NULL };
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "TANDEM_TEST_SIGNAL_IN_VERIFY",
                                          "1", TRUE);
  g_autofree char *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (dir, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                               NULL, NULL, &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("stderr: %s", err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_assert_nonnull (strstr (err, "--verify: stopped during the single-rank reference run, "
                                 "after the measured run had finished"));
  g_assert_null (strstr (err, "reference run failed"));
  g_autoptr (ResStore) store = res_store_open_full (db, RES_OPEN_READ_ONLY, 1000, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) runs = NULL;
  const ResRunRow *row = the_failed_run (store, &runs);
  g_assert_nonnull (strstr (row->error, "stopped during the single-rank reference run"));
  g_clear_pointer (&store, res_store_close);
  remove_dir (dir);
}

/* The store takes the 'running' row at the start but refuses the result at the end (a
 * trigger that aborts every insert into phases, as a constraint or a full table would).
 * The result is printed and written to a fallback file (exit 1, as for every refused
 * result); before, the row stayed 'running', read as 'died' once its heartbeats stopped,
 * and nothing in the store said the run had finished or where its result went. Now the
 * row is closed as failed naming the file (absolute, so `tandem runs show` finds it from
 * anywhere). data != NULL: the store refuses the closing update too (a trigger on
 * updates of runs' status); then a warning says the row will read as 'died' and where
 * the result is. */
static void
store_refused (gconstpointer data)
{
  gboolean refuse_close = data != NULL;
  g_autoptr (GError) error = NULL;
  if (skip_unless_runnable ())
    return;
  g_autofree char *dir = g_dir_make_tmp ("tandem-refused-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  {
    g_autoptr (ResStore) store = res_store_open_full (db, RES_OPEN_DEFAULT, 1000, &error);
    g_assert_no_error (error);
  }
  sqlite3 *h = NULL;
  g_assert_cmpint (sqlite3_open (db, &h), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (h, "CREATE TRIGGER refuse_phases BEFORE INSERT ON phases "
                                 "BEGIN SELECT RAISE(ABORT, 'phases refused by a trigger'); "
                                 "END", NULL, NULL, NULL), ==, SQLITE_OK);
  if (refuse_close)
    g_assert_cmpint (sqlite3_exec (h, "CREATE TRIGGER refuse_close BEFORE UPDATE OF status "
                                   "ON runs BEGIN SELECT RAISE(ABORT, 'closing refused by a "
                                   "trigger'); END", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (h);

  const char *argv[] = { g_getenv ("TANDEM_EXE"), "run", "--model", "tiny-llama", "--seq",
                         "128", "--steps", "2", "--warmup", "0", "--db", db, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("stdout: %s\nstderr: %s", out, err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_assert_nonnull (strstr (out, "step time: predicted"));       /* printed first */
  const char *w = strstr (out, "; result written to ");
  g_assert_nonnull (w);
  w += strlen ("; result written to ");
  g_autofree char *name = g_strndup (w, strcspn (w, "\n"));
  g_autofree char *fallback = g_canonicalize_filename (name, dir);
  g_assert_true (g_file_test (fallback, G_FILE_TEST_IS_REGULAR));

  g_autoptr (ResStore) store = res_store_open_full (db, RES_OPEN_READ_ONLY, 1000, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) runs = res_store_list_runs (store, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (runs->len, ==, 1);     /* the row of the start, nothing inserted twice */
  const ResRunRow *row = g_ptr_array_index (runs, 0);
  if (!refuse_close)
    {
      row = the_failed_run (store, &runs);
      g_test_message ("stored error: %s", row->error);
      g_assert_nonnull (strstr (row->error, "the run finished but its result was not stored"));
      g_assert_nonnull (strstr (row->error, "phases refused by a trigger"));
      g_assert_nonnull (strstr (row->error, fallback));          /* the absolute path */
      g_assert_nonnull (strstr (err, "is closed as failed, naming where the result is"));
    }
  else
    {
      /* still 'running' (until its heartbeat is stale: 'died'), and said so */
      g_assert_cmpint (row->status, ==, RES_STATUS_RUNNING);
      g_assert_nonnull (strstr (err, "could not be closed either"));
      g_assert_nonnull (strstr (err, "closing refused by a trigger"));
      g_assert_nonnull (strstr (err, "reads as 'running', then 'died'"));
      g_assert_nonnull (strstr (err, fallback));
    }
  g_clear_pointer (&store, res_store_close);
  remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/run/signal/term", GINT_TO_POINTER (SIGTERM), signal_case);
  g_test_add_data_func ("/run/signal/int", GINT_TO_POINTER (SIGINT), signal_case);
  g_test_add_data_func ("/run/signal/int-then-term", GINT_TO_POINTER (SIGINT | 0x100),
                        signal_case);
  g_test_add_data_func ("/run/signal/int-in-attention", GINT_TO_POINTER (SIGINT | 0x200),
                        signal_case);
  g_test_add_func ("/run/signal/in-verify", signal_in_verify);
  g_test_add_data_func ("/run/store-refused/closed", NULL, store_refused);
  g_test_add_data_func ("/run/store-refused/not-closed", "", store_refused);
  return g_test_run ();
}
