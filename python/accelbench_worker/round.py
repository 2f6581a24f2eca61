"""One round of a case, step by step, as the C++ engine measures it (src/engine/case_measurement.cpp):
build, warm up until the step time stops moving, group short steps K at a time, sample until the
median's interval meets its target or the round's time is up (timing.py: the engine's rules).
Every sample is K steps closed by a device synchronization, read with time.perf_counter()."""

from __future__ import annotations

import math
import resource
import sys
import time

import torch

from .errors import BadInput, Diverged, first_line, says_out_of_memory
from .task import Task
from .timing import Stopper, WarmupDetector

def synchronize(device: torch.device) -> None:
    if device.type == "cpu":
        return
    acc = getattr(torch, "accelerator", None)
    if acc is not None and hasattr(acc, "synchronize"):
        acc.synchronize(device)
    elif device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def open_device(name: str) -> torch.device:
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise BadInput(f"device {name}: this Python's torch {torch.__version__} has no CUDA")
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise BadInput(f"device {name}: this Python's torch {torch.__version__} has no MPS")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    return device


def process_rss_bytes():
    """(peak, current) resident set of this process in bytes (Linux: /proc/self/status VmHWM and
    VmRSS; elsewhere getrusage's peak for both)."""
    try:
        with open("/proc/self/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return int(fields["VmHWM"].split()[0]) * 1024, int(fields["VmRSS"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak *= 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
        return peak, peak


def reset_peak_rss() -> None:
    """The peak resident set from here on (Linux: VmHWM reset to the current RSS, as the C++ engine)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def check_finite(loss, where: str, step: int) -> None:
    v = float(loss.detach().float().item())  # after the clock was read: not timed
    if not math.isfinite(v):
        kind = "NaN" if math.isnan(v) else "Inf"
        raise Diverged(f"loss became {kind} at {where} step {step}: training diverged")


class Round:
    def __init__(self, request: dict):
        self.spec = request["spec"]
        measure = request.get("measure", {})
        self.inputs = measure.get("inputs", {})
        self.settings = measure.get("settings", {})
        self.allowance_s = float(self.settings.get("max_time_s", 30.0))
        self.start = time.perf_counter()
        self.r = {**self.spec, "status": "ok", "failure": "none", "error": "",
                  "ci_target": self.settings.get("ci_target", 0.02), "samples": []}
        self.task = None
        self.device = None
        self.baseline_rss_bytes = 0

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def run(self) -> dict:
        try:
            self.build()
            self.warm_up()
            self.sample()
            self.finish()
        except BadInput:
            raise
        except Diverged as e:
            self.fail("diverged", str(e))
        except BaseException as e:  # noqa: BLE001 - the result says what went wrong
            if isinstance(e, KeyboardInterrupt):
                raise
            self.fail("out_of_memory" if says_out_of_memory(e) else "backend_error",
                      ("out of memory: " if says_out_of_memory(e) else "") + f"{type(e).__name__}: {first_line(e)}")
        self.r["wall_s"] = self.elapsed()
        self.r["memory"] = self.memory()
        return self.r

    def fail(self, kind: str, message: str) -> None:
        self.r.update(status="failed", failure=kind, error=message)

    def build(self) -> None:
        threads = int(self.spec.get("threads", 0) or 0)
        if threads > 0:
            torch.set_num_threads(threads)
        self.r["threads"] = torch.get_num_threads()
        self.device = open_device(self.spec["device"])
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.device)
        reset_peak_rss()
        self.baseline_rss_bytes = process_rss_bytes()[1]
        self.task = Task(self.spec, self.inputs, self.device)
        t = self.task
        self.r.update(parameter_count=t.parameter_count(), data_source=t.data_source, synthetic_data=t.synthetic,
                      optimizer=t.optimizer_description(), pipeline="staged on the device",
                      train_flops_per_sample=t.flops_per_sample,
                      epoch={"samples_per_epoch": t.samples_per_epoch, "unit": t.epoch_unit})
        self.r["loss_before"] = t.evaluation_loss()
        if not math.isfinite(self.r["loss_before"]):
            raise RuntimeError("the initial loss is not finite")
        if self.spec.get("compile"):
            self.compile_first()

    def compile_first(self) -> None:
        """torch.compile compiles at the first step: that step is taken before the round's clock starts
        (compile time is not the step's), and said beside the case."""
        t0 = time.perf_counter()
        loss = self.task.step()
        synchronize(self.device)
        seconds = time.perf_counter() - t0
        check_finite(loss, "compile", 1)
        self.r["numerics"] = f"torch.compile mode {self.spec['compile']}: first step (compilation) {seconds:.1f} s, before timing"
        self.start = time.perf_counter()

    def warm_up(self) -> None:
        s = self.settings
        self.warmup = WarmupDetector(min_steps=int(s.get("min_warmup_steps", 3)))
        warm_start = time.perf_counter()
        limit = float(s.get("max_warmup_fraction", 0.3)) * self.allowance_s
        stable = True
        while True:
            t0 = time.perf_counter()
            loss = self.task.step()
            synchronize(self.device)
            self.warmup.add(time.perf_counter() - t0)
            check_finite(loss, "warm-up", len(self.warmup.steps))
            if self.warmup.stable():
                break
            count = len(self.warmup.steps)
            out_of_time = count >= self.warmup.min_steps and time.perf_counter() - warm_start >= limit
            if out_of_time or self.minimum_does_not_fit():
                stable = False
                break
        self.r["warmup"] = {"steps": len(self.warmup.steps), "seconds": time.perf_counter() - warm_start,
                            "stable": stable}
        step_s = max(self.warmup.recent_median(), 1e-9)
        self.steps_per_sample = max(1, math.ceil(float(s.get("min_sample_time_s", 1e-3)) / step_s))
        self.r["steps_per_sample"] = self.steps_per_sample

    def minimum_does_not_fit(self) -> bool:
        left = max(0, self.warmup.min_steps - len(self.warmup.steps))
        needed = (left + int(self.settings.get("floor_samples", 3))) * self.warmup.recent_median()
        return needed > self.allowance_s - self.elapsed()

    def floor_samples(self) -> int:
        sample_s = self.warmup.recent_median() * self.steps_per_sample
        left = max(0.0, self.allowance_s - self.elapsed())
        most = int(self.settings.get("floor_samples", 3))
        fit = math.floor(left / sample_s) if sample_s > 0 else most
        return max(1, min(fit, most))

    def sample(self) -> None:
        s = self.settings
        stopper = Stopper(float(s.get("ci_target", 0.02)), int(s.get("min_samples", 10)),
                                float(s.get("min_time_s", 0.5)), max(0.0, self.allowance_s - self.elapsed()),
                                float(s.get("confidence", 0.95)))
        floor = self.floor_samples()
        k = self.steps_per_sample
        step = self.task.step
        device = self.device
        sample_start = time.perf_counter()
        steps = 0
        while True:
            t0 = time.perf_counter()
            for _ in range(k):
                loss = step()
            synchronize(device)
            t1 = time.perf_counter()
            steps += k
            stopper.add((t1 - t0) / k, t1 - sample_start)
            check_finite(loss, "measured", steps)
            if stopper.should_stop() and len(stopper.samples) >= floor:
                break
        self.r["samples"] = stopper.samples
        self.r["measure_s"] = time.perf_counter() - sample_start
        self.r["noisy"] = not stopper.target_met()

    def finish(self) -> None:
        self.r["loss_after"] = self.task.evaluation_loss()

    def memory(self) -> dict:
        m = {"peak_rss_bytes": process_rss_bytes()[0]}
        if self.baseline_rss_bytes:
            m["baseline_rss_bytes"] = self.baseline_rss_bytes
        if self.device is not None and self.device.type == "cuda":
            m.update(peak_allocated_bytes=torch.cuda.max_memory_allocated(self.device),
                     peak_reserved_bytes=torch.cuda.max_memory_reserved(self.device),
                     allocated_bytes=torch.cuda.memory_allocated(self.device),
                     reserved_bytes=torch.cuda.memory_reserved(self.device),
                     source="torch.cuda memory statistics; host peak RSS above its RSS before the build")
        else:
            m["source"] = "host peak RSS above its RSS before the build"
        return m


def check(request: dict) -> str:
    """Builds the case's model on the CPU and runs one forward and loss at batch 2: a module that
    fails to import, a factory that raises, or a forward that fails is bad input (BadInput)."""
    spec = dict(request["spec"], batch_size=2, compile="")
    inputs = request.get("measure", {}).get("inputs", {})
    task = Task(spec, inputs, torch.device("cpu"))
    try:
        with torch.no_grad():
            loss = task.loss_of(task.model, task.next_batch())
        if loss.dim() != 0:
            raise ValueError(f"the loss has shape {list(loss.shape)}, not a scalar")
    except BadInput:
        raise
    except BaseException as e:  # noqa: BLE001
        raise BadInput(f"{spec['workload']}: the forward pass at batch 2 failed: {type(e).__name__}: {first_line(e)}") from None
    return f"ok {task.parameter_count()}"
