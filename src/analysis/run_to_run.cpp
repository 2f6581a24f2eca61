#include "analysis/run_to_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "analysis/speedup_spread.h"
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

std::string spread_kind(const std::string& device, bool graphs, double busy, bool few_samples) {
  std::string kind = "host-bound";
  if (device != "cpu" && busy >= kLaunchBoundShare) kind = busy < 0.9 ? "partly device-bound" : "device-bound";
  if (few_samples) kind += ", few samples";
  return graphs ? "graph replay, " + kind : kind;
}

bool has_few_samples(std::size_t samples, std::size_t rounds) { return samples < kFewSamples * std::max<std::size_t>(1, rounds); }

std::string spread_kind(const CaseResult& c) {
  const double busy = c.device_busy_fraction && std::isfinite(*c.device_busy_fraction) ? *c.device_busy_fraction : -1;
  return spread_kind(c.spec.device, c.spec.graphs, busy, has_few_samples(c.stats.n, c.rounds.size()));
}

bool comparable_distortion(const std::string& stored, const std::vector<std::string>& marks) {
  for (std::size_t at = 0; at < stored.size();) {
    const auto end = std::min(stored.find(", ", at), stored.size());
    if (std::find(marks.begin(), marks.end(), stored.substr(at, end - at)) == marks.end()) return false;
    at = end + 2;
  }
  return true;
}

std::vector<std::size_t> inlier_indices(const std::vector<double>& logs, std::optional<std::size_t> keep) {
  std::vector<std::size_t> kept(logs.size());
  std::iota(kept.begin(), kept.end(), std::size_t{0});
  if (logs.size() < 3) return kept;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const auto n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  const double mid = median(logs);
  std::vector<double> deviations;
  for (const double x : logs) deviations.push_back(std::fabs(x - mid));
  const double limit = std::max(std::log(kOutlierFactor), kOutlierSds * 1.4826 * median(deviations));
  std::erase_if(kept, [&](std::size_t i) { return std::fabs(logs[i] - mid) > limit && keep != i; });
  return kept;
}

CaseVariance series_variance(const std::vector<double>& logs, const std::vector<std::int64_t>& run_ids, bool keep_last) {
  CaseVariance out;
  const auto kept = inlier_indices(logs, keep_last && !logs.empty() ? std::optional<std::size_t>(logs.size() - 1) : std::nullopt);
  std::vector<double> values;
  for (std::size_t i = 0, k = 0; i < logs.size(); ++i) {
    if (k < kept.size() && kept[k] == i) {
      values.push_back(logs[i]);
      ++k;
    } else if (i < run_ids.size()) {
      out.outlier_runs.push_back(run_ids[i]);
    }
  }
  if (values.size() < 2) return out;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  out.moved = std::exp(*hi - *lo);
  double mean = 0, ss = 0;
  for (const double v : values) mean += v / static_cast<double>(values.size());
  for (const double v : values) ss += (v - mean) * (v - mean);
  const double dof = static_cast<double>(values.size() - 1);
  out.estimate = {ss / dof, dof};
  return out;
}

std::string too_wide_words(const RunToRun& r, double high_over_low, double moved, double rounds_moved) {
  if (!(high_over_low > kTooWideFactor)) return "";
  std::string why = r.from_history() && moved > 1 ? fmt::format("the runs it rests on moved {:.1f}x", moved)
                    : rounds_moved > 1.5        ? fmt::format("this run's rounds moved {:.1f}x", rounds_moved)
                                                : fmt::format("the spread it rests on is {:.0f}% ({})",
                                                              100 * std::expm1(r.sd_log),
                                                              r.source == "fallback" ? "a fallback constant" : r.source);
  if (!r.outlier_runs.empty() || !r.distorted_runs.empty())
    why += fmt::format(" after {} stored run{} left out", r.outlier_runs.size() + r.distorted_runs.size(),
                       r.outlier_runs.size() + r.distorted_runs.size() == 1 ? "" : "s");
  return fmt::format("its next run's range would span {:.0f}x: {}; quiet the machine (`accelbench doctor` names what "
                     "distorts timings) and run again, or remove stored runs made while it was busy (`accelbench "
                     "history` lists them, `accelbench history rm ID`)",
                     high_over_low, why);
}

void PooledVariance::add(double variance, double d) {
  if (!(d > 0) || !std::isfinite(variance) || variance < 0) return;
  weighted += d * variance;
  dof += d;
  ++members;
}

void set_run_to_run_widths(RunToRun& r, double variance, double dof) {
  r.sd_log = std::sqrt(variance);
  r.dof = dof;
  const double t = t_quantile(0.975, dof);
  r.half_width_log = t * r.sd_log * std::sqrt(2.0);
  r.level_half_width_log = t * r.sd_log;
}

RunToRun join_history_and_rounds(const PooledVariance& history, const PooledVariance& rounds) {
  RunToRun r;
  const double vh = history.variance(), vr = rounds.variance();
  if (history.dof > 0 && rounds.dof > 0) {
    // Does the history vary more than the rounds explain? F(history dof, rounds dof) at 95%.
    const bool beyond = vh > vr * f_quantile(0.95, history.dof, rounds.dof);
    r.source = beyond ? "history" : "history and rounds";
    if (beyond) set_run_to_run_widths(r, vh, history.dof);
    else set_run_to_run_widths(r, (history.weighted + rounds.weighted) / (history.dof + rounds.dof), history.dof + rounds.dof);
  } else if (history.dof > 0) {
    r.source = "history";
    set_run_to_run_widths(r, vh, history.dof);
  } else if (rounds.dof > 0) {
    r.source = "rounds";
    set_run_to_run_widths(r, vr, rounds.dof);
  }
  return r;
}

RunToRun combine_spread(const PooledVariance& history, const PooledVariance& rounds, const RunToRunPrior& fallback) {
  RunToRun r = join_history_and_rounds(history, rounds);
  if (r.source.empty()) {
    r.source = "fallback";
    r.prior_sd_log = fallback.sd_log;
    r.prior_basis = fmt::format("{}; {}", fallback.basis, kPriorMeasuredOn);
    set_run_to_run_widths(r, fallback.sd_log * fallback.sd_log, kPriorRuns);
    return r;
  }
  // Fewer degrees of freedom than the fallback's weight (two rounds of one case: one): t(1) = 12.7
  // would make the interval mostly the quantile's. The fallback joins as a prior worth kPriorRuns.
  if (r.dof < kPriorRuns) {
    const double prior_variance = fallback.sd_log * fallback.sd_log;
    r.prior_sd_log = fallback.sd_log;
    r.prior_basis = fmt::format("{}; {}", fallback.basis, kPriorMeasuredOn);
    set_run_to_run_widths(r, (kPriorRuns * prior_variance + r.dof * r.sd_log * r.sd_log) / (kPriorRuns + r.dof),
                          kPriorRuns + r.dof);
  }
  return r;
}

namespace {
std::string key(const std::string& model, const std::string& device, const std::string& dtype, std::int64_t batch,
                int threads) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", model, device, dtype, batch, threads);
}

}  // namespace

std::string spread_case_key(const CaseSpec& s) { return key(model_label(s), s.device, s.dtype, s.batch_size, s.threads); }

double median_variance_factor(std::size_t n) {
  // Var(median of n normal draws) * n / sigma^2 (exact for n <= 10; pi / 2 in the limit).
  static constexpr double kFactor[] = {1, 1, 1, 1.346, 1.193, 1.434, 1.288, 1.469, 1.350, 1.487, 1.386};
  return n < std::size(kFactor) ? kFactor[n] : 1.5708;
}

std::map<std::string, StoredCase> stored_cases(const RunResult& run, const std::vector<CaseHistoryPoint>& history) {
  std::vector<const CaseHistoryPoint*> same;
  for (const auto& p : history)
    if (p.host == run.context.host && p.torch_version == run.context.torch_version && p.median > 0 &&
        std::isfinite(p.median))
      same.push_back(&p);
  std::stable_sort(same.begin(), same.end(), [](const auto* a, const auto* b) { return a->run_id > b->run_id; });
  std::map<std::string, StoredCase> out;
  for (const auto* p : same) {
    auto& s = out[key(p->model(), p->device, p->dtype, p->batch_size, p->threads)];
    if (!comparable_distortion(p->distorted_by, run.context.distorted_by)) {
      if (s.distorted_runs.empty() || s.distorted_runs.back() != p->run_id) s.distorted_runs.push_back(p->run_id);
      continue;
    }
    if (!s.medians.empty() && s.medians.back().first == p->run_id) continue;  // one median a run
    if (s.medians.empty()) s.kind = spread_kind(p->device, p->graphs, p->device_busy_fraction, has_few_samples(p->n, p->rounds));
    s.medians.emplace_back(p->run_id, p->median);
  }
  return out;
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
  const auto stored = stored_cases(run, history);
  std::map<std::string, const CaseResult*> current;
  for (const auto& c : run.cases)
    if (c.ok() && c.stats.median > 0 && std::isfinite(c.stats.median)) current[spread_case_key(c.spec)] = &c;
  std::set<std::string> keys;
  for (const auto& [k, s] : stored) keys.insert(k);
  for (const auto& [k, c] : current) keys.insert(k);
  CaseVariances out;
  for (const auto& k : keys) {
    const auto s = stored.find(k);
    const auto c = current.find(k);
    std::vector<double> logs;
    std::vector<std::int64_t> ids;
    if (s != stored.end())
      for (std::size_t i = std::min(s->second.medians.size(), kMaxEarlierRuns); i-- > 0;) {  // oldest first
        logs.push_back(std::log(s->second.medians[i].second));
        ids.push_back(s->second.medians[i].first);
      }
    if (c != current.end()) logs.push_back(std::log(c->second->stats.median));
    auto v = series_variance(logs, ids, c != current.end());
    v.kind = c != current.end() ? spread_kind(*c->second) : s->second.kind;
    if (s != stored.end()) v.distorted_runs = s->second.distorted_runs;
    if (v.estimate.dof > 0 || !v.distorted_runs.empty() || !v.outlier_runs.empty()) out[k] = std::move(v);
  }
  return out;
}

PooledVariance moderated_variance(const CaseVariances& all, const std::string& kind, const std::string& case_key) {
  std::vector<VarianceEstimate> of_kind;
  for (const auto& [k, v] : all)
    if (v.kind == kind && v.estimate.dof > 0) of_kind.push_back(v.estimate);
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
std::size_t count_earlier(const CaseResult& c, const std::vector<CaseHistoryPoint>& history, const RunContext& ctx) {
  std::set<std::int64_t> runs;
  for (const auto& p : history)
    if (p.host == ctx.host && p.torch_version == ctx.torch_version && p.is_case(c.spec) && p.threads == c.spec.threads &&
        comparable_distortion(p.distorted_by, ctx.distorted_by))
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
  std::size_t given = 0;
  for (auto& c : run.cases) {
    if (!c.ok() || !(c.stats.median > 0) || !std::isfinite(c.stats.median) || c.stats.n < 1) continue;
    const auto kind = spread_kind(c);
    const auto key = spread_case_key(c.spec);
    const auto h = moderated_variance(from_history, kind, key);
    RunToRun r = combine_spread(h, moderated_variance(from_rounds, kind, key), run_to_run_prior(c));
    r.kind = kind;
    r.history_cases = h.members;
    r.earlier_runs = count_earlier(c, history, run.context);
    r.widened = true;
    double moved = 1;
    if (const auto own = from_history.find(key); own != from_history.end()) {
      r.distorted_runs = own->second.distorted_runs;
      r.outlier_runs = own->second.outlier_runs;
      moved = own->second.moved;
    }
    double rounds_lo = c.stats.median, rounds_hi = c.stats.median;
    for (const auto& round : c.rounds)
      if (round.median_s > 0) rounds_lo = std::min(rounds_lo, round.median_s), rounds_hi = std::max(rounds_hi, round.median_s);
    r.too_wide = too_wide_words(r, std::exp(2 * r.half_width_log), moved, rounds_hi / rounds_lo);
    c.stats.ci_low = c.stats.median * std::exp(-r.half_width_log);
    c.stats.ci_high = c.stats.median * std::exp(r.half_width_log);
    c.interval_method += fmt::format("; shown: the next run's range, t({:.0f}) * sd * sqrt(2) with the run-to-run sd "
                                     "{:.1f}% from {}",
                                     r.dof, 100 * r.sd_log, method_words(r));
    c.run_to_run = std::move(r);
    ++given;
  }
  apply_speedup_spreads(run, history);
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
  return "95% intervals are where the next run's median should fall (each stored run teaches this host's spread): " + note +
         speedup_spread_note(run);
}

}  // namespace accelbench
