#!/usr/bin/env python3
"""Are a run's 95% intervals right? Reads N accelbench run JSON files of the same command (run back
to back, `run --json FILE`) and prints, per case (model, device, dtype, batch) and per speed-up
(model, device over the baseline, dtype, batch), the two numbers that judge an interval:

- coverage: the share of ordered pairs of runs (i, j), i != j, in which run i's interval holds run
  j's figure (the median step time of a case, the ratio of a speed-up). A 95% next-run range should
  hold 90% or more (the pairs are not independent).
- width ratio: an interval's log width, log(high / low), divided by the log range of the N figures,
  log(max / min). A calibrated next-run range is about 1.8 (N = 10) to 2.4 (N = 5) times the
  range; above 3 it is wider than the machine needs.

--judge K judges only the intervals of the first K files (against the figures of all N): `--judge 1`
asks how a first run's intervals do. The width ratio is given as the mean over the judged runs and,
separately, for the first file. Exit 0; 1 when --min-coverage or --max-width-ratio is given and a
row misses it; 2 on bad input (one line). Standard library only."""
import argparse
import itertools
import json
import math
import sys


def model_of(c):
    """The case's label as accelbench prints it: mlp, mlp[width=4096], transformer[checkpoint], mlp[graphs]."""
    if c.get("model"):
        return c["model"]
    extras = []
    if c.get("width"):
        extras.append(f"width={c['width']}")
    if c.get("checkpoint"):
        extras.append("checkpoint")
    if c.get("graphs"):
        extras.append("graphs")
    return c.get("workload", "?") + (f"[{','.join(extras)}]" if extras else "")


def figures(doc):
    """(kind, key) -> (figure, low, high) for every case and speed-up with an interval."""
    out = {}
    for c in doc.get("cases", []):
        if c.get("status", "ok") != "ok":
            continue
        st = c.get("stats") or {}
        v = (st.get("median"), st.get("ci_low"), st.get("ci_high"))
        if all(isinstance(x, (int, float)) and x > 0 for x in v):
            out[("case", f"{model_of(c)} {c.get('device')} {c.get('dtype')} b{c.get('batch_size')}")] = v
    for list_name in ("speedups", "graph_speedups"):
        for s in doc.get(list_name, []):
            v = (s.get("ratio"), s.get("ci_low"), s.get("ci_high"))
            if all(isinstance(x, (int, float)) and x > 0 for x in v):
                key = f"{model_of(s)} {s.get('device')}/{s.get('baseline_device', 'cpu')} {s.get('dtype')} b{s.get('batch_size')}"
                out[("speed-up" if list_name == "speedups" else "graph speed-up", key)] = v
    return out


def calibrate(series, judge):
    """series: one (figure, low, high) per run, in order. Coverage over the ordered pairs whose
    first run is among the first `judge`; width ratios of those runs. None where the figures do not
    vary (no range to compare with)."""
    n = len(series)
    judged = range(min(judge, n))
    pairs = [(i, j) for i, j in itertools.permutations(range(n), 2) if i in judged]
    hits = sum(series[i][1] <= series[j][0] <= series[i][2] for i, j in pairs)
    figs = [s[0] for s in series]
    spread = math.log(max(figs) / min(figs))
    ratios = [math.log(series[i][2] / series[i][1]) / spread for i in judged] if spread > 0 else []
    return {
        "runs": n,
        "max_over_min": max(figs) / min(figs),
        "hits": hits,
        "pairs": len(pairs),
        "coverage": hits / len(pairs) if pairs else None,
        "width_ratio": sum(ratios) / len(ratios) if ratios else None,
        "first_width_ratio": ratios[0] if ratios else None,
    }


def load(paths):
    table = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise SystemExit(f"interval_calibration: cannot read {path}: {e}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
            raise SystemExit(f"interval_calibration: {path} is not an accelbench run JSON (no 'cases' list)")
        for key, v in figures(doc).items():
            table.setdefault(key, []).append(v)
    return table


def fmt(x, pattern):
    return "-" if x is None else pattern.format(x)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="run JSON files, in the order they ran")
    ap.add_argument("--judge", type=int, default=0, help="judge the intervals of the first K runs only (default: all)")
    ap.add_argument("--min-coverage", type=float, help="exit 1 when a row's coverage is below this (e.g. 0.9)")
    ap.add_argument("--max-width-ratio", type=float, help="exit 1 when a row's width ratio is above this (e.g. 3)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    a = ap.parse_args(argv)
    if len(a.runs) < 2:
        print("interval_calibration: needs two run JSON files or more", file=sys.stderr)
        return 2
    if a.judge < 0:
        print("interval_calibration: --judge must be 0 (all) or more", file=sys.stderr)
        return 2
    try:
        table = load(a.runs)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    judge = a.judge or len(a.runs)
    rows = []
    for (kind, key), series in sorted(table.items()):
        if len(series) >= 2:
            rows.append({"kind": kind, "name": key, **calibrate(series, judge)})
    if a.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'':15} {'case / speed-up':44} {'runs':>4} {'max/min':>8} {'coverage':>16} {'width ratio':>11} {'first run':>9}")
        for r in rows:
            cov = "-" if r["coverage"] is None else f"{r['hits']}/{r['pairs']} {100 * r['coverage']:.0f}%"
            print(f"{r['kind']:15} {r['name']:44} {r['runs']:>4} {r['max_over_min']:>8.3f} {cov:>16} "
                  f"{fmt(r['width_ratio'], '{:.2f}'):>11} {fmt(r['first_width_ratio'], '{:.2f}'):>9}")
        print(f"judged: the intervals of runs 1-{min(judge, len(a.runs))} against the figures of all {len(a.runs)}")
    bad = [r for r in rows
           if (a.min_coverage is not None and r["coverage"] is not None and r["coverage"] < a.min_coverage)
           or (a.max_width_ratio is not None and r["width_ratio"] is not None and r["width_ratio"] > a.max_width_ratio)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
