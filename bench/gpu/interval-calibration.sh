#!/usr/bin/env bash
# Are the next-run ranges right on a CUDA host? SERIES series (default 3) of RUNS back-to-back runs
# (default 5) of
#   accelbench run --quick --devices cpu,cuda --models mlp,cnn,transformer --json RUN.json
# each series from an empty history of its own (OUT_DIR/series-K); the series PY_SERIES lists (default 3;
# "1 2 3": all; 0: none) add --impl cpp,python (the Python loop's cases and speed-ups beside the C++ engine's). Then
# bench/interval_calibration.py judges each series' cases and speed-ups (series-K/calibration-all.txt,
# and the first run alone against all: calibration-first.txt), and bench/interval_acceptance.py all
# series at once (OUT_DIR/acceptance.txt): for every case and speed-up the mean coverage (at least 90%
# wanted) and the median first-run width ratio (at most 3), and no "cannot tell" for a speed-up whose
# medians lie within +-5% of each other and above 1.2x. Each run's table is in runN.txt.
# Usage (repository root, the project built): bash bench/gpu/interval-calibration.sh OUT_DIR
# Resumable: a run whose runN.json is already there is not run again, and with STOP_AFTER_S=S no new
# run starts S seconds after the start (run the script again on the same OUT_DIR to go on).
# host-load.txt: the load average and the host's cumulative steal time (/proc/stat, 1/100 s) before
# each run: whether a series that drifts ran on a host growing busier. About 1 minute a run.
set -uo pipefail
source bench/gpu/common.sh "$@"
SERIES=${SERIES:-3} RUNS=${RUNS:-5} PY_SERIES=${PY_SERIES:-3}
require_gpus 1
dirs=()
for k in $(seq 1 "$SERIES"); do
  dir=$OUT/series-$k
  mkdir -p "$dir"
  export ACCELBENCH_DB=$dir/history.db
  [[ -s $dir/run1.json ]] || rm -f "$ACCELBENCH_DB"
  impl=()
  [[ " $PY_SERIES " == *" $k "* ]] && impl=(--impl cpp,python)
  runs=()
  for i in $(seq 1 "$RUNS"); do
    if [[ -s $dir/run$i.json ]]; then runs+=("$dir/run$i.json"); continue; fi
    if [[ -n ${STOP_AFTER_S:-} ]] && (( $(date +%s) - T0 > STOP_AFTER_S )); then
      echo "stopped before series $k run $i (STOP_AFTER_S=$STOP_AFTER_S): run the script again on $OUT"; exit 0
    fi
    echo "run $i load $(cut -d' ' -f1-3 /proc/loadavg) steal $(awk '/^cpu /{print $9}' /proc/stat)" >> "$dir/host-load.txt"
    timed "series $k run $i" "$BIN" run --quick --devices cpu,cuda --models mlp,cnn,transformer "${impl[@]}" --no-progress \
      --json "$dir/run$i.json" > "$dir/run$i.txt" 2> "$dir/run$i.err"
    [[ -s $dir/run$i.json ]] && runs+=("$dir/run$i.json")
  done
  (( ${#runs[@]} >= 2 )) || { echo "$0: series $k: fewer than two runs wrote their JSON: not judged" >&2; continue; }
  "$PY" bench/interval_calibration.py "${runs[@]}" > "$dir/calibration-all.txt"
  "$PY" bench/interval_calibration.py --judge 1 "${runs[@]}" > "$dir/calibration-first.txt"
  dirs+=("$dir")
done
(( ${#dirs[@]} )) || { echo "$0: no series of two runs or more to judge" >&2; exit 1; }
"$PY" bench/interval_acceptance.py "${dirs[@]}" | tee "$OUT/acceptance.txt"
echo "done in $(( $(date +%s) - T0 )) s: $OUT"
