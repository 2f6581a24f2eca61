#pragma once
// Run to run (issue #11): an interval that covers the next run must hold what changes between
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
#include "store/history_store.h"

namespace accelbench {

inline constexpr std::size_t kMinEarlierRuns = 2;   // t with 2 degrees of freedom at least (4.30)
inline constexpr std::size_t kMaxEarlierRuns = 10;

// The spread of `median` among `earlier` medians (seconds; non-positive ones ignored):
// sd of the logs with len - 1 degrees of freedom, and t_{0.975, dof} * sd * sqrt(2), the half-width
// in log space where the next run's median falls around this one (the difference of two runs has
// twice a run's variance). nullopt with fewer than kMinEarlierRuns earlier medians.
std::optional<RunToRun> run_to_run_spread(double median, const std::vector<double>& earlier);

// The medians of the runs in `history` comparable with `c` (see the file's comment), newest first,
// at most kMaxEarlierRuns; `host` and `torch_version` are this run's.
std::vector<double> earlier_medians(const CaseResult& c, const std::vector<CaseHistoryPoint>& history,
                                    const std::string& host, const std::string& torch_version);

// Each ok case gets its run-to-run spread from `history` (when there is enough of it); where it is
// wider than the rounds' interval it replaces it, and the case's noisy flag follows. Each speed-up
// whose cases were widened gets sqrt(h_a^2 + h_b^2) in log space where that is wider. Returns the
// number of cases widened.
std::size_t apply_run_to_run(RunResult& run, const std::vector<CaseHistoryPoint>& history);

// One line for people: which cases' intervals the earlier runs widened, and by how much.
std::string run_to_run_note(const RunResult& run);

}  // namespace accelbench
