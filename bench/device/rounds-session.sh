#!/usr/bin/env bash
# GPU-machine visit for issue #11 (rounds, device time, energy windows) and the gpu-labelled tests
# (docs/results/2026-11-30-h200-rounds.md). Run from the repository root on the device machine
# with .device/ carried (../shared/device/README.md):
#   run: bash bench/device/rounds-session.sh 1|2|3      (writes under $OUT; each part < 10 min)
# The build goes to build-device/ in the tree, which stays between calls while the machine is warm.
set -uo pipefail
part=${1:?part 1, 2 or 3}
OUT=${OUT:-/tmp/accelbench-out}
mkdir -p "$OUT"
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
export XDG_DATA_HOME=/tmp/xdg
B=./build-device/accelbench
t0=$(date +%s)
bash .device/build-on-device.sh > "$OUT/build-$part.log" 2>&1 || { tail -40 "$OUT/build-$part.log"; exit 1; }
echo "build took $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
five=mlp,cnn,transformer,resnet18,dcgan
case $part in
1)
  echo "== ctest -L gpu"
  (cd build-device && timeout 300 ctest -L gpu --output-on-failure 2>&1 | tail -25)
  for i in 1 2; do
    echo "== run $i: --models $five --devices cuda"
    s=$(date +%s)
    timeout 200 $B run --models $five --devices cuda --no-progress --no-save --json "$OUT/run$i.json" > "$OUT/run$i.txt" 2>&1
    echo "exit $? in $(( $(date +%s) - s )) s"
  done
  ;;
2)
  for i in 3 4 5; do
    echo "== run $i: --models $five --devices cuda"
    s=$(date +%s)
    timeout 170 $B run --models $five --devices cuda --no-progress --no-save --json "$OUT/run$i.json" > "$OUT/run$i.txt" 2>&1
    echo "exit $? in $(( $(date +%s) - s )) s"
  done
  ;;
3)
  echo "== six workloads, float32 and bfloat16: device vs host time, mean vs peak power"
  s=$(date +%s)
  timeout 520 $B run --models mlp,cnn,transformer,resnet18,bert-base,dcgan --devices cuda --dtype float32,bfloat16 \
    --no-progress --no-save --budget 7m --json "$OUT/six-fp32-bf16.json" > "$OUT/six-fp32-bf16.txt" 2>&1
  echo "exit $? in $(( $(date +%s) - s )) s"
  ;;
esac
tail -60 "$OUT"/run*.txt "$OUT"/six*.txt 2>/dev/null | tail -80
