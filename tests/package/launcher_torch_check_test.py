#!/usr/bin/env python3
"""The pip launcher (python/accelbench/launcher.py) against the torch beside it, in a site-packages
made for the test: the launcher package, a build record (build.json) naming torch 2.13.0+cpu, a
stand-in engine (a shell script that says it ran, with its arguments and ACCELBENCH_PYTHON) and a
torch/version.py written by each case. The launcher must start the engine under the torch it was
built against, and refuse any other (another version, another build, none) in one line on stderr
that names both and the rebuild command, with exit 1 and without starting the engine. No torch is
imported and nothing is built. Usage: launcher_torch_check_test.py SOURCE_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BUILT = {"version": "0.1.0", "commit": "abcdef123456", "torch_version": "2.13.0+cpu", "torch_flavour": "CPU",
         "source_dir": "/src/accelbench"}
VERSION_PY = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'rocm', 'xpu']
__version__ = '{version}'
debug = False
cuda: Optional[str] = {cuda}
git_version = 'cf30153c4c131c8164ee7798e5022d810682e2cb'
hip: Optional[str] = None
"""
failures = []


def check(ok, what, result):
    if not ok:
        failures.append("%s\n  exit %s\n  stdout: %r\n  stderr: %r" % (what, result.returncode, result.stdout, result.stderr))


def make_site(root, source):
    site = os.path.join(root, "site-packages")
    package = os.path.join(site, "accelbench")
    os.makedirs(package)
    for name in ("__init__.py", "launcher.py"):
        shutil.copy(os.path.join(source, "python", "accelbench", name), package)
    with open(os.path.join(package, "build.json"), "w") as f:
        json.dump(BUILT, f)
    engine = os.path.join(package, "accelbench-engine")
    with open(engine, "w") as f:
        f.write('#!/bin/sh\necho "engine ran: $* python=$ACCELBENCH_PYTHON"\n')
    os.chmod(engine, 0o755)
    return site


def write_torch(site, version, cuda=None):
    torch_dir = os.path.join(site, "torch")
    shutil.rmtree(torch_dir, ignore_errors=True)
    if version is None:
        return
    os.makedirs(torch_dir)
    with open(os.path.join(torch_dir, "version.py"), "w") as f:
        f.write(VERSION_PY.format(version=version, cuda=repr(cuda) if cuda else "None"))


def launch(site, *args):
    code = "import sys; sys.path.insert(0, %r); from accelbench.launcher import main; sys.exit(main())" % site
    env = {k: v for k, v in os.environ.items() if k != "ACCELBENCH_PYTHON"}
    return subprocess.run([sys.executable, "-c", code] + list(args), capture_output=True, text=True, env=env, timeout=60)


def expect_refusal(site, what, found):
    r = launch(site, "run", "--quick")
    lines = r.stderr.splitlines()
    check(r.returncode == 1, what + ": exit 1", r)
    check(len(lines) == 1, what + ": one line on stderr", r)
    check("engine ran" not in r.stdout, what + ": the engine is not started", r)
    line = lines[0] if lines else ""
    for part in ("accelbench: error: built against torch 2.13.0+cpu (CPU)", found,
                 "pip install --no-build-isolation --force-reinstall /src/accelbench"):
        check(part in line, "%s: the line names %r" % (what, part), r)


def main():
    source = sys.argv[1]
    with tempfile.TemporaryDirectory() as root:
        site = make_site(root, source)
        write_torch(site, "2.13.0+cpu")
        r = launch(site, "run", "--quick", "--models", "mlp")
        check(r.returncode == 0 and r.stdout.startswith("engine ran: run --quick --models mlp"),
              "the same torch: the engine runs with the arguments", r)
        check("python=" + sys.executable in r.stdout, "ACCELBENCH_PYTHON is the launcher's interpreter", r)
        write_torch(site, "2.12.0+cpu")
        expect_refusal(site, "another version", "this environment has torch 2.12.0+cpu (CPU)")
        write_torch(site, "2.13.0+cpu", cuda="13.0")
        expect_refusal(site, "another build", "this environment has torch 2.13.0+cpu (CUDA 13.0)")
        write_torch(site, None)
        expect_refusal(site, "no torch", "there is no torch in " + site)
        r = launch(site, "--version")
        check(r.returncode == 0 and r.stdout == "accelbench 0.1.0 (abcdef123456), built against torch 2.13.0+cpu (CPU)\n",
              "--version answers from the record, whatever the torch", r)
        os.remove(os.path.join(site, "accelbench", "build.json"))
        r = launch(site, "run")
        check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "reinstall accelbench" in r.stderr,
              "no build record: one line, exit 1", r)
    for f in failures:
        print("FAIL: " + f)
    print("launcher: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
