#pragma once
// A prior for the variances of a set of estimates, fitted from the estimates themselves, and one
// estimate moderated by it: the empirical Bayes method of limma (Smyth 2004, "Linear models and
// empirical Bayes methods for assessing differential expression", section 6.2). Each estimate s_i^2
// with d_i degrees of freedom is taken as s0^2 chi^2_{d_i} / d_i-scaled draws around a prior
// s0^2 worth d0 degrees of freedom; d0 is large where the estimates agree more than their own
// sampling error explains (the cases share one spread), small where they spread beyond it (each
// case has its own). The moderated variance (d0 s0^2 + d s^2) / (d0 + d) has d0 + d degrees of
// freedom. No torch here.
#include <vector>

namespace accelbench {

struct VarianceEstimate {
  double variance = 0;  // s^2
  double dof = 0;       // its degrees of freedom
};

// digamma and trigamma functions (x > 0), to about 1e-11; trigamma_inverse(y) solves
// trigamma(x) = y for y > 0 by Newton's method from limma's starting point.
double digamma(double x);
double trigamma(double x);
double trigamma_inverse(double y);

// The prior (s0^2, d0) fitted to the estimates with a variance and dof above 0 (the others are left
// out). d0 is capped at the estimates' total dof: a prior never counts for more than what it was
// fitted from. One estimate: itself. None: {0, 0}.
VarianceEstimate fit_variance_prior(const std::vector<VarianceEstimate>& estimates);

// An estimate moderated by a prior: (d0 s0^2 + d s^2) / (d0 + d) with d0 + d dof; the prior alone
// when the estimate has no dof, the estimate alone when the prior has none.
VarianceEstimate moderate_variance(const VarianceEstimate& own, const VarianceEstimate& prior);

}  // namespace accelbench
