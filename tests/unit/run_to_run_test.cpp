// Run to run: the spread of a case's median over earlier runs in the history widens the
// next-run interval (analysis/run_to_run).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <random>

#include "analysis/run_to_run.h"
#include "core/t_distribution.h"

namespace accelbench {
namespace {

CaseResult ok_case(const std::string& workload, const std::string& device, double median, double rel_half) {
  CaseResult c;
  c.spec.workload = workload;
  c.spec.device = device;
  c.spec.dtype = "float32";
  c.spec.batch_size = 64;
  c.spec.threads = 16;
  c.stats.n = 100;
  c.stats.median = median;
  c.stats.ci_low = median * (1 - rel_half);
  c.stats.ci_high = median * (1 + rel_half);
  c.relative_ci_half_width = c.stats.ci_half_width_relative();
  c.ci_target = 0.02;
  return c;
}

CaseHistoryPoint point(std::int64_t run_id, const CaseResult& c, double median, const std::string& host = "h",
                       const std::string& torch = "2.11.0") {
  CaseHistoryPoint p;
  p.run_id = run_id;
  p.host = host;
  p.torch_version = torch;
  p.workload = c.spec.workload;
  p.device = c.spec.device;
  p.dtype = c.spec.dtype;
  p.batch_size = c.spec.batch_size;
  p.threads = c.spec.threads;
  p.width = c.spec.width;
  p.checkpoint = c.spec.checkpoint;
  p.graphs = c.spec.graphs;
  p.n = 100;
  p.median = median;
  return p;
}

TEST(RunToRun, NeedsTwoEarlierRunsAndUsesTheirLogSpread) {
  EXPECT_FALSE(run_to_run_spread(1.0, {}));
  EXPECT_FALSE(run_to_run_spread(1.0, {1.1}));
  EXPECT_FALSE(run_to_run_spread(1.0, {1.1, -1.0}));  // a non-positive median is no run
  const auto r = run_to_run_spread(1.2, {1.0, 1.1});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->earlier_runs, 2u);
  const double a = std::log(1.0), b = std::log(1.1), c = std::log(1.2), m = (a + b + c) / 3;
  const double sd = std::sqrt(((a - m) * (a - m) + (b - m) * (b - m) + (c - m) * (c - m)) / 2);
  EXPECT_NEAR(r->sd_log, sd, 1e-12);
  EXPECT_NEAR(r->half_width_log, 4.302653 * sd * std::sqrt(2.0), 1e-5);
}

// Runs whose log medians vary by sd 10% from run to run: the interval of the current run, from
// K earlier runs and itself, holds the next run's median in about 95% of simulated series.
TEST(RunToRun, IntervalCoversTheNextRunInSimulation) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> level(0.0, 0.10);
  for (std::size_t k : {2u, 4u, 9u}) {
    int covered = 0;
    const int trials = 4000;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> earlier;
      for (std::size_t i = 0; i < k; ++i) earlier.push_back(std::exp(level(rng)));
      const double current = std::exp(level(rng)), next = std::exp(level(rng));
      const auto r = run_to_run_spread(current, earlier);
      ASSERT_TRUE(r);
      covered += std::abs(std::log(next / current)) <= r->half_width_log;
    }
    const double coverage = static_cast<double>(covered) / trials;
    EXPECT_GE(coverage, 0.935) << k << " earlier runs";
    EXPECT_LE(coverage, 0.985) << k << " earlier runs";
  }
}

TEST(RunToRun, EarlierMediansAreTheSameCaseOnTheSameHostAndTorchNewestFirst) {
  const auto c = ok_case("mlp", "cuda:0", 1e-3, 0.05);
  auto other_dtype = point(9, c, 5e-3);
  other_dtype.dtype = "bfloat16";
  auto other_batch = point(9, c, 6e-3);
  other_batch.batch_size = 128;
  auto other_threads = point(9, c, 7e-3);
  other_threads.threads = 2;
  auto other_device = point(9, c, 8e-3);
  other_device.device = "cuda:1";
  const std::vector<CaseHistoryPoint> history{point(1, c, 1.0e-3), point(2, c, 1.1e-3), point(2, c, 9.9e-3),
                                              point(3, c, 1.2e-3, "other-host"), point(4, c, 1.3e-3, "h", "2.13.0"),
                                              other_dtype, other_batch, other_threads, other_device, point(5, c, 1.4e-3)};
  const auto m = earlier_medians(c, history, "h", "2.11.0");
  ASSERT_EQ(m.size(), 3u);  // runs 5, 2 (its first case of this kind), 1
  EXPECT_DOUBLE_EQ(m[0], 1.4e-3);
  EXPECT_DOUBLE_EQ(m[1], 1.1e-3);
  EXPECT_DOUBLE_EQ(m[2], 1.0e-3);
  std::vector<CaseHistoryPoint> many;
  for (int i = 1; i <= 15; ++i) many.push_back(point(i, c, 1e-3 * i));
  const auto newest = earlier_medians(c, many, "h", "2.11.0");
  ASSERT_EQ(newest.size(), kMaxEarlierRuns);
  EXPECT_DOUBLE_EQ(newest.front(), 15e-3);
}

TEST(RunToRun, WidensANarrowIntervalAndTheSpeedupButKeepsAWideOne) {
  RunResult run;
  run.context.host = "h";
  run.context.torch_version = "2.11.0";
  run.cases.push_back(ok_case("mlp", "cuda:0", 1.0e-3, 0.02));   // rounds agreed by chance: +-2%
  run.cases.push_back(ok_case("mlp", "cpu", 5.0e-3, 0.01));
  run.cases.push_back(ok_case("cnn", "cuda:0", 2.0e-3, 0.50));   // already wider than its history
  Speedup s;
  s.workload = "mlp";
  s.device = "cuda:0";
  s.baseline_device = "cpu";
  s.dtype = "float32";
  s.batch_size = 64;
  s.ratio = 5.0;
  s.ci_low = 4.9;
  s.ci_high = 5.1;
  run.speedups.push_back(s);
  std::vector<CaseHistoryPoint> history;  // kOwnHistoryRuns earlier runs: their own spread alone, no prior
  for (int i = 1; i <= 4; ++i) {
    history.push_back(point(i, run.cases[0], 1e-3 * (1 + 0.2 * i)));  // 1.2, 1.4, 1.6, 1.8 ms: a moving host
    history.push_back(point(i, run.cases[1], 5e-3));                   // the CPU did not move
    history.push_back(point(i, run.cases[2], 2e-3 * (1 + 0.01 * i)));
  }
  EXPECT_EQ(apply_run_to_run(run, history), 1u);
  const auto& mlp = run.cases[0];
  ASSERT_TRUE(mlp.run_to_run);
  EXPECT_TRUE(mlp.run_to_run->widened);
  EXPECT_EQ(mlp.run_to_run->earlier_runs, 4u);
  EXPECT_FALSE(mlp.run_to_run->uses_prior());
  EXPECT_NEAR(std::log(mlp.stats.ci_high / mlp.stats.median), mlp.run_to_run->half_width_log, 1e-12);
  EXPECT_GT(mlp.relative_ci_half_width, 0.3);
  EXPECT_TRUE(mlp.noisy);
  EXPECT_NE(mlp.interval_method.find("4 earlier runs"), std::string::npos);
  // The CPU's runs agree (sd 0 with this run's median equal): its interval stays.
  ASSERT_TRUE(run.cases[1].run_to_run);
  EXPECT_FALSE(run.cases[1].run_to_run->widened);
  EXPECT_DOUBLE_EQ(run.cases[1].stats.ci_low, 5.0e-3 * 0.99);
  // cnn: +-50% already covers its history's spread.
  ASSERT_TRUE(run.cases[2].run_to_run);
  EXPECT_FALSE(run.cases[2].run_to_run->widened);
  EXPECT_DOUBLE_EQ(run.cases[2].stats.ci_high, 2.0e-3 * 1.5);
  // The speed-up's interval takes the mlp's run-to-run spread.
  EXPECT_TRUE(run.speedups[0].widened_by_history);
  EXPECT_NEAR(std::log(run.speedups[0].ci_high / 5.0), mlp.run_to_run->half_width_log, 1e-9);
  const auto note = run_to_run_note(run);
  EXPECT_NE(note.find("mlp cuda:0 float32"), std::string::npos) << note;
  EXPECT_EQ(note.find("cnn"), std::string::npos) << note;
}

// --graphs: a graphs case's spread comes from earlier graphs runs only (never the eager case's),
// and the graphs-over-eager speed-up takes both cases' spreads.
TEST(RunToRun, AGraphsCaseHasItsOwnHistory) {
  RunResult run;
  run.context.host = "h";
  run.context.torch_version = "2.11.0";
  run.cases.push_back(ok_case("mlp", "cuda:0", 1.0e-3, 0.02));
  run.cases.push_back(ok_case("mlp", "cuda:0", 0.12e-3, 0.01));
  run.cases[1].spec.graphs = true;
  Speedup s;
  s.workload = "mlp";
  s.model = "mlp[graphs]";
  s.device = s.baseline_device = "cuda:0";
  s.dtype = "float32";
  s.batch_size = 64;
  s.ratio = 1.0 / 0.12;
  s.ci_low = s.ratio * 0.98;
  s.ci_high = s.ratio * 1.02;
  run.graph_speedups.push_back(s);
  std::vector<CaseHistoryPoint> history;
  for (int i = 1; i <= 4; ++i) {
    history.push_back(point(i, run.cases[0], 1e-3 * (1 + 0.3 * i)));  // the eager step moves
    history.push_back(point(i, run.cases[1], 0.12e-3));                // the graphs step does not
  }
  apply_run_to_run(run, history);
  ASSERT_TRUE(run.cases[0].run_to_run && run.cases[1].run_to_run);
  EXPECT_TRUE(run.cases[0].run_to_run->widened);
  EXPECT_FALSE(run.cases[1].run_to_run->widened) << "the eager runs' spread leaked into the graphs case";
  EXPECT_EQ(run.cases[1].run_to_run->earlier_runs, 4u);
  EXPECT_TRUE(run.graph_speedups[0].widened_by_history) << "the eager case's spread widens graphs over eager";
}

TEST(RunToRun, OneSampleGetsItsOnlyIntervalFromEarlierRuns) {
  RunResult run;
  run.context.host = "h";
  run.context.torch_version = "2.11.0";
  auto one = ok_case("transformer", "cpu", 14.0, 0);  // a 14 s step: one sample in the time allowed
  one.stats.n = 1;
  one.stats.ci_low = one.stats.ci_high = 0;
  one.relative_ci_half_width = 0;
  one.noisy = true;
  run.cases.push_back(one);
  EXPECT_FALSE(has_interval(run.cases[0]));
  const std::vector<CaseHistoryPoint> history{point(1, one, 16.0), point(2, one, 13.4)};
  EXPECT_EQ(apply_run_to_run(run, history), 1u);
  const auto& c = run.cases[0];
  ASSERT_TRUE(c.run_to_run);
  EXPECT_TRUE(has_interval(c));
  EXPECT_GT(c.stats.ci_low, 0);
  EXPECT_LT(c.stats.ci_low, 13.4);
  EXPECT_GT(c.stats.ci_high, 16.0);
  EXPECT_NEAR(std::log(c.stats.ci_high / 14.0), c.run_to_run->half_width_log, 1e-12);
}

TEST(RunToRun, ThePriorFollowsTheHostsShareOfTheStep) {
  auto c = ok_case("mlp", "cpu", 1e-3, 0.02);
  EXPECT_DOUBLE_EQ(run_to_run_prior(c).sd_log, kHostBoundRunSdLog);
  c.spec.device = "cuda:0";  // no device-busy figure: host-bound, to be safe
  EXPECT_DOUBLE_EQ(run_to_run_prior(c).sd_log, kHostBoundRunSdLog);
  EXPECT_NE(run_to_run_prior(c).basis.find("no device-busy figure"), std::string::npos);
  c.device_busy_fraction = 0.3;  // launch-bound
  EXPECT_DOUBLE_EQ(run_to_run_prior(c).sd_log, kHostBoundRunSdLog);
  c.device_busy_fraction = 0.95;  // the device sets the speed
  EXPECT_DOUBLE_EQ(run_to_run_prior(c).sd_log, kDeviceBoundRunSdLog);
  c.device_busy_fraction = 0.7;  // half way between 50% and 90%
  EXPECT_NEAR(run_to_run_prior(c).sd_log, (kHostBoundRunSdLog + kDeviceBoundRunSdLog) / 2, 1e-12);
  EXPECT_NE(run_to_run_prior(c).basis.find("device busy 70%"), std::string::npos);
}

// The pooled spread by hand: nu0 = kPriorRuns pseudo-runs of the prior's variance and the case's own
// runs, t with nu0 + K degrees of freedom; from kOwnHistoryRuns earlier runs on, the case's own.
TEST(RunToRun, NextRunSpreadPoolsThePriorWithAFewEarlierRuns) {
  const RunToRunPrior prior{0.13, "test"};
  const auto first = next_run_spread(1.0, {}, prior);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->uses_prior());
  EXPECT_EQ(first->earlier_runs, 0u);
  EXPECT_NEAR(first->half_width_log, 3.182446 * 0.13 * std::sqrt(2.0), 1e-5);  // t_{0.975, 3}
  const auto two = next_run_spread(1.2, {1.0, 1.1}, prior);
  ASSERT_TRUE(two);
  const double a = std::log(1.0), b = std::log(1.1), c = std::log(1.2), m = (a + b + c) / 3;
  const double own_var = ((a - m) * (a - m) + (b - m) * (b - m) + (c - m) * (c - m)) / 2;
  EXPECT_NEAR(two->sd_log, std::sqrt(own_var), 1e-12);
  const double pooled = std::sqrt((3 * 0.13 * 0.13 + 2 * own_var) / 5);
  EXPECT_NEAR(two->half_width_log, 2.570582 * pooled * std::sqrt(2.0), 1e-5);  // t_{0.975, 5}
  const std::vector<double> four{1.0, 1.1, 1.2, 1.3};
  const auto own = next_run_spread(1.05, four, prior);
  ASSERT_TRUE(own);
  EXPECT_FALSE(own->uses_prior());
  EXPECT_DOUBLE_EQ(own->half_width_log, run_to_run_spread(1.05, four)->half_width_log);
  EXPECT_FALSE(next_run_spread(0.0, {}, prior));
  EXPECT_FALSE(next_run_spread(1.0, {}, RunToRunPrior{}));  // no prior, no earlier runs: nothing to say
}

// Cases whose run-to-run sd is each of the 12 measured on host-bound cases (the prior's own
// source, kHostBoundRunSdLog): from an empty history and with 1 to 3 earlier runs, the interval
// holds the next run's median in 93-99.5% of simulated series over that population.
TEST(RunToRun, ThePriorCoversTheNextRunOverTheMeasuredSpreads) {
  const std::vector<double> measured{0.181, 0.273, 0.129, 0.074, 0.073, 0.060, 0.106, 0.073, 0.068, 0.156, 0.065, 0.105};
  std::mt19937_64 rng(11);
  const RunToRunPrior prior{kHostBoundRunSdLog, "test"};
  for (std::size_t k : {0u, 1u, 2u, 3u}) {
    int covered = 0, trials = 0;
    for (double sd : measured) {
      std::normal_distribution<double> level(0.0, sd);
      for (int t = 0; t < 2000; ++t, ++trials) {
        std::vector<double> earlier;
        for (std::size_t i = 0; i < k; ++i) earlier.push_back(std::exp(level(rng)));
        const double current = std::exp(level(rng)), next = std::exp(level(rng));
        const auto r = next_run_spread(current, earlier, prior);
        ASSERT_TRUE(r);
        covered += std::abs(std::log(next / current)) <= r->half_width_log;
      }
    }
    const double coverage = static_cast<double>(covered) / trials;
    EXPECT_GE(coverage, 0.93) << k << " earlier runs";
    EXPECT_LE(coverage, 0.995) << k << " earlier runs";
  }
}

// A first run: no history, so every case's interval takes the prior of its kind where that is
// wider than its rounds' (a launch-bound or unknown case: +-59%; a device-bound one: +-1.3%). The
// noisy flag is the measurement's own and stays; the note says why the intervals are wide.
TEST(RunToRun, AFirstRunTakesThePrior) {
  RunResult run;
  run.context.host = "h";
  run.cases.push_back(ok_case("mlp", "cuda:0", 1.0e-3, 0.02));  // no busy figure
  run.cases.push_back(ok_case("transformer", "cuda:0", 27e-3, 0.002));
  run.cases[1].device_busy_fraction = 0.98;
  run.cases.push_back(ok_case("cnn", "cuda:0", 2e-3, 0.9));  // wider than the prior already
  EXPECT_EQ(apply_run_to_run(run, {}), 2u);
  const double t3 = 3.182446;
  ASSERT_TRUE(run.cases[0].run_to_run);
  EXPECT_NEAR(std::log(run.cases[0].stats.ci_high / 1.0e-3), t3 * kHostBoundRunSdLog * std::sqrt(2.0), 1e-5);
  EXPECT_FALSE(run.cases[0].noisy);
  EXPECT_NE(run.cases[0].interval_method.find("prior sd 13.0%"), std::string::npos) << run.cases[0].interval_method;
  EXPECT_NEAR(run.cases[1].stats.ci_half_width_relative(), std::sinh(t3 * kDeviceBoundRunSdLog * std::sqrt(2.0)), 1e-6);
  EXPECT_LT(run.cases[1].stats.ci_half_width_relative(), 0.02);  // a GPU-bound case keeps +-2% or better
  EXPECT_NEAR(run.cases[0].relative_ci_half_width, 0.02, 1e-12);  // the measurement's own precision stays
  EXPECT_FALSE(run.cases[2].run_to_run->widened);
  EXPECT_DOUBLE_EQ(run.cases[2].stats.ci_high, 2e-3 * 1.9);
  const auto note = run_to_run_note(run);
  EXPECT_NE(note.find("fewer than 4 earlier runs"), std::string::npos) << note;
  EXPECT_NE(note.find("mlp cuda:0 float32"), std::string::npos) << note;
  EXPECT_EQ(note.find("earlier runs in the history varied"), std::string::npos) << note;
}

TEST(RunToRun, TheJsonKeepsTheSpreadAndRefusesANegativeOne) {
  auto c = ok_case("mlp", "cuda:0", 1.0e-3, 0.02);
  c.run_to_run = RunToRun{3, 0.1, 0.5, true, 0.13, "the CPU: host-bound"};
  const nlohmann::json j = c;
  const auto back = j.get<CaseResult>();
  ASSERT_TRUE(back.run_to_run);
  EXPECT_EQ(back.run_to_run->earlier_runs, 3u);
  EXPECT_DOUBLE_EQ(back.run_to_run->half_width_log, 0.5);
  EXPECT_TRUE(back.run_to_run->widened);
  EXPECT_DOUBLE_EQ(back.run_to_run->prior_sd_log, 0.13);
  EXPECT_EQ(back.run_to_run->prior_basis, "the CPU: host-bound");
  auto bad = j;
  bad["run_to_run"]["sd_log"] = -1;
  EXPECT_THROW(bad.get<CaseResult>(), std::exception);
  auto none = j;
  none["run_to_run"] = nullptr;
  EXPECT_FALSE(none.get<CaseResult>().run_to_run);
}

}  // namespace
}  // namespace accelbench
