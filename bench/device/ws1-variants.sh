#!/usr/bin/env bash
# Issue #14, world size 1 against `run`: which part of `scale --gpus 1` costs the launch-bound step
# its extra time? Per case ROUNDS rounds (default 4), each round three processes seconds apart, in an
# order that rotates every round: R `run`, S `scale --gpus 1` (gradients all-reduced through NCCL),
# D `scale --gpus 1` with ACCELBENCH_SCALE_WITHOUT_REDUCER=1 (the same rank process, process group and
# loop, no all-reduce), V `scale --gpus 1 --bucket-views` (DDP's gradient_as_bucket_view), F `scale --gpus 1 --bucket-mb 1024` (one
# bucket: one copy and one all-reduce a step). Prints each variant's medians and the paired 95% intervals of each against R
# (the mean of the rounds' log ratios, Student t). BIN=path (required) is the built accelbench.
#   BIN=./build-device/accelbench OUT=... CASES="transformer:bfloat16" [ROUNDS=4] [VARIANTS="R S"] bash bench/device/ws1-variants.sh
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/ws1-variants"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
CASES=${CASES:-transformer:bfloat16 resnet18:bfloat16}
ROUNDS=${ROUNDS:-4}
t0=$(date +%s)
one() {  # variant model dtype round
  local f="$d/$1-$2-$3-$4"
  case $1 in
    R) timeout 60 $BIN run --models $2 --dtype $3 --devices cuda:0 --batch-size 64 --rounds 1 --in-process-rounds \
         --max-time-per-case 6s --no-progress --no-save --no-telemetry --json "$f.json" > "$f.txt" 2>&1 ;;
    S) timeout 60 $BIN scale --model $2 --dtype $3 --gpus 1 --batch-size 64 --max-time 3 --json "$f.json" > "$f.txt" 2>&1 ;;
    F) timeout 60 $BIN scale --model $2 --dtype $3 --gpus 1 --batch-size 64 --max-time 3 --bucket-mb 1024 --json "$f.json" \
         > "$f.txt" 2>&1 ;;
    V) timeout 60 $BIN scale --model $2 --dtype $3 --gpus 1 --batch-size 64 --max-time 3 --bucket-views --json "$f.json" \
         > "$f.txt" 2>&1 ;;
    D) ACCELBENCH_SCALE_WITHOUT_REDUCER=1 timeout 60 $BIN scale --model $2 --dtype $3 --gpus 1 --batch-size 64 --max-time 3 \
         --json "$f.json" > "$f.txt" 2>&1 ;;
  esac || echo "$1 $2 $3 $4 failed"
}
read -r -a vs <<< "${VARIANTS:-R S D V}"  # VARIANTS picks some; the order rotates by one a round
for md in $CASES; do
  m=${md%%:*} p=${md##*:}
  for r in $(seq 1 $ROUNDS); do
    k=$(( (r - 1) % ${#vs[@]} ))
    for v in "${vs[@]:k}" "${vs[@]:0:k}"; do one $v $m $p $r; done
  done
  echo "$m $p done at $(( $(date +%s) - t0 )) s"
done
python3 bench/device/ws1_stats.py variants "$d" $ROUNDS $CASES
(cd "$OUT" && tar czf "ws1-variants-$(date +%s).tgz" ws1-variants && rm -rf ws1-variants)
echo "ws1-variants total $(( $(date +%s) - t0 )) s"
