/* tests/exec/test-run-moe.c - `tandem run --verify` of a mixture-of-experts model with
 * expert parallelism under mpirun equals the single-rank run of the same model and data.
 *
 * tiny-mixtral (models/presets: hidden 64, 2 layers, 4 experts top-2, expert ffn 128,
 * vocab 512), 64-token sequences, global batch 4, one step: with 2 ranks EP 2 (each rank
 * holds 2 experts and routes its own tokens through the all-to-alls), with 4 ranks EP 4
 * (one expert a rank) and EP 2 (expert data parallelism 2: the program's EDP reductions
 * sum each expert's gradient over the two ranks that hold it). The runner's first-step
 * loss and gradient norm (every parameter, experts included) against the single-rank run
 * that --verify makes on rank 0, within tandem run's fp32 tolerances (loss 1e-5, gradient
 * norm 1e-4 relative: the same math summed in another order). A random-token model
 * starts near ln 512 = 6.238. --num-experts and --moe-router-topk restate the preset's
 * 4 and 2. tiny-deepseek-moe (3 layers, the first dense; 8 routed experts of 32 top-2 and
 * two shared experts, 64 together, on every token) the same with EP 2 on 2 ranks: the
 * shared experts' weights are replicated over EP and their gradients reduced over DP with
 * the dense ones; once more with --moe-shared-expert-overlap (the shared experts run
 * beside the dispatch, before the combine). Pipeline stages holding MoE layers, EP inside
 * each stage, on 4 ranks with pp 2, ep 2 (dp 2 per stage, edp 1): tiny-mixtral, one MoE
 * layer a stage; tiny-deepseek-moe split 2 + 1 layers (stage 0 the dense layer and an MoE
 * one, stage 1 an MoE one). Tensor parallelism with sequence parallelism and expert TP 1
 * (each TP rank routes its sequence shard): tiny-mixtral tp 2 x ep 2 on 2 ranks and tp 2 x
 * dp 2 with ep 2 (edp 2) and ep 4 on 4 ranks. These run two steps and compare the second
 * step's loss with a single-rank run's as well, within 1e-6 relative: it matches only if
 * every rank updated the same weights, the router included, whose gradient each TP rank
 * takes from its own tokens and the runner sums over TP (without that sum the second loss
 * is off by 2.6e-5 relative, with it by 4e-9, measured). ZeRO-1 and ZeRO-2 (with the
 * overlapped gradient reduce and parameter gather) on 4 ranks with EP 2 x EDP 2: the dense
 * states sharded over the 4 DP ranks, each expert's over its 2 EDP ranks; the second
 * step's loss after the sharded AdamW steps and the all-gathers equals the single-rank
 * run's the same way. Skips without mpirun, timeout or the MPI/BLAS backend. */
#include "mpi-launch.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static double
member_double (JsonObject *o, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  for (guint i = 0; parts[i + 1]; i++)
    {
      g_assert_true (json_object_has_member (o, parts[i]));
      o = json_object_get_object_member (o, parts[i]);
    }
  guint last = g_strv_length (parts) - 1;
  g_assert_true (json_object_has_member (o, parts[last]));
  return json_object_get_double_member (o, parts[last]);
}

typedef struct {
  int         np;
  const char *plan;   /* the model's flags and the plan's */
  const char *model;  /* two steps: the model's flags alone for the single-rank run */
} Case;

static JsonObject *
run_json (JsonParser *parser, const char *out)
{
  g_autoptr (GError) error = NULL;
  json_parser_load_from_data (parser, strchr (out, '{'), -1, &error);
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static double
second_loss (JsonObject *o)
{
  JsonArray *a = json_object_get_array_member (json_object_get_object_member (o, "measured"),
                                               "losses");
  g_assert_cmpuint (json_array_get_length (a), ==, 2);
  return json_array_get_double_element (a, 1);
}

static void
verify_case (gconstpointer data)
{
  const Case *c = data;
  if (!mpi_test_can_launch (TRUE))
    return;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tandem-run-moe-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  g_autoptr (GPtrArray) argv = mpi_test_argv_new ();
  g_ptr_array_add (argv, g_strdup ("-np"));
  g_ptr_array_add (argv, g_strdup_printf ("%d", c->np));
  g_ptr_array_add (argv, g_strdup (g_getenv ("TANDEM_EXE")));
  g_autofree char *args = g_strdup_printf ("run --seq 64 --gbs 4 --steps %d --warmup 0 "
                                           "--timeout 30 --verify --json --db %s %s",
                                           c->model ? 2 : 1, db, c->plan);
  g_auto (GStrv) words = g_strsplit (args, " ", -1);
  for (guint i = 0; words[i]; i++)
    g_ptr_array_add (argv, g_strdup (words[i]));
  g_ptr_array_add (argv, NULL);
  g_auto (GStrv) env = mpi_test_environ ();
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  if (status != 0 || strchr (out, '{') == NULL)
    {
      g_test_message ("stdout:\n%s\nstderr:\n%s", out, err);
      g_assert_cmpint (status, ==, 0);
    }
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = run_json (parser, out);
  g_test_message ("%d ranks %s: loss %.7f vs %.7f, grad norm %.7f vs %.7f", c->np, c->plan,
                  member_double (o, "verify.loss"), member_double (o, "verify.reference_loss"),
                  member_double (o, "verify.grad_norm"),
                  member_double (o, "verify.reference_grad_norm"));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (o, "verify"),
                                                 "ok"));
  g_assert_cmpfloat (member_double (o, "verify.loss_rel_err"), <=, 1e-5);
  g_assert_cmpfloat (member_double (o, "verify.grad_norm_rel_err"), <=, 1e-4);
  g_assert_cmpfloat (fabs (member_double (o, "verify.loss") - log (512.0)), <, 0.5);
  g_assert_cmpfloat (member_double (o, "verify.grad_norm"), >, 0);
  if (c->model)
    {
      g_autofree char *one = g_strdup_printf ("%s run --seq 64 --gbs 4 --steps 2 --warmup 0 "
                                              "--json --no-db %s", g_getenv ("TANDEM_EXE"),
                                              c->model);
      g_auto (GStrv) argv1 = g_strsplit (g_strstrip (one), " ", -1);
      g_autofree char *out1 = NULL, *err1 = NULL;
      g_assert_true (g_spawn_sync (NULL, argv1, env, G_SPAWN_DEFAULT, NULL, NULL, &out1,
                                   &err1, &status, &error));
      g_assert_no_error (error);
      if (status != 0 || strchr (out1, '{') == NULL)
        {
          g_test_message ("single rank: stdout:\n%s\nstderr:\n%s", out1, err1);
          g_assert_cmpint (status, ==, 0);
        }
      g_autoptr (JsonParser) p1 = json_parser_new ();
      double ref = second_loss (run_json (p1, out1)), got = second_loss (o);
      g_test_message ("second step: loss %.9f vs single-rank %.9f", got, ref);
      g_assert_cmpfloat (fabs (got - ref), <=, 1e-6 * fabs (ref));
    }
  g_unlink (db);
  g_autofree char *wal = g_strconcat (db, "-wal", NULL), *shm = g_strconcat (db, "-shm", NULL);
  g_unlink (wal);
  g_unlink (shm);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define MIXTRAL "--model tiny-mixtral --num-experts 4 --moe-router-topk 2 "
  static const Case ep2 = { 2, MIXTRAL "--expert-model-parallel-size 2" };
  static const Case ep4 = { 4, MIXTRAL "--expert-model-parallel-size 4" };
  static const Case ep2_edp2 = { 4, MIXTRAL "--expert-model-parallel-size 2" };
  static const Case shared = { 2, "--model tiny-deepseek-moe --expert-model-parallel-size 2" };
  static const Case shared_overlap = { 2, "--model tiny-deepseek-moe "
                                          "--expert-model-parallel-size 2 "
                                          "--moe-shared-expert-overlap" };
  static const Case pp2 = { 4, MIXTRAL "--pp 2 --expert-model-parallel-size 2" };
  /* combined 1F1B (plan/program.c expand_pair): 2 micro-batches per rank, F0 | F1 + B0 |
   * B1, the pair's tasks run in Megatron's merged order; the same losses as one rank */
  static const Case a2a_overlap = { 2, MIXTRAL "--expert-model-parallel-size 2 "
                                       "--overlap-moe-expert-parallel-comm", MIXTRAL };
  /* --moe-imbalance 2, what ep 2 allows (ep x min(k, E / ep) / k = 2 x 2 / 2): the
   * single-rank reference inherited it and refused it at ep 1 after the whole run (exit
   * 1, a failed row) */
  static const Case imbalance = { 2, MIXTRAL "--expert-model-parallel-size 2 "
                                     "--moe-imbalance 2", MIXTRAL };
  /* one micro-batch a rank (--gbs 2 on 2 ranks): nothing to pair it with; the runner
   * stopped with "backward of MoE layer 1 (micro-batch 0) without its activations" */
  static const Case a2a_one = { 2, MIXTRAL "--expert-model-parallel-size 2 "
                                   "--overlap-moe-expert-parallel-comm --gbs 2" };
  static const Case pp2_shared = { 4, "--model tiny-deepseek-moe --pp 2 "
                                      "--decoder-first-pipeline-num-layers 2 "
                                      "--expert-model-parallel-size 2" };
#define TP2 "--tp 2 --sequence-parallel --expert-tensor-parallel-size 1 "
  static const Case tp2 = { 2, MIXTRAL TP2 "--expert-model-parallel-size 2", MIXTRAL };
  static const Case tp2_edp2 = { 4, MIXTRAL TP2 "--expert-model-parallel-size 2", MIXTRAL };
  static const Case tp2_ep4 = { 4, MIXTRAL TP2 "--expert-model-parallel-size 4", MIXTRAL };
  static const Case zero1 = { 4, MIXTRAL "--expert-model-parallel-size 2 --sharding zero1",
                              MIXTRAL };
  static const Case zero2 = { 4, MIXTRAL "--expert-model-parallel-size 2 --sharding zero2 "
                                 "--overlap-grad-reduce --overlap-param-gather", MIXTRAL };
  g_test_add_data_func ("/exec/run-moe/verify-np2-ep2", &ep2, verify_case);
  g_test_add_data_func ("/exec/run-moe/verify-np4-ep4", &ep4, verify_case);
  g_test_add_data_func ("/exec/run-moe/verify-np4-ep2-edp2", &ep2_edp2, verify_case);
  g_test_add_data_func ("/exec/run-moe/shared-np2-ep2", &shared, verify_case);
  g_test_add_data_func ("/exec/run-moe/shared-overlap-np2-ep2", &shared_overlap, verify_case);
  g_test_add_data_func ("/exec/run-moe/pp2-np4-ep2", &pp2, verify_case);
  g_test_add_data_func ("/exec/run-moe/a2a-overlap-np2-ep2", &a2a_overlap, verify_case);
  g_test_add_data_func ("/exec/run-moe/imbalance-np2-ep2", &imbalance, verify_case);
  g_test_add_data_func ("/exec/run-moe/a2a-overlap-one-micro-batch", &a2a_one, verify_case);
  g_test_add_data_func ("/exec/run-moe/shared-pp2-np4-ep2", &pp2_shared, verify_case);
  g_test_add_data_func ("/exec/run-moe/tp2-np2-ep2", &tp2, verify_case);
  g_test_add_data_func ("/exec/run-moe/tp2-np4-ep2-edp2", &tp2_edp2, verify_case);
  g_test_add_data_func ("/exec/run-moe/tp2-np4-ep4", &tp2_ep4, verify_case);
  g_test_add_data_func ("/exec/run-moe/zero1-np4-ep2-edp2", &zero1, verify_case);
  g_test_add_data_func ("/exec/run-moe/zero2-np4-ep2-edp2", &zero2, verify_case);
  return g_test_run ();
}
