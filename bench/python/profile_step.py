"""Top device kernels of one workload's eager training step under torch.profiler, for comparing
with `accelbench profile MODEL --device cuda --dtype DT` (the same ops, the same batch).

    python3 bench/python/profile_step.py --model transformer --dtype bfloat16 [--steps 5] [--top 25]

Prints the ops by self device time per step (ms) and the total. Not a timing of the step: the
profiler adds host overhead; the device times are what matter.
"""
import argparse
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import article_models  # noqa: E402
from timing import eager_step  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="transformer", choices=["mlp", "cnn", "transformer"])
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--top", type=int, default=25)
    a = p.parse_args()
    dev = torch.device("cuda")
    case = article_models.build_case(a.model, dev, a.batch_size, a.dtype, graphs=False, verbose=False)
    step = eager_step(case)
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(a.steps):
            step()
        torch.cuda.synchronize()
    events = prof.key_averages()
    attr = "self_device_time_total" if hasattr(events[0], "self_device_time_total") else "self_cuda_time_total"
    rows = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    total = sum(getattr(e, attr) for e in events)
    print(f"{a.model} {a.dtype} batch {a.batch_size}: device time {total / 1e3 / a.steps:.3f} ms a step (self, all ops)")
    print(f"{'op':60s} {'ms/step':>9s} {'calls/step':>10s}")
    for e in rows[: a.top]:
        print(f"{e.key[:60]:60s} {getattr(e, attr) / 1e3 / a.steps:9.3f} {e.count / a.steps:10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
