#pragma once
// The flags of the Python measurer (--impl, --python, --py-model, --py-optimizer, --compile) and
// what they do to a checked run request: each built-in case also (or only) as its Python twin, the
// user's Python model as cases of its own, the interpreter found and said in the context block,
// every Python input checked before anything is timed (drivers/python_measurer.h).
#include <memory>
#include <string>

#include "core/measurement.h"
#include "drivers/python_measurer.h"
#include "drivers/suite.h"

namespace CLI {
class App;
}

namespace accelbench {

struct PythonFlags {
  std::string impl;           // cpp, python or cpp,python; "" (run): the default loop, default_loops()
  std::string python;         // the interpreter (default: the first python3 that imports torch)
  std::string py_optimizer;   // "" PyTorch's default Adam; adam:fused, adamw:foreach, sgd...
  std::string compile;        // "" eager; default, reduce-overhead, max-autotune
};
// --py-model FILE.py:FACTORY fills inputs.py_model (checked with the other inputs).
void add_python_options(CLI::App* cmd, PythonFlags& flags, WorkloadInputs& inputs);


// Checks the flags and applies them to the request's plan and inputs (`models` gains the
// --py-model case's name). Runs the interpreter (its torch) and the --py-model's check at batch 2:
// UsageError, one line, for each bad input.
// `loops` says which loops the run measures and, for the default, why.
struct LoopChoice {
  std::string words;  // "Python loop", "C++ loop", "C++ and Python loops" (the plan's first line)
  std::string why;    // the default's reason, a note of the run ("" with --impl)
};
PythonSetup apply_python_flags(const PythonFlags& flags, const CLI::App& cmd, SuiteRequest& request,
                               std::vector<std::string>& models, LoopChoice& loops);

// The environment variable that names the default loop when --impl is not given (cpp, python or
// cpp,python), for a machine or CI that measures one loop every time.
inline constexpr const char* kDefaultImplVariable = "ACCELBENCH_IMPL";

// In python_default_loop.cpp: the loops when --impl is not given: $ACCELBENCH_IMPL, else the
// Python loop (the one a PyTorch user's script runs) unless the request needs the C++ engine or no
// python3 imports torch; `loops` says which, and why the C++ loop where the Python one was not
// taken; `found`: the interpreter started to decide, for the run.
std::vector<std::string> default_impls(const PythonFlags& flags, const CLI::App& cmd, SuiteRequest& request,
                                       LoopChoice& loops, PythonSetup& found);
// "Python loop", "C++ loop", "C++ and Python loops".
const char* loops_text(const std::vector<std::string>& impls);

// A sweep's implementation: --impl cpp or python (one a sweep), --python, --py-optimizer, --compile.
// In sweep_command.cpp.
void add_python_sweep_options(CLI::App* cmd, PythonFlags& flags);

// Checks a sweep's flags; with --impl python its base case becomes the Python twin (every point
// measured by the worker) and `inputs` names the interpreter. UsageError, one line, for bad input.
// In sweep_command.cpp.
PythonSetup apply_python_sweep_flags(const PythonFlags& flags, const CLI::App& cmd, CaseSpec& base, WorkloadInputs& inputs);

// What run and the sweeps share. --python, --py-optimizer and --compile without a Python case are
// refused, as is an unknown --py-optimizer.
void check_python_flag_use(const CLI::App& cmd, bool python, const std::string& optimizer);
// --compile's mode ("" eager; "default" for a bare --compile), checked.
std::string checked_compile_mode(const PythonFlags& flags, const CLI::App& cmd);
// The Python twin of a built-in case (UsageError where there is none, or for --checkpoint).
CaseSpec python_twin(const CaseSpec& c, const std::string& compile);



}  // namespace accelbench
