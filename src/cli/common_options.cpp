#include "cli/common_options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>

#include "cli/option_checks.h"
#include "core/durations.h"
#include "core/errors.h"
#include "drivers/isolated_measurer.h"
#include "engine/engine.h"

namespace accelbench {

void add_workload_input_options(CLI::App* cmd, WorkloadInputs& in, unsigned extra) {
  cmd->add_flag_callback("--synthetic", [&in]() { in.use_real_data = false; },
                         "Use synthetic data even when the dataset files are present");
  cmd->add_option("--data-dir", in.data_dir,
                  "Dataset directory: Fashion-MNIST IDX files (mlp, cnn, dcgan) or CIFAR-10 binaries (resnet18)");
  if (extra & kWorkersFlag)
    cmd->add_option("--workers", in.workers,
                    "Measure the data pipeline with N loader threads (0: in the training thread); default: batches "
                    "staged on the device");
  cmd->add_option("--variant", in.variant, "Workload variant (resnet18: torchvision or cifar)");
  if (extra & kTextFlag)
    cmd->add_option("--text", in.text_path, "bert-base: labelled text, one 'LABEL<TAB>text' a line (default: synthetic)");
  cmd->add_option("--seq-len", in.seq_len, "bert-base sequence length")->capture_default_str();
  cmd->add_option("--seed", in.seed, "Seed for weights and data")->capture_default_str();
}

void check_workload_inputs(const WorkloadInputs& in) {
  check_seq_len(in.seq_len);
  check_data_dir(in.data_dir);
  if (in.workers < -1) throw UsageError(fmt::format("--workers must be 0 or more (got {})", in.workers));
  if (!in.text_path.empty() && !std::filesystem::exists(in.text_path))
    throw UsageError(fmt::format("--text file not found: {}", in.text_path));
}

std::string max_time_flag(const std::string& unit) { return "--max-time-per-" + unit; }

void add_timing_options(CLI::App* cmd, TimingFlags& f, const std::string& unit) {
  cmd->add_option("--ci-target", f.ci_target, fmt::format("Stop a {} when the median's 95% CI is within +-this fraction", unit))
      ->capture_default_str();
  cmd->add_option("--min-samples", f.min_samples, fmt::format("Minimum timed samples per {}", unit))->capture_default_str();
  cmd->add_option("--min-time", f.min_time, fmt::format("Minimum sampling time per {}", unit))->capture_default_str();
  cmd->add_option(max_time_flag(unit), f.max_time, fmt::format("Most time one {} may take (build, warm-up, sampling)", unit))
      ->capture_default_str();
  cmd->add_option("--budget", f.budget, fmt::format("Time budget shared among the {}s ('none' for no budget)", unit))
      ->capture_default_str();
  cmd->add_option("--min-sample-time", f.min_sample_time, "Group short steps so one sample lasts at least this")
      ->capture_default_str();
  cmd->add_flag("--no-telemetry", f.no_telemetry, "Do not sample energy, power, temperature, clocks and memory");
  cmd->add_option("--rounds", f.rounds,
                  fmt::format("Measure each {} in N independent rounds, each in a fresh process; the interval comes from "
                              "the rounds (more are added, up to N + 3, while they disagree)", unit));
  cmd->add_flag("--in-process-rounds", f.in_process_rounds, "Run the rounds in this process (a fresh model each)");
}

Timing parse_timing(const TimingFlags& f, const std::string& unit, int default_rounds) {
  check_stopping(f.ci_target, f.min_samples);
  if (f.rounds != -1 && (f.rounds < 1 || f.rounds > 100)) throw UsageError(fmt::format("--rounds must be in [1, 100] (got {})", f.rounds));
  Timing t;
  t.rounds = f.rounds > 0 ? f.rounds : default_rounds;
  t.in_process_rounds = f.in_process_rounds;
  t.max_per_case_s = parse_duration_seconds(f.max_time);
  if (t.max_per_case_s <= 0) throw UsageError(max_time_flag(unit) + " must be positive");
  t.budget_s = parse_budget_seconds(f.budget, "--budget");  // "none": 0, no budget; "0s" is refused
  auto& s = t.settings;
  s.stopping.ci_target = f.ci_target;
  s.stopping.min_samples = f.min_samples;
  s.stopping.min_time_s = parse_duration_seconds(f.min_time);
  s.stopping.max_time_s = t.max_per_case_s;
  s.min_sample_time_s = parse_duration_seconds(f.min_sample_time);
  s.telemetry = !f.no_telemetry;
  return t;
}

std::unique_ptr<CaseMeasurer> round_measurer(const Timing& timing) {
  if (timing.in_process_rounds) return engine::in_process_measurer();
  return std::make_unique<IsolatedMeasurer>();
}

}  // namespace accelbench
