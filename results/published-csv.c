/* results/published-csv.c - RFC 4180 CSV reading for `tandem validate`.
 *
 * A small state machine over the bytes: outside quotes a comma ends a field and CR LF,
 * LF or a lone CR ends a record; inside quotes everything is data and "" is one quote.
 * (RFC 4180 section 2 rules 4-7; the lone CR and LF line ends are accepted because
 * spreadsheets and editors write them.) */
#include "results/published.h"
#include "util/input.h"

#include <string.h>

G_DEFINE_QUARK (res-published-error-quark, res_published_error)

static void
cells_free (gpointer p)
{
  g_strfreev (p);
}

void
res_csv_free (ResCsv *csv)
{
  if (csv == NULL)
    return;
  g_strfreev (csv->columns);
  g_strfreev (csv->short_rows);
  if (csv->rows != NULL)
    g_ptr_array_unref (csv->rows);
  g_free (csv->source);
  g_free (csv);
}

typedef struct {
  GPtrArray *records;   /* GPtrArray of char* (a record's fields) */
  GArray    *lines;     /* guint: the line where each record starts */
  GPtrArray *fields;    /* the record being read */
  GString   *field;
  gboolean   field_quoted;
  guint      record_line; /* 1-based line where the current record starts */
} CsvReader;

static void
end_field (CsvReader *r)
{
  g_ptr_array_add (r->fields, g_strndup (r->field->str, r->field->len));
  g_string_truncate (r->field, 0);
  r->field_quoted = FALSE;
}

static void
end_record (CsvReader *r, guint next_line)
{
  /* A record that is one empty, unquoted field is a blank line: dropped. */
  gboolean blank = r->fields->len == 0 && r->field->len == 0 && !r->field_quoted;
  end_field (r);
  if (!blank)
    {
      g_ptr_array_add (r->records, g_steal_pointer (&r->fields));
      g_array_append_val (r->lines, r->record_line);
      r->fields = g_ptr_array_new_with_free_func (g_free);
    }
  else
    g_ptr_array_set_size (r->fields, 0);
  r->record_line = next_line;
}

ResCsv *
res_csv_parse (const char *text, gssize length, const char *source, GError **error)
{
  g_return_val_if_fail (text != NULL || length == 0, NULL);
  gsize len = length < 0 ? strlen (text) : (gsize) length;
  const char *name = source != NULL ? source : "CSV";
  gsize i = 0;
  if (len >= 3 && memcmp (text, "\xEF\xBB\xBF", 3) == 0)
    i = 3;   /* UTF-8 byte order mark */
  /* a NUL byte ended its field in silence ("Llama\\0 3.1 405B" was read as "Llama"); a
   * UTF-16 file has one in every other byte */
  const guint at = util_text_nul_line (text, len);
  if (at > 0)
    {
      g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE,
                   "%s:%u: a NUL byte, which no text CSV holds (hint: save the file as "
                   "UTF-8; spreadsheets call it \"CSV UTF-8\", UTF-16 is not read)", name, at);
      return NULL;
    }

  CsvReader r = { 0 };
  r.records = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  r.lines = g_array_new (FALSE, FALSE, sizeof (guint));
  r.fields = g_ptr_array_new_with_free_func (g_free);
  r.field = g_string_new (NULL);
  r.record_line = 1;
  guint line = 1;
  gboolean in_quotes = FALSE, after_quote = FALSE, ok = TRUE;

  for (; i < len && ok; i++)
    {
      char ch = text[i];
      if (in_quotes)
        {
          if (ch == '"')
            {
              if (i + 1 < len && text[i + 1] == '"')
                g_string_append_c (r.field, '"'), i++;
              else
                in_quotes = FALSE, after_quote = TRUE;
            }
          else
            {
              if (ch == '\n')
                line++;
              g_string_append_c (r.field, ch);
            }
          continue;
        }
      if (ch == ',')
        {
          end_field (&r);
          after_quote = FALSE;
        }
      else if (ch == '\r' || ch == '\n')
        {
          if (ch == '\r' && i + 1 < len && text[i + 1] == '\n')
            i++;
          line++;
          end_record (&r, line);
          after_quote = FALSE;
        }
      else if (after_quote)
        {
          g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE,
                       "%s:%u: text after the closing quote of a field (hint: double the "
                       "quote inside a quoted field: \"\")", name, line);
          ok = FALSE;
        }
      else if (ch == '"' && r.field->len == 0 && !r.field_quoted)
        in_quotes = TRUE, r.field_quoted = TRUE;
      else
        g_string_append_c (r.field, ch);
    }
  if (ok && in_quotes)
    {
      g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE,
                   "%s:%u: a quoted field is not closed before the end of the file",
                   name, r.record_line);
      ok = FALSE;
    }
  if (ok && (r.field->len > 0 || r.field_quoted || r.fields->len > 0))
    end_record (&r, line);

  g_autoptr (ResCsv) csv = NULL;
  if (ok && r.records->len == 0)
    {
      g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE,
                   "%s: empty file (hint: the first line names the columns)", name);
      ok = FALSE;
    }
  if (ok)
    {
      csv = g_new0 (ResCsv, 1);
      csv->source = g_strdup (name);
      GPtrArray *head = r.records->pdata[0];
      csv->n_columns = head->len;
      csv->columns = g_new0 (char *, csv->n_columns + 1);
      for (guint c = 0; c < csv->n_columns; c++)
        csv->columns[c] = g_strstrip (g_strdup (head->pdata[c]));
      /* a column named twice: every lookup by name read the first and ignored the other
       * (n_gpus twice, 8192 then 99, was predicted on 8192 GPUs without a word) */
      for (guint c = 1; c < csv->n_columns && ok; c++)
        for (guint d = 0; d < c && ok; d++)
          if (*csv->columns[c] != '\0' && g_str_equal (csv->columns[c], csv->columns[d]))
            {
              g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE,
                           "%s:%u: column '%s' is named twice (columns %u and %u); only the "
                           "first would be read (hint: rename or delete one)", name,
                           g_array_index (r.lines, guint, 0), csv->columns[c], d + 1, c + 1);
              ok = FALSE;
            }
      /* Every cell is UTF-8, or the file is refused: a cell that is not was cut inside a
       * character by the report's column width (g_utf8_substring read past the end) and
       * passed through --json as invalid JSON text. */
      for (guint k = 0; k < r.records->len && ok; k++)
        {
          GPtrArray *rec = r.records->pdata[k];
          for (guint c = 0; c < rec->len && ok; c++)
            if (!g_utf8_validate (rec->pdata[c], -1, NULL))
              {
                g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE,
                             "%s:%u: field %u is not valid UTF-8 (hint: save the file as "
                             "UTF-8; spreadsheets call it \"CSV UTF-8\")", name,
                             g_array_index (r.lines, guint, k), c + 1);
                ok = FALSE;
              }
        }
      csv->rows = g_ptr_array_new_with_free_func (cells_free);
      g_autoptr (GPtrArray) short_rows = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 1; k < r.records->len && ok; k++)
        {
          GPtrArray *rec = r.records->pdata[k];
          guint n = rec->len;
          if (n > csv->n_columns)
            {
              g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE,
                           "%s:%u: %u fields but the header has %u columns (hint: quote "
                           "fields that hold commas)", name, g_array_index (r.lines, guint, k), n,
                           csv->n_columns);
              ok = FALSE;
              break;
            }
          /* fewer: trailing empty cells some writers drop, or a line cut short. Read with
           * the missing cells empty, and listed: a truncated row had read as one that
           * states no step time and was skipped under that reason alone */
          if (n < csv->n_columns)
            g_ptr_array_add (short_rows, g_strdup_printf (
              "%s:%u: %u fields but the header has %u columns; the missing %u read as "
              "empty (a line cut short or a missing comma? an empty cell is written ,,)",
              name, g_array_index (r.lines, guint, k), n, csv->n_columns,
              csv->n_columns - n));
          char **cells = g_new0 (char *, csv->n_columns + 1);
          for (guint c = 0; c < csv->n_columns; c++)
            cells[c] = g_strdup (c < n ? rec->pdata[c] : "");
          g_ptr_array_add (csv->rows, cells);
        }
      if (ok && res_csv_column (csv, "row_id") < 0)
        {
          g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE,
                       "%s: no row_id column (hint: published-runs.csv names its columns "
                       "on the first line)", name);
          ok = FALSE;
        }
      /* A row id given twice: both rows were predicted and counted in the MAPE, and the
       * store, which keeps one validation per row id, refused the second after the report
       * was printed. Ids compare as integers where they are ones ("7" and "07"). */
      int id_col = ok ? res_csv_column (csv, "row_id") : -1;
      g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint k = 0; id_col >= 0 && ok && k < csv->rows->len; k++)
        {
          g_autofree char *id = g_strstrip (g_strdup (((char **) csv->rows->pdata[k])[id_col]));
          if (*id == '\0')
            continue;
          /* as the mapping reads an id (res_published_cell_count: "4.0", "4e0", "1,024",
           * and "1,0" as 1; "4.0" got past a check that compared integers only) */
          gint64 v = 0;
          char *key = res_published_cell_count (id, &v) ? g_strdup_printf ("%" G_GINT64_FORMAT, v)
                                                        : g_strdup (id);
          guint line = g_array_index (r.lines, guint, k + 1);
          gpointer first = NULL;
          if (g_hash_table_lookup_extended (seen, key, NULL, &first))
            {
              g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE,
                           "%s:%u: row_id %s again (first on line %u): each row needs its "
                           "own id, the store keeps one result per id (hint: renumber the "
                           "row, or delete the copy)", name, line, id, GPOINTER_TO_UINT (first));
              g_free (key);
              ok = FALSE;
            }
          else
            g_hash_table_insert (seen, key, GUINT_TO_POINTER (line));
        }
      if (ok && short_rows->len > 0)
        {
          g_ptr_array_add (short_rows, NULL);
          csv->short_rows = (char **) g_ptr_array_free (g_steal_pointer (&short_rows), FALSE);
        }
    }

  g_ptr_array_unref (r.records);
  g_array_unref (r.lines);
  g_ptr_array_unref (r.fields);
  g_string_free (r.field, TRUE);
  return ok ? g_steal_pointer (&csv) : NULL;
}

ResCsv *
res_csv_load (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!util_input_read_file (path, 0, &text, &len, &local))
    {
      g_set_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_IO, "%s",
                   local->message);
      return NULL;
    }
  return res_csv_parse (text, (gssize) len, path, error);
}

guint
res_csv_n_rows (const ResCsv *csv)
{
  return csv->rows->len;
}

int
res_csv_column (const ResCsv *csv, const char *name)
{
  for (guint c = 0; c < csv->n_columns; c++)
    if (g_str_equal (csv->columns[c], name))
      return (int) c;
  return -1;
}

const char *
res_csv_get (const ResCsv *csv, guint row, const char *name)
{
  g_return_val_if_fail (row < csv->rows->len, "");
  int c = res_csv_column (csv, name);
  if (c < 0)
    return "";
  return ((char **) csv->rows->pdata[row])[c];
}
