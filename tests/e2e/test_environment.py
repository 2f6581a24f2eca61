#!/usr/bin/env python3
"""Checks that the environment tests/CMakeLists.txt gives the discovered GoogleTest tests reaches
them: for every test discovered from one of TARGETS, its ENVIRONMENT property holds VAR=VALUE.
gtest_discover_tests reads PROPERTIES up to its next own keyword, so an ENVIRONMENT placed after
DISCOVERY_TIMEOUT is dropped without a word; this reads what CTest will run.

    test_environment.py CTEST BUILD_DIR VAR=VALUE MIN_TESTS TARGET [TARGET ...]

Exit 0: every such test has it, and at least MIN_TESTS were found; 1: otherwise (names them)."""
import json
import os
import subprocess
import sys


def main(argv):
    if len(argv) < 6:
        print(__doc__.strip().splitlines()[-3].strip(), file=sys.stderr)
        return 2
    ctest, build_dir, wanted, min_tests, targets = argv[1], argv[2], argv[3], int(argv[4]), set(argv[5:])
    out = subprocess.run([ctest, "--show-only=json-v1"], cwd=build_dir, capture_output=True, text=True, check=True)
    found, missing = 0, []
    for test in json.loads(out.stdout)["tests"]:
        command = test.get("command") or []
        if not command or os.path.basename(command[0]) not in targets:
            continue
        found += 1
        env = next((p["value"] for p in test.get("properties", []) if p["name"] == "ENVIRONMENT"), [])
        if wanted not in (env if isinstance(env, list) else [env]):
            missing.append(test["name"])
    print(f"{found} tests discovered from {', '.join(sorted(targets))}; {len(missing)} without {wanted}")
    if missing:
        print("without it: " + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else ""))
    if found < min_tests:
        print(f"expected at least {min_tests} tests from those targets")
    return 0 if found >= min_tests and not missing else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
