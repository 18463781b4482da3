#!/usr/bin/env bash
# Builds tandem and runs its main job: the seed cluster and the memory of Llama-3 405B
# under the Llama 3 plan (TP8 PP16 DP128 on 16,384 H100s, seq 8192, global batch 2048).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
tandem=build/cli/tandem
"$tandem" show cluster h100-24k
echo
"$tandem" memory --model llama3-405b --cluster h100-24k --gpus 16384 \
  --tp 8 --pp 16 --sequence-parallel --seq-length 8192 --global-batch-size 2048 \
  --decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 7 \
  --sharding zero2 "$@"
