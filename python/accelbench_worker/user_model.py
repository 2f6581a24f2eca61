"""The user's own model: `--py-model FILE.py:FACTORY`. The factory, called with no arguments,
returns the model, or (model, optimizer, batch_fn) with batch_fn(index) -> (inputs, target).
Without a batch function, the batch is made from `--input` and `--target`, the descriptions
`--model-file` reads (docs/own-model.md):

  input:  SPEC[,SPEC...]  SPEC = DIMS:DTYPE[:LOW..HIGH]  (3x224x224:float32, 128:int64:0..30522)
  target: classes:N | mse:DIMS | loss  (loss: the model returns its own, or a dict with 'loss')
"""

from __future__ import annotations

import importlib.util
import os
import sys

import torch

from .errors import BadInput, user_error_line

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


def parse_dims(text: str, flag: str):
    if text == "scalar":
        return []
    try:
        dims = [int(d) for d in text.split("x")]
    except ValueError:
        raise BadInput(f"{flag} {text}: dimensions must be NxMx... or 'scalar'") from None
    if any(d < 1 for d in dims):
        raise BadInput(f"{flag} {text}: dimensions must be positive")
    return dims


def parse_inputs(text: str):
    specs = []
    for part in text.split(","):
        fields = part.split(":")
        if len(fields) not in (2, 3) or fields[1] not in DTYPES:
            raise BadInput(f"--input {part}: expected DIMS:DTYPE[:LOW..HIGH], DTYPE one of {', '.join(DTYPES)}")
        low, high, ranged = 0.0, 2.0, len(fields) == 3
        if ranged:
            lo, sep, hi = fields[2].partition("..")
            try:
                low, high = float(lo), float(hi)
            except ValueError:
                raise BadInput(f"--input {part}: the range must be LOW..HIGH") from None
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
    raise BadInput(f"--target {text}: expected classes:N, mse:DIMS or loss")


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
        raise BadInput(f"--py-model {text}: expected FILE.py:FACTORY")
    if not os.path.isfile(path):
        raise BadInput(f"--py-model {path}: no such file")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("accelbench_user_model", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as e:  # noqa: BLE001 - any failure of the user's module is bad input
        raise BadInput(f"--py-model {path}: the module failed to import: {type(e).__name__}: {user_error_line(e)}") from None
    factory = getattr(module, name, None)
    if not callable(factory):
        raise BadInput(f"--py-model {path}: no function '{name}' in the module")
    return factory


def build(inputs: dict, batch: int, device: torch.device) -> Made:
    text = inputs.get("py_model", "")
    factory = load_factory(text)
    try:
        made_value = factory()
    except BaseException as e:  # noqa: BLE001
        raise BadInput(f"--py-model {text}: the factory raised {type(e).__name__}: {user_error_line(e)}") from None
    made = Made()
    if isinstance(made_value, (tuple, list)):
        if len(made_value) != 3:
            raise BadInput(f"--py-model {text}: the factory must return a model or (model, optimizer, batch_fn)")
        made.model, made.optimizer, made.batch_fn = made_value
    else:
        made.model = made_value
    if not isinstance(made.model, torch.nn.Module):
        raise BadInput(f"--py-model {text}: the factory returned {type(made.model).__name__}, not a torch.nn.Module")
    made.model.to(device)
    if made.optimizer is not None:
        _move_optimizer_state(made.optimizer, device)
    target_text = inputs.get("model_target", "")
    if made.batch_fn is None:
        if not inputs.get("model_input") or not target_text:
            raise BadInput(f"--py-model {text}: --input and --target are needed (or a factory that returns a batch function)")
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
