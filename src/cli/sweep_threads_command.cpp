// accelbench sweep threads: CPU training throughput against intra-op threads (1, 2, 4, ... up to
// --max-threads), the speed-up over one thread and the parallel efficiency, and the fewest threads
// within 5% of the best. The loop: drivers/setting_sweep.cpp. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/sweep_common.h"
#include "core/errors.h"
#include "drivers/setting_sweep.h"
#include "engine/engine.h"

namespace accelbench {

namespace {
constexpr unsigned kSweepThreadsOptions = kSweepBatchOption | kSweepDtypeOption | kSweepPythonOption;

struct SweepThreadsOptions {
  SweepCommonOptions common;
  int max_threads = 0;  // 0: torch's default (one per physical core)
};

int execute_sweep_threads(const SweepThreadsOptions& o, const CLI::App& cmd) {
  if (cmd.count("--max-threads") && o.max_threads < 1)
    throw UsageError(fmt::format("--max-threads must be at least 1 (got {})", o.max_threads));
  check_threads(o.max_threads, "--max-threads");  // at most 4 per logical core
  auto s = prepare_sweep(o.common, cmd, kSweepThreadsOptions, "threads");
  SettingSweepRequest r;
  r.kind = "threads";
  r.base = s.base;
  r.base.device = "cpu";
  r.options = s.measure;
  r.settings = thread_points(o.max_threads > 0 ? o.max_threads : engine::host_threads());
  s.settings["devices"] = {"cpu"};
  s.settings["thread_points"] = r.settings;
  return run_setting_sweep(r, sweep_environment(s, "sweep threads")).exit_code;
}

}  // namespace

void add_sweep_threads_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepThreadsOptions>();
  auto* cmd = sweep.add_subcommand(
      "threads", "CPU training throughput against intra-op threads (1, 2, 4, ... --max-threads): speed-up over one thread, "
                 "efficiency, and the fewest threads within 5% of the best");
  add_common_sweep_options(cmd, o->common, kSweepThreadsOptions);
  cmd->add_option("--max-threads", o->max_threads, "Most threads (default: torch's default, one per physical core)");
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() { return execute_sweep_threads(*o, *cmd); }; });
}

}  // namespace accelbench
