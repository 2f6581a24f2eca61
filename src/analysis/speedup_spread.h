#pragma once
// A speed-up's next-run range from its own spread: the speed-up is a ratio of two cases' medians,
// and where the two move together (the CPU and the accelerator slow in the same run, as on a shared
// host) the ratio moves less than either; where they move apart, as much as both. Its own figures
// know which (analysis/run_to_run applies this after the cases' ranges):
//
// - its history: the log ratios of this host's stored runs that hold both its cases (the newest
//   kMaxEarlierRuns that count by run_to_run.h's rules: distortion, outliers) and this run's,
//   variance with n - 1 degrees of freedom;
// - its paired rounds: run interleaves the rounds (round 1 of every case, then round 2 of every
//   case, ...), so the two cases' round i ran close in time: var(log(a_i / b_i)) / n times the
//   median's variance factor, n - 1 degrees of freedom;
// - each moderated over the run's speed-ups of its kind (its accelerator case's kind) as a case's
//   are (fit_variance_prior), then joined by the same F test (join_history_and_rounds);
// - its two cases' variances added (Welch-Satterthwaite degrees of freedom) where it has neither,
//   and as a prior worth kPriorRuns runs where they hold fewer degrees of freedom than that.
//
// The range is ratio * exp(+-t_{0.975, nu} sqrt(2 V)), the level's ratio * exp(+-t sqrt(V)). No torch.
#include <string>
#include <vector>

#include "analysis/run_to_run.h"
#include "core/case_history.h"
#include "core/results.h"

namespace accelbench {

// The two cases a speed-up is the ratio of: its baseline (the CPU's case, or the eager case on its
// device for a graph speed-up) and its device's case; nullptr where either is not in `run` or not ok.
struct SpeedupCases {
  const CaseResult* baseline = nullptr;
  const CaseResult* device = nullptr;
};
SpeedupCases speedup_cases(const RunResult& run, const Speedup& s, bool graph);

// What a speed-up's spread is moderated over: "speed-up over " + its device case's kind.
std::string speedup_kind(const CaseResult& device);
std::string speedup_key(const Speedup& s);

// By speedup_key: the history of each speed-up's log ratio (see the file's comment).
CaseVariances ratio_history_variances(const RunResult& run, const std::vector<CaseHistoryPoint>& history);
// By speedup_key: each speed-up's rounds paired by index (see the file's comment; two pairs or more).
CaseVariances paired_rounds_variances(const RunResult& run);

// A speed-up's spread from its moderated history and paired rounds (source "ratio history",
// "ratio history and paired rounds", "paired rounds"), or, where both are empty, from its cases'
// (`baseline`, `device`: their RunToRun) added (source "cases"); under kPriorRuns degrees of freedom
// the cases' sum joins as a prior worth kPriorRuns (prior_sd_log its sd).
RunToRun speedup_spread(const PooledVariance& history, const PooledVariance& paired, const RunToRun& baseline,
                        const RunToRun& device);

// Each speed-up and graph speed-up whose two cases have their RunToRun: its next-run range
// (ci_low/high), its level (level_low/high) and its RunToRun.
void apply_speedup_spreads(RunResult& run, const std::vector<CaseHistoryPoint>& history);

// "; speed-ups: mlp cuda:0 from its paired rounds (sd 1.2%, t with 5 degrees of freedom), ...": where
// each speed-up's range came from ("" without one).
std::string speedup_spread_note(const RunResult& run);

}  // namespace accelbench
