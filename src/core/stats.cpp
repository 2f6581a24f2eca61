#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace accelbench {

double Summary::ci_half_width_relative() const {
  if (median <= 0) return INFINITY;
  return (ci_high - ci_low) / 2.0 / median;
}

double quantile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no samples");
  if (sorted.size() == 1) return sorted[0];
  const double h = (static_cast<double>(sorted.size()) - 1.0) * std::clamp(p, 0.0, 1.0);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

namespace {
// P(Binom(n, 1/2) <= k), computed in log space so that large n does not overflow.
double binomial_half_cdf(std::size_t n, std::size_t k) {
  if (k >= n) return 1.0;
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  double total = 0.0;
  for (std::size_t i = 0; i <= k; ++i) {
    const double log_choose = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
                              std::lgamma(static_cast<double>(n - i) + 1);
    total += std::exp(log_choose + log_half_n);
  }
  return std::min(total, 1.0);
}
}  // namespace

double median_ci_coverage(std::size_t n, std::size_t l) {
  if (n == 0 || l == 0) return 0.0;
  return 1.0 - 2.0 * binomial_half_cdf(n, l - 1);
}

std::pair<std::size_t, std::size_t> median_ci_ranks(std::size_t n, double confidence) {
  if (n == 0) return {0, 0};
  const double alpha_half = (1.0 - confidence) / 2.0;
  // Largest l with P(Binom <= l-1) <= alpha/2. P grows with l, so walk up from 1.
  std::size_t best = 0;
  if (n > 2000) {
    // Normal approximation for big n (exact sum would be slow and is indistinguishable).
    const double z = normal_quantile(1.0 - alpha_half);
    const double half = z * std::sqrt(static_cast<double>(n)) / 2.0;
    best = static_cast<std::size_t>(std::max(1.0, std::floor(static_cast<double>(n) / 2.0 - half)));
  } else {
    for (std::size_t l = 1; l <= (n + 1) / 2; ++l) {
      if (binomial_half_cdf(n, l - 1) <= alpha_half) best = l;
      else break;
    }
  }
  if (best == 0) return {1, n};
  return {best, n - best + 1};
}

Summary summarize(std::span<const double> samples, double confidence) {
  Summary s;
  s.n = samples.size();
  if (s.n == 0) return s;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = quantile_sorted(v, 0.5);
  s.q1 = quantile_sorted(v, 0.25);
  s.q3 = quantile_sorted(v, 0.75);
  s.iqr = s.q3 - s.q1;
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  const double lo_fence = s.q1 - 1.5 * s.iqr, hi_fence = s.q3 + 1.5 * s.iqr;
  s.outliers = static_cast<std::size_t>(
      std::count_if(v.begin(), v.end(), [&](double x) { return x < lo_fence || x > hi_fence; }));
  const auto [l, u] = median_ci_ranks(s.n, confidence);
  s.ci_low = v[l - 1];
  s.ci_high = v[u - 1];
  s.ci_confidence = (l == 1 && u == s.n) ? 1.0 - 2.0 * std::pow(0.5, static_cast<double>(s.n))
                                         : median_ci_coverage(s.n, l);
  if (s.n == 1) s.ci_confidence = 0.0;
  return s;
}

namespace {
double median_of(std::vector<double>& v) {
  const auto mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) {
    const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    m = (m + lower) / 2.0;
  }
  return m;
}
}  // namespace

std::optional<RatioEstimate> ratio_of_medians_with_spread(std::span<const double> numerator,
                                                          std::span<const double> denominator) {
  if (numerator.size() < 2 || denominator.size() < 2) return std::nullopt;
  return ratio_of_medians(numerator, denominator);
}

RatioEstimate ratio_of_medians(std::span<const double> numerator, std::span<const double> denominator,
                               double confidence, int resamples, std::uint64_t seed) {
  if (numerator.empty() || denominator.empty()) throw std::invalid_argument("ratio of medians of no samples");
  std::vector<double> a(numerator.begin(), numerator.end()), b(denominator.begin(), denominator.end());
  RatioEstimate r;
  {
    auto a2 = a, b2 = b;
    r.ratio = median_of(a2) / median_of(b2);
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick_a(0, a.size() - 1), pick_b(0, b.size() - 1);
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  std::vector<double> ra(a.size()), rb(b.size());
  for (int i = 0; i < resamples; ++i) {
    for (auto& x : ra) x = a[pick_a(rng)];
    for (auto& x : rb) x = b[pick_b(rng)];
    ratios.push_back(median_of(ra) / median_of(rb));
  }
  std::sort(ratios.begin(), ratios.end());
  const double alpha = 1.0 - confidence;
  r.low = quantile_sorted(ratios, alpha / 2.0);
  r.high = quantile_sorted(ratios, 1.0 - alpha / 2.0);
  return r;
}

RatioEstimate paired_ratio(std::span<const double> numerator, std::span<const double> denominator, double confidence) {
  if (numerator.size() != denominator.size() || numerator.size() < 2)
    throw std::invalid_argument("a paired ratio needs two or more pairs");
  std::vector<double> logs;
  for (std::size_t i = 0; i < numerator.size(); ++i) {
    if (!(numerator[i] > 0) || !(denominator[i] > 0)) throw std::invalid_argument("a paired ratio of a non-positive sample");
    logs.push_back(std::log(numerator[i] / denominator[i]));
  }
  const double n = static_cast<double>(logs.size());
  const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / n;
  double ss = 0;
  for (double x : logs) ss += (x - mean) * (x - mean);
  const double half = t_quantile(0.5 + confidence / 2.0, n - 1.0) * std::sqrt(ss / (n - 1.0) / n);
  return RatioEstimate{.ratio = std::exp(mean), .low = std::exp(mean - half), .high = std::exp(mean + half)};
}

}  // namespace accelbench
