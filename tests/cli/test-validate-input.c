/* tests/cli/test-validate-input.c - issue 13 items 5-6 as a user meets them: validate's
 * input refused with a reason (a CSV without a column every row needs), --ranking in the
 * JSON as in the text.
 * TANDEM_EXE (set by tests/cli/meson.build) is the binary under test; "{DATA}" in the
 * arguments is tests/data, "{SRC}" the source root and "{TMP}" a temporary directory. */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "cli-run.h"

/* --ranking --json carries what --ranking prints: the same five counts as the text's
 * line "N groups, P pairs, O ordered as measured (...); measured more than 5% apart: W
 * pairs, V ordered", and one entry per "out of order" line. Before, --json dropped the
 * ranking silently. */
static void
test_ranking_json (void)
{
  RunResult t = { 0 }, j = { 0 };
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --ranking", &t);
  g_assert_cmpint (t.status, ==, 0);
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --ranking --json", &j);
  g_assert_cmpint (j.status, ==, 0);
  const char *line = strstr (t.out, "\nranking (");
  g_assert_nonnull (line);
  line = strchr (line + 1, '\n') + 1;
  guint groups, pairs, ordered, wide, wide_ordered;
  g_assert_cmpint (sscanf (line, " %u groups, %u pairs, %u ordered as measured (%*[^)]); "
                           "measured more than 5%% apart: %u pairs, %u ordered", &groups,
                           &pairs, &ordered, &wide, &wide_ordered), ==, 5);
  guint out_of_order = 0;
  for (const char *p = strstr (line, "  out of order: "); p != NULL;
       p = strstr (p + 1, "  out of order: "))
    out_of_order++;

  g_autoptr (JsonNode) root = run_parse_json (j.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_true (json_object_has_member (o, "ranking"));
  JsonObject *rk = json_object_get_object_member (o, "ranking");
  g_assert_cmpint (json_object_get_int_member (rk, "groups"), ==, groups);
  g_assert_cmpint (json_object_get_int_member (rk, "pairs"), ==, pairs);
  g_assert_cmpint (json_object_get_int_member (rk, "ordered"), ==, ordered);
  g_assert_cmpint (json_object_get_int_member (rk, "pairs_apart_5pct"), ==, wide);
  g_assert_cmpint (json_object_get_int_member (rk, "ordered_apart_5pct"), ==, wide_ordered);
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (rk, "out_of_order")),
                   ==, out_of_order);
  g_assert_cmpuint (groups, >, 0);
  run_result_clear (&t);
  run_result_clear (&j);

  /* without --ranking the JSON has none (the text has none either) */
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --json --only 2", &j);
  g_autoptr (JsonNode) plain = run_parse_json (j.out);
  g_assert_false (json_object_has_member (json_node_get_object (plain), "ranking"));
  run_result_clear (&j);
}

/* A CSV that lacks a column every row needs is refused, exit 2, naming the columns:
 * before, each row was skipped ("no cluster preset for gpu_type (empty)", "missing
 * n_layers, ...") and validate exited 0 with "0 predicted". The needed columns: gpu_type
 * (unless --cluster names the cluster), n_gpus, the shape n_layers, hidden, n_heads,
 * seq_len, global_batch, and one measurement (step_time_s, tokens_per_s_total,
 * tokens_per_s_per_gpu, tflops_per_gpu or mfu_pct). A header without rows is refused too. */
static void
test_missing_columns (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tandem-validate-input-XXXXXX", NULL);
  g_assert_nonnull (dir);
  run_tandem_set_tmp (dir);
  static const char row[] = "1,GPT,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,1.5\n";
  static const struct { const char *header, *data, *needle; } cases[] = {
    { "row_id,model,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,global_batch,step_time_s\n",
      "1,GPT,8,16,1024,16,50304,2048,32,1.5\n", "no gpu_type column" },
    { "row_id,model,gpu_type,n_gpus,n_layers,n_heads,vocab,seq_len,step_time_s\n",
      "1,GPT,H100,8,16,16,50304,2048,1.5\n", "no hidden, global_batch column" },
    { "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,global_batch,notes\n",
      "1,GPT,H100,8,16,1024,16,50304,2048,32,x\n",
      "no measurement column (one of step_time_s, tokens_per_s_total, "
      "tokens_per_s_per_gpu, tflops_per_gpu, mfu_pct)" },
    { "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,global_batch,"
      "step_time_s\n", "", "no rows after the header" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (dir, "in.csv", NULL);
      g_autofree char *text = g_strconcat (cases[i].header, cases[i].data, NULL);
      g_assert_true (g_file_set_contents (path, text, -1, NULL));
      RunResult r = { 0 };
      run_tandem ("validate {TMP}/in.csv --no-db", &r);
      if (r.status != 2 || strstr (r.err, cases[i].needle) == NULL
          || !g_str_has_prefix (r.err, "tandem: error: "))
        g_error ("case %u: exit %d, stderr '%s', expected exit 2 with '%s'", i, r.status,
                 r.err, cases[i].needle);
      run_result_clear (&r);
      /* --explain reads the same file: the same refusal */
      run_tandem ("validate {TMP}/in.csv --no-db --explain 1", &r);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].needle));
      run_result_clear (&r);
    }

  /* with --cluster the gpu_type column is not needed: the row runs on that cluster */
  g_autofree char *path = g_build_filename (dir, "in.csv", NULL);
  g_autofree char *text = g_strconcat ("row_id,model,n_gpus,n_layers,hidden,n_heads,vocab,"
                                       "seq_len,tp,pp,global_batch,step_time_s\n",
                                       "1,GPT,8,16,1024,16,50304,2048,1,1,32,1.5\n", NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  RunResult r = { 0 };
  run_tandem ("validate {TMP}/in.csv --no-db --cluster dgx-h100-superpod", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "summary: 1 predicted, 0 skipped"));
  run_result_clear (&r);
  /* the full set of columns, one row: predicted */
  g_autofree char *full = g_strconcat ("row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,"
                                       "vocab,seq_len,tp,pp,global_batch,step_time_s\n", row,
                                       NULL);
  g_assert_true (g_file_set_contents (path, full, -1, NULL));
  run_tandem ("validate {TMP}/in.csv --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "summary: 1 predicted, 0 skipped"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* validate, --explain and --only read row_id one way (res_published_row_id): a row_id
 * "4.0" was predicted as row 4 while --explain 4 found no such row; "1e1" was row 10 while
 * --explain 10 said the file had no numeric row_id and --only 10 named the ids "1-1". A
 * row_id that is no whole number ("4.5") is skipped saying so, and --explain names it. */
static void
test_row_id_one_reading (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tandem-validate-input-XXXXXX", NULL);
  g_assert_nonnull (dir);
  run_tandem_set_tmp (dir);
  g_autofree char *path = g_build_filename (dir, "in.csv", NULL);
  static const struct { const char *cell; const char *id; } ids[] = {
    { "4.0", "4" }, { "1e1", "10" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s\n%s,GPT,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,1.5\n",
        ids[i].cell);
      g_assert_true (g_file_set_contents (path, text, -1, NULL));
      RunResult r = { 0 };
      g_autofree char *explain = g_strdup_printf ("validate {TMP}/in.csv --no-db --explain %s",
                                                  ids[i].id);
      run_tandem (explain, &r);
      g_autofree char *head = g_strdup_printf ("row %s: GPT", ids[i].id);
      if (r.status != 0 || !g_str_has_prefix (r.out, head))
        g_error ("row_id '%s', --explain %s: exit %d, '%s' '%s'", ids[i].cell, ids[i].id,
                 r.status, r.out, r.err);
      run_result_clear (&r);
      g_autofree char *only = g_strdup_printf ("validate {TMP}/in.csv --no-db --only %s",
                                               ids[i].id);
      run_tandem (only, &r);
      if (r.status != 0 || strstr (r.out, "summary: 1 predicted, 0 skipped") == NULL)
        g_error ("row_id '%s', --only %s: exit %d, '%s' '%s'", ids[i].cell, ids[i].id,
                 r.status, r.out, r.err);
      run_result_clear (&r);
    }
  g_assert_true (g_file_set_contents (path,
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "step_time_s\n4.5,GPT,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,1.5\n", -1, NULL));
  RunResult r = { 0 };
  run_tandem ("validate {TMP}/in.csv --no-db", &r);
  g_assert_nonnull (strstr (r.out, "row_id '4.5' is not a whole number"));
  run_result_clear (&r);
  run_tandem ("validate {TMP}/in.csv --no-db --explain 4", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--explain 4: no row with that row_id (hint: the file has no "
                                   "whole-number row_id; row_id '4.5' is not a whole number"));
  run_result_clear (&r);
  run_tandem ("validate {TMP}/in.csv --no-db --only 4", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "(no whole-number row id;"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* predict --help names every framework preset that --framework takes: the list of
 * `tandem --help` ("frameworks: ..."), which comes from the presets compiled in. It
 * lacked megatron-lm-2021. */
static void
test_framework_help (void)
{
  RunResult top = { 0 }, pr = { 0 };
  run_tandem ("--help", &top);
  g_assert_cmpint (top.status, ==, 0);
  run_tandem ("predict --help", &pr);
  g_assert_cmpint (pr.status, ==, 0);
  const char *line = strstr (top.out, "  frameworks: ");
  g_assert_nonnull (line);
  line += strlen ("  frameworks: ");
  g_autofree char *names = g_strndup (line, strcspn (line, "\n"));
  g_auto (GStrv) v = g_strsplit (names, " ", -1);
  g_assert_cmpuint (g_strv_length (v), >=, 7);
  const char *help = strstr (pr.out, "--framework=NAME|FILE");
  g_assert_nonnull (help);
  for (guint i = 0; v[i] != NULL; i++)
    if (*v[i] != '\0' && strstr (help, v[i]) == NULL)
      g_error ("predict --help does not name the framework preset '%s'", v[i]);
  run_result_clear (&top);
  run_result_clear (&pr);
}

/* validate --explain's device line prints an FP8 GEMM fraction only for a device with
 * FP8 tensor cores: row 25 runs on an A100 (no FP8: hardware.md A1), row 1 on an H100. */
static void
test_explain_fp8_line (void)
{
  RunResult r = { 0 };
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --explain 25", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "device A100-SXM4-80GB: gemm "));
  g_assert_nonnull (strstr (r.out, ", fp8 gemm - (no FP8), attention "));
  run_result_clear (&r);
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --explain 1", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "device H100-SXM5-80GB: gemm "));
  g_assert_nonnull (strstr (r.out, ", fp8 gemm 0."));
  run_result_clear (&r);
}

/* show cluster prints each device figure's source, as show framework prints each
 * stack field's (issue 13 item 1: a device preset carries hardware, each figure with its
 * source): every key of the preset file's device "sources" (and top-level "sources")
 * appears in the text's sources section with its text, and in the JSON under
 * device.sources / sources. Checked on two presets, read from the files themselves. */
static void
test_show_cluster_sources (void)
{
  static const char *const presets[] = { "gb300-nvl72-superpod", "h100-24k" };
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    {
      g_autofree char *base = g_strconcat (presets[i], ".json", NULL);
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "topology", "presets",
                                                     base, NULL);
      g_autoptr (JsonParser) p = json_parser_new ();
      g_autoptr (GError) error = NULL;
      if (!json_parser_load_from_file (p, path, &error))
        g_error ("%s: %s", path, error->message);
      JsonObject *preset = json_node_get_object (json_parser_get_root (p));
      JsonObject *dev_src = json_object_get_object_member (
        json_object_get_object_member (preset, "device"), "sources");
      JsonObject *top_src = json_object_get_object_member (preset, "sources");
      g_assert_nonnull (dev_src);

      g_autofree char *args = g_strdup_printf ("show cluster %s", presets[i]);
      g_autofree char *jargs = g_strdup_printf ("show cluster %s --json", presets[i]);
      RunResult t = { 0 }, j = { 0 };
      run_tandem (args, &t);
      g_assert_cmpint (t.status, ==, 0);
      run_tandem (jargs, &j);
      g_assert_cmpint (j.status, ==, 0);
      const char *section = strstr (t.out, "\nsources (");
      if (section == NULL)
        g_error ("show cluster %s: no sources section", presets[i]);
      g_autoptr (JsonNode) root = run_parse_json (j.out);
      JsonObject *o = json_node_get_object (root);
      JsonObject *jdev = json_object_get_object_member (
        json_object_get_object_member (o, "device"), "sources");
      JsonObject *jtop = json_object_get_object_member (o, "sources");
      g_assert_nonnull (jdev);
      g_assert_nonnull (jtop);
      JsonObject *objs[] = { dev_src, top_src }, *jobjs[] = { jdev, jtop };
      for (guint k = 0; k < 2; k++)
        {
          if (objs[k] == NULL)
            continue;
          g_autoptr (GList) keys = json_object_get_members (objs[k]);
          for (GList *l = keys; l != NULL; l = l->next)
            {
              const char *key = l->data, *text = json_object_get_string_member (objs[k], key);
              g_autofree char *want = g_strdup_printf ("\n  %s: %s\n", key, text);
              if (strstr (section, want) == NULL)
                g_error ("show cluster %s: no line '  %s: %.40s...'", presets[i], key, text);
              g_assert_cmpstr (json_object_get_string_member (jobjs[k], key), ==, text);
            }
        }
      run_result_clear (&t);
      run_result_clear (&j);
    }
}

/* show's first word mistyped gets the nearest kind, as a mistyped preset name gets the
 * nearest preset; a word too many is named, not reported as a missing one. */
static void
test_show_words (void)
{
  static const struct { const char *args, *needle; } cases[] = {
    { "show framwork torchtitan", "cannot show 'framwork' (did you mean 'framework'?)" },
    /* the plural lists the presets (show frameworks); with a name it is the slip */
    { "show frameworks torchtitan", "show frameworks lists the presets and takes no name (did "
      "you mean 'framework'?) (hint: tandem show framework torchtitan)" },
    { "show clustr h100-24k", "(did you mean 'cluster'?)" },
    { "show torchtitn", "cannot show 'torchtitn'" },
    { "show framework torchtitn", "unknown framework 'torchtitn' (did you mean 'torchtitan'?)" },
    { "show cluster dgx-h100-supepod", "(did you mean 'dgx-h100-superpod'?)" },
    { "show model lama3-8b", "(did you mean 'llama3-8b'?)" },
    { "show framework torchtitan extra", "unexpected argument 'extra'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RunResult r = { 0 };
      run_tandem (cases[i].args, &r);
      if (r.status != 2 || strstr (r.err, cases[i].needle) == NULL)
        g_error ("'%s': exit %d, stderr '%s', expected exit 2 with '%s'", cases[i].args,
                 r.status, r.err, cases[i].needle);
      run_result_clear (&r);
    }
}

/* `csv` as {TMP}/in.csv in a fresh temporary directory, which the runs then see as {TMP};
 * the directory is returned for csv_tmp_clear. */
static char *
csv_in_tmp (const char *csv)
{
  char *dir = g_dir_make_tmp ("tandem-validate-input-XXXXXX", NULL);
  g_assert_nonnull (dir);
  run_tandem_set_tmp (dir);
  g_autofree char *path = g_build_filename (dir, "in.csv", NULL);
  g_assert_true (g_file_set_contents (path, csv, -1, NULL));
  return dir;
}

static void
csv_tmp_clear (char *dir)
{
  g_autofree char *path = g_build_filename (dir, "in.csv", NULL);
  g_unlink (path);
  g_rmdir (dir);
  g_free (dir);
  run_tandem_set_tmp (NULL);
}

/* A row whose framework cell names no stack tandem knows is predicted with the default
 * stack (megatron-core). Only --explain said so; the table and the summary read it as a
 * plain prediction. Now a "default stack:" line after the summary counts and names them,
 * and each JSON row carries "stack" and "stack_note". Three rows: Colossal-AI and
 * PaddlePaddle (not recognised: 2 rows, ids 1 and 2) and NeMo 24.07 (the nemo stack: not
 * listed, stack_note null). */
static void
test_default_stack_named (void)
{
  static const char csv[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "framework,step_time_s\n"
    "1,GPT,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,Colossal-AI 0.3,1.5\n"
    "2,GPT,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,PaddlePaddle,1.5\n"
    "3,GPT,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,NeMo 24.07,1.5\n";
  char *dir = csv_in_tmp (csv);
  RunResult r = { 0 };
  run_tandem ("validate {TMP}/in.csv --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "summary: 3 predicted, 0 skipped"));
  g_assert_nonnull (strstr (r.out, "default stack: 2 predicted rows name a framework tandem "
                                   "does not recognise and are read with megatron-core (rows "
                                   "1, 2; tandem validate --explain ROW)"));
  run_result_clear (&r);

  run_tandem ("validate {TMP}/in.csv --no-db --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonArray *rows = json_object_get_array_member (json_node_get_object (root), "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *o = json_array_get_object_element (rows, i);
      gint64 id = json_object_get_int_member (o, "row_id");
      g_assert_cmpstr (json_object_get_string_member (o, "stack"), ==,
                       id == 3 ? "nemo" : "megatron-core");
      if (id == 3)
        g_assert_true (json_object_get_null_member (o, "stack_note"));
      else
        g_assert_nonnull (strstr (json_object_get_string_member (o, "stack_note"),
                                  "framework not recognised"));
    }
  run_result_clear (&r);
  csv_tmp_clear (dir);
}

/* validate --json rows give MFU and HFU as a prediction's JSON does (docs/contracts.md)
 * beside their predicted_mfu_pct (kept): mfu as fractions by convention, keyed so that
 * mfu[flops_convention] is predicted_mfu_pct / 100 (a 6N-alone row's "6n" added), and
 * predicted_hfu one fraction, at most the causal count's MFU plus recompute. */
static void
test_rows_mfu_contract (void)
{
  static const char csv[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "flops_convention,tflops_per_gpu,step_time_s\n"
    "1,GPT,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,palm,,1.5\n"
    "2,GPT,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,6ND,100,\n"
    "3,GPT,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,,,1.5\n";
  char *dir = csv_in_tmp (csv);
  RunResult r = { 0 };
  run_tandem ("validate {TMP}/in.csv --no-db --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonArray *rows = json_object_get_array_member (json_node_get_object (root), "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 3);
  static const char *const convs[] = { "megatron96", "megatron72", "mcore", "causal", "palm" };
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *o = json_array_get_object_element (rows, i);
      JsonObject *mfu = json_object_get_object_member (o, "mfu");
      g_assert_nonnull (mfu);
      for (guint k = 0; k < G_N_ELEMENTS (convs); k++)
        {
          double v = json_object_get_double_member (mfu, convs[k]);
          g_assert_cmpfloat (v, >, 0);
          g_assert_cmpfloat (v, <, 1);
        }
      double hfu = json_object_get_double_member (o, "predicted_hfu");
      g_assert_cmpfloat (hfu, >, 0);
      g_assert_cmpfloat (hfu, <, 1);
      JsonNode *conv = json_object_get_member (o, "flops_convention");
      if (JSON_NODE_HOLDS_NULL (conv))
        {
          /* no count named: no headline, the object all the same */
          g_assert_cmpint (json_object_get_int_member (o, "row_id"), ==, 3);
          g_assert_true (json_object_get_null_member (o, "predicted_mfu_pct"));
          continue;
        }
      const char *c = json_node_get_string (conv);
      g_assert_cmpstr (c, ==, i == 0 ? "palm" : "6n");
      g_assert_cmpfloat_with_epsilon (100 * json_object_get_double_member (mfu, c),
                                      json_object_get_double_member (o, "predicted_mfu_pct"),
                                      1e-9);
      if (i == 1)   /* 6 N alone (measured in it) counts fewer FLOPs than PaLM's */
        g_assert_cmpfloat (json_object_get_double_member (mfu, "6n"), <,
                           json_object_get_double_member (mfu, "palm"));
    }
  run_result_clear (&r);
  csv_tmp_clear (dir);
}

/* A CSV cell's control characters reach the terminal as text: a model name, a gpu_type or
 * a framework with ESC [ 2 J (clear screen) or an OSC title sequence was printed raw in
 * the table, the skip list and --explain. Now each control is \xNN (ESC is 0x1b, BEL 0x07)
 * and no raw ESC is in the output; the row is still predicted (row 1) or skipped with its
 * reason (row 2, an unknown gpu_type). */
static void
test_control_chars_escaped (void)
{
  static const char csv[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "framework,step_time_s\n"
    "1,GPT\x1b[2J,H100-SXM-80GB,8,16,1024,16,50304,2048,1,1,32,Evil\x1b]0;t\x07 stack,1.5\n"
    "2,M\x1b[1m,Z100\x1b[31m,8,16,1024,16,50304,2048,1,1,32,NeMo,1.5\n";
  char *dir = csv_in_tmp (csv);
  RunResult r = { 0 };
  run_tandem ("validate {TMP}/in.csv --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strchr (r.out, '\x1b'));
  g_assert_nonnull (strstr (r.out, "GPT\\x1b[2J"));
  g_assert_nonnull (strstr (r.out, "M\\x1b[1m"));
  g_assert_nonnull (strstr (r.out, "no cluster preset for gpu_type Z100\\x1b[31m"));
  run_result_clear (&r);

  run_tandem ("validate {TMP}/in.csv --no-db --explain 1", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strchr (r.out, '\x1b'));
  g_assert_null (strchr (r.out, '\x07'));
  g_assert_nonnull (strstr (r.out, "Evil\\x1b]0;t\\x07 stack"));
  /* its own lines are kept: the framework line is one of several */
  g_assert_nonnull (strstr (r.out, "\n  framework "));
  run_result_clear (&r);
  csv_tmp_clear (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/validate-input/ranking-json", test_ranking_json);
  g_test_add_func ("/cli/validate-input/default-stack-named", test_default_stack_named);
  g_test_add_func ("/cli/validate-input/control-chars-escaped", test_control_chars_escaped);
  g_test_add_func ("/cli/validate-input/missing-columns", test_missing_columns);
  g_test_add_func ("/cli/validate-input/row-id-one-reading", test_row_id_one_reading);
  g_test_add_func ("/cli/validate-input/framework-help", test_framework_help);
  g_test_add_func ("/cli/validate-input/explain-fp8-line", test_explain_fp8_line);
  g_test_add_func ("/cli/validate-input/show-cluster-sources", test_show_cluster_sources);
  g_test_add_func ("/cli/validate-input/show-words", test_show_words);
  g_test_add_func ("/cli/validate-input/rows-mfu-contract", test_rows_mfu_contract);
  return g_test_run ();
}
