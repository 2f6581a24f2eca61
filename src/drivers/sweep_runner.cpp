#include "drivers/sweep_runner.h"

#include <fmt/format.h>

#include <chrono>

#include "core/plan.h"
#include "core/durations.h"
#include "drivers/stored_run.h"
#include "report/printer.h"
#include "report/sweep_tables.h"

namespace accelbench {

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

SweepRunner::SweepRunner(const SweepEnvironment& env)
    : budget_s_(env.budget_s),
      max_per_point_s_(env.max_per_point_s),
      measurer_(env.measurer),
      printer_(env.printer),
      store_(env.store),
      start_s_(now_s()) {
  run_.command = env.command;
  run_.context = env.context;
  printer_->context(run_.context);
}

double SweepRunner::allowance(std::size_t points_left) const {
  // The `points_left` still to run (this one included) share what is left. (A batch sweep learns
  // how many points are left only as it goes, so the count is given each time.)
  return budget_share(budget_s_, max_per_point_s_, spent_s_, points_left);
}

std::string SweepRunner::budget_text() const {
  return budget_s_ > 0 ? fmt::format("time budget {} (at most {} a point)", format_duration(budget_s_), format_duration(max_per_point_s_))
                       : fmt::format("at most {} a point", format_duration(max_per_point_s_));
}

CaseResult SweepRunner::measure(std::size_t index, const CaseSpec& spec, MeasureOptions options, std::size_t points_left,
                                const std::string& label) {
  const CasePosition at{index, 0};
  options.settings.stopping.max_time_s = allowance(points_left);
  printer_->case_started(at, spec, label);
  const double allowed = options.settings.stopping.max_time_s;
  auto result = measurer_->measure(spec, options, [&](const ProgressEvent& e) {
    printer_->progress(at, e, now_s() - start_s_, std::max(0.0, allowed - e.case_elapsed_s));
  });
  spent_s_ += result.wall_s;
  return result;
}

nlohmann::json SweepRunner::document(const nlohmann::json& sweep) const {
  nlohmann::json doc = run_;
  doc["sweep"] = sweep;
  return doc;
}

void SweepRunner::add(CaseResult result, const std::function<nlohmann::json(const RunResult&)>& sweep) {
  run_.cases.push_back(std::move(result));
  run_.wall_s = now_s() - start_s_;
  printer_->document(document(sweep(run_)));  // each point as soon as it is measured
}

nlohmann::json SweepRunner::finish(nlohmann::json sweep) {
  run_.wall_s = now_s() - start_s_;
  sweep["finished"] = true;
  const auto doc = document(sweep);
  printer_->document(doc);
  not_stored_ = !store_and_note(store_, run_, &doc, *printer_, "the report below still holds the sweep");
  return doc;
}

void SweepRunner::report(const nlohmann::json& document, const std::string& report) {
  printer_->finished(run_, report + sweep_report_ending(run_, document));
}

}  // namespace accelbench
