"""resnet18's Python twin (src/workloads/resnet18.cpp): torchvision's ResNet-18 written with
PyTorch's modules (7x7 stem and max-pool; variant "cifar": a 3x3 stem without max-pool), a
10-class head, on 3x32x32 CIFAR-10 images (the binary files of --data-dir, else the C++ workload's
synthetic images, drawn with the same std::mt19937), augmented as the C++ workload augments them
(4-pixel padded random crop and horizontal flip from std::mt19937_64 per batch, normalisation)."""

from __future__ import annotations

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..cxx_random import MT19937_64, mt19937, shuffle, uniform_int32
from .workload import Workload, linear_warmup

MEAN = torch.tensor([0.4914, 0.4822, 0.4465]).view(3, 1, 1)
STD = torch.tensor([0.2470, 0.2435, 0.2616]).view(3, 1, 1)
SYNTHETIC_IMAGES = 5000
PIXELS = 3 * 32 * 32


def conv(i, o, k, stride, pad):
    return nn.Conv2d(i, o, k, stride=stride, padding=pad, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, i, o, stride):
        super().__init__()
        self.conv1 = conv(i, o, 3, stride, 1)
        self.conv2 = conv(o, o, 3, 1, 1)
        self.bn1 = nn.BatchNorm2d(o)
        self.bn2 = nn.BatchNorm2d(o)
        self.downsample = nn.Sequential(conv(i, o, 1, stride, 0), nn.BatchNorm2d(o)) if stride != 1 or i != o else None

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (self.downsample(x) if self.downsample is not None else x))


class ResNet18(nn.Module):
    def __init__(self, cifar_stem: bool, classes: int = 10):
        super().__init__()
        self.cifar_stem = cifar_stem
        self.conv1 = conv(3, 64, 3, 1, 1) if cifar_stem else conv(3, 64, 7, 2, 3)
        self.bn1 = nn.BatchNorm2d(64)
        layers, i = [], 64
        for k in range(4):
            o = 64 << k
            layers.append(nn.Sequential(BasicBlock(i, o, 1 if k == 0 else 2), BasicBlock(o, o, 1)))
            i = o
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.fc = nn.Linear(512, classes)
        for m in self.modules():  # torchvision's initialisation
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        if not self.cifar_stem:
            h = F.max_pool2d(h, 3, 2, 1)
        h = self.layer4(self.layer3(self.layer2(self.layer1(h))))
        return self.fc(F.adaptive_avg_pool2d(h, 1).flatten(1))


def make_model(_width: int, inputs: dict) -> nn.Module:
    return ResNet18(inputs.get("variant") == "cifar")


def forward_macs(cifar_stem: bool) -> float:
    s = 32
    if cifar_stem:
        macs = s * s * 64 * 3 * 9.0
    else:
        macs = 16 * 16 * 64 * 3 * 49.0
        s = 8
    i = 64
    for k in range(4):
        o = 64 << k
        if k > 0:
            s //= 2
        macs += s * s * o * i * 9.0 + 3.0 * s * s * o * o * 9
        if i != o:
            macs += s * s * o * i * 1.0
        i = o
    return macs + 512.0 * 10


def train_flops(_width: int, inputs: dict) -> float:
    return 3.0 * 2.0 * forward_macs(inputs.get("variant") == "cifar")


# ---- data --------------------------------------------------------------------------------------

def _words(engine, count: int) -> torch.Tensor:
    """The next `count` outputs of a std::mt19937 (see cxx_random.mt19937) as int64."""
    raw = engine.getrandbits(32 * count).to_bytes(4 * count, "little")
    return torch.frombuffer(bytearray(raw), dtype=torch.int32).to(torch.int64) & 0xFFFFFFFF


def synthetic_images(seed: int):
    """The C++ workload's synthetic images: a random colour pattern per class, each image its class's
    pattern (6 parts) and noise (4 parts). uniform_int_distribution(0, 255) of a 32-bit engine is
    its output's top 8 bits."""
    rng = mt19937((seed + 3000) & 0xFFFFFFFF)
    patterns = (_words(rng, 10 * PIXELS) >> 24).view(10, PIXELS)
    labels = torch.empty(SYNTHETIC_IMAGES, dtype=torch.int64)
    noise = torch.empty(SYNTHETIC_IMAGES, PIXELS, dtype=torch.int64)
    for i in range(SYNTHETIC_IMAGES):
        labels[i] = uniform_int32(rng, 0, 9)
        noise[i] = _words(rng, PIXELS) >> 24
    pixels = ((patterns.index_select(0, labels) * 6 + noise * 4) // 10).to(torch.uint8)
    return pixels, labels, "synthetic CIFAR-10-shaped images (no --data-dir given)", True


def cifar_files(folder: str):
    if not os.path.exists(os.path.join(folder, "data_batch_1.bin")) and os.path.isdir(os.path.join(folder, "cifar-10-batches-bin")):
        folder = os.path.join(folder, "cifar-10-batches-bin")
    paths = [os.path.join(folder, f"data_batch_{i}.bin") for i in range(1, 6)]
    return folder, [p for p in paths if os.path.exists(p)]


def cifar_images(folder: str):
    folder, paths = cifar_files(folder)
    records = torch.cat([torch.frombuffer(bytearray(open(p, "rb").read()), dtype=torch.uint8).view(-1, 1 + PIXELS)
                         for p in paths])
    return records[:, 1:].clone(), records[:, 0].to(torch.int64), f"cifar-10 ({folder}, {records.shape[0]} images)", False


class CifarBatches:
    """The index-th batch of the shuffled stream (std::shuffle with std::mt19937_64(seed + epoch) each
    epoch), each image cropped and flipped from std::mt19937_64(seed * 7919 + index)."""

    def __init__(self, inputs: dict):
        self.seed = int(inputs.get("seed", 0))
        folder = inputs.get("data_dir", "")
        real = folder and not inputs.get("synthetic_forced", False)
        self.pixels, self.labels, self.source, self.synthetic = cifar_images(folder) if real else synthetic_images(self.seed)
        self.n = self.labels.shape[0]
        self.perms = {}

    def perm(self, epoch: int) -> list:
        if epoch not in self.perms:
            p = list(range(self.n))
            shuffle(p, MT19937_64((self.seed + epoch) & 0xFFFFFFFFFFFFFFFF))
            self.perms[epoch] = p
        return self.perms[epoch]

    def batch(self, index: int, size: int):
        aug = MT19937_64((self.seed * 7919 + index) & 0xFFFFFFFFFFFFFFFF)
        items, crops = [], []
        for b in range(size):
            pos = index * size + b
            items.append(self.perm(pos // self.n)[pos % self.n])
            dx, dy = aug() % 9 - 4, aug() % 9 - 4
            crops.append((dx, dy, aug() & 1))
        idx = torch.tensor(items, dtype=torch.int64)
        padded = F.pad(self.pixels.index_select(0, idx).view(size, 3, 32, 32).float() / 255.0, (4, 4, 4, 4))
        images = []
        for b, (dx, dy, flip) in enumerate(crops):
            rows = padded[b, :, 4 + dy:36 + dy]
            images.append(rows[:, :, 4 - dx:36 - dx].flip(2) if flip else rows[:, :, 4 + dx:36 + dx])
        x = (torch.stack(images) - MEAN) / STD
        return (x,), self.labels.index_select(0, idx)


def make_batches(inputs: dict, batch: int, count: int):
    data = CifarBatches(inputs)
    return [data.batch(i, batch) for i in range(count)], data.source, data.synthetic


WORKLOAD = Workload("resnet18", make_model, make_batches, 50000, "images", train_flops, lr=1e-3,
                    schedule=linear_warmup(5), schedule_text="linear warm-up over 5 updates")
