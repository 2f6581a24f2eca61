#!/usr/bin/env python3
"""Python eager-mode reference for accelbench's three workloads (mlp, cnn, transformer).

Each model is trained on synthetic data with Adam, and its step time is measured the way the
C++ engine measures it (adaptive warm-up, steps per sample, stop on the median's 95%
distribution-free confidence interval). The JSON it writes can be compared with
`accelbench run --json` by bench/python/compare_cpp_python.py.

Only the standard library and torch are needed (no numpy).

Example:
    python bench/python/article_models.py --models mlp,cnn,transformer --device cuda \
        --batch-size 64 --ci-target 0.02 --min-samples 10 --max-time 20 --json out.json
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
import torch.nn as nn
import torch.nn.functional as F

SCHEMA = "accelbench.python-reference/1"
NUM_BATCHES = 8            # distinct batches staged on the device, cycled
SEED = 0
LR = 1e-3

# Timing constants; these mirror the C++ engine.
WARMUP_MIN_STEPS = 3
WARMUP_TOLERANCE = 0.05    # |median(last w) - median(previous w)| <= 5% of median(previous w)
WARMUP_WINDOW_SECONDS = 0.5
WARMUP_WINDOW_MAX = 5
WARMUP_MAX_FRACTION = 0.2  # warm-up gets at most 20% of the case's max time
MIN_SAMPLE_SECONDS = 1e-3  # steps_per_sample * step time >= 1 ms
CI_ALPHA = 0.05            # 95% confidence interval

EXPECTED_PARAMS = {
    "mlp": 814_090,
    "cnn": 390_410,
    "transformer": 24_100_866,
}


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(),
            nn.Linear(784, 1024),
            nn.ReLU(),
            nn.Linear(1024, 10),
        )

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),    # 28 -> 14
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 14 -> 7
            nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 7 -> 3
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),                 # 128 * 3 * 3 = 1152
            nn.Linear(1152, 256), nn.ReLU(),
            nn.Linear(256, 10),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


class TransformerClassifier(nn.Module):
    VOCAB = 10_000
    SEQ_LEN = 128
    D_MODEL = 512
    NHEAD = 8
    FFN = 2048
    LAYERS = 6
    DROPOUT = 0.1
    CLASSES = 2

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(self.VOCAB, self.D_MODEL)
        self.pos = nn.Embedding(self.SEQ_LEN, self.D_MODEL)
        self.drop = nn.Dropout(self.DROPOUT)
        layer = nn.TransformerEncoderLayer(
            d_model=self.D_MODEL, nhead=self.NHEAD, dim_feedforward=self.FFN,
            dropout=self.DROPOUT, activation="relu", batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(layer, self.LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(self.D_MODEL, self.CLASSES)
        self.register_buffer("positions", torch.arange(self.SEQ_LEN), persistent=False)

    def forward(self, tokens):
        seq = tokens.shape[1]
        x = self.tok(tokens) + self.pos(self.positions[:seq])  # [B,S,D] + [S,D]
        x = self.drop(x)
        x = self.encoder(x)          # no padding mask
        x = x.mean(dim=1)            # mean-pool over the sequence
        return self.head(x)


MODELS = {"mlp": MLP, "cnn": CNN, "transformer": TransformerClassifier}


def param_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


# --------------------------------------------------------------------------------------------
# Synthetic data (seeded, staged on the device before timing)
# --------------------------------------------------------------------------------------------

def make_batches(name: str, batch_size: int, device: torch.device):
    g = torch.Generator(device="cpu")
    g.manual_seed(SEED)
    batches = []
    for _ in range(NUM_BATCHES):
        if name in ("mlp", "cnn"):
            x = torch.rand(batch_size, 1, 28, 28, generator=g, dtype=torch.float32)
            y = torch.randint(0, 10, (batch_size,), generator=g, dtype=torch.int64)
        elif name == "transformer":
            L = TransformerClassifier.SEQ_LEN
            x = torch.randint(0, TransformerClassifier.VOCAB, (batch_size, L), generator=g,
                              dtype=torch.int64)
            # 1 if more than half of the sequence's tokens are < 5000
            y = ((x < TransformerClassifier.VOCAB // 2).sum(dim=1) * 2 > L).to(torch.int64)
        else:
            raise ValueError(f"unknown model {name!r}")
        batches.append((x.to(device), y.to(device)))
    sync(device)
    return batches


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


def make_optimizer(model: nn.Module, dev: torch.device):
    params = list(model.parameters())
    if dev.type in ("cpu", "cuda", "mps"):
        try:
            return torch.optim.Adam(params, lr=LR, fused=True), "adam-fused"
        except (RuntimeError, ValueError, TypeError) as e:
            print(f"note: fused Adam unavailable on {dev} ({e}); using foreach", file=sys.stderr)
    try:
        return torch.optim.Adam(params, lr=LR, foreach=True), "adam-foreach"
    except (RuntimeError, ValueError, TypeError):
        return torch.optim.Adam(params, lr=LR), "adam-default"


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

def run_case(name: str, dev: torch.device, batch_size: int, ci_target: float, min_samples: int,
             min_time: float, max_time: float, verbose: bool = True) -> dict:
    torch.manual_seed(SEED)
    model = MODELS[name]().to(dev)
    n_params = param_count(model)
    assert n_params == EXPECTED_PARAMS[name], (
        f"{name}: parameter count {n_params:,} != expected {EXPECTED_PARAMS[name]:,}")
    if verbose:
        print(f"[{name}] parameters: {n_params:,} (expected {EXPECTED_PARAMS[name]:,}: ok)",
              flush=True)
    model.train()
    opt, opt_kind = make_optimizer(model, dev)
    batches = make_batches(name, batch_size, dev)
    loss_fn = F.cross_entropy

    it = 0

    def step():
        nonlocal it
        x, y = batches[it % NUM_BATCHES]
        it += 1
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    case_start = time.perf_counter()
    warmup_budget = WARMUP_MAX_FRACTION * max_time

    # ---- warm-up: one step at a time, synchronised, until the median settles ----
    warm = []
    loss_first = None
    while True:
        t0 = time.perf_counter()
        loss = step()
        sync(dev)
        t1 = time.perf_counter()
        warm.append(t1 - t0)
        if loss_first is None:
            loss_first = float(loss.item())  # outside the timed region
            assert math.isfinite(loss_first), f"{name}: first loss is not finite ({loss_first})"
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
    last_loss = None
    while True:
        t0 = time.perf_counter()
        for _ in range(steps_per_sample):
            last_loss = step()
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

    loss_last = float(last_loss.item())
    assert math.isfinite(loss_last), f"{name}: last loss is not finite ({loss_last})"

    med = median_sorted(sorted_samples)
    lo, hi = median_ci(sorted_samples)
    if lo is None:
        noisy = True  # too few samples for a CI
    mean = sum(samples) / len(samples)
    if verbose:
        print(f"[{name}] loss first step {loss_first:.4f}, last step {loss_last:.4f}; "
              f"{len(samples)} samples in {sampling_seconds:.2f} s", flush=True)

    return {
        "model": name,
        "batch_size": batch_size,
        "median_s": med,
        "ci_low_s": lo,
        "ci_high_s": hi,
        "mean_s": mean,
        "n_samples": len(samples),
        "steps_per_sample": steps_per_sample,
        "noisy": noisy,
        "samples": samples,
        "param_count": n_params,
        "loss_first": loss_first,
        "loss_last": loss_last,
        "warmup_steps": len(warm),
        "warmup_s": warmup_seconds,
        "sampling_s": sampling_seconds,
        "optimizer": opt_kind,
    }


# --------------------------------------------------------------------------------------------
# CLI
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
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(widths[i]) if i < 2 else h.rjust(widths[i])
                     for i, h in enumerate(headers))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(v.ljust(widths[i]) if i < 2 else v.rjust(widths[i])
                        for i, v in enumerate(r)))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="mlp,cnn,transformer",
                   help="comma-separated subset of: " + ",".join(MODELS))
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
    a = p.parse_args(argv)

    models = [m.strip() for m in a.models.split(",") if m.strip()]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        p.error(f"unknown model(s) {unknown}; choose from {list(MODELS)}")
    if a.batch_size < 1:
        p.error("--batch-size must be >= 1")
    if a.threads > 0:
        torch.set_num_threads(a.threads)

    dev = resolve_device(a.device)
    dev_str = str(dev)
    dname = device_name(dev)
    if not a.quiet:
        print(f"torch {torch.__version__}, device {dev_str} ({dname}), "
              f"threads {torch.get_num_threads()}, batch {a.batch_size}", flush=True)

    cases = []
    for m in models:
        cases.append(run_case(m, dev, a.batch_size, a.ci_target, a.min_samples, a.min_time,
                              a.max_time, verbose=not a.quiet))
        # free the model/optimizer of the previous case before the next one
        if dev.type == "cuda":
            torch.cuda.empty_cache()

    print()
    print_table(dev_str, cases)

    if a.json:
        out = {
            "schema": SCHEMA,
            "torch_version": torch.__version__,
            "device": dev_str,
            "device_name": dname,
            "threads": torch.get_num_threads(),
            "python_version": platform.python_version(),
            "settings": {
                "batch_size": a.batch_size, "ci_target": a.ci_target,
                "min_samples": a.min_samples, "min_time_s": a.min_time,
                "max_time_s": a.max_time, "num_batches": NUM_BATCHES, "seed": SEED,
            },
            "cases": cases,
        }
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
        os.replace(tmp, a.json)
        if not a.quiet:
            print(f"\nwrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
