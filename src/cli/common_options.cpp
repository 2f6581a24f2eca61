#include "cli/common_options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>

#include "cli/option_checks.h"
#include "cli/workload_lists.h"
#include "core/durations.h"
#include "core/errors.h"
#include "core/model_spec.h"
#include "drivers/isolated_measurer.h"
#include "engine/engine.h"

namespace accelbench {

void add_workload_input_options(CLI::App* cmd, WorkloadInputs& in, unsigned extra) {
  cmd->add_flag_callback("--synthetic", [&in]() { in.use_real_data = false; },
                         "Use synthetic data even when the dataset files are present");
  cmd->add_option("--data-dir", in.data_dir, data_dir_help());
  if (extra & kWorkersFlag)
    cmd->add_option("--workers", in.workers,
                    "Measure the data pipeline with N loader threads (0: in the training thread); default: batches "
                    "staged on the device");
  cmd->add_option("--variant", in.variant, variant_help());
  if (extra & kTextFlag) cmd->add_option("--text", in.text_path, text_help());
  cmd->add_option("--seq-len", in.seq_len, seq_len_help())->capture_default_str();
  cmd->add_option("--seed", in.seed, "Seed for weights and data")->capture_default_str();
  cmd->add_option("--model-file", in.model_file,
                  "Your own model: a TorchScript file (tools/export_model.py); the case is named after the file");
  cmd->add_option("--input", in.model_input,
                  "With --model-file: its input, DIMS:DTYPE[:LOW..HIGH][,...] per sample, e.g. 3x224x224:float32 "
                  "(default: the description embedded in the file)");
  cmd->add_option("--target", in.model_target, "With --model-file: its loss: classes:N, mse:DIMS or loss (the model's own)");
  cmd->add_option("--flops-per-sample", in.model_flops_per_sample,
                  "With --model-file: training FLOPs per sample (default: the figure embedded in the file, if any)");
}

std::string model_or_file(const std::string& model, const WorkloadInputs& in, const std::string& model_flag) {
  if (in.model_file.empty()) {
    if (model.empty()) throw UsageError(fmt::format("{} or --model-file is required", model_flag));
    return model;
  }
  if (!model.empty()) throw UsageError(fmt::format("{} and --model-file exclude each other (got both)", model_flag));
  return model_file_case_name(in.model_file);
}

void check_workload_inputs(const WorkloadInputs& in) {
  check_seq_len(in.seq_len);
  check_data_dir(in.data_dir);
  if (!in.variant.empty()) check_variant(in.variant);
  if (in.workers < -1 || in.workers > 256) throw UsageError(fmt::format("--workers must be in [0, 256] (got {})", in.workers));
  if (!in.text_path.empty() && !std::filesystem::exists(in.text_path))
    throw UsageError(fmt::format("--text file not found: {}", in.text_path));
  if (!in.model_file.empty() && !in.py_model.empty()) throw UsageError("--model-file and --py-model exclude each other");
  if (in.model_file.empty()) {
    if (in.py_model.empty() && !in.model_input.empty()) throw UsageError("--input needs --model-file or --py-model");
    if (in.py_model.empty() && !in.model_target.empty()) throw UsageError("--target needs --model-file or --py-model");
    if (in.py_model.empty() && in.model_flops_per_sample != 0) throw UsageError("--flops-per-sample needs --model-file");
    if (!in.model_input.empty()) parse_input_specs(in.model_input);
    if (!in.model_target.empty()) parse_target_spec(in.model_target);
    return;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(in.model_file, ec)) throw UsageError(fmt::format("--model-file {}: no such file", in.model_file));
  const auto name = model_file_case_name(in.model_file);
  for (const auto& builtin : engine::workload_names())
    if (name == builtin) throw UsageError(fmt::format("--model-file {}: its name is a built-in workload's; rename the file", in.model_file));
  if (!in.model_input.empty()) parse_input_specs(in.model_input);
  if (!in.model_target.empty()) parse_target_spec(in.model_target);
  if (!(in.model_flops_per_sample >= 0 && in.model_flops_per_sample < 1e18))
    throw UsageError(fmt::format("--flops-per-sample must be in [0, 1e18) (got {})", in.model_flops_per_sample));
}

std::string max_time_flag(const std::string& unit) { return "--max-time-per-" + unit; }

void add_timing_options(CLI::App* cmd, TimingFlags& f, const std::string& unit) {
  accept_percentage(cmd->add_option("--ci-target", f.ci_target,
                                    fmt::format("Stop a {} when the median's 95% CI is within +-this, e.g. 2% or 0.02", unit)))
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
                              "the rounds (more are added, up to N + 3, while they disagree, and up to 4 where they agree and time allows)", unit));
  cmd->add_flag("--in-process-rounds", f.in_process_rounds, "Run the rounds in this process (a fresh model each)");
}

Timing parse_timing(const TimingFlags& f, const std::string& unit, int default_rounds) {
  check_stopping(f.ci_target, f.min_samples);
  if (f.rounds != kRoundsNotGiven && (f.rounds < 1 || f.rounds > 100)) throw UsageError(fmt::format("--rounds must be in [1, 100] (got {})", f.rounds));
  Timing t;
  t.rounds = f.rounds > 0 ? f.rounds : default_rounds;
  t.in_process_rounds = f.in_process_rounds;
  t.max_per_case_s = parse_duration_seconds(f.max_time, max_time_flag(unit).c_str());
  if (t.max_per_case_s <= 0) throw UsageError(max_time_flag(unit) + " must be positive");
  t.budget_s = parse_budget_seconds(f.budget, "--budget");  // "none": 0, no budget; "0s" is refused
  auto& s = t.settings;
  s.stopping.ci_target = f.ci_target;
  s.stopping.min_samples = f.min_samples;
  s.stopping.min_time_s = parse_duration_seconds(f.min_time, "--min-time");
  s.stopping.max_time_s = t.max_per_case_s;
  s.min_sample_time_s = parse_duration_seconds(f.min_sample_time, "--min-sample-time");
  s.telemetry = !f.no_telemetry;
  return t;
}

std::unique_ptr<CaseMeasurer> round_measurer(const Timing& timing) {
  if (timing.in_process_rounds) return engine::in_process_measurer();
  return std::make_unique<IsolatedMeasurer>();
}

}  // namespace accelbench
