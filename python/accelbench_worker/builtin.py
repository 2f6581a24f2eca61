"""The built-in workloads as a user writes them in Python: PyTorch's own modules, the C++
workloads' shapes, data and seeds (src/workloads/*.cpp), trained with torch.optim at PyTorch's
defaults unless the request names another optimizer."""

from __future__ import annotations

import gzip
import os
import struct

import torch
import torch.nn as nn

FASHION_MEAN, FASHION_STD = 0.2860, 0.3530
DEFAULT_FASHION_DIR = "/usr/share/datasets/fashion-mnist"
STAGED_BATCHES = 8  # distinct batches staged on the device before timing, cycled (as the C++ tasks)


class Workload:
    """What the harness needs to know of a built-in model besides the model itself."""

    def __init__(self, make_model, make_batch, samples_per_epoch, unit, flops_per_sample, lr,
                 warmup_steps=0, convolutional=False):
        self.make_model = make_model
        self.make_batch = make_batch          # (options, index) -> (inputs tuple, target)
        self.samples_per_epoch = samples_per_epoch
        self.unit = unit
        self.flops_per_sample = flops_per_sample
        self.lr = lr
        self.warmup_steps = warmup_steps      # linear warm-up of the learning rate over these updates
        self.convolutional = convolutional


# ---- models ------------------------------------------------------------------------------------

def mlp(width: int) -> nn.Module:
    h = width or 1024
    return nn.Sequential(nn.Flatten(), nn.Linear(784, h), nn.ReLU(), nn.Linear(h, 10))


def cnn(_width: int) -> nn.Module:
    def conv(i, o):
        return nn.Conv2d(i, o, 3, padding=1)
    return nn.Sequential(
        conv(1, 32), nn.ReLU(), nn.MaxPool2d(2),      # 28 -> 14
        conv(32, 64), nn.ReLU(), nn.MaxPool2d(2),     # 14 -> 7
        conv(64, 128), nn.ReLU(), nn.MaxPool2d(2),    # 7 -> 3
        nn.Flatten(), nn.Linear(1152, 256), nn.ReLU(), nn.Linear(256, 10))


VOCAB, SEQ, D_MODEL, HEADS, FFN, LAYERS, DROPOUT = 10_000, 128, 512, 8, 2048, 6, 0.1


class TransformerClassifier(nn.Module):
    """Token and position embeddings, six post-norm encoder layers, mean pooling, a linear head."""

    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, D_MODEL)
        self.positions = nn.Embedding(SEQ, D_MODEL)
        self.drop = nn.Dropout(DROPOUT)
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, DROPOUT, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(D_MODEL, 2)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        h = self.drop(self.tokens(ids) + self.positions(pos).unsqueeze(0))
        return self.head(self.encoder(h).mean(1))


def transformer(_width: int) -> nn.Module:
    return TransformerClassifier()


# ---- data --------------------------------------------------------------------------------------

def _read_idx(path: str):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return torch.frombuffer(bytearray(data[4 + 4 * ndim:]), dtype=torch.uint8).reshape(dims)


def _fashion_file(folder: str, stem: str):
    for name in (stem, stem + ".gz"):
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return None


def fashion_images(inputs: dict, needed: int):
    """(images uint8 [n,28,28], labels int64 [n], source, synthetic), as the C++ workloads load them."""
    folder = inputs.get("data_dir") or os.environ.get("ACCELBENCH_FASHION_MNIST") or DEFAULT_FASHION_DIR
    real = not inputs.get("synthetic_forced", False)
    images_path = _fashion_file(folder, "train-images-idx3-ubyte")
    labels_path = _fashion_file(folder, "train-labels-idx1-ubyte")
    if real and images_path and labels_path:
        n = min(needed, 60000)
        images = _read_idx(images_path)[:n].clone()
        labels = _read_idx(labels_path)[:n].to(torch.int64)
        return images, labels, f"fashion-mnist ({folder})", False
    n = min(needed, 4096)
    gen = torch.Generator().manual_seed(int(inputs.get("seed", 0)) + 1000)
    patterns = torch.rand(10, 28, 28, generator=gen)
    labels = torch.randint(0, 10, (n,), generator=gen)
    noise = torch.rand(n, 28, 28, generator=gen)
    images = (patterns.index_select(0, labels) * 0.6 + noise * 0.4).mul_(255).to(torch.uint8)
    source = f"synthetic (Fashion-MNIST not found in {folder})" if real else "synthetic"
    return images, labels, source, True


def fashion_batches(inputs: dict, batch: int, count: int):
    images, labels, source, synthetic = fashion_images(inputs, batch * count)
    n = images.shape[0]
    out = []
    for i in range(count):
        idx = torch.arange(i * batch, (i + 1) * batch).remainder(n)
        x = images.index_select(0, idx).float().div_(255.0).sub_(FASHION_MEAN).div_(FASHION_STD).unsqueeze(1)
        out.append(((x,), labels.index_select(0, idx)))
    return out, source, synthetic


def token_batches(inputs: dict, batch: int, count: int):
    seed = int(inputs.get("seed", 0))
    out = []
    for i in range(count):
        gen = torch.Generator().manual_seed(seed + 2000 + i)
        ids = torch.randint(0, VOCAB, (batch, SEQ), generator=gen)
        labels = ((ids < VOCAB // 2).sum(1) > SEQ // 2).to(torch.int64)
        out.append(((ids,), labels))
    return out, "synthetic (token ids uniform in [0, 10000); label = most ids below 5000)", True


def _mlp_flops(width: int) -> float:
    h = width or 1024
    return 3.0 * 2.0 * (784 * h + h * 10)


_CNN_MACS = (28.0 * 28 * 32 * 9 + 14.0 * 14 * 64 * (32 * 9) + 7.0 * 7 * 128 * (64 * 9) + 1152.0 * 256 + 256.0 * 10)
_TRANSFORMER_FLOPS = 3.0 * 2.0 * (LAYERS * (SEQ * (3 * D_MODEL * D_MODEL + D_MODEL * D_MODEL + 2 * D_MODEL * FFN)
                                            + 2.0 * SEQ * SEQ * D_MODEL) + D_MODEL * 2.0)

WORKLOADS = {
    "mlp": Workload(mlp, fashion_batches, 60000, "images", _mlp_flops, lr=1e-3),
    "cnn": Workload(cnn, fashion_batches, 60000, "images", lambda w: 3.0 * 2.0 * _CNN_MACS, lr=1e-3,
                    convolutional=True),
    "transformer": Workload(transformer, token_batches, 25000, "sequences", lambda w: _TRANSFORMER_FLOPS,
                            lr=3e-4, warmup_steps=3),
}
