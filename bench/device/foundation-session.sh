#!/usr/bin/env bash
# One GPU-machine visit for the foundation measurements (docs/results/). Run from the repository
# root on the device machine, with .device/ carried (see ../shared/device/README.md):
#   git archive HEAD -o .device/src.tar; git rev-parse --short=12 HEAD > .device/commit
#   (here: the committed tree, not a half-edited one)
#   run: bash bench/device/foundation-session.sh   (writes under $OUT)
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
mkdir -p "$OUT"
log="$OUT/session.log"
src=/tmp/accelbench-src
rm -rf "$src" && mkdir -p "$src"
if [[ -f .device/src.tar ]]; then tar -xf .device/src.tar -C "$src"; else cp -r . "$src"; fi
cp -r .device "$src/"
cd "$src"
[[ -f .device/commit ]] && export ACCELBENCH_GIT_COMMIT=$(cat .device/commit)
{
  echo "== $(date -u +%FT%TZ) on $(hostname)"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  python3 -c 'import torch; print("python torch", torch.__version__, torch.version.cuda)'
  echo "== build"; t0=$(date +%s)
  bash .device/build-on-device.sh || { echo BUILD FAILED; exit 1; }
  echo "build took $(( $(date +%s) - t0 )) s"
} >"$log" 2>&1 || { cat "$log"; exit 1; }
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
B=./build-device/accelbench
{
  echo "== devices"; $B devices
  echo "== doctor"; $B doctor
  echo "== unit tests (devices, runner) on this machine"
  ./build-device/tests/unit_torch_tests --gtest_brief=1 2>&1 | tail -5
  echo "== accelbench run (default suite, cpu + cuda)"
  $B run --no-progress --json "$OUT/h200-run.json"
  echo "== accelbench run --phases on cuda"
  $B run --no-progress --devices cuda --phases --quick --json "$OUT/h200-phases.json"
  echo "== accelbench run --full-epoch on cuda (mlp, cnn)"
  $B run --no-progress --models mlp,cnn --devices cuda --full-epoch --quick
  echo "== python eager reference on cuda (same models, fused Adam, same timing)"
  python3 bench/python/article_models.py --device cuda --batch-size 64 --json "$OUT/python-cuda.json"
  echo "== C++ / Python step-time ratio"
  python3 bench/python/compare_cpp_python.py "$OUT/h200-run.json" "$OUT/python-cuda.json"
} >>"$log" 2>&1
tail -c 11000 "$log"
