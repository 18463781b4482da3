/* frameworks/stack.h - a software stack: what a training framework does on any device.
 *
 * Contract:
 *  - A stack carries software only (docs/contracts.md, "Plan option or framework stack"):
 *    the attention kernel class, how far element-wise work is fused, the cost of one
 *    kernel as the framework issues it, which overlaps exist and their defaults, FSDP
 *    semantics, the FP8 recipe as implemented, the gradient reduce dtype, and the
 *    defaults for plan options a config does not state. Hardware lives in topology/.
 *  - Stacks are JSON files (format in frameworks/presets/README.md); the presets are
 *    compiled in as GResources and looked up by name (fw_stack_lookup). Every figure of
 *    a preset carries its source in "sources".
 *  - A FwStack is immutable once loaded and shared through ref/unref. Loading never
 *    prints; failures are FW_ERROR GErrors naming the file and the field.
 *  - This module depends on nothing but GLib and json-glib (the arrows: frameworks <-
 *    plan <- sim), so its enums are its own. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FW_ERROR (fw_error_quark ())
GQuark fw_error_quark (void);

typedef enum {
  FW_ERROR_NOT_FOUND,      /* no such preset or file */
  FW_ERROR_PARSE,          /* not JSON */
  FW_ERROR_INVALID_FIELD,  /* unknown key, wrong type, out of range */
} FwError;

/* The attention kernel a stack runs for causal training attention. */
typedef enum {
  FW_ATTN_CUDNN,     /* cuDNN fused attention through Transformer Engine */
  FW_ATTN_FLASH3,    /* FlashAttention-3 (Hopper and later) */
  FW_ATTN_FLASH2,    /* FlashAttention-2, also PyTorch SDPA's flash backend */
  FW_ATTN_TRITON,    /* Triton flash kernels (MosaicML's triton attention, xformers) */
  FW_ATTN_XLA,       /* XLA / Pallas flash attention (JAX) */
  FW_ATTN_UNFUSED,   /* scores materialized (Megatron's fused softmax over QK^T) */
  FW_ATTN_N,
} FwAttnKernel;

/* How far element-wise work (norms, activations, bias, dropout, residual) is fused. */
typedef enum {
  FW_FUSION_FUSED,     /* hand-written fused kernels (TE, Apex): one pass per op */
  FW_FUSION_COMPILED,  /* torch.compile / XLA fusion: one pass per op */
  FW_FUSION_EAGER,     /* eager PyTorch: each op a chain of kernels */
  FW_FUSION_N,
} FwFusion;

/* Where a stack synchronizes the device after a pipeline exchange (0 is none, so the
 * field reads as a truth value: "synchronizes somewhere"). */
typedef enum {
  FW_P2P_SYNC_NONE,      /* each unit waits only for its input */
  FW_P2P_SYNC_1F1B,      /* after each exchange of the non-interleaved 1F1B (Megatron-Core's
                          * batch_p2p_sync; its interleaved schedule overlaps them) */
  FW_P2P_SYNC_EVERY,     /* after every exchange of either schedule (Megatron-LM's
                          * p2p_communication.py of 2020-2022: torch.cuda.synchronize in
                          * every _communicate) */
} FwP2pSync;

/* Whether an option exists in a stack and whether it is on by default. */
typedef enum {
  FW_OPT_NO,           /* not offered */
  FW_OPT_OPTIONAL,     /* offered, off unless a config turns it on */
  FW_OPT_DEFAULT,      /* offered and on by default */
} FwAvail;

/* Which ops an FP8 recipe runs in FP8. */
typedef enum {
  FW_FP8_NONE,               /* no FP8 training */
  FW_FP8_GEMM,               /* linear layers only; attention, softmax, norms in bf16 */
  FW_FP8_GEMM_ATTENTION,     /* also the attention core (TE's fp8 DPA) */
} FwFp8Ops;

typedef enum {
  FW_SCALING_DELAYED,    /* amax history, scale from the previous steps (TE default) */
  FW_SCALING_CURRENT,    /* per-tensor current scaling (tensorwise) */
  FW_SCALING_ROWWISE,    /* per-row scales (torchao rowwise) */
  FW_SCALING_BLOCK,      /* MX block scaling (MXFP8 / NVFP4, 32- or 16-element blocks) */
  FW_SCALING_BLOCKWISE,  /* FP32 scale per 1x128 activation/gradient block and per 128x128
                          * weight block (TE Float8BlockScaling, DeepSeek-V3's recipe) */
  FW_SCALING_N,
} FwScaling;

/* Sharding a stack uses when a config does not state one. Same order as PlanSharding's
 * first four (plan/plan.h) so plan/ can map it one to one. */
typedef enum {
  FW_SHARD_NONE,
  FW_SHARD_ZERO1,
  FW_SHARD_ZERO2,
  FW_SHARD_ZERO3,
} FwSharding;

/* How many pipeline micro-batches a stack runs when a config states neither the
 * micro-batch size nor their number. */
typedef enum {
  FW_PP_MB_ONE_SAMPLE,   /* micro-batches of one sample (the plan default) */
  FW_PP_MB_STAGES,       /* as many micro-batches as pipeline stages, pp x stages per rank
                          * (torchtitan's pipeline_parallel_microbatches default) */
} FwPpMicrobatches;

/* The host work one Megatron-style MoE layer issues per micro-batch, in ops (the stack's
 * "moe.host_ops"; the counts and their sources live in the stack file): eager framework
 * ops outside the experts' loops (attention, router, dispatcher, combine) per pass, and
 * per local expert the kernel launches of the grouped GEMMs' C++ loops and the eager ops
 * of their Python loops, with the extra FP8 quantize launches and weight-workspace calls.
 * The forward's sync splits it: the layer's ops before it (attention, router, the
 * dispatcher's counts) and those after it (permute, all-to-alls, the experts, combine). */
typedef struct {
  double layer_fwd, layer_bwd;
  double layer_fwd_after_sync;   /* of layer_fwd, those issued after the dispatcher's sync */
  double expert_launch_fwd, expert_launch_bwd;
  double expert_eager_fwd, expert_eager_bwd;
  double expert_fp8_launch;      /* per pass: quantize calls (their launches by recipe) */
  double expert_fp8_eager_fwd;
  /* Transformer Engine module forward calls, costed at their measured host time in place of
   * eager ops (sim/cost.c TE_MODULE_FWD_HOST_S): linear modules before the sync (QKV,
   * output projection), GroupedLinear modules after it (fc1, fc2) */
  double te_linear_fwd, te_grouped_fwd;
  /* of layer_fwd's eager ops before the sync, those a Transformer Engine CUDA graph of
   * scope moe_router (the router's) and moe_preprocess (the dispatcher preprocess's, its
   * copies to the host and the sync left out) replays in one call (sim/cost.c) */
  double router_fwd, preprocess_fwd_graphed;
} FwMoeHostOps;

typedef struct {
  int           ref;
  char         *name;
  char         *description;
  char         *source;                 /* "preset:NAME" or the file path */
  char         *file;                   /* a file's absolute path (the store keeps it:
                                         * fw_stack_stored_name); NULL for a preset */

  FwAttnKernel  attention;
  FwFusion      fusion;
  FwAvail       compile;                /* a compiled mode a run may turn on (--compile:
                                         * torch.compile); default when fusion is compiled */
  double        kernel_overhead_s;      /* host + launch cost of one kernel as issued */
  FwAvail       tp_comm_overlap;
  FwAvail       async_tp;
  double        tp_overlap_ag_sms;      /* SMs the stack's TP-comm overlap kernels hold
                                         * beside its GEMMs, all-gather and reduce-scatter
                                         * ("tp_overlap_sms"; -1 not stated: NCCL's) */
  double        tp_overlap_rs_sms;
  gboolean      pp_lockstep;            /* the interleaved pipeline schedule runs as a table
                                         * of time steps: a rank waits each step's sends and
                                         * receives before its next compute, so it moves in
                                         * lock step with its pipeline neighbours
                                         * ("pp_schedule_runtime": "lockstep"; else
                                         * "dataflow": a unit waits only for its input) */
  FwP2pSync     pp_p2p_sync;            /* the device synchronized after each batched
                                         * pipeline exchange (torch.cuda.synchronize after
                                         * batch_isend_irecv), so a stage's next unit waits
                                         * for all of its streams and the exchange: in the
                                         * non-interleaved 1F1B only (Megatron-Core
                                         * batch_p2p_sync: "pp_p2p_sync": "device"), in every
                                         * schedule (Megatron-LM before Megatron-Core:
                                         * "every_exchange"), or not ("none") */
  gboolean      pp_scatter_gather;      /* without SP each TP rank sends 1/tp of a pipeline
                                         * activation and the receiver all-gathers it over
                                         * TP (Megatron-LM before Megatron-Core,
                                         * --scatter-gather-tensors-in-pipeline on by
                                         * default; "pp_scatter_gather": true) */
  gboolean      tp_grad_rs_after_block; /* with TP-comm overlap, the backward's reduce-
                                         * scatter of a block's input gradient is issued
                                         * whole after the block (PyTorch async TP) instead
                                         * of in pieces with the block's GEMMs */
  gboolean      tp_seq_copies;          /* "tp_seq_dim_copies": TP with sequence
                                         * parallelism through PyTorch's functional
                                         * collectives on the sequence dim (DTensor
                                         * Shard(1)): each all-gather's output and each
                                         * reduce-scatter's input is re-laid by a
                                         * chunk + cat copy on the compute stream */
  FwAvail       moe_shared_expert_overlap; /* MoE shared expert computed during the
                                          * dispatch all-to-all */
  /* MoE (the "moe" object of a stack file): */
  gboolean      moe_dispatch_host_sync; /* the token dispatcher copies the tokens per expert
                                         * to the host and waits for them, once per MoE
                                         * layer forward */
  gboolean      moe_grouped_gemm_per_expert; /* a grouped GEMM is issued as one GEMM
                                              * launch per local expert */
  gboolean      moe_expert_eager_op;    /* besides each expert's GEMM launch, the grouped
                                         * GEMM issues an eager op per local expert from
                                         * Python (TE GroupedLinear's per-expert loops) */
  FwAvail       moe_a2a_overlap;        /* the EP all-to-all of one micro-batch overlapped
                                         * with another's compute (1F1B A2A overlap) */
  FwMoeHostOps  moe_host_ops;           /* host ops one MoE layer issues ("moe.host_ops";
                                         * all 0: not stated) */
  gboolean      grad_reduce_bf16;       /* DP gradients reduced in bf16 (else fp32) */
  double        optimizer_bytes_per_param; /* HBM bytes the AdamW step moves per parameter
                                         * as the stack runs it; 0 = not stated (the
                                         * cost model's fused figure) */
  gboolean      fsdp_reshard_after_forward; /* ZeRO-3 params dropped after each forward */
  gboolean      fsdp_reshard_under_pp;  /* ... also between micro-batches under PP */
  gboolean      hsdp;                   /* offers shard group x replica (HSDP) */
  double        fsdp_prefetch_params;   /* ZeRO-3 parameters gathered ahead of use; 0 = the
                                         * next layer (DeepSpeed stage3_prefetch_bucket_size) */
  double        fsdp_max_reuse_params;  /* a recomputed layer larger than this is gathered
                                         * again for its backward; 0 = never (DeepSpeed
                                         * stage3_max_reuse_distance) */
  gboolean      fsdp_gather_per_tensor; /* one collective per parameter tensor (else one
                                         * per layer: flat parameters, foreach gather) */
  gboolean      zero2_grad_per_microbatch; /* ZeRO-2: each micro-batch's gradients are
                                         * reduce-scattered to their owners' shards in its
                                         * backward (else once per step, as ZeRO-1) */
  gboolean      fsdp_gather_before_reduce; /* ZeRO-3 backward: the next layer's prefetch
                                         * gather is issued before this layer's gradient
                                         * reduce-scatter (own all-gather stream), not
                                         * queued behind it */
  gboolean      fsdp_pp_grad_after_stage; /* under PP, a stage's gradients are reduced
                                         * after the stage's last backward of the step,
                                         * not bucket by bucket as the backward runs */
  gboolean      fsdp_grad_accum_upcast; /* gradients accumulated unsharded across micro-
                                         * batches (ZeRO-2 per step) are upcast to the
                                         * reduce dtype and added by a pass per micro-batch
                                         * and layer (FSDP2), not inside the GEMMs */
  gboolean      fsdp_copy_in_out;       /* ZeRO-3: a gathered layer is copied out of the
                                         * all-gather buffer and a gradient reduce-scatter's
                                         * input copied in, on the compute stream (FSDP2) */
  gboolean      fsdp_reduce_passes;     /* ZeRO-2 with per-micro-batch sync: before each
                                         * reduce-scatter the unsharded gradient is cast to
                                         * the reduce dtype and pre-divided, passes over it
                                         * (FSDP1's post-backward hook and _reduce_grad) */
  gboolean      fsdp_fp32_shards;       /* ZeRO-3 / HSDP: the sharded parameters are the
                                         * fp32 originals, cast to the compute dtype as they
                                         * are gathered, and the optimizer updates them in
                                         * place (no separate master copy): 4 + 4 + 8 B a
                                         * parameter over the shards, not 2 + 4 + 12 (FSDP1
                                         * and FSDP2 with a mixed-precision policy, JAX with
                                         * fp32 weights) */
  gboolean      fsdp_rank_copies;       /* collectives on per-rank tensor lists, a copy
                                         * kernel per rank (else one flat buffer) */
  FwFp8Ops      fp8_ops;
  FwScaling     fp8_scaling;
  double        fp8_cast_passes;        /* bf16 -> fp8 passes per FP8 GEMM input */
  double        fp8_cast_passes_compiled; /* the same when the run is compiled (--compile);
                                         * the eager figure when the file gives none */
  gboolean      fp8_tp_all_gather;      /* TP all-gathers carry fp8 (the cast runs before the
                                         * gather; reduce-scatters stay bf16) */
  gboolean      fp8_param_gather;       /* per-tensor FP8 recipes keep the linear weights in
                                         * fp8 and the distributed optimizer gathers them in
                                         * fp8 (Megatron's --fp8-param-gather) */
  gboolean      fp8_kernel_rate;        /* FP8 GEMMs at the GEMM kernel's rate (BF16's fitted
                                         * fraction of the MAMF, on the FP8 MAMF: a stack that
                                         * calls the scaled GEMM directly), not the FP8 rate
                                         * fitted on Transformer Engine rows ("gemm_rate") */
  gboolean      fp8_cast_per_operand;   /* each FP8 operand cast once, both layouts written:
                                         * the input in the forward GEMM, the output gradient
                                         * in the data-gradient GEMM, none in the weight
                                         * gradient ("casts": "per_operand"); else each GEMM
                                         * casts its first operand ("per_gemm") */
  double        fp8_weight_cast_bytes;  /* HBM bytes per weight element that casting a bf16
                                         * weight to fp8 moves in every forward GEMM (0: the
                                         * weights come cast, e.g. TE's per-step cache) */
  gboolean      fp8_output_bf16;        /* the output layer (logits) stays bf16 in fp8 runs */
  gboolean      fp8_fast_accum_fwd;     /* forward FP8 GEMMs with fast accumulation
                                         * ("fast_accum": "forward") */
  gboolean      fp8_norm_amax_fused;    /* "norm_amax": "fused": under per-tensor current
                                         * scaling the RMSNorm / LayerNorm kernel that feeds
                                         * a GEMM (QKV, MLP up) also returns its output's
                                         * amax, so that GEMM's input cast skips the amax
                                         * read (sim/cost-compute.c gemm_s) */
  gboolean      fp8_moe_act_input;      /* "moe_act_input": "fp8": the MoE experts' SwiGLU
                                         * input (the fc1 output) is saved for the backward
                                         * in FP8 with 1x128 tile scales, not bf16 */
  gboolean      fp8_attn_out_e5m6;      /* "attn_out_input": "e5m6": the attention output
                                         * (the out-projection's input) is saved in a 12-bit
                                         * E5M6 format with 1x128 tile scales, not FP8 */
  gboolean      fp8_moe_dispatch;       /* "moe_dispatch": "fp8": the dispatch all-to-all
                                         * and the combine's backward carry FP8 tokens with
                                         * 1x128 tile scales; the combine and the dispatch's
                                         * backward stay bf16 */
  gboolean      dp_overlap_always;      /* "dp_overlap": "always": the data-parallel
                                         * gradient reductions (and ZeRO-1/2 parameter
                                         * gathers) run from the framework's backward and
                                         * forward hooks, overlapped, with no switch to run
                                         * them after the backward (FSDP, DDP's reducer);
                                         * "optional" (default): a plan flag decides
                                         * (Megatron's --overlap-grad-reduce) */
  gboolean      pp_free_stage_input;    /* "pp_stage_input": "freed": each pipeline stage's
                                         * received input is deallocated after its forward
                                         * (the Llama 3 paper, Sec. 3.3.2), so a unit in
                                         * flight keeps no copy of it; "kept" (default): it
                                         * stays stored as its first norm's input */
  gboolean      swiglu_eager_saves;     /* "swiglu_saves": "eager": the model code's SwiGLU
                                         * is w2(silu(w1 x) * w3 x) as eager ops, whose
                                         * autograd keeps silu's output for the multiply
                                         * beside w1 x, w3 x and the product (one T x f
                                         * tensor more than a fused SwiGLU); not under
                                         * --compile. "fused" (default) */
  gboolean      pp_keep_stage_output;   /* "pp_stage_output": "kept": each unit keeps its
                                         * stage's output until its backward
                                         * (torch.distributed.pipelining's fwd_cache);
                                         * "freed" (default): freed once sent (Megatron-Core's
                                         * deallocate_pipeline_outputs) */
  gboolean      remat_named;            /* "remat": "named": selective recompute keeps only
                                         * what the checkpoint policy names (JAX's
                                         * save_only_these_names: the layer input, Q, K, V
                                         * and the out-projection output) and re-runs the
                                         * rest; "modules" (default): Megatron-Core's
                                         * selective set (plan/memory.c) */
  gboolean      no_dropout;             /* "dropout": "none": the stack's model code sets
                                         * every dropout probability to 0 whatever the
                                         * architecture (plan.h dropout); "model"
                                         * (default): the model's own (GeLU GPT models
                                         * carry dropout) */
  gboolean      loss_eager;             /* "cross_entropy": "eager": F.cross_entropy on fp32
                                         * logits, two T V fp32 gradients allocated in its
                                         * backward; "fused" (default): the gradient written
                                         * into the saved softmax (Megatron-Core) */
  const char   *tflops_convention;      /* "tflops_convention": the FLOP count the
                                         * framework's own TFLOP/s or MFU report uses
                                         * (models/flops.h names: mcore, megatron96, palm),
                                         * which a published row that states no convention
                                         * was measured in; NULL ("none", the default): it
                                         * reports none of its own */
  gboolean      mxfp8;                  /* offers MXFP8 (Blackwell) */
  gboolean      nvfp4;                  /* offers NVFP4 (Blackwell) */
  gboolean      blockwise;              /* offers FP8 blockwise scaling (1x128 / 128x128) */
  gboolean      rowwise;                /* offers FP8 rowwise scaling (torchao) */

  /* What the stack offers a run ("offers"; a stack file without it offers everything):
   * bit sets whose bit i is the i-th name of the lists in stack.c, in the order of
   * plan/plan.h's enums (plan-args.c asserts it): sharding none, zero1, zero2, zero3, hsdp
   * (the hsdp bit is the fsdp.hsdp field); the sharding it allows with pp > 1; pipeline
   * schedules gpipe, 1f1b, interleaved, dualpipe (0: no pipeline parallelism); CP
   * exchanges p2p, allgather, a2a (0: no context parallelism); and the rank orders
   * (NULL: any), innermost first as --rank-order spells them. */
  guint         offers_sharding;
  guint         offers_sharding_pp;
  guint         offers_schedules;
  guint         offers_cp_comm;
  gboolean      offers_ep;              /* expert parallelism (ep > 1); "ep": false where the
                                         * framework has none (experts then sit whole on
                                         * every rank of their layer, sharded as dense) */
  char        **offers_rank_orders;

  /* defaults for plan options a config does not state */
  FwSharding    default_sharding;
  gboolean      default_sequence_parallel;  /* with tp > 1 */
  gboolean      default_overlap_grad_reduce;
  gboolean      default_overlap_param_gather;
  FwPpMicrobatches default_pp_microbatches; /* with pp > 1 and no micro-batch size */
  gboolean      default_cp_allgather;   /* CP exchanges K/V by one all-gather (else the
                                         * p2p ring) */
  gboolean      default_pp_dualpipe;    /* a pipeline of one chunk a rank runs DualPipe (else
                                         * 1F1B) where the run names no schedule */
  gboolean      default_degrees_one;    /* "defaults.model_parallel": "none": a run that
                                         * states no tp / pp / cp degree ran with 1, the
                                         * config's default (MaxText's ici_tensor_parallelism
                                         * 1, torchtitan's tensor_parallel_degree 1: data and
                                         * FSDP parallelism over every GPU); else (default)
                                         * an unstated degree is not guessed */
  int           default_pp_chunk_slots; /* an interleaved run that states no V puts this many
                                         * layer slots in each model chunk (the embedding and
                                         * the loss taking one slot each where the layers do
                                         * not divide); 0 = not stated: the smallest V that
                                         * splits the layers ("defaults.pp_layers_per_chunk") */
  int           default_grad_accum;     /* the gradient-accumulation steps a run that states
                                         * neither its global batch nor its accumulation took,
                                         * where the framework documents them
                                         * ("defaults.grad_accum": torchtitan's global batch
                                         * -1 = local batch x dp, DeepSpeed's and MaxText's
                                         * gradient_accumulation_steps 1); 0 = none documented:
                                         * such a run's global batch is not known */
  /* context parallelism as the stack runs it ("cp") */
  gboolean      cp_ring_merge;          /* the attention runs as the c ring steps whatever
                                         * the exchange (all-gathered K/V included), each
                                         * step's output merged into an fp32 running output
                                         * and the gradients summed in fp32 (PyTorch's
                                         * context_parallel); else all-gathered K/V run as
                                         * the rank's two query chunks (TE, Llama 3) */
  gboolean      cp_kv_repeated;         /* the model hands SDPA K/V repeated to the query
                                         * heads (torchtitan's repeat_kv), so CP moves and
                                         * sums K/V at n_heads, not n_kv_heads */
  gboolean      cp_a2a_kv_divide;       /* "a2a_kv_heads": "divide": Ulysses (a2a) CP needs
                                         * its degree to divide the KV heads of a TP rank
                                         * (Transformer Engine's all-to-all attention
                                         * asserts it); "replicate" (the default): a degree
                                         * that the KV heads divide also runs, each KV head
                                         * repeated to cp / kv ranks (the DeepSpeed-Ulysses
                                         * GQA scheme) */

  /* NCCL as the stack's software ships it ("nccl") */
  guint         nccl_pat;               /* the collectives NCCL's PAT algorithm may run
                                         * (bit i: fw_nccl_pat_names[i], all_gather and
                                         * reduce_scatter): PAT exists from NCCL 2.23 and
                                         * runs only where a group has one rank a server;
                                         * a reduce-scatter that averages in NCCL (ncclAvg)
                                         * cannot use it. 0: none (the default) */

  GHashTable   *sources;                /* field name -> where the figure comes from */
} FwStack;

#define FW_STACK_DEFAULT "megatron-core"

FwStack    *fw_stack_load_file   (const char *path, GError **error);
FwStack    *fw_stack_load_preset (const char *name, GError **error);
FwStack    *fw_stack_new_from_data (const char *data, gssize length, const char *source,
                                    GError **error);
/* A path that exists, else a preset name; NULL or "" is the default stack. */
FwStack    *fw_stack_lookup      (const char *name_or_path, GError **error);
FwStack    *fw_stack_ref         (FwStack *stack);
void        fw_stack_unref       (FwStack *stack);                  /* NULL-safe */
char      **fw_stack_preset_names (void);                            /* g_strfreev */
/* What the store keeps of a stack: a preset's name, a file's path (a copied preset keeps
 * its "name", and its runs were stored as the preset's: neither told apart nor re-run
 * with the file by report run). */
const char *fw_stack_stored_name (const FwStack *s);

/* The preset a framework named in free text runs ("NeMo 24.07 (Megatron-Core)" -> nemo,
 * "Composer/llm-foundry" -> llm-foundry, "Megatron-LM (2021)" -> megatron-lm-2021, ...),
 * case-insensitive; NULL when none is named.
 * The table is in stack.c. */
const char *fw_stack_preset_for_text (const char *text);

/* The names of the "offers" lists, bit i = names[i] (NULL-terminated). */
extern const char *const fw_offer_sharding_names[];
extern const char *const fw_offer_schedule_names[];
extern const char *const fw_offer_cp_names[];
extern const char *const fw_nccl_pat_names[];   /* all_gather, reduce_scatter */
/* "a, b or c" of the bits of `mask` over `names` (g_free) */
char *fw_offer_list_text (guint mask, const char *const *names);

const char *fw_attn_kernel_name (FwAttnKernel k);   /* "cudnn", "flash3", ... */
const char *fw_fusion_name      (FwFusion f);       /* "fused", "compiled", "eager" */
const char *fw_avail_name       (FwAvail a);        /* "no", "optional", "default" */
const char *fw_fp8_ops_name     (FwFp8Ops o);       /* "none", "gemm", "gemm+attention" */
const char *fw_scaling_name     (FwScaling s);      /* "delayed", "current", ... */
const char *fw_sharding_name    (FwSharding s);     /* "none", "zero1", ... */

struct _JsonBuilder;
void        fw_stack_to_json     (const FwStack *stack, struct _JsonBuilder *builder);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwStack, fw_stack_unref)

G_END_DECLS
