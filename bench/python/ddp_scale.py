#!/usr/bin/env python3
"""Python reference for `accelbench scale`: the same models trained with PyTorch's
DistributedDataParallel (NCCL), one process per GPU under torchrun, timed the way
`accelbench scale` times its ranks.

Models (shapes as in article_models.py and real_cases.py): resnet18 (torchvision layout,
CIFAR-10-shaped 3x32x32 input, Adam), transformer (6-layer encoder, d_model 512, seq 128, Adam),
bert-base (transformers' BertForSequenceClassification, seq 128, AdamW). Fused Adam/AdamW,
DDP's default buckets (bucket_cap_mb=25), bfloat16 by autocast around the forward and the loss.

Timing (the same rule as the C++ ranks, decisions taken by all ranks together): warm-up until
the median of the last 5 steps is within 5% of the 5 before (at least 5 steps, at most 30% of
--max-time); K steps per sample so that a sample lasts >= 50 ms (rank 0's choice, broadcast);
each sample closed by torch.cuda.synchronize(); samples until every rank has >= --min-samples,
>= 0.5 s of sampling and the 95% CI of its median within --ci-target, or --max-time.
Step time = the slowest rank's median; samples/s = world size x batch / that.

Example (2 GPUs):
    python3 -m torch.distributed.run --standalone --nproc_per_node=2 bench/python/ddp_scale.py \
        --models resnet18,transformer,bert-base --dtypes float32,bfloat16 --batch-size 64 \
        --json ddp-2.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from article_models import TransformerClassifier, make_batches  # noqa: E402
from real_cases import BERT_PAD_ID, BERT_VOCAB, bert_batches, build_resnet18, resnet_batches  # noqa: E402
from timing import NUM_BATCHES, SEED, Stopper, WarmupDetector, median_sorted  # noqa: E402

SCHEMA = "accelbench.ddp-scale/1"
DTYPES = {"float32": None, "bfloat16": torch.bfloat16}


def build(name: str, dev: torch.device, batch: int):
    """(model, optimizer, batches, loss(model, batch))."""
    torch.manual_seed(SEED)
    if name == "resnet18":
        model, _ = build_resnet18("standard", "auto")
        data = resnet_batches(batch, dev)
        loss = lambda m, b: F.cross_entropy(m(b[0]), b[1])  # noqa: E731
        opt_cls, kw = torch.optim.Adam, {"lr": 1e-3}
    elif name == "transformer":
        model = TransformerClassifier()
        data = make_batches("transformer", batch, dev)
        loss = lambda m, b: F.cross_entropy(m(b[0]), b[1])  # noqa: E731
        opt_cls, kw = torch.optim.Adam, {"lr": 3e-4}
    elif name == "bert-base":
        from transformers import BertConfig, BertForSequenceClassification
        config = BertConfig(
            vocab_size=BERT_VOCAB, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            intermediate_size=3072, hidden_act="gelu", hidden_dropout_prob=0.1,
            attention_probs_dropout_prob=0.1, max_position_embeddings=512, type_vocab_size=2,
            pad_token_id=BERT_PAD_ID, num_labels=2, attn_implementation="sdpa")
        model = BertForSequenceClassification(config)
        data, _ = bert_batches(batch, 128, dev)
        loss = lambda m, b: m(**b).loss  # noqa: E731
        opt_cls, kw = torch.optim.AdamW, {"lr": 2e-5, "weight_decay": 0.01}
    else:
        raise ValueError(f"unknown model {name!r}")
    model = model.to(dev).train()
    return model, opt_cls, kw, data, loss


def paired_ratio(a, b):
    """As accelbench's paired_ratio: the geometric mean of a[i]/b[i] with the Student t 95% interval."""
    logs = [math.log(x / y) for x, y in zip(a, b)]
    n = len(logs)
    mean = statistics.mean(logs)
    dof = n - 1
    small = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}
    q = small[dof] if dof in small else 1.96 + 2.5 / dof  # t(0.975, dof) within 0.3% from 10 on
    h = q * statistics.stdev(logs) / math.sqrt(n) if n > 1 else float("inf")
    return {"ratio": math.exp(mean), "low": math.exp(mean - h), "high": math.exp(mean + h), "pairs": n}


def agree(flag: bool, dev) -> bool:
    """True when every rank says True."""
    t = torch.tensor([1 if flag else 0], device=dev, dtype=torch.int32)
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    return bool(t.item())


def measure_case(name, dtype, a, dev, rank, world):
    model, opt_cls, kw, data, loss_fn = build(name, dev, a.batch_size)
    ddp = DDP(model, device_ids=[dev.index], bucket_cap_mb=a.bucket_mb)  # broadcasts rank 0's weights
    opt = opt_cls(ddp.parameters(), fused=True, **kw)
    amp = DTYPES[dtype]
    it = 0

    def make_step(net, optimizer):
        def step():
            nonlocal it
            b = data[it % NUM_BATCHES]
            it += 1
            with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
                loss = loss_fn(net, b)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            return loss
        return step

    step = make_step(ddp, opt)
    plain_step = None
    if a.overhead:  # as `accelbench scale --overhead`: a copy without DDP, a sample of it beside each
        plain, _, _, _, _ = build(name, dev, a.batch_size)
        plain_step = make_step(plain, opt_cls(plain.parameters(), fused=True, **kw))

    def timed(k, stepper=None):
        stepper = stepper or step
        t0 = time.perf_counter()
        for _ in range(k):
            loss = stepper()
        torch.cuda.synchronize(dev)
        s = (time.perf_counter() - t0) / k
        if not torch.isfinite(loss).item():
            raise RuntimeError(f"{name}: loss became NaN/Inf")
        return s

    # accelbench scale's rules (src/engine/scale_measurement.cpp) through the worker's detector and
    # stopping rule (accelbench_worker.timing, checked against the C++ ones)
    warm, t_start = WarmupDetector(min_steps=5), time.perf_counter()
    while True:
        warm.add(timed(1))
        done = warm.stable() or (len(warm.steps) >= 5 and time.perf_counter() - t_start > 0.3 * a.max_time)
        if agree(done, dev):
            break
    if plain_step:
        for _ in range(max(5, min(len(warm.steps), 50))):
            timed(1, plain_step)
    k = torch.tensor([max(1, math.ceil(0.05 / max(warm.recent_median(), 1e-9)))], device=dev)
    dist.broadcast(k, 0)
    k = int(k.item())
    samples, baseline, t0 = [], [], time.perf_counter()
    stopper = Stopper(a.ci_target, a.min_samples, 0.5, a.max_time)
    while True:
        plain_first = plain_step and len(samples) % 2 == 1
        if plain_first:
            baseline.append(timed(k, plain_step))
        samples.append(timed(k))
        if plain_step and not plain_first:
            baseline.append(timed(k, plain_step))
        stopper.add(samples[-1], time.perf_counter() - t0)
        if agree(stopper.should_stop(), dev):
            break
    mine = {"rank": rank, "samples_s": samples, "median_step_s": median_sorted(sorted(samples)),
            "warmup_steps": len(warm.steps), "steps_per_sample": k}
    if baseline:
        mine["baseline_samples_s"] = baseline
        mine["overhead"] = paired_ratio(samples, baseline)
    ranks = [None] * world
    dist.all_gather_object(ranks, mine)
    del ddp, opt, model, data
    torch.cuda.empty_cache()
    slow = max(ranks, key=lambda r: r["median_step_s"])
    return {"model": name, "dtype": dtype, "world_size": world, "batch_size": a.batch_size,
            "bucket_cap_mb": a.bucket_mb, "step_s": slow["median_step_s"], "slowest_rank": slow["rank"],
            "samples_per_s": world * a.batch_size / slow["median_step_s"], "ranks": ranks}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="resnet18,transformer,bert-base")
    p.add_argument("--dtypes", default="float32,bfloat16")
    p.add_argument("--batch-size", type=int, default=64, help="per GPU")
    p.add_argument("--bucket-mb", type=float, default=25.0)
    p.add_argument("--ci-target", type=float, default=0.02)
    p.add_argument("--min-samples", type=int, default=10)
    p.add_argument("--max-time", type=float, default=20.0, help="seconds of sampling per case")
    p.add_argument("--json", default="")
    p.add_argument("--overhead", action="store_true",
                   help="also time a copy without DDP, a sample beside each DDP sample (paired ratio per rank)")
    a = p.parse_args(argv)
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", rank)))
    torch.cuda.set_device(dev)
    cases = []
    for name in a.models.split(","):
        for dtype in a.dtypes.split(","):
            c = measure_case(name, dtype, a, dev, rank, world)
            cases.append(c)
            if rank == 0:
                o = c["ranks"][c["slowest_rank"]].get("overhead")
                extra = f", DDP against the same step without it {100 * (o['ratio'] - 1):+.1f}% " \
                        f"[{100 * (o['low'] - 1):+.1f}, {100 * (o['high'] - 1):+.1f}]" if o else ""
                print(f"ddp {name} {dtype} x{world}: {1e3 * c['step_s']:.3f} ms/step, "
                      f"{c['samples_per_s']:.1f} samples/s{extra}", flush=True)
    if rank == 0 and a.json:
        doc = {"schema": SCHEMA, "torch": torch.__version__, "device": torch.cuda.get_device_name(dev),
               "nccl": ".".join(map(str, torch.cuda.nccl.version())), "cases": cases}
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
