#!/usr/bin/env bash
# Seventh GPU visit (one H200), part `runs` (about 8 minutes): build without tests, then five
# back-to-back `run --models mlp,cnn,transformer,resnet18,dcgan --devices cuda --budget 60s` (#11's
# coverage check; 60 s instead of the default 4 min so that five runs fit one call), one history
# database for all five, with the host watched: bench/device/host_probe.py before and after each run
# (tiny-launch latency, a pure-Python loop, CPU clock) and a 2 s monitor (load, busiest processes,
# GPU clock and power) in the background. Tells a host that slows from a tool that slows.
# Part `own` (about 5 minutes): Hugging Face BERT exported and run on cuda (#13), bert-base quick.
#   bash bench/device/visit-7.sh runs        bash bench/device/visit-7.sh own
set -uo pipefail
part=${1:-runs}
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/visit7-$part"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg PYTHONUNBUFFERED=1
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
export ACCELBENCH_GIT_COMMIT=${ACCELBENCH_GIT_COMMIT:-$(cat .device/commit 2>/dev/null || echo unknown)}
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" accelbench
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
$BIN --version 2>&1 | head -2
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw,temperature.gpu,persistence_mode --format=csv,noheader
if [[ $part == runs ]]; then
  ( while true; do
      echo "$(date +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) | gpu $(nvidia-smi --query-gpu=clocks.sm,power.draw,utilization.gpu,pstate --format=csv,noheader) | top: $(ps -eo pcpu,comm --sort=-pcpu --no-headers | head -4 | tr -s ' ' | tr '\n' ';')"
      sleep 2
    done ) > "$d/monitor.txt" 2>&1 &
  mon=$!
  # SEED_DB: a history to start from (the runs of an earlier call), so that every run has earlier runs.
  [[ -n ${SEED_DB:-} ]] && cp "$SEED_DB" "$d/history.db"
  python3 bench/device/host_probe.py start | tee -a "$d/probes.txt"
  for i in 1 2 3 4 5; do
    s=$(date +%s)
    COLUMNS=120 $BIN run --models mlp,cnn,transformer,resnet18,dcgan --devices cuda --budget 60s \
      --db "$d/history.db" --json "$d/run$i.json" > "$d/run$i.txt" 2> "$d/run$i.err"
    echo "run $i: exit $? in $(( $(date +%s) - s )) s"
    python3 bench/device/host_probe.py "after run $i" | tee -a "$d/probes.txt"
  done
  kill $mon
  python3 .device/coverage.py "$d"/run{1,2,3,4,5}.json > "$d/coverage.txt" 2>&1
  cat "$d/coverage.txt"
else
  M=$(mktemp -d)
  common="--devices cuda --dtype float32,bfloat16 --synthetic --quick --rounds 1 --in-process-rounds --max-time-per-case 10s --budget 55s --parity-steps 0 --no-save"
  {
    timeout 60 python3 tools/export_model.py --file bench/device/own_model_factories.py --factory bert_base_classifier \
      --input 128:int64:0..30522,128:int64:1..2 --target classes:2 -o "$M/hf-bert.pt"
    timeout 75 $BIN run --models bert-base --model-file "$M/hf-bert.pt" $common --batch-size 32 --seq-len 128 --json "$d/bert.json"
    echo "exit $?"
  } > "$d/own.log" 2>&1
  rm -rf "$M"
  tail -c 4000 "$d/own.log"
  echo "== idle wake-ups: the cpuidle driver, then mlp alone with and without 4 busy-looping processes"
  cat /sys/devices/system/cpu/cpuidle/current_driver /sys/devices/system/cpu/cpuidle/current_governor 2>&1 | tr '\n' ' '; echo
  for rep in 1 2; do
    for spin in 0 4; do
      pids=()
      for k in $(seq 1 $spin); do python3 -c "while True: pass" & pids+=($!); done
      $BIN run --models mlp --devices cuda --budget 20s --no-save --json "$d/mlp-spin$spin-$rep.json" > "$d/mlp-spin$spin-$rep.txt" 2>&1
      for p in "${pids[@]}"; do kill $p; done
      python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['cases'][0]; print('spinners $spin rep $rep: mlp median %.3f ms, rounds %s, busy %.2f' % (c['stats']['median']*1e3, [round(r['median_s']*1e3,3) for r in c['rounds']], c['device_time']['busy_fraction'] or 0))" "$d/mlp-spin$spin-$rep.json"
    done
  done
fi
(cd "$OUT" && tar czf "visit7-$part.tgz" "visit7-$part" && rm -rf "visit7-$part")
echo "total $(( $(date +%s) - t0 )) s"
