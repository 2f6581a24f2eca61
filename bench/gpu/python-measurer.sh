#!/usr/bin/env bash
# The Python measurer on one CUDA GPU and the host's CPU:
#  1. `run --impl cpp,python --models mlp,cnn,transformer --devices cpu,cuda`: both loops side by
#     side (the mlp and cnn speed-ups of each), and the advisor on that run;
#  2. `--py-model` with a Hugging Face-style module returning a dict (bench/python/dict_output_model.py)
#     on cuda, eager and with `--compile reduce-overhead`; the built-in mlp and cnn compiled too;
#  3. the agreement of the Python cases' step times with bench/python/article_models.py timing the
#     same step at the same settings (fused Adam, batch 64, float32): pairs of processes run
#     alternately, 5 each per model and device; within 3% means the measurer adds no time of its own.
#   bash bench/gpu/python-measurer.sh OUT_DIR      (about 25 minutes on an H200 with 16 host cores)
# AGREEMENT_ONLY=1 runs part 3 alone; AGREE_DEVICES ("cpu cuda"), AGREE_MODELS ("mlp cnn
# transformer"), AGREE_PAIRS (5) and AGREE_S (20, seconds a process) narrow it; AGREE_PIN=CPULIST
# runs both scripts under `taskset -c CPULIST` with as many threads as it lists, so that a pair's
# two processes share the same cores (on one core, a 4 s case is all start-up for the Python worker:
# each such accelbench process on the H200 timed 1 sample; give AGREE_S 10 or more). The load
# average and the host's cumulative steal time before each process go to agree-load.txt.
# AGREE_IN_PROCESS=1 adds, per device and model, the same question asked inside one Python process
# (`measurer_agreement.py --in-process`: the two steps' samples taken in turn, AGREE_PAIRS blocks of
# AGREE_S / 2 seconds; where processes of either script differ more than 3% among themselves, this is
# what can tell) into agree-in-process.txt.
# Writes side-by-side.{json,txt}, advise.txt, dict-{eager,compiled}.{json,txt},
# builtin-compiled.{json,txt}, agree-*.json and agreement.txt under OUT_DIR.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
[[ -n ${AGREEMENT_ONLY:-} && ${AGREE_DEVICES:-cpu cuda} == cpu ]] || require_gpus 1  # the CPU agreement runs anywhere
run_to() {  # NAME ARGS...: accelbench run, its JSON, table and stderr under OUT_DIR
  local name=$1
  shift
  timed "run $name" "$BIN" run --python "$PY" --no-progress --json "$OUT/$name.json" "$@" > "$OUT/$name.txt" 2> "$OUT/$name.err"
}
if [[ -z ${AGREEMENT_ONLY:-} ]]; then
run_to side-by-side --impl cpp,python --models mlp,cnn,transformer --devices cpu,cuda --budget 8m
cat "$OUT/side-by-side.txt"
"$BIN" advise "$OUT/side-by-side.json" > "$OUT/advise.txt" 2>&1
cat "$OUT/advise.txt"

dict=(--py-model bench/python/dict_output_model.py:make_model --input 128:int64:0..30522 --target classes:2 --devices cuda
      --rounds 3 --max-time-per-case 60s --budget none)
run_to dict-eager "${dict[@]}"
run_to dict-compiled "${dict[@]}" --compile reduce-overhead
run_to builtin-compiled --impl python --models mlp,cnn --devices cuda --compile reduce-overhead --budget none
for f in dict-eager dict-compiled builtin-compiled; do echo "== $f"; cat "$OUT/$f.txt"; done
fi

# Agreement: the same step (fused Adam, float32, batch 64), one process of each at a time, alternating.
pin=() threads=()
if [[ -n ${AGREE_PIN:-} ]]; then
  pin=(taskset -c "$AGREE_PIN")
  n=$(taskset -c "$AGREE_PIN" nproc) || exit 2
  threads=(--threads "$n")
  export OMP_NUM_THREADS=$n
fi
load() { echo "$1 load $(cut -d' ' -f1-3 /proc/loadavg) steal $(awk '/^cpu /{print $9}' /proc/stat)" >> "$OUT/agree-load.txt"; }
for dev in ${AGREE_DEVICES:-cpu cuda}; do
  for m in ${AGREE_MODELS:-mlp cnn transformer}; do
    for i in $(seq 1 "${AGREE_PAIRS:-5}"); do
      load "$dev-$m-$i-accelbench"
      "${pin[@]}" "$BIN" run --impl python --py-optimizer adam:fused --models "$m" --devices "$dev" --python "$PY" --rounds 1 \
        --max-time-per-case "${AGREE_S:-20}s" --budget none --parity-steps 0 --no-save --no-progress "${threads[@]}" \
        --json "$OUT/agree-$dev-$m-$i-accelbench.json" > /dev/null 2>> "$OUT/agree.err"
      load "$dev-$m-$i-article"
      "${pin[@]}" "$PY" bench/python/article_models.py --models "$m" --device "$dev" --batch-size 64 --max-time "${AGREE_S:-20}" --quiet \
        --json "$OUT/agree-$dev-$m-$i-article.json" > /dev/null 2>> "$OUT/agree.err"
    done
  done
done
"$PY" bench/python/measurer_agreement.py "$OUT" | tee "$OUT/agreement.txt"
if [[ -n ${AGREE_IN_PROCESS:-} ]]; then
  for dev in ${AGREE_DEVICES:-cpu cuda}; do
    for m in ${AGREE_MODELS:-mlp cnn transformer}; do
      "$PY" bench/python/measurer_agreement.py --in-process "$dev" "$m" "${AGREE_PAIRS:-5}" $(( ${AGREE_S:-20} / 2 )) \
        2>> "$OUT/agree.err" | tee -a "$OUT/agree-in-process.txt"
    done
  done
fi
echo "python-measurer: $(( $(date +%s) - T0 )) s"
