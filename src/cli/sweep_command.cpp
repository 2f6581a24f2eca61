// accelbench sweep: one setting at a time, measured over its range, with the best value and the
// advice it supports. Each kind has its own file (sweep_<kind>_command.cpp); what they share is in
// sweep_common.h; the devices a sweep measures in turn are chosen here. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/errors.h"
#include "engine/engine.h"

namespace accelbench {

void add_python_sweep_options(CLI::App* cmd, PythonFlags& f) {
  f.impl = "cpp";
  cmd->add_option("--impl", f.impl,
                  "Which loop trains the model at every point: cpp (the C++ engine) or python (its Python twin, PyTorch's "
                  "modules and optimizer, in a Python child process)")
      ->capture_default_str();
  cmd->add_option("--python", f.python, "The Python the Python points run under (default: the first python3 that imports torch)");
  cmd->add_option("--py-optimizer", f.py_optimizer,
                  "The Python points' optimizer: adam (PyTorch's default), adam:fused, adam:foreach, adamw[:fused], sgd");
  cmd->add_option("--compile", f.compile,
                  "torch.compile the Python points' model (off unless given): MODE default (--compile alone), "
                  "reduce-overhead or max-autotune")
      ->expected(0, 1)
      ->default_str("default")
      ->option_text("[MODE]");
}

PythonSetup apply_python_sweep_flags(const PythonFlags& f, const CLI::App& cmd, CaseSpec& base, WorkloadInputs& inputs) {
  if (f.impl.find(',') != std::string::npos)
    throw UsageError(fmt::format("--impl takes one implementation per sweep (got '{}'): sweep cpp and python in turn", f.impl));
  if (f.impl != "cpp" && f.impl != "python") throw UsageError(fmt::format("unknown --impl '{}'; available: cpp, python", f.impl));
  const bool python = f.impl == "python";
  check_python_flag_use(cmd, python, f.py_optimizer);
  if (!python) return {};
  if (inputs.workers >= 0) throw UsageError("--workers is the C++ engine's: measure it with --impl cpp");
  if (base.graphs) throw UsageError("--graphs is the C++ engine's: with --impl python, --compile reduce-overhead captures CUDA graphs");
  base = python_twin(base, checked_compile_mode(f, cmd));
  return find_python_setup(f.python, f.py_optimizer, {base}, inputs);
}

void add_sweep_batch_command(CLI::App& sweep, Action& action);
void add_sweep_precision_command(CLI::App& sweep, Action& action);
void add_sweep_threads_command(CLI::App& sweep, Action& action);
void add_sweep_workers_command(CLI::App& sweep, Action& action);
void add_sweep_crossover_command(CLI::App& sweep, Action& action);

int sweep_each_device(SweepCommonOptions& o, bool accelerators_only, const std::function<int()>& sweep_one) {
  const std::string given = o.device;
  auto devices = engine::resolve_devices(given.empty() ? "all" : given);  // UsageError naming the devices
  if (accelerators_only && given.empty()) {
    std::erase_if(devices, [](const std::string& d) { return engine::is_cpu(d); });
    if (devices.empty())
      throw UsageError("this sweep compares an accelerator with the CPU, and libtorch sees no accelerator here "
                       "(accelbench doctor says why)");
  }
  if (devices.size() > 1 && !o.json_path.empty())
    throw UsageError(fmt::format("--json holds one sweep and --device names {} ({}): give one --device with --json",
                                 devices.size(), fmt::format("{}", fmt::join(devices, ", "))));
  int worst = 0;
  for (const auto& d : devices) {
    o.device = d;
    worst = std::max(worst, sweep_one());
  }
  o.device = given;
  return worst;
}

void add_sweep_command(CLI::App& app, Action& action) {
  auto* sweep = app.add_subcommand(
      "sweep", "Sweep one setting (batch, precision, threads, workers) or find the CPU/accelerator crossover; see docs/sweeps.md");
  sweep->require_subcommand(1);
  add_sweep_batch_command(*sweep, action);
  add_sweep_precision_command(*sweep, action);
  add_sweep_threads_command(*sweep, action);
  add_sweep_workers_command(*sweep, action);
  add_sweep_crossover_command(*sweep, action);
}

}  // namespace accelbench
