#pragma once
// Time promises: before measuring, which cases cannot fit their share of the budget, judged from the
// same case's step time in the history (issue #15). No torch here.
#include <cstddef>
#include <string>
#include <vector>

#include "core/results.h"
#include "store/history_store.h"

namespace accelbench {

// One line per case whose last stored median step time (same workload, device, precision and batch)
// times `steps_needed` (warm-up + minimum samples, over all rounds) exceeds `share_s`, saying what
// will happen and how to give it the time. Cases with no history: nothing.
std::vector<std::string> cases_that_cannot_fit(const std::vector<CaseSpec>& cases, const std::vector<CaseHistoryPoint>& history,
                                               double share_s, std::size_t steps_needed);

}  // namespace accelbench
