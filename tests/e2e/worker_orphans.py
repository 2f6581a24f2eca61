#!/usr/bin/env python3
"""A run of Python cases ended from outside leaves no Python process behind.

Usage: worker_orphans.py BINARY PYTHON MODELS_PY [--kills N] [--random] [--seed S] [-v]

Each trial starts `accelbench run` of one Python case (MODELS_PY:sleeps_20ms, a model whose step
sleeps 20 ms) in a process group of its own and ends it one way:

  - SIGKILL of the run alone at a moment drawn uniformly over its first 3 s (its round server
    starting: the interpreter, torch's import), or over a whole run's measured length (--random:
    every trial so), or while a round is running (the model's factory has written its pid);
  - SIGTERM of the run alone (as timeout(1) sends), while a round is running;
  - SIGINT to the whole group (Ctrl-C in a terminal), while a round is running.

Then every process of the group (the run, its round server, the rounds) must be gone within 10 s
(a zombie that no one reaps counts as gone), while the round that was running had 25 s or more
left (its CI target is out of reach, so it runs its whole allowance): a process left is a failure,
named with its command line. Trials cycle through the ways above, --kills in all (default 4: one of
each). Standard library only; exits 1 on a failure, 2 on bad usage.
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

WAYS = ("kill at random", "kill in a round", "term in a round", "interrupt in a round")
START_UP_S = 3.0


def group_processes(pgid):
    """The live (not zombie) processes of process group `pgid`, with their command lines."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[2]) != pgid or fields[0] in ("Z", "X"):
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                out.append((int(pid), f.read().replace(b"\0", b" ").decode(errors="replace").strip()))
        except (OSError, IndexError, ValueError):
            continue
    return out


def start_run(args, folder):
    pid_file = os.path.join(folder, "pids")
    env = dict(os.environ, ACCELBENCH_DB=os.path.join(folder, "history.db"), ACCELBENCH_TEST_PID_FILE=pid_file)
    cmd = [args.binary, "run", "--py-model", f"{args.models}:sleeps_20ms", "--input", "4:float32", "--target", "classes:2",
           "--devices", "cpu", "--python", args.python, "--rounds", "2", "--max-time-per-case", "60s",
           "--ci-target", "0.0001", "--no-progress", "--no-telemetry", "--parity-steps", "0"]
    log = open(os.path.join(folder, "log"), "w")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    return proc, pid_file


def wait_for_round(pid_file, proc, limit_s=120):
    """Until the model's factory has run in a round process (the check's process writes first)."""
    until = time.monotonic() + limit_s
    while time.monotonic() < until and proc.poll() is None:
        if os.path.exists(pid_file) and len(open(pid_file).read().split("\n")) > 2:
            time.sleep(0.3)  # inside the round's warm-up or samples
            return True
        time.sleep(0.05)
    return False


def end_run(way, proc, pid_file, run_s, rng):
    if way == "kill at random":
        time.sleep(rng.uniform(0, run_s))
        proc.send_signal(signal.SIGKILL)
        return True
    if not wait_for_round(pid_file, proc):
        return False
    if way == "kill in a round":
        proc.send_signal(signal.SIGKILL)
    elif way == "term in a round":
        proc.send_signal(signal.SIGTERM)
    else:
        os.killpg(proc.pid, signal.SIGINT)
    return True


def left_behind(pgid, limit_s=10):
    until = time.monotonic() + limit_s
    while True:
        left = group_processes(pgid)
        if not left or time.monotonic() > until:
            return left
        time.sleep(0.1)


def measured_run_s(args):
    with tempfile.TemporaryDirectory(prefix="accelbench-orphans-") as folder:
        t0 = time.monotonic()
        proc, _ = start_run(args, folder)
        code = proc.wait()
        if code != 0:
            print(f"worker_orphans: the run itself failed (exit {code}):\n" + open(os.path.join(folder, "log")).read())
            sys.exit(1)
        return time.monotonic() - t0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("python")
    p.add_argument("models")
    p.add_argument("--kills", type=int, default=4)
    p.add_argument("--random", action="store_true", help="every trial at a random moment")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-v", action="store_true")
    args = p.parse_args()
    rng = random.Random(args.seed)
    run_s = measured_run_s(args) if args.random else START_UP_S
    failures = 0
    for trial in range(args.kills):
        way = WAYS[0] if args.random else WAYS[trial % len(WAYS)]
        with tempfile.TemporaryDirectory(prefix="accelbench-orphans-") as folder:
            proc, pid_file = start_run(args, folder)
            ended = end_run(way, proc, pid_file, run_s, rng)
            left = left_behind(proc.pid)
            proc.wait()
            for pid, _ in left:  # leave the machine clean
                os.kill(pid, signal.SIGKILL)
            if not ended:
                print(f"trial {trial + 1} ({way}): no round started\n" + open(os.path.join(folder, "log")).read())
                failures += 1
            elif left:
                failures += 1
                print(f"trial {trial + 1} ({way}): left running: " + "; ".join(f"{pid} {cmd}" for pid, cmd in left))
            elif args.v:
                print(f"trial {trial + 1} ({way}): nothing left")
    print(f"worker_orphans: {args.kills} runs ended from outside (random kills within {run_s:.1f} s), "
          f"{failures} left a process behind or failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
