#!/usr/bin/env bash
# Builds tandem and runs its main job: a prediction of one training step of Llama-3 405B
# on the h100-24k cluster under the Llama 3 plan (TP8 PP16 DP128 on 16,384 H100s, seq
# 8192, global batch 2048, interleaved 1F1B with 8 chunks per rank, the embedding and the
# loss taking a layer slot each: one layer fewer on the first and last stage and a first
# chunk with only the embedding, the paper's Sec. 3.3.2), with its Perfetto trace written
# to llama3-405b-trace.json
# and the prediction stored in tandem.db.
set -euo pipefail
cd "$(dirname "$0")/.."
# setup.sh is silent while it compiles: say so, so the first run does not look hung.
if [ -x build/cli/tandem ]; then
  echo "tandem: building (only what changed)..." >&2
else
  echo "tandem: building (first time: a few minutes)..." >&2
fi
bash scripts/setup.sh
echo "tandem: built build/cli/tandem; predicting..." >&2
build/cli/tandem predict --model llama3-405b --cluster h100-24k --gpus 16384 \
  --tp 8 --pp 16 --vpp 8 --sequence-parallel --seq-length 8192 --global-batch-size 2048 \
  --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split \
  --sharding zero2 --overlap-grad-reduce --overlap-param-gather --rank-order tp-cp-ep-pp-dp \
  --trace llama3-405b-trace.json "$@"
