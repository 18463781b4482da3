/* tests/cli/test-ecosystem.c - issue 14's ecosystem edges end to end: a model by
 * Megatron-LM's flags, `import-log` of Megatron-LM and TorchTitan training logs into
 * measured runs, `validate --cluster` on a user's own cluster.
 * TANDEM_EXE (set by tests/cli/meson.build) is the binary under test; "{DATA}" in the
 * arguments is tests/data and "{SRC}" the source root. */
#include <glib.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "cli-run.h"

static void
assert_one_error_line (const char *err, const char *needle)
{
  if (!g_str_has_prefix (err, "tandem: error: ") || strstr (err, needle) == NULL)
    g_error ("expected one error line with '%s', got: %s", needle, err);
  g_assert_cmpint (strchr (err, '\n') - err + 1, ==, (gint64) strlen (err));
}

static double
member_double (JsonNode *root, const char *a, const char *b)
{
  JsonObject *o = json_node_get_object (root);
  if (b != NULL)
    o = json_object_get_object_member (o, a), a = b;
  return json_object_get_double_member (o, a);
}

/* Llama 3 8B by Megatron flags (32 layers, h 4096, 32 heads, 8 query groups, ffn 14336,
 * SwiGLU, untied, vocabulary 128256, which is a multiple of 1 x tp 8 so no padding) is
 * the llama3-8b preset: the same prediction and memory, to the last bit. */
static void
test_model_flags (void)
{
  const char *plan = "--gpus 8 --tp 8 --gbs 8 --seq-length 8192 --no-db --json";
  RunResult a = { 0 }, b = { 0 };
  g_autofree char *flags = g_strdup_printf (
    "predict --num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
    "--group-query-attention --num-query-groups 8 --ffn-hidden-size 14336 --swiglu "
    "--untie-embeddings-and-output-weights --normalization RMSNorm "
    "--position-embedding-type rope --vocab-size 128256 --make-vocab-size-divisible-by 1 %s",
    plan);
  run_tandem (flags, &a);
  g_assert_cmpint (a.status, ==, 0);
  g_autofree char *preset = g_strdup_printf ("predict --model llama3-8b %s", plan);
  run_tandem (preset, &b);
  g_assert_cmpint (b.status, ==, 0);
  g_autoptr (JsonNode) ja = run_parse_json (a.out);
  g_autoptr (JsonNode) jb = run_parse_json (b.out);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (ja), "model"), ==,
                   "megatron-L32-h4096-a32-swiglu");
  g_assert_cmpfloat (member_double (ja, "step_time_s", NULL), ==,
                     member_double (jb, "step_time_s", NULL));
  g_assert_cmpfloat (member_double (ja, "memory", "peak_bytes"), ==,
                     member_double (jb, "memory", "peak_bytes"));
  run_result_clear (&a);
  run_result_clear (&b);

  /* Megatron pads the vocabulary to a multiple of 128 x tp: 128,256 -> 129,024 at tp 8
   * (126 x 1,024), which adds 768 x 4096 = 3,145,728 parameters to each of the input and
   * output tables: with the default padding the memory grows */
  g_autofree char *padded = g_strdup (
    "memory --num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
    "--group-query-attention --num-query-groups 8 --ffn-hidden-size 14336 --swiglu "
    "--untie-embeddings-and-output-weights --vocab-size 128256 --gpus 8 --tp 8 --gbs 8 "
    "--seq-length 8192 --json");
  run_tandem (padded, &a);
  run_tandem ("memory --model llama3-8b --gpus 8 --tp 8 --gbs 8 --seq-length 8192 --json", &b);
  g_autoptr (JsonNode) pa = run_parse_json (a.out);
  g_autoptr (JsonNode) pb = run_parse_json (b.out);
  g_assert_cmpfloat (member_double (pa, "peak_bytes", NULL), >,
                     member_double (pb, "peak_bytes", NULL));
  run_result_clear (&a);
  run_result_clear (&b);

  static const struct { const char *args, *expect; } bad[] = {
    { "predict --num-layers 32 --hidden-size 4096 --gpus 8 --no-db",
      "needs --num-attention-heads, --vocab-size too" },
    { "predict --model llama3-8b --num-layers 32 --gpus 8 --no-db",
      "--model llama3-8b and Megatron model flags" },
    { "predict --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --vocab-size 32000 "
      "--swiglu --normalization LayerNorm --gpus 8 --no-db", "(hint: --normalization RMSNorm)" },
    { "predict --num-layers 32 --hidden-size 4096 --num-attention-heads 30 --vocab-size 32000 "
      "--gpus 8 --no-db", "not a multiple of --num-attention-heads 30" },
    { "predict --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --vocab-size 32000 "
      "--group-query-attention --gpus 8 --no-db", "needs --num-query-groups" },
    /* Megatron builds no GQA from the count alone (core_transformer_config_from_args) */
    { "predict --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --vocab-size 32000 "
      "--num-query-groups 8 --gpus 8 --no-db",
      "--num-query-groups 8 without --group-query-attention" },
    { "predict --num-layers -3 --hidden-size 4096 --num-attention-heads 32 --vocab-size 32000 "
      "--gpus 8 --no-db", "--num-layers expects an integer >= 1, got '-3'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      run_tandem (bad[i].args, &a);
      g_assert_cmpint (a.status, ==, 2);
      assert_one_error_line (a.err, bad[i].expect);
      run_result_clear (&a);
    }
}

/* tests/data/logs/megatron.log: 5 intervals of "elapsed time per iteration (ms)" 9213.7
 * (warm-up, skipped), 6721.3, 6702.9, 6745.0, 6730.2: median (6721.3 + 6730.2) / 2 =
 * 6725.75 ms, spread (6745.0 - 6702.9) / 6725.75 = 0.626%. Stored as a run with a
 * prediction, `report validation` shows it with the same measured step. */
static void
test_import_megatron (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tandem-import-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("import-log {DATA}/logs/megatron.log --model "
                                           "llama3-8b --gpus 8 --tp 8 --gbs 64 --seq-length "
                                           "8192 --db %s --json", db);
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "format"), ==, "megatron");
  g_assert_cmpfloat_with_epsilon (member_double (root, "measured", "step_time_s"), 6.72575,
                                  1e-9);
  JsonObject *sp = json_object_get_object_member (json_object_get_object_member (o, "measured"),
                                                  "spread");
  g_assert_cmpint (json_object_get_int_member (sp, "repetitions"), ==, 4);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (sp, "spread"),
                                  (6.745 - 6.7029) / 6.72575, 1e-9);
  /* logged throughput, the median of the same four intervals as the step: 399.8, 400.7,
   * 401.2, 402.3 -> (400.7 + 401.2) / 2 = 400.95 */
  g_assert_cmpfloat_with_epsilon (member_double (root, "measured", "logged_tflops_per_gpu"),
                                  400.95, 1e-9);
  gint64 run_id = json_object_get_int_member (o, "run_id");
  g_assert_cmpint (run_id, >, 0);
  double pred = member_double (root, "predicted", "step_time_s");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "error_pct"),
                                  100 * (pred - 6.72575) / 6.72575, 1e-9);
  run_result_clear (&r);

  g_autofree char *rep = g_strdup_printf ("report validation --db %s --json --out %s/rep",
                                          db, dir);
  run_tandem (rep, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) rv = run_parse_json (r.out);
  JsonArray *rows = json_object_get_array_member (json_node_get_object (rv), "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 1);
  JsonObject *row = json_array_get_object_element (rows, 0);
  g_assert_cmpint (json_object_get_int_member (row, "run_id"), ==, run_id);
  JsonObject *step = json_object_get_object_member (json_object_get_object_member (row, "terms"),
                                                    "step");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (step, "measured"), 6.72575,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (step, "predicted"), pred,
                                  1e-9);
  run_result_clear (&r);

  /* the log's global batch (64) must be the plan's */
  run_tandem ("import-log {DATA}/logs/megatron.log --model llama3-8b --gpus 8 --tp 8 --gbs 32 "
              "--seq-length 8192 --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  assert_one_error_line (r.err, "logs a global batch of 64 sequences, the plan has 32 (hint: "
                         "--gbs 64)");
  run_result_clear (&r);
  /* not a training log */
  run_tandem ("import-log {DATA}/logs/megatron.log --format torchtitan --model llama3-8b "
              "--gpus 8 --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  assert_one_error_line (r.err, "no TorchTitan step line");
  run_result_clear (&r);
  run_tandem ("import-log {DATA}/logs/megatron.log --skip 5 --model llama3-8b --gpus 8 --tp 8 "
              "--gbs 64 --seq-length 8192 --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  assert_one_error_line (r.err, "all skipped by --skip 5");
  run_result_clear (&r);
  /* the temporary folder: the store and the report's files */
  remove_tree (dir);
}

/* tests/data/logs/torchtitan.log: tps (tokens/s per GPU) 1203 (skipped), 5121, 5098, 5133
 * with ANSI colours and a thousands separator. On 8 GPUs with 8 sequences of 8192 tokens a
 * step is 65,536 / (tps x 8) = 8192 / tps s: median 8192 / 5121 = 1.599687 s. */
static void
test_import_torchtitan (void)
{
  RunResult r = { 0 };
  run_tandem ("import-log {DATA}/logs/torchtitan.log --model llama3-8b --gpus 8 "
              "--sharding zero3 --gbs 8 --seq-length 8192 --no-db --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "format"), ==,
                   "torchtitan");
  g_assert_cmpfloat_with_epsilon (member_double (root, "measured", "step_time_s"),
                                  8192.0 / 5121.0, 1e-12);
  run_result_clear (&r);

  /* stored, the run names the stack the log chose (torchtitan, not the default
   * megatron-core), so `report run` re-simulates the stored prediction itself: the same
   * model, cluster, plan and stack give the same step, bit for bit. It named no stack,
   * and the page re-simulated with megatron-core (0.81 s against 1.16 s stored) and said
   * "the cost model or options differ from when it was stored". */
  g_autofree char *dir = g_dir_make_tmp ("tandem-import-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  g_autofree char *args = g_strdup_printf ("import-log {DATA}/logs/torchtitan.log --model "
                                           "llama3-8b --gpus 8 --sharding zero3 --gbs 8 "
                                           "--seq-length 8192 --db %s --json", db);
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) stored = run_parse_json (r.out);
  double pred = member_double (stored, "predicted", "step_time_s");
  gint64 id = json_object_get_int_member (json_node_get_object (stored), "run_id");
  run_result_clear (&r);
  g_autofree char *show = g_strdup_printf ("runs show %" G_GINT64_FORMAT " --db %s --json",
                                           id, db);
  run_tandem (show, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) shown = run_parse_json (r.out);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (shown), "framework"),
                   ==, "torchtitan");
  run_result_clear (&r);
  g_autofree char *rep = g_strdup_printf ("report run %" G_GINT64_FORMAT " --db %s --json "
                                          "--out %s/rep", id, db, dir);
  run_tandem (rep, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) page = run_parse_json (r.out);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (page),
                                                    "resimulated_step_time_s"), ==, pred);
  run_result_clear (&r);
  remove_tree (dir);
}

/* validate --cluster: row 2 (Llama 3.1 405B on 16,384 H100s) maps to h100-24k; given as
 * the preset's own file it predicts the same; on a one-server cluster it cannot run and
 * says why; a cluster that does not exist is exit 2. */
static void
test_validate_cluster (void)
{
  RunResult a = { 0 }, b = { 0 };
  run_tandem ("validate {SRC}/data/published-runs.csv --only 2 --no-db --json", &a);
  g_assert_cmpint (a.status, ==, 0);
  run_tandem ("validate {SRC}/data/published-runs.csv --only 2 --no-db --json --cluster "
              "{SRC}/topology/presets/h100-24k.json", &b);
  g_assert_cmpint (b.status, ==, 0);
  g_autoptr (JsonNode) ja = run_parse_json (a.out);
  g_autoptr (JsonNode) jb = run_parse_json (b.out);
  JsonObject *ra = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (ja), "rows"), 0);
  JsonObject *rb = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (jb), "rows"), 0);
  g_assert_cmpfloat (json_object_get_double_member (ra, "predicted_step_s"), ==,
                     json_object_get_double_member (rb, "predicted_step_s"));
  run_result_clear (&a);
  run_result_clear (&b);

  run_tandem ("validate {SRC}/data/published-runs.csv --only 2 --no-db --cluster h200-node", &a);
  g_assert_nonnull (strstr (a.out, "exceeds the 8 devices of the --cluster h200-node"));
  run_result_clear (&a);
  run_tandem ("validate {SRC}/data/published-runs.csv --only 2 --no-db --cluster no-such", &a);
  g_assert_cmpint (a.status, ==, 2);
  assert_one_error_line (a.err, "--cluster: ");
  run_result_clear (&a);
}

/* parameters.total / .active of `plan show ARGS --json` */
static void
plan_params (const char *args, gint64 *total, gint64 *active)
{
  RunResult r = { 0 };
  g_autofree char *cmd = g_strdup_printf ("plan show %s --json", args);
  run_tandem (cmd, &r);
  if (r.status != 0)
    g_error ("plan show %s: %s", args, r.err);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonObject *p = json_object_get_object_member (json_node_get_object (root), "parameters");
  *total = json_object_get_int_member (p, "total");
  *active = json_object_get_int_member (p, "active");
  run_result_clear (&r);
}

#define MIXTRAL_FLAGS "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 " \
  "--group-query-attention --num-query-groups 8 --ffn-hidden-size 14336 --swiglu " \
  "--untie-embeddings-and-output-weights --vocab-size 32000 --num-experts 8 " \
  "--moe-router-topk 2"

/* Mixtral 8x7B by Megatron flags: --num-experts and --moe-router-topk (plan flags that
 * restate the model) make the model by flags a MoE, with the preset's counts: 46,702,792,704
 * parameters, 12,879,925,248 per token (Mistral AI: 46.7B / 12.9B), and the same
 * prediction. The vocabulary 32,000 = 125 x 256 needs no padding at tp 2. */
static void
test_model_flags_moe (void)
{
  gint64 total, active, pt, pa;
  plan_params (MIXTRAL_FLAGS " --gpus 8", &total, &active);
  g_assert_cmpint (total, ==, 46702792704);
  g_assert_cmpint (active, ==, 12879925248);
  plan_params ("--model mixtral-8x7b --gpus 8", &pt, &pa);
  g_assert_cmpint (total, ==, pt);
  g_assert_cmpint (active, ==, pa);

  const char *plan = "--gpus 16 --tp 2 --sequence-parallel --expert-model-parallel-size 8 "
                     "--use-distributed-optimizer --gbs 16 --seq-length 4096 --no-db --json";
  RunResult a = { 0 }, b = { 0 };
  g_autofree char *fa = g_strdup_printf ("predict " MIXTRAL_FLAGS " %s", plan);
  g_autofree char *fb = g_strdup_printf ("predict --model mixtral-8x7b %s", plan);
  run_tandem (fa, &a);
  run_tandem (fb, &b);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  g_autoptr (JsonNode) ja = run_parse_json (a.out);
  g_autoptr (JsonNode) jb = run_parse_json (b.out);
  g_assert_cmpfloat (member_double (ja, "step_time_s", NULL), ==,
                     member_double (jb, "step_time_s", NULL));
  g_assert_cmpfloat (member_double (ja, "memory", "peak_bytes"), ==,
                     member_double (jb, "memory", "peak_bytes"));
  run_result_clear (&a);
  run_result_clear (&b);

  /* the same on a preset: Mistral 7B with --num-experts 8 (top 2 by default) is Mixtral
   * 8x7B's shape (46,702,792,704 parameters, 12,879,925,248 per token, as above). It was
   * simulated as Mixtral while its FLOP counts read the dense preset: the same step at 241
   * TFLOP/s per GPU against Mixtral's 407, the dense accuracy class, an HFU 60% above
   * its MFU without recompute */
  plan_params ("--model mistral-7b --num-experts 8 --gpus 8", &pt, &pa);
  g_assert_cmpint (pt, ==, 46702792704);
  g_assert_cmpint (pa, ==, 12879925248);
  {
    RunResult m = { 0 };
    g_autofree char *fm = g_strdup_printf ("predict --model mistral-7b --num-experts 8 %s", plan);
    run_tandem (fm, &m);
    g_assert_cmpint (m.status, ==, 0);
    g_autoptr (JsonNode) jm = run_parse_json (m.out);
    run_tandem (fb, &b);
    g_autoptr (JsonNode) jb2 = run_parse_json (b.out);
    g_assert_cmpfloat (member_double (jm, "step_time_s", NULL), ==,
                       member_double (jb2, "step_time_s", NULL));
    g_assert_cmpfloat (member_double (jm, "tflops_per_gpu", NULL), ==,
                       member_double (jb2, "tflops_per_gpu", NULL));
    g_assert_cmpfloat (member_double (jm, "hfu", NULL), ==, member_double (jb2, "hfu", NULL));
    g_assert_nonnull (strstr (m.out, "\"kind\" : \"moe\""));
    run_result_clear (&m);
    run_result_clear (&b);
  }
  /* top-1: each token visits one expert fewer per layer: 32 x 176,160,768 (3 x 4096 x
   * 14336) = 5,637,144,576 fewer active parameters, the total unchanged */
  plan_params (MIXTRAL_FLAGS " --moe-router-topk 1 --gpus 8", &pt, &pa);
  g_assert_cmpint (pt, ==, 46702792704);
  g_assert_cmpint (pa, ==, 12879925248 - 5637144576);
  /* Megatron's --moe-layer-freq "[0]*2+[1]*30": two dense layers first, each a dense MLP
   * (176,160,768) instead of 8 experts and a 4096 x 8 router (8 x 176,160,768 + 32,768 =
   * 1,409,318,912): 2 x 1,233,158,144 = 2,466,316,288 fewer parameters; per token 2 x
   * (2 x 176,160,768 + 32,768 - 176,160,768) = 352,387,072 fewer */
  plan_params (MIXTRAL_FLAGS " --moe-layer-freq [0]*2+[1]*30 --gpus 8", &pt, &pa);
  g_assert_cmpint (pt, ==, 46702792704 - 2466316288);
  g_assert_cmpint (pa, ==, 12879925248 - 352387072);
  /* --moe-shared-expert-intermediate-size 28672: a shared MLP of that width in every MoE
   * layer, 3 x 4096 x 28672 = 352,321,536, in the total and per token, x 32 layers */
  plan_params (MIXTRAL_FLAGS " --moe-shared-expert-intermediate-size 28672 --gpus 8", &pt,
               &pa);
  g_assert_cmpint (pt, ==, 46702792704 + 32 * 352321536LL);
  g_assert_cmpint (pa, ==, 12879925248 + 32 * 352321536LL);
  /* --moe-ffn-hidden-size 7168: experts half as wide, 32 x 8 x 3 x 4096 x 7168 =
   * 22,548,578,304 fewer parameters, 32 x 2 x 3 x 4096 x 7168 = 5,637,144,576 per token */
  plan_params (MIXTRAL_FLAGS " --moe-ffn-hidden-size 7168 --gpus 8", &pt, &pa);
  g_assert_cmpint (pt, ==, 46702792704 - 22548578304);
  g_assert_cmpint (pa, ==, 12879925248 - 5637144576);

  /* --kv-channels: Mistral 7B's shape with a head size of 256 instead of 4096 / 32 = 128:
   * q and o grow by 4096 x 32 x 128 = 16,777,216 each, k and v by 4096 x 8 x 128 =
   * 4,194,304 each: 41,943,040 per layer, 1,342,177,280 over 32 layers, on the
   * 7,241,732,096 of Mistral 7B */
  plan_params ("--num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
               "--group-query-attention --num-query-groups 8 --ffn-hidden-size 14336 --swiglu "
               "--untie-embeddings-and-output-weights --vocab-size 32000 --gpus 8", &pt, &pa);
  g_assert_cmpint (pt, ==, 7241732096);
  plan_params ("--num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
               "--group-query-attention --num-query-groups 8 --ffn-hidden-size 14336 --swiglu "
               "--untie-embeddings-and-output-weights --vocab-size 32000 --kv-channels 256 "
               "--gpus 8", &pt, &pa);
  g_assert_cmpint (pt, ==, 7241732096 + 1342177280);
  /* with --kv-channels, h need not divide by a (Megatron asserts it only without the
   * flag): 30 heads of 128 and 6 KV groups on h 4096, SwiGLU 14336, vocab 128256 tied,
   * by hand per layer q 4096 x 3840 + k, v 4096 x 768 each + o 3840 x 4096 = 37,748,736,
   * MLP 3 x 4096 x 14336 = 176,160,768, norms 2 x 4096 = 8,192: 213,917,696 x 32 =
   * 6,845,366,272, plus the embedding 128,256 x 4096 = 525,336,576 and the final norm
   * 4,096: 7,370,706,944. It was refused ("h / a must be whole"), where the same shape
   * as a config.json with head_dim 128 predicts */
  plan_params ("--num-layers 32 --hidden-size 4096 --num-attention-heads 30 "
               "--group-query-attention --num-query-groups 6 --kv-channels 128 --ffn-hidden-size 14336 --swiglu "
               "--vocab-size 128256 --gpus 8", &pt, &pa);
  g_assert_cmpint (pt, ==, 7370706944);
  run_tandem ("plan show --num-layers 32 --hidden-size 4096 --num-attention-heads 30 "
              "--group-query-attention --num-query-groups 6 --ffn-hidden-size 14336 --swiglu --vocab-size 128256 "
              "--gpus 8", &a);
  g_assert_cmpint (a.status, ==, 2);
  assert_one_error_line (a.err, "--hidden-size 4096 is not a multiple of --num-attention-heads "
                                "30 (hint: h / a must be whole, or --kv-channels sets the head "
                                "size)");
  run_result_clear (&a);

  static const struct { const char *args, *expect; } bad[] = {
    { "plan show --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --vocab-size "
      "32000 --swiglu --moe-ffn-hidden-size 1024 --gpus 8", "give --num-experts too" },
    { "plan show " MIXTRAL_FLAGS " --moe-layer-freq 2 --gpus 8",
      "(Megatron: layers 0, N, 2N, ... are MoE)" },
    { "plan show " MIXTRAL_FLAGS " --moe-layer-freq ([0]+[1])*15 --gpus 8",
      "gives 30 entries for 32 layers" },
    { "plan show " MIXTRAL_FLAGS " --moe-layer-freq [0]*2+[2]*30 --gpus 8",
      "list entries are 0 (dense) or 1 (MoE)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      run_tandem (bad[i].args, &a);
      g_assert_cmpint (a.status, ==, 2);
      assert_one_error_line (a.err, bad[i].expect);
      run_result_clear (&a);
    }
  /* a flag before --plan that the file replaces was dropped without a word (--tp 4
   * before a TP-8 TorchTitan file ran tp 8); one the file does not set stays (--gpus) */
  run_tandem ("plan show --model llama3-8b --gpus 64 --tp 4 --plan "
              "{DATA}/plan/llama3-8b-titan.toml", &a);
  g_assert_cmpint (a.status, ==, 2);
  assert_one_error_line (a.err, "--tp before --plan");
  run_result_clear (&a);
  run_tandem ("plan show --model llama3-8b --gpus 64 --plan {DATA}/plan/llama3-8b-titan.toml "
              "--tp 4", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "plan tp4-"));
  run_result_clear (&a);
  /* TorchTitan's dp degrees against the world: a shard degree of 4 where tp 8 on 64
   * GPUs leaves 8 was read as 8; without --gpus the degrees give the world (8 x 8 = 64,
   * where the whole 24,576-GPU cluster was taken) */
  g_autofree char *tdir = run_make_tmp ("tandem-titan");
  run_write_file (tdir, "s4.toml", "[parallelism]\ntensor_parallel_degree = 8\n"
                                    "data_parallel_shard_degree = 4\n");
  run_write_file (tdir, "s8.toml", "[parallelism]\ntensor_parallel_degree = 8\n"
                                    "data_parallel_shard_degree = 8\n");
  run_tandem_set_tmp (tdir);
  run_tandem ("predict --model llama3-8b --gpus 64 --plan {TMP}/s4.toml --no-db", &a);
  g_assert_cmpint (a.status, ==, 2);
  g_assert_nonnull (strstr (a.err, "TorchTitan asserts they multiply to the world"));
  run_result_clear (&a);
  run_tandem ("plan show --model llama3-8b --plan {TMP}/s8.toml", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "64 of 24,576 GPUs"));
  run_result_clear (&a);
  remove_tree (tdir);
  /* a plan tandem wrote, with a flag after it, is the plan the flags alone give: the
   * defaults it holds (expert TP = tp, the micro-batch group = pp, the interleaved
   * schedule, one recomputed layer) follow the flag that changes their source (--tp 1
   * kept etp 2, --pp 2 the group 4, --vpp 1 the interleaved schedule, --recompute
   * selective the layer count: a different plan or a refusal) */
  static const struct { const char *base, *after; } wr[] = {
    { "--model mixtral-8x7b --gpus 64 --tp 2 --ep 8 --sp --gbs 64", "--tp 1" },
    { "--model llama3-8b --gpus 64 --tp 2 --pp 4 --vpp 2 --gbs 64", "--pp 2" },
    { "--model llama3-8b --gpus 64 --tp 2 --pp 4 --vpp 2 --gbs 64", "--vpp 1" },
    { "--model llama3-8b --gpus 64 --tp 8 --recompute-granularity full",
      "--recompute-granularity selective" },
  };
  g_autofree char *wdir = run_make_tmp ("tandem-written");
  for (guint i = 0; i < G_N_ELEMENTS (wr); i++)
    {
      g_autofree char *show = g_strdup_printf ("plan show %s --json", wr[i].base);
      run_tandem (show, &a);
      g_assert_cmpint (a.status, ==, 0);
      g_autoptr (JsonNode) sj = run_parse_json (a.out);
      g_autofree char *plan_text = json_to_string (
        json_object_get_member (json_node_get_object (sj), "plan"), TRUE);
      run_result_clear (&a);
      run_write_file (wdir, "w.json", plan_text);
      g_autofree char *p = g_build_filename (wdir, "w.json", NULL);
      g_autofree char *model = g_strndup (wr[i].base, strcspn (wr[i].base + 8, " ") + 8);
      g_autofree char *with = g_strdup_printf ("plan show %s --plan %s %s --json", model, p,
                                               wr[i].after);
      g_autofree char *alone = g_strdup_printf ("plan show %s %s --json", wr[i].base,
                                                wr[i].after);
      RunResult x = { 0 };
      run_tandem (with, &a);
      run_tandem (alone, &x);
      if (a.status != 0 || x.status != 0)
        g_error ("%s -> %d %s / %s -> %d", with, a.status, a.err, alone, x.status);
      g_autoptr (JsonNode) ja = run_parse_json (a.out);
      g_autoptr (JsonNode) jx = run_parse_json (x.out);
      const char *sa = json_object_get_string_member (json_object_get_object_member (
                         json_node_get_object (ja), "plan"), "summary");
      const char *sx = json_object_get_string_member (json_object_get_object_member (
                         json_node_get_object (jx), "plan"), "summary");
      g_assert_cmpstr (sa, ==, sx);
      run_result_clear (&a);
      run_result_clear (&x);
    }
  remove_tree (wdir);
  /* parentheses nested 130,000 deep recursed the parser off the stack (SIGSEGV) */
  g_autoptr (GString) deep = g_string_new ("plan show " MIXTRAL_FLAGS " --gpus 8 --moe-layer-freq ");
  for (int i = 0; i < 130000; i++)
    g_string_append_c (deep, '(');
  g_string_append (deep, "[1]*32");
  run_tandem (deep->str, &a);
  g_assert_cmpint (a.status, ==, 2);
  g_assert_nonnull (strstr (a.err, "parentheses nested deeper than 64"));
  run_result_clear (&a);
}

/* validate --explain ROW --cluster: row 40 (GPT 175B on 64 A100s) explained on a DGX H100
 * SuperPOD file predicts what validate --only 40 --cluster predicts there (printed to 4
 * digits), not the A100 figure; on a one-server cluster it says why it cannot run. */
static void
test_explain_cluster (void)
{
  RunResult a = { 0 }, b = { 0 };
  run_tandem ("validate {SRC}/data/published-runs.csv --only 40 --no-db --json --cluster "
              "{SRC}/topology/presets/dgx-h100-superpod.json", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_autoptr (JsonNode) ja = run_parse_json (a.out);
  double step = json_object_get_double_member (json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (ja), "rows"), 0), "predicted_step_s");
  run_result_clear (&a);
  g_autofree char *want = g_strdup_printf ("  prediction: %.4g s (", step);
  run_tandem ("validate {SRC}/data/published-runs.csv --explain 40 --cluster "
              "{SRC}/topology/presets/dgx-h100-superpod.json", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_true (g_str_has_prefix (a.out, "on cluster dgx-h100-superpod (--cluster;"));
  /* the cluster is the one given, not a preset the row maps to (it read "cluster preset"
   * for a file too) */
  g_assert_nonnull (strstr (a.out, "-> cluster (--cluster) dgx-h100-superpod"));
  g_assert_nonnull (strstr (a.out, want));
  run_tandem ("validate {SRC}/data/published-runs.csv --explain 40", &b);
  g_assert_cmpint (b.status, ==, 0);
  g_assert_null (strstr (b.out, want));
  g_assert_nonnull (strstr (b.out, "-> cluster preset selene"));
  run_result_clear (&a);
  run_result_clear (&b);
  run_tandem ("validate {SRC}/data/published-runs.csv --explain 2 --cluster h200-node", &a);
  g_assert_nonnull (strstr (a.out, "skipped: n_gpus 16384 exceeds the 8 devices of the "
                            "--cluster h200-node"));
  run_result_clear (&a);
}

/* validate --explain with a row id no row has is an error on one line, exit 2, for any
 * id: a negative one too. -1 used to be the "not given" value, so --explain -1 ran and
 * printed the whole validation (exit 0) instead of saying that no row -1 exists; the CSV
 * numbers its rows from 1. */
static void
test_explain_bad_row (void)
{
  static const char *const ids[] = { "-1", "-7", "0", "99999" };
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      RunResult a = { 0 };
      g_autofree char *args = g_strdup_printf ("validate {SRC}/data/published-runs.csv "
                                               "--no-db --explain %s", ids[i]);
      run_tandem (args, &a);
      g_assert_cmpint (a.status, ==, 2);
      g_assert_cmpstr (a.out, ==, "");
      /* and the ids the file has (1 up to its last row; the count grows with the data) */
      g_autofree char *want = g_strdup_printf ("tandem: error: --explain %s: no row with "
                                               "that row_id (hint: its row ids run from 1 "
                                               "to ", ids[i]);
      g_assert_true (g_str_has_prefix (a.err, want));
      g_assert_true (strchr (a.err, '\n') == a.err + strlen (a.err) - 1);
      run_result_clear (&a);
    }
}

/* validate --explain prints memory in GiB, as tandem memory and predict do (it printed
 * "GB", 1e9 bytes, so the same plan read 56.2 GB there and 52.3 GiB in tandem memory), and
 * counts micro-batches in the singular when there is one. Row 25 (GPT-3 175B, DeepSpeed
 * ZeRO-3 on 384 A100-SXM-80GB): global batch 1536 over dp 384 x micro-batch 4 = 1
 * micro-batch per step, one in flight on its single stage of 96 layers; 80 GiB of HBM
 * (85,899,345,920 B). Row 40 (GPT 175B, TP8 PP8 on 64 GPUs, dp 1, micro-batch 1,
 * global batch 64): 64 micro-batches per step. */
static void
test_explain_units (void)
{
  RunResult a = { 0 };
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --explain 25", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "-> 1536 (1 micro-batch per step)\n"));
  g_assert_nonnull (strstr (a.out, " GiB of 80.0 GiB on stage 0 (96 layers, 1 micro-batch in "
                                   "flight): params "));
  g_assert_true (g_str_has_suffix (a.out, " GiB\n"));
  /* bandwidths (the NVLink domain line) stay GB/s, as everywhere in tandem */
  g_auto (GStrv) parts = g_strsplit (a.out, " GB/s", -1);
  g_autofree char *no_bw = g_strjoinv ("", parts);
  g_assert_null (strstr (no_bw, " GB"));
  run_result_clear (&a);
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --explain 40", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "-> 64 (64 micro-batches per step)\n"));
  run_result_clear (&a);
}

/* Two kinds of log in one file: the first step line chose the format (megatron.log's
 * line 4, "iteration 10/ 1000"), and the TorchTitan step lines after it were left out
 * without a word: exit 0, "4 of 5 logged intervals" of the Megatron part alone. Now, with
 * --format auto, the first step line of the other kind is an error naming both lines
 * (megatron.log has 9 lines, so torchtitan.log's first step line, its line 3, is line
 * 9 + 3 = 12 of the file); --format megatron still takes the Megatron lines alone. */
static void
test_import_mixed_formats (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tandem-import-XXXXXX", NULL);
  g_autofree char *mega = g_test_build_filename (G_TEST_DIST, "data", "logs", "megatron.log",
                                                 NULL);
  g_autofree char *titan = g_test_build_filename (G_TEST_DIST, "data", "logs", "torchtitan.log",
                                                  NULL);
  g_autofree char *a = NULL, *b = NULL;
  g_assert_true (g_file_get_contents (mega, &a, NULL, NULL));
  g_assert_true (g_file_get_contents (titan, &b, NULL, NULL));
  g_autofree char *both = g_strconcat (a, b, NULL);
  g_autofree char *path = g_build_filename (dir, "mixed.log", NULL);
  g_assert_true (g_file_set_contents (path, both, -1, NULL));
  g_autofree char *args = g_strdup_printf ("import-log %s --model llama3-8b --gpus 8 --tp 8 "
                                           "--gbs 64 --seq-length 8192 --no-db", path);
  RunResult r = { 0 };
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 2);
  g_autofree char *want = g_strdup_printf ("%s:12: a TorchTitan step line, but line 4 was "
                                           "Megatron-LM's: two kinds of log in one file (hint: "
                                           "--format megatron or --format torchtitan imports "
                                           "that kind alone)", path);
  assert_one_error_line (r.err, want);
  run_result_clear (&r);
  g_autofree char *only = g_strconcat (args, " --format megatron", NULL);
  run_tandem (only, &r);
  g_assert_cmpint (r.status, ==, 0);
  /* megatron.log's 5 step lines, the first skipped */
  g_assert_nonnull (strstr (r.out, "(megatron log), 4 of 5 logged intervals (--skip 1)"));
  run_result_clear (&r);
  g_unlink (path);
  g_rmdir (dir);
}

/* Logged numbers that are not measurements are bad input, not a median: megatron.log with
 * every elapsed time 1e308 ms (a median of 1e305 s was printed and stored), a global batch
 * of 0 (taken as "not logged"), and a ramp whose middle line logs 32 sequences where the
 * last and the plan have 64 (only the last line was checked, so the ramp's steps were in
 * the median). Each is exit 2 naming the line. */
static void
test_import_implausible (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tandem-import-XXXXXX", NULL);
  g_autofree char *mega = g_test_build_filename (G_TEST_DIST, "data", "logs", "megatron.log",
                                                 NULL);
  g_autofree char *a = NULL;
  g_assert_true (g_file_get_contents (mega, &a, NULL, NULL));
  static const struct { const char *from, *to; gboolean all; const char *want; } cases[] = {
    { "(ms): 6721.3", "(ms): 1e308", TRUE, ":5: a step time of 1e+305 s is not a measurement" },
    { "global batch size:    64", "global batch size:    0", TRUE,
      ":4: 'global batch size:' is not followed by" },
    { "(ms): 6721.3 | throughput per GPU (TFLOP/s/GPU): 401.2 | learning rate: "
      "3.000000E-04 | global batch size:    64",
      "(ms): 6721.3 | throughput per GPU (TFLOP/s/GPU): 401.2 | learning rate: "
      "3.000000E-04 | global batch size:    32", FALSE,
      ":5 logs a global batch of 32 sequences where the last line and the plan have 64" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_nonnull (strstr (a, cases[i].from));
      g_autofree char *text = NULL;
      if (cases[i].all)
        {
          g_auto (GStrv) parts = g_strsplit (a, cases[i].from, -1);
          text = g_strjoinv (cases[i].to, parts);
        }
      else
        {
          const char *at = strstr (a, cases[i].from);
          text = g_strdup_printf ("%.*s%s%s", (int) (at - a), a, cases[i].to,
                                  at + strlen (cases[i].from));
        }
      g_autofree char *path = g_build_filename (dir, "bad.log", NULL);
      g_assert_true (g_file_set_contents (path, text, -1, NULL));
      g_autofree char *args = g_strdup_printf ("import-log %s --model llama3-8b --gpus 8 "
                                               "--tp 8 --gbs 64 --seq-length 8192 --no-db",
                                               path);
      RunResult r = { 0 };
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].want));
      g_assert_cmpstr (r.out, ==, "");
      run_result_clear (&r);
      g_unlink (path);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/ecosystem/model-flags", test_model_flags);
  g_test_add_func ("/cli/ecosystem/import-megatron", test_import_megatron);
  g_test_add_func ("/cli/ecosystem/import-torchtitan", test_import_torchtitan);
  g_test_add_func ("/cli/ecosystem/import-mixed-formats", test_import_mixed_formats);
  g_test_add_func ("/cli/ecosystem/import-implausible", test_import_implausible);
  g_test_add_func ("/cli/ecosystem/validate-cluster", test_validate_cluster);
  g_test_add_func ("/cli/ecosystem/model-flags-moe", test_model_flags_moe);
  g_test_add_func ("/cli/ecosystem/explain-cluster", test_explain_cluster);
  g_test_add_func ("/cli/ecosystem/explain-bad-row", test_explain_bad_row);
  g_test_add_func ("/cli/ecosystem/explain-units", test_explain_units);
  return g_test_run ();
}
