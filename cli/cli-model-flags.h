/* cli/cli-model-flags.h - a model described by Megatron-LM's flags instead of --model:
 * --num-layers, --hidden-size, --num-attention-heads, --ffn-hidden-size,
 * --num-query-groups / --group-query-attention, --vocab-size (padded as Megatron pads it),
 * --max-position-embeddings, --swiglu, --untie-embeddings-and-output-weights,
 * --normalization, --position-embedding-type.
 *
 * Contract:
 *  - The flags build the same ModelSpec as a config.json would (model_spec_new_custom):
 *    --swiglu means the Llama family (SwiGLU, RMSNorm, rotary), else the GPT family
 *    (GeLU, LayerNorm, learned positions), which are the two Megatron-LM's GPT model
 *    trains in practice; --normalization and --position-embedding-type must agree.
 *  - Defaults are Megatron-LM's (megatron/training/arguments.py): ffn 4h, or with
 *    --swiglu int(4h x 2/3 / 64) x 64; KV heads = heads; the vocabulary padded to a
 *    multiple of --make-vocab-size-divisible-by (128) x tp; embeddings tied.
 *  - Never prints: problems come back as a GError (PLAN_ERROR_USAGE) to print. */
#pragma once

#include <glib.h>
#include "models/model.h"

G_BEGIN_DECLS

typedef struct {
  int      num_layers, hidden, heads, query_groups, ffn, vocab, max_positions;
  int      vocab_divisible;      /* --make-vocab-size-divisible-by; 0 = 128 */
  gboolean swiglu, gqa, untie;
  char    *normalization;        /* "LayerNorm", "RMSNorm" or NULL */
  char    *position_embedding;   /* "learned_absolute", "rope" or NULL */
} CliModelFlags;

/* The option group; the flags land in *f (zeroed by the caller). */
GOptionGroup *cli_model_flags_group (CliModelFlags *f);
gboolean      cli_model_flags_given (const CliModelFlags *f);
/* The model, for a plan of tensor parallelism `tp` and sequence length `seq` (0: none
 * given); NULL with error set when a flag is missing or inconsistent. */
ModelSpec    *cli_model_flags_build (const CliModelFlags *f, int tp, int seq, GError **error);
void          cli_model_flags_clear (CliModelFlags *f);

G_END_DECLS
