#!/usr/bin/env python3
"""The structure rules of docs/architecture.md, checked over every folder of src/ (ctest: `Structure`).

Layering. The folders of src/ stand on the floors of FLOORS, lowest first. A file may include a
header of its own folder, or of a folder on a lower floor; an include of another folder on its own
floor or on a higher one is an arrow up, and a problem. FILE_FLOORS puts a file on another floor
than its folder's (the data folder's batch loader, which needs torch, stands with the torch floors).
A folder of src/ that no floor names is a problem too, so that a new folder gets its place.

Torch. No file on a torch-free floor includes an ATen, c10 or torch header; a file of src/cli reaches
none either through the project's headers it includes (followed to the end).

Files. No file in src/cli longer than MAX_CLI_LINES lines: a command is its flags and one call.

Functions. No function (free, member or lambda at namespace or class scope) longer than
MAX_FUNCTION_LINES lines, counted from the first line of its signature to its closing brace, in any
file of src/, except a flat table. A flat table is a function whose body holds no control flow (no
if, else, for, while, do, switch, case, try, catch, goto, ?:) and no lambda: a list of rows or of
one-line calls, read from top to bottom, that grows by one line per entry. Data tables outside
functions (initialised variables) are not functions and may be as long as they need.

Prints each problem on one line ("path:line: what") and a last line with their count; exits 1 when
there is any. Usage: check_structure.py [ROOT] (ROOT holds src/; default: this repository)."""
import re
import sys
from pathlib import Path

FLOORS = [  # (floor, folders of src/ on it), lowest first
    ("records", ["core"]),
    ("readers", ["telemetry", "data"]),
    ("machine and history", ["system", "store"]),
    ("analysis", ["analysis"]),
    ("reports", ["report"]),
    ("loops", ["drivers"]),
    ("torch basics", ["device", "optim", "data/batch_loader"]),
    ("workloads", ["workloads"]),
    ("distributed", ["distributed"]),
    ("engine", ["engine"]),
    ("commands", ["cli"]),
]
TORCH_FLOORS = {"torch basics", "workloads", "distributed", "engine"}
# Files on another floor than their folder's: "folder/stem" (the .h and the .cpp) -> its unit in FLOORS.
FILE_FLOORS = {"data/batch_loader": "data/batch_loader"}
MAX_CLI_LINES = 150
MAX_FUNCTION_LINES = 80
SOURCE_SUFFIXES = {".cpp", ".h"}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
TORCH_HEADER = re.compile(r'^(ATen|c10|torch)/')
CONTROL_FLOW = re.compile(r'\b(if|else|for|while|do|switch|case|try|catch|goto)\b|\?|\[[^\]]*\]\s*(\([^)]*\))?\s*(mutable\s*)?(->[^{]*)?\{')


# ---- the layering ---------------------------------------------------------------------------------

def floor_of_unit():
    return {unit: (rank, name) for rank, (name, units) in enumerate(FLOORS) for unit in units}


def unit_of(rel):
    """The unit a path under src/ stands for: "data/batch_loader" when FILE_FLOORS names it, else its
    folder ("core"); None for a file directly in src/."""
    parts = Path(rel).parts
    if len(parts) < 2:
        return None
    stem = f"{parts[0]}/{Path(parts[-1]).stem}"
    return FILE_FLOORS.get(stem, parts[0])


def project_includes(path, src):
    """(line number, included path relative to src/) of every project header the file includes."""
    out = []
    for no, line in enumerate(path.read_text().split('\n'), 1):
        m = INCLUDE.match(line)
        if not m or m.group(1) != '"':
            continue
        inc = m.group(2)
        if '/' not in inc:  # "x.h" beside the file
            inc = str(path.parent.relative_to(src) / inc)
        out.append((no, inc))
    return out


def torch_includes(path):
    return [(no, m.group(2)) for no, line in enumerate(path.read_text().split('\n'), 1)
            if (m := INCLUDE.match(line)) and TORCH_HEADER.match(m.group(2))]


def layering_problems(root, files):
    src = root / "src"
    floors = floor_of_unit()
    problems = []
    for folder in sorted(p.name for p in src.iterdir() if p.is_dir()):
        if folder not in floors:
            problems.append(f"src/{folder}: a folder on no floor (tools/check_structure.py FLOORS: give it its place)")
    for f in files:
        rel = f.relative_to(src)
        unit = unit_of(rel)
        if unit not in floors:
            continue
        rank, floor = floors[unit]
        for no, inc in project_includes(f, src):
            target = unit_of(inc)
            if target is None or target == unit or target not in floors:
                continue
            t_rank, t_floor = floors[target]
            if t_rank >= rank:
                problems.append(f"src/{rel}:{no}: includes {inc}, an arrow up: {unit} stands on floor {rank + 1} "
                                f"({floor}), {target} on floor {t_rank + 1} ({t_floor})")
        if floor not in TORCH_FLOORS:
            for no, inc in torch_includes(f):
                problems.append(f"src/{rel}:{no}: includes the torch header {inc}, on the torch-free floor {floor}")
    return problems


def torch_reached(header, src, known):
    """The chain of project headers from `header` (relative to src/) to a torch header, or None.
    `known` keeps each header's answer (None while it is being followed: an include cycle)."""
    if header in known:
        return known[header]
    known[header] = None
    path = src / header
    chain = None
    if path.is_file():
        direct = torch_includes(path)
        if direct:
            chain = [header, direct[0][1]]
        else:
            for _, inc in project_includes(path, src):
                below = torch_reached(inc, src, known)
                if below:
                    chain = [header] + below
                    break
    known[header] = chain
    return chain


def cli_problems(root):
    src = root / "src"
    problems = []
    known = {}
    for f in sorted((src / "cli").glob("*")):
        if f.suffix not in SOURCE_SUFFIXES:
            continue
        rel = f.relative_to(root)
        text = f.read_text()
        n = text.count('\n')
        if n > MAX_CLI_LINES:
            problems.append(f"{rel}: {n} lines (src/cli files keep to {MAX_CLI_LINES})")
        for no, inc in torch_includes(f):
            problems.append(f"{rel}:{no}: includes a torch header ({inc}); ask through engine/engine.h")
        for no, inc in project_includes(f, src):
            chain = torch_reached(inc, src, known)
            if chain:
                problems.append(f"{rel}:{no}: reaches a torch header through {' -> '.join(chain)}; "
                                "ask through engine/engine.h")
    return problems


# ---- function lengths -----------------------------------------------------------------------------

def strip_code(text):
    """The text with comments, string and character literals (raw strings too) and preprocessor lines
    blanked, newlines kept, so that braces and line numbers can be counted."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in ' \t':
            out.append(c)
            i += 1
            continue
        if at_line_start and c == '#':  # a preprocessor line, with its continuations
            while i < n and text[i] != '\n':
                if text[i] == '\\' and i + 1 < n and text[i + 1] == '\n':
                    out.append('\n')
                    i += 2
                    continue
                i += 1
            continue
        at_line_start = False
        if c == '\n':
            at_line_start = True
            out.append(c)
            i += 1
        elif text.startswith('//', i):
            while i < n and text[i] != '\n':
                i += 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif c == 'R' and i + 1 < n and text[i + 1] == '"' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(')' + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + '\n' * text.count('\n', i, end))
            i = end
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):  # 1'000 is a digit separator
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


DECLARATION_SCOPE = re.compile(r'^(namespace\b|extern\s*"")')
TYPE_SCOPE = re.compile(r'^(template\s*<.*>\s*)?(class|struct|union)\b[^(=]*$', re.S)
ENUM_SCOPE = re.compile(r'^enum\b')
ACCESS = re.compile(r'^\s*((public|private|protected)\s*:(?!:)\s*)+')
BODY_HEAD = re.compile(
    r'(\)|\bconst|\bnoexcept|\boverride|\bfinal|\bmutable|->\s*[\w:<>,\s\*&]+|\)\s*:.*[\)\}])\s*$', re.S)


def functions(path):
    """(name, first line, length, body text) of every function defined at namespace or class scope."""
    text = strip_code(path.read_text())
    found = []
    stack = []  # one entry per open brace: "decl" (namespace, class), "func", "other"
    func_start = []  # (name, first line, body start) of the open function, when in one
    stmt = 0  # where the current declaration began
    line = 1
    line_at = []  # line number at each character
    for ch in text:
        line_at.append(line)
        if ch == '\n':
            line += 1
    for pos, ch in enumerate(text):
        in_decl = all(kind == "decl" for kind in stack)
        if ch == ';' and in_decl:
            stmt = pos + 1
        elif ch == '{':
            if not in_decl:
                stack.append("other")
                continue
            segment = text[stmt:pos]
            access = ACCESS.match(segment)
            start = stmt + (access.end() if access else 0)
            while start < pos and text[start].isspace():
                start += 1
            head = text[start:pos].strip()
            if DECLARATION_SCOPE.match(head) or TYPE_SCOPE.match(head):
                stack.append("decl")
                stmt = pos + 1
            elif ENUM_SCOPE.match(head) or '(' not in head or not BODY_HEAD.search(head):
                stack.append("other")  # an initializer, an enum, a table: not a function body
            else:
                m = re.search(r'(operator\s*\S+?|[A-Za-z_~][\w:~]*)\s*(<[^()]*>)?\s*\(', head)
                name = m.group(1) if m else "?"
                if name in ("[", "?") or head.lstrip().startswith('['):
                    name = "lambda"
                stack.append("func")
                func_start.append((name, line_at[start], pos))
        elif ch == '}' and stack:
            kind = stack.pop()
            if kind == "func" and all(k == "decl" for k in stack):
                name, first, body = func_start.pop()
                found.append((name, first, line_at[pos] - first + 1, text[body + 1:pos]))
            if kind in ("decl", "func") and all(k == "decl" for k in stack):
                stmt = pos + 1
    return found


def is_flat_table(body):
    return not CONTROL_FLOW.search(body)


def function_problems(root, files):
    problems = []
    for f in files:
        for name, first, length, body in functions(f):
            if length > MAX_FUNCTION_LINES and not is_flat_table(body):
                problems.append(f"{f.relative_to(root)}:{first}: function {name} is {length} lines "
                                f"(at most {MAX_FUNCTION_LINES}, or a flat table)")
    return problems


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    src = root / "src"
    if not src.is_dir():
        print(f"check_structure: {src} is not a folder")
        return 2
    files = sorted(p for p in src.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())
    problems = layering_problems(root, files) + cli_problems(root) + function_problems(root, files)
    for p in problems:
        print(p)
    print(f"structure: {len(problems)} problem{'s' if len(problems) != 1 else ''} in {len(files)} files")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
