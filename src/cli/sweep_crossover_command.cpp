// accelbench sweep crossover: where an accelerator overtakes the CPU. For a workload, the speed-up
// (CPU median / accelerator median, 95% bootstrap CI) over batch sizes, or for the mlp over hidden
// widths (--axis width), and the smallest value from which the accelerator stays ahead. This
// answers the article's "the MLP is only 1.09x faster". The loop: drivers/crossover_sweep.cpp.
// docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/errors.h"
#include "drivers/crossover_sweep.h"
#include "engine/engine.h"

namespace accelbench {

namespace {
constexpr unsigned kSweepCrossoverOptions =
    kSweepDeviceOption | kSweepBatchOption | kSweepDtypeOption | kSweepThreadsOption | kSweepPythonOption;

struct SweepCrossoverOptions {
  SweepCommonOptions common;
  std::string axis = "batch";
  std::int64_t from = 8;
  std::int64_t to = 2048;
  std::string widths = "64,128,256,512,1024,2048,4096,8192";
};

std::vector<std::int64_t> parse_widths(const std::string& text) {
  std::vector<std::int64_t> out;
  for (const auto& item : split_list(text)) {
    std::int64_t v = 0;
    try {
      std::size_t used = 0;
      v = std::stoll(item, &used);
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--widths: '{}' is not a whole number", item));
    }
    if (v < 1) throw UsageError(fmt::format("--widths: a width must be at least 1 (got {})", v));
    out.push_back(v);
  }
  if (out.empty()) throw UsageError("--widths is empty");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int execute_sweep_crossover(const SweepCrossoverOptions& o, const CLI::App& cmd) {
  if (o.axis != "batch" && o.axis != "width") throw UsageError(fmt::format("--axis must be batch or width (got '{}')", o.axis));
  if (o.axis == "batch") {
    if (o.from < 1) throw UsageError(fmt::format("--from must be at least 1 (got {})", o.from));
    if (o.to < o.from) throw UsageError(fmt::format("--from {} is larger than --to {}", o.from, o.to));
    if (cmd.count("--widths")) throw UsageError("--widths needs --axis width");
  } else if (cmd.count("--from") || cmd.count("--to")) {
    throw UsageError("--from and --to are batch sizes: with --axis width, give --widths and --batch-size");
  }
  const auto widths = o.axis == "width" ? parse_widths(o.widths) : std::vector<std::int64_t>{};
  auto s = prepare_sweep(o.common, cmd, kSweepCrossoverOptions,
                         "crossover");
  if (engine::is_cpu(s.base.device))
    throw UsageError("sweep crossover compares an accelerator with the CPU: --device must be an accelerator (cuda, mps), not cpu");
  if (o.axis == "width") {
    if (!engine::workload_has_width(o.common.model))
      throw UsageError(fmt::format("--axis width needs a workload with a width (mlp), not {}", o.common.model));
    if (cmd.count("--width")) throw UsageError("--axis width sweeps the width: give --widths, not --width");
  }
  CrossoverSweepRequest r;
  r.base = s.base;
  r.options = s.measure;
  r.axis = o.axis;
  r.points = o.axis == "batch" ? doubling_points(o.from, o.to) : widths;
  s.settings["devices"] = {r.base.device, "cpu"};
  s.settings["axis"] = o.axis;
  s.settings["points"] = r.points;
  return run_crossover_sweep(r, sweep_environment(s, "sweep crossover")).exit_code;
}

}  // namespace

void add_sweep_crossover_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepCrossoverOptions>();
  auto* cmd = sweep.add_subcommand(
      "crossover", "Where an accelerator overtakes the CPU: the speed-up with its CI over batch sizes (or mlp widths, "
                   "--axis width), and the smallest value from which the accelerator stays ahead");
  add_common_sweep_options(cmd, o->common, kSweepCrossoverOptions);
  cmd->add_option("--axis", o->axis, "batch (batch sizes --from..--to, doubling) or width (mlp hidden widths --widths)")
      ->capture_default_str();
  cmd->add_option("--from", o->from, "First batch size (--axis batch)")->capture_default_str();
  cmd->add_option("--to", o->to, "Last batch size (--axis batch)")->capture_default_str();
  cmd->add_option("--widths", o->widths, "Comma-separated hidden widths (--axis width, mlp)")->capture_default_str();
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() {
      return sweep_each_device(o->common, true, [&]() { return execute_sweep_crossover(*o, *cmd); });
    }; });
}

}  // namespace accelbench
