/* util/output.h - output files (traces, --out, fallback results): checked before any work
 * starts, then written without harm to what the path names.
 *
 * Contract:
 *  - A regular file (new or existing) is replaced atomically: a temporary file in the same
 *    directory, then rename, so a reader never sees half of it; an existing file keeps its
 *    permission bits.
 *  - A symbolic link is followed, never replaced: its final target is written as above
 *    and the link stays a link.
 *  - A path that exists and is not a regular file (a FIFO, a character device, a socket,
 *    anything under /dev or /proc such as /dev/stdout) is opened and written through;
 *    it is never removed or replaced.
 *  - A directory is refused.
 *  - The temporary file gets every byte, then fsync, then close, each checked; a write that
 *    fails (ENOSPC, EIO) removes it and leaves the file that was there as it was.
 *  - Several files that belong together (a report) are staged first and renamed only once
 *    every one is written (util_output_stage, util_output_staged_commit).
 *  - Errors are G_FILE_ERROR GErrors that name the path, give strerror and a hint; nothing
 *    is printed. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Can `path` be written? Call it before the work whose result goes there. An existing
 * regular file must be writable, a new one needs an existing, writable directory; a
 * directory is refused; a non-regular file is accepted (it is opened when written). */
gboolean util_output_check (const char *path, GError **error);

/* Writes `len` bytes of `data` to `path` as the contract says. */
gboolean util_output_write (const char *path, const char *data, gsize len, GError **error);

/* g_file_set_contents with the signals util_output_guard_signals took held off until the
 * rename is done: an interrupt never leaves the temporary file (NAME.XXXXXX) behind. */
gboolean util_output_set_contents (const char *path, const char *data, gssize len,
                                   GError **error);

/* SIGINT, SIGTERM and SIGHUP that still have their default action end the process as
 * before, except while util_output_write or util_output_set_contents replaces a file: then
 * they end it right after the rename (a command that writes files and stores nothing:
 * report). Call once, at the start of such a command. */
/* RFC 4180 with formula neutralisation: `text` as one CSV field appended to `out`,
 * quoted where it holds a comma, quote or line break (quotes doubled); a text that a
 * spreadsheet would evaluate as a formula (it starts with =, +, @, a tab or a carriage
 * return, or with - not followed by a digit or a point) is written behind a ' (OWASP's
 * CSV injection advice), so a model name =HYPERLINK(...) stays text. Numbers ("-3.2")
 * are left as they are. NULL appends nothing. */
void     util_csv_field (GString *out, const char *text);
void     util_output_guard_signals (void);

/* Holds SIGINT, SIGTERM and SIGHUP (those util_output_guard_signals took) off until the
 * matching release: a command that stages several files holds them from the first
 * temporary file to the last rename, so an interrupt leaves no NAME.XXXXXX. Nests. */
void     util_output_hold_signals    (void);
void     util_output_release_signals (void);

/* A file written in full to a temporary beside `path` (links followed, permission bits
 * kept, as util_output_write does) and not yet renamed over it. Freeing one that was not
 * committed removes the temporary: the file that was there stays as it was. */
typedef struct UtilOutputStaged UtilOutputStaged;
UtilOutputStaged *util_output_stage (const char *path, const char *data, gsize len,
                                     GError **error);
gboolean          util_output_staged_commit (UtilOutputStaged *staged, GError **error);
const char       *util_output_staged_path   (const UtilOutputStaged *staged);
void              util_output_staged_free   (UtilOutputStaged *staged);   /* NULL-safe */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (UtilOutputStaged, util_output_staged_free)

/* Test hook (tandem reads TANDEM_TEST_WRITE_FAIL_AFTER=N at start): the files this process
 * writes through a temporary take N bytes in all, then every write fails with ENOSPC, as
 * a disk that fills does; -1 (the default) lifts the limit. */
void     util_output_test_fail_after (gint64 bytes);

G_END_DECLS
