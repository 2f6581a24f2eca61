// Marketing names of accelerator devices. The only file with CUDA-specific code for this, compiled
// in when libtorch has CUDA (ACCELBENCH_WITH_CUDA).
#include <fmt/format.h>

#include "device/device.h"

#if defined(ACCELBENCH_WITH_CUDA)
#include <ATen/cuda/CUDAContext.h>
#endif

namespace accelbench {

std::string accelerator_device_name(c10::DeviceType type, int index) {
#if defined(ACCELBENCH_WITH_CUDA)
  if (type == c10::kCUDA) {
    try {
      const auto* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(index));
      return fmt::format("{} (sm_{}{}, {} SMs)", p->name, p->major, p->minor, p->multiProcessorCount);
    } catch (...) {
    }
  }
#endif
  if (type == c10::kMPS) return "Apple GPU (Metal Performance Shaders)";
  return fmt::format("{} device {}", c10::DeviceTypeName(type, false), index);
}

}  // namespace accelbench
