#!/usr/bin/env python3
"""Leave-one-source-out cross-validation of the fitted hardware knobs.

A source is one publication (the `source` column of published-runs.csv). For each knob
setting of a grid, `tandem validate --json` predicts every row of one GPU family once;
then, for each source, the setting with the lowest MAPE on the *other* sources is chosen
and the held-out source's rows are scored with it. The report prints, per GPU family and
per framework, the in-sample MAPE (the setting fitted on all rows) next to the
leave-one-source-out MAPE, and which setting each fold chose (a knob at the edge of its
grid is flagged: the fit would have gone further; one on a physical bound of
tools/knob_bounds.py, the bounds of sim/cost.c, is flagged as such).

    tools/loso.py --tandem build/cli/tandem --gpu-type A100 \\
        --grid gemm_efficiency=0.74,0.76,0.77,0.78,0.80 mem_traffic_factor=1,1.5,2

Without --grid the knobs stay at their shipped values and both figures are the plain
validate error (what the shipped calibration gives in-sample, and, because nothing is
refitted per fold, no cross-validation): the grid is what makes it a fit.
"""
import argparse, collections, csv, itertools, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knob_bounds  # noqa: E402

def validate(tandem, path, gpu, params):
    cmd = [tandem, "validate", path, "--no-db", "--json", "--gpu-type", gpu]
    for k, v in params:
        cmd += ["--cost", f"{k}={v}"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    # MoE rows (issue 16) are scored apart, and held-out check rows are never fitted on:
    # the knobs are fitted on the dense dev rows
    return {r["row_id"]: r["err_pct"] for r in json.loads(out)["rows"]
            if not r.get("moe") and not r.get("held_out")}

def mape(errs):
    return sum(abs(e) for e in errs) / len(errs) if errs else float("nan")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tandem", default="build/cli/tandem")
    ap.add_argument("--csv", default="data/published-runs.csv")
    ap.add_argument("--gpu-type", required=True)
    ap.add_argument("--grid", nargs="*", default=[], help="KEY=v1,v2,... (cost options)")
    a = ap.parse_args()
    rows = {int(r["row_id"]): r for r in csv.DictReader(open(a.csv, newline=""))
            if r["row_id"].strip().isdigit()}
    axes = []
    for kv in a.grid:
        k, vs = kv.split("=")
        axes.append([(k, v) for v in vs.split(",")])
    points = list(itertools.product(*axes)) if axes else [()]
    preds = []
    for p in points:
        preds.append(validate(a.tandem, a.csv, a.gpu_type, p))
        print("grid", " ".join(f"{k}={v}" for k, v in p) or "(shipped)",
              f"MAPE {mape(list(preds[-1].values())):.2f}%", file=sys.stderr, flush=True)
    ids = sorted(set.intersection(*[set(p) for p in preds]))
    by_source = collections.defaultdict(list)
    for i in ids:
        by_source[rows[i]["source"].split(" (")[0].split(",")[0].strip()].append(i)
    # in-sample: one setting for all rows
    best = min(range(len(points)), key=lambda j: mape([preds[j][i] for i in ids]))
    insample = {i: preds[best][i] for i in ids}
    # leave one source out
    loso, chosen = {}, {}
    for src, held in by_source.items():
        train = [i for i in ids if i not in held]
        j = min(range(len(points)), key=lambda j: mape([preds[j][i] for i in train])) if train else best
        chosen[src] = points[j]
        for i in held:
            loso[i] = preds[j][i]
    def table(key):
        g = collections.defaultdict(list)
        for i in ids:
            g[key(i)].append(i)
        for name, members in sorted(g.items()):
            print(f"  {name[:44]:44s} {len(members):4d} rows  in-sample {mape([insample[i] for i in members]):6.2f}%"
                  f"  LOSO {mape([loso[i] for i in members]):6.2f}%")
    print(f"{a.gpu_type}: {len(ids)} rows, {len(by_source)} sources, {len(points)} grid points")
    print(f"  in-sample MAPE {mape(list(insample.values())):.2f}% at "
          + (" ".join(f"{k}={v}" for k, v in points[best]) or "the shipped knobs"))
    print(f"  leave-one-source-out MAPE {mape(list(loso.values())):.2f}%")
    for k, ax in enumerate(axes):
        vals = [v for _, v in ax]
        if points[best][k][1] in (vals[0], vals[-1]) and len(vals) > 1:
            print(f"  note: {ax[0][0]}={points[best][k][1]} is at the edge of its grid")
        name, val = points[best][k]
        side = knob_bounds.at_bound(name, float(val), a.gpu_type)
        if side is not None:
            print(f"  note: {name}={val} is at its {side} bound "
                  f"{knob_bounds.bounds(name, a.gpu_type)[0 if side == 'lower' else 1]:g} "
                  f"(tools/knob_bounds.py)")
    print("by framework:")
    table(lambda i: rows[i]["framework"].split(" (")[0])
    print("by source (held out):")
    for src, held in sorted(by_source.items()):
        print(f"  {src[:44]:44s} {len(held):4d} rows  LOSO {mape([loso[i] for i in held]):6.2f}%  fold chose "
              + (" ".join(f"{k}={v}" for k, v in chosen[src]) or "-"))

if __name__ == "__main__":
    main()
