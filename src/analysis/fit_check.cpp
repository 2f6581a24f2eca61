#include "analysis/fit_check.h"

#include <fmt/format.h>

#include "core/durations.h"

namespace accelbench {

std::vector<std::string> cases_that_cannot_fit(const std::vector<CaseSpec>& cases, const std::vector<CaseHistoryPoint>& history,
                                               double share_s, std::size_t steps_needed) {
  std::vector<std::string> out;
  if (share_s <= 0) return out;
  for (const auto& c : cases) {
    const CaseHistoryPoint* last = nullptr;  // history is oldest first: the last match is the newest
    for (const auto& p : history)
      if (p.workload == c.workload && p.device == c.device && p.dtype == c.dtype && p.batch_size == c.batch_size) last = &p;
    if (!last || last->median <= 0) continue;
    const double need = last->median * static_cast<double>(steps_needed);
    if (need <= share_s) continue;
    out.push_back(fmt::format("{} on {} ({}, batch {}) cannot fit: a step took {} in run {}, and its {} steps (warm-up and "
                              "minimum samples, every round) need ~{}, more than its {} share: it will measure fewer "
                              "samples and be marked noisy; give it the time with --max-time-per-case or --budget",
                              model_label(c), c.device, c.dtype, c.batch_size, format_seconds_short(last->median),
                              last->run_id, steps_needed, format_duration(need), format_duration(share_s)));
  }
  return out;
}

}  // namespace accelbench
