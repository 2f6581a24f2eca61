// The one file with backend-specific code for --memory-limit; the CUDA part is compiled in when
// libtorch has CUDA and the toolkit's headers are found (ACCELBENCH_WITH_CUDA).
#include "device/memory_limit.h"

#include <ATen/detail/MPSHooksInterface.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>

#include "core/errors.h"
#include "device/device.h"
#include "core/sweep_logic.h"

#if defined(ACCELBENCH_WITH_CUDA)
#include <ATen/Context.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace accelbench {

void apply_memory_limit(const Device& device, std::uint64_t bytes) {
  const auto& desc = device.description();
  check_memory_limit(desc, bytes);
  const double fraction = static_cast<double>(bytes) / static_cast<double>(*desc.total_memory_bytes);
  const auto type = device.torch_device().type();
  try {
    if (type == c10::kCUDA) {
#if defined(ACCELBENCH_WITH_CUDA)
      at::globalContext().lazyInitDevice(c10::kCUDA);  // the caching allocator exists after CUDA's lazy init
      c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, device.torch_device().index());
      return;
#else
      throw UsageError("--memory-limit on cuda needs accelbench built with the CUDA toolkit's headers (ACCELBENCH_WITH_CUDA)");
#endif
    }
    if (type == c10::kMPS) {
      at::detail::getMPSHooks().setMemoryFraction(fraction);
      return;
    }
  } catch (const c10::Error& e) {
    const std::string msg = e.what_without_backtrace();
    throw UsageError(fmt::format("--memory-limit could not be set on {}: {}", desc.id, msg.substr(0, msg.find('\n'))));
  }
  throw UsageError(fmt::format("--memory-limit is supported on cuda and mps devices, not on {}", desc.id));
}

}  // namespace accelbench
