#!/usr/bin/env python3
"""Which next-run interval is right on recorded runs? Replays series of accelbench run JSONs (each
folder: run1.json, run2.json, ... of one command, back to back, from an empty history) through
three ways of making a case's 95% next-run interval, and prints each one's coverage and width ratio
per case (the measures of bench/interval_calibration.py):

- rounds:  this run's rounds alone: median * exp(+-t_{R-1} s sqrt(2/R)), s = sd(log round medians);
           no interval with one round.
- prior:   a fixed prior sd (13% host-bound, 0.3% device-bound, in between by the busy share)
           weighed as 3 runs, pooled with the case's own earlier runs; from 4 earlier runs on,
           their spread alone.
- pooled:  this host's spread pooled by kind of case (analysis/run_to_run.h, as `run` does now):
           the history's log-median variances of every case of the kind and this run's rounds'
           variances of the kind, the history alone where it varies beyond the rounds (F test, 95%).

Usage: python3 bench/replay_intervals.py FOLDER [FOLDER ...]   (standard library only)"""
import glob
import json
import math
import os
import re
import statistics
import sys
from functools import lru_cache

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interval_calibration import calibrate  # noqa: E402

# Student's t and F quantiles, standard library only: the regularized incomplete beta function by
# its continued fraction (Lentz), inverted by bisection.
def _betacf(a, b, x):
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        h *= d * c
        if abs(d * c - 1) < 1e-13:
            break
    return h


def ibeta(x, a, b):
    """I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


@lru_cache(maxsize=None)
def t975(dof):
    """The 0.975 quantile of Student's t with `dof` degrees of freedom."""
    lo, hi = 0.0, 1000.0
    for _ in range(100):
        mid = (lo + hi) / 2
        cdf = 1 - 0.5 * ibeta(dof / (dof + mid * mid), dof / 2, 0.5)
        lo, hi = (mid, hi) if cdf < 0.975 else (lo, mid)
    return (lo + hi) / 2


@lru_cache(maxsize=None)
def f95(d1, d2):
    """The 0.95 quantile of F(d1, d2)."""
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ibeta(mid, d1 / 2, d2 / 2) < 0.95 else (lo, mid)
    u = (lo + hi) / 2
    return d2 * u / (d1 * (1 - u))


MEDIAN_FACTOR = {1: 1, 2: 1, 3: 1.346, 4: 1.193, 5: 1.434, 6: 1.288, 7: 1.469, 8: 1.350, 9: 1.487, 10: 1.386}


def kind_of(c):
    busy = (c.get("device_time") or {}).get("busy_fraction")
    k = "host-bound"
    if c["device"] != "cpu" and busy is not None and busy >= 0.5:
        k = "partly device-bound" if busy < 0.9 else "device-bound"
    return ("graph replay, " if c.get("graphs") else "") + k


def key_of(c):
    return (c["workload"], c.get("width", 0), c.get("graphs", False), c["device"], c["dtype"], c["batch_size"], c.get("threads"))


def sd_log(xs):
    return statistics.stdev([math.log(x) for x in xs]) if len(xs) >= 2 else 0.0


def prior_sd(c):
    if c["device"] == "cpu":
        return 0.13
    busy = (c.get("device_time") or {}).get("busy_fraction")
    if busy is None:
        return 0.13
    share = min(1.0, max(0.0, (0.9 - busy) / 0.4))
    return 0.003 + (0.13 - 0.003) * share


def half_rounds(c, rounds):
    if len(rounds) < 2:
        return None
    r = len(rounds)
    return t975(r - 1) * sd_log(rounds) * math.sqrt(2 / r)


def half_prior(c, earlier, median):
    meds = earlier[-10:] + [median]
    k = len(meds) - 1
    if k >= 4:
        return t975(k) * sd_log(meds) * math.sqrt(2)
    s0 = prior_sd(c)
    pooled = math.sqrt((3 * s0 * s0 + k * sd_log(meds) ** 2) / (3 + k))
    return t975(3 + k) * pooled * math.sqrt(2)


def pooled_halves(run_cases, history):
    """history: key -> [medians of earlier runs]. Returns key -> half-width for this run's cases."""
    hist, rnd = {}, {}
    series = {k: v[-10:] for k, v in history.items()}
    kinds = {k: v[1] for k, v in run_cases.items()}
    for k, (c, kind, median, rounds) in run_cases.items():
        series[k] = series.get(k, []) + [median]
        if len(rounds) >= 2:
            w, d = rnd.get(kind, (0.0, 0.0))
            n = len(rounds)
            rnd[kind] = (w + (n - 1) * sd_log(rounds) ** 2 / n * MEDIAN_FACTOR.get(n, 1.5708), d + n - 1)
    for k, meds in series.items():
        if len(meds) >= 2 and k in history_kinds:
            kind = kinds.get(k, history_kinds[k])
            w, d = hist.get(kind, (0.0, 0.0))
            hist[kind] = (w + (len(meds) - 1) * sd_log(meds) ** 2, d + len(meds) - 1)
    out = {}
    for k, (c, kind, median, rounds) in run_cases.items():
        hw, hd = hist.get(kind, (0.0, 0.0))
        rw, rd = rnd.get(kind, (0.0, 0.0))
        if hd and rd:
            v, d = (hw / hd, hd) if hw / hd > (rw / rd) * f95(hd, rd) else ((hw + rw) / (hd + rd), hd + rd)
        elif hd:
            v, d = hw / hd, hd
        elif rd:
            v, d = rw / rd, rd
        else:
            v, d = prior_sd(c) ** 2, 3
        out[k] = t975(d) * math.sqrt(2 * v)
    return out


history_kinds = {}


def replay(folder):
    paths = sorted(glob.glob(os.path.join(folder, "run*.json")), key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    history, per_method = {}, {"rounds": {}, "prior": {}, "pooled": {}}
    history_kinds.clear()
    for p in paths:
        doc = json.load(open(p, encoding="utf-8"))
        run_cases = {}
        for c in doc.get("cases", []):
            if c.get("status", "ok") != "ok" or not (c.get("stats") or {}).get("median"):
                continue
            rounds = [r["median_s"] for r in c.get("rounds", []) if r.get("median_s", 0) > 0]
            run_cases[key_of(c)] = (c, kind_of(c), c["stats"]["median"], rounds)
        pooled = pooled_halves(run_cases, history)
        for k, (c, kind, median, rounds) in run_cases.items():
            halves = {"rounds": half_rounds(c, rounds), "prior": half_prior(c, history.get(k, []), median), "pooled": pooled[k]}
            for m, h in halves.items():
                iv = (median, median * math.exp(-h), median * math.exp(h)) if h is not None else (median, median, median)
                per_method[m].setdefault(k, []).append(iv)
        for k, (c, kind, median, rounds) in run_cases.items():
            history.setdefault(k, []).append(median)
            history_kinds[k] = kind
    return per_method


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    print(f"{'series':42} {'case':22} {'runs':>4} {'max/min':>7}   " + "   ".join(f"{m:>16}" for m in ("rounds", "prior", "pooled")))
    totals = {m: [] for m in ("rounds", "prior", "pooled")}
    for folder in argv:
        per = replay(folder)
        for k in sorted(per["pooled"], key=str):
            cells, n, mm = [], 0, 0
            for m in ("rounds", "prior", "pooled"):
                r = calibrate(per[m][k], len(per[m][k]))
                n, mm = r["runs"], r["max_over_min"]
                wr = "-" if r["width_ratio"] is None else f"{r['width_ratio']:.1f}"
                cells.append(f"{100 * r['coverage']:5.0f}% wr {wr:>4}" if r["coverage"] is not None else "-")
                if n >= 4 and r["coverage"] is not None and r["width_ratio"] is not None:
                    totals[m].append((r["coverage"], r["width_ratio"]))
            if n >= 3:
                print(f"{os.path.basename(folder.rstrip('/')):42} {k[0] + ' ' + k[3]:22} {n:>4} {mm:>7.3f}   " + "   ".join(f"{x:>16}" for x in cells))
    print("over the series of 4 runs or more (rounds: a case with one round has no interval and covers nothing):")
    for m, rows in totals.items():
        if rows:
            cov, wr = [r[0] for r in rows], sorted(r[1] for r in rows)
            print(f"  {m:7} {len(rows)} series: mean coverage {100 * sum(cov) / len(cov):.0f}%, >= 90% in {sum(c >= 0.9 for c in cov)}; "
                  f"median width ratio {wr[len(wr) // 2]:.1f}, <= 3 in {sum(w <= 3 for w in wr)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
