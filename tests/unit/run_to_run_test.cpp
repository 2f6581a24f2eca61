// Run to run: the next run's range of a case's median, from this host's history pooled over cases
// of a kind and from this run's rounds (analysis/run_to_run), and its calibration on simulated
// machines.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "analysis/run_to_run.h"
#include "core/t_distribution.h"

namespace accelbench {
namespace {

// An ok case whose rounds' medians are `rounds` (seconds); its median is theirs.
CaseResult case_with_rounds(const std::string& workload, const std::string& device, std::vector<double> rounds) {
  CaseResult c;
  c.spec.workload = workload;
  c.spec.device = device;
  c.spec.dtype = "float32";
  c.spec.batch_size = 64;
  c.spec.threads = 2;
  for (double m : rounds) c.rounds.push_back(RoundResult{m, 10});
  std::sort(rounds.begin(), rounds.end());
  const auto n = rounds.size();
  c.stats.median = n % 2 ? rounds[n / 2] : (rounds[n / 2 - 1] + rounds[n / 2]) / 2;
  c.stats.n = 10 * n;
  c.stats.ci_low = c.stats.median * 0.99;
  c.stats.ci_high = c.stats.median * 1.01;
  c.relative_ci_half_width = 0.01;
  return c;
}

CaseHistoryPoint point(std::int64_t run_id, const CaseResult& c, double median, const std::string& host = "h") {
  CaseHistoryPoint p;
  p.run_id = run_id;
  p.host = host;
  p.torch_version = "2.13.0";
  p.workload = c.spec.workload;
  p.device = c.spec.device;
  p.dtype = c.spec.dtype;
  p.batch_size = c.spec.batch_size;
  p.threads = c.spec.threads;
  p.graphs = c.spec.graphs;
  p.n = 30;
  p.median = median;
  return p;
}

RunResult run_of(std::vector<CaseResult> cases) {
  RunResult run;
  run.context.host = "h";
  run.context.torch_version = "2.13.0";
  run.cases = std::move(cases);
  return run;
}

TEST(RunToRun, KindsFollowTheDeviceBusyShare) {
  EXPECT_EQ(spread_kind("cpu", false, -1), "host-bound");
  EXPECT_EQ(spread_kind("cpu", false, 0.99), "host-bound");
  EXPECT_EQ(spread_kind("cuda:0", false, -1), "host-bound");
  EXPECT_EQ(spread_kind("cuda:0", false, 0.3), "host-bound");
  EXPECT_EQ(spread_kind("cuda:0", false, 0.7), "partly device-bound");
  EXPECT_EQ(spread_kind("cuda:0", false, 0.95), "device-bound");
  EXPECT_EQ(spread_kind("cuda:0", true, 0.95), "graph replay, device-bound");
}

TEST(RunToRun, FQuantileMatchesTables) {
  EXPECT_NEAR(f_quantile(0.95, 1, 1), 161.4476, 1e-3);
  EXPECT_NEAR(f_quantile(0.95, 3, 6), 4.757063, 1e-5);
  EXPECT_NEAR(f_quantile(0.95, 10, 20), 2.347878, 1e-5);
  EXPECT_TRUE(std::isnan(f_quantile(0.95, 0, 3)));
}

TEST(RunToRun, CombineTakesTheHistoryWhereItVariesBeyondTheRounds) {
  PooledVariance history, rounds;
  const RunToRunPrior fallback{0.13, "the CPU: host-bound"};
  const auto none = combine_spread(history, rounds, fallback);  // nothing to learn from: the named constant
  EXPECT_EQ(none.source, "fallback");
  EXPECT_DOUBLE_EQ(none.sd_log, 0.13);
  EXPECT_DOUBLE_EQ(none.dof, kPriorRuns);
  EXPECT_NE(none.prior_basis.find("H200"), std::string::npos) << none.prior_basis;
  rounds.add(0.01 * 0.01, 2);
  rounds.add(0.02 * 0.02, 2);
  const auto first = combine_spread(history, rounds, fallback);
  EXPECT_EQ(first.source, "rounds");
  EXPECT_DOUBLE_EQ(first.dof, 4);
  EXPECT_NEAR(first.sd_log, std::sqrt((1e-4 + 4e-4) / 2), 1e-12);
  EXPECT_NEAR(first.half_width_log, t_quantile(0.975, 4) * first.sd_log * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(first.level_half_width_log, t_quantile(0.975, 4) * first.sd_log, 1e-12);
  EXPECT_FALSE(first.uses_prior());
  history.add(0.1 * 0.1, 6);  // 40 times the rounds' variance: beyond F(6, 4) at 95% (6.16)
  const auto beyond = combine_spread(history, rounds, fallback);
  EXPECT_EQ(beyond.source, "history");
  EXPECT_DOUBLE_EQ(beyond.sd_log, 0.1);
  EXPECT_DOUBLE_EQ(beyond.dof, 6);
  PooledVariance agreeing;
  agreeing.add(0.018 * 0.018, 6);  // within what the rounds explain: both pooled, 10 degrees of freedom
  const auto pooled = combine_spread(agreeing, rounds, fallback);
  EXPECT_EQ(pooled.source, "history and rounds");
  EXPECT_DOUBLE_EQ(pooled.dof, 10);
  EXPECT_NEAR(pooled.sd_log * pooled.sd_log, (6 * 0.018 * 0.018 + 2 * 1e-4 + 2 * 4e-4) / 10, 1e-12);
}

TEST(RunToRun, AFirstRunPoolsTheRoundsOfItsKindAndTheSpeedupAddsBoth) {
  auto run = run_of({case_with_rounds("mlp", "cpu", {1.00, 1.10, 1.05}), case_with_rounds("cnn", "cpu", {2.0, 2.1, 1.9}),
                     case_with_rounds("mlp", "cuda:0", {0.50, 0.52, 0.49})});
  run.cases[2].device_busy_fraction = 0.3;  // launch-bound: host-bound like the CPU
  run.speedups.push_back(Speedup{"mlp", "cuda:0", "cpu", 64, "float32", 2.1, 1.0, 4.0});
  EXPECT_EQ(apply_run_to_run(run, {}), 3u);
  const auto& a = *run.cases[0].run_to_run;
  EXPECT_EQ(a.source, "rounds");
  EXPECT_EQ(a.kind, "host-bound");
  EXPECT_DOUBLE_EQ(a.dof, 6);  // three cases, three rounds each
  EXPECT_DOUBLE_EQ(run.cases[1].run_to_run->sd_log, a.sd_log);  // one estimate for the kind
  EXPECT_NEAR(std::log(run.cases[0].stats.ci_high / run.cases[0].stats.median), a.half_width_log, 1e-12);
  EXPECT_NEAR(std::log(run.cases[0].stats.median / run.cases[0].stats.ci_low), a.half_width_log, 1e-12);
  EXPECT_DOUBLE_EQ(run.cases[0].relative_ci_half_width, 0.01);  // the measurement's own precision stays
  const auto& s = run.speedups[0];
  EXPECT_TRUE(s.widened_by_history);
  const double v = 2 * a.sd_log * a.sd_log, t = t_quantile(0.975, 6);
  EXPECT_NEAR(std::log(s.ci_high / s.ratio), t * std::sqrt(2 * v), 1e-9);
  EXPECT_NEAR(std::log(s.level_high / s.ratio), t * std::sqrt(v), 1e-9);
  const auto note = run_to_run_note(run);
  EXPECT_NE(note.find("this run's rounds"), std::string::npos) << note;
  EXPECT_NE(note.find("next run"), std::string::npos) << note;
}

TEST(RunToRun, OneEarlierRunOfAnyCaseOfTheKindInformsANewCase) {
  const auto mlp = case_with_rounds("mlp", "cpu", {1.0, 1.0, 1.0});
  std::vector<CaseHistoryPoint> history{point(1, mlp, 1.3), point(1, case_with_rounds("cnn", "cpu", {2.0}), 2.0)};
  history.push_back(point(1, mlp, 1.0, "another-host"));  // another host's runs do not count
  auto run = run_of({mlp, case_with_rounds("transformer", "cpu", {3.0, 3.0, 3.0})});
  apply_run_to_run(run, history);
  const auto& t = *run.cases[1].run_to_run;  // a case new to the history
  EXPECT_EQ(t.source, "history");             // the mlp moved 30% between runs; rounds agreed exactly
  EXPECT_EQ(t.earlier_runs, 0u);
  EXPECT_EQ(t.history_cases, 1u);
  EXPECT_NEAR(t.sd_log, std::fabs(std::log(1.3)) / std::sqrt(2.0), 1e-12);
  EXPECT_DOUBLE_EQ(t.dof, 1);
  EXPECT_EQ(run.cases[0].run_to_run->earlier_runs, 1u);
}

TEST(RunToRun, OneRoundAndNoHistoryTakeTheNamedFallback) {
  auto run = run_of({case_with_rounds("mlp", "cpu", {1.0}), case_with_rounds("transformer", "cuda:0", {1.0})});
  run.cases[1].device_busy_fraction = 0.99;
  apply_run_to_run(run, {});
  EXPECT_EQ(run.cases[0].run_to_run->source, "fallback");
  EXPECT_DOUBLE_EQ(run.cases[0].run_to_run->prior_sd_log, kHostBoundRunSdLog);
  EXPECT_DOUBLE_EQ(run.cases[1].run_to_run->prior_sd_log, kDeviceBoundRunSdLog);
  EXPECT_EQ(run.cases[1].run_to_run->kind, "device-bound");
  const auto note = run_to_run_note(run);
  EXPECT_NE(note.find("fallback constant (sd 13.0%"), std::string::npos) << note;
  EXPECT_NE(note.find("H200"), std::string::npos) << note;
}

TEST(RunToRun, MedianOfRoundsVarianceFactor) {
  EXPECT_DOUBLE_EQ(median_variance_factor(2), 1);
  EXPECT_NEAR(median_variance_factor(3), 1.346, 1e-3);
  EXPECT_NEAR(median_variance_factor(50), M_PI / 2, 1e-3);
}

TEST(RunToRun, TheJsonKeepsTheSpreadAndRefusesANegativeOne) {
  auto c = case_with_rounds("mlp", "cpu", {1.0, 1.1});
  RunToRun r;
  r.earlier_runs = 3;
  r.sd_log = 0.1;
  r.dof = 7;
  r.half_width_log = 0.5;
  r.level_half_width_log = 0.35;
  r.widened = true;
  r.kind = "host-bound";
  r.source = "history";
  r.history_cases = 4;
  c.run_to_run = r;
  const auto back = nlohmann::json(c).get<CaseResult>();
  ASSERT_TRUE(back.run_to_run);
  EXPECT_EQ(back.run_to_run->earlier_runs, 3u);
  EXPECT_DOUBLE_EQ(back.run_to_run->dof, 7);
  EXPECT_DOUBLE_EQ(back.run_to_run->level_half_width_log, 0.35);
  EXPECT_EQ(back.run_to_run->source, "history");
  EXPECT_EQ(back.run_to_run->kind, "host-bound");
  EXPECT_EQ(back.run_to_run->history_cases, 4u);
  auto bad = nlohmann::json(c);
  bad["run_to_run"]["dof"] = -1;
  EXPECT_THROW(bad.get<CaseResult>(), std::exception);
  auto none = nlohmann::json(c);
  none["run_to_run"] = nullptr;
  EXPECT_FALSE(none.get<CaseResult>().run_to_run);
}

}  // namespace
}  // namespace accelbench
