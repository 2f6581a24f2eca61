// accelbench sweep crossover: where an accelerator overtakes the CPU. For a workload, the speed-up
// (CPU median / accelerator median, 95% bootstrap CI) over batch sizes, or for the mlp over hidden
// widths (--axis width), and the smallest value from which the accelerator stays ahead. This
// answers the article's "the MLP is only 1.09x faster". docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/durations.h"
#include "core/errors.h"
#include "core/stats.h"
#include "device/device.h"
#include "engine/sweep_logic.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {

struct SweepCrossoverOptions {
  SweepCommonOptions common;
  std::string axis = "batch";
  std::int64_t from = 8;
  std::int64_t to = 2048;
  std::string widths = "64,128,256,512,1024,2048,4096,8192";
};

struct CrossPoint {
  std::int64_t x = 0;
  std::size_t device_case = 0, cpu_case = 0;
  std::optional<RatioEstimate> speedup;
};

std::vector<std::int64_t> parse_widths(const std::string& text) {
  std::vector<std::int64_t> out;
  std::string rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    if (item.empty()) continue;
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

nlohmann::json sweep_block(const SweepCrossoverOptions& o, const SweepSetup& s, const std::vector<CrossPoint>& points) {
  nlohmann::json pts = nlohmann::json::array();
  std::vector<SpeedupPoint> sp;
  for (const auto& p : points) {
    nlohmann::json j{{"x", p.x}, {"device_case_index", p.device_case}, {"cpu_case_index", p.cpu_case}};
    j["speedup"] = p.speedup ? nlohmann::json{{"ratio", p.speedup->ratio}, {"low", p.speedup->low}, {"high", p.speedup->high}}
                             : nlohmann::json(nullptr);
    if (p.speedup) sp.push_back({p.x, p.speedup->ratio, p.speedup->low, p.speedup->high});
    pts.push_back(j);
  }
  const auto c = find_crossover(sp);
  const char* kinds[] = {"accelerator_always", "crosses", "cpu_always", "never", "none"};
  auto opt = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"kind", "crossover"},
          {"axis", o.axis},
          {"model", o.common.model},
          {"device", s.device_id},
          {"baseline_device", "cpu"},
          {"dtype", s.dtype},
          {"batch", o.axis == "width" ? nlohmann::json(o.common.batch_size) : nlohmann::json(nullptr)},
          {"width", o.common.width},
          {"points", pts},
          {"crossover",
           {{"kind", kinds[static_cast<int>(c.kind)]}, {"at", opt(c.at)}, {"cpu_until", opt(c.cpu_until)},
            {"text", describe_crossover(c, o.axis)}}},
          {"finished", false}};
}

int execute_sweep_crossover(const SweepCrossoverOptions& o, const CLI::App& cmd) {
  if (o.axis != "batch" && o.axis != "width")
    throw UsageError(fmt::format("--axis must be batch or width (got '{}')", o.axis));
  if (o.axis == "batch") {
    if (o.from < 1) throw UsageError(fmt::format("--from must be at least 1 (got {})", o.from));
    if (o.to < o.from) throw UsageError(fmt::format("--from {} is larger than --to {}", o.from, o.to));
    if (cmd.count("--widths")) throw UsageError("--widths needs --axis width");
  } else if (cmd.count("--from") || cmd.count("--to")) {
    throw UsageError("--from and --to are batch sizes: with --axis width, give --widths and --batch-size");
  }
  const auto widths = o.axis == "width" ? parse_widths(o.widths) : std::vector<std::int64_t>{};
  auto s = prepare_sweep(o.common, cmd, kSweepDeviceOption | kSweepBatchOption | kSweepDtypeOption | kSweepThreadsOption,
                         "crossover");
  if (s.device->is_cpu())
    throw UsageError("sweep crossover compares an accelerator with the CPU: --device must be an accelerator (cuda, mps), not cpu");
  if (o.axis == "width") {
    if (!s.workload->info().has_width)
      throw UsageError(fmt::format("--axis width needs a workload with a width (mlp), not {}", o.common.model));
    if (cmd.count("--width")) throw UsageError("--axis width sweeps the width: give --widths, not --width");
  }
  auto cpu = open_device("cpu");
  const auto xs = o.axis == "batch" ? doubling_points(o.from, o.to) : widths;
  s.settings["devices"] = {s.device_id, "cpu"};
  s.settings["axis"] = o.axis;
  s.settings["points"] = xs;
  SweepRecord record("sweep crossover", s.settings, o.common.json_path);
  std::fprintf(stderr, "accelbench: crossover of %s: %s against the CPU over %s %s\n", o.common.model.c_str(), s.device_id.c_str(),
               o.axis.c_str(), fmt::format("{}", fmt::join(xs, ", ")).c_str());
  std::vector<CrossPoint> points;
  double spent = 0;
  auto mo = s.measure;
  int failures = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    CaseSpec spec = base_spec(o.common, s);
    if (o.axis == "batch") spec.batch_size = xs[i];
    else spec.width = xs[i];
    CrossPoint p;
    p.x = xs[i];
    std::vector<CaseResult> pair;
    for (Device* d : {s.device.get(), cpu.get()}) {
      spec.device = d->id();
      mo.stopping.max_time_s = point_allowance(s, spent, 2 * (xs.size() - i) - pair.size());
      std::fprintf(stderr, "accelbench: [%zu] %s %lld on %s...\n", i + 1, o.axis.c_str(), static_cast<long long>(xs[i]),
                   spec.device.c_str());
      auto result = measure_case(spec, *s.workload, *d, mo);
      spent += result.wall_s;
      if (result.status != "ok") {
        ++failures;
        std::fprintf(stderr, "accelbench: [%zu] %s on %s failed: %s\n", i + 1, o.axis.c_str(), spec.device.c_str(), result.error.c_str());
      }
      pair.push_back(std::move(result));
    }
    if (pair[0].status == "ok" && pair[1].status == "ok" && !pair[0].samples.empty() && !pair[1].samples.empty())
      p.speedup = ratio_of_medians(pair[1].samples, pair[0].samples);
    if (p.speedup)
      std::fprintf(stderr, "accelbench: [%zu] %s %lld: %s is %.2fx [%.2f, %.2f] the CPU's speed\n", i + 1, o.axis.c_str(),
                   static_cast<long long>(xs[i]), s.device_id.c_str(), p.speedup->ratio, p.speedup->low, p.speedup->high);
    p.device_case = record.run().cases.size();
    p.cpu_case = p.device_case + 1;
    points.push_back(p);
    const auto block = [&](const RunResult&) { return sweep_block(o, s, points); };
    record.add(std::move(pair[0]), block);
    record.add(std::move(pair[1]), block);
  }
  record.run().speedups = compute_speedups(record.run().cases);
  const auto doc = record.finish(sweep_block(o, s, points), s.store.get());
  const auto& sweep = doc["sweep"];
  const auto& run = record.run();
  std::string out = sweep_report_header(
      run, fmt::format("crossover: {} on {} against the CPU ({}), over {}{}", o.common.model, s.device_id, s.dtype,
                       o.axis == "batch" ? "batch sizes" : "hidden widths",
                       o.axis == "width" ? fmt::format(" at batch {}", o.common.batch_size) : std::string()));
  std::vector<std::vector<std::string>> t{
      {o.axis, fmt::format("{} samples/s [95% CI]", s.device_id), "cpu samples/s [95% CI]", "speed-up [95% CI]", "status"}};
  for (const auto& p : points) {
    const auto& d = run.cases[p.device_case];
    const auto& c = run.cases[p.cpu_case];
    std::string status = d.status != "ok" ? s.device_id + ": " + status_cell(d) : c.status != "ok" ? "cpu: " + status_cell(c) : "ok";
    if (p.speedup) status = p.speedup->low > 1 ? "accelerator faster" : p.speedup->high < 1 ? "CPU faster" : "within the noise";
    t.push_back({std::to_string(p.x), throughput_with_ci(d), throughput_with_ci(c),
                 p.speedup ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]", p.speedup->ratio, p.speedup->low, p.speedup->high) : "-",
                 status});
  }
  out += render_table(t, 0);
  out += "\ncrossover: " + sweep["crossover"]["text"].get<std::string>() + "\n";
  print_sweep_report(record, doc, out, o.common.json_path);
  return failures ? 1 : 0;
}

}  // namespace

void add_sweep_crossover_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepCrossoverOptions>();
  auto* cmd = sweep.add_subcommand(
      "crossover", "Where an accelerator overtakes the CPU: the speed-up with its CI over batch sizes (or mlp widths, "
                   "--axis width), and the smallest value from which the accelerator stays ahead");
  add_common_sweep_options(cmd, o->common, kSweepDeviceOption | kSweepBatchOption | kSweepDtypeOption | kSweepThreadsOption);
  cmd->add_option("--axis", o->axis, "batch (batch sizes --from..--to, doubling) or width (mlp hidden widths --widths)")
      ->capture_default_str();
  cmd->add_option("--from", o->from, "First batch size (--axis batch)")->capture_default_str();
  cmd->add_option("--to", o->to, "Last batch size (--axis batch)")->capture_default_str();
  cmd->add_option("--widths", o->widths, "Comma-separated hidden widths (--axis width, mlp)")->capture_default_str();
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() { return execute_sweep_crossover(*o, *cmd); }; });
}

}  // namespace accelbench
