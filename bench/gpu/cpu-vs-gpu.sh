#!/usr/bin/env bash
# The article's question on a CUDA machine: how much faster each workload trains on the GPU than on
# the host's CPU. `run` of the article's three models (mlp, cnn, transformer) and of its real cases
# (resnet18, bert-base, dcgan) on the CPU and cuda:0 (speed-ups with their intervals, numerical
# parity after 5 steps), then energy per step and per epoch on the GPU (NVML's energy counter
# beside the sampled power) for the transformer and bert-base in float32 and bfloat16.
#   bash bench/gpu/cpu-vs-gpu.sh OUT_DIR       (about 9 minutes on an H200 with 16 host cores)
# Writes article.json/.txt, real-cases.json/.txt, energy.json/.txt under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
timed "run: mlp, cnn, transformer on cpu and cuda:0" timeout 300 "$BIN" run --devices cpu,cuda:0 --budget 3m \
  --no-progress --no-save --json "$OUT/article.json" > "$OUT/article.txt" 2> "$OUT/article.err"
timed "run: resnet18, bert-base, dcgan on cpu and cuda:0" timeout 300 "$BIN" run --models resnet18,bert-base,dcgan \
  --devices cpu,cuda:0 --budget 3m30s --no-progress --no-save --json "$OUT/real-cases.json" > "$OUT/real-cases.txt" \
  2> "$OUT/real-cases.err"
timed "energy: transformer, bert-base on cuda:0" timeout 150 "$BIN" run --models transformer,bert-base --devices cuda:0 \
  --dtype float32,bfloat16 --budget 90s --epochs 3 --no-progress --no-save --json "$OUT/energy.json" \
  > "$OUT/energy.txt" 2> "$OUT/energy.err"
"$PY" - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
for name in ("article", "real-cases"):
    try:
        doc = json.load(open(f"{out}/{name}.json"))
    except (OSError, ValueError) as e:
        print(name, "unreadable:", e)
        continue
    for s in doc.get("speedups", []):
        print(f"{name}: {s.get('workload')} {s.get('dtype', '')} {s.get('device')} over cpu: {s.get('ratio', 0):.2f}x "
              f"[{s.get('ci_low', 0):.2f}, {s.get('ci_high', 0):.2f}]")
try:
    cases = json.load(open(f"{out}/energy.json"))["cases"]
except (OSError, ValueError, KeyError) as e:
    cases = []
    print("energy unreadable:", e)
for c in cases:
    t = c.get("telemetry") or {}
    nvml = [x for x in t.get("channels", []) if str(x.get("source", "")).startswith("nvml")]
    e, i = (nvml[0].get("energy_counter_j"), nvml[0].get("power_integral_j")) if nvml else (None, None)
    j = (t.get("energy_per_step_j") or {}).get("value")
    num = lambda x, f: "-" if x is None else format(x, f)  # noqa: E731
    print(f"energy: {c['workload']} {c['dtype']}: step {1e3 * c['stats']['median']:.2f} ms, {num(j, '.2f')} J/step, "
          f"counter {num(e, '.1f')} J, power integral {num(i, '.1f')} J" + (f" ({i / e:.3f} of the counter)" if e and i else ""))
PY
echo "cpu-vs-gpu: $(( $(date +%s) - T0 )) s"
