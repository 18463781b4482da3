/* sim/cost-compute.c - roofline cost of compute ops and of the optimizer step.
 *
 * t = max (flops / (peak(dtype) x eff), bytes / (hbm_Bps x mem_efficiency)) + launch,
 * one kernel launch per op (DESIGN.md 4; hardware.md Physical limits 2). */
#include "sim/cost-private.h"

#include <math.h>

/* Smallest GEMM tile dimension a library picks for a small m or n: Hopper's wgmma works
 * on M = 64 per warpgroup, and CUTLASS/cuBLAS kernels for skinny shapes use 64-wide
 * tiles (PTX ISA wgmma shapes: U, recollection). */
#define TILE_FLOOR 64.0
/* Split-K: when a GEMM has fewer output tiles than SMs, cuBLAS/CUTLASS split k (split-K
 * or stream-K) to fill the machine; each split keeps at least 256 of k (four 64-wide
 * k-blocks) so the partial sums stay cheap: U (heuristic). */
#define SPLIT_K_MIN_K 256.0
/* A 128 x 128 tile against 128 x 256: per k-block it loads (128 + 128) x 64 for 128 x 128
 * x 64 MACs instead of (128 + 256) x 64 for twice the MACs, i.e. 1.33x the shared-memory
 * traffic per FLOP; Hopper's 128 x 128 wgmma kernels run at ~90% of the larger tile's
 * rate on large shapes: U (CUTLASS profiler comparisons, recollection). */
#define HALF_TILE_EFFICIENCY 0.90

/* Accesses per element of the memory-bound kinds (reads + writes, in elements of
 * op->elements), forward / backward:
 *  - NORM: read x, write y = 2; backward read x and dy, write dx = 3 (the weight-grad
 *    partial sums are per block, negligible).
 *  - ELEMENTWISE, per element counted by models/model-ops.c:
 *      rotary (elements of Q and K): read, write = 2 / 2;
 *      mlp_act (SwiGLU, per output element): read gate and up, write out = 3; backward
 *        read gate, up, dout, write dgate, dup = 5 (GeLU needs 2 / 3: charged as SwiGLU,
 *        at most 1.7x high on a small term);
 *      residual add and others: read two, write one = 3 / 3.
 *  - EMBEDDING (elements = tokens x h): gather rows, write = 2; backward read dy, read
 *    and write the gradient rows = 3.
 *  - LOSS (elements = tokens x V logits): Megatron's vocab-parallel cross-entropy
 *    (megatron/core/tensor_parallel/cross_entropy.py) is a sequence of PyTorch ops on
 *    fp32 logits, counted here pass by pass in fp32 (LOSS_BYTES_*) instead of through
 *    the element size and mem_traffic_factor: forward cast of the bf16 logits (read 2 B,
 *    write 4 B), max (read), subtract the max in place (read, write), exp in place (read,
 *    write), sum (read), divide in place into the softmax kept for backward (read,
 *    write): 6 + 8 x 4 = 38 B per logit; backward: subtract the one-hot in place (read,
 *    write), scale by the incoming gradient in place (read, write), cast to bf16 for the
 *    logits' dgrad (read 4 B, write 2 B): 4 x 4 + 6 = 22 B. */
#define LOSS_BYTES_FWD 38.0
#define LOSS_BYTES_BWD 22.0
/* The measured-kernel path (a profile with "kernels" rows) counts bytes with
 * topo_kernel_bytes, whose accesses are the ones listed above. This table matches op
 * names exactly, so "rotary_grad" and "mlp_act_grad" take the residual's 3 / 3 here
 * rather than 2 and 5; it is kept as it is, since the per-device defaults of cost.c
 * (calib_rows) were fitted with it. */
typedef struct {
  double fwd, bwd;
} Accesses;

static Accesses
accesses_of (const ModelOp *op)
{
  switch (op->kind)
    {
    case MODEL_OP_NORM:
      return (Accesses) { 2, 3 };
    case MODEL_OP_EMBEDDING:
      return (Accesses) { 2, 3 };
    case MODEL_OP_LOSS:
      return (Accesses) { 3, 2 };
    case MODEL_OP_ELEMENTWISE:
      if (op->name != NULL && g_str_equal (op->name, "rotary"))
        return (Accesses) { 2, 2 };
      if (op->name != NULL && g_str_equal (op->name, "mlp_act"))
        return (Accesses) { 3, 5 };
      return (Accesses) { 3, 3 };
    default:
      return (Accesses) { 2, 2 };
    }
}

/* AdamW bytes per parameter, memory-bound (Megatron distributed optimizer with fp32 main
 * grads and master weights, plan_init_defaults): read fp32 master 4, fp32 grad 4, m 4,
 * v 4; write master 4, m 4, v 4, bf16 param 2 = 30. Its ~15 FLOPs per parameter are far
 * below the ridge point (hardware.md Physical limits 2), so they are not charged. */
#define ADAMW_BYTES_PER_PARAM 30.0

/* Hopper's FP8 blockwise GEMM (1x128 x 128x128 in fprop and dgrad, 1x128 x 1x128 in
 * wgrad; the per-block scales applied on the CUDA cores, TE docs "On Hopper, block-scaled
 * GEMMs are software-emulated") against the per-tensor FP8 GEMM. D from Transformer
 * Engine's GEMM Profiling Tutorial (docs/examples/gemm_profiling), 5B config (hidden
 * 4096, ffn 16384, 15,872 tokens) on H200 NVL, per-layer GEMM time: autocast
 * CurrentScaling 20.285 ms, FP8 Block 22.882 ms; pre-quantized (kernels alone)
 * CurrentScaling 16.785 ms (Block has no pre-quantized figure on Hopper). Current's
 * quantization = 20.285 - 16.785 = 3.500 ms for its 6 B per element
 * (sim_cost_fp8_quant_bytes); blockwise moves 4.0625 B: 3.500 x 4.0625 / 6 = 2.370 ms
 * (U: quantization time taken proportional to bytes); blockwise kernels = 22.882 - 2.370 =
 * 20.512 ms; 16.785 / 20.512 = 0.818. (cuBLAS 12.9's blog puts block-scaled FP8 at 1.75x
 * BF16 on "large" Hopper GEMMs, i.e. about per-tensor's 1.77x MAMF ratio; the TE figure
 * is at training shapes.) */
#define FP8_BLOCKWISE_GEMM_RATIO 0.818

/* torchao's rowwise-scaled FP8 GEMM (CUTLASS) against its tensorwise one (cuBLAS), H100.
 * No GEMM-level figure is published; D from two end-to-end pairs, Llama 3 8B on 8 H100,
 * torchtitan FSDP2 + torch.compile, batch 1 x 8192: torchao float8 README (performance
 * table, per-op SAC) tensorwise 7,689.5 tok/s, rowwise 6,768 (ratio 1.136); torchtitan
 * commit 7a04053's message (bf16 + compile 5,760) tensorwise 7,186, rowwise 6,424 (1.119).
 * Through this cost model (tandem predict --model llama3-8b --cluster
 * h100-sxm-96g-superpod --gpus 8 --framework torchtitan --compile --mbs 1 --gbs 8 --seq
 * 8192 --recompute-granularity selective-op --precision fp8): tensorwise with float8
 * all-gather 1.084 s; rowwise (bf16 all-gather, its 10 B quantizations against
 * tensorwise's 6) at this ratio 1: 1.141 s, at 0.5: 1.471 s, so 0.330 s of FP8 GEMM.
 * The measured ratios ask 1.084 x 1.136 = 1.231 s and 1.084 x 1.119 = 1.213 s: 1.141 +
 * 0.330 (1/r - 1) gives r = 0.785 and 0.821; 0.80, the middle (rowwise then 1.224 s).
 * U: this model's tensorwise speed-up over bf16 (1.284 s) is 1.18, below the measured
 * 1.25 of both pairs. */
#define FP8_ROWWISE_GEMM_RATIO 0.80

/* cuBLASLt's FP8 fast-accumulation mode (CUBLASLT_MATMUL_DESC_FAST_ACCUM; torch._scaled_mm
 * use_fast_accum) against its default, in which the FP8 MAMF tandem's rates rest on was
 * measured (mamf-finder calls torch._scaled_mm with use_fast_accum left False). S:
 * pytorch/ao issue #2377 (2025): 1.1x to 1.2x from enabling it; 1.15, the middle. Check,
 * not fitted: float8_experimental PR #144 (2023) measured a Float8Linear's forward plus
 * backward at Llama 70B TP 8 shapes, 16,384 tokens, 1.6-6.1% faster with it in the
 * forward alone, where 1.15 on the forward's third of the GEMM time gives 1/3 x (1 -
 * 1/1.15) = 4.3%. */
#define FP8_FAST_ACCUM_SPEEDUP 1.15

/* The speed-up of an FP8 GEMM's math under fast accumulation: FP8_FAST_ACCUM_SPEEDUP for a
 * forward GEMM (not a *_dgrad or *_wgrad) of a stack that enables it there
 * (fp8_fast_accum_fwd: torchao's Float8LinearConfig, gemm_config_output use_fast_accum
 * True, the two backward GEMMs False), else 1. */
static double
fp8_fast_accum (const SimCost *c, const ModelOp *op, TopoDtype store)
{
  if (!c->opts.fp8_fast_accum_fwd || store != TOPO_DTYPE_FP8 || op->name == NULL
      || g_str_has_suffix (op->name, "_dgrad") || g_str_has_suffix (op->name, "_wgrad"))
    return 1.0;
  return FP8_FAST_ACCUM_SPEEDUP;
}

/* NVFP4 GEMM kernels against per-tensor FP8 ones: 6.812 / 3.764 = 1.810, Transformer
 * Engine's GEMM Profiling Tutorial, 5B config on B300, --pre-quantize (kernels alone),
 * per-layer GEMM time FP8 CurrentScaling 6.812 ms, NVFP4 3.764 ms (the peaks say 3x on
 * B300; the guide: "well short of the theoretical 2-3x"). Taken as a rate ratio on every
 * Blackwell part (U: no B200 / GB200 measurement), capped at the device's FP4 / FP8 peak
 * ratio. */
#define NVFP4_OVER_FP8_GEMM_RATE (6.812 / 3.764)

/* A dtype the device does not have (fp8 on A100) runs as bf16 (then fp16). */
static TopoDtype
resolve_dtype (const SimCost *c, TopoDtype dtype)
{
  if ((guint) dtype >= TOPO_DTYPE_N)
    dtype = TOPO_DTYPE_BF16;
  if (c->peak_flops[dtype] > 0)
    return dtype;
  if (c->peak_flops[TOPO_DTYPE_BF16] > 0)
    return TOPO_DTYPE_BF16;
  return TOPO_DTYPE_FP16;
}

void
sim_cost_compute_init (SimCost *c)
{
  const TopoDevice *dev = &c->cluster->device;
  /* A part run at a power cap below its TDP sustains a lower SM clock: every SM-clocked
   * rate (tensor peaks, vector FP32, SFU) scales by the measured clock ratio; HBM does not,
   * and MFU keeps the nameplate peak (sim/simulate.c reads the device's, not these). */
  /* ... and a part that holds less of its burst rate under sustained load than the parts
   * its fits came from, by SimCostOptions sustained_scale (sim/cost.c) */
  const double clk = (dev->power_cap_clock_ratio > 0 ? dev->power_cap_clock_ratio : 1.0)
                     * (c->opts.sustained_scale > 0 ? c->opts.sustained_scale : 1.0);
  double any = 0;
  for (int d = 0; d < TOPO_DTYPE_N; d++)
    any = MAX (any, dev->peak_flops[d] * clk);
  for (int d = 0; d < TOPO_DTYPE_N; d++)
    {
      c->peak_flops[d] = dev->peak_flops[d] * clk;
      /* NVFP4 GEMMs run at NVFP4_OVER_FP8_GEMM_RATE times the FP8 GEMM rate (the
       * fraction of the FP4 peak that makes), at most FP8's fraction of their own peak */
      c->gemm_eff[d] = d == TOPO_DTYPE_FP8 || d == TOPO_DTYPE_FP4 ? c->opts.gemm_fp8_efficiency
                                                                  : c->opts.gemm_efficiency;
      if (d == TOPO_DTYPE_FP4 && dev->peak_flops[TOPO_DTYPE_FP4] > 0
          && dev->peak_flops[TOPO_DTYPE_FP8] > 0)
        c->gemm_eff[d] *= MIN (1.0, NVFP4_OVER_FP8_GEMM_RATE * dev->peak_flops[TOPO_DTYPE_FP8]
                                      / dev->peak_flops[TOPO_DTYPE_FP4]);
      c->attn_scale[d] = d == TOPO_DTYPE_FP8 && c->opts.gemm_efficiency > 0
                           ? c->opts.gemm_fp8_efficiency / c->opts.gemm_efficiency
                           : 1.0;
    }
  /* The fitted FP8 efficiency is per-tensor FP8's (delayed and current scaling share the
   * kernel); the other recipes' GEMMs run at their fraction of it:
   *  - MXFP8: the device's measured ratio (TopoDevice mxfp8_gemm_ratio);
   *  - blockwise: on Blackwell TE emulates it with MXFP8 (TE docs, FP8 Blockwise Scaling,
   *    Supported devices), the same ratio; on Hopper the block-scaled GEMM
   *    (software-emulated, TE docs) at FP8_BLOCKWISE_GEMM_RATIO;
   *  - rowwise (torchao, CUTLASS rowwise-scaled kernel): FP8_ROWWISE_GEMM_RATIO. */
  switch (c->opts.fp8_scaling)
    {
    case FW_SCALING_BLOCK:
      if (dev->mxfp8 && dev->mxfp8_gemm_ratio > 0)
        c->gemm_eff[TOPO_DTYPE_FP8] *= dev->mxfp8_gemm_ratio;
      break;
    case FW_SCALING_BLOCKWISE:
      c->gemm_eff[TOPO_DTYPE_FP8] *= dev->mxfp8 && dev->mxfp8_gemm_ratio > 0
                                       ? dev->mxfp8_gemm_ratio : FP8_BLOCKWISE_GEMM_RATIO;
      break;
    case FW_SCALING_ROWWISE:
      c->gemm_eff[TOPO_DTYPE_FP8] *= FP8_ROWWISE_GEMM_RATIO;
      break;
    default:
      break;
    }
  /* A device with neither bf16 nor fp16 (the loader requires a peak): use its best. */
  if (c->peak_flops[TOPO_DTYPE_BF16] <= 0 && c->peak_flops[TOPO_DTYPE_FP16] <= 0)
    c->peak_flops[TOPO_DTYPE_FP16] = any;
  /* A profile's triad bandwidth replaces the nominal HBM figure (sim/cost.h). */
  const TopoProfile *prof = c->cluster->profile;
  const double mem_base = prof != NULL && prof->triad_Bps > 0 ? prof->triad_Bps : dev->hbm_Bps;
  c->mem_Bps = mem_base * c->opts.mem_efficiency;
  c->vector_flops = dev->peak_flops[TOPO_DTYPE_FP32] * clk;
  c->sms = dev->sms;
  c->exp_per_s = (double) dev->sms * dev->clock_hz * clk * dev->exp_per_clk_per_sm;

  /* the profile's attention shapes in log space, and each kernel kind's curve */
  if (prof != NULL && prof->attention->len > 0)
    {
      c->prof_attn_log = g_array_sized_new (FALSE, FALSE, sizeof (double),
                                            6 * prof->attention->len);
      for (guint i = 0; i < prof->attention->len; i++)
        {
          const TopoProfileAttn *a = &g_array_index (prof->attention, TopoProfileAttn, i);
          const double v[6] = { log ((double) a->b), log ((double) a->heads),
                                log ((double) a->kv_heads), log ((double) a->s_q),
                                log ((double) a->s_kv), log ((double) a->head_dim) };
          g_array_append_vals (c->prof_attn_log, v, 6);
        }
    }
  for (int k = 0; prof != NULL && k < TOPO_KERNEL_N; k++)
    if (prof->kernels[k]->len > 0)
      {
        const GArray *rows = prof->kernels[k];
        c->prof_kernel_log[k] = g_array_sized_new (FALSE, FALSE, sizeof (double), 2 * rows->len);
        for (guint i = 0; i < rows->len; i++)
          {
            const TopoProfileKernel *r = &g_array_index (rows, TopoProfileKernel, i);
            const double v[2] = { log ((double) r->elements), log (r->Bps) };
            g_array_append_vals (c->prof_kernel_log[k], v, 2);
          }
      }

  /* the profile's GEMM shapes in log space, for the nearest-shape lookup */
  if (prof != NULL && prof->gemm->len > 0)
    {
      c->prof_gemm_log = g_array_sized_new (FALSE, FALSE, sizeof (double), 3 * prof->gemm->len);
      for (guint i = 0; i < prof->gemm->len; i++)
        {
          const TopoProfileGemm *g = &g_array_index (prof->gemm, TopoProfileGemm, i);
          const double v[3] = { log ((double) g->m), log ((double) g->n), log ((double) g->k) };
          g_array_append_vals (c->prof_gemm_log, v, 3);
        }
    }
}

/* Achieved FLOP/s of the profile's shape nearest to (m, n, k) in log space: among rows of
 * `d` when there are some, else among all rows scaled by peak(d) / peak(row) (sim/cost.h).
 * 0 without a profile. */
static double
profile_gemm_rate (const SimCost *c, double m, double n, double k, TopoDtype d)
{
  if (c->prof_gemm_log == NULL)
    return 0.0;
  const GArray *rows = c->cluster->profile->gemm;
  const double q[3] = { log (MAX (m, 1.0)), log (MAX (n, 1.0)), log (MAX (k, 1.0)) };
  gboolean same = FALSE;
  for (guint i = 0; i < rows->len && !same; i++)
    same = g_array_index (rows, TopoProfileGemm, i).dtype == d;
  double best = G_MAXDOUBLE, rate = 0.0;
  for (guint i = 0; i < rows->len; i++)
    {
      const TopoProfileGemm *g = &g_array_index (rows, TopoProfileGemm, i);
      if (same && g->dtype != d)
        continue;
      const double *p = &g_array_index (c->prof_gemm_log, double, 3 * i);
      const double dist = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1])
                          + (q[2] - p[2]) * (q[2] - p[2]);
      if (dist < best)
        {
          best = dist;
          const double from = c->peak_flops[g->dtype], to = c->peak_flops[d];
          rate = g->flops_per_s * (!same && from > 0 && to > 0 ? to / from : 1.0);
        }
    }
  return rate;
}

/* The tile a library uses along one dimension: the configured tile, or for a dimension
 * smaller than it the next power of two, at least TILE_FLOOR. */
static double
tile_dim (int tile, double dim)
{
  double t = MAX (tile, 1);
  if (dim >= t)
    return t;
  return MIN (t, MAX (TILE_FLOOR, exp2 (ceil (log2 (MAX (dim, 1.0))))));
}

/* Tile and wave quantization of one tile shape: the fraction of the issued tile-work
 * that is useful (the last row/column of tiles is computed in full; the last wave of
 * tiles over the SMs is partly idle; fewer tiles than SMs are split along k,
 * SPLIT_K_MIN_K). */
static double
tile_wave_q (const SimCost *c, int tile_m, int tile_n, double m, double n, double k)
{
  const double tm = tile_dim (tile_m, m), tn = tile_dim (tile_n, n);
  const double tiles_m = ceil (m / tm), tiles_n = ceil (n / tn);
  const double tile_q = m * n / (tiles_m * tm * tiles_n * tn);
  double wave_q = 1.0;
  if (c->sms > 0)
    {
      const double sms = c->sms;
      double units = tiles_m * tiles_n;
      if (units < sms)
        units *= MAX (1.0, MIN (floor (sms / units), floor (k / SPLIT_K_MIN_K)));
      wave_q = units / (ceil (units / sms) * sms);
    }
  return tile_q * wave_q;
}

static double
gemm_efficiency (const SimCost *c, double m, double n, double k, TopoDtype dtype)
{
  double eff = c->gemm_eff[dtype];
  if (m <= 0 || n <= 0 || k <= 0)
    return eff;

  /* The library picks a kernel per shape (cuBLAS's heuristics): the configured tile, its
   * transpose, or the tile of half the area, whichever wastes least in tile and wave
   * quantization; the half tile re-reads A and B twice as often per FLOP and is charged
   * HALF_TILE_EFFICIENCY. */
  const int tm = c->opts.tile_m, tn = c->opts.tile_n;
  double q = tile_wave_q (c, tm, tn, m, n, k);
  q = MAX (q, tile_wave_q (c, tn, tm, m, n, k));
  const int hm = tm >= tn ? MAX (tm / 2, 1) : tm, hn = tn > tm ? MAX (tn / 2, 1) : tn;
  q = MAX (q, HALF_TILE_EFFICIENCY * tile_wave_q (c, hm, hn, m, n, k));

  /* Small-k falloff: prologue and epilogue amortised over the k loop. Tiny m and n are
   * covered by the tile quantization above. */
  const double k_q = c->opts.small_k_half > 0 ? k / (k + c->opts.small_k_half) : 1.0;
  return eff * q * k_q;
}

double
sim_cost_gemm_efficiency (const SimCost *c, guint64 m, guint64 n, guint64 k, TopoDtype dtype)
{
  g_return_val_if_fail (c != NULL, 0.0);
  const TopoDtype d = resolve_dtype (c, dtype);
  const double rate = profile_gemm_rate (c, (double) m, (double) n, (double) k, d);
  if (rate > 0 && c->peak_flops[d] > 0)
    return rate / c->peak_flops[d];
  return gemm_efficiency (c, (double) m, (double) n, (double) k, d);
}

static double
roofline (const SimCost *c, double flops, double flops_per_s, double bytes)
{
  double t = 0;
  if (flops > 0 && flops_per_s > 0)
    t = flops / flops_per_s;
  if (bytes > 0 && c->mem_Bps > 0)
    t = MAX (t, bytes / c->mem_Bps);
  return t + c->opts.launch_overhead_s;
}

/* `d` is the GEMM's math (peak, efficiency, the profile's rows of that dtype), `store`
 * the dtype of its operands in memory (bytes moved): they differ for fp32 tensors
 * multiplied on TF32 or BF16 tensor cores (plan's fp32_matmul). */
static double
gemm_s (const SimCost *c, const ModelOp *op, TopoDtype d, TopoDtype store)
{
  const double m = (double) op->m, n = (double) op->n, k = (double) op->k;
  /* b > 1: a grouped GEMM of b GEMMs of m x n x k (MoE experts, plan/program.h): the
   * efficiency is one GEMM's, the FLOPs and bytes are b times, the launch is one */
  const double g = MAX ((double) op->b, 1.0);
  const double flops = op->fwd_flops > 0 ? op->fwd_flops : 2.0 * m * n * k * g;
  /* measured: the nearest shape's kernel rate, plus the launch (sim/cost.h) */
  const double rate = profile_gemm_rate (c, m, n, k, d) * fp8_fast_accum (c, op, store);
  if (rate > 0)
    return (flops > 0 ? flops / rate : 0.0) + c->opts.launch_overhead_s;
  const double eff = gemm_efficiency (c, m, n, k, d);
  /* fp8 GEMMs read fp8 A and B and write bf16 C (Transformer Engine); NVFP4 GEMMs read
   * 4-bit A and B with an E4M3 scale per 16 elements (0.5625 B) and write bf16 C. */
  const gboolean lowp = store == TOPO_DTYPE_FP8 || store == TOPO_DTYPE_FP4;
  const double ab = store == TOPO_DTYPE_FP4 ? 0.5625 : topo_dtype_bytes (store);
  const double cb = lowp ? 2.0 : ab;
  const double bytes = g * (ab * (m * k + k * n) + cb * m * n);
  /* The stack's FP8 recipe casts the bf16 input A to fp8 before the GEMM, each cast pass
   * counted as reading 2 B and writing 1 B per element (TE casts weights once per step,
   * its weight cache; torchao casts them in every forward unless FSDP gathers them in
   * fp8: fp8_weight_cast_bytes below); an NVFP4 plan's passes carry its own quantization
   * bytes in the same 3 B unit (sim_cost_options_apply_plan). */
  const gboolean wgrad = op->name != NULL && g_str_has_suffix (op->name, "_wgrad");
  const gboolean fwd = op->name != NULL && !wgrad && !g_str_has_suffix (op->name, "_dgrad");
  /* By operand (torchao, fp8_cast_per_operand): each of the input and the output gradient
   * is cast once and the cast writes both FP8 layouts (row- and column-major), which the
   * weight gradient then reads: the forward GEMM carries its input's cast (A = m x k),
   * the data gradient its output gradient's (A = tokens x out), the weight gradient none
   * (torchao float8/roofline_utils.py get_float8_mem_sympy: gw_fp8_input_t_mem and
   * gw_fp8_grad_output_mem 0, "already casted"). */
  const gboolean a_cast = !c->opts.fp8_cast_per_operand || !wgrad;
  double cast = lowp && a_cast && c->opts.fp8_cast_passes > 0 && c->mem_Bps > 0
                  ? g * c->opts.fp8_cast_passes * 3.0 * m * k / c->mem_Bps : 0.0;
  /* Per-tensor current scaling reads its input once for the amax and once for the cast
   * (sim_cost_fp8_quant_bytes: 2 B of its 6 on Hopper, 5 on Blackwell). Where a GEMM's
   * input is a norm's output (QKV and the MLP's up projection, TE LayerNormLinear) a stack
   * whose norm kernel returns the amax with its bf16 output (fp8_norm_amax_fused)
   * quantizes it with that amax: no amax read. Transformer Engine PR #2013 ("Fuse amax
   * computation into normalization kernel for current scaling", opened 2025-07-30, after
   * #2004 which did the same for TE's activation kernels and is in the v2.7 release
   * notes): rmsnorm_fwd / layernorm_fwd write into create_hp_tensor_with_amax's tensor and
   * call quantize_with_amax (transformer_engine/pytorch/csrc/extensions/normalization.cpp);
   * before it, nvte_compute_amax read the norm output again. U: the TE version of the
   * NeMo 25.11 / 26.02 containers (the only current-scaling rows) was not read; both came
   * out after v2.7. Megatron-Core's SwiGLU is its own kernel (bias_swiglu_impl), not TE's,
   * so the MLP's down projection and every backward cast keep the amax read. */
  if (cast > 0 && fwd && store == TOPO_DTYPE_FP8 && c->opts.fp8_norm_amax_fused
      && c->opts.fp8_scaling == FW_SCALING_CURRENT && op->name != NULL
      && (g_str_equal (op->name, "qkv") || g_str_equal (op->name, "mlp_up")))
    {
      const double q = sim_cost_fp8_quant_bytes (FW_SCALING_CURRENT, c->opts.fp8_any_layout);
      cast *= (q - 2.0) / q;
    }
  /* a stack that casts bf16 weights per forward GEMM (torchao without FP8 all-gather):
   * the weight's amax pass and its cast, fp8_weight_cast_bytes per element of B = k x n */
  if (lowp && fwd && c->opts.fp8_weight_cast_bytes > 0 && c->mem_Bps > 0)
    cast += g * c->opts.fp8_weight_cast_bytes * k * n / c->mem_Bps;
  /* fast accumulation (fp8_fast_accum_fwd): the forward FP8 GEMM's math faster */
  const double fa = fp8_fast_accum (c, op, store);
  double t = roofline (c, flops, c->peak_flops[d] * eff * fa, bytes) + cast;
  /* A grouped GEMM the stack issues as one GEMM per expert (TE GroupedLinear: its
   * general_grouped_gemm hands nvte_multi_tensor_gemm one cuBLASLt matmul per local expert,
   * transformer_engine/pytorch/csrc/extensions/gemm.cpp te_general_grouped_gemm) puts g
   * kernels on the GPU where the roofline above counts one; on the passes that quantize A
   * (lowp, a_cast) TE's split_quantize quantizes each expert's part apart, one to three
   * kernels each by recipe (sim_cost_moe_quant_launches; delayed scaling's fused
   * multi-tensor cast is one launch for all experts, as a dense GEMM's one cast, which the
   * roofline does not count either): (g - 1) x (1 + q) kernels more than a dense GEMM,
   * each at the stack's per-kernel figure */
  if (g > 1 && c->opts.moe_grouped_per_expert)
    {
      const double q = lowp && a_cast
                         ? sim_cost_moe_quant_launches (c->opts.fp8_scaling,
                                                        store == TOPO_DTYPE_FP4)
                         : 0.0;
      t += (g - 1.0) * (1.0 + q) * c->opts.launch_overhead_s;
    }
  /* A grouped GEMM the stack issues as one launch per expert (TE GroupedLinear): after
   * the dispatcher's host sync the host cannot run ahead, so the b calls take the host
   * b x its GEMM call (moe_gemm_call_s) when the GEMMs are shorter than that, plus, where the
   * stack loops over the experts in Python (moe_expert_op_s), one eager op per expert in
   * the weight gradient (its buffer) and, with FP8 weights, in the forward (the weight's
   * cast); the data gradient has none. The backward has no sync (the dispatcher's
   * backward all-to-alls reuse the forward's splits), so there the host runs ahead of
   * the GPU and its per-expert calls count once per pass, against the whole pass's GPU
   * time (sim_cost_moe_host_excess_s), not per GEMM; without that pass figure they stay
   * here. A dispatcher without the sync (drop and pad: moe_dispatch_no_sync) lets the host
   * run ahead in the forward too: there the calls count against the pass the same way. */
  const gboolean pass_counted = fwd ? c->opts.moe_dispatch_no_sync
                                        && c->opts.moe_expert_host_s[0] > 0
                                    : c->opts.moe_expert_host_s[1] > 0;
  if (g > 1 && c->opts.moe_grouped_per_expert && !pass_counted)
    {
      const double eager = wgrad || (fwd && lowp) ? c->opts.moe_expert_op_s : 0.0;
      const double call = c->opts.moe_gemm_call_s > 0 ? c->opts.moe_gemm_call_s
                                                       : c->opts.host_launch_s;
      t = MAX (t, g * (call + eager));
    }
  /* without grouped GEMM (Megatron's SequentialMLP) each expert's GEMM is its own launch,
   * host-bound the same way behind the sync; in the forward each is a whole linear
   * module's call where the stack's experts are TE modules (moe_seq_expert_fwd_s) */
  else if (g <= 1 && c->opts.moe_host_sync_s > 0 && !c->opts.moe_dispatch_no_sync
           && op->name != NULL
           && g_str_has_prefix (op->name, "expert_"))
    t = MAX (t, fwd && c->opts.moe_seq_expert_fwd_s > 0 ? c->opts.moe_seq_expert_fwd_s
                                                        : c->opts.host_launch_s);
  return t;
}

/* Achieved forward or backward FLOP/s of the profile's attention shape nearest to the op
 * in (ln b, ln heads, ln kv_heads, ln s_q, ln s_kv, ln head_dim), Euclidean, the first
 * row on ties; among rows of the op's causality and dtype when there are some (a
 * causal kernel skips the masked half, a non-causal one does not), else scaled by
 * peak(d) / peak(row dtype) as GEMM rows are. 0 without attention rows.
 * A cpu backend's profile: nearest in the per-head problem (ln s_q, ln s_kv,
 * ln head_dim) first, and in (ln b, ln heads, ln kv_heads) only among rows equally near
 * in it. Its kernel (exec/layers-attn.c) runs the sequences and heads one after another
 * on one thread, each a loop over the query-key pairs with a head_dim-long dot product,
 * an exponential and a head_dim-long update per pair: FLOP/s follow head_dim (the
 * exponential's share of the work) and the lengths; b only repeats the loop. The heads
 * are not quite free: they interleave in the rows of q, k and v, so kv_heads x head_dim
 * is the stride between a head's K (and V) rows, and a wider stride spreads the same
 * bytes over more pages. On the quiet VM small-llama's attention (8 / 8 heads of 64, a
 * 2 KiB stride) ran 15-18% slower than the quick grid's 2 / 2-head row of 64 at 512
 * tokens (512 B) predicts; no quick row has that stride, so it stays unmodelled. The
 * Euclidean rule weighed all six alike, so small-llama took the 8-head row of
 * head_dim 32 at 256 tokens, and its TP2 half (4 heads) the 2-head row of 64 at 512:
 * the same per-head work, predicted from two rows. */
static double
profile_attn_rate (const SimCost *c, const ModelOp *op, TopoDtype d, gboolean backward)
{
  if (c->prof_attn_log == NULL)
    return 0.0;
  const GArray *rows = c->cluster->profile->attention;
  const double q[6] = { log (MAX ((double) op->b, 1.0)), log (MAX ((double) op->heads, 1.0)),
                        log (MAX ((double) (op->kv_heads > 0 ? op->kv_heads : op->heads), 1.0)),
                        log (MAX ((double) op->s_q, 1.0)), log (MAX ((double) op->s_kv, 1.0)),
                        log (MAX ((double) op->head_dim, 1.0)) };
  gboolean same_causal = FALSE, same_dtype = FALSE;
  for (guint i = 0; i < rows->len; i++)
    {
      const TopoProfileAttn *a = &g_array_index (rows, TopoProfileAttn, i);
      same_causal |= a->causal == op->causal;
      same_dtype |= a->causal == op->causal && a->dtype == d;
    }
  const gboolean cpu = g_strcmp0 (c->cluster->profile->backend, "cpu") == 0;
  double best = G_MAXDOUBLE, best_loops = G_MAXDOUBLE, rate = 0.0;
  for (guint i = 0; i < rows->len; i++)
    {
      const TopoProfileAttn *a = &g_array_index (rows, TopoProfileAttn, i);
      if ((same_causal && a->causal != op->causal) || (same_dtype && a->dtype != d))
        continue;
      const double *p = &g_array_index (c->prof_attn_log, double, 6 * i);
      double dist = 0, loops = 0;
      for (int j = 0; j < 6; j++)
        {
          const double dj = (q[j] - p[j]) * (q[j] - p[j]);
          if (cpu && j < 3)
            loops += dj;   /* b, heads, kv_heads: the tie-break */
          else
            dist += dj;
        }
      if (dist < best || (dist == best && loops < best_loops))
        {
          best = dist;
          best_loops = loops;
          const double from = c->peak_flops[a->dtype], to = c->peak_flops[d];
          rate = (backward ? a->bwd_flops_per_s : a->fwd_flops_per_s)
                 * (!same_dtype && from > 0 && to > 0 ? to / from : 1.0);
        }
    }
  return rate;
}

/* Unfused attention (op->materialized, plan --attention-backend unfused): the scores
 * S = QK^T of b x heads x s_q x s_kv elements go through memory between kernels, each a
 * kernel of its own:
 *   forward   QK^T (writes S); Megatron's fused scale-mask-softmax (reads S, writes P,
 *             megatron/core/fusions/fused_softmax.py); with attention dropout, the
 *             dropout (reads P, writes P' and a one-byte mask); AV (reads P');
 *   backward  dV = P'^T dO (reads P'), dP' = dO V^T (writes dP'); with dropout, its
 *             backward (reads dP' and the mask, writes dP); the softmax backward (reads
 *             P and dP, writes dS); dQ = dS K and dK = dS^T Q (read dS twice).
 * Per score element, in bytes with e the element size: GEMMs 2e forward, 4e backward;
 * softmax 2e forward, 3e backward; dropout 2e + 1 each way. The GEMMs run at the GEMM
 * efficiency on the executed (non-causal) FLOPs, under a roofline with Q, K, V, O and
 * their score traffic; the softmax and dropout passes are memory-bound. The small-k
 * falloff of gemm_efficiency is not applied to QK^T (k = head_dim): its cost is the
 * epilogue writing S, which the roofline's bytes already charge. */
static double profile_kernel_Bps (const SimCost *c, TopoKernel k, double elements);

static double
attention_unfused_s (const SimCost *c, const ModelOp *op, TopoDtype d, gboolean backward)
{
  const double b = (double) op->b, hd = (double) op->head_dim;
  const double heads = (double) op->heads;
  const double kv_heads = op->kv_heads > 0 ? (double) op->kv_heads : heads;
  const double e = topo_dtype_bytes (d);
  const double scores = b * heads * (double) op->s_q * (double) op->s_kv;
  const double q = b * (double) op->s_q * heads * hd, kv = b * (double) op->s_kv * kv_heads * hd;
  const double flops = op->fwd_flops > 0 ? op->fwd_flops
                                         : (backward ? 2.0 : 1.0) * 4.0 * scores * hd;
  const double qkvo = (backward ? 4.0 * q + 4.0 * kv : 2.0 * q + 2.0 * kv) * e;
  const double gemm_bytes = qkvo + (backward ? 4.0 : 2.0) * e * scores;
  const double pass_bytes = ((backward ? 3.0 : 2.0) * e + (op->dropout ? 2.0 * e + 1.0 : 0.0))
                            * scores;
  const int n_gemms = backward ? 4 : 2, n_passes = op->dropout ? 2 : 1;
  double gemms = 0;
  if (c->prof_gemm_log != NULL)
    {
      /* measured: each product at the rate of the profile's nearest GEMM shape (a profile
       * with GEMM rows always has one), one per sequence and head; forward QK^T (s_q x
       * s_kv x d) and AV (s_q x d x s_kv), backward dV (s_kv x d x s_q), dP (s_q x s_kv
       * x d), dQ (s_q x d x s_kv), dK (s_kv x d x s_q) */
      const double sq = (double) op->s_q, sk = (double) op->s_kv;
      const double shapes[6][3] = { { sq, sk, hd }, { sq, hd, sk }, { sk, hd, sq },
                                    { sq, sk, hd }, { sq, hd, sk }, { sk, hd, sq } };
      for (int i = backward ? 2 : 0, n = 0; n < n_gemms; i++, n++)
        gemms += b * heads * 2.0 * shapes[i][0] * shapes[i][1] * shapes[i][2]
                 / profile_gemm_rate (c, shapes[i][0], shapes[i][1], shapes[i][2], d)
                 + c->opts.launch_overhead_s;
    }
  else
    gemms = roofline (c, flops, c->peak_flops[d] * c->gemm_eff[d], gemm_bytes)
            + (n_gemms - 1) * c->opts.launch_overhead_s;
  double passes = roofline (c, 0.0, 0.0, pass_bytes)
                  + (n_passes - 1) * c->opts.launch_overhead_s;
  /* measured: the softmax (or its backward) is a row softmax like the cross-entropy's,
   * whose kernel a profile times (topology/profile.c: read for the max, again for the
   * sum, write). Where that rate is the slower one (CPUs, on which exp is compute-bound),
   * the softmax pass takes it, over the visible keys only (causal: (s + 1) / 2s of them;
   * the masked ones are written as zeros without an exp). */
  const TopoKernel sk = backward ? TOPO_KERNEL_LOSS_GRAD : TOPO_KERNEL_LOSS;
  const double Bps = profile_kernel_Bps (c, sk, scores);
  if (Bps > 0)
    {
      const double visible = op->causal && op->s_q == op->s_kv && op->s_kv > 0
                             ? 0.5 * (1.0 + 1.0 / (double) op->s_kv) : 1.0;
      const double soft_bytes = (backward ? 3.0 : 2.0) * e * scores;
      const double soft_measured = topo_kernel_bytes (sk, visible * scores, d) / Bps;
      if (soft_measured > soft_bytes / c->mem_Bps)
        passes += soft_measured - soft_bytes / c->mem_Bps;
    }
  return gemms + passes;
}

/* The softmax's exponentials on the SFU (MUFU.EX2), which a fused attention kernel
 * issues next to its tensor-core products: one exp per visible score in the forward, and
 * one again in the backward, which recomputes P = exp(S - lse) from the saved row
 * statistics (FlashAttention-2/3, cuDNN). Visible: causal self-attention computes
 * (s + 1) / 2s of the s_q x s_kv scores (as the program's FLOP count halves them), and a
 * context-parallel rank's s/c load-balanced queries half of their s_q x s keys.
 * Seconds at the device's SFU rate; 0 where the device does not give it. The kernel
 * overlaps the exponentials of one tile with the products of another (FlashAttention-3's
 * ping-pong, FlashAttention-4's pipelines), so attention takes the longer of the two
 * (attention_s): the fitted attention fraction is the tensor-core part, and the
 * exponentials bound it only where the SFU is the slower unit. */
static double
attention_exp_s (const SimCost *c, const ModelOp *op)
{
  if (c->exp_per_s <= 0)
    return 0.0;
  /* Under context parallelism (s_q = s / c queries against s keys, load-balanced chunks:
   * plan/program-blocks.c attention) a rank's queries see on average half of the keys, as
   * the op's FLOPs count them: the same half of the scores, whatever the exchange. The
   * ring steps after the first, built apart (plan/program-blocks.c cp_step_share: s / c
   * queries against (c - 1) s / 2c keys, noncausal_share 1), run without a mask: every
   * score of that shape is computed, whichever of s_q and s_kv is the longer */
  const double visible = !op->causal || op->s_kv == 0 || op->noncausal_share >= 1.0 ? 1.0
                         : op->s_q == op->s_kv ? 0.5 * (1.0 + 1.0 / (double) op->s_kv)
                         : op->s_q < op->s_kv ? 0.5 : 1.0;
  const double scores = (double) op->b * (double) op->heads * (double) op->s_q
                        * (double) op->s_kv * visible;
  return scores / c->exp_per_s;
}

/* Six figures at 512, 1K, 2K, 4K, 8K and 16K tokens, linear in log2 s between them and
 * held outside; 1 where any is missing. */
static double
curve_at (const double *g, double s)
{
  for (int i = 0; i < 6; i++)
    if (!(g[i] > 0))
      return 1.0;
  const double x = CLAMP (log2 (MAX (s, 1.0)) - 9.0, 0.0, 5.0);   /* 512 = 0, 16K = 5 */
  const int i = MIN ((int) x, 4);
  return g[i] + (g[i + 1] - g[i]) * (x - i);
}

/* The unmasked kernel's FLOP rate over the causal one's at s tokens (the causal kernel's
 * length), forward or backward: the stack's figures (SimCostOptions); the backward
 * without its own figures takes the forward's; 1 without figures. */
static double
noncausal_gain (const SimCost *c, double s, gboolean backward)
{
  if (backward && c->opts.attn_noncausal_gain_bwd[0] > 0)
    return curve_at (c->opts.attn_noncausal_gain_bwd, s);
  return curve_at (c->opts.attn_noncausal_gain, s);
}

/* The causal kernel's FLOP rate at s tokens over its rate at the length the fitted
 * efficiency holds: the stack's figures at 512 .. 16K (SimCostOptions attn_len_*),
 * linear in log2 s between them and held outside; 1 without figures. */
static double
length_factor (const SimCost *c, double s, gboolean backward)
{
  return curve_at (backward ? c->opts.attn_len_bwd : c->opts.attn_len_fwd, s);
}

/* The kernel's FLOP rate at head dim `hd` over its rate at 128 (where the fitted
 * efficiency holds), at s tokens: the stack's head-dim-64 figures (SimCostOptions
 * attn_hd64_*) at 64 and below, 1 at 128 and above, linear in log2 hd between. */
static double
head_dim_factor (const SimCost *c, double hd, double s, gboolean backward)
{
  if (!(hd > 0) || hd >= 128.0)
    return 1.0;
  const double g = curve_at (backward ? c->opts.attn_hd64_bwd : c->opts.attn_hd64_fwd, s);
  const double x = CLAMP (7.0 - log2 (hd), 0.0, 1.0);   /* 128 = 0, 64 and below = 1 */
  return 1.0 + (g - 1.0) * x;
}

/* The fused kernel's time for `flops` of the op run at kernel length `len`: the fitted
 * causal efficiency with the stack's curves by length and head dim, ring attention's
 * unmasked share, under a roofline with `bytes`, and at least `exp_s`, the time of its
 * exponentials. */
static double
attention_fused_s (const SimCost *c, const ModelOp *op, TopoDtype d, gboolean backward,
                   double flops, double len, double bytes, double exp_s)
{
  double eff = (backward ? c->opts.attn_bwd_efficiency : c->opts.attn_fwd_efficiency)
               * c->attn_scale[d];
  /* the fitted efficiency is the causal kernel's at the fit's length; at the length one
   * call runs (ModelOp kernel_s) it has the stack's curve, and ring attention runs a
   * share of the FLOPs unmasked (ModelOp noncausal_share), each block that long */
  if (op->causal)
    eff *= length_factor (c, len, backward);
  /* the fit holds at head dim 128; MLA's wider q/k head runs as its widest (>= 128) */
  eff *= head_dim_factor (c, (double) MAX (op->head_dim, op->head_dim_v), len, backward);
  const double sh = op->causal ? op->noncausal_share : 0.0;
  if (sh > 0)
    eff /= (1.0 - sh) + sh / noncausal_gain (c, op->kernel_s > 0 ? len : (double) op->s_q,
                                             backward);
  double t = roofline (c, flops, c->peak_flops[d] * eff, bytes);
  /* Fractions borrowed from an architecture with more SFU per tensor FLOP (Blackwell's
   * from Hopper's, SimCostOptions attn_fit_flop_per_exp): the fitted time holds the
   * exponentials at that architecture's balance, scores x its FLOPs per exponential at
   * this device's BF16 peak; the rest of the device's own exponential time runs serially
   * with the products (the Tensor Cores wait on the SFU between a tile's two products). */
  const double bf16 = c->peak_flops[TOPO_DTYPE_BF16];
  if (c->opts.attn_fit_flop_per_exp > 0 && exp_s > 0 && bf16 > 0 && c->exp_per_s > 0)
    {
      const double in_fit = exp_s * c->exp_per_s * c->opts.attn_fit_flop_per_exp / bf16;
      t += MAX (0.0, exp_s - in_fit);
    }
  return MAX (t, exp_s);
}

static double
attention_s (const SimCost *c, const ModelOp *op, TopoDtype d, gboolean backward)
{
  /* FP8 recipes keep the attention core in bf16 (TE without fp8_dpa, torchao float8,
   * Composer amp_fp8) unless the stack runs FP8 attention (sim/cost.h). */
  if ((d == TOPO_DTYPE_FP8 && !c->opts.fp8_attention) || d == TOPO_DTYPE_FP4)
    d = resolve_dtype (c, TOPO_DTYPE_BF16);   /* NVFP4 recipes keep attention in bf16 */
  if (op->materialized)
    return attention_unfused_s (c, op, d, backward);
  const double b = (double) op->b, hd = (double) op->head_dim;
  const double heads = (double) op->heads;
  const double kv_heads = op->kv_heads > 0 ? (double) op->kv_heads : heads;
  const double q = b * (double) op->s_q * heads * hd;        /* elements of Q (and O) */
  const double kv = b * (double) op->s_kv * kv_heads * hd;   /* elements of K (and V) */
  double flops = op->fwd_flops;
  if (flops <= 0)
    flops = 4.0 * b * (double) op->s_q * (double) op->s_kv * heads * hd
            * (op->causal ? 0.5 : 1.0);
  /* measured: the nearest shape's rate in the program's FLOP counting (sim/cost.h) */
  const double rate = profile_attn_rate (c, op, d, backward);
  if (rate > 0)
    return flops / rate + c->opts.launch_overhead_s;
  /* forward reads Q, K, V and writes O; backward reads Q, K, V, O, dO and writes dQ,
   * dK, dV (the per-row softmax statistics are negligible). */
  const double elements = backward ? 4.0 * q + 4.0 * kv : 2.0 * q + 2.0 * kv;
  const double bytes = elements * topo_dtype_bytes (d);
  const double len = op->kernel_s > 0 ? (double) op->kernel_s : (double) op->s_kv;
  const double exp_s = attention_exp_s (c, op);
  /* Sliding-window layers (ModelOp window, window_share; fwd_flops the average over the
   * layers, a windowed layer's keys per query 2W - W^2/s of s, plan/program-blocks.c):
   * the full layers' FLOPs at the kernel's length, the windowed layers' at the rate of a
   * causal kernel of length 2W. D: with T-row query tiles a window-W kernel with its band
   * mask walks W/T + 1 key tiles per query tile for W visible keys per query, a causal
   * kernel of length 2W walks W/T + 1/2 on average for the same W (the same diagonal,
   * half-masked tiles); for W = 128 that is 256 tokens, where the curve holds its 512
   * figure (the conservative side: a shorter row is slower still). Each layer reads Q, K,
   * V and writes O whole (the bytes), and computes exponentials for its visible scores
   * only. */
  /* Under all-gather CP (s_q = s/c of s keys) the windowed layers' pairs are the
   * busiest rank's (model_window_pairs_ratio_cp, as the program counts them). */
  const gboolean gathered = op->s_q > 0 && op->s_q < op->s_kv && op->s_kv % op->s_q == 0;
  if (op->window > 0 && op->window_share > 0 && op->causal && op->fwd_flops > 0
      && (op->s_q == op->s_kv || gathered) && op->window < op->s_kv
      && !(op->noncausal_share > 0))
    {
      const double s = (double) op->s_kv, W = (double) op->window;
      const double f = MIN (op->window_share, 1.0);
      const double r = gathered ? model_window_pairs_ratio_cp (s, W, op->s_kv / op->s_q)
                                : (2.0 * W - W * W / s) / s;
      const double full = flops / ((1.0 - f) + f * r);
      return (1.0 - f) * attention_fused_s (c, op, d, backward, full, len, bytes, exp_s)
             + f * attention_fused_s (c, op, d, backward, full * r, MIN (2.0 * W, len), bytes,
                                      exp_s * r);
    }
  return attention_fused_s (c, op, d, backward, flops, len, bytes, exp_s);
}

/* The chunked gated delta rule of a GDN layer (MODEL_OP_GDN; flash-linear-attention's
 * chunk_gated_delta_rule, Triton): a roofline of its FLOPs (the op's, forward or backward
 * as the program counts them) at the Triton-class attention efficiency and of its bytes.
 * Per token and value head the forward reads q, k (d_k each, repeated to the value heads)
 * and v (d_v), g and beta, writes the chunk's W and U (d_k + d_v) and reads them back,
 * writes o (d_v); per chunk and head it writes the d_k x d_v state and reads it back. The
 * backward reads and writes about twice that (it recomputes the states and returns dq,
 * dk, dv). Kept in bf16 whatever the GEMMs run. */
static double
gdn_s (const SimCost *c, const ModelOp *op, TopoDtype d, gboolean backward)
{
  if (d == TOPO_DTYPE_FP8 || d == TOPO_DTYPE_FP4)
    d = resolve_dtype (c, TOPO_DTYPE_BF16);
  const double tokens = (double) op->b * (double) op->s_q, heads = (double) op->heads;
  const double dk = (double) op->head_dim, dv = (double) op->head_dim_v;
  const double chunks = ceil ((double) op->s_q / (double) MAX (op->chunk, 1)) * (double) op->b;
  double elements = tokens * heads * (2.0 * dk + dv + 2.0 + 2.0 * (dk + dv) + dv)
                    + chunks * heads * 2.0 * dk * dv;
  /* a Mamba-2 layer's SSD scan (plan/program-blocks.c mamba_ops: head_dim the state N,
   * head_dim_v the head width P, kv_heads the groups G, chunk Q). mamba_ssm's
   * mamba_chunk_scan_combined (ssd_combined.py) runs Triton kernels that per token read x
   * (P per head) and write the output (P), read dt and write dt and its cumulative decay
   * (3 per head), read B and C (N per group each), write the chunk's C B^T (Q per group)
   * and read it back; per chunk and head they write the P x N state, pass it on (a read
   * and a write) and read it for the output. The backward about twice that, as the GDN's.
   * Its efficiency is the Triton class's (the GDN's): no measurement of these kernels was
   * found, so none is assumed apart. */
  if (g_str_has_prefix (op->name, "mamba_scan"))
    {
      const double groups = (double) MAX (op->kv_heads, 1), Q = (double) MAX (op->chunk, 1);
      elements = tokens * (heads * (2.0 * dv + 3.0) + groups * (2.0 * dk + 2.0 * Q))
                 + chunks * heads * 4.0 * dk * dv;
    }
  const double bytes = (backward ? 2.0 : 1.0) * elements * topo_dtype_bytes (d);
  double eff = backward ? c->opts.gdn_bwd_efficiency : c->opts.gdn_fwd_efficiency;
  if (!(eff > 0))   /* options set by hand without it: the attention figure */
    eff = backward ? c->opts.attn_bwd_efficiency : c->opts.attn_fwd_efficiency;
  eff *= c->attn_scale[d];
  return roofline (c, op->fwd_flops, c->peak_flops[d] * eff, bytes);
}

/* The profile's kind of a memory-bound op: the program's op names (plan/program.c)
 * "rotary*" and "mlp_act*" are the rotary and activation kernels, other element-wise ops
 * the residual; the backward block's ops are the _grad kinds. */
static TopoKernel
kernel_of (const ModelOp *op, gboolean backward)
{
  TopoKernel k;
  switch (op->kind)
    {
    case MODEL_OP_NORM:
      k = TOPO_KERNEL_NORM;
      break;
    case MODEL_OP_EMBEDDING:
      k = TOPO_KERNEL_EMBEDDING;
      break;
    case MODEL_OP_LOSS:
      k = TOPO_KERNEL_LOSS;
      break;
    default:
      k = op->name != NULL && g_str_has_prefix (op->name, "rotary") ? TOPO_KERNEL_ROTARY
          : op->name != NULL && g_str_has_prefix (op->name, "mlp_act") ? TOPO_KERNEL_SWIGLU
          : TOPO_KERNEL_RESIDUAL;
      break;
    }
  return backward ? (TopoKernel) (k + 1) : k;
}

/* Measured bytes/s of kind k at `elements`: ln Bps linear in ln elements between the two
 * measured sizes around it, held beyond the smallest and the largest (as collective
 * busbw is). 0 without rows of that kind. */
static double
profile_kernel_Bps (const SimCost *c, TopoKernel k, double elements)
{
  const GArray *curve = c->prof_kernel_log[k];
  if (curve == NULL)
    return 0.0;
  const guint n = curve->len / 2;
  const double *v = (const double *) (void *) curve->data;
  const double x = log (MAX (elements, 1.0));
  if (n == 1 || x <= v[0])
    return exp (v[1]);
  if (x >= v[2 * (n - 1)])
    return exp (v[2 * (n - 1) + 1]);
  guint i = 1;
  while (v[2 * i] < x)
    i++;
  const double f = (x - v[2 * (i - 1)]) / (v[2 * i] - v[2 * (i - 1)]);
  return exp (v[2 * (i - 1) + 1] + f * (v[2 * i + 1] - v[2 * (i - 1) + 1]));
}

static double
memory_bound_s (const SimCost *c, const ModelOp *op, TopoDtype d, gboolean backward)
{
  /* the MoE dispatcher's device-to-host sync (plan/program-blocks.c "moe_host_sync"):
   * its round trip, during which the GPU runs nothing issued after it */
  if (op->name != NULL && g_str_equal (op->name, "moe_host_sync"))
    return c->opts.moe_dispatch_no_sync ? 0.0 : c->opts.moe_host_sync_s;
  /* FSDP2's unsharded gradient accumulation in fp32 (plan.h grad_accum_upcast), one
   * streaming pass per parameter: the first micro-batch's .to(float32) reads bf16 2 B and
   * writes 4 B; a later one's += reads the fp32 sum 4 B and the bf16 gradient 2 B and
   * writes 4 B (torch FSDP2 _fsdp_param.py); plain copies, so at the HBM roofline as
   * AdamW's pass, without the element-wise traffic factor */
  if (op->name != NULL && g_str_equal (op->name, "fsdp_grad_upcast"))
    return roofline (c, 0.0, 0.0, (double) op->elements * 6.0);
  if (op->name != NULL && g_str_equal (op->name, "fsdp_grad_accum"))
    return roofline (c, 0.0, 0.0, (double) op->elements * 10.0);
  /* FSDP2's copies out of the all-gather buffer and into the reduce-scatter's (plan.h
   * zero3_copy_in_out): `elements` are the bytes read and written, one streaming pass */
  if (op->name != NULL && g_str_equal (op->name, "fsdp_copy"))
    return roofline (c, 0.0, 0.0, (double) op->elements);
  /* async TP's sum of the pulled partial outputs (plan/program.c async_tp_split):
   * `elements` are the bytes read and written, one streaming reduction */
  if (op->name != NULL && g_str_equal (op->name, "async_tp_reduce"))
    return roofline (c, 0.0, 0.0, (double) op->elements);
  /* the functional collectives' chunk + cat re-laying of a TP all-gather's output or a
   * reduce-scatter's input (plan/program-blocks.c tp_seq_copy): `elements` are the bytes
   * read and written, one streaming copy */
  if (op->name != NULL && g_str_equal (op->name, "tp_seq_copy"))
    return roofline (c, 0.0, 0.0, (double) op->elements);
  /* RoPE as Megatron-Core's unfused PyTorch ops (plan --no-rope-fusion; rope_utils.py
   * _apply_rotary_pos_emb_bshd: t * cos + rotate_half (t) * sin, rotate_half = cat (-x2,
   * x1), the result cat'ed with the unrotated rest), per element of Q and K, pass by
   * pass: forward the negation 1 (half the elements read and written), the cat 2, two
   * products 2 + 2, the add 3, the final cat 2 = 12 accesses; 12 kernels per tensor with
   * cos, sin, their scaling and casts on the [s, d] frequencies, Q and K apart: 24;
   * backward the two products' gradients 2 + 2, the negation's 1, the chunk's gradient
   * assembled 2, the two paths summed 3, the slice's zero-filled gradient and copy 3 =
   * 13, 7 kernels per tensor: 14. Plain passes: neither mem_traffic_factor nor the eager
   * passes apply. */
  if (op->name != NULL && g_str_has_prefix (op->name, "rotary_unfused"))
    {
      const double e = d == TOPO_DTYPE_FP32 || d == TOPO_DTYPE_TF32 ? 4.0 : 2.0;
      const double kernels = backward ? 14.0 : 24.0;
      return roofline (c, 0.0, 0.0, (double) op->elements * (backward ? 13.0 : 12.0) * e)
             + (kernels - 1.0) * c->opts.launch_overhead_s;
    }
  /* the experts' down-projection bias added outside the grouped GEMM (plan/program-blocks.c
   * "expert_bias", Megatron-Core's TEGroupedMLP _apply_bias), counted pass by pass in
   * bf16 per element of the projection's output (moe_router_dtype is unset in the
   * gpt-oss recipe, so the routing probabilities are bf16 and the final .to() is a
   * no-op: U): forward b * p written 2 B, t + b p read 4 B and written 2 B, torch.cat
   * read and written 4 B = 12 B, a product and an add per local expert and the cat,
   * 2L + 1 kernels; backward the product's two gradients, grad * p summed over the
   * tokens for the bias and grad * b summed over h for the probabilities, each written
   * and read back 6 B = 12 B (the add and the cat pass the gradient through as views),
   * 4L kernels. Plain passes: neither mem_traffic_factor nor the eager passes apply. */
  if (op->name != NULL && g_str_has_prefix (op->name, "expert_bias"))
    {
      const double L = MAX ((double) op->b, 1.0);
      const double kernels = backward ? 4.0 * L : 2.0 * L + 1.0;
      return roofline (c, 0.0, 0.0, (double) op->elements * 12.0)
             + (kernels - 1.0) * c->opts.launch_overhead_s;
    }
  /* gpt-oss's clamped quick-GEGLU under Megatron-Core (plan/program-blocks.c
   * "expert_act_*"; fusions/fused_bias_geglu.py weighted_bias_quick_geglu_impl), pass by
   * pass per element of the activation's output (N tokens x f; its input is N x 2f), e
   * the activation's element size, booleans 1 B:
   *  - clamp (forward, and again under --recompute-modules moe_act): x_glu.clamp (max)
   *    reads and writes f, x_linear.clamp (-l, l) the same, torch.cat of the two reads
   *    and writes 2f: 8 e, 3 kernels;
   *  - geglu: the compiled weighted_quick_geglu reads 2f and writes f: 3 e, 1 kernel
   *    (the N routing weights, 1/f per element, left out); at least the host's time to
   *    the next GEMM after the sync (below);
   *  - geglu_grad: the compiled weighted_quick_geglu_back reads the output gradient f
   *    and the saved input 2f and writes the input gradient 2f: 5 e, 1 kernel (U: the
   *    weights' row sums taken in the same kernel);
   *  - clamp_grad: autograd through the cat (views), the clamps and the chunk. PyTorch's
   *    clamp_backward is where (mask, grad, 0) over comparison masks (U, recollection of
   *    FunctionsManual.cpp): the gate's `x <= l` reads e and writes 1 B, the where reads
   *    1 B + e and writes e: 3 e + 2 B, 2 kernels and the zero scalar's fill; the linear
   *    half's `x >= -l` and `x <= l` (e + 1 B each), logical_and_ in place (2 B read,
   *    1 B written), the where (1 B + e, e): 4 e + 6 B, 4 kernels and a fill; the
   *    chunk's backward cats the two halves' gradients (2f read and written): 4 e, 1
   *    kernel. 11 e + 8 B, 9 kernels;
   *  - sync: torch.tensor (linear_offset, device = cuda) is a synchronous host-to-device
   *    copy (torch.tensor copies its CPU data with non_blocking False; PyTorch
   *    aten/src/ATen/native/cuda/Copy.cu copy_kernel_cuda then calls memcpy_and_sync,
   *    c10/cuda/CUDAFunctions.h: cudaMemcpyAsync and cudaStreamSynchronize): the
   *    launch-plus-sync round trip, then the GPU waits while the host issues the next op
   *    (one eager op, the compiled geglu's call). Only for
   *    the stacks that run Megatron-Core's MoE layer (moe_host_sync_s > 0).
   * Plain passes: neither mem_traffic_factor nor the eager passes apply. */
  if (op->name != NULL && g_str_has_prefix (op->name, "expert_act_"))
    {
      const double e = d == TOPO_DTYPE_FP32 || d == TOPO_DTYPE_TF32 ? 4.0 : 2.0;
      const double n = (double) op->elements;
      if (g_str_equal (op->name, "expert_act_sync"))
        return c->opts.moe_host_sync_s > 0
                 ? c->opts.moe_host_sync_s + MAX (c->opts.moe_expert_op_s, c->opts.launch_overhead_s)
                 : 0.0;
      if (g_str_equal (op->name, "expert_act_clamp")
          || g_str_equal (op->name, "expert_act_clamp_recompute"))
        return roofline (c, 0.0, 0.0, n * 8.0 * e) + 2.0 * c->opts.launch_overhead_s;
      if (g_str_equal (op->name, "expert_act_geglu")
          || g_str_equal (op->name, "expert_act_geglu_recompute"))
        {
          /* after the sync the geglu is all the GPU has until the host issues the down
           * projection's first expert GEMM: the GroupedLinear call's own time and one GEMM
           * call (TE_MODULE_FWD_HOST_S, TE_GEMM_CALL_TRAIN_HOST_S; under moe_act recompute the
           * backward's GroupedLinear dgrad taken at the forward's figures: U) */
          const double t = roofline (c, 0.0, 0.0, n * 3.0 * e);
          if (c->opts.moe_host_sync_s > 0 && c->opts.moe_grouped_call_s > 0)
            return MAX (t, c->opts.moe_grouped_call_s
                             + MAX (c->opts.moe_gemm_call_s, c->opts.launch_overhead_s));
          return t;
        }
      if (g_str_equal (op->name, "expert_act_geglu_grad"))
        return roofline (c, 0.0, 0.0, n * 5.0 * e);
      if (g_str_equal (op->name, "expert_act_clamp_grad"))
        return roofline (c, 0.0, 0.0, n * (11.0 * e + 8.0)) + 8.0 * c->opts.launch_overhead_s;
    }
  /* the all-to-all dispatcher's chunk sorts (plan/program-blocks.c "moe_sort_chunks*",
   * Megatron-Core sort_chunks_by_idxs): a gather copy of the received tokens, each
   * element read once and written once in the activation dtype, one kernel (Transformer
   * Engine's fused sort_chunks_by_index; the unfused torch.cat is one kernel too), a plain
   * streaming pass as the FSDP copies above, without the element-wise traffic factor */
  if (op->name != NULL && g_str_has_prefix (op->name, "moe_sort_chunks"))
    {
      const double e = d == TOPO_DTYPE_FP32 || d == TOPO_DTYPE_TF32 ? 4.0 : 2.0;
      return roofline (c, 0.0, 0.0, (double) op->elements * 2.0 * e);
    }
  /* context_parallel's per-step merges and fp32 gradient sums (plan/program-blocks.c
   * cp_merge_ops): `elements` are the bytes, one streaming pass as above */
  if (op->name != NULL && g_str_has_prefix (op->name, "cp_merge"))
    return roofline (c, 0.0, 0.0, (double) op->elements);
  /* Transformer Engine's Triton cross entropy (plan --cross-entropy-fusion-impl te;
   * transformer_engine/pytorch/triton/cross_entropy.py, the kernels Megatron-Core's
   * cross_entropy_fusion_impl "te" calls through te_parallel_cross_entropy), pass by pass
   * per logit of the activation dtype e: forward, online_softmax_kernel reads the logits
   * once for each row's running max and sum (e), cross_entropy_forward_kernel reads only
   * per-row scalars; backward, cross_entropy_backward_kernel reads the logits and writes
   * the gradient over them in place (2 e). Against the native path's 38 / 22 B (above):
   * no fp32 copy, no saved softmax. 2 and 1 kernels. Plain passes: neither
   * mem_traffic_factor nor a measured kernel curve (TOPO_KERNEL_LOSS times the native
   * kernels) applies. */
  if (op->kind == MODEL_OP_LOSS && op->name != NULL && g_str_has_prefix (op->name, "loss_te"))
    {
      const double e = d == TOPO_DTYPE_FP32 || d == TOPO_DTYPE_TF32 ? 4.0 : 2.0;
      return roofline (c, op->fwd_flops, c->vector_flops,
                       (double) op->elements * (backward ? 2.0 * e : e))
             + (backward ? 0.0 : c->opts.launch_overhead_s);
    }
  /* measured: the kind's bytes (topo_kernel_bytes) at its achieved rate, plus the launch;
   * the rate already holds whatever traffic the kernel really moves, so neither
   * mem_traffic_factor nor the roofline applies (sim/cost.h) */
  const TopoKernel k = kernel_of (op, backward);
  const double Bps = profile_kernel_Bps (c, k, (double) op->elements);
  if (Bps > 0)
    return (op->elements > 0 ? topo_kernel_bytes (k, (double) op->elements, d) / Bps : 0.0)
           + c->opts.launch_overhead_s;
  if (op->kind == MODEL_OP_LOSS)   /* counted pass by pass (above) */
    return roofline (c, op->fwd_flops, c->vector_flops,
                     (double) op->elements * (backward ? LOSS_BYTES_BWD : LOSS_BYTES_FWD));
  /* Activations are bf16 outside GEMMs, also in fp8 training; fp32 runs keep fp32. */
  const double elt = d == TOPO_DTYPE_FP32 || d == TOPO_DTYPE_TF32 ? 4.0 : 2.0;
  const Accesses a = accesses_of (op);
  /* eager stacks run a norm or activation as a chain of kernels (elementwise_passes,
   * sim/cost.c); embedding gathers are one kernel in every stack */
  const double passes = op->kind == MODEL_OP_NORM || op->kind == MODEL_OP_ELEMENTWISE
                          ? MAX (c->opts.elementwise_passes, 0.1) : 1.0;
  const double bytes = (double) op->elements * (backward ? a.bwd : a.fwd) * elt
                       * c->opts.mem_traffic_factor * passes;
  return roofline (c, op->fwd_flops, c->vector_flops, bytes);
}

double
sim_cost_op_s (const SimCost *c, const ModelOp *op, TopoDtype dtype, gboolean backward)
{
  return sim_cost_op_math_s (c, op, dtype, dtype, backward);
}

static double op_math_s (const SimCost *c, const ModelOp *op, TopoDtype dtype,
                         TopoDtype gemm_dtype, gboolean backward);

/* cpu_time_scale: 1 but on a CPU host that time-shares its cores (sim/cost-cpu.c);
 * straggler_scale: the slowest of the plan's GPUs against the median part (sim/cost.c) */
double
sim_cost_op_math_s (const SimCost *c, const ModelOp *op, TopoDtype dtype, TopoDtype gemm_dtype,
                    gboolean backward)
{
  g_return_val_if_fail (c != NULL && op != NULL, 0.0);
  return op_math_s (c, op, dtype, gemm_dtype, backward) * c->cpu_time_scale * c->straggler_scale;
}

static double
op_math_s (const SimCost *c, const ModelOp *op, TopoDtype dtype, TopoDtype gemm_dtype,
           gboolean backward)
{
  const TopoDtype d = resolve_dtype (c, dtype);
  switch (op->kind)
    {
    case MODEL_OP_GEMM:
      /* Low-precision recipes quantize the transformer layers' linears only: the output
       * layer runs bf16 (Megatron-Core's output_layer is a tensor_parallel
       * ColumnParallelLinear, not a Transformer Engine module, so neither fp8 nor fp4
       * autocast reaches it; NVIDIA's NVFP4 pretraining recipe, arXiv 2509.25149, keeps it
       * in BF16; torchtitan's float8 converter skips it: module_filter_fn fqn != "output"),
       * and so does the MoE router's gating GEMM (Megatron's TopKRouter: fp32 or bf16,
       * moe_router_dtype). FP4 plans always; FP8 plans where the stack says so
       * (fp8.output_layer "bf16": megatron-core, nemo, llm-foundry, deepspeed, torchtitan,
       * hai-llm, maxtext, each with its source); forward and both backward GEMMs
       * ("logits_dgrad", "router_wgrad", ...). Until round 32 the TE stacks ran them at the fitted FP8
       * rate, which the FP8 fraction (sim/cost.c) had absorbed; moved, the grid's best FP8
       * fraction is still 0.602 (H100 MAPE 4.55 -> 4.40%, leave-one-source-out 5.12 ->
       * 5.24%, held-out dense 7.07 -> 7.09%: Blackwell 12.20 -> 11.73, H100 4.42 -> 4.72;
       * MoE 14.52 -> 14.39%). */
      if (op->name != NULL
          && (gemm_dtype == TOPO_DTYPE_FP4
              || (gemm_dtype == TOPO_DTYPE_FP8 && c->opts.fp8_output_bf16))
          && (g_str_has_prefix (op->name, "logits") || g_str_has_prefix (op->name, "router")
              || g_str_has_prefix (op->name, "shared_gate")))
        {
          const TopoDtype b = resolve_dtype (c, TOPO_DTYPE_BF16);
          return gemm_s (c, op, b, b);
        }
      return gemm_s (c, op, resolve_dtype (c, gemm_dtype), d);
    case MODEL_OP_ATTENTION:
      return attention_s (c, op, d, backward);
    case MODEL_OP_GDN:
      return gdn_s (c, op, d, backward);
    case MODEL_OP_NORM:
    case MODEL_OP_ELEMENTWISE:
    case MODEL_OP_EMBEDDING:
    case MODEL_OP_LOSS:
    default:
      return memory_bound_s (c, op, d, backward);
    }
}

double
sim_cost_hbm_s (const SimCost *c, double bytes)
{
  g_return_val_if_fail (c != NULL, 0.0);
  if (!(bytes > 0) || !(c->mem_Bps > 0))
    return 0.0;
  return bytes / c->mem_Bps * c->cpu_time_scale * c->straggler_scale;
}

double
sim_cost_optimizer_s (const SimCost *c, double params)
{
  g_return_val_if_fail (c != NULL, 0.0);
  if (c->opts.free_optimizer || params <= 0)
    return 0.0;
  const double Bps = profile_kernel_Bps (c, TOPO_KERNEL_ADAMW, params);
  if (Bps > 0)
    return (topo_kernel_bytes (TOPO_KERNEL_ADAMW, params, TOPO_DTYPE_FP32) / Bps
            + c->opts.launch_overhead_s) * c->cpu_time_scale * c->straggler_scale;
  /* a stack that states its own step (torchtitan's foreach AdamW) moves its bytes */
  const double per_param = c->opts.optimizer_bytes_per_param > 0
                             ? c->opts.optimizer_bytes_per_param : ADAMW_BYTES_PER_PARAM;
  return roofline (c, 0.0, 0.0, params * per_param) * c->cpu_time_scale * c->straggler_scale;
}

/* GPU time of one block's ops, as the engine sums them (sim/simulate.c block_cost) */
static double
block_ops_s (const SimCost *c, const ProgProgram *p, const ProgBlock *blk)
{
  double s = 0;
  for (guint i = 0; i < blk->n_ops; i++)
    s += sim_cost_op_math_s (c, &g_array_index (p->ops, ModelOp, blk->first_op + i),
                             p->compute_dtype, p->gemm_dtype,
                             blk->phase == PROG_PHASE_BACKWARD);
  return s;
}

/* The GPU time of one MoE layer's pass: its token mixer and MoE blocks (the all-to-alls,
 * on the ep stream, are left out). In the forward, `before`/`after` split it at the router
 * block's "moe_host_sync" op: the mixer, router and the dispatcher's counts before,
 * permute, experts, combine and shared experts after. The program holds every variant of
 * the mixer a layer may run (plan/program.c attn_part, mixer_block), of which one layer
 * runs one: the whole attention block without context parallelism, its pre / core / post
 * pieces with it (cp > 1), a Gated DeltaNet layer's mixer (`linear`) in place of the
 * attention, and in the backward the recomputed attention core only under selective
 * recompute (a GDN layer has no core to redo; the selective-op recompute block is never a
 * MoE layer's). Counting every variant put two attentions (or an attention and a GDN
 * mixer) under each MoE layer's host time and hid host-bound layers. */
static gboolean
mixer_block_runs (const ProgProgram *p, const ProgBlock *blk, gboolean linear)
{
  const char *n = blk->name != NULL ? blk->name : "";
  const gboolean split = p->plan.cp > 1;
  if (g_str_equal (n, "attn_fwd") || g_str_equal (n, "attn_bwd"))
    return !split && !linear;
  if (g_str_equal (n, "gdn_fwd") || g_str_equal (n, "gdn_bwd")
      || g_str_equal (n, "mamba_fwd") || g_str_equal (n, "mamba_bwd"))
    return !split && linear;
  if (g_str_equal (n, "attn_core_recompute"))
    return p->plan.recompute == PLAN_RECOMPUTE_SELECTIVE && !linear;
  if (g_str_equal (n, "sac_op_recompute"))
    return FALSE;
  if (g_str_has_prefix (n, "attn_pre_") || g_str_has_prefix (n, "attn_core_")
      || g_str_has_prefix (n, "attn_post_"))
    return split;
  return TRUE;
}

static void
moe_pass_gpu_s (const SimCost *c, const ProgProgram *p, int ph, gboolean linear,
                double *before, double *after)
{
  *before = *after = 0;
  for (guint b = 0; b < p->blocks->len; b++)
    {
      const ProgBlock *blk = prog_block (p, b);
      gboolean pass = ph == 0 ? blk->phase == PROG_PHASE_FORWARD
                              : blk->phase == PROG_PHASE_BACKWARD
                                || blk->phase == PROG_PHASE_RECOMPUTE;
      if (!pass)
        continue;
      switch (blk->kind)
        {
        case PROG_BLOCK_ATTN:
        case PROG_BLOCK_ATTN_PRE:
        case PROG_BLOCK_ATTN_CORE:
        case PROG_BLOCK_ATTN_POST:
          if (mixer_block_runs (p, blk, linear))
            *before += block_ops_s (c, p, blk);
          break;
        case PROG_BLOCK_MOE_ROUTE:
          {
            gboolean synced = FALSE;
            for (guint i = 0; i < blk->n_ops; i++)
              {
                const ModelOp *op = &g_array_index (p->ops, ModelOp, blk->first_op + i);
                const double t = sim_cost_op_math_s (c, op, p->compute_dtype, p->gemm_dtype,
                                                     blk->phase == PROG_PHASE_BACKWARD);
                if (synced && ph == 0)
                  *after += t;
                else
                  *before += t;
                if (op->name != NULL && g_str_equal (op->name, "moe_host_sync"))
                  synced = TRUE;
              }
          }
          break;
        case PROG_BLOCK_MOE_EXPERTS:
        case PROG_BLOCK_MOE_COMBINE:
        case PROG_BLOCK_MOE_SHARED:
          *(ph == 0 ? after : before) += block_ops_s (c, p, blk);
          break;
        default:
          break;
        }
    }
}

/* The host issues the layer's ops one after another while the GPU runs them; the GPU
 * waits for ops not yet issued, the host does not wait for the GPU except at a sync.
 * Forward: the dispatcher's sync (once per MoE layer) splits the layer in two. After it
 * the GPU is idle and the host issues permute, all-to-alls, the experts' loops and
 * combine (host A, GPU a), then the next layer's attention, router and counts (host B,
 * GPU b) up to the next sync, where it waits for the GPU. The GPU starts b once it is
 * issued and a is done, so the layer takes max(max(A, a) + b, A + B), not max(A + B,
 * a + b): a host-bound expert part does not hide under a GPU-bound attention part. The
 * experts' loops (per local expert) are all in A; of the layer's other ops the stack's
 * layer_fwd_after_sync are. Backward: no sync (the dispatcher's backward all-to-alls
 * reuse the forward's splits), so the host runs ahead and the pass takes max(host, GPU).
 * The excess over the GPU time is what this returns; the all-to-alls (on the ep stream)
 * are left out of the GPU time, which overstates the excess by at most their time. */
/* TE's split_quantize (transformer_engine/pytorch/csrc/extensions/cast.cpp): one
 * quantizer per local expert; multi_tensor_quantize_impl runs a fused multi-tensor
 * cast-transpose (nvte_multi_cast_transpose, one launch for every expert) only for delayed
 * scaling, else each expert's quantizer in turn: current scaling's quantize_impl launches
 * nvte_compute_amax, nvte_compute_scale_from_amax and nvte_quantize_v2 (quantizer.cpp
 * Float8CurrentScalingQuantizer), MXFP8's and the block-wise recipe's one nvte_quantize_v2.
 * NVFP4 is counted as one (not checked against its quantizer). */
double
sim_cost_moe_quant_launches (FwScaling scaling, gboolean fp4)
{
  if (fp4)
    return 1.0;
  switch (scaling)
    {
    case FW_SCALING_DELAYED: return 0.0;
    case FW_SCALING_CURRENT: return 3.0;
    default: return 1.0;
    }
}

double
sim_cost_moe_host_excess_s (const SimCost *c, const ProgProgram *p, ProgPhase phase)
{
  g_return_val_if_fail (c != NULL && p != NULL, 0.0);
  const int ph = phase == PROG_PHASE_BACKWARD ? 1 : phase == PROG_PHASE_FORWARD ? 0 : -1;
  if (ph < 0 || p->moe.experts <= 0)
    return 0.0;
  const gboolean lowp = p->gemm_dtype == TOPO_DTYPE_FP8 || p->gemm_dtype == TOPO_DTYPE_FP4;
  const double quant = lowp ? c->opts.moe_expert_fp8_quants * c->opts.host_launch_s
                               * sim_cost_moe_quant_launches (c->opts.fp8_scaling,
                                                              p->gemm_dtype == TOPO_DTYPE_FP4)
                            : 0.0;
  const double experts = p->moe.local_experts * (c->opts.moe_expert_host_s[ph]
                                                 + (lowp ? c->opts.moe_expert_host_fp8_s[ph]
                                                         : 0.0) + quant);
  const double host = c->opts.moe_layer_host_s[ph] + experts;
  if (host <= 0)
    return 0.0;
  /* a hybrid's MoE layers run either mixer: the excess of each, weighted by how many of
   * the model's MoE layers run it (every MoE layer shares the experts block) */
  const ModelSpec *m = p->model;
  double n_lin = 0, n_all = 0;
  if (m != NULL && model_spec_is_gdn (m))
    for (guint64 l = 0; l < m->n_layers; l++)
      if (model_spec_layer_is_moe (m, l))
        {
          n_all += 1;
          n_lin += model_spec_layer_is_linear (m, l) ? 1 : 0;
        }
  const double w_lin = n_all > 0 ? n_lin / n_all : 0.0;
  double excess = 0;
  for (int lin = 0; lin < 2; lin++)
    {
      const double w = lin ? w_lin : 1.0 - w_lin;
      if (!(w > 0))
        continue;
      double before, after;
      moe_pass_gpu_s (c, p, ph, lin, &before, &after);
      double e;
      /* the backward, and a forward whose dispatcher does not sync (moe_dispatch_no_sync):
       * the host runs ahead, the pass takes max(host, GPU) */
      if (ph == 1 || c->opts.moe_dispatch_no_sync)
        e = MAX (host - (before + after), 0.0);
      else
        {
          const double after_sync = MIN (c->opts.moe_layer_host_after_sync_s,
                                         c->opts.moe_layer_host_s[0]);
          const double A = experts + after_sync, B = c->opts.moe_layer_host_s[0] - after_sync;
          const double t = MAX (MAX (A, after) + before, A + B);
          e = MAX (t - (before + after), 0.0);
        }
      excess += w * e;
    }
  return excess;
}

double
sim_cost_ep_compute_slowdown (const SimCost *c)
{
  g_return_val_if_fail (c != NULL, 0.0);
  double ep = c->opts.ep_comm_sms, sms = c->sms;
  if (sms <= 0 || ep <= 0)
    return 0.0;
  if (ep >= sms)
    ep = sms - 1;   /* the compute keeps one SM at least */
  return ep / (sms - ep);
}
