#pragma once
// One small interface over the compute devices: the CPU and whatever accelerator libtorch reports
// (CUDA, MPS, XPU, ... through at::accelerator). Backend differences stay behind it.
#include <c10/core/Device.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/results.h"
#include "device/device_catalog.h"

namespace accelbench {

// The device's own clock around a stretch of work: events recorded on the device's current stream
// before and after it (CUDA, XPU; c10::Event with timing). Read elapsed_s() after the device was
// synchronized past stop().
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual double elapsed_s() = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  const DeviceDescription& description() const { return desc_; }
  const std::string& id() const { return desc_.id; }
  c10::Device torch_device() const { return torch_device_; }
  bool is_cpu() const { return torch_device_.is_cpu(); }

  // Waits until all work queued on the device has finished. Call before reading a clock.
  virtual void synchronize() = 0;
  // Starts a fresh peak-memory window (frees cached blocks first where the backend caches).
  virtual void reset_peak_memory() = 0;
  // Memory since the last reset_peak_memory().
  virtual MemoryUsage memory_usage() = 0;
  // Releases cached memory back to the system (after a case, after an out-of-memory).
  virtual void empty_cache() {}
  // A timer on the device's clock, or nullptr where the backend has no timing events (the CPU,
  // MPS in these libtorch versions).
  virtual std::unique_ptr<DeviceTimer> make_timer() { return nullptr; }
  // Holds the device's queue for about `seconds` (a spin kernel on the current stream), so that the
  // work launched next waits in the queue and then runs back to back, without the host's launch
  // gaps: events around it then time the device's own work. False where the backend cannot (all
  // but CUDA); src/device/queue_hold.cpp.
  virtual bool hold_queue(double /*seconds*/) { return false; }

 protected:
  Device(DeviceDescription desc, c10::Device d) : desc_(std::move(desc)), torch_device_(d) {}
  DeviceDescription desc_;
  c10::Device torch_device_;
};

// Opens "cpu", "cuda", "cuda:1", "mps", ... Throws UsageError naming the available devices when
// the device is unknown or absent.
std::unique_ptr<Device> open_device(std::string_view spec);

// The device's marketing name where the backend can tell ("NVIDIA H200"), else a generic one.
std::string accelerator_device_name(c10::DeviceType type, int index);

// The queue hold of Device::hold_queue for a device of any type (false where it has none).
bool hold_device_queue(c10::Device device, double seconds);

// Backend-specific factories (one translation unit each).
std::unique_ptr<Device> make_cpu_device();
std::unique_ptr<Device> make_accelerator_device(c10::DeviceType type, int index);

}  // namespace accelbench
