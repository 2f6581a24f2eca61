// accelbench run: the article's suite on the CPU and every accelerator, side by side. This file
// holds the flags (the longest option registration of the tool), the printers and the run's
// context, and hands the checked request to the run driver (drivers/run_driver.h), which measures,
// stores and reports; run_request.cpp turns the flags into that request.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/machine_distortion.h"
#include "cli/run_request.h"
#include "cli/workload_lists.h"
#include "core/errors.h"
#include "drivers/run_driver.h"
#include "engine/engine.h"
#include "engine/torch_info.h"
#include "report/printer.h"
#include "store/history_store.h"

namespace accelbench {

namespace {

Verbosity run_verbosity(const RunFlags& o) {
  if (o.verbose && o.quiet) throw UsageError("--quiet and --verbose exclude each other (got both)");
  return o.quiet ? Verbosity::kQuiet : o.verbose ? Verbosity::kVerbose : Verbosity::kNormal;
}

int execute_run(const RunFlags& o, const CLI::App& cmd) {
  if (cmd.count("--gpus") > 0) return execute_run_on_gpus(o, cmd);  // data-parallel, through `scale`
  // Validate everything before measuring anything.
  auto request = make_run_request(o, cmd);
  // The history is opened (created, migrated, or refused when damaged) before anything is measured.
  std::unique_ptr<HistoryStore> store;
  if (!o.no_save) store = std::make_unique<HistoryStore>(o.db_path.empty() ? HistoryStore::default_path() : o.db_path);

  const auto verbosity = run_verbosity(o);
  FanOutPrinter printer;
  auto terminal = std::make_unique<TerminalPrinter>(/*per_case_lines=*/false, !o.no_progress, o.json_path, verbosity);
  auto* terminal_printer = terminal.get();
  printer.add(std::move(terminal));
  if (!o.json_path.empty()) printer.add(std::make_unique<JsonFilePrinter>(o.json_path));
  RunResult run;
  run.context = collect_context(run_settings_json(o, cmd, request));
  // What on the machine distorts the timings (load, oversubscribed threads...): the whole of it in
  // the context (and the notes after the tables; --quiet: on stderr), its name in one line before measuring.
  const auto distortion = read_machine_distortion(o.threads);
  mark_distortion(run.context, distortion);  // the warning, and the run's mark in the history
  printer.context(run.context);
  for (const auto& line : run_plan_lines(o, request)) printer.plan(line);
  if (!request.loops.why.empty()) printer.note(request.loops.why);
  if (distortion.distorted() && verbosity == Verbosity::kNormal) printer.plan(distortion.headline);

  // Each round of a case in a fresh process by default; the stages from here on: drivers/run_driver.h.
  const auto each_round = with_python_cases(round_measurer(request.timing), request.python);
  const auto parity = engine::parity_trainer();
  const RunServices services{each_round.get(), parity.get(), engine::probe_step_s, &printer, terminal_printer, store.get()};
  return drive_run({std::move(request.suite), request.timing.rounds, verbosity, o.json_path}, run, services);
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand("run", "Measure training on the CPU and every accelerator, side by side");
  cmd->add_option("--models,--model", o->models, fmt::format("Comma-separated workloads: {} (--model-file: yours)", workload_names_with()))
      ->capture_default_str();
  cmd->add_option("--devices,--device", o->devices, "Comma-separated devices (cpu, cuda, cuda:1, mps) or 'all'")->capture_default_str();
  cmd->add_option("--dtype", o->dtypes,
                  "Comma-separated precisions: float32, tfloat32 (CUDA: TF32 matmuls), bfloat16, float16 (autocast mixed "
                  "precision, fp32 weights; float16 with loss scaling)")
      ->capture_default_str();
  cmd->add_option("--batch-size", o->batch_size, "Training batch size")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU intra-op threads (0: torch's default, one per core)")->capture_default_str();
  add_timing_options(cmd, o->timing, "case");
  cmd->add_flag("--quick", o->quick, "Quick look: +-5% target, 5 samples, 10 s per case, 1 minute budget");
  cmd->add_flag("--phases", o->phases, "Time forward, backward and optimizer separately (adds synchronizations)");
  cmd->add_flag("--full-epoch", o->full_epoch,
                "After sampling, time one real epoch end to end (all distinct batches; not bounded by the case's time)");
  cmd->add_option("--telemetry-hz", o->telemetry_hz, "Telemetry readings per second during a case")->capture_default_str();
  cmd->add_option("--epochs", o->epochs, "Predict the time and energy of a training run of this many epochs")
      ->capture_default_str();
  cmd->add_option("--cooldown", o->cooldown, "Pause between cases so the devices cool down, e.g. 30s (not counted in --budget)")
      ->capture_default_str();
  add_workload_input_options(cmd, o->inputs, kTextFlag | kWorkersFlag);
  add_python_options(cmd, o->python, o->inputs);
  cmd->add_option("--repeats", o->repeats, "With --full-epoch: epochs to time (olympic mean: drop fastest and slowest)")
      ->capture_default_str();
  cmd->add_option("--width", o->width, width_help());
  cmd->add_flag("--checkpoint", o->checkpoint, checkpoint_help());
  cmd->add_flag("--graphs", o->graphs,
                "Also measure each model with its whole training step captured as one CUDA graph and replayed (beside "
                "the eager step, on the CUDA devices)");
  cmd->add_option("--parity-steps", o->parity_steps,
                  "Numerical parity beside each speed-up: train K steps on the device and on the CPU from the same weights "
                  "and batches (dropout off) and compare the losses and gradient norms; 0: off")
      ->capture_default_str();
  cmd->add_option("--json", o->json_path, "Write every setting, sample and statistic to this JSON file (the tables stay on stdout)");
  cmd->add_flag("--no-progress", o->no_progress, "No progress line on stderr");
  cmd->add_flag("--quiet,-q", o->quiet, "Only the tables and the Summary (no plan, notes or advice)");
  cmd->add_flag("--verbose,-v", o->verbose,
                "Every warning and note as it happens, every advice item, the speed-up sentences under the table");
  cmd->add_option("--db", o->db_path, "History database the run is stored in (default: $ACCELBENCH_DB, else $XDG_DATA_HOME/accelbench/history.db)");
  cmd->add_flag("--no-save", o->no_save, "Do not store the run in the history database");
  cmd->add_option("--gpus", o->gpus, "Instead: train the models data-parallel on N GPUs (NCCL) through `scale`, at 1 and "
                  "N GPUs: step, samples/s, efficiency (docs/multi-gpu.md)");
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() { return execute_run(*o, *cmd); }; });
}

}  // namespace accelbench
