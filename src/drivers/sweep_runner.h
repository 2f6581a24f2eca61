#pragma once
// The loop every sweep shares (src/drivers/{batch,precision,setting,crossover}_sweep.cpp drive it):
// each point's time from the budget (BudgetScheduler), its case measured through the CaseMeasurer
// seam (in this process, in a child process, or a fake in the tests), the printer's events, the
// case appended to the run, the document (run + "sweep" block) streamed after each point so that an
// interrupted sweep keeps what it measured, and at the end the final document stored in the history
// and the report. No torch here; no output but the printer's events.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>

#include "core/measurement.h"
#include "core/results.h"
#include "core/sweep_records.h"

namespace accelbench {

class HistoryStore;
class Printer;

// What every sweep is given: the run's context (collected by the caller), the time limits, the
// measurement, where events go, and the history (nullptr: not stored).
struct SweepEnvironment {
  std::string command;               // "sweep batch"
  RunContext context;
  double budget_s = 0;               // 0: none
  double max_per_point_s = 60;
  CaseMeasurer* measurer = nullptr;
  ParityTrainer* parity = nullptr;   // the precision sweep's parity runs
  Printer* printer = nullptr;
  HistoryStore* store = nullptr;
};

class SweepRunner {
 public:
  // Sends the context to the printer (its warnings come first).
  explicit SweepRunner(const SweepEnvironment& env);

  Printer& printer() { return *printer_; }
  const RunResult& run() const { return run_; }
  RunResult& run() { return run_; }
  double spent_s() const { return spent_s_; }
  // False when the history could not store the sweep (the report and --json still hold it).
  bool stored() const { return !not_stored_; }

  // What the next point may take: the budget left shared among `points_left` (this one included),
  // capped by the per-point maximum; the maximum when there is no budget.
  double allowance(std::size_t points_left) const;
  // "time budget 5m (at most 1m a point)" or "at most 1m a point", for the plan line.
  std::string budget_text() const;

  // Measures one case: case_started with `label` at point `index`, then the measurer with the
  // allowance as the case's time limit. Its wall time counts against the budget. Not appended yet.
  CaseResult measure(std::size_t index, const CaseSpec& spec, MeasureOptions options, std::size_t points_left,
                     const std::string& label);

  // Appends a measured case; the document, with the sweep block `sweep` makes from the run as it
  // now stands, to the printer.
  void add(CaseResult result, const std::function<nlohmann::json(const RunResult&)>& sweep);

  // The final document ("finished": true) to the printer, stored in the history (its reference as
  // a note); returns it.
  nlohmann::json finish(nlohmann::json sweep);

  // The report's end: `report` (header, table, best), the noisy note, the advice on `document`,
  // then the printer's finished event.
  void report(const nlohmann::json& document, const std::string& report);

 private:
  double budget_s_, max_per_point_s_;
  CaseMeasurer* measurer_;
  Printer* printer_;
  HistoryStore* store_;
  RunResult run_;
  double start_s_;
  double spent_s_ = 0;
  bool not_stored_ = false;
  nlohmann::json document(const nlohmann::json& sweep) const;
};

// What a sweep driver gives back: the run as measured, the final document, the exit status.
struct SweepOutcome {
  RunResult run;
  nlohmann::json document;
  int exit_code = 0;
};

}  // namespace accelbench
