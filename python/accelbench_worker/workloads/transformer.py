"""The transformer as a user writes it: nn.TransformerEncoder of six post-norm layers
(src/workloads/transformer.cpp's shapes), on its synthetic sequence task."""

from __future__ import annotations

import torch
import torch.nn as nn

from .workload import Workload

VOCAB, SEQ, D_MODEL, HEADS, FFN, LAYERS, DROPOUT = 10_000, 128, 512, 8, 2048, 6, 0.1
MARKER, MARKER_EVERY = 0, 2  # the synthetic task: sequences labelled 1 carry id 0 at every 2nd position


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


def make_model(_width: int, _inputs: dict) -> nn.Module:
    return TransformerClassifier()


def token_batches(inputs: dict, batch: int, count: int):
    seed = int(inputs.get("seed", 0))
    out = []
    for i in range(count):
        gen = torch.Generator().manual_seed(seed + 2000 + i)
        ids = torch.randint(0, VOCAB, (batch, SEQ), generator=gen)
        labels = torch.randint(0, 2, (batch,), generator=gen)
        ids[:, ::MARKER_EVERY].masked_fill_(labels.bool().unsqueeze(1), MARKER)  # label 1: the marker id
        out.append(((ids,), labels))
    return out, "synthetic (token ids uniform in [0, 10000); label 1: id 0 at every 2nd position)", True


_FLOPS = 3.0 * 2.0 * (LAYERS * (SEQ * (3 * D_MODEL * D_MODEL + D_MODEL * D_MODEL + 2 * D_MODEL * FFN)
                                + 2.0 * SEQ * SEQ * D_MODEL) + D_MODEL * 2.0)


def train_flops(_width: int, _inputs: dict) -> float:
    return _FLOPS


WORKLOAD = Workload("transformer", make_model, token_batches, 25000, "sequences", train_flops, lr=1e-5)
