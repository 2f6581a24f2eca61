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
