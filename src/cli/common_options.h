#pragma once
// The flags that run, the sweeps and profile share, each declared once here and filling the
// records of core/options.h, with their checks (one-line UsageError before anything is measured).
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/lists.h"
#include "core/measurement.h"
#include "core/options.h"

namespace CLI {
class App;
}

namespace accelbench {

// --synthetic, --data-dir, --variant, --seq-len, --seed, --model-file with --input, --target, --flops-per-sample; with kTextFlag --text, with kWorkersFlag
// --workers (run only: a workers sweep sweeps them, profile stages its batches).
enum InputFlag : unsigned { kTextFlag = 1u << 0, kWorkersFlag = 1u << 1 };
void add_workload_input_options(CLI::App* cmd, WorkloadInputs& inputs, unsigned extra = 0);
void check_workload_inputs(const WorkloadInputs& inputs);
// The case's workload: the model given with `model_flag`, or the model file's case name
// (--model-file); UsageError when neither or both are given.
std::string model_or_file(const std::string& model, const WorkloadInputs& inputs, const std::string& model_flag);

inline constexpr int kRoundsNotGiven = INT_MIN;

// The stopping rule and time limits as typed on the command line (durations are text: "0.5s").
struct TimingFlags {
  double ci_target = 0.02;
  std::size_t min_samples = 10;
  std::string min_time = "0.5s";
  std::string max_time;            // per case (run) or per point (sweeps)
  std::string budget;              // shared among them; "none": no budget
  std::string min_sample_time = "1ms";
  bool no_telemetry = false;
  int rounds = kRoundsNotGiven;    // the command's default; any value typed (-1 too) is checked
  bool in_process_rounds = false;  // rounds in this process (a fresh model each) instead of fresh processes
};
// `unit` is "case" (--max-time-per-case) or "point" (--max-time-per-point).
void add_timing_options(CLI::App* cmd, TimingFlags& flags, const std::string& unit);
std::string max_time_flag(const std::string& unit);

// The checked figures: the measurement settings (max_time_s = the per-case limit), the budget.
struct Timing {
  MeasureSettings settings;
  double max_per_case_s = 0;
  double budget_s = 0;             // 0: none
  int rounds = 1;                  // the rounds given, or the command's default
  bool in_process_rounds = false;
};
// `default_rounds` applies when --rounds was not given.
Timing parse_timing(const TimingFlags& flags, const std::string& unit, int default_rounds = 1);

// The measurer the rounds go through: fresh child processes (the default) or this process.
std::unique_ptr<CaseMeasurer> round_measurer(const Timing& timing);

}  // namespace accelbench
