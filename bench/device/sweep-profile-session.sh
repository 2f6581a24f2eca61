#!/usr/bin/env bash
# One GPU-machine visit: the batch sweep with an emulated 16 GiB device and an op profile on CUDA
# (issue 4's GPU items), plus the unit tests built against the CUDA libtorch. Prepare here with
#   git archive HEAD -o .device/src.tar; git rev-parse --short=12 HEAD > .device/commit
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
mkdir -p "$OUT"
log="$OUT/session.log"
src=/tmp/accelbench-src
rm -rf "$src" && mkdir -p "$src"
tar -xf .device/src.tar -C "$src"
cp -r .device "$src/"
cd "$src"
[[ -f .device/commit ]] && export ACCELBENCH_GIT_COMMIT=$(cat .device/commit)
{
  t0=$(date +%s); bash .device/build-on-device.sh || { echo BUILD FAILED; exit 1; }
  echo "build took $(( $(date +%s) - t0 )) s"
} >"$log" 2>&1 || { cat "$log"; exit 1; }
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
B=./build-device/accelbench
{
  echo "== unit tests on the GPU machine (CUDA libtorch)"
  (cd build-device && timeout 200 ctest -L unit -j 8 2>&1 | tail -6)
  echo "== sweep batch: transformer on cuda, --memory-limit 16GiB"
  timeout 200 $B sweep batch --model transformer --device cuda --memory-limit 16GiB --no-save --json "$OUT/sweep-transformer-16g.json"
  echo "== profile transformer on cuda"
  timeout 60 $B profile transformer --device cuda --steps 3 --trace "$OUT/trace-transformer.json" --json "$OUT/profile-transformer.json"
} >>"$log" 2>&1
tail -c 11500 "$log"
