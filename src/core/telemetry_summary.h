#pragma once
// What telemetry says about one case: energy, power, temperature, clocks and memory during the
// measured window (the timed training steps), each figure with its source, or "unavailable: ..."
// with the reason. The records and their JSON (core/telemetry_json.cpp, compiled into the telemetry
// library, which fills them: src/telemetry/sampler.h). No torch here.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/t_distribution.h"  // t_quantile_95 for the power's batch means

namespace accelbench {

inline constexpr double kDefaultTelemetryHz = 20.0;
inline constexpr std::size_t kDefaultSeriesPoints = 200;

// A figure: a value with where it came from, or why there is none. Never 0 for "unknown".
struct TelemetryFigure {
  std::optional<double> value;
  std::string source;       // e.g. "nvml:0 nvmlDeviceGetTotalEnergyConsumption (mJ counter)"
  std::string unavailable;  // "unavailable: <reason>" when there is no value

  static TelemetryFigure of(double v, std::string source) { return {v, std::move(source), {}}; }
  static TelemetryFigure none(const std::string& reason) { return {std::nullopt, {}, "unavailable: " + reason}; }
  bool available() const { return value.has_value(); }
};

// One source over the window.
struct TelemetryChannel {
  std::string source;       // "nvml:0", "rapl:package-0", "linux-thermal", "process"
  std::string role;         // "accelerator" | "cpu" | "process"
  std::string description;
  std::map<std::string, std::string> figures;  // figure -> origin, or "unavailable: <reason>"
  std::size_t samples = 0;  // readings inside the window (the two boundary readings included)
  // Energy two ways, when the source allows: the counter's difference between the window's
  // boundaries, and the trapezoid integral of the sampled power. `energy_method` says which one
  // energy_j is ("counter" preferred).
  // The counter is used only when the window lasts >= kMinCounterUpdatePeriods of its updates and
  // its mean power stays under the highest reading (telemetry/energy_window.h); `energy_note` says
  // why it was not, and `energy_update_period_s` is the update period found from the readings.
  std::optional<double> energy_j, energy_counter_j, power_integral_j;
  std::string energy_method;
  std::optional<double> energy_update_period_s;
  std::string energy_note;
  std::optional<double> mean_power_w, peak_power_w;
  std::optional<double> max_temperature_c;
  std::optional<double> mean_clock_mhz, min_clock_mhz, max_clock_mhz;
  std::optional<double> peak_memory_bytes;
  std::size_t throttled_samples = 0;
  std::vector<std::string> throttle_reasons;
};

// Decimated time series over the whole sampled span (warm-up included), at most
// kDefaultSeriesPoints points: each point is the mean of the readings in its bucket (temperature and
// memory: the maximum; throttled: whether any reading in the bucket was).
struct TelemetrySeries {
  std::vector<double> t_s;  // seconds since the sampler started
  // channel -> figure ("power_w", "temperature_c", "clock_mhz", "memory_bytes", "throttled") -> values
  std::map<std::string, std::map<std::string, std::vector<std::optional<double>>>> channels;
};

// The time and energy of a full training run predicted from the measured window.
struct TrainingPrediction {
  int epochs = 0;
  double steps_per_epoch = 0;
  double total_steps = 0;
  // time = total steps x mean step time (a sum of steps follows the mean, not the median), with the
  // 95% CI of the mean.
  double time_s = 0, time_low_s = 0, time_high_s = 0;
  // energy = total steps x energy per step; its interval combines the step time's CI with the
  // window's power variation (batch means), in quadrature. It excludes the source's own accuracy.
  TelemetryFigure energy_j;
  std::optional<double> energy_low_j, energy_high_j;
  std::string method;
};

struct TelemetrySummary {
  double sample_hz = 0;
  double window_begin_s = 0, window_end_s = 0, window_s = 0;  // since the sampler started
  std::int64_t steps = 0;                                      // training steps inside the window
  double steps_per_epoch = 0;
  std::string device_role;  // whose energy the headline figures are: "accelerator" or "cpu"
  // Headline figures for the measured device.
  TelemetryFigure energy_j, energy_per_step_j, energy_per_epoch_j;
  TelemetryFigure mean_power_w, peak_power_w, max_temperature_c, mean_clock_mhz, peak_memory_bytes;
  // The host CPU's energy during an accelerator case (RAPL): the rest of the machine's bill.
  TelemetryFigure host_energy_j;
  // How energy_j was found: "counter", "power integral" or both joined with " + " (several channels);
  // the slowest counter's update period and the shortest window it allows (k periods); the notes of
  // channels that fell back from their counter, and of a mean power capped at the highest reading.
  std::string energy_method;
  std::optional<double> energy_update_period_s, min_energy_window_s;
  std::string energy_note;
  std::size_t samples = 0;            // readings inside the window
  std::size_t throttled_samples = 0;  // of the device's (or, for a CPU case, the CPU's) readings
  bool throttled = false;
  std::vector<std::string> throttle_reasons;
  std::vector<TelemetryChannel> channels;             // available sources
  std::map<std::string, std::string> unavailable;     // source -> "unavailable: <reason>"
  TelemetrySeries series;
  std::optional<TrainingPrediction> prediction;
};

void to_json(nlohmann::json& j, const TelemetryFigure& v);
void from_json(const nlohmann::json& j, TelemetryFigure& v);
void to_json(nlohmann::json& j, const TelemetryChannel& v);
void from_json(const nlohmann::json& j, TelemetryChannel& v);
void to_json(nlohmann::json& j, const TelemetrySeries& v);
void from_json(const nlohmann::json& j, TelemetrySeries& v);
void to_json(nlohmann::json& j, const TrainingPrediction& v);
void from_json(const nlohmann::json& j, TrainingPrediction& v);
void to_json(nlohmann::json& j, const TelemetrySummary& v);
void from_json(const nlohmann::json& j, TelemetrySummary& v);

}  // namespace accelbench
