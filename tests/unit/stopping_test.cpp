#include <gtest/gtest.h>

#include <random>

#include "core/stopping.h"
#include "core/plan.h"

using namespace accelbench;

TEST(Stopping, StopsWhenTargetMetAfterMinimums) {
  StoppingRule rule;
  rule.ci_target = 0.02;
  rule.min_samples = 10;
  rule.min_time_s = 0.0;
  rule.max_time_s = 100;
  AdaptiveStopper s(rule);
  for (int i = 0; i < 9; ++i) {
    s.add(1.0 + 0.001 * (i % 3), i);
    EXPECT_FALSE(s.should_stop()) << i;  // below min_samples
  }
  s.add(1.0, 10);
  EXPECT_TRUE(s.should_stop());
  EXPECT_TRUE(s.target_met());
}

TEST(Stopping, NoisySamplesRunToMaxTime) {
  StoppingRule rule;
  rule.ci_target = 0.01;
  rule.min_samples = 5;
  rule.min_time_s = 0;
  rule.max_time_s = 50;
  AdaptiveStopper s(rule);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> wild(0.5, 1.5);
  int i = 0;
  for (; i < 50; ++i) {
    s.add(wild(rng), i + 1);
    if (s.should_stop()) break;
  }
  EXPECT_EQ(i, 49);  // stopped only by the time limit
  EXPECT_FALSE(s.target_met());
}

TEST(Stopping, MinTimeHoldsBackAStop) {
  StoppingRule rule;
  rule.min_samples = 2;
  rule.min_time_s = 5;
  rule.max_time_s = 100;
  AdaptiveStopper s(rule);
  for (int i = 0; i < 20; ++i) s.add(1.0, 0.1 * i);
  EXPECT_FALSE(s.should_stop());
  s.add(1.0, 6);
  EXPECT_TRUE(s.should_stop());
}

TEST(Warmup, StableAfterTransientDecays) {
  WarmupDetector w({.min_steps = 3, .tolerance = 0.05, .window_time_s = 0.5, .max_window = 5});
  // Slow first steps (allocation, autotuning), then steady 10 ms: window = 5.
  for (double t : {0.5, 0.05, 0.02}) {
    w.add(t);
    EXPECT_FALSE(w.stable());
  }
  for (int i = 0; i < 12; ++i) w.add(0.010 + 0.0001 * (i % 2));
  EXPECT_TRUE(w.stable());
  EXPECT_NEAR(w.recent_median(), 0.0100, 0.0002);
}

TEST(Warmup, LongStepsUseSingleStepWindow) {
  WarmupDetector w;
  w.add(9.0);
  w.add(6.0);
  EXPECT_EQ(w.window(), 1u);
  EXPECT_FALSE(w.stable());  // min 3 steps
  w.add(6.1);
  EXPECT_TRUE(w.stable());
}

TEST(Budget, UnusedTimeFlowsToLaterCases) {
  BudgetScheduler b(90, 60, 3);
  EXPECT_DOUBLE_EQ(b.next_allowance(), 30);
  b.finished_case(5);  // a quick case
  EXPECT_DOUBLE_EQ(b.next_allowance(), 42.5);
  b.finished_case(10);
  EXPECT_DOUBLE_EQ(b.next_allowance(), 60);  // capped by the per-case maximum
}

TEST(Budget, NoBudgetMeansPerCaseMaximum) {
  BudgetScheduler b(0, 20, 3);
  EXPECT_DOUBLE_EQ(b.next_allowance(), 20);
  b.finished_case(100);
  EXPECT_DOUBLE_EQ(b.next_allowance(), 20);
}

TEST(Plan, AcceleratorsFirstCpuLastPerModel) {
  PlanRequest r;
  r.models = {"mlp", "cnn"};
  r.devices = {"cpu", "cuda:0"};
  const auto p = make_plan(r);
  ASSERT_EQ(p.cases.size(), 4u);
  EXPECT_EQ(p.cases[0].device, "cuda:0");
  EXPECT_EQ(p.cases[1].device, "cpu");
  EXPECT_EQ(p.cases[2].workload, "cnn");
}
