"""accelbench's Python measurer: one round of a case, measured where the user's model lives.

The C++ harness starts `python -m accelbench_worker measure --spec-json REQUEST --out RESULT` as
a round's child process (in place of its own `_measure-case`), with this package's folder on
PYTHONPATH. The worker reads the same request (the case, its inputs, the stopping rule), builds
the model, warms it up, times samples the way the C++ engine does (the device synchronized
before each clock reading) and writes the same result (CaseResult JSON). Rounds, intervals,
telemetry, history and reports stay in C++.

Standard library and torch only.
"""

PROTOCOL = 1
