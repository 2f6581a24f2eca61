#!/usr/bin/env python3
"""The crash drivers against the real binary: `kill-anywhere` (SIGKILL at any moment of `run`,
`sweep batch` and `history prune`) and `many-writers` (many processes storing into one history).

Usage: crash_drivers.py kill-anywhere BINARY [--kills N] [--seed S] [-v]
       crash_drivers.py many-writers BINARY [--writers 8] [--reps 1] [-v]

Each subcommand's own description follows (KILL_ANYWHERE_DOC, MANY_WRITERS_DOC). Standard library
only.
"""

import argparse
import collections
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

# `run` without --impl measures the C++ loop here, as these checks were written for.
os.environ.setdefault("ACCELBENCH_IMPL", "cpp")

KILL_ANYWHERE_DOC = """Killed at any moment: SIGKILL sent to `run`, `sweep batch` and `history prune` over their whole life.

Usage: crash_drivers.py kill-anywhere BINARY [--kills N] [--seed S] [-v]

Each trial starts one command against a history holding two earlier runs (or, for "run on a new
database", no history yet) with a complete --json file from an earlier run beside it, and kills it
with SIGKILL at one moment:

  - at a time offset drawn uniformly within one of N equal slices of the command's measured run
    time (start-up, schema creation, the probe, child rounds, between cases, the JSON rewrites,
    the save, the exit), the slices spread over the scenarios;
  - at a named moment (ACCELBENCH_TEST_POINTS, core/test_points.h): inside the save transaction
    before its COMMIT, inside prune's delete transaction, with the JSON written under its temporary
    name before the rename, with a new database built beside its path before it is linked.

The command writes "accelbench: test point NAME" at each moment it passes, so each kill is placed:
before the save, inside it, after the commit. After each kill:

  - the database (when there is one) passes PRAGMA integrity_check, holds both earlier runs (prune:
    all or none of what it deletes), every run whose COMMIT had returned, and no other; each stored
    run holds its cases;
  - the --json file is the earlier complete file byte for byte, or a complete new one (it parses and
    holds its cases); never absent when it was there before, never half-written;
  - no temporary file is beside the database or the JSON; any the killed process could not remove
    (its ".NAME.tmp.PID.*" or ".NAME.new-PID") is counted, and the next command on the same files
    must remove it;
  - no child process of the killed command goes on running.

And the round's child killed instead of the command: the case is a crashed case, the run goes on
(exit 1 for the failed case), stores the run and writes its JSON.

Standard library only. Prints a table of the kills by scenario and moment and exits 1 on a failure.
"""

MANY_WRITERS_DOC = """Many writers on one history: every run lands exactly once, nothing is lost, nobody waits forever.

Usage: crash_drivers.py many-writers BINARY [--writers 8] [--reps 1] [-v]

Each repetition copies a history holding two earlier runs, then starts WRITERS `accelbench run --quick`
processes (mlp on the CPU, the smallest budget, each with its own --seed and --json) storing into
it at once, while `history rm` removes one earlier run and `history prune --older-than` the other,
again and again, beside them. Afterwards:

  - the database passes PRAGMA integrity_check;
  - every writer exited 0 and its run (found by its seed) is stored exactly once, with its case; or
    it exited 1 after a bounded wait for the database, saying so in one line, its run absent from
    the history and whole in its --json file;
  - both earlier runs are gone (removed by rm or prune), and no run other than the writers' is left;
  - no temporary file is left beside the database or the JSON files.

Then a busy database: a run storing into a history that another connection holds in a write
transaction the whole time, with ACCELBENCH_DB_WAIT=2, must exit 1 with one line saying the run
was not stored, keep its cases in --json, and store nothing.

Standard library only. Prints one line per repetition and `many writers: R repetitions, W runs
stored once each, F failures`; exits 1 on a failure.
"""

FORBIDDEN = ("terminate called", "Segmentation fault", "core dumped", "Aborted", "what():", "AddressSanitizer")


# ---- kill-anywhere ------------------------------------------------------------------------------

QUICK = ["--no-telemetry", "--synthetic", "--threads", "1"]
KILL_RUN = ["run", "--models", "mlp", "--devices", "cpu", "--dtype", "float32,bfloat16", "--quick", "--rounds", "2",
       "--max-time-per-case", "1s", "--budget", "4s", "--min-time", "0.1s", "--parity-steps", "0",
       "--no-progress"] + QUICK
SWEEP = ["sweep", "batch", "--model", "mlp", "--device", "cpu", "--from", "8", "--to", "16", "--budget", "3s",
         "--max-time-per-point", "1s", "--rounds", "1"] + QUICK
PRUNE = ["history", "prune", "--keep", "1"]
# name: (arguments, a history with earlier runs, a --json file, the share of the uniform kills)
SCENARIOS = {
    "run": (KILL_RUN, True, True, 0.35),
    "run on a new database": (KILL_RUN, False, True, 0.15),
    "sweep batch": (SWEEP, True, True, 0.2),
    "history prune": (PRUNE, True, False, 0.3),
}
# Named moments: (scenario, point) the kill waits for; the point pauses there for PAUSE_S.
TARGETED = [("run", "save"), ("run", "write"), ("sweep batch", "save"), ("sweep batch", "write"),
            ("history prune", "remove"), ("run on a new database", "create")]
PAUSE_S = 30
OWN_FILES = {"history.db", "history.db-wal", "history.db-shm", "out.json", "stderr.txt"}


def kill_env(d, points):
    env = dict(os.environ)
    env.update({"XDG_DATA_HOME": os.path.join(d, "xdg"), "OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": "1",
                "ACCELBENCH_TEST_POINTS": points, "TMPDIR": os.path.join(d, "tmp")})
    env.pop("ACCELBENCH_DB", None)
    return env


def command(binary, args, d, has_json):
    cmd = [binary] + args + ["--db", os.path.join(d, "history.db")]
    return cmd + (["--json", os.path.join(d, "out.json")] if has_json else [])


def db_runs(db):
    """{uid: cases} of a history after PRAGMA integrity_check; raises on damage."""
    con = sqlite3.connect(db)
    try:
        ok = con.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            raise RuntimeError(f"integrity_check: {ok}")
        return {uid: con.execute("SELECT COUNT(*) FROM cases WHERE run_id = ?", (rid,)).fetchone()[0]
                for rid, uid in con.execute("SELECT id, uid FROM runs")}
    finally:
        con.close()


def kill_copy_db(src, dst):
    with sqlite3.connect(src) as s, sqlite3.connect(dst) as t:
        s.backup(t)


class Fixture:
    """The earlier history (two runs) and an earlier complete --json file, made once."""

    def __init__(self, binary, root):
        d = os.path.join(root, "fixture")
        os.makedirs(os.path.join(d, "tmp"))
        for _ in range(2):
            p = subprocess.run(command(binary, KILL_RUN, d, True), capture_output=True, env=kill_env(d, ""), cwd=d)
            if p.returncode not in (0, 1) or not os.path.exists(os.path.join(d, "out.json")):
                sys.exit(f"kill: the fixture run failed (exit {p.returncode}): {p.stderr.decode()[-300:]}")
        self.db, self.json = os.path.join(d, "history.db"), os.path.join(d, "out.json")
        self.runs = db_runs(self.db)
        with open(self.json, "rb") as f:
            self.json_bytes = f.read()

    def prepare(self, d, scenario):
        _, has_db, has_json, _ = SCENARIOS[scenario]
        os.makedirs(os.path.join(d, "tmp"))
        if has_db:
            kill_copy_db(self.db, os.path.join(d, "history.db"))
        if has_json:
            shutil.copy(self.json, os.path.join(d, "out.json"))


def markers(d):
    with open(os.path.join(d, "stderr.txt"), "rb") as f:
        text = f.read().decode("utf-8", "replace")
    return [line.split("test point ", 1)[1].strip() for line in text.splitlines() if "accelbench: test point " in line], text


def moment_of(points):
    """Where the command was when killed, from the last test point it passed."""
    if not points:
        return "before any save or write"
    last = points[-1]
    return {"save": "inside the save transaction", "remove": "inside the delete transaction",
            "write": "JSON written, not yet renamed", "create": "after the new database was built, before any save or write",
            "saved": "after a save committed", "removed": "after the delete committed",
            "written": "after a JSON rewrite", }.get(last, last)


def session_processes(pgid):
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(pid))
    return out


def check_db(fx, d, scenario, points):
    db = os.path.join(d, "history.db")
    if not os.path.exists(db):
        return [] if not SCENARIOS[scenario][1] else ["the history is gone"]
    try:
        runs = db_runs(db)
    except (RuntimeError, sqlite3.Error) as e:
        return [f"the database: {e}"]
    problems = []
    earlier = set(fx.runs) if SCENARIOS[scenario][1] else set()
    if scenario == "history prune":
        left = earlier & set(runs)
        if len(left) == 1 and "remove" not in points:
            problems.append("a run was deleted before the delete transaction")
        if left == earlier and "removed" in points:
            problems.append("the delete committed but no run was deleted")
        if len(left) not in (1, 2):
            problems.append(f"{len(left)} earlier runs left, expected 2 (none deleted) or 1")
    elif earlier - set(runs):
        problems.append(f"earlier runs lost: {sorted(earlier - set(runs))}")
    new = {u: c for u, c in runs.items() if u not in earlier}
    if not points.count("saved") <= len(new) <= points.count("save"):
        problems.append(f"{len(new)} new runs stored; {points.count('saved')} saves had committed, {points.count('save')} begun")
    problems += [f"stored run {u} has no case" for u, c in runs.items() if c < 1]
    return problems


def check_json(fx, d, scenario):
    path = os.path.join(d, "out.json")
    had = SCENARIOS[scenario][2]
    if not os.path.exists(path):
        return ["the earlier --json file is gone"] if had else [], "absent"
    with open(path, "rb") as f:
        data = f.read()
    if data == fx.json_bytes:
        return [], "the earlier file"
    try:
        doc = json.loads(data)
    except ValueError as e:
        return [f"the --json file is half-written: {e}"], "damaged"
    if not isinstance(doc.get("cases"), list) and not isinstance(doc.get("points"), list):
        return ["the --json file holds no case list"], "damaged"
    return [], "a complete new file"


def kill_strays(d):
    return sorted(f for f in os.listdir(d) if f not in OWN_FILES and f not in ("tmp", "xdg"))


class Trial:
    def __init__(self, fx, binary, root, index, scenario):
        self.fx, self.binary, self.scenario = fx, binary, scenario
        self.d = os.path.join(root, f"t{index:04d}")
        fx.prepare(self.d, scenario)

    def start(self, points_env):
        args, _, has_json, _ = SCENARIOS[self.scenario]
        self.err = open(os.path.join(self.d, "stderr.txt"), "wb")
        self.p = subprocess.Popen(command(self.binary, args, self.d, has_json), stdout=subprocess.DEVNULL,
                                  stderr=self.err, cwd=self.d, env=kill_env(self.d, points_env), start_new_session=True)
        self.t0 = time.monotonic()

    def wait_for_point(self, point, limit_s=300):
        while time.monotonic() - self.t0 < limit_s and self.p.poll() is None:
            if point in markers(self.d)[0]:
                return True
            time.sleep(0.02)
        return False

    def kill_and_check(self):
        ended_before = self.p.poll() is not None
        if not ended_before:
            self.p.send_signal(signal.SIGKILL)
        self.p.wait()
        self.err.close()
        time.sleep(0.3)  # a child that outlives the command would show now
        orphans = session_processes(self.p.pid)
        for pid in orphans:
            os.kill(pid, signal.SIGKILL)
        points, text = markers(self.d)
        problems = check_db(self.fx, self.d, self.scenario, points)
        more, json_state = check_json(self.fx, self.d, self.scenario)
        problems += more
        if orphans:
            problems.append(f"{len(orphans)} child processes went on running")
        problems += [f"stderr holds {bad!r}" for bad in FORBIDDEN if bad in text]
        left = kill_strays(self.d)
        if left:
            problems += self.recover(left)
        return {"problems": problems, "moment": "ended before the kill" if ended_before else moment_of(points),
                "json": json_state, "left": left}

    def recover(self, left):
        """The next command on the same files removes what the killed one left."""
        if any(not (f.startswith(".history.db.new-") or f.startswith(".out.json.tmp.")) for f in left):
            return [f"left beside the files: {left}"]
        args, _, has_json, _ = SCENARIOS[self.scenario]
        subprocess.run(command(self.binary, args, self.d, has_json), capture_output=True, cwd=self.d,
                       env=kill_env(self.d, ""), timeout=600)
        still = kill_strays(self.d)
        return [f"the next command left {still} in place"] if still else []


def measure_lengths(fx, binary, root):
    lengths = {}
    for i, scenario in enumerate(SCENARIOS):
        t = Trial(fx, binary, root, 9000 + i, scenario)
        t.start("")
        t.p.wait()
        t.err.close()
        lengths[scenario] = time.monotonic() - t.t0
        shutil.rmtree(t.d, ignore_errors=True)
    return lengths


def plan(n, lengths, rng):
    """(scenario, offset s or None, point or None): the targeted moments, one child kill, the rest uniform."""
    targeted = [(s, None, p) for s, p in TARGETED][: max(0, n - 2)]
    uniform = max(1, n - len(targeted) - 1)
    out = list(targeted)
    for scenario, (_, _, _, share) in SCENARIOS.items():
        k = max(1, round(uniform * share))
        out += [(scenario, lengths[scenario] * (i + rng.random()) / k, None) for i in range(k)]
    out.append(("run", None, "child"))
    return out


def kill_child(t):
    """SIGKILL to the first round's child of the run; the run must go on."""
    deadline = time.monotonic() + 300
    child = None
    while child is None and time.monotonic() < deadline and t.p.poll() is None:
        child = next((p for p in session_processes(t.p.pid) if p != t.p.pid), None)
        time.sleep(0.02)
    if child is None:
        t.p.wait()
        return ["no child process was seen"]
    time.sleep(0.2)
    try:
        os.kill(child, signal.SIGKILL)
    except ProcessLookupError:
        pass
    rc = t.p.wait(timeout=600)
    t.err.close()
    _, text = markers(t.d)
    problems = [] if rc == 1 else [f"exit {rc}, expected 1 (a crashed case)"]
    try:
        with open(os.path.join(t.d, "out.json")) as f:
            cases = json.load(f)["cases"]
        if not any(c.get("failure") == "crashed" for c in cases):
            problems.append("no crashed case in the JSON")
        if not any(c.get("status") == "ok" for c in cases):
            problems.append("the run did not go on: no case measured")
    except (OSError, ValueError, KeyError) as e:
        problems.append(f"the JSON: {e}")
    if len(db_runs(os.path.join(t.d, "history.db"))) != len(t.fx.runs) + 1:
        problems.append("the run was not stored")
    problems += [f"stderr holds {bad!r}" for bad in FORBIDDEN if bad in text]
    return problems


def run_trial(fx, binary, root, i, item):
    scenario, offset, point = item
    t = Trial(fx, binary, root, i, scenario)
    if point == "child":
        t.start("mark")
        return {"problems": kill_child(t), "moment": "a round's child killed", "json": "-", "left": []}
    if point:
        t.start(f"{point}:{PAUSE_S}")
        if not t.wait_for_point(point):
            t.p.kill()
            return {"problems": [f"the test point {point} was never reached"], "moment": point, "json": "-", "left": []}
    else:
        t.start("mark")  # every test point says when it is passed; none pauses
        time.sleep(max(0.0, offset - (time.monotonic() - t.t0)))
    r = t.kill_and_check()
    shutil.rmtree(t.d, ignore_errors=True)
    return r


def kill_anywhere(argv):
    ap = argparse.ArgumentParser(prog="crash_drivers.py kill-anywhere", description=KILL_ANYWHERE_DOC.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    binary = os.path.abspath(a.binary)
    rng = random.Random(a.seed)
    root = tempfile.mkdtemp(prefix="accelbench-kill-")
    started = time.monotonic()
    try:
        fx = Fixture(binary, root)
        lengths = measure_lengths(fx, binary, root)
        print("run times: " + ", ".join(f"{s} {v:.1f} s" for s, v in lengths.items()), flush=True)
        table, failures, left_total = collections.Counter(), 0, 0
        for i, item in enumerate(plan(a.kills, lengths, rng)):
            r = run_trial(fx, binary, root, i, item)
            table[(item[0], r["moment"])] += 1
            left_total += bool(r["left"])
            if r["problems"] or a.verbose:
                offset = f"{item[1]:.2f} s" if item[1] is not None else item[2]
                print(f"{'FAIL' if r['problems'] else 'pass'}  {item[0]} killed at {offset} ({r['moment']}; "
                      f"json: {r['json']}){''.join(chr(10) + '      ' + p for p in r['problems'])}", flush=True)
            failures += bool(r["problems"])
        for (scenario, moment), n in sorted(table.items()):
            print(f"  {n:4d}  {scenario}: {moment}")
        inside = sum(n for (s, m), n in table.items() if m.startswith("inside"))
        print(f"kill: {sum(table.values())} kills, {inside} inside a save or delete transaction, {left_total} left a "
              f"temporary file that the next command removed, {failures} failures ({time.monotonic() - started:.0f} s)")
        return 1 if failures else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ---- many-writers -------------------------------------------------------------------------------

WRITERS_RUN = ["run", "--models", "mlp", "--devices", "cpu", "--quick", "--rounds", "1", "--in-process-rounds",
       "--max-time-per-case", "0.5s", "--budget", "1s", "--min-time", "0.1s", "--no-telemetry", "--parity-steps", "0",
       "--no-progress", "--synthetic", "--threads", "1"]
WRITER_TIMEOUT_S = 600


def writers_env(d, extra=None):
    env = dict(os.environ)
    env.update({"XDG_DATA_HOME": os.path.join(d, "xdg"), "OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": "1"})
    env.pop("ACCELBENCH_DB", None)
    env.pop("ACCELBENCH_TEST_POINTS", None)
    env.update(extra or {})
    return env


def messages(err):
    """stderr as messages: a line wrapped to the output width goes on over indented lines."""
    out = []
    for line in err.splitlines():
        if line.startswith("  ") and out:
            out[-1] += " " + line.strip()
        elif line.strip():
            out.append(line)
    return out


def run_tool(binary, args, d, extra_env=None, timeout=WRITER_TIMEOUT_S):
    p = subprocess.run([binary] + args, capture_output=True, cwd=d, env=writers_env(d, extra_env), timeout=timeout)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def writers_copy_db(src, dst):
    with sqlite3.connect(src) as s, sqlite3.connect(dst) as t:
        s.backup(t)


def stored_runs(db):
    """[(id, uid, seed, cases)] of the history, after an integrity check; raises on damage."""
    con = sqlite3.connect(db)
    try:
        ok = con.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            raise RuntimeError(f"integrity_check: {ok}")
        out = []
        for rid, uid, ctx in con.execute("SELECT id, uid, context_json FROM runs ORDER BY id"):
            seed = json.loads(ctx).get("settings", {}).get("seed")
            cases = con.execute("SELECT COUNT(*) FROM cases WHERE run_id = ?", (rid,)).fetchone()[0]
            out.append((rid, uid, seed, cases))
        return out
    finally:
        con.close()


def json_whole(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return f"{os.path.basename(path)} is not whole: {e}"
    if not doc.get("cases"):
        return f"{os.path.basename(path)} holds no case"
    return None


def writers_strays(d):
    """Temporary files left in d: anything hidden that is not the database's own."""
    return sorted(f for f in os.listdir(d) if f.startswith(".") or f.endswith(".tmp"))


def make_template(binary, root):
    d = os.path.join(root, "template")
    os.makedirs(d)
    db = os.path.join(d, "history.db")
    for seed in ("1", "2"):
        rc, err = run_tool(binary, WRITERS_RUN + ["--seed", seed, "--db", db, "--no-progress"], d)
        if rc != 0:
            sys.exit(f"many writers: the template run failed (exit {rc}): {err.strip()[-300:]}")
    # The earlier runs as stored years ago: `prune --older-than 1000w` removes them and never a writer's.
    with sqlite3.connect(db) as con:
        con.execute("UPDATE runs SET stored_utc = '2000-01-01T00:00:00Z'")
    return db


def removers(binary, d, db, seed_uids, stop, log):
    """history rm of the first earlier run, then history prune of the runs stored years ago, until stopped."""
    rc, err = run_tool(binary, ["history", "rm", seed_uids[0], "--db", db], d)
    log.append(("rm", rc, err))
    while not stop.is_set():
        rc, err = run_tool(binary, ["history", "prune", "--older-than", "1000w", "--db", db], d)
        log.append(("prune", rc, err))


def check_writer(i, rc, err, d, by_seed):
    problems = []
    seed = 1000 + i
    stored = by_seed.get(seed, [])
    lines = messages(err)
    if any(bad in err for bad in FORBIDDEN):
        problems.append(f"writer {i}: crash text on stderr")
    if rc == 0:
        if len(stored) != 1:
            problems.append(f"writer {i}: exit 0 but its run is stored {len(stored)} times")
        elif stored[0][3] < 1:
            problems.append(f"writer {i}: its stored run has no case")
    elif rc == 1 and sum("was not stored" in line for line in lines) == 1:
        if stored:
            problems.append(f"writer {i}: said not stored, but its run is in the history")
        why = json_whole(os.path.join(d, f"w{i}.json"))
        if why:
            problems.append(f"writer {i}: {why}")
    else:
        problems.append(f"writer {i}: exit {rc}: {err.strip()[-300:]!r}")
    return problems, rc == 0


def repetition(binary, template, root, rep, writers):
    d = os.path.join(root, f"rep{rep}")
    os.makedirs(d)
    db = os.path.join(d, "history.db")
    writers_copy_db(template, db)
    seed_uids = [r[1] for r in stored_runs(db)]
    stop, log = threading.Event(), []
    side = threading.Thread(target=removers, args=(binary, d, db, seed_uids, stop, log))
    procs = [subprocess.Popen([binary] + WRITERS_RUN + ["--seed", str(1000 + i), "--db", db, "--json", os.path.join(d, f"w{i}.json")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=d, env=writers_env(d))
             for i in range(writers)]
    side.start()
    outs = [p.communicate(timeout=WRITER_TIMEOUT_S)[1].decode("utf-8", "replace") for p in procs]
    stop.set()
    side.join()
    problems, stored_ok = [], 0
    try:
        runs = stored_runs(db)
    except (RuntimeError, sqlite3.Error) as e:
        return [f"the database: {e}"], 0
    by_seed = {}
    for r in runs:
        by_seed.setdefault(r[2], []).append(r)
    for i, p in enumerate(procs):
        more, ok = check_writer(i, p.returncode, outs[i], d, by_seed)
        problems += more
        stored_ok += ok
    others = [r for r in runs if not (isinstance(r[2], int) and 1000 <= r[2] < 1000 + writers)]
    if others:
        problems.append(f"runs other than the writers' left: {others}")
    for what, rc, err in log:
        if rc not in (0, 2) or (rc == 2 and "no stored run" not in err) or any(bad in err for bad in FORBIDDEN):
            problems.append(f"history {what}: exit {rc}: {err.strip()[-200:]!r}")
    if not any(w == "prune" and rc == 0 for w, rc, _ in log):
        problems.append("no prune ran beside the writers")
    if writers_strays(d):
        problems.append(f"temporary files left: {writers_strays(d)}")
    # A store holds the history for milliseconds against a wait of seconds: most writers store. A
    # history that refused them all ("was not stored", each said in one line) is the fault to catch.
    if stored_ok < max(1, writers // 2):
        problems.append(f"only {stored_ok} of {writers} writers stored their run")
    return problems, stored_ok


def busy_case(binary, template, root):
    """A history held in a write transaction by another connection: bounded wait, one line, exit 1, JSON kept."""
    d = os.path.join(root, "busy")
    os.makedirs(d)
    db, out = os.path.join(d, "history.db"), os.path.join(d, "busy.json")
    writers_copy_db(template, db)
    before = len(stored_runs(db))
    holder = sqlite3.connect(db, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    try:
        rc, err = run_tool(binary, WRITERS_RUN + ["--db", db, "--json", out], d, {"ACCELBENCH_DB_WAIT": "2"}, timeout=300)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    problems = []
    lines = [m for m in messages(err) if "not stored" in m]
    if rc != 1:
        problems.append(f"exit {rc}, expected 1")
    if len(lines) != 1 or "locked" not in lines[0]:
        problems.append(f"expected one line saying the run was not stored (locked): {err.strip()[-400:]!r}")
    elif lines[0].count(db) != 1:
        problems.append(f"the database's path should be said once: {lines[0]!r}")
    why = json_whole(out)
    if why:
        problems.append(why)
    if len(stored_runs(db)) != before:
        problems.append("a run was stored into the busy database")
    return problems


def many_writers(argv):
    ap = argparse.ArgumentParser(prog="crash_drivers.py many-writers", description=MANY_WRITERS_DOC.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    binary = os.path.abspath(a.binary)
    root = tempfile.mkdtemp(prefix="accelbench-writers-")
    failures, stored = 0, 0
    try:
        template = make_template(binary, root)
        for rep in range(a.reps):
            t0 = time.monotonic()
            problems, ok = repetition(binary, template, root, rep, a.writers)
            stored += ok
            failures += bool(problems)
            print(f"{'FAIL' if problems else 'pass'}  repetition {rep + 1}: {ok} of {a.writers} runs stored once "
                  f"({time.monotonic() - t0:.0f} s)" + "".join(f"\n      {p}" for p in problems), flush=True)
        problems = busy_case(binary, template, root)
        failures += bool(problems)
        print(f"{'FAIL' if problems else 'pass'}  busy database: exit 1, one line, the JSON kept"
              + "".join(f"\n      {p}" for p in problems), flush=True)
        print(f"many writers: {a.reps} repetitions, {stored} runs stored once each, {failures} failures")
        return 1 if failures else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


SUBCOMMANDS = {"kill-anywhere": kill_anywhere, "many-writers": many_writers}


def main(argv):
    if not argv or argv[0] not in SUBCOMMANDS:
        print("usage: crash_drivers.py {kill-anywhere,many-writers} BINARY [OPTIONS]", file=sys.stderr)
        return 2
    return SUBCOMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
