// The next-run range on simulated machines with a known run-to-run spread: ten runs of three
// host-bound cases (three rounds each) from an empty history, each run given its range by
// apply_run_to_run from the runs before it, as `run` does. Two numbers judge the ranges
// (docs/methodology.md): the coverage (the share of ordered pairs of runs (i, j) in which run i's
// range holds run j's median) and the width ratio (a range's log width over the log range of the
// ten medians). Averaged over 200 machines each, the coverage must lie in [90%, 98%] and the width
// ratio be at most 3, on every machine type.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "analysis/run_to_run.h"

namespace accelbench {
namespace {

struct Machine {
  const char* name;
  double round_sd;      // process to process, seen by the rounds (log scale)
  double run_sd;        // run to run beyond the processes, unseen by the rounds
  double level_step;    // a second level this much slower (log), 0: none
  double switch_prob;   // chance the level switches between two runs
};

struct Calibration {
  double coverage = 0, width_ratio = 0, first_width_ratio = 0;
};

constexpr int kRuns = 10, kRounds = 3, kMachines = 200;

// One machine's ten runs: each case's (median, low, high) per run.
std::vector<std::vector<std::array<double, 3>>> ten_runs(const Machine& m, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> uniform(0, 1);
  const std::vector<std::pair<std::string, double>> cases{{"mlp", 1e-3}, {"cnn", 5e-3}, {"transformer", 2e-2}};
  std::vector<std::vector<std::array<double, 3>>> out(cases.size());
  std::vector<CaseHistoryPoint> history;
  bool slow = uniform(rng) < 0.5;
  for (int run_id = 1; run_id <= kRuns; ++run_id) {
    if (run_id > 1 && uniform(rng) < m.switch_prob) slow = !slow;
    RunResult run;
    run.context.host = "h";
    run.context.torch_version = "2.13.0";
    for (const auto& [name, base] : cases) {
      CaseResult c;
      c.spec = CaseSpec{name, "cpu", "float32", 64, 2};
      const double level = std::log(base) + (slow ? m.level_step : 0) + m.run_sd * normal(rng);
      std::vector<double> medians;
      for (int r = 0; r < kRounds; ++r) medians.push_back(std::exp(level + m.round_sd * normal(rng)));
      for (double x : medians) c.rounds.push_back(RoundResult{x, 10});
      std::sort(medians.begin(), medians.end());
      c.stats.median = medians[kRounds / 2];
      c.stats.n = 10 * kRounds;
      run.cases.push_back(c);
    }
    apply_run_to_run(run, history);
    for (std::size_t i = 0; i < run.cases.size(); ++i) {
      const auto& c = run.cases[i];
      out[i].push_back({c.stats.median, c.stats.ci_low, c.stats.ci_high});
      CaseHistoryPoint p;
      p.run_id = run_id, p.host = "h", p.torch_version = "2.13.0", p.workload = c.spec.workload, p.device = "cpu";
      p.dtype = "float32", p.batch_size = 64, p.threads = 2, p.n = c.stats.n, p.median = c.stats.median;
      history.push_back(p);
    }
  }
  return out;
}

Calibration calibrate(const Machine& m) {
  std::mt19937_64 rng(20261202);
  Calibration total;
  int series = 0;
  for (int k = 0; k < kMachines; ++k)
    for (const auto& runs : ten_runs(m, rng)) {
      int hit = 0, pairs = 0;
      double lo = runs[0][0], hi = runs[0][0], width = 0;
      for (std::size_t i = 0; i < runs.size(); ++i) {
        lo = std::min(lo, runs[i][0]), hi = std::max(hi, runs[i][0]);
        width += std::log(runs[i][2] / runs[i][1]) / static_cast<double>(runs.size());
        for (std::size_t j = 0; j < runs.size(); ++j)
          if (i != j) ++pairs, hit += runs[i][1] <= runs[j][0] && runs[j][0] <= runs[i][2];
      }
      const double range = std::log(hi / lo);
      total.coverage += static_cast<double>(hit) / pairs;
      total.width_ratio += width / range;
      total.first_width_ratio += std::log(runs[0][2] / runs[0][1]) / range;
      ++series;
    }
  total.coverage /= series, total.width_ratio /= series, total.first_width_ratio /= series;
  std::printf("%s: coverage %.1f%%, width ratio %.2f (first run %.2f)\n", m.name, 100 * total.coverage, total.width_ratio,
              total.first_width_ratio);
  return total;
}

void expect_calibrated(const Machine& m) {
  const auto c = calibrate(m);
  EXPECT_GE(c.coverage, 0.90) << m.name;
  EXPECT_LE(c.coverage, 0.98) << m.name << ": wider than the machine needs";
  EXPECT_LE(c.width_ratio, 3.0) << m.name;
}

// A quiet machine: runs differ by 1% (sd of a run's median), all of it from process to process.
TEST(RunToRunCalibration, QuietMachine) { expect_calibrated({"quiet, sd 1%", 0.0173, 0, 0, 0}); }

// A noisy machine: runs differ by 15%, half the variance from process to process, half from the
// host's state between runs, which rounds cannot see.
TEST(RunToRunCalibration, NoisyMachine) { expect_calibrated({"noisy, sd 15%", 0.184, 0.106, 0, 0}); }

// A machine that changes level between runs: two levels 15% apart, an even chance of switching
// between two runs, while its rounds (2% apart) see none of it. A first run cannot know of the
// other level (its range covers about half the pairs it is in); the history learns it.
TEST(RunToRunCalibration, MachineThatChangesLevel) { expect_calibrated({"changes level", 0.02, 0, std::log(1.15), 0.5}); }

// The estimator must be able to fail: the rounds alone (no history used) on the machine that
// changes level cover far less than 90%.
TEST(RunToRunCalibration, RoundsAloneUndercoverAMachineThatChangesLevel) {
  std::mt19937_64 rng(7);
  const Machine m{"changes level", 0.02, 0, std::log(1.15), 0.5};
  int hit = 0, pairs = 0;
  for (int k = 0; k < 50; ++k) {
    // Each run as a first run: its range from its own rounds only.
    std::vector<std::array<double, 3>> runs;
    for (int i = 0; i < kRuns; ++i) {
      const auto one = ten_runs(Machine{m.name, m.round_sd, m.run_sd, m.level_step, 0}, rng)[0][0];
      runs.push_back(one);
    }
    for (std::size_t i = 0; i < runs.size(); ++i)
      for (std::size_t j = 0; j < runs.size(); ++j)
        if (i != j) ++pairs, hit += runs[i][1] <= runs[j][0] && runs[j][0] <= runs[i][2];
  }
  EXPECT_LT(static_cast<double>(hit) / pairs, 0.9);
}

}  // namespace
}  // namespace accelbench
