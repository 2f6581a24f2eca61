// accelbench sweep batch: throughput and memory against batch size, up to the largest batch that
// fits (doubling, then a bisection after the first out-of-memory), each point in a child process
// by default. And the hidden `_measure-case` sub-command that such a child runs. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "core/build_info.h"
#include "core/durations.h"
#include "core/errors.h"
#include "device/device.h"
#include "device/memory_limit.h"
#include "engine/child_process.h"
#include "engine/runner.h"
#include "engine/sweep_logic.h"
#include "engine/torch_info.h"
#include "optim/autocast.h"
#include "report/json_report.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {

constexpr const char* kMeasureCaseCommand = "_measure-case";

struct SweepBatchOptions {
  std::string model;
  std::string device;
  std::int64_t from = kSweepDefaultFrom;
  std::int64_t to = 0;  // 0: the default end (kSweepDefaultEndCpu / kSweepDefaultEndAccelerator)
  std::string dtype = "float32";
  int threads = 0;
  double ci_target = 0.02;
  std::size_t min_samples = 10;
  std::string min_time = "0.5s";
  std::string max_time_per_point = "1m";
  std::string budget = "5m";
  std::string min_sample_time = "1ms";
  bool no_isolate = false;
  std::string memory_limit;
  bool no_telemetry = false;
  bool synthetic = false;
  std::string data_dir;
  std::string variant;
  std::int64_t seq_len = 128;
  std::uint64_t seed = 0;
  std::string json_path;
  std::string db_path;
  bool no_save = false;
};

// ---- the request a child gets (argv) and the options it rebuilds ---------------------------------

nlohmann::json measure_options_json(const MeasureOptions& m) {
  return {{"ci_target", m.stopping.ci_target},
          {"confidence", m.stopping.confidence},
          {"min_samples", m.stopping.min_samples},
          {"min_time_s", m.stopping.min_time_s},
          {"max_time_s", m.stopping.max_time_s},
          {"min_sample_time_s", m.min_sample_time_s},
          {"max_warmup_fraction", m.max_warmup_fraction},
          {"min_warmup_steps", m.min_warmup_steps},
          {"floor_samples", m.floor_samples},
          {"variant", m.variant},
          {"seq_len", m.seq_len},
          {"telemetry", m.telemetry},
          {"telemetry_hz", m.telemetry_hz},
          {"epochs", m.epochs},
          {"seed", m.seed},
          {"use_real_data", m.use_real_data},
          {"data_dir", m.data_dir}};
}

MeasureOptions measure_options_from_json(const nlohmann::json& j) {
  MeasureOptions m;
  m.stopping.ci_target = j.at("ci_target").get<double>();
  m.stopping.confidence = j.at("confidence").get<double>();
  m.stopping.min_samples = j.at("min_samples").get<std::size_t>();
  m.stopping.min_time_s = j.at("min_time_s").get<double>();
  m.stopping.max_time_s = j.at("max_time_s").get<double>();
  m.min_sample_time_s = j.at("min_sample_time_s").get<double>();
  m.max_warmup_fraction = j.at("max_warmup_fraction").get<double>();
  m.min_warmup_steps = j.at("min_warmup_steps").get<std::size_t>();
  m.floor_samples = j.at("floor_samples").get<std::size_t>();
  m.variant = j.at("variant").get<std::string>();
  m.seq_len = j.at("seq_len").get<std::int64_t>();
  m.telemetry = j.at("telemetry").get<bool>();
  m.telemetry_hz = j.at("telemetry_hz").get<double>();
  m.epochs = j.at("epochs").get<int>();
  m.seed = j.at("seed").get<std::uint64_t>();
  m.use_real_data = j.at("use_real_data").get<bool>();
  m.data_dir = j.at("data_dir").get<std::string>();
  return m;
}

// A private temporary folder for the children's results, removed at the end.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "accelbench-sweep-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw UsageError(fmt::format("cannot create a temporary folder in {}", tmpl));
    path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One point in a child process: the same binary with `_measure-case`. A crash, an abort or a
// kill is recorded as the point's error; a point that overruns twice its time (plus two minutes
// for start-up and build) is killed.
CaseResult measure_isolated(const CaseSpec& spec, const MeasureOptions& mo, std::uint64_t memory_limit,
                            const ScratchDir& scratch, std::size_t index) {
  const auto out = (scratch.path / fmt::format("point-{}.json", index)).string();
  const auto err = (scratch.path / fmt::format("point-{}.stderr", index)).string();
  const nlohmann::json request{{"spec", spec}, {"measure", measure_options_json(mo)}, {"memory_limit_bytes", memory_limit}};
  const auto exe = self_executable_path();
  const double timeout = 2 * mo.stopping.max_time_s + 120;
  const auto outcome = run_child({exe, kMeasureCaseCommand, "--spec-json", request.dump(), "--out", out}, err, timeout);
  const auto child_err = slurp(err);
  if (!child_err.empty()) std::fputs(child_err.c_str(), stderr);  // the child's own messages, as they were
  CaseResult r;
  r.spec = spec;
  r.ci_target = mo.stopping.ci_target;
  r.wall_s = outcome.wall_s;
  if (outcome.exited && outcome.exit_code == 0) {
    try {
      r = nlohmann::json::parse(slurp(out)).get<CaseResult>();
      r.wall_s = std::max(r.wall_s, outcome.wall_s);  // start-up and build in the child count too
      return r;
    } catch (const std::exception& e) {
      r.status = "failed";
      r.error = fmt::format("the child's result could not be read: {}", e.what());
      return r;
    }
  }
  r.status = "failed";
  r.error = describe_child_failure(outcome);
  if (outcome.exited) {
    const auto last = last_line_of_file(err);
    r.error = "child " + r.error + (last.empty() ? "" : ": " + last);
  }
  return r;
}

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

std::string peak_memory(const CaseResult& c) {
  if (c.memory.peak_allocated_bytes) return format_bytes(static_cast<double>(*c.memory.peak_allocated_bytes));
  if (c.memory.allocated_bytes) return format_bytes(static_cast<double>(*c.memory.allocated_bytes)) + " (now)";
  if (c.memory.peak_rss_bytes) return format_bytes(static_cast<double>(*c.memory.peak_rss_bytes)) + " RSS";
  return "-";
}

std::string throughput_with_ci(const CaseResult& c) {
  if (c.status != "ok" || c.stats.median <= 0) return "-";
  const double b = static_cast<double>(c.spec.batch_size);
  const double lo = c.stats.ci_high > 0 ? b / c.stats.ci_high : 0, hi = c.stats.ci_low > 0 ? b / c.stats.ci_low : 0;
  return fmt::format("{} [{}, {}]{}", format_count(c.samples_per_s), format_count(lo), format_count(hi), c.noisy ? "~" : "");
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

nlohmann::json sweep_block(const SweepBatchOptions& o, const std::string& device, const std::string& dtype,
                           std::int64_t to, bool to_default, std::uint64_t memory_limit, const BatchSweepPlanner& planner,
                           const std::vector<SweepPoint>& points, const std::vector<CaseResult>& cases, bool finished) {
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
          {"model", o.model},
          {"device", device},
          {"dtype", dtype},
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
          {"finished", finished}};
}

std::string render_sweep_report(const RunResult& run, const nlohmann::json& sweep) {
  std::string out;
  const auto& ctx = run.context;
  out += fmt::format("accelbench {} ({}) | torch {} | {} | {} cores, {} threads\n", ctx.accelbench_version, ctx.git_commit,
                     ctx.torch_version, ctx.cpu_model.empty() ? "CPU" : ctx.cpu_model, ctx.physical_cores,
                     run.cases.empty() ? 0 : run.cases.front().spec.threads);
  out += fmt::format("batch sweep: {} on {} ({}), batches {}..{}{}{}\n\n", sweep["model"].get<std::string>(),
                     sweep["device"].get<std::string>(), sweep["dtype"].get<std::string>(), sweep["from"].get<std::int64_t>(),
                     sweep["to"].get<std::int64_t>(), sweep["isolated"].get<bool>() ? ", each point in a child process" : "",
                     sweep["memory_limit_bytes"].is_null()
                         ? ""
                         : fmt::format(", memory limited to {}", format_bytes(sweep["memory_limit_bytes"].get<double>())).c_str());
  std::vector<std::size_t> order(run.cases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return run.cases[a].spec.batch_size < run.cases[b].spec.batch_size; });
  std::vector<std::vector<std::string>> t{{"batch", "samples/s [95% CI]", "median step", "peak memory", "status"}};
  const auto& pts = sweep["points"];
  for (auto i : order) {
    const auto& c = run.cases[i];
    std::string status = c.status == "ok" ? "ok" : c.error;
    if (c.status != "ok" && status.rfind("out of memory", 0) == 0) status = fmt::format("OOM at {}", c.spec.batch_size);
    if (status.size() > 60) status = status.substr(0, 57) + "...";
    if (i < pts.size() && pts[i]["phase"] == "bisection") status += " (bisection)";
    t.push_back({std::to_string(c.spec.batch_size), throughput_with_ci(c),
                 c.status == "ok" ? format_seconds_short(c.stats.median) : "-", c.status == "ok" ? peak_memory(c) : "-", status});
  }
  out += render_table(t, 0);
  if (std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.noisy; }))
    out += "~ = noisy: CI target not met in the time allowed.\n";
  out += "\n";
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
  if (o.threads < 0) throw UsageError(fmt::format("--threads must be 0 (torch's default) or more (got {})", o.threads));
  if (!(o.ci_target > 0 && o.ci_target < 1))
    throw UsageError(fmt::format("--ci-target must be a fraction in (0, 1), e.g. 0.02 for +-2% (got {})", o.ci_target));
  if (o.min_samples < 1) throw UsageError("--min-samples must be at least 1");
  const double min_time = parse_duration_seconds(o.min_time);
  const double max_per_point = parse_duration_seconds(o.max_time_per_point);
  const double budget = o.budget == "none" ? 0 : parse_duration_seconds(o.budget);
  const double min_sample_time = parse_duration_seconds(o.min_sample_time);
  if (max_per_point <= 0) throw UsageError("--max-time-per-point must be positive");
  if (o.dtype.find(',') != std::string::npos)
    throw UsageError(fmt::format("--dtype takes one precision per sweep (got '{}')", o.dtype));
  const auto dtype = parse_precision(o.dtype).name;
  if (o.seq_len < 2 || o.seq_len > 512) throw UsageError(fmt::format("--seq-len must be in [2, 512] (got {})", o.seq_len));
  if (!o.data_dir.empty() && !std::filesystem::exists(o.data_dir))
    throw UsageError(fmt::format("--data-dir {} does not exist", o.data_dir));
  auto workload = make_workload(o.model);  // UsageError naming the models when unknown
  auto device = open_device(o.device);     // UsageError naming the devices when unknown
  const std::string device_id = device->id();
  std::uint64_t memory_limit = 0;
  if (!o.memory_limit.empty()) {
    memory_limit = parse_memory_size(o.memory_limit);
    check_memory_limit(device->description(), memory_limit);
  }
  const bool to_default = cmd.count("--to") == 0;
  const std::int64_t to = to_default ? std::max(o.from, device->is_cpu() ? kSweepDefaultEndCpu : kSweepDefaultEndAccelerator) : o.to;
  if (!o.json_path.empty()) {
    const auto parent = std::filesystem::absolute(o.json_path).parent_path();
    if (!std::filesystem::is_directory(parent) || ::access(parent.c_str(), W_OK) != 0)
      throw UsageError(fmt::format("cannot write --json {}: directory {} does not exist or is not writable", o.json_path,
                                   parent.string()));
  }
  {
    WorkloadOptions check;
    check.use_real_data = !o.synthetic;
    check.data_dir = o.data_dir;
    check.variant = o.variant;
    validate_workload_options(*workload, check);
  }
  if (o.no_isolate && memory_limit) apply_memory_limit(*device, memory_limit);  // this process measures

  std::unique_ptr<HistoryStore> store;
  if (!o.no_save) store = std::make_unique<HistoryStore>(o.db_path.empty() ? HistoryStore::default_path() : o.db_path);

  MeasureOptions mo;
  mo.stopping.ci_target = o.ci_target;
  mo.stopping.min_samples = o.min_samples;
  mo.stopping.min_time_s = min_time;
  mo.min_sample_time_s = min_sample_time;
  mo.variant = o.variant;
  mo.seq_len = o.seq_len;
  mo.telemetry = !o.no_telemetry;
  mo.seed = o.seed;
  mo.use_real_data = !o.synthetic;
  mo.data_dir = o.data_dir;

  nlohmann::json settings{{"sweep", "batch"},
                          {"models", nlohmann::json::array({o.model})},
                          {"devices", nlohmann::json::array({device_id})},
                          {"dtypes", nlohmann::json::array({dtype})},
                          {"from", o.from},
                          {"to", to},
                          {"threads", o.threads == 0 ? at::get_num_threads() : o.threads},
                          {"ci_target", mo.stopping.ci_target},
                          {"confidence", mo.stopping.confidence},
                          {"min_samples", mo.stopping.min_samples},
                          {"min_time_s", mo.stopping.min_time_s},
                          {"max_time_per_point_s", max_per_point},
                          {"budget_s", budget},
                          {"min_sample_time_s", mo.min_sample_time_s},
                          {"isolate", !o.no_isolate},
                          {"memory_limit_bytes", memory_limit ? nlohmann::json(memory_limit) : nlohmann::json(nullptr)},
                          {"variant", o.variant},
                          {"telemetry", !o.no_telemetry},
                          {"synthetic_forced", o.synthetic},
                          {"data_dir", o.data_dir},
                          {"seed", o.seed},
                          {"timing", "host steady_clock around K training steps, closed by a device synchronization"}};
  RunResult run;
  run.command = "sweep batch";
  run.context = collect_context(settings);
  for (const auto& w : run.context.warnings) std::fprintf(stderr, "accelbench: warning: %s\n", w.c_str());
  std::fprintf(stderr, "accelbench: batch sweep of %s on %s (%s): doubling from %lld to %lld%s, %s, CI target +-%.1f%%%s\n",
               o.model.c_str(), device_id.c_str(), dtype.c_str(), static_cast<long long>(o.from), static_cast<long long>(to),
               to_default ? " (the default end)" : "",
               budget > 0 ? fmt::format("time budget {} (at most {} a point)", format_duration(budget),
                                        format_duration(max_per_point)).c_str()
                          : fmt::format("at most {} a point", format_duration(max_per_point)).c_str(),
               100 * mo.stopping.ci_target, o.no_isolate ? ", in this process" : ", each point in a child process");

  std::optional<ScratchDir> scratch;
  if (!o.no_isolate) scratch.emplace();
  BatchSweepPlanner planner(o.from, to);
  std::vector<SweepPoint> points;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&]() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  double spent = 0;
  auto document = [&](bool finished) {
    nlohmann::json doc = run;
    doc["sweep"] = sweep_block(o, device_id, dtype, to, to_default, memory_limit, planner, points, run.cases, finished);
    return doc;
  };
  while (const auto batch = planner.next()) {
    const CaseSpec spec{o.model, device_id, dtype, *batch, o.threads};
    const double share = budget > 0 ? std::max(0.0, budget - spent) / static_cast<double>(std::max<std::size_t>(1, planner.remaining_estimate()))
                                    : max_per_point;
    mo.stopping.max_time_s = std::min(max_per_point, share);
    const std::string phase = planner.bisecting() ? "bisection" : "doubling";
    std::fprintf(stderr, "accelbench: [%zu] batch %lld (%s)...\n", points.size() + 1, static_cast<long long>(*batch), phase.c_str());
    CaseResult result = o.no_isolate ? measure_case(spec, *workload, *device, mo) : measure_isolated(spec, mo, memory_limit, *scratch, points.size());
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
    run.cases.push_back(std::move(result));
    run.wall_s = elapsed();
    if (!o.json_path.empty()) write_json_document(document(false), o.json_path);  // each point as soon as it is measured
  }
  run.wall_s = elapsed();
  const auto doc = document(true);
  if (!o.json_path.empty()) write_json_document(doc, o.json_path);
  if (store) {
    const auto ref = store->save_run(run, &doc);
    std::fprintf(stderr, "accelbench: stored as run %lld (uid %s) in %s\n", static_cast<long long>(ref.id), ref.uid.c_str(),
                 store->path().c_str());
  }
  std::cout << render_sweep_report(run, doc["sweep"]) << std::flush;
  std::fprintf(stderr, "accelbench: done in %s%s\n", format_duration(run.wall_s).c_str(),
               o.json_path.empty() ? "" : fmt::format(", results in {}", o.json_path).c_str());
  const bool any_failed = std::any_of(points.begin(), points.end(), [](const SweepPoint& p) { return p.outcome == PointOutcome::failed; });
  return any_failed || !planner.largest_fit() ? 1 : 0;
}

// The child's side: one case, its result written (atomically) as CaseResult JSON.
int execute_measure_case(const std::string& spec_json, const std::string& out_path) {
  nlohmann::json request;
  try {
    request = nlohmann::json::parse(spec_json);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(fmt::format("{}: --spec-json is not valid JSON (byte {})", kMeasureCaseCommand, e.byte));
  }
  CaseSpec spec;
  MeasureOptions mo;
  std::uint64_t memory_limit = 0;
  try {
    spec = request.at("spec").get<CaseSpec>();
    mo = measure_options_from_json(request.at("measure"));
    memory_limit = request.value("memory_limit_bytes", std::uint64_t{0});
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: bad request: {}", kMeasureCaseCommand, e.what()));
  }
  auto device = open_device(spec.device);
  if (memory_limit) apply_memory_limit(*device, memory_limit);
  auto workload = make_workload(spec.workload);
  const auto result = measure_case(spec, *workload, *device, mo);
  write_json_document(nlohmann::json(result), out_path);
  return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
  auto* sweep = app.add_subcommand("sweep", "Sweep a setting (batch size) and find the best value; see docs/sweeps.md");
  sweep->require_subcommand(1);

  auto o = std::make_shared<SweepBatchOptions>();
  auto* cmd = sweep->add_subcommand(
      "batch", "Throughput and peak memory against batch size: doubling from --from, then a bisection after the first "
               "out-of-memory to find the largest batch that fits; the knee");
  cmd->add_option("--model", o->model, "The workload: mlp, cnn, transformer, resnet18, bert-base, dcgan")->required();
  cmd->add_option("--device", o->device, "The device: cpu, cuda, cuda:1, mps")->required();
  cmd->add_option("--from", o->from, "First batch size of the doubling")->capture_default_str();
  cmd->add_option("--to", o->to,
                  fmt::format("Last batch size (default {} on an accelerator, {} on the CPU, which may never run out)",
                              kSweepDefaultEndAccelerator, kSweepDefaultEndCpu));
  cmd->add_option("--dtype", o->dtype, "One precision: float32, bfloat16 (autocast mixed precision)")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU intra-op threads (0: torch's default, one per core)")->capture_default_str();
  cmd->add_option("--ci-target", o->ci_target, "Stop a point when the median's 95% CI is within +-this fraction")
      ->capture_default_str();
  cmd->add_option("--min-samples", o->min_samples, "Minimum timed samples per point")->capture_default_str();
  cmd->add_option("--min-time", o->min_time, "Minimum sampling time per point")->capture_default_str();
  cmd->add_option("--max-time-per-point", o->max_time_per_point, "Most time one point may take (build, warm-up, sampling)")
      ->capture_default_str();
  cmd->add_option("--budget", o->budget, "Time budget shared among the points ('none' for no budget)")->capture_default_str();
  cmd->add_option("--min-sample-time", o->min_sample_time, "Group short steps so one sample lasts at least this")
      ->capture_default_str();
  cmd->add_flag("--no-isolate", o->no_isolate,
                "Measure every point in this process (default: each in a child process, so that a crash ends only that point)");
  cmd->add_option("--memory-limit", o->memory_limit,
                  "Cap the accelerator's memory to emulate a smaller device, e.g. 16GiB (CUDA, MPS; not the CPU)");
  cmd->add_flag("--no-telemetry", o->no_telemetry, "Do not sample energy, power, temperature, clocks and memory");
  cmd->add_flag("--synthetic", o->synthetic, "Use synthetic data even when the dataset files are present");
  cmd->add_option("--data-dir", o->data_dir, "Dataset directory (Fashion-MNIST or CIFAR-10 files)");
  cmd->add_option("--variant", o->variant, "Workload variant (resnet18: torchvision or cifar)");
  cmd->add_option("--seq-len", o->seq_len, "bert-base sequence length")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed for weights and data")->capture_default_str();
  cmd->add_option("--json", o->json_path, "Write the sweep (run schema plus a \"sweep\" block) to this JSON file, point by point");
  cmd->add_option("--db", o->db_path, "History database the sweep is stored in (default: $XDG_DATA_HOME/accelbench/history.db)");
  cmd->add_flag("--no-save", o->no_save, "Do not store the sweep in the history database");
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() { return execute_sweep_batch(*o, *cmd); }; });
}

void add_measure_case_command(CLI::App& app, Action& action) {
  auto spec = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(kMeasureCaseCommand, "Internal: measure one case for an isolated sweep point");
  cmd->group("");  // hidden from --help
  cmd->add_option("--spec-json", *spec, "The case and its measurement options (JSON)")->required();
  cmd->add_option("--out", *out, "Where to write the CaseResult JSON")->required();
  cmd->callback([&action, spec, out]() { action = [spec, out]() { return execute_measure_case(*spec, *out); }; });
}

}  // namespace accelbench
