#include "drivers/rounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/case_figures.h"
#include "core/rounds.h"

namespace accelbench {

namespace {
using Clock = std::chrono::steady_clock;

RoundResult round_figures(const CaseResult& r) {
  RoundResult out;
  out.median_s = r.samples.empty() ? 0 : summarize(r.samples).median;
  out.samples = r.samples.size();
  out.warmup_steps = r.warmup_steps;
  out.discarded_samples = r.discarded_samples;
  out.drifting = r.drifting;
  out.wall_s = r.wall_s;
  return out;
}

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// The round whose memory peak is the largest (the case's peak), by the figure the backend gives.
const MemoryUsage& largest_memory(const std::vector<CaseResult>& rounds) {
  auto peak = [](const MemoryUsage& m) {
    return m.peak_allocated_bytes ? *m.peak_allocated_bytes : m.peak_rss_bytes ? *m.peak_rss_bytes : 0;
  };
  const auto it = std::max_element(rounds.begin(), rounds.end(),
                                   [&](const CaseResult& a, const CaseResult& b) { return peak(a.memory) < peak(b.memory); });
  return it->memory;
}

// The rounds' interval replaces the pooled samples' own: it covers what the next run gives.
void apply_rounds_interval(CaseResult& merged, double ci_target) {
  const auto by_round = samples_by_round(merged);
  const auto h = median_ci_hierarchical(by_round);
  merged.stats.ci_low = h.low;
  merged.stats.ci_high = h.high;
  merged.relative_ci_half_width = h.ci_half_width_relative();
  merged.interval_method = h.method;
  const auto agreement = rounds_agreement(by_round, h, ci_target);
  merged.rounds_disagree = agreement.rounds_disagree;
  merged.noisy = merged.relative_ci_half_width > ci_target;
}
}  // namespace

CaseResult merge_rounds(std::vector<CaseResult> rounds, double ci_target) {
  std::vector<RoundResult> figures;
  for (const auto& r : rounds) figures.push_back(round_figures(r));
  const auto failed = std::find_if(rounds.begin(), rounds.end(), [](const CaseResult& r) { return !r.ok(); });
  if (failed != rounds.end() || rounds.size() == 1) {
    CaseResult out = failed != rounds.end() ? *failed : rounds.front();
    out.rounds = figures;
    return out;
  }
  CaseResult merged = rounds.front();
  merged.rounds = figures;
  merged.samples.clear();
  merged.data_wait_samples.clear();
  merged.device_samples.clear();
  merged.device_busy_samples.clear();
  merged.epoch_s_all.clear();
  merged.wall_s = merged.measure_s = merged.warmup_s = 0;
  merged.discarded_samples = 0;
  for (const auto& r : rounds) {
    append(merged.samples, r.samples);
    append(merged.data_wait_samples, r.data_wait_samples);
    append(merged.device_samples, r.device_samples);
    append(merged.device_busy_samples, r.device_busy_samples);
    append(merged.epoch_s_all, r.epoch_s_all);
    if (merged.phases && r.phases && &r != &rounds.front()) {
      append(merged.phases->forward, r.phases->forward);
      append(merged.phases->backward, r.phases->backward);
      append(merged.phases->optimizer, r.phases->optimizer);
    }
    merged.wall_s += r.wall_s;
    merged.measure_s += r.measure_s;
    merged.warmup_s += r.warmup_s;
    merged.discarded_samples += r.discarded_samples;
    merged.drifting = merged.drifting || r.drifting;
    merged.warmup_stable = merged.warmup_stable && r.warmup_stable;
  }
  merged.memory = largest_memory(rounds);
  const auto longest = std::max_element(rounds.begin(), rounds.end(),
                                        [](const CaseResult& a, const CaseResult& b) { return a.measure_s < b.measure_s; });
  merged.telemetry = longest->telemetry;
  derive_case_figures(merged);
  apply_rounds_interval(merged, ci_target);
  return merged;
}

bool wants_another_round(const std::vector<CaseResult>& done, int planned, const RoundsPolicy& policy, double ci_target,
                         double spent_s, double left_s) {
  if (done.size() < 2 || planned >= policy.max_rounds) return false;
  const double round_s = spent_s / static_cast<double>(done.size());
  if (static_cast<int>(done.size()) < kRoundsForOwnSpread && left_s >= round_s) return true;
  const auto merged = merge_rounds(done, ci_target);
  const auto by_round = samples_by_round(merged);
  const auto h = median_ci_hierarchical(by_round);
  return rounds_agreement(by_round, h, ci_target).add_rounds && left_s > 0.5 * round_s;
}

CaseResult RoundsMeasurer::measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) {
  const double allowance_s = options.settings.stopping.max_time_s;
  const double ci_target = options.settings.stopping.ci_target;
  const auto start = Clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::vector<CaseResult> done;
  int planned = std::max(1, policy_.rounds);
  while (static_cast<int>(done.size()) < planned) {
    const double left_s = allowance_s - elapsed_s();
    if (!done.empty() && left_s <= 0) break;  // out of time: the rounds so far
    auto round_options = options;
    round_options.settings.stopping.max_time_s = std::max(left_s, 0.0) / static_cast<double>(planned - done.size());
    const double before_s = elapsed_s();
    const auto label = fmt::format("round {}/{}", done.size() + 1, planned);
    if (progress) progress(ProgressEvent{&spec, label, 0, 0, before_s, allowance_s});
    auto forward = [&](const ProgressEvent& e) {
      if (!progress) return;
      auto whole = e;
      whole.case_elapsed_s = before_s + e.case_elapsed_s;
      whole.case_allowance_s = allowance_s;
      progress(whole);
    };
    done.push_back(each_round_.measure(spec, round_options, forward));
    if (!done.back().ok()) break;
    if (static_cast<int>(done.size()) == planned &&
        wants_another_round(done, planned, policy_, ci_target, elapsed_s(), allowance_s - elapsed_s()))
      ++planned;
  }
  return merge_rounds(std::move(done), ci_target);
}

}  // namespace accelbench
