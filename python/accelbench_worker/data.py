"""The data the built-in workloads read, as the C++ readers read it (src/data/): Fashion-MNIST's IDX
files (gzipped or not) and its synthetic stand-in. A file's bytes are read once per process and
kept (`preload`): the round server reads them before it forks its rounds, which then share them."""

from __future__ import annotations

import gzip
import os
import struct

FASHION_MEAN, FASHION_STD = 0.2860, 0.3530
DEFAULT_FASHION_DIR = "/usr/share/datasets/fashion-mnist"

_FILES: dict[str, bytes] = {}  # path -> its decompressed bytes


def file_bytes(path: str) -> bytes:
    if path not in _FILES:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            _FILES[path] = f.read()
    return _FILES[path]


def read_idx(path: str, limit: int):
    """The first `limit` items of an IDX file as a uint8 tensor [n, ...]."""
    import torch
    data = file_bytes(path)
    ndim = data[3]
    dims = list(struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim]))
    dims[0] = min(dims[0], limit)
    item = 1
    for d in dims[1:]:
        item *= d
    start = 4 + 4 * ndim
    return torch.frombuffer(bytearray(data[start:start + dims[0] * item]), dtype=torch.uint8).reshape(dims)


def fashion_folder(inputs: dict) -> str:
    return inputs.get("data_dir") or os.environ.get("ACCELBENCH_FASHION_MNIST") or DEFAULT_FASHION_DIR


def fashion_file(folder: str, stem: str):
    for name in (stem, stem + ".gz"):
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return None


def preload(inputs: dict) -> None:
    """Reads the training files a Fashion-MNIST workload would read (no torch: safe before a fork)."""
    folder = fashion_folder(inputs)
    for stem in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"):
        path = fashion_file(folder, stem)
        if path:
            file_bytes(path)


def fashion_images(inputs: dict, needed: int):
    """(images uint8 [n,28,28], labels int64 [n], source, synthetic), as the C++ workloads load them."""
    import torch
    folder = fashion_folder(inputs)
    real = not inputs.get("synthetic_forced", False)
    images_path = fashion_file(folder, "train-images-idx3-ubyte")
    labels_path = fashion_file(folder, "train-labels-idx1-ubyte")
    if real and images_path and labels_path:
        n = min(needed, 60000)
        images = read_idx(images_path, n)
        labels = read_idx(labels_path, n).to(torch.int64)
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
    """`count` normalised batches [batch, 1, 28, 28] with their labels, cycling through the images."""
    import torch
    images, labels, source, synthetic = fashion_images(inputs, batch * count)
    n = images.shape[0]
    out = []
    for i in range(count):
        idx = torch.arange(i * batch, (i + 1) * batch).remainder(n)
        x = images.index_select(0, idx).float().div_(255.0).sub_(FASHION_MEAN).div_(FASHION_STD).unsqueeze(1)
        out.append(((x,), labels.index_select(0, idx)))
    return out, source, synthetic
