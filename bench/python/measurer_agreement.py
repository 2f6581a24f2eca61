#!/usr/bin/env python3
"""Whether accelbench's Python measurer adds time of its own: its step times against
bench/python/article_models.py timing the same step at the same settings, in pairs of processes
run alternately (bench/gpu/python-measurer.sh writes them).

    python3 bench/python/measurer_agreement.py OUT_DIR
    python3 bench/python/measurer_agreement.py --in-process DEVICE MODEL [BLOCKS [SECONDS]] [--flush-denormal]
    (MODEL: mlp, cnn or transformer, the models of article_models.py)

The first reads OUT_DIR/agree-DEVICE-MODEL-N-accelbench.json (run --json) and
OUT_DIR/agree-DEVICE-MODEL-N-article.json (article_models.py --json) and prints, per device and
model, each pair's ratio (accelbench / article), their median, whether it is within 3%, and the
95% interval of the pairs' geometric mean ratio (t over the log ratios: how precisely the pairs pin
the ratio down), and then each script against itself: the max/min of its processes' medians. A pair whose process timed fewer than 3 samples (the floor a process takes when its
time allows: fewer means its start-up took the time it was given) is left out and named.
Standard library only.

--in-process asks the same question where the host's speed wanders by more than 3% between
processes and over seconds (on the H200's shared host, processes of article_models.py alone differed
up to 1.7x; on a 2-core VM its step drifted 4.1 -> 6.1 ms within one process): one Python process
(torch needed) builds the measurer's step (accelbench_worker.round.Round, given the request the C++
harness sends: fused Adam, batch 64, float32, built and warmed up as a round does) and
article_models.py's, and times samples of the same number of steps of each in turn, the order
swapped each time, so that both see the same moments of the host. BLOCKS blocks (5) of SECONDS (4)
each; a block's ratio is its two medians' ratio. Same columns; exit 0 when the median is within 3%.
It times the two steps, not the processes around them: the worker's start-up is not in a step's
time either way. Both steps train on the same batches (the measurer's: Fashion-MNIST, or the
tokens of the transformer's task), so that they differ only by their code: with its own uniform
noise, article_models.py's mlp left 516,750 of its Adam moments subnormal after about 800 steps
against the measurer's 23,850 (weights whose gradient stays exactly zero: their moments decay into
float32's subnormal range), and arithmetic on subnormals is slow on some processors. The check
counts them in each optimizer's state; --flush-denormal (torch.set_flush_denormal, the calling
thread's) flushes them."""

import glob
import json
import os
import re
import statistics
import sys
import time

from overhead_stats import paired  # the mean of the pairs' log ratios with its Student t interval

MIN_SAMPLES = 3


def main(argv) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out = argv[1]
    pairs = {}
    for path in sorted(glob.glob(os.path.join(out, "agree-*-accelbench.json"))):
        m = re.match(r"agree-(.+)-(\w+)-(\d+)-accelbench\.json$", os.path.basename(path))
        other = path.replace("-accelbench.json", "-article.json")
        if not m or not os.path.exists(other):
            continue
        device, model, _ = m.groups()
        try:
            ours_case = json.load(open(path))["cases"][0]
            theirs_case = json.load(open(other))["cases"][0]
            ours, theirs = ours_case["stats"]["median"], theirs_case["median_s"]
            counts = (len(ours_case.get("samples", [])), int(theirs_case.get("n_samples", 0)))
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            print(f"{path}: unreadable ({e})", file=sys.stderr)
            continue
        if min(counts) < MIN_SAMPLES:
            print(f"{os.path.basename(path)[:-len('-accelbench.json')]}: left out, {counts[0]} and {counts[1]} samples "
                  f"(fewer than {MIN_SAMPLES}: the process's start-up took its time)", file=sys.stderr)
            continue
        pairs.setdefault((device, model), []).append((ours, theirs))
    if not pairs:
        print(f"no pairs in {out}", file=sys.stderr)
        return 1
    worst = 0.0
    print("device  model        pairs  accelbench ms  article ms  ratios (accelbench/article)        median  within 3%"
          "  geometric mean [95%]")
    for (device, model), ps in sorted(pairs.items()):
        ratios = [a / b for a, b in ps]
        med = statistics.median(ratios)
        worst = max(worst, abs(med - 1))
        print(f"{device:7} {model:12} {len(ps):5}  {statistics.median(a for a, _ in ps) * 1e3:13.3f}"
              f"  {statistics.median(b for _, b in ps) * 1e3:10.3f}  {' '.join(f'{r:.3f}' for r in ratios):34}"
              f"  {med:6.3f}  {'yes' if abs(med - 1) <= 0.03 else 'NO ':9}  {interval_text(ps)}")
    print_self_spread(pairs)
    return 0 if worst <= 0.03 else 1


def print_self_spread(pairs) -> None:
    """Each script against itself: the max/min of its processes' medians. Where the reference's own
    processes differ by more than 3%, pairs of processes cannot show an agreement within 3%."""
    print("each script against itself, max/min of its processes' medians:")
    for (device, model), ps in sorted(pairs.items()):
        if len(ps) >= 2:
            ours, theirs = [a for a, _ in ps], [b for _, b in ps]
            print(f"  {device} {model}: accelbench {max(ours) / min(ours):.3f}, article {max(theirs) / min(theirs):.3f}"
                  + ("" if max(theirs) / min(theirs) <= 1.03 else ": the reference's own processes differ by more than 3%"))


def interval_text(ps) -> str:
    """The pairs' geometric mean ratio and its 95% interval (the mean alone under two pairs)."""
    stats = paired([b for _, b in ps], [a for a, _ in ps])
    if stats is None:
        return f"{ps[0][0] / ps[0][1]:.3f}"
    mean, low, high, _ = (1 + x / 100 for x in stats)
    return f"{mean:.3f} [{low:.3f}, {high:.3f}]"


def measurer_request(device: str, model: str, seconds: float) -> dict:
    """The request `run --impl python --py-optimizer adam:fused --rounds 1` sends its worker."""
    settings = {"ci_target": 0.02, "confidence": 0.95, "floor_samples": 3, "max_time_s": seconds,
                "max_warmup_fraction": 0.3, "min_sample_time_s": 0.001, "min_samples": 10, "min_time_s": 0.5,
                "min_warmup_steps": 3}
    inputs = {"py_optimizer": "adam:fused", "seed": 0, "seq_len": 128, "data_dir": "", "py_model": ""}
    spec = {"workload": model, "device": device, "dtype": "float32", "batch_size": 64, "width": 0, "threads": 0,
            "impl": "python"}
    return {"spec": spec, "measure": {"inputs": inputs, "settings": settings}}


def in_process(argv) -> int:
    """--in-process DEVICE MODEL [BLOCKS [SECONDS]] [--flush-denormal] [--no-verdict]: both steps
    interleaved in this one process. Exit 0 when the median ratio is within 3%, 1 when not (0 either
    way with --no-verdict: the figures alone, as the test suite runs it, where load may move them)."""
    flush = "--flush-denormal" in argv
    no_verdict = "--no-verdict" in argv
    argv = [x for x in argv if x not in ("--flush-denormal", "--no-verdict")]
    try:
        device, model = argv[0], argv[1]
        n, seconds = (int(argv[2]) if len(argv) > 2 else 5), (float(argv[3]) if len(argv) > 3 else 4.0)
        if len(argv) > 4 or n < 1 or not seconds > 0 or model not in ("mlp", "cnn", "transformer"):
            raise ValueError  # the models article_models.py has
    except (IndexError, ValueError):
        print("measurer_agreement.py: --in-process takes DEVICE MODEL [BLOCKS [SECONDS]] [--flush-denormal] [--no-verdict], "
              "MODEL mlp, cnn or transformer, BLOCKS >= 1, SECONDS > 0", file=sys.stderr)
        return 2
    steps = InterleavedSteps(device, model, seconds, flush)
    pairs = []
    for i in range(n):
        a, b = steps.block(seconds)
        pairs.append((a, b))
        print(f"block {i + 1}: measurer {a * 1e3:.3f} ms, article {b * 1e3:.3f} ms; subnormal values in the optimizers' "
              f"state {steps.subnormals(0)}, {steps.subnormals(1)}", file=sys.stderr)
    ratios = [a / b for a, b in pairs]
    med = statistics.median(ratios)
    print(f"device  model        blocks  measurer ms  article ms  ratios (measurer/article, one process){'':2}"
          "  median  within 3%  geometric mean [95%]")
    print(f"{steps.device:7} {model:12} {n:6}  {statistics.median(a for a, _ in pairs) * 1e3:11.3f}"
          f"  {statistics.median(b for _, b in pairs) * 1e3:10.3f}  {' '.join(f'{r:.3f}' for r in ratios):40}"
          f"  {med:6.3f}  {'yes' if abs(med - 1) <= 0.03 else 'NO ':9}  {interval_text(pairs)}")
    print(f"subnormal values in the optimizers' state: measurer {steps.subnormals(0)}, article {steps.subnormals(1)}"
          + (" (flushed to zero: --flush-denormal)" if flush else ""))
    return 0 if no_verdict or abs(med - 1) <= 0.03 else 1


class InterleavedSteps:
    """The measurer's step (a worker Round built and warmed up as `run` builds one, on DEVICE, an
    index added to a bare accelerator type) and article_models.py's (its model and eager step, fed
    the measurer's staged batches, warmed up as many steps), timed in turn."""

    def __init__(self, device: str, model: str, seconds: float, flush_denormal: bool):
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path[:0] = [here, os.path.join(here, "..", "..", "python")]
        import torch
        from accelbench_worker.round import Round
        from article_models import build_case
        from timing import eager_step
        self.torch = torch
        dev = torch.device(device)
        self.dev = torch.device(dev.type, 0) if dev.type != "cpu" and dev.index is None else dev
        self.device = str(self.dev)
        torch.set_flush_denormal(flush_denormal)
        r = Round(measurer_request(self.device, model, seconds))
        r.build()
        r.warm_up()
        case = build_case(model, self.dev, 64, verbose=False)
        case.batches = [(inputs[0], target) for inputs, target in r.task.batches]  # the same data for both
        theirs = eager_step(case)
        for _ in range(max(3, r.r["warmup"]["steps"])):
            theirs()
        self.sync()
        self.steps, self.k = (r.task.step, theirs), r.steps_per_sample
        # article_models.py keeps its optimizer in the closure of the case's zero_grad
        cells = [c.cell_contents for c in (case.zero_grad.__closure__ or ())]
        self.optimizers = (r.task.optimizer, next((c for c in cells if isinstance(c, torch.optim.Optimizer)), None))

    def sync(self) -> None:
        if self.dev.type != "cpu":
            self.torch.accelerator.synchronize(self.dev)

    def block(self, seconds: float):
        """(measurer, article): the medians of samples of k steps, the two taken in turn (the order
        swapped each time) for `seconds`, at least 3 each."""
        samples = ([], [])
        end = time.perf_counter() + seconds
        turn = 0
        while time.perf_counter() < end or len(samples[1]) < 3:
            for which in ((0, 1) if turn % 2 == 0 else (1, 0)):
                step = self.steps[which]
                t0 = time.perf_counter()
                for _ in range(self.k):
                    step()
                self.sync()
                samples[which].append((time.perf_counter() - t0) / self.k)
            turn += 1
        return statistics.median(samples[0]), statistics.median(samples[1])

    def subnormals(self, which: int) -> str:
        """How many values of the optimizer's state lie between 0 and float32's smallest normal."""
        opt = self.optimizers[which]
        if opt is None:
            return "?"
        tiny = self.torch.finfo(self.torch.float32).tiny
        count = 0
        for state in opt.state.values():
            for v in state.values():
                if self.torch.is_tensor(v) and v.is_floating_point() and v.dim() > 0:
                    a = v.detach().abs()
                    count += int(((a > 0) & (a < tiny)).sum())
        return str(count)


if __name__ == "__main__":
    sys.exit(in_process(sys.argv[2:]) if sys.argv[1:2] == ["--in-process"] else main(sys.argv))
