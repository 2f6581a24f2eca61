#pragma once
// Profiles a few training steps with the kineto profiler (libtorch-facts section 5) and hands back
// the events as plain structs (analysis/op_profile.h), where they are aggregated.
#include <cstdint>
#include <string>

#include "analysis/op_profile.h"
#include "core/options.h"
#include "core/results.h"

namespace accelbench {

struct ProfileOptions {
  WorkloadInputs inputs;            // data, variant, sequence length, seed (staged batches: no pipeline)
  int steps = 5;                    // profiled training steps
  int warmup_steps = 3;             // unprofiled steps before (first-call costs, allocator caches)
  std::string trace_path;           // Chrome trace, when not empty
};

// Builds the spec's workload on its device (as the case measurement does), warms up, profiles
// `steps` steps (CPU activity, plus the device's own where kineto has one: CUDA, XPU),
// synchronizes the device, stops the profiler. MPS CPU-fallback warnings are counted per op
// during the profiled steps. spec.threads > 0 sets the CPU intra-op threads.
ProfileCapture profile_training(const CaseSpec& spec, const ProfileOptions& options);

}  // namespace accelbench
