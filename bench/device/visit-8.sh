#!/usr/bin/env bash
# Eighth GPU visit (one H200): --graphs (issue #12), the whole training step as one CUDA graph.
# Part `graphs` (about 7 minutes): build; `run --graphs` for mlp, cnn, transformer, resnet18, dcgan in float32
# and bfloat16 on cuda (eager and graphs side by side); bert-base bfloat16 eager and graphs.
# Part `again` (about 9 minutes): the GPU tests (label gpu, the new Gpu.Graphs* among them); the
# Python references in the same visit, eager and whole-step CUDA graph side by side
# (bench/python/, --graphs both); the same `run --graphs` in a second process (budget 170 s).
#   bash bench/device/visit-8.sh graphs      bash bench/device/visit-8.sh again
set -uo pipefail
part=${1:-graphs}
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit8-$part"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg PYTHONUNBUFFERED=1 ACCELBENCH_TEST_WORKLOADS=1
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
export ACCELBENCH_GIT_COMMIT=${ACCELBENCH_GIT_COMMIT:-$(cat .device/commit 2>/dev/null || echo unknown)}
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench gpu_tests
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
models=mlp,cnn,transformer,resnet18,dcgan
run_graphs() {  # $1: name
  local s=$(date +%s)
  COLUMNS=140 $BIN run --graphs --models $models --dtype float32,bfloat16 --devices cuda --budget ${BUDGET:-200s} \
    --no-save --json "$d/$1.json" > "$d/$1.txt" 2> "$d/$1.err"
  echo "$1: exit $? in $(( $(date +%s) - s )) s"
  sed -n '/CUDA graphs against/,/^$/p' "$d/$1.txt"
}
if [[ $part == graphs ]]; then
  run_graphs run-graphs-1
  s=$(date +%s)
  COLUMNS=140 $BIN run --graphs --models bert-base --dtype bfloat16 --devices cuda --budget 60s --no-save \
    --json "$d/bert.json" > "$d/bert.txt" 2>&1; echo "bert: exit $? in $(( $(date +%s) - s )) s"
  sed -n '/CUDA graphs against/,/^$/p' "$d/bert.txt"
else
  s=$(date +%s)
  (cd build-device/tests && timeout 150 ./gpu_tests --gtest_color=no > "$d/gpu_tests.txt" 2>&1; echo "gpu_tests exit $?")
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|  (mlp|refusal)" "$d/gpu_tests.txt"
  echo "gpu tests took $(( $(date +%s) - s )) s"
  s=$(date +%s)
  for dt in float32 bfloat16; do
    timeout 150 python3 bench/python/article_models.py --models mlp,cnn,transformer --device cuda --dtype $dt --graphs both \
      --max-time 6 --json "$d/py-article-$dt.json" > "$d/py-article-$dt.txt" 2>&1; echo "python article $dt exit $?"
    timeout 150 python3 bench/python/real_cases.py --models resnet18,dcgan --device cuda --dtype $dt --graphs both \
      --max-time 6 --json "$d/py-real-$dt.json" > "$d/py-real-$dt.txt" 2>&1; echo "python real $dt exit $?"
  done
  echo "python took $(( $(date +%s) - s )) s"
  tail -n 12 "$d"/py-*.txt
  BUDGET=170s run_graphs run-graphs-2
fi
(cd "$OUT" && tar czf "visit8-$part.tgz" "visit8-$part" && rm -rf "visit8-$part")
echo "total $(( $(date +%s) - t0 )) s"
