#pragma once
// Run to run: an interval that covers the next run must hold what changes between
// runs, not only between the rounds of one run. Rounds interleaved over one run see the host over a
// minute or two; a shared host also changes over minutes and hours (neighbours, clocks), and that
// shows only across runs. The history holds earlier runs of the same case, so `run` uses them: with
// at least kMinEarlierRuns comparable runs (same host, workload, device, precision, batch, threads
// and torch version; the newest kMaxEarlierRuns), the spread of the log medians, theirs and this
// run's, gives the next run's prediction interval, and the wider of it and the rounds' interval is
// reported. No torch here.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/results.h"
#include "core/case_history.h"

namespace accelbench {

inline constexpr std::size_t kMinEarlierRuns = 2;   // t with 2 degrees of freedom at least (4.30)
inline constexpr std::size_t kMaxEarlierRuns = 10;

// A prior for the spread, for a case with fewer than kOwnHistoryRuns earlier runs. From an empty
// history three rounds that agree by chance gave the launch-bound mlp's first runs on the H200 an
// interval (-8/+9%) that missed later runs 1.7x away (docs/results.md). What
// a run's median does from run to run was measured: the sd of the log medians of 5-6 back-to-back
// runs, in 12 series of host-bound cases (the H200's mlp, cnn and resnet18, device busy 20-44% of
// the step, three sets of runs; the 2-core CPU's mlp, cnn and transformer) was 0.06-0.27, their root mean
// square 0.13; the device-bound transformer's (busy 98-99%) 0.0018-0.0023 in three series. Between
// the two the prior follows the host's share of the step: all of it at a device busy 50% of the
// step or less, none at 90% or more (dcgan, 60-75% busy, varied 0.035-0.07). The prior is pooled
// with the case's own runs as kPriorRuns runs' worth (a scaled inverse-chi-square prior: variance
// (nu0 s0^2 + K s^2) / (nu0 + K), t with nu0 + K degrees of freedom); from kOwnHistoryRuns earlier
// runs on, the case's own spread alone is used. Replayed on the recorded series from an empty
// history, every case's pairwise coverage was 90-100% (the mlp of one set 90%).
inline constexpr double kHostBoundRunSdLog = 0.13;
inline constexpr double kDeviceBoundRunSdLog = 0.003;
inline constexpr double kPriorRuns = 3;
inline constexpr std::size_t kOwnHistoryRuns = 4;

struct RunToRunPrior {
  double sd_log = 0;
  std::string basis;  // what it was chosen from, in words
};

// The prior for case `c` (see kHostBoundRunSdLog): the CPU, or an accelerator case without a
// device-busy figure, is host-bound.
RunToRunPrior run_to_run_prior(const CaseResult& c);

// The spread of `median` among `earlier` medians (seconds; non-positive ones ignored):
// sd of the logs with len - 1 degrees of freedom, and t_{0.975, dof} * sd * sqrt(2), the half-width
// in log space where the next run's median falls around this one (the difference of two runs has
// twice a run's variance). nullopt with fewer than kMinEarlierRuns earlier medians.
std::optional<RunToRun> run_to_run_spread(double median, const std::vector<double>& earlier);

// Where the next run's median falls around `median`: from kOwnHistoryRuns earlier medians on,
// run_to_run_spread; before that the prior pooled with the earlier runs there are (none at all on a
// first run). nullopt only for a median that is not positive and finite.
std::optional<RunToRun> next_run_spread(double median, const std::vector<double>& earlier, const RunToRunPrior& prior);

// The medians of the runs in `history` comparable with `c` (see the file's comment), newest first,
// at most kMaxEarlierRuns; `host` and `torch_version` are this run's.
std::vector<double> earlier_medians(const CaseResult& c, const std::vector<CaseHistoryPoint>& history,
                                    const std::string& host, const std::string& torch_version);

// Each ok case gets its next-run spread from `history` and the prior (next_run_spread); where it is
// wider than the rounds' interval it replaces it. The case's noisy flag and relative_ci_half_width
// follow the case's own runs, not the prior: they say how precise the measurement itself was, which
// more time can improve and the prior cannot. Each speed-up
// whose cases were widened gets sqrt(h_a^2 + h_b^2) in log space where that is wider. Returns the
// number of cases widened.
std::size_t apply_run_to_run(RunResult& run, const std::vector<CaseHistoryPoint>& history);

// One line for people: which cases' intervals the earlier runs or the prior widened, and by how much.
std::string run_to_run_note(const RunResult& run);

}  // namespace accelbench
