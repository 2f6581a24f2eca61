#pragma once
// `accelbench run`'s flags as typed, and their check into the suite driver's request (every input
// validated before anything is measured).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/common_options.h"
#include "cli/python_cases.h"
#include "drivers/suite.h"

namespace CLI {
class App;
}

namespace accelbench {

struct RunFlags {
  std::string models = "mlp,cnn,transformer";
  std::string devices = "all";
  std::string dtypes = "float32";
  std::int64_t batch_size = 64;
  int threads = 0;
  TimingFlags timing{.max_time = "3m", .budget = "4m"};
  bool quick = false;
  bool phases = false;
  bool full_epoch = false;
  int repeats = 1;
  WorkloadInputs inputs;
  std::int64_t width = 0;
  bool checkpoint = false;
  bool graphs = false;
  int parity_steps = 5;
  double telemetry_hz = 20;
  int epochs = 1;
  std::string cooldown = "0s";
  std::string json_path;
  bool no_progress = false;
  bool quiet = false;    // --quiet: the tables and the Summary only
  bool verbose = false;  // --verbose: every warning and note as it happens
  std::string db_path;  // history database (--db); empty: the default
  bool no_save = false;
  int gpus = 0;         // --gpus N: the models data-parallel on N GPUs through `scale` (run_gpus.cpp)
  PythonFlags python;   // --impl, --python, --py-optimizer, --compile (--py-model: inputs.py_model)
};

// The flags checked (every input, before anything runs): the suite driver's request, the rounds,
// and what --quick changed (its looser target and smaller cases applied).
struct RunRequest {
  SuiteRequest suite;
  Timing timing;           // rounds: 3 by default, 2 with --quick
  std::string quick_note;
  LoopChoice loops;        // which training loops it measures (the plan's first line) and why (a note)
  std::vector<std::string> models;  // --models, and the --model-file's (or --py-model's) case
  PythonSetup python;      // the interpreter of the Python cases, when there are any
};
RunRequest make_run_request(const RunFlags& flags, const CLI::App& cmd);
// What the run says of its request before measuring (run_settings.cpp): the settings block of its
// context, and the plan in two lines, each within 100 columns for the default suite (what is
// measured, then the time it has).
nlohmann::json run_settings_json(const RunFlags& flags, const CLI::App& cmd, const RunRequest& request);
std::vector<std::string> run_plan_lines(const RunFlags& flags, const RunRequest& request);
// `run --gpus N` (run_gpus.cpp): the flags checked, then `scale` at world sizes 1 and N.
int execute_run_on_gpus(const RunFlags& flags, const CLI::App& cmd);

}  // namespace accelbench
