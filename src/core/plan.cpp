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
      for (const auto& d : order) {
        const CaseSpec eager{m, d, t, req.batch_size, req.threads, req.width, req.checkpoint};
        p.cases.push_back(eager);
        if (std::find(req.graph_devices.begin(), req.graph_devices.end(), d) == req.graph_devices.end()) continue;
        auto graphs = eager;
        graphs.graphs = true;
        p.cases.push_back(graphs);
      }
  return p;
}

double budget_share(double budget_s, double max_per_case_s, double spent_s, std::size_t cases_left) {
  if (budget_s <= 0) return max_per_case_s;
  const double left = std::max(0.0, budget_s - spent_s);
  return std::min(max_per_case_s, left / static_cast<double>(std::max<std::size_t>(1, cases_left)));
}

double BudgetScheduler::next_allowance() const {
  return budget_share(budget_s_, max_per_case_s_, spent_s_, remaining_cases_);
}

void BudgetScheduler::finished_case(double wall_s) {
  spent_s_ += wall_s;
  if (remaining_cases_ > 0) --remaining_cases_;
}

}  // namespace accelbench
