#!/usr/bin/env bash
# Issue #12 deliverable 1 on the GPU machine: `accelbench peak` for cuda:0 twice (agreement between
# two processes) and for the CPU, doctor's ceilings lines, and the Python reference
# (bench/python/peak_reference.py) for the same figures. Run from the repository root with .device/
# carried; about 6 minutes. Then (part `run`) the six workloads in float32 and bfloat16 on cuda:0 with
# those ceilings in the history: each case's utilisation and verdict. Writes $OUT/peak/.
set -uo pipefail
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/peak"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg
t0=$(date +%s)
if [[ -z ${BIN:-} ]]; then
  source bench/device/build-targets.sh "$d/build.log" accelbench
  BIN=./build-device/accelbench
  echo "build took $(( $(date +%s) - t0 )) s"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 > "$d/clocks.csv" 2>&1 &
smi=$!
for i in 1 2; do
  $BIN peak --device cuda:0 --no-progress --json "$d/peak-cuda-$i.json" > "$d/peak-cuda-$i.txt" 2>&1; echo "peak cuda $i: exit $?"
  cat "$d/peak-cuda-$i.txt"
done
kill $smi
python3 - "$d/clocks.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1]))][1:]
clk = collections.Counter(r[1].strip() for r in rows if len(r) > 4)
pw = [float(r[2].split()[0]) for r in rows if len(r) > 4 and 'W' in r[2]]
print("SM clocks during peak (readings):", clk.most_common(6), "power max %.0f W" % max(pw))
print("throttle reasons seen:", collections.Counter(r[4].strip() for r in rows if len(r) > 4).most_common(4))
PY
$BIN peak --device cpu --no-progress --json "$d/peak-cpu.json" > "$d/peak-cpu.txt" 2>&1; echo "peak cpu: exit $?"
cat "$d/peak-cpu.txt"
COLUMNS=160 $BIN doctor 2>&1 | grep ceilings
echo "== Python reference"
timeout 150 python3 bench/python/peak_reference.py --json "$d/python.json" 2>&1 | tee "$d/python.txt"
python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
a, b = (json.load(open(f"{d}/peak-cuda-{i}.json"))["devices"][0]["ceilings"] for i in (1, 2))
print("ceiling                              run 1          run 2     2/1")
for x, y in zip(a, b):
    if "median" in x and "median" in y:
        print(f"{x['kind'] + ' ' + x['variant']:32} {x['median']:12.4g} {y['median']:12.4g}  {y['median'] / x['median']:.4f}")
PY
if [[ ${1:-} == run ]]; then
  echo "== six workloads, float32 and bfloat16, with the ceilings in the history"
  timeout 330 $BIN run --models mlp,cnn,transformer,resnet18,bert-base,dcgan --devices cuda:0 --dtype float32,bfloat16 \
    --budget 4m --no-progress --json "$d/run-six.json" > "$d/run-six.txt" 2>&1; echo "run: exit $?"
  python3 - "$d/run-six.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    u = c.get("utilisation", {})
    busy = (c.get("device_time") or {}).get("busy_fraction")
    share = u.get("share_of_ceiling")
    print(f"{c['workload']:12} {c['dtype']:9} {1e3 * c['stats']['median']:9.3f} ms  {c['achieved_flops_per_s'] / 1e12:8.2f} TFLOP/s  "
          f"share {share if share is None else round(100 * share, 1)}%  busy {busy if busy is None else round(100 * busy)}%  {u.get('bound')}: {u.get('evidence')}")
PY
fi
echo "total $(( $(date +%s) - t0 )) s"
