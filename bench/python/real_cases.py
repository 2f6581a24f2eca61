#!/usr/bin/env python3
"""Python eager-mode reference for accelbench's three real cases (resnet18, bert-base, dcgan).

The models are the ones a PyTorch user would write: torchvision's ResNet-18, Hugging Face
transformers' BertForSequenceClassification (random init from BertConfig, no download) and
the DCGAN of pytorch/examples (examples/dcgan/main.py). Each trains on synthetic data staged
on the device, and its step time is measured the way the C++ engine measures it, by the same
timing engine as article_models.py (timing.py). The JSON it writes
(accelbench.python-reference/1) can be compared with `accelbench run --json` by
bench/python/compare_cpp_python.py.

--dtype bfloat16/float16 trains under autocast (float16 with loss scaling; not dcgan, as in
the C++ tool), --graphs captures each model's whole training step (dcgan: its G and D steps
together) once in a CUDA graph and times its replays (timing.GraphedStep); '--graphs both'
times eager and graphs side by side. --cudnn-benchmark sets torch.backends.cudnn.benchmark;
--channels-last puts resnet18 and dcgan (G and D) and their image batches in
torch.channels_last (bert-base ignores it): the convolution settings the C++ tool can run with.

Needs torch; torchvision (else a hand-written, identical ResNet-18 is used) and transformers
(else bert-base is skipped) are optional. No network, no numpy.

Example:
    python3 bench/python/real_cases.py --models resnet18,bert-base,dcgan --device cuda \
        --batch-size 64 --ci-target 0.02 --min-samples 10 --max-time 20 --json out.json
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import (  # noqa: E402
    NUM_BATCHES, SEED, GraphRefused, Precision, SkipModel, TrainCase, add_common_args,
    channels_last_batch, check_graphs_device, check_params, common_settings, device_name,
    make_step_optimizer, param_count, parse_models, print_table, resolve_device, run_all, sync,
    write_json)

MODEL_NAMES = ("resnet18", "bert-base", "dcgan")

# ---- resnet18 ----
RESNET_EXPECTED = {"standard": 11_181_642, "cifar": 11_173_962}
RESNET_LR = 1e-3
CIFAR_MEAN = (0.4914, 0.4822, 0.4465)  # CIFAR-10 training-set per-channel statistics
CIFAR_STD = (0.2470, 0.2435, 0.2616)

# ---- bert-base ----
BERT_EXPECTED = 109_483_778
BERT_VOCAB = 30_522
BERT_PAD_ID = 0                    # [PAD]
BERT_TOKEN_LOW = 1_000             # synthetic word-piece ids in [1000, 30522)
BERT_LR = 2e-5
BERT_WEIGHT_DECAY = 0.01
BERT_TOTAL_STEPS = 1_000           # schedule length: linear warm-up over 10%, then linear decay
BERT_WARMUP_STEPS = BERT_TOTAL_STEPS // 10
BERT_MIN_LEN = 8
BERT_LEN_MEDIAN_FRACTION = 0.5     # lengths ~ lognormal, median = 0.5 * seq_len ...
BERT_LEN_SIGMA = 0.5               # ... sigma 0.5, rounded and clamped to [8, seq_len]

# ---- dcgan ----
DCGAN_NZ = 100
DCGAN_NGF = 64
DCGAN_NDF = 64
DCGAN_IMAGE = 64
DCGAN_LR = 2e-4
DCGAN_BETAS = (0.5, 0.999)
DCGAN_EXPECTED = {1: (3_574_656, 2_763_520), 3: (3_576_704, 2_765_568)}  # nc: (G, D)
DCGAN_FP16_REFUSAL = ("dcgan does not support --dtype float16 (its two optimizers would need "
                      "loss scaling each, which the C++ tool does not do either); use bfloat16")


def _channels_last(a) -> bool:
    """--channels-last; a namespace without it (the CPU check in git history,
    1549e6e:bench/python/graphs_cpu_check.py, builds its own) means off."""
    return bool(getattr(a, "channels_last", False))


# --------------------------------------------------------------------------------------------
# resnet18: torchvision.models.resnet18(num_classes=10), or an identical hand-written one
# --------------------------------------------------------------------------------------------

class BasicBlock(nn.Module):
    """torchvision.models.resnet.BasicBlock (same attribute names, so same state_dict keys)."""
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet18(nn.Module):
    """torchvision.models.resnet18(num_classes=...) written out: same layers, names, init."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(64, 2)
        self.layer2 = self._make_layer(128, 2, stride=2)
        self.layer3 = self._make_layer(256, 2, stride=2)
        self.layer4 = self._make_layer(512, 2, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes, 1, stride=stride, bias=False),
                nn.BatchNorm2d(planes),
            )
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes
        for _ in range(1, blocks):
            layers.append(BasicBlock(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def _torchvision():
    """(torchvision module, None) or (None, reason)."""
    try:
        import torchvision  # noqa: F401
        import torchvision.models  # noqa: F401
        return torchvision, None
    except Exception as e:  # ImportError, or a torchvision built for another torch
        return None, f"{type(e).__name__}: {e}"


def _check_fallback_matches(tv, verbose: bool) -> None:
    """With torchvision present: the hand-written ResNet-18 must have its state_dict layout.

    Built on the meta device (no memory, no RNG use), so it costs nothing measurable.
    """
    try:
        with torch.device("meta"):
            ref = tv.models.resnet18(num_classes=10)
            mine = ResNet18(num_classes=10)
        a = [(k, tuple(v.shape)) for k, v in ref.state_dict().items()]
        b = [(k, tuple(v.shape)) for k, v in mine.state_dict().items()]
        if a != b:
            print("warning: the hand-written ResNet-18 fallback differs from torchvision's "
                  "(state_dict keys/shapes)", file=sys.stderr)
        elif verbose:
            print("[resnet18] hand-written fallback checked against torchvision: same "
                  f"{len(a)} state_dict entries", flush=True)
    except Exception as e:
        print(f"note: could not check the ResNet-18 fallback against torchvision ({e})",
              file=sys.stderr)


def build_resnet18(variant: str, impl: str):
    """Returns (model, implementation string). Call after torch.manual_seed."""
    tv, why = (None, None) if impl == "handwritten" else _torchvision()
    if tv is None and impl == "torchvision":
        sys.exit(f"error: --resnet-impl torchvision but torchvision is unavailable ({why})")
    if tv is not None:
        model = tv.models.resnet18(num_classes=10)
        impl_str = f"torchvision {tv.__version__}"
    else:
        reason = "forced by --resnet-impl handwritten" if impl == "handwritten" else \
            f"torchvision not available ({why})"
        print(f"[resnet18] {reason}: using the hand-written ResNet-18 (same layers, names "
              "and initialisation as torchvision.models.resnet18)", flush=True)
        model = ResNet18(num_classes=10)
        impl_str = "hand-written (torchvision layout)"
    if variant == "cifar":
        # the usual CIFAR stem: 3x3 stride-1 conv1, no max-pool
        model.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
        model.maxpool = nn.Identity()
    return model, impl_str


def resnet_batches(batch_size: int, dev: torch.device):
    """CIFAR-10-shaped: torch.rand images [B,3,32,32] normalised per channel, labels [0,10)."""
    g = torch.Generator(device="cpu")
    g.manual_seed(SEED)
    mean = torch.tensor(CIFAR_MEAN).view(1, 3, 1, 1)
    std = torch.tensor(CIFAR_STD).view(1, 3, 1, 1)
    batches = []
    for _ in range(NUM_BATCHES):
        x = (torch.rand(batch_size, 3, 32, 32, generator=g) - mean) / std
        y = torch.randint(0, 10, (batch_size,), generator=g, dtype=torch.int64)
        batches.append((x.to(dev), y.to(dev)))
    sync(dev)
    return batches


def build_resnet18_case(dev, a, dtype="float32", graphs=False, verbose=True) -> TrainCase:
    name = "resnet18"
    if a.resnet_impl != "handwritten":
        tv, _ = _torchvision()
        if tv is not None:
            _check_fallback_matches(tv, verbose)
    torch.manual_seed(SEED)
    model, impl = build_resnet18(a.variant, a.resnet_impl)
    n_params = param_count(model)
    check_params(name, n_params, RESNET_EXPECTED[a.variant], verbose)
    channels_last = _channels_last(a)
    model = model.to(dev)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    model.train()
    prec = Precision(dtype, dev, graphs)
    opt, opt_kind = make_step_optimizer(model.parameters(), dev, torch.optim.Adam, "adam",
                                        graphs, prec, lr=RESNET_LR)
    batches = resnet_batches(a.batch_size, dev)
    if channels_last:
        batches = [channels_last_batch(b) for b in batches]

    def train_step(batch):
        """forward + loss (autocast in bf16/fp16), backward, optimizer step; no zero_grad."""
        x, y = batch
        with prec.autocast():
            loss = F.cross_entropy(model(x), y)
        prec.backward(loss)
        prec.step(opt)
        return loss

    return TrainCase(
        name=name, train_step=train_step, batches=batches,
        zero_grad=lambda: opt.zero_grad(set_to_none=True), n_params=n_params,
        optimizer=opt_kind, precision=prec, modules=[model],
        extra={
            "variant": a.variant,
            "implementation": impl,
            "input_shape": [a.batch_size, 3, 32, 32],
            "loss_fn": "cross_entropy",
            "lr": RESNET_LR,
        })


# --------------------------------------------------------------------------------------------
# bert-base: transformers.BertForSequenceClassification from BertConfig (random init)
# --------------------------------------------------------------------------------------------

def _transformers():
    try:
        import transformers
        from transformers import BertConfig, BertForSequenceClassification  # noqa: F401
        return transformers, None
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"


def bert_batches(batch_size: int, seq_len: int, dev: torch.device):
    """Right-padded synthetic token ids, lengths clamp(round(lognormal), 8, seq_len).

    Returns (batches, real tokens per batch); each batch is a dict of model inputs + labels.
    """
    g = torch.Generator(device="cpu")
    g.manual_seed(SEED)
    mu = math.log(BERT_LEN_MEDIAN_FRACTION * seq_len)
    min_len = min(BERT_MIN_LEN, seq_len)
    positions = torch.arange(seq_len).unsqueeze(0)
    batches, real_tokens = [], []
    for _ in range(NUM_BATCHES):
        lengths = torch.empty(batch_size, dtype=torch.float64).log_normal_(
            mean=mu, std=BERT_LEN_SIGMA, generator=g)
        lengths = lengths.round().clamp_(min_len, seq_len).to(torch.int64)
        mask = (positions < lengths.unsqueeze(1)).to(torch.int64)        # [B, L]
        ids = torch.randint(BERT_TOKEN_LOW, BERT_VOCAB, (batch_size, seq_len), generator=g,
                            dtype=torch.int64)
        ids = ids * mask + BERT_PAD_ID * (1 - mask)
        labels = torch.randint(0, 2, (batch_size,), generator=g, dtype=torch.int64)
        real_tokens.append(int(mask.sum()))
        batches.append({
            "input_ids": ids.to(dev),
            "attention_mask": mask.to(dev),
            "token_type_ids": torch.zeros_like(ids).to(dev),
            "labels": labels.to(dev),
        })
    sync(dev)
    return batches, real_tokens


def make_bert_scheduler(opt, transformers):
    fn = getattr(transformers, "get_linear_schedule_with_warmup", None)
    if fn is not None:
        try:
            return fn(opt, num_warmup_steps=BERT_WARMUP_STEPS,
                      num_training_steps=BERT_TOTAL_STEPS), "get_linear_schedule_with_warmup"
        except Exception as e:
            print(f"note: get_linear_schedule_with_warmup failed ({e}); using LambdaLR",
                  file=sys.stderr)

    def lr_lambda(step):  # same formula as transformers'
        if step < BERT_WARMUP_STEPS:
            return step / max(1, BERT_WARMUP_STEPS)
        return max(0.0, (BERT_TOTAL_STEPS - step) / max(1, BERT_TOTAL_STEPS - BERT_WARMUP_STEPS))

    return torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda), "LambdaLR (linear warm-up/decay)"


def build_bert_case(dev, a, dtype="float32", graphs=False, verbose=True) -> TrainCase:
    name = "bert-base"
    transformers, why = _transformers()
    if transformers is None:
        raise SkipModel(f"transformers is not available ({why}); install transformers to run it")
    from transformers import BertConfig, BertForSequenceClassification

    if a.seq_len > 512:
        sys.exit("error: --seq-len must be <= 512 (BERT's max_position_embeddings)")
    config = BertConfig(
        vocab_size=BERT_VOCAB, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, hidden_act="gelu", hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1, max_position_embeddings=512, type_vocab_size=2,
        pad_token_id=BERT_PAD_ID, num_labels=2, attn_implementation="sdpa")
    torch.manual_seed(SEED)
    model = BertForSequenceClassification(config)
    attn = getattr(model.config, "_attn_implementation", None)
    if verbose:
        print(f"[{name}] transformers {transformers.__version__}, attention: {attn}",
              flush=True)
    n_params = param_count(model)
    check_params(name, n_params, BERT_EXPECTED, verbose)
    model = model.to(dev)
    model.train()
    prec = Precision(dtype, dev, graphs)
    # graphs: the learning rate is a tensor on the device that the captured fused kernel reads
    opt, opt_kind = make_step_optimizer(model.parameters(), dev, torch.optim.AdamW, "adamw",
                                        graphs, prec, tensor_lr=graphs, lr=BERT_LR,
                                        weight_decay=BERT_WEIGHT_DECAY)
    if not graphs:
        sched, sched_kind = make_bert_scheduler(opt, transformers)
        before_step = None
    else:
        # The schedule (get_linear_schedule_with_warmup, a LambdaLR: lr set from the host after
        # each step) runs on a stand-in optimizer on the CPU with the same base lr; before each
        # step (each replay) its lr is filled into the real optimizer's lr tensor, in place, so
        # that the captured kernel reads it. A scheduler attached to the tensor lr itself would
        # compute on the device, and a version that assigned group["lr"] anew instead of
        # filling it would leave the graph reading the old tensor.
        lr_tensor = opt.param_groups[0]["lr"]
        host_opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BERT_LR)
        sched, sched_kind = make_bert_scheduler(host_opt, transformers)
        sched_kind += " (host-side; lr filled into a device tensor before each replay)"

        def before_step():
            lr_tensor.fill_(sched.get_last_lr()[0])
    batches, real_tokens = bert_batches(a.batch_size, a.seq_len, dev)
    if verbose:
        print(f"[{name}] seq_len {a.seq_len}: real (non-pad) tokens per batch {real_tokens} "
              f"of {a.batch_size * a.seq_len}", flush=True)

    steps = 0

    def train_step(b):
        """forward + loss (the model's own cross-entropy, autocast in bf16/fp16), backward,
        optimizer step; no zero_grad, no scheduler (after_step)."""
        with prec.autocast():
            out = model(**b)
        prec.backward(out.loss)
        prec.step(opt)
        return out.loss

    def after_step():
        nonlocal steps
        sched.step()
        steps += 1

    def finish():
        if graphs:
            assert opt.param_groups[0]["lr"] is lr_tensor, "the lr tensor was replaced"
        return {"lr_last": float(sched.get_last_lr()[0]), "steps_run": steps}

    return TrainCase(
        name=name, train_step=train_step, batches=batches,
        zero_grad=lambda: opt.zero_grad(set_to_none=True), n_params=n_params,
        optimizer=opt_kind, precision=prec, modules=[model], before_step=before_step,
        after_step=after_step, finish=finish,
        extra={
            "seq_len": a.seq_len,
            "implementation": f"transformers {transformers.__version__}",
            "attn_implementation": attn,
            "real_tokens_per_batch": real_tokens,
            "real_tokens_per_batch_mean": sum(real_tokens) / len(real_tokens),
            "tokens_per_batch": a.batch_size * a.seq_len,
            "scheduler": sched_kind,
            "lr": BERT_LR,
            "weight_decay": BERT_WEIGHT_DECAY,
            "schedule_steps": {"warmup": BERT_WARMUP_STEPS, "total": BERT_TOTAL_STEPS},
        })


# --------------------------------------------------------------------------------------------
# dcgan: pytorch/examples dcgan/main.py
# --------------------------------------------------------------------------------------------

def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        torch.nn.init.normal_(m.weight, 1.0, 0.02)
        torch.nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self, nz=DCGAN_NZ, ngf=DCGAN_NGF, nc=1):
        super().__init__()
        self.main = nn.Sequential(
            # input is Z, going into a convolution
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 8),
            nn.ReLU(True),
            # state size. (ngf*8) x 4 x 4
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            # state size. (ngf*4) x 8 x 8
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            # state size. (ngf*2) x 16 x 16
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            # state size. (ngf) x 32 x 32
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
            # state size. (nc) x 64 x 64
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self, ndf=DCGAN_NDF, nc=1):
        super().__init__()
        self.main = nn.Sequential(
            # input is (nc) x 64 x 64
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf) x 32 x 32
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf*2) x 16 x 16
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf*4) x 8 x 8
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 8),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf*8) x 4 x 4
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        output = self.main(input)
        return output.view(-1, 1).squeeze(1)


def dcgan_batches(batch_size: int, nc: int, dev: torch.device):
    """Synthetic 'real' images in [-1, 1] (what Normalize((0.5,), (0.5,)) gives), [B,nc,64,64]."""
    g = torch.Generator(device="cpu")
    g.manual_seed(SEED)
    batches = []
    for _ in range(NUM_BATCHES):
        x = torch.rand(batch_size, nc, DCGAN_IMAGE, DCGAN_IMAGE, generator=g) * 2 - 1
        batches.append(x.to(dev))
    sync(dev)
    return batches


def build_dcgan_case(dev, a, dtype="float32", graphs=False, verbose=True) -> TrainCase:
    name = "dcgan"
    nc = a.nc
    if dtype == "float16":
        # as the C++ tool (and checked before any case runs, in main)
        raise GraphRefused(DCGAN_FP16_REFUSAL)
    torch.manual_seed(SEED)
    netG = Generator(nc=nc).to(dev)
    netG.apply(weights_init)
    netD = Discriminator(nc=nc).to(dev)
    netD.apply(weights_init)
    n_g, n_d = param_count(netG), param_count(netD)
    exp_g, exp_d = DCGAN_EXPECTED[nc]
    check_params(f"{name} G", n_g, exp_g, verbose)
    check_params(f"{name} D", n_d, exp_d, verbose)
    channels_last = _channels_last(a)
    if channels_last:
        # after weights_init, which fills the weights in memory order: in the default layout,
        # so that they are the same values as without --channels-last
        netG = netG.to(memory_format=torch.channels_last)
        netD = netD.to(memory_format=torch.channels_last)
    netG.train()
    netD.train()
    prec = Precision(dtype, dev, graphs)
    criterion = nn.BCELoss()
    optimizerD, opt_kind = make_step_optimizer(netD.parameters(), dev, torch.optim.Adam, "adam",
                                               graphs, prec, lr=DCGAN_LR, betas=DCGAN_BETAS)
    optimizerG, _ = make_step_optimizer(netG.parameters(), dev, torch.optim.Adam, "adam",
                                        graphs, prec, lr=DCGAN_LR, betas=DCGAN_BETAS)
    batches = dcgan_batches(a.batch_size, nc, dev)
    if channels_last:
        # the noise [B, nz, 1, 1] drawn in the step needs no conversion: with 1x1 spatial size
        # it is channels_last-contiguous as it is
        batches = [channels_last_batch(b) for b in batches]
    real_label, fake_label = 1.0, 0.0

    def D(x):
        # bf16: the forward under autocast, BCELoss outside it in float32 (it is unsafe to
        # autocast), as the C++ tool; in float32 both are no-ops
        with prec.autocast():
            out = netD(x)
        return out.float()

    def zero_grad():
        # The example clears D's gradients at the start of an iteration and G's before G's
        # backward; G gets none in between (D sees fake.detach()), so clearing both here, before
        # the step, is the same and leaves the step itself without zero_grad (as captured).
        netD.zero_grad(set_to_none=True)
        netG.zero_grad(set_to_none=True)

    def train_step(real):
        """One iteration of the example's loop (without its logging .item() calls)."""
        batch_size = real.size(0)
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        label = torch.full((batch_size,), real_label, dtype=real.dtype, device=dev)
        output = D(real)
        errD_real = criterion(output, label)
        errD_real.backward()
        noise = torch.randn(batch_size, DCGAN_NZ, 1, 1, device=dev)  # in a graph: new each replay
        with prec.autocast():
            fake = netG(noise)
        label.fill_(fake_label)
        output = D(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        errD = errD_real + errD_fake
        optimizerD.step()
        # (2) Update G network: maximize log(D(G(z)))
        label.fill_(real_label)  # fake labels are real for generator cost
        output = D(fake)
        errG = criterion(output, label)
        errG.backward()
        optimizerG.step()
        return errD, errG

    def read_loss(ret):
        errD, errG = (float(t.item()) for t in ret)
        return {"loss": errD + errG, "loss_d": errD, "loss_g": errG}

    return TrainCase(
        name=name, train_step=train_step, batches=batches, zero_grad=zero_grad,
        n_params=n_g + n_d, optimizer=opt_kind, precision=prec, modules=[netG, netD],
        read_loss=read_loss,
        extra={
            "nc": nc,
            "image_size": DCGAN_IMAGE,
            "nz": DCGAN_NZ,
            "param_count_g": n_g,
            "param_count_d": n_d,
            "loss_definition": "loss = errD + errG (errD = errD_real + errD_fake, BCELoss)",
            "lr": DCGAN_LR,
            "betas": list(DCGAN_BETAS),
        })


BUILDERS = {"resnet18": build_resnet18_case, "bert-base": build_bert_case,
            "dcgan": build_dcgan_case}


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p, ",".join(MODEL_NAMES), MODEL_NAMES)
    p.add_argument("--variant", choices=("standard", "cifar"), default="standard",
                   help="resnet18: 'standard' = torchvision's resnet18(num_classes=10); "
                        "'cifar' = 3x3 stride-1 conv1 and no max-pool")
    p.add_argument("--resnet-impl", choices=("auto", "torchvision", "handwritten"),
                   default="auto",
                   help="resnet18: torchvision when importable (auto), or force one")
    p.add_argument("--seq-len", type=int, default=128, help="bert-base: sequence length")
    p.add_argument("--nc", type=int, choices=(1, 3), default=1,
                   help="dcgan: image channels (1 = Fashion-MNIST-like, 3 = RGB)")
    a = p.parse_args(argv)
    models = parse_models(p, a, MODEL_NAMES)
    if a.seq_len < 1:
        p.error("--seq-len must be >= 1")

    if "dcgan" in models and "float16" in a.dtypes:
        print(f"error: {DCGAN_FP16_REFUSAL}", file=sys.stderr)
        return 2

    dev = resolve_device(a.device)
    check_graphs_device(a, dev)          # --graphs off CUDA: one line, exit status 2
    dev_str = str(dev)
    dname = device_name(dev)
    verbose = not a.quiet
    if verbose:
        print(f"torch {torch.__version__}, device {dev_str} ({dname}), "
              f"threads {torch.get_num_threads()}, batch {a.batch_size}, "
              f"dtype {','.join(a.dtypes)}"
              + (f", graphs {a.graphs}" if a.graphs else "")
              + (", cudnn.benchmark" if a.cudnn_benchmark else "")
              + (", channels_last" if a.channels_last else ""), flush=True)

    def build(m, dtype, graphs):
        return BUILDERS[m](dev, a, dtype, graphs, verbose)

    try:
        cases, skipped = run_all(models, build, dev, a, verbose)
    except GraphRefused as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    print()
    print_table(dev_str, cases)
    for s in skipped:
        print(f"skipped: {s['model']} ({s['reason']})")

    if a.json:
        settings = common_settings(a)
        settings.update({
            "resnet18_variant": a.variant, "bert_seq_len": a.seq_len, "dcgan_nc": a.nc,
            "float32_matmul_precision": torch.get_float32_matmul_precision(),
        })
        write_json(a.json, dev_str, dname, settings, cases,
                   {"skipped": skipped} if skipped else None)
        if verbose:
            print(f"\nwrote {a.json}")
    # a model skipped for a missing package is not an error; a graph that failed to capture is
    return 1 if any(s.get("graphs") for s in skipped) else 0


if __name__ == "__main__":
    sys.exit(main())
