/* results/published-moe-text.c - MoE fields a published row states outside its `moe`
 * cell: expert tensor parallelism in the ep cell or the notes, forced-balance routing and
 * token dropping in the model cell or the notes (results/published-moe.h, the readers'
 * contract; every example below is in tests/results/test-published-moe.c). The moe
 * cell's own keys win over anything read here. */
#include "results/published-moe.h"

#include <math.h>
#include <string.h>

#include "plan/plan.h"

/* `p` (inside `low`) starts a word: nothing or no letter, digit or '_' before it, except
 * that a '_' or '-' joins a label to its prefix ("--moe-router-...", "moe_router_...") */
static gboolean
word_start (const char *low, const char *p)
{
  return p == low || !g_ascii_isalnum (p[-1]);
}

/* The whole number after a label at `q` (just past the label): any of " =:" between
 * ("ETP 1", "etp=1", "expert_tensor_parallel_size = 1"), or none ("ETP1"), then digits
 * not followed by a letter, a digit group or a decimal point; 0 when none. */
static gint64
count_after (const char *q)
{
  while (*q == ' ' || *q == '=' || *q == ':')
    q++;
  if (!g_ascii_isdigit (*q))
    return 0;
  char *end = NULL;
  gint64 n = g_ascii_strtoll (q, &end, 10);
  if (g_ascii_isalpha (*end) || (*end == '.' && g_ascii_isdigit (end[1]))
      || (*end == ',' && g_ascii_isdigit (end[1])))
    return 0;
  return n;
}

/* Expert tensor parallelism after one of its names (lower case, at a word start):
 *   "ETP 1", "ETP1" ("EP64, ETP1"), "etp=1";
 *   "expert TP 1" ("64 (expert TP 1)"), "expert_tp=1";
 *   "expert tensor parallel size 1", "expert tensor parallelism 2", "expert tensor parallel 2";
 *   "expert_tensor_parallel_size=1", "expert_tensor_parallel_size = 1" (Megatron-Bridge
 *   recipes), "--expert-tensor-parallel-size 1" (Megatron-LM's flag).
 * Not "ETP x EP" (no number). Two different sizes in one text are no reading (-1). */
/* The value a slash list gives `label` (lower case): labels joined by '/', then '=' or
 * ':' (or nothing), then as many numbers joined by '/' ("TP/PP/EP/CP/ETP = 2/8/32/1/1",
 * a recipe index's layout: ETP 1); 0 where no such list names the label, -1 where two
 * lists give it different values. */
static gint64
slash_list_value (const char *low, const char *label)
{
  static GRegex *re = NULL;
  if (g_once_init_enter (&re))
    g_once_init_leave (&re, g_regex_new ("([a-z]+(?:/[a-z]+)+)\\s*[=:]?\\s*(\\d+(?:/\\d+)+)",
                                         G_REGEX_OPTIMIZE, 0, NULL));
  g_autoptr (GMatchInfo) m = NULL;
  gint64 found = 0;
  g_regex_match (re, low, 0, &m);
  for (; g_match_info_matches (m); g_match_info_next (m, NULL))
    {
      g_autofree char *names = g_match_info_fetch (m, 1);
      g_autofree char *values = g_match_info_fetch (m, 2);
      g_auto (GStrv) n = g_strsplit (names, "/", -1);
      g_auto (GStrv) v = g_strsplit (values, "/", -1);
      if (g_strv_length (n) != g_strv_length (v))
        continue;
      for (guint i = 0; n[i] != NULL; i++)
        if (g_str_equal (n[i], label))
          {
            const gint64 x = g_ascii_strtoll (v[i], NULL, 10);
            if (found != 0 && found != x)
              return -1;
            found = x;
          }
    }
  return found;
}

/* Whether a label at `p` (its end at `q`) is one of a slash list's labels whose numbers
 * follow as another slash list ("TP/EP = 2/8": read by slash_list_value): followed by '/',
 * or after '/' with its number followed by '/'. Not a list of label-number items
 * ("TP4/PP2/EP8": EP 8 is read after its label). */
static gboolean
in_slash_list (const char *low, const char *p, const char *q)
{
  if (*q == '/')
    return TRUE;
  if (p == low || p[-1] != '/')
    return FALSE;
  while (*q == ' ' || *q == '=' || *q == ':')
    q++;
  while (g_ascii_isdigit (*q))
    q++;
  return *q == '/' && g_ascii_isdigit (q[1]);
}

gint64
res_pub_moe_etp_in_text (const char *text)
{
  static const char *const labels[] = { "expert_tensor_parallel_size",
                                        "expert-tensor-parallel-size",
                                        "expert tensor parallel size",
                                        "expert tensor parallelism", "expert tensor parallel",
                                        "expert tp", "expert_tp", "etp" };
  if (text == NULL)
    return 0;
  g_autofree char *low = g_ascii_strdown (text, -1);
  /* a slash list's ETP ("TP/PP/EP/CP/ETP = 2/8/32/1/1"): it read the list's first
   * number, 2, and the layout did not fold (Megatron-LM's MoE recipe index, audit of
   * 8 Dec) */
  gint64 found = slash_list_value (low, "etp");
  if (found < 0)
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    for (const char *p = strstr (low, labels[i]); p != NULL; p = strstr (p + 1, labels[i]))
      {
        const char *q = p + strlen (labels[i]);
        /* a longer label read this text already ("expert tensor parallel size 1" is not
         * read again as "expert tensor parallel" followed by "size") */
        if (!word_start (low, p) || g_ascii_isalpha (*q) || *q == '_' || *q == '-')
          continue;
        /* a label of a slash list, read above */
        if (in_slash_list (low, p, q))
          continue;
        gint64 n = count_after (q);
        if (n < 1 || n > PLAN_MAX_WORLD)
          continue;
        if (found != 0 && found != n)
          return -1;
        found = n;
      }
  return found;
}

/* The clauses of a lower-case text, read once from its start as mentions further on are
 * looked at (each reader finds its mentions in text order): where the clause holding the
 * read point starts, the last negation word ended in it, and where the run of word
 * characters from a point ends. Each reader scans its text a bounded number of times
 * however many mentions it holds: looking back to each mention's clause start took 19 s
 * for "force balance " 16,000 times over. */
typedef struct {
  const char *low;       /* the text */
  const char *at;        /* read up to here */
  const char *clause;    /* the clause holding `at` starts here (after '.', ';', ':', ',',
                          * '(' or ')') */
  const char *word;      /* the word holding `at` starts here (after those, ' ', '\t',
                          * '-' or '/') */
  const char *negation;  /* the last negation word ended before `at`, NULL: none */
  const char *other;     /* the last word of other runs (other_runs) ended before `at` */
  const char *run_from, *run_end;   /* the run of letters, '_' and '-' last measured */
  const char *ahead;     /* the first word of other runs at or after `ahead_from` (NULL:
                          * none to the text's end) */
  const char *ahead_from;   /* the last mention's word end asked about; NULL: none yet */
  const char *clause_end;   /* the first clause end at or after `ahead_from` */
} Clauses;

static void
clauses_init (Clauses *c, const char *low)
{
  *c = (Clauses){ low, low, low, low, NULL, NULL, low, low, NULL, NULL, low };
}

/* A word among `set` (n of them): the `len` chars at `w` */
static gboolean
word_among (const char *w, gsize len, const char *const *set, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (strlen (set[i]) == len && strncmp (w, set[i], len) == 0)
      return TRUE;
  return FALSE;
}

static const char *const negations[] = { "no", "not", "without", "never", "nor", "non" };

/* Words that make a clause about runs other than the row's, or compare them ("comparisons
 * with force-balanced baselines", "faster than force-balanced runs", "unlike previous
 * token-drop setups") */
static const char *const other_runs[] = { "baseline", "baselines", "compare", "compared",
                                          "comparing", "comparison", "comparisons", "versus",
                                          "vs", "unlike", "previous", "previously", "prior",
                                          "other", "others", "earlier", "than", "instead" };

static gboolean
word_sep (char ch)
{
  return ch != '\0' && strchr (".;:,() \t-/", ch) != NULL;
}

/* Reads on to `to` (a mention at or after the last one read; one before it starts again) */
static void
clauses_read_to (Clauses *c, const char *to)
{
  if (to < c->at)
    clauses_init (c, c->low);
  for (; c->at < to; c->at++)
    {
      const char ch = *c->at;
      const gboolean clause_end = strchr (".;:,()", ch) != NULL;
      if (!clause_end && strchr (" \t-/", ch) == NULL)
        continue;
      const gsize len = (gsize) (c->at - c->word);
      if (word_among (c->word, len, negations, G_N_ELEMENTS (negations)))
        c->negation = c->word;
      if (word_among (c->word, len, other_runs, G_N_ELEMENTS (other_runs)))
        c->other = c->word;
      c->word = c->at + 1;
      if (clause_end)
        c->clause = c->at + 1;
    }
}

/* Where the run of letters, '_' and '-' from `q` ends (a mention's word and its joined
 * tail: "force-balanced", "force_load_balancing"); a run measured before is not read
 * again ("force_balance_force_balance_..." holds a mention every few chars of one run) */
static const char *
clauses_run_end (Clauses *c, const char *q)
{
  if (q >= c->run_from && q < c->run_end)
    return c->run_end;
  const char *e = q;
  while (g_ascii_isalpha (*e) || *e == '_' || *e == '-')
    e++;
  c->run_from = q;
  c->run_end = e;
  return e;
}

/* Whether the clause of the mention from `p` to `q` (its word's end) is about other runs:
 * a word of other_runs anywhere in it, before the mention or after ("comparisons with
 * token-drop baselines"). The look ahead keeps the first such word and the clause end
 * past the last mention asked about, so the text is read once. */
static gboolean
mention_of_other_runs (Clauses *c, const char *p, const char *q)
{
  clauses_read_to (c, p);
  if (c->other != NULL && c->other >= c->clause)
    return TRUE;
  const gboolean again = c->ahead_from == NULL || q < c->ahead_from;   /* a new pass */
  if (again || c->clause_end < q)
    c->clause_end = q;
  while (*c->clause_end != '\0' && strchr (".;:,()", *c->clause_end) == NULL)
    c->clause_end++;
  if (again || (c->ahead != NULL && c->ahead < q))
    {
      /* the first word of other runs from q (a word starts after a separator) */
      c->ahead = NULL;
      for (const char *w = q; *w != '\0' && c->ahead == NULL;)
        {
          const char *e = w;
          while (*e != '\0' && !word_sep (*e))
            e++;
          if (e > w && (w == c->low || word_sep (w[-1]))
              && word_among (w, (gsize) (e - w), other_runs, G_N_ELEMENTS (other_runs)))
            c->ahead = w;
          w = *e != '\0' ? e + 1 : e;
        }
    }
  c->ahead_from = q;
  return c->ahead != NULL && c->ahead < c->clause_end;
}

/* Whether the mention from `p` to `q` (its word's end) labels one figure of several, as
 * tables write them, rather than stating the run's setting: "vs", "versus" or '/' right
 * before or after it ("force balanced vs. dropless: 335 / 277", "295 (force-balanced) /
 * 237 (dropless)", "dropless vs. force-balanced"), or a figure right after it ("force
 * balanced: 335"; not 0 or 1, which answer on or off). */
static gboolean
mention_labels_figure (const char *low, const char *p, const char *q)
{
  const char *b = p;
  for (int k = 0; k < 3 && b > low && strchr (" ('\"[", b[-1]) != NULL; k++)
    b--;
  const gsize before = (gsize) (b - low);
  if ((before >= 1 && b[-1] == '/')
      || (before >= 2 && strncmp (b - 2, "vs", 2) == 0 && (before == 2 || !g_ascii_isalnum (b[-3])))
      || (before >= 3 && strncmp (b - 3, "vs.", 3) == 0
          && (before == 3 || !g_ascii_isalnum (b[-4])))
      || (before >= 6 && strncmp (b - 6, "versus", 6) == 0))
    return TRUE;
  const char *a = q;
  for (int k = 0; k < 3 && *a != '\0' && strchr (" )'\"]", *a) != NULL; k++)
    a++;
  if (*a == '/' || (g_str_has_prefix (a, "vs") && !g_ascii_isalnum (a[2]))
      || g_str_has_prefix (a, "versus"))
    return TRUE;
  const char *f = q;
  for (int k = 0; k < 3 && *f != '\0' && strchr (" :=(", *f) != NULL; k++)
    f++;
  if (!g_ascii_isdigit (*f))
    return FALSE;
  return !((*f == '0' || *f == '1') && !g_ascii_isdigit (f[1]) && f[1] != '.');
}

/* The value right after a mention's word at `q`, past up to three of " =:(": said off
 * when it is "false", "off", "disabled", "0", "none" or "not" ("=False", ": off", "
 * disabled", "(off)", "force balance not used"), or "no" / "n" after ':' or '=' or
 * standing alone ("force balance: no", "force balance no."; not "force-balanced (no
 * token drop)"). */
static gboolean
value_says_off (const char *q)
{
  static const char *const off[] = { "false", "off", "disabled", "0", "none", "not" };
  gboolean keyed = FALSE;
  for (int k = 0; k < 3 && *q != '\0' && strchr (" =:(", *q) != NULL; k++, q++)
    keyed = keyed || *q == '=' || *q == ':';
  const char *e = q;
  while (g_ascii_isalnum (*e) && e - q < 10)
    e++;
  if (g_ascii_isalnum (*e))
    return FALSE;
  const gsize len = (gsize) (e - q);
  if (word_among (q, len, off, G_N_ELEMENTS (off)))
    return TRUE;   /* " off", not " offload" */
  if ((len == 2 && strncmp (q, "no", 2) == 0) || (len == 1 && *q == 'n'))
    return keyed || *e == '\0' || strchr (".,;)]", *e) != NULL;
  return FALSE;
}

/* Whether the mention at `p` (`n` chars, read to by `c`) is said off: a negation earlier
 * in its clause ("no", "not", "without", "never", "nor", "non" as words, the clause
 * starting after '.', ';', ':', ',', '(' or ')'), or an off value right after the
 * mention's word (value_says_off: "=False", ": off", " disabled", "(off)", ": no"). */
static gboolean
mention_off (Clauses *c, const char *p, gsize n)
{
  clauses_read_to (c, p);
  if (c->negation != NULL && c->negation >= c->clause)
    return TRUE;
  /* the clause's last word, cut at the mention ("no-force balance") */
  if (word_among (c->word, (gsize) (p - c->word), negations, G_N_ELEMENTS (negations)))
    return TRUE;
  return value_says_off (clauses_run_end (c, p + n));
}

/* Forced-balance routing (Megatron-Core's --moe-router-force-load-balancing, the
 * benchmark switch that hands every expert the mean), any case:
 *   on:  "force-balance the token distribution" (the Megatron-Bridge tables' footnote),
 *        "force balance", "force-balanced", "force load balancing", "forced load
 *        balancing", "--moe-router-force-load-balancing",
 *        "moe_router_force_load_balancing=True";
 *   off: the same said off ("without force load balancing", "not force-balanced",
 *        "moe_router_force_load_balancing=False", "force balance: no", "force balance
 *        not used").
 * Not read: the noun "forced balance", and any of them as a table's label of one figure
 * beside another ("295 (forced balance) / 237 (dropless)", "force balanced vs. dropless:
 * 335 / 277", "force balanced: 335"), or in a clause about other runs ("comparisons with
 * force-balanced baselines"). 1 on, 0 off, -1 neither, -2 both ("force balance; force
 * balance: no"). */
int
res_pub_moe_forced_in_text (const char *text)
{
  static const char *const phrases[] = { "force-balance", "force balance", "force_balance",
                                         "force load balanc", "force-load-balanc",
                                         "force_load_balanc", "forced load balanc",
                                         "forced-load-balanc" };
  if (text == NULL)
    return -1;
  g_autofree char *low = g_ascii_strdown (text, -1);
  Clauses c;
  clauses_init (&c, low);
  gboolean on = FALSE, off = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (phrases); i++)
    for (const char *p = strstr (low, phrases[i]); p != NULL; p = strstr (p + 1, phrases[i]))
      {
        /* "--moe-router-force-..." and "moe_router_force_..." join the flag's prefix */
        if (p != low && g_ascii_isalnum (p[-1]))
          continue;
        const char *q = clauses_run_end (&c, p + strlen (phrases[i]));
        if (mention_labels_figure (low, p, q) || mention_of_other_runs (&c, p, q))
          continue;
        if (mention_off (&c, p, strlen (phrases[i])))
          off = TRUE;
        else
          on = TRUE;
      }
  return on && !off ? 1 : off && !on ? 0 : on && off ? -2 : -1;
}

/* A capacity factor after "capacity factor" / "capacity_factor" / "capacity-factor"
 * (Megatron-Core's moe_expert_capacity_factor, --moe-expert-capacity-factor) or
 * "capacity", then any of " =:" and an "of": "capacity factor 1.25", "capacity factor of
 * 1.0", "moe_expert_capacity_factor=1.0", "capacity 1.25"; 0 when none, -1 when two
 * differ. */
static double
capacity_in (const char *low)
{
  double found = 0;
  for (const char *p = strstr (low, "capacity"); p != NULL; p = strstr (p + 1, "capacity"))
    {
      const char *q = p + strlen ("capacity");
      if (*q == ' ' || *q == '_' || *q == '-')
        {
          if (g_str_has_prefix (q + 1, "factor"))
            q += 1 + strlen ("factor");
        }
      while (*q == ' ' || *q == '=' || *q == ':')
        q++;
      if (g_str_has_prefix (q, "of "))
        q += 3;
      if (!g_ascii_isdigit (*q))
        continue;
      char *end = NULL;
      double v = g_ascii_strtod (q, &end);
      if (g_ascii_isalpha (*end) || !isfinite (v) || v <= 0 || v > 1000)
        continue;
      if (found != 0 && found != v)
        return -1;
      found = v;
    }
  return found;
}

/* Padding to capacity said (1), said off (0) or not (-1): a "pad" word whose clause
 * names the capacity ("pad to capacity", "padded to capacity", "moe_pad_expert_input_to_
 * capacity true", "pad_expert_input_to_capacity=False" off, "no padding to capacity"
 * off) or after "drop and" ("drop and pad", "drop_and_pad"); a pad of anything else
 * ("padded vocabulary") is not this. The clause ends at '.', ';', ',' or a bracket; the
 * cursors only move on, as the mentions do. */
static int
pad_in (const char *low)
{
  Clauses c;
  clauses_init (&c, low);
  gboolean on = FALSE, off = FALSE;
  const char *end = low;          /* the first clause end at or after the mention */
  const char *cap = strstr (low, "capacity");   /* the first at or after the mention */
  const char *word_end = low;     /* where the letters and '_' after the last "pad" end */
  for (const char *p = strstr (low, "pad"); p != NULL; p = strstr (p + 1, "pad"))
    {
      if (p != low && g_ascii_isalpha (p[-1]))
        continue;
      if (end < p)
        end = p;
      while (*end != '\0' && strchr (".;,()", *end) == NULL)
        end++;
      if (cap != NULL && cap < p)
        cap = strstr (p, "capacity");
      const gboolean drop_and = p - low >= 9 && (g_str_has_prefix (p - 9, "drop and ")
                                                 || g_str_has_prefix (p - 9, "drop_and_")
                                                 || g_str_has_prefix (p - 9, "drop-and-"));
      if (!(cap != NULL && cap + strlen ("capacity") <= end) && !drop_and)
        continue;
      const char *v = word_end > p + 3 ? word_end : p + 3;
      while (g_ascii_isalpha (*v) || *v == '_')
        v++;
      word_end = v;
      while (*v == ' ' || *v == '=' || *v == ':')
        v++;
      if (mention_off (&c, p, 3) || g_str_has_prefix (v, "false"))
        off = TRUE;
      else
        on = TRUE;
    }
  return on && !off ? 1 : off && !on ? 0 : -1;
}

/* Whether a token-drop mention from `p` to `q` (the end of its word and any joined tail)
 * reads as the run's own statement rather than prose: part of a name or flag ("USE_TOKEN_
 * DROP", "MegatronTokenDropCallback", "--moe-token-drop-policy", "token_drop=True"), or
 * followed by nothing of a sentence: the text's end, punctuation, a bracket whose first
 * word is of no other run ("(tokendrop)", "token drop (capacity factor 1.0)"), or a word
 * that goes on to say how it ran ("token drop at capacity factor 1.25", "token dropping
 * with capacity factor 1.25", "token drop is enabled"). Not a noun it qualifies ("token-drop
 * baselines", "token drop runs") nor a place in the text ("token drop in the first runs"). */
static gboolean
drop_states_run (const char *low, const char *p, const char *q)
{
  static const char *const goes_on[] = { "at", "with", "and", "on", "enabled", "enable",
                                         "true", "yes", "using", "via", "capacity", "cf", "to",
                                         "is", "was", "are", "were", "applied", "used", "only",
                                         "set", "policy" };
  if (p != low && (g_ascii_isalpha (p[-1]) || p[-1] == '_' || p[-1] == '-'))
    return TRUE;
  const char *t = p;
  while (t < q && *t != '_')
    t++;
  if (t < q)
    return TRUE;                                  /* "token_drop_..." */
  const char *a = q;
  for (int k = 0; k < 3 && *a == ' '; k++)
    a++;
  if (*a == '\0' || strchr (".,;:)]=!?\"'-+&", *a) != NULL)
    return TRUE;
  if (*a == '(')
    {
      const char *w = a + 1;
      while (*w == ' ')
        w++;
      const char *e = w;
      while (g_ascii_isalpha (*e) && e - w < 16)
        e++;
      return !word_among (w, (gsize) (e - w), other_runs, G_N_ELEMENTS (other_runs));
    }
  const char *e = a;
  while (g_ascii_isalpha (*e) && e - a < 16)
    e++;
  return e > a && !g_ascii_isalpha (*e)
         && word_among (a, (gsize) (e - a), goes_on, G_N_ELEMENTS (goes_on));
}

/* Token dropping, any case, where it is the run's own statement (drop_states_run):
 *   on:  "(tokendrop)" (the NeMo performance tables' label), "token drop", "token-drop",
 *        "token_drop" ("USE_TOKEN_DROP", "MegatronTokenDropCallback"), "token dropping",
 *        "token-dropping", "with token dropping", "token drop at capacity factor 1.25";
 *   off: "token-dropless", "tokendropless", "dropless" (a word of its own), and a token
 *        drop said off ("no token drop", "without token dropping", "token_drop=False",
 *        "token drop: no").
 * Not read: prose about other runs ("comparisons with token-drop baselines", "token drop
 * in the first runs"), a table's label of one figure beside another ("295 (tokendrop) /
 * 237 (dropless)"), as for forced balance.
 * On, the capacity factor is the one the text states (capacity_in), padded where it says
 * so (pad_in); with none stated, 1.0 padded: the NeMo / Megatron-Bridge token-drop
 * helper's defaults (Megatron-Bridge apply_moe_token_drop: moe_expert_capacity_factor
 * 1.0, moe_pad_expert_input_to_capacity True). A factor stated without padding is
 * Megatron-Core's --moe-expert-capacity-factor alone: not padded. 1 on (*capacity,
 * *pad set), 0 off, -1 neither or two different factors, -2 both ("token drop, then
 * dropless"). */
int
res_pub_moe_token_drop_in_text (const char *text, double *capacity, gboolean *pad)
{
  static const char *const drop[] = { "tokendrop", "token drop", "token-drop", "token_drop" };
  if (text == NULL)
    return -1;
  g_autofree char *low = g_ascii_strdown (text, -1);
  Clauses c;
  clauses_init (&c, low);
  gboolean on = FALSE, off = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (drop); i++)
    for (const char *p = strstr (low, drop[i]); p != NULL; p = strstr (p + 1, drop[i]))
      {
        const char *q = p + strlen (drop[i]);
        /* "MegatronTokenDropCallback" and "use_token_drop" join a prefix */
        if (p != low && g_ascii_isdigit (p[-1]))
          continue;
        if (g_str_has_prefix (q, "less"))
          {
            off = TRUE;                              /* "token-dropless" */
            continue;
          }
        const char *end = clauses_run_end (&c, q);
        if (mention_labels_figure (low, p, end) || mention_of_other_runs (&c, p, end))
          continue;
        if (mention_off (&c, p, strlen (drop[i])))
          off = TRUE;
        else if (drop_states_run (low, p, end))
          on = TRUE;
      }
  for (const char *p = strstr (low, "dropless"); p != NULL; p = strstr (p + 1, "dropless"))
    if (word_start (low, p))
      off = TRUE;
  if (!(on && !off))
    return off && !on ? 0 : on && off ? -2 : -1;
  const double cf = capacity_in (low);
  if (cf < 0)
    return -1;
  const int said_pad = pad_in (low);
  *capacity = cf > 0 ? cf : 1.0;
  *pad = said_pad >= 0 ? said_pad == 1 : cf == 0;
  return 1;
}

/* Whether the phrase at `at` in the sentence `one` (lower case) is said of the attention,
 * not of the MoE layers: its clause (to ',', ';', '(' or ')') names a window, sliding,
 * local or global attention ("sliding window 128 on alternate layers", gpt-oss; it read
 * as MoE every 2 layers where its config has moe_layer_freq 1: audit of 7 Dec) and no MoE
 * or experts of its own */
static gboolean
phrase_of_attention (const char *one, const char *at)
{
  static const char *const attn[] = { "window", "sliding", "local attention",
                                      "global attention", "attention", NULL };
  const char *b = at, *e = at;
  while (b > one && !strchr (",;()", b[-1]))
    b--;
  while (*e != '\0' && !strchr (",;()", *e))
    e++;
  g_autofree char *clause = g_strndup (b, (gsize) (e - b));
  gboolean names_attn = FALSE;
  for (guint i = 0; attn[i] != NULL && !names_attn; i++)
    names_attn = strstr (clause, attn[i]) != NULL;
  return names_attn && strstr (clause, "moe") == NULL && strstr (clause, "expert") == NULL;
}

gint64
res_pub_moe_every_in_text (const char *text)
{
  if (text == NULL || *text == '\0')
    return 0;
  g_autofree char *low = g_ascii_strdown (text, -1);
  /* a config key and its value: the interval itself */
  static const char *const keys[] = { "interleave_moe_layer_step", "moe_layer_freq",
                                      "moe-layer-freq", "moe_every", "moe layer frequency" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    for (const char *p = strstr (low, keys[i]); p != NULL; p = strstr (p + 1, keys[i]))
      {
        const gint64 n = count_after (p + strlen (keys[i]));
        if (n >= 2 && n <= 64)
          return n;
      }
  /* words, in a sentence (to '.', ';' or a line's end) that names MoE or experts */
  static const struct { const char *words; gint64 n; } phrases[] = {
    { "every second layer", 2 }, { "every other layer", 2 }, { "every 2nd layer", 2 },
    { "alternating dense and moe", 2 }, { "alternating moe and dense", 2 },
    { "alternate layers", 2 }, { "every third layer", 3 }, { "every 3rd layer", 3 },
    { "every fourth layer", 4 }, { "every 4th layer", 4 } };
  for (const char *sent = low; *sent != '\0';)
    {
      /* a sentence ends at '.' before a space or the end, not inside a name
       * ("gpt_oss_20B.yaml" cut one and left "alternate layers" with its experts) */
      const char *end = sent;
      while (*end != '\0' && *end != ';' && *end != '\n'
             && !(*end == '.' && (end[1] == '\0' || g_ascii_isspace (end[1]))))
        end++;
      g_autofree char *one = g_strndup (sent, (gsize) (end - sent));
      if (strstr (one, "moe") != NULL || strstr (one, "expert") != NULL)
        {
          for (guint i = 0; i < G_N_ELEMENTS (phrases); i++)
            {
              const char *at = strstr (one, phrases[i].words);
              if (at != NULL && !phrase_of_attention (one, at))
                return phrases[i].n;
            }
          /* "every N layers", "every N-th layer" */
          for (const char *e = strstr (one, "every "); e != NULL; e = strstr (e + 1, "every "))
            {
              const char *q = e + 6;
              gint64 n = 0;
              for (; g_ascii_isdigit (*q) && n <= 64; q++)
                n = n * 10 + (*q - '0');
              if (g_str_has_prefix (q, "-th") || g_str_has_prefix (q, "th"))
                q += *q == '-' ? 3 : 2;
              if (n >= 2 && n <= 64 && g_str_has_prefix (q, " layer"))
                return n;
            }
        }
      sent = *end != '\0' ? end + 1 : end;
    }
  return 0;
}

void
res_pub_moe_read_row (ResPubMoe *moe, const char *ep_cell, const char *model_cell,
                      const char *notes)
{
  if (!moe->present)
    return;
  /* the MoE layer interval: the model cell, else the notes, where the cell states none
   * (Llama 4 Maverick's "MoE in every second layer (interleave_moe_layer_step 2)" in an
   * audit's notes was read as every layer MoE: +48%, audit of 7 Dec) */
  if (moe->moe_every == 0)
    {
      const gint64 in_model = res_pub_moe_every_in_text (model_cell);
      const gint64 every = in_model > 0 ? in_model : res_pub_moe_every_in_text (notes);
      if (every >= 2)
        {
          moe->moe_every = (guint64) every;
          moe->every_from = in_model > 0 ? "the model cell" : "the notes";
        }
    }
  /* etp: the moe cell's, else the ep cell's, else the notes' */
  const gint64 in_ep = res_pub_moe_etp_in_text (ep_cell);
  const gint64 in_notes = res_pub_moe_etp_in_text (notes);
  const gint64 text_etp = in_ep != 0 ? in_ep : in_notes;
  const char *text_from = in_ep != 0 ? "the ep cell" : "the notes";
  if (moe->etp == 0 && text_etp > 0)
    {
      moe->etp = (guint64) text_etp;
      moe->etp_from = text_from;
    }
  else if (moe->etp > 0 && text_etp > 0 && (guint64) text_etp != moe->etp)
    {
      moe->etp_other = (guint64) text_etp;
      moe->etp_other_from = text_from;
    }

  /* routing: the model cell, else the notes, where the moe cell states none */
  if (moe->routing == RES_PUB_ROUTING_UNSTATED && !moe->forced_off)
    {
      int in_model = res_pub_moe_forced_in_text (model_cell);
      int forced = in_model >= 0 ? in_model : res_pub_moe_forced_in_text (notes);
      if (forced == 1)
        {
          moe->routing = RES_PUB_ROUTING_FORCED;
          moe->routing_from = in_model >= 0 ? "the model cell" : "the notes";
        }
    }

  /* token drop: the model cell, else the notes, where the moe cell states neither a
   * capacity factor nor dropless routing */
  if (moe->capacity_factor == 0 && !moe->no_drop)
    {
      double cf = 0;
      gboolean pad = FALSE;
      const char *from = "the model cell";
      int drop = res_pub_moe_token_drop_in_text (model_cell, &cf, &pad);
      if (drop < 0)
        {
          drop = res_pub_moe_token_drop_in_text (notes, &cf, &pad);
          from = "the notes";
        }
      if (drop == 1)
        {
          moe->capacity_factor = cf;
          moe->pad_to_capacity = pad;
          moe->drop_from = from;
        }
    }
}

/* The expert TP the moe cell could state for a plan whose default (etp = tp) does not
 * fold: the largest e below tp with e x ep dividing the stage's tp x cp x dp ranks and e
 * dividing the expert FFN (plan-validate.c's two conditions); 0 when none. */
int
res_pub_moe_etp_that_folds (const ResPubMoe *moe, const Plan *plan)
{
  const gint64 stage = (gint64) plan->tp * plan->cp * plan->dp;
  const gint64 ep = MAX (plan->ep, 1);
  for (int e = plan->tp - 1; e >= 1; e--)
    if (stage % ((gint64) e * ep) == 0 && moe->moe_ffn % (guint64) e == 0)
      return e;
  return 0;
}

/* ---- an MoE's shape in free text (rows without a moe cell or a preset) ---------------- */

/* Whether the few words before `p` (inside `low`) negate it: "no", "not", "without" as a
 * word within the 16 characters before, in the same clause */
static gboolean
negated_near (const char *low, const char *p)
{
  const char *from = p - low > 16 ? p - 16 : low;
  for (const char *q = p; q > from; q--)
    if (strchr (".;:()", q[-1]) != NULL)
      {
        from = q;
        break;
      }
  g_autofree char *before = g_strndup (from, (gsize) (p - from));
  static const char *const words[] = { "no ", "not ", "without " };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    for (const char *w = strstr (before, words[i]); w != NULL; w = strstr (w + 1, words[i]))
      if (w == before || !g_ascii_isalnum (w[-1]))
        return TRUE;
  return FALSE;
}

/* The count after the first of `labels` (lower case) found at a word start, as count_after
 * reads it ("num_experts=8", "--moe-router-topk 2", "moe_intermediate_size: 2048"); 0
 * none, -1 two different counts */
static gint64
count_after_labels (const char *low, const char *const *labels, guint n)
{
  gint64 found = 0;
  for (guint i = 0; i < n; i++)
    {
      /* a slash list's own value for the label ("TP/EP = 2/8": EP 8, read as 2) */
      const gint64 listed = slash_list_value (low, labels[i]);
      if (listed < 0 || (listed > 0 && found != 0 && found != listed))
        return -1;
      if (listed > 0)
        found = listed;
      const gsize len = strlen (labels[i]);
      for (const char *p = strstr (low, labels[i]); p != NULL; p = strstr (p + 1, labels[i]))
        {
          const char *q = p + len;
          if (!word_start (low, p) || g_ascii_isalpha (*q) || *q == '_'
              || (*q == '-' && !g_ascii_isdigit (q[1])))
            continue;
          if (in_slash_list (low, p, q))
            continue;   /* a label of a slash list, read above */
          if (*q == '-')
            q++;                     /* "top-2" */
          gint64 v = count_after (q);
          if (v <= 0 || negated_near (low, p))
            continue;
          if (found != 0 && found != v)
            return -1;
          found = v;
        }
    }
  return found;
}

/* The number written just before `p` (skipping spaces, one '-' and the words of `skip`):
 * "8 experts", "256 routed experts", "8-expert"; 0 none */
static gint64
count_before (const char *low, const char *p, const char *const *skip, guint n_skip)
{
  const char *q = p;
  for (int round = 0; round < 2; round++)
    {
      /* spaces, or one hyphen joining the count to the noun ("8-expert"); not the "--" of
       * a flag after another flag's value ("--expert-model-parallel-size 32
       * --expert-tensor-parallel-size 1" read 32 experts) */
      while (q > low && q[-1] == ' ')
        q--;
      if (q - low >= 2 && q[-1] == '-' && g_ascii_isdigit (q[-2]))
        q--;
      /* one word of `skip` before the noun ("routed", "shared") */
      const char *w = q;
      while (w > low && g_ascii_isalpha (w[-1]))
        w--;
      gboolean skipped = FALSE;
      for (guint i = 0; i < n_skip && w < q; i++)
        if ((gsize) (q - w) == strlen (skip[i]) && strncmp (w, skip[i], (gsize) (q - w)) == 0)
          {
            q = w;
            skipped = TRUE;
          }
      if (!skipped)
        break;
    }
  const char *end = q;
  while (q > low && (g_ascii_isdigit (q[-1]) || q[-1] == ','))
    q--;
  if (q == end || (q > low && (g_ascii_isalpha (q[-1]) || q[-1] == '.' || q[-1] == '_')))
    return 0;
  GString *digits = g_string_new (NULL);
  for (const char *d = q; d < end; d++)
    if (*d != ',')
      g_string_append_c (digits, *d);
  const gint64 v = digits->len <= 9 ? g_ascii_strtoll (digits->str, NULL, 10) : 0;
  g_string_free (digits, TRUE);
  return v;
}

void
res_pub_sentence_bounds (const char *low, const char *p, const char **from, const char **to)
{
  const char *f = p, *t = p;
  while (f > low && f[-1] != '.' && f[-1] != ';')
    f--;
  while (*t != '\0' && *t != '.' && *t != ';')
    t++;
  *from = f;
  *to = t;
}

/* A count read again into `*acc`: the first kept, a different one makes it -1 (no
 * reading), as does a reading that was already -1; 0 reads nothing */
static void
agree (gint64 *acc, gint64 v)
{
  if (v == 0)
    return;
  *acc = v < 0 || (*acc != 0 && *acc != v) ? -1 : v;
}

/* Whether the sentence holding `p` (inside `low`; bounded by '.', ';' or the text's ends)
 * has a word of other runs ("unlike the MoE variant with 8 experts", "compared with
 * Mixtral's 8 experts"): the shape there is another model's */
static gboolean
sentence_of_other_runs (const char *low, const char *p)
{
  const char *from, *to;
  res_pub_sentence_bounds (low, p, &from, &to);
  /* "Fedus et al. report ...": the '.' of "et al." ends no sentence */
  if (from - low >= 6 && strncmp (from - 6, "et al.", 6) == 0)
    return TRUE;
  for (const char *w = from; w < to; w++)
    {
      if (w != from && g_ascii_isalnum (w[-1]))
        continue;
      gsize n = 0;
      while (w + n < to && g_ascii_isalpha (w[n]))
        n++;
      if (n > 0 && word_among (w, n, other_runs, G_N_ELEMENTS (other_runs)))
        return TRUE;
      /* a citation: "Fedus et al. report 128 experts" (the '.' of "al." ends no sentence
       * here: the sentence was cut there, so "et al" is at its end or "et" is) */
      if (n == 2 && strncmp (w, "et", 2) == 0 && (w[2] == ' ') && strncmp (w + 3, "al", 2) == 0)
        return TRUE;
    }
  return FALSE;
}

gboolean
res_pub_moe_arch_in_text (const char *text, guint64 ffn_hidden, ResPubMoe *out)
{
  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  if (text == NULL || *text == '\0')
    return FALSE;
  g_autofree char *low = g_ascii_strdown (text, -1);
  /* experts: a config key, or a count before the noun ("8 experts", "256 routed
   * experts"); "N shared experts" is the shared count, "N active experts" and "N experts
   * per token" the top-k */
  static const char *const expert_keys[] = { "num_experts", "num-experts", "n_routed_experts",
                                             "num_local_experts", "num_moe_experts",
                                             "moe_num_experts", "number of experts" };
  gint64 experts = count_after_labels (low, expert_keys, G_N_ELEMENTS (expert_keys));
  gint64 top_k = 0, shared = 0;
  static const char *const skip_routed[] = { "routed", "moe", "total", "sparse" };
  static const char *const skip_shared[] = { "shared" };
  static const char *const skip_active[] = { "active", "activated", "selected" };
  for (const char *p = strstr (low, "expert"); p != NULL && experts >= 0;
       p = strstr (p + 1, "expert"))
    {
      const char *q = p + 6;
      const gboolean plural = *q == 's';
      if (plural)
        q++;
      if (!word_start (low, p) || g_ascii_isalnum (*q) || *q == '_' || negated_near (low, p)
          || sentence_of_other_runs (low, p))
        continue;
      /* people, not layers: "12 experts' proposals" (possessive), "40 expert annotators",
       * "8 expert raters" (the singular before another noun); the singular stays where
       * a word of the MoE follows it or nothing does ("1 shared expert", "8-expert MoE",
       * "1 shared expert of 2048") */
      if (*q == '\'')
        continue;
      if (!plural && *q == ' ' && g_ascii_isalpha (q[1]))
        {
          static const char *const after[] = { "and", "with", "per", "plus", "of", "in",
                                               "each", "moe", "layer", "layers", "ffn",
                                               "mlp", "mixture", "model", "routing", "top",
                                               "is", "was", "at", "for" };
          const char *w = q + 1;
          gsize n = 0;
          while (g_ascii_isalpha (w[n]))
            n++;
          if (!word_among (w, n, after, G_N_ELEMENTS (after)))
            continue;
        }
      gint64 v;
      if ((v = count_before (low, p, skip_shared, 1)) > 0
          && count_before (low, p, NULL, 0) == 0)
        {
          agree (&shared, v);       /* "1 shared expert": "shared" before the noun */
          continue;
        }
      if ((v = count_before (low, p, skip_active, 3)) > 0 && count_before (low, p, NULL, 0) == 0)
        {
          agree (&top_k, v);
          continue;
        }
      v = count_before (low, p, skip_routed, G_N_ELEMENTS (skip_routed));
      if (v <= 0)
        continue;
      if (g_str_has_prefix (q, " per token") || g_str_has_prefix (q, " activated")
          || g_str_has_prefix (q, " active"))
        {
          agree (&top_k, v);
          continue;
        }
      agree (&experts, v);
    }
  static const char *const topk_keys[] = { "top_k", "top-k", "topk", "moe_router_topk",
                                           "moe-router-topk", "num_experts_per_tok",
                                           "experts_per_token", "num_selected_experts" };
  gint64 k_key = count_after_labels (low, topk_keys, G_N_ELEMENTS (topk_keys));
  /* a bare "top-2" only in a sentence about experts or routing ("8 experts top-2",
   * "top-2 routing"; not "top-2 accuracy ... 8 expert raters", "one of the top 10") */
  gint64 k_top = 0;
  for (const char *p = strstr (low, "top"); p != NULL && k_top >= 0; p = strstr (p + 3, "top"))
    {
      const char *q = p + 3;
      if (!word_start (low, p) || g_ascii_isalpha (*q) || *q == '_'
          || (*q == '-' && !g_ascii_isdigit (q[1])) || negated_near (low, p))
        continue;
      if (*q == '-')
        q++;
      const gint64 v = count_after (q);
      if (v <= 0)
        continue;
      const char *from, *to;
      res_pub_sentence_bounds (low, p, &from, &to);
      g_autofree char *sentence = g_strndup (from, (gsize) (to - from));
      if (strstr (sentence, "expert") == NULL && strstr (sentence, "rout") == NULL
          && strstr (sentence, "moe") == NULL && strstr (sentence, "gating") == NULL)
        continue;
      agree (&k_top, v);
    }
  agree (&top_k, k_key);
  agree (&top_k, k_top);
  if (experts < 2 || experts > 65536 || top_k < 1 || top_k > experts)
    return FALSE;
  static const char *const ffn_keys[] = { "moe_ffn", "moe_intermediate_size",
                                          "moe-ffn-hidden-size", "moe_ffn_hidden_size",
                                          "expert_ffn", "expert ffn", "expert_intermediate_size" };
  gint64 moe_ffn = count_after_labels (low, ffn_keys, G_N_ELEMENTS (ffn_keys));
  if (moe_ffn < 0)
    return FALSE;
  if (moe_ffn == 0)
    moe_ffn = (gint64) ffn_hidden;  /* Mixtral's and Grok's ffn_hidden is one expert's */
  if (moe_ffn <= 0)
    return FALSE;
  static const char *const shared_keys[] = { "n_shared_experts", "num_shared_experts",
                                             "shared_experts" };
  agree (&shared, count_after_labels (low, shared_keys, G_N_ELEMENTS (shared_keys)));
  if (shared < 0)
    return FALSE;
  static const char *const dense_keys[] = { "first_k_dense_replace", "first-k-dense-replace" };
  gint64 dense = count_after_labels (low, dense_keys, G_N_ELEMENTS (dense_keys));
  if (dense < 0)
    return FALSE;
  out->present = TRUE;
  out->experts = (guint64) experts;
  out->top_k = (guint64) top_k;
  out->moe_ffn = (guint64) moe_ffn;
  out->shared_experts = (guint64) shared;
  out->shared_expert_ffn = (guint64) (shared * moe_ffn);
  out->dense_layers = (guint64) dense;
  return TRUE;
}

ResPubDispatcher
res_pub_moe_dispatcher_in_text (const char *text)
{
  if (text == NULL || *text == '\0')
    return RES_PUB_DISPATCH_UNSTATED;
  g_autofree char *low = g_ascii_strdown (text, -1);
  /* the names in order of precedence: HybridEP is DeepEP's successor in Megatron-Core's
   * flex dispatcher, and a text naming both ran the newer one */
  static const struct { const char *name; ResPubDispatcher d; } names[] = {
    { "hybridep", RES_PUB_DISPATCH_HYBRIDEP }, { "hybrid-ep", RES_PUB_DISPATCH_HYBRIDEP },
    { "hybrid ep", RES_PUB_DISPATCH_HYBRIDEP }, { "deepep", RES_PUB_DISPATCH_DEEPEP },
    { "deep-ep", RES_PUB_DISPATCH_DEEPEP },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    for (const char *p = strstr (low, names[i].name); p != NULL;
         p = strstr (p + 1, names[i].name))
      if (word_start (low, p) && !g_ascii_isalnum (p[strlen (names[i].name)])
          && !negated_near (low, p))
        return names[i].d;
  /* a Megatron config's dispatcher type with its value */
  static const char *const keys[] = { "moe_token_dispatcher_type", "moe-token-dispatcher-type" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const char *p = strstr (low, keys[i]);
      if (p == NULL)
        continue;
      p += strlen (keys[i]);
      while (*p == ' ' || *p == '=' || *p == ':' || *p == '"' || *p == '\'')
        p++;
      if (g_str_has_prefix (p, "alltoall"))
        return RES_PUB_DISPATCH_ALLTOALL;
      if (g_str_has_prefix (p, "allgather"))
        return RES_PUB_DISPATCH_ALLGATHER;
    }
  return RES_PUB_DISPATCH_UNSTATED;
}

/* Whether the sentence holding `p` names a GPU count other than `gpus` ("The 1024-GPU
 * production run used EP 16" in a 256-GPU row): another run's */
static gboolean
sentence_of_other_gpus (const char *low, const char *p, gint64 gpus)
{
  if (gpus <= 0)
    return FALSE;
  const char *from, *to;
  res_pub_sentence_bounds (low, p, &from, &to);
  for (const char *q = from; q < to; q++)
    {
      if (!g_ascii_isdigit (*q) || (q > from && (g_ascii_isalnum (q[-1]) || q[-1] == ',')))
        continue;
      char *end = NULL;
      const gint64 v = g_ascii_strtoll (q, &end, 10);
      const char *w = end;
      if (*w == '-' || *w == ' ')
        w++;
      if ((g_str_has_prefix (w, "gpu") || g_str_has_prefix (w, "h100")
           || g_str_has_prefix (w, "a100") || g_str_has_prefix (w, "b200")) && v != gpus)
        return TRUE;
      q = end - 1;
    }
  return FALSE;
}

gint64
res_pub_moe_ep_in_text (const char *text, gint64 gpus)
{
  if (text == NULL || *text == '\0')
    return 0;
  g_autofree char *low = g_ascii_strdown (text, -1);
  /* blank the mentions in sentences about other runs, then read what is left */
  static const char *const names[] = { "expert", "ep" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    for (char *p = strstr (low, names[i]); p != NULL; p = strstr (p + 1, names[i]))
      if (word_start (low, p) && (sentence_of_other_runs (low, p)
                                  || sentence_of_other_gpus (low, p, gpus)))
        p[0] = '#';
  static const char *const labels[] = { "expert_model_parallel_size",
                                        "expert-model-parallel-size",
                                        "expert model parallel size", "expert parallel size",
                                        "expert-parallel size", "expert parallelism",
                                        "expert parallel", "ep" };
  gint64 v = count_after_labels (low, labels, G_N_ELEMENTS (labels));
  return v > PLAN_MAX_WORLD ? -1 : v;
}
