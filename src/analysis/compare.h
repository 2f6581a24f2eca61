#pragma once
// Statistical comparison of two runs (case by case) and change detection over a case's history.
// No torch here. The rules are written out in docs/results-store.md.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/results.h"

namespace accelbench {

// Two-sided Mann-Whitney U test, normal approximation with tie correction and continuity correction.
struct MannWhitney {
  double u = 0;   // U of the first sample
  double z = 0;
  double p = 1;   // two-sided
};
MannWhitney mann_whitney_u(std::span<const double> a, std::span<const double> b);

enum class Verdict { Same, Faster, Slower, Uncertain };
const char* verdict_name(Verdict v);  // "SAME", "FASTER", "SLOWER", "UNCERTAIN"

struct CompareOptions {
  double alpha = 0.01;               // significance level of the test; the verdict reads the (1 - alpha) interval
  double shown_level = 0.95;         // the level of the interval printed (shown_low, shown_high): run's and history's
  double min_effect = 0.02;          // a change smaller than this (relative) is SAME even when significant
  double equivalence_margin = 0.05;  // not significant: SAME only if the CI lies within 1 +- this
  std::size_t min_samples = 5;       // fewer on either side: UNCERTAIN
};

// Candidate B against baseline A, step times in seconds (lower is better).
// ratio = median(B) / median(A): 1.10 means B takes 10% longer per step (SLOWER).
struct SampleComparison {
  std::size_t n_a = 0, n_b = 0;
  double median_a = 0, median_b = 0;
  double ratio = 0, ci_low = 0, ci_high = 0;  // ci_*: the (1 - alpha) interval the verdict reads
  double shown_low = 0, shown_high = 0;       // the same interval at CompareOptions::shown_level, as printed
  double p = 1;
  Verdict verdict = Verdict::Uncertain;
  std::string reason;  // why, in a few words
  bool between_runs = false;  // judged against the run-to-run spread (judge_between_runs), not the samples
  bool too_wide = false;      // that spread's interval spans more than kTooWideFactor: not shown (reason says why)
};
SampleComparison compare_samples(std::span<const double> a, std::span<const double> b, const CompareOptions& o = {});

// Two runs differ by what changes between runs as well as by their samples: with both cases'
// run-to-run spreads (RunToRun, from `run`), the change is judged against them. The interval of
// B/A is ratio * exp(+-t_{1-alpha/2, dof} sqrt(V_a + V_b)) (V: a run's log-median variance,
// Welch-Satterthwaite dof; the same object passed as both, its own dof); where it holds 1, "within
// run-to-run noise": SAME when it lies within 1 +- the equivalence margin, else UNCERTAIN; beyond
// it, SLOWER or FASTER (SAME under the minimum effect). p from the same t; shown_low/high the same
// interval at o.shown_level. An interval wider than
// kTooWideFactor is UNCERTAIN and not shown: the reason says why (RunToRun::too_wide where set).
// Leaves `r` as it is when either spread is unknown (older runs).
void judge_between_runs(SampleComparison& r, const RunToRun& a, const RunToRun& b, const CompareOptions& o);

// The one spread compare judges a case of two runs against: the later run's (its history held the
// earlier run, and marked runs were left out of it), else the other's; nullptr where neither has one.
// The same for A B as for B A.
const RunToRun* shared_spread(const CaseResult& a, const RunContext& ca, const CaseResult& b, const RunContext& cb);

struct CaseComparison {
  std::string workload, device, dtype;
  std::string model;  // model_label(): "mlp", "mlp[python]", "mlp[python,compile=reduce-overhead]"
  std::int64_t batch_size = 0;
  SampleComparison result;
};

struct RunComparison {
  std::vector<CaseComparison> cases;     // cases present (and ok) in both
  std::vector<std::string> only_in_a;    // "workload on device (dtype, batch N)" or "... failed in B"
  std::vector<std::string> only_in_b;
  std::vector<std::string> distorted_a, distorted_b;  // the runs' marks (RunContext::distorted_by)
};
RunComparison compare_runs(const RunResult& a, const RunResult& b, const CompareOptions& o = {});

// Cases that got slower by more than `threshold` (0.05 = 5%): verdict SLOWER and ratio - 1 > threshold.
std::vector<const CaseComparison*> regressions_beyond(const RunComparison& c, double threshold);

// Parses "5%", "5 %", "0.05" into 0.05. Throws UsageError otherwise.
double parse_fraction(const std::string& text, const char* option_name);

// ---- change detection over history --------------------------------------------------------------
struct SeriesPoint {
  double median = 0, ci_low = 0, ci_high = 0;  // seconds; the CI may be 0 when unknown
};

struct ChangePoint {
  std::size_t index = 0;          // first point of the new level
  double before = 0, after = 0;   // level (median of the points' medians) on each side
  double ratio = 0;               // after / before: > 1 slower
  double score = 0;               // step size in units of its standard error
};

struct ChangeOptions {
  double min_effect = 0.02;  // smaller steps are not reported
  double threshold = 4.0;    // step / standard error needed (binary segmentation over every split)
};

// Binary segmentation on log(median): the split with the largest step between the mean levels of
// its two sides, in units of the step's standard error, is a change when it exceeds both the
// threshold and min_effect; then each side is searched again. The noise is the larger of the runs'
// own CIs (within-run) and the scatter between successive runs (robust: median absolute successive
// difference), so a step must stand out from both. Two points alone never make a change.
std::vector<ChangePoint> detect_changes(const std::vector<SeriesPoint>& series, const ChangeOptions& o = {});

}  // namespace accelbench
