/* tests/cli/test-backend-module.c - the CUDA backend is a loadable module: the tandem
 * binary has no CUDA library among its NEEDED entries (readelf -d), and `--backend cuda`
 * without the module, or with a module that does not load, exits 1 with one line
 * "tandem: error: ..." that names the cuda backend and carries a hint. */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <string.h>

typedef struct {
  char *out, *err;
  int status;
} RunResult;

/* Runs argv (NULL-terminated) with TANDEM_BACKEND_DIR set to `backend_dir` (if not NULL). */
static void
run (const char *const *argv, const char *backend_dir, RunResult *r)
{
  g_autoptr (GSubprocessLauncher) l =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  if (backend_dir)
    g_subprocess_launcher_setenv (l, "TANDEM_BACKEND_DIR", backend_dir, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) p = g_subprocess_launcher_spawnv (l, argv, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (p, NULL, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  r->status = g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
}

static void
run_clear (RunResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

/* readelf -d lists the shared libraries the dynamic loader maps at start-up (NEEDED):
 * none of them may be a CUDA library. */
static void
test_no_cuda_needed (void)
{
  const char *exe = g_getenv ("TANDEM_EXE");
  g_assert_nonnull (exe);
  const char *argv[] = { "readelf", "-d", exe, NULL };
  RunResult r = { 0 };
  run (argv, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "(NEEDED)"));          /* it did list something */
  g_assert_nonnull (strstr (r.out, "libglib-2.0.so"));
  const char *cuda_libs[] = { "libcudart", "libcublas", "libcublasLt", "libnccl", "libcuda." };
  for (guint i = 0; i < G_N_ELEMENTS (cuda_libs); i++)
    if (strstr (r.out, cuda_libs[i]) != NULL)
      g_error ("tandem needs %s at start-up:\n%s", cuda_libs[i], r.out);
  run_clear (&r);
}

static void
assert_cuda_refused (const char *backend_dir, const char *expect)
{
  const char *exe = g_getenv ("TANDEM_EXE");
  const char *argv[] = { exe, "run", "--backend", "cuda", "--model", "tiny-llama", "--seq",
                         "128", "--steps", "1", "--no-db", NULL };
  RunResult r = { 0 };
  run (argv, backend_dir, &r);
  if (r.status != 1 || strstr (r.err, expect) == NULL
      || !g_str_has_prefix (r.err, "tandem: error: ") || strstr (r.err, "hint") == NULL)
    g_error ("run --backend cuda (TANDEM_BACKEND_DIR=%s): status %d, stderr '%s' (expected 1, "
             "'%s' and a hint)", backend_dir, r.status, r.err, expect);
  /* one line */
  g_assert_cmpint (strchr (r.err, '\n') - r.err, ==, (long) strlen (r.err) - 1);
  run_clear (&r);
}

/* No module in the folder searched; then a file of that name that is not a library. */
static void
test_cuda_missing (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tandem-module-XXXXXX", &error);
  g_assert_no_error (error);
#if HAVE_CUDA
  assert_cuda_refused (dir, "the cuda backend module (libtandem-backend-cuda.so) is not installed");
  g_autofree char *fake = g_build_filename (dir, "libtandem-backend-cuda.so", NULL);
  g_assert_true (g_file_set_contents (fake, "not an ELF file", -1, &error));
  assert_cuda_refused (dir, "cannot load the cuda backend");
  g_unlink (fake);
#else
  assert_cuda_refused (dir, "no execution backend 'cuda' in this build");
#endif
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/backend-module/no-cuda-needed", test_no_cuda_needed);
  g_test_add_func ("/cli/backend-module/cuda-missing", test_cuda_missing);
  return g_test_run ();
}
