#include "drivers/precision_sweep.h"

#include "core/durations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/parity.h"
#include "report/printer.h"
#include "report/sweep_tables.h"

namespace accelbench {

namespace {

// The threshold, each point's parity verdict and the best, from the points as they stand.
void summarize(PrecisionSweep& s) {
  s.parity_threshold = parity_threshold(s.parity_floor);
  s.best.reset();
  double best_ratio = 0;
  for (auto& p : s.points) {
    const bool parity_ok = !p.parity || (p.parity->error.empty() && p.parity->loss_rel_diff <= s.parity_threshold);
    if (p.parity) p.parity_ok = parity_ok;
    else p.parity_ok.reset();
    if (p.speedup && p.precision != "float32" && p.speedup->low > 1.0 && parity_ok && p.speedup->ratio > best_ratio) {
      best_ratio = p.speedup->ratio;
      s.best = p.precision;
    }
  }
  if (!s.best && !s.points.empty() && s.points.front().outcome == "ok") s.best = "float32";
}

std::string point_line(const PrecisionSweepPoint& p, const CaseResult& result) {
  return fmt::format("{}: {} samples/s{}{}", p.precision, throughput_with_ci(result),
                     p.speedup ? ", " + format_ratio_ci(*p.speedup) + " over float32"
                               : "",
                     p.parity && p.precision != "float32" ? ", " + describe_parity(*p.parity) : "");
}

}  // namespace

SweepOutcome run_precision_sweep(const PrecisionSweepRequest& r, const SweepEnvironment& env) {
  SweepRunner runner(env);
  const auto parity = r.parity_steps > 0 ? fmt::format("parity after {} steps", r.parity_steps) : std::string("no parity");
  runner.printer().plan(fmt::format("precision sweep of {} on {} at batch {}: {}; {}; {}", model_label(r.base), r.base.device,
                                    r.base.batch_size, fmt::join(r.precisions, ", "), parity, runner.budget_text()));
  PrecisionSweep s;
  s.model = r.base.workload;
  s.impl = r.base.impl;
  s.compile = r.base.compile;
  s.device = r.base.device;
  s.batch = r.base.batch_size;
  s.width = r.base.width;
  s.checkpoint = r.base.checkpoint;
  s.graphs = r.base.graphs;
  s.parity_steps = r.parity_steps;
  const std::string reference_label = fmt::format("{} float32", r.base.device);
  std::optional<ParityTrace> reference_trace;
  int failures = 0;
  for (std::size_t i = 0; i < r.precisions.size(); ++i) {
    PrecisionSweepPoint p;
    p.precision = r.precisions[i];
    if (i < r.refused.size() && !r.refused[i].empty()) {
      p.outcome = "not supported";
      p.error = r.refused[i];
      runner.printer().note(fmt::format("[{}] {}: not supported: {}", i + 1, p.precision, p.error));
      s.points.push_back(p);
      continue;
    }
    CaseSpec spec = r.base;
    spec.dtype = p.precision;
    auto result = runner.measure(i, spec, r.options, r.precisions.size() - i, p.precision);
    p.outcome = result.ok() ? "ok" : "failed";
    p.error = result.error;
    if (!result.ok()) ++failures;
    p.case_index = runner.run().cases.size();
    p.samples_per_s = result.samples_per_s;
    p.median_step_s = result.stats.median;
    const auto* reference = runner.run().cases.empty() ? nullptr : &runner.run().cases.front();
    if (result.ok() && !result.samples.empty()) {
      if (p.precision == "float32") p.speedup = RatioEstimate{1.0, 1.0, 1.0};
      else if (reference && reference->ok())
        p.speedup = ratio_of_medians_with_spread(reference->samples, result.samples);
    }
    if (r.parity_steps > 0 && env.parity) {
      auto trace = env.parity->train(spec, r.options, r.parity_steps);
      if (p.precision == "float32") {
        reference_trace = trace;
        // float32 once more, the same way: how far two identical runs already drift on this device.
        const auto again = env.parity->train(spec, r.options, r.parity_steps);
        s.parity_floor = make_parity(again, trace, reference_label);
      }
      p.parity = make_parity(trace, reference_trace ? *reference_trace : ParityTrace{{}, std::nullopt, "float32 did not run"},
                             reference_label);
    }
    runner.printer().case_finished({i, r.precisions.size()}, result, point_line(p, result));
    s.points.push_back(p);
    summarize(s);
    runner.add(std::move(result), [&](const RunResult&) { return nlohmann::json(s); });
  }
  summarize(s);
  SweepOutcome out;
  out.document = runner.finish(s);
  s.finished = true;
  runner.report(out.document, render_precision_sweep(runner.run(), s));
  out.exit_code = failures || !runner.stored() ? 1 : 0;
  out.run = runner.run();
  return out;
}

}  // namespace accelbench
