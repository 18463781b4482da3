/* tests/exec/test-run-devsim.c - the runner never touches buffer memory from the host.
 *
 * The runner runs on the devsim backend (devsim-backend.h): the CPU backend whose buffers
 * are pointers the host cannot dereference, translated back inside every upload,
 * download, GEMM, collective and kernel. A host read or write of a buffer anywhere in the
 * runner crashes the test (SIGSEGV), and so does a host array handed to a kernel or a
 * collective (devsim aborts, naming it): on the cuda backend both would be wrong.
 *
 * Oracle: the same run on the plain CPU backend. Devsim calls the same kernels in the
 * same order on the same values, so the loss, the gradient norm and every step's loss are
 * bit-identical (compared with ==, no tolerance).
 *
 * Cases. In process, a world of one (tiny-llama, 64-token sequences, 4 sequences per
 * step, 2 steps so that the second step's loss checks the optimizer's update): one
 * micro-batch of 4 or 4 of 1 (gradient accumulation), full and selective recompute.
 * Under `mpirun -np 2` (the program re-runs itself, as test-backend-mpi does; each rank
 * opens one backend, devsim or cpu, so each case runs twice): a 2-stage pipeline (1F1B
 * and interleaved), TP 2 with sequence parallelism, ring and all-gather context
 * parallelism, data parallelism with ZeRO-1 and ZeRO-3; that is every collective,
 * transfer and host/device boundary of the runner. The mpirun cases skip when mpirun or
 * the MPI/BLAS backend is missing. Also: the fault itself (a subprocess reading a devsim
 * buffer dies), and the dtypes the runner refuses on a backend with its own kernels. */
#include "devsim-backend.h"
#include "exec/calibrate.h"
#include "mpi-launch.h"
#include "run-tiny.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define STEPS 2

typedef struct {
  const char   *name;
  int           tp, pp, vpp, cp, mbs;
  gboolean      sp;
  PlanSharding  sharding;
  PlanRecompute recompute;
  PlanCpComm    cp_comm;
  PlanAttnBackend attn;     /* flash unless given */
  int           experts, ep;  /* --num-experts (0: dense) and --ep: MoE layers */
  gboolean      gather_ahead; /* ZeRO-3: the next layer's backward gather issued before
                               * this layer's reduce-scatter (plan zero3_gather_ahead) */
} Case;

typedef struct {
  double loss, grad_norm, losses[STEPS];
} Result;

/* Runs case c on b (a world of b->world ranks); rank 0's result in *out. */
static void
run_case (ExecBackend *b, const Case *c, Result *out)
{
  Plan p;
  tiny_plan_init (&p, b->world, 64);
  p.micro_batch = c->mbs;
  p.tp = c->tp;
  p.pp = c->pp;
  p.cp = c->cp;
  p.vpp = c->vpp;
  p.sequence_parallel = c->sp;
  p.sharding = c->sharding;
  p.recompute = c->recompute;
  p.cp_comm = c->cp_comm;
  p.attention_backend = c->attn;
  if (c->gather_ahead)
    p.zero3_gather_ahead = 1;
  if (c->experts > 0)
    {
      p.num_experts = c->experts;   /* tiny-llama's MLPs as experts (exec/runner-moe.c) */
      p.moe_topk = 2;
      p.ep = c->ep;
    }
  if (c->vpp > 1)
    {
      p.schedule = PLAN_SCHED_INTERLEAVED_1F1B;
      p.schedule_set = TRUE;
    }
  p.master_weights = FALSE;
  TinyRun t;
  tiny_run (&t, b, &p, STEPS, 30);
  out->loss = t.res->loss;
  out->grad_norm = t.res->grad_norm;
  for (int i = 0; i < STEPS; i++)
    out->losses[i] = t.res->losses[i];
  tiny_run_clear (&t);
  plan_clear (&p);
}

static ExecBackend *
open_backend (gboolean devsim, ExecMpiMode mpi)
{
  g_autoptr (GError) error = NULL;
  ExecConfig cfg;
  exec_config_init (&cfg);
  cfg.mpi = mpi;
  cfg.timeout_s = 30;
  ExecBackend *b = devsim ? devsim_backend_open (&cfg, &error) : exec_backend_open (&cfg, &error);
  g_assert_no_error (error);
  return b;
}

/* ---- the fault itself ------------------------------------------------------------------ */

/* A devsim buffer's data cannot be read on the host: the child reads one and dies before
 * printing "survived". */
static void
test_fault (void)
{
  if (g_test_subprocess ())
    {
      ExecBackend *b = open_backend (TRUE, EXEC_MPI_OFF);
      g_autoptr (GError) error = NULL;
      ExecBuffer *buf = exec_buffer_new (b, 64, &error);
      g_assert_no_error (error);
      g_assert_true (devsim_is_device (buf->data));
      printf ("reading %p\n", buf->data);
      fflush (stdout);
      volatile float x = *(volatile float *) buf->data;
      printf ("survived %g\n", x);
      exit (0);
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stdout ("*reading*");
  g_test_trap_assert_stdout_unmatched ("*survived*");
}

/* ---- in process: a world of one -------------------------------------------------------- */

static const Case local_cases[] = {
  { "mbs4", 1, 1, 1, 1, 4, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_NONE, PLAN_CP_P2P },
  { "accum4", 1, 1, 1, 1, 1, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_NONE, PLAN_CP_P2P },
  { "recompute-full", 1, 1, 1, 1, 1, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_FULL, PLAN_CP_P2P },
  { "recompute-selective", 1, 1, 1, 1, 2, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_SELECTIVE,
    PLAN_CP_P2P },
  { "unfused", 1, 1, 1, 1, 2, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_NONE, PLAN_CP_P2P,
    PLAN_ATTN_UNFUSED },
  { "unfused-selective", 1, 1, 1, 1, 2, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_SELECTIVE,
    PLAN_CP_P2P, PLAN_ATTN_UNFUSED },
  { .name = "moe4-top2", .tp = 1, .pp = 1, .vpp = 1, .cp = 1, .mbs = 2,
    .sharding = PLAN_SHARD_NONE, .recompute = PLAN_RECOMPUTE_NONE, .cp_comm = PLAN_CP_P2P,
    .experts = 4, .ep = 1 },
};

static void
assert_same (const char *name, const Result *dev, const Result *cpu)
{
  g_test_message ("%s: loss %.17g, grad norm %.17g, step-2 loss %.17g (devsim) vs %.17g, "
                  "%.17g, %.17g (cpu)", name, dev->loss, dev->grad_norm, dev->losses[1],
                  cpu->loss, cpu->grad_norm, cpu->losses[1]);
  /* identical kernels in identical order: bit-identical, no tolerance */
  g_assert_cmpfloat (dev->loss, ==, cpu->loss);
  g_assert_cmpfloat (dev->grad_norm, ==, cpu->grad_norm);
  for (int i = 0; i < STEPS; i++)
    g_assert_cmpfloat (dev->losses[i], ==, cpu->losses[i]);
  /* random tokens over 2048 words: the loss starts near ln 2048 = 7.62 */
  g_assert_cmpfloat (fabs (cpu->loss - log (2048.0)), <, 0.5);
  g_assert_cmpfloat (cpu->grad_norm, >, 0);
}

static void
test_local (gconstpointer data)
{
  const Case *c = data;
  ExecBackend *cpu = open_backend (FALSE, EXEC_MPI_OFF);
  Result want;
  run_case (cpu, c, &want);
  exec_backend_close (cpu);

  ExecBackend *dev = open_backend (TRUE, EXEC_MPI_OFF);
  g_assert_cmpstr (dev->ops->name, ==, "devsim");
  Result got;
  run_case (dev, c, &got);
  DevsimCounts n;
  devsim_counts (&n);
  exec_backend_close (dev);
  g_test_message ("devsim: %" G_GUINT64_FORMAT " kernels, %" G_GUINT64_FORMAT " uploads, %"
                  G_GUINT64_FORMAT " downloads, %" G_GUINT64_FORMAT " buffers", n.kernels,
                  n.uploads, n.downloads, n.buffers);
  /* the work went through the wrappers: kernels, and uploads of weights and data and
   * downloads of losses and gradients */
  g_assert_cmpuint (n.kernels, >, 100);
  g_assert_cmpuint (n.uploads, >, 0);
  g_assert_cmpuint (n.downloads, >, 0);
  assert_same (c->name, &got, &want);

  if (c->attn == PLAN_ATTN_UNFUSED)
    {
      /* the materialized scores compute the same step as the online softmax: the FP32
       * sums are regrouped, so equal within 1e-5 relative, not bit for bit */
      Case flash = *c;
      flash.attn = PLAN_ATTN_FLASH;
      ExecBackend *cpu2 = open_backend (FALSE, EXEC_MPI_OFF);
      Result f;
      run_case (cpu2, &flash, &f);
      exec_backend_close (cpu2);
      g_test_message ("%s: loss %.9g, grad norm %.9g; flash %.9g, %.9g", c->name, want.loss,
                      want.grad_norm, f.loss, f.grad_norm);
      g_assert_cmpfloat (fabs (want.loss - f.loss), <=, 1e-5 * f.loss);
      g_assert_cmpfloat (fabs (want.grad_norm - f.grad_norm), <=, 1e-5 * f.grad_norm);
      g_assert_cmpfloat (fabs (want.losses[1] - f.losses[1]), <=, 1e-5 * f.losses[1]);
    }
}

/* What the runner cannot keep in fp32 buffers it refuses, with the reason, on any
 * backend: BF16 parameters (the plan defaults), FP8 GEMMs. */
static void
test_refuses_dtype (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) m = model_spec_lookup ("tiny-llama", &error);
  g_autoptr (TopoCluster) cl = topo_cluster_lookup ("cpu-host", &error);
  g_assert_no_error (error);
  ExecBackend *b = open_backend (TRUE, EXEC_MPI_OFF);
  for (int i = 0; i < 2; i++)
    {
      Plan p;
      plan_init_defaults (&p);
      p.world_size = 1;
      p.seq_length = 64;
      p.global_batch = 1;
      /* the defaults (bf16 parameters, fp32 master weights); then FP8 GEMMs over fp32
       * storage (set after plan_resolve, which refuses FP8 on the cpu-host preset) */
      g_assert_true (plan_resolve (&p, m, cl, &error));
      g_assert_no_error (error);
      if (i == 1)
        {
          p.compute_dtype = PLAN_PREC_FP8;
          p.param_dtype = p.grad_dtype = p.optim_dtype = PLAN_PREC_FP32;
          p.master_weights = FALSE;
        }
      g_autoptr (PlanLayout) layout = plan_layout_new (&p, cl, &error);
      g_autoptr (ProgProgram) prog = prog_program_new (m, &p, layout, &error);
      g_assert_no_error (error);
      g_assert_null (exec_runner_new (b, prog, layout, NULL, &error));
      g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, i == 1 ? "fp8 compute" : "bf16 parameters"));
      g_clear_error (&error);
      plan_clear (&p);
    }
  exec_backend_close (b);
}

/* ---- under mpirun: 2 ranks ------------------------------------------------------------- */

static const Case mpi_cases[] = {
  { "pp2-1f1b", 1, 2, 1, 1, 1, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_NONE, PLAN_CP_P2P },
  { "pp2-vpp2", 1, 2, 2, 1, 1, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_FULL, PLAN_CP_P2P },
  { "tp2-sp", 2, 1, 1, 1, 1, TRUE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_NONE, PLAN_CP_P2P },
  { "cp2-ring", 1, 1, 1, 2, 1, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_NONE, PLAN_CP_P2P },
  { "cp2-allgather", 1, 1, 1, 2, 1, FALSE, PLAN_SHARD_NONE, PLAN_RECOMPUTE_NONE,
    PLAN_CP_ALLGATHER },
  { "dp2-zero1", 1, 1, 1, 1, 1, FALSE, PLAN_SHARD_ZERO1, PLAN_RECOMPUTE_NONE, PLAN_CP_P2P },
  { "dp2-zero3", 1, 1, 1, 1, 1, FALSE, PLAN_SHARD_ZERO3, PLAN_RECOMPUTE_NONE, PLAN_CP_P2P },
  { .name = "dp2-zero3-ahead", .tp = 1, .pp = 1, .vpp = 1, .cp = 1, .mbs = 1,
    .sharding = PLAN_SHARD_ZERO3, .recompute = PLAN_RECOMPUTE_NONE, .cp_comm = PLAN_CP_P2P,
    .gather_ahead = TRUE },
  { .name = "ep2-moe4", .tp = 1, .pp = 1, .vpp = 1, .cp = 1, .mbs = 1,
    .sharding = PLAN_SHARD_NONE, .recompute = PLAN_RECOMPUTE_NONE, .cp_comm = PLAN_CP_P2P,
    .experts = 4, .ep = 2 },
};

/* A rank of `mpirun -np 2 SELF`, TANDEM_DEVSIM_BACKEND=devsim|cpu: runs every MPI case
 * on that backend and prints rank 0's results as "RESULT name loss gnorm l0 l1" (hex
 * floats, exact). */
static int
run_rank (void)
{
  gboolean devsim = g_strcmp0 (g_getenv ("TANDEM_DEVSIM_BACKEND"), "devsim") == 0;
  ExecBackend *b = open_backend (devsim, EXEC_MPI_ON);
  for (guint i = 0; i < G_N_ELEMENTS (mpi_cases); i++)
    {
      Result res;
      run_case (b, &mpi_cases[i], &res);
      if (b->rank == 0)
        printf ("RESULT %s %a %a %a %a\n", mpi_cases[i].name, res.loss, res.grad_norm,
                res.losses[0], res.losses[1]);
      fflush (stdout);
    }
  exec_backend_close (b);
  return 0;
}

static const char *self_path;

/* name -> Result, from the RESULT lines of one launch */
static GHashTable *
launch (const char *backend)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) argv = mpi_test_argv_new ();
  g_ptr_array_add (argv, g_strdup ("-np"));
  g_ptr_array_add (argv, g_strdup ("2"));
  g_ptr_array_add (argv, g_strdup ("-x"));
  g_ptr_array_add (argv, g_strdup ("TANDEM_DEVSIM_BACKEND"));
  g_ptr_array_add (argv, g_strdup (self_path));
  g_ptr_array_add (argv, NULL);
  g_auto (GStrv) env = mpi_test_environ ();
  env = g_environ_setenv (env, "TANDEM_DEVSIM_BACKEND", backend, TRUE);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, &error))
    {
      g_test_message ("%s ranks' stdout:\n%s", backend, out);
      g_test_message ("%s ranks' stderr:\n%s", backend, err);
      g_error ("mpirun -np 2 on %s: %s", backend, error->message);
    }
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_auto (GStrv) w = g_strsplit (lines[i], " ", -1);
      if (g_strv_length (w) != 6 || strcmp (w[0], "RESULT") != 0)
        continue;
      Result *r = g_new (Result, 1);
      r->loss = g_ascii_strtod (w[2], NULL);
      r->grad_norm = g_ascii_strtod (w[3], NULL);
      r->losses[0] = g_ascii_strtod (w[4], NULL);
      r->losses[1] = g_ascii_strtod (w[5], NULL);
      g_hash_table_replace (h, g_strdup (w[1]), r);
    }
  return h;
}

static void
test_mpi (void)
{
  if (!mpi_test_can_launch (FALSE))
    return;
  g_autoptr (GHashTable) cpu = launch ("cpu");
  g_autoptr (GHashTable) dev = launch ("devsim");
  for (guint i = 0; i < G_N_ELEMENTS (mpi_cases); i++)
    {
      const char *name = mpi_cases[i].name;
      const Result *want = g_hash_table_lookup (cpu, name), *got = g_hash_table_lookup (dev, name);
      if (!want || !got)
        g_error ("case %s: no result from the %s ranks", name, !want ? "cpu" : "devsim");
      assert_same (name, got, want);
    }
  /* the gathers issued in another order on the DP stream move the same parameters: the
   * same losses and gradient norm, bit for bit, as the plain ZeRO-3 case */
  assert_same ("dp2-zero3-ahead", g_hash_table_lookup (cpu, "dp2-zero3-ahead"),
               g_hash_table_lookup (cpu, "dp2-zero3"));
}

/* `tandem calibrate`'s memory part on a backend with device memory takes its device path
 * (exec/calibrate.c calibrate_memory_device): the loops run as kernel-table calls on
 * device buffers, never as host loops (those would crash here). Quick: 3 float arrays of
 * 2^24 elements (64 MiB), reps = 3 timed rounds after one warm-up round, each round 10
 * copies and 10 adds: 2 fills + 4 x 20 = 82 kernel calls; a = 1 + 2 x 4 = 9 at the end,
 * checked on a downloaded sample (#wrong 0). */
static void
test_calibrate_memory (void)
{
  g_autoptr (GError) error = NULL;
  ExecConfig cfg;
  exec_config_init (&cfg);
  cfg.mpi = EXEC_MPI_OFF;
  ExecBackend *b = devsim_backend_open (&cfg, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (b->device_memory_bytes, ==, DEVSIM_MEMORY_BYTES);
  ExecCalibrateOptions o;
  exec_calibrate_options_init (&o);
  o.quick = TRUE;
  g_autoptr (ExecCalibration) cal = exec_calibration_new ("devsim");
  DevsimCounts before, after;
  devsim_counts (&before);
  g_assert_true (exec_calibrate_memory (b, &o, cal, &error));
  g_assert_no_error (error);
  devsim_counts (&after);
  g_assert_true (cal->memory.on_device);
  g_assert_cmpuint (cal->memory.bytes, ==, ((guint64) 1 << 24) * sizeof (float));
  g_assert_cmpint (cal->memory.reps, ==, 3 * 10);
  g_assert_cmpint (cal->memory.wrong, ==, 0);
  g_assert_cmpfloat (cal->memory.copy_GBps, >, 0);
  g_assert_cmpfloat (cal->memory.triad_GBps, >, 0);
  g_assert_cmpuint (after.kernels - before.kernels, ==, 82);
  g_assert_cmpuint (after.downloads - before.downloads, >=, 1);
  exec_backend_close (b);
}

int
main (int argc, char **argv)
{
  if (g_getenv ("OMPI_COMM_WORLD_SIZE") && g_getenv ("TANDEM_DEVSIM_BACKEND"))
    return run_rank ();
  g_test_init (&argc, &argv, NULL);
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  self_path = exe ? exe : argv[0];
  g_test_add_func ("/exec/run-devsim/fault", test_fault);
  for (guint i = 0; i < G_N_ELEMENTS (local_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/exec/run-devsim/local-%s", local_cases[i].name);
      g_test_add_data_func (path, &local_cases[i], test_local);
    }
  g_test_add_func ("/exec/run-devsim/refuses-dtype", test_refuses_dtype);
  g_test_add_func ("/exec/run-devsim/calibrate-memory", test_calibrate_memory);
  g_test_add_func ("/exec/run-devsim/mpi-2-ranks", test_mpi);
  return g_test_run ();
}
