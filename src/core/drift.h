#pragma once
// Drift within one round: has the level of a series of samples (step times) changed part-way
// through? A round whose level moved (a clock that stepped down, a cache or allocator that settled
// late, another process arriving) gives a median that describes neither level, and a warm-up that
// stopped on a level the samples later left.
//
// The test is Pettitt's (1979) rank changepoint test: U_t = 2 * sum_{i <= t} rank_i - t (n + 1) is
// the Mann-Whitney statistic of samples [0, t) against [t, n); K = max_t |U_t| marks the most likely
// change and its p-value is about 2 exp(-6 K^2 / (n^3 + n^2)) (conservative for small n). Ranks
// make it indifferent to the noise's distribution (heavy tails, lognormal spikes) as long as the
// samples are independent. Drift is reported only when the change is both significant (p <= alpha)
// and large enough to matter (relative change of the medians >= min_relative_change).
#include <cstddef>
#include <span>
#include <string>

namespace accelbench {

struct DriftOptions {
  double alpha = 0.01;                // significance of the changepoint test
  double min_relative_change = 0.02;  // smaller level changes are not drift worth acting on
  std::size_t min_samples = 8;        // fewer: no test (drift = false, p_value = 1)
};

struct DriftResult {
  bool drift = false;
  std::size_t change_index = 0;       // first sample of the new level (0 when there is no change tested)
  double level_before = 0, level_after = 0;  // medians of [0, change_index) and [change_index, n)
  double relative_change = 0;         // level_after / level_before - 1 (signed: -0.45 is 45% faster)
  double statistic = 0;               // Pettitt's K = max |U_t|
  double p_value = 1;
  std::string method;                 // the test and its verdict in words
};

// The most likely level change in `samples` (in time order) and whether it is drift.
DriftResult detect_drift(std::span<const double> samples, const DriftOptions& options = {});

// For warm-up: where the current level of the series starts, and whether it is settled.
struct SettledLevel {
  bool settled = false;
  std::size_t level_from = 0;  // first sample of the current level (after the last change found)
  double level = 0;            // median of samples [level_from, n)
  std::size_t changes = 0;     // level changes found before it
  std::string reason;          // why it is (not) settled, in words
};

// The current level is the part of the series after its last significant change (found by binary
// segmentation: detect_drift on the whole, then again on what follows each change). It is settled
// when at least `min_level_samples` samples lie on it and the last `min_level_samples` of them
// neither drift (detect_drift) nor have halves whose medians differ by more than `tolerance` (a
// change too recent for the test's significance: a few samples on a new level, a ramp still
// going). Call it on all steps so far (warm-up, and measured steps too): no function can tell, on
// a plateau, that the samples will leave it; a level left later shows up as a change, and
// level_from says where the steady samples begin.
SettledLevel settled_level(std::span<const double> samples, std::size_t min_level_samples = 10, double tolerance = 0.05,
                           const DriftOptions& options = {});

}  // namespace accelbench

namespace accelbench {

// What a round does about a level change once its stopping rule is met: drop the samples before
// the change and go on sampling (the warm-up was not over: they are counted as warm-up), while time
// and restarts are left; else keep them and flag the round `drifting`.
struct DriftDecision {
  bool drop_and_continue = false;
  std::size_t drop = 0;       // samples to drop from the front
  bool drifting = false;      // a change found with no time or restart left to act on it
  DriftResult test;
};
inline constexpr int kMaxDriftRestarts = 2;
DriftDecision decide_on_drift(std::span<const double> samples, bool time_left, int restarts_done,
                              int max_restarts = kMaxDriftRestarts);

}  // namespace accelbench
