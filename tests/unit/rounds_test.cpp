// Rounds (separate process runs): the hierarchical interval's coverage of the level a fresh run
// would be centred on, on simulated rounds with a known between-round variance; the speed-up of
// rounds over rounds; the "add rounds, not samples" advice.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/rounds.h"

using namespace accelbench;

namespace {
// R rounds of n samples: round level ~ lognormal(log(centre), between), samples ~ level x
// lognormal(0, within). The population median of a fresh round's centre is `centre`.
Rounds simulate_rounds(std::mt19937_64& rng, std::size_t r, std::size_t n, double centre, double between, double within) {
  std::normal_distribution<double> level(0, between), noise(0, within);
  Rounds out;
  for (std::size_t i = 0; i < r; ++i) {
    const double l = centre * std::exp(level(rng));
    std::vector<double> s(n);
    for (auto& x : s) x = l * std::exp(noise(rng));
    out.samples.push_back(std::move(s));
  }
  return out;
}

struct Coverage {
  double headline = 0, bootstrap = 0;
};
Coverage coverage_of_centre(std::size_t r, double between, double within, int sims, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int hit = 0, boot_hit = 0;
  for (int s = 0; s < sims; ++s) {
    const auto rounds = simulate_rounds(rng, r, 30, 1.0, between, within);
    const auto e = median_ci_hierarchical(rounds, 0.95, 200, static_cast<std::uint64_t>(s) + 1);
    hit += e.level_low <= 1.0 && 1.0 <= e.level_high;
    boot_hit += e.bootstrap_low <= 1.0 && 1.0 <= e.bootstrap_high;
  }
  return {hit / static_cast<double>(sims), boot_hit / static_cast<double>(sims)};
}

// Two independent runs of R rounds each: how often the first run's headline interval holds the
// median the second run reports (what coverage.py measures on real runs), and the same for the
// level's interval.
Coverage coverage_of_next_run(std::size_t r, double between, double within, int sims, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int hit = 0, level_hit = 0;
  for (int s = 0; s < sims; ++s) {
    const auto e = median_ci_hierarchical(simulate_rounds(rng, r, 30, 1.0, between, within), 0.95, 50,
                                          static_cast<std::uint64_t>(s) + 1);
    const auto next = median_ci_hierarchical(simulate_rounds(rng, r, 30, 1.0, between, within), 0.95, 50,
                                             static_cast<std::uint64_t>(s) + 7);
    hit += e.low <= next.median && next.median <= e.high;
    level_hit += e.level_low <= next.median && next.median <= e.level_high;
  }
  return {hit / static_cast<double>(sims), level_hit / static_cast<double>(sims)};
}
}  // namespace

TEST(Rounds, PooledMedianRoundMediansAndDispersion) {
  Rounds r{{{1, 2, 3}, {}, {10, 11, 12, 13}}};
  const auto e = median_ci_hierarchical(r, 0.95, 200);
  EXPECT_EQ(e.rounds, 2u);  // the empty round is ignored
  EXPECT_DOUBLE_EQ(e.median, 10);
  ASSERT_EQ(e.round_medians.size(), 2u);
  EXPECT_DOUBLE_EQ(e.round_medians[0], 2);
  EXPECT_DOUBLE_EQ(e.round_medians[1], 11.5);
  EXPECT_NEAR(e.between_round_sd_log, std::abs(std::log(11.5) - std::log(2)) / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(e.between_round_range_relative, 9.5 / 6.75, 1e-12);
  EXPECT_LT(e.low, e.median);
  EXPECT_GT(e.high, e.median);
  EXPECT_THROW(median_ci_hierarchical(Rounds{{{}, {}}}), std::invalid_argument);
  EXPECT_THROW(median_ci_hierarchical(Rounds{{{1, 0, 2}}}), std::invalid_argument);
  // One round: the within-round bootstrap, and the method says it ignores run-to-run variation.
  const auto one = median_ci_hierarchical(Rounds{{{1, 2, 3, 4, 5, 6, 7, 8, 9}}});
  EXPECT_EQ(one.low, one.bootstrap_low);
  EXPECT_NE(one.method.find("ignores"), std::string::npos);
  // Same seed, same answer.
  EXPECT_EQ(median_ci_hierarchical(r, 0.95, 200, 7).bootstrap_low, median_ci_hierarchical(r, 0.95, 200, 7).bootstrap_low);
}

// Round level ~ lognormal(0, 0.05), samples ~ level x lognormal(0, 0.02), 30 per round: the 95%
// interval must cover the population level (1.0) in 93-97% of 1000 simulated runs, for R = 3 and 5.
// The plain two-level percentile bootstrap does not (about 73% and 87%): that is why it is not the
// headline interval.
TEST(Rounds, HierarchicalIntervalCoversTheLevelOfAFreshRun) {
  const auto r3 = coverage_of_centre(3, 0.05, 0.02, 1000, 3);
  const auto r5 = coverage_of_centre(5, 0.05, 0.02, 1000, 5);
  std::printf("  R=3: coverage %.3f (bootstrap percentile %.3f); R=5: %.3f (%.3f)\n", r3.headline, r3.bootstrap,
              r5.headline, r5.bootstrap);
  EXPECT_GE(r3.headline, 0.93);
  EXPECT_LE(r3.headline, 0.97);
  EXPECT_GE(r5.headline, 0.93);
  EXPECT_LE(r5.headline, 0.97);
  EXPECT_LT(r3.bootstrap, 0.85);
  EXPECT_LT(r5.bootstrap, 0.92);
}

// The headline interval is for the next run's median: it holds it in 93-97% of 1000 simulated
// pairs of runs, for R = 3 and 5; the level's interval, narrower by sqrt(2), does not (about 83%).
TEST(Rounds, HeadlineIntervalCoversTheNextRunsMedian) {
  const auto r3 = coverage_of_next_run(3, 0.05, 0.02, 1000, 31);
  const auto r5 = coverage_of_next_run(5, 0.05, 0.02, 1000, 51);
  std::printf("  next run's median: R=3 %.3f (level interval %.3f); R=5 %.3f (%.3f)\n", r3.headline, r3.bootstrap,
              r5.headline, r5.bootstrap);
  EXPECT_GE(r3.headline, 0.93);
  EXPECT_LE(r3.headline, 0.97);
  EXPECT_GE(r5.headline, 0.93);
  EXPECT_LE(r5.headline, 0.97);
  EXPECT_LT(r3.bootstrap, 0.90);
  EXPECT_LT(r5.bootstrap, 0.90);
}

// When the noise within rounds dominates (levels 0.5% apart, samples 2%), the round medians carry
// it and the interval still holds.
TEST(Rounds, HierarchicalIntervalHoldsWhenWithinRoundNoiseDominates) {
  const auto r5 = coverage_of_centre(5, 0.005, 0.02, 600, 8);
  std::printf("  R=5, within-round noise dominating: coverage %.3f\n", r5.headline);
  EXPECT_GE(r5.headline, 0.92);
  EXPECT_LE(r5.headline, 0.98);
}

TEST(Rounds, RatioOfRoundsCoversTheTrueSpeedUp) {
  std::mt19937_64 rng(21);
  int hit = 0, next_hit = 0, sims = 600;
  for (int s = 0; s < sims; ++s) {
    const auto cpu = simulate_rounds(rng, 5, 30, 8.0, 0.04, 0.03);
    const auto gpu = simulate_rounds(rng, 4, 30, 2.0, 0.06, 0.02);
    const auto r = ratio_of_medians_hierarchical(cpu, gpu, 0.95, 100, static_cast<std::uint64_t>(s) + 1);
    EXPECT_LT(r.low, r.ratio);
    EXPECT_GT(r.high, r.ratio);
    hit += r.level_low <= 4.0 && 4.0 <= r.level_high;
    const auto next = ratio_of_medians_hierarchical(simulate_rounds(rng, 5, 30, 8.0, 0.04, 0.03),
                                                    simulate_rounds(rng, 4, 30, 2.0, 0.06, 0.02), 0.95, 20, 3);
    next_hit += r.low <= next.ratio && next.ratio <= r.high;
  }
  const double coverage = hit / static_cast<double>(sims), next_coverage = next_hit / static_cast<double>(sims);
  std::printf("  speed-up of 5 rounds over 4: the level's interval covers the true one %.3f; the headline holds "
              "the next run's %.3f\n", coverage, next_coverage);
  EXPECT_GE(coverage, 0.92);
  EXPECT_LE(coverage, 0.98);
  EXPECT_GE(next_coverage, 0.92);
  EXPECT_LE(next_coverage, 0.98);
  // A single round on one side: the bootstrap interval, and the method says so.
  const auto one = ratio_of_medians_hierarchical(Rounds{{{4, 4.1, 3.9, 4.2}}}, Rounds{{{1, 1.1}, {0.9, 1.0}}});
  EXPECT_EQ(one.low, one.bootstrap_low);
  EXPECT_NE(one.method.find("single round"), std::string::npos);
}

TEST(Rounds, AgreementSaysAddRoundsNotSamples) {
  // Three precise rounds (0.2% noise) whose levels are 10% apart: more samples will not help.
  std::mt19937_64 rng(4);
  std::normal_distribution<double> noise(0, 0.002);
  Rounds apart;
  for (double level : {1.0, 1.1, 0.92}) {
    std::vector<double> s(40);
    for (auto& x : s) x = level * std::exp(noise(rng));
    apart.samples.push_back(s);
  }
  const auto a = rounds_agreement(apart, median_ci_hierarchical(apart), 0.02);
  EXPECT_TRUE(a.rounds_disagree);
  EXPECT_TRUE(a.add_rounds);
  EXPECT_LT(a.within_half_width_relative, 0.02);
  EXPECT_NE(a.advice.find("add rounds, not samples"), std::string::npos);
  // Same level everywhere: they agree.
  Rounds together;
  for (int i = 0; i < 3; ++i) {
    std::vector<double> s(40);
    for (auto& x : s) x = std::exp(noise(rng));
    together.samples.push_back(s);
  }
  const auto b = rounds_agreement(together, median_ci_hierarchical(together), 0.02);
  EXPECT_FALSE(b.rounds_disagree);
  EXPECT_FALSE(b.add_rounds);
  // Noisy rounds (10% noise, 10 samples): disagreement, but the rounds themselves are imprecise too.
  std::normal_distribution<double> loud(0, 0.10);
  Rounds noisy;
  for (double level : {1.0, 1.1, 0.92}) {
    std::vector<double> s(10);
    for (auto& x : s) x = level * std::exp(loud(rng));
    noisy.samples.push_back(s);
  }
  const auto c = rounds_agreement(noisy, median_ci_hierarchical(noisy), 0.02);
  EXPECT_TRUE(c.rounds_disagree);
  EXPECT_FALSE(c.add_rounds);
  // One round: nothing known between rounds.
  Rounds single{{together.samples[0]}};
  const auto d = rounds_agreement(single, median_ci_hierarchical(single), 0.02);
  EXPECT_FALSE(d.rounds_disagree);
  EXPECT_NE(d.advice.find("one round"), std::string::npos);
}
