/* util/output.c - checking and writing output files (see output.h). */
#include "util/output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* ---- signals held off while a file is replaced ------------------------------------ */

static volatile sig_atomic_t guard_writing;   /* inside a replacement */
static volatile sig_atomic_t guard_pending;   /* the signal that came meanwhile */

static void
guard_handler (int sig)
{
  if (guard_writing)
    {
      guard_pending = sig;
      return;
    }
  signal (sig, SIG_DFL);
  raise (sig);
}

void
util_output_guard_signals (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    {
      struct sigaction old;
      if (sigaction (sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
        continue;   /* ignored (nohup) or someone's handler: left alone */
      struct sigaction sa;
      memset (&sa, 0, sizeof sa);
      sa.sa_handler = guard_handler;
      sigemptyset (&sa.sa_mask);
      sigaction (sigs[i], &sa, NULL);
    }
}

static void
guard_begin (void)
{
  guard_writing = 1;
}

static void
guard_end (void)
{
  guard_writing = 0;
  int sig = guard_pending;
  if (sig != 0)
    {
      signal (sig, SIG_DFL);
      raise (sig);
    }
}

static gboolean
set_contents (const char *path, const char *data, gssize len, int mode, GError **error)
{
  guard_begin ();
  gboolean ok = mode < 0 ? g_file_set_contents (path, data, len, error)
                         : g_file_set_contents_full (path, data, len,
                                                     G_FILE_SET_CONTENTS_CONSISTENT, mode,
                                                     error);
  guard_end ();
  return ok;
}

gboolean
util_output_set_contents (const char *path, const char *data, gssize len, GError **error)
{
  return set_contents (path, data, len, -1, error);
}

/* Linux gives up after 40 links in one lookup (ELOOP, path_resolution(7)); so do we. */
#define MAX_LINKS 40

static gboolean
set_errno_error (GError **error, int err, const char *format, const char *path)
{
  g_autofree char *what = g_strdup_printf (format, path);
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: %s", what,
               g_strerror (err));
  return FALSE;
}

/* Paths the kernel makes up (/dev/stdout -> /proc/self/fd/1 -> the shell's file): the
 * stream is what is meant, so they are written through whatever they resolve to. */
static gboolean
is_special (const char *path)
{
  return g_str_has_prefix (path, "/dev/") || g_str_has_prefix (path, "/proc/");
}

/* Follows symbolic links to the path that is not one (it need not exist). */
static char *
resolve_links (const char *path, GError **error)
{
  char *cur = g_strdup (path);
  for (int hops = 0; hops <= MAX_LINKS; hops++)
    {
      GStatBuf st;
      if (g_lstat (cur, &st) != 0 || !S_ISLNK (st.st_mode) || is_special (cur))
        return cur;
      GError *local = NULL;
      char *target = g_file_read_link (cur, &local);
      if (target == NULL)
        {
          g_propagate_error (error, local);
          g_free (cur);
          return NULL;
        }
      if (!g_path_is_absolute (target))
        {
          g_autofree char *dir = g_path_get_dirname (cur);
          char *abs = g_build_filename (dir, target, NULL);
          g_free (target);
          target = abs;
        }
      g_free (cur);
      cur = target;
    }
  set_errno_error (error, ELOOP, "cannot write %s", path);
  g_free (cur);
  return NULL;
}

gboolean
util_output_check (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  if (*path == '\0')
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "empty output path");
      return FALSE;
    }
  if (is_special (path))
    return TRUE;
  g_autofree char *real = resolve_links (path, error);
  if (real == NULL)
    return FALSE;
  GStatBuf st;
  if (g_stat (real, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                       "cannot write %s: it is a directory; name a file", path);
          return FALSE;
        }
      if (!S_ISREG (st.st_mode))
        return TRUE;                 /* written through when the time comes */
      if (g_access (real, W_OK) != 0)
        return set_errno_error (error, errno, "cannot write %s", path);
    }
  /* the replacement is made next to the file: its directory must take a new file */
  g_autofree char *dir = g_path_get_dirname (real);
  if (g_file_test (dir, G_FILE_TEST_EXISTS) && !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR,
                   "cannot write %s: %s is not a directory", path, dir);
      return FALSE;
    }
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   "cannot write %s: directory %s does not exist", path, dir);
      return FALSE;
    }
  if (g_access (dir, W_OK | X_OK) != 0)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
                   "cannot write %s: directory %s is not writable: %s", path, dir,
                   g_strerror (err));
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_through (const char *path, const char *data, gsize len, GError **error)
{
  int fd;
  do
    fd = open (path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return set_errno_error (error, errno, "cannot open %s", path);
  gsize done = 0;
  while (done < len)
    {
      ssize_t n = write (fd, data + done, len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int err = errno;
          close (fd);
          return set_errno_error (error, err, "cannot write %s", path);
        }
      done += (gsize) n;
    }
  if (close (fd) != 0 && errno != EINTR)
    return set_errno_error (error, errno, "cannot write %s", path);
  return TRUE;
}

gboolean
util_output_write (const char *path, const char *data, gsize len, GError **error)
{
  g_return_val_if_fail (path != NULL && (data != NULL || len == 0), FALSE);
  if (is_special (path))
    return write_through (path, data, len, error);
  g_autofree char *real = resolve_links (path, error);
  if (real == NULL)
    return FALSE;
  GStatBuf st;
  if (g_stat (real, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                       "cannot write %s: it is a directory", path);
          return FALSE;
        }
      if (!S_ISREG (st.st_mode))
        return write_through (real, data, len, error);
      /* the replacement keeps the file's permission bits */
      return set_contents (real, data, (gssize) len, (int) (st.st_mode & 07777), error);
    }
  /* a new file: 0666 less the umask, as open (2) makes it */
  return set_contents (real, data, (gssize) len, -1, error);
}
