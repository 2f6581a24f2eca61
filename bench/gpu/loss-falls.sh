#!/usr/bin/env bash
# Training that trains, on one CUDA GPU: bench/loss_falls.py for every built-in workload and
# precision on cuda, both loops (`--impl cpp,python`), 10 seeds (0..9), each seed one
# `run --quick --no-save`: per workload, precision and implementation, how many seeds ended with a
# lower loss than they started, the median losses and steps, and how far the Python loop's starting
# loss is from the C++ loop's. dcgan has no float16 (two optimizers, one loss scaler): it runs in
# float32, tfloat32 and bfloat16.
# Each case gets its --quick time (`--budget none`: the 60 s budget would cut each case of a seed's
# run to a step or two). JOBS=N runs N seeds side by side (loss_falls.py --jobs: fewer steps a case
# when they share the GPU); MODELS narrows the workloads (default: all).
#   JOBS=10 bash bench/gpu/loss-falls.sh OUT_DIR
# Writes OUT_DIR/{models,dcgan}/seed*.json and loss_falls.json, and loss-falls.txt (both tables).
# Exit status 0 when every seed's loss fell in every case.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
rc=0
models=${MODELS:-mlp,cnn,transformer,resnet18,bert-base,dcgan}
others=$(tr , '\n' <<< "$models" | grep -vx dcgan | paste -sd,)
lf=("$PY" bench/loss_falls.py --bin "$BIN" --python "$PY" --devices cuda --seeds 10 --jobs "${JOBS:-1}")
: > "$OUT/loss-falls.txt"
if [[ -n $others ]]; then
  "${lf[@]}" --models "$others" --dtypes float32,tfloat32,bfloat16,float16 --out "$OUT/models" -- --budget none \
    >> "$OUT/loss-falls.txt" 2> "$OUT/models.err" || rc=1
fi
if [[ ,$models, == *,dcgan,* ]]; then
  "${lf[@]}" --models dcgan --dtypes float32,tfloat32,bfloat16 --out "$OUT/dcgan" -- --budget none \
    >> "$OUT/loss-falls.txt" 2> "$OUT/dcgan.err" || rc=1
fi
cat "$OUT/loss-falls.txt"
echo "loss-falls: $(( $(date +%s) - T0 )) s, exit $rc"
exit $rc
