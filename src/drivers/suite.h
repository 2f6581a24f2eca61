#pragma once
// The suite driver behind `accelbench run`: the plan's cases in order, the time budget shared among
// them (BudgetScheduler), each case measured through the CaseMeasurer seam (in this process or in
// a child), every event to the printer (progress, each case as it ends, the document after each
// case so an interrupted run keeps what it measured), then the speed-ups over the CPU and, beside
// each, the numerical parity of the device's training against the CPU's. No torch here.
#include <cstdint>

#include "core/measurement.h"
#include "core/plan.h"
#include "core/results.h"
#include "drivers/rounds.h"

namespace accelbench {

class Printer;

struct SuiteRequest {
  Plan plan;
  MeasureOptions options;         // settings.stopping.max_time_s is set per case from the budget
  double budget_s = 0;            // 0: none
  double max_per_case_s = 180;
  double cooldown_s = 0;          // a pause between cases (not counted in the budget)
  int parity_steps = 0;           // 0: no parity pass
  int cpu_threads = 0;            // the CPU's threads in the parity runs (0: torch's default)
  RoundsPolicy rounds;            // rounds per case (1: one measurement through the measurer)
  bool interleave_rounds = true;  // round 1 of every case, then round 2...: drivers/interleaved_rounds.h
};

// Fills run.cases, run.speedups and run.wall_s; returns the number of failed cases. `measurer`
// measures one round of a case (or the case, with one round).
int run_suite(const SuiteRequest& request, RunResult& run, CaseMeasurer& measurer, ParityTrainer& parity, Printer& printer);

}  // namespace accelbench
