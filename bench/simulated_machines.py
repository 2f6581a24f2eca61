"""Simulated machines for bench/replay_intervals.py: series of run documents, as `run --json` writes
them (cases with their rounds, speed-ups), of three models on the CPU and one accelerator, whose
run-to-run behaviour is known. Standard library only.

Each run, each model: the CPU's and the accelerator's log levels move by a run effect (sd run_sd,
unseen by the rounds) and each round by a round effect (sd round_sd), the two devices' effects
correlated `rho` at both levels (their rounds interleave in time, as `run` takes them). A machine
may also switch the accelerator between two levels `level` apart (log) with chance `switch` between
two runs, which no round sees. The transformer is device-bound on the accelerator (busy 99%, its
step there moving 0.2%), so its speed-up moves with the CPU alone; `one_sample` gives the CPU
transformer one sample a round (its median one step, `step_sd` from step to step) and a single round.
"""
import math
import random
import statistics

# name, CPU step (s), accelerator step (s), the accelerator's busy share of the step
MODELS = (("mlp", 2e-3, 6e-4, 0.3), ("cnn", 5e-2, 8e-3, 0.4), ("transformer", 12.0, 2.6e-2, 0.99))

MACHINES = {
    # the two devices' figures move together (correlation 0.9), 7% a run in all
    "together": dict(round_sd=0.06, run_sd=0.04, rho=0.9, level=0.0, switch=0.0),
    # ... and apart (correlation 0)
    "apart": dict(round_sd=0.06, run_sd=0.04, rho=0.0, level=0.0, switch=0.0),
    # the accelerator switches between two levels 15% apart; rounds 2% apart see none of it
    "device-level": dict(round_sd=0.02, run_sd=0.0, rho=0.0, level=math.log(1.15), switch=0.5),
    # the CPU transformer gets one sample in one round a run: its median is one step (sd 12%)
    "one-sample": dict(round_sd=0.05, run_sd=0.03, rho=0.0, level=0.0, switch=0.0, one_sample=True, step_sd=0.12),
}


def _pair(rng, sd, rho):
    """Two normal draws of sd `sd` with correlation `rho`."""
    a, b = rng.gauss(0, 1), rng.gauss(0, 1)
    return sd * a, sd * (rho * a + math.sqrt(1 - rho * rho) * b)


def _case(model, device, level, round_effects, busy, samples):
    medians = [math.exp(level + e) for e in round_effects]
    case = {"workload": model, "device": device, "dtype": "float32", "batch_size": 64, "threads": 2, "status": "ok",
            "stats": {"median": statistics.median(medians), "n": samples * len(medians)},
            "rounds": [{"median_s": m, "samples": samples} for m in medians]}
    if busy is not None:
        case["device_time"] = {"busy_fraction": busy}
    return case


def machine_runs(machine, rng, runs=10, rounds=3):
    """One simulated machine's `runs` back-to-back run documents, oldest first."""
    m = MACHINES[machine] if isinstance(machine, str) else machine
    slow = rng.random() < 0.5
    docs = []
    for i in range(runs):
        if i and rng.random() < m["switch"]:
            slow = not slow
        cases, speedups = [], []
        for name, cpu_s, dev_s, busy in MODELS:
            device_bound = busy >= 0.9
            rho = 0.0 if device_bound else m["rho"]
            run_cpu, run_dev = _pair(rng, m["run_sd"], rho)
            if device_bound:
                run_dev = rng.gauss(0, 0.001)
            one = m.get("one_sample") and name == "transformer"
            cpu_rounds, dev_rounds = [], []
            for _ in range(1 if one else rounds):
                a, b = _pair(rng, m["round_sd"], rho)
                cpu_rounds.append(a + (rng.gauss(0, m["step_sd"]) if one else 0))
                dev_rounds.append(rng.gauss(0, 0.002) if device_bound else b)
            dev_level = math.log(dev_s) + run_dev + (m["level"] if slow and not device_bound else 0)
            cpu = _case(name, "cpu", math.log(cpu_s) + run_cpu, cpu_rounds, None, 1 if one else 30)
            dev = _case(name, "cuda:0", dev_level, dev_rounds, busy, 30)
            cases += [dev, cpu]
            speedups.append({"workload": name, "model": name, "device": "cuda:0", "baseline_device": "cpu",
                             "dtype": "float32", "batch_size": 64,
                             "ratio": cpu["stats"]["median"] / dev["stats"]["median"]})
        docs.append({"cases": cases, "speedups": speedups})
    return docs


def machines(names, count, seed=1, runs=10, rounds=3):
    """{name: [series, ...]}: `count` simulated machines of each name, each a list of run documents."""
    rng = random.Random(seed)
    return {n: [machine_runs(n, rng, runs, rounds) for _ in range(count)] for n in names}
