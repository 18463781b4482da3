"""The fitted knobs of the cost model, their physical bounds and where each bound comes from.

One table for tools/fit-published.py and tools/loso.py, mirroring sim/cost.c (calib_rows,
the attention fractions, the stacks' kernel overhead): a fit may not leave these bounds, and
a knob that ends on one is reported as such (the data wanted it further, so the figure is
not a measurement of the knob but a compensation for something the model lacks).

Values are the absolute `--cost` options (`tandem validate --cost KEY=VALUE`). The GEMM
ceilings depend on the GPU family: the best measured GEMM (MAMF) of hardware.md A4.
"""

# BF16 / FP8 MAMF over dense peak, hardware.md A4 [MAMF]: a training GEMM cannot beat the
# best shape of a brute-force search.
MAMF = {"H100": (0.803, 0.709), "A100": (0.869, None)}

# name: (low, high, source of the bound, meaning). None = the family's MAMF (see bounds()).
BOUNDS = {
    "gemm_efficiency": (0.45, None,
                        "upper: the family's BF16 MAMF (hardware.md A4); lower: below any "
                        "published large-GEMM figure",
                        "training GEMM efficiency (fraction of dense peak)"),
    "gemm_fp8_efficiency": (0.30, None,
                            "upper: the family's FP8 MAMF (hardware.md A4, H100 0.709)",
                            "the same in FP8 (casts outside it)"),
    "attn_fwd_efficiency": (0.30, None,
                            "lower 0.3 of peak (sim/cost.c: FA2 forward runs ~35% of H100 peak, "
                            "FA3 paper; 50-73% of A100, FA2 paper); upper: the BF16 MAMF",
                            "flash attention forward, fraction of peak"),
    "attn_bwd_efficiency": (0.25, None,
                            "lower 0.25 of peak (sim/cost.c: FA2 backward ~30% of H100 peak, "
                            "FA3 paper); upper: the BF16 MAMF",
                            "flash attention backward, fraction of peak"),
    "mem_traffic_factor": (1.0, 3.0,
                           "lower: the fused minimum of bytes; upper 3: a norm or activation "
                           "as three unfused passes (sim/cost.c calib_rows)",
                           "bytes of memory-bound ops over their fused minimum"),
    "comm_compute_slowdown": (0.0, 0.15,
                              "upper: the 5-15% range quoted for a GEMM next to an NCCL "
                              "kernel (sim/cost.c DEFAULT_COMM_COMPUTE_SLOWDOWN, U)",
                              "compute slowed while collectives run, beyond the SMs "
                              "their kernels hold (Hopper: 0, not fitted; the SMs are "
                              "sim_cost_coll_sms's sourced CTA counts)"),
    "small_k_half": (32.0, 2048.0,
                     "lower: half a 64-wide k-block; upper: 32 k-blocks (sim/cost.c calib_rows)",
                     "k at which a GEMM loses half its efficiency"),
    "launch_overhead_us": (0.5, 10.0,
                           "hardware.md A4: 2-6 us per launch outside CUDA graphs, less "
                           "inside; 0.5-10 us around it (frameworks/presets sources)",
                           "GPU-side cost of one kernel as the stack issues it"),
    "net_efficiency": (0.3, 0.98,
                       "upper: 46-48 of 50 GB/s per NDR NIC (hardware.md A4 [NCCLT-290])",
                       "achieved over nominal NIC bandwidth"),
}


def bounds(name, gpu_type):
    """(low, high) of a knob for a GPU family ("H100", "A100", other: no MAMF ceiling)."""
    lo, hi, _, _ = BOUNDS[name]
    if hi is None:
        bf16, fp8 = MAMF.get(gpu_type, (1.0, 1.0))
        hi = (fp8 if name == "gemm_fp8_efficiency" else bf16) or 1.0
    return lo, hi


def at_bound(name, value, gpu_type, rel=0.005):
    """"lower" or "upper" when value sits within rel of that bound, else None."""
    if name not in BOUNDS:
        return None
    lo, hi = bounds(name, gpu_type)
    if value <= lo * (1 + rel) + (1e-12 if lo == 0 else 0):
        return "lower"
    if value >= hi * (1 - rel):
        return "upper"
    return None


def describe(gpu_type):
    """One line per knob: name, bound, meaning, source of the bound."""
    out = []
    for name in BOUNDS:
        lo, hi = bounds(name, gpu_type)
        _, _, src, meaning = BOUNDS[name]
        out.append(f"{name:22s} [{lo:g}, {hi:g}]  {meaning}; bound: {src}")
    return out
