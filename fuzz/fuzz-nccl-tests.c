/* fuzz/fuzz-nccl-tests.c - nccl-tests output (`tandem calibrate --import-nccl-tests
 * FILE`, exec_nccl_tests_parse).
 *
 * The first line of the input names the file (it picks the collective when the output
 * has no "# Collective test starting" line; e.g. "all_gather_perf-16.txt"), the rest is
 * the file. Accepted rows are formatted back as nccl-tests' table
 * (exec_coll_rows_format), which the parser must read again with as many rows; then put
 * into a profile, written as JSON and into the h200-node cluster file
 * (topo_cluster_json_set_profile, what --import-nccl-tests --out writes), which the
 * cluster loader must accept. */
#include "fuzz/fuzz.h"

#include <string.h>

#include "exec/calibrate.h"

static TopoCluster *cluster;

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init ();
  cluster = fuzz_preset_cluster ("nccl-tests", "h200-node");
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_text (data, size);
  const char *nl = memchr (text, '\n', size);
  if (nl == NULL)
    return 0;
  g_autofree char *source = g_strndup (text, (gsize) (nl - text));
  const char *body = nl + 1;
  gsize body_len = size - (gsize) (body - text);

  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  if (!exec_nccl_tests_parse (body, (gssize) body_len, source, rows, &error))
    return 0;

  g_autoptr (GString) table = g_string_new (NULL);
  exec_coll_rows_format (table, (const ExecCollRow *) rows->data, rows->len, "fuzz");
  g_autoptr (GArray) again = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  if (rows->len > 0
      && !exec_nccl_tests_parse (table->str, (gssize) table->len, source, again, &error))
    fuzz_fail ("nccl-tests", "cannot read its own table back: %s\n%s", error->message,
               table->str);
  if (again->len != rows->len)
    fuzz_fail ("nccl-tests", "its own table read back as %u rows, not %u", again->len,
               rows->len);

  g_autoptr (TopoProfile) prof = topo_profile_new ();
  prof->source = g_strdup ("nccl-tests output, imported by the fuzzer");
  exec_coll_rows_to_profile ((const ExecCollRow *) rows->data, rows->len, prof);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "profile");
  json_builder_add_value (b, topo_profile_to_json_node (prof));
  json_builder_end_object (b);
  fuzz_check_json (b, "nccl-tests: profile JSON");

  g_autofree char *out = topo_cluster_json_set_profile (cluster->json, prof, &error);
  if (out == NULL)
    fuzz_fail ("nccl-tests", "cannot write the profile into a cluster file: %s",
               error->message);
  fuzz_check_json_text (out, -1, "nccl-tests: cluster file with the profile");
  g_autoptr (TopoCluster) c = topo_cluster_new_from_data (out, -1, "imported.json", &error);
  if (c == NULL)
    fuzz_fail ("nccl-tests", "the cluster file it wrote is refused: %s", error->message);
  return 0;
}
