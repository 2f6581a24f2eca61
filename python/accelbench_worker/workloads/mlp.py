"""The mlp as a user writes it: nn.Sequential of nn.Linear (src/workloads/mlp.cpp's shapes),
on Fashion-MNIST."""

from __future__ import annotations

import torch.nn as nn

from ..data import fashion_batches
from .workload import Workload


def make_model(width: int, _inputs: dict) -> nn.Module:
    h = width or 1024
    return nn.Sequential(nn.Flatten(), nn.Linear(784, h), nn.ReLU(), nn.Linear(h, 10))


def train_flops(width: int, _inputs: dict) -> float:
    h = width or 1024
    return 3.0 * 2.0 * (784 * h + h * 10)


WORKLOAD = Workload("mlp", make_model, fashion_batches, 60000, "images", train_flops, lr=1e-3,
                    reads_fashion=True)
