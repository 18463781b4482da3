/* util/input.h - reading untrusted input files, and writing JSON that is always valid.
 *
 * Contract:
 *  - Every loader of a user file (model, cluster, plan, framework, published CSV,
 *    nccl-tests output) reads it through util_input_read_file: at most `max_bytes`
 *    (UTIL_INPUT_MAX_BYTES when 0) are read, so /dev/zero or an endless pipe ends with an
 *    error instead of exhausting memory; a FIFO with no writer reads as empty instead of
 *    blocking in open(); a process substitution (`--plan <(...)`) is a pipe with a writer
 *    and is read to its end as usual. The text is NUL-terminated.
 *  - JSON text is checked by util_json_check_depth before json-glib parses it: json-glib's
 *    parser recurses once per nesting level, so 100,000 nested brackets would overflow the
 *    stack; UTIL_JSON_MAX_DEPTH is far above what any real input nests (model configs 3,
 *    cluster files with a profile 5, plan files 2).
 *  - util_json_to_data is the one way JSON leaves the program (stdout, the store, files):
 *    a non-finite number becomes null ("unknown"), a string that is not UTF-8 is repaired
 *    with U+FFFD, and numbers are written as valid JSON (json-glib 1.6 appends ".0" to
 *    every double printed without a '.', which turns 1e+22 into "1e+22.0").
 *  - Never prints; failures are UTIL_INPUT_ERROR GErrors whose message starts with the
 *    path and gives the cap and why. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define UTIL_INPUT_ERROR (util_input_error_quark ())
GQuark util_input_error_quark (void);

typedef enum {
  UTIL_INPUT_ERROR_IO,        /* cannot open or read */
  UTIL_INPUT_ERROR_TOO_LARGE, /* more than max_bytes */
  UTIL_INPUT_ERROR_TOO_DEEP,  /* JSON nested deeper than the cap */
  UTIL_INPUT_ERROR_DUPLICATE_KEY, /* one object names a key twice */
  UTIL_INPUT_ERROR_TRAILING,  /* text after the top-level value, or a single-quoted string */
  UTIL_INPUT_ERROR_ENCODING,  /* not UTF-8: a UTF-16 byte-order mark, or NUL bytes */
} UtilInputError;

/* The byte offset of the first control character in UTF-8 `text` (C0: below U+0020;
 * DEL; C1: U+0080..U+009F; the bidirectional controls U+202A..U+202E, U+2066..U+2069),
 * or -1 when it has none. A name with ESC sequences in it
 * (a cluster named "a\x1b]0;title\x07\x1b[2J") cleared the terminal or set its title when
 * printed; loaders refuse names that hold one. */
gssize util_text_control_at (const char *text);
/* The 1-based line of the first NUL byte in text[0..len), or 0 when it has none: a text
 * file's reader that copies lines as C strings lost everything after one. */
guint util_text_nul_line (const char *text, gsize len);
/* C0, DEL, C1 (util_text_control_at finds these and the bidirectional controls
 * U+202A-202E and U+2066-2069 too). */
gboolean util_unichar_is_control (gunichar c);
/* `text` (a name made from a file name) in place with each control character's first
 * byte as '?' and its other bytes dropped. Returns text. */
char  *util_text_blank_controls (char *text);
/* `text` as one shell word to paste: g_shell_quote's '...', or where it holds a control
 * character bash's $'...' with each as \xHH (a quoted ESC byte acted on the terminal
 * that printed it). New string. */
char  *util_shell_quote (const char *text);
/* Appends " WORD" to `out`: `word` as typed, or util_shell_quote's form where a shell would
 * not read it back as one word (a blank, a quote, $, \ or a control character). */
void   util_append_shell_word (GString *out, const char *word);

/* 64 MiB: the largest input tandem reads in practice (a cluster file with a full
 * calibration profile, a long nccl-tests log) is well under 10 MiB. */
#define UTIL_INPUT_MAX_BYTES ((gsize) 64 << 20)
/* 8 MiB for the JSON documents a person writes (a model's config.json, a plan, a stack):
 * a Hugging Face config is a few KiB, and json-glib's tree takes about 40 times a
 * document's size (a 50 MB config.json, a tokenizer.json passed by mistake, took ~2 GB
 * before its first field was read). */
#define UTIL_INPUT_MAX_DOC_BYTES ((gsize) 8 << 20)
/* Nesting levels of arrays and objects (the top-level value is level 1). */
#define UTIL_JSON_MAX_DEPTH 64

gboolean util_input_read_file (const char *path, gsize max_bytes, char **contents,
                               gsize *length, GError **error);

/* TRUE when text[0..len) is not UTF-16 or UTF-32 (no byte-order mark FF FE or FE FF at its
 * start, no NUL byte); else FALSE with a UTIL_INPUT_ERROR_ENCODING error naming `source`. */
gboolean util_text_encoding_check (const char *text, gsize len, const char *source,
                                   GError **error);

/* TRUE when the text is not UTF-16 or UTF-32 (no byte-order mark FF FE or FE FF at its
 * start, no NUL byte in text[0..length)), no array/object in text nests deeper than
 * max_depth (0: UTIL_JSON_MAX_DEPTH),
 * no object names a key twice (parsers keep the last value and drop the other in silence),
 * no integer literal is outside gint64, nothing but blanks follows a top-level array or
 * object, and no single quote stands outside a string (json-glib accepted both). Strings are skipped (brackets inside them do
 * not count). Malformed JSON passes: the parser reports it with its own line:column.
 * `source` names the text in the message. */
gboolean util_json_check_depth (const char *text, gssize length, guint max_depth,
                                const char *source, GError **error);

/* `root` as JSON text (pretty or compact), made valid as the contract says; `root` is
 * modified in place where a value had to be repaired. Free with g_free. */
char *util_json_to_data (JsonNode *root, gboolean pretty);

/* Builder members that are null when unknown: a number that is not finite (JSON has no
 * inf/nan), a string that is NULL. */
void util_json_member_number (JsonBuilder *b, const char *name, double v);
void util_json_member_string (JsonBuilder *b, const char *name, const char *v);

G_END_DECLS
