"""A Hugging Face-style model for `accelbench run --py-model`: a small BERT-like encoder whose
forward returns a dict with "logits" (and "loss" when labels are given), as transformers'
models do, built from PyTorch's own modules (no transformers package needed).

    accelbench run --py-model bench/python/dict_output_model.py:make_model \
        --input 128:int64:0..30522 --target classes:2 --devices cuda
"""

import torch
import torch.nn as nn


class DictEncoderClassifier(nn.Module):
    def __init__(self, vocab=30522, seq=128, d_model=256, heads=4, ffn=1024, layers=4, classes=2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, d_model)
        self.positions = nn.Parameter(torch.zeros(1, seq, d_model))
        layer = nn.TransformerEncoderLayer(d_model, heads, ffn, dropout=0.1, batch_first=True, norm_first=True,
                                           activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.classifier = nn.Linear(d_model, classes)

    def forward(self, input_ids, labels=None):
        h = self.embeddings(input_ids) + self.positions[:, : input_ids.shape[1]]
        h = self.norm(self.encoder(h))
        logits = self.classifier(h[:, 0])
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = nn.functional.cross_entropy(logits, labels)
        return out


def make_model():
    return DictEncoderClassifier()
