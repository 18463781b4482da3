/* tests/util/test-input.c - the shared input reader: size cap, FIFOs and pipes, the JSON
 * depth check, and JSON output that is always valid. */
#include "util/input.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* A regular file comes back whole and NUL-terminated. */
static void
test_read_regular (void)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  int fd = g_file_open_tmp ("tandem-input-XXXXXX", &path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (fd, "{\"a\": 1}", 8), ==, 8);
  close (fd);
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (util_input_read_file (path, 0, &text, &len, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, 8);
  g_assert_cmpstr (text, ==, "{\"a\": 1}");
  /* one byte over a cap of 7 is refused before reading (stat says 8 > 7) */
  g_clear_pointer (&text, g_free);
  g_assert_false (util_input_read_file (path, 7, &text, &len, &error));
  g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TOO_LARGE);
  g_unlink (path);
}

/* /dev/zero never ends: the read stops at cap + 1 bytes (here 1 MiB + 1) with an error
 * that names the cap, instead of growing until memory runs out. */
static void
test_read_dev_zero (void)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  gsize len = 0;
  g_assert_false (util_input_read_file ("/dev/zero", (gsize) 1 << 20, &text, &len, &error));
  g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "1 MiB input cap"));
  g_assert_null (text);
}

/* A FIFO nobody writes to: open() would block forever without O_NONBLOCK; it reads as
 * empty instead (the loaders then say the file is empty or not JSON). */
static void
test_read_fifo_without_writer (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tandem-input-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_autofree char *text = NULL;
  gsize len = 99;
  g_assert_true (util_input_read_file (fifo, 0, &text, &len, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, 0);
  g_assert_cmpstr (text, ==, "");
  g_unlink (fifo);
  g_rmdir (dir);
}

/* A pipe with a writer (what `--plan <(...)` passes as /dev/fd/N) is read to its end. */
static void
test_read_pipe (void)
{
  int fds[2];
  g_assert_cmpint (pipe (fds), ==, 0);
  g_assert_cmpint (write (fds[1], "[1, 2]", 6), ==, 6);
  close (fds[1]);
  g_autofree char *path = g_strdup_printf ("/dev/fd/%d", fds[0]);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  gsize len = 0;
  g_assert_true (util_input_read_file (path, 0, &text, &len, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "[1, 2]");
  close (fds[0]);
}

static char *
nested (guint depth)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* Integer literals past the gint64 range: json-glib wraps them (9223372036854775808 read
 * as -9223372036854775808, 99999999999999999999 as -1), so the pre-scan refuses them with
 * their text. Inside the range (2^63 - 1, -2^63, leading zeros), in strings, as floats and
 * in exponents they pass. */
static void
test_big_integers (void)
{
  g_autoptr (GError) error = NULL;
  static const char *const refused[] = {
    "{\"n\": 9223372036854775808}", "[99999999999999999999]", "[-9223372036854775809]",
  };
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_assert_false (util_json_check_depth (refused[i], -1, 0, "n.json", &error));
      g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TOO_LARGE);
      g_assert_true (strstr (error->message, "is outside -2^63 .. 2^63 - 1") != NULL);
      g_clear_error (&error);
    }
  /* the column is the literal's first character: "{"n": " is 6 characters, so 7 */
  g_assert_false (util_json_check_depth ("{\"n\": 9223372036854775808}", -1, 0, "n.json",
                                         &error));
  g_assert_true (g_str_has_prefix (error->message, "n.json:1:7: the integer 9223372036854775808"));
  g_clear_error (&error);
  static const char *const accepted[] = {
    "[9223372036854775807, -9223372036854775808]",
    "[\"99999999999999999999\", 1e400, 99999999999999999999.5, 1.5e99999999999999999999]",
  };
  for (guint i = 0; i < G_N_ELEMENTS (accepted); i++)
    {
      g_assert_true (util_json_check_depth (accepted[i], -1, 0, "n.json", &error));
      g_assert_no_error (error);
    }
}

/* 100,000 nested arrays (the stack overflow) are refused at the 65th '[' (line 1,
 * column 65), before json-glib recurses; 64 levels pass. */
static void
test_depth (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *deep = nested (100000);
  g_assert_false (util_json_check_depth (deep, -1, 0, "deep.json", &error));
  g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TOO_DEEP);
  g_assert_true (g_str_has_prefix (error->message, "deep.json:1:65: JSON nested deeper than 64"));
  g_clear_error (&error);
  g_autofree char *ok = nested (UTIL_JSON_MAX_DEPTH);
  g_assert_true (util_json_check_depth (ok, -1, 0, "ok.json", &error));
  g_assert_no_error (error);
  /* brackets inside strings, escaped quotes included, do not count: depth 2 */
  g_assert_true (util_json_check_depth ("{\"a\": [\"[[[\\\"[[[\"]}", -1, 2, NULL, &error));
  g_assert_no_error (error);
  /* a second line: the column restarts (line 2, column 3 is the third '[' of depth 3) */
  g_assert_false (util_json_check_depth ("[\n [[", -1, 2, "x", &error));
  g_assert_true (g_str_has_prefix (error->message, "x:2:3:"));
}

/* One JSON value per file, strings in double quotes: json-glib stopped after the first
 * value ({"a": 1}{"a": 2} loaded as {"a": 1}, a config then a second object that set
 * num_hidden_layers 0 loaded without a word) and took single-quoted strings. Blanks after
 * the value pass; quotes inside strings are text. */
static void
test_trailing_and_quotes (void)
{
  g_autoptr (GError) error = NULL;
  g_assert_false (util_json_check_depth ("{\"a\": 1}\n{\"a\": 2}", -1, 0, "t.json", &error));
  g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TRAILING);
  /* the second object starts at line 2, column 1; the first ended at 1:8 */
  g_assert_true (g_str_has_prefix (error->message, "t.json:2:1: text after the JSON value "
                                   "that ends at 1:8"));
  g_clear_error (&error);
  g_assert_false (util_json_check_depth ("[1, 2] x", -1, 0, "t.json", &error));
  g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TRAILING);
  g_clear_error (&error);
  g_assert_false (util_json_check_depth ("{'a': 1}", -1, 0, "q.json", &error));
  g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TRAILING);
  g_assert_true (g_str_has_prefix (error->message, "q.json:1:2: a single quote outside a string"));
  g_clear_error (&error);
  g_assert_true (util_json_check_depth ("{\"it's\": \"'a'\"}\n\t \n", -1, 0, "ok.json",
                                        &error));
  g_assert_no_error (error);
}

/* \u escapes: json-glib took a lone UTF-16 surrogate and wrote invalid UTF-8 (a cluster
 * named "x\ud800y" stored as bytes ED A0 80 with the "y" lost), and \u0000 cut the
 * string where it stood. Both refused with the place; a whole pair (U+1F600 as
 * \ud83d\ude00), other escapes and an escaped backslash before "u" pass. */
static void
test_unicode_escapes (void)
{
  static const struct { const char *text; const char *prefix; } bad[] = {
    { "{\"name\": \"x\\ud800y\"}", "s.json:1:12: the escape \\ud800 in a string is half" },
    { "{\"name\": \"x\\udc00\"}", "s.json:1:12: the escape \\udc00 in a string is half" },
    { "{\"name\": \"\\ud83d\\u0041\"}", "s.json:1:11: the escape \\ud83d" },
    { "{\"name\": \"a\\u0000b\"}", "s.json:1:12: the escape \\u0000 in a string is a NUL" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (util_json_check_depth (bad[i].text, -1, 0, "s.json", &error));
      g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_TRAILING);
      if (!g_str_has_prefix (error->message, bad[i].prefix))
        g_error ("case %u: '%s' does not start with '%s'", i, error->message, bad[i].prefix);
    }
  static const char *const good[] = {
    "{\"name\": \"a\\ud83d\\ude00b\"}", "{\"name\": \"\\u00e9\\n\\\"\"}",
    "{\"name\": \"\\\\ud800\"}",
  };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_true (util_json_check_depth (good[i], -1, 0, "s.json", &error));
      g_assert_no_error (error);
    }
}

/* A UTF-16 file (a Windows editor's "Unicode"): json-glib read its bytes and failed at
 * the first number's point ("'.' outside a string is not JSON") or with a syntax error.
 * A byte-order mark, either order, or NUL bytes without one (UTF-16 without a mark,
 * UTF-32) say it is not UTF-8; UTF-8 with its mark (EF BB BF) still passes the check. */
static void
test_not_utf8 (void)
{
  /* {"a": 1.5} as UTF-16: little-endian with a mark, big-endian with one, little-endian
   * without, and as UTF-32 little-endian without */
  static const struct { const char *bytes; gsize len; const char *want; } bad[] = {
    { "\xff\xfe{\0\"\0a\0\"\0:\0 \0001\0.\0005\0}\0", 24,
      "u.json: the file is not UTF-8 text: it starts with a UTF-16 byte-order mark (FF FE, "
      "little-endian) (hint: save it as UTF-8)" },
    { "\xfe\xff\0{\0\"\0a\0\"\0:\0 \0001\0.\0005\0}", 24,
      "u.json: the file is not UTF-8 text: it starts with a UTF-16 byte-order mark (FE FF, "
      "big-endian) (hint: save it as UTF-8)" },
    { "{\0\"\0a\0\"\0:\0 \0001\0.\0005\0}\0", 22,
      "u.json: the file is not UTF-8 text: it holds NUL bytes (the first at byte 1), as "
      "UTF-16 or UTF-32 text does (hint: save it as UTF-8)" },
    { "{\0\0\0\"\0\0\0", 8, "it holds NUL bytes (the first at byte 1)" },
    /* UTF-32 little-endian with its mark (FF FE 00 00): it read "a UTF-16 byte-order mark" */
    { "\xff\xfe\0\0{\0\0\0", 8, "it starts with a UTF-32 byte-order mark (FF FE 00 00, "
      "little-endian)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (util_json_check_depth (bad[i].bytes, (gssize) bad[i].len, 0, "u.json",
                                             &error));
      g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_ENCODING);
      if (strstr (error->message, bad[i].want) == NULL)
        g_error ("case %u: '%s' does not hold '%s'", i, error->message, bad[i].want);
    }
  /* the mark alone is found when the caller passes -1 (strlen stops at the first NUL) */
  g_autoptr (GError) error = NULL;
  g_assert_false (util_json_check_depth ("\xff\xfe{", -1, 0, "u.json", &error));
  g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_ENCODING);
  g_clear_error (&error);
  g_assert_true (util_json_check_depth ("\xef\xbb\xbf{\"a\": 1.5}", -1, 0, "u8.json", &error));
  g_assert_no_error (error);
}

/* Control characters in names: C0, DEL and C1 (U+009B, CSI, is two bytes in UTF-8) are
 * found at their byte offset, and a name made from a file name gets '?' for each. */
static void
test_text_controls (void)
{
  g_assert_cmpint (util_text_control_at ("plain name é"), ==, -1);
  g_assert_cmpint (util_text_control_at ("a\x1b]0;t\x07"), ==, 1);
  g_assert_cmpint (util_text_control_at ("ab\x7f"), ==, 2);
  g_assert_cmpint (util_text_control_at ("é\xc2\x9b" "2J"), ==, 2);
  g_assert_cmpint (util_text_control_at ("x\ny"), ==, 1);
  char name[] = "a\x1b[2J\xc2\x9b" "b";
  g_assert_cmpstr (util_text_blank_controls (name), ==, "a?[2J?b");
  /* the bidirectional override U+202E (e2 80 ae) and isolate U+2066 (e2 81 a6): a model
   * file so named turned the rest of predict's and run's first line around */
  g_assert_cmpint (util_text_control_at ("bidi\xe2\x80\xae" "x"), ==, 4);
  g_assert_cmpint (util_text_control_at ("\xe2\x81\xa6" "x"), ==, 0);
  g_assert_cmpint (util_text_control_at ("en\xe2\x80\x94" "dash"), ==, -1);   /* U+2014 */
  char bidi[] = "bidi\xe2\x80\xae" "x\xe2\x81\xa6";
  g_assert_cmpstr (util_text_blank_controls (bidi), ==, "bidi?x?");
  /* a path pasted as a flag (search's plan lines): plain quoting where it has no control
   * character, bash's $'...' with \xHH where it has one (the quoted ESC byte acted on
   * the terminal), quotes and backslashes escaped */
  g_autofree char *q1 = util_shell_quote ("dir/my file.json");
  g_assert_cmpstr (q1, ==, "'dir/my file.json'");
  g_autofree char *q2 = util_shell_quote ("m\x1bx's\\.json");
  g_assert_cmpstr (q2, ==, "$'m\\x1bx\\'s\\\\.json'");
  g_autofree char *q3 = util_shell_quote ("c\xc2\x9b" "d");
  g_assert_cmpstr (q3, ==, "$'c\\xc2\\x9bd'");
}

static JsonNode *
reparse (const char *text, JsonParser *parser)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_parser_get_root (parser);
}

/* Output is valid JSON whatever the values: inf and nan become null; 1e+22 (printed
 * "1e+22.0" by json-glib 1.6), 1e-300 and the smallest denormal 2^-1074 = 4.94e-324 are
 * numbers that read back to the same double; a string that is not UTF-8 is repaired. */
static void
test_to_data (void)
{
  const double values[] = { INFINITY, -INFINITY, NAN, 1e22, 1e-300, 4.9406564584124654e-324,
                            -3e-310, 0.5, 2.0 };
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "v");
  json_builder_begin_array (b);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    json_builder_add_double_value (b, values[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "s");
  json_builder_add_string_value (b, "ok \xff\xfe e1.0 \"1e5.0\"");
  json_builder_set_member_name (b, "n\xc3");
  json_builder_add_int_value (b, 7);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  for (int pretty = 0; pretty < 2; pretty++)
    {
      g_autofree char *text = util_json_to_data (root, pretty);
      g_assert_null (strstr (text, "inf"));
      g_assert_null (strstr (text, "nan"));
      g_autoptr (JsonParser) p = json_parser_new ();
      JsonObject *o = json_node_get_object (reparse (text, p));
      JsonArray *v = json_object_get_array_member (o, "v");
      for (guint i = 0; i < 3; i++)
        g_assert_true (JSON_NODE_HOLDS_NULL (json_array_get_element (v, i)));
      for (guint i = 3; i < G_N_ELEMENTS (values); i++)
        g_assert_cmpfloat (json_array_get_double_element (v, i), ==, values[i]);
      /* the string's own "1e5.0" is data and stays as it was */
      g_assert_cmpstr (json_object_get_string_member (o, "s"),
                       ==, "ok \xef\xbf\xbd\xef\xbf\xbd e1.0 \"1e5.0\"");
      g_assert_cmpint (json_object_get_int_member (o, "n\xef\xbf\xbd"), ==, 7);
    }
}

/* Control characters in strings and member names come out escaped: json-glib 1.6 escapes
 * U+0001..U+001E but wrote U+001F raw (a cluster device name with a raw 0x1F byte, which
 * json-glib's parser accepts, came out of `tandem show cluster --json` as invalid JSON).
 * Every one of U+0001..U+001F must read back as itself. */
static void
test_to_data_control (void)
{
  char all[32];
  for (int c = 1; c < 0x20; c++)
    all[c - 1] = (char) c;
  all[31] = '\0';
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, all);
  json_builder_add_string_value (b, all);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  for (int pretty = 0; pretty < 2; pretty++)
    {
      g_autofree char *text = util_json_to_data (root, pretty);
      for (const char *p = text; *p != '\0'; p++)
        if (!(pretty && *p == '\n'))
          g_assert_cmpint ((guchar) *p, >=, 0x20);
      g_assert_nonnull (strstr (text, "\\u001f"));
      g_autoptr (JsonParser) parser = json_parser_new ();
      JsonObject *o = json_node_get_object (reparse (text, parser));
      g_assert_cmpstr (json_object_get_string_member (o, all), ==, all);
    }
}

/* Numbers in JSON's grammar only: json-glib's scanner read C's forms, so a model file's
 * "hidden_size": 0x20 was 32, a cluster's "bw_GBps": 0450 was 296 (octal), 0b101 was 5,
 * $1000 was 4096 and "- 4096" was -4096. Each is refused at its place with the token;
 * JSON's own forms (-0, 0.5, 1E+3, -12, 1e-5) pass. */
static void
test_number_grammar (void)
{
  static const char *const bad[] = { "0x20", "0450", "0b101", "$1000", "- 4096", "1.",
                                     "1e", "1.5.2", "12abc", "+5", "01.5", ".5" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *text = g_strdup_printf ("{\"a\": %s}", bad[i]);
      g_assert_false (util_json_check_depth (text, -1, 0, "n.json", &error));
      g_assert_nonnull (error);
      g_assert_true (g_str_has_prefix (error->message, "n.json:1:7: "));
    }
  g_autoptr (GError) error = NULL;
  /* a number after a comment is read, at its column (15) */
  g_assert_false (util_json_check_depth ("{\"a\": /* x */ 0x10}", -1, 0, "n.json", &error));
  g_assert_true (g_str_has_prefix (error->message, "n.json:1:15: 0x10 is not a JSON number"));
  g_clear_error (&error);
  g_assert_false (util_json_check_depth ("{\"bw_GBps\": 0450}", -1, 0, "c.json", &error));
  g_assert_cmpstr (error->message, ==, "c.json:1:13: 0450 is not a JSON number: a leading "
                   "zero (read as octal by some readers) (hint: write it in decimal, e.g. "
                   "32, 4096, 0.5 or 1e-5)");
  static const char *const good[] = { "-0", "0", "0.5", "1E+3", "-12", "1e-5", "[1,2]",
                                      "3.25e2",
                                      /* comments, which json-glib skips, are skipped by the
                                       * checks too: a "v1.2" or a quote inside one is no
                                       * number and no string */
                                      "1 /* v1.2 it's $5 */", "1 // v1.2 +5\n",
                                      "/* 0x10 */ 2" };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) e2 = NULL;
      g_autofree char *text = g_strdup_printf ("{\"a\": %s}", good[i]);
      g_assert_true (util_json_check_depth (text, -1, 0, "n.json", &e2));
      g_assert_no_error (e2);
    }
}

/* A key given twice is found however it is written: json-glib decodes escapes and keeps
 * the last value, so "num_hidden_l\u0061yers": 80 after "num_hidden_layers": 32 gave 80
 * layers without a word (keys were compared as written; audit of 6 Dec). A surrogate
 * pair is one character (U+1F600 as \ud83d\ude00 and as its UTF-8 bytes), \/ is '/';
 * keys that differ after decoding stay apart. */
static void
test_duplicate_key_escaped (void)
{
  static const char *const dup[] = {
    "{\"num_hidden_layers\": 32, \"num_hidden_l\\u0061yers\": 80}",
    "{\"a/b\": 1, \"a\\/b\": 2}",
    "{\"\\ud83d\\ude00\": 1, \"\xf0\x9f\x98\x80\": 2}",
    "{\"x\": {\"t\\tu\": 1, \"t\tu\": 2}}",
  };
  for (guint i = 0; i < G_N_ELEMENTS (dup); i++)
    {
      g_autoptr (GError) error = NULL;
      if (util_json_check_depth (dup[i], -1, 0, "d.json", &error))
        g_error ("%s: accepted", dup[i]);
      g_assert_error (error, UTIL_INPUT_ERROR, UTIL_INPUT_ERROR_DUPLICATE_KEY);
    }
  g_autoptr (GError) error = NULL;
  g_assert_false (util_json_check_depth (dup[0], -1, 0, "d.json", &error));
  g_assert_cmpstr (error->message, ==, "d.json:1:27: key \"num_hidden_layers\" appears twice "
                   "in one object (once with escapes); JSON readers keep the last value and "
                   "drop the other without a word (hint: delete one of the two)");
  g_clear_error (&error);
  /* different keys after decoding: accepted */
  g_assert_true (util_json_check_depth ("{\"a\\u0062\": 1, \"ab\\u0063\": 2, \"\\\\u\": 3, "
                                        "\"u\": 4}", -1, 0, "d.json", &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/util/input/read-regular", test_read_regular);
  g_test_add_func ("/util/input/read-dev-zero", test_read_dev_zero);
  g_test_add_func ("/util/input/read-fifo-without-writer", test_read_fifo_without_writer);
  g_test_add_func ("/util/input/read-pipe", test_read_pipe);
  g_test_add_func ("/util/input/json-depth", test_depth);
  g_test_add_func ("/util/input/json-duplicate-key-escaped", test_duplicate_key_escaped);
  g_test_add_func ("/util/input/json-big-integers", test_big_integers);
  g_test_add_func ("/util/input/json-trailing-and-quotes", test_trailing_and_quotes);
  g_test_add_func ("/util/input/json-unicode-escapes", test_unicode_escapes);
  g_test_add_func ("/util/input/json-not-utf8", test_not_utf8);
  g_test_add_func ("/util/input/json-number-grammar", test_number_grammar);
  g_test_add_func ("/util/input/text-controls", test_text_controls);
  g_test_add_func ("/util/input/json-to-data", test_to_data);
  g_test_add_func ("/util/input/json-to-data-control", test_to_data_control);
  return g_test_run ();
}
