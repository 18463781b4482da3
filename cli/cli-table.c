/* cli/cli-table.c - aligned text tables (the widths come from the cells, not from fixed
 * printf widths that a long name or a big number overflows). */
#include "cli/cli-table.h"

#include <stdarg.h>
#include <string.h>

typedef struct {
  char    *header;
  CliAlign align;
} Column;

/* A row is a GPtrArray of cell strings; a note row has `note` set and no cells. */
typedef struct {
  GPtrArray *cells;
  char      *note;
} Row;

struct CliTable {
  GArray    *columns;   /* Column */
  GPtrArray *rows;      /* Row * */
};

static void
row_free (gpointer data)
{
  Row *row = data;
  if (row->cells)
    g_ptr_array_unref (row->cells);
  g_free (row->note);
  g_free (row);
}

static void
column_clear (gpointer data)
{
  g_free (((Column *) data)->header);
}

CliTable *
cli_table_new (void)
{
  CliTable *t = g_new0 (CliTable, 1);
  t->columns = g_array_new (FALSE, TRUE, sizeof (Column));
  g_array_set_clear_func (t->columns, column_clear);
  t->rows = g_ptr_array_new_with_free_func (row_free);
  return t;
}

void
cli_table_free (CliTable *t)
{
  if (t == NULL)
    return;
  g_array_unref (t->columns);
  g_ptr_array_unref (t->rows);
  g_free (t);
}

void
cli_table_add_column (CliTable *t, const char *header, CliAlign align)
{
  g_return_if_fail (t->rows->len == 0);
  Column c = { g_strdup (header ? header : ""), align };
  g_array_append_val (t->columns, c);
}

void
cli_table_add_row (CliTable *t)
{
  Row *row = g_new0 (Row, 1);
  row->cells = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (t->rows, row);
}

void
cli_table_cell (CliTable *t, const char *format, ...)
{
  g_return_if_fail (t->rows->len > 0);
  Row *row = g_ptr_array_index (t->rows, t->rows->len - 1);
  g_return_if_fail (row->cells != NULL && row->cells->len < t->columns->len);
  va_list ap;
  va_start (ap, format);
  g_ptr_array_add (row->cells, g_strdup_vprintf (format, ap));
  va_end (ap);
}

void
cli_table_add_note (CliTable *t, const char *text)
{
  Row *row = g_new0 (Row, 1);
  row->note = g_strdup (text);
  g_ptr_array_add (t->rows, row);
}

/* Display width: characters, not bytes (a "x" and a "×" take one column each); invalid
 * UTF-8 counts its bytes. */
static gsize
text_width (const char *s)
{
  if (!g_utf8_validate (s, -1, NULL))
    return strlen (s);
  return (gsize) g_utf8_strlen (s, -1);
}

static void
append_cell (GString *line, const char *text, gsize width, CliAlign align, gboolean last)
{
  gsize w = text_width (text);
  gsize pad = width > w ? width - w : 0;
  if (align == CLI_ALIGN_RIGHT)
    for (gsize i = 0; i < pad; i++)
      g_string_append_c (line, ' ');
  g_string_append (line, text);
  if (align == CLI_ALIGN_LEFT && !last)
    for (gsize i = 0; i < pad; i++)
      g_string_append_c (line, ' ');
}

static void
append_line (GString *out, GString *line, const char *indent)
{
  /* no trailing blanks: a left-aligned last cell or empty cells leave none */
  while (line->len > 0 && line->str[line->len - 1] == ' ')
    g_string_truncate (line, line->len - 1);
  g_string_append (out, indent);
  g_string_append_len (out, line->str, (gssize) line->len);
  g_string_append_c (out, '\n');
  g_string_truncate (line, 0);
}

char *
cli_table_render (const CliTable *t, const char *indent)
{
  guint n = t->columns->len;
  g_autofree gsize *width = g_new0 (gsize, MAX (n, 1));
  for (guint c = 0; c < n; c++)
    width[c] = text_width (g_array_index (t->columns, Column, c).header);
  for (guint r = 0; r < t->rows->len; r++)
    {
      const Row *row = g_ptr_array_index (t->rows, r);
      for (guint c = 0; row->cells && c < row->cells->len; c++)
        width[c] = MAX (width[c], text_width (g_ptr_array_index (row->cells, c)));
    }
  GString *out = g_string_new (NULL);
  g_autoptr (GString) line = g_string_new (NULL);
  indent = indent ? indent : "";
  gboolean headed = FALSE;
  for (guint c = 0; c < n; c++)
    headed |= *g_array_index (t->columns, Column, c).header != '\0';
  for (guint c = 0; headed && c < n; c++)
    {
      const Column *col = &g_array_index (t->columns, Column, c);
      if (c > 0)
        g_string_append (line, "  ");
      append_cell (line, col->header, width[c], col->align, c + 1 == n);
    }
  if (headed)
    append_line (out, line, indent);
  for (guint r = 0; r < t->rows->len; r++)
    {
      const Row *row = g_ptr_array_index (t->rows, r);
      if (row->note)
        {
          g_string_append (line, row->note);
          append_line (out, line, indent);
          continue;
        }
      for (guint c = 0; c < n; c++)
        {
          const Column *col = &g_array_index (t->columns, Column, c);
          const char *text = c < row->cells->len ? g_ptr_array_index (row->cells, c) : "";
          if (c > 0)
            g_string_append (line, "  ");
          append_cell (line, text, width[c], col->align, c + 1 == n);
        }
      append_line (out, line, indent);
    }
  return g_string_free (out, FALSE);
}

void
cli_table_print (const CliTable *t, FILE *out, const char *indent)
{
  g_autofree char *text = cli_table_render (t, indent);
  fputs (text, out);
}
