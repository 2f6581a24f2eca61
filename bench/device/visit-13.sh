#!/usr/bin/env bash
# Thirteenth GPU visit (one H200).
# Part `ws1` (about 7 minutes), issue #14's one-GPU item: at world size 1 `scale` now puts every
# gradient in one bucket, all-reduced after the backward pass (no hooks; N), where before it used
# DDP's 25 MB buckets launched from the hooks (O, still what `--bucket-mb 25` gives). Both with
# --overhead (a sample of the same step without data parallelism beside each sample, in one
# process), rotating: transformer bfloat16 three rounds, resnet18 bfloat16 one; `ctest -R
# ScaleWorldSizeOne`. Issue #12: bench/device/cpu_copy_probe.py in four processes (why the CPU's
# copy differs between processes: huge pages?).
#   bash bench/device/visit-13.sh ws1
set -uo pipefail
part=${1:-ws1}
export TARGETS="accelbench gpu_tests"
source bench/device/visit-setup.sh "visit13-$part"
if [[ $part == ws1 ]]; then
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag > "$d/thp.txt" 2>&1
  for i in 1 2; do python3 bench/device/cpu_copy_probe.py "probe $i" 2>&1 | tee -a "$d/cpu-copy-probe.txt"; done
  (cd build-device && timeout 150 ctest -R ScaleWorldSizeOne --output-on-failure > "$d/ctest-ws1.txt" 2>&1; echo "ctest exit $?")
  tail -3 "$d/ctest-ws1.txt"
  one() {  # variant model round
    local f="$d/ws1-$1-$2-$3" extra=""
    [[ $1 == O ]] && extra="--bucket-mb 25"
    timeout 100 $BIN scale --model $2 --dtype bfloat16 --gpus 1 --batch-size 64 --max-time 10 --overhead $extra \
      --json "$f.json" > "$f.txt" 2>&1 || echo "$1 $2 $3 failed"
    echo "$1 $2 $3 at $(( $(date +%s) - t0 )) s: $(grep 'data-parallel step' "$f.txt")"
  }
  for r in 1 2 3; do
    if (( r % 2 )); then one N transformer $r; one O transformer $r; else one O transformer $r; one N transformer $r; fi
  done
  one N resnet18 1; one O resnet18 1
  for i in 3 4; do python3 bench/device/cpu_copy_probe.py "probe $i" 2>&1 | tee -a "$d/cpu-copy-probe.txt"; done
  python3 bench/device/ws1_stats.py overhead "$d" 'ws1-*.json' | tee "$d/overhead-summary.txt"
fi
(cd "$OUT" && tar czf "visit13-$part.tgz" "visit13-$part" && rm -rf "visit13-$part")
echo "visit-13 $part total $(( $(date +%s) - t0 )) s"
