#pragma once
// Time promises: before measuring, which cases cannot fit their share of the budget, judged from the
// same case's step time in the history, or for a case the history lacks, from a probe of one step
// before measuring (engine::probe_step_s). No torch here.
#include <cstddef>
#include <string>
#include <vector>

#include "core/results.h"
#include "core/case_history.h"

namespace accelbench {

// A step time measured by a probe before measuring.
struct ProbedStep {
  CaseSpec spec;
  double step_s = 0;
};

// The cases with no stored step time (same workload, device, precision and batch) in `history`.
std::vector<CaseSpec> cases_without_history(const std::vector<CaseSpec>& cases, const std::vector<CaseHistoryPoint>& history);

// One line per case whose last stored median step time, else its probed step time, times
// `steps_needed` (warm-up + minimum samples, over all rounds) exceeds `share_s`, saying what will
// happen and how to give it the time. Cases with neither: nothing.
std::vector<std::string> cases_that_cannot_fit(const std::vector<CaseSpec>& cases, const std::vector<CaseHistoryPoint>& history,
                                               double share_s, std::size_t steps_needed,
                                               const std::vector<ProbedStep>& probed = {});

}  // namespace accelbench
