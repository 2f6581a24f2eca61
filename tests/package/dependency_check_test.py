#!/usr/bin/env python3
"""The C++ build dependencies named when missing (cmake/accelbench-dependencies.cmake), through a
configure of the whole project in a scratch folder:
  - every search re-rooted under a prefix that does not exist (CMAKE_FIND_ROOT_PATH, mode ONLY):
    CLI11, nlohmann-json, fmt and SQLite each named in one line with its Debian package and its
    Homebrew formula, the configure fails, and stops there (no word of libtorch: nothing after the
    check ran, so nothing compiled);
  - fmt alone hidden (CMAKE_DISABLE_FIND_PACKAGE_fmt): fmt named, the three others not.
Usage: dependency_check_test.py CMAKE SOURCE_DIR"""
import subprocess
import sys
import tempfile

EXPECTED = {
    "CLI11": "Debian/Ubuntu: apt install libcli11-dev; macOS: brew install cli11",
    "nlohmann-json": "Debian/Ubuntu: apt install nlohmann-json3-dev; macOS: brew install nlohmann-json",
    "fmt": "Debian/Ubuntu: apt install libfmt-dev; macOS: brew install fmt",
    "SQLite": "Debian/Ubuntu: apt install libsqlite3-dev; macOS: brew install sqlite",
}
failures = []


def configure(cmake, source, *defines):
    with tempfile.TemporaryDirectory() as build:
        r = subprocess.run([cmake, "-S", source, "-B", build, "-G", "Ninja"] + ["-D" + d for d in defines],
                           capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def named_lines(output):
    return {name: [l for l in output.splitlines() if l.startswith("accelbench: missing build dependency %s:" % name)]
            for name in EXPECTED}


def main():
    cmake, source = sys.argv[1], sys.argv[2]
    code, out = configure(cmake, source, "CMAKE_FIND_ROOT_PATH=/nonexistent-prefix-for-the-test",
                          "CMAKE_FIND_ROOT_PATH_MODE_PACKAGE=ONLY", "CMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY",
                          "CMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY")
    if code == 0:
        failures.append("the bogus prefix: configure succeeded")
    for name, lines in named_lines(out).items():
        if len(lines) != 1 or EXPECTED[name] not in lines[0]:
            failures.append("the bogus prefix: %s not named in one line with its packages: %r" % (name, lines))
    if "build dependencies missing: 4 (above)" not in out:
        failures.append("the bogus prefix: no count of the missing dependencies")
    if "libtorch" in out or "Torch" in out:
        failures.append("the bogus prefix: the configure went on past the dependency check")
    code, out = configure(cmake, source, "CMAKE_DISABLE_FIND_PACKAGE_fmt=TRUE")
    named = {name for name, lines in named_lines(out).items() if lines}
    if code == 0 or named != {"fmt"}:
        failures.append("fmt hidden: exit %d, named %s (expected fmt alone)" % (code, sorted(named)))
    for f in failures:
        print("FAIL: " + f)
    if failures:
        print(out[-3000:])
    print("dependency check: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
