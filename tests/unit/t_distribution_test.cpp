// Student's t and the normal: quantiles against published tables, CDF round trips, edge cases.
#include <gtest/gtest.h>

#include <cmath>

#include "core/stats.h"  // re-exports core/t_distribution.h

using namespace accelbench;

TEST(TDistribution, TwoSided95MatchesTables) {
  // t_{0.975, dof} to 6 decimals (e.g. R's qt(0.975, dof)).
  const std::pair<std::size_t, double> table[] = {{1, 12.706205}, {2, 4.302653},  {5, 2.570582},
                                                  {10, 2.228139}, {30, 2.042272}, {31, 2.039513},
                                                  {60, 2.000298}, {120, 1.979930}, {1000, 1.962339}};
  for (const auto& [dof, t] : table) EXPECT_NEAR(t_quantile_95(dof), t, 1e-5) << "dof " << dof;
  EXPECT_NEAR(t_quantile(0.975, INFINITY), 1.959964, 1e-6);
  EXPECT_NEAR(t_quantile_95(100000000), 1.959964, 1e-6);
  EXPECT_TRUE(std::isinf(t_quantile_95(0)));
}

TEST(TDistribution, OtherLevelsAndFractionalDof) {
  EXPECT_NEAR(t_quantile(0.995, 1), 63.656741, 1e-5);
  EXPECT_NEAR(t_quantile(0.995, 10), 3.169273, 1e-6);
  EXPECT_NEAR(t_quantile(0.95, 4), 2.131847, 1e-6);
  EXPECT_NEAR(t_quantile(0.1, 3), -1.637744, 1e-6);
  EXPECT_NEAR(t_quantile(0.9, 50), 1.298714, 1e-6);
  EXPECT_NEAR(t_quantile(0.975, 2.5), 3.574655, 1e-6);  // Welch-style non-integer dof (scipy)
  // Closed forms: dof 1 is Cauchy, dof 2 is (2p-1)/sqrt(2p(1-p)).
  EXPECT_NEAR(t_quantile(0.9, 1), std::tan(M_PI * 0.4), 1e-9);
  const double p = 1e-6;
  EXPECT_NEAR(t_quantile(p, 2) / ((2 * p - 1) / std::sqrt(2 * p * (1 - p))), 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(t_quantile(0.5, 7), 0.0);
  EXPECT_TRUE(std::isnan(t_quantile(0.975, 0)));
  EXPECT_TRUE(std::isnan(t_quantile(1.5, 5)));
}

TEST(TDistribution, CdfInvertsQuantileAndIsSymmetric) {
  for (double dof : {1.0, 3.0, 9.0, 40.0, 500.0, 5e4})
    for (double p : {0.001, 0.025, 0.3, 0.7, 0.975, 0.9999}) {
      EXPECT_NEAR(t_cdf(t_quantile(p, dof), dof), p, 1e-10) << dof << " " << p;
      EXPECT_NEAR(t_quantile(p, dof), -t_quantile(1 - p, dof), 1e-9);
    }
  // Above the Cornish-Fisher switch the quantile still agrees with the exact CDF.
  EXPECT_NEAR(t_cdf(t_quantile(0.975, 2e5), 2e5), 0.975, 1e-10);
}

TEST(TDistribution, NormalQuantileAndIncompleteBeta) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963985, 1e-9);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902, 1e-8);
  for (double p : {1e-8, 0.01, 0.2, 0.6, 0.99}) EXPECT_NEAR(normal_cdf(normal_quantile(p)), p, 1e-12 + 1e-9 * p);
  // I_x(1, 1) = x; I_x(a, 1) = x^a; I_0.5(a, a) = 1/2.
  EXPECT_NEAR(regularized_incomplete_beta(0.3, 1, 1), 0.3, 1e-14);
  EXPECT_NEAR(regularized_incomplete_beta(0.7, 3.5, 1), std::pow(0.7, 3.5), 1e-13);
  EXPECT_NEAR(regularized_incomplete_beta(0.5, 20, 20), 0.5, 1e-13);
}
