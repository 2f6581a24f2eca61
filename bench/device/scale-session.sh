#!/usr/bin/env bash
# GPU-machine visit for issue #14 (data-parallel scaling, `accelbench scale`) on nvidia-h200-x2.
# Run from the repository root on the device machine with .device/ carried
# (../shared/device/README.md); writes under $OUT (a handful of files: the limits allow 8).
#   bash bench/device/scale-session.sh smoke     build, topology, world sizes 1 and 2, a failing rank (~5 min)
#   bash bench/device/scale-session.sh measure   build, scale x 3 models x fp32/bf16, Python DDP, run (~8 min)
# With BIN=path/to/accelbench (a binary built on this machine before) the build is skipped.
set -uo pipefail
part=${1:?smoke or measure}
OUT=${OUT:-/tmp/accelbench-out}
MAXT=${MAXT:-6}
mkdir -p "$OUT/scale"
export XDG_DATA_HOME=/tmp/xdg PYTHONUNBUFFERED=1
t0=$(date +%s)
if [[ -z ${BIN:-} ]]; then
  bash .device/build-on-device.sh -DACCELBENCH_BUILD_TESTS=OFF > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  BIN=./build-device/accelbench
  grep -E "NCCL for scale|CUDA-specific" /tmp/cmake-configure.log
else
  mkdir -p /tmp/deps && for f in .device/debs/*.deb; do dpkg -x "$f" /tmp/deps; done
  export LD_LIBRARY_PATH="/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
fi
echo "build took $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
timed() { local s; s=$(date +%s); "$@"; local rc=$?; echo "   exit $rc in $(( $(date +%s) - s )) s"; return $rc; }
case $part in
smoke)
  nvidia-smi topo -m
  python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
  echo "== scale transformer 1,2 (short)"
  timed $BIN scale --model transformer --gpus 1,2 --max-time 4 --json "$OUT/scale/smoke.json"
  echo "== scale bert-base bfloat16 1,2 (short)"
  timed $BIN scale --model bert-base --dtype bfloat16 --gpus 1,2 --max-time 4 --json "$OUT/scale/smoke-bert.json"
  echo "== a rank that fails (out of memory) ends the world"
  timed timeout 300 $BIN scale --model bert-base --gpus 2 --batch-size 16384 --max-time 4
  echo "== too many GPUs"
  timed $BIN scale --model mlp --gpus 1,4
  echo "== Python DDP (short)"
  timed python3 -m torch.distributed.run --standalone --nproc_per_node=2 bench/python/ddp_scale.py \
    --models transformer --dtypes bfloat16 --max-time 3 --json "$OUT/scale/ddp-smoke.json" 2>&1 | grep -v "^W1\|warn" | tail -8
  strip -o "$OUT/accelbench" "$BIN" && ls -la "$OUT/accelbench"
  ;;
measure)
  for m in resnet18 transformer bert-base; do
    echo "== scale $m float32,bfloat16 --gpus 1,2"
    timed timeout 110 $BIN scale --model $m --dtype float32,bfloat16 --gpus 1,2 --batch-size 64 --max-time "$MAXT" \
      --json "$OUT/scale/scale-$m.json"
  done
  for n in 1 2; do
    echo "== Python DDP nproc $n"
    timed timeout 120 python3 -m torch.distributed.run --standalone --nproc_per_node=$n bench/python/ddp_scale.py \
      --models resnet18,transformer,bert-base --dtypes float32,bfloat16 --batch-size 64 --max-time "$MAXT" \
      --json "$OUT/scale/ddp-$n.json" 2>&1 | grep "^ddp\|Error\|error" | tail -8
  done
  echo "== run (one GPU, no NCCL) for world size 1"
  timed timeout 100 $BIN run --models resnet18,transformer,bert-base --dtype float32,bfloat16 --devices cuda:0 --rounds 1 \
    --max-time-per-case "$((MAXT + 6))s" --no-progress --no-save --json "$OUT/scale/run-ws1.json" > "$OUT/scale/run-ws1.txt" 2>&1
  tail -20 "$OUT/scale/run-ws1.txt"
  ;;
esac
(cd "$OUT" && tar czf scale.tgz scale && rm -rf scale)
echo "total $(( $(date +%s) - t0 )) s"
