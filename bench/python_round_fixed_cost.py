#!/usr/bin/env python3
"""What a round costs besides its warm-up and its samples, per loop and workload: each round's wall
time (the harness's clock, from the round's start to its result) less the warm-up and the sampling
the round reports, averaged over the rounds of `accelbench run --impl cpp,python`; beside it the
floor of a fresh Python process (the interpreter's start, and `import torch`) timed here.

Usage: python_round_fixed_cost.py BINARY PYTHON [--models mlp,cnn,transformer] [--rounds 4]
                                  [--repeat 2] [--max-time-per-case 40s] [--spawn]
  --spawn: the rounds in a fresh interpreter each (ACCELBENCH_PYTHON_ROUNDS=spawn), the way a
           Python round ran before the round server, for the comparison.
  ACCELBENCH_PYTHON_WORKER in the environment points a binary at another worker (an older build's).

Prints one row per workload and loop: rounds, the fixed cost per round (median over the repeats of
the mean over a run's rounds), and the floor's median over 5 processes. Standard library only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def floor_s(python, code, n=5):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run([python, "-c", code], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def fixed_costs(case):
    """(rounds, the mean of wall - warm-up - sampling over the case's rounds)."""
    rounds = case.get("rounds") or [{"wall_s": case["wall_s"]}]
    wall = sum(r["wall_s"] for r in rounds)
    busy = case.get("warmup", {}).get("seconds", 0.0) + case.get("measure_s", 0.0)
    return len(rounds), (wall - busy) / len(rounds)


def one_run(args, folder, env):
    out = os.path.join(folder, "run.json")
    cmd = [args.binary, "run", "--impl", "cpp,python", "--models", args.models, "--devices", "cpu", "--python", args.python,
           "--rounds", str(args.rounds), "--max-time-per-case", args.max_time_per_case, "--budget", "60m", "--ci-target",
           "0.05", "--no-save", "--no-progress", "--no-telemetry", "--parity-steps", "0", "--json", out, "--quiet"]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)["cases"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("python")
    p.add_argument("--models", default="mlp,cnn,transformer")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--max-time-per-case", default="40s")
    p.add_argument("--spawn", action="store_true")
    args = p.parse_args()
    env = dict(os.environ)
    if args.spawn:
        env["ACCELBENCH_PYTHON_ROUNDS"] = "spawn"
    per_case = {}
    with tempfile.TemporaryDirectory(prefix="accelbench-fixed-cost-") as folder:
        for _ in range(args.repeat):
            for c in one_run(args, folder, env):
                key = (c["workload"], c.get("impl", "cpp"))
                n, cost = fixed_costs(c)
                per_case.setdefault(key, []).append((n, cost))
    python_start = floor_s(args.python, "pass")
    import_torch = floor_s(args.python, "import torch")
    print(f"{'workload':12} {'loop':7} {'rounds':>6} {'fixed cost per round':>21}")
    for (workload, impl), values in per_case.items():
        rounds = "/".join(str(n) for n, _ in values)
        print(f"{workload:12} {impl:7} {rounds:>6} {statistics.median(c for _, c in values):>19.2f} s")
    print(f"floor of a fresh Python process here: interpreter {python_start:.2f} s, with import torch {import_torch:.2f} s"
          f" (medians of 5){'; rounds in a fresh interpreter each (--spawn)' if args.spawn else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
