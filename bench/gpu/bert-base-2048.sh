#!/usr/bin/env bash
# bert-base in bfloat16 at batch 2048 (sequence 128, the padding mask in use) on one CUDA GPU:
# accelbench's 16-bit residual stream (the default) against autocast's float32 stream
# (ACCELBENCH_BERT_FP32_RESIDUAL=1), in alternating processes A B B A, each case's share of the
# bfloat16 ceiling from `peak --quick` in the same history; the default as a whole-step graph; and
# Python's transformers model (bench/python/real_cases.py, autocast) at the same batch and inputs.
#   bash bench/gpu/bert-base-2048.sh OUT_DIR     (about 6 minutes on an H200; transformers installed)
# Writes peak.txt, A-N/B-N.json/.txt, graphs.json/.txt, python.json/.txt and history.db under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
timed "peak --quick" "$BIN" peak --device cuda:0 --quick --db "$OUT/history.db" > "$OUT/peak.txt" 2>&1
grep -E "^matmul bfloat16" "$OUT/peak.txt"
bert() {  # NAME [FLAGS...]
  local name=$1
  shift
  timed "bert-base $name" timeout 200 "$BIN" run --models bert-base --devices cuda:0 --dtype bfloat16 --batch-size 2048 \
    --rounds 1 --in-process-rounds --max-time-per-case 20s --parity-steps 0 --no-progress --db "$OUT/history.db" "$@" \
    --json "$OUT/$name.json" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  grep -E "^bert-base" "$OUT/$name.txt" | head -3
}
bert A-1
ACCELBENCH_BERT_FP32_RESIDUAL=1 bert B-1
ACCELBENCH_BERT_FP32_RESIDUAL=1 bert B-2
bert A-2
bert graphs --graphs
timed "python bert-base 2048" timeout 200 "$PY" bench/python/real_cases.py --models bert-base --device cuda --dtype bfloat16 \
  --batch-size 2048 --max-time 20 --json "$OUT/python.json" > "$OUT/python.txt" 2>&1
sed -n '/^model/,$p' "$OUT/python.txt" | head -6
echo "bert-base-2048: $(( $(date +%s) - T0 )) s"
