#!/usr/bin/env bash
# The sweeps on one CUDA GPU, in parts (each under 10 minutes on an H200; default: all three):
#   precision  `sweep precision` of the six workloads at batch 64: each precision's speed-up over
#              float32 with its interval, and its numerical parity with float32 (about 6 minutes)
#   crossover  where the GPU overtakes the host's CPU on the mlp, over batch sizes and over hidden
#              widths; `sweep threads` (cnn, the host's CPU) and `sweep workers` (resnet18 on the
#              GPU) (about 6 minutes)
#   memory     `sweep batch` of the transformer under a 16 GiB memory limit, without and with
#              gradient checkpointing: the largest batch that fits, its throughput (about 5 minutes)
#   bash bench/gpu/sweeps.sh OUT_DIR [precision] [crossover] [memory]
# Writes one JSON and one text file per sweep under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
parts=("${@:2}")
(( ${#parts[@]} )) || parts=(precision crossover memory)
sweep() {  # NAME SWEEP-ARGS...
  local name=$1
  shift
  timed "sweep $name" timeout 300 "$BIN" sweep "$@" --no-save --json "$OUT/$name.json" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  grep -E "^(best|knee|largest|crossover)|fits|overtakes" "$OUT/$name.txt" | head -4
}
for part in "${parts[@]}"; do
  case $part in
  precision)
    for m in mlp cnn transformer resnet18 bert-base dcgan; do
      sweep "precision-$m" precision --model $m --device cuda --budget 60s --max-time-per-point 15s
    done ;;
  crossover)
    sweep crossover-mlp-batch crossover --model mlp --device cuda --from 8 --to 4096 --budget 90s --max-time-per-point 8s \
      --no-telemetry
    sweep crossover-mlp-width crossover --model mlp --device cuda --axis width --batch-size 64 --budget 90s \
      --max-time-per-point 8s --no-telemetry
    sweep threads-cnn threads --model cnn --budget 60s --max-time-per-point 15s
    sweep workers-resnet18 workers --model resnet18 --device cuda --max-workers 8 --budget 70s --max-time-per-point 12s ;;
  memory)
    sweep batch-transformer-16g batch --model transformer --device cuda --memory-limit 16GiB --budget 120s \
      --max-time-per-point 20s
    sweep batch-transformer-16g-checkpoint batch --model transformer --device cuda --checkpoint --memory-limit 16GiB \
      --budget 150s --max-time-per-point 20s ;;
  *) echo "$0: unknown part '$part' (precision, crossover, memory)" >&2; exit 2 ;;
  esac
done
echo "sweeps: $(( $(date +%s) - T0 )) s"
