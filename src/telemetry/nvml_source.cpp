// NVML reader. Figures and where they come from:
//   energy       nvmlDeviceGetTotalEnergyConsumption: mJ since the driver loaded (Volta and newer)
//   power        nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT), instantaneous; else
//                nvmlDeviceGetPowerUsage, which on GA100 and newer is a 1 s average
//   temperature  nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)
//   clock        nvmlDeviceGetClockInfo(NVML_CLOCK_SM), max from nvmlDeviceGetMaxClockInfo
//   throttle     nvmlDeviceGetCurrentClocksEventReasons (or the older ...ClocksThrottleReasons):
//                power cap, hardware slowdown, thermal slowdown, power brake; without them, an SM
//                clock below 80% of its maximum
//   memory       nvmlDeviceGetMemoryInfo: used bytes of the whole GPU (every process)
#include "telemetry/nvml_source.h"

#include "core/lists.h"

#include <fmt/format.h>

#include <cstdlib>
#include <vector>

#if defined(__linux__)
#include <dlfcn.h>
#endif

namespace accelbench {

namespace nvml {
std::string describe_reasons(unsigned long long mask) {
  static const std::pair<unsigned long long, const char*> names[] = {
      {kReasonSwPowerCap, "SwPowerCap"},
      {kReasonHwSlowdown, "HwSlowdown"},
      {kReasonSwThermalSlowdown, "SwThermalSlowdown"},
      {kReasonHwThermalSlowdown, "HwThermalSlowdown"},
      {kReasonHwPowerBrakeSlowdown, "HwPowerBrakeSlowdown"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : names)
    if (mask & bit) out.push_back(name);
  return fmt::format("{}", fmt::join(out, ","));
}
}  // namespace nvml

std::string NvmlApi::error(int code) const {
  const char* s = error_string ? error_string(code) : nullptr;
  return fmt::format("{} ({})", s ? s : "NVML error", code);
}

std::shared_ptr<NvmlApi> load_nvml(std::string* why) {
#if defined(__linux__)
  const char* lib = "libnvidia-ml.so.1";
  void* h = ::dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* err = ::dlerror();
    if (why)
      *why = fmt::format("cannot load {} ({}): no NVIDIA driver on this machine", lib, err ? err : "not found");
    return nullptr;
  }
  auto api = std::shared_ptr<NvmlApi>(new NvmlApi, [](NvmlApi* a) {
    if (a->initialized && a->shutdown) a->shutdown();
    delete a;
  });
  // Never dlclose NVML: it may leave threads behind that run its code after the last handle is
  // gone, and unloading it under them kills the process (on the H200 the isolated sweep's parent
  // died with SIGSEGV at an unmapped address after its output). The library stays mapped until exit.
  api->handle = std::shared_ptr<void>(h, [](void*) {});
  api->library = lib;
  auto sym = [h](const char* name) { return ::dlsym(h, name); };
  // Each function stays empty when the library lacks it.
  if (void* p = sym("nvmlInit_v2")) api->init = reinterpret_cast<int (*)()>(p);
  else if (void* p1 = sym("nvmlInit")) api->init = reinterpret_cast<int (*)()>(p1);
  if (void* p = sym("nvmlShutdown")) api->shutdown = reinterpret_cast<int (*)()>(p);
  if (void* p = sym("nvmlErrorString")) api->error_string = reinterpret_cast<const char* (*)(int)>(p);
  if (void* p = sym("nvmlSystemGetDriverVersion"))
    api->system_get_driver_version = reinterpret_cast<int (*)(char*, unsigned)>(p);
  if (void* p = sym("nvmlDeviceGetCount_v2")) api->device_get_count = reinterpret_cast<int (*)(unsigned*)>(p);
  if (void* p = sym("nvmlDeviceGetHandleByIndex_v2"))
    api->device_get_handle_by_index = reinterpret_cast<int (*)(unsigned, nvml::Device*)>(p);
  if (void* p = sym("nvmlDeviceGetHandleByUUID"))
    api->device_get_handle_by_uuid = reinterpret_cast<int (*)(const char*, nvml::Device*)>(p);
  if (void* p = sym("nvmlDeviceGetName")) api->device_get_name = reinterpret_cast<int (*)(nvml::Device, char*, unsigned)>(p);
  if (void* p = sym("nvmlDeviceGetTotalEnergyConsumption"))
    api->device_get_total_energy_consumption = reinterpret_cast<int (*)(nvml::Device, unsigned long long*)>(p);
  if (void* p = sym("nvmlDeviceGetPowerUsage"))
    api->device_get_power_usage = reinterpret_cast<int (*)(nvml::Device, unsigned*)>(p);
  if (void* p = sym("nvmlDeviceGetFieldValues"))
    api->device_get_field_values = reinterpret_cast<int (*)(nvml::Device, int, nvml::FieldValue*)>(p);
  if (void* p = sym("nvmlDeviceGetTemperature"))
    api->device_get_temperature = reinterpret_cast<int (*)(nvml::Device, int, unsigned*)>(p);
  if (void* p = sym("nvmlDeviceGetClockInfo"))
    api->device_get_clock_info = reinterpret_cast<int (*)(nvml::Device, int, unsigned*)>(p);
  if (void* p = sym("nvmlDeviceGetMaxClockInfo"))
    api->device_get_max_clock_info = reinterpret_cast<int (*)(nvml::Device, int, unsigned*)>(p);
  if (void* p = sym("nvmlDeviceGetCurrentClocksEventReasons")) {
    api->device_get_current_clocks_event_reasons = reinterpret_cast<int (*)(nvml::Device, unsigned long long*)>(p);
    api->reasons_function = "nvmlDeviceGetCurrentClocksEventReasons";
  } else if (void* p2 = sym("nvmlDeviceGetCurrentClocksThrottleReasons")) {
    api->device_get_current_clocks_event_reasons = reinterpret_cast<int (*)(nvml::Device, unsigned long long*)>(p2);
    api->reasons_function = "nvmlDeviceGetCurrentClocksThrottleReasons";
  }
  if (void* p = sym("nvmlDeviceGetMemoryInfo"))
    api->device_get_memory_info = reinterpret_cast<int (*)(nvml::Device, nvml::Memory*)>(p);
  if (void* p = sym("nvmlDeviceGetPersistenceMode"))
    api->device_get_persistence_mode = reinterpret_cast<int (*)(nvml::Device, int*)>(p);
  if (void* p = sym("nvmlDeviceGetComputeRunningProcesses_v3"))
    api->device_get_compute_running_processes = reinterpret_cast<int (*)(nvml::Device, unsigned*, nvml::ProcessInfo*)>(p);
  else if (void* p2 = sym("nvmlDeviceGetComputeRunningProcesses_v2"))
    api->device_get_compute_running_processes = reinterpret_cast<int (*)(nvml::Device, unsigned*, nvml::ProcessInfo*)>(p2);
  if (!api->init) {
    if (why) *why = fmt::format("{} has no nvmlInit_v2", lib);
    return nullptr;
  }
  if (const int rc = api->init(); rc != nvml::kSuccess) {
    if (why) *why = fmt::format("nvmlInit_v2 failed: {}", api->error(rc));
    return nullptr;
  }
  api->initialized = true;
  return api;
#else
  if (why) *why = "NVML is only used on Linux";
  return nullptr;
#endif
}

namespace {

std::optional<double> field_as_double(const nvml::FieldValue& f) {
  switch (f.valueType) {
    case nvml::kValueTypeDouble: return f.value.dVal;
    case nvml::kValueTypeUInt: return static_cast<double>(f.value.uiVal);
    case nvml::kValueTypeULong: return static_cast<double>(f.value.ulVal);
    case nvml::kValueTypeULongLong: return static_cast<double>(f.value.ullVal);
    case nvml::kValueTypeSLongLong: return static_cast<double>(f.value.sllVal);
    case nvml::kValueTypeSInt: return static_cast<double>(f.value.siVal);
    default: return std::nullopt;
  }
}

std::string missing(const char* fn) {
  return fmt::format("{} is not in this NVML library (driver too old)", fn);
}

class NvmlSource final : public TelemetrySource {
 public:
  NvmlSource(std::shared_ptr<NvmlApi> api, nvml::Device dev, std::string name, std::string label)
      : api_(std::move(api)), dev_(dev), name_(std::move(name)), label_(std::move(label)) {
    probe();
  }

  std::string name() const override { return name_; }
  std::string role() const override { return "accelerator"; }
  std::string description() const override { return label_; }
  bool available() const override {
    return energy_ok_ || power_kind_ != Power::none || temp_ok_ || clock_ok_ || memory_ok_;
  }
  std::string unavailable_reason() const override {
    if (available()) return {};  // the contract: a reason only where the source is unavailable
    return fmt::format("no NVML figure could be read: energy: {}; power: {}; temperature: {}; clock: {}; memory: {}",
                       energy_origin_, power_origin_, temp_origin_, clock_origin_, memory_origin_);
  }
  std::vector<TelemetryFigureOrigin> figures() const override {
    return {{"energy", energy_ok_, energy_origin_},    {"power", power_kind_ != Power::none, power_origin_},
            {"temperature", temp_ok_, temp_origin_},   {"clock", clock_ok_, clock_origin_},
            {"memory", memory_ok_, memory_origin_},    {"throttle", reasons_ok_ || (clock_ok_ && max_clock_mhz_ > 0), throttle_origin_}};
  }

  TelemetryReading read() override {
    TelemetryReading r;
    if (energy_ok_) {
      unsigned long long mj = 0;
      if (api_->device_get_total_energy_consumption(dev_, &mj) == nvml::kSuccess && mj >= energy_base_mj_)
        r.energy_j = static_cast<double>(mj - energy_base_mj_) / 1000.0;
    }
    if (power_kind_ == Power::instant) {
      nvml::FieldValue fv{};
      fv.fieldId = nvml::kFieldPowerInstant;
      if (api_->device_get_field_values(dev_, 1, &fv) == nvml::kSuccess && fv.nvmlReturn == nvml::kSuccess)
        if (auto mw = field_as_double(fv)) r.power_w = *mw / 1000.0;
    } else if (power_kind_ == Power::average) {
      unsigned mw = 0;
      if (api_->device_get_power_usage(dev_, &mw) == nvml::kSuccess) r.power_w = mw / 1000.0;
    }
    if (temp_ok_) {
      unsigned c = 0;
      if (api_->device_get_temperature(dev_, nvml::kTemperatureGpu, &c) == nvml::kSuccess) r.temperature_c = c;
    }
    if (clock_ok_) {
      unsigned mhz = 0;
      if (api_->device_get_clock_info(dev_, nvml::kClockSm, &mhz) == nvml::kSuccess) r.clock_mhz = mhz;
    }
    if (memory_ok_) {
      nvml::Memory m{};
      if (api_->device_get_memory_info(dev_, &m) == nvml::kSuccess) r.memory_bytes = static_cast<double>(m.used);
    }
    if (reasons_ok_) {
      unsigned long long mask = 0;
      if (api_->device_get_current_clocks_event_reasons(dev_, &mask) == nvml::kSuccess && (mask & nvml::kThrottleMask)) {
        r.throttled = true;
        r.throttle_reasons.push_back("gpu " + nvml::describe_reasons(mask & nvml::kThrottleMask));
      }
    } else if (r.clock_mhz && max_clock_mhz_ > 0 && *r.clock_mhz < kThrottleClockFraction * max_clock_mhz_) {
      r.throttled = true;
      r.throttle_reasons.push_back(fmt::format("gpu SM clock below {:.0f}% of {:.0f} MHz", 100 * kThrottleClockFraction, max_clock_mhz_));
    }
    return r;
  }

 private:
  enum class Power { none, instant, average };

  // What the GPU answers, one function at a time: each figure's origin, or why it has none.
  void probe() {
    probe_energy_and_power();
    probe_temperature_and_clocks();
    probe_throttling_and_memory();
  }

  // The energy counter; the instantaneous power field first, then the (averaged) power usage.
  void probe_energy_and_power() {
    const auto& a = *api_;
    if (!a.device_get_total_energy_consumption) {
      energy_origin_ = missing("nvmlDeviceGetTotalEnergyConsumption");
    } else if (const int rc = a.device_get_total_energy_consumption(dev_, &energy_base_mj_); rc == nvml::kSuccess) {
      energy_ok_ = true;
      energy_origin_ = "nvmlDeviceGetTotalEnergyConsumption (mJ counter)";
    } else {
      energy_origin_ = fmt::format("nvmlDeviceGetTotalEnergyConsumption: {}{}", a.error(rc),
                                   rc == nvml::kErrorNotSupported ? " (the GPU has no energy counter: Volta or newer has one)" : "");
    }
    std::string field_why;
    if (!a.device_get_field_values) {
      field_why = missing("nvmlDeviceGetFieldValues");
    } else {
      nvml::FieldValue fv{};
      fv.fieldId = nvml::kFieldPowerInstant;
      const int rc = a.device_get_field_values(dev_, 1, &fv);
      if (rc == nvml::kSuccess && fv.nvmlReturn == nvml::kSuccess && field_as_double(fv)) {
        power_kind_ = Power::instant;
        power_origin_ = "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT) (instantaneous, mW)";
      } else {
        field_why = fmt::format("NVML_FI_DEV_POWER_INSTANT: {}", a.error(rc != nvml::kSuccess ? rc : fv.nvmlReturn));
      }
    }
    if (power_kind_ == Power::none) {
      unsigned mw = 0;
      if (!a.device_get_power_usage) {
        power_origin_ = fmt::format("{}; {}", field_why, missing("nvmlDeviceGetPowerUsage"));
      } else if (const int rc = a.device_get_power_usage(dev_, &mw); rc == nvml::kSuccess) {
        power_kind_ = Power::average;
        power_origin_ = fmt::format("nvmlDeviceGetPowerUsage (mW; a 1 s average on GA100 and newer; {})", field_why);
      } else {
        power_origin_ = fmt::format("{}; nvmlDeviceGetPowerUsage: {}", field_why, a.error(rc));
      }
    }
  }

  // The GPU temperature, the SM clock and its maximum.
  void probe_temperature_and_clocks() {
    const auto& a = *api_;
    if (!a.device_get_temperature) {
      temp_origin_ = missing("nvmlDeviceGetTemperature");
    } else {
      unsigned c = 0;
      const int rc = a.device_get_temperature(dev_, nvml::kTemperatureGpu, &c);
      temp_ok_ = rc == nvml::kSuccess;
      temp_origin_ = temp_ok_ ? "nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)"
                              : fmt::format("nvmlDeviceGetTemperature: {}", a.error(rc));
    }
    // clocks
    if (!a.device_get_clock_info) {
      clock_origin_ = missing("nvmlDeviceGetClockInfo");
    } else {
      unsigned mhz = 0;
      const int rc = a.device_get_clock_info(dev_, nvml::kClockSm, &mhz);
      clock_ok_ = rc == nvml::kSuccess;
      clock_origin_ = clock_ok_ ? "nvmlDeviceGetClockInfo(NVML_CLOCK_SM)" : fmt::format("nvmlDeviceGetClockInfo: {}", a.error(rc));
    }
    if (a.device_get_max_clock_info) {
      unsigned mhz = 0;
      if (a.device_get_max_clock_info(dev_, nvml::kClockSm, &mhz) == nvml::kSuccess) max_clock_mhz_ = mhz;
    }
  }

  // The clock event reasons (else the SM clock against its maximum), and the memory used.
  void probe_throttling_and_memory() {
    const auto& a = *api_;
    if (!a.device_get_current_clocks_event_reasons) {
      throttle_origin_ = missing("nvmlDeviceGetCurrentClocksEventReasons");
    } else {
      unsigned long long mask = 0;
      const int rc = a.device_get_current_clocks_event_reasons(dev_, &mask);
      reasons_ok_ = rc == nvml::kSuccess;
      throttle_origin_ = reasons_ok_ ? fmt::format("{}: SwPowerCap, HwSlowdown, Sw/HwThermalSlowdown, HwPowerBrakeSlowdown",
                                                   a.reasons_function.empty() ? "clock event reasons" : a.reasons_function)
                                     : fmt::format("{}: {}", a.reasons_function, a.error(rc));
    }
    if (!reasons_ok_ && clock_ok_ && max_clock_mhz_ > 0)
      throttle_origin_ += fmt::format("; instead: SM clock below {:.0f}% of its maximum {:.0f} MHz", 100 * kThrottleClockFraction, max_clock_mhz_);
    // memory
    if (!a.device_get_memory_info) {
      memory_origin_ = missing("nvmlDeviceGetMemoryInfo");
    } else {
      nvml::Memory m{};
      const int rc = a.device_get_memory_info(dev_, &m);
      memory_ok_ = rc == nvml::kSuccess;
      memory_origin_ = memory_ok_ ? "nvmlDeviceGetMemoryInfo used (the whole GPU: every process)"
                                  : fmt::format("nvmlDeviceGetMemoryInfo: {}", a.error(rc));
    }
  }

  std::shared_ptr<NvmlApi> api_;
  nvml::Device dev_;
  std::string name_, label_;
  bool energy_ok_ = false, temp_ok_ = false, clock_ok_ = false, memory_ok_ = false, reasons_ok_ = false;
  Power power_kind_ = Power::none;
  unsigned long long energy_base_mj_ = 0;
  double max_clock_mhz_ = 0;
  std::string energy_origin_, power_origin_, temp_origin_, clock_origin_, memory_origin_, throttle_origin_;
};

}  // namespace

TelemetrySourcePtr open_nvml_source(std::shared_ptr<NvmlApi> api, int cuda_index, std::string load_error) {
  const auto name = fmt::format("nvml:{}", cuda_index);
  if (!api) return make_unavailable_source(name, "accelerator", load_error.empty() ? "NVML is not loaded" : load_error,
                                           {"energy", "power", "temperature", "clock", "memory"});
  auto fail = [&](std::string why) {
    return make_unavailable_source(name, "accelerator", std::move(why), {"energy", "power", "temperature", "clock", "memory"});
  };
  if (!api->device_get_handle_by_index) return fail(missing("nvmlDeviceGetHandleByIndex_v2"));
  nvml::Device dev = nullptr;
  std::string how;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible && *visible) {
    const auto entries = split_list(visible, /*keep_empty=*/true);
    if (cuda_index < 0 || static_cast<std::size_t>(cuda_index) >= entries.size())
      return fail(fmt::format("CUDA device {} is not in CUDA_VISIBLE_DEVICES={}", cuda_index, visible));
    const auto& e = entries[static_cast<std::size_t>(cuda_index)];
    if (e.rfind("GPU-", 0) == 0 || e.rfind("MIG-", 0) == 0) {
      if (!api->device_get_handle_by_uuid) return fail(missing("nvmlDeviceGetHandleByUUID"));
      if (const int rc = api->device_get_handle_by_uuid(e.c_str(), &dev); rc != nvml::kSuccess)
        return fail(fmt::format("nvmlDeviceGetHandleByUUID({}): {}", e, api->error(rc)));
      how = fmt::format("CUDA_VISIBLE_DEVICES entry {}", e);
    } else {
      unsigned idx = 0;
      try {
        idx = static_cast<unsigned>(std::stoul(e));
      } catch (const std::exception&) {
        return fail(fmt::format("cannot map CUDA device {} to NVML: CUDA_VISIBLE_DEVICES entry '{}'", cuda_index, e));
      }
      if (const int rc = api->device_get_handle_by_index(idx, &dev); rc != nvml::kSuccess)
        return fail(fmt::format("nvmlDeviceGetHandleByIndex({}): {}", idx, api->error(rc)));
      how = fmt::format("NVML index {} (CUDA_VISIBLE_DEVICES)", idx);
    }
  } else {
    if (const int rc = api->device_get_handle_by_index(static_cast<unsigned>(cuda_index), &dev); rc != nvml::kSuccess)
      return fail(fmt::format("nvmlDeviceGetHandleByIndex({}): {}", cuda_index, api->error(rc)));
    how = fmt::format("NVML index {}", cuda_index);
  }
  char gpu_name[96] = {0};
  if (api->device_get_name) api->device_get_name(dev, gpu_name, sizeof gpu_name);
  char driver[96] = {0};
  if (api->system_get_driver_version) api->system_get_driver_version(driver, sizeof driver);
  const auto label = fmt::format("{} via {} ({}{})", gpu_name[0] ? gpu_name : "NVIDIA GPU", api->library, how,
                                 driver[0] ? fmt::format(", driver {}", driver) : std::string());
  auto src = std::make_shared<NvmlSource>(api, dev, name, label);
  if (!src->available()) return fail(src->unavailable_reason());
  return src;
}

}  // namespace accelbench
