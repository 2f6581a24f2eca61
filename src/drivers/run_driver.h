#pragma once
// `accelbench run` once its flags are checked, stage by stage (docs/architecture.md): the history
// as it was before this run; the time promises said before measuring (each case's step time from
// that history, or one step timed now, and the cases that cannot fit their share); the suite
// measured (drivers/suite.h); then the stages after measuring: the next run's range of each case
// (analysis/run_to_run: that history and this run's rounds), the utilisation (core/utilisation:
// the ceilings `accelbench peak` stored), the JSON document, the run stored (drivers/stored_run.h,
// the step the sweeps end with too), and the tables. The command line parses the flags and makes
// the printers. No torch here: the probe of one step is given.
#include <functional>
#include <string>

#include "core/measurement.h"
#include "core/options.h"
#include "core/results.h"
#include "drivers/suite.h"
#include "report/printer.h"

namespace accelbench {

class HistoryStore;

// What `run` measures and how much it says.
struct RunDriverRequest {
  SuiteRequest suite;       // the probes' time comes out of its budget
  int rounds = 1;           // rounds planned for each case (the time promises count their steps)
  Verbosity verbosity = Verbosity::kNormal;
  std::string json_path;    // --json ("": none), named where the history does not store the run
};

// What measures, where the events go, where the run is stored.
struct RunServices {
  CaseMeasurer* each_round = nullptr;  // one round of a case (drivers/rounds.h)
  ParityTrainer* parity = nullptr;
  // Seconds of one training step of the case, timed now (engine::probe_step_s). What it throws is
  // passed over: the measurement meets the cause again and says so.
  std::function<double(const CaseSpec&, const WorkloadInputs&)> probe_step;
  Printer* printer = nullptr;
  TerminalPrinter* terminal = nullptr;  // its closing text: the Summary
  HistoryStore* store = nullptr;        // nullptr: no history read, the run not stored (--no-save)
};

// Measures `run` (its context already sent to the printer) and reports it. Returns the exit status:
// 1 where a case failed or the history did not store the run, else 0.
int drive_run(RunDriverRequest request, RunResult& run, const RunServices& services);

}  // namespace accelbench
