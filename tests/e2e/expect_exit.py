#!/usr/bin/env python3
"""Runs a command and checks both its exit status and its output, which CTest's
PASS_REGULAR_EXPRESSION cannot do (with it, CTest ignores the exit status).

    expect_exit.py STATUS REGEX COMMAND [ARG ...]

Exit 0 when COMMAND exits with STATUS and REGEX (Python re, multiline) is found in its stdout and
stderr together; 1 otherwise, saying which. The command's output is passed through."""
import re
import subprocess
import sys


def main(argv):
    if len(argv) < 4:
        print("usage: expect_exit.py STATUS REGEX COMMAND [ARG ...]", file=sys.stderr)
        return 2
    status, pattern, command = int(argv[1]), argv[2], argv[3:]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(done.stdout)
    problems = []
    if done.returncode != status:
        problems.append(f"exit status {done.returncode}, expected {status}")
    if not re.search(pattern, done.stdout, re.M):
        problems.append(f"no match for {pattern!r} in the output")
    for p in problems:
        print(f"expect_exit.py: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
