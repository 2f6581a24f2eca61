#pragma once
// Statistics of timing samples: robust summaries, a distribution-free confidence interval of the
// median, and the ratio of two medians with a bootstrap confidence interval.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/t_distribution.h"  // t_cdf, t_quantile, t_quantile_95, normal_quantile: re-exported

namespace accelbench {

struct Summary {
  std::size_t n = 0;
  double median = 0, mean = 0, stddev = 0;
  double q1 = 0, q3 = 0, iqr = 0, min = 0, max = 0;
  // Distribution-free confidence interval of the median from order statistics.
  double ci_low = 0, ci_high = 0;
  double ci_confidence = 0;  // coverage actually achieved (>= the level asked, or less when n is small)
  std::size_t outliers = 0;  // outside the Tukey fences q1 - 1.5 IQR, q3 + 1.5 IQR

  // Half the CI's width relative to the median: the "+-x%" of the median.
  double ci_half_width_relative() const;
};

// Linear-interpolation quantile (type 7, as numpy's default) of sorted data, p in [0, 1].
double quantile_sorted(std::span<const double> sorted, double p);

// 1-based ranks (l, u) of the order statistics that bound the median with at least `confidence`
// coverage: P(X_(l) <= median <= X_(u)) = 1 - 2 * P(Binom(n, 1/2) <= l - 1).
// When n is too small for that coverage, returns (1, n) (the whole range).
std::pair<std::size_t, std::size_t> median_ci_ranks(std::size_t n, double confidence);
// Coverage of the interval between ranks l and n - l + 1.
double median_ci_coverage(std::size_t n, std::size_t l);

Summary summarize(std::span<const double> samples, double confidence = 0.95);

struct RatioEstimate {
  double ratio = 0, low = 0, high = 0;
};
// median(numerator) / median(denominator), with a percentile bootstrap CI (deterministic seed).
RatioEstimate ratio_of_medians(std::span<const double> numerator, std::span<const double> denominator,
                               double confidence = 0.95, int resamples = 2000, std::uint64_t seed = 12345);
// ratio_of_medians when both sides have at least two samples; none otherwise: the bootstrap of a
// single sample has no spread, and its interval would be one value, as sure as it is not.
std::optional<RatioEstimate> ratio_of_medians_with_spread(std::span<const double> numerator,
                                                          std::span<const double> denominator);
// Paired samples, numerator[i] taken beside denominator[i] so that what drifts from pair to pair
// cancels: the geometric mean of the ratios, with the Student t interval of the mean log ratio.
// Throws std::invalid_argument unless both have the same size, at least 2, all positive.
RatioEstimate paired_ratio(std::span<const double> numerator, std::span<const double> denominator,
                           double confidence = 0.95);

}  // namespace accelbench
