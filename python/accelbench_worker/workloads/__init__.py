"""The built-in workloads as a user writes them in Python: PyTorch's own modules, the C++
workloads' shapes, data and seeds (src/workloads/*.cpp), trained with torch.optim at PyTorch's
defaults unless the request names another optimizer. One file per workload; WORKLOADS by name."""

from __future__ import annotations

from . import bert_base, cnn, dcgan, mlp, resnet18, transformer

WORKLOADS = {m.WORKLOAD.name: m.WORKLOAD for m in (mlp, cnn, transformer, resnet18, bert_base, dcgan)}
