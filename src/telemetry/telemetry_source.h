#pragma once
// Telemetry sources: energy, power, temperature, clocks and memory of a device, read while a case
// trains. One source per origin (RAPL domain, NVML device, hwmon/thermal/cpufreq, the process,
// Apple's IOReport). No torch here.
//
// A source that cannot measure a figure says so with a reason, never with 0 or an invented number:
// available() is false and unavailable_reason() tells why, or figures() lists that figure as
// unavailable with its reason. read() fills only the figures it could read this time.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace accelbench {

// A clock below this fraction of its maximum (a GPU's SM clock, the fastest CPU core) counts as throttled.
inline constexpr double kThrottleClockFraction = 0.8;

// One reading of one source. Every field is optional: a source fills what it has.
struct TelemetryReading {
  std::optional<double> energy_j;       // cumulative since the source opened; wrap-arounds undone
  std::optional<double> power_w;        // the source's instantaneous power (or its own short average)
  std::optional<double> temperature_c;  // the hottest of the source's sensors
  std::optional<double> clock_mhz;
  std::optional<double> memory_bytes;   // device memory in use (accelerator) or resident set (process)
  bool throttled = false;               // thermally or power throttled at this reading
  std::vector<std::string> throttle_reasons;
};

// Where one figure of a source comes from, or why the source cannot give it.
struct TelemetryFigureOrigin {
  std::string figure;   // "energy" | "power" | "temperature" | "clock" | "memory" | "throttle"
  bool available = false;
  std::string origin;   // e.g. "nvmlDeviceGetTotalEnergyConsumption (mJ counter)"; or the reason
};

class TelemetrySource {
 public:
  virtual ~TelemetrySource() = default;
  // "rapl:package-0", "nvml:0", "linux-thermal", "process", "ioreport:gpu" ...
  virtual std::string name() const = 0;
  // What it measures: "cpu" (the host CPU package), "accelerator", "process".
  virtual std::string role() const = 0;
  // One line for people ("NVIDIA H200 through NVML 12.580", "intel-rapl:0 package-0").
  virtual std::string description() const { return {}; }
  virtual bool available() const = 0;
  virtual std::string unavailable_reason() const { return {}; }
  // Every figure this kind of source could give, with its origin or the reason it cannot.
  virtual std::vector<TelemetryFigureOrigin> figures() const = 0;
  // Only called when available(). Never throws; a failed read leaves fields empty.
  virtual TelemetryReading read() = 0;
};

using TelemetrySourcePtr = std::shared_ptr<TelemetrySource>;

// A source that cannot measure anything, with the reason.
TelemetrySourcePtr make_unavailable_source(std::string name, std::string role, std::string reason,
                                           std::vector<std::string> figures = {"energy", "power"});

// --- file access: injectable so that tests use fake trees and simulate unreadable files ------------
struct FileReadResult {
  std::optional<std::string> text;
  int error = 0;             // errno when text is empty
  std::string message;       // "permission denied", "no such file", ...
};
using FileReader = std::function<FileReadResult(const std::string& path)>;
FileReadResult read_small_file(const std::string& path);  // the real one (POSIX open/read)

// Where the OS trees are: "/sys" and "/proc" normally, a temporary directory in tests.
struct TelemetryRoots {
  std::string sys = "/sys";
  std::string proc = "/proc";
  FileReader reader = read_small_file;
};

// --- Linux sources ------------------------------------------------------------------------------
// RAPL through /sys/class/powercap: one source per package domain and per DRAM sub-domain; or one
// unavailable source "rapl" with the reason (no powercap, no RAPL domain, energy_uj unreadable).
std::vector<TelemetrySourcePtr> open_rapl_sources(const TelemetryRoots& roots);
// CPU temperature (hwmon, else thermal zones), frequency (cpufreq) and the kernel's thermal
// throttle counters: one source "linux-thermal".
TelemetrySourcePtr open_linux_thermal_source(const TelemetryRoots& roots);
// The process's resident set (/proc/self/status VmRSS; task_info on macOS): "process".
TelemetrySourcePtr open_process_source(const TelemetryRoots& roots);

// --- macOS (Apple silicon) ----------------------------------------------------------------------
// IOReport "Energy Model" counters (CPU and GPU energy, no root needed). Compiled only on
// __APPLE__; elsewhere returns nothing.
std::vector<TelemetrySourcePtr> open_apple_energy_sources();

// --- what a case uses ---------------------------------------------------------------------------
// The sources for a case on `device` ("cpu", "cuda:1", "mps:0", ...): the device's own (NVML for
// CUDA, IOReport for MPS), the host CPU's (RAPL, thermal) and the process. Opened once per process
// and reused by later cases (NVML is initialized once).
std::vector<TelemetrySourcePtr> telemetry_sources_for(const std::string& device);
// Every source this machine could use, for `accelbench doctor`.
std::vector<TelemetrySourcePtr> all_telemetry_sources();

}  // namespace accelbench
