#!/usr/bin/env python3
"""Whether accelbench's Python measurer adds time of its own: its step times against
bench/python/article_models.py timing the same step at the same settings, in pairs of processes
run alternately (bench/gpu/python-measurer.sh writes them).

    python3 bench/python/measurer_agreement.py OUT_DIR

reads OUT_DIR/agree-DEVICE-MODEL-N-accelbench.json (run --json) and
OUT_DIR/agree-DEVICE-MODEL-N-article.json (article_models.py --json) and prints, per device and
model, each pair's ratio (accelbench / article), their median, and whether it is within 3%.
Standard library only."""

import glob
import json
import os
import re
import statistics
import sys


def main(argv) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out = argv[1]
    pairs = {}
    for path in sorted(glob.glob(os.path.join(out, "agree-*-accelbench.json"))):
        m = re.match(r"agree-(.+)-(\w+)-(\d+)-accelbench\.json$", os.path.basename(path))
        other = path.replace("-accelbench.json", "-article.json")
        if not m or not os.path.exists(other):
            continue
        device, model, _ = m.groups()
        try:
            ours = json.load(open(path))["cases"][0]["stats"]["median"]
            theirs = json.load(open(other))["cases"][0]["median_s"]
        except (OSError, ValueError, KeyError, IndexError) as e:
            print(f"{path}: unreadable ({e})", file=sys.stderr)
            continue
        pairs.setdefault((device, model), []).append((ours, theirs))
    if not pairs:
        print(f"no pairs in {out}", file=sys.stderr)
        return 1
    worst = 0.0
    print("device  model        pairs  accelbench ms  article ms  ratios (accelbench/article)        median  within 3%")
    for (device, model), ps in sorted(pairs.items()):
        ratios = [a / b for a, b in ps]
        med = statistics.median(ratios)
        worst = max(worst, abs(med - 1))
        print(f"{device:7} {model:12} {len(ps):5}  {statistics.median(a for a, _ in ps) * 1e3:13.3f}"
              f"  {statistics.median(b for _, b in ps) * 1e3:10.3f}  {' '.join(f'{r:.3f}' for r in ratios):34}"
              f"  {med:6.3f}  {'yes' if abs(med - 1) <= 0.03 else 'NO'}")
    return 0 if worst <= 0.03 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
