#pragma once
// When to stop measuring a case (NVBench-style): the 95% CI of the median within a relative
// target, after a minimum number of samples and a minimum time, bounded by a maximum time.
// And when a warm-up is over: the step time has stopped moving.
#include <cstddef>
#include <vector>

#include "core/stats.h"

namespace accelbench {

struct StoppingRule {
  double ci_target = 0.02;      // half-width of the median's 95% CI, relative to the median
  std::size_t min_samples = 10;
  double min_time_s = 0.5;      // minimum time spent sampling
  double max_time_s = 30.0;     // hard limit on sampling time for one case
  double confidence = 0.95;
};

class AdaptiveStopper {
 public:
  explicit AdaptiveStopper(StoppingRule rule) : rule_(rule) {}
  // Adds one sample (seconds per step) taken after `elapsed_s` seconds of sampling in total.
  void add(double sample_s, double elapsed_s);
  // True once the target is met (with the minimums) or the maximum time has passed.
  bool should_stop();
  bool target_met();            // the CI target (with minimums) holds for the samples so far
  double relative_half_width(); // current CI half-width / median
  const std::vector<double>& samples() const { return samples_; }
  double elapsed_s() const { return elapsed_s_; }
  const StoppingRule& rule() const { return rule_; }

 private:
  void refresh();
  StoppingRule rule_;
  std::vector<double> samples_;
  double elapsed_s_ = 0;
  std::size_t summarized_n_ = 0;  // the summary below is of this many samples
  Summary summary_;
};

// Warm-up ends when the median of the last w step times is within `tolerance` of the median of
// the w before, with w chosen from the step time (long steps are steadier; short ones noisier).
class WarmupDetector {
 public:
  struct Options {
    std::size_t min_steps = 3;
    double tolerance = 0.05;
    double window_time_s = 0.5;  // w = clamp(floor(window_time_s / step), 1, max_window)
    std::size_t max_window = 5;
  };
  WarmupDetector() : WarmupDetector(Options{}) {}
  explicit WarmupDetector(Options o) : opt_(o) {}
  void add(double step_s) { steps_.push_back(step_s); }
  bool stable() const;
  std::size_t window() const;
  std::size_t count() const { return steps_.size(); }
  // Median of the last window of steps (the best estimate of the steady-state step time).
  double recent_median() const;

 private:
  Options opt_;
  std::vector<double> steps_;
};

}  // namespace accelbench
