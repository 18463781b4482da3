#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer in
# ./build-asan (gcc, -Db_sanitize=address,undefined, CUDA off: the CUDA libraries do not
# run under ASan). Any sanitizer report aborts the test that caused it. Open MPI's own
# leaks at exit are suppressed by scripts/lsan.supp. Extra arguments go to
# `meson test` (a test name, --repeat N, ...). Run scripts/setup.sh once first.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [ ! -f build-asan/build.ninja ]; then
  meson setup build-asan -Db_sanitize=address,undefined -Dcuda=disabled >/dev/null
fi
ninja -C build-asan -j "$(nproc)" >/dev/null

# fast_unwind_on_malloc=0: Debian's libraries have no frame pointers, so the fast unwinder
# stops at the first libglib/libmpi frame and the suppressions cannot see whose leak it is.
# disable_dlclose: Open MPI unloads its components at MPI_Finalize; kept loaded, their
# frames keep a module name.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0:print_summary=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:print_summary=1"
export LSAN_OPTIONS="suppressions=${root}/scripts/lsan.supp:print_suppressions=0"
export OMPI_MCA_mca_base_component_disable_dlclose=1

# sanitized code runs 2-3x slower; meson's per-test timeouts stretch to match
meson test -C build-asan --num-processes "$(nproc)" --timeout-multiplier 3 \
  --print-errorlogs "$@"
