/* tests/plan/test-plan-toml.c - plan/plan-toml.c: TorchTitan job TOMLs as plans, the TOML
 * subset's values, and a clear error (with the line) for everything outside it. */
#include "plan/plan.h"

#include <json-glib/json-glib.h>
#include <string.h>

static ModelSpec *
llama3_8b (void)
{
  g_autoptr (GError) error = NULL;
  ModelSpec *m = model_spec_lookup ("llama3-8b", &error);
  g_assert_no_error (error);
  return m;
}

/* tests/data/plan/llama3-8b-titan.toml on 64 GPUs: data_parallel_shard_degree -1 is FSDP
 * (ZeRO-3) over the rest, 64 / tp 8 = dp 8; local batch 1 x dp 8 = global batch 8;
 * activation_checkpoint.mode 'full' (a literal string); tp 8 brings sequence
 * parallelism (TorchTitan's SequenceParallel norms); the other sections are skipped. */
static void
test_titan_file (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "plan",
                                                 "llama3-8b-titan.toml", NULL);
  g_autoptr (GError) error = NULL;
  Plan plan;
  plan_init_defaults (&plan);
  g_assert_true (plan_load_toml (&plan, path, &error));
  g_assert_no_error (error);
  g_autoptr (ModelSpec) m = llama3_8b ();
  g_autoptr (TopoCluster) c = topo_cluster_lookup ("h100-24k", &error);
  plan.world_size = 64;
  g_assert_true (plan_resolve (&plan, m, c, &error));
  g_assert_cmpint (plan.tp, ==, 8);
  g_assert_cmpint (plan.dp, ==, 8);
  g_assert_cmpint (plan.sharding, ==, PLAN_SHARD_ZERO3);
  g_assert_cmpint (plan.recompute, ==, PLAN_RECOMPUTE_FULL);
  g_assert_cmpint (plan.global_batch, ==, 8);
  g_assert_cmpint (plan.seq_length, ==, 8192);
  g_assert_true (plan.sequence_parallel);
  g_assert_cmpint (plan.compute_dtype, ==, PLAN_PREC_BF16);   /* float8 not enabled */
  plan_clear (&plan);
}

/* Values of the subset: 1_000 is 1000, -1 stays, 3e-4 a float, arrays over lines with a
 * trailing comma and comments, escapes in basic strings, none in literal ones. */
static void
test_values (void)
{
  const char *text =
    "top = 1\n"
    "[a]\n"
    "n = 1_000 # comment\n"
    "neg = -1\n"
    "zero = -0\n"
    "half = 0.5\n"
    "f = 3e-4\n"
    "b = true\n"
    "s = \"x\\ty\\u00e9\"\n"
    "lit = 'c:\\path'\n"
    "\"quoted key\" = false\n"
    "arr = [\n  \"p\", # one\n  \"q\",\n]\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = NULL;
  g_assert_true (plan_toml_parse (text, -1, "t.toml", &root, &error));
  g_assert_no_error (error);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "top"), ==, 1);
  JsonObject *a = json_object_get_object_member (o, "a");
  g_assert_cmpint (json_object_get_int_member (a, "n"), ==, 1000);
  g_assert_cmpint (json_object_get_int_member (a, "neg"), ==, -1);
  /* a lone zero and a float's "0." are no leading zeros */
  g_assert_cmpint (json_object_get_int_member (a, "zero"), ==, 0);
  g_assert_cmpfloat (json_object_get_double_member (a, "half"), ==, 0.5);
  g_assert_cmpfloat (json_object_get_double_member (a, "f"), ==, 3e-4);
  g_assert_true (json_object_get_boolean_member (a, "b"));
  g_assert_cmpstr (json_object_get_string_member (a, "s"), ==, "x\ty\xc3\xa9");
  g_assert_cmpstr (json_object_get_string_member (a, "lit"), ==, "c:\\path");
  g_assert_false (json_object_get_boolean_member (a, "quoted key"));
  JsonArray *arr = json_object_get_array_member (a, "arr");
  g_assert_cmpuint (json_array_get_length (arr), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (arr, 1), ==, "q");
}

/* Outside the subset, or not a plan: PLAN_ERROR_PARSE naming the file and line (where
 * the reader knows it) and what to do. */
static void
test_errors (void)
{
  static const struct { const char *text, *expect; } cases[] = {
    { "[parallelism]\ntensor_parallel_degree = 8\n[[x]]\n", "t.toml:3: arrays of tables" },
    { "[a]\nb = { c = 1 }\n", "t.toml:2: inline tables are outside the subset" },
    { "[a.b]\n", "t.toml:1: dotted section names" },
    { "[a]\nb.c = 1\n", "t.toml:2: dotted keys" },
    { "[a]\nb = \"\"\"x\"\"\"\n", "multi-line strings" },
    { "[a]\nd = 1979-05-27\n", "dates, inf and nan are outside" },
    { "[a]\nx = inf\n", "dates, inf and nan are outside" },
    { "[a]\nx = 0x1F\n", "t.toml:2: a value that is not" },
    { "[a]\nx = 1__0\n", "t.toml:2: a value that is not" },
    { "[a]\nx = \"open\n", "t.toml:2: unterminated string" },
    { "[a]\nx = 1\nx = 2\n", "t.toml:3: a key defined twice" },
    { "[a]\n[a]\n", "t.toml:2: a section defined twice" },
    { "[a]\nx = 1 2\n", "unexpected text after the value" },
    { "[a]\nx = [1, 2\n", "an array needs ','" },
    { "[a]\nx =\n", "a key without a value" },
    { "[a]\nx = 99999999999999999999\n", "beyond 64 bits" },
    { "[a]\nx = \"\\q\"\n", "bad escape" },
    /* TOML 1.0: no leading zeros, in integers or a float's integer part (tomllib
     * refuses both) */
    { "[a]\nx = 010\n", "t.toml:2: a number with a leading zero" },
    { "[a]\nx = -007.5\n", "t.toml:2: a number with a leading zero" },
    /* not a plan */
    { "[parallelism]\ntensor_paralel_degree = 8\n", "unknown key parallelism.tensor_paralel_degree" },
    { "[paralelism]\n", "unknown section [paralelism]" },
    { "seq_len = 8192\n", "key 'seq_len' outside any section" },
    { "[parallelism]\ntensor_parallel_degree = 8.0\n", "tensor_parallel_degree must be an integer" },
    { "[float8]\nenable_float8_linear = 1\n", "float8.enable_float8_linear must be true or false" },
    { "[training]\nbatch_size = 2\nlocal_batch_size = 2\n", "both given" },
    /* read as "not compiled", a plain split, the stack's recipe, no converter: each was
     * skipped without a word (audit of plan files) */
    { "[compile]\nenable = \"true\"\n", "compile.enable must be true or false" },
    { "[compile]\nenabled = true\n", "unknown key compile.enabled" },
    { "[training]\ncompile = false\n[compile]\nenable = true\n", "contradict each other" },
    { "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_split_points = "
      "[\"layers.8\"]\n", "pipeline_parallel_split_points is not modelled" },
    { "[model]\nconverters = \"float8\"\n", "model.converters must be an array" },
    /* TorchTitan asserts dp_shard -1 or at least 1 */
    { "[parallelism]\ndata_parallel_shard_degree = 0\n", "data_parallel_shard_degree 0" },
    { "[model]\nconverters = [\"float8\"]\n[float8]\nrecipe_name = \"colwise\"\n",
      "float8.recipe_name must be" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      Plan plan;
      plan_init_defaults (&plan);
      gboolean ok = plan_load_toml_data (&plan, cases[i].text, -1, "t.toml", &error);
      plan_clear (&plan);
      if (ok || error == NULL || strstr (error->message, cases[i].expect) == NULL)
        g_error ("case %u: expected '%s', got %s", i, cases[i].expect,
                 error ? error->message : "success");
      g_assert_error (error, PLAN_ERROR, PLAN_ERROR_PARSE);
      g_assert_null (strchr (error->message, '\n'));
    }
  /* "[a]" saved as UTF-16 (a Windows editor's "Unicode"): not UTF-8, said so, as for a
   * JSON file (it was a syntax error at the first NUL) */
  g_autoptr (GError) error = NULL;
  Plan plan;
  plan_init_defaults (&plan);
  g_assert_false (plan_load_toml_data (&plan, "\xff\xfe[\0a\0]\0\n\0", 10, "u.toml", &error));
  plan_clear (&plan);
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "u.toml: the file is not UTF-8 text: it starts with a "
                   "UTF-16 byte-order mark (FF FE, little-endian) (hint: save it as UTF-8)");
}

/* float8: newer TorchTitan's [model] converters = ["float8"] and older
 * [float8] enable_float8_linear = true both make the GEMMs fp8; training.batch_size (the
 * older name) is the local batch. */
static void
test_float8_and_old_names (void)
{
  const char *texts[] = {
    "[model]\nconverters = [\"float8\"]\n[training]\nbatch_size = 2\n",
    "[float8]\nenable_float8_linear = true\nrecipe_name = \"rowwise\"\n[training]\nbatch_size = 2\n",
    /* with FSDP's float8 all-gather (the 405B config's [float8] section) */
    "[model]\nconverters = [\"float8\"]\n[training]\nbatch_size = 2\n"
    "[float8]\nenable_fsdp_float8_all_gather = true\n",
  };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr (GError) error = NULL;
      Plan plan;
      plan_init_defaults (&plan);
      g_assert_true (plan_load_toml_data (&plan, texts[i], -1, "t.toml", &error));
      g_assert_no_error (error);
      g_assert_cmpint (plan.compute_dtype, ==, PLAN_PREC_FP8);
      g_assert_cmpint (plan.local_batch, ==, 2);
      g_assert_cmpint (plan.fsdp_float8_all_gather, ==, i == 2);
      /* [float8] recipe_name, torchao's: rowwise (it was skipped, tensorwise taken) */
      if (i == 1)
        g_assert_cmpint (plan.fp8_recipe, ==, FW_SCALING_ROWWISE);
      plan_clear (&plan);
    }
}

/* TorchTitan's defaults for the keys a file leaves out (job_config.py): the data-parallel
 * shard degree -1 (FSDP over the ranks left: ZeRO-3 here), expert TP 1 beside an expert
 * degree, and selective checkpointing of every second block; the option counts only
 * under mode "selective" ("full" wraps every block, "none" none), and a mode after its
 * option reads as before it */
static void
test_torchtitan_defaults (void)
{
  static const struct {
    const char *text;
    PlanSharding sharding;
    PlanRecompute recompute;
    int every, etp;
  } cases[] = {
    { "[parallelism]\ntensor_parallel_degree = 1\n", PLAN_SHARD_ZERO3, PLAN_RECOMPUTE_FULL, 2, 0 },
    { "[parallelism]\ndata_parallel_shard_degree = 1\ndata_parallel_replicate_degree = 8\n"
      "[activation_checkpoint]\nmode = 'none'\nselective_ac_option = '2'\n",
      PLAN_SHARD_NONE, PLAN_RECOMPUTE_NONE, 0, 0 },
    { "[activation_checkpoint]\nmode = 'full'\nselective_ac_option = '2'\n",
      PLAN_SHARD_ZERO3, PLAN_RECOMPUTE_FULL, 0, 0 },
    { "[activation_checkpoint]\nselective_ac_option = '3'\nmode = 'selective'\n",
      PLAN_SHARD_ZERO3, PLAN_RECOMPUTE_FULL, 3, 0 },
    { "[parallelism]\nexpert_parallel_degree = 8\ntensor_parallel_degree = 2\n",
      PLAN_SHARD_ZERO3, PLAN_RECOMPUTE_FULL, 2, 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      Plan plan;
      plan_init_defaults (&plan);
      if (!plan_load_toml_data (&plan, cases[i].text, -1, "t.toml", &error))
        g_error ("case %u: %s", i, error->message);
      g_assert_cmpint (plan.sharding, ==, cases[i].sharding);
      g_assert_cmpint (plan.recompute, ==, cases[i].recompute);
      g_assert_cmpint (plan.recompute_every, ==, cases[i].every);
      g_assert_cmpint (plan.etp, ==, cases[i].etp);
      plan_clear (&plan);
    }
  /* the degrees TorchTitan multiplies to its world: shard 4 x replicate 2 = 8, held to
   * world / (tp x pp x cp) at resolve (dp_titan); -1 holds nothing */
  static const struct { const char *text; int dp; } degrees[] = {
    { "[parallelism]\ndata_parallel_shard_degree = 4\ndata_parallel_replicate_degree = 2\n", 8 },
    { "[parallelism]\ndata_parallel_shard_degree = -1\n", 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (degrees); i++)
    {
      g_autoptr (GError) error = NULL;
      Plan plan;
      plan_init_defaults (&plan);
      g_assert_true (plan_load_toml_data (&plan, degrees[i].text, -1, "t.toml", &error));
      g_assert_cmpint (plan.dp_titan, ==, degrees[i].dp);
      plan_clear (&plan);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plan/toml/torchtitan-file", test_titan_file);
  g_test_add_func ("/plan/toml/values", test_values);
  g_test_add_func ("/plan/toml/errors", test_errors);
  g_test_add_func ("/plan/toml/torchtitan-defaults", test_torchtitan_defaults);
  g_test_add_func ("/plan/toml/float8-and-old-names", test_float8_and_old_names);
  return g_test_run ();
}
