#pragma once
// Run to run: where the next run's median falls. A case's interval must hold what changes between
// runs, and be no wider than this machine needs. What a run's median does from run to run is
// learned on this host, pooled over every case of the same kind (host-bound, partly or wholly
// device-bound, graph replay), so that one earlier run of anything informs a new case:
//
// - The history: for each case stored on this host (same torch, same threads), the log medians of
//   its newest kMaxEarlierRuns runs that count (comparable_distortion, not an outlier: below) and
//   this one give a variance with n - 1 degrees of freedom.
// - This run's rounds (fresh processes, interleaved over the run): for each case with R >= 2
//   rounds, sd(log round medians)^2 / R (times the median's variance factor), with R - 1 degrees
//   of freedom. They see what varies from process to process, not the host's slower phases.
// - Each source is moderated case by case (fit_variance_prior below): the estimates of every case
//   of the kind give a prior s0^2 worth d0 degrees of freedom, d0 large where the cases share one
//   spread and small where they differ beyond sampling error, and the case's variance is
//   (d0 s0^2 + d s^2) / (d0 + d) with t(d0 + d); a case without its own estimate takes the prior.
//   A quiet case is not widened to its noisy neighbour's spread, nor a noisy one narrowed to a
//   quiet one's, once it has measurements of its own.
// - Both, for the case: when the history's variance is within what the rounds explain (F test at
//   95%), the two are pooled (the rounds were the whole story); when it exceeds it, the history's
//   alone is used (the host changes between runs more than rounds can see). Without history, the
//   rounds alone; without either (one round, no history), a fallback constant (run_to_run_prior),
//   named with where it was measured; with fewer degrees of freedom than kPriorRuns (two rounds of
//   the one case of its kind), that constant joins the estimate as a prior worth kPriorRuns runs.
//
// With V the variance of a run's log median and nu its degrees of freedom, the next run's median
// falls within median * exp(+-t_{0.975, nu} sqrt(2 V)) (the difference of two runs has twice a run's
// variance); this run's own precision is median * exp(+-t sqrt(V)). A speed-up's range comes from its
// own spread (analysis/speedup_spread.h). No torch here.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/case_history.h"
#include "core/results.h"

namespace accelbench {

// A prior for the variances of a set of estimates, fitted from the estimates themselves, and one
// estimate moderated by it: the empirical Bayes method of limma (Smyth 2004, "Linear models and
// empirical Bayes methods for assessing differential expression", section 6.2). Each s_i^2 with
// d_i degrees of freedom is taken as sigma_i^2 chi^2_{d_i} / d_i, the sigma_i^2 drawn from a scaled
// inverse chi-square prior s0^2 worth d0 degrees of freedom: d0 is large where the estimates differ
// no more than their sampling error explains (the cases share one spread), small where they differ
// beyond it (each case has its own). The moderated variance (d0 s0^2 + d s^2) / (d0 + d) has
// d0 + d degrees of freedom. digamma and trigamma are in core/t_distribution.h.
struct VarianceEstimate {
  double variance = 0;  // s^2
  double dof = 0;       // its degrees of freedom
};

// The prior (s0^2, d0) fitted to the estimates with a variance and dof above 0 (the others are left
// out). d0 is capped at the estimates' total dof: a prior never counts for more than what it was
// fitted from. One estimate: itself. None: {0, 0}.
VarianceEstimate fit_variance_prior(const std::vector<VarianceEstimate>& estimates);

// An estimate moderated by a prior: (d0 s0^2 + d s^2) / (d0 + d) with d0 + d dof; the prior alone
// when the estimate has no dof, the estimate alone when the prior has none.
VarianceEstimate moderate_variance(const VarianceEstimate& own, const VarianceEstimate& prior);


inline constexpr std::size_t kMaxEarlierRuns = 10;  // a case's newest stored runs that count

// The fallback constants, used only with neither history nor two rounds: the sd of the log medians
// of 5-6 back-to-back runs, root mean square over 12 series of host-bound cases (the H200's mlp,
// cnn and resnet18, device busy 20-44% of the step; the 2-core CPU VM's mlp, cnn and transformer;
// three sets of runs) was 0.13; the device-bound transformer's (busy 98-99%) 0.0018-0.0023 in
// three series and 0.0022 over seven runs in a fourth (0.0021 their root mean square). Between
// the two the constant follows the host's share of the step. Weighed as kPriorRuns degrees of
// freedom; it also joins, with that weight, a measured estimate of fewer degrees of freedom.
inline constexpr double kHostBoundRunSdLog = 0.13;
inline constexpr double kDeviceBoundRunSdLog = 0.0021;
inline constexpr double kPriorRuns = 3;
inline constexpr const char* kPriorMeasuredOn =
    "sd of log medians over 5-6 back-to-back runs in 12 series on an NVIDIA H200 host and a 2-core CPU VM";

// Said of a range from this run's rounds alone: what rounds miss, measured over 24 case series of
// 5-10 back-to-back runs (an H200 host's and a 2-core VM's): the variance of the run medians
// was 1.9 times (geometric mean; 0.5-9.6) what the runs' rounds implied (docs/methodology.md).
inline constexpr const char* kRoundsSeeLess =
    "in 24 case series on an NVIDIA H200 host and a 2-core CPU VM, runs varied about 1.4 times as much as their "
    "rounds showed: a second run lets the history see this host's spread";

struct RunToRunPrior {
  double sd_log = 0;
  std::string basis;  // what it was chosen from, in words
};

// The fallback constant for case `c` (see kHostBoundRunSdLog): the CPU, or an accelerator case
// without a device-busy figure, is host-bound.
RunToRunPrior run_to_run_prior(const CaseResult& c);

// The kind of case whose spreads are pooled: "host-bound" (the CPU, or a device busy under
// kLaunchBoundShare of the step or not measured), "partly device-bound" (busy under 90%),
// "device-bound"; "graph replay, " before it for a --graphs case; ", few samples" after it for a
// case whose rounds took fewer than kFewSamples samples each: its median is one or two steps, which
// vary from step to step as the other cases' medians of many steps do not, so their spread is no
// prior for it. `busy` < 0: not measured.
inline constexpr std::size_t kFewSamples = 3;
std::string spread_kind(const std::string& device, bool graphs, double busy, bool few_samples = false);
std::string spread_kind(const CaseResult& c);
bool has_few_samples(std::size_t samples, std::size_t rounds);

// What a stored run must be to count in this run's history. Its distortion: every machine check
// that found it distorted (`stored`, ", "-separated) found this run distorted too, so a run measured
// under load is left out of the ranges of runs measured without it (and a machine that always shows
// one distortion keeps its history). Not an outlier: with 3 runs or more in a series, a stored run
// whose log median lies beyond log(kOutlierFactor) and beyond kOutlierSds robust sds (1.4826 x the
// median absolute deviation) of the series' median is left out; this run's own never is. The median
// and the median absolute deviation are what one wild run cannot move.
inline constexpr double kOutlierFactor = 3;
inline constexpr double kOutlierSds = 5;
bool comparable_distortion(const std::string& stored, const std::vector<std::string>& marks);
// The indices of `logs` kept (in order); `keep`: an index never left out (this run's), or none.
std::vector<std::size_t> inlier_indices(const std::vector<double>& logs, std::optional<std::size_t> keep);

// Why a range wider than kTooWideFactor is not shown, and what to do instead ("" where it is not).
// `moved`: max / min of the runs it rests on (1: none); `rounds_moved`: of this run's rounds.
std::string too_wide_words(const RunToRun& r, double high_over_low, double moved, double rounds_moved = 1);

// Variances with their degrees of freedom, pooled: sum(dof * variance) / sum(dof).
struct PooledVariance {
  double weighted = 0, dof = 0;
  std::size_t members = 0;  // how many estimates were added
  void add(double variance, double d);
  double variance() const { return dof > 0 ? weighted / dof : 0; }
};

// The spread of a run's log median from the history's and the rounds' pooled variances of one kind
// (see the file's comment), or the fallback when both are empty. Fills sd_log, dof, both
// half-widths, source and (fallback) prior_sd_log and prior_basis.
RunToRun combine_spread(const PooledVariance& history, const PooledVariance& rounds, const RunToRunPrior& fallback);
// Its first part: the F test between the two (source "history", "history and rounds", "rounds"),
// or source "" where both are empty.
RunToRun join_history_and_rounds(const PooledVariance& history, const PooledVariance& rounds);
// sd_log, dof and both half-widths from a run's log variance and its degrees of freedom.
void set_run_to_run_widths(RunToRun& r, double variance, double dof);

// The variance of the median of n normal draws over sigma^2 / n (1 for n <= 2, 1.35 for 3, pi/2 in
// the limit): a run's median is the median of its rounds' levels, not their mean.
double median_variance_factor(std::size_t n);

// One case's estimate of the variance of its run's log median, and the kind it is pooled with.
struct CaseVariance {
  std::string kind;
  VarianceEstimate estimate;
  std::vector<std::int64_t> distorted_runs, outlier_runs;  // stored runs left out (run_to_run.h's rules)
  double moved = 1;  // max / min of the medians (or ratios) it rests on
};
// By case: spread_case_key(spec).
using CaseVariances = std::map<std::string, CaseVariance>;
std::string spread_case_key(const CaseSpec& spec);

// This run's rounds, case by case (cases with two rounds or more): sd(log round medians)^2 / R times
// median_variance_factor(R), with R - 1 degrees of freedom.
CaseVariances rounds_variances(const RunResult& run);

// The stored runs of every case on this run's host and torch (the newest kMaxEarlierRuns of each
// that count: comparable_distortion, not an outlier; this run's medians added to its cases): the
// variance of their log medians, n - 1 dof.
CaseVariances history_variances(const RunResult& run, const std::vector<CaseHistoryPoint>& history);

// One stored case's runs that count for `run` (same host and torch, comparable_distortion): their
// medians by run id, newest first, one a run; the runs left out for their distortion; its kind.
struct StoredCase {
  std::vector<std::pair<std::int64_t, double>> medians;
  std::vector<std::int64_t> distorted_runs;
  std::string kind;
};
std::map<std::string, StoredCase> stored_cases(const RunResult& run, const std::vector<CaseHistoryPoint>& history);

// The variance of `logs` (this run's the last) without the outliers (inlier_indices), n - 1 dof;
// the left-out ones' run ids (`run_ids[i]` of logs[i], this run's unused) in `outliers`.
CaseVariance series_variance(const std::vector<double>& logs, const std::vector<std::int64_t>& run_ids, bool keep_last);

// The case's estimate moderated by the prior fitted to every estimate of its kind, its own among
// them (fit_variance_prior), or that prior alone for a case without one; the case's own
// alone where it is the kind's only estimate. `members`: the kind's cases with an estimate.
PooledVariance moderated_variance(const CaseVariances& all, const std::string& kind, const std::string& case_key);

// Each ok case's interval becomes the next run's range (RunToRun in c.run_to_run; the case's
// noisy flag and relative_ci_half_width stay the rounds' own), and each speed-up's too, from its own
// spread (analysis/speedup_spread.h; its level interval kept in level_low/high). Returns the number
// of cases given a range.
std::size_t apply_run_to_run(RunResult& run, const std::vector<CaseHistoryPoint>& history);

// One line for people: where the intervals' spread came from, kind by kind.
std::string run_to_run_note(const RunResult& run);

}  // namespace accelbench
