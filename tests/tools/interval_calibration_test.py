#!/usr/bin/env python3
"""bench/interval_calibration.py against figures worked out by hand: three runs of one case and one
speed-up, each with its interval. Standard library only; run by ctest (IntervalCalibrationTool)."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import interval_calibration as tool  # noqa: E402

# (median or ratio, low, high) per run
CASE = [(1.0, 0.9, 1.15), (1.2, 1.0, 1.5), (1.1, 1.05, 1.25)]
SPEEDUP = [(2.0, 1.9, 2.6), (2.5, 2.1, 3.0), (2.2, 1.5, 2.1)]


def run_doc(i):
    m, lo, hi = CASE[i]
    r, rlo, rhi = SPEEDUP[i]
    return {"cases": [{"workload": "mlp", "device": "cpu", "dtype": "float32", "batch_size": 64, "width": 0,
                       "status": "ok", "stats": {"median": m, "ci_low": lo, "ci_high": hi}}],
            "speedups": [{"workload": "mlp", "model": "mlp", "device": "cuda:0", "baseline_device": "cpu",
                          "dtype": "float32", "batch_size": 64, "ratio": r, "ci_low": rlo, "ci_high": rhi}]}


class IntervalCalibration(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.paths = []
        for i in range(3):
            p = os.path.join(self.dir.name, f"run{i + 1}.json")
            with open(p, "w", encoding="utf-8") as f:
                json.dump(run_doc(i), f)
            self.paths.append(p)

    def tearDown(self):
        self.dir.cleanup()

    def rows(self, *extra):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = tool.main(["--json", *extra, *self.paths])
        self.assertEqual(code, 0)
        return {r["kind"]: r for r in json.loads(out.getvalue())}

    def test_case_coverage_and_width_ratio_by_hand(self):
        case = self.rows()["case"]
        # run 1 [0.9, 1.15] holds 1.1 not 1.2; run 2 [1.0, 1.5] holds both; run 3 [1.05, 1.25] holds 1.2 not 1.0
        self.assertEqual((case["hits"], case["pairs"]), (4, 6))
        self.assertAlmostEqual(case["max_over_min"], 1.2)
        # widths log(1.15/0.9), log(1.5/1.0), log(1.25/1.05) over log(1.2/1.0): 1.34444, 2.22390, 0.95629
        self.assertAlmostEqual(case["first_width_ratio"], 1.34444, places=4)
        self.assertAlmostEqual(case["width_ratio"], (1.34444 + 2.22390 + 0.95629) / 3, places=4)
        self.assertEqual(case["name"], "mlp cpu float32 b64")

    def test_speedup_and_judging_the_first_run_alone(self):
        s = self.rows()["speed-up"]
        # run 1 [1.9, 2.6] holds 2.5 and 2.2; run 2 [2.1, 3.0] holds 2.2 only; run 3 [1.5, 2.1] holds 2.0 only
        self.assertEqual((s["hits"], s["pairs"]), (4, 6))
        first = self.rows("--judge", "1")["speed-up"]
        self.assertEqual((first["hits"], first["pairs"]), (2, 2))
        # log(2.6/1.9) / log(2.5/2.0) = 0.313658 / 0.223144
        self.assertAlmostEqual(first["width_ratio"], 1.40563, places=4)

    def test_thresholds_and_bad_input(self):
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(tool.main(["--min-coverage", "0.9", *self.paths]), 1)
            self.assertEqual(tool.main(["--min-coverage", "0.6", "--max-width-ratio", "3", *self.paths]), 0)
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(tool.main([self.paths[0], os.path.join(self.dir.name, "missing.json")]), 2)
        self.assertIn("cannot read", err.getvalue())
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(tool.main([self.paths[0]]), 2)


if __name__ == "__main__":
    unittest.main()
