"""The round server: one Python process per run that pays the interpreter's start and the imports
(torch, torch.optim's torch._dynamo, the workloads) once, reads the data files once, and then runs
each round the harness asks for in a fresh process of its own (protocol.py says what is said).

Where fork is safe (Linux and the other Unix systems but macOS), a round's process is a fork of the
server taken before any device is initialised or any parallel region entered: the round then
starts at its first line of work with the server's imports and data pages shared (copy on write).
On macOS, where Apple's frameworks are not safe across fork without exec, and where the environment
asks for it (ACCELBENCH_PYTHON_ROUNDS=spawn), each round is a fresh interpreter instead
(`python -m accelbench_worker measure ...`), as every round was before the server existed.

Every process is tied to its parent: the server to the harness, a round to the server (Linux's
PR_SET_PDEATHSIG; elsewhere a thread that watches the parent's id), so that a harness killed with
SIGKILL leaves no Python process behind; the end of stdin ends the server too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
import warnings

from . import protocol
from .errors import BadInput

PR_SET_PDEATHSIG = 1


def tie_to_parent(expected_ppid: int) -> None:
    """This process ends when its parent (expected_ppid) does, at once on Linux."""
    if expected_ppid <= 0:
        return
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != expected_ppid:  # the parent ended before the tie was made
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass

    def watch():
        while os.getppid() == expected_ppid:
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=watch, name="accelbench-parent-watch", daemon=True).start()


def execute(command: str, request: dict, out: str) -> int:
    """One command of a round's process: 0 done (what went wrong while measuring is in the result),
    2 bad input (its line on stderr)."""
    from .round import Round, check
    try:
        if command == "check":
            protocol.write_json(out, {"check": check(request)})
        else:
            protocol.write_json(out, protocol.finite_only(Round(request).run()))
    except BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def rounds_fork() -> bool:
    return sys.platform != "darwin" and os.environ.get("ACCELBENCH_PYTHON_ROUNDS", "fork") != "spawn"


def cuda_available(fork: bool) -> bool:
    """torch.cuda.is_available() without initialising CUDA in this process (a forked probe asks):
    a forked round could not use CUDA after that."""
    import torch
    if not torch.backends.cuda.is_built():
        return False
    if not fork:
        return torch.cuda.is_available()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.write(write_end, b"1" if torch.cuda.is_available() else b"0")
        os._exit(0)
    os.close(write_end)
    answer = os.read(read_end, 1)
    os.close(read_end)
    os.waitpid(pid, 0)
    return answer == b"1"


def start_up() -> dict:
    """The imports a round needs, done once; the hello that reports them."""
    fork = rounds_fork()
    hello = {"event": "hello", "protocol": protocol.PROTOCOL, "python": sys.executable,
             "python_version": "%d.%d.%d" % sys.version_info[:3], "pid": os.getpid(), "fork": fork}
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # a wheel without numpy says so
    try:
        import torch
    except ImportError as e:
        return {**hello, "error": f"{sys.executable} cannot import torch ({e})"}
    import torch._dynamo  # noqa: F401  (what torch.optim's first optimizer imports)
    from . import round  # noqa: F401  (the task, the workloads, the user-model loader)
    mps = getattr(torch.backends, "mps", None)
    return {**hello, "torch": torch.__version__, "cuda": cuda_available(fork),
            "mps": bool(mps and not fork and mps.is_available())}


def preload(request: dict) -> None:
    """The files the round's workload reads, read here once so that every round shares them (no
    torch op: nothing here may start a thread pool before a fork)."""
    from .data import preload as preload_fashion
    from .workloads import WORKLOADS
    inputs = request.get("measure", {}).get("inputs", {})
    workload = WORKLOADS.get(request.get("spec", {}).get("workload", ""))
    if workload is not None and workload.reads_fashion and not inputs.get("py_model"):
        preload_fashion(inputs)


class Server:
    def __init__(self, messages, fork: bool):
        self.messages = messages  # the protocol's stream (the harness's stdout pipe)
        self.fork = fork

    def round_in_fork(self, command: str, request: dict, out: str) -> int:
        server = os.getpid()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(self.messages.fileno())
                devnull = os.open(os.devnull, os.O_RDONLY)
                os.dup2(devnull, 0)
                tie_to_parent(server)
                code = execute(command, request, out)
            except BaseException:  # noqa: BLE001 - a round's crash is its exit status
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        return pid

    def round_in_interpreter(self, command: str, request: dict, out: str):
        env = dict(os.environ, ACCELBENCH_PARENT_PID=str(os.getpid()))
        argv = [sys.executable, "-m", "accelbench_worker", command, "--spec-json", json.dumps(request), "--out", out]
        return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, close_fds=True)

    def run(self, message: dict) -> None:
        command, request, out = message["command"], message.get("request", {}), message["out"]
        if command not in ("measure", "check"):
            raise ValueError(f"unknown command {command!r}")
        if self.fork:
            preload(request)
            pid = self.round_in_fork(command, request, out)
            protocol.send(self.messages, {"event": "started", "pid": pid})
            status = os.waitpid(pid, 0)[1]
            ended = ({"exit_code": os.WEXITSTATUS(status)} if os.WIFEXITED(status)
                     else {"signal": os.WTERMSIG(status)})
        else:
            child = self.round_in_interpreter(command, request, out)
            protocol.send(self.messages, {"event": "started", "pid": child.pid})
            code = child.wait()
            ended = {"exit_code": code} if code >= 0 else {"signal": -code}
        protocol.send(self.messages, {"event": "ended", "pid": pid if self.fork else child.pid, **ended})


def serve() -> int:
    tie_to_parent(int(os.environ.get("ACCELBENCH_PARENT_PID", "0") or 0))
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the run's processes without tracebacks
    # The protocol gets a stream of its own; fd 1 (print() in the user's code, in libraries) goes to stderr.
    messages = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    hello = start_up()
    protocol.send(messages, hello)
    if "error" in hello:
        return 2
    server = Server(messages, hello["fork"])
    for line in sys.stdin:  # ends when the harness closes stdin (or ends)
        if line.strip():
            server.run(json.loads(line))
    return 0
