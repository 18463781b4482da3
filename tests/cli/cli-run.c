/* tests/cli/cli-run.c - see cli-run.h. */
#include "cli-run.h"

#include <gio/gio.h>

static char *tmp_dir;

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
  g_autoptr (GSubprocess) proc = g_subprocess_newv ((const char *const *) argv,
                                                    G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                    | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  r->status = g_subprocess_get_exit_status (proc);
}
