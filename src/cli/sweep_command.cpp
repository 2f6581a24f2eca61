// accelbench sweep: one setting at a time, measured over its range, with the best value and the
// advice it supports. Each kind has its own file (sweep_<kind>_command.cpp); what they share is in
// sweep_common.h. docs/sweeps.md.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace accelbench {

void add_sweep_batch_command(CLI::App& sweep, Action& action);
void add_sweep_precision_command(CLI::App& sweep, Action& action);
void add_sweep_threads_command(CLI::App& sweep, Action& action);
void add_sweep_workers_command(CLI::App& sweep, Action& action);
void add_sweep_crossover_command(CLI::App& sweep, Action& action);

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
