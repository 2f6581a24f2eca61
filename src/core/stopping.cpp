#include "core/stopping.h"

#include <algorithm>
#include <cmath>

namespace accelbench {

void AdaptiveStopper::add(double sample_s, double elapsed_s) {
  samples_.push_back(sample_s);
  elapsed_s_ = elapsed_s;
}

void AdaptiveStopper::refresh() {
  if (summarized_n_ == samples_.size()) return;
  // Re-sorting thousands of samples after every one is wasteful: for large n, refresh when the
  // count has grown by 5% (a stop decision is then at most 5% late).
  if (summarized_n_ > 200 && samples_.size() < summarized_n_ + summarized_n_ / 20) return;
  summary_ = summarize(samples_, rule_.confidence);
  summarized_n_ = samples_.size();
}

double AdaptiveStopper::relative_half_width() {
  if (samples_.empty()) return INFINITY;
  refresh();
  return summary_.ci_half_width_relative();
}

bool AdaptiveStopper::target_met() {
  if (samples_.size() < rule_.min_samples || samples_.size() < 2) return false;
  refresh();
  // A CI that could not reach its nominal coverage (too few samples) does not count as met.
  if (summary_.ci_confidence + 1e-12 < rule_.confidence) return false;
  return summary_.ci_half_width_relative() <= rule_.ci_target;
}

bool AdaptiveStopper::should_stop() {
  if (elapsed_s_ >= rule_.max_time_s) return true;
  if (elapsed_s_ < rule_.min_time_s) return false;
  return target_met();
}

std::size_t WarmupDetector::window() const {
  if (steps_.empty()) return 1;
  const double last = std::max(steps_.back(), 1e-9);
  const auto w = static_cast<std::size_t>(std::floor(opt_.window_time_s / last));
  return std::clamp<std::size_t>(w, 1, opt_.max_window);
}

namespace {
double median_of_range(std::vector<double>::const_iterator b, std::vector<double>::const_iterator e) {
  std::vector<double> v(b, e);
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, 0.5);
}
}  // namespace

double WarmupDetector::recent_median() const {
  if (steps_.empty()) return 0;
  const auto w = std::min(window(), steps_.size());
  return median_of_range(steps_.end() - static_cast<std::ptrdiff_t>(w), steps_.end());
}

bool WarmupDetector::stable() const {
  const auto w = window();
  if (steps_.size() < std::max(opt_.min_steps, 2 * w)) return false;
  const auto end = steps_.end();
  const double last = median_of_range(end - static_cast<std::ptrdiff_t>(w), end);
  const double prev = median_of_range(end - static_cast<std::ptrdiff_t>(2 * w), end - static_cast<std::ptrdiff_t>(w));
  return std::abs(last - prev) <= opt_.tolerance * prev;
}

}  // namespace accelbench
