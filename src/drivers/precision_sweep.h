#pragma once
// The precision sweep: float32 first (the reference), then each precision on one device, each with
// its speed-up over float32 (95% CI) and its numerical parity with float32 after K identical steps
// (ParityTrainer); float32 is trained twice for the floor of the comparison, and the parity
// threshold is 2% or twice that floor. The best: the fastest precision surely faster than float32
// that keeps parity. No torch here.
#include <string>
#include <vector>

#include "drivers/sweep_runner.h"

namespace accelbench {

struct PrecisionSweepRequest {
  CaseSpec base;                        // model, device, batch, threads, width, checkpoint
  MeasureOptions options;
  std::vector<std::string> precisions;  // float32 first
  std::vector<std::string> refused;     // beside each: why the workload refuses it ("": it runs)
  int parity_steps = 10;                // 0: no parity runs
};

// Exit status 1 when a measured precision failed. Needs env.parity when parity_steps > 0.
SweepOutcome run_precision_sweep(const PrecisionSweepRequest& request, const SweepEnvironment& env);

}  // namespace accelbench
