#include "drivers/setting_sweep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/system_info.h"
#include "report/printer.h"
#include "report/sweep_tables.h"

namespace accelbench {

namespace {

std::string label_of(const std::string& kind, int setting) {
  if (kind == "threads") return fmt::format("{} thread{}", setting, setting == 1 ? "" : "s");
  return setting == kStagedWorkers ? "staged" : fmt::format("{} worker{}", setting, setting == 1 ? "" : "s");
}

void plan(const SettingSweepRequest& r, Printer& printer) {
  if (r.kind == "threads") {
    const auto info = read_host_info();
    const int max_threads = r.settings.empty() ? 0 : r.settings.back();
    printer.plan(fmt::format("threads sweep of {} on the CPU ({} physical, {} logical cores) at batch {}: {} threads",
                             model_label(r.base), info.physical_cores, info.logical_cores, r.base.batch_size,
                             fmt::join(r.settings, ", ")));
    if (max_threads > info.logical_cores && info.logical_cores > 0)
      printer.note(fmt::format("warning: {} threads on {} logical cores: the threads beyond them share cores", max_threads,
                               info.logical_cores));
    return;
  }
  std::vector<int> workers;
  for (int w : r.settings)
    if (w != kStagedWorkers) workers.push_back(w);
  printer.plan(fmt::format("workers sweep of {} on {} at batch {}: staged, then {} workers", model_label(r.base), r.base.device,
                           r.base.batch_size, fmt::join(workers, ", ")));
}

}  // namespace

SettingSweep setting_sweep_block(const SettingSweepRequest& r, const RunResult& run) {
  const bool threads = r.kind == "threads";
  SettingSweep s;
  s.kind = r.kind;
  s.model = r.base.workload;
  s.impl = r.base.impl;
  s.compile = r.base.compile;
  s.device = threads ? "cpu" : r.base.device;
  s.dtype = r.base.dtype;
  s.batch = r.base.batch_size;
  s.width = r.base.width;
  s.checkpoint = r.base.checkpoint;
  s.graphs = r.base.graphs;
  const CaseResult* one = nullptr;  // the speed-ups' reference: one thread
  if (threads)
    for (const auto& c : run.cases)
      if (c.spec.threads == 1 && c.ok() && !c.samples.empty()) one = &c;
  std::vector<ThroughputPoint> ok;
  for (std::size_t i = 0; i < run.cases.size() && i < r.settings.size(); ++i) {
    const auto& c = run.cases[i];
    SettingSweepPoint p;
    p.setting = r.settings[i];
    p.outcome = c.ok() ? "ok" : "failed";
    p.error = c.error;
    p.case_index = i;
    if (c.ok() && !c.samples.empty()) {
      p.samples_per_s = c.samples_per_s;
      if (threads && one) {
        p.speedup = ratio_of_medians_with_spread(one->samples, c.samples);
        if (p.speedup) p.efficiency = p.speedup->ratio / p.setting;
      }
      if (!threads && p.setting == kStagedWorkers) {
        s.staged_samples_per_s = c.samples_per_s;
      } else {
        if (!threads) {
          p.data_wait_fraction = c.data_wait_fraction;
          p.input_bound = c.input_bound;
        }
        ok.push_back({p.setting, c.samples_per_s});
      }
    }
    s.points.push_back(std::move(p));
  }
  if (const auto best = find_knee(ok)) s.best = static_cast<int>(*best);
  for (const auto& p : ok)
    if (!s.best_samples_per_s || p.samples_per_s > *s.best_samples_per_s) s.best_samples_per_s = p.samples_per_s;
  return s;
}

SweepOutcome run_setting_sweep(const SettingSweepRequest& r, const SweepEnvironment& env) {
  SweepRunner runner(env);
  plan(r, runner.printer());
  int failures = 0;
  for (std::size_t i = 0; i < r.settings.size(); ++i) {
    CaseSpec spec = r.base;
    MeasureOptions options = r.options;
    if (r.kind == "threads") spec.threads = r.settings[i];
    else options.inputs.workers = r.settings[i];
    const auto label = label_of(r.kind, r.settings[i]);
    auto result = runner.measure(i, spec, options, r.settings.size() - i, label);
    if (!result.ok()) ++failures;
    std::string detail;
    if (!result.ok()) detail = ": " + result.error;
    else if (r.kind == "workers" && r.settings[i] != kStagedWorkers)
      detail = fmt::format(", data wait {:.1f}% of the step", 100 * result.data_wait_fraction);
    runner.printer().case_finished({i, r.settings.size()}, result,
                                   fmt::format("{}: {} samples/s{}", label, throughput_with_ci(result), detail));
    runner.add(std::move(result), [&](const RunResult& run) { return nlohmann::json(setting_sweep_block(r, run)); });
  }
  auto s = setting_sweep_block(r, runner.run());
  SweepOutcome out;
  out.document = runner.finish(s);
  s.finished = true;
  runner.report(out.document, render_setting_sweep(runner.run(), s));
  out.exit_code = failures || !runner.stored() ? 1 : 0;
  out.run = runner.run();
  return out;
}

}  // namespace accelbench
