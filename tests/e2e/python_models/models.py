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


class Sleeps20ms(nn.Module):
    """A step of known length: the forward sleeps 20 ms (in training; the check at batch 2 does not)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        if self.training:
            import time
            time.sleep(0.020)
        return self.fc(x)


def sleeps_20ms():
    """The sleeping model; with ACCELBENCH_TEST_PID_FILE set, each process that builds it appends its
    pid and its parent's there (the orphan tests find the round processes so)."""
    import os
    path = os.environ.get("ACCELBENCH_TEST_PID_FILE")
    if path:
        with open(path, "a") as f:
            f.write(f"{os.getpid()} {os.getppid()}\n")
    return Sleeps20ms()


def linear_256mib():
    """One nn.Linear of 8192 x 8192 float32 weights (256 MiB) and its bias: with SGD (no momentum)
    training holds the weights and their gradients, 512 MiB."""
    return nn.Linear(8192, 8192)
