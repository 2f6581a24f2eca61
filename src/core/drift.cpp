#include "core/drift.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/stats.h"

namespace accelbench {

namespace {
// 1-based ranks with ties averaged.
std::vector<double> ranks_of(std::span<const double> x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    const double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = avg;
    i = j + 1;
  }
  return r;
}

double median_of(std::span<const double> x) {
  std::vector<double> v(x.begin(), x.end());
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, 0.5);
}

// Pettitt: (K, t*) with t* the size of the first segment at the maximum of |U_t|.
std::pair<double, std::size_t> pettitt_statistic(std::span<const double> x) {
  const auto r = ranks_of(x);
  const double n = static_cast<double>(x.size());
  double rank_sum = 0, best = -1;
  std::size_t best_t = 1;
  for (std::size_t t = 1; t < x.size(); ++t) {
    rank_sum += r[t - 1];
    const double u = std::abs(2.0 * rank_sum - static_cast<double>(t) * (n + 1.0));
    if (u > best) {
      best = u;
      best_t = t;
    }
  }
  return {best, best_t};
}

// Sum of absolute deviations from the median of x[b, e).
double l1_cost(std::span<const double> x) {
  const double m = median_of(x);
  double c = 0;
  for (double v : x) c += std::abs(v - m);
  return c;
}

// Pettitt's maximum leans towards the series' middle (|U_t| has its largest spread there); the
// split that best separates two levels, min over t of the L1 cost of both sides, is searched in a
// neighbourhood of it.
std::size_t refine_change_index(std::span<const double> x, std::size_t t) {
  // Up to 64 samples either way: O(128 n log n) even for long series.
  const std::size_t reach = std::clamp<std::size_t>(x.size() / 10, 3, 64);
  const std::size_t lo = t > reach ? t - reach : 1, hi = std::min(x.size() - 1, t + reach);
  std::size_t best_t = t;
  double best = INFINITY;
  for (std::size_t c = lo; c <= hi; ++c) {
    const double cost = l1_cost(x.subspan(0, c)) + l1_cost(x.subspan(c));
    if (cost < best) {
      best = cost;
      best_t = c;
    }
  }
  return best_t;
}

double pettitt_p_value(double k, std::size_t n) {
  const double nn = static_cast<double>(n);
  return std::min(1.0, 2.0 * std::exp(-6.0 * k * k / (nn * nn * nn + nn * nn)));
}
}  // namespace

DriftResult detect_drift(std::span<const double> samples, const DriftOptions& options) {
  DriftResult d;
  const std::size_t n = samples.size();
  if (n < std::max<std::size_t>(options.min_samples, 2)) {
    d.method = fmt::format("Pettitt rank changepoint test: {} samples, fewer than the {} it needs", n, options.min_samples);
    return d;
  }
  const auto [k, t] = pettitt_statistic(samples);
  d.statistic = k;
  d.p_value = pettitt_p_value(k, n);
  d.change_index = refine_change_index(samples, t);
  d.level_before = median_of(samples.subspan(0, d.change_index));
  d.level_after = median_of(samples.subspan(d.change_index));
  d.relative_change = d.level_before != 0 ? d.level_after / d.level_before - 1.0 : 0.0;
  const bool significant = d.p_value <= options.alpha;
  const bool large_enough = std::abs(d.relative_change) >= options.min_relative_change;
  d.drift = significant && large_enough;
  d.method = fmt::format(
      "Pettitt rank changepoint test: level {:+.1f}% at sample {} of {} (K = {:.0f}, p = {:.2g}); {}", 100 * d.relative_change,
      d.change_index, n, k, d.p_value,
      d.drift ? "drift" : !significant ? fmt::format("not significant at {:g}", options.alpha)
                                       : fmt::format("smaller than {:g}%", 100 * options.min_relative_change));
  return d;
}

SettledLevel settled_level(std::span<const double> samples, std::size_t min_level_samples, double tolerance,
                           const DriftOptions& options) {
  SettledLevel s;
  // Binary segmentation towards the end: the last change of the whole, then of what follows it.
  std::size_t from = 0;
  while (samples.size() - from >= options.min_samples) {
    const auto d = detect_drift(samples.subspan(from), options);
    if (!d.drift) break;
    from += d.change_index;
    ++s.changes;
  }
  s.level_from = from;
  const auto current = samples.subspan(from);
  if (current.empty()) {
    s.reason = "no samples";
    return s;
  }
  s.level = median_of(current);
  if (current.size() < min_level_samples) {
    s.reason = fmt::format("{} samples on the current level (from sample {}), fewer than {}", current.size(), from,
                           min_level_samples);
    return s;
  }
  const auto recent = samples.subspan(samples.size() - min_level_samples);
  const auto recent_drift = detect_drift(recent, options);
  const double first_half = median_of(recent.first(recent.size() / 2));
  const double second_half = median_of(recent.subspan(recent.size() / 2));
  const double halves_change = first_half != 0 ? second_half / first_half - 1.0 : 0.0;
  const bool halves_agree = std::abs(halves_change) <= tolerance;
  s.settled = !recent_drift.drift && halves_agree;
  if (s.settled)
    s.reason = fmt::format("settled at {:.6g} from sample {} ({} level change(s) before)", s.level, from, s.changes);
  else if (recent_drift.drift)
    s.reason = "the last samples drift: " + recent_drift.method;
  else
    s.reason = fmt::format("the last {} samples' halves differ by {:+.1f}% (more than {:g}%)", recent.size(),
                           100 * halves_change, 100 * tolerance);
  return s;
}

}  // namespace accelbench

namespace accelbench {

DriftDecision decide_on_drift(std::span<const double> samples, bool time_left, int restarts_done, int max_restarts) {
  DriftDecision d;
  d.test = detect_drift(samples);
  if (!d.test.drift) return d;
  const bool can_restart = time_left && restarts_done < max_restarts && d.test.change_index > 0;
  if (can_restart) {
    d.drop_and_continue = true;
    d.drop = d.test.change_index;
  } else {
    d.drifting = true;
  }
  return d;
}

}  // namespace accelbench
