// Device::hold_queue for CUDA: at::cuda::sleep enqueues a kernel that spins for a number of clock
// cycles on the current stream. The cycles per second are measured once per process with the
// device's events (a clock rate read from the properties would miss boost and throttling).
// Elsewhere (no CUDA in this libtorch, or another device type): no hold.
#include <c10/core/Device.h>

#include "device/device.h"

#if ACCELBENCH_WITH_CUDA
#include <ATen/DeviceAccelerator.h>
#include <ATen/cuda/Sleep.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>

#include <algorithm>
#include <cstdint>
#endif

namespace accelbench {

#if ACCELBENCH_WITH_CUDA
namespace {
// Spin cycles per second on `device`: a spin of 2^22 cycles (about 2 ms on an H200) timed by the
// device's events, the second of two tries (the first pays the kernel's load).
double spin_cycles_per_second(c10::Device device) {
  constexpr std::int64_t kCycles = std::int64_t{1} << 22;
  double best = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    c10::Event begin(device.type(), c10::EventFlag::BACKEND_DEFAULT), end(device.type(), c10::EventFlag::BACKEND_DEFAULT);
    const auto stream = at::accelerator::getCurrentStream(device.index());
    begin.record(stream);
    at::cuda::sleep(kCycles);
    end.record(stream);
    end.synchronize();
    const double seconds = begin.elapsedTime(end) / 1000.0;
    if (seconds > 0) best = static_cast<double>(kCycles) / seconds;
  }
  return best;
}
}  // namespace

bool hold_device_queue(c10::Device device, double seconds) {
  if (device.type() != c10::kCUDA || seconds <= 0) return false;
  const c10::DeviceGuard guard(device);
  static const double cycles_per_s = spin_cycles_per_second(device);
  if (cycles_per_s <= 0) return false;
  at::cuda::sleep(static_cast<std::int64_t>(std::min(seconds, 10.0) * cycles_per_s));
  return true;
}
#else
bool hold_device_queue(c10::Device /*device*/, double /*seconds*/) { return false; }
#endif

}  // namespace accelbench
