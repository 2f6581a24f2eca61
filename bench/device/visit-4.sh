#!/usr/bin/env bash
# GPU-machine visit of the fourth session (2026-11-30): the gpu-labelled tests (#16), the device's
# busy share with the queue held and five back-to-back runs with interleaved rounds (#11), and the
# own-model comparison (#13, bench/device/own-model-session.sh when present). Run from the
# repository root on the device machine with .device/ carried (../shared/device/README.md):
#   run: bash bench/device/visit-4.sh runs-a    build (no tests), runs 1-3 of five workloads (~7 min)
#        bash bench/device/visit-4.sh runs-b    runs 4-5 (right after runs-a, on the warm machine)
#        bash bench/device/visit-4.sh tests     build with tests, the mended/gpu tests and the bad-input
#                                               matrix (bench/device/mended-tests.sh), own model (#13)
# Each run: `run --models mlp,cnn,transformer,resnet18,dcgan --devices cuda --budget 90s`: the
# default budget (4 min) could make five runs outlast the session's device time.
# The build goes to build-device/ in the tree, which stays between calls while the machine is warm.
set -uo pipefail
part=${1:?runs-a, runs-b or tests}
OUT=${OUT:-/tmp/accelbench-out}
mkdir -p "$OUT"
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
export XDG_DATA_HOME=/tmp/xdg
export ACCELBENCH_GIT_COMMIT=${ACCELBENCH_GIT_COMMIT:-$(cat .device/commit 2>/dev/null || echo unknown)}
B=./build-device/accelbench
t0=$(date +%s)
tests_flag=-DACCELBENCH_BUILD_TESTS=OFF
[ "$part" = tests ] && tests_flag=-DACCELBENCH_BUILD_TESTS=ON
bash .device/build-on-device.sh $tests_flag > "$OUT/build-$part.log" 2>&1 || { tail -40 "$OUT/build-$part.log"; exit 1; }
echo "build took $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
five=mlp,cnn,transformer,resnet18,dcgan
runs() {
  for i in "$@"; do
    echo "== run $i: --models $five --devices cuda"
    s=$(date +%s)
    timeout 170 $B run --models $five --devices cuda --budget 90s --no-progress --no-save --json "$OUT/run$i.json" > "$OUT/run$i.txt" 2>&1
    echo "exit $? in $(( $(date +%s) - s )) s"
  done
}
case $part in
runs-a) runs 1 2 3 ;;
runs-b) runs 4 5 ;;
tests)
  timeout 330 bash bench/device/mended-tests.sh
  echo "== own model (#13)"
  timeout 250 bash bench/device/own-model-session.sh > "$OUT/own-model.txt" 2>&1
  echo "exit $?"; tail -30 "$OUT/own-model.txt"
  ;;
esac
for f in "$OUT"/run*.txt; do echo "== $f"; grep -E "mlp|cnn|transformer|resnet18|dcgan" "$f" | head -12; done 2>/dev/null | tail -80
