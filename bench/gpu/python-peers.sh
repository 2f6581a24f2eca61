#!/usr/bin/env bash
# accelbench against its Python peers on one CUDA GPU: each workload's step in C++ eager and as a
# whole-step CUDA graph (`run --graphs`), beside PyTorch's eager step and its whole-step graph
# (bench/python/article_models.py, real_cases.py: the same models, data, optimizer and timing), at
# PyTorch's defaults and with the convolution settings accelbench uses on CUDA (cuDNN benchmark,
# channels-last). Batch 64, float32 and bfloat16. Ratios below 1: accelbench is faster.
#   bash bench/gpu/python-peers.sh OUT_DIR       (about 9 minutes on an H200; torchvision and
#                                                 transformers for resnet18 and bert-base)
# Writes cpp.json/.txt, py-*.json/.txt, compare-defaults.txt and compare-tuned.txt under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
timed "accelbench run --graphs" "$BIN" run --graphs --models mlp,cnn,transformer,resnet18,bert-base,dcgan \
  --dtype float32,bfloat16 --devices cuda --budget 200s --no-progress --json "$OUT/cpp.json" \
  > "$OUT/cpp.txt" 2> "$OUT/cpp.err"
sed -n '/CUDA graphs against/,/^$/p' "$OUT/cpp.txt"
py_peer() {  # NAME SCRIPT MODELS DTYPE [FLAGS...]
  local name=$1 script=$2 models=$3 dt=$4
  shift 4
  timed "python $name" timeout 240 "$PY" "bench/python/$script" --models "$models" --device cuda --dtype "$dt" \
    --graphs both --batch-size 64 --max-time 5 "$@" --json "$OUT/py-$name.json" > "$OUT/py-$name.txt" 2>&1
}
for dt in float32 bfloat16; do
  py_peer "article-$dt" article_models.py mlp,cnn,transformer $dt
  py_peer "real-$dt" real_cases.py resnet18,bert-base,dcgan $dt
  py_peer "conv-tuned-$dt" article_models.py cnn $dt --cudnn-benchmark --channels-last
  py_peer "real-tuned-$dt" real_cases.py resnet18,dcgan $dt --cudnn-benchmark --channels-last
done
"$PY" bench/python/compare_cpp_python.py "$OUT/cpp.json" "$OUT"/py-article-*.json "$OUT"/py-real-float32.json \
  "$OUT"/py-real-bfloat16.json > "$OUT/compare-defaults.txt" 2>&1
"$PY" bench/python/compare_cpp_python.py "$OUT/cpp.json" "$OUT"/py-conv-tuned-*.json "$OUT"/py-real-tuned-*.json \
  > "$OUT/compare-tuned.txt" 2>&1
echo "== against Python at PyTorch's defaults"; cat "$OUT/compare-defaults.txt"
echo "== against Python with cuDNN benchmark and channels-last"; cat "$OUT/compare-tuned.txt"
echo "python-peers: $(( $(date +%s) - T0 )) s"
