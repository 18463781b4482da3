/* models/model-ops.c - the op list of one micro-batch: embedding, one representative
 * transformer block, head. The step program (plan/) instantiates the block once per layer
 * and splits shapes by the plan's TP/CP/SP; here every shape is for the unsplit model.
 *
 * FLOP counts (forward, whole op):
 *  - GEMM: 2*m*n*k (one multiply and one add per MAC); bias adds are not counted, as in
 *    every convention of model-flops.c.
 *  - Attention core: QK^T and AV are each 2*b*s_q*s_kv*heads*head_dim, so the full
 *    (non-causal) count is 4*b*s_q*s_kv*heads*head_dim; causal masking halves it
 *    (FlashAttention skips the masked tiles). Softmax is not counted.
 *  - Element-wise work, counted per element touched (approximate; these ops are
 *    memory-bound, their FLOPs are reported but never drive the roofline):
 *      RMSNorm 4 (square, accumulate, scale by rsqrt, weight)
 *      LayerNorm 7 (accumulate mean, subtract, square, accumulate, scale, weight, bias)
 *      rotary 3 per element of Q and K (two multiplies, one add)
 *      SwiGLU 5 per output element (sigmoid as exp, add, divide; x*sigmoid; gate product)
 *      GeLU 8 per element (tanh approximation: cube, 2 mul, add, tanh, add, 2 mul)
 *      GeGLU 9 per output element (GeLU and the gate product)
 *      residual add 1; learned position add 1; token lookup 0
 *      loss 5 per logit (max, subtract, exp, sum, and the per-row log amortised)
 *      MoE permute 0 (a gather into expert order), unpermute 2 per routed element (scale
 *      by the routing probability, add into the token's output)
 *  - A grouped GEMM (the routed experts) counts 2*n*k per routed row: tokens x top_k rows
 *    in all, whatever their spread over the experts.
 * The weight_params of all ops (embedding + L x block + head) sum to the total of
 * model_spec_params; a tied output head owns no weight (the embedding does). */
#include "models/model.h"

#define NORM_FLOPS_RMS 4.0
#define NORM_FLOPS_LAYER 7.0
#define ROTARY_FLOPS 3.0
#define SWIGLU_FLOPS 5.0
#define GEGLU_FLOPS 9.0
#define GELU_FLOPS 8.0
#define RESIDUAL_FLOPS 1.0
#define LOSS_FLOPS 5.0
#define PERMUTE_FLOPS 0.0
#define UNPERMUTE_FLOPS 2.0
/* sigmoid (exp, add, divide) and the product: the attention output gate; the gated
 * RMSNorm of a GDN layer adds SiLU of z and the product to a norm (RMSNorm 4 + 5) */
#define GATE_FLOPS 4.0
#define GATED_NORM_FLOPS 9.0
/* the GDN's depthwise causal conv1d: a multiply and an add per tap, then SiLU (4) */
#define CONV_SILU_FLOPS 4.0

/* model.h: the four steps of the chunked SSD scan, per token */
double
model_spec_mamba_scan_flops (guint64 heads, guint64 head_dim, guint64 state, guint64 groups,
                             guint64 chunk)
{
  const double H = (double) heads, P = (double) head_dim, N = (double) state;
  const double G = (double) groups, Q = (double) MAX (chunk, 1);
  return H * P * (2.0 * Q + 4.0 * N + 2.0 * N / Q) + 2.0 * Q * N * G;
}

double
model_spec_gdn_core_flops (guint64 v_heads, guint64 d_k, guint64 d_v, guint64 chunk)
{
  const double C = (double) chunk, dk = (double) d_k, dv = (double) d_v;
  return (double) v_heads * (6.0 * dk * dv + 2.0 * C * (3.0 * dk + 2.0 * dv) + C * C / 3.0);
}

/* Rotated width of a head: head_dim x partial_rotary_factor (Qwen3-Next 256 x 0.25 =
 * 64), the whole head_dim without one. */
guint64
model_spec_rotary_dim (const ModelSpec *spec)
{
  if (spec->rotary_fraction > 0.0 && spec->rotary_fraction < 1.0)
    return (guint64) ((double) spec->head_dim * spec->rotary_fraction);
  return spec->head_dim;
}

static void
append_gemm (GArray *ops, const char *name, ModelPart part, guint64 m, guint64 k, guint64 n,
             gboolean bias, char tp_split)
{
  ModelOp op = { 0 };
  op.name = name;
  op.kind = MODEL_OP_GEMM;
  op.part = part;
  op.m = m;
  op.k = k;
  op.n = n;
  op.fwd_flops = 2.0 * (double) m * (double) n * (double) k;
  op.fwd_flops_full = op.fwd_flops;
  op.weight_params = k * n + (bias ? n : 0);
  op.tp_split = tp_split;
  g_array_append_val (ops, op);
}

static void
append_simple (GArray *ops, const char *name, ModelOpKind kind, ModelPart part,
               guint64 elements, double flops_per_element, guint64 weight_params,
               char tp_split)
{
  ModelOp op = { 0 };
  op.name = name;
  op.kind = kind;
  op.part = part;
  op.elements = elements;
  op.fwd_flops = flops_per_element * (double) elements;
  op.fwd_flops_full = op.fwd_flops;
  op.weight_params = weight_params;
  op.tp_split = tp_split;
  g_array_append_val (ops, op);
}

static void
append_grouped (GArray *ops, const char *name, guint64 groups, guint64 tokens, guint64 k,
                guint64 n, gboolean bias, char tp_split)
{
  ModelOp op = { 0 };
  op.name = name;
  op.kind = MODEL_OP_GROUPED_GEMM;
  op.part = MODEL_PART_MOE_LAYER;
  op.groups = groups;
  op.tokens = tokens;
  op.m = (tokens + groups - 1) / groups;     /* tokens of one expert at perfect balance */
  op.k = k;
  op.n = n;
  op.fwd_flops = 2.0 * (double) tokens * (double) n * (double) k;
  op.fwd_flops_full = op.fwd_flops;
  op.weight_params = groups * (k * n + (bias ? n : 0));
  op.tp_split = tp_split;
  g_array_append_val (ops, op);
}

static double
act_flops (const ModelSpec *spec)
{
  if (spec->mlp != MODEL_MLP_SWIGLU)
    return GELU_FLOPS;
  return spec->gelu_gate ? GEGLU_FLOPS : SWIGLU_FLOPS;
}

/* attn_norm .. attn_residual of one block (dense or MoE: the same attention). */
static void
append_attention (GArray *ops, const ModelSpec *spec, ModelPart part, guint64 b, guint64 seq)
{
  const guint64 h = spec->hidden;
  const guint64 a = spec->n_heads, g = spec->n_kv_heads, d = spec->head_dim;
  const guint64 m = b * seq;
  const guint64 norm_w = spec->norm == MODEL_NORM_LAYER ? 2 * h : h;
  const double norm_flops = spec->norm == MODEL_NORM_RMS ? NORM_FLOPS_RMS : NORM_FLOPS_LAYER;
  guint64 d_v = d, kv_heads = g;

  append_simple (ops, "attn_norm", MODEL_OP_NORM, part, m * h, norm_flops, norm_w, 'n');
  if (model_spec_is_mla (spec))
    {
      /* MLA (DeepSeek-V2 sec. 2.1): the down projections and their norms are replicated
       * across TP (Megatron-Core MLASelfAttention), the up projections column-split. */
      const guint64 rope = spec->qk_rope_head_dim, nope = spec->qk_nope_head_dim;
      const guint64 rq = spec->q_lora_rank, rkv = spec->kv_lora_rank;
      d_v = spec->v_head_dim;
      kv_heads = a;
      if (rq > 0)
        {
          append_gemm (ops, "q_down", part, m, h, rq, FALSE, 'n');
          append_simple (ops, "q_norm", MODEL_OP_NORM, part, m * rq, NORM_FLOPS_RMS, rq, 'n');
          append_gemm (ops, "q_up", part, m, rq, a * (nope + rope), FALSE, 'c');
        }
      else
        append_gemm (ops, "q", part, m, h, a * (nope + rope), FALSE, 'c');
      append_gemm (ops, "kv_down", part, m, h, rkv + rope, FALSE, 'n');
      append_simple (ops, "kv_norm", MODEL_OP_NORM, part, m * rkv, NORM_FLOPS_RMS, rkv, 'n');
      append_gemm (ops, "kv_up", part, m, rkv, a * (nope + d_v), FALSE, 'c');
      /* rope on every query head's rope part and on the one shared rope key */
      append_simple (ops, "rotary", MODEL_OP_ELEMENTWISE, part, m * (a + 1) * rope,
                     ROTARY_FLOPS, 0, 'h');
    }
  else
    {
      /* gated attention (Qwen3-Next): q_proj also yields the output gate, a x d more */
      append_gemm (ops, "qkv", part, m, h, (a + 2 * g) * d + (spec->attn_output_gate ? a * d : 0),
                   spec->attn_bias || spec->attn_qkv_bias, 'c');
      if (spec->qk_norm)
        append_simple (ops, "qk_norm", MODEL_OP_NORM, part, m * (a + g) * d, NORM_FLOPS_RMS,
                       spec->qk_norm_full ? (a + g) * d : 2 * d, 'h');
      if (spec->pos == MODEL_POS_ROTARY)
        append_simple (ops, "rotary", MODEL_OP_ELEMENTWISE, part,
                       m * (a + g) * model_spec_rotary_dim (spec), ROTARY_FLOPS, 0, 'h');
    }

  ModelOp attn = { 0 };
  attn.name = "attn_core";
  attn.kind = MODEL_OP_ATTENTION;
  attn.part = part;
  attn.b = b;
  attn.heads = a;
  attn.kv_heads = kv_heads;
  attn.s_q = seq;
  attn.s_kv = seq;
  attn.head_dim = d;
  attn.head_dim_v = d_v;
  attn.causal = TRUE;
  /* QK^T 2 b s s a d, AV 2 b s s a d_v; d_v == d except for MLA. With sliding windows the
   * s keys per query become model_spec_attention_keys (the average over the layers). */
  const double keys = model_spec_attention_keys (spec, seq);
  if (d_v == d && keys == (double) seq)
    attn.fwd_flops_full = 4.0 * (double) b * (double) seq * (double) seq * (double) a
                          * (double) d;
  else
    attn.fwd_flops_full = 2.0 * (double) b * (double) seq * keys * (double) a
                          * (double) (d + d_v);
  attn.fwd_flops = attn.fwd_flops_full / 2.0;
  attn.window = spec->n_sliding_layers > 0 ? spec->sliding_window : 0;
  attn.window_share = spec->n_sliding_layers > 0 && spec->n_layers > 0
                        ? (double) spec->n_sliding_layers / (double) spec->n_layers : 0.0;
  attn.weight_params = spec->attn_sinks ? a : 0;
  attn.tp_split = 'h';
  g_array_append_val (ops, attn);

  if (spec->attn_output_gate)   /* o * sigmoid (gate) before o_proj */
    append_simple (ops, "attn_gate", MODEL_OP_ELEMENTWISE, part, m * a * d_v, GATE_FLOPS, 0,
                   'h');
  append_gemm (ops, "attn_out", part, m, a * d_v, h, spec->attn_bias, 'r');
  if (spec->norms_per_block == 4)
    append_simple (ops, "attn_post_norm", MODEL_OP_NORM, part, m * h, norm_flops, norm_w,
                   'n');
  append_simple (ops, "attn_residual", MODEL_OP_ELEMENTWISE, part, m * h, RESIDUAL_FLOPS, 0,
                 'n');
  /* one norm a block (Falcon-7B, Cohere, Phi-2): the MLP reads attn_norm's output */
  if (spec->norms_per_block != 1)
    append_simple (ops, "mlp_norm", MODEL_OP_NORM, part, m * h, norm_flops, norm_w, 'n');
}

/* The op names of one linear-attention mixer (append_linear_mixer) */
typedef struct {
  const char *in_proj, *conv, *core, *norm, *out;
} LinearMixerNames;

/* attn_norm .. attn_residual of one linear-attention layer (Gated DeltaNet, Mamba-2): the
 * in projection (h -> in_width, column-parallel), the depthwise causal conv1d with SiLU
 * over conv_ch channels (kernel conv_kernel; conv_params weights, split by conv_split), the chunked core
 * (`core`: the caller's heads, widths, chunk, FLOPs and weights; a MODEL_OP_GDN op of the
 * layer's tokens, causal, heads split by TP), the gated RMSNorm over `inner` (norm_width
 * weights), the out projection (inner -> h, row-parallel) and the residual. */
static void
append_linear_mixer (GArray *ops, const ModelSpec *spec, guint64 b, guint64 seq,
                     const LinearMixerNames *names, guint64 in_width, guint64 conv_ch,
                     guint64 conv_kernel, guint64 conv_params, char conv_split, ModelOp core,
                     guint64 inner, guint64 norm_width)
{
  const ModelPart part = MODEL_PART_LINEAR_ATTN;
  const guint64 h = spec->hidden, m = b * seq;
  append_simple (ops, "attn_norm", MODEL_OP_NORM, part, m * h, NORM_FLOPS_RMS, h, 'n');
  append_gemm (ops, names->in_proj, part, m, h, in_width, FALSE, 'c');
  append_simple (ops, names->conv, MODEL_OP_ELEMENTWISE, part, m * conv_ch,
                 2.0 * (double) conv_kernel + CONV_SILU_FLOPS, conv_params, conv_split);
  core.name = names->core;
  core.kind = MODEL_OP_GDN;
  core.part = part;
  core.b = b;
  core.s_q = core.s_kv = seq;
  core.causal = TRUE;
  core.fwd_flops_full = core.fwd_flops;
  core.tp_split = 'h';
  g_array_append_val (ops, core);
  append_simple (ops, names->norm, MODEL_OP_NORM, part, m * inner, GATED_NORM_FLOPS,
                 norm_width, 'h');
  append_gemm (ops, names->out, part, m, inner, h, FALSE, 'r');
  append_simple (ops, "attn_residual", MODEL_OP_ELEMENTWISE, part, m * h, RESIDUAL_FLOPS, 0,
                 'n');
}

/* attn_norm .. mlp_norm of one Gated DeltaNet layer (model.h): in projection, conv,
 * chunked delta rule, gated norm, out projection. TP splits the heads (column-parallel
 * in projection and conv channels, row-parallel out projection), as Megatron-Core's
 * GatedDeltaNet. */
static void
append_gdn (GArray *ops, const ModelSpec *spec, guint64 b, guint64 seq)
{
  static const LinearMixerNames names = { "gdn_in_proj", "gdn_conv", "gdn_core", "gdn_norm",
                                          "gdn_out" };
  const guint64 hv = spec->gdn_v_heads;
  const guint64 kd = spec->gdn_k_heads * spec->gdn_k_dim, vd = hv * spec->gdn_v_dim;
  const guint64 conv_ch = 2 * kd + vd;
  ModelOp core = { 0 };
  core.heads = hv;
  core.kv_heads = spec->gdn_k_heads;
  core.head_dim = spec->gdn_k_dim;
  core.head_dim_v = spec->gdn_v_dim;
  core.chunk = MODEL_GDN_CHUNK;
  core.fwd_flops = (double) (b * seq) * model_spec_gdn_core_flops (hv, spec->gdn_k_dim,
                                                                   spec->gdn_v_dim,
                                                                   MODEL_GDN_CHUNK);
  core.weight_params = 2 * hv;     /* dt_bias, A_log */
  append_linear_mixer (ops, spec, b, seq, &names, 2 * kd + 2 * vd + 2 * hv, conv_ch,
                       spec->gdn_conv, conv_ch * spec->gdn_conv, 'c', core, vd,
                       spec->gdn_v_dim);
  append_simple (ops, "mlp_norm", MODEL_OP_NORM, MODEL_PART_LINEAR_ATTN,
                 b * seq * spec->hidden, NORM_FLOPS_RMS, spec->hidden, 'n');
}

/* attn_norm .. attn_residual of one Mamba-2 layer (model.h layer_pattern): in projection,
 * depthwise causal conv1d (+ SiLU), the chunked SSD scan (a MODEL_OP_GDN op: heads the
 * mamba heads, kv_heads the groups of B and C, head_dim the state N, head_dim_v the head
 * width P, chunk the SSD chunk; fwd_flops model_spec_mamba_scan_flops), the gated RMSNorm
 * of d_inner, out projection. TP splits heads and groups (column-parallel in_proj and
 * conv, row-parallel out_proj: Megatron-Core MambaMixer). */
static void
append_mamba (GArray *ops, const ModelSpec *spec, guint64 b, guint64 seq)
{
  static const LinearMixerNames names = { "mamba_in_proj", "mamba_conv", "mamba_scan",
                                          "mamba_norm", "mamba_out" };
  const guint64 H = spec->mamba_heads;
  const guint64 di = H * spec->mamba_head_dim, gn = spec->mamba_groups * spec->mamba_state;
  const guint64 conv_ch = di + 2 * gn;
  ModelOp scan = { 0 };
  scan.heads = H;
  scan.kv_heads = spec->mamba_groups;
  scan.head_dim = spec->mamba_state;
  scan.head_dim_v = spec->mamba_head_dim;
  scan.chunk = spec->mamba_chunk;
  scan.fwd_flops = (double) (b * seq) * model_spec_mamba_scan_flops (H, spec->mamba_head_dim,
                                                                     spec->mamba_state,
                                                                     spec->mamba_groups,
                                                                     spec->mamba_chunk);
  scan.weight_params = 3 * H;   /* dt_bias, A_log, D */
  append_linear_mixer (ops, spec, b, seq, &names, 2 * di + 2 * gn + H, conv_ch,
                       spec->mamba_conv,
                       conv_ch * (spec->mamba_conv + (spec->mamba_conv_bias ? 1 : 0)), 'h',
                       scan, di, di);
}

/* up (gate and up fused into one h x 2f GEMM for SwiGLU, Megatron linear_fc1), act, down:
 * one MLP of inner size f as plain GEMMs. */
static void
append_mlp (GArray *ops, const ModelSpec *spec, ModelPart part, guint64 m, guint64 f,
            const char *up, const char *act, const char *down)
{
  const guint64 h = spec->hidden;
  const gboolean swiglu = spec->mlp == MODEL_MLP_SWIGLU;
  append_gemm (ops, up, part, m, h, swiglu ? 2 * f : f, spec->mlp_bias, 'c');
  append_simple (ops, act, MODEL_OP_ELEMENTWISE, part, m * f, act_flops (spec), 0, 'c');
  append_gemm (ops, down, part, m, f, h, spec->mlp_bias, 'r');
}

/* The MoE MLP of one block: router, permute, the routed experts as grouped GEMMs,
 * unpermute (weighted combine), shared experts. */
static void
append_moe_mlp (GArray *ops, const ModelSpec *spec, guint64 m)
{
  const guint64 h = spec->hidden, E = spec->n_experts, k = spec->moe_top_k;
  const guint64 f = spec->moe_ffn, routed = m * k;
  const gboolean swiglu = spec->mlp == MODEL_MLP_SWIGLU;
  const ModelPart part = MODEL_PART_MOE_LAYER;

  /* the router is replicated across TP (Megatron-Core TopKRouter) */
  append_gemm (ops, "router", part, m, h, E, spec->router_bias, 'n');
  append_simple (ops, "permute", MODEL_OP_ELEMENTWISE, part, routed * h, PERMUTE_FLOPS, 0,
                 'n');
  append_grouped (ops, "experts_up", E, routed, h, swiglu ? 2 * f : f, spec->mlp_bias, 'c');
  append_simple (ops, "experts_act", MODEL_OP_ELEMENTWISE, part, routed * f,
                 act_flops (spec), 0, 'c');
  append_grouped (ops, "experts_down", E, routed, f, h, spec->mlp_bias, 'r');
  append_simple (ops, "unpermute", MODEL_OP_ELEMENTWISE, part, routed * h, UNPERMUTE_FLOPS, 0,
                 'n');
  if (spec->shared_expert_ffn > 0)
    {
      append_mlp (ops, spec, part, m, spec->shared_expert_ffn, "shared_up", "shared_act",
                  "shared_down");
      if (spec->shared_expert_gate)
        append_gemm (ops, "shared_gate", part, m, h, 1, FALSE, 'n');
    }
}

guint
model_spec_ops (const ModelSpec *spec, guint64 b, guint64 seq, GArray *ops)
{
  g_return_val_if_fail (spec != NULL && ops != NULL, 0);
  g_return_val_if_fail (g_array_get_element_size (ops) == sizeof (ModelOp), 0);
  g_return_val_if_fail (b > 0 && seq > 0, 0);

  const guint before = ops->len;
  const guint64 h = spec->hidden, V = spec->vocab;
  const guint64 m = b * seq;                               /* tokens of the micro-batch */
  const guint64 norm_w = spec->norm == MODEL_NORM_LAYER ? 2 * h : h;
  const double norm_flops = spec->norm == MODEL_NORM_RMS ? NORM_FLOPS_RMS : NORM_FLOPS_LAYER;
  ModelParams p;
  model_spec_params (spec, &p);

  /* Embedding: vocab-parallel table (Megatron VocabParallelEmbedding); BLOOM's embedding
   * LayerNorm after it, its weights apart */
  append_simple (ops, "embedding", MODEL_OP_EMBEDDING, MODEL_PART_EMBEDDING, m * h,
                 spec->pos == MODEL_POS_LEARNED ? RESIDUAL_FLOPS : 0.0,
                 p.input_embedding - (spec->embed_norm ? norm_w : 0), 'v');
  if (spec->embed_norm)
    append_simple (ops, "embed_norm", MODEL_OP_NORM, MODEL_PART_EMBEDDING, m * h, norm_flops,
                   norm_w, 'n');

  /* Block: pre-norm attention then pre-norm MLP (Llama, GPT-2, OPT-large; GPT-NeoX's
   * parallel residual has the same ops). */
  const gboolean gdn = model_spec_is_gdn (spec);
  if (model_spec_is_mamba (spec))
    {
      /* one representative of each layer kind of the pattern, each with its own pre-norm
       * and residual (model.h layer_pattern); norms_per_block 1 keeps the attention's
       * block to attn_norm .. attn_residual */
      if (p.n_linear_layers > 0)
        append_mamba (ops, spec, b, seq);
      if (p.n_attn_layers > 0)
        append_attention (ops, spec, MODEL_PART_FULL_ATTN, b, seq);
      if (p.n_mlp_layers > 0)
        {
          append_simple (ops, "mlp_norm", MODEL_OP_NORM, MODEL_PART_LAYER, m * h, norm_flops,
                         norm_w, 'n');
          append_mlp (ops, spec, MODEL_PART_LAYER, m, spec->ffn_hidden, "mlp_up", "mlp_act",
                      "mlp_down");
          append_simple (ops, "mlp_residual", MODEL_OP_ELEMENTWISE, MODEL_PART_LAYER, m * h,
                         RESIDUAL_FLOPS, 0, 'n');
        }
    }
  else if (gdn)
    {
      /* the hybrid's mixers apart: full attention and GDN (model.h) */
      append_attention (ops, spec, MODEL_PART_FULL_ATTN, b, seq);
      append_gdn (ops, spec, b, seq);
    }
  if (p.n_dense_layers > 0)
    {
      if (!gdn)
        append_attention (ops, spec, MODEL_PART_LAYER, b, seq);
      append_mlp (ops, spec, MODEL_PART_LAYER, m, spec->ffn_hidden, "mlp_up", "mlp_act",
                  "mlp_down");
      if (spec->norms_per_block == 4)
        append_simple (ops, "mlp_post_norm", MODEL_OP_NORM, MODEL_PART_LAYER, m * h, norm_flops,
                       norm_w, 'n');
      append_simple (ops, "mlp_residual", MODEL_OP_ELEMENTWISE, MODEL_PART_LAYER, m * h,
                     RESIDUAL_FLOPS, 0, 'n');
    }
  if (p.n_moe_layers > 0)
    {
      if (!gdn)
        append_attention (ops, spec, MODEL_PART_MOE_LAYER, b, seq);
      append_moe_mlp (ops, spec, m);
      if (spec->norms_per_block == 4)
        append_simple (ops, "mlp_post_norm", MODEL_OP_NORM, MODEL_PART_MOE_LAYER, m * h, norm_flops,
                       norm_w, 'n');
      append_simple (ops, "mlp_residual", MODEL_OP_ELEMENTWISE, MODEL_PART_MOE_LAYER, m * h,
                     RESIDUAL_FLOPS, 0, 'n');
    }

  /* Head: the logits GEMM is vocab-parallel; a tied head reads the embedding's table. */
  append_simple (ops, "final_norm", MODEL_OP_NORM, MODEL_PART_HEAD, m * h, norm_flops,
                 norm_w, 'n');
  append_gemm (ops, "logits", MODEL_PART_HEAD, m, h, V, FALSE, 'v');
  g_array_index (ops, ModelOp, ops->len - 1).weight_params = p.output_head;
  append_simple (ops, "loss", MODEL_OP_LOSS, MODEL_PART_HEAD, m * V, LOSS_FLOPS, 0, 'v');

  return ops->len - before;
}
