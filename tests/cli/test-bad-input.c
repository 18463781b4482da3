/* tests/cli/test-bad-input.c - a sweep of bad input to every command (numbers at and past
 * their limits, files that are not what their flag expects, outputs over inputs): each
 * case here crashed, hung, lost a file or answered with a wrong exit status before its
 * fix. Files are generated in a temporary directory ({TMP}). TANDEM_EXE is the binary
 * under test. */
#include "cli-run.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* validate --only with a row id past 2^63 - 1: strtoll saturated it to 2^63 - 1 and the
 * range loop stepped past that (signed overflow; UBSan stopped it, a plain build appended
 * ids until memory ran out). 2^64 = 18446744073709551616 is refused as no row id; 2^63 - 1
 * itself is a row id that selects no row of the file. */
static void
test_validate_only_past_int64 (void)
{
  run_assert_error ("validate {SRC}/data/published-runs.csv --no-db --only 18446744073709551616",
                2, "--only '18446744073709551616': item '18446744073709551616' is not a row id");
  run_assert_error ("validate {SRC}/data/published-runs.csv --no-db --only 1-18446744073709551616",
                2, "is not a row id or a range low-high");
  run_assert_error ("validate {SRC}/data/published-runs.csv --no-db --only 9223372036854775807",
                2, "--only 9223372036854775807 selects no row of");
  /* a valid range wider than the cap (each id is kept) was called "not a row id or a
   * range low-high"; it says what is wrong: 2^31 - 1 ids against 100,001 */
  run_assert_error ("validate {SRC}/data/published-runs.csv --no-db --only 1-2147483647",
                2, "--only '1-2147483647': range '1-2147483647' spans 2147483647 row ids, more "
                "than the 100,001 a range may");
}

/* An output flag naming a file the command reads: `predict --model m.json --trace m.json`
 * wrote the trace over the model config it had just read (exit 0), and so did search's
 * --trace-best and run's traces; calibrate --out wrote its cluster JSON over a results
 * database (the store and every run in it), which --trace was already refused. Each is
 * refused before the work now, and the file is left as it was. */
static void
test_output_over_input (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-bad-input");
  const char *model = "{ \"model_type\": \"llama\", \"hidden_size\": 256, "
                      "\"intermediate_size\": 688, \"num_attention_heads\": 4, "
                      "\"num_hidden_layers\": 2, \"vocab_size\": 1024, "
                      "\"max_position_embeddings\": 256 }\n";
  run_write_file (dir, "m.json", model);
  run_assert_error ("predict --model {TMP}/m.json --cluster cpu-host --gpus 2 --no-db "
                "--trace {TMP}/m.json", 2, "/m.json reads: the trace would replace it "
                "(hint: --trace another-file.json)");
  /* another spelling of the same file */
  run_assert_error ("predict --model {TMP}/m.json --cluster cpu-host --gpus 2 --no-db "
                "--trace {TMP}/./m.json", 2, "the trace would replace it");
  run_assert_error ("search --model {TMP}/m.json --cluster cpu-host --gbs 4 --no-db "
                "--trace-best {TMP}/m.json", 2, "--trace-best");
  run_assert_error ("run --model {TMP}/m.json --steps 1 --no-db --merged-trace {TMP}/m.json", 2,
                "is the file --model");
  g_autofree char *after = run_read_file (dir, "m.json");
  g_assert_cmpstr (after, ==, model);
  /* run's two traces on one file: the one written last was all that was left */
  run_assert_error ("run --steps 1 --no-db --trace {TMP}/t.json --predicted-trace {TMP}/t.json", 2,
                "--trace and --predicted-trace both name");
  /* calibrate --out over a SQLite file, the default store or another one */
  RunResult r = { 0 };
  run_tandem ("predict --model tiny-llama --cluster cpu-host --gpus 2 --gbs 4 "
              "--seq-length 256 --db {TMP}/t.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_assert_error ("calibrate --quick --db {TMP}/t.db --out {TMP}/t.db", 2,
                "is the results database (--db");
  run_assert_error ("calibrate --quick --no-db --out {TMP}/t.db", 2,
                "is a SQLite database (a results store?): the profile would replace it");
  run_tandem ("runs --db {TMP}/t.db --csv", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, ",predict,ok,tiny-llama,"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* tandem run's counts and seconds past what a run can hold: --steps 2000000000 asked GLib
 * for 3.7 TB of step records at once (abort), --warmup 2000000000 ran for ever, and
 * --timeout 1e308 was cast to microseconds past 2^63 (undefined behaviour) in every
 * deadline; calibrate's --timeout the same. Refused with the range now (10,000 steps,
 * 1e6 s: cli/cmd-run.c). */
static void
test_run_counts_past_caps (void)
{
  run_assert_error ("run --no-db --steps 2000000000", 2,
                "--steps 2000000000: the timed steps, an integer from 1 to 10000 (hint: "
                "--steps 3)");
  run_assert_error ("run --no-db --warmup 2000000000", 2,
                "--warmup 2000000000: the untimed steps first, an integer from 0 to 10000");
  run_assert_error ("run --no-db --timeout 1e308", 2,
                "--timeout 1e+308: seconds to wait for a peer, a number above 0 and at most "
                "1000000 (hint: --timeout 30)");
  run_assert_error ("calibrate --quick --no-db --timeout 1e308", 2,
                "--timeout 1e308: seconds to wait for a peer, a number above 0 and at most "
                "1000000");
}

/* tandem run whose weights fit in this host's memory but whose step does not: the buffers
 * a step allocates when it first runs failed with exit 1 ("failed", no hint), where
 * weights past the host's memory are exit 3 (does not fit, stored as oom). A vocabulary
 * of 2^20 over a sequence of 2^20 tokens needs the fp32 logits, 2^20 x 2^20 x 4 bytes =
 * 4.4 TB, in one step; the weights (hidden 8) take about 0.3 GB. (A host with more than
 * 4.4 TB of memory would run it; none in CI has.) */
static void
test_run_step_memory (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-bad-input");
  run_write_file (dir, "v.json", "{ \"model_type\": \"llama\", \"hidden_size\": 8, "
              "\"intermediate_size\": 16, \"num_attention_heads\": 1, "
              "\"num_hidden_layers\": 1, \"vocab_size\": 1048576, "
              "\"max_position_embeddings\": 1048576 }\n");
  run_assert_error ("run --model {TMP}/v.json --seq-length 1048576 --steps 1 --warmup 0 --no-db", 3,
                "does not fit: cannot allocate 43981");
  RunResult r = { 0 };
  run_tandem ("run --model {TMP}/v.json --seq-length 1048576 --steps 1 --warmup 0 "
              "--db {TMP}/r.db", &r);
  g_assert_cmpint (r.status, ==, 3);
  run_result_clear (&r);
  run_tandem ("runs --db {TMP}/r.db --csv", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, ",run,oom,"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* A refused value is quoted in the message, and a 100,000-character model_type made a
 * 100 KB error line: a word of more than CLI_FAIL_MAX_WORD (512) characters is cut to its
 * start and its length, and the rest of the message is kept. */
static void
test_long_value_cut (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-bad-input");
  g_autofree char *x = g_strnfill (100000, 'x');
  g_autofree char *model = g_strdup_printf ("{ \"model_type\": \"%s\", \"hidden_size\": 8, "
                                            "\"intermediate_size\": 16, "
                                            "\"num_attention_heads\": 1, "
                                            "\"num_hidden_layers\": 1, \"vocab_size\": 64 }\n", x);
  run_write_file (dir, "long.json", model);
  RunResult r = { 0 };
  run_tandem ("show model {TMP}/long.json", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpuint (strlen (r.err), <, 2000);
  /* 'x...x' is the word: 100,000 + 2 quotes */
  g_assert_nonnull (strstr (r.err, "xxx...(100002 characters) is not supported"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* A directory given as a cluster or framework is named as one ("'DIR' is neither a
 * cluster file nor a cluster preset" before); and a file that is not a regular one (a
 * FIFO, as a shell's process substitution gives) is read as a model's always was. */
static void
test_directory_and_pipe_inputs (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-bad-input");
  run_assert_error ("show cluster {TMP}", 2, "is a directory, not a cluster file");
  run_assert_error ("show framework {TMP}", 2, "is a directory, not a framework file");
  g_autofree char *fifo = g_build_filename (dir, "c.json", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "..", "topology", "presets",
                                                "h200-node.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  GPid pid = 0;
  /* the writer: a child that opens the FIFO and writes the preset into it */
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      alarm (30);   /* no reader (tandem refused the path unread): the writer ends anyway */
      FILE *w = fopen (fifo, "w");
      if (w != NULL)
        {
          fputs (text, w);
          fclose (w);
        }
      _exit (0);
    }
  RunResult r = { 0 };
  run_tandem ("show cluster {TMP}/c.json", &r);
  int st = 0;
  waitpid (pid, &st, 0);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "cluster h200-node"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* An output replaces an existing file only when that file is what it writes: `tandem run
 * --trace README.md` replaced the README with a trace (exit 0), and calibrate --out any
 * file. A trace over a trace is kept working (a second predict into the same path), and
 * calibrate --out a preset's name is refused: the file would take the preset's place in
 * every --cluster NAME read in that directory. */
static void
test_outputs_replace_their_own (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-bad-input");
  run_write_file (dir, "notes.md", "# my notes\n");
  run_assert_error ("predict --model tiny-llama --gpus 1 --seq-length 128 --no-db "
                    "--trace {TMP}/notes.md", 2,
                    "notes.md exists and is not a trace tandem wrote");
  g_autofree char *notes = g_build_filename (dir, "notes.md", NULL);
  g_autofree char *kept = NULL;
  g_assert_true (g_file_get_contents (notes, &kept, NULL, NULL));
  g_assert_cmpstr (kept, ==, "# my notes\n");
  RunResult r = { 0 };
  for (int i = 0; i < 2; i++)
    {
      run_tandem ("predict --model tiny-llama --gpus 1 --seq-length 128 --no-db "
                  "--trace {TMP}/t.json", &r);
      g_assert_cmpint (r.status, ==, 0);
      run_result_clear (&r);
    }
  run_assert_error ("calibrate --quick --out {TMP}/notes.md --no-db", 2,
                    "notes.md exists and is not a cluster profile tandem wrote");
  run_assert_error ("calibrate --quick --out h200-node --no-db", 2,
                    "--out h200-node is the name of the cluster preset h200-node");
  /* "-" is no stdout for a cluster file: a file named "-" was written */
  run_assert_error ("calibrate --quick --out - --no-db", 2, "--out -: the profile is a "
                    "cluster file");
  remove_tree (dir);
}

/* A plan file that is not JSON said "p.json: malformed JSON: <data>:2:1: Parse error: ..."
 * (json-glib's name for text it was handed) where a model or cluster file's error names
 * the file and its line and column; and a plan nested too deep got a second hint after
 * its own ("...; hint: is it the right file?) (hint: tandem predict --help)"). */
static void
test_plan_json_messages (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-bad-input");
  run_write_file (dir, "cut.json", "{ \"parallelism\": { \"tensor_parallel_degree\": 8,\n");
  run_assert_error ("predict --plan {TMP}/cut.json --no-db", 2,
                "/cut.json:1:47: malformed JSON: unexpected character");
  RunResult r = { 0 };
  run_tandem ("predict --plan {TMP}/cut.json --no-db", &r);
  g_assert_null (strstr (r.err, "<data>"));
  run_result_clear (&r);
  /* 65 arrays deep: one past the cap of 64 (util/input.c) */
  g_autofree char *open = g_strnfill (65, '[');
  g_autofree char *close = g_strnfill (65, ']');
  g_autofree char *deep = g_strconcat (open, close, "\n", NULL);
  run_write_file (dir, "deep.json", deep);
  run_assert_error ("predict --plan {TMP}/deep.json --no-db", 2,
                "JSON nested deeper than 64 levels");
  run_tandem ("predict --plan {TMP}/deep.json --no-db", &r);
  g_assert_null (strstr (r.err, "(hint: tandem predict --help)"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* A plan from a TorchTitan file that validation refuses: the hint names a flag
 * ("--tp 2"), and the file has no flags but keys. The message names the file and the key
 * that flag replaces; a refusal whose hint names no such flag says where the plan came
 * from. Without --plan the message is as before. */
static void
test_plan_file_keys_in_errors (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-bad-input");
  run_write_file (dir, "tp3.toml", "[parallelism]\ntensor_parallel_degree = 3\n");
  /* tp 3 on 32 heads: refused, exit 2, hint --tp 2 */
  run_assert_error ("predict --plan {TMP}/tp3.toml --model llama3-8b --cluster h100-24k "
                    "--gpus 24 --no-db", 2,
                    "tp3.toml: --tp after --plan replaces its parallelism.tensor_parallel_degree)");
  /* pp 5 on 8 GPUs: the hint names --gpus, which no key sets */
  run_write_file (dir, "pp5.toml", "[parallelism]\npipeline_parallel_degree = 5\n");
  run_assert_error ("predict --plan {TMP}/pp5.toml --model llama3-8b --cluster h100-24k "
                    "--gpus 8 --no-db", 2,
                    "pp5.toml; flags after --plan replace its keys)");
  /* the flag after --plan overrides the key, and the plan is accepted */
  RunResult r = { 0 };
  run_tandem ("predict --plan {TMP}/tp3.toml --tp 2 --model llama3-8b --cluster h100-24k "
              "--gpus 24 --seq-length 2048 --sharding zero1 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  /* no plan file: no note */
  run_tandem ("predict --tp 3 --model llama3-8b --cluster h100-24k --gpus 24 --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_null (strstr (r.err, "after --plan"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* --fp16 and --bf16 together (or --precision with either, naming another dtype): the last
 * one given won without a word, so `--fp16 ... --bf16` predicted BF16. Megatron-LM refuses
 * the pair; so does tandem now. The same dtype twice, and --fp8-format over --bf16 (FP8
 * GEMMs with BF16 weights, Transformer Engine's usual set-up), still pass. */
static void
test_dtype_flags_contradict (void)
{
  const char *base = "predict --model llama3-8b --cluster h200-node --gpus 8 --tp 8 --no-db ";
  const char *bad[][2] = {
    { "--fp16 --bf16", "--fp16 and --bf16 contradict each other" },
    { "--bf16 --precision fp32", "--bf16 and --precision fp32 contradict each other" },
    { "--precision fp8 --fp16", "--precision fp8 and --fp16 contradict each other" },
    /* FP8 GEMMs cannot run in an fp32 or an NVFP4 plan: either order names both (the
     * last one given won: --fp8-format e4m3 --precision nvfp4 computed fp4) */
    { "--precision nvfp4 --fp8-format hybrid",
      "--fp8-format hybrid and --precision nvfp4 contradict each other" },
    { "--fp8-format e4m3 --precision nvfp4",
      "--fp8-format e4m3 and --precision nvfp4 contradict each other" },
    { "--fp8-format e4m3 --precision fp32",
      "--fp8-format e4m3 and --precision fp32 contradict each other" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *args = g_strconcat (base, bad[i][0], NULL);
      run_assert_error (args, 2, bad[i][1]);
    }
  const char *good[] = { "--bf16 --bf16", "--precision bf16 --bf16",
                         "--bf16 --fp8-format e4m3" };
  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autofree char *args = g_strconcat (base, good[i], NULL);
      RunResult r = { 0 };
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      run_result_clear (&r);
    }
  /* --bf16 (or --fp16) with --fp8-format is the base dtype with FP8 GEMMs in either
   * order, as Megatron-LM reads its own FP8 command line: --fp8-format hybrid --bf16
   * dropped FP8 without a word (bf16 compute, 0.1906 s against 0.1754 s), and with
   * --fp8-recipe delayed between them was refused with a hint to add --fp8-format */
  const char *fp8[][2] = {
    { "--bf16 --fp8-format hybrid", "bf16" },
    { "--fp8-format hybrid --bf16", "bf16" },
    { "--fp8-format hybrid --fp8-recipe delayed --bf16", "bf16" },
    { "--fp8-format hybrid --fp16", "fp16" },
    { "--fp8-format hybrid --precision bf16", "bf16" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (fp8); i++)
    {
      g_autofree char *args = g_strconcat (base, fp8[i][0], " --json", NULL);
      RunResult r = { 0 };
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonNode) root = json_from_string (r.out, NULL);
      g_assert_nonnull (root);
      JsonObject *prec = json_object_get_object_member (
        json_object_get_object_member (json_node_get_object (root), "plan"), "precision");
      g_assert_cmpstr (json_object_get_string_member (prec, "compute"), ==, "fp8");
      g_assert_cmpstr (json_object_get_string_member (prec, "param"), ==, fp8[i][1]);
      run_result_clear (&r);
    }
}

/* --cost net_efficiency / nvlink_efficiency scale a level's link rate where it gives no
 * measured busbw; on h100-24k every level gives one, so they changed nothing, without a
 * word: a note says so, and the step is the same as without them */
static void
test_cost_efficiency_note (void)
{
  const char *base = "predict --model llama3-8b --cluster h100-24k --gpus 16 --tp 8 --no-db "
                     "--json";
  RunResult a = { 0 }, b = { 0 };
  run_tandem (base, &a);
  g_autofree char *with = g_strconcat (base, " --cost net_efficiency=0.5", NULL);
  run_tandem (with, &b);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  g_assert_nonnull (strstr (b.err, "tandem: note: --cost net_efficiency=0.5 changes nothing on "
                                   "h100-24k"));
  g_autoptr (JsonNode) ja = json_from_string (a.out, NULL);
  g_autoptr (JsonNode) jb = json_from_string (b.out, NULL);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (ja), "step_time_s"), ==,
                     json_object_get_double_member (json_node_get_object (jb), "step_time_s"));
  run_result_clear (&a);
  run_result_clear (&b);
}

/* A negative --db-timeout said "expected milliseconds >= 0" and no more in predict,
 * validate, runs, run, calibrate and import-log (report and search hint at a value). */
static void
test_db_timeout_hint (void)
{
  run_assert_error ("predict --model llama3-8b --cluster h200-node --gpus 8 --tp 8 --db-timeout -1",
                2, "--db-timeout -1: expected milliseconds >= 0 (hint: --db-timeout 5000, the "
                "default)");
  run_assert_error ("runs --db-timeout -1", 2, "(hint: --db-timeout 5000, the default)");
}

/* Megatron's model flags took 0 for absent: --num-layers 0 beside --model ran the preset
 * without a word (exit 0), and with the other model flags said "needs --num-layers too"
 * of a flag that was given. Each integer model flag takes 1 and up, as the plan flags. */
static void
test_model_flag_zero (void)
{
  run_assert_error ("predict --model llama3-8b --cluster h200-node --gpus 8 --tp 8 --no-db "
                "--num-layers 0", 2, "--num-layers expects an integer >= 1, got '0' (hint: "
                "tandem predict --help)");
  run_assert_error ("predict --num-layers 0 --hidden-size 4096 --num-attention-heads 32 "
                "--vocab-size 32000 --gpus 8 --no-db", 2,
                "--num-layers expects an integer >= 1, got '0'");
  run_assert_error ("predict --num-layers 2 --hidden-size 4096 --num-attention-heads 32 "
                "--vocab-size 32000 --kv-channels 0 --gpus 8 --no-db", 2,
                "--kv-channels expects an integer >= 1, got '0'");
  run_assert_error ("predict --num-layers 2 --hidden-size 99999999999 --num-attention-heads 32 "
                "--vocab-size 32000 --gpus 8 --no-db", 2,
                "--hidden-size 99999999999 is too large: it takes integers from 1 to "
                "2147483647");
}

/* Three refusals that said what was wrong but not what to give instead, or nothing at
 * all: report validation --run '' took every run (the empty list split into no ids),
 * validate --explain of an id the file lacks named no ids it has, and calibrate's
 * --blas-threads 0 had neither value nor hint. The --explain file here has row ids 1..8
 * (published-absurd.csv's: tests/cli/test-limits.c). */
static void
test_hints_for_values (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-bad-input");
  RunResult r = { 0 };
  run_tandem ("validate {SRC}/data/published-runs.csv --only 1 --db {TMP}/v.db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_assert_error ("report validation --db {TMP}/v.db --run '' --out {TMP}/rep", 2,
                "--run '' names no run (hint: --run N or --run 3,5, ids from tandem runs; "
                "leave it out for every run)");
  g_autofree char *rep = g_build_filename (dir, "rep", NULL);
  g_assert_false (g_file_test (rep, G_FILE_TEST_EXISTS));
  run_assert_error ("validate {SRC}/tests/data/limits/published-absurd.csv --no-db --explain 99", 2,
                "--explain 99: no row with that row_id (hint: its row ids run from 1 to 14)");
  /* --explain prints text: under --json it printed that text with exit 0, and --only
   * beside it was ignored */
  run_assert_error ("validate {SRC}/tests/data/limits/published-absurd.csv --no-db --explain 1 "
                    "--json", 2, "--explain 1 prints that row's reading as text and takes no "
                    "--json (hint: drop it; the row's figures as JSON: tandem validate FILE "
                    "--json --only 1)");
  run_assert_error ("validate {SRC}/tests/data/limits/published-absurd.csv --no-db --explain 1 "
                    "--only 5", 2, "--explain 1 prints that row's reading as text and takes no "
                    "--only");
  /* a record shorter than the header (row 2 stops after its recompute cell): read with
   * the missing cells empty, said on stderr with its line, and --json stays one
   * document; row 2 is then skipped for its missing step time */
  {
    RunResult sr = { 0 };
    run_tandem ("validate {SRC}/tests/data/limits/published-short-row.csv --no-db --json", &sr);
    g_assert_cmpint (sr.status, ==, 0);
    g_assert_nonnull (strstr (sr.err, "tandem: warning: "));
    g_assert_nonnull (strstr (sr.err, "published-short-row.csv:3: 17 fields but the header has "
                                      "20 columns; the missing 3 read as empty"));
    g_autoptr (JsonParser) jp = json_parser_new ();
    g_assert_true (json_parser_load_from_data (jp, sr.out, -1, NULL));
    run_result_clear (&sr);
  }
  run_assert_error ("calibrate --quick --no-db --blas-threads 0", 2,
                "--blas-threads 0: BLAS threads per rank, an integer >= 1 (hint: "
                "--blas-threads 1, the default)");
  remove_tree (dir);
}

/* Sequence parallelism over a sequence the TP ranks cannot split whole: --seq-length 7
 * with --tp 8 --sequence-parallel was predicted (exit 0) as if each rank held 7/8 of a
 * token; Megatron-Core asserts seq / cp divides by tp. The hint's length: 8 is the next
 * multiple of tp = 8; with cp 2 and tp 4, 20 / 2 = 10 tokens a CP rank, and the next
 * multiple of tp x cp = 8 that is also one of 2 x cp = 4 is 24. */
static void
test_sequence_parallel_split (void)
{
  run_assert_error ("predict --model llama3-8b --cluster h200-node --gpus 8 --tp 8 "
                "--sequence-parallel --seq-length 7 --no-db", 2,
                "sequence parallelism splits the 7 tokens of each sequence over tp = 8 ranks, "
                "which does not divide them (hint: --seq-length 8, a multiple of 8, or drop "
                "--sequence-parallel)");
  run_assert_error ("predict --model llama3-8b --cluster h200-node --gpus 8 --tp 4 --cp 2 "
                "--sequence-parallel --seq-length 20 --no-db", 2,
                "the 10 tokens each CP rank holds of a sequence over tp = 4 ranks, which does "
                "not divide them (hint: --seq-length 24, a multiple of 8");
  /* without SP, or where it divides, as before */
  const char *fine[] = { "--tp 8 --seq-length 7", "--tp 8 --sequence-parallel --seq-length 8",
                         "--tp 2 --cp 4 --sequence-parallel --seq-length 24" };
  for (gsize i = 0; i < G_N_ELEMENTS (fine); i++)
    {
      g_autofree char *args = g_strdup_printf ("predict --model llama3-8b --cluster h200-node "
                                               "--gpus 8 --no-db %s", fine[i]);
      RunResult r = { 0 };
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      run_result_clear (&r);
    }
}

/* HSDP degrees that do not multiply to dp said "HSDP replicate 4 x shard 8 != dp 64" (or
 * "does not divide dp = 64") and no more. On 64 GPUs dp = 64: with shard groups of 8 the
 * replicate degree is 64 / 8 = 8; the largest divisor of 64 up to 3 is 2. */
static void
test_hsdp_degrees_hint (void)
{
  const char *base = "predict --model llama3-8b --cluster h100-24k --gpus 64 --gbs 64 --no-db "
                     "--framework torchtitan ";
  g_autofree char *a = g_strconcat (base, "--sharding hsdp:8 --data-parallel-replicate-degree 4",
                                    NULL);
  run_assert_error (a, 2, "--data-parallel-replicate-degree 4 x the HSDP shard-group size 8 = 32 "
                "ranks, not dp = 64 (hint: --data-parallel-replicate-degree 8, or leave it "
                "out: hsdp:8 replicates over the rest)");
  g_autofree char *b = g_strconcat (base, "--data-parallel-replicate-degree 3", NULL);
  run_assert_error (b, 2, "--data-parallel-replicate-degree 3 does not divide dp = world / "
                "(tp x pp x cp) = 64 / 1 = 64 (hint: --data-parallel-replicate-degree 2)");
}

/* A trailing "--" (the end of the options, as a script may add) counted as a plan flag:
 * predict of a model with no plan predicted the whole cluster in data parallelism (the
 * 405B on 24,576 GPUs, 7.50 TiB a GPU, exit 3) instead of saying it needs a plan. */
static void
test_predict_double_dash (void)
{
  run_assert_error ("predict --no-db --", 2, "predict needs a plan");
}

/* --async-tp without sequence parallelism was refused in the words of a flag not given:
 * "--tp-comm-overlap needs sequence parallelism" (--async-tp turns that overlap on). */
static void
test_async_tp_names_itself (void)
{
  run_assert_error ("predict --model llama3-8b --cluster h200-node --gpus 8 --tp 8 --framework "
                "torchtitan --async-tp --compile --no-db", 2,
                "--async-tp overlaps sequence parallelism's all-gather and reduce-scatter with "
                "the GEMMs, and tp 8 runs without it (hint: add --sequence-parallel)");
}

/* --recompute-modules '' or ',' named no module and changed nothing, exit 0, where
 * --cuda-graph-scope '' is refused as naming no scope. */
static void
test_recompute_modules_empty (void)
{
  run_assert_error ("predict --model mixtral-8x7b --cluster h100-24k --gpus 64 --ep 8 --gbs 64 "
                "--no-db --recompute-modules ,", 2,
                "--recompute-modules ',' names no module (hint: e.g. core_attn or moe_act,moe, "
                "or leave the flag out)");
  run_assert_error ("predict --model mixtral-8x7b --cluster h100-24k --gpus 64 --ep 8 --gbs 64 "
                "--no-db --recompute-modules ''", 2, "--recompute-modules '' names no module");
}

/* report scaling --cluster with an empty item ("h100-24k," from a list built in a loop)
 * looked the empty name up as a cluster: "'' is neither a cluster file nor a cluster
 * preset (presets: ...)". */
static void
test_report_cluster_list_empty_item (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-bad-input");
  run_assert_error ("report scaling --model llama3-8b --strong --gbs 64 --tp 8 --gpus 8,16 "
                "--cluster h100-24k, --out {TMP}/r", 2,
                "--cluster 'h100-24k,' has an empty name in its list (hint: names separated "
                "by single commas");
  remove_tree (dir);
}

/* The step program numbered micro-batches in 16 bits while a step may hold up to
 * PLAN_MAX_MICROBATCHES = 65,536 of them: past 32,767 the number wrapped negative and a
 * full simulation (--full-simulation, --trace, tandem run) wrote outside its send table:
 * tiny-llama on pp 2 at --gbs 40000 died of SIGSEGV, at 65536 of glibc's "munmap_chunk():
 * invalid pointer". dp = 2 / pp 2 = 1 and mbs 1, so gbs is the micro-batch count. Each
 * schedule's full simulation now runs and gives the steady-state prediction's step time
 * (equal within 1e-9: the two agree to the last digits below the cap). */
static double
step_time (const char *args)
{
  RunResult r = { 0 };
  run_tandem (args, &r);
  if (r.status != 0)
    g_error ("tandem %s: exit %d\n%s", args, r.status, r.err);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  double t = json_object_get_double_member (json_node_get_object (root), "step_time_s");
  run_result_clear (&r);
  return t;
}

static void
test_microbatches_past_int16 (void)
{
  const char *plans[] = { "--gbs 40000", "--gbs 65536", "--gbs 65536 --vpp 2",
                          "--gbs 65536 --schedule DualPipe --framework hai-llm" };
  for (gsize i = 0; i < G_N_ELEMENTS (plans); i++)
    {
      g_autofree char *steady = g_strdup_printf ("predict --model tiny-llama --cluster cpu-host "
                                                 "--gpus 2 --pp 2 --seq-length 256 --no-db "
                                                 "--json %s", plans[i]);
      g_autofree char *full = g_strconcat (steady, " --full-simulation", NULL);
      double a = step_time (steady), b = step_time (full);
      g_assert_cmpfloat (a, >, 0);
      g_assert_cmpfloat (fabs (b - a), <=, 1e-9 * a);
    }
}

/* search keeps a candidate's degrees and micro-batch size in 16 bits: --mbs 32768 wrapped
 * to -32768 (every candidate "not resolved", exit 2 with a nonsense reason) and --mbs 65536
 * to 0, then a division by zero (SIGFPE). 2^15 - 1 = 32767 is the largest now taken. */
static void
test_search_values_past_int16 (void)
{
  const char *base = "search --model tiny-llama --cluster cpu-host --gbs 262144 --seq-length 16 "
                     "--no-db --top 1 --fast ";
  g_autofree char *a = g_strconcat (base, "--mbs 65536", NULL);
  run_assert_error (a, 2, "--mbs 65536 is above 32767, the largest degree or micro-batch size a "
                "search takes (hint: --mbs 2,4,8)");
  g_autofree char *b = g_strconcat (base, "--mbs 32768", NULL);
  run_assert_error (b, 2, "--mbs 32768 is above 32767");
  g_autofree char *c = g_strconcat (base, "--tp 2,65536", NULL);
  run_assert_error (c, 2, "--tp 65536 is above 32767");
}

/* MoE-only options on a dense model are refused by name, as --ep and --moe-router-topk
 * already were (they were ignored with exit 0); an explicit default (--moe-token-dispatcher
 * -type alltoall) cannot be told from none and passes; --num-experts makes the model MoE,
 * and the same option is then taken. */
static void
test_moe_flags_on_dense (void)
{
  const char *base = "predict --model tiny-llama --cluster cpu-host --gpus 2 --seq-length 256 "
                     "--gbs 4 --no-db ";
  const char *flags[][2] = {
    { "--moe-grouped-gemm", "--moe-grouped-gemm" },
    { "--moe-token-dispatcher-type flex", "--moe-token-dispatcher-type" },
    { "--moe-token-dispatcher-type allgather", "--moe-token-dispatcher-type" },
    { "--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend hybridep",
      "--moe-token-dispatcher-type" },
    { "--moe-expert-capacity-factor 1", "--moe-expert-capacity-factor" },
    { "--moe-expert-capacity-factor 1 --moe-pad-expert-input-to-capacity",
      "--moe-expert-capacity-factor" },
    { "--moe-shared-expert-overlap", "--moe-shared-expert-overlap" },
    { "--overlap-moe-expert-parallel-comm", "--overlap-moe-expert-parallel-comm" },
    { "--moe-imbalance 1.0", "--moe-imbalance" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (flags); i++)
    {
      g_autofree char *cmd = g_strconcat (base, flags[i][0], NULL);
      g_autofree char *want = g_strdup_printf ("%s is an option of mixture-of-experts layers, "
                                               "and tiny-llama is dense (hint: drop it, or give "
                                               "--num-experts N to make its MLPs experts)",
                                               flags[i][1]);
      run_assert_error (cmd, 2, want);
    }
  RunResult r = { 0 };
  g_autofree char *dflt = g_strconcat (base, "--moe-token-dispatcher-type alltoall", NULL);
  run_tandem (dflt, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  g_autofree char *moe = g_strconcat (base, "--num-experts 4 --moe-grouped-gemm", NULL);
  run_tandem (moe, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
}

/* A flag that takes a value, given none, took the next flag as its value: `predict --db
 * --no-db` stored the run into a file named "--no-db" (exit 0), `--trace --json` wrote a
 * trace named "--json", and `report scaling --gpus --strong` said "say --strong or --weak"
 * though --gpus had no value. A separate value that is one of the command's own options is
 * refused now, naming the flag without its value, exit 2, in every command (their option
 * tables: the plan flags, the model flags, each command's own; search's list flags).
 * "--db=--no-db" still names a file so called, and -5 still reaches --tp's own range
 * check. */
static void
test_flag_value_is_a_flag (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-flag-value");
  const char *const subst[] = { "{TMP}", dir, NULL };
  const char *const cases[][2] = {
    { "predict --model llama3-8b --cluster h200-node --tp 8 --gpus 8 --db --no-db",
      "missing value for --db (the next argument, --no-db, is an option; hint: --db FILE, "
      "or --db=--no-db for a file of that name)" },
    { "predict --model llama3-8b --cluster h200-node --tp 8 --gpus 8 --no-db --trace --json",
      "missing value for --trace (the next argument, --json, is an option" },
    /* hidden aliases are options too (--tp, --pp) */
    { "plan show --model llama3-8b --tp --pp 2", "missing value for --tp (the next argument, "
      "--pp, is an option; hint: --tp N)" },
    { "memory --model llama3-8b --num-layers --hidden-size 4096",
      "missing value for --num-layers (the next argument, --hidden-size," },
    { "report scaling --model llama3-8b --gpus --strong --gbs 16 --tp 8",
      "missing value for --gpus (the next argument, --strong, is an option; hint: --gpus N)" },
    { "search --model llama3-8b --gpus --gbs 16", "missing value for --gpus (the next "
      "argument, --gbs, is an option; hint: --gpus LIST)" },
    { "search --model llama3-8b --gpus 8 --gbs 16 --note --json",
      "missing value for --note (the next argument, --json, is an option; hint: --note TEXT, "
      "or --note=--json for that very text)" },
    /* an integer option checked for decimal digits before the command: the same answer */
    { "run --steps --db x", "missing value for --steps (the next argument, --db," },
    { "runs --db --json", "missing value for --db (the next argument, --json," },
    { "show model llama3-8b --seq-length --json", "missing value for --seq-length" },
    { "validate --db --help x.csv", "missing value for --db (the next argument, --help," },
    { "report validation --run --json", "missing value for --run (the next argument, --json, "
      "is an option; hint: --run N)" },
    { "calibrate --out --quick", "missing value for --out (the next argument, --quick," },
    { "import-log --skip --json x.log", "missing value for --skip (the next argument, --json," },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RunResult r = { 0 };
      run_tandem_words (cases[i][0], subst, dir, &r);
      if (r.status != 2 || !g_str_has_prefix (r.err, "tandem: error: ")
          || strstr (r.err, cases[i][1]) == NULL
          || strchr (r.err, '\n') != r.err + strlen (r.err) - 1)
        g_error ("tandem %s: status %d, stderr: %s", cases[i][0], r.status, r.err);
      run_result_clear (&r);
    }
  /* nothing was written under a flag's name */
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  g_assert_null (g_dir_read_name (d));
  /* with = the value is taken as given: a database named --no-db */
  RunResult r = { 0 };
  run_tandem_words ("predict --model llama3-8b --cluster h200-node --tp 8 --gpus 8 "
                    "--db=--no-db", subst, dir, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *db = g_build_filename (dir, "--no-db", NULL);
  g_assert_true (g_file_test (db, G_FILE_TEST_IS_REGULAR));
  run_result_clear (&r);
  /* a negative number is a value, refused by the flag's own range (1 and up) */
  run_assert_error ("predict --model llama3-8b --tp -5", 2, "--tp expects an integer >= 1, "
                    "got '-5'");
  remove_tree (dir);
}

/* Two plan flags that set one setting to different values, resolved by their order
 * without a word: `--sharding none --use-distributed-optimizer` planned zero1 and the
 * other order none; `--recompute-activations --recompute-granularity full` planned full
 * and the other order selective, where Megatron-LM's argument check turns
 * --recompute-activations into granularity 'selective' whatever the order. Both pairs are
 * refused in either order, exit 2, one line naming both flags, in every command that
 * takes plan flags (search has its own --sharding list). The pairs that agree stay: the
 * distributed optimizer with zero1 (the same thing) or zero3 (which shards the states
 * too), --recompute-activations with --recompute-granularity selective. */
static void
test_plan_flag_contradictions (void)
{
  const char *const base = "--model llama3-8b --cluster h200-node --gpus 8";
  const char *const shard = "--sharding none and --use-distributed-optimizer contradict each "
                            "other: the first keeps the optimizer states whole on every DP "
                            "rank, the second shards them over DP, ZeRO-1 (hint: drop one:";
  const char *const rec = "--recompute-activations and --recompute-granularity full "
                          "contradict each other: the first is Megatron-LM's older flag for "
                          "--recompute-granularity selective";
  const char *const cases[][3] = {
    { "plan show", "--sharding none --use-distributed-optimizer", shard },
    { "plan show", "--use-distributed-optimizer --sharding none", shard },
    { "predict --no-db", "--use-distributed-optimizer --data-parallel-sharding-strategy "
      "no_shard", "--data-parallel-sharding-strategy no_shard and --use-distributed-optimizer "
      "contradict each other" },
    { "memory", "--recompute-activations --recompute-granularity full", rec },
    { "predict --no-db", "--recompute-granularity full --recompute-activations", rec },
    { "plan show", "--recompute-activations --recompute-granularity none",
      "--recompute-activations and --recompute-granularity none contradict" },
    { "run --no-db --steps 1", "--sharding none --use-distributed-optimizer", shard },
    { "import-log {SRC}/README.md", "--recompute-activations --recompute-granularity full",
      rec },
    { "report scaling --gpus 8,16 --strong --gbs 16",
      "--sharding none --use-distributed-optimizer", shard },
    { "search --gbs 64 --no-db", "--sharding none,zero1 --use-distributed-optimizer",
      "--sharding none,zero1 and --use-distributed-optimizer contradict each other" },
    { "search --gbs 64 --no-db", "--use-distributed-optimizer --sharding none",
      "--sharding none and --use-distributed-optimizer contradict each other" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *args = g_strdup_printf ("%s %s %s", cases[i][0], base, cases[i][1]);
      run_assert_error (args, 2, cases[i][2]);
    }
  /* the pairs that agree: plan names zero1, zero3, sel */
  const char *const agree[][2] = {
    { "--sharding zero1 --use-distributed-optimizer", "-zero1-" },
    { "--use-distributed-optimizer --sharding zero1", "-zero1-" },
    { "--use-distributed-optimizer --sharding zero3", "-zero3-" },
    { "--sharding zero3 --use-distributed-optimizer", "-zero3-" },
    { "--recompute-activations --recompute-granularity selective", "-sel-" },
    { "--recompute-granularity selective --recompute-activations", "-sel-" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (agree); i++)
    {
      g_autofree char *args = g_strdup_printf ("plan show %s %s", base, agree[i][0]);
      RunResult r = { 0 };
      run_tandem (args, &r);
      if (r.status != 0 || strstr (r.out, agree[i][1]) == NULL)
        g_error ("tandem %s: status %d, no %s in\n%s%s", args, r.status, agree[i][1], r.out,
                 r.err);
      run_result_clear (&r);
    }
  /* memory's list of changes for a plan that does not fit (llama3-70b at tp 8, dp 2:
   * 216.29 GiB of 80) offered --use-distributed-optimizer beside a typed --sharding none,
   * a pair now refused: the change is --sharding zero1 there */
  RunResult r = { 0 };
  run_tandem ("memory --model llama3-70b --gpus 16 --tp 8 --gbs 8 --sharding none", &r);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.out, "  --sharding zero1 "));
  g_assert_null (strstr (r.out, "--use-distributed-optimizer"));
  run_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/bad-input/plan-file-keys", test_plan_file_keys_in_errors);
  g_test_add_func ("/cli/bad-input/validate-only-past-int64", test_validate_only_past_int64);
  g_test_add_func ("/cli/bad-input/output-over-input", test_output_over_input);
  g_test_add_func ("/cli/bad-input/run-counts-past-caps", test_run_counts_past_caps);
  g_test_add_func ("/cli/bad-input/run-step-memory", test_run_step_memory);
  g_test_add_func ("/cli/bad-input/plan-json-messages", test_plan_json_messages);
  g_test_add_func ("/cli/bad-input/dtype-flags-contradict", test_dtype_flags_contradict);
  g_test_add_func ("/cli/bad-input/cost-efficiency-note", test_cost_efficiency_note);
  g_test_add_func ("/cli/bad-input/db-timeout-hint", test_db_timeout_hint);
  g_test_add_func ("/cli/bad-input/model-flag-zero", test_model_flag_zero);
  g_test_add_func ("/cli/bad-input/hints-for-values", test_hints_for_values);
  g_test_add_func ("/cli/bad-input/sequence-parallel-split", test_sequence_parallel_split);
  g_test_add_func ("/cli/bad-input/hsdp-degrees-hint", test_hsdp_degrees_hint);
  g_test_add_func ("/cli/bad-input/predict-double-dash", test_predict_double_dash);
  g_test_add_func ("/cli/bad-input/async-tp-names-itself", test_async_tp_names_itself);
  g_test_add_func ("/cli/bad-input/recompute-modules-empty", test_recompute_modules_empty);
  g_test_add_func ("/cli/bad-input/report-cluster-list-empty-item",
                   test_report_cluster_list_empty_item);
  g_test_add_func ("/cli/bad-input/microbatches-past-int16", test_microbatches_past_int16);
  g_test_add_func ("/cli/bad-input/search-values-past-int16", test_search_values_past_int16);
  g_test_add_func ("/cli/bad-input/moe-flags-on-dense", test_moe_flags_on_dense);
  g_test_add_func ("/cli/bad-input/long-value-cut", test_long_value_cut);
  g_test_add_func ("/cli/bad-input/outputs-replace-their-own", test_outputs_replace_their_own);
  g_test_add_func ("/cli/bad-input/directory-and-pipe-inputs", test_directory_and_pipe_inputs);
  g_test_add_func ("/cli/bad-input/flag-value-is-a-flag", test_flag_value_is_a_flag);
  g_test_add_func ("/cli/bad-input/plan-flag-contradictions", test_plan_flag_contradictions);
  return g_test_run ();
}
