#include "core/t_distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace accelbench {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
// Beyond this many degrees of freedom the Cornish-Fisher expansion (four terms, error ~ dof^-5) is
// exact to double precision and cheaper than the incomplete beta's continued fraction.
constexpr double kCornishFisherDof = 1e5;

// Continued fraction of I_x(a, b) (modified Lentz), valid where x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double x, double a, double b) {
  constexpr double tiny = 1e-300, eps = 1e-16;
  constexpr int max_terms = 100000;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::abs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= max_terms; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1) < eps) break;
  }
  return h;
}

// x^a (1-x)^b / (a B(a, b)), the continued fraction's prefactor, from logs.
double beta_prefactor(double x, double one_minus_x, double a, double b) {
  return std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log(one_minus_x));
}

// I_x(a, b) with 1 - x given separately (exact where x is close to 1).
double incomplete_beta(double x, double one_minus_x, double a, double b) {
  if (x <= 0) return 0;
  if (one_minus_x <= 0) return 1;
  const bool direct = x < (a + 1) / (a + b + 2);
  if (direct) return beta_prefactor(x, one_minus_x, a, b) * beta_continued_fraction(x, a, b) / a;
  return 1 - beta_prefactor(x, one_minus_x, a, b) * beta_continued_fraction(one_minus_x, b, a) / b;
}

// P(|T| > t) for t >= 0: I_{dof/(dof+t^2)}(dof/2, 1/2), with 1 - x = t^2/(dof+t^2) computed directly.
double t_two_sided_tail(double t, double dof) {
  const double t2 = t * t;
  return incomplete_beta(dof / (dof + t2), t2 / (dof + t2), dof / 2, 0.5);
}

double t_density(double t, double dof) {
  const double log_c = std::lgamma((dof + 1) / 2) - std::lgamma(dof / 2) - 0.5 * std::log(dof * M_PI);
  return std::exp(log_c - (dof + 1) / 2 * std::log1p(t * t / dof));
}

// Abramowitz & Stegun 26.7.5: t_p = z + g1/v + g2/v^2 + g3/v^3 + g4/v^4.
double t_quantile_cornish_fisher(double z, double dof) {
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + g1 / dof + g2 / (dof * dof) + g3 / (dof * dof * dof) + g4 / (dof * dof * dof * dof);
}

// The upper-tail quantile t > 0 with P(T > t) = q (q < 1/2): Newton on the tail, kept inside a
// bracket that bisection shrinks whenever a Newton step would leave it.
double t_upper_quantile(double q, double dof) {
  double lo = 0, hi = 1;
  while (t_two_sided_tail(hi, dof) / 2 > q && hi < 1e300) hi *= 2;
  double t = std::clamp(t_quantile_cornish_fisher(normal_quantile(1 - q), dof), lo, hi);
  if (!(t > lo && t < hi)) t = (lo + hi) / 2;
  for (int i = 0; i < 400; ++i) {
    const double f = t_two_sided_tail(t, dof) / 2 - q;  // decreasing in t
    if (f > 0) lo = t;
    else hi = t;
    const double step = f / t_density(t, dof);  // t_next = t - f / f', f' = -density
    double next = t + step;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (std::abs(next - t) <= 1e-14 * std::max(1.0, t)) return next;
    t = next;
  }
  return t;
}
}  // namespace

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_quantile(double p) {
  if (!(p >= 0 && p <= 1)) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  // Acklam's rational approximation (relative error 1.15e-9), then one Halley step on erfc.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  double x;
  if (p < p_low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - p_low) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double regularized_incomplete_beta(double x, double a, double b) {
  if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1)) return kNaN;
  return incomplete_beta(x, 1 - x, a, b);
}

double t_cdf(double t, double dof) {
  if (!(dof > 0) || std::isnan(t)) return kNaN;
  if (std::isinf(dof)) return normal_cdf(t);
  const double tail = t_two_sided_tail(std::abs(t), dof) / 2;
  return t < 0 ? tail : 1 - tail;
}

double t_quantile(double p, double dof) {
  if (!(dof > 0) || !(p > 0 && p < 1)) {
    if (dof > 0 && p == 0) return -kInf;
    if (dof > 0 && p == 1) return kInf;
    return kNaN;
  }
  if (p == 0.5) return 0;
  if (std::isinf(dof)) return normal_quantile(p);
  const bool upper = p > 0.5;
  const double q = upper ? 1 - p : p;  // the tail beyond the quantile
  const double z = normal_quantile(1 - q);
  const double t = dof > kCornishFisherDof ? t_quantile_cornish_fisher(z, dof) : t_upper_quantile(q, dof);
  return upper ? t : -t;
}

double t_quantile_95(std::size_t dof) {
  if (dof == 0) return kInf;
  return t_quantile(0.975, static_cast<double>(dof));
}

double f_quantile(double p, double d1, double d2) {
  if (!(p > 0 && p < 1) || !(d1 > 0) || !(d2 > 0)) return std::numeric_limits<double>::quiet_NaN();
  // On u = d1 x / (d1 x + d2) in (0, 1) the CDF is I_u(d1/2, d2/2), increasing in u.
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = (lo + hi) / 2;
    (regularized_incomplete_beta(mid, d1 / 2, d2 / 2) < p ? lo : hi) = mid;
  }
  const double u = (lo + hi) / 2;
  return d2 * u / (d1 * (1 - u));
}

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

}  // namespace accelbench
