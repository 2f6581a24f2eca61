#pragma once
// Run to run: where the next run's median falls. A case's interval must hold what changes between
// runs, and be no wider than this machine needs. What a run's median does from run to run is
// learned on this host, pooled over every case of the same kind (host-bound, partly or wholly
// device-bound, graph replay), so that one earlier run of anything informs a new case:
//
// - The history: for each case stored on this host (same torch, same threads), the log medians of
//   its newest kMaxEarlierRuns runs and this one give a variance with n - 1 degrees of freedom; the
//   kind's variance is their pooled variance, sum(nu_i s_i^2) / sum(nu_i). Pooling a case's own
//   variance with its kind's is the scaled inverse-chi-square (empirical Bayes) shrinkage
//   s^2 = (nu0 s0^2 + nu s^2) / (nu0 + nu), the other cases being the prior s0^2 with nu0 their
//   degrees of freedom, and the interval takes t(nu0 + nu).
// - This run's rounds (fresh processes, interleaved over the run): for each case of the kind with
//   R >= 2 rounds, sd(log round medians)^2 / R, with R - 1 degrees of freedom, pooled the same way.
//   They see what varies from process to process, not the host's slower phases between runs.
// - Both: when the history's variance is within what the rounds explain (F test at 95%), the two
//   are pooled (the rounds were the whole story); when it exceeds it, the history's alone is used
//   (the host changes between runs more than rounds can see). Without history, the rounds alone;
//   without either (one round, no history), a fallback constant (run_to_run_prior), named with
//   where it was measured.
//
// With V the variance of a run's log median and nu its degrees of freedom, the next run's median
// falls within median * exp(+-t_{0.975, nu} sqrt(2 V)) (the difference of two runs has twice a run's
// variance); this run's own precision is median * exp(+-t sqrt(V)). A speed-up adds its two cases'
// variances (Welch-Satterthwaite degrees of freedom). No torch here.
#include <cstddef>
#include <string>
#include <vector>

#include "core/case_history.h"
#include "core/results.h"

namespace accelbench {

inline constexpr std::size_t kMaxEarlierRuns = 10;  // a case's newest stored runs that count

// The fallback constants, used only with neither history nor two rounds: the sd of the log medians
// of 5-6 back-to-back runs, root mean square over 12 series of host-bound cases (the H200's mlp,
// cnn and resnet18, device busy 20-44% of the step; the 2-core CPU VM's mlp, cnn and transformer;
// three sets of runs, 2026) was 0.13; the device-bound transformer's (busy 98-99%) 0.0018-0.0023 in
// three series. Between the two the constant follows the host's share of the step. Weighed as
// kPriorRuns degrees of freedom.
inline constexpr double kHostBoundRunSdLog = 0.13;
inline constexpr double kDeviceBoundRunSdLog = 0.003;
inline constexpr double kPriorRuns = 3;
inline constexpr const char* kPriorMeasuredOn =
    "sd of log medians over 5-6 back-to-back runs in 12 series on an NVIDIA H200 host and a 2-core CPU VM";

struct RunToRunPrior {
  double sd_log = 0;
  std::string basis;  // what it was chosen from, in words
};

// The fallback constant for case `c` (see kHostBoundRunSdLog): the CPU, or an accelerator case
// without a device-busy figure, is host-bound.
RunToRunPrior run_to_run_prior(const CaseResult& c);

// The kind of case whose spreads are pooled: "host-bound" (the CPU, or a device busy under
// kLaunchBoundShare of the step or not measured), "partly device-bound" (busy under 90%),
// "device-bound"; "graph replay, " before it for a --graphs case. `busy` < 0: not measured.
std::string spread_kind(const std::string& device, bool graphs, double busy);
std::string spread_kind(const CaseResult& c);

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

// The variance of the median of n normal draws over sigma^2 / n (1 for n <= 2, 1.35 for 3, pi/2 in
// the limit): a run's median is the median of its rounds' levels, not their mean.
double median_variance_factor(std::size_t n);

// The kinds' pooled variances of this run's rounds (cases with two rounds or more).
std::vector<std::pair<std::string, PooledVariance>> rounds_variances(const RunResult& run);

// The kinds' pooled variances of the stored runs of every case on this run's host and torch (the
// newest kMaxEarlierRuns of each, this run's medians added to its cases).
std::vector<std::pair<std::string, PooledVariance>> history_variances(const RunResult& run,
                                                                      const std::vector<CaseHistoryPoint>& history);

// Each ok case's interval becomes the next run's range (RunToRun in c.run_to_run; the case's
// noisy flag and relative_ci_half_width stay the rounds' own), and each speed-up's too (its level
// interval kept in level_low/high). Returns the number of cases given a range.
std::size_t apply_run_to_run(RunResult& run, const std::vector<CaseHistoryPoint>& history);

// One line for people: where the intervals' spread came from, kind by kind.
std::string run_to_run_note(const RunResult& run);

}  // namespace accelbench
