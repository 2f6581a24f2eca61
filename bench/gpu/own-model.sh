#!/usr/bin/env bash
# Models of the user's on one CUDA GPU, exported through tools/export_model.py, against the
# built-in workloads at the same batch, float32 and bfloat16: torchvision's resnet18 (scripted)
# beside the built-in resnet18 at batch 128; Hugging Face's BertForSequenceClassification from a
# config (no download; traced, bench/python/own_model_factories.py) beside the built-in bert-base
# at batch 32, sequence 128; then `sweep batch` on the exported resnet18 in bfloat16.
#   bash bench/gpu/own-model.sh OUT_DIR       (about 3 minutes on an H200; torchvision, transformers)
# Writes resnet18.json/.txt, bert.json/.txt, sweep-resnet18-tv.json/.txt and the exports' logs under
# OUT_DIR; the exported model files go to a temporary folder that is removed.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
M=$(mktemp -d)
trap 'rm -rf "$M"' EXIT
common=(--devices cuda --dtype float32,bfloat16 --synthetic --quick --rounds 1 --in-process-rounds --max-time-per-case 8s
        --budget 45s --parity-steps 0 --no-save --no-progress)
timed "export torchvision resnet18" timeout 60 "$PY" tools/export_model.py --model torchvision.models:resnet18 \
  --kwargs '{"num_classes": 10}' --input 3x32x32:float32 --target classes:10 -o "$M/resnet18-tv.pt" > "$OUT/export-resnet18.txt" 2>&1
timed "run resnet18: built-in and exported" timeout 90 "$BIN" run --models resnet18 --model-file "$M/resnet18-tv.pt" \
  "${common[@]}" --batch-size 128 --json "$OUT/resnet18.json" > "$OUT/resnet18.txt" 2>&1
timed "export Hugging Face BERT" timeout 90 "$PY" tools/export_model.py --file bench/python/own_model_factories.py \
  --factory bert_base_classifier --input 128:int64:0..30522,128:int64:1..2 --target classes:2 -o "$M/hf-bert.pt" \
  > "$OUT/export-bert.txt" 2>&1
timed "run bert-base: built-in and exported" timeout 90 "$BIN" run --models bert-base --model-file "$M/hf-bert.pt" \
  "${common[@]}" --batch-size 32 --seq-len 128 --json "$OUT/bert.json" > "$OUT/bert.txt" 2>&1
timed "sweep batch, exported resnet18" timeout 90 "$BIN" sweep batch --model-file "$M/resnet18-tv.pt" --device cuda \
  --dtype bfloat16 --from 64 --to 2048 --no-isolate --max-time-per-point 6s --budget 40s --no-telemetry --no-save \
  --json "$OUT/sweep-resnet18-tv.json" > "$OUT/sweep-resnet18-tv.txt" 2>&1
for f in resnet18 bert sweep-resnet18-tv; do echo "== $f"; grep -E "^(resnet18|bert-base|hf-bert|.*\.pt|largest|knee)" "$OUT/$f.txt" | head -8; done
echo "own-model: $(( $(date +%s) - T0 )) s"
