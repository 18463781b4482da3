/* models/model.h - a transformer (dense or mixture of experts) described by a Hugging Face
 * config.json.
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
/* Routed experts per MoE layer, E: the most in a published model is 384 (Kimi K2;
 * DeepSeek-V3 256, Qwen3-MoE 128); research models with far finer experts exist, so the cap
 * is 2^14 = 16,384 (40x that), not the count itself. */
#define MODEL_MAX_EXPERTS   (G_GUINT64_CONSTANT (1) << 14)
/* E x moe_ffn, the inner width of all routed experts of one layer together (DeepSeek-V3
 * 256 x 2,048 = 524,288; Mixtral 8x22B 8 x 16,384 = 131,072): capped at 2^24, 4x the dense
 * FFN cap, so one MoE layer holds < 3 h E f <= 3 x 2^44 expert elements and 4,096 layers
 * < 2^58: counts stay exact in 64 bits. */
#define MODEL_MAX_EXPERT_WIDTH (G_GUINT64_CONSTANT (1) << 24)

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
  MODEL_NORM_LAYER_NOBIAS,    /* LayerNorm (mean subtracted) with a weight only (h): DBRX
                               * nn.LayerNorm(bias=False), Cohere CohereLayerNorm */
} ModelNormKind;

typedef enum {
  MODEL_POS_ROTARY,           /* no parameters */
  MODEL_POS_LEARNED,          /* max_position_embeddings x h table */
  MODEL_POS_ALIBI,            /* ALiBi (BLOOM, Falcon with alibi): a fixed per-head slope times
                               * the key distance added to the scores; no parameters and no
                               * rotary op; the bias add inside the attention kernel is not
                               * counted (as softmax is not) */
  MODEL_POS_NONE,             /* no position encoding at all (Nemotron-H: its Mamba layers
                               * carry order; NemotronHAttention applies no rotary) */
} ModelPosKind;

typedef enum {
  MODEL_ROUTER_SOFTMAX,       /* softmax over the E logits, then top-k (Mixtral, Qwen-MoE) */
  MODEL_ROUTER_SIGMOID,       /* sigmoid per expert, then top-k (DeepSeek-V3, Llama 4) */
} ModelRouterScore;

typedef struct {
  int           ref_count;
  char         *name;           /* preset name or file basename without extension */
  char         *source;         /* path, or "preset:NAME" */
  char         *model_type;     /* "llama", "gpt2", "gpt_neox", "opt", ... */
  char         *config_json;    /* the raw file text, stored with results */
  char         *config_warning; /* NULL, or why a field of the file may not say what its
                                 * author meant (a slip of a field name the family reads:
                                 * "num_key_value_head"); commands print it as a warning */

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
  gboolean      attn_qkv_bias;   /* q/k/v carry biases, o does not (Qwen2, Qwen2-MoE);
                                  * FALSE when attn_bias says all four */
  gboolean      mlp_bias;        /* MLP matrices carry biases (MoE: the experts') */
  gboolean      no_dropout;      /* trained without dropout: its training config sets the
                                  * hidden and attention dropout to 0 (plan_dropout, which
                                  * else gives GeLU models Megatron's 0.1) */
  gboolean      qk_norm;         /* RMSNorm of each head's q and k, head_dim weights each
                                  * (Qwen3, Qwen3-MoE): 2 head_dim per layer */
  gboolean      qk_norm_full;    /* with qk_norm: one RMSNorm over the whole q projection
                                  * (a head_dim weights) and one over the whole k (kv_heads
                                  * head_dim), not per head (OLMo 2: Olmo2Attention q_norm,
                                  * k_norm): (a + kv_heads) head_dim per layer */
  gboolean      attn_sinks;      /* one learned sink logit per head per layer (gpt-oss) */
  gboolean      gelu_gate;       /* gated MLP with GeLU, not SiLU (GeGLU: Gemma 2); the
                                  * shapes are those of MODEL_MLP_SWIGLU */
  guint64       norms_per_block; /* norms of h per layer: 2 (pre-attention, pre-MLP), or 4
                                  * with Gemma 2's post-attention and post-MLP norms, or 1
                                  * where attention and MLP read one shared norm (Falcon-7B,
                                  * Cohere, Phi-2: no mlp_norm op); 0 reads as 2 */
  gboolean      parallel_block;  /* attention and MLP both read the block input and their
                                  * outputs are added to it together (GPT-J style: Falcon,
                                  * Cohere, Phi-2). No count changes; the step program still
                                  * runs the MLP after the attention, so the overlap such a
                                  * block allows is not modelled */
  gboolean      embed_norm;      /* a norm of h right after the token embedding (BLOOM's
                                  * word_embeddings_layernorm), counted in input_embedding */
  gboolean      head_bias;       /* the output head carries a bias of V (Phi-2's lm_head),
                                  * counted in output_head */
  /* Sliding-window attention: layers attending to the last `sliding_window` tokens only
   * (Mistral 7B v0.1: all 32 at 4096; Gemma 2 and gpt-oss: every other layer). 0 = none.
   * Counted in attention FLOPs, not in parameters. */
  guint64       sliding_window;
  guint64       n_sliding_layers;
  /* Chunked local attention (Llama 4): layers whose queries attend causally within their
   * own chunk of `attention_chunk` tokens. 0 = none. Counted in attention FLOPs. */
  guint64       attention_chunk;
  guint64       n_chunked_layers;

  /* ---- Mixture of experts (all 0 / FALSE for a dense model) ----
   * A MoE layer replaces the dense MLP by a router (h x E GEMM, no bias), `moe_top_k`
   * routed experts per token out of `n_experts` (each an MLP of kind `mlp` and inner size
   * `moe_ffn`), and optionally shared experts every token passes through. Attention and
   * norms are as in a dense layer. ffn_hidden stays the inner size of the dense MLP of the
   * dense layers (DeepSeek's first_k_dense_replace layers, Llama 4's interleaved ones);
   * a MoE model without dense layers keeps the config's value there (Mixtral: the expert
   * size) and no op uses it. */
  guint64       n_experts;          /* routed experts per MoE layer, E; 0 = dense model */
  guint64       moe_top_k;          /* routed experts per token, k (1 <= k <= E) */
  guint64       moe_ffn;            /* inner size of one routed expert */
  guint64       n_shared_experts;   /* shared experts (every token), 0 = none */
  guint64       shared_expert_ffn;  /* inner size of the shared experts together (DeepSeek:
                                     * n_shared_experts x moe_ffn; Qwen2-MoE: its
                                     * shared_expert_intermediate_size); 0 when none */
  gboolean      shared_expert_gate; /* Qwen2-MoE: sigmoid gate (h x 1) on the shared output */
  guint64       first_dense_layers; /* leading layers with a dense MLP (DeepSeek
                                     * first_k_dense_replace); 0 = none */
  guint64       moe_layer_step;     /* after those, layer i is MoE when
                                     * (i - first_dense_layers + 1) % step == 0: 1 = every
                                     * layer, 2 = every other (Llama 4 Maverick) */
  ModelRouterScore router_score;
  gboolean      router_norm_topk;   /* the k chosen probabilities renormalised to sum 1 */
  gboolean      router_bias;        /* aux-loss-free balancing bias, E per layer (DeepSeek-V3
                                     * e_score_correction_bias): counted as parameters,
                                     * used only to pick experts */

  /* ---- Multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank 0 = ordinary ----
   * Q: h -> q_lora_rank (+ RMSNorm) -> heads x (qk_nope + qk_rope), or h -> heads x (..)
   *    directly when q_lora_rank is 0 (DeepSeek-V2-Lite);
   * KV: h -> kv_lora_rank + qk_rope (+ RMSNorm over kv_lora_rank) -> heads x (qk_nope + v);
   * O: heads x v_head_dim -> h. head_dim is qk_nope + qk_rope (the QK^T width). */
  guint64       q_lora_rank;
  guint64       kv_lora_rank;
  guint64       qk_rope_head_dim;
  guint64       qk_nope_head_dim;
  guint64       v_head_dim;

  /* DeepSeek-V3 multi-token prediction: modules after the main model, each an RMSNorm of
   * the hidden state and of the next token's embedding (h each), a 2h x h projection, one
   * transformer block (a MoE layer) and a final RMSNorm (h); they share the embedding and
   * the output head with the main model. Counted apart (ModelParams.mtp), never in total. */
  guint64       mtp_layers;

  /* ---- Gated DeltaNet hybrid (Qwen3-Next); full_attn_interval 0 = every layer is full
   * attention ----
   * Layer i (0-based) keeps the model's full attention when (i + 1) % full_attn_interval
   * == 0 and is a Gated DeltaNet linear-attention layer otherwise (Qwen3NextConfig
   * layer_types default; Qwen3-Next-80B-A3B: interval 4, 36 GDN + 12 full). A GDN layer's
   * mixer (transformers Qwen3NextGatedDeltaNet), with key_dim = gdn_k_heads x gdn_k_dim
   * and value_dim = gdn_v_heads x gdn_v_dim: in_proj_qkvz h -> 2 key_dim + 2 value_dim
   * (q, k, v and the output gate z), in_proj_ba h -> 2 gdn_v_heads (beta and the decay
   * input a), a depthwise causal conv1d of gdn_conv taps over q, k, v (2 key_dim +
   * value_dim channels, no bias), dt_bias and A_log (gdn_v_heads each), a gated RMSNorm of
   * gdn_v_dim, out_proj value_dim -> h; no bias anywhere. Its MLP is the model's (MoE). */
  guint64       full_attn_interval;
  guint64       gdn_k_heads, gdn_v_heads, gdn_k_dim, gdn_v_dim, gdn_conv;
  /* Gated attention (Qwen3-Next full-attention layers): q_proj doubles to 2 heads x
   * head_dim, the second half a sigmoid gate on the attention output before o_proj. */
  gboolean      attn_output_gate;
  /* partial_rotary_factor: the fraction of head_dim rotated (Qwen3-Next 0.25); 0 reads as
   * 1. Only the rotary op's elements depend on it. */
  double        rotary_fraction;
  /* gpt-oss's expert activation (GptOssConfig swiglu_limit; transformers GptOssExperts):
   * the gate clamped to at most `glu_limit`, the linear half to +-glu_limit, then
   * gate * sigmoid (1.702 gate) * (linear + 1), Megatron-Core's quick-GEGLU with
   * activation_func_clamp_value and glu_linear_offset 1. 0 = plain SwiGLU / GeGLU. The
   * shapes are those of MODEL_MLP_SWIGLU; only the activation's cost depends on it. */
  double        glu_limit;

  /* ---- Hybrid Mamba-2 models (Nemotron-H: transformers NemotronHConfig, Megatron-Core
   * MambaModel); layer_pattern NULL = none ----
   * One character per layer (hybrid_override_pattern): 'M' a Mamba-2 mixer layer, '*' a
   * self-attention layer, '-' an MLP layer, each with one pre-norm and its own residual.
   * A Mamba-2 mixer (mamba_ssm Mamba2 / Megatron-Core MambaMixer), with d_inner =
   * mamba_heads x mamba_head_dim and G N = mamba_groups x mamba_state: in_proj h ->
   * 2 d_inner + 2 G N + mamba_heads (z, x, B, C, dt), a depthwise causal conv1d of
   * mamba_conv taps over x, B, C (d_inner + 2 G N channels, a bias each with
   * mamba_conv_bias), dt_bias, A_log and D (mamba_heads each), the gated RMSNorm of
   * d_inner (weight d_inner), out_proj d_inner -> h. The chunked SSD scan runs in chunks
   * of mamba_chunk tokens. The MLP layers are ungated (relu2: squared ReLU, the shapes of
   * MODEL_MLP_GELU). */
  char         *layer_pattern;
  guint64       mamba_heads, mamba_head_dim, mamba_groups, mamba_state, mamba_conv,
                mamba_chunk;
  gboolean      mamba_conv_bias;
} ModelSpec;

/* TRUE when the model has routed experts. */
gboolean model_spec_is_moe          (const ModelSpec *spec);
/* TRUE when layer `layer` (0-based, < n_layers) is a MoE layer. */
gboolean model_spec_layer_is_moe    (const ModelSpec *spec, guint64 layer);
/* How many of the n_layers are MoE layers (0 for a dense model). */
guint64  model_spec_n_moe_layers    (const ModelSpec *spec);
/* TRUE for multi-head latent attention. */
gboolean model_spec_is_mla          (const ModelSpec *spec);
/* TRUE when some layers are Gated DeltaNet linear attention (full_attn_interval > 1). */
gboolean model_spec_is_gdn          (const ModelSpec *spec);
/* TRUE when layer `layer` (0-based, < n_layers) is a GDN layer. */
gboolean model_spec_layer_is_linear (const ModelSpec *spec, guint64 layer);
/* How many of the n_layers are GDN layers: n_layers - floor (n_layers / interval); for a
 * hybrid Mamba-2 model its Mamba layers ('M'). */
guint64  model_spec_n_linear_layers (const ModelSpec *spec);
/* TRUE for a hybrid Mamba-2 model (layer_pattern set). Its 'M' layers are also
 * model_spec_layer_is_linear. */
gboolean model_spec_is_mamba        (const ModelSpec *spec);
/* The kind of layer `layer` of a hybrid Mamba-2 model: 'M', '*' or '-'; 0 for any other
 * model or a layer out of range. */
char     model_spec_layer_kind      (const ModelSpec *spec, guint64 layer);
/* How many layers of a hybrid Mamba-2 model are of kind `kind` ('M', '*', '-'). */
guint64  model_spec_n_layers_of_kind (const ModelSpec *spec, char kind);

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
/* A deep copy with its own reference (ref_count 1), for a caller that builds a spec from
 * another one before sharing it (e.g. a published run's MoE columns on top of the dense
 * spec of its other columns). config_json is copied as is: a caller that changes the
 * architecture replaces it (model_spec_set_config_json). */
ModelSpec *model_spec_copy            (const ModelSpec *spec);
/* Replaces config_json (and `source` when not NULL) of a spec not yet shared. */
void       model_spec_set_config_json (ModelSpec *spec, const char *config_json,
                                       const char *source);
/* NULL when the MoE and MLA fields of `spec` are consistent and within the limits (top_k
 * <= E, E <= MODEL_MAX_EXPERTS, E x moe_ffn <= MODEL_MAX_EXPERT_WIDTH, shared_expert_ffn
 * and first_dense_layers in range, a MoE model with moe_ffn and top_k, MLA widths within
 * MODEL_MAX_FFN); else a sentence saying what is not (g_free), for callers that set the
 * fields by hand. A dense spec without MLA is fine. */
char      *model_moe_problem          (const ModelSpec *spec);
ModelSpec *model_spec_ref             (ModelSpec *spec);
void       model_spec_unref           (ModelSpec *spec);                /* NULL-safe */
/* NULL-terminated, sorted list of the shipped preset names; free with g_strfreev. */
char     **model_preset_names         (void);

/* Parameter counts (elements). */
typedef struct {
  guint64 total;            /* the main model (DeepSeek-V3: 671B; MTP modules apart) */
  guint64 embedding;        /* input embedding (+ learned positions) + untied output head */
  guint64 non_embedding;    /* total - embedding */
  guint64 per_layer;        /* one dense transformer block (0 when every layer is MoE) */
  guint64 attention_per_layer;  /* every layer, dense or MoE */
  guint64 mlp_per_layer;    /* dense MLP of a dense layer (0 when every layer is MoE) */
  guint64 norms_per_layer;
  guint64 final_norm;
  guint64 input_embedding;  /* V x h (+ positions) */
  guint64 output_head;      /* V x h, 0 when tied */

  /* Per token: the parameters one token's forward pass multiplies or looks up, i.e. total
   * less the routed experts it does not visit ((E - k) x expert per MoE layer); the
   * convention of the published "active" counts (Mixtral 8x7B 12.9B, DeepSeek-V3 37B).
   * Equal to total for a dense model. */
  guint64 active;
  /* MoE parts (0 for a dense model) */
  guint64 n_dense_layers;   /* layers with a dense MLP (per_layer each) */
  guint64 n_moe_layers;     /* layers with routed experts (per_moe_layer each) */
  guint64 per_moe_layer;    /* one MoE block: attention + norms + router + experts + shared */
  guint64 expert;           /* one routed expert (an MLP of inner size moe_ffn) */
  guint64 experts_per_layer;    /* E x expert */
  guint64 shared_per_layer;     /* the shared experts together (+ their gate) */
  guint64 router_per_layer;     /* h x E (+ E balancing biases) */
  guint64 experts;          /* routed experts of the whole model: n_moe_layers x E x expert */
  /* DeepSeek-V3 multi-token prediction, apart from total: mtp_layers x (one MoE block +
   * 2h x h projection + three RMSNorms); the shared embedding and head not counted again. */
  guint64 mtp;
  guint64 mtp_active;       /* the same per token (k routed experts) */
  /* Gated DeltaNet hybrid (0 without): the n_linear_layers GDN layers hold
   * linear_attention_per_layer in place of attention_per_layer (per_layer and
   * per_moe_layer stay those of a full-attention layer), so total = n_dense x per_layer +
   * n_moe x per_moe_layer + n_linear x (linear_attention_per_layer - attention_per_layer)
   * + final_norm + embedding. */
  guint64 n_linear_layers;
  guint64 linear_attention_per_layer;
  /* Hybrid Mamba-2 (0 without): every layer has one pre-norm (norms_per_layer = one
   * norm) and one part: n_linear_layers Mamba mixers (linear_attention_per_layer each),
   * n_attn_layers attentions (attention_per_layer) and n_mlp_layers ungated MLPs
   * (mlp_per_layer); per_layer and n_dense_layers stay 0, and total = n_linear x
   * linear_attention_per_layer + n_attn x attention_per_layer + n_mlp x mlp_per_layer
   * + n_layers x norms_per_layer + final_norm + embedding. */
  guint64 n_attn_layers;
  guint64 n_mlp_layers;
} ModelParams;

void model_spec_params (const ModelSpec *spec, ModelParams *out);

/* N of the PaLM convention (6N + 12 L H d_head s): every parameter that multiplies
 * activations, i.e. the total less the tables that are only looked up (learned positions,
 * and the token table when the output head is untied; a tied table is the output
 * projection and stays in). The PaLM paper counts "the number of parameters" of a model
 * whose only embedding is tied; torchtitan subtracts nn.Embedding, which is the same rule
 * for untied Llama models. Llama 3.1 405B: 405,853,388,800 - 128256 x 16384. A MoE
 * model's N starts from the active count (ModelParams.active), not the total. */
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
  MODEL_OP_GROUPED_GEMM, /* `groups` independent GEMMs, group g: y[m_g,n] = x[m_g,k] W_g[k,n]
                          * (the routed experts of a MoE layer). m is the tokens of one
                          * group at perfect balance (tokens x top_k / E, rounded up), n and
                          * k the per-expert shape; fwd_flops = 2 x tokens x top_k x n x k
                          * (the routed tokens, not groups x m); weight_params all groups. */
  MODEL_OP_GDN,         /* the chunked gated delta rule of a Gated DeltaNet layer
                         * (flash-linear-attention chunk_gated_delta_rule): b sequences of
                         * s_q tokens, `heads` value heads (q and k repeated from kv_heads
                         * key heads), head_dim d_k, head_dim_v d_v, chunks of `chunk`
                         * tokens; fwd_flops == fwd_flops_full (model_spec_gdn_core_flops:
                         * nothing is masked away) */
} ModelOpKind;

typedef enum {
  MODEL_PART_EMBEDDING,   /* first pipeline stage only */
  MODEL_PART_LAYER,       /* one per transformer block */
  MODEL_PART_HEAD,        /* final norm, logits, loss: last stage only */
  MODEL_PART_MOE_LAYER,   /* one per MoE transformer block (model_spec_layer_is_moe) */
  /* Gated DeltaNet hybrids only: their layers' token mixers are listed apart from their
   * MLPs (which stay MODEL_PART_LAYER / MODEL_PART_MOE_LAYER) */
  MODEL_PART_FULL_ATTN,   /* attn_norm .. mlp_norm of a full-attention layer, one per
                           * full-attention layer (n_layers - n_linear_layers) */
  MODEL_PART_LINEAR_ATTN, /* attn_norm .. mlp_norm of a GDN layer, one per GDN layer */
} ModelPart;

typedef struct {
  const char *name;       /* "qkv", "attn_core", "attn_out", "mlp_up", ... (static) */
  ModelOpKind kind;
  ModelPart   part;
  /* GEMM: m (tokens) x k (in) -> n (out). For the whole, unsplit model.
   * GROUPED_GEMM: the same per group, `groups` of them, `tokens` rows routed in all
   * (tokens x top_k; m = ceil (tokens / groups)). */
  guint64     m, n, k;
  guint64     groups, tokens;
  /* ATTENTION: batch b, heads, s_q, s_kv, head_dim (of Q and K), kv_heads; head_dim_v the
   * width of V and the output per head (MLA: v_head_dim; else head_dim) */
  guint64     b, heads, kv_heads, s_q, s_kv, head_dim, head_dim_v;
  gboolean    causal;
  /* ATTENTION run unfused (plan --attention-backend unfused): the b x heads x s_q x s_kv
   * scores are written to memory, QK^T and AV run as full batched GEMMs (fwd_flops is
   * then the executed, non-causal count), softmax and, with `dropout`, the attention
   * dropout are passes over the scores. FALSE: FlashAttention. */
  gboolean    materialized;
  gboolean    dropout;
  /* ATTENTION: the sliding window of the model's windowed layers (0: none); with windows
   * or chunked layers fwd_flops are the average over all layers
   * (model_spec_attention_keys) */
  guint64     window;
  /* ATTENTION: the share of the layers the op stands for that attend within `window`
   * (n_sliding_layers / n_layers; the others attend to all s keys). The step program's
   * attention op stands for every layer of its block; the cost model charges the
   * windowed share at the window's FLOPs and kernel rate (sim/cost-compute.c) */
  double      window_share;
  /* GDN: the chunk length of the chunked delta rule (MODEL_GDN_CHUNK) */
  guint64     chunk;
  /* ELEMENTWISE / NORM / EMBEDDING / LOSS: elements touched */
  guint64     elements;
  double      fwd_flops;        /* forward FLOPs for the whole op (causal where applicable) */
  double      fwd_flops_full;   /* same with attention counted non-causal */
  /* ATTENTION: the share of fwd_flops that runs in kernels without the causal mask (ring
   * context parallelism's off-diagonal blocks, plan/program-blocks.c); 0: all causal */
  double      noncausal_share;
  /* ATTENTION: the query length one kernel call runs at (the sequence; a ring step's s/c
   * block; an all-gathered K/V chunk's s/2c queries), which sets its efficiency
   * (sim/cost-compute.c); 0: s_kv */
  guint64     kernel_s;
  guint64     weight_params;    /* parameters owned by this op */
  /* how tensor parallelism splits it: 'c' column (n split), 'r' row (k split),
   * 'h' heads split, 'v' vocab split, 'n' none (replicated, or split by SP) */
  char        tp_split;
} ModelOp;

/* The chunk length of flash-linear-attention's chunked gated delta rule (its
 * chunk_gated_delta_rule kernels tile the sequence in chunks of BT = 64 tokens; the
 * transformers reference torch_chunk_gated_delta_rule defaults to chunk_size 64). */
#define MODEL_GDN_CHUNK G_GUINT64_CONSTANT (64)

/* Forward FLOPs per token of the chunked gated delta rule of one GDN layer, over its
 * `v_heads` value heads of key width d_k and value width d_v, chunks of C tokens (the
 * matmuls of flash-linear-attention's chunk_gated_delta_rule; the transformers
 * reference torch_chunk_gated_delta_rule has the same ones), per token and head:
 *   within its chunk (C x C blocks, counted whole as the kernels compute them):
 *     K_beta K^T            2 C d_k     (the chunk's delta-rule system)
 *     (I + A)^-1            C^2 / 3     (forward substitution, C^3 / 3 per chunk)
 *     W = T (K_beta e^g)    2 C d_k
 *     U = T V_beta          2 C d_v
 *     Q K^T                 2 C d_k     (intra-chunk scores)
 *     scores x V_new        2 C d_v
 *   against the d_k x d_v state S carried between chunks:
 *     V_new = U - W S       2 d_k d_v
 *     Q S                   2 d_k d_v   (inter-chunk output)
 *     S += K^T V_new        2 d_k d_v   (state update)
 *   sum: 6 d_k d_v + 2 C (3 d_k + 2 d_v) + C^2 / 3. Qwen3-Next (d_k = d_v = 128, C = 64,
 *   32 value heads): 32 x (98,304 + 81,920 + 1,365.33) = 5,810,858.7 per token and GDN
 *   layer, 8.6% of its projections' 2 x 33,685,504. Gates, the L2 norms of q and k and
 *   the exponentials are element-wise and not counted (as softmax is not). */
double model_spec_gdn_core_flops (guint64 v_heads, guint64 d_k, guint64 d_v, guint64 chunk);

/* Forward FLOPs per token of the chunked SSD scan of one Mamba-2 layer (Dao & Gu 2024,
 * "Transformers are SSMs", Sec. 6 / Listing 1 ssd_minimal_discrete; mamba_ssm's
 * mamba_chunk_scan_combined runs the same four steps as Triton kernels), over `heads`
 * heads of width P, state size N, `groups` groups of B and C, chunks of Q tokens, per token:
 *   1. intra-chunk scores C_t B_s^T     2 Q N x groups  (Q x Q per chunk and group,
 *                                        counted whole as the kernel computes it)
 *   1b. (scores . decay) x X            2 Q P x heads
 *   2. chunk states B^T (decay x X)     2 N P x heads
 *   3. state passing between chunks     2 N P x heads / Q (one state update per chunk)
 *   4. state to output C x state        2 N P x heads
 *   sum: heads P (2 Q + 4 N + 2 N / Q) + 2 Q N groups. Nemotron-H 56B (256 heads of 64,
 *   N 256, 8 groups, Q 128): 256 x 64 x (256 + 1,024 + 4) + 2 x 128 x 256 x 8 =
 *   21,037,056 + 524,288 = 21,561,344 per token and layer, 2.5% of its projections'
 *   2 x 438,304,768 = 876,609,536 (Megatron-Core's estimate, 7 d_inner N, is
 *   29,360,128: model-flops.c). The exponentials of the decays,
 *   dt's softplus and the D skip are element-wise and not counted (as softmax is not). */
double model_spec_mamba_scan_flops (guint64 heads, guint64 head_dim, guint64 state,
                                    guint64 groups, guint64 chunk);
/* The rotated width of one head: head_dim x rotary_fraction (Qwen3-Next 64 of 256). */
guint64 model_spec_rotary_dim (const ModelSpec *spec);

/* Fills `ops` (an array of ModelOp) with the ops of embedding, one representative layer,
 * and the head, for micro-batch `b` of `seq` tokens. Returns the number appended.
 * A MoE model has one representative dense layer (MODEL_PART_LAYER) only when it has dense
 * layers, and one representative MoE layer (MODEL_PART_MOE_LAYER). */
guint model_spec_ops (const ModelSpec *spec, guint64 b, guint64 seq, GArray *ops);
/* Notes on the list (model-ops.c has the per-element FLOP constants):
 *  - order: embedding; attn_norm, qkv, rotary (rotary models only), attn_core, attn_out,
 *    attn_residual, mlp_norm, mlp_up (gate and up fused, n = 2 ffn, for SwiGLU), mlp_act,
 *    mlp_down, mlp_residual; final_norm, logits, loss.
 *  - GEMM fwd_flops are 2*m*n*k without bias adds; attention fwd_flops_full is
 *    4*b*s_q*s_kv*heads*head_dim and fwd_flops half of it (causal).
 *  - MoE layer: attn_norm .. attn_residual as above (MLA: q_down, q_norm, q_up, kv_down,
 *    kv_norm, kv_up, rotary over the rope dims, attn_core, attn_out), mlp_norm,
 *    router (GEMM h x E, n = E), permute (ELEMENTWISE, tokens x k x h elements: the copy
 *    into expert order), experts_up (GROUPED_GEMM h x 2 moe_ffn for SwiGLU), experts_act
 *    (tokens x k x moe_ffn), experts_down (GROUPED_GEMM moe_ffn x h), unpermute (tokens x
 *    k x h: the copy back and the weighted sum), then with shared experts shared_up,
 *    shared_act, shared_down (GEMMs of inner size shared_expert_ffn) and, Qwen2-MoE,
 *    shared_gate (h x 1); mlp_residual.
 *  - Gated DeltaNet hybrid: the mixers come first as MODEL_PART_FULL_ATTN (attn_norm ..
 *    mlp_norm as above; gated attention adds the gate's h x a d to qkv's n and an
 *    `attn_gate` element-wise op) and MODEL_PART_LINEAR_ATTN: attn_norm, gdn_in_proj
 *    (GEMM h -> 2 K + 2 Vd + 2 Hv: q, k, v, z, beta, a), gdn_conv (ELEMENTWISE over the
 *    2 K + Vd conv channels), gdn_core (MODEL_OP_GDN), gdn_norm (the gated RMSNorm over
 *    Vd), gdn_out (GEMM Vd -> h), attn_residual, mlp_norm; the LAYER / MOE_LAYER parts
 *    then hold only the MLP and mlp_residual.
 *  - Hybrid Mamba-2 (layer_pattern): one representative of each kind, MODEL_PART_LINEAR_ATTN
 *    the Mamba layer (attn_norm, mamba_in_proj, mamba_conv, mamba_scan as a MODEL_OP_GDN
 *    op, mamba_norm, mamba_out, attn_residual), MODEL_PART_FULL_ATTN the attention layer
 *    (attn_norm .. attn_residual) and MODEL_PART_LAYER the MLP layer (mlp_norm, mlp_up,
 *    mlp_act, mlp_down, mlp_residual); their weights times n_linear / n_attn / n_mlp layers.
 *  - weight_params: embedding + n_dense x layer ops + n_moe x MoE layer ops (+ n_full x
 *    full-attention ops + n_linear x GDN ops) + head ops == model_spec_params total; a tied
 *    logits op owns 0 (it reads the embedding's table). */

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

/* FLOPs per token (forward + backward) of DeepSeek-V3's multi-token-prediction modules,
 * apart from model_spec_flops_per_token (which counts the main model only): per module
 * the 2h x h projection, one MoE block (active weights, attention at `seq`, causal
 * halved when `causal`) and its logits (h x V, the shared head), x 3 passes. 0 without
 * MTP. A caller that trains with MTP adds it. */
double model_spec_mtp_flops_per_token (const ModelSpec *spec, guint64 seq, gboolean causal);

/* NULL when `conv` applies to `spec`; else why not (one sentence with the alternatives).
 * megatron96 and megatron72 assume a dense MLP of ffn = 4h and ordinary attention, and
 * are refused for MoE and MLA models. */
const char *model_flop_convention_refusal (const ModelSpec *spec, ModelFlopConvention conv);
/* The formula as it applies to `spec`: model_flop_convention_formula, or for a MoE or MLA
 * model the generalised form that model_spec_flops_per_token computes. */
const char *model_flop_convention_formula_for (const ModelSpec *spec, ModelFlopConvention conv);

/* Keys one query attends to, counted non-causally and averaged over the layers: `seq`
 * for full attention; a layer with a sliding window W < seq attends causally to
 * W s - W^2/2 of the s^2/2 pairs, which the non-causal count doubles: 2W - W^2/s; a
 * chunked layer (chunk C, s = n C + r) to n C^2/2 + r^2/2 pairs: (n C^2 + r^2)/s. The
 * causal conventions halve it like the full count. */
double model_spec_attention_keys (const ModelSpec *spec, guint64 seq);

/* A sliding window W under all-gather context parallelism over `cp` ranks (Megatron-Core
 * cp_comm_type all_gather, Transformer Engine's AttnFuncWithCPAndKVAllGather; Llama 3
 * paper Sec. 3.3.2): the sequence of s tokens is cut into 2 cp chunks of L = s/2cp, rank r
 * holds chunks r and 2cp - 1 - r and each of its queries at position p attends causally
 * to min (p, W) keys (TE slices the gathered K/V to the window before the kernel:
 * get_kv_seq_info_after_all_gather). Returns the query-key pairs of the busiest rank,
 * which the others wait for, over a rank's pairs without the window, L s (continuous
 * counts, as model_spec_attention_keys); cp = 1 gives (2W - W^2/s)/s. 1 when W >= s. */
double model_window_pairs_ratio_cp (double s, double W, guint64 cp);

/* Model FLOPs per token (forward + backward) at sequence length `seq`; 0 for a refused
 * convention. For MoE and MLA models mcore, causal and palm count what one token's pass
 * multiplies: attention projections (MLA's down and up projections), dense MLPs of the
 * dense layers, and per MoE layer the router (h x E), top_k experts and the shared
 * experts, plus the logits; attention 2 s a (d_qk + d_v) per layer forward (halved for
 * causal); x 3 for forward + backward. palm is 6 N_active + that attention term. */
double model_spec_flops_per_token (const ModelSpec *spec, guint64 seq, ModelFlopConvention conv);

/* Hardware FLOPs per token: the FLOPs the GPUs really execute (causal attention as
 * FlashAttention does it, plus the recomputed forward work). `recompute_fraction` is the
 * fraction of the layer forward FLOPs recomputed (0 none, 1 full; selective recompute of
 * the attention core passes the attention share). */
double model_spec_hw_flops_per_token (const ModelSpec *spec, guint64 seq,
                                      double recompute_fraction);

/* Forward FLOPs of one layer per token, split into parts (causal attention). For a MoE or
 * MLA model: the average layer (all layers' active work / n_layers). */
typedef struct {
  double gemm;           /* qkv, out proj, mlp */
  double attention;      /* QK^T and AV, causal */
  double attention_full; /* non-causal */
} ModelLayerFlops;
void model_spec_layer_fwd_flops_per_token (const ModelSpec *spec, guint64 seq,
                                           ModelLayerFlops *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ModelSpec, model_spec_unref)

G_END_DECLS
