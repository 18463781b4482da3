/* tests/util/test-output.c - output files: regular files replaced atomically, symbolic
 * links followed and kept, FIFOs written through and never replaced, directories refused.
 * Everything happens in a temporary directory; nothing needs root. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "util/output.h"

typedef struct {
  char *dir;
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("tandem-output-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_autoptr (GDir) d = g_dir_open (f->dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (f->dir, name, NULL);
      g_assert_cmpint (g_remove (p), ==, 0);
    }
  g_assert_cmpint (g_rmdir (f->dir), ==, 0);
  g_free (f->dir);
}

static char *
path_in (Fixture *f, const char *name)
{
  return g_build_filename (f->dir, name, NULL);
}

static void
assert_contents (const char *path, const char *expect)
{
  g_autofree char *got = NULL;
  g_assert_true (g_file_get_contents (path, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, expect);
}

/* A new file is created; an existing one replaced (a new inode) keeping its mode. */
static void
test_regular (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autofree char *p = path_in (f, "out.json");
  g_assert_true (util_output_check (p, &error));
  g_assert_true (util_output_write (p, "first", 5, &error));
  g_assert_no_error (error);
  assert_contents (p, "first");
  g_assert_cmpint (g_chmod (p, 0640), ==, 0);
  GStatBuf before, after;
  g_assert_cmpint (g_stat (p, &before), ==, 0);
  g_assert_true (util_output_write (p, "second", 6, &error));
  assert_contents (p, "second");
  g_assert_cmpint (g_stat (p, &after), ==, 0);
  g_assert_cmpuint (after.st_mode & 07777, ==, 0640);
  /* replaced by rename, not rewritten in place */
  g_assert_cmpuint (after.st_ino, !=, before.st_ino);
}

/* A symbolic link (relative, and a chain of two) is followed: the target gets the data,
 * the links stay links. A dangling link creates its target. */
static void
test_symlink (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autofree char *target = path_in (f, "target.json");
  g_autofree char *link1 = path_in (f, "link1");
  g_autofree char *link2 = path_in (f, "link2");
  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  g_assert_cmpint (symlink ("target.json", link1), ==, 0);
  g_assert_cmpint (symlink (link1, link2), ==, 0);
  g_assert_true (util_output_check (link2, &error));
  g_assert_true (util_output_write (link2, "new", 3, &error));
  g_assert_no_error (error);
  assert_contents (target, "new");
  GStatBuf st;
  g_assert_cmpint (g_lstat (link1, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  g_assert_cmpint (g_lstat (link2, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));

  g_autofree char *dangling = path_in (f, "dangling");
  g_autofree char *made = path_in (f, "made.json");
  g_assert_cmpint (symlink ("made.json", dangling), ==, 0);
  g_assert_true (util_output_check (dangling, &error));
  g_assert_true (util_output_write (dangling, "x", 1, &error));
  assert_contents (made, "x");
  g_assert_cmpint (g_lstat (dangling, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
}

/* A FIFO is written through: a reader on the other end gets the bytes, and the FIFO is
 * still a FIFO afterwards (a rename would have replaced it by a regular file). */
static void
test_fifo (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_autofree char *fifo = path_in (f, "pipe");
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (util_output_check (fifo, &error));
  g_assert_no_error (error);
  int fds[2];
  g_assert_cmpint (pipe (fds), ==, 0);
  pid_t pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      /* the reader: copies what comes through the FIFO to the parent's pipe */
      close (fds[0]);
      g_autofree char *got = NULL;
      gsize n = 0;
      if (!g_file_get_contents (fifo, &got, &n, NULL))
        _exit (2);
      _exit (write (fds[1], got, n) == (ssize_t) n ? 0 : 3);
    }
  close (fds[1]);
  const char *text = "{\"traceEvents\":[]}\n";
  g_assert_true (util_output_write (fifo, text, strlen (text), &error));
  g_assert_no_error (error);
  char buf[64] = "";
  gsize got = 0;
  ssize_t n;
  while ((n = read (fds[0], buf + got, sizeof buf - 1 - got)) > 0)
    got += (gsize) n;
  close (fds[0]);
  int status = 0;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_assert_cmpstr (buf, ==, text);
  GStatBuf st;
  g_assert_cmpint (g_lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));

  /* a symbolic link to the FIFO: followed, and the FIFO written through */
  g_autofree char *link = path_in (f, "pipe-link");
  g_assert_cmpint (symlink ("pipe", link), ==, 0);
  g_assert_true (util_output_check (link, &error));
  pid = fork ();
  if (pid == 0)
    {
      g_autofree char *got2 = NULL;
      _exit (g_file_get_contents (fifo, &got2, NULL, NULL) && strcmp (got2, "via") == 0
             ? 0 : 4);
    }
  g_assert_true (util_output_write (link, "via", 3, &error));
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_assert_cmpint (g_lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
}

/* /dev/null is a device: accepted and written through, still a device afterwards. */
static void
test_device (void)
{
  GError *error = NULL;
  g_assert_true (util_output_check ("/dev/null", &error));
  g_assert_true (util_output_write ("/dev/null", "abc", 3, &error));
  g_assert_no_error (error);
  GStatBuf st;
  g_assert_cmpint (g_stat ("/dev/null", &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));
}

/* Refused before any work: a directory, a missing directory, an empty path. */
static void
test_refused (Fixture *f, gconstpointer data)
{
  GError *error = NULL;
  g_assert_false (util_output_check (f->dir, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR);
  g_assert_nonnull (strstr (error->message, f->dir));
  g_clear_error (&error);
  g_autofree char *missing = g_build_filename (f->dir, "no-dir", "t.json", NULL);
  g_assert_false (util_output_check (missing, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull (strstr (error->message, "does not exist"));
  g_clear_error (&error);
  g_assert_false (util_output_write (missing, "x", 1, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  /* a file where the directory should be: it exists, so "does not exist" would be
   * wrong; the message says what it is (calibrate --out FILE/p.json) */
  g_autofree char *file = g_build_filename (f->dir, "a-file", NULL);
  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  g_autofree char *under = g_build_filename (file, "t.json", NULL);
  g_assert_false (util_output_check (under, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR);
  g_assert_nonnull (strstr (error->message, "is not a directory"));
  g_assert_null (strstr (error->message, "does not exist"));
  g_clear_error (&error);
  g_assert_false (util_output_check ("", &error));
  g_clear_error (&error);
}

/* Number of entries in the fixture's directory. */
static guint
n_entries (Fixture *f)
{
  g_autoptr (GDir) d = g_dir_open (f->dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/* A disk that fills mid-write (the test hook: ENOSPC after 3 bytes): the file that was
 * there keeps every byte and its mode, the temporary is gone, and the error names the
 * file, strerror and a hint. Staged files are renamed only on commit; one freed
 * uncommitted leaves the old file and no temporary. */
static void
test_disk_full (Fixture *f, gconstpointer data)
{
  g_autofree char *path = path_in (f, "t.json");
  g_assert_true (g_file_set_contents (path, "old", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0640), ==, 0);
  GError *error = NULL;
  util_output_test_fail_after (3);
  g_assert_false (util_output_write (path, "new text", 8, &error));
  util_output_test_fail_after (-1);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, g_strerror (ENOSPC)));
  g_assert_nonnull (strstr (error->message, "hint: free space"));
  g_assert_nonnull (strstr (error->message, "the file that was there is unchanged"));
  g_clear_error (&error);
  assert_contents (path, "old");
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0640);
  g_assert_cmpuint (n_entries (f), ==, 1);

  /* staged: nothing moves before the commit; freed uncommitted, the temporary goes */
  UtilOutputStaged *s = util_output_stage (path, "staged", 6, &error);
  g_assert_no_error (error);
  assert_contents (path, "old");
  g_assert_cmpuint (n_entries (f), ==, 2);
  util_output_staged_free (s);
  assert_contents (path, "old");
  g_assert_cmpuint (n_entries (f), ==, 1);
  s = util_output_stage (path, "staged", 6, &error);
  g_assert_no_error (error);
  g_assert_true (util_output_staged_commit (s, &error));
  g_assert_no_error (error);
  util_output_staged_free (s);
  assert_contents (path, "staged");
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0640);
  g_assert_cmpuint (n_entries (f), ==, 1);
}

/* The child's sender: waits until the temporary file of the replacement is there (the
 * write is under way), then sends SIGTERM to the process. */
typedef struct {
  const char *dir;
  const char *name;   /* the target's base name: the temporary is NAME.XXXXXX */
} Sender;

static gpointer
send_when_writing (gpointer data)
{
  const Sender *s = data;
  g_autofree char *prefix = g_strconcat (s->name, ".", NULL);
  for (int tries = 0; tries < 200000; tries++)
    {
      g_autoptr (GDir) d = g_dir_open (s->dir, 0, NULL);
      const char *e;
      while (d != NULL && (e = g_dir_read_name (d)) != NULL)
        if (g_str_has_prefix (e, prefix))
          {
            kill (getpid (), SIGTERM);
            return NULL;
          }
      g_usleep (10);
    }
  return NULL;
}

/* SIGTERM while a file is replaced, with util_output_guard_signals: the process still
 * ends by SIGTERM (the default action, not swallowed), but only after the rename, so the
 * file is whole (every byte) and no NAME.XXXXXX is left. Without the guard the signal
 * ended it mid-write: the temporary file stayed and the target was never made (what an
 * interrupted `tandem report` left in its directory). 64 MiB, so that the write lasts
 * long enough for the sender to see its temporary file. */
static void
test_signal_during_write (Fixture *f, gconstpointer data)
{
  const gsize len = 64u << 20;
  g_autofree char *path = g_build_filename (f->dir, "big.bin", NULL);
  pid_t pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      util_output_guard_signals ();
      char *buf = g_malloc (len);
      memset (buf, 'x', len);
      Sender s = { f->dir, "big.bin" };
      g_thread_new ("sender", send_when_writing, &s);
      util_output_write (path, buf, len, NULL);
      /* the signal came during the write and ended the process after it: never here
       * (the nap gives a signal sent at the rename time to arrive) */
      g_usleep (2 * G_USEC_PER_SEC);
      _exit (0);
    }
  int status = 0;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGTERM);
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint ((gint64) st.st_size, ==, (gint64) len);
  g_autoptr (GDir) d = g_dir_open (f->dir, 0, NULL);
  const char *e;
  guint n = 0;
  while ((e = g_dir_read_name (d)) != NULL)
    {
      g_test_message ("left: %s", e);
      n++;
    }
  g_assert_cmpuint (n, ==, 1);   /* big.bin alone */
}

/* CSV fields: RFC 4180 quoting, and a text a spreadsheet would run as a formula kept as
 * text behind a ' (a model name =HYPERLINK("http://x","a") from a user's CSV reached
 * report.csv as a live formula); negative numbers stay numbers, and only whole numbers */
static void
test_csv_field (void)
{
  static const struct { const char *in, *out; } cases[] = {
    { "llama3-8b", "llama3-8b" },
    { "a,b", "\"a,b\"" },
    { "say \"hi\"", "\"say \"\"hi\"\"\"" },
    { "=HYPERLINK(\"http://x\",\"a\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"a\"\")\"" },
    { "+1+2", "\"'+1+2\"" },
    { "@SUM(A1)", "\"'@SUM(A1)\"" },
    { "-cmd", "\"'-cmd\"" },
    { "\tx", "\"'\tx\"" },
    { "-3.2", "-3.2" },
    { "-.5", "-.5" },
    { "-2e-3", "-2e-3" },
    /* a minus and a digit, then a formula (audit: a model directory named so reached
     * runs --csv raw); and a sum a spreadsheet computes */
    { "-1+cmd|' /C calc'!A0", "\"'-1+cmd|' /C calc'!A0\"" },
    { "-2+3", "\"'-2+3\"" },
    { "-0x10", "\"'-0x10\"" },
    { "", "" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      util_csv_field (s, cases[i].in);
      g_assert_cmpstr (s->str, ==, cases[i].out);
    }
  g_autoptr (GString) s = g_string_new ("x");
  util_csv_field (s, NULL);
  g_assert_cmpstr (s->str, ==, "x");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/util/output/regular", Fixture, NULL, setup, test_regular, teardown);
  g_test_add ("/util/output/symlink", Fixture, NULL, setup, test_symlink, teardown);
  g_test_add ("/util/output/fifo", Fixture, NULL, setup, test_fifo, teardown);
  g_test_add_func ("/util/output/device", test_device);
  g_test_add ("/util/output/disk-full", Fixture, NULL, setup, test_disk_full, teardown);
  g_test_add ("/util/output/refused", Fixture, NULL, setup, test_refused, teardown);
  g_test_add ("/util/output/signal-during-write", Fixture, NULL, setup,
              test_signal_during_write, teardown);
  g_test_add_func ("/util/output/csv-field", test_csv_field);
  return g_test_run ();
}
