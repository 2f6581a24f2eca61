#!/usr/bin/env python3
"""A planted slowdown: copies an accelbench run JSON with every case's step times multiplied by
FACTOR (its samples, its statistics in seconds, its rounds' medians), so that `accelbench compare
RUN OUT` must call its cases SLOWER by that factor against the run-to-run noise of real runs. The
speed-ups are left as they are (both of their cases slow alike); the run-to-run spreads too.

Usage: python3 bench/plant_slowdown.py IN.json OUT.json FACTOR   (standard library only)"""
import json
import sys

SECONDS = ("median", "mean", "stddev", "min", "max", "q1", "q3", "iqr", "ci_low", "ci_high")


def slowed(doc, factor):
    for c in doc.get("cases", []):
        c["samples"] = [x * factor for x in c.get("samples", [])]
        stats = c.get("stats") or {}
        for k in SECONDS:
            if isinstance(stats.get(k), (int, float)):
                stats[k] *= factor
        for r in c.get("rounds", []):
            if isinstance(r.get("median_s"), (int, float)):
                r["median_s"] *= factor
    return doc


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        factor = float(argv[2])
        with open(argv[0], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"plant_slowdown: {e}", file=sys.stderr)
        return 2
    if not factor > 0 or not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
        print("plant_slowdown: FACTOR must be positive and IN an accelbench run JSON", file=sys.stderr)
        return 2
    with open(argv[1], "w", encoding="utf-8") as f:
        json.dump(slowed(doc, factor), f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
