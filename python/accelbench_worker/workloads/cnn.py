"""The cnn as a user writes it: three nn.Conv2d with nn.MaxPool2d, two nn.Linear
(src/workloads/cnn.cpp's shapes), on Fashion-MNIST."""

from __future__ import annotations

import torch.nn as nn

from ..data import fashion_batches
from .workload import Workload


def make_model(_width: int, _inputs: dict) -> nn.Module:
    def conv(i, o):
        return nn.Conv2d(i, o, 3, padding=1)
    return nn.Sequential(
        conv(1, 32), nn.ReLU(), nn.MaxPool2d(2),      # 28 -> 14
        conv(32, 64), nn.ReLU(), nn.MaxPool2d(2),     # 14 -> 7
        conv(64, 128), nn.ReLU(), nn.MaxPool2d(2),    # 7 -> 3
        nn.Flatten(), nn.Linear(1152, 256), nn.ReLU(), nn.Linear(256, 10))


_MACS = (28.0 * 28 * 32 * 9 + 14.0 * 14 * 64 * (32 * 9) + 7.0 * 7 * 128 * (64 * 9) + 1152.0 * 256 + 256.0 * 10)


def train_flops(_width: int, _inputs: dict) -> float:
    return 3.0 * 2.0 * _MACS


WORKLOAD = Workload("cnn", make_model, fashion_batches, 60000, "images", train_flops, lr=1e-3,
                    reads_fashion=True)
