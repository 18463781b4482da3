/* tests/exec/test-run-cuda.c - the runner on one GPU against the CPU reference: what
 * `tandem run --backend cuda --verify` checks, in process.
 *
 * One step of tiny-llama (256-token sequences, 4 per step) runs on the cuda backend with
 * the GEMM math tandem run asks for (TANDEM_CUDA_MATMUL=bf16: BF16 tensor-core products,
 * FP32 accumulation, FP32 storage) and on the CPU backend in host memory; the loss, the
 * gradient norm and the second step's loss (after one AdamW update) agree within the
 * BF16 tolerances of tandem run --verify (derived in cli/cmd-run.c: 2e-2 relative for
 * the loss, 5e-2 for the gradient norm). Plain, and with gradient accumulation and full
 * recompute, which reorder the same math.
 *
 * Built with or without CUDA (only the public ops table is used); without the backend or
 * a device every test skips with the reason, as test-backend-cuda does. */
#include "cuda-open.h"
#include "mpi-launch.h"
#include "run-tiny.h"
#include "local-open.h"

#include <json-glib/json-glib.h>

#include <math.h>
#include <string.h>

#define VERIFY_BF16_LOSS_TOL  2e-2   /* cli/cmd-run.c */
#define VERIFY_BF16_GNORM_TOL 5e-2
#define STEPS 2

static ExecBackend *gpu;      /* NULL: the tests skip */
static char        *skip_reason;

/* A world of one whatever launched us, with tandem run's GEMM math. */
static void
gpu_open (void)
{
  g_setenv ("TANDEM_CUDA_MATMUL", "bf16", TRUE);
  gpu = cuda_open_or_skip (&skip_reason);
}

typedef struct {
  double loss, grad_norm, losses[STEPS];
} Result;

static void
run (ExecBackend *b, int mbs, PlanRecompute recompute, Result *out)
{
  Plan p;
  tiny_plan_init (&p, 1, 256);
  p.micro_batch = mbs;
  p.recompute = recompute;
  p.master_weights = FALSE;
  TinyRun t;
  tiny_run (&t, b, &p, STEPS, 60);
  out->loss = t.res->loss;
  out->grad_norm = t.res->grad_norm;
  for (int i = 0; i < STEPS; i++)
    out->losses[i] = t.res->losses[i];
  g_test_message ("%s, mbs %d, recompute %d: loss %.9g, grad norm %.9g, step 2 loss %.9g, "
                  "step %.4f s", b->ops->name, mbs, recompute, out->loss, out->grad_norm,
                  out->losses[1], t.res->step_time_s);
  tiny_run_clear (&t);
  plan_clear (&p);
}

static double
rel (double got, double want)
{
  return fabs (got - want) / MAX (fabs (want), 1e-30);
}

static void
test_vs_cpu (gconstpointer data)
{
  if (!gpu)
    {
      g_test_skip (skip_reason);
      return;
    }
  int mbs = GPOINTER_TO_INT (data) ? 1 : 4;
  PlanRecompute rc = GPOINTER_TO_INT (data) ? PLAN_RECOMPUTE_FULL : PLAN_RECOMPUTE_NONE;
  g_autoptr (ExecBackend) cpu = local_backend_open ("cpu");
  Result want, got;
  run (cpu, 4, PLAN_RECOMPUTE_NONE, &want);   /* tandem run --verify's reference plan */
  run (gpu, mbs, rc, &got);
  g_test_message ("relative errors: loss %.2g (tolerance %g), grad norm %.2g (%g), step 2 "
                  "loss %.2g", rel (got.loss, want.loss), VERIFY_BF16_LOSS_TOL,
                  rel (got.grad_norm, want.grad_norm), VERIFY_BF16_GNORM_TOL,
                  rel (got.losses[1], want.losses[1]));
  /* random tokens over 2048 words: ln 2048 = 7.62 on both */
  g_assert_cmpfloat (fabs (want.loss - log (2048.0)), <, 0.5);
  g_assert_cmpfloat (rel (got.loss, want.loss), <=, VERIFY_BF16_LOSS_TOL);
  g_assert_cmpfloat (rel (got.grad_norm, want.grad_norm), <=, VERIFY_BF16_GNORM_TOL);
  g_assert_cmpfloat (rel (got.losses[1], want.losses[1]), <=, VERIFY_BF16_LOSS_TOL);
  g_assert_cmpfloat (got.grad_norm, >, 0);
}

/* Two GPUs under mpirun: `tandem run --backend cuda --verify` of a TP 2 (with sequence
 * parallelism: NCCL all-gather and reduce-scatter) and a DP 2 plan (gradient all-reduce),
 * each checked by tandem itself against the single-rank CPU reference within the BF16
 * tolerances; skipped on one GPU, without mpirun, or outside meson (TANDEM_EXE). */
static void
test_two_gpus (gconstpointer data)
{
  if (!gpu)
    {
      g_test_skip (skip_reason);
      return;
    }
  if (gpu->device_count < 2)
    {
      g_test_skip ("one GPU visible: the TP and DP plans need two");
      return;
    }
  if (!mpi_test_can_launch (TRUE))
    return;
  g_autofree char *dir = g_dir_make_tmp ("tandem-run-cuda-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  g_autoptr (GPtrArray) argv = mpi_test_argv_new ();
  g_ptr_array_add (argv, g_strdup ("-np"));
  g_ptr_array_add (argv, g_strdup ("2"));
  g_ptr_array_add (argv, g_strdup (g_getenv ("TANDEM_EXE")));
  g_auto (GStrv) words = g_strsplit ((const char *) data, " ", -1);
  const char *common[] = { "run", "--backend", "cuda", "--model", "tiny-llama", "--seq", "128",
                           "--steps", "1", "--warmup", "0", "--timeout", "60", "--verify",
                           "--json", "--db", db, NULL };
  for (guint i = 0; common[i]; i++)
    g_ptr_array_add (argv, g_strdup (common[i]));
  for (guint i = 0; words[i]; i++)
    g_ptr_array_add (argv, g_strdup (words[i]));
  g_ptr_array_add (argv, NULL);
  g_auto (GStrv) env = mpi_test_environ ();
  env = g_environ_unsetenv (env, "TANDEM_CUDA_MATMUL");   /* tandem run's default: bf16 */
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  if (status != 0 || strchr (out, '{') == NULL)
    g_error ("mpirun -np 2 tandem run --backend cuda %s: status %d\nstdout:\n%s\nstderr:\n%s",
             (const char *) data, status, out, err);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, strchr (out, '{'), -1, &error));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  JsonObject *v = json_object_get_object_member (o, "verify");
  g_assert_nonnull (v);
  g_test_message ("%s: loss rel err %.2g, grad norm rel err %.2g", (const char *) data,
                  json_object_get_double_member (v, "loss_rel_err"),
                  json_object_get_double_member (v, "grad_norm_rel_err"));
  g_assert_true (json_object_get_boolean_member (v, "ok"));
  g_assert_cmpfloat (json_object_get_double_member (v, "loss_tolerance"), ==,
                     VERIFY_BF16_LOSS_TOL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gpu_open ();
  g_test_add_data_func ("/exec/run-cuda/one-gpu-vs-cpu", GINT_TO_POINTER (0), test_vs_cpu);
  g_test_add_data_func ("/exec/run-cuda/accumulate-recompute-vs-cpu", GINT_TO_POINTER (1),
                        test_vs_cpu);
  g_test_add_data_func ("/exec/run-cuda/two-gpus-tp2-sp", "--tp 2 --sp --global-batch-size 4",
                        test_two_gpus);
  g_test_add_data_func ("/exec/run-cuda/two-gpus-dp2", "--dp 2 --global-batch-size 4",
                        test_two_gpus);
  int rc = g_test_run ();
  exec_backend_close (gpu);
  g_free (skip_reason);
  return rc;
}
