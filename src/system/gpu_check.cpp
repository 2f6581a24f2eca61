// The GPUs as NVML shows them, for `doctor` and the first line of `run`: other processes on a GPU
// (they share its time and memory), clocks held back (power cap, thermal or hardware slowdown),
// heat, and persistence mode (off: the driver loads again for each process, and every round of a
// case starts a fresh one). No torch here; NVML through the NvmlApi table (fakeable in tests).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "core/durations.h"
#include "system/machine_checks.h"
#include "telemetry/nvml_source.h"

namespace accelbench {

namespace {

constexpr unsigned kHotGpuC = 85;  // a GPU this hot is at or near its slowdown temperature

std::vector<GpuState::Process> other_processes(const NvmlApi& api, nvml::Device d, unsigned self_pid, bool& readable) {
  std::vector<nvml::ProcessInfo> infos(64);
  unsigned count = static_cast<unsigned>(infos.size());
  int rc = api.device_get_compute_running_processes(d, &count, infos.data());
  if (rc == nvml::kErrorInsufficientSize) {  // more than 64: ask again with the room NVML asked for
    infos.resize(count + 16);
    count = static_cast<unsigned>(infos.size());
    rc = api.device_get_compute_running_processes(d, &count, infos.data());
  }
  readable = rc == nvml::kSuccess;
  std::vector<GpuState::Process> out;
  if (!readable) return out;
  for (unsigned i = 0; i < count && i < infos.size(); ++i) {
    if (infos[i].pid == self_pid) continue;
    GpuState::Process p{infos[i].pid, std::nullopt};
    if (infos[i].usedGpuMemory != ~0ULL) p.used_bytes = infos[i].usedGpuMemory;
    out.push_back(p);
  }
  return out;
}

GpuState read_gpu(const NvmlApi& api, unsigned index, nvml::Device d, unsigned self_pid) {
  GpuState g;
  g.index = index;
  char name[96] = {};
  if (api.device_get_name && api.device_get_name(d, name, sizeof name) == nvml::kSuccess) g.name = name;
  if (int mode = 0; api.device_get_persistence_mode && api.device_get_persistence_mode(d, &mode) == nvml::kSuccess)
    g.persistence = mode == nvml::kFeatureEnabled;
  if (unsigned v = 0; api.device_get_clock_info && api.device_get_clock_info(d, nvml::kClockSm, &v) == nvml::kSuccess) g.sm_clock_mhz = v;
  if (unsigned v = 0; api.device_get_max_clock_info && api.device_get_max_clock_info(d, nvml::kClockSm, &v) == nvml::kSuccess)
    g.max_sm_clock_mhz = v;
  if (unsigned long long m = 0;
      api.device_get_current_clocks_event_reasons && api.device_get_current_clocks_event_reasons(d, &m) == nvml::kSuccess)
    g.clock_event_reasons = m;
  if (unsigned t = 0; api.device_get_temperature && api.device_get_temperature(d, nvml::kTemperatureGpu, &t) == nvml::kSuccess)
    g.temperature_c = t;
  if (api.device_get_compute_running_processes) {
    bool readable = false;
    auto others = other_processes(api, d, self_pid, readable);
    if (readable) g.other_processes = std::move(others);
  }
  return g;
}

std::string gpu_label(const GpuState& g) { return g.name.empty() ? fmt::format("GPU {}", g.index) : fmt::format("GPU {} ({})", g.index, g.name); }

MachineFinding processes_finding(const GpuState& g) {
  if (!g.other_processes) return {"GPU processes", false, gpu_label(g) + ": other processes not exposed by NVML", ""};
  if (g.other_processes->empty()) return {"GPU processes", false, gpu_label(g) + ": no other process on it", ""};
  std::vector<std::string> each;
  for (const auto& p : *g.other_processes)
    each.push_back(p.used_bytes ? fmt::format("pid {} ({})", p.pid, format_bytes(static_cast<double>(*p.used_bytes)))
                                : fmt::format("pid {}", p.pid));
  return {"GPU processes", true,
          fmt::format("{}: {} other process{} on it: {}", gpu_label(g), each.size(), each.size() == 1 ? "" : "es", fmt::join(each, ", ")),
          "they share the GPU's time and memory: stop them, or measure on a free GPU (CUDA_VISIBLE_DEVICES=N)"};
}

MachineFinding clocks_finding(const GpuState& g) {
  const std::string clocks = g.sm_clock_mhz && g.max_sm_clock_mhz
                                 ? fmt::format("SM clock {} of {} MHz", *g.sm_clock_mhz, *g.max_sm_clock_mhz)
                                 : std::string("SM clock not exposed");
  if (!g.clock_event_reasons) return {"GPU clocks", false, fmt::format("{}: {}; what holds it back is not exposed", gpu_label(g), clocks), ""};
  const auto held = nvml::describe_reasons(*g.clock_event_reasons & nvml::kThrottleMask);
  if (held.empty())
    return {"GPU clocks", false, fmt::format("{}: {}, nothing holds it back (an idle GPU's clock is low)", gpu_label(g), clocks), ""};
  return {"GPU clocks", true, fmt::format("{}: clocks held back by {} ({})", gpu_label(g), held, clocks),
          "a power cap or heat slows the GPU: let it cool and check its power limit and cooling "
          "(nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE)"};
}

}  // namespace

std::vector<GpuState> read_gpu_states(const NvmlApi& api, unsigned self_pid) {
  std::vector<GpuState> out;
  unsigned n = 0;
  if (!api.device_get_count || !api.device_get_handle_by_index || api.device_get_count(&n) != nvml::kSuccess) return out;
  for (unsigned i = 0; i < n; ++i) {
    nvml::Device d = nullptr;
    if (api.device_get_handle_by_index(i, &d) != nvml::kSuccess) continue;
    out.push_back(read_gpu(api, i, d, self_pid));
  }
  return out;
}

std::vector<MachineFinding> check_gpus(const MachineSnapshot& s) {
  std::vector<MachineFinding> out;
  for (const auto& g : s.gpus) {
    out.push_back(processes_finding(g));
    out.push_back(clocks_finding(g));
    if (g.temperature_c && *g.temperature_c >= kHotGpuC)
      out.push_back({"GPU thermal", true, fmt::format("{}: {} C, at or near its slowdown temperature", gpu_label(g), *g.temperature_c),
                     "let it cool between runs (run --cooldown 30s) and check its cooling"});
    if (!g.persistence)
      out.push_back({"GPU persistence", false, gpu_label(g) + ": persistence mode not exposed", ""});
    else if (!*g.persistence)
      out.push_back({"GPU persistence", false, gpu_label(g) + ": persistence mode off",
                     "sudo nvidia-smi -pm 1: the driver stays loaded between processes, so each round's fresh process "
                     "starts sooner"});
    else
      out.push_back({"GPU persistence", false, gpu_label(g) + ": persistence mode on", ""});
  }
  return out;
}

}  // namespace accelbench
