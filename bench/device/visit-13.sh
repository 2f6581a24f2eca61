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
# Part `confirm` (about 6 minutes): `ctest -L gpu`; then the new default (N) with --overhead in more
# processes and cases: transformer bfloat16 x4, resnet18 bfloat16 x3, bert-base bfloat16 x2,
# transformer and resnet18 float32 x1.
#   bash bench/device/visit-13.sh confirm
# Part `peak` (about 8 minutes): #14, the bucket copy below autograd's dispatch (N2) with --overhead,
# resnet18 bfloat16 x4 and transformer bfloat16 x2; #12, `peak --device cpu` x3 and `peak --device
# cuda:0` x2, alternating (the CPU's copy now on huge pages); then `run` against `scale --gpus 1`
# (R, S) in four rotating rounds, transformer bfloat16 (bench/device/ws1-variants.sh).
#   bash bench/device/visit-13.sh peak
# Part `final` (about 4 minutes), #14 with the code as committed: `ctest -R Scale` (gpu_tests);
# --overhead for transformer bfloat16 x4, resnet18 bfloat16 x2, bert-base bfloat16 x2, transformer
# and resnet18 float32 x1, bert-base float32 x1.
#   bash bench/device/visit-13.sh final
set -uo pipefail
part=${1:-ws1}
export TARGETS="accelbench gpu_tests"
source bench/device/visit-setup.sh "visit13-$part"
# One `scale --gpus 1 --overhead` process: overhead_run FILE-STEM MODEL DTYPE [FLAGS...]
overhead_run() {
  local stem=$1 f="$d/$1" m=$2 p=$3
  shift 3
  timeout 100 $BIN scale --model $m --dtype $p --gpus 1 --batch-size 64 --max-time 10 --overhead "$@" \
    --json "$f.json" > "$f.txt" 2>&1 || echo "$stem failed"
  echo "$stem at $(( $(date +%s) - t0 )) s: $(grep 'data-parallel step' "$f.txt")"
}
if [[ $part == ws1 ]]; then
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag > "$d/thp.txt" 2>&1
  for i in 1 2; do python3 bench/device/cpu_copy_probe.py "probe $i" 2>&1 | tee -a "$d/cpu-copy-probe.txt"; done
  (cd build-device && timeout 150 ctest -R ScaleWorldSizeOne --output-on-failure > "$d/ctest-ws1.txt" 2>&1; echo "ctest exit $?")
  tail -3 "$d/ctest-ws1.txt"
  one() {  # variant model round
    if [[ $1 == O ]]; then overhead_run "ws1-$1-$2-$3" $2 bfloat16 --bucket-mb 25; else overhead_run "ws1-$1-$2-$3" $2 bfloat16; fi
  }
  for r in 1 2 3; do
    if (( r % 2 )); then one N transformer $r; one O transformer $r; else one O transformer $r; one N transformer $r; fi
  done
  one N resnet18 1; one O resnet18 1
  for i in 3 4; do python3 bench/device/cpu_copy_probe.py "probe $i" 2>&1 | tee -a "$d/cpu-copy-probe.txt"; done
  python3 bench/device/ws1_stats.py overhead "$d" 'ws1-*.json' | tee "$d/overhead-summary.txt"
fi
if [[ $part == confirm ]]; then
  (cd build-device && timeout 200 ctest -L gpu > "$d/ctest-gpu.txt" 2>&1; echo "ctest -L gpu exit $?")
  tail -4 "$d/ctest-gpu.txt"
  one() { overhead_run "ws1-N-$1-$2-$3" $1 $2; }  # model dtype round
  for r in 1 2; do one transformer bfloat16 $r; one resnet18 bfloat16 $r; one bert-base bfloat16 $r; done
  one transformer bfloat16 3; one resnet18 bfloat16 3; one transformer bfloat16 4
  one transformer float32 1; one resnet18 float32 1
  python3 bench/device/ws1_stats.py overhead "$d" 'ws1-*.json' | tee "$d/overhead-summary.txt"
fi
if [[ $part == peak ]]; then
  one() { overhead_run "ws1-N2-$1-$2-$3" $1 $2; }  # model dtype round
  for r in 1 2; do one resnet18 bfloat16 $r; one transformer bfloat16 $r; one resnet18 bfloat16 $((r + 2)); done
  python3 bench/device/ws1_stats.py overhead "$d" 'ws1-*.json' | tee "$d/overhead-summary.txt"
  for i in 1 2 3; do
    timeout 120 $BIN peak --device cpu --no-save --json "$d/peak-cpu-$i.json" > "$d/peak-cpu-$i.txt" 2>&1
    echo "peak cpu $i: exit $? at $(( $(date +%s) - t0 )) s"
    if (( i < 3 )); then
      timeout 150 $BIN peak --device cuda:0 --no-save --json "$d/peak-cuda-$i.json" > "$d/peak-cuda-$i.txt" 2>&1
      echo "peak cuda $i: exit $? at $(( $(date +%s) - t0 )) s"
    fi
  done
  grep -h -E "^(matmul|copy|launch|host|device)" "$d"/peak-*.txt | head -60
  BIN=$BIN OUT=$d CASES="transformer:bfloat16" ROUNDS=4 VARIANTS="R S" bash bench/device/ws1-variants.sh
fi
if [[ $part == final ]]; then
  (cd build-device && timeout 100 ctest -R Scale --output-on-failure > "$d/ctest-scale.txt" 2>&1; echo "ctest -R Scale exit $?")
  tail -3 "$d/ctest-scale.txt"
  one() { overhead_run "ws1-N3-$1-$2-$3" $1 $2; }  # model dtype round
  for r in 1 2; do one transformer bfloat16 $r; one resnet18 bfloat16 $r; one bert-base bfloat16 $r; done
  one transformer bfloat16 3; one transformer float32 1; one transformer bfloat16 4; one resnet18 float32 1
  one bert-base float32 1
  python3 bench/device/ws1_stats.py overhead "$d" 'ws1-*.json' | tee "$d/overhead-summary.txt"
fi
(cd "$OUT" && tar czf "visit13-$part.tgz" "visit13-$part" && rm -rf "visit13-$part")
echo "visit-13 $part total $(( $(date +%s) - t0 )) s"
