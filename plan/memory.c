/* plan/memory.c - per-GPU memory of a plan, by category, for one rank of every stage.
 *
 * Everything is counted for one representative rank of each pipeline stage (all ranks of
 * a stage hold the same amounts). Six categories:
 *
 *  params       the stage's parameter elements on this rank: transformer layers with the
 *               attention and MLP matrices split by TP (Megatron column/row parallel) and
 *               the norms replicated; the word embedding on stage 0 and the output head
 *               on the last stage split over the vocabulary (VocabParallelEmbedding);
 *               learned position embeddings and the final norm whole. With tied
 *               embeddings and pp > 1 the last stage holds its own copy of the word
 *               embedding for the logits, as Megatron does (its gradients are all-reduced
 *               with stage 0's). Then / plan_param_shards x bytes(param_dtype).
 *               Row-parallel biases (replicated in Megatron) are split like their
 *               matrices here: a few h-vectors per layer. Vocabulary padding to a
 *               multiple of 128 x tp (Megatron --make-vocab-size-divisible-by) is ignored.
 *  grads        the same element count / plan_grad_shards x bytes(grad_dtype); ZeRO-2
 *               reduced once per step keeps them unsharded (fp32 when accumulated upcast).
 *  optimizer    Adam m and v (2 x bytes(optim_dtype)) plus fp32 master weights when
 *               master_weights and the params are not fp32, / plan_optim_shards; zero
 *               when optimizer_offload (states and master weights live in host memory).
 *               This is the K = 12 of Rajbhandari et al. 2020 (ZeRO), section 3.1.
 *  activations  stored tensors of every in-flight micro-batch (see below), each unit
 *               in flight counted with its own chunk's bytes (plan_mem_schedule_peak); with CPU
 *               offloading (cpu_offload_layers N) N layers' stored tensors live in host
 *               memory and one of them is on the device at a time (plan_mem_chunk_acts).
 *  comm_buffers gathered ZeRO-3/FSDP units, unsharded gradient buckets, PP send/recv and
 *               the SP all-gather workspace.
 *  reserve      allocator fragmentation (a fraction of the rest) + a fixed allowance for
 *               the CUDA context, NCCL and library workspaces.
 *
 * Not modelled: the transient gradients of activations during a layer's backward (but
 * for unfused attention's score gradient, which is as large as the scores), the
 * cuBLAS/TE workspaces beyond the fixed reserve, host memory. The fragmentation allowance
 * is where such transients are meant to fit. */
#include "plan/memory.h"
#include "plan/program.h"

#include <json-glib/json-glib.h>
#include <math.h>

/* ---- options ------------------------------------------------------------------------ */

void
plan_mem_options_init (PlanMemOptions *opts)
{
  g_return_if_fail (opts != NULL);
  memset (opts, 0, sizeof *opts);
  /* Fragmentation: a tunable default, not a measurement. It assumes the PyTorch caching
   * allocator with expandable_segments (recommended by Megatron-LM and TorchTitan); the
   * default segment allocator can strand far more when large tensors change shape
   * (pytorch/pytorch#35901: an OOM with ~50% of HBM unusable; nvidia-cosmos/cosmos-rl#388:
   * reserved 127 GB vs 61 GB allocated before expandable segments, 97 GB after). */
  opts->reserve_fraction = 0.05;
  /* Fixed: the CUDA context takes ~0.7 GiB on first use (discuss.pytorch.org "What is the
   * reason for pytorch's GPU memory floor", 723 MiB), and NVIDIA/nccl#1685 measured
   * 1.06 GB of non-PyTorch memory per H100 with NCCL communicators set up for ring/tree
   * collectives (4.3 GB once all-to-all connected 32 channels per peer, so EP-heavy plans
   * need more). 1.5 GiB covers context + NCCL ring/tree buffers + cuBLAS workspaces. */
  opts->reserve_fixed_bytes = (guint64) 3 << 29;  /* 1.5 GiB */
  /* FlashAttention is what every current framework runs (DESIGN.md section 4). */
  opts->flash_attention = TRUE;
  opts->dropout = PLAN_MEM_DROPOUT_AUTO;
  /* FSDP keeps the unit being computed and the prefetched next one (FSDP1
   * backward_prefetch=BACKWARD_PRE default, FSDP2 implicit prefetch). */
  opts->param_gather_layers = 2;
}

const char *
plan_mem_category_name (PlanMemCategory cat)
{
  static const char *const names[] = {
    "params", "grads", "optimizer", "activations", "comm_buffers", "reserve",
  };
  return (guint) cat < G_N_ELEMENTS (names) ? names[cat] : "?";
}

/* ---- small helpers ------------------------------------------------------------------ */

/* The micro-batches of one pipeline schedule: the step's, or with several schedules a
 * step (plan.h pp_schedules) the m / k of each, which alone hold activations at once (a
 * schedule drains before the next fills: program.c step_slots). */
static int
plan_mem_microbatches (const Plan *plan)
{
  int m = 1, k = plan_pp_schedules (plan);
  if (plan->grad_accum > 0)
    m = plan->grad_accum;
  else if (plan->global_batch > 0 && plan->micro_batch > 0 && plan->dp > 0)
    m = MAX (plan->global_batch / (plan->micro_batch * plan->dp), 1);
  return k > 1 && m % k == 0 ? m / k : m;
}

static guint64
plan_mem_seq (const Plan *plan, const ModelSpec *model)
{
  if (plan->seq_length > 0)
    return (guint64) plan->seq_length;
  /* plan_resolve's default (plan.h): max_positions capped at 8192 */
  return model->max_positions > 0 ? MIN (model->max_positions, 8192) : 8192;
}

static gboolean
plan_mem_dropout (const ModelSpec *model, const Plan *plan, const PlanMemOptions *opts)
{
  switch (opts->dropout)
    {
    case PLAN_MEM_DROPOUT_ON: return TRUE;
    case PLAN_MEM_DROPOUT_OFF: return FALSE;
    case PLAN_MEM_DROPOUT_AUTO:
    default:
      return plan_dropout (model, plan);
    }
}

gboolean
plan_dropout (const ModelSpec *model, const Plan *plan)
{
  if (plan->dropout >= 0)
    return plan->dropout > 0;
  /* a model whose training config sets its dropout to 0 (ModelSpec no_dropout) */
  if (model->no_dropout)
    return FALSE;
  /* Megatron's GPT defaults are --hidden-dropout 0.1 --attention-dropout 0.1 and the
   * GPT-2/OPT configs carry 0.1; Llama configs have attention_dropout 0.0 and no
   * hidden dropout. */
  return model->mlp == MODEL_MLP_GELU;
}

/* Elements of one micro-batch's attention scores on a rank without FlashAttention: s/cp
 * query rows against all s keys, for the rank's heads. */
static guint64
attn_score_elems (const ModelSpec *model, const Plan *plan)
{
  guint64 b = (guint64) MAX (plan->micro_batch, 1), s = plan_mem_seq (plan, model);
  guint64 t = (guint64) MAX (plan->tp, 1), cp = (guint64) MAX (plan->cp, 1);
  return b * model->n_heads * (s / cp) * s / t;
}

/* Bytes of one stored activation element: bf16/fp16 (FP8 GEMMs still keep bf16 copies
 * of most saved tensors in Transformer Engine), fp32 when the plan computes in fp32. */
static guint
plan_mem_act_elem_bytes (const Plan *plan)
{
  return plan->compute_dtype == PLAN_PREC_FP32 ? 4 : 2;
}

/* ---- model states ------------------------------------------------------------------- */

void
plan_memory_model_states (const Plan *plan, double n_params, double out[3])
{
  g_return_if_fail (plan != NULL && out != NULL);
  /* FSDP with a mixed-precision policy shards the fp32 originals and casts them as they
   * are gathered; the optimizer steps those shards, so there is no master copy beside them
   * (torch FSDP2 fully_shard: the sharded parameters keep their dtype and
   * MixedPrecisionPolicy.param_dtype applies to the all-gather; FSDP1's FlatParameter
   * keeps its local shard in full precision, MixedPrecision casting a copy for the
   * gather). The gathered compute-dtype units are comm_buffers. */
  gboolean fp32_shards = plan->fsdp_fp32_shards > 0 && plan_param_shards (plan) > 1
                         && plan->master_weights && plan->param_dtype != PLAN_PREC_FP32;
  out[0] = n_params / plan_param_shards (plan)
           * (fp32_shards ? 4.0 : plan_precision_bytes (plan->param_dtype));
  /* ZeRO-2 reduced once per step (plan.h zero2_grad_sync 0: FSDP2 under PP, torch's
   * pipelining turning gradient sync off until the stage's last backward) holds the
   * stage's gradients unsharded through the step, as ZeRO-1's buffer does, and in fp32
   * where the stack accumulates upcast over several micro-batches (grad_accum_upcast:
   * FSDP2's post_backward adds each micro-batch's bf16 gradient into an fp32 sum) */
  double grad_shards = plan_grad_shards (plan);
  double grad_bytes = plan_precision_bytes (plan->grad_dtype);
  if (plan->sharding == PLAN_SHARD_ZERO2 && plan->zero2_grad_sync == 0)
    {
      grad_shards = 1;
      if (plan->grad_accum_upcast > 0 && plan->grad_accum > 1)
        grad_bytes = MAX (grad_bytes, 4.0);
    }
  out[1] = n_params / grad_shards * grad_bytes;
  if (plan->optimizer_offload)
    {
      out[2] = 0;
      return;
    }
  /* Adam: m and v; mixed precision keeps an fp32 master copy of low-precision weights
   * (Micikevicius et al. 2018; ZeRO section 3.1: K = 4 + 4 + 4 = 12). */
  double per = 2.0 * plan_precision_bytes (plan->optim_dtype);
  if (plan->master_weights && plan->param_dtype != PLAN_PREC_FP32 && !fp32_shards)
    per += 4;
  out[2] = n_params / plan_optim_shards (plan) * per;
}

/* ---- activations -------------------------------------------------------------------- */

/* Do the GEMMs run in a low precision (FP8 or NVFP4), whose saved inputs are quantized
 * copies? */
static gboolean
lowp_gemms (const Plan *plan)
{
  return plan->compute_dtype == PLAN_PREC_FP8 || plan->compute_dtype == PLAN_PREC_FP4;
}

/* Does the backward keep the high-precision input of an FP8 GEMM rather than an FP8 copy?
 * torchao's rowwise (axiswise) recipe does: manual_float8_matmul_with_args_in_hp saves
 * input_hp and casts it again in the backward (torchao/float8/float8_linear.py of the
 * torchtitan stack's time; its tensorwise path, manual_float8_matmul_with_args_in_float8,
 * saves the FP8 input). */
static gboolean
fp8_saves_hp_input (const Plan *plan)
{
  return plan->fp8_recipe == FW_SCALING_ROWWISE;
}

/* Bytes the backward keeps of a GEMM input of `elems` elements: its FP8 copy (1 B plus
 * one E8M0 scale per 32 elements) with FP8 or NVFP4 GEMMs, else (and where the recipe
 * keeps the high-precision input) a bf16/fp32 tensor. */
static guint64
fp8_saved_bytes (const Plan *plan, guint64 elems)
{
  if (lowp_gemms (plan) && !fp8_saves_hp_input (plan))
    return elems + elems / 32;
  return plan_mem_act_elem_bytes (plan) * elems;
}

/* Bytes the attention core keeps of its own output, `elems` elements, beside what the
 * out-projection keeps of it (attn_out_saved_bytes): the flash backward reads the output
 * (D = rowsum(dO * O)), so the core saves it (Transformer Engine's FusedAttnFunc saves
 * out_save with q, k, v; PyTorch's SDPA flash backward takes the output). In bf16 both
 * hold one tensor; with FP8 GEMMs and a bf16 core the out-projection keeps its FP8 copy
 * and the core its bf16 output, two tensors. One again where the core runs in FP8 (TE's
 * fp8 DPA: its FP8 output goes to the GEMM as it is), where the GEMM keeps the bf16 input
 * (fp8_saves_hp_input) or where the stack keeps one E5M6 copy for both (DeepSeek-V3). */
static guint64
attn_core_out_bytes (const Plan *plan, guint64 elems)
{
  if (lowp_gemms (plan) && plan->fp8_attention <= 0 && plan->fp8_attn_out_e5m6 <= 0
      && !fp8_saves_hp_input (plan))
    return plan_mem_act_elem_bytes (plan) * elems;
  return 0;
}

/* Bytes the backward keeps of the attention output (the out-projection's input): its
 * GEMM copy (fp8_saved_bytes), or, where the stack keeps it in E5M6 (plan.h
 * fp8_attn_out_e5m6; DeepSeek-V3 report, arXiv 2412.19437, Sec. 3.3.3 "Low-Precision
 * Storage and Communication" (1): the inputs of the Linear after the attention operator,
 * which the attention's backward also reads, in a customized E5M6 format with 1x128
 * quantization tiles), 12 bits per element plus one fp32 scale per 128 elements:
 * 1.5 + 4/128 B. */
static guint64
attn_out_saved_bytes (const Plan *plan, guint64 elems)
{
  if (plan->fp8_attn_out_e5m6 > 0
      && lowp_gemms (plan))
    return elems * 3 / 2 + elems / 32;
  return fp8_saved_bytes (plan, elems);
}

/* Per layer and micro-batch, the tensors the backward pass needs, following Korthikanti
 * et al. 2022 section 4.1 tensor by tensor, with T = s/cp x b tokens on this rank, a the
 * activation element size (2), t the TP degree, "/t(SP)" meaning divided by t only with
 * sequence parallelism (replicated across the TP group otherwise):
 *
 *   attention block
 *     norm-1 input                         a T h /t(SP)
 *     QKV GEMM input (norm-1 output)       a T h /t(SP)
 *     Q, K, V (saved for the attention)    a T (hq + 2 hkv) / t    hq = heads x head_dim,
 *                                                                  hkv = kv_heads x head_dim
 *     softmax output                       a b (a_h/t) (s/cp) s    \  not stored with
 *     its dropout mask + dropout output    (1 + a) x the same      /  FlashAttention
 *     FlashAttention log-sum-exp           4 b (a_h/t) (s/cp)      (fp32 per row: tiny)
 *     out-projection input                 a T hq / t
 *     dropout mask after out-projection    1 T h /t(SP)            (dropout only)
 *   MLP block
 *     norm-2 input                         a T h /t(SP)
 *     fc1 / gate+up GEMM input             a T h /t(SP)
 *     GeLU: its input and its output       2 a T f / t
 *     SwiGLU: gate, up (both needed by the
 *       silu(g) * u backward) and the
 *       product (the down-GEMM input)      3 a T f / t
 *     dropout mask after the MLP           1 T h /t(SP)            (dropout only)
 *   Residual adds store nothing (their backward needs no input). Norm statistics (fp32
 *   mean/rstd per token, 8 T bytes) are left out.
 *
 * Check against the paper with a = 2, MHA (hq = h, hkv = h), GeLU with f = 4h, dropout:
 *   norms 4 + GEMM inputs 2 + 2 + 2 + QKV 6 + MLP 2 x 2 x 4 = 16 + masks 2 = 34 s b h,
 *   scores (2 + 1 + 2) a s^2 b = 5 a s^2 b: s b h (34 + 5 a s / h), the paper's eq. (1).
 *   Without SP the /t(SP) terms (norms 4, QKV and fc1 inputs 4, masks 2 = 10) stay whole
 *   and the rest (24 + 5as/h) is divided: s b h (10 + 24/t + 5 a s/(h t)), eq. (2); with SP
 *   every term is divided by t, eq. (3).
 * For SwiGLU of width f the MLP coefficient is 4 + 6 f/h instead of 4 + 16 (Llama 3 405B:
 * f = 3.25 h gives 23.5), and GQA shrinks the QKV term to 2 + 4 hkv/h (405B: 2.25).
 *
 * FP8 (and NVFP4) GEMMs: Transformer Engine's Linear, LayerNormLinear and LayerNormMLP
 * save for the weight-gradient GEMM the quantized copy of each GEMM input, not the bf16
 * one, when fp8_autocast is on (the same rule as the MoE experts' inputs below): the
 * QKV input, the out-projection input, the fc1 input and the fc2 input (the SwiGLU
 * product, the GeLU output) take fp8_saved_bytes, 1 byte per element plus an E8M0 scale
 * per 32 (MXFP8; a per-tensor scale is 4 bytes per tensor, less). The norm inputs, Q, K,
 * V (the attention core runs in bf16) and the SwiGLU gate and up (the activation's
 * backward reads them) stay at a.
 *
 * Multi-head latent attention (DeepSeek-V2/V3; Megatron-Core MLASelfAttention, n heads,
 * r_q / r_kv the q / kv LoRA ranks, d_r the rope dim, d_qk = nope + rope, d_v the value
 * head dim) replaces the QKV and out-projection terms by (the GEMM inputs among them at
 * fp8_saved_bytes with FP8 GEMMs):
 *     QKV down-GEMM input (the input norm's output, read by both down projections)
 *                                          a T h /t(SP)
 *     q and kv latents: the inputs of the q and kv norms (q_compressed, and the kv down
 *       output with its rope part)         a T (r_q + r_kv + d_r) /t(SP)   (norm_inputs)
 *     the norms' outputs, the up-GEMM inputs (LayerNormLinear keeps both)
 *                                          a T (r_q + r_kv) /t(SP)
 *     Q, K, V of the core                  a T n (2 d_qk + d_v) / t
 *     out-projection input (core output)   a T n d_v / t
 * DeepSeek-V3 (h 7168, n 128, r_q 1536, r_kv 512, d_r 64, d_qk 192, d_v 128): Q, K, V are
 * 65,536 elements a token against the latents' 2,112.
 * --recompute-modules (plan.h), bits of plan->moe_recompute:
 *   mla_up_proj drops Q, K, V and the up-GEMM inputs (the checkpoint keeps the latents);
 *   layernorm drops MLA's input-norm output (the QKV down-GEMM input); the pre-MLP norm
 *     output of an MoE layer is dropped in moe_layer_acts; fused norms (a dense MLP's,
 *     ordinary attention's) are not recomputed;
 *   mlp drops a dense layer's fc1 input and MLP hidden tensors (the checkpoint's input
 *     is the norm-2 input, already counted). */
void
plan_memory_layer_activations (const ModelSpec *model, const Plan *plan,
                               const PlanMemOptions *opts, PlanMemLayerActs *out)
{
  PlanMemOptions defaults;

  g_return_if_fail (model != NULL && plan != NULL && out != NULL);
  if (opts == NULL)
    {
      plan_mem_options_init (&defaults);
      opts = &defaults;
    }
  memset (out, 0, sizeof *out);

  guint64 t = (guint64) MAX (plan->tp, 1);
  guint64 cp = (guint64) MAX (plan->cp, 1);
  guint64 sp_div = plan->sequence_parallel ? t : 1;
  guint64 a = plan_mem_act_elem_bytes (plan);
  guint64 s = plan_mem_seq (plan, model);
  guint64 b = (guint64) MAX (plan->micro_batch, 1);
  guint64 T = s / cp * b;
  guint64 h = model->hidden;
  guint64 head_dim = model->head_dim > 0 ? model->head_dim
                     : (model->n_heads > 0 ? h / model->n_heads : h);
  guint64 kv_heads = model->n_kv_heads > 0 ? model->n_kv_heads : model->n_heads;
  guint64 hq = model->n_heads * head_dim;
  guint64 hkv = kv_heads * head_dim;
  guint64 f = model->ffn_hidden > 0 ? model->ffn_hidden : 4 * h;
  gboolean dropout = plan_mem_dropout (model, plan, opts);

  out->norm_inputs = 2 * a * T * h / sp_div;
  out->mlp_input = fp8_saved_bytes (plan, T * h / sp_div);
  out->linear_inputs = 2 * fp8_saved_bytes (plan, T * h / sp_div)
                       + attn_out_saved_bytes (plan, T * hq / t);
  /* a model that repeats K and V to the query heads before SDPA (plan.h cp_kv_repeated:
   * torchtitan's repeat_kv, a reshape that copies) hands the kernel, which saves its
   * inputs for the backward, K and V at n_heads */
  out->attn_qkv = a * T * (hq + 2 * (plan->cp_kv_repeated > 0 ? hq : hkv)) / t;
  /* q/k RMSNorms (Qwen3's q_norm / k_norm over each head, OLMo 2's over the whole q and
   * k): their backward needs their inputs, the q and k out of the QKV GEMM, a tensor apart
   * from the normed and rotated q and k that the attention saves (Megatron-Core's
   * get_query_key_value_tensors runs q_layernorm and k_layernorm before the rotary
   * embedding). Left out before: Qwen3-30B-A3B's MoE layer at 4K tokens kept 428.5 MB
   * where 466.2 MB are held. A lower bound: q and k are views of the QKV GEMM's output,
   * which V's share keeps whole with them. */
  if (model->qk_norm)
    out->norm_inputs += a * T * (hq + hkv) / t;
  guint rc = plan->moe_recompute;
  if (model_spec_is_mla (model))
    {
      guint64 n = model->n_heads, dqk = model->qk_nope_head_dim + model->qk_rope_head_dim;
      guint64 dv = model->v_head_dim, rq = model->q_lora_rank, rkv = model->kv_lora_rank;
      guint64 up_in = fp8_saved_bytes (plan, T * (rq + rkv) / sp_div);
      out->norm_inputs += a * T * (rq + rkv + model->qk_rope_head_dim) / sp_div;
      out->linear_inputs = 2 * fp8_saved_bytes (plan, T * h / sp_div)
                           + attn_out_saved_bytes (plan, T * n * dv / t) + up_in;
      out->attn_qkv = a * T * n * (2 * dqk + dv) / t;
      if (rc & PLAN_MOE_RECOMPUTE_MLA_UP)
        {
          out->attn_qkv = 0;
          out->linear_inputs -= up_in;
        }
      if (rc & PLAN_MOE_RECOMPUTE_LAYERNORM)
        out->linear_inputs -= fp8_saved_bytes (plan, T * h / sp_div);
    }
  if (opts->flash_attention && plan->attention_backend != PLAN_ATTN_UNFUSED)
    {
      /* FlashAttention-2 saves softmax_lse, fp32 [b, heads, s_q] */
      out->attn_softmax_stats = 4 * b * (model->n_heads / t) * (s / cp);
      /* and its output, which with FP8 GEMMs is a tensor of its own */
      out->attn_qkv += attn_core_out_bytes (plan, model_spec_is_mla (model)
                                                  ? T * model->n_heads * model->v_head_dim / t
                                                  : T * hq / t);
    }
  else
    {
      /* s_q = s/cp rows against all s keys (a ring pass holds one chunk at a time, but the
       * scores of every pass are stored for the backward without FlashAttention) */
      guint64 scores = attn_score_elems (model, plan);
      out->attn_scores = a * scores + (dropout ? (1 + a) * scores : 0);
    }
  /* SwiGLU: gate and up (a), the product (the fc2 input); GeLU: its input (a), its
   * output (the fc2 input) */
  out->mlp_hidden = (model->mlp == MODEL_MLP_SWIGLU ? 2 : 1) * a * T * f / t
                    + fp8_saved_bytes (plan, T * f / t);
  /* eager SwiGLU (plan.h swiglu_eager_saves): silu's output, the multiply's first operand,
   * is a tensor of its own beside silu's input (the gate), the up projection and the
   * product */
  if (model->mlp == MODEL_MLP_SWIGLU && plan->swiglu_eager_saves > 0)
    out->mlp_hidden += a * T * f / t;
  if (rc & PLAN_MOE_RECOMPUTE_MLP)
    {
      out->mlp_hidden = 0;
      out->linear_inputs -= out->mlp_input;
      out->mlp_input = 0;
    }
  out->dropout_masks = dropout ? 2 * T * h / sp_div : 0;
  if (model_spec_is_gdn (model))
    {
      /* A Gated DeltaNet hybrid: the average layer over the layer pattern (a model chunk
       * of whole intervals holds exactly that mix). Full-attention layers also keep their
       * output gate (a T q / t, for the sigmoid's backward). A GDN layer keeps no K/V and
       * no softmax statistics; it saves the in projection's input (T h) and output of
       * the conv channels (the conv's input, T (2K + Vd) / t), the conv output q, k, v
       * (T (2K + Vd) / t) and z (T Vd / t) that the delta rule and the gated norm read,
       * beta and g (fp32, 2 per value head and token), the chunk-local matrix A that
       * flash-linear-attention's chunk_gated_delta_rule keeps for its backward (fp32,
       * C per value head and token), the delta rule's output (the gated norm's input,
       * T Vd / t) and the out projection's input (T Vd / t). */
      guint64 hv = MAX (model->gdn_v_heads / t, 1);
      guint64 kd = MAX (model->gdn_k_heads / t, 1) * model->gdn_k_dim;
      guint64 vd = hv * model->gdn_v_dim;
      guint64 lin_full = out->linear_inputs;
      guint64 qkv_full = out->attn_qkv + (model->attn_output_gate ? a * T * hq / t : 0);
      guint64 lin_gdn = fp8_saved_bytes (plan, T * h / sp_div) + fp8_saved_bytes (plan, T * vd)
                        + out->mlp_input;
      guint64 qkv_gdn = 2 * a * T * (2 * kd + vd) + 2 * a * T * vd
                        + 4 * T * hv * (2 + MODEL_GDN_CHUNK);
      guint64 L = model->n_layers, n_lin = model_spec_n_linear_layers (model);
      out->linear_inputs = ((L - n_lin) * lin_full + n_lin * lin_gdn) / L;
      out->attn_qkv = ((L - n_lin) * qkv_full + n_lin * qkv_gdn) / L;
      out->attn_softmax_stats = (L - n_lin) * out->attn_softmax_stats / L;
      out->attn_scores = (L - n_lin) * out->attn_scores / L;
    }
  if (model_spec_is_mamba (model))
    {
      /* A hybrid Mamba-2 model (models/model.h layer_pattern): the average layer over the
       * pattern, each layer one part behind one norm (a T h / sp). An attention layer
       * keeps what a dense layer's attention keeps (its qkv input and out-projection
       * input, Q, K, V, the softmax statistics); an MLP layer its fc1 input and hidden
       * tensors. A Mamba layer (Megatron-Core MambaMixer; mamba_ssm's
       * mamba_chunk_scan_combined and its gated RMSNorm) keeps the in_proj input (T h)
       * and output (z, x, B, C, dt: T (2 d_inner + 2 G N + H) / t, the conv reads x, B, C
       * from it), the conv output (T (d_inner + 2 G N) / t: the scan's x, B, C), dt and
       * its cumulative decay (fp32, 2 per head and token), the scan output (the gated
       * norm's input, T d_inner / t) and the out_proj input (T d_inner / t). The scan
       * keeps no chunk states: its backward recomputes them (ssd_combined.py). */
      ModelParams mp;
      model_spec_params (model, &mp);
      guint64 L = model->n_layers;
      guint64 H = MAX (model->mamba_heads / t, 1), di = H * model->mamba_head_dim;
      guint64 gn = MAX (model->mamba_groups / t, 1) * model->mamba_state;
      guint64 in_m = fp8_saved_bytes (plan, T * h / sp_div);
      guint64 lin_m = in_m + fp8_saved_bytes (plan, T * di);
      guint64 qkv_m = a * T * (2 * di + 2 * gn + H) + a * T * (di + 2 * gn) + 4 * T * 2 * H
                      + a * T * di;
      guint64 lin_a = out->linear_inputs - out->mlp_input;   /* qkv and out-proj inputs */
      out->norm_inputs = a * T * h / sp_div;
      out->linear_inputs = (mp.n_linear_layers * lin_m + mp.n_attn_layers * lin_a
                            + mp.n_mlp_layers * out->mlp_input) / L;
      out->attn_qkv = (mp.n_linear_layers * qkv_m + mp.n_attn_layers * out->attn_qkv) / L;
      out->attn_softmax_stats = mp.n_attn_layers * out->attn_softmax_stats / L;
      out->attn_scores = mp.n_attn_layers * out->attn_scores / L;
      out->mlp_hidden = mp.n_mlp_layers * out->mlp_hidden / L;
      out->mlp_input = mp.n_mlp_layers * out->mlp_input / L;
      out->dropout_masks = 0;   /* trained without dropout (NemotronHConfig: 0) */
    }
  out->total = out->norm_inputs + out->linear_inputs + out->attn_qkv + out->attn_scores
               + out->attn_softmax_stats + out->mlp_hidden + out->dropout_masks;
  /* The backward runs the layer in reverse: the MLP block (its dropout mask, hidden
   * tensors, fc1 input and the norm-2 input), then the out-projection (the dropout mask
   * after it and its input) before the attention core. PyTorch's autograd engine releases
   * each node's saved tensors once that node's backward has run (torch/csrc/autograd/
   * engine.cpp evaluate_function: fn.release_variables () unless the graph is retained),
   * so these are gone when the core's backward runs. */
  if (!model_spec_is_mla (model) && !model_spec_is_gdn (model) && !model_spec_is_mamba (model))
    out->after_core = a * T * h / sp_div + out->mlp_input + out->mlp_hidden
                      + out->dropout_masks + attn_out_saved_bytes (plan, T * hq / t);
}

guint64
plan_memory_mlp_hidden_bytes (guint64 tokens, guint64 width, guint64 layers, guint elem_bytes)
{
  return tokens * width * layers * elem_bytes;
}

/* Pipeline schedules and how many micro-batches' activations a stage holds at its peak:
 *  - GPipe: all m forwards run before the first backward.
 *  - 1F1B (PipeDream-Flush, Narayanan et al. 2021): stage i warms up with p - i - 1
 *    forwards, then alternates one forward and one backward: min(p - i, m) in flight.
 *  - Interleaved1F1B (Megatron forward_backward_pipelining_with_interleaving): warm-up
 *    (p - i - 1) x 2 + (v - 1) x N chunk-forwards (N = microbatch_group_size_per_vp_stage,
 *    p by default), then one more forward precedes each backward: (p - i - 1) x 2 +
 *    (v - 1) x N + 1, capped at the m x v chunk-micro-batches of a step. Each holds one
 *    chunk of activations (plan_mem_schedule_peak sums them chunk by chunk). Stage 0
 *    with m >= p holds about p (1 + 1/v) - 1/v layers-worth of micro-batches: the known
 *    extra activation memory of interleaving (Korthikanti et al. 2022 section 4.2.3: a
 *    factor 1 + (p - 1)/(p v) over 1F1B's p micro-batches). Checked against Megatron-Core
 *    (megatron/core/pipeline_parallel/schedules.py, get_pp_rank_microbatches and
 *    forward_backward_pipelining_with_interleaving: N must lie in [pp, m], the steady
 *    state runs forward k + warm-up before backward k) and torch.distributed.pipelining's
 *    ScheduleFlexibleInterleaved1F1B (Meta's open implementation, any m that its rounds
 *    divide: N = m / max(1, m / pp) in integers, warm-up (v - 1) N + 2 (pp - 1 - rank)):
 *    the same count. Llama 3 405B at pp 16, m 32 (its 8,192-GPU run) takes N = 16 in
 *    both, so 141 one-layer units on stage 1 at V 8.
 *  - combined 1F1B (--overlap-moe-expert-parallel-comm): one more than the above. */
int
plan_memory_inflight (const Plan *plan, int stage)
{
  g_return_val_if_fail (plan != NULL, 0);
  int p = MAX (plan->pp, 1);
  int v = MAX (plan->vpp, 1);
  int m = plan_mem_microbatches (plan);
  /* --overlap-moe-expert-parallel-comm, where Megatron-Core runs combined 1F1B and the
   * step pairs its units (plan_moe_a2a_pairs): one more forward in the warm-up
   * (plan/program.c slots_one_more_warmup), so one more micro-batch in flight */
  int combined = plan_moe_a2a_pairs (plan, m) && plan_pp_schedules (plan) == 1;

  switch (plan->schedule)
    {
    case PLAN_SCHED_GPIPE:
      return m;
    case PLAN_SCHED_DUALPIPE:
      /* DeepSeek-V3 report Table 2: PP + 1 micro-batches of activations (the two chunks
       * together; plan_mem_dualpipe_peak walks the order) */
      return MIN (p + 1, m);
    case PLAN_SCHED_INTERLEAVED_1F1B:
      {
        int n = plan_vpp_warmup_group (p, m, plan_vpp_group (plan));
        return MIN ((p - stage - 1) * 2 + (v - 1) * n + 1 + combined, m * v);
      }
    case PLAN_SCHED_1F1B:
    default:
      return MIN (p - stage + combined, m);
    }
}

/* The stage's stored activations at its peak: the sum over the (micro-batch, chunk)
 * units in flight of what one micro-batch stores in that chunk (chunk_mb[c]), at the
 * moment the most is held. `inflight` is plan_memory_inflight: the warm-up's forwards
 * and the first forward of the steady state, whose backward has not started yet.
 *  - One chunk, or chunks that store the same (1F1B, GPipe, an even interleaved split):
 *    inflight x chunk_mb[0].
 *  - Every forward in the warm-up (inflight = m v): all of them, m x the chunks' sum.
 *  - Otherwise the rank's order is walked: W = inflight - 1 warm-up forwards, then each
 *    steady-state forward followed by one backward (Megatron-Core's interleaved 1F1B:
 *    forward_k = k + num_warmup_microbatches runs before backward k, the backward pops
 *    the chunk's oldest input and output; units from plan_vpp_unit, as the step program
 *    runs them), the peak taken after each forward. The count in flight stays `inflight`
 *    through the steady state, but which chunks the units belong to moves: on stage 0
 *    with the embedding alone in chunk 0 (--account-for-embedding-in-pipeline-split),
 *    the warm-up's units past (v - 1) N are chunk 0's; on the last stage with the loss
 *    alone in chunk v - 1, that chunk's forward is followed by its backward, one unit of
 *    it in flight, not inflight / v. */
static guint64
plan_mem_schedule_peak (const Plan *plan, int inflight, const guint64 *chunk_mb, int v);

/* DualPipe: the rank's order (sched-dualpipe.c) walked, a forward unit storing its chunk's
 * chunk_mb[c] until its backward (input and weight gradients together) frees it, the peak
 * taken after each forward. Every rank peaks at pp + 1 units, Table 2's count: rank 0 of
 * pp 4 runs F0 F0 F0 F1 B1 F1 then F0 (5 held: 4 of chunk 0, 1 of chunk 1). */
static guint64
plan_mem_dualpipe_peak (const Plan *plan, int stage, const guint64 *chunk_mb)
{
  int m = plan_mem_microbatches (plan), p = MAX (plan->pp, 2);
  if (!plan_dualpipe_counts_ok (p, m))
    return (guint64) MIN (p + 1, m) * ((chunk_mb[0] + chunk_mb[1]) / 2);
  g_autoptr (GArray) slots = g_array_new (FALSE, FALSE, sizeof (ProgSlot));
  prog_sched_dualpipe.build (p, 1, m, 0, stage, slots);
  guint64 held = 0, peak = 0;
  for (guint i = 0; i < slots->len; i++)
    {
      const ProgSlot *s = &g_array_index (slots, ProgSlot, i);
      if (s->w == 2)
        continue;   /* a deferred weight gradient: the backward freed its unit */
      if (!s->backward)
        {
          held += chunk_mb[s->chunk];
          peak = MAX (peak, held);
        }
      else
        held -= MIN (held, chunk_mb[s->chunk]);
    }
  return peak;
}

/* Sum of chunk_mb over units [0, x) of the interleaved order (forward, or backward: the
 * chunks in reverse), with units [0, lp) a repetition of periods of P = n v units that
 * hold each chunk n times (the whole groups), so that only what is past the last whole
 * period is walked. */
static guint64
mem_unit_prefix (int p, int v, int m, int n, int lp, int x, gboolean backward,
                 const guint64 *chunk_mb, guint64 period_sum)
{
  const int P = n * v;
  int whole = MIN (x, lp) / P;
  guint64 sum = (guint64) whole * period_sum;
  for (int k = whole * P; k < x; k++)
    sum += chunk_mb[plan_vpp_unit (p, v, m, n, k, backward, NULL)];
  return sum;
}

guint64
plan_memory_interleaved_peak (int p, int v, int m, int n, int inflight, const guint64 *chunk_mb,
                              gboolean walk)
{
  n = MAX (n, 1);
  v = MAX (v, 1);
  int total = m * v;
  int warm = MAX (inflight - 1, 0);
  if (walk)
    {
      /* unit by unit, as the schedule runs them (the reference the test compares) */
      guint64 held = 0, peak = 0;
      for (int k = 0; k < warm; k++)
        held += chunk_mb[plan_vpp_unit (p, v, m, n, k, FALSE, NULL)];
      for (int j = 0; warm + j < total; j++)
        {
          held += chunk_mb[plan_vpp_unit (p, v, m, n, warm + j, FALSE, NULL)];
          peak = MAX (peak, held);
          held -= chunk_mb[plan_vpp_unit (p, v, m, n, j, TRUE, NULL)];
        }
      return peak;
    }
  /* After forward warm + j the stage holds F (warm + j + 1) - B (j) (F, B: the sums over
   * the first units of the forward and backward orders). Within the whole groups (units
   * [0, lp)) both orders repeat every P = n v units, and any P consecutive units hold each
   * chunk n times; so for j >= P with warm + j + 1 <= lp the held amount is the one of
   * j - P, and only j < P and j >= lp - warm need walking. A search checks the memory of
   * every candidate; this makes each check O(P + the last group) instead of O(m v). */
  int last;
  int n_groups = plan_vpp_group_split (p, m, n, &last);
  const int P = n * v;
  const int lp = last == n ? total : (n_groups - 1) * P;
  const int jend = total - warm;
  guint64 period_sum = 0;
  for (int c = 0; c < v; c++)
    period_sum += (guint64) n * chunk_mb[c];
  guint64 peak = 0;
  int j1 = MIN (P, jend);
  guint64 held = mem_unit_prefix (p, v, m, n, lp, warm, FALSE, chunk_mb, period_sum);
  for (int j = 0; j < j1; j++)
    {
      held += chunk_mb[plan_vpp_unit (p, v, m, n, warm + j, FALSE, NULL)];
      peak = MAX (peak, held);
      held -= chunk_mb[plan_vpp_unit (p, v, m, n, j, TRUE, NULL)];
    }
  int j2 = MAX (j1, lp - warm);
  if (j2 > j1 && j2 < jend)
    held = mem_unit_prefix (p, v, m, n, lp, warm + j2, FALSE, chunk_mb, period_sum)
           - mem_unit_prefix (p, v, m, n, lp, j2, TRUE, chunk_mb, period_sum);
  for (int j = MAX (j1, j2); j < jend; j++)
    {
      held += chunk_mb[plan_vpp_unit (p, v, m, n, warm + j, FALSE, NULL)];
      peak = MAX (peak, held);
      held -= chunk_mb[plan_vpp_unit (p, v, m, n, j, TRUE, NULL)];
    }
  return peak;
}

static guint64
plan_mem_schedule_peak (const Plan *plan, int inflight, const guint64 *chunk_mb, int v)
{
  int m = plan_mem_microbatches (plan);
  gboolean uniform = TRUE;
  guint64 sum = 0;

  for (int c = 0; c < v; c++)
    {
      sum += chunk_mb[c];
      uniform = uniform && chunk_mb[c] == chunk_mb[0];
    }
  if (v <= 1 || uniform || plan->schedule != PLAN_SCHED_INTERLEAVED_1F1B)
    return (guint64) MAX (inflight, 0) * chunk_mb[0];
  int total = m * v;
  if (inflight >= total)
    return (guint64) m * sum;
  return plan_memory_interleaved_peak (MAX (plan->pp, 1), v, m, plan_vpp_group (plan),
                                       inflight, chunk_mb, FALSE);
}

/* The stage's peak of stored activations and unsharded gradients together, for ZeRO-2
 * reduced once per step by FSDP under PP (plan.h zero2_grad_sync 0, pp_grad_after_stage
 * 1: torchtitan's FSDP2 under torch.distributed.pipelining). FSDP does not hold that
 * gradient for the whole step: a module's unsharded gradient comes into being at its
 * first backward of the step (autograd writes param.grad; FSDP2's post_backward with
 * gradient sync off moves it into an fp32 sum, FSDPParam.to_accumulated_grad_if_needed)
 * and is dropped at the backward that reduces it (FSDPParamGroup.post_backward with
 * reduce_grads: `fsdp_param.unsharded_accumulated_grad = None` as its data goes into the
 * reduce-scatter input, foreach_reduce_scatter_copy_in; that input is a comm buffer).
 * torch.distributed.pipelining turns the sync on for a stage's (model chunk's) last
 * backward of the step (stage.py backward_maybe_with_nosync), so chunk c's gradient,
 * chunk_grad[c] bytes, lives from its first backward to its m-th.
 * The rank's units are walked in the order the schedule runs them (as
 * plan_mem_schedule_peak does: W = inflight - 1 warm-up forwards, then forward W + j
 * and backward j, then the cool-down's backwards), taking held activations + live
 * gradients after each forward and at the start of each backward (the unit's stored
 * tensors are still there and its chunk's gradient exists). Where every forward comes
 * first (inflight = m v: Llama 3 405B at pp 16 with m = 16) the activations peak before
 * any gradient exists.
 * FSDP wraps each transformer layer (torchtitan's fully_shard per block), so a chunk's
 * gradient grows layer by layer while its first backward frees the unit's tensors: that
 * unit is taken at its start with one layer's gradient and at its end with the chunk's.
 * Worked examples (tests/plan/test-memory.c), one layer a chunk, activations A per unit,
 * gradient G per chunk:
 *  - 1F1B, pp 2, m 4, stage 0: F0 F1 B0 F2 B1 F3 B2 B3; the steady state holds 2A with
 *    the gradient there: 2A + G, the sum as before.
 *  - interleaved pp 4, v 2, m 4, stage 0: warm-up 2 (4 - 1) + 4 >= 8, every forward
 *    first: 8A; chunk 1's four backwards (8A + G at the first), then chunk 0's (4A + G at
 *    its first, chunk 1's gradient dropped at its fourth): peak 8A + G, not 8A + 2G. */
static guint64
plan_mem_schedule_peak_grads (const Plan *plan, int inflight, const guint64 *chunk_mb,
                              const guint64 *chunk_grad, const int *chunk_modules, int v,
                              guint64 transient, guint64 *grads_at_peak)
{
  int m = plan_mem_microbatches (plan);
  int p = MAX (plan->pp, 1), n = plan_vpp_group (plan);
  gboolean inter = plan->schedule == PLAN_SCHED_INTERLEAVED_1F1B && v > 1;
  int total = inter ? m * v : m;
  int warm = MIN (MAX (inflight - 1, 0), total);
  guint64 held = 0, live = 0, peak = 0;
  int *done = g_new0 (int, v);

  *grads_at_peak = 0;
#define UNIT(k, bwd) (inter ? plan_vpp_unit (p, v, m, n, (k), (bwd), NULL) : 0)
  /* `transient` (a recomputed group re-run, the loss's or unfused attention's gradient)
   * exists only while a backward runs: taken at the start of each backward, not after a
   * forward or after the last backward, where every gradient is live and no tensor is
   * being rebuilt (full recompute read 0.1% above no recompute there) */
  guint64 extra = 0;
#define TAKE() G_STMT_START { if (held + live + extra > peak) { peak = held + live + extra; \
                                                      *grads_at_peak = live; } } G_STMT_END
  for (int k = 0; k < warm; k++)
    {
      held += chunk_mb[UNIT (k, FALSE)];
      TAKE ();
    }
  for (int j = 0; j < total; j++)
    {
      if (warm + j < total)
        {
          held += chunk_mb[UNIT (warm + j, FALSE)];
          TAKE ();
        }
      int c = UNIT (j, TRUE);
      extra = transient;
      if (done[c] == 0)
        {
          /* layer by layer: the first layer's gradient beside everything held, then
           * after the unit the chunk's whole gradient with its tensors gone */
          live += chunk_grad[c] / (guint64) MAX (chunk_modules[c], 1);
          TAKE ();
          live += chunk_grad[c] - chunk_grad[c] / (guint64) MAX (chunk_modules[c], 1);
        }
      else
        TAKE ();
      extra = 0;
      held -= MIN (held, chunk_mb[c]);
      TAKE ();
      if (++done[c] == m)
        live -= MIN (live, chunk_grad[c]);
    }
#undef TAKE
#undef UNIT
  g_free (done);
  return peak - *grads_at_peak;
}

/* Stored activation bytes of one micro-batch through `layers` layers of one chunk, under
 * the plan's recompute (full_layer: a layer without recompute; input: the layer input),
 * and the transient peak while a recomputed group is re-run in the backward.
 *  - selective: the attention core is recomputed (Korthikanti et al. section 5): the
 *    scores (no FlashAttention) or the log-sum-exp are dropped; Q, K, V stay (they are the
 *    checkpoint's inputs) and so does the attention output (the out-projection input).
 *  - full, uniform (Megatron --recompute-method uniform): the chunk's layers are cut into
 *    groups of n = recompute_num_layers (0 taken as 1) and only each group's input is
 *    stored; the backward re-runs one group at a time: a transient of n full layers but
 *    the group's input. The re-run starts from the stored input itself, not a copy
 *    (Megatron-Core tensor_parallel/random.py CheckpointFunction.backward and DeepSpeed's
 *    activation_checkpointing CheckpointFunction.backward: detach_variable of
 *    ctx.saved_tensors, a view of the same storage; torch.utils.checkpoint's
 *    non-reentrant path: the frame's saved inputs, unpacked, and the re-run's saved
 *    tensors kept as x.detach ()), so the first re-run layer's norm-1 input, one layer
 *    input of the full layer's, is the tensor already counted as stored.
 *  - full, block: the first n layers of each chunk store only their inputs, the rest keep
 *    everything; one layer is re-run at a time (0 or n >= layers: every layer), from its
 *    stored input as above: a transient of a full layer but its input.
 *  - selective-op (torchtitan's op-level SAC): op_layer per layer (plan_mem_op_layer);
 *    the layer's recompute rebuilds the rest of a full layer before its backward.
 *  - none with CPU offloading of N layers (Megatron-Core --cpu-offloading, PP 1 only):
 *    the other L - N layers keep theirs; an offloaded layer's tensors leave the device
 *    when their copy to the host ends, during the next layer's forward, and its reload
 *    precedes its backward (Transformer Engine's CPU-offload context: asynchronous
 *    copies, reloaded in the backward), so one offloaded layer's worth is on the device
 *    at a time: a transient of one full layer. */
static void
plan_mem_chunk_acts (const Plan *plan, int layers, guint64 full_layer, guint64 selective_layer,
                     guint64 op_layer, guint64 input, guint64 *stored, guint64 *transient)
{
  guint64 L = (guint64) MAX (layers, 0);
  guint64 n = (guint64) MAX (plan->recompute_num_layers, 0);

  *stored = 0;
  *transient = 0;
  if (L == 0)
    return;
  switch (plan->recompute)
    {
    case PLAN_RECOMPUTE_SELECTIVE:
      *stored = L * selective_layer;
      break;
    case PLAN_RECOMPUTE_SELECTIVE_OP:
      *stored = L * op_layer;
      *transient = full_layer > op_layer ? full_layer - op_layer : 0;
      break;
    case PLAN_RECOMPUTE_FULL:
      if (plan->recompute_method == PLAN_RECOMPUTE_BLOCK)
        {
          guint64 r = (n == 0 || n >= L) ? L : n;
          *stored = r * input + (L - r) * full_layer;
          *transient = full_layer - MIN (input, full_layer);
        }
      else
        {
          guint64 g = MIN (MAX (n, 1), L);
          *stored = (L + g - 1) / g * input;
          *transient = g * full_layer - MIN (input, g * full_layer);
        }
      break;
    case PLAN_RECOMPUTE_NONE:
    default:
      {
        guint64 off = MIN ((guint64) MAX (plan->cpu_offload_layers, 0), L);
        *stored = (L - off) * full_layer;
        if (off > 0)
          *transient = full_layer;
      }
      break;
    }
}

/* torchtitan's op-level selective AC (plan.h PLAN_RECOMPUTE_SELECTIVE_OP), what one dense
 * layer keeps per micro-batch (torchtitan _save_list: aten.mm, the SDPA kernels; of the
 * mm outputs only the odd-numbered, counted per layer in forward order q k v o, then
 * SwiGLU's w1 w3 w2 or GeLU's fc1 fc2):
 *   the checkpoint's input (the layer input)            a T h /t(SP)
 *   q's output (before rotary)                          a T hq / t
 *   v's output                                          a T hkv / t
 *   the SDPA output and its log-sum-exp                 a T hq / t + stats (scores unfused)
 *   SwiGLU: w1's output (the gate) and w2's output      a T f / t + a T h /t(SP)
 *   GeLU: fc1's output                                  a T f / t
 * Everything else (norm outputs, k, rotary outputs, o's output, w3's output, the
 * activation and the product) is rebuilt in the backward. */
static guint64
plan_mem_op_layer (const ModelSpec *model, const Plan *plan, const PlanMemLayerActs *acts)
{
  guint64 t = (guint64) MAX (plan->tp, 1);
  guint64 cp = (guint64) MAX (plan->cp, 1);
  guint64 sp_div = plan->sequence_parallel ? t : 1;
  guint64 a = plan_mem_act_elem_bytes (plan);
  guint64 T = plan_mem_seq (plan, model) / cp * (guint64) MAX (plan->micro_batch, 1);
  guint64 h = model->hidden;
  guint64 head_dim = model->head_dim > 0 ? model->head_dim
                     : (model->n_heads > 0 ? h / model->n_heads : h);
  guint64 kv_heads = model->n_kv_heads > 0 ? model->n_kv_heads : model->n_heads;
  guint64 hq = model->n_heads * head_dim, hkv = kv_heads * head_dim;
  guint64 f = model->ffn_hidden > 0 ? model->ffn_hidden : 4 * h;
  guint64 bytes = a * T * h / sp_div + a * T * (2 * hq + hkv) / t
                  + acts->attn_softmax_stats + acts->attn_scores + a * T * f / t;
  if (model->mlp == MODEL_MLP_SWIGLU)
    bytes += a * T * h / sp_div;
  return bytes;
}

/* ---- mixture of experts ---------------------------------------------------------------
 *
 * An MoE layer stores, instead of the dense MLP's hidden tensors (per micro-batch, on the
 * busiest EP rank, X = imbalance x etp T_sp k routed token copies, T_sp the
 * rank's tokens after SP, f_e = expert ffn / etp, g the bytes of a saved GEMM input):
 *   expert fc1 inputs (the dispatched tokens)        g X h
 *   expert fc1 output (SwiGLU gate and up; GeLU 1)   a X 2 f_e   (a X f_e for GeLU)
 *   expert fc2 input (the activation's output)       g X f_e
 *   router probabilities (fp32, top-k kept)          4 T_sp k
 *   shared experts: their hidden                    3 a T f_s / t
 * The router input is the norm output (the dense layer's fc1 input term), which the
 * shared experts read as well; --recompute-modules layernorm drops it (the pre-MLP norm
 * of an MoE layer is a module of its own), shared_experts drops the shared hidden.
 * Not stored: the experts' outputs. Megatron-Core applies the routing probabilities
 * inside the experts' activation (megatron/core/transformer/moe/experts.py: the permuted
 * probabilities go into weighted_bias_swiglu_impl), so the unpermute that sums the k
 * copies of a token is a weighted-free gather whose backward needs only its index map
 * (TE's fused moe_unpermute with --moe-permute-fusion; the unfused path scatters by the
 * same indices).
 * g: with FP8 GEMMs Transformer Engine saves the quantized copy of a Linear's input for
 * the weight-gradient GEMM (TE Linear / GroupedLinear keep the FP8 tensor, not the bf16
 * one, when fp8_autocast is on), 1 byte (MXFP8 adds one E8M0 scale per 32 elements:
 * 1/32 B); else a.
 * --recompute-modules (Plan moe_recompute): moe_act drops the fc2 input (recomputed from
 * the fc1 output in the backward); moe keeps nothing of the MoE MLP but its input. */
static guint64
moe_layer_acts (const ModelSpec *model, const Plan *plan, const PlanMoe *moe,
                guint64 dense_mlp_hidden)
{
  guint64 t = (guint64) MAX (plan->tp, 1), cp = (guint64) MAX (plan->cp, 1);
  guint64 sp_div = plan->sequence_parallel ? t : 1;
  guint64 a = plan_mem_act_elem_bytes (plan);
  guint64 T = plan_mem_seq (plan, model) / cp * (guint64) MAX (plan->micro_batch, 1);
  guint64 Tsp = T / sp_div, h = model->hidden, k = (guint64) moe->top_k;
  guint64 etp = (guint64) (plan->etp > 0 ? plan->etp : plan->tp);
  double X = moe->imbalance * (double) (etp * Tsp * k);
  double f_e = (double) (moe->expert_ffn / etp);
  double fc1_out = model->mlp == MODEL_MLP_SWIGLU ? 2 : 1;
  double g = lowp_gemms (plan) ? 1.0 + 1.0 / 32.0 : (double) a;
  /* --recompute-modules moe: the MoE MLP keeps only its input, the norm output counted
   * with the dense part; moe_act: the fc2 input is recomputed from the fc1 output */
  if (plan->moe_recompute & PLAN_MOE_RECOMPUTE_LAYER)
    return 0;
  double fc2_in = plan->moe_recompute & PLAN_MOE_RECOMPUTE_ACT ? 0.0 : g * X * f_e;
  /* the fc1 output (the SwiGLU's input) in bf16, or in FP8 with 1x128 tile scales where
   * the stack caches it so (plan.h fp8_moe_act_input; DeepSeek-V3 report Sec. 3.3.3 (2):
   * the inputs of the SwiGLU operator in MoE are cached in FP8 with the fine-grained
   * quantization, 1 B plus an fp32 scale per 128 elements = g) */
  double act_in = plan->fp8_moe_act_input > 0 && g < (double) a ? g : (double) a;
  double bytes = g * X * (double) h + fc1_out * act_in * X * f_e + fc2_in
                 + 4.0 * (double) (Tsp * k);
  double mlpk = model->mlp == MODEL_MLP_SWIGLU ? 3 : 2;
  /* the shared experts' input is the pre-MLP norm output the router reads (one tensor;
   * with SP their fc1 saves the sequence shard and re-gathers it in the backward) */
  if (moe->shared_ffn > 0 && !(plan->moe_recompute & PLAN_MOE_RECOMPUTE_SHARED))
    bytes += mlpk * (double) (a * T) * (double) moe->shared_ffn / (double) t;
  (void) dense_mlp_hidden;
  return (guint64) (bytes + 0.5);
}

/* ZeRO-3/FSDP of an MoE model: the largest unit gathered at once on a stage. A dense
 * layer (or the embedding, the head: `unit`) is gathered over dp x cp when that group
 * shards; an MoE layer gathers its dense part (attention, norms, router) over dp x cp and
 * this rank's experts over the expert data-parallel group, both before it runs
 * (program.c), so its unit is the two together; a part whose group has one rank is not
 * gathered. */
static guint64
moe_zero3_unit (const Plan *plan, guint64 unit, double moe_dense_elems,
                double moe_expert_elems)
{
  gboolean dense_sharded = plan_param_shards (plan) > 1;
  gboolean expert_sharded = plan->sharding >= PLAN_SHARD_ZERO3 && plan->edp > 1;
  double moe_unit = (dense_sharded ? moe_dense_elems : 0)
                    + (expert_sharded ? moe_expert_elems : 0);
  return MAX (dense_sharded ? unit : 0, (guint64) (moe_unit + 0.5));
}

/* ---- the breakdown ------------------------------------------------------------------ */

void
plan_memory_compute (const ModelSpec *model, const Plan *plan, const TopoCluster *cluster,
                     PlanMemory *out)
{
  plan_memory_compute_full (model, plan, cluster, NULL, out);
}

void
plan_memory_compute_full (const ModelSpec *model, const Plan *plan, const TopoCluster *cluster,
                          const PlanMemOptions *opts, PlanMemory *out)
{
  PlanMemOptions defaults;
  ModelParams mp;
  PlanMemLayerActs acts;

  g_return_if_fail (model != NULL && plan != NULL && cluster != NULL && out != NULL);
  if (opts == NULL)
    {
      plan_mem_options_init (&defaults);
      opts = &defaults;
    }
  memset (out, 0, sizeof *out);
  model_spec_params (model, &mp);
  plan_memory_layer_activations (model, plan, opts, &acts);

  int p = MAX (plan->pp, 1);
  /* chunks a rank holds: DualPipe's two (stages i and p - 1 - i), else vpp */
  int v = plan_rank_chunks (plan);
  guint64 t = (guint64) MAX (plan->tp, 1);
  guint64 cp = (guint64) MAX (plan->cp, 1);
  guint64 sp_div = plan->sequence_parallel ? t : 1;
  guint64 a = plan_mem_act_elem_bytes (plan);
  guint64 s = plan_mem_seq (plan, model);
  guint64 b = (guint64) MAX (plan->micro_batch, 1);
  guint64 T = s / cp * b;
  guint64 h = model->hidden;
  gboolean dropout = plan_mem_dropout (model, plan, opts);

  /* elements on one rank */
  /* a GDN hybrid's mixer: the mean over its layer pattern (plan_layer_mixer_params) */
  const double repl = plan_mixer_tp_replicated (model);   /* MLA's down projections */
  guint64 layer_elems = (guint64) (plan_layer_mixer_params (model, -1) - repl + 0.5) / t
                        + (guint64) repl + mp.mlp_per_layer / t + mp.norms_per_layer;
  /* a hybrid Mamba-2 model: the MLP in its MLP layers only (the mean layer's share) */
  if (model_spec_is_mamba (model))
    layer_elems = (guint64) (plan_layer_mixer_params (model, -1) + 0.5) / t
                  + mp.n_mlp_layers * (mp.mlp_per_layer / t) / model->n_layers
                  + mp.norms_per_layer;
  /* MoE: the dense part and this rank's experts of an MoE layer, and its activations */
  PlanMoe moe;
  plan_moe (plan, model, &moe);
  double moe_dense_elems = 0, moe_expert_elems = 0;
  guint64 moe_full_layer = 0;
  if (moe.experts > 0)
    {
      int L0 = moe.first_dense + MAX (moe.layer_step, 1) - 1;   /* the first MoE layer */
      plan_layer_params_local (plan, model, &moe, L0, &moe_dense_elems, &moe_expert_elems);
      moe_dense_elems += (plan_layer_mixer_params (model, -1)
                          - plan_layer_mixer_params (model, L0)) / (double) t;
      /* the router input: the pre-MLP norm output (a bf16 GEMM's input, not an FP8
       * fc1's: a bytes), unless recomputed (layernorm), also where a dense layer's fc1
       * input is dropped with --recompute-modules mlp */
      guint64 router_in = (plan->moe_recompute & PLAN_MOE_RECOMPUTE_LAYERNORM) ? 0
                          : a * T * h / sp_div;
      moe_full_layer = acts.total - acts.mlp_hidden - acts.mlp_input + router_in
                       + moe_layer_acts (model, plan, &moe, acts.mlp_hidden);
    }
  guint64 word_emb = model->vocab * h;
  guint64 pos_emb = mp.input_embedding > word_emb ? mp.input_embedding - word_emb : 0;
  guint64 emb_elems = word_emb / t + pos_emb;
  guint64 head_elems = mp.output_head > 0 ? mp.output_head / t
                       : (p > 1 ? word_emb / t : 0);   /* tied: Megatron's last-stage copy */

  /* activation pieces */
  guint64 full_layer = acts.total;
  guint64 selective_layer = acts.total - acts.attn_scores - acts.attn_softmax_stats;
  guint64 op_layer = plan_mem_op_layer (model, plan, &acts);
  guint64 layer_input = a * T * h / sp_div;
  /* A JAX checkpoint policy that names what it saves (plan.h remat_named; Pax's
   * SAVE_QKV_OUT_PROJ = save_only_these_names ('combined_qkv_proj', 'out_proj'), the
   * scanned layer's carry kept as its residual): the layer input, Q, K, V and the
   * out-projection output; the norms, the attention core and its output, the MLP are
   * re-run from them (jax.checkpoint: every value not named is rematerialized) */
  if (plan->remat_named > 0 && plan->recompute == PLAN_RECOMPUTE_SELECTIVE)
    selective_layer = MIN (selective_layer, 2 * layer_input + acts.attn_qkv);
  /* stage 0: the int64 token ids the embedding backward needs, and the embedding dropout
   * mask (Korthikanti et al. section 4.3) */
  guint64 first_extra = 8 * T + (dropout ? T * h / sp_div : 0);
  /* last stage (Korthikanti et al. section 4.3: 4sbh/t + 4sbV/t): the final-norm input
   * and the output-GEMM input (a T h each, /t with SP), and the fp32 softmax that
   * Megatron's vocab-parallel cross-entropy saves for its backward (4 T V / t); the bf16
   * logits it was cast from are freed after the loss. Transformer Engine's cross entropy
   * (plan.h te_cross_entropy) saves the logits themselves, in the activation dtype, and
   * writes the gradient over them (transformer_engine/pytorch/cross_entropy.py
   * CrossEntropyFunction: ctx.save_for_backward of the input): a T V / t. */
  guint64 last_extra = 2 * a * T * h / sp_div
                       + (plan->te_cross_entropy ? a : 4) * T * model->vocab / t;
  /* A loss run as eager PyTorch ops on fp32 logits (plan.h loss_eager; torchtitan's
   * F.cross_entropy(pred.float(), labels)) saves the same fp32 T x V/t tensor
   * (log_softmax's output), but its backward allocates two more while that one lives:
   * nll_loss_backward's gradient (zeros of the input's shape, the target's entries set)
   * and log_softmax_backward_data's input gradient. A transient of the last stage, taken
   * like a recomputed layer's (the larger of the two, added to the peak). Megatron-Core's
   * vocab-parallel cross entropy computes its gradient in the saved softmax in place
   * (softmax minus the one-hot target), so a fused loss adds nothing. */
  guint64 loss_transient = plan->loss_eager > 0 ? 2 * 4 * T * model->vocab / t : 0;

  /* Multi-token prediction (plan.h mtp_num_layers), on the stage holding the head: per
   * module its parameters (plan_mtp_params_local: the layer of the decoder's last kind,
   * three norms, eh_proj; routed experts apart, their states over edp as the layers'),
   * and per micro-batch in flight its layer's stored activations (as a layer of that
   * kind under the plan's recompute), the enorm and hnorm inputs (a T h each, /t with SP),
   * eh_proj's 2h-wide input, and its own head's (last_extra: the final-norm and logits
   * inputs and the loss's saved softmax or logits). An untied model's last stage holds a
   * copy of the word embedding for the modules' lookups (Megatron-Core GPTModel builds
   * the embedding where pre_process or mtp_process); a tied one's head is that copy. */
  const int mtp_n = MAX (plan->mtp_num_layers, 0);
  double mtp_dense = 0, mtp_expert = 0;
  guint64 mtp_layer_full = full_layer, mtp_layer_sel = selective_layer;
  if (mtp_n > 0)
    {
      plan_mtp_params_local (plan, model, &moe, &mtp_dense, &mtp_expert);
      if (plan_moe_layer (&moe, (int) model->n_layers - 1))
        {
          double extra = (double) moe_full_layer - (double) full_layer;
          mtp_layer_full = (guint64) MAX ((double) full_layer + extra + 0.5, 0.0);
          mtp_layer_sel = (guint64) MAX ((double) selective_layer + extra + 0.5, 0.0);
        }
    }
  guint64 mtp_stored = 0, mtp_transient = 0;
  if (mtp_n > 0)
    {
      plan_mem_chunk_acts (plan, 1, mtp_layer_full, mtp_layer_sel, op_layer, layer_input,
                           &mtp_stored, &mtp_transient);
      mtp_stored += 2 * a * T * h / sp_div + 2 * a * T * h / sp_div + last_extra;
    }

  double states[3];
  guint64 capacity = cluster->device.hbm_bytes;

  out->n_stages = p;
  out->stages = g_new0 (PlanMemStage, p);
  out->capacity_bytes = capacity;
  out->act_bytes_per_layer = full_layer;
  out->act_bytes_per_moe_layer = moe.experts > 0 ? moe_full_layer : 0;
  out->moe_layers_only = moe.experts > 0 && moe.first_dense == 0 && MAX (moe.layer_step, 1) == 1;
  out->reserve_fraction = opts->reserve_fraction;
  out->reserve_fixed_bytes = opts->reserve_fixed_bytes;
  out->fits = TRUE;
  out->peak_stage = 0;

  for (int i = 0; i < p; i++)
    {
      PlanMemStage *st = &out->stages[i];
      /* the chunks holding the embedding (model chunk 0) and the head (the last): chunk 0
       * of stage 0 and chunk v - 1 of the last stage; under DualPipe ranks 0 and p - 1
       * hold both, one in each chunk (their parameters twice over the pipeline) */
      int emb_c = -1, head_c = -1;
      for (int c = 0; c < v; c++)
        {
          if (plan_model_chunk (plan, i, c) == 0)
            emb_c = c;
          if (plan_model_chunk (plan, i, c) == p * MAX (plan->vpp, 1) - 1)
            head_c = c;
        }
      gboolean first = emb_c >= 0, last = head_c >= 0;
      int layers = plan_stage_layers (plan, model, i);

      st->stage = i;
      st->layers = layers;
      st->inflight_microbatches = plan_memory_inflight (plan, i);

      /* params, grads, optimizer */
      int moe_layers = 0;
      if (moe.experts > 0)
        for (int c = 0; c < v; c++)
          {
            int f0 = plan_chunk_first_layer (plan, model, i, c);
            for (int l = f0; l < f0 + plan_chunk_layers (plan, model, i, c); l++)
              moe_layers += plan_moe_layer (&moe, l);
          }
      guint64 elems = (guint64) (layers - moe_layers) * layer_elems
                      + (guint64) ((double) moe_layers * moe_dense_elems + 0.5);
      /* largest FSDP unit on this stage (an MoE layer's: moe_zero3_unit) */
      guint64 unit = layers > moe_layers ? layer_elems : 0;
      if (first)
        {
          elems += emb_elems;
          unit = MAX (unit, emb_elems);
        }
      if (last)
        {
          elems += mp.final_norm + head_elems;
          unit = MAX (unit, head_elems);
          elems += (guint64) (mtp_n * mtp_dense + 0.5)
                   + (mtp_n > 0 && !first && mp.output_head > 0 ? word_emb / t : 0);
        }
      if (moe_layers > 0)
        unit = moe_zero3_unit (plan, unit, moe_dense_elems, moe_expert_elems);
      plan_memory_model_states (plan, (double) elems, states);
      /* fp8 weights (plan_fp8_params, Megatron --fp8-param-gather): a dense layer's linear
       * weights are Float8Tensors, 1 B each; where FP8 GEMMs take only TN (Hopper) the
       * tensor keeps a transposed copy for the backward beside it (Transformer Engine's
       * transpose cache), 2 B as counted above; on a device whose FP8 GEMMs take every
       * layout (Blackwell) there is none. The embedding, head, norms and the MoE layers'
       * weights stay at the parameter dtype here. */
      if (plan_fp8_params (plan) && cluster->device.fp8_any_layout)
        {
          const double pb = plan_precision_bytes (plan->param_dtype);
          const double lin = (double) (layer_elems - mp.norms_per_layer);
          if (pb > 1 && lin > 0)
            states[0] -= (double) (layers - moe_layers) * lin * (pb - 1.0)
                         / plan_param_shards (plan);
        }
      if (moe_layers > 0 || (last && mtp_n > 0 && mtp_expert > 0))
        {
          /* the experts' states shard over the expert data-parallel group (ZeRO-1/2 over
           * edp, as Megatron-Core's distributed optimizer does for expert parameters;
           * ZeRO-3 shards their parameters and gradients over edp as well) */
          Plan ex = *plan;
          ex.dp = MAX (plan->edp, 1);
          ex.cp = 1;
          double es[3];
          plan_memory_model_states (&ex, moe_layers * moe_expert_elems
                                         + (last ? mtp_n * mtp_expert : 0), es);
          for (int k = 0; k < 3; k++)
            states[k] += es[k];
        }
      st->bytes[PLAN_MEM_PARAMS] = (guint64) (states[0] + 0.5);
      st->bytes[PLAN_MEM_GRADS] = (guint64) (states[1] + 0.5);
      st->bytes[PLAN_MEM_OPTIMIZER] = (guint64) (states[2] + 0.5);

      /* activations: per micro-batch and chunk, summed over the units in flight at the
       * stage's peak (plan_mem_schedule_peak) */
      guint64 transient = 0;
      guint64 *chunk_mb = g_new0 (guint64, v);
      for (int c = 0; c < v; c++)
        {
          guint64 stored, tr;
          guint64 full_c = full_layer, sel_c = selective_layer;
          int n_c = plan_chunk_layers (plan, model, i, c);
          if (moe.experts > 0 && n_c > 0)
            {
              /* the chunk's mean layer: dense and MoE layers mixed */
              int f0 = plan_chunk_first_layer (plan, model, i, c), m_c = 0;
              for (int l = f0; l < f0 + n_c; l++)
                m_c += plan_moe_layer (&moe, l);
              /* signed: a MoE layer may hold less than the dense one (experts narrower
               * than the model's dense MLP; fuzz-published-csv found the unsigned cast) */
              double extra = (double) m_c * ((double) moe_full_layer - (double) full_layer)
                             / n_c;
              full_c = (guint64) MAX ((double) full_c + extra + 0.5, 0.0);
              sel_c = (guint64) MAX ((double) sel_c + extra + 0.5, 0.0);
            }
          plan_mem_chunk_acts (plan, n_c, full_c, sel_c, op_layer, layer_input, &stored, &tr);
          chunk_mb[c] = stored;
          transient = MAX (transient, tr);
        }
      /* the embedding's and the head's stored tensors belong to the chunk that runs them:
       * chunk 0 of stage 0 and chunk v - 1 of the last stage (Megatron's virtual stage 0
       * and v - 1, is_vp_first_stage / is_vp_last_stage) */
      if (first)
        chunk_mb[emb_c] += first_extra;
      if (last)
        {
          chunk_mb[head_c] += last_extra + (guint64) mtp_n * mtp_stored;
          transient = MAX (transient, mtp_transient);
        }
      /* A stage's received input freed after its forward (plan.h pp_free_stage_input; the
       * Llama 3 paper, arXiv 2407.21783, Sec. 3.3.2: "we proactively deallocate tensors
       * that will not be used for future computation, including the input and output
       * tensors of each pipeline stage"). Every model chunk but the first (which starts
       * from the token ids) receives its input from the previous stage, and here that
       * tensor is its first norm's stored input (the final norm's in a loss-only chunk):
       * each unit of such a chunk keeps one boundary activation less, a T h (/t with SP),
       * layer_input. Read as the paper states it: the freeing saves memory only where
       * nothing else keeps that tensor for the backward, i.e. where the first norm keeps
       * something else for its own (apex's memory-efficient RMSNorm keeps its output, which
       * the next GEMM stores anyway), which the paper does not say. Only
       * without recompute or offloading, where a chunk re-runs or reloads from it; the
       * selective recompute of the attention core re-runs from Q, K and V, not from the
       * layer's input, so it frees the input as a plan without recompute does (it kept
       * it, and selective read 4.2 GB more than none on Table 4's plan); a JAX policy
       * that names what it saves (remat_named) re-runs the norms from the input. The
       * stage's output is stored by no unit here, in every stack (Megatron-Core's
       * deallocate_pipeline_outputs; the paper's same sentence). */
      if (plan->pp_free_stage_input > 0 && p > 1
          && (plan->recompute == PLAN_RECOMPUTE_NONE
              || (plan->recompute == PLAN_RECOMPUTE_SELECTIVE && plan->remat_named <= 0))
          && plan->cpu_offload_layers <= 0)
        for (int c = 0; c < v; c++)
          if (plan_model_chunk (plan, i, c) > 0
              && (plan_chunk_layers (plan, model, i, c) > 0 || c == head_c))
            chunk_mb[c] -= MIN (chunk_mb[c], layer_input);
      /* A stage's output kept until its backward (plan.h pp_keep_stage_output):
       * torch.distributed.pipelining's _PipelineStageBase.forward_one_chunk stores the
       * output tuple in fwd_cache[chunk id] and backward_one_chunk pops it, so every unit
       * in flight of a chunk whose output goes to another stage (all but the model's last
       * chunk, whose output is the loss) holds one boundary activation more, a T h (/t
       * with SP, torchtitan's SequenceParallel residual), layer_input; nothing else stores
       * it (the next layer's norm input lives on the next stage). With recompute too: the
       * cache holds the output whatever the chunk saves. */
      if (plan->pp_keep_stage_output > 0 && p > 1)
        for (int c = 0; c < v; c++)
          if (!(last && c == head_c))
            chunk_mb[c] += layer_input;
      /* Unfused attention's backward holds the gradient of the scores, one b x heads x
       * s x s tensor, while the attention core's backward runs (the other activation
       * gradients are left to the fragmentation allowance, above). By then the layer's
       * backward has freed what it stored after the core (acts.after_core: the MLP block,
       * the out-projection input, the dropout masks), so the gradient adds only what it
       * exceeds them by, to a layer without recompute or re-run in full. Dense layers
       * only (an MoE layer's MLP stores another amount); selective recompute re-runs the
       * core itself in the backward, whose scores are not counted here either. */
      if (plan->attention_backend == PLAN_ATTN_UNFUSED)
        {
          guint64 grad = a * attn_score_elems (model, plan);
          if (moe.experts == 0
              && (plan->recompute == PLAN_RECOMPUTE_NONE || plan->recompute == PLAN_RECOMPUTE_FULL))
            grad -= MIN (grad, acts.after_core);
          transient += grad;
        }
      /* On a last stage with one model chunk, every backward the rank runs is of a unit
       * that holds the head: its loss and head backward run first (the loss transient
       * beside everything stored) and, as the autograd engine releases each node's saved
       * tensors after its backward (engine.cpp evaluate_function: release_variables),
       * the head's (last_extra: the final-norm and output-GEMM inputs and the loss's
       * softmax or logits) are gone before any layer's backward adds its transient: that
       * transient adds only what it exceeds them by. With several chunks a rank also runs
       * the backwards of chunks without the head, beside the head units in flight. */
      if (last)
        {
          guint64 layer_tr = transient;
          if (v == 1 && plan->schedule != PLAN_SCHED_DUALPIPE)
            layer_tr -= MIN (layer_tr, last_extra);
          transient = MAX (layer_tr, loss_transient);
        }
      if (plan->sharding == PLAN_SHARD_ZERO2 && plan->zero2_grad_sync == 0
          && plan->pp_grad_after_stage > 0 && p > 1 && moe_layers == 0 && elems > 0
          && plan->schedule != PLAN_SCHED_DUALPIPE)
        {
          /* FSDP's unsharded per-step gradients live chunk by chunk, from the chunk's
           * first backward to its last (plan_mem_schedule_peak_grads): the peak of the
           * two together, each category taking its part at that moment */
          guint64 *chunk_grad = g_new0 (guint64, v);
          int *chunk_modules = g_new0 (int, v);
          for (int c = 0; c < v; c++)
            {
              chunk_modules[c] = plan_chunk_layers (plan, model, i, c);
              guint64 ce = (guint64) chunk_modules[c] * layer_elems;
              if (first && c == emb_c)
                ce += emb_elems;
              if (last && c == head_c)
                ce += mp.final_norm + head_elems;
              chunk_grad[c] = (guint64) (states[1] * (double) ce / (double) elems + 0.5);
            }
          guint64 grads_at = 0;
          st->bytes[PLAN_MEM_ACTIVATIONS]
            = plan_mem_schedule_peak_grads (plan, st->inflight_microbatches, chunk_mb,
                                            chunk_grad, chunk_modules, v, transient, &grads_at);
          st->bytes[PLAN_MEM_GRADS] = grads_at;
          g_free (chunk_grad);
          g_free (chunk_modules);
        }
      else if (plan->schedule == PLAN_SCHED_DUALPIPE)
        st->bytes[PLAN_MEM_ACTIVATIONS] = plan_mem_dualpipe_peak (plan, i, chunk_mb) + transient;
      else
        st->bytes[PLAN_MEM_ACTIVATIONS]
          = plan_mem_schedule_peak (plan, st->inflight_microbatches, chunk_mb, v) + transient;
      g_free (chunk_mb);

      /* communication buffers */
      guint64 comm = 0;
      /* gathered units held: the one computing and the prefetched next; a unit larger
       * than the stack's prefetch (DeepSpeed's stage3_prefetch_bucket_size, 5e7
       * parameters: plan zero3_prefetch_params) is not gathered ahead, the step program
       * gathers it after the compute before it (program.c gather_prefetched), so one
       * is held */
      int held = MAX (opts->param_gather_layers, 1);
      if (plan->zero3_prefetch_params > 0 && (double) unit > plan->zero3_prefetch_params)
        held = 1;
      if (plan_param_shards (plan) > 1 || (moe_layers > 0 && unit > 0))
        comm += (guint64) held * unit * plan_precision_bytes (plan->param_dtype);
      {
        /* Gradient buckets (Megatron --ddp-bucket-size, plan->bucket_bytes): with sharded
         * gradients a bucket exists unsharded before its reduce-scatter; with
         * overlap_grad_reduce one more is being filled while one is in flight (for
         * unsharded grads the bucket is a view of the grad buffer, so only the staging
         * one of the overlapped collective counts). Never more than the stage's grads. */
        guint64 full_grads = elems * plan_precision_bytes (plan->grad_dtype);
        guint64 bucket = MIN ((guint64) MAX (plan_bucket_bytes (plan), 0), full_grads);
        int n_buckets = (plan_grad_shards (plan) > 1 ? 1 : 0) + (plan->overlap_grad_reduce ? 1 : 0);
        comm += (guint64) n_buckets * bucket;
      }
      if (p > 1)
        /* one activation being sent and one received (forward activations or backward
         * gradients), s b h /t(SP) at a bytes */
        comm += 2 * a * T * h / sp_div;
      if (plan->sequence_parallel && t > 1)
        /* SP all-gathers block inputs to the full sequence before the QKV and fc1 GEMMs
         * (Korthikanti et al. section 4.2.2), and the backward re-gathers them one block
         * ahead (program.c): two a T h buffers, the one in use and the next */
        comm += 2 * a * T * h;
      st->bytes[PLAN_MEM_COMM_BUFFERS] = comm;

      guint64 counted = 0;
      for (int k = 0; k < PLAN_MEM_RESERVE; k++)
        counted += st->bytes[k];
      st->bytes[PLAN_MEM_RESERVE] = (guint64) (opts->reserve_fraction * (double) counted + 0.5)
                                    + opts->reserve_fixed_bytes;
      st->total = counted + st->bytes[PLAN_MEM_RESERVE];
      st->fits = st->total <= capacity;

      if (!st->fits)
        out->fits = FALSE;
      if (st->total > out->peak_bytes)
        {
          out->peak_bytes = st->total;
          out->peak_stage = i;
        }
    }
}

void
plan_memory_clear (PlanMemory *mem)
{
  if (mem == NULL)
    return;
  g_clear_pointer (&mem->stages, g_free);
  mem->n_stages = 0;
}

/* ---- JSON --------------------------------------------------------------------------- */

static void
plan_mem_add_uint (JsonBuilder *b, const char *name, guint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) MIN (v, (guint64) G_MAXINT64));
}

static void
plan_mem_add_categories (JsonBuilder *b, const guint64 *bytes)
{
  json_builder_set_member_name (b, "categories");
  json_builder_begin_object (b);
  for (int k = 0; k < PLAN_MEM_N; k++)
    plan_mem_add_uint (b, plan_mem_category_name ((PlanMemCategory) k), bytes[k]);
  json_builder_end_object (b);
}

void
plan_memory_to_json (const PlanMemory *mem, JsonBuilder *b)
{
  static const guint64 zero[PLAN_MEM_N];

  g_return_if_fail (mem != NULL && b != NULL);
  json_builder_begin_object (b);
  plan_mem_add_uint (b, "peak_bytes", mem->peak_bytes);
  json_builder_set_member_name (b, "peak_stage");
  json_builder_add_int_value (b, mem->peak_stage);
  plan_mem_add_uint (b, "capacity_bytes", mem->capacity_bytes);
  json_builder_set_member_name (b, "fits");
  json_builder_add_boolean_value (b, mem->fits);
  plan_mem_add_categories (b, mem->n_stages > 0 ? mem->stages[mem->peak_stage].bytes : zero);
  plan_mem_add_uint (b, "act_bytes_per_layer", mem->act_bytes_per_layer);
  /* an MoE model's MoE layer (its experts' copies in place of the dense MLP); null for a
   * dense model */
  json_builder_set_member_name (b, "act_bytes_per_moe_layer");
  if (mem->act_bytes_per_moe_layer > 0)
    json_builder_add_int_value (b, (gint64) mem->act_bytes_per_moe_layer);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "reserve_fraction");
  json_builder_add_double_value (b, mem->reserve_fraction);
  plan_mem_add_uint (b, "reserve_fixed_bytes", mem->reserve_fixed_bytes);

  json_builder_set_member_name (b, "stages");
  json_builder_begin_array (b);
  for (int i = 0; i < mem->n_stages; i++)
    {
      const PlanMemStage *st = &mem->stages[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "stage");
      json_builder_add_int_value (b, st->stage);
      json_builder_set_member_name (b, "layers");
      json_builder_add_int_value (b, st->layers);
      json_builder_set_member_name (b, "inflight_microbatches");
      json_builder_add_int_value (b, st->inflight_microbatches);
      plan_mem_add_categories (b, st->bytes);
      plan_mem_add_uint (b, "total_bytes", st->total);
      json_builder_set_member_name (b, "fits");
      json_builder_add_boolean_value (b, st->fits);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}
