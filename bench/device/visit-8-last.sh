#!/usr/bin/env bash
# Eighth GPU visit, last call (about 4 minutes): `peak --device cuda:0` twice (full, two
# processes: #12's "twice, within 3%"), then the transformer's bfloat16 step op by op in C++
# (`accelbench profile`) and in Python (bench/python/profile_step.py): where the 7% between the two
# whole-step graphs comes from. Writes $OUT/visit8-last.tgz.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit8-last"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
for i in 1 2; do
  timeout 60 $BIN peak --device cuda:0 --no-save --json "$d/peak$i.json" > "$d/peak$i.txt" 2>&1; echo "peak $i exit $?"
  grep "matmul\|copy\|launch" "$d/peak$i.txt"
done
timeout 60 $BIN profile transformer --device cuda --dtype bfloat16 --synthetic --steps 5 --top 25 > "$d/profile-cpp.txt" 2>&1
echo "profile exit $?"; head -45 "$d/profile-cpp.txt"
timeout 90 python3 bench/python/profile_step.py --model transformer --dtype bfloat16 > "$d/profile-py.txt" 2>&1
echo "python profile exit $?"; cat "$d/profile-py.txt" | head -32
rm -f "$d/build.log"
(cd "$OUT" && tar czf visit8-last.tgz visit8-last && rm -rf visit8-last)
echo "total $(( $(date +%s) - t0 )) s"
