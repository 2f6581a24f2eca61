#!/usr/bin/env bash
# Issue #14, world size 1 against `run`: which part of `scale --gpus 1` costs the launch-bound step
# its extra time? Per case ROUNDS rounds (default 4), each round three processes seconds apart, in an
# order that rotates every round: R `run`, S `scale --gpus 1` (gradients all-reduced through NCCL),
# D `scale --gpus 1` with ACCELBENCH_SCALE_WITHOUT_REDUCER=1 (the same rank process, process group and
# loop, no all-reduce), V `scale --gpus 1 --bucket-views` (DDP's gradient_as_bucket_view). Prints each variant's medians and the paired 95% intervals of S/R, D/R and V/R
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
python3 - "$d" $ROUNDS $CASES <<'PY'
import json, math, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
T975 = {2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365}
def med(path):
    try: j = json.load(open(path))
    except Exception: return None
    if 'cases' in j: return j['cases'][0]['stats']['median']
    return statistics.median(j['results'][0]['points'][0]['ranks'][0]['samples_s'])
for md in sys.argv[3:]:
    m, p = md.split(':')
    v = {k: [med(f"{d}/{k}-{m}-{p}-{i}.json") for i in range(1, n + 1)] for k in "RSDV"}
    for k in "RSDV": print(f"{m} {p} {k}: " + " ".join("-" if x is None else f"{1e3*x:.3f}" for x in v[k]) + " ms")
    for k in "SDV":
        if all(x is None for x in v[k]): continue
        pairs = [(a, b) for a, b in zip(v["R"], v[k]) if a and b]
        if len(pairs) < 3: print(f"{m} {p} {k}/R: too few rounds"); continue
        logs = [math.log(b / a) for a, b in pairs]
        mean, sd = statistics.mean(logs), statistics.stdev(logs); h = T975[len(pairs) - 1] * sd / math.sqrt(len(pairs))
        print(f"{m} {p} {k}/R: {100*(math.exp(mean)-1):+.1f}% [95% CI {100*(math.exp(mean-h)-1):+.1f}%, {100*(math.exp(mean+h)-1):+.1f}%] over {len(pairs)} rounds")
PY
(cd "$OUT" && tar czf "ws1-variants-$(date +%s).tgz" ws1-variants && rm -rf ws1-variants)
echo "ws1-variants total $(( $(date +%s) - t0 )) s"
