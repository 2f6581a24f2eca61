#include "drivers/suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

#include "core/durations.h"
#include "core/parity.h"
#include "drivers/interleaved_rounds.h"
#include "report/printer.h"

namespace accelbench {

namespace {
using Clock = std::chrono::steady_clock;

class Stopwatch {
 public:
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  Clock::time_point start_ = Clock::now();
};

// Time promises kept: a round that took fewer samples than the floor (engine/case_measurement: as
// many as fit, at least one). Said once per case, with why and what it would take; "" when every
// round had its floor. Why: a step too long for the round's time, or (where the warm-up and the
// floor of samples would have taken under half the round) the round's start-up, build and warm-up,
// such as a Python worker's import of torch and its device's start, that left no time to sample.
std::string shortened_note(const CaseResult& merged, const MeasureSettings& settings, double max_per_case_s) {
  if (!merged.ok() || merged.stats.median <= 0) return "";
  std::size_t fewest = merged.samples.size();  // the round with the fewest samples (or the only one)
  double round_wall_s = merged.wall_s;
  for (const auto& r : merged.rounds) {
    if (r.samples > fewest) continue;
    fewest = r.samples;
    round_wall_s = r.wall_s;
  }
  if (fewest >= settings.floor_samples) return "";
  const double sample_s = merged.stats.median * std::max(1, merged.steps_per_sample);
  const double rounds = static_cast<double>(std::max<std::size_t>(1, merged.rounds.size()));
  const double per_case_s = rounds * (round_wall_s + static_cast<double>(settings.floor_samples - fewest) * sample_s);
  const std::string what = fmt::format("{} sample{} in a round instead of {}, marked noisy; --max-time-per-case {} (and a "
                                       "--budget that holds it) gives it its samples",
                                       fewest, fewest == 1 ? "" : "s", settings.floor_samples,
                                       format_duration(std::ceil(std::max(per_case_s, max_per_case_s + 1))));
  const double floor_s = static_cast<double>(settings.floor_samples + settings.min_warmup_steps) * sample_s;
  if (floor_s < 0.5 * round_wall_s) {
    const double setup_s = std::max(0.0, merged.wall_s - merged.measure_s) / rounds;
    return fmt::format("{} on {}: a step takes {}, but its round's start-up, build and warm-up took {} of the round's {}: {}",
                       model_label(merged.spec), merged.spec.device, format_seconds_short(merged.stats.median),
                       format_seconds_short(setup_s), format_seconds_short(round_wall_s), what);
  }
  return fmt::format("{} on {}: a step takes {}, too long for the time its round had: {}", model_label(merged.spec),
                     merged.spec.device, format_seconds_short(merged.stats.median), what);
}

// Every case of the plan, each with its share of what is left of the budget.
int measure_cases(const SuiteRequest& req, RunResult& run, CaseMeasurer& measurer, Printer& printer, const Stopwatch& clock) {
  const auto& cases = req.plan.cases;
  BudgetScheduler scheduler(req.budget_s, req.max_per_case_s, cases.size());
  auto options = req.options;
  int failures = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CasePosition at{i, cases.size()};
    if (i > 0 && req.cooldown_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(req.cooldown_s));
    options.settings.stopping.max_time_s = scheduler.next_allowance();
    const std::size_t remaining_after = cases.size() - i - 1;
    // Time left: this case's allowance unused, then the budget's rest (or the per-case maximum each).
    auto on_progress = [&](const ProgressEvent& e) {
      const double this_left = std::max(0.0, e.case_allowance_s - e.case_elapsed_s);
      const double rest = req.budget_s > 0
                              ? std::max(0.0, req.budget_s - scheduler.spent_s() - e.case_elapsed_s - this_left)
                              : static_cast<double>(remaining_after) * req.max_per_case_s;
      printer.progress(at, e, clock.elapsed_s(), this_left + rest);
    };
    printer.case_started(at, cases[i], model_label(cases[i]));
    auto result = measurer.measure(cases[i], options, on_progress);
    scheduler.finished_case(result.wall_s);
    if (!result.ok()) ++failures;
    if (const auto why = shortened_note(result, req.options.settings, req.max_per_case_s); !why.empty()) printer.note(why);
    printer.case_finished(at, result, "");
    run.cases.push_back(std::move(result));
    run.wall_s = clock.elapsed_s();
    printer.document(nlohmann::json(run));  // each case saved as soon as it is measured
  }
  return failures;
}

// Every case in interleaved rounds (drivers/interleaved_rounds.h); the document after every round.
int measure_cases_interleaved(const SuiteRequest& req, RunResult& run, CaseMeasurer& each_round, Printer& printer,
                              const Stopwatch& clock) {
  const auto& cases = req.plan.cases;
  InterleavedRoundsPlan plan{cases, req.options, req.rounds, req.budget_s, req.max_per_case_s, req.cooldown_s};
  int failures = 0;
  InterleavedRoundsEvents events;
  // The progress line counts rounds over the run ("[4/6]": the fourth of six planned), which only
  // go up, rather than the case's place in a pass (every other pass runs backwards).
  std::vector<int> planned(cases.size(), std::max(1, req.rounds.rounds));
  std::size_t rounds_started = 0;
  auto position = [&] {
    return CasePosition{rounds_started - 1, static_cast<std::size_t>(std::accumulate(planned.begin(), planned.end(), 0))};
  };
  events.round_started = [&](std::size_t i, int round, int planned_now, double /*allowance_s*/) {
    planned[i] = planned_now;
    ++rounds_started;
    printer.case_started(position(), cases[i], fmt::format("{} (round {}/{})", model_label(cases[i]), round, planned_now));
  };
  events.progress = [&](std::size_t /*i*/, const ProgressEvent& e, double time_left_s) {
    printer.progress(position(), e, clock.elapsed_s(), time_left_s);
  };
  events.rounds_cut = [&](std::size_t i, int done, int planned_rounds, double least_round_s, double allowance_s,
                          bool case_limit) {
    planned[i] = done;
    const auto left = allowance_s > 0 ? format_duration(allowance_s) : std::string("nothing");
    printer.note(fmt::format("{} on {}: {} of {} rounds: another needs ~{} (start-up, build, warm-up, one sample) and {}",
                             model_label(cases[i]), cases[i].device, done, planned_rounds, format_duration(least_round_s),
                             case_limit ? fmt::format("the case's {} (--max-time-per-case) leaves it {}; a larger "
                                                      "--max-time-per-case gives it its rounds",
                                                      format_duration(req.max_per_case_s), left)
                                        : fmt::format("the budget leaves it {}; a larger --budget gives it its rounds", left)));
  };
  events.case_finished = [&](std::size_t i, const CaseResult& merged) {
    planned[i] = std::max<int>(1, static_cast<int>(merged.rounds.size()));  // the rounds it ends with
    if (!merged.ok()) ++failures;
    if (const auto why = shortened_note(merged, req.options.settings, req.max_per_case_s); !why.empty()) printer.note(why);
    printer.case_finished({i, cases.size()}, merged, "");
  };
  events.round_finished = [&](const std::vector<CaseResult>& so_far) {
    run.cases = so_far;
    run.wall_s = clock.elapsed_s();
    printer.document(nlohmann::json(run));  // every round saved as soon as it is measured
  };
  run.cases = measure_interleaved_rounds(plan, each_round, events);
  return failures;
}

const CaseResult* case_of(const RunResult& run, const Speedup& s) {
  const auto c = std::find_if(run.cases.begin(), run.cases.end(), [&](const CaseResult& x) {
    return x.spec.device == s.device && x.spec.workload == s.workload && x.spec.dtype == s.dtype &&
           x.spec.batch_size == s.batch_size && model_label(x.spec) == s.model;
  });
  return c == run.cases.end() ? nullptr : &*c;
}

// The same initial weights and batches on the device and on the CPU, K steps each (dropout off).
void measure_parity(const SuiteRequest& req, RunResult& run, ParityTrainer& parity, Printer& printer) {
  if (req.parity_steps <= 0) return;
  for (auto& s : run.speedups) {
    const auto* c = case_of(run, s);
    // A graphs case replays the eager step's kernels: its parity is the eager case's (the graph hooks
    // train as the eager step: tests GraphMode.*, Gpu.GraphsTrainAsEagerAndLaunchOnce).
    // A Python case's parity would be the C++ engine's: none is measured for it.
    if (!c || c->spec.graphs || is_python(c->spec)) continue;
    printer.note(fmt::format("parity of {} on {} against the CPU ({} steps each)...", s.model, s.device, req.parity_steps));
    CaseSpec cpu_spec = c->spec;
    cpu_spec.device = "cpu";
    cpu_spec.threads = req.cpu_threads;
    const auto on_device = parity.train(c->spec, req.options, req.parity_steps);
    const auto on_cpu = parity.train(cpu_spec, req.options, req.parity_steps);
    s.parity = make_parity(on_device, on_cpu, fmt::format("cpu {}", s.dtype));
  }
}
}  // namespace

int run_suite(const SuiteRequest& req, RunResult& run, CaseMeasurer& measurer, ParityTrainer& parity, Printer& printer) {
  const Stopwatch clock;
  int failures = 0;
  if (req.rounds.rounds > 1 && req.interleave_rounds) {
    failures = measure_cases_interleaved(req, run, measurer, printer, clock);
  } else if (req.rounds.rounds > 1) {
    RoundsMeasurer by_rounds(measurer, req.rounds);  // each case's rounds back to back
    failures = measure_cases(req, run, by_rounds, printer, clock);
  } else {
    failures = measure_cases(req, run, measurer, printer, clock);
  }
  run.speedups = compute_speedups(run.cases);
  run.graph_speedups = compute_graph_speedups(run.cases);
  run.speedups_over_fastest_cpu = compute_speedups_over_fastest_cpu(run.cases);
  measure_parity(req, run, parity, printer);
  run.wall_s = clock.elapsed_s();
  printer.document(nlohmann::json(run));
  return failures;
}

}  // namespace accelbench
