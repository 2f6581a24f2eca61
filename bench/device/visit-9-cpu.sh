#!/usr/bin/env bash
# Ninth GPU visit, last call (about 3 minutes): `peak --device cpu` twice on the H200 machine's CPU
# (issue #12 asks for the CPU's ceilings beside cuda:0's).
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit9-cpu"
mkdir -p "$d"
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench
echo "build took $(( $(date +%s) - t0 )) s"
for i in 1 2; do
  s=$(date +%s)
  ./build-device/accelbench peak --device cpu --no-save --json "$d/peak-cpu-$i.json" > "$d/peak-cpu-$i.txt" 2>&1
  echo "peak cpu $i: exit $? in $(( $(date +%s) - s )) s"
  sed -n '/^ceiling/,$p' "$d/peak-cpu-$i.txt"
done
rm -f "$d/build.log"
echo "total $(( $(date +%s) - t0 )) s"
