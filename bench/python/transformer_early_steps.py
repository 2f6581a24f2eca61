"""The article's transformer (bench/python/article_models.py) in its first 20 Adam steps on the CPU:
the loss on one fixed evaluation batch after every step, batch 64, lr 3e-4 with a linear warm-up
over `warm` steps (the C++ workload's schedule with warm=3), optionally with gradient clipping.
Why: a run that ends after 10-20 steps of the transformer (`accelbench run` on a 2-core CPU) can end
on a swing of the loss and report LOSS ROSE; this shows the swing in PyTorch's own model (docs/results.md).
About 3 minutes a run on 2 cores:  .venv/bin/python bench/python/transformer_early_steps.py
With a margin M (seeds 0 and 1, warm-up 3): each sequence's ids fall below 5000 with probability
0.5 +- M (its class picks the sign), labelled by the same rule: does a task far from the decision
boundary stop the early swing?   .venv/bin/python bench/python/transformer_early_steps.py 0.2
"""
import sys, torch, torch.nn as nn, time
sys.path.insert(0, __import__("os").path.dirname(__file__))
from article_models import TransformerClassifier
torch.set_num_threads(2)
MARGIN = float(sys.argv[1]) if len(sys.argv) > 1 else None
def batch(g, B=64):
    if MARGIN is None:
        x = torch.randint(0, 10000, (B, 128), generator=g)
    else:
        c = torch.randint(0, 2, (B, 1), generator=g)
        low = torch.rand(B, 128, generator=g) < 0.5 + MARGIN * (2 * c - 1)
        x = torch.where(low, torch.randint(0, 5000, (B, 128), generator=g),
                        torch.randint(5000, 10000, (B, 128), generator=g))
    y = ((x < 5000).sum(1) * 2 > 128).long()
    return x, y
def run(seed, clip, steps=20, warm=3):
    torch.manual_seed(seed)
    m = TransformerClassifier()
    opt = torch.optim.Adam(m.parameters(), lr=3e-4)
    g = torch.Generator().manual_seed(1000 + seed)
    ev = batch(torch.Generator().manual_seed(99))
    lossf = nn.CrossEntropyLoss()
    def evaluate():
        m.eval()
        with torch.no_grad(): l = lossf(m(ev[0]), ev[1]).item()
        m.train(); return l
    out = [evaluate()]
    for s in range(steps):
        for pg in opt.param_groups: pg["lr"] = 3e-4 * min(1.0, (s + 1) / warm)
        x, y = batch(g)
        loss = lossf(m(x), y)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(m.parameters(), clip if clip else 1e9)
        opt.step()
        out.append(evaluate())
    return out
for seed, warm in ((0, 3), (0, 10), (1, 3)) if MARGIN is None else ((0, 3), (1, 3)):
    t = time.time(); l = run(seed, 0, warm=warm)
    print(("" if MARGIN is None else f"margin {MARGIN} ") + f"seed {seed} warm {warm}: " + " ".join(f"{x:.3f}" for x in l) + f"  max {max(l):.3f} ({time.time()-t:.0f}s)", flush=True)
