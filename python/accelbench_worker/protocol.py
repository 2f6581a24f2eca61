"""What the harness and the worker say to each other (src/drivers/python_worker.cpp is the other
side). Standard library only.

The harness starts `python -m accelbench_worker serve` with a pipe on stdin and one on stdout, and
speaks in lines of JSON:

  worker -> harness, first:  {"event": "hello", "protocol": PROTOCOL, "python": ..., "python_version":
                              ..., "torch": ..., "cuda": bool, "mps": bool, "fork": bool, "pid": ...}
                              or {"event": "hello", "protocol": PROTOCOL, "error": "one line"}
  harness -> worker:          {"command": "measure" | "check", "request": {...}, "out": PATH}
  worker -> harness:          {"event": "started", "pid": P}, then
                              {"event": "ended", "pid": P, "exit_code": C} or {..., "signal": S}

Each command is one round in a fresh process (server.py), which writes its result JSON to PATH
(atomically) and exits: 0 measured (failures while measuring are in the result), 2 bad input (its
one line on stderr). The harness refuses a worker whose PROTOCOL is not its own. stdin's end (the
harness is gone) ends the worker and its round.
"""

from __future__ import annotations

import json
import os
import tempfile

PROTOCOL = 2  # 1: a fresh interpreter per command, no hello; 2: the round server above


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


def send(stream, message: dict) -> None:
    """One line of JSON, flushed at once."""
    stream.write(json.dumps(message) + "\n")
    stream.flush()
