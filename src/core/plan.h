#pragma once
// The Plan: which cases to measure, in which order, and how the time budget is shared.
#include <string>
#include <vector>

#include "core/results.h"

namespace accelbench {

struct PlanRequest {
  std::vector<std::string> models;
  std::vector<std::string> devices;  // canonical ids ("cpu", "cuda:0")
  std::int64_t batch_size = 64;
  int threads = 0;
  std::vector<std::string> dtypes{"float32"};
  std::int64_t width = 0;      // mlp hidden width (0: its own)
  bool checkpoint = false;     // gradient checkpointing (transformer, bert-base)
  // --graphs: the devices (of `devices`) that also get a graphs case right after each eager one.
  std::vector<std::string> graph_devices;
};

struct Plan {
  std::vector<CaseSpec> cases;
};

// Per model in the order asked, accelerators first and the CPU last: the quick cases finish
// early and leave their unused time to the slow CPU cases.
Plan make_plan(const PlanRequest& request);

// Shares a wall-clock budget among the cases: each case may use what is left divided by the
// cases still to run (capped by the per-case maximum), so time a quick case does not need flows
// to the cases after it. A budget of 0 means none: every case gets the per-case maximum.
// A case's share of a time budget: what is left of `budget_s` after `spent_s`, shared equally among
// `cases_left` cases, at most `max_per_case_s` (no budget, `budget_s` <= 0: `max_per_case_s`).
double budget_share(double budget_s, double max_per_case_s, double spent_s, std::size_t cases_left);

class BudgetScheduler {
 public:
  BudgetScheduler(double budget_s, double max_per_case_s, std::size_t cases)
      : budget_s_(budget_s), max_per_case_s_(max_per_case_s), remaining_cases_(cases) {}
  double next_allowance() const;
  void finished_case(double wall_s);
  double spent_s() const { return spent_s_; }
  double budget_s() const { return budget_s_; }

 private:
  double budget_s_, max_per_case_s_;
  std::size_t remaining_cases_;
  double spent_s_ = 0;
};

}  // namespace accelbench
