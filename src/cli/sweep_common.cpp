#include "cli/sweep_common.h"

#include "drivers/rounds.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/machine_distortion.h"
#include "cli/option_checks.h"
#include "cli/workload_lists.h"
#include "core/errors.h"
#include "engine/engine.h"
#include "engine/torch_info.h"
#include "report/printer.h"
#include "store/history_store.h"

namespace accelbench {

void add_common_sweep_options(CLI::App* cmd, SweepCommonOptions& o, unsigned set) {
  cmd->add_option("--model,--models", o.model, fmt::format("The workload: {} (or --model-file)", workload_names_with()));
  if (set & kSweepDeviceOption)
    cmd->add_option("--device,--devices", o.device,
                    "The device: cpu, cuda, cuda:1, mps; a comma list or 'all' sweeps each in turn (default: all, as run)");
  if (set & kSweepBatchOption) cmd->add_option("--batch-size", o.batch_size, "Training batch size")->capture_default_str();
  if (set & kSweepDtypeOption)
    cmd->add_option("--dtype", o.dtype, "One precision: float32, tfloat32 (CUDA), bfloat16, float16 (autocast)")
        ->capture_default_str();
  if (set & kSweepThreadsOption)
    cmd->add_option("--threads", o.threads, "CPU intra-op threads (0: torch's default, one per core)")->capture_default_str();
  cmd->add_option("--width", o.width, width_help());
  cmd->add_flag("--checkpoint", o.checkpoint, checkpoint_help());
  if (set & kSweepDeviceOption)
    cmd->add_flag("--graphs", o.graphs, "Each point with its whole training step captured as one CUDA graph and replayed");
  if (set & kSweepPythonOption) add_python_sweep_options(cmd, o.python);
  add_timing_options(cmd, o.timing, "point");
  add_workload_input_options(cmd, o.inputs);
  cmd->add_option("--json", o.json_path, "Write the sweep (run schema plus a \"sweep\" block) to this JSON file, point by point (tables stay on stdout)");
  cmd->add_option("--db", o.db_path, "History database the sweep is stored in (default: $ACCELBENCH_DB, else $XDG_DATA_HOME/accelbench/history.db)");
  cmd->add_flag("--no-save", o.no_save, "Do not store the sweep in the history database");
  cmd->add_flag("--quick", o.quick, "Quick look: +-5% target, 5 samples, 10 s per point, 1 minute budget (flags given win)");
}

SweepSetup::SweepSetup() = default;
SweepSetup::~SweepSetup() = default;
SweepSetup::SweepSetup(SweepSetup&&) noexcept = default;
namespace {
nlohmann::json settings_of(const SweepCommonOptions& o, const SweepSetup& s, const std::string& kind) {
  const auto& st = s.measure.settings;
  return {{"sweep", kind},
          {"models", nlohmann::json::array({s.base.workload})},
          {"dtypes", nlohmann::json::array({s.base.dtype})},
          {"threads", o.threads == 0 ? engine::host_threads() : o.threads},
          {"width", o.width},
          {"checkpoint", o.checkpoint},
          {"graphs", o.graphs},
          {"ci_target", st.stopping.ci_target},
          {"confidence", st.stopping.confidence},
          {"min_samples", st.stopping.min_samples},
          {"min_time_s", st.stopping.min_time_s},
          {"max_time_per_point_s", s.max_per_point_s},
          {"budget_s", s.budget_s},
          {"quick", o.quick},
          {"min_sample_time_s", st.min_sample_time_s},
          {"variant", o.inputs.variant},
          {"telemetry", st.telemetry},
          {"synthetic_forced", !o.inputs.use_real_data},
          {"data_dir", o.inputs.data_dir},
          {"seed", o.inputs.seed},
          {"timing", "host steady_clock around K training steps, closed by a device synchronization"}};
}
}  // namespace

SweepSetup prepare_sweep(const SweepCommonOptions& o, const CLI::App& cmd, unsigned set, const std::string& kind) {
  SweepSetup s;
  if (set & kSweepBatchOption) check_batch_size(o.batch_size);
  check_threads(o.threads);
  auto timing = parse_timing(o.timing, "point");
  if (o.quick) {
    auto& st = timing.settings.stopping;
    if (cmd.count("--ci-target") == 0) st.ci_target = kQuickCiTarget;
    if (cmd.count("--min-samples") == 0) st.min_samples = kQuickMinSamples;
    if (cmd.count("--min-time") == 0) st.min_time_s = kQuickMinTimeS;
    if (cmd.count("--max-time-per-point") == 0) timing.max_per_case_s = st.max_time_s = kQuickMaxPerPointS;
    if (cmd.count("--budget") == 0) timing.budget_s = kQuickBudgetS;
    timing.settings.min_warmup_steps = 2;
  }
  s.max_per_point_s = timing.max_per_case_s;
  s.rounds = timing.rounds;
  s.budget_s = timing.budget_s;
  if (o.dtype.find(',') != std::string::npos)
    throw UsageError(fmt::format("--dtype takes one precision per sweep (got '{}')", o.dtype));
  auto& b = s.base;
  b.dtype = engine::canonical_precision(o.dtype);
  check_workload_inputs(o.inputs);
  if (cmd.count("--width") && o.width < 1) throw UsageError(fmt::format("--width must be at least 1 (got {})", o.width));
  b.workload = model_or_file(o.model, o.inputs, "--model");
  engine::check_workload(b.workload, o.inputs);  // UsageError naming the models when unknown
  b.batch_size = o.batch_size;
  b.threads = o.threads;
  b.width = o.width;
  b.checkpoint = o.checkpoint;
  b.graphs = o.graphs;
  if (set & kSweepDeviceOption) {
    b.device = engine::describe_device(o.device).id;  // opens it: UsageError naming the devices when unknown
    engine::check_precision(b.dtype, b.device);
  }
  if (!o.json_path.empty()) check_writable(o.json_path, "--json");
  if (!o.no_save) check_distinct_files(o.json_path, "--json", o.db_path.empty() ? HistoryStore::default_path() : o.db_path, "--db");
  if (!o.no_save) check_db_folder(o.db_path);
  s.measure.inputs = o.inputs;
  if (set & kSweepPythonOption) s.python = apply_python_sweep_flags(o.python, cmd, b, s.measure.inputs);
  engine::validate_case(b, o.inputs);
  s.measure.settings = timing.settings;
  s.settings = settings_of(o, s, kind);
  if (s.python.active()) s.settings["python_measurer"] = python_context(s.python);
  if (!o.inputs.model_file.empty()) s.settings.update(nlohmann::json(o.inputs));  // the model file and its batch
  if (set & kSweepBatchOption) s.settings["batch_size"] = o.batch_size;
  if (!b.device.empty()) s.settings["devices"] = nlohmann::json::array({b.device});
  // The history is opened (created, migrated, or refused when damaged) before anything is measured.
  if (!o.no_save) s.store = std::make_unique<HistoryStore>(o.db_path.empty() ? HistoryStore::default_path() : o.db_path);
  s.measurer = timing.rounds > 1 ? round_measurer(timing) : engine::in_process_measurer();
  s.printer = std::make_unique<FanOutPrinter>();
  s.printer->add(std::make_unique<TerminalPrinter>(true, false, o.json_path));
  if (!o.json_path.empty()) s.printer->add(std::make_unique<JsonFilePrinter>(o.json_path));
  return s;
}

SweepEnvironment sweep_environment(SweepSetup& s, const std::string& command) {
  SweepEnvironment env;
  env.command = command;
  env.context = collect_context(s.settings);
  mark_distortion(env.context, read_machine_distortion(0));  // said before the points and with the advice
  env.budget_s = s.budget_s;
  env.max_per_point_s = s.max_per_point_s;
  s.measurer = with_python_cases(std::move(s.measurer), s.python);  // unchanged without Python points
  // Each point in rounds like a run's cases (fresh child processes unless --in-process-rounds).
  if (s.rounds > 1) {
    s.by_rounds = std::make_unique<RoundsMeasurer>(*s.measurer, RoundsPolicy{s.rounds, s.rounds + 3});
    env.measurer = s.by_rounds.get();
  } else {
    env.measurer = s.measurer.get();
  }
  env.parity = s.parity.get();
  env.printer = s.printer.get();
  env.store = s.store.get();
  return env;
}

}  // namespace accelbench
