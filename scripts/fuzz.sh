#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ with clang (-Dfuzz=true, ASan + UBSan, MPI and
# CUDA off; exec/ needs OpenBLAS to link) in ./build-fuzz and runs each as the meson test
# fuzz-NAME: its seed corpus, then TANDEM_FUZZ_SECONDS (default 10) seconds of mutation. Installs Debian's
# clang and libFuzzer (clang, libclang-rt-dev) when missing. Extra arguments go to
# `meson test` (e.g. fuzz-model to run one). Longer runs: see the README.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(clang libclang-rt-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tandem fuzz: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dmpi=disabled -Dcuda=disabled >/dev/null
fi
# only the harnesses (the rest of the tree is built by scripts/test.sh and sanitize.sh)
targets=$(meson introspect build-fuzz --targets | python3 -c '
import json, os, sys
print(" ".join(os.path.relpath(t["filename"][0], "build-fuzz") for t in json.load(sys.stdin)
               if t["name"].startswith("fuzz-")))')
ninja -C build-fuzz -j "$(nproc)" $targets > build-fuzz/ninja.log || { tail -40 build-fuzz/ninja.log; exit 1; }
meson test -C build-fuzz --no-rebuild --suite fuzz --num-processes "$(nproc)" \
  --print-errorlogs "$@"
