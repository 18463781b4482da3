/* tests/exec/test-moe-mpi.c - the MoE block with expert parallelism over real MPI ranks
 * equals a single-rank run of the same model and data.
 *
 * Started by meson, the program is the launcher: it re-runs itself as `timeout -k 5 60
 * mpirun --oversubscribe --tag-output -np P SELF` for P = 2 and 4 and checks that every
 * rank reported every case as ok. Started by mpirun, rank r of P opens the CPU backend,
 * takes tokens [r N, (r + 1) N) of a global batch of P N tokens and experts
 * [r E / P, (r + 1) E / P) of the model (split-independent weights, moe-ref.h), runs the
 * EP block forward and backward (all-to-all of the counts, all-to-allv dispatch and
 * combine over the world as the ep group), and also runs the whole batch with every
 * expert on its own (no communication): the single-rank reference. Then
 *  - its N output rows and input-gradient rows equal the reference's rows of its tokens;
 *  - its expert-weight gradients equal the reference's for its experts;
 *  - the sum over ranks of its router and norm gradients (what the data-parallel
 *    reduction computes) equals the reference's.
 * Tolerance: |ep - single| <= 1e-5 max |single| of the tensor + 1e-6. The two runs do the
 * same arithmetic per row except where sums are split differently (an expert's weight
 * gradient is one GEMM over its rows in both, but the rows come in a different order;
 * the router gradient is a sum of P partial sums): FP32 reassociation, a few 1e-7
 * relative. A routing or permutation error moves whole rows: O(1) relative. */
#include "mpi-launch.h"
#include "moe-ref.h"

#include <stdio.h>

#define N_RANK_TESTS 2

static ExecBackend *backend;
static ExecStream  *comm, *compute;
static ExecGroup   *world;
static ExecEvent   *ev;

typedef struct {
  ExecMoeShape   s;
  float         *wmem, *gmem, *amem, *scratch, *x, *out, *dout, *dx;
  int           *rmem;
  ExecMoeWeights w, g;
  ExecMoeActs    a;
  ExecMoeRoute   route;
} Run;

/* `tied`: every router weight 0, so every token's probabilities are equal and the
 * tie-break sends every token to experts 0 .. k - 1, all on rank 0: the other ranks'
 * experts receive no rows at all (zero counts in the all-to-allv). */
static void
run_init (Run *u, int N, int first, int C, int E, int k, int F, int ep, int ep_rank,
          gboolean tied, guint64 seed)
{
  g_autoptr (GError) error = NULL;
  memset (u, 0, sizeof *u);
  g_assert_true (exec_moe_shape_init (&u->s, N, C, E, k, F, ep, ep_rank, &error));
  g_assert_no_error (error);
  gsize nw = exec_moe_weights_size (&u->s), NC = (gsize) N * C;
  u->wmem = g_new0 (float, nw);
  u->gmem = g_new0 (float, nw);
  exec_moe_weights_bind (&u->w, &u->s, u->wmem);
  exec_moe_weights_bind (&u->g, &u->s, u->gmem);
  moe_test_weights (&u->w, &u->s, seed, 25.0f);
  if (tied)
    memset (u->w.router, 0, (gsize) E * C * sizeof (float));
  u->amem = g_new0 (float, exec_moe_acts_size (&u->s));
  exec_moe_acts_bind (&u->a, &u->s, u->amem);
  u->rmem = g_new0 (int, exec_moe_route_size (&u->s));
  exec_moe_route_bind (&u->route, &u->s, u->rmem);
  u->scratch = g_new0 (float, exec_moe_scratch_size (&u->s));
  u->x = g_new (float, NC);
  u->out = g_new (float, NC);
  u->dout = g_new (float, NC);
  u->dx = g_new (float, NC);
  moe_test_tokens (u->x, first, N, C, seed);
  for (gsize i = 0; i < NC; i++)   /* dout of global token first + i / C */
    u->dout[i] = exec_init_value (seed + 7, (gsize) first * C + i, 1.0f);
}

static void
run_clear (Run *u)
{
  g_free (u->wmem);
  g_free (u->gmem);
  g_free (u->amem);
  g_free (u->rmem);
  g_free (u->scratch);
  g_free (u->x);
  g_free (u->out);
  g_free (u->dout);
  g_free (u->dx);
}

static void
run_block (Run *u, ExecMoeCtx *ctx)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (exec_moe_forward (ctx, &u->s, &u->w, u->x, TRUE, &u->a, &u->route, u->out,
                                   u->scratch, &error));
  g_assert_no_error (error);
  g_assert_true (exec_moe_backward (ctx, &u->s, &u->w, &u->g, u->x, TRUE, &u->a, &u->route,
                                    u->dout, u->dx, u->scratch, &error));
  g_assert_no_error (error);
}

static double
max_abs (const float *a, gsize n)
{
  double m = 0;
  for (gsize i = 0; i < n; i++)
    m = fmax (m, fabs (a[i]));
  return m;
}

static void
assert_close (const char *what, const float *got, const float *want, gsize n)
{
  double tol = 1e-5 * max_abs (want, n) + 1e-6, worst = 0;
  for (gsize i = 0; i < n; i++)
    worst = fmax (worst, fabs (got[i] - want[i]));
  g_test_message ("rank %d %s: %" G_GSIZE_FORMAT " values, max |ep - single| %.3g (tol %.3g)",
                  backend->rank, what, n, worst, tol);
  g_assert_cmpfloat (worst, <=, tol);
}

static void
check_case (gboolean tied)
{
  g_autoptr (GError) error = NULL;
  int P = backend->world, r = backend->rank;
  /* 8 tokens a rank, hidden 16, 8 experts top-2, expert ffn 12 */
  const int N = 8, C = 16, E = 8, k = 2, F = 12;
  const guint64 seed = tied ? 77 : 3;
  Run ep, one;
  run_init (&ep, N, r * N, C, E, k, F, P, r, tied, seed);
  run_init (&one, P * N, 0, C, E, k, F, 1, 0, tied, seed);
  ExecMoeCtx ctx = { .compute = compute, .comm = comm, .group = world, .ev = ev };
  run_block (&ep, &ctx);
  ExecMoeCtx local = { 0 };
  run_block (&one, &local);
  g_test_message ("rank %d: %d rows in from %d ranks; dispatch %.1f us, combine %.1f us", r,
                  ep.route.rows_in, P, (ctx.a2a[0].end_s - ctx.a2a[0].start_s) * 1e6,
                  (ctx.a2a[1].end_s - ctx.a2a[1].start_s) * 1e6);
  if (tied)   /* experts 0 and 1 take every token: rank 0 gets all P N k rows */
    g_assert_cmpint (ep.route.rows_in, ==, r == 0 ? P * N * k : 0);
  gsize NC = (gsize) N * C, off = (gsize) r * NC;
  assert_close ("out", ep.out, one.out + off, NC);
  assert_close ("dx", ep.dx, one.dx + off, NC);
  int EL = ep.s.E_local;
  gsize FC = (gsize) F * C, eo = (gsize) r * EL * FC;
  assert_close ("w_gate grad", ep.g.w_gate, one.g.w_gate + eo, EL * FC);
  assert_close ("w_up grad", ep.g.w_up, one.g.w_up + eo, EL * FC);
  assert_close ("w_down grad", ep.g.w_down, one.g.w_down + eo, EL * FC);
  /* router (E, C) and norm (C) are adjacent: one all-reduce sums the ranks' shares */
  gsize nr = (gsize) C + (gsize) E * C;
  ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .dtype = EXEC_DTYPE_F32, .send = ep.g.norm,
                  .recv = ep.g.norm, .count = nr };
  g_assert_true (exec_collective (comm, world, &op, NULL, &error));
  g_assert_true (exec_stream_synchronize (comm, &error));
  g_assert_no_error (error);
  assert_close ("norm + router grad (summed)", ep.g.norm, one.g.norm, nr);
  g_assert_cmpfloat (max_abs (one.g.router, (gsize) E * C), >, 0);
  run_clear (&ep);
  run_clear (&one);
}

static void
test_random_routing (void)
{
  check_case (FALSE);
}

static void
test_tied_routing (void)
{
  check_case (TRUE);
}

static int
run_rank (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  setvbuf (stdout, NULL, _IOLBF, 0);   /* whole TAP lines reach mpirun */
  g_test_init (&argc, &argv, NULL);
  backend = mpi_rank_backend_open ();
  comm = exec_stream_new (backend, EXEC_STREAM_COMM, "ep", &error);
  compute = exec_stream_new (backend, EXEC_STREAM_COMPUTE, "compute", &error);
  ev = exec_event_new (backend, &error);
  g_autofree int *all = g_new (int, backend->world);
  for (int i = 0; i < backend->world; i++)
    all[i] = i;
  world = exec_group_new (backend, "ep", all, backend->world, &error);
  g_assert_no_error (error);
  g_test_add_func ("/exec/moe-mpi/random-routing", test_random_routing);
  g_test_add_func ("/exec/moe-mpi/tied-routing", test_tied_routing);
  int rc = g_test_run ();
  exec_backend_close (backend);
  return rc;
}

/* ---- the launcher ----------------------------------------------------------------------- */

static const char *self_path;

static void
launch (gconstpointer data)
{
  int np = GPOINTER_TO_INT (data);
  if (!mpi_test_can_launch (FALSE))
    return;
  g_autofree char *out = NULL;
  if (mpi_test_run_self (self_path, np, 60, "--verbose", N_RANK_TESTS, &out))
    g_test_message ("ranks' output:\n%s", out);
}

int
main (int argc, char **argv)
{
  if (g_getenv ("OMPI_COMM_WORLD_SIZE"))
    return run_rank (argc, argv);
  g_test_init (&argc, &argv, NULL);
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  self_path = exe ? exe : argv[0];
  g_test_add_data_func ("/exec/moe-mpi/ep-2-ranks", GINT_TO_POINTER (2), launch);
  g_test_add_data_func ("/exec/moe-mpi/ep-4-ranks", GINT_TO_POINTER (4), launch);
  return g_test_run ();
}
