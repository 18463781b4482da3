/* plan/plan.h - a 4D parallel training plan (TP, CP, PP, DP) and its options.
 *
 * Contract:
 *  - A Plan is a plain value struct (no heap fields but `rank_order`), filled by
 *    plan_init_defaults() and then by Megatron-style flags (plan-args.c) or a plan JSON
 *    with TorchTitan key names (plan-json.c).
 *  - plan_resolve() derives dp and grad_accum from the world size and checks every
 *    constraint against a model and cluster; its PLAN_ERROR messages say what is wrong
 *    and how to fix it, in one line.
 *  - Degrees are counts of ranks; batch sizes are sequences; seq_length in tokens. */
#pragma once

#include <glib.h>
#include "models/model.h"
#include "topology/cluster.h"
#include "frameworks/stack.h"

G_BEGIN_DECLS

#define PLAN_ERROR (plan_error_quark ())
GQuark plan_error_quark (void);

typedef enum {
  PLAN_ERROR_USAGE,        /* unknown flag or bad value */
  PLAN_ERROR_PARSE,        /* malformed plan JSON */
  PLAN_ERROR_INVALID,      /* the plan does not divide / fit */
} PlanError;

/* Limits with reasons (issue 15): plan_resolve refuses a plan beyond one with a message
 * that names the cap and why. Every number and product of flags is formed in 64 bits
 * after these checks, so nothing wraps. */
#define PLAN_MAX_WORLD        (1 << 20)   /* 1,048,576 GPUs: ~10x the largest cluster built */
#define PLAN_MAX_SEQ          (1 << 24)   /* 16,777,216 tokens per sequence (= the model cap) */
#define PLAN_MAX_MB_TOKENS    (1 << 26)   /* 67,108,864 tokens per micro-batch (mbs x seq) */
#define PLAN_MAX_MICROBATCHES (1 << 16)   /* 65,536 micro-batches per step (grad_accum) */
/* micro-batches x layers per pipeline rank: the step program holds a few dozen tasks per
 * pair (llama3-8b on 8 GPUs at this cap: 8.65 M tasks, 1.15 GB, 6.7 s) */
#define PLAN_MAX_LAYER_PASSES (1 << 21)   /* 2,097,152 = 65,536 x 32 */
/* The same over every pipeline rank together: a simulation of the whole step (GPipe,
 * --full-simulation, --trace, or a pipeline that settles into no period) holds every
 * rank's tasks, about 1-2.5 KB a layer pass in all (Megatron-GPT 1T, pp 16, vpp 8: 5.3 GB
 * at 2.1 M passes; 8.4 M passes aborted past 20 GB), where the cap per rank let pp times as
 * many through */
#define PLAN_MAX_STEP_LAYER_PASSES (1 << 22)   /* 4,194,304: ~5-10 GB at worst */
/* --mtp-num-layers: the DeepSeek-V3 report trains a depth of 1 (Sec. 2.2); the cap keeps
 * the last stage's program bounded, as the published-run table's mtp_layers cap does */
#define PLAN_MAX_MTP          64

typedef enum {
  PLAN_SCHED_GPIPE,
  PLAN_SCHED_1F1B,
  PLAN_SCHED_INTERLEAVED_1F1B,
  PLAN_SCHED_DUALPIPE,          /* DeepSeek-V3's bidirectional pipeline (plan.c
                                 * plan_model_chunk: each rank holds two stages) */
} PlanSchedule;

typedef enum {
  PLAN_SHARD_NONE,   /* DDP, ZeRO-0, NO_SHARD */
  PLAN_SHARD_ZERO1,  /* optimizer states; Megatron distributed optimizer */
  PLAN_SHARD_ZERO2,  /* + gradients; SHARD_GRAD_OP; FSDP reshard_after_forward=False */
  PLAN_SHARD_ZERO3,  /* + parameters; FULL_SHARD; FSDP */
  PLAN_SHARD_HSDP,   /* ZeRO-3 within shard groups of hsdp_shard_size, replicated across */
} PlanSharding;

typedef enum {
  PLAN_CP_P2P,       /* ring attention: K/V passed around the ring */
  PLAN_CP_ALLGATHER, /* K/V all-gathered (Llama 3) */
  PLAN_CP_A2A,       /* Ulysses: all-to-all heads <-> sequence */
} PlanCpComm;

/* How the attention core runs (Megatron-Core --attention-backend). */
typedef enum {
  PLAN_ATTN_FLASH,    /* fused, tiled (FlashAttention, cuDNN/TE fused attention): the
                       * s x s scores never reach memory and masked tiles are skipped */
  PLAN_ATTN_UNFUSED,  /* the scores materialized: QK^T and AV as batched GEMMs over the
                       * whole s x s (the causal mask is applied, not skipped), softmax
                       * and attention dropout as passes over the scores; Megatron's
                       * "unfused"/"local" backends, and every framework before
                       * FlashAttention (Dao et al. 2022, arXiv 2205.14135) */
} PlanAttnBackend;

typedef enum {
  PLAN_RECOMPUTE_NONE,
  PLAN_RECOMPUTE_SELECTIVE, /* attention core recomputed (Korthikanti et al.) */
  PLAN_RECOMPUTE_FULL,      /* whole layers recomputed from their input */
  /* torchtitan's op-level selective AC (activation_checkpoint.mode "selective",
   * selective_ac_option "op"): a dense layer saves the outputs of its SDPA and of every
   * odd-numbered matmul (q, v, the gate w1, the MLP's down projection w2; the SwiGLU
   * order q k v o w1 w3 w2) and recomputes the even ones (k, o, w3) with every
   * element-wise op (norms, rotary, residuals, the activation) before its backward */
  PLAN_RECOMPUTE_SELECTIVE_OP,
} PlanRecompute;

typedef enum {
  PLAN_RECOMPUTE_UNIFORM,   /* checkpoint every recompute_num_layers layers */
  PLAN_RECOMPUTE_BLOCK,     /* recompute the first recompute_num_layers layers per stage */
} PlanRecomputeMethod;

typedef enum {
  PLAN_PREC_FP32,
  PLAN_PREC_BF16,
  PLAN_PREC_FP16,
  PLAN_PREC_FP8,
  PLAN_PREC_FP4,      /* NVFP4 GEMMs (Blackwell), bf16 weights and the rest as fp8 plans */
} PlanPrecision;

/* How an MoE layer moves tokens to their experts (Megatron-Core
 * --moe-token-dispatcher-type). */
typedef enum {
  PLAN_MOE_ALLTOALL,   /* permute, all-to-all over EP (then all-gather over ETP), experts,
                        * the mirror back (MoEAlltoAllTokenDispatcher) */
  PLAN_MOE_ALLGATHER,  /* all-gather every token over ETP x EP, local experts pick theirs,
                        * reduce-scatter back (MoEAllGatherTokenDispatcher) */
  PLAN_MOE_FLEX,       /* DeepEP-style fused dispatch/combine (MoEFlexTokenDispatcher with
                        * --moe-enable-deepep): permutation inside the kernel, and a token
                        * bound for several experts of one remote node crosses the network
                        * once, forwarded inside the node over NVLink */
} PlanMoeDispatcher;

/* The flex dispatcher's library (Megatron-Core --moe-flex-dispatcher-backend). Both send
 * a token once to each remote "node" that holds one of its experts and forward it inside
 * that node; they differ in what a node is. */
typedef enum {
  PLAN_MOE_FLEX_DEEPEP,    /* DeepEP's normal kernels: a node is a server (NVLink inside,
                            * RDMA between: its NUM_MAX_NVL_PEERS is 8) */
  PLAN_MOE_FLEX_HYBRIDEP,  /* NVIDIA's HybridEP (DeepEP's hybrid-ep branch): a node is an
                            * NVLink domain, a whole NVL72 rack with multi-node NVLink */
} PlanMoeFlexBackend;

/* CUDA graphs (Megatron-Core --cuda-graph-impl / --cuda-graph-scope): which capture and
 * what it covers. The step program's host-side costs (the MoE dispatcher's sync and the
 * grouped GEMMs' per-expert host work) sit in the experts; only a capture of the MoE layer
 * (scope moe, the whole layer, or full_iteration) removes them. */
typedef enum {
  PLAN_CG_IMPL_NONE,               /* default: eager */
  PLAN_CG_IMPL_LOCAL,              /* Megatron-Core's CudaGraphManager / FullCudaGraphWrapper */
  PLAN_CG_IMPL_TRANSFORMER_ENGINE, /* TE make_graphed_callables per layer */
} PlanCudaGraphImpl;

enum {
  PLAN_CG_ATTN = 1 << 0,
  PLAN_CG_MLP = 1 << 1,
  PLAN_CG_MOE = 1 << 2,
  PLAN_CG_MOE_ROUTER = 1 << 3,
  PLAN_CG_MOE_PREPROCESS = 1 << 4,
  PLAN_CG_FULL_ITERATION = 1 << 5,
};

/* GEMM math over fp32 tensors (compute_dtype fp32), PyTorch's
 * torch.set_float32_matmul_precision names: "highest" fp32 products, "high" TF32 tensor
 * cores, "medium" BF16 tensor cores; accumulation is fp32 in all three. */
typedef enum {
  PLAN_MATMUL_HIGHEST,
  PLAN_MATMUL_HIGH,
  PLAN_MATMUL_MEDIUM,
} PlanMatmulPrecision;

typedef struct {
  /* degrees */
  int world_size;          /* --gpus / --world-size; 0 = whole cluster */
  int tp, pp, cp, ep;      /* ep is carried for completeness; dense models use 1 */
  int dp;                  /* derived: world / (tp pp cp); a given --dp must agree */
  int vpp;                 /* virtual stages (model chunks) per pipeline rank; 1 = none */
  int vpp_group;           /* --microbatch-group-size-per-virtual-pipeline-stage: the
                            * interleaved schedule's contiguous micro-batches per model
                            * chunk (the Llama 3 paper's N); 0 = pp, Megatron's default */
  int pp_schedules;        /* pipeline schedules run one after another in a step, each over
                            * grad_accum / pp_schedules micro-batches, gradients accumulated
                            * across them: a torch.distributed.pipelining loop that calls
                            * schedule.step() once per local batch (NeMo AutoModel's
                            * _run_train_optim_step, GA = GBS / (dp x local batch)); each
                            * schedule fills and drains the pipeline. 0 or 1 = one schedule
                            * over the whole step (Megatron-Core). An input from the stack
                            * and its run (results/published.c), not a searched dimension */
  int layers_per_virtual_stage; /* --num-layers-per-virtual-pipeline-stage; 0 = unset */
  /* Megatron-Core --decoder-first/last-pipeline-num-layers: the layers of the first (last)
   * pipeline stage, all its model chunks together; with vpp > 1 each of its chunks holds
   * an equal share (get_num_layers_to_build asserts it divides), the middle stages
   * share the rest evenly. -1 = even split */
  int first_stage_layers;
  int last_stage_layers;
  /* tandem's own --first-chunk-layers / --last-chunk-layers: the layers of the first
   * (last) model chunk alone, the other pp x vpp - 1 (- 2) chunks sharing the rest evenly
   * (for vpp = 1 the same as the stage split; with vpp > 1 Megatron-Core expresses it
   * only as a --pipeline-model-parallel-layout). -1 = even split. Not combined with the
   * stage split above or the accounted one. */
  int first_chunk_layers;
  int last_chunk_layers;
  /* Megatron-Core --account-for-embedding-in-pipeline-split / --account-for-loss-in-
   * pipeline-split: the embedding (the output layer and loss) takes one layer slot when
   * the layers are split over the pp x vpp model chunks, so the first (last) model chunk
   * holds one transformer layer fewer and may hold none (Llama 3 405B at pp 16, vpp 8:
   * 126 + 2 = 128 slots, a first chunk with only the embedding). Not combined with the
   * uneven first/last stage split (Megatron refuses that too). */
  gboolean account_embedding;
  gboolean account_loss;
  gboolean sequence_parallel;
  PlanCpComm cp_comm;
  PlanAttnBackend attention_backend;  /* --attention-backend; default flash */
  gboolean     attention_backend_set;  /* given (--attention-backend, a plan file's key, a
                                        * published row's mapping): else a stack whose
                                        * attention materializes the scores (FwStack
                                        * attention "unfused": deepspeed, megatron-lm-2021)
                                        * runs unfused (sim_plan_apply_stack) */

  /* batch */
  int micro_batch;         /* sequences per micro-batch per DP rank */
  int global_batch;        /* sequences per step; 0 = local_batch (or micro_batch) x dp */
  gboolean global_batch_derived; /* global_batch was 0 and plan_resolve derived it: a
                                 * changed plan's flags must then give it (cli-fit.c) */
  int local_batch;         /* TorchTitan training.local_batch_size: per DP rank per step */
  gboolean micro_batch_flag; /* micro_batch came from --mbs (it then replaces a plan file's
                              * local batch without a pipeline; plan-validate.c) */
  int seq_length;          /* tokens per sequence; 0 = model's max_positions capped at 8192 */
  int grad_accum;          /* derived: global / (micro x dp) micro-batches per step */

  PlanSchedule schedule;
  gboolean     schedule_set;   /* user gave --schedule; otherwise vpp>1 implies interleaved */
  gboolean     cp_comm_set;    /* user gave --cp-comm-type (or a plan file's CP exchange);
                                * otherwise the stack's first offered when it lacks p2p */
  gboolean     sharding_set;   /* user gave --sharding (or a plan file's "sharding") */
  gboolean     rank_order_set; /* user gave --rank-order (or a plan file's rank_order);
                                * otherwise a stack with one layout of its own takes it
                                * (plan_apply_stack_rank_order) */

  /* sharding */
  PlanSharding sharding;
  int hsdp_shard_size;     /* K of hsdp:K */
  int dp_replicate;        /* --data-parallel-replicate-degree R: HSDP with K = dp / R */

  /* recompute */
  PlanRecompute       recompute;
  PlanRecomputeMethod recompute_method;
  int                 recompute_num_layers; /* 0 = all layers (full) */
  /* torchtitan's selective_ac_option N (plan files): every N-th block of a chunk fully
   * checkpointed, the others keep everything; plan_resolve turns it into the block
   * method over floor(chunk layers / N) layers (0: not given) */
  int                 recompute_every;

  /* precision */
  PlanPrecision compute_dtype;   /* GEMM dtype: bf16 or fp8 (fp8 keeps bf16 params) */
  int           fp8_recipe;      /* --fp8-recipe (Megatron-LM's names): the FP8 scaling
                                  * recipe as a FwScaling (frameworks/stack.h): delayed,
                                  * tensorwise = current, mxfp8 = block, blockwise,
                                  * rowwise; -1: the stack's */
  gboolean      fp8_recipe_as_run; /* the recipe is a published run's record: a per-tensor
                                  * recipe the stack's current release has dropped
                                  * (torchtitan's delayed scaling, until January 2025) is
                                  * taken as it ran, not refused (plan_check_stack) */
  PlanPrecision param_dtype;     /* model weights as held for compute */
  PlanPrecision grad_dtype;      /* gradient accumulation / reduction dtype */
  PlanPrecision optim_dtype;     /* Adam moments */
  gboolean      master_weights;  /* fp32 master copy when params are lower precision */
  PlanMatmulPrecision fp32_matmul; /* with compute_dtype fp32: the GEMMs' math */
  gboolean      fp32_matmul_set; /* given by --fp32-matmul-precision */

  /* overlap and offload */
  gboolean overlap_grad_reduce;
  gboolean overlap_param_gather;
  gboolean tp_comm_overlap;
  gboolean async_tp;             /* --async-tp: TorchTitan's async TP (enable_async_tensor_
                                  * parallel), the stack's TP-comm overlap: sets
                                  * tp_comm_overlap; needs compile (TorchTitan refuses it
                                  * otherwise) */
  int      dropout;              /* hidden and attention dropout: -1 the model's default
                                  * (plan_dropout: GPT-style GeLU models carry it),
                                  * 0 none (the stack's model code sets every dropout
                                  * probability to 0, FwStack no_dropout), 1 on */
  gboolean no_rope_fusion;       /* --no-rope-fusion (Megatron-LM's flag): RoPE as
                                  * Megatron-Core's unfused PyTorch ops
                                  * (rope_utils.py _apply_rotary_pos_emb_bshd) where
                                  * apply_rope_fusion is off; FALSE: the fused kernel */
  gboolean te_cross_entropy;     /* --cross-entropy-fusion-impl te (Megatron-Core's flag, with
                                  * cross_entropy_loss_fusion): the loss as Transformer
                                  * Engine's Triton cross entropy (parallel_cross_entropy:
                                  * an online-softmax read of the bf16 logits, the gradient
                                  * written over them in the backward); FALSE: Megatron's
                                  * native fused one (fp32 softmax saved) */
  gboolean compile;              /* --compile: TorchTitan's training.compile (torch.compile);
                                  * what it changes is the stack's (sim_cost_options_compile) */
  gboolean optimizer_offload;    /* optimizer states (and master weights) in host memory */
  int      cpu_offload_layers;   /* Megatron-Core --cpu-offloading with
                                  * --cpu-offloading-num-layers N (activations only, TE's
                                  * offload context): the stored activations of N of the
                                  * transformer layers go to host memory in the forward and
                                  * come back before their backward; Megatron allows
                                  * 0 <= N < layers, PP 1 and no recompute
                                  * (transformer_config.py). Memory only: the copies run on
                                  * their own stream (plan/memory.c); 0 = off */
  int      mtp_num_layers;       /* Megatron-Core --mtp-num-layers N: the multi-token-
                                  * prediction modules trained on the last pipeline stage
                                  * (multi_token_prediction.py; DeepSeek-V3 report Sec.
                                  * 2.2), each the model's last decoder layer's kind with
                                  * its two norms, 2h -> h projection, final norm and the
                                  * shared head and loss. 0 = none, Megatron's default
                                  * (mtp_num_layers None): a config's
                                  * num_nextn_predict_layers alone trains none */
  double   bucket_bytes;         /* DP gradient bucket in bytes, where a plan file gives it
                                  * (bucket_elements 0); else plan_bucket_bytes */
  double   bucket_elements;      /* ... in elements (Megatron --ddp-bucket-size, 40M by
                                  * default): bytes in the gradient dtype, whichever flag
                                  * set that dtype first */
  /* ZeRO-3 as the software issues it (DeepSpeed's stage3_* settings); a negative value
   * takes the stack's (sim_predict fills it from SimCostOptions, frameworks/stack.h) */
  double   zero3_prefetch_params; /* stage3_prefetch_bucket_size: parameters gathered ahead;
                                   * 0 = the next layer (FSDP's one-module prefetch) */
  double   zero3_reuse_params;    /* stage3_max_reuse_distance: a recomputed layer larger
                                   * than this is gathered again after its recompute;
                                   * 0 = kept from the recompute to the backward */
  int      zero3_gather_ahead;    /* 1: in the backward, the next layer's prefetched gather
                                   * is issued before this layer's gradient reduce-scatter
                                   * (FwStack fsdp_gather_before_reduce); 0: after it */
  int      zero3_per_tensor;      /* 1: one collective per parameter tensor; 0: one per
                                   * layer (flat parameters, FSDP2's foreach gather) */
  int      zero2_grad_sync;       /* ZeRO-2: 1 each micro-batch's gradients reduce-
                                  * scattered in its backward (sharded gradients); 0 once
                                  * per step (accumulated unsharded, as ZeRO-1); -1 the
                                  * stack's (sim_predict fills it) */
  int      zero3_rank_copies;     /* 1: collectives on lists of per-rank tensors, a copy
                                   * per rank each (torch.distributed.all_gather before
                                   * all_gather_into_tensor); 0: one flat buffer */
  gboolean fsdp_float8_all_gather; /* FP8 plans under ZeRO-3 / HSDP: the layers' linear
                                   * weights are cast to fp8 on their shard and gathered in
                                   * fp8 (torchao enable_fsdp_float8_all_gather; TorchTitan
                                   * [float8] enable_fsdp_float8_all_gather) */
  int      fp8_param_gather;      /* FP8 plans with a per-tensor recipe (delayed, current
                                   * scaling) and a replicated or ZeRO-1/2 model: 1 the
                                   * linear weights are held in fp8 and the distributed
                                   * optimizer gathers them in fp8 (Megatron-LM
                                   * --fp8-param-gather; on by default in NeMo 2's and
                                   * Megatron-Bridge's FP8 recipes), 0 in the param dtype;
                                   * -1 the stack's (sim_predict fills it) */
  int      tp_all_gather_fp8;     /* FP8 plans: 1 the TP all-gathers carry fp8 (torchao
                                   * Float8 tensor parallelism casts before gathering), 0
                                   * bf16; -1 the stack's (sim_predict fills it) */
  int      tp_seq_copies;         /* TP with SP through PyTorch's functional collectives
                                   * on the sequence dim (DTensor Shard(1)): 1 each
                                   * all-gather's output and each reduce-scatter's input
                                   * is re-laid by a chunk + cat copy on the compute
                                   * stream (plan/program-blocks.c tp_seq_copy); 0 the
                                   * collectives work in place (Megatron, TE); -1 the
                                   * stack's (sim_predict fills it) */
  int      tp_grad_rs_whole;      /* with TP-comm overlap: 1 the backward's reduce-scatter
                                   * (all-reduce) of a block's input gradient is one
                                   * collective after the block's pieces (PyTorch async TP:
                                   * inductor's micro-pipeline pass fuses a reduce-scatter
                                   * only with the one matmul feeding it, and that gradient
                                   * is a sum over q/k/v or gate/up); 0 each piece's leaves
                                   * with it; -1 the stack's (sim_predict fills it) */
  int      pp_grad_after_stage;   /* PP, gradients reduced once per step: 1 a model chunk's
                                   * gradient reductions start when its last backward of
                                   * the step is done (torch.distributed.pipelining runs
                                   * FSDP's post_backward by hand there, and the compute
                                   * stream and the chunk's send of that backward wait for
                                   * all its reduce-scatters but the last: program.c
                                   * post_backward_wait); 0 bucket by
                                   * bucket as the backward produces them; -1 the stack's */
  int      pp_lockstep;           /* interleaved 1F1B run as torch.distributed.pipelining
                                   * runs it (PipelineScheduleMulti): a table of time steps,
                                   * each rank waiting the step's sends and receives before
                                   * its next compute (plan/program.c lockstep_*); 0 each
                                   * unit waits only for its input; -1 the stack's */
  int      pp_p2p_sync;           /* 1: non-interleaved 1F1B with PP > 1 run as Megatron-
                                   * Core runs it (batch_p2p_sync): the device synchronized
                                   * after each batched exchange, so a stage's next unit
                                   * waits for everything the stage issued before, its sends
                                   * included (plan/program.c sync_*); 2: the same, and the
                                   * interleaved schedule too, as Megatron-LM before
                                   * Megatron-Core ran it (sync_every_interleaved); 0 each
                                   * unit waits only for its input; -1 the stack's */
  int      pp_scatter_gather;     /* pipeline sends as Megatron-LM before Megatron-Core ran
                                   * them (--scatter-gather-tensors-in-pipeline, on by
                                   * default there; Narayanan et al. SC'21 sec. 4.1): without
                                   * SP each TP rank sends 1/tp of the boundary activation
                                   * and the receiver all-gathers it over the TP group
                                   * (plan/program.c pp_recv_gather); 0: the whole
                                   * activation per rank (Megatron-Core); -1 the stack's
                                   * (the megatron-lm-2021 stack's is on) */
  int      grad_accum_upcast;     /* ZeRO-2 with per-step sync over several micro-batches:
                                   * 1 after each micro-batch's backward of a layer its
                                   * unsharded bf16 gradients are copied up to fp32 (the
                                   * first) or added into the fp32 sum (the later ones), a
                                   * pass on the compute stream (FSDP2's
                                   * to_accumulated_grad_if_needed /
                                   * accumulate_unsharded_grad_if_needed); 0 accumulated
                                   * by the GEMMs (Megatron's gradient-accumulation
                                   * fusion); -1 the stack's */
  int      zero3_copy_in_out;     /* ZeRO-3: 1 each layer gather is copied out of the
                                   * all-gather buffer into the parameters, and each
                                   * gradient reduce-scatter's input copied in (cast to the
                                   * reduce dtype), on the compute stream (FSDP2's
                                   * foreach_all_gather_copy_out and
                                   * foreach_reduce_scatter_copy_in); 0 the collectives
                                   * work on the parameters' own flat buffers; -1 the
                                   * stack's */
  int      zero3_grad_copy_in;    /* ZeRO-3 without gradient-accumulation fusion (the
                                   * weight-gradient GEMMs write param.grad, not the
                                   * reduce-scatter bucket): 1 after each micro-batch's
                                   * backward of a layer its bf16 gradients are copied into
                                   * the bucket (in the reduce dtype) on the compute stream
                                   * before the reduce-scatter (Megatron-FSDP
                                   * megatron_fsdp.py _grad_acc: main_grad.copy_(param.grad)),
                                   * the copy-in of zero3_copy_in_out without its copy-out;
                                   * 0 or -1 none */
  int      fsdp_fp32_shards;      /* ZeRO-3 / HSDP: 1 the parameter shards are fp32 and
                                   * the optimizer's master (FSDP with a mixed-precision
                                   * policy: 4 + 4 + 8 B a parameter over the shards);
                                   * 0 compute-dtype shards beside an fp32 master in the
                                   * optimizer (DeepSpeed, Megatron-FSDP: 2 + 4 + 12);
                                   * -1 the stack's */
  int      zero2_reduce_passes;   /* ZeRO-2 with per-micro-batch sync (zero2_grad_sync 1):
                                   * 1 before each reduce-scatter of a layer's (the
                                   * embedding's, the head's) unsharded gradient, PyTorch
                                   * FSDP1's passes over it: the cast to the gradient
                                   * dtype where the parameters are narrower
                                   * (_post_backward_hook) and the division by the
                                   * gradient pre-divide factor (_reduce_grad), on the
                                   * compute stream; 0 none (Megatron's and DeepSpeed's
                                   * buckets are filled in the reduce dtype by the GEMMs);
                                   * -1 the stack's */
  int      cp_ring_merge;         /* CP as PyTorch's context_parallel runs it
                                   * (_templated_ring_attention): 1 the attention runs as
                                   * the c ring steps even with all-gathered K/V, each
                                   * step's output merged into an fp32 running output and
                                   * K/V gradients summed in fp32 (passes on the compute
                                   * stream); 0 the exchange's own shape; -1 the stack's */
  int      cp_kv_repeated;        /* CP moves and sums K/V at the query heads (the model
                                   * repeats them before SDPA: torchtitan's repeat_kv);
                                   * 0 at n_kv_heads; -1 the stack's */
  int      fp8_moe_act_input;     /* FP8 plans: the MoE experts' SwiGLU input saved for the
                                   * backward in FP8 with 1x128 tile scales (1); in bf16
                                   * (0, Transformer Engine); -1 the stack's */
  int      fp8_attn_out_e5m6;     /* FP8 plans: the out-projection's input saved in E5M6
                                   * with 1x128 tile scales (1); as its FP8 GEMM copy (0);
                                   * -1 the stack's */
  int      fp8_attention;         /* FP8 plans: the attention core runs in FP8 too (1:
                                   * Transformer Engine's fp8 DPA, whose FP8 output is the
                                   * tensor the out-projection saves); 0 a bf16 core, which
                                   * keeps its bf16 output for its own backward beside the
                                   * out-projection's FP8 copy; -1 the stack's */
  int      fp8_moe_dispatch;      /* FP8 plans: the dispatch all-to-all (and the combine's
                                   * backward) carry FP8 tokens with 1x128 tile scales (1);
                                   * bf16 (0); -1 the stack's */
  int      pp_free_stage_input;   /* pipeline parallelism: 1 each stage's received input is
                                   * deallocated after the stage's forward, so a unit in
                                   * flight stores one activation of the stage boundary
                                   * (a T h, /t with SP) less (plan/memory.c); 0 it stays
                                   * stored as the first norm's input; -1 the stack's */
  int      remat_named;           /* selective recompute: 1 only the layer input, Q, K, V
                                   * and the out-projection output are stored, the rest
                                   * re-run (JAX checkpoint policies that name them:
                                   * plan/memory.c); 0 Megatron-Core's selective set;
                                   * -1 the stack's */
  int      swiglu_eager_saves;    /* 1 the SwiGLU runs as eager ops that keep silu's output
                                   * too (a T f / t more a layer: torchtitan's
                                   * w2(F.silu(w1(x)) * w3(x)) without --compile); 0 a
                                   * fused SwiGLU; -1 the stack's */
  int      pp_keep_stage_output;  /* pipeline parallelism: 1 each unit keeps its stage's
                                   * output (a T h, /t with SP) until its backward, as
                                   * torch.distributed.pipelining's fwd_cache does; 0 it is
                                   * freed once sent (Megatron-Core's
                                   * deallocate_pipeline_outputs); -1 the stack's */
  int      loss_eager;            /* the cross entropy as eager PyTorch ops on fp32 logits
                                   * (F.cross_entropy of logits.float()): 1 its backward
                                   * allocates the nll gradient and log_softmax's input
                                   * gradient, each T x V/t fp32, beside the saved
                                   * log-probabilities (plan/memory.c); 0 a fused loss
                                   * that writes its gradient into the saved softmax
                                   * (Megatron's vocab-parallel cross entropy); -1 the
                                   * stack's */
  int      dp_given;             /* --dp as typed (checked against the derived dp); 0 = none */
  /* A plan file's derived counts, as tandem writes them (plan_to_json): checked against
   * what the plan derives by plan_resolve, which then clears them (a copy changed after
   * it, as the fit suggestions' are, is not held to them); any degree or batch flag given
   * after the file clears them too (plan-args.c), since the flag changes what they were
   * derived from. 0 = none. */
  int      dp_file;              /* parallelism.data_parallel_degree */
  guint    written_defaults;     /* PLAN_WRITTEN_*: values a plan file tandem wrote holds
                                  * that were only defaults derived from its other keys
                                  * (expert TP = tp, the micro-batch group = pp, the
                                  * interleaved schedule of vpp > 1, one recomputed layer):
                                  * a flag after --plan that changes what they derive from
                                  * drops them (plan_release_written_defaults), so the file
                                  * plus flags give the plan the flags alone give */
  int      dp_titan;             /* TorchTitan's data_parallel_shard_degree x
                                  * data_parallel_replicate_degree where the shard degree
                                  * is a count (not -1): its world is dp_titan x tp x pp x
                                  * cp (it asserts so); ignored before, the file's 4 read
                                  * as the 8 the world gave */
  gboolean dp_titan_replicate;   /* dp_titan is a data_parallel_replicate_degree given
                                  * without a shard degree (DDP over its ranks): the file's
                                  * 3 read as DDP over the 4 the world gave */
  gboolean pps_file;             /* pp_schedules came from a file tandem wrote (a "summary"
                                  * key), derived there from its local batch: dropped with
                                  * the counts above */
  int      edp_given;            /* parallelism.expert_data_parallel_degree */
  int      grad_accum_given;     /* training.gradient_accumulation_steps */

  char *rank_order;              /* "tp-cp-ep-dp-pp" innermost first (Megatron default) */

  /* mixture of experts (Megatron-Core spellings). The expert side folds onto the same
   * ranks as the dense side (MoE parallel folding): per pipeline stage, etp x ep x edp
   * = tp x cp x dp ranks. */
  int      num_experts;          /* --num-experts: 0 = the model's; on a dense model it
                                  * makes every MLP an MoE of that many copies (Megatron) */
  int      moe_topk;             /* --moe-router-topk: 0 = the model's, else 2 (Megatron) */
  int      etp;                  /* --expert-tensor-parallel-size: 0 = tp (Megatron) */
  int      edp;                  /* derived: tp cp dp / (etp ep) */
  PlanMoeDispatcher moe_dispatcher;   /* default alltoall */
  PlanMoeFlexBackend moe_flex_backend; /* --moe-flex-dispatcher-backend: default deepep */
  double   moe_capacity_factor;  /* --moe-expert-capacity-factor; 0 = dropless (default) */
  gboolean moe_pad_to_capacity;  /* --moe-pad-expert-input-to-capacity: with a capacity
                                  * factor, every local expert runs exactly its capacity
                                  * (Megatron-Core drop_and_pad): its token counts are host
                                  * constants, so the dispatcher does not sync the host */
  gboolean moe_grouped_gemm;     /* --moe-grouped-gemm: one grouped kernel for the local
                                  * experts; else one GEMM per expert (SequentialMLP) */
  gboolean moe_shared_expert_overlap; /* --moe-shared-expert-overlap: the shared expert
                                  * computes while the dispatch all-to-all runs */
  guint    moe_recompute;        /* --recompute-modules but core_attn: PLAN_MOE_RECOMPUTE_* */
  gboolean moe_a2a_overlap;      /* --overlap-moe-expert-parallel-comm: the EP all-to-all
                                  * of one micro-batch hidden behind another's compute
                                  * (Megatron-Core 0.14+ 1F1B A2A overlap) */
  double   moe_imbalance;        /* --moe-imbalance: busiest EP rank's routed tokens / mean;
                                  * 0 = PLAN_MOE_IMBALANCE_DEFAULT */
  gboolean moe_imbalance_typed;  /* given as a flag: checked against what routing can give
                                  * even at the default's value (a plan file's default is
                                  * capped, plan_to_json writing it for every MoE plan) */
  PlanCudaGraphImpl cuda_graph_impl; /* --cuda-graph-impl */
  guint    cuda_graph_scope;     /* --cuda-graph-scope: PLAN_CG_* bits; 0 with an impl =
                                  * Megatron-Core's default, the whole layer */
} Plan;

/* Default --moe-imbalance: the busiest EP rank receives 1.3x the mean routed tokens (the
 * sum over its local experts, per micro-batch and MoE layer). In a dropless step every
 * rank waits for that rank at each all-to-all and the grouped GEMM in between, so the
 * rank-level ratio, not one expert's, sets the pace. Sources, both per-rank measurements
 * on learned routing: GLM-5's MoE layers in training (128 experts, EP 8: 16 per rank, no
 * auxiliary loss, H100) lose 18.6% of the GPU time per MoE layer waiting for the slowest rank, a
 * busiest-rank ratio of 1 / (1 - 0.186) = 1.23 (Qi, Liu, Zhao 2026, "FEPLB", arXiv
 * 2604.19654, Fig. 1b); MoE models of 106B-671B in training and prefill measure an
 * inter-rank imbalance (max / mean rank load) of 1.30-4.01 without rebalancing (Wei et al.
 * 2026, "UltraEP", arXiv 2606.04101 v1, abstract; v2 withdrawn). 1.3 is the low end of that
 * range, for a model trained with a balancing loss. 1.0 is perfect balance (Megatron's
 * --moe-router-force-load-balancing); pass your own from the router's per-rank counts. */
#define PLAN_MOE_IMBALANCE_DEFAULT 1.3
/* The largest busiest-rank / mean ratio routing can produce: ep x min(k, E / ep) / k (every
 * token sends min(k, E / ep) copies to the one rank); 1 at ep 1. The default is capped to
 * it, and a larger --moe-imbalance is refused. */
double plan_moe_imbalance_max (int ep, int experts, int top_k);
#define PLAN_MOE_TOPK_DEFAULT      2      /* Megatron --moe-router-topk default */

/* The MoE shape a resolved plan runs: the model's, overridden by the plan's flags. */
typedef struct {
  int     experts;        /* routed experts E; 0 = dense model */
  int     top_k;          /* experts per token */
  guint64 expert_ffn;     /* inner size of one routed expert */
  guint64 shared_ffn;     /* inner size of the shared expert(s) together; 0 = none */
  int     first_dense;    /* leading layers with a dense MLP (DeepSeek first_k_dense) */
  int     layer_step;     /* after them every step-th layer is MoE (Llama 4 Maverick: 2) */
  double  imbalance;      /* busiest EP rank's routed tokens / mean, after the capacity cap */
} PlanMoe;

/* Fills `out` (experts 0 for a dense model). */
void     plan_moe (const Plan *plan, const ModelSpec *model, PlanMoe *out);
/* The model as the plan runs it: a dense model turned MoE by --num-experts (each expert
 * its MLP, Megatron's --moe-ffn-hidden-size default; a softmax router, top-k
 * renormalised), or an MoE one given another expert count or top-k (--num-experts,
 * --moe-router-topk), as a private copy replacing *model (unreffed); *model unchanged
 * where the plan changes nothing. The step was simulated with the plan's experts
 * (plan_moe) while the FLOP counts, MFU, parameter counts and the MoE-only rules read the
 * dense spec: Mistral 7B with 8 experts top 2, Mixtral 8x7B's shape, ran at Mixtral's
 * step time with 241 TFLOP/s per GPU against Mixtral's 407. FALSE with
 * PLAN_ERROR_INVALID where the experts are out of the model's limits. */
gboolean plan_model_apply_moe (const Plan *plan, ModelSpec **model, GError **error);
/* The flag of a mixture-of-experts option the plan sets (the dispatcher or its backend
 * other than the defaults, a capacity factor, padding, grouped GEMM, either MoE overlap,
 * an imbalance), NULL when none: a dense model refuses them (plan_resolve; the search
 * once, before enumerating). */
const char *plan_moe_option_flag (const Plan *plan);
/* Token drop and pad in effect: --moe-pad-expert-input-to-capacity with a capacity factor
 * (every expert runs its capacity; the dispatcher takes no host sync). */
gboolean plan_moe_padded (const Plan *plan);
/* Whether layer `layer` (global index) has an MoE MLP. */
gboolean plan_moe_layer (const PlanMoe *moe, int layer);
/* Megatron-Core's --recompute-modules (megatron/core/transformer/transformer_config.py
 * recompute_modules, with --recompute-granularity selective) but core_attn, which sets
 * plan->recompute = PLAN_RECOMPUTE_SELECTIVE. Bits of plan->moe_recompute:
 *  moe_act      the experts' activation is recomputed from the fc1 output (its output,
 *               the fc2 input, is not kept);
 *  moe          the whole MoE MLP (router, dispatch, experts, combine) is checkpointed and
 *               its forward runs again before its backward;
 *  layernorm    the output of every norm that is a module of its own is dropped and the
 *               norm re-run before the backward of its consumer (transformer_layer.py: a
 *               norm fused into Transformer Engine's LayerNormLinear is an IdentityOp and
 *               is not recomputed; the pre-MLP norm of an MoE layer and the input norm of
 *               MLA attention are separate modules);
 *  mla_up_proj  MLA's up projections (q_up, kv_up) and the rotary embedding are
 *               checkpointed from the compressed latents; their outputs Q, K, V are freed
 *               after the attention core's forward and rebuilt before its backward
 *               (multi_latent_attention.py, CheckpointWithoutOutput); no effect without MLA;
 *  mlp          the MLP of a dense layer is checkpointed from its input (MoE layers: moe);
 *  shared_experts  the shared experts of an MoE layer are checkpointed from their input. */
#define PLAN_MOE_RECOMPUTE_ACT       1u
#define PLAN_MOE_RECOMPUTE_LAYER     2u
#define PLAN_MOE_RECOMPUTE_LAYERNORM 4u
#define PLAN_MOE_RECOMPUTE_MLA_UP    8u
#define PLAN_MOE_RECOMPUTE_MLP       16u
#define PLAN_MOE_RECOMPUTE_SHARED    32u
/* Reads a --recompute-modules list (names separated by commas or spaces): core_attn sets
 * selective recompute, the others set their plan->moe_recompute bit. A name that is not
 * one of Megatron-Core's seven is a PLAN_ERROR_USAGE error naming them. */
gboolean plan_recompute_modules_parse (const char *list, Plan *plan, GError **error);
/* The --recompute-modules names of plan->moe_recompute, comma-separated ("" for none);
 * g_free it. */
char    *plan_recompute_modules_string (const Plan *plan);
const char *plan_moe_dispatcher_name (PlanMoeDispatcher d);
/* Reads a --cuda-graph-scope list (Megatron's names, separated by commas or spaces: attn,
 * mlp, moe, moe_router, moe_preprocess, full_iteration) into plan->cuda_graph_scope. */
gboolean plan_cuda_graph_scope_parse (const char *list, Plan *plan, GError **error);
/* TRUE when the plan's CUDA graphs capture its MoE layers (scope moe, the default whole
 * layer, or full_iteration): their host work is one graph launch. */
gboolean plan_cuda_graph_moe (const Plan *plan);
/* TRUE when Transformer Engine CUDA graphs capture the MoE router (scope moe_router, with or
 * without moe_preprocess) but not the whole layer: the router's host work, and with
 * moe_preprocess the dispatcher preprocess's, replay as one graph (sim/cost.c) */
gboolean plan_cuda_graph_moe_router (const Plan *plan);
const char *plan_cuda_graph_impl_name (PlanCudaGraphImpl impl);
/* The scope bits as a --cuda-graph-scope list ("" for none); g_free it. */
char *plan_cuda_graph_scope_string (guint scope);
/* Parameters (elements, whole, before any split) of one routed expert (the model's MLP
 * kind at expert_ffn: 3 h f for SwiGLU, 2 h f for GeLU, with biases when the model has
 * them), of the router (E x h) and of the shared experts of one MoE layer. */
double plan_moe_expert_params (const ModelSpec *model, const PlanMoe *moe);
double plan_moe_router_params (const ModelSpec *model, const PlanMoe *moe);
double plan_moe_shared_params (const ModelSpec *model, const PlanMoe *moe);
/* The token mixer of layer `layer`: its attention, or in a Gated DeltaNet hybrid's linear
 * layers the GDN mixer (ModelParams.linear_attention_per_layer); `mean` over all layers
 * (layer < 0). Whole model, before any split. */
double plan_layer_mixer_params (const ModelSpec *model, int layer);
/* Of a layer's mixer, the elements every TP rank holds whole (multi-head latent
 * attention's down projections and latent norms; 0 for other models). */
double plan_mixer_tp_replicated (const ModelSpec *model);
/* Per-rank parameters of layer `layer`: `dense` (attention or GDN mixer, norms, dense MLP or router
 * and shared experts; split by tp where Megatron splits them) and `expert` (this rank's
 * E / ep routed experts, split by etp; 0 for a dense layer). */
void   plan_layer_params_local (const Plan *plan, const ModelSpec *model, const PlanMoe *moe,
                                int layer, double *dense, double *expert);
/* Per-rank parameters of one multi-token-prediction module (mtp_num_layers; Megatron-Core
 * multi_token_prediction.py MultiTokenPredictionLayer): its transformer layer, built from
 * the decoder's last layer spec (so plan_layer_params_local of layer n_layers - 1), the
 * enorm, hnorm and final_layernorm (h each, replicated) and the eh_proj 2h -> h
 * (column-parallel, split by tp). The embedding and output head it shares are not in it. */
void   plan_mtp_params_local (const Plan *plan, const ModelSpec *model, const PlanMoe *moe,
                              double *dense, double *expert);  /* "alltoall", "allgather", "flex" */

/* Bytes of one DP gradient bucket: bucket_elements in the plan's gradient dtype, or the
 * plan file's bucket_bytes. */
double   plan_bucket_bytes  (const Plan *plan);
void     plan_init_defaults (Plan *plan);
void     plan_clear         (Plan *plan);              /* frees rank_order; NULL-safe */
void     plan_copy          (Plan *dst, const Plan *src);

/* Parse Megatron-style flags (and short aliases) out of argv, leaving what it does not
 * know in argv for the caller (who reports it). Also handles --plan FILE (plan JSON with
 * TorchTitan keys), --model, --cluster, --gpus/--world-size, whose values go to
 * model_name, cluster_name (g_free'd by caller). Returns FALSE with PLAN_ERROR_USAGE on a
 * bad value. */
typedef struct {
  char *model_name;     /* --model, default "llama3-405b" set by caller if NULL */
  char *cluster_name;   /* --cluster */
  char *plan_file;      /* --plan */
} PlanArgs;
GOptionGroup *plan_option_group_new (Plan *plan, PlanArgs *args);
/* The same flags as a NULL-terminated entry table, to read their names and which take a
 * value (GLib keeps a group's entries to itself); never parse with it. */
const GOptionEntry *plan_option_entries (void);
void          plan_args_clear       (PlanArgs *args);

/* Plan JSON with TorchTitan key names (parallelism.*, training.*, activation_checkpoint.*).
 * Overwrites the fields it names. */
gboolean plan_load_json (Plan *plan, const char *path, GError **error);
gboolean plan_load_json_data (Plan *plan, const char *text, gssize len, const char *source,
                              GError **error);

/* A TorchTitan job TOML (plan/plan-toml.c): the subset of TOML its configs use, the plan
 * read from [parallelism], [training], [activation_checkpoint] and [float8] with the
 * names plan_load_json takes; other TorchTitan sections skipped, anything else refused.
 * plan_toml_parse alone turns the text into a JSON object of sections (for tests and the
 * fuzzer). `--plan FILE` reads FILE as TOML when its name ends in .toml. */
gboolean plan_load_toml (Plan *plan, const char *path, GError **error);
gboolean plan_load_toml_data (Plan *plan, const char *text, gssize len, const char *source,
                              GError **error);
struct _JsonNode;
gboolean plan_toml_parse (const char *text, gssize len, const char *source,
                          struct _JsonNode **out, GError **error);

/* Derive dp / grad_accum / defaults and validate against model and cluster. */
gboolean plan_resolve (Plan *plan, const ModelSpec *model, const TopoCluster *cluster,
                       GError **error);

/* Layers held by pipeline rank `stage` (all its virtual chunks), and by chunk `chunk`
 * (0..vpp-1) of that rank. Model chunk index = chunk * pp + stage (Megatron). */
int plan_stage_layers (const Plan *plan, const ModelSpec *model, int stage);
/* The model chunks a pipeline rank holds: vpp, or 2 under DualPipe (DeepSeek-V3 report
 * Sec. 3.2.1; deepseek-ai/DualPipe: rank r holds stage r of the forward direction and
 * stage pp - 1 - r of the reverse one, the model's parameters twice over the pipeline). */
int plan_rank_chunks (const Plan *plan);
/* DualPipe's counts (deepseek-ai/DualPipe, DualPipe.step: "num_ranks % 2 == 0" and
 * "num_chunks % 2 == 0 and num_chunks >= num_ranks * 2"): an even pp of at least 2 and an
 * even number of at least 2 pp micro-batches per step. The one rule validation, the
 * published-run mapping and the memory walk share. */
gboolean plan_dualpipe_pp_ok (int pp);
gboolean plan_dualpipe_counts_ok (int pp, int microbatches);
/* The model chunk of a rank's chunk c: c x pp + stage (Megatron's interleaved numbering),
 * or under DualPipe stage (c = 0, the forward direction) and pp - 1 - stage (c = 1). */
int plan_model_chunk (const Plan *plan, int stage, int chunk);
/* The rank that runs model chunk mc as its chunk c (the inverse of plan_model_chunk). */
int plan_model_chunk_stage (const Plan *plan, int model_chunk, int chunk);
int plan_chunk_layers (const Plan *plan, const ModelSpec *model, int stage, int chunk);
/* Index of the first layer of (stage, chunk) in the whole model. */
int plan_chunk_first_layer (const Plan *plan, const ModelSpec *model, int stage, int chunk);

/* The interleaved schedule's micro-batch group size: vpp_group, or pp when unset. */
int plan_vpp_group (const Plan *plan);
/* pp_schedules, at least 1; 1 without a pipeline (pp 1: no schedule to repeat). */
int plan_pp_schedules (const Plan *plan);
/* A schedule Megatron-Core runs as combined 1F1B under --overlap-moe-expert-parallel-comm:
 * PP 1 (combined_1f1b_schedule_for_no_pipelining) or interleaved with V > 1
 * ("pipeline_model_parallel_size > 1 requires virtual pipeline parallelism",
 * moe_a2a_overlap.md). */
gboolean plan_moe_a2a_combined_schedule (const Plan *plan);
/* The plan asks for that overlap and its step of m micro-batches pairs forward and backward
 * units (one more forward in the warm-up): a combined schedule, and with PP > 1 at least
 * 2 pp - 1 micro-batches (below, the first stage's warm-up would exceed its step; the
 * step runs unpaired, plan/program.c). plan/program.c and plan_memory_inflight use it. */
gboolean plan_moe_a2a_pairs (const Plan *plan, int m);
/* How the interleaved schedule groups m micro-batches with group size n on pp stages:
 * groups of n in order; a remainder r = m mod n of 0 < r < pp is not a group of its own
 * but joins the group before it (n + r micro-batches). Megatron-Core refuses such counts
 * ("the remainder of M divided by N should be 0, or larger than or equal to the
 * pipeline-parallel size"): a group shorter than pp would need a micro-batch back on its
 * rank before it has passed every rank, which deadlocks the rank's 1F1B order. Returns the
 * number of groups and stores the size of the last in *last (m < n: one group of m). */
int plan_vpp_group_split (int pp, int m, int n, int *last);
/* The group size the interleaved warm-up counts, (v - 1) x this chunk-forwards: n, or m
 * when the remainder joined the only group (m in n+1 .. n+pp-1). */
int plan_vpp_warmup_group (int pp, int m, int n);
/* The k-th forward (or backward) unit of a rank in the interleaved schedule of v chunks,
 * m micro-batches in groups of n on pp stages (Megatron-Core's schedule table,
 * get_schedule_table: a group's micro-batches go through chunk 0, then chunk 1, ...;
 * backwards visit the chunks in reverse): returns the chunk and stores the micro-batch
 * in *mb (NULL: not stored). */
int plan_vpp_unit (int pp, int v, int m, int n, int k, gboolean backward, int *mb);
/* The same with the group split given (n >= 1, v >= 1, n_groups and last from
 * plan_vpp_group_split), for a caller that asks about every unit of a rank (the
 * interleaved schedule's build: the split once rather than per unit). */
static inline int
plan_vpp_unit_split (int v, int n, int n_groups, int last, int k, gboolean backward, int *mb)
{
  int group = MIN (k / (n * v), n_groups - 1);
  int g = group == n_groups - 1 ? last : n;
  int in_group = k - group * n * v;
  int c = in_group / g;
  if (mb != NULL)
    *mb = group * n + in_group % g;
  return backward ? v - 1 - c : c;
}

/* Canonical short string, e.g. "tp8-cp1-pp16-vpp1-dp128-mbs1-gbs2048-none-1F1B". */
char *plan_to_string (const Plan *plan);
/* JSON object of the resolved plan (TorchTitan key names plus derived fields). */
struct _JsonBuilder;
void  plan_to_json   (const Plan *plan, struct _JsonBuilder *builder);

const char *plan_schedule_name  (PlanSchedule s);      /* "GPipe", "1F1B", "Interleaved1F1B" */
const char *plan_sharding_name  (PlanSharding s);      /* "none", "zero1", ... */
const char *plan_cp_comm_name   (PlanCpComm c);        /* "p2p", "all_gather", "a2a" */
const char *plan_attn_backend_name (PlanAttnBackend a); /* "flash", "unfused" */
const char *plan_recompute_name (PlanRecompute r);
const char *plan_matmul_precision_name (PlanMatmulPrecision m); /* "highest", "high", "medium" */
gboolean    plan_matmul_precision_parse (const char *name, PlanMatmulPrecision *out);     /* "none", "selective", "full" */
const char *plan_precision_name (PlanPrecision p);     /* "fp32", "bf16", "fp16", "fp8" */
/* --fp8-recipe: "delayed", "tensorwise" (also "current", "fp8-cs", "fp8cs"), "mxfp8"
 * (also "fp8-mx", "fp8mx"), "blockwise" (also "fp8-sc", "fp8sc") or "rowwise",
 * case-insensitive -> a FwScaling; FALSE for anything else. The name of a recipe:
 * "delayed", "tensorwise", "mxfp8", "blockwise", "rowwise"; "stack" for -1. */
gboolean    plan_fp8_recipe_parse (const char *text, int *out);
const char *plan_fp8_recipe_name (int recipe);
guint       plan_precision_bytes (PlanPrecision p);    /* 4, 2, 2, 1 */

/* Shards over which parameters / gradients / optimizer states are split (1 = replicated
 * on every DP rank). */
/* Are the linear weights held in fp8 (fp8_param_gather set, FP8 GEMMs with a per-tensor
 * recipe, the model replicated or ZeRO-1/2)? */
gboolean plan_fp8_params (const Plan *plan);
/* The stack's FP8 weights where the plan leaves them unset (fp8_param_gather -1):
 * `stack_on` the stack's fp8.param_gather, `stack_scaling` its FP8 recipe (the plan's own
 * where it names one). Sets 1 only where they apply (FP8 GEMMs, delayed or current
 * scaling), so that a plan the stack leaves alone writes no key (plan_to_json). */
void plan_fill_fp8_param_gather (Plan *plan, gboolean stack_on, int stack_scaling);
int plan_param_shards (const Plan *plan);
int plan_grad_shards  (const Plan *plan);
int plan_optim_shards (const Plan *plan);

/* The options a run turns on that its software stack must offer (docs/contracts.md: a
 * stack refuses an option it does not offer): --compile where the stack has no compiled
 * mode, --async-tp where it has no async TP or without --compile (TorchTitan raises
 * then), --sharding hsdp where it has no HSDP (the search leaves HSDP out of such a
 * stack's space), --moe-shared-expert-overlap and --overlap-moe-expert-parallel-comm where the
 * stack has none, and the latter with pp > 1 but no virtual stages where the stack makes
 * it optional (Megatron-Core asserts it). PLAN_ERROR_USAGE naming the flag and the
 * stack, with a hint. `tandem predict` and every candidate of `tandem search` go
 * through it, so the search never ranks a plan that predict refuses. */
/* Megatron's default rank order replaced by the stack's own where the stack lays ranks out
 * one way only and the user gave none (Meta's [TP, CP, PP, DP]: --framework meta-llama3
 * predicts in its layout without --rank-order); an order given is left for
 * plan_check_stack to judge. */
void     plan_apply_stack_rank_order (Plan *plan, const FwStack *stack);
/* Recompute flags as given, before plan_resolve: --recompute-method block or
 * --recompute-num-layers without --recompute-granularity full change nothing (Megatron-LM
 * refuses a method with selective granularity), so they are refused (PLAN_ERROR_INVALID)
 * instead of passing without a word. Not part of plan_resolve, which also sees plans a
 * caller derived from a resolved one (search candidates, verify's reference). */
gboolean plan_check_recompute_flags (const Plan *plan, GError **error);
gboolean plan_check_stack (const Plan *plan, const FwStack *stack, GError **error);
/* What a stack refuses that needs the model: Ulysses (a2a) CP on a stack whose all-to-all
 * attention splits the KV heads and does not repeat them (FwStack cp_a2a_kv_divide:
 * Transformer Engine) with a degree that does not divide the KV heads of a TP rank
 * (PLAN_ERROR_INVALID with a hint). predict, plan, report and every search candidate go
 * through it after plan_check_stack. */
gboolean plan_check_stack_model (const Plan *plan, const ModelSpec *model,
                                 const FwStack *stack, GError **error);

/* The plan's precision on the cluster's device, part of plan_resolve: FP8, BF16, NVFP4
 * and MXFP8 need the chip's tensor cores, and the GEMMs' dtype (fp16; fp32 on FP32, TF32
 * or BF16 units by --fp32-matmul-precision) a peak in the preset. A --fp8-recipe needs an
 * FP8 plan. PLAN_ERROR_INVALID with a hint. `tandem search` checks its base plan with it
 * once: a precision the device lacks holds for every candidate (exit 2). */
gboolean plan_check_precision (const Plan *plan, const TopoCluster *cluster, GError **error);
/* The dtype the plan's GEMMs run in: the compute dtype, except fp32 plans multiplying on
 * TF32 (--fp32-matmul-precision high) or BF16 (medium) tensor cores. */
TopoDtype plan_gemm_dtype (const Plan *plan);

/* The MoE overlaps a stack runs in every run with expert parallelism (hai-llm's DualPipe:
 * FW_OPT_DEFAULT) turned on in the plan, as predict and each search candidate do. */
void plan_apply_stack_moe (Plan *plan, const FwStack *stack);
/* A user's fixed plan taken under `stack` as predict takes it: the stack's rank order
 * (plan_apply_stack_rank_order), then plan_check_stack (FALSE with its error: refused),
 * then the MoE overlaps it always runs (plan_apply_stack_moe). predict and report
 * scaling's fixed plan go through it. */
gboolean plan_adopt_stack (Plan *plan, const FwStack *stack, GError **error);
/* plan_adopt_stack on a resolved plan, resolved again where the stack chose its schedule
 * or sharding (one the plan did not name: hai-llm's DualPipe, an FSDP-only stack's
 * zero3). */
char    *plan_ulysses_message_for_stack (const char *message, const FwStack *stack);
gboolean plan_adopt_stack_resolve (Plan *plan, const FwStack *stack, const ModelSpec *model,
                                   const TopoCluster *cluster, GError **error);
/* The refusal of a plan whose expert layout does not fold onto the one rank order `stack`
 * lays ranks out in (plan->rank_order): it names the stack and hints at --pp 1 or another
 * stack, where the generic fold error hints at a --rank-order the stack does not offer. */
void     plan_stack_fold_error (const Plan *plan, const FwStack *stack, GError **error);
/* The expert layout folds onto the ranks under the plan's rank order (every rank on the
 * same pipeline stage in the dense tp x cp x dp and expert etp x ep x edp decompositions):
 * plan_resolve checks it; a rank order taken from the stack after resolving is checked
 * here (FALSE with PLAN_ERROR_INVALID). A dense or unresolved plan passes. */
gboolean plan_check_fold (const Plan *plan, GError **error);
enum { PLAN_WRITTEN_ETP = 1, PLAN_WRITTEN_VPP_GROUP = 2, PLAN_WRITTEN_SCHEDULE = 4,
       PLAN_WRITTEN_RECOMPUTE_LAYERS = 8 };
/* The option `name` (without "--") given after a plan file tandem wrote: drops the
 * defaults of plan->written_defaults that it changes the source of (--tp: expert TP;
 * --pp or --vpp: the micro-batch group; --vpp: the schedule; --recompute-granularity: the number
 * of recomputed layers). */
void plan_release_written_defaults (Plan *plan, const char *name);
/* Drops a plan file's derived counts (dp_file, edp_given, grad_accum_given): once checked
 * (plan_resolve), or when what they were derived from changes (a degree or batch flag after
 * the file, another size in report scaling); with `schedules`, its derived schedules a step
 * too (pps_file). */
void     plan_drop_file_counts (Plan *plan, gboolean schedules);

G_END_DECLS
