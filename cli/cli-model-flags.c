/* cli/cli-model-flags.c - a model from Megatron-LM's model flags (cli-model-flags.h). */
#include "cli/cli-model-flags.h"
#include "plan/plan.h"

#include <stdarg.h>

GOptionGroup *
cli_model_flags_group (CliModelFlags *f)
{
  const GOptionEntry entries[] = {
    { "num-layers", 0, 0, G_OPTION_ARG_INT, &f->num_layers,
      "Model by Megatron flags (instead of --model): transformer layers", "L" },
    { "hidden-size", 0, 0, G_OPTION_ARG_INT, &f->hidden, "Hidden size h", "H" },
    { "num-attention-heads", 0, 0, G_OPTION_ARG_INT, &f->heads, "Attention heads", "A" },
    { "num-query-groups", 0, 0, G_OPTION_ARG_INT, &f->query_groups,
      "KV heads (grouped-query attention; implies --group-query-attention)", "G" },
    { "group-query-attention", 0, 0, G_OPTION_ARG_NONE, &f->gqa,
      "Grouped-query attention (with --num-query-groups)", NULL },
    { "ffn-hidden-size", 0, 0, G_OPTION_ARG_INT, &f->ffn,
      "MLP inner size (default 4h, with --swiglu int(8h/3 / 64) x 64)", "F" },
    { "vocab-size", 0, 0, G_OPTION_ARG_INT, &f->vocab,
      "Vocabulary (padded to a multiple of 128 x tp, as Megatron pads it)", "V" },
    { "make-vocab-size-divisible-by", 0, 0, G_OPTION_ARG_INT, &f->vocab_divisible,
      "Vocabulary padding multiple before x tp (default 128)", "N" },
    { "max-position-embeddings", 0, 0, G_OPTION_ARG_INT, &f->max_positions,
      "Context length (default: --seq-length, else 4096)", "S" },
    { "swiglu", 0, 0, G_OPTION_ARG_NONE, &f->swiglu,
      "SwiGLU MLP: the Llama family (RMSNorm, rotary); without it GeLU (GPT)", NULL },
    { "untie-embeddings-and-output-weights", 0, 0, G_OPTION_ARG_NONE, &f->untie,
      "Separate output head (Megatron ties them by default)", NULL },
    { "normalization", 0, 0, G_OPTION_ARG_STRING, &f->normalization,
      "LayerNorm (GPT) or RMSNorm (with --swiglu)", "KIND" },
    { "position-embedding-type", 0, 0, G_OPTION_ARG_STRING, &f->position_embedding,
      "learned_absolute (GPT) or rope (with --swiglu)", "KIND" },
    { NULL },
  };
  GOptionGroup *g = g_option_group_new ("model", "Model by Megatron-LM flags (instead of "
                                        "--model):", "Show the model flags", NULL, NULL);
  g_option_group_add_entries (g, entries);
  return g;
}

gboolean
cli_model_flags_given (const CliModelFlags *f)
{
  return f->num_layers || f->hidden || f->heads || f->query_groups || f->ffn || f->vocab
         || f->max_positions || f->vocab_divisible || f->swiglu || f->gqa || f->untie
         || f->normalization || f->position_embedding;
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

ModelSpec *
cli_model_flags_build (const CliModelFlags *f, int tp, int seq, GError **error)
{
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
  guint64 h = (guint64) f->hidden, a = (guint64) f->heads;
  if (h % a != 0)
    {
      usage (error, "--hidden-size %d is not a multiple of --num-attention-heads %d "
             "(hint: head size h / a must be whole)", f->hidden, f->heads);
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
  g_autofree char *problem = model_sizes_problem (h, ffn, (guint64) f->num_layers, a, kv, h / a,
                                                  vocab, positions);
  if (problem != NULL)
    {
      usage (error, "model by Megatron flags: %s", problem);
      return NULL;
    }
  g_autofree char *name = g_strdup_printf ("megatron-L%d-h%d-a%d%s", f->num_layers, f->hidden,
                                           f->heads, f->swiglu ? "-swiglu" : "");
  return model_spec_new_custom (name, f->swiglu ? MODEL_MLP_SWIGLU : MODEL_MLP_GELU, h, ffn,
                                (guint64) f->num_layers, a, kv, vocab, positions, !f->untie);
}

void
cli_model_flags_clear (CliModelFlags *f)
{
  g_clear_pointer (&f->normalization, g_free);
  g_clear_pointer (&f->position_embedding, g_free);
}
