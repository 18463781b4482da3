/* tests/exec/test-backend-mpi.c - the CPU backend's collectives over 4 real MPI ranks.
 *
 * Started by meson (no OMPI_COMM_WORLD_SIZE in the environment), the program is the
 * launcher: it re-runs itself as `timeout -k 5 60 mpirun --allow-run-as-root
 * --oversubscribe --tag-output -np 4 SELF` and checks the exit status and that every rank reported
 * every test as ok, so a hung rank costs at most 65 s and never blocks CI. Started by
 * mpirun, each rank opens the backend once (MPI can be initialised only once), runs the
 * rank tests below in the same order (MPI's collective-ordering rule) and closes it.
 *
 * Inputs are rank-dependent small integers, so every expected value is an exact FP32 sum. */
#include "mpi-launch.h"
#include "exec/backend.h"
#include "exec/layers.h"
#include "local-open.h"

#include <stdio.h>
#include <string.h>

#define N_RANKS 4

static ExecBackend *backend;
static ExecStream  *comm, *comm2, *compute;
static ExecGroup   *world;

/* ---- the rank tests ------------------------------------------------------------------- */

static void
sync_ok (ExecStream *s)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (exec_stream_synchronize (s, &error));
  g_assert_no_error (error);
}

static void
coll_ok (ExecStream *s, ExecGroup *g, const ExecColl *op, ExecSample *t)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (exec_collective (s, g, op, t, &error));
  g_assert_no_error (error);
}

static void
test_world (void)
{
  g_assert_cmpint (backend->world, ==, N_RANKS);
  g_assert_cmpint (world->size, ==, N_RANKS);
  g_assert_cmpint (world->rank, ==, backend->rank);
  g_assert_cmpint (world->color, ==, 0);    /* the smallest member */
}

/* in[i] = 1000 rank + i, so the sum over ranks 0..3 is 1000 (0+1+2+3) + 4 i = 6000 + 4 i;
 * once into a separate buffer, once in place. */
static void
test_all_reduce (void)
{
  int r = backend->rank, n = 1000;
  g_autofree float *in = g_new (float, n), *out = g_new0 (float, n);
  for (int i = 0; i < n; i++)
    in[i] = 1000.0f * r + i;
  ExecSample t = { -1, -1 };
  ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .send = in, .recv = out, .count = n };
  coll_ok (comm, world, &op, &t);
  op.send = op.recv = in;   /* in place */
  coll_ok (comm, world, &op, NULL);
  sync_ok (comm);
  for (int i = 0; i < n; i++)
    {
      g_assert_cmpfloat (out[i], ==, 6000.0f + 4 * i);
      g_assert_cmpfloat (in[i], ==, 6000.0f + 4 * i);
    }
  g_assert_cmpfloat (t.end_s, >=, t.start_s);
}

/* in[j] = 1000 rank + j over 4 c elements; rank r keeps block r:
 * out[i] = sum_q (1000 q + r c + i) = 6000 + 4 (r c + i). */
static void
test_reduce_scatter (void)
{
  int r = backend->rank, c = 250;
  g_autofree float *in = g_new (float, N_RANKS * c), *out = g_new0 (float, c);
  for (int j = 0; j < N_RANKS * c; j++)
    in[j] = 1000.0f * r + j;
  ExecColl op = { .kind = EXEC_COLL_REDUCE_SCATTER, .send = in, .recv = out, .count = c };
  coll_ok (comm, world, &op, NULL);
  sync_ok (comm);
  for (int i = 0; i < c; i++)
    g_assert_cmpfloat (out[i], ==, 6000.0f + 4 * (r * c + i));
}

/* in[i] = 100 rank + i; out[q c + i] = 100 q + i. In place: the rank's own slot. */
static void
test_all_gather (void)
{
  int r = backend->rank, c = 64;
  g_autofree float *in = g_new (float, c), *out = g_new0 (float, N_RANKS * c);
  g_autofree float *inplace = g_new0 (float, N_RANKS * c);
  for (int i = 0; i < c; i++)
    in[i] = inplace[r * c + i] = 100.0f * r + i;
  ExecColl op = { .kind = EXEC_COLL_ALL_GATHER, .send = in, .recv = out, .count = c };
  coll_ok (comm, world, &op, NULL);
  ExecColl ip = { .kind = EXEC_COLL_ALL_GATHER, .send = inplace + r * c, .recv = inplace,
                  .count = c };
  coll_ok (comm, world, &ip, NULL);
  sync_ok (comm);
  for (int q = 0; q < N_RANKS; q++)
    for (int i = 0; i < c; i++)
      {
        g_assert_cmpfloat (out[q * c + i], ==, 100.0f * q + i);
        g_assert_cmpfloat (inplace[q * c + i], ==, 100.0f * q + i);
      }
}

/* send[q c + i] = 100 rank + 10 q + i goes to rank q; so recv[q c + i] = 100 q + 10 rank + i. */
static void
test_all_to_all (void)
{
  int r = backend->rank, c = 8;
  g_autofree float *in = g_new (float, N_RANKS * c), *out = g_new0 (float, N_RANKS * c);
  for (int q = 0; q < N_RANKS; q++)
    for (int i = 0; i < c; i++)
      in[q * c + i] = 100.0f * r + 10 * q + i;
  ExecColl op = { .kind = EXEC_COLL_ALL_TO_ALL, .send = in, .recv = out, .count = c };
  coll_ok (comm, world, &op, NULL);
  sync_ok (comm);
  for (int q = 0; q < N_RANKS; q++)
    for (int i = 0; i < c; i++)
      g_assert_cmpfloat (out[q * c + i], ==, 100.0f * q + 10 * r + i);
}

/* A ring step (SEND_RECV: to r + 1, from r - 1) and plain pairs (0 <-> 1, 2 <-> 3 with
 * SEND then RECV on even ranks, the reverse on odd ones): each message is 10 sender + i. */
static void
test_send_recv (void)
{
  int r = backend->rank, c = 16, next = (r + 1) % N_RANKS, prev = (r + N_RANKS - 1) % N_RANKS;
  int partner = r ^ 1;
  float mine[16], ring[16] = { 0 }, pair[16] = { 0 };
  for (int i = 0; i < c; i++)
    mine[i] = 10.0f * r + i;
  ExecColl step = { .kind = EXEC_COLL_SEND_RECV, .send = mine, .recv = ring, .count = c,
                    .peer = next, .recv_peer = prev, .tag = 7 };
  coll_ok (comm, world, &step, NULL);
  ExecColl s = { .kind = EXEC_COLL_SEND, .send = mine, .count = c, .peer = partner, .tag = 3 };
  ExecColl v = { .kind = EXEC_COLL_RECV, .recv = pair, .count = c, .peer = partner, .tag = 3 };
  coll_ok (comm, world, r % 2 ? &v : &s, NULL);
  coll_ok (comm, world, r % 2 ? &s : &v, NULL);
  sync_ok (comm);
  for (int i = 0; i < c; i++)
    {
      g_assert_cmpfloat (ring[i], ==, 10.0f * prev + i);
      g_assert_cmpfloat (pair[i], ==, 10.0f * partner + i);
    }
}

/* Groups from the plan's layout, tp 2 x dp 2 in Megatron order (tp innermost):
 * TP groups {0, 1} and {2, 3}, DP groups {0, 2} and {1, 3}. An all-reduce of rank + 1
 * gives 1 + 2 = 3 and 3 + 4 = 7 in the TP groups, 1 + 3 = 4 and 2 + 4 = 6 in the DP ones. */
static void
test_layout_groups (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) cl = topo_cluster_lookup ("h200-node", &error);
  g_assert_no_error (error);
  Plan p;
  plan_init_defaults (&p);
  p.world_size = N_RANKS;
  p.tp = 2;
  p.dp = 2;
  g_autoptr (PlanLayout) lay = plan_layout_new (&p, cl, &error);
  g_assert_no_error (error);
  int r = backend->rank;
  ExecGroup *tp = exec_group_new_from_layout (backend, lay, PLAN_AXIS_TP, &error);
  g_assert_no_error (error);
  ExecGroup *dp = exec_group_new_from_layout (backend, lay, PLAN_AXIS_DP, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (tp->name, ==, "tp");
  g_assert_cmpint (tp->size, ==, 2);
  g_assert_cmpint (tp->members[0], ==, r / 2 * 2);
  g_assert_cmpint (tp->members[1], ==, r / 2 * 2 + 1);
  g_assert_cmpint (tp->rank, ==, r % 2);
  g_assert_cmpint (dp->members[0], ==, r % 2);
  g_assert_cmpint (dp->members[1], ==, r % 2 + 2);
  g_assert_cmpint (dp->rank, ==, r / 2);
  float a = r + 1.0f, b = r + 1.0f;
  ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .send = &a, .recv = &a, .count = 1 };
  coll_ok (comm, tp, &op, NULL);
  op.send = op.recv = &b;
  coll_ok (comm, dp, &op, NULL);
  sync_ok (comm);
  g_assert_cmpfloat (a, ==, r < 2 ? 3.0f : 7.0f);
  g_assert_cmpfloat (b, ==, r % 2 ? 6.0f : 4.0f);
  /* the layout must describe this world */
  p.world_size = 8;
  p.dp = 4;
  g_autoptr (PlanLayout) big = plan_layout_new (&p, cl, &error);
  g_assert_no_error (error);
  g_assert_null (exec_group_new_from_layout (backend, big, PLAN_AXIS_TP, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  exec_group_free (tp);
  exec_group_free (dp);
  plan_clear (&p);
}

/* Overlap: a 4 MiB all-reduce is posted, a 192^3 GEMM runs on the compute stream while the
 * progress thread moves the all-reduce, then both are checked. in[i] = rank + (i mod 7):
 * the sum is 0+1+2+3 + 4 (i mod 7) = 6 + 4 (i mod 7). The GEMM of all-ones is k = 192. */
static void
test_overlap (void)
{
  g_autoptr (GError) error = NULL;
  int r = backend->rank, n = 1 << 20, m = 192;
  ExecBuffer *buf = exec_buffer_new (backend, (gsize) n * 4, &error);
  g_assert_no_error (error);
  float *x = buf->data;
  for (int i = 0; i < n; i++)
    x[i] = (float) (r + i % 7);
  ExecSample tc = { -1, -1 }, tg = { -1, -1 };
  ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .send = x, .recv = x, .count = n };
  coll_ok (comm, world, &op, &tc);
  ExecEvent *done = exec_event_new (backend, &error);
  g_assert_true (exec_event_record (done, comm, &error));

  g_autofree float *a = g_new (float, m * m), *c = g_new0 (float, m * m);
  for (int i = 0; i < m * m; i++)
    a[i] = 1.0f;
  ExecGemm g = { .dtype = EXEC_DTYPE_F32, .m = m, .n = m, .k = m, .alpha = 1, .a = a,
                 .b = a, .c = c };
  g_assert_true (exec_gemm (compute, &g, &tg, &error));
  g_assert_no_error (error);
  g_assert_true (exec_event_wait (compute, done, &error));
  g_assert_no_error (error);
  gboolean finished = FALSE;
  g_assert_true (exec_event_query (done, &finished, &error));
  g_assert_true (finished);
  double t_done = -1;
  g_assert_true (exec_event_time (done, &t_done, &error));
  g_assert_cmpfloat (t_done, >=, tc.start_s);
  g_assert_cmpfloat (tc.end_s, >=, tc.start_s);
  g_assert_cmpfloat (tg.end_s, >=, tg.start_s);
  for (int i = 0; i < n; i += 997)
    g_assert_cmpfloat (x[i], ==, 6.0f + 4 * (i % 7));
  g_assert_cmpfloat (c[0], ==, (float) m);
  g_assert_cmpfloat (c[m * m - 1], ==, (float) m);
  exec_event_free (done);
  exec_buffer_free (buf);
}

/* Rank 3 skips an all-reduce on group 'late'. Ranks 0-2 must get EXEC_ERROR_TIMEOUT after
 * timeout_s = 2 s (not before, and well before 2 + 10 s) naming the operation and the
 * group. Then everyone meets on group 'sync' (rank 3 has waited there all along), rank 3
 * finally joins the all-reduce, and the stuck requests complete: 1 + 2 + 3 + 4 = 10. So no
 * request is left behind and MPI_Finalize does not hang. */
static void
test_timeout (void)
{
  g_autoptr (GError) error = NULL;
  const int all[N_RANKS] = { 0, 1, 2, 3 };
  ExecGroup *late = exec_group_new (backend, "late", all, N_RANKS, &error);
  g_assert_no_error (error);
  ExecGroup *sync = exec_group_new (backend, "sync", all, N_RANKS, &error);
  g_assert_no_error (error);
  float v = backend->rank + 1.0f, token = 0;
  ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .send = &v, .recv = &v, .count = 1 };
  ExecColl meet = { .kind = EXEC_COLL_ALL_REDUCE, .send = &token, .recv = &token, .count = 1 };
  double saved = backend->timeout_s;
  if (backend->rank != 3)
    {
      backend->timeout_s = 2.0;
      coll_ok (comm, late, &op, NULL);
      gint64 t0 = g_get_monotonic_time ();
      g_assert_false (exec_stream_synchronize (comm, &error));
      double waited = (g_get_monotonic_time () - t0) * 1e-6;
      g_assert_error (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT);
      g_assert_nonnull (strstr (error->message, "all_reduce"));
      g_assert_nonnull (strstr (error->message, "'late'"));
      g_test_message ("rank %d: %s (after %.2f s)", backend->rank, error->message, waited);
      g_assert_cmpfloat (waited, >=, 2.0);
      g_assert_cmpfloat (waited, <, 12.0);
      g_clear_error (&error);
      backend->timeout_s = 60;
      coll_ok (comm2, sync, &meet, NULL);
      sync_ok (comm2);
      sync_ok (comm);     /* rank 3 has now posted its part */
    }
  else
    {
      backend->timeout_s = 60;
      coll_ok (comm2, sync, &meet, NULL);
      sync_ok (comm2);
      coll_ok (comm, late, &op, NULL);
      sync_ok (comm);
    }
  g_assert_cmpfloat (v, ==, 10.0f);
  backend->timeout_s = saved;
  exec_group_free (late);
  exec_group_free (sync);
}

/* Arguments the backend refuses before any communication (so no rank is left waiting). */
static void
test_invalid (void)
{
  g_autoptr (GError) error = NULL;
  float a[8] = { 0 };
  ExecColl bf = { .kind = EXEC_COLL_ALL_REDUCE, .dtype = EXEC_DTYPE_BF16, .send = a,
                  .recv = a, .count = 1 };
  g_assert_false (exec_collective (comm, world, &bf, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'world'"));
  g_clear_error (&error);
  ExecColl far = { .kind = EXEC_COLL_SEND, .send = a, .count = 1, .peer = N_RANKS };
  g_assert_false (exec_collective (comm, world, &far, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
  ExecColl rs = { .kind = EXEC_COLL_REDUCE_SCATTER, .send = a, .recv = a + 1, .count = 1 };
  g_assert_false (exec_collective (comm, world, &rs, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
  const int not_me[1] = { (backend->rank + 1) % N_RANKS };
  g_assert_null (exec_group_new (backend, "other", not_me, 1, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
}

static int
run_rank (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  setvbuf (stdout, NULL, _IOLBF, 0);   /* whole TAP lines reach mpirun */
  g_test_init (&argc, &argv, NULL);
  backend = mpi_rank_backend_open ();
  comm = exec_stream_new (backend, EXEC_STREAM_COMM, "comm", &error);
  comm2 = exec_stream_new (backend, EXEC_STREAM_COMM, "comm2", &error);
  compute = exec_stream_new (backend, EXEC_STREAM_COMPUTE, "compute", &error);
  const int all[N_RANKS] = { 0, 1, 2, 3 };
  world = exec_group_new (backend, "world", all, N_RANKS, &error);
  g_assert_no_error (error);
  g_test_add_func ("/exec/mpi/world", test_world);
  g_test_add_func ("/exec/mpi/all-reduce", test_all_reduce);
  g_test_add_func ("/exec/mpi/reduce-scatter", test_reduce_scatter);
  g_test_add_func ("/exec/mpi/all-gather", test_all_gather);
  g_test_add_func ("/exec/mpi/all-to-all", test_all_to_all);
  g_test_add_func ("/exec/mpi/send-recv", test_send_recv);
  g_test_add_func ("/exec/mpi/layout-groups", test_layout_groups);
  g_test_add_func ("/exec/mpi/overlap", test_overlap);
  g_test_add_func ("/exec/mpi/timeout", test_timeout);
  g_test_add_func ("/exec/mpi/invalid", test_invalid);
  int rc = g_test_run ();
  exec_backend_close (backend);   /* frees streams and groups, finalises MPI */
  return rc;
}

#define N_RANK_TESTS 10

/* ---- the launcher --------------------------------------------------------------------- */

static const char *self_path;


static void
test_launch (void)
{
  if (!mpi_test_can_launch (FALSE))
    return;
  /* hard limit: 60 s, then SIGKILL 5 s later if mpirun ignores SIGTERM */
  if (mpi_test_run_self (self_path, N_RANKS, 60, NULL, N_RANK_TESTS, NULL))
    g_test_message ("%d rank tests passed on %d ranks", N_RANKS * N_RANK_TESTS, N_RANKS);
}

/* Without MPI the backend is a world of one: groups of one, collectives are copies,
 * point-to-point has no peer, and buffers check their bounds. */
static void
test_no_mpi (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecBackend) b = local_backend_open (NULL);
  g_assert_cmpint (b->world, ==, 1);
  const int me[1] = { 0 }, two[2] = { 0, 1 };
  ExecGroup *g = exec_group_new (b, "solo", me, 1, &error);
  g_assert_no_error (error);
  g_assert_null (exec_group_new (b, "pair", two, 2, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
  ExecStream *s = exec_stream_new (b, EXEC_STREAM_COMM, "dp", &error);
  float in[3] = { 1, 2, 3 }, out[3] = { 0 };
  ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .send = in, .recv = out, .count = 3 };
  g_assert_true (exec_collective (s, g, &op, NULL, &error));
  g_assert_cmpmem (in, sizeof in, out, sizeof out);
  op.kind = EXEC_COLL_SEND;
  g_assert_false (exec_collective (s, g, &op, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
  ExecEvent *e = exec_event_new (b, &error);
  g_assert_true (exec_event_record (e, s, &error));
  g_assert_true (exec_event_synchronize (e, &error));
  g_assert_true (exec_stream_synchronize (s, &error));
  g_assert_no_error (error);
  ExecBuffer *buf = exec_buffer_new (b, 12, &error);
  g_assert_true (b->ops->buffer_upload (b, buf, 0, in, 12, &error));
  g_assert_false (b->ops->buffer_download (b, out, buf, 4, 12, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpint (((guintptr) buf->data) % 64, ==, 0);
  /* a backend that does not exist */
  g_assert_null (exec_backend_lookup ("tpu", &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message, "cpu"));
  /* everything else is released by close */
}

int
main (int argc, char **argv)
{
  if (g_getenv ("OMPI_COMM_WORLD_SIZE"))
    return run_rank (argc, argv);
  g_test_init (&argc, &argv, NULL);
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  self_path = exe ? exe : argv[0];
  g_test_add_func ("/exec/backend/no-mpi", test_no_mpi);
  g_test_add_func ("/exec/backend/mpi-4-ranks", test_launch);
  return g_test_run ();
}
