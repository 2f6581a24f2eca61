// Drift within a round: Pettitt's rank changepoint test on simulated step times (a 20% level change
// found, stationary noise of several shapes left alone), and the settled level for warm-up.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/drift.h"

using namespace accelbench;

// 1000 series of 30-60 samples with 3-5% noise and a 20% level change (up or down) at a random
// point in the middle half: found in >= 95%, located within 2 samples in >= 95%.
TEST(Drift, FindsATwentyPercentLevelChange) {
  std::mt19937_64 rng(77);
  const int sims = 1000;
  int found = 0, located = 0, sized = 0;
  for (int s = 0; s < sims; ++s) {
    const int n = std::uniform_int_distribution<int>(30, 60)(rng);
    const double cv = std::uniform_real_distribution<double>(0.03, 0.05)(rng);
    const int change = std::uniform_int_distribution<int>(n / 4, 3 * n / 4)(rng);
    const double after = s % 2 ? 1.2 : 1 / 1.2;
    std::normal_distribution<double> noise(0, cv);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = 1e-3 * (i < change ? 1.0 : after) * std::exp(noise(rng));
    const auto d = detect_drift(x);
    found += d.drift;
    located += d.drift && std::abs(static_cast<int>(d.change_index) - change) <= 2;
    sized += d.drift && std::abs(d.relative_change - (after - 1)) < 0.05;
  }
  std::printf("  20%% change: found %.3f, located within 2 samples %.3f, size within 5 points %.3f\n", found / 1000.0,
              located / 1000.0, sized / 1000.0);
  EXPECT_GE(found, 950);
  EXPECT_GE(located, 950);
  EXPECT_GE(sized, 950);
}

// Stationary series of 30-60 samples: no alarm in >= 95% of 1000, for normal 5% noise, heavy-tailed
// lognormal noise (sigma 0.5) and rare 3x spikes (5% of the samples).
TEST(Drift, NoAlarmOnStationaryNoise) {
  std::mt19937_64 rng(78);
  const int sims = 1000;
  int alarms_normal = 0, alarms_lognormal = 0, alarms_spiky = 0;
  std::normal_distribution<double> normal(0, 0.05);
  std::lognormal_distribution<double> heavy(0, 0.5);
  std::bernoulli_distribution spike(0.05);
  for (int s = 0; s < sims; ++s) {
    const auto n = static_cast<std::size_t>(std::uniform_int_distribution<int>(30, 60)(rng));
    std::vector<double> a(n), b(n), c(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = std::exp(normal(rng));
      b[i] = heavy(rng);
      c[i] = std::exp(normal(rng)) * (spike(rng) ? 3.0 : 1.0);
    }
    alarms_normal += detect_drift(a).drift;
    alarms_lognormal += detect_drift(b).drift;
    alarms_spiky += detect_drift(c).drift;
  }
  std::printf("  false alarms: normal %.3f, lognormal %.3f, spiky %.3f\n", alarms_normal / 1000.0,
              alarms_lognormal / 1000.0, alarms_spiky / 1000.0);
  EXPECT_LE(alarms_normal, 50);
  EXPECT_LE(alarms_lognormal, 50);
  EXPECT_LE(alarms_spiky, 50);
}

TEST(Drift, SmallOrShortSeriesAreNotDrift) {
  // A significant but 1% change is below min_relative_change.
  std::vector<double> x;
  for (int i = 0; i < 200; ++i) x.push_back((i < 100 ? 1.0 : 1.01) + 1e-4 * (i % 7));
  const auto d = detect_drift(x);
  EXPECT_LT(d.p_value, 0.01);
  EXPECT_FALSE(d.drift);
  EXPECT_NE(d.method.find("smaller than"), std::string::npos);
  DriftOptions any_size;
  any_size.min_relative_change = 0;
  EXPECT_TRUE(detect_drift(x, any_size).drift);
  // Too few samples: no test.
  const std::vector<double> few{1, 1, 1, 2, 2};
  EXPECT_FALSE(detect_drift(few).drift);
  EXPECT_DOUBLE_EQ(detect_drift(few).p_value, 1.0);
}

// Recorded-like warm-up: 600 us steps for the first third, then 330 us (3% noise). On the whole
// series the level starts at the change and is settled at 330 us; just after the change it is not
// settled; before it, nothing can tell that the samples will leave 600 us, which is why the runner
// should call settled_level on all steps so far (measured ones too) and keep level_from.
TEST(Drift, SettledLevelAfterAWarmupStep) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0, 0.03);
  std::vector<double> x;
  for (int i = 0; i < 60; ++i) x.push_back((i < 20 ? 600e-6 : 330e-6) * std::exp(noise(rng)));
  const auto all = settled_level(x);
  EXPECT_TRUE(all.settled) << all.reason;
  EXPECT_NEAR(static_cast<double>(all.level_from), 20, 1);
  EXPECT_EQ(all.changes, 1u);
  EXPECT_NEAR(all.level, 330e-6, 330e-6 * 0.02);

  const auto just_after = settled_level(std::span<const double>(x).first(25));
  EXPECT_FALSE(just_after.settled) << just_after.reason;

  const auto before = settled_level(std::span<const double>(x).first(18));
  EXPECT_TRUE(before.settled);
  EXPECT_NEAR(before.level, 600e-6, 600e-6 * 0.03);

  // Stationary from the start: settled from sample 0, no change.
  std::vector<double> flat;
  for (int i = 0; i < 40; ++i) flat.push_back(330e-6 * std::exp(noise(rng)));
  const auto f = settled_level(flat);
  EXPECT_TRUE(f.settled);
  EXPECT_EQ(f.level_from, 0u);
  EXPECT_EQ(f.changes, 0u);

  // Still moving at the end (a steady ramp down of 30% over the last 15 steps): not settled.
  std::vector<double> ramp = flat;
  for (int i = 0; i < 15; ++i) ramp.push_back(330e-6 * (1 - 0.02 * (i + 1)));
  EXPECT_FALSE(settled_level(ramp).settled) << settled_level(ramp).reason;
}

// Stationary steps with 3% noise: settled in most series (a false "not settled" only costs more
// warm-up, but it must not be the rule). With noise much above the tolerance the halves disagree
// often: a caller with noisy steps passes a wider tolerance.
TEST(Drift, StationaryStepsSettle) {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> noise(0, 0.03);
  int settled = 0;
  for (int s = 0; s < 500; ++s) {
    std::vector<double> x(30);
    for (auto& v : x) v = 1e-3 * std::exp(noise(rng));
    settled += settled_level(x).settled;
  }
  std::printf("  stationary 3%% noise: settled in %.3f\n", settled / 500.0);
  EXPECT_GE(settled, 450);
}

// The round's decision on a recorded-like series: the mlp on the H200 at ~600 us for the first
// third, then ~330 us (warm-up had declared the first level stable).
TEST(DriftDecision, DropsTheSamplesBeforeALevelChangeWhileTimeIsLeftElseFlagsTheRound) {
  std::vector<double> series;
  for (int i = 0; i < 30; ++i) series.push_back((i < 10 ? 600e-6 : 330e-6) * (1 + 0.01 * ((i * 7) % 5 - 2)));
  const auto go_on = decide_on_drift(series, /*time_left=*/true, /*restarts_done=*/0);
  EXPECT_TRUE(go_on.drop_and_continue);
  EXPECT_FALSE(go_on.drifting);
  EXPECT_NEAR(static_cast<double>(go_on.drop), 10, 1);
  const auto out_of_time = decide_on_drift(series, /*time_left=*/false, 0);
  EXPECT_FALSE(out_of_time.drop_and_continue);
  EXPECT_TRUE(out_of_time.drifting);
  const auto out_of_restarts = decide_on_drift(series, true, kMaxDriftRestarts);
  EXPECT_TRUE(out_of_restarts.drifting);
  std::vector<double> steady(series.begin() + 10, series.end());
  const auto none = decide_on_drift(steady, true, 0);
  EXPECT_FALSE(none.drop_and_continue);
  EXPECT_FALSE(none.drifting);
}
