"""Shared timing engine of accelbench's Python eager references.

Used by article_models.py (mlp, cnn, transformer) and real_cases.py (resnet18, bert-base,
dcgan). It mirrors the C++ engine: adaptive warm-up, K steps per sample, a device synchronize
around each sample, stop when the 95% distribution-free CI of the median is tight enough.

Only the standard library and torch are needed (no numpy).
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import os
import platform
import sys
import time
from fractions import Fraction
from functools import lru_cache

import torch

SCHEMA = "accelbench.python-reference/1"
NUM_BATCHES = 8            # distinct batches staged on the device, cycled
SEED = 0

# Timing constants; these mirror the C++ engine.
WARMUP_MIN_STEPS = 3
WARMUP_TOLERANCE = 0.05    # |median(last w) - median(previous w)| <= 5% of median(previous w)
WARMUP_WINDOW_SECONDS = 0.5
WARMUP_WINDOW_MAX = 5
WARMUP_MAX_FRACTION = 0.2  # warm-up gets at most 20% of the case's max time
MIN_SAMPLE_SECONDS = 1e-3  # steps_per_sample * step time >= 1 ms
CI_ALPHA = 0.05            # 95% confidence interval


# --------------------------------------------------------------------------------------------
# Device helpers
# --------------------------------------------------------------------------------------------

def sync(device: torch.device) -> None:
    """Wait for all queued work on `device` (nothing to do for cpu)."""
    if device.type == "cpu":
        return
    acc = getattr(torch, "accelerator", None)
    if acc is not None and hasattr(acc, "synchronize"):
        try:
            cur = acc.current_accelerator() if hasattr(acc, "current_accelerator") else None
            if cur is not None and cur.type == device.type:
                acc.synchronize(device)
                return
        except Exception:
            pass
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()
    elif device.type == "xpu" and hasattr(torch, "xpu"):
        torch.xpu.synchronize(device)


def resolve_device(spec: str) -> torch.device:
    if spec == "auto":
        if torch.cuda.is_available():
            spec = "cuda"
        elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            spec = "mps"
        else:
            spec = "cpu"
    dev = torch.device(spec)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            sys.exit("error: --device cuda requested but torch.cuda.is_available() is False")
        if dev.index is None:
            dev = torch.device("cuda", torch.cuda.current_device())
        torch.cuda.set_device(dev)
    elif dev.type == "mps":
        if not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            sys.exit("error: --device mps requested but MPS is not available")
    return dev


def device_name(dev: torch.device) -> str:
    if dev.type == "cuda":
        return torch.cuda.get_device_name(dev)
    if dev.type == "mps":
        return "Apple MPS"
    name = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return name or platform.processor() or platform.machine() or "cpu"


def make_optimizer(params, dev: torch.device, cls=torch.optim.Adam, label: str = "adam",
                   **kwargs):
    """`cls(params, fused=True, **kwargs)`, or foreach (then default) when fused is refused.

    Returns (optimizer, kind) with kind e.g. "adam-fused", "adamw-foreach".
    """
    params = list(params)
    if dev.type in ("cpu", "cuda", "mps"):
        try:
            return cls(params, fused=True, **kwargs), f"{label}-fused"
        except (RuntimeError, ValueError, TypeError) as e:
            print(f"note: fused {cls.__name__} unavailable on {dev} ({e}); using foreach",
                  file=sys.stderr)
    try:
        return cls(params, foreach=True, **kwargs), f"{label}-foreach"
    except (RuntimeError, ValueError, TypeError):
        return cls(params, **kwargs), f"{label}-default"


def param_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


# --------------------------------------------------------------------------------------------
# Statistics (no numpy)
# --------------------------------------------------------------------------------------------

def warmup_window(last_step_s: float) -> int:
    """w = clamp(floor(0.5 s / last step time), 1, 5)."""
    if last_step_s <= 0:
        return WARMUP_WINDOW_MAX
    return min(max(int(WARMUP_WINDOW_SECONDS / last_step_s), 1), WARMUP_WINDOW_MAX)


def median_sorted(s):
    n = len(s)
    if n == 0:
        return float("nan")
    m = n // 2
    return s[m] if n % 2 else 0.5 * (s[m - 1] + s[m])


def median(xs):
    return median_sorted(sorted(xs))


def _binom_half_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 0.5), float, for large n (sums the lower tail)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if 2 * k > n:
        return 1.0 - _binom_half_cdf(n - k - 1, n)
    log_p = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2.0)
    term = math.exp(log_p)
    total = term
    i = k
    while i > 0:
        term *= i / (n - i + 1)  # pmf(i-1) / pmf(i)
        total += term
        if term <= total * 1e-17:
            break
        i -= 1
    return total


@lru_cache(maxsize=None)
def ci_lower_rank(n: int, alpha: float = CI_ALPHA) -> int:
    """Largest 1-based rank l with P(Binom(n, .5) <= l-1) <= alpha/2; 0 when none exists.

    The CI of the median is then [x_(l), x_(n-l+1)] (order statistics, 1-based).
    """
    half = alpha / 2.0
    if n <= 0:
        return 0
    if n <= 1000:
        # exact integer arithmetic: P(X <= k) = sum_{i<=k} C(n,i) / 2^n
        half_q = Fraction(str(alpha)) / 2
        denom = 1 << n
        cum = 0
        l = 0
        for k in range(1, n + 1):
            cum += math.comb(n, k - 1)       # cum = sum_{i<=k-1} C(n, i)
            if cum <= half_q * denom:
                l = k
            else:
                break
        return l
    # large n: start from the normal approximation and correct with the float CDF
    l = max(1, int(math.floor(n / 2.0 - 1.959963984540054 * math.sqrt(n) / 2.0)))
    while _binom_half_cdf(l, n) <= half:      # rank l+1 is still valid
        l += 1
    while l > 0 and _binom_half_cdf(l - 1, n) > half:
        l -= 1
    return l


def median_ci(sorted_samples, alpha: float = CI_ALPHA):
    """(low, high) distribution-free CI of the median, or (None, None) if n is too small."""
    n = len(sorted_samples)
    l = ci_lower_rank(n, alpha)
    if l < 1:
        return None, None
    return sorted_samples[l - 1], sorted_samples[n - l]


# --------------------------------------------------------------------------------------------
# Benchmark engine (mirrors the C++ engine)
# --------------------------------------------------------------------------------------------

def _tensor_loss(loss) -> float:
    return float(loss.item())


def _read_losses(name: str, read_loss, ret, which: str) -> dict:
    """{'loss': float, other keys...} from a step's return value; all must be finite."""
    v = read_loss(ret)
    d = dict(v) if isinstance(v, dict) else {"loss": float(v)}
    for k, x in d.items():
        assert math.isfinite(x), f"{name}: {which} {k} is not finite ({x})"
    return d


def _fmt_losses(d: dict) -> str:
    s = f"{d['loss']:.4f}"
    extra = [f"{k} {v:.4f}" for k, v in d.items() if k != "loss"]
    return s + (f" ({', '.join(extra)})" if extra else "")


def measure(name: str, step, dev: torch.device, ci_target: float, min_samples: int,
            min_time: float, max_time: float, verbose: bool = True, read_loss=None) -> dict:
    """Time `step()` (one training step, not synchronised) the way the C++ engine does.

    `read_loss(ret)` turns what `step()` returned into a float loss, or into a dict with a
    'loss' key plus other named losses (read outside the timed regions only). Returns the
    timing fields of a case: median_s, ci_low_s, ci_high_s, mean_s, n_samples,
    steps_per_sample, noisy, samples, loss_first, loss_last, warmup_steps, warmup_s,
    sampling_s, and `extra_losses` ({key_first/key_last: value} for the non-'loss' keys).
    """
    read_loss = read_loss or _tensor_loss
    case_start = time.perf_counter()
    warmup_budget = WARMUP_MAX_FRACTION * max_time

    # ---- warm-up: one step at a time, synchronised, until the median settles ----
    warm = []
    loss_first = None
    while True:
        t0 = time.perf_counter()
        ret = step()
        sync(dev)
        t1 = time.perf_counter()
        warm.append(t1 - t0)
        if loss_first is None:
            loss_first = _read_losses(name, read_loss, ret, "first")  # outside the timed region
        w = warmup_window(warm[-1])
        n = len(warm)
        if n >= WARMUP_MIN_STEPS and n >= 2 * w:
            recent = median(warm[-w:])
            before = median(warm[-2 * w:-w])
            if abs(recent - before) <= WARMUP_TOLERANCE * before:
                break
        if n >= WARMUP_MIN_STEPS and (t1 - case_start) >= warmup_budget:
            break
    # "median warm-up step time" = median of the last w warm-up steps (the settled window)
    warm_median = median(warm[-warmup_window(warm[-1]):])
    steps_per_sample = max(1, math.ceil(MIN_SAMPLE_SECONDS / warm_median)) if warm_median > 0 else 1
    while steps_per_sample > 1 and (steps_per_sample - 1) * warm_median >= MIN_SAMPLE_SECONDS:
        steps_per_sample -= 1  # guard against float rounding in ceil
    warmup_seconds = time.perf_counter() - case_start
    if verbose:
        print(f"[{name}] warm-up: {len(warm)} steps in {warmup_seconds:.2f} s, "
              f"median step {warm_median * 1e3:.3f} ms -> steps_per_sample={steps_per_sample}",
              flush=True)

    # ---- sampling: K steps back-to-back, synchronise, time / K ----
    samples = []          # in order of measurement
    sorted_samples = []   # kept sorted for the median / CI
    noisy = False
    sample_start = time.perf_counter()
    last_ret = None
    while True:
        t0 = time.perf_counter()
        for _ in range(steps_per_sample):
            last_ret = step()
        sync(dev)
        t1 = time.perf_counter()
        s = (t1 - t0) / steps_per_sample
        samples.append(s)
        bisect.insort(sorted_samples, s)
        n = len(samples)
        if n >= min_samples and (t1 - sample_start) >= min_time:
            med = median_sorted(sorted_samples)
            lo, hi = median_ci(sorted_samples)
            if lo is not None and 0.5 * (hi - lo) <= ci_target * med:
                break
        if (t1 - case_start) >= max_time:
            noisy = True
            break
    sampling_seconds = time.perf_counter() - sample_start

    loss_last = _read_losses(name, read_loss, last_ret, "last")

    med = median_sorted(sorted_samples)
    lo, hi = median_ci(sorted_samples)
    if lo is None:
        noisy = True  # too few samples for a CI
    mean = sum(samples) / len(samples)
    if verbose:
        print(f"[{name}] loss first step {_fmt_losses(loss_first)}, last step "
              f"{_fmt_losses(loss_last)}; {len(samples)} samples in {sampling_seconds:.2f} s",
              flush=True)

    extra = {}
    for k in loss_first:
        if k != "loss":
            extra[f"{k}_first"] = loss_first[k]
            extra[f"{k}_last"] = loss_last[k]
    return {
        "median_s": med,
        "ci_low_s": lo,
        "ci_high_s": hi,
        "mean_s": mean,
        "n_samples": len(samples),
        "steps_per_sample": steps_per_sample,
        "noisy": noisy,
        "samples": samples,
        "loss_first": loss_first["loss"],
        "loss_last": loss_last["loss"],
        "warmup_steps": len(warm),
        "warmup_s": warmup_seconds,
        "sampling_s": sampling_seconds,
        "extra_losses": extra,
    }


def case_record(name: str, batch_size: int, timing: dict, n_params: int, optimizer: str,
                extra: dict | None = None) -> dict:
    """A case of the accelbench.python-reference/1 JSON (fields in the schema's order)."""
    rec = {"model": name, "batch_size": batch_size}
    for k in ("median_s", "ci_low_s", "ci_high_s", "mean_s", "n_samples", "steps_per_sample",
              "noisy", "samples"):
        rec[k] = timing[k]
    rec["param_count"] = n_params
    rec["loss_first"] = timing["loss_first"]
    rec["loss_last"] = timing["loss_last"]
    for k in ("warmup_steps", "warmup_s", "sampling_s"):
        rec[k] = timing[k]
    rec["optimizer"] = optimizer
    rec.update(timing.get("extra_losses") or {})
    rec.update(extra or {})
    return rec


def check_params(name: str, n_params: int, expected: int, verbose: bool = True) -> None:
    assert n_params == expected, (
        f"{name}: parameter count {n_params:,} != expected {expected:,}")
    if verbose:
        print(f"[{name}] parameters: {n_params:,} (expected {expected:,}: ok)", flush=True)


# --------------------------------------------------------------------------------------------
# CLI helpers
# --------------------------------------------------------------------------------------------

def _fmt_ms(v):
    return "-" if v is None else f"{v * 1e3:.3f}"


def print_table(dev_str: str, cases) -> None:
    headers = ["model", "device", "batch", "median ms", "CI low ms", "CI high ms", "samples",
               "noisy", "samples/s"]
    rows = []
    for c in cases:
        rows.append([
            c["model"], dev_str, str(c["batch_size"]), _fmt_ms(c["median_s"]),
            _fmt_ms(c["ci_low_s"]), _fmt_ms(c["ci_high_s"]), str(c["n_samples"]),
            "yes" if c["noisy"] else "no",
            f"{c['batch_size'] / c['median_s']:.1f}" if c["median_s"] > 0 else "-",
        ])
    if not rows:
        print("(no cases run)")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(widths[i]) if i < 2 else h.rjust(widths[i])
                     for i, h in enumerate(headers))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(v.ljust(widths[i]) if i < 2 else v.rjust(widths[i])
                        for i, v in enumerate(r)))


def add_common_args(p: argparse.ArgumentParser, default_models: str, choices) -> None:
    p.add_argument("--models", default=default_models,
                   help="comma-separated subset of: " + ",".join(choices))
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N, mps or auto (default cpu)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=0,
                   help="torch.set_num_threads(N); 0 keeps torch's default")
    p.add_argument("--ci-target", type=float, default=0.02,
                   help="stop when the median's 95%% CI half-width <= this fraction of the median")
    p.add_argument("--min-samples", type=int, default=10)
    p.add_argument("--min-time", type=float, default=0.5, help="minimum sampling time, seconds")
    p.add_argument("--max-time", type=float, default=20.0,
                   help="maximum time per case (warm-up included), seconds")
    p.add_argument("--json", default=None, help="write results to this JSON file")
    p.add_argument("--quiet", action="store_true", help="only print the table")


def parse_models(p: argparse.ArgumentParser, a, choices):
    """Validates the common arguments, applies --threads; returns the list of models."""
    models = [m.strip() for m in a.models.split(",") if m.strip()]
    unknown = [m for m in models if m not in choices]
    if unknown:
        p.error(f"unknown model(s) {unknown}; choose from {list(choices)}")
    if a.batch_size < 1:
        p.error("--batch-size must be >= 1")
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    return models


def common_settings(a) -> dict:
    return {
        "batch_size": a.batch_size, "ci_target": a.ci_target,
        "min_samples": a.min_samples, "min_time_s": a.min_time,
        "max_time_s": a.max_time, "num_batches": NUM_BATCHES, "seed": SEED,
    }


def write_json(path: str, dev_str: str, dname: str, settings: dict, cases, extra=None) -> None:
    out = {
        "schema": SCHEMA,
        "torch_version": torch.__version__,
        "device": dev_str,
        "device_name": dname,
        "threads": torch.get_num_threads(),
        "python_version": platform.python_version(),
        "settings": settings,
        "cases": cases,
    }
    out.update(extra or {})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
