#!/usr/bin/env python3
"""The bad-input matrix: accelbench run as a careless or unlucky user would run it.

Usage: bad_input_matrix.py BINARY [-j JOBS] [-k SUBSTRING] [-v] [--permission-cases include|exclude|only]

Every option of every command with out-of-range, malformed, empty and huge values; every file
argument as a missing file, a directory, a device, a symlink (dangling, to a directory), unwritable,
truncated and corrupt; SIGINT/SIGTERM at several moments of a short real CPU run; two concurrent
runs on one history database; the hidden commands' JSON requests with each field out of range. Each
case asserts

  - the exit code: 2 for usage errors, non-zero for other failures, never a signal;
  - stderr: the refusal is one line of accelbench's own ("accelbench: ..."), naming the option or
    file at fault; no stack trace, no 'terminate called', no torch internals ('Exception raised
    from', 'frame #');
  - files: the case's folder holds sentinel copies of a results JSON, a history database, data
    files and a text file; after the case every one of them has its content, and no file was added,
    removed or left half-written (a temporary file of an atomic write, say).

Options are read from each command's --help: an option of a numeric type that no table entry
covers still gets the generic malformed and huge values, and the uncovered ones are listed.
Standard library only. Prints `matrix: N cases, P passed, F failed, S skipped`; exits 1 on a
failure, 77 when a case was skipped (as root, the cases that need chmod to deny access), else 0.
"""

import argparse
import concurrent.futures
import gzip
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time

# `run` without --impl measures the C++ loop here, as these checks were written for.
os.environ.setdefault("ACCELBENCH_IMPL", "cpp")

FORBIDDEN = ("terminate called", "Exception raised from", "frame #", "Segmentation fault", "core dumped",
             "Aborted", "what():", "Traceback", "c10::Error", "std::exception", "AddressSanitizer")
CASE_TIMEOUT_S = 30
SKIP_EXIT_CODE = 77


def is_permission_case(case):
    """The cases that need chmod to deny access to a file or folder."""
    return "read-only folder" in case.name or " unreadable" in case.name

# Cheap valid arguments per command: if a bad value were accepted, the command would still end in a
# few seconds (and the case fails on its exit code or on the files it changed).
RUN_BASE = ["--models", "mlp", "--devices", "cpu", "--quick", "--rounds", "1", "--in-process-rounds",
            "--max-time-per-case", "2s", "--budget", "3s", "--no-telemetry", "--parity-steps", "0", "--no-progress",
            "--synthetic"]
SWEEP_TIMING = ["--budget", "2s", "--max-time-per-point", "1s", "--no-telemetry", "--rounds", "1",
                "--in-process-rounds", "--synthetic"]
BASES = {
    "run": ["run"] + RUN_BASE,
    "profile": ["profile", "mlp", "--steps", "1", "--warmup", "1", "--synthetic"],
    "sweep batch": ["sweep", "batch", "--model", "mlp", "--device", "cpu", "--from", "8", "--to", "8", "--no-isolate"]
                   + SWEEP_TIMING,
    "sweep precision": ["sweep", "precision", "--model", "mlp", "--device", "cpu", "--dtypes", "float32",
                        "--parity-steps", "0"] + SWEEP_TIMING,
    "sweep threads": ["sweep", "threads", "--model", "mlp", "--max-threads", "1"] + SWEEP_TIMING,
    "sweep workers": ["sweep", "workers", "--model", "mlp", "--device", "cpu", "--max-workers", "0"] + SWEEP_TIMING,
    # No accelerator here: a crossover on the CPU is refused, so each option must be checked first
    # (the message must name it, not the device).
    "sweep crossover": ["sweep", "crossover", "--model", "mlp", "--device", "cpu", "--from", "8", "--to", "8"]
                       + SWEEP_TIMING,
    "history": ["history"],
    "compare": ["compare", "{run_json}", "{run_json}"],
    "report": ["report", "{run_json}"],
    "advise": ["advise", "{run_json}"],
    "devices": ["devices"],
    # Data-parallel scaling needs GPUs: refused here, so each option must be checked first.
    "scale": ["scale", "--model", "mlp"],
    "doctor": ["doctor"],
    "peak": ["peak", "--device", "cpu", "--quick", "--no-save", "--no-progress"],
}

# Commands this machine cannot run at all (no GPU): a refusal saying so may come before an option's
# own check (exit 2, one line); any other command must name the option at fault.
MACHINE_REFUSALS = {"scale": "CUDA GPUs"}

MALFORMED_INT = ["abc"]
HUGE_INT = ["99999999999999999999"]
BAD_FLOAT = ["abc", "nan", "1e999"]
BAD_DURATION = ["abc", "-1s", "1e999s", "1s\n2s"]
BAD_FRACTION = ["abc", "-5%", "nan", "1e999", "%", "\n"]
LONG = "x" * 100000

# Per command and option: the values that must be refused (exit 2), beyond the generic ones for its
# type. Each value's message must name the option (its words, without dashes).
RANGES = {
    "--batch-size": ["0", "-1", "16777217", "-99999999999999999999", "1.5", "", " ", "--"],
    "--threads": ["-1", "100000", "2147483648"],
    "--ci-target": ["0", "1", "2", "", "inf", "-inf"],
    "--min-samples": ["-1", "0", "-0", "99999999999999999999999"],
    "--rounds": ["0", "-1", "101", "-2"],
    "--telemetry-hz": ["0", "0.1", "100000"],
    "--epochs": ["0", "-1"],
    "--workers": ["-2", "100000"],
    "--seq-len": ["0", "1", "-1", "513", "100000"],
    "--seed": ["-1"],
    "--repeats": ["0", "-1", "100000"],
    "--width": ["0", "-1", "100000000000"],
    "--parity-steps": ["-1", "100000000"],
    "--steps": ["0", "-1", "100000000"],
    "--warmup": ["-1", "100000000"],
    "--top": ["0", "-1"],
    "--from": ["0", "-1", "16777217"],
    "--to": ["0", "-1", "16777217"],
    "--max-threads": ["0", "-1", "100000"],
    "--max-workers": ["-1", "257", "100000"],
    "--gpus": ["0", "-1", "1025", "1,,2"],
    "--threshold": ["0", "-1", "nan"],
    "--limit": ["-1", "abc", "", "1e3", "99999999999999999999", "1.5", "\n"],
    "--memory-limit": ["", "0", "-1", "abc", "1e30", "16GiB\njunk", "16 parsecs", "0.1"],
    "--models": ["", ",", "nope", "mlp\nrm -rf", LONG],
    "--model": ["", "nope", "\n", LONG],
    "--devices": ["", ",", "tpu", "cuda:99", "cpu,,cpu", LONG],
    "--device": ["", "tpu", "cuda:99", "cpu:0:1", "\n", LONG],
    "--dtype": ["", "float64", "\n"],
    "--dtypes": ["", "float64", ",", "\n", LONG],
    "--variant": ["nope", "\n", LONG],
    "--axis": ["", "depth", "\n"],
    "--widths": ["", "0", "-1", "abc", "64,,128", "99999999999999999999", "\n"],
    "--format": ["", "pdf", "\n"],
    "--alpha": BAD_FRACTION + ["0", "0.5", "1"],
    "--min-effect": BAD_FRACTION,
    "--equivalence": BAD_FRACTION,
    "--fail-above": BAD_FRACTION,
    # history's filters name any workload or device that was ever stored (a model file's name too):
    # only an empty value is wrong.
    ("history", "--model"): [""],
    ("history", "--device"): [""],
}
DURATION_OPTIONS = {"--min-time", "--max-time-per-case", "--max-time-per-point", "--budget", "--min-sample-time",
                    "--cooldown"}
# Options where the generic value is legitimately accepted (an empty text meaning "default", say).
ACCEPTED = {("--threshold", "1e999"), ("--threshold", "inf")}
# The words by which a message names an option (default: the option without its dashes).
OPTION_WORDS = {"--models": ["workload", "model"], "--model": ["workload", "model"], "--devices": ["device"],
                "--device": ["device"], "--dtype": ["precision", "dtype"], "--dtypes": ["precision", "dtype"],
                "--variant": ["variant"], "--format": ["format"]}


class Case:
    def __init__(self, name, args, expect="usage", words=None, setup=None, check=None, env=None, stdin=None,
                 skip=None, timeout=CASE_TIMEOUT_S, changes=()):
        self.name, self.args, self.expect, self.words = name, args, expect, words or []
        self.setup, self.check, self.env, self.stdin, self.skip = setup, check, env, stdin, skip
        self.timeout, self.changes = timeout, set(changes)


# ---- fixtures -------------------------------------------------------------------------------------

def idx_bytes(dims, dtype=0x08, data=None, magic_zero=0):
    header = struct.pack(">HBB", magic_zero, dtype, len(dims)) + b"".join(struct.pack(">I", d) for d in dims)
    n = 1
    for d in dims:
        n *= d
    return header + (data if data is not None else bytes(i % 10 for i in range(n)))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def make_fixtures(root, binary):
    """A real results JSON and history database (one tiny CPU run), data folders, a text file."""
    fx = os.path.join(root, "fixtures")
    os.makedirs(fx)
    run = subprocess.run([binary] + BASES["run"] + ["--json", os.path.join(fx, "run.json"),
                                                   "--db", os.path.join(fx, "history.db")],
                         capture_output=True, text=True, timeout=120)
    if run.returncode != 0 or not os.path.exists(os.path.join(fx, "run.json")):
        sys.exit(f"matrix: the fixture run failed ({run.returncode}): {run.stderr[-2000:]}")
    # Fashion-MNIST-shaped IDX files: 20 images of 28x28 and their labels, plain and gzip.
    n = 20
    images, labels = idx_bytes([n, 28, 28]), idx_bytes([n])
    write(os.path.join(fx, "idx", "train-images-idx3-ubyte"), images)
    write(os.path.join(fx, "idx", "train-labels-idx1-ubyte"), labels)
    write(os.path.join(fx, "idxgz", "train-images-idx3-ubyte.gz"), gzip.compress(images))
    write(os.path.join(fx, "idxgz", "train-labels-idx1-ubyte.gz"), gzip.compress(labels))
    write(os.path.join(fx, "cifar", "data_batch_1.bin"), b"".join(bytes([i % 10]) + bytes(3072) for i in range(20)))
    write(os.path.join(fx, "text.tsv"), "".join(f"{i % 2}\tsome words number {i}\n" for i in range(50)))
    write(os.path.join(fx, "notes.txt"), "a file of the user's that nothing may touch\n")
    return fx


def snapshot(folder):
    """path -> sha256 of every file (symlinks by their target), recursively."""
    out = {}
    for base, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(base, name)
            rel = os.path.relpath(p, folder)
            if os.path.islink(p):
                out[rel] = "link:" + os.readlink(p)
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
            elif os.path.isdir(p):
                out[rel] = "dir"
            else:
                out[rel] = "special"
    return out


# ---- running a case -------------------------------------------------------------------------------

class Runner:
    def __init__(self, binary, fixtures, root):
        self.binary, self.fixtures, self.root = binary, fixtures, root
        self.counter = 0
        self.lock = threading.Lock()

    def case_dir(self):
        with self.lock:
            self.counter += 1
            d = os.path.join(self.root, f"case{self.counter:04d}")
        shutil.copytree(self.fixtures, d, symlinks=True)
        return d

    def env_for(self, d, extra=None):
        env = dict(os.environ)
        env.update({"ACCELBENCH_DB": os.path.join(d, "history.db"), "XDG_DATA_HOME": os.path.join(d, "xdg"),
                    "OMP_WAIT_POLICY": "PASSIVE"})
        env.pop("OMP_NUM_THREADS", None)
        env.pop("ACCELBENCH_FASHION_MNIST", None)
        env.update(extra or {})
        return env

    def run_case(self, case):
        if case.skip:
            return "skip", case.skip
        d = self.case_dir()
        try:
            if case.setup:
                case.setup(d)
            before = snapshot(d)
            args = [a.replace("{d}", d).replace("{run_json}", os.path.join(d, "run.json")) for a in case.args]
            t0 = time.monotonic()
            try:
                p = subprocess.run([self.binary] + args, capture_output=True, timeout=case.timeout, cwd=d,
                                   env=self.env_for(d, case.env), stdin=subprocess.DEVNULL if case.stdin is None else None,
                                   input=case.stdin)
            except subprocess.TimeoutExpired:
                return "fail", f"still running after {case.timeout} s (bad input must be refused before measuring)"
            wall = time.monotonic() - t0
            err = p.stderr.decode("utf-8", "replace")
            problems = check_outcome(case, p.returncode, err)
            after = snapshot(d)
            problems += check_files(before, after, case.changes)
            if case.check and not problems:
                problems += case.check(d, p, err)
            if problems:
                return "fail", "; ".join(problems) + f" | rc={p.returncode} stderr={err.strip()[:400]!r}"
            return "pass", f"{wall:.2f} s"
        finally:
            shutil.rmtree(d, ignore_errors=True)


def message_lines(err):
    return [line for line in err.replace("\r", "\n").split("\n") if line.strip()]


def check_outcome(case, rc, err):
    problems = []
    if rc < 0:
        problems.append(f"killed by signal {-rc}")
    elif case.expect == "usage" and rc != 2:
        problems.append(f"exit {rc}, expected 2 (usage)")
    elif case.expect == "error" and rc == 0:
        problems.append("exit 0, expected a failure")
    elif case.expect == "any" and rc not in (0, 1, 2):
        problems.append(f"exit {rc}")
    elif case.expect == "ok" and rc != 0:
        problems.append(f"exit {rc}, expected 0")
    for bad in FORBIDDEN:
        if bad in err:
            problems.append(f"stderr holds {bad!r}")
    lines = message_lines(err)
    if case.expect == "usage":
        if len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr, expected one")
    # Every line is accelbench's own; a note or warning may go on over indented lines (wrapped to the
    # output width), an error may not.
    foreign, previous = [], ""
    for line in lines:
        if line.startswith("accelbench"):
            previous = line
        elif not (line.startswith("  ") and previous and not previous.startswith("accelbench: error")):
            foreign.append(line)
    if foreign:
        problems.append(f"a line that is not accelbench's own: {foreign[0][:120]!r}")
    if case.expect not in ("ok", "any") and case.words:
        low = err.lower()
        refused_here = case.args and case.args[0] in MACHINE_REFUSALS and MACHINE_REFUSALS[case.args[0]] in err
        if not any(w.lower() in low for w in case.words) and not refused_here:
            problems.append(f"the message names none of {case.words}")
    return problems


def check_files(before, after, allowed):
    problems = []
    for path, digest in before.items():
        if path in allowed:
            continue
        if path not in after:
            problems.append(f"{path} was removed")
        elif after[path] != digest:
            problems.append(f"{path} was changed")
    for path in after:
        if path not in before and path not in allowed and not path.startswith("xdg"):
            problems.append(f"{path} was left behind")
    return problems


# ---- the cases -----------------------------------------------------------------------------------

def help_options(binary, command):
    """(option, type) for every option in `accelbench COMMAND --help`."""
    out = subprocess.run([binary] + command.split() + ["--help"], capture_output=True, text=True).stdout
    opts = []
    # Every options block: "Options:" (--help) and the purpose headings after it ("What to measure:",
    # "Telemetry:", ...), up to the subcommands' list.
    options = out.split("Options:", 1)[-1].split("Subcommands:", 1)[0]
    for m in re.finditer(r"^  (?:-\w,)?(--[\w-]+)(?:,-{1,2}[\w-]+)*(?:\s+(TEXT|INT|UINT|FLOAT|\[\w+\]))?", options, re.M):
        if m.group(1) != "--help":
            opts.append((m.group(1), m.group(2) or "FLAG"))
    return opts


def help_subcommands(binary, command=""):
    out = subprocess.run([binary] + command.split() + ["--help"], capture_output=True, text=True).stdout
    part = out.split("Subcommands:", 1)
    if len(part) < 2:
        return []
    return [m.group(1) for m in re.finditer(r"^  (\w[\w-]*)\s", part[1].split("\n\n", 1)[0], re.M)]


def without(base, option):
    """The base arguments without `option` and its value."""
    out, skip = [], False
    for i, a in enumerate(base):
        if skip:
            skip = False
            continue
        if a == option:
            skip = i + 1 < len(base) and not base[i + 1].startswith("--")
            continue
        out.append(a)
    return out


def words_for(option):
    return OPTION_WORDS.get(option, [option.lstrip("-"), option.lstrip("-").replace("-", " ")])


def option_cases(binary):
    cases, uncovered, seen_options = [], [], set()
    commands = [c for c in help_subcommands(binary) if c != "sweep"]
    commands += ["sweep " + c for c in help_subcommands(binary, "sweep")]
    for command in commands:
        base = BASES.get(command)
        opts = help_options(binary, command)
        shared_tried = False
        if base is None:
            base = command.split()
            uncovered.append(f"{command} (no base arguments: generic values only)")
        for option, kind in opts:
            values = list(RANGES.get((command, option), RANGES.get(option, [])))
            if option in DURATION_OPTIONS:
                values += BAD_DURATION
            if kind in ("INT", "UINT"):
                values += MALFORMED_INT + HUGE_INT
            elif kind == "FLOAT":
                values += BAD_FLOAT
            elif kind == "FLAG":
                values = None
            elif kind.startswith("["):
                uncovered.append(f"{command} {option} (a value that may be left out: covered by the file cases)")
                continue
            if kind == "TEXT" and option not in RANGES and option not in DURATION_OPTIONS:
                uncovered.append(f"{command} {option} (TEXT: covered by the file cases or not at all)")
                continue
            if values is None:
                # A flag given a value is refused by the parser.
                if option not in seen_options:
                    seen_options.add(option)
                    cases.append(Case(f"{command} {option}=maybe", without(base, option) + [f"{option}=maybe"],
                                      words=words_for(option)))
                continue
            values = [v for i, v in enumerate(values) if v not in values[:i] and (option, v) not in ACCEPTED]
            if option in seen_options:
                # An option shared with an earlier command (declared once, cli/common_options): its
                # whole list there; here only the first shared option's first value, to show the
                # checks are wired into this command too.
                if shared_tried:
                    continue
                shared_tried = True
                values = values[:1]
            else:
                seen_options.add(option)
                if option != "--batch-size":  # the one option tried with every malformed kind
                    values = values[:6]
            for v in values:
                shown = v if len(v) < 30 else v[:10] + f"...({len(v)} chars)"
                cases.append(Case(f"{command} {option} {shown!r}", without(base, option) + [option, v],
                                  words=words_for(option)))
            # The option with no value at all.
            if len(values) > 2:
                cases.append(Case(f"{command} {option} (no value)", without(base, option) + [option],
                                  words=[option.lstrip("-")]))
        cases.append(Case(f"{command} --no-such-option", base + ["--no-such-option"], words=["no-such-option"]))
        cases.append(Case(f"{command} stray positional", base + ["stray", "extra", "more"],
                          words=["stray", "extra", "more", "argument"]))
    cases.append(Case("no command", [], words=["subcommand", "command"]))
    cases.append(Case("unknown command", ["nosuchcommand"], words=["nosuchcommand"]))
    cases.append(Case("unknown sweep kind", ["sweep", "depth"], words=["depth", "subcommand"]))
    return cases, uncovered


def file_cases(is_root):
    """Every file argument as missing, a directory, a device, a symlink, unwritable, truncated, corrupt."""
    cases = []
    run, prof = BASES["run"], BASES["profile"]

    def link(target, name):
        return lambda d: os.symlink(target.replace("{d}", d), os.path.join(d, name))

    def put(name, data):
        return lambda d: write(os.path.join(d, name), data)

    def truncate(src, dst, keep):
        def f(d):
            with open(os.path.join(d, src), "rb") as i:
                data = i.read()
            write(os.path.join(d, dst), data[:keep(len(data))])
        return f

    def mkdir(name):
        return lambda d: os.makedirs(os.path.join(d, name))

    def readonly_dir(d):
        os.makedirs(os.path.join(d, "ro"))
        os.chmod(os.path.join(d, "ro"), 0o555)

    root_skip = "as root, chmod cannot make a file unreadable or a folder unwritable" if is_root else None

    # Output files: --json of run and the sweeps and profile, --trace, report -o.
    outputs = [("run --json", run, "--json"), ("sweep batch --json", BASES["sweep batch"], "--json"),
               ("profile --trace", prof, "--trace"),
               ("report -o", ["report", "{run_json}"], "-o")]
    for label, base, opt in outputs:
        b = without(base, opt)
        words = [opt.lstrip("-"), "{d}", "output", "write"]
        cases += [
            Case(f"{label} a directory", b + [opt, "{d}/idx"], words=words),
            Case(f"{label} in a missing folder", b + [opt, "{d}/no/such/folder/out.json"], words=words),
            Case(f"{label} under /proc (unwritable, even for root)", b + [opt, "/proc/accelbench-matrix.json"],
                 words=words),
            Case(f"{label} under /sys (unwritable, even for root)", b + [opt, "/sys/accelbench-matrix.json"],
                 words=words),
            Case(f"{label} a symlink to a directory", b + [opt, "{d}/dirlink"], setup=link("{d}/idx", "dirlink"),
                 words=words),
            Case(f"{label} empty", b + [opt, ""], words=words + ["empty"]),
            Case(f"{label} in a read-only folder", b + [opt, "{d}/ro/out.json"], setup=readonly_dir, words=words,
                 skip=root_skip),
        ]
    # --json and the history database naming the same file (the history must not become a JSON file).
    for label, base in [("run", run), ("sweep batch", BASES["sweep batch"])]:
        cases.append(Case(f"{label} --json names --db", base + ["--json", "{d}/history.db", "--db", "{d}/history.db"],
                          words=["same file"]))
        cases.append(Case(f"{label} --json names --db through a symlink",
                          base + ["--json", "{d}/dblink", "--db", "{d}/history.db"],
                          setup=link("{d}/history.db", "dblink"), words=["same file"]))
    cases.append(Case("run --json names ACCELBENCH_DB", run + ["--json", "{d}/history.db"], words=["same file"]))
    cases.append(Case("profile --json names --trace", prof + ["--json", "{d}/p.json", "--trace", "{d}/p.json"],
                      words=["same file"]))
    cases.append(Case("report -o names its own input", ["report", "{d}/run.json", "-o", "{d}/run.json"],
                      words=["same file", "input"]))

    # The history database (run stores into it; history, compare, report and advise read it).
    db_faults = [
        ("a directory", None, "{d}/idx"),
        ("corrupt (text)", put("bad.db", "this is not a database\n" * 100), "{d}/bad.db"),
        ("corrupt (a JSON file)", None, "{d}/run.json"),
        ("truncated", truncate("history.db", "cut.db", lambda n: n // 2), "{d}/cut.db"),
        ("truncated to 100 bytes", truncate("history.db", "tiny.db", lambda n: 100), "{d}/tiny.db"),
        ("zeroed header", lambda d: write(os.path.join(d, "zero.db"), bytes(8192)), "{d}/zero.db"),
        ("/dev/null", None, "/dev/null"),
        ("/dev/zero", None, "/dev/zero"),
        ("a dangling symlink", link("{d}/nowhere/h.db", "dangling.db"), "{d}/dangling.db"),
        ("a symlink to a directory", link("{d}/idx", "dirlink.db"), "{d}/dirlink.db"),
        ("under /proc (unwritable)", None, "/proc/accelbench-matrix.db"),
        ("in a missing folder", None, "{d}/no/such/folder/h.db"),
    ]
    db_readers = [["history"], ["compare", "1", "2"], ["report"], ["advise"]]
    for k, (label, setup, path) in enumerate(db_faults):
        words = ["db", "database", "history", path.replace("{d}/", "")]
        cases.append(Case(f"run --db {label}", run + ["--db", path], setup=setup, words=words))
        if label not in ("in a missing folder", "under /proc (unwritable)", "a dangling symlink"):
            reader = db_readers[k % len(db_readers)]
            cases.append(Case(f"{reader[0]} --db {label}", reader + ["--db", path], setup=setup, words=words))
    cases.append(Case("run --db in a read-only folder", run + ["--db", "{d}/ro/h.db"], setup=readonly_dir,
                      words=["db", "history"], skip=root_skip))
    # A database damaged inside: a row whose JSON is not a run.
    def damaged_rows(d):
        con = sqlite3.connect(os.path.join(d, "history.db"))
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        if "runs" in tables:
            cols = [r[1] for r in con.execute("PRAGMA table_info(runs)")]
            if "context_json" in cols:
                con.execute("UPDATE runs SET context_json = '{\"not\": [1, 2'")
        con.commit()
        con.close()
    for cmd in (["history"], ["report", "1"], ["advise", "1"], ["compare", "1", "1"]):
        # A damaged column is read as empty (the measurements stay readable): no crash is all that is asked.
        cases.append(Case(f"{cmd[0]} on a history with a damaged row", cmd, setup=damaged_rows, expect="any",
                          changes={"history.db"}))

    # Results JSON given to compare, report, advise.
    json_faults = [
        ("missing", None, "{d}/missing.json", ["missing.json", "cannot read", "no such"]),
        ("a directory", None, "{d}/idx", ["idx", "directory"]),
        ("/dev/null", None, "/dev/null", ["/dev/null"]),
        ("/dev/zero", None, "/dev/zero", ["/dev/zero"]),
        ("empty", put("empty.json", ""), "{d}/empty.json", ["empty.json"]),
        ("truncated", truncate("run.json", "cut.json", lambda n: n // 2), "{d}/cut.json", ["cut.json"]),
        ("truncated to one byte", truncate("run.json", "one.json", lambda n: 1), "{d}/one.json", ["one.json"]),
        ("corrupt bytes", put("bin.json", bytes(range(256)) * 8), "{d}/bin.json", ["bin.json"]),
        ("not JSON", put("text.json", "hello\n"), "{d}/text.json", ["text.json"]),
        ("another schema", put("other.json", '{"schema": "someone.else/1", "cases": []}'), "{d}/other.json",
         ["other.json", "schema"]),
        ("a JSON array", put("arr.json", "[1, 2, 3]"), "{d}/arr.json", ["arr.json"]),
        ("a history database", None, "{d}/history.db", ["history.db"]),
        ("a dangling symlink", link("{d}/nowhere.json", "dangling.json"), "{d}/dangling.json", ["dangling.json"]),
        ("a symlink to a directory", link("{d}/idx", "dirlink.json"), "{d}/dirlink.json", ["dirlink.json"]),
        ("unreadable", lambda d: os.chmod(os.path.join(d, "run.json"), 0), "{d}/run.json", ["run.json"]),
    ]

    def mutate_json(fn):
        def f(d):
            with open(os.path.join(d, "run.json")) as i:
                doc = json.load(i)
            fn(doc)
            write(os.path.join(d, "mut.json"), json.dumps(doc))
        return f

    def set_case_field(field, value):
        def f(doc):
            doc["cases"][0][field] = value
        return f

    for field, value in [("batch_size", 1e300), ("batch_size", -1), ("batch_size", "64"), ("samples", "fast"),
                         ("samples", [1, "x"]), ("status", 7), ("workload", None)]:
        json_faults.append((f"a case's {field} = {str(value)[:20]}", mutate_json(set_case_field(field, value)),
                            "{d}/mut.json", ["mut.json", field, "case"]))
    json_faults.append(("no cases", mutate_json(lambda doc: doc.pop("cases")), "{d}/mut.json", ["cases"]))
    json_faults.append(("cases not a list", mutate_json(lambda doc: doc.update(cases={"a": 1})), "{d}/mut.json",
                        ["cases"]))
    json_faults.append(("nested 100000 deep", put("deep.json", "[" * 100000 + "]" * 100000), "{d}/deep.json",
                        ["deep.json"]))
    readers = [["advise", "{p}"], ["compare", "{p}", "{run_json}"], ["compare", "{run_json}", "{p}"]]
    for k, (label, setup, path, words) in enumerate(json_faults):
        skip = root_skip if label == "unreadable" else None
        # Every fault given to report, and to one of the other readers in turn.
        for cmd in (["report", "{p}"], readers[k % len(readers)]):
            args = [path if a == "{p}" else a for a in cmd]
            where = " (as B)" if cmd[-1] == "{p}" and len(cmd) == 3 else ""
            cases.append(Case(f"{cmd[0]} {label}{where}", args, setup=setup, words=words, skip=skip))
    # A run id that does not exist, or is not an id.
    for k, spec in enumerate(["999", "-1", "0", "abc", "", "99999999999999999999", "\n"]):
        cmd = [["report", spec], ["advise", spec], ["compare", "1", spec]][k % 3]
        cases.append(Case(f"{cmd[0]} run {spec!r}", cmd, words=["run", "no run", "history"]))
    cases.append(Case("compare article-m2 (published figures)", ["compare", "article-m2", "{run_json}"],
                      words=["published"]))

    # Data folders: --data-dir of run (mlp: Fashion-MNIST IDX; resnet18: CIFAR-10) and profile.
    def idx_fault(name, images=None, labels=None, gz=False):
        def f(d):
            base = os.path.join(d, name)
            os.makedirs(base)
            img = images if images is not None else idx_bytes([20, 28, 28])
            lab = labels if labels is not None else idx_bytes([20])
            suffix = ".gz" if gz else ""
            write(os.path.join(base, "train-images-idx3-ubyte" + suffix), img)
            write(os.path.join(base, "train-labels-idx1-ubyte" + suffix), lab)
        return f

    good_img = idx_bytes([20, 28, 28])
    idx_faults = [
        ("missing", None, "{d}/missing-dir"),
        ("a regular file", None, "{d}/notes.txt"),
        ("/dev/null", None, "/dev/null"),
        ("an empty folder", mkdir("emptydir"), "{d}/emptydir"),
        ("a dangling symlink", link("{d}/nowhere", "dangling-dir"), "{d}/dangling-dir"),
        ("a symlink to a file", link("{d}/notes.txt", "filelink"), "{d}/filelink"),
        ("images truncated", idx_fault("t1", images=good_img[:len(good_img) // 2]), "{d}/t1"),
        ("header truncated", idx_fault("t2", images=good_img[:6]), "{d}/t2"),
        ("empty files", idx_fault("t3", images=b"", labels=b""), "{d}/t3"),
        ("bad magic", idx_fault("t4", images=b"\xff\xff" + good_img[2:]), "{d}/t4"),
        ("bad type code", idx_fault("t5", images=idx_bytes([20, 28, 28], dtype=0x42)), "{d}/t5"),
        ("dimensions that lie (huge)", idx_fault("t6", images=idx_bytes([0xFFFFFFFF, 0xFFFFFFFF, 0xFFFF], data=b"x" * 100)),
         "{d}/t6"),
        ("dimensions other than 28x28", idx_fault("t7", images=idx_bytes([20, 10, 10])), "{d}/t7"),
        ("rows x cols overflow", idx_fault("t8", images=idx_bytes([1, 0x10000, 0x10000], data=b"x" * 64)), "{d}/t8"),
        ("zero images", idx_fault("t9", images=idx_bytes([0, 28, 28]), labels=idx_bytes([0])), "{d}/t9"),
        ("count mismatch", idx_fault("t10", labels=idx_bytes([19])), "{d}/t10"),
        ("label out of range", idx_fault("t11", labels=idx_bytes([20], data=bytes([200] * 20))), "{d}/t11"),
        ("extra bytes", idx_fault("t12", images=good_img + b"junk"), "{d}/t12"),
        ("255 dimensions", idx_fault("t13", images=struct.pack(">HBB", 0, 8, 255) + b"\x00\x00\x00\x01" * 255), "{d}/t13"),
        ("gzip corrupt", idx_fault("g1", images=b"\x1f\x8b\x08\x00" + b"garbage" * 50, gz=True), "{d}/g1"),
        ("gzip truncated", idx_fault("g2", images=gzip.compress(good_img)[:len(gzip.compress(good_img)) // 2], gz=True,
                                     labels=gzip.compress(idx_bytes([20]))), "{d}/g2"),
        ("gzip of a lying header", idx_fault("g3", images=gzip.compress(idx_bytes([0x7FFFFFFF, 28, 28], data=b"x" * 10)),
                                             labels=gzip.compress(idx_bytes([20])), gz=True), "{d}/g3"),
    ]
    for k, (label, setup, path) in enumerate(idx_faults):
        words = ["data", path.replace("{d}/", ""), "idx", "dir"]
        if k % 2 == 0:
            cases.append(Case(f"run mlp --data-dir {label}", without(run, "--synthetic") + ["--data-dir", path],
                              setup=setup, expect="error", words=words, timeout=60))
        else:
            cases.append(Case(f"profile mlp --data-dir {label}", without(prof, "--synthetic") + ["--data-dir", path],
                              setup=setup, expect="error", words=words, timeout=60))

    def cifar_fault(name, data, extra=None):
        def f(d):
            write(os.path.join(d, name, "data_batch_1.bin"), data)
            for k, v in (extra or {}).items():
                write(os.path.join(d, name, k), v)
        return f
    rec = bytes([3]) + bytes(3072)
    cifar_faults = [
        ("empty folder", mkdir("c0"), "{d}/c0"),
        ("truncated record", cifar_fault("c1", rec * 3 + rec[:100]), "{d}/c1"),
        ("empty file", cifar_fault("c2", b""), "{d}/c2"),
        ("label out of range", cifar_fault("c3", rec * 2 + bytes([77]) + bytes(3072)), "{d}/c3"),
        ("batch file is a folder", lambda d: os.makedirs(os.path.join(d, "c4", "data_batch_1.bin")), "{d}/c4"),
        ("batch file is a dangling symlink",
         lambda d: (os.makedirs(os.path.join(d, "c5")), os.symlink("/nowhere", os.path.join(d, "c5", "data_batch_1.bin"))),
         "{d}/c5"),
        ("IDX files instead", None, "{d}/idx"),
    ]
    resnet = without(run, "--models") + ["--models", "resnet18", "--variant", "cifar", "--batch-size", "2"]
    for label, setup, path in cifar_faults:
        cases.append(Case(f"run resnet18 --data-dir CIFAR {label}", without(resnet, "--synthetic") + ["--data-dir", path],
                          setup=setup, expect="error", words=["data", "cifar", path.replace("{d}/", "")], timeout=60))

    # --text (bert-base): labelled text, one 'LABEL<TAB>text' a line.
    bert = without(run, "--models") + ["--models", "bert-base", "--batch-size", "2", "--seq-len", "8"]
    text_faults = [
        ("missing", None, "{d}/missing.tsv"),
        ("a directory", None, "{d}/idx"),
        ("/dev/null", None, "/dev/null"),
        ("/dev/zero", None, "/dev/zero"),
        ("empty", put("e.tsv", ""), "{d}/e.tsv"),
        ("NUL bytes", put("nul.tsv", b"0\tab\x00cd\n" * 10), "{d}/nul.tsv"),
        ("no tab", put("notab.tsv", "0 words without a tab\n" * 10), "{d}/notab.tsv"),
        ("a label that is not a number", put("lab.tsv", "x\twords\n" * 10), "{d}/lab.tsv"),
        ("a huge label", put("big.tsv", "99999999999999999999999\twords\n" * 10), "{d}/big.tsv"),
        ("a 2 MiB line", put("long.tsv", "0\t" + "w " * (1 << 20) + "\n"), "{d}/long.tsv"),
        ("binary", put("bin.tsv", bytes(range(1, 256)) * 40), "{d}/bin.tsv"),
        ("a dangling symlink", link("{d}/nowhere.tsv", "dangling.tsv"), "{d}/dangling.tsv"),
    ]
    for label, setup, path in text_faults:
        cases.append(Case(f"run bert-base --text {label}", bert + ["--text", path], setup=setup, expect="error",
                          words=["text", path.replace("{d}/", "")], timeout=60))
    return cases


# ---- the hidden commands ---------------------------------------------------------------------------

# A valid `_measure-case` request: mlp on the CPU at batch 8, synthetic data, a short stopping rule.
MEASURE_REQUEST = {"spec": {"workload": "mlp", "device": "cpu", "dtype": "float32", "batch_size": 8, "threads": 0},
                   "measure": {"inputs": {"synthetic_forced": True},
                               "settings": {"ci_target": 0.5, "min_samples": 3, "min_time_s": 0.05, "max_time_s": 2,
                                            "telemetry": False}}}
SCALE_REQUEST = {"workload": "mlp", "dtype": "float32", "batch_size": 8, "bucket_mb": 25, "collective_timeout_s": 10,
                 "options": {"inputs": {"synthetic_forced": True}, "settings": {"max_time_s": 2, "telemetry": False}}}
# (where in the request, key, bad value, the words the message must hold)
MEASURE_FAULTS = [
    ("spec", "batch_size", 0, ["batch"]), ("spec", "batch_size", -1, ["batch"]), ("spec", "batch_size", 16777217, ["batch"]),
    ("spec", "batch_size", "8", ["request"]), ("spec", "threads", -1, ["threads"]), ("spec", "threads", 100000, ["threads"]),
    ("spec", "workload", "nope", ["model"]), ("spec", "workload", "", ["model"]), ("spec", "device", "tpu", ["device"]),
    ("spec", "device", "cpu,cpu", ["device"]), ("spec", "device", "", ["device"]), ("spec", "dtype", "float64", ["precision"]),
    ("spec", "width", -1, ["width"]), ("settings", "max_time_s", -1, ["max_time_s"]),
    ("settings", "min_time_s", -1, ["min_time_s"]), ("settings", "min_sample_time_s", -0.5, ["min_sample_time_s"]),
    ("settings", "ci_target", 0, ["ci-target"]), ("settings", "min_samples", 0, ["min-samples"]),
    ("settings", "confidence", 2, ["confidence"]), ("settings", "telemetry_hz", 0, ["telemetry_hz"]),
    ("settings", "epochs", 0, ["epochs"]), ("settings", "epoch_repeats", -1, ["epoch_repeats"]),
    ("settings", "max_warmup_fraction", 1.5, ["max_warmup_fraction"]), ("inputs", "seq_len", 0, ["seq-len"]),
    ("inputs", "workers", -5, ["workers"]), ("inputs", "variant", "nope", ["variant"]),
]
SCALE_FAULTS = [
    (None, "batch_size", 0, ["batch"]), (None, "workload", "nope", ["model"]), (None, "dtype", "float64", ["precision"]),
    (None, "bucket_mb", 0, ["bucket_mb"]), (None, "bucket_mb", -1, ["bucket_mb"]),
    (None, "collective_timeout_s", -1, ["collective_timeout_s"]), ("settings", "max_time_s", -1, ["max_time_s"]),
    ("settings", "min_samples", 0, ["min-samples"]), ("inputs", "seq_len", 0, ["seq-len"]),
]


def with_fault(request, where, key, value):
    r = json.loads(json.dumps(request))
    target = r if where is None else r["spec"] if where == "spec" else None
    if target is None:
        options = r["measure"] if "measure" in r else r["options"]
        target = options.setdefault(where, {})
    target[key] = value
    return json.dumps(r)


def hidden_cases():
    """The hidden commands (`_measure-case`, `_scale-rank`, `_docs`) refuse bad requests as the public ones do."""
    mc = lambda spec, out="{d}/mc.json": ["_measure-case", "--spec-json", spec, "--out", out]
    # A rank's environment: were a bad request measured, it would wait for no peer, not fail at once.
    rank_env = {"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29533"}
    sr = lambda req: ["_scale-rank", "--request-json", req, "--out", "{d}/rank.json"]
    cases = [Case("_measure-case: a valid request measures", mc(json.dumps(MEASURE_REQUEST)), expect="ok",
                  changes={"mc.json"}, timeout=120),
             # A sweep's last point may have no time left: max_time_s 0 takes the floor samples only.
             Case("_measure-case: max_time_s 0 measures the floor samples",
                  mc(with_fault(MEASURE_REQUEST, "settings", "max_time_s", 0)), expect="ok", changes={"mc.json"},
                  timeout=120),
             Case("_measure-case --spec-json not JSON", mc("{batch"), words=["json"]),
             Case("_measure-case --spec-json a list", mc("[]"), words=["request"]),
             Case("_measure-case --out in a missing folder", mc(json.dumps(MEASURE_REQUEST), "{d}/none/mc.json"),
                  words=["out"]),
             Case("_measure-case --out a directory", mc(json.dumps(MEASURE_REQUEST), "{d}/idx"), words=["out"]),
             Case("_scale-rank --request-json not JSON", sr("{"), words=["request"], env=rank_env),
             Case("_docs --out a file", ["_docs", "--out", "{run_json}"], words=["out"])]
    for where, key, value, words in MEASURE_FAULTS:
        cases.append(Case(f"_measure-case {key} {json.dumps(value)}", mc(with_fault(MEASURE_REQUEST, where, key, value)),
                          words=words))
    for where, key, value, words in SCALE_FAULTS:
        cases.append(Case(f"_scale-rank {key} {json.dumps(value)}", sr(with_fault(SCALE_REQUEST, where, key, value)),
                          words=words, env=rank_env))
    return cases


# ---- signals and concurrent writers ---------------------------------------------------------------

SIGNAL_RUN = ["run", "--models", "mlp", "--devices", "cpu", "--dtype", "float32,bfloat16,float16", "--quick",
              "--rounds", "1", "--in-process-rounds", "--max-time-per-case", "1.5s", "--min-time", "0.2s",
              "--budget", "10s", "--no-telemetry", "--parity-steps", "0", "--no-progress", "--synthetic"]


def json_cases(path):
    """The finished cases of a results JSON, or an error text."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"the JSON is not valid: {e}"
    cases = doc.get("cases")
    if not isinstance(cases, list):
        return None, "the JSON has no case list"
    for c in cases:
        if c.get("status") == "ok" and not c.get("samples"):
            return None, "a finished case without its samples"
    return cases, None


def db_state(path):
    """(runs, cases per run) of a history database after an integrity check, or an error text."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        ok = con.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            return None, f"integrity_check: {ok}"
        runs = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        con.close()
        return runs, None
    except sqlite3.Error as e:
        return None, f"the database cannot be read: {e}"


def signal_case(runner, sig, delay):
    d = runner.case_dir()
    try:
        db, out = os.path.join(d, "sig.db"), os.path.join(d, "sig.json")
        p = subprocess.Popen([runner.binary] + SIGNAL_RUN + ["--json", out, "--db", db], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=runner.env_for(d), cwd=d)
        time.sleep(delay)
        p.send_signal(sig)
        try:
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            return "fail", f"still running 30 s after {signal.Signals(sig).name}"
        err = err.decode("utf-8", "replace")
        problems = []
        if p.returncode == 0 and delay < 1.0:
            problems.append("exit 0 after an early signal")
        if p.returncode < 0 and -p.returncode not in (signal.SIGINT, signal.SIGTERM):
            problems.append(f"died of signal {-p.returncode}")
        for bad in FORBIDDEN:
            if bad in err:
                problems.append(f"stderr holds {bad!r}")
        finished = None
        if os.path.exists(out):
            finished, why = json_cases(out)
            if why:
                problems.append(why)
        leftovers = [f for f in os.listdir(d) if (f.startswith("sig.json") or f.startswith(".sig.json")) and f != "sig.json"]
        if leftovers:
            problems.append(f"left behind: {leftovers}")
        if os.path.exists(db):
            runs, why = db_state(db)
            if why:
                problems.append(why)
            elif runs not in (0, 1):
                problems.append(f"{runs} runs stored")
        if problems:
            return "fail", "; ".join(problems) + f" | rc={p.returncode} stderr={err.strip()[-300:]!r}"
        n = len(finished) if finished is not None else 0
        return "pass", f"exit {p.returncode}, {n} finished cases in the JSON"
    finally:
        shutil.rmtree(d, ignore_errors=True)


def signal_after_first_case(runner, sig):
    """A signal sent once the JSON holds a finished case (polled, whatever the machine's load): the
    interrupted run keeps that case in its JSON."""
    d = runner.case_dir()
    try:
        db, out = os.path.join(d, "sig.db"), os.path.join(d, "sig.json")
        p = subprocess.Popen([runner.binary] + SIGNAL_RUN + ["--json", out, "--db", db], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=runner.env_for(d), cwd=d)
        seen = 0
        while p.poll() is None and seen == 0:
            time.sleep(0.05)
            if os.path.exists(out):
                cases, _ = json_cases(out)
                seen = len([c for c in cases or [] if c.get("status") == "ok"])
        if p.poll() is not None:
            return "fail", f"the run ended (exit {p.returncode}) before a finished case was seen in its JSON"
        p.send_signal(sig)
        try:
            p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            return "fail", f"still running 120 s after {signal.Signals(sig).name}"
        cases, why = json_cases(out)
        if why:
            return "fail", why
        kept = len([c for c in cases if c.get("status") == "ok"])
        if kept < seen:
            return "fail", f"{seen} finished cases before the signal, {kept} in the JSON after it"
        return "pass", f"exit {p.returncode}, {kept} finished cases kept"
    finally:
        shutil.rmtree(d, ignore_errors=True)


def concurrent_case(runner):
    d = runner.case_dir()
    try:
        db = os.path.join(d, "shared.db")
        procs = [subprocess.Popen([runner.binary] + BASES["run"] + ["--db", db, "--json", os.path.join(d, f"c{i}.json")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=runner.env_for(d), cwd=d)
                 for i in range(2)]
        outs = [p.communicate(timeout=120)[1].decode("utf-8", "replace") for p in procs]
        problems = [f"writer {i} exit {p.returncode}: {outs[i].strip()[-200:]!r}" for i, p in enumerate(procs)
                    if p.returncode != 0]
        runs, why = db_state(db)
        if why:
            problems.append(why)
        elif runs != 2:
            problems.append(f"{runs} runs stored, expected 2")
        for i in range(2):
            _, why = json_cases(os.path.join(d, f"c{i}.json"))
            if why:
                problems.append(f"c{i}.json: {why}")
        return ("fail", "; ".join(problems)) if problems else ("pass", "both runs stored")
    finally:
        shutil.rmtree(d, ignore_errors=True)


# ---- main ----------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--permission-cases", choices=("include", "exclude", "only"), default="include",
                    help="the cases that need chmod to deny access (skipped as root, where it cannot)")
    ap.add_argument("-k", "--filter", default="")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--no-signals", action="store_true", help="leave out the signal and concurrency cases")
    ap.add_argument("--min-cases", type=int, default=0,
                    help="fail when fewer cases are planned (before -k and --permission-cases)")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"matrix: {binary} is not an executable")
    started = time.monotonic()
    root = tempfile.mkdtemp(prefix="accelbench-matrix-")
    try:
        # A private copy, so that a rebuild of the binary during the matrix (a shared build folder)
        # does not pull it away mid-run; the original when the copy does not run (a relative rpath).
        # The engine (accelbench-engine, beside the command) is copied with it; `devices` needs both.
        copy = os.path.join(root, "accelbench")
        shutil.copy2(binary, copy)
        engine = os.path.join(os.path.dirname(binary), "accelbench-engine")
        if os.path.exists(engine):
            shutil.copy2(engine, os.path.join(root, "accelbench-engine"))
        if subprocess.run([copy, "devices"], capture_output=True).returncode == 0:
            binary = copy
        fixtures = make_fixtures(root, binary)
        runner = Runner(binary, fixtures, root)
        cases, uncovered = option_cases(binary)
        from_help = len(cases)
        cases += file_cases(os.geteuid() == 0)
        cases += hidden_cases()
        if len(cases) < a.min_cases:
            print(f"matrix: {len(cases)} cases ({from_help} from the commands' --help), fewer than --min-cases "
                  f"{a.min_cases}: the help's options were not all read")
            return 1
        print(f"matrix: {len(cases)} cases planned, {from_help} of them from the commands' --help")
        cases = [c for c in cases if a.filter in c.name]
        if a.permission_cases != "include":
            only = a.permission_cases == "only"
            cases = [c for c in cases if is_permission_case(c) == only]
        results = []
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            futures = {pool.submit(runner.run_case, c): c for c in cases}
            for f in concurrent.futures.as_completed(futures):
                results.append((futures[f].name, *f.result()))
        signals_wanted = not a.filter or "signal" in a.filter or "concurrent" in a.filter
        if not a.no_signals and a.permission_cases != "only" and signals_wanted:
            signal_results = []
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                futures = {pool.submit(signal_case, runner, sig, delay): f"signal {signal.Signals(sig).name} after {delay} s "
                           "of a 3-case run" for sig in (signal.SIGINT, signal.SIGTERM) for delay in (0.3, 1.5, 3.0, 5.0)}
                for f in concurrent.futures.as_completed(futures):
                    signal_results.append((futures[f], *f.result()))
            results += signal_results
            # The JSON is written after each case: a signal after the first one finds it there.
            for sig in (signal.SIGINT, signal.SIGTERM):
                results.append((f"signal {signal.Signals(sig).name} after the first finished case: the JSON keeps it",
                                *signal_after_first_case(runner, sig)))
            results.append(("concurrent: two runs on one database", *concurrent_case(runner)))
        results.sort()
        for name, status, detail in results:
            if status == "fail" or a.verbose or status == "skip":
                print(f"{status.upper():4}  {name}: {detail}")
        for u in uncovered:
            print(f"note  not in the table: {u}")
        counts = {s: sum(1 for r in results if r[1] == s) for s in ("pass", "fail", "skip")}
        print(f"matrix: {len(results)} cases, {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped "
              f"({time.monotonic() - started:.0f} s)")
        if counts["fail"]:
            return 1
        # Skipped cases are said as such: ctest reads SKIP_EXIT_CODE as a skipped test, never a pass.
        return SKIP_EXIT_CODE if counts["skip"] else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
