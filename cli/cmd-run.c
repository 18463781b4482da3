/* cli/cmd-run.c - `tandem run`: execute a plan on the ranks of this launch (mpirun or
 * srun), measure it, predict the same plan for this hardware, store both under one run
 * and print them side by side.
 *
 * Every rank parses the same flags, opens the backend (which initialises MPI), resolves
 * the plan against the launcher's world size and runs its part (exec/runner.h). Rank 0
 * alone then checks the result against a single-rank run (--verify), predicts, stores
 * and prints; the other ranks print only their own failures.
 *
 * Recorded from the start: once the plan is resolved, rank 0 writes the run as
 * 'running' (res_store_start_run) and every rank learns its id (an all-reduce in which
 * only rank 0 adds it); while it runs a thread of rank 0 refreshes its heartbeat, so that
 * a row left 'running' by a job killed outright reads as 'died' once the heartbeat is
 * older than one --timeout. At the end rank 0 prints, then closes the row with the
 * measurement and the prediction (print, then store: docs/contracts.md).
 *
 * Failure: a rank whose wait times out prints "rank R: task T (...) timed out waiting for
 * group 'G' (ranks ...)", closes the run as failed and ends the job (MPI_Abort). When a
 * rank dies, Open MPI's mpirun ends the others with SIGTERM: each closes the run as failed
 * and exits. Whoever closes first wins: closing is one transaction that only a running
 * row accepts (res_store_finish_run), so the run is in the store exactly once and no rank
 * waits for another.
 *
 * Test hook: TANDEM_TEST_DIE_AT_TASK=N makes rank TANDEM_TEST_DIE_RANK (default 1) call
 * _exit (1) just before the N-th task (0-based, in its stage's program order) of the first
 * step; with TANDEM_TEST_DIE_SIGNAL=9 it kills itself with SIGKILL instead (kill -9: no
 * handler, no cleanup); with TANDEM_TEST_DIE_SIGNAL=STOP it stops itself (SIGSTOP).
 * TANDEM_TEST_SLOW_MS=M makes rank TANDEM_TEST_SLOW_RANK (default 1) sleep M ms before each
 * task of the first step (a slow rank; its progress beats go on).
 *
 * Slow or dead: every rank's backend beats (exec_progress_note): a wait that runs out
 * goes on while the peers it waits for beat and one of them moves on, and otherwise says
 * which peer is to blame and where it is ("rank 1 is alive but made no progress for 2.1 s
 * (at step 1 of 3, task 49 (recv from stage 0))", "rank 0 sent nothing for 2.0 s (dead,
 * stopped or hung ...)"). At the end the other ranks wait for rank 0 (end_barrier) as long
 * as it beats, so that no rank enters MPI_Finalize while rank 0 still reports.
 *
 * Start-up and shutdown: MPI_Init (inside exec_backend_open) and MPI_Finalize (inside
 * exec_backend_close) wait for every rank, and a rank that never gets there would hang
 * the job forever. A watchdog thread bounds each by --timeout (at least MPI_PHASE_MIN_S):
 * on expiry the rank prints "tandem: error: rank R: MPI_Init did not complete within T s
 * ..." and _exits 1 (the
 * launcher then ends the others). Start-up: rank 0 first stores the run as failed (no row
 * was written yet: the plan is resolved after MPI is up); the other ranks give up one grace
 * period later, so that they do not take rank 0 down before it has stored. Shutdown: the
 * run is stored already; the watchdog only ends the process.
 * Between the two, group creation (MPI_Comm_split, blocking) waits for every rank too; the
 * CPU backend bounds it by --timeout with a non-blocking barrier before each split
 * (exec/backend-cpu-coll.c), and the run fails as any timed-out collective does.
 * Test hook: TANDEM_TEST_STALL=init|groups|finalize makes rank TANDEM_TEST_STALL_RANK
 * (default 1) sleep for an hour with the watchdog armed, just before MPI_Init, its first
 * group or MPI_Finalize (the other ranks then really wait inside them). */
#include "cli/cmd-run-private.h"
#include "cli/cli-hygiene.h"
#include "exec/calibrate.h"
#include "results/store.h"
#include "util/output.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_TIMEOUT_S 30.0
/* MPI_Init and MPI_Finalize get --timeout, but never less than this: two ranks of the
 * sanitizer build took more than 3 s to start on a loaded 2-core machine (ours). */
#define MPI_PHASE_MIN_S 10.0
/* --steps and --warmup at most this: the runner allocates each timed step's task records
 * and every step's loss at the start, and --steps 2000000000 asked for 3.7 TB at once
 * (GLib's abort); warmup + steps also had to stay an int. 10,000 steps of the smallest
 * run (tiny-llama on 2 ranks, 0.34 s a step: README's `tandem runs`) take an hour. */
#define RUN_MAX_STEPS 10000

/* The number of the signal that asked the run to end (0: none). */
static volatile int run_interrupted;

/* SIGTERM (the launcher ending the job, kill, a batch system's cancel) and SIGINT (Ctrl-C)
 * stop the run at the next task or wait, which closes it as failed and exits 1. The same
 * signal a second time while it is stopping (or stuck outside the runner: MPI_Init) ends
 * the process at once, as without the handler; another one does not (Ctrl-C reaches the
 * ranks with SIGINT and mpirun follows it with SIGTERM: the run must still be closed). */
static void
on_terminate (int sig)
{
  if (run_interrupted == sig)
    {
      signal (sig, SIG_DFL);
      raise (sig);
      return;
    }
  if (run_interrupted == 0)
    run_interrupted = sig;
}

/* The rank as the launcher tells it, before MPI is up (so only rank 0 prints usage). */
static int
launcher_rank (void)
{
  static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                      "SLURM_PROCID" };
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      const char *v = g_getenv (vars[i]);
      if (v)
        return (int) g_ascii_strtoll (v, NULL, 10);
    }
  return 0;
}

static int
fail0 (const RunCtx *c, int status, const char *format, ...) G_GNUC_PRINTF (3, 4);
static int
fail0 (const RunCtx *c, int status, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (c->rank != 0)
    {
      /* before MPI is up a rank's own input can fail where rank 0's did not (a --plan
       * file missing on its node): rank 0 then waits in MPI_Init and the job ended with
       * exit 2 and no word. Said after a pause, so that where rank 0 failed too (the
       * usual case: the same command line everywhere) the launcher has ended this rank
       * before it repeats rank 0's message */
      if (c->b == NULL)
        {
          g_usleep (3 * G_USEC_PER_SEC);
          fprintf (stderr, "tandem: error: rank %d: %s\n", c->rank, msg);
        }
      return status;
    }
  return cli_fail (status, "%s", msg);
}

static gboolean
has_profile (const TopoCluster *cl)
{
  return cl->json != NULL && strstr (cl->json, "\"profile\"") != NULL;
}

/* A one-level cluster calibrated on fewer ranks than this run has, widened to the world
 * (the level's per-rank figures stay; only its count changes). */
static TopoCluster *
widen (TopoCluster *cl, int world, GError **error)
{
  if (cl == NULL || cl->n_devices >= (guint64) world || cl->n_levels != 1 || cl->json == NULL)
    return cl;
  g_autoptr (TopoCluster) old = cl;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, old->json, -1, error))
    return NULL;
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonObject *lvl = json_array_get_object_element (json_object_get_array_member (root, "levels"),
                                                   0);
  json_object_set_int_member (lvl, "count", world);
  g_autofree char *src = g_strdup_printf ("%s (count raised from %" G_GUINT64_FORMAT " to the "
                                          "%d ranks of tandem run)",
                                          json_object_has_member (lvl, "source")
                                            ? json_object_get_string_member (lvl, "source") : "",
                                          old->levels[0].count, world);
  json_object_set_string_member (lvl, "source", src);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_autofree char *text = json_generator_to_data (gen, NULL);
  return topo_cluster_new_from_data (text, -1, old->source, error);
}

static TopoCluster *
pick_cluster_as_given (RunCtx *c, GError **error)
{
  if (c->pargs.cluster_name)
    {
      TopoCluster *cl = topo_cluster_lookup (c->pargs.cluster_name, error);
      if (cl)
        c->calibrated = has_profile (cl);
      return cl;
    }
  if (!c->dba.no_db && g_file_test (cli_db_path (&c->dba), G_FILE_TEST_EXISTS))
    {
      g_autoptr (ResStore) store = cli_store_open (&c->dba, TRUE, NULL);
      g_autofree char *prof = store ? res_store_latest_profile_info (store, "cpu",
                                                                     g_get_host_name (),
                                                                     &c->profile_id,
                                                                     &c->profile_stored_at,
                                                                     NULL)
                                    : NULL;
      if (prof)
        {
          TopoCluster *cl = topo_cluster_new_from_data (prof, -1, "profile:cpu", NULL);
          if (cl)
            {
              c->calibrated = TRUE;
              return cl;
            }
        }
    }
  return topo_cluster_lookup ("cpu-host", error);
}

/* --cluster, else this host's newest calibrated profile in the database, else the
 * uncalibrated cpu-host preset; widened to the world when calibrated on fewer ranks. */
static TopoCluster *
pick_cluster (RunCtx *c, GError **error)
{
  return widen (pick_cluster_as_given (c, error), c->world, error);
}

/* ---- the row written at the start ------------------------------------------------------ */

/* Heartbeat period: a quarter of the timeout, between 0.1 s and 10 s (ours: often enough
 * that one lost beat is not a stale row). A row is stale after one timeout without a
 * beat, and never before three periods. */
#define HEARTBEAT_MIN_S 0.1
#define HEARTBEAT_MAX_S 10.0

static double
heartbeat_period (const RunCtx *c)
{
  return CLAMP (c->a.timeout_s / 4, HEARTBEAT_MIN_S, HEARTBEAT_MAX_S);
}

static double
stale_after (const RunCtx *c)
{
  return MAX (c->a.timeout_s, 3 * heartbeat_period (c));
}

struct RunHeartbeat {
  GThread  *thread;
  GMutex    lock;
  GCond     cond;
  gboolean  stop;
  char     *db;
  guint     timeout_ms;
  gint64    run_id;
  double    period_s;
};

/* Its own connection (a ResStore is one thread's): beats until told to stop. A beat
 * that fails (the file locked past the busy timeout) is skipped; the next one tries
 * again. */
static gpointer
heartbeat_main (gpointer data)
{
  struct RunHeartbeat *h = data;
  g_autoptr (ResStore) store = res_store_open_full (h->db, RES_OPEN_DEFAULT, h->timeout_ms,
                                                    NULL);
  g_mutex_lock (&h->lock);
  while (!h->stop)
    {
      gint64 until = g_get_monotonic_time () + (gint64) (h->period_s * G_TIME_SPAN_SECOND);
      while (!h->stop && g_cond_wait_until (&h->cond, &h->lock, until))
        ;
      if (h->stop || store == NULL)
        continue;
      g_mutex_unlock (&h->lock);
      g_autoptr (GError) error = NULL;
      gboolean ok = res_store_heartbeat (store, h->run_id, &error);
      g_mutex_lock (&h->lock);
      if (!ok && g_error_matches (error, RES_ERROR, RES_ERROR_CLOSED))
        h->stop = TRUE;               /* someone closed it: nothing left to keep fresh */
    }
  g_mutex_unlock (&h->lock);
  return NULL;
}

static void
heartbeat_stop (RunCtx *c)
{
  struct RunHeartbeat *h = c->heartbeat;
  if (h == NULL)
    return;
  g_mutex_lock (&h->lock);
  h->stop = TRUE;
  g_cond_signal (&h->cond);
  g_mutex_unlock (&h->lock);
  g_thread_join (h->thread);
  g_mutex_clear (&h->lock);
  g_cond_clear (&h->cond);
  g_free (h->db);
  g_free (h);
  c->heartbeat = NULL;
}

static void
heartbeat_start (RunCtx *c)
{
  struct RunHeartbeat *h = g_new0 (struct RunHeartbeat, 1);
  g_mutex_init (&h->lock);
  g_cond_init (&h->cond);
  h->db = g_strdup (cli_db_path (&c->dba));
  h->timeout_ms = (guint) c->dba.timeout_ms;
  h->run_id = c->run_id;
  h->period_s = heartbeat_period (c);
  h->thread = g_thread_new ("tandem-heartbeat", heartbeat_main, h);
  c->heartbeat = h;
}

/* A number below 2^63 as three 21-bit pieces, each exact in fp32 (24-bit significand), so
 * that it crosses a float collective unchanged; and back. */
static void
u63_to_pieces (guint64 v, float piece[3])
{
  for (int i = 0; i < 3; i++)
    piece[i] = (float) ((v >> (21 * i)) & 0x1FFFFF);
}

static guint64
u63_from_pieces (const float piece[3])
{
  guint64 v = 0;
  for (int i = 0; i < 3; i++)
    v |= (guint64) piece[i] << (21 * i);
  return v;
}

/* A group of every rank (its creation is collective: each rank calls it at one point). */
static ExecGroup *
world_group_new (const RunCtx *c, GError **error)
{
  g_autofree int *members = g_new (int, c->world);
  for (int r = 0; r < c->world; r++)
    members[r] = r;
  return exec_group_new (c->b, "world", members, c->world, error);
}

/* One fp32 collective over the whole world outside the runner (its groups do not exist
 * yet, or no longer): `count` floats of `send` each rank, into `recv` (`recv_count`
 * floats: count for an all-reduce, world x count for an all-gather). `what` names the
 * stream and prefixes an error. */
static gboolean
world_collective (const RunCtx *c, ExecCollKind kind, const char *what, const float *send,
                  gsize count, float *recv, gsize recv_count, GError **error)
{
  gboolean ok = FALSE;
  ExecGroup *group = world_group_new (c, error);
  ExecStream *stream = group ? exec_stream_new (c->b, EXEC_STREAM_COMM, what, error) : NULL;
  ExecBuffer *sbuf = stream ? exec_buffer_new (c->b, count * sizeof (float), error) : NULL;
  ExecBuffer *rbuf = sbuf ? exec_buffer_new (c->b, recv_count * sizeof (float), error) : NULL;
  if (rbuf && c->b->ops->buffer_upload (c->b, sbuf, 0, send, count * sizeof (float), error))
    {
      ExecColl op = { .kind = kind, .dtype = EXEC_DTYPE_F32, .send = sbuf->data,
                      .recv = rbuf->data, .count = count };
      ExecSample sample;
      ok = exec_collective (stream, group, &op, &sample, error)
           && exec_stream_synchronize (stream, error)
           && c->b->ops->buffer_download (c->b, recv, rbuf, 0, recv_count * sizeof (float),
                                          error);
    }
  exec_buffer_free (rbuf);
  exec_buffer_free (sbuf);
  exec_stream_free (stream);
  exec_group_free (group);
  if (!ok)
    g_prefix_error (error, "%s: ", what);
  return ok;
}

/* Every rank learns rank 0's run id: an all-reduce (sum) over the world in which the
 * others add zeros, the id as u63_to_pieces sends it. */
static gboolean
share_run_id (RunCtx *c, GError **error)
{
  if (c->world == 1)
    return TRUE;
  float piece[3] = { 0, 0, 0 }, sum[3];
  if (c->rank == 0)
    u63_to_pieces (c->run_id > 0 ? (guint64) c->run_id : 0, piece);
  if (!world_collective (c, EXEC_COLL_ALL_REDUCE, "sharing the run id", piece, 3, sum, 3,
                         error))
    return FALSE;
  guint64 id = u63_from_pieces (sum);
  c->run_id = id > 0 ? (gint64) id : -1;
  return TRUE;
}

/* 63 bits of FNV-1a over `s` (NULL as the empty text, told apart by a flag byte) */
static guint64
hash63 (const char *s)
{
  guint64 h = 0xcbf29ce484222325ull;
  h = (h ^ (s == NULL ? 0x01u : 0x02u)) * 0x100000001b3ull;
  for (const char *p = s ? s : ""; *p; p++)
    h = (h ^ (guchar) *p) * 0x100000001b3ull;
  return h & ((1ull << 63) - 1);
}

/* Every rank runs what rank 0 runs: the same plan (as resolved: model shape, degrees,
 * batch, sequence...), the same steps, warm-up, seed and --verify, and the same --cost.
 * Ranks started with different flags (mpirun's "-np 1 A : -np 1 B", a wrapper that edits
 * one rank's command) exchanged buffers of different sizes and died in MPI (a truncated
 * receive, then a crash on the abort path), or ran and stored a loss that is no
 * training's, or failed --verify and blamed the parallel run. Each rank's components go
 * to all in an all-gather (u63_to_pieces); a mismatch ends every rank with exit 2, rank
 * 0 naming the rank and what differs. */
/* `failed` is this rank's exit status where it could not prepare its run (0 where it
 * could): a rank whose own input fails (its model file missing, as with another working
 * directory on a second node) still comes to the all-gather, so the others learn it at
 * once instead of waiting there until its exit broke the group (32 s, exit 1, and a
 * message that said the result had been stored). FALSE with *peer_status the first
 * failed rank's status (and *peer_rank that rank; error unset), or with `error` set for
 * a mismatch or a collective that failed. */
static gboolean
check_ranks_agree (RunCtx *c, int failed, int *peer_rank, int *peer_status, GError **error)
{
  *peer_rank = -1;
  *peer_status = 0;
  c->agreed = TRUE;
  if (c->world <= 1)
    return TRUE;
  enum { K = 7 };
  guint64 mine[K] = { 0 };
  g_autofree char *plan_str = NULL;
  if (failed == 0)
    {
      plan_str = plan_to_string (&c->plan);
      g_autoptr (JsonBuilder) pb = json_builder_new ();
      plan_to_json (&c->plan, pb);
      g_autofree char *plan_json = cli_json_text (pb);
      g_autofree char *model = g_strdup_printf ("%s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
                                                c->model->name, c->model->n_layers,
                                                c->model->hidden);
      g_autofree char *steps = g_strdup_printf ("%d %d", c->a.steps, c->a.warmup);
      g_autofree char *seed = g_strdup_printf ("%" G_GINT64_FORMAT " %d", c->a.seed,
                                               c->a.verify);
      g_autofree char *cost = c->a.cost ? g_strjoinv (",", c->a.cost) : NULL;
      /* the store as given: ranks with other --db files each closed "their" run N */
      g_autofree char *db = c->dba.no_db ? NULL : g_strdup (cli_db_path (&c->dba));
      const guint64 h[K - 1] = { hash63 (plan_json), hash63 (model), hash63 (steps),
                                 hash63 (seed), hash63 (cost), hash63 (db) };
      memcpy (mine, h, sizeof h);
    }
  mine[K - 1] = (guint64) failed;
  const char *const what[K - 1] = { "plan", "model", "--steps or --warmup",
                                    "--seed or --verify", "--cost", "--db or --no-db" };
  float piece[K * 3];
  for (int k = 0; k < K; k++)
    u63_to_pieces (mine[k], &piece[k * 3]);
  g_autofree float *all = g_new0 (float, (gsize) K * 3 * c->world);
  if (!world_collective (c, EXEC_COLL_ALL_GATHER, "comparing the ranks' flags", piece, K * 3,
                         all, (gsize) K * 3 * c->world, error))
    return FALSE;
  for (int r = 0; r < c->world; r++)
    {
      const guint64 st = u63_from_pieces (&all[(gsize) r * K * 3 + (K - 1) * 3]);
      if (st != 0)
        {
          *peer_rank = r;
          *peer_status = st <= 255 ? (int) st : CLI_EXIT_FAILURE;
          return FALSE;
        }
    }
  for (int r = 1; r < c->world; r++)
    for (int k = 0; k < K - 1; k++)
      if (memcmp (&all[(gsize) r * K * 3 + k * 3], &all[k * 3], 3 * sizeof (float)) != 0)
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "the ranks were not started with "
                       "the same flags: rank %d's %s differs from rank 0's (rank 0 runs %s) "
                       "(hint: start every rank with the same tandem run command line)", r,
                       what[k], plan_str);
          return FALSE;
        }
  return TRUE;
}

/* fail0 for the preparation after MPI_Init, before the ranks compare their flags: with
 * several ranks the failing one still takes part in that comparison (check_ranks_agree),
 * so every rank ends at once with the first failed rank's status. Rank 0 prints its own
 * message; a rank whose rank 0 did not fail prints its own, named ("rank 1: cannot read
 * model ..."), since rank 0 cannot, and rank 0 says which rank stopped the run. */
static int
fail_prep (RunCtx *c, int status, const char *format, ...) G_GNUC_PRINTF (3, 4);
static int
fail_prep (RunCtx *c, int status, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (c->b == NULL || c->world <= 1 || c->agreed)
    return fail0 (c, status, "%s", msg);
  int peer_rank, peer_status;
  g_autoptr (GError) error = NULL;
  gboolean ok = check_ranks_agree (c, status, &peer_rank, &peer_status, &error);
  g_assert (!ok);
  if (error != NULL || peer_rank < 0)
    return fail0 (c, status, "%s", msg);   /* the comparison itself failed */
  if (c->rank == 0)
    return cli_fail (peer_status, "%s", msg);
  if (peer_rank != 0)
    fprintf (stderr, "tandem: error: rank %d: %s\n", c->rank, msg);
  return peer_status;
}

static void
run_info (const RunCtx *c, ResRunInfo *info, char **plan_str, char **plan_json)
{
  *plan_str = plan_to_string (&c->plan);
  g_autoptr (JsonBuilder) pb = json_builder_new ();
  plan_to_json (&c->plan, pb);
  *plan_json = cli_json_text (pb);
  memset (info, 0, sizeof *info);
  info->kind = RES_KIND_RUN;
  info->status = RES_STATUS_OK;
  info->model = c->model ? c->model->name
                         : c->pargs.model_name ? c->pargs.model_name : "tiny-llama";
  info->cluster = c->cluster ? c->cluster->name : NULL;
  info->plan = *plan_str;
  info->plan_json = c->model ? *plan_json : NULL;   /* NULL: not resolved yet (MPI_Init) */
  info->model_json = c->model ? c->model->config_json : NULL;
  info->cluster_json = c->cluster ? c->cluster->json : NULL;
  info->world_size = c->world;
  info->note = c->a.note;
  /* the stack the run's prediction takes, as predict and import-log store theirs (NULL
   * left the column NULL: runs show said "framework": null) */
  info->framework = CLI_RUN_STACK;
}

/* Rank 0 writes the running row; every rank learns its id. A store that cannot be
 * written now does not stop the run: its result goes in (or to a fallback file) at the
 * end. FALSE only when the ranks could not agree (an MPI failure). */
static void stall_hook (const RunCtx *c, const char *phase);

static gboolean
run_start (RunCtx *c, GError **error)
{
  c->run_id = -1;
  if (c->dba.no_db)
    return TRUE;
  if (c->rank == 0)
    {
      g_autofree char *plan_str = NULL, *plan_json = NULL;
      ResRunInfo info;
      run_info (c, &info, &plan_str, &plan_json);
      g_autoptr (GError) local = NULL;
      g_autoptr (ResStore) store = cli_store_open (&c->dba, FALSE, &local);
      if (store != NULL)
        c->run_id = res_store_start_run (store, &info, stale_after (c), &local);
      if (c->run_id <= 0)
        {
          c->start_error = g_strdup (local->message);
          fprintf (stderr, "tandem: warning: the run is not recorded from its start (%s); "
                   "its result will be stored at the end, or written to a file\n",
                   local->message);
        }
    }
  stall_hook (c, "groups");
  if (!share_run_id (c, error))
    return FALSE;
  if (c->rank == 0 && c->run_id > 0)
    heartbeat_start (c);
  return TRUE;
}

/* ---- failure ---------------------------------------------------------------------------- */

/* Closes the run as failed, from any rank. The first close wins; a rank that finds it
 * closed already says nothing more. */
/* The options of this run's prediction: the CPU contention model's host (before --cost,
 * which may override it), then --cost. */
static gboolean
run_sim_options (const RunCtx *c, SimOptions *so, GError **error)
{
  sim_options_init (so, c->cluster);
  cli_run_cpu_host (c, &so->cost);
  return sim_cost_options_apply (&so->cost, (const char *const *) c->a.cost, error);
}

/* The plan's memory as the CPU engine holds it: no CUDA context, NCCL or workspaces. */
static void
run_memory (const RunCtx *c, PlanMemory *mem)
{
  PlanMemOptions mo;
  plan_mem_options_init (&mo);
  mo.reserve_fixed_bytes = 0;
  plan_memory_compute_full (c->model, &c->plan, c->cluster, &mo, mem);
}

/* A run that does not fit this host: the plan's prediction (tandem predict's figures, the
 * memory as the CPU engine holds it), printed and stored with the oom row as `predict`
 * stores a plan that does not fit, so that the failure says what the plan needs (the oom
 * row had no figures at all). */
typedef struct {
  SimPrediction *p;
  PlanMemory     mem;
  char          *mfu, *hfu, *memj;
  ResMetrics     m;
  char          *text;    /* for the error line */
} OomPrediction;

static gboolean
oom_prediction (RunCtx *c, OomPrediction *o)
{
  memset (o, 0, sizeof *o);
  if (c->model == NULL || c->cluster == NULL)
    return FALSE;
  SimOptions so;
  if (!run_sim_options (c, &so, NULL))
    return FALSE;
  o->p = sim_predict (c->model, &c->plan, c->cluster, &so, NULL);
  if (o->p == NULL)
    return FALSE;
  run_memory (c, &o->mem);
  o->mfu = cli_conv_json (c->model, o->p->result->mfu, 1);
  o->hfu = cli_number_json (o->p->result->hfu);
  g_autoptr (JsonBuilder) mb = json_builder_new ();
  plan_memory_to_json (&o->mem, mb);
  o->memj = cli_json_text (mb);
  cli_predicted_metrics (o->p, &o->mem, o->mfu, o->hfu, o->memj, &o->m);
  o->m.fits = 0;                 /* this host's memory said so, whatever the preset's */
  o->text = g_strdup_printf ("; the plan as predicted needs %s a rank at its peak (stage %d: "
                             "parameters, gradients, optimizer state and activations as the "
                             "CPU engine keeps them), its step %.6g s",
                             cli_fmt_bytes ((double) o->mem.peak_bytes), o->mem.peak_stage,
                             o->p->result->step_time_s);
  return TRUE;
}

static void
oom_prediction_clear (OomPrediction *o)
{
  g_clear_pointer (&o->p, sim_prediction_free);
  plan_memory_clear (&o->mem);
  g_clear_pointer (&o->mfu, g_free);
  g_clear_pointer (&o->hfu, g_free);
  g_clear_pointer (&o->memj, g_free);
  g_clear_pointer (&o->text, g_free);
}

/* pred: the plan's predicted figures stored with the row (NULL: none). The outcome goes
 * to `st` (NULL: not wanted); FALSE when another rank closed the row first, and this one
 * says nothing more. */
static gboolean
store_failed_as (RunCtx *c, const char *message, ResRunStatus status, const ResMetrics *pred,
                 CliStored *st)
{
  heartbeat_stop (c);
  if (c->dba.no_db)
    return TRUE;
  g_autoptr (GError) error = NULL;
  g_autoptr (ResStore) store = cli_store_open (&c->dba, FALSE, &error);
  gboolean ok = FALSE;
  gint64 id = -1;
  if (store != NULL && c->run_id > 0 && c->rank != 0)
    {
      /* a rank other than rank 0 closes the row rank 0 started only where it is this run
       * in this rank's store: ranks whose --db named other files (a node's own tandem.db
       * without a shared file system, an MPMD command line) closed another job's run 1
       * with this one's error, and that job then found its row "not running" */
      g_autoptr (GError) rerr = NULL;
      g_autoptr (ResRunRecord) rec = res_store_get_run (store, c->run_id, &rerr);
      g_autofree char *plan_str = plan_to_string (&c->plan);
      if (rec == NULL || rec->info.kind != RES_KIND_RUN || rec->info.world_size != c->world
          || g_strcmp0 (rec->info.plan, plan_str) != 0)
        {
          fprintf (stderr, "tandem: rank %d: run %" G_GINT64_FORMAT " in %s is not this run "
                   "(another plan, size or kind, or none): left to rank 0, whose row reads "
                   "'died' once its heartbeat stops\n", c->rank, c->run_id,
                   cli_db_path (&c->dba));
          return FALSE;
        }
    }
  if (store != NULL && c->run_id > 0)
    {
      ok = res_store_finish_run (store, c->run_id, status, message, pred, NULL,
                                 NULL, NULL, 0, &error);
      if (!ok && g_error_matches (error, RES_ERROR, RES_ERROR_CLOSED))
        return FALSE;
      id = c->run_id;
    }
  else if (store != NULL && c->rank == 0)
    {
      /* no row from the start: rank 0 alone inserts one, so there is one */
      g_autofree char *plan_str = NULL, *plan_json = NULL;
      ResRunInfo info;
      run_info (c, &info, &plan_str, &plan_json);
      info.status = status;
      info.error = message;
      id = pred != NULL ? res_store_add_prediction (store, &info, pred, NULL, 0, &error)
                        : res_store_add_failed_run (store, &info, &error);
      ok = id > 0;
    }
  else if (store != NULL)
    return FALSE;           /* not rank 0, no id: rank 0 records it, or nobody can */
  if (st != NULL)
    cli_stored_set (st, ok ? id : -1, ok ? NULL : error);
  if (ok)
    fprintf (stderr, "tandem: rank %d stored the failed run in %s\n", c->rank,
             cli_db_path (&c->dba));
  else
    fprintf (stderr, "tandem: error: rank %d: could not store the failed run: %s\n", c->rank,
             error ? error->message : "unknown error");
  return TRUE;
}

static void
store_failed (RunCtx *c, const char *message)
{
  store_failed_as (c, message, RES_STATUS_FAILED, NULL, NULL);
}

/* --json of a run that ended in failure: the object of a run's JSON with what is known
 * (the plan, the prediction where the plan does not fit this host) and no measurement,
 * so that a script reading stdout gets an answer, not nothing. */
static JsonNode *
failed_run_json (const RunCtx *c, const char *message, int status, const OomPrediction *o)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  if (c->model != NULL)
    json_builder_add_string_value (b, c->model->name);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "cluster");
  if (c->cluster != NULL)
    json_builder_add_string_value (b, c->cluster->name);
  else
    json_builder_add_null_value (b);
  /* the plan object and the stack, as a run's JSON has them (cli_run_json) */
  json_builder_set_member_name (b, "plan");
  plan_to_json (&c->plan, b);
  util_json_member_string (b, "framework", CLI_RUN_STACK);
  json_builder_set_member_name (b, "world_size");
  json_builder_add_int_value (b, c->world);
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, status == CLI_EXIT_NOFIT ? "oom" : "failed");
  json_builder_set_member_name (b, "exit_status");
  json_builder_add_int_value (b, status);
  json_builder_set_member_name (b, "error");
  json_builder_add_string_value (b, message);
  json_builder_set_member_name (b, "measured");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "predicted");
  if (o != NULL && o->p != NULL)
    {
      json_builder_begin_object (b);
      cli_run_predicted_members (b, o->p, -1, o->mem.peak_bytes);
      json_builder_set_member_name (b, "peak_stage");
      json_builder_add_int_value (b, o->mem.peak_stage);
      json_builder_set_member_name (b, "fits");
      json_builder_add_boolean_value (b, FALSE);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "error_pct");
  json_builder_add_null_value (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Never returns: the failure stored, the other ranks ended, exit `status`. With --json
 * the rank that closed the row (or rank 0 without a store) prints the failed run's JSON
 * with its run_id, stored first as every --json output is (docs/contracts.md). */
static void G_GNUC_NORETURN
run_failed_status (RunCtx *c, const GError *e, int status, const char *prefix,
                   const char *hint)
{
  OomPrediction o;
  gboolean have = status == CLI_EXIT_NOFIT && oom_prediction (c, &o);
  fprintf (stderr, "tandem: error: %s%s%s%s\n", prefix, e->message, have ? o.text : "", hint);
  fflush (stderr);
  fflush (stdout);
  CliStored st;
  cli_stored_init (&st, &c->dba);
  gboolean mine = store_failed_as (c, e->message,
                                   status == CLI_EXIT_NOFIT ? RES_STATUS_OOM : RES_STATUS_FAILED,
                                   have ? &o.m : NULL, &st);
  /* the rank that prints (rank 0, or the one that closed the row) keeps the failed run
   * where the store did not take it, as every command keeps its result
   * (docs/contracts.md): the JSON named no fallback_file and none was written, so a
   * failure whose store failed too left nothing but stderr */
  const gboolean unstored = st.tried && st.run_id <= 0;
  if (mine && (c->rank == 0 || st.run_id > 0) && (c->a.json || unstored))
    {
      g_autofree char *message = g_strconcat (prefix, e->message, NULL);
      g_autoptr (JsonNode) root = failed_run_json (c, message, status, have ? &o : NULL);
      /* run_id, or null with store_error and fallback_file (written here) */
      cli_stored_apply (&st, "run", root);
      if (c->a.json)
        {
          g_autofree char *text = util_json_to_data (root, TRUE);
          puts (text);
          fflush (stdout);
        }
      cli_stored_print_error (&st);
    }
  cli_stored_clear (&st);
  if (have)
    oom_prediction_clear (&o);
  fflush (stderr);
  if (!run_interrupted)
    exec_backend_abort (c->b, status);   /* the launcher is ending it otherwise */
  _exit (status);
}

static void G_GNUC_NORETURN
run_failed (RunCtx *c, const GError *e)
{
  run_failed_status (c, e, CLI_EXIT_FAILURE, "", "");
}

/* The runner failed: set up (exec_runner_new) or in the steps, where the buffers a step
 * allocates when it first runs (the activations, the attention scores) come. Out of host
 * memory is "does not fit" either way: exit 3 and the run stored as oom, as a prediction
 * that does not fit (a step's buffers past the host's memory were exit 1, "failed", with
 * no hint). */
static void G_GNUC_NORETURN
run_failed_runner (RunCtx *c, const GError *e)
{
  if (e->domain == EXEC_ERROR && e->code == EXEC_ERROR_MEMORY)
    run_failed_status (c, e, CLI_EXIT_NOFIT, "does not fit: ",
                       " (hint: a smaller --model, --seq-length or --mbs, or the model split "
                       "over more ranks: mpirun -np N with --tp/--pp)");
  run_failed (c, e);
}

/* Under an address-space limit (ulimit -v, RLIMIT_AS) OpenBLAS's own work buffers (128
 * MiB each, the calling thread's and each BLAS thread's, taken at the first GEMM) are
 * allocated after the runner's: where they do not fit, blas_memory_alloc retried for
 * ever (a run with ulimit -v 500000 hung past its timeout and ignored SIGTERM). With the
 * runner's buffers in place, that much address space is reserved and released once,
 * untouched, so a run that cannot get it ends as "does not fit" instead. */
#define RUN_BLAS_BUFFER_BYTES ((gsize) 128 << 20)
static gboolean
blas_headroom (const RunCtx *c, GError **error)
{
  struct rlimit rl;
  if (c->b == NULL || g_strcmp0 (c->b->config.backend, "cpu") != 0
      || getrlimit (RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return TRUE;
  gsize need = (gsize) (MAX (c->b->config.blas_threads, 1) + 1) * RUN_BLAS_BUFFER_BYTES
               + ((gsize) 64 << 20);   /* and the step's own transients */
  void *p = malloc (need);
  if (p != NULL)
    {
      free (p);
      return TRUE;
    }
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_MEMORY, "cannot reserve %" G_GSIZE_FORMAT
               " bytes of address space for the BLAS library's work buffers under this "
               "process's limit of %llu bytes (ulimit -v)", need,
               (unsigned long long) rl.rlim_cur);
  return FALSE;
}

static void
die_hook (int rank, int step, guint32 local, const ProgTask *t, gpointer data)
{
  const int *at = data;   /* [rank, task, slow rank, slow ms] */
  if (rank == at[2] && at[3] > 0)
    g_usleep ((gulong) at[3] * 1000);
  if (rank == at[0] && local == (guint32) at[1])
    {
      const char *sig = g_getenv ("TANDEM_TEST_DIE_SIGNAL");
      gboolean kill9 = g_strcmp0 (sig, "9") == 0, stop = g_strcmp0 (sig, "STOP") == 0;
      fprintf (stderr, "tandem: rank %d: TANDEM_TEST_DIE_AT_TASK: %s before task %u "
               "(step %d)\n", rank, kill9 ? "SIGKILL" : stop ? "SIGSTOP" : "exiting", t->id,
               step);
      fflush (stderr);
      if (kill9)
        raise (SIGKILL);
      if (stop)
        {
          raise (SIGSTOP);
          return;          /* continued: the launcher is ending the job */
        }
      _exit (1);
    }
}

/* ---- start-up, the end, shutdown --------------------------------------------------------- */

/* The others wait here until rank 0 has printed and stored, so that MPI_Finalize (which
 * waits for every rank) then takes no longer than a timeout. No deadline on rank 0's
 * report itself (a --verify reference run may take long): the wait goes on while rank 0
 * beats, and gives up one timeout after its beats stop (rank 0 dead, stopped or hung). */
static gboolean
end_barrier (RunCtx *c, GError **error)
{
  if (c->world < 2)
    return TRUE;
  exec_progress_note (c->b, 0, 0, 0, c->rank == 0 ? "done" : "waiting for rank 0");
  g_autofree int *members = g_new (int, c->world);
  for (int r = 0; r < c->world; r++)
    members[r] = r;
  float one = 1;
  gboolean ok = FALSE;
  /* the group run_start made while every rank was there; else one made now (a run that
   * failed before its start has none) */
  ExecGroup *group = c->end_group != NULL ? c->end_group : world_group_new (c, error);
  c->end_group = NULL;
  ExecStream *stream = group ? exec_stream_new (c->b, EXEC_STREAM_COMM, "end", error) : NULL;
  ExecEvent *ev = stream ? exec_event_new (c->b, error) : NULL;
  ExecBuffer *buf = ev ? exec_buffer_new (c->b, sizeof one, error) : NULL;
  if (buf && c->b->ops->buffer_upload (c->b, buf, 0, &one, sizeof one, error))
    {
      ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .dtype = EXEC_DTYPE_F32,
                      .send = buf->data, .recv = buf->data, .count = 1 };
      ExecSample sample;
      gint64 deadline = g_get_monotonic_time () + (gint64) (c->a.timeout_s * 1e6);
      gboolean done = FALSE;
      ok = exec_collective (stream, group, &op, &sample, error)
           && exec_event_record (ev, stream, error);
      while (ok && !done)
        {
          if (!(ok = exec_event_query (ev, &done, error)) || done)
            break;
          if (run_interrupted)
            {
              ok = FALSE;
              g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT, "rank %d: interrupted while "
                           "waiting for the other ranks at the end", c->rank);
              break;
            }
          if (g_get_monotonic_time () >= deadline)
            {
              /* rank 0 may take long (it reports); the others are here already. A
               * backend without beats (cuda) waits as MPI_Finalize would: for rank 0. */
              g_autofree char *why = NULL;
              int zero = 0;
              ExecPeerProgress pp;
              gboolean alive = !exec_progress_peer (c->b, c->rank == 0 ? 1 : 0, &pp)
                ? TRUE
                : c->rank != 0
                ? exec_progress_keep_waiting (c->b, &zero, 1, c->a.timeout_s, FALSE, &why)
                : exec_progress_keep_waiting (c->b, members, c->world, c->a.timeout_s, FALSE,
                                              &why);
              if (!alive)
                {
                  ok = FALSE;
                  g_set_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT, "rank %d: timed out after "
                               "%g s waiting for the other ranks at the end of the run%s%s",
                               c->rank, c->a.timeout_s, why ? ": " : "", why ? why : "");
                  break;
                }
              deadline = g_get_monotonic_time () + (gint64) (c->a.timeout_s * 1e6 / 4);
            }
          g_usleep (1000);
        }
    }
  exec_buffer_free (buf);
  exec_event_free (ev);
  exec_stream_free (stream);
  exec_group_free (group);
  return ok;
}

/* The watchdog: a thread that ends the process when MPI_Init or MPI_Finalize has not come
 * back within its time (see the top of this file). */
typedef struct {
  GThread    *thread;
  GMutex      lock;
  GCond       cond;
  gboolean    done;
  RunCtx     *c;
  const char *phase;      /* "MPI_Init", "MPI_Finalize" */
  double      seconds;
} RunWatchdog;

static gpointer
watchdog_main (gpointer data)
{
  RunWatchdog *w = data;
  gint64 until = g_get_monotonic_time () + (gint64) (w->seconds * G_TIME_SPAN_SECOND);
  g_mutex_lock (&w->lock);
  while (!w->done && g_cond_wait_until (&w->cond, &w->lock, until))
    ;
  if (w->done)
    {
      g_mutex_unlock (&w->lock);
      return NULL;
    }
  /* expired; the lock stays held, so a late cancel waits for the _exit */
  RunCtx *c = w->c;
  gboolean init = g_str_equal (w->phase, "MPI_Init");
  g_autofree char *msg = g_strdup_printf (
    "rank %d: %s did not complete within %g s (--timeout, at least %g s): %s", c->rank,
    w->phase, w->seconds, MPI_PHASE_MIN_S,
    init ? "a rank did not start, or stalled in MPI start-up"
         : "a rank stalled in MPI shutdown (the run's result was printed and stored before)");
  fprintf (stderr, "tandem: error: %s\n", msg);
  fflush (stderr);
  if (init && c->rank == 0)
    store_failed (c, msg);
  fflush (stderr);
  _exit (CLI_EXIT_FAILURE);
  return NULL;
}

static RunWatchdog *
watchdog_start (RunCtx *c, const char *phase, double seconds)
{
  RunWatchdog *w = g_new0 (RunWatchdog, 1);
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  w->c = c;
  w->phase = phase;
  w->seconds = seconds;
  w->thread = g_thread_new ("tandem-watchdog", watchdog_main, w);
  return w;
}

static void
watchdog_cancel (RunWatchdog *w)
{
  g_mutex_lock (&w->lock);
  w->done = TRUE;
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
  g_thread_join (w->thread);
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
  g_free (w);
}

/* TANDEM_TEST_STALL=phase on rank TANDEM_TEST_STALL_RANK (default 1): an hour's sleep.
 * Phases: init (before MPI_Init), groups (after it, before the first group is created:
 * rank 0 has stored the run's row), finalize (before MPI_Finalize). */
static void
stall_hook (const RunCtx *c, const char *phase)
{
  const char *stall = g_getenv ("TANDEM_TEST_STALL");
  const char *who = g_getenv ("TANDEM_TEST_STALL_RANK");
  if (g_strcmp0 (stall, phase) != 0 || c->rank != (who ? (int) g_ascii_strtoll (who, NULL, 10)
                                                        : 1))
    return;
  fprintf (stderr, "tandem: rank %d: TANDEM_TEST_STALL: stalling before %s\n", c->rank,
           g_str_equal (phase, "init") ? "MPI_Init"
           : g_str_equal (phase, "groups") ? "creating its groups" : "MPI_Finalize");
  fflush (stderr);
  g_usleep ((gulong) 3600 * G_USEC_PER_SEC);
}

/* The world's size as the launcher tells it, before MPI is up (0: not launched). */
static int
launcher_size (void)
{
  static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE",
                                      "SLURM_NTASKS" };
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      const char *v = g_getenv (vars[i]);
      if (v)
        return (int) g_ascii_strtoll (v, NULL, 10);
    }
  return 0;
}

/* ---- the single-rank reference ----------------------------------------------------------- */

/* --verify on a device backend (cuda) compares against the single-rank run on the CPU
 * kernels in host memory, with tolerances for BF16 tensor-core products (tandem run asks
 * the cuda backend for them: TANDEM_CUDA_MATMUL=bf16 unless set otherwise).
 *
 * BF16 keeps 8 significant bits (7 stored), so rounding an input costs at most
 * u = 2^-8 = 3.9e-3 relative (IEEE-style unit roundoff 2^-p, p = 8), and a product of two
 * rounded inputs 2u; cuBLAS accumulates in FP32 (CUBLAS_COMPUTE_32F_FAST_16BF), whose
 * 2^-24 per addition is negligible next to it. One step chains the GEMMs of the forward
 * (per llama layer QKV, O, gate-and-up, down: d = 4 L + 1 = 17 on tiny-llama, with the
 * head) and of the backward, which runs the chain again and reads the forward's
 * activations: 3d roundings stand between the data and a weight gradient. Independent
 * roundings of random sign grow like the square root of their number, so a gradient
 * element is off by about 2u sqrt (3d) = 5.6e-2 in the worst layer and the norm over
 * ~10^6 of them by no more: GNORM 5e-2 (the norm averages the elements' errors, most
 * layers see fewer roundings). The loss sees only the forward, 2u sqrt (d) = 3.2e-2
 * relative on the logits, and moves by that much of the logits' spread (O(0.1) at init,
 * weights of std 0.02) around ln V = 7.6: ~4e-4 relative, so LOSS 2e-2 leaves room for
 * larger models and trained weights. The CPU keeps the fp32 tolerances of
 * cmd-run-private.h (the same math, sums in another order). */
#define VERIFY_BF16_LOSS_TOL  2e-2
#define VERIFY_BF16_GNORM_TOL 5e-2

/* Does this backend compute elsewhere than in the CPU reference kernels? */
static gboolean
on_device (const RunCtx *c)
{
  return c->b->ops != &exec_cpu_ops;
}

static gboolean
verify_run (RunCtx *c, const ExecRunResult *res, Verify *v, GError **error)
{
  Plan p;
  plan_copy (&p, &c->plan);
  p.world_size = 1;
  p.tp = p.pp = p.cp = p.vpp = 1;
  p.ep = 1;    /* every expert on the one rank: the MoE block's reference */
  p.etp = 0;
  /* ep 1 has no busiest rank: a --moe-imbalance the plan's ep allows (2 at ep 2) made the
   * reference refuse it after the whole run had gone (exit 1, a failed row) */
  p.moe_imbalance = 0;
  p.moe_a2a_overlap = FALSE;
  p.vpp_group = 0;
  p.dp = 0;
  p.dp_given = 0;
  p.layers_per_virtual_stage = 0;
  p.first_stage_layers = p.last_stage_layers = -1;
  p.first_chunk_layers = p.last_chunk_layers = -1;
  p.sequence_parallel = FALSE;
  p.sharding = PLAN_SHARD_NONE;
  p.schedule = PLAN_SCHED_1F1B;
  p.schedule_set = FALSE;
  p.recompute = PLAN_RECOMPUTE_NONE;
  p.overlap_grad_reduce = p.overlap_param_gather = p.tp_comm_overlap = FALSE;
  gboolean ok = FALSE;
  g_autoptr (PlanLayout) layout = NULL;
  g_autoptr (ProgProgram) prog = NULL;
  g_autoptr (ExecRunner) runner = NULL;
  /* on a device backend the reference runs on its own CPU backend, without MPI (a world
   * of one: only rank 0 gets here) */
  g_autoptr (ExecBackend) host = NULL;
  ExecBackend *rb = c->b;
  if (on_device (c))
    {
      ExecConfig cfg;
      exec_config_init (&cfg);
      cfg.backend = "cpu";
      cfg.mpi = EXEC_MPI_OFF;
      cfg.timeout_s = c->a.timeout_s;
      rb = host = exec_backend_open (&cfg, error);
    }
  if (rb && plan_resolve (&p, c->model, c->cluster, error)
      && (layout = plan_layout_new (&p, c->cluster, error))
      && (prog = prog_program_new (c->model, &p, layout, error)))
    {
      ExecRunOptions o;
      exec_run_options_init (&o);
      o.local = TRUE;
      o.steps = 1;
      o.warmup = 0;
      o.seed = (guint64) c->a.seed;
      o.timeout_s = c->a.timeout_s;
      o.interrupted = &run_interrupted;
      runner = exec_runner_new (rb, prog, layout, &o, error);
      /* test hook: TANDEM_TEST_SIGNAL_IN_VERIFY=1 raises SIGTERM here, as a cancel that
       * lands while the reference runs (tests/exec/test-run-signal.c) */
      if (runner && g_getenv ("TANDEM_TEST_SIGNAL_IN_VERIFY") != NULL)
        raise (SIGTERM);
      ok = runner && exec_runner_run (runner, error);
    }
  if (ok)
    {
      const ExecRunResult *ref = exec_runner_result (runner);
      double loss_tol = on_device (c) ? VERIFY_BF16_LOSS_TOL : VERIFY_LOSS_TOL;
      double gnorm_tol = on_device (c) ? VERIFY_BF16_GNORM_TOL : VERIFY_GNORM_TOL;
      v->loss = res->loss;
      v->gnorm = res->grad_norm;
      v->ref_loss = ref->loss;
      v->ref_gnorm = ref->grad_norm;
      v->loss_err = fabs (v->loss - v->ref_loss) / MAX (fabs (v->ref_loss), 1e-30);
      v->gnorm_err = fabs (v->gnorm - v->ref_gnorm) / MAX (fabs (v->ref_gnorm), 1e-30);
      v->loss_tol = loss_tol;
      v->gnorm_tol = gnorm_tol;
      v->ok = v->loss_err <= loss_tol && v->gnorm_err <= gnorm_tol;
    }
  /* the runner's buffers belong to the backend it ran on: free it before that closes */
  g_clear_pointer (&runner, exec_runner_free);
  plan_clear (&p);
  if (!ok && run_interrupted)
    /* a signal stopped it: nothing failed, and the measured run had already finished */
    g_prefix_error (error, "--verify: stopped during the single-rank reference run, after "
                    "the measured run had finished (not stored: unverified): ");
  else if (!ok)
    g_prefix_error (error, "--verify: the single-rank reference run failed: ");
  return ok;
}

/* Rank 0, after a run that went through: what is not a result any more (the reference
 * run or the prediction failed) closes the row as failed. */
static int
report_failed (RunCtx *c, int status, const char *message)
{
  cli_fail (status, "%s", message);
  store_failed (c, message);
  return status;
}

/* Term 4 of sim/cost-cpu.c for this run: the segments of on-CPU work between two
 * collectives on stage 0's compute (the share prediction's compute time x the share it
 * took, which is the blind prediction's x the calibration's share: the work on a CPU),
 * each rank's share of the median step and its mean run and wait over that step's
 * compute. Collectives of any axis end a segment (the ranks meet there: TP's wait for
 * each all-reduce, DP's reduction after the backward); pipeline sends and receives do
 * not (a stage's peer runs other work; the pipeline's own waits are priced as the
 * bubble), so a plan without collectives in the step has no segment and no term. */
static void
run_skew (RunCtx *c, const ExecRunResult *m, const SimPrediction *q)
{
  c->skew_s = -1;
  c->skew_segments = 0;
  const ProgProgram *p = q->program;
  if (m->ranks == NULL || m->world < 2 || q->result->times == NULL || p->n_stages < 1)
    return;
  g_autofree SimCpuRankSched *rs = g_new0 (SimCpuRankSched, m->world);
  for (int r = 0; r < m->world; r++)
    {
      const ExecRankStats *st = &m->ranks[r];
      if (!(st->core_share > 0) || !(st->compute_slices > 0))
        return;
      rs[r].share = st->core_share;
      rs[r].run_s = st->compute_oncpu_s / st->compute_slices;
      rs[r].wait_s = st->compute_waiting_s / st->compute_slices;
      rs[r].wait_var_s = st->compute_wait_var_s;
    }
  g_autoptr (GArray) seg = g_array_new (FALSE, TRUE, sizeof (double));
  double w = 0;
  gboolean any_coll = FALSE;
  const ProgStage *st = &p->stages[0];
  for (guint32 i = st->first; i < st->first + st->n_tasks; i++)
    {
      const ProgTask *t = prog_task (p, i);
      const ProgTaskTime *tt = &q->result->times[i];
      if (t->kind == PROG_TASK_COMPUTE)
        w += MAX (tt->end_s - tt->start_s, 0.0) * c->step_share;
      else if (t->kind == PROG_TASK_COLL)
        {
          any_coll = TRUE;
          if (w > 0)
            g_array_append_val (seg, w);
          w = 0;
        }
    }
  if (!any_coll)
    {
      c->skew_s = 0;
      return;
    }
  if (w > 0)
    g_array_append_val (seg, w);   /* up to the next step's barrier */
  c->skew_segments = (int) seg->len;
  c->skew_s = sim_cost_cpu_skew_s ((const double *) (void *) seg->data, (int) seg->len, rs,
                                   m->world);
  for (int r = 0; r < m->world; r++)
    rs[r].wait_var_s = 0;
  c->skew_poisson_s = sim_cost_cpu_skew_s ((const double *) (void *) seg->data,
                                           (int) seg->len, rs, m->world);
}

/* The store refused the result of a run whose row was written at its start: that row
 * would stay 'running' and read as 'died' (heartbeats stop), with nothing to say the run
 * finished or where its result went. It is closed as failed, naming the file that holds
 * the result; that small update often goes in where the whole result did not (a store
 * that refuses the result's rows, a full disk that still takes one page), and where it
 * does not either, the note says what `tandem runs` will show. Returns the note for
 * stderr, or NULL when there is nothing to say. */
static char *
close_unstored (RunCtx *c, const CliStored *st)
{
  if (c->dba.no_db || !st->tried || st->run_id > 0 || c->run_id <= 0)
    return NULL;
  /* absolute: `tandem runs show` may be read from another directory */
  g_autofree char *where = st->fallback != NULL ? g_canonicalize_filename (st->fallback, NULL)
                                                : NULL;
  g_autofree char *why = where != NULL
    ? g_strdup_printf ("the run finished but its result was not stored (%s); the result is "
                       "in %s", st->store_error, where)
    : g_strdup_printf ("the run finished but its result was not stored (%s), nor written "
                       "to a file (%s)", st->store_error,
                       st->fallback_error != NULL ? st->fallback_error : "?");
  g_autoptr (GError) error = NULL;
  g_autoptr (ResStore) store = cli_store_open (&c->dba, FALSE, &error);
  if (store != NULL && res_store_finish_run (store, c->run_id, RES_STATUS_FAILED, why, NULL,
                                             NULL, NULL, NULL, 0, &error))
    return g_strdup_printf ("note: run %" G_GINT64_FORMAT " in %s is closed as failed, "
                            "naming where the result is", c->run_id, st->db);
  return g_strdup_printf ("warning: run %" G_GINT64_FORMAT " in %s could not be closed "
                          "either (%s): it reads as 'running', then 'died'; %s",
                          c->run_id, st->db, error != NULL ? error->message : "?", why);
}

static int
report (RunCtx *c, ExecRunner *runner, const ProgProgram *prog)
{
  const ExecRunResult *m = exec_runner_result (runner);
  g_autoptr (GError) error = NULL;
  Verify v = { 0 };
  /* test hook: rank 0's report (the --verify check, the store) taking longer than
   * --timeout, while the other ranks wait at the end (tests/exec/test-run-faults.c
   * slow-report) */
  const char *delay = g_getenv ("TANDEM_TEST_REPORT_DELAY_S");
  if (delay != NULL)
    g_usleep ((gulong) (g_ascii_strtod (delay, NULL) * G_USEC_PER_SEC));
  if (c->a.verify && !verify_run (c, m, &v, &error))
    return report_failed (c, CLI_EXIT_FAILURE, error->message);

  SimOptions so;
  if (!run_sim_options (c, &so, &error))
    return report_failed (c, CLI_EXIT_USAGE, error->message);
  so.keep_timeline = c->a.pred_trace != NULL || c->a.merged_trace != NULL;
  g_autoptr (SimPrediction) p = sim_predict (c->model, &c->plan, c->cluster, &so, &error);
  if (p == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("predicting the plan: %s", error->message);
      return report_failed (c, CLI_EXIT_FAILURE, msg);
    }
  /* the same with the core share this run measured in place of the calibration's: the
   * median step's slowest rank's, since the ranks wait for it at every collective (rank
   * 0's over the whole run where no rank measured its steps) */
  g_autofree double *shares = g_new0 (double, MAX (m->world, 1));
  for (int q = 0; m->ranks != NULL && q < m->world; q++)
    shares[q] = m->ranks[q].core_share;
  c->step_share = sim_cost_cpu_step_share (shares, m->world, &c->step_share_rank);
  if (c->step_share <= 0)
    c->step_share = c->run_share;
  SimCpuContention ct;
  if (c->step_share > 0 && sim_cost_cpu_contention (c->cluster, &so.cost, &ct)
      && ct.cal_share > 0)
    {
      SimOptions sw = so;
      sw.keep_timeline = TRUE;
      sw.cost.cpu_share = c->step_share;
      g_autoptr (SimPrediction) q = sim_predict (c->model, &c->plan, c->cluster, &sw, NULL);
      c->step_with_share_s = q != NULL ? q->result->step_time_s : 0;
      if (q != NULL)
        run_skew (c, m, q);
    }
  PlanMemory mem = { 0 };
  run_memory (c, &mem);
  /* a trace that cannot be written (its path was checked before the run) costs the
   * trace, not the result */
  int status = CLI_EXIT_OK;
  /* and a trace not written is not named after it in the text or the JSON */
  if (c->a.trace && !prog_trace_write (prog, m->times, m->stage_rank, "measured", c->a.trace,
                                       &error))
    {
      status = cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
      g_clear_error (&error);
      g_clear_pointer (&c->a.trace, g_free);
    }
  if (c->a.pred_trace && !prog_trace_write (p->program, p->result->times, m->stage_rank,
                                            "predicted", c->a.pred_trace, &error))
    {
      status = cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
      g_clear_error (&error);
      g_clear_pointer (&c->a.pred_trace, g_free);
    }
  if (c->a.merged_trace && !prog_trace_write_merged (prog, m->times, p->program,
                                                     p->result->times, m->stage_rank,
                                                     c->a.merged_trace, &error))
    {
      status = cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
      g_clear_error (&error);
      g_clear_pointer (&c->a.merged_trace, g_free);
    }

  /* print, then store (docs/contracts.md); --json stores first to carry the run id */
  const Verify *vp = c->a.verify ? &v : NULL;
  g_autoptr (JsonNode) root = cli_run_json (c, m, p, &mem, vp);
  if (!c->a.json)
    cli_run_print_text (c, m, p, &mem, vp);
  fflush (stdout);
  cli_run_warn_hygiene (c, m);
  heartbeat_stop (c);
  CliStored st;
  cli_stored_init (&st, &c->dba);
  if (!c->dba.no_db)
    {
      gint64 id = cli_run_store (c, m, p, &mem, vp, &error);
      cli_stored_set (&st, id, error);
      g_clear_error (&error);
    }
  cli_stored_apply (&st, "run", root);
  g_autofree char *row_note = close_unstored (c, &st);
  if (cli_stored_status (&st) != CLI_EXIT_OK)
    status = CLI_EXIT_FAILURE;
  const gboolean verified = !c->a.verify || v.ok;
  if (c->a.json)
    {
      /* the outcome, as a failed run's object says it (failed_run_json) */
      JsonObject *o = json_node_get_object (root);
      json_object_set_string_member (o, "status", verified ? "done" : "failed");
      json_object_set_int_member (o, "exit_status", verified ? status : CLI_EXIT_FAILURE);
      g_autofree char *text = util_json_to_data (root, TRUE);
      puts (text);
      cli_stored_print_error (&st);
    }
  else
    cli_stored_print (&st, "  ");
  if (row_note != NULL)
    fprintf (stderr, "tandem: %s\n", row_note);
  cli_stored_clear (&st);
  plan_memory_clear (&mem);
  if (c->a.verify && !v.ok)
    return cli_fail (CLI_EXIT_FAILURE, "--verify: the %s run differs from the single-rank "
                     "run beyond the %s tolerance (loss %g, gradient norm %g relative)",
                     on_device (c) ? c->b->ops->name : "parallel",
                     on_device (c) ? "bf16" : "fp32", v.loss_tol, v.gnorm_tol);
  return status;
}

/* ---- the command ------------------------------------------------------------------------- */

static int
run_plan (RunCtx *c)
{
  g_autoptr (GError) error = NULL;
  if (c->plan.world_size > 0 && c->plan.world_size != c->world)
    return fail_prep (c, CLI_EXIT_USAGE, "--gpus %d but the launcher started %d rank%s (hint: drop "
                  "--gpus, the world size comes from mpirun -np / srun -n)",
                  c->plan.world_size, c->world, c->world == 1 ? "" : "s");
  const char *slurm = g_getenv ("SLURM_NTASKS");
  if (slurm && g_getenv ("SLURM_PROCID") && g_ascii_strtoll (slurm, NULL, 10) != c->world)
    return fail_prep (c, CLI_EXIT_USAGE, "SLURM_NTASKS=%s but MPI has %d ranks (hint: srun "
                  "--mpi=pmix, or mpirun inside the allocation)", slurm, c->world);
  c->plan.world_size = c->world;
  /* the runner keeps and communicates everything in fp32 and computes in fp32 on the
   * CPU; on cuda its GEMMs take BF16 tensor-core products with FP32 accumulation
   * (TANDEM_CUDA_MATMUL, set in cli_cmd_run) over the same fp32 storage. A narrower
   * dtype asked for (--precision fp8, --fp16, --fp8-format, --param-dtype fp16, a plan
   * file's float8) was silently run and predicted in fp32: refused by name instead (bf16,
   * the parser's default, cannot be told from a flag and reads as the runner's math) */
  {
    const struct { const char *flag; PlanPrecision p; } asked[] = {
      { "--precision", c->plan.compute_dtype }, { "--param-dtype", c->plan.param_dtype },
      { "--grad-dtype", c->plan.grad_dtype }, { "--optimizer-dtype", c->plan.optim_dtype },
    };
    for (guint i = 0; i < G_N_ELEMENTS (asked); i++)
      if (asked[i].p != PLAN_PREC_FP32 && asked[i].p != PLAN_PREC_BF16)
        return fail_prep (c, CLI_EXIT_USAGE, "%s %s: tandem run keeps and computes everything in "
                      "fp32 (on cuda its GEMMs take BF16 products), so it cannot run %s "
                      "(hint: leave the flag out; tandem predict %s %s predicts it)",
                      asked[i].flag, plan_precision_name (asked[i].p),
                      plan_precision_name (asked[i].p), asked[i].flag,
                      plan_precision_name (asked[i].p));
  }
  c->plan.compute_dtype = c->plan.param_dtype = PLAN_PREC_FP32;
  c->plan.grad_dtype = c->plan.optim_dtype = PLAN_PREC_FP32;
  c->plan.master_weights = FALSE;

  c->model = model_spec_lookup (c->pargs.model_name ? c->pargs.model_name : "tiny-llama",
                                 &error);
  if (c->model == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, c->pargs.model_name);
      return fail_prep (c, cli_status_for_error (error), "%s", text);
    }
  /* the model as the plan runs it (--num-experts on a dense model: plan.h) */
  if (!plan_model_apply_moe (&c->plan, &c->model, &error))
    return fail_prep (c, CLI_EXIT_USAGE, "%s", error->message);
  /* a slipped config field (cli_model_lookup's warning), once for the job, not per rank */
  if (c->rank == 0 && c->model->config_warning != NULL)
    fprintf (stderr, "tandem: warning: %s\n", c->model->config_warning);
  c->cluster = pick_cluster (c, &error);
  if (c->cluster == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, c->pargs.cluster_name);
      return fail_prep (c, cli_status_for_error (error), "%s", text);
    }
  /* a cluster of other hardware than the backend runs on (--cluster h100-24k under the
   * cpu backend): the run goes ahead, but its error then compares two machines, not the
   * model with its measurement (it printed -99.1% as any other run) */
  /* (a device with tensor cores is a GPU; one without them may be a GPU file that does
   * not say, so only the cpu backend's case is told) */
  if (c->cluster->device.tensor_cores_per_sm > 0
      && g_strcmp0 (c->b->config.backend, "cuda") != 0 && c->rank == 0)
    {
      g_autofree char *dev = cli_printable (c->cluster->device.name, NULL);
      g_autofree char *cl = cli_printable (c->cluster->name, NULL);
      fprintf (stderr, "tandem: warning: the cluster %s is of %s, a GPU, but the %s backend "
               "runs on this host's CPU cores: the prediction is for other hardware than the "
               "run, so the error compares two machines (hint: leave --cluster out, or "
               "tandem calibrate for this host's profile)\n", cl, dev, c->b->config.backend);
    }
  if (c->plan.seq_length == 0)
    c->plan.seq_length = (int) MIN (c->model->max_positions, 256);
  /* the world size is the launcher's: plan validation's "(hint: use --gpus N)" led to
   * the refusal of --gpus above; name the launcher's rank count instead */
  gint64 model_par = (gint64) MAX (c->plan.tp, 1) * MAX (c->plan.pp, 1) * MAX (c->plan.cp, 1);
  if (c->world % model_par != 0)
    return fail_prep (c, CLI_EXIT_USAGE, "the launcher started %d rank%s, not a multiple of tp x "
                  "pp x cp = %d x %d x %d = %" G_GINT64_FORMAT " (hint: mpirun -np %"
                  G_GINT64_FORMAT ")", c->world, c->world == 1 ? "" : "s", MAX (c->plan.tp, 1),
                  MAX (c->plan.pp, 1), MAX (c->plan.cp, 1), model_par, model_par);
  if (!plan_check_recompute_flags (&c->plan, &error)
      || !plan_resolve (&c->plan, c->model, c->cluster, &error)
      || !exec_runner_supports (c->model, &c->plan, &error))
    {
      g_autofree char *text = cli_plan_file_message (error->message, c->pargs.plan_file);
      return fail_prep (c, CLI_EXIT_USAGE, "%s", text);
    }
  g_autoptr (PlanLayout) layout = plan_layout_new (&c->plan, c->cluster, &error);
  if (layout == NULL)
    return fail_prep (c, CLI_EXIT_USAGE, "%s", error->message);
  /* the plan's stack-dependent fields (ZeRO-3's gathers, ZeRO-2's gradient sync, fp8 TP
   * all-gathers) as sim_predict resolves them for the prediction this run is compared
   * with, --cost included (a bad --cost is reported where the prediction is made): the
   * program that runs is the one predicted */
  {
    SimOptions ro;
    sim_options_init (&ro, c->cluster);
    sim_cost_options_apply (&ro.cost, (const char *const *) c->a.cost, NULL);
    sim_plan_apply_stack (&c->plan, &ro.cost);
  }
  /* except ZeRO-2's per-micro-batch gradient reduce-scatter, which the runner cannot
   * place yet: it reduces once per step, and the prediction it is compared with (made
   * from this plan below) does the same */
  c->plan.zero2_grad_sync = 0;
  /* nor FSDP2's fp32 gradient accumulation pass and its copies in and out of the
   * collectives' buffers (plan.h grad_accum_upcast, zero3_copy_in_out), which the runner
   * does not run: the prediction made from this plan leaves them out too */
  c->plan.grad_accum_upcast = 0;
  c->plan.zero3_copy_in_out = 0;
  c->plan.zero3_grad_copy_in = 0;
  c->plan.zero2_reduce_passes = 0;
  /* nor context_parallel's per-step fp32 merges (plan.h cp_ring_merge) */
  c->plan.cp_ring_merge = 0;
  c->plan.cp_kv_repeated = 0;
  /* nor the functional collectives' re-laying copies (plan.h tp_seq_copies) */
  c->plan.tp_seq_copies = 0;
  g_autoptr (ProgProgram) prog = prog_program_new (c->model, &c->plan, layout, &error);
  if (prog == NULL)
    return fail_prep (c, CLI_EXIT_FAILURE, "%s", error->message);

  ExecRunOptions o;
  exec_run_options_init (&o);
  o.steps = c->a.steps;
  o.warmup = c->a.warmup;
  o.seed = (guint64) c->a.seed;
  o.timeout_s = c->a.timeout_s;
  o.interrupted = &run_interrupted;
  int die[4] = { 1, -1, 1, 0 };
  const char *die_at = g_getenv ("TANDEM_TEST_DIE_AT_TASK");
  const char *slow_ms = g_getenv ("TANDEM_TEST_SLOW_MS");
  if (die_at)
    {
      die[1] = (int) g_ascii_strtoll (die_at, NULL, 10);
      const char *die_rank = g_getenv ("TANDEM_TEST_DIE_RANK");
      if (die_rank)
        die[0] = (int) g_ascii_strtoll (die_rank, NULL, 10);
    }
  if (slow_ms)
    {
      die[3] = (int) CLAMP (g_ascii_strtoll (slow_ms, NULL, 10), 0, 60000);
      const char *slow_rank = g_getenv ("TANDEM_TEST_SLOW_RANK");
      if (slow_rank)
        die[2] = (int) g_ascii_strtoll (slow_rank, NULL, 10);
    }
  if (die_at || slow_ms)
    {
      o.task_hook = die_hook;
      o.hook_data = die;
    }
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_terminate;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);

  {
    /* --cost is the prediction's, made after the run: refused now, not then */
    SimOptions so;
    sim_options_init (&so, c->cluster);
    if (!sim_cost_options_apply (&so.cost, (const char *const *) c->a.cost, &error))
      return fail_prep (c, CLI_EXIT_USAGE, "%s", error->message);
  }
  int peer_rank, peer_status;
  if (!check_ranks_agree (c, 0, &peer_rank, &peer_status, &error))
    {
      if (error == NULL)
        {
          /* another rank could not prepare its run; it printed why */
          if (c->rank == 0)
            return cli_fail (peer_status, "rank %d of %d could not prepare the run (its own "
                             "message says why), so no rank ran it (hint: every rank needs the "
                             "same files at the same paths)", peer_rank, c->world);
          return peer_status;
        }
      return fail0 (c, error->code == EXEC_ERROR_INVALID ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE,
                    "%s", error->message);
    }
  g_autoptr (ExecRunner) runner = exec_runner_new (c->b, prog, layout, &o, &error);
  if (runner == NULL)
    {
      if (error->code == EXEC_ERROR_INVALID)
        return fail0 (c, CLI_EXIT_USAGE, "%s", error->message);
      run_failed_runner (c, error);
    }
  if (!blas_headroom (c, &error))
    run_failed_runner (c, error);
  /* from here on the run is in the store: as running, then closed */
  if (!run_start (c, &error))
    run_failed (c, error);
  /* the end barrier's group, while every rank is here (RunCtx end_group) */
  if (c->world > 1 && (c->end_group = world_group_new (c, &error)) == NULL)
    run_failed (c, error);
  /* the load before the timed work: others' processes, not this run's ranks */
  c->load_before = c->rank == 0 ? cli_load_average () : -1;
  double sched0[2], sched1[2];
  const gboolean sched = exec_sched_sample (sched0);
  if (!exec_runner_run (runner, &error))
    run_failed_runner (c, error);
  if (sched && exec_sched_sample (sched1))
    c->run_share = exec_sched_share (sched0, sched1);
  if (c->rank != 0)
    {
      if (!end_barrier (c, &error))
        run_failed (c, error);
      return CLI_EXIT_OK;
    }
  int status = report (c, runner, prog);
  heartbeat_stop (c);
  if (!end_barrier (c, &error))
    {
      fprintf (stderr, "tandem: error: %s\n", error->message);
      status = CLI_EXIT_FAILURE;
    }
  return status;
}

int
cli_cmd_run (int argc, char **argv)
{
  RunCtx c;
  memset (&c, 0, sizeof c);
  cli_db_args_init (&c.dba);
  c.run_id = -1;
  c.load_before = -1;
  c.profile_id = -1;
  c.skew_s = -1;
  c.rank = launcher_rank ();
  plan_init_defaults (&c.plan);
  c.a.steps = 3;
  c.a.warmup = 1;
  c.a.timeout_s = DEFAULT_TIMEOUT_S;
  c.a.seed = 1234;
  const GOptionEntry extra[] = {
    { "steps", 0, 0, G_OPTION_ARG_INT, &c.a.steps, "Timed steps (default 3)", "K" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &c.a.warmup, "Untimed steps first (default 1)", "W" },
    { "verify", 0, 0, G_OPTION_ARG_NONE, &c.a.verify,
      "Check the first step's loss and gradient norm against a single-rank run", NULL },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &c.a.seed, "Weights and data (default 1234)", "N" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &c.a.timeout_s,
      "Seconds to wait for a peer before giving up (default 30)", "S" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &c.a.json, "Machine-readable output (rank 0)", NULL },
    { "trace", 0, 0, G_OPTION_ARG_FILENAME, &c.a.trace,
      "Write the measured Chrome/Perfetto trace", "FILE" },
    { "predicted-trace", 0, 0, G_OPTION_ARG_FILENAME, &c.a.pred_trace,
      "Write the predicted trace of the same plan", "FILE" },
    { "merged-trace", 0, 0, G_OPTION_ARG_FILENAME, &c.a.merged_trace,
      "Write measured and predicted in one trace (two processes per rank)", "FILE" },
    CLI_DB_ENTRIES (&c.dba),
    CLI_NO_DB_ENTRY (&c.dba),
    { "cost", 0, 0, G_OPTION_ARG_STRING_ARRAY, &c.a.cost,
      "Override a cost-model default of the prediction (repeatable)", "KEY=VALUE" },
    { "note", 0, 0, G_OPTION_ARG_STRING, &c.a.note, "Free text stored with the run", "TEXT" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &c.a.backend,
      "Execution backend: cpu (default) or cuda", "NAME" },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new (NULL);
  g_option_context_set_summary (octx, "Execute a plan on the ranks of this launch (mpirun -np N "
                                "tandem run ..., or srun), measure it, predict it for this "
                                "hardware, and store both.\nHere the model defaults to tiny-llama "
                                "and the sequence to 256 tokens; the cluster is --cluster, else "
                                "this host's newest calibrated profile in the database, else "
                                "the uncalibrated cpu-host preset. Precision is fp32 (CPU "
                                "backend); --backend cuda multiplies with BF16 tensor-core "
                                "products and FP32 accumulation (--fp32-matmul-precision "
                                "medium; high = TF32, highest = fp32), the prediction with the "
                                "same math, and --verify then compares with the CPU within "
                                "a BF16 tolerance.");
  GOptionGroup *group = plan_option_group_new (&c.plan, &c.pargs);
  g_option_context_set_main_group (octx, group);
  g_option_context_add_main_entries (octx, extra, NULL);
  g_autoptr (GError) error = NULL;
  int status;
  /* bf16 weights or compute asked for by name: the parser's default reads the same, so
   * the words are looked at before parsing (gradients, optimizer states and master weights
   * default otherwise, and are read from the parsed plan below); the cpu backend runs
   * them in fp32, said below */
  const char *bf16_flag = NULL;
  for (int i = 1; i < argc && bf16_flag == NULL; i++)
    {
      const char *a = argv[i], *eq = strchr (a, '=');
      const char *v = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : "";
      gsize n = eq ? (gsize) (eq - a) : strlen (a);
      if (g_str_equal (a, "--bf16"))
        bf16_flag = "--bf16";
      else if (n == strlen ("--precision") && strncmp (a, "--precision", n) == 0
               && g_ascii_strcasecmp (v, "bf16") == 0)
        bf16_flag = "--precision bf16";
      else if (n == strlen ("--param-dtype") && strncmp (a, "--param-dtype", n) == 0
               && g_ascii_strcasecmp (v, "bf16") == 0)
        bf16_flag = "--param-dtype bf16";
    }
  const GOptionEntry *const tables[] = { plan_option_entries (), extra, NULL };
  if (!cli_option_context_parse (octx, tables, &argc, &argv, &error))
    {
      g_autofree char *text = cli_options_error_text (octx, error, "tandem run", NULL);
      status = fail0 (&c, CLI_EXIT_USAGE, "%s", text);
      goto out;
    }
  /* each refusal names its flag and the value given (one message listed all three
   * conditions, whichever failed, and "unexpected argument" did not say which) */
  if (argc > 1)
    {
      status = fail0 (&c, CLI_EXIT_USAGE, "unexpected argument '%s' (hint: tandem run --help)",
                      argv[1]);
      goto out;
    }
  if (c.a.steps < 1 || c.a.steps > RUN_MAX_STEPS)
    {
      status = fail0 (&c, CLI_EXIT_USAGE, "--steps %d: the timed steps, an integer from 1 to "
                      "%d (hint: --steps 3)", c.a.steps, RUN_MAX_STEPS);
      goto out;
    }
  if (c.a.warmup < 0 || c.a.warmup > RUN_MAX_STEPS)
    {
      status = fail0 (&c, CLI_EXIT_USAGE, "--warmup %d: the untimed steps first, an integer "
                      "from 0 to %d (hint: --warmup 1)", c.a.warmup, RUN_MAX_STEPS);
      goto out;
    }
  if (!isfinite (c.a.timeout_s) || c.a.timeout_s <= 0 || c.a.timeout_s > CLI_MAX_TIMEOUT_S)
    {
      status = fail0 (&c, CLI_EXIT_USAGE, "--timeout %g: seconds to wait for a peer, a number "
                      "above 0 and at most %.0f (hint: --timeout 30)", c.a.timeout_s,
                      CLI_MAX_TIMEOUT_S);
      goto out;
    }
  /* every output checked before any step runs: a bad path fails now, not after */
  if (!cli_db_args_check (&c.dba, &error))
    {
      status = fail0 (&c, CLI_EXIT_USAGE, "%s", error->message);
      goto out;
    }
  const char *outs[] = { c.a.trace, c.a.pred_trace, c.a.merged_trace };
  const char *flags[] = { "--trace", "--predicted-trace", "--merged-trace" };
  /* an output over an input (the model's config.json) or over another output (--trace
   * and --predicted-trace the same file: the one written last was all that was left) */
  const char *const inputs[] = { "--model", c.pargs.model_name, "--cluster",
                                 c.pargs.cluster_name, "--plan", c.pargs.plan_file, NULL };
  for (guint i = 0; i < G_N_ELEMENTS (outs); i++)
    if (outs[i] != NULL && (!util_output_check (outs[i], &error)
                            || !cli_output_not_input (flags[i], "trace", outs[i], inputs,
                                                      &error)
                            || !cli_output_not_db (flags[i], "trace", outs[i], c.dba.db,
                                                   c.dba.no_db, &error)))
      {
        status = fail0 (&c, CLI_EXIT_USAGE, "%s%s%s", error->domain == G_OPTION_ERROR ? ""
                        : flags[i], error->domain == G_OPTION_ERROR ? "" : ": ",
                        error->message);
        goto out;
      }
  for (guint i = 0; i < G_N_ELEMENTS (outs); i++)
    for (guint k = i + 1; k < G_N_ELEMENTS (outs); k++)
      if (outs[i] != NULL && outs[k] != NULL && cli_same_file (outs[i], outs[k]))
        {
          status = fail0 (&c, CLI_EXIT_USAGE, "%s and %s both name %s: the one written last "
                          "would replace the other (hint: a file each, e.g. %s measured.json "
                          "%s predicted.json)", flags[i], flags[k], outs[k], flags[i], flags[k]);
          goto out;
        }
  if (!c.dba.no_db && c.rank == 0 && !cli_fallback_check (&error))
    {
      status = fail0 (&c, CLI_EXIT_FAILURE, "%s", error->message);
      goto out;
    }
  if (exec_backend_lookup (c.a.backend ? c.a.backend : "cpu", &error) == NULL)
    {
      /* a known backend that does not load (module, driver or libraries missing) is a
       * failure at run time, its message has the hint; an unknown name is bad input */
      if (g_strcmp0 (c.a.backend, "cuda") == 0)
        status = fail0 (&c, CLI_EXIT_FAILURE, "%s", error->message);
      else
        status = fail0 (&c, CLI_EXIT_USAGE, "%s (hint: --backend cpu|cuda)", error->message);
      goto out;
    }

  ExecConfig cfg;
  exec_config_init (&cfg);
  cfg.backend = c.a.backend ? c.a.backend : "cpu";
  /* The runner's tensors are fp32. On cuda its GEMMs run on tensor cores: BF16 products
   * with FP32 accumulation (--fp32-matmul-precision medium) unless the flag, or else
   * TANDEM_CUDA_MATMUL, says otherwise; the cuda kernel table reads the variable at open,
   * and the prediction takes the same math from the plan (plan/program.c gemm_dtype). The
   * CPU backend multiplies in fp32 only. */
  static const char *const cuda_math[] = { "fp32", "tf32", "bf16" };
  if (g_str_equal (cfg.backend, "cuda"))
    {
      const char *env = g_getenv ("TANDEM_CUDA_MATMUL");
      if (!c.plan.fp32_matmul_set)
        {
          c.plan.fp32_matmul = PLAN_MATMUL_MEDIUM;
          for (int i = 0; env != NULL && i < 3; i++)
            if (g_ascii_strcasecmp (env, cuda_math[i]) == 0)
              c.plan.fp32_matmul = (PlanMatmulPrecision) i;
        }
      g_setenv ("TANDEM_CUDA_MATMUL", cuda_math[c.plan.fp32_matmul], TRUE);
    }
  else if (c.plan.fp32_matmul != PLAN_MATMUL_HIGHEST)
    {
      status = fail0 (&c, CLI_EXIT_USAGE, "--fp32-matmul-precision %s: the %s backend "
                      "multiplies in fp32 only (hint: leave the flag out, or --backend cuda)",
                      plan_matmul_precision_name (c.plan.fp32_matmul), cfg.backend);
      goto out;
    }
  /* a bf16 run asked for on the cpu: run (the runner's math is a fixed fp32, and the
   * prediction is made for it), but not without a word; nothing where a later flag set the
   * dtype back (the last wins) */
  if (bf16_flag != NULL && c.plan.compute_dtype != PLAN_PREC_BF16
      && c.plan.param_dtype != PLAN_PREC_BF16)
    bf16_flag = NULL;
  if (bf16_flag == NULL)
    bf16_flag = c.plan.grad_dtype == PLAN_PREC_BF16    ? "--grad-dtype bf16"
                : c.plan.optim_dtype == PLAN_PREC_BF16 ? "--optimizer-dtype bf16"
                : !c.plan.master_weights              ? "--no-master-weights"
                                                       : NULL;
  if (bf16_flag != NULL && !g_str_equal (cfg.backend, "cuda") && launcher_rank () == 0)
    fprintf (stderr, "tandem: note: %s: the %s backend keeps and multiplies everything in "
             "fp32, so this run and its prediction are fp32 (hint: --backend cuda for BF16 "
             "GEMM products)\n", bf16_flag, cfg.backend);
  cfg.mpi = g_getenv ("SLURM_NTASKS") && g_ascii_strtoll (g_getenv ("SLURM_NTASKS"), NULL, 10) > 1
              ? EXEC_MPI_ON : EXEC_MPI_AUTO;
  cfg.timeout_s = c.a.timeout_s;
  /* MPI_Init within one timeout; rank 0 gives up first (and stores the failure), the
   * others a grace period later, so that they do not end the job before it has stored */
  c.world = MAX (launcher_size (), 1);
  double bound = MAX (c.a.timeout_s, MPI_PHASE_MIN_S);
  RunWatchdog *wd = watchdog_start (&c, "MPI_Init", bound + (c.rank == 0 ? 0 : MIN (bound, 10)));
  stall_hook (&c, "init");
  c.b = exec_backend_open (&cfg, &error);
  watchdog_cancel (wd);
  if (c.b == NULL)
    {
      status = fail0 (&c, CLI_EXIT_FAILURE, "%s", error->message);
      goto out;
    }
  c.rank = c.b->rank;
  c.world = c.b->world;
  status = run_plan (&c);
  /* MPI_Finalize within one timeout: every rank got here after the end barrier */
  wd = watchdog_start (&c, "MPI_Finalize", bound);
  stall_hook (&c, "finalize");
  exec_backend_close (c.b);
  watchdog_cancel (wd);
out:
  g_clear_pointer (&c.model, model_spec_unref);
  g_clear_pointer (&c.cluster, topo_cluster_unref);
  plan_clear (&c.plan);
  plan_args_clear (&c.pargs);
  cli_db_args_clear (&c.dba);
  g_free (c.start_error);
  g_free (c.profile_stored_at);
  g_free (c.a.trace);
  g_free (c.a.pred_trace);
  g_free (c.a.merged_trace);
  g_free (c.a.note);
  g_free (c.a.backend);
  g_strfreev (c.a.cost);
  return status;
}
