/* plan/program-blocks.c - the ops of one rank, grouped into the blocks the step program's
 * compute tasks point at (see program.c's top comment for the conventions). */
#include "plan/program-private.h"

#include <math.h>
#include <string.h>

/* ---- ops and blocks ------------------------------------------------------------------ */

static void
add_op (GArray *ops, const char *name, ModelOpKind kind, guint64 m, guint64 n, guint64 k,
        guint64 elements, double flops, double model_flops_unused)
{
  ModelOp op;
  memset (&op, 0, sizeof op);
  op.name = name;
  op.kind = kind;
  op.part = MODEL_PART_LAYER;
  op.m = m, op.n = n, op.k = k;
  op.elements = elements;
  op.fwd_flops = flops;
  op.fwd_flops_full = flops;
  op.tp_split = 'n';
  g_array_append_val (ops, op);
}

static void
gemm (GArray *ops, const char *name, guint64 m, guint64 n, guint64 k)
{
  add_op (ops, name, MODEL_OP_GEMM, m, n, k, 0, 2.0 * m * n * k, 0);
}

/* Backward of y[m,n] = x[m,k] W[k,n]: dX[m,k] = dY[m,n] W^T and dW[k,n] = X^T dY. */
static void
gemm_bwd (GArray *ops, const char *dname, const char *wname, guint64 m, guint64 n, guint64 k)
{
  gemm (ops, dname, m, k, n);
  gemm (ops, wname, k, n, m);
}

/* Element-wise FLOPs per element: a norm about 5 (square, sum, scale, weight), SwiGLU
 * about 4 (sigmoid, two products), GeLU about 8 (tanh form), residual 1, rotary 3 (two
 * products and a sum per pair). Tiny next to the GEMMs; they matter only as memory
 * traffic, which the cost model charges from `elements`. */
void
prog_builder_elem (GArray *ops, const char *name, ModelOpKind kind, guint64 elements, double per_elem)
{
  add_op (ops, name, kind, 0, 0, 0, elements, per_elem * elements, 0);
}

static void
attention (Builder *bd, GArray *ops, const char *name, double factor, guint64 heads,
           guint64 kv_heads, guint64 s_q, guint64 s_kv)
{
  ModelOp op;
  memset (&op, 0, sizeof op);
  op.name = name;
  op.kind = MODEL_OP_ATTENTION;
  op.part = MODEL_PART_LAYER;
  op.b = bd->b;
  op.heads = heads;
  op.kv_heads = MAX (kv_heads, 1);
  op.s_q = s_q;
  op.s_kv = s_kv;
  op.head_dim = bd->m->head_dim;
  op.causal = TRUE;
  /* QK^T and AV: 4 b heads s_q s_kv d, halved by the causal mask. With CP, each rank's
   * s/c queries see on average half of the s keys (load-balanced chunks). */
  /* Ring attention with the load-balanced chunks (two per rank, Transformer Engine's
   * AttnFuncWithCPAndKVP2P, PyTorch's context_parallel): of the c ring steps only the
   * first, the rank's own chunks, runs the causal kernel; each of the other c - 1 runs
   * the kernel without a mask on half the blocks (all queries against the first half of
   * the keys, or the second half of the queries against all keys), and every step does
   * the same FLOPs: (c - 1) / c of them run unmasked. */
  /* PyTorch's context_parallel runs these ring steps whatever the exchange: with K/V
   * all-gathered it reads each step's K/V out of the gathered buffer
   * (_templated_ring_attention with _AllGatherRotater; plan.h cp_ring_merge) */
  const gboolean ring = bd->c > 1 && (bd->plan->cp_comm == PLAN_CP_P2P
                                      || (bd->plan->cp_comm == PLAN_CP_ALLGATHER
                                          && bd->plan->cp_ring_merge > 0));
  if (ring && s_q < s_kv)
    op.noncausal_share = (double) (bd->c - 1) / (double) bd->c;
  /* The length one kernel call runs at (whatever chunks the program splits blocks in):
   * a ring step's s/c block; with K/V all-gathered the rank's queries go as its two
   * load-balanced chunks of s/2c, each against the keys before it (Llama 3 paper Sec.
   * 3.3.2; Transformer Engine AttnFuncWithCPAndKVAllGather); Ulysses and no CP: s. */
  op.kernel_s = bd->s;
  if (ring)
    op.kernel_s = bd->s / bd->c;
  else if (bd->c > 1 && bd->plan->cp_comm == PLAN_CP_ALLGATHER)
    op.kernel_s = MAX (bd->s / (2 * bd->c), 1);
  op.head_dim_v = model_spec_is_mla (bd->m) ? bd->m->v_head_dim : op.head_dim;
  /* QK^T 2 s_q s_kv d, AV 2 s_q s_kv d_v per sequence and head (d_v = d but for MLA) */
  op.fwd_flops_full = 2.0 * op.b * heads * s_q * s_kv * (double) (op.head_dim + op.head_dim_v);
  op.fwd_flops = factor * op.fwd_flops_full / 2.0;
  /* Sliding-window layers (gpt-oss: 128 tokens on every other layer; Megatron-Core's
   * window_size with window_attn_skip_freq, run by the fused kernel with its band mask):
   * this block stands for every layer, so the op carries the windowed share and its FLOPs
   * are the average over the layers, a windowed layer's keys per query 2W - W^2/s of s
   * (model_spec_attention_keys), where each rank holds whole sequences (no CP, Ulysses).
   * With K/V all-gathered, each of the rank's two load-balanced query chunks runs
   * against the gathered keys sliced to its window (Transformer Engine
   * AttnFuncWithCPAndKVAllGather, get_kv_seq_info_after_all_gather): the windowed
   * layers' pairs are the busiest rank's (model_window_pairs_ratio_cp); the all-gather
   * still moves the whole sequence's K/V, so only the compute shrinks. Not under a CP
   * ring (Transformer Engine runs no sliding window with p2p context parallelism, plan
   * resolve refuses it; PyTorch's ring steps over a gathered K/V apply no window);
   * unfused attention computes the whole s x s and masks after. */
  const ModelSpec *m = bd->m;
  const gboolean gathered = bd->c > 1 && !ring && bd->plan->cp_comm == PLAN_CP_ALLGATHER
                            && s_q * bd->c == s_kv;
  if (m->n_sliding_layers > 0 && m->n_layers > 0 && m->sliding_window > 0
      && m->sliding_window < s_kv && (s_q == s_kv || gathered))
    {
      const double s = (double) s_kv, W = (double) m->sliding_window;
      const double f = (double) MIN (m->n_sliding_layers, m->n_layers) / (double) m->n_layers;
      op.window = m->sliding_window;
      op.window_share = f;
      const double r = gathered ? model_window_pairs_ratio_cp (s, W, bd->c)
                                : (2.0 * W - W * W / s) / s;
      op.fwd_flops *= (1.0 - f) + f * r;
    }
  if (bd->plan->attention_backend == PLAN_ATTN_UNFUSED)
    {
      /* Unfused: the GEMMs run over the whole s x s (the mask is applied to the scores
       * afterwards), so the executed FLOPs are the full count: forward QK^T and AV,
       * backward four GEMMs of the same size (dV = P^T dO, dP = dO V^T, dQ = dS K,
       * dK = dS^T Q), twice the forward, with nothing recomputed (FlashAttention's 2.5
       * includes recomputing the scores). `factor` is 1 (forward) or 2.5 (backward). */
      op.materialized = TRUE;
      op.window = 0;
      op.window_share = 0.0;
      op.dropout = bd->attn_dropout;
      op.fwd_flops = (factor > 1.0 ? 2.0 : 1.0) * op.fwd_flops_full;
    }
  op.tp_split = 'h';
  g_array_append_val (ops, op);
}

/* The query/key/value projections of one rank over `tok` tokens, forward or backward.
 * Ordinary attention: one column-parallel GEMM h -> (a + 2 kv) d. Multi-head latent
 * attention (DeepSeek-V2 sec. 2.1; Megatron-Core MLASelfAttention): the down projections
 * h -> q_lora and h -> kv_lora + rope and their RMSNorms are replicated across TP, the up
 * projections q_lora -> a (nope + rope) and kv_lora -> a (nope + v) are column-split. */
static void
qkv_ops (Builder *bd, GArray *ops, guint64 tok, gboolean backward)
{
  const ModelSpec *m = bd->m;
  guint64 t = bd->t, h = m->hidden, d = m->head_dim;
  guint64 a = m->n_heads / t, kv = MAX (m->n_kv_heads / t, 1);
  if (!model_spec_is_mla (m))
    {
      /* gated attention (Qwen3-Next): q_proj also yields the output gate, a d more */
      guint64 n = (a + 2 * kv) * d + (m->attn_output_gate ? a * d : 0);
      if (backward)
        gemm_bwd (ops, "qkv_dgrad", "qkv_wgrad", tok, n, h);
      else
        gemm (ops, "qkv", tok, n, h);
      return;
    }
  guint64 rq = m->q_lora_rank, rkv = m->kv_lora_rank, rope = m->qk_rope_head_dim;
  guint64 nope = m->qk_nope_head_dim, dv = m->v_head_dim;
  if (!backward)
    {
      if (rq > 0)
        {
          gemm (ops, "q_down", tok, rq, h);
          prog_builder_elem (ops, "q_norm", MODEL_OP_NORM, tok * rq, 5);
          gemm (ops, "q_up", tok, a * (nope + rope), rq);
        }
      else
        gemm (ops, "q", tok, a * (nope + rope), h);
      gemm (ops, "kv_down", tok, rkv + rope, h);
      prog_builder_elem (ops, "kv_norm", MODEL_OP_NORM, tok * rkv, 5);
      gemm (ops, "kv_up", tok, a * (nope + dv), rkv);
      return;
    }
  gemm_bwd (ops, "kv_up_dgrad", "kv_up_wgrad", tok, a * (nope + dv), rkv);
  prog_builder_elem (ops, "kv_norm_grad", MODEL_OP_NORM, tok * rkv, 8);
  gemm_bwd (ops, "kv_down_dgrad", "kv_down_wgrad", tok, rkv + rope, h);
  if (rq > 0)
    {
      gemm_bwd (ops, "q_up_dgrad", "q_up_wgrad", tok, a * (nope + rope), rq);
      prog_builder_elem (ops, "q_norm_grad", MODEL_OP_NORM, tok * rq, 8);
      gemm_bwd (ops, "q_down_dgrad", "q_down_wgrad", tok, rq, h);
    }
  else
    gemm_bwd (ops, "q_dgrad", "q_wgrad", tok, a * (nope + rope), h);
}

/* --recompute-modules mla_up_proj (plan.h): before the attention core's backward the
 * checkpointed up projections run again from the stored latents: the q and kv norms,
 * q_up, kv_up and the rotary embedding (multi_latent_attention.py,
 * qkv_up_proj_and_rope_apply). Nothing without MLA. */
static guint64 rotary_elements (Builder *bd, guint64 tok);
static void
mla_up_recompute_ops (Builder *bd, GArray *ops, guint64 tok)
{
  const ModelSpec *m = bd->m;
  if (!model_spec_is_mla (m) || !(bd->plan->moe_recompute & PLAN_MOE_RECOMPUTE_MLA_UP)
      || bd->plan->recompute == PLAN_RECOMPUTE_FULL)
    return;
  guint64 a = m->n_heads / bd->t, rq = m->q_lora_rank, rkv = m->kv_lora_rank;
  guint64 nope = m->qk_nope_head_dim, rope = m->qk_rope_head_dim, dv = m->v_head_dim;
  if (rq > 0)
    {
      prog_builder_elem (ops, "q_norm_recompute", MODEL_OP_NORM, tok * rq, 5);
      gemm (ops, "q_up_recompute", tok, a * (nope + rope), rq);
    }
  prog_builder_elem (ops, "kv_norm_recompute", MODEL_OP_NORM, tok * rkv, 5);
  gemm (ops, "kv_up_recompute", tok, a * (nope + dv), rkv);
  prog_builder_elem (ops, "rotary_recompute", MODEL_OP_ELEMENTWISE, rotary_elements (bd, tok), 3);
}

/* --recompute-modules layernorm (plan.h): a norm that is a module of its own re-runs
 * before the backward of its consumer. Of the attention input norms only MLA's is (its
 * two down projections read it; ordinary QKV fuses the norm into Transformer Engine's
 * LayerNormLinear); an MoE layer's pre-MLP norm is (router, experts and shared experts
 * read it), a dense MLP's is fused. */
static gboolean
layernorm_recomputed (Builder *bd)
{
  return (bd->plan->moe_recompute & PLAN_MOE_RECOMPUTE_LAYERNORM)
         && bd->plan->recompute != PLAN_RECOMPUTE_FULL;
}

/* Rotary elements: every query and key head's rotated part (MLA: the rope part of each
 * query head and the one shared rope key). */
static guint64
rotary_elements (Builder *bd, guint64 tok)
{
  const ModelSpec *m = bd->m;
  guint64 a = m->n_heads / bd->t, kv = MAX (m->n_kv_heads / bd->t, 1);
  if (model_spec_is_mla (m))
    return tok * (a + 1) * m->qk_rope_head_dim;
  return tok * (a + kv) * model_spec_rotary_dim (m);
}

guint32
prog_builder_add_block (Builder *bd, ProgBlockKind kind, ProgPhase phase, const char *name, GArray *ops,
           double model_flops)
{
  ProgProgram *p = bd->prog;
  ProgBlock blk = { 0 };
  blk.kind = kind;
  blk.phase = phase;
  blk.name = name;
  blk.first_op = p->ops->len;
  blk.n_ops = ops->len;
  blk.model_flops = model_flops;
  for (guint i = 0; i < ops->len; i++)
    blk.hw_flops += g_array_index (ops, ModelOp, i).fwd_flops;
  g_array_append_vals (p->ops, ops->data, ops->len);
  g_array_append_val (p->blocks, blk);
  g_array_set_size (ops, 0);
  return p->blocks->len - 1;
}

/* Sum of GEMM and attention FLOPs of the ops (the "model" part of a forward block). */
static double
matmul_flops (GArray *ops)
{
  double f = 0;
  for (guint i = 0; i < ops->len; i++)
    {
      const ModelOp *op = &g_array_index (ops, ModelOp, i);
      if (op->kind == MODEL_OP_GEMM)
        f += op->fwd_flops;
      else if (op->kind == MODEL_OP_ATTENTION)
        /* model FLOPs count causal attention whatever runs (program.h) */
        f += op->materialized ? op->fwd_flops_full / 2.0 : op->fwd_flops;
      else if (op->kind == MODEL_OP_GDN)
        f += op->fwd_flops;   /* forward blocks only: the delta rule as it runs */
    }
  return f;
}

/* A linear-attention token mixer's ops on one rank, Gated DeltaNet and Mamba-2 alike:
 * norm, in projection, causal conv1d + SiLU, the chunked core (`core`, MODEL_OP_GDN), the
 * gated RMSNorm (norm of the output times SiLU (z)), out projection, residual; backward
 * the mirror. TP splits the heads (in projection and conv channels column-parallel, out
 * projection row-parallel); with SP the norm and residual see the rank's sequence shard.
 * in_n, conv_ch: the in projection's and the conv's widths on this rank; out_w: the core's
 * output width (the gated norm's and the out projection's). The names are the mixer's. */
typedef struct {
  const char *in_proj, *in_dgrad, *in_wgrad, *conv, *conv_grad, *norm, *norm_grad;
  const char *out, *out_dgrad, *out_wgrad;
} MixerNames;

static void
linear_mixer_ops (Builder *bd, GArray *ops, gboolean backward, const MixerNames *nm,
                  ModelOp *core, guint64 in_n, guint64 conv_ch, guint64 conv_kernel,
                  guint64 out_w)
{
  guint64 tok = bd->tok, tsp = bd->tok_sp, h = bd->m->hidden;
  double conv_f = 2.0 * (double) conv_kernel + 4.0;
  core->kind = MODEL_OP_GDN;
  core->part = MODEL_PART_LAYER;
  core->b = bd->b;
  core->s_q = core->s_kv = MAX (tok / MAX (bd->b, 1), 1);
  core->causal = TRUE;
  core->fwd_flops_full = core->fwd_flops;
  core->tp_split = 'h';
  if (!backward)
    {
      prog_builder_elem (ops, "attn_norm", MODEL_OP_NORM, tsp * h, 5);
      gemm (ops, nm->in_proj, tok, in_n, h);
      prog_builder_elem (ops, nm->conv, MODEL_OP_ELEMENTWISE, tok * conv_ch, conv_f);
      g_array_append_val (ops, *core);
      prog_builder_elem (ops, nm->norm, MODEL_OP_NORM, tok * out_w, 9);
      gemm (ops, nm->out, tok, h, out_w);
      prog_builder_elem (ops, "attn_residual", MODEL_OP_ELEMENTWISE, tsp * h, 1);
      return;
    }
  prog_builder_elem (ops, "attn_residual_grad", MODEL_OP_ELEMENTWISE, tsp * h, 1);
  gemm_bwd (ops, nm->out_dgrad, nm->out_wgrad, tok, h, out_w);
  prog_builder_elem (ops, nm->norm_grad, MODEL_OP_NORM, tok * out_w, 12);
  g_array_append_val (ops, *core);
  prog_builder_elem (ops, nm->conv_grad, MODEL_OP_ELEMENTWISE, tok * conv_ch, 2 * conv_f);
  gemm_bwd (ops, nm->in_dgrad, nm->in_wgrad, tok, in_n, h);
  prog_builder_elem (ops, "attn_norm_grad", MODEL_OP_NORM, tsp * h, 8);
}

/* The token mixer of a Gated DeltaNet layer (models/model.h has the shapes), split as
 * Megatron-Core's GatedDeltaNet: in projection q, k, v, z, beta, a; conv over q, k, v.
 * The delta rule's backward executes the gradients of its forward matmuls (2x) and
 * recomputes the chunk states it did not keep (flash-linear-attention's
 * chunk_gated_delta_rule_bwd: W S and K^T V_new again, 4 d_k d_v per token and head). */
static void
gdn_ops (Builder *bd, GArray *ops, gboolean backward)
{
  static const MixerNames names = {
    "gdn_in_proj", "gdn_in_proj_dgrad", "gdn_in_proj_wgrad", "gdn_conv", "gdn_conv_grad",
    "gdn_norm", "gdn_norm_grad", "gdn_out", "gdn_out_dgrad", "gdn_out_wgrad"
  };
  const ModelSpec *m = bd->m;
  guint64 t = bd->t, tok = bd->tok;
  guint64 hv = MAX (m->gdn_v_heads / t, 1), hk = MAX (m->gdn_k_heads / t, 1);
  guint64 dk = m->gdn_k_dim, dv = m->gdn_v_dim, kd = hk * dk, vd = hv * dv;
  ModelOp core;
  memset (&core, 0, sizeof core);
  core.name = backward ? "gdn_core_grad" : "gdn_core";
  core.heads = hv;
  core.kv_heads = hk;
  core.head_dim = dk;
  core.head_dim_v = dv;
  core.chunk = MODEL_GDN_CHUNK;
  double fwd = (double) tok * model_spec_gdn_core_flops (hv, dk, dv, MODEL_GDN_CHUNK);
  core.fwd_flops = backward ? 2.0 * fwd + 4.0 * (double) tok * (double) hv * dk * dv : fwd;
  linear_mixer_ops (bd, ops, backward, &names, &core, 2 * kd + 2 * vd + 2 * hv,
                    2 * kd + vd, m->gdn_conv, vd);
}

/* The Mamba-2 mixer of a hybrid Mamba layer (models/model.h layer_pattern), split as
 * Megatron-Core's MambaMixer: in_proj over z, x, B, C, dt (the per-head dt_bias, A_log, D
 * with them); conv over x, B, C. The core is the chunked SSD scan (heads the mamba heads,
 * kv_heads the groups, head_dim the state N, head_dim_v the head width P, chunk Q;
 * model_spec_mamba_scan_flops); its backward executes the gradients of its forward matmuls
 * (2x) and recomputes the chunk states it did not keep (mamba_ssm ssd_combined.py
 * _mamba_chunk_scan_combined_bwd runs _chunk_state_fwd and _state_passing_fwd again:
 * 2 N P heads (1 + 1/Q) per token). */
static void
mamba_ops (Builder *bd, GArray *ops, gboolean backward)
{
  static const MixerNames names = {
    "mamba_in_proj", "mamba_in_proj_dgrad", "mamba_in_proj_wgrad", "mamba_conv",
    "mamba_conv_grad", "mamba_norm", "mamba_norm_grad", "mamba_out", "mamba_out_dgrad",
    "mamba_out_wgrad"
  };
  const ModelSpec *m = bd->m;
  guint64 t = bd->t, tok = bd->tok;
  guint64 H = MAX (m->mamba_heads / t, 1), G = MAX (m->mamba_groups / t, 1);
  guint64 P = m->mamba_head_dim, N = m->mamba_state, Q = m->mamba_chunk;
  guint64 di = H * P, gn = G * N;
  ModelOp core;
  memset (&core, 0, sizeof core);
  core.name = backward ? "mamba_scan_grad" : "mamba_scan";
  core.heads = H;
  core.kv_heads = G;
  core.head_dim = N;
  core.head_dim_v = P;
  core.chunk = Q;
  double fwd = (double) tok * model_spec_mamba_scan_flops (H, P, N, G, Q);
  double states = (double) tok * 2.0 * (double) (N * P * H) * (1.0 + 1.0 / (double) MAX (Q, 1));
  core.fwd_flops = backward ? 2.0 * fwd + states : fwd;
  linear_mixer_ops (bd, ops, backward, &names, &core, 2 * di + 2 * gn + H, di + 2 * gn,
                    m->mamba_conv, di);
}

/* PyTorch's context_parallel ring loop (plan.h cp_ring_merge; torch/distributed/tensor/
 * experimental/_attention.py, _templated_ring_attention and its backward), the passes
 * on the compute stream besides the attention kernels, in bytes read plus written (the
 * op's elements; sim/cost-compute.c runs them as one streaming pass). Eq: elements of the
 * rank's queries (and output), Ekv: of its K (and of V), at the heads SDPA gets.
 * Forward: each of the c - 1 steps after the first merges its block output into the
 * running output, upcast to fp32 (_SDPAMerger, convert_to_f32 = True):
 * out - sigmoid (lse_i - lse) (out - out_i) reads the fp32 output (4 B) and the block's
 * bf16 output (2 B) and writes the fp32 output (4 B): 10 Eq. Backward: each of the c steps
 * adds its bf16 dQ into the fp32 dQ (read 4 + 2, write 4: 10 Eq) and its bf16 dK, dV into
 * the fp32 sums it received from the previous rank, written into the buffer sent on
 * (read 4 + 2, write 4 for each: 20 Ekv). D, counted as the fewest bytes each step must
 * move, as a compiled run fuses them: torchtitan compiles each transformer block with
 * fullgraph = True (apply_compile), which a graph break in the ring loop would fail, so
 * its compiled runs trace the loop; eager runs each op as its own kernel (the merge is
 * five, the load-balanced steps re-concatenate the half they update, torch.cat of the
 * fp32 output or gradient: several times these bytes; U, not counted). The rank that
 * does the whole queries against half the keys at every step (the last) is the one
 * counted: each step's merge runs over all its queries. */
static void
cp_merge_ops (Builder *bd, GArray *ops, gboolean backward)
{
  const ModelSpec *m = bd->m;
  if (bd->c <= 1 || bd->plan->cp_comm == PLAN_CP_A2A || bd->plan->cp_ring_merge <= 0)
    return;
  const guint64 a = m->n_heads / bd->t;
  const guint64 kvh = bd->plan->cp_kv_repeated > 0 ? a : MAX (m->n_kv_heads / bd->t, 1);
  const double d = (double) m->head_dim;
  const double eq = (double) bd->tok * (double) a * d;
  const double ekv = (double) bd->tok * (double) kvh * d;
  const double c = (double) bd->c;
  const double bytes = backward ? c * (10.0 * eq + 20.0 * ekv) : (c - 1.0) * 10.0 * eq;
  prog_builder_elem (ops, backward ? "cp_merge_grad" : "cp_merge", MODEL_OP_ELEMENTWISE,
                     (guint64) bytes, 0);
}

/* With all-gathered K/V PyTorch's ring loop runs its first step on the rank's own K/V
 * while the all-gather is in flight, and the later steps wait for it
 * (_templated_ring_attention: the rotater's exchange_buffers before step 0's SDPA,
 * next_buffer at step 1): the core is built as two blocks, the first step (1/c of the
 * FLOPs, the causal kernel on the rank's s/c) and the other c - 1 (every FLOP unmasked).
 * Together they cost what the one core with its (c - 1)/c unmasked share did. */
static gboolean
cp_split_first (Builder *bd)
{
  return bd->c > 1 && bd->plan->cp_comm == PLAN_CP_ALLGATHER && bd->plan->cp_ring_merge > 0;
}

/* Turns the last op of `ops` (the rank's attention: s/c queries against s keys, causal)
 * into the first ring step's, its queries against its own s/c keys with the causal
 * kernel (1/c of the FLOPs), or into the other c - 1 steps', every FLOP unmasked and as
 * many as s/c queries against (c - 1) s/2c keys ((c - 1)/c of them): the shapes set the
 * exponentials the cost model counts (sim/cost-compute.c attention_exp_s). */
static void
cp_step_share (Builder *bd, GArray *ops, gboolean first)
{
  ModelOp *op = &g_array_index (ops, ModelOp, ops->len - 1);
  const double c = (double) bd->c;
  const double share = first ? 1.0 / c : (c - 1.0) / c;
  op->fwd_flops *= share;
  op->fwd_flops_full *= share;
  op->s_kv = first ? bd->s / bd->c : MAX ((bd->c - 1) * bd->s / (2 * bd->c), 1);
  op->noncausal_share = first ? 0.0 : 1.0;
}

/* TP with sequence parallelism through PyTorch's functional collectives (plan.h
 * tp_seq_copies): DTensor's Shard(1) -> Replicate redistribution, which torchtitan's
 * sequence-parallel plan runs before each block's column-parallel GEMMs (and backward
 * before the row-parallel data gradient), calls funcol.all_gather_tensor (gather_dim 1),
 * which gathers along dim 0 and re-lays the result, torch.cat (torch.chunk (res, tp,
 * dim = 0), dim = gather_dim); Partial -> Shard(1), after the row-parallel GEMM (and
 * backward after the input gradient), calls funcol.reduce_scatter_tensor (scatter_dim
 * 1), which re-lays its input, torch.cat (torch.chunk (x, tp, dim = scatter_dim)), before
 * the collective (torch/distributed/_functional_collectives.py; torch/distributed/tensor/
 * placement_types.py Shard._to_replicate_tensor, _reduce_shard_tensor). Each is a copy of
 * the whole tok x h tensor on the compute stream, read and written: `elements` are those
 * bytes (sim/cost-compute.c). The gathered tensor is in the all-gather's dtype (fp8 with
 * torchao's Float8 TP: tp_ag_bytes), the reduce-scattered one in bf16. Not copied:
 * with async TP (the stack's TP-comm overlap) the fused all-gather-matmul reads each
 * shard where it lands and the fused matmul-reduce-scatter writes each destination's
 * rows apart (torch/distributed/_symmetric_memory), so `fused` copies go; compiled,
 * the reduce-scatter of a sum (the backward's input gradient, a sum over the q/k/v or
 * gate/up data gradients: `sum_input`) is re-laid by the kernel that adds them (inductor
 * lowers the cat of a pointwise producer into that producer), so it costs nothing
 * more; the forward's row-parallel output comes from a cuBLAS GEMM, which cannot. */
static void
tp_seq_copy (Builder *bd, GArray *ops, gboolean gather, gboolean sum_input)
{
  const Plan *p = bd->plan;
  if (bd->t <= 1 || !p->sequence_parallel || p->tp_seq_copies <= 0)
    return;
  if (!sum_input && p->tp_comm_overlap)
    return;
  if (sum_input && p->compile)
    return;
  const double elt = gather && bd->act_bytes > 0
                       ? bd->elt_bytes * bd->tp_ag_bytes / bd->act_bytes : bd->elt_bytes;
  prog_builder_elem (ops, "tp_seq_copy", MODEL_OP_ELEMENTWISE,
                     (guint64) (2.0 * elt * (double) bd->tok * (double) bd->m->hidden + 0.5), 0);
}

void
prog_builder_build_blocks (Builder *bd)
{
  const ModelSpec *m = bd->m;
  guint64 t = bd->t, tok = bd->tok, tsp = bd->tok_sp, h = m->hidden, d = m->head_dim;
  guint64 a = m->n_heads / t, ffn = m->ffn_hidden / t;
  guint64 kv = model_spec_is_mla (m) ? a : MAX (m->n_kv_heads / t, 1);
  /* the attention output's width per head: v_head_dim for MLA, else head_dim */
  guint64 dv_out = model_spec_is_mla (m) ? m->v_head_dim : d;
  guint64 V = m->vocab / t + (m->vocab % t ? 1 : 0);   /* vocab-parallel, padded */
  guint64 up_n = (m->mlp == MODEL_MLP_SWIGLU ? 2 : 1) * ffn;
  double act_f = m->mlp == MODEL_MLP_SWIGLU ? 4 : 8;
  ModelOpKind norm = MODEL_OP_NORM;
  g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  double mf;

  /* embedding: a lookup, memory-bound */
  prog_builder_elem (ops, "embed", MODEL_OP_EMBEDDING, tsp * h, 0);
  bd->blk[B_EMBED_F] = prog_builder_add_block (bd, PROG_BLOCK_EMBED, PROG_PHASE_FORWARD, "embed_fwd", ops, 0);
  prog_builder_elem (ops, "embed_grad", MODEL_OP_EMBEDDING, tsp * h, 1);
  bd->blk[B_EMBED_B] = prog_builder_add_block (bd, PROG_BLOCK_EMBED, PROG_PHASE_BACKWARD, "embed_bwd", ops, 0);

  /* attention pieces (forward); RoPE fused, or as unfused PyTorch ops (plan.h
   * no_rope_fusion; sim/cost-compute.c "rotary_unfused") */
  const char *rope_fwd = bd->plan->no_rope_fusion ? "rotary_unfused" : "rotary";
  const char *rope_bwd = bd->plan->no_rope_fusion ? "rotary_unfused_grad" : "rotary_grad";
  guint64 s_q = bd->s / bd->c / bd->q_div, s_kv = bd->s;
#define ATTN_PRE_OPS() G_STMT_START {                                   \
    prog_builder_elem (ops, "attn_norm", norm, tsp * h, 5);                          \
    tp_seq_copy (bd, ops, TRUE, FALSE);                                 \
    qkv_ops (bd, ops, tok, FALSE);                                      \
    if (m->pos == MODEL_POS_ROTARY || model_spec_is_mla (m))            \
      prog_builder_elem (ops, rope_fwd, MODEL_OP_ELEMENTWISE, rotary_elements (bd, tok), 3); \
  } G_STMT_END
#define ATTN_POST_OPS() G_STMT_START {                                  \
    if (m->attn_output_gate)                                            \
      prog_builder_elem (ops, "attn_gate", MODEL_OP_ELEMENTWISE, tok * a * dv_out, 4); \
    gemm (ops, "attn_out", tok, h, a * dv_out);                         \
    tp_seq_copy (bd, ops, FALSE, FALSE);                                \
    prog_builder_elem (ops, "attn_residual", MODEL_OP_ELEMENTWISE, tsp * h, 1);      \
  } G_STMT_END

  ATTN_PRE_OPS ();
  attention (bd, ops, "attn_core", 1.0, a, kv, s_q, s_kv);
  ATTN_POST_OPS ();
  mf = matmul_flops (ops);
  bd->blk[B_ATTN_F] = prog_builder_add_block (bd, PROG_BLOCK_ATTN, PROG_PHASE_FORWARD, "attn_fwd", ops, mf);
  ATTN_PRE_OPS ();
  mf = matmul_flops (ops);
  bd->blk[B_ATTN_PRE_F] = prog_builder_add_block (bd, PROG_BLOCK_ATTN_PRE, PROG_PHASE_FORWARD, "attn_pre_fwd",
                                     ops, mf);
  /* Ulysses (a2a) turns the rank's s/c queries x a heads into s queries x a/c heads */
  if (bd->plan->cp_comm == PLAN_CP_A2A && bd->c > 1)
    attention (bd, ops, "attn_core", 1.0, a / bd->c, MAX (kv / bd->c, 1), bd->s / bd->q_div,
               bd->s);
  else
    attention (bd, ops, "attn_core", 1.0, a, kv, s_q, s_kv);
  bd->blk[B_CP_FIRST_F] = bd->blk[B_CP_FIRST_B] = G_MAXUINT32;
  if (cp_split_first (bd))
    {
      cp_step_share (bd, ops, TRUE);
      mf = matmul_flops (ops);
      bd->blk[B_CP_FIRST_F] = prog_builder_add_block (bd, PROG_BLOCK_ATTN_CORE,
                                                      PROG_PHASE_FORWARD, "attn_core_first_fwd",
                                                      ops, mf);
      attention (bd, ops, "attn_core", 1.0, a, kv, s_q, s_kv);
      cp_step_share (bd, ops, FALSE);
    }
  cp_merge_ops (bd, ops, FALSE);
  mf = matmul_flops (ops);
  bd->blk[B_ATTN_CORE_F] = prog_builder_add_block (bd, PROG_BLOCK_ATTN_CORE, PROG_PHASE_FORWARD,
                                      "attn_core_fwd", ops, mf);
  ATTN_POST_OPS ();
  mf = matmul_flops (ops);
  bd->blk[B_ATTN_POST_F] = prog_builder_add_block (bd, PROG_BLOCK_ATTN_POST, PROG_PHASE_FORWARD,
                                      "attn_post_fwd", ops, mf);

  /* attention pieces (backward): reverse order, 2x model FLOPs, flash bwd 2.5x */
#define ATTN_POST_BWD() G_STMT_START {                                   \
    prog_builder_elem (ops, "attn_residual_grad", MODEL_OP_ELEMENTWISE, tsp * h, 1);  \
    tp_seq_copy (bd, ops, TRUE, FALSE);                                  \
    gemm_bwd (ops, "attn_out_dgrad", "attn_out_wgrad", tok, h, a * dv_out); \
    if (m->attn_output_gate)                                             \
      prog_builder_elem (ops, "attn_gate_grad", MODEL_OP_ELEMENTWISE, tok * a * dv_out, 6); \
  } G_STMT_END
#define ATTN_PRE_BWD() G_STMT_START {                                    \
    if (m->pos == MODEL_POS_ROTARY || model_spec_is_mla (m))             \
      prog_builder_elem (ops, rope_bwd, MODEL_OP_ELEMENTWISE, rotary_elements (bd, tok), 3); \
    qkv_ops (bd, ops, tok, TRUE);                                        \
    tp_seq_copy (bd, ops, FALSE, TRUE);                                  \
    prog_builder_elem (ops, "attn_norm_grad", norm, tsp * h, 8);                      \
  } G_STMT_END
  if (model_spec_is_mla (m) && layernorm_recomputed (bd))
    prog_builder_elem (ops, "attn_norm_recompute", norm, tsp * h, 5);
  ATTN_POST_BWD ();
  mla_up_recompute_ops (bd, ops, tok);
  attention (bd, ops, "attn_core_grad", 2.5, a, kv, s_q, s_kv);
  ATTN_PRE_BWD ();
  mf = 2 * g_array_index (bd->prog->blocks, ProgBlock, bd->blk[B_ATTN_F]).model_flops;
  bd->blk[B_ATTN_B] = prog_builder_add_block (bd, PROG_BLOCK_ATTN, PROG_PHASE_BACKWARD, "attn_bwd", ops, mf);
  if (model_spec_is_mla (m) && layernorm_recomputed (bd))
    prog_builder_elem (ops, "attn_norm_recompute", norm, tsp * h, 5);
  ATTN_POST_BWD ();
  mf = 2 * g_array_index (bd->prog->blocks, ProgBlock, bd->blk[B_ATTN_POST_F]).model_flops;
  bd->blk[B_ATTN_POST_B] = prog_builder_add_block (bd, PROG_BLOCK_ATTN_POST, PROG_PHASE_BACKWARD,
                                      "attn_post_bwd", ops, mf);
  mla_up_recompute_ops (bd, ops, tok);
  if (bd->plan->cp_comm == PLAN_CP_A2A && bd->c > 1)
    attention (bd, ops, "attn_core_grad", 2.5, a / bd->c, MAX (kv / bd->c, 1), bd->s, bd->s);
  else
    attention (bd, ops, "attn_core_grad", 2.5, a, kv, s_q, s_kv);
  if (cp_split_first (bd))
    {
      cp_step_share (bd, ops, TRUE);
      mf = 2 * g_array_index (bd->prog->blocks, ProgBlock, bd->blk[B_CP_FIRST_F]).model_flops;
      bd->blk[B_CP_FIRST_B] = prog_builder_add_block (bd, PROG_BLOCK_ATTN_CORE,
                                                      PROG_PHASE_BACKWARD, "attn_core_first_bwd",
                                                      ops, mf);
      attention (bd, ops, "attn_core_grad", 2.5, a, kv, s_q, s_kv);
      cp_step_share (bd, ops, FALSE);
    }
  cp_merge_ops (bd, ops, TRUE);
  mf = 2 * g_array_index (bd->prog->blocks, ProgBlock, bd->blk[B_ATTN_CORE_F]).model_flops;
  bd->blk[B_ATTN_CORE_B] = prog_builder_add_block (bd, PROG_BLOCK_ATTN_CORE, PROG_PHASE_BACKWARD,
                                      "attn_core_bwd", ops, mf);
  ATTN_PRE_BWD ();
  mf = 2 * g_array_index (bd->prog->blocks, ProgBlock, bd->blk[B_ATTN_PRE_F]).model_flops;
  bd->blk[B_ATTN_PRE_B] = prog_builder_add_block (bd, PROG_BLOCK_ATTN_PRE, PROG_PHASE_BACKWARD,
                                     "attn_pre_bwd", ops, mf);

  /* MLP */
  prog_builder_elem (ops, "mlp_norm", norm, tsp * h, 5);
  tp_seq_copy (bd, ops, TRUE, FALSE);
  gemm (ops, "mlp_up", tok, up_n, h);
  prog_builder_elem (ops, "mlp_act", MODEL_OP_ELEMENTWISE, tok * ffn, act_f);
  gemm (ops, "mlp_down", tok, h, ffn);
  tp_seq_copy (bd, ops, FALSE, FALSE);
  prog_builder_elem (ops, "mlp_residual", MODEL_OP_ELEMENTWISE, tsp * h, 1);
  mf = matmul_flops (ops);
  bd->blk[B_MLP_F] = prog_builder_add_block (bd, PROG_BLOCK_MLP, PROG_PHASE_FORWARD, "mlp_fwd", ops, mf);
  /* --recompute-modules mlp: the dense MLP's forward runs again from its input before
   * its backward (transformer_layer.py checkpoints self.mlp) */
  if ((bd->plan->moe_recompute & PLAN_MOE_RECOMPUTE_MLP)
      && bd->plan->recompute != PLAN_RECOMPUTE_FULL)
    {
      prog_builder_elem (ops, "mlp_norm_recompute", norm, tsp * h, 5);
      gemm (ops, "mlp_up_recompute", tok, up_n, h);
      prog_builder_elem (ops, "mlp_act_recompute", MODEL_OP_ELEMENTWISE, tok * ffn, act_f);
      gemm (ops, "mlp_down_recompute", tok, h, ffn);
    }
  prog_builder_elem (ops, "mlp_residual_grad", MODEL_OP_ELEMENTWISE, tsp * h, 1);
  tp_seq_copy (bd, ops, TRUE, FALSE);
  gemm_bwd (ops, "mlp_down_dgrad", "mlp_down_wgrad", tok, h, ffn);
  prog_builder_elem (ops, "mlp_act_grad", MODEL_OP_ELEMENTWISE, tok * ffn, act_f * 2);
  gemm_bwd (ops, "mlp_up_dgrad", "mlp_up_wgrad", tok, up_n, h);
  tp_seq_copy (bd, ops, FALSE, TRUE);
  prog_builder_elem (ops, "mlp_norm_grad", norm, tsp * h, 8);
  bd->blk[B_MLP_B] = prog_builder_add_block (bd, PROG_BLOCK_MLP, PROG_PHASE_BACKWARD, "mlp_bwd", ops, 2 * mf);

  /* head: final norm, logits (vocab-parallel), cross-entropy */
  prog_builder_elem (ops, "final_norm", norm, tsp * h, 5);
  gemm (ops, "logits", tok, V, h);
  /* Transformer Engine's cross entropy where the plan runs it (plan.h te_cross_entropy;
   * sim/cost-compute.c "loss_te") */
  const gboolean te_ce = bd->plan->te_cross_entropy;
  prog_builder_elem (ops, te_ce ? "loss_te" : "loss", MODEL_OP_LOSS, tok * V, 5);
  mf = matmul_flops (ops);
  bd->blk[B_HEAD_F] = prog_builder_add_block (bd, PROG_BLOCK_HEAD, PROG_PHASE_FORWARD, "head_fwd", ops, mf);
  prog_builder_elem (ops, te_ce ? "loss_te_grad" : "loss_grad", MODEL_OP_LOSS, tok * V, 2);
  gemm_bwd (ops, "logits_dgrad", "logits_wgrad", tok, V, h);
  prog_builder_elem (ops, "final_norm_grad", norm, tsp * h, 8);
  bd->blk[B_HEAD_B] = prog_builder_add_block (bd, PROG_BLOCK_HEAD, PROG_PHASE_BACKWARD, "head_bwd", ops, 2 * mf);

  /* multi-token prediction (Megatron-Core multi_token_prediction.py _concat_embeddings):
   * the shifted tokens' embedding through enorm, the decoder's output through hnorm, the
   * two concatenated and projected by eh_proj, 2h -> h column-parallel (its output
   * gathered over TP after, program.c mtp_forward) */
  if (bd->plan->mtp_num_layers > 0)
    {
      prog_builder_elem (ops, "mtp_enorm", norm, tsp * h, 5);
      prog_builder_elem (ops, "mtp_hnorm", norm, tsp * h, 5);
      prog_builder_elem (ops, "mtp_concat", MODEL_OP_ELEMENTWISE, tsp * 2 * h, 0);
      gemm (ops, "mtp_eh_proj", tok, h / t, 2 * h);
      mf = matmul_flops (ops);
      bd->blk[B_MTP_F] = prog_builder_add_block (bd, PROG_BLOCK_MLP, PROG_PHASE_FORWARD,
                                                 "mtp_fwd", ops, mf);
      gemm_bwd (ops, "mtp_eh_proj_dgrad", "mtp_eh_proj_wgrad", tok, h / t, 2 * h);
      prog_builder_elem (ops, "mtp_norm_grad", norm, tsp * 2 * h, 8);
      bd->blk[B_MTP_B] = prog_builder_add_block (bd, PROG_BLOCK_MLP, PROG_PHASE_BACKWARD,
                                                 "mtp_bwd", ops, 2 * mf);
    }
  else
    bd->blk[B_MTP_F] = bd->blk[B_MTP_B] = G_MAXUINT32;

  /* selective recompute: the attention core only (Korthikanti et al. 2022) */
  if (bd->plan->cp_comm == PLAN_CP_A2A && bd->c > 1)
    attention (bd, ops, "attn_core", 1.0, a / bd->c, MAX (kv / bd->c, 1), bd->s, bd->s);
  else
    attention (bd, ops, "attn_core", 1.0, a, kv, s_q, s_kv);
  cp_merge_ops (bd, ops, FALSE);
  bd->blk[B_RECOMP_ATTN_CORE] = prog_builder_add_block (bd, PROG_BLOCK_ATTN_CORE, PROG_PHASE_RECOMPUTE,
                                           "attn_core_recompute", ops, 0);

  /* torchtitan's op-level selective AC (plan.h): before a dense layer's backward the
   * even-numbered matmuls (k, the out projection o, SwiGLU's w3 or GeLU's fc2) and every
   * element-wise op run again; the SDPA and the odd matmuls' outputs were saved */
  if (bd->plan->recompute == PLAN_RECOMPUTE_SELECTIVE_OP && !model_spec_is_mla (m))
    {
      prog_builder_elem (ops, "attn_norm_recompute", norm, tsp * h, 5);
      gemm (ops, "k_recompute", tok, kv * d, h);
      if (m->pos == MODEL_POS_ROTARY)
        prog_builder_elem (ops, "rotary_recompute", MODEL_OP_ELEMENTWISE, rotary_elements (bd, tok), 3);
      gemm (ops, "attn_out_recompute", tok, h, a * dv_out);
      prog_builder_elem (ops, "attn_residual_recompute", MODEL_OP_ELEMENTWISE, tsp * h, 1);
      prog_builder_elem (ops, "mlp_norm_recompute", norm, tsp * h, 5);
      if (m->mlp == MODEL_MLP_SWIGLU)
        gemm (ops, "mlp_up_recompute", tok, ffn, h);       /* w3 */
      prog_builder_elem (ops, "mlp_act_recompute", MODEL_OP_ELEMENTWISE, tok * ffn, act_f);
      if (m->mlp != MODEL_MLP_SWIGLU)
        gemm (ops, "mlp_down_recompute", tok, h, ffn);     /* fc2 */
      bd->blk[B_RECOMP_SAC_OP] = prog_builder_add_block (bd, PROG_BLOCK_ATTN, PROG_PHASE_RECOMPUTE,
                                                         "sac_op_recompute", ops, 0);
    }
  else
    bd->blk[B_RECOMP_SAC_OP] = G_MAXUINT32;

  /* Gated DeltaNet hybrids: the linear-attention layers' mixer; hybrid Mamba-2 models:
   * the Mamba layers' mixer, in the same slot (a model is one or the other) */
  if (model_spec_is_mamba (m))
    {
      mamba_ops (bd, ops, FALSE);
      mf = matmul_flops (ops);
      bd->blk[B_GDN_F] = prog_builder_add_block (bd, PROG_BLOCK_ATTN, PROG_PHASE_FORWARD,
                                                 "mamba_fwd", ops, mf);
      mamba_ops (bd, ops, TRUE);
      bd->blk[B_GDN_B] = prog_builder_add_block (bd, PROG_BLOCK_ATTN, PROG_PHASE_BACKWARD,
                                                 "mamba_bwd", ops, 2 * mf);
    }
  else if (model_spec_is_gdn (m))
    {
      gdn_ops (bd, ops, FALSE);
      mf = matmul_flops (ops);
      bd->blk[B_GDN_F] = prog_builder_add_block (bd, PROG_BLOCK_ATTN, PROG_PHASE_FORWARD,
                                                 "gdn_fwd", ops, mf);
      gdn_ops (bd, ops, TRUE);
      bd->blk[B_GDN_B] = prog_builder_add_block (bd, PROG_BLOCK_ATTN, PROG_PHASE_BACKWARD,
                                                 "gdn_bwd", ops, 2 * mf);
    }
  else
    bd->blk[B_GDN_F] = bd->blk[B_GDN_B] = G_MAXUINT32;
#undef ATTN_PRE_OPS
#undef ATTN_POST_OPS
#undef ATTN_PRE_BWD
#undef ATTN_POST_BWD
}


/* ---- mixture of experts -------------------------------------------------------------- */

void
prog_builder_moe_shape (Builder *bd)
{
  ProgMoe *pm = &bd->prog->moe;
  const Plan *p = bd->plan;
  memset (pm, 0, sizeof *pm);
  plan_moe (p, bd->m, &bd->moe);
  if (bd->moe.experts <= 0)
    return;
  pm->experts = bd->moe.experts;
  pm->ep = MAX (p->ep, 1);
  pm->etp = p->etp > 0 ? p->etp : p->tp;
  pm->local_experts = pm->experts / pm->ep;
  pm->top_k = bd->moe.top_k;
  pm->dispatcher = p->moe_dispatcher;
  pm->flex_backend = p->moe_flex_backend;
  pm->first_dense = bd->moe.first_dense;
  /* tokens entering the MoE layer: the rank's sequence shard (with SP the TP ranks hold
   * disjoint tokens; Megatron requires SP with EP and TP) */
  pm->tokens = bd->tok_sp;
  /* every token goes to k experts; the EP group's ep T k copies spread over E experts,
   * this rank holds E / ep of them (T k on average), and the expert-TP group gathers
   * its etp members' copies: etp T k */
  pm->expert_tokens = (double) pm->etp * (double) pm->tokens * pm->top_k;
  pm->imbalance = bd->moe.imbalance;
  /* --moe-imbalance is the busiest EP rank's routed tokens over the mean (plan.h): that
   * rank sets the pace of the grouped GEMM and receives the most at each all-to-all */
  pm->pace = pm->imbalance;
  pm->busiest_tokens = pm->pace * pm->expert_tokens / pm->local_experts;
  pm->expert_ffn = bd->moe.expert_ffn / (guint64) pm->etp;
  pm->shared_ffn = bd->moe.shared_ffn / bd->t;
}

static guint64
round_tokens (double x)
{
  return (guint64) MAX (ceil (x - 1e-9), 1.0);
}

/* The local experts' GEMMs of one pass on the busiest rank: `count` experts of `m` tokens
 * each; with grouped GEMM one op of b = count GEMMs (one kernel), else one op per expert
 * (a loop of GEMMs, Megatron's SequentialMLP). `which`: 0 forward, 1 data gradients, 2
 * weight gradients. */
static void
expert_gemms (GArray *ops, gboolean grouped, const char *name, int count, guint64 m,
              guint64 n, guint64 k, int which)
{
  if (count <= 0)
    return;
  /* shapes as gemm / gemm_bwd: forward m x n x k; dgrad m x k x n; wgrad k x n x m */
  guint64 gm = which == 2 ? k : m, gn = which == 1 ? k : n, gk = which == 0 ? k
                                                                 : which == 1 ? n : m;
  for (int j = 0; j < (grouped ? 1 : count); j++)
    {
      guint64 b = grouped ? (guint64) count : 1;
      add_op (ops, name, MODEL_OP_GEMM, gm, gn, gk, 0, 2.0 * gm * gn * gk * b, 0);
      g_array_index (ops, ModelOp, ops->len - 1).b = b;
    }
}

void
prog_builder_build_moe_blocks (Builder *bd)
{
  const ProgMoe *pm = &bd->prog->moe;
  if (pm->experts <= 0)
    return;
  const ModelSpec *m = bd->m;
  g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  guint64 h = m->hidden, T = pm->tokens, E = (guint64) pm->experts, k = (guint64) pm->top_k;
  gboolean swiglu = m->mlp == MODEL_MLP_SWIGLU, grouped = bd->plan->moe_grouped_gemm;
  gboolean fused_permute = pm->dispatcher == PLAN_MOE_FLEX;
  double act_f = swiglu ? 4 : 8;
  /* the pace: the busiest rank's L local experts take pace x the mean between them (each
   * at pace x the mean expert: a grouped GEMM's tiles of all its experts share the SMs, so
   * its time follows the rank's sum, not how it splits over the L experts) */
  int L = pm->local_experts;
  guint64 m_rank = round_tokens (pm->busiest_tokens);
  guint64 f = pm->expert_ffn, up_n = (swiglu ? 2 : 1) * f;
  double mf;

  /* route: norm, router logits [T, E] (replicated weight), softmax + top-k, permutation
   * of the T k copies into expert order (DeepEP's flex dispatcher permutes inside its
   * dispatch kernel) */
  prog_builder_elem (ops, "moe_norm", MODEL_OP_NORM, T * h, 5);
  gemm (ops, "router", T, E, h);
  prog_builder_elem (ops, "router_topk", MODEL_OP_ELEMENTWISE, T * E, 5);
  /* the dispatcher's device-to-host copy of the tokens per expert, waited for by the
   * host before the all-to-allv (its sizes are host lists); costed by the stack
   * (sim/cost.c moe_host_sync_s; 0 where the stack has none). The all-gather dispatcher
   * needs no counts on the host. */
  if (pm->dispatcher != PLAN_MOE_ALLGATHER)
    prog_builder_elem (ops, "moe_host_sync", MODEL_OP_ELEMENTWISE, 0, 0);
  if (!fused_permute)
    prog_builder_elem (ops, "moe_permute", MODEL_OP_ELEMENTWISE, T * k * h, 0);
  mf = matmul_flops (ops);
  bd->blk[B_MOE_ROUTE_F] = prog_builder_add_block (bd, PROG_BLOCK_MOE_ROUTE, PROG_PHASE_FORWARD,
                                                   "moe_route_fwd", ops, mf);
  if (layernorm_recomputed (bd))   /* the pre-MLP norm output, freed after the forward */
    prog_builder_elem (ops, "moe_norm_recompute", MODEL_OP_NORM, T * h, 5);
  if (!fused_permute)
    prog_builder_elem (ops, "moe_permute_grad", MODEL_OP_ELEMENTWISE, T * k * h, 0);
  prog_builder_elem (ops, "router_topk_grad", MODEL_OP_ELEMENTWISE, T * E, 5);
  gemm_bwd (ops, "router_dgrad", "router_wgrad", T, E, h);
  prog_builder_elem (ops, "moe_norm_grad", MODEL_OP_NORM, T * h, 8);
  bd->blk[B_MOE_ROUTE_B] = prog_builder_add_block (bd, PROG_BLOCK_MOE_ROUTE, PROG_PHASE_BACKWARD,
                                                   "moe_route_bwd", ops, 2 * mf);

  /* experts: model FLOPs at the mean (the tokens really routed); the executed FLOPs of
   * the busiest rank pace the step, but every rank's mean is what the step executes in
   * total, so the block's hw_flops are the mean too */
  double tok_all = pm->expert_tokens;   /* over the L local experts */
  double fwd_mean = 2.0 * tok_all * (double) up_n * (double) h
                    + 2.0 * tok_all * (double) f * (double) h;
  /* gpt-oss's clamped quick-GEGLU (model.h glu_limit) as Megatron-Core's TEGroupedMLP
   * runs it with the GPTOSSProvider's bias_activation_fusion = True (moe/experts.py
   * bias_act_func -> fusions/fused_bias_geglu.py weighted_bias_quick_geglu_impl): the
   * clamps of the two halves and their torch.cat as eager ops ("expert_act_clamp"), then
   * torch.tensor (linear_offset, device = cuda), a host-to-device copy PyTorch makes
   * synchronous (copy_ with non_blocking False: cudaMemcpyAsync then
   * cudaStreamSynchronize), the host waiting for the GPU ("expert_act_sync"), then the
   * compiled weighted quick-GEGLU ("expert_act_geglu", jit_fuser = torch.compile). The
   * backward: the compiled weighted_quick_geglu_back, then autograd through the cat
   * (views), the two clamps and the chunk ("expert_act_clamp_grad"). Costed pass by pass
   * in sim/cost-compute.c. */
  const gboolean clamped = m->glu_limit > 0 && swiglu && grouped;
  const guint64 act_elems = round_tokens (tok_all * pm->pace) * f;
  /* The all-to-all dispatcher's second permutation (Megatron-Core token_dispatcher.py
   * MoEAlltoAllTokenDispatcher, dispatch_postprocess and combine_preprocess, with
   * moe_utils.py sort_chunks_by_idxs): the all-to-all leaves the received tokens ordered
   * by source rank, then local expert, and the grouped GEMM wants them by local expert,
   * so with more than one local expert the dispatcher copies them into that order
   * (sort_input_by_local_experts) after the dispatch all-to-all and back
   * (restore_output_by_local_experts) before the combine all-to-all: one gather copy of
   * the rank's received tokens x h each way, torch.split + torch.cat or Transformer
   * Engine's fused sort_chunks_by_index (moe_permute_fusion); their backward is the
   * inverse copy of the gradient. The flex (DeepEP) dispatcher receives the tokens
   * already by expert; the all-gather dispatcher permutes once, locally. */
  const gboolean sort_chunks = pm->dispatcher == PLAN_MOE_ALLTOALL && L > 1;
  const guint64 recv_elems = round_tokens (tok_all * pm->pace) * h;
  if (sort_chunks)
    prog_builder_elem (ops, "moe_sort_chunks", MODEL_OP_ELEMENTWISE, recv_elems, 0);
  expert_gemms (ops, grouped, "expert_up", L, m_rank, up_n, h, 0);
  if (clamped)
    {
      prog_builder_elem (ops, "expert_act_clamp", MODEL_OP_ELEMENTWISE, act_elems, 0);
      prog_builder_elem (ops, "expert_act_sync", MODEL_OP_ELEMENTWISE, 0, 0);
      prog_builder_elem (ops, "expert_act_geglu", MODEL_OP_ELEMENTWISE, act_elems, act_f);
    }
  else
    prog_builder_elem (ops, "expert_act", MODEL_OP_ELEMENTWISE, act_elems, act_f);
  expert_gemms (ops, grouped, "expert_down", L, m_rank, h, f, 0);
  /* Expert biases (gpt-oss): Megatron-Core's TEGroupedMLP builds the down projection
   * with skip_bias_add and adds each local expert's bias, times the token's routing
   * probability, after the grouped GEMM in eager PyTorch (moe/experts.py _apply_bias:
   * torch.cat of t + b * p over the local experts); the up projection's bias is added
   * inside its GEMM. `b` carries the local experts (the kernels per pass, cost-compute.c) */
  const gboolean expert_bias = m->mlp_bias && grouped;
  const guint64 down_out = round_tokens (tok_all * pm->pace) * h;
  if (expert_bias)
    {
      prog_builder_elem (ops, "expert_bias", MODEL_OP_ELEMENTWISE, down_out, 2);
      g_array_index (ops, ModelOp, ops->len - 1).b = (guint64) L;
    }
  if (sort_chunks)
    prog_builder_elem (ops, "moe_sort_chunks_restore", MODEL_OP_ELEMENTWISE, recv_elems, 0);
  guint32 b = prog_builder_add_block (bd, PROG_BLOCK_MOE_EXPERTS, PROG_PHASE_FORWARD,
                                      "moe_experts_fwd", ops, fwd_mean);
  g_array_index (bd->prog->blocks, ProgBlock, b).hw_flops = fwd_mean;
  bd->blk[B_MOE_EXPERTS_F] = b;
  if (sort_chunks)
    prog_builder_elem (ops, "moe_sort_chunks_restore_grad", MODEL_OP_ELEMENTWISE, recv_elems, 0);
  if (expert_bias)
    {
      prog_builder_elem (ops, "expert_bias_grad", MODEL_OP_ELEMENTWISE, down_out, 2);
      g_array_index (ops, ModelOp, ops->len - 1).b = (guint64) L;
    }
  expert_gemms (ops, grouped, "expert_down_dgrad", L, m_rank, h, f, 1);
  expert_gemms (ops, grouped, "expert_down_wgrad", L, m_rank, h, f, 2);
  if ((bd->plan->moe_recompute & PLAN_MOE_RECOMPUTE_ACT) && clamped)
    {
      /* --recompute-modules moe_act re-runs bias_act_func, its sync included */
      prog_builder_elem (ops, "expert_act_clamp_recompute", MODEL_OP_ELEMENTWISE, act_elems, 0);
      prog_builder_elem (ops, "expert_act_sync", MODEL_OP_ELEMENTWISE, 0, 0);
      prog_builder_elem (ops, "expert_act_geglu_recompute", MODEL_OP_ELEMENTWISE, act_elems,
                         act_f);
    }
  else if (bd->plan->moe_recompute & PLAN_MOE_RECOMPUTE_ACT)   /* --recompute-modules moe_act */
    prog_builder_elem (ops, "expert_act_recompute", MODEL_OP_ELEMENTWISE, act_elems, act_f);
  if (clamped)
    {
      prog_builder_elem (ops, "expert_act_geglu_grad", MODEL_OP_ELEMENTWISE, act_elems,
                         act_f * 2);
      prog_builder_elem (ops, "expert_act_clamp_grad", MODEL_OP_ELEMENTWISE, act_elems, 0);
    }
  else
    prog_builder_elem (ops, "expert_act_grad", MODEL_OP_ELEMENTWISE, act_elems, act_f * 2);
  expert_gemms (ops, grouped, "expert_up_dgrad", L, m_rank, up_n, h, 1);
  expert_gemms (ops, grouped, "expert_up_wgrad", L, m_rank, up_n, h, 2);
  if (sort_chunks)
    prog_builder_elem (ops, "moe_sort_chunks_grad", MODEL_OP_ELEMENTWISE, recv_elems, 0);
  b = prog_builder_add_block (bd, PROG_BLOCK_MOE_EXPERTS, PROG_PHASE_BACKWARD,
                              "moe_experts_bwd", ops, 2 * fwd_mean);
  g_array_index (bd->prog->blocks, ProgBlock, b).hw_flops = 2 * fwd_mean;
  bd->blk[B_MOE_EXPERTS_B] = b;

  /* combine: unpermute and weight the k copies of each token, add the residual */
  if (!fused_permute)
    prog_builder_elem (ops, "moe_unpermute", MODEL_OP_ELEMENTWISE, T * k * h, 2);
  prog_builder_elem (ops, "moe_residual", MODEL_OP_ELEMENTWISE, T * h, 1);
  bd->blk[B_MOE_COMBINE_F] = prog_builder_add_block (bd, PROG_BLOCK_MOE_COMBINE,
                                                     PROG_PHASE_FORWARD, "moe_combine_fwd",
                                                     ops, 0);
  prog_builder_elem (ops, "moe_residual_grad", MODEL_OP_ELEMENTWISE, T * h, 1);
  if (!fused_permute)
    prog_builder_elem (ops, "moe_unpermute_grad", MODEL_OP_ELEMENTWISE, T * k * h, 2);
  bd->blk[B_MOE_COMBINE_B] = prog_builder_add_block (bd, PROG_BLOCK_MOE_COMBINE,
                                                     PROG_PHASE_BACKWARD, "moe_combine_bwd",
                                                     ops, 0);

  /* shared experts: a dense MLP over the gathered tokens, TP-split */
  if (pm->shared_ffn > 0)
    {
      guint64 tok = bd->tok, sf = pm->shared_ffn, sup = (swiglu ? 2 : 1) * sf;
      gemm (ops, "shared_up", tok, sup, h);
      prog_builder_elem (ops, "shared_act", MODEL_OP_ELEMENTWISE, tok * sf, act_f);
      gemm (ops, "shared_down", tok, h, sf);
      mf = matmul_flops (ops);
      bd->blk[B_MOE_SHARED_F] = prog_builder_add_block (bd, PROG_BLOCK_MOE_SHARED,
                                                        PROG_PHASE_FORWARD, "moe_shared_fwd",
                                                        ops, mf);
      /* --recompute-modules shared_experts: their forward runs again before their
       * backward (moe_layer.py checkpoints the shared expert) */
      if ((bd->plan->moe_recompute & PLAN_MOE_RECOMPUTE_SHARED)
          && bd->plan->recompute != PLAN_RECOMPUTE_FULL)
        {
          gemm (ops, "shared_up_recompute", tok, sup, h);
          prog_builder_elem (ops, "shared_act_recompute", MODEL_OP_ELEMENTWISE, tok * sf, act_f);
          gemm (ops, "shared_down_recompute", tok, h, sf);
        }
      gemm_bwd (ops, "shared_down_dgrad", "shared_down_wgrad", tok, h, sf);
      prog_builder_elem (ops, "shared_act_grad", MODEL_OP_ELEMENTWISE, tok * sf, act_f * 2);
      gemm_bwd (ops, "shared_up_dgrad", "shared_up_wgrad", tok, sup, h);
      bd->blk[B_MOE_SHARED_B] = prog_builder_add_block (bd, PROG_BLOCK_MOE_SHARED,
                                                        PROG_PHASE_BACKWARD, "moe_shared_bwd",
                                                        ops, 2 * mf);
    }
}
