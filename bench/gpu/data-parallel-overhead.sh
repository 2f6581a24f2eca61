#!/usr/bin/env bash
# What data parallelism costs a training step on one GPU: `accelbench scale --gpus 1 --overhead`
# (each data-parallel sample paired with a sample of the same step trained without data
# parallelism, in one process) for transformer and resnet18 in bfloat16 (launch-bound) and the
# transformer in float32 (device-bound), in several processes; the same with DDP's 25 MB buckets
# launched from the gradient hooks (`--bucket-mb 25`); and PyTorch's DistributedDataParallel the
# same way (bench/python/ddp_scale.py --overhead under torchrun, world size 1). Then the paired
# overhead of each process and the 95% interval over processes (bench/python/overhead_stats.py).
#   bash bench/gpu/data-parallel-overhead.sh OUT_DIR [PROCESSES]   (default 3: about 7 minutes on an H200)
# Writes ws1-VARIANT-MODEL-DTYPE-N.json/.txt, ddp-MODEL-N.json/.txt, overhead.txt under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
require_gpus 1
n=${2:-3}
overhead_run() {  # STEM MODEL DTYPE [FLAGS...]
  local stem=$1 m=$2 p=$3
  shift 3
  timeout 120 "$BIN" scale --model "$m" --dtype "$p" --gpus 1 --batch-size 64 --max-time 10 --overhead "$@" \
    --json "$OUT/$stem.json" > "$OUT/$stem.txt" 2>&1 || echo "$stem failed"
  echo "$stem: $(grep 'data-parallel step' "$OUT/$stem.txt")"
}
ddp_run() {  # MODEL ROUND
  timeout 150 "$PY" -m torch.distributed.run --standalone --nproc_per_node=1 bench/python/ddp_scale.py --models "$1" \
    --dtypes bfloat16 --batch-size 64 --max-time 10 --overhead --json "$OUT/ddp-$1-$2.json" > "$OUT/ddp-$1-$2.txt" 2>&1 \
    || echo "ddp $1 $2 failed"
  echo "ddp $1 $2: $(grep '^ddp' "$OUT/ddp-$1-$2.txt" | tail -1)"
}
for r in $(seq 1 "$n"); do
  overhead_run "ws1-default-transformer-bfloat16-$r" transformer bfloat16
  overhead_run "ws1-default-resnet18-bfloat16-$r" resnet18 bfloat16
  (( r <= 2 )) && overhead_run "ws1-hooks-transformer-bfloat16-$r" transformer bfloat16 --bucket-mb 25
  (( r == 1 )) && { ddp_run transformer 1; ddp_run resnet18 1; }
done
overhead_run ws1-default-transformer-float32-1 transformer float32
{
  "$PY" bench/python/overhead_stats.py overhead "$OUT" 'ws1-*.json'
  for g in default-transformer-bfloat16 default-resnet18-bfloat16 hooks-transformer-bfloat16; do
    echo -n "$g: "; "$PY" bench/python/overhead_stats.py between "$OUT/ws1-$g-*.json"
  done
} | tee "$OUT/overhead.txt"
echo "data-parallel-overhead: $(( $(date +%s) - T0 )) s"
