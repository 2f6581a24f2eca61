#!/usr/bin/env python3
"""Many writers on one history: every run lands exactly once, nothing is lost, nobody waits forever.

Usage: many_writers.py BINARY [--writers 8] [--reps 1] [-v]

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

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

RUN = ["run", "--models", "mlp", "--devices", "cpu", "--quick", "--rounds", "1", "--in-process-rounds",
       "--max-time-per-case", "0.5s", "--budget", "1s", "--min-time", "0.1s", "--no-telemetry", "--parity-steps", "0",
       "--no-progress", "--synthetic", "--threads", "1"]
FORBIDDEN = ("terminate called", "Segmentation fault", "core dumped", "Aborted", "what():", "AddressSanitizer")
WRITER_TIMEOUT_S = 600


def env_for(d, extra=None):
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
    p = subprocess.run([binary] + args, capture_output=True, cwd=d, env=env_for(d, extra_env), timeout=timeout)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def copy_db(src, dst):
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


def strays(d):
    """Temporary files left in d: anything hidden that is not the database's own."""
    return sorted(f for f in os.listdir(d) if f.startswith(".") or f.endswith(".tmp"))


def make_template(binary, root):
    d = os.path.join(root, "template")
    os.makedirs(d)
    db = os.path.join(d, "history.db")
    for seed in ("1", "2"):
        rc, err = run_tool(binary, RUN + ["--seed", seed, "--db", db, "--no-progress"], d)
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
    copy_db(template, db)
    seed_uids = [r[1] for r in stored_runs(db)]
    stop, log = threading.Event(), []
    side = threading.Thread(target=removers, args=(binary, d, db, seed_uids, stop, log))
    procs = [subprocess.Popen([binary] + RUN + ["--seed", str(1000 + i), "--db", db, "--json", os.path.join(d, f"w{i}.json")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=d, env=env_for(d))
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
    if strays(d):
        problems.append(f"temporary files left: {strays(d)}")
    return problems, stored_ok


def busy_case(binary, template, root):
    """A history held in a write transaction by another connection: bounded wait, one line, exit 1, JSON kept."""
    d = os.path.join(root, "busy")
    os.makedirs(d)
    db, out = os.path.join(d, "history.db"), os.path.join(d, "busy.json")
    copy_db(template, db)
    before = len(stored_runs(db))
    holder = sqlite3.connect(db, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    try:
        rc, err = run_tool(binary, RUN + ["--db", db, "--json", out], d, {"ACCELBENCH_DB_WAIT": "2"}, timeout=300)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    problems = []
    lines = [m for m in messages(err) if "not stored" in m]
    if rc != 1:
        problems.append(f"exit {rc}, expected 1")
    if len(lines) != 1 or "locked" not in lines[0]:
        problems.append(f"expected one line saying the run was not stored (locked): {err.strip()[-400:]!r}")
    why = json_whole(out)
    if why:
        problems.append(why)
    if len(stored_runs(db)) != before:
        problems.append("a run was stored into the busy database")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
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


if __name__ == "__main__":
    sys.exit(main())
