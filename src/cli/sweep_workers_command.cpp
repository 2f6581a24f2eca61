// accelbench sweep workers: training throughput against data-loader workers (0 = batches made in
// the training thread, then 1, 2, 4, ... --max-workers), with the data wait per step, beside the
// staged ceiling (batches already on the device: compute only). The fewest workers within 5% of
// the best. The loop: drivers/setting_sweep.cpp. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/errors.h"
#include "drivers/setting_sweep.h"

namespace accelbench {

namespace {

struct SweepWorkersOptions {
  SweepCommonOptions common;
  int max_workers = 0;  // 0: min(8, logical cores)
};

int execute_sweep_workers(const SweepWorkersOptions& o, const CLI::App& cmd) {
  if (cmd.count("--max-workers") && (o.max_workers < 0 || o.max_workers > 256))
    throw UsageError(fmt::format("--max-workers must be in [0, 256] (got {})", o.max_workers));
  auto s = prepare_sweep(o.common, cmd, kSweepDeviceOption | kSweepBatchOption | kSweepDtypeOption | kSweepThreadsOption,
                         "workers");
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int max_workers = cmd.count("--max-workers") ? o.max_workers : std::min(8, hw);
  SettingSweepRequest r;
  r.kind = "workers";
  r.base = s.base;
  r.options = s.measure;
  r.settings = {kStagedWorkers};
  for (int w : worker_points(max_workers)) r.settings.push_back(w);
  s.settings["max_workers"] = max_workers;
  return run_setting_sweep(r, sweep_environment(s, "sweep workers")).exit_code;
}

}  // namespace

void add_sweep_workers_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepWorkersOptions>();
  auto* cmd = sweep.add_subcommand(
      "workers", "Training throughput against data-loader workers (0, 1, 2, 4, ... --max-workers) with the data wait per "
                 "step, beside batches staged on the device; the fewest workers within 5% of the best");
  add_common_sweep_options(cmd, o->common, kSweepDeviceOption | kSweepBatchOption | kSweepDtypeOption | kSweepThreadsOption);
  cmd->add_option("--max-workers", o->max_workers, "Most loader workers (default: 8 or the logical cores, the fewer)");
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() {
      return sweep_each_device(o->common, false, [&]() { return execute_sweep_workers(*o, *cmd); });
    }; });
}

}  // namespace accelbench
