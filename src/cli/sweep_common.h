#pragma once
// What every `accelbench sweep` command shares: the flags (model, device, the case, the workload's
// inputs, the timing, the output), their checks, and the environment its driver runs in (the
// measurer, the printers, the history). The loops are in src/drivers/*_sweep.cpp; each
// sweep_<kind>_command.cpp keeps its own flags and a call into its driver.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cli/common_options.h"
#include "cli/python_cases.h"
#include "core/measurement.h"
#include "core/options.h"
#include "core/results.h"
#include "drivers/sweep_runner.h"

namespace CLI {
class App;
}

namespace accelbench {

class FanOutPrinter;
class HistoryStore;

struct SweepCommonOptions {
  std::string model;
  std::string device;
  std::string dtype = "float32";
  std::int64_t batch_size = 64;     // the sweeps over something else than the batch
  int threads = 0;
  std::int64_t width = 0;
  bool checkpoint = false;
  bool graphs = false;       // --graphs (sweeps with a device)
  WorkloadInputs inputs;
  TimingFlags timing{0.02, 10, "0.5s", "1m", "5m", "1ms", false};
  std::string json_path;
  std::string db_path;
  bool no_save = false;
  bool quick = false;               // --quick: kQuickSweep* below unless given
  PythonFlags python;               // --impl, --python, --py-optimizer, --compile (kSweepPythonOption)
};

// --quick on a sweep: +-5% target, 5 samples, 0.2 s minimum, 10 s per point, 1 minute budget (each
// only where its flag is not given), as run --quick does per case.
inline constexpr double kQuickCiTarget = 0.05;
inline constexpr std::size_t kQuickMinSamples = 5;
inline constexpr double kQuickMinTimeS = 0.2;
inline constexpr double kQuickMaxPerPointS = 10;
inline constexpr double kQuickBudgetS = 60;

// Which of the common options a sweep offers (the one it sweeps is left out).
enum SweepOptionSet : unsigned {
  kSweepBatchOption = 1u << 0,
  kSweepDtypeOption = 1u << 1,
  kSweepThreadsOption = 1u << 2,
  kSweepDeviceOption = 1u << 3,
  kSweepPythonOption = 1u << 4,  // the Python measurer's flags: every point as the Python twin
};
void add_common_sweep_options(CLI::App* cmd, SweepCommonOptions& o, unsigned set);

// The checked common options, and what the driver runs with. Throws UsageError (one line) on bad
// input, before anything runs.
struct SweepSetup {
  CaseSpec base;                    // model, device (canonical id), precision, batch, threads, width, checkpoint
  MeasureOptions measure;           // settings.stopping.max_time_s: the per-point maximum
  double max_per_point_s = 60;
  double budget_s = 0;              // 0: none
  nlohmann::json settings;          // every common option, for the run's context
  std::unique_ptr<HistoryStore> store;
  std::unique_ptr<CaseMeasurer> measurer;   // each round: in this process unless the command sets another
  int rounds = 1;                           // --rounds: each point in this many rounds (drivers/rounds.h)
  std::unique_ptr<CaseMeasurer> by_rounds;  // the rounds over `measurer`, made by sweep_environment
  std::unique_ptr<ParityTrainer> parity;
  std::unique_ptr<FanOutPrinter> printer;   // the terminal (per-point lines) and --json
  PythonSetup python;                       // active: the points are the Python twin's (the worker measures them)
  SweepSetup();
  ~SweepSetup();
  SweepSetup(SweepSetup&&) noexcept;
};
SweepSetup prepare_sweep(const SweepCommonOptions& o, const CLI::App& cmd, unsigned set, const std::string& kind);

// The devices a sweep with --device measures, one sweep each, in turn: --device as given (one, a
// comma list or 'all'), else every device as `run` measures them (the CPU and each accelerator;
// `accelerators_only`: each accelerator, UsageError when there is none). `sweep_one` runs with
// o.device set to each; the worst exit code is returned. --json holds one sweep: with several
// devices it is refused (UsageError), before anything is measured. In sweep_command.cpp.
int sweep_each_device(SweepCommonOptions& o, bool accelerators_only, const std::function<int()>& sweep_one);

// The driver's environment: the run's context collected now (with s.settings as they stand).
SweepEnvironment sweep_environment(SweepSetup& s, const std::string& command);

}  // namespace accelbench
