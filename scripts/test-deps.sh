#!/usr/bin/env bash
# Installs what only the tests need (Debian 12): Chromium and a font, with which
# tests/cli/test-report.c renders a report page headless and checks its plots. The main
# job's set-up (scripts/setup.sh) does not install them; without them that test skips.
set -euo pipefail
packages=(chromium fonts-dejavu-core)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tandem test-deps: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
