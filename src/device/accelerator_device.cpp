// Any libtorch accelerator through the device-generic API (at::accelerator, c10::DeviceAllocator):
// CUDA, XPU, MPS (torch >= 2.13) share this path. MPS before 2.13 has no DeviceAllocator, so its
// memory comes from the MPS hooks (libtorch-facts section 1 and 4).
#include <ATen/DeviceAccelerator.h>
#include <ATen/detail/MPSHooksInterface.h>
#include <c10/core/Event.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <torch/version.h>

#include "device/device.h"

namespace accelbench {

namespace {

constexpr bool kMpsHasDeviceAllocator = TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 13);

// Events with timing on the device's current stream (c10::Event, device-generic: CUDA, XPU).
// EventFlag::BACKEND_DEFAULT keeps timing on (PYTORCH_DEFAULT turns it off for CUDA).
class EventTimer final : public DeviceTimer {
 public:
  explicit EventTimer(c10::Device device)
      : device_(device), begin_(device.type(), c10::EventFlag::BACKEND_DEFAULT),
        end_(device.type(), c10::EventFlag::BACKEND_DEFAULT) {}
  void start() override { begin_.record(at::accelerator::getCurrentStream(device_.index())); }
  void stop() override { end_.record(at::accelerator::getCurrentStream(device_.index())); }
  double elapsed_s() override { return begin_.elapsedTime(end_) / 1000.0; }  // elapsedTime: milliseconds

 private:
  c10::Device device_;
  c10::Event begin_, end_;
};

class AcceleratorDevice final : public Device {
 public:
  AcceleratorDevice(c10::DeviceType type, int index)
      : Device(describe(type, index), c10::Device(type, static_cast<c10::DeviceIndex>(index))) {}

  void synchronize() override {
    if (torch_device_.type() == c10::kMPS) {
      at::detail::getMPSHooks().deviceSynchronize();
      return;
    }
    at::accelerator::synchronizeDevice(torch_device_.index());
  }

  void reset_peak_memory() override {
    synchronize();
    if (use_hooks()) {
      at::detail::getMPSHooks().emptyCache();
      return;
    }
    try {
      at::accelerator::emptyCache();
      at::accelerator::resetPeakStats(torch_device_.index());
    } catch (const c10::Error& e) {
      stats_error_ = e.what_without_backtrace();
    }
  }

  MemoryUsage memory_usage() override {
    MemoryUsage m;
    if (use_hooks()) {
      const auto& hooks = at::detail::getMPSHooks();
      m.allocated_bytes = hooks.getCurrentAllocatedMemory();
      m.reserved_bytes = hooks.getDriverAllocatedMemory();
      m.source = "MPS hooks (torch < 2.13): current allocated and driver memory; no peak tracking";
      return m;
    }
    try {
      const auto s = at::accelerator::getDeviceStats(torch_device_.index());
      constexpr int kAggregate = 0;
      m.peak_allocated_bytes = static_cast<std::uint64_t>(s.allocated_bytes[kAggregate].peak);
      m.peak_reserved_bytes = static_cast<std::uint64_t>(s.reserved_bytes[kAggregate].peak);
      m.allocated_bytes = static_cast<std::uint64_t>(s.allocated_bytes[kAggregate].current);
      m.reserved_bytes = static_cast<std::uint64_t>(s.reserved_bytes[kAggregate].current);
      m.source = "caching allocator statistics (at::accelerator::getDeviceStats)";
    } catch (const c10::Error& e) {
      m.source = fmt::format("unavailable: {}", first_line(e.what_without_backtrace()));
    }
    return m;
  }

  // CUDA and XPU time events; MPS's c10::Event timing is not wired through at::accelerator in the
  // versions this project builds against (never run on a Mac): no device clock there.
  std::unique_ptr<DeviceTimer> make_timer() override {
    const auto type = torch_device_.type();
    if (type != c10::kCUDA && type != c10::kXPU) return nullptr;
    return std::make_unique<EventTimer>(torch_device_);
  }

  bool hold_queue(double seconds) override { return hold_device_queue(torch_device_, seconds); }

  void empty_cache() override {
    try {
      if (use_hooks()) at::detail::getMPSHooks().emptyCache();
      else at::accelerator::emptyCache();
    } catch (const c10::Error&) {
    }
  }

 private:
  bool use_hooks() const { return torch_device_.type() == c10::kMPS && !kMpsHasDeviceAllocator; }

  static std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

  static DeviceDescription describe(c10::DeviceType type, int index) {
    DeviceDescription d;
    d.type = c10::DeviceTypeName(type, /*lower_case=*/true);
    d.index = index;
    d.id = fmt::format("{}:{}", d.type, index);
    d.name = accelerator_device_name(type, index);
    try {
      if (type == c10::kMPS && !kMpsHasDeviceAllocator) {
        d.total_memory_bytes = at::detail::getMPSHooks().getRecommendedMaxMemory();
      } else {
        d.total_memory_bytes = at::accelerator::getMemoryInfo(static_cast<c10::DeviceIndex>(index)).second;
      }
    } catch (const c10::Error&) {
    }
    return d;
  }
  std::string stats_error_;
};

}  // namespace

std::unique_ptr<Device> make_accelerator_device(c10::DeviceType type, int index) {
  return std::make_unique<AcceleratorDevice>(type, index);
}

}  // namespace accelbench
