#!/usr/bin/env bash
# Eleventh GPU visit (one H200). Part `peak` (about 6 minutes): the machine's topology (NUMA, the
# GPU's local CPUs), then `accelbench peak` three times each for cuda:0 and the CPU, alternating, in
# separate processes (#12: the ceilings are now the best sample; do two processes agree within 3%?),
# then `profile bert-base --dtype bfloat16` at batch 512 (where its step's device time goes).
# Part `bert` (about 7 minutes): `peak --quick` for the ceilings, then bert-base bfloat16 at batch
# 2048 (its best batch) with the residual stream in bfloat16 (the new default) and in float32
# (ACCELBENCH_BERT_FP32_RESIDUAL=1, autocast's own rule), interleaved A B B A, each 20 s of sampling;
# the profile at batch 512 again; then world size 1 against `run` for transformer bfloat16 in five
# interleaved pairs (#14; bench/device/ws1-match.sh with PAIRS=5).
# Part `check` (about 7 minutes): world size 1 in three variants (bench/device/ws1-variants.sh:
# `run`, `scale --gpus 1`, and `scale` without the all-reduce, four rotating rounds) for transformer
# and resnet18 in bfloat16; Python's bert-base (transformers, autocast) at batch 2048 beside ours in
# the same call; `ctest -L gpu`.
# Part `last` (about 6 minutes): bert-base float16 at batch 2048 (the 16-bit stream in float16, with
# loss scaling: does it train?), bert-base bfloat16 at 2048 with --graphs beside eager, then world
# size 1 against `run` for transformer bfloat16 in eight more rotating rounds (R and S only).
#   bash bench/device/visit-11.sh peak        bash bench/device/visit-11.sh bert       bash bench/device/visit-11.sh check
#   bash bench/device/visit-11.sh last
# Part `buckets` (about 4 minutes): world size 1, transformer bfloat16, six rotating rounds of R
# (`run`), S (`scale --gpus 1`, buckets of 25 MB) and F (one bucket): is the reducer's cost per bucket?
#   bash bench/device/visit-11.sh buckets
set -uo pipefail
part=${1:-peak}
[[ $part == check ]] && export TARGETS="accelbench gpu_tests"
source bench/device/visit-setup.sh "visit11-$part"
if [[ $part == peak ]]; then
  { lscpu; echo; numactl -H 2>&1; echo; nvidia-smi topo -m 2>&1; echo;
    for f in /sys/bus/pci/devices/*/numa_node; do dev=${f%/numa_node};
      [[ $(cat $dev/vendor 2>/dev/null) == 0x10de ]] && echo "$dev numa_node $(cat $f) local_cpulist $(cat $dev/local_cpulist)"; done;
    echo; cat /sys/kernel/mm/transparent_hugepage/enabled; } > "$d/topology.txt" 2>&1
  for i in 1 2 3; do
    for dev in cuda:0 cpu; do
      tag=${dev%%:*}
      COLUMNS=120 timeout 90 $BIN peak --device $dev --db "$d/h.db" --json "$d/peak-$tag-$i.json" --no-progress \
        > "$d/peak-$tag-$i.txt" 2>&1
      echo "peak $dev $i: exit $?"
    done
  done
  python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
for tag in ("cuda", "cpu"):
    runs = []
    for i in (1, 2, 3):
        try: runs.append(json.load(open(f"{d}/peak-{tag}-{i}.json"))["devices"][0]["ceilings"])
        except Exception as e: print(tag, i, "missing", e)
    if not runs: continue
    for k, c in enumerate(runs[0]):
        name = (c["kind"] + " " + c["variant"]).strip()
        best = [r[k].get("best") for r in runs]; med = [r[k].get("median") for r in runs]
        if None in best: print(tag, name, "not measured"); continue
        sb = max(best) / min(best) - 1; sm = max(med) / min(med) - 1
        print(f"{tag:4} {name:28} best {' '.join('%.4g' % b for b in best)}  spread {100*sb:5.1f}%   median spread {100*sm:5.1f}%")
PY
  COLUMNS=160 timeout 150 $BIN profile bert-base --device cuda --dtype bfloat16 --batch-size 512 --steps 3 --warmup 3 --top 45 \
    > "$d/profile-bert-bf16-512.txt" 2>&1
  echo "profile bert: exit $?"
  head -80 "$d/profile-bert-bf16-512.txt"
fi
if [[ $part == bert ]]; then
  timeout 60 $BIN peak --device cuda:0 --quick --db "$d/h.db" --no-progress > "$d/peak-quick.txt" 2>&1
  echo "peak --quick: exit $?"; cp "$d/h.db" "$d/hA.db"; cp "$d/h.db" "$d/hB.db"
  bert() {  # $1 A (bf16 stream) or B (float32 stream), $2 repetition
    local env=""; [[ $1 == B ]] && env="ACCELBENCH_BERT_FP32_RESIDUAL=1"
    env $env COLUMNS=140 timeout 150 $BIN run --models bert-base --devices cuda:0 --dtype bfloat16 --batch-size 2048 \
      --rounds 1 --in-process-rounds --max-time-per-case 20s --parity-steps 0 --no-progress --db "$d/h$1.db" \
      --json "$d/bert-$1$2.json" > "$d/bert-$1$2.txt" 2>&1
    echo "bert $1$2: exit $?"
  }
  bert A 1; bert B 1; bert B 2; bert A 2
  python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
for tag in ("A1", "B1", "B2", "A2"):
    try: c = json.load(open(f"{d}/bert-{tag}.json"))["cases"][0]
    except Exception as e: print(tag, "missing", e); continue
    s = c["stats"]; u = c.get("utilisation") or {}
    print(f"bert {tag}: median {s['median']*1e3:.1f} ms [{s['ci_low']*1e3:.1f}, {s['ci_high']*1e3:.1f}] "
          f"{2048/s['median']:.0f} seq/s, share {u.get('share_of_ceiling')}, ceiling {u.get('ceiling_flops_per_s')}, "
          f"busy {(c.get('device_time') or {}).get('busy_fraction')}, verdict {u.get('bound')}, "
          f"loss {c.get('loss_before')} -> {c.get('loss_after')}")
PY
  COLUMNS=160 timeout 150 $BIN profile bert-base --device cuda --dtype bfloat16 --batch-size 512 --steps 3 --warmup 3 --top 30 \
    > "$d/profile-bert-bf16-512.txt" 2>&1
  echo "profile bert: exit $?"; head -30 "$d/profile-bert-bf16-512.txt"
  BIN=$BIN PAIRS=5 CASES="transformer:bfloat16" OUT=$d bash bench/device/ws1-match.sh
fi
if [[ $part == check ]]; then
  BIN=$BIN OUT=$d ROUNDS=4 CASES="transformer:bfloat16 resnet18:bfloat16" bash bench/device/ws1-variants.sh
  COLUMNS=140 timeout 150 $BIN run --models bert-base --devices cuda:0 --dtype bfloat16 --batch-size 2048 --rounds 1 \
    --in-process-rounds --max-time-per-case 20s --parity-steps 0 --no-progress --no-save --json "$d/bert-2048.json" \
    > "$d/bert-2048.txt" 2>&1
  echo "bert 2048: exit $?"; grep -E "^bert-base +cuda" "$d/bert-2048.txt" | head -2
  timeout 150 python3 bench/python/real_cases.py --models bert-base --device cuda --dtype bfloat16 --batch-size 2048 \
    --max-time 20 --json "$d/py-bert-2048.json" > "$d/py-bert-2048.txt" 2>&1
  echo "python bert 2048: exit $?"; sed -n '/^model/,$p' "$d/py-bert-2048.txt" | head -6
  s=$(date +%s)
  (cd build-device && timeout 200 ctest -L gpu --output-on-failure > "$d/ctest-gpu.txt" 2>&1; echo "ctest gpu exit $?")
  tail -5 "$d/ctest-gpu.txt"; echo "gpu tests took $(( $(date +%s) - s )) s"
fi
if [[ $part == last ]]; then
  COLUMNS=140 timeout 150 $BIN run --models bert-base --devices cuda:0 --dtype float16 --batch-size 2048 --rounds 1 \
    --in-process-rounds --max-time-per-case 20s --parity-steps 0 --no-progress --no-save --json "$d/bert-fp16-2048.json" \
    > "$d/bert-fp16-2048.txt" 2>&1
  echo "bert fp16 2048: exit $?"; grep -E "^bert-base +cuda" "$d/bert-fp16-2048.txt" | head -3
  COLUMNS=140 timeout 200 $BIN run --graphs --models bert-base --devices cuda:0 --dtype bfloat16 --batch-size 2048 \
    --rounds 1 --in-process-rounds --max-time-per-case 20s --parity-steps 0 --no-progress --no-save \
    --json "$d/bert-graphs-2048.json" > "$d/bert-graphs-2048.txt" 2>&1
  echo "bert graphs 2048: exit $?"; grep -E "^bert-base +cuda" "$d/bert-graphs-2048.txt" | head -4
  BIN=$BIN OUT=$d ROUNDS=8 VARIANTS="R S" CASES="transformer:bfloat16" bash bench/device/ws1-variants.sh
fi
if [[ $part == buckets ]]; then
  BIN=$BIN OUT=$d ROUNDS=6 VARIANTS="R S F" CASES="transformer:bfloat16" bash bench/device/ws1-variants.sh
fi
for f in "$d"/*.json; do [[ -f $f ]] && gzip -9 "$f"; done
rm -f "$d"/h*.db
(cd "$OUT" && tar czf "visit11-$part.tgz" "visit11-$part" && rm -rf "visit11-$part")
echo "total $(( $(date +%s) - t0 )) s"
