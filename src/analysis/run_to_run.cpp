#include "analysis/run_to_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "core/durations.h"
#include "core/rounds.h"
#include "core/t_distribution.h"

namespace accelbench {

VarianceEstimate fit_variance_prior(const std::vector<VarianceEstimate>& estimates) {
  std::vector<VarianceEstimate> usable;
  double total_dof = 0;
  for (const auto& e : estimates)
    if (e.variance > 0 && e.dof > 0 && std::isfinite(e.variance) && std::isfinite(e.dof)) {
      usable.push_back(e);
      total_dof += e.dof;
    }
  if (usable.empty()) return {};
  if (usable.size() == 1) return usable.front();
  // z_i = log s_i^2 - digamma(d_i/2) + log(d_i/2) has mean log s0^2 - digamma(d0/2) + log(d0/2) and
  // variance trigamma(d_i/2) + trigamma(d0/2).
  const double n = static_cast<double>(usable.size());
  double mean = 0, sampling = 0;
  std::vector<double> z;
  for (const auto& e : usable) {
    z.push_back(std::log(e.variance) - digamma(e.dof / 2) + std::log(e.dof / 2));
    mean += z.back() / n;
    sampling += trigamma(e.dof / 2) / n;
  }
  double spread = 0;
  for (const double v : z) spread += (v - mean) * (v - mean) / (n - 1);
  const double excess = spread - sampling;
  if (!(excess > 0)) return {std::exp(mean), total_dof};  // no spread beyond sampling: d0 infinite, capped
  const double d0 = 2 * trigamma_inverse(excess);
  return {std::exp(mean + digamma(d0 / 2) - std::log(d0 / 2)), std::min(d0, total_dof)};
}

VarianceEstimate moderate_variance(const VarianceEstimate& own, const VarianceEstimate& prior) {
  if (!(prior.dof > 0)) return own;
  if (!(own.dof > 0)) return prior;
  const double dof = prior.dof + own.dof;
  return {(prior.dof * prior.variance + own.dof * own.variance) / dof, dof};
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

std::string spread_kind(const std::string& device, bool graphs, double busy) {
  std::string kind = "host-bound";
  if (device != "cpu" && busy >= kLaunchBoundShare) kind = busy < 0.9 ? "partly device-bound" : "device-bound";
  return graphs ? "graph replay, " + kind : kind;
}

std::string spread_kind(const CaseResult& c) {
  const double busy = c.device_busy_fraction && std::isfinite(*c.device_busy_fraction) ? *c.device_busy_fraction : -1;
  return spread_kind(c.spec.device, c.spec.graphs, busy);
}

void PooledVariance::add(double variance, double d) {
  if (!(d > 0) || !std::isfinite(variance) || variance < 0) return;
  weighted += d * variance;
  dof += d;
  ++members;
}

namespace {
// Half-widths from a run's log variance and its degrees of freedom.
void set_widths(RunToRun& r, double variance, double dof) {
  r.sd_log = std::sqrt(variance);
  r.dof = dof;
  const double t = t_quantile(0.975, dof);
  r.half_width_log = t * r.sd_log * std::sqrt(2.0);
  r.level_half_width_log = t * r.sd_log;
}
}  // namespace

RunToRun combine_spread(const PooledVariance& history, const PooledVariance& rounds, const RunToRunPrior& fallback) {
  RunToRun r;
  const double vh = history.variance(), vr = rounds.variance();
  if (history.dof > 0 && rounds.dof > 0) {
    // Does the history vary more than the rounds explain? F(history dof, rounds dof) at 95%.
    const bool beyond = vh > vr * f_quantile(0.95, history.dof, rounds.dof);
    r.source = beyond ? "history" : "history and rounds";
    if (beyond) set_widths(r, vh, history.dof);
    else set_widths(r, (history.weighted + rounds.weighted) / (history.dof + rounds.dof), history.dof + rounds.dof);
  } else if (history.dof > 0) {
    r.source = "history";
    set_widths(r, vh, history.dof);
  } else if (rounds.dof > 0) {
    r.source = "rounds";
    set_widths(r, vr, rounds.dof);
  } else {
    r.source = "fallback";
    r.prior_sd_log = fallback.sd_log;
    r.prior_basis = fmt::format("{}; {}", fallback.basis, kPriorMeasuredOn);
    set_widths(r, fallback.sd_log * fallback.sd_log, kPriorRuns);
    return r;
  }
  // Fewer degrees of freedom than the fallback's weight (two rounds of one case: one): t(1) = 12.7
  // would make the interval mostly the quantile's. The fallback joins as a prior worth kPriorRuns.
  if (r.dof < kPriorRuns) {
    const double prior_variance = fallback.sd_log * fallback.sd_log;
    r.prior_sd_log = fallback.sd_log;
    r.prior_basis = fmt::format("{}; {}", fallback.basis, kPriorMeasuredOn);
    set_widths(r, (kPriorRuns * prior_variance + r.dof * r.sd_log * r.sd_log) / (kPriorRuns + r.dof), kPriorRuns + r.dof);
  }
  return r;
}

namespace {
// "mlp[graphs]" -> "mlp", "mlp[width=8,graphs]" -> "mlp[width=8]": the label of the eager case.
std::string eager_label(std::string label) {
  for (const char* part : {",graphs]", "[graphs]"})
    if (const auto at = label.find(part); at != std::string::npos) label.replace(at, std::strlen(part), part[0] == ',' ? "]" : "");
  return label;
}

std::string key(const std::string& model, const std::string& device, const std::string& dtype, std::int64_t batch,
                int threads) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", model, device, dtype, batch, threads);
}

// One stored case's runs: its log medians, newest first, one a run, and its kind.
struct Series {
  std::vector<double> medians;
  std::int64_t last_run = -1;
  std::string kind;
};

std::map<std::string, Series> stored_series(const RunResult& run, const std::vector<CaseHistoryPoint>& history) {
  std::vector<const CaseHistoryPoint*> same;
  for (const auto& p : history)
    if (p.host == run.context.host && p.torch_version == run.context.torch_version && p.median > 0 &&
        std::isfinite(p.median))
      same.push_back(&p);
  std::stable_sort(same.begin(), same.end(), [](const auto* a, const auto* b) { return a->run_id > b->run_id; });
  std::map<std::string, Series> series;
  for (const auto* p : same) {
    auto& s = series[key(p->model(), p->device, p->dtype, p->batch_size, p->threads)];
    if (p->run_id == s.last_run || s.medians.size() == kMaxEarlierRuns) continue;  // one median a run
    if (s.medians.empty()) s.kind = spread_kind(p->device, p->graphs, p->device_busy_fraction);
    s.last_run = p->run_id;
    s.medians.push_back(p->median);
  }
  return series;
}
}  // namespace

std::string spread_case_key(const CaseSpec& s) { return key(model_label(s), s.device, s.dtype, s.batch_size, s.threads); }

double median_variance_factor(std::size_t n) {
  // Var(median of n normal draws) * n / sigma^2 (exact for n <= 10; pi / 2 in the limit).
  static constexpr double kFactor[] = {1, 1, 1, 1.346, 1.193, 1.434, 1.288, 1.469, 1.350, 1.487, 1.386};
  return n < std::size(kFactor) ? kFactor[n] : 1.5708;
}

CaseVariances rounds_variances(const RunResult& run) {
  CaseVariances out;
  for (const auto& c : run.cases) {
    if (!c.ok()) continue;
    std::vector<double> medians;
    for (const auto& r : c.rounds)
      if (r.median_s > 0 && std::isfinite(r.median_s)) medians.push_back(r.median_s);
    if (medians.size() < 2) continue;
    const double s = sd_log(medians), n = static_cast<double>(medians.size());
    // The variance of the run's median: of the rounds' median, which is the pooled median's level.
    out[spread_case_key(c.spec)] = {spread_kind(c), {s * s / n * median_variance_factor(medians.size()), n - 1}};
  }
  return out;
}

CaseVariances history_variances(const RunResult& run, const std::vector<CaseHistoryPoint>& history) {
  auto series = stored_series(run, history);
  for (const auto& c : run.cases) {
    if (!c.ok() || !(c.stats.median > 0) || !std::isfinite(c.stats.median)) continue;
    auto& s = series[spread_case_key(c.spec)];
    s.kind = spread_kind(c);
    s.medians.push_back(c.stats.median);
  }
  CaseVariances out;
  for (const auto& [k, s] : series) {
    if (s.medians.size() < 2) continue;
    const double sd = sd_log(s.medians);
    out[k] = {s.kind, {sd * sd, static_cast<double>(s.medians.size() - 1)}};
  }
  return out;
}

PooledVariance moderated_variance(const CaseVariances& all, const std::string& kind, const std::string& case_key) {
  std::vector<VarianceEstimate> of_kind;
  for (const auto& [k, v] : all)
    if (v.kind == kind) of_kind.push_back(v.estimate);
  const auto it = all.find(case_key);
  const VarianceEstimate own = it != all.end() && it->second.kind == kind ? it->second.estimate : VarianceEstimate{};
  // The case alone in its kind: its own estimate, not counted twice as its own prior.
  const bool alone = own.dof > 0 && of_kind.size() == 1;
  const auto m = alone ? own : moderate_variance(own, fit_variance_prior(of_kind));
  PooledVariance p;
  p.add(m.variance, m.dof);
  p.members = of_kind.size();
  return p;
}

namespace {
// The speed-up's range from its two cases' spreads: their variances add; Welch-Satterthwaite
// degrees of freedom, or the shared estimate's own where both come from the same pool.
void apply_to_speedup(Speedup& s, const RunToRun& a, const RunToRun& b) {
  if (!(s.ratio > 0) || !std::isfinite(s.ratio)) return;
  const double va = a.sd_log * a.sd_log, vb = b.sd_log * b.sd_log, v = va + vb;
  if (!(v > 0)) return;
  const bool shared = a.kind == b.kind && a.source == b.source && a.dof == b.dof && va == vb;
  const double dof = shared ? a.dof : v * v / ((va > 0 ? va * va / a.dof : 0) + (vb > 0 ? vb * vb / b.dof : 0));
  const double t = t_quantile(0.975, dof);
  s.level_low = s.ratio * std::exp(-t * std::sqrt(v));
  s.level_high = s.ratio * std::exp(t * std::sqrt(v));
  s.ci_low = s.ratio * std::exp(-t * std::sqrt(2 * v));
  s.ci_high = s.ratio * std::exp(t * std::sqrt(2 * v));
  s.widened_by_history = true;
}

std::size_t count_earlier(const CaseResult& c, const std::vector<CaseHistoryPoint>& history, const RunContext& ctx) {
  std::set<std::int64_t> runs;
  for (const auto& p : history)
    if (p.host == ctx.host && p.torch_version == ctx.torch_version && p.is_case(c.spec) && p.threads == c.spec.threads)
      runs.insert(p.run_id);
  return std::min(runs.size(), kMaxEarlierRuns);
}

std::string method_words(const RunToRun& r) {
  if (r.source == "fallback")
    return fmt::format("a fallback constant (sd {:.1f}%: {})", 100 * r.prior_sd_log, r.prior_basis);
  const std::string with_prior =
      r.uses_prior() ? fmt::format(", with a fallback constant as a prior worth {:.0f} runs (sd {:.1f}%: {})", kPriorRuns,
                                   100 * r.prior_sd_log, r.prior_basis)
                     : "";
  if (r.source == "rounds")
    return fmt::format("this run's rounds, pooled over the cases of its kind (no earlier run on this host; {}){}",
                       kRoundsSeeLess, with_prior);
  return fmt::format("earlier runs on this host of {} case{} of its kind{}{}", r.history_cases, r.history_cases == 1 ? "" : "s",
                     r.source == "history" ? " (they varied more than this run's rounds)" : " and this run's rounds",
                     with_prior);
}
}  // namespace

std::size_t apply_run_to_run(RunResult& run, const std::vector<CaseHistoryPoint>& history) {
  const auto from_history = history_variances(run, history);
  const auto from_rounds = rounds_variances(run);
  std::map<std::string, RunToRun> by_case;
  std::size_t given = 0;
  for (auto& c : run.cases) {
    if (!c.ok() || !(c.stats.median > 0) || !std::isfinite(c.stats.median) || c.stats.n < 1) continue;
    const auto kind = spread_kind(c);
    const auto h = moderated_variance(from_history, kind, spread_case_key(c.spec));
    RunToRun r = combine_spread(h, moderated_variance(from_rounds, kind, spread_case_key(c.spec)), run_to_run_prior(c));
    r.kind = kind;
    r.history_cases = h.members;
    r.earlier_runs = count_earlier(c, history, run.context);
    r.widened = true;
    c.stats.ci_low = c.stats.median * std::exp(-r.half_width_log);
    c.stats.ci_high = c.stats.median * std::exp(r.half_width_log);
    c.interval_method += fmt::format("; shown: the next run's range, t({:.0f}) * sd * sqrt(2) with the run-to-run sd "
                                     "{:.1f}% from {}",
                                     r.dof, 100 * r.sd_log, method_words(r));
    by_case[spread_case_key(c.spec)] = r;
    c.run_to_run = std::move(r);
    ++given;
  }
  auto find = [&](const std::string& model, const std::string& device, const Speedup& s) -> const RunToRun* {
    for (const auto& c : run.cases)
      if (model_label(c.spec) == model && c.spec.device == device && c.spec.dtype == s.dtype && c.spec.batch_size == s.batch_size)
        if (const auto it = by_case.find(spread_case_key(c.spec)); it != by_case.end()) return &it->second;
    return nullptr;
  };
  for (auto* list : {&run.speedups, &run.graph_speedups})
    for (auto& s : *list) {
      const auto* a = find(list == &run.speedups ? s.label() : eager_label(s.label()), s.baseline_device, s);
      const auto* b = find(s.label(), s.device, s);
      if (a && b) apply_to_speedup(s, *a, *b);
    }
  return given;
}

std::string run_to_run_note(const RunResult& run) {
  std::map<std::string, std::pair<const RunToRun*, std::vector<std::string>>> kinds;
  for (const auto& c : run.cases)
    if (c.run_to_run && c.run_to_run->widened) {
      auto& k = kinds[c.run_to_run->kind];
      if (!k.first) k.first = &*c.run_to_run;
      k.second.push_back(fmt::format("{} {}", model_label(c.spec), c.spec.device));
    }
  std::string note;
  for (const auto& [kind, k] : kinds) {
    std::string list;
    for (std::size_t i = 0; i < k.second.size(); ++i) list += (i ? ", " : "") + k.second[i];
    note += fmt::format("{}{} ({}): run-to-run sd {:.1f}% from {}, t with {:.0f} degrees of freedom",
                        note.empty() ? "" : "; ", kind, list, 100 * k.first->sd_log, method_words(*k.first), k.first->dof);
  }
  if (note.empty()) return note;
  return "95% intervals are where the next run's median should fall (each stored run teaches this host's spread): " + note;
}

}  // namespace accelbench
