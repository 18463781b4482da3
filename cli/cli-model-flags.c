/* cli/cli-model-flags.c - a model from Megatron-LM's model flags (cli-model-flags.h). */
#include "cli/cli-model-flags.h"
#include "plan/plan.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <stdarg.h>

/* The integer flags, each >= 1: 0 is what an absent flag leaves, so --num-layers 0 read
 * as no --num-layers ("a model by Megatron flags needs --num-layers", or beside --model
 * nothing at all) and --kv-channels 0 as the default head size. */
static const struct { const char *name; gsize offset; } int_flags[] = {
  { "--num-layers", G_STRUCT_OFFSET (CliModelFlags, num_layers) },
  { "--hidden-size", G_STRUCT_OFFSET (CliModelFlags, hidden) },
  { "--num-attention-heads", G_STRUCT_OFFSET (CliModelFlags, heads) },
  { "--num-query-groups", G_STRUCT_OFFSET (CliModelFlags, query_groups) },
  { "--ffn-hidden-size", G_STRUCT_OFFSET (CliModelFlags, ffn) },
  { "--vocab-size", G_STRUCT_OFFSET (CliModelFlags, vocab) },
  { "--make-vocab-size-divisible-by", G_STRUCT_OFFSET (CliModelFlags, vocab_divisible) },
  { "--max-position-embeddings", G_STRUCT_OFFSET (CliModelFlags, max_positions) },
  { "--kv-channels", G_STRUCT_OFFSET (CliModelFlags, kv_channels) },
  { "--moe-ffn-hidden-size", G_STRUCT_OFFSET (CliModelFlags, moe_ffn) },
  { "--moe-shared-expert-intermediate-size", G_STRUCT_OFFSET (CliModelFlags, moe_shared_ffn) },
};

static gboolean
on_int (const char *option, const char *value, gpointer data, GError **error)
{
  char *end = NULL;
  errno = 0;
  gint64 v = g_ascii_strtoll (value, &end, 10);
  if (end == value || *end != '\0' || v < 1 || g_ascii_isspace (value[0]))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s expects an integer >= 1, got '%s'", option, value);
      return FALSE;
    }
  if (v > G_MAXINT || errno == ERANGE)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s %s is too large: it takes integers from 1 to %d", option, value,
                   G_MAXINT);
      return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (int_flags); i++)
    if (g_str_equal (option, int_flags[i].name))
      {
        G_STRUCT_MEMBER (int, data, int_flags[i].offset) = (int) v;
        return TRUE;
      }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "unhandled %s", option);
  return FALSE;
}

#define CB(f) (gpointer) (f)

/* The entries, a NULL-terminated copy (g_free) writing into *f. */
static GOptionEntry *
model_entries_new (CliModelFlags *f)
{
  const GOptionEntry entries[] = {
    { "num-layers", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int),
      "Model by Megatron flags (instead of --model): transformer layers", "L" },
    { "hidden-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int), "Hidden size h", "H" },
    { "num-attention-heads", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int), "Attention heads", "A" },
    { "num-query-groups", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int),
      "KV heads, with --group-query-attention (alone it is refused: Megatron ignores it)", "G" },
    { "group-query-attention", 0, 0, G_OPTION_ARG_NONE, &f->gqa,
      "Grouped-query attention (with --num-query-groups)", NULL },
    { "ffn-hidden-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int),
      "MLP inner size (default 4h, with --swiglu int(8h/3 / 64) x 64)", "F" },
    { "vocab-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int),
      "Vocabulary (padded to a multiple of 128 x tp, as Megatron pads it)", "V" },
    { "make-vocab-size-divisible-by", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int),
      "Vocabulary padding multiple before x tp (default 128)", "N" },
    { "max-position-embeddings", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int),
      "Context length (default: --seq-length, else 4096)", "S" },
    { "swiglu", 0, 0, G_OPTION_ARG_NONE, &f->swiglu,
      "SwiGLU MLP: the Llama family (RMSNorm, rotary); without it GeLU (GPT)", NULL },
    { "untie-embeddings-and-output-weights", 0, 0, G_OPTION_ARG_NONE, &f->untie,
      "Separate output head (Megatron ties them by default)", NULL },
    { "normalization", 0, 0, G_OPTION_ARG_STRING, &f->normalization,
      "LayerNorm (GPT) or RMSNorm (with --swiglu)", "KIND" },
    { "position-embedding-type", 0, 0, G_OPTION_ARG_STRING, &f->position_embedding,
      "learned_absolute (GPT) or rope (with --swiglu)", "KIND" },
    { "kv-channels", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int),
      "Head size (projection width a x kv-channels; default h / a)", "D" },
    { "moe-ffn-hidden-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int),
      "With --num-experts: one routed expert's MLP inner size (default --ffn-hidden-size)",
      "F" },
    { "moe-shared-expert-intermediate-size", 0, 0, G_OPTION_ARG_CALLBACK, CB (on_int),
      "With --num-experts: the shared experts' inner size in all (default none)", "F" },
    { "moe-layer-freq", 0, 0, G_OPTION_ARG_STRING, &f->moe_layer_freq,
      "With --num-experts: which layers are MoE, Megatron's N or a list such as "
      "\"[0]*3+[1]*58\" (default every layer)", "PATTERN" },
    { NULL },
  };
  return g_memdup2 (entries, sizeof entries);
}

GOptionGroup *
cli_model_flags_group (CliModelFlags *f)
{
  GOptionGroup *g = g_option_group_new ("model", "Model by Megatron-LM flags (instead of "
                                        "--model):", "Show the model flags", f, NULL);
  g_autofree GOptionEntry *entries = model_entries_new (f);
  g_option_group_add_entries (g, entries);
  return g;
}

const GOptionEntry *
cli_model_flags_entries (void)
{
  static CliModelFlags unused;
  static GOptionEntry *entries;
  static gsize once;
  if (g_once_init_enter (&once))
    {
      entries = model_entries_new (&unused);
      g_once_init_leave (&once, 1);
    }
  return entries;
}

gboolean
cli_model_flags_given (const CliModelFlags *f)
{
  return f->num_layers || f->hidden || f->heads || f->query_groups || f->ffn || f->vocab
         || f->max_positions || f->vocab_divisible || f->swiglu || f->gqa || f->untie
         || f->normalization || f->position_embedding || f->kv_channels || f->moe_ffn
         || f->moe_shared_ffn || f->moe_layer_freq;
}

static gboolean
usage (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
usage (GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error_literal (error, PLAN_ERROR, PLAN_ERROR_USAGE, msg);
  return FALSE;
}


/* ---- --moe-layer-freq ------------------------------------------------------------------
 * A Python list expression of 0/1 (Megatron evaluates the string): expr = term ('+'
 * term)*, term = atom ('*' N)?, atom = '[' d (',' d)* ']' | '(' expr ')'. The result is
 * capped at MODEL_MAX_LAYERS entries. */

typedef struct {
  const char *p;
  const char *error;
  int         depth;   /* open parentheses: bounded, a deep nesting overflowed the stack */
} FreqParser;

/* Megatron's patterns nest a level or two ("([1]*3+[0])*8"); 64 is far past any */
#define FREQ_MAX_DEPTH 64

static void
freq_skip (FreqParser *fp)
{
  while (*fp->p == ' ' || *fp->p == '\t')
    fp->p++;
}

static gboolean freq_expr (FreqParser *fp, GByteArray *out);

static gboolean
freq_int (FreqParser *fp, guint64 *v)
{
  freq_skip (fp);
  if (!g_ascii_isdigit (*fp->p))
    {
      fp->error = "expected a number";
      return FALSE;
    }
  char *end = NULL;
  *v = g_ascii_strtoull (fp->p, &end, 10);
  fp->p = end;
  if (*v > MODEL_MAX_LAYERS)
    {
      fp->error = "a number above the layer cap";
      return FALSE;
    }
  return TRUE;
}

static gboolean
freq_atom (FreqParser *fp, GByteArray *out)
{
  freq_skip (fp);
  if (*fp->p == '(')
    {
      fp->p++;
      if (++fp->depth > FREQ_MAX_DEPTH)
        {
          fp->error = "parentheses nested deeper than 64";
          return FALSE;
        }
      if (!freq_expr (fp, out))
        return FALSE;
      fp->depth--;
      freq_skip (fp);
      if (*fp->p != ')')
        {
          fp->error = "expected ')'";
          return FALSE;
        }
      fp->p++;
      return TRUE;
    }
  if (*fp->p != '[')
    {
      fp->error = "expected '[' or '('";
      return FALSE;
    }
  fp->p++;
  for (;;)
    {
      guint64 v;
      if (!freq_int (fp, &v))
        return FALSE;
      if (v > 1)
        {
          fp->error = "list entries are 0 (dense) or 1 (MoE)";
          return FALSE;
        }
      guint8 b = (guint8) v;
      g_byte_array_append (out, &b, 1);
      freq_skip (fp);
      if (*fp->p == ']')
        {
          fp->p++;
          return TRUE;
        }
      if (*fp->p != ',')
        {
          fp->error = "expected ',' or ']'";
          return FALSE;
        }
      fp->p++;
    }
}

static gboolean
freq_term (FreqParser *fp, GByteArray *out)
{
  g_autoptr (GByteArray) atom = g_byte_array_new ();
  if (!freq_atom (fp, atom))
    return FALSE;
  freq_skip (fp);
  guint64 n = 1;
  if (*fp->p == '*')
    {
      fp->p++;
      if (!freq_int (fp, &n))
        return FALSE;
    }
  if ((guint64) out->len + n * atom->len > MODEL_MAX_LAYERS)
    {
      fp->error = "more entries than the layer cap";
      return FALSE;
    }
  for (guint64 i = 0; i < n; i++)
    g_byte_array_append (out, atom->data, atom->len);
  return TRUE;
}

static gboolean
freq_expr (FreqParser *fp, GByteArray *out)
{
  if (!freq_term (fp, out))
    return FALSE;
  for (;;)
    {
      freq_skip (fp);
      if (*fp->p != '+')
        return TRUE;
      fp->p++;
      if (!freq_term (fp, out))
        return FALSE;
    }
}

/* The pattern of --moe-layer-freq as tandem's (first_dense, step): layer i >= K is MoE
 * when (i - K + 1) % S == 0. FALSE with error set when the text does not parse or the
 * pattern has no such form. */
static gboolean
moe_layer_pattern (const char *text, guint64 layers, guint64 *first_dense, guint64 *step,
                   GError **error)
{
  g_autoptr (GByteArray) pat = g_byte_array_new ();
  char *end = NULL;
  guint64 n = g_ascii_strtoull (text, &end, 10);
  if (end != text && *end == '\0')
    {
      /* Megatron's integer form: layer i is MoE when i % N == 0 (arguments.py) */
      if (n == 0 || n > layers)
        return usage (error, "--moe-layer-freq %s: an integer is 1 to the %" G_GUINT64_FORMAT
                      " layers", text, layers);
      for (guint64 i = 0; i < layers; i++)
        {
          guint8 b = i % n == 0;
          g_byte_array_append (pat, &b, 1);
        }
    }
  else
    {
      FreqParser fp = { text, NULL };
      if (!freq_expr (&fp, pat) || (freq_skip (&fp), *fp.p != '\0'))
        return usage (error, "--moe-layer-freq '%s': %s at character %d (hint: an integer, "
                      "or a list such as \"[0]*3+[1]*58\" or \"([0]+[1])*24\")", text,
                      fp.error ? fp.error : "unexpected text", (int) (fp.p - text) + 1);
    }
  if (pat->len != layers)
    return usage (error, "--moe-layer-freq '%s' gives %u entries for %" G_GUINT64_FORMAT
                  " layers (hint: one 0 or 1 per layer)", text, pat->len, layers);
  guint64 f = layers, second = layers;
  for (guint64 i = 0; i < layers; i++)
    if (pat->data[i])
      {
        if (f == layers)
          f = i;
        else if (second == layers)
          second = i;
      }
  if (f == layers)
    return usage (error, "--moe-layer-freq '%s' makes no layer MoE (hint: drop --num-experts "
                  "for a dense model)", text);
  /* with two MoE layers the step is their distance; with one, any step that puts no
   * other MoE layer before the end */
  guint64 s_lo = second < layers ? second - f : 1, s_hi = second < layers ? second - f : f + 1;
  for (guint64 s = s_lo; s <= s_hi; s++)
    {
      if (s > f + 1)
        break;
      guint64 k = f + 1 - s;
      gboolean same = TRUE;
      for (guint64 i = 0; i < layers && same; i++)
        same = pat->data[i] == (i >= k && (i - k + 1) % s == 0);
      if (same)
        {
          *first_dense = k;
          *step = s;
          return TRUE;
        }
    }
  return usage (error, "--moe-layer-freq '%s'%s: tandem models K dense layers followed by a "
                "MoE layer every S-th layer, layer i MoE when (i - K + 1) %% S == 0, and this "
                "pattern is not of that form (hint: \"[0]*K+[1]*N\", or \"([0]+[1])*N\" for "
                "every other layer)", text, end != text && *end == '\0'
                ? " (Megatron: layers 0, N, 2N, ... are MoE)" : "");
}

ModelSpec *
cli_model_flags_build (const CliModelFlags *f, const Plan *plan, GError **error)
{
  int tp = plan->tp, seq = plan->seq_length;
  const struct { const char *flag; int v; } need[] = {
    { "--num-layers", f->num_layers }, { "--hidden-size", f->hidden },
    { "--num-attention-heads", f->heads }, { "--vocab-size", f->vocab },
  };
  g_autoptr (GString) missing = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (need); i++)
    if (need[i].v == 0)
      g_string_append_printf (missing, "%s%s", missing->len ? ", " : "", need[i].flag);
  if (missing->len > 0)
    {
      usage (error, "a model by Megatron flags needs %s too (hint: --num-layers 32 "
             "--hidden-size 4096 --num-attention-heads 32 --vocab-size 128256 --swiglu, or "
             "--model NAME)", missing->str);
      return NULL;
    }
  const struct { const char *flag; int v; } pos[] = {
    { "--num-layers", f->num_layers }, { "--hidden-size", f->hidden },
    { "--num-attention-heads", f->heads }, { "--vocab-size", f->vocab },
    { "--num-query-groups", f->query_groups }, { "--ffn-hidden-size", f->ffn },
    { "--max-position-embeddings", f->max_positions },
    { "--make-vocab-size-divisible-by", f->vocab_divisible },
    { "--kv-channels", f->kv_channels }, { "--moe-ffn-hidden-size", f->moe_ffn },
    { "--moe-shared-expert-intermediate-size", f->moe_shared_ffn },
  };
  for (guint i = 0; i < G_N_ELEMENTS (pos); i++)
    if (pos[i].v < 0)
      {
        usage (error, "%s %d: must be positive", pos[i].flag, pos[i].v);
        return NULL;
      }
  if (f->normalization != NULL
      && !g_str_equal (f->normalization, f->swiglu ? "RMSNorm" : "LayerNorm"))
    {
      usage (error, "--normalization %s with%s --swiglu: tandem models SwiGLU with RMSNorm "
             "and rotary positions (Llama), GeLU with LayerNorm and learned positions (GPT) "
             "(hint: --normalization %s)", f->normalization, f->swiglu ? "" : "out",
             f->swiglu ? "RMSNorm" : "LayerNorm");
      return NULL;
    }
  if (f->position_embedding != NULL
      && !g_str_equal (f->position_embedding, f->swiglu ? "rope" : "learned_absolute"))
    {
      usage (error, "--position-embedding-type %s with%s --swiglu: tandem models SwiGLU with "
             "rotary positions (Llama), GeLU with learned ones (GPT) (hint: "
             "--position-embedding-type %s)", f->position_embedding, f->swiglu ? "" : "out",
             f->swiglu ? "rope" : "learned_absolute");
      return NULL;
    }
  if (f->gqa && f->query_groups == 0)
    {
      usage (error, "--group-query-attention needs --num-query-groups (hint: "
             "--num-query-groups 8)");
      return NULL;
    }
  /* Megatron reads the group count only under the switch (arguments.py
   * core_transformer_config_from_args: num_query_groups None without
   * --group-query-attention, so every head keeps its own K and V); a count given alone
   * would be trained as multi-head attention there, so it is refused rather than read as
   * either */
  if (!f->gqa && f->query_groups > 0 && f->query_groups != f->heads)
    {
      usage (error, "--num-query-groups %d without --group-query-attention: Megatron "
             "ignores the count and trains multi-head attention, %d K/V heads (hint: add "
             "--group-query-attention for %d groups, or drop --num-query-groups)",
             f->query_groups, f->heads, f->query_groups);
      return NULL;
    }
  guint64 h = (guint64) f->hidden, a = (guint64) f->heads;
  if (plan->num_experts <= 0 && (f->moe_ffn || f->moe_shared_ffn || f->moe_layer_freq))
    {
      usage (error, "%s describes the experts of a mixture-of-experts model: give "
             "--num-experts too (hint: --num-experts 8 --moe-router-topk 2)",
             f->moe_ffn ? "--moe-ffn-hidden-size" : f->moe_shared_ffn
             ? "--moe-shared-expert-intermediate-size" : "--moe-layer-freq");
      return NULL;
    }
  /* Megatron asserts h % a == 0 only where --kv-channels is not given (arguments.py: the
   * head size defaults to h / a); with it the projections are a x kv-channels wide */
  if (h % a != 0 && f->kv_channels <= 0)
    {
      usage (error, "--hidden-size %d is not a multiple of --num-attention-heads %d "
             "(hint: h / a must be whole, or --kv-channels sets the head size)", f->hidden,
             f->heads);
      return NULL;
    }
  /* Megatron's ffn default (arguments.py): SwiGLU keeps the parameters of a 4h GeLU MLP
   * with two thirds of the width, rounded down to a multiple of 64 */
  guint64 ffn = f->ffn > 0 ? (guint64) f->ffn
                : f->swiglu ? (guint64) ((4.0 * (double) h * 2.0 / 3.0) / 64.0) * 64 : 4 * h;
  guint64 kv = f->query_groups > 0 ? (guint64) f->query_groups : a;
  /* Megatron pads the vocabulary to a multiple of make_vocab_size_divisible_by x tp
   * (_vocab_size_with_padding) */
  guint64 mult = (guint64) (f->vocab_divisible > 0 ? f->vocab_divisible : 128) * MAX (tp, 1);
  guint64 vocab = ((guint64) f->vocab + mult - 1) / mult * mult;
  guint64 positions = f->max_positions > 0 ? (guint64) f->max_positions
                      : seq > 0 ? (guint64) seq : 4096;
  guint64 head = f->kv_channels > 0 ? (guint64) f->kv_channels : h / a;
  g_autofree char *problem = model_sizes_problem (h, ffn, (guint64) f->num_layers, a, kv, head,
                                                  vocab, positions);
  if (problem != NULL)
    {
      usage (error, "model by Megatron flags: %s", problem);
      return NULL;
    }
  guint64 first_dense = 0, step = 1;
  if (plan->num_experts > 0 && f->moe_layer_freq != NULL
      && !moe_layer_pattern (f->moe_layer_freq, (guint64) f->num_layers, &first_dense, &step,
                             error))
    return NULL;
  g_autofree char *name = g_strdup_printf ("megatron-L%d-h%d-a%d%s%s", f->num_layers, f->hidden,
                                           f->heads, f->swiglu ? "-swiglu" : "",
                                           plan->num_experts > 0 ? "-moe" : "");
  /* new_custom wants a whole h / a; the head size is set after, and where h / a is not
   * whole (--kv-channels given) the heads too, over a one-head model of the same sizes */
  const gboolean whole = h % a == 0;
  g_autoptr (ModelSpec) m = model_spec_new_custom (name, f->swiglu ? MODEL_MLP_SWIGLU
                                                   : MODEL_MLP_GELU, h, ffn,
                                                   (guint64) f->num_layers, whole ? a : 1,
                                                   whole ? kv : 1, vocab, positions,
                                                   !f->untie);
  if (m == NULL)
    {
      usage (error, "model by Megatron flags: the sizes are out of range");
      return NULL;
    }
  g_autoptr (JsonNode) config = json_from_string (m->config_json, NULL);
  JsonObject *co = config != NULL && JSON_NODE_HOLDS_OBJECT (config)
                   ? json_node_get_object (config) : NULL;
  m->head_dim = head;
  if (co != NULL && f->kv_channels > 0)
    json_object_set_int_member (co, "head_dim", (gint64) head);
  if (!whole)
    {
      m->n_heads = a;
      m->n_kv_heads = kv;
      if (co != NULL)
        {
          json_object_set_int_member (co, "num_attention_heads", (gint64) a);
          json_object_set_int_member (co, "num_key_value_heads", (gint64) kv);
        }
    }
  if (plan->num_experts > 0)
    {
      /* Megatron-Core's MoE layer: a softmax router (h x E, no bias), the top-k
       * probabilities renormalised (softmax over the k chosen logits: the default,
       * moe_router_pre_softmax off), each expert an MLP of the model's kind */
      m->n_experts = (guint64) plan->num_experts;
      m->moe_top_k = plan->moe_topk > 0 ? (guint64) plan->moe_topk : PLAN_MOE_TOPK_DEFAULT;
      m->moe_ffn = f->moe_ffn > 0 ? (guint64) f->moe_ffn : ffn;
      m->shared_expert_ffn = (guint64) f->moe_shared_ffn;
      /* the flag is the shared experts' total width: one expert of it unless it is a
       * whole number of routed experts' widths */
      m->n_shared_experts = f->moe_shared_ffn == 0 ? 0
                            : m->shared_expert_ffn % m->moe_ffn == 0
                              ? m->shared_expert_ffn / m->moe_ffn : 1;
      m->first_dense_layers = first_dense;
      m->moe_layer_step = step;
      m->router_score = MODEL_ROUTER_SOFTMAX;
      m->router_norm_topk = TRUE;
      g_autofree char *moe_problem = model_moe_problem (m);
      if (moe_problem != NULL)
        {
          usage (error, "model by Megatron flags: %s", moe_problem);
          return NULL;
        }
      if (co != NULL)
        {
          json_object_set_int_member (co, "num_local_experts", (gint64) m->n_experts);
          json_object_set_int_member (co, "num_experts_per_tok", (gint64) m->moe_top_k);
          json_object_set_int_member (co, "moe_intermediate_size", (gint64) m->moe_ffn);
          json_object_set_int_member (co, "shared_expert_intermediate_size",
                                      (gint64) m->shared_expert_ffn);
          json_object_set_int_member (co, "first_k_dense_replace", (gint64) first_dense);
          json_object_set_int_member (co, "moe_layer_step", (gint64) step);
        }
    }
  if (co != NULL)
    {
      g_autofree char *text = json_to_string (config, FALSE);
      model_spec_set_config_json (m, text, NULL);
    }
  return g_steal_pointer (&m);
}

void
cli_model_flags_clear (CliModelFlags *f)
{
  g_clear_pointer (&f->normalization, g_free);
  g_clear_pointer (&f->position_embedding, g_free);
  g_clear_pointer (&f->moe_layer_freq, g_free);
}
