#!/usr/bin/env python3
"""Does training train? Runs `accelbench run --quick --impl cpp,python` once per seed and counts,
for each workload, precision, device and implementation, the seeds whose loss after the run
(`loss_after`, the first batch in eval mode) is below the loss before it. Also says how far the two
loops' starting losses are apart (the same initial weights and batches: 0 up to rounding) and how
many training steps each took (warm-up plus samples).

  python3 bench/loss_falls.py                      # mlp, cnn, transformer; float32; CPU; 10 seeds
  python3 bench/loss_falls.py --models all --devices cuda --dtypes float32,bfloat16,float16 --out DIR
  python3 bench/loss_falls.py --devices cuda --jobs 8 --out DIR -- --budget 900s   # seeds side by side

--jobs N runs N seeds at once: their step times are not what is measured here, only whether the loss
fell (a case bounded by time takes fewer steps when the runs share the machine; the steps column says
how many each took).

Standard library only. Exit status 0 when every seed's loss fell, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile

ALL = "mlp,cnn,transformer,resnet18,bert-base,dcgan"


def steps_of(case: dict) -> int:
    warm = case.get("warmup", {}).get("steps", 0)
    return int(warm) + len(case.get("samples", [])) * int(case.get("steps_per_sample", 1) or 1)


def run_seed(a, seed: int, scratch: str) -> list[dict]:
    out = os.path.join(scratch, f"seed{seed}.json")
    cmd = [a.bin, "run", "--models", a.models, "--impl", a.impl, "--devices", a.devices, "--dtype", a.dtypes,
           "--seed", str(seed), "--quick", "--rounds", "1", "--parity-steps", "0", "--no-telemetry", "--no-save",
           "--no-progress", "--json", out] + a.extra
    if a.python:
        cmd += ["--python", a.python]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if not os.path.exists(out):
        sys.exit(f"error: {' '.join(cmd)} wrote no results (exit {r.returncode}): {r.stderr.strip()[-300:]}")
    with open(out) as f:
        return json.load(f)["cases"]


def cases_by_seed(a, scratch: str) -> dict:
    """Each seed's cases: read from --from or a resumed --out, else run (--jobs at once)."""
    found, to_run = {}, []
    for seed in range(a.seeds):
        path = os.path.join(scratch, f"seed{seed}.json")
        if (a.from_dir or a.out) and os.path.exists(path):  # --from, or --out resumed: kept as it ran
            with open(path) as f:
                found[seed] = json.load(f)["cases"]
        elif not a.from_dir:
            to_run.append(seed)

    def one(seed):
        cases = run_seed(a, seed, scratch)
        print(f"seed {seed} done", file=sys.stderr, flush=True)
        return seed, cases

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        found.update(pool.map(one, to_run))
    return found


def key_of(case: dict):
    return case["workload"], case.get("dtype", "float32"), case["device"], case.get("impl", "cpp")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp,cnn,transformer", help=f"workloads (all: {ALL})")
    p.add_argument("--devices", default="cpu")
    p.add_argument("--dtypes", default="float32")
    p.add_argument("--impl", default="cpp,python")
    p.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1")
    p.add_argument("--bin", default=os.environ.get("BIN", "build/accelbench"))
    p.add_argument("--python", default="", help="the interpreter of the Python cases (accelbench's default otherwise)")
    p.add_argument("--out", default="", help="a folder for each seed's run JSON and the summary (loss_falls.json); "
                   "seeds already there are kept, not run again (an interrupted run resumes)")
    p.add_argument("--from", dest="from_dir", default="",
                   help="summarize the seed*.json runs already in this folder (an interrupted --out) instead of running")
    p.add_argument("--jobs", type=int, default=1, help="seeds run at once (default 1)")
    p.add_argument("extra", nargs="*", help="more accelbench run flags, after --")
    a = p.parse_args()
    if a.models == "all":
        a.models = ALL
    if a.seeds < 1 or a.jobs < 1:
        p.error("--seeds and --jobs must be at least 1")
    if not a.from_dir and not os.access(a.bin, os.X_OK):
        p.error(f"no accelbench binary at {a.bin} (--bin or $BIN)")
    scratch = a.from_dir or a.out or tempfile.mkdtemp(prefix="loss-falls-")
    os.makedirs(scratch, exist_ok=True)
    runs = {}
    for seed, cases in sorted(cases_by_seed(a, scratch).items()):
        for case in cases:
            runs.setdefault(key_of(case), []).append((seed, case))
    rows, all_fell = [], True
    print(f"{'workload':<12} {'dtype':<9} {'device':<7} {'impl':<7} {'fell':>6} {'failed':>6}  "
          f"{'loss before -> after (median)':<30} {'steps (median)':>14}  {'start vs cpp':>12}")
    for (workload, dtype, device, impl), cases in sorted(runs.items()):
        ok = [(s, c) for s, c in cases if c.get("status") == "ok" and "loss_after" in c]
        fell = sum(1 for _, c in ok if c["loss_after"] < c["loss_before"])
        all_fell &= fell == len(cases)
        before = statistics.median(c["loss_before"] for _, c in ok) if ok else float("nan")
        after = statistics.median(c["loss_after"] for _, c in ok) if ok else float("nan")
        steps = statistics.median(steps_of(c) for _, c in ok) if ok else 0
        start = ""
        if impl != "cpp":
            cpp = dict((s, c) for s, c in runs.get((workload, dtype, device, "cpp"), []) if c.get("status") == "ok")
            gaps = [abs(c["loss_before"] - cpp[s]["loss_before"]) / cpp[s]["loss_before"] for s, c in ok if s in cpp]
            start = f"{max(gaps):.1e}" if gaps else "-"
        print(f"{workload:<12} {dtype:<9} {device:<7} {impl:<7} {fell:>3}/{len(cases):<2} {len(cases) - len(ok):>6}  "
              f"{before:>12.4f} -> {after:<14.4f} {steps:>14g}  {start:>12}")
        rows.append({"workload": workload, "dtype": dtype, "device": device, "impl": impl, "seeds": len(cases),
                     "fell": fell, "failed": len(cases) - len(ok), "median_loss_before": before,
                     "median_loss_after": after, "median_steps": steps,
                     "per_seed": [{"seed": s, "status": c.get("status"), "loss_before": c.get("loss_before"),
                                   "loss_after": c.get("loss_after"), "steps": steps_of(c)} for s, c in cases]})
    print("start vs cpp: the largest relative gap between the Python and C++ losses before training, over the seeds")
    with open(os.path.join(scratch, "loss_falls.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(f"runs and summary in {scratch}")
    return 0 if all_fell else 1


if __name__ == "__main__":
    sys.exit(main())
