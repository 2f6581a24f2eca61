#pragma once
// Rounds: a case measured R times, each round a fresh start (by default a fresh child process:
// drivers/isolated_measurer.h; or a fresh model in this process), the case's time shared among them.
// The samples of one process are not independent of the process: launch latency on a shared host,
// CPU and GPU clocks, allocator and address-space layout differ from one run to the next, so the
// interval that must cover tomorrow's run comes from the rounds (core/rounds.h), not from the
// samples of one. When the rounds disagree beyond the CI target while each is precise, rounds are
// added (up to a maximum), not samples; rounds that agree go on to four where the case has time for
// them (a spread with 3 degrees of freedom of its own). No torch here.
#include <vector>

#include "core/measurement.h"

namespace accelbench {

struct RoundsPolicy {
  int rounds = 1;      // rounds planned (--rounds)
  int max_rounds = 1;  // at most this many (adaptive: rounds that disagree, or too few for a spread)
};

// Rounds a case needs for a spread of its own: 3 degrees of freedom. Two rounds that agree give a
// range only through t(1) = 12.7 or a fallback constant (analysis/run_to_run.h).
inline constexpr int kRoundsForOwnSpread = 4;

// After the `planned` rounds done: one more while they disagree beyond `ci_target` and each is
// precise (more samples would not help) and `left_s` holds about half a round; or, where they agree,
// while they are fewer than kRoundsForOwnSpread and `left_s` holds a whole round (`spent_s` over
// the rounds done). Never beyond policy.max_rounds.
bool wants_another_round(const std::vector<CaseResult>& done, int planned, const RoundsPolicy& policy, double ci_target,
                         double spent_s, double left_s);

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
