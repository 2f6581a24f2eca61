#!/usr/bin/env bash
# Fifth GPU visit (nvidia-h200-x2): build, the gpu suite and the mended test that meets real
# hardware (#16), world size 1 through NCCL in the bucket-views layout, then (part `all`) the scaling
# measurement of bench/device/scale-session.sh (accelbench and Python DDP at 1 and 2 GPUs, `run`).
# Run from the repository root on the device machine with .device/ carried:
#   bash bench/device/visit-5.sh        # about 4 minutes (the first call: both layouts against run)
#   bash bench/device/visit-5.sh all    # about 8 minutes
# Writes $OUT/visit5.tgz (logs, JSON), $OUT/scale.tgz (part all) and $OUT/accelbench (stripped).
set -uo pipefail
part=${1:-layouts}
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit5"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg PYTHONUNBUFFERED=1
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench gpu_tests unit_telemetry_tests
grep -E "NCCL for scale|CUDA-specific" "$d/build.log"
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
$BIN --version 2>&1 | head -2
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
strip -o "$OUT/accelbench" "$BIN"
echo "== ctest -L gpu"
(cd build-device && ctest -L gpu --output-on-failure > "$d/ctest-gpu.txt" 2>&1; echo "   exit $?"; tail -18 "$d/ctest-gpu.txt")
echo "== ThisMachine (NVML read for real)"
build-device/tests/unit_telemetry_tests --gtest_filter='ThisMachine.*' > "$d/this-machine.txt" 2>&1; echo "   exit $?"
grep -E "^\[ +(OK|FAILED|SKIPPED) |source|available" "$d/this-machine.txt" | cut -c1-220 | head -20
if [[ $part == all ]]; then
  echo "== world size 1 through NCCL, gradients as bucket views (the default layout is in scale-session.sh's)"
  for md in resnet18:float32,bfloat16 transformer:bfloat16; do
    m=${md%%:*} p=${md##*:}
    timeout 100 $BIN scale --model $m --dtype $p --gpus 1 --batch-size 64 --max-time 6 --bucket-views \
      --json "$d/scale-$m-views.json" > "$d/scale-$m-views.txt" 2>&1; echo "   scale $m $p views: exit $?"
    grep -E "^ +1 |failed" "$d/scale-$m-views.txt"
  done
  (cd "$OUT" && tar czf visit5.tgz visit5 && rm -rf visit5)
  BIN=$BIN bash bench/device/scale-session.sh measure
  echo "total $(( $(date +%s) - t0 )) s"
  exit 0
fi
echo "== world size 1 through NCCL against run, both layouts"
for m in resnet18 transformer; do
  for layout in copied views; do
    extra=""; [[ $layout == views ]] && extra="--bucket-views"
    timeout 100 $BIN scale --model $m --dtype float32,bfloat16 --gpus 1 --batch-size 64 --max-time 6 $extra \
      --json "$d/scale-$m-$layout.json" > "$d/scale-$m-$layout.txt" 2>&1; echo "   scale $m $layout: exit $?"
    grep -E "^ +1 |failed" "$d/scale-$m-$layout.txt"
  done
done
timeout 100 $BIN run --models resnet18,transformer --dtype float32,bfloat16 --devices cuda:0 --batch-size 64 --rounds 1 \
  --max-time-per-case 12s --no-progress --no-save --json "$d/run-ws1.json" > "$d/run-ws1.txt" 2>&1; echo "   run: exit $?"
grep -E "resnet18|transformer" "$d/run-ws1.txt" | head -12
(cd "$OUT" && tar czf visit5.tgz visit5 && rm -rf visit5)
echo "total $(( $(date +%s) - t0 )) s"
