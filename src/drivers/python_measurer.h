#pragma once
// The Python measurer: a round of a Python case (CaseSpec::impl "python": a built-in workload's
// Python twin, or the user's --py-model) measured by python/accelbench_worker in a fresh process of
// the user's interpreter (the run's round server, drivers/python_worker.h), in place of
// `_measure-case`. The request and the result are the same
// JSON (MeasureRequest, CaseResult); the harness derives the case's figures from the samples the
// worker reports, as for a C++ round. A worker that dies is a crashed case. No torch here.
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement.h"
#include "core/torch_build.h"
#include "drivers/python_worker.h"

namespace accelbench {

// The folder that holds the accelbench_worker package: $ACCELBENCH_PYTHON_WORKER, else
// <binary>/../share/accelbench/python (installed), else the engine's folder's parent (pip:
// site-packages), else the source tree's python/ (build tree).
// UsageError when none holds it.
std::string python_worker_dir();

// The interpreters the Python cases may use when --python names none, in the order tried:
// $ACCELBENCH_PYTHON (the pip launcher sets it to its environment's python), each python3 on PATH,
// then the Python of the libtorch this binary was built with.
std::vector<std::string> python_candidates();

// What an interpreter holds, asked without importing torch (doctor): its Python version and its
// torch package's folder and build (core/torch_build.h); nullopt when it cannot be run.
struct PythonProbe {
  std::string python_version, torch_dir;
  std::optional<TorchBuild> torch;
};
std::optional<PythonProbe> probe_python(const std::string& python);

// The round server (drivers/python_worker.h) under `requested` (--python), else under the first of
// python_candidates() that imports torch.
// UsageError, one line, when the interpreter cannot be run or cannot import torch, or the worker
// is another build's.
std::shared_ptr<PythonWorker> find_python(const std::string& requested, const std::string& worker_dir);

// Builds a Python case's model on the CPU and runs its forward and loss at batch 2 (the worker's
// `check`, in a round process of its own): a module that fails to import, a factory that raises or
// a forward that fails is a UsageError with the worker's one line, before anything is timed.
void check_python_case(PythonWorker& worker, const CaseSpec& spec, const MeasureOptions& options);

// Python cases through the worker (options.inputs.python is the interpreter), every other case
// through `cpp` (the C++ engine, in this process or a child).
class PythonMeasurer : public CaseMeasurer {
 public:
  PythonMeasurer(CaseMeasurer& cpp, std::shared_ptr<PythonWorker> worker);
  CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) override;

 private:
  CaseMeasurer& cpp_;
  std::shared_ptr<PythonWorker> worker_;
  std::size_t count_ = 0;
};

// What the Python cases run with (the round server, started), for the measurer and the context
// block; empty when the run has none.
struct PythonSetup {
  std::string worker_dir;
  std::string interpreter, python_version, torch_version;
  bool forks_rounds = false;
  std::shared_ptr<PythonWorker> worker;
  bool active() const { return !interpreter.empty(); }
};

// The worker and the interpreter (`requested_python`, else found) the Python cases run with,
// checked against their devices (a case on CUDA needs a torch with CUDA); `inputs` names both, and
// the optimizer, for the worker. UsageError, one line.
PythonSetup find_python_setup(const std::string& requested_python, const std::string& py_optimizer,
                              const std::vector<CaseSpec>& cases, WorkloadInputs& inputs);

// The context block's entry ("python_measurer" in the settings), or null.
nlohmann::json python_context(const PythonSetup& setup);

// The round measurer with Python cases through the worker when `setup` is active, else `cpp`.
std::unique_ptr<CaseMeasurer> with_python_cases(std::unique_ptr<CaseMeasurer> cpp, const PythonSetup& setup);

}  // namespace accelbench
