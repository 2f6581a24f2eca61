#!/usr/bin/env bash
# Whole-step CUDA graphs on one CUDA GPU: `peak --quick` into a fresh history, then `run --graphs`
# of the five small and mid-size workloads in float32 and bfloat16 with those ceilings (each graphs
# case against its eager step with the speed-up's interval; every case's device-busy share,
# kernels a step, share of the ceiling and verdict), then the convolutional workloads as graphs
# without channels-last and cuDNN's benchmark mode (what accelbench's convolution settings give).
#   bash bench/gpu/graphs.sh OUT_DIR       (about 6 minutes on an H200)
# Writes peak.txt, graphs.json/.txt, nchw.json/.txt and history.db under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
timed "peak --quick" "$BIN" peak --device cuda:0 --quick --db "$OUT/history.db" > "$OUT/peak.txt" 2>&1
grep -E "^matmul" "$OUT/peak.txt"
timed "run --graphs" "$BIN" run --graphs --models mlp,cnn,transformer,resnet18,dcgan --dtype float32,bfloat16 \
  --devices cuda --budget 180s --no-progress --db "$OUT/history.db" --json "$OUT/graphs.json" \
  > "$OUT/graphs.txt" 2> "$OUT/graphs.err"
sed -n '/CUDA graphs against/,/^$/p' "$OUT/graphs.txt"
ACCELBENCH_CHANNELS_LAST=0 ACCELBENCH_CUDNN_BENCHMARK=0 timed "run --graphs, NCHW without cuDNN benchmark" \
  "$BIN" run --graphs --models cnn,resnet18,dcgan --dtype float32,bfloat16 --devices cuda --budget 100s \
  --no-progress --no-save --json "$OUT/nchw.json" > "$OUT/nchw.txt" 2> "$OUT/nchw.err"
"$PY" - "$OUT/graphs.json" "$OUT/nchw.json" <<'PY'
import json, sys
def cases(path):
    try:
        return {(c["workload"], c.get("dtype"), bool(c.get("graphs") or (c.get("spec") or {}).get("graphs"))): c
                for c in json.load(open(path))["cases"] if c.get("status", "ok") == "ok"}
    except (OSError, ValueError, KeyError) as e:
        print(path, "unreadable:", e)
        return {}
g, n = cases(sys.argv[1]), cases(sys.argv[2])
print(f"{'case':28} {'step':>10} {'busy':>5} {'kernels':>7} {'share':>6}  verdict   | NCHW, no benchmark")
for (w, dt, graphs), c in sorted(g.items()):
    u = c.get("utilisation") or {}
    busy = (c.get("device_time") or {}).get("busy_fraction")
    share = u.get("share_of_ceiling")
    other = n.get((w, dt, graphs))
    nchw = f"{1e3 * other['stats']['median']:.3f} ms" if other else ""
    print(f"{w + ('[graphs]' if graphs else '') + ' ' + str(dt):28} {1e3 * c['stats']['median']:8.3f}ms "
          f"{'-' if busy is None else f'{100 * busy:.0f}%':>5} {u.get('device_operations_per_step') or '-':>7} "
          f"{'-' if share is None else f'{100 * share:.1f}%':>6}  {u.get('bound') or '-':9} | {nchw}")
PY
echo "graphs: $(( $(date +%s) - T0 )) s"
