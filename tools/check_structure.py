#!/usr/bin/env python3
"""The layering rules of docs/architecture.md, checked (ctest label `unit`, test `Structure`):
 - no file in src/cli longer than 150 lines (run_command.cpp, the longest option registration, may be);
 - no ATen, c10 or torch header included in src/cli;
 - no function longer than 80 lines in src/engine, src/core, src/drivers, src/analysis, except the
   flat lists of rows named in FLAT_LISTS below;
 - no telemetry/ include in src/core.
Prints each breach on one line and exits 1 when there is any. Usage: check_structure.py [ROOT]"""
import re
import sys
from pathlib import Path

MAX_CLI_LINES = 150
CLI_LINE_EXCEPTIONS = {"run_command.cpp"}
MAX_FUNCTION_LINES = 80
FUNCTION_DIRS = ["src/engine", "src/core", "src/drivers", "src/analysis"]
FLAT_LISTS = set()  # "file:function" of flat lists of table rows, allowed to be longer
TORCH_INCLUDE = re.compile(r'#\s*include\s*[<"](ATen|c10|torch)/')
TELEMETRY_INCLUDE = re.compile(r'#\s*include\s*"telemetry/')
# A function definition: a line that starts at column 0 (or inside a namespace) with a signature and
# ends with '{', not a class/struct/namespace/enum/lambda/initializer.
SIGNATURE = re.compile(r'^[A-Za-z_][\w:<>,\s\*&~\[\]]*\b([A-Za-z_~][\w:~]*)\s*\([^;]*\)\s*(const)?\s*(noexcept)?\s*(override)?\s*(->[^{]*)?\{\s*$')
NOT_FUNCTION = re.compile(r'^\s*(class|struct|namespace|enum|union|if|for|while|switch|return|else|do)\b')


def strip_comments_and_strings(text):
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\\n])'", "''", text)
    return text


def long_functions(path):
    """(name, first line, length) of every function body longer than MAX_FUNCTION_LINES."""
    lines = strip_comments_and_strings(path.read_text()).split('\n')
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        # A signature may span several lines: join up to 4 lines ending with '{'.
        joined, j = line, i
        while not joined.rstrip().endswith('{') and j < i + 4 and j + 1 < len(lines) and '(' in joined and ';' not in joined:
            j += 1
            joined += ' ' + lines[j].strip()
        m = SIGNATURE.match(joined.strip()) if joined.rstrip().endswith('{') else None
        if m and not NOT_FUNCTION.match(joined) and line[:1] not in (' ', '\t'):
            depth, k = 0, j
            for k in range(j, len(lines)):
                depth += lines[k].count('{') - lines[k].count('}')
                if depth == 0:
                    break
            length = k - i + 1
            if length > MAX_FUNCTION_LINES:
                out.append((m.group(1), i + 1, length))
            i = k + 1
            continue
        i += 1
    return out


def member_functions(path):
    """Functions defined inside a class body (indented two spaces), as long_functions does for free ones."""
    lines = strip_comments_and_strings(path.read_text()).split('\n')
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r'^  [A-Za-z_~]', line) and line.rstrip().endswith('{') and '(' in line and not NOT_FUNCTION.match(line):
            depth, k = 0, i
            for k in range(i, len(lines)):
                depth += lines[k].count('{') - lines[k].count('}')
                if depth == 0:
                    break
            name = re.search(r'([A-Za-z_~]\w*)\s*\(', line)
            if k - i + 1 > MAX_FUNCTION_LINES:
                out.append((name.group(1) if name else '?', i + 1, k - i + 1))
            i = k + 1
            continue
        i += 1
    return out


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    problems = []
    for f in sorted((root / "src/cli").glob("*")):
        text = f.read_text()
        n = text.count('\n')
        if n > MAX_CLI_LINES and f.name not in CLI_LINE_EXCEPTIONS:
            problems.append(f"{f.relative_to(root)}: {n} lines (src/cli files keep to {MAX_CLI_LINES})")
        for no, line in enumerate(text.split('\n'), 1):
            if TORCH_INCLUDE.search(line):
                problems.append(f"{f.relative_to(root)}:{no}: includes a torch header ({line.strip()}); ask through engine/engine.h")
    for f in sorted((root / "src/core").glob("*")):
        for no, line in enumerate(f.read_text().split('\n'), 1):
            if TELEMETRY_INCLUDE.search(line):
                problems.append(f"{f.relative_to(root)}:{no}: core includes telemetry/ ({line.strip()})")
    for d in FUNCTION_DIRS:
        for f in sorted((root / d).glob("*.cpp")) + sorted((root / d).glob("*.h")):
            for name, first, length in long_functions(f) + member_functions(f):
                if f"{f.name}:{name}" in FLAT_LISTS:
                    continue
                problems.append(f"{f.relative_to(root)}:{first}: function {name} is {length} lines (at most {MAX_FUNCTION_LINES})")
    for p in problems:
        print(p)
    print(f"structure: {len(problems)} problem{'s' if len(problems) != 1 else ''}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
