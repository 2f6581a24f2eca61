#!/usr/bin/env bash
# GPU-machine visit for issue #4's second half (docs/results/2026-11-30-h200-precision-crossover.md),
# in three parts so that each call stays under the device tool's 10 minutes. Run from the
# repository root on the device machine with .device/ carried (../shared/device/README.md):
#   git archive HEAD -o .device/src.tar; git rev-parse --short=12 HEAD > .device/commit
#   run: bash bench/device/precision-crossover-session.sh 1|2|3   (writes under $OUT)
# The source is unpacked once into /tmp/accelbench-src and rebuilt incrementally while the
# machine stays warm.
set -uo pipefail
part=${1:?part 1 to 6}
OUT=${OUT:-/tmp/accelbench-out}
mkdir -p "$OUT"
log="$OUT/session-$part.log"
src=/tmp/accelbench-src
if [[ ! -d $src ]]; then
  mkdir -p "$src" && tar -xf .device/src.tar -C "$src"
elif ! cmp -s .device/commit "$src/.device/commit"; then
  # Another commit while the machine stayed warm: copy only the files that changed, so that the
  # build stays incremental (git archive gives every file the commit's time).
  new=$(mktemp -d) && tar -xf .device/src.tar -C "$new"
  (cd "$new" && find . -type f) | while read -r f; do cmp -s "$new/$f" "$src/$f" || { mkdir -p "$(dirname "$src/$f")"; cp "$new/$f" "$src/$f"; }; done
  rm -rf "$new"
fi
rm -rf "$src/.device" && cp -r .device "$src/"
cd "$src"
export ACCELBENCH_GIT_COMMIT=$(cat .device/commit)
{
  echo "== $(date -u +%FT%TZ) part $part, commit $ACCELBENCH_GIT_COMMIT"
  t0=$(date +%s); bash .device/build-on-device.sh || { echo BUILD FAILED; exit 1; }
  echo "build took $(( $(date +%s) - t0 )) s"
} >"$log" 2>&1 || { cat "$log"; exit 1; }
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
export XDG_DATA_HOME=$OUT/xdg
B=./build-device/accelbench
precision() {  # model, budget
  echo "== sweep precision $1 on cuda"
  timeout 200 $B sweep precision --model "$1" --device cuda --budget "$2" --max-time-per-point 20s --no-save \
    --json "$OUT/precision-$1.json" 2>"$OUT/precision-$1.stderr"
  echo "exit $?"
}
{
  case $part in
  1)
    precision mlp 40s
    precision cnn 50s
    precision transformer 60s
    echo "== run cpu vs cuda with parity (quick, 5 parity steps)"
    timeout 200 $B run --no-progress --no-save --models mlp,cnn,transformer --quick --parity-steps 5 --json "$OUT/run-parity.json"
    echo "exit $?"
    ;;
  2)
    echo "== the isolated sweep's parent on CUDA (known SIGSEGV at exit; the crash handler prints a backtrace)"
    timeout 120 $B sweep batch --model mlp --device cuda --to 16 --budget 20s --no-save 2>&1 | tail -45
    echo "exit ${PIPESTATUS[0]}"
    precision resnet18 60s
    precision bert-base 70s
    precision dcgan 50s
    echo "== crossover mlp over batch sizes"
    timeout 150 $B sweep crossover --model mlp --device cuda --from 8 --to 4096 --budget 90s --max-time-per-point 8s --no-save \
      --no-telemetry --json "$OUT/crossover-mlp-batch.json"
    echo "exit $?"
    echo "== crossover mlp over widths at batch 64"
    timeout 150 $B sweep crossover --model mlp --device cuda --axis width --batch-size 64 --budget 90s --max-time-per-point 8s \
      --no-save --no-telemetry --json "$OUT/crossover-mlp-width.json"
    echo "exit $?"
    ;;
  3)
    echo "== the isolated sweep's parent on CUDA (known SIGSEGV at exit; the crash handler prints a backtrace)"
    timeout 120 $B sweep batch --model mlp --device cuda --to 16 --budget 20s --no-save >"$OUT/crash-stdout.txt" 2>"$OUT/crash-stderr.txt"
    echo "exit $?"
    echo "== batch sweep transformer --checkpoint, 16 GiB"
    timeout 260 $B sweep batch --model transformer --device cuda --checkpoint --memory-limit 16GiB --budget 150s \
      --max-time-per-point 20s --no-save --json "$OUT/sweep-transformer-16g-checkpoint.json"
    echo "exit $?"
    echo "== threads sweep cnn on the host CPU"
    timeout 120 $B sweep threads --model cnn --budget 60s --max-time-per-point 15s --no-save --json "$OUT/threads-cnn.json"
    echo "exit $?"
    echo "== workers sweep resnet18 on cuda"
    timeout 120 $B sweep workers --model resnet18 --device cuda --max-workers 8 --budget 70s --max-time-per-point 12s --no-save \
      --json "$OUT/workers-resnet18.json"
    echo "exit $?"
    ;;
  4)
    echo "== the isolated sweep's parent on CUDA, NVML no longer unloaded"
    timeout 120 $B sweep batch --model mlp --device cuda --to 16 --budget 20s --no-save >"$OUT/crash-stdout.txt" 2>"$OUT/crash-stderr.txt"
    echo "exit $?"
    precision resnet18 50s
    precision transformer 50s
    precision dcgan 40s
    echo "== batch sweep transformer without checkpointing, 16 GiB (the same settings as part 3)"
    timeout 200 $B sweep batch --model transformer --device cuda --memory-limit 16GiB --budget 100s \
      --max-time-per-point 20s --no-save --json "$OUT/sweep-transformer-16g.json" | tail -22
    echo "exit ${PIPESTATUS[0]}"
    ;;
  6)
    echo "== float16 on the transformer: how many steps loss scaling skips"
    timeout 150 $B sweep precision --model transformer --device cuda --dtypes float32,float16 --budget 30s --no-save \
      --json "$OUT/precision-transformer-fp16.json" 2>"$OUT/precision-transformer-fp16.stderr"
    echo "exit $?"
    echo "== an isolated checkpointed sweep ends cleanly"
    timeout 150 $B sweep batch --model transformer --device cuda --checkpoint --to 64 --budget 30s --no-save 2>&1 | tail -12
    echo "exit ${PIPESTATUS[0]}"
    ;;
  5)
    echo "== the isolated sweep's parent on CUDA: where the SIGSEGV at exit comes from"
    timeout 120 $B sweep batch --model mlp --device cuda --to 16 --budget 20s --no-save >"$OUT/crash-stdout.txt" 2>"$OUT/crash-stderr.txt"
    echo "exit $?"
    grep -o '^[^ (]*(+0x[0-9a-f]*)' "$OUT/crash-stderr.txt" | sed 's/(+/ /; s/)//' | while read -r mod off; do
      [[ $mod == ./* || $mod == /* ]] || continue
      echo "$mod $off: $(addr2line -f -C -e "$mod" "$off" 2>/dev/null | tr '\n' ' ')"
    done > "$OUT/crash-symbols.txt" 2>&1
    which addr2line >> "$OUT/crash-symbols.txt" 2>&1
    ;;
  esac
} >>"$log" 2>&1
tail -c 9000 "$log"
if [[ -f $OUT/crash-stderr.txt ]]; then echo "== crash stderr (tail)"; tail -c 4000 "$OUT/crash-stderr.txt"; fi
if [[ -f $OUT/crash-symbols.txt ]]; then echo "== crash symbols"; cat "$OUT/crash-symbols.txt"; fi
