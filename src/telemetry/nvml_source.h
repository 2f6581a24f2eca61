#pragma once
// NVIDIA GPUs through NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): no link-time
// dependency, and a machine without the driver simply reports NVML as unavailable.
//
// NvmlApi is the function table the source calls. load_nvml() fills it from the library; tests fill
// it with fakes. A function the library lacks (an old driver) stays empty, and the figure that
// needs it is unavailable with that reason.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "telemetry/telemetry_source.h"

namespace accelbench {

namespace nvml {
// The parts of nvml.h used here (same layout and values as NVIDIA's header).
using Device = void*;
inline constexpr int kSuccess = 0;
inline constexpr int kErrorNotSupported = 3;
inline constexpr int kErrorNoPermission = 4;
inline constexpr int kErrorNotFound = 6;
inline constexpr int kErrorFunctionNotFound = 13;
inline constexpr int kTemperatureGpu = 0;          // NVML_TEMPERATURE_GPU
inline constexpr int kClockSm = 1;                 // NVML_CLOCK_SM
inline constexpr unsigned kFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT (mW)
inline constexpr int kValueTypeDouble = 0, kValueTypeUInt = 1, kValueTypeULong = 2, kValueTypeULongLong = 3,
                     kValueTypeSLongLong = 4, kValueTypeSInt = 5;

// nvmlClocksEventReasons / nvmlClocksThrottleReasons bits.
inline constexpr unsigned long long kReasonGpuIdle = 0x1;
inline constexpr unsigned long long kReasonApplicationsClocksSetting = 0x2;
inline constexpr unsigned long long kReasonSwPowerCap = 0x4;
inline constexpr unsigned long long kReasonHwSlowdown = 0x8;
inline constexpr unsigned long long kReasonSyncBoost = 0x10;
inline constexpr unsigned long long kReasonSwThermalSlowdown = 0x20;
inline constexpr unsigned long long kReasonHwThermalSlowdown = 0x40;
inline constexpr unsigned long long kReasonHwPowerBrakeSlowdown = 0x80;
inline constexpr unsigned long long kReasonDisplayClockSetting = 0x100;
// The reasons that mean "thermally or power throttled" (idle, application clocks, sync boost and
// display settings do not).
inline constexpr unsigned long long kThrottleMask = kReasonSwPowerCap | kReasonHwSlowdown | kReasonSwThermalSlowdown |
                                                    kReasonHwThermalSlowdown | kReasonHwPowerBrakeSlowdown;

union Value {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  unsigned short usVal;
};
struct FieldValue {  // nvmlFieldValue_t
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  int nvmlReturn;
  Value value;
};
struct Memory {  // nvmlMemory_t (v1)
  unsigned long long total, free, used;
};
struct ProcessInfo {  // nvmlProcessInfo_v2_t, what nvmlDeviceGetComputeRunningProcesses_v2/_v3 fill
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes; NVML_VALUE_NOT_AVAILABLE (~0) when not known
  unsigned int gpuInstanceId, computeInstanceId;
};
inline constexpr int kErrorInsufficientSize = 7;
inline constexpr int kFeatureEnabled = 1;  // nvmlEnableState_t

// "SwPowerCap,HwThermalSlowdown" for the throttle bits of a reason mask.
std::string describe_reasons(unsigned long long mask);
}  // namespace nvml

struct NvmlApi {
  std::function<int()> init;                                         // nvmlInit_v2
  std::function<int()> shutdown;                                     // nvmlShutdown
  std::function<const char*(int)> error_string;                      // nvmlErrorString
  std::function<int(char*, unsigned)> system_get_driver_version;     // nvmlSystemGetDriverVersion
  std::function<int(unsigned*)> device_get_count;                    // nvmlDeviceGetCount_v2
  std::function<int(unsigned, nvml::Device*)> device_get_handle_by_index;  // ..._v2
  std::function<int(const char*, nvml::Device*)> device_get_handle_by_uuid;
  std::function<int(nvml::Device, char*, unsigned)> device_get_name;
  std::function<int(nvml::Device, unsigned long long*)> device_get_total_energy_consumption;  // mJ
  std::function<int(nvml::Device, unsigned*)> device_get_power_usage;                        // mW
  std::function<int(nvml::Device, int, nvml::FieldValue*)> device_get_field_values;
  std::function<int(nvml::Device, int, unsigned*)> device_get_temperature;
  std::function<int(nvml::Device, int, unsigned*)> device_get_clock_info;                    // MHz
  std::function<int(nvml::Device, int, unsigned*)> device_get_max_clock_info;
  // nvmlDeviceGetCurrentClocksEventReasons (new name), else ...ClocksThrottleReasons (old name).
  std::function<int(nvml::Device, unsigned long long*)> device_get_current_clocks_event_reasons;
  std::string reasons_function;  // which of the two names was found
  std::function<int(nvml::Device, nvml::Memory*)> device_get_memory_info;
  std::function<int(nvml::Device, int*)> device_get_persistence_mode;  // nvmlEnableState_t
  // nvmlDeviceGetComputeRunningProcesses_v3 (else _v2): in, the room in `infos`; out, the count.
  std::function<int(nvml::Device, unsigned*, nvml::ProcessInfo*)> device_get_compute_running_processes;

  std::string library;           // where it was loaded from ("libnvidia-ml.so.1", or "fake")
  std::shared_ptr<void> handle;  // dlopen handle (closes with the last copy); empty for fakes
  bool initialized = false;

  std::string error(int code) const;  // "Not Supported (3)"
};

// dlopen + dlsym + nvmlInit. On failure returns nullptr and sets *why (library not found, init
// failed with NVML's message, ...). Never throws.
std::shared_ptr<NvmlApi> load_nvml(std::string* why);

// The NVML device of CUDA device `cuda_index`: CUDA_VISIBLE_DEVICES (indices or GPU-UUIDs) is
// followed; without it, NVML's index is CUDA's (true with CUDA_DEVICE_ORDER=PCI_BUS_ID, and on a
// machine whose GPUs are all alike).
// A source that reads it; unavailable (with the reason) when NVML or the device is missing.
TelemetrySourcePtr open_nvml_source(std::shared_ptr<NvmlApi> api, int cuda_index, std::string load_error = {});

}  // namespace accelbench
