/* results/published.c - a published row -> (model, cluster, plan, measured step time),
 * and its prediction. The rules are the table of results/published.h; each is applied
 * once below, in the order a row is read, and the first that fails names the skip. */
#include "results/published.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "sim/predict.h"

const char *
res_pub_family_name (ResPubFamily family)
{
  static const char *const names[] = { "other", "h100", "a100", "h200", "b200" };
  return (guint) family < G_N_ELEMENTS (names) ? names[family] : "?";
}

/* ---- cells ---------------------------------------------------------------------------- */

static gboolean
contains_ci (const char *haystack, const char *needle)
{
  g_autofree char *h = g_ascii_strdown (haystack, -1);
  g_autofree char *n = g_ascii_strdown (needle, -1);
  return strstr (h, n) != NULL;
}

/* any of a NULL-terminated list */
static gboolean
contains_any_ci (const char *haystack, const char *const *needles)
{
  for (guint i = 0; needles[i] != NULL; i++)
    if (contains_ci (haystack, needles[i]))
      return TRUE;
  return FALSE;
}

static gboolean
starts_with_ci (const char *s, const char *prefix)
{
  return g_ascii_strncasecmp (s, prefix, strlen (prefix)) == 0;
}

/* Where the figure of a cell written as approximate starts: past a tilde (or
 * "\xe2\x89\x88", the almost-equal sign) before the number ("~64", "~2.0"), or a word
 * that says so ("around 380", "approx. 380", "approximately", "about", "roughly"; these
 * gave no measurement, where "~380" did), and the spaces after it; NULL when the cell
 * (past leading spaces) starts with none of them. Not "circa" nor "ca.": they date a
 * figure far more often than they round it ("circa 2023: 380" is no 2023 TFLOP/s). */
static const char *
approximate_figure (const char *cell)
{
  static const char *const words[] = { "approximately", "approx.", "approx", "around",
                                       "about", "roughly" };
  while (cell != NULL && g_ascii_isspace (*cell))
    cell++;
  if (cell == NULL)
    return NULL;
  const char *p = NULL;
  if (*cell == '~')
    p = cell + 1;
  else if (g_str_has_prefix (cell, "\xe2\x89\x88"))
    p = cell + 3;
  for (guint i = 0; p == NULL && i < G_N_ELEMENTS (words); i++)
    {
      gsize n = strlen (words[i]);
      if (starts_with_ci (cell, words[i]) && !g_ascii_isalpha (cell[n]))
        p = cell + n;
    }
  while (p != NULL && *p == ' ')
    p++;
  return p;
}

/* A cell that gives its figure as approximate (approximate_figure: "~64", "about 380").
 * The number is read as written (leading_number skips the sign or word; these were read
 * as empty and reported missing) and the explain output says the figure is approximate. */
static gboolean
cell_approximate (const char *cell)
{
  return approximate_figure (cell) != NULL;
}

/* The clause of `low` around the position `p`: back to just after the nearest character
 * of `back` before p (or the start), on to just before the first character of `fwd` at
 * or after p (or the end); a new string. */
static char *
clause_at (const char *low, const char *p, const char *back, const char *fwd)
{
  const char *b = p, *e = p;
  while (b > low && strchr (back, b[-1]) == NULL)
    b--;
  while (*e != '\0' && strchr (fwd, *e) == NULL)
    e++;
  return g_strndup (b, (gsize) (e - b));
}

/* Whether the sentence holding `p` (inside lower-case `low`; bounded by '.' and ';')
 * has one of `words` */
static gboolean
sentence_has_any (const char *low, const char *p, const char *const *words)
{
  const char *from, *to;
  res_pub_sentence_bounds (low, p, &from, &to);
  g_autofree char *sentence = g_strndup (from, (gsize) (to - from));
  return contains_any_ci (sentence, words);
}

/* Words that put a sentence on another run than the row's: a comparison, a baseline, an
 * earlier or other run, another entry of a table */
static const char *const other_run_words[] = { " vs", "versus", "compared", "compare ",
                                               " than ", "baseline", "unlike", "instead of",
                                               "in contrast", "other run", "another",
                                               "previous", "earlier", "prior run", " entry",
                                               "other entr", NULL };


/* The length of a thousands separator at `p`: a comma, a space, a no-break space (U+00A0)
 * or a thin / narrow no-break space (U+2009, U+202F), as SI and typeset tables group
 * digits ("1 024", "12\xe2\x80\x89000"); 0 when none. */
static gsize
group_separator (const char *p)
{
  if (*p == ',' || *p == ' ')
    return 1;
  if ((guchar) p[0] == 0xc2 && (guchar) p[1] == 0xa0)
    return 2;
  if ((guchar) p[0] == 0xe2 && (guchar) p[1] == 0x80
      && ((guchar) p[2] == 0x89 || (guchar) p[2] == 0xaf))
    return 3;
  return 0;
}

/* Whether a word after a number that binds to the number just before it starts at `p`
 * (after spaces): the singular "token" or "tok" before another word ("512 token
 * sequences": sequences of 512 tokens, an adjective of the 512, not a count) */
static gboolean
binds_to_group (const char *p)
{
  while (*p == ' ')
    p++;
  static const char *const words[] = { "token", "tok" };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    {
      const gsize n = strlen (words[i]);
      if (g_ascii_strncasecmp (p, words[i], n) == 0 && p[n] == ' ' && g_ascii_isalpha (p[n + 1]))
        return TRUE;
    }
  return FALSE;
}

/* Whether `p` is a thousands group after a separator of `sep` bytes: the separator, then
 * exactly three digits and no fourth. After a space (not a comma) the group must also end
 * the number: a letter or '-' after it binds the digits to what follows ("192 512-token
 * sequences" is 192 sequences of 512 tokens, it was read as 192,512), as does a singular
 * "token" word (binds_to_group: "192 512 token sequences"); leading_number first asks
 * hyphen_group whether a first group of one or two digits joins ("4 096-token"). */
static gboolean
thousands_group (const char *p, gsize sep)
{
  if (!(sep > 0 && g_ascii_isdigit (p[sep]) && g_ascii_isdigit (p[sep + 1])
        && g_ascii_isdigit (p[sep + 2]) && !g_ascii_isdigit (p[sep + 3])))
    return FALSE;
  if (*p == ',')
    return TRUE;
  const char after = p[sep + 3];
  return after == '\0' || (!g_ascii_isalnum (after) && after != '-' && !binds_to_group (p + sep + 3));
}

/* A first group of digits (`cell` to `q`) and one spaced group of three before a hyphen
 * compound ("4 096-token", "2 048-sequence batches", "6 144-GPU"): one number or two?
 * thousands_group reads two ("192 512-token sequences" is 192 sequences of 512 tokens),
 * and "4 096-token" was read as 4. A first group of three digits is a count of its own
 * (two numbers: 0). A first group of one or two digits is a thousands value where the
 * group starts with 0 (no count is written "096") or the joined value is a multiple of
 * 128, as sequence lengths, batches and GPU counts in the thousands are ("8 192", "1 536",
 * "6 144"): 1 with *joined. Otherwise ("8 500-token") neither reading is plain: -1, and
 * garbled_number refuses the cell. 0 where the cell is no such form. */
static int
hyphen_group (const char *cell, const char *q, gsize sep, double *joined)
{
  const gsize lead = (gsize) (q - cell);
  if (!(lead >= 1 && lead <= 3 && sep > 0 && *q != ',' && g_ascii_isdigit (q[sep])
        && g_ascii_isdigit (q[sep + 1]) && g_ascii_isdigit (q[sep + 2])
        && q[sep + 3] == '-' && g_ascii_isalpha (q[sep + 4])))
    return 0;
  if (lead == 3)
    return 0;
  const double v = g_ascii_strtod (cell, NULL) * 1000 + (q[sep] - '0') * 100
                   + (q[sep + 1] - '0') * 10 + (q[sep + 2] - '0');
  if (q[sep] == '0' || fmod (v, 128) == 0)
    {
      *joined = v;
      return 1;
    }
  return -1;
}

/* The leading number of a cell and where it ends: thousands separators read ("8,192",
 * "16,384", "1 024", "12 000" with a space, a no-break or a thin space: a group of 1-3
 * digits, then groups of exactly 3 after the same separator; "1 024" was read as 1 and
 * "12 000" tokens/s as 12); an approximate sign or word before it skipped
 * (approximate_figure: "~64", "about 64" are about 64); NULL when the cell is empty or
 * starts with anything else. Groups that are not thousands ("1 02", "1024 000") end the
 * number at the first group, and garbled_number refuses the cell. */
static const char *
leading_number (const char *cell, double *out)
{
  while (g_ascii_isspace (*cell))
    cell++;
  if (approximate_figure (cell) != NULL)
    cell = approximate_figure (cell);
  if (*cell == '\0' || !(g_ascii_isdigit (*cell) || *cell == '.' || *cell == '+'
                         || *cell == '-'))
    return NULL;
  /* "8,192", "1 024": digits in groups of three after one kind of separator, the whole
   * run a number */
  const char *q = cell;
  while (g_ascii_isdigit (*q))
    q++;
  const gsize sep = group_separator (q);
  double joined;
  if (hyphen_group (cell, q, sep, &joined) > 0)
    {
      *out = joined;
      return q + sep + 3;
    }
  if (q - cell >= 1 && q - cell <= 3 && thousands_group (q, sep))
    {
      g_autoptr (GString) digits = g_string_new_len (cell, q - cell);
      const char *first = q;   /* "1,024 000" is no number of one kind of groups */
      while (group_separator (q) == sep && strncmp (q, first, sep) == 0
             && thousands_group (q, sep))
        {
          g_string_append_len (digits, q + sep, 3);
          q += sep + 3;
        }
      if (*q != '.')
        {
          *out = g_ascii_strtod (digits->str, NULL);
          return q;
        }
    }
  char *end = NULL;
  double v = g_ascii_strtod (cell, &end);
  if (end == cell || !isfinite (v))
    return NULL;
  *out = v;
  return end;
}

/* A magnitude letter right after a number or one space ("8K", "1.2M", "16k tokens",
 * "8 K"): k, m, b (any case) not followed by another letter; also the binary prefixes
 * "Ki" / "Mi" ("4Ki": 4,096; it was read as 4); 0 when none */
static char
magnitude_suffix (const char *end)
{
  if (end[0] == ' ' && g_ascii_isalpha (end[1]))   /* "8 K" */
    end++;
  char m = g_ascii_tolower (*end);
  if ((m == 'k' || m == 'm' || m == 'b') && !g_ascii_isalpha (end[1]))
    return m;
  if ((m == 'k' || m == 'm') && (end[1] == 'i' || end[1] == 'I') && !g_ascii_isalpha (end[2]))
    return m;
  return 0;
}

/* A magnitude word after a number and any spaces ("2 million", "3.2 billion", "31.5
 * thousand"): 'k', 'm' or 'b', and in *len how far it reaches past `end` (a plural "s"
 * too: "2 millions"); 0 when none */
static char
magnitude_word (const char *end, gsize *len)
{
  static const struct { const char *word; char m; } words[] = {
    { "thousand", 'k' }, { "million", 'm' }, { "billion", 'b' },
  };
  const char *w = end;
  while (*w == ' ')
    w++;
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_ascii_strncasecmp (w, words[i].word, strlen (words[i].word)) == 0)
      {
        w += strlen (words[i].word);
        if (*w == 's' || *w == 'S')
          w++;
        *len = (gsize) (w - end);
        return words[i].m;
      }
  return 0;
}

/* The leading number of a cell ("430", "1.42 s", "430 (approx.)", "8,192"); FALSE when
 * the cell is empty or starts with anything else ("from memory, unverified"), or
 * the number carries a magnitude letter or word ("8K", "1.2M", "2 million": read as text,
 * never as 8, 1.2 or 2; seq_len reads its K itself, cell_seq_len, and global_batch its
 * tokens, batch_in_tokens). */
static gboolean
cell_number (const char *cell, double *out)
{
  double v;
  const char *end = leading_number (cell, &v);
  if (end == NULL || magnitude_suffix (end) != 0 || magnitude_word (end, &(gsize){ 0 }) != 0)
    return FALSE;
  *out = v;
  return TRUE;
}

/* A throughput as written: a number, or one with k / K or M (SI, decimal: "31.5K
 * tokens/s" = 31,500, "1.2M" = 1,200,000), which a rate column means in vendor tables
 * (these were not stated, and the row fell back to a TFLOP/s reading or was skipped) */
/* The factor of a rate's magnitude after its number: none 1; k / K or "thousand" 1e3; M or
 * "million" 1e6; B or "billion" 1e9 (a billion tokens/s a GPU is then refused by the
 * column's cap, where it was "no measured step time"); 0 for the binary "Ki" / "Mi",
 * which no rate is written in */
static double
rate_magnitude (const char *end)
{
  char m = magnitude_suffix (end);
  const char *letter = end[0] == ' ' ? end + 1 : end;
  if (m != 0 && (letter[1] == 'i' || letter[1] == 'I'))
    return 0;
  if (m == 0)
    m = magnitude_word (end, &(gsize){ 0 });
  return m == 'k' ? 1e3 : m == 'm' ? 1e6 : m == 'b' ? 1e9 : 1;
}

static gboolean
cell_rate (const char *cell, double *out)
{
  double v;
  const char *end = leading_number (cell, &v);
  if (end == NULL)
    return FALSE;
  const double f = rate_magnitude (end);
  if (f == 0)
    return FALSE;
  *out = v * f;
  return TRUE;
}

/* The factor to TFLOP/s of the rate unit at `p` (after the number and any spaces): none or
 * a word of T ("TFLOP/s", "TFLOPS", "TF", "teraFLOP/s"): 1; of P ("PFLOP/s", "PF", "PFs",
 * "petaFLOP/s"): 1000; of G: 1/1000; any other letters ("P" alone, "x"): 0 ("0.5 PFs"
 * and "0.5 petaFLOP/s" were read as 0.5 TFLOP/s) */
static double
tflops_unit_factor (const char *p)
{
  if (!g_ascii_isalpha (*p))
    return 1;
  g_autofree char *w = g_ascii_strdown (p, -1);
  /* "3200 per node": TFLOP/s of a node (rate_node_gpus) */
  if (g_str_has_prefix (w, "per node") || g_str_has_prefix (w, "per server")
      || g_str_has_prefix (w, "per host") || g_str_has_prefix (w, "per-node")
      || g_str_has_prefix (w, "per dgx node") || g_str_has_prefix (w, "aggregate per node"))
    return 1;
  if (g_str_has_prefix (w, "per ") && g_ascii_isdigit (w[4]))
    {
      const char *d = w + 4;
      while (g_ascii_isdigit (*d))
        d++;
      if (g_str_has_prefix (d, "-gpu node"))
        return 1;
    }
  /* "500 HFU": TFLOP/s, of hardware FLOPs (cell_hfu) */
  if (g_str_has_prefix (w, "hfu") && !g_ascii_isalpha (w[3]))
    return 1;
  if ((g_str_has_prefix (w, "pf") || g_str_has_prefix (w, "peta")))
    return 1000;
  if ((g_str_has_prefix (w, "gf") || g_str_has_prefix (w, "giga")))
    return 1e-3;
  if ((g_str_has_prefix (w, "tf") || g_str_has_prefix (w, "tera")))
    return 1;
  return 0;
}

/* TFLOP/s per GPU as written: a number (TFLOP/s), or one with its unit "PFLOP/s" /
 * "PFLOPS" (x 1000) or "GFLOP/s" (/ 1000): "1.622 PFLOP/s" was read as 1.622 TFLOP/s */
static gboolean
cell_tflops (const char *cell, double *out)
{
  double v;
  if (!cell_number (cell, &v))
    return FALSE;
  const char *end = leading_number (cell, &v);
  while (*end == ' ')
    end++;
  /* "PFLOP/s", "PFLOPS", or the short "PF" / "GF" of vendor tables ("0.765 PF" was read
   * as 0.765 TFLOP/s) */
  const double f = tflops_unit_factor (end);
  if (f == 0)
    return FALSE;   /* row_cells_problem refuses the row */
  v *= f;
  *out = v;
  return TRUE;
}

/* Whether one of `n` words starts at `p` as a word of its own (nothing alphanumeric right
 * after it) */
static gboolean
word_among_at (const char *p, const char *const *words, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      const gsize k = strlen (words[i]);
      if (strncmp (p, words[i], k) == 0 && !g_ascii_isalnum (p[k]))
        return TRUE;
    }
  return FALSE;
}

/* Whether a figure's cell labels its leading figure hardware FLOPs utilisation: "HFU" or
 * "hardware FLOPs" as the first word after the figure, past its unit ("%", "TFLOP/s") and
 * an opening bracket: "52 (HFU)", "52 HFU", "52% HFU", "500 (HFU, incl. recompute)",
 * "395.76 TFLOP/s (HFU)". Such a figure counts the recomputed forward too; it was read as
 * a model-FLOPs MFU or TFLOP/s, a step too short by the recomputed share. Not a label of
 * the leading figure: an HFU with its own number ("47 (HFU 62)", "HFU: 62"), one said
 * otherwise ("not HFU", "non-HFU", "no HFU"), or any other word first ("47 (MFU; HFU not
 * reported)", "465.9 (model FLOPs; HFU 620)"); these were read as HFU wherever the cell
 * named it. */
static gboolean
cell_hfu (const char *cell)
{
  g_autofree char *t = g_ascii_strdown (cell, -1);
  double v;
  const char *p = leading_number (t, &v);
  if (p == NULL)
    return FALSE;
  /* past the figure's unit: "%", "TFLOP/s", "TFLOPS", "PF" (tflops_unit_factor's words),
   * its per-GPU scope ("/GPU", "per GPU"), a dtype and a qualifier that says how the figure
   * was taken ("reported as"), and the punctuation that sets the label off ("52, HFU",
   * "52 [HFU]", "52 - HFU"): "400 TFLOP/s/GPU (HFU)", "400 (bf16, HFU)" and "52 (measured
   * as HFU)" were read as model FLOPs. A word outside these ("MFU", "model FLOPs",
   * "non-HFU") still ends the search. */
  static const char *const skips[] = {
    "/gpu", "/device", "per gpu", "per device", "per-gpu", "bf16", "fp16", "fp8", "fp32",
    "tf32", "reported as", "measured as", "megatron-style", "i.e.",
  };
  for (;;)
    {
      while (*p == ' ' || *p == '%' || *p == '(' || *p == '[' || *p == ',' || *p == '-')
        p++;
      gboolean skipped = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (skips) && !skipped; i++)
        {
          const gsize n = strlen (skips[i]);
          if (strncmp (p, skips[i], n) == 0
              && (skips[i][n - 1] == '.' || !g_ascii_isalnum (p[n])))
            {
              p += n;
              skipped = TRUE;
            }
        }
      if (skipped)
        continue;
      const char *w = p;
      while (g_ascii_isalpha (*p))
        p++;
      /* "TFLOP/s" but not "TFLOP/s/GPU" as one word: "/GPU" is a skip of its own */
      if (p[0] == '/' && p[1] == 's' && !g_ascii_isalnum (p[2]))
        p += 2;
      const gsize n = (gsize) (p - w);
      static const char *const units[] = {
        "tflop/s", "tflops", "tflop", "tf", "pflop/s", "pflops", "pf", "gflop/s", "gflops",
        "teraflop/s", "teraflops", "petaflop/s", "petaflops",
      };
      gboolean unit = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (units) && !unit; i++)
        unit = n == strlen (units[i]) && strncmp (w, units[i], n) == 0;
      if (!unit)
        {
          p = w;
          break;
        }
    }
  const char *after = NULL;
  if (g_str_has_prefix (p, "hfu") && !g_ascii_isalnum (p[3]))
    after = p + 3;
  else
    {
      static const char *const labels[] = { "hardware flop", "hw flop" };
      for (guint i = 0; i < G_N_ELEMENTS (labels) && after == NULL; i++)
        if (g_str_has_prefix (p, labels[i]))
          {
            after = p + strlen (labels[i]);
            while (g_ascii_isalpha (*after) || *after == '/')
              after++;
          }
    }
  if (after == NULL)
    return FALSE;
  /* "HFU 62", "HFU: 62%", "HFU = 62": a figure of its own */
  while (*after == ' ' || *after == ':' || *after == '=' || *after == '~')
    after++;
  if (g_ascii_isdigit (*after) || (*after == '.' && g_ascii_isdigit (after[1])))
    return FALSE;
  /* "HFU not reported", "HFU n/a", "HFU unknown", "HFU would be higher", "HFU excluded":
   * the HFU is another figure, one the cell does not give, not this one's label (read as
   * HFU once the comma, dash and "i.e." before the label were skipped: regression audit
   * of 7 Dec) */
  static const char *const other[] = { "not", "n/a", "na", "unknown", "would", "excluded",
                                       "omitted", "unavailable", "none", "-" };
  return !word_among_at (after, other, G_N_ELEMENTS (other));
}

/* A positive whole count; FALSE when missing, fractional or < 1. */
static gboolean
cell_count (const char *cell, gint64 *out)
{
  double v;
  if (cell_number (cell, &v))
    {
      if (v < 1 || v != floor (v) || v > (double) G_MAXINT)
        return FALSE;
      *out = (gint64) v;
      return TRUE;
    }
  /* a count written as a word, alone or before a bracket, comma or semicolon ("one",
   * "One (at 64 GPUs, DP is one)"; a Megatron-Bridge recipe docstring's micro_batch "one"
   * was skipped, audit of 7 Dec); not before another word ("one node" is no count of
   * GPUs) */
  static const char *const words[] = { "one", "two", "three", "four", "five", "six", "seven",
                                       "eight", "nine", "ten", "eleven", "twelve", "sixteen" };
  static const int values[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16 };
  const char *p = cell;
  while (g_ascii_isspace (*p))
    p++;
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    {
      const gsize n = strlen (words[i]);
      if (g_ascii_strncasecmp (p, words[i], n) != 0)
        continue;
      const char *q = p + n;
      while (*q == ' ')
        q++;
      if (*q == '\0' || *q == '(' || *q == ',' || *q == ';')
        {
          *out = values[i];
          return TRUE;
        }
    }
  return FALSE;
}

static const char *
get (const ResCsv *csv, guint row, const char *column)
{
  return res_csv_get (csv, row, column);
}

/* A cell after a label of its own at its start ("gbs=128", "GBS 128", "global batch: 512",
 * "seq 4096", "seq_len=8K"): the label (case-insensitive), then at least one of " =:",
 * then a digit; the cell itself otherwise. These were skipped as missing. */
static const char *
unlabelled (const char *cell, const char *const *labels)
{
  const char *p = cell;
  while (g_ascii_isspace (*p))
    p++;
  for (guint i = 0; labels[i] != NULL; i++)
    if (starts_with_ci (p, labels[i]))
      {
        const char *q = p + strlen (labels[i]);
        if (!(*q == ' ' || *q == '=' || *q == ':'))
          continue;
        while (*q == ' ' || *q == '=' || *q == ':')
          q++;
        if (g_ascii_isdigit (*q))
          return q;
      }
  return cell;
}

/* The global_batch and seq_len cells without a leading label of their own (unlabelled) */
static const char *
batch_cell (const ResCsv *csv, guint row)
{
  static const char *const labels[] = { "global_batch_size", "global batch size",
                                        "global_batch", "global batch", "gbs", "batch size",
                                        "batch", NULL };
  return unlabelled (get (csv, row, "global_batch"), labels);
}

static const char *
seq_cell (const ResCsv *csv, guint row)
{
  static const char *const labels[] = { "seq_len", "seq len", "seqlen", "sequence length",
                                        "seq length", "seq", "context length", "context",
                                        NULL };
  return unlabelled (get (csv, row, "seq_len"), labels);
}

/* A parallel size: a count, or the one number after the column's own name ("TP=4",
 * "tp 4", "TP4", "CP: 2"): the name, then any of " =:", then the number and nothing
 * more but spaces, a bracket or a comma / semicolon before more words ("CP=2, a2a") */
/* A cp cell that names its exchange before the degree ("ring attention (4)", "all-gather
 * (2)", "p2p, 4"): the one whole number that stands as a word of its own (not the 2 of
 * "a2a"); FALSE where there is none or more than one. "4 (all-gather based)" is read by
 * cell_count, the number first. */
static gboolean
cp_words_size (const char *cell, gint64 *out)
{
  gint64 found = 0;
  int n = 0;
  for (const char *p = cell; *p != '\0'; p++)
    if (g_ascii_isdigit (*p) && (p == cell || !(g_ascii_isalnum (p[-1]) || p[-1] == '.'
                                                || p[-1] == '+' || p[-1] == '_')))
      {
        char *end = NULL;
        gint64 v = g_ascii_strtoll (p, &end, 10);
        if (g_ascii_isalpha (*end) || *end == '_' || *end == '.' || *end == '+')
          {
            p = end - 1;
            continue;
          }
        found = v;
        n++;
        p = end - 1;
      }
  if (n != 1 || found < 1 || found > PLAN_MAX_WORLD)
    return FALSE;
  *out = found;
  return TRUE;
}

/* The EP degree of an ep cell that gives it after its label beside expert TP, the EP pair
 * anywhere: "ETP1 EP64", "ETP 1, EP 64", "etp=1, ep=64", "EP64 ETP1", "EP 64 / ETP 1" ->
 * 64. The label is "EP" at a word start ("ETP" is expert TP and "DeepEP" a dispatcher,
 * neither is it), then any of " =:" and the number, which ends the cell or comes before
 * '(', ',', ';', '/' or an expert-TP pair. These read as ep 1 (no EP read: the default),
 * beside the ETP the moe reader took from the same cell. FALSE when none, or two EP pairs
 * differ. */
static gboolean
ep_labelled (const char *cell, gint64 *out)
{
  g_autofree char *low = g_ascii_strdown (cell, -1);
  gint64 found = 0;
  for (const char *p = strstr (low, "ep"); p != NULL; p = strstr (p + 1, "ep"))
    {
      if (p != low && (g_ascii_isalnum (p[-1]) || p[-1] == '_'))
        continue;
      const char *q = p + 2;
      while (*q == ' ' || *q == '=' || *q == ':')
        q++;
      if (!g_ascii_isdigit (*q))
        continue;
      char *end = NULL;
      gint64 n = g_ascii_strtoll (q, &end, 10);
      while (*end == ' ')
        end++;
      if (!(*end == '\0' || strchr ("(,;/", *end) != NULL || g_str_has_prefix (end, "etp")
            || g_str_has_prefix (end, "expert"))
          || n < 1 || n > PLAN_MAX_WORLD)
        continue;
      if (found != 0 && found != n)
        return FALSE;
      found = n;
    }
  if (found == 0)
    return FALSE;
  *out = found;
  return TRUE;
}

static gboolean
cell_size (const ResCsv *csv, guint row, const char *column, gint64 *out)
{
  const char *cell = get (csv, row, column);
  if (cell_count (cell, out))
    return TRUE;
  while (g_ascii_isspace (*cell))
    cell++;
  /* the cp degree after the exchange's name ("ring attention (4)": it was read as 1) */
  if (strcmp (column, "cp") == 0 && !starts_with_ci (cell, column) && cp_words_size (cell, out))
    return TRUE;
  /* the EP pair beside an expert-TP one ("ETP1 EP64": not the ETP's number) */
  if (strcmp (column, "ep") == 0 && ep_labelled (cell, out))
    return TRUE;
  if (!starts_with_ci (cell, column))
    return FALSE;
  const char *p = cell + strlen (column);
  while (*p == ' ' || *p == '=' || *p == ':')
    p++;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  char *end = NULL;
  gint64 n = g_ascii_strtoll (p, &end, 10);
  while (*end == ' ')
    end++;
  if (!(*end == '\0' || *end == '(' || *end == ',' || *end == ';') || n < 1 || n > PLAN_MAX_WORLD)
    return FALSE;
  *out = n;
  return TRUE;
}

/* The "x M" / "\xc3\x97 M" after a count (spaces allowed, M a digit run): M, else 0 */
static gint64
times_count (const char *p)
{
  while (*p == ' ')
    p++;
  if (*p == 'x' || *p == 'X' || *p == '*')
    p++;
  else if ((guchar) p[0] == 0xc3 && (guchar) p[1] == 0x97)   /* the multiplication sign */
    p += 2;
  else
    return 0;
  while (*p == ' ')
    p++;
  if (!g_ascii_isdigit (*p))
    return 0;
  char *end = NULL;
  gint64 m = g_ascii_strtoll (p, &end, 10);
  while (*end == ' ')
    end++;
  /* "8x80GB" is eight 80 GB parts, not 640 */
  return (end[0] == 'g' || end[0] == 'G') && (end[1] == 'b' || end[1] == 'B') ? 0 : m;
}

/* The GPU count of an n_gpus cell: a count ("8", "2,048", "8 GPUs", "16 (2 nodes)");
 * nodes times GPUs per node ("16x8", "16 x 8 GPUs", "2 nodes x 8 GPUs", "2 nodes, 8 GPUs
 * per node"); or nodes with the total in GPUs ("1 node (8 GPUs)", "2 nodes (16 GPUs)",
 * the total a multiple of the nodes). 1: read; 0: not stated; -1: the cell counts nodes
 * (or servers, hosts) and gives no GPU count ("2 nodes"), which was read as 2 GPUs. */
static int
cell_gpus (const char *cell, gint64 *out)
{
  double v;
  const char *end = leading_number (cell, &v);
  if (end == NULL || magnitude_suffix (end) != 0 || magnitude_word (end, &(gsize){ 0 }) != 0
      || !(v >= 1) || v != floor (v) || v > (double) G_MAXINT)
    return 0;
  gint64 n = (gint64) v;
  gint64 m = times_count (end);
  if (m >= 1)
    {
      *out = n * m;
      return 1;
    }
  const char *w = end;
  while (*w == ' ')
    w++;
  static const char *const units[] = { "node", "server", "host", "machine", "instance",
                                       "dgx", "system" };
  gboolean nodes = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (starts_with_ci (w, units[i]))
      nodes = TRUE;
  if (!nodes)
    {
      /* GPUs per node first, then the nodes ("8 GPUs per node x 6 nodes", "8 GPUs/node, 6
       * nodes", "8 GPUs per host, 1,024 hosts", "8 GPUs per node on 6 DGX nodes": 48 or
       * 8,192; they were read as 8) */
      g_autofree char *low = g_ascii_strdown (w, -1);
      static const char *const per[] = { "per node", "/node", "per server", "/server",
                                         "per host", "/host", "per machine", "/machine",
                                         "per system", "per dgx", NULL };
      if (g_str_has_prefix (low, "gpu") && contains_any_ci (low, per))
        for (const char *p = low; *p != '\0'; p++)
          {
            if (!g_ascii_isdigit (*p) || (p > low && (g_ascii_isdigit (p[-1]) || p[-1] == ',')))
              continue;
            double k;
            const char *q = leading_number (p, &k);
            if (q == NULL || !(k >= 1) || k != floor (k) || k > (double) G_MAXINT)
              continue;
            while (*q == ' ')
              q++;
            for (guint u = 0; u < G_N_ELEMENTS (units); u++)
              if (g_str_has_prefix (q, units[u]))
                {
                  *out = n * (gint64) k;
                  return 1;
                }
          }
      *out = n;
      return 1;
    }
  /* the rest: "x 8 GPUs", "8 GPUs per node" / "8 GPUs each" / "8 per node", "(16 GPUs)" */
  for (const char *p = w; *p != '\0'; p++)
    {
      m = times_count (p);
      if (m >= 1 && (p[0] == ' ' || g_ascii_isdigit (p[-1]) || p[-1] == ' '))
        {
          *out = n * m;
          return 1;
        }
      if (!g_ascii_isdigit (*p) || g_ascii_isdigit (p[-1]))
        continue;
      char *q = NULL;
      gint64 k = g_ascii_strtoll (p, &q, 10);
      g_autofree char *rest = g_ascii_strdown (q, -1);
      if (k < 1)
        continue;
      if (strstr (rest, "per node") != NULL || strstr (rest, "/node") != NULL
          || strstr (rest, "each") != NULL || strstr (rest, "per server") != NULL)
        {
          *out = n * k;
          return 1;
        }
      const char *r = rest;
      while (*r == ' ')
        r++;
      if (g_str_has_prefix (r, "gpu") && k % n == 0)
        {
          *out = k;
          return 1;
        }
    }
  return -1;
}

/* The n_gpus cell read as devices (cell_gpus). An MI250X module is two GCDs, each its own
 * device (as Frontier's runs count them, and as the frontier preset models them): a
 * count that names the module in the n_gpus cell ("32 nodes x 4 MI250X", "128 MI250X")
 * is doubled, 256 GCDs, unless that cell says it counts GCDs ("256 MI250X GCDs"); a bare
 * count ("256") is taken as devices, GCDs, as before, whatever the gpu_type cell says
 * ("MI250X (GCD)"). */
static int
row_cell_gpus (const ResCsv *csv, guint row, gint64 *out)
{
  const char *cell = get (csv, row, "n_gpus");
  int read = cell_gpus (cell, out);
  /* "GCD" in a bracket is a gloss of the modules ("8 nodes x 4 MI250X (8 GCDs per node)"
   * was read as 32 devices), not the count's unit */
  g_autoptr (GString) outside = g_string_new (NULL);
  int depth = 0;
  for (const char *p = cell; *p != '\0'; p++)
    {
      depth += *p == '(' ? 1 : *p == ')' && depth > 0 ? -1 : 0;
      if (depth == 0 && *p != ')')
        g_string_append_c (outside, *p);
    }
  /* the modules named outside a bracket, GCDs not: "128 (MI250X GCDs)" counts GCDs */
  if (read == 1 && contains_ci (outside->str, "MI250") && !contains_ci (outside->str, "GCD")
      && *out <= G_MAXINT / 2)
    *out *= 2;
  return read;
}

/* The factor to seconds of the time unit at `p` (after the number and any spaces): none,
 * "s", "sec(s)", "second(s)": 1; "ms", "msec", "millisecond(s)": 1e-3; "us", "usec",
 * "\xc2\xb5s" / "\xce\xbcs" (micro sign, Greek mu), "microsecond(s)": 1e-6; "min",
 * "mins", "minute(s)": 60; "h", "hr", "hrs", "hour(s)": 3600. A letter run that is none of
 * these: 0 ("1.5 hours" was read as 1.5 s, "500 us" as 500 s). Prose after the unit
 * ("1.42 s (approx.)") is the cell's own. */
static double
time_unit_factor (const char *p)
{
  static const struct { const char *name; double f; } units[] = {
    { "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 }, { "seconds", 1 },
    { "ms", 1e-3 }, { "msec", 1e-3 }, { "msecs", 1e-3 }, { "millisecond", 1e-3 },
    { "milliseconds", 1e-3 }, { "us", 1e-6 }, { "usec", 1e-6 }, { "usecs", 1e-6 },
    { "microsecond", 1e-6 }, { "microseconds", 1e-6 }, { "\xc2\xb5s", 1e-6 },
    { "\xce\xbcs", 1e-6 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 },
    { "minutes", 60 }, { "h", 3600 }, { "hr", 3600 }, { "hrs", 3600 }, { "hour", 3600 },
    { "hours", 3600 },
  };
  gsize n = 0;
  while (g_ascii_isalpha (p[n]) || (guchar) p[n] >= 0x80)
    n++;
  if (n == 0)
    return 1;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (strlen (units[i].name) == n && g_ascii_strncasecmp (p, units[i].name, n) == 0)
      return units[i].f;
  return 0;
}

/* A step time in seconds: a number with no unit or one of time_unit_factor's; FALSE for
 * any other word after it (row_cells_problem refuses the row) */
static gboolean
cell_seconds (const char *cell, double *out)
{
  double v;
  const char *end = leading_number (cell, &v);
  if (end == NULL || magnitude_suffix (end) != 0)
    return FALSE;
  while (*end == ' ')
    end++;
  double f = time_unit_factor (end);
  if (f == 0)
    return FALSE;
  *out = v * f;
  return TRUE;
}

/* A sequence length: a count, or one with K / M ("8K", "128k", "1M"), which for context
 * lengths are powers of two (8K = 8,192: the Llama 3 paper's 8K and 128K stages are
 * 8,192 and 131,072 tokens) */
static gboolean
cell_seq_len (const char *cell, gint64 *out)
{
  double v;
  const char *end = leading_number (cell, &v);
  if (end == NULL)
    return FALSE;
  char m = magnitude_suffix (end);
  if (m == 0 && g_ascii_isalpha (*end))
    return FALSE;   /* a letter that is no magnitude ("4KiB", "4x"): not a length */
  double scale = m == 0 ? 1 : m == 'k' ? 1024 : m == 'm' ? 1048576 : 0;
  v *= scale;
  if (!(v >= 1) || v != floor (v) || v > (double) G_MAXINT)
    return FALSE;
  *out = (gint64) v;
  return TRUE;
}

/* The exact token count a rounded one spells out in brackets after its unit: "2.95M
 * tokens (8 x 90 x 4096)" -> 8 x 90 x 4,096 = 2,949,120, a product ('x', '*' or the
 * multiplication sign) of whole numbers, an '=' before it and "tokens" after it allowed
 * ("(= 720 x 4,096 tokens)"), or the sequences of seq_len they make ("2.95M tokens (8 x
 * 90)": 720 x 4,096). It is taken where it lies within the written figure's rounding
 * (half a unit of its last digit) at one of `scales` (2.95M: 2,945,000 .. 2,955,000
 * decimal), the one reading a product gives, whole in sequences: the sequences; 0 when
 * none. A product that misses the figure is no reading (the figure's own readings
 * follow). */
static gint64
batch_tokens_product (const char *number, const char *unit, double v, const double *scales,
                      int n_scales, gint64 seq)
{
  const char *open = strchr (unit, '(');
  if (open == NULL)
    return 0;
  const char *p = open + 1;
  while (*p == ' ' || *p == '=')
    p++;
  double product = 1;
  int factors = 0;
  for (;;)
    {
      double f;
      /* a factor said approximate ("(about 720 x 4096)") is no exact count: leading_number
       * reads past such words */
      if (!g_ascii_isdigit (*p))
        return 0;
      const char *end = leading_number (p, &f);
      if (end == NULL || end == p || f < 1 || f != floor (f) || *p == '-' || *p == '+')
        return 0;
      product *= f;
      factors++;
      while (*end == ' ')
        end++;
      if (g_ascii_strncasecmp (end, "tokens", 6) == 0)   /* "(720 x 4096 tokens)" */
        end += 6;
      while (*end == ' ')
        end++;
      if (*end == ')')
        break;
      if (*end == 'x' || *end == 'X' || *end == '*')
        end++;
      else if ((guchar) end[0] == 0xc3 && (guchar) end[1] == 0x97)
        end += 2;
      else
        return 0;
      while (*end == ' ')
        end++;
      p = end;
    }
  if (factors < 2 || product > 1e15)
    return 0;
  /* the figure's last written digit: "2.95" two decimals, half a unit 0.005 */
  const char *dot = memchr (number, '.', (gsize) (unit - number));
  int decimals = 0;
  if (dot != NULL)
    for (const char *d = dot + 1; g_ascii_isdigit (*d); d++)
      decimals++;
  const double half = 0.5 * pow (10, -decimals);
  /* the product in tokens ("(8 x 90 x 4096)"), else in sequences of seq ("(8 x 90)":
   * 720 x 4,096 = 2,949,120 tokens) */
  const double tokens[2] = { product, product * (double) seq };
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < n_scales; i++)
      if (fmod (tokens[k], (double) seq) == 0
          && fabs (tokens[k] - v * scales[i]) <= half * scales[i] * (1 + 1e-12))
        return (gint64) (tokens[k] / (double) seq);
  return 0;
}

/* A global batch written in tokens ("4194304 tokens", "16M tokens", "4M tok", "2 million
 * tokens") as sequences of `seq`: the token count over seq where it divides. With K / M
 * or "thousand" / "million" the count is read both ways, decimal (10^3, 10^6) and binary
 * (2^10, 2^20); the one reading that divides by seq is taken (Llama 3's "16M tokens" of
 * 8,192: 2,048 binary, 1,953.1 decimal; "2 million tokens" of 2,048: 1,024), and none or
 * both is no reading; "Ki" / "Mi" are binary alone ("4 Mi tokens"; it was not read as
 * tokens at all). A rounded figure whose exact product follows in brackets is that
 * product ("2.95M tokens (8 x 90 x 4096)": 720 sequences of 4,096;
 * batch_tokens_product). 1: read; 0: the cell is not in tokens; -1: in tokens, no single
 * reading. */
static int
batch_in_tokens (const char *cell, gint64 seq, gint64 *out)
{
  double v;
  const char *end = leading_number (cell, &v);
  if (end == NULL || seq < 1)
    return 0;
  char m = magnitude_suffix (end);
  gboolean binary = FALSE;
  const char *unit = end;
  gsize word = 0;
  if (m != 0)
    {
      unit = end + (end[0] == ' ' ? 2 : 1);
      if (*unit == 'i' || *unit == 'I')   /* "4Mi", "4 Mi" */
        {
          unit++;
          binary = TRUE;
        }
    }
  else if ((m = magnitude_word (end, &word)) != 0)   /* "2 million" */
    unit = end + word;
  while (*unit == ' ')
    unit++;
  if (g_ascii_strncasecmp (unit, "tok", 3) != 0)
    return 0;
  double scales[2] = { 1, 1 };
  if (m == 'k')
    scales[0] = 1e3, scales[1] = 1024;
  else if (m == 'm')
    scales[0] = 1e6, scales[1] = 1048576;
  else if (m == 'b')
    return -1;
  if (binary)
    scales[0] = scales[1];
  /* a rounded figure with its exact product in brackets: the product */
  gint64 exact = batch_tokens_product (cell, unit, v, scales, m != 0 && !binary ? 2 : 1, seq);
  if (exact >= 1 && exact <= G_MAXINT)
    {
      *out = exact;
      return 1;
    }
  gint64 found = 0;
  int n = 0;
  for (int i = 0; i < (m != 0 && !binary ? 2 : 1); i++)
    {
      double tokens = v * scales[i];
      if (tokens != floor (tokens) || tokens > 1e15)
        continue;
      gint64 t = (gint64) tokens;
      if (t % seq == 0 && t / seq >= 1 && t / seq <= G_MAXINT && t / seq != found)
        {
          found = t / seq;
          n++;
        }
    }
  if (n != 1)
    return -1;
  *out = found;
  return 1;
}

/* Numeric columns and what a number in them may be (issue 15: absurd cells were counted
 * in MAPE, a tp of 0 read as "not stated", i.e. 1). Counts are whole numbers from 1 up
 * to the caps of plan.h / model.h; measurements lie in (0, max]. A cell that is text
 * ("from memory") is still "not stated"; an approximate one ("~64") is its number; one that starts as a number and is out
 * of range refuses the row. */
static const struct {
  const char *column;
  gboolean    count;
  double      max;
  const char *why;
} cell_rules[] = {
  { "n_gpus", TRUE, PLAN_MAX_WORLD, "the GPU cap" },
  { "tp", TRUE, PLAN_MAX_WORLD, "the GPU cap" },
  { "pp", TRUE, PLAN_MAX_WORLD, "the GPU cap" },
  { "cp", TRUE, PLAN_MAX_WORLD, "the GPU cap" },
  { "dp", TRUE, PLAN_MAX_WORLD, "the GPU cap" },
  { "ep", TRUE, PLAN_MAX_WORLD, "the GPU cap" },
  { "virtual_pipeline", TRUE, MODEL_MAX_LAYERS, "the layer cap" },
  { "micro_batch", TRUE, G_MAXINT, "a 32-bit count" },
  { "global_batch", TRUE, G_MAXINT, "a 32-bit count" },
  { "n_layers", TRUE, MODEL_MAX_LAYERS, "the layer cap" },
  { "hidden", TRUE, MODEL_MAX_HIDDEN, "the hidden-size cap" },
  { "n_heads", TRUE, MODEL_MAX_HEADS, "the head cap" },
  { "n_kv_heads", TRUE, MODEL_MAX_HEADS, "the head cap" },
  { "ffn_hidden", TRUE, MODEL_MAX_FFN, "the FFN cap" },
  { "vocab", TRUE, MODEL_MAX_VOCAB, "the vocabulary cap" },
  { "seq_len", TRUE, MODEL_MAX_POSITIONS, "the 16M-token sequence cap" },
  { "step_time_s", FALSE, 86400, "a day per step" },
  { "tokens_per_s_total", FALSE, 1e10, "10 G tokens/s" },
  { "tokens_per_s_per_gpu", FALSE, 1e7, "10 M tokens/s per GPU" },
  { "tflops_per_gpu", FALSE, 1e5, "100 PFLOP/s per GPU" },
  { "mfu_pct", FALSE, 100, "all of the peak" },
  { "hfu_pct", FALSE, 100, "all of the peak" },
};

/* Where a cell that starts as a number goes on in a way no reader here takes, what
 * follows the number (a static description), else NULL: a hexadecimal number ("0x10",
 * which strtod reads as 16), a second number joined to it (a range with a dash, a tilde,
 * "to" or an arrow: "0.45-0.60", "2048\xe2\x86\x924096", "2048 -> 4096"; a product; a
 * power), a second decimal point ("1.42.0"), a digit separator
 * other than thousands groups ("1_000", the decimal comma "12,5", a list "8,1", spaced
 * groups that are not thousands "1 02" or "1024 000"), or
 * letters right after the number that are no magnitude or unit these columns know
 * ("12.5abc", "8abc", "8x" with no second count). Each was read as the number it began
 * with: "12,5" as 12 s, "0x10" as 16 s. */
static const char *
garbled_number (const char *cell, const char *lead_end, const char *column)
{
  const char *p = cell;
  if (*p == '+' || *p == '-')
    p++;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    return "a hexadecimal number";
  if (lead_end == NULL)
    return NULL;
  /* a second number joined to the first ("0.45-0.60", "48 x 4", "6*8", "2^12"): a range,
   * a product or a power was read as its first number without a word. The one product
   * read is the GPUs' nodes x GPUs per node (cell_gpus). */
  {
    const char *w = lead_end;
    while (*w == ' ')
      w++;
    /* past a unit or magnitude of the first number ("0.45s-0.60s", "3.2K-3.5K", "1.5
     * min-2 min": read as their first number too) */
    const char *after_unit = w;
    /* (a unit's letters, "/" or a non-ASCII sign such as the micro sign; not the dashes and
     * arrows of U+2000-U+2FFF, whose UTF-8 starts 0xe2: "2K\xe2\x86\x924K" is a range) */
    while (g_ascii_isalpha (*after_unit) || *after_unit == '/'
           || ((guchar) *after_unit >= 0x80 && (guchar) *after_unit != 0xe2))
      after_unit++;
    while (*after_unit == ' ')
      after_unit++;
    if (after_unit != w && (*after_unit == '-' || *after_unit == '~'
                            || (guchar) after_unit[0] == 0xe2))
      w = after_unit;
    /* an arrow from the first number to the second ("2048\xe2\x86\x924096", "2048 ->
     * 4096", the long arrow U+27F6): a range too, read as its first number before */
    if (g_str_has_prefix (w, "->") || g_str_has_prefix (w, "\xe2\x86\x92")
        || g_str_has_prefix (w, "\xe2\x9f\xb6"))
      {
        const char *q = w + (w[0] == '-' ? 2 : 3);
        while (*q == ' ')
          q++;
        if (g_ascii_isdigit (*q) || (*q == '.' && g_ascii_isdigit (q[1])))
          return "a range (two numbers)";
      }
    /* "1.2 to 1.4" */
    if (g_ascii_strncasecmp (w, "to ", 3) == 0 && (g_ascii_isdigit (w[3]) || w[3] == '.'))
      return "a range (two numbers)";
    gsize op = 0;
    const char *what = NULL;
    if (*w == '-' || *w == '~')
      op = 1, what = "a range (two numbers)";
    else if ((guchar) w[0] == 0xe2 && (guchar) w[1] == 0x80 && ((guchar) w[2] == 0x93
                                                                || (guchar) w[2] == 0x94))
      op = 3, what = "a range (two numbers)";
    else if (*w == '^')
      op = 1, what = "a power";
    else if (*w == '*' || ((*w == 'x' || *w == 'X') && w != lead_end))
      op = 1, what = "a product";
    else if ((guchar) w[0] == 0xc3 && (guchar) w[1] == 0x97)
      op = 2, what = "a product";
    if (what != NULL)
      {
        const char *q = w + op;
        while (*q == ' ')
          q++;
        if (g_ascii_isdigit (*q) || (*q == '.' && g_ascii_isdigit (q[1])))
          {
            if (g_str_has_prefix (what, "a product") && strcmp (column, "n_gpus") == 0)
              return NULL;
            return what;
          }
      }
  }
  /* "8 500-token": 8,500 tokens, or 8 of 500 tokens? (hyphen_group) */
  {
    const char *d = cell;
    while (*d == ' ')
      d++;
    if (*d == '+')
      d++;
    const char *q = d;
    while (g_ascii_isdigit (*q))
      q++;
    double joined;
    if (q == lead_end && hyphen_group (d, q, group_separator (q), &joined) < 0)
      return "digits grouped by spaces before a hyphenated unit that read as neither one "
             "thousands value nor a count and a second quantity";
  }
  /* digits grouped by spaces that are no thousands groups ("1 02", "1024 000", "2 4"):
   * leading_number reads "1 024" whole, and this was read as its first group */
  {
    const gsize sep = group_separator (lead_end);
    if (sep > 0 && *lead_end != ',')
      {
        const char *q = lead_end + sep;
        while (*q == ' ')
          q++;
        if (g_ascii_isdigit (*q))
          {
            /* a second quantity that is itself a thousands value before a hyphen
             * compound ("192 4 096-token sequences": 192 sequences of 4,096 tokens,
             * refused as garbled): a count and its unit, as "192 512-token" is */
            const char *d = q;
            while (g_ascii_isdigit (*q))
              q++;
            double second;
            if (hyphen_group (d, q, group_separator (q), &second) > 0)
              return NULL;
            if (!g_ascii_isalpha (*q) && *q != '-' && *q != '/')
              return "digits grouped by spaces that are no thousands groups (1-3 digits, "
                     "then groups of exactly three)";
          }
      }
  }
  if ((lead_end[0] == '.' || lead_end[0] == '_' || lead_end[0] == ',')
      && g_ascii_isdigit (lead_end[1]))
    return lead_end[0] == '.' ? "a second decimal point"
           : lead_end[0] == '_' ? "a digit separator '_'"
           : "a comma that is no thousands separator (a decimal comma, or a list)";
  if (!g_ascii_isalpha (lead_end[0]) || magnitude_suffix (lead_end) != 0)
    return NULL;
  /* "16x8" (nodes x GPUs: cell_gpus, n_gpus only) */
  if ((lead_end[0] == 'x' || lead_end[0] == 'X')
      && (g_ascii_isdigit (lead_end[1]) || (lead_end[1] == ' ' && g_ascii_isdigit (lead_end[2]))))
    return strcmp (column, "n_gpus") == 0 ? NULL : "a product";
  static const char *const units[] = { "s", "sec", "secs", "seconds", "ms", "msec", "min",
                                       "mins", "minutes", "h", "tok", "tokens", "gpu",
                                       "gpus", "tflop", "tflops", "pflop", "pflops", "gflop",
                                       "gflops", "tflop/s", "pflop/s", "gflop/s", "tokens/s",
                                       "tok/s" };
  gsize n = 0;
  while (g_ascii_isalpha (lead_end[n]) || lead_end[n] == '/')
    n++;
  /* a word of letters and digits ("1F1B interleaved"): text, which the column's own
   * reader takes or leaves not stated */
  if (g_ascii_isdigit (lead_end[n]))
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (strlen (units[i]) == n && g_ascii_strncasecmp (lead_end, units[i], n) == 0)
      return NULL;
  if (time_unit_factor (lead_end) != 0)   /* "1.5hours", "500us" */
    return NULL;
  if (tflops_unit_factor (lead_end) != 0)   /* "0.5PF" */
    return NULL;
  if (g_ascii_strncasecmp (lead_end, "thousand", 8) == 0
      || g_ascii_strncasecmp (lead_end, "million", 7) == 0)
    return NULL;
  return "letters that are no unit";
}

static int seq_tokens_product (const char *cell, gint64 seq, gint64 *out);

/* NULL when every numeric cell of the row is text, empty or in range; else why not. */
static char *
row_cells_problem (const ResCsv *csv, guint row)
{
  for (guint i = 0; i < G_N_ELEMENTS (cell_rules); i++)
    {
      const char *cell = get (csv, row, cell_rules[i].column);
      while (g_ascii_isspace (*cell))
        cell++;
      /* an approximate figure ("~64", "about 64") is checked as the number it gives */
      if (approximate_figure (cell) != NULL)
        cell = approximate_figure (cell);
      char *end = NULL;
      double v = g_ascii_strtod (cell, &end);   /* also reads inf, nan, 1e999 */
      if (end == cell)
        continue;                               /* empty or text: not stated */
      /* a count with a magnitude letter ("0.5M tokens", "1.5M tokens", "8K") is text to
       * this check: the column's own reader takes it (batch_in_tokens, cell_seq_len) or
       * leaves it not stated; it was refused as a fraction ("0.5") */
      double lead;
      const char *lead_end = leading_number (cell, &lead);
      const char *garbled = garbled_number (cell, lead_end, cell_rules[i].column);
      /* the caps hold for the whole grouped number ("20 000 000" tokens/s a GPU passed the
       * cap as its first group, 20) */
      if (lead_end != NULL)
        v = lead;
      /* sequences x their tokens in a batch column ("1024 * 4096 (tokens)"): its reader
       * takes it (seq_tokens_product) */
      gint64 seq = 0;
      if (garbled != NULL && (strcmp (cell_rules[i].column, "global_batch") == 0
                              || strcmp (cell_rules[i].column, "micro_batch") == 0)
          && cell_seq_len (seq_cell (csv, row), &seq)
          && seq_tokens_product (cell, seq, &(gint64){ 0 }) != 0)
        continue;
      if (garbled != NULL && g_str_has_prefix (garbled, "a hex"))
        return g_strdup_printf ("refused: %s '%s' is %s, not read here (hint: write it in "
                                "decimal)", cell_rules[i].column, cell, garbled);
      if (garbled != NULL)
        return g_strdup_printf ("refused: %s '%s' is not a number: '%.*s' goes on with %s "
                                "(hint: one plain number: a dot for the decimal point, commas "
                                "or spaces only between groups of three digits, no range or "
                                "product)", cell_rules[i].column,
                                cell, (int) (lead_end - cell), cell, garbled);
      /* a step time or a TFLOP/s figure in a unit no reader takes ("1.5 fortnights", "12
       * avg", "0.5 P"): read as seconds or TFLOP/s before the unit readers; the caps
       * hold for the figure in the column's unit ("30 h" passed a day's cap as 30) */
      const gboolean is_step = strcmp (cell_rules[i].column, "step_time_s") == 0;
      const gboolean is_tflops = strcmp (cell_rules[i].column, "tflops_per_gpu") == 0;
      if ((is_step || is_tflops) && lead_end != NULL && magnitude_suffix (lead_end) == 0)
        {
          const char *u = lead_end;
          while (*u == ' ')
            u++;
          const double f = is_step ? time_unit_factor (u) : tflops_unit_factor (u);
          if (f == 0)
            return g_strdup_printf (is_step ? "refused: step_time_s '%s' is in no time unit "
                                              "read here (hint: s, ms, us, min or h after "
                                              "the number)"
                                            : "refused: tflops_per_gpu '%s' is in no rate "
                                              "unit read here (hint: TFLOP/s, PFLOP/s or "
                                              "GFLOP/s after the number)", cell);
          v *= f;
        }
      /* a rate's magnitude ("31.5K", "3.2 billion") before its cap */
      if (g_str_has_prefix (cell_rules[i].column, "tokens_per_s") && lead_end != NULL)
        {
          const double f = rate_magnitude (lead_end);
          if (f == 0)
            return g_strdup_printf ("refused: %s '%s' has a binary prefix, which no rate is "
                                    "written in (hint: K for thousands, M for millions)",
                                    cell_rules[i].column, cell);
          v *= f;
        }
      if (cell_rules[i].count && lead_end != NULL
          && (magnitude_suffix (lead_end) != 0 || magnitude_word (lead_end, &(gsize){ 0 }) != 0))
        continue;
      gboolean ok = cell_rules[i].count
                    ? isfinite (v) && v >= 1 && v == floor (v) && v <= cell_rules[i].max
                    : isfinite (v) && v > 0 && v <= cell_rules[i].max;
      if (!ok)
        return g_strdup_printf ("refused: %s '%s' must be %s %.0f (%s)",
                                cell_rules[i].column, cell,
                                cell_rules[i].count ? "a whole number from 1 to"
                                                    : "a number above 0 and at most",
                                cell_rules[i].max, cell_rules[i].why);
    }
  return NULL;
}

static gboolean G_GNUC_PRINTF (2, 3)
skip (ResPublishedCase *c, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_free (c->skip_reason);
  c->skip_reason = g_strdup_vprintf (format, ap);
  va_end (ap);
  c->ready = FALSE;
  return FALSE;
}

/* A plan_resolve message as a validate skip reason: its hint names predict's flags ("hint:
 * --global-batch-size 144 or 192", "add --sequence-parallel"), which a CSV row has no
 * use for; where a flag is one column, the hint names the column ("hint: global_batch 144
 * or 192", "sequence_parallel yes"). Only the text from "(hint:" on; a flag with no column
 * of its own (--schedule, --cp-comm-type) stays as written. g_free the result. */
static char *
hints_as_cells (const char *message)
{
  static const struct { const char *flag, *cell; } map[] = {
    { "add --sequence-parallel", "sequence_parallel yes" },
    { "drop --sequence-parallel", "sequence_parallel no" },
    { "--global-batch-size", "global_batch" }, { "--gbs", "global_batch" },
    { "--mbs", "micro_batch" }, { "--gpus", "n_gpus" }, { "--seq-length", "seq_len" },
    { "--tp", "tp" }, { "--pp", "pp" }, { "--cp", "cp" }, { "--ep", "ep" },
    { "--vpp", "virtual_pipeline" },
  };
  const char *hint = strstr (message, "(hint:");
  if (hint == NULL)
    return g_strdup (message);
  GString *out = g_string_new_len (message, hint - message);
  for (const char *p = hint; *p != '\0';)
    {
      gboolean done = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (map) && !done; i++)
        {
          gsize n = strlen (map[i].flag);
          /* the whole flag: "--tp" not the start of "--tp-comm-overlap" */
          if (strncmp (p, map[i].flag, n) == 0
              && !(g_ascii_isalnum (p[n]) || p[n] == '-' || p[n] == '_'))
            {
              g_string_append (out, map[i].cell);
              p += n;
              done = TRUE;
            }
        }
      if (!done)
        g_string_append_c (out, *p++);
    }
  return g_string_free (out, FALSE);
}

/* ---- gpu_type -> cluster preset -------------------------------------------------------- */

/* gpu_type (vendor prose, any case) -> cluster preset; the table of published.h, every
 * rule with its examples in tests/results/test-published.c:
 *   "GB300*"                          -> gb300-nvl72-superpod   ("GB300 NVL72")
 *   "GB200*"                          -> gb200-nvl72-superpod   ("GB200 NVL72", "NVIDIA GB200")
 *   "B300" (not GB300)                -> dgx-b300-superpod      ("B300", "NVIDIA DGX B300")
 *   "B200"                            -> dgx-b200-superpod      ("B200-SXM-180GB", "DGX B200")
 *   "GH200"                           -> gh200-nvl4-cluster     ("GH200", "NVIDIA GH200
 *                                       480GB", "GH200 NVL4"; family other), not an H200
 *                                       (it was read as h200-superpod, then skipped); the
 *                                       HBM3e part (141/144 GB) and NVLink Switch systems
 *                                       ("DGX GH200", NVL2 / NVL32) -> none, skipped saying
 *                                       why (gh200_preset_ok)
 *   "H200" with "NVL" as a word       -> none: skipped, the PCIe card (was h200-superpod)
 *   "H200"                            -> h200-superpod          ("H200 SXM 141GB")
 *   "H20" (not H200)                  -> hgx-h20-cluster        ("H20", "NVIDIA H20 96GB";
 *                                       family other: extrapolated)
 *   "H100" with "PCIe"                -> h100-pcie-cluster
 *   "H100" with "NVL" as a word       -> h100-nvl-cluster       ("H100 NVL 94GB", "H100-NVL";
 *                                       not NVLink, NVSwitch or NVL72)
 *   "H100" with 94/96 GB or HBM2e     -> h100-sxm-96g-superpod  ("H100-SXM-96GB-HBM2e"; a
 *                                       size is a number of its own: "196GB" is not 96)
 *   "H100" with "700W, HBM3" or a 1:7 network (the Llama 3 production cluster, Llama 3
 *     paper Sec. 3.3.1, which the h100-24k preset models) -> h100-24k
 *   "H800" (not PCIe)                -> dgx-h800-superpod (1,024 GPUs), or
 *                                       dgx-h800-superpod-64su above 1,024 GPUs (NVLink
 *                                       400 GB/s, not the H100's 900; "H800 PCIe" stays on
 *                                       h100-pcie-cluster)
 *   other "H100"                      -> dgx-h100-superpod (1,024 GPUs), or
 *                                       dgx-h100-superpod-64su above 1,024 GPUs
 *   "A100" / "A800" with "PCIe"       -> a100-pcie-40g-cluster with 40 GB, else
 *                                       a100-pcie-cluster (80 GB): servers of 8 cards on
 *                                       PCIe Gen4, no NVSwitch (skipped before, and read as
 *                                       selene / a100-40g before that)
 *   "A800"                            -> a800-superpod (NVLink 400 GB/s, not the A100's 600)
 *   "A100" naming JUWELS in gpu_type  -> juwels-booster         ("A100 40GB (JUWELS Booster)";
 *     or network                                           JSC's 4-GPU nodes, HDR200 per GPU)
 *   "A100" (80 GB) naming Jean Zay in -> jean-zay               ("A100-SXM-80GB (Jean Zay)",
 *     gpu_type or network, or an Omni-Path network           BLOOM's: 4 x OPA 100 Gb/s per
 *                                                            node of 8)
 *   "A100" / "Ampere" with 40 GB      -> a100-40g-cluster, else -> selene ("DGX A100
 *                                       640GB" is 8 x 80 GB: selene); the size also as
 *                                       "40G" ("A100-SXM4-40G") or "40 GiB", not "40 GPUs"
 *                                       ("NVIDIA Ampere (A100)", "A100-SXM-80GB (Selene)")
 *   "MI325X" / "MI300X"              -> mi325x-cluster / mi300x-cluster ("AMD Instinct
 *                                       MI300X"; family other: extrapolated)
 *   "MI355X" / "MI350X"               -> mi355x-cluster / mi350x-cluster ("AMD Instinct
 *                                       MI355X"; family other: extrapolated); each AMD
 *                                       part also without its X ("mi355", "MI325",
 *                                       "MI300"; not the MI300A)
 *   "MI250X"                          -> frontier, one device per GCD as Frontier runs
 *                                       count them ("AMD MI250X", "MI250X (Frontier)");
 *                                       an n_gpus cell that counts the modules ("32
 *                                       nodes x 4 MI250X") is 2 GCDs each (row_cell_gpus)
 *   "V100"                            -> dgx-2h-v100-cluster ("V100 32GB", "Tesla
 *                                       V100-SXM2-32GB", "V100-32GB (25 DGX-2)"): fp16
 *                                       only, a bf16 row is skipped (map_precision); a
 *                                       PCIe V100, or a 16 GB one on Summit -> none,
 *                                       skipped saying why
 *   "V100" with 16 GB                 -> dgx1-v100-cluster ("Tesla V100-SXM2-16GB", "V100
 *                                       16GB": DGX-1's 8 GPUs on a hybrid cube-mesh)
 *   "A100" with 64 GB, or naming       -> leonardo               ("A100 SXM 64GB", "A100
 *     Leonardo in gpu_type or network                           64GB (Leonardo)"; family a100:
 *                                       the custom part of CINECA Leonardo's 4-GPU nodes)
 *   "GB200" / "GB300" naming a rack of fewer than 72 ("NVL36", "NVL4") on more GPUs
 *     than one such rack             -> none, skipped (the presets' NVLink domain is 72)
 *   "L40S"                            -> l40s-pcie-cluster     ("NVIDIA L40S 48GB"; PCIe
 *                                       only, no NVLink)
 *   "v5p", up to 6,144 chips          -> tpu-v5p-pod ("TPU v5p", "Google Cloud TPU v5p";
 *                                       family other: extrapolated); more: skipped (a
 *                                       multislice run, its DCN not modelled)
 *   "Trainium2" / "Trn2", up to 16 chips, or up to 64 with "UltraServer" in the gpu_type
 *     or network -> trn2-ultraserver ("AWS Trainium2 (Trn2)"; family other); more:
 *     skipped (the EFA scale-out is not in the preset)
 * Anything else (TPU v4 / v5e / v6e, Trainium 1, Gaudi, consumer cards) -> no preset:
 * skipped with the gpu_type.
 * The rules read the cell without what it says the part is not (gpu_type_read): a variant
 * said off ("H100 SXM5 (not PCIe)", "H100 SXM (non-PCIe)", "H100 80GB (not H100 NVL)",
 * "H200 (not GH200)", "A100 SXM4 80GB (not the 40GB variant)") is blanked first, and where
 * the cell names SXM, a PCIe mention in a clause that names the host or a link is the
 * server's host interface, not the card ("H100 SXM, 8 per node, PCIe Gen5 host link"):
 * each was read as the variant it named.
 * A run larger than its preset grows the preset's outermost level (topo_cluster_scale_out). */
static char *blank_negated (const char *text, const char *const *keys, gboolean *any);
static const char *framework_cell (ResPublishedCase *c, const ResCsv *csv, guint row);

/* The gpu_type cell as the rules below read it (lower case; g_free the result): the parts
 * and variants it says it is not blanked (blank_negated: "not PCIe", "non-PCIe", "not H100
 * NVL", "not GH200", "not the 40GB variant"), then, where it names SXM, every PCIe mention
 * in a clause (between ',', ';', '(' and ')') that names the host or a link: the server's
 * host interface ("PCIe Gen5 host link"), not the PCIe card. One pass over the clauses. */
static char *
gpu_type_read (const char *gpu_type)
{
  static const char *const keys[] = {
    "pcie", "sxm", "h100 nvl", "h100-nvl", "h100nvl", "h200 nvl", "h200-nvl", "nvl",
    "gh200", "gb200", "gb300", "b200", "b300", "h200", "h100", "h800", "h20", "a100", "a800",
    "40gb", "40 gb", "40-gb", "40g", "40 gib", "40gib", "64gb", "64 gb", "94gb", "94 gb",
    "96gb", "96 gb", "hbm2e", "16gb", "16 gb", NULL };
  g_autofree char *blanked = blank_negated (gpu_type, keys, NULL);
  char *t = g_ascii_strdown (blanked, -1);
  if (strstr (t, "sxm") == NULL)
    return t;
  for (char *a = t; *a != '\0';)
    {
      gsize n = strcspn (a, ",;()");
      const char saved = a[n];
      a[n] = '\0';
      gboolean host = strstr (a, "host") != NULL;
      for (const char *l = strstr (a, "link"); l != NULL && !host; l = strstr (l + 1, "link"))
        host = (l == a || !g_ascii_isalnum (l[-1])) && !g_ascii_isalnum (l[4]);
      if (host)
        for (char *p = strstr (a, "pcie"); p != NULL; p = strstr (p + 4, "pcie"))
          memset (p, '#', 4);
      a[n] = saved;
      a += n + (saved != '\0');
    }
  return t;
}

/* A memory size `gb` in t (lower case): the number as a word of its own (has_number_word),
 * then an optional space or hyphen, then "gb", "gib" or a bare "g" that ends the word:
 * "96GB", "96 GB", "96-GB", "40 GiB", "A100-40G", "A100-SXM4-40G" (NVIDIA's and the
 * clouds' own short form), but not "40 GPUs" */
static gboolean
has_gb (const char *t, const char *gb)
{
  gsize n = strlen (gb);
  for (const char *p = strstr (t, gb); p != NULL; p = strstr (p + 1, gb))
    {
      if (p != t && (g_ascii_isdigit (p[-1]) || p[-1] == '.'))
        continue;
      const char *q = p + n;
      if (*q == ' ' || *q == '-')
        q++;
      if (*q != 'g')
        continue;
      if (q[1] == 'b' || (q[1] == 'i' && q[2] == 'b') || !g_ascii_isalpha (q[1]))
        return TRUE;
    }
  return FALSE;
}

/* "nvl" as a word of its own, the H100 NVL product: not NVLink or NVSwitch (an SXM
 * server's interconnect) and not NVL72 / NVL36 (a Grace Blackwell rack) */
/* Whether `t` (lower case) names the AMD part `stem` ("mi355"): the stem, then an "x"
 * or nothing more of the name ("mi355x", "MI355X-288GB", "mi355", "MI355 (OAM)"); not a
 * longer number ("mi3550") nor another letter ("mi300a", the APU) */
static gboolean
amd_part (const char *t, const char *stem)
{
  const gsize n = strlen (stem);
  for (const char *p = strstr (t, stem); p != NULL; p = strstr (p + 1, stem))
    {
      /* a count glued before it ("8xmi300x") is no part of the name */
      if (p > t && g_ascii_isalnum (p[-1])
          && !(p[-1] == 'x' && p - 1 > t && g_ascii_isdigit (p[-2])))
        continue;
      const char *e = p + n;
      if (*e == 'x')
        e++;
      /* nor a plural or a count glued after it ("mi300xs", "mi355xx8") */
      if (!g_ascii_isalnum (*e) || (e > p + n && *e == 's' && !g_ascii_isalnum (e[1]))
          || (e > p + n && *e == 'x' && g_ascii_isdigit (e[1])))
        return TRUE;
    }
  return FALSE;
}

static gboolean
has_nvl_word (const char *t)
{
  for (const char *p = strstr (t, "nvl"); p != NULL; p = strstr (p + 1, "nvl"))
    if (!g_ascii_isalnum (p[3]))
      return TRUE;
  return FALSE;
}

/* The GPU count of a Grace Blackwell rack product named in t ("gb200 nvl36" 36, "nvl4" 4,
 * "nvl72" 72, "NVL36x2" 36); 0 when none is named */
static gint64
nvl_rack_size (const char *t)
{
  for (const char *p = strstr (t, "nvl"); p != NULL; p = strstr (p + 1, "nvl"))
    {
      const char *q = p + 3;
      while (*q == ' ' || *q == '-')
        q++;
      if (g_ascii_isdigit (*q))
        return g_ascii_strtoll (q, NULL, 10);
    }
  return 0;
}

/* A Grace Blackwell row whose rack product has a smaller NVLink domain than the NVL72 of
 * the gb200 / gb300 presets (GB200 NVL36, NVL4) and whose run spans more GPUs than one
 * such domain: the presets would put them in one 72-GPU NVLink domain */
static gboolean
nvl_rack_too_small (const char *t, gint64 n_gpus)
{
  gint64 rack = nvl_rack_size (t);
  return (strstr (t, "gb200") != NULL || strstr (t, "gb300") != NULL) && rack > 0 && rack < 72
         && n_gpus > rack;
}

/* A GH200 row that gh200-nvl4-cluster describes: the 96 GB HBM3 superchip in nodes of
 * four on NVLink without a switch (Alps, JUPITER, Isambard-AI). Not the later HBM3e part
 * (141-144 GB at about 5 TB/s) nor the NVLink Switch systems (DGX GH200 of 256, GH200
 * NVL32), whose NVLink domain spans nodes; a rack size other than 4 ("NVL2", "NVL32") is
 * one of those. "480GB" is the Grace memory beside the GPU ("NVIDIA GH200 480GB", the
 * name nvidia-smi shows for the 96 GB part). */
static gboolean
gh200_preset_ok (const char *t)
{
  gint64 rack = nvl_rack_size (t);
  return !has_gb (t, "144") && !has_gb (t, "141") && strstr (t, "hbm3e") == NULL
         && strstr (t, "dgx gh200") == NULL && strstr (t, "dgx-gh200") == NULL
         && (rack == 0 || rack == 4);
}

/* The scale-out bandwidth a network cell states (res_pub_network_gbps_per_gpu). The
 * cell is read clause by clause (split at ';', and at ',' except between digits:
 * "1,600 Gbps"); a clause that names the scale-up fabric (NVLink, NVSwitch, xGMI,
 * Infinity Fabric, PCIe, ICI) is left out, its figures being that fabric's. In a clause,
 * a figure is "[N x] B unit" with the unit Tb/s, Tbps, Gb/s, Gbps or Gbit/s (bits) or
 * TB/s, GB/s, GBps (bytes: x 8); its scope is the first scope word after it in the clause:
 * per GPU / device / accelerator / GCD (the figure is a GPU's), per node / host / server /
 * DGX / instance / system / machine or node-node (the node's, over its `node` GPUs), and
 * with none an "N x" count is the node's NICs (the node's total: "InfiniBand 8x400
 * Gb/s"), a bare figure is unscoped and not read ("ConnectX-8 800 Gb/s" could be a NIC's
 * or a node's). The first clause with a scoped figure gives it. Examples (a test each,
 * tests/results/test-mapping.c): "InfiniBand 8x400 Gb/s" on 8-GPU nodes 400;
 * "1600 Gbps node-node RoCE" 200; "EFA 400 Gbps per node (4x100G)" 50; "RoCE v2, 2x 100
 * Gbps per node" 25; "RDMA 400 Gb/s (Mellanox CX-7) per GPU" 400; "InfiniBand 8x50 GB/s
 * per node (8x400 Gb/s), NVLink 4" 400; "800 Gbps InfiniBand per DGX-2 node" on 16-GPU
 * nodes 50; "H800 NVLink 400 GB/s" none. */
static gboolean
clause_is_scale_up (const char *low)
{
  static const char *const words[] = { "nvlink", "nvswitch", "xgmi", "infinity fabric",
                                       "pcie", " ici", "nvl72", "nvl36", "ualink" };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (strstr (low, words[i]) != NULL)
      return TRUE;
  return g_str_has_prefix (low, "ici");
}

/* 1 the scope is a GPU, 2 a node, 3 one NIC a GPU ("one per GPU": the figure is a NIC's
 * and a GPU's, whatever count of NICs before it), 0 none: the first scope word in `low` */
static int
network_scope (const char *low)
{
  static const char *const one[] = { "one per gpu", "1 per gpu", "one nic per gpu",
                                     "one for each gpu", "one per device" };
  for (guint i = 0; i < G_N_ELEMENTS (one); i++)
    if (strstr (low, one[i]) != NULL)
      return 3;
  static const char *const gpu[] = { "per gpu", "per device", "per accelerator", "per gcd",
                                     "/gpu", "a gpu" };
  static const char *const node[] = { "per node", "per host", "per server", "per dgx",
                                      "per instance", "per system", "per machine",
                                      "node-node", "node-to-node", "node to node", "a node" };
  const char *best = NULL;
  int scope = 0;
  for (guint i = 0; i < G_N_ELEMENTS (gpu); i++)
    {
      const char *p = strstr (low, gpu[i]);
      if (p != NULL && (best == NULL || p < best))
        best = p, scope = 1;
    }
  for (guint i = 0; i < G_N_ELEMENTS (node); i++)
    {
      const char *p = strstr (low, node[i]);
      if (p != NULL && (best == NULL || p < best))
        best = p, scope = 2;
    }
  return scope;
}

/* A figure's scope in words that say where the link runs rather than whose it is:
 * "inter-node", "between nodes", "inter-machine" (IBM's "800 Gbps inter-node
 * interconnect", InternLM's "4 * 100Gb RoCE inter-machine": a node's). Weaker than
 * network_scope's: taken only where the whole cell names no GPU or node scope ("400 Gb/s
 * inter-node per GPU" is a GPU's; "InfiniBand 400 Gb/s between nodes, one NIC per GPU"
 * one NIC a GPU). */
static gboolean
network_weak_node_scope (const char *low)
{
  static const char *const words[] = { "inter-node", "internode", "inter node",
                                       "inter-machine", "inter-host", "inter-server",
                                       "between nodes", "between hosts", "between servers" };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (strstr (low, words[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* Whether a network clause names a network ("InfiniBand", "RoCE", "EFA", "NIC", "GbE",
 * "interconnect", ...): the shorthands ("400G") and an unscoped aggregate are read only
 * in such a clause, so that "80G HBM per GPU" or "8x A100 80G per node" and an HBM or
 * NVLink figure in bytes ("H100 SXM5 (900 GB/s)") are not taken for NICs */
static gboolean
clause_names_network (const char *low)
{
  static const char *const words[] = { "infiniband", "roce", "efa", "ethernet", "gbe", "nic",
                                       "hca", "rdma", "ndr", "hdr", "edr", "xdr", "connectx",
                                       "cx-", "network", "interconnect", "fabric", "rail",
                                       "scale-out", "scale out", "ib ", "slingshot", "spectrum",
                                       "quantum", "omni-path", "port", "uplink" };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (strstr (low, words[i]) != NULL)
      return TRUE;
  return g_str_has_suffix (low, " ib") || g_str_has_prefix (low, "ib ");
}

/* A network clause with the port-speed shorthands people write spelled as figures the
 * reader takes: an InfiniBand generation with its rate ("NDR400", "HDR 200", "NDR-200":
 * that many Gb/s), a bare port speed ("400G", "4x100G", "3.2T": Gb/s, Tb/s), and a
 * generation alone where the clause states no figure ("InfiniBand NDR": the generation's
 * 4x-link rate, EDR 100, HDR 200, NDR 400, XDR 800 Gb/s, the InfiniBand Trade
 * Association's roadmap). Examples (tests/results/test-mapping.c): "2x 400G per node" on
 * 8-GPU nodes 100; "InfiniBand NDR400 (8 per node)" 400; "HDR InfiniBand (8 per node)" 200. */
static char *
network_spell_figures (const char *clause, gboolean cell_net, gboolean *from_generation)
{
  *from_generation = FALSE;
  static GRegex *gen_rate = NULL, *bare = NULL, *bare_big = NULL, *gen = NULL, *any = NULL,
                *gpu_mem = NULL;
  if (g_once_init_enter (&any))
    {
      gen_rate = g_regex_new ("\\b((?i:ndr|hdr|edr|xdr))[- ]?(\\d{2,3})\\b"
                              "(?!\\s*[GgTt](?:bit|b|B))", G_REGEX_OPTIMIZE, 0, NULL);
      /* a port speed: 10, 25, 40, 50, 100, 200, 400, 800 G or 1.6 / 3.2 T, whole */
      bare = g_regex_new ("(?<![\\d.])((?:10|25|40|50|100|200|400|800|1600|3200)|1\\.6|3\\.2)"
                          "\\s?([GgTt])b?(?![A-Za-z0-9/])", G_REGEX_OPTIMIZE, 0, NULL);
      bare_big = g_regex_new ("(?<![\\d.])((?:10|25|50|100|200|400|800|1600|3200)|1\\.6|3\\.2)"
                              "\\s?([GgTt])b?(?![A-Za-z0-9/])", G_REGEX_OPTIMIZE, 0, NULL);
      /* a GPU's memory after its name ("A100 40G", "H100-SXM-80G"): no port speed */
      gpu_mem = g_regex_new ("(?i)\\b((?:[abgh]\\d{3}|gb\\d{3}|mi\\d{3}x?|v100)(?:[- ](?:sxm\\d?|pcie))?)"
                             "[- ]?(\\d{2,3})\\s?g(?:b|ib)?\\b", G_REGEX_OPTIMIZE, 0, NULL);
      gen = g_regex_new ("\\b(?i:(ndr|hdr|edr|xdr))\\b", G_REGEX_OPTIMIZE, 0, NULL);
      g_once_init_leave (&any, g_regex_new ("\\d\\s*[GgTt](?:bit|b|B)(?:/s|ps|E\\b)",
                                            G_REGEX_OPTIMIZE, 0, NULL));
    }
  /* outside a clause that names the network only the port speeds no GPU name or memory
   * size carries ("2x 400G per node"; not "A100 40G", "80G HBM") */
  g_autofree char *low = g_ascii_strdown (clause, -1);
  const gboolean net = clause_names_network (low) || cell_net;
  g_autofree char *m0 = g_regex_replace (gpu_mem, clause, -1, 0, "\\1 (\\2 GB memory)", 0, NULL);
  const char *c0 = m0 != NULL ? m0 : clause;
  g_autofree char *a = net ? g_regex_replace (gen_rate, c0, -1, 0, "\\1 \\2 Gb/s", 0, NULL)
                           : g_strdup (c0);
  char *b = g_regex_replace (net ? bare : bare_big, a != NULL ? a : c0, -1, 0,
                             "\\1 \\2b/s", 0, NULL);
  if (b == NULL)
    b = g_strdup (clause);
  g_autoptr (GMatchInfo) m = NULL;
  if (net && !g_regex_match (any, b, 0, NULL) && g_regex_match (gen, b, 0, &m))
    {
      g_autofree char *g_raw = g_match_info_fetch (m, 1);
      g_autofree char *g = g_ascii_strdown (g_raw, -1);
      const char *rate = g_str_equal (g, "edr") ? "100" : g_str_equal (g, "hdr") ? "200"
                         : g_str_equal (g, "ndr") ? "400" : "800";
      int end = 0;
      g_match_info_fetch_pos (m, 0, NULL, &end);
      char *c = g_strdup_printf ("%.*s %s Gb/s%s", end, b, rate, b + end);
      g_free (b);
      b = c;
      *from_generation = TRUE;
    }
  return b;
}

/* After a figure: "(8 per node)", ", 8 per server", "(4 HCAs per node)": the count of NICs
 * in *n and the position of the scope word, or NULL */
static const char *
nic_count_per_node (const char *a, gint64 *n)
{
  /* past the fabric's words ("InfiniBand", "RoCE v") but not past a scope ("per GPU")
   * nor far */
  const char *from = a;
  for (;;)
    {
      while ((g_ascii_isalpha (*a) || *a == ' ' || *a == '-' || *a == '(' || *a == ',')
             && a - from < 40)
        {
          if (g_ascii_strncasecmp (a, "per ", 4) == 0)
            return NULL;
          a++;
        }
      if (!g_ascii_isdigit (*a) || a - from >= 40)
        return NULL;
      /* a digit inside a word is a model number, no count: past it ("400 Gb/s
       * ConnectX-7 NICs per node" read 7 NICs a node, 43.75 GB/s a GPU for 50;
       * regression audit of 7 Dec) */
      if (a > from && (a[-1] == '-' || g_ascii_isalpha (a[-1])))
        {
          while (g_ascii_isalnum (*a))
            a++;
          continue;
        }
      break;
    }
  char *after = NULL;
  const gint64 v = g_ascii_strtoll (a, &after, 10);
  if (v < 1 || v > 64)
    return NULL;
  const char *q = after;
  while (*q == ' ')
    q++;
  static const char *const nouns[] = { "nics", "nic", "ports", "port", "hcas", "hca",
                                       "adapters", "adapter", "links", "link", "cards",
                                       "rails" };
  for (guint i = 0; i < G_N_ELEMENTS (nouns); i++)
    if (g_ascii_strncasecmp (q, nouns[i], strlen (nouns[i])) == 0)
      {
        q += strlen (nouns[i]);
        while (*q == ' ')
          q++;
        break;
      }
  static const char *const per[] = { "per node", "per host", "per server", "per dgx",
                                     "per instance", "per system", "per machine", "a node" };
  for (guint i = 0; i < G_N_ELEMENTS (per); i++)
    if (g_ascii_strncasecmp (q, per[i], strlen (per[i])) == 0)
      {
        *n = v;
        return after;
      }
  return NULL;
}

/* A count of NICs written before a port figure with no 'x' ("8 NVIDIA Mellanox 400 Gbps
 * HDR InfiniBand HCAs per node", "8 ConnectX-7 400G NICs"): the number that opens the
 * clause (`cl`, the figure at `fig` to `fig_end`), only words of the NICs' make between it
 * and the figure (letters, '-', digits inside a word: "ConnectX-7"), and a plural NIC noun
 * after the figure before any scope word. The count, or 0 where the clause is no such
 * form. */
static gint64
nic_count_before (const char *cl, const char *fig, const char *fig_end)
{
  const char *p = cl;
  while (*p == ' ' || *p == '(')
    p++;
  /* the count in digits, or spelled ("eight 200G NICs per server", MegaScale's network
   * section; the count was dropped and the figure read as the server's) */
  static const char *const spelled[] = { "two", "three", "four", "five", "six", "seven",
                                         "eight", "nine", "ten", "eleven", "twelve",
                                         "thirteen", "fourteen", "fifteen", "sixteen" };
  gint64 n = 0;
  const char *after = NULL;
  if (g_ascii_isdigit (*p))
    {
      char *end = NULL;
      n = g_ascii_strtoll (p, &end, 10);
      after = end;
    }
  else
    for (guint i = 0; i < G_N_ELEMENTS (spelled) && after == NULL; i++)
      if (g_ascii_strncasecmp (p, spelled[i], strlen (spelled[i])) == 0
          && !g_ascii_isalnum (p[strlen (spelled[i])]))
        {
          n = (gint64) i + 2;
          after = p + strlen (spelled[i]);
        }
  if (after == NULL || n < 2 || n > 64 || *after != ' ' || after >= fig)
    return 0;
  /* between: only words of the NICs' make and fabric ("NVIDIA Mellanox", "ConnectX-7",
   * "HDR InfiniBand"); a word of nodes, GPUs or racks ("16 DGX A100 nodes with 200 Gb/s
   * HDR InfiniBand HCAs", "64 A100 GPUs connected by ...") makes the count theirs */
  static const char *const make[] = { "nvidia", "mellanox", "infiniband", "ib", "hdr", "ndr",
                                      "edr", "xdr", "roce", "rocev2", "ethernet", "quantum",
                                      "spectrum", "broadcom", "intel", "efa", "rdma", "gpudirect",
                                      "dual-port", "single-port", "port", NULL };
  for (const char *q = after; q < fig;)
    {
      while (q < fig && *q == ' ')
        q++;
      const char *e = q;
      while (e < fig && *e != ' ')
        e++;
      if (e == q)
        break;
      g_autofree char *w = g_ascii_strdown (q, e - q);
      gboolean ok = FALSE;
      for (guint i = 0; make[i] != NULL && !ok; i++)
        ok = g_str_equal (w, make[i]);
      /* "ConnectX-7", "CX-7", "CX7" */
      ok = ok || g_str_has_prefix (w, "connectx") || (g_str_has_prefix (w, "cx")
                                                       && (w[2] == '-' || g_ascii_isdigit (w[2])));
      if (!ok)
        return 0;
      q = e;
    }
  static const char *const plural[] = { "hcas", "nics", "adapters", "ports", "cards" };
  g_autofree char *rest = g_ascii_strdown (fig_end, -1);
  const char *per = strstr (rest, "per ");
  for (guint i = 0; i < G_N_ELEMENTS (plural); i++)
    {
      const char *w = strstr (rest, plural[i]);
      if (w != NULL && (per == NULL || w < per) && (w == rest || !g_ascii_isalnum (w[-1]))
          && !g_ascii_isalnum (w[strlen (plural[i])]))
        return n;
    }
  return 0;
}

/* Whether NICs named in the plural follow a figure (`a`, lower case) before its scope
 * word: past the fabric's and the NICs' make words ("ConnectX-7", "InfiniBand", "NDR"),
 * "nics", "hcas", "adapters" or "ports" before a "per " */
static gboolean
plural_nics_follow (const char *a)
{
  static const char *const plural[] = { "nics", "hcas", "adapters", "ports" };
  const char *from = a;
  while (*a != '\0' && a - from < 48 && g_ascii_strncasecmp (a, "per ", 4) != 0)
    {
      if (a == from || a[-1] == ' ')
        for (guint i = 0; i < G_N_ELEMENTS (plural); i++)
          if (g_ascii_strncasecmp (a, plural[i], strlen (plural[i])) == 0
              && !g_ascii_isalnum (a[strlen (plural[i])]))
            return TRUE;
      if (!(g_ascii_isalnum (*a) || *a == ' ' || *a == '-'))
        return FALSE;
      a++;
    }
  return FALSE;
}

/* A clause that gives the NICs of a node as a count in words or digits with up to four
 * words of make and model between, an optional bracket after the noun, then "per node"
 * (or host, server, machine, DGX): "one Mellanox MT27700 HCA (mlx5_0) per node" 1, "a
 * single ConnectX-6 NIC per server" 1, "two HDR HCAs per node" 2, "4 NICs per host" 4;
 * 0 when it says none */
static gint64
nics_per_node_in_words (const char *clause)
{
  static GRegex *re = NULL;
  if (g_once_init_enter (&re))
    g_once_init_leave (&re, g_regex_new ("^\\s*(one|a single|single|a|two|four|eight|\\d{1,2})\\s+"
                                         "(?:[\\w.\\-/]+\\s+){0,4}?"
                                         "(?:nics?|hcas?|adapters?|ports?|cards?)"
                                         "(?:\\s*\\([^)]*\\))?\\s+(?:per|a|each)\\s+"
                                         "(?:node|host|server|machine|dgx)\\b",
                                         G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, NULL));
  g_autoptr (GMatchInfo) m = NULL;
  if (clause == NULL || !g_regex_match (re, clause, 0, &m))
    return 0;
  g_autofree char *w = g_match_info_fetch (m, 1);
  g_autofree char *low = g_ascii_strdown (w, -1);
  if (g_ascii_isdigit (low[0]))
    {
      const gint64 v = g_ascii_strtoll (low, NULL, 10);
      return v >= 1 && v <= 64 ? v : 0;
    }
  return g_str_equal (low, "two") ? 2 : g_str_equal (low, "four") ? 4
         : g_str_equal (low, "eight") ? 8 : 1;
}

/* Whether the clause after NICs named in the plural (from `a`, past the figure) states
 * their count or share: a digit after the noun ("(4 of them)", "(4 per node)"), "one per
 * two", "shared by": then each NIC's rate is no GPU's (regression audit of 7 Dec) */
static gboolean
count_after_nics (const char *a)
{
  static const char *const plural[] = { "nics", "hcas", "adapters", "ports", NULL };
  static const char *const shares[] = { "one per", "per two", "shared", "each shared", NULL };
  const gsize len = strcspn (a, ";.");
  g_autofree char *clause = g_strndup (a, len);
  for (guint i = 0; plural[i] != NULL; i++)
    {
      const char *w = strstr (clause, plural[i]);
      if (w == NULL)
        continue;
      const char *rest = w + strlen (plural[i]);
      if (strpbrk (rest, "0123456789") != NULL || contains_any_ci (rest, shares))
        return TRUE;
    }
  return FALSE;
}

double
res_pub_network_gbps_per_gpu (const char *network, guint64 node, double preset_gbps,
                              char **how)
{
  if (how != NULL)
    *how = NULL;
  if (network == NULL || *network == '\0' || node == 0)
    return 0;
  /* clauses */
  GPtrArray *clauses = g_ptr_array_new_with_free_func (g_free);
  const char *start = network;
  for (const char *p = network;; p++)
    {
      const gboolean end = *p == '\0';
      /* " and " and " + " join two fabrics in one clause ("NVLink 4 at 900 GB/s per GPU
       * and 400 Gb/s NDR per node": the NVLink part made the whole clause scale-up) */
      const gsize join = g_ascii_strncasecmp (p, " and ", 5) == 0 ? 5
                         : strncmp (p, " + ", 3) == 0 ? 3 : 0;
      const gboolean cut = *p == ';' || join > 0
                           || (*p == ',' && !(p > network && g_ascii_isdigit (p[-1])
                                              && g_ascii_isdigit (p[1])));
      if (end || cut)
        {
          g_ptr_array_add (clauses, g_strndup (start, (gsize) (p - start)));
          start = p + (join > 0 ? join : 1);
          if (join > 0)
            p += join - 1;
        }
      if (end)
        break;
    }
  static GRegex *figure = NULL;
  if (g_once_init_enter (&figure))
    g_once_init_leave (&figure,
                       g_regex_new ("(?:(\\d+)\\s*(?:(?i:nics?|ports?|links?|hcas?|adapters?)"
                                    "\\s*)?(?:x|X|\u00d7|\\*)\\s*"
                                    "(?:(?i:ndr|hdr|edr|xdr|connectx-?\\d*|cx-?\\d+|"
                                    "infiniband|ib|mellanox|nvidia|efa|roce(?:\\s*v2)?|"
                                    "ethernet|nics?|ports?|links?|quantum-?\\d*|"
                                    "spectrum-?x?|rail)\\s+){0,3})?"
                                    "(\\d[\\d,]*(?:\\.\\d+)?)\\s*([TtGg])(bit|b|B)(?:/s|ps|E\\b)",
                                    G_REGEX_OPTIMIZE, 0, NULL));
  double out = 0;
  g_autofree char *cell_low = g_ascii_strdown (network, -1);
  const gboolean cell_net = clause_names_network (cell_low);
  /* a scope that another figure of the cell carries (not an NVLink clause's, nor a count
   * of GPUs: "DGX A100, 8 GPUs per node"), and "one NIC per GPU" anywhere in it */
  gboolean cell_scoped = FALSE;
  for (guint k = 0; k < clauses->len && !cell_scoped; k++)
    {
      g_autofree char *l = g_ascii_strdown (clauses->pdata[k], -1);
      gboolean fg = FALSE;
      g_autofree char *spelled = network_spell_figures (clauses->pdata[k], cell_net, &fg);
      cell_scoped = !clause_is_scale_up (l) && network_scope (l) != 0
                    && g_regex_match (figure, spelled, 0, NULL);
    }
  static const char *const one_word[] = { "one per gpu", "1 per gpu", "one nic per gpu",
                                          "one for each gpu", "one per device",
                                          "one hca per gpu", "a nic per gpu" };
  gboolean cell_one = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (one_word) && !cell_one; i++)
    cell_one = strstr (cell_low, one_word[i]) != NULL;
  for (guint k = 0; k < clauses->len && out == 0; k++)
    {
      const char *orig = clauses->pdata[k];
      g_autofree char *low = g_ascii_strdown (orig, -1);
      if (clause_is_scale_up (low))
        continue;
      /* the clause with its port-speed shorthands spelled as figures */
      gboolean from_generation = FALSE;
      g_autofree char *cl = network_spell_figures (orig, cell_net, &from_generation);
      g_free (low);
      low = g_ascii_strdown (cl, -1);
      g_autoptr (GMatchInfo) m = NULL;
      if (!g_regex_match (figure, cl, 0, &m))
        continue;
      g_autofree char *n_txt = g_match_info_fetch (m, 1);
      g_autofree char *v_txt = g_match_info_fetch (m, 2);
      g_autofree char *prefix = g_match_info_fetch (m, 3);
      g_autofree char *unit = g_match_info_fetch (m, 4);
      int start_pos = 0, end_pos = 0;
      g_match_info_fetch_pos (m, 0, &start_pos, &end_pos);
      g_autofree char *digits = g_strdup (v_txt);
      char *w = digits;
      for (const char *r = v_txt; *r; r++)
        if (*r != ',')
          *w++ = *r;
      *w = '\0';
      double v = g_ascii_strtod (digits, NULL);
      if (!(v > 0))
        continue;
      double count = n_txt != NULL && *n_txt ? g_ascii_strtod (n_txt, NULL) : 1;
      /* the count after the figure: "NDR 400 Gb/s x 8 per node" */
      if (!(n_txt != NULL && *n_txt))
        {
          const char *a = cl + end_pos;
          while (*a == ' ')
            a++;
          if (*a == 'x' || *a == 'X' || g_str_has_prefix (a, "\u00d7"))
            {
              a += *a == 'x' || *a == 'X' ? 1 : strlen ("\u00d7");
              while (*a == ' ')
                a++;
              if (g_ascii_isdigit (*a))
                {
                  char *after = NULL;
                  const gint64 n = g_ascii_strtoll (a, &after, 10);
                  if (n > 0 && n <= 64)
                    {
                      count = (double) n;
                      end_pos = (int) (after - cl);
                    }
                }
            }
          /* or a count of NICs a node after it: "NDR400 (8 per node)", "400 Gb/s, 8 per
           * server", "200 Gb/s HDR (4 HCAs per node)" */
          else
            {
              gint64 n = 0;
              const char *after = nic_count_per_node (a, &n);
              if (after != NULL)
                {
                  count = (double) n;
                  end_pos = (int) (after - cl);
                }
            }
        }
      /* or a count before the figure, with only the NICs' make between, and the NICs
       * named in the plural after it: "8 NVIDIA Mellanox 400 Gbps HDR InfiniBand HCAs per
       * node" (Nemotron-4's report; read as one 400 Gb/s a node, 6.25 GB/s a GPU) */
      if (count == 1 && !(n_txt != NULL && *n_txt))
        {
          gint64 n = nic_count_before (cl, cl + start_pos, cl + end_pos);
          if (n > 1)
            count = (double) n;
        }
      v *= (g_ascii_tolower (prefix[0]) == 't' ? 1000.0 : 1.0)
           * (g_str_equal (unit, "B") ? 8.0 : 1.0);
      const double one_nic = v;
      v *= count;
      int scope = network_scope (low + end_pos);
      /* the NIC count a node in the clause after it: "InfiniBand HDR100, 4 HCAs per node" */
      if (scope == 0 && count == 1 && k + 1 < clauses->len)
        {
          const char *nx = clauses->pdata[k + 1];
          while (*nx == ' ')
            nx++;
          gint64 n2 = 0;
          if (g_ascii_isdigit (*nx) && nic_count_per_node (nx, &n2) != NULL)
            {
              count = (double) n2;
              v *= count;
              scope = 2;
            }
          /* ... or in words, the make and model between ("one Mellanox MT27700 HCA
           * (mlx5_0) per node", DLPerf's V100 cluster: its 100 Gb/s was left unscoped
           * and the preset's 4 x EDR a DGX-1 taken, 4x the row's) */
          else if ((n2 = nics_per_node_in_words (nx)) > 0)
            {
              count = (double) n2;
              v *= count;
              scope = 2;
            }
        }
      /* a figure above any one NIC's port (800 Gb/s: ConnectX-8, XDR) in bits with no
       * scope, in a clause that names the network, is a node's aggregate ("EFA v2 3200
       * Gbps", AWS p5's 32 x 100 Gb/s an instance; not "H100 SXM5 (900 GB/s)", NVLink in
       * bytes, nor "HBM3 3.35 TB/s") */
      if (scope == 0 && count == 1 && v > 800 && !g_str_equal (unit, "B")
          && clause_names_network (low))
        scope = 2;
      /* "inter-node", "between nodes": a node's, where the cell names no other scope and
       * the figure is stated (a generation alone, "NDR InfiniBand between nodes", says no
       * NIC count) */
      if (scope == 0 && count == 1 && !from_generation && cell_one)
        scope = 3;   /* "InfiniBand 200 Gb/s between nodes, one NIC per GPU" */
      else if (scope == 0 && count == 1 && !from_generation && !cell_scoped
               && network_weak_node_scope (low))
        /* ... unless the figure is the preset's own NIC a GPU: a link's rate, as a paper
         * writes its fabric ("400Gbps for inter-node (InfiniBand) connections" of DGX H100
         * nodes, one 400 Gb/s NIC a GPU: read as the node's, 50 Gb/s a GPU) */
        {
          /* (not where the clause says the figure is the node's: "aggregate", "total",
           * "shared by the 8 GPUs", "one per node") */
          /* a node's in the figure's own clause ("per node", "a node"), or said shared or
           * single in any later clause ("400 Gbps inter-node, HDR, shared by the 8 GPUs",
           * "...; single NIC"), not "8 GPUs per node" or "NVLink within a node" beside it */
          static const char *const node_words[] = { "per node", "per-node", "a node",
                                                    "each node", "per server", "per host",
                                                    "node-level", "aggregate", "total",
                                                    "shared", "share", "single nic", "one nic",
                                                    "single hca", "one hca", NULL };
          /* a later clause: shared or aggregate, or a NIC said to be one a node ("one HCA
           * per node", "single HCA", "1 NIC/node", "8 GPUs share one port"), not one a GPU */
          static const char *const later_words[] = { "aggregate", "total", "shared", "share",
                                                     "node-level", "one per node",
                                                     "one per server", "one per host", NULL };
          static const char *const nic_words[] = { "nic", "hca", "port", "link", "adapter",
                                                   "connectx", NULL };
          static const char *const one_words[] = { "single", "one ", "1 ", "per node", "/node",
                                                   "per server", "per host", "per 8 gpus",
                                                   NULL };
          static const char *const per_gpu[] = { "per gpu", "per device", "each gpu",
                                                 "/gpu", NULL };
          gboolean node_said = contains_any_ci (low, node_words);
          for (guint k2 = k + 1; k2 < clauses->len && !node_said; k2++)
            {
              g_autofree char *l2 = g_ascii_strdown (clauses->pdata[k2], -1);
              node_said = !contains_any_ci (l2, per_gpu)
                          && (contains_any_ci (l2, later_words)
                              || (contains_any_ci (l2, nic_words)
                                  && contains_any_ci (l2, one_words)));
            }
          scope = preset_gbps > 0 && node > 1 && fabs (v / preset_gbps - 1.0) < 0.01
                  && !node_said ? 4 : 2;
        }
      /* a figure before NICs named in the plural a node, with no count ("400 Gb/s
       * ConnectX-7 NICs per node", "400 Gb/s NICs per node"): each NIC's rate, so where it
       * is the preset's own NIC a GPU, the preset's NICs (it read as the node's, 50 Gb/s a
       * GPU, or the model number as the count: regression audit of 7 Dec) */
      if (scope == 2 && count == 1 && preset_gbps > 0 && node > 1
          && fabs (one_nic / preset_gbps - 1.0) < 0.01 && plural_nics_follow (low + end_pos))
        scope = 4;
      /* ... and at another rate than the preset's ("HDR 200 Gb/s ConnectX-6 NICs per node"
       * on a 400 Gb/s preset): still each NIC's rate, since NICs in the plural do not share
       * one figure, one a GPU as the rail-optimised presets have them (it read as the
       * node's, 25 Gb/s a GPU: audit of 7 Dec) */
      else if (scope == 2 && count == 1 && node > 1 && plural_nics_follow (low + end_pos)
               && !count_after_nics (low + end_pos))
        {
          /* ... nor in a later clause ("200 Gb/s HDR NICs per node, one per two GPUs") */
          static const char *const nic_words2[] = { "nic", "hca", "adapter", "of them",
                                                    "per node", "one per", "per two",
                                                    "shared", NULL };
          gboolean counted = FALSE;
          for (guint k2 = k + 1; k2 < clauses->len && !counted; k2++)
            {
              g_autofree char *l2 = g_ascii_strdown (clauses->pdata[k2], -1);
              counted = contains_any_ci (l2, nic_words2)
                        && (strpbrk (l2, "0123456789") != NULL || contains_ci (l2, "one per")
                            || contains_ci (l2, "per two") || contains_ci (l2, "shared"));
            }
          if (!counted)
            scope = 5;
        }
      if (scope == 3 || scope == 4 || scope == 5)
        out = one_nic;
      else if (scope == 1)
        out = v;
      else if (scope == 2 || (scope == 0 && count > 1))
        out = v / (double) node;
      if (out > 0 && how != NULL)
        {
          g_autofree char *text = g_strstrip (g_strdup (orig));
          *how = scope == 4 ? g_strdup_printf ("'%s': a link's, one NIC a GPU as the "
                                               "preset's", text)
                 : scope == 5 ? g_strdup_printf ("'%s': each NIC's (NICs in the plural, no "
                                                 "count), one a GPU", text)
                 : scope == 1 || scope == 3 ? g_strdup_printf ("'%s': a GPU's", text)
                 : g_strdup_printf ("'%s': a node's, over its %" G_GUINT64_FORMAT " GPUs", text,
                                    node);
        }
    }
  g_ptr_array_unref (clauses);
  return out;
}

static const char *
cluster_for (const char *gpu_type, const char *network, gint64 n_gpus)
{
  g_autofree char *t = gpu_type_read (gpu_type);
  if (nvl_rack_too_small (t, n_gpus))
    return NULL;
  if (strstr (t, "gb300") != NULL)
    return "gb300-nvl72-superpod";
  if (strstr (t, "gb200") != NULL)
    return "gb200-nvl72-superpod";
  if (strstr (t, "b300") != NULL)
    return "dgx-b300-superpod";
  if (strstr (t, "b200") != NULL)
    return "dgx-b200-superpod";
  if (strstr (t, "gh200") != NULL)   /* before H200, which it contains: not an H200 */
    return gh200_preset_ok (t) ? "gh200-nvl4-cluster" : NULL;
  if (strstr (t, "h200") != NULL && !has_nvl_word (t))   /* H200 NVL: a PCIe card */
    return "h200-superpod";
  if (strstr (t, "h200") != NULL)
    return NULL;
  if (strstr (t, "h20") != NULL)   /* after H200, which contains it */
    return "hgx-h20-cluster";
  /* H800 SXM: the H100 die with NVLink cut to 400 GB/s (arXiv 2505.09343 Sec. 4.1); its
   * PCIe card still takes the H100 PCIe preset, whose NVLink is bridges, not NVSwitch */
  if (strstr (t, "h800") != NULL && strstr (t, "pcie") == NULL)
    return n_gpus > 1024 ? "dgx-h800-superpod-64su" : "dgx-h800-superpod";
  if (strstr (t, "h100") != NULL || strstr (t, "h800") != NULL)
    {
      if (strstr (t, "pcie") != NULL)
        return "h100-pcie-cluster";
      if (has_nvl_word (t))
        return "h100-nvl-cluster";
      if (has_gb (t, "94") || has_gb (t, "96") || strstr (t, "hbm2e") != NULL)
        return "h100-sxm-96g-superpod";
      if (strstr (t, "700w, hbm3") != NULL || strstr (network, "1:7") != NULL)
        return "h100-24k";
      return n_gpus > 1024 ? "dgx-h100-superpod-64su" : "dgx-h100-superpod";
    }
  /* the PCIe card: no NVSwitch (which the SXM4 presets have), its own HBM bandwidth and
   * board power; the A800 PCIe card is the A100's but for NVLink bridges, not modelled */
  if ((strstr (t, "a100") != NULL || strstr (t, "a800") != NULL || strstr (t, "ampere") != NULL)
      && strstr (t, "pcie") != NULL)
    return has_gb (t, "40") ? "a100-pcie-40g-cluster" : "a100-pcie-cluster";
  /* A800 SXM: the A100 with NVLink cut to 400 GB/s (a800-superpod.json); SXM only in 80 GB */
  if (strstr (t, "a800") != NULL)
    return "a800-superpod";
  /* the 64 GB A100 (a custom part: CINECA Leonardo's Booster nodes of 4 on NVLink without
   * a switch, 100 Gb/s HDR per GPU), or an A100 row whose network names Leonardo (it was
   * read as selene's 80 GB in 8-GPU NVSwitch servers, then skipped) */
  if (strstr (t, "a100") != NULL && (has_gb (t, "64") || contains_ci (network, "leonardo")
                                     || strstr (t, "leonardo") != NULL))
    return "leonardo";
  /* JSC's JUWELS Booster (4 A100 40 GB a node on NVLink without a switch, HDR200 per
   * GPU), named in the gpu_type or the network: it was read as a100-40g-cluster's 8-GPU
   * NVSwitch servers, where a TP 8 group stays inside one */
  if ((strstr (t, "a100") != NULL || strstr (t, "ampere") != NULL)
      && (strstr (t, "juwels") != NULL || contains_ci (network, "juwels")))
    return "juwels-booster";
  /* IDRIS's Jean Zay (BLOOM-176B: 8 A100 80 GB a node, 4 Omni-Path 100 Gb/s links per
   * node), named in the gpu_type or the network, or an A100 row on Omni-Path: it was read
   * as selene, whose 8 x HDR200 per node are four times the bandwidth */
  if ((strstr (t, "a100") != NULL || strstr (t, "ampere") != NULL) && !has_gb (t, "40")
      && (strstr (t, "jean zay") != NULL || contains_ci (network, "jean zay")
          || contains_ci (network, "omni-path") || contains_ci (network, "omnipath")))
    return "jean-zay";
  if (strstr (t, "a100") != NULL || strstr (t, "ampere") != NULL)
    return has_gb (t, "40") ? "a100-40g-cluster" : "selene";
  /* AMD's parts with or without the X that ends their names: AMD's own configurations
   * write "mi325", "mi355", "mi300" (ROCm's cluster validation suite's training configs),
   * and were refused. MI325 and MI355 have no other part; "MI300" is the MI300X, not the
   * MI300A APU, which is written with its A (amd_part) */
  if (amd_part (t, "mi355"))
    return "mi355x-cluster";
  if (amd_part (t, "mi350"))
    return "mi350x-cluster";
  if (amd_part (t, "mi325"))
    return "mi325x-cluster";
  if (amd_part (t, "mi300"))
    return "mi300x-cluster";
  if (strstr (t, "mi250x") != NULL)
    return "frontier";
  /* DGX-2H's V100 is the 32 GB SXM3 part on NVSwitch: the 16 GB part and the PCIe card
   * (no NVSwitch) are not it (both were read as dgx-2h-v100-cluster). The 16 GB SXM2 part
   * in 8-GPU servers is DGX-1's (dgx1-v100-cluster); Summit's nodes of six are not (the
   * row is skipped, saying why) */
  if (strstr (t, "v100") != NULL && strstr (t, "pcie") != NULL)
    return NULL;
  if (strstr (t, "v100") != NULL && has_gb (t, "16"))
    return strstr (t, "summit") != NULL || contains_ci (network, "summit") ? NULL
                                                                           : "dgx1-v100-cluster";
  if (strstr (t, "v100") != NULL)
    return "dgx-2h-v100-cluster";
  if (strstr (t, "l40s") != NULL)
    return "l40s-pcie-cluster";
  /* one slice of a TPU v5p pod (at most 6,144 chips, tpu-v5p-pod.json); a larger run
   * spans slices over the data-center network, which the preset does not model */
  if (strstr (t, "v5p") != NULL && n_gpus <= 6144)
    return "tpu-v5p-pod";
  /* Trainium2 within one Trn2 instance (16 chips on NeuronLink, the same in the
   * UltraServer preset), or within one UltraServer (64) where the row says so; more chips
   * talk over EFA between instances or UltraServers, which trn2-ultraserver.json does not
   * model */
  if (strstr (t, "trainium2") != NULL || strstr (t, "trainium 2") != NULL
      || strstr (t, "trn2") != NULL)
    {
      if (n_gpus <= 16)
        return "trn2-ultraserver";
      if (n_gpus <= 64 && (strstr (t, "ultraserver") != NULL || contains_ci (network, "ultraserver")))
        return "trn2-ultraserver";
    }
  return NULL;
}

/* Why a gpu_type the rules above leave without a preset has none, where the device is
 * one people mistake for a preset's ("" otherwise): the skip reason says it. */
static const char *
no_preset_why (const char *gpu_type, gint64 n_gpus)
{
  g_autofree char *t = gpu_type_read (gpu_type);
  if (strstr (t, "gh200") != NULL)
    return " (GH200 is the Grace Hopper superchip; gh200-nvl4-cluster models the 96 GB HBM3 "
           "part in nodes of four on NVLink without a switch, not the 141-144 GB HBM3e part "
           "nor an NVLink Switch system such as DGX GH200 or GH200 NVL32)";
  if (strstr (t, "h200") != NULL && has_nvl_word (t))
    return " (H200 NVL is the PCIe card, GPUs paired or in fours by NVLink bridges, at a lower "
           "power and clock than the SXM part of h200-superpod; no preset models it)";
  if (strstr (t, "v100") != NULL && strstr (t, "pcie") != NULL)
    return " (the V100 PCIe card has no NVSwitch; dgx-2h-v100-cluster is DGX-2H's SXM3 "
           "parts on NVSwitch)";
  if (strstr (t, "v100") != NULL)
    return " (Summit's nodes hold six 16 GB V100s with the POWER9 CPUs on NVLink; "
           "dgx1-v100-cluster models DGX-1's eight, dgx-2h-v100-cluster DGX-2H's sixteen)";
  if (nvl_rack_too_small (t, n_gpus))
    return " (the rack's NVLink domain is smaller than the NVL72 domain of the Grace "
           "Blackwell presets, and the run spans more than one)";
  if (strstr (t, "v5p") != NULL && n_gpus > 6144)
    return " (more chips than one TPU v5p slice, 6,144: a multislice run crosses the "
           "data-center network, which tpu-v5p-pod does not model)";
  if (strstr (t, "trainium2") != NULL || strstr (t, "trainium 2") != NULL
      || strstr (t, "trn2") != NULL)
    return " (trn2-ultraserver models one Trn2 instance of 16 chips, or one UltraServer of 64 "
           "where the gpu_type or network says UltraServer; not the EFA network beyond)";
  return "";
}

static ResPubFamily
family_for (const char *gpu_type)
{
  g_autofree char *t = gpu_type_read (gpu_type);
  if (strstr (t, "gb300") != NULL || strstr (t, "gb200") != NULL || strstr (t, "b200") != NULL
      || strstr (t, "b300") != NULL)
    return RES_PUB_FAMILY_B200;
  if (strstr (t, "h200") != NULL && strstr (t, "gh200") == NULL)
    return RES_PUB_FAMILY_H200;
  if (strstr (t, "h100") != NULL || strstr (t, "h800") != NULL)
    return RES_PUB_FAMILY_H100;
  if (strstr (t, "a100") != NULL || strstr (t, "a800") != NULL || strstr (t, "ampere") != NULL)
    return RES_PUB_FAMILY_A100;
  return RES_PUB_FAMILY_OTHER;
}

ResPubFamily
res_pub_family_for_text (const char *text)
{
  return family_for (text != NULL ? text : "");
}

/* ---- model ---------------------------------------------------------------------------- */

/* A vocabulary the row leaves empty, where its model and framework fix it: GPT models
 * trained with Megatron-LM use the GPT-2 BPE (50,257 tokens; the GPT-3 175B example
 * script in Megatron-LM's README passes gpt2-vocab.json), padded to a multiple of
 * --make-vocab-size-divisible-by 128 x tp 8 = 1,024: 51,200, as the SC'21 rows state;
 * OPT uses the GPT-2 BPE too (OPT paper section 2.3) and its released configs hold
 * 50,272 (U: the Hugging Face facebook/opt-* config.json vocab_size, from memory).
 * 0 where neither applies: the row is skipped for the missing vocab. */
static gint64
default_vocab (ResPublishedCase *c, const char *framework)
{
  if (contains_ci (c->model_label, "OPT-"))
    return 50272;
  if (contains_ci (c->model_label, "GPT") && !contains_ci (c->model_label, "NeoX")
      && contains_ci (framework, "Megatron"))
    return 51200;
  return 0;
}

/* Whether a model cell names a hybrid Mamba (state-space) model: Nemotron-H ("Nemotron-H
 * 56B", "NemotronH-8B"), or Mamba by name ("Mamba-2 hybrid 8B", Jamba, Zamba, Samba,
 * Falcon-H1, Hymba); not Nemotron-4 or other Nemotrons */
static gboolean
names_hybrid_mamba (const char *label)
{
  static const char *const names[] = { "mamba", "jamba", "zamba", "samba", "hymba",
                                       "falcon-h1", "falcon h1", NULL };
  g_autofree char *low = g_ascii_strdown (label != NULL ? label : "", -1);
  for (const char *p = strstr (low, "nemotron"); p != NULL; p = strstr (p + 1, "nemotron"))
    {
      const char *q = p + strlen ("nemotron");
      if (*q == '-' || *q == ' ' || *q == '_')
        q++;
      if (*q == 'h' && !g_ascii_isalnum (q[1]))
        return TRUE;
    }
  return contains_any_ci (low, names);
}

static gboolean negated_before (const char *low, const char *p);

/* Whether a text names a gated MLP (SwiGLU, GeGLU, ReGLU, a gated linear unit) and does
 * not say it off ("no SwiGLU", "GeLU instead of SwiGLU") */
static gboolean
names_gated_mlp (const char *text)
{
  static const char *const words[] = { "swiglu", "geglu", "reglu", "gated linear unit",
                                       "gated mlp", "gated-mlp", NULL };
  g_autofree char *low = g_ascii_strdown (text != NULL ? text : "", -1);
  for (guint i = 0; words[i] != NULL; i++)
    for (const char *p = strstr (low, words[i]); p != NULL; p = strstr (p + 1, words[i]))
      if ((p == low || !g_ascii_isalnum (p[-1])) && !negated_before (low, p)
          && !(p - low >= 11 && strncmp (p - 11, "instead of ", 11) == 0)
          && !(p - low >= 12 && strncmp (p - 12, "rather than ", 12) == 0))
        return TRUE;
  return FALSE;
}

/* The size a vocabulary cell says it was padded to ("50k BPE, padded to 50304", as
 * Megatron pads the embedding to a multiple of 128 x TP): that size, which the embedding
 * and output layers have (the cell was refused as missing its vocab) */
static gboolean
vocab_padded_to (const char *cell, gint64 *out)
{
  g_autofree char *low = g_ascii_strdown (cell != NULL ? cell : "", -1);
  const char *p = strstr (low, "padded to");
  if (p == NULL)
    return FALSE;
  p += strlen ("padded to");
  while (*p == ' ')
    p++;
  g_autofree char *rest = g_strdup (p);
  char *e = rest;
  while (g_ascii_isdigit (*e) || *e == ',')
    e++;
  *e = '\0';
  return cell_count (rest, out) && *out >= 1000;
}

/* A vocabulary written in thousands ("250k", "32K", "128 k", "32k tokens", alone or before
 * a bracket):
 * that many thousand tokens, as the sources round them (BLOOM's 250,880 is "250k"); the
 * row was skipped as missing its vocab (audit of 7 Dec). The output layer's share of a
 * step moves with it by the rounding only (under 1%). */
static gboolean
vocab_in_thousands (const char *cell, gint64 *out)
{
  double v;
  const char *end = leading_number (cell, &v);
  /* the magnitude letter the other columns read (magnitude_suffix), decimal k only */
  if (end == NULL || magnitude_suffix (end) != 'k')
    return FALSE;
  end += end[0] == ' ' ? 2 : 1;
  if (*end == 'i' || *end == 'I')
    return FALSE;   /* "Ki" */
  while (*end == ' ')
    end++;
  /* "32k tokens": the vocabulary's own unit (another word after the k is no such count) */
  if (g_ascii_strncasecmp (end, "token", 5) == 0)
    {
      end += 5;
      if (*end == 's' || *end == 'S')
        end++;
      while (*end == ' ')
        end++;
    }
  if (*end != '\0' && *end != '(' && *end != ',' && *end != ';')
    return FALSE;
  if (!(v >= 1 && v <= 1e4))
    return FALSE;
  *out = (gint64) llround (v * 1000);
  /* the exact count in the bracket after it, where it is that size ("256K (262144)",
   * "128k (128,256)"; the regression audit of 7 Dec: read as the round thousands) */
  if (*end == '(')
    {
      const char *close = strchr (end, ')');
      g_autofree char *inner = close != NULL ? g_strndup (end + 1, (gsize) (close - end - 1))
                                             : NULL;
      gint64 exact = 0;
      if (inner != NULL && cell_count (inner, &exact)
          && fabs ((double) exact / (v * 1000) - 1) < 0.05)
        *out = exact;
    }
  return TRUE;
}

/* An empty vocab cell of a row whose model cell names a shipped MoE preset of its hidden
 * size, layers and heads (res_pub_moe_from_preset): the preset's vocabulary, the model's
 * own config ("Qwen3-235B-A22B" with the vocab cell left empty was skipped for "missing
 * vocab": Megatron-LM PR rows of 8 Dec, 151,936 in the preset). 0 where the cell says
 * anything or no preset was named. */
static gboolean cell_unstated (const char *t);

static gint64
preset_vocab (ResPublishedCase *c, const char *vocab_cell)
{
  g_autofree char *t = g_strstrip (g_strdup (vocab_cell != NULL ? vocab_cell : ""));
  if (!c->moe.present || c->moe.preset == NULL || (*t != '\0' && !cell_unstated (t)))
    return 0;
  g_autoptr (ModelSpec) p = model_spec_load_preset (c->moe.preset, NULL);
  if (p == NULL || p->vocab == 0)
    return 0;
  c->vocab_preset = c->moe.preset;
  return (gint64) p->vocab;
}

/* A shipped preset as the row's model (a hybrid Mamba-2 preset, or an MoE preset whose
 * heads are not hidden / heads wide): a copy named as the row's model cell, at the row's
 * sequence, the one trained (validate reads max_positions as it; the preset's longer
 * context was taken for the run's: GLM-4.5 at 4096 tokens ran at its 131072) */
static void
take_preset_model (ResPublishedCase *c, const ModelSpec *p, guint64 seq)
{
  c->model = model_spec_copy (p);
  g_free (c->model->name);
  c->model->name = g_strdup (c->model_label);
  c->model->max_positions = seq;
}

static gboolean
map_model (ResPublishedCase *c, const ResCsv *csv, guint row, guint64 *seq_out)
{
  static const char *const required[] = { "n_layers", "hidden", "n_heads", "vocab",
                                          "seq_len" };
  gint64 v[G_N_ELEMENTS (required)];
  g_autoptr (GString) missing = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    if (!(i == 4 ? cell_seq_len (seq_cell (csv, row), &v[i])
                 : cell_count (get (csv, row, required[i]), &v[i]))
        && !(i == 3 && vocab_padded_to (get (csv, row, "vocab"), &v[i]))
        && !(i == 3 && vocab_in_thousands (get (csv, row, "vocab"), &v[i]))
        && !(i == 3 && (v[i] = default_vocab (c, framework_cell (c, csv, row))) > 0)
        && !(i == 3 && (v[i] = preset_vocab (c, get (csv, row, "vocab"))) > 0))
      g_string_append_printf (missing, "%s%s", missing->len ? ", " : "", required[i]);
  /* every missing cell at once, with the batch (which the prediction needs as well) */
  gint64 gb;
  if (missing->len > 0 && !cell_count (batch_cell (csv, row), &gb)
      && batch_in_tokens (batch_cell (csv, row), 1, &gb) == 0)
    g_string_append (missing, ", global_batch");
  if (missing->len > 0)
    return skip (c, "missing %s", missing->str);
  guint64 layers = (guint64) v[0], hidden = (guint64) v[1], heads = (guint64) v[2];
  guint64 vocab = (guint64) v[3], seq = (guint64) v[4];

  gint64 kv = 0, ffn = 0;
  gboolean has_kv = cell_count (get (csv, row, "n_kv_heads"), &kv);
  /* the attention named instead of a count: multi-query is one K/V head (it was read as
   * multi-head, n_heads); GQA with its group count after the name ("GQA-8", "GQA 8",
   * "GQA (8 groups)") is that many; GQA without one says nothing of the count: skipped
   * (it was read as multi-head) */
  const char *kv_cell = get (csv, row, "n_kv_heads");
  if (!has_kv && (contains_ci (kv_cell, "MQA") || contains_ci (kv_cell, "multi-query")))
    {
      kv = 1;
      has_kv = TRUE;
    }
  else if (!has_kv && (contains_ci (kv_cell, "GQA") || contains_ci (kv_cell, "grouped")))
    {
      const char *d = kv_cell;
      while (*d != '\0' && !g_ascii_isdigit (*d))
        d++;
      if (*d == '\0')
        return skip (c, "n_kv_heads '%s' names grouped-query attention without its K/V head "
                     "count (hint: the number of K/V heads, e.g. 8)", kv_cell);
      kv = g_ascii_strtoll (d, NULL, 10);
      has_kv = kv >= 1;
    }
  gboolean has_ffn = cell_count (get (csv, row, "ffn_hidden"), &ffn);
  guint64 kv_heads = has_kv ? (guint64) kv : heads;            /* empty -> n_heads */
  guint64 ffn_hidden = has_ffn ? (guint64) ffn : 4 * hidden;   /* empty -> 4h */
  /* an MoE preset the model cell names (res_pub_moe_from_preset matched its hidden size,
   * layers and heads) whose heads are not hidden / heads wide: the preset is the model, as
   * a hybrid's is below (GLM-4.5: 96 heads of 128 on a hidden of 5120 was skipped here) */
  if (hidden % heads != 0 && c->moe.present && c->moe.preset != NULL)
    {
      g_autoptr (ModelSpec) p = model_spec_load_preset (c->moe.preset, NULL);
      if (p != NULL)
        {
          take_preset_model (c, p, seq);
          /* and the row's vocabulary (a recipe's tokenizer may not be the model's) */
          c->model->vocab = vocab;
          *seq_out = seq;
          return TRUE;
        }
    }
  if (hidden % heads != 0)
    return skip (c, "hidden %" G_GUINT64_FORMAT " is not a multiple of n_heads %"
                 G_GUINT64_FORMAT, hidden, heads);
  g_autofree char *problem = model_sizes_problem (hidden, ffn_hidden, layers, heads, kv_heads,
                                                  hidden / heads, vocab, seq);
  if (problem != NULL)
    return skip (c, "%s", problem);
  if (kv_heads > heads || heads % kv_heads != 0)
    return skip (c, "n_kv_heads %" G_GUINT64_FORMAT " does not divide n_heads %"
                 G_GUINT64_FORMAT, kv_heads, heads);

  /* SwiGLU for the Llama family, or wherever the MLP is not the classic 4h (gated MLPs
   * size it ~8h/3, rounded: Llama 2 7B 11008, Llama 3 8B 14336). */
  gboolean swiglu = contains_ci (c->model_label, "llama")
                    || (has_ffn && ffn_hidden != 4 * hidden);
  /* GPT-2/3, Megatron GPT, MPT, BLOOM and OPT tie the output head to the input
   * embedding; Llama, Nemotron-4 (tech report: "untied input-output embeddings") and
   * GPT-NeoX-20B (config tie_word_embeddings false) do not. */
  gboolean tied = !swiglu && !contains_ci (c->model_label, "nemotron")
                  && !contains_ci (c->model_label, "neox");
  /* a gated MLP the row names, at any width: "mlp_ratio 8 with SwiGLU" (AMD-OLMo 1B's
   * 8192 = 4h halves of a fused 8h projection), GeGLU (GLM-130B); it read as a GeLU MLP
   * of two matrices where the run has three (audit of 7 Dec). The tie of the output head
   * stays the rule's above (OLMo 1B ties it) */
  if (!swiglu && (names_gated_mlp (c->model_label) || names_gated_mlp (get (csv, row, "notes"))
                  || names_gated_mlp (get (csv, row, "ffn_hidden"))))
    swiglu = TRUE;
  /* a hybrid Mamba-2 model: its layer pattern has no column, so the shape cells alone
   * would build a transformer whose every layer has attention and an MLP (Nemotron-H 56B's
   * 118 layers are 54 Mamba-2 mixers, 10 attention and 54 MLP layers: about 1.4x the
   * FLOPs, and out of memory; audit of 7 Dec). Where the model cell names a shipped
   * hybrid preset whose hidden size, layers and heads are the row's, the preset is the
   * model (and its MLP width, where the row states one); any other hybrid is skipped,
   * saying how to predict it. */
  if (names_hybrid_mamba (c->model_label))
    {
      static const char *const presets[] = { "nemotron-h-8b", "nemotron-h-56b" };
      for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
        {
          g_autoptr (ModelSpec) p = model_spec_load_preset (presets[i], NULL);
          if (p == NULL || p->hidden != hidden || p->n_layers != layers || p->n_heads != heads
              || (has_ffn && p->ffn_hidden != ffn_hidden))
            continue;
          take_preset_model (c, p, seq);
          c->model_preset = presets[i];
          *seq_out = seq;
          return TRUE;
        }
      return skip (c, "model '%s' is a hybrid Mamba-2 model, and its layer pattern has no "
                   "column: hidden %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " layers and %"
                   G_GUINT64_FORMAT " heads (and ffn_hidden) are no shipped preset's "
                   "(nemotron-h-8b, nemotron-h-56b) (hint: tandem predict --model with its "
                   "config.json)",
                   c->model_label, hidden, layers, heads);
    }
  c->model = model_spec_new_custom (c->model_label,
                                    swiglu ? MODEL_MLP_SWIGLU : MODEL_MLP_GELU, hidden,
                                    ffn_hidden, layers, heads, kv_heads, vocab, seq, tied);
  /* Nemotron-4 trains without dropout: NeMo-Framework-Launcher's
   * launcher_scripts/conf/training/nemotron/nemotron_340b.yaml (the tp 8, pp 8, vpp 12
   * config of the NeMo 24.07 performance rows, and its earlier pp 12 version) sets
   * hidden_dropout, attention_dropout and ffn_dropout to 0.0, as NeMo 2's NemotronConfig
   * (nemo/collections/llm/gpt/model/nemotron.py) does for every Nemotron size */
  c->model->no_dropout = contains_ci (c->model_label, "nemotron");
  *seq_out = seq;
  return TRUE;
}

/* ---- measured step time --------------------------------------------------------------- */

/* llm-foundry named in a flops_convention text, in any of its spellings ("llm-foundry",
 * "LLM Foundry", "llmfoundry", "llm_foundry": fw_stack_preset_for_text reads the same in
 * the framework cell) */
static gboolean
names_llm_foundry (const char *text)
{
  static const char *const names[] = { "llm-foundry", "llm foundry", "llmfoundry",
                                       "llm_foundry", NULL };
  return contains_any_ci (text, names);
}

/* A PaLM-family text that counts 6 N alone: "6ND", "6 x N x D", Kaplan's or Chinchilla's
 * C = 6ND, with no attention term (no "12", no "attention" unless said to be left out) and
 * no source that counts one (PaLM, the Llama 3 paper, torchtitan, llm-foundry, nanoGPT). */
/* Whether every "attention" of a text follows a negation in its clause ("6N, not
 * Chowdhery's attention term", "without PaLM's attention FLOPs"): the attention term
 * named to be left out */
static gboolean
attention_said_out (const char *text)
{
  static const char *const neg[] = { "not ", "no ", "without ", "excluding ", "minus " };
  g_autofree char *low = g_ascii_strdown (text, -1);
  gboolean any = FALSE;
  for (const char *p = strstr (low, "attention"); p != NULL; p = strstr (p + 1, "attention"))
    {
      const char *b = p;
      while (b > low && strchr (",;()", b[-1]) == NULL)
        b--;
      g_autofree char *clause = g_strndup (b, (gsize) (p - b));
      gboolean out = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (neg) && !out; i++)
        {
          const char *q = strstr (clause, neg[i]);
          out = q != NULL && (q == clause || !g_ascii_isalnum (q[-1]));
        }
      if (!out)
        return FALSE;
      any = TRUE;
    }
  return any;
}

/* Whether `word` occurs in `text` not negated ("not Chowdhery's attention term",
 * "without PaLM's attention term" name it to leave it out) */
static gboolean
names_not_negated (const char *text, const char *word)
{
  g_autofree char *low = g_ascii_strdown (text, -1);
  g_autofree char *w = g_ascii_strdown (word, -1);
  for (const char *p = strstr (low, w); p != NULL; p = strstr (p + 1, w))
    if (!negated_before (low, p))
      return TRUE;
  return FALSE;
}

static gboolean
six_n_only (const char *text)
{
  /* (a source named only to be left out, "6N per token (Kaplan), not Chowdhery's
   * attention term", counts no attention: it read as PaLM's whole count, audit of 7 Dec) */
  if (names_not_negated (text, "PaLM") || names_not_negated (text, "Chowdhery")
      || contains_ci (text, "Llama 3 paper")
      || contains_ci (text, "torchtitan") || names_llm_foundry (text)
      || contains_ci (text, "nanoGPT") || strstr (text, "12") != NULL)
    return FALSE;
  if (contains_ci (text, "attention") && !contains_ci (text, "no attention")
      && !contains_ci (text, "without attention") && !contains_ci (text, "excluding attention")
      && !contains_ci (text, "attention not") && !attention_said_out (text))
    return FALSE;
  return TRUE;
}


/* Whether a Megatron-Core count's cell says its attention term is the causal one (defined
 * with the negation helpers it reads, below negated_after) */
static gboolean causal_count_said (const char *text);

/* flops_convention text -> tandem's convention (table in published.h); *six_n where the
 * text counts 6 N alone (six_n_only), read as PaLM's 6 N without its attention term. */
static gboolean
convention_for (const char *text, ModelFlopConvention *out, gboolean *six_n)
{
  *six_n = FALSE;
  /* 6 N alone, by its authors' names, its parameters spelled out, or an attention term
   * said to be left out */
  if (((contains_ci (text, "Kaplan") || contains_ci (text, "Chinchilla")
        || contains_ci (text, "6 x params") || contains_ci (text, "6*params")
        || contains_ci (text, "6 * params") || contains_ci (text, "6 x parameters"))
       && six_n_only (text))
      || (!contains_ci (text, "PaLM")
          && (contains_ci (text, "excluding attention") || contains_ci (text, "without attention")
              || contains_ci (text, "no attention term"))))
    {
      *out = MODEL_FLOPS_PALM;
      *six_n = TRUE;
      return TRUE;
    }
  if (contains_ci (text, "SC'21") || contains_ci (text, "Narayanan")
      || contains_ci (text, "96*B") || contains_ci (text, "96 B ") || contains_ci (text, "96 x B"))
    *out = MODEL_FLOPS_MEGATRON96;
  else if (contains_ci (text, "Korthikanti") || contains_ci (text, "72*B")
           || contains_ci (text, "72 B ") || contains_ci (text, "72 x B"))
    *out = MODEL_FLOPS_MEGATRON72;
  /* Megatron-Core's count with its s x s term said halved for causal masks ("... with
   * the s x s term halved for causal masks", the newer NVIDIA tables' form, convention 4;
   * only so: "not halved for causal masks", "noncausal", "despite causal masking" keep
   * the non-causal count
   * of published-runs.md): the causal variant (it read as the non-causal count, the
   * measured step of a row measured by TFLOP/s 12% long at 4K tokens, 82% at 128K) */
  else if ((contains_ci (text, "Megatron-Core") || contains_ci (text, "num_floating_point")
            || contains_ci (text, "NeMo/Megatron model FLOPs"))
           && causal_count_said (text))
    *out = MODEL_FLOPS_CAUSAL;
  else if (contains_ci (text, "Megatron-Core") || contains_ci (text, "num_floating_point")
           || contains_ci (text, "NeMo/Megatron model FLOPs"))
    *out = MODEL_FLOPS_MCORE;
  else if (contains_ci (text, "PaLM") || contains_ci (text, "Llama 3 paper")
           /* PaLM's paper by its first author ("MFU per Chowdhery et al. (2022)", as the
            * Nemotron-4 reports cite it; a cell that also names Korthikanti reads his
            * count, above) */
           || contains_ci (text, "Chowdhery")
           || contains_ci (text, "torchtitan") || names_llm_foundry (text)
           /* nanoGPT's estimate_mfu takes PaLM's Appendix B count */
           || contains_ci (text, "nanoGPT")
           || contains_ci (text, "6N") || contains_ci (text, "6*N")
           /* the same with spaces or another sign ("6 * N * D", "6 x N", "6·N") */
           || contains_ci (text, "6 * N") || contains_ci (text, "6 x N")
           || contains_ci (text, "6\xc2\xb7N") || contains_ci (text, "6 \xc2\xb7 N"))
    {
      *out = MODEL_FLOPS_PALM;
      *six_n = six_n_only (text);
    }
  /* MaxText's calculate_tflops_training_per_device (maxtext_utils.py: 6 x the weight
   * FLOPs of the FFN, QKV / out projections and logits, plus 12 L s h of attention a token;
   * its later versions halve the attention for causal masks), or PaLM's attention term
   * spelled out ("12*L*s*h", "12 L s h", "12LHQT"): PaLM's count, the causal one where the
   * text says the attention is halved for causal masks. The MaxText A3 README's own form
   * was not recognised and its rows skipped (audit of 7 Dec). */
  else if (contains_ci (text, "MaxText") || contains_ci (text, "calculate_tflops")
           || contains_ci (text, "12*L*s*h") || contains_ci (text, "12 L s h")
           || contains_ci (text, "12LHQT") || contains_ci (text, "12 x L x s x h")
           || contains_ci (text, "12*L*H*Q*T"))
    *out = contains_ci (text, "causal") && !contains_ci (text, "non-causal")
               && !contains_ci (text, "noncausal") && !contains_ci (text, "not halved")
             ? MODEL_FLOPS_CAUSAL : MODEL_FLOPS_PALM;
  else if (contains_ci (text, "causal") && !contains_ci (text, "non-causal"))
    *out = MODEL_FLOPS_CAUSAL;
  else
    return FALSE;
  return TRUE;
}

/* The row's own GPU, which its measurement was taken on: the case's cluster's, or under a
 * --cluster the user gave the preset the row's gpu_type maps to (loaded into *own), that
 * given cluster's where the type has none */
static const TopoDevice *
row_device (const ResPublishedCase *c, const ResCsv *csv, guint row, TopoCluster **own)
{
  *own = NULL;
  if (c->cluster_given)
    {
      const char *preset = cluster_for (c->gpu_type, get (csv, row, "network"), c->n_gpus);
      *own = preset != NULL ? topo_cluster_lookup (preset, NULL) : NULL;
      if (*own != NULL)
        return &(*own)->device;
    }
  return &c->cluster->device;
}

/* A step derived from a throughput column takes the bound a stated step_time_s has
 * (cell_rules: a day per step). Every rate column had only an upper cap, so a
 * "0.001" TFLOP/s (a PFLOP/s figure in the TFLOP/s column) measured 5.4e6 s a step and
 * counted in the MAPE at -100%. */
static gboolean
measured_from (ResPublishedCase *c, const ResCsv *csv, guint row, const char *column,
               double step_s, char *source)
{
  if (step_s <= 86400)
    {
      c->measured_step_s = step_s;
      c->measured_source = source;
      /* "~2.0": read as 2.0, said approximate where the explain output names the source */
      if (cell_approximate (get (csv, row, column)))
        {
          c->measured_source = g_strdup_printf ("%s (approximate as written)", source);
          g_free (source);
        }
      return TRUE;
    }
  g_free (source);
  return skip (c, "refused: %s '%s' gives a step of %.4g s, over a day per step (hint: "
               "check the column's unit: %s)", column, get (csv, row, column), step_s,
               g_str_equal (column, "tflops_per_gpu") ? "TFLOP/s per GPU"
               : g_str_equal (column, "mfu_pct") ? "percent of the peak"
               : g_str_equal (column, "tokens_per_s_total") ? "tokens/s of the whole run"
               : "tokens/s per GPU");
}

/* The smallest figure without a percent sign in mfu_pct or hfu_pct read as a fraction of
 * the peak ("0.68" for 68%: the PyTorch / IBM blog tables print MFU so): no training run
 * reports an MFU or HFU under 5%, so below it the cell is refused as no plain reading. */
#define MEASURED_MIN_FRACTION 0.05

/* Whether a percent sign follows the cell's leading number ("0.41%", "0.41 %"): that
 * number is a percentage. A sign elsewhere ("0.57 (57%)") leaves the leading 0.57 the
 * fraction it is (it was read as 0.57%, a step 100 times too long). */
static gboolean percent_after_number (const char *cell);

/* What the explain line adds where a utilisation was written as a fraction: "; '0.68'
 * written as a fraction: 68%" (empty where it was not). g_free the result. */
static gboolean
percent_after_number (const char *cell)
{
  double v;
  const char *end = leading_number (cell, &v);
  if (end == NULL)
    return strchr (cell, '%') != NULL;
  while (*end == ' ')
    end++;
  return *end == '%';
}

static char *
fraction_note (gboolean fraction, const char *cell, double pct)
{
  if (!fraction)
    return g_strdup ("");
  g_autofree char *t = g_strstrip (g_strdup (cell));
  return g_strdup_printf ("; '%s' written as a fraction: %g%%", t, pct);
}

/* A measurement of hardware FLOPs (an hfu_pct cell, or an mfu_pct or tflops_per_gpu cell
 * labelled HFU: cell_hfu), read once the plan is known (map_measured_hfu): the hardware
 * FLOPs a step executes depend on its recompute. column NULL: none. */
typedef struct {
  const char *column;   /* "hfu_pct", "mfu_pct" or "tflops_per_gpu" */
  double      figure;   /* percent of the peak, or TFLOP/s per GPU */
  gint64      node_gpus; /* > 1: the TFLOP/s cell was a node's, over these GPUs */
  gboolean    fraction; /* the percentage was written as a fraction ("0.45"): figure is
                         * 100 times the cell */
} MeasuredHfu;

/* The peak a utilisation of the row is taken against: the row's own GPU's (row_device) in
 * its precision (published-runs.md: FP8 MFUs are often taken against the FP8 peak), FP16
 * on a device without BF16 (V100); 0 when the device has none */
static double
utilisation_peak (const ResPublishedCase *c, const ResCsv *csv, guint row, gboolean fp8)
{
  g_autoptr (TopoCluster) own = NULL;
  const TopoDevice *dev = row_device (c, csv, row, &own);
  double peak = dev->peak_flops[fp8 ? TOPO_DTYPE_FP8 : TOPO_DTYPE_BF16];
  if (!fp8 && !(peak > 0))
    peak = dev->peak_flops[TOPO_DTYPE_FP16];
  return peak;
}

/* Whether the word at `p` (`n` bytes, lower case) is a unit word that may stand between a
 * rate's figure and its "per node": a magnitude ("96K"), tokens, seconds, FLOP/s ("96K
 * tokens/s/node", "3.2 PFLOP/s per node") */
static gboolean
rate_unit_word (const char *p, gsize n)
{
  static const char *const words[] = {
    "k", "m", "b", "thousand", "million", "tokens", "token", "tok", "toks", "tkn", "s",
    "sec", "second", "seconds", "tflop", "tflops", "tf", "teraflop", "teraflops", "pflop",
    "pflops", "pf", "petaflop", "petaflops", "gflop", "gflops", "flop", "flops", "hfu",
  };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (strlen (words[i]) == n && strncmp (p, words[i], n) == 0)
      return TRUE;
  return FALSE;
}

/* The GPUs a per-GPU rate cell's figure is over: 1, or where the cell says its leading
 * figure is a node's ("96,000 per node", "12000 (per node)", "96K tokens/s/node", "3200
 * TFLOP/s per server", "per host"; these were read as a GPU's rate, 8 times too high on
 * 8-GPU nodes) the GPUs of one server of the row's own cluster (row_device's: the preset
 * its gpu_type maps to, under a --cluster too), at most n_gpus (a run on part of a node:
 * the node's rate is the run's). The node must follow the figure directly, past unit
 * words only (rate_unit_word), a comma, a bracket and "aggregate" / "total" ("24,000
 * tokens/s, per node", "24,000 tokens/s (aggregate per node)", "per-node", "per 8-GPU
 * node", "per DGX node" were read as a GPU's, 8 times too high): a bracket or clause
 * that gives its own figure per node
 * ("465.9 (3.7 PFLOP/s per node)", "12,000 (8 GPUs per node)", "2000 (per device; 8
 * devices per node)") or a figure said to be a GPU's first ("2000 per H100 (16K per
 * node)") leaves the leading figure a GPU's; these were divided by 8. */
static gint64
rate_node_gpus (const ResPublishedCase *c, const ResCsv *csv, guint row, const char *column)
{
  g_autofree char *t = g_ascii_strdown (get (csv, row, column), -1);
  double v;
  const char *p = leading_number (t, &v);
  if (p == NULL)
    return 1;
  static const char *const units[] = { "node", "server", "host" };
  gboolean node = FALSE, slash = FALSE;
  while (!node && *p != '\0')
    {
      /* "24,000 tokens/s, per node": a comma sets the scope off, no figure of its own */
      if (*p == ' ' || ((*p == '(' || *p == ',') && !slash))
        {
          p++;
          continue;
        }
      if (*p == '/')
        {
          slash = TRUE;
          p++;
          continue;
        }
      if (!g_ascii_isalpha (*p))
        break;
      const char *w = p;
      while (g_ascii_isalpha (*p))
        p++;
      const gsize n = (gsize) (p - w);
      /* "(aggregate per node)": a word that says the figure is the whole node's */
      if ((n == 9 && strncmp (w, "aggregate", 9) == 0) || (n == 5 && strncmp (w, "total", 5) == 0))
        continue;
      /* "per" then the node; "per second" a unit; "per GPU", "per H100": a GPU's */
      gboolean per = n == 3 && strncmp (w, "per", 3) == 0 && (*p == ' ' || *p == '-');
      const char *u = w;
      gsize un = n;
      if (per)
        {
          u = p + 1;
          /* the node described: "per 8-GPU node", "per DGX node" (its GPUs are the row's
           * cluster's, as for "per node") */
          const char *d = u;
          while (g_ascii_isdigit (*d))
            d++;
          if (d > u && (g_str_has_prefix (d, "-gpu ") || g_str_has_prefix (d, " gpu ")))
            u = d + 5;
          else if (g_str_has_prefix (u, "dgx "))
            u += 4;
          un = 0;
          while (g_ascii_isalpha (u[un]))
            un++;
        }
      if (per || slash)
        for (guint i = 0; i < G_N_ELEMENTS (units); i++)
          if (un == strlen (units[i]) && strncmp (u, units[i], un) == 0
              && !g_ascii_isalnum (u[un]))
            node = TRUE;
      if (node)
        {
          /* ... and it ends the scope: a "per node" that labels a figure or a noun of its
           * own ("12,000 (per node: 96k)", "12,000, per node 96k", "12,000 (per-node
           * batch 64)", "12,000, per-node NVLink") leaves the leading figure a GPU's
           * (they were divided by the node's GPUs: regression audit of 7 Dec) */
          const char *q = u + un;
          while (*q == ' ')
            q++;
          if (!(*q == '\0' || strchr ("),;.]([", *q) != NULL))
            node = FALSE;
          break;
        }
      if (!rate_unit_word (u, un))
        break;
      p = u + un;
      slash = FALSE;
    }
  if (!node)
    return 1;
  g_autoptr (TopoCluster) own = NULL;
  row_device (c, csv, row, &own);
  const gint64 per_node = (gint64) topo_cluster_level_size (own != NULL ? own : c->cluster, 0);
  return MAX (1, MIN (per_node, c->n_gpus));
}

/* " (per node: / 8 GPUs)" for a rate_node_gpus above 1, else "": g_free */
static char *
node_note (gint64 node_gpus)
{
  return node_gpus > 1 ? g_strdup_printf (" (per node: / %" G_GINT64_FORMAT " GPUs a node)",
                                          node_gpus)
                       : g_strdup ("");
}

/* Whether a convention cell writes Narayanan et al.'s 96 formula out: a "96" (not part
 * of a longer number) followed by optional spaces and a product sign ('*', 'x', the
 * multiplication sign or the middle dot) or "B s" / "Bs" ("96*B*s*L*h^2", "96 B s l
 * h^2"). Any "96" switched the 72-form MFU reading off ("(1,296 GPUs)", "96 layers, 96
 * heads"). */
static gboolean
writes_96_formula (const char *cell)
{
  for (const char *p = cell; (p = strstr (p, "96")) != NULL; p += 2)
    {
      if (p > cell && (g_ascii_isdigit (p[-1]) || p[-1] == ',' || p[-1] == '.'))
        continue;
      const char *q = p + 2;
      if (g_ascii_isdigit (*q))
        continue;
      while (*q == ' ')
        q++;
      /* a product sign, then the batch or the sequence ("96*B*s", "96 x B x s", "96 ·
       * B"): "96 x H100" or "96 × H100 GPUs" is a count of GPUs (read as the formula:
       * regression audit of 7 Dec) */
      const char *op = NULL;
      if (*q == '*' || *q == 'x' || *q == 'X')
        op = q + 1;
      else if (g_str_has_prefix (q, "\xc3\x97") || g_str_has_prefix (q, "\xc2\xb7"))
        op = q + 2;
      if (op != NULL)
        {
          while (*op == ' ')
            op++;
          if ((*op == 'B' || *op == 'b' || *op == 's' || *op == 'S') && !g_ascii_isalnum (op[1]))
            return TRUE;
          continue;
        }
      if (*q == 'B' || *q == 'b')
        {
          const char *r = q + 1;
          while (*r == ' ')
            r++;
          if ((*r == 's' || *r == 'S') && !g_ascii_isalpha (r[1]))
            return TRUE;
        }
    }
  return FALSE;
}

/* A convention cell that calls its figure a model FLOPs utilization ("MFU" as a word,
 * "model FLOPs utilization") */
static gboolean
names_mfu (const char *cell)
{
  if (contains_ci (cell, "model flops utili") || contains_ci (cell, "model flop utili"))
    return TRUE;
  g_autofree char *low = g_ascii_strdown (cell, -1);
  for (const char *p = strstr (low, "mfu"); p != NULL; p = strstr (p + 3, "mfu"))
    if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalnum (p[3]))
      return TRUE;
  return FALSE;
}

/* A flops_convention cell that says its formula is not given ("formula not printed", "not
 * published", "not given on the page", "not shown", "not specified", "not provided", "not
 * disclosed", "convention not stated on the page"): no count of its own (the NeMo long-sequence tables' "NeMo model TFLOPS /
 * GPU (formula not given on the page)" was skipped, audit of 7 Dec) */
static gboolean
conv_not_given (const char *cell)
{
  static const char *const words[] = { "not printed", "not published", "not given",
                                       "not shown", "not specified", "not provided",
                                       "not disclosed", "not stated" };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (contains_ci (cell, words[i]))
      return TRUE;
  return FALSE;
}

static gboolean
map_measured_cells (ResPublishedCase *c, const ResCsv *csv, guint row, double tokens,
                    gboolean fp8, MeasuredHfu *hfu)
{
  double v;
  c->has_convention = convention_for (get (csv, row, "flops_convention"), &c->convention,
                                      &c->flops_6n);
  c->flops_6n_ratio = 1.0;
  /* No convention stated ("", "not stated", "formula not printed"): the count the
   * framework the row names reports its TFLOP/s and MFU in (the stack's
   * tflops_convention, with its source: Megatron-Core's num_floating_point_operations,
   * torchtitan's and Composer's PaLM count, the SC'21 formula), where the framework cell
   * names a stack that has one; a framework tandem does not know, or one without a
   * count of its own, leaves the row skipped as before. Example: an audit's Nemotron-4
   * 15B rows (Megatron-LM, "MFU against 989 TFLOP/s bf16 peak; formula not printed") */
  gboolean from_stack = FALSE;
  const char *conv_cell = get (csv, row, "flops_convention");
  /* only a cell that says no more than that: one that names a kind of count ("HFU",
   * "hardware FLOPs", "recompute", a custom counter, "per token", a figure) is another
   * count, skipped as before */
  static const char *const names_count[] = { "hardware", "recomput", "custom", "per token",
                                             "per sequence", "*", " x ", "flops per",
                                             "flop per", "formula:" };
  gboolean other_count = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (names_count) && !other_count; i++)
    other_count = contains_ci (conv_cell, names_count[i]);
  /* "HFU" names the hardware count, "not HFU" does not */
  for (const char *h = strcasestr (conv_cell, "hfu"); h != NULL && !other_count;
       h = strcasestr (h + 3, "hfu"))
    other_count = !(h - conv_cell >= 4 && g_ascii_strncasecmp (h - 4, "not ", 4) == 0);
  if (!c->has_convention && c->stack != NULL && c->stack->tflops_convention != NULL
      && !other_count
      && (*conv_cell == '\0' || cell_unstated (conv_cell) || conv_not_given (conv_cell))
      && fw_stack_preset_for_text (framework_cell (c, csv, row)) != NULL
      && model_flop_convention_parse (c->stack->tflops_convention, &c->convention))
    c->has_convention = from_stack = TRUE;
  if (cell_seconds (get (csv, row, "step_time_s"), &v) && v > 0)
    {
      c->measured_step_s = v;
      c->measured_source = g_strdup (cell_approximate (get (csv, row, "step_time_s"))
                                       ? "step_time_s (approximate as written)"
                                       : "step_time_s");
      return TRUE;
    }
  if (cell_rate (get (csv, row, "tokens_per_s_total"), &v) && v > 0)
    {
      return measured_from (c, csv, row, "tokens_per_s_total", tokens / v,
                            g_strdup ("tokens_per_s_total"));
    }
  if (cell_rate (get (csv, row, "tokens_per_s_per_gpu"), &v) && v > 0)
    {
      /* a node's rate over its GPUs (rate_node_gpus) */
      const gint64 node = rate_node_gpus (c, csv, row, "tokens_per_s_per_gpu");
      g_autofree char *note = node_note (node);
      return measured_from (c, csv, row, "tokens_per_s_per_gpu",
                            tokens / (v / (double) node * (double) c->n_gpus),
                            g_strdup_printf ("tokens_per_s_per_gpu%s", note));
    }
  g_autofree char *conv_owned = from_stack
    ? g_strdup_printf ("%s, the %s stack's own count: no convention stated",
                       model_flop_convention_name (c->convention), c->stack->name)
    : NULL;
  const char *conv = c->flops_6n ? "6N, no attention term"
                     : conv_owned != NULL ? conv_owned
                                          : model_flop_convention_name (c->convention);
  double flops_per_token = c->has_convention
    ? model_spec_flops_per_token (c->model, c->model->max_positions, c->convention) : 0;
  if (c->flops_6n && flops_per_token > 0)
    {
      /* PaLM's N (model_spec_palm_params), 6 FLOPs per parameter and token, nothing for
       * the s x s attention: the row's count, and the ratio its MFU is read back with */
      double six_n = 6.0 * (double) model_spec_palm_params (c->model);
      c->flops_6n_ratio = six_n / flops_per_token;
      flops_per_token = six_n;
    }
  /* a TFLOP/s figure labelled HFU is of hardware FLOPs: no convention needed, read with
   * the plan's recompute (map_measured_hfu) */
  /* a node's TFLOP/s over its GPUs, as for tokens (rate_node_gpus) */
  const gint64 tflops_node = rate_node_gpus (c, csv, row, "tflops_per_gpu");
  if (cell_tflops (get (csv, row, "tflops_per_gpu"), &v) && v > 0
      && cell_hfu (get (csv, row, "tflops_per_gpu")))
    {
      hfu->column = "tflops_per_gpu";
      hfu->figure = v / (double) tflops_node;
      hfu->node_gpus = tflops_node;
      return TRUE;
    }
  if (cell_tflops (get (csv, row, "tflops_per_gpu"), &v) && v > 0 && c->has_convention)
    {
      /* step = F/token x tokens / (TFLOP/s x 1e12 x GPUs), in the row's own convention */
      g_autofree char *note = node_note (tflops_node);
      return measured_from (c, csv, row, "tflops_per_gpu",
                            flops_per_token * tokens
                            / (v / (double) tflops_node * 1e12 * (double) c->n_gpus),
                            g_strdup_printf ("tflops_per_gpu (%s)%s", conv, note));
    }
  /* an MFU below 1 with no percent sign is a fraction written for a percentage ("0.41"
   * for 41%; no published training run reports below 1%): it was read as 0.41%, a step
   * 100 times too long. From 0.05 it is read as that fraction (res_published_case_new:
   * published_mfu_pct is 100 times it); below, a 5% MFU or less is as unlikely as the
   * percentage, so the row is refused with the hint */
  const char *mfu_cell = get (csv, row, "mfu_pct");
  if (!isnan (c->published_mfu_pct) && c->published_mfu_pct > 0 && c->published_mfu_pct < 1
      && !percent_after_number (mfu_cell) && c->has_convention)
    return skip (c, "mfu_pct '%s' is below 1%%: a fraction, not a percentage? (hint: write "
                 "%.1f for %.1f%%)", mfu_cell, c->published_mfu_pct * 100,
                 c->published_mfu_pct * 100);
  if (!isnan (c->published_mfu_pct) && c->published_mfu_pct > 0 && c->has_convention)
    {
      /* tflops = MFU x peak of the device in the row's precision (utilisation_peak). The
       * row's own GPU's peak, also under a --cluster the user gave: the measurement is
       * the row's (an H100 row's 41% read against an A100's peak under --cluster selene
       * measured 1.444 s for its 0.455); a GPU with no preset is taken to be the given
       * cluster's */
      const double peak = utilisation_peak (c, csv, row, fp8);
      /* An MFU counts model FLOPs, the recomputed forward left out (Chowdhery et al.
       * 2022, Appendix B; Korthikanti et al. 2022 sec. 5: "model FLOPs utilization ...
       * without recomputation"). Narayanan et al.'s SC'21 count (96 B s l h^2 ...) holds
       * the full recompute's extra forward: a figure the convention cell calls an MFU
       * and says follows Narayanan et al. by name only (not their 96 formula written
       * out, writes_96_formula, nor a recompute or HFU said counted: SC'21's own "% of
       * peak" is of that count) is read with the same count less that forward,
       * Korthikanti et al.'s 72 form (MegaScale, NSDI'24, Table 2: "MFU ... citing
       * Narayanan et al."; its 530B MFUs agree with the 72 form at 312 TFLOP/s within
       * 1.5%, and with the 96 form read 30% apart: audit of 7 Dec) */
      double mfu_fpt = flops_per_token;
      const char *mfu_conv = conv;
      if (c->convention == MODEL_FLOPS_MEGATRON96 && !c->flops_6n && names_mfu (conv_cell)
          && !contains_ci (conv_cell, "recomput") && !contains_ci (conv_cell, "HFU")
          && !writes_96_formula (conv_cell))
        {
          mfu_fpt = model_spec_flops_per_token (c->model, c->model->max_positions,
                                                MODEL_FLOPS_MEGATRON72);
          mfu_conv = "megatron72: an MFU leaves the recompute out, though the count cited "
                     "is SC'21's";
        }
      if (peak > 0)
        {
          g_autofree char *frac = fraction_note (c->mfu_as_fraction, mfu_cell,
                                                 c->published_mfu_pct);
          return measured_from (c, csv, row, "mfu_pct", mfu_fpt * tokens
                                / (c->published_mfu_pct / 100.0 * peak * (double) c->n_gpus),
                                g_strdup_printf ("mfu_pct (%s)%s", mfu_conv, frac));
        }
    }
  /* hardware FLOPs utilisation: an mfu_pct labelled HFU ("52 (HFU)"; published_mfu_pct
   * leaves it out), else the hfu_pct cell, where no figure above measured the step (it
   * was skipped "no measured step time"); read with the plan (map_measured_hfu). From
   * 0.05 to below 1 with no percent sign: a fraction, read as 100 times it; below 0.05
   * refused, as for mfu_pct */
  static const char *const hfu_columns[] = { "mfu_pct", "hfu_pct" };
  for (guint i = 0; i < G_N_ELEMENTS (hfu_columns); i++)
    {
      const char *cell = get (csv, row, hfu_columns[i]);
      if (!cell_number (cell, &v) || !(v > 0) || (i == 0 && !cell_hfu (cell)))
        continue;
      const gboolean fraction = v < 1 && !percent_after_number (cell);
      if (fraction && v < MEASURED_MIN_FRACTION)
        return skip (c, "%s '%s' is below 1%%: a fraction, not a percentage? (hint: write "
                     "%.1f for %.1f%%)", hfu_columns[i], cell, v * 100, v * 100);
      hfu->column = hfu_columns[i];
      hfu->figure = fraction ? v * 100 : v;
      hfu->fraction = fraction;
      return TRUE;
    }
  return skip (c, "no measured step time (no step_time_s or tokens/s, and %s)",
               c->has_convention ? "no tflops_per_gpu, mfu_pct or hfu_pct"
                                 : "flops_convention not recognised for tflops/MFU, and no "
                                   "hfu_pct");
}

/* The measured step, refused where it is faster than the row's GPU can go: the model's
 * FLOPs (the smallest count of any convention) over the step and GPUs above the device's
 * highest dense peak (any precision). A TFLOP/s cell of 5,000 on an H100 (505% of its
 * BF16 peak) or a step_time_s of 1e-9 were predicted at +951% and +3.9e10%, and counted
 * in the MAPE (audit of 6 Dec). */
static gboolean
measured_within_peak (ResPublishedCase *c, const ResCsv *csv, guint row, double tokens)
{
  g_autoptr (TopoCluster) own = NULL;
  const TopoDevice *dev = row_device (c, csv, row, &own);
  double peak = 0, fpt = INFINITY;
  for (int k = 0; k < TOPO_DTYPE_N; k++)
    peak = MAX (peak, dev->peak_flops[k]);
  for (int k = 0; k < MODEL_FLOPS_N_CONVENTIONS; k++)
    fpt = MIN (fpt, model_spec_flops_per_token (c->model, c->model->max_positions,
                                                (ModelFlopConvention) k));
  const double per_gpu = fpt * tokens / (c->measured_step_s * (double) c->n_gpus);
  if (peak > 0 && isfinite (fpt) && fpt > 0 && per_gpu > peak)
    return skip (c, "refused: the measured step (%s, %.4g s) is %.0f TFLOP/s per GPU of "
                 "model FLOPs, above the %s's highest peak (%.0f TFLOP/s in any precision) "
                 "(hint: check the column's unit)", c->measured_source, c->measured_step_s,
                 per_gpu / 1e12, dev->name, peak / 1e12);
  return TRUE;
}

/* The measured step of the cells (map_measured_cells), within the device's peak
 * (measured_within_peak); a hardware-FLOPs figure is left in *hfu for map_measured_hfu. */
static gboolean
map_measured (ResPublishedCase *c, const ResCsv *csv, guint row, double tokens,
              gboolean fp8, MeasuredHfu *hfu)
{
  if (!map_measured_cells (c, csv, row, tokens, fp8, hfu))
    return FALSE;
  return hfu->column != NULL || measured_within_peak (c, csv, row, tokens);
}

/* The hardware FLOPs one step of the case's resolved plan executes over all GPUs: the
 * step program's own count (prog_program_new's hw_flops_per_step, what the predicted HFU
 * is taken from: forward and backward GEMMs and attention, plus the forward recomputed
 * under the plan's recompute), with the stack's plan fields as sim_predict sets them;
 * 0 with *error set when the program is not built */
static double
plan_hw_flops (const ResPublishedCase *c, GError **error)
{
  SimOptions opts;
  sim_options_init (&opts, c->cluster);
  sim_cost_options_init_stack (&opts.cost, c->cluster, c->stack);
  Plan plan;
  plan_copy (&plan, &c->plan);
  sim_plan_apply_stack (&plan, &opts.cost);
  double hw = 0;
  PlanLayout *layout = plan_layout_new (&plan, c->cluster, error);
  if (layout != NULL)
    {
      ProgProgram *prog = prog_program_new (c->model, &plan, layout, error);
      if (prog != NULL)
        hw = prog->hw_flops_per_step;
      prog_program_free (prog);
      plan_layout_free (layout);
    }
  plan_clear (&plan);
  return hw;
}

/* A hardware-FLOPs figure as a step (HFU counts the recomputed forward, which MFU does
 * not): step = hardware FLOPs of the plan per GPU (plan_hw_flops / n_gpus) / (HFU x peak)
 * for a percentage, the peak utilisation_peak's as for mfu_pct; / (TFLOP/s x 1e12) for a
 * TFLOP/s figure labelled HFU. Then the day's cap (measured_from) and the peak
 * (measured_within_peak) as for any measured step. */
static gboolean
map_measured_hfu (ResPublishedCase *c, const ResCsv *csv, guint row, double tokens,
                  gboolean fp8, const MeasuredHfu *hfu)
{
  g_autoptr (GError) error = NULL;
  const double hw = plan_hw_flops (c, &error);
  if (!(hw > 0))
    return skip (c, "no measured step time: %s '%s' is hardware FLOPs utilisation, and the "
                 "plan's hardware FLOPs were not counted (%s)", hfu->column,
                 get (csv, row, hfu->column), error != NULL ? error->message : "none");
  const double per_gpu = hw / (double) c->n_gpus;
  const gboolean tflops = g_str_equal (hfu->column, "tflops_per_gpu");
  const double peak = tflops ? 1e12 : utilisation_peak (c, csv, row, fp8);
  if (!(peak > 0))
    return skip (c, "no measured step time: %s '%s' is a utilisation and the device has no "
                 "peak in the row's precision", hfu->column, get (csv, row, hfu->column));
  const double rate = tflops ? hfu->figure * 1e12 : hfu->figure / 100.0 * peak;
  g_autofree char *note = node_note (hfu->node_gpus);
  g_autofree char *frac = fraction_note (hfu->fraction, get (csv, row, hfu->column),
                                         hfu->figure);
  if (!measured_from (c, csv, row, hfu->column, per_gpu / rate,
                      g_strdup_printf ("%s (HFU: recomputed forward counted)%s%s",
                                       hfu->column, note, frac)))
    return FALSE;
  return measured_within_peak (c, csv, row, tokens);
}

/* ---- plan ----------------------------------------------------------------------------- */

/* Whether the mention of a key at `p` (`n` chars) in the lower-case text `t` is said off:
 * "no KEY" / "without KEY" / "w/o KEY" / "not KEY" / "non-KEY" / "not the KEY" / "not a(n) KEY"
 * ("A100 80GB (not the 40GB variant)"), or KEY then any of " :=" and a word
 * off / no / false / disabled / none / 0 / "not used" / "unused" ("KEY: off", "KEY=False",
 * "KEY false", "KEY (not used)") */
static gboolean
mention_off (const char *t, const char *p, gsize n, gsize *span)
{
  static const char *const before[] = { "no ", "without ", "w/o ", "not ", "non-",
                                        "not the ", "not a ", "not an " };
  static const char *const off[] = { "off", "no", "false", "disabled", "none", "0",
                                     "not used", "unused", "(not used", "(unused" };
  /* a stage number after the key ("ZeRO-3 off", "ZeRO stage 3 (not used)": read as ZeRO-3
   * in use, where "no ZeRO-3" was none): part of the mention */
  const char *q = p + n, *r = q;
  while (*r == ' ' || *r == '-' || *r == '_')
    r++;
  if (g_str_has_prefix (r, "stage"))
    for (r += 5; *r == ' ' || *r == '-' || *r == '_' || *r == ':' || *r == '=';)
      r++;
  gboolean zero_count = FALSE;
  if (g_ascii_isdigit (*r) && r > q)
    {
      zero_count = TRUE;
      for (; g_ascii_isdigit (*r); r++)
        zero_count = zero_count && *r == '0';
      q = r;
    }
  if (span != NULL)
    *span = (gsize) (q - p);
  /* ... a count of 0 there says off: NVIDIA's performance tables print an FSDP column
   * whose 0 is no FSDP ("FSDP 0", read as ZeRO-3 where "FSDP = 0" was off; "ZeRO 0",
   * "stage 0"); a positive count ("FSDP 8") is the scheme in use */
  if (zero_count && !g_ascii_isalnum (*q) && *q != '_' && *q != '.')
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (before); i++)
    {
      gsize b = strlen (before[i]);
      if ((gsize) (p - t) >= b && strncmp (p - b, before[i], b) == 0
          && (p - t == (gssize) b || !g_ascii_isalnum (p[-(gssize) b - 1])))
        return TRUE;
    }
  if (g_ascii_isalnum (*q) || *q == '_')
    return FALSE;
  while (*q == ' ' || *q == ':' || *q == '=')
    q++;
  for (guint i = 0; i < G_N_ELEMENTS (off); i++)
    if (g_str_has_prefix (q, off[i]) && !g_ascii_isalnum (q[strlen (off[i])]))
      return TRUE;
  return FALSE;
}

/* `key` (any case) said to be off at any of its mentions (mention_off) */
static gboolean
named_then_off (const char *text, const char *key)
{
  g_autofree char *t = g_ascii_strdown (text, -1);
  gsize n = strlen (key);
  for (const char *p = strstr (t, key); p != NULL; p = strstr (p + 1, key))
    if (mention_off (t, p, n, NULL))
      return TRUE;
  return FALSE;
}

/* `text` with every mention of one of `keys` (NULL-terminated, lower case) that is said
 * off (mention_off) overwritten by '#', so that the rules which look for a key match only
 * what the cell says was used: "fp8 (not MXFP8)" named the mxfp8 recipe, "MXFP8 off; fp8
 * current scaling" read as "fp8 off" and bf16, "FSDP (not used)" as zero3. Sets *any when
 * a mention was blanked (may be NULL). g_free the result. */
static char *
blank_negated (const char *text, const char *const *keys, gboolean *any)
{
  char *out = g_strdup (text);
  g_autofree char *low = g_ascii_strdown (text, -1);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      gsize n = strlen (keys[i]);
      for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + 1, keys[i]))
        {
          gsize span = n;
          if (mention_off (low, p, n, &span))
            {
              memset (out + (p - low), '#', span);
              if (any != NULL)
                *any = TRUE;
            }
        }
    }
  return out;
}

/* A shard group of whole nodes said in a clause of its own (`low`, lower case): a count
 * of nodes ("2 nodes", "2-node", "2 servers", "2 hosts") in a clause (between ',', ';',
 * brackets and " and ") that speaks of sharding ("shard", "fsdp") and not of replicas
 * ("replicat", "ddp"): "HSDP, shard group of 2 nodes", "shard across 2 nodes (16 GPUs),
 * replicate x4", "sharding over 2 nodes and replication over 4", "FSDP within 2 nodes =
 * 16 GPUs", "2 nodes per shard group", "FSDP inside 2-node groups" (each took one
 * server's 8). Hybrid sharding's own name ("hybrid shard over 16 nodes") is no shard
 * clause. The count, or 0. */
static const char *word_before (const char *low, const char *end, char out[16]);

static int
shard_nodes_in_clause (const char *low)
{
  g_autofree char *t = g_strdup (low);
  static const char *const names[] = { "hybrid shard", "hybrid_shard", "hybrid-shard",
                                       "shard_grad_op" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    for (char *p = strstr (t, names[i]); p != NULL; p = strstr (p, names[i]))
      memset (p, '#', strlen (names[i]));
  int found = 0;
  const char *cb = t;
  for (const char *p = t;; p++)
    {
      const gboolean join = strncmp (p, " and ", 5) == 0;
      if (*p != '\0' && !join && strchr (",;()[]", *p) == NULL)
        continue;
      g_autofree char *clause = g_strndup (cb, (gsize) (p - cb));
      /* a clause that also puts the shards within one node speaks of the job's nodes
       * ("HSDP on 8 nodes with FSDP inside each node", "sharding intra-node") */
      static const char *const one_node[] = { "each node", "per node", "intra-node",
                                              "intra node", "intranode", "a node",
                                              "single node", "one node", "/node", "same node",
                                              NULL };
      if ((strstr (clause, "shard") != NULL || strstr (clause, "fsdp") != NULL)
          && strstr (clause, "replicat") == NULL && strstr (clause, "ddp") == NULL
          && !contains_any_ci (clause, one_node))
        for (const char *q = clause; *q != '\0'; q++)
          {
            if (!g_ascii_isdigit (*q) || (q > clause && (g_ascii_isalnum (q[-1]) || q[-1] == '.')))
              continue;
            char *e = NULL;
            const gint64 n = g_ascii_strtoll (q, &e, 10);
            const char *w = e;
            if (*w == ' ' || *w == '-')
              w++;
            /* the nodes of a group: after "of", "across", "over", "within", "inside",
             * "spanning" ("shard group of 2 nodes", "shard across 2 nodes"), or before
             * the group's word ("2 nodes per shard group", "2-node groups"); not the
             * job's ("FSDP2 on 8 nodes") */
            char prev[16];
            static const char *const preps[] = { "of", "across", "over", "within", "inside",
                                                 "spanning", "spans", "span" };
            gboolean group_word = FALSE;
            if (word_before (clause, q, prev) != NULL)
              for (guint k = 0; k < G_N_ELEMENTS (preps) && !group_word; k++)
                group_word = g_str_equal (prev, preps[k]);
            /* ... or a label's value ("shard group = 2 nodes", "shard degree: 2 nodes") */
            {
              const char *b = q;
              while (b > clause && b[-1] == ' ')
                b--;
              group_word = group_word || (b > clause && (b[-1] == '=' || b[-1] == ':'));
            }
            const char *u = w;
            while (g_ascii_isalpha (*u))
              u++;
            while (*u == ' ')
              u++;
            /* ... or the group's word after the nodes, past one word of the scheme ("2-node
             * FSDP groups") */
            if (g_str_has_prefix (u, "fsdp ") || g_str_has_prefix (u, "hsdp ")
                || g_str_has_prefix (u, "sharding "))
              u = strchr (u, ' ') + 1;
            const gboolean group_after = g_str_has_prefix (u, "per shard")
                                         || g_str_has_prefix (u, "group")
                                         || g_str_has_prefix (u, "shard");
            if (n >= 1 && n <= 4096 && (group_word || group_after)
                && (g_str_has_prefix (w, "node") || g_str_has_prefix (w, "server")
                    || g_str_has_prefix (w, "host")))
              {
                if (found != 0 && found != (int) n)
                  return 0;   /* two counts: no reading */
                found = (int) n;
              }
            q = e - 1;
          }
      if (*p == '\0')
        break;
      cb = p + (join ? 5 : 1);
    }
  return found;
}

/* The distributed optimizer's names, lower case (ZeRO-1 in Megatron-Core / NeMo): the
 * option, its short forms, NeMo 1's optim.name distributed_fused_adam and NeMo 2's
 * mcore_distributed_optim (its logged config's "optim:" name; not recognised) */
static const char *const distopt_names[] = {
  "distributed optimizer", "distributed_optimizer", "distributed-optimizer", "distopt",
  "dist. optimizer", "dist optimizer", "dist-opt", "dist_opt", "distributed_fused_adam",
  "distributed fused adam", "distributed adam", "distributed_optim", NULL };

/* Whether a mention in the lower-case `t` is negated by a word before it in its clause
 * (from the last ',', ';' or '('): "DDP, not using the distributed optimizer", "none
 * (predates the distributed optimizer)", "no FSDP or distributed optimizer". The text is
 * read once, left to right, for all the mentions of a key (whose positions only grow):
 * the walk keeps where the first negation word of the current clause ends. Scanning back
 * to the clause start for each mention made a cell of 40,000 "distributed optimizer"
 * take 24 s (audit of 7 Dec). */
typedef struct
{
  const char *t;              /* the lower-case text */
  const char *at;             /* read up to here (not included) */
  const char *neg_end;        /* end of the clause's first negation word, or NULL */
  const char *const *words;   /* the negation words, NULL-terminated */
  const char *const *joins;   /* words that also start a clause, NULL-terminated, or NULL */
} ClauseWalk;

static const char *const clause_negation_words[] = { "no", "not", "without", "predates",
                                                     "predating", "before", "never", NULL };

/* A walk with the negation words of `words` and, where `joins` is not NULL, a clause that
 * also ends before each of its words (both NULL-terminated, lower case, borrowed) */
static void
clause_walk_init_words (ClauseWalk *w, const char *t, const char *const *words,
                        const char *const *joins)
{
  w->t = t;
  w->at = t;
  w->neg_end = NULL;
  w->words = words;
  w->joins = joins;
}

static void
clause_walk_init (ClauseWalk *w, const char *t)
{
  clause_walk_init_words (w, t, clause_negation_words, NULL);
}

/* Whether one of `words` (NULL-terminated; NULL for none) is at `a` as a word of its own
 * (the caller checks that a word starts at `a`) */
static gboolean
word_of_at (const char *a, const char *const *words)
{
  return words != NULL && word_among_at (a, words, g_strv_length ((gchar **) words));
}

/* Whether the mention at `p` (at or after the previous call's) is negated in its clause:
 * a negation word, as a word of its own, that ends at or before `p` */
static gboolean
clause_walk_negated (ClauseWalk *w, const char *p)
{
  const char *const *words = w->words;
  g_assert (p >= w->at);
  for (; w->at < p; w->at++)
    {
      const char *a = w->at;
      gboolean word_start = a == w->t || !g_ascii_isalnum (a[-1]);
      if (*a == ',' || *a == ';' || *a == '(' || (word_start && word_of_at (a, w->joins)))
        w->neg_end = NULL;
      else if (w->neg_end == NULL && word_start)
        for (guint i = 0; words[i] != NULL; i++)
          {
            gsize n = strlen (words[i]);
            if (strncmp (a, words[i], n) == 0 && !g_ascii_isalnum (a[n]))
              {
                w->neg_end = a + n;
                break;
              }
          }
    }
  return w->neg_end != NULL && w->neg_end <= p;
}

/* The distributed optimizer named and said off, by a word after it (named_then_off:
 * "distributed optimizer: off") or before it in its clause (clause_walk_negated) */
static gboolean
distopt_said_off (const char *text, const char *key)
{
  if (named_then_off (text, key))
    return TRUE;
  g_autofree char *t = g_ascii_strdown (text, -1);
  ClauseWalk walk;
  clause_walk_init (&walk, t);
  for (const char *p = strstr (t, key); p != NULL; p = strstr (p + 1, key))
    if (clause_walk_negated (&walk, p))
      return TRUE;
  return FALSE;
}

/* A command-line flag (without its dashes, lower case: "use-distributed-optimizer") quoted
 * in the notes and not said off there: "ran with --use-distributed-optimizer", not "run
 * without --use-distributed-optimizer", "no --overlap-param-gather" (which moved a
 * Megatron-LM row to megatron-core) */
static gboolean
notes_flag_on (const char *notes, const char *flag)
{
  g_autofree char *t = g_ascii_strdown (notes, -1);
  gsize n = strlen (flag);
  ClauseWalk walk;
  clause_walk_init (&walk, t);
  for (const char *p = strstr (t, flag); p != NULL; p = strstr (p + 1, flag))
    {
      const char *m = p;
      while (m > t && m[-1] == '-' && m > walk.at)
        m--;
      if (!mention_off (t, m, n + (gsize) (p - m), NULL) && !clause_walk_negated (&walk, m))
        return TRUE;
    }
  return FALSE;
}

/* The stage a "stage N" in t gives, with a space, '-' or '_' or nothing between ("stage
 * 3", "stage-3", "stage_3", "stage3"; "stage-3" was not recognised): N, 0-3 not followed
 * by another digit; -1 when none. */
static int
stage_n_in (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (const char *p = strstr (low, "stage"); p != NULL; p = strstr (p + 5, "stage"))
    {
      const char *q = p + 5;
      if (*q == ' ' || *q == '-' || *q == '_')
        q++;
      if (*q >= '0' && *q <= '3' && !g_ascii_isdigit (q[1]))
        return *q - '0';
    }
  return -1;
}

/* FSDP (or ZeRO) named only to say it was off: "FSDP off", "no FSDP", "FSDP: disabled",
 * "without ZeRO", "NO_SHARD". */
static gboolean
sharding_negated (const char *t)
{
  static const char *const neg[] = { "no fsdp", "without fsdp", "fsdp off", "fsdp: off",
                                     "fsdp disabled", "fsdp: disabled", "fsdp: no",
                                     "fsdp=false", "fsdp: none", "no zero", "without zero",
                                     "zero off", "zero disabled", "zero-0", "zero 0",
                                     "stage 0", "no_shard", "no shard" };
  for (guint i = 0; i < G_N_ELEMENTS (neg); i++)
    if (contains_ci (t, neg[i]))
      return TRUE;
  /* "stage-0", "stage_0" as "stage 0"; a cell that opens with a sharding label said off
   * ("sharding: none", "Sharding off": not recognised) */
  if (stage_n_in (t) == 0)
    return TRUE;
  g_autofree char *low = g_ascii_strdown (t, -1);
  if (g_str_has_prefix (low, "sharding") && mention_off (low, low, strlen ("sharding"), NULL))
    return TRUE;
  /* the distributed optimizer (ZeRO-1 in Megatron-Core / NeMo) named only to say it was
   * off: "no distributed optimizer", "distributed optimizer: off",
   * "use_distributed_optimizer=False", "--use-distributed-optimizer false", "DistOpt: no"
   * (each was read as zero1): Megatron's DDP, no sharding */
  for (guint i = 0; distopt_names[i] != NULL; i++)
    if (distopt_said_off (t, distopt_names[i]))
      return TRUE;
  /* a yes/no column answered no: the whole cell, never a word inside longer text
   * ("ZeRO-3, no model parallelism" names ZeRO-3) */
  static const char *const no[] = { "no", "off", "false", "disabled", "0" };
  for (guint i = 0; i < G_N_ELEMENTS (no); i++)
    if (g_ascii_strcasecmp (t, no[i]) == 0)
      return TRUE;
  return FALSE;
}

/* A cell that says it says nothing ("not stated", "unknown", "n/a", "N.A.", "-", "?", and
 * the dashes tables print for an empty cell: an em dash or an en dash): read as empty, so
 * the rule for an unstated field applies (the stack's documented default), never a skip
 * and never a guess. */
static gboolean
cell_unstated (const char *t)
{
  static const char *const words[] = { "not stated", "not given", "not reported",
                                       "not specified", "unspecified", "unknown", "n/a" };
  if (g_str_equal (t, "-") || g_str_equal (t, "?") || g_ascii_strcasecmp (t, "na") == 0
      || g_ascii_strcasecmp (t, "n.a.") == 0 || g_ascii_strcasecmp (t, "n.a") == 0
      || g_str_equal (t, "\xe2\x80\x94") || g_str_equal (t, "\xe2\x80\x93")
      || g_ascii_strcasecmp (t, "none stated") == 0)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (starts_with_ci (t, words[i]))
      return TRUE;
  return FALSE;
}

/* NeMo named as a word ("NeMo 24.07", "NeMo2"), not inside "Nemotron" (a model family
 * that Megatron-LM recipes train) */
static gboolean
names_nemo (const char *text)
{
  g_autofree char *low = g_ascii_strdown (text != NULL ? text : "", -1);
  for (const char *p = strstr (low, "nemo"); p != NULL; p = strstr (p + 1, "nemo"))
    if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalpha (p[4]))
      return TRUE;
  return FALSE;
}

/* The first whole number after `key` in `low` (lower case), skipping '=', ':', '_' and
 * spaces only; 0 when none. "fsdp=8" -> 8, "ici_fsdp: 16" -> 16. */
static int
number_after (const char *low, const char *key)
{
  const char *p = strstr (low, key);
  if (p == NULL)
    return 0;
  for (p += strlen (key); *p == '=' || *p == ':' || *p == ' ' || *p == '_'; p++)
    ;
  return g_ascii_isdigit (*p) ? (int) g_ascii_strtoll (p, NULL, 10) : 0;
}

/* MaxText's mesh: FSDP over its fsdp axis inside a slice or pod (ici_fsdp) and plain data
 * parallelism over dcn (dcn_data_parallelism) is hybrid sharding: shard group = the fsdp
 * size, replicas = the dcn size ("fsdp=8, dcn=16", "ici_fsdp 256 x dcn_data 4"). The
 * shard group when the text gives fsdp and a dcn count above 1; else 0. */
static int
maxtext_hsdp_shard (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  /* MaxText's own keys first ("ici_fsdp_parallelism=8, dcn_data_parallelism=16", the
   * gpu-recipes' launch flags: the shorter keys below stop at "_parallelism" and read
   * nothing, so these read as zero3 over every GPU); an fsdp axis over dcn too
   * ("dcn_fsdp_parallelism: 16, ici_fsdp_parallelism: 8") shards over both: 128 */
  int fsdp = number_after (low, "ici_fsdp_parallelism");
  if (fsdp <= 0)
    fsdp = number_after (low, "ici_fsdp");
  if (fsdp <= 0 && strstr (low, "dcn_fsdp") == NULL)
    fsdp = number_after (low, "fsdp");
  const int dcn_fsdp = number_after (low, "dcn_fsdp_parallelism");
  if (fsdp > 0 && dcn_fsdp > 1)
    fsdp *= dcn_fsdp;
  int dcn = number_after (low, "dcn_data_parallelism");
  if (dcn <= 0)
    dcn = number_after (low, "dcn_data");
  if (dcn <= 0 && strstr (low, "dcn_fsdp") == NULL)
    dcn = number_after (low, "dcn");
  return fsdp > 0 && dcn > 1 ? fsdp : 0;
}

/* A whole number at `q`, or a config's integer expression of two ("num_replicas=64 // 2",
 * OLMo-core's 64 nodes halved: 32, read as 64 before): the number, then "//", "/" or "*"
 * and a second number. "/" only where it divides; 0 for a division that does not, or by
 * 0, or a result past G_MAXINT. */
static int
int_expression (const char *q)
{
  char *end = NULL;
  gint64 a = g_ascii_strtoll (q, &end, 10);
  const char *o = end;
  while (*o == ' ')
    o++;
  int op = g_str_has_prefix (o, "//") ? 'd' : *o == '/' ? '/' : *o == '*' ? '*' : 0;
  if (op != 0)
    {
      const char *r = o + (op == 'd' ? 2 : 1);
      while (*r == ' ')
        r++;
      if (g_ascii_isdigit (*r))
        {
          const gint64 b = g_ascii_strtoll (r, NULL, 10);
          if ((op != '*' && b == 0) || (op == '/' && a % b != 0))
            return 0;
          a = op == '*' ? a * b : a / b;
        }
    }
  return a > 0 && a <= G_MAXINT ? (int) a : 0;
}

/* The number after `key` in t past separators (" =:_-") and the words "group", "size",
 * "degree" and a plural "s" ("shard 16", "shard group size 32", "dp_shard=16",
 * "data_parallel_replicate_degree=2", "replicas 4"), at any occurrence of key; 0 when
 * none. */
static int
count_after_word_nodes (const char *t, const char *key, gboolean nodes);

static int
count_after_word (const char *t, const char *key)
{
  return count_after_word_nodes (t, key, TRUE);
}

/* count_after_word, where `nodes` FALSE passes over a count of nodes ("shard group = 2
 * nodes" is no group of 2 GPUs: a shard group of whole nodes, read apart) */
static int
count_after_word_nodes (const char *t, const char *key, gboolean nodes)
{
  static const char *const words[] = { "group", "size", "degree", "s" };
  for (const char *p = strstr (t, key); p != NULL; p = strstr (p + 1, key))
    {
      const char *q = p + strlen (key);
      for (gboolean moved = TRUE; moved;)
        {
          moved = FALSE;
          while (*q == ' ' || *q == '=' || *q == ':' || *q == '_' || *q == '-')
            q++, moved = TRUE;
          for (guint i = 0; i < G_N_ELEMENTS (words); i++)
            if (g_str_has_prefix (q, words[i]))
              {
                q += strlen (words[i]);
                moved = TRUE;
                break;
              }
        }
      if (g_ascii_isdigit (*q))
        {
          if (!nodes)
            {
              const char *u = q;
              while (g_ascii_isdigit (*u))
                u++;
              while (*u == ' ' || *u == '-')
                u++;
              if (g_str_has_prefix (u, "node") || g_str_has_prefix (u, "server")
                  || g_str_has_prefix (u, "host"))
                continue;
            }
          return int_expression (q);
        }
    }
  return 0;
}

/* The count before `key` in t: a whole number, then spaces, '-' or '_' and an optional
 * "way" ("2 replicas", "4-way replicated"), at any occurrence of key; 0 when none. */
static int
count_before_word (const char *t, const char *key)
{
  for (const char *p = strstr (t, key); p != NULL; p = strstr (p + 1, key))
    {
      const char *q = p;
      while (q > t && (q[-1] == ' ' || q[-1] == '-' || q[-1] == '_'))
        q--;
      if (q - t >= 3 && g_str_has_prefix (q - 3, "way"))
        for (q -= 3; q > t && (q[-1] == ' ' || q[-1] == '-' || q[-1] == '_'); q--)
          ;
      if (q == t || !g_ascii_isdigit (q[-1]))
        continue;
      while (q > t && g_ascii_isdigit (q[-1]))
        q--;
      return (int) MIN (g_ascii_strtoll (q, NULL, 10), G_MAXINT);
    }
  return 0;
}

/* The shard group an HSDP text states: a number named as the shard ("shard 16", "shard
 * group size 32", "dp_shard=16"), else the replica count as -R ("replicate 4",
 * "data_parallel_replicate_degree=2", "2 replicas": the caller divides dp by it), else the
 * first number after "hsdp", "hybrid" or "shard group" ("HSDP 8x16", "hsdp:8"); 0 when
 * none. A count before "replicas" is a replica count: "HSDP, 2 replicas" on dp 128 was a
 * shard group of 2 (the first number after "hsdp"), where it is 128 / 2 = 64. */
/* The shard group or replica count an HSDP text names by its word (hsdp_shard_size_in's
 * first forms): "shard 16", "dp_shard=16", "replicate 4", "4 replicas"; 0 when none */
/* The replica count after `key`: count_after_word's, except that a product whose second
 * factor counts GPUs or nodes ("num_replicas=4 * 8 GPUs", "replicate 2 * 16 GPUs each")
 * is that many replicas of that many GPUs: its first factor */
static int
replica_count_after (const char *low, const char *key)
{
  const int n = count_after_word (low, key);
  const char *p = strstr (low, key);
  if (n <= 0 || p == NULL)
    return n;
  for (p += strlen (key); *p != '\0' && !g_ascii_isdigit (*p); p++)
    ;
  char *end = NULL;
  const gint64 a = g_ascii_strtoll (p, &end, 10);
  const char *q = end;
  while (*q == ' ')
    q++;
  if (*q != '*' && *q != 'x')
    return n;
  for (q++; *q == ' '; q++)
    ;
  while (g_ascii_isdigit (*q))
    q++;
  while (*q == ' ')
    q++;
  if (g_str_has_prefix (q, "gpu") || g_str_has_prefix (q, "node") || g_str_has_prefix (q, "device"))
    return a > 0 && a <= G_MAXINT ? (int) a : n;
  return n;
}

static int
hsdp_named_count_in (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  int n = count_after_word_nodes (low, "shard", FALSE);
  if (n > 0)
    return n;
  n = replica_count_after (low, "replicate");
  if (n <= 0)
    n = replica_count_after (low, "replica");
  if (n <= 0)
    n = count_before_word (low, "replica");
  return n > 0 ? -n : 0;
}

static int
hsdp_shard_size_in (const char *t)
{
  static const char *const keys[] = { "hsdp", "hybrid", "shard group", "shard_group" };
  g_autofree char *low = g_ascii_strdown (t, -1);
  int n = hsdp_named_count_in (t);
  if (n != 0)
    return n;
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const char *p = strstr (low, keys[i]);
      if (p == NULL)
        continue;
      for (p += strlen (keys[i]); *p != '\0' && !g_ascii_isdigit (*p); p++)
        if (*p == ';' || *p == '(' || *p == ')')
          break;
      if (g_ascii_isdigit (*p))
        {
          char *end = NULL;
          const gint64 v = g_ascii_strtoll (p, &end, 10);
          while (*end == ' ')
            end++;
          /* a count of nodes ("HSDP: replicate within 2 nodes, ...") is no group */
          if (g_str_has_prefix (end, "node"))
            continue;
          return (int) v;
        }
    }
  return 0;
}

/* HSDP said in words: sharding within a node (or a stated N-GPU shard group) and
 * replication across nodes ("FSDP sharded within each node, replicated across nodes",
 * "FSDP (8-GPU shard groups, DDP across nodes)", "FSDP sharded within each 8-GPU node,
 * replicated across nodes"; all were read as ZeRO-3). Its group: the N of "N-GPU shard
 * groups" or "N-GPU node", else 0 (one server's data-parallel ranks, the caller's,
 * as for "HSDP" alone). -1 when the text does not say this. */
static gboolean names_zero_1_or_2 (const char *t);

static int
hsdp_in_words (const char *t)
{
  static const char *const inner[] = { "within each node", "within a node", "within the node",
                                       "within node", "within each server", "intra-node",
                                       "intranode", "per node", "shard group", "gpu shard",
                                       "gpus shard", "gpu node", NULL };
  static const char *const across[] = { "across nodes", "between nodes", "inter-node",
                                        "internode", "across servers", "across the nodes",
                                        NULL };
  static const char *const replicate[] = { "replicat", "ddp", "data parallel", "all-reduce",
                                           "allreduce", NULL };
  static const char *const sharded[] = { "fsdp", "shard", "zero", NULL };
  if (!contains_any_ci (t, inner) || !contains_any_ci (t, across)
      || !contains_any_ci (t, replicate) || !contains_any_ci (t, sharded))
    return -1;
  /* ZeRO stage 1 or 2 in groups is no HSDP, which shards the parameters too: InternLM's
   * "zero1=8 (optimizer states sharded within each 8-GPU node, replicated across nodes)"
   * read as HSDP and was skipped where zero1=4 read as ZeRO-1 (audit of 7 Dec); where the
   * text says the parameters are sharded ("ZeRO-2 in v1; now params, grads and optimizer
   * sharded within each node, ..."), it stays HSDP */
  static const char *const params[] = { "param", "weights", NULL };
  if (names_zero_1_or_2 (t) && !contains_any_ci (t, params))
    return -1;
  g_autofree char *low = g_ascii_strdown (t, -1);
  int n = count_before_word (low, "gpu shard");
  if (n <= 0)
    n = count_before_word (low, "gpus shard");
  if (n <= 0)   /* "sharded within each 8-GPU node" */
    n = count_before_word (low, "gpu node");
  return MAX (n, 0);
}

/* A sharding group stated as a number of GPUs: "parameters sharded across 128 GPUs",
 * "sharded over 64 devices", "partitioned across 16 ranks", "sharded within the 8 GPUs of
 * a node" (after "sharded" / "shards" / "partitioned" + "across" / "over" / "among" /
 * "within", an optional "the", the number, then "GPU(s)" / "device(s)" / "rank(s)" as a
 * word): N; 0 when none. "across all 128 GPUs" says the whole group, no sub-group: 0.
 * "within" alone is no sharding phrase ("FSDP, TP within the 4 GPUs" read a group of 4),
 * nor is a duration ("ZeRO-3 (trained within 2 GPU-days)" read a group of 2). */
static int
shard_gpus_in (const char *t)
{
  static const char *const keys[] = { "sharded across ", "sharded over ", "sharded among ",
                                      "sharded within ", "shards across ", "shards over ",
                                      "shards within ", "shard across ", "shard within ",
                                      "partitioned across ", "partitioned over ",
                                      "partitioned within ", NULL };
  static const char *const units[] = { "gpu", "device", "rank", NULL };
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (guint i = 0; keys[i] != NULL; i++)
    for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + 1, keys[i]))
      {
        const char *q = p + strlen (keys[i]);
        if (g_str_has_prefix (q, "the "))
          q += 4;
        if (!g_ascii_isdigit (*q))
          continue;
        char *end = NULL;
        gint64 n = g_ascii_strtoll (q, &end, 10);
        while (*end == ' ' || *end == '-')
          end++;
        for (guint u = 0; units[u] != NULL; u++)
          if (g_str_has_prefix (end, units[u]) && n > 0)
            {
              const char *w = end + strlen (units[u]);
              if (*w == 's')
                w++;
              if (!g_ascii_isalnum (*w) && *w != '-')   /* not "GPU-days" */
                return (int) MIN (n, G_MAXINT);
            }
      }
  return 0;
}

/* Rules, first that applies (every one has its examples in tests/results/test-mapping.c):
 *  empty, or a cell that says it is not stated ("not stated", "unknown", "n/a", "N.A.",
 *  "-", a dash)    -> the ZeRO stage or FSDP the framework cell names, not said off
 *                     (mention_off, negated_before, negated_after: "FSDP was not used",
 *                     "instead of FSDP", "use_torch_fsdp2: False") ("HF
 *                     Accelerate + DeepSpeed ZeRO-3" zero3, where DeepSpeed's default zero1
 *                     was read; "PyTorch FSDP" by the FSDP semantics below), the explain
 *                     line saying so (sharding_from_framework); else NeMo /
 *                     Megatron-Core / "--overlap-param-gather" in notes: zero1 (the
 *                     distributed optimizer); else the stack's default (frameworks/presets:
 *                     megatron-lm-2021, Megatron-LM of 2019-2022 before the distributed
 *                     optimizer, none; megatron-core zero1, also for a framework cell that
 *                     names no stack, "MCore" or a Megatron-LM from 2023; FSDP stacks
 *                     zero3, DeepSpeed zero1);
 *  negated         -> "NO_SHARD", "ZeRO-0", "no ZeRO", a count of 0 after the scheme
 *                     ("ZeRO 0"; "FSDP 0", NVIDIA's FSDP column; "FSDP 8" is FSDP), and a
 *                     whole cell "no" / "off" / "false" / "disabled" / "0": none; a scheme
 *                     said off (mention_off: "FSDP (not used)", "not FSDP") is blanked
 *                     before the rules below, and a cell that names only such is none,
 *                     except FSDP alone said off ("no FSDP", "FSDP off", "FSDP = 0", "0 (no
 *                     FSDP)"): FSDP is off, not the distributed optimizer, so the empty
 *                     cell's reading where that is zero1 (nemo, megatron-core, deepspeed;
 *                     the explain line says so), none where it is FSDP (pytorch-fsdp,
 *                     torchtitan, LitGPT, meta-llama3) or none (megatron-lm-2021), and
 *                     none where the cell also says no sharding ("no FSDP (data parallel
 *                     only)", "no FSDP, pure DP", "no FSDP; optimizer not sharded"); FSDP's
 *                     FULL_SHARD mode said off ("not full shard", "full shard off") none;
 *  a bare stage    -> a whole cell "1" / "2" / "3": DeepSpeed's zero_optimization.stage;
 *  HSDP            -> "HSDP", "HYBRID_SHARD", "hybrid shard", DeepSpeed's "MiCS": hsdp,
 *                     shard group from the text ("shard 16", "dp_shard=16",
 *                     "mics_shard_size=16"; "replicate 4" or "2 replicas" = groups of
 *                     dp / R; else the first number, "HSDP 16x4"; FSDP1's
 *                     "_HYBRID_SHARD_ZERO2" names no group; a stated group or R that does
 *                     not divide dp: skipped; a group of 1: none, of dp: zero3) or one
 *                     server's data-parallel ranks, its devices / (tp x cp) (FSDP's
 *                     HYBRID_SHARD shards within a node, where TP and CP take the
 *                     innermost devices), skipped where that is 1 (tp 8 on 8 GPUs);
 *                     also said in words (hsdp_in_words): sharded within a node or an
 *                     "N-GPU shard group", replicated / DDP across nodes: group N, or one
 *                     server's as above; a group of GPUs after "sharded across" / "over" /
 *                     "within" ("MiCS: parameters sharded across 128 GPUs", where no
 *                     group is named as the shard): N / (tp x cp) ranks, skipped where
 *                     that splits a rank;
 *  ZeRO-3 groups   -> parameters sharded (ZeRO-3, "stage 3", FSDP, "full shard") over a
 *                     stated group of GPUs ("ZeRO stage 3, parameters sharded across 128
 *                     GPUs, 4 copies"): hsdp with that group as above ("across all 512
 *                     GPUs" is no group: the rules below);
 *  MaxText mesh    -> "fsdp=8, dcn=16", "ici_fsdp 256 x dcn_data 4": hsdp, shard group the
 *                     fsdp size, when the dcn count is above 1 (else the FSDP rule below);
 *  ZeRO++          -> "ZeRO++", "zeropp": zero3. DeepSpeed ZeRO++ is ZeRO-3 with int8
 *                     weight all-gathers (qwZ), a secondary weight partition inside the
 *                     node for the backward gathers (hpZ) and int4 gradient
 *                     reduce-scatters (qgZ); none of the three is modelled, so the
 *                     prediction carries ZeRO-3's full-precision traffic (an upper bound
 *                     on ZeRO++'s);
 *  offload         -> "ZeRO-Offload", "ZeRO-Infinity", "ZeRO-3 with CPU offload": skipped
 *                     (host / NVMe optimizer or parameters not modelled);
 *  ZeRO-1/2/3      -> "zero_optimization.stage=3" (DeepSpeed's config key): that stage;
 *                     Megatron-FSDP's strategies "optim_grads_params" / "optim_grads" /
 *                     "optim" (whole cell or after "strategy"): zero3 / zero2 / zero1;
 *                     "ZeRO-1", "stage 1", "ZeRO 1", "ZeRO Stage-1", "zero_stage=1",
 *                     "distributed optimizer" (also "--use-distributed-optimizer",
 *                     "use_distributed_optimizer", "dist. optimizer", "DistOpt",
 *                     "dist-opt"), NeMo's "distributed_fused_adam" / "distributed Adam",
 *                     "sharded optimizer", "optimizer sharding", "optimizer
 *                     sharded": zero1; "ZeRO-2", "stage 2", "SHARD_GRAD_OP", "shards
 *                     optimizer+grads": zero2; "ZeRO-3", "stage 3", "FSDP", "full shard",
 *                     "fully sharded" (Fully Sharded Data Parallel), "fully_shard": zero3;
 *  FSDP semantics  -> zero3 from a stack that keeps parameters unsharded after the
 *                     forward, or under PP when the stack does not reshard between
 *                     micro-batches (torchtitan's FSDP2): zero2 (one gather per step),
 *                     unless the cell says "reshard_after_forward true" (zero3); full
 *                     sharding named as the mode ("FSDP2 (full shard)", "FULL_SHARD",
 *                     "ZeRO-3") is zero3 over a stack's default (nemo-automodel's False),
 *                     though not under PP on a stack that keeps parameters there;
 *  FSDP2's reshard_after_forward stated ("=False", ": true", " false"; in words "no
 *                     reshard after forward", "not resharded after forward", "no FSDP
 *                     resharding": False) -> zero2 / zero3 whatever the stack's default or
 *                     a full shard named, and alone it names FSDP2;
 *  torchtitan degrees -> "dp_shard=N" / "data_parallel_shard_degree N" with
 *                     "dp_replicate=R" / "data_parallel_replicate_degree R" (shard
 *                     unstated: -1, its default, the ranks left): R > 1 and shard != 1
 *                     hsdp (group N, or dp / R), shard != 1 FSDP as above, shard 1 none;
 *  torch's "ZeroRedundancyOptimizer" -> zero1 (optimizer states sharded over DP; its
 *                     DDP all-reduce and parameter broadcasts read as the distributed
 *                     optimizer's traffic, the explain line says so);
 *  a ZeRO-1/2 group -> "zero1=8 (within the 8 GPUs of a node)", "zero1=8" (ranks): zero1 /
 *                     zero2 over all of DP, as no plan has a sub-group for them; the
 *                     explain line says so where the group is not DP;
 *  the distributed optimizer said off ("no distributed optimizer", "distributed
 *                     optimizer: off", "use_distributed_optimizer=False") -> none;
 *  FSDP said off with DDP named in its place ("FSDP 0 (use DDP)") on a stack whose default
 *                     is the distributed optimizer -> that default (Megatron's DDP wrapper
 *                     holds it: megatron/core/distributed/distributed_data_parallel_config.py
 *                     use_distributed_optimizer);
 *  "none", "DDP", plain DP ("DistributedDataParallel", "data parallel", "DP", "DP only",
 *  "pure DP", "replicated", "unsharded", "no sharding"), a "sharding" label said off
 *  ("sharding: none"; these two were not recognised) -> none; "stage 3" also written
 *  "stage-3" / "stage_3" / "stage3" (stage_n_in); "ZeRO" without a stage -> skipped asking for it;
 *  anything else is skipped. */
/* "ZeRO" as a word of its own (not inside "zeropp" or a number "zero") */
static gboolean
zero_word_in (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (const char *p = strstr (low, "zero"); p != NULL; p = strstr (p + 1, "zero"))
    if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalnum (p[4]))
      return TRUE;
  return FALSE;
}

/* Offloading named only to say it was off: "no offload", "without CPU offload",
 * "offload: none" */
static gboolean
offload_negated (const char *t)
{
  static const char *const neg[] = { "no offload", "no cpu offload", "without offload",
                                     "without cpu offload", "offload off", "offload: off",
                                     "offload: no", "offload: none", "offload=false",
                                     "offload: false", "offload disabled", NULL };
  return contains_any_ci (t, neg);
}

/* A ZeRO stage written as a word at `q` (lower case): "one", "two", "three" as a word of
 * their own -> 1-3; 0 none */
static int
stage_word (const char *q)
{
  static const char *const words[] = { "one", "two", "three" };
  for (int k = 0; k < 3; k++)
    if (g_str_has_prefix (q, words[k]) && !g_ascii_isalnum (q[strlen (words[k])]))
      return k + 1;
  return 0;
}

/* The stage number a ZeRO spelling gives when it is not one of "ZeRO-N" / "ZeRON" /
 * "stage N": "ZeRO 1", "ZeRO Stage-2", "zero_stage=3", "zero stage: 1"; -1 when none.
 * "zero" then any of " -_=:" and an optional "stage", then one digit 0-3 not followed by
 * another digit. */
static int
zero_stage_in (const char *text)
{
  g_autofree char *t = g_ascii_strdown (text, -1);
  for (const char *p = strstr (t, "zero"); p != NULL; p = strstr (p + 1, "zero"))
    {
      const char *q = p + 4;
      while (*q != '\0' && strchr (" -_=:", *q) != NULL)
        q++;
      if (g_str_has_prefix (q, "stage"))
        for (q += 5; *q != '\0' && strchr (" -_=:", *q) != NULL; q++)
          ;
      if (*q >= '0' && *q <= '3' && !g_ascii_isdigit (q[1]))
        return *q - '0';
      /* the stage as a word ("ZeRO stage three", "ZeRO-two"; not recognised before) */
      if (stage_word (q) > 0)
        return stage_word (q);
    }
  return -1;
}

/* Whether a text names an FSDP scheme beside a ZeRO stage: NVIDIA's tables give FSDP and
 * ZeRO columns ("FSDP 1 (Megatron-FSDP; ZeRO 0: n/a)"), where ZeRO 0 is no run's stage */
static gboolean
names_fsdp_scheme (const char *text)
{
  static const char *const words[] = { "fsdp", "hsdp", "full_shard", "full shard",
                                       "hybrid_shard", "hybrid shard", "fully_shard", NULL };
  return contains_any_ci (text, words);
}

/* Whether any "ZeRO" of a text names stage 1, 2 or 3 (zero_stage_in at each), where the
 * first may be stage 0 ("ZeRO-0 in the baseline, ZeRO-1 here" is no ZeRO-0 run) */
static gboolean
names_zero_stage_1_to_3 (const char *text)
{
  g_autofree char *t = g_ascii_strdown (text, -1);
  for (const char *p = strstr (t, "zero"); p != NULL; p = strstr (p + 1, "zero"))
    if (zero_stage_in (p) >= 1)
      return TRUE;
  return FALSE;
}

/* Whether a sharding cell names ZeRO stage 0 first and nothing that shards or offloads
 * beside it: no stage 1-3 ("ZeRO-0/1", "stage 1 in the final run"), no FSDP scheme
 * (NVIDIA's tables' "FSDP 1 (...; ZeRO 0: n/a)"), no distributed optimizer, no offload.
 * Where any is named the cell keeps the reading it had before stage 0 was read
 * (regression audit of 7 Dec: "ZeRO-0 + Megatron distributed optimizer" read none) */
static gboolean
zero_stage_0_only (const char *text)
{
  static const char *const others[] = { "distributed optimizer", "distributed_optimizer",
                                        "distributed-optimizer", "offload", "zero-0/",
                                        "zero0/", "zero 0/", NULL };
  return zero_stage_in (text) == 0 && !names_zero_stage_1_to_3 (text) && stage_n_in (text) <= 0
         && !names_fsdp_scheme (text) && !contains_any_ci (text, others);
}

/* A ZeRO-1 or ZeRO-2 named (zero_stage_in: "ZeRO-2", "ZeRO 1", "zero2", "ZeRO stage 2")
 * and not said off (sharding_negated: "no ZeRO" names none) */
static gboolean
names_zero_1_or_2 (const char *t)
{
  const int stage = zero_stage_in (t);
  return (stage == 1 || stage == 2) && !sharding_negated (t);
}

/* "MiCS" as a word of its own (DeepSpeed's MiCS: ZeRO-3 within groups, replicated across) */
static gboolean
has_mics_word (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (const char *p = strstr (low, "mics"); p != NULL; p = strstr (p + 1, "mics"))
    if ((p == low || !g_ascii_isalpha (p[-1])) && !g_ascii_isalpha (p[4]))
      return TRUE;
  return FALSE;
}

/* Megatron-FSDP's --data-parallel-sharding-strategy value in the text ("optim",
 * "optim_grads", "optim_grads_params", "no_shard": megatron/core/distributed/fsdp, ZeRO-1,
 * 2, 3 and none), as a word of its own (a bare "optim" only as the whole cell or after
 * "strategy"): the sharding, or -1 when none is named ("no_shard"
 * is negated before this is asked) */
static int
megatron_fsdp_strategy (const char *t)
{
  static const struct { const char *word; PlanSharding sharding; } rows[] = {
    { "optim_grads_params", PLAN_SHARD_ZERO3 },
    { "optim_grads", PLAN_SHARD_ZERO2 },
    { "optim", PLAN_SHARD_ZERO1 },
  };
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      gsize n = strlen (rows[i].word);
      /* a bare "optim" only as the whole cell or a strategy's value ("sharding strategy
       * optim"), not in prose ("shards optim+grads") */
      if (rows[i].sharding == PLAN_SHARD_ZERO1 && strcmp (low, "optim") != 0
          && strstr (low, "strategy") == NULL)
        continue;
      for (const char *p = strstr (low, rows[i].word); p != NULL; p = strstr (p + 1, rows[i].word))
        if ((p == low || !(g_ascii_isalnum (p[-1]) || p[-1] == '_'))
            && !(g_ascii_isalnum (p[n]) || p[n] == '_'))
          return rows[i].sharding;
    }
  return -1;
}

/* The stage a ZeRO config key gives ("zero_optimization.stage=3", "zero_optimization:
 * {stage: 2}"): the digit 0-3 after "stage" past any of " =:{\"'", where the text names
 * zero; -1 when none */
static int
zero_config_stage (const char *text)
{
  g_autofree char *t = g_ascii_strdown (text, -1);
  if (strstr (t, "zero") == NULL)
    return -1;
  for (const char *p = strstr (t, "stage"); p != NULL; p = strstr (p + 1, "stage"))
    {
      const char *q = p + 5;
      while (*q != '\0' && strchr (" =:{\"'", *q) != NULL)
        q++;
      if (*q >= '0' && *q <= '3' && !g_ascii_isdigit (q[1]))
        return *q - '0';
      /* the stage as a word ("ZeRO (stage three)", "DeepSpeed ZeRO, stage two"); a stage
       * the cell states right after ZeRO comes first (the caller asks zero_stage_in
       * before: "ZeRO-1 (stage three was slower)" is ZeRO-1) */
      if (stage_word (q) > 0)
        return stage_word (q);
    }
  return -1;
}

/* The whole cell names plain data parallelism, no sharding: "DP", "pure DP", "DP only",
 * "plain DP", "data parallel", "DistributedDataParallel", "replicated", "unsharded" */
static gboolean
plain_data_parallel (const char *t)
{
  static const char *const whole[] = { "dp", "pure dp", "plain dp", "dp only", "vanilla dp",
                                       "data parallel", "data-parallel", "data parallelism",
                                       "pure data parallel", "plain data parallel",
                                       "data parallel only", "replicated",
                                       /* (not recognised before) */
                                       "unsharded", "not sharded", "no sharding", NULL };
  for (guint i = 0; whole[i] != NULL; i++)
    if (g_ascii_strcasecmp (t, whole[i]) == 0)
      return TRUE;
  return contains_ci (t, "distributeddataparallel") || contains_ci (t, "distributed data parallel");
}

/* FSDP2's fully_shard(reshard_after_forward=...) as the cell states it:
 * "reshard_after_forward true", "reshard_after_forward=False", "reshard_after_forward:
 * false": 1 / 0; torchtitan's [parallelism] fsdp_reshard_after_forward policy, quoted or
 * not: "always" 1, "never" 0, "default" -1 (its own rule: reshard unless under PP;
 * "never" read as full shard's zero3); -1 when the cell does not say */
static int
reshard_after_forward_in (const char *text)
{
  g_autofree char *t = g_ascii_strdown (text, -1);
  for (const char *p = strstr (t, "reshard_after_forward"); p != NULL;
       p = strstr (p + 1, "reshard_after_forward"))
    {
      const char *q = p + strlen ("reshard_after_forward");
      while (*q == ' ' || *q == ':' || *q == '=' || *q == '"' || *q == '\'')
        q++;
      if (g_str_has_prefix (q, "true") || g_str_has_prefix (q, "always")
          || (q[0] == '1' && !g_ascii_isdigit (q[1])))
        return 1;
      if (g_str_has_prefix (q, "false") || g_str_has_prefix (q, "never")
          || (q[0] == '0' && !g_ascii_isdigit (q[1])))
        return 0;
    }
  /* ... or said off in words: "no reshard after forward", "params not resharded after
   * forward", "without resharding after the forward" (these read as full shard's zero3),
   * "no FSDP resharding" (FSDP said off: the stack's default): 0 */
  static const char *const neg[] = { "no ", "not ", "without ", "never " };
  for (const char *p = strstr (t, "reshard"); p != NULL; p = strstr (p + 1, "reshard"))
    {
      if (p[7] == '_')
        continue;   /* reshard_after_forward, above */
      const char *q = p + 7;
      while (g_ascii_isalpha (*q))
        q++;
      gboolean after_fwd = g_str_has_prefix (q, " after forward")
                           || g_str_has_prefix (q, " after the forward");
      const char *w = p;
      if ((gsize) (p - t) >= 5 && strncmp (p - 5, "fsdp ", 5) == 0)
        w = p - 5;   /* "no FSDP resharding" */
      if (!after_fwd && w == p)
        continue;    /* "no reshard" alone: of what is not said */
      for (guint i = 0; i < G_N_ELEMENTS (neg); i++)
        {
          gsize b = strlen (neg[i]);
          if ((gsize) (w - t) >= b && strncmp (w - b, neg[i], b) == 0
              && (w - t == (gssize) b || !g_ascii_isalnum (w[-(gssize) b - 1])))
            return 0;
        }
    }
  return -1;
}

/* Parameters sharded as ZeRO-3 / FSDP do: "ZeRO-3", "ZeRO stage 3",
 * "zero_optimization.stage=3", "FSDP", "full shard", "fully sharded" */
static gboolean
params_sharded_named (const char *t)
{
  static const char *const keys[] = { "zero-3", "zero3", "fsdp", "full shard",
                                      "full_shard", "fully shard", "fully_shard", NULL };
  return contains_any_ci (t, keys) || zero_stage_in (t) == 3 || zero_config_stage (t) == 3
         || stage_n_in (t) == 3;
}

/* torch.distributed.optim.ZeroRedundancyOptimizer (the class name, one word): optimizer
 * states sharded over its process group, the data-parallel one by default (PyTorch docs:
 * "shards optimizer states across distributed data-parallel processes") */
static gboolean
names_zero_redundancy_optimizer (const char *t)
{
  return contains_ci (t, "zeroredundancyoptimizer");
}

/* Full sharding named as FSDP's mode, or as ZeRO-3: "full shard", "FULL_SHARD",
 * "full-shard", "ZeRO-3", "ZeRO3", "ZeRO stage 3" (zero_stage_in). Not FSDP's own name
 * ("Fully Sharded Data Parallel", FSDP2's "fully_shard"), which names no mode. */
static gboolean
full_shard_named (const char *t)
{
  static const char *const mode[] = { "full shard", "full_shard", "full-shard", "zero-3",
                                      "zero3", NULL };
  return contains_any_ci (t, mode) || zero_stage_in (t) == 3;
}

/* Fully sharded data parallelism as the stack runs it: zero3, or zero2 (one gather per
 * step) from a stack that keeps parameters unsharded after the forward, or under PP when
 * the stack does not reshard between micro-batches (torchtitan's FSDP2); the row's own
 * reshard_after_forward wins over the stack's default: true -> zero3 (an AutoModel config
 * that sets it where its parallelizer defaults to False), false -> zero2 (it was read as
 * zero3 on a stack that reshards: FSDP2 keeps the gathered parameters from the forward to
 * the backward, torch.distributed.fsdp.fully_shard's reshard_after_forward docs) */
static PlanSharding
fsdp_semantics (ResPublishedCase *c, const char *t, int pp)
{
  int reshard = reshard_after_forward_in (t);
  if (reshard == 1)
    return PLAN_SHARD_ZERO3;
  if (reshard == 0)
    return PLAN_SHARD_ZERO2;
  if (pp > 1 && !c->stack->fsdp_reshard_under_pp)
    return PLAN_SHARD_ZERO2;
  /* full sharding named as the mode ("FSDP2 (full shard)", "FULL_SHARD", "ZeRO-3") is
   * reshard_after_forward=True (FSDP2's fully_shard docs: True is FULL_SHARD, False
   * SHARD_GRAD_OP): it wins over a stack's default of False as a stated True does
   * (nemo-automodel read all three as zero2), though not over a pipeline that keeps the
   * parameters between micro-batches (above: torchtitan's FSDP2 under PP) */
  if (full_shard_named (t))
    return PLAN_SHARD_ZERO3;
  if (!c->stack->fsdp_reshard_after_forward)
    return PLAN_SHARD_ZERO2;
  return PLAN_SHARD_ZERO3;
}

/* A degree after one of torchtitan's data-parallel keys ([parallelism]
 * data_parallel_shard_degree / data_parallel_replicate_degree, or the dp_shard /
 * dp_replicate of its ParallelDims), past " =:": the number, -1 as torchtitan's "the
 * rest of the ranks"; 0 when the cell names neither key */
static int
titan_degree (const char *low, const char *long_key, const char *short_key)
{
  const char *keys[] = { long_key, short_key };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + 1, keys[i]))
      {
        const char *q = p + strlen (keys[i]);
        if (g_ascii_isalpha (*q) || *q == '_')
          continue;
        while (*q == ' ' || *q == ':' || *q == '=')
          q++;
        if (q[0] == '-' && q[1] == '1' && !g_ascii_isdigit (q[2]))
          return -1;
        if (g_ascii_isdigit (*q))
          return (int) MIN (g_ascii_strtoll (q, NULL, 10), G_MAXINT);
      }
  return 0;
}

/* The sharding schemes' names, lower case: their mentions said off are blanked before the
 * rules read the cell (blank_negated). FSDP's own names first (a cell that says only these
 * off says FSDP off, not sharding: map_sharding), then the others (ZeRO, hybrid sharding,
 * MiCS, FSDP's SHARD_GRAD_OP mode, torch's ZeroRedundancyOptimizer: "DDP
 * (ZeroRedundancyOptimizer disabled)" and "ZeroRedundancyOptimizer off" are none, where
 * they read zero1). */
static const char *const fsdp_keys[] = {
  "fsdp", "fully shard", "fully_shard", NULL };
/* (FSDP's FULL_SHARD mode said off, "not full shard" / "full shard off", is the mode off,
 * not FSDP: none, as it was before FSDP said off took the stack's default) */
static const char *const other_sharding_keys[] = {
  "hsdp", "zero", "hybrid_shard", "hybrid shard", "hybrid-shard", "shard_grad_op", "mics",
  "zeroredundancyoptimizer", "full shard", "full_shard", NULL };

/* The cell names PyTorch's own DDP, not Megatron's wrapper: "plain PyTorch DDP",
 * "torch DDP", "--use-torch-ddp", "--ddp-impl torch" (Megatron-LM's flag for it, which
 * cannot hold the distributed optimizer) */
static gboolean negated_before (const char *low, const char *p);

static gboolean
names_torch_ddp (const char *t)
{
  static const char *const keys[] = { "pytorch ddp", "torch ddp", "torch-ddp", "torch_ddp",
                                      "ddp-impl torch", "ddp_impl torch", "ddp-impl=torch",
                                      "ddp_impl=torch", "torch.nn.parallel", NULL };
  /* a mention said off ("Megatron DDP, not PyTorch DDP") names no torch DDP */
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (guint i = 0; keys[i] != NULL; i++)
    for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + 1, keys[i]))
      if (!negated_before (low, p) && !mention_off (low, p, strlen (keys[i]), NULL))
        return TRUE;
  return FALSE;
}

/* Colossal-AI's Gemini named in a sharding cell as a word of its own ("gemini",
 * "GeminiPlugin", "gemini_auto"), not said off nor compared with ("ZeRO-2 (... faster than
 * Gemini here)" read as Gemini's zero3) */
static gboolean
names_gemini (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  static const char *const compared[] = { "than", "vs", "versus", "over", "unlike" };
  for (const char *p = strstr (low, "gemini"); p != NULL; p = strstr (p + 1, "gemini"))
    {
      if ((p != low && g_ascii_isalnum (p[-1])) || negated_before (low, p)
          || mention_off (low, p, 6, NULL))
        continue;
      char w[16];
      gboolean cmp = FALSE;
      if (word_before (low, p, w) != NULL)
        for (guint i = 0; i < G_N_ELEMENTS (compared) && !cmp; i++)
          cmp = g_str_equal (w, compared[i]);
      if (!cmp)
        return TRUE;
    }
  return FALSE;
}

/* Whether `t` names a ZeRO stage or LowLevelZero beside Gemini: then which of the two ran
 * is not told by their order ("ZeRO-2 (Gemini OOMs at this size)", "Gemini OOMs at this
 * size; ZeRO-2 used", "Gemini (vs ZeRO-2: 1.3x)"), and the ZeRO stage is read, as it was
 * before Gemini was known */
static gboolean
names_zero_beside_gemini (const char *t)
{
  static const char *const zero[] = { "zero", "lowlevelzero", "low level zero", NULL };
  return contains_any_ci (t, zero);
}

/* Gemini's placement of its chunks off the GPU: the gemini_auto plugin, or a placement
 * policy "auto" or "cpu" (placement_policy="auto", "auto placement", "CPU placement");
 * "auto" or "cpu" elsewhere ("chunk size auto-searched", "HybridAdam (CPU/GPU Adam
 * kernels)") is not (both were refused as offloading) */
static gboolean
gemini_places_off_gpu (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  if (strstr (low, "gemini_auto") != NULL || strstr (low, "gemini auto") != NULL
      || strstr (low, "gemini-auto") != NULL || strstr (low, "auto placement") != NULL
      || strstr (low, "cpu placement") != NULL)
    return TRUE;
  for (const char *p = strstr (low, "placement"); p != NULL; p = strstr (p + 1, "placement"))
    {
      const char *q = p + 9;
      if (g_str_has_prefix (q, "_policy") || g_str_has_prefix (q, " policy"))
        q += 7;
      while (*q == ' ' || *q == '=' || *q == ':' || *q == '"' || *q == '\'')
        q++;
      if (g_str_has_prefix (q, "auto") || g_str_has_prefix (q, "cpu"))
        return TRUE;
    }
  return FALSE;
}

/* Whether `t` says the run is plain data parallelism, all of it: "pure data parallel",
 * "data parallel only", "DP only", "plain DP", "unsharded", "parameters replicated"; not
 * "replicated" of some tensors ("embeddings replicated"), nor a word in a clause about
 * the moment the parameters are gathered or a pass ("parameters are all-gathered to their
 * unsharded form layer by layer", "params stay unsharded for backward": FSDP's own
 * working, read as no sharding) */
static gboolean
says_pure_data_parallel (const char *t)
{
  static const char *const keys[] = { "pure data parallel", "data parallel only",
                                      "data-parallel only", "data parallelism only", "dp only",
                                      "pure dp", "plain dp", "vanilla dp", "plain ddp",
                                      "plain data parallel", "unsharded", "parameters replicated",
                                      "params replicated", "weights replicated", NULL };
  static const char *const phase[] = { "gather", "forward", "backward", "during", NULL };
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (guint i = 0; keys[i] != NULL; i++)
    for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + 1, keys[i]))
      {
        g_autofree char *clause = clause_at (low, p, ",;(", ",;()");
        if (!contains_any_ci (clause, phase))
          return TRUE;
      }
  return FALSE;
}

/* Where the lower-case `low` first gives FSDP a count of exactly 1 ("FSDP 1", "fsdp=1",
 * "FSDP: 1"): the offset just past the 1, or -1 */
static gssize
fsdp_count_one_end (const char *low)
{
  for (const char *p = strstr (low, "fsdp"); p != NULL; p = strstr (p + 4, "fsdp"))
    {
      const char *q = p + 4;
      while (*q == ' ' || *q == '=' || *q == ':')
        q++;
      if (q > p + 4 && q[0] == '1' && !g_ascii_isdigit (q[1]) && q[1] != '.')
        {
          /* not "FSDP 1 node" (a count of nodes) */
          const char *r = q + 1;
          while (*r == ' ')
            r++;
          if (!g_str_has_prefix (r, "node"))
            return q + 1 - low;
        }
    }
  return -1;
}

/* Whether `t` gives FSDP a count of exactly 1 (fsdp_count_one_end) */
static gboolean
fsdp_count_one (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  return fsdp_count_one_end (low) >= 0;
}

/* NVIDIA's performance tables print FSDP as a switch, 1 on and 0 off, and a cell that
 * gives FSDP 1 may gloss the value it did not take: "FSDP 1 (the table's nomenclature;
 * FSDP 0 would be plain DDP with the distributed optimizer)", "FSDP 1 (use FSDP; 0 =
 * unsharded DDP)", "FSDP 1 vs. FSDP 0 (parameters replicated) in the next row". What
 * follows the 0 up to the end of its clause (a ',' or ';' outside brackets, or the ')'
 * that closes the bracket it is in) describes the other setting, not the run: `text`
 * with it overwritten by '#' (positions kept; the "FSDP 0" itself is left for
 * blank_negated), where the cell gives FSDP a count of 1 (fsdp_count_one_end) and,
 * after it, a 0 after "fsdp", or before '=' / ':' with no word right before it (a 0
 * after another word is that word's value: "EP 0: n/a for dense" was blanked as FSDP 0's
 * gloss, and the explain line said so). Those words read as the run's ("plain DDP" as none, "the
 * distributed optimizer" as zero1). Sets *any when something was blanked. g_free the
 * result. */
static char *
blank_fsdp_zero_gloss (const char *text, gboolean *any)
{
  char *out = g_strdup (text);
  *any = FALSE;
  g_autofree char *low = g_ascii_strdown (text, -1);
  const gssize one = fsdp_count_one_end (low);
  if (one < 0)
    return out;
  for (const char *z = strchr (low + one, '0'); z != NULL; z = strchr (z + 1, '0'))
    {
      /* a 0 of its own ("100", "1.0", "v0" are not) */
      if ((z > low && (g_ascii_isalnum (z[-1]) || z[-1] == '.' || z[-1] == '_'))
          || g_ascii_isalnum (z[1]) || z[1] == '.' || z[1] == '_')
        continue;
      const char *a = z;
      while (a > low && (a[-1] == ' ' || a[-1] == '=' || a[-1] == ':'))
        a--;
      const char *n = z + 1;
      while (*n == ' ')
        n++;
      const gboolean after_fsdp = a - low >= 4 && strncmp (a - 4, "fsdp", 4) == 0;
      if (!after_fsdp && *n != '=' && *n != ':')
        continue;
      /* a 0 right after another word is that word's value ("cpu_offloading_num_layers=0:
       * no offload", "ZeRO 0: n/a", "offload 0: none"), not FSDP 0: the words after it are
       * that key's (they were blanked, and the offload they said off read on) */
      if (!after_fsdp && a > low && (g_ascii_isalnum (a[-1]) || a[-1] == '_'))
        continue;
      const char *e = z + 1;
      for (int depth = 0; *e != '\0'; e++)
        {
          if (*e == '(')
            depth++;
          else if (*e == ')' && depth-- == 0)
            break;
          else if ((*e == ',' || *e == ';') && depth == 0)
            break;
        }
      if (e > z + 1)
        {
          memset (out + (z + 1 - low), '#', (gsize) (e - z - 1));
          *any = TRUE;
        }
      z = e - 1;
    }
  return out;
}

/* Beside FSDP said off, the cell says there is no sharding at all: "no FSDP (data
 * parallel only)", "no FSDP, pure DP", "no FSDP; optimizer not sharded", "no FSDP,
 * replicated" (these read the stack's zero1) */
static gboolean
says_unsharded (const char *t)
{
  static const char *const keys[] = { "data parallel only", "data-parallel only", "dp only",
                                      "pure dp", "plain dp", "vanilla dp", "pure data parallel",
                                      "plain data parallel", "not sharded", "unsharded",
                                      "no sharding", "replicated", NULL };
  return contains_any_ci (t, keys);
}

/* An empty sharding cell (or one that says it is not stated): the distributed optimizer
 * (zero1) where the row names NeMo or Megatron-Core or its notes quote
 * --overlap-param-gather, on a stack that has it; LitGPT's HYBRID_SHARD; else the stack's
 * documented default */
static PlanSharding
unstated_sharding (const ResPublishedCase *c, const char *framework, const char *notes)
{
  /* NeMo's GPT configs set optim.name distributed_fused_adam; --overlap-param-gather,
   * which the Megatron-Core benchmark notes list, exists only with
   * --use-distributed-optimizer (added to Megatron-LM in 2022). */
  /* (on a stack that has the distributed optimizer: "NeMo AutoModel" names NeMo but
   * runs FSDP2, nemo-automodel's stack, whose default is its own) */
  if ((names_nemo (framework) || contains_ci (framework, "Megatron-Core")
       || notes_flag_on (notes, "overlap-param-gather"))
      && ((c->stack->offers_sharding >> PLAN_SHARD_ZERO1) & 1))
    return PLAN_SHARD_ZERO1;
  /* LitGPT's pretraining script shards with FSDPStrategy(sharding_strategy=
   * "HYBRID_SHARD") on more than one device (litgpt/pretrain.py): hsdp, one server's
   * group (was the pytorch-fsdp stack's FULL_SHARD, and before that not recognised) */
  if (contains_ci (framework, "litgpt") || contains_ci (framework, "lit-gpt"))
    return PLAN_SHARD_HSDP;
  /* the stack's documented default (frameworks/presets): megatron-lm-2021 none
   * (Megatron-LM before the distributed optimizer), megatron-core zero1 (its
   * benchmark scripts' --use-distributed-optimizer; also for a framework cell that
   * names no stack, "MCore", or a year from 2023) */
  return (PlanSharding) c->stack->default_sharding;
}

static gboolean negated_before (const char *low, const char *p);
static gboolean negated_after (const char *a);

/* `text` (written over) with every mention of one of `keys` (NULL-terminated, lower case)
 * that the words around it say off blanked by '#': negated_before ("instead of FSDP", "we
 * did not use FSDP") or negated_after ("FSDP was not used", "FSDP was not needed",
 * "use_torch_fsdp2: False"), the mention taken with its stage (mention_off's span:
 * "ZeRO-3") and the letters, digits and '_' joined to it ("fsdp2") */
static void
blank_said_off (char *text, const char *const *keys)
{
  g_autofree char *low = g_ascii_strdown (text, -1);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      const gsize n = strlen (keys[i]);
      for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + n, keys[i]))
        {
          gsize span = n;
          mention_off (low, p, n, &span);
          const char *e = p + span;
          while (g_ascii_isalnum (*e) || *e == '_')
            e++;
          if (negated_before (low, p) || negated_after (e))
            memset (text + (p - low), '#', (gsize) (e - p));
        }
    }
}

/* Whether `t` names activation offloading only to say it off: every mention ("offload",
 * "offloading", "offloaded", with a "CPU" / "activation" / "host" before it) said off by
 * offload_negated's forms at that mention, mention_off, negated_before or negated_after:
 * "full (w/o CPU offload)", "full, offloading not used", "full (CPU offload was not
 * needed)", "full recompute instead of CPU offload" (each skipped as offloading without a
 * layer count, where it is full). One mention said off does not say another off where
 * that one says itself where it offloads or that it is on: "optimizer offload disabled,
 * param offload to CPU" offloads the parameters (it read as no offloading, since any of
 * offload_negated's forms in the cell said all of it off). */
/* Whether the words after an offload mention (from `e`, its end) say where it offloads
 * or that it is on: "to CPU", "to NVMe", "to host", ": cpu", "=true", "enabled", "on" */
static gboolean
offload_affirmed_after (const char *e)
{
  while (*e == ' ' || *e == ':' || *e == '=')
    e++;
  static const char *const yes[] = { "to cpu", "to the cpu", "to nvme", "to host",
                                     "to the host", "to dram", "cpu", "nvme", "true",
                                     "enabled", "on" };
  return word_among_at (e, yes, G_N_ELEMENTS (yes));
}

/* Where the value of an offload key begins in a DeepSpeed config pasted as JSON or YAML,
 * from `e`, the key's end: past the quotes, ':' / '=' and spaces, and past a '{' with the
 * "device" key inside it ('"offload_optimizer": {"device": "none"}' -> 'none"}',
 * "offload_optimizer: {device: cpu, pin_memory: true}" -> "cpu, ..."); `e` itself where
 * no brace or quote follows (the plain forms read as before) */
static const char *
offload_key_value (const char *e)
{
  const char *v = e;
  gboolean json = FALSE;
  for (;; v++)
    if (*v == '"' || *v == '\'' || *v == '{')
      json = TRUE;
    else if (*v != ' ' && *v != ':' && *v != '=')
      break;
  if (!json)
    return e;
  /* the brace's "device" key (DeepSpeed's offload_param / offload_optimizer sections) */
  if (g_str_has_prefix (v, "device") && !g_ascii_isalnum (v[6]) && v[6] != '_')
    for (v += 6; *v == '"' || *v == '\'' || *v == ' ' || *v == ':' || *v == '='; v++)
      ;
  return v;
}

/* Whether the clause of the offload mention at `p` in `low` (back to a '(', ';' or ',' and
 * on to a ')', ';' or ',') is about another row, configuration or table: "offload on for
 * the 70B row", "offload to CPU only in the 175B config", "(offload: true in row 7)",
 * "offloading on in the appendix runs", "(vs. offload to NVMe in Table 5)" */
static gboolean
offload_clause_elsewhere (const char *low, const char *p)
{
  g_autofree char *clause = clause_at (low, p, "(;,", ");,");
  static const char *const words[] = { " row", "config", "only for", "only in", "appendix",
                                       "table", "vs", "versus", "other model", "other run",
                                       " model", NULL };
  /* "as in the other runs": this row too */
  return contains_any_ci (clause, words) && !contains_ci (clause, "as in");
}

static gboolean
offload_said_off (const char *t)
{
  static const char *const quals[] = { "cpu", "gpu", "host", "activation", "activations" };
  g_autofree char *low = g_ascii_strdown (t, -1);
  /* two passes: the first finds whether any mention is said off (negated_somewhere), the
   * second decides */
  gboolean negated_somewhere = offload_negated (t);
  for (int pass = negated_somewhere ? 1 : 0; pass < 2; pass++)
    {
      gboolean any = FALSE;
      for (const char *p = strstr (low, "offload"); p != NULL; p = strstr (p + 7, "offload"))
        {
          if (p > low && g_ascii_isalnum (p[-1]))
            continue;
          const char *e = p + 7;
          while (g_ascii_isalpha (*e))
            e++;   /* "offloading", "offloaded" */
          const char *m = p;
          for (gboolean more = TRUE; more;)
            {
              more = FALSE;
              const char *b = m;
              while (b > low && (b[-1] == ' ' || b[-1] == '-' || b[-1] == '_'))
                b--;
              for (guint i = 0; i < G_N_ELEMENTS (quals) && !more; i++)
                {
                  const gsize n = strlen (quals[i]);
                  if ((gsize) (b - low) >= n && strncmp (b - n, quals[i], n) == 0
                      && (b - low == (gssize) n || !g_ascii_isalnum (b[-(gssize) n - 1])))
                    {
                      m = b - n;
                      more = TRUE;
                    }
                }
            }
          any = TRUE;
          /* offload_negated's forms at this mention: those before it ("no cpu offload") are
           * negated_before's, past the "cpu" above; those after it ("offload: no", "offload
           * disabled") are read in this mention's clause, up to a ',', ';' or ')' */
          const gsize clause = strcspn (p, ",;)");
          g_autofree char *own = g_strndup (p, clause);
          /* ... and a verdict past the key's own suffix ("offload_param: none",
           * "offload_optimizer: false") */
          const char *ek = e;
          if (*ek == '_' || *ek == '-')
            while (*ek == '_' || *ek == '-' || g_ascii_isalpha (*ek))
              ek++;
          /* ... or inside a pasted config's braces and quotes ('"offload_optimizer":
           * {"device": "none"}', skipped as offloading) */
          const char *ev = offload_key_value (ek);
          const gboolean off = offload_negated (own) || mention_off (low, m, (gsize) (e - m), NULL)
                               || negated_before (low, m) || negated_after (e)
                               || (ek != e && negated_after (ek))
                               || (ev != ek && negated_after (ev));
          /* where the text says offloading off somewhere (offload_negated), another mention
           * turns it on only where it says so itself ("optimizer offload disabled, param
           * offload to CPU"); a mention that reports a trial, a reason or another row
           * ("no offload; offloading was 2x slower", "no CPU offload (offload tested in row
           * 12)") leaves it off, as the whole cell read before */
          if (pass == 0)
            {
              negated_somewhere |= off;
              continue;
            }
          if (!off && (!negated_somewhere
                       || (offload_affirmed_after (ev) && !offload_clause_elsewhere (low, p))))
            return FALSE;
        }
      if (pass == 1)
        return any;
    }
  return FALSE;
}

/* Whether `t` names ZeRO-Infinity only to say it off: every "infinity" (with a "ZeRO-" /
 * "ZeRO " / "ZeRO_" before it) said off by mention_off, negated_before or negated_after
 * ("DeepSpeed ZeRO-3 (not ZeRO-Infinity)" read as offloading, the stack's zero1) */
static gboolean
infinity_said_off (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  gboolean any = FALSE;
  for (const char *p = strstr (low, "infinity"); p != NULL; p = strstr (p + 8, "infinity"))
    {
      const char *m = p, *e = p + 8;
      if (p - low >= 5 && strncmp (p - 5, "zero", 4) == 0 && strchr ("- _", p[-1]) != NULL)
        m = p - 5;
      any = TRUE;
      if (!mention_off (low, m, (gsize) (e - m), NULL) && !negated_before (low, m)
          && !negated_after (e))
        return FALSE;
    }
  return any;
}

/* An empty sharding cell beside a framework cell that names a ZeRO stage or FSDP, not
 * said off ("HF Accelerate + DeepSpeed ZeRO-3", "PyTorch FSDP"; off by mention_off,
 * negated_before or negated_after: "FSDP was not used", "instead of FSDP", "fsdp2:
 * False"): that scheme, read as the cell's (ZeRO-3 and FSDP by fsdp_semantics), and the
 * explain line says where it came from; FALSE where the framework names neither, names
 * ZeRO without a stage, or names hybrid sharding, offloading or ZeRO-Infinity not said
 * off (offload_said_off, infinity_said_off: "PyTorch FSDP (CPU offload not used)",
 * "DeepSpeed ZeRO-3 (not ZeRO-Infinity)"; the unstated rule then applies: "DeepSpeed
 * ZeRO-3 + CPU offload" read as DeepSpeed's default, zero1). */
static gboolean
sharding_from_framework (ResPublishedCase *c, const char *framework, int pp, PlanSharding *out)
{
  gboolean off = FALSE;
  g_autofree char *no_fsdp = blank_negated (framework, fsdp_keys, &off);
  g_autofree char *fw = blank_negated (no_fsdp, other_sharding_keys, &off);
  /* ... and those said off by the words around them ("Megatron-LM; FSDP was not used",
   * "NeMo (use_torch_fsdp2: False)", "NeMo (FSDP was not needed)": zero3, where the
   * stack's default is zero1) */
  blank_said_off (fw, fsdp_keys);
  blank_said_off (fw, other_sharding_keys);
  if (contains_ci (fw, "hsdp") || contains_ci (fw, "hybrid") || contains_ci (fw, "mics")
      || (contains_ci (fw, "offload") && !offload_said_off (fw))
      || (contains_ci (fw, "infinity") && !infinity_said_off (framework)))
    return FALSE;
  const int stage = zero_stage_in (fw);
  if (stage == 1 || stage == 2)
    {
      *out = stage == 1 ? PLAN_SHARD_ZERO1 : PLAN_SHARD_ZERO2;
      c->sharding_why = "the cell is empty: the framework cell names the ZeRO stage";
      return TRUE;
    }
  if (stage == 3 || contains_ci (fw, "fsdp") || contains_ci (fw, "fully sharded")
      || contains_ci (fw, "fully_shard"))
    {
      *out = fsdp_semantics (c, fw, pp);
      c->sharding_why = stage == 3 ? "the cell is empty: the framework cell names the ZeRO stage"
                                   : "the cell is empty: the framework cell names FSDP";
      return TRUE;
    }
  return FALSE;
}

static gboolean
map_sharding (ResPublishedCase *c, const char *text, const char *framework, const char *notes,
              const char *source, int pp, PlanSharding *out, int *hsdp_shard, int *group_gpus)
{
  /* a scheme named only to say it was not used is no scheme of the row: "FSDP (not used)"
   * was zero3 (precision reads "(not used)" as off). A cell that names schemes only to
   * say them off is none, as "FSDP off" is. */
  gboolean fsdp_off = FALSE, other_off = FALSE, zero_gloss = FALSE;
  g_autofree char *own = blank_fsdp_zero_gloss (text, &zero_gloss);
  g_autofree char *no_fsdp = blank_negated (own, fsdp_keys, &fsdp_off);
  g_autofree char *t = g_strstrip (blank_negated (no_fsdp, other_sharding_keys, &other_off));
  gboolean said_off = fsdp_off || other_off;
  g_autofree char *shown = g_strstrip (g_strdup (text));   /* as written, for a skip */
  *hsdp_shard = 0;
  *group_gpus = 0;
  if (cell_unstated (t))
    *t = '\0';
  g_autofree char *low = g_ascii_strdown (t, -1);
  int titan_shard = titan_degree (low, "data_parallel_shard_degree", "dp_shard");
  int titan_replicate = titan_degree (low, "data_parallel_replicate_degree", "dp_replicate");
  if (*t == '\0')
    {
      if (!sharding_from_framework (c, framework, pp, out))
        *out = unstated_sharding (c, framework, notes);
    }
  else if (sharding_negated (t)
           || zero_stage_0_only (shown))
    /* ... or ZeRO stage 0 named first, in the cell as written ("ZeRO-0 (we opted for
     * ZeRO-0, meaning no optimizer state sharding)", SmolLM3): ZeRO off, nothing sharded.
     * Its gloss's "no" took the ZeRO for said off, and the "optimizer state sharding" left
     * read zero1 (audit of 7 Dec) */
    *out = PLAN_SHARD_NONE;
  else if (g_str_equal (t, "1") || g_str_equal (t, "2") || g_str_equal (t, "3"))
    /* a bare stage number in this column: DeepSpeed's zero_optimization.stage ("0" is
     * negated above) */
    *out = (PlanSharding) (PLAN_SHARD_ZERO1 + (t[0] - '1'));
  else if (titan_shard != 0 || titan_replicate != 0)
    {
      /* torchtitan's degrees (torchtitan config Parallelism: "When [replicate] is greater
       * than 1 ... If data_parallel_shard_degree is also greater than 1, the parallelism
       * method used is HSDP ... Otherwise ... DDP"; shard -1, its default, takes the
       * ranks left): "dp_shard=64", "data_parallel_shard_degree 8,
       * data_parallel_replicate_degree 8". They were not recognised. */
      int shard = titan_shard != 0 ? titan_shard : -1;   /* unstated: its default */
      if (titan_replicate > 1 && shard != 1)
        {
          *out = PLAN_SHARD_HSDP;
          *hsdp_shard = shard > 1 ? shard : -titan_replicate;
        }
      /* HSDP named beside a shard degree alone ("HSDP, dp_shard=8 (one node)"): hybrid
       * with that group (it read FSDP over every rank) */
      else if (shard > 1 && (contains_ci (t, "HSDP") || contains_ci (t, "hybrid")))
        {
          *out = PLAN_SHARD_HSDP;
          *hsdp_shard = shard;
        }
      else if (shard != 1)
        *out = fsdp_semantics (c, t, pp);
      else
        *out = PLAN_SHARD_NONE;
    }
  else if (contains_ci (t, "HSDP") || contains_ci (t, "HYBRID_SHARD")
           || contains_ci (t, "hybrid shard") || contains_ci (t, "hybrid-shard")
           || has_mics_word (t))
    {
      /* DeepSpeed's MiCS shards within groups of mics_shard_size and replicates across
       * them: hybrid sharding. FSDP's _HYBRID_SHARD_ZERO2 (SHARD_GRAD_OP within the node)
       * is read as HYBRID_SHARD, its "2" not a group size */
      *out = PLAN_SHARD_HSDP;
      g_autofree char *no_z2 = g_strdup (t);
      for (char *z = strstr (no_z2, "ZERO2"); z != NULL; z = strstr (z, "ZERO2"))
        memset (z, '_', 5);
      /* -R: R replicas, the caller divides; 0 (none stated, "mics_shard_size=8" read as a
       * shard): a group of GPUs the text states ("MiCS: parameters sharded across 128
       * GPUs", which took one server's 8), else one server, the caller's */
      /* a shard or replica count the text names by its word first ("shard_size=8",
       * "dp_shard=8", "4 replicas": hsdp_shard_size_in's own), then a shard group of
       * whole nodes ("HSDP (sharding within 2 nodes)", "2-node shard groups", "shard
       * within 4 nodes of 8 GPUs": the nodes' GPUs, where one server's or the first
       * number after "hsdp" was taken), then hsdp_shard_size_in's first number */
      *hsdp_shard = hsdp_named_count_in (no_z2);
      if (*hsdp_shard == 0 && c->cluster != NULL)
        {
          g_autofree char *low = g_ascii_strdown (no_z2, -1);
          int nodes = count_after_word (low, "within");
          const char *after = NULL;
          if (nodes > 0 && (after = strstr (low, "within")) != NULL)
            {
              /* the clause must speak of sharding, not of replicas or the job ("shard
               * within 2 nodes", not "replicate within 2 nodes", "job fits within 4
               * nodes") */
              const char *cb = after;
              while (cb > low && strchr ("(,;:", cb[-1]) == NULL)
                cb--;
              g_autofree char *clause = g_strndup (cb, (gsize) (after - cb));
              /* the count must name nodes: "within 2 nodes", not "within 8 GPUs" */
              const char *w = after + 6;
              while (*w == ' ')
                w++;
              while (g_ascii_isdigit (*w))
                w++;
              while (*w == ' ')
                w++;
              if (!g_str_has_prefix (w, "node") && !g_str_has_prefix (w, "server")
                  && !g_str_has_prefix (w, "host"))
                nodes = 0;
              /* ... or the verb after the nodes, as a label's value ("within 2 nodes:
               * shard; across: replicate", which took one server's group) */
              while (g_ascii_isalpha (*w))
                w++;
              while (*w == ' ' || *w == ':' || *w == '=' || *w == '-')
                w++;
              if ((strstr (clause, "shard") == NULL && !g_str_has_prefix (w, "shard"))
                  || strstr (clause, "replicat") != NULL)
                nodes = 0;
            }
          if (nodes <= 0)
            nodes = count_before_word (low, "-node shard");
          if (nodes <= 0)
            nodes = count_before_word (low, " node shard");
          /* (a clause's nodes that are all of the job's are its size, no shard group of
           * HSDP: "HSDP with FSDP across 8 nodes and replication across 8 ranks" on 64
           * GPUs read zero3 over all of them) */
          if (nodes <= 0)
            {
              nodes = shard_nodes_in_clause (low);
              if ((gint64) nodes * (gint64) c->cluster->levels[0].count >= c->n_gpus)
                nodes = 0;
            }
          if (nodes > 0)
            *group_gpus = nodes * (int) c->cluster->levels[0].count;
        }
      if (*group_gpus == 0 && *hsdp_shard == 0)
        {
          *hsdp_shard = hsdp_shard_size_in (no_z2);
          if (*hsdp_shard == 0)
            *group_gpus = shard_gpus_in (no_z2);
        }
    }
  else if (hsdp_in_words (t) >= 0)
    {
      *out = PLAN_SHARD_HSDP;
      *hsdp_shard = hsdp_in_words (t);
    }
  else if (maxtext_hsdp_shard (t) > 0)
    {
      *out = PLAN_SHARD_HSDP;
      *hsdp_shard = maxtext_hsdp_shard (t);
    }
  else if ((contains_ci (t, "offload") && !offload_said_off (t))
           || (contains_ci (t, "ZeRO-Infinity") && !infinity_said_off (t)))
    /* DeepSpeed ZeRO-Offload / ZeRO-Infinity, FSDP CPUOffload: optimizer steps (and
     * parameters) in host or NVMe memory, which no plan models */
    return skip (c, "zero_stage_or_fsdp '%s': optimizer or parameter offloading to host / "
                 "NVMe memory is not modelled", shown);
  else if (contains_ci (t, "ZeRO++") || contains_ci (t, "zeropp"))
    *out = PLAN_SHARD_ZERO3;   /* qwZ / hpZ / qgZ not modelled: ZeRO-3's traffic */
  else if (names_gemini (t) && !names_zero_beside_gemini (t))
    {
      /* (a ZeRO stage or Colossal-AI's LowLevelZeroPlugin named beside Gemini is the run's
       * and Gemini another's: "ZeRO-2 (LowLevelZeroPlugin); Gemini was slower") */
      /* Colossal-AI's Gemini (GeminiPlugin): parameters, gradients and optimizer states
       * in chunks sharded over the data-parallel group, gathered chunk by chunk for the
       * forward and backward (Colossal-AI docs, "Gemini": ZeRO-3 with a chunk-based
       * memory manager); placement_policy "static" keeps them on the GPU by default,
       * "auto" or a CPU placement moves chunks to host memory, which no plan models */
      if (gemini_places_off_gpu (t))
        return skip (c, "zero_stage_or_fsdp '%s': Gemini's auto or CPU placement moves "
                     "parameter chunks and optimizer states to host memory, which is not "
                     "modelled (hint: placement_policy static, or ZeRO-3)", shown);
      *out = PLAN_SHARD_ZERO3;
    }
  else if (params_sharded_named (t) && shard_gpus_in (t) > 0)
    {
      /* parameters sharded over a stated group of GPUs and replicated across the groups
       * ("ZeRO stage 3, parameters sharded across 128 GPUs, 4 copies" on 512 GPUs, the
       * MiCS paper's setting) is hybrid sharding with that group: it read as zero3 over all
       * 512. The caller turns GPUs into data-parallel ranks; a group of all of them is
       * zero3 */
      *out = PLAN_SHARD_HSDP;
      *group_gpus = shard_gpus_in (t);
    }
  else if (zero_config_stage (t) >= 1 && zero_stage_in (t) < 0)
    *out = (PlanSharding) (PLAN_SHARD_ZERO1 + (zero_config_stage (t) - 1));
  else if (zero_config_stage (t) == 0 && zero_stage_in (t) < 0)
    *out = PLAN_SHARD_NONE;   /* DeepSpeed's "stage": 0, ZeRO off */
  else if (megatron_fsdp_strategy (t) >= 0)
    *out = (PlanSharding) megatron_fsdp_strategy (t);
  else if ((contains_ci (t, "sharded data parallel") || contains_ci (t, "sharded_data_parallel"))
           && !contains_ci (t, "fsdp"))
    {
      /* SageMaker model parallelism's sharded data parallelism (SMP v1.11+, "splits the
       * state of a model (model parameters, gradients, and optimizer states) across GPUs
       * in a data parallel group", AWS docs) shards as ZeRO-3 does; with
       * sharded_data_parallel_degree N below dp it shards within groups of N (its MiCS
       * implementation) and replicates across them: hsdp of N. "sharded data parallel
       * (SageMaker SMP)" was not recognised */
      g_autofree char *low = g_ascii_strdown (t, -1);
      int degree = number_after (low, "degree");
      if (degree > 1)
        {
          *out = PLAN_SHARD_HSDP;
          *hsdp_shard = degree;
        }
      else
        *out = PLAN_SHARD_ZERO3;
    }
  else if (contains_ci (t, "ZeRO-1") || contains_ci (t, "ZeRO1") || stage_n_in (t) == 1
           || zero_stage_in (t) == 1 || contains_ci (t, "distributed optimizer")
           || contains_ci (t, "distributed-optimizer") || contains_ci (t, "distributed_optimizer")
           || contains_ci (t, "sharded optimizer") || contains_ci (t, "optimizer sharding")
           || contains_ci (t, "optimizer state sharding") || contains_ci (t, "optimizer sharded")
           || contains_ci (t, "optimizer states sharded")
           /* NeMo's optim.name distributed_fused_adam (Apex's DistributedFusedAdam, the
            * nemo stack's default: frameworks/presets/nemo.json) and the short names of
            * the distributed optimizer ("dist. optimizer", "DistOpt", "dist-opt") */
           || contains_ci (t, "distributed_fused_adam") || contains_ci (t, "distributed fused adam")
           || contains_ci (t, "distributed adam") || contains_ci (t, "dist. optimizer")
           || contains_ci (t, "dist optimizer") || contains_ci (t, "distopt")
           || contains_ci (t, "dist-opt") || contains_ci (t, "dist_opt")
           || contains_ci (t, "distributed_optim"))
    *out = PLAN_SHARD_ZERO1;
  else if (names_zero_redundancy_optimizer (t))
    {
      /* torch's ZeroRedundancyOptimizer shards the optimizer states over the data-parallel
       * group (ZeRO-1; it was not recognised); its gradients are DDP's all-reduce and its
       * updated shards are broadcast, where the distributed optimizer that zero1 models
       * reduce-scatters and all-gathers: one reduce-scatter of traffic fewer */
      *out = PLAN_SHARD_ZERO1;
      c->sharding_why = "torch ZeroRedundancyOptimizer: its DDP all-reduce and parameter "
                        "broadcasts read as the distributed optimizer's reduce-scatter and "
                        "all-gather";
    }
  else if (contains_ci (t, "ZeRO-2") || contains_ci (t, "ZeRO2") || stage_n_in (t) == 2
           || zero_stage_in (t) == 2
           || contains_ci (t, "shards optimizer+grads") || contains_ci (t, "SHARD_GRAD_OP"))
    *out = PLAN_SHARD_ZERO2;
  else if (fsdp_count_one (t) && says_pure_data_parallel (t))
    /* an FSDP axis of 1 beside words that say no sharding ("DP 64, FSDP 1 (pure data
     * parallel)", JAX-Toolbox's Pax tables: a mesh with an fsdp axis of size 1): a shard
     * group of one, plain data parallelism (it read zero3). NVIDIA's tables' "FSDP 1"
     * alone is their FSDP switch, on. */
    *out = PLAN_SHARD_NONE;
  else if (contains_ci (t, "ZeRO-3") || contains_ci (t, "ZeRO3") || stage_n_in (t) == 3
           || zero_stage_in (t) == 3
           || contains_ci (t, "FSDP") || contains_ci (t, "full shard")
           || contains_ci (t, "full_shard") || contains_ci (t, "fully shard")
           || contains_ci (t, "fully_shard") || contains_ci (t, "fully-shard")
           /* FSDP2's argument alone names FSDP2 ("reshard_after_forward=False") */
           || reshard_after_forward_in (t) >= 0)
    *out = fsdp_semantics (c, t, pp);
  else if (fsdp_off && !other_off && !starts_with_ci (t, "none") && !says_unsharded (t)
           && contains_ci (t, "DDP") && !names_torch_ddp (t)
           && (g_strcmp0 (c->stack->name, "megatron-core") == 0
               || g_strcmp0 (c->stack->name, "nemo") == 0)
           && unstated_sharding (c, framework, notes) == PLAN_SHARD_ZERO1)
    {
      /* FSDP said off with DDP named in its place, as NVIDIA's performance tables gloss
       * their FSDP column ("FSDP 0 (FSDP = 0: use DDP (Distributed Data Parallel))"): on
       * the Megatron stacks (megatron-core, nemo; not DeepSpeed, whose zero1 default is
       * its own ZeRO, nor a cell that names PyTorch's DDP), DDP is Megatron's
       * DistributedDataParallel wrapper, which runs with it (Megatron-Bridge's recipes set
       * use_distributed_optimizer), so the cell says nothing of the optimizer: the stack's
       * default, as "FSDP 0" alone reads. It read none, the optimizer unsharded (25 of 38
       * rows of the 26.02.01 tables then out of memory). "no FSDP, unsharded" / "none"
       * stay none. */
      *out = PLAN_SHARD_ZERO1;
      c->sharding_why = "FSDP said off and DDP named in its place (Megatron's DDP runs with "
                        "the distributed optimizer), not the sharded optimizer: the stack's "
                        "default";
    }
  else if (starts_with_ci (t, "none") || contains_ci (t, "DDP") || plain_data_parallel (t))
    *out = PLAN_SHARD_NONE;
  else if (g_ascii_strcasecmp (t, "ZeRO") == 0 || g_ascii_strcasecmp (t, "DeepSpeed ZeRO") == 0
           || (zero_word_in (t) && zero_stage_in (t) < 0))
    /* ZeRO named without its stage ("ZeRO", "combined with ZeRO", as the Falcon model
     * cards say): no default applies. DeepSpeed's documented default,
     * zero_optimization.stage 0, is ZeRO disabled, which the cell contradicts, and no
     * other ZeRO implementation documents one; so the row is skipped, saying what to
     * write */
    return skip (c, "zero_stage_or_fsdp '%s' names no ZeRO stage, and no ZeRO "
                 "implementation's default stage shards, whatever the framework (DeepSpeed's "
                 "zero_optimization.stage defaults to 0, ZeRO off) (hint: write "
                 "the stage the run used, 'ZeRO-1', 'ZeRO-2' or 'ZeRO-3', or 'none' to "
                 "predict it unsharded)", shown);
  else if (fsdp_off && !other_off && reshard_after_forward_in (text) == 0)
    /* "no FSDP resharding": the "no" is the resharding's, FSDP without resharding after
     * the forward (it read as FSDP off, the stack's default) */
    *out = PLAN_SHARD_ZERO2;
  else if (fsdp_off && !other_off)
    {
      /* FSDP said off and nothing else said ("no FSDP", "FSDP off", "FSDP = 0", "0 (no
       * FSDP)": NVIDIA's FSDP column): FSDP is off, which says nothing of the distributed
       * optimizer, so the row reads as an empty cell would where the stack's default is no
       * FSDP (none, or zero1: the distributed optimizer of nemo / megatron-core, DeepSpeed's
       * ZeRO-1); where the default is FSDP itself (zero2 / zero3 / hsdp: the FSDP stacks,
       * meta-llama3's FSDP without reshard, LitGPT's HYBRID_SHARD) it is what was said
       * off: none. They were all none, where the empty cell beside them was zero1. */
      PlanSharding d = says_unsharded (t) ? PLAN_SHARD_NONE
                                          : unstated_sharding (c, framework, notes);
      *out = d == PLAN_SHARD_ZERO1 ? d : PLAN_SHARD_NONE;
      if (d == PLAN_SHARD_ZERO1)
        c->sharding_why = "FSDP said off, not the sharded optimizer: the stack's default";
    }
  else if (said_off)
    *out = PLAN_SHARD_NONE;   /* every scheme it names said off: "ZeRO-3 (not used)" */
  else
    return skip (c, "zero_stage_or_fsdp '%s' not recognised", shown);
  /* ZeRO-1 / ZeRO-2 over a stated group ("zero1=8 (within the 8 GPUs of a node)", in GPUs;
   * "zero1=8", in data-parallel ranks): the caller says where that is not the whole
   * data-parallel group, which is what zero1 / zero2 shard over (no plan has a sub-group
   * for them) */
  if (*out == PLAN_SHARD_ZERO1 || *out == PLAN_SHARD_ZERO2)
    {
      *group_gpus = shard_gpus_in (t);
      static const char *const keys[] = { "zero1=", "zero-1=", "zero2=", "zero-2=" };
      for (guint i = 0; i < G_N_ELEMENTS (keys) && *group_gpus == 0 && *hsdp_shard == 0; i++)
        *hsdp_shard = number_after (low, keys[i]);
    }
  if (zero_gloss && c->sharding_why == NULL)
    c->sharding_why = "FSDP 1, NVIDIA's FSDP switch on: what the cell says of FSDP 0 is the "
                      "other setting's";
  (void) source;
  return TRUE;
}

/* V written after a label in a virtual_pipeline cell: "VP=5", "vpp 5", "V: 4",
 * "interleaved (V=4)", "interleaved, 2 chunks": the cell's only whole number, where the
 * cell names V ("v" as a word, "vp", "vpp", "virtual") or chunks or the interleaved
 * schedule; 0 otherwise (two numbers, or none: "interleaved (V not stated)") */
static gint64
vp_labelled (const char *cell)
{
  g_autofree char *t = g_ascii_strdown (cell, -1);
  gboolean named = strstr (t, "vp") != NULL || strstr (t, "virtual") != NULL
                   || strstr (t, "chunk") != NULL || strstr (t, "interleav") != NULL;
  for (const char *p = t; *p != '\0' && !named; p++)
    if (*p == 'v' && (p == t || !g_ascii_isalnum (p[-1])) && !g_ascii_isalpha (p[1]))
      named = TRUE;
  if (!named)
    return 0;
  gint64 found = 0;
  int numbers = 0;
  for (const char *p = t; *p != '\0'; p++)
    if (g_ascii_isdigit (*p))
      {
        char *end = NULL;
        gint64 n = g_ascii_strtoll (p, &end, 10);
        /* "1F1B" names the schedule, not V */
        if (g_str_has_prefix (end, "f1b"))
          end += 3;
        else
          {
            found = n;
            numbers++;
          }
        p = end - 1;
      }
  return numbers == 1 && found >= 1 && found <= (gint64) MODEL_MAX_LAYERS ? found : 0;
}

/* The pipeline schedules a step runs (plan.h pp_schedules) where `notes` state the local
 * batch of one ("LBS <n> (local batch per pipeline step)"): (global / dp) / n when n is a
 * whole number of micro-batches dividing the data-parallel rank's share; 1 otherwise. */
int
res_pub_pp_schedules (const char *notes, gint64 global_batch, gint64 dp, int micro_batch)
{
  const char *at = notes != NULL ? strstr (notes, "LBS ") : NULL;
  if (at == NULL || !contains_ci (at, "local batch per pipeline step") || dp <= 0
      || micro_batch <= 0 || global_batch % dp != 0)
    return 1;
  char *end = NULL;
  gint64 lbs = g_ascii_strtoll (at + 4, &end, 10);
  gint64 share = global_batch / dp;
  if (end == at + 4 || lbs <= 0 || lbs % micro_batch != 0 || share % lbs != 0)
    return 1;
  return (int) MIN (share / lbs, G_MAXINT);
}

/* Where one of `words` first starts a word (nothing, or no letter or digit, before it)
 * in lower-case `low`; NULL when none does */
static const char *
first_word_start (const char *low, const char *const *words)
{
  const char *first = NULL;
  for (guint i = 0; words[i] != NULL; i++)
    for (const char *p = strstr (low, words[i]); p != NULL && (first == NULL || p < first);
         p = strstr (p + 1, words[i]))
      if (p == low || !g_ascii_isalnum (p[-1]))
        {
          first = p;
          break;
        }
  return first;
}

/* A pipeline schedule a virtual_pipeline cell names instead of V: GPipe
 * (PLAN_SCHED_GPIPE), DualPipe (PLAN_SCHED_DUALPIPE), a zero-bubble schedule ("ZB-H1",
 * "ZB-V", "zero bubble": VP_ZERO_BUBBLE, not modelled), or a schedule said not to
 * interleave ("non-interleaved", "not interleaved", "no interleaving", "without
 * interleaving": PLAN_SCHED_1F1B); -1 when it names none. The zero-bubble names include
 * the automatically searched schedules of Qi et al. (ICLR 2024, Sec. 3 and Table 4),
 * "ZB-1p" and "ZB-2p" (activation memory limited to p and 2p micro-batches: the
 * repository's --enable-zero-bubble with --zero-bubble-max-pending-backward); they were
 * read as plain 1F1B, their "1" and "2" no V. Also with a space ("ZB 2p", "ZB 1p"), and
 * the V-shape schedules of Qi et al., "Pipeline Parallelism with Controllable Memory"
 * (NeurIPS 2024): V-ZB, V-Half and V-Min, built of the same split F, B and W passes (the
 * repository's --zero-bubble-v-schedule, with --zero-bubble-v-schedule-mem-setup half or
 * min); these read as plain 1F1B. A zero-bubble name counts only where the cell does
 * not first name another schedule, or "none" or "baseline": "1F1B (baseline for ZB-2p)"
 * and "none (ZB-2p in row 9)" are the 1F1B rows a paper compares with, and were skipped
 * as zero-bubble. Each name starts a word. */
#define VP_ZERO_BUBBLE 1000
static int
vp_schedule_named (const char *cell)
{
  static const char *const plain[] = { "non-interleaved", "non interleaved", "noninterleaved",
                                       "not interleaved", "no interleaving",
                                       "without interleaving", NULL };
  static const char *const zb[] = { "zero bubble", "zero-bubble", "zb-h1", "zb-h2", "zb-v",
                                    "zbh1", "zbv", "zb-1p", "zb-2p", "zb1p", "zb2p",
                                    "zb 1p", "zb 2p", "zb h1", "zb h2", "v-zb", "v-half",
                                    "v-min", NULL };
  static const char *const other[] = { "1f1b", "gpipe", "dualpipe", "none", "baseline",
                                       NULL };
  g_autofree char *low = g_ascii_strdown (cell, -1);
  const char *zb_at = first_word_start (low, zb), *other_at = first_word_start (low, other);
  if (zb_at != NULL)
    {
      /* a zero-bubble name is a remark, not the run's schedule, inside a bracket opened
       * after another schedule or "none" ("1F1B (baseline for ZB-2p)", "none (ZB-2p in
       * row 9)") or right after a comparison word ("interleaved 1F1B vs ZB-V"); prose
       * that names 1F1B first is still the zero-bubble run ("1F1B replaced by ZB-2p",
       * "1F1B-based ZB-H1", "none -> ZB-1p") */
      const char *open = NULL;
      for (const char *q = low; q < zb_at; q++)
        if (*q == '(')
          open = q;
        else if (*q == ')')
          open = NULL;
      gboolean aside = open != NULL && other_at != NULL && other_at < open;
      static const char *const cmp[] = { "vs ", "vs. ", "versus ", "than ", "compared to ",
                                         "compared with " };
      for (guint i = 0; i < G_N_ELEMENTS (cmp) && !aside; i++)
        {
          const gsize n = strlen (cmp[i]);
          aside = (gsize) (zb_at - low) >= n && strncmp (zb_at - n, cmp[i], n) == 0;
        }
      if (!aside)
        return VP_ZERO_BUBBLE;
    }
  if (contains_ci (cell, "dualpipe"))
    return PLAN_SCHED_DUALPIPE;
  if (contains_ci (cell, "gpipe"))
    return PLAN_SCHED_GPIPE;
  if (contains_any_ci (cell, plain))
    return PLAN_SCHED_1F1B;
  return -1;
}

/* Whether the notes name a zero-bubble schedule as the run's (for a virtual_pipeline cell
 * that names no schedule): one of Qi et al.'s names (ZB-H1, ZB-H2, ZB-V, ZB-1p, ZB-2p,
 * V-ZB, as vp_schedule_named reads them in the cell), or "zero bubble" / "zero-bubble"
 * followed by "schedule" or "pipeline" (not "almost zero bubble left", which describes a
 * result). Not where the name is said off ("not ZB-H1", "without zero-bubble
 * scheduling") or its sentence (bounded by '.' and ';') compares or names another run
 * ("vs", "than", "compared", "baseline", "unlike", "instead of", "other run"). The
 * adversarial audit of 7 Dec: "Zero-bubble (ZB-H1) pipeline schedule from Qi et al." with
 * an empty cell read 1F1B. */
static gboolean
notes_zero_bubble (const char *notes)
{
  if (notes == NULL || *notes == '\0')
    return FALSE;
  static const char *const names[] = { "zb-h1", "zb-h2", "zb-v", "zbh1", "zbv", "zb-1p",
                                       "zb-2p", "zb1p", "zb2p", "zb 1p", "zb 2p", "zb h1",
                                       "zb h2", "v-zb", "zero bubble", "zero-bubble", NULL };
  g_autofree char *low = g_ascii_strdown (notes, -1);
  for (guint i = 0; names[i] != NULL; i++)
    {
      const gsize n = strlen (names[i]);
      for (const char *p = strstr (low, names[i]); p != NULL; p = strstr (p + n, names[i]))
        {
          if ((p > low && g_ascii_isalnum (p[-1])) || g_ascii_isalnum (p[n]))
            continue;
          if (g_str_has_prefix (names[i], "zero"))
            {
              /* the schedule's name, up to a bracket: "zero-bubble (ZB-H1) pipeline
               * schedule", "zero bubble pipeline parallelism", "zero-bubble scheduling" */
              const char *w = p + n;
              while (*w == ' ' || *w == '-')
                w++;
              if (*w == '(')
                {
                  const char *close = strchr (w, ')');
                  w = close != NULL ? close + 1 : w;
                  while (*w == ' ')
                    w++;
                }
              if (!g_str_has_prefix (w, "schedul") && !g_str_has_prefix (w, "pipeline")
                  && !g_str_has_prefix (w, "pp"))
                continue;
            }
          if (negated_before (low, p) || sentence_has_any (low, p, other_run_words))
            continue;
          return TRUE;
        }
    }
  return FALSE;
}

/* Layers per model chunk where a virtual_pipeline cell gives them instead of V
 * (Megatron-LM's --num-layers-per-virtual-pipeline-stage, "layers per virtual stage: 4"):
 * the one number in the cell; 0 when the cell does not say so. A cell that says each
 * layer is a chunk states one layer per virtual stage, as the flag at 1 does: "1F1B-I:
 * interleaved 1F1B, maximum number of chunks (each transformer layer serves as a
 * chunk)" (Qi et al., ICLR 2024, whose repository runs it as
 * --num-layers-per-virtual-pipeline-stage 1: examples/pretrain_zero_bubble.sh), "one
 * layer per chunk", "1 layer per virtual stage". They took the "V not stated" rule,
 * which falls back to 1F1B where no V >= 2 splits the layers. The phrase starts a word
 * (first_word_start), and layers per chunk are layers per virtual stage: "11 layer
 * per chunk" of 88 layers over pp 8 is 11 (V = 1), where the "1 layer per chunk" inside
 * it read V = 88 / 8 = 11. */
static gint64
vp_layers_per_chunk (const char *cell)
{
  static const char *const keys[] = { "layers-per-virtual", "layers_per_virtual",
                                      "layers per virtual", "layers per chunk",
                                      "layer per chunk", "layers per model chunk",
                                      "layer per model chunk", NULL };
  /* read with "transformer " taken out: "each transformer layer is a chunk" */
  static const char *const one[] = { "each layer serves as a chunk",
                                     "each layer serves as a model chunk",
                                     "each layer is a chunk", "each layer is a model chunk",
                                     "one layer per chunk", "one layer per model chunk",
                                     "one layer per virtual stage",
                                     "one layer per virtual pipeline stage",
                                     "1 layer per chunk", "1 layer per model chunk",
                                     "1 layer per virtual stage",
                                     "1 layer per virtual pipeline stage", NULL };
  g_autofree char *low = g_ascii_strdown (cell, -1);
  GString *plain = g_string_new (NULL);
  for (const char *p = low; *p != '\0';)
    if (g_str_has_prefix (p, "transformer "))
      p += strlen ("transformer ");
    else
      g_string_append_c (plain, *p++);
  g_autofree char *said = g_string_free (plain, FALSE);
  if (first_word_start (said, one) != NULL)
    return 1;
  if (!contains_any_ci (cell, keys))
    return 0;
  gint64 found = 0;
  int numbers = 0;
  for (const char *p = cell; *p != '\0'; p++)
    if (g_ascii_isdigit (*p))
      {
        char *end = NULL;
        found = g_ascii_strtoll (p, &end, 10);
        numbers++;
        p = end - 1;
      }
  return numbers == 1 && found >= 1 && found <= (gint64) MODEL_MAX_LAYERS ? found : 0;
}

/* Whether lower-case notes say the run did not interleave: "non-interleaved" (or "non
 * interleaved", "noninterleaved") in a sentence that is not another run's ("A
 * non-interleaved baseline from the same blog was 9% slower" is the baseline's) */
static gboolean
says_non_interleaved (const char *low)
{
  static const char *const words[] = { "non-interleaved", "non interleaved", "noninterleaved" };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    for (const char *p = strstr (low, words[i]); p != NULL; p = strstr (p + 1, words[i]))
      if (!sentence_has_any (low, p, other_run_words))
        return TRUE;
  return FALSE;
}

/* The integer one of `keys` (configuration keys, lower case) is set to in the notes,
 * past '=', ':', quotes, spaces and "default"; 0 where none, where the run is said not to
 * interleave, or the key is said off, commented out, tried and turned off, or in a
 * sentence of another run (vp_key_in_notes, vp_layers_key_in_notes) */
static gint64
vp_value_of_keys (const char *notes, const char *const *keys)
{
  if (notes == NULL || *notes == '\0')
    return 0;
  /* the run said not to interleave decides ("INTERLEAVED_PIPELINE=4 was tried but turned
   * off for the final run (non-interleaved)"); a key commented out, tried or turned off
   * in its sentence is not the run's (audit of 8 Dec) */
  static const char *const off[] = { "commented", "turned off", "tried", "disabled",
                                     "switched off", NULL };
  g_autofree char *low = g_ascii_strdown (notes, -1);
  if (says_non_interleaved (low))
    return 0;
  for (guint i = 0; keys[i] != NULL; i++)
    {
      const gsize n = strlen (keys[i]);
      for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + n, keys[i]))
        {
          if ((p > low && (g_ascii_isalnum (p[-1]) || p[-1] == '_')) || g_ascii_isalnum (p[n])
              || p[n] == '_' || negated_before (low, p)
              || sentence_has_any (low, p, other_run_words) || sentence_has_any (low, p, off)
              || (p > low && (p[-1] == '#' || (p - low >= 2 && p[-2] == '#' && p[-1] == ' '))))
            continue;
          const char *a = p + n;
          while (*a == ' ' || *a == '=' || *a == ':' || *a == '"' || *a == '\'')
            a++;
          if (g_str_has_prefix (a, "default"))
            for (a += strlen ("default"); *a == ' ' || *a == ':' || *a == '='; a++)
              ;
          if (!g_ascii_isdigit (*a))
            continue;
          char *end = NULL;
          const gint64 v = g_ascii_strtoll (a, &end, 10);
          if (v >= 1 && v <= 1024 && !g_ascii_isalnum (*end))
            return v;
        }
    }
  return 0;
}

/* The V a row's notes give by a configuration key of the interleaved schedule, where
 * the virtual_pipeline cell is empty: NeMo's MLPerf and launcher key INTERLEAVED_PIPELINE
 * ("INTERLEAVED_PIPELINE=12", "INTERLEAVED_PIPELINE default 12"), NeMo's
 * virtual_pipeline_model_parallel_size, Megatron-LM's --virtual-pipeline-model-parallel-size
 * and --num-virtual-stages-per-pipeline-rank: the integer after the key (past '=', ':',
 * spaces and "default"); 0 where none, the key is said off or its sentence is another
 * run's. MLPerf's GPT-3 175B rows at 4,096-10,752 H100 (v3.1) left the cell empty with
 * "INTERLEAVED_PIPELINE default 12" in their notes: read without interleaving, +30..+55%;
 * at V = 12, -4..-8% (audit of 8 Dec). */
static gint64
vp_key_in_notes (const char *notes)
{
  static const char *const keys[] = { "interleaved_pipeline", "virtual_pipeline_model_parallel_size",
                                      "virtual-pipeline-model-parallel-size",
                                      "num-virtual-stages-per-pipeline-rank",
                                      "num_virtual_stages_per_pipeline_rank", NULL };
  return vp_value_of_keys (notes, keys);
}

/* Layers per model chunk the notes give by Megatron's key ("--num-layers-per-virtual-
 * pipeline-stage 6", "num_layers_per_virtual_pipeline_stage=4"), with the same guards as
 * vp_key_in_notes; 0 where none. The caller splits the layers by it as it does the cell's
 * (each read as V = 1: audit of 8 Dec). */
static gint64
vp_layers_key_in_notes (const char *notes)
{
  static const char *const keys[] = { "num_layers_per_virtual_pipeline_stage",
                                      "num-layers-per-virtual-pipeline-stage", NULL };
  return vp_value_of_keys (notes, keys);
}

/* Whether the notes name the interleaved 1F1B schedule as the run's: "interleaved 1F1B"
 * not after "non-" / "non " (DLPerf's rows: "Non-interleaved 1F1B schedule (2021 Megatron
 * default)" read interleaved with V not stated, V = 2; audit of 8 Dec) and not negated
 * ("not interleaved 1F1B", "no interleaved 1F1B") */
static gboolean
notes_interleaved_1f1b (const char *notes)
{
  if (notes == NULL || *notes == '\0')
    return FALSE;
  g_autofree char *low = g_ascii_strdown (notes, -1);
  /* the run said not to interleave decides ("We compare against interleaved 1F1B in Fig.
   * 5; this run uses non-interleaved 1F1B.") */
  if (says_non_interleaved (low))
    return FALSE;
  for (const char *p = strstr (low, "interleaved 1f1b"); p != NULL;
       p = strstr (p + 1, "interleaved 1f1b"))
    {
      if (p > low && g_ascii_isalpha (p[-1]))
        continue;   /* "uninterleaved 1F1B" */
      if (negated_before (low, p))
        continue;
      /* said off after the schedule's noun: "The interleaved 1F1B schedule was not used" */
      const char *a = p + strlen ("interleaved 1f1b");
      if (g_str_has_prefix (a, " schedule"))
        a += strlen (" schedule");
      if (negated_after (a) || g_str_has_prefix (a, " was not") || g_str_has_prefix (a, " is not"))
        continue;
      /* another run's ("Unlike the interleaved 1F1B runs in Table 3") */
      if (sentence_has_any (low, p, other_run_words))
        continue;
      return TRUE;
    }
  return FALSE;
}

/* The schedule is said to be interleaved but V is not given: a virtual_pipeline cell of
 * text ("interleaved", "yes"), the note "virtual_pipeline: interleaved", or the
 * framework cell naming the schedule ("torchtitan (... Interleaved 1F1B ...)"), or the
 * notes naming "Interleaved 1F1B" (not a looser word: SC'21 rows' notes say "Interleaved
 * schedule/microbatch not stated"). Then the "V not stated" rule applies (below). */
static gboolean
interleaved_v_unstated (const char *vp, const char *framework, const char *notes)
{
  static const char *const names[] = { "interleaved 1f1b", "interleaved-1f1b",
                                       "interleaved schedule", "interleaved pipeline" };
  if (vp_schedule_named (vp) >= 0)
    return FALSE;   /* "non-interleaved", GPipe, DualPipe */
  if (contains_ci (vp, "interleav") || starts_with_ci (vp, "yes")
      || strstr (notes, "virtual_pipeline: interleaved") != NULL
      || notes_interleaved_1f1b (notes))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (contains_ci (framework, names[i]))
      return TRUE;
  return FALSE;
}

/* The value after a label: "AC: full" -> "full", "recompute=selective" -> "selective";
 * NULL when the cell has no such label. */
static const char *
recompute_label (const char *t)
{
  static const char *const labels[] = { "ac", "activation checkpointing", "recompute",
                                        "activation recompute", "checkpointing",
                                        "activation recomputation", "recomputation",
                                        "gradient checkpointing",
                                        /* config keys: Hugging Face's and the FSDP
                                         * trainers' ("gradient_checkpointing=True",
                                         * "activation_checkpointing: false") */
                                        "activation_checkpointing", "gradient_checkpointing",
                                        /* Colossal-AI's examples' flag
                                         * ("gradient_checkpoint=True", refused) */
                                        "gradient_checkpoint", "grad_checkpoint",
                                        /* the short and config spellings, which name
                                         * checkpointing (recompute_yes) and so were read
                                         * as full whatever followed them ("Activation
                                         * Ckpt FALSE", "activation ckpt: false",
                                         * "checkpoint_activations=False", "checkpoint:
                                         * no") */
                                        "activation ckpt", "activation checkpoint",
                                        "gradient ckpt", "grad ckpt", "grad checkpointing",
                                        "checkpoint_activations", "checkpoint activations",
                                        "checkpoint-activations", "checkpoint",
                                        /* JAX's name (MaxText remat_policy: "remat full",
                                         * "remat_policy=full"; they were not recognised) */
                                        "remat", "remat_policy", "remat policy",
                                        "rematerialization" };
  /* values that may follow a label after a space alone ("AC full", "AC none", "activation
   * checkpointing off"); any other word after a space is not a value ("activation
   * checkpointing every layer") */
  static const char *const values[] = { "full", "selective", "none", "no", "off", "op", "sac",
                                        "yes", "true", "false", "on", "enabled", "disabled",
                                        "uniform", "block" };
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (starts_with_ci (t, labels[i]))
      {
        const char *p = t + strlen (labels[i]);
        gboolean spaced = *p == ' ';
        while (*p == ' ')
          p++;
        if (*p != ':' && *p != '=')
          {
            if (!spaced)
              continue;
            for (guint k = 0; k < G_N_ELEMENTS (values); k++)
              if (starts_with_ci (p, values[k]) && !g_ascii_isalnum (p[strlen (values[k])]))
                return p;
            continue;
          }
        for (p++; *p == ' '; p++)
          ;
        if (*p != '\0')
          return p;
      }
  /* Megatron's flag, with or without its dashes, and a space also before the value:
   * "--recompute-granularity full", "recompute_granularity: selective" */
  static const char *const flags[] = { "--recompute-granularity", "recompute-granularity",
                                       "recompute_granularity", "recompute granularity",
                                       /* NeMo 1's yaml key */
                                       "activations_checkpoint_granularity" };
  for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
    if (starts_with_ci (t, flags[i]))
      {
        const char *p = t + strlen (flags[i]);
        while (*p == ' ' || *p == ':' || *p == '=')
          p++;
        if (*p != '\0' && p > t + strlen (flags[i]))
          return p;
      }
  return NULL;
}

/* Whether "w/o" or "without" in `t` negates recompute: it precedes a word for it ("w/o
 * AC", "without activation checkpointing", "w/o recompute", and the short forms "w/o
 * ckpt", "w/o act ckpt", "w/o act. checkpointing", "w/o recomp", skipped before), past
 * "any", "the", "using" or "full" ("w/o full recompute"). Before anything else it says
 * that thing off, not recompute ("checkpoint-activations (w/o partition-activations)",
 * "activation checkpointing without TE", "uniform full (w/o TE)": read none, where they
 * are full). */
static gboolean
wo_recompute (const char *t)
{
  /* the words for recompute, each whole or begun ("checkpoint" takes "checkpointing",
   * "recomp" "recompute(d)" and "recomputation"); "activation" may be shortened to "act" or
   * "act." */
  static const char *const words[] = { "ac", "checkpoint", "ckpt", "recomp", "remat",
                                       "rematerialization", "activation checkpoint",
                                       "activations checkpoint", "activation recomp",
                                       "activation ckpt", "checkpoint activations",
                                       "checkpoint-activations", "gradient checkpoint",
                                       "grad checkpoint", "gradient ckpt", "grad ckpt" };
  static const char *const begun[] = { "checkpoint", "recomp", "activation checkpoint",
                                       "activations checkpoint", "activation recomp",
                                       "gradient checkpoint", "grad checkpoint" };
  static const char *const negs[] = { "w/o", "without" };
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (guint k = 0; k < G_N_ELEMENTS (negs); k++)
    {
      const gsize kn = strlen (negs[k]);
      for (const char *p = strstr (low, negs[k]); p != NULL; p = strstr (p + kn, negs[k]))
        {
          if ((p > low && g_ascii_isalnum (p[-1])) || g_ascii_isalnum (p[kn]))
            continue;
          const char *q = p + kn;
          for (gboolean more = TRUE; more;)
            {
              q += strspn (q, " ");
              more = FALSE;
              if (g_str_has_prefix (q, "any ") || g_str_has_prefix (q, "the "))
                q += 4, more = TRUE;
              else if (g_str_has_prefix (q, "using "))
                q += 6, more = TRUE;
              else if (g_str_has_prefix (q, "full "))
                q += 5, more = TRUE;
              else if (g_str_has_prefix (q, "act. ") || g_str_has_prefix (q, "act "))
                q += q[3] == '.' ? 5 : 4, more = TRUE;   /* "act ckpt": "ckpt" below */
              else if (g_str_has_prefix (q, "it") && !g_ascii_isalnum (q[2]))
                q += 2, more = TRUE;
              else if (g_str_has_prefix (q, "any") && !g_ascii_isalnum (q[3]))
                q += 3, more = TRUE;
            }
          /* "without" or "w/o" with nothing after it in the recompute cell ("without",
           * "trained without", "without any", "without (all activations kept)"): the
           * cell's own subject, recompute, said off (these read none before the word
           * list above; then they were not recognised: regression audit of 7 Dec) */
          if (*q == '\0' || strchr ("(),;.", *q) != NULL)
            return TRUE;
          for (guint i = 0; i < G_N_ELEMENTS (words); i++)
            {
              const gsize n = strlen (words[i]);
              gboolean prefix = FALSE;
              for (guint j = 0; j < G_N_ELEMENTS (begun); j++)
                prefix |= g_str_equal (words[i], begun[j]);
              if (strncmp (q, words[i], n) == 0 && (prefix || !g_ascii_isalnum (q[n])))
                return TRUE;
            }
        }
    }
  return FALSE;
}

/* Recompute said to be off: a whole cell "off" / "false" / "disabled" / "disable" / "0" /
 * "n" / a cross, or "off" as the last word ("AC off", "recompute off"), or "disabled"
 * anywhere ("activation checkpointing disabled"), or "w/o" / "without" before a word for
 * recompute (wo_recompute: "without recompute", "w/o AC"; "without" anywhere read
 * "activation checkpointing without TE" as none) */
static gboolean
recompute_off (const char *t)
{
  static const char *const no[] = { "off", "false", "disabled", "disable", "0", "n",
                                    "\xe2\x9c\x97", "\xe2\x9c\x98" };
  for (guint i = 0; i < G_N_ELEMENTS (no); i++)
    if (g_ascii_strcasecmp (t, no[i]) == 0)
      return TRUE;
  gsize n = strlen (t);
  if (n > 4 && g_ascii_strcasecmp (t + n - 4, " off") == 0)
    return TRUE;
  return wo_recompute (t) || contains_ci (t, "disabled");
}

/* Recompute said to be on without a kind: "yes", "true", "on", "enabled", "1", or
 * checkpointing named ("activation checkpointing", "gradient checkpointing",
 * "checkpoint activations") and not as selective. */
static gboolean
recompute_yes (const char *t)
{
  /* "AC" alone names activation checkpointing as the other words do; "y" and a check
   * mark answer a yes/no column as "yes" does */
  static const char *const yes[] = { "yes", "true", "on", "enabled", "1", "y", "ac",
                                     "\xe2\x9c\x93", "\xe2\x9c\x94" };
  static const char *const named[] = { "activation checkpointing", "activation checkpoint",
                                       "gradient checkpointing", "checkpoint activations",
                                       "checkpoint-activations", "activation recompute",
                                       "activation recomputation", "every layer",
                                       "all layers",
                                       /* short and config spellings ("grad checkpointing",
                                        * "activation ckpt", "checkpoint_activations": not
                                        * recognised before) */
                                       "grad checkpointing", "gradient ckpt", "grad ckpt",
                                       "activation ckpt", "checkpoint_activations",
                                       "activation_checkpointing", "gradient_checkpointing",
                                       "gradient_checkpoint", "grad_checkpoint" };
  for (guint i = 0; i < G_N_ELEMENTS (yes); i++)
    if (g_ascii_strcasecmp (t, yes[i]) == 0)
      return TRUE;
  /* "none (ran without activation checkpointing)", "no gradient checkpointing",
   * "activation checkpointing off" say off ("without" only before a word for recompute:
   * recompute_off) */
  if (starts_with_ci (t, "no") || contains_ci (t, "disabled")
      || contains_ci (t, "selective") || contains_ci (t, "partial")
      || (contains_ci (t, "offload") && !offload_said_off (t))
      || recompute_off (t))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    if (contains_ci (t, named[i]))
      return TRUE;
  return FALSE;
}

/* "SAC" as a word of its own (selective activation checkpointing) */
static gboolean
has_sac_word (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (const char *p = strstr (low, "sac"); p != NULL; p = strstr (p + 1, "sac"))
    if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalnum (p[3]))
      return TRUE;
  return FALSE;
}

/* op-level selective AC: "(op)", "op-level", "op level", "per-op" */
static gboolean
is_op_level (const char *t)
{
  static const char *const op[] = { "(op)", "op-level", "op level", "per-op", "selective op",
                                     "op ac", "op sac", "op-sac", NULL };
  return contains_any_ci (t, op);
}

/* The layer count of a recompute cell that offloads activations to host memory:
 * "cpu_offloading_num_layers=20" / "cpu_offloading_num_layers 20" (Megatron's name), else
 * the first "N layer(s)" ("activations of 20 layers offloaded"); -1 without one. */
static int
offload_layer_count (const char *t)
{
  /* Megatron's key, and the label people write for it ("CPU Offloading Layers: 5",
   * Together AI's reports of the dgxc recipes: it was refused as offloading without a
   * layer count, or dropped after a "not stated"; audit of 7 Dec). Not a bare "offloaded
   * layers: N", which may be weights' (the regression audit's "offloaded layers: 3
   * (weights)" read as 3 recomputed layers) */
  static const char *const keys[] = { "cpu_offloading_num_layers", "cpu-offloading-num-layers",
                                      "cpu offloading num layers", "cpu_offloading_layers",
                                      "cpu offloading layers", NULL };
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (guint i = 0; keys[i] != NULL; i++)
    for (const char *k = strstr (low, keys[i]); k != NULL; k = strstr (k + 1, keys[i]))
      {
        const char *p = k + strlen (keys[i]);
        while (*p == ' ' || *p == '=' || *p == ':')
          p++;
        if (g_ascii_isdigit (*p))
          return (int) MIN (g_ascii_strtoll (p, NULL, 10), G_MAXINT);
      }
  for (const char *p = low; *p != '\0'; p++)
    if (g_ascii_isdigit (*p) && (p == low || (!g_ascii_isalnum (p[-1]) && p[-1] != '_')))
      {
        char *end = NULL;
        gint64 n = g_ascii_strtoll (p, &end, 10);
        const char *q = end;
        while (*q == ' ')
          q++;
        if (g_str_has_prefix (q, "layer"))
          return (int) MIN (n, G_MAXINT);
        p = end - 1;
      }
  return -1;
}

/* The number after the first of `keys` (NULL-terminated, lower case) in the lower-case
 * `low` that has one, past any of " =:" ("num_layers=4", "num-ckpt-layers: 10"); -1 when
 * none has */
static int
count_after_key (const char *low, const char *const *keys)
{
  for (guint i = 0; keys[i] != NULL; i++)
    for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + 1, keys[i]))
      {
        const char *q = p + strlen (keys[i]);
        while (*q == ' ' || *q == '=' || *q == ':')
          q++;
        if (g_ascii_isdigit (*q))
          return (int) MIN (g_ascii_strtoll (q, NULL, 10), G_MAXINT);
      }
  return -1;
}

/* The layer count a recompute cell gives Megatron's method: the number after
 * "recompute_num_layers" / "recompute-num-layers" / "num_layers" / "num-layers" (NeMo's
 * activations_checkpoint_num_layers too), or "N layer(s)"; 0 when none */
static int
recompute_layers_in (const char *t)
{
  static const char *const keys[] = { "num_layers", "num-layers", "num layers", NULL };
  g_autofree char *low = g_ascii_strdown (t, -1);
  const int n = count_after_key (low, keys);
  return n >= 0 ? n : MAX (offload_layer_count (t), 0);   /* "N layers" */
}

/* Whether a text sets the TP-communication overlap off by its key, in any case and with
 * '=' or ':' ("tp_comm_overlap=False", the dgxc recipes' environment
 * "TP_COMM_OVERLAP=False", "tp_comm_overlap: false", NeMo 1's "ub_tp_comm_overlap:
 * False"); only the exact
 * "tp_comm_overlap=False" in the notes was read, and not in the framework cell where
 * Together AI's re-runs of the dgxc recipes put it (audit of 7 Dec) */
static gboolean
tp_comm_overlap_key_off (const char *t)
{
  static const char *const offs[] = { "false", "0", "off", "no", NULL };
  /* words that make a clause another run's ("the baseline run had tp_comm_overlap: false",
   * "=false for the 1-node ablation only", "unlike Llama runs (...)"): the key there says
   * nothing of this row (audit of 7 Dec); only in the other forms: the exact
   * "tp_comm_overlap=False" the notes were read by before keeps its reading in any
   * clause (a known leftover: "the 8B recipe sets tp_comm_overlap=False" reads off) */
  static const char *const elsewhere[] = { "baseline", "ablation", "only", "unlike", "other",
                                           "recipe", "paper", "instead", "previous", "earlier",
                                           "except", NULL };
  if (t == NULL)
    return FALSE;
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (const char *p = strstr (low, "tp_comm_overlap"); p != NULL;
       p = strstr (p + 1, "tp_comm_overlap"))
    {
      /* NeMo 1's "ub_tp_comm_overlap" is the same switch; another key's tail is not */
      const gboolean ub = p - low >= 3 && strncmp (p - 3, "ub_", 3) == 0
                          && (p - low == 3 || !(g_ascii_isalnum (p[-4]) || p[-4] == '_'));
      if (p > low && (g_ascii_isalnum (p[-1]) || p[-1] == '_') && !ub)
        continue;
      const char *q = p + strlen ("tp_comm_overlap");
      if (*q == '"' || *q == '\'')
        q++;   /* a quoted key: {"tp_comm_overlap": false} */
      while (*q == ' ')
        q++;
      if (*q != '=' && *q != ':')
        continue;
      q++;
      while (*q == ' ' || *q == '"' || *q == '\'')
        q++;
      gboolean off = FALSE;
      for (guint i = 0; offs[i] != NULL && !off; i++)
        off = g_str_has_prefix (q, offs[i]) && !g_ascii_isalnum (q[strlen (offs[i])])
              && q[strlen (offs[i])] != '-' && q[strlen (offs[i])] != '_';
      if (!off)
        continue;
      /* the exact form read before ("CommOverlapConfig(tp_comm_overlap=False) (its other
       * GPUs' configs pass True)", row 832) keeps its reading whatever the clause says */
      if (strncmp (t + (p - low), "tp_comm_overlap=False", 21) == 0)
        return TRUE;
      g_autofree char *clause = clause_at (low, p, ";.", ";.");
      if (!contains_any_ci (clause, elsewhere))
        return TRUE;
    }
  return FALSE;
}

/* What a text says of Megatron-LM's --fp8-param-gather (NeMo's and Megatron-Bridge's
 * fp8_param_gather, NeMo 1's fp8_params, Megatron-Bridge's fp8_param): 1 where it names
 * the key with a true value or as a bare flag ("--fp8-param-gather", "fp8_param_gather=True",
 * "fp8_params: true", "fp8_params = FP8" as the NeMo launcher rows list it, "fp8_params"),
 * or names fp8 parameters gathered ("fp8 param gather",
 * "FP8 parameter all-gather"); 0 where the value is false ("fp8_param_gather=False",
 * "fp8_params: 0") or the mention is negated ("no fp8_param_gather", "without
 * --fp8-param-gather"); -1 where it says nothing, or only in a clause about another run
 * (the words tp_comm_overlap_key_off skips). */
static int
fp8_param_gather_said (const char *t)
{
  static const char *const keys[] = { "fp8_param_gather", "fp8-param-gather", "fp8_params",
                                      "fp8_param", "fp8 param gather", "fp8 parameter gather",
                                      "fp8 param all-gather", "fp8 parameter all-gather",
                                      NULL };
  static const char *const ons[] = { "true", "1", "on", "yes", "fp8", NULL };
  static const char *const offs[] = { "false", "0", "off", "no", "none", NULL };
  static const char *const elsewhere[] = { "baseline", "ablation", "unlike", "other", "paper",
                                           "instead", "previous", "earlier", "except",
                                           /* a trial, a conditional, a default or another
                                            * run's setting (regression audit of 7 Dec:
                                            * "=True was tried first but ran out of
                                            * memory", "=True for the 8B run, False for
                                            * this run") */
                                           "tried", "attempt", "would", "could", "default",
                                           "for the ", NULL };
  /* a bare key said off later in its clause ("fp8_param_gather (...) was not used",
   * "... is incompatible with X, so off") */
  static const char *const off_words[] = { "not used", "not enabled", "disabled", " off",
                                           "was not", "is not", "false", NULL };
  if (t == NULL || *t == '\0')
    return -1;
  g_autofree char *low = g_ascii_strdown (t, -1);
  int said = -1;
  for (guint k = 0; keys[k] != NULL; k++)
    for (const char *p = strstr (low, keys[k]); p != NULL; p = strstr (p + 1, keys[k]))
      {
        const gsize n = strlen (keys[k]);
        /* the key whole: not another key's tail ("mxfp8_params"), nor the head of a
         * longer one ("fp8_param" in "fp8_param_gather", read by its own entry) */
        if (p > low && (g_ascii_isalnum (p[-1]) || p[-1] == '_'))
          continue;
        if (g_ascii_isalnum (p[n]) || p[n] == '_' || (p[n] == '-' && g_ascii_isalpha (p[n + 1])))
          continue;
        g_autofree char *clause = clause_at (low, p, ";.", ";.");
        const char *q = p + n;
        if (*q == '"' || *q == '\'')
          q++;   /* a quoted key: {"fp8_param_gather": true} */
        while (*q == ' ')
          q++;
        const gboolean valued = *q == '=' || *q == ':';
        if (!valued)
          {
            /* the rest of the clause after the bare key */
            g_autofree char *rest = g_strndup (q, strcspn (q, ";."));
            if (contains_any_ci (rest, off_words))
              {
                said = 0;
                continue;
              }
          }
        if (contains_any_ci (clause, elsewhere))
          continue;
        int v = 1;
        if (valued)
          {
            q++;
            while (*q == ' ' || *q == '"' || *q == '\'')
              q++;
            v = -1;
            for (guint i = 0; ons[i] != NULL && v < 0; i++)
              if (g_str_has_prefix (q, ons[i]) && !g_ascii_isalnum (q[strlen (ons[i])]))
                v = 1;
            for (guint i = 0; offs[i] != NULL && v < 0; i++)
              if (g_str_has_prefix (q, offs[i]) && !g_ascii_isalnum (q[strlen (offs[i])]))
                v = 0;
            if (v < 0)
              continue;
          }
        else if (negated_before (low, p) || negated_after (q))
          v = 0;
        /* a key set off wins over one set on elsewhere in the text */
        said = said == 0 ? 0 : v;
      }
  return said;
}

/* The dtype a text says gradients are reduced in: a key ("reduce_dtype", "grad_reduce_dtype",
 * "grad_sync_dtype", "reduce dtype") with a 16- or 32-bit float after it ("torch.bfloat16",
 * "bf16", "float32", "fp32"), or Megatron's "grad_reduce_in_fp32" with a true or false
 * value, or "gradients reduced in bf16 / fp32"; PLAN_PREC_BF16 or PLAN_PREC_FP32, -1 where
 * it says none */
static int
grad_reduce_dtype_said (const char *t)
{
  /* the gradients' own keys and phrases: not a collective named alone ("TP reduce-scatter
   * in bf16", "reduce-scatter in fp32 for the logits") nor another tensor's dtype ("loss
   * all-reduce dtype fp32"), nor a clause about another run (regression audit of 7 Dec) */
  static const char *const keys[] = { "grad_reduce_dtype", "reduce_dtype", "grad_sync_dtype",
                                      "gradients reduced in", "grads reduced in",
                                      "gradient reduction in", "gradients all-reduced in",
                                      "grads all-reduced in", "gradient all-reduce in",
                                      "gradients reduce-scattered in", NULL };
  static const char *const elsewhere[] = { "baseline", "unlike", "instead", "previous",
                                           "earlier", "other run", "paper", NULL };
  if (t == NULL || *t == '\0')
    return -1;
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (guint k = 0; keys[k] != NULL; k++)
    for (const char *p = strstr (low, keys[k]); p != NULL; p = strstr (p + 1, keys[k]))
      {
        if (p > low && (g_ascii_isalnum (p[-1]) || p[-1] == '_') && k < 3)
          continue;
        g_autofree char *clause = clause_at (low, p, ";.", ";.");
        if (contains_any_ci (clause, elsewhere))
          continue;
        const char *q = p + strlen (keys[k]);
        while (*q == ' ' || *q == '=' || *q == ':' || *q == '"' || *q == '\'')
          q++;
        if (g_str_has_prefix (q, "torch."))
          q += 6;
        if (g_str_has_prefix (q, "bfloat16") || g_str_has_prefix (q, "bf16"))
          return PLAN_PREC_BF16;
        if (g_str_has_prefix (q, "float32") || g_str_has_prefix (q, "fp32"))
          return PLAN_PREC_FP32;
      }
  /* Megatron-LM's flag as written on its command line (--grad-reduce-in-bf16), not
   * negated */
  for (const char *p = strstr (low, "grad-reduce-in-bf16"); p != NULL;
       p = strstr (p + 1, "grad-reduce-in-bf16"))
    {
      g_autofree char *clause = clause_at (low, p, ";.", ";.");
      if (!contains_any_ci (clause, elsewhere) && !negated_before (low, p)
          && !negated_after (p + strlen ("grad-reduce-in-bf16")))
        return PLAN_PREC_BF16;
    }
  for (const char *p = strstr (low, "grad_reduce_in_fp32"); p != NULL;
       p = strstr (p + 1, "grad_reduce_in_fp32"))
    {
      g_autofree char *clause = clause_at (low, p, ";.", ";.");
      if (contains_any_ci (clause, elsewhere))
        continue;
      const char *q = p + strlen ("grad_reduce_in_fp32");
      while (*q == ' ' || *q == '=' || *q == ':' || *q == '"' || *q == '\'')
        q++;
      if (g_str_has_prefix (q, "true") || (*q == '1' && !g_ascii_isdigit (q[1])))
        return PLAN_PREC_FP32;
      if (g_str_has_prefix (q, "false") || (*q == '0' && !g_ascii_isdigit (q[1])))
        return PLAN_PREC_BF16;
    }
  return -1;
}

/* IBM's fms-fsdp named ("fms-fsdp", "fms_fsdp"), or the foundation-model-stack its
 * training code lives in (the IBM FSDP blogs: "IBM foundation-model-stack Llama") */
static gboolean
names_fms_fsdp (const char *t)
{
  static const char *const names[] = { "fms-fsdp", "fms_fsdp", "fms fsdp",
                                       "foundation-model-stack", NULL };
  return t != NULL && contains_any_ci (t, names);
}

/* Whether the row runs fms-fsdp: its framework cell names it and reads as the pytorch-fsdp
 * stack (not fms-fsdp named as a comparison beside Megatron-LM, nor a model ported to
 * torchtitan: regression audit of 7 Dec) */
static gboolean
runs_fms_fsdp (const ResPublishedCase *c, const char *framework)
{
  return names_fms_fsdp (framework) && g_strcmp0 (c->stack->name, "pytorch-fsdp") == 0;
}

/* Whether a recompute cell gives Megatron-LM's (2019-2022) and GPT-NeoX's own flag,
 * --checkpoint-num-layers ("checkpoint_num_layers 1", GLM-130B's Table 11): with
 * --checkpoint-activations every layer is recomputed, in checkpoints of N layers
 * (Megatron-LM's ParallelTransformer._checkpointed_forward walks all layers N at a time),
 * Megatron-Core's uniform method. Not NeMo's activations_checkpoint_num_layers, which
 * goes with its activations_checkpoint_method (block or uniform, read apart). It read as
 * the block method over N layers of each chunk, the rest stored (GLM-130B out of memory
 * at 58.9 GiB; audit of 7 Dec). */
static gboolean
names_checkpoint_num_layers (const char *t)
{
  static const char *const keys[] = { "checkpoint_num_layers", "checkpoint-num-layers",
                                      "checkpoint num layers", NULL };
  g_autofree char *low = g_ascii_strdown (t != NULL ? t : "", -1);
  for (guint i = 0; keys[i] != NULL; i++)
    for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + 1, keys[i]))
      {
        /* the key's own start: not the tail of NeMo's key ("activations_checkpoint_...") */
        const char *k = p;
        while (k > low && (g_ascii_isalnum (k[-1]) || k[-1] == '_'))
          k--;
        if (k == p && !(p - low >= 2 && p[-1] == '-' && g_ascii_isalpha (p[-2])))
          return TRUE;
      }
  return FALSE;
}

/* The layer count of a partial full recompute: "N of M layers" / "N out of M layers"
 * (N, and M in *of), YaFSDP's "num-ckpt-layers N", else recompute_layers_in's
 * "recompute_num_layers N" / "N layers" (*of 0); 0 when the text gives none. With
 * `loose` FALSE only the first two forms count (a note's "48 layers" is the model's
 * shape, not a checkpoint count). */
static int
ckpt_layers_in (const char *t, int *of, gboolean loose)
{
  g_autofree char *low = g_ascii_strdown (t != NULL ? t : "", -1);
  *of = 0;
  for (const char *p = low; *p != '\0'; p++)
    if (g_ascii_isdigit (*p) && (p == low || (!g_ascii_isalnum (p[-1]) && p[-1] != '_')))
      {
        char *end = NULL;
        gint64 n = g_ascii_strtoll (p, &end, 10);
        const char *q = end;
        while (*q == ' ')
          q++;
        if (g_str_has_prefix (q, "out of "))
          q += 7;
        else if (g_str_has_prefix (q, "of "))
          q += 3;
        else
          {
            p = end - 1;
            continue;
          }
        while (*q == ' ')
          q++;
        if (g_ascii_isdigit (*q))
          {
            gint64 m = g_ascii_strtoll (q, &end, 10);
            for (q = end; *q == ' '; q++)
              ;
            if (g_str_has_prefix (q, "layer") && n > 0 && m > 0 && n <= G_MAXINT
                && m <= G_MAXINT)
              {
                *of = (int) m;
                return (int) n;
              }
          }
        p = end - 1;
      }
  static const char *const keys[] = { "num-ckpt-layers", "num_ckpt_layers", "num ckpt layers",
                                      NULL };
  const int n = count_after_key (low, keys);
  if (n >= 0)
    return n;
  return loose ? recompute_layers_in (t) : 0;
}

/* "all N layers" (the count the text gives after the word "all"): every layer; "all" as
 * a word of its own, followed by that count ("full, 4 layers (all stages)" and "small"
 * are no such thing) */
static gboolean
all_layers_said (const char *t, int n)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (const char *p = strstr (low, "all"); p != NULL; p = strstr (p + 1, "all"))
    {
      if (p > low && g_ascii_isalnum (p[-1]))
        continue;
      const char *q = p + 3;
      if (*q != ' ')
        continue;
      while (*q == ' ')
        q++;
      if (g_ascii_isdigit (*q) && g_ascii_strtoll (q, NULL, 10) == n)
        return TRUE;
    }
  return FALSE;
}

/* Megatron's block method named: "block" at the start, after a bracket, comma, '=' or ':'
 * or after the word "method" ("--recompute-method block", "full (block, 4 layers)"), not
 * a "transformer block" in prose */
static gboolean
block_method_named (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (const char *p = strstr (low, "block"); p != NULL; p = strstr (p + 1, "block"))
    {
      if (g_ascii_isalnum (p[5]) || p[5] == '_')
        continue;
      const char *q = p;
      while (q > low && q[-1] == ' ')
        q--;
      if (q == low || strchr ("(,=:", q[-1]) != NULL
          || (q - low >= 6 && strncmp (q - 6, "method", 6) == 0))
        return TRUE;
    }
  return FALSE;
}

/* Every N-th layer checkpointed (torchtitan's layer-level AC, selective_ac_option "N":
 * every N-th block wrapped, the rest keep everything): "every other layer", "every 2nd
 * layer", "every 3 layers", "selective_ac_option 2", "ac_freq=2": N; 1 for "every layer";
 * 0 when the cell says none of these */
static int
recompute_every_in (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  static const char *const keys[] = { "selective_ac_option", "ac_freq" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const char *p = strstr (low, keys[i]);
      if (p == NULL)
        continue;
      p += strlen (keys[i]);
      while (*p == ' ' || *p == '=' || *p == ':' || *p == '"' || *p == '\'')
        p++;
      if (g_ascii_isdigit (*p))
        return (int) MIN (g_ascii_strtoll (p, NULL, 10), G_MAXINT);
    }
  const char *p = strstr (low, "every ");
  if (p == NULL)
    return 0;
  p += 6;
  if (g_str_has_prefix (p, "other ") || g_str_has_prefix (p, "second "))
    return 2;
  if (g_str_has_prefix (p, "third "))
    return 3;
  if (g_str_has_prefix (p, "layer") || g_str_has_prefix (p, "block"))
    return 1;
  if (!g_ascii_isdigit (*p))
    return 0;
  char *end = NULL;
  gint64 n = g_ascii_strtoll (p, &end, 10);
  while (g_ascii_isalpha (*end))   /* "2nd", "3rd", "4th" */
    end++;
  while (*end == ' ')
    end++;
  return (g_str_has_prefix (end, "layer") || g_str_has_prefix (end, "block")) && n >= 1
           ? (int) MIN (n, G_MAXINT) : 0;
}

/* Whether a recompute cell checkpoints every n-th block or layer with n a letter: "every
 * n-th block", "every nth layer", "every k-th transformer block", "every n blocks" */
static gboolean
every_nth_unstated (const char *t)
{
  static const char *const offs[] = { "none", "no ", "off", "false", NULL };
  static const char *const elsewhere[] = { "unlike", "default", "baseline", "instead", NULL };
  g_autofree char *low = g_ascii_strdown (t, -1);
  /* a cell that says none first, or states n ("every nth layer (n=2)"): not this (the
   * regression audit of 7 Dec: "none (unlike fms-fsdp's every n-th block default)") */
  for (guint i = 0; offs[i] != NULL; i++)
    if (g_str_has_prefix (low, offs[i]))
      return FALSE;
  for (const char *n = low; (n = strpbrk (n, "nk")) != NULL; n++)
    {
      const char *q = n + 1;
      while (*q == ' ')
        q++;
      if ((n == low || !g_ascii_isalnum (n[-1])) && *q == '=')
        {
          q++;
          while (*q == ' ')
            q++;
          if (g_ascii_isdigit (*q))
            return FALSE;
        }
    }
  for (const char *p = strstr (low, "every "); p != NULL; p = strstr (p + 1, "every "))
    {
      g_autofree char *clause = clause_at (low, p, ";.,()", ";.,()");
      if (contains_any_ci (clause, elsewhere))
        continue;
      const char *q = p + 6;
      if ((*q != 'n' && *q != 'k')
          || (g_ascii_isalpha (q[1]) && !g_str_has_prefix (q + 1, "th")))
        continue;
      q++;
      if (*q == '-')
        q++;
      if (g_str_has_prefix (q, "th"))
        q += 2;
      while (*q == ' ' || *q == '-')
        q++;
      if (g_str_has_prefix (q, "transformer "))
        q += strlen ("transformer ");
      if (g_str_has_prefix (q, "block") || g_str_has_prefix (q, "layer"))
        return TRUE;
    }
  return FALSE;
}

/* JAX checkpoint policies by name, MaxText's remat_policy values (its base.yml and
 * get_remat_policy in layers/decoders.py) and jax.checkpoint_policies' own, read into the
 * nearest recompute tandem models by what each saves; the rest of each layer is recomputed
 * in the backward pass:
 *   full (policy None), save_nothing, nothing_saveable: nothing saved -> full;
 *   everything_saveable: nothing recomputed -> none;
 *   minimal (every projection output saved: q, k, v, out, mlpwi, mlpwo; older MaxText:
 *     checkpoint_dots_with_no_batch_dims, the same weight matmuls), minimal_offloaded (the
 *     same outputs kept in host memory), checkpoint_dots, dots_with_no_batch_dims_saveable:
 *     the attention core and the element-wise ops recomputed, the linears' outputs kept
 *     -> selective (Korthikanti et al.'s attention-core recompute);
 *   minimal_with_context, minimal_flash (minimal plus the attention output "context"):
 *     only element-wise ops recomputed, no matmul and no attention -> none;
 *   save_dot_with_context_except_mlp, save_dot_except_mlp, save_dot_except_mlpwi,
 *     save_qkv_proj, qkv_proj_offloaded, save_out_proj: some attention projections saved
 *     (and mlpwo in save_dot_except_mlpwi), the MLP's input projections (two thirds of its
 *     FLOPs or more) recomputed with the rest -> full, the nearest (the shipped MaxText
 *     rows, "full (MaxText remat_policy save_qkv_proj: ...)", read so);
 *   custom: what it saves is in per-tensor config keys -> skipped, saying so.
 * The host copies of the *_offloaded policies are not modelled (explain says so). The
 * underscore names are read anywhere in the cell (they are MaxText's and JAX's alone);
 * "minimal" and "custom" only as the value of a remat label ("remat_policy=minimal",
 * "remat: minimal"). Sets *why (static) to what the explain output says. */
static const struct { const char *name; int kind; const char *why; } remat_policies[] = {
  { "save_dot_with_context_except_mlp", PLAN_RECOMPUTE_FULL,
    "JAX remat policy save_dot_with_context_except_mlp: the MLP recomputed, full the nearest" },
  { "save_dot_except_mlpwi", PLAN_RECOMPUTE_FULL,
    "JAX remat policy save_dot_except_mlpwi: attention core and MLP input projections "
    "recomputed, full the nearest" },
  { "save_dot_except_mlp", PLAN_RECOMPUTE_FULL,
    "JAX remat policy save_dot_except_mlp: attention core and MLP recomputed, full the nearest" },
  { "save_qkv_proj", PLAN_RECOMPUTE_FULL,
    "JAX remat policy save_qkv_proj: all but the q/k/v projections recomputed, full the "
    "nearest" },
  { "qkv_proj_offloaded", PLAN_RECOMPUTE_FULL,
    "JAX remat policy qkv_proj_offloaded: all but the q/k/v projections recomputed, full the "
    "nearest; their host copies are not modelled" },
  { "save_out_proj", PLAN_RECOMPUTE_FULL,
    "JAX remat policy save_out_proj: all but the output projection recomputed, full the "
    "nearest" },
  { "minimal_with_context", PLAN_RECOMPUTE_NONE,
    "JAX remat policy minimal_with_context: only element-wise ops recomputed, none the nearest" },
  { "minimal_flash", PLAN_RECOMPUTE_NONE,
    "JAX remat policy minimal_flash: only element-wise ops recomputed, none the nearest" },
  { "minimal_offloaded", PLAN_RECOMPUTE_SELECTIVE,
    "JAX remat policy minimal_offloaded: projections kept (in host memory), attention core "
    "recomputed, selective the nearest; the host copies are not modelled" },
  { "checkpoint_dots_with_no_batch_dims", PLAN_RECOMPUTE_SELECTIVE,
    "JAX policy checkpoint_dots_with_no_batch_dims: projections kept, attention core "
    "recomputed, selective the nearest" },
  { "dots_with_no_batch_dims_saveable", PLAN_RECOMPUTE_SELECTIVE,
    "JAX policy dots_with_no_batch_dims_saveable: projections kept, attention core "
    "recomputed, selective the nearest" },
  { "checkpoint_dots", PLAN_RECOMPUTE_SELECTIVE,
    "JAX policy checkpoint_dots: matmul outputs kept, element-wise ops recomputed, selective "
    "the nearest" },
  /* Pax's (praxis AutodiffCheckpointType, CHECKPOINT_POLICY): SAVE_DOT_WITH_NO_BATCH_DIM
   * is jax's checkpoint_dots_with_no_batch_dims, SAVE_DOT_ONLY checkpoint_dots,
   * SAVE_QKV_OUT_PROJ the attention projections only (JAX-Toolbox's Pax tables; these
   * were refused as not recognised) */
  { "save_dot_with_no_batch_dims", PLAN_RECOMPUTE_SELECTIVE,
    "Pax policy SAVE_DOT_WITH_NO_BATCH_DIM (jax checkpoint_dots_with_no_batch_dims): "
    "projections kept, attention core recomputed, selective the nearest" },
  { "save_dot_with_no_batch_dim", PLAN_RECOMPUTE_SELECTIVE,
    "Pax policy SAVE_DOT_WITH_NO_BATCH_DIM (jax checkpoint_dots_with_no_batch_dims): "
    "projections kept, attention core recomputed, selective the nearest" },
  { "save_dot_only", PLAN_RECOMPUTE_SELECTIVE,
    "Pax policy SAVE_DOT_ONLY (jax checkpoint_dots): matmul outputs kept, element-wise ops "
    "recomputed, selective the nearest" },
  { "save_qkv_out_proj", PLAN_RECOMPUTE_FULL,
    "Pax policy SAVE_QKV_OUT_PROJ: all but the attention projections recomputed, full the "
    "nearest" },
  { "nothing_saveable", PLAN_RECOMPUTE_FULL, NULL },
  { "save_nothing", PLAN_RECOMPUTE_FULL, NULL },
  { "everything_saveable", PLAN_RECOMPUTE_NONE, NULL },
  { "save_everything", PLAN_RECOMPUTE_NONE, NULL },
};

/* The remat policy a recompute cell names (remat_policies): its index, -1 for none,
 * -2 for "custom" */
static int
remat_policy_in (const char *t)
{
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (guint i = 0; i < G_N_ELEMENTS (remat_policies); i++)
    {
      gsize n = strlen (remat_policies[i].name);
      for (const char *p = strstr (low, remat_policies[i].name); p != NULL;
           p = strstr (p + 1, remat_policies[i].name))
        if ((p == low || !(g_ascii_isalnum (p[-1]) || p[-1] == '_'))
            && !(g_ascii_isalnum (p[n]) || p[n] == '_'))
          return (int) i;
    }
  /* "minimal" / "custom" as the value of a remat label */
  static const char *const labels[] = { "remat_policy", "remat policy", "remat" };
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (g_str_has_prefix (low, labels[i]))
      {
        const char *p = low + strlen (labels[i]);
        while (*p == ' ' || *p == ':' || *p == '=' || *p == '"' || *p == '\'')
          p++;
        if (g_str_has_prefix (p, "minimal") && !g_ascii_isalnum (p[7]) && p[7] != '_')
          return (int) G_N_ELEMENTS (remat_policies);   /* minimal */
        if (g_str_has_prefix (p, "custom") && !g_ascii_isalnum (p[6]) && p[6] != '_')
          return -2;
        break;
      }
  return -1;
}

/* A yes/no answer with a qualifier after it: the word ("yes", "true", "on", "enabled";
 * "off", "false", "disabled", "disable"), then a bracket, comma, semicolon or " - " and
 * the qualifier ("off (checkpoint=False)", "yes (full)", "Yes, full recompute"): the
 * qualifier without its closing bracket (g_free), *yes whether the word said yes; NULL
 * when the cell is no such answer (a bare "yes" or "off" is read by the rules for them). */
static char *
recompute_answer_qualified (const char *t, gboolean *yes)
{
  static const struct { const char *word; gboolean yes; } answers[] = {
    { "yes", TRUE }, { "true", TRUE }, { "on", TRUE }, { "enabled", TRUE },
    { "off", FALSE }, { "false", FALSE }, { "disabled", FALSE }, { "disable", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (answers); i++)
    {
      if (!starts_with_ci (t, answers[i].word))
        continue;
      const char *p = t + strlen (answers[i].word);
      while (*p == ' ')
        p++;
      const gboolean bracket = *p == '(';
      if (*p == '(' || *p == ',' || *p == ';')
        p++;
      else if (*p == '-' && p[-1] == ' ' && p[1] == ' ')
        p += 2;
      else
        continue;
      while (*p == ' ')
        p++;
      char *q = g_strstrip (g_strdup (p));
      gsize n = strlen (q);
      if (bracket && n > 0 && q[n - 1] == ')')
        q[n - 1] = '\0';
      *yes = answers[i].yes;
      return g_strstrip (q);
    }
  return NULL;
}

/* A yes's qualifier that holds no word ("yes ()", "yes ,", "yes ("): the bare yes */
static gboolean
qualifier_blank (const char *q)
{
  for (; *q != '\0'; q++)
    if (g_ascii_isalnum (*q))
      return FALSE;
  return TRUE;
}

/* A yes's qualifier that opens by saying which kind the run did not use ("not full,
 * selective", "no full recompute; selective", "non-full - selective", "not full but
 * selective"): what follows the first ',', ';', ':', '/', bracket, " - " or " but " after
 * it (the kind it did use, read by the rules), "" when nothing follows ("not full"); NULL
 * when the qualifier opens otherwise. */
static const char *
qualifier_after_negated_kind (const char *q)
{
  static const char *const neg[] = { "not ", "no ", "non-", "non " };
  static const char *const kinds[] = { "full", "selective" };
  for (guint i = 0; i < G_N_ELEMENTS (neg); i++)
    {
      if (!starts_with_ci (q, neg[i]))
        continue;
      const char *k = q + strlen (neg[i]);
      for (guint j = 0; j < G_N_ELEMENTS (kinds); j++)
        if (starts_with_ci (k, kinds[j]) && !g_ascii_isalnum (k[strlen (kinds[j])]))
          {
            for (const char *p = k; *p != '\0'; p++)
              {
                const char *rest = NULL;
                if (strchr (",;:/()", *p) != NULL)
                  rest = p + 1;
                else if (starts_with_ci (p, " - ") || starts_with_ci (p, " but "))
                  rest = p + (p[1] == '-' ? 3 : 5);
                if (rest == NULL)
                  continue;
                while (*rest == ' ' || *rest == '(' || *rest == ')')
                  rest++;
                return rest;
              }
            return "";
          }
    }
  return NULL;
}

/* A yes's qualifier that names the attention as what is recomputed: 1 for the attention
 * alone ("attention only", "attn only", "the attention"): Megatron's selective recompute
 * is the attention core's; -1 for the attention beside other parts of the layer
 * ("attention and MLP", "attn + mlp"), which is neither kind; 0 when it names no attention,
 * names a kind the rules read ("full attention", "selective", "core_attn"), or names
 * FlashAttention (a kernel, "yes (flash attention)": the bare yes). */
static int
qualifier_attention (const char *q)
{
  static const char *const kinds[] = { "full", "selective", "core_attn", "core attention",
                                       "none", "flash" };
  static const char *const others[] = { "mlp", "ffn", "moe", "expert", "norm", "linear",
                                        "proj", "and", "+", "&", "all", "whole", "entire" };
  g_autofree char *low = g_ascii_strdown (q, -1);
  gboolean named = FALSE;
  for (const char *p = low; *p != '\0' && !named; p++)
    named = (p == low || !g_ascii_isalnum (p[-1]))
            && (g_str_has_prefix (p, "attention") || g_str_has_prefix (p, "attn"));
  if (!named)
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (strstr (low, kinds[i]) != NULL)
      return 0;
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      const gsize n = strlen (others[i]);
      for (const char *p = strstr (low, others[i]); p != NULL; p = strstr (p + 1, others[i]))
        if (!g_ascii_isalnum (others[i][0])
            || ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalpha (p[n])))
          return -1;
    }
  return 1;
}

/* Rules, first that applies (examples in tests/results/test-mapping.c):
 *  empty or not stated (also "N.A.", a dash) -> the notes' kind, else full where the
 *    cell, the FLOP convention or the notes say the TFLOP/s used Megatron-DeepSpeed's
 *    checkpoint-activations factor 4 (ckpt_factor_said), else none (below);
 *  "AC: full", "recompute = selective" -> the value after the label, by these rules; a
 *    space alone separates a label from a value word ("AC full", "AC none", "activation
 *    checkpointing off"; labels also "activation recomputation", "gradient
 *    checkpointing"); the value "op" (torchtitan's option) -> selective op-level;
 *  "full ..."          -> full;
 *  "yes", "true", "on", "enabled", "1", "y", "AC", a check mark, "activation
 *    checkpointing", "gradient checkpointing", "every layer", "all layers" (no kind
 *    named, not said off) -> full: whole blocks, as Megatron-LM's --checkpoint-activations
 *    and DeepSpeed / PyTorch checkpointing wrap them;
 *  "partial"           -> skipped with a hint: selective or full over some layers?
 *  "offload" with a layer count ("activations of 20 layers offloaded",
 *    "cpu_offloading_num_layers=20") -> none, and map_plan sets the plan's
 *    cpu_offload_layers (Megatron's CPU offloading runs without recompute); "offload"
 *    without one -> skipped with a hint;
 *  "selective (layer)", "selective (op)", "selective (modules: ...)", "selective",
 *  "none", "no"        -> as below ("selective op-level" / "per-op" as "(op)");
 *  "SAC" (a word)      -> selective, op-level with "op-level" / "(op)"; with "layer": skipped;
 *  "--recompute-granularity full", "recompute_granularity: selective" -> the value;
 *  "off", "false", "disabled", "disable", "0", "n", a cross, "AC off", "without
 *    recompute" -> none;
 *  "core_attn" / "core attention" anywhere ("--recompute-modules core_attn") -> selective;
 *  "uniform" anywhere, not "block" (Megatron's method) -> full; "block" -> skipped with
 *  a hint (only some layers recompute);
 *  JAX's and MaxText's policy names (remat_policies: "nothing_saveable", "save_qkv_proj",
 *  "remat_policy=minimal", ...) -> the nearest kind (before the label rule); "remat" / "remat_policy" / "rematerialization" and the config keys
 *  "activation_checkpointing" / "gradient_checkpointing" are labels too ("remat_policy=
 *  full", "gradient_checkpointing=True"); "grad checkpointing", "activation ckpt",
 *  "checkpoint_activations" -> full, and they and "checkpoint" are labels too
 *  ("Activation Ckpt FALSE", "activation ckpt: false", "checkpoint=False" -> none);
 *  a yes/no answer with a qualifier after a bracket, comma, semicolon or " - " (last,
 *  recompute_answer_qualified): "off (checkpoint=False)", "false (see notes)" -> none;
 *  "yes (full)", "Yes, full recompute" -> the qualifier's kind by these rules ("yes
 *  (selective)" -> selective), one that names none ("yes (activation
 *  re-materialization)") or holds no word ("yes ()", "yes ,") -> full as "yes"; the
 *  attention alone ("on (attention only)") -> selective; the kind after one it was not
 *  ("yes (not full, selective)") -> that kind; a qualifier that says the other answer
 *  ("yes (none)", "off (full)"), only the kind it was not ("yes (not full)"), or the
 *  attention beside other parts ("yes (attention and MLP)") -> skipped. One level of
 *  qualifier: the qualifier's own answer is its word alone ("yes (off, see notes)").
 *  Anything else is skipped. */
/* Whether `notes` names `phrase` (any case) other than negated: "No activation
 * checkpointing.", "without activation checkpointing", "activation checkpointing not
 * stated", "activation checkpointing: false / off / disabled" say nothing is recomputed
 * (they were read as full recompute: an audit's AutoModel row, 16.10 s predicted against
 * 12.25 s with the sentence left out); "activation checkpointing on every layer" names it. */
/* The word that ends just before `end` in `low` (lower case), skipping spaces, brackets
 * and dashes but not a sentence's end ('.', ';', ','), into `out` (at most 15 letters,
 * '/' kept: "w/o"); the position where it starts, or NULL when there is none */
static const char *
word_before (const char *low, const char *end, char out[16])
{
  const char *e = end;
  while (e > low && (e[-1] == ' ' || e[-1] == '(' || e[-1] == '-' || e[-1] == '"'))
    e--;
  const char *b = e;
  while (b > low && (g_ascii_isalpha (b[-1]) || b[-1] == '/') && e - b < 15)
    b--;
  if (b == e || (b > low && (g_ascii_isalpha (b[-1]) || b[-1] == '/')))
    return NULL;
  memcpy (out, b, (gsize) (e - b));
  out[e - b] = '\0';
  return b;
}

/* Whether the text right before `p` in `low` negates what follows: a negation word
 * ("no", "not", "without", "w/o", "never") or "instead of" / "rather than" ("full
 * recompute instead of CPU offload", "Megatron-LM (instead of FSDP)") just before it, past
 * at most three words that qualify it ("without any", "did not need", "not use", "no
 * selective or full") */
static gboolean
negated_before (const char *low, const char *p)
{
  static const char *const neg[] = { "no", "not", "without", "w/o", "never", "nor" };
  static const char *const qual[] = { "any", "full", "selective", "or", "need", "use", "using",
                                      "used", "enable", "enabled", "apply", "the", "do",
                                      "does", "did", "activation", "with" };
  const char *at = p;
  for (int hop = 0; hop < 4; hop++)
    {
      char w[16];
      const char *b = word_before (low, at, w);
      if (b == NULL)
        return FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (neg); i++)
        if (g_str_equal (w, neg[i]))
          return TRUE;
      if (g_str_equal (w, "of") || g_str_equal (w, "than"))
        {
          char w2[16];
          return word_before (low, b, w2) != NULL
                 && g_str_equal (w2, g_str_equal (w, "of") ? "instead" : "rather");
        }
      gboolean q = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (qual) && !q; i++)
        q = g_str_equal (w, qual[i]);
      /* "with" qualifies only after a negation ("without" is one word; "no ... with"
       * reads as "with": "No OOM with activation checkpointing" names it) */
      if (!q || g_str_equal (w, "with"))
        return FALSE;
      at = b;
    }
  return FALSE;
}

/* Whether the words right after a phrase say it was off: "not stated" (as the whole
 * verdict), "not used", "not enabled", "not set" (a flag), "was not used", "is off", "off",
 * "false", "disabled", "none", "no", "unused", "n/a", "is unavailable", "not available",
 * "not supported", "unsupported", "was not needed", "not required", after spaces, ':', '=',
 * '-' or '(' */
static gboolean
negated_after (const char *a)
{
  gboolean bracket = FALSE;
  while (*a == ' ' || *a == ':' || *a == '=' || *a == '(' || *a == '-')
    bracket |= *a++ == '(';
  if (g_str_has_prefix (a, "was ") || g_str_has_prefix (a, "is ") || g_str_has_prefix (a, "were "))
    a = strchr (a, ' ') + 1;
  static const char *const neg[] = { "not stated", "not used", "not enabled", "not applied",
                                     "not set", "not on", "off", "false", "disabled", "none",
                                     "no", "unused", "n/a", "unavailable", "not available",
                                     "not supported", "unsupported", "not needed",
                                     "not required" };
  for (guint i = 0; i < G_N_ELEMENTS (neg); i++)
    {
      gsize k = strlen (neg[i]);
      /* the verdict is the whole of what follows: "(no)", ": no.", "(off)", "not stated."
       * -- not a bracket or clause about something else ("torch.compile (no AC)",
       * "activation checkpointing (no CPU offload)", ": no selective, full") */
      if (strncmp (a, neg[i], k) != 0)
        continue;   /* (a[k] is read only past a match: a may be shorter) */
      const char t = a[k];
      const gboolean ends = t == '\0' || t == '.' || t == ';' || t == ',' || t == ')';
      /* a compound is no verdict ("off-the-shelf", "none-such") */
      if (t == '-' && g_ascii_isalpha (a[k + 1]))
        continue;
      if (!g_ascii_isalnum (t)
          && ((!bracket && !g_str_equal (neg[i], "no") && !g_str_equal (neg[i], "not stated"))
              || ends)
          && (!bracket || t == ')'))
        return TRUE;
      /* in a bracket, a verdict word that is no determiner, then its reason after a
       * comma, a semicolon or a dash: "async TP (off - not compiled)", "(disabled, eager
       * run)" (they read on); "(no AC)" stays a bracket about something else */
      if (bracket && !g_str_equal (neg[i], "no") && !g_str_equal (neg[i], "none")
          && !g_str_equal (neg[i], "not stated")
          && (t == ',' || t == ';' || (t == ' ' && (a[k + 1] == '-' || a[k + 1] == ';'))
              || (t == ' ' && (guchar) a[k + 1] == 0xe2 && (guchar) a[k + 2] == 0x80
                  && ((guchar) a[k + 3] == 0x93 || (guchar) a[k + 3] == 0x94)))
          && strchr (a, ')') != NULL)
        return TRUE;
    }
  return FALSE;
}

/* Whether a Megatron-Core count's cell says its attention term is the causal one: a
 * mention of "causal" ("(causal)", "causal attention (s x s term halved)", "halved for
 * causal masks") that nothing says otherwise of, and no halving said not done. A negation
 * is read where it is said, as in the other cells (it was any "before the" or "without
 * the" in the cell, and only a few set phrases before "causal"):
 *  - before the mention in its clause (clause_walk_negated, its words and "despite",
 *    "ignores", "although": "does not account for the causal mask", "counted before causal
 *    masking was taken into account", "ignores causal masking", "full attention, although
 *    the model itself is causal"), or right before it (negated_before: "without causal
 *    halving");
 *  - right after it (negated_after: "causal=False"), or later in its clause, saying it was
 *    not counted ("causal mask not accounted for", "causal masking ignored");
 *  - the halving said not done, in any clause: a mention of "halv" negated before it in
 *    its clause ("s x s term not halved", "before the s x s term was halved") or after it
 *    ("causal-mask halving not applied");
 *  - the set phrases: "non-causal", "noncausal", "non causal", "not discounted", ...
 * A negation word in another clause is not the count's: "(causal: s x s term halved; MTP
 * layers counted without the embedding)" and "(causal; logits included, computed without
 * the MTP head)" are causal (they read as Megatron-Core's non-causal count, a measured
 * step 7% long at 4K tokens). For this rule a clause also ends before "and" or "with",
 * which join what is said of another term: "model FLOPs without recompute and with the
 * causal halving of the s x s term" and "(causal attention halved and recompute not
 * counted)" are causal; they read as the non-causal count, the "without" and the "not
 * counted" taken as the causal mask's. A negation that "and" joins to the mask ("not
 * counting recompute and the causal mask") then reads causal, as every cell with
 * "causal" and none of the set phrases did before the negation was scoped. */
static gboolean
causal_count_said (const char *text)
{
  static const char *const otherwise[] = { "non-causal", "noncausal", "non causal",
                                           "not halved", "no causal", "despite causal",
                                           "not discounted", "not causal", NULL };
  static const char *const words[] = { "no", "not", "without", "predates", "predating",
                                       "before", "never", "despite", "ignores", "ignoring",
                                       "although", "though", NULL };
  static const char *const not_counted[] = { "not accounted", "not taken into account",
                                             "not applied", "not counted", "not modelled",
                                             "not modeled", "not considered", "ignored",
                                             NULL };
  static const char *const joins[] = { "and", "with", NULL };
  if (!contains_ci (text, "causal") || contains_any_ci (text, otherwise))
    return FALSE;
  g_autofree char *low = g_ascii_strdown (text, -1);
  ClauseWalk walk;
  clause_walk_init_words (&walk, low, words, joins);
  for (const char *p = strstr (low, "halv"); p != NULL; p = strstr (p + 4, "halv"))
    {
      const char *e = p;
      while (g_ascii_isalpha (*e))
        e++;
      if (clause_walk_negated (&walk, p) || negated_after (e))
        return FALSE;
    }
  clause_walk_init_words (&walk, low, words, joins);
  for (const char *p = strstr (low, "causal"); p != NULL; p = strstr (p + 6, "causal"))
    {
      if (clause_walk_negated (&walk, p) || negated_before (low, p) || negated_after (p + 6))
        return FALSE;
      const char *e = p + 6;
      while (*e != '\0' && strchr (",;()", *e) == NULL
             && !(!g_ascii_isalnum (e[-1]) && word_of_at (e, joins)))
        e++;
      g_autofree char *rest = g_strndup (p, (gsize) (e - p));
      if (contains_any_ci (rest, not_counted))
        return FALSE;
    }
  return TRUE;
}

/* Whether `notes` names `phrase` (any case) other than negated: "No activation
 * checkpointing.", "BF16 (no activation checkpointing)", "without any activation
 * checkpointing", "activation checkpointing was not used / not stated / (off)" say nothing
 * is recomputed (they were read as full recompute: an audit's AutoModel row, 16.10 s
 * predicted against 12.25 s with the sentence left out); "No OOM with activation
 * checkpointing", "activation checkpointing (not stated which layers)" name it. Linear in
 * the notes: each match looks at a few words around it. */
static gboolean
notes_affirm (const char *notes, const char *phrase)
{
  if (notes == NULL || *notes == '\0')
    return FALSE;
  g_autofree char *low = g_ascii_strdown (notes, -1);
  g_autofree char *ph = g_ascii_strdown (phrase, -1);
  const gsize n = strlen (ph);
  for (const char *p = strstr (low, ph); p != NULL; p = strstr (p + n, ph))
    {
      if (negated_before (low, p) || negated_after (p + n))
        continue;
      /* "activation checkpointing settings not reported": a qualifier word, then the
       * verdict (it read as full recompute: audit of 8 Dec) */
      const char *a = p + n;
      static const char *const qual[] = { " settings", " setting", " details", " config",
                                          " configuration", " policy", " choice", " status" };
      for (guint i = 0; i < G_N_ELEMENTS (qual); i++)
        if (g_str_has_prefix (a, qual[i]))
          {
            a += strlen (qual[i]);
            break;
          }
      static const char *const unknown[] = { " not reported", " unreported", " unknown",
                                             " not given", " not specified", " unspecified",
                                             " were not reported", " was not reported",
                                             " are unknown", " is unknown", NULL };
      gboolean said_unknown = FALSE;
      for (guint i = 0; unknown[i] != NULL && !said_unknown; i++)
        said_unknown = g_str_has_prefix (a, unknown[i]);
      if (said_unknown || (a != p + n && negated_after (a)))
        continue;
      /* said of another run: "over our 2021 run, which used activation checkpointing"
       * (a relative clause after a run), a comparison or a baseline in its sentence */
      if (sentence_has_any (low, p, other_run_words)
          || (p - low >= 10 && g_strstr_len (p - MIN (p - low, 24), MIN (p - low, 24),
                                             "which used") != NULL))
        continue;
      return TRUE;
    }
  return FALSE;
}

/* Whether the notes name selective recompute in any of its spellings: "selective" not
 * negated, with a word of recompute within its sentence a few words either side
 * ("selective activation checkpointing", "activation checkpointing: selective", "AC:
 * selective (per-op)", "recompute_granularity=selective"). "activation checkpointing:
 * selective" read as full by the "activation checkpointing" rule (audit of 7 Dec). */
static gboolean
notes_selective_recompute (const char *notes)
{
  if (notes == NULL || *notes == '\0')
    return FALSE;
  g_autofree char *low = g_ascii_strdown (notes, -1);
  static const char *const words[] = { "activation", "recompute", "recomputation",
                                       "checkpoint", "remat", "ac:", "ac ", "ac)", "(ac",
                                       " sac" };
  for (const char *p = strstr (low, "selective"); p != NULL; p = strstr (p + 9, "selective"))
    {
      if (negated_before (low, p) || negated_after (p + 9))
        continue;
      const char *from = p - low > 40 ? p - 40 : low;
      const char *to = p + 9 + strnlen (p + 9, 32);
      for (const char *q = p; q > from; q--)
        if (q[-1] == '.' || q[-1] == ';')
          {
            from = q;
            break;
          }
      for (const char *q = p + 9; q < to; q++)
        if (*q == '.' || *q == ';')
          {
            to = q;
            break;
          }
      g_autofree char *win = g_strndup (from, (gsize) (to - from));
      for (guint i = 0; i < G_N_ELEMENTS (words); i++)
        if (strstr (win, words[i]) != NULL)
          return TRUE;
    }
  return FALSE;
}

/* The activation-checkpointing factor a text says its TFLOP/s count used: 4 or 3, else 0.
 * Megatron-DeepSpeed's throughput calculator (megatron/utils.py throughput_calculator,
 * and the DeepSpeed-Chat / GPT-NeoX copies of it) counts 24 x factor x B s L h^2 (...)
 * FLOPs an iteration with "checkpoint_activations_factor = 4 if args.checkpoint_activations
 * else 3": a TFLOP/s figure said to use the factor 4 comes from a run that recomputed every
 * layer, 3 from one that did not. The factor is read where its clause (between '(', ')',
 * ';', ',' and '.') names checkpointing ("checkpoint-activations factor 4",
 * "checkpoint_activations_factor = 4", "the factor of 4 used with activation
 * check-pointing") and says nothing off ("not", "no", "without", "instead of"). BigScience's
 * Jean Zay benchmarks, recompute cell "not stated (the reported TFLOPs reproduce with the
 * checkpoint-activations factor 4)", read no recompute: 12 rows -28..-49%, -3..-27% with it
 * (audit of 8 Dec). */
static int
ckpt_factor_said (const char *text)
{
  if (text == NULL || *text == '\0')
    return 0;
  g_autofree char *low = g_ascii_strdown (text, -1);
  static const char *const off[] = { "not ", "no ", "without", "w/o", "instead of", NULL };
  for (const char *p = strstr (low, "factor"); p != NULL; p = strstr (p + 6, "factor"))
    {
      g_autofree char *clause = clause_at (low, p, "(;,", ");,");
      if ((strstr (clause, "checkpoint") == NULL && strstr (clause, "check-point") == NULL)
          || contains_any_ci (clause, off))
        continue;
      const char *v = p + 6;
      while (*v == ' ' || *v == '=' || *v == ':')
        v++;
      if (g_str_has_prefix (v, "of "))
        v += 3;
      /* "factor 4." ends a sentence; "4.5" is another number */
      if ((*v == '3' || *v == '4') && !g_ascii_isalnum (v[1])
          && !(v[1] == '.' && g_ascii_isdigit (v[2])))
        return *v - '0';
    }
  return 0;
}

/* The first of the cell, the convention and the notes that says a checkpoint-activations
 * factor (ckpt_factor_said): its factor, 0 where none does */
static int
ckpt_factor_first (const char *cell, const char *convention, const char *notes)
{
  const char *const texts[] = { cell, convention, notes };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      const int f = ckpt_factor_said (texts[i]);
      if (f != 0)
        return f;
    }
  return 0;
}

/* The kind of recompute a cell leaves where it says a kind off: "no full recompute
 * (selective only)" -> selective (read as none by its "no"), "no selective, full" ->
 * full, a cell that starts with a kind and says it off ("full recompute disabled", read as
 * full by its first word) -> none; -1 where no kind is said off, or the cell says one
 * kind both on and off (the other rules read it). A kind and the words after it that name
 * recompute ("full activation recompute") are one mention, said off by mention_off,
 * negated_before or negated_after. */
static int
recompute_kind_beside_off (const char *t)
{
  static const char *const kinds[] = { "full", "selective" };
  static const PlanRecompute as[] = { PLAN_RECOMPUTE_FULL, PLAN_RECOMPUTE_SELECTIVE };
  static const char *const tail[] = { "activation", "activations", "recompute",
                                      "recomputation", "checkpointing", "ac", "remat" };
  g_autofree char *low = g_ascii_strdown (t, -1);
  gboolean on[2] = { FALSE, FALSE }, off[2] = { FALSE, FALSE };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      const gsize n = strlen (kinds[k]);
      for (const char *p = strstr (low, kinds[k]); p != NULL; p = strstr (p + n, kinds[k]))
        {
          if ((p > low && g_ascii_isalnum (p[-1])) || g_ascii_isalnum (p[n]))
            continue;
          const char *e = p + n;
          for (gboolean more = TRUE; more;)
            {
              more = FALSE;
              const char *w = e + strspn (e, " ");
              for (guint i = 0; i < G_N_ELEMENTS (tail) && !more; i++)
                {
                  const gsize m = strlen (tail[i]);
                  if (strncmp (w, tail[i], m) == 0 && !g_ascii_isalnum (w[m]))
                    {
                      e = w + m;
                      more = TRUE;
                    }
                }
            }
          if (mention_off (low, p, (gsize) (e - p), NULL) || negated_before (low, p)
              || negated_after (e))
            off[k] = TRUE;
          else
            on[k] = TRUE;
        }
    }
  for (guint k = 0; k < 2; k++)
    if (on[k] && !off[k] && !on[1 - k] && off[1 - k])
      return (int) as[k];
  if (!on[0] && !on[1] && (off[0] || off[1])
      && (g_str_has_prefix (low, "full") || g_str_has_prefix (low, "selective")))
    return (int) PLAN_RECOMPUTE_NONE;
  return -1;
}

/* The frameworks' names as the stack table (frameworks/stack.c
 * fw_stack_preset_for_text) and the rules below read them, lower case, the longer first
 * ("megatron-core" blanked whole, not "megatron" and a "core" left to date Megatron-LM) */
static const char *const framework_names[] = {
  "megatron-core", "megatron core", "megatron-lm", "megatron lm", "megatronlm", "megatron_lm",
  "megatron-deepspeed", "megatron-bridge", "megatron bridge", "megatron", "mcore", "m-core",
  "nemo automodel", "automodel", "nemo", "deepspeed", "gpt-neox", "hai-llm", "torchtitan",
  "torchtune", "fsdp", "fairscale", "metaseq", "ncclx", "llm-foundry", "llm foundry",
  "llmfoundry", "composer", "maxtext", "jax", "pax", "levanter", "t5x", "easylm", "axlearn",
  "olmo", "litgpt", "lit-gpt", "lightning", "nanotron", "picotron", "primus", "hugging face",
  "huggingface", "hf transformers", "hf trainer", "accelerate", "pytorch",
  "torch.distributed.pipelining", "dtensor", NULL };

/* The framework cell as every rule reads it (computed once into c->framework_read): the
 * frameworks it names only to say the run did not use them blanked, by mention_off
 * (blank_negated: "PyTorch (custom, no Megatron)", "in-house (not NeMo)") or by a
 * negation before them (negated_before: "PyTorch FSDP (we did not use Megatron)"). Those
 * selected the stack they named (megatron-core, nemo). Skip reasons and the explain lines
 * quote the cell as written. */
static const char *
framework_cell (ResPublishedCase *c, const ResCsv *csv, guint row)
{
  if (c->framework_read != NULL)
    return c->framework_read;
  char *out = blank_negated (get (csv, row, "framework"), framework_names, NULL);
  g_autofree char *low = g_ascii_strdown (out, -1);
  for (guint i = 0; framework_names[i] != NULL; i++)
    {
      const gsize n = strlen (framework_names[i]);
      for (const char *p = strstr (low, framework_names[i]); p != NULL;
           p = strstr (p + n, framework_names[i]))
        if ((p == low || !g_ascii_isalnum (p[-1])) && negated_before (low, p))
          memset (out + (p - low), '#', n);
    }
  c->framework_read = out;
  return out;
}

/* Whether a cell's --recompute-modules flag is followed by a module name
 * (res_pub_moe_recompute reads some) */
static gboolean
recompute_flag_names_module (const char *t)
{
  Plan scratch;
  plan_init_defaults (&scratch);
  g_autofree char *why = NULL;
  const gboolean named = res_pub_moe_recompute (t, &scratch, &why)
                         && (scratch.moe_recompute != 0
                             || scratch.recompute == PLAN_RECOMPUTE_SELECTIVE);
  plan_clear (&scratch);
  return named;
}

/* Whether a clause of a recompute cell (lower case) is said of another run than the row's:
 * it names a baseline, the paper, another row or another run ("recompute_granularity none
 * in the baseline", "granularity null in the 8B row", "selective in the paper"). "This
 * row" is the row's own ("full in the baseline; this row: recompute_granularity null"). */
static gboolean
recompute_words_elsewhere (const char *clause)
{
  static const char *const words[] = { "baseline", "paper", "other run", NULL };
  if (contains_any_ci (clause, words))
    return TRUE;
  for (const char *r = strstr (clause, " row"); r != NULL; r = strstr (r + 1, " row"))
    if (!(r - clause >= 4 && strncmp (r - 4, "this", 4) == 0))
      return TRUE;
  return FALSE;
}

/* Whether a recompute cell opens with a kind of its own, "full" or "selective" as a word
 * ("full; ...", "selective (...)"): the row's verdict, whatever a key later in the cell
 * says of a baseline. Not where the kind's own clause (up to a '(', ')', ';', ',' or '.')
 * names another run: "full in the baseline; this run: recompute_granularity null" and
 * "selective in the paper; recompute_granularity: null here" give the baseline's and the
 * paper's kind, and the run's own granularity after it decides (both read full and
 * selective, where they read none before this helper was added). */
static gboolean
recompute_kind_leads (const char *t)
{
  static const char *const kinds[] = { "full", "selective" };
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (starts_with_ci (t, kinds[i]) && !g_ascii_isalnum (t[strlen (kinds[i])])
        && t[strlen (kinds[i])] != '_')
      {
        g_autofree char *low = g_ascii_strdown (t, -1);
        g_autofree char *clause = clause_at (low, low, "", "();,.");
        return !recompute_words_elsewhere (clause);
      }
  return FALSE;
}

/* Whether the clause of the mention at `p` in `low` (back to a '(', ';', ',' or '.' and on
 * to a ')', ';', ',' or '.') is said of another run (recompute_words_elsewhere):
 * "recompute_granularity none in the baseline", "(baseline: recompute_granularity null)",
 * "granularity null in the 8B row", "granularity null in the paper" */
static gboolean
recompute_clause_elsewhere (const char *low, const char *p)
{
  g_autofree char *clause = clause_at (low, p, "(;,.", ");,.");
  return recompute_words_elsewhere (clause);
}

static gboolean
map_recompute_as (ResPublishedCase *c, const char *text, const char *whole, const char *notes,
                  const char *convention, gboolean said_yes, PlanRecompute *out)
{
  g_autofree char *t = g_strstrip (g_strdup (text));
  /* skip reasons quote the whole cell as written, not the value after its label */
  g_autofree char *w = g_strstrip (g_strdup (whole));
  /* a granularity of null or none (NeMo's yaml: "activations_checkpoint_granularity: null,
   * activations_checkpoint_method: block, activations_checkpoint_num_layers: 8") is no
   * recompute whatever method and count the config also carries (Megatron checks the
   * granularity first; the layer count read full). Not where the cell opens with its own
   * kind ("full; recompute_granularity none in the baseline", "selective (baseline:
   * recompute_granularity null)": read none), nor a granularity said of a baseline or
   * another row ("granularity null in the 8B row"): the first of the run's own decides */
  if (!recompute_kind_leads (t))
    {
      g_autofree char *low = g_ascii_strdown (t, -1);
      const char *g = strstr (low, "granularity");
      while (g != NULL && recompute_clause_elsewhere (low, g))
        g = strstr (g + 1, "granularity");
      if (g != NULL)
        {
          const char *v = g + strlen ("granularity");
          while (*v == ' ' || *v == ':' || *v == '=')
            v++;
          if ((g_str_has_prefix (v, "null") || g_str_has_prefix (v, "none"))
              && !g_ascii_isalnum (v[4]))
            {
              *out = PLAN_RECOMPUTE_NONE;
              return TRUE;
            }
        }
    }
  gboolean yes = FALSE;
  g_autofree char *q = recompute_answer_qualified (t, &yes);   /* "yes (full)" */
  /* activation offloading named and not said off (offload_said_off: "selective (w/o CPU
   * offload)", "yes (no offloading)" were skipped as offloading without a layer count) */
  /* (a count of 0 is offloading said off: "selective; CPU Offloading Layers: 0" was
   * refused as offloading without a layer count; regression audit of 7 Dec) */
  const gboolean offload = contains_ci (t, "offload") && !offload_said_off (t)
                           && offload_layer_count (t) != 0;
  if (cell_unstated (t))
    *t = '\0';
  if (*t == '\0')
    {
      /* Not stated: none, unless the notes say which, or the row's FLOP convention is one
       * that counts the recomputed forward because the runs it reports recomputed
       * (Narayanan et al. SC'21: "INCLUDES full activation recompute"; every other row
       * with it states full recompute) */
      if (notes_affirm (notes, "selective recompute") || notes_selective_recompute (notes))
        *out = PLAN_RECOMPUTE_SELECTIVE;
      else if (notes_affirm (notes, "full recompute")
               || notes_affirm (notes, "full activation recompute")
               || notes_affirm (notes, "activation checkpointing")
               || contains_ci (convention, "INCLUDES full activation recompute"))
        *out = PLAN_RECOMPUTE_FULL;
      /* the TFLOP/s counted with Megatron-DeepSpeed's checkpoint-activations factor 4
       * (ckpt_factor_said), in the cell's own words, the convention or the notes */
      else if (ckpt_factor_first (w, convention, notes) == 4)
        {
          *out = PLAN_RECOMPUTE_FULL;
          c->recompute_why = "the TFLOP/s counted with the checkpoint-activations factor 4 "
                             "(Megatron-DeepSpeed's throughput calculator counts 4 passes "
                             "only where activations are checkpointed)";
        }
      else
        *out = PLAN_RECOMPUTE_NONE;
    }
  /* JAX's and MaxText's checkpoint policies by name (remat_policies, before the label
   * rule: "remat_policy=minimal", "remat: save_dot_except_mlpwi" were not recognised, and
   * the shipped "full (MaxText remat_policy save_qkv_proj: ...)" reads by the same table);
   * nothing_saveable was read as none by its "no" */
  /* every n-th block checkpointed whole with n left a letter ("Selective (checkpoint every
   * n-th transformer block, FSDP AC wrapper)", IBM's FSDP blog's selective activation
   * checkpointing): full recompute of an unstated share of the blocks, not Megatron's
   * attention-core selective, which it read as (its 34B and 70B rows out of memory with
   * no recompute time: audit of 7 Dec) */
  else if (every_nth_unstated (t))
    return skip (c, "recompute '%s': every n-th block checkpointed whole, n not stated (hint: "
                 "write the number, 'every 2 layers', or 'full' where every block is)", w);
  else if (remat_policy_in (t) == -2)
    return skip (c, "recompute '%s': MaxText's custom remat policy saves what its per-tensor "
                 "config keys say (hint: write the nearest of full, selective or none)", w);
  else if (remat_policy_in (t) >= 0)
    {
      int i = remat_policy_in (t);
      if (i == (int) G_N_ELEMENTS (remat_policies))
        {
          *out = PLAN_RECOMPUTE_SELECTIVE;
          c->recompute_why = "MaxText remat policy minimal: every projection output kept, the "
                             "attention core and element-wise ops recomputed, selective the "
                             "nearest";
        }
      else
        {
          *out = (PlanRecompute) remat_policies[i].kind;
          c->recompute_why = remat_policies[i].why;
        }
    }
  /* an off answer whose qualifier names no kind ("False (Activation Checkpointing
   * column)", "off (checkpoint=False)"): none, before the rules below that take
   * checkpointing named anywhere in the cell for a yes (llm-foundry's H100 table rows,
   * transcribed with the column's name, read as full: audit of 7 Dec); an off answer that
   * then names a kind is the qualifier rule's skip, below */
  else if (q != NULL && !yes && !said_yes && !starts_with_ci (q, "full")
           && !starts_with_ci (q, "selective"))
    *out = PLAN_RECOMPUTE_NONE;
  /* every N-th layer (N > 1) checkpointed whole: full over those layers (map_plan sets
   * the plan's recompute_every); "activation checkpointing every 2 layers" was read as
   * every layer, "every other layer" was not recognised */
  else if (recompute_every_in (t) > 1 && !recompute_off (t) && !starts_with_ci (t, "no"))
    *out = PLAN_RECOMPUTE_FULL;
  else if (recompute_label (t) != NULL)
    /* "AC: full", "recompute = selective": the value after the label, by these rules */
    return map_recompute_as (c, recompute_label (t), whole, notes, convention, said_yes, out);
  else if (recompute_kind_beside_off (t) >= 0)
    *out = (PlanRecompute) recompute_kind_beside_off (t);
  /* "full" beside activation offloading with no layer count is the offload rule's, below
   * ("full AC + CPU offload" was read as full) */
  else if (starts_with_ci (t, "full")
           && !(offload
                && offload_layer_count (t) <= 0))
    *out = PLAN_RECOMPUTE_FULL;
  else if (recompute_yes (t))
    /* a yes/no column answered yes, or checkpointing named without a kind: the whole
     * layer is recomputed (Megatron-LM's --checkpoint-activations, DeepSpeed's and
     * PyTorch's activation checkpointing wrap whole blocks) */
    *out = PLAN_RECOMPUTE_FULL;
  else if (ckpt_layers_in (t, &(int){ 0 }, TRUE) > 0 && !offload
           && !contains_ci (t, "selective") && !starts_with_ci (t, "no") && !recompute_off (t))
    /* full recompute of some layers, by count ("partial (16 layers)", "num-ckpt-layers 16",
     * "activation checkpointing on 5 of 48 layers"; the forms that name full or
     * checkpointing are full by the rules above): map_plan reads the count (skipped, or
     * read as every layer, before) */
    *out = PLAN_RECOMPUTE_FULL;
  else if (contains_ci (t, "partial"))
    return skip (c, "recompute '%s' is ambiguous: it may be selective (attention core) or full "
                 "over some layers (hint: write 'selective', or 'full' and the layer count in "
                 "notes)", w);
  else if (offload && offload_layer_count (t) > 0)
    /* Megatron-Core's CPU offloading of N layers' activations (no recompute with it):
     * map_plan reads the count into cpu_offload_layers */
    *out = PLAN_RECOMPUTE_NONE;
  else if (offload)
    return skip (c, "recompute '%s': activation offloading without a layer count "
                 "(hint: write how many layers' activations were offloaded, e.g. "
                 "'activations of 20 layers offloaded', or 'none' to predict the run as if "
                 "they stayed on the device)", w);
  else if (starts_with_ci (t, "selective") && contains_ci (t, "(layer)"))
    /* torchtitan's layer-level selective AC (selective_ac_option = "2"): every second
     * transformer block is wrapped in a full checkpoint, the others keep everything;
     * map_plan turns it into Megatron's block method over half of each chunk's layers */
    *out = PLAN_RECOMPUTE_FULL;
  else if (has_sac_word (t) && !contains_ci (t, "layer"))
    /* "SAC": selective activation checkpointing (torchtitan's name for its selective
     * mode); op-level when it says so, else selective as the word is (map_plan reads a
     * bare "SAC" on torchtitan as its op-level default, as a bare "selective"). A
     * layer-level SAC falls through to "not recognised". */
    *out = is_op_level (t) ? PLAN_RECOMPUTE_SELECTIVE_OP : PLAN_RECOMPUTE_SELECTIVE;
  else if (starts_with_ci (t, "selective") && is_op_level (t))
    /* torchtitan's op-level selective AC (selective_ac_option = "op") */
    *out = PLAN_RECOMPUTE_SELECTIVE_OP;
  else if ((starts_with_ci (t, "selective") && contains_ci (t, "modules")
            && !contains_ci (t, "core_attn"))
           /* Megatron's flag alone with its modules ("--recompute-modules mlp moe_act"; it
            * was not recognised); not the flag said unused ("none (--recompute-modules
            * unset)"), whose cell the rules below read */
           || ((contains_ci (t, "recompute-modules") || contains_ci (t, "recompute_modules"))
               && !contains_ci (t, "core_attn") && recompute_flag_names_module (t)))
    /* Megatron-Core's --recompute-modules without core_attn (its default): the attention
     * core is not recomputed; the modules that are (layernorm, moe_act, mla_up_proj, mlp,
     * moe, shared_experts) are read by res_pub_moe_recompute (map_plan), for dense rows as
     * for MoE rows: a dense layer's mlp is checkpointed too (plan/program-blocks.c). */
    *out = PLAN_RECOMPUTE_NONE;
  else if (starts_with_ci (t, "selective"))
    *out = PLAN_RECOMPUTE_SELECTIVE;
  else if (starts_with_ci (t, "none") || starts_with_ci (t, "no") || recompute_off (t)
           /* a yaml null ("activations_checkpoint_granularity: null", NeMo's launcher
            * configs: no checkpointing; it was not recognised) */
           || (starts_with_ci (t, "null") && !g_ascii_isalnum (t[4])))
    *out = PLAN_RECOMPUTE_NONE;
  else if (contains_ci (t, "core_attn") || contains_ci (t, "core attention"))
    /* Megatron-Core's --recompute-modules core_attn ("core_attn", "--recompute-modules
     * core_attn", "recompute core attention"): the attention core, which is what selective
     * recompute is */
    *out = PLAN_RECOMPUTE_SELECTIVE;
  else if (starts_with_ci (t, "op") && !g_ascii_isalnum (t[2]))
    /* torchtitan's selective_ac_option "op" as the value of a label ("AC: op", "AC op
     * (torchtitan)") */
    *out = PLAN_RECOMPUTE_SELECTIVE_OP;
  else if (contains_ci (t, "uniform") && !contains_ci (t, "block"))
    /* Megatron's --recompute-method uniform (valid only with --recompute-granularity full;
     * its default --recompute-num-layers 1 recomputes every layer) */
    *out = PLAN_RECOMPUTE_FULL;
  else if (block_method_named (t) && recompute_layers_in (t) > 0)
    /* Megatron's block method with its count ("--recompute-method block
     * --recompute-num-layers 4", "block, 4 layers", NeMo's activations_checkpoint_method
     * block with activations_checkpoint_num_layers): the first N layers of each model
     * chunk recomputed whole (map_plan sets the plan's method and count); skipped before */
    *out = PLAN_RECOMPUTE_FULL;
  else if (starts_with_ci (t, "block"))
    return skip (c, "recompute '%s': Megatron's block method recomputes only the first "
                 "--recompute-num-layers layers of each stage (hint: write 'full' and the "
                 "layer count in notes, or 'full' if every layer was)", w);
  else if (q != NULL && said_yes)
    /* a qualifier's own answer ("yes (off, see notes)"): its word alone. One level of
     * qualifier is read: each level read the rest of the cell again ("yes (yes (..." 50,000
     * times took minutes) */
    *out = yes ? PLAN_RECOMPUTE_FULL : PLAN_RECOMPUTE_NONE;
  else if (q != NULL)
    {
      /* a yes/no answer and its qualifier ("off (checkpoint=False)", "yes (full)", "Yes,
       * full recompute", "yes (activation re-materialization)"; not recognised before):
       * off -> none, as "none (...)" is; yes -> the kind the qualifier names, else full
       * as a bare "yes" is. A qualifier that says the other answer is skipped. */
      if (!yes && (starts_with_ci (q, "full") || starts_with_ci (q, "selective")))
        return skip (c, "recompute '%s' says off, then names a kind (hint: write the kind, "
                     "or 'none')", w);
      /* "yes (not full, selective)": the kind after the one it was not (it read as "says
       * yes, then off" by its "not") */
      const char *kind = yes ? qualifier_after_negated_kind (q) : NULL;
      const char *said = kind != NULL ? kind : q;
      const int attention = yes ? qualifier_attention (said) : 0;
      if (!yes)
        *out = PLAN_RECOMPUTE_NONE;
      else if (qualifier_blank (q))
        /* "yes ()", "yes ,": the bare yes (they read as "says yes, then off") */
        *out = PLAN_RECOMPUTE_FULL;
      else if (kind != NULL && qualifier_blank (kind))
        return skip (c, "recompute '%s' says which kind it is not, not which it is (hint: "
                     "write the kind)", w);
      else if (attention > 0)
        /* "on (attention only)": the attention recomputed, Megatron's selective (it read
         * as full, the bare yes) */
        *out = PLAN_RECOMPUTE_SELECTIVE;
      else if (attention < 0)
        return skip (c, "recompute '%s' names the attention beside other parts of the "
                     "layer: neither full nor selective (hint: write the kind)", w);
      else if (!map_recompute_as (c, said, whole, notes, convention, TRUE, out))
        return FALSE;
      /* a qualifier that says only offloading off ("yes (no offloading)", skipped as
       * offloading without a layer count): the bare yes */
      else if (*out == PLAN_RECOMPUTE_NONE && contains_ci (q, "offload") && offload_said_off (q)
               && !starts_with_ci (q, "none"))
        *out = PLAN_RECOMPUTE_FULL;
      /* "yes (none)", "yes (checkpoint=False)"; not modules without the attention core
       * nor offloading, which read none and are what the yes says */
      else if (*out == PLAN_RECOMPUTE_NONE && !contains_ci (q, "offload")
               && !contains_ci (q, "modules"))
        return skip (c, "recompute '%s' says yes, then off (hint: write the kind, or "
                     "'none')", w);
    }
  else if (said_yes)
    /* the qualifier of a "yes" that names no kind ("yes (activation
     * re-materialization)"): the yes, full as a bare "yes" is */
    *out = PLAN_RECOMPUTE_FULL;
  else
    return skip (c, "recompute '%s' not recognised", w);
  return TRUE;
}

static gboolean
map_recompute (ResPublishedCase *c, const char *text, const char *notes,
               const char *convention, PlanRecompute *out)
{
  return map_recompute_as (c, text, text, notes, convention, FALSE, out);
}

/* Whether a row's attention ran unfused (scores materialized): FlashAttention (Dao et al.,
 * arXiv 2205.14135, May 2022) reached Megatron-LM as --use-flash-attn in 2023, so runs
 * whose source or framework is dated 2017-2022 (or SC'21) ran Megatron's fused
 * scale-mask-softmax over materialized scores, as did Megatron-DeepSpeed and DeepSpeed
 * runs (BLOOM, MT-NLG, SC'21's ZeRO-3 comparison; the fork took FlashAttention in 2023
 * too). A framework or note that names FlashAttention wins. */
/* FlashAttention named in a text: "FlashAttention(-2)", "flash attention", "flash-attn",
 * "flash_attn", "--use-flash-attn-v2", or "FA2" / "FA3" as a word (the spellings other
 * than "FlashAttention" were missed where the stack's own attention is unfused) */
static gboolean
names_flash_attention (const char *text)
{
  static const char *const names[] = { "flashattention", "flash attention", "flash-attention",
                                       "flash_attention", "flash-attn", "flash_attn",
                                       "flash attn", NULL };
  if (text == NULL)
    return FALSE;
  if (contains_any_ci (text, names))
    return TRUE;
  g_autofree char *low = g_ascii_strdown (text, -1);
  static const char *const words[] = { "fa2", "fa3", "fa-2", "fa-3" };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    for (const char *p = strstr (low, words[i]); p != NULL; p = strstr (p + 1, words[i]))
      if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalnum (p[strlen (words[i])]))
        return TRUE;
  return FALSE;
}

static gboolean
attention_unfused (const char *source, const char *framework, const char *notes)
{
  if (names_flash_attention (framework) || names_flash_attention (notes))
    return FALSE;
  if (contains_ci (framework, "DeepSpeed") || contains_ci (source, "SC'21")
      || contains_ci (framework, "SC'21"))
    return TRUE;
  const char *texts[] = { source, framework };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    for (const char *p = texts[i]; p != NULL && *p != '\0'; p++)
      {
        /* a year 2017-2022 standing alone (not inside "2201.11990" or "r0.8.0") */
        if ((p == texts[i] || !g_ascii_isalnum (p[-1])) && p[0] == '2' && p[1] == '0'
            && g_ascii_isdigit (p[2]) && g_ascii_isdigit (p[3]) && !g_ascii_isalnum (p[4])
            && p[4] != '.')
          {
            int year = 2000 + (p[2] - '0') * 10 + (p[3] - '0');
            if (year >= 2017 && year <= 2022)
              return TRUE;
          }
      }
  return FALSE;
}

/* The NeMo release a framework text names ("NeMo 25.04 (NeMo 2, ...)": 25 and 4, as
 * year and month); FALSE where it names none */
static gboolean
nemo_release (const char *framework, int *year, int *month)
{
  g_autofree char *low = framework != NULL ? g_ascii_strdown (framework, -1) : NULL;
  for (const char *p = low; p != NULL && (p = strstr (p, "nemo")) != NULL; p += 4)
    {
      const char *q = p + 4;
      while (*q == ' ' || *q == ':' || *q == '-')
        q++;
      if (g_ascii_isdigit (q[0]) && g_ascii_isdigit (q[1]) && q[2] == '.'
          && g_ascii_isdigit (q[3]) && g_ascii_isdigit (q[4]) && !g_ascii_isdigit (q[5]))
        {
          *year = (q[0] - '0') * 10 + (q[1] - '0');
          *month = (q[3] - '0') * 10 + (q[4] - '0');
          return *month >= 1 && *month <= 12;
        }
    }
  return FALSE;
}

/* Multi-head latent attention's head dims (d_qk = nope + rope 192, d_v 128 in DeepSeek-V3)
 * on Blackwell under a Transformer Engine stack of a NeMo release before 25.07: TE's
 * fused-attention backend took d_qk 192 / d_v 128 on sm100 for training only from
 * cuDNN 9.11 (NVIDIA/TransformerEngine PR 1797, released in TE 2.5; cudnn-frontend
 * PR 145: head dims above 128 on Blackwell from cuDNN 9.11, June 2025), and TE turns
 * FlashAttention off where the QK and V head dims differ (TE issue 2285 logs both on
 * sm100 with cuDNN 9.10.1), so such a run fell back to TE's unfused attention over
 * materialized scores. NeMo releases before 25.07 predate both. Where the row says
 * nothing of its attention kernel. */
static const char *
mla_unfused_on_blackwell (const ResPublishedCase *c, const char *framework)
{
  const ModelSpec *m = c->model;
  int year = 0, month = 0;
  if (m == NULL || m->kv_lora_rank == 0 || c->stack->attention != FW_ATTN_CUDNN
      || !sim_cost_device_blackwell (c->cluster))
    return NULL;
  const guint64 d_qk = m->qk_nope_head_dim + m->qk_rope_head_dim, d_v = m->v_head_dim;
  if (d_qk <= 128 && d_v <= 128 && d_qk == d_v)
    return NULL;
  if (!nemo_release (framework, &year, &month) || year * 100 + month >= 2507)
    return NULL;
  return "MLA's head dims on Blackwell before TE 2.5 / cuDNN 9.11 (fused from NeMo 25.07 on): "
         "TE's unfused attention";
}

/* Whether a size ends in tokens: "4096 tokens", "16 tok", "16 tokens/GPU" (the word
 * after the number and any spaces) */
static gboolean
followed_by_tokens (const char *end)
{
  while (*end == ' ')
    end++;
  if (g_ascii_strncasecmp (end, "tok", 3) != 0)
    return FALSE;
  end += 3;
  if (g_ascii_strncasecmp (end, "en", 2) == 0)
    end += 2;
  if (*end == 's' || *end == 'S')
    end++;
  return !g_ascii_isalpha (*end);
}

/* A batch written as sequences times their length in tokens, as OLMo-core's training
 * configs write it ("global_batch_size=1024 * 4096", README tables "1024 * 4096
 * (tokens)", "rank_microbatch_size=4 * 4096 (tokens)"): an optional label ending in '='
 * or ':', two whole numbers joined by '*', 'x' or the multiplication sign, then at most
 * "tokens" (bracketed or not). With `seq` > 0: 1 and *out the sequences, the first factor
 * where the second is `seq` (or the second where the first is), else the product over
 * `seq` where the cell says tokens and it divides; -1 a product of tokens that is no
 * whole count of `seq`-token sequences; 0: no such product (nor one of tokens).
 * row_cells_problem lets such a cell past its refusal of products, which skipped 15 of
 * 19 OLMo-core rows ("goes on with a product"). */
static int
seq_tokens_product (const char *cell, gint64 seq, gint64 *out)
{
  const char *p = cell;
  while (*p == ' ')
    p++;
  /* a label: letters, '_', '-', spaces, then '=' or ':' */
  const char *q = p;
  while (g_ascii_isalpha (*q) || *q == '_' || *q == '-' || *q == ' ')
    q++;
  if (q > p && (*q == '=' || *q == ':'))
    p = q + 1;
  else if (q > p)
    return 0;
  while (*p == ' ')
    p++;
  if (!g_ascii_isdigit (*p))
    return 0;
  char *end = NULL;
  const gint64 a = g_ascii_strtoll (p, &end, 10);
  p = end;
  while (*p == ' ')
    p++;
  if (*p == '*' || *p == 'x' || *p == 'X')
    p++;
  else if ((guchar) p[0] == 0xc3 && (guchar) p[1] == 0x97)
    p += 2;
  else
    return 0;
  while (*p == ' ')
    p++;
  if (!g_ascii_isdigit (*p))
    return 0;
  const gint64 b = g_ascii_strtoll (p, &end, 10);
  p = end;
  while (*p == ' ' || *p == '(')
    p++;
  const gboolean tokens = followed_by_tokens (p);
  if (tokens)
    {
      p += 3;
      while (g_ascii_isalpha (*p))
        p++;
    }
  while (*p == ' ' || *p == ')')
    p++;
  if (*p != '\0' || a < 1 || b < 1 || a > G_MAXINT || b > G_MAXINT || seq < 1)
    return 0;
  if (b == seq || a == seq)
    {
      *out = b == seq ? a : b;
      return 1;
    }
  if (!tokens)
    return 0;
  if ((a * b) % seq != 0 || (a * b) / seq > G_MAXINT)
    return -1;
  *out = (a * b) / seq;
  return 1;
}

/* A word of a config list as the notes write one, in the text's own case: a key=value or
 * key: value item ("tp=2", "GBS:512"), a flag ("--tp"), a number ("2", "8x", "1F1B"), or
 * an abbreviation in capitals ("TP", "GBS", "FSDP"); not a word of prose ("used",
 * "Megatron-LM", "No") */
static gboolean
config_word (const char *w, gsize n)
{
  if (n == 0)
    return FALSE;
  if (memchr (w, '=', n) != NULL || w[n - 1] == ':' || w[0] == '-' || g_ascii_isdigit (w[0]))
    return TRUE;
  gboolean upper = FALSE;
  for (gsize i = 0; i < n; i++)
    {
      if (g_ascii_islower (w[i]))
        return FALSE;
      upper = upper || g_ascii_isupper (w[i]);
    }
  return n >= 2 && upper;
}

/* Whether a micro-batch label in the notes, at `p` of `text` (`low` its lower case) with
 * its number ending at `end`, reads as the run's setting rather than prose:
 *  - no negation nor word of other runs before it in its sentence part (back to '.', ';',
 *    ',', a bracket or a line end): not "No mbs 4 runs.", "previous work used mbs=4",
 *    "other runs: mbs=4";
 *  - at the start of its clause (the part also ends at ':'), or after config words only
 *    (config_word): "Table 5: local batch size 32", "MBS 2, GBS 512", "TP 2 PP 4 MBS 2",
 *    "--tp 2 --micro-batch-size 2";
 *  - its number followed by the end, punctuation, a bracket, a config word or a word of
 *    what it counts ("local batch size 8 per FSDP rank", "MBS 2 sequences"): not "MBS 2
 *    for the first runs".
 * When in doubt it is not read. It looks at most 200 chars back, so a long text is read
 * in linear time. */
static gboolean
mb_label_is_config (const char *text, const char *low, const char *p, const char *end)
{
  static const char *const prose[] = { "no", "not", "without", "never", "non", "previous",
                                       "previously", "prior", "other", "others", "earlier",
                                       "baseline", "baselines", "compared", "comparison",
                                       "versus", "vs", "than", "unlike", "instead", "if",
                                       "would", "could" };
  static const char *const counts[] = { "per", "x", "sequences", "sequence", "seqs", "samples",
                                        "sample", "and", "with", "on", "at", "each", "via" };
  const char *part = p, *clause = NULL;
  while (part > low && p - part < 200 && strchr (".;,()[]\n", part[-1]) == NULL)
    {
      if (clause == NULL && part[-1] == ':')
        clause = part;
      part--;
    }
  if (part > low && strchr (".;,()[]\n", part[-1]) == NULL)
    return FALSE;                      /* no sentence part within reach: prose */
  if (clause == NULL)
    clause = part;
  for (const char *w = part; w < p;)
    {
      while (w < p && !g_ascii_isalnum (*w))
        w++;
      const char *e = w;
      while (e < p && g_ascii_isalnum (*e))
        e++;
      for (guint i = 0; i < G_N_ELEMENTS (prose); i++)
        if (strlen (prose[i]) == (gsize) (e - w) && strncmp (w, prose[i], (gsize) (e - w)) == 0)
          return FALSE;
      w = e;
    }
  for (const char *w = clause; w < p;)
    {
      while (w < p && (*w == ' ' || *w == '\t'))
        w++;
      const char *e = w;
      while (e < p && *e != ' ' && *e != '\t')
        e++;
      /* the label's own leading dashes or quotes ("--micro-batch-size", "`mbs") */
      gboolean own = TRUE;
      for (const char *k = w; k < e; k++)
        own = own && strchr ("-*`'\"", *k) != NULL;
      if (e > w && !own && !config_word (text + (w - low), (gsize) (e - w)))
        return FALSE;
      w = e;
    }
  const char *a = end;
  while (*a == ' ')
    a++;
  if (*a == '\0' || strchr (",;.:)]/|(", *a) != NULL)
    return TRUE;
  const char *e = a;
  while (*e != '\0' && *e != ' ' && strchr (",;.)]", *e) == NULL)
    e++;
  if (config_word (text + (a - low), (gsize) (e - a)))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    if (strlen (counts[i]) == (gsize) (e - a) && strncmp (a, counts[i], (gsize) (e - a)) == 0)
      return TRUE;
  return FALSE;
}

/* A weight after a size ("10 (pounds)", "10 lbs", "4 kg"): "lbs" is pounds as often as a
 * local batch */
static gboolean
followed_by_weight (const char *end)
{
  static const char *const units[] = { "pounds", "pound", "lbs", "lb", "kg", "kgs", "oz" };
  while (*end == ' ' || *end == '(')
    end++;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_ascii_strncasecmp (end, units[i], strlen (units[i])) == 0
        && !g_ascii_isalpha (end[strlen (units[i])]))
      return TRUE;
  return FALSE;
}

/* Whether the number that ends at `end` is divided ("4096 / (256 x 16) = 1", "16 / 8 GPUs
 * = 2", a derivation in the notes): a '/' or a division sign, then a number or a bracket,
 * and an '=' later in the clause. A divisor that is a word is a unit or a list's next item
 * ("2/GPU", "4 / step", "4 / dp 48 / gbs 192": the number stands) or a degree's name
 * ("512 / dp": no size). A product ("4 x 48 GPUs = 192", "2 x 2 accumulation steps = 4")
 * keeps its first factor, the size per unit. 0 where the number stands; 1 with *n the
 * whole number after the '=' and *after past it (2 where the result was checked as the
 * quotient); -1 where there is no one size. */
static int
expression_result (const char *end, gint64 *n, char **after)
{
  const char *a = end;
  while (*a == ' ')
    a++;
  const gboolean sign = (guchar) a[0] == 0xc3 && (guchar) a[1] == 0xb7;
  if (!(*a == '/' || sign))
    return 0;
  {
    const char *d = a + (sign ? 2 : 1);
    while (*d == ' ')
      d++;
    if (g_ascii_isalpha (*d))
      {
        /* a name of a degree or a count that ends the clause divides ("512 / dp", "512
         * / dp = 8"); any other word, or the name before more words or a number, is a
         * unit or a list's next item ("2/GPU", "4 / step", "2 / DP rank", "4 / dp 48 /
         * gbs 192") */
        static const char *const names[] = { "dp", "tp", "pp", "cp", "ep", "n", "world_size",
                                              "num_gpus", "ngpus", "dp_size", "world" };
        const char *e = d;
        while (g_ascii_isalnum (*e) || *e == '_')
          e++;
        const char *nx = e;
        while (*nx == ' ')
          nx++;
        gboolean name = FALSE;
        for (guint i = 0; i < G_N_ELEMENTS (names) && !name; i++)
          name = (gsize) (e - d) == strlen (names[i])
                 && g_ascii_strncasecmp (d, names[i], (gsize) (e - d)) == 0
                 && (*nx == '\0' || strchr ("=,;.)", *nx) != NULL);
        if (!name)
          return 0;
        if (*nx != '=')
          return -1;
      }
    else if (!(g_ascii_isdigit (*d) || *d == '('))
      return 0;
  }
  /* the quotient's result after an '=' that ends it: only numbers, operators, brackets
   * and at most two words of a unit between ("16 / 8 GPUs = 2", "4096 / (256 x 16) = 1",
   * "192 / 48 DP ranks = 4"), and the result the quotient; with other words the '=' is
   * another clause's and the number stands ("4/2 (7B/13B)", two models' sizes; "4/2 for
   * 8B/70B (GBS = 192 ...)", "4/8 (TP=2)", "MBS 4 / 8 TP = 2") */
  {
    static const char *const unit_words[] = { "gpu", "gpus", "rank", "ranks", "node", "nodes",
                                              "device", "devices", "replica", "replicas",
                                              "dp", "world_size", "data", "parallel" };
    int words = 0, depth = 0;
    /* the divisor's numbers multiplied ("(256 x 16)": 4,096), to check the result by;
     * 0 where a '+', '-', '.' or another '/' makes it more than a product */
    gint64 divisor = 1;
    gboolean checkable = TRUE, any_number = FALSE;
    a++;                               /* past the '/' (or the sign's first byte) */
    for (; *a != '\0' && *a != '='; a++)
      {
        depth += *a == '(' ? 1 : *a == ')' ? -1 : 0;
        if (g_ascii_isdigit (*a))
          {
            char *ne = NULL;
            const gint64 m = g_ascii_strtoll (a, &ne, 10);
            divisor = m > 0 && divisor <= G_MAXINT ? divisor * m : 0;
            any_number = TRUE;
            a = ne - 1;
            continue;
          }
        if (strchr ("+-./", *a) != NULL)
          checkable = FALSE;
        if (strchr (" ()/*xX+-.", *a) != NULL || (guchar) *a >= 0x80)
          continue;
        /* a word in a bracket is a note, not a term ("4/8 (TP=2)") */
        if (!g_ascii_isalpha (*a) || depth > 0)
          return 0;
        const char *e = a;
        while (g_ascii_isalnum (*e) || *e == '_')
          e++;
        gboolean unit = FALSE;
        for (guint i = 0; i < G_N_ELEMENTS (unit_words) && !unit; i++)
          unit = (gsize) (e - a) == strlen (unit_words[i])
                 && g_ascii_strncasecmp (a, unit_words[i], (gsize) (e - a)) == 0;
        if (!unit || ++words > 2)
          return 0;
        a = e - 1;
      }
    if (*a != '=')
      return 0;   /* (a name's quotient came here only with its '=') */
    /* a label's '=' right after its word is another setting ("MBS 4 / 8 TP=2": read 2) */
    if (g_ascii_isalpha (a[-1]) && words > 0)
      return 0;
    for (a++; *a == ' '; a++)
      ;
    if (!g_ascii_isdigit (*a))
      return any_number ? 0 : -1;   /* "4 / 48 DP = GBS 192": a list; "512 / dp = ?" */
    char *e = NULL;
    const gint64 v = g_ascii_strtoll (a, &e, 10);
    if (*e == '.' && g_ascii_isdigit (e[1]))
      return -1;   /* a fraction is no count */
    /* the result must be the quotient: "MBS 4 / 8 TP = 2", "4 / 48 DP = GBS 192", "4/1 DP
     * = 48" are a list of settings, and the first number stands (each read the last) */
    if (any_number && checkable && (divisor <= 0 || *n % divisor != 0 || *n / divisor != v))
      return 0;
    *n = v;
    *after = e;
    return any_number && checkable ? 2 : 1;
  }
}

/* The micro-batch size a micro_batch cell (or the notes) gives after a label, where it
 * does not start with the number: the label at the start of a word, then any of " =:_-",
 * the word "size", then the number. Two kinds of label:
 *   a micro-batch: "MBS 2", "mbs=2, gas=8", "micro batch size: 2", "micro-batch 2",
 *     "per-device batch 2", "batch per GPU: 2", "batch/GPU 4", MaxText's
 *     "per_device_batch_size=8" and its short "pdbs=8";
 *   a local batch, the per data-parallel rank batch a step's pipeline schedule splits
 *     (*local TRUE): torchtitan's "local_batch_size=4", "local batch size 8", "LBS 4".
 * Where the labels give micro-batches, the micro-batch they agree on; else the local
 * batch they agree on; 0 when none; -1 when two of a kind differ ("mbs 2 ... mbs 4": no
 * reading). These read as 1 before. A size in tokens is no batch of sequences ("batch/GPU
 * 4096 tokens", "micro_batch_size: 16 tokens": read as 4,096 and 16 sequences): not read,
 * and *tokens set; nor is a weight ("lbs = 10 (pounds)"). In the notes (`notes`) a label
 * is read only where it reads as the run's setting (mb_label_is_config: not "previous work
 * used mbs=4", "No mbs 4 runs."). */
static gint64
mb_labelled (const char *cell, gboolean notes, gboolean *local, gboolean *tokens)
{
  static const struct { const char *label; gboolean local; } labels[] = {
    { "micro_batch_size", FALSE }, { "micro-batch size", FALSE }, { "micro batch size", FALSE },
    { "microbatch size", FALSE }, { "micro_batch", FALSE }, { "micro-batch", FALSE },
    { "micro batch", FALSE }, { "microbatch", FALSE }, { "mbs", FALSE },
    { "per-device batch", FALSE }, { "per device batch", FALSE },
    { "per_device_batch", FALSE }, { "pdbs", FALSE }, { "per-gpu batch", FALSE },
    { "per gpu batch", FALSE }, { "batch per gpu", FALSE }, { "batch per device", FALSE },
    { "batch/gpu", FALSE }, { "batch / gpu", FALSE }, { "batch/device", FALSE },
    { "local_batch_size", TRUE }, { "local-batch size", TRUE }, { "local batch size", TRUE },
    { "local_batch", TRUE }, { "local batch", TRUE }, { "lbs", TRUE },
  };
  gint64 found[2] = { 0, 0 };   /* micro-batch, local batch */
  g_autofree char *low = g_ascii_strdown (cell, -1);
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    for (const char *p = strstr (low, labels[i].label); p != NULL;
         p = strstr (p + 1, labels[i].label))
      {
        if (p != low && g_ascii_isalnum (p[-1]))
          continue;
        const char *q = p + strlen (labels[i].label);
        for (gboolean moved = TRUE; moved;)
          {
            moved = FALSE;
            while (*q == ' ' || *q == '=' || *q == ':' || *q == '_' || *q == '-')
              q++, moved = TRUE;
            if (g_str_has_prefix (q, "size"))
              q += 4, moved = TRUE;
          }
        if (g_ascii_isdigit (*q))
          {
            char *end = NULL;
            gint64 n = g_ascii_strtoll (q, &end, 10);
            /* the first term of an expression ("microbatch size = 4096 / (256 x 16) =
             * 1", a derivation in the notes: read as 4,096) is no size; its result after
             * '=' is, else nothing is read */
            const gint64 first = n;
            char *first_end = end;
            const int quotient = expression_result (end, &n, &end);
            if (quotient < 0)
              continue;
            /* a result checked as the quotient stands whatever prose follows it ("8 / 2 =
             * 4 after halving for memory"); one that is not checked and does not read as
             * the setting leaves the first number, which the '/' after it ends */
            if (quotient > 0 && notes && !mb_label_is_config (cell, low, p, end))
              {
                if (quotient == 2 && mb_label_is_config (cell, low, p, first_end))
                  end = first_end;   /* (the label's place is what the check reads) */
                else
                  {
                    n = first;
                    end = first_end;
                  }
              }
            if (n >= 1 && n <= G_MAXINT && followed_by_tokens (end))
              *tokens = TRUE;
            else if (followed_by_weight (end)
                     || (notes && !mb_label_is_config (cell, low, p, end)))
              continue;
            else if (n >= 1 && n <= G_MAXINT && !g_ascii_isalpha (*end) && *end != '.')
              {
                gint64 *f = &found[labels[i].local ? 1 : 0];
                if (*f != 0 && *f != n)
                  return -1;
                *f = n;
              }
          }
      }
  *local = found[0] == 0 && found[1] != 0;
  return found[0] != 0 ? found[0] : found[1];
}

/* A micro_batch cell that leaves the size to the notes or the stack: "see notes", "(see
 * the notes)", "see below", "default", "the stack default" (any case, a final '.'). They
 * read as an empty cell does (the notes' one reading, else the stack's rule), where they
 * were refused for giving no size (and read as 1 before that). */
static gboolean
mb_cell_defers (const char *t)
{
  static const char *const words[] = { "see notes", "see note", "see the notes", "see below",
                                       "default", "defaults", "the default",
                                       "framework default", "stack default" };
  g_autofree char *w = g_strdup (t);
  gsize n = strlen (w);
  if (n > 0 && w[n - 1] == '.')
    w[--n] = '\0';
  if (n >= 2 && w[0] == '(' && w[n - 1] == ')')
    {
      w[n - 1] = '\0';
      memmove (w, w + 1, n - 1);
    }
  g_strstrip (w);
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_ascii_strcasecmp (w, words[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The batch a row states for one data-parallel rank and step of its pipeline: the
 * micro_batch cell (a count, or mb_labelled), else, where the cell is empty, says it
 * says nothing or defers ("see notes", "default": mb_cell_defers), a label in the notes
 * ("local batch size 32, global batch size 256"), all of the notes' labels agreeing. 1
 * with *n, *local (a local batch, not a micro-batch) and *where ("the notes" or NULL: the
 * cell); 0 when none is stated (the rule for an unstated micro-batch); -1 when the cell
 * says something but no size is read ("auto", "mbs 2 or 4"), which was taken as 1; -2
 * when the cell gives its size in tokens ("16 tokens", "mbs=4096 tokens"), which was read
 * as that many sequences. */
static int
micro_batch_stated (const ResCsv *csv, guint row, gint64 *n, gboolean *local,
                    const char **where)
{
  const char *cell = get (csv, row, "micro_batch");
  gboolean tokens = FALSE;
  *local = FALSE;
  *where = NULL;
  /* sequences x their tokens ("rank_microbatch_size=4 * 4096 (tokens)": 4 at seq_len
   * 4096; it was refused as a product) */
  gint64 seq = 0;
  if (cell_seq_len (seq_cell (csv, row), &seq) && seq_tokens_product (cell, seq, n) > 0)
    return 1;
  double lead;
  const char *lead_end = leading_number (cell, &lead);
  if (lead_end != NULL && followed_by_tokens (lead_end))
    return -2;
  if (cell_count (cell, n))
    return 1;
  if ((*n = mb_labelled (cell, FALSE, local, &tokens)) > 0)
    return 1;
  if (tokens)
    return -2;
  g_autofree char *t = g_strstrip (g_strdup (cell));
  if (*t != '\0' && !cell_unstated (t) && !mb_cell_defers (t))
    return -1;
  if ((*n = mb_labelled (get (csv, row, "notes"), TRUE, local, &tokens)) > 0)
    {
      *where = "the notes";
      return 1;
    }
  return 0;
}

/* A sequence_parallel cell read as yes (1), no (0) or neither (-1), after any label of its
 * own ("SP off", "sp=false", "sequence_parallel: true": the value after it):
 *  yes: "yes", "true", "1", "on", "y", "enabled", a check mark, each alone or first before
 *       a bracket or comma ("yes (with TP)", "Y (TP)"), or SP named as a word ("SP",
 *       "Megatron SP", "--sequence-parallel") and not negated;
 *  no:  "no", "false", "0", "off", "n", "disabled", "none", "not used", "not enabled", a
 *       cross, alike ("no (SP off)", "no SP"); a label said off by the words after it
 *       (negated_after: "sequence parallelism was not used"); SP named and said off
 *       (mention_off, negated_before, negated_after: "w/o SP", "SP was not used").
 * "not enabled" and "sequence parallelism was not used" were not recognised, "w/o SP"
 * read on. */
static int
sp_reading (const char *cell)
{
  static const char *const labels[] = { "--sequence-parallel", "sequence_parallel",
                                        "sequence-parallel", "sequence parallelism",
                                        "sequence parallel", "sp" };
  static const char *const no[] = { "no", "false", "0", "off", "n", "disabled", "none",
                                    "\xe2\x9c\x97", "\xe2\x9c\x98",
                                    /* "not used" / "unused" (skipped before) */
                                    "not used", "unused", "not enabled", NULL };
  static const char *const yes[] = { "yes", "true", "1", "on", "y", "enabled",
                                     "\xe2\x9c\x93", "\xe2\x9c\x94", NULL };
  const char *t = cell;
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (starts_with_ci (t, labels[i]))
      {
        const char *q = t + strlen (labels[i]);
        if (g_ascii_isalnum (*q))
          continue;
        if (negated_after (q))
          return 0;   /* "sequence parallelism was not used", "SP: not enabled" */
        while (*q == ' ' || *q == '=' || *q == ':')
          q++;
        if (*q != '\0' && *q != '(')
          t = q;   /* the value after the label */
        else
          return 1;   /* the label alone names SP: "SP", "--sequence-parallel" */
        break;
      }
  for (int pass = 0; pass < 2; pass++)
    {
      const char *const *words = pass == 0 ? no : yes;
      for (guint i = 0; words[i] != NULL; i++)
        {
          gsize n = strlen (words[i]);
          /* the word alone, or first and then a character that ends a word ("no-SP",
           * "yes, with TP"); a one-letter word ("y", "n", "0", "1") only before a space,
           * bracket or comma ("Y (TP)"; "1F1B" is not "1") */
          if (g_ascii_strncasecmp (t, words[i], n) == 0
              && (t[n] == '\0' || t[n] == ' ' || t[n] == '(' || t[n] == ','
                  || (n > 1 && !g_ascii_isalnum (t[n]))))
            return pass == 0 ? 0 : 1;
        }
    }
  /* SP named in longer text: on unless negated ("Megatron SP"; "without SP") */
  g_autofree char *low = g_ascii_strdown (t, -1);
  gboolean named = FALSE, off = FALSE;
  static const char *const names[] = { "sequence parallelism", "sequence parallel",
                                       "sequence-parallel", "sequence_parallel", "sp" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const gsize n = strlen (names[i]);
      for (const char *p = strstr (low, names[i]); p != NULL; p = strstr (p + n, names[i]))
        if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalnum (p[n]))
          {
            named = TRUE;
            off |= mention_off (low, p, n, NULL) || negated_before (low, p)
                   || negated_after (p + n);
          }
    }
  if (named)
    return off || strstr (low, "without") != NULL || strstr (low, "disabled") != NULL
             || strstr (low, " off") != NULL || g_str_has_prefix (low, "no ") ? 0 : 1;
  return -1;
}

/* Whether the words after a mention at `a` (lower case) say it is not stated: "not
 * stated", "not given", "not reported", "not specified", "unspecified", "unknown", after
 * spaces, ':', '=', '-', a bracket right after the mention ("SP (unknown)") or "was" /
 * "is" / "were", also past the other items of a list the mention opens
 * ("sequence-parallel/recompute not stated", "SP and recompute not stated"). Only within
 * the mention's own clause: ',', ';', '.', a later '(' or a setting word not joined to the
 * mention by a list ('/', '&', '+', "and", "or") ends it, so "TP=2 with sequence
 * parallelism, recompute unknown", "Sequence parallelism across the 8 TP ranks, pipeline
 * schedule not specified" state SP (they read as not stated, walking up to 8 words
 * across commas). A word that gives a setting ("on", "off", "used", "with", "not" before
 * anything else) ends the list: "SP on, recompute not stated" states SP. */
static gboolean
unstated_after (const char *a)
{
  static const char *const unstated[] = { "not stated", "not given", "not reported",
                                          "not specified", "unspecified", "unknown" };
  static const char *const verdict[] = { "on", "off", "yes", "no", "not", "used", "unused",
                                         "enabled", "disabled", "true", "false", "with",
                                         "without", "set" };
  static const char *const joiner[] = { "and", "or" };
  /* words that name another setting: past one not in a list, the words are its */
  static const char *const setting[] = {
    "tp", "pp", "dp", "cp", "ep", "vpp", "tensor", "pipeline", "data", "context", "expert",
    "recompute", "recomputation", "checkpointing", "activation", "activations", "ac",
    "zero", "fsdp", "sharding", "offload", "offloading", "precision", "fp8", "bf16",
    "micro-batch", "microbatch", "batch", "mbs", "gbs", "schedule", "interleaving", "ffn",
    "optimizer", "overlap", "flash", "attention", "ulysses", NULL };
  gboolean listed = TRUE;   /* the next word joins the mention's list */
  for (int words = 0; words < 8; words++)
    {
      while (*a == ' ' || *a == ':' || *a == '=' || *a == '-' || *a == '/' || *a == '&'
             || *a == '+' || (*a == '(' && words == 0))
        {
          if (*a == '/' || *a == '&' || *a == '+')
            listed = TRUE;
          a++;
        }
      for (guint i = 0; i < G_N_ELEMENTS (unstated); i++)
        if (g_str_has_prefix (a, unstated[i]) && !g_ascii_isalnum (a[strlen (unstated[i])]))
          return TRUE;
      const char *e = a;
      while (g_ascii_isalnum (*e) || *e == '_' || *e == '-')
        e++;
      if (e == a)
        return FALSE;   /* ',', ';', '.', '(' or the end: the clause ends */
      const gsize n = (gsize) (e - a);
      for (guint i = 0; i < G_N_ELEMENTS (verdict); i++)
        if (n == strlen (verdict[i]) && strncmp (a, verdict[i], n) == 0)
          return FALSE;
      gboolean join = FALSE, is_setting = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (joiner); i++)
        join |= n == strlen (joiner[i]) && strncmp (a, joiner[i], n) == 0;
      for (guint i = 0; setting[i] != NULL; i++)
        is_setting |= n == strlen (setting[i]) && strncmp (a, setting[i], n) == 0;
      if (is_setting && !listed)
        return FALSE;   /* another setting's words */
      listed = join || (listed && is_setting);   /* "or activation recompute" */
      a = e;
    }
  return FALSE;
}

/* The sentence of `low` (split at '.', '!', '?' before a space or the end, and ';') that
 * holds the mention at `p`: from *b up to *e */
static void
sentence_around (const char *low, const char *p, const char **b_out, const char **e_out)
{
  const char *b = p, *e = p;
  while (b > low && b[-1] != ';'
         && !((b[-1] == '.' || b[-1] == '!' || b[-1] == '?') && b[0] == ' '))
    b--;
  while (*e != '\0' && *e != ';'
         && !((*e == '.' || *e == '!' || *e == '?') && (e[1] == ' ' || e[1] == '\0')))
    e++;
  *b_out = b;
  *e_out = e;
}

/* Whether the sentence of `low` that holds the mention at `p` (sentence_around) names
 * `word` as a word of its own */
static gboolean
sentence_names (const char *low, const char *p, const char *word)
{
  const char *b, *e;
  sentence_around (low, p, &b, &e);
  const gsize n = strlen (word);
  for (const char *q = b; q + n <= e; q++)
    if (strncmp (q, word, n) == 0 && (q == low || !g_ascii_isalnum (q[-1]))
        && !g_ascii_isalnum (q[n]))
      return TRUE;
  return FALSE;
}

/* Whether the sentence of `low` that holds the mention at `p` (sentence_around) is about
 * a baseline or another row of the table: it names "baseline", or "row" / "rows" then a
 * number ("row 5", "rows #3-4") */
static gboolean
sentence_about_other_row (const char *low, const char *p)
{
  if (sentence_names (low, p, "baseline"))
    return TRUE;
  const char *b, *e;
  sentence_around (low, p, &b, &e);
  for (const char *q = b; q + 3 <= e; q++)
    if (strncmp (q, "row", 3) == 0 && (q == low || !g_ascii_isalnum (q[-1])))
      {
        const char *r = q + 3;
        if (r < e && *r == 's')
          r++;
        while (r < e && (*r == ' ' || *r == '#'))
          r++;
        if (r > q + 3 && r < e && g_ascii_isdigit (*r))
          {
            /* the row's own source cited ("from Table 3 row 4", "Table 3, row 4"): no
             * other row */
            char w[16];
            const char *wb = word_before (low, q, w);
            if (wb != NULL && (g_str_equal (w, "from") || g_ascii_isdigit (w[0])))
              continue;
            return TRUE;
          }
      }
  return FALSE;
}

/* Whether the mention of sequence parallelism at `p` (`n` long) in `low` is about
 * DeepSpeed-Ulysses: "Ulysses" (or "DeepSpeed-Ulysses") right before it, or right after
 * it, also as "(Ulysses)" or after "via" / "with" / "using" ("Ulysses sequence
 * parallelism degree 4", "sequence parallelism via Ulysses"). One only beside Ulysses,
 * negated or contrasted ("Sequence parallelism enabled, not Ulysses", "Megatron sequence
 * parallelism plus DeepSpeed-Ulysses", "Ulysses instead of Megatron sequence
 * parallelism") is Megatron's. */
static gboolean
sp_about_ulysses (const char *low, const char *p, gsize n)
{
  char w[16];
  const char *b = word_before (low, p, w);
  if (b != NULL && g_str_equal (w, "style"))   /* "Ulysses-style sequence parallelism" */
    b = word_before (low, b, w);
  if (b != NULL && g_str_equal (w, "ulysses"))
    return TRUE;
  const char *a = p + n;
  while (*a == ' ' || *a == '(' || *a == ':' || *a == '=')
    a++;
  static const char *const via[] = { "via ", "with ", "using ", "deepspeed-", "deepspeed " };
  for (guint i = 0; i < G_N_ELEMENTS (via); i++)
    if (g_str_has_prefix (a, via[i]))
      {
        a += strlen (via[i]);
        if (g_str_has_prefix (a, "deepspeed-") || g_str_has_prefix (a, "deepspeed "))
          a += 10;
        break;
      }
  return g_str_has_prefix (a, "ulysses") && !g_ascii_isalnum (a[7]);
}

/* What the notes say of sequence parallelism, for an empty cell: 1 named and not said off
 * anywhere, 0 said off (negated_before / negated_after: "we did not use sequence
 * parallelism", "Sequence parallelism off", "--sequence-parallel not set", "Megatron-style
 * sequence parallelism is unavailable", which read as the stack's default, on; "instead of"
 * also past "Megatron" / "Megatron-style": "Ulysses instead of Megatron sequence
 * parallelism") and never named as used, -1 neither or both. The names as whole words
 * ("sequence parallel" is not the start of "sequence parallelism off"). A mention not said
 * off before it and said not stated (unstated_after, in its own clause: "Sequence
 * parallelism not stated.", "recompute/sequence-parallel not stated") says nothing, the
 * stack's default (read off, and on in a slash list); "No sequence parallelism,
 * recompute not stated" is off. Nor does one about Ulysses (sp_about_ulysses: "Ulysses
 * sequence parallelism degree 4", read on): DeepSpeed-Ulysses is not Megatron's SP (the
 * cell's rule skips it); one merely in a sentence that names Ulysses is read as any
 * other ("Sequence parallelism enabled, not Ulysses" on, "Sequence parallelism disabled
 * (Ulysses used instead)" off: each said nothing). */
static int
notes_sp_reading (const char *notes)
{
  if (notes == NULL || *notes == '\0')
    return -1;
  static const char *const names[] = { "sequence parallelism", "sequence parallel",
                                       "sequence-parallel", "sequence_parallel" };
  static const char *const megatron[] = { "megatron-style ", "megatron-lm ", "megatron's ",
                                          "megatron " };
  g_autofree char *low = g_ascii_strdown (notes, -1);
  /* Ulysses named in the notes and not said off ("not Ulysses", "no Ulysses"): a plain
   * mention of sequence parallelism there may be either, so only one that names
   * Megatron's, or says it off, reads ("DeepSpeed-Ulysses, sequence parallel size 4",
   * "Uses sequence parallelism; whether Megatron or Ulysses is not stated" read on:
   * regression audit of 7 Dec) */
  gboolean ulysses = FALSE;
  for (const char *u = strstr (low, "ulysses"); u != NULL && !ulysses; u = strstr (u + 7, "ulysses"))
    ulysses = !negated_before (low, u);
  gboolean on = FALSE, off = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const gsize n = strlen (names[i]);
      for (const char *p = strstr (low, names[i]); p != NULL; p = strstr (p + n, names[i]))
        if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalpha (p[n]))
          {
            if (sp_about_ulysses (low, p, n))
              continue;
            /* the negation before "Megatron('s) sequence parallelism" is the mention's */
            const char *m = p;
            for (guint k = 0; k < G_N_ELEMENTS (megatron); k++)
              {
                const gsize mn = strlen (megatron[k]);
                if ((gsize) (p - low) >= mn && strncmp (p - mn, megatron[k], mn) == 0)
                  {
                    m = p - mn;
                    break;
                  }
              }
            if (negated_before (low, m) || negated_before (low, p))
              off = TRUE;
            else if (unstated_after (p + n))
              continue;
            else if (negated_after (p + n))
              off = TRUE;
            else if (ulysses && m == p)
              continue;
            else
              on = TRUE;
          }
    }
  return on == off ? -1 : on ? 1 : 0;
}

/* The all-gather's names, lower case */
static const char *const all_gather_words[] = { "all-gather", "all_gather", "allgather",
                                                "all gather" };

/* The length of an all-gather's name at `q` after at most one ' ', '-' or '_' and at most
 * one of the words "weight" or "FSDP" ("float8 weight all-gather", "FP8 FSDP all-gather":
 * the mention "float8 all-gather" goes on past its type there), else 0 */
static gsize
all_gather_after (const char *q)
{
  static const char *const between[] = { "weight ", "fsdp " };
  const char *r = q;
  if (*r == ' ' || *r == '-' || *r == '_')
    r++;
  for (guint i = 0; i < G_N_ELEMENTS (between); i++)
    if (g_str_has_prefix (r, between[i]))
      {
        r += strlen (between[i]);
        break;
      }
  for (guint i = 0; i < G_N_ELEMENTS (all_gather_words); i++)
    if (g_str_has_prefix (r, all_gather_words[i]))
      return (gsize) (r - q) + strlen (all_gather_words[i]);
  return 0;
}

/* What a cell says of FSDP's float8 all-gather (torchao / TorchTitan
 * enable_fsdp_float8_all_gather: the weights cast to float8 before FSDP gathers them):
 * 1 where it names a float8 one ("float8 all-gather", "fp8 all-gather", "f8 all-gather",
 * "float8 all_gather", "enable_fsdp_float8_all_gather", "float8 weight all-gather", "FP8
 * FSDP all-gather", "all-gather in float8"), 0 where it names only a 16-bit one
 * ("bfloat16 all-gather", "bf16 all-gather", "all-gather in bf16": torchao's docs name
 * their rows so, and its rowwise recipes cannot gather in float8) or says the float8 one
 * off ("no float8 all-gather", "enable_fsdp_float8_all_gather=False"), -1 where it says
 * nothing of it. A cell that names both a float8 all-gather and a 16-bit one is read as
 * float8 (the 16-bit one a comparison); a rowwise recipe's cell is map_plan's. */
static int
fsdp_all_gather_said (const char *text)
{
  static const struct { const char *type; gboolean fp8, word; } types[] = {
    { "float8", TRUE, FALSE }, { "fp8", TRUE, FALSE }, { "f8", TRUE, TRUE },
    { "bfloat16", FALSE, FALSE }, { "bf16", FALSE, TRUE },
  };
  if (text == NULL || *text == '\0')
    return -1;
  g_autofree char *low = g_ascii_strdown (text, -1);
  gboolean on = FALSE, off = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      const gsize n = strlen (types[i].type);
      for (const char *p = strstr (low, types[i].type); p != NULL;
           p = strstr (p + 1, types[i].type))
        {
          /* "f8" and "bf16" as words of their own, not the end of "mxf8" or "amp_bf16x" */
          if (types[i].word && p > low && g_ascii_isalnum (p[-1]))
            continue;
          const gsize m = all_gather_after (p + n);
          if (m == 0)
            continue;
          if (!types[i].fp8 || mention_off (low, p, n + m, NULL) || negated_before (low, p)
              || negated_after (p + n + m))
            off = TRUE;
          else
            on = TRUE;
        }
    }
  /* the type after the collective: "all-gather in float8", "all-gather in bf16" */
  for (guint w = 0; w < G_N_ELEMENTS (all_gather_words); w++)
    for (const char *p = strstr (low, all_gather_words[w]); p != NULL;
         p = strstr (p + 1, all_gather_words[w]))
      {
        const char *q = p + strlen (all_gather_words[w]);
        if (!g_str_has_prefix (q, " in "))
          continue;
        q += 4;
        for (guint i = 0; i < G_N_ELEMENTS (types); i++)
          {
            const gsize n = strlen (types[i].type);
            if (strncmp (q, types[i].type, n) != 0 || g_ascii_isalnum (q[n]))
              continue;
            if (!types[i].fp8 || mention_off (low, p, (gsize) (q + n - p), NULL)
                || negated_before (low, p) || negated_after (q + n))
              off = TRUE;
            else
              on = TRUE;
            break;
          }
      }
  /* a bf16 all-gather beside the float8 one is a comparison ("fp8 tensorwise with float8
   * all-gather (vs bf16 all-gather)"): float8; a rowwise recipe's cell ("fp8 rowwise (bf16
   * all-gather; float8 all-gather only with tensorwise)") map_plan reads as bf16 */
  return on ? 1 : off ? 0 : -1;
}

/* Whether a framework or notes cell says the run was compiled: "torch.compile" (or
 * "--compile", "--training.compile", "compile=true") not negated ("no torch.compile",
 * "without torch.compile", "torch.compile disabled / off / false"), and in the framework
 * cell "compiled" as well ("PyTorch (compiled)"); in the notes "compiled" is often prose
 * ("numbers compiled from the blog post"), so it is not read there (an audit of this
 * round: those three read compiled on the pytorch-fsdp stack once it offered --compile) */
static gboolean
names_compile (const char *text, gboolean framework_cell)
{
  if (text == NULL || *text == '\0')
    return FALSE;
  g_autofree char *low = g_ascii_strdown (text, -1);
  /* torchtitan's own keys: [training] compile = true (2024-25), and its [compile] table's
   * enable = true of later configs ("compile.enable = true": read eager) */
  static const char *const words[] = { "torch.compile", "--compile", "training.compile",
                                       "compile=true", "compile: true", "compile = true",
                                       "compiled", "compile.enable=true",
                                       "compile.enable = true", "compile.enable: true",
                                       "[compile] enable = true", "[compile] enable=true" };
  /* two passes: the first reads the mentions said not stated (a cell that says the run's
   * setting is unknown names none, whatever setting of another run it quotes: "torch.
   * compile not stated; the 70B run used compile = true"), the second the others */
  gboolean unstated_said = FALSE;
  for (int pass = 0; pass < 2; pass++)
    {
      if (pass == 1 && unstated_said)
        return FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (words); i++)
        {
          if (!framework_cell && g_str_equal (words[i], "compiled"))
            continue;
          const gsize n = strlen (words[i]);
          for (const char *p = strstr (low, words[i]); p != NULL; p = strstr (p + n, words[i]))
            {
              /* "compiled" inside "torch.compile(d)" or "uncompiled" is no word of its own */
              if (g_str_equal (words[i], "compiled") && p > low && (g_ascii_isalnum (p[-1]) || p[-1] == '.'))
                continue;
              if (g_str_equal (words[i], "--compile") && g_ascii_isalnum (p[n]))
                continue;
              /* a toml's setting said of another row or run ("compile = true in the 70B
               * toml; this 8B run was eager") is not this run's */
              if ((g_str_has_prefix (words[i], "compile") || words[i][0] == '[')
                  && !g_str_equal (words[i], "compiled") && sentence_about_other_row (low, p))
                {
                  /* ... unless it says this run shares it ("compile=true (same as the
                   * baseline)", "compile: true, as in row 838") */
                  const char *sb, *se;
                  sentence_around (low, p, &sb, &se);
                  g_autofree char *sent = g_strndup (sb, (gsize) (se - sb));
                  if (strstr (sent, "as in") == NULL && strstr (sent, "same as") == NULL)
                    continue;
                }
              /* a mention said not stated names nothing; the bracket right after it may give
               * the value ("torch.compile not stated (toml default compile = false)" read as
               * compiled; "... (the benchmark toml sets compile = true)" is, by its own
               * words; "compile = true" elsewhere may be another run's) */
              {
                const char *a = p + n;
                while (*a == ' ' || *a == ':' || *a == '(')
                  a++;
                /* (and its other words: "not specified", "not reported", "unknown", after a
                 * colon or in a bracket too: each read compiled) */
                static const char *const unstated[] = { "not stated", "not specified",
                                                        "not reported", "unspecified", "unknown",
                                                        "not given" };
                gsize un = 0;
                for (guint k = 0; k < G_N_ELEMENTS (unstated) && un == 0; k++)
                  if (g_str_has_prefix (a, unstated[k]))
                    un = strlen (unstated[k]);
                /* ... as a verdict: at the end of its clause or before a reason in
                 * brackets, not of something else ("(unknown mode)", "unknown for the
                 * 70B run") */
                if (un > 0)
                  {
                    const char *v = a + un;
                    while (*v == ' ')
                      v++;
                    if (!(*v == '\0' || strchr (",;.)(", *v) != NULL))
                      un = 0;
                  }
                if (un > 0)
                  {
                    a += un;
                    while (*a == ' ')
                      a++;
                    const char *close = *a == '(' ? strchr (a, ')') : NULL;
                    if (close != NULL)
                      {
                        g_autofree char *br = g_strndup (a, (gsize) (close - a));
                        static const char *const on[] = { "compile = true", "compile=true",
                                                          "compile: true", NULL };
                        if (contains_any_ci (br, on))
                          return TRUE;
                      }
                    unstated_said = TRUE;
                    continue;
                  }
              }
              if (pass == 1 && !negated_before (low, p) && !negated_after (p + n))
                return TRUE;
            }
        }
    }
  return FALSE;
}

/* Whether the sentence holding an async-TP mention at `p` (inside `low`; bounded by '.'
 * and ';') speaks of the benchmark's purpose or of another run, not of this run's TP
 * mode: "a setting chosen to show async TP", "to demonstrate async TP", "compared with
 * async TP", "vs async TP", "the async TP baseline", "unlike the async TP row". The
 * torchtitan async-TP benchmark's vanilla-TP rows (8B at TP 8, "chosen to show async
 * TP") read async TP on: 2.255 s for both modes (audit of 8 Dec). */
static gboolean
async_tp_sentence_aside (const char *low, const char *p)
{
  static const char *const aside[] = { "to show", "to demonstrate", "showcase", "compar",
                                       "other row", "next row", NULL };
  return sentence_has_any (low, p, aside) || sentence_has_any (low, p, other_run_words);
}

/* Whether a framework or notes cell says the run used async TP (TorchTitan's
 * enable_async_tensor_parallel, the stack's --async-tp): "AsyncTP", "async TP", "async-TP",
 * "Async Tensor Parallel(ism)", "enable_async_tensor_parallel=True", at a mention not
 * said off (mention_off, negated_before, negated_after: "async TP off", "no async TP",
 * "without async TP", "async TP=False", "AsyncTP: False", "async TP was not enabled",
 * "enable_async_tensor_parallel=False"). Those were read as async TP on (by "async TP"
 * anywhere in the cell), and with it a compiled run that no cell named; the three other
 * spellings were not read at all. */
static gboolean
names_async_tp (const char *text)
{
  if (text == NULL || *text == '\0')
    return FALSE;
  g_autofree char *low = g_ascii_strdown (text, -1);
  static const char *const words[] = { "asynctp", "async tp", "async-tp", "async_tp",
                                       "async tensor parallel", "async_tensor_parallel",
                                       "asynchronous tp", "asynchronous tensor parallel" };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    {
      gsize n = strlen (words[i]);
      for (const char *p = strstr (low, words[i]); p != NULL; p = strstr (p + 1, words[i]))
        {
          /* a word of its own ("enable_" before the flag's name is part of it) */
          if (p > low && g_ascii_isalnum (p[-1]))
            continue;
          /* the mention runs to the end of its word ("parallelism") */
          gsize m = n;
          while (g_ascii_isalnum (p[m]))
            m++;
          if (m > n && words[i][n - 1] == 'p')
            continue;   /* "async tpu" is no async TP */
          /* a bracket right after the mention ("async TP (enable_async_tensor_parallel)
           * was off"): the verdict after it */
          const char *after = p + m;
          if (*after == ' ' && after[1] == '(')
            after++;
          if (*after == '(' && strchr (after, ')') != NULL)
            after = strchr (after, ')') + 1;
          /* ... or the mention inside that bracket: the verdict after its close */
          else
            {
              const char *open = NULL;
              for (const char *q = low; q < p; q++)
                open = *q == '(' ? q : *q == ')' ? NULL : open;
              if (open != NULL && strchr (p + m, ')') != NULL)
                after = strchr (p + m, ')') + 1;
            }
          if (!mention_off (low, p, m, NULL) && !negated_before (low, p)
              && !negated_after (p + m) && !negated_after (after)
              && !async_tp_sentence_aside (low, p))
            return TRUE;
        }
    }
  return FALSE;
}

/* Whether a framework or notes cell says the run was not compiled: a mention of compile
 * said off ("no torch.compile", "without torch.compile", "torch.compile disabled",
 * "compile=false", "not compiled"), "uncompiled", or in the framework cell "eager" as a
 * word of its own ("torchtitan (eager)"; in the notes "eager mode" only). A mention in a
 * sentence about a baseline or another row (sentence_about_other_row: "no torch.compile
 * on the FSDP-only baseline row", "eager mode baseline is row 5") says nothing of this
 * run: those kept an async-TP row from its implied compile, and it was refused. */
/* Whether a cell says in so many words that the run itself ran eager ("this 8B run was
 * eager", "the run ran eager"): it wins over a compile setting the cell quotes ("compile
 * = true in the 70B toml; this 8B run was eager" read compiled) */
static gboolean
says_run_eager (const char *text)
{
  if (text == NULL)
    return FALSE;
  /* of this run: "this" earlier in the words' clause ("the FSDP-only baseline ran eager",
   * "the 70B run was eager" are another run's) */
  /* ... "this", at most two words, then the run: "this run was eager", "this 8B run ran
   * eager" (not "the baseline in this table ran eagerly", "prior to this change the run
   * was eager") */
  static GRegex *re = NULL;
  if (g_once_init_enter (&re))
    g_once_init_leave (&re, g_regex_new ("\\bthis(?: [a-z0-9.-]+){0,2} run (?:was|ran) "
                                         "(?:run )?(?:in )?eager", G_REGEX_CASELESS, 0, NULL));
  return g_regex_match (re, text, 0, NULL);
}

static gboolean
names_compile_off (const char *text, gboolean framework_cell)
{
  if (text == NULL || *text == '\0')
    return FALSE;
  g_autofree char *low = g_ascii_strdown (text, -1);
  /* (and torchtitan's [compile] table said off: "compile.enable = false") */
  static const char *const plain[] = { "uncompiled", "eager mode", "compile.enable=false",
                                       "compile.enable = false", "[compile] enable = false",
                                       "[compile] enable=false" };
  for (guint i = 0; i < G_N_ELEMENTS (plain); i++)
    for (const char *p = strstr (low, plain[i]); p != NULL; p = strstr (p + 1, plain[i]))
      if (!sentence_about_other_row (low, p))
        return TRUE;
  for (const char *p = strstr (low, "eager"); framework_cell && p != NULL;
       p = strstr (p + 5, "eager"))
    if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalnum (p[5])
        && !sentence_about_other_row (low, p))
      return TRUE;
  static const char *const words[] = { "torch.compile", "compiled", "compile" };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    {
      const gsize n = strlen (words[i]);
      for (const char *p = strstr (low, words[i]); p != NULL; p = strstr (p + n, words[i]))
        if ((mention_off (low, p, n, NULL) || negated_before (low, p) || negated_after (p + n))
            && !sentence_about_other_row (low, p))
          return TRUE;
    }
  return FALSE;
}

/* Whether an unstated tp or pp is 1 on this row's stack. A stack whose configs default
 * to no model parallelism (defaults.model_parallel "none": MaxText's
 * ici_tensor_parallelism 1 with ici_fsdp_parallelism -1, torchtitan's tensor / pipeline
 * degrees 1, plain FSDP, Composer) ran an unstated tp or pp at 1; the Megatron stacks,
 * whose published runs nearly all split the model, still skip it (GPT-3 175B "TP/PP not
 * stated" on 96 GPUs fits no plan at 1) ... unless the framework or notes cell names the
 * model parallelism it left out ("torchtitan (FSDP2+TP+PP ...)", "3D parallelism"): then
 * the degrees are unknown. map_plan reads the degrees by it, and the global batch a row
 * leaves to the stack's accumulation default takes its dp by it. */
static gboolean
degrees_default_one (ResPublishedCase *c, const ResCsv *csv, guint row)
{
  const char *fw_cell = framework_cell (c, csv, row), *notes_cell = get (csv, row, "notes");
  gboolean names_mp = FALSE;
  static const char *const mp_words[] = { "+tp", "tp+", "+pp", "pp+", "tensor parallel",
                                          "tensor-parallel", "pipeline parallel",
                                          "pipeline-parallel", "3d parallel", "4d parallel",
                                          "5d parallel", "model parallel" };
  for (int k = 0; k < 2 && !names_mp; k++)
    {
      g_autofree char *low = g_ascii_strdown (k == 0 ? fw_cell : notes_cell, -1);
      g_autofree char *pad = g_strconcat (" ", low, " ", NULL);
      for (guint i = 0; i < G_N_ELEMENTS (mp_words) && !names_mp; i++)
        for (const char *q = strstr (pad, mp_words[i]); q != NULL && !names_mp;
             q = strstr (q + 1, mp_words[i]))
          /* "no tensor parallel" says there is none */
          names_mp = !g_ascii_isalnum (q[mp_words[i][0] == '+' ? 0 : -1])
                     && !negated_before (pad, q);
    }
  return c->stack != NULL && c->stack->default_degrees_one && !names_mp;
}

/* An empty cell, or one that says it says nothing (cell_unstated) */
static gboolean
cell_blank (const ResCsv *csv, guint row, const char *column)
{
  g_autofree char *t = g_strstrip (g_strdup (get (csv, row, column)));
  return *t == '\0' || cell_unstated (t);
}

/* A tp the row leaves empty where the degrees it states already fill the GPUs: pp x cp
 * (x dp where the dp cell states it) = n_gpus leaves no GPU for a tensor-parallel split,
 * so tp is 1 (arithmetic, not a guess; without dp, dp is 1 too). The Zero Bubble paper's
 * Table 3 gives only "Pipelines (GPUs) = 8" on 8 GPUs: pp "8 (Pipelines (GPUs) = 8)", tp
 * empty, read tp 1, dp 1 (it was skipped "tp not stated"). A pp the row leaves empty as
 * well says nothing of the split (rows 13 and 14: both empty, still skipped), nor does a
 * cp or dp cell that says something no degree is read from. On TRUE *why says it (g_free). */
static gboolean
tp_left_one (const ResPublishedCase *c, const ResCsv *csv, guint row, char **why)
{
  gint64 pp, cp = 1, dp = 0;
  if (!cell_blank (csv, row, "tp") || !cell_size (csv, row, "pp", &pp))
    return FALSE;
  if (!cell_size (csv, row, "cp", &cp) && !cell_blank (csv, row, "cp"))
    return FALSE;
  if (!cell_size (csv, row, "dp", &dp) && !cell_blank (csv, row, "dp"))
    return FALSE;
  if (c->n_gpus < 1 || pp * cp * MAX (dp, 1) != c->n_gpus)
    return FALSE;
  if (why != NULL)
    {
      GString *w = g_string_new (NULL);
      g_string_printf (w, "not stated: pp %" G_GINT64_FORMAT, pp);
      if (cp > 1)
        g_string_append_printf (w, " x cp %" G_GINT64_FORMAT, cp);
      if (dp > 0)
        g_string_append_printf (w, " x dp %" G_GINT64_FORMAT, dp);
      g_string_append_printf (w, " = n_gpus %" G_GINT64_FORMAT " leaves 1", c->n_gpus);
      *why = g_string_free (w, FALSE);
    }
  return TRUE;
}

/* A sequence_parallel cell that names DeepSpeed-Ulysses as the row's, not negated ("yes
 * (Megatron SP; not Ulysses)" is Megatron's SP: it was read as Ulysses, the regression
 * audit of 7 Dec) */
static gboolean
names_ulysses (const char *cell)
{
  g_autofree char *low = g_ascii_strdown (cell, -1);
  for (const char *p = strstr (low, "ulysses"); p != NULL; p = strstr (p + 7, "ulysses"))
    if (!negated_before (low, p))
      return TRUE;
  return FALSE;
}

static gboolean
map_plan (ResPublishedCase *c, const ResCsv *csv, guint row, gint64 global_batch, gboolean fp8)
{
  Plan *p = &c->plan;
  gint64 tp = 1, pp = 1, cp = 1, dp = 0, v;
  gboolean has_dp = cell_size (csv, row, "dp", &dp);
  const gboolean ones = degrees_default_one (c, csv, row);
  g_autofree char *tp_t = g_strstrip (g_strdup (get (csv, row, "tp")));
  g_autofree char *pp_t = g_strstrip (g_strdup (get (csv, row, "pp")));
  if (cell_size (csv, row, "tp", &v))
    tp = v;
  else if (ones && (*tp_t == '\0' || cell_unstated (tp_t)))
    tp = 1, c->degrees_defaulted |= 1;
  else if (tp_left_one (c, csv, row, &c->tp_why))
    tp = 1;   /* pp x cp (x dp) already n_gpus */
  else if (!has_dp)
    return skip (c, "tp not stated");
  if (cell_size (csv, row, "pp", &v))
    pp = v;
  else if (ones && (*pp_t == '\0' || cell_unstated (pp_t)))
    pp = 1, c->degrees_defaulted |= 2;
  else if (!has_dp)
    return skip (c, "pp not stated");
  if (cell_size (csv, row, "cp", &v))
    cp = v;
  else
    {
      /* a cp cell that says something but no degree read is skipped, not read as 1 */
      g_autofree char *cp_t = g_strstrip (g_strdup (get (csv, row, "cp")));
      if (*cp_t != '\0' && !cell_unstated (cp_t))
        return skip (c, "cp '%s': no context-parallel degree read (hint: the degree as one "
                     "number, e.g. '4 (ring)')", cp_t);
    }
  if (!has_dp)
    {
      if (c->n_gpus % (tp * pp * cp) != 0)
        return skip (c, "parallel sizes do not multiply to the GPU count (tp %" G_GINT64_FORMAT
                     " x pp %" G_GINT64_FORMAT " x cp %" G_GINT64_FORMAT " does not divide %"
                     G_GINT64_FORMAT ")", tp, pp, cp, c->n_gpus);
      dp = c->n_gpus / (tp * pp * cp);
    }
  else if (tp * pp * cp * dp != c->n_gpus)
    return skip (c, "parallel sizes do not multiply to the GPU count (tp %" G_GINT64_FORMAT
                 " x pp %" G_GINT64_FORMAT " x cp %" G_GINT64_FORMAT " x dp %" G_GINT64_FORMAT
                 " = %" G_GINT64_FORMAT ", n_gpus %" G_GINT64_FORMAT ")", tp, pp, cp, dp,
                 tp * pp * cp * dp, c->n_gpus);

  gint64 vpp = 1;
  const char *vp_cell = get (csv, row, "virtual_pipeline");
  /* the schedule's name "1F1B" holds no V: "1F1B interleaved" read as V = 1 by its
   * leading 1 (and "1F1B interleaved (V=4)" found two numbers); blanked for the number
   * readings below */
  g_autofree char *vp_num = g_strdup (vp_cell);
  for (char *q = vp_num; *q != '\0'; q++)
    if (g_ascii_strncasecmp (q, "1f1b", 4) == 0)
      memset (q, '_', 4);
  int vp_sched = vp_schedule_named (vp_cell);
  gint64 vp_layers = vp_layers_per_chunk (vp_cell);
  if (vp_sched == VP_ZERO_BUBBLE)
    return skip (c, "virtual_pipeline '%s': zero-bubble pipeline schedules (split backward "
                 "passes) are not modelled (hint: 1F1B, interleaved with V, GPipe or DualPipe)",
                 vp_cell);
  /* the notes' zero-bubble schedule where the cell names none (a cell that names one,
   * or a V, is the row's): not modelled either; it read 1F1B */
  g_autofree char *vp_trim = g_strstrip (g_strdup (vp_cell));
  if (vp_sched < 0 && pp > 1
      && (*vp_trim == '\0' || cell_unstated (vp_trim) || strcmp (vp_trim, "1") == 0)
      && notes_zero_bubble (get (csv, row, "notes")))
    return skip (c, "the notes name a zero-bubble pipeline schedule (split backward passes), "
                 "which is not modelled (hint: write the schedule in virtual_pipeline: 1F1B, "
                 "interleaved with V, GPipe or DualPipe)");
  if (vp_sched >= 0)
    vpp = 1;   /* GPipe, DualPipe (set below), or a schedule said not to interleave */
  else if (vp_layers > 0)
    {
      /* "--num-layers-per-virtual-pipeline-stage 4": layers per model chunk, so
       * V = n_layers / (pp x that); where the layers alone do not divide, the embedding
       * and the loss take a layer slot each, as a stated V is split below: V = (n_layers +
       * 2) / (pp x that), the first and last model chunks one layer short. That is the
       * Zero Bubble repository's split for this flag (sail-sg/zero-bubble-pipeline-
       * parallelism, --allow-padding-num-layers: megatron/arguments.py pads the layers up
       * to a multiple of pp and takes V = padded / pp / that; ParallelTransformer.
       * get_offset in megatron/legacy/model/transformer.py takes the two padding layers
       * off the last and the first chunk, a chunk left empty running a no-op layer). Its
       * 1.5B, 6.2B, 14.6B and 28.3B models (22 / 30 / 46 / 62 layers on 8 / 8 / 16 / 32
       * stages) all fall short of pp by 2: at one layer a chunk, V = 3, 4, 3, 2. With
       * neither split (16 layers, pp 4, 3 a chunk) the row is skipped, the hint saying
       * how to write V. */
      gint64 L = (gint64) c->model->n_layers, per = pp * vp_layers;
      if (L % per == 0 && L / per >= 1)
        vpp = L / per;
      else if ((L + 2) % per == 0 && (L + 2) / per >= 1)
        {
          vpp = (L + 2) / per;
          c->vpp_why = g_strdup_printf ("from %" G_GINT64_FORMAT " layer%s per virtual stage: "
                                        "%" G_GINT64_FORMAT " slots (%" G_GINT64_FORMAT
                                        " layers, the embedding and the loss) / (pp %"
                                        G_GINT64_FORMAT " x %" G_GINT64_FORMAT "); the layers "
                                        "alone do not divide", vp_layers,
                                        vp_layers == 1 ? "" : "s", L + 2, L, pp, vp_layers);
        }
      else
        return skip (c, "virtual_pipeline '%s': %" G_GINT64_FORMAT " layer%s per virtual "
                     "stage do%s not split %" G_GINT64_FORMAT " layers over pp %"
                     G_GINT64_FORMAT ", evenly or with the embedding and the loss taking a "
                     "layer slot each (%" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " are not "
                     "multiples of pp x %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT ") (hint: "
                     "write V, the model chunks per stage, as a number)",
                     vp_cell, vp_layers, vp_layers == 1 ? "" : "s", vp_layers == 1 ? "es" : "",
                     L, pp, L, L + 2, vp_layers, per);
      if (c->vpp_why == NULL)
        c->vpp_why = g_strdup_printf ("from %" G_GINT64_FORMAT " layer%s per virtual stage: %"
                                      G_GINT64_FORMAT " layers / (pp %" G_GINT64_FORMAT " x %"
                                      G_GINT64_FORMAT ")", vp_layers,
                                      vp_layers == 1 ? "" : "s", L, pp, vp_layers);
    }
  else if (cell_count (vp_num, &v))
    vpp = v;
  else if ((v = vp_labelled (vp_num)) > 0)
    vpp = v;   /* "VP=5", "vpp 5", "interleaved (V=4)" */
  /* an empty cell, the V by its config key in the notes (vp_key_in_notes) */
  else if (pp > 1 && (*vp_trim == '\0' || cell_unstated (vp_trim))
           && (v = vp_key_in_notes (get (csv, row, "notes"))) > 1)
    {
      vpp = v;
      c->vpp_why = g_strdup_printf ("from the notes' config key (V = %" G_GINT64_FORMAT ")", v);
    }
  /* ... or the layers per chunk by Megatron's key there, split as the cell's would be */
  else if (pp > 1 && (*vp_trim == '\0' || cell_unstated (vp_trim))
           && (v = vp_layers_key_in_notes (get (csv, row, "notes"))) > 0
           && ((gint64) c->model->n_layers % (pp * v) == 0
               || ((gint64) c->model->n_layers + 2) % (pp * v) == 0))
    {
      const gint64 L = (gint64) c->model->n_layers;
      vpp = L % (pp * v) == 0 ? L / (pp * v) : (L + 2) / (pp * v);
      c->vpp_why = g_strdup_printf ("from the notes' %" G_GINT64_FORMAT " layer%s per virtual "
                                    "stage: V = %" G_GINT64_FORMAT, v, v == 1 ? "" : "s", vpp);
    }
  else if (pp > 1 && interleaved_v_unstated (get (csv, row, "virtual_pipeline"),
                                               framework_cell (c, csv, row),
                                               get (csv, row, "notes")))
    {
      /* "interleaved (V not stated)": the stack's own chunking where it documents one
       * (defaults.pp_layers_per_chunk: each model chunk that many layer slots, the
       * embedding and the loss taking one slot each where the layers alone do not divide),
       * else the smallest V >= 2 that splits the layers, evenly or with one layer fewer on
       * the first and last model chunk. Examples: Llama 3 405B (126 layers, pp 16) on
       * Meta's stack (framework "Meta internal (4D parallel, NCCLX)" -> meta-llama3, one
       * slot a chunk: the paper's Sec. 3.3.2, "the first model chunk on the first stage has
       * only the embedding"): (126 + 2) / 16 = V = 8; the same row on a stack that states
       * no chunking: V = 2, chunks of 3 + 30 x 4 + 3. The measured micro-batch scaling of
       * rows 1 and 2 agrees with V = 8 (validate: fixed part 0.94 s, below the (pp - 1) /
       * V x 0.36 s = 2.7 s of fill and drain that V = 2 would hold; the paper's own
       * 43 / 41% at m = 32 / 16 leave V >= 6). */
      c->vpp_unstated = TRUE;   /* validate also reports each V (res_published_case_v_sweep) */
      gint64 L = (gint64) c->model->n_layers, slots = c->stack->default_pp_chunk_slots;
      gint64 per = slots * pp;
      if (slots > 0 && L % per == 0 && L / per >= 2)
        vpp = L / per;
      else if (slots > 0 && (L + 2) % per == 0 && (L + 2) / per >= 2)
        vpp = (L + 2) / per;
      else
        for (gint64 cand = 2; cand * pp <= L; cand++)
          if (L % (cand * pp) == 0 || (L + 2) % (cand * pp) == 0)
            {
              vpp = cand;
              break;
            }
    }

  /* Uneven split where the layers do not divide: the embedding and the loss take one
   * layer slot each (Megatron-Core --account-for-embedding-in-pipeline-split and
   * --account-for-loss-in-pipeline-split), so the first and last model chunks hold
   * (L + 2) / chunks - 1 layers (Llama 3 405B: 126 layers, 16 stages -> 7 + 14 x 8 + 7;
   * at V = 8 a first chunk with only the embedding, the paper's Sec. 3.3.2). */
  gint64 layers = (gint64) c->model->n_layers, chunks = pp * vpp;
  c->plan_valid = TRUE;
  c->plan_read = RES_PUB_READ_DEGREES;
  p->world_size = (int) c->n_gpus;
  p->tp = (int) tp, p->pp = (int) pp, p->cp = (int) cp;
  p->dp_given = (int) dp;
  p->vpp = (int) vpp;
  if (vpp > 1)
    p->schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  else if (vp_sched == PLAN_SCHED_GPIPE && pp > 1)
    p->schedule = PLAN_SCHED_GPIPE;
  /* a row that names no schedule, on a stack whose pipeline offers GPipe and not 1F1B
   * (MaxText's pipeline: its stack offers gpipe only): the stack's schedule, as search
   * takes it; "MaxText" at pp 4 was refused for the 1F1B it never named (audit of 7 Dec) */
  else if (pp > 1 && vp_sched < 0 && c->stack != NULL
           && !((c->stack->offers_schedules >> PLAN_SCHED_1F1B) & 1)
           && ((c->stack->offers_schedules >> PLAN_SCHED_GPIPE) & 1))
    {
      p->schedule = PLAN_SCHED_GPIPE;
      c->vpp_why = g_strdup ("no schedule named: the stack's pipeline, GPipe");
    }
  p->schedule_set = TRUE;
  if (layers % chunks != 0)
    {
      if ((layers + 2) % chunks == 0 && chunks >= 2)
        p->account_embedding = p->account_loss = TRUE;
      else if (!c->moe.present
               || !res_pub_moe_layer_split ((guint64) layers, (guint64) chunks,
                                            &p->first_chunk_layers, &p->last_chunk_layers))
        return skip (c, "%" G_GINT64_FORMAT " layers do not divide into pp x vpp = %"
                     G_GINT64_FORMAT " chunks, nor with one layer fewer on the first and "
                     "last", layers, chunks);
      /* a split of model chunks; with vpp 1 the same as Megatron's stage split, whose
       * flags the plan then carries where no end is empty (Megatron refuses 0 there) */
      if (vpp == 1 && p->first_chunk_layers > 0 && p->last_chunk_layers > 0)
        {
          p->first_stage_layers = p->first_chunk_layers;
          p->last_stage_layers = p->last_chunk_layers;
          p->first_chunk_layers = p->last_chunk_layers = -1;
        }
    }

  /* Sequence parallelism: empty -> what the notes say (notes_sp_reading), else on with TP
   * where the stack has it (Megatron-LM runs set it since Korthikanti et al. 2022). A
   * yes that names DeepSpeed-Ulysses ("yes (Ulysses, not Megatron SP)", read on) is the
   * Ulysses skip below: Ulysses is not Megatron's SP. */
  const char *sp = get (csv, row, "sequence_parallel");
  gboolean ulysses = FALSE;
  g_autofree char *sp_t = g_strstrip (g_strdup (sp));
  if (cell_unstated (sp_t))
    *sp_t = '\0';
  int sp_read = sp_reading (sp_t);
  int sp_notes = *sp_t == '\0' ? notes_sp_reading (get (csv, row, "notes")) : -1;
  /* (named at tp 1 it is off: Megatron has no SP without TP, and plan validation turns
   * it off; the line said "off (the cell is empty: the notes name it)") */
  if (*sp_t == '\0' && sp_notes >= 0)
    {
      p->sequence_parallel = sp_notes == 1 && tp > 1;
      c->sp_why = sp_notes == 0 ? "the cell is empty: the notes say it off"
                  : tp > 1      ? "the cell is empty: the notes name it"
                                : "the cell is empty: the notes name it, but tp is 1 and "
                                  "SP needs TP";
    }
  else if (*sp_t == '\0')
    p->sequence_parallel = tp > 1 && c->stack->default_sequence_parallel;
  else if (sp_read == 0)
    p->sequence_parallel = FALSE;
  else if (sp_read == 1 && !names_ulysses (sp_t))
    p->sequence_parallel = TRUE;
  /* DeepSpeed-Ulysses named in the cell with its degree in the cp column: the sequence
   * split by all-to-all of heads, which the plan models as context parallelism with the
   * a2a exchange (set below, after the cp cell's reading), and no Megatron SP (the
   * Megatron-DeepSpeed Ulysses example's rows: "DeepSpeed-Ulysses degree 8" at cp 8 were
   * skipped, audit of 7 Dec) */
  else if (names_ulysses (sp_t) && cp > 1)
    {
      p->sequence_parallel = FALSE;
      ulysses = TRUE;
      c->sp_why = "DeepSpeed-Ulysses is the cp column's degree: context parallelism by "
                  "all-to-all, not Megatron's SP";
    }
  else if (names_ulysses (sp_t))
    return skip (c, "sequence_parallel '%s': DeepSpeed-Ulysses splits attention heads over "
                 "ranks by all-to-all, context parallelism rather than Megatron's sequence "
                 "parallelism with TP (hint: its degree in the cp column, with sequence_"
                 "parallel naming Ulysses, or Megatron SP: yes or no)", sp_t);
  else
    return skip (c, "sequence_parallel '%s' not recognised (hint: yes or no)", sp_t);
  c->plan_read = RES_PUB_READ_SP;

  /* Megatron-LM's own pipeline code before Megatron-Core (megatron/p2p_communication.py,
   * 2021-22) sent with scatter-gather (--no-scatter-gather-tensors-in-pipeline unset, the
   * default: Narayanan et al. SC'21 sec. 4.1) and synchronized the device after every
   * exchange of either schedule: the megatron-lm-2021 stack's pp_scatter_gather and
   * pp_p2p_sync, which the plan takes where it leaves them unset (sim_plan_apply_stack);
   * Megatron-Core's p2p_communication.py has no scatter-gather, nor DeepSpeed's pipeline
   * engine (Megatron-DeepSpeed, GPT-NeoX). The stack is the one the framework text names
   * (fw_stack_preset_for_text: "Megatron-LM" without "Core", a year or a YY.MM version from
   * 2023; and no distributed optimizer named, res_published_case_new). */

  int hsdp_shard = 0, group_gpus = 0;
  if (!map_sharding (c, get (csv, row, "zero_stage_or_fsdp"), framework_cell (c, csv, row),
                     get (csv, row, "notes"), get (csv, row, "source"), (int) pp,
                     &p->sharding, &hsdp_shard, &group_gpus))
    return FALSE;
  /* the kind is read; a group that does not fold skips below, the line saying so */
  c->plan_read = RES_PUB_READ_SHARDING;
  /* A group stated in GPUs ("sharded across 128 GPUs") counts model replicas of tp x cp x
   * pp GPUs each (TP and CP take the innermost devices; a data-parallel rank of every
   * stage): 512 GPUs at tp 4, pp 8 are dp 16 ranks, the whole DP group, zero3 (it was
   * skipped, 512 / (tp x cp) = 128 not dividing dp 16). A group of all of DP or more is
   * zero3 over DP. */
  if (group_gpus > 0 && p->sharding == PLAN_SHARD_HSDP)
    {
      g_autofree char *zs = g_strstrip (g_strdup (get (csv, row, "zero_stage_or_fsdp")));
      g_autofree char *stages = pp > 1 ? g_strdup_printf (" x pp %" G_GINT64_FORMAT, pp)
                                       : g_strdup ("");
      if (group_gpus >= dp * tp * cp * pp)
        hsdp_shard = (int) dp;
      else if (group_gpus % (tp * cp * pp) != 0)
        return skip (c, "zero_stage_or_fsdp '%s': a shard group of %d GPUs does not hold "
                     "whole data-parallel ranks of tp %" G_GINT64_FORMAT " x cp %"
                     G_GINT64_FORMAT "%s GPUs", zs, group_gpus, tp, cp, stages);
      else
        hsdp_shard = (int) (group_gpus / (tp * cp * pp));
    }
  /* Megatron-LM's ZeRO-2 (the stack chosen for it above, zero_is_distopt) is its
   * distributed optimizer: the gradients accumulate in the full buffer and are
   * reduce-scattered once a step, optimizer states and reduced gradients sharded (zero1
   * in tandem's terms), not DeepSpeed's reduce-scatter after every micro-batch, which
   * read MegaScale's 175B rows 2.1-2.5 times too slow */
  if (c->zero_is_distopt && p->sharding == PLAN_SHARD_ZERO2)
    {
      p->sharding = PLAN_SHARD_ZERO1;
      c->sharding_why = "ZeRO-2 on Megatron-LM: its distributed optimizer, gradients reduce-"
                        "scattered once a step";
    }
  /* ZeRO-1 / ZeRO-2 over a group the cell states that is not the data-parallel group:
   * no plan shards them over a sub-group, so the row is read over all of DP, saying so */
  if ((p->sharding == PLAN_SHARD_ZERO1 || p->sharding == PLAN_SHARD_ZERO2)
      && ((group_gpus > 0 && group_gpus != dp * tp * cp * pp) || (hsdp_shard > 0 && hsdp_shard != dp)))
    c->sharding_why = p->sharding == PLAN_SHARD_ZERO1
                        ? "its stated group is not the data-parallel group: ZeRO-1 over a "
                          "sub-group is not modelled, read over all of DP"
                        : "its stated group is not the data-parallel group: ZeRO-2 over a "
                          "sub-group is not modelled, read over all of DP";
  if (p->sharding == PLAN_SHARD_HSDP)
    {
      g_autofree char *zs = g_strstrip (g_strdup (get (csv, row, "zero_stage_or_fsdp")));
      /* no group stated: one server (FSDP's HYBRID_SHARD shards within a node), its
       * devices over tp x cp: a shard group counts data-parallel ranks, and TP and CP take
       * the innermost devices (Megatron's and torchtitan's rank order), so an 8-GPU server
       * at tp 2 holds 4 of them. A server that holds one rank (tp 8 on 8 GPUs) gives a
       * group of 1, which shards nothing: it was predicted as "hsdp, shard group 1", plain
       * replication under HSDP's name; the row says it sharded, but not over what. */
      if (hsdp_shard == 0)
        {
          gint64 server = (gint64) c->cluster->levels[0].count;
          hsdp_shard = (int) (server % (tp * cp) == 0 && server >= tp * cp
                                ? server / (tp * cp) : server);
          /* (the hint a group that shards: at dp 1 none does, and it named 'shard 1',
           * the value it had just refused) */
          if (hsdp_shard == 1 && dp > 1)
            return skip (c, "zero_stage_or_fsdp '%s' states no shard group, and the default, "
                         "one server's data-parallel ranks (%" G_GINT64_FORMAT " GPUs / (tp %"
                         G_GINT64_FORMAT " x cp %" G_GINT64_FORMAT ")), is 1, which shards "
                         "nothing (hint: the group, e.g. 'HSDP, shard %" G_GINT64_FORMAT "')",
                         zs, server, tp, cp, dp);
          if (hsdp_shard == 1)
            return skip (c, "zero_stage_or_fsdp '%s': with dp 1 there is no data-parallel "
                         "group to shard over (hint: 'none', or check tp, pp, cp and n_gpus)",
                         zs);
          if (hsdp_shard > dp || dp % hsdp_shard != 0)
            hsdp_shard = (int) dp;   /* a group larger than DP shards over all of DP */
        }
      /* A stated group or replica count that does not divide dp: the row cannot be what
       * it says ("HSDP shard 3" and "HSDP 256" on dp 128 were predicted as zero3 over all
       * 128 ranks, the stated group dropped without a word) */
      else if (hsdp_shard < 0)   /* R replicas stated: groups of dp / R */
        {
          if (dp % -hsdp_shard != 0)
            return skip (c, "zero_stage_or_fsdp '%s': %d replicas do not divide dp %"
                         G_GINT64_FORMAT, zs, -hsdp_shard, dp);
          hsdp_shard = (int) (dp / -hsdp_shard);
        }
      else if (hsdp_shard > dp || dp % hsdp_shard != 0)
        return skip (c, "zero_stage_or_fsdp '%s': shard group %d does not divide dp %"
                     G_GINT64_FORMAT, zs, hsdp_shard, dp);
      p->hsdp_shard_size = hsdp_shard;
      if (hsdp_shard == dp)
        p->sharding = PLAN_SHARD_ZERO3;
      /* a stated group of 1 (or dp replicas) shards nothing: replication, DDP, as
       * torchtitan's data_parallel_shard_degree 1 reads */
      else if (hsdp_shard == 1)
        {
          p->sharding = PLAN_SHARD_NONE;
          p->hsdp_shard_size = 0;
        }
    }
  if (!map_recompute (c, get (csv, row, "recompute"), get (csv, row, "notes"),
                      get (csv, row, "flops_convention"), &p->recompute))
    return FALSE;
  /* torchtitan's "selective" without its option: the train configs of its published
   * tables (llama3_8b.toml: mode 'selective', selective_ac_option 'op') ran op-level AC;
   * a dense layer only (plan.h) */
  g_autofree char *rc_cell = g_strstrip (g_strdup (get (csv, row, "recompute")));
  /* IBM's fms-fsdp calls checkpointing a share p of the blocks whole "selective"
   * (fms_fsdp/policies/ac_handler.py apply_fsdp_checkpointing: p = 1/2 wraps every other
   * block), not Megatron's attention-core recompute, which it read as (its 34B / 70B rows
   * out of memory with no recompute time, 30-38% fast: audit of 7 Dec); with p unstated
   * the row is skipped */
  if (p->recompute == PLAN_RECOMPUTE_SELECTIVE && runs_fms_fsdp (c, framework_cell (c, csv, row)))
    return skip (c, "recompute '%s': fms-fsdp's selective checkpointing wraps a share p of the "
                 "blocks whole (fms_fsdp/policies/ac_handler.py), which tandem reads only "
                 "as 'every N layers' (hint: write 'every N layers' for p = 1/N, or 'full' "
                 "for p = 1)", rc_cell);
  /* CPU offloading of N layers' activations (map_recompute read it as no recompute) */
  if (p->recompute == PLAN_RECOMPUTE_NONE && contains_ci (rc_cell, "offload"))
    p->cpu_offload_layers = MAX (offload_layer_count (rc_cell), 0);
  if (p->recompute == PLAN_RECOMPUTE_SELECTIVE
      && contains_ci (framework_cell (c, csv, row), "torchtitan")
      && (g_ascii_strcasecmp (rc_cell, "selective") == 0 || g_ascii_strcasecmp (rc_cell, "SAC") == 0))
    p->recompute = PLAN_RECOMPUTE_SELECTIVE_OP;
  /* op-level AC is modelled for dense layers with separate q, k, v (plan.h) */
  if (p->recompute == PLAN_RECOMPUTE_SELECTIVE_OP && (c->moe.present || model_spec_is_mla (c->model)))
    p->recompute = PLAN_RECOMPUTE_SELECTIVE;
  /* Megatron's method as the cell names it with its count: block -> the first N layers
   * of each chunk ("block, 4 layers", "recompute_method=block, recompute_num_layers=4");
   * uniform -> checkpoints of N layers (all recomputed; N sets what is stored). Every
   * N-th layer (torchtitan's layer AC): recompute_every, which plan_resolve turns into
   * the block method over floor(chunk layers / N) layers. */
  if (p->recompute == PLAN_RECOMPUTE_FULL && !contains_ci (rc_cell, "(layer)"))
    {
      int n_layers = recompute_layers_in (rc_cell), every = recompute_every_in (rc_cell);
      if (block_method_named (rc_cell) && n_layers > 0)
        {
          p->recompute_method = PLAN_RECOMPUTE_BLOCK;
          p->recompute_num_layers = n_layers;
        }
      else if ((contains_ci (rc_cell, "uniform") || names_checkpoint_num_layers (rc_cell))
               && n_layers > 0)
        p->recompute_num_layers = n_layers;
      else if (every > 1)
        {
          p->recompute_method = PLAN_RECOMPUTE_BLOCK;
          p->recompute_num_layers = 0;
          p->recompute_every = every;
        }
      else if (!contains_ci (rc_cell, "uniform"))
        {
          /* full recompute of N layers: the block method over the first N, as Megatron's
           * --recompute-method block --recompute-num-layers N and YaFSDP's
           * num-ckpt-layers N (its first N layers wrapped) checkpoint them; the other
           * layers keep their activations. "N of M layers" (M the model's layers) counts
           * over the model, shared evenly among its chunks; a bare "N layers" or
           * "num-ckpt-layers N" is per chunk, as Megatron's flag is (the same with one
           * chunk). The cell's count, else one the notes give in the strict forms with
           * checkpointing named ("activation checkpointing on 10 of 80 layers"), where
           * the cell says only "full". */
          const char *notes = get (csv, row, "notes");
          const char *from = rc_cell, *col = "recompute";
          int of = 0, part = ckpt_layers_in (rc_cell, &of, TRUE);
          if (part <= 0 && (contains_ci (notes, "checkpoint") || contains_ci (notes, "recompute")
                            || contains_ci (notes, "ckpt")))
            {
              part = ckpt_layers_in (notes, &of, FALSE);
              from = notes;
              col = "notes";
              if (part > 0)
                c->recompute_why = "the layer count from the notes";
            }
          /* "all 80 layers", or a bare count that is the model's own ("full, 80 layers"):
           * every layer, not 80 a chunk (read per chunk, it was refused on every pipelined
           * row) */
          if (part > 0 && of == 0 && (part == layers || all_layers_said (from, part)))
            part = 0;
          if (part > 0)
            {
              if (of > 0 && of != layers)
                return skip (c, "%s '%s': %d of %d layers, but the model has %" G_GINT64_FORMAT
                             " layers (hint: check n_layers and the count)", col, from, part,
                             of, layers);
              if (part > (of > 0 ? of : layers))
                return skip (c, "%s '%s': %d layers recomputed, more than the model's %"
                             G_GINT64_FORMAT, col, from, part, layers);
              if (of > 0 && part % chunks != 0)
                return skip (c, "%s '%s': %d of %d layers do not share evenly among the %"
                             G_GINT64_FORMAT " model chunks (hint: write the count of each "
                             "pipeline chunk, e.g. 'full, N layers')", col, from, part, of,
                             chunks);
              int per_chunk = of > 0 ? (int) (part / chunks) : part;
              /* the most layers a chunk holds where they do not divide (126 layers on 16
               * stages of 8 chunks: 1; the embedding and the loss take slots of their
               * own); a count of that many or more recomputes every layer of every chunk,
               * as Megatron's block method does (layers below the count are recomputed).
               * It was refused against the floor ("1 layers a chunk, more than the 0 each
               * of the 128 model chunks holds"; audit of 7 Dec) */
              const gint64 most = (layers + chunks - 1) / chunks;
              if (per_chunk < most)
                {
                  p->recompute_method = PLAN_RECOMPUTE_BLOCK;
                  p->recompute_num_layers = per_chunk;
                }
              else
                c->recompute_why = "a count of at least the layers of a chunk: every layer";
            }
        }
    }
  if (contains_ci (get (csv, row, "recompute"), "(layer)") && p->recompute == PLAN_RECOMPUTE_FULL)
    {
      /* torchtitan's apply_ac with selective_ac_option "2" wraps a block when its running
       * count is a multiple of 2: floor(L / 2) of a chunk's L blocks recompute fully, the
       * rest store everything. Megatron's --recompute-method block with
       * --recompute-num-layers floor(L / 2) stores and re-runs the same layers (which
       * ones differs, not how many); a chunk of one layer recomputes nothing. */
      gint64 half = layers / chunks / 2;
      if (half < 1)
        p->recompute = PLAN_RECOMPUTE_NONE;
      else
        {
          p->recompute_method = PLAN_RECOMPUTE_BLOCK;
          p->recompute_num_layers = (int) half;
        }
    }
  /* "selective (modules: ...)": Megatron-Core's --recompute-modules names, in a dense row
   * as in an MoE row (a dense layer's mlp and layernorm modules are checkpointed as an MoE
   * layer's are; plan/program-blocks.c, plan/memory.c) */
  {
    g_autofree char *why = NULL;
    if (!res_pub_moe_recompute (get (csv, row, "recompute"), p, &why))
      return skip (c, "%s", why);
  }
  c->plan_read = RES_PUB_READ_RECOMPUTE;

  p->micro_batch = 1;
  gboolean mb_local = FALSE;
  const char *mb_where = NULL;
  int mb_read = micro_batch_stated (csv, row, &v, &mb_local, &mb_where);
  if (mb_read == -2)
    return skip (c, "micro_batch '%s': a size in tokens is no micro-batch of sequences (hint: "
                 "the sequences of one micro-batch, 'mbs=2')", get (csv, row, "micro_batch"));
  if (mb_read < 0)
    return skip (c, "micro_batch '%s': no micro-batch size read (hint: a number, or one after "
                 "its label: 'mbs=2', 'local_batch_size=4')", get (csv, row, "micro_batch"));
  if (mb_read > 0 && (!mb_local || pp == 1))
    {
      /* "MBS 2", "mbs=2, gas=8", "micro batch size: 2"; a local batch without PP is the
       * micro-batch (torchtitan's local_batch_size, accumulated GBS / (dp x it) times) */
      p->micro_batch = (int) v;
      if (mb_where != NULL || mb_local)
        c->micro_batch_why = g_strdup_printf ("the %s %" G_GINT64_FORMAT "%s%s",
                                              mb_local ? "local batch" : "micro-batch", v,
                                              mb_where != NULL ? " in " : "",
                                              mb_where != NULL ? mb_where : "");
    }
  else if (mb_read > 0)
    {
      /* a local batch under PP: split into the stack's pipeline micro-batches, pp x
       * stages per rank of them (torchtitan: local batch 32 on PP 8 -> 4 under 1F1B),
       * else the stack's one-sample micro-batches (also where the split does not divide,
       * as for an unstated micro-batch below) */
      gboolean split = c->stack->default_pp_microbatches == FW_PP_MB_STAGES
                       && v % (pp * vpp) == 0;
      p->micro_batch = split ? (int) (v / (pp * vpp)) : 1;
      c->micro_batch_why = g_strdup_printf ("the local batch %" G_GINT64_FORMAT "%s%s over "
                                            "%s", v, mb_where != NULL ? " in " : "",
                                            mb_where != NULL ? mb_where : "",
                                            split ? "pp x V micro-batches, the stack's split"
                                                  : "the stack's one-sample micro-batches");
    }
  else if (cell_count (get (csv, row, "grad_accum"), &v) && v >= 1
           && global_batch % ((gint64) dp * v) == 0)
    {
      /* unstated beside a stated accumulation: the global batch over dp x its micro-
       * batches (DeepSeek-V3 on 256 GB300 under torchtitan, 4,096 on dp 128 x 32: 1; the
       * stack's split below gave 2 in 16, the accumulation cell unread) */
      p->micro_batch = (int) (global_batch / ((gint64) dp * v));
      c->micro_batch_why = g_strdup_printf ("global_batch %" G_GINT64_FORMAT " / (dp %d x "
                                            "grad_accum %" G_GINT64_FORMAT ")", global_batch,
                                            (int) dp, v);
    }
  else if (pp > 1 && c->stack->default_pp_microbatches == FW_PP_MB_STAGES
           && global_batch % dp == 0 && (global_batch / dp) % (pp * vpp) == 0)
    /* unstated under PP: the stack's own count, pp x stages per rank micro-batches of the
     * local batch (torchtitan's build_pipeline_schedule: Llama 3.1 405B, local batch 32 on
     * PP 8 -> 8 micro-batches of 4 under 1F1B, 16 of 2 interleaved); a local batch that
     * does not divide would fail in torchtitan, so such a row keeps one-sample micro-batches */
    p->micro_batch = (int) (global_batch / dp / (pp * vpp));
  p->global_batch = (int) global_batch;
  p->seq_length = (int) c->model->max_positions;
  c->plan_read = RES_PUB_READ_BATCH;
  /* a step of several pipeline schedules where the notes state the local batch each runs
   * ("LBS 8 (local batch per pipeline step) x GA 4", NeMo AutoModel's table): torch's
   * schedule.step() once per local batch, GBS / (dp x LBS) of them (plan.h pp_schedules) */
  if (pp > 1)
    p->pp_schedules = res_pub_pp_schedules (get (csv, row, "notes"), global_batch, dp,
                                            p->micro_batch);
  /* the stack's own schedule where the row names none (hai-llm: DualPipe, the DeepSeek-V3
   * report Sec. 3.2.1), on a pipeline it can run: one chunk a rank, an even pp and an
   * even count of at least 2 pp micro-batches (plan-validate.c) */
  if (vp_sched == PLAN_SCHED_DUALPIPE && pp > 1)
    {
      /* DualPipe named in the virtual_pipeline cell: the row's schedule, where it can run */
      if (global_batch % ((gint64) dp * p->micro_batch) != 0
          || !plan_dualpipe_counts_ok ((int) pp,
                                       (int) (global_batch / ((gint64) dp * p->micro_batch))))
        return skip (c, "virtual_pipeline '%s': DualPipe needs an even pp and an even count "
                     "of at least 2 pp micro-batches", vp_cell);
      p->schedule = PLAN_SCHED_DUALPIPE;
    }
  else if (c->stack->default_pp_dualpipe && vpp == 1 && vp_sched < 0
      && !contains_ci (get (csv, row, "notes"), "1F1B")
      && !contains_ci (framework_cell (c, csv, row), "1F1B")
      && global_batch % ((gint64) dp * p->micro_batch) == 0
      && plan_dualpipe_counts_ok ((int) pp, (int) (global_batch / ((gint64) dp * p->micro_batch))))
    p->schedule = PLAN_SCHED_DUALPIPE;
  if (fp8)
    p->compute_dtype = PLAN_PREC_FP8;   /* Transformer Engine: FP8 GEMMs, bf16 weights */
  else if (c->fp4)
    p->compute_dtype = PLAN_PREC_FP4;   /* NVFP4 GEMMs, bf16 weights */
  else if (!(c->cluster->device.peak_flops[TOPO_DTYPE_BF16] > 0))
    /* a device without BF16 (V100): its 16-bit type is fp16 (map_precision refused a
     * row that names bf16 there) */
    p->compute_dtype = p->param_dtype = PLAN_PREC_FP16;
  const char *notes = get (csv, row, "notes");
  if (attention_unfused (get (csv, row, "source"), framework_cell (c, csv, row), notes)
      || (c->stack->attention == FW_ATTN_UNFUSED && !names_flash_attention (notes)
          && !names_flash_attention (framework_cell (c, csv, row))))
    p->attention_backend = PLAN_ATTN_UNFUSED;
  else if (!names_flash_attention (notes)
           && (c->attn_why = mla_unfused_on_blackwell (c, framework_cell (c, csv, row))) != NULL)
    p->attention_backend = PLAN_ATTN_UNFUSED;
  /* the row's reading decides, not the stack's default (a row that names FlashAttention
   * under an unfused stack runs flash) */
  p->attention_backend_set = TRUE;
  /* Adam's two moments kept in bf16 (the master weights stay fp32) where the row's notes
   * say so: the DeepSeek-V3 report (Sec. 3.3.3) and Megatron-Bridge's DeepSeek-V3 recipe
   * (use_precision_aware_optimizer, exp_avg_dtype = exp_avg_sq_dtype = bf16) */
  if (contains_ci (notes, "Adam moments in bf16"))
    p->optim_dtype = PLAN_PREC_BF16;
  /* bf16 parameters stepped in place, with no fp32 master copy, where the row's notes say
   * so: torch.optim.Adam allocates exp_avg and exp_avg_sq like the parameter
   * (torch/optim/adam.py _init_group, zeros_like with preserve_format), so its moments are
   * bf16 too: 4 bytes of optimizer state a parameter instead of 12. NeMo AutoModel's own
   * MoE model classes ran so until NVIDIA-NeMo/Automodel PR #1896 (merged 2026-04-17,
   * "fix: fp32 master weights for custom MoE models under FSDP2": initialize_weights'
   * default dtype=torch.bfloat16 cast every parameter to bf16, and the optimizer stepped
   * those) */
  if (contains_ci (notes, "bf16 parameters without fp32 master weights"))
    {
      p->master_weights = FALSE;
      p->optim_dtype = PLAN_PREC_BF16;
    }
  /* the exchange named in the cp cell ("2 (a2a)", "CP=2, all-gather", "2 (ring)") or as
   * Megatron-Core's flag in the notes ("--cp-comm-type a2a", "cp_comm_type=allgather";
   * its choices p2p, a2a, allgather, a2a+p2p, megatron/training/arguments.py): these were
   * read as the stack's ring; the hierarchical a2a+p2p is not modelled */
  const char *cp_cell = get (csv, row, "cp");
  g_autofree char *cp_flag = NULL;
  static const char *const cp_keys[] = { "cp-comm-type", "cp_comm_type" };
  for (guint i = 0; i < G_N_ELEMENTS (cp_keys) && cp_flag == NULL; i++)
    {
      const char *k = strstr (notes, cp_keys[i]);
      if (k == NULL)
        continue;
      k += strlen (cp_keys[i]);
      while (*k == ' ' || *k == '=' || *k == ':' || *k == '"' || *k == '\'')
        k++;
      gsize n = strcspn (k, " ,;)\"'");
      cp_flag = g_strndup (k, n);
    }
  if (cp > 1 && ((cp_flag != NULL && strstr (cp_flag, "a2a+p2p") != NULL)
                 || contains_ci (cp_cell, "a2a+p2p") || contains_ci (cp_cell, "hierarchical")))
    return skip (c, "cp '%s': hierarchical context parallelism (a2a+p2p) is not modelled "
                 "(hint: p2p, a2a or allgather)", cp_flag != NULL ? cp_flag : cp_cell);
  static const char *const cp_ag[] = { "allgather", "all-gather", "all_gather", "all gather",
                                       NULL };
  static const char *const cp_a2a[] = { "a2a", "all-to-all", "alltoall", "all_to_all",
                                        "ulysses", NULL };
  static const char *const cp_ring[] = { "p2p", "ring", NULL };
  if (cp > 1 && (contains_any_ci (cp_cell, cp_ag)
                 || (cp_flag != NULL && contains_any_ci (cp_flag, cp_ag))))
    p->cp_comm = PLAN_CP_ALLGATHER;
  else if (cp > 1 && (contains_any_ci (cp_cell, cp_a2a)
                      || (cp_flag != NULL && contains_any_ci (cp_flag, cp_a2a))))
    p->cp_comm = PLAN_CP_A2A;
  else if (cp > 1 && (contains_any_ci (cp_cell, cp_ring)
                      || (cp_flag != NULL && contains_any_ci (cp_flag, cp_ring))))
    p->cp_comm = PLAN_CP_P2P;
  else if (contains_ci (notes, "all-gather based CP") || contains_ci (notes, "K/V all-gathered"))
    p->cp_comm = PLAN_CP_ALLGATHER;
  else if (cp > 1 && c->stack->default_cp_allgather)
    /* the stack's own K/V exchange where the row does not name one (torchtitan's
     * context_parallel_rotate_method default 'allgather'; "CP rotate method not stated") */
    p->cp_comm = PLAN_CP_ALLGATHER;
  /* the sequence_parallel cell's DeepSpeed-Ulysses (above) */
  if (ulysses)
    p->cp_comm = PLAN_CP_A2A;
  /* Meta's "4D parallelism" (Llama 3 paper, Sec. 3.3.2, "network-aware parallelism
   * configuration") orders the groups [TP, CP, PP, DP], innermost first: pipeline stages
   * sit next to each other and DP is outermost, unlike Megatron's tp-cp-ep-dp-pp.
   * Example: framework "Meta internal (4D parallel, NCCLX)". Only on Meta's stack:
   * torchtitan's "4D parallelism" lays its mesh out as its own (pp, dp, cp, tp). */
  if (contains_ci (framework_cell (c, csv, row), "4D parallel")
      && g_str_equal (c->stack->name, "meta-llama3"))
    {
      g_free (p->rank_order);
      p->rank_order = g_strdup ("tp-cp-ep-pp-dp");
      /* its asynchronous pipeline exchanges ("we adopt asynchronous point-to-point
       * communication in PP", no device synchronize after them) are the meta-llama3
       * stack's pp_p2p_sync, which the framework text names (fw_stack_preset_for_text) */
    }
  /* Megatron and NeMo benchmarks overlap the DP reduce-scatter and the parameter
   * all-gather with compute (--overlap-grad-reduce --overlap-param-gather); FSDP does
   * the same with its prefetching. */
  p->overlap_grad_reduce = c->stack->default_overlap_grad_reduce;
  p->overlap_param_gather = c->stack->default_overlap_param_gather;
  /* TP communication overlap only where the source says so (Megatron-LM README H100
   * table: "--tp-comm-overlap"), or where the framework's configurations for these runs
   * set it: NeMo's performance runs (NeMo-Framework-Launcher
   * launcher_scripts/conf/training/gpt3/175b.yaml, llama/llama3_70b.yaml,
   * nemotron/nemotron_8b.yaml: "ub_tp_comm_overlap: true"), which also reduce the
   * gradients in bf16 (the launcher's H100 examples, examples/training/gpt/h100/ and llama/h100/ scripts:
   * "optim.grad_sync_dtype=bf16"). */
  /* RoPE unfused where the notes say so ("unfused RoPE": the framework's configuration
   * for the run leaves apply_rope_fusion off; plan --no-rope-fusion) */
  p->no_rope_fusion = contains_ci (get (csv, row, "notes"), "unfused RoPE");
  /* Transformer Engine's cross entropy (plan --cross-entropy-fusion-impl te) in the
   * Megatron-Bridge performance runs: the scripts that produced these tables set
   * cross_entropy_fusion_impl = "te" for every recipe (Megatron-Bridge
   * scripts/performance/utils/helpers.py, set_common_perf_overrides) */
  p->te_cross_entropy = contains_ci (framework_cell (c, csv, row), "Megatron-Bridge");
  /* (the stack's default overlap is of SP's collectives: none where the row runs TP
   * without SP, which Megatron refuses with --tp-comm-overlap) */
  p->tp_comm_overlap = strstr (get (csv, row, "notes"), "tp-comm-overlap") != NULL
                       || (c->stack->tp_comm_overlap == FW_OPT_DEFAULT && tp > 1
                           && p->sequence_parallel);
  /* except an NVFP4 run of the Megatron-Bridge performance scripts: each of their Llama 3
   * 70B and Llama 3.1 405B pretrain configs (scripts/performance/configs/llama/
   * llama3_llm_pretrain.py, llama31_llm_pretrain.py) sets comm_overlap.tp_comm_overlap =
   * False if precision == "nvfp4" (a Megatron-Bridge test of its Qwen3 NVFP4 recipes
   * gives the reason: the FP4 parameter gather and the TP-comm overlap do not go
   * together), so its TP collectives run apart from the GEMMs; the FP8 and BF16 configs
   * keep the overlap (U: read at a later commit than the 26.02 tables' 00919dc) */
  if (c->fp4 && contains_ci (framework_cell (c, csv, row), "Megatron-Bridge"))
    p->tp_comm_overlap = FALSE;
  /* and where the notes quote a config that turns it off ("tp_comm_overlap=False":
   * Megatron-Bridge's performance script for Qwen3-235B-A22B on H100,
   * scripts/performance/configs/qwen/qwen3_llm_pretrain.py at f29a269,
   * qwen3_235b_a22b_pretrain_config_h100, builds CommOverlapConfig(tp_comm_overlap=False)
   * where its other GPUs' configs pass True) */
  if (tp_comm_overlap_key_off (get (csv, row, "notes"))
      || tp_comm_overlap_key_off (framework_cell (c, csv, row)))
    p->tp_comm_overlap = FALSE;
  /* FP8 weights (Megatron --fp8-param-gather) where a cell names the key: the precision
   * cell, then the framework cell, then the notes; unsaid, the stack's (nemo: on with
   * delayed and current scaling, sim_plan_apply_stack) */
  if (p->compute_dtype == PLAN_PREC_FP8)
    {
      static const char *const why[] = { "the precision cell says so",
                                         "the framework cell says so", "the notes say so" };
      const char *cells[] = { get (csv, row, "precision"), framework_cell (c, csv, row),
                              get (csv, row, "notes") };
      for (guint i = 0; i < G_N_ELEMENTS (cells); i++)
        {
          const int said = fp8_param_gather_said (cells[i]);
          if (said >= 0)
            {
              p->fp8_param_gather = said;
              c->fp8_param_why = why[i];
              break;
            }
        }
    }
  /* Megatron-FSDP (a Megatron-Bridge row's FSDP column, ZeRO-3 here) runs without
   * gradient-accumulation fusion: every performance config that turns use_megatron_fsdp
   * on sets cfg.model.gradient_accumulation_fusion = False ("Disabled to avoid functional
   * errors"; Megatron-Bridge scripts/performance/configs/llama3/llama3_llm_pretrain.py,
   * the 25.11 layout: Llama 3 70B on GB300, GB200 and B200, Llama 3 8B on H100;
   * configs/llama/llama3_llm_pretrain.py at 2a0d46e, the 26.02 layout: 70B on every
   * Blackwell part), so the weight-gradient GEMMs write param.grad and Megatron-FSDP's
   * post-backward hook copies it into the reduce-scatter bucket (megatron_fsdp.py
   * _grad_acc: param.main_grad.copy_(param.grad)) after every micro-batch's backward of
   * a layer (plan.h zero3_grad_copy_in) */
  if (p->sharding == PLAN_SHARD_ZERO3
      && contains_ci (framework_cell (c, csv, row), "Megatron-Bridge"))
    p->zero3_grad_copy_in = 1;
  if (c->stack->grad_reduce_bf16)
    p->grad_dtype = PLAN_PREC_BF16;
  /* the dtype the gradients are reduced in where a cell states it ("reduce_dtype=
   * torch.bfloat16", "grad_reduce_in_fp32=False", "grad_sync_dtype=bf16"), else IBM's
   * fms-fsdp by name, whose bfSixteen policy reduces in bf16
   * (fms_fsdp/policies/mixed_precision.py: reduce_dtype=torch.bfloat16); the pytorch-fsdp
   * stack's fp32 doubled its HSDP rows' cross-node traffic (audit of 7 Dec) */
  {
    static const char *const why[] = { "the precision cell says so",
                                       "the framework cell says so", "the notes say so" };
    const char *cells[] = { get (csv, row, "precision"), framework_cell (c, csv, row),
                            get (csv, row, "notes") };
    int said = -1;
    for (guint i = 0; i < G_N_ELEMENTS (cells) && said < 0; i++)
      if ((said = grad_reduce_dtype_said (cells[i])) >= 0)
        c->grad_dtype_why = why[i];
    if (said < 0 && runs_fms_fsdp (c, framework_cell (c, csv, row)))
      {
        said = PLAN_PREC_BF16;
        c->grad_dtype_why = "fms-fsdp's bfSixteen policy reduces in bf16";
      }
    if (said >= 0)
      p->grad_dtype = (PlanPrecision) said;
  }
  /* A compiled run (--compile) where the framework or notes cell says so and the stack
   * has a compiled mode: "torch.compile", "compiled" (torchtitan docs/performance.md:
   * "FSDP + torch.compile"). Async TP (--async-tp: the stack's TP-comm overlap) where
   * it says so (names_async_tp) and the stack offers it, with tp > 1. */
  {
    const char *fw = framework_cell (c, csv, row), *notes = get (csv, row, "notes");
    if (c->stack->compile != FW_OPT_NO
        && (names_compile (fw, TRUE) || names_compile (notes, FALSE))
        && !says_run_eager (fw) && !says_run_eager (notes))
      p->compile = TRUE;
    /* FSDP's float8 all-gather where the row says so (fsdp_all_gather_said), the
     * precision cell first (torchao's benchmark rows name it there: "tensorwise with
     * float8 all-gather", "float8 tensorwise (f8 all-gather)", "rowwise with bfloat16
     * all-gather"; only the framework and notes cells were read, and "f8" not at all),
     * then the framework cell, then the notes; TorchTitan's default leaves it off, so an
     * unstated row gathers bf16 */
    if (fp8)
      {
        static const char *const cells[] = { "precision", "framework", "notes" };
        static const char *const why[] = { "the precision cell says so",
                                           "the framework cell says so",
                                           "the notes say so" };
        for (guint i = 0; i < G_N_ELEMENTS (cells); i++)
          {
            const int said = fsdp_all_gather_said (i == 1 ? fw : get (csv, row, cells[i]));
            if (said >= 0)
              {
                p->fsdp_float8_all_gather = said == 1;
                c->fsdp_ag_why = why[i];
                break;
              }
          }
        /* ... and never under a rowwise recipe, whatever a cell says: torchao's float8
         * all-gather needs a tensorwise-scaled weight (torchao/float8/config.py,
         * Float8LinearConfig.__post_init__: "float8 all-gather only supports tensorwise",
         * asserting "enable_fsdp_float8_all_gather only supports tensorwise scaling
         * granularity"; its ROWWISE and ROWWISE_WITH_GW_HP recipes scale the weight
         * AXISWISE). "fp8 rowwise; float8 all-gather is tensorwise-only" was read as a
         * float8 all-gather, which the run cannot have had. */
        const int recipe = p->fp8_recipe >= 0 ? p->fp8_recipe : (int) c->stack->fp8_scaling;
        if (p->fsdp_float8_all_gather && recipe == FW_SCALING_ROWWISE)
          {
            p->fsdp_float8_all_gather = FALSE;
            c->fsdp_ag_why = "a rowwise recipe: torchao gathers float8 only with tensorwise "
                             "scaling";
          }
      }
    if (c->stack->async_tp != FW_OPT_NO && tp > 1
        && (names_async_tp (fw) || names_async_tp (notes)))
      p->async_tp = p->tp_comm_overlap = TRUE;
    /* Async TP on a stack where compiling is a per-run choice: the run was compiled, as
     * no cell need say. TorchTitan refuses async TP on an eager model
     * (torchtitan/distributed/tensor_parallel.py maybe_enable_async_tp: RuntimeError
     * "Async TP requires 'model' in --compile.components and --compile.enable"; in 2024
     * "Async TP requires --training.compile"), and so does plan_check_stack; the row
     * "torchtitan (FSDP2 + Tensor Parallel, Async TP)" (docs/performance.md, Aug 2024)
     * was refused "async TP needs a compiled model". A row that says it was not compiled
     * keeps that refusal. */
    if (p->async_tp && !p->compile && c->stack->compile == FW_OPT_OPTIONAL
        && !names_compile_off (fw, TRUE) && !names_compile_off (notes, FALSE))
      {
        p->compile = TRUE;
        c->compile_why = "not named, implied by async TP (TorchTitan refuses async TP "
                         "without torch.compile)";
      }
  }

  c->plan_read = RES_PUB_READ_ALL;
  gint64 ep = 1;
  cell_size (csv, row, "ep", &ep);
  /* an MoE row whose ep cell is empty: the EP its notes state ("EP 8, ETP 1",
   * "--expert-model-parallel-size 8"), which read as ep 1, every expert on every rank */
  if (c->moe.present && cell_blank (csv, row, "ep"))
    {
      const gint64 in_notes = res_pub_moe_ep_in_text (get (csv, row, "notes"), c->n_gpus);
      if (in_notes > 1)
        {
          ep = in_notes;
          c->moe.ep_from = "the notes";
        }
    }
  /* an expert TP the row leaves unstated, on Megatron-Bridge: its MoE recipes' 1
   * (src/megatron/bridge/recipes/qwen/qwen3_moe.py _qwen3_moe_common:
   * expert_tensor_parallel_size: int = 1; recipes/deepseek/deepseek_v3.py
   * _deepseek_v3_common: model_cfg.expert_tensor_parallel_size = 1), not Megatron-Core's
   * default, the TP degree, which spreads each expert group over TP x EP ranks */
  if (c->moe.present && c->moe.etp == 0 && p->tp > 1
      && (contains_ci (framework_cell (c, csv, row), "megatron-bridge")
          || contains_ci (framework_cell (c, csv, row), "megatron bridge")))
    {
      c->moe.etp = 1;
      c->moe.etp_from = "Megatron-Bridge's MoE recipes, expert_tensor_parallel_size 1 (the "
                        "row states none)";
    }
  res_pub_moe_plan (&c->moe, ep, p);
  /* overlaps the stack runs in every run (hai-llm: DualPipe pairs each all-to-all and the
   * shared expert with another chunk's compute, frameworks/presets/hai-llm.json) */
  if (p->ep > 1 && c->stack->moe_a2a_overlap == FW_OPT_DEFAULT)
    p->moe_a2a_overlap = TRUE;
  if (p->ep > 1 && c->stack->moe_shared_expert_overlap == FW_OPT_DEFAULT)
    p->moe_shared_expert_overlap = TRUE;

  g_autoptr (GError) error = NULL;
  if (!plan_resolve (p, c->model, c->cluster, &error))
    {
      g_autofree char *why = hints_as_cells (error->message);
      /* the experts do not fold at Megatron-Core's default etp (the TP degree), which the
       * row did not choose: say so, and the etp that would fold, beside the hint's ep
       * ("(hint: ep 16, or etp=1 in the moe cell: ...)") */
      const char *hint = strstr (why, "(hint:");
      int e = 0;
      /* ... where the row says nothing of its expert TP: a mention the readers could not
       * turn into a size ("ETP is 4", "ETP=TP", "expert tensor parallelism of 4") may
       * state the default that does not fold, and keeps the skip */
      const char *ep_text = get (csv, row, "ep"), *notes_text = get (csv, row, "notes");
      gboolean mentions_etp = FALSE;
      static const char *const etp_words[] = { "etp", "expert tp", "expert-tp",
                                               "expert tensor", "expert_tensor" };
      for (guint i = 0; i < G_N_ELEMENTS (etp_words) && !mentions_etp; i++)
        mentions_etp = contains_ci (ep_text, etp_words[i]) || contains_ci (notes_text, etp_words[i]);
      if (c->moe.present && c->moe.etp == 0 && p->tp > 1 && hint != NULL && mentions_etp
          && strstr (why, "expert layout does not fold") != NULL
          && (e = res_pub_moe_etp_that_folds (&c->moe, p)) > 0 && g_str_has_suffix (why, ")"))
        return skip (c, "%.*s, or etp=%d in the moe cell: etp not stated, so expert tp is "
                     "Megatron-Core's default, the TP degree %d)", (int) strlen (why) - 1, why,
                     e, p->tp);
      if (c->moe.present && c->moe.etp == 0 && p->tp > 1 && hint != NULL
          && strstr (why, "expert layout does not fold") != NULL
          && (e = res_pub_moe_etp_that_folds (&c->moe, p)) > 0 && g_str_has_suffix (why, ")"))
        {
          /* The run happened, and at the default it cannot have: the largest expert TP
           * under which its stated degrees fold is the one it ran (Megatron-Bridge's
           * Qwen3-235B recipes set expert_tensor_parallel_size 1 beside TP 2 and 4, which
           * their performance tables leave out), said so on the explain line; where even
           * that fails the row is skipped with the hint as before */
          const int tp_default = p->tp;
          p->etp = e;
          g_clear_error (&error);
          if (plan_resolve (p, c->model, c->cluster, &error))
            c->moe.etp_from = "none stated: the default, the TP degree, does not fold the "
                              "stated degrees, so the largest expert TP that does";
          else
            return skip (c, "%.*s, or etp=%d in the moe cell: etp not stated, so expert tp "
                         "is Megatron-Core's default, the TP degree %d)", (int) strlen (why) - 1,
                         why, e, tp_default);
        }
      else
        return skip (c, "%s", why);
    }
  /* an option the row's stack does not run (GPipe or HSDP on megatron-core, FP8 on
   * meta-llama3, ZeRO-3 on megatron-lm-2021) is refused as predict and search refuse it
   * (plan_check_stack): it was predicted and scored, on a plan no command would take */
  /* a published run ran the recipe it names, with the release of its day (torchtitan's
   * delayed scaling of 2024, which its current release has dropped) */
  p->fp8_recipe_as_run = TRUE;
  if (!plan_check_stack (p, c->stack, &error)
      || !plan_check_stack_model (p, c->model, c->stack, &error))
    {
      g_autofree char *why = hints_as_cells (error->message);
      return skip (c, "%s", why);
    }
  return TRUE;
}

/* Precision text -> FP8 or not (every spelling with its example in
 * tests/results/test-mapping.c):
 *   "fp8", "FP8-hybrid", "float8" (torchao), "e4m3", "amp_fp8" (Composer), "MXFP8"
 *     (Blackwell block scaling: the FP8 tensor-core rate) -> fp8, with the stack's recipe
 *     (GEMMs in FP8, attention in bf16);
 *   "8-bit floating point", "FP 8", "FP-8" -> fp8 as well;
 *   "fp8 attention", "fp8_dpa", "FP8 DPA" in precision or notes, "incl. attention" /
 *     "including attention" / "attention in fp8" in precision -> also the attention core
 *     in FP8 (TE's fp8_dpa);
 *   a recipe (or FP4) said off (mention_off: "not MXFP8", "no mxfp8", "MXFP8 off") is
 *     blanked first (blank_negated), so it names no recipe and reads as no FP8 said off;
 *   the recipe, where the precision names one, first match wins: "MXFP8" / "FP8-MX" /
 *     "fp8mx" / "fp8_mx" (Megatron-Bridge's recipe names) / "FP8 MX" / "MX-FP8" / "1x32" /
 *     "microscaling" / "MX block" -> mxfp8 (skipped on a device without MXFP8 GEMMs); "FP8-SC", "fp8sc",
 *     "fp8_sc", "sub-channel", "subchannel", "blockwise", "block-wise", "block scaling",
 *     "block-scaled", "1x128", "128x128", "DeepSeek" (DeepSeek-V3's fine-grained recipe,
 *     TE Float8BlockScaling) -> blockwise; "rowwise", "row-wise", "per-row" (torchao) ->
 *     rowwise; "current scaling" / "current-scaling" / "FP8-CS" / "fp8cs" / "fp8_cs" /
 *     "tensorwise" / "tensor-wise" / "current step" / "per-tensor current" -> tensorwise, "delayed" -> delayed, "dynamic" (torchao's
 *     name for current scaling; not "dynamic loss scaling") -> tensorwise; none of these
 *     from a
 *     Megatron-Bridge table -> tensorwise (its scripts have no delayed recipe); else the
 *     stack's (its quantization bytes, sim_cost_fp8_quant_bytes; its GEMM rate,
 *     sim/cost-compute.c);
 *   "NVFP4", "fp4" (also "FP4 (NVFP4)", "nvfp4 (NVFP4 recipe)") -> TE's NVFP4 recipe
 *     (Blackwell presets): the layers' linears in NVFP4 (its GEMM rate and quantization,
 *     sim/cost-compute.c, sim_cost_nvfp4_quant_bytes), output layer, router, attention
 *     and the rest in bf16; skipped on a device without FP4 (an MFU of such a
 *     row is read against the bf16 peak: U, no convention for NVFP4 MFU is established);
 *   a 16-bit float named (bf16, fp16, amp_bf16, "fp16/bf16 mixed", "16-bit", "bfloat 16",
 *     "FP 16", "AMP", "mixed", "half") or nothing stated (empty, "not stated", a dash) -> bf16 (same
 *     tensor rate), or fp16 on a device without BF16 (V100), where a cell naming bf16 and
 *     not fp16 ("bf16", "amp_bf16") is skipped: Volta has no BF16 tensor cores;
 *   fp32 / TF32 / int8 -> skipped, saying which; any other text naming no number format
 *     ("FP6", "quantized") -> skipped as not recognised (it was read as bf16). */
/* Whether the FP8 mention at `p` (`n` chars) of the lower-case `t` is said off by the
 * words after it in its clause: "FP8 (off)" (a bracket holding only off / no / false /
 * none / 0), or a phrase that says it did not run anywhere in the clause, which ends at
 * ')' or ';' or a comma not followed by "not": "FP8 not enabled", "FP8 was not used",
 * "fp8 planned, not used in this run". The clause stops at a plain comma so that what
 * is said of something else after FP8 ("FP8 GEMMs, fused attention disabled") is not
 * read as said of FP8. */
static gboolean
fp8_clause_off (const char *p, gsize n)
{
  static const char *const bracketed[] = { "(off)", "(no)", "(false)", "(none)", "(0)" };
  static const char *const phrases[] = { "not enabled", "not used", "not on", "unused",
                                         "disabled", "was not", "were not", "not in this run",
                                         "not active", "not applied", NULL };
  const char *q = p + n;
  if (g_ascii_isalnum (*q) || *q == '_')
    return FALSE;
  const char *r = q;
  while (*r == ' ')
    r++;
  for (guint i = 0; i < G_N_ELEMENTS (bracketed); i++)
    if (g_str_has_prefix (r, bracketed[i]))
      return TRUE;
  const char *end = q;
  while (*end != '\0' && *end != ')' && *end != ';'
         && !(*end == ',' && !g_str_has_prefix (end + strspn (end + 1, " ") + 1, "not ")))
    end++;
  g_autofree char *clause = g_strndup (q, (gsize) (end - q));
  for (guint i = 0; phrases[i] != NULL; i++)
    {
      const char *h = strstr (clause, phrases[i]);
      if (h != NULL && (h == clause || !g_ascii_isalnum (h[-1])))
        return TRUE;
    }
  return FALSE;
}

/* FP8 named only to say it was off: "BF16 (no FP8)", "without fp8", "FP8: off",
 * "fp8 disabled", "fp8=false", "not fp8", "FP8=no, bf16", "BF16 mixed precision w/o FP8"
 * (mention_off at any FP8 mention; "w/o" was read as FP8), "FP8 (off)", "BF16 (FP8 not
 * enabled)", "bf16; FP8 was not used", "bf16 (fp8 planned, not used in this run)"
 * (fp8_clause_off); each was read as FP8 GEMMs */
static gboolean
fp8_negated (const char *text)
{
  static const char *const neg[] = { "no fp8", "without fp8", "w/o fp8", "not fp8", "non-fp8",
                                     "fp8 off",
                                     "fp8: off", "fp8 disabled", "fp8: disabled", "fp8: no",
                                     "fp8=false", "fp8: false", "fp8 = false", "no float8",
                                     "without float8", "float8 off", "float8 disabled",
                                     /* "FP8 (not used)", "fp8: unused" (read as fp8) */
                                     "fp8 (not used)", "fp8 not used", "fp8: not used",
                                     "fp8 (unused)", "fp8 unused", "fp8: unused", NULL };
  /* what is said of FP8 attention ("fp8 (no fp8 attention)") says nothing of the GEMMs */
  g_autofree char *t = g_ascii_strdown (text, -1);
  static const char *const attn[] = { "fp8 attention", "fp8_dpa", "fp8 dpa", "fp8 attn" };
  for (guint i = 0; i < G_N_ELEMENTS (attn); i++)
    for (char *p = strstr (t, attn[i]); p != NULL; p = strstr (p, attn[i]))
      memset (p, '_', strlen (attn[i]));
  /* nor does what is said of FSDP's all-gather, where the rest of the cell names FP8: an
   * fp8 / float8 / f8 mention that is the all-gather's type (all_gather_after), with the
   * rest of its clause (to ')', ';' or ','), is the collective's ("fp8 tensorwise, no fp8
   * all-gather", "fp8 (float8 all-gather disabled)", "float8 tensorwise w/o float8
   * all-gather" were read as no FP8 at all, bf16); where nothing else names FP8 the
   * negation is the cell's ("bf16, no fp8 all-gather") */
  {
    static const char *const types[] = { "float8", "fp8", "f8" };
    g_autofree char *rest = g_strdup (t);
    for (guint i = 0; i < G_N_ELEMENTS (types); i++)
      {
        const gsize n = strlen (types[i]);
        for (char *p = strstr (rest, types[i]); p != NULL; p = strstr (p + 1, types[i]))
          {
            const gsize m = all_gather_after (p + n);
            if (m == 0 || (p > rest && g_ascii_isalnum (p[-1])))
              continue;
            const gsize k = n + m + strcspn (p + n + m, ");,");
            memset (p, ' ', k);
          }
      }
    if (strstr (rest, "fp8") != NULL || strstr (rest, "float8") != NULL)
      memcpy (t, rest, strlen (t));
  }
  /* nor does what is said of one part of the model, where the rest of the cell names FP8
   * as run: a bracket, then a clause (between ';' and ','), that names attention, the
   * output layer, a weight or data gradient, norms or the first / last layers is about
   * that part when FP8 is named outside it ("fp8 (not used for attention)", "no FP8 for
   * attention; FP8 GEMMs", "bf16 with FP8 GEMMs (attention kept in bf16, not FP8)" were
   * read as no FP8 at all); where nothing else names FP8 the negation is the cell's ("bf16
   * (no FP8, not even for attention)", "BF16 without FP8 for the embedding") */
  static const char *const parts[] = { "attention", "attn", "output layer", "lm head",
                                       "lm_head", "wgrad", "dgrad", "weight grad", "softmax",
                                       "layernorm", "rmsnorm", "norm layers", "embedding",
                                       "router", "first layer", "last layer",
                                       "first and last", "first/last", NULL };
  for (int pass = 0; pass < 2; pass++)
    for (char *seg = t; *seg != '\0';)
      {
        char *end;
        if (pass == 0)
          {
            seg = strchr (seg, '(');
            if (seg == NULL)
              break;
            end = strchr (seg, ')');
            if (end == NULL)
              break;
            end++;
          }
        else
          end = seg + strcspn (seg, "();,");
        char saved = *end;
        *end = '\0';
        const gboolean part = contains_any_ci (seg, parts);
        *end = saved;
        if (part)
          {
            /* FP8 named outside this part of the text? */
            g_autofree char *rest = g_strdup (t);
            memset (rest + (seg - t), ' ', (gsize) (end - seg));
            if (strstr (rest, "fp8") != NULL || strstr (rest, "float8") != NULL)
              memset (seg, ' ', (gsize) (end - seg));
          }
        seg = *end != '\0' ? end + (pass == 0 ? 0 : 1) : end;
      }
  if (contains_any_ci (t, neg))
    return TRUE;
  static const char *const keys[] = { "fp8", "float8" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      gsize n = strlen (keys[i]);
      for (const char *p = strstr (t, keys[i]); p != NULL; p = strstr (p + 1, keys[i]))
        if ((p == t || !g_ascii_isalnum (p[-1]))
            && (mention_off (t, p, n, NULL) || fp8_clause_off (p, n)))
          return TRUE;
    }
  return FALSE;
}

/* FP8 attention named only to say it was off: "no fp8 attention", "fp8_dpa=False",
 * "fp8_dpa: false", "without FP8 DPA", "FP8 attention off", and any other form mention_off
 * reads ("FP8 (not FP8 attention)", "w/o fp8_dpa": read as FP8 attention) */
static gboolean
fp8_attention_negated (const char *text)
{
  static const char *const keys[] = { "fp8 attention", "fp8_dpa", "fp8 dpa", "fp8 attn" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (named_then_off (text, keys[i]))
      return TRUE;
  static const char *const neg[] = { "no fp8 attention", "without fp8 attention",
                                     "fp8 attention off", "fp8 attention: off",
                                     "fp8 attention disabled", "no fp8_dpa", "without fp8_dpa",
                                     "fp8_dpa=false", "fp8_dpa: false", "fp8_dpa = false",
                                     "fp8_dpa off", "no fp8 dpa", "without fp8 dpa",
                                     "fp8 dpa off", NULL };
  return contains_any_ci (text, neg);
}

/* The FP8 recipes' and FP4's names, lower case: their mentions said off are blanked
 * before the precision and recipe rules read the cell (blank_negated) */
static const char *const recipe_keys[] = {
  "mxfp8", "fp8-mx", "fp8mx", "fp8_mx", "fp8 mx", "mx-fp8", "mx fp8", "mx_fp8", "microscaling",
  "fp8-sc", "fp8sc", "fp8_sc", "sub-channel", "subchannel", "blockwise", "block-wise",
  "block scaling", "block-scaled", "fp8-ss", "fp8_ss", "fp8ss", "rowwise", "row-wise",
  "per-row", "current scaling", "current-scaling", "current_scaling", "fp8-cs", "fp8cs",
  "fp8_cs", "tensorwise", "tensor-wise", "delayed scaling", "delayed", "fp8-ds", "fp8_ds",
  "fp8ds", "nvfp4", "fp4", NULL };

/* Words that make a sentence of the notes about another run, a comparison, a trial or a
 * plan: "FP8 training was tried but unstable", "Compared with FP8, BF16 was 1.3x slower",
 * "with FP8 reaches 600 TFLOP/s (row 6)", "FP8 training planned for the next run", "Unlike
 * DeepSeek-V3 (trained with FP8)" (each read as FP8, where the run was bf16); "loss curves
 * match BF16" names BF16 as the comparison, not as the run's. Not "than" ("rather than
 * BF16", "faster than BF16": the BF16 after it is the comparison, bf16_of_run), nor "row"
 * ("row 3 of Table 4" cites the source) or "next" alone ("for the next 2 weeks"): each
 * made a run trained in FP8 read bf16. */
static const char *const fp8_aside_words[] = {
  "tried", "try", "trying", "trial", "trials", "attempt", "attempted", "compared", "compare",
  "comparing", "comparison", "unlike", "planned", "plan", "plans", "planning", "next run",
  "next model", "next version", "next release", "future", "vs", "versus", "reach",
  "reaches", "reached", "baseline", "ablation", "ablations", "match", "matches", "matched",
  "will", "would", "could", NULL };

/* Words that make a BF16 / FP16 mention of a part of the run, not its precision: "BF16
 * master weights", "gradients reduced in BF16", "params in bf16", "first and last layers
 * kept in BF16" (each made a run trained in FP8 read bf16) */
static const char *const sixteen_part_words[] = {
  "weight", "weights", "master", "gradient", "gradients", "grad", "grads", "optimizer",
  "optimiser", "param", "params", "parameter", "parameters", "layer", "layers", "attention",
  "reduce", "reduced", "reduction", "reductions", "all-reduce", "allreduce",
  "reduce-scatter", "state", "states", "moments", "activations", "embedding", "embeddings",
  "softmax", "layernorm", "norm", "norms", "logits", "head", "heads", "communication",
  "comms", "accumulation", "accumulated", "copy", "copies", NULL };

/* Whether the BF16 / FP16 mention at `p` in `low` (lower case, `n` long) names the run's
 * precision: not right after "than" ("1.3x faster than BF16", a comparison), and its
 * clause (bounded by ',', ';', '(', ')' and a sentence's end) names no part of the run
 * (sixteen_part_words; "all layers" / "every layer" are the whole model). One said of the
 * run, its training or the model as a whole ("the final run used BF16", "this run is
 * BF16", "trained in BF16") is. */
static gboolean
bf16_of_run (const char *low, const char *p, gsize n)
{
  char w[16];
  if (word_before (low, p, w) != NULL && g_str_equal (w, "than"))
    return FALSE;
  const char *b = p, *e = p + n;
  while (b > low && strchr (",;()", b[-1]) == NULL
         && !((b[-1] == '.' || b[-1] == '!' || b[-1] == '?') && b[0] == ' '))
    b--;
  while (*e != '\0' && strchr (",;()", *e) == NULL
         && !((*e == '.' || *e == '!' || *e == '?') && (e[1] == ' ' || e[1] == '\0')))
    e++;
  /* a clause about another row or run ("row 4 is the BF16 run", "rows 5-8 are BF16",
   * "BF16 in rows 1-4", "the other run used BF16", "BF16 like the other rows was
   * slower", "the BF16 runs are rows 1-4"): that one's precision, not this row's (it read
   * bf16). Not where the clause says this row shares it ("BF16 as in rows 1-6", "same
   * BF16 recipe as the other runs", "this run and row 5 are BF16") or cites the row's own
   * source ("BF16 from row 3 of Table 4") */
  {
    g_autofree char *clause = g_strndup (b, (gsize) (e - b));
    static const char *const others[] = { "other run", "another run", "other row",
                                          "another row", "separate run", "bf16 rows",
                                          "bf16 runs", "fp16 rows", "fp16 runs", NULL };
    gboolean other = contains_any_ci (clause, others);
    for (const char *q = strstr (clause, "row"); q != NULL && !other; q = strstr (q + 3, "row"))
      {
        const char *d = q + 3 + (q[3] == 's');
        other = (q == clause || !g_ascii_isalnum (q[-1])) && *d == ' ' && g_ascii_isdigit (d[1]);
      }
    static const char *const shared[] = { "as in", "same bf16", "same fp16", "same precision",
                                          "this run", "this row", "from row", "of table",
                                          "as the other", "as other", NULL };
    if (other && !contains_any_ci (clause, shared))
      return FALSE;
  }
  for (guint i = 0; sixteen_part_words[i] != NULL; i++)
    {
      const gsize k = strlen (sixteen_part_words[i]);
      for (const char *q = b; q + k <= e; q++)
        if (strncmp (q, sixteen_part_words[i], k) == 0 && (q == low || !g_ascii_isalnum (q[-1]))
            && !g_ascii_isalnum (q[k]))
          {
            /* "all layers", "every layer" are the whole model: still the run's */
            char w[16];
            if (word_before (low, q, w) != NULL
                && (g_str_equal (w, "all") || g_str_equal (w, "every")))
              continue;
            return FALSE;
          }
    }
  return TRUE;
}

/* Whether the sentence of `low` that holds `p` (sentence_names) names one of
 * fp8_aside_words */
static gboolean
sentence_is_aside (const char *low, const char *p)
{
  for (guint i = 0; fp8_aside_words[i] != NULL; i++)
    if (sentence_names (low, p, fp8_aside_words[i]))
      return TRUE;
  return FALSE;
}

/* The notes say this run trained in FP8: "trained in FP8", "FP8 training", "with FP8",
 * "using FP8", not negated before or after (negated_before / negated_after: "not trained
 * in FP8", "with FP8 disabled"), in a sentence with no word of comparison, trial or plan
 * (fp8_aside_words), and the notes never name BF16 or FP16 as the run's (a mention not said
 * off nor in such a sentence, said of the run and not of a part of it nor after "than":
 * bf16_of_run; "the final run used BF16", "this run is BF16", not "BF16 master weights",
 * "rather than BF16" or "faster than BF16"). A mention
 * that says nothing of the run ("FP8 results in table 3") does not count. Conservative:
 * where in doubt the cell stays bf16, the documented default. */
static gboolean
notes_say_fp8 (const char *notes)
{
  static const char *const phrases[] = { "trained in fp8", "trained with fp8", "training in fp8",
                                         "training with fp8", "fp8 training", "fp8 pretraining",
                                         "fp8 pre-training", "fp8 mixed precision", "with fp8",
                                         "using fp8", "ran in fp8", "run in fp8", "runs in fp8" };
  static const char *const sixteen[] = { "bf16", "bfloat16", "fp16", "float16", "bf-16",
                                         "fp-16", "half precision" };
  if (notes == NULL || *notes == '\0')
    return FALSE;
  g_autofree char *low = g_ascii_strdown (notes, -1);
  gboolean said = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (phrases) && !said; i++)
    {
      const gsize n = strlen (phrases[i]);
      for (const char *p = strstr (low, phrases[i]); p != NULL && !said;
           p = strstr (p + n, phrases[i]))
        said = !negated_before (low, p) && !negated_after (p + n) && !sentence_is_aside (low, p);
    }
  if (!said)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (sixteen); i++)
    {
      const gsize n = strlen (sixteen[i]);
      for (const char *p = strstr (low, sixteen[i]); p != NULL; p = strstr (p + n, sixteen[i]))
        if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalnum (p[n])
            && !mention_off (low, p, n, NULL) && !negated_before (low, p)
            && !negated_after (p + n) && !sentence_is_aside (low, p)
            && bf16_of_run (low, p, n))
          return FALSE;
    }
  return TRUE;
}

/* torchao's float8 training recipe named in a precision cell (Float8LinearRecipeName,
 * torchao/float8/config.py: TENSORWISE "tensorwise", ROWWISE "rowwise", ROWWISE_WITH_GW_HP
 * "rowwise_with_gw_hp"), as a word of its own and not said off, in a cell that names no
 * other precision as the run's: a 16-bit type that names the FSDP all-gather ("rowwise
 * with bfloat16 all-gather", torchao's docs/source/workflows/training.md benchmark rows)
 * is the all-gather's, not the run's. Only these three names: "row-wise" or "per-row"
 * alone say nothing of FP8. Nor do they where the cell is about something other than
 * float8 GEMMs, which use the same words: loss scaling ("tensorwise loss scaling"), a
 * quantized collective ("AMP rowwise quantized comms"; comms named otherwise, "rowwise
 * (compute-communication overlap on)", leave the recipe), or AMP without fp8 named (both
 * were read as FP8). The recipe is the one named first ("tensorwise; rowwise in row 7"
 * is tensorwise: map_precision's list took rowwise, whichever came first): its
 * FW_SCALING_ROWWISE or FW_SCALING_CURRENT, or -1 where none is named. */
static int
torchao_recipe_named (const char *text)
{
  static const struct { const char *name; int recipe; } names[] = {
    { "rowwise_with_gw_hp", FW_SCALING_ROWWISE }, { "rowwise", FW_SCALING_ROWWISE },
    { "tensorwise", FW_SCALING_CURRENT },
  };
  static const char *const other[] = { "bf16", "bfloat16", "fp16", "float16", "half", "fp32",
                                       "float32", "tf32", "int8", "16-bit", "16 bit",
                                       "loss scal", NULL };
  g_autofree char *low = g_ascii_strdown (text, -1);
  for (const char *p = strstr (low, "bf16"); p != NULL; p = strstr (p + 1, "bf16"))
    if (all_gather_after (p + 4) > 0)
      memset ((char *) p, '#', 4);
  for (const char *p = strstr (low, "bfloat16"); p != NULL; p = strstr (p + 1, "bfloat16"))
    if (all_gather_after (p + 8) > 0)
      memset ((char *) p, '#', 8);
  /* a quantized collective ("rowwise quantized comms", "comm quantization"): the words
   * name the collective's scaling, not the GEMMs' (a cell that only names comms beside
   * the recipe, "rowwise (compute-communication overlap on)", is still the recipe) */
  static const char *const quantized_comm[] = { "quantized comm", "quantised comm",
                                                "comm quantiz", "comms quantiz",
                                                "communication quantiz", NULL };
  if (contains_any_ci (low, other) || contains_any_ci (low, quantized_comm))
    return -1;
  for (const char *p = strstr (low, "amp"); p != NULL; p = strstr (p + 1, "amp"))
    if ((p == low || !g_ascii_isalnum (p[-1])) && !g_ascii_isalnum (p[3])
        && strstr (low, "fp8") == NULL && strstr (low, "float8") == NULL)
      return -1;
  for (const char *p = low; *p != '\0'; p++)
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        const gsize n = strlen (names[i].name);
        if (strncmp (p, names[i].name, n) == 0
            && (p == low || !(g_ascii_isalnum (p[-1]) || p[-1] == '_'))
            && !(g_ascii_isalnum (p[n]) || p[n] == '_') && !mention_off (low, p, n, NULL)
            && !negated_before (low, p) && !negated_after (p + n))
          return names[i].recipe;
      }
  return -1;
}

/* The offset in `text` of the first of `needles` (any case) it holds, G_MAXSSIZE where
 * none */
static gssize
first_index_ci (const char *text, const char *const *needles)
{
  g_autofree char *low = g_ascii_strdown (text, -1);
  gssize best = G_MAXSSIZE;
  for (guint i = 0; needles[i] != NULL; i++)
    {
      g_autofree char *n = g_ascii_strdown (needles[i], -1);
      const char *p = strstr (low, n);
      if (p != NULL && p - low < best)
        best = p - low;
    }
  return best;
}

static gboolean
map_precision (ResPublishedCase *c, const char *cell, const char *notes, const char *framework,
               gboolean *fp8)
{
  *fp8 = FALSE;
  c->fp4 = FALSE;
  /* a recipe named only to say it was not used is no recipe of the row: "fp8 (not MXFP8)"
   * and "no mxfp8, fp8 delayed" were the mxfp8 recipe, "MXFP8 off; fp8 current scaling"
   * bf16 (its "fp8 off" read as FP8 said off). The rules below read the rest; skip
   * reasons quote the cell as written. */
  g_autofree char *text = blank_negated (cell, recipe_keys, NULL);
  /* an FP4 that is the checkpoint's format, not the training's ("bf16 (MXFP4 checkpoint
   * upcast)": gpt-oss ships its expert weights in MXFP4; a row training it in bf16 was
   * read as NVFP4 and skipped on H100 for want of FP4 tensor cores) */
  static const char *const stored[] = { "checkpoint", "upcast", "dequantiz", "stored in",
                                        NULL };
  const gboolean fp4_stored = contains_any_ci (text, stored);
  if ((contains_ci (text, "nvfp4") || contains_ci (text, "fp4")) && !fp4_stored)
    {
      if (c->cluster->device.peak_flops[TOPO_DTYPE_FP4] <= 0)
        return skip (c, "precision '%s': %s has no FP4 tensor cores", cell,
                     c->cluster->device.name);
      c->fp4 = TRUE;
      return TRUE;
    }
  if ((contains_ci (text, "fp8") || contains_ci (text, "float8") || contains_ci (text, "e4m3")
       || contains_ci (text, "e5m2") || contains_ci (text, "8-bit float")
       || contains_ci (text, "fp-8") || contains_ci (text, "fp 8"))
      && !fp8_negated (text))
    *fp8 = TRUE;
  /* a torchao float8 recipe by its name alone ("rowwise with bfloat16 all-gather",
   * "tensorwise", "rowwise_with_gw_hp with bfloat16 all-gather": torchao's
   * docs/source/workflows/training.md benchmark rows; read as bf16, the "bfloat16" being
   * the FSDP all-gather's): FP8, the explain line saying so */
  int torchao_recipe = -1;
  if (!*fp8 && !fp8_negated (text) && (torchao_recipe = torchao_recipe_named (text)) >= 0)
    {
      *fp8 = TRUE;
      c->precision_why = "FP8: the cell names a torchao float8 recipe "
                         "(Float8LinearRecipeName)";
    }
  g_autofree char *stripped = g_strstrip (g_strdup (cell));
  /* an empty cell beside notes that say the run trained in FP8 ("trained in FP8 with
   * Transformer Engine", read as bf16): FP8, the explain line saying so */
  if (!*fp8 && (*stripped == '\0' || cell_unstated (stripped)) && notes_say_fp8 (notes))
    {
      *fp8 = TRUE;
      c->precision_why = "the cell is empty: the notes say the run trained in FP8";
    }
  /* no 16-, 8- or 4-bit float named: a 32-bit run (TF32 or IEEE FP32 GEMMs, which the cell
   * rarely says) or an integer one; neither is read as bf16. A cell that names no number
   * format at all ("FP6", "int4", "quantized") is skipped as not recognised rather than
   * read as bf16; an unstated one ("", "not stated", "-") is bf16, the documented default */
  static const char *const low_float[] = { "bf16", "bfloat16", "fp16", "float16", "half", "fp8",
                                           "float8", "e4m3", "e5m2", "fp4", "amp", "mixed",
                                           "16-bit", "16 bit", "bf-16", "fp-16", "fp 16",
                                           "bfloat", "brain float", "float 16", "8-bit float",
                                           "fp-8", "fp 8", NULL };
  if (!*fp8 && !contains_any_ci (cell, low_float))
    {
      if (contains_ci (text, "int8"))
        return skip (c, "precision '%s': integer (INT8) training GEMMs are not modelled", cell);
      if (contains_ci (text, "fp32") || contains_ci (text, "float32") || contains_ci (text, "tf32")
          || contains_ci (text, "full precision"))
        return skip (c, "precision '%s': 32-bit training (TF32 or FP32 GEMMs) is not mapped "
                     "(hint: a run with 16-bit GEMMs and fp32 master weights is 'bf16')", cell);
      if (*stripped != '\0' && !cell_unstated (stripped))
        return skip (c, "precision '%s' not recognised (hint: bf16, fp16, fp8, mxfp8 or nvfp4)",
                     cell);
    }
  /* bf16 named, and fp16 not, on a device without BF16 tensor cores (V100): the run
   * cannot have been what the row says */
  if (!*fp8 && !(c->cluster->device.peak_flops[TOPO_DTYPE_BF16] > 0)
      && (contains_ci (text, "bf16") || contains_ci (text, "bfloat16"))
      && !contains_ci (text, "fp16") && !contains_ci (text, "half")
      && !(contains_ci (text, "float16") && !contains_ci (text, "bfloat16")))
    return skip (c, "precision '%s': %s has no BF16 tensor cores (hint: Volta runs used fp16; "
                 "check the gpu_type and precision cells)", cell, c->cluster->device.name);
  c->fp8_attention = *fp8 && (contains_ci (text, "fp8 attention") || contains_ci (text, "fp8_dpa")
                              || contains_ci (text, "fp8 dpa") || contains_ci (text, "incl. attention")
                              || contains_ci (text, "including attention")
                              || contains_ci (text, "attention in fp8") || contains_ci (notes, "fp8 attention")
                              || contains_ci (notes, "fp8_dpa") || contains_ci (notes, "fp8 dpa"))
                    && !fp8_attention_negated (text) && !fp8_attention_negated (notes);
  /* the recipe the row names (its quantization costs, sim_cost_options_apply_plan);
   * not named: the stack's */
  c->plan.fp8_recipe = -1;
  /* NeMo's performance scripts name the recipes ds / cs / mxfp8 / ss ("ds (per-tensor
   * delayed scaling), cs (per-tensor current scaling), mxfp8, ss (subchannel scaling)",
   * scripts/performance/argument_parser.py --fp8_recipe), Megatron-Bridge's fp8_cs /
   * fp8_mx / fp8_sc: those codes in brackets ("FP8 (DS)", "fp8 (mx)") or joined to fp8
   * ("fp8_ds", "FP8-DS", "fp8_ss") name the recipe too (a DS row was read as the stack's,
   * on Megatron-Bridge current scaling) */
  static const char *const mx[] = { "mxfp8", "fp8-mx", "fp8mx", "fp8_mx", "fp8 mx", "mx-fp8",
                                     "mx fp8", "mx_fp8", "1x32", "microscaling", "mx block",
                                     "(mx)", NULL };
  static const char *const blockwise[] = { "fp8-sc", "fp8sc", "fp8_sc", "sub-channel",
                                            "subchannel", "blockwise", "block-wise",
                                            "block scaling", "block-scaled", "1x128", "128x128",
                                            "deepseek", "(sc)", "fp8-ss", "fp8_ss", "fp8ss",
                                            "(ss)", NULL };
  static const char *const rowwise[] = { "rowwise", "row-wise", "per-row", NULL };
  /* "current step": NVIDIA's performance summaries describe FP8-CS as per-tensor
   * quantization "using the scaling factors calculated in the current step" (NeMo 25.04
   * page) / "computed in the current step" (25.07) */
  static const char *const current[] = { "current scaling", "current-scaling",
                                          "current_scaling", "fp8-cs", "fp8cs", "fp8_cs",
                                          "tensorwise", "tensor-wise", "(cs)", "current step",
                                          "per-tensor current", NULL };
  static const char *const delayed[] = { "delayed", "fp8-ds", "fp8_ds", "fp8ds", "(ds)",
                                          NULL };
  if (*fp8 && contains_any_ci (text, mx))
    {
      if (!c->cluster->device.mxfp8)
        return skip (c, "precision '%s': %s has no MXFP8 block-scaled GEMMs", cell,
                     c->cluster->device.name);
      c->plan.fp8_recipe = FW_SCALING_BLOCK;
    }
  else if (*fp8 && contains_any_ci (text, blockwise))
    c->plan.fp8_recipe = FW_SCALING_BLOCKWISE;
  /* a cell whose FP8 is a torchao recipe's name takes the name it gives first
   * (torchao_recipe_named: "tensorwise; rowwise in row 7"), not rowwise wherever it is */
  else if (torchao_recipe == FW_SCALING_CURRENT)
    c->plan.fp8_recipe = FW_SCALING_CURRENT;
  /* rowwise and tensorwise (current) both named: the first named is the run's ("fp8
   * tensorwise (rowwise in row 7)" read rowwise, the list's order) */
  else if (*fp8 && contains_any_ci (text, rowwise)
           && !(contains_any_ci (text, current)
                && first_index_ci (text, current) < first_index_ci (text, rowwise)))
    {
      c->plan.fp8_recipe = FW_SCALING_ROWWISE;
      /* torchao's rowwise_with_gw_hp runs the weight-gradient GEMM in high precision
       * (config.py: input and grad_output for grad_weight not scaled); the cost model has
       * no such variant (plan-toml.c reads recipe_name the same way), so rowwise */
      if (contains_ci (text, "rowwise_with_gw_hp"))
        c->fp8_recipe_why = "rowwise_with_gw_hp read as rowwise: its weight-gradient GEMM "
                            "in bf16 is not modelled";
    }
  else if (*fp8 && contains_any_ci (text, current))
    c->plan.fp8_recipe = FW_SCALING_CURRENT;
  else if (*fp8 && contains_any_ci (text, delayed))
    c->plan.fp8_recipe = FW_SCALING_DELAYED;
  /* "dynamic" scaling: torchao's name for a per-tensor scale taken from the tensor at hand
   * (its float8 tensorwise recipe, ScalingType.DYNAMIC), i.e. current scaling; not fp16's
   * "dynamic loss scaling" */
  else if (*fp8 && contains_ci (text, "dynamic") && !contains_ci (text, "loss scal"))
    c->plan.fp8_recipe = FW_SCALING_CURRENT;
  /* A bare "FP8" from a Megatron-Bridge performance table: its run scripts offer no
   * delayed scaling (scripts/performance/argument_parser.py, --compute_dtype choices bf16,
   * fp8_cs, fp8_mx, fp8_sc, nvfp4); MXFP8 and the sub-channel recipe are named in the
   * tables where used, so the unnamed one is fp8_cs, per-tensor current scaling (the
   * 26.02 Llama 3 70B FP8 rows' recipes are the *_FP8_CS presets), not the nemo stack's
   * delayed default, which is NeMo 2's */
  else if (*fp8 && contains_ci (framework, "Megatron-Bridge"))
    {
      c->plan.fp8_recipe = FW_SCALING_CURRENT;
      c->fp8_recipe_why = "not named in the row: Megatron-Bridge's performance scripts offer "
                          "fp8_cs, fp8_mx, fp8_sc and no delayed scaling";
    }
  return TRUE;
}

/* ---- the case ------------------------------------------------------------------------- */

void
res_published_case_free (ResPublishedCase *c)
{
  if (c == NULL)
    return;
  g_free (c->model_label);
  g_free (c->gpu_type);
  g_free (c->framework_read);
  g_free (c->cluster_name);
  g_free (c->network_note);
  g_free (c->micro_batch_why);
  g_free (c->batch_why);
  g_free (c->vpp_why);
  g_free (c->tp_why);
  fw_stack_unref (c->stack);
  model_spec_unref (c->model);
  topo_cluster_unref (c->cluster);
  plan_clear (&c->plan);
  g_free (c->measured_source);
  res_pub_moe_clear (&c->moe);
  g_free (c->skip_reason);
  g_free (c);
}

/* A year from 20`from` to 20`to` standing alone in the text ("Megatron-LM (2021)"; not
 * inside "2104.04473"): the cell dates its run itself */
static gboolean
names_year_in (const char *t, int from, int to)
{
  for (const char *p = t; *p != '\0'; p++)
    if ((p == t || !g_ascii_isalnum (p[-1])) && p[0] == '2' && p[1] == '0'
        && g_ascii_isdigit (p[2]) && g_ascii_isdigit (p[3]) && !g_ascii_isalnum (p[4])
        && p[4] != '.' && (p[2] - '0') * 10 + (p[3] - '0') >= from
        && (p[2] - '0') * 10 + (p[3] - '0') <= to)
      return TRUE;
  return FALSE;
}

static gboolean
names_year_to_2022 (const char *t)
{
  return names_year_in (t, 17, 22);
}

/* The row says it ran Megatron's distributed optimizer: its sharding cell names it
 * ("distributed optimizer", "--use-distributed-optimizer", "DistOpt", NeMo's
 * "distributed_fused_adam") and does not say it off ("no distributed optimizer",
 * "use_distributed_optimizer=False"), or an empty sharding cell beside notes that quote
 * --use-distributed-optimizer or --overlap-param-gather (which exists only with it) */
static gboolean
names_distributed_optimizer (const char *sharding, const char *notes)
{
  g_autofree char *t = g_strstrip (g_strdup (sharding));
  if (cell_unstated (t))
    *t = '\0';
  if (*t == '\0')
    return notes_flag_on (notes, "use-distributed-optimizer")
           || notes_flag_on (notes, "overlap-param-gather");
  /* a cell that reads none ("none (predates the distributed optimizer)") names no
   * optimizer the row ran */
  if (starts_with_ci (t, "none"))
    return FALSE;
  gboolean named = FALSE;
  for (guint i = 0; distopt_names[i] != NULL; i++)
    if (contains_ci (t, distopt_names[i]))
      {
        if (distopt_said_off (t, distopt_names[i]))
          return FALSE;
        named = TRUE;
      }
  return named;
}

/* An n_gpus cell that is empty or a count with K ("16K GPUs", "24K"): tp x pp x cp x dp
 * where all but cp are stated (cp 1 unless stated), and where the cell has K, only if
 * one reading of it, decimal or binary, is that product (Llama 3's "16K GPUs" is
 * 16,384 = tp 8 x pp 16 x dp 128); 1 with the count, 0 otherwise (these were skipped
 * "missing n_gpus") */
static int
gpus_from_sizes (const ResCsv *csv, guint row, gint64 *out)
{
  gint64 tp, pp, dp, cp = 1;
  if (!cell_size (csv, row, "tp", &tp) || !cell_size (csv, row, "pp", &pp)
      || !cell_size (csv, row, "dp", &dp))
    return 0;
  cell_size (csv, row, "cp", &cp);
  gint64 n = tp * pp * cp * dp;
  const char *cell = get (csv, row, "n_gpus");
  double v;
  const char *end = leading_number (cell, &v);
  if (end != NULL)
    {
      char m = magnitude_suffix (end);
      if (m != 'k' || !(fabs (v * 1000 - (double) n) < 0.5 || fabs (v * 1024 - (double) n) < 0.5))
        return 0;
    }
  else
    {
      g_autofree char *t = g_strstrip (g_strdup (cell));
      if (*t != '\0' && !cell_unstated (t))
        return 0;
    }
  if (n < 1 || n > PLAN_MAX_WORLD)
    return 0;
  *out = n;
  return 1;
}

gboolean
res_published_cell_count (const char *cell, gint64 *out)
{
  return cell_count (cell, out);
}

gboolean
res_published_cell_approximate (const char *cell)
{
  return cell_approximate (cell);
}

/* The one reading of a row_id: the mapping (case_map), --only (res_published_validate),
 * --explain and the store all call it. Each had its own: "4.0" was predicted as row 4 but
 * --explain 4 found no such row, and "1e1" printed as row 10 while --explain 10 said the
 * file had no numeric row_id and --only named the ids "1-1" (strtoll's 1). */
gboolean
res_published_row_id (const ResCsv *csv, guint row, gint64 *out)
{
  return cell_count (get (csv, row, "row_id"), out);
}

gint64
res_published_row_gpus (const ResCsv *csv, guint row)
{
  gint64 n = 0;
  int read = row_cell_gpus (csv, row, &n);
  if (read == 0)
    read = gpus_from_sizes (csv, row, &n);
  return read == 1 ? n : 0;
}

/* The data-parallel ranks of a row as the batch readers take them: the dp cell, else
 * n_gpus / (tp x pp x cp) where tp and pp are stated, or pp alone where it and cp fill
 * the GPUs (tp_left_one: tp and dp 1, as map_plan reads the row); FALSE when neither is. */
static gboolean
row_dp (const ResPublishedCase *c, const ResCsv *csv, guint row, gint64 *dp)
{
  gint64 tp = 1, pp, cp = 1;
  if (cell_size (csv, row, "dp", dp))
    return TRUE;
  if ((!cell_size (csv, row, "tp", &tp) && !tp_left_one (c, csv, row, NULL))
      || !cell_size (csv, row, "pp", &pp))
    return FALSE;
  cell_size (csv, row, "cp", &cp);
  if (c->n_gpus < 1 || c->n_gpus % (tp * pp * cp) != 0)
    return FALSE;
  *dp = c->n_gpus / (tp * pp * cp);
  return TRUE;
}

/* MaxText's batch is per device, all of them (MaxText/pyconfig.py
 * calculate_global_batch_sizes: global_batch_size_to_train_on = num_devices x
 * per_device_batch_size x gradient_accumulation_steps), so under tensor or context
 * parallelism a MaxText row's micro_batch is no data-parallel rank's, and micro_batch x
 * dp would undercount the batch by tp x cp. TRUE for a maxtext row whose tp or cp cell
 * is above 1, with *tp and *cp the cells (1 where not read). */
static gboolean
maxtext_batch_per_device (const ResPublishedCase *c, const ResCsv *csv, guint row, gint64 *tp,
                          gint64 *cp)
{
  *tp = 1;
  *cp = 1;
  if (c->stack == NULL || g_strcmp0 (c->stack->name, "maxtext") != 0)
    return FALSE;
  const gboolean tp_read = cell_size (csv, row, "tp", tp);
  const gboolean cp_read = cell_size (csv, row, "cp", cp);
  if (!tp_read)
    *tp = 1;
  if (!cp_read)
    *cp = 1;
  return *tp > 1 || *cp > 1;
}

/* A global batch the row leaves empty but gives the parts of: micro_batch x grad_accum x
 * dp, Megatron's own relation (num_microbatches = global_batch_size / (micro_batch_size x
 * data_parallel_size)); dp from its cell, else n_gpus / (tp x pp x cp) where tp and pp are
 * stated, or pp alone where it fills the GPUs (row_dp). 0 when a part is missing (such
 * a row was skipped "missing global_batch" though the batch is fixed by what it states).
 * c->batch_why says the product: the Zero Bubble paper's Table 3, micro-batch 6, "24
 * (Number of Microbatches)", one pipeline of 8 GPUs -> "the cell is empty: micro_batch 6
 * x grad_accum 24 x dp 1" = 144 (skipped "missing global_batch" while dp was unknown).
 * A MaxText row at tp or cp above 1 is skipped (-1), as where grad_accum is left to the
 * stack (maxtext_batch_per_device): tp 4 on 64 GPUs, micro_batch 2, grad_accum 1 read
 * 2 x 1 x 16 = 32 where MaxText's batch is 2 x 64 x 1 = 128. 1: read, *out and
 * c->batch_why. */
static int
batch_from_accumulation (ResPublishedCase *c, const ResCsv *csv, guint row, gint64 *out)
{
  gint64 ga, mb, dp, tp, cp;
  if (!cell_count (get (csv, row, "grad_accum"), &ga))
    return 0;
  gboolean local;
  const char *where;
  if (micro_batch_stated (csv, row, &mb, &local, &where) <= 0)
    return 0;
  if (!row_dp (c, csv, row, &dp))
    return 0;
  if (maxtext_batch_per_device (c, csv, row, &tp, &cp))
    {
      skip (c, "missing global_batch: under tp %" G_GINT64_FORMAT " x cp %" G_GINT64_FORMAT
            " MaxText's per-device batch is no data-parallel rank's micro-batch, so "
            "micro_batch x grad_accum x dp is not its batch (hint: state global_batch, "
            "per_device_batch_size x the GPUs x grad_accum)", tp, cp);
      return -1;
    }
  if (mb * ga * dp > G_MAXINT)
    return 0;
  *out = mb * ga * dp;
  c->batch_why = g_strdup_printf ("the cell is empty: micro_batch %" G_GINT64_FORMAT " x "
                                  "grad_accum %" G_GINT64_FORMAT " x dp %" G_GINT64_FORMAT,
                                  mb, ga, dp);
  return 1;
}

/* What one unit of a batch per unit holds: one data-parallel replica's batch (per
 * data-parallel rank, per replica), one GPU's (per GPU, device, rank, accelerator), or
 * one node's (per node, host, server) */
typedef enum { BATCH_PER_REPLICA, BATCH_PER_GPU, BATCH_PER_NODE } BatchUnitKind;
typedef struct
{
  const char   *words;   /* as the text writes it, lower case: "per data-parallel rank" */
  const char   *shown;   /* as explain lines write it: "per GPU" */
  BatchUnitKind kind;
} BatchUnit;
/* An effective batch a text gives per unit: `each` sequences a step per one `per` (each 0:
 * none) */
typedef struct
{
  gint64           each;
  const BatchUnit *per;
} BatchPerUnit;

/* A global batch's label that opens a sentence of prose in the notes: the words it may
 * follow in its clause ("The global batch size is 128", "We use a global batch of 128",
 * "with a global batch size of 128"), where mb_label_is_config wants the label at the
 * start of its clause or after config words. `p` is the label in `low`; the start of the
 * words before it that are all of these (p where none), which mb_label_is_config then
 * reads as the label's start. A word of another run ("Llama 2 used a global batch of
 * 512") is none of them, so its clause still reads as prose. */
static const char *
batch_label_opening (const char *low, const char *p)
{
  static const char *const words[] = { "the", "a", "an", "our", "we", "use", "used",
                                       "using", "with", "and" };
  const char *start = p;
  for (;;)
    {
      const char *e = start;
      while (e > low && e[-1] == ' ')
        e--;
      if (e == start)
        return start;                  /* no space before: no word of its own */
      const char *w = e;
      while (w > low && g_ascii_isalpha (w[-1]))
        w--;
      gboolean listed = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (words) && !listed; i++)
        listed = strlen (words[i]) == (gsize) (e - w) && strncmp (w, words[i], (gsize) (e - w)) == 0;
      if (w == e || !listed)
        return start;
      start = w;
    }
}

/* The unit of a batch per unit at `x` ("per GPU", "per data-parallel rank", "/device",
 * "per host"): its table entry, *len the characters it takes, NULL where `x` names none.
 * A batch per data-parallel rank, replica or data-parallel worker is one replica's; per
 * GPU, device, rank or accelerator one GPU's; per node, host or server one node's. A bare
 * worker or process is none of them (one GPU's process under torchrun, a node's under
 * other launchers). */
static const BatchUnit *
batch_unit_at (const char *x, gsize *len)
{
  static const BatchUnit units[] = {
    { "per data-parallel rank", "per data-parallel rank", BATCH_PER_REPLICA },
    { "per data parallel rank", "per data-parallel rank", BATCH_PER_REPLICA },
    { "per data-parallel replica", "per data-parallel replica", BATCH_PER_REPLICA },
    { "per dp rank", "per DP rank", BATCH_PER_REPLICA },
    { "per dp replica", "per DP replica", BATCH_PER_REPLICA },
    { "per replica", "per replica", BATCH_PER_REPLICA },
    { "per data-parallel worker", "per data-parallel worker", BATCH_PER_REPLICA },
    { "per data parallel worker", "per data-parallel worker", BATCH_PER_REPLICA },
    { "per dp worker", "per DP worker", BATCH_PER_REPLICA },
    { "per gpu", "per GPU", BATCH_PER_GPU }, { "per device", "per device", BATCH_PER_GPU },
    { "per rank", "per rank", BATCH_PER_GPU },
    { "per accelerator", "per accelerator", BATCH_PER_GPU },
    { "/gpu", "per GPU", BATCH_PER_GPU }, { "/ gpu", "per GPU", BATCH_PER_GPU },
    { "/device", "per device", BATCH_PER_GPU }, { "/ device", "per device", BATCH_PER_GPU },
    { "per node", "per node", BATCH_PER_NODE }, { "per host", "per host", BATCH_PER_NODE },
    { "per server", "per server", BATCH_PER_NODE },
  };
  for (guint u = 0; u < G_N_ELEMENTS (units); u++)
    {
      gsize n = strlen (units[u].words);
      if (!g_str_has_prefix (x, units[u].words))
        continue;
      if (x[n] == 's' && !g_ascii_isalpha (x[n + 1]))
        n++;                           /* "per GPUs" */
      if (g_ascii_isalpha (x[n]))
        continue;
      *len = n;
      return &units[u];
    }
  return NULL;
}

/* Whether `x` gives a batch per a unit of hardware or of processes that batch_unit_at does
 * not know: "per" or '/' and, within its next three words, one that names a GPU, node,
 * worker, process or the like ("per 8-GPU node", "per DGX node", "per TPU chip", "/pod").
 * "per optimizer step", "per iteration", "per the paper", a count of GPUs ("per 64 GPUs")
 * and a division ("global batch 128 / 64 GPUs") name none: the batch is read as before. */
static gboolean
batch_unit_unknown (const char *x)
{
  static const char *const nouns[] = { "gpu", "node", "worker", "process", "host", "server",
                                       "machine", "device", "rank", "replica", "accelerator",
                                       "chip", "card", "core", "tpu", "pod", "slice",
                                       "instance", "group", "shard", "dgx", "hgx" };
  if (g_str_has_prefix (x, "per "))
    x += 4;
  else if (*x == '/')
    {
      x++;
      while (*x == ' ')
        x++;
      if (!g_ascii_isalpha (*x))
        return FALSE;                  /* a division ("128 / 64 GPUs = 2 per GPU") */
    }
  else
    return FALSE;
  for (guint w = 0; w < 3; w++)
    {
      while (*x == ' ')
        x++;
      const char *e = x;
      while (g_ascii_isalnum (*e) || *e == '-')
        e++;
      if (e == x)
        return FALSE;                  /* punctuation ends the unit */
      /* a count of GPUs ("effective batch size 128 per 64 GPUs"): the batch over them,
       * read as it was (the global batch where they are the row's GPUs) */
      if (w == 0 && strspn (x, "0123456789") == (gsize) (e - x))
        return FALSE;
      /* each part of the word: "8-gpu" names a GPU */
      for (const char *part = x; part < e;)
        {
          const char *pe = part;
          while (pe < e && *pe != '-')
            pe++;
          const gsize n = (gsize) (pe - part) - (pe > part && pe[-1] == 's' ? 1 : 0);
          for (guint i = 0; i < G_N_ELEMENTS (nouns); i++)
            if (n == strlen (nouns[i]) && strncmp (part, nouns[i], n) == 0)
              return TRUE;
          part = pe < e ? pe + 1 : pe;
        }
      x = e;
    }
  return FALSE;
}

/* The gradient accumulation steps (*ga) and the global batch (*gb) a text states by a
 * label, where the row leaves both cells empty: a label at the start of a word, any of
 * " =:_-", the word "steps" or "size" and a few words of prose ("is", "was", "of", "set
 * to", "equal to"), then a whole number not followed by a letter, a '.' or a unit of
 * tokens. Accumulation: "gradient_accumulation_steps=4" (DeepSpeed's and the HF
 * Trainer's key), "--gradient-accumulation-steps 4", "GAS=4", "grad_accum 4", "gradient
 * accumulation 4 steps", "gradient accumulation of 2 steps"; a global batch:
 * "global_batch_size 32" (torchtitan's key), "global batch 32", "GBS 32", "The global
 * batch size is 128", "global batch size was set to 128", "effective global batch 128".
 * In the notes (`notes`) a label is read only where it reads as the run's setting
 * (mb_label_is_config, as the notes' micro-batch labels are, past the prose words a
 * sentence may open with: batch_label_opening). An effective batch given per unit
 * ("effective batch size 2 per data-parallel rank", "effective batch 8 sequences per GPU",
 * "effective batch size per GPU: 2", "effective batch 16 per host") is no global batch
 * but one replica's, GPU's or node's: *unit (each 0 where none), which the caller
 * multiplies out where it can; a global batch given per unit ("global batch 128 per
 * replica"), a batch per a unit not known ("effective batch size 16 per DGX node":
 * batch_unit_unknown) and a fraction ("The global batch size is 1/4 of ...") are none at
 * all. 1: a count read (the others 0 where not); 0: the text names none, or names one
 * with no count read ("gradient accumulation in fp32"); -1: two counts of a kind differ.
 * A label in a notes sentence about another row or a baseline, a negative value and the
 * first factor of a product are no count. A mention said off ("no gradient
 * accumulation") or about Megatron's fused weight-gradient kernel
 * ("gradient_accumulation_fusion") names none. */
static int
accumulation_stated (const char *text, gboolean notes, gint64 *ga, gint64 *gb,
                     BatchPerUnit *unit)
{
  enum { GA, GLOBAL, EFFECTIVE };
  static const struct { const char *label; int kind; } labels[] = {
    { "gradient_accumulation_steps", GA }, { "gradient-accumulation-steps", GA },
    { "gradient accumulation steps", GA }, { "gradient accumulation", GA },
    { "grad_accum", GA }, { "gas", GA },
    { "global_batch_size", GLOBAL }, { "global batch size", GLOBAL }, { "global_batch", GLOBAL },
    { "global batch", GLOBAL }, { "gbs", GLOBAL }, { "effective global batch size", GLOBAL },
    { "effective global batch", GLOBAL }, { "effective batch size", EFFECTIVE },
    { "effective batch", EFFECTIVE },
  };
  /* the words of prose between a label and its number, each followed by a space */
  static const char *const fillers[] = { "is ", "was ", "of ", "set to ", "equal to " };
  static const char *const amounts[] = { "sequences", "sequence", "seqs", "samples", "sample" };
  static const char *const mentions[] = {
    "gradient accumulation", "gradient_accumulation", "gradient-accumulation",
    "grad accumulation", "grad_accum", "grad accum", "accumulation steps", "gas",
    "global batch", "global_batch", "gbs", "effective batch", NULL };
  *ga = 0;
  *gb = 0;
  *unit = (BatchPerUnit) { 0 };
  g_autofree char *low = g_ascii_strdown (text, -1);
  gboolean named = FALSE;
  for (guint i = 0; mentions[i] != NULL; i++)
    {
      const gsize n = strlen (mentions[i]);
      ClauseWalk walk;
      clause_walk_init (&walk, low);
      for (const char *p = strstr (low, mentions[i]); p != NULL && !named;
           p = strstr (p + 1, mentions[i]))
        {
          const char *q = p + n;
          while (*q == ' ' || *q == '_' || *q == '-')
            q++;
          if ((p != low && g_ascii_isalnum (p[-1])) || g_ascii_isalpha (p[n])
              || g_str_has_prefix (q, "fusion") || mention_off (low, p, n, NULL)
              || clause_walk_negated (&walk, p))
            continue;
          named = TRUE;
        }
    }
  if (!named)
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    for (const char *p = strstr (low, labels[i].label); p != NULL;
         p = strstr (p + 1, labels[i].label))
      {
        if (p != low && g_ascii_isalnum (p[-1]))
          continue;
        const char *q = p + strlen (labels[i].label);
        /* the unit of a batch named before its number ("effective batch size per GPU: 2") */
        const BatchUnit *before = NULL;
        for (gboolean moved = TRUE; moved;)
          {
            moved = FALSE;
            while (*q == ' ' || *q == '=' || *q == ':' || *q == '_' || *q == '-')
              q++, moved = TRUE;
            if (g_str_has_prefix (q, "steps") || g_str_has_prefix (q, "size"))
              q += g_str_has_prefix (q, "steps") ? 5 : 4, moved = TRUE;
            /* "is 128", "of 128", "was set to 128": read before, these stopped the label */
            for (guint f = 0; f < G_N_ELEMENTS (fillers) && !moved; f++)
              if (g_str_has_prefix (q, fillers[f]))
                q += strlen (fillers[f]), moved = TRUE;
            gsize len;
            const BatchUnit *u;
            if (!moved && labels[i].kind != GA && before == NULL
                && (u = batch_unit_at (q, &len)) != NULL)
              before = u, q += len, moved = TRUE;
          }
        if (!g_ascii_isdigit (*q))
          continue;
        /* a negative value ("global_batch_size=-1", torchtitan's default: local batch x
         * dp) is no count (it read 1) */
        if (q[-1] == '-' && q - 1 > p && strchr ("=: ", q[-2]) != NULL)
          continue;
        /* a count grouped in thousands ("global batch 1,024", "4 096") is one number
         * (leading_number; it read 1 and 4) */
        double dv = 0;
        char *end = (char *) leading_number (q, &dv);
        if (end == NULL || dv != floor (dv))
          continue;
        const gint64 v = (gint64) dv;
        if (v < 1 || v > G_MAXINT || g_ascii_isalpha (*end) || *end == '.'
            || followed_by_tokens (end))
          continue;
        /* a proper fraction ("The global batch size is 1/4 of the pretraining batch") is
         * no count (its numerator was read: global batch 1); a batch over its GPUs ("GBS
         * 64/8 GPUs") is the batch */
        if (*end == '/' && g_ascii_isdigit (end[1]))
          {
            char *de = NULL;
            const gint64 den = g_ascii_strtoll (end + 1, &de, 10);
            while (*de == ' ')
              de++;
            /* ... a proper fraction of something or of a small denominator: "1/4 of",
             * "3/4"; not two models' batches ("GBS 128/256 (8B/70B)") */
            if (v < den && den <= 16)
              continue;
          }
        /* the first factor of a product ("global batch = 2 x 8 GPUs", "4 x 8 = 32") is no
         * count of it (it read 2) */
        {
          const char *x = end;
          while (*x == ' ')
            x++;
          if ((*x == 'x' || *x == '*') && (x[1] == ' ' || g_ascii_isdigit (x[1])))
            continue;
        }
        /* a sentence about another row or a baseline ("row 5 used GAS=4"), unless it
         * says this row shares it ("global batch 64, as in row 3", "(same as rows 1-4)") */
        if (notes && sentence_about_other_row (low, p))
          {
            const char *sb, *se;
            sentence_around (low, p, &sb, &se);
            g_autofree char *sent = g_strndup (sb, (gsize) (se - sb));
            if (strstr (sent, "as in") == NULL && strstr (sent, "same as") == NULL)
              continue;
          }
        /* a batch per unit ("effective batch size 16 per GPU", "effective batch 8
         * sequences per GPU", "2 per data-parallel rank"; the last two read 8 and 2 as
         * the global batch) is no global batch: an effective batch's is the caller's
         * (*unit), a global batch's is none */
        const BatchUnit *after = NULL;
        {
          const char *x = end;
          while (*x == ' ')
            x++;
          for (guint a = 0; a < G_N_ELEMENTS (amounts); a++)
            if (g_str_has_prefix (x, amounts[a]) && !g_ascii_isalpha (x[strlen (amounts[a])]))
              {
                x += strlen (amounts[a]);
                while (*x == ' ')
                  x++;
                break;
              }
          gsize len;
          if (labels[i].kind != GA)
            after = batch_unit_at (x, &len);
          /* an effective batch per a unit not known ("effective batch size 16 per DGX
           * node", "per worker", "per process": a worker is one GPU's process in one
           * launcher and a node's in another) gives no one global batch: the row is
           * refused with a hint, as it was (it read 16 as the global batch), not left to
           * the stack's default; a global batch's label says it is the job's ("global
           * batch 128 per DP group", "per 64-GPU slice": read as before) */
          if (labels[i].kind == EFFECTIVE && after == NULL && batch_unit_unknown (x))
            return -1;
        }
        if (before != NULL && after != NULL)
          continue;                    /* "per GPU: 2 per node": no one unit */
        const BatchUnit *per = before != NULL ? before : after;
        if (per != NULL && labels[i].kind == GLOBAL)
          continue;
        /* "gradient accumulation 4 steps": the unit is part of the setting */
        const char *after_end = end;
        while (*after_end == ' ')
          after_end++;
        if (labels[i].kind == GA && g_str_has_prefix (after_end, "steps")
            && !g_ascii_isalnum (after_end[5]))
          end = (char *) after_end + 5;
        if (notes && !mb_label_is_config (text, low, batch_label_opening (low, p), end))
          continue;
        if (per != NULL)
          {
            if (unit->each != 0 && (unit->each != v || unit->per->kind != per->kind))
              return -1;
            unit->each = v;
            unit->per = per;
            continue;
          }
        gint64 *f = labels[i].kind == GA ? ga : gb;
        if (*f != 0 && *f != v)
          return -1;
        *f = v;
      }
  /* a mention with no count ("gradient accumulation in fp32", "effective batch 64 via
   * gradient accumulation") says nothing of the count: 0, the stack's default stands (a
   * refusal here skipped rows that only named the accumulation's dtype) */
  return *ga != 0 || *gb != 0 || unit->each != 0 ? 1 : 0;
}

/* The global batch of an effective batch a text gives per unit (accumulation_stated),
 * on a row of `dp` data-parallel ranks at pp 1: one replica's (per data-parallel rank,
 * per replica) x dp; one GPU's x dp only where every GPU is a replica of its own (dp =
 * n_gpus: no tp or cp group shares it, so "per GPU" cannot mean a tensor-parallel
 * group's); one node's x the nodes (n_gpus / the cluster's GPUs per server) where each
 * node holds whole replicas. "effective batch size 2 per data-parallel rank" on 64 GPUs is
 * 128, "effective batch 16 per host" on 8 nodes of 8 GPUs 128 (both read as the global
 * batch, 2 and 16). TRUE with *out and *how ("effective batch 2 per data-parallel rank x
 * dp 64", g_free); FALSE where it is no one global batch: not read, as a batch per unit
 * was not before. */
static gboolean
batch_unit_global (const ResPublishedCase *c, gint64 dp, const BatchPerUnit *unit, gint64 *out,
                   char **how)
{
  gint64 times = 0;
  const char *of = NULL;
  g_autofree char *nodes_of = NULL;
  if (unit->per->kind == BATCH_PER_REPLICA || (unit->per->kind == BATCH_PER_GPU
                                               && dp == c->n_gpus))
    times = dp, of = "dp";
  else if (unit->per->kind == BATCH_PER_NODE && c->cluster != NULL)
    {
      const gint64 per_node = (gint64) topo_cluster_level_size (c->cluster, 0);
      if (per_node >= 1 && c->n_gpus % per_node == 0 && dp % (c->n_gpus / per_node) == 0)
        {
          times = c->n_gpus / per_node;
          nodes_of = g_strdup_printf ("nodes of %" G_GINT64_FORMAT " GPUs", per_node);
          of = nodes_of;
        }
    }
  if (times < 1 || (double) unit->each * (double) times > (double) G_MAXINT)
    return FALSE;
  *out = unit->each * times;
  *how = unit->per->kind == BATCH_PER_NODE
    ? g_strdup_printf ("effective batch %" G_GINT64_FORMAT " %s x %" G_GINT64_FORMAT " %s",
                       unit->each, unit->per->shown, times, of)
    : g_strdup_printf ("effective batch %" G_GINT64_FORMAT " %s x %s %" G_GINT64_FORMAT,
                       unit->each, unit->per->shown, of, times);
  return TRUE;
}

/* A global batch the row leaves empty, with its grad_accum empty too, beside a stated
 * micro_batch: micro_batch x the stack's documented accumulation steps x dp, where the
 * stack documents them (defaults.grad_accum: torchtitan's global_batch_size -1 = local
 * batch x dp, MaxText's and DeepSpeed's gradient_accumulation_steps 1, a plain FSDP loop
 * stepping every batch). The PyTorch FSDP blog's IBM rows (micro_batch 2 a GPU on 128
 * A100s, FSDP: 2 x 1 x 128 = 256, the blog's own 256 a step) and torchtitan's Llama 3 8B
 * rows (local batch 1 on 8 GPUs: 1 x 1 x 8 = 8) were skipped "missing global_batch".
 * Only at pp 1 (stated, or the stack's unstated degree, degrees_default_one): a pipeline
 * runs several micro-batches a step, so one micro-batch a step is not what ran; such a
 * row is skipped with a hint. dp is the dp cell, else n_gpus / (tp x pp x cp), tp and pp
 * as map_plan reads them. A stack that documents no default (megatron-core, nemo,
 * llm-foundry: their tables print a global batch, and a row without one has a gap) keeps
 * the skip. 1: read, *out and c->batch_why; 0: not this case (the caller skips "missing
 * global_batch"); -1: skipped. */
static int
batch_from_default_accumulation (ResPublishedCase *c, const ResCsv *csv, guint row,
                                 gint64 *out)
{
  gint64 mb, tp = 1, pp = 1, cp = 1, dp = 0;
  gboolean local;
  const char *where;
  const int ga = c->stack != NULL ? c->stack->default_grad_accum : 0;
  if (ga < 1 || !cell_blank (csv, row, "global_batch") || !cell_blank (csv, row, "grad_accum")
      || micro_batch_stated (csv, row, &mb, &local, &where) <= 0)
    return 0;
  /* the degrees as map_plan reads them: the cell, else 1 on a stack whose unstated
   * degrees are 1, else tp 1 where the others fill the GPUs (tp_left_one) */
  const gboolean ones = degrees_default_one (c, csv, row);
  if (!cell_size (csv, row, "pp", &pp) && !(ones && cell_blank (csv, row, "pp")))
    return 0;
  if (pp > 1)
    {
      skip (c, "missing global_batch: grad_accum not stated either, and the %s stack's "
            "default of %d is no pipeline's step (pp %" G_GINT64_FORMAT " runs several "
            "micro-batches a step) (hint: state global_batch, or grad_accum)",
            c->stack->name, ga, pp);
      return -1;
    }
  if (!cell_size (csv, row, "dp", &dp))
    {
      if (!cell_size (csv, row, "tp", &tp) && !(ones && cell_blank (csv, row, "tp"))
          && !tp_left_one (c, csv, row, NULL))
        return 0;
      if (!cell_size (csv, row, "cp", &cp) && !cell_blank (csv, row, "cp"))
        return 0;
      if (c->n_gpus < 1 || c->n_gpus % (tp * pp * cp) != 0)
        return 0;
      dp = c->n_gpus / (tp * pp * cp);
    }
  /* MaxText's batch is per device (maxtext_batch_per_device): skipped, saying so */
  gint64 tp_cell = 1, cp_cell = 1;
  if (maxtext_batch_per_device (c, csv, row, &tp_cell, &cp_cell))
    {
      skip (c, "missing global_batch: grad_accum not stated either, and under tp %"
            G_GINT64_FORMAT " x cp %" G_GINT64_FORMAT " MaxText's per-device batch is no "
            "data-parallel rank's micro-batch (hint: state global_batch, per_device_batch_size "
            "x the GPUs)", tp_cell, cp_cell);
      return -1;
    }
  /* the accumulation or the global batch the micro_batch cell or the notes state
   * (accumulation_stated), not the stack's default: torchtitan's "gradient accumulation 4
   * steps" on 8 GPUs at local batch 1 is 1 x 4 x 8 = 32, and "1 (local_batch_size;
   * global_batch_size 32)" is 32 (both read 8); where they name either without a count
   * read ("effective batch 64 via gradient accumulation"), skipped with a hint */
  static const char *const columns[] = { "micro_batch", "notes" };
  static const char *const column_names[] = { "the micro_batch cell", "the notes" };
  gint64 ga_said = 0, gb_said = 0;
  const char *ga_in = NULL, *gb_in = NULL;
  g_autofree char *gb_from = NULL;
  for (guint k = 0; k < G_N_ELEMENTS (columns); k++)
    {
      gint64 g, b;
      BatchPerUnit unit;
      int said = accumulation_stated (get (csv, row, columns[k]), k == 1, &g, &b, &unit);
      if (said == 0)
        continue;
      /* an effective batch per unit, where its units are the row's replicas or whole
       * groups of them (batch_unit_global); where they are not, it is not read, as before */
      g_autofree char *unit_how = NULL;
      gint64 b_unit = 0;
      if (said > 0 && unit.each != 0 && batch_unit_global (c, dp, &unit, &b_unit, &unit_how))
        {
          if (b != 0 && b != b_unit)
            said = -1;
          b = b_unit;
        }
      if (said < 0 || (g != 0 && ga_said != 0 && g != ga_said)
          || (b != 0 && gb_said != 0 && b != gb_said))
        {
          skip (c, "missing global_batch: grad_accum not stated, and gradient accumulation "
                "or a global batch is named in %s without one count read, so the %s stack's "
                "default of %d is not what ran (hint: state global_batch, or grad_accum)",
                column_names[k], c->stack->name, ga);
          return -1;
        }
      if (g != 0)
        ga_said = g, ga_in = column_names[k];
      if (b != 0)
        {
          gb_said = b, gb_in = column_names[k];
          g_free (gb_from);
          gb_from = unit_how != NULL ? g_strdup_printf ("%s (%s)", gb_in, unit_how)
                                     : g_strdup (gb_in);
        }
    }
  const double ranks = (double) mb * (double) dp;
  if (gb_said != 0)
    {
      if (gb_said % (mb * dp) != 0 || (ga_said != 0 && (double) gb_said != ranks * ga_said))
        {
          skip (c, "missing global_batch: the global batch %" G_GINT64_FORMAT " that %s "
                "states is not micro_batch %" G_GINT64_FORMAT " x dp %" G_GINT64_FORMAT
                " x %s accumulation steps (hint: state global_batch, or grad_accum)",
                gb_said, gb_in, mb, dp, ga_said != 0 ? "its" : "whole");
          return -1;
        }
      *out = gb_said;
      c->batch_why = g_strdup_printf ("the cell is empty: global batch %" G_GINT64_FORMAT
                                      " from %s = micro_batch %" G_GINT64_FORMAT " x dp %"
                                      G_GINT64_FORMAT " x %" G_GINT64_FORMAT " accumulation "
                                      "steps", gb_said, gb_from, mb, dp, gb_said / (mb * dp));
      return 1;
    }
  if (ga_said != 0)
    {
      if (ranks * (double) ga_said > (double) G_MAXINT)
        return 0;
      *out = mb * ga_said * dp;
      c->batch_why = g_strdup_printf ("the cell is empty: micro_batch %" G_GINT64_FORMAT " x "
                                      "grad_accum %" G_GINT64_FORMAT " x dp %" G_GINT64_FORMAT
                                      "; grad_accum from %s", mb, ga_said, dp, ga_in);
      return 1;
    }
  if (ranks * ga > (double) G_MAXINT)
    return 0;
  *out = mb * ga * dp;
  c->batch_why = g_strdup_printf ("the cell is empty: micro_batch %" G_GINT64_FORMAT " x "
                                  "grad_accum %d x dp %" G_GINT64_FORMAT "; grad_accum not "
                                  "stated: the %s stack's default %d", mb, ga, dp,
                                  c->stack->name, ga);
  return 1;
}

/* The product a batch per unit writes out after its unit ("4 per GPU x 8 GPUs x 2
 * nodes", "4 per GPU x 8 GPUs per node x 6 nodes", "16 per node x 2 nodes"), from `p`
 * just past the unit: `each` x every factor, each a whole count of GPUs, devices, ranks,
 * accelerators, nodes, servers or hosts (a "per node" after one is its description), or
 * of data-parallel replicas ("x 48 DP ranks", "x 48 replicas", "x 48 DP").
 * 1: *out the product and *factors the factors as " x 8 GPUs x 2 nodes" (g_free); 0: no
 * product written; -1: a factor that names no such count ("x 16", "x 2 epochs") or a
 * product past G_MAXINT. */
static int
batch_product (const char *p, gint64 each, gint64 *out, char **factors)
{
  static const char *const units[] = { "gpu", "device", "rank", "accelerator", "node",
                                       "server", "host" };
  g_autoptr (GString) why = g_string_new ("");
  gint64 product = each;
  guint n = 0;
  for (;;)
    {
      const char *q = p;
      while (*q == ' ' || *q == ',')
        q++;
      const gsize op = (*q == 'x' || *q == 'X' || *q == '*') ? 1
                       : ((guchar) q[0] == 0xc3 && (guchar) q[1] == 0x97) ? 2 : 0;
      if (op == 0 || g_ascii_isalpha (q[op]))
        break;
      const char *f = q + op;
      while (*f == ' ')
        f++;
      double m;
      const char *m_end = g_ascii_isdigit (*f) ? leading_number (f, &m) : NULL;
      if (m_end == NULL)
        break;   /* "x" and no number: no product */
      if (!(m >= 1) || m != floor (m) || (double) product * m > (double) G_MAXINT)
        return -1;
      while (*m_end == ' ')
        m_end++;
      guint u = G_N_ELEMENTS (units);
      gsize len = 0;
      /* "x 48 DP ranks", "x 48 replicas", "x 48 DP": a count of data-parallel replicas,
       * which a batch per GPU (one replica's) is multiplied by; checked against dp by the
       * caller like "x 8 GPUs" (these were skipped as no count of GPUs or nodes) */
      static const char *const replicas[] = { "dp ranks", "dp rank", "dp replicas",
                                              "dp replica", "data-parallel ranks",
                                              "data-parallel replicas", "replicas",
                                              "replica", "dp" };
      for (guint i = 0; i < G_N_ELEMENTS (replicas) && u == G_N_ELEMENTS (units); i++)
        {
          len = strlen (replicas[i]);
          if (starts_with_ci (m_end, replicas[i]) && !g_ascii_isalpha (m_end[len]))
            u = 2;   /* a rank: no "per node" description follows it */
        }
      for (guint i = 0; i < G_N_ELEMENTS (units) && u == G_N_ELEMENTS (units); i++)
        {
          len = strlen (units[i]);
          if (starts_with_ci (m_end, units[i]))
            {
              if (m_end[len] == 's' || m_end[len] == 'S')
                len++;
              if (!g_ascii_isalpha (m_end[len]))
                u = i;
            }
        }
      if (u == G_N_ELEMENTS (units))
        return -1;
      product *= (gint64) m;
      g_string_append_printf (why, " x %.0f %.*s", m, (int) len, m_end);
      p = m_end + len;
      /* "8 GPUs per node", "8 GPUs/node": the factor described */
      const char *d = p;
      while (*d == ' ')
        d++;
      if (starts_with_ci (d, "per ") || *d == '/')
        {
          const char *w = d + (*d == '/' ? 1 : 4);
          while (*w == ' ')
            w++;
          for (guint i = 4; i < G_N_ELEMENTS (units); i++)
            if (starts_with_ci (w, units[i]) && !g_ascii_isalpha (w[strlen (units[i])]))
              {
                g_string_append_printf (why, " %.*s", (int) (w + strlen (units[i]) - d), d);
                p = w + strlen (units[i]);
                break;
              }
        }
      n++;
    }
  if (n == 0)
    return 0;
  *out = product;
  *factors = g_string_free (g_steal_pointer (&why), FALSE);
  return 1;
}

/* Whether a batch per GPU (`each`) is a micro-step's: many papers give the batch of one
 * GPU per micro-step, micro_batch, and accumulate grad_accum of them a step. Where the
 * grad_accum cell and a micro_batch (not a local batch) are stated: 1 with *ga where the
 * batch is micro_batch (the global batch is it x dp x grad_accum; it was read x dp, a
 * step grad_accum times too short); 0 where it is micro_batch x grad_accum (a step's) or
 * either is not stated; -1, skipped, where it is neither. */
static int
batch_unit_accumulation (ResPublishedCase *c, const ResCsv *csv, guint row, gint64 each,
                         gint64 *ga)
{
  gint64 mb;
  gboolean local;
  const char *where;
  if (!cell_count (get (csv, row, "grad_accum"), ga)
      || micro_batch_stated (csv, row, &mb, &local, &where) <= 0 || local)
    return 0;
  if (each == mb)
    return *ga > 1 ? 1 : 0;
  if ((double) each == (double) mb * (double) *ga)
    return 0;
  skip (c, "global_batch '%s' is a batch per GPU of %" G_GINT64_FORMAT ", neither a "
        "micro-step's (micro_batch %" G_GINT64_FORMAT ") nor a step's (micro_batch x "
        "grad_accum = %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT
        "): no one global batch (hint: write the global batch, or check micro_batch and "
        "grad_accum)", get (csv, row, "global_batch"), each, mb, mb, *ga, mb * *ga);
  return -1;
}

/* A global_batch cell that gives the batch of one GPU or one node ("8 per GPU", "1M tokens
 * per GPU", "8/device", "4 per rank", "16 per node"; each was read as the global batch).
 * A batch per GPU, device, rank or accelerator is, in papers and configs, the batch of
 * one data-parallel replica (the GPUs of one replica's tensor, pipeline and context
 * groups share its micro-batches): the global batch is it x dp (the dp cell, else n_gpus
 * / (tp x pp x cp): row_dp). A batch per node is it x the nodes (n_gpus / the cluster's
 * GPUs per server) where each node holds whole replicas (dp a multiple of the nodes);
 * where a replica spans nodes it says no one global batch, and the row is skipped. A
 * product written out ("4 per device x 8 devices", "2 per GPU x 8 GPUs x 2 nodes", "16
 * per node x 4 nodes") is that product, every factor (batch_product), checked against
 * per GPU x dp (or per node x the row's nodes): skipped where they differ. A batch per
 * GPU equal to a stated micro_batch, grad_accum stated, is a micro-step's: x grad_accum
 * too (batch_unit_accumulation). The amount is in sequences, or in tokens ("1M tokens per GPU": tokens /
 * seq_len, batch_in_tokens). 1: read, *out in sequences and c->batch_why saying how; 0:
 * the cell is no batch per unit; -1: skipped, saying why. */
static int
batch_per_unit (ResPublishedCase *c, const ResCsv *csv, guint row, gint64 seq, gint64 *out)
{
  const char *cell = batch_cell (csv, row);
  double v;
  const char *end = leading_number (cell, &v);
  if (end == NULL)
    return 0;
  /* past the amount's magnitude and its unit: "1M tokens", "8 sequences" */
  const char *p = end;
  gsize word = 0;
  gboolean magnitude = FALSE;
  if (magnitude_suffix (p) != 0)
    {
      p += p[0] == ' ' ? 2 : 1;
      if (*p == 'i' || *p == 'I')
        p++;
      magnitude = TRUE;
    }
  else if (magnitude_word (p, &word) != 0)
    {
      p += word;
      magnitude = TRUE;
    }
  while (*p == ' ')
    p++;
  static const char *const amounts[] = { "tokens", "token", "tok", "sequences", "sequence",
                                         "seqs", "samples", "sample" };
  gboolean tokens = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (amounts); i++)
    if (starts_with_ci (p, amounts[i]) && !g_ascii_isalpha (p[strlen (amounts[i])]))
      {
        tokens = amounts[i][0] == 't';
        p += strlen (amounts[i]);
        break;
      }
  while (*p == ' ')
    p++;
  if (starts_with_ci (p, "per "))
    p += 4;
  else if (*p == '/')
    p++;
  else
    return 0;
  while (*p == ' ')
    p++;
  static const char *const units[] = { "gpu", "device", "rank", "accelerator", "node" };
  guint u = G_N_ELEMENTS (units);
  for (guint i = 0; i < G_N_ELEMENTS (units) && u == G_N_ELEMENTS (units); i++)
    {
      gsize n = strlen (units[i]);
      if (starts_with_ci (p, units[i])
          && !g_ascii_isalpha (p[n + ((p[n] == 's' || p[n] == 'S') ? 1 : 0)]))
        {
          u = i;
          p += n + ((p[n] == 's' || p[n] == 'S') ? 1 : 0);
        }
    }
  if (u == G_N_ELEMENTS (units))
    return 0;
  static const char *const names[] = { "GPU", "device", "rank", "accelerator", "node" };
  const gboolean node = strcmp (units[u], "node") == 0;
  const char *what = names[u];
  /* the amount of one unit, in sequences */
  gint64 each;
  if (tokens)
    {
      int r = batch_in_tokens (cell, seq, &each);
      if (r <= 0)
        {
          skip (c, "global_batch '%s' is in tokens per %s and no one reading of it divides "
                "by seq_len %" G_GINT64_FORMAT " (hint: write the batch in sequences)",
                get (csv, row, "global_batch"), what, seq);
          return -1;
        }
    }
  else if (magnitude)
    return 0;   /* "1.5K per GPU": sequences or tokens? (case_map asks) */
  else if (!(v >= 1) || v != floor (v) || v > (double) G_MAXINT)
    return 0;
  else
    each = (gint64) v;
  /* "1024 sequences (1M tokens / seq_len)" where the cell is in tokens */
  g_autofree char *amount = tokens ? g_strdup_printf ("%" G_GINT64_FORMAT " sequences (its "
                                                      "tokens / seq_len)", each)
                                   : g_strdup_printf ("%" G_GINT64_FORMAT, each);
  /* a product written out: "x 64 devices", "x 8 GPUs x 2 nodes", "x 8 GPUs per node x 6
   * nodes": every factor (batch_product; it stopped at the first: "2 per GPU x 8 GPUs x 2
   * nodes" was 16) */
  gint64 product = 0;
  g_autofree char *factors = NULL;
  const int written = batch_product (p, each, &product, &factors);
  if (written < 0)
    {
      skip (c, "global_batch '%s' writes a product with a factor that is no count of GPUs "
            "or nodes, or too large (hint: write the global batch)",
            get (csv, row, "global_batch"));
      return -1;
    }
  gint64 dp;
  if (!row_dp (c, csv, row, &dp))
    {
      if (written > 0)
        {
          *out = product;
          c->batch_why = g_strdup_printf ("%s per %s%s, as written", amount, what, factors);
          return 1;
        }
      skip (c, "global_batch '%s' is a batch per %s, and the data-parallel ranks it is "
            "multiplied by are not known: dp not stated, nor tp and pp to derive it from "
            "n_gpus (hint: state dp, or write the global batch)",
            get (csv, row, "global_batch"), what);
      return -1;
    }
  if (!node)
    {
      if ((double) each * (double) dp > (double) G_MAXINT)
        return 0;
      /* the written product is the replicas' batch: per GPU x dp, or the cell says two
       * things (the GPUs it names are not the row's data-parallel ranks) */
      if (written > 0 && product != each * dp)
        {
          skip (c, "global_batch '%s' writes %" G_GINT64_FORMAT " (%s per %s%s), but a batch "
                "per %s is per data-parallel replica: %s x dp %" G_GINT64_FORMAT " = %"
                G_GINT64_FORMAT " (hint: write the global batch, or check dp and n_gpus)",
                get (csv, row, "global_batch"), product, amount, what, factors, what, amount,
                dp, each * dp);
          return -1;
        }
      /* a micro-step's or a step's: the micro_batch and grad_accum cells say which */
      gint64 ga = 0;
      const int steps = batch_unit_accumulation (c, csv, row, each, &ga);
      if (steps < 0)
        return -1;
      if ((double) each * (double) dp * (double) ga > (double) G_MAXINT)
        return 0;
      *out = each * dp * (steps > 0 ? ga : 1);
      g_autofree char *how = written > 0
        ? g_strdup_printf ("%s per %s%s = %s x dp %" G_GINT64_FORMAT ", as written", amount,
                           what, factors, amount, dp)
        : g_strdup_printf ("%s per %s x dp %" G_GINT64_FORMAT ": a batch per %s is per "
                           "data-parallel replica", amount, what, dp, what);
      c->batch_why = steps > 0
        ? g_strdup_printf ("%s; x grad_accum %" G_GINT64_FORMAT ": the batch per %s is "
                           "micro_batch's, a micro-step's", how, ga, what)
        : g_steal_pointer (&how);
      return 1;
    }
  const gint64 per_node = (gint64) topo_cluster_level_size (c->cluster, 0);
  const gint64 nodes = per_node >= 1 && c->n_gpus % per_node == 0 ? c->n_gpus / per_node : 0;
  /* "16 per node x 2 nodes": as written, where it is the row's nodes or they are not known */
  if (written > 0 && nodes >= 1 && dp % nodes == 0 && product != each * nodes)
    {
      skip (c, "global_batch '%s' writes %" G_GINT64_FORMAT " (%s per node%s), but the row's "
            "%" G_GINT64_FORMAT " GPUs are %" G_GINT64_FORMAT " nodes of %" G_GINT64_FORMAT
            ": %s x %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT " (hint: write the global "
            "batch, or check n_gpus)", get (csv, row, "global_batch"), product, amount,
            factors, c->n_gpus, nodes, per_node, amount, nodes, each * nodes);
      return -1;
    }
  if (written > 0)
    {
      *out = product;
      c->batch_why = g_strdup_printf ("%s per node%s, as written", amount, factors);
      return 1;
    }
  if (nodes < 1 || dp % nodes != 0)
    {
      skip (c, "global_batch '%s' is a batch per node, and a node of %" G_GINT64_FORMAT
            " GPUs (cluster %s) holds no whole number of the %" G_GINT64_FORMAT
            " data-parallel replicas on %" G_GINT64_FORMAT " GPUs: no one global batch "
            "(hint: write the global batch, or the batch per GPU)",
            get (csv, row, "global_batch"), per_node, c->cluster_name, dp, c->n_gpus);
      return -1;
    }
  if ((double) each * (double) nodes > (double) G_MAXINT)
    return 0;
  *out = each * nodes;
  c->batch_why = g_strdup_printf ("%s per node x %" G_GINT64_FORMAT " nodes of %"
                                  G_GINT64_FORMAT " GPUs, each node %" G_GINT64_FORMAT
                                  " whole data-parallel replica%s", amount, nodes, per_node,
                                  dp / nodes, dp / nodes == 1 ? "" : "s");
  return 1;
}

/* Whether a cell says the run fine-tuned adapters on frozen base weights: "LoRA",
 * "QLoRA", "DoRA" as written (or "lora" / "qlora" in lower case, as configs write them:
 * "peft=lora", MLPerf's "llama2_70b_lora"), "low-rank adaptation", "adapters only",
 * "frozen base weights / model"; not negated ("no LoRA", "LoRA-free", "QLoRA not
 * applicable"), not in a clause about another run ("vs. LoRA baseline", "the LoRA numbers
 * are a separate row"), not MLA's "kv_lora" / "kv-LoRA rank", not a name ("Lora Aroyo",
 * "Dora"). `benchmark_only`: only the "_lora" benchmark form (the source cell, whose
 * other words may be authors'). The word it matched (static), or NULL. */
static const char *
names_lora (const char *t, gboolean benchmark_only)
{
  static const char *const words[] = { "QLoRA", "LoRA", "DoRA", "QLORA", "LORA", "qlora",
                                       "lora", NULL };
  static const char *const phrases[] = { "low-rank adaptation", "low rank adaptation",
                                         "adapters only", "adapter-only",
                                         "frozen base weights", "frozen base model",
                                         "base weights frozen", "base model frozen", NULL };
  static const char *const elsewhere[] = { "baseline", " vs", "versus", "separate",
                                           "other row", "compared", "unlike", "not used",
                                           "not applicable", "n/a", "available",
                                           "instead", "rather than", "table", NULL };
  if (t == NULL || *t == '\0')
    return NULL;
  g_autofree char *low = g_ascii_strdown (t, -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      const gsize n = strlen (words[i]);
      for (const char *p = strstr (t, words[i]); p != NULL; p = strstr (p + 1, words[i]))
        {
          const char *lp = low + (p - t);
          if ((p > t && g_ascii_isalnum (p[-1])) || g_ascii_isalnum (p[n]) || p[n] == '_'
              || g_str_has_prefix (p + n, "-free"))
            continue;
          /* MLA's low-rank projections ("kv_lora 512", "no q_lora", "kv-LoRA rank") */
          if (p - t >= 2 && (p[-1] == '_' || p[-1] == '-')
              && (g_ascii_strncasecmp (p - 2, "q", 1) == 0
                  || (p - t >= 3 && g_ascii_strncasecmp (p - 3, "kv", 2) == 0)))
            continue;
          if (benchmark_only && !(p > t && p[-1] == '_'))
            continue;
          g_autofree char *clause = clause_at (low, lp, ";.,()", ";.,()");
          if (negated_before (low, lp) || negated_after (lp + n)
              || contains_any_ci (clause, elsewhere))
            continue;
          return words[i];
        }
    }
  if (benchmark_only)
    return NULL;
  for (guint i = 0; phrases[i] != NULL; i++)
    {
      const char *p = strstr (low, phrases[i]);
      if (p != NULL && !negated_before (low, p))
        return phrases[i];
    }
  return NULL;
}

/* A Google Cloud GPU machine type named in the gpu_type or network cell: its GPU-to-GPU
 * NICs' rate a GPU, in Gb/s (Google Cloud, "Networking and GPU machines",
 * cloud.google.com/compute/docs/gpus/gpu-network-bandwidth: A3 High a3-highgpu-8g, 1,000
 * Gbps in all over a 4+1 NIC arrangement, four 200 Gbps NICs for GPUDirect-TCPX: 100 a
 * GPU; A3 Mega a3-megagpu-8g, 1,800 Gbps over 8+1 NICs, eight 200 Gbps for
 * GPUDirect-TCPXO: 200 a GPU; A3 Edge a3-edgegpu-8g, 600 Gbps in all, two 200 Gbps GPU
 * NICs with one for the host: 50 a GPU; A3 Ultra and A4, eight 400 Gbps CX-7 NICs, one a
 * GPU: 400; A4X, four CX-7 for four GPUs: 400). 0 where none is named. The MaxText A3
 * rows read as a DGX InfiniBand pod, 400 Gb/s a GPU (audit of 7 Dec). */
static double
gcp_gpu_nic_gbps (const char *gpu_type, const char *network, const char **machine)
{
  static const struct { const char *name, *machine; double gbps; } types[] = {
    { "a3-highgpu", "A3 High", 100 }, { "a3 high", "A3 High", 100 },
    { "a3-megagpu", "A3 Mega", 200 }, { "a3 mega", "A3 Mega", 200 },
    { "gpudirect-tcpxo", "A3 Mega", 200 },
    { "a3-edgegpu", "A3 Edge", 50 }, { "a3 edge", "A3 Edge", 50 },
    { "gpudirect-tcpx", "A3 High", 100 },
    { "a3-ultragpu", "A3 Ultra", 400 }, { "a3 ultra", "A3 Ultra", 400 },
    { "a4-highgpu", "A4", 400 }, { "a4x-highgpu", "A4X", 400 },
  };
  /* a machine named as a comparison, negated, or one the run left ("the blog compares
   * against GCP A3 Mega", "not Google Cloud A3 Mega", "A3 Mega would use TCPXO instead",
   * "migrated from a3-highgpu-8g"): not the row's (regression audit of 7 Dec) */
  static const char *const elsewhere[] = { "compare", "against", " vs", "versus", "would",
                                           "instead", "unlike", "migrat", "moved from",
                                           "switched from", "rather than", NULL };
  const char *cells[] = { gpu_type, network };
  for (guint k = 0; k < G_N_ELEMENTS (cells); k++)
    {
      if (cells[k] == NULL)
        continue;
      g_autofree char *low = g_ascii_strdown (cells[k], -1);
      /* the first mention in the cell that is the row's, whichever machine it names */
      const char *best = NULL;
      guint best_i = 0;
      for (guint i = 0; i < G_N_ELEMENTS (types); i++)
        {
          const gsize n = strlen (types[i].name);
          for (const char *p = strstr (low, types[i].name); p != NULL;
               p = strstr (p + 1, types[i].name))
            {
              if ((p > low && g_ascii_isalnum (p[-1])) || g_ascii_isalpha (p[n]))
                continue;
              /* the 8-GPU machines only: a3-highgpu-1g / 2g / 4g have one NIC */
              if (p[n] == '-' && g_ascii_isdigit (p[n + 1]) && p[n + 1] != '8')
                continue;
              g_autofree char *clause = clause_at (low, p, ";.,()", ";.,()");
              const char *b = p;
              while (b > low && strchr (";.,()", b[-1]) == NULL)
                b--;
              g_autofree char *before = g_strndup (b, (gsize) (p - b));
              if (negated_before (low, p) || contains_any_ci (clause, elsewhere)
                  || g_str_has_prefix (before, "not ") || strstr (before, " not ") != NULL)
                continue;
              if (best == NULL || p < best)
                best = p, best_i = i;
              break;
            }
        }
      if (best != NULL)
        {
          *machine = types[best_i].machine;
          return types[best_i].gbps;
        }
    }
  return 0;
}

static void
case_map (ResPublishedCase *c, const ResCsv *csv, guint row, TopoCluster *on)
{
  gint64 v;
  if (!res_published_row_id (csv, row, &c->row_id))
    {
      c->row_id = -1;
      skip (c, "row_id '%s' is not a whole number from 1 to %d (hint: number the rows "
            "1, 2, 3, ...)", get (csv, row, "row_id"), G_MAXINT);
      return;
    }

  g_autofree char *bad_cell = row_cells_problem (csv, row);
  if (bad_cell != NULL)
    {
      skip (c, "%s", bad_cell);
      return;
    }
  g_autofree char *bad_moe = NULL;
  if (!res_pub_moe_parse (get (csv, row, "moe"), &c->moe, &bad_moe))
    {
      skip (c, "refused: %s", bad_moe);
      return;
    }
  /* no moe cell (the shared CSV has none): a model cell that names a shipped MoE preset
   * whose hidden size, layers and heads are the row's is that preset's MoE
   * (res_pub_moe_from_preset); "Qwen3-30B-A3B" or "DeepSeek-V3" with an ep column read
   * as a dense model and were refused for their ep, and one at ep 1 as a dense model of
   * the expert width (audit of 7 Dec, the round-7 rows without their moe cells) */
  if (!c->moe.present)
    {
      gint64 h = 0, l = 0, a = 0;
      if (cell_count (get (csv, row, "hidden"), &h) && cell_count (get (csv, row, "n_layers"), &l)
          && cell_count (get (csv, row, "n_heads"), &a))
        res_pub_moe_from_preset (get (csv, row, "model"), (guint64) h, (guint64) l,
                                 (guint64) a, &c->moe);
      /* ... else an MoE shape the model cell or the notes state (Grok-1's "8 experts
       * top-2"), the expert width the row's ffn_hidden where the text gives none */
      gint64 f = 0;
      /* not where the model cell calls the model dense ("T5-style dense 11B baseline"
       * beside notes on Switch's 128 experts) */
      g_autofree char *model_low = g_ascii_strdown (get (csv, row, "model"), -1);
      static const char *const dense_word[] = { "dense", NULL };
      const char *d = first_word_start (model_low, dense_word);
      const gboolean model_dense = d != NULL && !g_ascii_isalnum (d[5]);
      if (!c->moe.present && !model_dense)
        {
          const guint64 ffn = cell_count (get (csv, row, "ffn_hidden"), &f) ? (guint64) f : 0;
          if (res_pub_moe_arch_in_text (get (csv, row, "model"), ffn, &c->moe))
            c->moe.arch_from = "the model cell";
          else if (res_pub_moe_arch_in_text (get (csv, row, "notes"), ffn, &c->moe))
            c->moe.arch_from = "the notes";
        }
    }
  /* what the moe cell leaves unstated, where the row's other cells say it: etp in the ep
   * cell ("EP64, ETP1") or the notes ("expert_tensor_parallel_size=1"), forced balance
   * and token drop in the model cell or the notes (published-moe-text.c) */
  res_pub_moe_read_row (&c->moe, get (csv, row, "ep"), get (csv, row, "model"),
                        get (csv, row, "notes"));
  /* the dispatcher the moe cell leaves unstated: the framework cell's ("NeMo AutoModel
   * (PyTorch FSDP2 + Transformer Engine + DeepEP)"), else the notes' ("Kernel
   * optimizations column: TE + DeepEP") */
  if (c->moe.present && c->moe.dispatcher == RES_PUB_DISPATCH_UNSTATED)
    {
      ResPubDispatcher d = res_pub_moe_dispatcher_in_text (get (csv, row, "framework"));
      c->moe.dispatcher_from = "the framework cell";
      if (d == RES_PUB_DISPATCH_UNSTATED)
        {
          d = res_pub_moe_dispatcher_in_text (get (csv, row, "notes"));
          c->moe.dispatcher_from = "the notes";
        }
      c->moe.dispatcher = d;
      if (d == RES_PUB_DISPATCH_UNSTATED)
        c->moe.dispatcher_from = NULL;
    }

  /* A row that gives no model shape (the ZeRO paper's "100B+" runs state only a parameter
   * count) cannot be predicted on any hardware: say that rather than a missing preset. */
  if (!cell_count (get (csv, row, "n_layers"), &v) && !cell_count (get (csv, row, "hidden"), &v)
      && !cell_count (get (csv, row, "n_heads"), &v))
    {
      skip (c, "model shape not stated (no n_layers, hidden, n_heads): nothing to predict");
      return;
    }

  /* LoRA / adapter fine-tuning: the base weights are frozen (no weight gradients, no
   * optimizer state for them, no weight-gradient GEMMs), which no plan here says; such a
   * row predicted as full training was out of memory (MLPerf's llama2_70b_lora on 16
   * MI300X: 380.8 GiB of 192) and 12-15% off by chance (audit of 7 Dec) */
  static const char *const lora_cells[] = { "model", "source", "precision", "framework",
                                            "notes" };
  for (guint i = 0; i < G_N_ELEMENTS (lora_cells); i++)
    {
      const char *said = names_lora (get (csv, row, lora_cells[i]),
                                     g_str_equal (lora_cells[i], "source"));
      if (said != NULL)
        {
          skip (c, "LoRA / adapter fine-tuning ('%s' in the %s cell): frozen base weights "
                "(no weight gradients or optimizer state for them) are not modelled; only "
                "full training is (hint: such a run is not comparable with a full-training "
                "prediction)", said, lora_cells[i]);
          return;
        }
    }

  /* Device and cluster. */
  const char *network = get (csv, row, "network");
  gint64 n_gpus_hint = 0;
  int gpus_read = row_cell_gpus (csv, row, &n_gpus_hint);
  if (gpus_read == 0)
    gpus_read = gpus_from_sizes (csv, row, &n_gpus_hint);
  const char *preset = on != NULL ? on->name : cluster_for (c->gpu_type, network, n_gpus_hint);
  if (preset == NULL)
    {
      skip (c, "no cluster preset for gpu_type %s%s", *c->gpu_type ? c->gpu_type : "(empty)",
            no_preset_why (c->gpu_type, n_gpus_hint));
      return;
    }
  c->cluster_name = g_strdup (preset);
  c->cluster_given = on != NULL;
  if (gpus_read < 0)
    {
      skip (c, "n_gpus '%s' counts nodes and gives no GPU count (hint: write the GPUs, "
            "e.g. '16' or '2 nodes x 8 GPUs')", get (csv, row, "n_gpus"));
      return;
    }
  if (gpus_read == 0)
    {
      skip (c, "missing n_gpus");
      return;
    }
  c->n_gpus = n_gpus_hint;
  g_autoptr (GError) error = NULL;
  c->cluster = on != NULL ? topo_cluster_ref (on) : topo_cluster_lookup (preset, &error);
  if (c->cluster == NULL)
    {
      skip (c, "cluster preset %s: %s", preset, error->message);
      return;
    }
  if ((guint64) c->n_gpus > c->cluster->n_devices)
    {
      /* A preset is one build of a system (a SuperPOD of 1,024, Selene's 4,480): a larger
       * published run used more units of the same scale-out fabric, so the outermost level
       * is repeated (topo_cluster_scale_out). A user's own --cluster is taken as given. */
      TopoCluster *grown = on == NULL
                             ? topo_cluster_scale_out (c->cluster, (guint64) c->n_gpus, NULL)
                             : NULL;
      if (grown == NULL)
        {
          skip (c, "n_gpus %" G_GINT64_FORMAT " exceeds the %" G_GUINT64_FORMAT " devices of "
                "%s %s", c->n_gpus, c->cluster->n_devices,
                on != NULL ? "the --cluster" : "cluster preset", preset);
          return;
        }
      c->scaled_from = c->cluster->n_devices;
      topo_cluster_unref (c->cluster);
      c->cluster = grown;
    }
  /* The 94 / 96 GB H100 SXM preset runs at the 500 W cap of torchtitan's Grand Teton
   * nodes (power_cap_clock_ratio 0.879: the measured SM clock at 500 W over 700 W on this
   * part, h100-sxm-96g-superpod.json); a row that says its parts ran at 700 W ran at the
   * clock that ratio is taken against (it was read at the 500 W clock). The preset was
   * loaded for this row alone (topo_cluster_lookup parses it afresh), so it is changed
   * here; a --cluster the user gave is taken as given. */
  if (on == NULL && g_str_equal (preset, "h100-sxm-96g-superpod")
      && (contains_ci (c->gpu_type, "700W") || contains_ci (c->gpu_type, "700 W")))
    c->cluster->device.power_cap_clock_ratio = 1.0;
  /* The scale-out bandwidth the network cell states, where it differs from the preset's
   * NICs (an AWS p4d's "EFA 400 Gbps per node" is 50 Gb/s a GPU where the A100 preset has
   * Selene's 200; res_pub_network_gbps_per_gpu says how a cell is read): the levels the
   * NICs bound (bandwidth at most the NICs') run at the stated rate, their bus bandwidths
   * and all-to-all rates scaled alike, the latencies and the oversubscription kept. The
   * preset was loaded (or grown) for this row alone; a --cluster the user gave is taken
   * as given. */
  if (on == NULL && c->cluster->nic_Bps > 0 && c->cluster->nics_per_device > 0
      && c->cluster->n_levels > 1)
    {
      g_autofree char *how = NULL;
      const double nic = c->cluster->nic_Bps * (double) c->cluster->nics_per_device;
      double gbps = res_pub_network_gbps_per_gpu (network, c->cluster->levels[0].count,
                                                  nic * 8.0 / 1e9, &how);
      /* a Google Cloud machine type named where the cell states no rate: its GPU NICs */
      if (!(gbps > 0))
        {
          const char *machine = NULL;
          gbps = gcp_gpu_nic_gbps (c->gpu_type, network, &machine);
          if (gbps > 0)
            {
              g_free (how);
              how = g_strdup_printf ("Google Cloud %s's GPU-to-GPU NICs", machine);
            }
        }
      const double stated = gbps * 1e9 / 8.0;
      if (gbps > 0 && fabs (stated / nic - 1.0) > 0.01)
        {
          const double r = stated / nic;
          for (guint i = 1; i < c->cluster->n_levels; i++)
            {
              TopoLevel *l = &c->cluster->levels[i];
              if (!(l->bw_Bps <= nic * 1.0001))
                continue;
              l->bw_Bps *= r;
              l->busbw_Bps *= r;
              l->a2a_busbw_Bps *= r;
            }
          c->cluster->nic_Bps *= r;
          c->network_note = g_strdup_printf ("scale-out at %g GB/s per device as stated (%s, "
                                             "%g Gb/s), where the preset's NICs give %g GB/s",
                                             stated / 1e9, how, gbps, nic / 1e9);
        }
    }

  /* The software stack: the preset the framework column names, else the default. */
  const char *framework = framework_cell (c, csv, row);
  const char *fw_preset = fw_stack_preset_for_text (framework);
  if (fw_preset == NULL && !cell_unstated (framework) && *framework != '\0')
    c->stack_why = "framework not recognised: the default stack";
  /* A bare "Megatron-LM" (no "Core", no year) is Megatron-LM of 2019-2022, except on a
   * device with FP8 tensor cores: none was in systems before late 2022 (H100 PCIe, then
   * DGX H100, L40S, MI300X, TPU v5p, Trainium2 from 2023 on), and Megatron-LM of that
   * era had no FP8 (Transformer Engine came to it in 2023); such a run is the
   * Megatron-Core era's Megatron-LM */
  if (fw_preset != NULL && g_str_equal (fw_preset, "megatron-lm-2021")
      && c->cluster->device.peak_flops[TOPO_DTYPE_FP8] > 0 && !names_year_to_2022 (framework))
    {
      fw_preset = "megatron-core";
      c->stack_why = "Megatron-LM on a device with FP8 tensor cores: of 2023 or later";
    }
  /* ... and one that ran the distributed optimizer (megatron/optimizer/distrib_optimizer.py,
   * --use-distributed-optimizer, late 2022; Megatron-LM of 2021-22 has only its local DDP,
   * and the megatron-lm-2021 stack offers no sharding): the Megatron-Core era's
   * Megatron-LM ("NVIDIA Megatron-LM" or "MegaScale (Megatron-LM based)" with "distributed
   * optimizer" were skipped, the stack refusing zero1). A cell that dates itself to 2021
   * or before keeps its stack, and the refusal says why. */
  else if (fw_preset != NULL && g_str_equal (fw_preset, "megatron-lm-2021")
           && !names_year_in (framework, 17, 21)
           && names_distributed_optimizer (get (csv, row, "zero_stage_or_fsdp"),
                                           get (csv, row, "notes")))
    {
      fw_preset = "megatron-core";
      c->stack_why = "Megatron-LM with the distributed optimizer: of late 2022 or later";
    }
  /* ... or a ZeRO-1 or ZeRO-2 its sharding cell names: on Megatron-LM that is the
   * distributed optimizer (optimizer states and the reduced gradients sharded over DP),
   * which the 2021 stack does not have. MegaScale (NSDI'24, "built on Megatron-LM",
   * "ZeRO-2 ... reduce-scatter overlapped per model chunk") was skipped, the stack
   * refusing zero2 (audit of 7 Dec) */
  else if (fw_preset != NULL && g_str_equal (fw_preset, "megatron-lm-2021")
           && !names_year_in (framework, 17, 21)
           && names_zero_1_or_2 (get (csv, row, "zero_stage_or_fsdp")))
    {
      fw_preset = "megatron-core";
      c->stack_why = "Megatron-LM with a ZeRO-1/2 sharded optimizer, which Megatron-LM has as "
                     "its distributed optimizer: of late 2022 or later";
      c->zero_is_distopt = TRUE;
    }
  c->stack = fw_stack_lookup (fw_preset != NULL ? fw_preset : FW_STACK_DEFAULT, &error);
  if (c->stack == NULL)
    {
      skip (c, "framework stack: %s", error->message);
      return;
    }
  /* A run whose notes quote NVTE_FUSED_ATTN=0 turned Transformer Engine's cuDNN fused
   * attention off, and TE's DotProductAttention then runs its FlashAttention backend
   * (TE attention backend selection: NVTE_FLASH_ATTN / NVTE_FUSED_ATTN / NVTE_UNFUSED_ATTN,
   * the first enabled and supported wins; the flash-attn 2 package of the NeMo 24.x
   * containers): the FlashAttention-2 class on a stack whose kernel is cuDNN's. The
   * stack loaded here is this row's own copy (fw_stack_lookup loads a fresh one), not
   * yet shared, so it is changed before use. Example: the dgxc-benchmarking NeMo
   * recipes' "NVTE_FUSED_ATTN=0" (rows 925-956). */
  if (c->stack->attention == FW_ATTN_CUDNN
      && strstr (get (csv, row, "notes"), "NVTE_FUSED_ATTN=0") != NULL)
    c->stack->attention = FW_ATTN_FLASH2;
  /* A row on a stack whose attention is unfused (deepspeed, megatron-lm-2021) that names
   * FlashAttention ran the flash-attn package's kernel (Megatron-DeepSpeed's
   * --use-flash-attn-v2, Megatron-LM's --use-flash-attn: flash_attn_func of FlashAttention
   * 2), the FlashAttention-2 class; the plan's backend was already not unfused, but the
   * kernel's rates stayed those of no fused class (cuDNN's fraction without its length
   * curve) */
  if (c->stack->attention == FW_ATTN_UNFUSED
      && (names_flash_attention (framework)
          || names_flash_attention (get (csv, row, "notes"))))
    c->stack->attention = FW_ATTN_FLASH2;

  /* Model, batch, measurement, plan. */
  guint64 seq = 0;
  if (!map_model (c, csv, row, &seq))
    return;
  g_autofree char *moe_why = NULL;
  if (c->moe.present && !res_pub_moe_apply (&c->moe, &c->model, &moe_why))
    {
      skip (c, "%s", moe_why);
      return;
    }
  /* in sequences; a batch per GPU or node ("8 per GPU": batch_per_unit); a batch in
   * tokens ("16M tokens") over seq_len (batch_in_tokens) */
  const int per_unit = batch_per_unit (c, csv, row, (gint64) seq, &v);
  if (per_unit < 0)
    return;
  /* sequences x their tokens ("1024 * 4096 (tokens)", OLMo-core's way: 1024 at seq_len
   * 4096), read before the other forms */
  const int seq_product = per_unit > 0 ? 0 : seq_tokens_product (batch_cell (csv, row),
                                                                 (gint64) seq, &v);
  if (seq_product < 0)
    {
      skip (c, "global_batch '%s' is a product of tokens that is no whole count of "
            "%" G_GUINT64_FORMAT "-token sequences (hint: write the batch in sequences)",
            get (csv, row, "global_batch"), seq);
      return;
    }
  if (seq_product > 0)
    c->batch_why = g_strdup_printf ("sequences x their tokens: %" G_GINT64_FORMAT
                                    " sequences of seq_len %" G_GUINT64_FORMAT, v, seq);
  int in_tokens = per_unit > 0 || seq_product > 0
                  ? seq_product : batch_in_tokens (batch_cell (csv, row), (gint64) seq, &v);
  if (in_tokens < 0)
    {
      skip (c, "global_batch '%s' is in tokens and no one reading of it divides by seq_len "
            "%" G_GUINT64_FORMAT " (hint: write the batch in sequences)",
            get (csv, row, "global_batch"), seq);
      return;
    }
  int by_default = 0, by_accumulation = 0;
  if (per_unit == 0 && in_tokens == 0 && !cell_count (batch_cell (csv, row), &v)
      && (by_accumulation = batch_from_accumulation (c, csv, row, &v)) <= 0
      && (by_accumulation < 0
          || (by_default = batch_from_default_accumulation (c, csv, row, &v)) <= 0))
    {
      if (by_default < 0 || by_accumulation < 0)
        return;
      double b;
      const char *end = leading_number (batch_cell (csv, row), &b);
      /* "1.5K", "2 million" (read as 2 before) */
      const gboolean word = end != NULL && magnitude_word (end, &(gsize){ 0 }) != 0;
      if (end != NULL && (magnitude_suffix (end) != 0 || word))
        skip (c, "global_batch '%s' has a magnitude %s but no unit: sequences or tokens? "
              "(hint: write the sequences as a number, or the tokens as '%s tokens')",
              get (csv, row, "global_batch"), word ? "word" : "letter", batch_cell (csv, row));
      else
        skip (c, "missing global_batch");
      return;
    }
  gint64 global_batch = v;
  gboolean fp8 = FALSE;
  if (!map_precision (c, get (csv, row, "precision"), get (csv, row, "notes"),
                      framework_cell (c, csv, row), &fp8))
    return;
  MeasuredHfu hfu = { NULL, 0, 0, FALSE };
  if (!map_measured (c, csv, row, (double) global_batch * (double) seq, fp8, &hfu))
    return;
  if (!map_plan (c, csv, row, global_batch, fp8))
    return;
  if (hfu.column != NULL
      && !map_measured_hfu (c, csv, row, (double) global_batch * (double) seq, fp8, &hfu))
    return;
  c->ready = TRUE;
}

ResPublishedCase *
res_published_case_new (const ResCsv *csv, guint row)
{
  return res_published_case_new_on (csv, row, NULL);
}

ResPublishedCase *
res_published_case_new_on (const ResCsv *csv, guint row, TopoCluster *on)
{
  g_return_val_if_fail (csv != NULL && row < res_csv_n_rows (csv), NULL);
  ResPublishedCase *c = g_new0 (ResPublishedCase, 1);
  c->flops_6n_ratio = 1.0;
  c->model_label = g_strstrip (g_strdup (get (csv, row, "model")));
  c->gpu_type = g_strstrip (g_strdup (get (csv, row, "gpu_type")));
  c->family = family_for (c->gpu_type);
  /* "[held out" in notes: a check row kept out of the dev summary (data/published-runs.md) */
  c->held_out = strstr (get (csv, row, "notes"), "[held out") != NULL;
  plan_init_defaults (&c->plan);
  c->v_sweep.best = -1;
  c->measured_step_s = c->predicted_step_s = c->err_pct = NAN;
  c->predicted_compute_s = c->predicted_bubble_s = NAN;
  for (int k = 0; k < PROG_COMM_N; k++)
    c->predicted_exposed_s[k] = NAN;
  c->predicted_offload_s = c->predicted_exposed_offload_s = NAN;
  c->published_mfu_pct = NAN;
  for (int k = 0; k < MODEL_FLOPS_N_CONVENTIONS; k++)
    c->predicted_mfu_pct[k] = NAN;
  c->peak_memory_bytes = NAN;
  c->predicted_hfu = NAN;
  double mfu;
  /* an mfu_pct labelled HFU ("52 (HFU)") is no model-FLOPs MFU (map_measured_cells) */
  if (cell_number (get (csv, row, "mfu_pct"), &mfu) && !cell_hfu (get (csv, row, "mfu_pct")))
    {
      /* a fraction for a percentage ("0.68", as the PyTorch blog's tables print MFU) is
       * 100 times it, from MEASURED_MIN_FRACTION (it was refused "below 1%": the IBM
       * blog's rows); below, kept for map_measured_cells to refuse with its hint */
      if (mfu >= MEASURED_MIN_FRACTION && mfu < 1
          && !percent_after_number (get (csv, row, "mfu_pct")))
        {
          mfu *= 100;
          c->mfu_as_fraction = TRUE;
        }
      c->published_mfu_pct = mfu;
    }
  case_map (c, csv, row, on);
  return c;
}

/* `plan` predicted with the case's cluster, stack and cost overrides: what
 * res_published_case_predict runs. NULL with error set when it fails. */
static SimPrediction *
predict_plan (const ResPublishedCase *c, const Plan *plan, gboolean *bad_override,
              GError **error)
{
  SimOptions opts;
  sim_options_init (&opts, c->cluster);
  /* one set of defaults per device type and software stack */
  sim_cost_options_init_stack (&opts.cost, c->cluster, c->stack);
  if (c->fp8_attention)
    opts.cost.fp8_attention = TRUE;   /* the row says its attention ran in FP8 */
  *bad_override = FALSE;
  if (!sim_cost_options_apply (&opts.cost, c->cost_overrides, error))
    {
      *bad_override = TRUE;
      return NULL;
    }
  return sim_predict (c->model, plan, c->cluster, &opts, error);
}

gboolean
res_published_case_predict (ResPublishedCase *c)
{
  g_return_val_if_fail (c != NULL, FALSE);
  if (!c->ready)
    return FALSE;
  g_autoptr (GError) error = NULL;
  gboolean bad_override = FALSE;
  g_autoptr (SimPrediction) pred = predict_plan (c, &c->plan, &bad_override, &error);
  if (pred == NULL && bad_override)
    return skip (c, "bad cost override: %s", error->message);
  if (pred == NULL)
    return skip (c, "prediction failed: %s", error->message);
  double t = pred->result->step_time_s;
  if (!(t > 0) || !isfinite (t))
    return skip (c, "prediction failed: step time %g s", t);
  c->predicted = TRUE;
  c->predicted_step_s = t;
  c->err_pct = 100.0 * (t - c->measured_step_s) / c->measured_step_s;
  for (int k = 0; k < MODEL_FLOPS_N_CONVENTIONS; k++)
    c->predicted_mfu_pct[k] = 100.0 * pred->result->mfu[k];
  c->predicted_hfu = pred->result->hfu;
  c->fits = pred->memory.fits;
  c->peak_memory_bytes = (double) pred->memory.peak_bytes;
  c->predicted_compute_s = pred->result->compute_s;
  c->predicted_bubble_s = pred->result->bubble_fraction * t;
  for (int k = 0; k < PROG_COMM_N; k++)
    c->predicted_exposed_s[k] = pred->result->exposed_comm_s[k];
  c->predicted_offload_s = pred->result->comm_s[SIM_KIND_OFFLOAD];
  c->predicted_exposed_offload_s = pred->result->exposed_comm_s[SIM_KIND_OFFLOAD];
  return TRUE;
}

gboolean
res_published_case_v_sweep (ResPublishedCase *c)
{
  g_return_val_if_fail (c != NULL, FALSE);
  static const int vs[RES_PUB_N_VS] = { 1, 2, 4, 8 };
  ResPubVSweep *w = &c->v_sweep;
  memset (w, 0, sizeof *w);
  w->best = -1;
  if (!c->predicted || !c->vpp_unstated || c->moe.present || c->plan.pp < 2)
    return FALSE;
  const int L = (int) c->model->n_layers;
  const ModelFlopConvention conv = c->has_convention ? c->convention : MODEL_FLOPS_PALM;
  for (int i = 0; i < RES_PUB_N_VS; i++)
    {
      const int chunks = c->plan.pp * vs[i];
      gboolean acct;
      /* the split rule of map_plan: even, else the embedding and the loss in a layer
       * slot each (one layer fewer on the first and last model chunk) */
      if (L % chunks == 0)
        acct = FALSE;
      else if ((L + 2) % chunks == 0)
        acct = TRUE;
      else
        continue;
      Plan p;
      plan_copy (&p, &c->plan);
      p.vpp = vs[i];
      p.schedule = vs[i] > 1 ? PLAN_SCHED_INTERLEAVED_1F1B : PLAN_SCHED_1F1B;
      p.account_embedding = p.account_loss = acct;
      g_autoptr (GError) error = NULL;
      gboolean bad_override = FALSE;
      SimPrediction *pred = predict_plan (c, &p, &bad_override, &error);
      if (pred == NULL || !(pred->result->step_time_s > 0))
        {
          /* a V this model cannot run is left out of the sweep */
          g_clear_pointer (&pred, sim_prediction_free);
          plan_clear (&p);
          continue;
        }
      const int k = w->n++;
      w->v[k] = vs[i];
      w->step_s[k] = pred->result->step_time_s;
      w->mfu_pct[k] = 100.0 * pred->result->mfu[conv];
      w->fits[k] = pred->memory.fits;
      w->peak_bytes[k] = (double) pred->memory.peak_bytes;
      if (w->fits[k] && (w->best < 0 || w->step_s[k] < w->step_s[w->best]))
        w->best = k;
      sim_prediction_free (pred);
      plan_clear (&p);
    }
  return w->n > 0;
}

char *
res_published_case_plan_string (const ResPublishedCase *c)
{
  if (!c->plan_valid)
    return NULL;
  const Plan *p = &c->plan;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "tp%d", p->tp);
  if (p->cp > 1)
    g_string_append_printf (s, ".cp%d", p->cp);
  g_string_append_printf (s, ".pp%d", p->pp);
  if (p->vpp > 1)
    g_string_append_printf (s, ".vpp%d", p->vpp);
  if (plan_pp_schedules (p) > 1)
    g_string_append_printf (s, ".pps%d", plan_pp_schedules (p));   /* schedules a step */
  g_string_append_printf (s, ".dp%d.mbs%d", p->dp > 0 ? p->dp : p->dp_given, p->micro_batch);
  if (p->sharding != PLAN_SHARD_NONE)
    g_string_append_printf (s, ".%s", plan_sharding_name (p->sharding));
  if (p->recompute != PLAN_RECOMPUTE_NONE)
    g_string_append (s, p->recompute == PLAN_RECOMPUTE_FULL ? ".full"
                        : p->recompute == PLAN_RECOMPUTE_SELECTIVE_OP ? ".selop" : ".sel");
  if (p->cpu_offload_layers > 0)
    g_string_append_printf (s, ".off%d", p->cpu_offload_layers);
  if (p->compute_dtype == PLAN_PREC_FP8)
    g_string_append (s, ".fp8");
  else if (p->compute_dtype == PLAN_PREC_FP4)
    g_string_append (s, ".fp4");
  if (p->attention_backend == PLAN_ATTN_UNFUSED)
    g_string_append (s, ".unfused");
  return g_string_free (s, FALSE);
}
