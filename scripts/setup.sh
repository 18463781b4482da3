#!/usr/bin/env bash
# Installs the Debian 12 packages tandem needs (only those missing), then configures and
# builds it in ./build. Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(gcc pkgconf meson ninja-build libglib2.0-dev libglib2.0-bin libjson-glib-dev
          libsqlite3-dev sqlite3 libopenmpi-dev openmpi-bin libopenblas-dev
          libcairo2-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tandem setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f build/build.ninja ]; then
  meson setup build >/dev/null
fi
ninja -C build -j "$(nproc)" >/dev/null
