/* sim/cost.h - the cost model: task -> predicted duration in seconds.
 *
 * Contract:
 *  - Times are double seconds (the engine converts once, sim_time_from_s); bytes are
 *    bytes, bandwidths bytes/s per direction per device, FLOPs are FLOPs.
 *  - Every function is a pure O(1) function of its arguments and of what sim_cost_new()
 *    precomputed (per-axis bus bandwidths and latencies): the simulator calls it ~10^4
 *    times per prediction. Nothing prints; a SimCost is immutable after new and may be
 *    read from several threads.
 *  - sim_cost_new() takes a ref on the cluster and copies what it needs from the layout
 *    (the layout may be freed afterwards; it may be NULL when no collective over an axis
 *    is asked for).
 *  - Zero or negative sizes cost 0; a group of one rank costs 0; more bytes never cost
 *    less time.
 *
 * Compute (DESIGN.md 4): roofline per op,
 *     t = max (flops / (peak(dtype) x eff), bytes / (hbm_Bps x mem_efficiency)) + launch
 *   GEMM   eff = gemm_efficiency(dtype) x tile quantization x wave quantization x
 *                k / (k + small_k_half)                              (cost-compute.c)
 *          bytes = A (m k) + B (k n) + C (m n) elements; 2 bytes (bf16/fp16), 4 (fp32,
 *          tf32), fp8: 1 byte for A and B, 2 for C (Transformer Engine writes bf16).
 *   ATTENTION (flash): flops = op->fwd_flops as given (causal halving already applied
 *          by the caller), eff = attn_fwd_efficiency or attn_bwd_efficiency; bytes = Q, K,
 *          V, O forward; Q, K, V, O, dO read and dQ, dK, dV written backward (no S x S).
 *   NORM / ELEMENTWISE / EMBEDDING / LOSS: memory-bound, bytes = elements x accesses x
 *          2 bytes (4 for fp32), accesses per kind documented in cost-compute.c.
 *
 * Communication (DESIGN.md 4), alpha-beta per ring step:
 *     t = base + steps(n) x alpha + bytes x bus_factor(n) / busbw
 *   with steps and bus_factor from plan/collective.h (nccl-tests), `bytes` the nccl-tests
 *   size column, alpha the per-step latency of the outermost level the group spans (in a
 *   pipelined ring every step waits for its slowest hop, the one that crosses that level),
 *   base the per-collective NCCL base latency. busbw of a group of n ranks with
 *   m_l = members_per_unit[l] members in one unit of level l (plan/layout.h):
 *     - level 0 (inside a server), used when m_0 > 1: levels[0].busbw_Bps, else
 *       levels[0].bw_Bps x nvlink_efficiency;
 *     - each level l = 1..span that the group crosses: B_l = m_{l-1} x bw_l / o_l, where
 *       bw_l = levels[l].busbw_Bps (else bw_Bps x net_efficiency) per device and o_l the
 *       level's oversubscription.
 *       Why m_{l-1}: a ring (NCCL orders rings by locality) enters and leaves every unit
 *       of level l-1 once, and NCCL runs one ring per NIC (channel), so the m_{l-1}
 *       members of a unit drive m_{l-1} rails in parallel: the per-rank bus bandwidth is
 *       m_{l-1} NICs' worth ("8 x 400G nodes reach ~380 GB/s = 8 x 47", hardware.md
 *       Physical limits 4).
 *       Why / o_l: by symmetry every group of the axis crosses at once (DP buckets, TP
 *       layers), so a unit of level l-1 with D devices, each of bw_l, gives
 *       D x bw_l / o_l of egress to D / m_{l-1} groups, each leaving it once: m_{l-1} x
 *       bw_l / o_l per group. A group with one member per pod of the 1:7 h100-24k
 *       cluster gets bw / 7 ("~50/7 = 7 GB/s", hardware.md Physical limits 5).
 *     busbw = min over the levels above (inner levels cap outer ones).
 *   NVLink domain: levels 1..d that carry level 0's bandwidth (topo_cluster_scale_up_level:
 *     an NVL72 rack over its 4-GPU trays) join their units through the same device ports
 *     and switches, so they fold into level 0: m_0 above reads m_d, a group inside one
 *     domain is a group inside one server (its span is 0: NVLink latency, NVLS, NCCL's
 *     NVLink channels, no tree) and only the levels above d count as crossed.
 *   NVLS: an all-reduce that stays inside a server, where the device has NVLink SHARP and
 *     use_nvls is set, runs at device.nvls_busbw_Bps with NCCL's flat NVLS latency (no
 *     ring steps).
 *   PAT: an all-gather or reduce-scatter of a group with one member a server, across
 *     servers, where the stack's NCCL has PAT for that collective (pat_all_gather,
 *     pat_reduce_scatter), takes the faster of the ring and NCCL's PAT (Parallel
 *     Aggregated Trees, NCCL 2.23+): t = 8 us + log2(n) x 4 us + n x 2.8 us
 *     + bytes / (0.75 x ring busbw), NCCL's own tuning model (sim/cost-comm.c pat_s).
 *   All-to-all: no ring; every rank sends bytes/n to each peer at once, so the bytes that
 *     leave a unit of level l-1, (n - m_{l-1})/n of the buffer, share the per-device
 *     bw_l / o_l (one NIC per device; all devices send at once), and the (m_0 - 1)/n that
 *     stay in the server use level-0 busbw. t_bw = bytes x max over levels of
 *     (fraction / bandwidth): across M servers of k this is ~ bytes / NIC, the floor of
 *     hardware.md Physical limits 3 ("t ~ B / (M x W_node)"); the effective busbw is
 *     (n-1)/n x bytes / t_bw. Where a level gives a2a_busbw_Bps (a NIC of several
 *     planes, of which NCCL's all-to-all uses one: NVIDIA/nccl-tests issue 267, the
 *     maintainer: an all-to-all cannot aggregate NICs), bw_l is that, when lower.
 *   Send/recv between two devices: one step at the level l joining them, base + alpha_l +
 *     bytes / bw, bw = level-0 busbw inside a server, else min over levels 1..l of
 *     bw_j x min (1, m_{j-1}(PP) / o_j): PP stage boundaries cross a unit at once, one per
 *     pipeline (the PP group's members_per_unit; 1 without a layout, the worst case).
 *
 * Hardware profile (cluster->profile, from `tandem calibrate` or nccl-tests output)
 * replaces the curves above where it has rows:
 *   GEMM   t = flops / R + launch, R the achieved FLOP/s of the measured shape nearest in
 *          (ln m, ln n, ln k) (Euclidean; the first row on ties), among rows of the op's
 *          dtype, else among all rows scaled by peak(dtype) / peak(row dtype). So a
 *          measured shape takes exactly its measured kernel time plus the launch.
 *   ATTENTION  t = flops / R + launch, flops = op->fwd_flops (the program's counting:
 *          causal halving, backward 2.5x), R the measured forward or backward rate of the
 *          attention row nearest in (ln b, ln heads, ln kv_heads, ln s_q, ln s_kv,
 *          ln head_dim) (Euclidean; the first row on ties), among rows of the op's
 *          causality and dtype when there are some, else scaled by peak(dtype) /
 *          peak(row dtype) as GEMMs are.
 *   NORM / ELEMENTWISE / EMBEDDING / LOSS and the optimizer, where the profile has
 *          "kernels" rows of the op's kind (topology/cluster.h TopoKernel: norm,
 *          rotary, swiglu for mlp_act, residual for other element-wise ops, embedding,
 *          loss, each with a _grad kind for backward blocks; adamw):
 *          t = topo_kernel_bytes (kind, elements, dtype) / B + launch, B the measured
 *          bytes/s, ln B linear in ln elements between the measured sizes around the op
 *          and held beyond them. Neither mem_traffic_factor nor the FLOP roofline applies:
 *          the rate is what the kernel achieved, whatever it computes or moves.
 *   Other memory-bound ops and the optimizer: the measured triad bandwidth in place of
 *          hbm_Bps (mem_efficiency then defaults to 1: the figure is already achieved).
 *   Collectives (and p2p, from sendrecv rows): the rows of the collective measured over
 *          the same levels as the group (r measured ranks span the first level that holds
 *          r devices, as nccl-tests places ranks; a p2p pair spans the level joining it),
 *          at the measured group size nearest n (in ln n; the larger on ties), by size,
 *          times made nondecreasing; busbw_i = S_i x bus_factor(ranks) / t_i; between two
 *          sizes ln busbw is linear in ln S (so is ln t: monotone), below the smallest
 *          and above the largest size busbw is held; t = max (t_smallest, S x
 *          bus_factor(n) / busbw(S)): the smallest message's time is the latency. A
 *          measured size on the measured group size takes exactly its measured time.
 *          Collectives without rows keep the level model. A GEMM scans the profile's
 *          rows (tens), a collective bisects its curve.
 */
#pragma once

#include <glib.h>
#include "models/model.h"
#include "plan/collective.h"
#include "plan/layout.h"
#include "plan/program.h"
#include "topology/cluster.h"
#include "frameworks/stack.h"

G_BEGIN_DECLS

typedef struct {
  /* compute */
  double   gemm_efficiency;       /* best-shape fraction of peak, bf16/fp16/fp32/tf32
                                     (device default: MAMF, hardware.md A4) */
  double   gemm_fp8_efficiency;   /* same for fp8 (MAMF FP8, H100 1402.6 / 1978.9 = 0.709) */
  double   attn_fwd_efficiency;   /* flash attention forward, fraction of peak */
  double   attn_bwd_efficiency;   /* flash attention backward */
  double   attn_fit_flop_per_exp; /* where the attention fractions above are borrowed
                                     from another architecture (Blackwell takes Hopper's):
                                     the BF16 tensor FLOPs per SFU exponential of the
                                     architecture they were fitted on, whose exponentials
                                     the fitted time already holds; the device's own
                                     exponentials beyond that run serially with the
                                     products (sim/cost-compute.c attention_fused_s);
                                     0 = none */
  double   attn_noncausal_gain[6]; /* the kernel without the causal mask over the causal
                                     one, FLOP rate, at 512, 1K, 2K, 4K, 8K and 16K tokens
                                     (the stack's
                                     kernel class; cost.c); {0} = no gain; forward */
  double   attn_noncausal_gain_bwd[6]; /* the same for the backward kernel (cost.c
                                     NONCAUSAL_GAIN_BWD_*); {0} = the forward's */
  double   attn_len_fwd[6];       /* the causal kernel's FLOP rate at 512, 1K, 2K, 4K, 8K
                                     and 16K tokens (ModelOp kernel_s) over its rate at
                                     the length the efficiencies above hold (the stack's
                                     kernel class; cost.c), held flat outside; {0} = flat */
  double   attn_len_bwd[6];       /* the same for the backward */
  double   attn_hd64_fwd[6];      /* the causal kernel's FLOP rate at head_dim 64 over its
                                     rate at head_dim 128, at the same six lengths (the
                                     stack's kernel class; cost.c ATTN_HD64_*); between
                                     64 and 128 linear in log2 head_dim, held below 64,
                                     1 from 128 up; {0} = 1 */
  double   attn_hd64_bwd[6];      /* the same for the backward */
  double   gdn_fwd_efficiency;    /* chunked gated delta rule (flash-linear-attention's
                                     Triton kernels) forward, fraction of peak: the
                                     attention figure of the Triton / FA2 class */
  double   gdn_bwd_efficiency;    /* its backward */
  double   mem_efficiency;        /* achieved fraction of HBM bandwidth */
  double   launch_overhead_s;     /* per kernel (one kernel per op) */
  double   mem_traffic_factor;    /* memory-bound ops move this many times the bytes of
                                     their fused minimum (unfused casts, dropout, fp32
                                     norms in real frameworks); calibrated */
  int      tile_m, tile_n;        /* GEMM output tile (128 x 256, cuBLAS/CUTLASS on H100) */
  double   small_k_half;          /* k at which k / (k + small_k_half) = 1/2 */
  double   comm_compute_slowdown; /* compute slowed by concurrent comm kernels (0.1 = 10%);
                                     applied by the simulator, not by sim_cost_op_s */
  double   ep_comm_sms;           /* SMs the flex (DeepEP) dispatcher's all-to-all kernels
                                     hold while they run (Megatron-Core
                                     --moe-deepep-num-sms, default 20); compute beside
                                     them runs on the rest (sim_cost_ep_compute_slowdown) */
  /* SMs (CTAs) a communication kernel holds while it runs; compute that starts beside
   * such kernels runs on the SMs they leave (sim_cost_coll_sms, sim/simulate.c). NCCL
   * runs one CTA per channel (sim/cost.c, sim_cost_options_init_documented: sources) */
  double   nccl_ctas_nvlink;      /* ring/tree collective inside one NVLink domain */
  double   nccl_ctas_nvls;        /* NVLS (NVLink SHARP) all-reduce */
  double   nccl_ctas_net;         /* collective across servers, several members a server */
  double   nccl_ctas_net_1ppn;    /* collective across servers, one member a server */
  double   nccl_p2p_ctas_nvlink;  /* an all-to-all or CP ring pass over NVLink */
  double   nccl_p2p_ctas_net;     /* an all-to-all or CP ring pass across servers */
  double   tp_overlap_ag_sms;     /* TP-comm overlap (the stack's userbuffers): all-gather */
  double   tp_overlap_rs_sms;     /* TP-comm overlap: reduce-scatter */
  /* communication */
  double   nvlink_efficiency;     /* achieved fraction of level-0 bw when busbw not given */
  double   net_efficiency;        /* achieved fraction of NIC bw when busbw not given */
  double   coll_base_latency_s;   /* per collective (NCCL base latency) */
  double   nvls_latency_s;        /* per NVLS all-reduce, replaces base + steps x alpha */
  gboolean use_nvls;              /* NVLS all-reduce inside a server where the device has it */
  gboolean pat_all_gather;        /* NCCL's PAT may run an all-gather, and a reduce-scatter, */
  gboolean pat_reduce_scatter;    /* of a group with one rank a server (the stack's
                                     nccl.pat; sim/cost-comm.c pat_s) */
  /* software stack (frameworks/, sim_cost_options_init_stack) */
  double   elementwise_passes;    /* passes over its tensor per norm / element-wise op:
                                     1 fused or compiled, more in eager PyTorch */
  gboolean attn_unfused;          /* the stack's attention materializes the scores (FwStack
                                     attention "unfused"): a plan that names no backend runs
                                     it (sim_plan_apply_stack) */
  gboolean fp8_attention;         /* the attention core runs in fp8 in fp8 plans (TE's
                                     fp8 DPA); otherwise it stays bf16 */
  double   fp8_cast_passes;       /* bf16 -> fp8 casts per fp8 GEMM input (read 2 B, write
                                     1 B per element each) */
  double   fp8_cast_passes_compiled; /* the same in a compiled run (the stack's figure;
                                     sim_cost_options_compile puts it in fp8_cast_passes) */
  int      fp8_scaling;           /* the FP8 recipe the cast figures are for (FwScaling):
                                     the stack's, or the plan's --fp8-recipe
                                     (sim_cost_options_apply_plan) */
  gboolean fp8_cast_per_operand;  /* casts by operand, not by GEMM (FwStack
                                     fp8_cast_per_operand): the forward GEMM casts its
                                     input, the data-gradient GEMM its output gradient, the
                                     weight-gradient GEMM nothing */
  double   fp8_weight_cast_bytes; /* HBM bytes per weight element cast in each forward fp8
                                     GEMM (the stack's; 0 when the plan gathers fp8 weights) */
  gboolean fp8_output_bf16;       /* the logits GEMM stays bf16 in fp8 plans */
  gboolean fp8_fast_accum_fwd;    /* forward FP8 GEMMs in fast-accumulation mode
                                   * (sim/cost-compute.c FP8_FAST_ACCUM_SPEEDUP) */
  gboolean fp8_norm_amax_fused;   /* current scaling: a norm-fed GEMM's input cast reads
                                     no amax pass (FwStack fp8_norm_amax_fused) */
  gboolean fp8_any_layout;        /* the device's FP8 GEMMs take any operand layout
                                     (TopoDevice fp8_any_layout): no transposed FP8 copy */
  double   zero3_prefetch_params; /* the stack's ZeRO-3 semantics (FwStack fsdp_*), which
                                     sim_predict gives a plan that leaves them unset */
  double   zero3_reuse_params;
  gboolean zero3_per_tensor;
  gboolean zero3_rank_copies;
  gboolean zero3_gather_ahead;
  gboolean zero2_grad_per_mb;     /* the stack's ZeRO-2 gradient sync (FwStack) */
  gboolean fp8_tp_all_gather;     /* the stack's FP8 recipe gathers TP activations in fp8 */
  gboolean fp8_param_gather;      /* ... and keeps the linear weights in fp8 (stack.h) */
  gboolean tp_grad_rs_whole;      /* the stack's TP overlap leaves the backward's input-
                                     gradient reduce-scatter whole (FwStack) */
  gboolean tp_seq_copies;         /* the stack's TP+SP collectives copy their gathered
                                     output and their scattered input (FwStack) */
  gboolean pp_grad_after_stage;   /* the stack reduces a PP stage's gradients after its last
                                     backward (FwStack fsdp_pp_grad_after_stage) */
  gboolean pp_lockstep;           /* the stack runs the interleaved schedule in lock step
                                     (FwStack pp_lockstep) */
  int      pp_p2p_sync;           /* the stack synchronizes the device after each batched
                                     pipeline exchange: 1 of the non-interleaved 1F1B, 2 of
                                     either schedule, 0 none (FwStack pp_p2p_sync, FwP2pSync;
                                     plan.h pp_p2p_sync) */
  gboolean pp_scatter_gather;     /* the stack sends pipeline activations scatter-gathered
                                     over TP without SP (FwStack pp_scatter_gather; plan.h
                                     pp_scatter_gather) */
  double   pp_sync_reissue_s;     /* ... and the host's time from that synchronize to the
                                     first kernel of the stage's next unit (sim/cost.c
                                     P2P_SYNC_REISSUE_S; 0 without the sync, or on CPUs) */
  gboolean grad_accum_upcast;     /* the stack accumulates unsharded gradients in fp32 by a
                                     pass per micro-batch (FwStack fsdp_grad_accum_upcast) */
  gboolean remat_named;           /* selective recompute keeps only the named tensors
                                     (FwStack remat_named; memory only) */
  gboolean no_dropout;            /* the stack's model code drops no activations (FwStack
                                     no_dropout: llm-foundry's MPT) */
  gboolean zero3_copy_in_out;     /* the stack copies gathered parameters out and gradients
                                     in on the compute stream (FwStack fsdp_copy_in_out) */
  gboolean fsdp_fp32_shards;      /* FwStack fsdp_fp32_shards (memory only) */
  gboolean zero2_reduce_passes;   /* ZeRO-2 per micro-batch: the cast and pre-divide passes
                                     before each reduce-scatter (FwStack fsdp_reduce_passes) */
  gboolean cp_ring_merge;         /* CP runs ring steps with fp32 merges (FwStack cp_ring_merge) */
  gboolean cp_kv_repeated;        /* CP moves K/V at the query heads (FwStack cp_kv_repeated) */
  gboolean dp_overlap_always;     /* the stack's DP reductions and ZeRO-1/2 gathers are
                                     always overlapped (FwStack dp_overlap_always) */
  gboolean pp_free_stage_input;   /* a stage's received input is freed after its forward
                                     (FwStack pp_free_stage_input; memory only) */
  gboolean swiglu_eager_saves;    /* FwStack swiglu_eager_saves (memory only) */
  gboolean pp_keep_stage_output;  /* each unit keeps its stage's output until its backward
                                     (FwStack pp_keep_stage_output; memory only) */
  gboolean loss_eager;            /* the cross entropy's backward allocates two fp32 logit
                                     gradients (FwStack loss_eager; memory only) */
  gboolean fp8_moe_act_input;     /* FwStack fp8_moe_act_input (memory only) */
  gboolean fp8_attn_out_e5m6;     /* FwStack fp8_attn_out_e5m6 (memory only) */
  gboolean fp8_moe_dispatch;      /* FwStack fp8_moe_dispatch (the EP all-to-all bytes) */
  /* MoE host-side costs (the stack's "moe" object): the host's own cost per kernel it
   * issues (the device's documented launch figure, before a stack replaces
   * launch_overhead_s with the GPU-side gap), whether a grouped GEMM of b experts is b
   * launches, and the round trip of the dispatcher's device-to-host sync (0: none) */
  double   host_launch_s;
  gboolean moe_grouped_per_expert;
  double   moe_gemm_call_s;       /* the host's time per GEMM of such a grouped GEMM (TE's
                                   * GEMM call, sim/cost.c; 0: host_launch_s) */
  double   moe_seq_expert_fwd_s; /* without grouped GEMM (SequentialMLP), the host time of
                                  * each expert's forward linear, a TE module call
                                  * (TE_MODULE_FWD_HOST_S) where the stack's experts are TE
                                  * modules; 0: the launch figure alone */
  double   moe_host_sync_s;
  /* ... which the plan's dispatcher does not take (--moe-pad-expert-input-to-capacity:
   * Megatron-Core's drop_and_pad knows every expert's tokens, its capacity, on the host):
   * the "moe_host_sync" op costs nothing and the host runs ahead of the GPU in the forward
   * as in the backward (sim/cost-compute.c gemm_s, sim_cost_moe_host_excess_s) */
  gboolean moe_dispatch_no_sync;
  /* ... and the eager framework op the stack issues from Python per local expert of a
   * grouped GEMM besides its launch (frameworks/stack.h moe_expert_eager_op; 0: none) */
  double   moe_expert_op_s;
  /* ... and the host's time to issue one MoE layer per micro-batch (the stack's
   * "moe.host_ops" at EAGER_OP_HOST_S per eager op, TE_MODULE_FWD_HOST_S per TE module
   * forward call, moe_gemm_call_s per expert GEMM and host_launch_s per other launch; only
   * where the dispatcher syncs the host, 0 elsewhere): [0] forward, [1] backward, outside
   * the experts' loops, per local expert, and per local expert on top with FP8 GEMMs.
   * After the sync the host cannot run ahead of the GPU, so a layer's forward takes at
   * least its host time; the backward too once the host's total exceeds the GPU's
   * (sim_cost_moe_host_excess_s). */
  double   moe_layer_host_s[2];
  double   moe_layer_host_after_sync_s;   /* of moe_layer_host_s[0], after the sync */
  /* of moe_layer_host_s[0], before the sync: the router's eager ops and the dispatcher
   * preprocess's that a Transformer Engine CUDA graph of scope moe_router / moe_preprocess
   * replays in one call (the stack's moe.host_ops router_fwd, preprocess_fwd_graphed;
   * sim_cost_options_apply_plan takes them off for such a plan) */
  double   moe_router_host_s, moe_preprocess_host_s;
  /* ... and the host's time in one TE GroupedLinear call before its first per-expert GEMM
   * call (TE_MODULE_FWD_HOST_S less its GEMM call; 0 where the stack states no GroupedLinear
   * calls): after a sync inside the experts (gpt-oss's activation, sim/cost-compute.c
   * "expert_act_geglu") nothing but the activation is queued until the host gets there */
  double   moe_grouped_call_s;
  double   moe_expert_host_s[2];
  double   moe_expert_host_fp8_s[2];
  /* ... and with FP8 GEMMs the quantize calls per local expert and pass (TE's split_quantize
   * of each expert's input, in the backward of its output gradient), whose kernel launches
   * depend on the recipe (sim_cost_moe_quant_launches) at host_launch_s each */
  double   moe_expert_fp8_quants;
  gboolean extrapolated;          /* no fitted row for the device's architecture, or the
                                     stack's attention kernel was never fitted on it */
  /* test knobs */
  gboolean free_comm;             /* every collective and p2p costs 0 */
  gboolean free_optimizer;        /* the optimizer step costs 0 */
  double   optimizer_bytes_per_param; /* the stack's AdamW bytes per parameter (0: the
                                     fused step's, sim/cost-compute.c) */
  /* CPU hosts (sim/cost-cpu.c; only for a cluster whose cpu profile has a "contention"
   * object): the cores the ranks may run on and the ranks per host of the prediction;
   * 0 = the calibration's cores, the cluster's level-0 devices. Set both through
   * sim_cost_options_cpu_host, which also sets comm_compute_slowdown from them. */
  double   cpu_cores;
  double   cpu_ranks;
  /* the share of a core the ranks' compute threads got while runnable, measured during a
   * run (schedstat; `tandem run`'s load-corrected prediction); 0 = unknown: then the
   * cores and ranks above give it */
  double   cpu_share;
  /* The standard deviation of one GPU's kernel speed across parts of its SKU, over the
   * median part's (TopoDevice perf_sigma; 0 = none, --cost perf_sigma=0 turns it off):
   * a synchronous step waits for its slowest GPU, so every compute kernel runs
   * sim_cost_straggler_factor times its median part's time (sim/cost.c). */
  double   perf_sigma;
  /* Every SM-clocked rate (tensor, vector FP32, SFU) of the device runs at this fraction
   * of what its documented figures and borrowed fits give: for a part that takes another
   * architecture's fitted fractions (Blackwell takes Hopper's), its sustained-to-burst
   * matmul ratio over the fitted parts' (TopoDevice sustained_matmul_ratio; sim/cost.c);
   * 1 where the fits are the part's own or either ratio is unknown. */
  double   sustained_scale;
} SimCostOptions;

/* Defaults for the cluster's device (cost.c): documented figures, then the per-device
 * values fitted to published runs where the device has them; cluster may be NULL
 * (generic fallbacks). */
void sim_cost_options_init (SimCostOptions *o, const TopoCluster *cluster);

/* Whether the cost model knows the cluster's device as a part (its "part", else its name:
 * topo_device_part) with an FP8 ceiling, architecture and host link of its own; a device
 * it does not know takes no fitted knob and its predictions say extrapolated. */
gboolean sim_cost_device_known (const TopoCluster *cluster);
/* Whether the cluster's device is a Blackwell part (B200, B300, GB200, GB300). */
gboolean sim_cost_device_blackwell (const TopoCluster *cluster);
gboolean sim_cost_part_known (const char *part);
/* The same before the per-device calibration (cost.c calib_rows) is applied: every
 * value is a documented figure with its source. Hand-derived tests use these. */
void sim_cost_options_init_documented (SimCostOptions *o, const TopoCluster *cluster);
/* The defaults for the device and a software stack (frameworks/stack.h; NULL = the
 * default stack, megatron-core): the device's fitted hardware knobs, then what the stack
 * runs (attention kernel class, element-wise fusion, per-kernel overhead, FP8 recipe).
 * sim_cost_options_init is this with the default stack. */
void sim_cost_options_init_stack (SimCostOptions *o, const TopoCluster *cluster,
                                  const FwStack *stack);

/* A compiled run (the plan's --compile, docs/contracts.md: the user turns it on, the stack
 * says what it does): element-wise work one pass per op (FW_FUSION_COMPILED) and the
 * stack's compiled FP8 cast figure. sim_predict applies it to a plan with compile set;
 * idempotent. */
void sim_cost_options_compile (SimCostOptions *o);

/* The fitted hardware knobs of the cluster's architecture that sit at a bound of their
 * fit, as "name=value (bound B)" (g_strfreev), or NULL when none does. */
char **sim_cost_knobs_at_bound (const TopoCluster *cluster);

/* The CPU contention model (sim/cost-cpu.c) for the cluster and options: what the
 * calibration measured and what it makes of this prediction's cores and ranks. */
typedef struct {
  double   cal_cores, cal_ranks;   /* how the profile was measured */
  double   cores, ranks;           /* this prediction's (cpu_cores, cpu_ranks or defaults) */
  double   cal_share, share;       /* measured core shares: calibration's GEMM sweep, and
                                      the run's (cpu_share); 0 = not measured */
  gboolean measured_share;         /* compute_scale = cal_share / share (both measured) */
  double   threads_per_rank;       /* BLAS + progress threads */
  double   measured_slowdown;      /* GEMM with an all-reduce in flight / alone - 1 */
  double   compute_scale;          /* every compute op's time x this (2: half a core):
                                      cal_share / share when both were measured, else
                                      share(cal cores, ranks) / share(cores, ranks) */
  gboolean oversubscribed;         /* ranks x threads_per_rank > cores */
  double   slowdown;               /* comm_compute_slowdown it gives (0 unless oversubscribed) */
} SimCpuContention;

/* FALSE (and *out zeroed) when the cluster has no cpu profile with a contention object:
 * then nothing of the model applies (GPU clusters). o may be NULL (defaults). */
gboolean sim_cost_cpu_contention (const TopoCluster *cluster, const SimCostOptions *o,
                                  SimCpuContention *out);
/* Sets cpu_cores and cpu_ranks (0 = default) and, for a cluster the model applies to,
 * comm_compute_slowdown from them (sim_cost_options_init_stack calls it with 0, 0). */
void     sim_cost_options_cpu_host (SimCostOptions *o, const TopoCluster *cluster,
                                    double cores, double ranks);
/* The core share a step's prediction takes (cpu_share) from its ranks' measured shares
 * (n of them, 0 = not measured): the lowest, since ranks that meet at collectives (TP and
 * DP every step, pipeline stages at every send) wait for the slowest; 0 when none was
 * measured. *rank (may be NULL) gets its index, -1 when none. */
double   sim_cost_cpu_step_share   (const double *shares, int n, int *rank);
/* One rank's scheduler figures for sim_cost_cpu_skew_s: its share of a core over the
 * step (s, in (0, 1]; the mean wall time of w seconds on a CPU is w / s) and, over its
 * compute, the mean time on a CPU between two waits for one (run_s) and the mean wait
 * (wait_s); run_s <= 0 or wait_s <= 0: no waits measured, the rank's time has no spread
 * (unless wait_var_s says otherwise). */
typedef struct {
  double share, run_s, wait_s;
  /* the waits' measured variance per second on a CPU (task to task); > 0: used in place
   * of the compound Poisson 2 wait_s^2 / run_s */
  double wait_var_s;
} SimCpuRankSched;
/* Term 4 of sim/cost-cpu.c: the time a step of ranks that meet at every collective loses
 * to their compute drifting apart between two meetings, over the slowest rank's mean
 * (what the share prediction holds): for each of the n_seg segments of on-CPU work
 * seg[k] between two meetings, E[max over ranks] - max over ranks of the mean, summed.
 * 0 with fewer than 2 ranks or no segment. */
double   sim_cost_cpu_skew_s       (const double *seg, int n_seg, const SimCpuRankSched *ranks,
                                    int n_ranks);

/* Overrides one option by name ("gemm_efficiency", "attn_fwd_efficiency", ...; the names
 * of the fields above, with *_s fields also accepting *_us in microseconds), for what-if
 * studies and calibration. FALSE with G_OPTION_ERROR_BAD_VALUE naming the key. */
/* What the plan changes in the options: CUDA graphs over the MoE layers
 * (plan_cuda_graph_moe) replay the experts' launches and per-expert host work as one
 * graph launch, and a captured MoE layer has no device-to-host sync (a graph cannot hold
 * one): the grouped GEMMs cost their GPU time and the sync nothing. */
/* The plan's FP8 recipe (plan->fp8_recipe, when it names one other than the stack's)
 * rescales both cast figures by sim_cost_fp8_quant_bytes (recipe) / (the stack's). */
void     sim_cost_options_apply_plan (SimCostOptions *o, const Plan *plan);
/* What the options ask of the device that it does not have, for this plan: TP-comm
 * overlap kernels holding as many SMs as the device has or more (a stack file's
 * tp_overlap_sms, or --cost tp_overlap_ag_sms / tp_overlap_rs_sms), or NCCL's / DeepEP's
 * CTA counts that large (--cost), which left compute beside them no SM and were counted
 * as the device's SMs less one without a word (NVIDIA parts: the counts are CUDA SMs).
 * PLAN_ERROR_INVALID naming the figure, the device and what to change; `cost_flag`: the
 * caller takes --cost (predict; the search does not), which the message then offers. */
gboolean sim_cost_options_check_device (const SimCostOptions *o, const TopoCluster *cluster,
                                        const Plan *plan, gboolean cost_flag, GError **error);
/* HBM bytes one FP8 quantization of a bf16 tensor moves per element under a recipe
 * (FwScaling), on a device whose FP8 GEMMs take any layout or only TN (sim/cost.c). */
double   sim_cost_fp8_quant_bytes (int scaling, gboolean any_layout);
/* The same for one NVFP4 quantization (TE NVFP4BlockScaling, with the random Hadamard
 * transform of the wgrad operands): 5.76 B-equivalent per element (sim/cost.c). */
double   sim_cost_nvfp4_quant_bytes (void);
gboolean sim_cost_options_set (SimCostOptions *o, const char *key, const char *value,
                               GError **error);
/* Applies "key=value" strings (NULL-terminated array; NULL = none). */
gboolean sim_cost_options_apply (SimCostOptions *o, const char *const *assignments,
                                 GError **error);
/* NULL-terminated list of the settable names (static). */
const char *const *sim_cost_option_names (void);

typedef struct SimCost SimCost;

/* opts NULL = sim_cost_options_init (cluster). layout may be NULL (see contract). */
SimCost *sim_cost_new  (const TopoCluster *cluster, const PlanLayout *layout,
                        const SimCostOptions *opts);
void     sim_cost_free (SimCost *cost);                                 /* NULL-safe */
const SimCostOptions *sim_cost_options (const SimCost *c);

/* One op on one device. op->fwd_flops holds the FLOPs of this op as executed (the
 * program gives backward GEMMs their own shapes; 2 m n k is used when it is 0);
 * `backward` selects backward efficiencies for attention and backward byte counts for
 * the memory-bound kinds. */
double sim_cost_op_s (const SimCost *c, const ModelOp *op, TopoDtype dtype, gboolean backward);
/* The same with the GEMMs' math in `gemm_dtype` over operands stored in `dtype` (fp32
 * tensors on TF32 or BF16 tensor cores); every other op kind works in `dtype`. */
double sim_cost_op_math_s (const SimCost *c, const ModelOp *op, TopoDtype dtype,
                           TopoDtype gemm_dtype, gboolean backward);
/* The host's excess over the GPU in one MoE layer's pass (phase FORWARD or BACKWARD) of
 * program `p`: the layer's host issue time (SimCostOptions moe_layer_host_s and
 * moe_expert_host_s x its local experts, plus moe_expert_host_fp8_s with FP8 GEMMs)
 * minus the GPU time of the pass's blocks of a layer (attention, route, experts, combine,
 * shared expert; in the backward also their recompute), when positive; 0 for a dense
 * program or a stack without the dispatcher's host sync. The engine adds it to the
 * experts block, so a host-bound layer's pass takes its host time. */
double sim_cost_moe_host_excess_s (const SimCost *c, const ProgProgram *p, ProgPhase phase);
/* Kernel launches of one local expert's quantize call in Transformer Engine's split_quantize
 * under FP8 recipe `scaling` (fp4: an NVFP4 plan): 0 for delayed scaling (one fused
 * multi-tensor cast for all experts), 3 for current scaling (amax, scale, cast), 1 for the
 * block-scaled recipes. */
double sim_cost_moe_quant_launches (FwScaling scaling, gboolean fp4);

/* The GEMM efficiency factor the model uses for an m x n x k GEMM (fraction of peak),
 * for reports and tests. */
double sim_cost_gemm_efficiency (const SimCost *c, guint64 m, guint64 n, guint64 k,
                                 TopoDtype dtype);

/* A collective over the group of `axis` (layout->groups[axis]); bytes as nccl-tests'
 * size column (plan/collective.h). PLAN_COLL_SEND_RECV here is one ring step between
 * neighbours of the group (e.g. a CP ring pass). */
double sim_cost_coll_s (const SimCost *c, PlanColl coll, PlanAxis axis, double bytes);
/* The device's link to its host CPU's memory, per direction, as one device sees it when
 * every device on that link copies at once (TE's CPU offload runs the same on every
 * rank): the preset's host_link_GBps / host_link_devices, or where the preset has none
 * the family default below; `source` (may be NULL) says where the figure comes from. */
double sim_cost_host_link_Bps (const TopoCluster *cluster, const char **source);
/* A copy of `bytes` between the device and pinned host memory on a copy engine (no SMs):
 * bytes / sim_cost_host_link_Bps; 0 with free_comm. */
double sim_cost_host_copy_s (const SimCost *c, double bytes);
/* The SMs a collective's kernel holds on each member while it runs (CTAs: NCCL runs one
 * per channel): by the group's span, members per server and algorithm; `tp_overlap`: a
 * chunk of a TP collective that the stack overlaps with its GEMM (userbuffers). 0 where
 * the device's SM count is unknown or communication is free. */
int    sim_cost_coll_sms (const SimCost *c, PlanColl coll, PlanAxis axis, gboolean tp_overlap);
/* The SMs the flex dispatcher's all-to-all kernels (DeepEP's) hold: ep_comm_sms. */
int    sim_cost_ep_sms (const SimCost *c);
/* The slowdown of a compute kernel that starts while communication kernels hold `held`
 * of the device's SMs: held / (SMs - held), the compute keeping one SM at least. */
double sim_cost_sms_slowdown (const SimCost *c, int held);
/* On a CPU host with a measured contention whose threads outnumber its cores: the
 * slowdown of compute while a collective runs beside it (the prediction's
 * comm_compute_slowdown), which the simulator applies for the collective's span through
 * sim_cost_coll_sms (1 unit) and sim_cost_sms_slowdown (this, for any units held) in
 * place of stretching the whole compute block; 0 elsewhere (sim/cost-cpu.c). */
double sim_cost_cpu_coll_slowdown (const SimCost *c);
/* A point-to-point transfer between two devices (PP send/recv). */
double sim_cost_p2p_s  (const SimCost *c, guint64 dev_a, guint64 dev_b, double bytes);
/* AdamW over `params` local parameters, memory-bound: 30 bytes per parameter (fp32
 * master, fp32 grad, m, v read; master, m, v written; bf16 param written; cost-compute.c). */
double sim_cost_optimizer_s (const SimCost *c, double params);
/* Device time to stream `bytes` through HBM (each pass read or written counted once),
 * memory-bound at hbm_Bps x mem_efficiency, with no launch cost: the copy traffic of
 * framework glue around a collective (sim/simulate.c, ZeRO-3 list collectives). */
double sim_cost_hbm_s (const SimCost *c, double bytes);

/* E[max of n independent standard normal draws] (0 for n <= 1; 0.5642 for 2, 1.4236 for
 * 8, 3.2482 for 1,024), by numerical integration, cached per n (sim/cost.c). */
double sim_cost_expected_max_normal (guint64 n);
/* 1 + sigma x E[max of n standard normals]: the slowest of n GPUs whose speeds spread
 * with standard deviation sigma (a fraction of the median part's), against the median
 * part; 1 for sigma 0 or n <= 1. */
double sim_cost_straggler_factor_for (double sigma, guint64 n);
/* The factor this cost model applies to every compute kernel: perf_sigma over the plan's
 * GPUs (the layout's world; 1 without a layout). */
double sim_cost_straggler_factor (const SimCost *c);
/* The slowdown of a compute kernel that runs beside the flex dispatcher's all-to-all
 * kernels (DeepEP's normal kernels hold ep_comm_sms of the device's SMs): ep_comm_sms /
 * (SMs - ep_comm_sms); 0 where the SM count is unknown. */
double sim_cost_ep_compute_slowdown (const SimCost *c);

/* Effective bus bandwidth (bytes/s) the model uses for a collective of a group, and its
 * zero-byte time (base + the ring's steps x their alpha, or the NVLS latency), for
 * reports and tests.
 * A group of one rank reports 0 for both. */
double sim_cost_busbw_Bps  (const SimCost *c, PlanColl coll, PlanAxis axis);
double sim_cost_latency_s  (const SimCost *c, PlanColl coll, PlanAxis axis);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimCost, sim_cost_free)

G_END_DECLS
