#pragma once
// --memory-limit: caps an accelerator's memory allocator to emulate a smaller device.
#include <cstdint>

namespace accelbench {

class Device;

// Sets the allocator's memory fraction to bytes / the device's memory, for this process:
// CUDA through c10::cuda::CUDACachingAllocator::setMemoryFraction (compiled in with
// ACCELBENCH_WITH_CUDA), MPS through the MPS hooks' setMemoryFraction (a fraction of the
// recommended working set). Throws UsageError (one line) where it cannot: the CPU, a device
// whose memory is unknown, a limit above the device's memory, another backend, or a CUDA build
// without the CUDA headers.
void apply_memory_limit(const Device& device, std::uint64_t bytes);

}  // namespace accelbench
