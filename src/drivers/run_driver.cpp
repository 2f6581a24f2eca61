#include "drivers/run_driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "analysis/fit_check.h"
#include "analysis/run_to_run.h"
#include "core/durations.h"
#include "core/plan.h"
#include "core/utilisation.h"
#include "drivers/stored_run.h"
#include "report/terminal_table.h"
#include "store/history_store.h"

namespace accelbench {

namespace {

// The advice items after a run (the most useful first); `accelbench advise` gives them all.
constexpr std::size_t kAdviceAfterARun = 5;

// Time promises, said before measuring: each case's step time from the history, or for a case new
// to it, from one step measured now (its time comes out of the budget); the cases that cannot fit
// their share. Returns the time the probes took.
double promise_times(RunDriverRequest& request, const std::vector<CaseHistoryPoint>& history, const RunServices& services) {
  auto& printer = *services.printer;
  auto& suite = request.suite;
  const auto& cases = suite.plan.cases;
  std::vector<ProbedStep> probed;
  auto unseen = cases_without_history(cases, history);
  std::erase_if(unseen, [](const CaseSpec& c) { return is_python(c); });  // the C++ step says nothing of the Python loop's
  const auto probe_start = std::chrono::steady_clock::now();
  const auto probing_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - probe_start).count(); };
  for (std::size_t k = 0; k < unseen.size(); ++k) {
    const auto& c = unseen[k];
    // On the progress line: one step of each new case, before the rounds (their count is not known yet).
    const double elapsed = probing_s();
    printer.progress({k, unseen.size()}, ProgressEvent{&c, "one step timed first", 0, 0, 0, 0}, elapsed,
                     std::max(0.0, suite.budget_s - elapsed));
    try {
      probed.push_back({c, services.probe_step(c, suite.options.inputs)});
    } catch (const std::exception&) {  // the measurement will meet it again and say so
    }
  }
  double probe_s = 0;
  if (!unseen.empty()) {
    probe_s = probing_s();
    if (suite.budget_s > 0) suite.budget_s = std::max(1e-3, suite.budget_s - probe_s);
    printer.note(fmt::format("one step of each case new to the history timed first ({} of {}, {}; counted in the budget)",
                             unseen.size(), cases.size(), format_duration(probe_s)));
  }
  const auto& st = suite.options.settings;
  const auto steps = (st.min_warmup_steps + st.stopping.min_samples) * static_cast<std::size_t>(request.rounds);
  const double share = budget_share(suite.budget_s, suite.max_per_case_s, 0, cases.size());
  for (const auto& line : cases_that_cannot_fit(cases, history, share, steps, probed)) printer.note(line);
  return probe_s;
}

// Earlier runs of the same cases (none with --no-save) and the prior: where they vary more than
// this run's rounds, the interval is theirs (said in the column's name; the paragraph with --verbose).
void apply_next_run_ranges(RunResult& run, const std::vector<CaseHistoryPoint>& history, Verbosity verbosity, Printer& printer) {
  if (apply_run_to_run(run, history) > 0 && verbosity == Verbosity::kVerbose) printer.note(run_to_run_note(run));
}

// Utilisation per case from the ceilings `accelbench peak` stored for each device and this torch; a
// device without them is named once, with the command that measures them.
void add_utilisation(RunResult& run, const HistoryStore& store, Printer& printer) {
  for (const auto& d : run.context.devices) {
    bool used = false;
    std::optional<DeviceCeilings> ceilings;
    try {
      ceilings = store.latest_ceilings(d.name, run.context.torch_version);
    } catch (const std::exception& e) {  // a damaged row or database: the run is kept, without utilisation
      printer.note(fmt::format("no utilisation for {}: {}", d.id, e.what()));
      continue;
    }
    for (auto& c : run.cases) {
      if (c.spec.device != d.id) continue;
      used = true;
      if (ceilings) apply_ceilings(c, *ceilings);
    }
    if (used && !ceilings)
      printer.note(fmt::format("no ceilings of {} for torch {} in the history, so no utilisation: `accelbench peak "
                               "--device {}` measures them once",
                               d.id, run.context.torch_version, d.id));
  }
}

// The tables on stdout, the Summary after them and the notes.
void print_run_tables(const RunResult& run, Verbosity verbosity, TerminalPrinter& terminal, Printer& printer) {
  terminal.set_closing(render_run_summary(run));
  const TerminalReportOptions report{.answer_first = verbosity != Verbosity::kVerbose,
                                     .quiet = verbosity == Verbosity::kQuiet,
                                     .max_advice = verbosity == Verbosity::kVerbose ? 0 : kAdviceAfterARun};
  printer.finished(run, render_terminal_report(run, report));
}

}  // namespace

int drive_run(RunDriverRequest request, RunResult& run, const RunServices& services) {
  auto& printer = *services.printer;
  // The history as it was before this run: the time promises and the run-to-run spread read it.
  const auto history = services.store ? services.store->case_history() : std::vector<CaseHistoryPoint>{};
  const double probe_s = promise_times(request, history, services);
  // Each case in interleaved rounds (fresh processes by default): the interval covers the next run.
  const int failures = run_suite(request.suite, run, *services.each_round, *services.parity, printer);
  run.wall_s += probe_s;  // "done in" and the stored wall time include the probes
  apply_next_run_ranges(run, history, request.verbosity, printer);
  if (services.store) add_utilisation(run, *services.store, printer);
  printer.document(nlohmann::json(run));  // --json with the run-to-run intervals, the utilisation (and the probes' time)
  const auto held_by = request.json_path.empty() ? "the tables still hold the run"
                                                 : fmt::format("the tables and {} still hold the run", request.json_path);
  const bool stored = store_and_note(services.store, run, nullptr, printer, held_by);
  print_run_tables(run, request.verbosity, *services.terminal, printer);
  return failures || !stored ? 1 : 0;
}

}  // namespace accelbench
