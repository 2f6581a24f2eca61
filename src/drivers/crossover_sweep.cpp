#include "drivers/crossover_sweep.h"

#include "core/durations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/printer.h"
#include "report/sweep_tables.h"

namespace accelbench {

namespace {

void summarize_crossover(CrossoverSweep& s) {
  std::vector<SpeedupPoint> sp;
  for (const auto& p : s.points)
    if (p.speedup) sp.push_back({p.x, p.speedup->ratio, p.speedup->low, p.speedup->high});
  s.crossover = find_crossover(sp);
  s.crossover_text = describe_crossover(s.crossover, s.axis);
}

}  // namespace

SweepOutcome run_crossover_sweep(const CrossoverSweepRequest& r, const SweepEnvironment& env) {
  SweepRunner runner(env);
  runner.printer().plan(fmt::format("crossover of {}: {} against the CPU over {} {}", model_label(r.base), r.base.device, r.axis,
                                    fmt::join(r.points, ", ")));
  CrossoverSweep s;
  s.axis = r.axis;
  s.model = r.base.workload;
  s.impl = r.base.impl;
  s.compile = r.base.compile;
  s.device = r.base.device;
  s.dtype = r.base.dtype;
  if (r.axis == "width") s.batch = r.base.batch_size;
  s.width = r.base.width;
  summarize_crossover(s);
  int failures = 0;
  const std::size_t n = r.points.size();
  for (std::size_t i = 0; i < n; ++i) {
    CaseSpec spec = r.base;
    if (r.axis == "batch") spec.batch_size = r.points[i];
    else spec.width = r.points[i];
    CrossoverSweepPoint p;
    p.x = r.points[i];
    std::vector<CaseResult> pair;
    for (const std::string& device : {r.base.device, std::string("cpu")}) {
      spec.device = device;
      auto result = runner.measure(i, spec, r.options, 2 * (n - i) - pair.size(), fmt::format("{} {} on {}", r.axis, p.x, device));
      if (!result.ok()) {
        ++failures;
        runner.printer().case_finished({i, n}, result, fmt::format("{} on {} failed: {}", r.axis, device, result.error));
      }
      pair.push_back(std::move(result));
    }
    const bool both_ok = pair[0].ok() && pair[1].ok();
    if (both_ok) p.speedup = ratio_of_medians_with_spread(pair[1].samples, pair[0].samples);
    if (p.speedup)
      runner.printer().note(fmt::format("[{}] {} {}: {} is {} the CPU's speed", i + 1, r.axis, p.x, r.base.device,
                                        format_ratio_ci(*p.speedup)));
    else if (both_ok)
      runner.printer().note(fmt::format("[{}] {} {}: too few samples for a speed-up (a side has one): more time a point "
                                        "(--max-time-per-point, --budget) gives it one", i + 1, r.axis, p.x));
    p.device_case_index = runner.run().cases.size();
    p.cpu_case_index = p.device_case_index + 1;
    s.points.push_back(p);
    summarize_crossover(s);
    const auto block = [&](const RunResult&) { return nlohmann::json(s); };
    runner.add(std::move(pair[0]), block);
    runner.add(std::move(pair[1]), block);
  }
  runner.run().speedups = compute_speedups(runner.run().cases);
  SweepOutcome out;
  out.document = runner.finish(s);
  s.finished = true;
  runner.report(out.document, render_crossover_sweep(runner.run(), s));
  out.exit_code = failures || !runner.stored() ? 1 : 0;
  out.run = runner.run();
  return out;
}

}  // namespace accelbench
