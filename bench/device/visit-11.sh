#!/usr/bin/env bash
# Eleventh GPU visit (one H200). Part `peak` (about 6 minutes): the machine's topology (NUMA, the
# GPU's local CPUs), then `accelbench peak` three times each for cuda:0 and the CPU, alternating, in
# separate processes (#12: the ceilings are now the best sample; do two processes agree within 3%?),
# then `profile bert-base --dtype bfloat16` at batch 512 (where its step's device time goes).
#   bash bench/device/visit-11.sh peak
set -uo pipefail
part=${1:-peak}
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
for f in "$d"/*.json; do [[ -f $f ]] && gzip -9 "$f"; done
rm -f "$d/h.db"
(cd "$OUT" && tar czf "visit11-$part.tgz" "visit11-$part" && rm -rf "visit11-$part")
echo "total $(( $(date +%s) - t0 )) s"
