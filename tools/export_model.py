#!/usr/bin/env python3
"""Export a PyTorch model to one TorchScript file that `accelbench run --model-file` trains.

    python3 tools/export_model.py --model torchvision.models:resnet18 --kwargs '{"num_classes": 10}' \\
        --input 3x32x32:float32 --target classes:10 -o resnet18.pt
    python3 tools/export_model.py --file my_model.py --factory make_model --input 784:float32 --target mse:10 -o mine.pt

The model is made by calling the factory (an import path MODULE:ATTR, or a function in a Python
file) with --kwargs, then compiled with torch.jit.script; when that fails (Python features
TorchScript cannot compile), with torch.jit.trace on an example batch, and a note says what the
trace froze. The batch description (--input, --target) and the training FLOPs per sample (counted
by torch.utils.flop_counter on a forward, loss and backward) are embedded in the file as the extra
file accelbench.json, so `accelbench run --model-file FILE` needs no other flag.

--input  SPEC[,SPEC...], SPEC = DIMS:DTYPE[:LOW..HIGH], one sample's shape ("scalar": one value per
         sample); integers uniform in [LOW, HIGH) (default [0, 2)), floats N(0, 1) or uniform in the range.
--target classes:N (cross-entropy on labels; the output must be [batch, N]), mse:DIMS (mean squared
         error; the output must be [batch, DIMS]) or loss (the forward returns its 0-dim loss).
Only the standard library and torch are needed. docs/own-model.md.
"""
import argparse
import importlib
import importlib.util
import json
import os
import re
import sys

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32")
EXTRA_FILE = "accelbench.json"
FORMAT = "accelbench.model/1"


class SpecError(ValueError):
    pass


def parse_dims(text):
    if text == "scalar":
        return []
    parts = text.split("x")
    if not all(re.fullmatch(r"[1-9][0-9]*", p) for p in parts) or len(parts) > 8:
        raise SpecError(f"'{text}' is not a shape like 3x224x224")
    return [int(p) for p in parts]


def parse_inputs(text):
    specs = []
    for part in text.split(","):
        fields = part.split(":")
        if len(fields) not in (2, 3):
            raise SpecError(f"--input '{part}': not DIMS:DTYPE[:LOW..HIGH]")
        spec = {"dims": parse_dims(fields[0]), "dtype": fields[1], "range": None}
        if spec["dtype"] not in DTYPES:
            raise SpecError(f"--input '{part}': unknown dtype '{fields[1]}' ({', '.join(DTYPES)})")
        if len(fields) == 3:
            low, sep, high = fields[2].partition("..")
            try:
                spec["range"] = (float(low), float(high))
            except ValueError:
                raise SpecError(f"--input '{part}': '{fields[2]}' is not a range LOW..HIGH") from None
            if not sep or not spec["range"][0] < spec["range"][1]:
                raise SpecError(f"--input '{part}': '{fields[2]}' is not a range LOW..HIGH with LOW < HIGH")
        specs.append(spec)
    return specs


def parse_target(text):
    if text == "loss":
        return {"kind": "loss"}
    kind, _, value = text.partition(":")
    if kind == "classes" and re.fullmatch(r"[1-9][0-9]*", value):
        return {"kind": "classes", "classes": int(value)}
    if kind == "mse":
        return {"kind": "mse", "dims": parse_dims(value)}
    raise SpecError(f"--target '{text}': expected classes:N, mse:DIMS or loss")


def make_batch(torch, specs, target, batch):
    inputs = []
    for s in specs:
        shape = [batch] + s["dims"]
        dtype = getattr(torch, s["dtype"])
        if s["dtype"].startswith("int"):
            low, high = s["range"] or (0, 2)
            inputs.append(torch.randint(int(low), int(high), shape, dtype=dtype))
        elif s["range"]:
            low, high = s["range"]
            inputs.append((torch.rand(shape) * (high - low) + low).to(dtype))
        else:
            inputs.append(torch.randn(shape).to(dtype))
    labels = None
    if target["kind"] == "classes":
        labels = torch.randint(0, target["classes"], [batch])
    elif target["kind"] == "mse":
        labels = torch.randn([batch] + target["dims"])
    return inputs, labels


def output_tensor(torch, out, want_loss):
    """The tensor accelbench's loss reads: a tensor, a tuple's or list's first tensor, a dict's loss/logits."""
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, dict):
        value = out.get("loss" if want_loss else "logits")
        if isinstance(value, torch.Tensor):
            return value
    if isinstance(out, (tuple, list)):
        for value in out:
            if isinstance(value, torch.Tensor):
                return value
    raise SpecError(f"the model's output is a {type(out).__name__} with no tensor the loss can take")


def loss_of(torch, out, labels, target, batch):
    out = output_tensor(torch, out, target["kind"] == "loss")
    if target["kind"] == "loss":
        if out.numel() != 1:
            raise SpecError(f"--target loss: the model's output is {list(out.shape)}, not one value")
        return out.reshape(())
    want = [batch, target["classes"]] if target["kind"] == "classes" else [batch] + target["dims"]
    if list(out.shape) != want:
        raise SpecError(f"the model's output is {list(out.shape)}; --target {target_text(target)} needs {want}")
    if target["kind"] == "classes":
        return torch.nn.functional.cross_entropy(out, labels)
    return torch.nn.functional.mse_loss(out, labels.to(out.dtype))


def target_text(target):
    if target["kind"] == "classes":
        return f"classes:{target['classes']}"
    if target["kind"] == "mse":
        return "mse:" + ("x".join(map(str, target["dims"])) or "scalar")
    return "loss"


def load_factory(args):
    if args.model:
        module_name, sep, attr = args.model.partition(":")
        if not sep or not attr:
            raise SpecError(f"--model '{args.model}': expected MODULE:ATTR, e.g. torchvision.models:resnet18")
        obj = importlib.import_module(module_name)
        for name in attr.split("."):
            obj = getattr(obj, name)
        return obj, args.model
    spec = importlib.util.spec_from_file_location("accelbench_user_model", args.file)
    if spec is None or spec.loader is None:
        raise SpecError(f"--file {args.file}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules["accelbench_user_model"] = module
    spec.loader.exec_module(module)
    if not hasattr(module, args.factory):
        raise SpecError(f"--file {args.file}: no '{args.factory}' in it (--factory)")
    return getattr(module, args.factory), f"{args.file}:{args.factory}"


def compile_module(torch, model, example, force_trace):
    """torch.jit.script, or torch.jit.trace when that fails (or with --trace); returns (module, how)."""
    if not force_trace:
        try:
            return torch.jit.script(model), "torch.jit.script"
        except Exception as e:  # TorchScript cannot compile the Python: trace instead
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"note: torch.jit.script failed ({first[:200]}); falling back to torch.jit.trace: the trace records "
                  "the operations this example batch ran, so Python control flow, data-dependent shapes and "
                  "train/eval-dependent code (dropout, batch norm) are frozen as traced (in training mode)",
                  file=sys.stderr)
    traced = torch.jit.trace(model, tuple(example), strict=False, check_trace=False)
    frozen = len(re.findall(r'Device = prim::Constant\[value="cpu"\]', str(traced.inlined_graph)))
    if frozen:
        print(f"warning: the trace froze device=cpu in {frozen} place{'s' if frozen > 1 else ''} (tensors the forward "
              "creates, e.g. torch.ones(..., device=x.device)): on an accelerator it will fail with 'Expected all "
              "tensors to be on the same device'; pass such tensors as inputs (--input) or create them with "
              "*_like(x)", file=sys.stderr)
    return traced, "torch.jit.trace"


def count_flops(torch, module, inputs, labels, target, batch):
    """Training FLOPs per sample (forward, loss, backward) from torch.utils.flop_counter, or None."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
        counter = FlopCounterMode(display=False)
        with counter:
            loss_of(torch, module(*inputs), labels, target, batch).backward()
        module.zero_grad(set_to_none=True)
        return counter.get_total_flops() / batch
    except Exception as e:  # counting is a nicety: the file is still useful without it
        print(f"note: FLOPs not counted ({str(e).splitlines()[0] if str(e) else type(e).__name__}); give "
              "--flops-per-sample to accelbench for utilisation figures", file=sys.stderr)
        return None


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="factory as MODULE:ATTR, e.g. torchvision.models:resnet18")
    src.add_argument("--file", help="Python file holding the factory (with --factory)")
    p.add_argument("--factory", default="make_model", help="function in --file that returns the nn.Module")
    p.add_argument("--kwargs", default="{}", help="keyword arguments of the factory, as JSON")
    p.add_argument("--input", required=True, help="SPEC[,SPEC...], SPEC = DIMS:DTYPE[:LOW..HIGH] per sample")
    p.add_argument("--target", required=True, help="classes:N, mse:DIMS or loss")
    p.add_argument("--trace", action="store_true", help="trace instead of scripting")
    p.add_argument("--batch", type=int, default=2, help="example batch for tracing and FLOP counting")
    p.add_argument("-o", "--output", required=True, help="TorchScript file to write")
    return p.parse_args(argv)


def export(args):
    import warnings
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # torch without numpy: harmless
    import torch
    specs = parse_inputs(args.input)
    target = parse_target(args.target)
    try:
        kwargs = json.loads(args.kwargs)
    except json.JSONDecodeError as e:
        raise SpecError(f"--kwargs is not JSON: {e}") from None
    if not isinstance(kwargs, dict):
        raise SpecError("--kwargs must be a JSON object")
    factory, source = load_factory(args)
    model = factory(**kwargs)
    if not isinstance(model, torch.nn.Module):
        raise SpecError(f"{source} returned a {type(model).__name__}, not a torch.nn.Module")
    model.train()
    torch.manual_seed(0)
    inputs, labels = make_batch(torch, specs, target, args.batch)
    loss_of(torch, model(*inputs), labels, target, args.batch)  # the eager model fits the description
    module, how = compile_module(torch, model, inputs, args.trace)
    flops = count_flops(torch, model, inputs, labels, target, args.batch)
    description = {"format": FORMAT, "input": args.input, "target": target_text(target), "exported_by": how,
                   "source": source, "kwargs": kwargs, "torch_version": torch.__version__}
    if flops:
        description["flops_per_sample"] = flops
    save_atomically(torch, module, args.output, {EXTRA_FILE: json.dumps(description)})
    # Read it back as accelbench will, at another batch size (a trace may have frozen the batch).
    loaded = torch.jit.load(args.output)
    other = args.batch + 1
    check_inputs, check_labels = make_batch(torch, specs, target, other)
    try:
        loss_of(torch, loaded(*check_inputs), check_labels, target, other)
    except Exception as e:
        print(f"warning: the saved module fails at batch {other} ({str(e).strip().splitlines()[-1][:200]}); "
              "the trace may have frozen the batch size", file=sys.stderr)
    n = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"wrote {args.output}: {source} via {how}, {n:,} trainable parameters, input {args.input}, "
          f"target {target_text(target)}, " + (f"{flops:.4g} training FLOPs per sample" if flops else "FLOPs not counted"))
    print(f"measure it: accelbench run --model-file {args.output}")


def save_atomically(torch, module, path, extra_files):
    """torch.jit.save into a temporary file beside the target, then renamed over it: an earlier file
    at `path` is never left half overwritten (a link stays a link: its target is replaced)."""
    target = os.path.realpath(path)
    tmp = f"{target}.tmp-{os.getpid()}"
    try:
        torch.jit.save(module, tmp, _extra_files=extra_files)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def main(argv=None):
    args = parse_args(argv)
    try:
        export(args)
    except SpecError as e:
        print(f"export_model: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
