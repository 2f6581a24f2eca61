#include "core/plan.h"

#include <algorithm>

namespace accelbench {

Plan make_plan(const PlanRequest& req) {
  Plan p;
  std::vector<std::string> order;
  for (const auto& d : req.devices)
    if (d != "cpu") order.push_back(d);
  if (std::find(req.devices.begin(), req.devices.end(), "cpu") != req.devices.end()) order.push_back("cpu");
  for (const auto& m : req.models)
    for (const auto& t : req.dtypes)
      for (const auto& d : order) p.cases.push_back(CaseSpec{m, d, t, req.batch_size, req.threads, req.width, req.checkpoint});
  return p;
}

double BudgetScheduler::next_allowance() const {
  if (budget_s_ <= 0) return max_per_case_s_;
  const double left = std::max(0.0, budget_s_ - spent_s_);
  const double share = left / static_cast<double>(std::max<std::size_t>(1, remaining_cases_));
  return std::min(max_per_case_s_, share);
}

void BudgetScheduler::finished_case(double wall_s) {
  spent_s_ += wall_s;
  if (remaining_cases_ > 0) --remaining_cases_;
}

}  // namespace accelbench
