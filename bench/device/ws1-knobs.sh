#!/usr/bin/env bash
# Issue #14 on one H200: what in `scale --gpus 1` costs transformer bfloat16 (launch-bound) its
# +26% against `run` (bench/device/ws1-match.sh). Three rounds, the order reversed in the second:
#   R run    B scale (default)    E scale with c10d's flight recorder, heartbeat monitor and NCCL
#   timing off    F scale with one bucket (--bucket-mb 1024)    D scale without the reducer
#   T, M, N: the flight recorder (TORCH_NCCL_TRACE_BUFFER_SIZE=0), the heartbeat monitor
#   (TORCH_NCCL_ENABLE_MONITORING=0), NCCL timing (TORCH_NCCL_ENABLE_TIMING=0) off one at a time
# Run from the repository root on the device machine with .device/ carried; about 3-5 minutes:
#   bash bench/device/ws1-knobs.sh                      # R B E F D
#   VARIANTS="R B T M N E" bash bench/device/ws1-knobs.sh
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/ws1-knobs"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
m=transformer p=bfloat16
v_R() { timeout 60 $BIN run --models $m --dtype $p --devices cuda:0 --batch-size 64 --rounds 1 --in-process-rounds \
  --max-time-per-case 6s --no-progress --no-save --no-telemetry --json "$d/R-$1.json" > "$d/R-$1.txt" 2>&1 || echo "R $1 failed"; }
sc() { local v=$1 i=$2; shift 2; timeout 60 env "$@" $BIN scale --model $m --dtype $p --gpus 1 --batch-size 64 --max-time 3 \
  $SCALE_EXTRA --json "$d/$v-$i.json" > "$d/$v-$i.txt" 2>&1 || echo "$v $i failed"; }
v_B() { SCALE_EXTRA="" sc B $1 X=1; }
v_E() { SCALE_EXTRA="" sc E $1 TORCH_NCCL_TRACE_BUFFER_SIZE=0 TORCH_NCCL_ENABLE_MONITORING=0 TORCH_NCCL_ENABLE_TIMING=0; }
v_F() { SCALE_EXTRA="--bucket-mb 1024" sc F $1 X=1; }
v_D() { SCALE_EXTRA="" sc D $1 ACCELBENCH_SCALE_WITHOUT_REDUCER=1; }
v_T() { SCALE_EXTRA="" sc T $1 TORCH_NCCL_TRACE_BUFFER_SIZE=0; }
v_M() { SCALE_EXTRA="" sc M $1 TORCH_NCCL_ENABLE_MONITORING=0; }
v_N() { SCALE_EXTRA="" sc N $1 TORCH_NCCL_ENABLE_TIMING=0; }
VARIANTS=${VARIANTS:-"R B E F D"}
for i in 1 2 3; do
  order=$VARIANTS; [[ $i == 2 ]] && order=$(echo $VARIANTS | tr ' ' '\n' | tac | tr '\n' ' ')
  for v in $order; do v_$v $i; done
  echo "round $i done at $(( $(date +%s) - t0 )) s"
done
python3 - "$d" "$VARIANTS" <<'PY'
import json, statistics, sys
d = sys.argv[1]
def med(path):
    try: j = json.load(open(path))
    except Exception: return None
    if 'cases' in j: return j['cases'][0]['stats']['median']
    return statistics.median(j['results'][0]['points'][0]['ranks'][0]['samples_s'])
meds = {v: [med(f"{d}/{v}-{i}.json") for i in (1, 2, 3)] for v in sys.argv[2].split()}
r = statistics.median([x for x in meds["R"] if x])
for v, xs in meds.items():
    ok = [x for x in xs if x]
    print(f"{v}: " + " ".join(f"{1e3*x:.3f}" if x else "-" for x in xs) + f" ms  median {1e3*statistics.median(ok):.3f}  vs R {100*(statistics.median(ok)/r-1):+.1f}%")
PY
(cd "$OUT" && tar czf ws1-knobs.tgz ws1-knobs && rm -rf ws1-knobs)
echo "total $(( $(date +%s) - t0 )) s"
