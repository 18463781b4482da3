/* tests/cli/test-table.c - cli/cli-table.c: widths from the cells, alignment, no trailing
 * blanks, UTF-8 widths, note rows, header-less key/value blocks. */
#include "cli/cli-table.h"

/* Widths: column 1 is max("name" 4, "attn_residual" 13) = 13, column 2 max("GFLOP" 5,
 * "12345.67" 8) = 8; columns are joined by two spaces, so every line of the second
 * column ends at 2 + 13 + 2 + 8 = 25 characters and the left column's value starts at 2. */
static void
test_widths (void)
{
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "name", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "GFLOP", CLI_ALIGN_RIGHT);
  cli_table_add_row (t);
  cli_table_cell (t, "%s", "qkv");
  cli_table_cell (t, "%.2f", 412.32);
  cli_table_add_row (t);
  cli_table_cell (t, "%s", "attn_residual");
  cli_table_cell (t, "%.2f", 12345.67);
  g_autofree char *text = cli_table_render (t, "  ");
  g_assert_cmpstr (text, ==,
                   "  name              GFLOP\n"
                   "  qkv              412.32\n"
                   "  attn_residual  12345.67\n");
}

/* A left-aligned last column pads nothing, and a missing cell prints blank: no line ends
 * in a space. A note row stands alone and does not widen the columns. */
static void
test_trailing_and_notes (void)
{
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "a", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "verdict", CLI_ALIGN_LEFT);
  cli_table_add_row (t);
  cli_table_cell (t, "%d", 1);
  cli_table_cell (t, "fits");
  cli_table_add_note (t, "... a note far wider than every column");
  cli_table_add_row (t);
  cli_table_cell (t, "%d", 22);
  g_autofree char *text = cli_table_render (t, "");
  g_assert_cmpstr (text, ==,
                   " a  verdict\n"
                   " 1  fits\n"
                   "... a note far wider than every column\n"
                   "22\n");
}

/* Width counts characters: "×" is 2 bytes of UTF-8 and one column, so "2×3" (5 bytes)
 * is as wide as "abc" and both right-align to width 3. Empty headers: no header line. */
static void
test_utf8_headerless (void)
{
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "", CLI_ALIGN_RIGHT);
  cli_table_add_row (t);
  cli_table_cell (t, "x");
  cli_table_cell (t, "2×3");
  cli_table_add_row (t);
  cli_table_cell (t, "yy");
  cli_table_cell (t, "abc");
  g_autofree char *text = cli_table_render (t, "");
  g_assert_cmpstr (text, ==, "x   2×3\nyy  abc\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/table/widths", test_widths);
  g_test_add_func ("/cli/table/trailing-and-notes", test_trailing_and_notes);
  g_test_add_func ("/cli/table/utf8-headerless", test_utf8_headerless);
  return g_test_run ();
}
