#include "analysis/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numeric>

#include "core/durations.h"
#include "core/errors.h"
#include "core/stats.h"

namespace accelbench {

MannWhitney mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  MannWhitney r;
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return r;
  std::vector<std::pair<double, int>> all;
  all.reserve(n);
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end(), [](const auto& l, const auto& rr) { return l.first < rr.first; });
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;  // 1-based ranks i+1..j
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += avg_rank;
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2), dn = static_cast<double>(n);
  r.u = rank_sum_a - dn1 * (dn1 + 1) / 2.0;
  const double mean = dn1 * dn2 / 2.0;
  const double var = dn1 * dn2 / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (var <= 0) {  // every value equal
    r.z = 0;
    r.p = 1;
    return r;
  }
  const double diff = r.u - mean;
  const double corrected = diff > 0 ? std::max(0.0, diff - 0.5) : std::min(0.0, diff + 0.5);
  r.z = corrected / std::sqrt(var);
  r.p = std::min(1.0, std::erfc(std::fabs(r.z) / std::sqrt(2.0)));
  return r;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Same: return "SAME";
    case Verdict::Faster: return "FASTER";
    case Verdict::Slower: return "SLOWER";
    case Verdict::Uncertain: return "UNCERTAIN";
  }
  return "?";
}

SampleComparison compare_samples(std::span<const double> a, std::span<const double> b, const CompareOptions& o) {
  SampleComparison r;
  r.n_a = a.size();
  r.n_b = b.size();
  if (a.empty() || b.empty()) {
    r.verdict = Verdict::Uncertain;
    r.reason = "no samples";
    return r;
  }
  {
    std::vector<double> sa(a.begin(), a.end()), sb(b.begin(), b.end());
    r.median_a = summarize(sa).median;
    r.median_b = summarize(sb).median;
  }
  const auto est = ratio_of_medians(b, a, 1.0 - o.alpha);
  r.ratio = est.ratio;
  r.ci_low = est.low;
  r.ci_high = est.high;
  const auto shown = ratio_of_medians(b, a, o.shown_level);
  r.shown_low = shown.low;
  r.shown_high = shown.high;
  const auto mw = mann_whitney_u(a, b);
  r.p = mw.p;
  const double effect = r.ratio - 1.0;
  if (r.n_a < o.min_samples || r.n_b < o.min_samples) {
    r.verdict = Verdict::Uncertain;
    r.reason = fmt::format("too few samples ({} and {}; {} needed)", r.n_a, r.n_b, o.min_samples);
    return r;
  }
  const bool significant = r.p < o.alpha;
  const bool ci_excludes_one = r.ci_low > 1.0 || r.ci_high < 1.0;
  if (significant && ci_excludes_one) {
    if (std::fabs(effect) < o.min_effect) {
      r.verdict = Verdict::Same;
      r.reason = fmt::format("significant but below the {:.0f}% minimum effect", 100 * o.min_effect);
    } else {
      r.verdict = effect > 0 ? Verdict::Slower : Verdict::Faster;
      r.reason = fmt::format("p = {:.2g} < {}", r.p, o.alpha);
    }
  } else if (significant) {
    r.verdict = Verdict::Uncertain;
    r.reason = "the test and the ratio's CI disagree";
  } else if (r.ci_low >= 1.0 - o.equivalence_margin && r.ci_high <= 1.0 + o.equivalence_margin) {
    r.verdict = Verdict::Same;
    r.reason = fmt::format("p = {:.2g}, CI within +-{:.0f}%", r.p, 100 * o.equivalence_margin);
  } else {
    r.verdict = Verdict::Uncertain;
    r.reason = fmt::format("p = {:.2g} but the CI is wider than +-{:.0f}%", r.p, 100 * o.equivalence_margin);
  }
  return r;
}

void judge_between_runs(SampleComparison& r, const RunToRun& a, const RunToRun& b, const CompareOptions& o) {
  const double va = a.sd_log * a.sd_log, vb = b.sd_log * b.sd_log, v = va + vb;
  if (!(v > 0) || !(a.dof > 0) || !(b.dof > 0) || !(r.ratio > 0) || !std::isfinite(r.ratio)) return;
  const bool shared = &a == &b;  // one estimate for both runs: its own degrees of freedom
  const double dof = shared ? a.dof : v * v / (va * va / a.dof + vb * vb / b.dof);
  const double half = t_quantile(1 - o.alpha / 2, dof) * std::sqrt(v);
  const double d = std::log(r.ratio);
  r.between_runs = true;
  r.ci_low = r.ratio * std::exp(-half);
  r.ci_high = r.ratio * std::exp(half);
  const double shown_half = t_quantile(0.5 + o.shown_level / 2, dof) * std::sqrt(v);
  r.shown_low = r.ratio * std::exp(-shown_half);
  r.shown_high = r.ratio * std::exp(shown_half);
  r.p = std::min(1.0, 2 * (1 - t_cdf(std::fabs(d) / std::sqrt(v), dof)));
  if (std::exp(2 * half) > kTooWideFactor) {
    r.too_wide = true;
    r.verdict = Verdict::Uncertain;
    const auto& why = !b.too_wide.empty() ? b.too_wide : a.too_wide;
    r.reason = fmt::format("run-to-run noise spans {:.0f}x, too wide to tell: {}", std::exp(2 * half),
                           why.empty() ? "quiet the machine (`accelbench doctor`) and run again" : why);
    return;
  }
  const auto noise = "run-to-run noise " + format_relative_interval(1, std::exp(-half), std::exp(half));
  if (std::fabs(d) <= half) {
    const bool within = r.ci_low >= 1.0 - o.equivalence_margin && r.ci_high <= 1.0 + o.equivalence_margin;
    r.verdict = within ? Verdict::Same : Verdict::Uncertain;
    r.reason = fmt::format("within {}", noise);
  } else if (std::fabs(r.ratio - 1.0) < o.min_effect) {
    r.verdict = Verdict::Same;
    r.reason = fmt::format("beyond {} but below the {:.0f}% minimum effect", noise, 100 * o.min_effect);
  } else {
    r.verdict = r.ratio > 1 ? Verdict::Slower : Verdict::Faster;
    r.reason = fmt::format("beyond {}", noise);
  }
}

namespace {
std::string case_label(const CaseSpec& s) {
  return fmt::format("{} on {} ({}, batch {})", model_label(s), s.device, s.dtype, s.batch_size);
}
bool same_key(const CaseSpec& x, const CaseSpec& y) {
  return x.workload == y.workload && x.device == y.device && x.dtype == y.dtype && x.batch_size == y.batch_size &&
         x.width == y.width && x.checkpoint == y.checkpoint && x.graphs == y.graphs && x.impl == y.impl &&
         x.compile == y.compile;
}
}  // namespace

const RunToRun* shared_spread(const CaseResult& a, const RunContext& ca, const CaseResult& b, const RunContext& cb) {
  const auto* later = cb.timestamp_utc >= ca.timestamp_utc ? &b : &a;
  const auto* earlier = later == &b ? &a : &b;
  if (later->run_to_run && later->run_to_run->sd_log > 0) return &*later->run_to_run;
  if (earlier->run_to_run && earlier->run_to_run->sd_log > 0) return &*earlier->run_to_run;
  return nullptr;
}

RunComparison compare_runs(const RunResult& a, const RunResult& b, const CompareOptions& o) {
  RunComparison out;
  out.distorted_a = a.context.distorted_by;
  out.distorted_b = b.context.distorted_by;
  for (const auto& ca : a.cases) {
    auto it = std::find_if(b.cases.begin(), b.cases.end(), [&](const CaseResult& cb) { return same_key(ca.spec, cb.spec); });
    if (it == b.cases.end()) {
      out.only_in_a.push_back(case_label(ca.spec));
      continue;
    }
    if (!ca.ok() || !it->ok()) {
      out.only_in_a.push_back(case_label(ca.spec) + (!ca.ok() ? " (failed in A)" : " (failed in B)"));
      continue;
    }
    CaseComparison cc{ca.spec.workload, ca.spec.device, ca.spec.dtype, model_label(ca.spec), ca.spec.batch_size,
                      compare_samples(ca.samples, it->samples, o)};
    if (const auto* spread = shared_spread(ca, a.context, *it, b.context))
      judge_between_runs(cc.result, *spread, *spread, o);
    out.cases.push_back(std::move(cc));
  }
  for (const auto& cb : b.cases) {
    const bool in_a = std::any_of(a.cases.begin(), a.cases.end(), [&](const CaseResult& ca) { return same_key(ca.spec, cb.spec); });
    if (!in_a) out.only_in_b.push_back(case_label(cb.spec));
  }
  return out;
}

std::vector<const CaseComparison*> regressions_beyond(const RunComparison& c, double threshold) {
  std::vector<const CaseComparison*> out;
  for (const auto& cc : c.cases)
    if (cc.result.verdict == Verdict::Slower && cc.result.ratio - 1.0 > threshold) out.push_back(&cc);
  return out;
}

double parse_fraction(const std::string& text, const char* option_name) {
  std::string s;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch))) s += ch;
  bool percent = false;
  if (!s.empty() && s.back() == '%') {
    percent = true;
    s.pop_back();
  }
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v) || v < 0)
    throw UsageError(fmt::format("{} expects a percentage such as 5% or a fraction such as 0.05 (got '{}')", option_name, text));
  return percent ? v / 100.0 : v;
}

// ---- change detection ---------------------------------------------------------------------------

namespace {
double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double mean_of(const std::vector<double>& x, std::size_t lo, std::size_t hi) {
  double s = 0;
  for (std::size_t i = lo; i < hi; ++i) s += x[i];
  return s / static_cast<double>(hi - lo);
}

// Binary segmentation: the split of [lo, hi) with the largest step of the mean log-median, in units
// of its standard error under the noise `sigma`.
void segment(const std::vector<double>& x, double sigma, std::size_t lo, std::size_t hi, const ChangeOptions& o,
             std::vector<ChangePoint>& out) {
  if (hi - lo < 2) return;
  ChangePoint best;
  bool found = false;
  for (std::size_t k = lo + 1; k < hi; ++k) {
    const double ml = mean_of(x, lo, k), mr = mean_of(x, k, hi);
    const double se = sigma * std::sqrt(1.0 / static_cast<double>(k - lo) + 1.0 / static_cast<double>(hi - k));
    const double score = std::fabs(mr - ml) / se;
    if (!found || score > best.score) {
      best = ChangePoint{k, std::exp(ml), std::exp(mr), std::exp(mr - ml), score};
      found = true;
    }
  }
  if (!found || best.score < o.threshold || std::fabs(best.ratio - 1.0) < o.min_effect) return;
  segment(x, sigma, lo, best.index, o, out);
  out.push_back(best);
  segment(x, sigma, best.index, hi, o, out);
}
}  // namespace

std::vector<ChangePoint> detect_changes(const std::vector<SeriesPoint>& series, const ChangeOptions& o) {
  std::vector<double> x;
  double within = 0;
  for (const auto& p : series) {
    x.push_back(std::log(p.median > 0 ? p.median : 1e-12));
    if (p.ci_low > 0 && p.ci_high > p.ci_low) {
      const double s = (std::log(p.ci_high) - std::log(p.ci_low)) / (2 * 1.96);
      within += s * s;
    }
  }
  if (x.size() < 2) return {};
  within /= static_cast<double>(x.size());
  // Between-run noise, robust to the steps themselves: the median absolute difference of successive
  // log-medians (most successive pairs lie on one level), scaled to a standard deviation.
  std::vector<double> diffs;
  for (std::size_t i = 1; i < x.size(); ++i) diffs.push_back(std::fabs(x[i] - x[i - 1]));
  const double between = 1.4826 * median_of(diffs) / std::sqrt(2.0);
  const double sigma = std::sqrt(std::max({between * between, within, 1e-8}));
  std::vector<ChangePoint> out;
  segment(x, sigma, 0, x.size(), o, out);
  std::sort(out.begin(), out.end(), [](const ChangePoint& l, const ChangePoint& r) { return l.index < r.index; });
  return out;
}

}  // namespace accelbench
