/* models/model-params.c - parameter counts, exact to the element.
 *
 * With h hidden, a query heads, g KV heads, d head_dim, q = a*d, f ffn, V vocab, L layers:
 *   attention  h*q (Q) + 2*h*g*d (K, V) + q*h (O)     [+ q + 2*g*d + h biases]
 *   MLP        SwiGLU 3*h*f (gate, up, down)           [+ 2f + h biases]
 *              GeLU   2*h*f (fc1, fc2)                 [+ f + h biases]
 *   norms      2 per layer, h each (RMSNorm) or 2h (LayerNorm weight + bias); one final
 *   embedding  V*h (+ positions*h when learned) + V*h output head when untied
 * These match the tensors of the transformers implementations (LlamaForCausalLM,
 * GPT2LMHeadModel, GPTNeoXForCausalLM, OPTForCausalLM); the tests check published totals
 * (Llama 3.1 8B 8,030,261,248; GPT-2 124,439,808; OPT-125m 125,239,296; ...). */
#include "models/model.h"

#include <string.h>

/* Learned position rows. OPT's table has 2 extra rows: OPTLearnedPositionalEmbedding
 * offsets positions by 2 (transformers modeling_opt.py), visible in opt-125m's
 * 125,239,296 total. */
static guint64
position_rows (const ModelSpec *spec)
{
  if (spec->pos != MODEL_POS_LEARNED)
    return 0;
  if (spec->model_type != NULL && strcmp (spec->model_type, "opt") == 0)
    return spec->max_positions + 2;
  return spec->max_positions;
}

void
model_spec_params (const ModelSpec *spec, ModelParams *out)
{
  g_return_if_fail (spec != NULL && out != NULL);
  const guint64 h = spec->hidden, f = spec->ffn_hidden, V = spec->vocab;
  const guint64 q = spec->n_heads * spec->head_dim;
  const guint64 kv = spec->n_kv_heads * spec->head_dim;
  const guint64 norm = spec->norm == MODEL_NORM_RMS ? h : 2 * h;

  memset (out, 0, sizeof *out);
  out->attention_per_layer = h * q + 2 * h * kv + q * h;
  if (spec->attn_bias)
    out->attention_per_layer += q + 2 * kv + h;
  if (spec->mlp == MODEL_MLP_SWIGLU)
    out->mlp_per_layer = 3 * h * f + (spec->mlp_bias ? 2 * f + h : 0);
  else
    out->mlp_per_layer = 2 * h * f + (spec->mlp_bias ? f + h : 0);
  out->norms_per_layer = 2 * norm;
  out->per_layer = out->attention_per_layer + out->mlp_per_layer + out->norms_per_layer;
  out->final_norm = norm;
  out->input_embedding = V * h + position_rows (spec) * h;
  out->output_head = spec->tied_embeddings ? 0 : V * h;
  out->embedding = out->input_embedding + out->output_head;
  out->total = spec->n_layers * out->per_layer + out->final_norm + out->embedding;
  out->non_embedding = out->total - out->embedding;
}

/* N of the PaLM convention: see model.h. The token table is a lookup (no FLOPs) unless it
 * doubles as the output projection; the position table is always a lookup. */
guint64
model_spec_palm_params (const ModelSpec *spec)
{
  ModelParams p;
  model_spec_params (spec, &p);
  guint64 lookup = position_rows (spec) * spec->hidden;
  if (!spec->tied_embeddings)
    lookup += spec->vocab * spec->hidden;
  return p.total - lookup;
}
