#!/usr/bin/env bash
# Data-parallel scaling on the GPUs of one host: `accelbench scale` at 1 and N GPUs (default: every
# GPU nvidia-smi sees, at least 2) for resnet18, transformer and bert-base in float32 and bfloat16,
# batch 64 per GPU, beside PyTorch's DistributedDataParallel (bench/python/ddp_scale.py under
# torchrun, the same models and timing) at 1 and N; then the ranks started by torchrun instead of
# accelbench (`torchrun --no-python ... scale --ranks-from-env`), and a rank that runs out of memory.
#   bash bench/gpu/scale-ddp.sh OUT_DIR [GPUS]     (about 8 minutes on two H200s)
# Writes scale-MODEL.json/.txt, ddp-1.json, ddp-N.json, torchrun.json/.txt, oom.txt under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
g=${2:-$(gpu_count)}
require_gpus 2
(( g >= 2 )) || { echo "$0: GPUS must be at least 2" >&2; exit 2; }
nvidia-smi topo -m > "$OUT/topology.txt" 2>&1
"$PY" -c 'import torch; print("nccl", torch.cuda.nccl.version())' >> "$OUT/machine.txt" 2>&1
for m in resnet18 transformer bert-base; do
  timed "scale $m" timeout 150 "$BIN" scale --model $m --dtype float32,bfloat16 --gpus "1,$g" --batch-size 64 --max-time 6 \
    --json "$OUT/scale-$m.json" > "$OUT/scale-$m.txt" 2>&1
  cat "$OUT/scale-$m.txt"
done
for n in 1 "$g"; do
  timed "python DDP, $n GPU(s)" timeout 150 "$PY" -m torch.distributed.run --standalone --nproc_per_node="$n" \
    bench/python/ddp_scale.py --models resnet18,transformer,bert-base --dtypes float32,bfloat16 --batch-size 64 \
    --max-time 6 --json "$OUT/ddp-$n.json" > "$OUT/ddp-$n.txt" 2>&1
  grep -E "^ddp|rror" "$OUT/ddp-$n.txt" | tail -8
done
timed "torchrun --no-python scale --ranks-from-env" timeout 150 "$PY" -m torch.distributed.run --standalone \
  --nproc_per_node="$g" --no-python "$BIN" scale --model resnet18 --ranks-from-env --rank-dir "$OUT/torchrun-ranks" \
  --max-time 4 --json "$OUT/torchrun.json" > "$OUT/torchrun.txt" 2>&1
tail -12 "$OUT/torchrun.txt"
timed "a rank out of memory (exit 1 expected)" timeout 200 "$BIN" scale --model bert-base --gpus "$g" --batch-size 16384 \
  --max-time 4 > "$OUT/oom.txt" 2>&1
tail -4 "$OUT/oom.txt"
echo "scale-ddp: $(( $(date +%s) - T0 )) s"
