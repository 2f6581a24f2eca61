#pragma once
// The Runner: measures one case on libtorch. Read as named steps (NVBench's measure_cold):
//   build -> warm up -> choose steps per sample -> sample -> time full epochs -> summarize.
// Builds the model, optimizer and staged batches on the device, warms up until the step time is
// stable, groups short steps so a sample lasts long enough, takes timed training steps (each
// sample closed by a device synchronization) until the median's CI meets its target or the time
// runs out, then derives throughput, epoch time, FLOP/s and the telemetry summary.
#include "core/measurement.h"
#include "core/options.h"
#include "core/results.h"

namespace accelbench {

class Device;
class Workload;
struct WorkloadOptions;

// The options a case's workload is built with: the spec's batch, precision, width and
// checkpointing on this device, and the measurement's inputs.
WorkloadOptions workload_options_for(const CaseSpec& spec, Device& device, const WorkloadInputs& inputs);

// Never throws for what goes wrong inside the case (out of memory, NaN, a backend error): the
// result then has status failed, its FailureKind and a one-line error. UsageError passes through.
CaseResult measure_case(const CaseSpec& spec, const Workload& workload, Device& device, const MeasureOptions& options,
                        const ProgressFn& progress = {});

// measure_case behind the CaseMeasurer seam: opens the spec's workload and device for each case.
class InProcessMeasurer : public CaseMeasurer {
 public:
  CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) override;
};

}  // namespace accelbench
