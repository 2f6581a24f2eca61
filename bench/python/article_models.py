#!/usr/bin/env python3
"""Python eager-mode reference for accelbench's three workloads (mlp, cnn, transformer).

Each model is trained on synthetic data with Adam, and its step time is measured the way the
C++ engine measures it (adaptive warm-up, steps per sample, stop on the median's 95%
distribution-free confidence interval). The JSON it writes can be compared with
`accelbench run --json` by bench/python/compare_cpp_python.py.

--dtype bfloat16/float16 trains under autocast (float16 with loss scaling), as the C++ tool;
--graphs captures each model's whole training step once in a CUDA graph and times its replays
(timing.GraphedStep), '--graphs both' times eager and graphs side by side.
--cudnn-benchmark sets torch.backends.cudnn.benchmark; --channels-last puts the cnn and its
image batches in torch.channels_last (mlp and transformer ignore it): the convolution
settings the C++ tool can run with.

Only the standard library and torch are needed (no numpy).

Example:
    python bench/python/article_models.py --models mlp,cnn,transformer --device cuda \
        --batch-size 64 --ci-target 0.02 --min-samples 10 --max-time 20 --json out.json
"""

from __future__ import annotations

import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The timing engine lives in timing.py (shared with real_cases.py); re-exported here so
# `article_models.median_ci` etc. keep working for code that imported them from this module.
from timing import (  # noqa: E402,F401
    CI_ALPHA, MIN_SAMPLE_SECONDS, NUM_BATCHES, SCHEMA, SEED, WARMUP_MAX_FRACTION,
    WARMUP_MIN_STEPS, GraphRefused, Precision, TrainCase, add_common_args, case_record, channels_last_batch,
    check_graphs_device, check_params, ci_lower_rank, common_settings, device_name,
    make_step_optimizer, measure, median, median_ci, median_sorted, param_count, parse_models,
    print_table, resolve_device, run_all, sync, time_case, write_json)
from timing import make_optimizer as _make_optimizer  # noqa: E402

LR = 1e-3

EXPECTED_PARAMS = {
    "mlp": 814_090,
    "cnn": 390_410,
    "transformer": 24_100_866,
}


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(),
            nn.Linear(784, 1024),
            nn.ReLU(),
            nn.Linear(1024, 10),
        )

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),    # 28 -> 14
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 14 -> 7
            nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 7 -> 3
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),                 # 128 * 3 * 3 = 1152
            nn.Linear(1152, 256), nn.ReLU(),
            nn.Linear(256, 10),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


class TransformerClassifier(nn.Module):
    VOCAB = 10_000
    SEQ_LEN = 128
    D_MODEL = 512
    NHEAD = 8
    FFN = 2048
    LAYERS = 6
    DROPOUT = 0.1
    CLASSES = 2

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(self.VOCAB, self.D_MODEL)
        self.pos = nn.Embedding(self.SEQ_LEN, self.D_MODEL)
        self.drop = nn.Dropout(self.DROPOUT)
        layer = nn.TransformerEncoderLayer(
            d_model=self.D_MODEL, nhead=self.NHEAD, dim_feedforward=self.FFN,
            dropout=self.DROPOUT, activation="relu", batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(layer, self.LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(self.D_MODEL, self.CLASSES)
        self.register_buffer("positions", torch.arange(self.SEQ_LEN), persistent=False)

    def forward(self, tokens):
        seq = tokens.shape[1]
        x = self.tok(tokens) + self.pos(self.positions[:seq])  # [B,S,D] + [S,D]
        x = self.drop(x)
        x = self.encoder(x)          # no padding mask
        x = x.mean(dim=1)            # mean-pool over the sequence
        return self.head(x)


MODELS = {"mlp": MLP, "cnn": CNN, "transformer": TransformerClassifier}
CONV_MODELS = ("cnn",)   # the ones --channels-last applies to


# --------------------------------------------------------------------------------------------
# Synthetic data (seeded, staged on the device before timing)
# --------------------------------------------------------------------------------------------

def make_batches(name: str, batch_size: int, device: torch.device):
    g = torch.Generator(device="cpu")
    g.manual_seed(SEED)
    batches = []
    for _ in range(NUM_BATCHES):
        if name in ("mlp", "cnn"):
            x = torch.rand(batch_size, 1, 28, 28, generator=g, dtype=torch.float32)
            y = torch.randint(0, 10, (batch_size,), generator=g, dtype=torch.int64)
        elif name == "transformer":
            L = TransformerClassifier.SEQ_LEN
            x = torch.randint(0, TransformerClassifier.VOCAB, (batch_size, L), generator=g,
                              dtype=torch.int64)
            # a label at random; the sequences labelled 1 carry the marker id 0 at every 2nd position
            y = torch.randint(0, 2, (batch_size,), generator=g, dtype=torch.int64)
            x[:, ::2].masked_fill_(y.bool().unsqueeze(1), 0)
        else:
            raise ValueError(f"unknown model {name!r}")
        batches.append((x.to(device), y.to(device)))
    sync(device)
    return batches


# --------------------------------------------------------------------------------------------
# Benchmark (timing engine: timing.py, mirrors the C++ engine)
# --------------------------------------------------------------------------------------------

def make_optimizer(model: nn.Module, dev: torch.device):
    return _make_optimizer(model.parameters(), dev, torch.optim.Adam, "adam", lr=LR)


def build_case(name: str, dev: torch.device, batch_size: int, dtype: str = "float32",
               graphs: bool = False, verbose: bool = True,
               channels_last: bool = False) -> TrainCase:
    """The model (seeded), its optimizer and staged batches, and its training step.

    channels_last (--channels-last): a model of CONV_MODELS and its image batches in
    torch.channels_last; ignored by the others.
    """
    channels_last = channels_last and name in CONV_MODELS
    torch.manual_seed(SEED)
    model = MODELS[name]().to(dev)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    n_params = param_count(model)
    check_params(name, n_params, EXPECTED_PARAMS[name], verbose)
    model.train()
    prec = Precision(dtype, dev, graphs)
    # eager: Adam(fused) as before; graphs: Adam(fused, capturable), constant float lr
    opt, opt_kind = make_step_optimizer(model.parameters(), dev, torch.optim.Adam, "adam",
                                        graphs, prec, lr=LR)
    batches = make_batches(name, batch_size, dev)
    if channels_last:
        batches = [channels_last_batch(b) for b in batches]
    loss_fn = F.cross_entropy

    def train_step(batch):
        """forward + loss (autocast in bf16/fp16), backward, optimizer step; no zero_grad."""
        x, y = batch
        with prec.autocast():
            loss = loss_fn(model(x), y)
        prec.backward(loss)
        prec.step(opt)
        return loss

    return TrainCase(name=name, train_step=train_step, batches=batches,
                     zero_grad=lambda: opt.zero_grad(set_to_none=True), n_params=n_params,
                     optimizer=opt_kind, precision=prec, modules=[model])


def run_case(name: str, dev: torch.device, batch_size: int, ci_target: float, min_samples: int,
             min_time: float, max_time: float, verbose: bool = True, dtype: str = "float32",
             graphs: bool = False, channels_last: bool = False) -> dict:
    case = build_case(name, dev, batch_size, dtype, graphs, verbose, channels_last)
    return time_case(case, dev, graphs, batch_size, ci_target, min_samples, min_time,
                     max_time, verbose)


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p, "mlp,cnn,transformer", MODELS)
    a = p.parse_args(argv)
    models = parse_models(p, a, MODELS)

    dev = resolve_device(a.device)
    check_graphs_device(a, dev)          # --graphs off CUDA: one line, exit status 2
    dev_str = str(dev)
    dname = device_name(dev)
    if not a.quiet:
        print(f"torch {torch.__version__}, device {dev_str} ({dname}), "
              f"threads {torch.get_num_threads()}, batch {a.batch_size}, "
              f"dtype {','.join(a.dtypes)}"
              + (f", graphs {a.graphs}" if a.graphs else "")
              + (", cudnn.benchmark" if a.cudnn_benchmark else "")
              + (", channels_last" if a.channels_last else ""), flush=True)

    def build(m, dtype, graphs):
        return build_case(m, dev, a.batch_size, dtype, graphs, verbose=not a.quiet,
                          channels_last=a.channels_last)

    try:
        cases, skipped = run_all(models, build, dev, a, verbose=not a.quiet)
    except GraphRefused as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    print()
    print_table(dev_str, cases)
    for s in skipped:
        print(f"skipped: {s['model']} ({s['reason']})")

    if a.json:
        write_json(a.json, dev_str, dname, common_settings(a), cases,
                   {"skipped": skipped} if skipped else None)
        if not a.quiet:
            print(f"\nwrote {a.json}")
    return 1 if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
