/* tests/cli/cli-run.h - running the tandem binary from a CLI test ($TANDEM_EXE, set by
 * tests/cli/meson.build), shared by the tests that pass their arguments as one shell line. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

typedef struct {
  int   status;
  char *out;
  char *err;
} RunResult;

void run_result_clear (RunResult *r);
/* The directory {TMP} stands for in later run_tandem lines (none until set). */
void run_tandem_set_tmp (const char *dir);
/* Sets (value NULL: unsets) a variable in the environment of later runs alone, not in this
 * process's (setenv is not thread-safe once GLib has started threads). */
void run_tandem_setenv (const char *name, const char *value);
/* Runs `$TANDEM_EXE ARGS`, ARGS parsed as a shell line after {DATA} (tests/data), {SRC}
 * (the source root) and {TMP} are replaced; waits, and keeps the exit status, stdout and
 * stderr in `r` (run_result_clear frees them). */
void run_tandem (const char *args, RunResult *r);
/* Runs `$TANDEM_EXE` with the space-separated words of `args` taken as they are (no shell
 * parse), each occurrence of subst[2i] in a word replaced by subst[2i + 1] (pairs up to a
 * NULL key; `subst` may be NULL), in the directory `cwd` (NULL: this process's); waits,
 * and keeps the exit status, stdout and stderr (any bytes, NUL-terminated) in `r`. A
 * tandem killed by a signal fails the test. */
void run_tandem_words (const char *args, const char *const *subst, const char *cwd,
                       RunResult *r);
/* Removes `path` and everything under it (made writable first; links are removed, not
 * followed): a test's temporary directory. */
void remove_tree (const char *path);
/* `text` (a command's --json output) parsed: a copy of its root, which the caller frees;
 * text that is not JSON fails the test with the text. */
JsonNode *run_parse_json (const char *text);
/* A new temporary directory "PREFIX-XXXXXX" that {TMP} then stands for (run_tandem_set_tmp);
 * remove_tree at the end. */
char *run_make_tmp (const char *prefix);
/* `text` written to / read from dir/name; a failure fails the test. */
void run_write_file (const char *dir, const char *name, const char *text);
char *run_read_file (const char *dir, const char *name);
/* `tandem ARGS` (run_tandem) exits with `status` and prints exactly one line,
 * "tandem: error: ...<needle>...", on stderr; else the test fails with both outputs. */
void run_assert_error (const char *args, int status, const char *needle);
