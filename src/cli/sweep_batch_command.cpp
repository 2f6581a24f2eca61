// accelbench sweep batch: throughput and memory against batch size, up to the largest batch that
// fits (doubling, then a bisection after the first out-of-memory), each point in a child process
// by default. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/durations.h"
#include "core/errors.h"
#include "device/device.h"
#include "device/memory_limit.h"
#include "engine/sweep_logic.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {

struct SweepBatchOptions {
  SweepCommonOptions common;
  std::int64_t from = kSweepDefaultFrom;
  std::int64_t to = 0;  // 0: the default end (kSweepDefaultEndCpu / kSweepDefaultEndAccelerator)
  bool no_isolate = false;
  std::string memory_limit;
};

PointOutcome classify(const CaseResult& r) {
  if (r.status == "ok") return PointOutcome::fit;
  if (r.error.rfind("out of memory", 0) == 0) return PointOutcome::out_of_memory;
  return PointOutcome::failed;
}

std::string outcome_name(PointOutcome o) {
  switch (o) {
    case PointOutcome::fit: return "ok";
    case PointOutcome::out_of_memory: return "out of memory";
    case PointOutcome::failed: return "failed";
  }
  return "failed";
}

std::optional<std::int64_t> opt_json(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<std::int64_t>();
}

struct SweepPoint {
  std::int64_t batch = 0;
  PointOutcome outcome = PointOutcome::failed;
  std::string phase;  // "doubling" | "bisection"
};

nlohmann::json sweep_block(const SweepBatchOptions& o, const SweepSetup& s, std::int64_t to, bool to_default,
                           std::uint64_t memory_limit, const BatchSweepPlanner& planner, const std::vector<SweepPoint>& points,
                           const std::vector<CaseResult>& cases) {
  auto opt = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  std::vector<ThroughputPoint> ok;
  nlohmann::json pts = nlohmann::json::array();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& c = cases[i];
    nlohmann::json p{{"batch", points[i].batch}, {"outcome", outcome_name(points[i].outcome)}, {"phase", points[i].phase},
                     {"case_index", i}};
    if (points[i].outcome == PointOutcome::fit) {
      p["samples_per_s"] = c.samples_per_s;
      ok.push_back({points[i].batch, c.samples_per_s});
    } else {
      p["error"] = c.error;
    }
    pts.push_back(p);
  }
  const auto knee = find_knee(ok);
  nlohmann::json best = nullptr, best_sps = nullptr;
  for (const auto& p : ok)
    if (best_sps.is_null() || p.samples_per_s > best_sps.get<double>()) {
      best = p.batch;
      best_sps = p.samples_per_s;
    }
  nlohmann::json bisection = nullptr;
  if (planner.resolution())
    bisection = {{"low", *planner.bisection_low()}, {"high", *planner.bisection_high()}, {"resolution", *planner.resolution()}};
  return {{"kind", "batch"},
          {"model", o.common.model},
          {"device", s.device_id},
          {"dtype", s.dtype},
          {"width", o.common.width},
          {"checkpoint", o.common.checkpoint},
          {"from", o.from},
          {"to", to},
          {"to_default", to_default},
          {"isolated", !o.no_isolate},
          {"memory_limit_bytes", memory_limit ? nlohmann::json(memory_limit) : nlohmann::json(nullptr)},
          {"knee_tolerance", kKneeTolerance},
          {"points", pts},
          {"knee", opt(knee)},
          {"best_batch", best},
          {"best_samples_per_s", best_sps},
          {"largest_fit", opt(planner.largest_fit())},
          {"first_oom", opt(planner.first_oom())},
          {"smallest_oom", opt(planner.smallest_oom())},
          {"bisection", bisection},
          {"finished", false}};
}

std::string render_sweep_report(const RunResult& run, const nlohmann::json& sweep) {
  const CaseSpec label_spec{sweep["model"].get<std::string>(), "", "", 0, 0, sweep.value("width", std::int64_t{0}),
                            sweep.value("checkpoint", false)};
  std::string out = sweep_report_header(
      run, fmt::format("batch sweep: {} on {} ({}), batches {}..{}{}{}", model_label(label_spec),
                       sweep["device"].get<std::string>(), sweep["dtype"].get<std::string>(), sweep["from"].get<std::int64_t>(),
                       sweep["to"].get<std::int64_t>(), sweep["isolated"].get<bool>() ? ", each point in a child process" : "",
                       sweep["memory_limit_bytes"].is_null()
                           ? ""
                           : fmt::format(", memory limited to {}", format_bytes(sweep["memory_limit_bytes"].get<double>()))));
  std::vector<std::size_t> order(run.cases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return run.cases[a].spec.batch_size < run.cases[b].spec.batch_size; });
  std::vector<std::vector<std::string>> t{{"batch", "samples/s [95% CI]", "median step", "peak memory", "status"}};
  const auto& pts = sweep["points"];
  for (auto i : order) {
    const auto& c = run.cases[i];
    std::string status = status_cell(c);
    if (i < pts.size() && pts[i]["phase"] == "bisection") status += " (bisection)";
    t.push_back({std::to_string(c.spec.batch_size), throughput_with_ci(c),
                 c.status == "ok" ? format_seconds_short(c.stats.median) : "-", c.status == "ok" ? peak_memory(c) : "-", status});
  }
  out += render_table(t, 0) + "\n";
  if (!sweep["knee"].is_null())
    out += fmt::format("knee: batch {} (the smallest batch within {:.0f}% of the best throughput, {} samples/s at batch {})\n",
                       sweep["knee"].get<std::int64_t>(), 100 * kKneeTolerance,
                       format_count(sweep["best_samples_per_s"].get<double>()), sweep["best_batch"].get<std::int64_t>());
  else
    out += "knee: none (no point ran)\n";
  const auto largest = opt_json(sweep["largest_fit"]);
  const auto first_oom = opt_json(sweep["first_oom"]);
  if (first_oom) {
    const auto& b = sweep["bisection"];
    out += fmt::format("largest batch that fits: {} (first out of memory: OOM at {}; bisection between {} and {} to a resolution of {})\n",
                       largest ? std::to_string(*largest) : "none", *first_oom, b["low"].get<std::int64_t>(),
                       b["high"].get<std::int64_t>(), b["resolution"].get<std::int64_t>());
  } else if (largest && *largest == sweep["to"].get<std::int64_t>()) {
    out += fmt::format("largest batch that fits: {} or more (no out-of-memory up to {}, the end of the range{})\n", *largest,
                       sweep["to"].get<std::int64_t>(), sweep["to_default"].get<bool>() ? ", by default" : "");
  } else if (largest) {
    out += fmt::format("largest batch that ran: {} (no out-of-memory up to {}; the larger points failed, see their status)\n",
                       *largest, sweep["to"].get<std::int64_t>());
  } else {
    out += "largest batch that fits: none (no point ran)\n";
  }
  return out;
}

int execute_sweep_batch(const SweepBatchOptions& o, const CLI::App& cmd) {
  // Validate everything before measuring anything.
  if (o.from < 1) throw UsageError(fmt::format("--from must be at least 1 (got {})", o.from));
  if (cmd.count("--to") && o.to < 1) throw UsageError(fmt::format("--to must be at least 1 (got {})", o.to));
  if (cmd.count("--to") && o.from > o.to) throw UsageError(fmt::format("--from {} is larger than --to {}", o.from, o.to));
  const unsigned set = kSweepDeviceOption | kSweepDtypeOption | kSweepThreadsOption;
  auto s = prepare_sweep(o.common, cmd, set, "batch");
  std::uint64_t memory_limit = 0;
  if (!o.memory_limit.empty()) {
    memory_limit = parse_memory_size(o.memory_limit);
    check_memory_limit(s.device->description(), memory_limit);
  }
  const bool to_default = cmd.count("--to") == 0;
  const std::int64_t to =
      to_default ? std::max(o.from, s.device->is_cpu() ? kSweepDefaultEndCpu : kSweepDefaultEndAccelerator) : o.to;
  if (o.no_isolate && memory_limit) apply_memory_limit(*s.device, memory_limit);  // this process measures

  s.settings["from"] = o.from;
  s.settings["to"] = to;
  s.settings["isolate"] = !o.no_isolate;
  s.settings["memory_limit_bytes"] = memory_limit ? nlohmann::json(memory_limit) : nlohmann::json(nullptr);
  SweepRecord record("sweep batch", s.settings, o.common.json_path);
  std::fprintf(stderr, "accelbench: batch sweep of %s on %s (%s): doubling from %lld to %lld%s, %s, CI target +-%.1f%%%s\n",
               o.common.model.c_str(), s.device_id.c_str(), s.dtype.c_str(), static_cast<long long>(o.from),
               static_cast<long long>(to), to_default ? " (the default end)" : "",
               s.budget_s > 0 ? fmt::format("time budget {} (at most {} a point)", format_duration(s.budget_s),
                                            format_duration(s.max_per_point_s)).c_str()
                              : fmt::format("at most {} a point", format_duration(s.max_per_point_s)).c_str(),
               100 * s.measure.stopping.ci_target, o.no_isolate ? ", in this process" : ", each point in a child process");

  std::optional<ScratchDir> scratch;
  if (!o.no_isolate) scratch.emplace();
  BatchSweepPlanner planner(o.from, to);
  std::vector<SweepPoint> points;
  double spent = 0;
  auto mo = s.measure;
  while (const auto batch = planner.next()) {
    CaseSpec spec = base_spec(o.common, s);
    spec.batch_size = *batch;
    mo.stopping.max_time_s = point_allowance(s, spent, planner.remaining_estimate());
    const std::string phase = planner.bisecting() ? "bisection" : "doubling";
    std::fprintf(stderr, "accelbench: [%zu] batch %lld (%s)...\n", points.size() + 1, static_cast<long long>(*batch), phase.c_str());
    CaseResult result = o.no_isolate ? measure_case(spec, *s.workload, *s.device, mo)
                                     : measure_isolated(spec, mo, memory_limit, *scratch, points.size());
    spent += result.wall_s;
    const auto outcome = classify(result);
    planner.record(*batch, outcome);
    if (outcome == PointOutcome::fit)
      std::fprintf(stderr, "accelbench: [%zu] batch %lld: %s samples/s, median step %s, peak %s (%s)\n", points.size() + 1,
                   static_cast<long long>(*batch), throughput_with_ci(result).c_str(),
                   format_seconds_short(result.stats.median).c_str(), peak_memory(result).c_str(),
                   format_duration(result.wall_s).c_str());
    else if (outcome == PointOutcome::out_of_memory)
      std::fprintf(stderr, "accelbench: [%zu] batch %lld: OOM at %lld: %s\n", points.size() + 1, static_cast<long long>(*batch),
                   static_cast<long long>(*batch), result.error.c_str());
    else
      std::fprintf(stderr, "accelbench: [%zu] batch %lld failed: %s\n", points.size() + 1, static_cast<long long>(*batch),
                   result.error.c_str());
    points.push_back({*batch, outcome, phase});
    record.add(std::move(result), [&](const RunResult& run) {
      return sweep_block(o, s, to, to_default, memory_limit, planner, points, run.cases);
    });
  }
  const auto doc = record.finish(sweep_block(o, s, to, to_default, memory_limit, planner, points, record.run().cases), s.store.get());
  print_sweep_report(record, doc, render_sweep_report(record.run(), doc["sweep"]), o.common.json_path);
  const bool any_failed = std::any_of(points.begin(), points.end(), [](const SweepPoint& p) { return p.outcome == PointOutcome::failed; });
  return any_failed || !planner.largest_fit() ? 1 : 0;
}

}  // namespace

void add_sweep_batch_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepBatchOptions>();
  auto* cmd = sweep.add_subcommand(
      "batch", "Throughput and peak memory against batch size: doubling from --from, then a bisection after the first "
               "out-of-memory to find the largest batch that fits; the knee");
  add_common_sweep_options(cmd, o->common, kSweepDeviceOption | kSweepDtypeOption | kSweepThreadsOption);
  cmd->add_option("--from", o->from, "First batch size of the doubling")->capture_default_str();
  cmd->add_option("--to", o->to,
                  fmt::format("Last batch size (default {} on an accelerator, {} on the CPU, which may never run out)",
                              kSweepDefaultEndAccelerator, kSweepDefaultEndCpu));
  cmd->add_flag("--no-isolate", o->no_isolate,
                "Measure every point in this process (default: each in a child process, so that a crash ends only that point)");
  cmd->add_option("--memory-limit", o->memory_limit,
                  "Cap the accelerator's memory to emulate a smaller device, e.g. 16GiB (CUDA, MPS; not the CPU)");
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() { return execute_sweep_batch(*o, *cmd); }; });
}

}  // namespace accelbench
