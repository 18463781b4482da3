#!/usr/bin/env bash
# bench/bench-run.sh - how well `tandem run`'s prediction matches its measurement on this
# machine: a quick calibration under `mpirun -np 2` into a temporary directory, then DP2,
# TP2 with sequence parallelism, PP2 (1F1B, 4 micro-batches) and DP2 with unfused attention
# (--attention-backend unfused: the scores through memory) of tiny-llama at 256
# tokens under `mpirun -np 2 tandem run --json` with that profile, and one row per plan:
# measured and predicted step time, compute and exposed communication (all kinds), and
# the error (predicted - measured) / measured. Target (the issue): |step error| <= 15% on
# an idle machine. Exits non-zero only when a command fails, never on the size of an
# error; exits 77 (skipped) without mpirun.
#
#   bench-run.sh TANDEM [REPEATS]      REPEATS runs of each plan (default 1)
#
# Environment: BENCH_RUN_STEPS timed steps per run (default 3, tandem run's default);
# BENCH_RUN_ARGS extra `tandem run` arguments. python3 (which meson itself runs on) reads
# the JSON.
set -uo pipefail

tandem=${1:?usage: bench-run.sh TANDEM [REPEATS]}
repeats=${2:-1}
steps=${BENCH_RUN_STEPS:-3}
if ! command -v mpirun > /dev/null || ! command -v python3 > /dev/null; then
  echo "bench-run: skipped (needs mpirun and python3)"
  exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/tandem-bench-run-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
# containers often forbid the cross-memory-attach of Open MPI's shared-memory BTL; meson's
# MALLOC_PERTURB_ would time glibc's perturbation, not the engine
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
unset MALLOC_PERTURB_
mpi=(mpirun --allow-run-as-root --oversubscribe -np 2)

if ! timeout -k 5 300 "${mpi[@]}" "$tandem" calibrate --quick --out "$dir/cpu.json" \
     --db "$dir/t.db" > "$dir/calibrate.log" 2>&1; then
  cat "$dir/calibrate.log" >&2
  echo "bench-run: tandem calibrate failed" >&2
  exit 1
fi

plans=("dp2|--gbs 4" "tp2-sp|--tp 2 --sp --gbs 4" "pp2-1f1b|--pp 2 --schedule 1F1B --gbs 4"
       "dp2-unf|--gbs 4 --attention-backend unfused")
echo "tandem run: tiny-llama, seq 256, mpirun -np 2 on $(hostname), $steps timed steps" \
     "(median), quick calibration in $dir"
printf '%-9s %9s %9s %7s   %9s %9s %7s   %9s %9s %7s\n' plan "step_s" "pred_s" "err%" \
       "comp_s" "pred_s" "err%" "comm_s" "pred_s" "err%"
status=0
for ((rep = 0; rep < repeats; rep++)); do
  for entry in "${plans[@]}"; do
    name=${entry%%|*}
    args=${entry#*|}
    # shellcheck disable=SC2086
    if ! timeout -k 5 300 "${mpi[@]}" "$tandem" run --model tiny-llama --seq 256 $args \
         --steps "$steps" --cluster "$dir/cpu.json" --no-db --json ${BENCH_RUN_ARGS:-} \
         > "$dir/run.json" 2> "$dir/run.err"; then
      cat "$dir/run.err" >&2
      echo "bench-run: tandem run $args failed" >&2
      status=1
      continue
    fi
    python3 - "$name" "$dir/run.json" <<'EOF' || status=1
import json, sys
name, path = sys.argv[1], sys.argv[2]
text = open(path).read()
run = json.loads(text[text.index('{'):])
m, p = run["measured"], run["predicted"]
def err(a, b):
    return "%+6.1f%%" % (100.0 * (b - a) / a) if a > 0 else "      -"
rows = [(m["step_time_s"], p["step_time_s"]), (m["compute_s"], p["compute_s"]),
        (sum(m["exposed_comm_s"].values()), sum(p["exposed_comm_s"].values()))]
print("%-9s" % name + "".join("   %9.4f %9.4f %7s" % (a, b, err(a, b)) for a, b in rows)[2:])
EOF
  done
done
exit $status
