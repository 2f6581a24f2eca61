#pragma once
// The crossover sweep: at each point (a batch size, or an mlp hidden width) the case on the
// accelerator and on the CPU, the speed-up (CPU median / accelerator median, 95% CI), and where the
// accelerator overtakes the CPU for good (find_crossover). No torch here.
#include <cstdint>
#include <string>
#include <vector>

#include "drivers/sweep_runner.h"

namespace accelbench {

struct CrossoverSweepRequest {
  CaseSpec base;                    // model, the accelerator, precision, batch, threads, width
  MeasureOptions options;
  std::string axis = "batch";       // "batch" | "width"
  std::vector<std::int64_t> points; // the batch sizes or widths, ascending
};

// Exit status 1 when a case failed.
SweepOutcome run_crossover_sweep(const CrossoverSweepRequest& request, const SweepEnvironment& env);

}  // namespace accelbench
