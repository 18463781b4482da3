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

static volatile sig_atomic_t guard_depth;   /* nested holds (a report's files, one file) */

static void
guard_begin (void)
{
  guard_depth++;
  guard_writing = 1;
}

static void
guard_end (void)
{
  if (guard_depth > 0)
    guard_depth--;
  if (guard_depth > 0)
    return;
  guard_writing = 0;
  int sig = guard_pending;
  if (sig != 0)
    {
      signal (sig, SIG_DFL);
      raise (sig);
    }
}

void
util_output_hold_signals (void)
{
  guard_begin ();
}

void
util_output_release_signals (void)
{
  guard_end ();
}

/* ---- the test hook: a disk that fills after N bytes -------------------------------- */

static gint64 fail_after = -1;   /* bytes this process may still write; -1: no limit */

void
util_output_test_fail_after (gint64 bytes)
{
  fail_after = bytes;
}

/* write (2), or ENOSPC once the test hook's budget is spent (a short write first, as a
 * disk that fills mid-write gives). */
static ssize_t
hooked_write (int fd, const void *buf, size_t len)
{
  if (fail_after < 0)
    return write (fd, buf, len);
  if (fail_after == 0)
    {
      errno = ENOSPC;
      return -1;
    }
  size_t n = MIN (len, (size_t) fail_after);
  ssize_t w = write (fd, buf, n);
  if (w > 0)
    fail_after -= w;
  return w;
}

/* Writes all `len` bytes to fd (through the test hook), retrying on EINTR: 0, or the
 * errno that stopped it (ENOSPC for a write that makes no progress, as a full device
 * may answer). */
static int
write_all (int fd, const char *data, gsize len)
{
  gsize done = 0;
  while (done < len)
    {
      ssize_t n = hooked_write (fd, data + done, len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno;
      if (n == 0)
        return ENOSPC;
      done += (gsize) n;
    }
  return 0;
}

/* ---- a file replaced through a temporary next to it -------------------------------- */

/* What to do about a write that failed, by its errno. */
static const char *
errno_hint (int err)
{
  switch (err)
    {
    case ENOSPC:
#ifdef EDQUOT
    case EDQUOT:
#endif
      return "free space on the file system that holds it (df -h), or write it elsewhere";
    case EIO:
      return "the disk reported an I/O error: check it (dmesg), or write it elsewhere";
    case EROFS:
      return "the file system is read-only: write it elsewhere";
    default:
      return "write it elsewhere";
    }
}

static gboolean
stage_error (GError **error, int err, const char *path, gboolean existed)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
               "cannot write %s: %s (hint: %s)%s", path, g_strerror (err), errno_hint (err),
               existed ? "; the file that was there is unchanged" : "");
  return FALSE;
}

struct UtilOutputStaged {
  char *path;   /* the target */
  char *tmp;    /* NAME.XXXXXX next to it; NULL once renamed */
};

void
util_output_staged_free (UtilOutputStaged *s)
{
  if (s == NULL)
    return;
  if (s->tmp != NULL)
    g_unlink (s->tmp);
  g_free (s->tmp);
  g_free (s->path);
  g_free (s);
}

const char *
util_output_staged_path (const UtilOutputStaged *s)
{
  return s->path;
}

/* Writes data to a new temporary file beside `path` (mode: its permission bits, or -1 for
 * 0666 less the umask), every byte, fsync, close, each checked: the file is on the disk or
 * it is gone. */
static UtilOutputStaged *
stage (const char *path, const char *data, gsize len, int mode, GError **error)
{
  gboolean existed = g_file_test (path, G_FILE_TEST_EXISTS);
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  int fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0)
    return stage_error (error, errno, path, existed), NULL;
  int err = 0;
  /* g_mkstemp makes it 0600; the target's own bits, or what open (2) would give */
  mode_t bits = 0;
  if (mode >= 0)
    bits = (mode_t) mode;
  else
    {
      mode_t mask = umask (0);
      umask (mask);
      bits = 0666 & ~mask;
    }
  if (fchmod (fd, bits) != 0)
    err = errno;
  if (err == 0)
    err = write_all (fd, data, len);
  /* the data on the disk before the name: a crash after the rename never shows an empty
   * file (ext4 and XFS may reorder them otherwise; g_file_set_contents does the same) */
  if (err == 0 && fsync (fd) != 0)
    err = errno;
  if (close (fd) != 0 && err == 0 && errno != EINTR)
    err = errno;
  if (err != 0)
    {
      g_unlink (tmp);
      return stage_error (error, err, path, existed), NULL;
    }
  UtilOutputStaged *s = g_new0 (UtilOutputStaged, 1);
  s->path = g_strdup (path);
  s->tmp = g_steal_pointer (&tmp);
  return s;
}

gboolean
util_output_staged_commit (UtilOutputStaged *s, GError **error)
{
  g_return_val_if_fail (s != NULL && s->tmp != NULL, FALSE);
  if (g_rename (s->tmp, s->path) != 0)
    {
      int err = errno;
      gboolean existed = g_file_test (s->path, G_FILE_TEST_EXISTS);
      g_unlink (s->tmp);
      g_clear_pointer (&s->tmp, g_free);
      return stage_error (error, err, s->path, existed);
    }
  g_clear_pointer (&s->tmp, g_free);
  return TRUE;
}

static gboolean
set_contents (const char *path, const char *data, gssize len, int mode, GError **error)
{
  if (len < 0)
    len = (gssize) strlen (data);
  guard_begin ();
  UtilOutputStaged *s = stage (path, data, (gsize) len, mode, error);
  gboolean ok = s != NULL && util_output_staged_commit (s, error);
  util_output_staged_free (s);
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
    return stage_error (error, errno, path, FALSE);
  int err = write_all (fd, data, len);
  if (err != 0)
    {
      close (fd);
      return stage_error (error, err, path, FALSE);
    }
  if (close (fd) != 0 && errno != EINTR)
    return stage_error (error, errno, path, FALSE);
  return TRUE;
}

/* The file a write to `path` replaces: its links resolved (*real), refused if a
 * directory; *mode its permission bits where it is a regular file (-1: a new file, 0666
 * less the umask as open (2) makes it), *special TRUE where it exists and is not a
 * regular file (a FIFO, a device: written through, not replaced). */
static gboolean
write_target (const char *path, char **real, int *mode, gboolean *special, GError **error)
{
  *real = resolve_links (path, error);
  if (*real == NULL)
    return FALSE;
  *mode = -1;
  *special = FALSE;
  GStatBuf st;
  if (g_stat (*real, &st) != 0)
    return TRUE;
  if (S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                   "cannot write %s: it is a directory", path);
      g_clear_pointer (real, g_free);
      return FALSE;
    }
  if (S_ISREG (st.st_mode))
    *mode = (int) (st.st_mode & 07777);   /* the replacement keeps the file's bits */
  else
    *special = TRUE;
  return TRUE;
}

gboolean
util_output_write (const char *path, const char *data, gsize len, GError **error)
{
  g_return_val_if_fail (path != NULL && (data != NULL || len == 0), FALSE);
  if (is_special (path))
    return write_through (path, data, len, error);
  g_autofree char *real = NULL;
  int mode;
  gboolean special;
  if (!write_target (path, &real, &mode, &special, error))
    return FALSE;
  if (special)
    return write_through (real, data, len, error);
  return set_contents (real, data, (gssize) len, mode, error);
}

UtilOutputStaged *
util_output_stage (const char *path, const char *data, gsize len, GError **error)
{
  g_return_val_if_fail (path != NULL && (data != NULL || len == 0), NULL);
  g_autofree char *real = NULL;
  int mode;
  gboolean special;
  if (!write_target (path, &real, &mode, &special, error))
    return NULL;
  return stage (real, data, len, mode, error);
}

/* A plain decimal number, the whole of `t`: -?digits(.digits)?([eE][+-]?digits)? (at
 * least one digit before the exponent; no hex, no spaces) */
static gboolean
plain_number (const char *t)
{
  const char *p = t + (*t == '-');
  gboolean digits = FALSE;
  while (g_ascii_isdigit (*p))
    p++, digits = TRUE;
  if (*p == '.')
    for (p++; g_ascii_isdigit (*p); p++)
      digits = TRUE;
  if (!digits)
    return FALSE;
  if (*p == 'e' || *p == 'E')
    {
      p++;
      if (*p == '+' || *p == '-')
        p++;
      if (!g_ascii_isdigit (*p))
        return FALSE;
      while (g_ascii_isdigit (*p))
        p++;
    }
  return *p == '\0';
}

void
util_csv_field (GString *out, const char *text)
{
  g_return_if_fail (out != NULL);
  if (text == NULL)
    return;
  /* a leading '-' is a formula unless the whole field is a plain decimal number: "-1.5"
   * and "-2e-3" stay numbers, "-1+cmd|' /C calc'!A0" (a name that starts with a digit
   * after its minus) was left unquoted and a spreadsheet ran it */
  const gboolean formula = text[0] == '=' || text[0] == '+' || text[0] == '@'
                           || text[0] == '\t' || text[0] == '\r'
                           || (text[0] == '-' && !plain_number (text));
  const gboolean quote = formula || strpbrk (text, ",\"\n\r") != NULL;
  if (!quote)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  if (formula)
    g_string_append_c (out, '\'');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}
