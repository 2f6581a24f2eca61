#include "drivers/batch_sweep.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/case_figures.h"
#include "core/durations.h"
#include "report/printer.h"
#include "report/sweep_tables.h"

namespace accelbench {

PointOutcome classify_point(const CaseResult& result) {
  if (result.ok()) return PointOutcome::fit;
  if (result.out_of_memory()) return PointOutcome::out_of_memory;
  return PointOutcome::failed;
}

namespace {

// The figures the points give: the knee, the best, the planner's edge of memory.
void summarize(BatchSweep& s, const BatchSweepPlanner& planner) {
  std::vector<ThroughputPoint> ok;
  s.best_batch.reset();
  s.best_samples_per_s.reset();
  for (const auto& p : s.points) {
    if (p.outcome != PointOutcome::fit) continue;
    ok.push_back({p.batch, p.samples_per_s});
    if (!s.best_samples_per_s || p.samples_per_s > *s.best_samples_per_s) {
      s.best_batch = p.batch;
      s.best_samples_per_s = p.samples_per_s;
    }
  }
  s.knee = find_knee(ok);
  s.largest_fit = planner.largest_fit();
  s.first_oom = planner.first_oom();
  s.smallest_oom = planner.smallest_oom();
  if (planner.resolution()) s.bisection = BisectionRange{*planner.bisection_low(), *planner.bisection_high(), *planner.resolution()};
}

std::string point_line(std::int64_t batch, PointOutcome outcome, const CaseResult& r) {
  switch (outcome) {
    case PointOutcome::fit:
      return fmt::format("batch {}: {} samples/s, median step {}, peak {} ({})", batch, throughput_with_ci(r),
                         format_seconds_short(r.stats.median), peak_memory_text(r), format_duration(r.wall_s));
    case PointOutcome::out_of_memory: return fmt::format("batch {}: OOM at {}: {}", batch, batch, r.error);
    case PointOutcome::failed: break;
  }
  return fmt::format("batch {} failed: {}", batch, r.error);
}

}  // namespace

SweepOutcome run_batch_sweep(const BatchSweepRequest& r, const SweepEnvironment& env) {
  SweepRunner runner(env);
  runner.printer().plan(fmt::format("batch sweep of {} on {} ({}): doubling from {} to {}{}, {}, CI target +-{:.1f}%{}",
                                    model_label(r.base), r.base.device, r.base.dtype, r.from, r.to,
                                    r.to_default ? " (the default end)" : "", runner.budget_text(),
                                    100 * r.options.settings.stopping.ci_target,
                                    r.isolated ? ", each point in a child process" : ", in this process"));
  BatchSweep s;
  s.model = r.base.workload;
  s.impl = r.base.impl;
  s.compile = r.base.compile;
  s.device = r.base.device;
  s.dtype = r.base.dtype;
  s.width = r.base.width;
  s.checkpoint = r.base.checkpoint;
  s.graphs = r.base.graphs;
  s.from = r.from;
  s.to = r.to;
  s.to_default = r.to_default;
  s.isolated = r.isolated;
  if (r.memory_limit_bytes) s.memory_limit_bytes = r.memory_limit_bytes;

  BatchSweepPlanner planner(r.from, r.to);
  while (const auto batch = planner.next()) {
    CaseSpec spec = r.base;
    spec.batch_size = *batch;
    const std::string phase = planner.bisecting() ? "bisection" : "doubling";
    const std::size_t i = s.points.size();
    auto result = runner.measure(i, spec, r.options, planner.remaining_estimate(), fmt::format("batch {} ({})", *batch, phase));
    const auto outcome = classify_point(result);
    planner.record(*batch, outcome);
    runner.printer().case_finished({i, 0}, result, point_line(*batch, outcome, result));
    BatchSweepPoint p;
    p.batch = *batch;
    p.outcome = outcome;
    p.phase = phase;
    p.case_index = i;
    if (outcome == PointOutcome::fit) p.samples_per_s = result.samples_per_s;
    else p.error = result.error;
    s.points.push_back(std::move(p));
    summarize(s, planner);
    runner.add(std::move(result), [&](const RunResult&) { return nlohmann::json(s); });
  }
  summarize(s, planner);
  SweepOutcome out;
  out.document = runner.finish(s);
  s.finished = true;
  runner.report(out.document, render_batch_sweep(runner.run(), s));
  const bool any_failed =
      std::any_of(s.points.begin(), s.points.end(), [](const BatchSweepPoint& p) { return p.outcome == PointOutcome::failed; });
  out.exit_code = any_failed || !s.largest_fit || !runner.stored() ? 1 : 0;
  out.run = runner.run();
  return out;
}

}  // namespace accelbench
