#!/usr/bin/env bash
# Tenth GPU visit (one H200), part `runs` (about 8 minutes): build the binary only, then five
# back-to-back `run --models mlp,cnn,transformer,resnet18,dcgan --devices cuda --budget 60s` from an
# EMPTY history (#11: the run-to-run prior gives the first runs an interval that covers later runs;
# 60 s instead of the default 4 min so that five runs fit one call, as in the seventh visit), one
# history database for the five, a 2 s monitor of load and GPU clocks in the background; then
# bert-base bfloat16 once, whose step queues more launches than the device's queue holds (its
# device-busy share was missing before). Part `again`: the same five runs from another empty history.
#   bash bench/device/visit-10.sh runs        bash bench/device/visit-10.sh again
set -uo pipefail
part=${1:-runs}
source bench/device/visit-setup.sh "visit10-$part"
( while true; do
    echo "$(date +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) | gpu $(nvidia-smi --query-gpu=clocks.sm,power.draw,utilization.gpu,pstate --format=csv,noheader)"
    sleep 2
  done ) > "$d/monitor.txt" 2>&1 &
mon=$!
for i in 1 2 3 4 5; do
  s=$(date +%s)
  COLUMNS=120 timeout 110 $BIN run --models mlp,cnn,transformer,resnet18,dcgan --devices cuda --budget 60s \
    --db "$d/history.db" --json "$d/run$i.json" > "$d/run$i.txt" 2> "$d/run$i.err"
  echo "run $i: exit $? in $(( $(date +%s) - s )) s"
done
kill $mon
python3 .device/coverage.py "$d"/run{1,2,3,4,5}.json > "$d/coverage.txt" 2>&1
cat "$d/coverage.txt"
python3 - "$d" <<'PY'
import json, sys, math
d = sys.argv[1]
for i in range(1, 6):
    run = json.load(open(f"{d}/run{i}.json"))
    parts = []
    for c in run["cases"]:
        s = c["stats"]; rr = c.get("run_to_run") or {}
        parts.append("%s %.4g ms [-%.0f/+%.0f%%] busy %s %s" % (
            c["workload"], s["median"] * 1e3, 100 * (1 - s["ci_low"] / s["median"]), 100 * (s["ci_high"] / s["median"] - 1),
            "%.2f" % c["device_time"]["busy_fraction"] if (c.get("device_time") or {}).get("busy_fraction") else "-",
            ("prior+%d" % rr.get("earlier_runs", 0)) if rr.get("prior_sd_log") else ("own %d" % rr.get("earlier_runs", 0)) if rr else "-"))
    print(f"run {i}: " + "; ".join(parts))
PY
if [[ $part == runs ]]; then
  timeout 120 $BIN run --models bert-base --devices cuda --dtype bfloat16 --rounds 1 --in-process-rounds \
    --max-time-per-case 25s --budget 30s --parity-steps 0 --no-save --json "$d/bert-bf16.json" > "$d/bert-bf16.txt" 2>&1
  echo "bert-base bf16: exit $?"
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['cases'][0]; print('bert-base bf16 median %.2f ms, busy %s, verdict %s' % (c['stats']['median']*1e3, (c.get('device_time') or {}).get('busy_fraction'), (c.get('utilisation') or {}).get('bound')))" "$d/bert-bf16.json"
fi
for f in "$d"/*.json; do gzip -9 "$f"; done
(cd "$OUT" && tar czf "visit10-$part.tgz" "visit10-$part" && rm -rf "visit10-$part")
echo "total $(( $(date +%s) - t0 )) s"
