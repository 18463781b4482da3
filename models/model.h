/* models/model.h - a dense transformer described by a Hugging Face config.json.
 *
 * Contract:
 *  - A ModelSpec is immutable once loaded and shared through ref/unref.
 *  - Fields are public for reading; never write them after load.
 *  - Sizes are element counts (not bytes); FLOPs are double (they overflow 64-bit
 *    integers for whole steps of large models only in exotic cases, but doubles keep the
 *    conventions uniform).
 *  - Loading never prints; failures come back as MODEL_ERROR GErrors that name the file
 *    and the field.
 *  - Presets are shipped as config.json files compiled into the binary (GResource
 *    /tandem/models/NAME.json) and found by name. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define MODEL_ERROR (model_error_quark ())
GQuark model_error_quark (void);

typedef enum {
  MODEL_ERROR_NOT_FOUND,      /* no preset or file of that name */
  MODEL_ERROR_PARSE,          /* malformed JSON */
  MODEL_ERROR_MISSING_FIELD,  /* a required field is absent */
  MODEL_ERROR_INVALID_FIELD,  /* a field has the wrong type, or contradicts another */
  MODEL_ERROR_UNSUPPORTED,    /* model_type or feature tandem does not model */
} ModelError;

/* Limits with reasons (issue 15). A config beyond one is refused at load with the cap
 * named. Each sits far above every published dense model (widest: Megatron 1T, hidden
 * 25,600, 160 heads; deepest: Llama 3.1 405B 126 layers; FFN: PaLM 540B 73,728; vocab:
 * Gemma 256,000; context: Llama 4 Scout 10,485,760), and together they keep every
 * parameter and element count exact in 64 bits: one layer holds at most
 * 4 h q + 3 h f < 2^45 elements, times 4,096 layers < 2^58. */
#define MODEL_MAX_HIDDEN    (G_GUINT64_CONSTANT (1) << 20)  /* 1,048,576: h */
#define MODEL_MAX_FFN       (G_GUINT64_CONSTANT (1) << 22)  /* 4,194,304: f, and q = a d */
#define MODEL_MAX_LAYERS    G_GUINT64_CONSTANT (4096)
#define MODEL_MAX_HEADS     (G_GUINT64_CONSTANT (1) << 16)  /* 65,536: a, and d_head */
#define MODEL_MAX_VOCAB     (G_GUINT64_CONSTANT (1) << 24)  /* 16,777,216: V */
#define MODEL_MAX_POSITIONS (G_GUINT64_CONSTANT (1) << 24)  /* 16,777,216 tokens */

/* NULL when the sizes are within the limits above and consistent (kv heads divide the
 * heads); else a sentence saying which is not, for the loaders' messages. */
char *model_sizes_problem (guint64 hidden, guint64 ffn_hidden, guint64 n_layers,
                           guint64 n_heads, guint64 n_kv_heads, guint64 head_dim,
                           guint64 vocab, guint64 positions);

typedef enum {
  MODEL_MLP_SWIGLU,           /* gate, up (h x ffn each) and down (ffn x h): llama family */
  MODEL_MLP_GELU,             /* fc1 (h x ffn) and fc2 (ffn x h): gpt2 / gpt_neox / opt */
} ModelMlpKind;

typedef enum {
  MODEL_NORM_RMS,             /* weight only (h) */
  MODEL_NORM_LAYER,           /* weight and bias (2h) */
} ModelNormKind;

typedef enum {
  MODEL_POS_ROTARY,           /* no parameters */
  MODEL_POS_LEARNED,          /* max_position_embeddings x h table */
} ModelPosKind;

typedef struct {
  int           ref_count;
  char         *name;           /* preset name or file basename without extension */
  char         *source;         /* path, or "preset:NAME" */
  char         *model_type;     /* "llama", "gpt2", "gpt_neox", "opt", ... */
  char         *config_json;    /* the raw file text, stored with results */

  guint64       hidden;         /* h */
  guint64       ffn_hidden;     /* MLP inner size */
  guint64       n_layers;       /* L */
  guint64       n_heads;        /* query heads a */
  guint64       n_kv_heads;     /* KV heads (== n_heads without GQA) */
  guint64       head_dim;       /* d_head; h / a unless the config says otherwise */
  guint64       vocab;          /* V */
  guint64       max_positions;  /* context the config was trained for */

  ModelMlpKind  mlp;
  ModelNormKind norm;
  ModelPosKind  pos;
  gboolean      tied_embeddings; /* output projection shares the input embedding */
  gboolean      attn_bias;       /* q/k/v/o projections carry biases */
  gboolean      mlp_bias;        /* MLP matrices carry biases */
} ModelSpec;

/* Loaders. `name_or_path` is a preset name, a path to a config.json, or a directory
 * holding one. */
ModelSpec *model_spec_lookup          (const char *name_or_path, GError **error);
ModelSpec *model_spec_load_file       (const char *path, GError **error);
ModelSpec *model_spec_load_preset     (const char *name, GError **error);
ModelSpec *model_spec_new_from_data   (const char *json_text, gssize length,
                                       const char *source, GError **error);
/* Builds a spec directly from architecture numbers (used by `tandem validate` for rows of
 * published runs). ffn_hidden 0 means 4h; n_kv_heads 0 means n_heads. */
ModelSpec *model_spec_new_custom      (const char *name, ModelMlpKind mlp, guint64 hidden,
                                       guint64 ffn_hidden, guint64 n_layers, guint64 n_heads,
                                       guint64 n_kv_heads, guint64 vocab, guint64 seq,
                                       gboolean tied_embeddings);
ModelSpec *model_spec_ref             (ModelSpec *spec);
void       model_spec_unref           (ModelSpec *spec);                /* NULL-safe */
/* NULL-terminated, sorted list of the shipped preset names; free with g_strfreev. */
char     **model_preset_names         (void);

/* Parameter counts (elements). */
typedef struct {
  guint64 total;
  guint64 embedding;        /* input embedding (+ learned positions) + untied output head */
  guint64 non_embedding;    /* total - embedding */
  guint64 per_layer;        /* one transformer block */
  guint64 attention_per_layer;
  guint64 mlp_per_layer;
  guint64 norms_per_layer;
  guint64 final_norm;
  guint64 input_embedding;  /* V x h (+ positions) */
  guint64 output_head;      /* V x h, 0 when tied */
} ModelParams;

void model_spec_params (const ModelSpec *spec, ModelParams *out);

/* N of the PaLM convention (6N + 12 L H d_head s): every parameter that multiplies
 * activations, i.e. the total less the tables that are only looked up (learned positions,
 * and the token table when the output head is untied; a tied table is the output
 * projection and stays in). The PaLM paper counts "the number of parameters" of a model
 * whose only embedding is tied; torchtitan subtracts nn.Embedding, which is the same rule
 * for untied Llama models. Llama 3.1 405B: 405,853,388,800 - 128256 x 16384. */
guint64 model_spec_palm_params (const ModelSpec *spec);

/* ---- Per-layer operations: the raw material of the step program ---------------------- */

typedef enum {
  MODEL_OP_GEMM,        /* y[m,n] = x[m,k] W[k,n]; m is tokens (b*s), weights k x n */
  MODEL_OP_ATTENTION,   /* attention core softmax(QK^T)V: flash (no S x S stored), or
                         * unfused with `materialized` */
  MODEL_OP_NORM,        /* RMSNorm / LayerNorm over h */
  MODEL_OP_ELEMENTWISE, /* activation (SwiGLU / GeLU), residual add, rotary */
  MODEL_OP_EMBEDDING,   /* token (+ position) lookup */
  MODEL_OP_LOSS,        /* softmax cross-entropy over V */
} ModelOpKind;

typedef enum {
  MODEL_PART_EMBEDDING,   /* first pipeline stage only */
  MODEL_PART_LAYER,       /* one per transformer block */
  MODEL_PART_HEAD,        /* final norm, logits, loss: last stage only */
} ModelPart;

typedef struct {
  const char *name;       /* "qkv", "attn_core", "attn_out", "mlp_up", ... (static) */
  ModelOpKind kind;
  ModelPart   part;
  /* GEMM: m (tokens) x k (in) -> n (out). For the whole, unsplit model. */
  guint64     m, n, k;
  /* ATTENTION: batch b, heads, s_q, s_kv, head_dim, kv_heads */
  guint64     b, heads, kv_heads, s_q, s_kv, head_dim;
  gboolean    causal;
  /* ATTENTION run unfused (plan --attention-backend unfused): the b x heads x s_q x s_kv
   * scores are written to memory, QK^T and AV run as full batched GEMMs (fwd_flops is
   * then the executed, non-causal count), softmax and, with `dropout`, the attention
   * dropout are passes over the scores. FALSE: FlashAttention. */
  gboolean    materialized;
  gboolean    dropout;
  /* ELEMENTWISE / NORM / EMBEDDING / LOSS: elements touched */
  guint64     elements;
  double      fwd_flops;        /* forward FLOPs for the whole op (causal where applicable) */
  double      fwd_flops_full;   /* same with attention counted non-causal */
  guint64     weight_params;    /* parameters owned by this op */
  /* how tensor parallelism splits it: 'c' column (n split), 'r' row (k split),
   * 'h' heads split, 'v' vocab split, 'n' none (replicated, or split by SP) */
  char        tp_split;
} ModelOp;

/* Fills `ops` (an array of ModelOp) with the ops of embedding, one representative layer,
 * and the head, for micro-batch `b` of `seq` tokens. Returns the number appended. */
guint model_spec_ops (const ModelSpec *spec, guint64 b, guint64 seq, GArray *ops);
/* Notes on the list (model-ops.c has the per-element FLOP constants):
 *  - order: embedding; attn_norm, qkv, rotary (rotary models only), attn_core, attn_out,
 *    attn_residual, mlp_norm, mlp_up (gate and up fused, n = 2 ffn, for SwiGLU), mlp_act,
 *    mlp_down, mlp_residual; final_norm, logits, loss.
 *  - GEMM fwd_flops are 2*m*n*k without bias adds; attention fwd_flops_full is
 *    4*b*s_q*s_kv*heads*head_dim and fwd_flops half of it (causal).
 *  - weight_params: embedding + n_layers x layer ops + head ops == model_spec_params total;
 *    a tied logits op owns 0 (it reads the embedding's table). */

/* ---- FLOPs --------------------------------------------------------------------------- */

typedef enum {
  MODEL_FLOPS_MEGATRON96,  /* Narayanan et al. SC'21: 96 B s L h^2 (1 + s/6h + V/16Lh), incl. recompute */
  MODEL_FLOPS_MEGATRON72,  /* Korthikanti et al.: 72 B s L h^2 (1 + s/6h + V/12Lh) */
  MODEL_FLOPS_MCORE,       /* Megatron-Core num_floating_point_operations, non-causal */
  MODEL_FLOPS_CAUSAL,      /* the same with the s x s attention term halved */
  MODEL_FLOPS_PALM,        /* 6N + 12 L H d_head s per token (PaLM, Llama 3, torchtitan) */
  MODEL_FLOPS_N_CONVENTIONS,
} ModelFlopConvention;

const char *model_flop_convention_name  (ModelFlopConvention conv);  /* "megatron96", ... */
/* The formula (per step or per token, as its source writes it), where it comes from, and
 * how it counts the s x s attention term ("non-causal", "causal", ...): one line each. */
const char *model_flop_convention_formula   (ModelFlopConvention conv);
const char *model_flop_convention_source    (ModelFlopConvention conv);
const char *model_flop_convention_attention (ModelFlopConvention conv);
gboolean    model_flop_convention_parse (const char *name, ModelFlopConvention *out);

/* Model FLOPs per token (forward + backward) at sequence length `seq`. */
double model_spec_flops_per_token (const ModelSpec *spec, guint64 seq, ModelFlopConvention conv);

/* Hardware FLOPs per token: the FLOPs the GPUs really execute (causal attention as
 * FlashAttention does it, plus the recomputed forward work). `recompute_fraction` is the
 * fraction of the layer forward FLOPs recomputed (0 none, 1 full; selective recompute of
 * the attention core passes the attention share). */
double model_spec_hw_flops_per_token (const ModelSpec *spec, guint64 seq,
                                      double recompute_fraction);

/* Forward FLOPs of one layer per token, split into parts (causal attention). */
typedef struct {
  double gemm;           /* qkv, out proj, mlp */
  double attention;      /* QK^T and AV, causal */
  double attention_full; /* non-causal */
} ModelLayerFlops;
void model_spec_layer_fwd_flops_per_token (const ModelSpec *spec, guint64 seq,
                                           ModelLayerFlops *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ModelSpec, model_spec_unref)

G_END_DECLS
