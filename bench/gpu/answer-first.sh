#!/usr/bin/env bash
# What a user reads first on a CUDA machine: `COLUMNS=100 accelbench run --quick --devices cpu,cuda`
# from an empty history, stdout and stderr in one file as a terminal shows them; then the lines
# before the first table (at most 3), lines wider than 100 columns (none), advice items (at most 5)
# and the Summary's lines (one per model, each naming the faster device and its interval).
#   bash bench/gpu/answer-first.sh OUT_DIR       (not yet run on a GPU; the same on this CPU: 2 minutes)
# Writes run.txt (the output as shown) and counts.txt under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
timed "run --quick on cpu and cuda" timeout 400 env COLUMNS=100 "$BIN" run --quick --devices cpu,cuda --no-progress \
  > "$OUT/run.txt" 2>&1
{
  echo "lines before the first table: $(awk '/^model /{exit} NF{n++} END{print n+0}' "$OUT/run.txt")"
  echo "lines wider than 100 columns: $(awk 'length($0) > 100 {n++} END{print n+0}' "$OUT/run.txt")"
  echo "advice items: $(awk '/^Advice/{a=1; next} a && /^  - /{n++} a && !/^  /{a=0} END{print n+0}' "$OUT/run.txt")"
  echo "summary lines:"
  awk '/^Summary:/{s=1; next} s && /^  /{print} s && !/^  /{s=0}' "$OUT/run.txt"
} | tee "$OUT/counts.txt"
