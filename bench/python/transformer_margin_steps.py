"""The article's transformer in its first 20 Adam steps on the CPU, as transformer_early_steps.py, but on
data with a margin: each sequence's ids fall below 5000 with probability 0.5 +- MARGIN (its class
picks the sign), labelled by the same rule (most ids below 5000). Does a task far from the decision
boundary stop the early swing? Results: docs/results/2026-12-01-cpu-2core-transformer-early-steps.md.
About 4 minutes a seed on 2 cores:  .venv/bin/python bench/python/transformer_margin_steps.py 0.2
"""
import sys, torch, torch.nn as nn, time
sys.path.insert(0, __import__("os").path.dirname(__file__))
from article_models import TransformerClassifier
torch.set_num_threads(2)
MARGIN = float(sys.argv[1])
def batch(g, B=64):
    c = torch.randint(0, 2, (B, 1), generator=g)
    p = 0.5 + MARGIN * (2 * c - 1)  # the chance of an id below 5000
    low = torch.rand(B, 128, generator=g) < p
    x = torch.where(low, torch.randint(0, 5000, (B, 128), generator=g), torch.randint(5000, 10000, (B, 128), generator=g))
    y = ((x < 5000).sum(1) * 2 > 128).long()
    return x, y
def run(seed, steps=20, warm=3):
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
        opt.zero_grad(); loss.backward(); opt.step()
        out.append(evaluate())
    return out
for seed in (0, 1):
    t = time.time(); l = run(seed)
    print(f"margin {MARGIN} seed {seed}: " + " ".join(f"{x:.3f}" for x in l) + f"  max {max(l):.3f} ({time.time()-t:.0f}s)", flush=True)
