#!/usr/bin/env bash
# Builds tandem and runs the whole test suite (GTest executables under meson test).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/test-deps.sh
meson test -C build --num-processes "$(nproc)" --print-errorlogs "$@"
