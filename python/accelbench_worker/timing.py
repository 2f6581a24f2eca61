"""When a round stops sampling and when its warm-up is over: the C++ engine's rules
(src/core/stopping.cpp, src/core/stats.cpp) written again for the Python loop, decision for
decision. `StoppingRuleAgreement` (tests/unit/stopping_agreement_test.cpp) feeds the same sample
sequences to both and checks that they stop, and end the warm-up, at the same sample.

Standard library only (no torch): the check runs without it.

    python -m accelbench_worker.timing replay FILE
        FILE: {"sequences": [{"samples": [...], "elapsed": [...], "rule": {...}, "warmup": {...}}]}
        prints {"decisions": [{"stop_at": i, "target_met": b, "warm_at": j, "window": w,
        "recent_median": m}, ...]} (i, j: 1-based counts of samples taken, 0: never)
"""

from __future__ import annotations

from functools import lru_cache
from statistics import NormalDist
import json
import math
import sys


def median(values) -> float:
    """The median as src/core/stats.cpp's quantile_sorted(v, 0.5) gives it."""
    s = sorted(values)
    n = len(s)
    if n == 0:
        return 0.0
    m = n // 2
    return s[m] if n % 2 else s[m - 1] + 0.5 * (s[m] - s[m - 1])


def _binomial_half_cdf(n: int, k: int) -> float:
    """P(Binomial(n, 1/2) <= k), in log space as the C++ binomial_half_cdf."""
    if k >= n:
        return 1.0
    log_half_n = n * math.log(0.5)
    total = 0.0
    for i in range(k + 1):
        total += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half_n)
    return min(total, 1.0)


@lru_cache(maxsize=None)
def ci_lower_rank(n: int, confidence: float = 0.95) -> int:
    """The median's interval's lower rank l (1-based; the interval is [x_(l), x_(n-l+1)]), 0 where
    no interval reaches `confidence` (src/core/stats.cpp median_ci_ranks)."""
    if n <= 0:
        return 0
    alpha_half = (1.0 - confidence) / 2.0
    if n > 2000:  # the normal approximation, as the C++ code
        half = NormalDist().inv_cdf(1.0 - alpha_half) * math.sqrt(n) / 2.0
        return int(max(1.0, math.floor(n / 2.0 - half)))
    best = 0
    for lower in range(1, (n + 1) // 2 + 1):
        if _binomial_half_cdf(n, lower - 1) <= alpha_half:
            best = lower
        else:
            break
    return best


def relative_half_width(samples, confidence: float = 0.95) -> float:
    """Half the median's interval over the median; infinity without an interval of `confidence`."""
    s = sorted(samples)
    n = len(s)
    rank = ci_lower_rank(n, confidence)
    med = median(s)
    if rank < 1 or n < 2 or med <= 0:
        return math.inf
    # An interval that falls short of its confidence (the normal approximation's rank) is none.
    if n > 2000 and 1.0 - 2.0 * _binomial_half_cdf(n, rank - 1) + 1e-12 < confidence:
        return math.inf
    return (s[n - rank] - s[rank - 1]) / 2.0 / med


class Stopper:
    """The C++ AdaptiveStopper: stop once the median's interval is within the target (after the
    minimum samples and time), or once the time is up. Past 200 samples the interval is computed
    again only when the count has grown by 5%, as in C++ (a stop is then at most 5% late)."""

    def __init__(self, ci_target: float, min_samples: int, min_time_s: float, max_time_s: float,
                 confidence: float = 0.95):
        self.ci_target = ci_target
        self.min_samples = min_samples
        self.min_time_s = min_time_s
        self.max_time_s = max_time_s
        self.confidence = confidence
        self.samples: list[float] = []
        self.elapsed_s = 0.0
        self._summarized_n = 0
        self._half_width = math.inf

    def add(self, sample_s: float, elapsed_s: float) -> None:
        self.samples.append(sample_s)
        self.elapsed_s = elapsed_s

    def _refresh(self) -> None:
        n = len(self.samples)
        if n == self._summarized_n:
            return
        if self._summarized_n > 200 and n < self._summarized_n + self._summarized_n // 20:
            return
        self._half_width = relative_half_width(self.samples, self.confidence)
        self._summarized_n = n

    def target_met(self) -> bool:
        if len(self.samples) < max(self.min_samples, 2):
            return False
        self._refresh()
        return self._half_width <= self.ci_target

    def should_stop(self) -> bool:
        if self.elapsed_s >= self.max_time_s:
            return True
        if self.elapsed_s < self.min_time_s:
            return False
        return self.target_met()


class WarmupDetector:
    """Warm-up ends when the median of the last w step times is within 5% of the median of the w
    before, w = clamp(floor(0.5 s / last step), 1, 5) (the C++ WarmupDetector)."""

    def __init__(self, min_steps: int = 3, tolerance: float = 0.05, window_time_s: float = 0.5,
                 max_window: int = 5):
        self.min_steps = min_steps
        self.tolerance = tolerance
        self.window_time_s = window_time_s
        self.max_window = max_window
        self.steps: list[float] = []

    def add(self, step_s: float) -> None:
        self.steps.append(step_s)

    def window(self) -> int:
        if not self.steps:
            return 1
        last = max(self.steps[-1], 1e-9)
        return min(max(int(math.floor(self.window_time_s / last)), 1), self.max_window)

    def recent_median(self) -> float:
        if not self.steps:
            return 0.0
        return median(self.steps[-min(self.window(), len(self.steps)):])

    def stable(self) -> bool:
        w = self.window()
        if len(self.steps) < max(self.min_steps, 2 * w):
            return False
        last = median(self.steps[-w:])
        prev = median(self.steps[-2 * w:-w])
        return abs(last - prev) <= self.tolerance * prev


def replay(sequence: dict) -> dict:
    """Where the two rules decide on one sequence: the sample at which the stopper first says stop
    (and whether the target was met then), the step at which the warm-up is first stable, and its
    window and recent median there."""
    rule = sequence.get("rule", {})
    stopper = Stopper(rule.get("ci_target", 0.02), rule.get("min_samples", 10), rule.get("min_time_s", 0.5),
                      rule.get("max_time_s", 30.0), rule.get("confidence", 0.95))
    out = {"stop_at": 0, "target_met": False, "warm_at": 0, "window": 0, "recent_median": 0.0}
    for i, (sample, elapsed) in enumerate(zip(sequence["samples"], sequence["elapsed"]), start=1):
        stopper.add(sample, elapsed)
        if stopper.should_stop():
            out.update(stop_at=i, target_met=stopper.target_met())
            break
    w = sequence.get("warmup", {})
    detector = WarmupDetector(w.get("min_steps", 3), w.get("tolerance", 0.05), w.get("window_time_s", 0.5),
                              w.get("max_window", 5))
    for i, step in enumerate(sequence["samples"], start=1):
        detector.add(step)
        if detector.stable():
            out.update(warm_at=i, window=detector.window(), recent_median=detector.recent_median())
            break
    return out


def main(argv) -> int:
    if len(argv) != 2 or argv[0] != "replay":
        print("usage: python -m accelbench_worker.timing replay FILE", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        sequences = json.load(f)["sequences"]
    json.dump({"decisions": [replay(s) for s in sequences]}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
