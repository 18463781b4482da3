#!/usr/bin/env bash
# bench/gpu-check.sh - the device check: on a machine with NVIDIA GPU(s) and the CUDA
# toolkit, in one go and within 5 minutes,
#   1. builds tandem with the CUDA backend (meson -Dcuda=enabled, its own build folder),
#   2. runs the GPU tests (test-backend-cuda, test-kernels-cuda: cuBLAS GEMM and every
#      kernel against the CPU reference, NCCL on a world of one; test-run-cuda: a
#      tiny-llama step of the runner on one GPU against the CPU within the BF16
#      tolerance) and fails if they skip,
#   3. calibrates quickly (tandem calibrate --backend cuda --quick) into a scratch database,
#   4. runs tiny-llama on one GPU (tandem run --backend cuda --verify: GEMMs with BF16
#      tensor-core products, checked against the CPU reference within the BF16
#      tolerance of cli/cmd-run.c), measured against the prediction made from that
#      calibration,
#   5. with 2 or more GPUs, also a TP plan and a DP plan across them, the ranks started
#      torchrun-style (RANK / WORLD_SIZE / LOCAL_RANK, the NCCL id through a scratch
#      TANDEM_NCCL_ID_DIR: see exec/backend-cuda.h),
# then prints a summary table. Exit status 0 when every step that ran passed.
#
# Environment: GPU_CHECK_BUILD (build folder, default build-gpu), GPU_CHECK_LOGS (logs,
# default $OUT when set, else BUILD/gpu-check), GPU_CHECK_BUDGET_S (default 300).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

BUILD=${GPU_CHECK_BUILD:-build-gpu}
LOGS=${GPU_CHECK_LOGS:-${OUT:-$BUILD/gpu-check}}
BUDGET_S=${GPU_CHECK_BUDGET_S:-300}
T_START=$(date +%s)
mkdir -p "$LOGS"
DB="$LOGS/gpu-check.db"
rm -f "$DB" "$DB-wal" "$DB-shm"
TANDEM="$BUILD/cli/tandem"
export BUILD TANDEM   # read by the functions that step runs in a child bash

rows=()     # "step|status|seconds|detail"
failed=0

remaining () { echo $(( BUDGET_S - ($(date +%s) - T_START) )); }

record () {   # step status seconds detail
  rows+=("$1|$2|$3|$4")
  [ "$2" = FAIL ] || [ "$2" = TIMEOUT ] && failed=1
  printf 'gpu-check: %-12s %-7s %4ss  %s\n' "$1" "$2" "$3" "$4" >&2
}

# step NAME LIMIT_S CMD...: runs CMD with a time limit (never past the budget, keeping
# 10 s for the summary), output in LOGS/NAME.log; sets STEP_RC and STEP_S.
step () {
  local name=$1 limit=$2
  shift 2
  local left=$(( $(remaining) - 10 ))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -le 5 ]; then
    STEP_RC=124 STEP_S=0
    echo "out of time budget" > "$LOGS/$name.log"
    return
  fi
  local t0
  t0=$(date +%s)
  if declare -F "$1" > /dev/null; then
    # a shell function: timeout runs programs, so hand it to a child bash
    timeout -k 5 "$limit" bash -c "$(declare -f "$1"); \"\$@\"" bash "$@" \
      > "$LOGS/$name.log" 2>&1
  else
    timeout -k 5 "$limit" "$@" > "$LOGS/$name.log" 2>&1
  fi
  STEP_RC=$?
  STEP_S=$(( $(date +%s) - t0 ))
}

status_of () { case "$1" in 0) echo PASS ;; 124|137) echo TIMEOUT ;; *) echo FAIL ;; esac; }

last_line () { grep -v '^\s*$' "$LOGS/$1.log" | tail -n 1 | cut -c1-110; }

# the first line of LOGS/NAME.log matching PATTERN, else its last line
first_match () {
  local m
  m=$(grep -m1 -- "$2" "$LOGS/$1.log" | sed 's/^ *//' | cut -c1-100)
  if [ -n "$m" ]; then echo "$m"; else last_line "$1"; fi
}

summary () {
  echo
  echo "tandem gpu-check: ${GPU_NAME:-no GPU} x ${N_GPUS:-0}, $(( $(date +%s) - T_START )) s of ${BUDGET_S} s, logs in $LOGS"
  printf '  %-12s %-7s %6s  %s\n' step status time detail
  for r in "${rows[@]}"; do
    IFS='|' read -r s st sec det <<< "$r"
    printf '  %-12s %-7s %5ss  %s\n' "$s" "$st" "$sec" "$det"
  done
  for f in run-1gpu run-tp run-dp; do
    if [ -s "$LOGS/$f.log" ] && grep -q "measured" "$LOGS/$f.log"; then
      echo
      echo "  $f (tandem run output, measured vs predicted):"
      sed -n '/^run:/,$p' "$LOGS/$f.log" | head -n 30 | sed 's/^/    /'
    fi
  done
  echo
  [ "$failed" -eq 0 ] && echo "gpu-check: PASSED" || echo "gpu-check: FAILED"
}

# ---- 0. the machine ----------------------------------------------------------------------
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > "$LOGS/gpus.log" 2>&1; then
  record gpus FAIL 0 "nvidia-smi missing or failing: no NVIDIA GPU or driver here"
  summary
  exit 2
fi
N_GPUS=$(grep -c '^GPU ' "$LOGS/gpus.log")
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1)
record gpus PASS 0 "$N_GPUS x $GPU_NAME (compute capability ${CC:-?}); $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'nvcc not on PATH')"
case "$CC" in
  9.*|1[0-9].*|"") ;;
  *) record arch FAIL 0 "kernels are built for sm_90 + compute_90 PTX (exec/meson.build); compute capability $CC cannot run them" ;;
esac

missing=()
for t in meson ninja gcc pkg-config nvcc timeout; do command -v "$t" > /dev/null || missing+=("$t"); done
for m in glib-2.0 json-glib-1.0 sqlite3; do pkg-config --exists "$m" 2>/dev/null || missing+=("$m (pkg-config)"); done
if [ ${#missing[@]} -gt 0 ]; then
  record tools FAIL 0 "missing: ${missing[*]} (scripts/setup.sh lists the Debian packages; nvcc comes with the CUDA toolkit)"
  summary
  exit 1
fi

# ---- 1. build -------------------------------------------------------------------------------
if [ -f "$BUILD/build.ninja" ]; then
  step configure 60 meson setup --reconfigure "$BUILD" -Dcuda=enabled
else
  step configure 60 meson setup "$BUILD" -Dcuda=enabled
fi
record configure "$(status_of $STEP_RC)" "$STEP_S" "$(first_match configure 'CUDA + cuBLAS + NCCL')"
if [ "$STEP_RC" -ne 0 ]; then summary; exit 1; fi
step build 150 ninja -C "$BUILD" -j "$(nproc)"
record build "$(status_of $STEP_RC)" "$STEP_S" "$(last_line build)"
if [ "$STEP_RC" -ne 0 ]; then summary; exit 1; fi

# ---- 2. GPU tests -----------------------------------------------------------------------------
# shellcheck disable=SC2317  # run through step
run_gpu_tests () {
  local rc=0
  for t in test-backend-cuda test-kernels-cuda test-run-cuda; do
    echo "== $t"
    G_TEST_SRCDIR="$PWD/tests" G_TEST_BUILDDIR="$BUILD/tests" "$BUILD/tests/exec/$t" || rc=1
  done
  return "$rc"
}
step tests 60 run_gpu_tests
ok=$(grep '^ok ' "$LOGS/tests.log" | grep -vc '# SKIP')
notok=$(grep -c '^not ok' "$LOGS/tests.log")
skips=$(grep -c '# SKIP' "$LOGS/tests.log")
st=$(status_of $STEP_RC)
# only the no-device test may skip on a GPU machine
if [ "$st" = PASS ] && [ "$skips" -gt 1 ]; then st=FAIL; fi
record tests "$st" "$STEP_S" "$ok ok, $notok failed, $skips skipped$( [ "$skips" -gt 1 ] && echo ": $(grep -m1 '# SKIP' "$LOGS/tests.log" | sed 's/.*# SKIP //' | cut -c1-70)")"

# ---- 3. calibrate -------------------------------------------------------------------------------
# The preset of this GPU gives the peaks the GEMM rows are compared with (% of peak).
case "$GPU_NAME" in
  *H100*) PRESET=dgx-h100-superpod ;;
  *H200*) PRESET=h200-node ;;
  *B200*) PRESET=b200-node ;;
  *) PRESET= ;;
esac
step calibrate 60 "$TANDEM" calibrate --backend cuda --quick --db "$DB" \
  ${PRESET:+--cluster "$PRESET"} --out "$LOGS/cuda-profile.json"
# the best checked GEMM of each dtype: "bfloat16 612.3 TFLOP/s (61.9% of peak)"
best_gemm () {   # DTYPE
  awk -v d="$1" '$1 == d && $9 == 0 && $6 + 0 > best { best = $6 + 0; pk = $7 }
    END { if (best > 0) printf "%s %.1f TFLOP/s (%s%% of peak)", d, best / 1000, pk }' \
    "$LOGS/calibrate.log"
}
record calibrate "$(status_of $STEP_RC)" "$STEP_S" \
  "$(best_gemm bfloat16); $(best_gemm float8_e4m3); $(first_match calibrate ' add ')"

# ---- 4. one GPU: run, verify, measured vs predicted ---------------------------------------------
RUN_ARGS=(--backend cuda --verify --model tiny-llama --steps 3 --warmup 1 --db "$DB")
step run-1gpu 60 env CUDA_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES:-0}" "$TANDEM" run "${RUN_ARGS[@]}"
record run-1gpu "$(status_of $STEP_RC)" "$STEP_S" \
  "$(first_match run-1gpu 'step time' | tr -s ' '); $(first_match run-1gpu 'verify:' | cut -c1-60)"

# ---- 5. several GPUs: TP and DP ---------------------------------------------------------------
# N ranks started torchrun-style, one GPU each (LOCAL_RANK); rank 0's output first.
# shellcheck disable=SC2317  # run through step
launch () {   # N KEY tandem-args...
  local n=$1 key=$2
  shift 2
  local dir pids=() rc=0
  dir=$(mktemp -d)
  for ((r = n - 1; r >= 0; r--)); do
    RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r TANDEM_NCCL_ID_DIR=$dir TANDEM_NCCL_ID_KEY=$key \
      "$TANDEM" run "$@" > "$dir/rank$r.out" 2>&1 &
    pids[r]=$!
  done
  for ((r = 0; r < n; r++)); do wait "${pids[r]}" || rc=1; done
  for ((r = 0; r < n; r++)); do echo "== rank $r"; cat "$dir/rank$r.out"; done
  rm -rf "$dir"
  return "$rc"
}
if [ "$N_GPUS" -ge 2 ]; then
  # tiny-llama: 8 heads, 4 KV heads, ffn 688, so tp in {2, 4, 8} splits it
  n=2
  for c in 4 8; do [ "$N_GPUS" -ge "$c" ] && n=$c; done
  step run-tp 50 launch "$n" "gpucheck-$$-tp" "${RUN_ARGS[@]}" --tensor-model-parallel-size "$n"
  record run-tp "$(status_of $STEP_RC)" "$STEP_S" "tp $n: $(first_match run-tp 'verify:')"
  step run-dp 50 launch "$n" "gpucheck-$$-dp" "${RUN_ARGS[@]}" --dp "$n" \
    --global-batch-size $(( 2 * n )) --micro-batch-size 1
  record run-dp "$(status_of $STEP_RC)" "$STEP_S" "dp $n: $(first_match run-dp 'verify:')"
else
  record multi-gpu SKIP 0 "one GPU: no TP / DP plan across GPUs"
fi

summary
exit "$failed"
