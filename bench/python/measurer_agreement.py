#!/usr/bin/env python3
"""Whether accelbench's Python measurer adds time of its own: its step times against
bench/python/article_models.py timing the same step at the same settings, in pairs of processes
run alternately (bench/gpu/python-measurer.sh writes them).

    python3 bench/python/measurer_agreement.py OUT_DIR

reads OUT_DIR/agree-DEVICE-MODEL-N-accelbench.json (run --json) and
OUT_DIR/agree-DEVICE-MODEL-N-article.json (article_models.py --json) and prints, per device and
model, each pair's ratio (accelbench / article), their median, whether it is within 3%, and the
95% interval of the pairs' geometric mean ratio (t over the log ratios: how precisely the pairs pin
the ratio down). A pair whose process timed fewer than 3 samples (the floor a process takes when its
time allows: fewer means its start-up took the time it was given) is left out and named.
Standard library only."""

import glob
import json
import os
import re
import statistics
import sys

from overhead_stats import paired  # the mean of the pairs' log ratios with its Student t interval

MIN_SAMPLES = 3


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
            ours_case = json.load(open(path))["cases"][0]
            theirs_case = json.load(open(other))["cases"][0]
            ours, theirs = ours_case["stats"]["median"], theirs_case["median_s"]
            counts = (len(ours_case.get("samples", [])), int(theirs_case.get("n_samples", 0)))
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            print(f"{path}: unreadable ({e})", file=sys.stderr)
            continue
        if min(counts) < MIN_SAMPLES:
            print(f"{os.path.basename(path)[:-len('-accelbench.json')]}: left out, {counts[0]} and {counts[1]} samples "
                  f"(fewer than {MIN_SAMPLES}: the process's start-up took its time)", file=sys.stderr)
            continue
        pairs.setdefault((device, model), []).append((ours, theirs))
    if not pairs:
        print(f"no pairs in {out}", file=sys.stderr)
        return 1
    worst = 0.0
    print("device  model        pairs  accelbench ms  article ms  ratios (accelbench/article)        median  within 3%"
          "  geometric mean [95%]")
    for (device, model), ps in sorted(pairs.items()):
        ratios = [a / b for a, b in ps]
        med = statistics.median(ratios)
        worst = max(worst, abs(med - 1))
        print(f"{device:7} {model:12} {len(ps):5}  {statistics.median(a for a, _ in ps) * 1e3:13.3f}"
              f"  {statistics.median(b for _, b in ps) * 1e3:10.3f}  {' '.join(f'{r:.3f}' for r in ratios):34}"
              f"  {med:6.3f}  {'yes' if abs(med - 1) <= 0.03 else 'NO ':9}  {interval_text(ps)}")
    return 0 if worst <= 0.03 else 1


def interval_text(ps) -> str:
    """The pairs' geometric mean ratio and its 95% interval (the mean alone under two pairs)."""
    stats = paired([b for _, b in ps], [a for a, _ in ps])
    if stats is None:
        return f"{ps[0][0] / ps[0][1]:.3f}"
    mean, low, high, _ = (1 + x / 100 for x in stats)
    return f"{mean:.3f} [{low:.3f}, {high:.3f}]"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
