// How often `compare` calls a change between two runs of one case, on simulated machines: runs of the
// same code (no change: a false alarm is any SLOWER or FASTER) and runs 30% slower (a slowdown that
// must be caught). compare judges both runs against one spread, the later run's, estimated from its
// history (analysis/compare.cpp shared_spread, judge_between_runs); here that history is the later
// run and the 9 before it, drawn from the same machine, as `run` stores them (its newest 10 runs).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/compare.h"
#include "core/results.h"

namespace accelbench {
namespace {

struct Machine {
  double sd_log;  // the sd of a run's log median from run to run
};

// The spread `run` would give the later run: the sd of its history's log medians (10 runs), 9 dof.
RunToRun spread_of(const std::vector<double>& history) {
  double mean = 0;
  for (double x : history) mean += x;
  mean /= static_cast<double>(history.size());
  double ss = 0;
  for (double x : history) ss += (x - mean) * (x - mean);
  RunToRun r;
  r.dof = static_cast<double>(history.size() - 1);
  r.sd_log = std::sqrt(ss / r.dof);
  r.source = "history";
  return r;
}

// The share of `trials` pairs (A, then B `slowdown` times slower) that compare calls SLOWER / FASTER.
std::pair<double, double> verdict_shares(const Machine& m, double slowdown, int trials, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> run(0.0, m.sd_log);
  int slower = 0, faster = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> history;
    for (int i = 0; i < 9; ++i) history.push_back(run(rng));
    const double a = history.back();          // run A: the newest earlier run
    const double b = run(rng) + std::log(slowdown);  // run B, the later one
    history.push_back(b - std::log(slowdown));  // B's history sees the machine, not the change
    const RunToRun spread = spread_of(history);
    SampleComparison r;
    r.ratio = std::exp(b - a);
    judge_between_runs(r, spread, spread, CompareOptions{});
    EXPECT_TRUE(r.between_runs);
    slower += r.verdict == Verdict::Slower;
    faster += r.verdict == Verdict::Faster;
  }
  return {slower / static_cast<double>(trials), faster / static_cast<double>(trials)};
}

// A quiet host (runs 3% apart) and a noisier one (6%): identical runs are called SLOWER or FASTER in
// at most 5% of pairs.
TEST(CompareSimulation, IdenticalRunsRarelyRaiseAnAlarm) {
  for (double sd : {0.03, 0.06}) {
    const auto [slower, faster] = verdict_shares(Machine{sd}, 1.0, 4000, 11);
    EXPECT_LE(slower + faster, 0.05) << "sd " << sd << ": SLOWER " << slower << ", FASTER " << faster;
  }
}

// On the quiet host a 30% slowdown is called SLOWER in at least 95% of pairs, never FASTER.
TEST(CompareSimulation, APlanted30PercentSlowdownIsCaught) {
  const auto [slower, faster] = verdict_shares(Machine{0.03}, 1.3, 4000, 12);
  EXPECT_GE(slower, 0.95) << "SLOWER in " << slower;
  EXPECT_EQ(faster, 0.0);
}

}  // namespace
}  // namespace accelbench
