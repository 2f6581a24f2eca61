// The CPU as a device: nothing to synchronize; memory is the process's resident set.
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include "core/system_info.h"
#include "device/device.h"

namespace accelbench {

namespace {
class CpuDevice final : public Device {
 public:
  CpuDevice() : Device(describe(), c10::Device(c10::kCPU)) {}

  void synchronize() override {}  // CPU ops run synchronously on the calling thread's pool

  void reset_peak_memory() override {
    resettable_ = reset_peak_rss();
    baseline_ = current_rss_bytes();
  }

  MemoryUsage memory_usage() override {
    MemoryUsage m;
    m.peak_rss_bytes = peak_rss_bytes();
    m.baseline_rss_bytes = baseline_;
    m.source = resettable_ ? "process peak RSS during the case (/proc/self/status VmHWM) above its RSS before the build"
                           : "process peak RSS since start (getrusage; cannot be reset on this OS)";
    return m;
  }

 private:
  static DeviceDescription describe() {
    const auto host = read_host_info();
    DeviceDescription d;
    d.id = "cpu";
    d.type = "cpu";
    d.index = -1;
    d.name = host.cpu_model.empty() ? "CPU" : host.cpu_model;
    if (host.memory_bytes) d.total_memory_bytes = host.memory_bytes;
    return d;
  }
  bool resettable_ = false;
  std::optional<std::uint64_t> baseline_;
};
}  // namespace

std::unique_ptr<Device> make_cpu_device() { return std::make_unique<CpuDevice>(); }

}  // namespace accelbench
