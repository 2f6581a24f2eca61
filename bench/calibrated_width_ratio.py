#!/usr/bin/env python3
"""What width ratio does a right interval have? Simulates a machine on which a run's rounds show
all that varies between runs (each round's log median a normal draw, the run's median the median
of its R rounds) and gives the first run the interval `run` gives a case from its rounds alone:
median * exp(+-t_{R-1} * s * sqrt(2 * f(R) / R)), s the sd of its rounds' log medians, f(R) the
variance factor of a median (analysis/run_to_run.h). Prints, for R rounds and N runs, the first
interval's coverage of the other runs' medians (about 95% when the interval is right), its width
ratio (log width over the log range of the N medians: bench/interval_calibration.py's measure),
median and 90th percentile, and how often it exceeds 3; and the same for an interval that knows
the true sd (z = 1.96): the least any estimate from the run alone can reach.

  python3 bench/calibrated_width_ratio.py                  # R = 2, 3, 4, 6, 8, 12; N = 5, 10
  python3 bench/calibrated_width_ratio.py --rounds 4 --runs 10 --trials 50000

Standard library only; the answer does not depend on the machine's spread (the ratio is free of
scale), so it holds for a quiet GPU case and a noisy CPU case alike whose rounds tell the whole story.
"""
import argparse
import math
import random
import statistics
import sys

# Var(median of n normal draws) * n / sigma^2, as analysis/run_to_run.cpp's median_variance_factor.
MEDIAN_FACTOR = {1: 1, 2: 1, 3: 1.346, 4: 1.193, 5: 1.434, 6: 1.288, 7: 1.469, 8: 1.350, 9: 1.487, 10: 1.386}


def t975(dof):
    """Student's t 0.975 quantile: bisection on its CDF, the density integrated by the midpoint rule."""
    def cdf(x):
        # P(|T| <= x) by numerical integration of the density (enough for 4 figures).
        c = math.exp(math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2)) / math.sqrt(dof * math.pi)
        steps = 4000
        h = x / steps
        return 2 * sum(c * (1 + ((i + 0.5) * h) ** 2 / dof) ** (-(dof + 1) / 2) * h for i in range(steps))
    lo, hi = 0.0, 20.0 if dof > 1 else 30.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < 0.95 else (lo, mid)
    return (lo + hi) / 2


def simulate(rounds, runs, trials, rng):
    t = t975(rounds - 1)
    factor = MEDIAN_FACTOR.get(rounds, math.pi / 2)
    true_half = 1.96 * math.sqrt(2 * factor / rounds)  # the round sd is 1
    ratios, oracle, covered, total = [], [], 0, 0
    for _ in range(trials):
        levels = [[rng.gauss(0, 1) for _ in range(rounds)] for _ in range(runs)]
        medians = [statistics.median(r) for r in levels]
        span = max(medians) - min(medians)
        half = t * statistics.stdev(levels[0]) * math.sqrt(2 * factor / rounds)
        covered += sum(abs(m - medians[0]) <= half for m in medians[1:])
        total += runs - 1
        ratios.append(2 * half / span)
        oracle.append(2 * true_half / span)
    ratios.sort()
    oracle.sort()
    return {"coverage": covered / total, "median": ratios[trials // 2], "p90": ratios[int(0.9 * trials)],
            "over3": sum(r > 3 for r in ratios) / trials, "oracle_median": oracle[trials // 2],
            "oracle_over3": sum(r > 3 for r in oracle) / trials}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", default="2,3,4,6,8,12", help="rounds a run (comma list, each >= 2)")
    ap.add_argument("--runs", default="5,10", help="runs judged (comma list, each >= 2)")
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    try:
        rounds = [int(x) for x in a.rounds.split(",")]
        runs = [int(x) for x in a.runs.split(",")]
    except ValueError:
        ap.error("--rounds and --runs take comma lists of integers")
    if min(rounds) < 2 or min(runs) < 2 or a.trials < 100:
        ap.error("rounds and runs must be at least 2, --trials at least 100")
    rng = random.Random(a.seed)
    print(f"{'rounds':>6} {'runs':>5} {'coverage':>9} {'width ratio median':>19} {'p90':>6} {'> 3':>6}"
          f"   {'known sd: median':>17} {'> 3':>6}")
    for r in rounds:
        for n in runs:
            s = simulate(r, n, a.trials, rng)
            print(f"{r:>6} {n:>5} {100 * s['coverage']:>8.1f}% {s['median']:>19.2f} {s['p90']:>6.2f} "
                  f"{100 * s['over3']:>5.0f}%   {s['oracle_median']:>17.2f} {100 * s['oracle_over3']:>5.0f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
