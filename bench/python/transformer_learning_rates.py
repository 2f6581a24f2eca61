#!/usr/bin/env python3
"""Which learning rate lets the transformer's loss fall over the steps of a quick run? Trains the
transformer's Python twin (python/accelbench_worker: the same model, initial weights and synthetic
batches as `run --impl python`) with Adam under several recipes, seeds 0..N-1, and prints for each
recipe and step count how many seeds end with the first batch's evaluation loss (dropout off) below
where it started: the measure `run` reports as loss before -> after, and bench/loss_falls.py counts.

  .venv/bin/python bench/python/transformer_learning_rates.py                 # 8 steps, 10 seeds, batch 16
  .venv/bin/python bench/python/transformer_learning_rates.py --recipes "3e-4 warm-up 3,1e-5"

Recipes: the workload's (1e-5, constant), 3e-5 constant, 3e-5 warmed up from 0 over 10 updates,
1e-4 and 3e-4 each with a linear warm-up over 3 updates.
Standard library and torch only; the CPU, 2 threads by default (about 30 s a seed and recipe for
8 steps on 2 cores)."""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from accelbench_worker.workloads.transformer import TransformerClassifier, token_batches  # noqa: E402

RECIPES = {  # name -> (peak lr, warm-up updates, warm-up starts at 0)
    "1e-5": (1e-5, 0, False),
    "3e-5": (3e-5, 0, False),
    "3e-5 warm-up 10 from 0": (3e-5, 10, True),
    "1e-4 warm-up 3": (1e-4, 3, False),
    "3e-4 warm-up 3": (3e-4, 3, False),
}


def trajectory(recipe, seed, batch, steps, beta2=0.999, dropout=True):
    """The first batch's evaluation loss before training and after each step."""
    lr, warmup, from_zero = recipe
    torch.manual_seed(seed)  # as the worker builds it
    model = TransformerClassifier()
    if not dropout:
        for m in model.modules():
            if isinstance(m, torch.nn.Dropout):
                m.p = 0.0
            if isinstance(m, torch.nn.MultiheadAttention):
                m.dropout = 0.0
    batches, _, _ = token_batches({"seed": seed}, batch, steps)
    opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, beta2))
    factor = (lambda k: 1.0) if warmup == 0 else (lambda k: min(1.0, (k if from_zero else k + 1) / warmup))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    (x0,), y0 = batches[0]

    def evaluation_loss():
        model.eval()
        with torch.no_grad():
            return torch.nn.functional.cross_entropy(model(x0), y0).item()

    losses = [evaluation_loss()]
    for (x,), y in batches:
        model.train()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(evaluation_loss())
    return losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--beta2", type=float, default=0.999, help="Adam's beta2 (PyTorch's default 0.999)")
    ap.add_argument("--no-dropout", action="store_true", help="dropout off in training too")
    ap.add_argument("--recipes", default=",".join(RECIPES), help="a comma list of: " + ", ".join(RECIPES))
    a = ap.parse_args()
    names = [n.strip() for n in a.recipes.split(",") if n.strip()]
    unknown = [n for n in names if n not in RECIPES]
    if unknown or a.steps < 1 or a.seeds < 1 or a.batch < 1 or not 0 < a.beta2 < 1:
        sys.exit(f"transformer_learning_rates: bad input: unknown recipes {unknown}" if unknown else
                 "transformer_learning_rates: --steps, --seeds and --batch must be at least 1, --beta2 in (0, 1)")
    torch.set_num_threads(a.threads)
    print(f"batch {a.batch}, {a.steps} steps, seeds 0-{a.seeds - 1}: seeds whose first-batch loss fell, after k steps")
    print(f"{'recipe':<26}" + "".join(f"{k:>6}" for k in range(1, a.steps + 1)) + "   loss before -> after each step (seed 0)")
    for name in names:
        runs = [trajectory(RECIPES[name], seed, a.batch, a.steps, a.beta2, not a.no_dropout) for seed in range(a.seeds)]
        fell = [sum(r[k] < r[0] for r in runs) for k in range(1, a.steps + 1)]
        print(f"{name:<26}" + "".join(f"{f:>6}" for f in fell) + "   " + " ".join(f"{x:.3f}" for x in runs[0]), flush=True)


if __name__ == "__main__":
    main()
