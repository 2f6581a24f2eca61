"""The statistics the worker's stopping rule needs, as the C++ engine computes them
(src/core/stats.cpp, src/core/stopping.cpp): the median, its distribution-free confidence
interval (order statistics), and the warm-up detector. The case's reported statistics are
derived again by the harness from the samples."""

from __future__ import annotations

import math
from functools import lru_cache


def median(values) -> float:
    s = sorted(values)
    n = len(s)
    if n == 0:
        return 0.0
    m = n // 2
    return s[m] if n % 2 else 0.5 * (s[m - 1] + s[m])


@lru_cache(maxsize=None)
def ci_lower_rank(n: int, confidence: float = 0.95) -> int:
    """Largest 1-based rank l with P(Binomial(n, 1/2) <= l - 1) <= (1 - confidence) / 2; 0: none.

    The median's interval is then [x_(l), x_(n-l+1)] of the sorted samples."""
    if n <= 0:
        return 0
    half = (1.0 - confidence) / 2.0
    log_half_n = -n * math.log(2.0)
    cum = 0.0
    rank = 0
    for k in range(1, n + 1):
        i = k - 1
        cum += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half_n)
        if cum <= half * (1 + 1e-12):
            rank = k
        else:
            break
    return rank


def relative_half_width(samples, confidence: float = 0.95) -> float:
    """Half the median's interval over the median; infinity without an interval."""
    s = sorted(samples)
    n = len(s)
    rank = ci_lower_rank(n, confidence)
    med = median(s)
    if rank < 1 or med <= 0:
        return math.inf
    return 0.5 * (s[n - rank] - s[rank - 1]) / med


class Stopper:
    """The C++ AdaptiveStopper: stop once the median's interval is within the target (after the
    minimum samples and time), or once the time is up."""

    def __init__(self, ci_target: float, min_samples: int, min_time_s: float, max_time_s: float,
                 confidence: float = 0.95):
        self.ci_target = ci_target
        self.min_samples = min_samples
        self.min_time_s = min_time_s
        self.max_time_s = max_time_s
        self.confidence = confidence
        self.samples: list[float] = []
        self.elapsed_s = 0.0

    def add(self, sample_s: float, elapsed_s: float) -> None:
        self.samples.append(sample_s)
        self.elapsed_s = elapsed_s

    def target_met(self) -> bool:
        if len(self.samples) < max(self.min_samples, 2):
            return False
        return relative_half_width(self.samples, self.confidence) <= self.ci_target

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
