#!/usr/bin/env bash
# Issue #16 on the GPU machine: the gpu suite, the mended tests where they meet real hardware (NVML
# read for real, the CUDA backend's status, the CPU's peak RSS) and the bad-input matrix. Assumes the
# project is already built there (build-device/accelbench, build-device/tests/*). About 3 minutes.
# Writes $OUT/mended-tests/log.txt; read the summary lines at its end.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
dir="$OUT/mended-tests"
mkdir -p "$dir"
T=build-device/tests
{
  echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
  echo "== ctest -L gpu"
  (cd build-device && ctest -L gpu --output-on-failure 2>&1 | tail -25)
  echo "== mended tests on this machine"
  "$T/unit_telemetry_tests" --gtest_filter='ThisMachine.*' 2>&1 | tail -15
  "$T/unit_torch_tests" --gtest_filter='Devices.*:Runner.PhasesAreRecordedPerSample' 2>&1 | tail -15
  "$T/unit_core_tests" --gtest_filter='Advisor.*' --gtest_brief=1 2>&1 | tail -4
  echo "== bad-input matrix"
  timeout 240 python3 tests/e2e/bad_input_matrix.py build-device/accelbench -j 16 2>&1 | tail -30
} >"$dir/log.txt" 2>&1
tail -40 "$dir/log.txt"
