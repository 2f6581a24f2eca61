#!/usr/bin/env python3
"""Do a machine's next-run ranges meet the intervals' acceptance over several series? Reads series
folders (each run1.json ... runN.json of one command, back to back, the first from an empty history)
and prints, for every case and speed-up, each series' coverage (every run's range against the other
runs' figures) and first-run width ratio (bench/interval_calibration.py's two numbers), then over the
series: the mean coverage (wanted: at least 90%) and the median first-run width ratio (at most 3).
Then the speed-ups whose medians lie within +-5% of each other and above 1.2x in a series, and the
runs that still said "cannot tell" for them (wanted: none). --compare FILE (written by
bench/cpu-interval-calibration.sh) adds its totals: SLOWER or FASTER in at most 10% of the case
comparisons of two runs, and a planted 30% slowdown SLOWER in all. Exit 0 when every figure meets both numbers and
no such "cannot tell" is left, 1 otherwise, 2 on bad input. Standard library only.

Usage: python3 bench/interval_acceptance.py SERIES_DIR [SERIES_DIR ...]"""
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interval_calibration import calibrate, figures  # noqa: E402


def load_series(folder):
    """[doc per run] of a series folder, in run order."""
    paths = sorted(glob.glob(os.path.join(folder, "run*.json")),
                   key=lambda p: int((re.findall(r"\d+", os.path.basename(p)) or ["0"])[0]))
    docs = []
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                docs.append(json.load(f))
        except (OSError, ValueError) as e:
            raise SystemExit(f"interval_acceptance: cannot read {p}: {e}") from None
    return docs


def cannot_tell(speedup):
    """Whether a run's speed-up said it cannot tell the devices apart (its range holds 1, or was too
    wide to print)."""
    too_wide = ((speedup.get("run_to_run") or {}).get("too_wide") or "") != ""
    return too_wide or speedup.get("ci_low", 0) <= 1 <= speedup.get("ci_high", 0)


def steady_speedups(docs):
    """{name: (max/min, runs saying "cannot tell")} for the speed-ups whose medians lie within +-5%
    of each other and above 1.2x over the series."""
    ratios, told = {}, {}
    for doc in docs:
        for s in doc.get("speedups", []):
            if not s.get("ratio", 0) > 0:
                continue
            name = f"{s.get('model', s.get('workload'))} {s.get('device')}/{s.get('baseline_device', 'cpu')} {s.get('dtype')}"
            ratios.setdefault(name, []).append(s["ratio"])
            told.setdefault(name, []).append(cannot_tell(s))
    out = {}
    for name, r in ratios.items():
        mid = statistics.median(r)
        if len(r) == len(docs) and min(r) > 1.2 and all(abs(x / mid - 1) <= 0.05 for x in r):
            out[name] = (max(r) / min(r), sum(told[name]))
    return out


def compare_totals(text):
    """{label: (SLOWER or FASTER, cases, SLOWER)} summed over the lines bench/cpu-interval-calibration.sh
    writes ("pairs: case comparisons SLOWER or FASTER 0 of 40, SLOWER 0 of 40; ...")."""
    out = {}
    for m in re.finditer(r"^(\w+): case comparisons SLOWER or FASTER (\d+) of (\d+), SLOWER (\d+) of", text, re.M):
        t = out.get(m[1], (0, 0, 0))
        out[m[1]] = (t[0] + int(m[2]), t[1] + int(m[3]), t[2] + int(m[4]))
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    compare_file = None
    if "--compare" in argv:
        i = argv.index("--compare")
        if i + 1 >= len(argv):
            print("interval_acceptance: --compare takes a file", file=sys.stderr)
            return 2
        compare_file, argv = argv[i + 1], argv[:i] + argv[i + 2:]
    try:
        series = [(os.path.basename(f.rstrip("/")), load_series(f)) for f in argv]
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    if any(len(docs) < 2 for _, docs in series):
        print("interval_acceptance: each series needs two run JSON files or more (run1.json, run2.json, ...)", file=sys.stderr)
        return 2
    table = {}
    for name, docs in series:
        per = {}
        for doc in docs:
            for key, v in figures(doc).items():
                per.setdefault(key, []).append(v)
        for key, ivs in per.items():
            if len(ivs) == len(docs):
                table.setdefault(key, {})[name] = (calibrate(ivs, len(ivs)), calibrate(ivs, 1))
    ok = True
    print(f"{'figure':52} " + " ".join(f"{n[:18]:>18}" for n, _ in series) + f" {'mean cover':>10} {'median 1st wr':>13}")
    for (kind, key), by_series in sorted(table.items()):
        cells, cover, first = [], [], []
        for n, _ in series:
            if n not in by_series or by_series[n][0]["coverage"] is None:
                cells.append("-")
                continue
            every, one = by_series[n]
            cover.append(every["coverage"])
            if one["first_width_ratio"] is not None:
                first.append(one["first_width_ratio"])
            cells.append(f"{100 * every['coverage']:.0f}% {one['first_width_ratio'] or 0:.2f}")
        mean_cover = sum(cover) / len(cover) if cover else None
        median_first = statistics.median(first) if first else None
        meets = mean_cover is not None and mean_cover >= 0.9 and median_first is not None and median_first <= 3
        ok &= meets
        print(f"{(kind + ' ' + key)[:52]:52} " + " ".join(f"{c:>18}" for c in cells)
              + f" {'-' if mean_cover is None else f'{100 * mean_cover:.0f}%':>10} {'-' if median_first is None else f'{median_first:.2f}':>13}"
              + ("" if meets else "  <- not met"))
    print("cells: coverage over every run's range; the first run's width ratio")
    for name, docs in series:
        for sp, (moved, said) in sorted(steady_speedups(docs).items()):
            print(f"{name}: {sp}: its {len(docs)} ratios within {moved:.3f}x, above 1.2x: {said} run(s) said cannot tell")
            ok &= said == 0
    if compare_file:
        try:
            with open(compare_file, encoding="utf-8") as f:
                totals = compare_totals(f.read())
        except OSError as e:
            print(f"interval_acceptance: cannot read {compare_file}: {e}", file=sys.stderr)
            return 2
        moved, cases, _ = totals.get("pairs", (0, 0, 0))
        _, planted, slower = totals.get("planted", (0, 0, 0))
        print(f"compare over the ordered pairs: SLOWER or FASTER in {moved} of {cases} case comparisons "
              f"({100 * moved / max(cases, 1):.0f}%; wanted at most 10%)")
        print(f"the planted 30% slowdown: SLOWER in {slower} of {planted} case comparisons (wanted: all)")
        ok &= cases > 0 and moved <= 0.1 * cases and planted > 0 and slower == planted
    print("acceptance: met" if ok else "acceptance: NOT met (rows marked above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
