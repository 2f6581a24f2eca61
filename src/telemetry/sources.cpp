// Which sources a case uses, opened once per process.
#include <fmt/format.h>

#include <map>
#include <mutex>

#include "telemetry/nvml_source.h"
#include "telemetry/telemetry_source.h"

namespace accelbench {

namespace {
struct SourceCache {
  std::mutex mutex;
  bool host_opened = false;
  std::vector<TelemetrySourcePtr> host;  // CPU energy, CPU thermal, process
  bool nvml_loaded = false;
  std::shared_ptr<NvmlApi> nvml;
  std::string nvml_error;
  std::map<int, TelemetrySourcePtr> nvml_sources;
  bool apple_opened = false;
  std::vector<TelemetrySourcePtr> apple;

  void open_host() {
    if (host_opened) return;
    host_opened = true;
    TelemetryRoots roots;
#if defined(__linux__)
    for (auto& s : open_rapl_sources(roots)) host.push_back(s);
    host.push_back(open_linux_thermal_source(roots));
#elif defined(__APPLE__)
    // CPU energy comes from IOReport (see open_apple); temperatures are not implemented on macOS.
    host.push_back(make_unavailable_source("cpu-thermal", "cpu",
                                           "CPU temperature and frequency on macOS need private APIs or root (powermetrics): not implemented",
                                           {"temperature", "clock"}));
#else
    host.push_back(make_unavailable_source("rapl", "cpu", "no CPU energy source for this operating system"));
#endif
    host.push_back(open_process_source(roots));
  }
  const std::vector<TelemetrySourcePtr>& open_apple() {
    if (!apple_opened) {
      apple_opened = true;
      apple = open_apple_energy_sources();
    }
    return apple;
  }
  TelemetrySourcePtr nvml_source(int index) {
    if (!nvml_loaded) {
      nvml_loaded = true;
      nvml = load_nvml(&nvml_error);
    }
    auto& s = nvml_sources[index];
    if (!s) s = open_nvml_source(nvml, index, nvml_error);
    return s;
  }
};

SourceCache& cache() {
  static auto* c = new SourceCache;  // never destroyed: sources may outlive static destruction order
  return *c;
}

// "cuda:1" -> ("cuda", 1); "cpu" -> ("cpu", -1); "cuda" -> ("cuda", 0).
std::pair<std::string, int> parse_device(const std::string& device) {
  const auto colon = device.find(':');
  if (colon == std::string::npos) return {device, device == "cpu" ? -1 : 0};
  try {
    return {device.substr(0, colon), std::stoi(device.substr(colon + 1))};
  } catch (const std::exception&) {
    return {device.substr(0, colon), 0};
  }
}
}  // namespace

std::vector<TelemetrySourcePtr> telemetry_sources_for(const std::string& device) {
  auto& c = cache();
  std::lock_guard lock(c.mutex);
  c.open_host();
  std::vector<TelemetrySourcePtr> out;
  const auto [type, index] = parse_device(device);
  if (type == "cuda") {
    out.push_back(c.nvml_source(index));
  } else if (type == "mps") {
    for (const auto& s : c.open_apple())
      if (s->role() == "accelerator") out.push_back(s);
  } else if (type != "cpu") {
    out.push_back(make_unavailable_source(
        type, "accelerator",
        fmt::format("no energy or power source for {} devices in accelbench (it reads NVML for NVIDIA CUDA GPUs and "
                    "IOReport on Apple silicon)",
                    type)));
  }
#ifdef __APPLE__
  for (const auto& s : c.open_apple())
    if (s->role() == "cpu") out.push_back(s);
#endif
  for (const auto& s : c.host) out.push_back(s);
  return out;
}

std::vector<TelemetrySourcePtr> all_telemetry_sources() {
  auto& c = cache();
  std::lock_guard lock(c.mutex);
  c.open_host();
  std::vector<TelemetrySourcePtr> out;
#if defined(__linux__)
  auto first = c.nvml_source(0);
  if (c.nvml && c.nvml->device_get_count) {
    unsigned n = 0;
    if (c.nvml->device_get_count(&n) == 0)
      for (unsigned i = 0; i < n; ++i) out.push_back(c.nvml_source(static_cast<int>(i)));
    else
      out.push_back(first);
  } else {
    out.push_back(first);
  }
#endif
#ifdef __APPLE__
  for (const auto& s : c.open_apple()) out.push_back(s);
#endif
  for (const auto& s : c.host) out.push_back(s);
  return out;
}

}  // namespace accelbench
