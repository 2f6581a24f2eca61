#pragma once
// The `history` command's report of each case over time: its median step time run by run with the
// CI, the changes found (a step detector, not a pairwise guess), and the medians by PyTorch version.
#include <string>
#include <vector>

#include "analysis/compare.h"
#include "core/case_history.h"

namespace accelbench {

// Fewer runs of a case than this: too few to call a change (the step detector needs two runs on each
// side of a step to tell it from the scatter between runs).
inline constexpr std::size_t kMinRunsForChange = 4;

std::string render_case_history(const std::vector<CaseHistoryPoint>& points, const ChangeOptions& options);

}  // namespace accelbench
