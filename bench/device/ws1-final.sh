#!/usr/bin/env bash
# Issue #14, after the step-time samples stopped paying for c10d's timing events and flight
# recorder (the collectives' timing is switched on for 10 extra steps after the sampling): world
# size 1 against `run` for transformer bfloat16 (two pairs, the order reversed in the second), then
# world sizes 1 and 2 to see the all-reduce share still measured. Results go to $OUT as they come.
# Run from the repository root on the device machine with .device/ carried; about 2.5 minutes.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
source bench/device/build-targets.sh /tmp/build.log accelbench
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
R() { timeout 40 $BIN run --models transformer --dtype bfloat16 --devices cuda:0 --batch-size 64 --rounds 1 --in-process-rounds \
  --max-time-per-case 6s --no-progress --no-save --no-telemetry --json "$OUT/R-$1.json" > /dev/null 2>&1
  python3 -c "import json,sys; print('run  ', sys.argv[2], '%.3f ms' % (1e3*json.load(open(sys.argv[1]))['cases'][0]['stats']['median']))" "$OUT/R-$1.json" $1; }
S() { timeout 40 $BIN scale --model transformer --dtype bfloat16 --gpus 1 --batch-size 64 --max-time 3 --json "$OUT/S-$1.json" > /dev/null 2>&1
  python3 -c "import json,sys,statistics as st; r=json.load(open(sys.argv[1]))['results'][0]['points'][0]['ranks'][0]; print('scale', sys.argv[2], '%.3f ms' % (1e3*st.median(r['samples_s'])), 'comm samples', len(r['comm_samples_s']))" "$OUT/S-$1.json" $1; }
R 1; S 1; S 2; R 2
echo "pairs done at $(( $(date +%s) - t0 )) s"
timeout 60 $BIN scale --model transformer --dtype bfloat16 --gpus 1,2 --batch-size 64 --max-time 3 --json "$OUT/scale-1-2.json" 2>&1 | grep -v "^scale:"
echo "total $(( $(date +%s) - t0 )) s"
