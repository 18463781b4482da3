/* models/model-params.c - parameter counts, exact to the element.
 *
 * With h hidden, a query heads, g KV heads, d head_dim, q = a*d, f ffn, V vocab, L layers:
 *   attention  h*q (Q) + 2*h*g*d (K, V) + q*h (O)     [+ q + 2*g*d + h biases]
 *              MLA (DeepSeek-V2/V3), with r_q, r_kv the LoRA ranks, n/p/v the nope, rope
 *              and value head dims: [h*r_q + r_q (norm) + r_q*a*(n+p)] or h*a*(n+p) for Q,
 *              h*(r_kv+p) + r_kv (norm) + r_kv*a*(n+v) for KV, a*v*h for O
 *   MLP        SwiGLU 3*h*f (gate, up, down)           [+ 2f + h biases]
 *              GeLU   2*h*f (fc1, fc2)                 [+ f + h biases]
 *   MoE MLP    router h*E [+ E balancing biases], E routed experts (an MLP of inner size
 *              moe_ffn each), shared experts (an MLP of inner size shared_expert_ffn
 *              [+ h gate])
 *              [Qwen3 q/k norms 2*d; OLMo 2 q/k norms q + g*d; gpt-oss sinks a]
 *   Qwen3-Next gated attention adds h*q (q_proj's output gate); its Gated DeltaNet
 *              layers hold, in place of attention, h*(2K + 2Vd) + h*2Hv + (2K + Vd)*conv +
 *              2Hv + d_v + Vd*h (K = Hk*d_k, Vd = Hv*d_v; model.h)
 *   norms      2 per layer (Gemma 2, GLM-4: 4; a shared one in Falcon-7B's, Cohere's and
 *              Phi-2's parallel blocks: 1), h each (RMSNorm, LayerNorm without bias) or 2h
 *              (LayerNorm weight + bias); one final
 *   embedding  V*h (+ positions*h when learned, + BLOOM's embedding LayerNorm) + V*h output
 *              head when untied (+ V with Phi-2's head bias)
 * These match the tensors of the transformers implementations (LlamaForCausalLM,
 * GPT2LMHeadModel, GPTNeoXForCausalLM, OPTForCausalLM, MixtralForCausalLM, ...); the tests
 * check published totals (Llama 3.1 8B 8,030,261,248; GPT-2 124,439,808; OPT-125m
 * 125,239,296; Mixtral 8x7B 46.7B / 12.9B active; ...). */
#include "models/model.h"

#include <string.h>

gboolean
model_spec_is_moe (const ModelSpec *spec)
{
  g_return_val_if_fail (spec != NULL, FALSE);
  return spec->n_experts > 0;
}

gboolean
model_spec_is_mla (const ModelSpec *spec)
{
  g_return_val_if_fail (spec != NULL, FALSE);
  return spec->kv_lora_rank > 0;
}

gboolean
model_spec_is_gdn (const ModelSpec *spec)
{
  g_return_val_if_fail (spec != NULL, FALSE);
  return spec->full_attn_interval > 1;
}

gboolean
model_spec_is_mamba (const ModelSpec *spec)
{
  g_return_val_if_fail (spec != NULL, FALSE);
  return spec->layer_pattern != NULL;
}

char
model_spec_layer_kind (const ModelSpec *spec, guint64 layer)
{
  g_return_val_if_fail (spec != NULL, 0);
  if (spec->layer_pattern == NULL || layer >= spec->n_layers)
    return 0;
  return spec->layer_pattern[layer];
}

guint64
model_spec_n_layers_of_kind (const ModelSpec *spec, char kind)
{
  g_return_val_if_fail (spec != NULL, 0);
  guint64 n = 0;
  for (guint64 l = 0; spec->layer_pattern != NULL && l < spec->n_layers; l++)
    n += spec->layer_pattern[l] == kind ? 1 : 0;
  return n;
}

gboolean
model_spec_layer_is_linear (const ModelSpec *spec, guint64 layer)
{
  g_return_val_if_fail (spec != NULL, FALSE);
  if (model_spec_is_mamba (spec))
    return model_spec_layer_kind (spec, layer) == 'M';
  if (!model_spec_is_gdn (spec) || layer >= spec->n_layers)
    return FALSE;
  return (layer + 1) % spec->full_attn_interval != 0;
}

/* Layers 0 .. L-1, full attention at (i + 1) % interval == 0: floor (L / interval) of
 * them, the rest GDN. */
guint64
model_spec_n_linear_layers (const ModelSpec *spec)
{
  g_return_val_if_fail (spec != NULL, 0);
  if (model_spec_is_mamba (spec))
    return model_spec_n_layers_of_kind (spec, 'M');
  if (!model_spec_is_gdn (spec))
    return 0;
  return spec->n_layers - spec->n_layers / spec->full_attn_interval;
}

static guint64
moe_step (const ModelSpec *spec)
{
  return spec->moe_layer_step > 0 ? spec->moe_layer_step : 1;
}

gboolean
model_spec_layer_is_moe (const ModelSpec *spec, guint64 layer)
{
  g_return_val_if_fail (spec != NULL, FALSE);
  if (spec->n_experts == 0 || layer >= spec->n_layers || layer < spec->first_dense_layers)
    return FALSE;
  return (layer - spec->first_dense_layers + 1) % moe_step (spec) == 0;
}

/* Layers first_dense .. L-1, the j-th of them (from 0) MoE when (j + 1) % step == 0:
 * floor ((L - first_dense) / step) of them. */
guint64
model_spec_n_moe_layers (const ModelSpec *spec)
{
  g_return_val_if_fail (spec != NULL, 0);
  if (spec->n_experts == 0 || spec->n_layers <= spec->first_dense_layers)
    return 0;
  return (spec->n_layers - spec->first_dense_layers) / moe_step (spec);
}

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

static guint64
attention_params (const ModelSpec *spec)
{
  const guint64 h = spec->hidden, a = spec->n_heads;
  if (model_spec_is_mla (spec))
    {
      const guint64 qk = spec->qk_nope_head_dim + spec->qk_rope_head_dim;
      const guint64 rq = spec->q_lora_rank, rkv = spec->kv_lora_rank;
      guint64 n = rq > 0 ? h * rq + rq + rq * a * qk : h * a * qk;
      n += h * (rkv + spec->qk_rope_head_dim) + rkv + rkv * a * (spec->qk_nope_head_dim
                                                                 + spec->v_head_dim);
      n += a * spec->v_head_dim * h;
      return n;
    }
  const guint64 q = a * spec->head_dim, kv = spec->n_kv_heads * spec->head_dim;
  guint64 n = h * q + 2 * h * kv + q * h;
  if (spec->attn_output_gate)   /* q_proj's second half: the output gate (no bias) */
    n += h * q;
  if (spec->attn_bias)
    n += q + 2 * kv + h;
  else if (spec->attn_qkv_bias)
    n += q + 2 * kv;
  if (spec->qk_norm)   /* per head (Qwen3: 2 d) or over the whole q and k (OLMo 2) */
    n += spec->qk_norm_full ? q + kv : 2 * spec->head_dim;
  if (spec->attn_sinks)
    n += a;
  return n;
}

/* The mixer of one Gated DeltaNet layer (model.h): in_proj_qkvz h x (2 K + 2 Vd),
 * in_proj_ba h x 2 Hv, conv1d (2 K + Vd) x conv taps, dt_bias and A_log Hv each, the
 * gated norm d_v, out_proj Vd x h; K = Hk d_k, Vd = Hv d_v. */
static guint64
gdn_params (const ModelSpec *spec)
{
  const guint64 h = spec->hidden, hv = spec->gdn_v_heads;
  const guint64 kd = spec->gdn_k_heads * spec->gdn_k_dim, vd = hv * spec->gdn_v_dim;
  return h * (2 * kd + 2 * vd) + h * 2 * hv + (2 * kd + vd) * spec->gdn_conv + 2 * hv
         + spec->gdn_v_dim + vd * h;
}

/* A Mamba-2 mixer (model.h layer_pattern): in_proj h x (2 d_inner + 2 G N + heads), the
 * conv1d's (d_inner + 2 G N) x taps weights and, with mamba_conv_bias, a bias per channel,
 * dt_bias, A_log and D (heads each), the gated RMSNorm's d_inner, out_proj d_inner x h
 * (modeling_nemotron_h.py NemotronHMamba2Mixer; Megatron-Core MambaMixer holds the same). */
static guint64
mamba_params (const ModelSpec *spec)
{
  const guint64 h = spec->hidden, H = spec->mamba_heads, di = H * spec->mamba_head_dim;
  const guint64 gn = spec->mamba_groups * spec->mamba_state, conv_ch = di + 2 * gn;
  return h * (2 * di + 2 * gn + H) + conv_ch * (spec->mamba_conv + (spec->mamba_conv_bias ? 1 : 0))
         + 3 * H + di + di * h;
}

/* One MLP of inner size f, of the model's kind. */
static guint64
mlp_params (const ModelSpec *spec, guint64 f)
{
  const guint64 h = spec->hidden;
  if (spec->mlp == MODEL_MLP_SWIGLU)
    return 3 * h * f + (spec->mlp_bias ? 2 * f + h : 0);
  return 2 * h * f + (spec->mlp_bias ? f + h : 0);
}

void
model_spec_params (const ModelSpec *spec, ModelParams *out)
{
  g_return_if_fail (spec != NULL && out != NULL);
  const guint64 h = spec->hidden, V = spec->vocab;
  const guint64 norm = spec->norm == MODEL_NORM_LAYER ? 2 * h : h;

  memset (out, 0, sizeof *out);
  out->n_moe_layers = model_spec_n_moe_layers (spec);
  out->n_dense_layers = spec->n_layers - out->n_moe_layers;
  out->attention_per_layer = attention_params (spec);
  out->norms_per_layer = (spec->norms_per_block > 0 ? spec->norms_per_block : 2) * norm;
  if (out->n_dense_layers > 0)
    {
      out->mlp_per_layer = mlp_params (spec, spec->ffn_hidden);
      out->per_layer = out->attention_per_layer + out->mlp_per_layer + out->norms_per_layer;
    }
  if (model_spec_is_moe (spec))
    {
      const guint64 E = spec->n_experts;
      out->expert = mlp_params (spec, spec->moe_ffn);
      out->experts_per_layer = E * out->expert;
      out->router_per_layer = h * E + (spec->router_bias ? E : 0);
      if (spec->shared_expert_ffn > 0)
        out->shared_per_layer = mlp_params (spec, spec->shared_expert_ffn)
                                + (spec->shared_expert_gate ? h : 0);
      out->per_moe_layer = out->attention_per_layer + out->norms_per_layer
                           + out->router_per_layer + out->experts_per_layer
                           + out->shared_per_layer;
      out->experts = out->n_moe_layers * out->experts_per_layer;
    }
  out->final_norm = norm;
  out->input_embedding = V * h + position_rows (spec) * h + (spec->embed_norm ? norm : 0);
  out->output_head = (spec->tied_embeddings ? 0 : V * h) + (spec->head_bias ? V : 0);
  out->embedding = out->input_embedding + out->output_head;
  out->total = out->n_dense_layers * out->per_layer + out->n_moe_layers * out->per_moe_layer
               + out->final_norm + out->embedding;
  if (model_spec_is_gdn (spec))
    {
      /* the GDN layers' mixers in place of their attention (model.h ModelParams) */
      out->n_linear_layers = model_spec_n_linear_layers (spec);
      out->linear_attention_per_layer = gdn_params (spec);
      out->total = out->total - out->n_linear_layers * out->attention_per_layer
                   + out->n_linear_layers * out->linear_attention_per_layer;
    }
  if (model_spec_is_mamba (spec))
    {
      /* one part and one pre-norm per layer (model.h ModelParams) */
      out->n_linear_layers = model_spec_n_layers_of_kind (spec, 'M');
      out->n_attn_layers = model_spec_n_layers_of_kind (spec, '*');
      out->n_mlp_layers = model_spec_n_layers_of_kind (spec, '-');
      out->linear_attention_per_layer = mamba_params (spec);
      out->mlp_per_layer = mlp_params (spec, spec->ffn_hidden);
      out->norms_per_layer = norm;
      out->n_dense_layers = 0;
      out->per_layer = 0;
      out->total = out->n_linear_layers * out->linear_attention_per_layer
                   + out->n_attn_layers * out->attention_per_layer
                   + out->n_mlp_layers * out->mlp_per_layer + spec->n_layers * norm
                   + out->final_norm + out->embedding;
    }
  out->non_embedding = out->total - out->embedding;
  /* a token visits k of the E routed experts of each MoE layer */
  const guint64 idle = model_spec_is_moe (spec)
                       ? (spec->n_experts - spec->moe_top_k) * out->expert : 0;
  out->active = out->total - out->n_moe_layers * idle;
  if (spec->mtp_layers > 0)
    {
      /* each module: enorm + hnorm (h each), eh_proj 2h x h, a MoE block, final norm (h) */
      const guint64 block = model_spec_is_moe (spec) ? out->per_moe_layer : out->per_layer;
      const guint64 module = 3 * norm + 2 * h * h + block;
      out->mtp = spec->mtp_layers * module;
      out->mtp_active = out->mtp - spec->mtp_layers * (model_spec_is_moe (spec) ? idle : 0);
    }
}

/* N of the PaLM convention: see model.h. The token table is a lookup (no FLOPs) unless it
 * doubles as the output projection; the position table is always a lookup. A MoE model's
 * N is its active count (the experts a token does not visit do no work for it). */
guint64
model_spec_palm_params (const ModelSpec *spec)
{
  ModelParams p;
  model_spec_params (spec, &p);
  guint64 lookup = position_rows (spec) * spec->hidden;
  if (!spec->tied_embeddings)
    lookup += spec->vocab * spec->hidden;
  return p.active - lookup;
}
