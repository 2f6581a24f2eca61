#include "cli/python_cases.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "cli/workload_lists.h"
#include "core/errors.h"
#include "core/lists.h"
#include "core/model_spec.h"
#include "drivers/python_measurer.h"

namespace accelbench {

namespace {
const std::vector<std::string> kCompileModes{"default", "reduce-overhead", "max-autotune"};

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// The case name of a --py-model (its file's name) after checking FILE.py:FACTORY and the file.
std::string py_model_case_name(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw UsageError(fmt::format("--py-model {}: expected FILE.py:FACTORY", text));
  const auto path = text.substr(0, colon);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError(fmt::format("--py-model {}: no such file", path));
  return model_file_case_name(path);
}

}  // namespace

void check_python_flag_use(const CLI::App& cmd, bool python, const std::string& optimizer) {
  for (const char* flag : {"--python", "--py-optimizer", "--compile"})
    if (!python && cmd.count(flag)) throw UsageError(fmt::format("{} needs --impl python (or cpp,python) or --py-model", flag));
  const auto colon = optimizer.find(':');
  const auto name = optimizer.substr(0, colon), variant = colon == std::string::npos ? "" : optimizer.substr(colon + 1);
  if (!optimizer.empty() && (!contains({"adam", "adamw", "sgd"}, name) || !contains({"", "fused", "foreach"}, variant)))
    throw UsageError(fmt::format("unknown --py-optimizer '{}'; available: adam, adamw, sgd, each with :fused or :foreach", optimizer));
}

// The Python twin of a built-in case, or UsageError where there is none.
CaseSpec python_twin(const CaseSpec& c, const std::string& compile) {
  const auto* facts = find_workload_facts(c.workload);
  if (!facts || !facts->python_twin)
    throw UsageError(fmt::format("--impl python: {} has no Python twin (only {} have); --impl cpp measures it", c.workload,
                                 workload_names_with(&engine::WorkloadFacts::python_twin)));
  if (c.checkpoint) throw UsageError("--impl python: --checkpoint is the C++ engine's; measure it with --impl cpp");
  CaseSpec p = c;
  p.impl = kPythonImpl;
  p.compile = compile;
  return p;
}

namespace {
// The plan's built-in cases in the implementations asked (each case's twins side by side), the graphs
// cases the C++ engine's only; then the --py-model's cases, on every device and precision.
void expand_plan(Plan& plan, const std::vector<std::string>& impls, const std::string& compile, bool builtins,
                 const std::string& py_case) {
  std::vector<CaseSpec> out;
  for (const auto& c : plan.cases) {
    if (!builtins) break;
    if (contains(impls, "cpp")) out.push_back(c);
    if (contains(impls, "python") && !c.graphs) out.push_back(python_twin(c, compile));
  }
  if (!py_case.empty()) {
    std::vector<std::pair<std::string, std::string>> seen;
    for (const auto& c : plan.cases) {
      if (c.graphs || std::find(seen.begin(), seen.end(), std::pair{c.device, c.dtype}) != seen.end()) continue;
      seen.emplace_back(c.device, c.dtype);
      CaseSpec p = c;
      p.workload = py_case;
      p.width = 0;
      p.impl = kPythonImpl;
      p.compile = compile;
      out.push_back(p);
    }
  }
  plan.cases = std::move(out);
}
}  // namespace

std::string checked_compile_mode(const PythonFlags& f, const CLI::App& cmd) {
  const std::string compile = cmd.count("--compile") && f.compile.empty() ? "default" : f.compile;
  if (!compile.empty() && !contains(kCompileModes, compile))
    throw UsageError(fmt::format("unknown --compile mode '{}'; available: default, reduce-overhead, max-autotune", compile));
  return compile;
}

void add_python_options(CLI::App* cmd, PythonFlags& f, WorkloadInputs& in) {
  cmd->add_option("--impl", f.impl,
                  "Which loop trains each model: python (PyTorch's modules and torch.optim, as a training script runs "
                  "them), cpp (the C++ engine: the same step without the interpreter) or cpp,python side by side "
                  "(default: python where a python3 that imports torch is found and every case has a Python twin, else "
                  "cpp; $ACCELBENCH_IMPL sets another)")
      ->default_str("python");
  cmd->add_option("--python", f.python, "The Python the Python cases run under (default: the first python3 that imports torch)");
  cmd->add_option("--py-model", in.py_model,
                  "Your own Python model: FILE.py:FACTORY; the factory returns the model, or (model, optimizer, batch_fn); "
                  "its batch from --input and --target");
  cmd->add_option("--py-optimizer", f.py_optimizer,
                  "The Python cases' optimizer: adam (PyTorch's default), adam:fused, adam:foreach, adamw[:fused], sgd");
  cmd->add_option("--compile", f.compile,
                  "torch.compile the Python cases' model (off unless given): MODE default (--compile alone), "
                  "reduce-overhead or max-autotune")
      ->expected(0, 1)
      ->default_str("default")
      ->option_text("[MODE]");
}

PythonSetup apply_python_flags(const PythonFlags& f, const CLI::App& cmd, SuiteRequest& req, std::vector<std::string>& models,
                               LoopChoice& loops) {
  PythonSetup found;  // the interpreter the default's choice started, for the run
  const auto impls = cmd.count("--impl") || !req.options.inputs.py_model.empty() ? split_list(f.impl.empty() ? "cpp" : f.impl)
                                                                                : default_impls(f, cmd, req, loops, found);
  if (loops.words.empty()) loops.words = loops_text(impls);
  if (impls.empty()) throw UsageError("--impl is empty; available: cpp, python");
  for (const auto& i : impls)
    if (i != "cpp" && i != "python") throw UsageError(fmt::format("unknown --impl '{}'; available: cpp, python", i));
  const bool python = contains(impls, "python") || !req.options.inputs.py_model.empty();
  check_python_flag_use(cmd, python, f.py_optimizer);
  if (!python) return {};
  const auto& st = req.options.settings;
  if (req.options.inputs.workers >= 0 || st.phases || st.full_epoch)
    throw UsageError("--workers, --phases and --full-epoch are the C++ engine's: measure them with --impl cpp");
  const auto compile = checked_compile_mode(f, cmd);
  const std::string py_case = req.options.inputs.py_model.empty() ? "" : py_model_case_name(req.options.inputs.py_model);
  if (!py_case.empty() && contains(models, py_case)) throw UsageError(fmt::format("--py-model {}: its name is a built-in workload's", py_case));
  if (!py_case.empty() && (req.options.inputs.model_input.empty() != req.options.inputs.model_target.empty()))
    throw UsageError("--py-model: give both --input and --target (or a factory that returns a batch function)");
  // --py-model alone measures that model; with --models (or --impl), after them.
  const bool builtins = req.options.inputs.py_model.empty() || cmd.count("--models") > 0 || cmd.count("--impl") > 0;
  expand_plan(req.plan, impls, compile, builtins, py_case);
  if (!builtins) models.clear();
  if (!py_case.empty()) models.push_back(py_case);
  auto setup = found.active() ? found : find_python_setup(f.python, f.py_optimizer, req.plan.cases, req.options.inputs);
  const auto first = std::find_if(req.plan.cases.begin(), req.plan.cases.end(), [&](const CaseSpec& c) { return c.workload == py_case; });
  if (first != req.plan.cases.end()) check_python_case(*setup.worker, *first, req.options);  // import, factory, forward at batch 2
  return setup;
}

}  // namespace accelbench
