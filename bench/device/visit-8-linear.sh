#!/usr/bin/env bash
# Eighth GPU visit, a last check (about 2.5 minutes): the transformer in bfloat16, eager and graphs,
# after its linear layers moved to at::linear (one addmm) and its q/k/v to unbind
# (src/workloads/fused_linear.h). Writes $OUT/visit8-linear.tgz.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit8-linear"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench
echo "build took $(( $(date +%s) - t0 )) s"
timeout 70 ./build-device/accelbench run --graphs --models transformer --dtype bfloat16 --devices cuda --budget 40s \
  --rounds 2 --no-save --json "$d/transformer.json" > "$d/transformer.txt" 2>&1; echo "run exit $?"
sed -n '/CUDA graphs against/,/^$/p' "$d/transformer.txt"
rm -f "$d/build.log"
(cd "$OUT" && tar czf visit8-linear.tgz visit8-linear && rm -rf visit8-linear)
echo "total $(( $(date +%s) - t0 )) s"
