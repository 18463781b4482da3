/* cli/cli-model-flags.h - a model described by Megatron-LM's flags instead of --model:
 * --num-layers, --hidden-size, --num-attention-heads, --ffn-hidden-size,
 * --num-query-groups / --group-query-attention, --vocab-size (padded as Megatron pads it),
 * --max-position-embeddings, --swiglu, --untie-embeddings-and-output-weights,
 * --normalization, --position-embedding-type, --kv-channels; mixture of experts:
 * --num-experts and --moe-router-topk (plan flags, see below), --moe-ffn-hidden-size,
 * --moe-shared-expert-intermediate-size, --moe-layer-freq.
 *
 * Contract:
 *  - The flags build the same ModelSpec as a config.json would (model_spec_new_custom):
 *    --swiglu means the Llama family (SwiGLU, RMSNorm, rotary), else the GPT family
 *    (GeLU, LayerNorm, learned positions), which are the two Megatron-LM's GPT model
 *    trains in practice; --normalization and --position-embedding-type must agree.
 *  - Defaults are Megatron-LM's (megatron/training/arguments.py): ffn 4h, or with
 *    --swiglu int(4h x 2/3 / 64) x 64; KV heads = heads; the vocabulary padded to a
 *    multiple of --make-vocab-size-divisible-by (128) x tp; embeddings tied.
 *  - --kv-channels is the head size (Megatron's kv_channels, default h / a): the Q, K, V
 *    and output projections are a x kv_channels wide.
 *  - Mixture of experts: --num-experts and --moe-router-topk are plan flags that restate
 *    the model (plan_moe); with a model by flags they describe it: the model built has
 *    --num-experts routed experts per MoE layer, top-k --moe-router-topk (Megatron's
 *    default 2), each expert an MLP of --moe-ffn-hidden-size (default --ffn-hidden-size),
 *    shared experts of --moe-shared-expert-intermediate-size in all, a softmax router
 *    (h x E, no bias), as Megatron-Core's MoE layer. The plan then reads the
 *    same numbers from the model, so both paths agree. The MoE-only flags without
 *    --num-experts are refused.
 *  - --moe-layer-freq is Megatron's: an integer N (1: every layer MoE) or a Python list
 *    expression of 0/1 per layer such as "[0]*3+[1]*58" (three dense layers first, as
 *    DeepSeek-V3's first_k_dense_replace) or "([0]+[1])*24". tandem represents K leading
 *    dense layers then every S-th layer MoE ((i - K + 1) % S == 0); a pattern outside
 *    that form is refused with the reason.
 *  - Never prints: problems come back as a GError (PLAN_ERROR_USAGE) to print. */
#pragma once

#include <glib.h>
#include "models/model.h"
#include "plan/plan.h"

G_BEGIN_DECLS

typedef struct {
  int      num_layers, hidden, heads, query_groups, ffn, vocab, max_positions;
  int      vocab_divisible;      /* --make-vocab-size-divisible-by; 0 = 128 */
  gboolean swiglu, gqa, untie;
  char    *normalization;        /* "LayerNorm", "RMSNorm" or NULL */
  char    *position_embedding;   /* "learned_absolute", "rope" or NULL */
  int      kv_channels;          /* --kv-channels: head size; 0 = h / a */
  int      moe_ffn;              /* --moe-ffn-hidden-size; 0 = --ffn-hidden-size */
  int      moe_shared_ffn;       /* --moe-shared-expert-intermediate-size; 0 = none */
  char    *moe_layer_freq;       /* --moe-layer-freq as typed; NULL = every layer */
} CliModelFlags;

/* The option group; the flags land in *f (zeroed by the caller). */
GOptionGroup *cli_model_flags_group (CliModelFlags *f);
/* Its entries as a NULL-terminated table, to read their names and which take a value;
 * never parse with it. */
const GOptionEntry *cli_model_flags_entries (void);
gboolean      cli_model_flags_given (const CliModelFlags *f);
/* The model, for `plan` as parsed (not yet resolved): its tp pads the vocabulary, its
 * seq_length is the default context, its num_experts and moe_topk make the model a MoE;
 * NULL with error set when a flag is missing or inconsistent. */
ModelSpec    *cli_model_flags_build (const CliModelFlags *f, const Plan *plan, GError **error);
void          cli_model_flags_clear (CliModelFlags *f);

G_END_DECLS
