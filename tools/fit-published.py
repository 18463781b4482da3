#!/usr/bin/env python3
"""Fit the cost model's per-device defaults to the published runs.

Runs `tandem validate` on data/published-runs.csv for the rows of one GPU family
(--gpu-type) with cost overrides (--cost KEY=VALUE) and minimises the step-time MAPE by
coordinate descent over a few physically meaningful knobs, each kept inside a plausible
range. The result is what sim/cost.c's per-device calibration table records, with the
MAPE it reached; re-run it after changing the model to re-derive them.

    tools/fit-published.py --tandem build/cli/tandem --gpu-type A100 [--start k=v ...]

Each knob stays inside its physical bound (tools/knob_bounds.py, the same bounds as
sim/cost.c); a knob that ends on a bound is reported ("at its upper bound"), in the text
and in the JSON's "at_bound" list: the data wanted it further, so its value compensates
for something the model lacks. --list-knobs prints every knob with its bound and source.
"""
import argparse, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knob_bounds  # noqa: E402

STEPS = {  # name: multiplicative steps tried; bounds come from tools/knob_bounds.py
    "gemm_efficiency": [0.9, 0.95, 1.05, 1.1],
    "attn_fwd_efficiency": [0.8, 0.9, 1.1, 1.25],
    "attn_bwd_efficiency": [0.8, 0.9, 1.1, 1.25],
    "mem_traffic_factor": [0.7, 0.85, 1.2, 1.4],
    "launch_overhead_us": [0.5, 0.75, 1.5, 2.0],
    "comm_compute_slowdown": [0.5, 0.75, 1.5, 2.0],
    "net_efficiency": [0.8, 0.9, 1.05, 1.1],
    "small_k_half": [0.5, 0.75, 1.5, 2.0],
    "gemm_fp8_efficiency": [0.9, 0.95, 1.05, 1.1],
}

def run(tandem, csv, gpu, params):
    cmd = [tandem, "validate", csv, "--no-db", "--json", "--gpu-type", gpu]
    for k, v in params.items():
        cmd += ["--cost", f"{k}={v:.6g}"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    s = json.loads(out)["summary"]
    return s["mape_pct"], s

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tandem", default="build/cli/tandem")
    ap.add_argument("--csv", default="data/published-runs.csv")
    ap.add_argument("--gpu-type", required=True)
    ap.add_argument("--list-knobs", action="store_true",
                    help="print every fitted knob with its bound and source, then exit")
    ap.add_argument("--start", nargs="*", default=[])
    ap.add_argument("--knobs", default=",".join(STEPS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max", nargs="*", default=[],
                    help="KEY=VALUE upper bounds, e.g. gemm_efficiency=0.803 (the MAMF)")
    ap.add_argument("--min", nargs="*", default=[], help="KEY=VALUE lower bounds")
    ap.add_argument("--steps", default=None,
                    help="multiplicative steps tried for every knob instead of each knob's "
                         "own, e.g. 0.98,0.99,1.01,1.02 to refine a fit")
    a = ap.parse_args()
    if a.list_knobs:
        print("\n".join(knob_bounds.describe(a.gpu_type)))
        return
    KNOBS = {k: knob_bounds.bounds(k, a.gpu_type) + (STEPS[k],) for k in STEPS}
    params = {}
    for kv in a.start:
        k, v = kv.split("=")
        params[k] = float(v)
    knobs = a.knobs.split(",")
    if a.steps:
        fine = [float(x) for x in a.steps.split(",")]
        for k in KNOBS:
            lo, hi, _ = KNOBS[k]
            KNOBS[k] = (lo, hi, fine)
    for kv in a.max:
        k, v = kv.split("=")
        lo, _, steps = KNOBS[k]
        KNOBS[k] = (lo, float(v), steps)
    for kv in a.min:
        k, v = kv.split("=")
        _, hi, steps = KNOBS[k]
        KNOBS[k] = (float(v), hi, steps)
    best, summary = run(a.tandem, a.csv, a.gpu_type, params)
    print(f"start MAPE {best:.2f}% {params}", flush=True)
    for rnd in range(a.rounds):
        improved = False
        for k in knobs:
            lo, hi, steps = KNOBS[k]
            for m in steps:
                cur = params.get(k)
                if cur is None:
                    continue
                v = min(hi, max(lo, cur * m))
                if v == cur:
                    continue
                trial = dict(params, **{k: v})
                mape, s = run(a.tandem, a.csv, a.gpu_type, trial)
                if mape < best - 0.01:
                    best, params, summary, improved = mape, trial, s, True
                    print(f"  {k}={v:.4g}: MAPE {mape:.2f}%", flush=True)
        if not improved:
            break
    at_bound = []
    for k, v in sorted(params.items()):
        if k not in KNOBS:
            continue
        lo, hi, _ = KNOBS[k]
        side = ("lower" if v <= lo * 1.005 + (1e-12 if lo == 0 else 0)
                else "upper" if v >= hi * 0.995 else None)
        if side is not None:
            b = lo if side == "lower" else hi
            at_bound.append({"knob": k, "value": v, "side": side, "bound": b})
            print(f"note: {k}={v:.4g} is at its {side} bound {b:g}: the fit would go further",
                  flush=True)
    print(json.dumps({"gpu_type": a.gpu_type, "mape_pct": best, "params": params,
                      "at_bound": at_bound, "summary": summary}, indent=1))

if __name__ == "__main__":
    main()
