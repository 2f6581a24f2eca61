"""Small models for the --model-file tests (tests/e2e/own_model_cli_test.cpp), exported at test time
with tools/export_model.py. Each factory returns an nn.Module; the test names it with --factory."""
import torch
from torch import nn


class ResidualConvNet(nn.Module):
    """Convolution, layer norm, dropout and a residual branch: 3x16x16 images, 10 classes."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.branch = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
        self.norm = nn.LayerNorm([8, 16, 16])
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(8 * 16 * 16, classes)

    def forward(self, x):
        h = torch.relu(self.stem(x))
        h = self.norm(h + self.branch(h))  # the residual branch
        return self.head(self.drop(torch.flatten(h, 1)))


class DictOutputMlp(nn.Module):
    """Returns a dict (as Hugging Face models do): torch.jit.script fails on the **kwargs, so the
    helper falls back to tracing."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 4))

    def forward(self, x, **unused):
        return {"logits": self.net(x)}


class OwnLoss(nn.Module):
    """Returns its own loss (--target loss): token ids in, mean squared reconstruction out."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.proj = nn.Linear(16, 16)

    def forward(self, ids):
        e = self.embed(ids)
        return ((self.proj(e) - e.detach()) ** 2).mean()


class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 3)
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        return self.lin(x)


def residual_conv():
    return ResidualConvNet()


def dict_mlp():
    return DictOutputMlp()


def own_loss():
    return OwnLoss()


def frozen():
    return Frozen()


def linear(inputs: int = 8, outputs: int = 3):
    return nn.Linear(inputs, outputs)


class SmallBatchOnly(nn.Module):
    """Fails on batches larger than 4 (a model that fails at some batch size: a failed sweep point)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 3)

    def forward(self, x):
        if x.size(0) > 4:
            raise RuntimeError("batch larger than 4")
        return self.lin(x)


def small_batch_only():
    return SmallBatchOnly()


class FrozenDevice(nn.Module):
    """Makes a tensor on its input's device: a trace freezes that device (cpu) as a constant, as in
    Hugging Face BERT's attention mask; accelbench moves it with the module (workloads/frozen_devices)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 3)

    def forward(self, x):
        return self.lin(x) + torch.ones(x.shape[0], 3, device=x.device)


def frozen_device():
    return FrozenDevice()
