#!/bin/sh
# run-harness.sh EXE SEEDS SCRATCH ARTIFACT_PREFIX DICT: one libFuzzer harness, as the
# meson test fuzz-NAME runs it. It first runs every seed of SEEDS (the committed corpus,
# never written to) and every input SCRATCH kept from earlier runs, then mutates for
# TANDEM_FUZZ_SECONDS (default 10) seconds, keeping new inputs in SCRATCH. A crash, leak,
# sanitizer report, invalid JSON (fuzz/fuzz.h), an input running longer than
# TANDEM_FUZZ_TIMEOUT seconds (default 10) or 2 GiB of memory fails the test; the input
# is saved as ARTIFACT_PREFIX{crash,leak,timeout,oom}-SHA1 (rerun: EXE FILE). DICT is
# used when it exists. Extra libFuzzer flags: TANDEM_FUZZ_FLAGS. TANDEM_FUZZ_SEED fixes
# libFuzzer's seed: .ci/run sets it, so a CI run mutates the same way every time and a red
# CI is a reproducible finding, not luck; unset (or 0) draws a new seed, for long runs.
set -eu
exe=$1 seeds=$2 scratch=$3 prefix=$4 dict=$5
mkdir -p "$scratch" "$(dirname "$prefix")"
set -- -max_total_time="${TANDEM_FUZZ_SECONDS:-10}" -timeout="${TANDEM_FUZZ_TIMEOUT:-10}" \
  -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 -artifact_prefix="$prefix" \
  -print_final_stats=1
[ -f "$dict" ] && set -- "$@" -dict="$dict"
[ -n "${TANDEM_FUZZ_SEED:-}" ] && set -- "$@" -seed="$TANDEM_FUZZ_SEED"
# shellcheck disable=SC2086
exec "$exe" "$@" ${TANDEM_FUZZ_FLAGS:-} "$scratch" "$seeds"
