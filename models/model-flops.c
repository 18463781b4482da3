/* models/model-flops.c - FLOPs per token under the conventions published results use.
 *
 * Every source counts differently (data/published-runs.md, "FLOP-counting
 * conventions"), so an MFU is meaningful only with its convention named. All functions
 * return FLOPs per token of one training step (forward + backward) at sequence length s.
 * Notation: L layers, h hidden, s sequence, V vocab, H query heads, G KV heads, d head_dim,
 * q = H*d (query projection width), f ffn hidden. */
#include "models/model.h"

#include <string.h>

static const struct {
  const char *name;
  const char *formula;
  const char *source;
  const char *attention;   /* how the s x s attention term is counted */
} conventions[MODEL_FLOPS_N_CONVENTIONS] = {
  [MODEL_FLOPS_MEGATRON96] = { "megatron96",
    "96*B*s*L*h^2*(1 + s/6h + V/16Lh)",
    "Narayanan et al. SC'21 (eq. 3); includes one recompute forward (hardware FLOPs), "
    "assumes ffn = 4h and no GQA", "non-causal, with one recompute" },
  [MODEL_FLOPS_MEGATRON72] = { "megatron72",
    "72*B*s*L*h^2*(1 + s/6h + V/12Lh)",
    "Korthikanti et al. 2022 model FLOPs; no recompute, assumes ffn = 4h and no GQA",
    "non-causal" },
  [MODEL_FLOPS_MCORE] = { "mcore",
    "12*B*s*L*h^2*[(1 + G/H + s/h)*q/h + (ffn/h)*(1.5 SwiGLU | 1) + V/2Lh]",
    "Megatron-Core num_floating_point_operations (training.py); GQA- and SwiGLU-aware",
    "non-causal" },
  [MODEL_FLOPS_CAUSAL] = { "causal",
    "mcore with the s x s attention term halved (s/h -> s/2h)",
    "newer NVIDIA performance tables", "causal" },
  [MODEL_FLOPS_PALM] = { "palm",
    "6*N + 12*L*H*d_head*s per token, N without lookup-only embedding tables",
    "PaLM (Chowdhery et al. 2022) Appendix B; the Llama 3 paper; torchtitan", "non-causal" },
};

const char *
model_flop_convention_name (ModelFlopConvention conv)
{
  g_return_val_if_fail (conv < MODEL_FLOPS_N_CONVENTIONS, NULL);
  return conventions[conv].name;
}

const char *
model_flop_convention_formula (ModelFlopConvention conv)
{
  g_return_val_if_fail (conv < MODEL_FLOPS_N_CONVENTIONS, NULL);
  return conventions[conv].formula;
}

const char *
model_flop_convention_source (ModelFlopConvention conv)
{
  g_return_val_if_fail (conv < MODEL_FLOPS_N_CONVENTIONS, NULL);
  return conventions[conv].source;
}

const char *
model_flop_convention_attention (ModelFlopConvention conv)
{
  g_return_val_if_fail (conv < MODEL_FLOPS_N_CONVENTIONS, NULL);
  return conventions[conv].attention;
}

gboolean
model_flop_convention_parse (const char *name, ModelFlopConvention *out)
{
  /* Names of the people or tools behind each convention, as users say them. */
  static const struct {
    const char *alias;
    ModelFlopConvention conv;
  } aliases[] = {
    { "narayanan", MODEL_FLOPS_MEGATRON96 },
    { "korthikanti", MODEL_FLOPS_MEGATRON72 },
    { "megatron-core", MODEL_FLOPS_MCORE },
    { "nemo", MODEL_FLOPS_MCORE },
    { "torchtitan", MODEL_FLOPS_PALM },
    { "llama3", MODEL_FLOPS_PALM },
  };
  g_return_val_if_fail (out != NULL, FALSE);
  if (name == NULL)
    return FALSE;
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    if (g_ascii_strcasecmp (name, conventions[c].name) == 0)
      {
        *out = (ModelFlopConvention) c;
        return TRUE;
      }
  for (gsize i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (g_ascii_strcasecmp (name, aliases[i].alias) == 0)
      {
        *out = aliases[i].conv;
        return TRUE;
      }
  return FALSE;
}

static gboolean
needs_general (const ModelSpec *spec)
{
  return model_spec_is_moe (spec) || model_spec_is_mla (spec) || model_spec_is_gdn (spec);
}

const char *
model_flop_convention_formula_for (const ModelSpec *spec, ModelFlopConvention conv)
{
  g_return_val_if_fail (spec != NULL && conv < MODEL_FLOPS_N_CONVENTIONS, NULL);
  if (model_spec_is_mamba (spec))
    switch (conv)
      {
      case MODEL_FLOPS_MCORE:
      case MODEL_FLOPS_CAUSAL:
        return "3*[L_attn*4*h*q*(1 + G/H + s/(2h)) + L_mlp*4*h*f + L_mamba*(2*h*(2*d_in + "
               "2*g*N + Hm) + 7*d_in*N + 2*d_in*h) + 2*h*V] per token (Megatron hybrid_flops; "
               "its attention term is already causal)";
      case MODEL_FLOPS_PALM:
        return "6*N + 12*L_attn*H*d_head*s + 3*L_mamba*(SSD scan), N without lookup-only "
               "embedding tables";
      default:
        return conventions[conv].formula;
      }
  if (!needs_general (spec))
    return conventions[conv].formula;
  if (model_spec_is_gdn (spec))
    switch (conv)
      {
      case MODEL_FLOPS_MCORE:
        return "6*(active matmul weights: full-attention and GDN projections, router, top-k + "
               "shared experts, logits) + 3*L_gdn*Hv*(6*dk*dv + 2*C*(3*dk + 2*dv) + C^2/3) "
               "+ 6*L_full*s*H*(d_qk + d_v), C = 64";
      case MODEL_FLOPS_CAUSAL:
        return "mcore (GDN-hybrid form) with the full layers' s x s attention term halved";
      case MODEL_FLOPS_PALM:
        return "6*N_active + 3*L_gdn*(delta rule) + 6*L_full*H*(d_qk + d_v)*s, N_active "
               "without lookup-only embedding tables";
      default:
        return conventions[conv].formula;
      }
  switch (conv)
    {
    case MODEL_FLOPS_MCORE:
      return "6*(active matmul weights: attention, dense MLPs, router, top-k + shared experts, "
             "logits) + 6*L*s*H*(d_qk + d_v)";
    case MODEL_FLOPS_CAUSAL:
      return "mcore (MoE/MLA form) with the s x s attention term halved";
    case MODEL_FLOPS_PALM:
      return "6*N_active + 6*L*H*(d_qk + d_v)*s, N_active without lookup-only embedding tables";
    default:
      return conventions[conv].formula;
    }
}

double
model_spec_attention_keys (const ModelSpec *spec, guint64 seq)
{
  g_return_val_if_fail (spec != NULL, 0.0);
  const double s = (double) seq, W = (double) spec->sliding_window;
  const double C = (double) spec->attention_chunk;
  const gboolean windowed = spec->n_sliding_layers > 0 && spec->sliding_window > 0 && W < s;
  const gboolean chunked = spec->n_chunked_layers > 0 && spec->attention_chunk > 0 && C < s;
  if (!windowed && !chunked)
    return s;
  const double L = (double) spec->n_layers;
  const double Lw = windowed ? (double) spec->n_sliding_layers : 0.0;
  const double Lc = chunked ? (double) spec->n_chunked_layers : 0.0;
  double keys = (L - Lw - Lc) * s;
  if (windowed)
    keys += Lw * (2.0 * W - W * W / s);
  if (chunked)
    {
      const double n = (double) (seq / spec->attention_chunk);
      const double r = s - n * C;
      keys += Lc * (n * C * C + r * r) / s;
    }
  return keys / L;
}


/* Pairs (query, key) of the queries in [a, b) under a causal window W: the integral of
 * min (p, W) dp. */
static double
window_pairs (double a, double b, double W)
{
  const double Fa = a <= W ? a * a / 2.0 : W * a - W * W / 2.0;
  const double Fb = b <= W ? b * b / 2.0 : W * b - W * W / 2.0;
  return Fb - Fa;
}

double
model_window_pairs_ratio_cp (double s, double W, guint64 cp)
{
  if (!(W > 0) || W >= s || cp == 0)
    return 1.0;
  const double L = s / (2.0 * (double) cp);
  double most = 0.0;
  for (guint64 r = 0; r < cp; r++)
    {
      const double lo = (double) r * L, hi = (double) (2 * cp - 1 - r) * L;
      most = MAX (most, window_pairs (lo, lo + L, W) + window_pairs (hi, hi + L, W));
    }
  return most / (L * s);
}

/* Conventions written for a dense model with a dense MLP of 4h (Narayanan, Korthikanti)
 * have no term for experts or latent attention. */
const char *
model_flop_convention_refusal (const ModelSpec *spec, ModelFlopConvention conv)
{
  g_return_val_if_fail (spec != NULL, NULL);
  if (conv != MODEL_FLOPS_MEGATRON96 && conv != MODEL_FLOPS_MEGATRON72)
    return NULL;
  if (model_spec_is_moe (spec))
    return "its formula assumes one dense MLP of ffn = 4h per layer, which a mixture of "
           "experts does not have; use mcore, causal or palm";
  if (model_spec_is_mla (spec))
    return "its formula assumes ordinary attention of width h, which latent attention does "
           "not have; use mcore, causal or palm";
  if (model_spec_is_gdn (spec))
    return "its formula assumes softmax attention in every layer, which Gated DeltaNet "
           "layers do not have; use mcore, causal or palm";
  if (model_spec_is_mamba (spec))
    return "its formula assumes attention and a dense MLP in every layer, which a hybrid of "
           "Mamba-2, attention and MLP layers does not have; use mcore, causal or palm";
  return NULL;
}

/* Matmul weights one token multiplies in one forward pass, per layer kind: the active
 * counterpart of the mcore bracket. Dense layer: attention projections + dense MLP; MoE
 * layer: attention projections + router + k experts + shared experts. Norms and biases
 * are not matmul weights. */
static double
mlp_matmul (const ModelSpec *spec, double f)
{
  return (spec->mlp == MODEL_MLP_SWIGLU ? 3.0 : 2.0) * (double) spec->hidden * f;
}

static double
attention_matmul (const ModelSpec *spec)
{
  const double h = (double) spec->hidden, a = (double) spec->n_heads;
  if (model_spec_is_mla (spec))
    {
      const double rq = (double) spec->q_lora_rank, rkv = (double) spec->kv_lora_rank;
      const double rope = (double) spec->qk_rope_head_dim;
      const double nope = (double) spec->qk_nope_head_dim, v = (double) spec->v_head_dim;
      double q = rq > 0 ? h * rq + rq * a * (nope + rope) : h * a * (nope + rope);
      return q + h * (rkv + rope) + rkv * a * (nope + v) + a * v * h;
    }
  const double d = (double) spec->head_dim, g = (double) spec->n_kv_heads;
  /* gated attention: q_proj also yields the output gate (a d more) */
  return h * (a + 2.0 * g) * d + a * d * h + (spec->attn_output_gate ? h * a * d : 0.0);
}

/* A Gated DeltaNet layer's matmul weights (in projection h x (2 K + 2 Vd + 2 Hv), out
 * projection Vd x h; the depthwise conv is element-wise work) and its chunked delta rule
 * per token (model_spec_gdn_core_flops), which runs whole: no causal halving. */
static double
gdn_matmul (const ModelSpec *spec)
{
  const double h = (double) spec->hidden, hv = (double) spec->gdn_v_heads;
  const double kd = (double) (spec->gdn_k_heads * spec->gdn_k_dim);
  const double vd = hv * (double) spec->gdn_v_dim;
  return h * (2.0 * kd + 2.0 * vd + 2.0 * hv) + vd * h;
}

/* The chunked delta rule of all GDN layers, forward, per token (0 without). */
static double
delta_rule_per_token (const ModelSpec *spec)
{
  const guint64 n_lin = model_spec_n_linear_layers (spec);
  if (n_lin == 0)
    return 0.0;
  return (double) n_lin * model_spec_gdn_core_flops (spec->gdn_v_heads, spec->gdn_k_dim,
                                                     spec->gdn_v_dim, MODEL_GDN_CHUNK);
}

/* Forward FLOPs per token, as 2 x the matmul weights (all layers and the logits) and the
 * attention term 2 s a (d_qk + d_v) per layer, non-causal, times `attn_scale`. Used for
 * MoE and MLA models, whose layers the dense closed forms cannot describe. */
static double
general_fwd_per_token (const ModelSpec *spec, guint64 seq, double attn_scale,
                       gboolean lookup_free)
{
  ModelParams p;
  model_spec_params (spec, &p);
  /* GDN hybrids: n_linear layers mix tokens with the delta rule, the others attend */
  const double n_lin = (double) p.n_linear_layers;
  const double n_attn = (double) spec->n_layers - n_lin;
  double weights = n_attn * attention_matmul (spec) + n_lin * gdn_matmul (spec)
                   + (double) p.n_dense_layers * mlp_matmul (spec, (double) spec->ffn_hidden);
  if (model_spec_is_moe (spec))
    weights += (double) p.n_moe_layers
               * ((double) spec->hidden * (double) spec->n_experts
                  + (double) spec->moe_top_k * mlp_matmul (spec, (double) spec->moe_ffn)
                  + mlp_matmul (spec, (double) spec->shared_expert_ffn)
                  + (spec->shared_expert_gate ? (double) spec->hidden : 0.0));
  if (!lookup_free)
    weights += (double) spec->hidden * (double) spec->vocab;       /* logits */
  const double d_qk = model_spec_is_mla (spec)
                      ? (double) (spec->qk_nope_head_dim + spec->qk_rope_head_dim)
                      : (double) spec->head_dim;
  const double d_v = model_spec_is_mla (spec) ? (double) spec->v_head_dim
                                              : (double) spec->head_dim;
  const double attn = 2.0 * model_spec_attention_keys (spec, seq) * (double) spec->n_heads
                      * (d_qk + d_v);
  return 2.0 * weights + delta_rule_per_token (spec) + attn_scale * n_attn * attn;
}


double
model_spec_mtp_flops_per_token (const ModelSpec *spec, guint64 seq, gboolean causal)
{
  g_return_val_if_fail (spec != NULL, 0.0);
  if (spec->mtp_layers == 0)
    return 0.0;
  const double h = (double) spec->hidden;
  double weights = 2.0 * h * h + attention_matmul (spec) + h * (double) spec->vocab;
  if (model_spec_is_moe (spec))
    weights += h * (double) spec->n_experts
               + (double) spec->moe_top_k * mlp_matmul (spec, (double) spec->moe_ffn)
               + mlp_matmul (spec, (double) spec->shared_expert_ffn)
               + (spec->shared_expert_gate ? h : 0.0);
  else
    weights += mlp_matmul (spec, (double) spec->ffn_hidden);
  const double d_qk = model_spec_is_mla (spec)
                      ? (double) (spec->qk_nope_head_dim + spec->qk_rope_head_dim)
                      : (double) spec->head_dim;
  const double d_v = model_spec_is_mla (spec) ? (double) spec->v_head_dim
                                              : (double) spec->head_dim;
  const double attn = 2.0 * (double) seq * (double) spec->n_heads * (d_qk + d_v)
                      * (causal ? 0.5 : 1.0);
  return 3.0 * (double) spec->mtp_layers * (2.0 * weights + attn);
}

static double mamba_hybrid_fwd_per_token (const ModelSpec *spec, guint64 seq,
                                          gboolean attn_causal, gboolean with_scan,
                                          gboolean logits);
static double mamba_scan_per_token (const ModelSpec *spec);

void
model_spec_layer_fwd_flops_per_token (const ModelSpec *spec, guint64 seq,
                                      ModelLayerFlops *out)
{
  g_return_if_fail (spec != NULL && out != NULL);
  if (model_spec_is_mamba (spec))
    {
      /* the average layer: matmuls and SSD scans of all layers, attention of the '*'
       * layers, over L */
      const double L = (double) spec->n_layers;
      const double mats = mamba_hybrid_fwd_per_token (spec, 0, TRUE, FALSE, FALSE);
      out->gemm = (mats + mamba_scan_per_token (spec)) / L;
      out->attention_full = (double) model_spec_n_layers_of_kind (spec, '*') * 4.0
                            * (double) seq * (double) spec->n_heads * (double) spec->head_dim
                            / L;
      out->attention = out->attention_full / 2.0;
      return;
    }
  if (needs_general (spec))
    {
      /* the average layer: dense and MoE layers together, over L */
      const double L = (double) spec->n_layers;
      const double all = general_fwd_per_token (spec, seq, 1.0, TRUE);
      const double gemm = general_fwd_per_token (spec, seq, 0.0, TRUE);
      out->gemm = gemm / L;
      out->attention_full = (all - gemm) / L;
      out->attention = out->attention_full / 2.0;
      return;
    }
  const double h = (double) spec->hidden, f = (double) spec->ffn_hidden;
  const double H = (double) spec->n_heads, G = (double) spec->n_kv_heads;
  const double d = (double) spec->head_dim, s = model_spec_attention_keys (spec, seq);
  const double mlp_mats = spec->mlp == MODEL_MLP_SWIGLU ? 3.0 : 2.0;

  /* 2 FLOPs per weight per token for qkv (h x (H+2G)d), out (Hd x h), MLP (2 or 3 h x f). */
  out->gemm = 2.0 * (h * (H + 2.0 * G) * d + H * d * h + mlp_mats * h * f);
  /* QK^T and AV: 2 * s * d per head each, per query token; causal keeps half. */
  out->attention_full = 4.0 * s * H * d;
  out->attention = out->attention_full / 2.0;
}

/* A Mamba-2 mixer's matmul weights: in_proj h x (2 d_inner + 2 G N + heads) and out_proj
 * d_inner x h (the conv is depthwise, element-wise work). */
static double
mamba_matmul (const ModelSpec *spec)
{
  const double h = (double) spec->hidden, H = (double) spec->mamba_heads;
  const double di = H * (double) spec->mamba_head_dim;
  const double gn = (double) (spec->mamba_groups * spec->mamba_state);
  return h * (2.0 * di + 2.0 * gn + H) + di * h;
}

/* Megatron-Core's FLOPs of a hybrid model (Megatron-LM megatron/training/training.py
 * num_floating_point_operations, is_hybrid_model: hybrid_flops with attn_layer_flops,
 * mlp_layer_flops, mamba_layer_flops; the same functions in Megatron-Bridge's
 * training/utils/flop_utils.py), per token, x 3 for forward and backward:
 *   attention layer  4 h q (1 + G/H + s/(2h))  (q, o: 2 h q each; k, v: 2 h q G/H each;
 *                     scores and AV 2 s q, i.e. causal)
 *   MLP layer        4 h f                      (relu2, two matrices; x 1.5 if gated)
 *   Mamba layer      2 h (2 d_in + 2 g N + Hm) + 7 d_in N + 2 d_in h  (in_proj, "scan",
 *                     out_proj; Megatron writes d_in = 2 h, which is d_inner at expand 2,
 *                     as in every Nemotron-H config)
 *   logits           2 h V
 * The mcore and causal conventions both take it as it is (its attention is already
 * halved); `with_scan` FALSE drops the 7 d_in N term (the palm form adds the SSD count). */
static double
mamba_hybrid_fwd_per_token (const ModelSpec *spec, guint64 seq, gboolean attn_causal,
                            gboolean with_scan, gboolean logits)
{
  ModelParams p;
  model_spec_params (spec, &p);
  const double h = (double) spec->hidden, H = (double) spec->n_heads;
  const double G = (double) spec->n_kv_heads, q = H * (double) spec->head_dim;
  const double s = (double) seq, f = (double) spec->ffn_hidden;
  const double di = (double) (spec->mamba_heads * spec->mamba_head_dim);
  const double N = (double) spec->mamba_state;
  const double attn = 4.0 * h * q * (1.0 + G / H) + (attn_causal ? 2.0 : 4.0) * s * q;
  const double mlp = (spec->mlp == MODEL_MLP_SWIGLU ? 6.0 : 4.0) * h * f;
  const double mamba = 2.0 * mamba_matmul (spec) + (with_scan ? 7.0 * di * N : 0.0);
  return (double) p.n_attn_layers * attn + (double) p.n_mlp_layers * mlp
         + (double) p.n_linear_layers * mamba
         + (logits ? 2.0 * h * (double) spec->vocab : 0.0);
}

/* The SSD scans of all Mamba layers, forward, per token (model_spec_mamba_scan_flops). */
static double
mamba_scan_per_token (const ModelSpec *spec)
{
  return (double) model_spec_n_linear_layers (spec)
         * model_spec_mamba_scan_flops (spec->mamba_heads, spec->mamba_head_dim,
                                        spec->mamba_state, spec->mamba_groups,
                                        spec->mamba_chunk);
}

/* Megatron-Core num_floating_point_operations (Megatron-LM megatron/training/training.py,
 * as quoted in published-runs.md convention 3), per iteration:
 *   12*B*s*L*h^2*[(1 + G/H + s/h)*q/h + (ffn/h)*(1.5 if SwiGLU else 1) + V/(2*L*h)]
 * Reading: 12 = 3 passes (fwd + 2 bwd) x 2 FLOPs per MAC x 2; per layer and token the
 * forward attention work is Q and O projections 2*h*q each, K and V 2*h*G*d each
 * (= 2*h*q*G/H), scores and AV 2*s*q each, which sum to 4*h*q*(1 + G/H + s/h); the MLP is
 * 4*h*ffn (two matrices) or 6*h*ffn (three, SwiGLU); logits 2*h*V once per token.
 * Check: Llama 3 70B (h 8192, L 80, H 64, G 8, q 8192, ffn 28672, V 128256), s 8192:
 * 12*80*8192^2 * (2.125 + 5.25 + 0.0979) = 481.4 GFLOP/token. `attn_scale` is 1 for
 * this convention and 1/2 for the causal one (the s/h term halved). */
static double
mcore_per_token (const ModelSpec *spec, guint64 seq, double attn_scale)
{
  const double L = (double) spec->n_layers, h = (double) spec->hidden;
  const double H = (double) spec->n_heads, G = (double) spec->n_kv_heads;
  const double q = H * (double) spec->head_dim, s = model_spec_attention_keys (spec, seq);
  const double ffn = (double) spec->ffn_hidden, V = (double) spec->vocab;
  const double gated = spec->mlp == MODEL_MLP_SWIGLU ? 1.5 : 1.0;
  return 12.0 * L * h * h
         * ((1.0 + G / H + attn_scale * s / h) * q / h + ffn / h * gated + V / (2.0 * L * h));
}

double
model_spec_flops_per_token (const ModelSpec *spec, guint64 seq, ModelFlopConvention conv)
{
  g_return_val_if_fail (spec != NULL, 0.0);
  const double L = (double) spec->n_layers, h = (double) spec->hidden;
  /* s in the attention terms: keys per query, the sequence unless windows shorten it */
  const double s = model_spec_attention_keys (spec, seq), V = (double) spec->vocab;

  if (model_flop_convention_refusal (spec, conv) != NULL)
    return 0.0;
  if (model_spec_is_mamba (spec))
    switch (conv)
      {
      case MODEL_FLOPS_MCORE:
      case MODEL_FLOPS_CAUSAL:
        return 3.0 * mamba_hybrid_fwd_per_token (spec, seq, TRUE, TRUE, TRUE);
      case MODEL_FLOPS_PALM:
        /* 6 N + 12 L_attn H d s (non-causal) + the SSD scans x 3 */
        return 6.0 * (double) model_spec_palm_params (spec)
               + 12.0 * (double) model_spec_n_layers_of_kind (spec, '*')
                 * (double) spec->n_heads * (double) spec->head_dim * (double) seq
               + 3.0 * mamba_scan_per_token (spec);
      default:
        break;
      }
  if (needs_general (spec))
    switch (conv)
      {
      case MODEL_FLOPS_MCORE:
        /* 3 x forward; the mcore bracket with the active MLP and the router */
        return 3.0 * general_fwd_per_token (spec, seq, 1.0, FALSE);
      case MODEL_FLOPS_CAUSAL:
        return 3.0 * general_fwd_per_token (spec, seq, 0.5, FALSE);
      case MODEL_FLOPS_PALM:
        /* 6 N_active + 6 L s a (d_qk + d_v) (= 12 L H d s when d_qk = d_v = d) */
        return 6.0 * (double) model_spec_palm_params (spec)
               + 3.0 * (general_fwd_per_token (spec, seq, 1.0, TRUE)
                        - general_fwd_per_token (spec, seq, 0.0, TRUE))
               + 3.0 * delta_rule_per_token (spec);
      default:
        break;
      }

  switch (conv)
    {
    case MODEL_FLOPS_MEGATRON96:
      /* Narayanan et al. SC'21, eq. 3: F = 96*B*s*L*h^2*(1 + s/(6h) + V/(16*L*h)) per
       * iteration; divided by B*s tokens. */
      return 96.0 * L * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * L * h));
    case MODEL_FLOPS_MEGATRON72:
      /* Korthikanti et al. 2022, model FLOPs: 72*B*s*L*h^2*(1 + s/(6h) + V/(12*L*h)). */
      return 72.0 * L * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * L * h));
    case MODEL_FLOPS_MCORE:
      return mcore_per_token (spec, seq, 1.0);
    case MODEL_FLOPS_CAUSAL:
      return mcore_per_token (spec, seq, 0.5);
    case MODEL_FLOPS_PALM:
      /* Chowdhery et al. 2022 (PaLM) Appendix B: 6*N + 12*L*H*Q*T per token, Q head_dim,
       * T sequence length; N as model_spec_palm_params. */
      return 6.0 * (double) model_spec_palm_params (spec)
             + 12.0 * L * (double) spec->n_heads * (double) spec->head_dim * s;
    case MODEL_FLOPS_N_CONVENTIONS:
    default:
      break;
    }
  g_return_val_if_reached (0.0);
}

/* What the GPUs execute per token: forward GEMMs and causal attention of every layer plus
 * the logits GEMM, times 3 (backward = 2x forward: input and weight gradients), plus the
 * recomputed share of the layer forward. FlashAttention's own recompute of the scores in
 * its backward and all element-wise work are not counted (matmul FLOPs only, like the
 * conventions above). */
double
model_spec_hw_flops_per_token (const ModelSpec *spec, guint64 seq, double recompute_fraction)
{
  g_return_val_if_fail (spec != NULL, 0.0);
  g_return_val_if_fail (recompute_fraction >= 0.0 && recompute_fraction <= 1.0, 0.0);
  ModelLayerFlops lf;
  model_spec_layer_fwd_flops_per_token (spec, seq, &lf);
  const double layers_fwd = (double) spec->n_layers * (lf.gemm + lf.attention);
  const double logits_fwd = 2.0 * (double) spec->hidden * (double) spec->vocab;
  return 3.0 * (layers_fwd + logits_fwd) + recompute_fraction * layers_fwd;
}
