"""Shared timing engine of accelbench's Python eager references.

Used by article_models.py (mlp, cnn, transformer) and real_cases.py (resnet18, bert-base,
dcgan). It times by the harness's rules through the worker's own warm-up detector and stopping
rule (accelbench_worker.timing, checked against the C++ rules by StoppingRuleAgreement): K steps
per sample, a device synchronize around each sample, stop when the median's 95% interval is tight.

It also holds what both scripts share around a training step: the precision (--dtype:
autocast, loss scaling), the eager step, and the CUDA-graph step (--graphs: the whole
training step captured once with torch.cuda.graph and replayed), which `measure` times the
same way as an eager step.

Only the standard library and torch are needed (no numpy).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import platform
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from accelbench_worker.timing import Stopper, WarmupDetector, ci_lower_rank, median  # noqa: E402

SCHEMA = "accelbench.python-reference/1"
NUM_BATCHES = 8            # distinct batches staged on the device, cycled
SEED = 0

# The harness's constants (src/core/stopping.h, docs/methodology.md "One case").
WARMUP_MIN_STEPS = 3
WARMUP_MAX_FRACTION = 0.3  # warm-up gets at most 30% of the case's time
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
# Precision (--dtype) and the training step: eager, or one CUDA graph (--graphs)
# --------------------------------------------------------------------------------------------

# --dtype name -> autocast dtype (None: plain float32), as the C++ tool's precisions.
DTYPES = {"float32": None, "bfloat16": torch.bfloat16, "float16": torch.float16}
GRAPH_WARMUP_STEPS = 3     # eager steps on a side stream before the capture (torch.cuda.graphs docs)
GRAPH_SUFFIX = "[graphs]"  # "mlp[graphs]": the C++ tool's model label for a --graphs case


class Precision:
    """float32, or bfloat16 / float16 mixed precision as the C++ tool runs them.

    Autocast around the forward and the loss (the backward outside it); float16 adds loss
    scaling with torch.amp.GradScaler. With a fused optimizer GradScaler.step() passes the
    scale and the found-inf flag to the optimizer's kernel and update() runs on the device, so
    neither reads a value back to the host and both can be captured in a graph (a non-fused
    optimizer would read found_inf with .item(): make_step_optimizer refuses that).
    """

    def __init__(self, name: str, dev: torch.device, graphs: bool = False):
        if name not in DTYPES:
            raise ValueError(f"unknown dtype {name!r}; choose from {list(DTYPES)}")
        self.name = name
        self.amp_dtype = DTYPES[name]
        self.dev = dev
        self.graphs = graphs
        self.scaler = torch.amp.GradScaler(dev.type) if name == "float16" else None

    def autocast(self):
        """Context for the forward and the loss; a no-op in float32."""
        if self.amp_dtype is None:
            return contextlib.nullcontext()
        # Under --graphs the autocast cache is off, as torch's CUDA-graph docs ask: a weight cast
        # taken from the cache instead of recomputed in the capture would be a constant to the
        # replays, which would then never see the updated weights in bf16/fp16.
        return torch.autocast(self.dev.type, dtype=self.amp_dtype, cache_enabled=not self.graphs)

    def backward(self, loss: torch.Tensor) -> None:
        (self.scaler.scale(loss) if self.scaler is not None else loss).backward()

    def step(self, opt) -> None:
        """optimizer.step(), through the loss scaler in float16."""
        if self.scaler is None:
            opt.step()
        else:
            self.scaler.step(opt)
            self.scaler.update()


def make_step_optimizer(params, dev: torch.device, cls, label: str, graphs: bool,
                        precision: Precision | None = None, tensor_lr: bool = False, **kwargs):
    """The case's optimizer: make_optimizer() for eager steps; for --graphs a capturable one.

    Graphs: `cls(params, fused=True, capturable=True, **kwargs)` (foreach + capturable where
    fused is refused, except in float16, whose GradScaler would then sync). tensor_lr: the
    learning rate is a 0-dim tensor on the device, which the fused kernel reads at each replay,
    so that a schedule can change it in place (`fill_`) between replays.
    Returns (optimizer, kind), kind e.g. "adam-fused", "adamw-fused-capturable".
    """
    if not graphs:
        return make_optimizer(params, dev, cls, label, **kwargs)
    params = list(params)
    if tensor_lr:
        kwargs["lr"] = torch.tensor(float(kwargs["lr"]), dtype=torch.float32, device=dev)
    try:
        return cls(params, fused=True, capturable=True, **kwargs), f"{label}-fused-capturable"
    except (RuntimeError, ValueError, TypeError) as e:
        if precision is not None and precision.scaler is not None:
            raise GraphRefused(f"float16 needs the fused {cls.__name__} kernel here: without it "
                               f"GradScaler.step() reads found_inf with .item(), which a graph "
                               f"cannot hold ({e})") from e
        print(f"note: fused capturable {cls.__name__} unavailable on {dev} ({e}); using foreach",
              file=sys.stderr)
    return cls(params, foreach=True, capturable=True, **kwargs), f"{label}-foreach-capturable"


class GraphRefused(Exception):
    """A case that --graphs cannot run (main() prints it and exits with status 2)."""


class GraphCaptureError(RuntimeError):
    """torch.cuda.graph failed to capture a case's step (main() records it as skipped)."""


class HostSyncError(RuntimeError):
    """A tensor value read on the host inside a step that is to be captured (forbid_host_sync)."""


@dataclass
class TrainCase:
    """One model's training step, built by article_models.py / real_cases.py.

    train_step(batch) runs forward, loss, backward and the optimizer step(s), and returns the
    loss tensor (or a tuple of them, see read_loss); it does NOT clear the gradients: zero_grad()
    does, before each eager step. Under --graphs, train_step(static inputs) is what is captured.
    before_step / after_step are host-side work around each step (a learning-rate schedule):
    outside the graph, before and after each replay.
    """
    name: str
    train_step: Callable[[Any], Any]
    batches: list
    zero_grad: Callable[[], None]
    n_params: int
    optimizer: str
    precision: Precision
    modules: list = field(default_factory=list)       # the nn.Modules trained (for checks)
    before_step: Callable[[], None] | None = None
    after_step: Callable[[], None] | None = None
    read_loss: Callable[[Any], Any] | None = None     # see measure(); default: loss.item()
    extra: dict = field(default_factory=dict)         # fields of the case's JSON record
    finish: Callable[[], dict] | None = None          # more fields, read after the timing


def _map_tensors(fn, b):
    """fn(tensor) over a batch: a tensor, or a tuple / list / dict of them."""
    if isinstance(b, torch.Tensor):
        return fn(b)
    if isinstance(b, dict):
        return {k: _map_tensors(fn, v) for k, v in b.items()}
    if isinstance(b, (tuple, list)):
        return type(b)(_map_tensors(fn, v) for v in b)
    return b


def channels_last_batch(b):
    """A batch with its 4-D tensors (images) in torch.channels_last (--channels-last); labels
    and other tensors as they are."""
    return _map_tensors(
        lambda t: t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t, b)


def _copy_batch(dst, src) -> None:
    """dst.copy_(src) for every tensor of a batch (same structure)."""
    if isinstance(dst, torch.Tensor):
        dst.copy_(src)
    elif isinstance(dst, dict):
        for k in dst:
            _copy_batch(dst[k], src[k])
    elif isinstance(dst, (tuple, list)):
        for d, s_ in zip(dst, src):
            _copy_batch(d, s_)


@contextlib.contextmanager
def forbid_host_sync():
    """Makes reading a tensor's value on the host raise HostSyncError (.item(), .tolist(),
    bool(t), int(t), float(t), using it as an index): what a CUDA graph capture cannot contain.
    Only where no capture is possible (the CPU check of the static-input path), so that the
    Python code of a captured step is checked there too; torch's C++ code is not covered.
    """
    names = ("item", "tolist", "__bool__", "__int__", "__float__", "__index__")
    own = {n: torch.Tensor.__dict__[n] for n in names if n in torch.Tensor.__dict__}

    def refuse(n):
        def f(self, *args, **kwargs):
            raise HostSyncError(f"Tensor.{n} inside a step that is to be captured "
                                "(a host synchronization: a CUDA graph capture fails on it)")
        return f

    try:
        for n in names:
            setattr(torch.Tensor, n, refuse(n))
        yield
    finally:
        for n in names:
            if n in own:
                setattr(torch.Tensor, n, own[n])
            else:
                delattr(torch.Tensor, n)


@contextlib.contextmanager
def simulated_capture():
    """What a step sees inside a CUDA graph capture, where none can be taken (the CPU check):
    host reads refused (forbid_host_sync) and torch.cuda.is_current_stream_capturing() True,
    so that code asking it takes its capture path (transformers, for instance, then builds
    BERT's attention mask without checking on the host whether it has padding)."""
    saved = torch.cuda.is_current_stream_capturing
    torch.cuda.is_current_stream_capturing = lambda: True
    try:
        with forbid_host_sync():
            yield
    finally:
        torch.cuda.is_current_stream_capturing = saved


def eager_step(case: TrainCase):
    """The eager step for measure(): the next staged batch (cycled), zero_grad, train_step."""
    it = 0

    def step():
        nonlocal it
        b = case.batches[it % len(case.batches)]
        it += 1
        case.zero_grad()
        if case.before_step is not None:
            case.before_step()
        out = case.train_step(b)
        if case.after_step is not None:
            case.after_step()
        return out

    return step


class GraphedStep:
    """The whole training step captured once in a CUDA graph and replayed (--graphs), as the
    PyTorch docs' "whole-network capture" (torch.cuda.graphs) writes it by hand, and what
    torch.compile(mode="reduce-overhead") does:

    * static inputs: clones of the first staged batch (inputs, targets, masks) on the device;
    * warm-up: GRAPH_WARMUP_STEPS eager steps on a side stream, each on the next staged batch
      copied into the static inputs;
    * gradients set to None, then forward + loss + backward + optimizer step captured with
      torch.cuda.graph (no zero_grad inside: the captured backward writes the gradients anew
      in each replay);
    * each call (a timed step): the next staged batch copied into the static inputs, the
      host-side before_step (e.g. the learning rate filled into its tensor), replay,
      after_step; returns the static loss tensor(s) the replays write.

    capture=False (any device; the CPU check in git history: 1549e6e:bench/python/graphs_cpu_check.py) runs the same
    sequence without a graph: every step after the warm-up calls train_step on the static
    inputs under simulated_capture(), so its losses must follow the eager step's exactly.
    The batches are cycled over warm-up and timed steps alike: step k uses batch k % 8 in
    both modes.
    """

    def __init__(self, case: TrainCase, dev: torch.device, capture: bool = True,
                 warmup_steps: int = GRAPH_WARMUP_STEPS):
        if capture and dev.type != "cuda":
            raise GraphRefused(f"--graphs needs a CUDA device (torch.cuda.graph); got {dev}")
        self.case = case
        self.dev = dev
        self.capture = capture
        self.warmup_steps = warmup_steps
        # preserve_format: the static inputs keep the staged batches' layout (channels_last
        # under --channels-last), which copy_ then keeps, so the captured convolutions see the
        # same layout as the eager step
        self.static = _map_tensors(lambda t: t.clone(memory_format=torch.preserve_format),
                                   case.batches[0])
        self.graph = None
        self.out = None
        self.it = 0
        self.warmup_losses = []   # the warm-up steps' losses, detached (not read here)
        self.capture_s = 0.0

    def _next_batch(self):
        b = self.case.batches[self.it % len(self.case.batches)]
        self.it += 1
        return b

    def _eager_static_step(self):
        """One eager warm-up step on the static inputs; returns its loss(es), detached."""
        _copy_batch(self.static, self._next_batch())
        self.case.zero_grad()
        if self.case.before_step is not None:
            self.case.before_step()
        out = self.case.train_step(self.static)
        if self.case.after_step is not None:
            self.case.after_step()
        return _map_tensors(lambda t: t.detach(), out)

    def setup(self) -> float:
        """Warm-up steps, then the capture; returns the seconds taken (not part of the timing)."""
        t0 = time.perf_counter()
        if not self.capture:
            for _ in range(self.warmup_steps):
                self.warmup_losses.append(self._eager_static_step())
            self.capture_s = time.perf_counter() - t0
            return self.capture_s
        # Warm-up on a side stream: lazy initialisation (cuBLAS/cuDNN handles and workspaces,
        # the optimizer's state, the loss scale) happens outside the capture.
        s = torch.cuda.Stream(device=self.dev)
        s.wait_stream(torch.cuda.current_stream(self.dev))
        with torch.cuda.stream(s), warnings.catch_warnings():
            # torch warns once per optimizer that a capturable one steps outside a capture
            warnings.filterwarnings("ignore", message=".*capturable=True.*")
            for _ in range(self.warmup_steps):
                self.warmup_losses.append(self._eager_static_step())
        torch.cuda.current_stream(self.dev).wait_stream(s)
        # The capture: gradients None first, so the captured backward allocates them from the
        # graph's private pool and each replay writes them (no accumulation, no zero_grad).
        self.case.zero_grad()
        if self.case.before_step is not None:
            self.case.before_step()     # lr in its tensor (read at replay time, not now)
        self.graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(self.graph):
                self.out = self.case.train_step(self.static)
        except Exception as e:
            self.graph = None
            raise GraphCaptureError(f"{self.case.name}: the training step could not be "
                                    f"captured as a CUDA graph: {type(e).__name__}: "
                                    f"{str(e).splitlines()[0] if str(e) else ''}") from e
        torch.cuda.synchronize(self.dev)
        self.capture_s = time.perf_counter() - t0
        return self.capture_s

    def __call__(self):
        """One training step (what measure() times): copy in, before_step, replay, after_step."""
        _copy_batch(self.static, self._next_batch())
        if self.case.before_step is not None:
            self.case.before_step()
        if self.capture:
            self.graph.replay()
            out = self.out
        else:
            # No graph (CPU check): the step itself on the static inputs, as captured. zero_grad
            # stands for what a replay does by construction (its backward writes the gradients).
            self.case.zero_grad()
            with simulated_capture():
                out = self.case.train_step(self.static)
        if self.case.after_step is not None:
            self.case.after_step()
        return out


def graph_label(name: str, graphs: bool) -> str:
    return name + GRAPH_SUFFIX if graphs else name


def time_case(case: TrainCase, dev: torch.device, graphs: bool, batch_size: int,
              ci_target: float, min_samples: int, min_time: float, max_time: float,
              verbose: bool = True) -> dict:
    """Times `case` with measure() (eager steps, or graph replays) and returns its record.

    The record's model is "name" or "name[graphs]"; it states "dtype" and "graphs".
    """
    label = graph_label(case.name, graphs)
    extra = {"dtype": case.precision.name, "graphs": graphs}
    if graphs:
        gs = GraphedStep(case, dev, capture=True)
        setup_s = gs.setup()
        if verbose:
            print(f"[{label}] {gs.warmup_steps} eager warm-up steps on a side stream and the "
                  f"capture: {setup_s:.2f} s", flush=True)
        step = gs
        extra.update({"graph_warmup_steps": gs.warmup_steps, "graph_setup_s": setup_s})
    else:
        step = eager_step(case)
    if case.precision.scaler is not None:
        extra["loss_scaling"] = "torch.amp.GradScaler"
    timing = measure(label, step, dev, ci_target, min_samples, min_time, max_time, verbose,
                     read_loss=case.read_loss)
    extra.update(case.extra)
    if case.finish is not None:
        extra.update(case.finish())
    return case_record(label, batch_size, timing, case.n_params, case.optimizer, extra)


# --------------------------------------------------------------------------------------------
# Statistics: the worker's (python/accelbench_worker/timing.py, checked against the C++ rules)
# --------------------------------------------------------------------------------------------

def median_sorted(s):
    return median(s) if s else float("nan")


def median_ci(sorted_samples, alpha: float = CI_ALPHA):
    """(low, high) distribution-free CI of the median, or (None, None) if n is too small."""
    n = len(sorted_samples)
    l = ci_lower_rank(n, 1.0 - alpha)
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
    """Time `step()` (one training step, not synchronised) by the harness's rules: the worker's
    WarmupDetector and Stopper (accelbench_worker.timing), which decide as src/core/stopping.cpp.

    `step` is an eager step (eager_step) or a graph replay (GraphedStep), timed alike.
    `read_loss(ret)` turns what `step()` returned into a float loss, or into a dict with a 'loss'
    key plus other named losses (read outside the timed regions only). Returns the timing fields
    of a case: median_s, ci_low_s, ci_high_s, mean_s, n_samples, steps_per_sample, noisy, samples,
    loss_first, loss_last, warmup_steps, warmup_s, sampling_s, and `extra_losses`.
    """
    read_loss = read_loss or _tensor_loss
    case_start = time.perf_counter()
    warm, loss_first = _warm_up(name, step, dev, read_loss, case_start, WARMUP_MAX_FRACTION * max_time)
    warm_median = warm.recent_median()
    steps_per_sample = max(1, math.ceil(MIN_SAMPLE_SECONDS / warm_median)) if warm_median > 0 else 1
    warmup_seconds = time.perf_counter() - case_start
    if verbose:
        print(f"[{name}] warm-up: {len(warm.steps)} steps in {warmup_seconds:.2f} s, "
              f"median step {warm_median * 1e3:.3f} ms -> steps_per_sample={steps_per_sample}",
              flush=True)

    # sampling: K steps back to back, synchronise, time / K, until the Stopper says so
    stopper = Stopper(ci_target, min_samples, min_time, max(0.0, max_time - warmup_seconds))
    sample_start = time.perf_counter()
    last_ret = None
    while True:
        t0 = time.perf_counter()
        for _ in range(steps_per_sample):
            last_ret = step()
        sync(dev)
        t1 = time.perf_counter()
        stopper.add((t1 - t0) / steps_per_sample, t1 - sample_start)
        if stopper.should_stop():
            break
    sampling_seconds = time.perf_counter() - sample_start
    loss_last = _read_losses(name, read_loss, last_ret, "last")
    samples = stopper.samples
    ordered = sorted(samples)
    lo, hi = median_ci(ordered)
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
        "median_s": median(ordered), "ci_low_s": lo, "ci_high_s": hi, "mean_s": sum(samples) / len(samples),
        "n_samples": len(samples), "steps_per_sample": steps_per_sample,
        "noisy": lo is None or not stopper.target_met(), "samples": samples,
        "loss_first": loss_first["loss"], "loss_last": loss_last["loss"],
        "warmup_steps": len(warm.steps), "warmup_s": warmup_seconds, "sampling_s": sampling_seconds,
        "extra_losses": extra,
    }


def _warm_up(name: str, step, dev: torch.device, read_loss, case_start: float, budget_s: float):
    """One synchronised step at a time until the WarmupDetector calls the times stable, or the
    warm-up's share of the case's time is spent. Returns the detector and the first step's losses."""
    warm = WarmupDetector(min_steps=WARMUP_MIN_STEPS)
    loss_first = None
    while True:
        t0 = time.perf_counter()
        ret = step()
        sync(dev)
        t1 = time.perf_counter()
        warm.add(t1 - t0)
        if loss_first is None:
            loss_first = _read_losses(name, read_loss, ret, "first")  # outside the timed region
        if warm.stable() or (len(warm.steps) >= WARMUP_MIN_STEPS and t1 - case_start >= budget_s):
            return warm, loss_first


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
    headers = ["model", "device", "dtype", "batch", "median ms", "CI low ms", "CI high ms",
               "samples", "noisy", "samples/s"]
    rows = []
    for c in cases:
        rows.append([
            c["model"], dev_str, c.get("dtype", "float32"), str(c["batch_size"]),
            _fmt_ms(c["median_s"]),
            _fmt_ms(c["ci_low_s"]), _fmt_ms(c["ci_high_s"]), str(c["n_samples"]),
            "yes" if c["noisy"] else "no",
            f"{c['batch_size'] / c['median_s']:.1f}" if c["median_s"] > 0 else "-",
        ])
    if not rows:
        print("(no cases run)")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(widths[i]) if i < 3 else h.rjust(widths[i])
                     for i, h in enumerate(headers))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(v.ljust(widths[i]) if i < 3 else v.rjust(widths[i])
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
    p.add_argument("--dtype", default="float32",
                   help="comma-separated: float32, bfloat16, float16 (autocast around the "
                        "forward and the loss; float16 with GradScaler), as the C++ tool")
    p.add_argument("--graphs", nargs="?", const="only", choices=("only", "both"), default=None,
                   help="capture each model's whole training step once in a CUDA graph and time "
                        "its replays (CUDA only); '--graphs both': eager, then graphs, per model")
    p.add_argument("--graphs-and-eager", dest="graphs", action="store_const", const="both",
                   help="same as --graphs both")
    p.add_argument("--cudnn-benchmark", action="store_true",
                   help="torch.backends.cudnn.benchmark = True (cuDNN times its convolution "
                        "algorithms and keeps the fastest); default off, torch's default")
    p.add_argument("--channels-last", action="store_true",
                   help="convolution models only: model and staged image batches in "
                        "torch.channels_last (NHWC); the others ignore it")


def parse_models(p: argparse.ArgumentParser, a, choices):
    """Validates the common arguments, applies --threads and --cudnn-benchmark; returns the
    list of models."""
    models = [m.strip() for m in a.models.split(",") if m.strip()]
    unknown = [m for m in models if m not in choices]
    if unknown:
        p.error(f"unknown model(s) {unknown}; choose from {list(choices)}")
    if a.batch_size < 1:
        p.error("--batch-size must be >= 1")
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    if a.cudnn_benchmark:
        # here, before any model is built: cuDNN then picks its algorithms in each case's
        # first steps (warm-up; under --graphs the eager warm-up before the capture)
        torch.backends.cudnn.benchmark = True
    a.dtypes = [d.strip() for d in a.dtype.split(",") if d.strip()]
    bad = [d for d in a.dtypes if d not in DTYPES]
    if bad or not a.dtypes:
        p.error(f"unknown --dtype {bad or a.dtype!r}; choose from {list(DTYPES)}")
    # eager and/or graphs, in this order, for each model and dtype
    a.graph_modes = {None: [False], "only": [True], "both": [False, True]}[a.graphs]
    return models


def check_graphs_device(a, dev: torch.device) -> None:
    """--graphs off CUDA, or float16 where the fused (capturable) Adam is missing: a one-line
    error and exit status 2, before any case runs (never a silent eager run instead)."""
    if not a.graphs:
        return
    if dev.type != "cuda":
        print(f"error: --graphs needs a CUDA device (torch.cuda.graph); got --device {dev}",
              file=sys.stderr)
        sys.exit(2)
    if "float16" in a.dtypes:
        try:
            torch.optim.Adam([torch.zeros(1, device=dev, requires_grad=True)], fused=True,
                             capturable=True)
        except (RuntimeError, ValueError, TypeError) as e:
            print("error: --graphs with float16 needs the fused Adam kernel (GradScaler.step() "
                  f"reads found_inf with .item() otherwise); unavailable here: {e}",
                  file=sys.stderr)
            sys.exit(2)


class SkipModel(Exception):
    """A model that cannot run here at all (e.g. bert-base without transformers)."""


def run_all(models, build, dev: torch.device, a, verbose: bool = True):
    """For each model, each --dtype, eager and/or graphs (--graphs): build(model, dtype, graphs)
    makes the case anew (same seed), time_case() times it.

    Returns (cases, skipped); a model whose build raises SkipModel, and a graphs case whose
    capture fails (GraphCaptureError), are skipped with their reason, the others still run.
    """
    cases, skipped = [], []
    for m in models:
        try:
            for dtype in a.dtypes:
                for graphs in a.graph_modes:
                    case = None
                    try:
                        case = build(m, dtype, graphs)
                        cases.append(time_case(case, dev, graphs, a.batch_size, a.ci_target,
                                               a.min_samples, a.min_time, a.max_time, verbose))
                    except GraphCaptureError as e:
                        label = graph_label(m, graphs)
                        print(f"[{label}] skipped: {e}", file=sys.stderr, flush=True)
                        skipped.append({"model": label, "dtype": dtype, "graphs": graphs,
                                        "reason": str(e)})
                    finally:
                        # free the model/optimizer/graph of this case before the next one
                        del case
                        if dev.type == "cuda":
                            gc.collect()
                            torch.cuda.empty_cache()
        except SkipModel as e:
            print(f"[{m}] skipped: {e}", flush=True)
            skipped.append({"model": m, "reason": str(e)})
    return cases, skipped


def common_settings(a) -> dict:
    return {
        "batch_size": a.batch_size, "ci_target": a.ci_target,
        "min_samples": a.min_samples, "min_time_s": a.min_time,
        "max_time_s": a.max_time, "num_batches": NUM_BATCHES, "seed": SEED,
        "dtypes": a.dtypes, "graphs": {None: "off", "only": "only", "both": "both"}[a.graphs],
        # torch's state, not only the flag: what the convolutions actually ran with
        "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
        "channels_last": bool(a.channels_last),
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
