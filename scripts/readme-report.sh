#!/usr/bin/env bash
# Regenerates the scaling report shown in the README's tour: Llama-3 70B on the h100-24k
# cluster, strong scaling at a global batch of 2048 sequences of 8192 tokens (16M tokens)
# from 64 to 16,384 GPUs under one plan scaled in data parallelism (TP8 PP4 with sequence
# parallelism, ZeRO-1, overlapped gradient reduce and parameter gather). Writes the
# Markdown table and the efficiency plot into docs/, and the whole report (HTML, CSV,
# every plot) into the directory given as $1 (default: a temporary one, removed after).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
out="${1:-}"
if [ -z "$out" ]; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
build/cli/tandem report scaling --model llama3-70b --cluster h100-24k \
  --gpus 64,128,256,512,1024,2048,4096,8192,16384 --strong --gbs 2048 --seq-length 8192 \
  --tp 8 --pp 4 --sequence-parallel --sharding zero1 --overlap-grad-reduce \
  --overlap-param-gather --out "$out" --format html,md,csv,png --force
mkdir -p docs
# the table without the image links (they point at files beside the report)
grep -v '^!\[' "$out/report.md" > docs/scaling-llama3-70b-h100.md
cp "$out/efficiency.png" docs/scaling-llama3-70b-h100-efficiency.png
echo "wrote docs/scaling-llama3-70b-h100.md and docs/scaling-llama3-70b-h100-efficiency.png"
