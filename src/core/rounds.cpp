#include "core/rounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "core/durations.h"
#include "core/stats.h"

namespace accelbench {

double HierarchicalEstimate::ci_half_width_relative() const {
  if (median <= 0) return INFINITY;
  return (high - low) / 2.0 / median;
}

namespace {
std::vector<std::vector<double>> non_empty_rounds(const Rounds& rounds) {
  std::vector<std::vector<double>> out;
  for (const auto& r : rounds.samples) {
    if (r.empty()) continue;
    for (double x : r)
      if (!(x > 0)) throw std::invalid_argument("rounds: samples must be positive (the interval is built in log space)");
    out.push_back(r);
  }
  if (out.empty()) throw std::invalid_argument("rounds: no samples");
  return out;
}

double median_in_place(std::vector<double>& v) {
  const auto mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2.0;
  return m;
}

double pooled_median(const std::vector<std::vector<double>>& rounds) {
  std::vector<double> all;
  for (const auto& r : rounds) all.insert(all.end(), r.begin(), r.end());
  return median_in_place(all);
}

std::vector<double> medians_of(const std::vector<std::vector<double>>& rounds) {
  std::vector<double> out;
  for (auto r : rounds) out.push_back(median_in_place(r));
  return out;
}

// One two-level resample: R rounds drawn with replacement, each round's samples drawn with
// replacement within it; returns the median of the pool.
double two_level_resample_median(const std::vector<std::vector<double>>& rounds, std::mt19937_64& rng,
                                 std::vector<double>& pool) {
  pool.clear();
  std::uniform_int_distribution<std::size_t> pick_round(0, rounds.size() - 1);
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    const auto& r = rounds[pick_round(rng)];
    std::uniform_int_distribution<std::size_t> pick(0, r.size() - 1);
    for (std::size_t k = 0; k < r.size(); ++k) pool.push_back(r[pick(rng)]);
  }
  return median_in_place(pool);
}

std::vector<double> bootstrap_medians(const std::vector<std::vector<double>>& rounds, int resamples, std::mt19937_64& rng) {
  std::vector<double> reps, pool;
  reps.reserve(static_cast<std::size_t>(std::max(resamples, 1)));
  for (int i = 0; i < std::max(resamples, 1); ++i) reps.push_back(two_level_resample_median(rounds, rng, pool));
  return reps;
}

std::pair<double, double> percentile_interval(std::vector<double> reps, double confidence) {
  std::sort(reps.begin(), reps.end());
  const double alpha = 1.0 - confidence;
  return {quantile_sorted(reps, alpha / 2), quantile_sorted(reps, 1 - alpha / 2)};
}

double upper_quantile_level(double confidence) { return 1.0 - (1.0 - confidence) / 2.0; }
}  // namespace

double sd_log(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  double mean = 0;
  for (double v : x) mean += std::log(v);
  mean /= static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (std::log(v) - mean) * (std::log(v) - mean);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

HierarchicalEstimate median_ci_hierarchical(const Rounds& rounds, double confidence, int resamples, std::uint64_t seed) {
  const auto rs = non_empty_rounds(rounds);
  HierarchicalEstimate e;
  e.confidence = confidence;
  e.rounds = rs.size();
  e.median = pooled_median(rs);
  e.round_medians = medians_of(rs);
  e.between_round_sd_log = sd_log(e.round_medians);
  {
    auto m = e.round_medians;
    const double mid = median_in_place(m);
    const auto [mn, mx] = std::minmax_element(e.round_medians.begin(), e.round_medians.end());
    e.between_round_range_relative = (*mx - *mn) / mid;
  }
  std::mt19937_64 rng(seed);
  const auto reps = bootstrap_medians(rs, resamples, rng);
  std::tie(e.bootstrap_low, e.bootstrap_high) = percentile_interval(reps, confidence);
  e.bootstrap_sd_log = sd_log(reps);

  const bool between_rounds_known = e.rounds >= 2;
  if (between_rounds_known) {
    const auto r = static_cast<double>(e.rounds);
    const double t = t_quantile(upper_quantile_level(confidence), r - 1);
    const double level_half_log = t * e.between_round_sd_log / std::sqrt(r);
    const double next_half_log = t * e.between_round_sd_log * std::sqrt(2.0 / r);  // this run's R and the next's R
    e.level_low = e.median * std::exp(-level_half_log);
    e.level_high = e.median * std::exp(level_half_log);
    e.low = e.median * std::exp(-next_half_log);
    e.high = e.median * std::exp(next_half_log);
    e.method = fmt::format(
        "where the next run's median falls: pooled median x exp(+- t_{{{:.0f}}} {:.4f} x sd(log round medians) x "
        "sqrt(1/{:.0f} + 1/{:.0f})), Student t on the {} rounds' medians (the rounds' level varies, and so will the next "
        "run's)",
        r - 1, t, r, r, e.rounds);
  } else {
    e.low = e.level_low = e.bootstrap_low;
    e.high = e.level_high = e.bootstrap_high;
    e.method = "bootstrap percentile interval within the only round: it ignores how separate runs differ";
  }
  return e;
}

HierarchicalRatio ratio_of_medians_hierarchical(const Rounds& numerator, const Rounds& denominator, double confidence,
                                                int resamples, std::uint64_t seed) {
  const auto num = non_empty_rounds(numerator), den = non_empty_rounds(denominator);
  HierarchicalRatio out;
  out.confidence = confidence;
  out.ratio = pooled_median(num) / pooled_median(den);
  std::mt19937_64 rng(seed);
  const auto rn = bootstrap_medians(num, resamples, rng);
  const auto rd = bootstrap_medians(den, resamples, rng);
  std::vector<double> ratios(rn.size());
  for (std::size_t i = 0; i < rn.size(); ++i) ratios[i] = rn[i] / rd[i];
  std::tie(out.bootstrap_low, out.bootstrap_high) = percentile_interval(ratios, confidence);

  const bool both_sides_have_rounds = num.size() >= 2 && den.size() >= 2;
  if (!both_sides_have_rounds) {
    out.low = out.level_low = out.bootstrap_low;
    out.high = out.level_high = out.bootstrap_high;
    out.method = "two-level bootstrap percentile interval: a side has a single round, so how separate runs differ "
                 "is unknown and not included";
    return out;
  }
  // Welch: each side's variance of its mean log level, and the Welch-Satterthwaite dof.
  const double rn_count = static_cast<double>(num.size()), rd_count = static_cast<double>(den.size());
  const double vn = std::pow(sd_log(medians_of(num)), 2) / rn_count;
  const double vd = std::pow(sd_log(medians_of(den)), 2) / rd_count;
  const double se = std::sqrt(vn + vd);
  const double denom = vn * vn / (rn_count - 1) + vd * vd / (rd_count - 1);
  out.dof = denom > 0 ? (vn + vd) * (vn + vd) / denom : rn_count + rd_count - 2;
  const double t = t_quantile(upper_quantile_level(confidence), out.dof);
  out.level_low = out.ratio * std::exp(-t * se);
  out.level_high = out.ratio * std::exp(t * se);
  // The next run's ratio: its own rounds vary as these did (each variance twice; the dof the same).
  out.low = out.ratio * std::exp(-t * se * std::sqrt(2.0));
  out.high = out.ratio * std::exp(t * se * std::sqrt(2.0));
  out.method = fmt::format(
      "where the next run's ratio falls: ratio of pooled medians x exp(+- t_{{{:.1f}}} x sqrt(2) x se), Welch on the "
      "log round medians of {} and {} rounds",
      out.dof, num.size(), den.size());
  return out;
}

RoundsAgreement rounds_agreement(const Rounds& rounds, const HierarchicalEstimate& hierarchical, double ci_target) {
  RoundsAgreement a;
  a.between_half_width_relative = hierarchical.ci_half_width_relative();
  for (const auto& r : rounds.samples) {
    if (r.empty()) continue;
    const auto s = summarize(r, hierarchical.confidence > 0 ? hierarchical.confidence : 0.95);
    a.within_half_width_relative = std::max(a.within_half_width_relative, s.ci_half_width_relative());
  }
  const bool between_known = hierarchical.rounds >= 2;
  a.rounds_disagree = between_known && a.between_half_width_relative > ci_target;
  const bool rounds_precise = a.within_half_width_relative <= ci_target;
  a.add_rounds = a.rounds_disagree && rounds_precise;
  if (!between_known)
    a.advice = "one round: how separate runs differ is unknown; run another round";
  else if (a.add_rounds)
    a.advice = fmt::format(
        "rounds disagree: {} across {} rounds against a {:.1f}% target while each round is within {}: "
        "add rounds, not samples",
        format_relative_half_width(a.between_half_width_relative), hierarchical.rounds, 100 * ci_target,
        format_relative_half_width(a.within_half_width_relative));
  else if (a.rounds_disagree)
    a.advice = fmt::format("{} across rounds and {} within the widest round against a {:.1f}% target: "
                           "more samples per round and more rounds",
                           format_relative_half_width(a.between_half_width_relative),
                           format_relative_half_width(a.within_half_width_relative), 100 * ci_target);
  else
    a.advice = fmt::format("rounds agree: {} across {} rounds within the {:.1f}% target",
                           format_relative_half_width(a.between_half_width_relative), hierarchical.rounds, 100 * ci_target);
  return a;
}

}  // namespace accelbench
