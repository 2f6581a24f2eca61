#pragma once
// How long an energy window must be for its energy counter, and which energy figure a window gets.
//
// An energy counter (NVML's total energy, RAPL, IOReport) does not move continuously: it jumps
// once per update period (about a millisecond for RAPL; up to ~100 ms for some NVML devices). Its
// value at a window's edge is up to one period old, so its difference over a window can be off by
// up to one period's energy at each end: over a 0.5 s window and a 100 ms counter that is up to
// +-40%, and the mean power came out above every power reading (644.9 W against a 582.5 W peak on
// an H200). The rules here:
//   - the update period is found from the readings (the times at which the value changes);
//   - a counter's difference is never divided by a window shorter than kMinCounterUpdatePeriods
//     update periods (the error is then at most 2 / k of the window's energy, and far less on
//     average); shorter windows use the trapezoid integral of the power readings, or, with none,
//     have no energy and say how long the window must be;
//   - a window's mean power never exceeds its highest power reading: when the counter's mean would,
//     the integral of the readings is used (and the reason stated); without one, the figure is kept
//     and the conflict stated.
// No torch; pure functions, the sampler's summary (telemetry/sampler.cpp) applies them per channel.
#include <optional>
#include <span>
#include <string>

namespace accelbench {

inline constexpr double kMinCounterUpdatePeriods = 4.0;
// A counter's mean may exceed the highest reading by this fraction before it counts as misaligned:
// the readings' own timing (each stamped at the middle of its reads) accounts for that much. The
// summary's headline mean power is capped at the highest reading without any tolerance.
inline constexpr double kMeanAbovePeakTolerance = 0.01;

struct CounterReading {
  double t_s = 0;       // when it was read
  double energy_j = 0;  // the counter's value
};

// The counter's update period: the time between the first and the last reading at which its value
// changed, divided by the number of changes in between (a mean, so that a period that is not a
// multiple of the sampling interval still comes out right). nullopt with fewer than three changes.
// When every reading changes, this is the sampling interval: an upper bound of the true period.
std::optional<double> counter_update_period_s(std::span<const CounterReading> readings);

// The shortest window whose counter difference may be divided by its length: k update periods.
double min_energy_window_s(double update_period_s, double k = kMinCounterUpdatePeriods);
// The same from readings taken so far (for the runner: keep stepping at least this long after
// marking the window's beginning). nullopt while the period is unknown (fewer than three changes).
std::optional<double> min_energy_window_s(std::span<const CounterReading> readings, double k = kMinCounterUpdatePeriods);

// The window's energy from what a channel offers.
struct WindowEnergyInput {
  double window_s = 0;
  std::optional<double> counter_j;          // the counter's difference over the window
  std::optional<double> power_integral_j;   // trapezoid integral of the power readings
  std::optional<double> update_period_s;    // counter_update_period_s of the counter
  std::optional<double> peak_power_w;       // the highest power reading in the window
  double k = kMinCounterUpdatePeriods;
};
struct WindowEnergy {
  std::optional<double> energy_j;
  std::string method;  // "counter" | "power integral" | "" (none)
  std::string note;    // why the counter was not used, or a conflict left standing; empty when none
};
WindowEnergy choose_window_energy(const WindowEnergyInput& in);

}  // namespace accelbench
