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

RunToRunPrior run_to_run_prior(const CaseResult& c) {
  if (c.spec.device == "cpu") return {kHostBoundRunSdLog, "the CPU: host-bound"};
  if (!c.device_busy_fraction || !std::isfinite(*c.device_busy_fraction))
    return {kHostBoundRunSdLog, "no device-busy figure: taken as host-bound"};
  const double busy = *c.device_busy_fraction;
  const double host_share = std::clamp((0.9 - busy) / 0.4, 0.0, 1.0);
  return {kDeviceBoundRunSdLog + (kHostBoundRunSdLog - kDeviceBoundRunSdLog) * host_share,
          fmt::format("device busy {:.0f}% of the step", 100 * busy)};
}

std::optional<RunToRun> next_run_spread(double median, const std::vector<double>& earlier, const RunToRunPrior& prior) {
  std::vector<double> medians;
  for (double m : earlier)
    if (m > 0 && std::isfinite(m)) medians.push_back(m);
  if (!(median > 0) || !std::isfinite(median)) return std::nullopt;
  if (medians.size() >= kOwnHistoryRuns || !(prior.sd_log > 0)) return run_to_run_spread(median, medians);
  RunToRun r;
  r.earlier_runs = medians.size();
  medians.push_back(median);
  const double k = static_cast<double>(medians.size() - 1);  // the own runs' degrees of freedom
  r.sd_log = sd_log(medians);                                 // 0 with no earlier run
  const double pooled = std::sqrt((kPriorRuns * prior.sd_log * prior.sd_log + k * r.sd_log * r.sd_log) / (kPriorRuns + k));
  r.half_width_log = t_quantile(0.975, kPriorRuns + k) * pooled * std::sqrt(2.0);
  r.prior_sd_log = prior.sd_log;
  r.prior_basis = prior.basis;
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
    auto spread = next_run_spread(c.stats.median, earlier_medians(c, history, run.context.host, run.context.torch_version),
                                  run_to_run_prior(c));
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
      if (!spread->uses_prior()) {
        c.relative_ci_half_width = c.stats.ci_half_width_relative();
        c.noisy = c.relative_ci_half_width > c.ci_target;
        c.interval_method += fmt::format("; widened to the spread of this case's median over {} earlier runs in the "
                                         "history and this one (t * sd(log medians) * sqrt(2))",
                                         spread->earlier_runs);
      } else {  // relative_ci_half_width stays the measurement's own (what more time could narrow)
        c.interval_method += fmt::format("; widened to the run-to-run spread of a case of its kind ({}: prior sd {:.1f}% "
                                         "weighed as {:.0f} runs) pooled with {} earlier runs in the history and this one "
                                         "(t * pooled sd * sqrt(2))",
                                         spread->prior_basis, 100 * spread->prior_sd_log, kPriorRuns, spread->earlier_runs);
      }
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
  std::vector<std::string> own, prior;
  std::size_t earlier = 0;
  for (const auto& c : run.cases)
    if (c.run_to_run && c.run_to_run->widened) {
      (c.run_to_run->uses_prior() ? prior : own)
          .push_back(fmt::format("{} {} {} ({})", c.spec.workload, c.spec.device, c.spec.dtype,
                                 format_relative_interval(c.stats.median, c.stats.ci_low, c.stats.ci_high)));
      if (!c.run_to_run->uses_prior()) earlier = std::max(earlier, c.run_to_run->earlier_runs);
    }
  auto join = [](const std::vector<std::string>& parts) {
    std::string list;
    for (std::size_t i = 0; i < parts.size(); ++i) list += (i ? ", " : "") + parts[i];
    return list;
  };
  std::string note;
  if (!own.empty())
    note = fmt::format("earlier runs in the history varied more than this run's rounds, so the interval of {} is their "
                       "spread (up to {} earlier runs): where the next run's median should fall",
                       join(own), earlier);
  if (!prior.empty())
    note += fmt::format("{}with fewer than {} earlier runs of their own, the intervals of {} hold the run-to-run spread "
                        "measured on cases of their kind (sd {:.0f}% of the median where the host sets the speed: the "
                        "CPU, launch-bound steps; {:.1f}% where the device does): rounds in one run cannot see how the "
                        "machine changes between runs; each run stored narrows it to this machine's own spread",
                        note.empty() ? "" : "; ", kOwnHistoryRuns, join(prior), 100 * kHostBoundRunSdLog,
                        100 * kDeviceBoundRunSdLog);
  return note;
}

}  // namespace accelbench
