"""python -m accelbench_worker COMMAND: what the C++ harness starts.

  serve                                      the round server (server.py): the harness's rounds,
                                             each in a fresh process, over the protocol in protocol.py
  measure --spec-json REQUEST --out RESULT   one round of a case in this process; its CaseResult JSON
  check   --spec-json REQUEST --out RESULT   the case's model built and run forward at batch 2

Bad input (a module that fails to import, a factory that raises, a forward that fails): one
line on stderr, exit status 2, nothing measured. What goes wrong while measuring (out of memory,
an exception, a NaN loss) is in the result, exit status 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="accelbench_worker")
    p.add_argument("command", choices=("serve", "measure", "check"))
    p.add_argument("--spec-json", default="")
    p.add_argument("--out", default="")
    a = p.parse_args(argv)
    from . import server
    if a.command == "serve":
        return server.serve()
    server.tie_to_parent(int(os.environ.get("ACCELBENCH_PARENT_PID", "0") or 0))
    if not a.out:
        print("error: --out is needed", file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # a wheel without numpy says so
    try:
        import torch  # noqa: F401
    except ImportError as e:
        print(f"error: {sys.executable} cannot import torch ({e})", file=sys.stderr)
        return 2
    try:
        request = json.loads(a.spec_json)
    except ValueError as e:
        print(f"error: --spec-json is not valid JSON ({e})", file=sys.stderr)
        return 2
    return server.execute(a.command, request, a.out)


if __name__ == "__main__":
    sys.exit(main())
