# Sourced on the GPU machine by the bench/device scripts, from the repository root with .device/
# carried: .device/build-on-device.sh's set-up (the carried Debian packages into /tmp/deps, the
# library path for running what it builds) and configure step, then only the targets named, into
# build-device/. Ends the calling script (exit 1, the log's tail) when the build fails.
#   source bench/device/build-targets.sh LOG TARGET...
build_log=$1
shift
mkdir -p /tmp/deps
for f in .device/debs/*.deb; do dpkg -x "$f" /tmp/deps; done
find /tmp/deps -type l | while read -r l; do t=$(readlink "$l"); if [[ $t == /* && -e /tmp/deps$t ]]; then ln -sfn "/tmp/deps$t" "$l"; fi; done
torch_cmake=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
export CMAKE_PREFIX_PATH="$torch_cmake;/tmp/deps/usr" LD_LIBRARY_PATH="/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" CPATH="/tmp/deps/usr/include:${CPATH:-}"
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$CMAKE_PREFIX_PATH" > "$build_log" 2>&1 \
  && cmake --build build-device -j "$(nproc)" --target "$@" >> "$build_log" 2>&1 || { tail -30 "$build_log"; exit 1; }
