#!/usr/bin/env bash
# Are the next-run ranges right on this machine, and does `compare` keep to the run-to-run noise?
# Five back-to-back default `accelbench run --json` from an empty history (kept in OUT_DIR); then
#  - bench/interval_calibration.py over the five (calibration.txt) and the first run alone
#    against all five (calibration-first.txt);
#  - `compare i j` and `compare i j --fail-above 5%` over all 20 ordered pairs (compare-pairs.txt:
#    each pair's verdict counts and exit code; the totals at the end);
#  - a planted slowdown: one more run with --threads 1 (half the cores on a 2-core machine),
#    compared against run 1 (compare-threads1.txt): its cases should be SLOWER.
# Usage: bash bench/cpu-interval-calibration.sh OUT_DIR   (repository root, build/accelbench built)
# Look for: coverage >= 90% and width ratio <= 3 for every case in calibration.txt; SLOWER or FASTER
# in under 10% of the case comparisons and exit 0 in at least 18 of 20 pairs; SLOWER in
# compare-threads1.txt. Takes five or six default runs' time (about 30 min on 2 cores).
# host-load.txt: the load average and the cumulative steal time (/proc/stat, 1/100 s) before each run.
set -uo pipefail
[[ -n ${1:-} ]] || { echo "usage: bash $0 OUT_DIR" >&2; exit 2; }
OUT=$(mkdir -p "$1" && cd "$1" && pwd) || { echo "$0: cannot write into $1" >&2; exit 2; }
BIN=${BIN:-./build/accelbench}
[[ -x $BIN ]] || { echo "$0: no accelbench binary at $BIN; set BIN=..." >&2; exit 2; }
export ACCELBENCH_DB=$OUT/history.db XDG_DATA_HOME=$OUT/xdg
rm -f "$ACCELBENCH_DB"
{ date -u +%FT%TZ; "$BIN" --version 2>&1 | head -1; echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"; } | tee "$OUT/machine.txt"
for i in 1 2 3 4 5; do
  echo "run $i load $(cut -d' ' -f1-3 /proc/loadavg) steal $(awk '/^cpu /{print $9}' /proc/stat)" >> "$OUT/host-load.txt"
  "$BIN" run --no-progress --json "$OUT/run$i.json" > "$OUT/run$i.txt" 2> "$OUT/run$i.err"
  echo "run $i: exit $?"
done
runs=("$OUT"/run[1-5].json)
python3 bench/interval_calibration.py "${runs[@]}" | tee "$OUT/calibration.txt"
python3 bench/interval_calibration.py --judge 1 "${runs[@]}" | tee "$OUT/calibration-first.txt"
cases=0 moved=0 passed=0 pairs=0
for i in 1 2 3 4 5; do
  for j in 1 2 3 4 5; do
    (( i == j )) && continue
    out=$("$BIN" compare "$OUT/run$i.json" "$OUT/run$j.json" --fail-above 5% 2>&1); rc=$?
    line=$(grep -E '^[0-9]+ SLOWER, [0-9]+ FASTER' <<<"$out")
    echo "compare $i $j: $line exit $rc" | tee -a "$OUT/compare-pairs.txt"
    read -r s _ f _ same _ unc _ <<<"$(sed 's/,//g' <<<"$line")"
    cases=$(( cases + s + f + same + unc )); moved=$(( moved + s + f ))
    pairs=$(( pairs + 1 )); (( rc == 0 )) && passed=$(( passed + 1 ))
  done
done
echo "case comparisons SLOWER or FASTER: $moved of $cases; --fail-above 5% exit 0: $passed of $pairs pairs" | tee -a "$OUT/compare-pairs.txt"
"$BIN" run --threads 1 --no-progress --json "$OUT/threads1.json" > "$OUT/threads1.txt" 2> "$OUT/threads1.err"
"$BIN" compare "$OUT/run1.json" "$OUT/threads1.json" | tee "$OUT/compare-threads1.txt"
