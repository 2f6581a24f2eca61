#!/usr/bin/env bash
# Are the next-run ranges right on this machine, and does `compare` keep to the run-to-run noise?
# SERIES series (default 3) of RUNS back-to-back runs (default 5) of
#   accelbench run --models $MODELS $RUN_ARGS --json RUN.json      (default MODELS=mlp,cnn, RUN_ARGS "")
# each series from an empty history of its own (OUT_DIR/series-K/history.db); then, per series:
#  - bench/interval_calibration.py over its runs (calibration.txt) and the first run alone against
#    all (calibration-first.txt);
#  - `compare i j` over its ordered pairs of runs (compare-pairs.txt: each pair's verdict counts and
#    --fail-above 5% exit code);
#  - a planted 30% slowdown: run j's step times x 1.3 (bench/plant_slowdown.py) compared against
#    run i over the same pairs (compare-planted.txt): each of its cases should be SLOWER;
#  - with THREADS1=1 (the default), a real slowdown: one more run with --threads 1 (half the cores on
#    a 2-core machine) compared against run 1 (compare-threads1.txt);
# and over the series, bench/interval_acceptance.py (OUT_DIR/acceptance.txt): each case's mean
# coverage (at least 90% wanted) and median first-run width ratio (at most 3), and the compare
# totals (SLOWER or FASTER in at most 10% of the case comparisons; the planted slowdown SLOWER).
# Usage: bash bench/cpu-interval-calibration.sh OUT_DIR   (repository root, build/accelbench built)
#   A functional check in minutes: SERIES=1 RUNS=2 MODELS=mlp RUN_ARGS=--quick THREADS1=0 bash ...
# Takes SERIES x RUNS default runs (about 3 min each for mlp,cnn on 2 cores), on a quiet machine.
# host-load.txt: the load average and the cumulative steal time (/proc/stat, 1/100 s) before each run.
set -uo pipefail
[[ -n ${1:-} ]] || { echo "usage: bash $0 OUT_DIR" >&2; exit 2; }
OUT=$(mkdir -p "$1" && cd "$1" && pwd) || { echo "$0: cannot write into $1" >&2; exit 2; }
BIN=${BIN:-./build/accelbench}
[[ -x $BIN ]] || { echo "$0: no accelbench binary at $BIN; set BIN=..." >&2; exit 2; }
SERIES=${SERIES:-3} RUNS=${RUNS:-5} MODELS=${MODELS:-mlp,cnn} RUN_ARGS=${RUN_ARGS:-} THREADS1=${THREADS1:-1}
(( SERIES >= 1 && RUNS >= 2 )) || { echo "$0: SERIES must be 1 or more and RUNS 2 or more" >&2; exit 2; }
export XDG_DATA_HOME=$OUT/xdg
{ date -u +%FT%TZ; "$BIN" --version 2>&1 | head -1; echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)";
  echo "SERIES=$SERIES RUNS=$RUNS MODELS=$MODELS RUN_ARGS=$RUN_ARGS"; } | tee "$OUT/machine.txt"

# compare_pairs DIR LABEL SUFFIX: compare run i against run j (j's file runJ$SUFFIX.json) over the
# ordered pairs; appends each pair's counts to DIR/compare-LABEL.txt and its totals as the last line.
compare_pairs() {
  local dir=$1 label=$2 suffix=$3 cases=0 moved=0 slower=0 passed=0 pairs=0 i j out rc line s f same unc
  for i in $(seq 1 "$RUNS"); do
    for j in $(seq 1 "$RUNS"); do
      (( i == j )) && continue
      out=$("$BIN" compare "$dir/run$i.json" "$dir/run$j$suffix.json" --fail-above 5% 2>&1); rc=$?
      line=$(grep -E '^[0-9]+ SLOWER, [0-9]+ FASTER' <<<"$out")
      echo "compare $i $j$suffix: $line exit $rc" >> "$dir/compare-$label.txt"
      read -r s _ f _ same _ unc _ <<<"$(sed 's/,//g' <<<"$line")"
      cases=$(( cases + s + f + same + unc )); moved=$(( moved + s + f )); slower=$(( slower + s ))
      pairs=$(( pairs + 1 )); (( rc == 0 )) && passed=$(( passed + 1 ))
    done
  done
  echo "$label: case comparisons SLOWER or FASTER $moved of $cases, SLOWER $slower of $cases; --fail-above 5% exit 0 in $passed of $pairs pairs" \
    | tee -a "$dir/compare-$label.txt"
}

dirs=()
for k in $(seq 1 "$SERIES"); do
  dir=$OUT/series-$k
  mkdir -p "$dir"
  export ACCELBENCH_DB=$dir/history.db
  rm -f "$ACCELBENCH_DB" "$dir"/compare-*.txt
  for i in $(seq 1 "$RUNS"); do
    echo "run $i load $(cut -d' ' -f1-3 /proc/loadavg) steal $(awk '/^cpu /{print $9}' /proc/stat)" >> "$dir/host-load.txt"
    # shellcheck disable=SC2086  # RUN_ARGS is a list of flags
    "$BIN" run --models "$MODELS" $RUN_ARGS --no-progress --json "$dir/run$i.json" > "$dir/run$i.txt" 2> "$dir/run$i.err"
    echo "series $k run $i: exit $?"
    python3 bench/plant_slowdown.py "$dir/run$i.json" "$dir/run${i}-slower.json" 1.3
  done
  runs=()
  for i in $(seq 1 "$RUNS"); do runs+=("$dir/run$i.json"); done
  python3 bench/interval_calibration.py "${runs[@]}" > "$dir/calibration.txt"
  python3 bench/interval_calibration.py --judge 1 "${runs[@]}" > "$dir/calibration-first.txt"
  compare_pairs "$dir" pairs ""
  compare_pairs "$dir" planted "-slower"
  if (( THREADS1 )); then
    # shellcheck disable=SC2086
    "$BIN" run --models "$MODELS" $RUN_ARGS --threads 1 --no-progress --json "$dir/threads1.json" > "$dir/threads1.txt" 2> "$dir/threads1.err"
    "$BIN" compare "$dir/run1.json" "$dir/threads1.json" > "$dir/compare-threads1.txt"
  fi
  dirs+=("$dir")
done
cat "$OUT"/series-*/compare-*.txt | grep -E '^(pairs|planted):' > "$OUT/compare-totals.txt"
python3 bench/interval_acceptance.py --compare "$OUT/compare-totals.txt" "${dirs[@]}" | tee "$OUT/acceptance.txt"
