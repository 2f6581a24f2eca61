#!/usr/bin/env python3
"""Compare accelbench (C++/libtorch) step times with the Python eager reference.

Usage:
    python bench/python/compare_cpp_python.py CPP.json PY.json [PY2.json ...]

CPP.json is written by `accelbench run --json` (schema accelbench.run/1); PY.json by
bench/python/article_models.py (mlp, cnn, transformer) or bench/python/real_cases.py
(resnet18, bert-base, dcgan), schema accelbench.python-reference/1. Cases are matched on
(model, graphs, device type, dtype, batch size) -- a missing dtype counts as float32 -- and,
for the real cases, must not disagree on their configuration (resnet18 variant, bert-base
seq_len, dcgan nc) where both files state it. graphs: the step replayed as a CUDA graph
(--graphs), from the case's "graphs" / "spec.graphs" or a "[graphs]" label ("mlp[graphs]");
a graphs case is only compared with a graphs case. The ratio C++ median / Python median of
the step time is printed: < 1 means the C++ tool is faster, > 1 means Python is faster.

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys

_MISSING = object()

# Other spellings of the workload names, mapped to the names both tools use.
MODEL_ALIASES = {
    "resnet18-cifar10": "resnet18", "resnet-18": "resnet18", "resnet_18": "resnet18",
    "bert": "bert-base", "bert_base": "bert-base", "bert-base-uncased": "bert-base",
}

DTYPE_ALIASES = {
    "fp32": "float32", "float": "float32", "f32": "float32", "torch.float32": "float32",
    "bf16": "bfloat16", "torch.bfloat16": "bfloat16",
    "fp16": "float16", "half": "float16", "f16": "float16", "torch.float16": "float16",
}

VARIANT_ALIASES = {"imagenet": "standard", "torchvision": "standard", "default": "standard"}

# Configuration of the real cases: (name, candidate key paths in a case).
CONFIG_KEYS = (
    ("variant", ("variant", "config.variant", "workload_config.variant", "options.variant")),
    ("seq_len", ("seq_len", "config.seq_len", "workload_config.seq_len", "options.seq_len")),
    ("nc", ("nc", "config.nc", "workload_config.nc", "options.nc")),
)


def lookup(obj, *paths, default=None):
    """First value found among several candidate key paths.

    Each path is a dotted string ("stats.median") or a tuple of keys. Tolerates missing keys
    and non-dict intermediates, so new or renamed fields in the schemas don't break the script.
    """
    for path in paths:
        keys = path.split(".") if isinstance(path, str) else path
        cur = obj
        for k in keys:
            if isinstance(cur, dict) and k in cur:
                cur = cur[k]
            else:
                cur = _MISSING
                break
        if cur is not _MISSING and cur is not None:
            return cur
    return default


def device_type(dev) -> str:
    """'cuda:0' -> 'cuda', 'cpu' -> 'cpu'; also accepts {'type': ...} objects."""
    if isinstance(dev, dict):
        dev = lookup(dev, "type", "name", "device", default="")
    return str(dev or "").split(":", 1)[0].strip().lower()


def model_name(v) -> str:
    name = str(v or "").strip()
    return MODEL_ALIASES.get(name.lower(), name)


def split_graphs(label) -> tuple:
    """'mlp[graphs]' -> ('mlp', True); 'mlp[width=4096,graphs]' -> ('mlp[width=4096]', True);
    'mlp' -> ('mlp', False). Other bracketed options stay in the name (a different model)."""
    name = str(label or "").strip()
    if not name.endswith("]") or "[" not in name:
        return name, False
    base, opts = name[:-1].split("[", 1)
    parts = [o.strip() for o in opts.split(",") if o.strip()]
    if "graphs" not in parts:
        return name, False
    rest = [o for o in parts if o != "graphs"]
    return (f"{base}[{','.join(rest)}]" if rest else base), True


def case_model(c: dict, *paths) -> tuple:
    """(model name, graphs) of a case: the name without its '[graphs]', graphs from the label
    or from a "graphs" / "spec.graphs" field."""
    name, graphs = split_graphs(lookup(c, *paths, default=""))
    flag = lookup(c, "graphs", "spec.graphs")
    if isinstance(flag, str):
        flag = flag.strip().lower() in ("1", "true", "yes")
    return model_name(name), bool(graphs or flag)


def label(model: str, graphs: bool) -> str:
    return f"{model}[graphs]" if graphs else model


def dtype_name(v) -> str:
    name = str(v or "float32").strip().lower()
    return DTYPE_ALIASES.get(name, name)


def case_config(c: dict) -> dict:
    """{'variant': ..., 'seq_len': ..., 'nc': ...} with only the keys the case states."""
    out = {}
    for key, paths in CONFIG_KEYS:
        v = lookup(c, *paths)
        if v is not None and not isinstance(v, (dict, list)):
            v = str(v).strip().lower()
            out[key] = VARIANT_ALIASES.get(v, v) if key == "variant" else v
    return out


def configs_agree(a: dict, b: dict) -> bool:
    return all(a[k] == b[k] for k in a.keys() & b.keys())


def as_float(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def as_int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def load(path: str) -> dict:
    with open(path) as f:
        return json.load(f)


def cpp_cases(doc: dict):
    """Normalised C++ cases: dicts with model, device, batch, median, ci, noisy, status."""
    schema = str(doc.get("schema", ""))
    if schema and not schema.startswith("accelbench.run/"):
        print(f"warning: C++ file has schema {schema!r}, expected accelbench.run/*",
              file=sys.stderr)
    out = []
    for c in lookup(doc, "cases", "results", default=[]) or []:
        if not isinstance(c, dict):
            continue
        status = str(lookup(c, "status", default="ok")).lower()
        model, graphs = case_model(c, "workload.name", "workload", "model", "name",
                                   "spec.workload", "label")
        out.append({
            "model": model,
            "graphs": graphs,
            "device": device_type(lookup(c, "device", "device.type", default=doc.get("device"))),
            "dtype": dtype_name(lookup(c, "dtype", "spec.dtype")),
            "config": case_config(c),
            "batch": as_int(lookup(c, "batch_size", "batch", "config.batch_size",
                                   "workload_config.batch_size")),
            "median": as_float(lookup(c, "stats.median", "stats.median_s", "median_s",
                                      "median")),
            "ci_low": as_float(lookup(c, "stats.ci_low", "stats.ci_low_s", "ci_low_s")),
            "ci_high": as_float(lookup(c, "stats.ci_high", "stats.ci_high_s", "ci_high_s")),
            "noisy": bool(lookup(c, "noisy", "stats.noisy", default=False)),
            "status": status,
        })
    return out


def py_cases(doc: dict, path: str):
    schema = str(doc.get("schema", ""))
    if schema and not schema.startswith("accelbench.python-reference/"):
        print(f"warning: {path} has schema {schema!r}, expected accelbench.python-reference/*",
              file=sys.stderr)
    top_dev = device_type(lookup(doc, "device", default=""))
    out = []
    for c in lookup(doc, "cases", default=[]) or []:
        if not isinstance(c, dict):
            continue
        model, graphs = case_model(c, "model", "workload")
        out.append({
            "model": model,
            "graphs": graphs,
            "device": device_type(lookup(c, "device", default=top_dev)),
            "dtype": dtype_name(lookup(c, "dtype")),
            "config": case_config(c),
            "batch": as_int(lookup(c, "batch_size", "batch")),
            "median": as_float(lookup(c, "median_s", "stats.median", "median")),
            "ci_low": as_float(lookup(c, "ci_low_s", "stats.ci_low")),
            "ci_high": as_float(lookup(c, "ci_high_s", "stats.ci_high")),
            "noisy": bool(lookup(c, "noisy", default=False)),
            "torch": str(lookup(doc, "torch_version", default="?")),
        })
    for sk in lookup(doc, "skipped", default=[]) or []:
        if isinstance(sk, dict):
            print(f"note: {path}: {sk.get('model', '?')} was skipped there "
                  f"({sk.get('reason', 'no reason given')})", file=sys.stderr)
    return out


def ms(v):
    return "-" if v is None else f"{v * 1e3:.3f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("cpp_json", help="accelbench run --json output")
    p.add_argument("py_json", nargs="+",
                   help="article_models.py / real_cases.py --json output(s)")
    p.add_argument("--include-failed", action="store_true",
                   help="also use C++ cases whose status is not 'ok'")
    a = p.parse_args(argv)

    cpp = cpp_cases(load(a.cpp_json))
    if not a.include_failed:
        skipped = [c for c in cpp if c["status"] != "ok"]
        for c in skipped:
            print(f"note: skipping C++ case {label(c['model'], c['graphs'])}/{c['device']}/"
                  f"b{c['batch']} "
                  f"(status {c['status']})", file=sys.stderr)
        cpp = [c for c in cpp if c["status"] == "ok"]
    py = []
    for path in a.py_json:
        py.extend(py_cases(load(path), path))

    def key(c):
        return (c["model"], c["graphs"], c["device"], c["dtype"], c["batch"])

    py_index = {}
    for i, c in enumerate(py):
        py_index.setdefault(key(c), []).append(i)

    headers = ["model", "device", "dtype", "batch", "C++ ms", "C++ CI ms", "Python ms",
               "Python CI ms", "C++/Python", "note"]
    rows = []
    matched_cpp, matched_py = set(), set()
    for j, c in enumerate(cpp):
        for i in py_index.get(key(c), []):
            q = py[i]
            if not configs_agree(c["config"], q["config"]):
                continue
            matched_cpp.add(j)
            matched_py.add(i)
            ratio = (c["median"] / q["median"]) if c["median"] and q["median"] else None
            notes = []
            if c["noisy"]:
                notes.append("C++ noisy")
            if q["noisy"]:
                notes.append("Python noisy")
            cfg = dict(q["config"], **c["config"])
            if cfg:
                notes.append(" ".join(f"{k}={v}" for k, v in sorted(cfg.items())))
            if ratio is not None:
                notes.append("C++ faster" if ratio < 1 else "Python faster" if ratio > 1 else "")
            rows.append([
                label(c["model"], c["graphs"]), c["device"], c["dtype"], str(c["batch"]),
                ms(c["median"]),
                f"{ms(c['ci_low'])}..{ms(c['ci_high'])}", ms(q["median"]),
                f"{ms(q['ci_low'])}..{ms(q['ci_high'])}",
                "-" if ratio is None else f"{ratio:.3f}",
                ", ".join(n for n in notes if n),
            ])

    def describe(c):
        cfg = "".join(f" {k}={v}" for k, v in sorted(c["config"].items()))
        return (f"model={label(c['model'], c['graphs'])} device={c['device']} "
                f"dtype={c['dtype']} batch={c['batch']}{cfg}")

    unmatched_cpp = sorted({describe(c) for j, c in enumerate(cpp) if j not in matched_cpp})
    unmatched_py = sorted({describe(c) for i, c in enumerate(py) if i not in matched_py})

    if rows:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
        print("  ".join("-" * w for w in widths))
        for r in rows:
            print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
        print("\nratio = C++ median step time / Python median step time (< 1: C++ is faster)")
    else:
        print("no matching cases (match key: model, graphs, device type, dtype, batch size)")
    for k in unmatched_cpp:
        print(f"unmatched C++ case: {k}")
    for k in unmatched_py:
        print(f"unmatched Python case: {k}")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
