#!/usr/bin/env bash
# Issue #14 acceptance on one H200: world size 1 through NCCL (`scale --gpus 1`) against `run`,
# interleaved so that the GPU's power and thermal state (bf16 bert-base slows by up to 40% within
# seconds of sustained load: bench/device/ws1-gap.sh) falls on both alike: for each case three
# pairs, `run` first in pairs 1 and 3, `scale` first in pair 2, 6 s a case for `run` (build, warm-up and sampling), 3 s of sampling for `scale` (after its warm-up).
# nvidia-smi samples the SM clock, power and throttle reasons at 5 Hz throughout (clocks.csv).
# Run from the repository root on the device machine with .device/ carried; about 6 minutes for the
# four cases. CASES="model:dtype ..." picks others; PAIRS=N (default 3) takes N pairs, `run` first in
# the odd ones; BIN=path skips the build (an accelbench already built). With 4 pairs or more it prints
# the paired 95% interval of scale/run (the mean of the pairs' log ratios, Student t): pairs taken
# seconds apart share the host's state, which moves for minutes on that VM.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/ws1-match"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
CASES=${CASES:-resnet18:float32 resnet18:bfloat16 transformer:bfloat16 bert-base:bfloat16}
if [[ -z ${BIN:-} ]]; then
  source bench/device/build-targets.sh "$d/build.log" accelbench
  BIN=./build-device/accelbench
  echo "build took $(( $(date +%s) - t0 )) s"
fi
nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 200 > "$d/clocks.csv" 2>&1 &
smi=$!
run_case() { timeout 60 $BIN run --models $1 --dtype $2 --devices cuda:0 --batch-size 64 --rounds 1 --in-process-rounds \
  --max-time-per-case 6s --no-progress --no-save --no-telemetry --json "$d/run-$1-$2-$3.json" > "$d/run-$1-$2-$3.txt" 2>&1 || echo "run $1 $2 $3 failed"; }
scale_case() { timeout 60 $BIN scale --model $1 --dtype $2 --gpus 1 --batch-size 64 --max-time 3 --json "$d/scale-$1-$2-$3.json" > "$d/scale-$1-$2-$3.txt" 2>&1 || echo "scale $1 $2 $3 failed"; }
for md in $CASES; do
  m=${md%%:*} p=${md##*:}
  for pair in $(seq 1 ${PAIRS:-3}); do
    if (( pair % 2 == 0 )); then scale_case $m $p $pair; run_case $m $p $pair; else run_case $m $p $pair; scale_case $m $p $pair; fi
  done
  echo "$m $p done at $(( $(date +%s) - t0 )) s"
done
kill $smi 2>/dev/null
python3 bench/device/ws1_stats.py match "$d" ${PAIRS:-3} $CASES
(cd "$OUT" && tar czf "ws1-match-$(date +%s).tgz" ws1-match && rm -rf ws1-match)
echo "total $(( $(date +%s) - t0 )) s"
