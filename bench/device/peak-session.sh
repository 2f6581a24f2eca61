#!/usr/bin/env bash
# Issue #12 deliverable 1 on the GPU machine: `accelbench peak` for cuda:0 twice (agreement between
# two processes) and for the CPU, doctor's ceilings lines, and the Python reference
# (bench/python/peak_reference.py) for the same figures. Run from the repository root with .device/
# carried; about 4 minutes. Writes $OUT/peak/.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/peak"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
if [[ -z ${BIN:-} ]]; then
  source bench/device/build-targets.sh "$d/build.log" accelbench
  BIN=./build-device/accelbench
  echo "build took $(( $(date +%s) - t0 )) s"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
for i in 1 2; do
  $BIN peak --device cuda:0 --no-progress --json "$d/peak-cuda-$i.json" > "$d/peak-cuda-$i.txt" 2>&1; echo "peak cuda $i: exit $?"
  cat "$d/peak-cuda-$i.txt"
done
$BIN peak --device cpu --no-progress --json "$d/peak-cpu.json" > "$d/peak-cpu.txt" 2>&1; echo "peak cpu: exit $?"
cat "$d/peak-cpu.txt"
COLUMNS=160 $BIN doctor 2>&1 | grep ceilings
echo "== Python reference"
timeout 150 python3 bench/python/peak_reference.py --json "$d/python.json" 2>&1 | tee "$d/python.txt"
python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
a, b = (json.load(open(f"{d}/peak-cuda-{i}.json"))["devices"][0]["ceilings"] for i in (1, 2))
print("ceiling                              run 1          run 2     2/1")
for x, y in zip(a, b):
    if "median" in x and "median" in y:
        print(f"{x['kind'] + ' ' + x['variant']:32} {x['median']:12.4g} {y['median']:12.4g}  {y['median'] / x['median']:.4f}")
PY
echo "total $(( $(date +%s) - t0 )) s"
