/* tests/cli/test-bad-input.c - a sweep of bad input to every command (numbers at and past
 * their limits, files that are not what their flag expects, outputs over inputs): each
 * case here crashed, hung, lost a file or answered with a wrong exit status before its
 * fix. Files are generated in a temporary directory ({TMP}). TANDEM_EXE is the binary
 * under test. */
#include "cli-run.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

/* Exit status `status` and exactly one line "tandem: error: ...<needle>..." on stderr. */
static void
assert_error (const char *args, int status, const char *needle)
{
  RunResult r = { 0 };
  run_tandem (args, &r);
  if (r.status != status || !g_str_has_prefix (r.err, "tandem: error: ")
      || strstr (r.err, needle) == NULL || strchr (r.err, '\n') != r.err + strlen (r.err) - 1)
    g_error ("tandem %s\nexpected status %d and one error line with '%s', got %d\n"
             "stdout: %s\nstderr: %s", args, status, needle, r.status, r.out, r.err);
  run_result_clear (&r);
}

/* validate --only with a row id past 2^63 - 1: strtoll saturated it to 2^63 - 1 and the
 * range loop stepped past that (signed overflow; UBSan stopped it, a plain build appended
 * ids until memory ran out). 2^64 = 18446744073709551616 is refused as no row id; 2^63 - 1
 * itself is a row id that selects no row of the file. */
static void
test_validate_only_past_int64 (void)
{
  assert_error ("validate {SRC}/data/published-runs.csv --no-db --only 18446744073709551616",
                2, "--only '18446744073709551616': item '18446744073709551616' is not a row id");
  assert_error ("validate {SRC}/data/published-runs.csv --no-db --only 1-18446744073709551616",
                2, "is not a row id or a range low-high");
  assert_error ("validate {SRC}/data/published-runs.csv --no-db --only 9223372036854775807",
                2, "--only 9223372036854775807 selects no row of");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/bad-input/validate-only-past-int64", test_validate_only_past_int64);
  return g_test_run ();
}
