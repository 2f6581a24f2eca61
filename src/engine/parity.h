#pragma once
// Numerical parity runs: K optimizer steps of a workload from its seeded initial weights on fixed
// batches, dropout off (the CPU and an accelerator draw different dropout masks), recording the
// loss at each step and the gradients' norm at the last. Two such traces (a precision against
// float32, an accelerator against the CPU) give a Parity (core/parity.h).
#include "core/measurement.h"
#include "core/parity.h"
#include "core/results.h"

namespace accelbench {

class Device;
class Workload;

// Never throws for what goes wrong inside the run (out of memory, a backend error): the trace then
// carries a one-line error. UsageError (bad input) passes through.
ParityTrace train_for_parity(const CaseSpec& spec, const Workload& workload, Device& device, const MeasureOptions& options,
                             int steps);

// train_for_parity behind the ParityTrainer seam: opens the spec's workload and device for each run.
class EngineParityTrainer : public ParityTrainer {
 public:
  ParityTrace train(const CaseSpec& spec, const MeasureOptions& options, int steps) override;
};

}  // namespace accelbench
