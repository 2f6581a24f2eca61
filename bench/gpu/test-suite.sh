#!/usr/bin/env bash
# The `gpu` label's tests on this machine's CUDA device; `scale --ranks-from-env` under
# `torchrun --no-python` (docs/multi-gpu.md); then the changed tests against a deliberately
# broken build, to show that the checks can fail: the loss scaler's update made a no-op
# (src/optim/grad_scaler.cpp), the crossover verdict inverted (src/core/sweep_logic.cpp) and the
# crossover's speed-up inverted (src/drivers/crossover_sweep.cpp).
# The plants are made in place and undone at the end (the sources are restored and rebuilt).
#   bash bench/gpu/test-suite.sh OUT_DIR [--no-broken | --broken-only]     (about 4 minutes; the broken build
#   takes as long as a build on the machine)
# Writes ctest.txt, torchrun.txt/.json (and broken-ctest.txt, broken.diff) under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
build=$(dirname "$BIN")
require_gpus 1
if [[ ${2:-} != --broken-only ]]; then
timed "ctest -L gpu" bash -c "cd '$build' && ctest -L gpu --output-on-failure --timeout 600" > "$OUT/ctest.txt" 2>&1
grep -E "tests passed|tests failed|Failed|\(Failed\)|Skipped" "$OUT/ctest.txt" | tail -20

# The ranks started by torchrun, as docs/multi-gpu.md shows it, on every GPU of the host (1 is
# enough): exit 0 and the table; the ranks join the agent's store (no "failed to bind" from c10d).
timed "torchrun --no-python scale --ranks-from-env ($(gpu_count) GPU)" timeout 300 "$PY" -m torch.distributed.run \
  --standalone --nproc_per_node="$(gpu_count)" --no-python "$BIN" scale --model mlp --dtype bfloat16 --ranks-from-env \
  --rank-dir "$OUT/torchrun-ranks" --max-time 4 --json "$OUT/torchrun.json" > "$OUT/torchrun.txt" 2>&1
tail -15 "$OUT/torchrun.txt"
if grep -q "failed to bind" "$OUT/torchrun.txt"; then echo "torchrun: a rank served its own store"; else
  echo "torchrun: every rank joined the agent's store"; fi
fi
[[ ${2:-} == --no-broken ]] && exit 0

# The plants: each must turn a check red. Planted in place and rebuilt incrementally, then undone
# and rebuilt again (the files are restored from copies in OUT_DIR).
plants=(src/optim/grad_scaler.cpp src/core/sweep_logic.cpp src/drivers/crossover_sweep.cpp)
for f in "${plants[@]}"; do cp "$f" "$OUT/$(basename "$f").orig"; done
# the loss scaler's update a no-op
sed -i 's/^  at::_amp_update_scale_(scale_, growth_tracker_, found_inf_,/  if (false) at::_amp_update_scale_(scale_, growth_tracker_, found_inf_,/' \
  src/optim/grad_scaler.cpp
# the crossover verdict inverted (never <-> accelerator_always), and the speed-up inverted
perl -0pi -e 's/(\n  return c;\n\}\n\nstd::string describe_crossover)/\n  c.kind = c.kind == CrossoverKind::never ? CrossoverKind::accelerator_always : CrossoverKind::never;$1/' \
  src/core/sweep_logic.cpp
sed -i 's/ratio_of_medians(pair\[1\].samples, pair\[0\].samples)/ratio_of_medians(pair[0].samples, pair[1].samples)/' \
  src/drivers/crossover_sweep.cpp
for f in "${plants[@]}"; do diff -u "$OUT/$(basename "$f").orig" "$f"; done > "$OUT/broken.diff"
[[ $(grep -c '^+ ' "$OUT/broken.diff") -ge 3 ]] || { echo "test-suite: a plant did not apply" >&2; }
export CPATH="/tmp/deps/usr/include:${CPATH:-}"
timed "broken build" cmake --build "$build" > "$OUT/broken-build.txt" 2>&1 || tail -20 "$OUT/broken-build.txt"
timed "broken: the changed checks" bash -c "cd '$build' && ctest -R 'LossScale|SweepCrossoverFinds|GradScaler' \
  --output-on-failure --timeout 600" > "$OUT/broken-ctest.txt" 2>&1
grep -E "tests passed|tests failed|\(Failed\)|Passed" "$OUT/broken-ctest.txt" | tail -12
for f in "${plants[@]}"; do cp "$OUT/$(basename "$f").orig" "$f"; done
timed "restored build" cmake --build "$build" > "$OUT/restored-build.txt" 2>&1 || tail -20 "$OUT/restored-build.txt"
echo "test-suite: $(( $(date +%s) - T0 )) s"
