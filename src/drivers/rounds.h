#pragma once
// Rounds: a case measured R times, each round a fresh start (by default a fresh child process:
// drivers/isolated_measurer.h; or a fresh model in this process), the case's time shared among them.
// The samples of one process are not independent of the process: launch latency on a shared host,
// CPU and GPU clocks, allocator and address-space layout differ from one run to the next, so the
// interval that must cover tomorrow's run comes from the rounds (core/rounds.h), not from the
// samples of one. When the rounds disagree beyond the CI target while each is precise, rounds are
// added (up to a maximum), not samples. No torch here.
#include <vector>

#include "core/measurement.h"

namespace accelbench {

struct RoundsPolicy {
  int rounds = 1;      // rounds planned (--rounds)
  int max_rounds = 1;  // at most this many when the rounds disagree (adaptive)
};

// A CaseMeasurer that measures each case in rounds through another one.
class RoundsMeasurer : public CaseMeasurer {
 public:
  RoundsMeasurer(CaseMeasurer& each_round, RoundsPolicy policy) : each_round_(each_round), policy_(policy) {}
  CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) override;

 private:
  CaseMeasurer& each_round_;
  RoundsPolicy policy_;
};

// One case from its rounds: the samples concatenated in order (rounds[i].samples each), the figures
// derived again from them, the interval the rounds give (and whether they disagree beyond
// `ci_target`), the largest memory peak, the telemetry of the longest-sampled round. A failed round
// fails the case (its error; the rounds before it kept in `rounds`). One round: returned as it is,
// with its RoundResult.
CaseResult merge_rounds(std::vector<CaseResult> rounds, double ci_target);

}  // namespace accelbench
