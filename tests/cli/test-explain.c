/* tests/cli/test-explain.c - outputs that explain themselves (issue 14 items 3 and 4): the
 * glossary, predict's aligned tables with the ep row, memory --all-stages, what would fit
 * when a plan does not, and a plain `predict --model M` pointing to `tandem search`.
 * TANDEM_EXE (set by tests/cli/meson.build) is the binary under test. */
#include <glib.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "cli-run.h"

/* One error line on stderr, "tandem: error: ..." with a hint. */
static void
assert_one_error_line (const char *err, const char *needle)
{
  g_assert_true (g_str_has_prefix (err, "tandem: error: "));
  g_assert_nonnull (strstr (err, needle));
  g_assert_cmpint (strchr (err, '\n') - err + 1, ==, (gint64) strlen (err));
}

/* The glossary defines every term the memory table and predict print, each with a source;
 * one term alone; a slip gets a did-you-mean and exit 2. */
static void
test_glossary (void)
{
  RunResult r = { 0 };
  run_tandem ("show glossary --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonArray *a = json_node_get_array (root);
  g_autoptr (GHashTable) terms = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonObject *e = json_array_get_object_element (a, i);
      g_assert_cmpuint (strlen (json_object_get_string_member (e, "meaning")), >, 20);
      g_assert_cmpuint (strlen (json_object_get_string_member (e, "source")), >, 5);
      g_hash_table_add (terms, (gpointer) json_object_get_string_member (e, "term"));
    }
  /* the memory table's headers and predict's terms, as printed */
  const char *used[] = { "in-flight", "params", "grads", "optimizer", "activations",
                         "comm_buffers", "reserve", "MFU", "HFU", "pipeline bubble",
                         "exposed", "busy", "overlap", "tp", "cp", "ep", "pp", "dp",
                         "busbw", "algbw", "oversub", "bw/dir/device", "spread",
                         /* plan show's expert side, show model's active parameters,
                          * validate's and run's error columns, report scaling's S and E,
                          * calibrate's columns */
                         "etp", "edp", "active", "err_%", "MAPE", "speed-up", "efficiency",
                         "%peak", "#wrong" };
  for (guint i = 0; i < G_N_ELEMENTS (used); i++)
    if (!g_hash_table_contains (terms, used[i]))
      g_error ("glossary lacks '%s'", used[i]);
  run_result_clear (&r);

  run_tandem ("show glossary hfu", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "HFU  (predict"));
  g_assert_nonnull (strstr (r.out, "source: "));
  g_assert_null (strstr (r.out, "MFU  ("));
  run_result_clear (&r);

  /* the names the tables print a term under: run's and search's "bubble", search's
   * "exp tp", the sharding values */
  static const struct { const char *alias, *entry; } aliases[] = {
    { "bubble", "pipeline bubble  (" }, { "exp", "exposed  (" },
    { "zero3", "ZeRO / sharding  (" }, { "Sharding", "ZeRO / sharding  (" },
    { "sp", "sequence parallel  (" }, { "mbs", "micro-batch  (" } };
  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    {
      g_autofree char *args = g_strdup_printf ("show glossary %s", aliases[i].alias);
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, aliases[i].entry));
      run_result_clear (&r);
    }

  run_tandem ("show glossary exposd", &r);
  g_assert_cmpint (r.status, ==, 2);
  assert_one_error_line (r.err, "did you mean 'exposed'?");
  run_result_clear (&r);

  /* --help points to it */
  run_tandem ("--help", &r);
  g_assert_nonnull (strstr (r.out, "tandem show glossary"));
  run_result_clear (&r);
}

/* Column of the first character of `word` in the line of `text` that starts with
 * `prefix`. */
static gssize
column_in_line (const char *text, const char *prefix, const char *word)
{
  const char *line = strstr (text, prefix);
  g_assert_nonnull (line);
  const char *end = strchr (line, '\n');
  const char *w = g_strstr_len (line, end - line, word);
  g_assert_nonnull (w);
  return w - line;
}

/* predict's communication table: the five kinds of the JSON (docs/contracts.md), ep
 * with 0 for a dense model, and the busy and exposed figures right-aligned under their
 * headers (each row's numbers end where "busy s" and "exposed s" end). */
static void
test_predict_tables (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-8b --cluster h100-24k --gpus 16 --tp 8 --pp 2 "
              "--gbs 16 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  gssize busy_end = column_in_line (r.out, "  communication per stage", "busy s") + 6;
  gssize exp_end = column_in_line (r.out, "  communication per stage", "exposed s") + 9;
  const char *kinds[] = { "    tp ", "    cp ", "    ep ", "    pp ", "    dp " };
  const char *prev = r.out;
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      const char *line = strstr (r.out, kinds[i]);
      g_assert_nonnull (line);
      g_assert_true (line > prev);   /* in the JSON's order */
      prev = line;
      /* the exposed figure ends where its header ends, the busy one likewise */
      g_assert_cmpint ((gssize) strlen (line) - (gssize) strlen (strchr (line, '\n')), ==,
                       exp_end);
      g_assert_cmpint (strstr (line, ".") - line + 5, ==, busy_end);
    }
  /* a dense model moves nothing over ep */
  g_assert_nonnull (strstr (r.out, "    ep                     0.0000     0.0000"));
  run_result_clear (&r);
}

/* --all-stages prints one row per pipeline stage (16 for pp 16); without it a long
 * pipeline prints the first two, the peak (stage 1 here) and the last two, and says how
 * many it left out: 16 - 4 = 12. */
static void
test_memory_all_stages (void)
{
  const char *plan = "memory --model llama3-405b --cluster h100-24k --tp 8 --pp 16 "
                     "--gpus 16384 --gbs 2048 --sequence-parallel --use-distributed-optimizer "
                     "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 7";
  for (int all = 0; all < 2; all++)
    {
      RunResult r = { 0 };
      g_autofree char *args = g_strdup_printf ("%s%s", plan, all ? " --all-stages" : "");
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 3);     /* stage 1: 83.66 GiB of 80 GiB */
      int rows = 0;
      g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
      for (guint i = 0; lines[i]; i++)
        {
          /* a stage row: starts with its number, ends with its verdict */
          g_autofree char *l = g_strstrip (g_strdup (lines[i]));
          if (g_ascii_isdigit (l[0]) && (g_str_has_suffix (l, " fits")
                                         || g_str_has_suffix (l, " OOM")))
            rows++;
        }
      g_assert_cmpint (rows, ==, all ? 16 : 4);
      if (all)
        g_assert_null (strstr (r.out, "stages (--all-stages shows them)"));
      else
        g_assert_nonnull (strstr (r.out, "... 12 stages (--all-stages shows them)"));
      run_result_clear (&r);
    }
}

/* tandem memory takes --framework as tandem predict does (predict's out-of-memory hint
 * sends the user to "tandem memory with the same flags"; before, memory refused the
 * option). Llama 3 70B, TP8, 64 GPUs, ZeRO-2. At pp 1 (dp 8) each GPU holds 70.6B / 8 =
 * 8.82B parameters, 17,640,734,720 bf16 bytes, and both stacks keep the fp32 gradients
 * sharded over dp: 4 B x 8.82B / 8 = params x 2 / 8 (torchtitan's train_step syncs each
 * micro-batch without a pipeline). At pp 2 (dp 4) Megatron-Core's stay sharded, 4 B / 4 =
 * params x 4 / 8, and TorchTitan's FSDP2 under torch.distributed.pipelining keeps them
 * unsharded through the step (its stack's zero2_grad_sync, frameworks/): params x 2. The
 * memory command's peak is then the one predict prints for the same flags. */
static void
test_memory_framework (void)
{
  static const struct { const char *stack; int pp; gint64 params, grads_per_param_bytes_x8; }
  cases[] = {
    { "megatron-core", 1, 17640734720, 2 },      /* grads = params x 2 / 8 */
    { "torchtitan", 1, 17640734720, 2 },
    { "megatron-core", 2, -1, 4 },               /* grads = params x 4 / 8 */
    { "torchtitan", 2, -1, 16 },                 /* grads = params x 2 */
  };
  const char *plan = "--model llama3-70b --cluster h100-24k --gpus 64 --tp 8 --gbs 64 "
                     "--seq-length 8192 --sharding zero2";
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RunResult m = { 0 }, p = { 0 };
      g_autofree char *ma = g_strdup_printf ("memory %s --pp %d --framework %s --json", plan,
                                             cases[i].pp, cases[i].stack);
      g_autofree char *pa = g_strdup_printf ("predict %s --pp %d --framework %s --json --no-db",
                                             plan, cases[i].pp, cases[i].stack);
      run_tandem (ma, &m);
      run_tandem (pa, &p);
      g_assert_cmpint (m.status, ==, 3);       /* neither fits in 80 GiB */
      g_assert_cmpint (p.status, ==, 3);
      g_autoptr (JsonNode) mj = run_parse_json (m.out);
      g_autoptr (JsonNode) pj = run_parse_json (p.out);
      JsonObject *mo = json_node_get_object (mj);
      JsonObject *cat = json_object_get_object_member (json_array_get_object_element (
        json_object_get_array_member (mo, "stages"), 0), "categories");
      gint64 params = json_object_get_int_member (cat, "params");
      gint64 grads = json_object_get_int_member (cat, "grads");
      if (cases[i].params > 0)
        g_assert_cmpint (params, ==, cases[i].params);
      g_assert_cmpint (grads * 8, ==, params * cases[i].grads_per_param_bytes_x8);
      g_assert_cmpint (json_object_get_int_member (mo, "peak_bytes"), ==,
                       json_object_get_int_member (json_object_get_object_member (
                         json_node_get_object (pj), "memory"), "peak_bytes"));
      run_result_clear (&m);
      run_result_clear (&p);
    }
  RunResult r = { 0 };
  run_tandem ("memory --model llama3-8b --gpus 8 --framework torchtitn", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "tandem: error: --framework: unknown framework 'torchtitn' "
                              "(did you mean 'torchtitan'?)\n");
  run_result_clear (&r);
}

/* The order of fit_suggestions (cli/cli-fit.h): the simulated ones (step_time_s not null)
 * first, by step time; then those that fit unsimulated, then those that do not fit, each
 * by peak. */
static int
fit_class (JsonObject *e)
{
  if (!json_object_get_null_member (e, "step_time_s"))
    return 0;
  return json_object_get_boolean_member (e, "fits") ? 1 : 2;
}

static void
assert_fit_order (JsonArray *s)
{
  for (guint i = 1; i < json_array_get_length (s); i++)
    {
      JsonObject *a = json_array_get_object_element (s, i - 1);
      JsonObject *b = json_array_get_object_element (s, i);
      int ca = fit_class (a), cb = fit_class (b);
      g_assert_cmpint (ca, <=, cb);
      if (ca != cb)
        continue;
      if (ca == 0)
        g_assert_cmpfloat (json_object_get_double_member (a, "step_time_s"), <=,
                           json_object_get_double_member (b, "step_time_s"));
      else
        g_assert_cmpint (json_object_get_int_member (a, "peak_bytes"), <=,
                         json_object_get_int_member (b, "peak_bytes"));
    }
}

/* Out of memory: every suggestion is computed, so applying its flags to the same plan
 * gives exactly its peak, and the saving is the difference. One saving by hand: llama3-8b
 * on 8 GPUs without sharding holds Adam's 12 bytes per parameter (ZeRO's K = 12) for all
 * 8,030,261,248 parameters; offloading them also drops their 5% fragmentation reserve:
 * 1.05 x 12 x 8,030,261,248 = 101,181,291,724.8 bytes. */
static void
test_oom_suggestions (void)
{
  const char *plan = "--model llama3-8b --cluster h100-24k --gpus 8 --gbs 8";
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("memory %s --json", plan);
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 3);
  assert_one_error_line (r.err, "fit_suggestions");
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  gint64 peak = json_object_get_int_member (o, "peak_bytes");
  gint64 cap = json_object_get_int_member (o, "capacity_bytes");
  JsonArray *s = json_object_get_array_member (o, "fit_suggestions");
  g_assert_cmpuint (json_array_get_length (s), >=, 5);
  gboolean saw_offload = FALSE, any_fits = FALSE;
  assert_fit_order (s);
  for (guint i = 0; i < json_array_get_length (s); i++)
    {
      JsonObject *e = json_array_get_object_element (s, i);
      const char *flags = json_object_get_string_member (e, "flags");
      gint64 p = json_object_get_int_member (e, "peak_bytes");
      g_assert_cmpint (json_object_get_int_member (e, "saved_bytes"), ==, peak - p);
      g_assert_cmpint (json_object_get_boolean_member (e, "fits"), ==, p <= cap);
      any_fits |= p <= cap;
      if (g_str_equal (flags, "--optimizer-offload"))
        {
          saw_offload = TRUE;
          g_assert_cmpfloat (fabs ((double) json_object_get_int_member (e, "saved_bytes")
                                   - 1.05 * 12 * 8030261248.0), <, 2.0);
        }
      /* the flags, applied, give that peak */
      RunResult q = { 0 };
      g_autofree char *again = g_strdup_printf ("memory %s %s --json", plan, flags);
      run_tandem (again, &q);
      g_autoptr (JsonNode) qr = run_parse_json (q.out);
      g_assert_cmpint (json_object_get_int_member (json_node_get_object (qr), "peak_bytes"),
                       ==, p);
      g_assert_cmpint (q.status, ==, p <= cap ? 0 : 3);
      run_result_clear (&q);
    }
  g_assert_true (saw_offload);
  g_assert_true (any_fits);
  run_result_clear (&r);

  /* predict prints the same table and exits 3; its JSON carries the same list */
  g_autofree char *pargs = g_strdup_printf ("predict %s --no-db", plan);
  run_tandem (pargs, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.out, "what would fit"));
  g_assert_nonnull (strstr (r.out, "--sharding zero3"));
  assert_one_error_line (r.err, "the changes listed above");
  run_result_clear (&r);
}

/* Nothing fits after one change: the 405B on 16,384 GPUs at tp 8 pp 16 without sequence
 * parallelism or sharding (231 GiB on stage 1). The combination listed fits, and its
 * flags reproduce it. */
static void
test_oom_combination (void)
{
  const char *plan = "--model llama3-405b --cluster h100-24k --tp 8 --pp 16 --gpus 16384 "
                     "--gbs 2048 --decoder-first-pipeline-num-layers 7 "
                     "--decoder-last-pipeline-num-layers 7";
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("memory %s --json", plan);
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonArray *s = json_object_get_array_member (json_node_get_object (root), "fit_suggestions");
  JsonObject *first = json_array_get_object_element (s, 0);
  g_assert_true (json_object_get_boolean_member (first, "fits"));
  g_assert_true (g_str_has_prefix (json_object_get_string_member (first, "what"), "together: "));
  for (guint i = 1; i < json_array_get_length (s); i++)
    g_assert_false (json_object_get_boolean_member (json_array_get_object_element (s, i),
                                                    "fits"));
  RunResult q = { 0 };
  g_autofree char *again = g_strdup_printf ("memory %s %s --json", plan,
                                            json_object_get_string_member (first, "flags"));
  run_tandem (again, &q);
  g_assert_cmpint (q.status, ==, 0);
  g_autoptr (JsonNode) qr = run_parse_json (q.out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (qr), "peak_bytes"), ==,
                   json_object_get_int_member (first, "peak_bytes"));
  run_result_clear (&q);
  run_result_clear (&r);
}

/* The suggestions' JSON of `memory PLAN --json` (exit 3), and each simulated one checked
 * against `predict PLAN FLAGS`: the step time shown is that prediction's, to the bit. */
static JsonNode *
fit_suggestions_checked (const char *plan)
{
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("memory %s --json", plan);
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 3);
  JsonNode *root = run_parse_json (r.out);
  run_result_clear (&r);
  JsonArray *s = json_object_get_array_member (json_node_get_object (root), "fit_suggestions");
  assert_fit_order (s);
  for (guint i = 0; i < json_array_get_length (s); i++)
    {
      JsonObject *e = json_array_get_object_element (s, i);
      if (fit_class (e) != 0)
        continue;
      g_autofree char *p = g_strdup_printf ("predict %s %s --no-db --json", plan,
                                            json_object_get_string_member (e, "flags"));
      run_tandem (p, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonNode) pr = run_parse_json (r.out);
      JsonObject *po = json_node_get_object (pr);
      g_assert_cmpfloat (json_object_get_double_member (po, "step_time_s"), ==,
                         json_object_get_double_member (e, "step_time_s"));
      g_assert_cmpfloat (json_object_get_double_member (po, "tokens_per_s"), ==,
                         json_object_get_double_member (e, "tokens_per_s"));
      run_result_clear (&r);
    }
  return root;
}

/* Suggestion `e` of `memory PLAN --json`, its flags pasted after PLAN: memory gives its
 * peak and its verdict (exit 0 where it fits, 3 where not). */
static void
assert_suggestion_memory (const char *plan, JsonObject *e)
{
  RunResult r = { 0 };
  const char *flags = json_object_get_string_member (e, "flags");
  g_autofree char *m = g_strdup_printf ("memory %s %s --json", plan, flags);
  run_tandem (m, &r);
  gboolean fits = json_object_get_boolean_member (e, "fits");
  if (r.status != (fits ? 0 : 3))
    g_error ("%s, %s: exit %d, the suggestion says %s\n%s", plan, flags, r.status,
             fits ? "fits" : "does not fit", r.err);
  g_autoptr (JsonNode) mr = run_parse_json (r.out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (mr), "peak_bytes"), ==,
                   json_object_get_int_member (e, "peak_bytes"));
  run_result_clear (&r);
}

/* Without --gbs the batch is derived (mbs x dp = 8 on 8 GPUs): a suggestion that changes
 * dp keeps the 8 it was costed with and says so, since pasted alone "--pp 2" derives gbs
 * 4 again (audit of 6 Dec: 108.04 GiB suggested, 94.41 GiB pasted). Each reproduces
 * memory's peak and predict's step pasted after the plan. */
static void
test_fit_derived_batch (void)
{
  const char *plan = "--model llama3-8b --cluster h100-24k --gpus 8 --seq-length 8192";
  g_autoptr (JsonNode) root = fit_suggestions_checked (plan);
  JsonArray *s = json_object_get_array_member (json_node_get_object (root), "fit_suggestions");
  gboolean pp = FALSE;
  for (guint i = 0; i < json_array_get_length (s); i++)
    {
      JsonObject *e = json_array_get_object_element (s, i);
      assert_suggestion_memory (plan, e);
      const char *flags = json_object_get_string_member (e, "flags");
      if (g_str_equal (flags, "--pp 2 --global-batch-size 8"))
        pp = TRUE;
      /* a change that keeps dp needs no batch */
      if (g_str_has_prefix (flags, "--sharding") || g_str_has_prefix (flags, "--recompute"))
        g_assert_null (strstr (flags, "--global-batch-size"));
    }
  g_assert_true (pp);
}

/* The suggestions under each stack are plans that stack runs, costed as it runs them
 * (audit of 6 Dec): every one, pasted after the plan, gives memory's peak and verdict and
 * (simulated) predict's step. They had ignored the stack: the distributed optimizer under
 * torchtitan and pp 2 under pytorch-fsdp were suggested and then refused (exit 2),
 * megatron-lm-2021's only fitting suggestion was a ZeRO-3 it does not offer, maxtext's pp
 * 2 was costed as 1F1B (108 GiB; GPipe holds 249), and under deepspeed with cp 2 every
 * change failed, so none was listed ("no change lowers the peak"). The group ZeRO shards
 * over after a cp change is the new one: dp x cp = 16 on 16 GPUs (it said 32). */
static void
test_fit_follows_stack (void)
{
  static const char *const stacks[] = { "megatron-lm-2021", "maxtext", "torchtitan",
                                        "pytorch-fsdp", "hai-llm", "deepspeed --cp 2" };
  for (guint k = 0; k < G_N_ELEMENTS (stacks); k++)
    {
      g_autofree char *plan = g_strdup_printf ("--model llama3-8b --cluster a100-40g-cluster "
                                               "--gpus 16 --gbs 64 --seq-length 8192 "
                                               "--framework %s", stacks[k]);
      /* the simulated ones' steps checked against predict by fit_suggestions_checked */
      g_autoptr (JsonNode) root = fit_suggestions_checked (plan);
      JsonArray *s = json_object_get_array_member (json_node_get_object (root),
                                                   "fit_suggestions");
      if (json_array_get_length (s) == 0)
        g_error ("%s: no suggestion", stacks[k]);
      for (guint i = 0; i < json_array_get_length (s); i++)
        assert_suggestion_memory (plan, json_array_get_object_element (s, i));
    }
  RunResult t = { 0 };
  run_tandem ("memory --model llama3-8b --cluster a100-40g-cluster --gpus 16 --gbs 64 "
              "--seq-length 8192", &t);
  g_assert_cmpint (t.status, ==, 3);
  g_assert_nonnull (strstr (t.out, "over dp x cp = 16 (ZeRO-3 / FSDP)"));
  g_assert_null (strstr (t.out, "dp x cp = 32"));
  run_result_clear (&t);
  /* in a combination too: the degrees change first, then ZeRO's group is read (tp 4 x cp
   * 2 on 64 GPUs leaves dp x cp = 16; it said "dp 32", the group before the changes) */
  run_tandem ("predict --model mixtral-8x22b --cluster dgx-h100-superpod --gpus 64 --ep 8 "
              "--tp 2 --sp --gbs 128 --seq 4096 --overlap-moe-expert-parallel-comm --no-db", &t);
  g_assert_cmpint (t.status, ==, 3);
  g_assert_nonnull (strstr (t.out, "--tp 4 --cp 2 --sharding zero2"));
  g_assert_nonnull (strstr (t.out, "gradients over dp x cp = 16 (ZeRO-2)"));
  run_result_clear (&t);
}

/* Every suggestion's flags, pasted after the plan, are the plan the suggestion
 * evaluated: the same peak and verdict from `memory`. Mixtral 8x7B on 8 H100 at ep 8
 * without --etp: the resolved expert TP is 1; "--tp 2" alone would make it 2 (Megatron's
 * default etp = tp), 2 x 8 = 16 expert ranks on a stage of 8, refused (exit 2), where the
 * suggestion had evaluated etp 1 at 153.81 GiB. Its flags now carry
 * --expert-tensor-parallel-size 1. */
static void
test_fit_flags_reproduce_moe (void)
{
  const char *plan = "--model mixtral-8x7b --cluster dgx-h100-superpod --gpus 8 --ep 8 "
                     "--gbs 8";
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("memory %s --json", plan);
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  run_result_clear (&r);
  JsonArray *s = json_object_get_array_member (json_node_get_object (root), "fit_suggestions");
  gboolean saw_tp = FALSE;
  for (guint i = 0; i < json_array_get_length (s); i++)
    {
      JsonObject *e = json_array_get_object_element (s, i);
      const char *flags = json_object_get_string_member (e, "flags");
      if (strstr (flags, "--tp 2") != NULL)
        {
          saw_tp = TRUE;
          g_assert_nonnull (strstr (flags, "--expert-tensor-parallel-size 1"));
        }
      assert_suggestion_memory (plan, e);
    }
  g_assert_true (saw_tp);
}

/* The stage-0 category `cat` of `memory PLAN EXTRA --json`. */
static gint64
memory_category (const char *plan, const char *extra, const char *cat)
{
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("memory %s %s --json", plan, extra);
  run_tandem (args, &r);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonObject *st = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (root), "stages"), 0);
  gint64 v = json_object_get_int_member (json_object_get_object_member (st, "categories"), cat);
  run_result_clear (&r);
  return v;
}

/* Ordered by simulated step time: llama3-8b on 8 GPUs at tp 2, mbs 2, ZeRO-1 needs
 * 85.3 GiB; nine single changes fit. The order is the simulated times' (checked against
 * predict above): sequence parallelism, which only re-splits the TP collectives, is the
 * fastest fit; full recompute, which adds a whole forward, the slowest. Offload fits but
 * its host optimizer step is not in the step program: listed after every simulated one,
 * without a time. By hand: ZeRO-2 shards the fp32 gradients over dp 8 / tp 2 = 4, so
 * exactly 3/4 of the gradient bytes go. */
static void
test_fit_by_step_time (void)
{
  const char *plan = "--model llama3-8b --cluster h100-24k --gpus 8 --gbs 16 --tp 2 --mbs 2 "
                     "--use-distributed-optimizer";
  g_autoptr (JsonNode) root = fit_suggestions_checked (plan);
  JsonArray *s = json_object_get_array_member (json_node_get_object (root), "fit_suggestions");
  guint n = json_array_get_length (s), simulated = 0, last_sim = 0;
  gboolean saw_offload = FALSE;
  for (guint i = 0; i < n; i++)
    {
      JsonObject *e = json_array_get_object_element (s, i);
      const char *flags = json_object_get_string_member (e, "flags");
      if (fit_class (e) == 0)
        simulated++, last_sim = i;
      if (g_str_equal (flags, "--optimizer-offload"))
        {
          saw_offload = TRUE;
          g_assert_true (json_object_get_boolean_member (e, "fits"));
          g_assert_cmpint (fit_class (e), ==, 1);
          g_assert_nonnull (strstr (json_object_get_string_member (e, "what"),
                                    "step time not modelled"));
        }
    }
  g_assert_true (saw_offload);
  g_assert_cmpuint (simulated, ==, 8);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (s, 0),
                                                  "flags"), ==, "--sequence-parallel");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (s, last_sim),
                                                  "flags"), ==,
                   "--recompute-granularity full");
  gint64 g0 = memory_category (plan, "", "grads");
  gint64 g2 = memory_category (plan, "--sharding zero2", "grads");
  g_assert_cmpint (g0 - g2, ==, g0 / 4 * 3);

  /* the text shows the times next to the memory saved */
  RunResult r = { 0 };
  g_autofree char *args = g_strdup_printf ("memory %s", plan);
  run_tandem (args, &r);
  g_assert_nonnull (strstr (r.out, "saves  verdict  step s  tokens/s  what it does"));
  run_result_clear (&r);
}

/* Expert parallelism for a MoE plan: Mixtral 8x7B on 16 GPUs at tp 2 (expert tp 2 by
 * Megatron's default), ZeRO-1, ep 1 needs 191 GiB. The suggestions include ep 2 (doubled),
 * ep 8 (the largest: it divides the 8 experts and the tp x dp / etp = 16 / 2 = 8 expert
 * ranks) and expert tp 4. By hand, one routed expert is 3 x 4096 x 14336 = 176,160,768
 * elements; per rank at etp 2 the 8 experts of the 32 layers are 8 x 176,160,768 x 32 / 2
 * = 22,548,578,304 elements, at ep 2 half of that. So ep 2 saves 11,274,289,152 elements:
 * 22,548,578,304 bytes of bf16 parameters and 45,097,156,608 of fp32 gradients; the
 * optimizer states (12 B) shard over the expert data-parallel group, edp = 16 / (2 x 1)
 * = 8 before and 16 / (2 x 2) = 4 after, so 12 x 22,548,578,304 / 8 = 12 x 11,274,289,152
 * / 4: no change. ep 8 fits and, simulated, is the fastest fit (ZeRO-3, the other one,
 * gathers every parameter twice a step). */
static void
test_fit_expert_parallel (void)
{
  const char *plan = "--model mixtral-8x7b --cluster h100-24k --gpus 16 --tp 2 "
                     "--sequence-parallel --use-distributed-optimizer --gbs 16 "
                     "--seq-length 4096";
  g_autoptr (JsonNode) root = fit_suggestions_checked (plan);
  JsonArray *s = json_object_get_array_member (json_node_get_object (root), "fit_suggestions");
  gboolean ep2 = FALSE, ep8 = FALSE, etp4 = FALSE;
  for (guint i = 0; i < json_array_get_length (s); i++)
    {
      const char *flags = json_object_get_string_member (json_array_get_object_element (s, i),
                                                         "flags");
      ep2 |= g_str_equal (flags, "--expert-model-parallel-size 2");
      ep8 |= g_str_equal (flags, "--expert-model-parallel-size 8");
      etp4 |= g_str_equal (flags, "--expert-tensor-parallel-size 4");
    }
  g_assert_true (ep2 && ep8 && etp4);
  JsonObject *first = json_array_get_object_element (s, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "flags"), ==,
                   "--expert-model-parallel-size 8");
  g_assert_true (json_object_get_boolean_member (first, "fits"));
  const char *ep = "--expert-model-parallel-size 2";
  g_assert_cmpint (memory_category (plan, "", "params") - memory_category (plan, ep, "params"),
                   ==, 22548578304);
  g_assert_cmpint (memory_category (plan, "", "grads") - memory_category (plan, ep, "grads"),
                   ==, 45097156608);
  g_assert_cmpint (memory_category (plan, "", "optimizer"), ==,
                   memory_category (plan, ep, "optimizer"));
}

/* A plain `predict --model M` on a multi-server cluster is refused with the search to run
 * instead. The size: the smallest power of two >= a server (8) over which 16 bytes per
 * parameter take at most half of 80 GiB (42,949,672,960 B): llama3-8b, 128.5 GB / 8 =
 * 16.1 GB -> 8 GPUs; llama3-405b, 6,493.7 GB / 128 = 50.7 GB > 42.9, / 256 = 25.4 GB ->
 * 256 GPUs; the batch 8 sequences per GPU. The suggested search runs and finds a plan. */
static void
test_plain_predict (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-405b --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  assert_one_error_line (r.err, "hint: tandem search --model llama3-405b --cluster h100-24k "
                         "--gpus 256 --gbs 2048");
  g_assert_cmpstr (r.out, ==, "");
  run_result_clear (&r);

  run_tandem ("predict --model llama3-8b --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  assert_one_error_line (r.err, "all 24,576 GPUs of h100-24k");
  const char *cmd = strstr (r.err, "tandem search ");
  g_assert_nonnull (cmd);
  g_autofree char *search = g_strndup (cmd + strlen ("tandem "),
                                       strstr (cmd, " ranks") - cmd - strlen ("tandem "));
  g_assert_cmpstr (search, ==, "search --model llama3-8b --cluster h100-24k --gpus 8 --gbs 64");
  run_result_clear (&r);

  /* the hint's search works: a plan that fits, printed as predict flags */
  g_autofree char *top = g_strdup_printf ("%s --top 1 --json", search);
  run_tandem (top, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);

  /* any plan flag, or a one-server cluster, predicts as before */
  run_tandem ("predict --model llama3-8b --gpus 8 --sharding zero2 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  run_tandem ("predict --model llama3-8b --cluster h200-node --sharding zero3 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
}

/* The predicted trace's memory counters ("C" events, one track per stage): a
 * (micro-batch, chunk) holds its stage's activations / in-flight from its first forward
 * to the end of its last backward, so the simulated schedule's peak must be the memory
 * model's: the maximum of "activations" and "total" on each stage equals `tandem memory`'s
 * figures for that stage (to the 0.001 GiB the trace prints), for 1F1B (stage s holds
 * pp - s micro-batches), interleaved 1F1B and GPipe (all m). The step starts and ends with
 * no activations held. */
static void
test_trace_memory (void)
{
  /* (GPipe under torchtitan: Megatron-Core has no GPipe schedule, its preset's "offers") */
  const char *schedules[] = { "", "--vpp 2", "--schedule GPipe --framework torchtitan" };
  g_autofree char *dir = g_dir_make_tmp ("tandem-explain-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "t.json", NULL);
  for (guint k = 0; k < G_N_ELEMENTS (schedules); k++)
    {
      const char *plan = "--model llama3-8b --gpus 32 --tp 8 --pp 4 --gbs 16";
      RunResult r = { 0 };
      g_autofree char *margs = g_strdup_printf ("memory %s %s --json", plan, schedules[k]);
      run_tandem (margs, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonNode) mem = run_parse_json (r.out);
      JsonArray *stages = json_object_get_array_member (json_node_get_object (mem), "stages");
      run_result_clear (&r);
      g_autofree char *pargs = g_strdup_printf ("predict %s %s --no-db --trace %s", plan,
                                                schedules[k], trace);
      run_tandem (pargs, &r);
      g_assert_cmpint (r.status, ==, 0);
      run_result_clear (&r);
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (trace, &text, NULL, NULL));
      g_autoptr (JsonNode) root = run_parse_json (text);
      JsonArray *ev = json_object_get_array_member (json_node_get_object (root), "traceEvents");
      /* rank of stage s: tp 8 innermost, then pp (rank order tp-cp-ep-dp-pp, dp 1): 8 s */
      for (guint s = 0; s < json_array_get_length (stages); s++)
        {
          JsonObject *st = json_array_get_object_element (stages, s);
          double want_act = json_object_get_int_member (json_object_get_object_member (st,
                                                        "categories"), "activations");
          double want_total = json_object_get_int_member (st, "total_bytes");
          double max_act = -1, max_total = -1, first_act = -1, last_act = -1, last_ts = -1;
          int n = 0;
          for (guint i = 0; i < json_array_get_length (ev); i++)
            {
              JsonObject *e = json_array_get_object_element (ev, i);
              if (!g_str_equal (json_object_get_string_member (e, "ph"), "C")
                  || json_object_get_int_member (e, "pid") != 8 * (gint64) s)
                continue;
              JsonObject *a = json_object_get_object_member (e, "args");
              double act = json_object_get_double_member (a, "activations");
              double ts = json_object_get_double_member (e, "ts");
              g_assert_cmpfloat (ts, >=, last_ts);
              if (n++ == 0)
                {
                  first_act = act;
                  g_assert_cmpfloat (ts, ==, 0.0);
                }
              last_act = act, last_ts = ts;
              max_act = MAX (max_act, act);
              max_total = MAX (max_total, json_object_get_double_member (a, "total"));
            }
          g_assert_cmpint (n, >, 2);
          g_assert_cmpfloat (first_act, ==, 0.0);
          g_assert_cmpfloat (last_act, ==, 0.0);
          g_assert_cmpfloat_with_epsilon (max_act, want_act / 1073741824.0, 0.0011);
          g_assert_cmpfloat_with_epsilon (max_total, want_total / 1073741824.0, 0.0011);
        }
    }
  g_unlink (trace);
  g_rmdir (dir);
}

/* tandem run's measurement hygiene, end to end: with the load average file saying 99
 * before the run (TANDEM_LOADAVG_FILE) and no count of the run's own wait (a
 * TANDEM_SCHEDSTAT_FILE that does not change: share unknown, so the load average
 * decides), the step time is flagged as taken under load, in
 * the JSON (spread.trustworthy false, the reason) and as one warning line on stderr; the
 * prediction names the profile it used: the --cluster file's, with its source. */
static void
test_run_hygiene (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tandem-hygiene-XXXXXX", NULL);
  g_autofree char *load = g_build_filename (dir, "loadavg", NULL);
  g_autofree char *prof = g_build_filename (dir, "prof.json", NULL);
  g_assert_true (g_file_set_contents (load, "99.00 50.00 20.00 3/500 1234\n", -1, NULL));
  g_autofree char *nccl = g_test_build_filename (G_TEST_DIST, "data", "calibrate",
                                                 "all_reduce_perf-8xh100.txt", NULL);
  RunResult r = { 0 };
  g_autofree char *cal = g_strdup_printf ("calibrate --no-bench --import-nccl-tests %s "
                                          "--cluster cpu-host --out %s --no-db", nccl, prof);
  run_tandem (cal, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);

  g_autofree char *sched = g_build_filename (dir, "schedstat", NULL);
  g_assert_true (g_file_set_contents (sched, "1000000000 0 10\n", -1, NULL));
  g_setenv ("TANDEM_LOADAVG_FILE", load, TRUE);   /* inherited by the child */
  g_setenv ("TANDEM_SCHEDSTAT_FILE", sched, TRUE);
  g_autofree char *args = g_strdup_printf ("run --steps 2 --no-db --json --cluster %s", prof);
  run_tandem (args, &r);
  g_unsetenv ("TANDEM_LOADAVG_FILE");
  g_unsetenv ("TANDEM_SCHEDSTAT_FILE");
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  JsonObject *sp = json_object_get_object_member (json_object_get_object_member (o, "measured"),
                                                  "spread");
  g_assert_cmpint (json_object_get_int_member (sp, "repetitions"), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (sp, "load_avg_1m"), ==, 99.0);
  g_assert_false (json_object_get_boolean_member (sp, "trustworthy"));
  g_assert_cmpfloat (json_object_get_double_member (sp, "min_s"), <=,
                     json_object_get_double_member (sp, "max_s"));
  g_assert_nonnull (strstr (r.err, "tandem: warning: the machine was loaded: load average "
                            "99.00"));
  JsonObject *p = json_object_get_object_member (o, "profile");
  g_assert_true (json_object_get_boolean_member (o, "calibrated"));
  g_assert_cmpstr (json_object_get_string_member (p, "file"), ==, prof);
  g_assert_nonnull (strstr (json_object_get_string_member (p, "source"), "nccl-tests output"));
  run_result_clear (&r);
  g_unlink (load);
  g_unlink (sched);
  g_unlink (prof);
  g_rmdir (dir);
}

/* --plan FILE.toml: a TorchTitan job config predicts like the same plan in flags (tp 8,
 * FSDP over the other 8 of 64 GPUs, full recompute, sequence parallel, local batch 1);
 * TOML outside the subset is one error line with the file's line number and one hint. */
static void
test_plan_toml_cli (void)
{
  g_autofree char *toml = g_test_build_filename (G_TEST_DIST, "data", "plan",
                                                 "llama3-8b-titan.toml", NULL);
  RunResult a = { 0 }, b = { 0 };
  g_autofree char *args = g_strdup_printf ("predict --model llama3-8b --gpus 64 --plan %s "
                                           "--no-db --json", toml);
  run_tandem (args, &a);
  g_assert_cmpint (a.status, ==, 0);
  run_tandem ("predict --model llama3-8b --gpus 64 --tp 8 --sharding zero3 "
              "--recompute-granularity full --sequence-parallel --gbs 8 --seq-length 8192 "
              "--no-db --json", &b);
  g_assert_cmpint (b.status, ==, 0);
  g_autoptr (JsonNode) ja = run_parse_json (a.out);
  g_autoptr (JsonNode) jb = run_parse_json (b.out);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (ja), "step_time_s"),
                     ==, json_object_get_double_member (json_node_get_object (jb),
                                                        "step_time_s"));
  run_result_clear (&a);
  run_result_clear (&b);

  g_autofree char *dir = g_dir_make_tmp ("tandem-toml-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.toml", NULL);
  g_assert_true (g_file_set_contents (bad, "[parallelism]\ntensor_parallel_degree = 8\n"
                                      "[[x]]\n", -1, NULL));
  g_autofree char *bargs = g_strdup_printf ("predict --model llama3-8b --gpus 64 --plan %s "
                                            "--no-db", bad);
  run_tandem (bargs, &a);
  g_assert_cmpint (a.status, ==, 2);
  assert_one_error_line (a.err, "bad.toml:3: arrays of tables");
  g_assert_null (strstr (strstr (a.err, "(hint: ") + 1, "(hint: "));
  run_result_clear (&a);
  g_unlink (bad);
  g_rmdir (dir);
}

/* show model's op table is aligned from its cells: every row ends where the header's
 * last column ("params", right-aligned) ends, and every row's kind starts under "kind"
 * (attn_residual, 13 characters, used to push its row out of line). */
static void
test_show_model_table (void)
{
  const char *models[] = { "llama3-8b", "gpt3-175b" };
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      RunResult r = { 0 };
      g_autofree char *args = g_strdup_printf ("show model %s", models[m]);
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
      guint h = 0;
      while (lines[h] && !g_str_has_prefix (lines[h], "  part "))
        h++;
      g_assert_nonnull (lines[h]);
      gsize end = strlen (lines[h]);
      gsize kind = (gsize) (strstr (lines[h], " kind ") + 1 - lines[h]);
      guint rows = 0;
      for (guint i = h + 1; lines[i] && lines[i][0] != '\0'; i++, rows++)
        {
          g_assert_cmpuint (strlen (lines[i]), ==, end);
          g_assert_true (lines[i][kind - 1] == ' ' && lines[i][kind] != ' ');
        }
      g_assert_cmpuint (rows, >=, 10);
      run_result_clear (&r);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/explain/glossary", test_glossary);
  g_test_add_func ("/cli/explain/predict-tables", test_predict_tables);
  g_test_add_func ("/cli/explain/memory-all-stages", test_memory_all_stages);
  g_test_add_func ("/cli/explain/memory-framework", test_memory_framework);
  g_test_add_func ("/cli/explain/oom-suggestions", test_oom_suggestions);
  g_test_add_func ("/cli/explain/oom-combination", test_oom_combination);
  g_test_add_func ("/cli/explain/fit-by-step-time", test_fit_by_step_time);
  g_test_add_func ("/cli/explain/fit-expert-parallel", test_fit_expert_parallel);
  g_test_add_func ("/cli/explain/fit-flags-reproduce-moe", test_fit_flags_reproduce_moe);
  g_test_add_func ("/cli/explain/plain-predict", test_plain_predict);
  g_test_add_func ("/cli/explain/trace-memory", test_trace_memory);
  g_test_add_func ("/cli/explain/run-hygiene", test_run_hygiene);
  g_test_add_func ("/cli/explain/plan-toml", test_plan_toml_cli);
  g_test_add_func ("/cli/explain/fit-follows-stack", test_fit_follows_stack);
  g_test_add_func ("/cli/explain/fit-derived-batch", test_fit_derived_batch);
  g_test_add_func ("/cli/explain/show-model-table", test_show_model_table);
  return g_test_run ();
}
