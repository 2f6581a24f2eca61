#!/usr/bin/env bash
# Issue #13 on the H200 (about 3 minutes; at most 280 s by the timeouts): models of the user's through tools/export_model.py
# against the built-ins, on cuda, float32 and bfloat16 at the same batch:
#   1. torchvision resnet18 (num_classes 10, 3x32x32) exported, run beside the built-in resnet18
#      (torchvision variant, the same architecture), batch 128;
#   2. Hugging Face BertForSequenceClassification from a BertConfig (no download; 2 labels,
#      sequence 128 as the built-in bert-base's default), traced, run beside bert-base, batch 32;
#   3. sweep batch on the exported resnet18.
# Assumes the project is built on the device (build-device/accelbench) and python3 has torch,
# torchvision and transformers. Results: $OUT/own-model/ (session.log, *.json, the exported files'
# export logs). Read: the step times of each pair in session.log's tables (the exported model
# should be within ~10% of the built-in; see docs/own-model.md), and the sweep's largest batch.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
D="$OUT/own-model"
mkdir -p "$D"
B=./build-device/accelbench
PY=${PYTHON:-python3}
log="$D/session.log"
M=$(mktemp -d)  # the model files (tens to hundreds of MB): not brought back
# One round each, in this process, at most 8 s a case: four cases in under a minute.
common="--devices cuda --dtype float32,bfloat16 --synthetic --quick --rounds 1 --in-process-rounds --max-time-per-case 8s --budget 45s --parity-steps 0 --no-save"
{
  echo "== versions"; $PY -c "import torch, torchvision, transformers; print('torch', torch.__version__, 'torchvision', torchvision.__version__, 'transformers', transformers.__version__)"
  nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
  echo "== export torchvision resnet18"
  t0=$(date +%s)
  timeout 40 $PY tools/export_model.py --model torchvision.models:resnet18 --kwargs '{"num_classes": 10}' \
    --input 3x32x32:float32 --target classes:10 -o "$M/resnet18-tv.pt"
  echo "export: $(( $(date +%s) - t0 )) s"
  echo "== run: built-in resnet18 vs the exported one, cuda fp32 + bf16, batch 128"
  timeout 60 $B run --models resnet18 --model-file "$M/resnet18-tv.pt" $common --batch-size 128 --json "$D/resnet18.json"
  echo "== export Hugging Face BertForSequenceClassification (BertConfig, no download)"
  t0=$(date +%s)
  timeout 60 $PY tools/export_model.py --file bench/device/own_model_factories.py --factory bert_base_classifier \
    --input 128:int64:0..30522,128:int64:1..2 --target classes:2 -o "$M/hf-bert.pt"
  echo "export: $(( $(date +%s) - t0 )) s"
  echo "== run: built-in bert-base vs the exported one, cuda fp32 + bf16, batch 32, sequence 128"
  timeout 70 $B run --models bert-base --model-file "$M/hf-bert.pt" $common --batch-size 32 --seq-len 128 --json "$D/bert.json"
  echo "== sweep batch on the exported resnet18 (cuda, bfloat16)"
  timeout 50 $B sweep batch --model-file "$M/resnet18-tv.pt" --device cuda --dtype bfloat16 --from 64 --to 2048 --no-isolate \
    --max-time-per-point 6s --budget 40s --no-telemetry --no-save --json "$D/sweep-resnet18-tv.json"
  echo "== done"
} >"$log" 2>&1
rm -rf "$M"
tail -c 11000 "$log"
