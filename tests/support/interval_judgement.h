#pragma once
// The two numbers that judge next-run ranges over one series of runs (docs/methodology.md), for the
// tests that simulate machines: the coverage, the share of ordered pairs of runs (i, j) in which run
// i's range holds run j's figure, and the width ratio, a range's log width over the log range of the
// series' figures (the mean over the runs, and the first run's).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace accelbench::testing {

struct SeriesJudgement {
  double coverage = 0, width_ratio = 0, first_width_ratio = 0;
};

// runs[i]: run i's {figure, low, high}, in order.
inline SeriesJudgement judge_series(const std::vector<std::array<double, 3>>& runs) {
  int hit = 0, pairs = 0;
  double lo = runs[0][0], hi = runs[0][0], width = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    lo = std::min(lo, runs[i][0]), hi = std::max(hi, runs[i][0]);
    width += std::log(runs[i][2] / runs[i][1]) / static_cast<double>(runs.size());
    for (std::size_t j = 0; j < runs.size(); ++j)
      if (i != j) ++pairs, hit += runs[i][1] <= runs[j][0] && runs[j][0] <= runs[i][2];
  }
  const double range = std::log(hi / lo);
  return {static_cast<double>(hit) / pairs, width / range, std::log(runs[0][2] / runs[0][1]) / range};
}

}  // namespace accelbench::testing
