// accelbench sweep workers: training throughput against data-loader workers (0 = batches made in
// the training thread, then 1, 2, 4, ... --max-workers), with the data wait per step, beside the
// staged ceiling (batches already on the device: compute only). The fewest workers within 5% of
// the best. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/durations.h"
#include "core/errors.h"
#include "device/device.h"
#include "engine/sweep_logic.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {

constexpr int kStaged = -1;  // the point with the batches staged on the device (no pipeline)

struct SweepWorkersOptions {
  SweepCommonOptions common;
  int max_workers = 0;  // 0: min(8, logical cores)
};

nlohmann::json sweep_block(const SweepWorkersOptions& o, const SweepSetup& s, const std::vector<int>& workers,
                           const RunResult& run) {
  nlohmann::json pts = nlohmann::json::array();
  std::vector<ThroughputPoint> ok;
  nlohmann::json staged_sps = nullptr;
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    const auto& c = run.cases[i];
    nlohmann::json p{{"workers", workers[i] == kStaged ? nlohmann::json("staged") : nlohmann::json(workers[i])},
                     {"outcome", c.status == "ok" ? "ok" : "failed"}, {"error", c.error}, {"case_index", i}};
    if (c.status == "ok" && !c.samples.empty()) {
      p["samples_per_s"] = c.samples_per_s;
      if (workers[i] == kStaged) {
        staged_sps = c.samples_per_s;
      } else {
        p["data_wait_fraction"] = c.data_wait_fraction;
        p["input_bound"] = c.input_bound;
        ok.push_back({workers[i], c.samples_per_s});
      }
    }
    pts.push_back(p);
  }
  const auto best = find_knee(ok);
  nlohmann::json best_sps = nullptr;
  for (const auto& p : ok)
    if (best_sps.is_null() || p.samples_per_s > best_sps.get<double>()) best_sps = p.samples_per_s;
  return {{"kind", "workers"},
          {"model", o.common.model},
          {"device", s.device_id},
          {"dtype", s.dtype},
          {"batch", o.common.batch_size},
          {"width", o.common.width},
          {"checkpoint", o.common.checkpoint},
          {"points", pts},
          {"tolerance", kKneeTolerance},
          {"staged_samples_per_s", staged_sps},
          {"best_workers", best ? nlohmann::json(*best) : nlohmann::json(nullptr)},
          {"best_samples_per_s", best_sps},
          {"finished", false}};
}

int execute_sweep_workers(const SweepWorkersOptions& o, const CLI::App& cmd) {
  if (cmd.count("--max-workers") && (o.max_workers < 0 || o.max_workers > 256))
    throw UsageError(fmt::format("--max-workers must be in [0, 256] (got {})", o.max_workers));
  auto s = prepare_sweep(o.common, cmd, kSweepDeviceOption | kSweepBatchOption | kSweepDtypeOption | kSweepThreadsOption,
                         "workers");
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int max_workers = cmd.count("--max-workers") ? o.max_workers : std::min(8, hw);
  std::vector<int> workers{kStaged};
  for (int w : worker_points(max_workers)) workers.push_back(w);
  s.settings["max_workers"] = max_workers;
  SweepRecord record("sweep workers", s.settings, o.common.json_path);
  std::fprintf(stderr, "accelbench: workers sweep of %s on %s at batch %lld: staged, then %s workers\n", o.common.model.c_str(),
               s.device_id.c_str(), static_cast<long long>(o.common.batch_size),
               fmt::format("{}", fmt::join(worker_points(max_workers), ", ")).c_str());
  double spent = 0;
  auto mo = s.measure;
  int failures = 0;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    const CaseSpec spec = base_spec(o.common, s);
    mo.workers = workers[i];
    mo.stopping.max_time_s = point_allowance(s, spent, workers.size() - i);
    const std::string label = workers[i] == kStaged ? "staged" : fmt::format("{} worker{}", workers[i], workers[i] == 1 ? "" : "s");
    std::fprintf(stderr, "accelbench: [%zu] %s...\n", i + 1, label.c_str());
    auto result = measure_case(spec, *s.workload, *s.device, mo);
    spent += result.wall_s;
    if (result.status != "ok") ++failures;
    std::fprintf(stderr, "accelbench: [%zu] %s: %s samples/s%s\n", i + 1, label.c_str(), throughput_with_ci(result).c_str(),
                 result.status != "ok"    ? (": " + result.error).c_str()
                 : workers[i] == kStaged ? ""
                                         : fmt::format(", data wait {:.1f}% of the step", 100 * result.data_wait_fraction).c_str());
    record.add(std::move(result), [&](const RunResult& run) { return sweep_block(o, s, workers, run); });
  }
  const auto doc = record.finish(sweep_block(o, s, workers, record.run()), s.store.get());
  const auto& sweep = doc["sweep"];
  std::string out = sweep_report_header(
      record.run(), fmt::format("workers sweep: {} on {} ({}), batch {}", o.common.model, s.device_id, s.dtype, o.common.batch_size));
  std::vector<std::vector<std::string>> t{{"workers", "samples/s [95% CI]", "median step", "data wait", "status"}};
  for (std::size_t i = 0; i < record.run().cases.size(); ++i) {
    const auto& c = record.run().cases[i];
    const bool staged = workers[i] == kStaged;
    t.push_back({staged ? "staged" : std::to_string(workers[i]), throughput_with_ci(c),
                 c.status == "ok" ? format_seconds_short(c.stats.median) : "-",
                 staged || c.status != "ok" ? "-" : fmt::format("{:.1f}%{}", 100 * c.data_wait_fraction, c.input_bound ? " (input-bound)" : ""),
                 status_cell(c)});
  }
  out += render_table(t, 0);
  out += "\nstaged: batches placed on the device before timing (compute only, the ceiling); 0 workers: each batch is made "
         "in the training thread when needed; data wait: the share of each step spent waiting for input.\n";
  out += best_setting_line(sweep, "workers");
  print_sweep_report(record, doc, out, o.common.json_path);
  return failures ? 1 : 0;
}

}  // namespace

void add_sweep_workers_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepWorkersOptions>();
  auto* cmd = sweep.add_subcommand(
      "workers", "Training throughput against data-loader workers (0, 1, 2, 4, ... --max-workers) with the data wait per "
                 "step, beside batches staged on the device; the fewest workers within 5% of the best");
  add_common_sweep_options(cmd, o->common, kSweepDeviceOption | kSweepBatchOption | kSweepDtypeOption | kSweepThreadsOption);
  cmd->add_option("--max-workers", o->max_workers, "Most loader workers (default: 8 or the logical cores, the fewer)");
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() { return execute_sweep_workers(*o, *cmd); }; });
}

}  // namespace accelbench
