#!/usr/bin/env bash
# Twelfth GPU visit (one H200), issue #14's one-GPU item: does world size 1 through NCCL match
# `run`'s step? Part `overhead` (about 7 minutes):
# - `ctest -R ScaleWorldSizeOne` (gpu_tests: the three layouts, --overhead's JSON);
# - `scale --gpus 1 --overhead` for transformer bfloat16 in three processes (10 s of sampling each):
#   the data-parallel step against the same step without data parallelism, a sample of each in
#   turn in one process, so that the host's drift (8.5-18 ms within seconds in visit 11) cancels;
#   then resnet18 bfloat16 and transformer float32, two processes each;
# - `run` against `scale --gpus 1` (R, S) for transformer bfloat16 in six more rotating rounds
#   (bench/device/ws1-variants.sh), to pool with visit 11's 23 pairs.
#   bash bench/device/visit-12.sh overhead
# Part `parts` (about 4 minutes): where the reducer's host time goes (the rank's JSON now splits it:
# copies, all-reduce calls, waits), transformer bfloat16 --overhead, two processes per variant,
# rotating: A default; B TORCH_NCCL_AVOID_RECORD_STREAMS=1; C --bucket-mb 100 (two buckets, not five);
# D TORCH_NCCL_CUDA_EVENT_CACHE=1 TORCH_NCCL_ENABLE_MONITORING=0. Everything under $OUT in one tgz.
#   bash bench/device/visit-12.sh parts
# Part `thread` (about 7 minutes): the reducer's launch thread (the new default: the hooks only mark
# gradients ready, a thread of the reducer's launches the copies and all-reduces) against the hooks
# launching them (ACCELBENCH_REDUCER_IN_HOOKS=1, as before): --overhead for transformer bfloat16 (three
# rotating rounds of T, H) and resnet18 bfloat16 (two); `run` against `scale --gpus 1` (R, S) in six
# rotating rounds; `ctest -L gpu`.
#   bash bench/device/visit-12.sh thread
# (The launch thread gave nothing and was reverted; part `thread` needs its commit, 2b59c7a.)
# Part `python` (about 4 minutes): what PyTorch's own DistributedDataParallel costs at world size 1,
# the same way: bench/python/ddp_scale.py --overhead under torchrun (a copy without DDP, a sample
# beside each DDP sample), interleaved with `accelbench scale --gpus 1 --overhead`, transformer
# bfloat16 twice each, resnet18 bfloat16 once each.
#   bash bench/device/visit-12.sh python
set -uo pipefail
part=${1:-overhead}
export TARGETS="accelbench gpu_tests"
source bench/device/visit-setup.sh "visit12-$part"
if [[ $part == overhead ]]; then
  (cd build-device && timeout 120 ctest -R ScaleWorldSizeOne --output-on-failure > "$d/ctest-ws1.txt" 2>&1; echo "ctest exit $?")
  tail -3 "$d/ctest-ws1.txt"
  for md in transformer:bfloat16:3 resnet18:bfloat16:2 transformer:float32:2; do
    IFS=: read -r m p n <<< "$md"
    for i in $(seq 1 $n); do
      timeout 90 $BIN scale --model $m --dtype $p --gpus 1 --batch-size 64 --max-time 10 --overhead \
        --json "$d/overhead-$m-$p-$i.json" > "$d/overhead-$m-$p-$i.txt" 2>&1
      echo "overhead $m $p $i: exit $? at $(( $(date +%s) - t0 )) s"
      grep "data-parallel step" "$d/overhead-$m-$p-$i.txt"
    done
  done
  python3 bench/device/ws1_stats.py overhead "$d" 'overhead-*.json'
  BIN=$BIN OUT=$d CASES="transformer:bfloat16" ROUNDS=6 VARIANTS="R S" bash bench/device/ws1-variants.sh
fi
if [[ $part == parts ]]; then
  one() {  # variant round
    local f="$d/parts-$1-$2" extra=""
    case $1 in C) extra="--bucket-mb 100" ;; esac
    case $1 in
      B) export TORCH_NCCL_AVOID_RECORD_STREAMS=1 ;;
      D) export TORCH_NCCL_CUDA_EVENT_CACHE=1 TORCH_NCCL_ENABLE_MONITORING=0 ;;
    esac
    timeout 90 $BIN scale --model transformer --dtype bfloat16 --gpus 1 --batch-size 64 --max-time 10 --overhead $extra \
      --json "$f.json" > "$f.txt" 2>&1 || echo "$1 $2 failed"
    unset TORCH_NCCL_AVOID_RECORD_STREAMS TORCH_NCCL_CUDA_EVENT_CACHE TORCH_NCCL_ENABLE_MONITORING
  }
  vs=(A B C D)
  for r in 1 2; do
    k=$(( (r - 1) * 2 % 4 ))
    for v in "${vs[@]:k}" "${vs[@]:0:k}"; do one $v $r; done
  done
  python3 bench/device/ws1_stats.py overhead "$d" 'parts-*.json'
fi
if [[ $part == thread ]]; then
  one() {  # variant model round
    local f="$d/thread-$1-$2-$3"
    if [[ $1 == H ]]; then export ACCELBENCH_REDUCER_IN_HOOKS=1; fi
    timeout 90 $BIN scale --model $2 --dtype bfloat16 --gpus 1 --batch-size 64 --max-time 10 --overhead \
      --json "$f.json" > "$f.txt" 2>&1 || echo "$1 $2 $3 failed"
    unset ACCELBENCH_REDUCER_IN_HOOKS
  }
  for r in 1 2 3; do
    if (( r % 2 )); then one T transformer $r; one H transformer $r; else one H transformer $r; one T transformer $r; fi
  done
  for r in 1 2; do
    if (( r % 2 )); then one T resnet18 $r; one H resnet18 $r; else one H resnet18 $r; one T resnet18 $r; fi
  done
  python3 bench/device/ws1_stats.py overhead "$d" 'thread-*.json'
  BIN=$BIN OUT=$d CASES="transformer:bfloat16" ROUNDS=6 VARIANTS="R S" bash bench/device/ws1-variants.sh
  (cd build-device && timeout 150 ctest -L gpu > "$d/ctest-gpu.txt" 2>&1; echo "ctest -L gpu exit $?")
  tail -4 "$d/ctest-gpu.txt"
fi
if [[ $part == python ]]; then
  one() {  # who model round
    local f="$d/python-$1-$2-$3"
    if [[ $1 == C ]]; then
      timeout 90 $BIN scale --model $2 --dtype bfloat16 --gpus 1 --batch-size 64 --max-time 10 --overhead \
        --json "$f.json" > "$f.txt" 2>&1 || echo "$1 $2 $3 failed"
      grep "data-parallel step" "$f.txt"
    else
      timeout 120 python3 -m torch.distributed.run --standalone --nproc_per_node=1 bench/python/ddp_scale.py \
        --models $2 --dtypes bfloat16 --batch-size 64 --max-time 10 --overhead --json "$f.json" > "$f.txt" 2>&1 \
        || { echo "$1 $2 $3 failed"; tail -5 "$f.txt"; }
      grep "^ddp" "$f.txt"
    fi
  }
  one C transformer 1; one P transformer 1; one P transformer 2; one C transformer 2
  one P resnet18 1; one C resnet18 1
fi
(cd "$OUT" && tar czf "visit12-$part.tgz" "visit12-$part" && rm -rf "visit12-$part")
echo "visit-12 $part total $(( $(date +%s) - t0 )) s"
