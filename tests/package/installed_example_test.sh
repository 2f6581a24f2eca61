#!/usr/bin/env bash
# The installed package: `cmake --install` into a fresh prefix, examples/custom_workload
# configured with find_package(accelbench) and built against it, and its program run: the workload
# it registers (tiny-mlp) trains on the CPU in two rounds, each in a fresh child process of the
# program itself, and the JSON says so. Usage: installed_example_test.sh BUILD_DIR SOURCE_DIR PYTHON
set -euo pipefail
build=$1 src=$2 py=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --component dev --prefix "$tmp/prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
test -f "$tmp/prefix/include/accelbench/accelbench.h"
cmake -S "$src/examples/custom_workload" -B "$tmp/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/example" >"$tmp/build.log" 2>&1 || { tail -40 "$tmp/build.log"; exit 1; }
bin="$tmp/example/my_bench"
# Unknown models list the registered one beside the built-ins (exit 2, one line).
set +e
msg=$("$bin" run --models nope --devices cpu 2>&1 >/dev/null); rc=$?
set -e
[[ $rc == 2 && $msg == *"tiny-mlp"* ]] || { echo "expected exit 2 naming tiny-mlp, got $rc: $msg"; exit 1; }
"$bin" run --models tiny-mlp --devices cpu --quick --rounds 2 --parity-steps 0 --no-save --no-telemetry --no-progress \
  --json "$tmp/run.json"
"$py" - "$tmp/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
(case,) = run["cases"]
assert case["workload"] == "tiny-mlp", case["workload"]
assert case["status"] == "ok", case.get("error")
assert case["parameter_count"] == 64 * 32 + 32 + 32 * 4 + 4, case["parameter_count"]
assert case["loss_after"] < case["loss_before"], (case["loss_before"], case["loss_after"])
print(f"tiny-mlp: loss {case['loss_before']:.4f} -> {case['loss_after']:.4f}, {case['samples_per_s']:.0f} samples/s")
PY
echo "installed package example: ok"
