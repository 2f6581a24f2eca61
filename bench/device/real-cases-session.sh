#!/usr/bin/env bash
# One GPU-machine visit for the real cases (issue 3) and energy per step (issue 5). Run from the
# repository root on the device machine with .device/ carried; prepare here with
#   git archive HEAD -o .device/src.tar; git rev-parse --short=12 HEAD > .device/commit
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
mkdir -p "$OUT"
log="$OUT/session.log"
src=/tmp/accelbench-src
rm -rf "$src" && mkdir -p "$src"
tar -xf .device/src.tar -C "$src"
cp -r .device "$src/"
cd "$src"
[[ -f .device/commit ]] && export ACCELBENCH_GIT_COMMIT=$(cat .device/commit)
{
  echo "== $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv
  t0=$(date +%s); bash .device/build-on-device.sh -DACCELBENCH_BUILD_TESTS=OFF || { echo BUILD FAILED; exit 1; }
  echo "build took $(( $(date +%s) - t0 )) s"
} >"$log" 2>&1 || { cat "$log"; exit 1; }
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
B=./build-device/accelbench
{
  echo "== real cases: cpu vs cuda (fp32, batch 64)"
  timeout 260 $B run --no-progress --no-save --models resnet18,bert-base,dcgan --devices cpu,cuda --budget 3m30s \
    --json "$OUT/real-cases.json"
  echo "== energy: transformer and bert-base on cuda, fp32 and bf16, with telemetry"
  timeout 120 $B run --no-progress --no-save --models transformer,bert-base --devices cuda --dtype float32,bfloat16 \
    --budget 80s --epochs 3 --json "$OUT/energy.json"
  python3 - "$OUT/energy.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    t = c.get("telemetry") or {}
    ch = [x for x in t.get("channels", []) if str(x.get("source", "")).startswith("nvml")]
    n = ch[0] if ch else {}
    e, i = n.get("energy_counter_j"), n.get("power_integral_j")
    print(c["workload"], c["dtype"], "median step ms %.3f" % (c["stats"]["median"] * 1e3),
          "J/step", (t.get("energy_per_step_j") or {}).get("value"), "counter J", e, "integral J", i,
          "ratio", (i / e if e and i else None), "throttled", t.get("throttled_samples"), "/", t.get("samples"))
PY
  echo "== data pipeline on cuda: resnet18 with 0 and 4 loader workers"
  timeout 60 $B run --no-progress --no-save --models resnet18 --devices cuda --workers 0 --quick --json "$OUT/pipeline-w0.json" | grep -E "resnet18"
  timeout 60 $B run --no-progress --no-save --models resnet18 --devices cuda --workers 4 --quick --json "$OUT/pipeline-w4.json" | grep -E "resnet18"
  echo "== python eager references on cuda"
  timeout 150 python3 bench/python/real_cases.py --device cuda --batch-size 64 --max-time 15 --json "$OUT/python-real.json" --quiet
  echo "== C++ / Python"
  python3 bench/python/compare_cpp_python.py "$OUT/real-cases.json" "$OUT/python-real.json"
} >>"$log" 2>&1
tail -c 11500 "$log"
