#!/usr/bin/env bash
# Training that trains, on one CUDA GPU: bench/loss_falls.py for every built-in workload and
# precision on cuda, both loops (`--impl cpp,python`), 10 seeds (0..9), each seed one
# `run --quick --no-save`: per workload, precision and implementation, how many seeds ended with a
# lower loss than they started, the median losses and steps, and how far the Python loop's starting
# loss is from the C++ loop's. dcgan has no float16 (two optimizers, one loss scaler): it runs in
# float32, tfloat32 and bfloat16.
#   bash bench/gpu/loss-falls.sh OUT_DIR      (about 40 minutes on an H200)
# Writes OUT_DIR/{models,dcgan}/seed*.json and loss_falls.json, and loss-falls.txt (both tables).
# Exit status 0 when every seed's loss fell in every case.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
rc=0
"$PY" bench/loss_falls.py --bin "$BIN" --python "$PY" --devices cuda --models mlp,cnn,transformer,resnet18,bert-base \
  --dtypes float32,tfloat32,bfloat16,float16 --seeds 10 --out "$OUT/models" > "$OUT/loss-falls.txt" 2> "$OUT/models.err" || rc=1
"$PY" bench/loss_falls.py --bin "$BIN" --python "$PY" --devices cuda --models dcgan \
  --dtypes float32,tfloat32,bfloat16 --seeds 10 --out "$OUT/dcgan" >> "$OUT/loss-falls.txt" 2> "$OUT/dcgan.err" || rc=1
cat "$OUT/loss-falls.txt"
echo "loss-falls: $(( $(date +%s) - T0 )) s, exit $rc"
exit $rc
