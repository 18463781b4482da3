/* util/input.c - size-capped file reading, a JSON depth check, and valid JSON output.
 * See input.h for the contract. */
#include "util/input.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK (util-input-error-quark, util_input_error)

static gboolean
fail_io (const char *path, int err, GError **error)
{
  g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_IO, "cannot read '%s': %s", path,
               g_strerror (err));
  return FALSE;
}

static gboolean
fail_size (const char *path, gsize max_bytes, GError **error)
{
  g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TOO_LARGE,
               "'%s' is larger than the %" G_GSIZE_FORMAT " MiB input cap (no model, "
               "cluster, plan or result file comes near it; hint: is it the right file?)",
               path, max_bytes >> 20);
  return FALSE;
}

gboolean
util_input_read_file (const char *path, gsize max_bytes, char **contents, gsize *length,
                      GError **error)
{
  g_return_val_if_fail (path != NULL && contents != NULL, FALSE);
  if (max_bytes == 0)
    max_bytes = UTIL_INPUT_MAX_BYTES;

  /* O_NONBLOCK: open() of a FIFO without a writer would otherwise wait for one forever;
   * reads are made blocking again below, and a FIFO without a writer then reads as EOF. */
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return fail_io (path, errno, error);
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      int err = errno;
      close (fd);
      return fail_io (path, err, error);
    }
  if (S_ISDIR (st.st_mode))
    {
      close (fd);
      return fail_io (path, EISDIR, error);
    }
  if (S_ISREG (st.st_mode) && (guint64) st.st_size > max_bytes)
    {
      close (fd);
      return fail_size (path, max_bytes, error);
    }
  int flags = fcntl (fd, F_GETFL);
  if (flags >= 0)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);

  /* Read up to max_bytes + 1: one byte more says the input is over the cap, whatever
   * stat said (pipes, character devices and growing files have no useful size). */
  GByteArray *buf = g_byte_array_sized_new (S_ISREG (st.st_mode) ? (guint) st.st_size + 1
                                                                  : 4096);
  guint8 chunk[65536];
  for (;;)
    {
      gsize want = MIN (sizeof chunk, max_bytes + 1 - buf->len);
      ssize_t n = read (fd, chunk, want);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n < 0)
        {
          int err = errno;
          close (fd);
          g_byte_array_unref (buf);
          return fail_io (path, err, error);
        }
      if (n == 0)
        break;
      g_byte_array_append (buf, chunk, (guint) n);
      if (buf->len > max_bytes)
        {
          close (fd);
          g_byte_array_unref (buf);
          return fail_size (path, max_bytes, error);
        }
    }
  close (fd);
  if (length != NULL)
    *length = buf->len;
  guint8 nul = 0;
  g_byte_array_append (buf, &nul, 1);
  *contents = (char *) g_byte_array_free (buf, FALSE);
  return TRUE;
}

/* A JSON string's raw text (between its quotes, escapes as written) decoded to UTF-8, as a
 * JSON reader sees it: \" \\ \/ \b \f \n \r \t and \uXXXX, a surrogate pair as one
 * character. The caller has checked the \u escapes (no lone surrogate, no NUL). */
static char *
json_key_decode (const char *raw, gsize n)
{
  GString *out = g_string_sized_new (n);
  for (gsize i = 0; i < n; i++)
    {
      if (raw[i] != '\\' || i + 1 >= n)
        {
          g_string_append_c (out, raw[i]);
          continue;
        }
      char e = raw[++i];
      if (e == 'u' && i + 4 < n)
        {
          guint u = 0;
          gboolean hex = TRUE;
          for (int h = 1; h <= 4; h++)
            hex = hex && g_ascii_isxdigit (raw[i + h]),
            u = u * 16 + (guint) (hex ? g_ascii_xdigit_value (raw[i + h]) : 0);
          if (!hex)
            {
              g_string_append_c (out, '\\');
              g_string_append_c (out, e);
              continue;
            }
          i += 4;
          if (u >= 0xD800 && u <= 0xDBFF && i + 6 < n && raw[i + 1] == '\\' && raw[i + 2] == 'u')
            {
              guint v = 0;
              gboolean hex2 = TRUE;
              for (int h = 3; h <= 6; h++)
                hex2 = hex2 && g_ascii_isxdigit (raw[i + h]),
                v = v * 16 + (guint) (hex2 ? g_ascii_xdigit_value (raw[i + h]) : 0);
              if (hex2 && v >= 0xDC00 && v <= 0xDFFF)
                {
                  u = 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00);
                  i += 6;
                }
            }
          g_string_append_unichar (out, (gunichar) u);
          continue;
        }
      g_string_append_c (out, e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n'
                              : e == 'r' ? '\r' : e == 't' ? '\t' : e);
    }
  return g_string_free (out, FALSE);
}

static void
key_set_free (GHashTable *set)
{
  if (set != NULL)
    g_hash_table_unref (set);
}

gboolean
util_text_encoding_check (const char *text, gsize len, const char *source, GError **error)
{
  /* UTF-16 (what Windows editors save as "Unicode", and PowerShell's `>` writes): json-glib
   * (and the TOML reader) read its bytes as UTF-8 and failed far from the cause ("'.'
   * outside a string is not JSON" at a number's point, or a syntax error). A byte-order
   * mark says so at the start; without one, NUL bytes do (every ASCII character's other
   * half), as in UTF-32. Text holds no raw NUL in any case. */
  const guchar *u = (const guchar *) text;
  const gboolean bom = len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE)
                                    || (u[0] == 0xFE && u[1] == 0xFF));
  const gboolean utf32 = bom && len >= 4 && u[0] == 0xFF && u[2] == 0 && u[3] == 0;
  const char *nul = memchr (text, '\0', len);
  if (bom || nul != NULL)
    {
      g_autofree char *why = utf32
        ? g_strdup ("it starts with a UTF-32 byte-order mark (FF FE 00 00, little-endian)")
        : bom
        ? g_strdup_printf ("it starts with a UTF-16 byte-order mark (%s, %s-endian)",
                           u[0] == 0xFF ? "FF FE" : "FE FF", u[0] == 0xFF ? "little" : "big")
        : g_strdup_printf ("it holds NUL bytes (the first at byte %" G_GSIZE_FORMAT "), as "
                           "UTF-16 or UTF-32 text does", (gsize) (nul - text));
      g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_ENCODING,
                   "%s: the file is not UTF-8 text: %s (hint: save it as UTF-8)",
                   source != NULL ? source : "<data>", why);
      return FALSE;
    }
  return TRUE;
}

gboolean
util_json_check_depth (const char *text, gssize length, guint max_depth, const char *source,
                       GError **error)
{
  g_return_val_if_fail (text != NULL, FALSE);
  if (max_depth == 0)
    max_depth = UTIL_JSON_MAX_DEPTH;
  gsize len = length < 0 ? strlen (text) : (gsize) length;
  if (!util_text_encoding_check (text, len, source, error))
    return FALSE;
  guint depth = 0, line = 1, col = 0, str_line = 0, str_col = 0;
  gboolean in_string = FALSE, closed = FALSE;
  guint closed_line = 0, closed_col = 0;
  gsize str_start = 0;
  /* per open container: the keys of an object seen so far, NULL for an array */
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) key_set_free);
  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];
      col++;
      if (c == '\n')
        line++, col = 0;
      if (in_string)
        {
          if (c == '\\' && i + 5 < len && text[i + 1] == 'u')
            {
              /* \uXXXX: a UTF-16 surrogate must come as a high-low pair. json-glib took a
               * lone one and wrote invalid UTF-8 (a cluster named "x\ud800y" was stored
               * as bytes ED A0 80, the "y" lost, and every report of it failed to decode),
               * and \u0000 ends the C string where it stands (the rest of the name lost
               * without a word) */
              guint u = 0, v = 0;
              gboolean hex = TRUE, pair = FALSE;
              for (int h = 2; h < 6; h++)
                hex = hex && g_ascii_isxdigit (text[i + h]),
                u = u * 16 + (guint) (hex ? g_ascii_xdigit_value (text[i + h]) : 0);
              if (hex && u >= 0xD800 && u <= 0xDBFF && i + 11 < len && text[i + 6] == '\\'
                  && text[i + 7] == 'u')
                {
                  gboolean hex2 = TRUE;
                  for (int h = 8; h < 12; h++)
                    hex2 = hex2 && g_ascii_isxdigit (text[i + h]),
                    v = v * 16 + (guint) (hex2 ? g_ascii_xdigit_value (text[i + h]) : 0);
                  pair = hex2 && v >= 0xDC00 && v <= 0xDFFF;
                }
              if (hex && (u == 0 || (u >= 0xD800 && u <= 0xDFFF && !pair)))
                {
                  g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TRAILING,
                               "%s:%u:%u: the escape \\u%.4s in a string is %s (hint: write "
                               "the character itself, in UTF-8)",
                               source != NULL ? source : "<data>", line, col, text + i + 2,
                               u == 0 ? "a NUL character, which would end the text there"
                                      : "half of a UTF-16 surrogate pair, which encodes no "
                                        "character alone");
                  return FALSE;
                }
              gsize skip = pair ? 11 : (hex ? 5 : 1);
              i += skip, col += (guint) skip;
            }
          else if (c == '\\')
            i++, col++;           /* the escaped character cannot end the string */
          else if (c == '"')
            {
              in_string = FALSE;
              /* A key given twice in one object: json-glib (as Python's json) keeps the
               * last value and drops the first without a word, so a config with
               * "num_hidden_layers": 32 and later 80 was modelled with 80 layers. Keys are
               * compared decoded, as the reader compares them ("num_hidden_l\u0061yers"
               * is the same key, and was let through as another). */
              GHashTable *set = keys->len > 0 ? g_ptr_array_index (keys, keys->len - 1) : NULL;
              gsize k = i + 1;
              while (k < len && g_ascii_isspace (text[k]))
                k++;
              if (set != NULL && k < len && text[k] == ':')
                {
                  char *key = json_key_decode (text + str_start + 1, i - str_start - 1);
                  if (!g_hash_table_add (set, key))
                    {
                      /* shown with its controls blanked, as every name is */
                      g_autofree char *shown = util_text_blank_controls (
                        g_strdup (g_hash_table_lookup (set, key)));
                      g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_DUPLICATE_KEY,
                                   "%s:%u:%u: key \"%.60s\" appears twice in one object%s; "
                                   "JSON readers keep the last value and drop the other "
                                   "without a word (hint: delete one of the two)",
                                   source != NULL ? source : "<data>", str_line, str_col,
                                   shown, memchr (text + str_start + 1, '\\',
                                                  i - str_start - 1) != NULL
                                            ? " (once with escapes)" : "");
                      return FALSE;
                    }
                }
            }
          continue;
        }
      /* a comment, which json-glib's scanner skips (C and C++ style): skipped here too,
       * so that the checks below read no number or quote inside it (a block comment
       * holding "v1.2" was refused for its '.'); after the value too, as json-glib takes it */
      if (c == '/' && i + 1 < len && (text[i + 1] == '*' || text[i + 1] == '/'))
        {
          const gboolean block = text[i + 1] == '*';
          gsize j = i + 2;   /* j: the comment's last character */
          if (block)
            {
              while (j + 1 < len && !(text[j] == '*' && text[j + 1] == '/'))
                j++;
              j = MIN (j + 1, len - 1);
            }
          else
            {
              while (j < len && text[j] != '\n')
                j++;
              j--;           /* the line break is the loop's to count */
            }
          for (gsize k = i + 1; k <= j && k < len; k++)
            {
              col++;
              if (text[k] == '\n')
                line++, col = 0;
            }
          i = j;
          continue;
        }
      /* json-glib's scanner is lenient where JSON is not: after the top-level value it
       * stopped reading (a config followed by a second object, {"num_hidden_layers": 0},
       * loaded as the first alone), and it took 'single-quoted' strings. One value per
       * file, strings in double quotes. */
      if (closed && !g_ascii_isspace (c))
        {
          g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TRAILING,
                       "%s:%u:%u: text after the JSON value that ends at %u:%u (a file holds "
                       "one JSON value; hint: delete the rest, or merge it into the first)",
                       source != NULL ? source : "<data>", line, col, closed_line, closed_col);
          return FALSE;
        }
      if (c == '\'')
        {
          g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TRAILING,
                       "%s:%u:%u: a single quote outside a string (JSON strings and keys take "
                       "double quotes: \"name\", not 'name')",
                       source != NULL ? source : "<data>", line, col);
          return FALSE;
        }
      /* GScanner's hex ($1000), a plus sign, a number that starts with its point (.5): no
       * JSON value starts with any of them */
      if (c == '$' || c == '+' || c == '.')
        {
          g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TRAILING,
                       "%s:%u:%u: '%c' outside a string is not JSON (hint: numbers in "
                       "decimal, with a digit before any point and no sign but '-', e.g. "
                       "4096 or 0.5)",
                       source != NULL ? source : "<data>", line, col, c);
          return FALSE;
        }
      if (c == '"')
        in_string = TRUE, str_start = i, str_line = line, str_col = col;
      else if ((c == '-' || g_ascii_isdigit (c)) && (i == 0 || !g_ascii_isalnum (text[i - 1])))
        {
          /* an integer literal past 2^63 - 1: json-glib reads it as a wrapped gint64
           * (9223372036854775808 as -9223372036854775808, 99999999999999999999 as -1), so
           * a field's check would name a number nobody wrote; refused here with the text */
          gsize j = i + (c == '-'), d0 = j;
          while (j < len && g_ascii_isdigit (text[j]))
            j++;
          /* JSON's number grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, then a
           * delimiter: json-glib's scanner took C's forms too, so "hidden_size": 0x20 was
           * read as 32, 0450 (octal) as 296, 0b101 as 5 and "- 4096" as -4096, each
           * without a word */
          const char *why = NULL;
          gsize e = j;
          if (j == d0)
            why = "a minus sign without a digit right after it";
          else if (text[d0] == '0' && j - d0 > 1)
            why = "a leading zero (read as octal by some readers)";
          if (why == NULL && e < len && text[e] == '.')
            {
              gsize f = ++e;
              while (e < len && g_ascii_isdigit (text[e]))
                e++;
              if (e == f)
                why = "a decimal point without a digit after it";
            }
          if (why == NULL && e < len && (text[e] == 'e' || text[e] == 'E'))
            {
              e++;
              if (e < len && (text[e] == '+' || text[e] == '-'))
                e++;
              gsize f = e;
              while (e < len && g_ascii_isdigit (text[e]))
                e++;
              if (e == f)
                why = "an exponent without digits";
            }
          if (why == NULL && e < len
              && (g_ascii_isalnum (text[e]) || text[e] == '.' || text[e] == '_'
                  || text[e] == '$'))
            why = "letters or digits JSON does not have in a number (hex 0x, binary 0b, a "
                  "unit)";
          if (why != NULL)
            {
              gsize n = i;
              while (n < len && n - i < 24 && !g_ascii_isspace (text[n]) && text[n] != ','
                     && text[n] != '}' && text[n] != ']')
                n++;
              g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TRAILING,
                           "%s:%u:%u: %.*s is not a JSON number: %s (hint: write it in "
                           "decimal, e.g. 32, 4096, 0.5 or 1e-5)",
                           source != NULL ? source : "<data>", line, col,
                           (int) MAX (n - i, (gsize) 1), text + i, why);
              return FALSE;
            }
          gboolean integer = j > d0 && (j >= len || (text[j] != '.' && text[j] != 'e'
                                                     && text[j] != 'E'));
          if (integer)
            {
              while (d0 + 1 < j && text[d0] == '0')
                d0++;
              gboolean big = j - d0 > 19
                             || (j - d0 == 19 && strncmp (text + d0, c == '-'
                                                          ? "9223372036854775808"
                                                          : "9223372036854775807", 19) > 0);
              if (big)
                {
                  g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TOO_LARGE,
                               "%s:%u:%u: the integer %.*s is outside -2^63 .. 2^63 - 1, "
                               "which no field takes (hint: a size or count of that many "
                               "digits is a typo)",
                               source != NULL ? source : "<data>", line, col,
                               (int) MIN (j - i, (gsize) 40), text + i);
                  return FALSE;
                }
            }
          col += (guint) (e - i - 1);
          i = e - 1;   /* past the whole number, its point and exponent included */
        }
      else if (c == '[' || c == '{')
        {
          g_ptr_array_add (keys, c == '{' ? g_hash_table_new_full (g_str_hash, g_str_equal,
                                                                  g_free, NULL) : NULL);
          if (++depth > max_depth)
            {
              g_set_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TOO_DEEP,
                           "%s:%u:%u: JSON nested deeper than %u levels (the cap keeps the "
                           "parser's stack bounded; real model, cluster and plan files nest "
                           "at most 5; hint: is it the right file?)",
                           source != NULL ? source : "<data>", line, col, max_depth);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        {
          depth--;
          g_ptr_array_set_size (keys, depth);
          if (depth == 0)
            closed = TRUE, closed_line = line, closed_col = col;
        }
    }
  return TRUE;
}

/* ---- output ---------------------------------------------------------------------------- */

static void
repair_node (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *obj = json_node_get_object (node);
        JsonObjectIter it;
        const char *name;
        JsonNode *member;
        g_autoptr (GPtrArray) bad_names = g_ptr_array_new_with_free_func (g_free);
        json_object_iter_init (&it, obj);
        while (json_object_iter_next (&it, &name, &member))
          {
            repair_node (member);
            if (!g_utf8_validate (name, -1, NULL))
              g_ptr_array_add (bad_names, g_strdup (name));
          }
        /* member names that are not UTF-8: re-added under a repaired name */
        for (guint i = 0; i < bad_names->len; i++)
          {
            const char *bad = bad_names->pdata[i];
            g_autofree char *fixed = g_utf8_make_valid (bad, -1);
            JsonNode *m = json_node_copy (json_object_get_member (obj, bad));
            json_object_remove_member (obj, bad);
            json_object_set_member (obj, fixed, m);
          }
        break;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *arr = json_node_get_array (node);
        for (guint i = 0; i < json_array_get_length (arr); i++)
          repair_node (json_array_get_element (arr, i));
        break;
      }
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_DOUBLE
          && !isfinite (json_node_get_double (node)))
        json_node_init_null (node);
      else if (json_node_get_value_type (node) == G_TYPE_STRING
               && !g_utf8_validate (json_node_get_string (node), -1, NULL))
        {
          g_autofree char *fixed = g_utf8_make_valid (json_node_get_string (node), -1);
          json_node_set_string (node, fixed);
        }
      break;
    case JSON_NODE_NULL:
      break;
    }
}

/* Drops the ".0" json-glib appends after an exponent ("1e+22.0" -> "1e+22"), outside
 * strings. Numbers are the only place a digit can follow 'e'/'E' outside a string. */
static char *
fix_exponents (char *text)
{
  gsize o = 0;
  gboolean in_string = FALSE, in_exponent = FALSE;
  for (gsize i = 0; text[i] != '\0'; i++)
    {
      char c = text[i];
      if (in_string)
        {
          text[o++] = c;
          if (c == '\\' && text[i + 1] != '\0')
            text[o++] = text[++i];
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE, in_exponent = FALSE;
      else if ((c == 'e' || c == 'E') && o > 0 && g_ascii_isdigit (text[o - 1]))
        in_exponent = TRUE;
      else if (in_exponent && c == '.' && text[i + 1] == '0' && !g_ascii_isdigit (text[i + 2]))
        {
          i++;          /* skip ".0" */
          in_exponent = FALSE;
          continue;
        }
      else if (!(g_ascii_isdigit (c) || c == '+' || c == '-'))
        in_exponent = FALSE;
      text[o++] = c;
    }
  text[o] = '\0';
  return text;
}

char *
util_json_to_data (JsonNode *root, gboolean pretty)
{
  g_return_val_if_fail (root != NULL, NULL);
  repair_node (root);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  char *text = fix_exponents (json_generator_to_data (gen, NULL));
  /* json-glib 1.6 escapes U+0001..U+001E in strings but writes U+001F raw, which JSON
   * forbids (found by fuzz/fuzz-cluster); the byte appears nowhere else in its output. */
  if (strchr (text, 0x1f) != NULL)
    {
      g_auto (GStrv) parts = g_strsplit (text, "\x1f", -1);
      g_free (text);
      text = g_strjoinv ("\\u001f", parts);
    }
  return text;
}

void
util_json_member_number (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  if (isfinite (v))
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

void
util_json_member_string (JsonBuilder *b, const char *name, const char *v)
{
  json_builder_set_member_name (b, name);
  if (v != NULL)
    json_builder_add_string_value (b, v);
  else
    json_builder_add_null_value (b);
}

gboolean
util_unichar_is_control (gunichar c)
{
  return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

guint
util_text_nul_line (const char *text, gsize len)
{
  const char *nul = text != NULL && len > 0 ? memchr (text, '\0', len) : NULL;
  if (nul == NULL)
    return 0;
  guint line = 1;
  for (const char *q = text; q < nul; q++)
    line += *q == '\n';
  return line;
}

gssize
util_text_control_at (const char *text)
{
  if (text == NULL)
    return -1;
  for (const char *p = text; *p != '\0';)
    {
      gunichar c = g_utf8_get_char_validated (p, -1);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        c = (guchar) *p;   /* not UTF-8: its byte */
      /* and the bidirectional embeddings, overrides and isolates (U+202A-202E,
       * U+2066-2069): a name with U+202E turned the rest of a terminal line around */
      if (util_unichar_is_control (c) || (c >= 0x202a && c <= 0x202e)
          || (c >= 0x2066 && c <= 0x2069))
        return p - text;
      const char *next = g_utf8_next_char (p);
      p = (c == (guchar) *p && c >= 0x80) ? p + 1 : next;
    }
  return -1;
}

char *
util_text_blank_controls (char *text)
{
  gssize at;
  while (text != NULL && (at = util_text_control_at (text)) >= 0)
    {
      char *p = text + at;
      /* C1 controls are two bytes in UTF-8, the bidirectional ones three */
      gsize n = (guchar) *p < 0x80 ? 1 : (guchar) *p >= 0xe0 ? 3 : 2;
      *p = '?';
      if (n > 1 && strlen (p + 1) >= n - 1)
        memmove (p + 1, p + n, strlen (p + n) + 1);
    }
  return text;
}

void
util_append_shell_word (GString *out, const char *word)
{
  g_autofree char *q = util_shell_quote (word);
  g_string_append_printf (out, " %s", strpbrk (word, " \t'\"$\\")
                                      || util_text_control_at (word) >= 0 ? q : word);
}

char *
util_shell_quote (const char *text)
{
  if (util_text_control_at (text) < 0)
    return g_shell_quote (text);
  GString *q = g_string_new ("$'");
  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    {
      if (*p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
        {
          if (*p == 0xc2)
            g_string_append_printf (q, "\\x%02x", *p++);
          g_string_append_printf (q, "\\x%02x", *p);
        }
      else if (*p == '\\' || *p == '\'')
        {
          g_string_append_c (q, '\\');
          g_string_append_c (q, (char) *p);
        }
      else
        g_string_append_c (q, (char) *p);
    }
  g_string_append_c (q, '\'');
  return g_string_free (q, FALSE);
}
