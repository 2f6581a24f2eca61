"""A training task as a Python user writes it: a model, an optimizer, batches staged on the
device, and a step (forward and loss under autocast, backward, optimizer step, zero_grad), for a
built-in workload's twin (workloads/) or the user's own model (user_model.py)."""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F

from .errors import BadInput
from .user_model import as_batch, build
from .workloads import WORKLOADS, dcgan
from .workloads.workload import STAGED_BATCHES

AUTOCAST = {"float32": None, "tfloat32": None, "bfloat16": torch.bfloat16, "float16": torch.float16}
OPTIMIZERS = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "sgd": torch.optim.SGD}


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
