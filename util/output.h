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
 *  - Errors are G_FILE_ERROR GErrors that name the path; nothing is printed. */
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
void     util_output_guard_signals (void);

G_END_DECLS
