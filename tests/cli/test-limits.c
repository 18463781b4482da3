/* tests/cli/test-limits.c - issue 15's bad inputs, end to end: each original input (a
 * file in tests/data/limits/, or generated here when it is too big to keep) must give
 * exit status 2 and one line "tandem: error: ..." that names the cap or the field, never
 * a crash, a hang or a silently wrong number. TANDEM_EXE is the binary under test. */
#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
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

/* Runs tandem with the space-separated arguments; "{DATA}" expands to tests/data/limits
 * and "{TMP}" to `tmp`. */
static void
run_tandem (const char *args, const char *tmp, RunResult *r)
{
  const char *exe = g_getenv ("TANDEM_EXE");
  g_assert_nonnull (exe);
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "..", "data", "limits", NULL);
  g_auto (GStrv) words = g_strsplit (args, " ", -1);
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (exe));
  for (guint i = 0; words[i]; i++)
    {
      if (*words[i] == '\0')
        continue;
      GString *w = g_string_new (words[i]);
      g_string_replace (w, "{DATA}", data, 0);
      if (tmp != NULL)
        g_string_replace (w, "{TMP}", tmp, 0);
      g_ptr_array_add (argv, g_string_free (w, FALSE));
    }
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_newv ((const char *const *) argv->pdata,
                                                    G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                    | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_autoptr (GBytes) out = NULL, err = NULL;
  g_subprocess_communicate (proc, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  r->out = g_strndup (g_bytes_get_data (out, NULL), g_bytes_get_size (out));
  r->err = g_strndup (g_bytes_get_data (err, NULL), g_bytes_get_size (err));
  g_assert_true (g_subprocess_get_if_exited (proc));   /* not killed by a signal */
  r->status = g_subprocess_get_exit_status (proc);
}

/* Exit status 2 and exactly one line "tandem: error: ...<needle>...". */
static void
assert_refused (const char *args, const char *tmp, const char *needle)
{
  RunResult r = { 0 };
  run_tandem (args, tmp, &r);
  if (r.status != 2 || !g_str_has_prefix (r.err, "tandem: error: ")
      || strstr (r.err, needle) == NULL || strchr (r.err, '\n') != r.err + strlen (r.err) - 1)
    g_error ("tandem %s\nexpected status 2 and an error with '%s', got %d\nstdout: %s\n"
             "stderr: %s", args, needle, r.status, r.out, r.err);
  run_result_clear (&r);
}

/* The stdout of a command that must succeed, parsed as JSON (valid, UTF-8). */
static JsonNode *
run_json (const char *args, const char *tmp)
{
  RunResult r = { 0 };
  run_tandem (args, tmp, &r);
  if (r.status != 0)
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
  g_unlink (path);
  g_rmdir (dir);
}

/* /dev/zero as a model or plan file: read up to the 64 MiB cap, then refused (before the
 * cap it grew until memory ran out). A FIFO without a writer reads as empty instead of
 * blocking in open(). */
static void
test_endless_files (void)
{
  assert_refused ("show model /dev/zero", NULL, "64 MiB input cap");
  assert_refused ("plan --model llama3-8b --cluster h200-node --gpus 8 --plan /dev/zero", NULL,
                  "64 MiB input cap");
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tandem-limits-XXXXXX", &error);
  g_autofree char *fifo = g_build_filename (dir, "fifo.json", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  assert_refused ("show cluster {TMP}/fifo.json", dir, "fifo.json");
  g_unlink (fifo);
  g_rmdir (dir);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/limits/json-ordinary", test_json_ordinary);
  g_test_add_func ("/cli/limits/deep-json", test_deep_json);
  g_test_add_func ("/cli/limits/endless-files", test_endless_files);
  return g_test_run ();
}
