#!/usr/bin/env bash
# Can one run measured under load poison the history? Into one fresh history (OUT_DIR/history.db):
#  1. `accelbench run --quick --models $MODELS` with BUSY busy loops beside it (default 2: every core
#     of a 2-core machine), which the machine checks should find ("timings may be DISTORTED"):
#     loaded.json, loaded.txt;
#  2. IDLE runs of the same command on the idle machine (default 3): idle1.json ...;
#  3. `history` (history.txt): the loaded run marked DISTORTED;
#  4. `compare` of the idle runs over their ordered pairs (compare-idle.txt): no DISTORTED line, no
#     range too wide, and the loaded run against idle run 1 (compare-loaded.txt: marked);
#  5. the idle runs' ranges against the same runs' from a fresh history (fresh-history.txt:
#     bench/replay_intervals.py --fresh-history replays run's estimator over the idle runs alone):
#     every case's and speed-up's width within 1.5x of the fresh one's.
# Usage: bash bench/cpu-distorted-run.sh OUT_DIR   (repository root, build/accelbench built; a
# quiet machine: about 4 minutes). MODELS=mlp,cnn BUSY=2 IDLE=3 RUN_ARGS=--quick.
set -uo pipefail
[[ -n ${1:-} ]] || { echo "usage: bash $0 OUT_DIR" >&2; exit 2; }
OUT=$(mkdir -p "$1" && cd "$1" && pwd) || { echo "$0: cannot write into $1" >&2; exit 2; }
BIN=${BIN:-./build/accelbench}
[[ -x $BIN ]] || { echo "$0: no accelbench binary at $BIN; set BIN=..." >&2; exit 2; }
MODELS=${MODELS:-mlp,cnn} BUSY=${BUSY:-2} IDLE=${IDLE:-3} RUN_ARGS=${RUN_ARGS:---quick}
export ACCELBENCH_DB=$OUT/history.db XDG_DATA_HOME=$OUT/xdg
rm -f "$ACCELBENCH_DB" "$OUT"/compare-*.txt
{ date -u +%FT%TZ; "$BIN" --version 2>&1 | head -1; echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"; } | tee "$OUT/machine.txt"

loops=()
for _ in $(seq 1 "$BUSY"); do
  ( while :; do :; done ) &
  loops+=($!)
done
sleep 2  # the load is seen by the checks' sampling window
# shellcheck disable=SC2086  # RUN_ARGS is a list of flags
"$BIN" run --models "$MODELS" $RUN_ARGS --no-progress --json "$OUT/loaded.json" > "$OUT/loaded.txt" 2> "$OUT/loaded.err"
echo "loaded run: exit $?"
for pid in "${loops[@]}"; do kill "$pid"; done
wait "${loops[@]}" 2> /dev/null
sleep 20  # the CPU pressure the checks read is a 10 s average: let it fall before the idle runs
idle=()
for i in $(seq 1 "$IDLE"); do
  # shellcheck disable=SC2086
  "$BIN" run --models "$MODELS" $RUN_ARGS --no-progress --json "$OUT/idle$i.json" > "$OUT/idle$i.txt" 2> "$OUT/idle$i.err"
  echo "idle run $i: exit $?"
  idle+=("$OUT/idle$i.json")
done
"$BIN" history > "$OUT/history.txt"
"$BIN" history --json > "$OUT/history.json"
python3 -c 'import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
print("marks in history (wanted: the loaded run only): " + "; ".join(
    "run %d %s: %s" % (r["id"], "loaded" if i == 0 else "idle", r["distorted_by"] or "none") for i, r in enumerate(runs)))' \
  "$OUT/history.json" | tee "$OUT/summary.txt"
for i in $(seq 1 "$IDLE"); do
  for j in $(seq 1 "$IDLE"); do
    (( i == j )) && continue
    { echo "== compare idle$i idle$j"; "$BIN" compare "$OUT/idle$i.json" "$OUT/idle$j.json"; } >> "$OUT/compare-idle.txt" 2>&1
  done
done
echo "compare of idle runs: $(grep -c 'DISTORTED' "$OUT/compare-idle.txt") DISTORTED line(s), $(grep -c 'too wide' "$OUT/compare-idle.txt") too wide" \
  | tee -a "$OUT/summary.txt"
"$BIN" compare "$OUT/loaded.json" "$OUT/idle1.json" > "$OUT/compare-loaded.txt" 2>&1
echo "compare loaded idle1: $(grep -c 'A was measured while timings may have been DISTORTED' "$OUT/compare-loaded.txt") mark line(s)" \
  | tee -a "$OUT/summary.txt"
python3 bench/replay_intervals.py --fresh-history "${idle[@]}" | tee "$OUT/fresh-history.txt" | tail -1 | tee -a "$OUT/summary.txt"
