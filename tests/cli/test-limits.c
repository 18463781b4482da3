/* tests/cli/test-limits.c - issue 15's bad inputs, end to end: each original input (a
 * file in tests/data/limits/, or generated here when it is too big to keep) must give
 * exit status 2 and one line "tandem: error: ..." that names the cap or the field, never
 * a crash, a hang or a silently wrong number. TANDEM_EXE is the binary under test. */
#include "cli-run.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <string.h>

/* Runs tandem with the space-separated arguments; "{DATA}" expands to tests/data/limits
 * and "{TMP}" to `tmp`. */
static void
run_limits (const char *args, const char *tmp, RunResult *r)
{
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", "limits", NULL);
  const char *subst[] = { "{DATA}", data, tmp != NULL ? "{TMP}" : NULL, tmp, NULL };
  run_tandem_words (args, subst, NULL, r);
}

/* Exit status 2 and exactly one line "tandem: error: ...<needle>...". */
static void
assert_refused (const char *args, const char *tmp, const char *needle)
{
  RunResult r = { 0 };
  run_limits (args, tmp, &r);
  if (r.status != 2 || !g_str_has_prefix (r.err, "tandem: error: ")
      || strstr (r.err, needle) == NULL || strchr (r.err, '\n') != r.err + strlen (r.err) - 1)
    g_error ("tandem %s\nexpected status 2 and an error with '%s', got %d\nstdout: %s\n"
             "stderr: %s", args, needle, r.status, r.out, r.err);
  run_result_clear (&r);
}

/* The stdout of a command that must succeed, parsed as JSON (valid, UTF-8). A prediction
 * that does not fit is printed too and exits 3 (docs/contracts.md): accepted here, where
 * what counts is that the plan was not refused. */
static JsonNode *
run_json (const char *args, const char *tmp)
{
  RunResult r = { 0 };
  run_limits (args, tmp, &r);
  if (r.status != 0 && r.status != 3)
    g_error ("tandem %s: status %d\n%s", args, r.status, r.err);
  g_assert_true (g_utf8_validate (r.out, -1, NULL));
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_data (p, r.out, -1, &error))
    g_error ("tandem %s: invalid JSON (%s):\n%s", args, error->message, r.out);
  JsonNode *root = json_node_copy (json_parser_get_root (p));
  run_result_clear (&r);
  return root;
}

/* ---- files: depth and size ------------------------------------------------------------ */

/* 100,000 nested arrays as a model, a cluster and a plan file: json-glib's recursive
 * parser overflowed the stack (exit 139). Refused at the 65th '[' (line 1, column 65).
 * Generated here: 200 kB of brackets is no file to keep in the repository. */
static void
test_deep_json (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tandem-limits-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *path = g_build_filename (dir, "deep.json", NULL);
  GString *s = g_string_new (NULL);
  for (int i = 0; i < 100000; i++)
    g_string_append_c (s, '[');
  for (int i = 0; i < 100000; i++)
    g_string_append_c (s, ']');
  g_assert_true (g_file_set_contents (path, s->str, (gssize) s->len, &error));
  g_string_free (s, TRUE);
  const char *msg = "deep.json:1:65: JSON nested deeper than 64 levels";
  assert_refused ("show model {TMP}/deep.json", dir, msg);
  assert_refused ("show cluster {TMP}/deep.json", dir, msg);
  assert_refused ("plan --model llama3-8b --cluster h200-node --gpus 8 --plan {TMP}/deep.json",
                  dir, msg);
  assert_refused ("show framework {TMP}/deep.json", dir, msg);
  g_unlink (path);
  g_rmdir (dir);
}

/* /dev/zero as a model or plan file: read up to the cap, then refused (before the cap it
 * grew until memory ran out): 8 MiB for the documents a person writes (model, plan, stack:
 * a 50 MB config.json took ~2 GB in json-glib before it was read), 64 MiB for a cluster
 * file (a calibration profile inside). A FIFO without a writer reads as empty instead of
 * blocking in open(). */
static void
test_endless_files (void)
{
  assert_refused ("show model /dev/zero", NULL, "8 MiB input cap");
  assert_refused ("plan --model llama3-8b --cluster h200-node --gpus 8 --plan /dev/zero", NULL,
                  "8 MiB input cap");
  assert_refused ("show framework /dev/zero", NULL, "8 MiB input cap");
  assert_refused ("show cluster /dev/zero", NULL, "64 MiB input cap");
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tandem-limits-XXXXXX", &error);
  g_autofree char *fifo = g_build_filename (dir, "fifo.json", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  assert_refused ("show cluster {TMP}/fifo.json", dir, "fifo.json");
  g_unlink (fifo);
  g_rmdir (dir);
}

/* ---- models and plans: sizes, counts and products ------------------------------------- */

/* Model fields beyond their caps (models/model.h) are refused at load. */
static void
test_model_caps (void)
{
  /* hidden 2^32 wrapped the parameter products to 0 (HFU 74,518%); cap 2^20 */
  assert_refused ("show model {DATA}/hidden-2p32.json", NULL,
                  "field 'hidden_size' is 4294967296, above the cap of 1048576");
  assert_refused ("show model {DATA}/layers-5000.json", NULL,
                  "field 'num_hidden_layers' is 5000, above the cap of 4096");
  /* 65,536 x 128 = 8,388,608 > 2^22 */
  assert_refused ("show model {DATA}/heads-times-dim.json", NULL,
                  "x head_dim = 65536 x 128 is above the cap of 4194304");
  /* show model's own --seq-length: negative, and beyond the 16M-token cap */
  assert_refused ("show model llama3-8b --seq-length -1", NULL, "--seq-length -1");
  assert_refused ("show model llama3-8b --seq-length 16777217", NULL, "16777216");
  /* 0, as predict and search refuse it: the message says 1 .. 16777216, and 0 was taken as
   * "not given" and showed the FLOPs at 8192 tokens */
  assert_refused ("show model llama3-8b --seq-length 0", NULL, "--seq-length 0: must be in 1");
}

#define L8B "predict --model llama3-8b --cluster h200-node --no-db "

/* The flags, each with the figure the message must show. */
static void
test_plan_caps (void)
{
  static const struct { const char *flags, *expect; } cases[] = {
    /* 1073741824 / (mbs 1 x dp 8 / pp 2 = 4) = 268,435,456 micro-batches (was "simulated 2
     * tasks", MFU 644,362,323,240.9%) */
    { "--gbs 1073741824 --pp 2 --vpp 2 --gpus 8",
      "= 268435456 micro-batches per step, above the cap of 65536" },
    /* was MFU 39,743% on a saturated clock */
    { "--seq-length 2147483647 --gpus 8", "--seq-length 2147483647 is above the cap of 16777216" },
    /* 268,435,456 x 8 = 2^31 wrapped the default global batch to -2^31; now the tokens
     * per micro-batch, 268,435,456 x 8,192 = 2,199,023,255,552, exceed 2^26 first */
    { "--mbs 268435456 --gpus 8", "= 2199023255552 tokens, above the cap of 67108864" },
    /* 2 x 1,500,000,000 chunks for 32 layers (was: negative chunk count, GLib abort) */
    { "--vpp 1500000000 --pp 2 --gpus 8", "= 3000000000 model chunks, more than the 32 layers" },
    /* 1,000,000 / 8 = 125,000 micro-batches (39 s and 2 GB before the cap) */
    { "--gbs 1000000 --gpus 8", "= 125000 micro-batches per step, above the cap of 65536" },
    /* degrees are at most 2^20 GPUs, before tp x pp x cp is formed */
    { "--tp 100000000 --gpus 8", "--tp 100000000 is above the cap of 1048576 GPUs" },
    /* block recompute of 17 layers in chunks of 32 / 2 = 16 */
    { "--pp 2 --gpus 8 --recompute-granularity full --recompute-method block "
      "--recompute-num-layers 17", "--recompute-num-layers 17 exceeds the 16 layers per model chunk" },
    /* uniform units also lie inside one chunk (was accepted: only block was checked, and
     * with one layer to spare) */
    { "--pp 2 --gpus 8 --recompute-granularity full --recompute-num-layers 17",
      "exceeds the 16 layers per model chunk" },
    { "--gpus 8 --recompute-granularity full --recompute-num-layers 33",
      "--recompute-num-layers 33 exceeds the 32 layers of llama3-8b" },
    /* 16M-token sequences on 8 GPUs (cp 8) take 74,191 s per sequence; 4,096 of them are
     * 3.0e8 s, past 2^63 ps = 9,223,372 s: the clock saturated at 18,446,744.074 s and
     * fed MFU */
    { "--seq-length 16777216 --cp 8 --gpus 8 --gbs 4096", "64-bit picosecond clock" },
    /* --cost enforces [0, 10]: --comm-compute-slowdown did not */
    { "--gpus 8 --comm-compute-slowdown 11", "comm_compute_slowdown: bad value '11'" },
    { "--gpus 8 --comm-compute-slowdown nan", "comm_compute_slowdown: bad value 'nan'" },
    { "--gpus 8 --comm-compute-slowdown -0.5", "comm_compute_slowdown: bad value '-0.5'" },
    /* a rate above the device's: --cost sustained_scale reached 2, MFU 145% and HFU 180%
     * with exit 0 and the run stored; its cap is what the loader allows, a sustained
     * matmul ratio of 1 over the Hopper fits' 755.5 / 852.1: 852.1 / 755.5 = 1.12786 */
    { "--gpus 8 --cost sustained_scale=2",
      "sustained_scale: bad value '2' (expected a decimal number in [0.1, 1.12786])" },
    /* a *_us key's range in microseconds (it said [0, 1]), and no hexadecimal (0x10 was
     * taken as 16) */
    { "--gpus 8 --cost launch_overhead_us=2000000",
      "launch_overhead_us: bad value '2000000' (expected a decimal number in [0, 1e+06])" },
    { "--gpus 8 --cost tile_m=0x10", "tile_m: bad value '0x10'" },
    /* the one figure under its two names: the --cost value silently won */
    { "--gpus 8 --comm-compute-slowdown 5 --cost comm_compute_slowdown=0.5",
      "--comm-compute-slowdown 5 and --cost comm_compute_slowdown=0.5 set the same figure" },
    /* unfused scores at 16M tokens, 4 sequences: 6 x 4 x 32 x (2^24)^2 x 32 layers =
     * 6.9e18 bytes > 2^62 */
    { "--gpus 8 --seq-length 16777216 --mbs 4 --attention-backend unfused",
      "beyond the 2^62 bytes (4 EiB)" },
    /* one such sequence, 6 x 32 x (2^24)^2 x 32 = 1.73e18 bytes, is under the cap; GPipe
     * holds all 4 micro-batches of gbs 4 at once: 6.9e18 > 2^62 (the stage's sum wrapped
     * in 64 bits for larger counts and printed a smaller peak); 1F1B at pp 1 holds one */
    { "--gpus 8 --tp 8 --gbs 4 --seq-length 16777216 --attention-backend unfused "
      "--schedule GPipe", "4 micro-batches of 1 x 16777216 tokens held at once" },
    /* 2,000 experts of llama3-8b's ffn 14,336 pass the 16,777,216 cap on experts x width;
     * the hint names the most that fit, 16,777,216 / 14,336 = 1,170 (it said "more
     * --num-experts", which only widens the product) */
    { "--gpus 8 --num-experts 2000 --moe-router-topk 2",
      "(hint: at most 1170 --num-experts of this width)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *args = g_strconcat (L8B, cases[i].flags, NULL);
      assert_refused (args, NULL, cases[i].expect);
    }
  /* 2^26 one-token sequences per micro-batch pass the token cap; the default global
   * batch, mbs x dp = 2^26 x 32 = 2^31, does not fit an int (the same product in int
   * wrapped to -2^31 for --mbs 268435456 --gpus 8) */
  assert_refused ("predict --model llama3-8b --cluster h100-24k --no-db --gpus 32 --mbs 67108864 "
                  "--seq-length 1", NULL, "= 2147483648 sequences, does not fit");
  /* a plan file's interval 2^32 + 1 wrapped to 1 in an int cast */
  assert_refused (L8B "--gpus 8 --plan {DATA}/plan-ac-wrap.json", NULL,
                  "selective_ac_option '4294967297'");
  /* the step program's size: llama3-405b on 8 GPUs (tp 8, dp 1, pp 1) holds all 126
   * layers; 20,000 micro-batches x 126 = 2,520,000 layer passes > 2^21 = 2,097,152 */
  assert_refused ("predict --model llama3-405b --cluster h200-node --no-db --gpus 8 --tp 8 "
                  "--gbs 20000", NULL, "= 2520000 layer passes per step, above the cap of 2097152");
}

/* At the caps, real work is still accepted: 16 layers per chunk recomputed as one block;
 * a slowdown of 10 (the top of --cost's range); 16M-token sequences one at a time. */
static void
test_plan_at_caps (void)
{
  g_autoptr (JsonNode) a = run_json (L8B "--pp 2 --gpus 8 --recompute-granularity full "
                                     "--recompute-method block --recompute-num-layers 16 --json",
                                     NULL);
  g_autoptr (JsonNode) b = run_json (L8B "--gpus 8 --comm-compute-slowdown 10 --json", NULL);
  /* 74,191 s per 16M-token sequence (see above): 64 of them, 4.7e6 s, stay under the
   * 9.2e6 s the clock is trusted to */
  g_autoptr (JsonNode) c = run_json (L8B "--gpus 8 --cp 8 --seq-length 16777216 --gbs 64 --json",
                                     NULL);
  double step = json_object_get_double_member (json_node_get_object (c), "step_time_s");
  g_assert_cmpfloat (step, >, 4.0e6);
  g_assert_cmpfloat (step, <, 9223372.0);
}

/* ---- nccl-tests import, published CSV, cluster files ------------------------------------ */

#define IMPORT "calibrate --no-bench --cluster h200-node --no-db --import-nccl-tests "

/* The three lines: a header that repeats "size" at the end sent the row reader to
 * token 6 of a 4-token row (an over-read, exit 139 under ASan). The first "size" counts;
 * the row is refused because it lacks the header's algbw and busbw columns (5 and 6). */
static void
test_nccl_import (void)
{
  assert_refused (IMPORT "{DATA}/nccl-repeated-size.txt", NULL,
                  "nccl-repeated-size.txt:3: a table row of 4 fields, but the header puts size, "
                  "count, type, time, algbw and busbw in the first 6");
  /* nan and inf were imported, written to the profile, then refused by the cluster
   * loader reading that profile back: refused at import, line 11 of each file */
  assert_refused (IMPORT "{DATA}/all_reduce_perf-nan.txt", NULL,
                  "all_reduce_perf-nan.txt:11: a table row with a time, bandwidth or error count "
                  "that is not a finite number >= 0 or N/A");
  assert_refused (IMPORT "{DATA}/all_reduce_perf-inf.txt", NULL,
                  "all_reduce_perf-inf.txt:11: a table row with a time");
  /* a row cut short after its type (line 21) and one whose size is negative (line 18)
   * were passed over as no rows, and the rest imported with exit 0 */
  assert_refused (IMPORT "{DATA}/nccl-row-cut-short.txt", NULL,
                  "nccl-row-cut-short.txt:21: a table row of 3 fields, but the header puts "
                  "size, count, type, time, algbw and busbw in the first 8 (hint: a row cut "
                  "short?");
  assert_refused (IMPORT "{DATA}/nccl-negative-size.txt", NULL,
                  "nccl-negative-size.txt:18: a table row whose size or count is not a whole "
                  "number >= 0");
  /* all_reduce_perf-8xh100.txt with #wrong 17 on every row: each is left out of the
   * profile, so none is left; it wrote and stored a profile of 0 collective rows, exit 0 */
  assert_refused (IMPORT "{DATA}/all_reduce_perf-all-wrong.txt", NULL,
                  "every one of the 11 rows has wrong elements");
}

/* The numeric options GLib reads took C's base 0: show model --seq-length 010 counted
 * FLOPs at 8 tokens where predict's plan flag reads 10, validate --explain 010 explained
 * row 8, 0x10 was 16, " 16" passed, run --timeout 0x10 was 16 s; and the decimal plan
 * flags took hexadecimal (--moe-imbalance 0x2 was 2). A leading zero is decimal now (010
 * is ten, as for the plan flags); the rest is refused. */
static void
test_decimal_only (void)
{
  assert_refused ("show model llama3-8b --seq-length=0x10", NULL,
                  "--seq-length expects a decimal integer, got '0x10'");
  assert_refused ("predict --model llama3-8b --gpus 8 --no-db --db-timeout 0x10", NULL,
                  "--db-timeout expects a decimal integer, got '0x10'");
  assert_refused ("runs --limit 0x10 --no-db", NULL, "--limit expects a decimal integer");
  assert_refused ("validate {DATA}/published-absurd.csv --explain 0x10 --no-db", NULL,
                  "--explain expects a decimal integer, got '0x10'");
  assert_refused ("run --timeout 0x10 --no-db", NULL,
                  "--timeout expects a decimal number, got '0x10'");
  assert_refused ("predict --model mixtral-8x7b --gpus 8 --ep 8 --no-db --moe-imbalance 0x2",
                  NULL, "--moe-imbalance expects a number between 1 and 1e6, got '0x2'");
  /* 010 is ten in show as in predict (it was octal 8 there) */
  g_autoptr (JsonNode) a = run_json ("show model llama3-8b --seq-length 010 --json", NULL);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (a), "seq_length"), ==, 10);
}

/* A --out that fails at write time (/dev/full) keeps the profile: stored (profile 1 of a
 * new store), exit 1 naming both; it ended before the store, the measurement lost. */
static void
test_calibrate_out_full (void)
{
  g_autofree char *tmp = run_make_tmp ("tandem-calout");
  RunResult r = { 0 };
  run_limits ("calibrate --no-bench --cluster h200-node --db {TMP}/c.db --import-nccl-tests "
              "{DATA}/../calibrate/all_reduce_perf-8xh100.txt --out /dev/full", tmp, &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "--out /dev/full: cannot write /dev/full"));
  g_assert_nonnull (strstr (r.err, "the profile was stored as profile 1 in "));
  g_assert_nonnull (strstr (r.out, "cluster: not written to /dev/full"));
  run_result_clear (&r);
  /* --json says so too: cluster_file null with why (it named /dev/full as written) */
  run_limits ("calibrate --no-bench --cluster h200-node --db {TMP}/c.db --import-nccl-tests "
              "{DATA}/../calibrate/all_reduce_perf-8xh100.txt --out /dev/full --json", tmp, &r);
  g_assert_cmpint (r.status, ==, 1);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_true (json_node_is_null (json_object_get_member (o, "cluster_file")));
  g_assert_nonnull (strstr (json_object_get_string_member (o, "cluster_file_error"),
                            "cannot write /dev/full"));
  g_assert_cmpint (json_object_get_int_member (o, "profile_id"), ==, 2);
  run_result_clear (&r);
  remove_tree (tmp);
}

/* A cell that is not UTF-8 (bytes ff fe in the model name of line 2): the whole file is
 * refused before g_utf8_substring could cut inside a character, or --json print it. */
static void
test_csv_not_utf8 (void)
{
  assert_refused ("validate --no-db {DATA}/published-bad-utf8.csv", NULL,
                  "published-bad-utf8.csv:2: field 2 is not valid UTF-8");
  assert_refused ("validate --no-db --json {DATA}/published-bad-utf8.csv", NULL,
                  "not valid UTF-8");
}

/* published-absurd.csv: row 1 is published-runs.csv row 39 (GPT 22B, 8 A100s, tp 8,
 * 1.1 s); rows 2-14 each change one cell to something absurd. Only row 1 is predicted and
 * counted in MAPE; each other row is skipped with the column and the value named. Rows
 * 9-14 start as a number and go on in a way no reader takes; each was read as the number
 * it began with (0x10 as 16 s, "1,1" as 1 s, 1_100 as 1 s, 1.1.0 as 1.1 s, 8x as 8
 * GPUs, 8abc as tp 8) and predicted with exit 0. */
static void
test_csv_absurd_cells (void)
{
  static const struct { gint64 row_id; const char *reason; } refused[] = {
    { 2, "refused: tp '0' must be a whole number from 1 to 1048576" },  /* was read as tp 1 */
    { 3, "refused: step_time_s '1e999' must be a number above 0 and at most 86400" },
    { 4, "refused: step_time_s '-1.1'" },
    { 5, "refused: mfu_pct '250' must be a number above 0 and at most 100" },
    { 6, "refused: step_time_s 'nan'" },
    { 7, "refused: hidden '4294967296'" },
    { 8, "refused: micro_batch '2.5' must be a whole number" },
    { 9, "refused: step_time_s '0x10' is a hexadecimal number" },
    { 10, "refused: step_time_s '1,1' is not a number: '1' goes on with a comma that is no "
          "thousands separator" },
    { 11, "refused: step_time_s '1_100' is not a number: '1' goes on with a digit separator" },
    { 12, "refused: step_time_s '1.1.0' is not a number: '1.1' goes on with a second decimal "
          "point" },
    { 13, "refused: n_gpus '8x' is not a number: '8' goes on with letters that are no unit" },
    { 14, "refused: tp '8abc' is not a number" },
  };
  g_autoptr (JsonNode) root = run_json ("validate --no-db --json {DATA}/published-absurd.csv",
                                        NULL);
  JsonObject *o = json_node_get_object (root);
  JsonArray *rows = json_object_get_array_member (o, "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (rows, 0),
                                               "row_id"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "summary"),
                                               "n"), ==, 1);
  JsonArray *skipped = json_object_get_array_member (o, "skipped");
  g_assert_cmpuint (json_array_get_length (skipped), ==, G_N_ELEMENTS (refused));
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      JsonObject *sk = json_array_get_object_element (skipped, i);
      const char *reason = json_object_get_string_member (sk, "reason");
      g_assert_cmpint (json_object_get_int_member (sk, "row_id"), ==, refused[i].row_id);
      if (strstr (reason, refused[i].reason) == NULL)
        g_error ("row %" G_GINT64_FORMAT ": reason '%s' lacks '%s'", refused[i].row_id, reason,
                 refused[i].reason);
    }
}

/* Cluster files: non-finite numbers, HBM that rounds to 0 B or overflows, ranges. */
static void
test_cluster_ranges (void)
{
  assert_refused ("show cluster {DATA}/cluster-bw-1e999.json", NULL,
                  "field 'levels[0].bw_GBps' must be a finite number (got inf");
  assert_refused ("show cluster {DATA}/cluster-nan-peak.json", NULL,
                  "field 'device.peak_tflops.bf16' must be a finite number (got -inf");
  /* 1e-10 GB = 0.1 byte */
  assert_refused ("show cluster {DATA}/cluster-hbm-rounds-to-0.json", NULL,
                  "field 'device.hbm_GB' is 1e-10, which is 0 bytes, below 1 MiB");
  /* 1e10 GiB = 1.07e19 bytes > 2^63; the cap is 2^20 GiB = 1 PiB */
  assert_refused ("show cluster {DATA}/cluster-hbm-overflow.json", NULL,
                  "field 'device.hbm_GiB' is 1e+10, above the cap of 1048576");
  assert_refused ("show cluster {DATA}/cluster-latency-range.json", NULL,
                  "field 'levels[0].latency_us' is 10000000, above the cap of 1000000");
}

/* The JSON guard on an ordinary prediction: still valid JSON, no value changed to null
 * (step_time_s is a number). */
static void
test_json_ordinary (void)
{
  /* --tp 2: it fits (96 GiB of 131), so the status is 0 (an OOM plan exits 3) */
  g_autoptr (JsonNode) root = run_json ("predict --model llama3-8b --cluster h200-node --gpus 8 "
                                        "--tp 2 --no-db --json", NULL);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpfloat (json_object_get_double_member (o, "step_time_s"), >, 0);
}

/* Empty values, as an unset shell variable gives them ({E} is "", {SP} one space). Each
 * was taken for "not given" or worse: search --tp "" searched every tp (exit 0), --sharding
 * "" asked for hsdp, --framework "" ran the default stack, --db "" answered "stored as
 * run 1 in " with a SQLite temporary database deleted at exit (the row lost), and report
 * scaling --cluster "" failed a precondition and crashed (SIGSEGV). */
static void
assert_empty_refused (const char *args, const char *needle)
{
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", "limits", NULL);
  const char *subst[] = { "{E}", "", "{SP}", " ", "{DATA}", data, NULL };
  RunResult r = { 0 };
  run_tandem_words (args, subst, NULL, &r);
  if (r.status != 2 || !g_str_has_prefix (r.err, "tandem: error: ")
      || strstr (r.err, needle) == NULL || strchr (r.err, '\n') != r.err + strlen (r.err) - 1)
    g_error ("tandem %s\nexpected status 2 and an error with '%s', got %d\nstdout: %s\n"
             "stderr: %s", args, needle, r.status, r.out, r.err);
  run_result_clear (&r);
}

static void
test_empty_values (void)
{
  const char *search = "search --model llama3-8b --cluster h200-node --gbs 64 --seq-length 4096 "
                       "--top 1 --no-db";
  const char *lists[] = { "gpus", "tp", "cp", "pp", "vpp", "ep", "mbs", "sharding", "recompute",
                          "schedule", "cp-comm-type", "rank-order", "dp-overlap" };
  for (guint i = 0; i < G_N_ELEMENTS (lists); i++)
    {
      g_autofree char *a = g_strdup_printf ("%s --%s {E}", search, lists[i]);
      g_autofree char *b = g_strdup_printf ("%s --%s={SP}", search, lists[i]);
      g_autofree char *msg = g_strdup_printf ("--%s '' is empty", lists[i]);
      assert_empty_refused (a, msg);
      assert_empty_refused (b, "is empty");
    }
  assert_empty_refused ("search --model llama3-8b --cluster h200-node --gbs 64 --framework {E} "
                        "--no-db", "--framework '' is empty");
  const char *predict = "predict --model llama3-8b --cluster h200-node --gpus 8 --tp 8 --gbs 8";
  g_autofree char *pf = g_strdup_printf ("%s --no-db --framework {E}", predict);
  assert_empty_refused (pf, "'' names no framework stack");
  assert_empty_refused ("show framework {E}", "'' names no framework stack");
  /* --db "" and ":memory:" keep no row past the process: refused before any work */
  g_autofree char *pd = g_strdup_printf ("%s --db {E}", predict);
  g_autofree char *pm = g_strdup_printf ("%s --db :memory:", predict);
  g_autofree char *sd = g_strdup_printf ("%s --tp 8 --db={E}", search);
  assert_empty_refused (pd, "--db '' names no file");
  assert_empty_refused (pm, "--db ':memory:' names no file");
  assert_empty_refused (sd, "--db '' names no file");
  assert_empty_refused ("runs --db {E}", "--db '' names no file");
  /* an SQLite URI: predict said "stored as run 1" in file:u.db?mode=memory and kept
   * nothing; file:res.db wrote res.db where runs looked for "file:res.db" */
  g_autofree char *pu = g_strdup_printf ("%s --db file:u.db?mode=memory", predict);
  g_autofree char *su = g_strdup_printf ("%s --tp 8 --db=file::memory:", search);
  assert_empty_refused (pu, "--db 'file:u.db?mode=memory' is an SQLite URI");
  assert_empty_refused (su, "--db 'file::memory:' is an SQLite URI");
  assert_empty_refused ("runs --db file:res.db", "hint: --db res.db, or ./file:res.db");
  assert_empty_refused ("report run 1 --db file:res.db", "--db 'file:res.db' is an SQLite URI");
  const char *report = "report scaling --model llama3-8b --seq-length 4096 --tp 8 --gpus 8,16 "
                       "--strong --gbs 64 --json";
  g_autofree char *rc = g_strdup_printf ("%s --cluster {E}", report);
  g_autofree char *rd = g_strdup_printf ("%s --cluster h100-24k,h100-24k", report);
  assert_empty_refused (rc, "--cluster '' names no cluster");
  /* --out "": mkdir("") failed with "cannot create the report directory : Invalid
   * argument" */
  g_autofree char *ro = g_strdup_printf ("%s --out {E}", report);
  assert_empty_refused (ro, "--out '' names no directory");
  assert_empty_refused (rd, "--cluster names h100-24k twice");
}

/* A global batch below one micro-batch per DP rank: 4 sequences on dp = 8 (8 GPUs, tp 1)
 * has the multiples 0 (no batch) and 8 around it, and the hint printed "8 or 8". */
static void
test_batch_hint (void)
{
  assert_refused ("predict --model llama3-8b --cluster h200-node --gpus 8 --gbs 4 --no-db", NULL,
                  "= 8: each data-parallel rank needs a whole micro-batch (hint: "
                  "--global-batch-size 8, or fewer --gpus)");
  /* 12 on dp 8: the multiples 8 and 16 */
  assert_refused ("predict --model llama3-8b --cluster h200-node --gpus 8 --gbs 12 --no-db", NULL,
                  "(hint: --global-batch-size 8 or 16)");
  /* at the flag's maximum: 2147483647 on dp 8 was told "2147483640 or 2147483648", the
   * second past the flag's range and both past the cap of 65,536 micro-batches a step,
   * whose largest batch here is 65,536 x 8 = 524,288 */
  assert_refused ("predict --model llama3-8b --cluster h200-node --gpus 8 --gbs 2147483647 "
                  "--no-db", NULL, "would pass the cap of 65536 a step (hint: "
                  "--global-batch-size 524288 or less, a multiple of 8)");
}

/* A run id past 2^63 - 1: strtoll saturated it and the store was asked for run
 * 9223372036854775807, a number nobody typed; refused as no id before any store opens.
 * runs show reads N as report run does: digits only, so '+2' (strtoll's sign) is no id
 * either, and each says which word it could not read. */
static void
test_run_id_range (void)
{
  assert_refused ("runs show 99999999999999999999999 --db {TMP}/none.db", "/nonexistent",
                  "runs show: '99999999999999999999999' is not a run id (a number from 1 up)");
  assert_refused ("runs show +2 --db {TMP}/none.db", "/nonexistent",
                  "runs show: '+2' is not a run id");
  assert_refused ("report run +2 --db {TMP}/none.db", "/nonexistent",
                  "report run: '+2' is not a run id");
  assert_refused ("runs show --db {TMP}/none.db", "/nonexistent", "usage: tandem runs show N");
}

/* `runs show N --csv`: the CSV is the runs list's (one run a line, its columns); show N
 * printed its text page instead, --csv dropped without a word. Refused, one line, before
 * any store opens; `runs --limit -1` names the limit instead of printing the usage. */
static void
test_runs_show_csv (void)
{
  assert_refused ("runs show 1 --csv --db {TMP}/none.db", "/nonexistent",
                  "--csv lists the runs; runs show N prints one as text or --json (hint: "
                  "tandem runs --csv, or tandem runs show 1 --json)");
  assert_refused ("runs --limit -1 --db {TMP}/none.db", "/nonexistent",
                  "--limit -1: the newest N runs, N >= 0 (0 = all)");
}

/* A config field that is a slip of one the family reads: "num_key_value_head" for
 * Llama 3 8B's num_key_value_heads = 8 was ignored like any unknown field and the model
 * silently became multi-head (32 KV heads). It still loads (real configs carry dozens of
 * fields tandem does not read), with one warning naming the field and the one meant; the
 * presets, whose extra fields are no slips, load without any. */
static void
test_model_field_slip (void)
{
  RunResult r = { 0 };
  run_limits ("show model {DATA}/model-field-slip.json", NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "32 heads / 32 KV heads"));
  if (!g_str_has_prefix (r.err, "tandem: warning: ")
      || strstr (r.err, "model-field-slip.json: field 'num_key_value_head' is not one tandem "
                        "reads (did you mean 'num_key_value_heads'?") == NULL)
    g_error ("expected the slip warning, got stderr: %s", r.err);
  run_result_clear (&r);
  run_limits ("show model llama3-8b", NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  run_result_clear (&r);
  /* a llama4 config keeps the text model under text_config: a slip there (Scout's 8 KV
   * heads misspelt) gave its 40 heads' default silently; named now, with where it is */
  run_limits ("show model {DATA}/model-field-slip-llama4.json", NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "40 heads / 40 KV heads"));
  if (strstr (r.err, "model-field-slip-llama4.json (text_config): field 'num_key_value_head' "
                     "is not one tandem reads (did you mean 'num_key_value_heads'?") == NULL)
    g_error ("expected the text_config slip warning, got stderr: %s", r.err);
  run_result_clear (&r);
  run_limits ("show model llama4-scout", NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  run_result_clear (&r);
}

/* Context parallelism needs seq % (2 cp) == 0. For the odd 4095 the search hinted "a cp
 * dividing 2047" (4095 / 2, rounded down), and cp 23 divides 2047 but 46 does not divide
 * 4095: the hint named values refused the same way. Only cp 1 fits an odd length. */
static void
test_cp_odd_sequence (void)
{
  assert_refused ("search --model llama3-8b --cluster h200-node --gbs 64 --seq-length 4095 "
                  "--cp 8 --no-db", NULL,
                  "an odd length splits for cp 1 only (hint: --cp 1, or an even --seq-length)");
  /* 4096: 2 cp must divide 4096, i.e. cp divides 2048; 3 does not */
  assert_refused ("search --model llama3-8b --cluster h200-node --gbs 64 --seq-length 4096 "
                  "--cp 3 --no-db", NULL, "(hint: a cp dividing 2048)");
}

/* validate filters that keep no row: --only past the last id, --gpu-type matching no
 * gpu_type. Both printed "0 predicted" and exited 0, which reads as a validation that
 * passed; --gpu-type "" kept every row. published-absurd.csv has rows 1-8 (ids 1..8). */
static void
test_validate_selects_nothing (void)
{
  assert_empty_refused ("validate {DATA}/published-absurd.csv --no-db --only 99999",
                        "--only 99999 selects no row of");
  assert_empty_refused ("validate {DATA}/published-absurd.csv --no-db --gpu-type H10O",
                        "--gpu-type 'H10O' selects no row of");
  assert_empty_refused ("validate {DATA}/published-absurd.csv --no-db --gpu-type {E}",
                        "--gpu-type '' is empty");
}

/* A plan JSON's fsdp_reshard_after_forward outside TorchTitan's default/always/never:
 * 'nevr' was read as "not never" and the plan silently became ZeRO-3 instead of ZeRO-2. */
static void
test_plan_reshard_value (void)
{
  assert_refused ("plan show --model llama3-405b --cluster h100-24k --gpus 16384 --plan "
                  "{DATA}/plan-reshard-typo.json", NULL,
                  "parallelism.fsdp_reshard_after_forward is 'nevr' (hint: default, always or "
                  "never");
}

/* tandem run takes its world size from the launcher: started alone with --tp 2, plan
 * validation hinted "use --gpus 2", and --gpus 2 is then refused ("the world size comes
 * from mpirun -np"): a hint that led in a circle. It now names mpirun -np. */
static void
test_run_world_hint (void)
{
  assert_refused ("run --model tiny-llama --tp 2 --seq-length 64 --global-batch-size 2 --no-db",
                  NULL, "the launcher started 1 rank, not a multiple of tp x pp x cp = 2 x 1 x "
                  "1 = 2 (hint: mpirun -np 2)");
  /* and --gpus against a world of one says "1 rank", not "1 ranks" */
  assert_refused ("run --model tiny-llama --gpus 2 --seq-length 64 --global-batch-size 2 "
                  "--no-db", NULL, "--gpus 2 but the launcher started 1 rank (hint: drop "
                  "--gpus, the world size comes from mpirun -np / srun -n)");
}

/* Integer plan flags: a value past 2^31 - 1 was refused as "expects an integer >= 1", as if
 * it were too small; ' 4' passed (strtoll skips leading blanks) where '4 ' was refused. */
static void
test_plan_int_syntax (void)
{
  const char *p = "predict --model llama3-8b --cluster h200-node --gpus 8 --gbs 8 --no-db";
  g_autofree char *big = g_strdup_printf ("%s --tp 9223372036854775807", p);
  g_autofree char *huge = g_strdup_printf ("%s --pp 99999999999999999999999", p);
  g_autofree char *lead = g_strdup_printf ("%s --tp={SP}4", p);
  assert_empty_refused (big, "--tp 9223372036854775807 is too large: it takes integers from 1 "
                             "to 2147483647");
  assert_empty_refused (huge, "--pp 99999999999999999999999 is too large");
  assert_empty_refused (lead, "--tp expects an integer >= 1, got ' 4'");
}

/* Two contradictions and one editor's habit:
 *  - `search --sequence-parallel --no-sequence-parallel` (and the TP-comm overlap pair)
 *    silently searched both values, where each flag of the pair fixes one: exit 2;
 *  - a TorchTitan .toml that starts with a UTF-8 byte-order mark (EF BB BF, as Windows
 *    editors save) was refused as ":1: expected a key"; the mark is skipped, so the file
 *    below reads as tp 2 (8 GPUs / tp 2 = dp 4 in the plan string). */
static void
test_contradictions_and_bom (void)
{
  const char *s = "search --model llama3-8b --cluster h200-node --gpus 8 --gbs 8 --no-db";
  g_autofree char *sp = g_strdup_printf ("%s --sequence-parallel --no-sequence-parallel", s);
  g_autofree char *tpo = g_strdup_printf ("%s --no-tp-comm-overlap --tp-comm-overlap", s);
  assert_empty_refused (sp, "--sequence-parallel and --no-sequence-parallel contradict");
  assert_empty_refused (tpo, "--tp-comm-overlap and --no-tp-comm-overlap contradict");

  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tandem-limits-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *toml = g_build_filename (dir, "bom.toml", NULL);
  const char text[] = "\xef\xbb\xbf[parallelism]\ntensor_parallel_degree = 2\n";
  g_assert_true (g_file_set_contents (toml, text, sizeof text - 1, NULL));
  g_autofree char *args = g_strdup_printf ("predict --model llama3-8b --cluster h200-node "
                                           "--gpus 8 --gbs 8 --no-db --plan %s", toml);
  RunResult r = { 0 };
  run_tandem_words (args, NULL, NULL, &r);
  if (r.status != 0 || strstr (r.out, "tp2-cp1-pp1-vpp1-dp4-") == NULL)
    g_error ("tandem %s: status %d\nstdout: %s\nstderr: %s", args, r.status, r.out, r.err);
  run_result_clear (&r);
  g_unlink (toml);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/limits/json-ordinary", test_json_ordinary);
  g_test_add_func ("/cli/limits/model-caps", test_model_caps);
  g_test_add_func ("/cli/limits/plan-caps", test_plan_caps);
  g_test_add_func ("/cli/limits/plan-at-caps", test_plan_at_caps);
  g_test_add_func ("/cli/limits/calibrate-out-full", test_calibrate_out_full);
  g_test_add_func ("/cli/limits/decimal-only", test_decimal_only);
  g_test_add_func ("/cli/limits/nccl-import", test_nccl_import);
  g_test_add_func ("/cli/limits/csv-not-utf8", test_csv_not_utf8);
  g_test_add_func ("/cli/limits/csv-absurd-cells", test_csv_absurd_cells);
  g_test_add_func ("/cli/limits/cluster-ranges", test_cluster_ranges);
  g_test_add_func ("/cli/limits/deep-json", test_deep_json);
  g_test_add_func ("/cli/limits/endless-files", test_endless_files);
  g_test_add_func ("/cli/limits/empty-values", test_empty_values);
  g_test_add_func ("/cli/limits/batch-hint", test_batch_hint);
  g_test_add_func ("/cli/limits/run-id-range", test_run_id_range);
  g_test_add_func ("/cli/limits/runs-show-csv", test_runs_show_csv);
  g_test_add_func ("/cli/limits/model-field-slip", test_model_field_slip);
  g_test_add_func ("/cli/limits/cp-odd-sequence", test_cp_odd_sequence);
  g_test_add_func ("/cli/limits/validate-selects-nothing", test_validate_selects_nothing);
  g_test_add_func ("/cli/limits/plan-reshard-value", test_plan_reshard_value);
  g_test_add_func ("/cli/limits/run-world-hint", test_run_world_hint);
  g_test_add_func ("/cli/limits/plan-int-syntax", test_plan_int_syntax);
  g_test_add_func ("/cli/limits/contradictions-and-bom", test_contradictions_and_bom);
  return g_test_run ();
}
