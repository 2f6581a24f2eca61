#!/usr/bin/env bash
# The device's ceilings (`accelbench peak`) for cuda:0 and the host's CPU in several processes,
# alternating, with the GPU's clocks, power and throttle reasons sampled at 10 Hz meanwhile, then the
# same ceilings measured from Python (bench/python/peak_reference.py). Prints, per ceiling, each
# process's best sample (the ceiling) and median and their spread (largest / smallest - 1): whether
# a ceiling agrees between processes.
#   bash bench/gpu/peak.sh OUT_DIR [PROCESSES]     (default 2: about 5 minutes on an H200)
# Writes peak-cuda-N.json/.txt, peak-cpu-N.json/.txt, clocks.csv, python.json/.txt under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
n=${2:-2}
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 100 > "$OUT/clocks.csv" 2>&1 &
smi=$!
for i in $(seq 1 "$n"); do
  timed "peak cpu $i" timeout 200 "$BIN" peak --device cpu --no-save --json "$OUT/peak-cpu-$i.json" > "$OUT/peak-cpu-$i.txt" 2>&1
  timed "peak cuda:0 $i" timeout 200 "$BIN" peak --device cuda:0 --no-save --json "$OUT/peak-cuda-$i.json" \
    > "$OUT/peak-cuda-$i.txt" 2>&1
done
kill "$smi" 2>/dev/null
timed "python peak_reference" timeout 200 "$PY" bench/python/peak_reference.py --json "$OUT/python.json" > "$OUT/python.txt" 2>&1
"$PY" - "$OUT" "$n" <<'PY'
import collections, csv, glob, json, sys
out, n = sys.argv[1], int(sys.argv[2])
for dev in ("cuda", "cpu"):
    runs = []
    for i in range(1, n + 1):
        try:
            runs.append(json.load(open(f"{out}/peak-{dev}-{i}.json"))["devices"][0]["ceilings"])
        except (OSError, ValueError, KeyError, IndexError):
            print(f"peak-{dev}-{i}.json: missing")
    if not runs:
        continue
    print(f"{dev}: ceiling, best sample per process (spread), median per process (spread)")
    for row in zip(*runs):
        if not all("median" in c for c in row):
            continue
        best = [c.get("best", c["median"]) for c in row]
        med = [c["median"] for c in row]
        spread = lambda xs: 100 * (max(xs) / min(xs) - 1)
        fmt = lambda xs: " / ".join(f"{x:.4g}" for x in xs)
        print(f"  {row[0]['kind'] + ' ' + row[0]['variant']:30} {row[0]['unit']:8} best {fmt(best)} ({spread(best):.1f}%)"
              f"  median {fmt(med)} ({spread(med):.1f}%)")
rows = [r for r in csv.reader(open(f"{out}/clocks.csv"))][1:]
rows = [r for r in rows if len(r) > 4]
if rows:
    watts = [float(r[2].split()[0]) for r in rows if "W" in r[2]]
    print("SM clock readings:", collections.Counter(r[1].strip() for r in rows).most_common(4),
          f"power max {max(watts):.0f} W" if watts else "")
    print("throttle reasons:", collections.Counter(r[4].strip() for r in rows).most_common(4))
PY
echo "== Python"; tail -15 "$OUT/python.txt"
echo "peak: $(( $(date +%s) - T0 )) s"
