// accelbench sweep batch: throughput and memory against batch size, up to the largest batch that
// fits (doubling, then a bisection after the first out-of-memory), each point in a child process
// by default. The loop: drivers/batch_sweep.cpp. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/sweep_common.h"
#include "core/errors.h"
#include "drivers/batch_sweep.h"
#include "drivers/isolated_measurer.h"
#include "engine/engine.h"

namespace accelbench {

namespace {
constexpr unsigned kSweepBatchOptions = kSweepDeviceOption | kSweepDtypeOption | kSweepThreadsOption | kSweepPythonOption;

struct SweepBatchOptions {
  SweepCommonOptions common;
  std::int64_t from = kSweepDefaultFrom;
  std::int64_t to = 0;  // 0: the default end (kSweepDefaultEndCpu / kSweepDefaultEndAccelerator)
  bool no_isolate = false;
  std::string memory_limit;
};

int execute_sweep_batch(const SweepBatchOptions& o, const CLI::App& cmd) {
  // Validate everything before measuring anything.
  check_batch_size(o.from, "--from");
  if (cmd.count("--to")) check_batch_size(o.to, "--to");
  if (cmd.count("--to") && o.from > o.to) throw UsageError(fmt::format("--from {} is larger than --to {}", o.from, o.to));
  auto s = prepare_sweep(o.common, cmd, kSweepBatchOptions, "batch");
  BatchSweepRequest r;
  r.base = s.base;
  r.options = s.measure;
  r.from = o.from;
  r.isolated = !o.no_isolate;
  if (!o.memory_limit.empty()) {
    try {
      r.memory_limit_bytes = parse_memory_size(o.memory_limit);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--memory-limit: {}", e.what()));
    }
    engine::check_memory_limit(r.base.device, r.memory_limit_bytes);
  }
  r.to_default = cmd.count("--to") == 0;
  r.to = r.to_default ? std::max(o.from, engine::is_cpu(r.base.device) ? kSweepDefaultEndCpu : kSweepDefaultEndAccelerator)
                      : o.to;
  if (r.isolated) s.measurer = std::make_unique<IsolatedMeasurer>(r.memory_limit_bytes);
  else if (r.memory_limit_bytes) engine::apply_memory_limit(r.base.device, r.memory_limit_bytes);  // this process measures

  s.settings["from"] = r.from;
  s.settings["to"] = r.to;
  s.settings["isolate"] = r.isolated;
  s.settings["memory_limit_bytes"] = r.memory_limit_bytes ? nlohmann::json(r.memory_limit_bytes) : nlohmann::json(nullptr);
  return run_batch_sweep(r, sweep_environment(s, "sweep batch")).exit_code;
}

}  // namespace

void add_sweep_batch_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepBatchOptions>();
  auto* cmd = sweep.add_subcommand(
      "batch", "Throughput and peak memory against batch size: doubling from --from, then a bisection after the first "
               "out-of-memory to find the largest batch that fits; the knee");
  add_common_sweep_options(cmd, o->common, kSweepBatchOptions);
  cmd->add_option("--from", o->from, "First batch size of the doubling")->capture_default_str();
  cmd->add_option("--to", o->to,
                  fmt::format("Last batch size (default {} on an accelerator, {} on the CPU, which may never run out)",
                              kSweepDefaultEndAccelerator, kSweepDefaultEndCpu));
  cmd->add_flag("--no-isolate", o->no_isolate,
                "Measure every point in this process (default: each in a child process, so that a crash ends only that point)");
  cmd->add_option("--memory-limit", o->memory_limit,
                  "Cap the accelerator's memory to emulate a smaller device, e.g. 16GiB (CUDA, MPS; not the CPU)");
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() {
      return sweep_each_device(o->common, false, [&]() { return execute_sweep_batch(*o, *cmd); });
    }; });
}

}  // namespace accelbench
