"""The `accelbench` command of a pip install (pyproject.toml's entry point).

It answers --version from the build's record (build.json, beside this file: the accelbench version
and the torch it was compiled against) and starts the engine (accelbench-engine, beside this file)
for everything else, in its own process (exec: same process id, arguments, environment, exit
status). First it checks the torch beside accelbench in site-packages (the one the engine's RPATH
$ORIGIN/../torch/lib loads) against the record: the C++ frontend has no stable ABI, so an engine
started under another torch would fail on a missing symbol or worse. The check reads
torch/version.py without importing torch (importing it takes seconds). The Python cases run under
this environment's interpreter: ACCELBENCH_PYTHON is set to it unless already set.
Standard library only."""
import json
import os
import platform
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.path.join(HERE, "accelbench-engine")
RECORD = os.path.join(HERE, "build.json")


def parse_torch_version_file(text, apple_silicon):
    """(version, build) that a torch/version.py's text names, or None: the same rules as
    cmake/accelbench-torch.cmake and src/core/torch_build.cpp."""
    def field(name):
        m = re.search(r"(^|\n)" + name + r"(: Optional\[str\])? = '([^']+)'", text)
        return m.group(3) if m else None
    version = field("__version__")
    if version is None:
        return None
    cuda, hip = field("cuda"), field("hip")
    flavour = "CUDA " + cuda if cuda else "ROCm " + hip if hip else "MPS" if apple_silicon else "CPU"
    return version, flavour


def read_torch_build(torch_dir):
    try:
        with open(os.path.join(torch_dir, "version.py"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    apple_silicon = sys.platform == "darwin" and platform.machine() in ("arm64", "aarch64")
    return parse_torch_version_file(text, apple_silicon)


def describe(build):
    return "%s (%s)" % build


def fail(line):
    sys.stderr.write("accelbench: error: " + line + "\n")
    return 1


def torch_problem(record):
    """One line when the torch beside accelbench is not the one it was built against, else None."""
    built = (record["torch_version"], record["torch_flavour"])
    torch_dir = os.path.join(os.path.dirname(HERE), "torch")
    rebuild = "pip install --no-build-isolation --force-reinstall %s" % record.get("source_dir", ".")
    found = read_torch_build(torch_dir)
    if found is None:
        return "built against torch %s, but there is no torch in %s; install it, or rebuild against yours: %s" % (
            describe(built), os.path.dirname(HERE), rebuild)
    if found != built:
        return "built against torch %s, but this environment has torch %s (%s); rebuild it against this torch: %s" % (
            describe(built), describe(found), torch_dir, rebuild)
    return None


def main(argv=None):
    argv = list(sys.argv if argv is None else argv)
    try:
        with open(RECORD, encoding="utf-8") as f:
            record = json.load(f)
    except (OSError, ValueError) as e:
        return fail("cannot read the build's record %s (%s); reinstall accelbench" % (RECORD, e))
    if argv[1:] == ["--version"]:
        print("accelbench %s (%s), built against torch %s (%s)" % (
            record["version"], record["commit"], record["torch_version"], record["torch_flavour"]))
        return 0
    problem = torch_problem(record)
    if problem:
        return fail(problem)
    env = dict(os.environ)
    env.setdefault("ACCELBENCH_PYTHON", sys.executable)
    try:
        os.execve(ENGINE, [argv[0] if argv else "accelbench"] + argv[1:], env)
    except OSError as e:
        return fail("cannot start %s: %s; reinstall accelbench" % (ENGINE, e.strerror))


if __name__ == "__main__":
    sys.exit(main())
