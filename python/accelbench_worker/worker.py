"""The Python measurer's work: the statistics of the stopping rule, the built-in workloads' Python
twins, the user's own model (--py-model), the training task, and one round of a case measured as
the C++ engine measures it. Each part below starts with a comment that says what it is."""

from __future__ import annotations

from functools import lru_cache
import contextlib
import gzip
import importlib.util
import math
import os
import resource
import struct
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import bert_base, dcgan, resnet18


# ---- stats ---------------------------------------------------------------------------------------
# The statistics the worker's stopping rule needs, as the C++ engine computes them
# (src/core/stats.cpp, src/core/stopping.cpp): the median, its distribution-free confidence
# interval (order statistics), and the warm-up detector. The case's reported statistics are
# derived again by the harness from the samples.

def median(values) -> float:
    s = sorted(values)
    n = len(s)
    if n == 0:
        return 0.0
    m = n // 2
    return s[m] if n % 2 else 0.5 * (s[m - 1] + s[m])


@lru_cache(maxsize=None)
def ci_lower_rank(n: int, confidence: float = 0.95) -> int:
    """Largest 1-based rank l with P(Binomial(n, 1/2) <= l - 1) <= (1 - confidence) / 2; 0: none.

    The median's interval is then [x_(l), x_(n-l+1)] of the sorted samples."""
    if n <= 0:
        return 0
    half = (1.0 - confidence) / 2.0
    log_half_n = -n * math.log(2.0)
    cum = 0.0
    rank = 0
    for k in range(1, n + 1):
        i = k - 1
        cum += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half_n)
        if cum <= half * (1 + 1e-12):
            rank = k
        else:
            break
    return rank


def relative_half_width(samples, confidence: float = 0.95) -> float:
    """Half the median's interval over the median; infinity without an interval."""
    s = sorted(samples)
    n = len(s)
    rank = ci_lower_rank(n, confidence)
    med = median(s)
    if rank < 1 or med <= 0:
        return math.inf
    return 0.5 * (s[n - rank] - s[rank - 1]) / med


class Stopper:
    """The C++ AdaptiveStopper: stop once the median's interval is within the target (after the
    minimum samples and time), or once the time is up."""

    def __init__(self, ci_target: float, min_samples: int, min_time_s: float, max_time_s: float,
                 confidence: float = 0.95):
        self.ci_target = ci_target
        self.min_samples = min_samples
        self.min_time_s = min_time_s
        self.max_time_s = max_time_s
        self.confidence = confidence
        self.samples: list[float] = []
        self.elapsed_s = 0.0

    def add(self, sample_s: float, elapsed_s: float) -> None:
        self.samples.append(sample_s)
        self.elapsed_s = elapsed_s

    def target_met(self) -> bool:
        if len(self.samples) < max(self.min_samples, 2):
            return False
        return relative_half_width(self.samples, self.confidence) <= self.ci_target

    def should_stop(self) -> bool:
        if self.elapsed_s >= self.max_time_s:
            return True
        if self.elapsed_s < self.min_time_s:
            return False
        return self.target_met()


class WarmupDetector:
    """Warm-up ends when the median of the last w step times is within 5% of the median of the w
    before, w = clamp(floor(0.5 s / last step), 1, 5) (the C++ WarmupDetector)."""

    def __init__(self, min_steps: int = 3, tolerance: float = 0.05, window_time_s: float = 0.5,
                 max_window: int = 5):
        self.min_steps = min_steps
        self.tolerance = tolerance
        self.window_time_s = window_time_s
        self.max_window = max_window
        self.steps: list[float] = []

    def add(self, step_s: float) -> None:
        self.steps.append(step_s)

    def window(self) -> int:
        if not self.steps:
            return 1
        last = max(self.steps[-1], 1e-9)
        return min(max(int(math.floor(self.window_time_s / last)), 1), self.max_window)

    def recent_median(self) -> float:
        if not self.steps:
            return 0.0
        return median(self.steps[-min(self.window(), len(self.steps)):])

    def stable(self) -> bool:
        w = self.window()
        if len(self.steps) < max(self.min_steps, 2 * w):
            return False
        last = median(self.steps[-w:])
        prev = median(self.steps[-2 * w:-w])
        return abs(last - prev) <= self.tolerance * prev


# ---- builtin -------------------------------------------------------------------------------------
# The built-in workloads as a user writes them in Python: PyTorch's own modules, the C++
# workloads' shapes, data and seeds (src/workloads/*.cpp), trained with torch.optim at PyTorch's
# defaults unless the request names another optimizer.

FASHION_MEAN, FASHION_STD = 0.2860, 0.3530
DEFAULT_FASHION_DIR = "/usr/share/datasets/fashion-mnist"
STAGED_BATCHES = 8  # distinct batches staged on the device before timing, cycled (as the C++ tasks)


class Workload:
    """What the harness needs to know of a built-in model besides the model itself: its recipe
    (learning rate and schedule, the optimizer's settings) is the C++ workload's."""

    def __init__(self, make_model, make_batch, samples_per_epoch, unit, flops_per_sample, lr,
                 schedule=None, schedule_text="", optimizer="adam", optimizer_kwargs=None, gan=False):
        self.make_model = make_model          # (width, inputs) -> nn.Module
        self.make_batch = make_batch          # (inputs, batch, count) -> (batches, source, synthetic)
        self.samples_per_epoch = samples_per_epoch
        self.unit = unit
        self.flops_per_sample = flops_per_sample  # (width, inputs) -> training FLOPs per sample
        self.lr = lr
        self.schedule = schedule              # updates taken -> factor of lr (LambdaLR), None: constant
        self.schedule_text = schedule_text
        self.optimizer = optimizer            # without --py-optimizer
        self.optimizer_kwargs = optimizer_kwargs or {}  # for Adam and AdamW (weight decay, betas)
        self.gan = gan                        # dcgan: two networks, two optimizers (dcgan.GanTraining)


def linear_warmup(steps: int):
    """The k-th update at lr * k / steps until k reaches steps (the C++ LrSchedule)."""
    return lambda s: min(s + 1, steps) / steps


def warmup_from_zero_then_linear_decay(warmup: int, cycle: int):
    """transformers' get_linear_schedule_with_warmup, cycled (the C++ LrSchedule with start_at_zero)."""
    def factor(s):
        s %= cycle
        return s / warmup if s < warmup else 1.0 - (s - warmup) / (cycle - warmup)
    return factor


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
        labels = torch.randint(0, 2, (batch,), generator=gen)
        ids[:, ::MARKER_EVERY].masked_fill_(labels.bool().unsqueeze(1), MARKER)  # label 1: the marker id
        out.append(((ids,), labels))
    return out, "synthetic (token ids uniform in [0, 10000); label 1: id 0 at every 2nd position)", True


def _mlp_flops(width: int) -> float:
    h = width or 1024
    return 3.0 * 2.0 * (784 * h + h * 10)


_CNN_MACS = (28.0 * 28 * 32 * 9 + 14.0 * 14 * 64 * (32 * 9) + 7.0 * 7 * 128 * (64 * 9) + 1152.0 * 256 + 256.0 * 10)
_TRANSFORMER_FLOPS = 3.0 * 2.0 * (LAYERS * (SEQ * (3 * D_MODEL * D_MODEL + D_MODEL * D_MODEL + 2 * D_MODEL * FFN)
                                            + 2.0 * SEQ * SEQ * D_MODEL) + D_MODEL * 2.0)

WORKLOADS = {
    "mlp": Workload(lambda w, _: mlp(w), fashion_batches, 60000, "images", lambda w, _: _mlp_flops(w), lr=1e-3),
    "cnn": Workload(lambda w, _: cnn(w), fashion_batches, 60000, "images", lambda w, _: 3.0 * 2.0 * _CNN_MACS, lr=1e-3),
    "transformer": Workload(lambda w, _: transformer(w), token_batches, 25000, "sequences",
                            lambda w, _: _TRANSFORMER_FLOPS, lr=1e-5),
    "resnet18": Workload(resnet18.make_model, resnet18.make_batches, 50000, "images", resnet18.train_flops, lr=1e-3,
                         schedule=linear_warmup(5), schedule_text="linear warm-up over 5 updates"),
    "bert-base": Workload(bert_base.make_model, bert_base.make_batches, 67349, "sequences", bert_base.train_flops,
                          lr=2e-5, schedule=warmup_from_zero_then_linear_decay(10, 1000),
                          schedule_text="linear warm-up from 0 over 10 updates, linear decay to 0 at update 1000 (cycled)",
                          optimizer="adamw", optimizer_kwargs={"weight_decay": 0.01}),
    "dcgan": Workload(dcgan.make_model, dcgan.make_batches, 60000, "images", dcgan.train_flops, lr=dcgan.LR,
                      optimizer_kwargs={"betas": dcgan.BETAS}, gan=True),
}


# ---- user_model ----------------------------------------------------------------------------------
# The user's own model: `--py-model FILE.py:FACTORY`. The factory, called with no arguments,
# returns the model, or (model, optimizer, batch_fn) with batch_fn(index) -> (inputs, target).
# Without a batch function, the batch is made from `--input` and `--target`, the descriptions
# `--model-file` reads (docs/own-model.md):
#
#   input:  SPEC[,SPEC...]  SPEC = DIMS:DTYPE[:LOW..HIGH]  (3x224x224:float32, 128:int64:0..30522)
#   target: classes:N | mse:DIMS | loss  (loss: the model returns its own, or a dict with 'loss')

STAGED = 8
DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32}


class Made:
    def __init__(self):
        self.model = None
        self.optimizer = None
        self.batch_fn = None
        self.batches = []
        self.loss_kind = "classes"
        self.classes = 0
        self.source = "synthetic"


def _bad(text):
    return BadInput(text)


def parse_dims(text: str, flag: str):
    if text == "scalar":
        return []
    try:
        dims = [int(d) for d in text.split("x")]
    except ValueError:
        raise _bad(f"{flag} {text}: dimensions must be NxMx... or 'scalar'") from None
    if any(d < 1 for d in dims):
        raise _bad(f"{flag} {text}: dimensions must be positive")
    return dims


def parse_inputs(text: str):
    specs = []
    for part in text.split(","):
        fields = part.split(":")
        if len(fields) not in (2, 3) or fields[1] not in DTYPES:
            raise _bad(f"--input {part}: expected DIMS:DTYPE[:LOW..HIGH], DTYPE one of {', '.join(DTYPES)}")
        low, high, ranged = 0.0, 2.0, len(fields) == 3
        if ranged:
            lo, sep, hi = fields[2].partition("..")
            try:
                low, high = float(lo), float(hi)
            except ValueError:
                raise _bad(f"--input {part}: the range must be LOW..HIGH") from None
        specs.append((parse_dims(fields[0], "--input"), DTYPES[fields[1]], ranged, low, high))
    return specs


def parse_target(text: str):
    if text == "loss":
        return "loss", None
    kind, _, rest = text.partition(":")
    if kind == "classes" and rest.isdigit() and int(rest) >= 1:
        return "classes", int(rest)
    if kind == "mse":
        return "mse", parse_dims(rest, "--target")
    raise _bad(f"--target {text}: expected classes:N, mse:DIMS or loss")


def synthetic_batch(specs, target, batch: int, gen):
    inputs = []
    for dims, dtype, ranged, low, high in specs:
        shape = [batch] + dims
        if not dtype.is_floating_point:
            inputs.append(torch.randint(int(low), int(high), shape, generator=gen, dtype=dtype))
        elif ranged:
            inputs.append((torch.rand(shape, generator=gen) * (high - low) + low).to(dtype))
        else:
            inputs.append(torch.randn(shape, generator=gen).to(dtype))
    kind, arg = target
    if kind == "classes":
        y = torch.randint(0, arg, (batch,), generator=gen)
    elif kind == "mse":
        y = torch.randn([batch] + arg, generator=gen)
    else:
        y = None
    return tuple(inputs), y


def as_batch(value):
    """What a batch function returned, as (inputs tuple, target or None)."""
    if isinstance(value, torch.Tensor):
        return (value,), None
    if isinstance(value, (tuple, list)) and len(value) == 2:
        inputs, target = value
        if isinstance(inputs, torch.Tensor):
            inputs = (inputs,)
        return tuple(inputs), target
    raise ValueError("the batch function must return (inputs, target): a tensor or a tuple of tensors, and a tensor or None")


def load_factory(text: str):
    path, sep, name = text.rpartition(":")
    if not sep or not path or not name:
        raise _bad(f"--py-model {text}: expected FILE.py:FACTORY")
    if not os.path.isfile(path):
        raise _bad(f"--py-model {path}: no such file")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("accelbench_user_model", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as e:  # noqa: BLE001 - any failure of the user's module is bad input
        raise _bad(f"--py-model {path}: the module failed to import: {type(e).__name__}: {user_error_line(e)}") from None
    factory = getattr(module, name, None)
    if not callable(factory):
        raise _bad(f"--py-model {path}: no function '{name}' in the module")
    return factory


def user_error_line(e) -> str:
    text = str(e).strip().splitlines()
    line = text[0] if text else ""
    return line[:300] + ("..." if len(line) > 300 else "")


def build(inputs: dict, batch: int, device: torch.device) -> Made:
    text = inputs.get("py_model", "")
    factory = load_factory(text)
    try:
        made_value = factory()
    except BaseException as e:  # noqa: BLE001
        raise _bad(f"--py-model {text}: the factory raised {type(e).__name__}: {user_error_line(e)}") from None
    made = Made()
    if isinstance(made_value, (tuple, list)):
        if len(made_value) != 3:
            raise _bad(f"--py-model {text}: the factory must return a model or (model, optimizer, batch_fn)")
        made.model, made.optimizer, made.batch_fn = made_value
    else:
        made.model = made_value
    if not isinstance(made.model, torch.nn.Module):
        raise _bad(f"--py-model {text}: the factory returned {type(made.model).__name__}, not a torch.nn.Module")
    made.model.to(device)
    if made.optimizer is not None:
        _move_optimizer_state(made.optimizer, device)
    target_text = inputs.get("model_target", "")
    if made.batch_fn is None:
        if not inputs.get("model_input") or not target_text:
            raise _bad(f"--py-model {text}: --input and --target are needed (or a factory that returns a batch function)")
        specs = parse_inputs(inputs["model_input"])
        target = parse_target(target_text)
        gen = torch.Generator().manual_seed(int(inputs.get("seed", 0)) + 3000)
        made.batches = [synthetic_batch(specs, target, batch, gen) for _ in range(STAGED)]
    else:
        target = parse_target(target_text) if target_text else None
        if target is None:
            _, y = as_batch(made.batch_fn(0))
            target = ("loss", None) if y is None else ("classes", 0) if not y.is_floating_point() else ("mse", None)
        made.source = "the factory's batch function"
    made.loss_kind, made.classes = target[0], target[1] if target[0] == "classes" else 0
    return made


def _move_optimizer_state(optimizer, device):
    for state in optimizer.state.values():
        for k, v in state.items():
            if isinstance(v, torch.Tensor):
                state[k] = v.to(device)


# ---- task ----------------------------------------------------------------------------------------
# A training task as a Python user writes it: a model, an optimizer, batches staged on the
# device, and a step (forward and loss under autocast, backward, optimizer step, zero_grad).

AUTOCAST = {"float32": None, "tfloat32": None, "bfloat16": torch.bfloat16, "float16": torch.float16}
OPTIMIZERS = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "sgd": torch.optim.SGD}
COMPILE_MODES = ("default", "reduce-overhead", "max-autotune")


class BadInput(Exception):
    """The user's module, factory or description is wrong: one line, exit status 2."""


def parse_optimizer(text: str):
    """'adam', 'adam:fused', 'adamw:foreach', 'sgd' -> (class, name, keyword arguments)."""
    name, _, variant = (text or "adam").partition(":")
    if name not in OPTIMIZERS:
        raise BadInput(f"--py-optimizer {text}: unknown optimizer '{name}' (adam, adamw, sgd)")
    if variant not in ("", "fused", "foreach", "default"):
        raise BadInput(f"--py-optimizer {text}: unknown variant '{variant}' (fused, foreach)")
    kwargs = {"fused": True} if variant == "fused" else {"foreach": True} if variant == "foreach" else {}
    if variant == "default":
        kwargs = {"foreach": False}
    return OPTIMIZERS[name], text or "adam", kwargs


def describe_optimizer(opt) -> str:
    d = opt.defaults
    if d.get("fused"):
        kind = "fused"
    elif d.get("foreach") is True:
        kind = "foreach"
    elif d.get("foreach") is False:
        kind = "for-loop"
    else:
        kind = "PyTorch's default: foreach"
    extra = ""
    if d.get("betas", (0.9, 0.999))[0] != 0.9:
        extra += f", beta1 {d['betas'][0]:g}"
    if d.get("weight_decay"):
        extra += f", weight decay {d['weight_decay']:g}"
    return f"torch.optim.{type(opt).__name__} ({kind}), lr {d.get('lr')}{extra}"


def output_logits(out):
    """The tensor a loss is taken of: a tensor, a dict's (or a ModelOutput's) 'logits', or a tuple's first."""
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, dict) or hasattr(out, "keys"):
        if "logits" in out:
            return out["logits"]
        raise ValueError(f"the model returned a dict without 'logits' (keys: {', '.join(map(str, out.keys()))})")
    if isinstance(out, (tuple, list)) and out and isinstance(out[0], torch.Tensor):
        return out[0]
    raise ValueError(f"the model returned {type(out).__name__}, not a tensor, a dict with 'logits' or a tuple")


def output_loss(out):
    """The model's own loss: a 0-dim tensor, or a dict's 'loss'."""
    if isinstance(out, torch.Tensor):
        return out
    if (isinstance(out, dict) or hasattr(out, "keys")) and "loss" in out and out["loss"] is not None:
        return out["loss"]
    raise ValueError("--target loss: the model returned no loss (a 0-dim tensor or a dict with 'loss')")


class Task:
    def __init__(self, spec: dict, inputs: dict, device: torch.device):
        self.device = device
        self.spec = spec
        dtype = spec.get("dtype", "float32")
        if dtype not in AUTOCAST:
            raise BadInput(f"precision {dtype} is not supported by the Python measurer")
        self.amp_dtype = AUTOCAST[dtype]
        if dtype == "tfloat32":
            torch.backends.cuda.matmul.allow_tf32 = True
        self.scaler = torch.amp.GradScaler(device.type) if dtype == "float16" else None
        self.scheduler = None
        self.gan = None
        self.batch_fn = None
        self.batches = []
        self.next = 0
        seed = int(inputs.get("seed", 0))
        torch.manual_seed(seed)
        if spec.get("workload") in WORKLOADS and not inputs.get("py_model"):
            self._build_builtin(spec, inputs)
        else:
            self._build_user(spec, inputs)
        self.model.train()
        self.step_model = self.model
        mode = spec.get("compile", "")
        if mode:
            self.step_model = torch.compile(self.model, mode=None if mode == "default" else mode)

    def _build_builtin(self, spec, inputs):
        w = WORKLOADS[spec["workload"]]
        self.workload = w
        width = int(spec.get("width", 0))
        self.model = w.make_model(width, inputs).to(self.device)
        self.loss_kind = "classes"
        batches, self.data_source, self.synthetic = w.make_batch(inputs, int(spec["batch_size"]), STAGED_BATCHES)
        self.batches = [self._on_device(b) for b in batches]
        make_optimizer = self._builtin_optimizer(w, inputs)
        if w.gan:
            self.gan = dcgan.GanTraining(self.model, make_optimizer, int(spec["batch_size"]), self.device,
                                         int(inputs.get("seed", 0)), self.autocast)
            self.optimizer = self.gan.opt_d
        else:
            self.optimizer = make_optimizer(self.model.parameters())
        if w.schedule is not None:
            self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, w.schedule)
        self.samples_per_epoch = w.samples_per_epoch
        self.epoch_unit = w.unit
        self.flops_per_sample = w.flops_per_sample(width, inputs)

    @staticmethod
    def _builtin_optimizer(w, inputs):
        """parameters -> the optimizer: --py-optimizer's, else the workload's, at the workload's
        learning rate (and its weight decay or betas for Adam and AdamW)."""
        cls, _, kwargs = parse_optimizer(inputs.get("py_optimizer", "") or w.optimizer)
        if cls is not torch.optim.SGD:
            kwargs = {**w.optimizer_kwargs, **kwargs}
        return lambda params: cls(params, lr=w.lr, **kwargs)

    def _build_user(self, spec, inputs):
        made = build(inputs, int(spec["batch_size"]), self.device)
        self.model, self.loss_kind, self.classes = made.model, made.loss_kind, made.classes
        self.data_source, self.synthetic = made.source, True
        self.batch_fn = made.batch_fn
        if made.batch_fn is None:
            self.batches = [self._on_device(b) for b in made.batches]
        if made.optimizer is not None:
            self.optimizer = made.optimizer
        else:
            cls, _, kwargs = parse_optimizer(inputs.get("py_optimizer", ""))
            self.optimizer = cls(self.model.parameters(), **kwargs)
        self.samples_per_epoch = 0
        self.epoch_unit = "samples"
        self.flops_per_sample = float(inputs.get("model_flops_per_sample", 0) or 0)

    def _on_device(self, batch):
        inputs, target = batch
        move = lambda t: t.to(self.device) if isinstance(t, torch.Tensor) else t  # noqa: E731
        return tuple(move(t) for t in inputs), move(target)

    def autocast(self):
        if self.amp_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=self.amp_dtype)

    def next_batch(self):
        if self.batch_fn is not None:
            return self._on_device(as_batch(self.batch_fn(self.next)))
        b = self.batches[self.next % len(self.batches)]
        self.next += 1
        return b

    def loss_of(self, model, batch):
        inputs, target = batch
        out = model(*inputs)
        if self.loss_kind == "loss":
            return output_loss(out)
        logits = output_logits(out)
        if self.loss_kind == "mse":
            return F.mse_loss(logits.float(), target)
        return F.cross_entropy(logits, target)

    def step(self):
        batch = self.next_batch()
        if self.gan is not None:
            loss = self.gan.step(batch[0][0])
            if self.scheduler is not None:
                self.scheduler.step()
            return loss
        with self.autocast():
            loss = self.loss_of(self.step_model, batch)
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        if self.scheduler is not None:
            self.scheduler.step()
        return loss

    def evaluation_loss(self) -> float:
        """The loss on the first batch, the model in eval mode (as the C++ tasks)."""
        batch = self.batches[0] if self.batches else self._first_user_batch()
        if self.gan is not None:
            return self.gan.evaluation_loss(batch[0][0])
        self.model.eval()
        with torch.no_grad(), self.autocast():
            value = float(self.loss_of(self.model, batch).float().item())
        self.model.train()
        return value

    def _first_user_batch(self):
        if not hasattr(self, "_eval_batch"):
            self._eval_batch = self._on_device(as_batch(self.batch_fn(0)))
        return self._eval_batch

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    def optimizer_description(self) -> str:
        text = ("2 x " if self.gan is not None else "") + describe_optimizer(self.optimizer)
        if self.scheduler is not None:
            text += ", " + self.workload.schedule_text
        return text + (" + loss scaling (GradScaler)" if self.scaler is not None else "")


def finite(value: float) -> bool:
    return math.isfinite(value)


# ---- measure -------------------------------------------------------------------------------------
# One round of a case, step by step, as the C++ engine measures it (src/engine/case_measurement.cpp):
# build, warm up until the step time stops moving, group short steps K at a time, sample until the
# median's interval meets its target or the round's time is up. Every sample is K steps closed by a
# device synchronization, read with time.perf_counter().

PYTHON_VERSION = "%d.%d.%d" % sys.version_info[:3]


class Diverged(Exception):
    pass


def synchronize(device: torch.device) -> None:
    if device.type == "cpu":
        return
    acc = getattr(torch, "accelerator", None)
    if acc is not None and hasattr(acc, "synchronize"):
        acc.synchronize(device)
    elif device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def open_device(name: str) -> torch.device:
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise BadInput(f"device {name}: this Python's torch {torch.__version__} has no CUDA")
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise BadInput(f"device {name}: this Python's torch {torch.__version__} has no MPS")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    return device


def says_out_of_memory(e: BaseException) -> bool:
    oom = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    text = str(e)
    return (oom is not None and isinstance(e, oom)) or "out of memory" in text or "can't allocate memory" in text


def first_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    line = lines[0] if lines else type(e).__name__
    return line[:400] + ("..." if len(line) > 400 else "")


def check_finite(loss, where: str, step: int) -> None:
    v = float(loss.detach().float().item())  # after the clock was read: not timed
    if not math.isfinite(v):
        kind = "NaN" if math.isnan(v) else "Inf"
        raise Diverged(f"loss became {kind} at {where} step {step}: training diverged")


class Round:
    def __init__(self, request: dict):
        self.spec = request["spec"]
        measure = request.get("measure", {})
        self.inputs = measure.get("inputs", {})
        self.settings = measure.get("settings", {})
        self.allowance_s = float(self.settings.get("max_time_s", 30.0))
        self.start = time.perf_counter()
        self.r = {**self.spec, "status": "ok", "failure": "none", "error": "",
                  "ci_target": self.settings.get("ci_target", 0.02), "samples": []}
        self.task = None
        self.device = None

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def run(self) -> dict:
        try:
            self.build()
            self.warm_up()
            self.sample()
            self.finish()
        except BadInput:
            raise
        except Diverged as e:
            self.fail("diverged", str(e))
        except BaseException as e:  # noqa: BLE001 - the result says what went wrong
            if isinstance(e, KeyboardInterrupt):
                raise
            self.fail("out_of_memory" if says_out_of_memory(e) else "backend_error",
                      ("out of memory: " if says_out_of_memory(e) else "") + f"{type(e).__name__}: {first_line(e)}")
        self.r["wall_s"] = self.elapsed()
        self.r["memory"] = self.memory()
        return self.r

    def fail(self, kind: str, message: str) -> None:
        self.r.update(status="failed", failure=kind, error=message)

    def build(self) -> None:
        threads = int(self.spec.get("threads", 0) or 0)
        if threads > 0:
            torch.set_num_threads(threads)
        self.r["threads"] = torch.get_num_threads()
        self.device = open_device(self.spec["device"])
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.device)
        self.task = Task(self.spec, self.inputs, self.device)
        t = self.task
        self.r.update(parameter_count=t.parameter_count(), data_source=t.data_source, synthetic_data=t.synthetic,
                      optimizer=t.optimizer_description(), pipeline="staged on the device",
                      train_flops_per_sample=t.flops_per_sample,
                      epoch={"samples_per_epoch": t.samples_per_epoch, "unit": t.epoch_unit})
        self.r["loss_before"] = t.evaluation_loss()
        if not math.isfinite(self.r["loss_before"]):
            raise RuntimeError("the initial loss is not finite")
        if self.spec.get("compile"):
            self.compile_first()

    def compile_first(self) -> None:
        """torch.compile compiles at the first step: that step is taken before the round's clock starts
        (compile time is not the step's), and said beside the case."""
        t0 = time.perf_counter()
        loss = self.task.step()
        synchronize(self.device)
        seconds = time.perf_counter() - t0
        check_finite(loss, "compile", 1)
        self.r["numerics"] = f"torch.compile mode {self.spec['compile']}: first step (compilation) {seconds:.1f} s, before timing"
        self.start = time.perf_counter()

    def warm_up(self) -> None:
        s = self.settings
        self.warmup = WarmupDetector(min_steps=int(s.get("min_warmup_steps", 3)))
        warm_start = time.perf_counter()
        limit = float(s.get("max_warmup_fraction", 0.3)) * self.allowance_s
        stable = True
        while True:
            t0 = time.perf_counter()
            loss = self.task.step()
            synchronize(self.device)
            self.warmup.add(time.perf_counter() - t0)
            check_finite(loss, "warm-up", len(self.warmup.steps))
            if self.warmup.stable():
                break
            count = len(self.warmup.steps)
            out_of_time = count >= self.warmup.min_steps and time.perf_counter() - warm_start >= limit
            if out_of_time or self.minimum_does_not_fit():
                stable = False
                break
        self.r["warmup"] = {"steps": len(self.warmup.steps), "seconds": time.perf_counter() - warm_start,
                            "stable": stable}
        step_s = max(self.warmup.recent_median(), 1e-9)
        self.steps_per_sample = max(1, math.ceil(float(s.get("min_sample_time_s", 1e-3)) / step_s))
        self.r["steps_per_sample"] = self.steps_per_sample

    def minimum_does_not_fit(self) -> bool:
        left = max(0, self.warmup.min_steps - len(self.warmup.steps))
        needed = (left + int(self.settings.get("floor_samples", 3))) * self.warmup.recent_median()
        return needed > self.allowance_s - self.elapsed()

    def floor_samples(self) -> int:
        sample_s = self.warmup.recent_median() * self.steps_per_sample
        left = max(0.0, self.allowance_s - self.elapsed())
        most = int(self.settings.get("floor_samples", 3))
        fit = math.floor(left / sample_s) if sample_s > 0 else most
        return max(1, min(fit, most))

    def sample(self) -> None:
        s = self.settings
        stopper = Stopper(float(s.get("ci_target", 0.02)), int(s.get("min_samples", 10)),
                                float(s.get("min_time_s", 0.5)), max(0.0, self.allowance_s - self.elapsed()),
                                float(s.get("confidence", 0.95)))
        floor = self.floor_samples()
        k = self.steps_per_sample
        step = self.task.step
        device = self.device
        sample_start = time.perf_counter()
        steps = 0
        while True:
            t0 = time.perf_counter()
            for _ in range(k):
                loss = step()
            synchronize(device)
            t1 = time.perf_counter()
            steps += k
            stopper.add((t1 - t0) / k, t1 - sample_start)
            check_finite(loss, "measured", steps)
            if stopper.should_stop() and len(stopper.samples) >= floor:
                break
        self.r["samples"] = stopper.samples
        self.r["measure_s"] = time.perf_counter() - sample_start
        self.r["noisy"] = not stopper.target_met()

    def finish(self) -> None:
        self.r["loss_after"] = self.task.evaluation_loss()

    def memory(self) -> dict:
        m = {"peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
        if self.device is not None and self.device.type == "cuda":
            m.update(peak_allocated_bytes=torch.cuda.max_memory_allocated(self.device),
                     peak_reserved_bytes=torch.cuda.max_memory_reserved(self.device),
                     allocated_bytes=torch.cuda.memory_allocated(self.device),
                     reserved_bytes=torch.cuda.memory_reserved(self.device),
                     source="torch.cuda memory statistics; host peak RSS (getrusage)")
        else:
            m["source"] = "host peak RSS (getrusage)"
        return m


def check(request: dict) -> str:
    """Builds the case's model on the CPU and runs one forward and loss at batch 2: a module that
    fails to import, a factory that raises, or a forward that fails is bad input (BadInput)."""
    spec = dict(request["spec"], batch_size=2, compile="")
    inputs = request.get("measure", {}).get("inputs", {})
    task = Task(spec, inputs, torch.device("cpu"))
    try:
        with torch.no_grad():
            loss = task.loss_of(task.model, task.next_batch())
        if loss.dim() != 0:
            raise ValueError(f"the loss has shape {list(loss.shape)}, not a scalar")
    except BadInput:
        raise
    except BaseException as e:  # noqa: BLE001
        raise BadInput(f"{spec['workload']}: the forward pass at batch 2 failed: {type(e).__name__}: {first_line(e)}") from None
    return f"ok {task.parameter_count()}"
