#!/usr/bin/env bash
# The gpu suite alone (#16: run it in every visit): build accelbench and the test programs, then
# `ctest -L gpu`. Run from the repository root on the device machine with .device/ carried; about
# 2.5 minutes. Writes $OUT/gpu-suite/ctest-gpu.txt.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/gpu-suite"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench gpu_tests
echo "build took $(( $(date +%s) - t0 )) s"
build-device/accelbench --version
(cd build-device && ctest -L gpu --output-on-failure > "$d/ctest-gpu.txt" 2>&1; echo "ctest exit $?"; tail -22 "$d/ctest-gpu.txt")
rm -f "$d/build.log"
echo "total $(( $(date +%s) - t0 )) s"
