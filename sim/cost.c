/* sim/cost.c - cost model options, their documented defaults, and construction.
 *
 * Defaults come from the cluster's device (topology presets carry a source for each
 * figure) and fall back to the constants below, each with its source. Tags as in
 * shared/reference/hardware.md: V verified, S secondary, D derived, U unverified. */
#include "sim/cost-private.h"

#include <math.h>
#include <string.h>

/* Fallbacks when the device JSON leaves a field at 0. */
/* Median of the BF16 MAMF efficiencies of hardware.md A4 (0.869, 0.803, 0.838, 0.776,
 * 0.729, 0.604, 0.514), rounded down: D. */
#define FALLBACK_GEMM_EFFICIENCY 0.75
/* H100 MAMF FP8 / BF16 = 0.709 / 0.803 = 0.883 (hardware.md A4): D, applied to devices
 * without their own FP8 MAMF figure. */
#define FP8_OVER_BF16_EFFICIENCY (0.709 / 0.803)
/* Copy and STREAM-triad kernels reach ~90% of HBM peak on H100/A100: U (recollection of
 * BabelStream-style results; calibrate with `tandem calibrate`). */
#define FALLBACK_MEM_EFFICIENCY 0.90
/* hardware.md A4: 2-6 us per launch outside CUDA graphs, S [PEGA], [DOGACEL]; middle. */
#define FALLBACK_LAUNCH_S 4e-6
/* CUTLASS/cuBLAS Hopper and Ampere BF16 GEMMs for large shapes use 128 x 256 (or
 * 256 x 128) CTA tiles: U (CUTLASS profiler defaults, recollection); the brief's figure. */
#define DEFAULT_TILE_M 128
#define DEFAULT_TILE_N 256
/* A 128 x 256 tile's epilogue (load/store of the C tile, 128 x 256 x 2 B = 64 KiB) costs
 * about as much traffic as two 64-wide k-blocks of the main loop ((128 + 256) x 64 x 2 B
 * = 48 KiB each): D, so a GEMM loses half its efficiency at k ~ 128. */
#define DEFAULT_SMALL_K_HALF 128.0
/* Compute slowed by concurrent NCCL kernels (SMs and HBM taken by comm channels): the
 * middle of the 5-15% range quoted for overlapped GEMM + collective kernels: U. */
#define DEFAULT_COMM_COMPUTE_SLOWDOWN 0.10
/* hardware.md Physical limits 3: "Achievable busbw is ~80% of W" (H100 370 / 450). */
#define DEFAULT_NVLINK_EFFICIENCY 0.80
/* NDR 400G NICs achieve 46-48 GB/s of 50: 47 / 50 = 0.94, V [NCCLT-290]. */
#define DEFAULT_NET_EFFICIENCY 0.94
/* NCCL base latency per collective, Ring LL 6.6 us (LL128 14, Simple 8.4), V
 * [NCCL-tuning]; LL is what NCCL picks for the small messages where this term matters. */
#define DEFAULT_COLL_BASE_S 6.6e-6
/* NCCL hwLat for NVLS (Simple) on NVLink, 25 us, V [NCCL-tuning]; NVLS has no base
 * latency and no per-step term in that model. */
#define DEFAULT_NVLS_LATENCY_S 25e-6

/* A device-to-host copy of a few bytes waited for by the host: one launch plus a
 * synchronize, "~4-6 us per launch-plus-sync" (hardware.md, S [PEGA]): the middle. */
#define HOST_SYNC_S 5e-6

/* Host time of one eager PyTorch op (Python, pybind11, autograd and ATen dispatch, the
 * launch): "~5-25 us of CPU-side work per op" (jiahuanglin.xyz, all_lessons/
 * gpu_kernel_serving/18_pytorch_to_kernel, table "What each layer actually does"): S, the
 * middle. */
#define EAGER_OP_HOST_S 15e-6

/* After a torch.cuda.synchronize the device is idle until the host issues its next
 * kernel: the synchronize's return (HOST_SYNC_S, a launch-plus-sync round trip) and the
 * first eager op of the next unit (EAGER_OP_HOST_S: Megatron's forward_step or
 * backward_step reaches its first kernel through Python, autograd and ATen dispatch).
 * Past that first kernel a GPU-bound stage's host runs ahead again. */
#define P2P_SYNC_REISSUE_S (HOST_SYNC_S + EAGER_OP_HOST_S)

/* Host time of one expert's GEMM in Transformer Engine's grouped GEMM (GroupedLinear's
 * general_grouped_gemm: nvte_multi_stream_cublas_gemm issues one cuBLASLt GEMM per local
 * expert, round-robin over its compute streams, each call creating its descriptors and
 * querying the heuristic; RAFT measured that bare cuBLASLt path at ~10 us per call,
 * rapidsai/raft PR 1736). TE measured the whole multi-stream path on SM100: 8 experts of
 * 128 tokens x 2048 x 2048 (TN fprop) in 0.267 ms with the operands pre-swizzled and only
 * the GEMMs timed, where one CUTLASS kernel does the same GEMMs in 0.069 ms
 * (NVIDIA/TransformerEngine PR 3134, "Single-launch CUTLASS grouped GEMM for per-tensor
 * NVFP4", table "TN (fprop)", row "8e x 128 ... pure", multi-stream column): the
 * per-expert calls, not the math, set that time, 0.267 ms / 8 = 33.4 us per expert GEMM:
 * S (one shape, one recipe, one GPU; the call path is the same for every recipe). */
#define TE_GEMM_CALL_HOST_S (0.267e-3 / 8.0)

/* Host time of one Transformer Engine linear module's forward call under Megatron-Core
 * (the module's Python entry, TE's prepare_forward and quantizer set-up, its GEMM call,
 * the autograd function's bookkeeping): Megatron-Core's TEColumnParallelLinear measured at
 * 140 us per forward pass, 115 us after TE's micro-optimizations, against 74 us for
 * Megatron's own ColumnParallelLinear (BF16, TP 1; NVIDIA/TransformerEngine PR 1191,
 * "[PyTorch] Minor optimizations to reduce CPU overheads in modules", its description):
 * S, the optimized figure. A MoE layer's forward calls two such modules (the fused-norm
 * QKV and the output projection) and two GroupedLinear modules (frameworks/stack.h
 * FwMoeHostOps te_linear_fwd, te_grouped_fwd). */
#define TE_MODULE_FWD_HOST_S 115e-6

/* ... of which its one GEMM call: the nvte_cublas_gemm host range, 20 us mean over 645,099
 * calls in a user's nsys profile of Qwen3-30B-A3B under Megatron-Core on B200
 * (yanring/Megatron-MoE-ModelZoo issue 7): S. A GroupedLinear call costs the module's part,
 * TE_MODULE_FWD_HOST_S less this, besides its per-expert GEMM calls (TE_GEMM_CALL_TRAIN_HOST_S). */
#define TE_ONE_GEMM_CALL_HOST_S 20e-6

/* Host time of one expert's GEMM call of a GroupedLinear in a training step, with the
 * Python TE runs around each call (the per-expert views of the split input, the output
 * and workspace lists, the tensors saved for the backward), which the microbenchmark
 * behind TE_GEMM_CALL_HOST_S leaves out: the same issue-7 profile (Qwen3-30B-A3B under
 * Megatron-Core with TE GroupedLinear, EP 8, so 16 local experts, MBS 1, BF16, the
 * alltoall dispatcher, 8 x B200; yanring/Megatron-MoE-ModelZoo issue 7, its nsys NVTX
 * summary) times the experts' forward (MOE_EXPERTS_COMP: fc1, the activation, fc2) at
 * 2.187 ms median over 6,144 calls (min 1.940 ms). Of that, the two GroupedLinear calls'
 * own parts, 2 x (TE_MODULE_FWD_HOST_S - TE_ONE_GEMM_CALL_HOST_S) = 190 us, and the
 * activation's two eager ops (frameworks/presets megatron-core.json moe.host_ops),
 * 2 x EAGER_OP_HOST_S = 30 us, leave 1.967 ms for 2 x 16 per-expert calls: 61.5 us each.
 * S for the forward (one model, one GPU type, BF16; nsys's own cost per traced call, a few
 * us, included); U that the backward's calls (the same general_grouped_gemm path) cost the
 * same. */
#define TE_GEMM_CALL_TRAIN_HOST_S                                                         \
  ((2.187e-3 - 2.0 * (TE_MODULE_FWD_HOST_S - TE_ONE_GEMM_CALL_HOST_S) - 2.0 * EAGER_OP_HOST_S) \
   / 32.0)

/* Flash attention efficiency (fraction of dense peak) by GPU generation.
 *  - Hopper: FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608) reaches up to 740
 *    TFLOP/s BF16 forward = 75% of 989; FA2 reached ~35% on H100 (same paper). Causal
 *    training shapes (head_dim 128, 4-8K) sit below the best case: fwd 0.60 (U, ~600
 *    TFLOP/s), bwd 0.45 (U, ~450 TFLOP/s; the backward does 2.5x the matmuls with more
 *    non-matmul work and atomics for dQ).
 *  - Ampere: FlashAttention-2 (Dao 2023, arXiv 2307.08691) "50-73% of the theoretical
 *    maximum FLOPs/s on A100" forward: fwd 0.60 (middle), bwd 0.45 (U).
 *  - Others: the Hopper ratios to MAMF, fwd 0.60 / 0.803 = 0.75 and bwd 0.45 / 0.803 =
 *    0.56 of gemm_efficiency (D). */
#define ATTN_FWD_HOPPER 0.60
#define ATTN_BWD_HOPPER 0.45
#define ATTN_FWD_AMPERE 0.60
#define ATTN_BWD_AMPERE 0.45
#define ATTN_FWD_OVER_GEMM (0.60 / 0.803)
#define ATTN_BWD_OVER_GEMM (0.45 / 0.803)

/* The sustained-to-burst matmul ratio of the parts the Hopper fits were fitted on (H100
 * SXM at 700 W): measured on an 8-GPU H200 SXM node (the same GH100 die at the same
 * 700 W; its HBM3e does not set a GEMM's rate), every GPU computing, BF16, torch 2.14 +
 * CUDA 13.0, 5 rounds x 8 GPUs: MSMF 755.5 TFLOP/s (the matmul rate held once the clock
 * has settled at the power limit; 1,850-1,938 MHz) over MAMF 852.1 (boost bursts after
 * idle) = 0.8866 (stas00/ml-engineering compute/accelerator/benchmarks/README.md, "How
 * MAMF and MSMF are defined", "What was measured: alone vs all-8 concurrent"). D: the
 * H100 itself was not measured with that protocol (U). */
#define HOPPER_FIT_SUSTAINED_RATIO (755.5 / 852.1)

/* Architectures: the fitted knobs below belong to a chip generation, not to a product
 * name, so that a variant (H100 NVL, H200, the 94 GB HBM2e parts) takes its generation's
 * figures scaled to its own MAMF. */
typedef enum { ARCH_OTHER, ARCH_AMPERE, ARCH_HOPPER, ARCH_BLACKWELL, ARCH_N } Arch;

typedef struct {
  const char *name_part;   /* matched case-insensitively in the device name; first wins */
  double      fp8_eff;     /* MAMF FP8 / dense FP8 peak, hardware.md A4 [MAMF]; 0 = none */
  Arch        arch;
  /* the host link where the preset names none (sim_cost_default_host_link):
   * grace_gpus > 0: NVLink-C2C of one Grace CPU shared by that many GPUs; otherwise PCIe
   * x16 of generation pcie_gen, 0 = the architecture's (Ampere 4, later 5) */
  guint8      grace_gpus;
  guint8      pcie_gen;
} DeviceRow;

/* Longer names first: "GH200" before "H200", "GB200" before "B200". */
static const DeviceRow device_rows[] = {
  { "GH200", 1535.0 / 1978.9, ARCH_HOPPER, 1 },   /* 77.6%; one GPU per Grace */
  /* GB300: no FP8 measurement; its BF16 GEMM at the rated 1,400 W reaches 2,174 of 2,500
   * (topology/presets/gb300-nvl72-superpod gemm_efficiency: facebookexperimental/triton
   * PR 2023), and FP8 keeps GB200's FP8-to-BF16 MAMF ratio (3,615.6 / 5,000 over 1,822 /
   * 2,500 = 0.992): 0.870 x 0.992 = 0.863, D/U. The same die at 1,100 W (HGX B300)
   * measures as B200 (MAMF BF16 1,769 / 2,250 = 78.6%, FP8 3,353.3 / 4,500 = 74.5%
   * against B200's 1,745 and 3,432.5: [MAMF] table, revision after hardware.md's, "same
   * as B200"): the gain is the NVL72 part's power, which GB200 (1,200 W) lacks */
  { "GB300", 2174.0 / 2500.0 * (3615.6 / 5000.0) / (1822.0 / 2500.0), ARCH_BLACKWELL, 2 },
  /* 72.3%; GB200 and GB300 put 2 GPUs on one Grace (36 Grace per 72 GPUs, hardware.md A2) */
  { "GB200", 3615.6 / 5000.0, ARCH_BLACKWELL, 2 },
  { "B300", 3353.3 / 4500.0, ARCH_BLACKWELL },  /* 74.5%, [MAMF] (revision above) */
  { "B200", 3432.5 / 4500.0, ARCH_BLACKWELL },  /* 76.3% */
  { "H100", 1402.6 / 1978.9, ARCH_HOPPER },     /* 70.9% */
  { "H800", 1402.6 / 1978.9, ARCH_HOPPER },     /* same die as H100: D */
  { "H200", 1453.4 / 1978.9, ARCH_HOPPER },     /* 73.4% */
  { "H20", 1402.6 / 1978.9, ARCH_HOPPER },      /* Hopper die: D */
  { "A100", 0.0, ARCH_AMPERE },                 /* no FP8 */
  { "A800", 0.0, ARCH_AMPERE },
  { "A40", 0.0, ARCH_AMPERE },
  { "A30", 0.0, ARCH_AMPERE },
  { "Ampere", 0.0, ARCH_AMPERE },
  { "Hopper", 1402.6 / 1978.9, ARCH_HOPPER },
  { "Blackwell", 3432.5 / 4500.0, ARCH_BLACKWELL },
  /* no architecture here (no fitted knobs: as an unknown device), only their host link */
  { "V100", 0.0, ARCH_OTHER, 0, 3 },
  { "L40", 0.0, ARCH_OTHER, 0, 4 },
  { "MI250", 0.0, ARCH_OTHER, 0, 4 },
};

/* Hardware knobs fitted to measured training runs, per architecture, each as a fraction
 * of a microbenchmark ceiling so it carries to the generation's other parts:
 *   gemm      training GEMM efficiency / BF16 MAMF (hardware.md A4: H100 0.803, A100
 *             0.869); bound (0.6, 1.0]: above 1 would beat the best measured GEMM;
 *   gemm_fp8  the same in FP8 / FP8 MAMF (H100 0.709); bound (0.5, 1.0];
 *   traffic   memory-bound ops move this many times their fused minimum of bytes at the
 *             achieved HBM bandwidth (what the roofline misses: dependent launches, tails,
 *             fp32 statistics); bound [1, 3];
 *   small_k   k at which a GEMM loses half its efficiency to prologue and epilogue;
 *             bound [32, 2048].
 * Framework effects are not here: attention kernels, fusion and per-kernel overhead come
 * from the stack (frameworks/presets) through the tables below.
 * Fitted by tools/fit-published.py (leave-one-source-out figures next to the in-sample
 * ones in its report and in the README). Hopper: 24 H100 rows (Llama 3, Megatron-Core
 * README, NeMo 24.07); Ampere: 103 A100 rows (Megatron-LM 2021/2022, SC'21, DeepSpeed,
 * BLOOM, MT-NLG, MPT on llm-foundry, torchtitan). Blackwell has no published rows here:
 * it takes Hopper's fractions and its predictions say "extrapolated". */
typedef struct {
  Arch   arch;
  double gemm, gemm_fp8, traffic, small_k_half;
  double gemm_max, gemm_fp8_max, traffic_max, small_k_min;  /* bounds */
} CalibRow;

static const CalibRow calib_rows[] = {
  /* Hopper: mem_traffic_factor 3.0 sits on its bound with a flat optimum across it (H100
   * MAPE 2.9: 4.67%, 3.0: 4.601%, 3.1: 4.600%, 3.5: 4.80%): the data hardly want it further;
   * small_k_half 32 sits on its bound with a flat optimum (48: 4.597%, 32: 4.601%, 64:
   * 4.634%), kept at 32 because 48 raises the H100 leave-one-source-out MAPE (5.19% ->
   * 5.32%, tools/loso.py). Both are reported at their bounds (tools/knob_bounds.py).
   * Compute beside communication kernels is no knob here: it runs on the SMs those
   * kernels leave (sim_cost_coll_sms, sourced CTA counts in
   * sim_cost_options_init_documented). The fitted comm_compute_slowdown it replaces sat
   * at its bound 0 on Hopper (H100 MAPE 4.831% at 0, 4.832% at the optimum 0.00175) and
   * took the documented 0.10 on Ampere; a drifting slowdown kept uneven 1F1B pipelines
   * (Llama-3 405B 7 + 14 x 8 + 7 at 256 micro-batches) from repeating exactly, so they
   * were simulated whole (sim/simulate.c's steady state).
   * gemm_fp8 refitted (0.61 -> 0.602 of the FP8 peak) when the TE stacks' casts went per
   * operand (frameworks/presets megatron-core.json, nemo.json: the weight gradient
   * reuses the transposed copies of the forward's and the data gradient's
   * cast-transposes, where each of the three GEMMs had cast its A): H100 MAPE at
   * 0.598 / 0.600 / 0.602 / 0.604 = 4.812 / 4.788 / 4.774 / 4.789% (4.807% before the
   * change, at 0.61). Kept when the output layer and router of FP8 plans went bf16 (round
   * 32, sim/cost-compute.c op_math_s): the loso.py grid 0.58 / 0.602 / 0.64 still picks
   * 0.602 (H100 4.40%); in code steps 0.602 / 0.608 / 0.614 / 0.620 give dev H100 4.397 /
   * 4.341 / 4.323 / 4.306% but held-out dense 7.09 / 7.13 / 7.18 / 7.26%. Kept again when
   * Transformer Engine's TP all-gathers went FP8 (round 32, plan/program.c tp_ag_bytes):
   * H100 4.31% at 0.602, 4.34% at 0.596, 4.52% at 0.590. */
  { ARCH_HOPPER, 0.7847 / 0.803, 0.602 / 0.709, 3.0, 32,
    1.0, 1.0, 3.0, 32 },
  { ARCH_AMPERE, 0.7718 / 0.869, 0.0, 1.0, 288,
    1.0, 1.0, 3.0, 32 },
};

/* Attention kernel efficiency as a fraction of the device's BF16 MAMF (gemm_efficiency
 * before calibration), by architecture and the stack's kernel class (frameworks/stack.h).
 *   fitted: Hopper cuDNN fused (TE) on the H100 Megatron-Core / NeMo / Llama rows, at
 *     the 4K kernels they run (ATTN_LEN_* below carry it to other lengths),
 *     0.4235 / 0.315 of peak = 0.527 / 0.392 of the 0.803 MAMF; Ampere FlashAttention-2
 *     on the A100 llm-foundry / torchtitan rows, 0.418 / 0.2871 of peak = 0.481 / 0.330
 *     of the 0.869 MAMF. Bounds: at least 0.3 of peak forward, 0.25 backward.
 *   FlashAttention-3 on Hopper: as cuDNN (Shah et al. 2024, arXiv 2407.08608, Fig. 5-6:
 *     FA3 and cuDNN within ~10% at head_dim 128, causal): U.
 *   FlashAttention-2 and Triton on Hopper: the same paper's figures, each class's causal
 *     rate at the length its curve is normalised to (16K, ATTN_LEN_* below) over
 *     cuDNN's at the fit's 4K (FA2_OVER_CUDNN_FIT_* below: FA2 0.647 forward, 0.687
 *     backward; Triton 0.730 forward, FA2's backward).
 *   Ampere has no FA3; cuDNN fused attention on A100 runs FA2-class kernels: all classes
 *     take the FA2 figure (U).
 *   Blackwell: Hopper's fractions (extrapolated). */
/* The attention kernel without the causal mask against the causal one, FLOP rate (each
 * counting its own FLOPs, causal halved), at 512, 1K, 2K, 4K, 8K and 16K tokens: Shah et
 * al. 2024 (FlashAttention-3, arXiv 2407.08608) Fig. 5, H100 SXM5, BF16, head dim 128,
 * forward, panel (b) without over panel (e) with the causal mask: cuDNN 497/315, 574/410,
 * 617/484, 609/518, 600/529, 595/539; FlashAttention-3 467/292, 565/423, 625/521,
 * 638/579, 646/602, 648/616; FlashAttention-2 309/191, 350/260, 362/298, 368/319,
 * 370/333, 370/335; Triton 323/146, 372/273, 389/323, 389/353, 392/369, 395/378 TFLOP/s
 * (V, read off the figure's bar labels). The causal kernel loses on the diagonal blocks, half masked, and on the
 * uneven work of its rows. XLA takes FlashAttention-2's (U). */
static const double NONCAUSAL_GAIN_CUDNN[6] = { 497.0 / 315, 574.0 / 410, 617.0 / 484,
                                                609.0 / 518, 600.0 / 529, 595.0 / 539 };
static const double NONCAUSAL_GAIN_FA3[6] = { 467.0 / 292, 565.0 / 423, 625.0 / 521,
                                              638.0 / 579, 646.0 / 602, 648.0 / 616 };
static const double NONCAUSAL_GAIN_FA2[6] = { 309.0 / 191, 350.0 / 260, 362.0 / 298,
                                              368.0 / 319, 370.0 / 333, 370.0 / 335 };
static const double NONCAUSAL_GAIN_TRITON[6] = { 323.0 / 146, 372.0 / 273, 389.0 / 323,
                                                 389.0 / 353, 392.0 / 369, 395.0 / 378 };

/* The same gain for the BACKWARD kernel (a context-parallel ring step's backward runs
 * unmasked: sim/cost-compute.c). The FlashAttention-3 paper has no causal backward panel
 * and the FlashAttention-2 paper's backward figures (A100, arXiv 2307.08691 Fig. 6) are
 * not transcribed here. Published runs that time both masks in one run, BF16, head dim
 * 128 (no head-dim-64 pair was found; the gain is taken for every head dim, as the
 * forward's), each FLOP count of a causal run halved:
 *   FlashAttention-2 and -3: Dao-AILab/flash-attention PR #1791 (hopper/benchmark_attn.py
 *     on H100, batch 2 x 8K, 16 heads: Fig. 5's shape), two builds. FA2 backward no mask
 *     over causal 290.6 / 287.1 = 1.0122 and 288.9 / 289.1 = 0.9993, mean 1.00575 (its
 *     forwards 369.9 / 284.1 = 1.302 and 371.1 / 281.4 = 1.319); FA3 backward 553.9 /
 *     531.6 = 1.0420 (forward 659.1 / 630.0 = 1.046). FA2's backward walks K/V column
 *     blocks with the mask on the diagonal block of each and loses almost nothing to it;
 *     its causal backward, 287.1 / 289.1, also matches the causal figure derived below
 *     (ATTN_LEN_BWD_FA2, 286.2 at 8K), so only the no-mask side departs from the
 *     forward's ratio. Measured at Fig. 5's shape, these are the 8K points; other lengths
 *     keep the measured share r of the forward's loss at 8K (D/U: one length):
 *     g_bwd = 1 + r (g_fwd - 1), FA2 r = 0.00575 / (370/333 - 1) = 0.05175: 1.0320,
 *     1.0179, 1.0111, 1.0079, 1.0057, 1.0054 at 512 .. 16K; FA3 r = 0.0420 / (646/602 -
 *     1) = 0.5739: 1.3440, 1.1927, 1.1146, 1.0585, 1.0419, 1.0298.
 *   cuDNN: NVIDIA cudnn-frontend benchmark/sdpa_benchmark_training results
 *     h200_919_only_cudnn/llama3.1_20260227_034703.csv (H200, cuDNN 9.19.1, batch 1,
 *     64 query / 8 KV heads): backward no_mask over top_left TFLOP/s 504/370 at 2K,
 *     560/474 at 4K, 594/541 at 8K, 612/579 at 16K; forward 633/484, 671/591, 691/644,
 *     702/673. At 64 heads the causal loss is smaller than at Fig. 5's 16 (more tiles per
 *     wave: the CSV's forward gains 1.308 .. 1.043 against Fig. 5's 1.275 .. 1.104), so
 *     the CSV gives the backward's gain over the forward's at the same shape, 1.0415,
 *     1.0406, 1.0233, 1.0133 at 2K .. 16K (the 2K ratio held at 512 and 1K, U), on
 *     Fig. 5's forward gains: 1.6433, 1.4581, 1.3277, 1.2234, 1.1606, 1.1186.
 *   Triton and XLA take FlashAttention-2's backward (U; Triton's backward curves are
 *     FA2's as well). */
#define FA2_BWD_GAIN_8K ((290.6 / 287.1 + 288.9 / 289.1) / 2.0)
#define FA2_BWD_GAIN(fwd) (1.0 + (FA2_BWD_GAIN_8K - 1.0) / (370.0 / 333 - 1.0) * ((fwd) - 1.0))
#define FA3_BWD_GAIN(fwd) (1.0 + (553.9 / 531.6 - 1.0) / (646.0 / 602 - 1.0) * ((fwd) - 1.0))
#define CUDNN_BWD_OVER_FWD_2K ((504.0 / 370) / (633.0 / 484))
static const double NONCAUSAL_GAIN_BWD_CUDNN[6] = {
  497.0 / 315 * CUDNN_BWD_OVER_FWD_2K, 574.0 / 410 * CUDNN_BWD_OVER_FWD_2K,
  617.0 / 484 * CUDNN_BWD_OVER_FWD_2K, 609.0 / 518 * (560.0 / 474) / (671.0 / 591),
  600.0 / 529 * (594.0 / 541) / (691.0 / 644), 595.0 / 539 * (612.0 / 579) / (702.0 / 673) };
static const double NONCAUSAL_GAIN_BWD_FA3[6] = {
  FA3_BWD_GAIN (467.0 / 292), FA3_BWD_GAIN (565.0 / 423), FA3_BWD_GAIN (625.0 / 521),
  FA3_BWD_GAIN (638.0 / 579), FA3_BWD_GAIN (646.0 / 602), FA3_BWD_GAIN (648.0 / 616) };
static const double NONCAUSAL_GAIN_BWD_FA2[6] = {
  FA2_BWD_GAIN (309.0 / 191), FA2_BWD_GAIN (350.0 / 260), FA2_BWD_GAIN (362.0 / 298),
  FA2_BWD_GAIN (368.0 / 319), FA2_BWD_GAIN (370.0 / 333), FA2_BWD_GAIN (370.0 / 335) };

static void
set_noncausal_gain (SimCostOptions *o, const double *gain, const double *gain_bwd)
{
  memcpy (o->attn_noncausal_gain, gain, sizeof o->attn_noncausal_gain);
  memcpy (o->attn_noncausal_gain_bwd, gain_bwd, sizeof o->attn_noncausal_gain_bwd);
}

/* The kernel's FLOP rate by length. Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608)
 * Fig. 5 and 6, H100 SXM5, BF16, head dim 128, 16K tokens per call (batch x length), at
 * 512, 1K, 2K, 4K, 8K and 16K tokens, TFLOP/s (V, the figure's bar labels):
 *   forward, causal (Fig. 5e): cuDNN 315 410 484 518 529 539; FlashAttention-3 292 423
 *     521 579 602 616; FlashAttention-2 191 260 298 319 333 335; Triton 146 273 323 353
 *     369 378;
 *   forward, no mask (Fig. 5b): cuDNN 497 574 617 609 600 595; FA3 467 565 625 638 646
 *     648; FA2 309 350 362 368 370 370;
 *   backward, no mask (Fig. 6b): cuDNN 305 408 465 499 518 516; FA3 316 424 501 542 559
 *     561; FA2 214 260 291 310 318 322 (no Triton, no causal panel).
 * The causal backward is the figure's backward over the forward's no-mask gain at the
 * same length (D: the backward walks the same blocks; for FlashAttention-2 the measured
 * causal backward, 287.1 and 289.1 at 8K in flash-attention PR #1791, confirms the 286.2
 * below, though its no-mask backward ran 290.6, not Fig. 6b's 318: NONCAUSAL_GAIN_BWD_*
 * above carry the backward's own gain to the ring steps): cuDNN 193.3 291.4 364.8
 * 424.4 456.7 467.4 (305 x 315 / 497, ...); FA3 197.6 317.4 417.6 491.9 520.9 533.3;
 * FA2 132.3 193.1 239.6 268.7 286.2 291.5. Triton's backward takes FA2's shape (U).
 * What rises with length is the causal kernel's: its masked diagonal blocks are a
 * smaller share of a longer row (without the mask the rates are flat from 2K on). Held
 * flat outside 512..16K (no published point beyond; a longer kernel has an even smaller
 * diagonal share, so this is the conservative side).
 * Normalisation: the Hopper cuDNN figures below were fitted on H100 dev rows that run the
 * kernel at 4K: 17 of the 24 (Megatron-Core benchmark and NeMo rows at 4K, NeMo's Llama 3
 * at 8K in CP2 ring blocks of 4K, Llama 3's 128K in all-gathered chunks of 4K), 4 at 2K,
 * 2 at 8K; weighted by how much each row's prediction moves with the attention
 * efficiency, the geometric mean length is 4.5K. So cuDNN, FlashAttention-3 and XLA
 * (cuDNN's kernels on GPU) take their curve over the 4K point. FlashAttention-2 and
 * Triton take theirs over the 16K point, where their ratios to the cuDNN fit are read
 * (FA2_OVER_CUDNN_FIT_* below), and lose with shorter kernels. */
static const double ATTN_LEN_FWD_CUDNN[6] = { 315.0 / 518, 410.0 / 518, 484.0 / 518, 1.0,
                                              529.0 / 518, 539.0 / 518 };
static const double ATTN_LEN_BWD_CUDNN[6] = { 193.3 / 424.4, 291.4 / 424.4, 364.8 / 424.4, 1.0,
                                              456.7 / 424.4, 467.4 / 424.4 };
static const double ATTN_LEN_FWD_FA3[6] = { 292.0 / 579, 423.0 / 579, 521.0 / 579, 1.0,
                                            602.0 / 579, 616.0 / 579 };
static const double ATTN_LEN_BWD_FA3[6] = { 197.6 / 491.9, 317.4 / 491.9, 417.6 / 491.9, 1.0,
                                            520.9 / 491.9, 533.3 / 491.9 };
static const double ATTN_LEN_FWD_FA2[6] = { 191.0 / 335, 260.0 / 335, 298.0 / 335,
                                            319.0 / 335, 333.0 / 335, 1.0 };
static const double ATTN_LEN_BWD_FA2[6] = { 132.3 / 291.5, 193.1 / 291.5, 239.6 / 291.5,
                                            268.7 / 291.5, 286.2 / 291.5, 1.0 };
static const double ATTN_LEN_FWD_TRITON[6] = { 146.0 / 378, 273.0 / 378, 323.0 / 378,
                                               353.0 / 378, 369.0 / 378, 1.0 };

static void
set_len_curve (SimCostOptions *o, const double *fwd, const double *bwd)
{
  memcpy (o->attn_len_fwd, fwd, sizeof o->attn_len_fwd);
  memcpy (o->attn_len_bwd, bwd, sizeof o->attn_len_bwd);
}

/* The kernel's FLOP rate at head_dim 64 over its rate at head_dim 128 (the fitted
 * efficiencies and the curves above hold at 128), by length. Shah et al. 2024
 * (FlashAttention-3, arXiv 2407.08608) Fig. 5 and 6, H100 SXM5, BF16, head dim 64, at
 * 512 .. 16K tokens, TFLOP/s (V, the figure's bar labels, read as those of the head dim
 * 128 panels above were):
 *   forward, causal (Fig. 5d): cuDNN 225 288 334 363 379 388; FlashAttention-3 197 265
 *     371 420 460 473; FlashAttention-2 180 229 262 284 295 299; Triton 152 288 342 363
 *     376 363;
 *   forward, no mask (Fig. 5a): cuDNN 335 373 395 408 412 413; FA3 333 392 460 476 496
 *     497; FA2 282 306 318 321 322 324;
 *   backward, no mask (Fig. 6a): cuDNN 266 348 395 417 432 433; FA3 272 363 422 453 472
 *     474; FA2 198 238 264 279 287 291.
 * The causal backward at head dim 64 is derived as at 128 (the no-mask backward over the
 * forward's no-mask gain at the same length, D): cuDNN 266 x 225 / 335 = 178.7, ...
 * Forward: each figure over the head-dim-128 causal one at the same length (cuDNN
 * 225 / 315 = 0.714 .. 388 / 539 = 0.720: a 64-wide head does half the MMA work per
 * score for the same softmax and the same Q/K/V tile traffic per FLOP doubled). Triton's
 * forward is faster at 64 than at 128 on short rows; its backward takes FA2's (U). The
 * unmasked and ring kernels take the causal ratio (U: the no-mask panels give
 * 0.64-0.69 for cuDNN, within 0.07). Blackwell borrows Hopper's ratios (extrapolated, as
 * its efficiencies); Ampere's FA2 fit stays at 1 (the figures are an H100's). Head dims
 * above 128 stay at 1 (U: no head-dim-256 causal BF16 figure is used here). */
static const double ATTN_HD64_FWD_CUDNN[6] = { 225.0 / 315, 288.0 / 410, 334.0 / 484,
                                               363.0 / 518, 379.0 / 529, 388.0 / 539 };
static const double ATTN_HD64_BWD_CUDNN[6] = {
  (266.0 * 225 / 335) / (305.0 * 315 / 497), (348.0 * 288 / 373) / (408.0 * 410 / 574),
  (395.0 * 334 / 395) / (465.0 * 484 / 617), (417.0 * 363 / 408) / (499.0 * 518 / 609),
  (432.0 * 379 / 412) / (518.0 * 529 / 600), (433.0 * 388 / 413) / (516.0 * 539 / 595) };
static const double ATTN_HD64_FWD_FA3[6] = { 197.0 / 292, 265.0 / 423, 371.0 / 521,
                                             420.0 / 579, 460.0 / 602, 473.0 / 616 };
static const double ATTN_HD64_BWD_FA3[6] = {
  (272.0 * 197 / 333) / (316.0 * 292 / 467), (363.0 * 265 / 392) / (424.0 * 423 / 565),
  (422.0 * 371 / 460) / (501.0 * 521 / 625), (453.0 * 420 / 476) / (542.0 * 579 / 638),
  (472.0 * 460 / 496) / (559.0 * 602 / 646), (474.0 * 473 / 497) / (561.0 * 616 / 648) };
static const double ATTN_HD64_FWD_FA2[6] = { 180.0 / 191, 229.0 / 260, 262.0 / 298,
                                             284.0 / 319, 295.0 / 333, 299.0 / 335 };
static const double ATTN_HD64_BWD_FA2[6] = {
  (198.0 * 180 / 282) / (214.0 * 191 / 309), (238.0 * 229 / 306) / (260.0 * 260 / 350),
  (264.0 * 262 / 318) / (291.0 * 298 / 362), (279.0 * 284 / 321) / (310.0 * 319 / 368),
  (287.0 * 295 / 322) / (318.0 * 333 / 370), (291.0 * 299 / 324) / (322.0 * 335 / 370) };
static const double ATTN_HD64_FWD_TRITON[6] = { 152.0 / 146, 288.0 / 273, 342.0 / 323,
                                                363.0 / 353, 376.0 / 369, 363.0 / 378 };

static void
set_hd64_curve (SimCostOptions *o, const double *fwd, const double *bwd)
{
  memcpy (o->attn_hd64_fwd, fwd, sizeof o->attn_hd64_fwd);
  memcpy (o->attn_hd64_bwd, bwd, sizeof o->attn_hd64_bwd);
}

/* The BF16 tensor FLOPs an H100 SM does per SFU exponential: 989.4e12 dense BF16 /
 * (132 SMs x 1.83 GHz) = 4,096 FLOP per clock per SM (4 Tensor Cores x 1,024; the clock
 * the dense peak implies, topology/presets dgx-h100-superpod) against 16 MUFU.EX2 results
 * per clock per SM (CUDA C++ Programming Guide, arithmetic instruction throughput, compute
 * capability 9.0): 4,096 / 16 = 256. The Hopper attention fractions were fitted at this
 * balance, so their time holds the exponentials at its rate. A Blackwell SM doubles the
 * tensor rate (8,192 BF16 FLOP per clock, [SB-gpus]) on the same 16 exponentials: 512
 * FLOP per exponential; Blackwell Ultra doubles the SFU (32 per clock: NVIDIA technical
 * blog 'Making Softmax More Efficient with NVIDIA Blackwell Ultra'), back to 256. That
 * blog shows the GB200 attention loop with the Tensor Cores idle while the SFU
 * normalizes the scores (BMM1 -> softmax -> BMM2 within a tile), i.e. the exponentials
 * beyond the tensor work's share run serially with it (sim/cost-compute.c
 * attention_fused_s). */
#define HOPPER_FLOP_PER_EXP (989.4e12 / (132 * 1.83e9) / 16.0)

/* The GDN delta rule's Triton kernels (flash-linear-attention) against the cuDNN fit:
 * FlashAttention-2 at ~350 TFLOP/s forward and ~300 backward against FA3's ~600 and
 * ~460 (Shah et al. 2024, head_dim 128, causal, 8-16K tokens; U: read off the figures),
 * the ratio that softmax attention's FA2 class took before FA2_OVER_CUDNN_FIT_*. */
#define FA2_OVER_FA3_FWD 0.58
#define FA2_OVER_FA3_BWD 0.65
/* Softmax attention of the FlashAttention-2 and Triton classes on Hopper against the
 * fitted cuDNN figure. The cuDNN fit holds at 4K and its curve is 1 there; FA2's and
 * Triton's curves are 1 at 16K (ATTN_LEN_* above), so each class takes its own causal
 * rate at 16K over cuDNN's at 4K, all from Shah et al. 2024 Fig. 5e (forward causal,
 * H100 SXM5, BF16, head dim 128): FA2 335 / 518 = 0.6467, Triton 378 / 518 = 0.7297;
 * and the causal backward derived above (ATTN_LEN_BWD_*): FA2 291.5 / 424.4 = 0.6869,
 * Triton taking FA2's backward. D. The fit's discount against the benchmark (cuDNN
 * 0.4235 x 989.4 = 419 TFLOP/s where the figure has 518 at 4K) carries to these classes
 * in the same proportion. The ratios 0.58 / 0.65 these replace (FA2 over FA3 at 8-16K,
 * read loosely) were applied to cuDNN's 4K point, so FA2 at 4K came out 0.58 x 319/335
 * = 0.552 of cuDNN's 4K rate where the figure gives 319/518 = 0.616, and backward 0.65 x
 * 268.7/291.5 = 0.599 against 268.7/424.4 = 0.633. */
#define FA2_OVER_CUDNN_FIT_FWD (335.0 / 518.0)
#define FA2_OVER_CUDNN_FIT_BWD (291.5 / 424.4)
#define TRITON_OVER_CUDNN_FIT_FWD (378.0 / 518.0)
#define HOPPER_CUDNN_FWD (0.4235 / 0.803)
#define HOPPER_CUDNN_BWD (0.315 / 0.803)
#define AMPERE_FA2_FWD (0.418 / 0.869)
#define AMPERE_FA2_BWD (0.2871 / 0.869)

/* Element-wise passes in eager PyTorch per fused op: an RMSNorm is pow, mean, add,
 * rsqrt, mul, mul (6 kernels where a fused kernel reads and writes once), SwiGLU silu +
 * mul (2), a residual add 1; over a layer's norms, activation and residuals (2 norms,
 * 1 activation, 2 residuals) that is (2 x 6 + 2 + 2) / 5 = 3.2 kernels per op. Each
 * extra kernel re-reads its input from L2 or HBM; half of them hit L2 on these tensor
 * sizes (U), so 1 + (3.2 - 1) / 2 = 2.1 passes: D. */
#define EAGER_ELEMENTWISE_PASSES 2.1

static gboolean
contains_ci (const char *haystack, const char *needle)
{
  g_autofree char *h = g_ascii_strdown (haystack, -1);
  g_autofree char *n = g_ascii_strdown (needle, -1);
  return strstr (h, n) != NULL;
}

static const DeviceRow *
device_row_for (const char *part)
{
  for (guint i = 0; i < G_N_ELEMENTS (device_rows); i++)
    if (contains_ci (part, device_rows[i].name_part))
      return &device_rows[i];
  return NULL;
}

/* The device's row, by its part (topology: its "part", else its name). */
static const DeviceRow *
device_row (const TopoCluster *cluster)
{
  if (cluster == NULL || cluster->device.name == NULL)
    return NULL;
  return device_row_for (topo_device_part (&cluster->device));
}

gboolean
sim_cost_device_known (const TopoCluster *cluster)
{
  return device_row (cluster) != NULL;
}

gboolean
sim_cost_device_blackwell (const TopoCluster *cluster)
{
  const DeviceRow *row = device_row (cluster);
  return row != NULL && row->arch == ARCH_BLACKWELL;
}

gboolean
sim_cost_part_known (const char *part)
{
  return part != NULL && device_row_for (part) != NULL;
}

/* PCIe per direction for an x16 slot: lanes x transfer rate x 128/130 (the 128b/130b
 * encoding of Gen3 and later) / 8 bits: Gen5 32 GT/s -> 63.0 GB/s, Gen4 16 GT/s -> 31.5,
 * Gen3 8 GT/s -> 15.75 (PCI-SIG base specification rates: D). The link rate; a
 * cudaMemcpyAsync from pinned memory reaches a little less, which is not modelled. */
#define PCIE_X16_GBPS(gts) (16.0 * (gts) * 128.0 / 130.0 / 8.0)

double
sim_cost_default_host_link (const TopoCluster *cluster, const char **source)
{
  const DeviceRow *row = device_row (cluster);
  const char *src;
  double bps;
  if (row != NULL && row->grace_gpus > 0)
    {
      bps = 450e9 / row->grace_gpus;
      src = "default for Grace superchips: NVLink-C2C 900 GB/s bidirectional = 450 GB/s "
            "per direction (NVIDIA Grace Hopper / Grace Blackwell pages, U), shared by "
            "the GPUs of one Grace (2 on GB200/GB300: 36 Grace per 72 GPUs, hardware.md A2)";
    }
  else
    {
      /* a device of no row: Gen5 (the parts of today); no device name at all: Gen4 */
      int gen = row != NULL && row->pcie_gen > 0 ? row->pcie_gen
                : row != NULL ? (row->arch == ARCH_AMPERE ? 4 : 5)
                : cluster != NULL && cluster->device.name != NULL ? 5 : 4;
      if (gen == 3)
        {
          bps = PCIE_X16_GBPS (8) * 1e9;
          src = "default for V100: PCIe Gen3 x16, 8 GT/s x 16 x 128/130 / 8 = 15.75 GB/s per "
                "direction (PCI-SIG rates, D)";
        }
      else if (gen == 4)
        {
          bps = PCIE_X16_GBPS (16) * 1e9;
          src = "default for PCIe Gen4 parts (Ampere: A100, A800; L40S, MI250): x16, 16 GT/s "
                "x 16 x 128/130 / 8 = 31.5 GB/s per direction (PCI-SIG rates, D)";
        }
      else
        {
          bps = PCIE_X16_GBPS (32) * 1e9;
          src = "default for PCIe Gen5 hosts (H100, H200, H20, B200, B300, MI300X and later): "
                "x16, 32 GT/s x 16 x 128/130 / 8 = 63 GB/s per direction (PCI-SIG rates, D)";
        }
    }
  if (source != NULL)
    *source = src;
  return bps;
}

static const CalibRow *
calib_row (Arch arch)
{
  for (guint i = 0; i < G_N_ELEMENTS (calib_rows); i++)
    if (calib_rows[i].arch == arch)
      return &calib_rows[i];
  return NULL;
}

static FwStack *
default_stack (void)
{
  static FwStack *stack;
  if (g_once_init_enter (&stack))
    {
      FwStack *s = fw_stack_load_preset (FW_STACK_DEFAULT, NULL);
      g_assert (s != NULL);   /* compiled in */
      g_once_init_leave (&stack, s);
    }
  return stack;
}

void
sim_cost_options_init (SimCostOptions *o, const TopoCluster *cluster)
{
  sim_cost_options_init_stack (o, cluster, NULL);
}

void
sim_cost_options_init_stack (SimCostOptions *o, const TopoCluster *cluster,
                             const FwStack *stack)
{
  sim_cost_options_init_documented (o, cluster);
  if (stack == NULL)
    stack = default_stack ();
  const DeviceRow *row = device_row (cluster);
  const Arch arch = row != NULL ? row->arch : ARCH_OTHER;
  /* Blackwell borrows Hopper's fractions (extrapolated). */
  const CalibRow *cal = calib_row (arch == ARCH_BLACKWELL ? ARCH_HOPPER : arch);
  const double mamf = o->gemm_efficiency;        /* documented: the device's MAMF */
  const double mamf_fp8 = o->gemm_fp8_efficiency;
  o->extrapolated = cal == NULL || arch == ARCH_BLACKWELL;
  /* Borrowed fits carry the fitted parts' clock behaviour under sustained load: a part
   * that holds less of its burst matmul rate at its power limit than they did runs every
   * SM-clocked rate that much slower (sim_cost_compute_init). The ratio of both, measured
   * with one protocol (TopoDevice sustained_matmul_ratio: MSMF / MAMF); the Hopper fits'
   * is HOPPER_FIT_SUSTAINED_RATIO. */
  if (arch == ARCH_BLACKWELL && cal != NULL && cluster != NULL
      && cluster->device.sustained_matmul_ratio > 0)
    o->sustained_scale = cluster->device.sustained_matmul_ratio / HOPPER_FIT_SUSTAINED_RATIO;
  if (cal != NULL)
    {
      o->gemm_efficiency = cal->gemm * mamf;
      /* The FP8 fraction was fitted on Transformer Engine rows (Megatron-Core, NeMo), so
       * it holds TE's own per-GEMM work next to the kernel: TE's GEMM profiling tutorial
       * (docs/examples/gemm_profiling, H200 NVL, hidden 4096, ffn 16384, 15,872 tokens)
       * measures the FP8 current-scaling layer at 1.58x BF16 in autocast (20.285 against
       * 32.014 ms) and 1.90x kernels alone (16.785 ms, pre-quantized). A stack that
       * calls the scaled GEMM itself (torchao: torch._scaled_mm, cuBLASLt; its casts are
       * charged on their own, sim/cost-compute.c gemm_s) runs FP8 kernels at the
       * fraction of the FP8 MAMF that the fitted BF16 GEMMs reach of the BF16 MAMF:
       * H100 0.977 x 0.709 = 0.693 of the FP8 peak, 1.77x BF16 (the MAMF ratio), where
       * the TE fit gives 0.602. */
      if (cal->gemm_fp8 > 0)
        o->gemm_fp8_efficiency = (stack->fp8_kernel_rate ? cal->gemm : cal->gemm_fp8) * mamf_fp8;
      o->mem_traffic_factor = cal->traffic;
      o->small_k_half = cal->small_k_half;
    }

  /* the SMs its TP-comm overlap kernels hold (frameworks/presets "tp_overlap_sms") */
  o->tp_overlap_ag_sms = stack->tp_overlap_ag_sms;
  o->tp_overlap_rs_sms = stack->tp_overlap_rs_sms;

  /* the stack's attention kernel on this architecture */
  double fwd = 0, bwd = 0;
  const gboolean fa2_class = stack->attention == FW_ATTN_FLASH2
                             || stack->attention == FW_ATTN_TRITON;
  switch (arch)
    {
    case ARCH_HOPPER:
    case ARCH_BLACKWELL:
      fwd = HOPPER_CUDNN_FWD * (stack->attention == FW_ATTN_TRITON ? TRITON_OVER_CUDNN_FIT_FWD
                                : fa2_class ? FA2_OVER_CUDNN_FIT_FWD : 1.0);
      bwd = HOPPER_CUDNN_BWD * (fa2_class ? FA2_OVER_CUDNN_FIT_BWD : 1.0);
      if (fa2_class)
        o->extrapolated = TRUE;   /* no FA2 row on Hopper in the fitted set */
      break;
    case ARCH_AMPERE:
      fwd = AMPERE_FA2_FWD;
      bwd = AMPERE_FA2_BWD;
      break;
    default:
      break;
    }
  if (fwd > 0)
    {
      o->attn_fwd_efficiency = fwd * mamf;
      o->attn_bwd_efficiency = bwd * mamf;
      /* Blackwell's fractions are Hopper's: their time holds Hopper's exponentials */
      o->attn_fit_flop_per_exp = arch == ARCH_BLACKWELL ? HOPPER_FLOP_PER_EXP : 0.0;
      /* the GDN delta rule runs flash-linear-attention's Triton kernels in every stack:
       * the Triton (FA2) class of the architecture, whatever the softmax attention runs */
      o->gdn_fwd_efficiency = (arch == ARCH_AMPERE ? AMPERE_FA2_FWD
                                                   : HOPPER_CUDNN_FWD * FA2_OVER_FA3_FWD) * mamf;
      o->gdn_bwd_efficiency = (arch == ARCH_AMPERE ? AMPERE_FA2_BWD
                                                   : HOPPER_CUDNN_BWD * FA2_OVER_FA3_BWD) * mamf;
    }
  /* the kernel's rate by length: measured on Hopper; Blackwell borrows it with Hopper's
   * fractions (extrapolated); Ampere's FA2 fit stays flat (the figure is an H100's) */
  if (arch == ARCH_HOPPER || arch == ARCH_BLACKWELL)
    switch (stack->attention)
      {
      case FW_ATTN_FLASH3: set_len_curve (o, ATTN_LEN_FWD_FA3, ATTN_LEN_BWD_FA3); break;
      case FW_ATTN_FLASH2: set_len_curve (o, ATTN_LEN_FWD_FA2, ATTN_LEN_BWD_FA2); break;
      case FW_ATTN_TRITON: set_len_curve (o, ATTN_LEN_FWD_TRITON, ATTN_LEN_BWD_FA2); break;
      case FW_ATTN_UNFUSED: break;
      default: set_len_curve (o, ATTN_LEN_FWD_CUDNN, ATTN_LEN_BWD_CUDNN); break;
      }
  /* the kernel's rate at head dim 64 against 128: the same figures, the same scope */
  if (arch == ARCH_HOPPER || arch == ARCH_BLACKWELL)
    switch (stack->attention)
      {
      case FW_ATTN_FLASH3: set_hd64_curve (o, ATTN_HD64_FWD_FA3, ATTN_HD64_BWD_FA3); break;
      case FW_ATTN_FLASH2: set_hd64_curve (o, ATTN_HD64_FWD_FA2, ATTN_HD64_BWD_FA2); break;
      case FW_ATTN_TRITON: set_hd64_curve (o, ATTN_HD64_FWD_TRITON, ATTN_HD64_BWD_FA2); break;
      case FW_ATTN_UNFUSED: break;
      default: set_hd64_curve (o, ATTN_HD64_FWD_CUDNN, ATTN_HD64_BWD_CUDNN); break;
      }
  switch (stack->attention)
    {
    case FW_ATTN_CUDNN:
      set_noncausal_gain (o, NONCAUSAL_GAIN_CUDNN, NONCAUSAL_GAIN_BWD_CUDNN);
      break;
    case FW_ATTN_FLASH3: set_noncausal_gain (o, NONCAUSAL_GAIN_FA3, NONCAUSAL_GAIN_BWD_FA3); break;
    case FW_ATTN_TRITON:
      set_noncausal_gain (o, NONCAUSAL_GAIN_TRITON, NONCAUSAL_GAIN_BWD_FA2);
      break;
    case FW_ATTN_UNFUSED:
      memset (o->attn_noncausal_gain, 0, sizeof o->attn_noncausal_gain);
      memset (o->attn_noncausal_gain_bwd, 0, sizeof o->attn_noncausal_gain_bwd);
      break;
    default: set_noncausal_gain (o, NONCAUSAL_GAIN_FA2, NONCAUSAL_GAIN_BWD_FA2); break;
    }

  /* per-kernel overhead, fusion and the FP8 recipe */
  /* On the GPUs the stacks were written for, a kernel costs what the stack's way of
   * issuing it costs; elsewhere (CPU hosts, devices without a fitted row) the device's own
   * documented launch figure stays. */
  if (arch != ARCH_OTHER)
    o->launch_overhead_s = stack->kernel_overhead_s;
  o->elementwise_passes = stack->fusion == FW_FUSION_EAGER ? EAGER_ELEMENTWISE_PASSES : 1.0;
  o->fp8_attention = stack->fp8_ops == FW_FP8_GEMM_ATTENTION;
  o->attn_unfused = stack->attention == FW_ATTN_UNFUSED;
  o->fp8_cast_passes = stack->fp8_cast_passes;
  o->fp8_cast_passes_compiled = stack->fp8_cast_passes_compiled;
  o->fp8_cast_per_operand = stack->fp8_cast_per_operand;
  o->fp8_weight_cast_bytes = stack->fp8_weight_cast_bytes;
  o->fp8_output_bf16 = stack->fp8_output_bf16;
  o->fp8_fast_accum_fwd = stack->fp8_fast_accum_fwd;
  o->fp8_norm_amax_fused = stack->fp8_norm_amax_fused;
  o->fp8_scaling = stack->fp8_scaling;
  /* NCCL's PAT for one-rank-a-server all-gathers and reduce-scatters, where the stack's
   * NCCL has it (frameworks/presets "nccl": {"pat": [...]}) */
  o->pat_all_gather = (stack->nccl_pat & 1u) != 0;
  o->pat_reduce_scatter = (stack->nccl_pat & 2u) != 0;
  o->zero3_prefetch_params = stack->fsdp_prefetch_params;
  o->zero3_reuse_params = stack->fsdp_max_reuse_params;
  o->zero3_per_tensor = stack->fsdp_gather_per_tensor;
  o->zero3_rank_copies = stack->fsdp_rank_copies;
  o->zero3_gather_ahead = stack->fsdp_gather_before_reduce;
  o->zero2_grad_per_mb = stack->zero2_grad_per_microbatch;
  o->fp8_tp_all_gather = stack->fp8_tp_all_gather;
  o->fp8_param_gather = stack->fp8_param_gather;
  o->tp_grad_rs_whole = stack->tp_grad_rs_after_block;
  o->tp_seq_copies = stack->tp_seq_copies;
  o->pp_grad_after_stage = stack->fsdp_pp_grad_after_stage;
  o->pp_lockstep = stack->pp_lockstep;
  o->pp_p2p_sync = (int) stack->pp_p2p_sync;
  o->pp_scatter_gather = stack->pp_scatter_gather;
  o->pp_sync_reissue_s = stack->pp_p2p_sync && arch != ARCH_OTHER ? P2P_SYNC_REISSUE_S : 0.0;
  o->grad_accum_upcast = stack->fsdp_grad_accum_upcast;
  o->loss_eager = stack->loss_eager;
  o->pp_free_stage_input = stack->pp_free_stage_input;
  o->dp_overlap_always = stack->dp_overlap_always;
  o->pp_keep_stage_output = stack->pp_keep_stage_output;
  o->swiglu_eager_saves = stack->swiglu_eager_saves;
  o->fp8_moe_act_input = stack->fp8_moe_act_input;
  o->fp8_attn_out_e5m6 = stack->fp8_attn_out_e5m6;
  o->fp8_moe_dispatch = stack->fp8_moe_dispatch;
  o->no_dropout = stack->no_dropout;
  o->remat_named = stack->remat_named;
  o->zero3_copy_in_out = stack->fsdp_copy_in_out;
  o->zero2_reduce_passes = stack->fsdp_reduce_passes;
  o->fsdp_fp32_shards = stack->fsdp_fp32_shards;
  o->cp_ring_merge = stack->cp_ring_merge;
  o->cp_kv_repeated = stack->cp_kv_repeated;
  o->optimizer_bytes_per_param = stack->optimizer_bytes_per_param;
  /* MoE: where the host waits for the tokens per expert once per MoE layer forward, it
   * cannot run ahead of the GPU across the layer, so the kernels it issues cost the
   * host's own launch figure when they are shorter (sim/cost-compute.c gemm_s); the sync
   * itself is a launch-plus-sync round trip */
  o->moe_grouped_per_expert = stack->moe_grouped_gemm_per_expert;
  /* a grouped GEMM's per-expert calls cost the host TE's GEMM call as a training step
   * issues it (TE_GEMM_CALL_TRAIN_HOST_S, not the bare multi-stream path's
   * TE_GEMM_CALL_HOST_S), at least its launch */
  if (stack->moe_grouped_gemm_per_expert && arch != ARCH_OTHER)
    o->moe_gemm_call_s = MAX (o->host_launch_s, TE_GEMM_CALL_TRAIN_HOST_S);
  /* without grouped GEMM the same stack's experts are SequentialMLP's MLPs of TE linear
   * modules (Megatron-Core experts.py SequentialMLP.forward: a Python loop calling each
   * local expert's linear_fc1, activation and linear_fc2): each expert linear's forward
   * is a whole TE module call (TE_MODULE_FWD_HOST_S). It was charged the bare launch, so
   * --moe-grouped-gemm, whose per-expert GEMM calls are charged TE's figure, always read
   * slower, against Megatron-Core's advice to use it */
  if (stack->moe_grouped_gemm_per_expert && arch != ARCH_OTHER)
    o->moe_seq_expert_fwd_s = MAX (o->host_launch_s, TE_MODULE_FWD_HOST_S);
  o->moe_host_sync_s = stack->moe_dispatch_host_sync && arch != ARCH_OTHER ? HOST_SYNC_S : 0.0;
  o->moe_expert_op_s = stack->moe_expert_eager_op && arch != ARCH_OTHER ? EAGER_OP_HOST_S : 0.0;
  /* the host's time per MoE layer: eager ops at EAGER_OP_HOST_S, the C++ loops' kernel
   * launches at the host's launch figure (frameworks/stack.h FwMoeHostOps) */
  if (o->moe_host_sync_s > 0)
    {
      const FwMoeHostOps *h = &stack->moe_host_ops;
      const double e = EAGER_OP_HOST_S, l = o->host_launch_s;
      const double g = o->moe_gemm_call_s > 0 ? o->moe_gemm_call_s : l;
      /* the TE modules' forward calls at their measured host time, a GroupedLinear's
       * without its GEMM call (its per-expert calls are counted per expert) */
      const double te = h->te_linear_fwd * TE_MODULE_FWD_HOST_S;
      const double teg = h->te_grouped_fwd * (TE_MODULE_FWD_HOST_S - TE_ONE_GEMM_CALL_HOST_S);
      o->moe_layer_host_s[0] = h->layer_fwd * e + te + teg;
      o->moe_layer_host_s[1] = h->layer_bwd * e;
      o->moe_layer_host_after_sync_s = h->layer_fwd_after_sync * e + teg;
      o->moe_router_host_s = h->router_fwd * e;
      o->moe_preprocess_host_s = h->preprocess_fwd_graphed * e;
      o->moe_grouped_call_s = h->te_grouped_fwd > 0
                                ? TE_MODULE_FWD_HOST_S - TE_ONE_GEMM_CALL_HOST_S : 0.0;
      o->moe_expert_host_s[0] = h->expert_launch_fwd * g + h->expert_eager_fwd * e;
      o->moe_expert_host_s[1] = h->expert_launch_bwd * g + h->expert_eager_bwd * e;
      /* FP8: the weight-workspace calls here; the quantize calls' launches depend on the
       * plan's recipe (sim_cost_moe_quant_launches, at use) */
      o->moe_expert_host_fp8_s[0] = h->expert_fp8_eager_fwd * e;
      o->moe_expert_host_fp8_s[1] = 0.0;
      o->moe_expert_fp8_quants = h->expert_fp8_launch;
    }
  /* CPU hosts: measured contention in place of the default slowdown (sim/cost-cpu.c) */
  sim_cost_options_cpu_host (o, cluster, 0, 0);
}

void
sim_cost_options_compile (SimCostOptions *o)
{
  g_return_if_fail (o != NULL);
  /* torch.compile fuses each norm's or activation's chain of eager kernels into one
   * (FW_FUSION_COMPILED: one pass per op, as the fused stacks) */
  o->elementwise_passes = 1.0;
  o->fp8_cast_passes = o->fp8_cast_passes_compiled;
}

/* Each fitted knob of the architecture of `cluster` that ended at a bound of its fit:
 * "name=value (bound B)" strings, NULL-terminated (g_strfreev); NULL when none. */
char **
sim_cost_knobs_at_bound (const TopoCluster *cluster)
{
  const DeviceRow *row = device_row (cluster);
  const CalibRow *cal = calib_row (row == NULL ? ARCH_OTHER
                                   : row->arch == ARCH_BLACKWELL ? ARCH_HOPPER : row->arch);
  if (cal == NULL)
    return NULL;
  GPtrArray *out = g_ptr_array_new ();
  if (cal->gemm >= cal->gemm_max)
    g_ptr_array_add (out, g_strdup_printf ("gemm/MAMF=%.3g (bound %.3g)", cal->gemm, cal->gemm_max));
  if (cal->gemm_fp8 > 0 && cal->gemm_fp8 >= cal->gemm_fp8_max)
    g_ptr_array_add (out, g_strdup_printf ("gemm_fp8/MAMF=%.3g (bound %.3g)", cal->gemm_fp8,
                                           cal->gemm_fp8_max));
  if (cal->traffic >= cal->traffic_max)
    g_ptr_array_add (out, g_strdup_printf ("mem_traffic_factor=%.3g (bound %.3g)", cal->traffic,
                                           cal->traffic_max));
  if (cal->small_k_half <= cal->small_k_min)
    g_ptr_array_add (out, g_strdup_printf ("small_k_half=%.3g (bound %.3g)", cal->small_k_half,
                                           cal->small_k_min));
  if (out->len == 0)
    {
      g_ptr_array_free (out, TRUE);
      return NULL;
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

void
sim_cost_options_init_documented (SimCostOptions *o, const TopoCluster *cluster)
{
  g_return_if_fail (o != NULL);
  memset (o, 0, sizeof *o);
  const TopoDevice *dev = cluster != NULL ? &cluster->device : NULL;
  const DeviceRow *row = device_row (cluster);

  o->gemm_efficiency = dev != NULL && dev->gemm_efficiency > 0 ? dev->gemm_efficiency
                                                              : FALLBACK_GEMM_EFFICIENCY;
  o->gemm_fp8_efficiency = row != NULL && row->fp8_eff > 0
                             ? row->fp8_eff
                             : o->gemm_efficiency * FP8_OVER_BF16_EFFICIENCY;
  switch (row != NULL ? row->arch : ARCH_OTHER)
    {
    case ARCH_HOPPER:
      o->attn_fwd_efficiency = ATTN_FWD_HOPPER;
      o->attn_bwd_efficiency = ATTN_BWD_HOPPER;
      set_noncausal_gain (o, NONCAUSAL_GAIN_FA3, NONCAUSAL_GAIN_BWD_FA3);
      break;
    case ARCH_AMPERE:
      o->attn_fwd_efficiency = ATTN_FWD_AMPERE;
      o->attn_bwd_efficiency = ATTN_BWD_AMPERE;
      set_noncausal_gain (o, NONCAUSAL_GAIN_FA2, NONCAUSAL_GAIN_BWD_FA2);
      break;
    default:
      o->attn_fwd_efficiency = o->gemm_efficiency * ATTN_FWD_OVER_GEMM;
      o->attn_bwd_efficiency = o->gemm_efficiency * ATTN_BWD_OVER_GEMM;
      set_noncausal_gain (o, NONCAUSAL_GAIN_FA3, NONCAUSAL_GAIN_BWD_FA3);
      break;
    }
  /* the delta rule's Triton kernels: the FA2 class (see the stack case) */
  o->gdn_fwd_efficiency = o->attn_fwd_efficiency
                          * ((row != NULL && row->arch == ARCH_AMPERE) ? 1.0 : FA2_OVER_FA3_FWD);
  o->gdn_bwd_efficiency = o->attn_bwd_efficiency
                          * ((row != NULL && row->arch == ARCH_AMPERE) ? 1.0 : FA2_OVER_FA3_BWD);
  o->mem_efficiency = dev != NULL && dev->mem_efficiency > 0 ? dev->mem_efficiency
                                                            : FALLBACK_MEM_EFFICIENCY;
  /* A measured (triad) bandwidth is already the achieved one (sim/cost.h, profile). */
  if (cluster != NULL && cluster->profile != NULL && cluster->profile->triad_Bps > 0
      && !(dev->mem_efficiency > 0))
    o->mem_efficiency = 1.0;
  o->launch_overhead_s = dev != NULL && dev->launch_overhead_s > 0 ? dev->launch_overhead_s
                                                                  : FALLBACK_LAUNCH_S;
  /* the part-to-part spread of its SKU, a hardware fact of the device (its preset's
   * source); none where the JSON gives none (sim_cost_straggler_factor) */
  o->perf_sigma = dev != NULL ? dev->perf_sigma : 0.0;
  o->host_launch_s = o->launch_overhead_s;
  o->moe_grouped_per_expert = FALSE;
  o->moe_gemm_call_s = 0.0;
  o->moe_seq_expert_fwd_s = 0.0;
  o->moe_host_sync_s = 0.0;
  o->moe_expert_op_s = 0.0;
  o->mem_traffic_factor = 1.0;
  o->tile_m = DEFAULT_TILE_M;
  o->tile_n = DEFAULT_TILE_N;
  o->small_k_half = DEFAULT_SMALL_K_HALF;
  o->comm_compute_slowdown = DEFAULT_COMM_COMPUTE_SLOWDOWN;
  /* Megatron-Core --moe-deepep-num-sms: "Tune the SM count allocated to DeepEP
   * communication kernels (default 20)" (Megatron-LM MoE dispatcher docs); the Megatron
   * Core MoE report's DeepEP example (arXiv 2603.07685 Sec. 4.2.3, quoted by Megatron's
   * moe_a2a_overlap.md) reserves 20 SMs and sees about 20% of GEMM efficiency lost
   * beside it: 20 of an H100's 132 SMs leave 112, 1/0.848 = 1.18x */
  o->ep_comm_sms = 20;
  /* NCCL runs one CTA per channel, and a CTA holds its SM for the kernel's life ("NCCL
   * CTAs won't share an SM with compute kernels", NCCL issue #689, quoted in #1656).
   * Channels NCCL sets up (NCCL 2.19-2.2x, src/graph/search.cc ncclTopoDupChannels and
   * src/graph/connect.cc ncclTopoPostset; MAXCHANNELS 32):
   *   nvlink 24: one H100 server's ring finds 12 search channels over NVSwitch and
   *     duplicates them to 24 (NCCL issue #1367, NCCL 2.19.3, 8 x H100); an FSDP
   *     all-gather beside a GEMM on H100 launches 24 CTAs (NVIDIA developer forum,
   *     "Compute-communication overlap causes severe GEMM performance degradation",
   *     2025, Nsight Systems) [S];
   *   nvls 16: NCCL_NVLS_NCHANNELS defaults to 16 (src/transport/nvls.cc) [S];
   *   net 16: 3 H100 servers x 8 GPUs with 8 NICs run 16 ring channels ("Channel 00/16",
   *     NCCL issue #1453 log) [S];
   *   net_1ppn 4: one GPU a server (a DP group across servers): its one NIC carries one
   *     48 GB/s search channel (sm90 inter speeds start at 48, the GPU's PCIe path is
   *     48), ncclTopoDupChannels doubles it to 2 at 24 GB/s and ncclTopoPostset doubles
   *     the channels again to 4; the sm90 rule "4 compute channels per search channel on
   *     <8 PPN" needs a ring bandwidth above 45 GB/s a channel, so it does not apply
   *     [D from the code; no log at hand];
   *   p2p_net 2 (an all-to-all or CP ring pass across servers, NCCL's grouped sends and
   *     receives): NCCL_NCHANNELS_PER_NET_PEER defaults to 2 (src/graph/paths.cc; "2 p2p
   *     channels per peer" in the H20 log of NCCL issue #1189) [S];
   *   p2p_nvlink 24 (the same over NVLink): taken as the NVLink ring's channels [U: NCCL
   *     sizes per-peer p2p channels from the NVLink bandwidth; no H100 log at hand].
   * Pipeline sends hold none in the simulator (sim/simulate.c program_setup: why).
   * Where the sources apply: Hopper (sm90; the channel rules above are NCCL's for
   * compute capability 9.0 and the logs are H100's), and Blackwell, which takes Hopper's
   * figures as it takes its fitted fractions (extrapolated). Ampere (sm80 searches other
   * speeds; no A100 log at hand) and other vendors' libraries (RCCL, XLA, Neuron) keep
   * comm_compute_slowdown's documented default and hold no SMs here. */
  const gboolean hopper_up = row != NULL && (row->arch == ARCH_HOPPER
                                             || row->arch == ARCH_BLACKWELL);
  const gboolean nccl = hopper_up && dev->sms > 0 && dev->vendor != NULL
                        && g_ascii_strcasecmp (dev->vendor, "nvidia") == 0;
  o->nccl_ctas_nvlink = nccl ? 24 : 0;
  o->nccl_ctas_nvls = nccl ? 16 : 0;
  o->nccl_ctas_net = nccl ? 16 : 0;
  o->nccl_ctas_net_1ppn = nccl ? 4 : 0;
  o->nccl_p2p_ctas_nvlink = nccl ? 24 : 0;
  o->nccl_p2p_ctas_net = nccl ? 2 : 0;
  /* there comm_compute_slowdown stays for what the SMs do not cover (HBM and L2 shared
   * with the kernels) at 0: Hopper's fit of it ended at its bound 0 (calib_rows) */
  if (hopper_up)
    o->comm_compute_slowdown = 0.0;
  /* TP-comm overlap: the stack's kernels (frameworks/presets "tp_overlap_sms"); a stack
   * that does not say runs NCCL's (-1) */
  o->tp_overlap_ag_sms = -1;
  o->tp_overlap_rs_sms = -1;
  o->nvlink_efficiency = DEFAULT_NVLINK_EFFICIENCY;
  o->net_efficiency = DEFAULT_NET_EFFICIENCY;
  o->coll_base_latency_s = DEFAULT_COLL_BASE_S;
  o->nvls_latency_s = DEFAULT_NVLS_LATENCY_S;
  /* NCCL enables NVLS by default where NVSwitch supports it (NCCL_NVLS_ENABLE): U. */
  o->use_nvls = TRUE;
  o->elementwise_passes = 1.0;
  o->fp8_attention = FALSE;
  o->fp8_cast_passes = 0.0;
  o->fp8_cast_passes_compiled = 0.0;
  o->fp8_scaling = FW_SCALING_DELAYED;
  o->fp8_cast_per_operand = FALSE;
  o->fp8_weight_cast_bytes = 0.0;
  o->fp8_output_bf16 = FALSE;
  o->fp8_fast_accum_fwd = FALSE;
  o->fp8_norm_amax_fused = FALSE;
  o->fp8_any_layout = dev != NULL && dev->fp8_any_layout;
  o->extrapolated = FALSE;
  o->sustained_scale = 1.0;
  o->free_comm = FALSE;
  o->free_optimizer = FALSE;
}

/* Bytes per element of the bf16 input that one quantization to FP8 moves through HBM,
 * by recipe, as Transformer Engine implements them (TE docs, Low precision training):
 *  - delayed: the scale comes from the amax history, so one read (2 B) and the FP8 write
 *    (1 B) ("FP8 Delayed Scaling": one tensor read per quantization); where FP8 GEMMs
 *    take only the TN layout (Hopper, Ada) the backward's other usage needs a physically
 *    transposed FP8 copy, written by the same fused cast (1 B more) ("FP8 Current
 *    Scaling", Transpose handling: on Blackwell both usages share one layout);
 *  - current (tensorwise): the same plus a first read for the tensor's amax ("reading
 *    the tensor twice: first read compute amax, second read apply the scaling factor and
 *    cast"): 2 B more;
 *  - block (MXFP8, 1x32 E8M0): one read, then the rowwise (1x32) and the columnwise
 *    (32x1) copies, each 1 B plus one 1-byte scale per 32 elements, on every layout
 *    ("MXFP8", Handling transposes: rowwise and columnwise MXFP8 tensors are different
 *    and both are quantized from the full-precision data): 2 + 2 x 33/32;
 *  - blockwise (TE Float8BlockScaling, 1x128 activation and gradient blocks with an FP32
 *    scale each): one read, then the rowwise and the columnwise copies, each 1 B plus
 *    4 B per 128 elements ("FP8 Blockwise Scaling", Handling transposes: "Both versions
 *    must be quantized separately from the high-precision source"; the block amax is
 *    taken inside the quantize kernel, no first pass): 2 + 2 x (1 + 4/128); on Blackwell
 *    TE emulates the recipe with MXFP8 ("Supported devices"), 2 + 2 x 33/32: the same
 *    4.0625 on every layout;
 *  - rowwise (torchao Float8 ROWWISE: a scale per row of each GEMM operand along its
 *    contraction dimension, so the forward's copy (scaled along k) and the weight
 *    gradient's (scaled along m) are two quantizations of the bf16 tensor, each an amax
 *    read and a cast as current scaling's; the second copy is the transposed layout the
 *    TN-only GEMM needs, so no extra transpose write): 2 x (2 + 2 + 1) = 10 on every
 *    layout (U: compiled, inductor may fuse a row amax into its cast).
 * Delayed: 4 B on Hopper, 3 on Blackwell; current 6 / 5; MXFP8 4.0625; blockwise 4.0625;
 * rowwise 10. */
double
sim_cost_fp8_quant_bytes (int scaling, gboolean any_layout)
{
  const double cast = 2.0 + 1.0 + (any_layout ? 0.0 : 1.0);
  switch (scaling)
    {
    case FW_SCALING_CURRENT:
      return 2.0 + cast;
    case FW_SCALING_ROWWISE:
      return 2.0 * (2.0 + 2.0 + 1.0);
    case FW_SCALING_BLOCK:
      return 2.0 + 2.0 * (1.0 + 1.0 / 32.0);
    case FW_SCALING_BLOCKWISE:
      return 2.0 + 2.0 * (1.0 + 4.0 / 128.0);
    case FW_SCALING_DELAYED:
    default:
      return cast;
    }
}

/* HBM bytes per element of one bf16 -> NVFP4 quantization as Transformer Engine's
 * NVFP4BlockScaling runs it (TE docs, NVFP4): a first read for the per-tensor FP32 scale's
 * amax, of the tensor and of its Hadamard transform (2 B), then one read (2 B) writing
 * the rowwise copy (0.5 B of E2M1 + one E4M3 scale per 16 elements, 1/16 B) and the
 * columnwise copy the TN-only NVFP4 GEMM needs, random-Hadamard-transformed (16x16
 * tiles) for the wgrad operands (0.5 + 1/16): 5.125 B moved. Measured: TE's GEMM
 * Profiling Tutorial, B300, 5B config, per-layer quantization time (autocast less
 * pre-quantized) NVFP4 6.453 - 3.764 = 2.689 ms, tensorwise 9.147 - 6.812 = 2.335 ms for
 * its 5 B (sim_cost_fp8_quant_bytes): 2.689 / (2.335 / 5) = 5.76 B-equivalent; the 0.63
 * B above the bytes moved is the Hadamard transform's and stochastic rounding's math
 * (D, residual). 2D 16x16 weight scaling costs nothing per GEMM: weights are quantized
 * once per step. */
double
sim_cost_nvfp4_quant_bytes (void)
{
  return 2.689 / (2.335 / 5.0);
}

void
sim_cost_options_apply_plan (SimCostOptions *o, const Plan *plan)
{
  g_return_if_fail (o != NULL && plan != NULL);
  /* the stack's cast figures count passes of its own recipe; the plan's recipe moves
   * its own bytes per quantization (a fused cast kernel each way: the passes scale by the
   * ratio) */
  if (plan->compute_dtype == PLAN_PREC_FP8 && plan->fp8_recipe >= 0
      && plan->fp8_recipe != o->fp8_scaling)
    {
      const double r = sim_cost_fp8_quant_bytes (plan->fp8_recipe, o->fp8_any_layout)
                       / sim_cost_fp8_quant_bytes (o->fp8_scaling, o->fp8_any_layout);
      o->fp8_cast_passes *= r;
      o->fp8_cast_passes_compiled *= r;
      o->fp8_weight_cast_bytes *= r;
      o->fp8_scaling = plan->fp8_recipe;
    }
  /* torchao's enable_fsdp_float8_all_gather casts each weight shard to fp8 before the
   * FSDP all-gather (its scale from one amax pass over all parameters per step,
   * precompute_float8_dynamic_scale_for_fsdp): the gathered weights come cast, no cast per
   * GEMM (torchao float8/roofline_utils.py counts none in the backward either) */
  if (plan->fsdp_float8_all_gather && plan->compute_dtype == PLAN_PREC_FP8)
    o->fp8_weight_cast_bytes = 0.0;
  /* NVFP4: the stack's cast passes counted its FP8 recipe's bytes; an NVFP4 plan moves
   * NVFP4's per quantization */
  if (plan->compute_dtype == PLAN_PREC_FP4)
    {
      const double r = sim_cost_nvfp4_quant_bytes ()
                       / sim_cost_fp8_quant_bytes (o->fp8_scaling, o->fp8_any_layout);
      o->fp8_cast_passes *= r;
      o->fp8_cast_passes_compiled *= r;
      o->fp8_weight_cast_bytes *= r;
    }
  /* token drop and pad (Megatron-Core MoEAlltoAllTokenDispatcher.preprocess, drop_and_pad):
   * the tokens per local expert are torch.full of the capacity and the all-to-all splits
   * are the capacity on the host, so it returns before the dropless branch that sets
   * cuda_sync_point "before_ep_alltoall" and the copies to the host: cuda_sync_point stays
   * "no_sync" */
  if (plan_moe_padded (plan))
    o->moe_dispatch_no_sync = TRUE;
  /* Transformer Engine CUDA graphs of part of the MoE layer (Megatron-Core
   * --cuda-graph-impl transformer_engine --cuda-graph-scope moe_router [moe_preprocess]):
   * the router, and with moe_preprocess the dispatcher's preprocess up to its copies of the
   * counts to the host, replay as one graph; the host issues one call (an eager op) in
   * place of their ops; the sync, the all-to-alls and the experts stay eager (Megatron-Core
   * moe_layer.py: at capture the layer returns early after the route / preprocess step) */
  if (plan_cuda_graph_moe_router (plan) && o->moe_router_host_s > 0)
    {
      double graphed = o->moe_router_host_s;
      if (plan->cuda_graph_scope & PLAN_CG_MOE_PREPROCESS)
        graphed += o->moe_preprocess_host_s;
      o->moe_layer_host_s[0] = MAX (o->moe_layer_host_s[0] - graphed + EAGER_OP_HOST_S,
                                    o->moe_layer_host_after_sync_s);
    }
  if (plan_cuda_graph_moe (plan))
    {
      o->moe_grouped_per_expert = FALSE;
      o->moe_gemm_call_s = 0.0;
      o->moe_seq_expert_fwd_s = 0.0;
      o->moe_expert_op_s = 0.0;
      o->moe_host_sync_s = 0.0;
      for (int i = 0; i < 2; i++)
        o->moe_layer_host_s[i] = o->moe_expert_host_s[i] = o->moe_expert_host_fp8_s[i] = 0.0;
      o->moe_layer_host_after_sync_s = 0.0;
      o->moe_grouped_call_s = 0.0;
      o->moe_expert_fp8_quants = 0.0;
    }
}

/* ---- the slowest GPU ------------------------------------------------------------------
 *
 * Parts of one SKU do not run equally fast. Sinha, Guliani, Jain, Tran, Sinclair and
 * Venkataraman, "Not All GPUs Are Created Equal: Characterizing Variability in
 * Large-Scale, Accelerator-Rich Systems", SC'22 (arXiv 2208.11035), ran SGEMM, ResNet-50,
 * BERT, LAMMPS and PageRank on over 90% of the GPUs of Summit, Vortex and Longhorn (V100),
 * Frontera and Corona (MI60), 18,800 GPU-hours: "8% (max 22%) average performance
 * variation even though the GPU architecture and vendor SKU are identical within each
 * cluster, with outliers up to 1.5X slower than the median GPU" (abstract of arXiv v3;
 * the authors trace it to manufacturing variability and the chips' power management, and
 * find it the same across applications and cooling). The SC'22 proceedings abstract
 * (four clusters, "over 100,000 hours") states "32% (max 72%) average performance
 * variation" instead: the figure depends on the version, U which one the definition
 * below gave; v3's, the smaller, is taken. Their variation, as the paper's artifact
 * computes it (hal-uw/gpu_variability_sc22_artifact, plot_script/plot_aggregated.py at
 * bc84e72, on each GPU's performance normalised to the median GPU's): "iqr = q3 - q1;
 * range = q3 + 1.5 * iqr - (q1 - 1.5 * iqr); percent_variability = range/q2 * 100", the
 * span between the box plot's whisker fences (Tukey's 1.5 IQR) over the median, 4 IQR /
 * median; the figures plot the whiskers without the outliers (showfliers=False). S: the
 * paper's own sentence defining it was not reachable here (only its abstract); the
 * artifact's code is its authors' (the lines are commented out in the revision kept,
 * which plots the follow-up PAL paper's figures from the same data layout).
 * Per-GPU standard deviation, D: for normally spread speeds the IQR is 2 x 0.67449 sigma =
 * 1.34898 sigma, so the fence span is 5.3959 sigma and the average 8% is sigma = 0.08 /
 * 5.3959 = 1.48% of the median part (the 22% maximum, 4.1%). Reading the whiskers as the
 * data's extremes within the fences gives the same: with thousands of GPUs a normal
 * sample reaches within a few percent of the fences (2.698 sigma each side). The
 * outliers beyond them (up to 1.5x) are a heavier tail than a normal has: not modelled,
 * so this is the conservative side.
 * Generation, U: measured on V100 and MI60; a preset of a later part (A100, H100, H200,
 * Blackwell, MI300X) that carries it carries an assumption across generations: no
 * per-part spread of an A100 or H100 fleet was found (the Llama 3 paper's 1-2% diurnal
 * throughput change from GPU DVFS at higher temperature is the whole job's drift over a
 * day, not a spread across parts).
 *
 * Which GPUs gate a step: the variation is of each part (its silicon, its power
 * management), so a slow part stays slow for the whole step. It slows its tensor-parallel
 * group at every layer (TP's collectives synchronize every layer), so its pipeline stage;
 * a pipeline runs at its slowest stage (each stage waits on its neighbours' sends); and
 * the data-parallel gradient reduction and the optimizer step synchronize every pipeline
 * once per step (MoE's expert all-to-all every layer). Every compute kernel of the step
 * therefore runs, in effect, at the speed of the slowest of all the plan's GPUs: n is the
 * world size, and a step of n GPUs takes 1 + sigma x E[max of n standard normals] times
 * its median part's compute time (kernels only: the collectives' wire time and the host
 * do not slow with a slow part's clock). With sigma 1.48%: 8 GPUs x1.021, 1,024 x1.048,
 * 16,384 x1.059.
 *
 * E[max of n iid standard normals], D: E[M] = int_0^inf (1 - Phi(x)^n) dx
 * - int_-inf^0 Phi(x)^n dx (E[M] = int P(M > x) dx over x > 0 less int P(M < x) dx over
 * x < 0, and P(M < x) = Phi(x)^n), integrated by Simpson's rule on [-10, 0] and [0, 10] (the
 * integrand jumps by 1 at 0) with step 1/256 (Phi(-10)^n and n (1 - Phi(10)) are below 1e-20 for every n up to 2^40); checked
 * against the exact 1/sqrt(pi) = 0.56419 at n = 2 and 3 / (2 sqrt(pi)) = 0.84628 at n = 3
 * (tests/sim/test-cost.c). Cached per n: a search builds many cost models of few sizes. */

/* Simpson's rule over [a, b] in `steps` (even) steps of one piece of the integrand:
 * -Phi(x)^n below 0, 1 - Phi(x)^n above (the integrand jumps by 1 at 0, so each side is
 * integrated on its own) */
static double
max_normal_piece (double dn, double a, double b, int steps, gboolean upper)
{
  const double h = (b - a) / steps;
  double sum = 0.0;
  for (int i = 0; i <= steps; i++)
    {
      const double x = a + i * h;
      const double f = upper ? -expm1 (dn * log1p (-0.5 * erfc (x / G_SQRT2)))  /* 1 - Phi^n */
                             : -exp (dn * log (0.5 * erfc (-x / G_SQRT2)));    /* -Phi^n */
      sum += ((i == 0 || i == steps) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0)) * f;
    }
  return sum * h / 3.0;
}

static double
expected_max_normal_uncached (guint64 n)
{
  if (n <= 1)
    return 0.0;
  return max_normal_piece ((double) n, -10.0, 0.0, 2560, FALSE)
         + max_normal_piece ((double) n, 0.0, 10.0, 2560, TRUE);
}

G_LOCK_DEFINE_STATIC (max_normal_cache);

double
sim_cost_expected_max_normal (guint64 n)
{
  static GHashTable *cache;   /* guint64 n -> double, both g_malloc'd */
  if (n <= 1)
    return 0.0;
  G_LOCK (max_normal_cache);
  if (cache == NULL)
    cache = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  gint64 key = (gint64) n;
  const double *hit = g_hash_table_lookup (cache, &key);
  double v;
  if (hit != NULL)
    v = *hit;
  else
    {
      v = expected_max_normal_uncached (n);
      g_hash_table_insert (cache, g_memdup2 (&key, sizeof key), g_memdup2 (&v, sizeof v));
    }
  G_UNLOCK (max_normal_cache);
  return v;
}

double
sim_cost_straggler_factor_for (double sigma, guint64 n)
{
  if (!(sigma > 0) || n <= 1)
    return 1.0;
  return 1.0 + sigma * sim_cost_expected_max_normal (n);
}

double
sim_cost_straggler_factor (const SimCost *c)
{
  g_return_val_if_fail (c != NULL, 1.0);
  return c->straggler_scale;
}

SimCost *
sim_cost_new (const TopoCluster *cluster, const PlanLayout *layout, const SimCostOptions *opts)
{
  g_return_val_if_fail (cluster != NULL, NULL);
  g_return_val_if_fail (cluster->n_levels >= 1, NULL);

  SimCost *c = g_new0 (SimCost, 1);
  if (opts != NULL)
    c->opts = *opts;
  else
    sim_cost_options_init (&c->opts, cluster);
  c->cluster = topo_cluster_ref ((TopoCluster *) cluster);
  c->straggler_scale = sim_cost_straggler_factor_for (
    c->opts.perf_sigma, layout != NULL && layout->world > 1 ? (guint64) layout->world : 1);
  sim_cost_compute_init (c);
  sim_cost_cpu_init (c);
  sim_cost_comm_init (c, layout);
  return c;
}

void
sim_cost_free (SimCost *cost)
{
  if (cost == NULL)
    return;
  topo_cluster_unref (cost->cluster);
  g_clear_pointer (&cost->prof_gemm_log, g_array_unref);
  g_clear_pointer (&cost->prof_attn_log, g_array_unref);
  for (int k = 0; k < TOPO_KERNEL_N; k++)
    g_clear_pointer (&cost->prof_kernel_log[k], g_array_unref);
  g_clear_pointer (&cost->curves, g_ptr_array_unref);
  g_free (cost);
}

const SimCostOptions *
sim_cost_options (const SimCost *c)
{
  g_return_val_if_fail (c != NULL, NULL);
  return &c->opts;
}

/* ---- overrides by name ---------------------------------------------------------------- */

typedef struct {
  const char *name;
  gsize       offset;
  char        type;      /* 'd' double, 'i' int, 'b' gboolean */
  double      min, max;
} CostOptionInfo;

#define D(f, lo, hi) { #f, G_STRUCT_OFFSET (SimCostOptions, f), 'd', lo, hi }
static const CostOptionInfo option_info[] = {
  D (gemm_efficiency, 0.01, 1), D (gemm_fp8_efficiency, 0.01, 1),
  D (attn_fwd_efficiency, 0.01, 1), D (attn_bwd_efficiency, 0.01, 1),
  D (attn_fit_flop_per_exp, 0, 1e6),
  D (gdn_fwd_efficiency, 0.01, 1), D (gdn_bwd_efficiency, 0.01, 1),
  D (mem_efficiency, 0.01, 1), D (launch_overhead_s, 0, 1), D (mem_traffic_factor, 0.1, 100),
  { "tile_m", G_STRUCT_OFFSET (SimCostOptions, tile_m), 'i', 1, 4096 },
  { "tile_n", G_STRUCT_OFFSET (SimCostOptions, tile_n), 'i', 1, 4096 },
  D (small_k_half, 0, 1e6), D (comm_compute_slowdown, 0, 10), D (ep_comm_sms, 0, 4096),
  D (nccl_ctas_nvlink, 0, 4096), D (nccl_ctas_nvls, 0, 4096), D (nccl_ctas_net, 0, 4096),
  D (nccl_ctas_net_1ppn, 0, 4096), D (nccl_p2p_ctas_nvlink, 0, 4096),
  D (nccl_p2p_ctas_net, 0, 4096), D (tp_overlap_ag_sms, -1, 4096),
  D (tp_overlap_rs_sms, -1, 4096),
  D (nvlink_efficiency, 0.01, 1), D (net_efficiency, 0.01, 1),
  D (coll_base_latency_s, 0, 1), D (nvls_latency_s, 0, 1),
  D (elementwise_passes, 0.1, 100), D (fp8_cast_passes, 0, 20),
  D (fp8_cast_passes_compiled, 0, 20),
  D (host_launch_s, 0, 1), D (moe_gemm_call_s, 0, 1), D (moe_seq_expert_fwd_s, 0, 1), D (moe_host_sync_s, 0, 1), D (moe_expert_op_s, 0, 1),
  D (pp_sync_reissue_s, 0, 1),
  { "moe_grouped_per_expert", G_STRUCT_OFFSET (SimCostOptions, moe_grouped_per_expert), 'b', 0, 1 },
  { "fp8_attention", G_STRUCT_OFFSET (SimCostOptions, fp8_attention), 'b', 0, 1 },
  { "use_nvls", G_STRUCT_OFFSET (SimCostOptions, use_nvls), 'b', 0, 1 },
  { "pat_all_gather", G_STRUCT_OFFSET (SimCostOptions, pat_all_gather), 'b', 0, 1 },
  { "pat_reduce_scatter", G_STRUCT_OFFSET (SimCostOptions, pat_reduce_scatter), 'b', 0, 1 },
  { "free_comm", G_STRUCT_OFFSET (SimCostOptions, free_comm), 'b', 0, 1 },
  { "free_optimizer", G_STRUCT_OFFSET (SimCostOptions, free_optimizer), 'b', 0, 1 },
  D (cpu_cores, 0, 1e6), D (cpu_ranks, 0, 1e6), D (cpu_share, 0, 1),
  D (perf_sigma, 0, 0.49), D (sustained_scale, 0.1, 1.0 / HOPPER_FIT_SUSTAINED_RATIO),
};
#undef D

const char *const *
sim_cost_option_names (void)
{
  static const char *names[G_N_ELEMENTS (option_info) + 1];
  if (names[0] == NULL)
    for (guint i = 0; i < G_N_ELEMENTS (option_info); i++)
      names[i] = option_info[i].name;
  return names;
}

gboolean
sim_cost_options_set (SimCostOptions *o, const char *key, const char *value, GError **error)
{
  g_return_val_if_fail (o != NULL && key != NULL && value != NULL, FALSE);
  double scale = 1.0;
  g_autofree char *name = g_strdup (key);
  /* *_us spells a seconds field in microseconds */
  if (g_str_has_suffix (name, "_us"))
    {
      name[strlen (name) - 3] = '\0';
      g_autofree char *s_name = g_strconcat (name, "_s", NULL);
      g_free (name);
      name = g_steal_pointer (&s_name);
      scale = 1e-6;
    }
  for (guint i = 0; i < G_N_ELEMENTS (option_info); i++)
    {
      const CostOptionInfo *info = &option_info[i];
      if (!g_str_equal (info->name, name))
        continue;
      char *end = NULL;
      double v;
      if (info->type == 'b')
        {
          if (g_ascii_strcasecmp (value, "true") == 0 || g_str_equal (value, "1"))
            v = 1;
          else if (g_ascii_strcasecmp (value, "false") == 0 || g_str_equal (value, "0"))
            v = 0;
          else
            goto bad;
          *(gboolean *) G_STRUCT_MEMBER_P (o, info->offset) = v != 0;
          return TRUE;
        }
      /* decimal only: strtod took "0x10" as 16 */
      if (strchr (value, 'x') != NULL || strchr (value, 'X') != NULL)
        goto bad;
      v = g_ascii_strtod (value, &end) * scale;
      if (end == value || *end != '\0' || !(v >= info->min && v <= info->max))
        goto bad;
      /* SMs, CTAs and tile sides are whole (131.9 SMs was taken as 131; a stack file
       * refuses it) */
      if ((info->type == 'i' || g_str_has_suffix (name, "_sms") || strstr (name, "_ctas") != NULL)
          && v != floor (v))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "cost option %s: '%s' is not a whole number (SMs, CTAs and tiles are "
                       "whole)",
                       key, value);
          return FALSE;
        }
      if (info->type == 'i')
        *(int *) G_STRUCT_MEMBER_P (o, info->offset) = (int) v;
      else
        *(double *) G_STRUCT_MEMBER_P (o, info->offset) = v;
      return TRUE;
    bad:
      /* the range in the key's own unit (a *_us key's in microseconds: it said [0, 1]
       * for launch_overhead_us, whose range is [0, 1e6]) */
      if (info->type == 'b')
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                     "cost option %s: bad value '%s' (expected true/false)", key, value);
      else
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                     "cost option %s: bad value '%s' (expected a decimal number in [%g, %g])",
                     key, value, info->min / scale, info->max / scale);
      return FALSE;
    }
  g_autofree char *known = g_strjoinv (", ", (char **) sim_cost_option_names ());
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "unknown cost option '%s' (hint: one of %s)", key, known);
  return FALSE;
}

gboolean
sim_cost_options_apply (SimCostOptions *o, const char *const *assignments, GError **error)
{
  for (guint i = 0; assignments != NULL && assignments[i] != NULL; i++)
    {
      const char *eq = strchr (assignments[i], '=');
      if (eq == NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "cost option '%s' is not KEY=VALUE (hint: --cost gemm_efficiency=0.7)",
                       assignments[i]);
          return FALSE;
        }
      g_autofree char *key = g_strndup (assignments[i], (gsize) (eq - assignments[i]));
      if (!sim_cost_options_set (o, key, eq + 1, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
sim_cost_options_check_device (const SimCostOptions *o, const TopoCluster *cluster,
                               const Plan *plan, gboolean cost_flag, GError **error)
{
  g_return_val_if_fail (o != NULL && cluster != NULL && plan != NULL, FALSE);
  const TopoDevice *dev = &cluster->device;
  /* the stacks' counts are CUDA SMs (Transformer Engine's userbuffers); another vendor's
   * units (a TPU's TensorCores, a CPU host's one core a rank) are not, and keep the
   * clamp of sim_cost_coll_sms */
  if (dev->sms == 0 || g_strcmp0 (dev->vendor, "nvidia") != 0)
    return TRUE;
  /* the communication kernels' CTAs (NCCL's channels, DeepEP's SMs; --cost): as many as
   * the device has SMs leaves compute none, and was counted as all but one */
  const struct { double v; const char *key; } ctas[] = {
    { o->ep_comm_sms, "ep_comm_sms" }, { o->nccl_ctas_nvlink, "nccl_ctas_nvlink" },
    { o->nccl_ctas_nvls, "nccl_ctas_nvls" }, { o->nccl_ctas_net, "nccl_ctas_net" },
    { o->nccl_ctas_net_1ppn, "nccl_ctas_net_1ppn" },
    { o->nccl_p2p_ctas_nvlink, "nccl_p2p_ctas_nvlink" },
    { o->nccl_p2p_ctas_net, "nccl_p2p_ctas_net" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (ctas); i++)
    if (ctas[i].v >= (double) dev->sms && (i != 0 || plan->ep > 1))   /* DeepEP's: EP only */
      {
        g_autofree char *alt = cost_flag ? g_strdup_printf ("; else --cost %s=%u at most",
                                                            ctas[i].key, dev->sms - 1)
                                         : g_strdup ("");
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
                     "%s has %u SMs, and a communication kernel of %g CTAs (%s: the "
                     "default%s) holds them all: none would be left for compute (hint: "
                     "check device.sms in the cluster file: the NVIDIA parts of the presets "
                     "have 80 to 160%s)", dev->name, dev->sms, ctas[i].v, ctas[i].key,
                     cost_flag ? " unless --cost gives it" : "", alt);
        return FALSE;
      }
  if (plan->tp <= 1 || !plan->tp_comm_overlap)
    return TRUE;
  const struct { double v; const char *coll, *key; } held[] = {
    { o->tp_overlap_ag_sms, "all-gathers", "all_gather" },
    { o->tp_overlap_rs_sms, "reduce-scatters", "reduce_scatter" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (held); i++)
    if (held[i].v >= (double) dev->sms)
      {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
                     "TP-comm overlap: the %s' kernels hold %g SMs (the stack's "
                     "tp_overlap_sms.%s, or --cost tp_overlap_%s_sms), but %s has %u: no SM "
                     "would be left for the GEMM they overlap (hint: %u at most, or leave "
                     "--tp-comm-overlap off)", held[i].coll, held[i].v, held[i].key,
                     i == 0 ? "ag" : "rs", dev->name, dev->sms, dev->sms - 1);
        return FALSE;
      }
  return TRUE;
}
