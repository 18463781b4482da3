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

typedef struct {
  int   status;
  char *out;
  char *err;
} RunResult;

static void
run_result_clear (RunResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

static void
run_tandem (const char *args, RunResult *r)
{
  const char *exe = g_getenv ("TANDEM_EXE");
  g_assert_nonnull (exe);
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", NULL);
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "..", NULL);
  GString *line = g_string_new (args);
  g_string_replace (line, "{DATA}", data, 0);
  g_string_replace (line, "{SRC}", src, 0);
  g_autofree char *cmd = g_strdup_printf ("%s %s", exe, line->str);
  g_string_free (line, TRUE);
  g_auto (GStrv) argv = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_shell_parse_argv (cmd, NULL, &argv, &error));
  g_autoptr (GSubprocess) proc = g_subprocess_newv ((const char *const *) argv,
                                                    G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                    | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  r->status = g_subprocess_get_exit_status (proc);
}

static JsonNode *
parse (const char *text)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_data (p, text, -1, &error) || json_parser_get_root (p) == NULL)
    g_error ("not JSON (%s): %s", error ? error->message : "empty", text);
  return json_node_copy (json_parser_get_root (p));
}

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
  g_autoptr (JsonNode) ja = parse (a.out);
  g_autoptr (JsonNode) jb = parse (b.out);
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
    "--num-query-groups 8 --ffn-hidden-size 14336 --swiglu "
    "--untie-embeddings-and-output-weights --vocab-size 128256 --gpus 8 --tp 8 --gbs 8 "
    "--seq-length 8192 --json");
  run_tandem (padded, &a);
  run_tandem ("memory --model llama3-8b --gpus 8 --tp 8 --gbs 8 --seq-length 8192 --json", &b);
  g_autoptr (JsonNode) pa = parse (a.out);
  g_autoptr (JsonNode) pb = parse (b.out);
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
    { "predict --num-layers -3 --hidden-size 4096 --num-attention-heads 32 --vocab-size 32000 "
      "--gpus 8 --no-db", "--num-layers -3: must be positive" },
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
  g_autoptr (JsonNode) root = parse (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "format"), ==, "megatron");
  g_assert_cmpfloat_with_epsilon (member_double (root, "measured", "step_time_s"), 6.72575,
                                  1e-9);
  JsonObject *sp = json_object_get_object_member (json_object_get_object_member (o, "measured"),
                                                  "spread");
  g_assert_cmpint (json_object_get_int_member (sp, "repetitions"), ==, 4);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (sp, "spread"),
                                  (6.745 - 6.7029) / 6.72575, 1e-9);
  /* logged throughput: (401.2 + 402.3 + 399.8 + 400.7) / 4 = 401.0 */
  g_assert_cmpfloat_with_epsilon (member_double (root, "measured", "logged_tflops_per_gpu"),
                                  401.0, 1e-9);
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
  g_autoptr (JsonNode) rv = parse (r.out);
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
  g_autofree char *rm = g_strdup_printf ("rm -rf %s", dir);
  g_assert_true (g_spawn_command_line_sync (rm, NULL, NULL, NULL, NULL));
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
  g_autoptr (JsonNode) root = parse (r.out);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "format"), ==,
                   "torchtitan");
  g_assert_cmpfloat_with_epsilon (member_double (root, "measured", "step_time_s"),
                                  8192.0 / 5121.0, 1e-12);
  run_result_clear (&r);
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
  g_autoptr (JsonNode) ja = parse (a.out);
  g_autoptr (JsonNode) jb = parse (b.out);
  JsonObject *ra = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (ja), "rows"), 0);
  JsonObject *rb = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (jb), "rows"), 0);
  g_assert_cmpfloat (json_object_get_double_member (ra, "predicted_step_s"), ==,
                     json_object_get_double_member (rb, "predicted_step_s"));
  run_result_clear (&a);
  run_result_clear (&b);

  run_tandem ("validate {SRC}/data/published-runs.csv --only 2 --no-db --cluster h200-node", &a);
  g_assert_nonnull (strstr (a.out, "exceeds the 8 devices of cluster preset h200-node"));
  run_result_clear (&a);
  run_tandem ("validate {SRC}/data/published-runs.csv --only 2 --no-db --cluster no-such", &a);
  g_assert_cmpint (a.status, ==, 2);
  assert_one_error_line (a.err, "--cluster: ");
  run_result_clear (&a);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/ecosystem/model-flags", test_model_flags);
  g_test_add_func ("/cli/ecosystem/import-megatron", test_import_megatron);
  g_test_add_func ("/cli/ecosystem/import-torchtitan", test_import_torchtitan);
  g_test_add_func ("/cli/ecosystem/validate-cluster", test_validate_cluster);
  return g_test_run ();
}
