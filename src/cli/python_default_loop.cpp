// The loop `run` measures when --impl is not given (docs/python-models.md, "Which loop").
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "cli/python_cases.h"
#include "cli/workload_lists.h"
#include "core/errors.h"
#include "core/lists.h"

namespace accelbench {

namespace {
// Why the default loop is the C++ engine's for this request ("" where the Python loop can measure
// it): a case or a flag that only the C++ engine measures.
std::string needs_the_cpp_loop(const CLI::App& cmd, const SuiteRequest& req) {
  for (const char* flag : {"--phases", "--full-epoch", "--workers", "--graphs", "--checkpoint"})
    if (cmd.count(flag)) return fmt::format("{} is the C++ engine's", flag);
  for (const auto& c : req.plan.cases)
    if (const auto* facts = find_workload_facts(c.workload); !facts || !facts->python_twin) return fmt::format("{} has no Python twin", c.workload);
  return "";
}

}  // namespace

const char* loops_text(const std::vector<std::string>& impls) {
  const bool cpp = std::count(impls.begin(), impls.end(), "cpp") > 0;
  const bool python = std::count(impls.begin(), impls.end(), "python") > 0;
  return cpp && python ? "C++ and Python loops" : python ? "Python loop" : "C++ loop";
}

std::vector<std::string> default_impls(const PythonFlags& f, const CLI::App& cmd, SuiteRequest& req, LoopChoice& loops,
                                       PythonSetup& found) {
  if (const char* env = std::getenv(kDefaultImplVariable); env && *env) {
    loops.words = fmt::format("{} (${})", loops_text(split_list(env)), kDefaultImplVariable);
    return split_list(env);
  }
  if (const auto why = needs_the_cpp_loop(cmd, req); !why.empty()) {
    loops.words = loops_text({"cpp"});
    loops.why = fmt::format("the C++ loop measured: {} (--impl python: the Python loop)", why);
    return {"cpp"};
  }
  try {
    std::vector<CaseSpec> twins;
    for (const auto& c : req.plan.cases) twins.push_back(python_twin(c, ""));
    found = find_python_setup(f.python, f.py_optimizer, twins, req.options.inputs);  // the run's
  } catch (const UsageError& e) {
    if (!f.python.empty()) throw;
    loops.words = loops_text({"cpp"});
    loops.why = fmt::format("the C++ loop measured: {}; --python PATH names a python3 with torch for the Python loop, "
                            "the one a training script runs", e.what());
    return {"cpp"};
  }
  loops.words = loops_text({"python"});
  loops.why = "the Python loop measured (PyTorch's modules and torch.optim, as a training script runs them); --impl "
              "cpp,python adds the C++ engine's loop: the same step without the interpreter";
  return {"python"};
}

}  // namespace accelbench
