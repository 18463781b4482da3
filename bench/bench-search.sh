#!/usr/bin/env bash
# bench/bench-search.sh TANDEM - `tandem search` over the two spaces of issue 11 item 5:
#  (a) GPT-3 175B on the 1,024 H100 of dgx-h100-superpod, seq 2048, global batch 1536, over
#      tp, pp, dp, micro-batch, interleaving, recompute, sharding, TP-comm overlap and DP
#      overlap (Calculon's dimensions: cp 1 and Megatron's rank order fixed; sequence
#      parallelism and the schedule searched too);
#  (b) Llama 3 405B on 16,384 GPUs of h100-24k, seq 8192, global batch 2048, every
#      dimension at its default.
# Each run is checked first (exit 0, a best plan, counts that add up), then its wall time,
# CPU time (user + system of the search process) and candidates per second are printed.
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
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    out = subprocess.run([tandem, "search"] + args.split() + ["--no-db", "--json"],
                         check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    d = json.loads(out)
    c = d["counts"]
    assert d["top"], "no plan found"
    assert c["enumerated"] == c["invalid"] + c["oom"] + c["pruned"] + c["simulated"]
    print("%-32s %11d %9.1f %9.1f %11.0f %10d %9d" % (name, c["enumerated"], wall, cpu,
          c["enumerated"] / wall, c["simulated"], c["pruned"]))
    print("  best: %s (%.3f s, MFU %.1f%%)" % (d["top"][0]["flags"], d["top"][0]["step_time_s"],
          100 * d["top"][0]["mfu"]["palm"]))
    sys.stdout.flush()
PY
