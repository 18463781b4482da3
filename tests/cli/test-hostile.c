/* tests/cli/test-hostile.c - input a careless or hostile user gives, end to end: each case
 * was answered with a wrong figure, a misleading message or a wrong exit status before
 * its fix. Files are generated in a temporary directory ({TMP}). TANDEM_EXE is the binary
 * under test. */
#include "cli-run.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <string.h>

/* A temporary directory for one test; remove_tree at the end. */
static char *
make_tmp (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("tandem-hostile-XXXXXX", &error);
  g_assert_no_error (error);
  run_tandem_set_tmp (dir);
  return dir;
}

static void
write_file (const char *dir, const char *name, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

/* Exit status `status` and exactly one line "tandem: error: ...<needle>..." on stderr. */
static void
assert_error (const char *args, int status, const char *needle)
{
  RunResult r = { 0 };
  run_tandem (args, &r);
  if (r.status != status || !g_str_has_prefix (r.err, "tandem: error: ")
      || strstr (r.err, needle) == NULL || strchr (r.err, '\n') != r.err + strlen (r.err) - 1)
    g_error ("tandem %s\nexpected status %d and one error line with '%s', got %d\n"
             "stdout: %s\nstderr: %s", args, status, needle, r.status, r.out, r.err);
  run_result_clear (&r);
}

/* A cluster of 8-GPU servers, `servers` of them, in {TMP}/NAME. */
static void
write_cluster (const char *dir, const char *name, guint64 servers)
{
  g_autofree char *text = g_strdup_printf (
    "{ \"name\": \"huge\",\n"
    "  \"device\": { \"name\": \"TestGPU\", \"peak_tflops\": { \"bf16\": 1000 },\n"
    "              \"hbm_GB\": 141, \"hbm_GBps\": 4800 },\n"
    "  \"levels\": [ { \"name\": \"server\", \"count\": 8, \"bw_GBps\": 450 },\n"
    "              { \"name\": \"cluster\", \"count\": %" G_GUINT64_FORMAT ", \"bw_GBps\": 50 } ] }\n",
    servers);
  write_file (dir, name, text);
}

/* ---- search ------------------------------------------------------------------------- */

/* A search without --gpus takes the whole cluster. A cluster past the 2^20-GPU cap of one
 * plan was cast to int: 8 x (2^29 + 64) = 2^32 + 512 devices read as 512, and the search
 * ranked plans on 512 GPUs with exit 0; 8 x 2^18 = 2^21 devices made every candidate
 * invalid and ended as "no plan fits" (exit 3, as if memory were short). Both are now
 * refused as predict refuses them, and an explicit --gpus past the cap too. */
static void
test_search_cluster_past_cap (void)
{
  g_autofree char *dir = make_tmp ();
  write_cluster (dir, "wraps.json", (G_GUINT64_CONSTANT (1) << 29) + 64);
  write_cluster (dir, "big.json", G_GUINT64_CONSTANT (1) << 18);
  const char *msg = "devices, above the cap of 1048576 GPUs for one plan";
  assert_error ("search --model llama3-8b --cluster {TMP}/wraps.json --gbs 64 --fast --no-db",
                2, "huge has 4294967808 devices, above the cap of 1048576 GPUs");
  assert_error ("search --model llama3-8b --cluster {TMP}/big.json --gbs 64 --fast --no-db",
                2, msg);
  assert_error ("search --model llama3-8b --cluster {TMP}/big.json --gbs 64 --fast --no-db "
                "--gpus 64,2000000", 2, "--gpus 2000000 is above the cap of 1048576 GPUs");
  /* predict says the same of the same cluster */
  assert_error ("predict --model llama3-8b --cluster {TMP}/big.json --no-db", 2, msg);
  /* a count within the cap still searches */
  RunResult r = { 0 };
  run_tandem ("search --model llama3-8b --cluster {TMP}/big.json --gbs 64 --fast --no-db "
              "--gpus 64 --top 1 --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/hostile/search-cluster-past-cap", test_search_cluster_past_cap);
  return g_test_run ();
}
