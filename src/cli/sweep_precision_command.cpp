// accelbench sweep precision: float32, tfloat32 (CUDA), bfloat16 and float16 on one device, each
// with its speed-up over float32 (95% CI) and its numerical parity with float32: the loss after K
// identical steps (same seed, weights and batches, dropout off) and the gradients' norm. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/durations.h"
#include "core/errors.h"
#include "core/parity.h"
#include "core/stats.h"
#include "device/device.h"
#include "engine/parity.h"
#include "optim/autocast.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {

// A precision whose loss after K steps is within this fraction of float32's keeps parity, or within
// twice float32's own run-to-run drift when that is larger (non-deterministic kernels: ResNet-18's
// cuDNN convolutions drift 2.2% from themselves after 10 steps on the H200).
constexpr double kParityTolerance = 0.02;
double parity_threshold(const std::optional<Parity>& floor) {
  if (!floor || !floor->error.empty() || floor->steps == 0) return kParityTolerance;
  return std::max(kParityTolerance, 2 * floor->loss_rel_diff);
}

struct SweepPrecisionOptions {
  SweepCommonOptions common;
  std::string dtypes;  // empty: every precision the device supports
  int parity_steps = kDefaultParitySteps;
};

struct PrecisionPoint {
  std::string precision;
  std::string outcome;                  // "ok", "failed", "not supported"
  std::string error;
  std::optional<std::size_t> case_index;
  std::optional<RatioEstimate> speedup; // float32's median / this one's
  std::optional<Parity> parity;
};

nlohmann::json sweep_block(const SweepPrecisionOptions& o, const SweepSetup& s, const std::vector<PrecisionPoint>& points,
                           const RunResult& run, const std::optional<Parity>& floor) {
  nlohmann::json pts = nlohmann::json::array();
  nlohmann::json best = nullptr;
  double best_ratio = 0;
  const double threshold = parity_threshold(floor);
  for (const auto& p : points) {
    nlohmann::json j{{"precision", p.precision}, {"outcome", p.outcome}, {"error", p.error},
                     {"case_index", p.case_index ? nlohmann::json(*p.case_index) : nlohmann::json(nullptr)}};
    if (p.case_index) {
      const auto& c = run.cases[*p.case_index];
      j["samples_per_s"] = c.samples_per_s;
      j["median_step_s"] = c.stats.median;
    }
    j["speedup"] = p.speedup ? nlohmann::json{{"ratio", p.speedup->ratio}, {"low", p.speedup->low}, {"high", p.speedup->high}}
                             : nlohmann::json(nullptr);
    j["parity"] = p.parity ? nlohmann::json(*p.parity) : nlohmann::json(nullptr);
    const bool parity_ok = !p.parity || (p.parity->error.empty() && p.parity->loss_rel_diff <= threshold);
    j["parity_ok"] = p.parity ? nlohmann::json(parity_ok) : nlohmann::json(nullptr);
    // The best: the fastest precision that is surely faster than float32 and keeps parity.
    if (p.speedup && p.precision != "float32" && p.speedup->low > 1.0 && parity_ok && p.speedup->ratio > best_ratio) {
      best_ratio = p.speedup->ratio;
      best = p.precision;
    }
    pts.push_back(j);
  }
  if (best.is_null() && !points.empty() && points.front().outcome == "ok") best = "float32";
  return {{"kind", "precision"},
          {"model", o.common.model},
          {"device", s.device_id},
          {"batch", o.common.batch_size},
          {"width", o.common.width},
          {"checkpoint", o.common.checkpoint},
          {"reference", "float32"},
          {"parity_steps", o.parity_steps},
          {"parity_tolerance", kParityTolerance},
          {"parity_threshold", threshold},
          {"parity_floor", floor ? nlohmann::json(*floor) : nlohmann::json(nullptr)},
          {"points", pts},
          {"best", best},
          {"finished", false}};
}

std::string pct_signed(double x) { return fmt::format("{:+.2g}%", 100 * x); }

std::string render_report(const RunResult& run, const nlohmann::json& sweep, const std::vector<PrecisionPoint>& points,
                          const std::optional<Parity>& floor) {
  std::string out = sweep_report_header(
      run, fmt::format("precision sweep: {} on {}, batch {}; speed-up over float32 and parity after {} identical steps "
                       "(dropout off)",
                       sweep["model"].get<std::string>(), sweep["device"].get<std::string>(),
                       sweep["batch"].get<std::int64_t>(), sweep["parity_steps"].get<int>()));
  std::vector<std::vector<std::string>> t{
      {"precision", "median step", "samples/s [95% CI]", "speed-up [95% CI]", "loss vs float32", "grad norm vs float32", "peak memory", "status"}};
  for (const auto& p : points) {
    std::vector<std::string> row{p.precision};
    if (p.case_index) {
      const auto& c = run.cases[*p.case_index];
      const bool ok = c.status == "ok";
      row.push_back(ok ? format_seconds_short(c.stats.median) : "-");
      row.push_back(throughput_with_ci(c));
      row.push_back(p.speedup ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]", p.speedup->ratio, p.speedup->low, p.speedup->high) : "-");
      if (p.parity && p.parity->error.empty() && p.precision != "float32") {
        const auto& q = *p.parity;
        row.push_back(fmt::format("{:.4f} ({}{})", q.losses.back(),
                                  pct_signed((q.losses.back() - q.reference_losses.back()) / std::max(1e-12, std::abs(q.reference_losses.back()))),
                                  q.skipped_steps ? fmt::format(", {} skipped", q.skipped_steps) : std::string()));
        row.push_back(q.grad_norm_rel_diff
                          ? pct_signed((*q.grad_norm - *q.reference_grad_norm) / std::max(1e-12, std::abs(*q.reference_grad_norm)))
                          : "-");
      } else if (p.parity && p.precision == "float32" && p.parity->error.empty()) {
        const bool has_floor = floor && floor->error.empty() && floor->steps > 0;
        row.push_back(has_floor ? fmt::format("{:.4f} (again: {})", p.parity->reference_losses.back(),
                                              pct_signed((floor->losses.back() - floor->reference_losses.back()) /
                                                         std::max(1e-12, std::abs(floor->reference_losses.back()))))
                                : fmt::format("{:.4f} (reference)", p.parity->reference_losses.back()));
        row.push_back(has_floor && floor->grad_norm_rel_diff
                          ? fmt::format("again: {}", pct_signed((*floor->grad_norm - *floor->reference_grad_norm) /
                                                                std::max(1e-12, std::abs(*floor->reference_grad_norm))))
                          : "reference");
      } else {
        row.push_back(p.parity ? "parity failed" : "-");
        row.push_back("-");
      }
      row.push_back(ok ? peak_memory(c) : "-");
      std::string status = status_cell(c);
      if (ok && p.parity && !p.parity->error.empty()) status = "parity: " + p.parity->error.substr(0, 50);
      else if (ok && p.parity && p.parity->loss_rel_diff > parity_threshold(floor)) status = "loss drifts";
      row.push_back(status);
    } else {
      for (int i = 0; i < 6; ++i) row.push_back("-");
      row.push_back(p.error.size() > 60 ? p.error.substr(0, 57) + "..." : p.error);
    }
    t.push_back(row);
  }
  out += render_table(t, 0);
  out += fmt::format("\n\"loss drifts\": the loss after the parity steps differs from float32's by more than {:.2g}% (2%, or "
                     "twice float32's own run-to-run drift when larger). \"again\": float32 run a second time, the same way: "
                     "the floor of the comparison (non-deterministic kernels). \"N skipped\": optimizer steps that float16's loss "
                     "scaling skipped (Inf/NaN gradients while the scale backs off).\n",
                     100 * parity_threshold(floor));
  if (!sweep["best"].is_null()) out += fmt::format("best: {}\n", sweep["best"].get<std::string>());
  return out;
}

int execute_sweep_precision(const SweepPrecisionOptions& o, const CLI::App& cmd) {
  if (cmd.count("--dtype")) throw UsageError("sweep precision sweeps the precisions: name them with --dtypes, not --dtype");
  if (o.parity_steps < 0 || o.parity_steps > 1000)
    throw UsageError(fmt::format("--parity-steps must be in [0, 1000] (got {})", o.parity_steps));
  const unsigned set = kSweepDeviceOption | kSweepBatchOption | kSweepThreadsOption;
  auto s = prepare_sweep(o.common, cmd, set, "precision");
  const auto device_type = s.device->torch_device().type();
  // The precisions: as asked (each checked against the device: bad input), or all the device has.
  std::vector<std::string> precisions;
  const bool explicit_list = !o.dtypes.empty();
  if (explicit_list) {
    std::string rest = o.dtypes;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      auto name = rest.substr(0, comma);
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
      if (name.empty()) continue;
      const auto p = parse_precision(name);
      check_precision_on_device(p, device_type, s.device_id);
      if (std::find(precisions.begin(), precisions.end(), p.name) == precisions.end()) precisions.push_back(p.name);
    }
    if (precisions.empty()) throw UsageError("--dtypes is empty");
  } else {
    precisions = precisions_for(device_type);
  }
  // float32 first: it is the reference of every speed-up and parity.
  precisions.erase(std::remove(precisions.begin(), precisions.end(), "float32"), precisions.end());
  precisions.insert(precisions.begin(), "float32");
  // A precision the workload refuses (dcgan has no float16) is bad input when asked for by name.
  std::vector<std::string> refused(precisions.size());
  for (std::size_t i = 0; i < precisions.size(); ++i) {
    try {
      validate_workload_options(*s.workload, input_check_options(o.common, precisions[i]));
    } catch (const UsageError& e) {
      if (explicit_list || precisions[i] == "float32") throw;
      refused[i] = e.what();
    }
  }

  s.settings["dtypes"] = precisions;
  s.settings["parity_steps"] = o.parity_steps;
  SweepRecord record("sweep precision", s.settings, o.common.json_path);
  std::fprintf(stderr, "accelbench: precision sweep of %s on %s at batch %lld: %s; parity after %d steps; %s\n",
               o.common.model.c_str(), s.device_id.c_str(), static_cast<long long>(o.common.batch_size),
               fmt::format("{}", fmt::join(precisions, ", ")).c_str(), o.parity_steps,
               s.budget_s > 0 ? fmt::format("time budget {} (at most {} a point)", format_duration(s.budget_s),
                                            format_duration(s.max_per_point_s)).c_str()
                              : fmt::format("at most {} a point", format_duration(s.max_per_point_s)).c_str());

  std::vector<PrecisionPoint> points;
  std::optional<ParityTrace> reference_trace;
  std::optional<Parity> floor;
  double spent = 0;
  auto mo = s.measure;
  int failures = 0;
  for (std::size_t i = 0; i < precisions.size(); ++i) {
    PrecisionPoint p;
    p.precision = precisions[i];
    if (!refused[i].empty()) {
      p.outcome = "not supported";
      p.error = refused[i];
      std::fprintf(stderr, "accelbench: [%zu] %s: not supported: %s\n", i + 1, p.precision.c_str(), p.error.c_str());
      points.push_back(p);
      continue;
    }
    CaseSpec spec = base_spec(o.common, s);
    spec.dtype = p.precision;
    mo.stopping.max_time_s = point_allowance(s, spent, precisions.size() - i);
    std::fprintf(stderr, "accelbench: [%zu] %s...\n", i + 1, p.precision.c_str());
    auto result = measure_case(spec, *s.workload, *s.device, mo);
    spent += result.wall_s;
    p.outcome = result.status == "ok" ? "ok" : "failed";
    p.error = result.error;
    if (result.status != "ok") ++failures;
    p.case_index = record.run().cases.size();
    const auto* reference = record.run().cases.empty() ? nullptr : &record.run().cases.front();
    if (result.status == "ok" && !result.samples.empty()) {
      if (p.precision == "float32") p.speedup = RatioEstimate{1.0, 1.0, 1.0};
      else if (reference && reference->status == "ok" && !reference->samples.empty())
        p.speedup = ratio_of_medians(reference->samples, result.samples);
    }
    if (o.parity_steps > 0) {
      auto trace = train_for_parity(spec, *s.workload, *s.device, s.measure, o.parity_steps);
      if (p.precision == "float32") {
        reference_trace = trace;
        // float32 once more, the same way: how far two identical runs already drift on this device.
        const auto again = train_for_parity(spec, *s.workload, *s.device, s.measure, o.parity_steps);
        floor = make_parity(again, trace, fmt::format("{} float32", s.device_id));
      }
      p.parity = make_parity(trace, reference_trace ? *reference_trace : ParityTrace{{}, std::nullopt, "float32 did not run"},
                             fmt::format("{} float32", s.device_id));
    }
    std::fprintf(stderr, "accelbench: [%zu] %s: %s samples/s%s%s\n", i + 1, p.precision.c_str(), throughput_with_ci(result).c_str(),
                 p.speedup ? fmt::format(", {:.2f}x [{:.2f}, {:.2f}] over float32", p.speedup->ratio, p.speedup->low,
                                         p.speedup->high).c_str()
                           : "",
                 p.parity && p.precision != "float32" ? (", " + describe_parity(*p.parity)).c_str() : "");
    points.push_back(p);
    record.add(std::move(result), [&](const RunResult& run) { return sweep_block(o, s, points, run, floor); });
  }
  const auto doc = record.finish(sweep_block(o, s, points, record.run(), floor), s.store.get());
  print_sweep_report(record, doc, render_report(record.run(), doc["sweep"], points, floor), o.common.json_path);
  return failures ? 1 : 0;
}

}  // namespace

void add_sweep_precision_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepPrecisionOptions>();
  auto* cmd = sweep.add_subcommand(
      "precision", "float32, tfloat32 (CUDA), bfloat16, float16 on one device: speed-up over float32 with its CI, and the "
                   "loss and gradient norm after K identical steps against float32's");
  add_common_sweep_options(cmd, o->common, kSweepDeviceOption | kSweepBatchOption | kSweepThreadsOption);
  cmd->add_option("--dtypes", o->dtypes,
                  "Comma-separated precisions (default: every one the device supports: cpu float32,bfloat16,float16; cuda "
                  "adds tfloat32)");
  // Registered so that a user who writes --dtype gets a clear message rather than CLI11's.
  cmd->add_option("--dtype", o->common.dtype, "Use --dtypes")->group("");
  cmd->add_option("--parity-steps", o->parity_steps,
                  "Optimizer steps of the parity runs (same seed, weights and batches, dropout off; 0: no parity)")
      ->capture_default_str();
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() { return execute_sweep_precision(*o, *cmd); }; });
}

}  // namespace accelbench
