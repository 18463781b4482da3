/* tests/plan/test-memory.c - the per-GPU memory model (plan/memory.c).
 *
 * Models are filled by hand from the numbers of their Hugging Face configs, plans by
 * plan_init_defaults() and direct assignment (dp, grad_accum, seq_length as plan_resolve
 * would derive them), and clusters by their device HBM only: the memory model reads
 * nothing else. GB = 1e9 bytes, GiB = 2^30 bytes. */
#include "plan/memory.h"

#include <json-glib/json-glib.h>

#define GiB ((guint64) 1 << 30)

/* A Llama-style model (model_type "llama": SwiGLU, RMSNorm, RoPE, untied embeddings) of
 * hidden h, MLP width ffn, `layers`, `heads` query heads of h / heads, `kv_heads`. */
static void
llama_style (ModelSpec *m, const char *name, guint64 h, guint64 ffn, guint64 layers,
             guint64 heads, guint64 kv_heads, guint64 vocab, guint64 max_positions)
{
  memset (m, 0, sizeof *m);
  m->ref_count = 1;
  m->name = (char *) name;
  m->model_type = (char *) "llama";
  m->hidden = h;
  m->ffn_hidden = ffn;
  m->n_layers = layers;
  m->n_heads = heads;
  m->n_kv_heads = kv_heads;
  m->head_dim = h / heads;
  m->vocab = vocab;
  m->max_positions = max_positions;
  m->mlp = MODEL_MLP_SWIGLU;
  m->norm = MODEL_NORM_RMS;
  m->pos = MODEL_POS_ROTARY;
}

/* Llama 3.1 405B (meta-llama/Llama-3.1-405B config.json): h 16384, 126 layers, 128 query
 * heads of 128, 8 KV heads, SwiGLU 53248, vocab 128256, untied, RMSNorm, RoPE. */
static void
llama3_405b (ModelSpec *m)
{
  llama_style (m, "llama3-405b", 16384, 53248, 126, 128, 8, 128256, 131072);
}

/* A small Llama-style model: h 512, 8 heads of 64 (no GQA), SwiGLU 1536, 8 layers,
 * vocab 1000, untied. Per layer: attention 4 h^2 = 1,048,576, MLP 3 h f = 2,359,296,
 * norms 2h = 1,024: 3,408,896 elements. */
static void
small_llama (ModelSpec *m)
{
  llama_style (m, "small-llama", 512, 1536, 8, 8, 8, 1000, 4096);
}

/* A GPT-style model as in Korthikanti et al.: h 1024, 16 heads of 64, GeLU MLP 4h,
 * LayerNorm, learned positions, tied embeddings, dropout (AUTO gives it to GeLU). */
static void
small_gpt (ModelSpec *m)
{
  memset (m, 0, sizeof *m);
  m->ref_count = 1;
  m->name = (char *) "small-gpt";
  m->model_type = (char *) "gpt2";
  m->hidden = 1024;
  m->ffn_hidden = 4096;
  m->n_layers = 24;
  m->n_heads = 16;
  m->n_kv_heads = 16;
  m->head_dim = 64;
  m->vocab = 50257;
  m->max_positions = 2048;
  m->mlp = MODEL_MLP_GELU;
  m->norm = MODEL_NORM_LAYER;
  m->pos = MODEL_POS_LEARNED;
  m->tied_embeddings = TRUE;
  m->attn_bias = TRUE;
  m->mlp_bias = TRUE;
}

/* Llama 3 8B (meta-llama/Meta-Llama-3-8B config.json): h 4096, 32 layers, 32 query heads
 * of 128, 8 KV heads, SwiGLU 14336, vocab 128256, untied, RMSNorm, RoPE. */
static void
llama3_8b (ModelSpec *m)
{
  llama_style (m, "llama3-8b", 4096, 14336, 32, 32, 8, 128256, 8192);
}

static void
cluster_with_hbm (TopoCluster *c, guint64 hbm)
{
  memset (c, 0, sizeof *c);
  c->ref_count = 1;
  c->device.hbm_bytes = hbm;
}

/* The small Llama on pp 4 (2 layers a stage), tp 1, dp 1, 8 micro-batches of 1 x 256. */
static void
small_plan (Plan *p)
{
  plan_init_defaults (p);
  p->pp = 4;
  p->dp = 1;
  p->seq_length = 256;
  p->micro_batch = 1;
  p->global_batch = 8;
  p->grad_accum = 8;
}

/* One GPU (dp 1, no parallelism), micro-batches of `micro_batch` x `seq` tokens. */
static void
one_gpu_plan (Plan *p, int seq, int micro_batch)
{
  plan_init_defaults (p);
  p->dp = 1;
  p->seq_length = seq;
  p->micro_batch = micro_batch;
}

/* Mixed-precision Adam as ZeRO counts it (K = 12: fp32 master, m and v) with bf16 params
 * and grads, over `dp` ranks under `sharding`. */
static void
mixed_adam_plan (Plan *p, int dp, PlanSharding sharding)
{
  plan_init_defaults (p);
  p->dp = dp;
  p->sharding = sharding;
  p->param_dtype = PLAN_PREC_BF16;
  p->grad_dtype = PLAN_PREC_BF16;
  p->optim_dtype = PLAN_PREC_FP32;
  p->master_weights = TRUE;
}

/* 8 bytes per parameter: fp32 params (4) + fp32 grads (4), optimizer offloaded to the
 * host (0), no sharding: 1e9 x 8 = 8e9 bytes = 8 GB. */
static void
test_states_8_bytes (void)
{
  Plan p;
  double st[3];

  plan_init_defaults (&p);
  p.dp = 1;
  p.param_dtype = PLAN_PREC_FP32;
  p.grad_dtype = PLAN_PREC_FP32;
  p.optimizer_offload = TRUE;
  plan_memory_model_states (&p, 1e9, st);
  /* 1e9 x 4 = 4e9 params, 4e9 grads, 0 optimizer */
  g_assert_cmpfloat_with_epsilon (st[0], 4e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[1], 4e9, 1.0);
  g_assert_cmpfloat (st[2], ==, 0.0);
  g_assert_cmpfloat_with_epsilon (st[0] + st[1] + st[2], 8e9, 1.0);
  plan_clear (&p);
}

/* 100B parameters fully sharded (ZeRO-3) over 80 GPUs at 8 bytes of state each: bf16
 * params (2) + bf16 grads (2) + Adam m and v in bf16 without master weights (2 + 2).
 * 100e9 x 8 / 80 = 10e9 bytes = 10 GB per GPU. */
static void
test_zero3_100b (void)
{
  Plan p;
  double st[3];

  plan_init_defaults (&p);
  p.dp = 80;
  p.sharding = PLAN_SHARD_ZERO3;
  p.param_dtype = PLAN_PREC_BF16;
  p.grad_dtype = PLAN_PREC_BF16;
  p.optim_dtype = PLAN_PREC_BF16;
  p.master_weights = FALSE;
  g_assert_cmpint (plan_param_shards (&p), ==, 80);
  plan_memory_model_states (&p, 100e9, st);
  /* 100e9 x 2 / 80 = 2.5e9 params, 2.5e9 grads, 100e9 x 4 / 80 = 5e9 optimizer */
  g_assert_cmpfloat_with_epsilon (st[0], 2.5e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[1], 2.5e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[2], 5e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[0] + st[1] + st[2], 10e9, 1.0);
  plan_clear (&p);
}

/* What eager model code keeps. K and V repeated to the query heads before SDPA (plan.h
 * cp_kv_repeated; torchtitan's
 * repeat_kv copies them) are what the flash kernel saves: Llama 3 405B, 4,096 tokens,
 * tp 1, 128 query heads and 8 KV heads of 128: Q K V 2 T (h + 2 x 1,024) = 150,994,944
 * grouped, 2 T (3 x 16,384) = 402,653,184 repeated. */
static void
test_kv_repeated_saved (void)
{
  ModelSpec m;
  Plan p;
  PlanMemLayerActs acts;
  llama3_405b (&m);
  one_gpu_plan (&p, 4096, 1);
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.attn_qkv, ==, G_GUINT64_CONSTANT (150994944));
  p.cp_kv_repeated = 1;
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.attn_qkv, ==, G_GUINT64_CONSTANT (402653184));
  /* the eager SwiGLU (plan.h swiglu_eager_saves) keeps silu's output too: gate and up
   * 2 x 2 T f + the product 2 T f = 1,308,622,848 (f = 53,248), + 2 T f = 436,207,616:
   * 1,744,830,464 */
  g_assert_cmpuint (acts.mlp_hidden, ==, G_GUINT64_CONSTANT (1308622848));
  p.swiglu_eager_saves = 1;
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.mlp_hidden, ==, G_GUINT64_CONSTANT (1744830464));
  plan_clear (&p);
}

/* FSDP with a mixed-precision policy (plan.h fsdp_fp32_shards; torch FSDP2 keeps each
 * shard in the parameter's fp32 and casts it as it is gathered; the optimizer steps the
 * shard): Psi = 8e9 over 64 shards, bf16 compute, fp32 gradients, Adam: params 4 Psi / 64
 * = 0.5e9, grads 4 Psi / 64 = 0.5e9, optimizer m + v 8 Psi / 64 = 1e9: 16 Psi / 64 =
 * 2e9. Without it (DeepSpeed's bf16 shards and fp32 master): 2 + 4 + 12 = 18 Psi / 64 =
 * 2.25e9. ZeRO-2 (the parameters unsharded) is the same either way: 2 Psi + (4 + 12)
 * Psi / 64. */
static void
test_fsdp_fp32_shards (void)
{
  Plan p;
  double st[3];

  plan_init_defaults (&p);
  p.dp = 64;
  p.sharding = PLAN_SHARD_ZERO3;
  p.grad_dtype = PLAN_PREC_FP32;
  p.fsdp_fp32_shards = 1;
  plan_memory_model_states (&p, 8e9, st);
  g_assert_cmpfloat_with_epsilon (st[0], 0.5e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[1], 0.5e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[2], 1e9, 1.0);
  p.fsdp_fp32_shards = 0;
  plan_memory_model_states (&p, 8e9, st);
  g_assert_cmpfloat_with_epsilon (st[0] + st[1] + st[2], 2.25e9, 1.0);
  p.sharding = PLAN_SHARD_ZERO2;
  for (int f = 0; f < 2; f++)
    {
      p.fsdp_fp32_shards = f;
      plan_memory_model_states (&p, 8e9, st);
      g_assert_cmpfloat_with_epsilon (st[0], 16e9, 1.0);
      g_assert_cmpfloat_with_epsilon (st[1] + st[2], 16.0 * 8e9 / 64, 1.0);
    }
  plan_clear (&p);
}

/* ZeRO (Rajbhandari et al. 2020) Figure 1: Psi = 7.5e9, Nd = 64, mixed-precision Adam
 * K = 12 (fp32 master 4 + m 4 + v 4), bf16 params (2) and bf16 grads (2):
 *   DDP      (2 + 2 + 12) Psi             = 120 GB
 *   ZeRO-1   2 Psi + 2 Psi + 12 Psi / 64  = 15 + 15 + 1.40625  = 31.40625 GB (31.4)
 *   ZeRO-2   2 Psi + (2 + 12) Psi / 64    = 15 + 1.640625      = 16.640625 GB (16.6)
 *   ZeRO-3   16 Psi / 64                  = 1.875 GB (1.9)
 * params + grads + optimizer only, to 0.1 GB. */
static void
test_zero_figure1 (void)
{
  static const struct { PlanSharding sharding; double gb; } rows[] = {
    { PLAN_SHARD_NONE, 120.0 },
    { PLAN_SHARD_ZERO1, 31.4 },
    { PLAN_SHARD_ZERO2, 16.6 },
    { PLAN_SHARD_ZERO3, 1.9 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      Plan p;
      double st[3];

      mixed_adam_plan (&p, 64, rows[i].sharding);
      plan_memory_model_states (&p, 7.5e9, st);
      g_assert_cmpfloat_with_epsilon ((st[0] + st[1] + st[2]) / 1e9, rows[i].gb, 0.1);
      plan_clear (&p);
    }
}

/* ZeRO-2 as FSDP2 runs it under PP (torchtitan: zero2_grad_sync 0, gradient sync off
 * until the stage's last backward, fp32 upcast accumulation): Psi = 6.3e9 parameters on
 * the rank (Llama 3.1 405B over PP 8 x TP 8), dp 8, bf16 params and grads, 16
 * micro-batches:
 *   per micro-batch sync (DeepSpeed, Megatron stacks): grads 2 Psi / 8 = 1.575 GB;
 *   per step, upcast:       grads 4 Psi         = 25.2 GB (the fp32 sums, unsharded);
 *   per step, one micro-batch (nothing to accumulate): 2 Psi = 12.6 GB;
 * params and optimizer unchanged (ZeRO-2 keeps params whole, 2 Psi = 12.6 GB; optimizer
 * 12 Psi / 8 = 9.45 GB). */
static void
test_zero2_per_step (void)
{
  Plan p;
  double st[3];
  mixed_adam_plan (&p, 8, PLAN_SHARD_ZERO2);
  p.grad_accum = 16;
  p.zero2_grad_sync = 1;
  p.grad_accum_upcast = 1;
  plan_memory_model_states (&p, 6.3e9, st);
  g_assert_cmpfloat_with_epsilon (st[1], 1.575e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[0], 12.6e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[2], 9.45e9, 1.0);
  p.zero2_grad_sync = 0;
  plan_memory_model_states (&p, 6.3e9, st);
  g_assert_cmpfloat_with_epsilon (st[1], 25.2e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[0], 12.6e9, 1.0);
  g_assert_cmpfloat_with_epsilon (st[2], 9.45e9, 1.0);
  p.grad_accum = 1;
  plan_memory_model_states (&p, 6.3e9, st);
  g_assert_cmpfloat_with_epsilon (st[1], 12.6e9, 1.0);
  p.grad_accum = 16;
  p.grad_accum_upcast = 0;
  plan_memory_model_states (&p, 6.3e9, st);
  g_assert_cmpfloat_with_epsilon (st[1], 12.6e9, 1.0);
  plan_clear (&p);
}

/* The course's counting of Llama 3 405B FFN activations: 2 bytes x 126 layers x a 4h
 * wide hidden (4 x 16,384 = 65,536) x 4,096 tokens = 126 x 2^29 bytes = 63 GiB exactly.
 * That counting leaves out: SwiGLU stores three ffn-wide tensors per layer (gate and up,
 * both needed by the silu(g) * u backward, and their product, the down-GEMM input), and
 * the real ffn width is 53,248 = 3.25 h, not 4h; the attention block (Q, K, V, GEMM
 * inputs), the norm inputs and the fc1 input; and the TP/SP division. Our per-op model
 * for the same 4,096 tokens on one GPU (tp 1) gives for the MLP hidden alone
 * 3 x 2 x 4,096 x 53,248 = 1,308,622,848 bytes per layer, x 126 = 164,886,478,848 bytes
 * (153.6 GiB), 2.44x the course's figure. */
static void
test_course_ffn_405b (void)
{
  ModelSpec m;
  Plan p;
  PlanMemLayerActs acts;

  g_assert_cmpuint (plan_memory_mlp_hidden_bytes (4096, 4 * 16384, 126, 2), ==, 63 * GiB);

  llama3_405b (&m);
  one_gpu_plan (&p, 4096, 1);
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.mlp_hidden, ==, G_GUINT64_CONSTANT (1308622848));
  g_assert_cmpuint (acts.mlp_hidden * 126, ==, G_GUINT64_CONSTANT (164886478848));
  plan_clear (&p);
}

/* A hybrid Mamba-2 layer's stored activations (Nemotron-H 8B: h 4096, 24 Mamba, 4
 * attention and 24 MLP layers of 52; 128 Mamba heads of 64, 8 groups of state 128), one
 * GPU, 1,024 tokens, bf16 (2 B), flash attention, no dropout. Per kind, by hand:
 *   every layer one norm input: 2 x 1,024 x 4,096 = 8,388,608;
 *   Mamba: GEMM inputs in_proj 8,388,608 + out_proj 2 x 1,024 x 8,192 = 16,777,216
 *     -> 25,165,824; kept inside the mixer: in_proj output 2 x 1,024 x 18,560 =
 *     38,010,880, conv output 2 x 1,024 x (8,192 + 2,048) = 20,971,520, dt and its decay
 *     fp32 4 x 1,024 x 2 x 128 = 1,048,576, scan output 16,777,216 -> 76,808,192;
 *   attention: qkv and out-projection inputs 2 x 8,388,608 = 16,777,216; Q, K, V
 *     2 x 1,024 x (4,096 + 2 x 1,024) = 12,582,912; softmax statistics 4 x 32 x 1,024 =
 *     131,072;
 *   MLP: fc1 input 8,388,608; relu2's input and output 2 x 2 x 1,024 x 21,504 =
 *     88,080,384;
 *   mean over the 52 layers (integer division, as the code): linear inputs (24 x
 *     25,165,824 + 4 x 16,777,216 + 24 x 8,388,608) / 52 = 16,777,216; mixer internals
 *     (24 x 76,808,192 + 4 x 12,582,912) / 52 = 36,417,851; statistics 4 x 131,072 / 52 =
 *     10,082; MLP hidden 24 x 88,080,384 / 52 = 40,652,484; total 102,246,241. */
static void
test_mamba_layer_acts (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) m = model_spec_lookup ("nemotron-h-8b", &error);
  g_assert_no_error (error);
  Plan p;
  PlanMemLayerActs acts;
  one_gpu_plan (&p, 1024, 1);
  plan_memory_layer_activations (m, &p, NULL, &acts);
  g_assert_cmpuint (acts.norm_inputs, ==, 8388608);
  g_assert_cmpuint (acts.linear_inputs, ==, 16777216);
  g_assert_cmpuint (acts.attn_qkv, ==, 36417851);
  g_assert_cmpuint (acts.attn_softmax_stats, ==, 10082);
  g_assert_cmpuint (acts.mlp_hidden, ==, 40652484);
  g_assert_cmpuint (acts.dropout_masks, ==, 0);
  g_assert_cmpuint (acts.total, ==, 102246241);
  plan_clear (&p);
}

/* FP8 GEMMs: Transformer Engine saves each Linear's input as its FP8 copy (1 B + one E8M0
 * scale per 32 elements). Llama 3 405B, 4,096 tokens, tp 1: T h = 67,108,864 elements,
 * saved as 67,108,864 + 2,097,152 = 69,206,016 B; QKV, out-projection (hq = h) and fc1
 * inputs 3 x that = 207,618,048 (bf16: 6 T h = 402,653,184). MLP: gate and up stay bf16,
 * 2 x 2 x 4,096 x 53,248 = 872,415,232; the product (fc2 input) T f = 218,103,808 ->
 * 218,103,808 + 6,815,744 = 224,919,552; sum 1,097,334,784 (bf16 1,308,622,848). Norm
 * inputs (2 x 2 T h = 268,435,456) and Q, K, V (2 T (h + 2 x 1,024) = 150,994,944, the
 * attention core runs bf16) unchanged, but the core's output, which its flash backward
 * reads (TE's FusedAttnFunc saves out_save with q, k, v), is no longer the tensor the
 * out-projection keeps: its bf16 copy 2 T hq = 134,217,728 comes on top, Q K V and O
 * 285,212,672 (in bf16 one tensor, counted once with the GEMM inputs). So FP8 saves
 * 406,323,200 - 134,217,728 = 272,105,472 a layer. With TE's fp8 DPA (fp8_attention 1)
 * the core's FP8 output is the out-projection's copy: 150,994,944 again. torchao's
 * rowwise recipe keeps each GEMM's bf16 input (manual_float8_matmul_with_args_in_hp
 * saves input_hp): the GEMM inputs as bf16, 402,653,184, the fc2 input bf16 (MLP as
 * bf16, 1,308,622,848) and O shared with the out-projection: the bf16 layer.
 * TP 8 with SP: the GEMM inputs / 8: 8,388,608 + 262,144 = 8,650,752 each, 25,952,256 for
 * the three. */
static void
test_fp8_saved_inputs (void)
{
  ModelSpec m;
  Plan p;
  PlanMemLayerActs bf, f8;

  llama3_405b (&m);
  one_gpu_plan (&p, 4096, 1);
  plan_memory_layer_activations (&m, &p, NULL, &bf);
  g_assert_cmpuint (bf.linear_inputs, ==, G_GUINT64_CONSTANT (402653184));
  p.compute_dtype = PLAN_PREC_FP8;
  plan_memory_layer_activations (&m, &p, NULL, &f8);
  g_assert_cmpuint (f8.linear_inputs, ==, G_GUINT64_CONSTANT (207618048));
  g_assert_cmpuint (f8.mlp_hidden, ==, G_GUINT64_CONSTANT (1097334784));
  g_assert_cmpuint (f8.norm_inputs, ==, G_GUINT64_CONSTANT (268435456));
  g_assert_cmpuint (f8.norm_inputs, ==, bf.norm_inputs);
  g_assert_cmpuint (f8.attn_qkv, ==, G_GUINT64_CONSTANT (285212672));
  g_assert_cmpuint (f8.attn_qkv - bf.attn_qkv, ==, G_GUINT64_CONSTANT (134217728));
  g_assert_cmpuint (bf.total - f8.total, ==, G_GUINT64_CONSTANT (272105472));
  p.fp8_attention = 1;
  plan_memory_layer_activations (&m, &p, NULL, &f8);
  g_assert_cmpuint (f8.attn_qkv, ==, G_GUINT64_CONSTANT (150994944));
  p.fp8_attention = 0;
  p.fp8_recipe = FW_SCALING_ROWWISE;
  plan_memory_layer_activations (&m, &p, NULL, &f8);
  g_assert_cmpuint (f8.linear_inputs, ==, G_GUINT64_CONSTANT (402653184));
  g_assert_cmpuint (f8.mlp_hidden, ==, G_GUINT64_CONSTANT (1308622848));
  g_assert_cmpuint (f8.attn_qkv, ==, G_GUINT64_CONSTANT (150994944));
  g_assert_cmpuint (f8.total, ==, bf.total);
  p.fp8_recipe = -1;
  p.tp = 8;
  p.sequence_parallel = TRUE;
  plan_memory_layer_activations (&m, &p, NULL, &f8);
  g_assert_cmpuint (f8.linear_inputs, ==, G_GUINT64_CONSTANT (25952256));
  plan_clear (&p);
}

/* Korthikanti et al. 2022, eq. (1): a GeLU model with dropout, no parallelism, scores
 * stored (no FlashAttention): s b h (34 + 5 a s / h) bytes per layer. s 2048, b 2,
 * h 1024, a 16: s b h = 4,194,304; 34 s b h = 142,606,336; 5 a s^2 b = 5 x 16 x 2048^2
 * x 2 = 671,088,640; total 813,694,976.
 * eq. (3), TP 8 with SP: every term / 8 = 101,711,872.
 * eq. (2), TP 8 without SP: s b h (10 + 24/8) + 5 a s^2 b / 8 = 13 x 4,194,304
 * + 83,886,080 = 54,525,952 + 83,886,080 = 138,412,032.
 * With FlashAttention (the default) no scores: 34 s b h + the fp32 log-sum-exp
 * 4 b a s = 4 x 2 x 16 x 2048 = 262,144: 142,868,480; with TP 8 + SP: / 8 = 17,858,560. */
static void
test_korthikanti (void)
{
  ModelSpec m;
  Plan p;
  PlanMemOptions opts;
  PlanMemLayerActs acts;
  const guint64 sbh = 2048 * 2 * 1024;

  small_gpt (&m);
  one_gpu_plan (&p, 2048, 2);
  plan_mem_options_init (&opts);
  opts.flash_attention = FALSE;

  plan_memory_layer_activations (&m, &p, &opts, &acts);
  /* the coefficient: everything but the scores is 34 s b h; the scores 5 a s^2 b */
  g_assert_cmpuint (acts.total - acts.attn_scores, ==, 34 * sbh);
  g_assert_cmpuint (acts.attn_scores, ==, G_GUINT64_CONSTANT (671088640));
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (813694976));

  p.tp = 8;
  p.sequence_parallel = TRUE;
  plan_memory_layer_activations (&m, &p, &opts, &acts);
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (813694976) / 8);

  p.sequence_parallel = FALSE;
  plan_memory_layer_activations (&m, &p, &opts, &acts);
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (138412032));

  p.tp = 1;
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.attn_scores, ==, 0);
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (142868480));
  /* a stack whose model code sets every dropout probability to 0 (plan.h dropout 0,
   * llm-foundry's MPT): no masks after the out-projection and the MLP, 2 s b h of the 34:
   * 32 x 4,194,304 + 262,144 = 134,479,872 */
  p.dropout = 0;
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.dropout_masks, ==, 0);
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (134479872));
  p.dropout = -1;
  /* the same where the model's training config sets its dropout to 0 (ModelSpec
   * no_dropout: Nemotron-4, a GeLU-class MLP without dropout), the plan leaving it to
   * the model: 134,479,872 again; a plan that asks for dropout still gets the masks */
  m.no_dropout = TRUE;
  g_assert_false (plan_dropout (&m, &p));
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.dropout_masks, ==, 0);
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (134479872));
  p.dropout = 1;
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (142868480));
  p.dropout = -1;
  m.no_dropout = FALSE;
  /* --attention-backend unfused stores the scores whatever the options say: the
   * paper's 34 s b h + 5 a s^2 b again */
  p.attention_backend = PLAN_ATTN_UNFUSED;
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.attn_scores, ==, G_GUINT64_CONSTANT (671088640));
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (813694976));
  p.attention_backend = PLAN_ATTN_FLASH;

  p.tp = 8;
  p.sequence_parallel = TRUE;
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (17858560));

  /* CP 2 halves the tokens: no-parallel flash total / 2 = 71,434,240 */
  p.tp = 1;
  p.sequence_parallel = FALSE;
  p.cp = 2;
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.total, ==, G_GUINT64_CONSTANT (142868480) / 2);
  plan_clear (&p);
}

/* In-flight micro-batches, p 4, m 8:
 *   1F1B: stage i holds min(p - i, m): stage 0 -> 4, stage 3 -> 1;  GPipe: all 8.
 *   Interleaved1F1B, v 2: (p - i - 1) x 2 + (v - 1) x p + 1 chunk-micro-batches:
 *     stage 0 -> 6 + 4 + 1 = 11, stage 3 -> 0 + 4 + 1 = 5; with m 2 capped at m v = 4. */
static void
test_inflight (void)
{
  Plan p;

  plan_init_defaults (&p);
  p.pp = 4;
  p.dp = 1;
  p.grad_accum = 8;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 4);
  g_assert_cmpint (plan_memory_inflight (&p, 1), ==, 3);
  g_assert_cmpint (plan_memory_inflight (&p, 3), ==, 1);
  p.schedule = PLAN_SCHED_GPIPE;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 8);
  g_assert_cmpint (plan_memory_inflight (&p, 3), ==, 8);
  p.schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  p.vpp = 2;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 11);
  g_assert_cmpint (plan_memory_inflight (&p, 3), ==, 5);
  p.grad_accum = 2;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 4);
  /* m smaller than p in 1F1B: stage 0 holds only the 2 there are */
  p.schedule = PLAN_SCHED_1F1B;
  p.vpp = 1;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 2);
  /* several pipeline schedules a step (plan.h pp_schedules): each schedule drains before
   * the next fills, so a stage holds what one schedule of m / k micro-batches does. GPipe,
   * m 8 in 4 schedules: 2 (not 8); interleaved v 2, m 16 in 8 schedules of 2: capped at
   * 2 x 2 = 4 as above (one schedule of 16: 11); 1F1B m 8 in 2 schedules of 4: stage 0
   * still min(p, 4) = 4 */
  p.grad_accum = 8;
  p.schedule = PLAN_SCHED_GPIPE;
  p.pp_schedules = 4;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 2);
  p.schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  p.vpp = 2;
  p.grad_accum = 16;
  p.pp_schedules = 8;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 4);
  p.pp_schedules = 1;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 11);
  p.schedule = PLAN_SCHED_1F1B;
  p.vpp = 1;
  p.grad_accum = 8;
  p.pp_schedules = 2;
  g_assert_cmpint (plan_memory_inflight (&p, 0), ==, 4);
  plan_clear (&p);
}

/* FP8 weights (plan.h fp8_param_gather, Megatron --fp8-param-gather): the small Llama as
 * in test_first_last_differ (pp 4, 2 layers a stage), FP8 GEMMs. A layer's linear weights
 * are 3,408,896 - 1,024 norm elements = 3,407,872; on a device whose FP8 GEMMs take every
 * layout (Blackwell) each is 1 B instead of bf16's 2: a middle stage holds 13,635,584 -
 * 2 x 3,407,872 = 6,819,840 B of params, stage 0 14,659,584 - 6,815,744 = 7,843,840 (the
 * embedding stays bf16). On Hopper the fp8 weight keeps its transposed copy (TE's
 * transpose cache), 2 B as bf16: unchanged; so too with the flag off, with bf16 GEMMs,
 * with an MXFP8 recipe and under ZeRO-3. Grads and optimizer do not move. */
static void
test_fp8_param_gather (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;

  small_llama (&m);
  small_plan (&p);
  cluster_with_hbm (&c, 80 * GiB);
  p.compute_dtype = PLAN_PREC_FP8;
  p.fp8_param_gather = 1;
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_PARAMS], ==, 13635584);
  plan_memory_clear (&mem);

  c.device.fp8_any_layout = TRUE;
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_PARAMS], ==, 6819840);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_PARAMS], ==, 7843840);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_GRADS], ==, 29319168);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_OPTIMIZER], ==, 87957504);
  plan_memory_clear (&mem);

  const struct { int flag; PlanPrecision dtype; int recipe; PlanSharding sh; } same[] = {
    { 0, PLAN_PREC_FP8, -1, PLAN_SHARD_NONE },
    { 1, PLAN_PREC_BF16, -1, PLAN_SHARD_NONE },
    { 1, PLAN_PREC_FP8, FW_SCALING_BLOCK, PLAN_SHARD_NONE },
    { 1, PLAN_PREC_FP8, FW_SCALING_CURRENT, PLAN_SHARD_ZERO1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    {
      p.fp8_param_gather = same[i].flag;
      p.compute_dtype = same[i].dtype;
      p.fp8_recipe = same[i].recipe;
      p.sharding = same[i].sh;
      plan_memory_compute (&m, &p, &c, &mem);
      g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_PARAMS], ==,
                        i == 3 ? 6819840 : 13635584);
      plan_memory_clear (&mem);
    }
  plan_clear (&p);
}

/* The small Llama, pp 4, 2 layers a stage, default precision (bf16 params, fp32 grads,
 * fp32 Adam + master: 2 + 4 + 12 bytes per element), tp 1, no sharding.
 * params: middle stages 2 x 3,408,896 = 6,817,792 elements; stage 0 adds the embedding
 *   V h = 512,000 (7,329,792); the last stage the final norm 512 and the untied head
 *   512,000 (7,330,304). Bytes: x 2 = 13,635,584 / 14,659,584 / 14,660,608.
 * activations per layer and micro-batch (T = 256 tokens, sbh = 131,072): norms 4 + GEMM
 *   inputs 6 + Q K V 6 + SwiGLU 3 x 2 x 1536/512 = 18 -> 34 sbh = 4,456,448, + the flash
 *   log-sum-exp 4 x 8 heads x 256 = 8,192: F = 4,464,640.
 *   stage 0: 4 in flight x (2 F + 8 x 256 token ids) = 4 x 8,931,328 = 35,725,312;
 *   stage 1: 3 x 2 F = 26,787,840;
 *   stage 3: 1 x (2 F + final-norm and head inputs 2 x 2 x 256 x 512 = 524,288 + fp32
 *   logits 4 x 256 x 1000 = 1,024,000) = 8,929,280 + 1,548,288 = 10,477,568. */
static void
test_first_last_differ (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;

  small_llama (&m);
  small_plan (&p);
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);

  g_assert_cmpint (mem.n_stages, ==, 4);
  g_assert_cmpint (mem.stages[0].layers, ==, 2);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_PARAMS], ==, 13635584);
  g_assert_cmpuint (mem.stages[2].bytes[PLAN_MEM_PARAMS], ==, 13635584);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_PARAMS], ==, 14659584);
  g_assert_cmpuint (mem.stages[3].bytes[PLAN_MEM_PARAMS], ==, 14660608);
  /* grads fp32: 7,329,792 x 4 = 29,319,168; optimizer x 12 = 87,957,504 */
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_GRADS], ==, 29319168);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_OPTIMIZER], ==, 87957504);
  g_assert_cmpuint (mem.act_bytes_per_layer, ==, 4464640);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==, 35725312);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==, 26787840);
  g_assert_cmpuint (mem.stages[3].bytes[PLAN_MEM_ACTIVATIONS], ==, 10477568);
  /* comm: pp send + recv 2 x 2 x 256 x 512 = 524,288; no sharding, no overlap: no bucket */
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_COMM_BUFFERS], ==, 524288);
  /* every stage carries the fixed 1.5 GiB reserve plus 5 % of its counted bytes */
  for (int i = 0; i < 4; i++)
    {
      guint64 counted = mem.stages[i].total - mem.stages[i].bytes[PLAN_MEM_RESERVE];
      g_assert_cmpuint (mem.stages[i].bytes[PLAN_MEM_RESERVE], ==,
                        (guint64) (0.05 * (double) counted + 0.5) + 3 * (GiB / 2));
    }
  /* stage 0 holds the embedding and the most micro-batches: the peak */
  g_assert_cmpint (mem.peak_stage, ==, 0);
  g_assert_cmpuint (mem.peak_bytes, ==, mem.stages[0].total);
  g_assert_true (mem.fits);
  plan_memory_clear (&mem);
  plan_clear (&p);
}

/* DualPipe (sched-dualpipe.c) on the small Llama and plan above (pp 4, 2 layers a stage,
 * m 8): rank r holds stages r and 3 - r.
 * params: rank 0 = stage 0 + stage 3 of 1F1B = 14,659,584 + 14,660,608 = 29,320,192 B
 *   (the embedding and the head both there); rank 1 = stages 1 + 2 = 2 x 13,635,584 =
 *   27,271,168 B: each stage's weights twice over the pipeline.
 * activations per micro-batch: stage 0's 2 F + token ids = 8,931,328 (A0), stage 3's
 *   10,477,568 (A3), stages 1 and 2 2 F = 8,929,280.
 *   rank 0's order F0 F0 F0 F1 B1 F1 F0 B1 ...: after the fourth forward of chunk 0 it
 *   holds 4 A0 + 1 A3 = 35,725,312 + 10,477,568 = 46,202,880 (pp + 1 = 5 units, Table 2);
 *   rank 1's F0 F1 F0 F1 F0 then B1: 5 x 8,929,280 = 44,646,400. */
static void
test_dualpipe (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;

  small_llama (&m);
  small_plan (&p);
  p.schedule = PLAN_SCHED_DUALPIPE;
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpint (mem.stages[0].layers, ==, 4);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_PARAMS], ==, 29320192);
  g_assert_cmpuint (mem.stages[3].bytes[PLAN_MEM_PARAMS], ==, 29320192);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_PARAMS], ==, 27271168);
  /* grads fp32: rank 0's 14,660,096 elements x 4 */
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_GRADS], ==, 58640384);
  g_assert_cmpint (mem.stages[0].inflight_microbatches, ==, 5);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==, 46202880);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==, 44646400);
  plan_memory_clear (&mem);
  plan_clear (&p);
}

/* Unfused attention stores the scores as the options' flash_attention = FALSE does, and
 * its backward also holds the scores' gradient while the attention core's backward runs,
 * when the layer's backward has freed what it stored after the core (acts.after_core).
 *  - The small plan (T = 256, h 512, SwiGLU 1536, no dropout): the gradient is
 *    1 x 8 x 256 x 256 x 2 B = 1,048,576; freed before it: the norm-2 input, the fc1
 *    input and the out-projection input, a T h = 262,144 each, and the SwiGLU's
 *    3 a T f = 2,359,296: 3,145,728, more than the gradient: nothing added on any stage.
 *  - The small GPT on stage 0 of pp 2, 2 x 2048 (T = 4096, s b h = 4,194,304): the
 *    gradient is 2 x 16 x 2048 x 2048 x 2 B = 268,435,456; freed before it, in s b h
 *    bytes: norm-2 input 2 + fc1 input 2 + GeLU input and output 16 + the two dropout
 *    masks 2 + out-projection input 2 = 24, 100,663,296: 167,772,160 added, without
 *    recompute and with full recompute alike (the re-run layer frees the same). */
static void
test_unfused_transient (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemOptions no_flash;
  PlanMemory stored, unfused;
  PlanMemLayerActs acts;

  small_llama (&m);
  small_plan (&p);
  cluster_with_hbm (&c, 80 * GiB);
  plan_mem_options_init (&no_flash);
  no_flash.flash_attention = FALSE;
  plan_memory_compute_full (&m, &p, &c, &no_flash, &stored);
  p.attention_backend = PLAN_ATTN_UNFUSED;
  plan_memory_compute_full (&m, &p, &c, NULL, &unfused);
  plan_memory_layer_activations (&m, &p, NULL, &acts);
  g_assert_cmpuint (acts.after_core, ==, 3145728);
  g_assert_cmpint (stored.n_stages, ==, 4);
  for (int s = 0; s < 4; s++)
    g_assert_cmpuint (unfused.stages[s].bytes[PLAN_MEM_ACTIVATIONS], ==,
                      stored.stages[s].bytes[PLAN_MEM_ACTIVATIONS]);
  plan_memory_clear (&stored);
  plan_memory_clear (&unfused);
  plan_clear (&p);

  small_gpt (&m);
  for (int r = 0; r < 2; r++)
    {
      one_gpu_plan (&p, 2048, 2);
      p.pp = 2;   /* stage 0: no head (the last stage's head frees before it: below) */
      p.recompute = r == 0 ? PLAN_RECOMPUTE_NONE : PLAN_RECOMPUTE_FULL;
      plan_memory_compute_full (&m, &p, &c, &no_flash, &stored);
      p.attention_backend = PLAN_ATTN_UNFUSED;
      plan_memory_compute_full (&m, &p, &c, NULL, &unfused);
      plan_memory_layer_activations (&m, &p, NULL, &acts);
      g_assert_cmpuint (acts.after_core, ==, 24 * G_GUINT64_CONSTANT (4194304));
      g_assert_cmpuint (unfused.stages[0].bytes[PLAN_MEM_ACTIVATIONS]
                        - stored.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==, 167772160);
      plan_memory_clear (&stored);
      plan_memory_clear (&unfused);
      plan_clear (&p);
    }
}

/* The OOM verdict flips when HBM shrinks below the peak (stage 0's total). */
static void
test_oom_flip (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;
  guint64 peak;

  small_llama (&m);
  small_plan (&p);
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);
  peak = mem.peak_bytes;
  g_assert_true (mem.fits);
  g_assert_cmpuint (mem.capacity_bytes, ==, 80 * GiB);
  plan_memory_clear (&mem);

  cluster_with_hbm (&c, peak);      /* exactly the peak: fits (total <= HBM) */
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_true (mem.fits);
  plan_memory_clear (&mem);

  cluster_with_hbm (&c, peak - 1);  /* one byte less: stage 0 no longer fits */
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_false (mem.fits);
  g_assert_false (mem.stages[0].fits);
  g_assert_true (mem.stages[3].fits);
  plan_memory_clear (&mem);
  plan_clear (&p);
}

/* Recompute on stage 1 of the small plan (2 layers, 3 in flight, F = 4,464,640, layer
 * input I = 2 x 256 x 512 = 262,144). A re-run starts from the stored input itself
 * (CheckpointFunction.backward: detach_variable, the same storage), so the re-run
 * layers' transient is their F each less the one I already stored:
 *   selective: the log-sum-exp goes: 3 x 2 x (F - 8,192) = 26,738,688;
 *   full uniform n 1: 3 x 2 inputs + one layer re-run: 1,572,864 + F - I = 5,775,360;
 *   full uniform n 2: one input per group of 2: 3 x 262,144 + 2 F - I = 9,453,568;
 *   full block n 1: (input + F) x 3 + F - I = 14,180,352 + 4,202,496 = 18,382,848. */
static void
test_recompute (void)
{
  static const struct {
    PlanRecompute r; PlanRecomputeMethod method; int n; guint64 bytes;
  } rows[] = {
    { PLAN_RECOMPUTE_SELECTIVE, PLAN_RECOMPUTE_UNIFORM, 0, 26738688 },
    { PLAN_RECOMPUTE_FULL, PLAN_RECOMPUTE_UNIFORM, 1, 5775360 },
    { PLAN_RECOMPUTE_FULL, PLAN_RECOMPUTE_UNIFORM, 0, 5775360 },
    { PLAN_RECOMPUTE_FULL, PLAN_RECOMPUTE_UNIFORM, 2, 9453568 },
    { PLAN_RECOMPUTE_FULL, PLAN_RECOMPUTE_BLOCK, 1, 18382848 },
  };
  ModelSpec m;
  TopoCluster c;

  small_llama (&m);
  cluster_with_hbm (&c, 80 * GiB);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      Plan p;
      PlanMemory mem;

      small_plan (&p);
      p.recompute = rows[i].r;
      p.recompute_method = rows[i].method;
      p.recompute_num_layers = rows[i].n;
      plan_memory_compute (&m, &p, &c, &mem);
      g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==, rows[i].bytes);
      plan_memory_clear (&mem);
      plan_clear (&p);
    }
}

/* The full-recompute re-run shares the stored layer input: Megatron-Core's
 * CheckpointFunction.backward re-runs the group from detach_variable (ctx.saved_tensors),
 * a view of the stored tensor, so the first re-run layer's norm-1 input is not a second
 * copy. Stage 1 of the small plan at tp 2 with SP (2 layers, 3 in flight): the layer
 * input is I = 2 x 256 x 512 / 2 = 131,072; a full layer keeps F = (4,464,640 - 8,192) / 2
 * (every tensor split by SP or TP) + the log-sum-exp 4 x 4 heads x 256 = 4,096:
 * 2,232,320.
 *   uniform n 1: 3 x 2 x I + F - I = 786,432 + 2,101,248 = 2,887,680 (not + F: 3,018,752);
 *   uniform n 2: 3 x I + 2 F - I = 393,216 + 4,333,568 = 4,726,784;
 *   block n 2 (both layers input-only, one re-run at a time): the same as uniform n 1. */
static void
test_recompute_shares_input (void)
{
  static const struct { PlanRecomputeMethod method; int n; guint64 bytes; } rows[] = {
    { PLAN_RECOMPUTE_UNIFORM, 1, 2887680 },
    { PLAN_RECOMPUTE_UNIFORM, 2, 4726784 },
    { PLAN_RECOMPUTE_BLOCK, 2, 2887680 },
  };
  ModelSpec m;
  TopoCluster c;

  small_llama (&m);
  cluster_with_hbm (&c, 80 * GiB);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      Plan p;
      PlanMemory mem;

      small_plan (&p);
      p.tp = 2;
      p.sequence_parallel = TRUE;
      p.recompute = PLAN_RECOMPUTE_FULL;
      p.recompute_method = rows[i].method;
      p.recompute_num_layers = rows[i].n;
      plan_memory_compute (&m, &p, &c, &mem);
      g_assert_cmpuint (mem.act_bytes_per_layer, ==, 2232320);
      g_assert_cmpint (mem.stages[1].inflight_microbatches, ==, 3);
      g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==, rows[i].bytes);
      plan_memory_clear (&mem);
      plan_clear (&p);
    }
}

/* Llama 3 8B (meta-llama/Meta-Llama-3-8B config.json: h 4096, 32 layers, 32 query heads
 * of 128, 8 KV heads, SwiGLU 14336), pp 1, one micro-batch of 1 x 8192 (T = 8192), bf16
 * (a = 2), FlashAttention. A full layer keeps (Korthikanti's terms above):
 *   norm inputs 2 a T h 134,217,728 + GEMM inputs (qkv, out-proj, fc1) 3 a T h
 *   201,326,592 + Q, K, V a T (4096 + 2 x 1024) 100,663,296 + log-sum-exp 4 x 32 x 8192
 *   1,048,576 + SwiGLU gate, up, product 3 a T f 704,643,072 = F = 1,141,899,264.
 * torchtitan's op-level AC (selective-op) keeps the layer input, q's, v's, the SDPA's and
 * w1's and w2's outputs: a T (4096 + 4096 + 1024 + 4096 + 14336 + 4096) = 520,093,696 +
 * the log-sum-exp 1,048,576 = O = 521,142,272 bytes (45.6% of F); its backward rebuilds
 * F - O of one layer at a time. Activations, the same embedding and head extras in both:
 *   none - selective-op = 32 F - (32 O + F - O) = 31 (F - O) = 19,243,466,752 where the
 *   rebuild adds to everything stored; but on this one stage, which holds the head, the
 *   head's saved tensors (2 a T h + 4 T V = 134,217,728 + 4,202,692,608) are freed by
 *   its backward before any layer's, and they exceed F - O: 32 (F - O) = 19,864,223,744. */
static void
test_selective_op_llama3_8b (void)
{
  ModelSpec m;
  TopoCluster c;
  PlanMemory none, op;
  Plan p;

  llama3_8b (&m);
  cluster_with_hbm (&c, 80 * GiB);
  one_gpu_plan (&p, 8192, 1);
  p.global_batch = 1;
  p.grad_accum = 1;
  plan_memory_compute (&m, &p, &c, &none);
  p.recompute = PLAN_RECOMPUTE_SELECTIVE_OP;
  plan_memory_compute (&m, &p, &c, &op);
  g_assert_cmpuint (none.act_bytes_per_layer, ==, 1141899264);
  g_assert_cmpuint (none.stages[0].bytes[PLAN_MEM_ACTIVATIONS]
                    - op.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    G_GUINT64_CONSTANT (19864223744));
  plan_memory_clear (&none);
  plan_memory_clear (&op);
  plan_clear (&p);
}

/* CPU offloading (Megatron-Core --cpu-offloading-num-layers N, plan/memory.c) on the
 * Llama 3 8B plan above (F = 1,141,899,264 bytes per layer, 32 layers, one micro-batch):
 * the other 32 - N layers keep theirs and one offloaded layer is on the device at a time,
 * so the activations drop by N F - F = (N - 1) F where that reloaded layer adds to
 * everything stored. Here the one stage holds the head, whose saved tensors (2 a T h +
 * 4 T V = 4,336,910,336 B) its backward frees before any layer's backward, and they
 * exceed F: the reload adds nothing and the drop is N F:
 *   N 20: 20 F = 22,837,985,280;  N 31: 31 F = 35,398,877,184;  N 1: F = 1,141,899,264;
 *   N 0: off, unchanged.
 * Nothing else moves (params, grads, optimizer, buffers), and the reserve follows its
 * fraction of the rest. */
static void
test_cpu_offload (void)
{
  static const struct { int n; guint64 saved; } rows[] = {
    { 20, G_GUINT64_CONSTANT (22837985280) },
    { 31, G_GUINT64_CONSTANT (35398877184) },
    { 1, G_GUINT64_CONSTANT (1141899264) },
    { 0, 0 },
  };
  ModelSpec m;
  TopoCluster c;
  PlanMemory none;
  Plan p;

  llama3_8b (&m);
  cluster_with_hbm (&c, 80 * GiB);
  one_gpu_plan (&p, 8192, 1);
  p.global_batch = 1;
  p.grad_accum = 1;
  plan_memory_compute (&m, &p, &c, &none);
  g_assert_cmpuint (none.act_bytes_per_layer, ==, 1141899264);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      PlanMemory off;
      p.cpu_offload_layers = rows[i].n;
      plan_memory_compute (&m, &p, &c, &off);
      g_assert_cmpuint (none.stages[0].bytes[PLAN_MEM_ACTIVATIONS]
                        - off.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==, rows[i].saved);
      for (int k = 0; k < PLAN_MEM_RESERVE; k++)
        if (k != PLAN_MEM_ACTIVATIONS)
          g_assert_cmpuint (off.stages[0].bytes[k], ==, none.stages[0].bytes[k]);
      plan_memory_clear (&off);
    }
  plan_memory_clear (&none);
  plan_clear (&p);
}

/* ZeRO-3 gathered units (comm buffers): FSDP holds the unit computing and the prefetched
 * next one; where the stack prefetches at most zero3_prefetch_params parameters
 * (DeepSpeed's stage3_prefetch_bucket_size, 5e7) a larger unit is gathered only after
 * the compute before it (program.c gather_prefetched), so one unit is held. Llama 3 8B,
 * dp 8, ZeRO-3, pp 1: the largest unit is the word embedding, 128,256 x 4,096 =
 * 525,336,576 elements (a layer: 218,112,000), bf16: one unit less is 1,050,673,152 B.
 * A prefetch larger than the unit changes nothing. */
static void
test_zero3_prefetch_bucket (void)
{
  ModelSpec m;
  TopoCluster c;
  Plan p;
  PlanMemory fsdp, ds;

  llama3_8b (&m);
  cluster_with_hbm (&c, 80 * GiB);
  one_gpu_plan (&p, 8192, 1);
  p.dp = 8;
  p.sharding = PLAN_SHARD_ZERO3;
  p.global_batch = 8;
  p.grad_accum = 1;
  p.zero3_prefetch_params = 0;
  plan_memory_compute (&m, &p, &c, &fsdp);
  p.zero3_prefetch_params = 5e7;
  plan_memory_compute (&m, &p, &c, &ds);
  g_assert_cmpuint (fsdp.stages[0].bytes[PLAN_MEM_COMM_BUFFERS]
                    - ds.stages[0].bytes[PLAN_MEM_COMM_BUFFERS], ==, 1050673152);
  plan_memory_clear (&ds);
  p.zero3_prefetch_params = 6e8;
  plan_memory_compute (&m, &p, &c, &ds);
  g_assert_cmpuint (ds.stages[0].bytes[PLAN_MEM_COMM_BUFFERS], ==,
                    fsdp.stages[0].bytes[PLAN_MEM_COMM_BUFFERS]);
  plan_memory_clear (&ds);
  plan_memory_clear (&fsdp);
  plan_clear (&p);
}

/* Interleaved1F1B, small Llama, pp 2, vpp 2 (4 chunks of 2 layers), m 4 (groups of
 * N = 2): the forward units of a rank are (chunk, mb) c0 m0, c0 m1, c1 m0, c1 m1, c0 m2,
 * c0 m3, c1 m2, c1 m3; the backward units c1 m0, c1 m1, c0 m0, c0 m1, c1 m2, ...
 *   stage 0: warm-up 1 x 2 + 1 x 2 = 4, in flight 5 chunk-micro-batches of 2 layers =
 *   2.5 x 4 F = 44,646,400. The token ids (2,048 bytes) are chunk 0's: after the steady
 *   state's second forward (F5 = c0 m3, after B0 = c1 m0) chunk 0 holds m0..m3 and chunk 1
 *   m1: 4 x 2,048 = 8,192 -> 44,654,592 (was 3 x 2,048 with ceil(5 / 2) units each).
 *   stage 1: warm-up 2, in flight 3 -> 1.5 x 4 F = 26,787,840. The head and loss tensors
 *   (1,548,288 bytes) are chunk 1's: F2 = c1 m0 is followed by its backward B0, and so is
 *   every chunk-1 forward, so one is held at a time: 26,787,840 + 1,548,288 = 28,336,128
 *   (was ceil(3 / 2) = 2 of them: 29,884,416). */
static void
test_interleaved (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;

  small_llama (&m);
  small_plan (&p);
  p.pp = 2;
  p.vpp = 2;
  p.grad_accum = 4;
  p.schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpint (mem.stages[0].layers, ==, 4);
  g_assert_cmpint (mem.stages[0].inflight_microbatches, ==, 5);
  g_assert_cmpint (mem.stages[1].inflight_microbatches, ==, 3);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==, 44654592);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==, 28336128);
  plan_memory_clear (&mem);
  plan_clear (&p);
}

/* ZeRO-3 comm buffers: the small Llama on pp 1, dp 4, ZeRO-3, bf16 params: two gathered
 * units (current + prefetched); the largest unit is a layer, 3,408,896 elements x 2 bytes
 * = 6,817,792 each -> 13,635,584; plus one unsharded gradient bucket before the
 * reduce-scatter: min(160e6, all 8 layers + embedding + norm + head = 28,295,680 x 4
 * bytes = 113,182,720) = 113,182,720. Total 126,818,304 (no PP, no SP buffers). */
static void
test_zero3_buffers (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;

  small_llama (&m);
  small_plan (&p);
  p.pp = 1;
  p.dp = 4;
  p.global_batch = 32;
  p.sharding = PLAN_SHARD_ZERO3;
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_COMM_BUFFERS], ==, 126818304);
  /* params sharded 4 ways: 28,295,680 x 2 / 4 = 14,147,840 */
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_PARAMS], ==, 14147840);
  plan_memory_clear (&mem);
  plan_clear (&p);
}

/* Tied embeddings (the small GPT, 24 layers, pp 2, tp 1): stage 0 holds the word
 * embedding V h = 50257 x 1024 = 51,463,168 and the learned positions 2048 x 1024 =
 * 2,097,152; the last stage holds Megatron's copy of the word embedding for the logits
 * (51,463,168) and the final LayerNorm (weight + bias, 2h = 2,048). Both hold 12 layers,
 * so stage 0 - stage 1 = 2,097,152 - 2,048 = 2,095,104 elements x 2 bytes = 4,190,208.
 * With pp 1 there is no copy: stage 0 - (24 layers + final norm) = V h + positions. */
static void
test_tied_embeddings (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;
  ModelParams mp;

  small_gpt (&m);
  plan_init_defaults (&p);
  p.pp = 2;
  p.dp = 1;
  p.seq_length = 2048;
  p.grad_accum = 4;
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_PARAMS] - mem.stages[1].bytes[PLAN_MEM_PARAMS],
                    ==, 4190208);
  plan_memory_clear (&mem);

  p.pp = 1;
  model_spec_params (&m, &mp);
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_PARAMS] / 2 - 24 * mp.per_layer - mp.final_norm,
                    ==, 51463168 + 2097152);
  plan_memory_clear (&mem);
  plan_clear (&p);
}

/* Llama 3 Table 4's plan as Meta ran it (TP 8, PP 16, SP, ZeRO-2-like sharding, 8192
 * tokens, batch 2048 of micro-batch 1) at data-parallel size `dp`: 2048 / dp micro-batches */
static void
table4_plan (Plan *p, int dp)
{
  plan_init_defaults (p);
  p->tp = 8;
  p->pp = 16;
  p->dp = dp;
  p->seq_length = 8192;
  p->global_batch = 2048;
  p->micro_batch = 1;
  p->grad_accum = 2048 / dp;
  p->sharding = PLAN_SHARD_ZERO2;
  p->sequence_parallel = TRUE;
}

/* Llama 3 405B as the Llama 3 paper trained it at 8K (Table 4: 16,384 GPUs, TP 8,
 * PP 16, DP 128, seq 8192, global batch 2048, micro-batch 1 -> m = 2048 / 128 = 16;
 * FSDP sharding optimizer + grads (ZeRO-2-like), no activation checkpointing; first and
 * last stage 7 layers, 126 = 7 + 14 x 8 + 7) with sequence parallelism (Megatron-style
 * TP; without it the plan does not fit, checked below), 1F1B, default precision.
 * Stage 0 (7 layers, embedding, 16 micro-batches in flight), per GPU:
 *   params: layer = attention (2 x 16384^2 + 2 x 16384 x 1024 = 570,425,344) / 8 +
 *     MLP (3 x 16384 x 53248 = 2,617,245,696) / 8 + norms 32,768 = 398,491,648;
 *     x 7 = 2,789,441,536 + embedding 128256 x 16384 / 8 = 262,668,288:
 *     3,052,109,824 elements x 2 bytes = 6,104,219,648 (6.10 GB);
 *   grads: x 4 / 128 = 95,378,432; optimizer: x 12 / 128 = 286,135,296;
 *   activations: per layer s b h (31.75 / 8) = 134,217,728 x 31.75 / 8 = 532,676,608
 *     (norms 4 + GEMM inputs 6 + Q K V 2.25 + SwiGLU 19.5 = 31.75) + log-sum-exp
 *     4 x 16 heads x 8192 = 524,288: 533,200,896; x 7 layers x 16 = 59,718,500,352,
 *     + 16 x 8 x 8192 token ids = 59,719,548,928 (59.7 GB);
 *   comm: one gradient bucket 160,000,000 + PP 2 x 2 x 8192 x 16384 / 8 = 67,108,864 +
 *     SP gathers (the block input in use and the next, re-gathered ahead in the backward)
 *     2 x 2 x 8192 x 16384 = 536,870,912: 763,979,776;
 *   reserve: 5 % of 66,969,262,080 = 3,348,463,104 + 1.5 GiB = 4,959,075,840;
 *   total 71,928,337,920 bytes = 67.0 GiB < 80 GiB.
 * The peak is stage 1 (8 layers x 15 in flight = 120 layer-micro-batches against 7 x 16
 * = 112): 76.7 GB = 71.4 GiB, which fits; that is why the paper lightens the first stage.
 * Without SP the norm and GEMM inputs (8 sbh) stay whole: ~10.97 sbh per layer, 1.47 GB,
 * x 120 = 177 GB: OOM. */
static void
test_llama3_405b (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;
  const PlanMemStage *s0;

  llama3_405b (&m);
  table4_plan (&p, 128);
  p.first_stage_layers = 7;
  p.last_stage_layers = 7;
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);

  s0 = &mem.stages[0];
  g_assert_cmpint (s0->layers, ==, 7);
  g_assert_cmpint (mem.stages[1].layers, ==, 8);
  g_assert_cmpint (mem.stages[15].layers, ==, 7);
  g_assert_cmpint (s0->inflight_microbatches, ==, 16);
  g_assert_cmpuint (s0->bytes[PLAN_MEM_PARAMS], ==, G_GUINT64_CONSTANT (6104219648));
  g_assert_cmpuint (s0->bytes[PLAN_MEM_GRADS], ==, 95378432);
  g_assert_cmpuint (s0->bytes[PLAN_MEM_OPTIMIZER], ==, 286135296);
  g_assert_cmpuint (mem.act_bytes_per_layer, ==, 533200896);
  g_assert_cmpuint (s0->bytes[PLAN_MEM_ACTIVATIONS], ==, G_GUINT64_CONSTANT (59719548928));
  g_assert_cmpuint (s0->bytes[PLAN_MEM_COMM_BUFFERS], ==, 763979776);
  g_assert_cmpuint (s0->bytes[PLAN_MEM_RESERVE], ==, G_GUINT64_CONSTANT (4959075840));
  g_assert_cmpuint (s0->total, ==, G_GUINT64_CONSTANT (71928337920));
  g_assert_true (s0->fits);
  g_assert_cmpint (mem.peak_stage, ==, 1);
  g_assert_cmpfloat (mem.peak_bytes / 1e9, >, 76.0);
  g_assert_cmpfloat (mem.peak_bytes / 1e9, <, 77.0);
  g_assert_true (mem.fits);
  plan_memory_clear (&mem);

  p.sequence_parallel = FALSE;
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_false (mem.fits);
  g_assert_cmpfloat (mem.peak_bytes / 1e9, >, 177.0);
  plan_memory_clear (&mem);
  plan_clear (&p);
}

/* The eager cross entropy (plan.h loss_eager; torchtitan's F.cross_entropy of fp32
 * logits): its backward allocates nll_loss_backward's gradient and log_softmax's input
 * gradient, T V fp32 each, while the saved log-probabilities live: 2 x 4 x 256 x 1000 =
 * 2,048,000 bytes on the last stage of the small plan (test_first_last_differ: stage 3
 * 10,477,568 -> 12,525,568), nothing on the others. With full recompute of every layer
 * (uniform, 1 layer a group) the last stage keeps 1 x 2 inputs 2 x 262,144 = 524,288 +
 * the head's 1,548,288 = 2,072,576. Its transient is the larger of the loss's 2,048,000
 * (beside everything stored) and one layer re-run (F = 4,464,640, less its stored input
 * I = 262,144 that the re-run starts from: 4,202,496) less the head's tensors, which the
 * head's backward freed before it (one chunk a rank): 4,202,496 - 1,548,288 =
 * 2,654,208; 2,072,576 + 2,654,208 = 4,726,784 with or without the eager loss. With 2
 * chunks a rank (vpp 2, 1 layer a chunk, interleaved, N = 4) the rank also runs the
 * backwards of chunk 0 beside chunk 1's head units in flight, so the re-run's F - I
 * stays whole: stage 3 warms up with chunk 0's micro-batches 0-3 (4 x 262,144), then
 * each forward of chunk 1 (262,144 + 1,548,288) precedes its backward: at most
 * 1,048,576 + 1,810,432 = 2,859,008 held, + F - I = 7,061,504. */
static void
test_loss_eager (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory fused, eager;

  small_llama (&m);
  small_plan (&p);
  cluster_with_hbm (&c, 80 * GiB);
  p.loss_eager = 0;
  plan_memory_compute (&m, &p, &c, &fused);
  p.loss_eager = 1;
  plan_memory_compute (&m, &p, &c, &eager);
  g_assert_cmpuint (fused.stages[3].bytes[PLAN_MEM_ACTIVATIONS], ==, 10477568);
  g_assert_cmpuint (eager.stages[3].bytes[PLAN_MEM_ACTIVATIONS], ==, 12525568);
  for (int i = 0; i < 3; i++)
    g_assert_cmpuint (eager.stages[i].bytes[PLAN_MEM_ACTIVATIONS], ==,
                      fused.stages[i].bytes[PLAN_MEM_ACTIVATIONS]);
  plan_memory_clear (&fused);
  plan_memory_clear (&eager);

  p.recompute = PLAN_RECOMPUTE_FULL;
  p.recompute_num_layers = 1;
  plan_memory_compute (&m, &p, &c, &eager);
  g_assert_cmpuint (eager.stages[3].bytes[PLAN_MEM_ACTIVATIONS], ==, 4726784);
  plan_memory_clear (&eager);
  p.loss_eager = 0;
  plan_memory_compute (&m, &p, &c, &fused);
  g_assert_cmpuint (fused.stages[3].bytes[PLAN_MEM_ACTIVATIONS], ==, 4726784);
  plan_memory_clear (&fused);
  p.vpp = 2;
  p.schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  plan_memory_compute (&m, &p, &c, &fused);
  g_assert_cmpuint (fused.stages[3].bytes[PLAN_MEM_ACTIVATIONS], ==, 7061504);
  plan_memory_clear (&fused);
  plan_clear (&p);
}

/* Transformer Engine's cross entropy (plan.h te_cross_entropy) saves the bf16 logits, not
 * Megatron's fp32 softmax: the last stage of the small plan (T V = 256 x 1000 logits)
 * keeps 2 x 256,000 = 512,000 bytes instead of 4 x 256,000 = 1,024,000: 10,477,568 ->
 * 9,965,568; the other stages are unchanged. */
static void
test_loss_te (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory native, te;

  small_llama (&m);
  small_plan (&p);
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &native);
  p.te_cross_entropy = TRUE;
  plan_memory_compute (&m, &p, &c, &te);
  g_assert_cmpuint (native.stages[3].bytes[PLAN_MEM_ACTIVATIONS], ==, 10477568);
  g_assert_cmpuint (te.stages[3].bytes[PLAN_MEM_ACTIVATIONS], ==, 9965568);
  for (int i = 0; i < 3; i++)
    g_assert_cmpuint (te.stages[i].bytes[PLAN_MEM_ACTIVATIONS], ==,
                      native.stages[i].bytes[PLAN_MEM_ACTIVATIONS]);
  plan_memory_clear (&native);
  plan_memory_clear (&te);
  plan_clear (&p);
}

/* Llama 3 405B as Meta ran it at 8,192 GPUs (Llama 3 paper, arXiv 2407.21783, Table 4:
 * TP 8, PP 16, DP 64, seq 8192, 32 micro-batches of 1; Sec. 3.3.2: one layer fewer on the
 * first and last stage, the first chunk of the first stage holding only the embedding and
 * the last chunk of the last stage only the output layer and loss), interleaved at V = 8
 * with Megatron-Core's default group N = pp = 16 and Megatron's bookkeeping
 * (--account-for-embedding/loss-in-pipeline-split: 126 + 2 = 128 slots, one per chunk).
 * F = 533,200,896 bytes per layer and micro-batch (test_llama3_405b). Chunk-forwards in
 * flight at the peak (Megatron-Core get_pp_rank_microbatches: warm-up 2 (p - i - 1) +
 * (v - 1) N, plus the first steady-state forward): stage 0 143, stage 1 141, stage 15 113.
 *  stage 1 (8 chunks of one layer): 141 F = 75,181,326,336.
 *  stage 0 (chunk 0 the embedding: 8 x 8192 = 65,536 bytes of token ids; chunks 1-7 one
 *    layer): the warm-up runs chunks 0..7 of micro-batches 0-15, then chunk 0 of 16-29;
 *    the first steady forward is chunk 0 of 30: 7 x 16 = 112 layers and 31 embeddings,
 *    112 F + 31 x 65,536 = 59,720,531,968. Then the forward of chunk 0 of 31 follows
 *    the backward of chunk 7 of 0 (111 F + 32 x 65,536, less), and each later layer
 *    forward follows a layer backward, 111 F, until the last forward (chunk 7 of 31),
 *    after the first backward of chunk 0: 112 F + 31 x 65,536 again.
 *  stage 15 (chunks 0-6 one layer, chunk 7 the loss: final-norm and output-GEMM inputs
 *    2 x 2 x 8192 x 16384 / 8 = 67,108,864 + fp32 softmax 4 x 8192 x 128256 / 8 =
 *    525,336,576 = 592,445,440 = L): warm-up 112 = chunks 0-6 of micro-batches 0-15, then
 *    the loss chunk of micro-batch 0, whose backward follows at once: 112 F + L =
 *    60,310,945,792 (later, chunk 0 of micro-batch 16 runs after 16 loss backwards:
 *    113 F = 60,251,701,248, less).
 *  The old count spread the units evenly over the chunks: stage 0 143 / 8 x 7 F + 18 x
 *  65,536, stage 15 113 / 8 x 7 F + 15 L.
 *  Stage 1 total (the peak): params 8 x 398,491,648 = 3,187,933,184 x 2 = 6,375,866,368;
 *  grads x 4 / 64 = 199,245,824; optimizer x 12 / 64 = 597,737,472; comm 763,979,776
 *  (as in test_llama3_405b); counted 83,118,155,776; reserve 5 % = 4,155,907,789 +
 *  1.5 GiB = 5,766,520,525; total 88,884,676,301 bytes = 82.78 GiB > 80 GiB: out of
 *  memory under Megatron's schedule, as tandem has said (the same run at V = 1 holds 15
 *  micro-batches of 8 layers on stage 1, 72.0 GiB in all: it fits). */
static void
test_llama3_405b_interleaved (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;

  llama3_405b (&m);
  table4_plan (&p, 64);
  p.vpp = 8;
  p.schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  p.account_embedding = TRUE;
  p.account_loss = TRUE;
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);

  g_assert_cmpint (plan_chunk_layers (&p, &m, 0, 0), ==, 0);
  g_assert_cmpint (plan_chunk_layers (&p, &m, 15, 7), ==, 0);
  g_assert_cmpint (mem.stages[0].inflight_microbatches, ==, 143);
  g_assert_cmpint (mem.stages[1].inflight_microbatches, ==, 141);
  g_assert_cmpint (mem.stages[15].inflight_microbatches, ==, 113);
  g_assert_cmpuint (mem.act_bytes_per_layer, ==, 533200896);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    G_GUINT64_CONSTANT (59720531968));
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    G_GUINT64_CONSTANT (75181326336));
  g_assert_cmpuint (mem.stages[15].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    G_GUINT64_CONSTANT (60310945792));
  g_assert_cmpuint (mem.stages[1].total, ==, G_GUINT64_CONSTANT (88884676301));
  g_assert_cmpint (mem.peak_stage, ==, 1);
  g_assert_false (mem.fits);
  plan_memory_clear (&mem);

  /* The same run with each stage's received input freed after its forward, as the
   * Llama 3 paper says Meta's stack does (Sec. 3.3.2; the meta-llama3 stack's
   * "pp_stage_input": "freed", plan.h pp_free_stage_input). Every chunk but model chunk 0
   * (the embedding's, fed by token ids) keeps per unit one boundary activation less,
   * B = 2 x 8192 x 16384 / 8 = 33,554,432 bytes (SP): a one-layer unit stores F' = F - B
   * = 499,646,464; the loss-only chunk L' = L - B = 558,891,008 (its final-norm input).
   *  stage 1: 141 F' = 70,450,151,424 (4,731,174,912 less);
   *  stage 0: chunk 0 unchanged, 112 F' + 31 x 65,536 = 55,962,435,584;
   *  stage 15: 112 F' + L' = 56,519,294,976 (113 F' = 56,460,050,432 is less).
   *  Stage 1 total: counted 6,375,866,368 + 199,245,824 + 597,737,472 + 70,450,151,424 +
   *  763,979,776 = 78,386,980,864; reserve 5 % = 3,919,349,043 + 1.5 GiB =
   *  5,529,961,779; total 83,916,942,643 bytes = 78.15 GiB: it fits in 80 GiB. */
  p.pp_free_stage_input = 1;
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpuint (mem.act_bytes_per_layer, ==, 533200896);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    G_GUINT64_CONSTANT (70450151424));
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    G_GUINT64_CONSTANT (55962435584));
  g_assert_cmpuint (mem.stages[15].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    G_GUINT64_CONSTANT (56519294976));
  g_assert_cmpuint (mem.stages[1].total, ==, G_GUINT64_CONSTANT (83916942643));
  g_assert_cmpint (mem.peak_stage, ==, 1);
  g_assert_true (mem.fits);
  plan_memory_clear (&mem);

  /* Not with full recompute: the chunk re-runs its forward from that input, which stays
   * (the stage-1 activations match the plan without the field). */
  PlanMemory kept;
  p.recompute = PLAN_RECOMPUTE_FULL;
  p.recompute_num_layers = 1;
  plan_memory_compute (&m, &p, &c, &mem);
  p.pp_free_stage_input = 0;
  plan_memory_compute (&m, &p, &c, &kept);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    kept.stages[1].bytes[PLAN_MEM_ACTIVATIONS]);
  plan_memory_clear (&kept);
  plan_memory_clear (&mem);

  /* With selective recompute it is freed as without recompute: the attention core re-runs
   * from Q, K and V, not from the layer's input. It was kept, and selective read more
   * than none (stage 1: 141 units x B = 4,731,174,912 bytes more). Each unit now stores
   * what the unit without recompute stores less the core's softmax statistics (FlashAttention:
   * no scores), so selective <= none on every stage. */
  PlanMemory none;
  p.recompute = PLAN_RECOMPUTE_NONE;
  p.recompute_num_layers = 0;
  p.pp_free_stage_input = 1;
  plan_memory_compute (&m, &p, &c, &none);
  p.recompute = PLAN_RECOMPUTE_SELECTIVE;
  plan_memory_compute (&m, &p, &c, &mem);
  for (int s = 0; s < 16; s++)
    g_assert_cmpuint (mem.stages[s].bytes[PLAN_MEM_ACTIVATIONS], <=,
                      none.stages[s].bytes[PLAN_MEM_ACTIVATIONS]);
  /* and the boundary's 141 units x B are what selective without the freeing keeps more */
  p.pp_free_stage_input = 0;
  plan_memory_compute (&m, &p, &c, &kept);
  g_assert_cmpuint (kept.stages[1].bytes[PLAN_MEM_ACTIVATIONS]
                    - mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    G_GUINT64_CONSTANT (4731174912));
  plan_memory_clear (&kept);
  plan_memory_clear (&none);
  plan_memory_clear (&mem);
  plan_clear (&p);
}

/* Each stage's output kept until its unit's backward (torch.distributed.pipelining's
 * fwd_cache; the torchtitan stack's "pp_stage_output": "kept", plan.h
 * pp_keep_stage_output). Llama 3 405B, TP 8 with SP, PP 16 1F1B (V = 1: 7 + 14 x 8 + 7
 * layers), 8192 tokens: one boundary activation is B = 2 x 8192 x 16384 / 8 = 33,554,432
 * bytes. Stage s holds pp - s units at its peak (1F1B: 16 on stage 0, 15 on stage 1, 1 on
 * stage 15), and each unit of a chunk whose output goes to another stage keeps B more:
 *  stage 0: 16 B = 536,870,912 more; stage 1: 15 B = 503,316,480 more;
 *  stage 15 (the model's last chunk; its output is the loss): unchanged. */
static void
test_stage_output_kept (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory freed, kept;

  llama3_405b (&m);
  table4_plan (&p, 64);
  p.schedule = PLAN_SCHED_1F1B;
  p.first_stage_layers = 7;
  p.last_stage_layers = 7;
  cluster_with_hbm (&c, 80 * GiB);
  p.pp_keep_stage_output = 0;
  plan_memory_compute (&m, &p, &c, &freed);
  p.pp_keep_stage_output = 1;
  plan_memory_compute (&m, &p, &c, &kept);
  g_assert_cmpint (kept.stages[0].inflight_microbatches, ==, 16);
  g_assert_cmpint (kept.stages[1].inflight_microbatches, ==, 15);
  g_assert_cmpuint (kept.stages[0].bytes[PLAN_MEM_ACTIVATIONS]
                    - freed.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==, 536870912);
  g_assert_cmpuint (kept.stages[1].bytes[PLAN_MEM_ACTIVATIONS]
                    - freed.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==, 503316480);
  g_assert_cmpuint (kept.stages[15].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    freed.stages[15].bytes[PLAN_MEM_ACTIVATIONS]);
  plan_memory_clear (&kept);
  plan_memory_clear (&freed);
  plan_clear (&p);
}

/* ZeRO-2 reduced once per step by FSDP under PP (zero2_grad_sync 0, pp_grad_after_stage
 * 1, fp32 upcast accumulation): a chunk's unsharded gradient exists from its first
 * backward to its last (plan/memory.c plan_mem_schedule_peak_grads). The small Llama,
 * dp 2, bf16 params and grads: a layer's fp32 gradient is 3,408,896 x 4 = 13,635,584
 * bytes; the embedding's (1000 x 512 = 512,000 elements) 2,048,000.
 *  - interleaved, pp 4, v 2 (one layer a chunk), m 4, stage 1: warm-up 2 (4 - 2) + 4 = 8
 *    = m v, every forward first: 8 units of A = act_bytes_per_layer. Chunk 1's first
 *    backward starts with 8A + G (G = one layer's 13,635,584), ends with 7A + G; after
 *    its fourth the gradient goes and chunk 0's first starts with 4A + G. Peak 8A + G:
 *    activations 8A, grads 13,635,584 (the whole-step sum held both chunks' 27,271,168).
 *  - 1F1B, pp 2, m 4, stage 0 (4 layers and the embedding): F0 F1 hold 2 units; B0
 *    starts with one layer's gradient beside them (2 units + 13,635,584) and ends with
 *    1 unit + the chunk's 4 x 13,635,584 + 2,048,000 = 56,590,336; F2 then holds 2 units
 *    + 56,590,336, the peak: activations as without the walk (2 units), grads 56,590,336. */
static void
test_zero2_per_step_liveness (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem, ref;

  small_llama (&m);
  small_plan (&p);
  p.dp = 2;
  p.vpp = 2;
  p.grad_accum = 4;
  p.global_batch = 8;
  p.schedule = PLAN_SCHED_INTERLEAVED_1F1B;
  p.sharding = PLAN_SHARD_ZERO2;
  p.param_dtype = PLAN_PREC_BF16;
  p.grad_dtype = PLAN_PREC_BF16;
  p.zero2_grad_sync = 0;
  p.grad_accum_upcast = 1;
  p.pp_grad_after_stage = 1;
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpint (mem.stages[1].inflight_microbatches, ==, 8);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_ACTIVATIONS], ==, 8 * mem.act_bytes_per_layer);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_GRADS], ==, 13635584);
  plan_memory_clear (&mem);
  /* the stack that keeps the sum to the step's end (no after-stage reduction): both
   * chunks' gradients beside the activations, as before */
  p.pp_grad_after_stage = 0;
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpuint (mem.stages[1].bytes[PLAN_MEM_GRADS], ==, 2 * 13635584);
  plan_memory_clear (&mem);

  p.pp = 2;
  p.vpp = 1;
  p.schedule = PLAN_SCHED_1F1B;
  p.dp = 4;
  p.pp_grad_after_stage = 1;
  plan_memory_compute (&m, &p, &c, &mem);
  p.zero2_grad_sync = 1;
  plan_memory_compute (&m, &p, &c, &ref);
  g_assert_cmpint (mem.stages[0].inflight_microbatches, ==, 2);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_GRADS], ==, 56590336);
  g_assert_cmpuint (mem.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    ref.stages[0].bytes[PLAN_MEM_ACTIVATIONS]);
  plan_memory_clear (&mem);
  plan_memory_clear (&ref);

  /* One micro-batch (m 1): stage 0 runs F0 then B0, and after B0 every gradient is live
   * with no tensor held or being rebuilt. A recompute's re-run (its transient) exists only
   * during the backward, so full recompute cannot raise the peak above no recompute: it
   * was added at that last moment too (GPT-3 175B under torchtitan read 0.1% more with
   * full recompute). Stage 0's peak with full recompute is then the larger of the
   * backward's start (stored inputs + transient + one layer's gradient) and its end (the
   * chunk's whole gradient, 56,590,336, and no activations). */
  p.zero2_grad_sync = 0;
  p.grad_accum = 1;
  p.global_batch = 4;
  p.recompute = PLAN_RECOMPUTE_NONE;
  plan_memory_compute (&m, &p, &c, &ref);
  p.recompute = PLAN_RECOMPUTE_FULL;
  plan_memory_compute (&m, &p, &c, &mem);
  g_assert_cmpuint (mem.stages[0].total, <=, ref.stages[0].total);
  g_assert_true (mem.stages[0].bytes[PLAN_MEM_ACTIVATIONS] == 0
                 || mem.stages[0].bytes[PLAN_MEM_GRADS] == 13635584);
  plan_memory_clear (&mem);
  plan_memory_clear (&ref);
  plan_clear (&p);
}

/* The JSON object: peak, capacity, verdict, categories at the peak stage, one entry per
 * stage; numbers as written match the struct. */
static void
test_json (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory mem;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  JsonObject *obj, *cats, *st;
  JsonArray *stages;

  small_llama (&m);
  small_plan (&p);
  cluster_with_hbm (&c, 80 * GiB);
  plan_memory_compute (&m, &p, &c, &mem);
  plan_memory_to_json (&mem, b);
  root = json_builder_get_root (b);
  obj = json_node_get_object (root);

  g_assert_cmpint (json_object_get_int_member (obj, "peak_bytes"), ==, (gint64) mem.peak_bytes);
  g_assert_cmpint (json_object_get_int_member (obj, "peak_stage"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (obj, "capacity_bytes"), ==, (gint64) (80 * GiB));
  g_assert_true (json_object_get_boolean_member (obj, "fits"));
  cats = json_object_get_object_member (obj, "categories");
  for (int k = 0; k < PLAN_MEM_N; k++)
    g_assert_cmpint (json_object_get_int_member (cats, plan_mem_category_name (k)), ==,
                     (gint64) mem.stages[0].bytes[k]);
  stages = json_object_get_array_member (obj, "stages");
  g_assert_cmpuint (json_array_get_length (stages), ==, 4);
  st = json_array_get_object_element (stages, 3);
  g_assert_cmpint (json_object_get_int_member (st, "stage"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (st, "layers"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (st, "inflight_microbatches"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (st, "total_bytes"), ==, (gint64) mem.stages[3].total);
  g_assert_true (json_object_get_boolean_member (st, "fits"));
  g_assert_true (json_object_has_member (json_object_get_object_member (st, "categories"),
                                         "comm_buffers"));
  g_assert_cmpstr (plan_mem_category_name (PLAN_MEM_RESERVE), ==, "reserve");
  plan_memory_clear (&mem);
  plan_clear (&p);
}

/* A JAX checkpoint policy that names what it saves (plan.h remat_named; the maxtext
 * stack: Pax's SAVE_QKV_OUT_PROJ): under selective recompute a layer stores its input,
 * Q, K, V and the out-projection output, nothing else. The small Llama (h 512, 8 heads
 * of 64, no GQA) on one GPU, micro-batch 2 x 1024 tokens (T = 2,048), bf16 (a = 2): the
 * input and the out-projection output a T h = 2 x 2048 x 512 = 2,097,152 bytes each, Q, K,
 * V 3 x 2,097,152: 5 x 2,097,152 = 10,485,760 bytes a layer, in place of Megatron's
 * selective set (the layer less the attention core's saves); over its 8 layers, with 1
 * micro-batch in flight, the activations differ by 8 x (that set - 10,485,760). Full
 * recompute and no recompute do not read the flag. */
static void
test_remat_named (void)
{
  ModelSpec m;
  Plan p;
  TopoCluster c;
  PlanMemory modules, named;
  PlanMemLayerActs acts;
  PlanMemOptions o;

  small_llama (&m);
  one_gpu_plan (&p, 1024, 2);
  cluster_with_hbm (&c, 80 * GiB);
  p.recompute = PLAN_RECOMPUTE_SELECTIVE;
  p.remat_named = 0;
  plan_mem_options_init (&o);
  plan_memory_layer_activations (&m, &p, &o, &acts);
  guint64 megatron_sel = acts.total - acts.attn_scores - acts.attn_softmax_stats;
  g_assert_cmpuint (megatron_sel, >, 10485760);
  plan_memory_compute (&m, &p, &c, &modules);
  p.remat_named = 1;
  plan_memory_compute (&m, &p, &c, &named);
  g_assert_cmpint (named.stages[0].inflight_microbatches, ==, 1);
  g_assert_cmpuint (modules.stages[0].bytes[PLAN_MEM_ACTIVATIONS]
                    - named.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    8 * (megatron_sel - 10485760));
  plan_memory_clear (&modules);
  plan_memory_clear (&named);
  p.recompute = PLAN_RECOMPUTE_FULL;
  p.remat_named = 0;
  plan_memory_compute (&m, &p, &c, &modules);
  p.remat_named = 1;
  plan_memory_compute (&m, &p, &c, &named);
  g_assert_cmpuint (modules.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==,
                    named.stages[0].bytes[PLAN_MEM_ACTIVATIONS]);
  plan_memory_clear (&modules);
  plan_memory_clear (&named);
  plan_clear (&p);
}

/* The interleaved peak by whole periods equals the unit-by-unit walk: every pp 2-8 and
 * 16, v 2-6, group sizes pp, pp + 1 and 2 pp, micro-batch counts around and between the
 * groups (whole groups, a last group joined to the one before, a shorter last group,
 * fewer than one group), every count in flight from 1 to all units but one, and chunks
 * storing different amounts (seeded, so a failure repeats). Worked by hand: pp 2, v 2,
 * m 4, n 2, inflight 3, chunk 0 storing 1 and chunk 1 storing 10: forward units
 * 0 0 1 1 | 0 0 1 1, backward 1 1 0 0 | 1 1 0 0; the warm-up holds 1 + 1 = 2, then
 * for j = 0..5 forward 2 + j in, backward j out: +10 = 12 -10 twice, +1 = 3 -1 twice,
 * +10 = 12 -10 twice: the peak is 12. */
static void
test_interleaved_peak_periods (void)
{
  const guint64 hand[2] = { 1, 10 };
  g_assert_cmpuint (plan_memory_interleaved_peak (2, 2, 4, 2, 3, hand, TRUE), ==, 12);
  g_assert_cmpuint (plan_memory_interleaved_peak (2, 2, 4, 2, 3, hand, FALSE), ==, 12);
  GRand *rand = g_rand_new_with_seed (11);
  static const int pps[] = { 2, 3, 4, 5, 8, 16 };
  guint64 chunk_mb[6];
  int checked = 0;
  for (guint a = 0; a < G_N_ELEMENTS (pps); a++)
    for (int v = 2; v <= 6; v++)
      for (int which = 0; which < 3; which++)
        {
          int p = pps[a];
          int n = which == 0 ? p : which == 1 ? p + 1 : 2 * p;
          for (int m = 1; m <= 3 * n + p + 1; m++)
            {
              for (int c = 0; c < v; c++)
                chunk_mb[c] = 1 + (guint64) g_rand_int_range (rand, 0, 1000000);
              for (int inflight = 1; inflight < m * v; inflight++)
                {
                  guint64 want = plan_memory_interleaved_peak (p, v, m, n, inflight, chunk_mb,
                                                               TRUE);
                  guint64 got = plan_memory_interleaved_peak (p, v, m, n, inflight, chunk_mb,
                                                              FALSE);
                  if (want != got)
                    g_error ("pp %d v %d m %d n %d inflight %d: %" G_GUINT64_FORMAT
                             " by periods, %" G_GUINT64_FORMAT " walked", p, v, m, n, inflight,
                             got, want);
                  checked++;
                }
            }
        }
  g_rand_free (rand);
  g_assert_cmpint (checked, >, 10000);
}

/* Multi-head latent attention's down projections and latent norms are whole on every TP
 * rank (Megatron-Core's MLA spec: linear_q_down_proj / linear_kv_down_proj are
 * backend.linear(), duplicated). DeepSeek-V3's first (dense) layer at TP 8: attention
 * q 7168*1536 + 1536 + 1536*128*192 = 48,760,320, kv 7168*576 + 512 + 512*128*256 =
 * 20,906,496, o 128*128*7168 = 117,440,512, 187,107,328 in all, of which whole
 * 7168*1536 + 1536 + 7168*576 + 512 = 15,140,864; so (187,107,328 - 15,140,864) / 8 +
 * 15,140,864 = 36,636,672, + norms 2*7168 = 14,336, + MLP 3*7168*18432 / 8 = 49,545,216:
 * 86,196,224 (all split by 8 it was 72,947,968) */
static void
test_mla_down_proj_replicated (void)
{
  g_autoptr (ModelSpec) m = model_spec_load_preset ("deepseek-v3", NULL);
  g_assert_nonnull (m);
  Plan plan;
  plan_init_defaults (&plan);
  plan.tp = 8;
  PlanMoe moe;
  plan_moe (&plan, m, &moe);
  g_assert_cmpfloat (plan_mixer_tp_replicated (m), ==, 15140864.0);
  double dense = 0, expert = 0;
  plan_layer_params_local (&plan, m, &moe, 0, &dense, &expert);
  g_assert_cmpfloat (dense, ==, 86196224.0);
  g_assert_cmpfloat (expert, ==, 0.0);
  /* a model without MLA keeps everything split */
  g_autoptr (ModelSpec) l = model_spec_load_preset ("llama3-8b", NULL);
  g_assert_cmpfloat (plan_mixer_tp_replicated (l), ==, 0.0);
  plan_clear (&plan);
}

/* q/k norms keep their inputs: Qwen3-8B (q_norm, k_norm over each head) at 4,096 tokens,
 * tp 1, bf16: the two block norms' inputs 2 x 2 B x 4096 x 4096 = 67,108,864 and the q and
 * k before their norms 2 B x 4096 x (32 + 8) x 128 = 41,943,040: 109,051,904; Llama 3 8B
 * (no q/k norms, the same widths) keeps only the first */
static void
test_qk_norm_inputs (void)
{
  Plan plan;
  plan_init_defaults (&plan);
  plan.tp = 1;
  plan.micro_batch = 1;
  plan.seq_length = 4096;
  PlanMemLayerActs acts;
  g_autoptr (ModelSpec) q = model_spec_load_preset ("qwen3-8b", NULL);
  g_assert_true (q->qk_norm);
  plan_memory_layer_activations (q, &plan, NULL, &acts);
  g_assert_cmpuint (acts.norm_inputs, ==, 109051904);
  g_autoptr (ModelSpec) l = model_spec_load_preset ("llama3-8b", NULL);
  plan_memory_layer_activations (l, &plan, NULL, &acts);
  g_assert_cmpuint (acts.norm_inputs, ==, 67108864);
  plan_clear (&plan);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plan/memory/states-8-bytes", test_states_8_bytes);
  g_test_add_func ("/plan/memory/fp8-saved-inputs", test_fp8_saved_inputs);
  g_test_add_func ("/plan/memory/fp8-param-gather", test_fp8_param_gather);
  g_test_add_func ("/plan/memory/fsdp-fp32-shards", test_fsdp_fp32_shards);
  g_test_add_func ("/plan/memory/kv-repeated-saved", test_kv_repeated_saved);
  g_test_add_func ("/plan/memory/zero3-100b", test_zero3_100b);
  g_test_add_func ("/plan/memory/zero-figure1", test_zero_figure1);
  g_test_add_func ("/plan/memory/zero2-per-step", test_zero2_per_step);
  g_test_add_func ("/plan/memory/zero2-per-step-liveness", test_zero2_per_step_liveness);
  g_test_add_func ("/plan/memory/course-ffn-405b", test_course_ffn_405b);
  g_test_add_func ("/plan/memory/korthikanti", test_korthikanti);
  g_test_add_func ("/plan/memory/inflight", test_inflight);
  g_test_add_func ("/plan/memory/first-last-differ", test_first_last_differ);
  g_test_add_func ("/plan/memory/oom-flip", test_oom_flip);
  g_test_add_func ("/plan/memory/unfused-transient", test_unfused_transient);
  g_test_add_func ("/plan/memory/recompute", test_recompute);
  g_test_add_func ("/plan/memory/recompute-shares-input", test_recompute_shares_input);
  g_test_add_func ("/plan/memory/interleaved", test_interleaved);
  g_test_add_func ("/plan/memory/zero3-buffers", test_zero3_buffers);
  g_test_add_func ("/plan/memory/tied-embeddings", test_tied_embeddings);
  g_test_add_func ("/plan/memory/llama3-405b", test_llama3_405b);
  g_test_add_func ("/plan/memory/llama3-405b-interleaved", test_llama3_405b_interleaved);
  g_test_add_func ("/plan/memory/stage-output-kept", test_stage_output_kept);
  g_test_add_func ("/plan/memory/loss-eager", test_loss_eager);
  g_test_add_func ("/plan/memory/loss-te", test_loss_te);
  g_test_add_func ("/plan/memory/json", test_json);
  g_test_add_func ("/plan/memory/selective-op-llama3-8b", test_selective_op_llama3_8b);
  g_test_add_func ("/plan/memory/cpu-offload", test_cpu_offload);
  g_test_add_func ("/plan/memory/zero3-prefetch-bucket", test_zero3_prefetch_bucket);
  g_test_add_func ("/plan/memory/dualpipe", test_dualpipe);
  g_test_add_func ("/plan/memory/remat-named", test_remat_named);
  g_test_add_func ("/plan/memory/interleaved-peak-periods", test_interleaved_peak_periods);
  g_test_add_func ("/plan/memory/mamba-layer", test_mamba_layer_acts);
  g_test_add_func ("/plan/memory/mla-down-proj-replicated", test_mla_down_proj_replicated);
  g_test_add_func ("/plan/memory/qk-norm-inputs", test_qk_norm_inputs);
  return g_test_run ();
}
