#pragma once
// Student's t and the standard normal distribution: CDFs and quantiles, exact to about 1e-10 for
// any degrees of freedom (the t CDF through the regularized incomplete beta function, the quantile
// by a safeguarded Newton iteration on it; very large dof through the Cornish-Fisher expansion).
// Torch-free and dependency-free: accelbench_telemetry compiles this file (the telemetry's power
// batch means use it), and core/stats.h re-exports it, so statistics have one place.
#include <cstddef>

namespace accelbench {

// Standard normal CDF, and its inverse for p in (0, 1) (+-infinity at 0 and 1).
double normal_cdf(double x);
double normal_quantile(double p);

// Regularized incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1].
double regularized_incomplete_beta(double x, double a, double b);

// P(T <= t) for Student's t with `dof` > 0 degrees of freedom (non-integer dof allowed;
// dof = infinity is the normal).
double t_cdf(double t, double dof);

// The p-quantile of Student's t with `dof` degrees of freedom: t_cdf(t_quantile(p, dof), dof) = p.
// p in (0, 1); dof > 0 (infinity: the normal quantile). NaN for a dof <= 0 or a p outside (0, 1).
double t_quantile(double p, double dof);

// Two-sided 95% quantile, t_quantile(0.975, dof): 12.706205 for 1 dof, 2.039513 for 31, 1.959964 in
// the limit. dof 0 gives infinity (no interval from a single value).
double t_quantile_95(std::size_t dof);

// The p-quantile of the F distribution with (d1, d2) degrees of freedom (d1, d2 > 0, p in (0, 1)):
// P(F <= x) = I_{d1 x / (d1 x + d2)}(d1 / 2, d2 / 2), inverted by bisection. NaN outside the domain.
double f_quantile(double p, double d1, double d2);

// The digamma and trigamma functions (x > 0), to about 1e-11; trigamma_inverse(y) solves
// trigamma(x) = y for y > 0 by Newton's method from limma's starting point (analysis/run_to_run.h's
// variance prior uses them).
double digamma(double x);
double trigamma(double x);
double trigamma_inverse(double y);

}  // namespace accelbench
