#!/usr/bin/env python3
"""Compare accelbench (C++/libtorch) step times with the Python eager reference.

Usage:
    python bench/python/compare_cpp_python.py CPP.json PY.json [PY2.json ...]

CPP.json is written by `accelbench run --json` (schema accelbench.run/1); PY.json by
bench/python/article_models.py (schema accelbench.python-reference/1). Cases are matched on
(model, device type, batch size) and the ratio C++ median / Python median of the step time is
printed: < 1 means the C++ tool is faster, > 1 means Python is faster.

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys

_MISSING = object()


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
        out.append({
            "model": str(lookup(c, "workload", "model", "workload.name", "name", default="")),
            "device": device_type(lookup(c, "device", "device.type", default=doc.get("device"))),
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
        out.append({
            "model": str(lookup(c, "model", "workload", default="")),
            "device": device_type(lookup(c, "device", default=top_dev)),
            "batch": as_int(lookup(c, "batch_size", "batch")),
            "median": as_float(lookup(c, "median_s", "stats.median", "median")),
            "ci_low": as_float(lookup(c, "ci_low_s", "stats.ci_low")),
            "ci_high": as_float(lookup(c, "ci_high_s", "stats.ci_high")),
            "noisy": bool(lookup(c, "noisy", default=False)),
            "torch": str(lookup(doc, "torch_version", default="?")),
        })
    return out


def ms(v):
    return "-" if v is None else f"{v * 1e3:.3f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("cpp_json", help="accelbench run --json output")
    p.add_argument("py_json", nargs="+", help="article_models.py --json output(s)")
    p.add_argument("--include-failed", action="store_true",
                   help="also use C++ cases whose status is not 'ok'")
    a = p.parse_args(argv)

    cpp = cpp_cases(load(a.cpp_json))
    if not a.include_failed:
        skipped = [c for c in cpp if c["status"] != "ok"]
        for c in skipped:
            print(f"note: skipping C++ case {c['model']}/{c['device']}/b{c['batch']} "
                  f"(status {c['status']})", file=sys.stderr)
        cpp = [c for c in cpp if c["status"] == "ok"]
    py = []
    for path in a.py_json:
        py.extend(py_cases(load(path), path))

    py_index = {}
    for c in py:
        py_index.setdefault((c["model"], c["device"], c["batch"]), []).append(c)

    headers = ["model", "device", "batch", "C++ ms", "C++ CI ms", "Python ms", "Python CI ms",
               "C++/Python", "note"]
    rows = []
    matched_keys = set()
    for c in cpp:
        key = (c["model"], c["device"], c["batch"])
        for q in py_index.get(key, []):
            matched_keys.add(key)
            ratio = (c["median"] / q["median"]) if c["median"] and q["median"] else None
            notes = []
            if c["noisy"]:
                notes.append("C++ noisy")
            if q["noisy"]:
                notes.append("Python noisy")
            if ratio is not None:
                notes.append("C++ faster" if ratio < 1 else "Python faster" if ratio > 1 else "")
            rows.append([
                c["model"], c["device"], str(c["batch"]), ms(c["median"]),
                f"{ms(c['ci_low'])}..{ms(c['ci_high'])}", ms(q["median"]),
                f"{ms(q['ci_low'])}..{ms(q['ci_high'])}",
                "-" if ratio is None else f"{ratio:.3f}",
                ", ".join(n for n in notes if n),
            ])

    unmatched_cpp = sorted({(c["model"], c["device"], c["batch"]) for c in cpp} - matched_keys,
                           key=str)
    unmatched_py = sorted(set(py_index) - matched_keys, key=str)

    if rows:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
        print("  ".join("-" * w for w in widths))
        for r in rows:
            print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
        print("\nratio = C++ median step time / Python median step time (< 1: C++ is faster)")
    else:
        print("no matching cases (match key: model, device type, batch size)")
    for k in unmatched_cpp:
        print(f"unmatched C++ case: model={k[0]} device={k[1]} batch={k[2]}")
    for k in unmatched_py:
        print(f"unmatched Python case: model={k[0]} device={k[1]} batch={k[2]}")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
