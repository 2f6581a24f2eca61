#pragma once
// The `history` command's report of each case over time: its median step time run by run with its
// interval, the changes found (a step detector, not a pairwise guess), and the medians by PyTorch
// version; and the `compare` command's report of two runs.
#include <string>
#include <vector>

#include "analysis/compare.h"
#include "core/case_history.h"
#include "store/history_store.h"

namespace accelbench {

// Fewer runs of a case than this: too few to call a change (the step detector needs two runs on each
// side of a step to tell it from the scatter between runs).
inline constexpr std::size_t kMinRunsForChange = 4;

// One row per case (its runs, the latest median and interval, the changes found), then the medians
// by torch version where a case ran under several; with `verbose`, every run of each case in a table
// of its own instead. The last line counts the changes and says what one is.
std::string render_case_history(const std::vector<CaseHistoryPoint>& points, const ChangeOptions& options, bool verbose = false);

// The runs table of `history`: a "timings" column ("DISTORTED: load") added to `table` (a header
// row, then one row per run of `runs`) where any run is marked (StoredRunInfo::distorted_by); and
// the line under the table saying what that means and what to do ("" where none is).
void add_distortion_column(std::vector<std::vector<std::string>>& table, const std::vector<StoredRunInfo>& runs);
std::string distorted_runs_note(const std::vector<StoredRunInfo>& runs);

// The interval column of a case's stored runs: named "this run 95%" or "next run 95%" when every run
// stored the same kind, else "95% interval" with each next run's range marked "(next run)"; each
// interval relative to its median ("-12/+15%", core/durations.h format_relative_interval).
std::string history_interval_name(const std::vector<const CaseHistoryPoint*>& points);
std::string history_interval_text(const CaseHistoryPoint& point, const std::vector<const CaseHistoryPoint*>& points);

// The `compare` command's report of run B against run A: a line per case (the medians, B/A with its
// interval at options.shown_level in the column's name, "1.004x [0.998, 1.010]" as core/durations.h
// format_ratio_ci writes it, the verdict); the cases in one run only; the counts in one line. With
// `verbose`, p and each verdict's reason as columns and how the verdict is reached.
std::string render_comparison(const RunComparison& cmp, const CompareOptions& options, bool verbose = false);

}  // namespace accelbench
