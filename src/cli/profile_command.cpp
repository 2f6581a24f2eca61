// accelbench profile MODEL --device D: where one training step's time goes, op by op (kineto).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "analysis/op_profile.h"
#include "report/profile_table.h"
#include "report/terminal.h"
#include "cli/commands.h"
#include "cli/machine_distortion.h"
#include "cli/common_options.h"
#include "cli/option_checks.h"
#include "cli/workload_lists.h"
#include "core/errors.h"
#include "core/safe_write.h"
#include "engine/engine.h"
#include "engine/profiler.h"

namespace accelbench {

namespace {

struct ProfileCliOptions {
  std::string model;
  std::string device;  // empty: the first accelerator, else the CPU
  std::int64_t batch_size = 64;
  int steps = 5;
  int warmup = 3;
  int top = 20;
  int threads = 0;
  std::string dtype = "float32";
  std::string trace_path;
  std::string json_path;  // "-": stdout (instead of the table)
  WorkloadInputs inputs;
};

// Where a step's time goes is asked of the accelerator first: the first one libtorch sees, else the CPU.
std::string first_accelerator_or_cpu() {
  for (const auto& id : engine::resolve_devices("all"))
    if (!engine::is_cpu(id)) return id;
  return "cpu";
}

int execute_profile(const ProfileCliOptions& o) {
  // Validate everything before building anything.
  check_workload_inputs(o.inputs);
  const auto model = model_or_file(o.model, o.inputs, "the model");
  engine::check_workload(model, o.inputs);  // UsageError naming the available models
  check_batch_size(o.batch_size);
  if (o.steps < 1 || o.steps > 1000) throw UsageError(fmt::format("--steps must be in [1, 1000] (got {})", o.steps));
  if (o.warmup < 0 || o.warmup > 1000) throw UsageError(fmt::format("--warmup must be in [0, 1000] (got {})", o.warmup));
  if (o.top < 1) throw UsageError(fmt::format("--top must be at least 1 (got {})", o.top));
  check_threads(o.threads);
  const auto device = engine::describe_device(o.device.empty() ? first_accelerator_or_cpu() : o.device).id;
  const CaseSpec spec{model, device, engine::canonical_precision(o.dtype), o.batch_size, o.threads};
  if (!o.trace_path.empty()) check_writable(o.trace_path, "--trace");
  const bool json_stdout = o.json_path == "-";
  if (!o.json_path.empty() && !json_stdout) check_writable(o.json_path, "--json");
  if (!json_stdout) check_distinct_files(o.json_path, "--json", o.trace_path, "--trace");
  engine::validate_case(spec, o.inputs);
  engine::check_precision(spec.dtype, spec.device);

  const ProfileOptions po{.inputs = o.inputs, .steps = o.steps, .warmup_steps = o.warmup, .trace_path = o.trace_path};
  std::fprintf(stderr, "accelbench: profiling %s on %s: batch %lld, %d warm-up step%s, %d profiled step%s\n", model.c_str(),
               spec.device.c_str(), static_cast<long long>(o.batch_size), o.warmup, o.warmup == 1 ? "" : "s", o.steps,
               o.steps == 1 ? "" : "s");
  const auto distortion = read_machine_distortion(o.threads);
  warn_distortion(distortion);
  const auto capture = profile_training(spec, po);
  const auto profile = analyze_profile(capture);
  auto json = profile_to_json(profile, static_cast<std::size_t>(o.top));
  if (distortion.distorted()) json["warnings"] = nlohmann::json::array({distortion.warning});
  if (json_stdout) {
    std::cout << json.dump(2) << "\n" << std::flush;
  } else {
    print_out(render_profile_table(profile, static_cast<std::size_t>(o.top)));
    print_out(distortion_closing(distortion, "times"));
    if (!o.json_path.empty()) {
      write_file_atomically(o.json_path, json.dump(2) + "\n");  // never half a file over an earlier one
      std::fprintf(stderr, "accelbench: profile written to %s\n", o.json_path.c_str());
    }
  }
  return 0;
}

}  // namespace

void add_profile_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<ProfileCliOptions>();
  auto* cmd = app.add_subcommand("profile", "Profile a few training steps op by op (kineto): self time, device time, copies, CPU fallbacks");
  cmd->add_option("model,--model,--models", o->model, fmt::format("Workload: {} (or --model-file)", workload_names_with()));
  cmd->add_option("--device,--devices", o->device, "Device: cpu, cuda, cuda:1, mps, ... (default: the first accelerator, else cpu)");
  cmd->add_option("--batch-size", o->batch_size, "Training batch size")->capture_default_str();
  cmd->add_option("--steps", o->steps, "Training steps profiled")->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Unprofiled warm-up steps before")->capture_default_str();
  cmd->add_option("--top", o->top, "Ops listed, by self time (device time when the device's activity is recorded)")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU intra-op threads (0: torch's default)")->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "Precision: float32, tfloat32 (CUDA), bfloat16, float16 (autocast)")->capture_default_str();
  cmd->add_option("--trace", o->trace_path, "Write a Chrome trace (chrome://tracing, Perfetto) to this file");
  cmd->add_option("--json", o->json_path, "Write the profile as JSON to this file; without a file (or '-'): to stdout, no table")
      ->expected(0, 1)
      ->default_str("-")
      ->option_text("[FILE]");
  add_workload_input_options(cmd, o->inputs);
  cmd->callback([&action, o]() { action = [o]() { return execute_profile(*o); }; });
}

}  // namespace accelbench
