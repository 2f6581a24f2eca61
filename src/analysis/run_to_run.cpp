#include "analysis/run_to_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "core/durations.h"
#include "core/rounds.h"
#include "core/t_distribution.h"

namespace accelbench {

std::optional<RunToRun> run_to_run_spread(double median, const std::vector<double>& earlier) {
  std::vector<double> medians;
  for (double m : earlier)
    if (m > 0 && std::isfinite(m)) medians.push_back(m);
  if (medians.size() < kMinEarlierRuns || !(median > 0) || !std::isfinite(median)) return std::nullopt;
  RunToRun r;
  r.earlier_runs = medians.size();
  medians.push_back(median);
  r.sd_log = sd_log(medians);
  r.half_width_log = t_quantile_95(medians.size() - 1) * r.sd_log * std::sqrt(2.0);
  return r;
}

std::vector<double> earlier_medians(const CaseResult& c, const std::vector<CaseHistoryPoint>& history,
                                    const std::string& host, const std::string& torch_version) {
  std::vector<const CaseHistoryPoint*> same;
  for (const auto& p : history)
    if (p.host == host && p.torch_version == torch_version && p.is_case(c.spec) && p.threads == c.spec.threads && p.median > 0)
      same.push_back(&p);
  std::stable_sort(same.begin(), same.end(), [](const auto* a, const auto* b) { return a->run_id > b->run_id; });
  std::vector<double> medians;
  std::int64_t last_run = -1;
  for (const auto* p : same) {
    if (p->run_id == last_run) continue;  // one median a run
    last_run = p->run_id;
    medians.push_back(p->median);
    if (medians.size() == kMaxEarlierRuns) break;
  }
  return medians;
}

namespace {
// An interval in log space around its centre: the larger of its two sides (0 when not positive).
double half_width_log(double center, double low, double high) {
  if (!(center > 0) || !(low > 0) || !(high > 0)) return 0;
  return std::max(std::log(center / low), std::log(high / center));
}

// "mlp[graphs]" -> "mlp", "mlp[width=8,graphs]" -> "mlp[width=8]": the label of the eager case.
std::string eager_label(std::string label) {
  for (const char* part : {",graphs]", "[graphs]"})
    if (const auto at = label.find(part); at != std::string::npos) label.replace(at, std::strlen(part), part[0] == ',' ? "]" : "");
  return label;
}

std::string key(const std::string& workload, const std::string& device, const std::string& dtype, std::int64_t batch) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}", workload, device, dtype, batch);
}
}  // namespace

std::size_t apply_run_to_run(RunResult& run, const std::vector<CaseHistoryPoint>& history) {
  std::size_t widened = 0;
  std::map<std::string, double> history_half;  // per case: the run-to-run half-width (log)
  for (auto& c : run.cases) {
    if (!c.ok() || c.stats.n < 1) continue;  // one sample: the earlier runs give it its only interval
    auto spread = run_to_run_spread(c.stats.median, earlier_medians(c, history, run.context.host, run.context.torch_version));
    if (!spread) continue;
    history_half[key(model_label(c.spec), c.spec.device, c.spec.dtype, c.spec.batch_size)] = spread->half_width_log;
    // One sample has no interval of its own: the earlier runs give it one.
    const bool own = c.stats.n >= 2 && c.stats.ci_low > 0 && c.stats.ci_high > 0;
    if (!own || spread->half_width_log > half_width_log(c.stats.median, c.stats.ci_low, c.stats.ci_high)) {
      spread->widened = true;
      ++widened;
      const double low = c.stats.median * std::exp(-spread->half_width_log);
      const double high = c.stats.median * std::exp(spread->half_width_log);
      c.stats.ci_low = own ? std::min(c.stats.ci_low, low) : low;
      c.stats.ci_high = own ? std::max(c.stats.ci_high, high) : high;
      c.relative_ci_half_width = c.stats.ci_half_width_relative();
      c.noisy = c.relative_ci_half_width > c.ci_target;
      c.interval_method += fmt::format("; widened to the spread of this case's median over {} earlier runs in the "
                                       "history and this one (t * sd(log medians) * sqrt(2))",
                                       spread->earlier_runs);
    }
    c.run_to_run = spread;
  }
  std::vector<Speedup*> speedups;
  for (auto& s : run.speedups) speedups.push_back(&s);
  for (auto& s : run.graph_speedups) speedups.push_back(&s);  // the eager case on the same device as baseline
  for (Speedup* sp : speedups) {
    auto& s = *sp;
    // The baseline is the CPU's eager case: the model's label without "graphs".
    const std::string& label = s.label();
    const auto a = history_half.find(key(eager_label(label), s.baseline_device, s.dtype, s.batch_size));
    const auto b = history_half.find(key(label, s.device, s.dtype, s.batch_size));
    if (a == history_half.end() && b == history_half.end()) continue;
    const double ha = a == history_half.end() ? 0 : a->second, hb = b == history_half.end() ? 0 : b->second;
    const double h = std::sqrt(ha * ha + hb * hb);
    if (!(s.ratio > 0) || !(s.ci_low > 0) || !(s.ci_high > 0)) continue;
    if (h > half_width_log(s.ratio, s.ci_low, s.ci_high)) {
      s.ci_low = std::min(s.ci_low, s.ratio * std::exp(-h));
      s.ci_high = std::max(s.ci_high, s.ratio * std::exp(h));
      s.widened_by_history = true;
    }
  }
  return widened;
}

std::string run_to_run_note(const RunResult& run) {
  std::vector<std::string> parts;
  std::size_t earlier = 0;
  for (const auto& c : run.cases)
    if (c.run_to_run && c.run_to_run->widened) {
      parts.push_back(fmt::format("{} {} {} ({})", c.spec.workload, c.spec.device, c.spec.dtype,
                                  format_relative_interval(c.stats.median, c.stats.ci_low, c.stats.ci_high)));
      earlier = std::max(earlier, c.run_to_run->earlier_runs);
    }
  if (parts.empty()) return {};
  std::string list;
  for (std::size_t i = 0; i < parts.size(); ++i) list += (i ? ", " : "") + parts[i];
  return fmt::format("earlier runs in the history varied more than this run's rounds, so the interval of {} is their "
                     "spread (up to {} earlier runs): where the next run's median should fall",
                     list, earlier);
}

}  // namespace accelbench
