#include "telemetry/energy_window.h"

#include <fmt/format.h>

namespace accelbench {

std::optional<double> counter_update_period_s(std::span<const CounterReading> readings) {
  std::optional<double> first_change_t, last_change_t;
  std::size_t changes = 0;
  for (std::size_t k = 1; k < readings.size(); ++k) {
    if (readings[k].energy_j == readings[k - 1].energy_j) continue;
    if (!first_change_t) first_change_t = readings[k].t_s;
    last_change_t = readings[k].t_s;
    ++changes;
  }
  const bool enough_changes = changes >= 3;
  if (!enough_changes || !(*last_change_t > *first_change_t)) return std::nullopt;
  return (*last_change_t - *first_change_t) / static_cast<double>(changes - 1);
}

double min_energy_window_s(double update_period_s, double k) { return k * update_period_s; }

std::optional<double> min_energy_window_s(std::span<const CounterReading> readings, double k) {
  const auto period = counter_update_period_s(readings);
  if (!period) return std::nullopt;
  return min_energy_window_s(*period, k);
}

WindowEnergy choose_window_energy(const WindowEnergyInput& in) {
  WindowEnergy out;
  const bool has_integral = in.power_integral_j.has_value();
  auto use_integral = [&](std::string why) {
    out.energy_j = in.power_integral_j;
    out.method = "power integral";
    out.note = std::move(why);
  };
  if (!in.counter_j) {
    if (has_integral) use_integral("");
    return out;
  }
  const bool period_known = in.update_period_s.has_value();
  const bool window_long_enough = period_known && in.window_s >= min_energy_window_s(*in.update_period_s, in.k);
  if (period_known && !window_long_enough) {
    const auto why = fmt::format("the window ({:.3g} s) is shorter than {:g} update periods of the counter ({:.3g} s "
                                 "each): it must last at least {:.3g} s for the counter",
                                 in.window_s, in.k, *in.update_period_s, min_energy_window_s(*in.update_period_s, in.k));
    if (has_integral) use_integral(why + "; the integral of the power readings is used");
    else out.note = why + "; no power readings to integrate instead";
    return out;
  }
  if (!period_known && has_integral) {
    use_integral("the counter changed fewer than 3 times: its update period is unknown; the integral of the power "
                 "readings is used");
    return out;
  }
  out.energy_j = in.counter_j;
  out.method = "counter";
  if (!period_known) out.note = "the counter's update period is unknown (fewer than 3 changes)";
  const double counter_mean_w = in.window_s > 0 ? *in.counter_j / in.window_s : 0;
  const bool mean_above_peak =
      in.peak_power_w && in.window_s > 0 && counter_mean_w > *in.peak_power_w * (1 + kMeanAbovePeakTolerance);
  if (mean_above_peak) {
    const auto why = fmt::format("the counter's mean power ({:.1f} W) exceeds the highest reading ({:.1f} W): its "
                                 "updates do not line up with the window",
                                 counter_mean_w, *in.peak_power_w);
    if (has_integral) use_integral(why + "; the integral of the power readings is used");
    else out.note = why + "; kept, no power readings to integrate instead";
  }
  return out;
}

}  // namespace accelbench
