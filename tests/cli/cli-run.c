/* tests/cli/cli-run.c - see cli-run.h. */
#include "cli-run.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

static char *tmp_dir;
static GStrv child_env;   /* the environment of the runs; NULL: this process's */

void
run_tandem_setenv (const char *name, const char *value)
{
  if (child_env == NULL)
    child_env = g_get_environ ();
  child_env = value != NULL ? g_environ_setenv (child_env, name, value, TRUE)
                            : g_environ_unsetenv (child_env, name);
}

static GSubprocessLauncher *
launcher_new (void)
{
  GSubprocessLauncher *l =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  if (child_env != NULL)
    g_subprocess_launcher_set_environ (l, child_env);
  return l;
}

void
run_result_clear (RunResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

void
run_tandem_set_tmp (const char *dir)
{
  g_free (tmp_dir);
  tmp_dir = g_strdup (dir);
}

void
run_tandem (const char *args, RunResult *r)
{
  const char *exe = g_getenv ("TANDEM_EXE");
  g_assert_nonnull (exe);
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", NULL);
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "..", NULL);
  GString *line = g_string_new (args);
  g_string_replace (line, "{DATA}", data, 0);
  g_string_replace (line, "{SRC}", src, 0);
  if (tmp_dir != NULL)
    g_string_replace (line, "{TMP}", tmp_dir, 0);
  g_autofree char *cmd = g_strdup_printf ("%s %s", exe, line->str);
  g_string_free (line, TRUE);
  g_auto (GStrv) argv = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_shell_parse_argv (cmd, NULL, &argv, &error));
  g_autoptr (GSubprocessLauncher) l = launcher_new ();
  g_autoptr (GSubprocess) proc = g_subprocess_launcher_spawnv (l, (const char *const *) argv,
                                                               &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  /* a command killed by a signal (a sanitizer's abort_on_error report, the kernel) fails
   * the test with what it printed, not with GLib's critical about an exit status that the
   * process never had */
  if (g_subprocess_get_if_signaled (proc))
    g_error ("tandem %s: killed by signal %d\nstdout: %s\nstderr: %s", args,
             g_subprocess_get_term_sig (proc), r->out ? r->out : "", r->err ? r->err : "");
  r->status = g_subprocess_get_exit_status (proc);
}

/* A stream's bytes as a string ("" when it wrote none: g_strndup gives NULL for the
 * empty GBytes' NULL data). */
static char *
bytes_to_string (GBytes *b)
{
  gsize n = 0;
  const char *data = g_bytes_get_data (b, &n);
  return data != NULL ? g_strndup (data, n) : g_strdup ("");
}

void
run_tandem_words (const char *args, const char *const *subst, const char *cwd, RunResult *r)
{
  const char *exe = g_getenv ("TANDEM_EXE");
  g_assert_nonnull (exe);
  g_auto (GStrv) words = g_strsplit (args, " ", -1);
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (exe));
  for (guint i = 0; words[i]; i++)
    {
      if (*words[i] == '\0')
        continue;
      GString *w = g_string_new (words[i]);
      for (guint k = 0; subst != NULL && subst[k] != NULL; k += 2)
        g_string_replace (w, subst[k], subst[k + 1], 0);
      g_ptr_array_add (argv, g_string_free (w, FALSE));
    }
  g_ptr_array_add (argv, NULL);
  g_autoptr (GSubprocessLauncher) l = launcher_new ();
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (l, cwd);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_launcher_spawnv (l, (const char *const *) argv->pdata,
                                                               &error);
  g_assert_no_error (error);
  g_autoptr (GBytes) out = NULL, err = NULL;
  g_subprocess_communicate (proc, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  r->out = bytes_to_string (out);
  r->err = bytes_to_string (err);
  g_assert_true (g_subprocess_get_if_exited (proc));   /* not killed by a signal */
  r->status = g_subprocess_get_exit_status (proc);
}

void
remove_tree (const char *path)
{
  g_chmod (path, 0700);
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (path, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR) && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
        remove_tree (p);
      else
        g_remove (p);
    }
  g_rmdir (path);
}

JsonNode *
run_parse_json (const char *text)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_data (p, text, -1, &error) || json_parser_get_root (p) == NULL)
    g_error ("not JSON (%s): %s", error ? error->message : "empty", text);
  return json_node_copy (json_parser_get_root (p));
}

char *
run_make_tmp (const char *prefix)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tmpl = g_strconcat (prefix, "-XXXXXX", NULL);
  char *dir = g_dir_make_tmp (tmpl, &error);
  g_assert_no_error (error);
  run_tandem_set_tmp (dir);
  return dir;
}

void
run_write_file (const char *dir, const char *name, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

char *
run_read_file (const char *dir, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

void
run_assert_error (const char *args, int status, const char *needle)
{
  RunResult r = { 0 };
  run_tandem (args, &r);
  if (r.status != status || !g_str_has_prefix (r.err, "tandem: error: ")
      || strstr (r.err, needle) == NULL || strchr (r.err, '\n') != r.err + strlen (r.err) - 1)
    g_error ("tandem %s\nexpected status %d and one error line with '%s', got %d\n"
             "stdout: %s\nstderr: %s", args, status, needle, r.status, r.out, r.err);
  run_result_clear (&r);
}
