#!/usr/bin/env bash
# GPU-machine visit of the fourth session (2026-11-30): the gpu-labelled tests (#16), the device's
# busy share with the queue held and five back-to-back runs with interleaved rounds (#11), and the
# own-model comparison (#13, bench/device/own-model-session.sh when present). Run from the
# repository root on the device machine with .device/ carried (../shared/device/README.md):
#   run: bash bench/device/visit-4.sh 1|2      (writes under $OUT; each part < 10 min)
# The build goes to build-device/ in the tree, which stays between calls while the machine is warm.
set -uo pipefail
part=${1:?part 1 or 2}
OUT=${OUT:-/tmp/accelbench-out}
mkdir -p "$OUT"
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
export XDG_DATA_HOME=/tmp/xdg
export ACCELBENCH_GIT_COMMIT=${ACCELBENCH_GIT_COMMIT:-$(cat .device/commit 2>/dev/null || echo unknown)}
B=./build-device/accelbench
t0=$(date +%s)
bash .device/build-on-device.sh > "$OUT/build-$part.log" 2>&1 || { tail -40 "$OUT/build-$part.log"; exit 1; }
echo "build took $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
five=mlp,cnn,transformer,resnet18,dcgan
runs() {
  for i in "$@"; do
    echo "== run $i: --models $five --devices cuda"
    s=$(date +%s)
    timeout 200 $B run --models $five --devices cuda --no-progress --no-save --json "$OUT/run$i.json" > "$OUT/run$i.txt" 2>&1
    echo "exit $? in $(( $(date +%s) - s )) s"
  done
}
case $part in
1)
  echo "== ctest -L gpu"
  (cd build-device && timeout 300 ctest -L gpu --output-on-failure > "$OUT/ctest-gpu.txt" 2>&1; tail -30 "$OUT/ctest-gpu.txt")
  if [ -f bench/device/own-model-session.sh ]; then
    echo "== own model (#13)"
    timeout 300 bash bench/device/own-model-session.sh > "$OUT/own-model.txt" 2>&1
    echo "exit $?"; tail -30 "$OUT/own-model.txt"
  fi
  runs 1
  ;;
2)
  runs 2 3 4 5
  ;;
esac
for f in "$OUT"/run*.txt; do echo "== $f"; grep -E "mlp|cnn|transformer|resnet18|dcgan" "$f" | head -12; done 2>/dev/null | tail -80
