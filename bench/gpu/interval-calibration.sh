#!/usr/bin/env bash
# Are the next-run ranges right on a CUDA host? Ten back-to-back
#   accelbench run --quick --devices cpu,cuda --models mlp,cnn,transformer --json RUN.json
# from an empty history (kept in OUT_DIR): five, then five more into the same history. Then
# bench/interval_calibration.py judges every case and speed-up: over runs 1-10 (calibration-all.txt),
# the first run's intervals alone against all ten (calibration-first.txt: the width ratio a new user
# sees) and the first five runs (calibration-first-five.txt). Each run's table is in runN.txt.
# Usage (repository root, the project built): bash bench/gpu/interval-calibration.sh OUT_DIR [PAUSE_S]
#   PAUSE_S: seconds between the two sets of five (default 0).
# Resumable: a run whose runN.json is already in OUT_DIR is not run again, and with STOP_AFTER_S=S
# no new run starts S seconds after the start (run the script again on the same OUT_DIR to go on).
# Look for: coverage >= 90% in every row of calibration-all.txt; width ratio <= 3 in the "first run"
# column of calibration-first.txt; the transformer on cuda within +-2% in each runN.txt.
# host-load.txt: the load average and the host's cumulative steal time (/proc/stat, 1/100 s) before
# each run: whether a series that drifts ran on a host growing busier.
set -uo pipefail
source bench/gpu/common.sh "$@"
PAUSE_S=${2:-0}
require_gpus 1
export ACCELBENCH_DB=$OUT/history.db
[[ -s $OUT/run1.json ]] || rm -f "$ACCELBENCH_DB"
runs=()
for i in $(seq 1 10); do
  if [[ -s $OUT/run$i.json ]]; then runs+=("$OUT/run$i.json"); continue; fi
  if [[ -n ${STOP_AFTER_S:-} ]] && (( $(date +%s) - T0 > STOP_AFTER_S )); then
    echo "stopped before run $i (STOP_AFTER_S=$STOP_AFTER_S): run the script again on $OUT"; exit 0
  fi
  if (( i == 6 && PAUSE_S > 0 )); then echo "pause ${PAUSE_S}s between the two sets"; sleep "$PAUSE_S"; fi
  echo "run $i load $(cut -d' ' -f1-3 /proc/loadavg) steal $(awk '/^cpu /{print $9}' /proc/stat)" >> "$OUT/host-load.txt"
  timed "run $i" "$BIN" run --quick --devices cpu,cuda --models mlp,cnn,transformer --no-progress \
    --json "$OUT/run$i.json" > "$OUT/run$i.txt" 2> "$OUT/run$i.err"
  [[ -s $OUT/run$i.json ]] && runs+=("$OUT/run$i.json")
done
(( ${#runs[@]} >= 2 )) || { echo "$0: fewer than two runs wrote their JSON" >&2; exit 1; }
"$PY" bench/interval_calibration.py "${runs[@]}" | tee "$OUT/calibration-all.txt"
"$PY" bench/interval_calibration.py --judge 1 "${runs[@]}" | tee "$OUT/calibration-first.txt"
"$PY" bench/interval_calibration.py "${runs[@]:0:5}" | tee "$OUT/calibration-first-five.txt"
"$PY" bench/interval_calibration.py --json "${runs[@]}" > "$OUT/calibration-all.json"
echo "done in $(( $(date +%s) - T0 )) s: $OUT"
