#pragma once
// The sweeps over one setting of a fixed case: CPU intra-op threads (the speed-up over one thread
// and the parallel efficiency) or data-loader workers (the data wait per step, beside the batches
// staged on the device: the ceiling). The best: the fewest within 5% of the best throughput.
// No torch here.
#include <string>
#include <vector>

#include "drivers/sweep_runner.h"

namespace accelbench {

struct SettingSweepRequest {
  std::string kind = "threads";     // "threads" (spec.threads) | "workers" (options.inputs.workers)
  CaseSpec base;                    // model, device, precision, batch, threads, width, checkpoint
  MeasureOptions options;
  std::vector<int> settings;        // thread_points(); or kStagedWorkers then worker_points()
};

// Exit status 1 when a point failed.
SweepOutcome run_setting_sweep(const SettingSweepRequest& request, const SweepEnvironment& env);

// The block from the run as it stands (the points' case i = run.cases[i]).
SettingSweep setting_sweep_block(const SettingSweepRequest& request, const RunResult& run);

}  // namespace accelbench
