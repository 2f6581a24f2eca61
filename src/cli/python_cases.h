#pragma once
// The flags of the Python measurer (--impl, --python, --py-model, --py-optimizer, --compile) and
// what they do to a checked run request: each built-in case also (or only) as its Python twin, the
// user's Python model as cases of its own, the interpreter found and said in the context block,
// every Python input checked before anything is timed (drivers/python_measurer.h).
#include <memory>
#include <string>

#include "core/measurement.h"
#include "drivers/suite.h"

namespace CLI {
class App;
}

namespace accelbench {

struct PythonFlags {
  std::string impl = "cpp";   // cpp, python or cpp,python
  std::string python;         // the interpreter (default: the first python3 that imports torch)
  std::string py_optimizer;   // "" PyTorch's default Adam; adam:fused, adamw:foreach, sgd...
  std::string compile;        // "" eager; default, reduce-overhead, max-autotune
};
// --py-model FILE.py:FACTORY fills inputs.py_model (checked with the other inputs).
void add_python_options(CLI::App* cmd, PythonFlags& flags, WorkloadInputs& inputs);

// What the Python cases run with, for the context block; empty when the run has none.
struct PythonSetup {
  std::string worker_dir;
  std::string interpreter, python_version, torch_version;
  bool active() const { return !interpreter.empty(); }
};

// Checks the flags and applies them to the request's plan and inputs (`models` gains the
// --py-model case's name). Runs the interpreter (its torch) and the --py-model's check at batch 2:
// UsageError, one line, for each bad input.
PythonSetup apply_python_flags(const PythonFlags& flags, const CLI::App& cmd, SuiteRequest& request,
                               std::vector<std::string>& models);

// The context block's entry ("python_measurer" in the settings), or null.
nlohmann::json python_context(const PythonSetup& setup);

// The round measurer with Python cases through the worker when the run has any.
std::unique_ptr<CaseMeasurer> with_python_cases(std::unique_ptr<CaseMeasurer> cpp, const PythonSetup& setup);

}  // namespace accelbench
