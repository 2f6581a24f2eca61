"""accelbench's Python measurer: the rounds of a Python case, measured where the user's model lives.

The C++ harness (src/drivers/python_worker.cpp) starts `python -m accelbench_worker serve` once per
run, with this package's folder on PYTHONPATH, and asks it for rounds (protocol.py). Each round, in
a fresh process (server.py), reads the same request as a C++ round (the case, its inputs, the
stopping rule), builds the model (workloads/ or user_model.py, task.py), warms it up and times
samples as the C++ engine does (round.py, timing.py: the device synchronized before each clock
reading) and writes the same result (CaseResult JSON). Rounds, intervals, telemetry, history and
reports stay in C++.

The modules mirror the C++ folders: protocol (drivers/python_worker), timing (core/stopping), data
(data/), workloads/ (workloads/), task and round (engine/case_measurement), errors. Standard library
and torch only; protocol, timing and errors import no torch.
"""
