"""bert-base's Python twin (src/workloads/bert_base.cpp): BERT-base as Hugging Face's
BertForSequenceClassification(num_labels=2) lays it out (12 layers, hidden 768, 12 heads,
intermediate 3072, GELU, LayerNorm eps 1e-12, dropout 0.1, the pooler), written with PyTorch's
modules and F.scaled_dot_product_attention with the padding mask; BERT's initialisation
(N(0, 0.02) weights, zero biases) drawn in the C++ model's order. Inputs: the C++ workload's
synthetic sequences (std::mt19937_64, log-normal lengths) or --text through its tokenizer. Under
autocast the residual stream is autocast's own (float32), as a user's model has it."""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..cxx_random import MT19937_64, LognormalDistribution, llround, uniform_int64
from .workload import Workload, warmup_from_zero_then_linear_decay

VOCAB, HIDDEN, LAYERS, HEADS, INTER, POSITIONS, TYPES, LABELS = 30522, 768, 12, 12, 3072, 512, 2, 2
DROPOUT, LN_EPS = 0.1, 1e-12
PAD_ID, CLS_ID, SEP_ID, FIRST_WORD_ID = 0, 101, 102, 1000
MARKER_ID, MARKER_EVERY = FIRST_WORD_ID, 2  # synthetic label-1 sequences: the marker at every 2nd position


def layer_norm():
    return nn.LayerNorm(HIDDEN, eps=LN_EPS)


class BertLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = nn.Linear(HIDDEN, HIDDEN)
        self.attn_out = nn.Linear(HIDDEN, HIDDEN)
        self.attn_norm = layer_norm()
        self.intermediate = nn.Linear(HIDDEN, INTER)
        self.output = nn.Linear(INTER, HIDDEN)
        self.out_norm = layer_norm()
        self.drop = nn.Dropout(DROPOUT)

    def forward(self, x, attend):
        b, s, _ = x.shape
        heads = lambda t: t.view(b, s, HEADS, HIDDEN // HEADS).transpose(1, 2)  # noqa: E731
        ctx = F.scaled_dot_product_attention(heads(self.query(x)), heads(self.key(x)), heads(self.value(x)),
                                             attn_mask=attend, dropout_p=DROPOUT if self.training else 0.0)
        ctx = ctx.transpose(1, 2).reshape(b, s, HIDDEN)
        h = self.attn_norm(x + self.drop(self.attn_out(ctx)))
        return self.out_norm(h + self.drop(self.output(F.gelu(self.intermediate(h)))))


class BertClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, HIDDEN)
        self.position_embeddings = nn.Embedding(POSITIONS, HIDDEN)
        self.token_type_embeddings = nn.Embedding(TYPES, HIDDEN)
        self.embeddings_norm = layer_norm()
        self.pooler = nn.Linear(HIDDEN, HIDDEN)
        self.classifier = nn.Linear(HIDDEN, LABELS)
        self.layers = nn.ModuleList(BertLayer() for _ in range(LAYERS))
        self.drop = nn.Dropout(DROPOUT)
        with torch.no_grad():  # BERT's initialisation
            for name, p in self.named_parameters():
                if "norm" in name:
                    continue
                if name.endswith("bias"):
                    p.zero_()
                else:
                    p.normal_(0.0, 0.02)

    def forward(self, ids, mask):
        pos = torch.arange(ids.shape[1], device=ids.device)
        h = self.word_embeddings(ids) + self.position_embeddings(pos).unsqueeze(0) + self.token_type_embeddings(torch.zeros_like(ids))
        h = self.drop(self.embeddings_norm(h))
        attend = mask.to(torch.bool).view(ids.shape[0], 1, 1, ids.shape[1])
        for layer in self.layers:
            h = layer(h, attend)
        return self.classifier(self.drop(torch.tanh(self.pooler(h[:, 0]))))


def make_model(_width: int, _inputs: dict) -> nn.Module:
    return BertClassifier()


def train_flops(_width: int, inputs: dict) -> float:
    s = int(inputs.get("seq_len", 128))
    per_token_layer = 4.0 * HIDDEN * HIDDEN + 2.0 * HIDDEN * INTER
    attention_layer = 2.0 * s * s * HIDDEN
    return 3.0 * 2.0 * (LAYERS * (s * per_token_layer + attention_layer) + HIDDEN * HIDDEN + HIDDEN * LABELS)


# ---- data --------------------------------------------------------------------------------------

def pack(seqs, labels, seq_len):
    ids = torch.zeros(len(seqs), seq_len, dtype=torch.int64)
    mask = torch.zeros(len(seqs), seq_len, dtype=torch.int64)
    for b, s in enumerate(seqs):
        s = s[:seq_len]
        ids[b, :len(s)] = torch.tensor(s, dtype=torch.int64)
        mask[b, :len(s)] = 1
    return (ids, mask), torch.tensor(labels, dtype=torch.int64)


def synthetic_batch(index: int, batch: int, seq_len: int, seed: int):
    """Lengths log-normal (median 24), clamped to [8, seq_len]; ids uniform over the word range;
    label 1 when the first word id is in the upper half, and then the marker id at positions 2, 4,
    ... of the words (a cue a quick run learns; the first-word rule alone needs every id's
    embedding learned)."""
    rng = MT19937_64((seed * 104729 + 5000 + index) & 0xFFFFFFFFFFFFFFFF)
    length = LognormalDistribution(math.log(24.0), 0.6)
    seqs, labels = [], []
    for _ in range(batch):
        n = min(max(llround(length(rng)), 8), seq_len)
        s = [CLS_ID] + [uniform_int64(rng, FIRST_WORD_ID, VOCAB - 1) for _ in range(n - 2)] + [SEP_ID]
        labels.append(1 if s[1] >= (FIRST_WORD_ID + VOCAB) // 2 else 0)
        if labels[-1]:
            for t in range(2, n - 1, MARKER_EVERY):
                s[t] = MARKER_ID
        seqs.append(s)
    return pack(seqs, labels, seq_len)


def _word_id(word: bytes) -> int:
    h = 1469598103934665603  # FNV-1a of the lower-cased bytes
    for c in word:
        h = ((h ^ (c + 32 if 65 <= c <= 90 else c)) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return FIRST_WORD_ID + h % (VOCAB - FIRST_WORD_ID)


def tokenize(text: bytes, max_len: int):
    """The C++ tokenizer (src/data/tokenizer.cpp): [CLS], words (ASCII letters and digits, and bytes
    from 0x80) and single punctuation bytes hashed into the vocabulary, [SEP]."""
    word = lambda c: (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c >= 0x80  # noqa: E731
    ids, i = [CLS_ID], 0
    while i < len(text):
        c = text[i]
        if c in b" \t\n\v\f\r":
            i += 1
        elif word(c):
            j = i
            while j < len(text) and word(text[j]):
                j += 1
            ids.append(_word_id(text[i:j]))
            i = j
        else:
            ids.append(_word_id(text[i:i + 1]))
            i += 1
    if max_len < 2:
        return ids[:max_len]
    return ids[:max_len - 1] + [SEP_ID]


def labelled_text(path: str):
    """LABEL<TAB>text lines (the C++ harness checked the file before anything runs)."""
    out = []
    with open(path, "rb") as f:
        for line in f.read().split(b"\n"):
            line = line[:-1] if line.endswith(b"\r") else line
            if not line.strip(b" \t"):
                continue
            label, _, text = line.partition(b"\t")
            out.append((int(label.strip(b" ")), text))
    return out


def make_batches(inputs: dict, batch: int, count: int):
    seq_len = int(inputs.get("seq_len", 128))
    path = inputs.get("text", "")
    if path:
        examples = labelled_text(path)
        batches = []
        for i in range(count):
            chosen = [examples[(i * batch + b) % len(examples)] for b in range(batch)]
            batches.append(pack([tokenize(t, seq_len) for _, t in chosen], [label for label, _ in chosen], seq_len))
        return batches, f"text {path} ({len(examples)} examples, simple hashing tokenizer)", False
    seed = int(inputs.get("seed", 0))
    return ([synthetic_batch(i, batch, seq_len, seed) for i in range(count)],
            "synthetic token ids, log-normal lengths (median 24, padded to the sequence length)", True)


WORKLOAD = Workload("bert-base", make_model, make_batches, 67349, "sequences", train_flops, lr=2e-5,
                    schedule=warmup_from_zero_then_linear_decay(10, 1000),
                    schedule_text="linear warm-up from 0 over 10 updates, linear decay to 0 at update 1000 (cycled)",
                    optimizer="adamw", optimizer_kwargs={"weight_decay": 0.01})
