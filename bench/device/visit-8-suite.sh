#!/usr/bin/env bash
# Eighth GPU visit, last call (about 4 minutes): the gpu suite through ctest (each test in its own
# process, as CI's labels run it; the new Gpu.Graphs* among them), then `sweep batch --graphs` on
# the mlp (the sweeps take --graphs). Writes $OUT/visit8-suite.tgz.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit8-suite"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench gpu_tests
echo "build took $(( $(date +%s) - t0 )) s"
(cd build-device && ctest -L gpu --output-on-failure > "$d/ctest-gpu.txt" 2>&1; echo "ctest exit $?"; tail -24 "$d/ctest-gpu.txt")
grep -E "  (mlp|refusal)" "$d/ctest-gpu.txt"
s=$(date +%s)
COLUMNS=140 ./build-device/accelbench sweep batch --model mlp --device cuda --graphs --quick --no-save \
  --json "$d/sweep-batch-graphs.json" > "$d/sweep-batch-graphs.txt" 2>&1
echo "sweep batch --graphs: exit $? in $(( $(date +%s) - s )) s"
head -30 "$d/sweep-batch-graphs.txt"
(cd "$OUT" && tar czf visit8-suite.tgz visit8-suite && rm -rf visit8-suite)
echo "total $(( $(date +%s) - t0 )) s"
