#!/usr/bin/env python3
"""Which next-run interval is right on recorded runs? Replays series of accelbench run JSONs (each
folder: run1.json, run2.json, ... of one command, back to back, from an empty history) through
several ways of making a case's 95% next-run interval, and prints each one's coverage and width ratio
per case (the measures of bench/interval_calibration.py):

- rounds:  this run's rounds alone: median * exp(+-t_{R-1} s sqrt(2/R)), s = sd(log round medians);
           no interval with one round.
- prior:   a fixed prior sd (13% host-bound, 0.21% device-bound, in between by the busy share)
           weighed as 3 runs, pooled with the case's own earlier runs; from 4 earlier runs on,
           their spread alone.
- pooled:  this host's spread pooled by kind of case: the history's log-median variances of every
           case of the kind and this run's rounds' variances of the kind, the history alone where it
           varies beyond the rounds (F test, 95%).
- moderated: each case's own history and rounds
           variances moderated by the prior that every case of its kind gives (limma's empirical
           Bayes fit, fit_variance_prior in the same file), then the same F test; under 3 degrees
           of freedom the fallback constant joins as a prior worth 3 runs.
- robust:  moderated, with the history that one bad run cannot poison: a stored run whose median
           lies beyond 3x and beyond 5 robust sds of its case's runs' median is left out (3 runs or
           more; this run's never), and a case whose rounds took fewer than 3 samples each is a kind
           of its own (its median is one or two steps).
Speed-ups (the JSON's `speedups`) get the pooled, moderated and robust ranges from their two cases'
variances, Welch-Satterthwaite degrees of freedom; and
- paired:  a speed-up's range from its own history of log ratios and its two cases' rounds paired
           by index (a ratio per pair), F test as for a case; the moderated range under 3 dof.
- own-ratio: as `run` does now (analysis/speedup_spread.h): the cases robust; a speed-up's range
           from its own spread: the history of its log ratios (outliers left out) and its paired
           rounds, each moderated over the run's speed-ups of its kind (the accelerator case's),
           joined by the F test; its robust cases' variances added where it has neither, and as a
           prior worth 3 runs under 3 dof.
- ratio-hist: own-ratio without the paired rounds (a first run: its cases' variances added).
- scaled:  (with --scale-rounds K) moderated, each case's rounds variance multiplied by K first: the
           alternative that the rounds see only 1/K of what varies between runs.
The summary counts, per method, the cases whose coverage over every run is >= 90% and whose first
run's width ratio is <= 3 (both at once, as the calibration's acceptance asks), and how many of them
an interval that knew each case's true sd would meet both in, on average (simulated, z = 1.96, for
each case's number of runs): the most a method can be expected to reach.

Usage: python3 bench/replay_intervals.py [--first] [--cpu-own-kind] [--scale-rounds K] FOLDER [FOLDER ...]
       (standard library only)
       python3 bench/replay_intervals.py --simulate-machines [--machines 200] [--runs 10] [--rounds 3]
           [--kinds together,apart,device-level,one-sample] [--methods moderated,paired,robust,own-ratio,ratio-hist]
       python3 bench/replay_intervals.py --fresh-history RUN.json [RUN.json ...]
       python3 bench/replay_intervals.py --simulate [--rounds 2,3,4,6,8,12] [--runs 5,10] [--trials 20000] [--cases 9] [--z 1.96]
  --first: judge only the first run's intervals (against every run's figure): what a new user sees.
  --simulate: no recorded runs; what a right interval's width ratio does. A simulated machine whose
           rounds show all that varies between runs (each round's log median a normal draw, a run's
           median the median of its R rounds); the first run gets the interval of its rounds alone
           (t(R - 1)). Prints its coverage of the other runs' medians (about 95%: the interval is
           right), its width ratio against N runs (median, 90th percentile, share above 3), and the
           same for an interval that knows the true sd (z = 1.96, or --z); and how often that known-sd
           interval meets both numbers (every run's coverage >= 90%, the first run's width <= 3) in
           one case, and in every one of --cases K cases at once (default 9: an H200 series' six
           cases and three speed-ups; 3: the 2-core series).
  --cpu-own-kind: the alternative of pooling the CPU's cases as a kind of their own, apart from the
           host-bound accelerator cases (`run` pools them together).
  --simulate-machines: every method on simulated machines with a CPU and an accelerator
           (bench/simulated_machines.py: the devices moving together, apart, the accelerator changing
           level, a one-sample CPU case), figure by figure: the mean over machines of the coverage
           over all runs, of the mean width ratio and of the first run's width ratio.
  --fresh-history: the runs' stored ranges against the ranges `run`'s estimator (own-ratio) gives the
           same runs from an empty history: whether what the history held before them changed them."""
import argparse
import glob
import json
import math
import os
import random
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



def digamma(x):
    r = 0.0
    while x < 6:
        r -= 1 / x
        x += 1
    f = 1 / (x * x)
    return r + math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))))


def trigamma(x):
    r = 0.0
    while x < 6:
        r += 1 / (x * x)
        x += 1
    f = 1 / (x * x)
    return r + 1 / x + f / 2 + f / x * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f / 30)))


def trigamma_inverse(y):
    if y > 1e7:
        return 1 / math.sqrt(y)
    if y < 1e-6:
        return 1 / y
    x = 0.5 + 1 / y
    for _ in range(100):
        tri = trigamma(x)
        step = tri * (1 - tri / y) / ((trigamma(x + 1e-6) - trigamma(x - 1e-6)) / 2e-6)
        x += step
        if -step / x < 1e-10:
            break
    return x


def fit_prior(estimates):
    """limma's prior (s0^2, d0) for [(variance, dof)], d0 capped at the total dof."""
    use = [(v, d) for v, d in estimates if v > 0 and d > 0]
    if not use:
        return 0.0, 0.0
    if len(use) == 1:
        return use[0]
    n, total = len(use), sum(d for _, d in use)
    z = [math.log(v) - digamma(d / 2) + math.log(d / 2) for v, d in use]
    mean = sum(z) / n
    excess = sum((x - mean) ** 2 for x in z) / (n - 1) - sum(trigamma(d / 2) for _, d in use) / n
    if excess <= 0:
        return math.exp(mean), total
    d0 = 2 * trigamma_inverse(excess)
    return math.exp(mean + digamma(d0 / 2) - math.log(d0 / 2)), min(d0, total)


def moderated(estimates_of_kind, own):
    """own: (variance, dof) or None; the case alone in its kind keeps its own."""
    if own and own[1] > 0 and len(estimates_of_kind) == 1:
        return own
    s0, d0 = fit_prior(estimates_of_kind)
    if not own or own[1] <= 0:
        return s0, d0
    if d0 <= 0:
        return own
    return (d0 * s0 + own[1] * own[0]) / (d0 + own[1]), d0 + own[1]

CPU_OWN_KIND = False  # --cpu-own-kind: the CPU's cases pooled apart from host-bound accelerator cases
ROUNDS_SCALE = None  # --scale-rounds K: the "scaled" method's factor on the rounds' variances


def kind_of(c, few_samples_apart=False):
    busy = (c.get("device_time") or {}).get("busy_fraction")
    k = "the CPU" if CPU_OWN_KIND and c["device"] == "cpu" else "host-bound"
    if c["device"] != "cpu" and busy is not None and busy >= 0.5:
        k = "partly device-bound" if busy < 0.9 else "device-bound"
    if few_samples_apart and few_samples(c):
        k += ", few samples"
    return ("graph replay, " if c.get("graphs") else "") + k


def few_samples(c):
    """A case whose rounds took fewer than 3 samples each on average: its median is one or two steps."""
    n = (c.get("stats") or {}).get("n") or 0
    return n < FEW_SAMPLES * max(1, len(c.get("rounds") or []))


FEW_SAMPLES = 3


def inliers(logs, keep_last=True):
    """The log medians of a case's runs without the outlier runs, as run_to_run.cpp leaves them out:
    with 3 runs or more, a run whose log median lies beyond log(OUTLIER_FACTOR) of the runs' median
    and beyond OUTLIER_SDS robust sds (1.4826 x the median absolute deviation) of it. The last
    (this run's) is always kept."""
    if len(logs) < 3:
        return logs
    mid = statistics.median(logs)
    robust_sd = 1.4826 * statistics.median(abs(x - mid) for x in logs)
    limit = max(math.log(OUTLIER_FACTOR), OUTLIER_SDS * robust_sd)
    return [x for i, x in enumerate(logs) if abs(x - mid) <= limit or (keep_last and i == len(logs) - 1)]


OUTLIER_FACTOR, OUTLIER_SDS = 3.0, 5.0


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
    return 0.0021 + (0.13 - 0.0021) * share


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


def combine(h, r, prior):
    """The history's and the rounds' (variance, dof) as run_to_run.cpp's combine_spread joins them."""
    v = _pooled_combine(h, r)
    if not v:
        return prior * prior, 3
    if v[1] < 3:  # weak evidence: the fallback constant joins as a prior worth 3 runs
        return (3 * prior * prior + v[1] * v[0]) / (3 + v[1]), 3 + v[1]
    return v


ROBUST_METHODS = ("robust", "own-ratio", "ratio-hist")  # cases: outliers out, few-sample cases a kind apart


def moderated_of_kind(source, kind, k, method):
    """The kind's estimates in `source` ({key: (kind, (variance, dof))}) pooled ("pooled") or the
    case's own moderated by the prior they give (every other method); None where the kind has none."""
    ests = [e for kd, e in source.values() if kd == kind]
    if not ests:
        return None
    if method == "pooled":
        d = sum(e[1] for e in ests)
        return (sum(e[0] * e[1] for e in ests) / d, d) if d else None
    own = source[k][1] if k in source and source[k][0] == kind else None
    return moderated(ests, own)


def spreads(run_cases, history, seen, method):
    """(variance, dof) of each of this run's cases' log median: "pooled" by kind, "moderated", or
    the robust methods' (outlier runs left out, few-sample cases a kind of their own). `seen`: the
    newest stored case document of every key in `history`."""
    hist, rnd = {}, {}
    robust = method in ROBUST_METHODS
    series = {k: v[-10:] for k, v in history.items()}
    for k, (c, _kind, median, rounds) in run_cases.items():
        series[k] = series.get(k, []) + [median]
        if len(rounds) >= 2:
            n = len(rounds)
            scale = ROUNDS_SCALE if method == "scaled" else 1
            rnd[k] = (kind_of(c, robust), (scale * sd_log(rounds) ** 2 / n * MEDIAN_FACTOR.get(n, 1.5708), n - 1))
    for k, meds in series.items():
        if robust:
            meds = [math.exp(x) for x in inliers([math.log(v) for v in meds], keep_last=k in run_cases)]
        if len(meds) >= 2:
            hist[k] = (kind_of(run_cases[k][0] if k in run_cases else seen[k], robust), (sd_log(meds) ** 2, len(meds) - 1))
    out = {}
    for k, (c, _kind, median, rounds) in run_cases.items():
        kind = kind_of(c, robust)
        h, r = moderated_of_kind(hist, kind, k, method), moderated_of_kind(rnd, kind, k, method)
        if method == "pooled" and not h and not r:
            out[k] = (prior_sd(c) ** 2, 3)
        elif method == "pooled":
            out[k] = _pooled_combine(h, r)
        else:
            out[k] = combine(h, r, prior_sd(c))
    return out


def speedup_cases(s, cases):
    """The keys of a speed-up's baseline and device cases in `cases`, or None."""
    def find(device):
        for k, (c, *_rest) in cases.items():
            if c["workload"] == s.get("workload", s.get("model")) and c["device"] == device and c["dtype"] == s["dtype"] \
                    and c["batch_size"] == s["batch_size"] and bool(c.get("graphs")) == ("graphs" in str(s.get("model", ""))):
                return k
        return None
    a, b = find(s["baseline_device"]), find(s["device"])
    return (a, b) if a and b else None


def welch_sum(a, b):
    """Two (variance, dof) added, Welch-Satterthwaite dof."""
    v = a[0] + b[0]
    return v, (v * v / (a[0] ** 2 / a[1] + b[0] ** 2 / b[1]) if v > 0 else 1)


def own_ratio_spreads(speedups, cases, ratio_history, case_spread, use_rounds):
    """{label: (variance, dof)} of each speed-up's log ratio from its own spread, as run_to_run.cpp
    gives it: the history of its log ratios (outlier runs left out) and, with `use_rounds`, its
    rounds paired by index (the two devices' rounds interleave), each moderated over the speed-ups
    of its kind (the accelerator case's), joined by the F test as a case's are; its two cases'
    variances added where it has neither, and as a prior worth 3 runs under 3 dof."""
    hist, rnd, fallback, kinds = {}, {}, {}, {}
    for s, label in speedups:
        pair = speedup_cases(s, cases)
        if not pair:
            continue
        (ca, _, _, ra), (cb, _, _, rb) = cases[pair[0]], cases[pair[1]]
        kinds[label] = kind = "speed-up over " + kind_of(cb, True)
        logs = inliers(ratio_history.get(label, [])[-10:] + [math.log(s["ratio"])])
        if len(logs) >= 2:
            hist[label] = (kind, (statistics.variance(logs), len(logs) - 1))
        n = min(len(ra), len(rb))
        if use_rounds and n >= 2:
            paired = [math.log(x / y) for x, y in zip(ra[:n], rb[:n])]
            rnd[label] = (kind, (statistics.variance(paired) / n * MEDIAN_FACTOR.get(n, 1.5708), n - 1))
        fallback[label] = welch_sum(case_spread[pair[0]], case_spread[pair[1]])
    out = {}
    for label, fb in fallback.items():
        v = _pooled_combine(moderated_of_kind(hist, kinds[label], label, "moderated"),
                            moderated_of_kind(rnd, kinds[label], label, "moderated"))
        if not v:
            out[label] = fb
        elif v[1] < 3:
            out[label] = ((3 * fb[0] + v[1] * v[0]) / (3 + v[1]), 3 + v[1])
        else:
            out[label] = v
    return out


def _pooled_combine(h, r):
    if h and r:
        return h if h[0] > r[0] * f95(h[1], r[1]) else ((h[0] * h[1] + r[0] * r[1]) / (h[1] + r[1]), h[1] + r[1])
    return h or r


def speedup_interval(s, cases, spread):
    """A speed-up's (ratio, low, high) from its two cases' spreads (Welch-Satterthwaite)."""
    def find(device):
        for k, (c, *_rest) in cases.items():
            if c["workload"] == s.get("workload", s.get("model")) and c["device"] == device and c["dtype"] == s["dtype"] \
                    and c["batch_size"] == s["batch_size"] and bool(c.get("graphs")) == ("graphs" in str(s.get("model", ""))):
                return spread.get(k)
        return None
    a, b = find(s["baseline_device"]), find(s["device"])
    if not a or not b:
        return None
    v = a[0] + b[0]
    d = v * v / (a[0] ** 2 / a[1] + b[0] ** 2 / b[1]) if v > 0 else 1
    h = t975(d) * math.sqrt(2 * v)
    return s["ratio"], s["ratio"] * math.exp(-h), s["ratio"] * math.exp(h)


def paired_interval(s, cases, earlier_ratios, moderated_so_far):
    """A speed-up's range from its own history of log ratios and its rounds paired by index (F test
    as for a case); the moderated sum of its cases' variances (already replayed) under 3 dof."""
    def rounds_of(device):
        for c, *_rest in cases.values():
            if c["workload"] == s.get("workload", s.get("model")) and c["device"] == device and c["dtype"] == s["dtype"] \
                    and c["batch_size"] == s["batch_size"] and not c.get("graphs"):
                return [r["median_s"] for r in c.get("rounds", []) if r.get("median_s", 0) > 0]
        return []
    a, b = rounds_of(s["baseline_device"]), rounds_of(s["device"])
    n = min(len(a), len(b))
    r = (statistics.variance([math.log(x / y) for x, y in zip(a[:n], b[:n])]) / n * MEDIAN_FACTOR.get(n, 1.5708), n - 1) if n >= 2 else None
    earlier_ratios.append(math.log(s["ratio"]))
    meds = earlier_ratios[-11:]
    h = (statistics.variance(meds), len(meds) - 1) if len(meds) >= 2 else None
    v = _pooled_combine(h, r)
    if not v or v[1] < 3:
        return moderated_so_far[-1] if moderated_so_far else None
    half = t975(v[1]) * math.sqrt(2 * v[0])
    return s["ratio"], s["ratio"] * math.exp(-half), s["ratio"] * math.exp(half)


def simulate(rounds, runs, trials, rng, z=1.96):
    t = t975(rounds - 1)
    factor = MEDIAN_FACTOR.get(rounds, 1.5708)
    true_half = z * math.sqrt(2 * factor / rounds)  # the round sd is 1
    ratios, oracle, covered, total, both = [], [], 0, 0, 0
    for _ in range(trials):
        levels = [[rng.gauss(0, 1) for _ in range(rounds)] for _ in range(runs)]
        medians = [statistics.median(r) for r in levels]
        span = max(medians) - min(medians)
        half = t * statistics.stdev(levels[0]) * math.sqrt(2 * factor / rounds)
        covered += sum(abs(m - medians[0]) <= half for m in medians[1:])
        total += runs - 1
        ratios.append(2 * half / span)
        oracle.append(2 * true_half / span)
        both += known_sd_meets_both(medians, true_half)
    ratios.sort()
    oracle.sort()
    return {"coverage": covered / total, "median": ratios[trials // 2], "p90": ratios[int(0.9 * trials)],
            "over3": sum(r > 3 for r in ratios) / trials, "oracle_median": oracle[trials // 2],
            "oracle_over3": sum(r > 3 for r in oracle) / trials, "oracle_both": both / trials}


def known_sd_meets_both(medians, half):
    """Whether ranges of +-half about every run's median cover >= 90% of the ordered pairs and the
    first run's is at most 3 times the medians' range."""
    n = len(medians)
    hits = sum(abs(a - b) <= half for i, a in enumerate(medians) for j, b in enumerate(medians) if i != j)
    return hits >= 0.9 * n * (n - 1) and 2 * half <= 3 * (max(medians) - min(medians))


def print_simulation(argv):
    """--simulate [--rounds 2,3,4,6,8,12] [--runs 5,10] [--trials N]: a right interval's width ratio."""
    ap = argparse.ArgumentParser(prog="replay_intervals.py --simulate")
    ap.add_argument("--rounds", default="2,3,4,6,8,12", help="rounds a run (comma list, each >= 2)")
    ap.add_argument("--runs", default="5,10", help="runs judged (comma list, each >= 2)")
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--z", type=float, default=1.96, help="the known-sd interval's quantile (1.96: 95%%)")
    ap.add_argument("--cases", type=int, default=9, help="cases judged at once (the known-sd interval's chance in all)")
    a = ap.parse_args(argv)
    try:
        rounds = [int(x) for x in a.rounds.split(",")]
        runs = [int(x) for x in a.runs.split(",")]
    except ValueError:
        ap.error("--rounds and --runs take comma lists of integers")
    if min(rounds) < 2 or min(runs) < 2 or a.trials < 100 or a.cases < 1 or not a.z > 0:
        ap.error("rounds and runs must be at least 2, --trials at least 100, --cases at least 1, --z above 0")
    trials = a.trials
    rng = random.Random(1)
    print(f"{'rounds':>6} {'runs':>5} {'coverage':>9} {'width ratio median':>19} {'p90':>6} {'> 3':>6}"
          f"   {'known sd: median':>17} {'> 3':>6} {'both':>6} {f'both in {a.cases}':>11}")
    for r in rounds:
        for n in runs:
            x = simulate(r, n, trials, rng, a.z)
            print(f"{r:>6} {n:>5} {100 * x['coverage']:>8.1f}% {x['median']:>19.2f} {x['p90']:>6.2f} "
                  f"{100 * x['over3']:>5.0f}%   {x['oracle_median']:>17.2f} {100 * x['oracle_over3']:>5.0f}%"
                  f" {100 * x['oracle_both']:>5.0f}% {100 * x['oracle_both'] ** a.cases:>10.0f}%")
    return 0


METHODS = ("rounds", "prior", "pooled", "moderated", "paired", "robust", "own-ratio", "ratio-hist")
SPREAD_METHODS = ("pooled", "moderated", "robust", "own-ratio", "ratio-hist")  # and "scaled" with --scale-rounds


def replay(folder):
    paths = sorted(glob.glob(os.path.join(folder, "run*.json")), key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    return replay_docs(json.load(open(p, encoding="utf-8")) for p in paths)


def speedup_label(s):
    return ("speed-up", s.get("model", s.get("workload")), s["device"] + "/" + s["baseline_device"], s["dtype"], s["batch_size"])


def replay_docs(docs):
    """{method: {figure: [(figure, low, high) per run]}} for run documents of one series, oldest first."""
    history, seen, per_method, ratios, ratio_history = {}, {}, {m: {} for m in METHODS}, {}, {}
    for doc in docs:
        run_cases = {}
        for c in doc.get("cases", []):
            if c.get("status", "ok") != "ok" or not (c.get("stats") or {}).get("median"):
                continue
            rounds = [r["median_s"] for r in c.get("rounds", []) if r.get("median_s", 0) > 0]
            run_cases[key_of(c)] = (c, kind_of(c), c["stats"]["median"], rounds)
        spread = {m: spreads(run_cases, history, seen, m) for m in SPREAD_METHODS}
        for k, (c, kind, median, rounds) in run_cases.items():
            halves = {"rounds": half_rounds(c, rounds), "prior": half_prior(c, history.get(k, []), median)}
            for m in SPREAD_METHODS:
                v, d = spread[m][k]
                halves[m] = t975(d) * math.sqrt(2 * v)
            for m, h in halves.items():
                iv = (median, median * math.exp(-h), median * math.exp(h)) if h is not None else (median, median, median)
                per_method[m].setdefault(k, []).append(iv)
        speedups = [(s, speedup_label(s)) for s in doc.get("speedups", []) if s.get("ratio", 0) > 0]
        own = {m: own_ratio_spreads(speedups, run_cases, ratio_history, spread[m], m == "own-ratio")
               for m in ("own-ratio", "ratio-hist")}
        for s, label in speedups:
            for m in SPREAD_METHODS:
                iv = speedup_interval(s, run_cases, spread[m]) if m not in own else ratio_interval(s, own[m].get(label))
                if iv:
                    per_method[m].setdefault(label, []).append(iv)
            iv = paired_interval(s, run_cases, ratios.setdefault(label, []), per_method["moderated"].get(label, []))
            if iv:
                per_method["paired"].setdefault(label, []).append(iv)
            if speedup_cases(s, run_cases):
                ratio_history.setdefault(label, []).append(math.log(s["ratio"]))
        for k, (c, kind, median, rounds) in run_cases.items():
            history.setdefault(k, []).append(median)
            seen[k] = c
    return per_method


def ratio_interval(s, spread):
    """(ratio, low, high) of a speed-up from the (variance, dof) of its log ratio."""
    if not spread:
        return None
    h = t975(spread[1]) * math.sqrt(2 * spread[0])
    return s["ratio"], s["ratio"] * math.exp(-h), s["ratio"] * math.exp(h)


def label_of(k):
    if k[0] == "speed-up":
        return f"x {k[1]} {k[2]}"
    return f"{k[0]}{'[graphs]' if k[2] else ''} {k[3]}"


def parse_args(argv):
    """The flags of main (see the usage), set as module globals; returns (first_only, folders)."""
    global CPU_OWN_KIND, ROUNDS_SCALE, METHODS, SPREAD_METHODS
    first_only = "--first" in argv
    CPU_OWN_KIND = "--cpu-own-kind" in argv
    argv = [a for a in argv if a not in ("--first", "--cpu-own-kind")]
    if "--scale-rounds" in argv:
        i = argv.index("--scale-rounds")
        try:
            ROUNDS_SCALE = float(argv[i + 1])
        except (IndexError, ValueError):
            ROUNDS_SCALE = 0
        if not ROUNDS_SCALE > 0:
            print("replay_intervals.py: --scale-rounds takes a positive number", file=sys.stderr)
            return None
        argv = argv[:i] + argv[i + 2:]
        METHODS, SPREAD_METHODS = METHODS + ("scaled",), SPREAD_METHODS + ("scaled",)
    return first_only, argv


def print_machines(argv):
    """--simulate-machines [--machines N] [--runs 10] [--rounds 3] [--methods a,b]: every method replayed
    on simulated machines (bench/simulated_machines.py), figure by figure: the mean over machines of
    the coverage over all runs, of the mean width ratio, and of the first run's width ratio."""
    import simulated_machines
    ap = argparse.ArgumentParser(prog="replay_intervals.py --simulate-machines")
    ap.add_argument("--machines", type=int, default=200, help="machines of each kind")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--kinds", default=",".join(simulated_machines.MACHINES), help="machine kinds (comma list)")
    ap.add_argument("--methods", default="moderated,paired,robust,own-ratio,ratio-hist")
    a = ap.parse_args(argv)
    kinds, methods = a.kinds.split(","), a.methods.split(",")
    if a.machines < 1 or a.runs < 3 or a.rounds < 1 or any(k not in simulated_machines.MACHINES for k in kinds) \
            or any(m not in METHODS for m in methods):
        ap.error(f"--machines >= 1, --runs >= 3, --rounds >= 1; kinds among {', '.join(simulated_machines.MACHINES)}; "
                 f"methods among {', '.join(METHODS)}")
    series = simulated_machines.machines(kinds, a.machines, runs=a.runs, rounds=a.rounds)
    print(f"{'machine':13} {'figure':22}" + "".join(f" {m:>22}" for m in methods))
    print(f"{'':36}" + "".join(f" {'cover  wr  first wr':>22}" for _ in methods))
    for kind in kinds:
        sums = {}
        for docs in series[kind]:
            per = replay_docs(docs)
            for m in methods:
                for k, ivs in per[m].items():
                    r = calibrate(ivs, len(ivs))
                    if r["coverage"] is None or r["width_ratio"] is None:
                        continue
                    acc = sums.setdefault((label_of(k), m), [0, 0, 0, 0])
                    acc[0] += r["coverage"]; acc[1] += r["width_ratio"]; acc[2] += r["first_width_ratio"]; acc[3] += 1
        for fig in sorted({f for f, _ in sums}):
            cells = []
            for m in methods:
                acc = sums.get((fig, m))
                cells.append(f"{100 * acc[0] / acc[3]:5.1f}% {acc[1] / acc[3]:4.2f} {acc[2] / acc[3]:5.2f}" if acc else "-")
            print(f"{kind:13} {fig:22}" + "".join(f" {c:>22}" for c in cells))
    return 0


def print_fresh_history(paths):
    """--fresh-history RUN.json ...: each run's stored ranges (as `run` gave them, with whatever its
    history held) against the ranges run's estimator (method own-ratio) gives the same runs replayed
    from an empty history: the ratio of their log widths, figure by figure, and the largest."""
    try:
        docs = [json.load(open(p, encoding="utf-8")) for p in paths]
    except (OSError, ValueError) as e:
        print(f"replay_intervals.py: {e}", file=sys.stderr)
        return 2
    fresh = replay_docs(docs)["own-ratio"]
    seen, worst = {}, 1.0
    print(f"{'run':>3} {'figure':34} {'stored width':>12} {'fresh width':>11} {'ratio':>6}")
    for i, doc in enumerate(docs):
        stored = {key_of(c): c["stats"] for c in doc.get("cases", []) if c.get("status", "ok") == "ok" and (c.get("stats") or {}).get("median")}
        stored.update({speedup_label(x): x for x in doc.get("speedups", []) if x.get("ratio", 0) > 0})
        for k, v in stored.items():
            if k not in fresh or not v.get("ci_low", 0) > 0:
                continue
            n = seen[k] = seen.get(k, -1) + 1
            _, low, high = fresh[k][n]
            a, b = math.log(v["ci_high"] / v["ci_low"]), math.log(high / low)
            ratio = a / b if b > 0 else float("inf")
            worst = max(worst, ratio, 1 / ratio if ratio > 0 else float("inf"))
            print(f"{i + 1:>3} {label_of(k)[:34]:34} {a:>12.4f} {b:>11.4f} {ratio:>6.2f}")
    print(f"largest ratio of a stored range's width to the fresh history's (either way): {worst:.2f} (wanted: within 1.5)")
    return 0


def main(argv):
    if argv[:1] == ["--fresh-history"]:
        if not argv[1:]:
            print("replay_intervals.py: --fresh-history takes run JSON files, in the order they ran", file=sys.stderr)
            return 2
        return print_fresh_history(argv[1:])
    if argv[:1] == ["--simulate"]:
        return print_simulation(argv[1:])
    if argv[:1] == ["--simulate-machines"]:
        return print_machines(argv[1:])
    parsed = parse_args(argv)
    if not parsed or not parsed[1]:
        print(__doc__, file=sys.stderr)
        return 2
    first_only, folders = parsed
    print(f"{'series':34} {'case':26} {'runs':>4} {'max/min':>7}   " + "   ".join(f"{m:>16}" for m in METHODS))
    totals, both = {m: [] for m in METHODS}, {m: [0, 0] for m in METHODS}
    runs_of_figures = []  # the number of runs of each figure counted in "both"
    for folder in folders:
        per = replay(folder)
        for k in sorted(per["moderated"], key=str):
            cells, n, mm = [], 0, 0
            for m in METHODS:
                if k not in per[m]:
                    cells.append("-")
                    continue
                r = calibrate(per[m][k], 1 if first_only else len(per[m][k]))
                n, mm = r["runs"], r["max_over_min"]
                wr = "-" if r["width_ratio"] is None else f"{r['width_ratio']:.1f}"
                cells.append(f"{100 * r['coverage']:5.0f}% wr {wr:>4}" if r["coverage"] is not None else "-")
                if n >= 4 and r["coverage"] is not None and r["width_ratio"] is not None:
                    totals[m].append((r["coverage"], r["width_ratio"]))
                    every = calibrate(per[m][k], len(per[m][k])) if first_only else r
                    first = r if first_only else calibrate(per[m][k], 1)
                    both[m][0] += every["coverage"] >= 0.9 and first["width_ratio"] is not None and first["width_ratio"] <= 3
                    both[m][1] += 1
                    if m == "moderated":
                        runs_of_figures.append(n)
            if n >= 3:
                print(f"{os.path.basename(folder.rstrip('/'))[:34]:34} {label_of(k)[:26]:26} {n:>4} {mm:>7.3f}   " + "   ".join(f"{x:>16}" for x in cells))
    print("over the series of 4 runs or more (rounds: a case with one round has no interval and covers nothing;"
          + (" the first run's intervals judged against all runs)" if first_only else " every run's intervals judged)"))
    for m, rows in totals.items():
        if rows:
            cov, wr = [r[0] for r in rows], sorted(r[1] for r in rows)
            print(f"  {m:9} {len(rows)} series: mean coverage {100 * sum(cov) / len(cov):.0f}%, >= 90% in {sum(c >= 0.9 for c in cov)}, "
                  f"lowest {100 * min(cov):.0f}%; median width ratio {wr[len(wr) // 2]:.1f}, <= 3 in {sum(w <= 3 for w in wr)}, largest {wr[-1]:.1f}; "
                  f"both (every run's coverage >= 90%, the first run's width <= 3) in {both[m][0]} of {both[m][1]}")
    if runs_of_figures:
        expected = sum(known_sd_both_rate(n) for n in runs_of_figures)
        print(f"  known sd  an interval that knew each figure's true sd (z = 1.96; independent normal run medians, "
              f"simulated for each figure's number of runs) would meet both in about {expected:.1f} of {len(runs_of_figures)}")
    return 0


@lru_cache(maxsize=None)
def known_sd_both_rate(runs, trials=20000):
    """The share of simulated series of `runs` runs in which ranges of +-1.96 sqrt(2) sd meet both numbers."""
    rng = random.Random(runs)
    half = 1.96 * math.sqrt(2)
    return sum(known_sd_meets_both([rng.gauss(0, 1) for _ in range(runs)], half) for _ in range(trials)) / trials


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
