#!/usr/bin/env bash
# bench/bench-search.sh TANDEM - `tandem search` over the two spaces of issue 11 item 5:
#  (a) GPT-3 175B on the 1,024 H100 of dgx-h100-superpod, seq 2048, global batch 1536, over
#      tp, pp, dp, micro-batch, interleaving, recompute, sharding, TP-comm overlap and DP
#      overlap (Calculon's dimensions: cp 1 and Megatron's rank order fixed; sequence
#      parallelism and the schedule searched too);
#  (b) Llama 3 405B on 16,384 GPUs of h100-24k, seq 8192, global batch 2048, every
#      dimension at its default.
# Each space is searched exactly and with --fast (heuristic). Each run is checked first
# (exit 0, a best plan, counts that add up, the mode label), then its wall time, CPU time
# (user + system of the search process) and candidates per second are printed, and for
# --fast the gap between its best tokens/s and the exact best.
# Target: <= 60 s each on a 2-core machine.
set -euo pipefail
tandem=${1:?usage: bench-search.sh TANDEM}
exec python3 - "$tandem" <<'PY'
import json, resource, subprocess, sys, time
tandem = sys.argv[1]
spaces = [
    ("gpt3-175b 1024 H100 (a)",
     "--model gpt3-175b --cluster dgx-h100-superpod --gpus 1024 --seq-length 2048 --gbs 1536 "
     "--cp 1 --rank-order tp-cp-ep-dp-pp"),
    ("llama3-405b 16384 h100-24k (b)",
     "--model llama3-405b --cluster h100-24k --gpus 16384 --seq-length 8192 --gbs 2048"),
]
print("%-32s %11s %9s %9s %11s %10s %9s" % ("space", "candidates", "wall_s", "cpu_s",
      "cand/s", "simulated", "pruned"))
for name, args in spaces:
    exact_best = None
    for mode in ("exact", "fast (heuristic)"):
        extra = ["--fast"] if mode != "exact" else []
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        out = subprocess.run([tandem, "search"] + args.split() + ["--no-db", "--json"] + extra,
                             check=True, capture_output=True, text=True).stdout
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        d = json.loads(out)
        c = d["counts"]
        assert d["top"], "no plan found"
        assert d["mode"] == mode, d["mode"]
        assert c["enumerated"] == c["invalid"] + c["oom"] + c["pruned"] + c["simulated"]
        best = d["top"][0]["tokens_per_s"]
        label = name if mode == "exact" else "  --fast"
        print("%-32s %11d %9.1f %9.1f %11.0f %10d %9d" % (label, c["enumerated"], wall, cpu,
              c["enumerated"] / wall, c["simulated"], c["pruned"]))
        print("  best: %s (%.3f s, MFU %.1f%%, %.0f tokens/s)" % (d["top"][0]["flags"],
              d["top"][0]["step_time_s"], 100 * d["top"][0]["mfu"]["palm"], best))
        if exact_best is None:
            exact_best = best
        else:
            print("  --fast best vs exact best: %+.2f%% tokens/s" % (100 * (best / exact_best - 1)))
        sys.stdout.flush()
PY
