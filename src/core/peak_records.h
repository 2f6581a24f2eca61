#pragma once
// A device's ceilings, measured by `accelbench peak`: dense matmul FLOP/s per precision, memory
// bandwidth on the device, host<->device bandwidth (pinned and pageable), and the launch latency.
// Typed records, their JSON (schema accelbench.peak/1), their table and the one-line summary that
// `doctor` prints. No torch here: engine/peak_measurement.cpp measures them.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace accelbench {

// What a ceiling measures; its unit follows from it.
enum class CeilingKind {
  kMatmul,            // FLOP/s of a dense n x n x n matmul (2 n^3 FLOP), per precision
  kCopy,              // B/s of a copy on the device, read + write bytes (STREAM's copy convention)
  kHostToDevice,      // B/s, pinned or pageable host memory
  kDeviceToHost,      // B/s
  kLaunchRoundTrip,   // s per tiny op followed by a device synchronization
  kLaunchBackToBack,  // s per tiny op queued back to back (one synchronization per thousand)
};
std::string_view ceiling_kind_name(CeilingKind kind);  // "matmul", "copy", "host_to_device", ...
std::optional<CeilingKind> ceiling_kind_from_name(std::string_view name);
std::string_view ceiling_unit(CeilingKind kind);       // "FLOP/s", "B/s", "s"

struct Ceiling {
  CeilingKind kind = CeilingKind::kMatmul;
  std::string variant;      // the precision of a matmul ("bfloat16"), "pinned"/"pageable", else ""
  std::string size;         // what was measured, said in the output: "8192 x 8192 x 8192", "1.0 GiB"
  std::size_t samples = 0;  // 0: not measured (unavailable says why)
  double median = 0, ci_low = 0, ci_high = 0;  // in ceiling_unit(kind)
  std::string unavailable;  // why it was not measured ("this libtorch cannot pin host memory for mps")
  // A matmul's median is of bursts after idle pauses; `sustained` is the rate held over the second
  // half of sustained_s seconds back to back (lower where a power or thermal limit acts). Accelerators only.
  std::optional<double> sustained;
  double sustained_s = 0;
  // The best sample (the highest rate; the shortest time for a launch): the ceiling itself, what the
  // device reached over one whole sample. Interference only ever slows a sample down (STREAM reports
  // its best rate for the same reason). It does not make the host's own figures (pageable transfers,
  // launches, the CPU's) agree between processes: their host changes state for minutes (docs/peak.md).
  // 0 in records from before it was kept.
  double best = 0;
  std::vector<double> values;  // every sample, in the order taken (empty in older records)

  bool measured() const { return samples > 0; }
  // The ceiling: the best sample where it was kept, else the median.
  double value() const { return best > 0 ? best : median; }
  std::string label() const;  // "matmul bfloat16", "host to device (pinned)", "launch, round trip"
};

struct DeviceCeilings {
  std::string device;         // "cuda:0", "cpu"
  std::string device_name;    // "NVIDIA H200"
  std::string torch_version;  // "2.11.0"
  std::string host;
  std::string measured_utc;   // "2026-12-01T04:00:00Z"
  double wall_s = 0;          // how long the measurement took
  std::vector<Ceiling> ceilings;

  const Ceiling* find(CeilingKind kind, std::string_view variant = {}) const;  // a measured one, else null
};

// "793.4 TFLOP/s", "4.12 TB/s", "6.3 us": the value in its unit with a decimal prefix.
std::string format_ceiling_value(CeilingKind kind, double value);

nlohmann::json to_json(const DeviceCeilings& c);
// Throws UsageError (one line naming `origin` and the field) when the document is not a peak record.
DeviceCeilings ceilings_from_json(const nlohmann::json& j, const std::string& origin);

// Seconds between two "YYYY-MM-DDTHH:MM:SSZ" times (b - a); nullopt when either is not such a time.
std::optional<double> utc_seconds_between(const std::string& a, const std::string& b);
// Stored ceilings older than this are to be measured again (`doctor` says so).
inline constexpr double kCeilingsMaxAgeS = 30.0 * 24 * 3600;

}  // namespace accelbench
