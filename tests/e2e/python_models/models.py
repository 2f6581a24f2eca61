"""Models of a user's for the --py-model tests: factories as a training script has them."""

import torch
import torch.nn as nn


class DictClassifier(nn.Module):
    """Hugging Face style: keyword-free forward, a dict with 'logits' (and 'loss' when labelled)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.head = nn.Linear(16, 3)

    def forward(self, ids, labels=None):
        logits = self.head(self.embed(ids).mean(1))
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = nn.functional.cross_entropy(logits, labels)
        return out


def small_mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 4))


def dict_model():
    return DictClassifier()


def with_optimizer_and_batches():
    """(model, optimizer, batch_fn): the model returns its own loss from a dict."""
    model = DictClassifier()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(4):
        ids = torch.randint(0, 50, (8, 12), generator=gen)
        batches.append(((ids, (ids[:, 0] % 3)), None))
    return model, opt, lambda i: batches[i % len(batches)]


def raises():
    raise RuntimeError("no weights at /nonexistent/checkpoint.pt")


def not_a_module():
    return 42


def wrong_shape():
    return nn.Linear(10, 4)  # --input 64:float32 makes the forward fail


class Dies(nn.Module):
    """Kills its own process in the first training step (the check at batch 2 passes)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        if self.training and x.shape[0] > 2:
            import os
            os.kill(os.getpid(), 9)
        return self.fc(x)


class GoesNaN(nn.Module):
    """Trains into a NaN loss (the loss before training is finite)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        out = self.fc(x)
        return out * float("nan") if self.training and x.shape[0] > 2 else out


def dies():
    return Dies()


def goes_nan():
    return GoesNaN()
