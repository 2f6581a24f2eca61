#!/usr/bin/env bash
# GPU-machine visit for issue #14, one H200 (nvidia-h200): world size 1 through NCCL (`scale --gpus 1`)
# beside `run` on the same GPU, after the gradients became views of the buckets (64ebe4c), for the
# launch-bound cases that were +25..40% slower than `run` (docs/results/2026-11-30-h200x2-scale.md).
# Run from the repository root on the device machine with .device/ carried; about 5 min
# (build ~1-2 min, then 3 cases x (scale ~30 s + run ~15 s)). Writes $OUT/bucket-views/.
#   bash bench/device/bucket-views.sh          # MAXT=6 seconds of sampling per case
# With BIN=path/to/accelbench (built on this machine before) the build is skipped.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
MAXT=${MAXT:-6}
d="$OUT/bucket-views"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
if [[ -z ${BIN:-} ]]; then
  bash .device/build-on-device.sh -DACCELBENCH_BUILD_TESTS=OFF > "$d/build.log" 2>&1 || { tail -40 "$d/build.log"; exit 1; }
  BIN=./build-device/accelbench
fi
echo "build took $(( $(date +%s) - t0 )) s"
git log --oneline -1 2>/dev/null
nvidia-smi --query-gpu=index,name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
for md in resnet18:float32 resnet18:bfloat16 transformer:bfloat16; do
  m=${md%%:*} p=${md##*:}
  echo "== scale $m $p --gpus 1"
  timeout 90 $BIN scale --model "$m" --dtype "$p" --gpus 1 --batch-size 64 --max-time "$MAXT" \
    --json "$d/scale-$m-$p.json" > "$d/scale-$m-$p.txt" 2>&1; echo "   exit $?"
  tail -6 "$d/scale-$m-$p.txt"
  echo "== run $m $p"
  timeout 60 $BIN run --models "$m" --dtype "$p" --devices cuda:0 --batch-size 64 --rounds 1 --in-process-rounds \
    --max-time-per-case "$((MAXT + 6))s" --no-progress --no-save --json "$d/run-$m-$p.json" > "$d/run-$m-$p.txt" 2>&1
  echo "   exit $?"; tail -6 "$d/run-$m-$p.txt"
done
echo "total $(( $(date +%s) - t0 )) s"
