"""python -m accelbench_worker COMMAND: what the C++ harness starts.

  measure --spec-json REQUEST --out RESULT   one round of a case; its CaseResult JSON to RESULT
  check   --spec-json REQUEST --out RESULT   the case's model built and run forward at batch 2
  version --out RESULT                       this Python's version and its torch's

Bad input (a module that fails to import, a factory that raises, a forward that fails): one
line on stderr, exit status 2, nothing measured. What goes wrong while measuring (out of memory,
an exception, a NaN loss) is in the result, exit status 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import warnings


def write_json(path: str, value) -> None:
    """Atomically: a temporary file beside it, then renamed."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".worker-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(value, f, allow_nan=False)
    os.replace(tmp, path)


def finite_only(value):
    """Non-finite figures (a NaN loss after a diverged step) written as null: JSON has no NaN."""
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return None
    if isinstance(value, dict):
        return {k: finite_only(v) for k, v in value.items() if finite_only(v) is not None}
    if isinstance(value, list):
        return [finite_only(v) for v in value]
    return value


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="accelbench_worker")
    p.add_argument("command", choices=("measure", "check", "version"))
    p.add_argument("--spec-json", default="")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    # A torch wheel without numpy says so on import: nothing the worker uses.
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    try:
        import torch  # noqa: F401
    except ImportError as e:
        print(f"error: {sys.executable} cannot import torch ({e})", file=sys.stderr)
        return 2
    if a.command == "version":
        write_json(a.out, {"python": sys.executable, "python_version": "%d.%d.%d" % sys.version_info[:3],
                           "torch": torch.__version__, "cuda": torch.cuda.is_available()})
        return 0
    from . import worker
    from .worker import BadInput
    try:
        request = json.loads(a.spec_json)
    except ValueError as e:
        print(f"error: --spec-json is not valid JSON ({e})", file=sys.stderr)
        return 2
    try:
        if a.command == "check":
            write_json(a.out, {"check": worker.check(request)})
        else:
            write_json(a.out, finite_only(worker.Round(request).run()))
    except BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
