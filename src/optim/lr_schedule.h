#pragma once
// A learning-rate schedule: linear warm-up to a peak, then constant, linear decay or cosine decay
// (cycling every `cycle_steps` steps, so that a benchmark of any length stays on the schedule).
// Evaluated on the host from the step count the task keeps; Adam passes the result to the fused
// kernel as a scalar argument, so a schedule adds no host-device synchronization to a step.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>

namespace accelbench {

struct LrSchedule {
  enum class Decay { constant, linear, cosine };
  double peak = 1e-3;
  // Linear warm-up: the k-th update (k = 1, 2, ...) uses peak * k / warmup_steps until k reaches
  // warmup_steps. With start_at_zero the k-th update uses peak * (k - 1) / warmup_steps, as
  // transformers' get_linear_schedule_with_warmup (its first update has learning rate 0).
  std::int64_t warmup_steps = 0;
  bool start_at_zero = false;
  Decay decay = Decay::constant;
  std::int64_t cycle_steps = 0;  // linear / cosine: the warm-up plus the decay; then again from 0

  // The learning rate of the k-th update (k >= 1).
  double lr_for_update(std::int64_t k) const {
    std::int64_t s = std::max<std::int64_t>(k - 1, 0);  // updates already taken
    if (decay != Decay::constant && cycle_steps > 0) s %= cycle_steps;
    const double w = static_cast<double>(warmup_steps);
    if (s < warmup_steps) return peak * (start_at_zero ? double(s) : double(s + 1)) / w;
    if (decay == Decay::constant || cycle_steps <= warmup_steps) return peak;
    const double progress = double(s - warmup_steps) / double(cycle_steps - warmup_steps);  // [0, 1)
    if (decay == Decay::linear) return peak * (1.0 - progress);
    return peak * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
  }

  std::string description() const {
    std::string d = fmt::format("lr {:g}", peak);
    if (warmup_steps > 0) d += fmt::format(", linear warm-up over {} step{}", warmup_steps, warmup_steps == 1 ? "" : "s");
    if (decay == Decay::linear) d += fmt::format(", linear decay to 0 at step {}", cycle_steps);
    if (decay == Decay::cosine) d += fmt::format(", cosine decay to 0 at step {}", cycle_steps);
    if (decay != Decay::constant) d += " (cycled)";
    return d;
  }
};

}  // namespace accelbench
