/* plan/memory.h - peak memory per GPU of a plan, by category and pipeline stage.
 *
 * Contract:
 *  - Bytes (guint64). Computed for one representative rank of every pipeline stage (all
 *    ranks of a stage hold the same amounts: DESIGN.md section 3, symmetry).
 *  - Pure function of (model, resolved plan, cluster): no I/O, never prints.
 *  - Activation formulas follow Korthikanti et al. 2022 ("Reducing Activation Recomputation
 *    in Large Transformer Models"), eq. for per-layer activations with TP/SP, with
 *    FlashAttention (no S x S scores stored) and the CP division of the sequence. */
#pragma once

#include <glib.h>
#include "models/model.h"
#include "topology/cluster.h"
#include "plan/plan.h"

G_BEGIN_DECLS

typedef enum {
  PLAN_MEM_PARAMS,        /* model weights held for compute (param dtype) */
  PLAN_MEM_GRADS,         /* gradient buffers (grad dtype) */
  PLAN_MEM_OPTIMIZER,     /* Adam m and v, plus fp32 master weights when asked */
  PLAN_MEM_ACTIVATIONS,   /* stored activations of all in-flight micro-batches */
  PLAN_MEM_COMM_BUFFERS,  /* FSDP-gathered layer(s), DP buckets, PP send/recv buffers */
  PLAN_MEM_RESERVE,       /* fragmentation + framework/CUDA context allowance */
  PLAN_MEM_N,
} PlanMemCategory;

const char *plan_mem_category_name (PlanMemCategory cat); /* "params", "grads", ... */

typedef struct {
  int     stage;                     /* pipeline rank */
  int     layers;                    /* layers held (all virtual chunks) */
  int     inflight_microbatches;     /* activations held at the peak (per chunk-sum) */
  guint64 bytes[PLAN_MEM_N];
  guint64 total;
  gboolean fits;                     /* total <= device HBM */
} PlanMemStage;

typedef struct {
  PlanMemStage *stages;      /* pp entries */
  int           n_stages;
  guint64       peak_bytes;  /* max over stages */
  int           peak_stage;
  guint64       capacity_bytes; /* device HBM */
  gboolean      fits;        /* every stage fits */
  /* per-layer activation bytes of one micro-batch on one rank, as computed (for reports):
   * a layer with the model's dense MLP, and for a mixture-of-experts model an MoE layer
   * (0 for a dense model); moe_layers_only: the model has no dense layer */
  guint64       act_bytes_per_layer;
  guint64       act_bytes_per_moe_layer;
  gboolean      moe_layers_only;
  double        reserve_fraction;   /* fragmentation allowance used */
  guint64       reserve_fixed_bytes;/* CUDA context + framework reserve used */
} PlanMemory;

/* Tunable assumptions of the model. plan_mem_options_init() sets the documented
 * defaults (see memory.c for the sources of each). */
typedef enum {
  PLAN_MEM_DROPOUT_AUTO,  /* dropout masks for GeLU (GPT-style) models, none for SwiGLU */
  PLAN_MEM_DROPOUT_ON,    /* 1-byte masks after attention, MLP and embedding */
  PLAN_MEM_DROPOUT_OFF,   /* Llama family: no dropout */
} PlanMemDropout;

typedef struct {
  double         reserve_fraction;    /* allocator fragmentation allowance, fraction of
                                         the counted bytes; default 0.05 */
  guint64        reserve_fixed_bytes; /* CUDA context + NCCL + workspaces; default 1.5 GiB */
  gboolean       flash_attention;     /* no a x s x s scores stored; default TRUE */
  PlanMemDropout dropout;             /* default AUTO */
  int            param_gather_layers; /* ZeRO-3/FSDP gathered units held (current +
                                         prefetched); default 2 */
} PlanMemOptions;

void plan_mem_options_init (PlanMemOptions *opts);
/* Whether the plan trains with dropout: the plan's dropout field where it says (the
 * stack's model code, plan.h), else none where the model says so (ModelSpec no_dropout),
 * else the model's default (GeLU / GPT-style models: Megatron's --hidden-dropout and
 * --attention-dropout 0.1; SwiGLU / Llama: none). */
gboolean plan_dropout (const ModelSpec *model, const Plan *plan);

/* Computes the breakdown. `plan` must be resolved (plan_resolve): dp, grad_accum and
 * seq_length set (fallbacks: grad_accum from global_batch / (micro_batch x dp), else 1;
 * seq_length 0 -> model max_positions capped at 8192). `cluster` gives the capacity. */
void plan_memory_compute (const ModelSpec *model, const Plan *plan, const TopoCluster *cluster,
                          PlanMemory *out);
/* The same with explicit assumptions (`opts` NULL = defaults). */
void plan_memory_compute_full (const ModelSpec *model, const Plan *plan,
                               const TopoCluster *cluster, const PlanMemOptions *opts,
                               PlanMemory *out);

/* Bytes of model state held per rank for `n_params` parameter elements of this rank's
 * tensor-parallel slice, after the plan's ZeRO/FSDP sharding: out[0] params, out[1] grads,
 * out[2] optimizer (Adam m, v and fp32 master weights; 0 when offloaded). */
void plan_memory_model_states (const Plan *plan, double n_params, double out[3]);

/* Stored activations of ONE transformer layer for ONE micro-batch on ONE rank, without
 * recompute, split by the tensors the backward pass needs (Korthikanti et al. 2022,
 * section 4.1, generalised to GQA and SwiGLU; derivation in memory.c). Bytes. */
typedef struct {
  guint64 norm_inputs;        /* inputs of the two norms (2 x 2sbh); MLA: and of the
                               * q and kv latent norms */
  guint64 linear_inputs;      /* QKV-GEMM input, out-projection input, fc1 input (MLA:
                               * and the up projections' inputs) */
  guint64 mlp_input;          /* of which the fc1 input (the pre-MLP norm output) */
  guint64 attn_qkv;           /* Q, K, V kept for the attention backward */
  guint64 attn_scores;        /* softmax output, dropout mask and output (no flash) */
  guint64 attn_softmax_stats; /* FlashAttention log-sum-exp, fp32 per head and token */
  guint64 mlp_hidden;         /* GeLU input+output, or SwiGLU gate, up and product */
  guint64 dropout_masks;      /* masks after attention and MLP (1 byte per element) */
  guint64 total;
  /* of the total, what the layer's backward has freed when it reaches the attention
   * core: the MLP block's tensors, the norm-2 input, the out-projection input and the
   * dropout masks (autograd releases a node's saved tensors once its backward has run);
   * 0 where not derived (MLA, Gated DeltaNet) */
  guint64 after_core;
} PlanMemLayerActs;

void plan_memory_layer_activations (const ModelSpec *model, const Plan *plan,
                                    const PlanMemOptions *opts, PlanMemLayerActs *out);

/* Bytes of an MLP hidden activation counted the simple way: one `width`-wide tensor per
 * token and layer at `elem_bytes` (tokens x width x layers x elem_bytes). */
guint64 plan_memory_mlp_hidden_bytes (guint64 tokens, guint64 width, guint64 layers,
                                      guint elem_bytes);

/* In-flight micro-batches (chunk-micro-batches for Interleaved1F1B) whose activations
 * pipeline rank `stage` holds at its peak. */
int plan_memory_inflight (const Plan *plan, int stage);
/* The peak of stored activations on a stage of an interleaved 1F1B schedule (pp p, v
 * chunks, m micro-batches in groups of n, `inflight` units in flight), chunk c storing
 * chunk_mb[c] a unit: in whole periods of the schedule (walk FALSE), or unit by unit
 * (walk TRUE: the reference the tests compare with). */
guint64 plan_memory_interleaved_peak (int p, int v, int m, int n, int inflight,
                                      const guint64 *chunk_mb, gboolean walk);
void plan_memory_clear   (PlanMemory *mem);   /* frees stages; NULL-safe contents */

struct _JsonBuilder;
/* Writes the object of `tandem memory --json`: {peak_bytes, fits, capacity_bytes,
 * categories{...at the peak stage}, stages[...]} */
void plan_memory_to_json (const PlanMemory *mem, struct _JsonBuilder *builder);

G_END_DECLS
