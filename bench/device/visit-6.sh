#!/usr/bin/env bash
# Sixth GPU visit (one H200). Part 1 (about 6 minutes): build, `ctest -L gpu` (#16), the NVML test
# on real hardware, `doctor` on a quiet GPU and beside a process that keeps the GPU busy (#15), then
# world size 1 against `run` for transformer and bert-base bfloat16 (#14, bench/device/ws1-match.sh).
# Part 2 (about 6 minutes): build, `ctest -L gpu` again (after the out-of-memory sweep test's fix),
# the same pairs for resnet18 float32 and bfloat16 and transformer bfloat16 again.
# Run from the repository root on the device machine with .device/ carried:
#   bash bench/device/visit-6.sh 1      bash bench/device/visit-6.sh 2
set -uo pipefail
part=${1:-1}
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit6-$part"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg PYTHONUNBUFFERED=1
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench gpu_tests unit_telemetry_tests
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
$BIN --version 2>&1 | head -2
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
if [[ $part == 1 ]]; then
  echo "== ctest -L gpu"
  (cd build-device && ctest -L gpu --output-on-failure > "$d/ctest-gpu.txt" 2>&1; echo "   exit $?"; tail -20 "$d/ctest-gpu.txt")
  echo "== ThisMachine (NVML read for real)"
  build-device/tests/unit_telemetry_tests --gtest_filter='ThisMachine.*' > "$d/this-machine.txt" 2>&1; echo "   exit $?"
  grep -E "^\[ +(OK|FAILED|SKIPPED) " "$d/this-machine.txt"
  echo "== doctor, quiet GPU"
  COLUMNS=100 $BIN doctor > "$d/doctor-quiet.txt" 2>&1; echo "   exit $?"; cat "$d/doctor-quiet.txt"
  echo "== doctor beside a process keeping the GPU busy"
  python3 -c "
import torch, time
a = torch.randn(8192, 8192, device='cuda'); t = time.time()
while time.time() - t < 25: a = (a @ a).clamp_(-1, 1)
torch.cuda.synchronize()" > "$d/burner.txt" 2>&1 &
  burner=$!
  sleep 8
  COLUMNS=100 $BIN doctor > "$d/doctor-busy.txt" 2>&1; echo "   exit $?"; cat "$d/doctor-busy.txt"
  wait $burner
  echo "== world size 1 against run (three interleaved pairs a case)"
  CASES="transformer:bfloat16 bert-base:bfloat16" BIN=$BIN bash bench/device/ws1-match.sh
else
  echo "== ctest -L gpu"
  (cd build-device && ctest -L gpu --output-on-failure > "$d/ctest-gpu.txt" 2>&1; echo "   exit $?"; tail -20 "$d/ctest-gpu.txt")
  echo "== world size 1 against run (three interleaved pairs a case)"
  CASES="resnet18:float32 resnet18:bfloat16 transformer:bfloat16" BIN=$BIN bash bench/device/ws1-match.sh
fi
(cd "$OUT" && tar czf "visit6-$part.tgz" "visit6-$part" && rm -rf "visit6-$part")
echo "total $(( $(date +%s) - t0 )) s"
