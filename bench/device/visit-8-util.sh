#!/usr/bin/env bash
# Eighth GPU visit, utilisation (about 6 minutes): `peak` on cuda:0 (quick) into a history, then
# `run --graphs` of all six workloads in bfloat16 with that history, so that every case, eager and
# graphs, gets its share of the measured bfloat16 matmul ceiling and its verdict (#12).
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit8-util"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
$BIN peak --device cuda:0 --quick --db "$d/history.db" --json "$d/peak.json" > "$d/peak.txt" 2>&1; echo "peak exit $?"
grep -i "bfloat16\|float32 " "$d/peak.txt" | head -4
s=$(date +%s)
COLUMNS=160 $BIN run --graphs --models mlp,cnn,transformer,resnet18,bert-base,dcgan --dtype bfloat16 --devices cuda \
  --budget 220s --rounds 2 --db "$d/history.db" --json "$d/run-util.json" > "$d/run-util.txt" 2> "$d/run-util.err"
echo "run: exit $? in $(( $(date +%s) - s )) s"
sed -n '/^model  *device  *dtype  *notes/,/^$/p' "$d/run-util.txt"
rm -f "$d/build.log"
(cd "$OUT" && tar czf visit8-util.tgz visit8-util && rm -rf visit8-util)
echo "total $(( $(date +%s) - t0 )) s"
