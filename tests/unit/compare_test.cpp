#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/compare.h"
#include "core/errors.h"
#include "support/synthetic_runs.h"

using namespace accelbench;
using accelbench::testing::make_run;
using accelbench::testing::samples_around;
using accelbench::testing::SyntheticOptions;

TEST(MannWhitney, SeparatedSamples) {
  const std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
  const auto r = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(r.u, 0);
  // normal approximation with continuity correction: z = (0 - 12.5 + 0.5) / sqrt(25 * 11 / 12)
  EXPECT_NEAR(r.z, -12.0 / std::sqrt(25.0 * 11.0 / 12.0), 1e-12);
  EXPECT_NEAR(r.p, 0.01219, 1e-4);
}

TEST(MannWhitney, TiesAndIdenticalSamples) {
  const std::vector<double> same{2, 2, 2, 2, 2};
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p, 1.0);
  const std::vector<double> a{1, 2, 2, 3, 3, 3}, b{2, 3, 3, 4, 4, 5};
  const auto r = mann_whitney_u(a, b);
  // by hand: ranks of a = 1, 3, 3, 7, 7, 7 -> R = 28, U = 28 - 21 = 7; tie groups of 1, 3, 5, 2, 1
  // give sum(t^3 - t) = 150, so the variance is 36/12 * (13 - 150/132)
  EXPECT_DOUBLE_EQ(r.u, 7.0);
  EXPECT_NEAR(r.z, (7.0 - 18.0 + 0.5) / std::sqrt(3.0 * (13.0 - 150.0 / 132.0)), 1e-12);
  EXPECT_GT(r.p, 0.05);
}

TEST(Compare, KnownEqualIsSame) {
  const auto a = samples_around(0.010, 0.01, 30, 1);
  const auto b = samples_around(0.010, 0.01, 30, 2);
  const auto c = compare_samples(a, b);
  EXPECT_EQ(c.verdict, Verdict::Same) << c.reason;
  EXPECT_NEAR(c.ratio, 1.0, 0.01);
}

TEST(Compare, KnownTenPercentSlowerIsSlower) {
  const auto a = samples_around(0.010, 0.01, 30, 3);
  const auto b = samples_around(0.011, 0.01, 30, 4);
  const auto c = compare_samples(a, b);
  EXPECT_EQ(c.verdict, Verdict::Slower) << c.reason;
  EXPECT_NEAR(c.ratio, 1.10, 0.01);
  EXPECT_GT(c.ci_low, 1.05);
  EXPECT_LT(c.p, 1e-6);
  const auto back = compare_samples(b, a);
  EXPECT_EQ(back.verdict, Verdict::Faster) << back.reason;
}

TEST(Compare, TooFewSamplesIsUncertain) {
  const auto c = compare_samples(samples_around(0.01, 0.01, 4, 5), samples_around(0.02, 0.01, 30, 6));
  EXPECT_EQ(c.verdict, Verdict::Uncertain);
  EXPECT_NE(c.reason.find("too few"), std::string::npos);
}

TEST(Compare, NoisyAndInconclusiveIsUncertain) {
  const auto c = compare_samples(samples_around(0.01, 0.25, 8, 7), samples_around(0.0105, 0.25, 8, 8));
  EXPECT_EQ(c.verdict, Verdict::Uncertain) << c.reason << " p=" << c.p << " ci=" << c.ci_low << ".." << c.ci_high;
}

TEST(Compare, SignificantButTinyIsSame) {
  const auto c = compare_samples(samples_around(0.01, 0.001, 60, 9), samples_around(0.0101, 0.001, 60, 10));
  EXPECT_LT(c.p, 0.01);
  EXPECT_EQ(c.verdict, Verdict::Same) << c.reason;
}

TEST(Compare, RunsMatchCasesAndFlagRegressions) {
  SyntheticOptions base;
  base.seed = 1;
  SyntheticOptions slower = base;
  slower.seed = 2;
  slower.slowdown = 1.10;
  slower.workloads = {"mlp", "cnn"};  // transformer only in A
  const auto cmp = compare_runs(make_run(base), make_run(slower));
  ASSERT_EQ(cmp.cases.size(), 4u);
  for (const auto& c : cmp.cases) EXPECT_EQ(c.result.verdict, Verdict::Slower) << c.workload << " " << c.device;
  EXPECT_EQ(cmp.only_in_a.size(), 2u);
  EXPECT_TRUE(cmp.only_in_b.empty());
  EXPECT_EQ(regressions_beyond(cmp, 0.05).size(), 4u);
  EXPECT_TRUE(regressions_beyond(cmp, 0.20).empty());
  SyntheticOptions same = base;
  same.seed = 3;
  const auto eq = compare_runs(make_run(base), make_run(same));
  for (const auto& c : eq.cases) EXPECT_EQ(c.result.verdict, Verdict::Same) << c.workload << " " << c.device << ": " << c.result.reason;
  EXPECT_TRUE(regressions_beyond(eq, 0.05).empty());
}

TEST(Compare, ParseFraction) {
  EXPECT_DOUBLE_EQ(parse_fraction("5%", "--fail-above"), 0.05);
  EXPECT_DOUBLE_EQ(parse_fraction(" 12.5 % ", "--fail-above"), 0.125);
  EXPECT_DOUBLE_EQ(parse_fraction("0.05", "--fail-above"), 0.05);
  EXPECT_THROW(parse_fraction("five", "--fail-above"), UsageError);
  EXPECT_THROW(parse_fraction("-5%", "--fail-above"), UsageError);
  EXPECT_THROW(parse_fraction("", "--fail-above"), UsageError);
}

namespace {
std::vector<SeriesPoint> series(const std::vector<double>& medians, double rel_ci) {
  std::vector<SeriesPoint> out;
  for (double m : medians) out.push_back({m, m * (1 - rel_ci), m * (1 + rel_ci)});
  return out;
}
}  // namespace

TEST(Changes, FlatHistoryHasNone) {
  EXPECT_TRUE(detect_changes(series({1.0, 1.0, 1.0, 1.0}, 0.01)).empty());
  const auto noisy = samples_around(1.0, 0.02, 16, 11);
  EXPECT_TRUE(detect_changes(series(noisy, 0.02)).empty());
  EXPECT_TRUE(detect_changes({}).empty());
  EXPECT_TRUE(detect_changes(series({1.0}, 0.01)).empty());
}

TEST(Changes, StepBeyondTheNoiseIsFound) {
  auto m = samples_around(1.0, 0.01, 8, 12);
  for (double v : samples_around(1.10, 0.01, 6, 13)) m.push_back(v);
  const auto ch = detect_changes(series(m, 0.01));
  ASSERT_EQ(ch.size(), 1u);
  EXPECT_EQ(ch[0].index, 8u);
  EXPECT_NEAR(ch[0].ratio, 1.10, 0.02);
}

TEST(Changes, TwoStepsAndAStepWithinTheNoiseIsNot) {
  std::vector<double> m{1, 1.01, 0.99, 1, 1.2, 1.21, 1.19, 1.2, 0.9, 0.91, 0.9, 0.89};
  const auto ch = detect_changes(series(m, 0.01));
  ASSERT_EQ(ch.size(), 2u);
  EXPECT_EQ(ch[0].index, 4u);
  EXPECT_EQ(ch[1].index, 8u);
  EXPECT_LT(ch[1].ratio, 1.0);
  // a 3% step when each run's CI is +-10%: not beyond the noise
  EXPECT_TRUE(detect_changes(series({1, 1, 1, 1, 1.03, 1.03, 1.03, 1.03}, 0.10)).empty());
}

// --graphs: a graphs case is compared with the graphs case of the other run, never with the eager one.
TEST(Compare, AGraphsCaseMatchesOnlyAGraphsCase) {
  auto a = make_run();
  auto b = make_run();
  const auto accel = std::find_if(a.cases.begin(), a.cases.end(), [](const CaseResult& c) { return c.spec.device != "cpu"; });
  ASSERT_NE(accel, a.cases.end());
  auto graphs = *accel;
  graphs.spec.graphs = true;
  a.cases.push_back(graphs);  // in A only
  const auto c = compare_runs(a, b);
  EXPECT_EQ(c.cases.size(), b.cases.size());
  ASSERT_EQ(c.only_in_a.size(), 1u);
  EXPECT_NE(c.only_in_a[0].find("[graphs]"), std::string::npos) << c.only_in_a[0];
}

namespace {
RunToRun spread(double sd_log, double dof) {
  RunToRun r;
  r.sd_log = sd_log;
  r.dof = dof;
  r.widened = true;
  r.source = "history";
  return r;
}
}  // namespace

// Between two runs the judge is the run-to-run spread: ratio 1.25 when runs vary by 10% is within
// noise (t(0.995, 24) * sqrt(0.02) = 0.397 > log 1.25 = 0.223); a 30% slowdown when they vary by 3%
// is not (0.119 < 0.262); 1% when they vary by 0.5% is SAME (the interval lies within +-5%).
TEST(Compare, BetweenRunsJudgedAgainstTheRunToRunSpread) {
  CompareOptions o;
  SampleComparison noisy;
  noisy.ratio = 1.25;
  noisy.verdict = Verdict::Slower;
  judge_between_runs(noisy, spread(0.10, 12), spread(0.10, 12), o);
  EXPECT_TRUE(noisy.between_runs);
  EXPECT_EQ(noisy.verdict, Verdict::Uncertain);
  EXPECT_NE(noisy.reason.find("within run-to-run noise"), std::string::npos) << noisy.reason;
  EXPECT_NEAR(std::log(noisy.ci_high / 1.25), t_quantile(0.995, 24) * std::sqrt(0.02), 1e-9);
  EXPECT_GT(noisy.p, 0.01);
  SampleComparison planted;
  planted.ratio = 1.30;
  judge_between_runs(planted, spread(0.03, 12), spread(0.03, 12), o);
  EXPECT_EQ(planted.verdict, Verdict::Slower);
  EXPECT_LT(planted.p, 0.01);
  SampleComparison same;
  same.ratio = 1.01;
  judge_between_runs(same, spread(0.005, 12), spread(0.005, 12), o);
  EXPECT_EQ(same.verdict, Verdict::Same);
  SampleComparison older;  // a run without a spread (older files): the samples' verdict stays
  older.ratio = 1.3;
  older.verdict = Verdict::Slower;
  judge_between_runs(older, RunToRun{}, spread(0.03, 12), o);
  EXPECT_FALSE(older.between_runs);
  EXPECT_EQ(older.verdict, Verdict::Slower);
}

// compare_runs uses the cases' spreads, and --fail-above follows the verdict.
TEST(Compare, RunsWithTheirSpreadAreNotSlowerWithinNoise) {
  SyntheticOptions base, slower = base;
  slower.slowdown = 1.2;
  slower.seed = 2;
  auto a = make_run(base), b = make_run(slower);
  for (auto* run : {&a, &b})
    for (auto& c : run->cases) c.run_to_run = spread(0.10, 12);
  const auto cmp = compare_runs(a, b);
  ASSERT_FALSE(cmp.cases.empty());
  for (const auto& c : cmp.cases) EXPECT_EQ(c.result.verdict, Verdict::Uncertain) << c.workload << " " << c.result.reason;
  EXPECT_TRUE(regressions_beyond(cmp, 0.05).empty());
}
