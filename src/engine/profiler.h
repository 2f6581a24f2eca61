#pragma once
// Profiles a few training steps with the kineto profiler (libtorch-facts section 5) and hands back
// the events as plain structs (analysis/op_profile.h), where they are aggregated.
#include <cstdint>
#include <string>

#include "analysis/op_profile.h"

namespace accelbench {

class Device;
class Workload;

struct ProfileOptions {
  std::int64_t batch_size = 64;
  int steps = 5;                    // profiled training steps
  int warmup_steps = 3;             // unprofiled steps before (first-call costs, allocator caches)
  int threads = 0;                  // CPU intra-op threads; 0: torch's default
  std::uint64_t seed = 0;
  bool use_real_data = true;
  std::string data_dir;
  std::string variant;
  std::int64_t seq_len = 128;
  std::string dtype = "float32";
  std::string trace_path;           // Chrome trace, when not empty
};

// Builds the workload on the device (as measure_case does), warms up, profiles `steps` steps (CPU
// activity, plus the device's own where kineto has one: CUDA, XPU), synchronizes the device, stops
// the profiler. MPS CPU-fallback warnings are counted per op during the profiled steps.
ProfileCapture profile_training(const std::string& workload_name, const Workload& workload, Device& device,
                                const ProfileOptions& options);

}  // namespace accelbench
