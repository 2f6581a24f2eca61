#include "analysis/variance_prior.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace accelbench {

double digamma(double x) {
  double result = 0;
  for (; x < 12; x += 1) result -= 1 / x;  // psi(x) = psi(x + 1) - 1 / x
  const double f = 1 / (x * x);
  return result + std::log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double trigamma(double x) {
  double result = 0;
  for (; x < 12; x += 1) result += 1 / (x * x);  // psi'(x) = psi'(x + 1) + 1 / x^2
  const double f = 1 / (x * x);
  return result + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

namespace {
// psi''(x), by the asymptotic series after the recurrence psi''(x) = psi''(x + 1) - 2 / x^3.
double tetragamma(double x) {
  double result = 0;
  for (; x < 12; x += 1) result -= 2 / (x * x * x);
  const double f = 1 / (x * x);
  return result - f - f / x - f * f * (0.5 - f * (1.0 / 6 - f * (1.0 / 6 - f * 3.0 / 10)));
}
}  // namespace

double trigamma_inverse(double y) {
  if (y > 1e7) return 1 / std::sqrt(y);
  if (y < 1e-6) return 1 / y;
  double x = 0.5 + 1 / y;  // limma's start: trigamma is convex, so Newton from here increases x monotonically
  for (int i = 0; i < 100; ++i) {
    const double tri = trigamma(x);
    const double step = tri * (1 - tri / y) / tetragamma(x);
    x += step;
    if (-step / x < 1e-10) break;
  }
  return x;
}

VarianceEstimate fit_variance_prior(const std::vector<VarianceEstimate>& estimates) {
  std::vector<VarianceEstimate> usable;
  double total_dof = 0;
  for (const auto& e : estimates)
    if (e.variance > 0 && e.dof > 0 && std::isfinite(e.variance) && std::isfinite(e.dof)) {
      usable.push_back(e);
      total_dof += e.dof;
    }
  if (usable.empty()) return {};
  if (usable.size() == 1) return usable.front();
  // z_i = log s_i^2 - digamma(d_i/2) + log(d_i/2) has mean log s0^2 - digamma(d0/2) + log(d0/2) and
  // variance trigamma(d_i/2) + trigamma(d0/2).
  const double n = static_cast<double>(usable.size());
  double mean = 0, sampling = 0;
  std::vector<double> z;
  for (const auto& e : usable) {
    z.push_back(std::log(e.variance) - digamma(e.dof / 2) + std::log(e.dof / 2));
    mean += z.back() / n;
    sampling += trigamma(e.dof / 2) / n;
  }
  double spread = 0;
  for (const double v : z) spread += (v - mean) * (v - mean) / (n - 1);
  const double excess = spread - sampling;
  if (!(excess > 0)) return {std::exp(mean), total_dof};  // no spread beyond sampling: d0 infinite, capped
  const double d0 = 2 * trigamma_inverse(excess);
  return {std::exp(mean + digamma(d0 / 2) - std::log(d0 / 2)), std::min(d0, total_dof)};
}

VarianceEstimate moderate_variance(const VarianceEstimate& own, const VarianceEstimate& prior) {
  if (!(prior.dof > 0)) return own;
  if (!(own.dof > 0)) return prior;
  const double dof = prior.dof + own.dof;
  return {(prior.dof * prior.variance + own.dof * own.variance) / dof, dof};
}

}  // namespace accelbench
