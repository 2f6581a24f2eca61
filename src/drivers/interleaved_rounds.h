#pragma once
// A suite's cases measured in interleaved rounds: round 1 of every case, then round 2 of every case
// (in the reverse order), and so on, rather than each case's rounds back to back. A machine's state
// changes over tens of seconds (another tenant, the host's and the GPU's clocks, the thermal state):
// rounds taken back to back share that state and agree with each other while the next run does
// not; rounds spread over the whole run sample it, so that their spread, and the interval built on
// it, show what the next run will see. Reversing the order every other pass keeps a case from
// always following the same neighbour (a hot GPU after the transformer). Cases whose rounds
// disagree, or that have fewer than four that agree, get more rounds in later passes
// (wants_another_round in drivers/rounds.h), up to RoundsPolicy::max_rounds and within the budget.
// No torch here.
#include <cstddef>
#include <functional>
#include <vector>

#include "core/measurement.h"
#include "drivers/rounds.h"

namespace accelbench {

struct InterleavedRoundsPlan {
  std::vector<CaseSpec> cases;
  MeasureOptions options;        // settings.stopping.max_time_s is set for each round
  RoundsPolicy policy;           // rounds planned per case, and the most when they disagree
  double budget_s = 0;           // the whole run's (0: none)
  double max_per_case_s = 180;   // a case's rounds together
  double cooldown_s = 0;         // a pause between two rounds (not counted in the budget)
};

struct InterleavedRoundsEvents {
  // A round of case `index` starts: its number (1-based), the rounds planned now, its time limit.
  std::function<void(std::size_t index, int round, int planned, double allowance_s)> round_started;
  // Progress inside that round, as the measurer reports it, and the run's time left estimated from
  // what was measured: every round still to come at its case's mean round time so far (a case not
  // measured yet: the time it is allowed), the current round's estimate less its time so far; never
  // more than the budget's rest.
  std::function<void(std::size_t index, const ProgressEvent&, double time_left_s)> progress;
  // The case stops short of its planned rounds: another round would need at least `least_round_s`
  // (start-up, build, warm-up and one sample, as its last round took) and has `allowance_s` left,
  // short because of the case's own limit (max_per_case_s) when `case_limit`, else the budget's.
  std::function<void(std::size_t index, int rounds_done, int planned, double least_round_s, double allowance_s, bool case_limit)>
      rounds_cut;
  // The case is final (all its rounds merged, or the failed round), in the order cases finish.
  std::function<void(std::size_t index, const CaseResult& merged)> case_finished;
  // After every round: each case merged from the rounds it has so far (the cases with none left
  // out), so that an interrupted run keeps what it measured.
  std::function<void(const std::vector<CaseResult>& so_far)> round_finished;
};

// The cases' results in plan order. A failed round fails its case (no more rounds for it); a case
// whose time is spent keeps the rounds it has.
std::vector<CaseResult> measure_interleaved_rounds(const InterleavedRoundsPlan& plan, CaseMeasurer& each_round,
                                                   const InterleavedRoundsEvents& events);

}  // namespace accelbench
