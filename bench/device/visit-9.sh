#!/usr/bin/env bash
# Ninth GPU visit (one H200), issue #12.
# Part `peak` (about 8 minutes): `peak` twice (matmul ceilings as bursts after idle pauses, plus the
#   rate held for 3 s); `run --graphs` of mlp, cnn, transformer, resnet18, dcgan in float32 and
#   bfloat16 with those ceilings (verdicts, the graphs' kernel counts; the convolutions
#   channels-last with cuDNN's benchmark mode, the new CUDA default); the convolutional workloads
#   again with both off (ACCELBENCH_CHANNELS_LAST=0 ACCELBENCH_CUDNN_BENCHMARK=0): what they give.
# Part `python` (about 8 minutes): the Python references, eager and whole-step graph, at PyTorch's
#   defaults and with --cudnn-benchmark --channels-last; `run --graphs` in a second process.
# Part `bert` (about 8 minutes): bert-base bfloat16 at batch 2048, ours (eager, graphs; the fused QKV
#   projection and, ACCELBENCH_BERT_SEPARATE_QKV=1, three as Hugging Face has) and Python's
#   (transformers, SDPA, the same padding mask); the GPU tests (ctest -L gpu).
#   bash bench/device/visit-9.sh peak|python|bert
set -uo pipefail
part=${1:-peak}
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit9-$part"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg PYTHONUNBUFFERED=1 ACCELBENCH_TEST_WORKLOADS=1
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
export ACCELBENCH_GIT_COMMIT=${ACCELBENCH_GIT_COMMIT:-$(cat .device/commit 2>/dev/null || echo unknown)}
t0=$(date +%s)
targets=accelbench
[[ $part == bert ]] && targets="accelbench gpu_tests"
source bench/device/build-targets.sh "$d/build.log" $targets
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw,power.limit,temperature.gpu --format=csv,noheader
models=mlp,cnn,transformer,resnet18,dcgan
run_graphs() {  # $1: name, $2: budget, $3: models; the ceilings from $d/history.db when there
  local s=$(date +%s) db=(--no-save)
  [[ -f $d/history.db ]] && db=(--db "$d/history.db")
  COLUMNS=150 $BIN run --graphs --models "$3" --dtype float32,bfloat16 --devices cuda --budget "$2" \
    "${db[@]}" --json "$d/$1.json" > "$d/$1.txt" 2> "$d/$1.err"
  echo "$1: exit $? in $(( $(date +%s) - s )) s"
  sed -n '/CUDA graphs against/,/^$/p' "$d/$1.txt"
}
case $part in
peak)
  for i in 1 2; do
    s=$(date +%s)
    $BIN peak --device cuda:0 --db "$d/history.db" --json "$d/peak-$i.json" > "$d/peak-$i.txt" 2>&1
    echo "peak $i: exit $? in $(( $(date +%s) - s )) s"
    grep -E "matmul|held for|copy|launch" "$d/peak-$i.txt"
  done
  run_graphs run-graphs-1 150s $models
  grep -E "BOUND|bound" "$d/run-graphs-1.txt" | head -30
  ACCELBENCH_CHANNELS_LAST=0 ACCELBENCH_CUDNN_BENCHMARK=0 run_graphs run-nchw 90s cnn,resnet18,dcgan
  ;;
python)
  s=$(date +%s)
  for dt in float32 bfloat16; do
    timeout 120 python3 bench/python/article_models.py --models mlp,cnn,transformer --device cuda --dtype $dt --graphs both \
      --max-time 6 --json "$d/py-article-$dt.json" > "$d/py-article-$dt.txt" 2>&1; echo "python article $dt exit $?"
    timeout 120 python3 bench/python/real_cases.py --models resnet18,dcgan --device cuda --dtype $dt --graphs both \
      --max-time 6 --json "$d/py-real-$dt.json" > "$d/py-real-$dt.txt" 2>&1; echo "python real $dt exit $?"
    timeout 60 python3 bench/python/article_models.py --models cnn --device cuda --dtype $dt --graphs both \
      --cudnn-benchmark --channels-last --max-time 6 --json "$d/py-article-tuned-$dt.json" > "$d/py-article-tuned-$dt.txt" 2>&1
    echo "python article tuned $dt exit $?"
    timeout 120 python3 bench/python/real_cases.py --models resnet18,dcgan --device cuda --dtype $dt --graphs both \
      --cudnn-benchmark --channels-last --max-time 6 --json "$d/py-real-tuned-$dt.json" > "$d/py-real-tuned-$dt.txt" 2>&1
    echo "python real tuned $dt exit $?"
  done
  echo "python took $(( $(date +%s) - s )) s"
  for f in "$d"/py-*.txt; do echo "== $f"; sed -n '/^model/,$p' "$f" | head -14; done
  run_graphs run-graphs-2 200s $models
  ;;
bert)
  $BIN peak --device cuda:0 --quick --db "$d/history.db" > "$d/peak-quick.txt" 2>&1; echo "peak --quick exit $?"
  grep -E "matmul bfloat16" "$d/peak-quick.txt"
  for v in fused separate; do
    s=$(date +%s)
    fused=1; [[ $v == separate ]] && fused=0
    ACCELBENCH_BERT_SEPARATE_QKV=$((1 - fused)) ACCELBENCH_BERT_FUSED_QKV=$fused COLUMNS=150 $BIN run --graphs --models bert-base --dtype bfloat16 --devices cuda \
      --batch-size 2048 --budget 90s --rounds 2 --db "$d/history.db" --json "$d/bert-2048-$v.json" > "$d/bert-2048-$v.txt" 2> "$d/bert-2048-$v.err"
    echo "bert 2048 $v qkv: exit $? in $(( $(date +%s) - s )) s"
    sed -n '/^model  *device  *dtype  *batch/,/^$/p' "$d/bert-2048-$v.txt"; grep -E "^bert" "$d/bert-2048-$v.txt" | grep -i "ceiling" | head -2
  done
  s=$(date +%s)
  timeout 150 python3 bench/python/real_cases.py --models bert-base --device cuda --dtype bfloat16 --batch-size 2048 \
    --graphs both --max-time 25 --json "$d/py-bert-2048.json" > "$d/py-bert-2048.txt" 2>&1
  echo "python bert 2048: exit $? in $(( $(date +%s) - s )) s"
  sed -n '/^model/,$p' "$d/py-bert-2048.txt" | head -8
  s=$(date +%s)
  (cd build-device && timeout 200 ctest -L gpu --output-on-failure > "$d/ctest-gpu.txt" 2>&1; echo "ctest gpu exit $?")
  tail -5 "$d/ctest-gpu.txt"
  echo "gpu tests took $(( $(date +%s) - s )) s"
  ;;
again)
  # bert-base at batch 2048 again (the default three projections), graphs after the capture's
  # emptyCache, and Python's in a second process.
  $BIN peak --device cuda:0 --quick --db "$d/history.db" > "$d/peak-quick.txt" 2>&1; echo "peak --quick exit $?"
  s=$(date +%s)
  COLUMNS=150 $BIN run --graphs --models bert-base --dtype bfloat16 --devices cuda --batch-size 2048 --budget 100s \
    --rounds 2 --db "$d/history.db" --json "$d/bert-2048.json" > "$d/bert-2048.txt" 2> "$d/bert-2048.err"
  echo "bert 2048: exit $? in $(( $(date +%s) - s )) s"
  sed -n '/^model  *device  *dtype  *batch/,/^$/p' "$d/bert-2048.txt" | cut -c1-160
  s=$(date +%s)
  timeout 150 python3 bench/python/real_cases.py --models bert-base --device cuda --dtype bfloat16 --batch-size 2048 \
    --graphs both --max-time 25 --json "$d/py-bert-2048.json" > "$d/py-bert-2048.txt" 2>&1
  echo "python bert 2048: exit $? in $(( $(date +%s) - s )) s"
  sed -n '/^model/,$p' "$d/py-bert-2048.txt" | head -8
  ;;
esac
rm -f "$d/build.log"
(cd "$OUT" && tar czf "visit9-$part.tgz" "visit9-$part" && rm -rf "visit9-$part")
echo "total $(( $(date +%s) - t0 )) s"
