#!/usr/bin/env bash
# Issue #14 on one GPU of the H200 machine: where world size 1 through NCCL (`scale --gpus 1`) loses
# against `run` in bfloat16. Twice, for resnet18, transformer and bert-base in bfloat16 (batch 64):
#   A `run` (in-process, one round)         B `scale` (the default: copied gradients, NCCL timing on)
#   C `scale` with TORCH_NCCL_ENABLE_TIMING=0   D `scale` with ACCELBENCH_SCALE_WITHOUT_REDUCER=1
# (D: the same rank process, process group and loop, no gradient all-reduce: the harness's own cost).
# Run from the repository root on the device machine with .device/ carried; about 7 minutes.
# Writes $OUT/ws1-gap.tgz and prints the medians.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/ws1-gap"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=index,name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
for rep in 1 2; do
  for m in resnet18 transformer bert-base; do
    timeout 60 $BIN run --models $m --dtype bfloat16 --devices cuda:0 --batch-size 64 --rounds 1 --in-process-rounds \
      --max-time-per-case 8s --no-progress --no-save --no-telemetry --json "$d/A-$m-$rep.json" > "$d/A-$m-$rep.txt" 2>&1 || echo "A $m $rep failed"
    timeout 60 $BIN scale --model $m --dtype bfloat16 --gpus 1 --max-time 5 --json "$d/B-$m-$rep.json" > "$d/B-$m-$rep.txt" 2>&1 || echo "B $m $rep failed"
    TORCH_NCCL_ENABLE_TIMING=0 timeout 60 $BIN scale --model $m --dtype bfloat16 --gpus 1 --max-time 5 --json "$d/C-$m-$rep.json" > "$d/C-$m-$rep.txt" 2>&1 || echo "C $m $rep failed"
    ACCELBENCH_SCALE_WITHOUT_REDUCER=1 timeout 60 $BIN scale --model $m --dtype bfloat16 --gpus 1 --max-time 5 --json "$d/D-$m-$rep.json" > "$d/D-$m-$rep.txt" 2>&1 || echo "D $m $rep failed"
    echo "rep $rep $m done at $(( $(date +%s) - t0 )) s"
  done
done
python3 - "$d" <<'PY'
import json, statistics, sys, glob, os
d = sys.argv[1]
def med(path):
    try: j = json.load(open(path))
    except Exception as e: return None
    if 'cases' in j: return j['cases'][0]['stats']['median']
    return statistics.median(j['results'][0]['points'][0]['ranks'][0]['samples_s'])
for m in ['resnet18', 'transformer', 'bert-base']:
    for rep in (1, 2):
        row = {v: med(f"{d}/{v}-{m}-{rep}.json") for v in 'ABCD'}
        a = row['A']
        print(f"{m:12} rep {rep}: " + "  ".join(f"{v} {1e3*x:.3f} ms ({100*(x/a-1):+.1f}%)" if x and a else f"{v} -" for v, x in row.items()))
PY
(cd "$OUT" && tar czf ws1-gap.tgz ws1-gap && rm -rf ws1-gap)
echo "total $(( $(date +%s) - t0 )) s"
