// accelbench sweep threads: CPU training throughput against intra-op threads (1, 2, 4, ... up to
// --max-threads), the speed-up over one thread and the parallel efficiency, and the fewest threads
// within 5% of the best. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/durations.h"
#include "core/errors.h"
#include "core/stats.h"
#include "core/system_info.h"
#include "device/device.h"
#include "engine/sweep_logic.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {

struct SweepThreadsOptions {
  SweepCommonOptions common;
  int max_threads = 0;  // 0: torch's default (one per physical core)
};

nlohmann::json sweep_block(const SweepThreadsOptions& o, const SweepSetup& s, const std::vector<int>& threads,
                           const RunResult& run) {
  nlohmann::json pts = nlohmann::json::array();
  std::vector<ThroughputPoint> ok;
  const CaseResult* one = nullptr;
  for (const auto& c : run.cases)
    if (c.spec.threads == 1 && c.status == "ok" && !c.samples.empty()) one = &c;
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    const auto& c = run.cases[i];
    nlohmann::json p{{"threads", threads[i]}, {"outcome", c.status == "ok" ? "ok" : "failed"}, {"error", c.error}, {"case_index", i}};
    if (c.status == "ok" && !c.samples.empty()) {
      p["samples_per_s"] = c.samples_per_s;
      ok.push_back({threads[i], c.samples_per_s});
      if (one) {
        const auto r = ratio_of_medians(one->samples, c.samples);
        p["speedup"] = {{"ratio", r.ratio}, {"low", r.low}, {"high", r.high}};
        p["efficiency"] = r.ratio / threads[i];
      }
    }
    pts.push_back(p);
  }
  const auto best = find_knee(ok);
  nlohmann::json best_sps = nullptr;
  for (const auto& p : ok)
    if (best_sps.is_null() || p.samples_per_s > best_sps.get<double>()) best_sps = p.samples_per_s;
  return {{"kind", "threads"},
          {"model", o.common.model},
          {"device", "cpu"},
          {"dtype", s.dtype},
          {"batch", o.common.batch_size},
          {"width", o.common.width},
          {"checkpoint", o.common.checkpoint},
          {"points", pts},
          {"tolerance", kKneeTolerance},
          {"best_threads", best ? nlohmann::json(*best) : nlohmann::json(nullptr)},
          {"best_samples_per_s", best_sps},
          {"finished", false}};
}

int execute_sweep_threads(const SweepThreadsOptions& o, const CLI::App& cmd) {
  if (cmd.count("--max-threads") && o.max_threads < 1)
    throw UsageError(fmt::format("--max-threads must be at least 1 (got {})", o.max_threads));
  auto s = prepare_sweep(o.common, cmd, kSweepBatchOption | kSweepDtypeOption, "threads");
  s.device = open_device("cpu");
  s.device_id = "cpu";
  const int max_threads = o.max_threads > 0 ? o.max_threads : at::get_num_threads();
  const auto threads = thread_points(max_threads);
  s.settings["devices"] = {"cpu"};
  s.settings["thread_points"] = threads;
  SweepRecord record("sweep threads", s.settings, o.common.json_path);
  const auto info = read_host_info();
  std::fprintf(stderr, "accelbench: threads sweep of %s on the CPU (%d physical, %d logical cores) at batch %lld: %s threads\n",
               o.common.model.c_str(), info.physical_cores, info.logical_cores, static_cast<long long>(o.common.batch_size),
               fmt::format("{}", fmt::join(threads, ", ")).c_str());
  if (max_threads > info.logical_cores && info.logical_cores > 0)
    std::fprintf(stderr, "accelbench: warning: %d threads on %d logical cores: the threads beyond them share cores\n",
                 max_threads, info.logical_cores);
  const int restore = at::get_num_threads();
  double spent = 0;
  auto mo = s.measure;
  int failures = 0;
  for (std::size_t i = 0; i < threads.size(); ++i) {
    CaseSpec spec = base_spec(o.common, s);
    spec.threads = threads[i];
    mo.stopping.max_time_s = point_allowance(s, spent, threads.size() - i);
    std::fprintf(stderr, "accelbench: [%zu] %d thread%s...\n", i + 1, threads[i], threads[i] == 1 ? "" : "s");
    auto result = measure_case(spec, *s.workload, *s.device, mo);
    spent += result.wall_s;
    if (result.status != "ok") ++failures;
    std::fprintf(stderr, "accelbench: [%zu] %d thread%s: %s samples/s%s\n", i + 1, threads[i], threads[i] == 1 ? "" : "s",
                 throughput_with_ci(result).c_str(), result.status == "ok" ? "" : (": " + result.error).c_str());
    record.add(std::move(result), [&](const RunResult& run) { return sweep_block(o, s, threads, run); });
  }
  at::set_num_threads(restore);
  const auto doc = record.finish(sweep_block(o, s, threads, record.run()), s.store.get());
  const auto& sweep = doc["sweep"];
  std::string out = sweep_report_header(record.run(), fmt::format("threads sweep: {} on the CPU ({}), batch {}", o.common.model,
                                                                  s.dtype, o.common.batch_size));
  std::vector<std::vector<std::string>> t{{"threads", "samples/s [95% CI]", "median step", "speed-up over 1 [95% CI]", "efficiency", "status"}};
  for (std::size_t i = 0; i < record.run().cases.size(); ++i) {
    const auto& c = record.run().cases[i];
    const auto& p = sweep["points"][i];
    t.push_back({std::to_string(threads[i]), throughput_with_ci(c), c.status == "ok" ? format_seconds_short(c.stats.median) : "-",
                 p.contains("speedup") ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]", p["speedup"]["ratio"].get<double>(),
                                                     p["speedup"]["low"].get<double>(), p["speedup"]["high"].get<double>())
                                       : "-",
                 p.contains("efficiency") ? fmt::format("{:.0f}%", 100 * p["efficiency"].get<double>()) : "-", status_cell(c)});
  }
  out += render_table(t, 0);
  out += "\nefficiency: the speed-up over one thread divided by the threads (100% = perfect scaling).\n";
  out += best_setting_line(sweep, "threads");
  print_sweep_report(record, doc, out, o.common.json_path);
  return failures ? 1 : 0;
}

}  // namespace

void add_sweep_threads_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepThreadsOptions>();
  auto* cmd = sweep.add_subcommand(
      "threads", "CPU training throughput against intra-op threads (1, 2, 4, ... --max-threads): speed-up over one thread, "
                 "efficiency, and the fewest threads within 5% of the best");
  add_common_sweep_options(cmd, o->common, kSweepBatchOption | kSweepDtypeOption);
  cmd->add_option("--max-threads", o->max_threads, "Most threads (default: torch's default, one per physical core)");
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() { return execute_sweep_threads(*o, *cmd); }; });
}

}  // namespace accelbench
