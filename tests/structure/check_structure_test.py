#!/usr/bin/env python3
"""tools/check_structure.py must find what it is there to find: it runs over a small source tree
made here with one planted problem of each kind (and code that must pass), and over a copy of the
project's src/ with one include arrow planted from core up to the CLI. Stdlib only.
Usage: check_structure_test.py [ROOT] (ROOT holds tools/check_structure.py; default: this repository)."""
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(sys.argv.pop(1)) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else Path(__file__).resolve().parents[2]
CHECKER = ROOT / "tools" / "check_structure.py"


def body(lines, statement="  total += 1;"):
    return "\n".join([statement] * lines)


def rows(lines):
    return "\n".join(f'      {{"row {i}", {i}}},' for i in range(lines))


TREE = {
    # An arrow up: core includes a report header.
    "src/core/record.h": '#pragma once\n#include "report/table.h"\nstruct Record {};\n',
    "src/core/stats.h": "#pragma once\n#include <vector>\n",
    # Torch on a torch-free floor; a long function; a flat table as long, which passes; a lambda.
    "src/report/table.h": '#pragma once\n#include "core/stats.h"\n',
    "src/report/table.cpp": (
        '#include "report/table.h"\n#include <torch/torch.h>\n\nnamespace ab {\n\n'
        "int long_function(int n) {\n  int total = 0;\n  for (int i = 0; i < n; ++i) {\n"
        f"{body(80)}\n  }}\n  return total;\n}}\n\n"
        "std::vector<Row> flat_table() {\n  return {\n" + rows(90) + "\n  };\n}\n\n"
        'const char* kCss = R"(\nbody { color: red; }\n)";\n\n'
        "}  // namespace ab\n"),
    # A member function too long, inside a class in a header.
    "src/drivers/loop.h": (
        '#pragma once\n#include "report/table.h"\n\nclass Loop {\n public:\n'
        "  int step(int n) {\n    int total = 0;\n    if (n > 0) total = n;\n"
        f"{body(80, '    total += 1;')}\n    return total;\n  }}\n}};\n"),
    # The torch floors may include torch; the batch loader stands on them, not with the readers.
    "src/engine/engine.h": "#pragma once\n#include <ATen/Tensor.h>\n",
    "src/data/batch_loader.h": "#pragma once\n#include <torch/torch.h>\n",
    "src/data/reader.h": '#pragma once\n#include "data/batch_loader.h"\n',
    "src/workloads/mlp.cpp": '#include "data/batch_loader.h"\n#include "data/reader.h"\n',
    # The CLI reaches torch through a project header; and one CLI file too long.
    "src/cli/main.cpp": '#include "engine/engine.h"\nint main() { return 0; }\n',
    "src/cli/long_command.cpp": "\n" * 151,
    # A folder on no floor.
    "src/gadgets/gadget.h": "#pragma once\n",
}

EXPECTED = [
    "src/gadgets: a folder on no floor",
    "src/core/record.h:2: includes report/table.h, an arrow up: core stands on floor 1 (records), report on floor 5 (reports)",
    "src/data/reader.h:2: includes data/batch_loader.h, an arrow up: data stands on floor 2 (readers), data/batch_loader on floor 7 (torch basics)",
    "src/report/table.cpp:2: includes the torch header torch/torch.h, on the torch-free floor reports",
    "src/cli/long_command.cpp: 151 lines",
    "src/cli/main.cpp:1: reaches a torch header through engine/engine.h -> ATen/Tensor.h",
    "src/drivers/loop.h:6: function step is 85 lines",
    "src/report/table.cpp:6: function long_function is 86 lines",
]


def run_checker(root):
    return subprocess.run([sys.executable, str(CHECKER), str(root)], capture_output=True, text=True)


class CheckStructure(unittest.TestCase):
    def test_finds_each_planted_problem_and_nothing_else(self):
        with tempfile.TemporaryDirectory() as tmp:
            for rel, text in TREE.items():
                path = Path(tmp) / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            result = run_checker(tmp)
        lines = result.stdout.strip().split("\n")
        self.assertEqual(result.returncode, 1, result.stdout)
        problems, summary = lines[:-1], lines[-1]
        self.assertTrue(summary.startswith(f"structure: {len(EXPECTED)} problems"), result.stdout)
        for expected in EXPECTED:
            self.assertEqual(sum(p.startswith(expected) for p in problems), 1, f"{expected!r} in:\n{result.stdout}")

    def test_fails_on_an_arrow_planted_in_the_project(self):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(ROOT / "src", Path(tmp) / "src")
            stats = Path(tmp) / "src" / "core" / "stats.h"
            stats.write_text(stats.read_text() + '\n#include "cli/commands.h"\n')
            result = run_checker(tmp)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("src/core/stats.h:", result.stdout)
        self.assertIn("includes cli/commands.h, an arrow up: core stands on floor 1 (records), cli on floor 11", result.stdout)


if __name__ == "__main__":
    unittest.main()
