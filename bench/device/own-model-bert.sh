#!/usr/bin/env bash
# The Hugging Face BERT part of own-model-session.sh alone (its fix, 5d9872f, after the fourth visit):
# build without tests, export BertForSequenceClassification (mask as an input), run it beside the
# built-in bert-base on cuda, float32 and bfloat16, batch 32, sequence 128. About 4 minutes.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
D="$OUT/own-model-bert"; mkdir -p "$D"
export XDG_DATA_HOME=/tmp/xdg
bash .device/build-on-device.sh -DACCELBENCH_BUILD_TESTS=OFF > "$D/build.log" 2>&1 || { tail -30 "$D/build.log"; exit 1; }
B=./build-device/accelbench; M=$(mktemp -d)
common="--devices cuda --dtype float32,bfloat16 --synthetic --quick --rounds 1 --in-process-rounds --max-time-per-case 10s --budget 55s --parity-steps 0 --no-save"
{
  timeout 60 python3 tools/export_model.py --file bench/device/own_model_factories.py --factory bert_base_classifier \
    --input 128:int64:0..30522,128:int64:1..2 --target classes:2 -o "$M/hf-bert.pt"
  timeout 75 $B run --models bert-base --model-file "$M/hf-bert.pt" $common --batch-size 32 --seq-len 128 --json "$D/bert.json"
} > "$D/session.log" 2>&1
rm -rf "$M"
tail -c 6000 "$D/session.log"
