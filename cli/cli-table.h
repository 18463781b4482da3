/* cli/cli-table.h - aligned text tables for the human output of subcommands.
 *
 * Contract:
 *  - Columns are sized to their widest cell or header (counted in UTF-8 characters), so a
 *    cell never runs into its neighbour: tables never overflow their columns.
 *  - Two spaces separate columns; text columns are left-aligned, number columns right-
 *    aligned; trailing blanks are never printed.
 *  - A table whose headers are all empty prints no header line (a key/value block).
 *  - Rendering builds a string (cli_table_render), so tests read exactly what is printed.
 *  - Cells are copied; a table is freed with cli_table_free (NULL-safe). */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef enum {
  CLI_ALIGN_LEFT,
  CLI_ALIGN_RIGHT,
} CliAlign;

typedef struct CliTable CliTable;

CliTable *cli_table_new        (void);
void      cli_table_free       (CliTable *table);
/* Adds a column; all columns come before the first row. */
void      cli_table_add_column (CliTable *table, const char *header, CliAlign align);
/* Starts a row; the cells that follow fill it from the left (missing cells print blank). */
void      cli_table_add_row    (CliTable *table);
void      cli_table_cell       (CliTable *table, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* A line of its own between rows (e.g. "..." for rows left out), not counted in widths. */
void      cli_table_add_note   (CliTable *table, const char *text);
/* The table as text, every line prefixed with `indent` and ended with '\n'. */
char     *cli_table_render     (const CliTable *table, const char *indent);
void      cli_table_print      (const CliTable *table, FILE *out, const char *indent);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CliTable, cli_table_free)

G_END_DECLS
