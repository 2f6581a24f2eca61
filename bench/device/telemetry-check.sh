#!/usr/bin/env bash
# One torch-free test binary on the GPU machine: unit_telemetry_tests (NVML read for real), with its
# full output. The configure step of .device/build-on-device.sh, then only that target (~1 min).
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
mkdir -p /tmp/deps
for f in .device/debs/*.deb; do dpkg -x "$f" /tmp/deps; done
find /tmp/deps -type l | while read -r l; do t=$(readlink "$l"); if [[ $t == /* && -e /tmp/deps$t ]]; then ln -sfn "/tmp/deps$t" "$l"; fi; done
torch_cmake=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
export CMAKE_PREFIX_PATH="$torch_cmake;/tmp/deps/usr" LD_LIBRARY_PATH="/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" CPATH="/tmp/deps/usr/include:${CPATH:-}"
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$CMAKE_PREFIX_PATH" > "$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
cmake --build build-device -j "$(nproc)" --target unit_telemetry_tests > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
build-device/tests/unit_telemetry_tests --gtest_filter='ThisMachine.*' > "$OUT/this-machine.txt" 2>&1
echo "exit $?"; cat "$OUT/this-machine.txt" | cut -c1-300
