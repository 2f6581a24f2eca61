#include "analysis/fit_check.h"

#include <fmt/format.h>

#include "core/durations.h"

namespace accelbench {

namespace {
bool same_case(const CaseHistoryPoint& p, const CaseSpec& c) {
  return p.is_case(c);
}
const CaseHistoryPoint* newest_of(const CaseSpec& c, const std::vector<CaseHistoryPoint>& history) {
  const CaseHistoryPoint* last = nullptr;  // history is oldest first: the last match is the newest
  for (const auto& p : history)
    if (same_case(p, c) && p.median > 0) last = &p;
  return last;
}
}  // namespace

std::vector<CaseSpec> cases_without_history(const std::vector<CaseSpec>& cases, const std::vector<CaseHistoryPoint>& history) {
  std::vector<CaseSpec> out;
  for (const auto& c : cases)
    if (!newest_of(c, history)) out.push_back(c);
  return out;
}

std::vector<std::string> cases_that_cannot_fit(const std::vector<CaseSpec>& cases, const std::vector<CaseHistoryPoint>& history,
                                               double share_s, std::size_t steps_needed, const std::vector<ProbedStep>& probed) {
  std::vector<std::string> out;
  if (share_s <= 0) return out;
  for (const auto& c : cases) {
    double step_s = 0;
    std::string where;
    if (const auto* last = newest_of(c, history)) {
      step_s = last->median;
      where = fmt::format("in run {}", last->run_id);
    } else {
      for (const auto& p : probed)
        if (p.spec.workload == c.workload && p.spec.impl == c.impl && p.spec.device == c.device && p.spec.dtype == c.dtype &&
            p.spec.batch_size == c.batch_size && p.step_s > 0)
          step_s = p.step_s, where = "in a probe before measuring";
    }
    if (step_s <= 0) continue;
    const double need = step_s * static_cast<double>(steps_needed);
    if (need <= share_s) continue;
    out.push_back(fmt::format("{} on {} ({}, batch {}) cannot fit: a step took {} {}, and its {} steps (warm-up and "
                              "minimum samples, every round) need ~{}, more than its {} share: it will measure fewer "
                              "samples and be marked noisy; give it the time with --max-time-per-case or --budget",
                              model_label(c), c.device, c.dtype, c.batch_size, format_seconds_short(step_s), where,
                              steps_needed, format_duration(need), format_duration(share_s)));
  }
  return out;
}

}  // namespace accelbench
