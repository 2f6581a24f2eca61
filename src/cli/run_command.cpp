// accelbench run: the article's suite on the CPU and every accelerator, side by side. This file
// holds the flags (the longest option registration of the tool) and hands the checked request to
// the suite driver (drivers/suite.h); run_request.cpp turns the flags into that request.
#include <CLI/CLI.hpp>
#include <chrono>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/fit_check.h"
#include "analysis/run_to_run.h"
#include "cli/commands.h"
#include "cli/run_request.h"
#include "core/durations.h"
#include "core/errors.h"
#include "core/plan.h"
#include "core/utilisation.h"
#include "drivers/rounds.h"
#include "engine/engine.h"
#include "engine/torch_info.h"
#include "report/printer.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "system/machine_checks.h"

namespace accelbench {

namespace {

// The advice items after a run (the most useful first); `accelbench advise` gives them all.
constexpr std::size_t kAdviceAfterARun = 5;

nlohmann::json settings_json(const RunFlags& o, const CLI::App& cmd, const RunRequest& run_request) {
  const auto& req = run_request.suite;
  const auto& s = req.options.settings;
  nlohmann::json settings{{"models", run_request.models},
                          {"devices", engine::resolve_devices(o.devices)},
                          {"dtypes", nlohmann::json::array()},
                          {"batch_size", o.batch_size},
                          {"threads", o.threads == 0 ? engine::host_threads() : o.threads},
                          {"max_time_per_case_s", req.max_per_case_s},
                          {"budget_s", req.budget_s},
                          {"quick", o.quick},
                          {"epochs_given", cmd.count("--epochs") > 0},
                          {"cooldown_s", req.cooldown_s},
                          {"width", o.width},
                          {"checkpoint", o.checkpoint},
                          {"graphs", o.graphs},
                          {"parity_steps", o.parity_steps},
                          {"rounds", run_request.timing.rounds},
                          {"rounds_in", run_request.timing.in_process_rounds ? "this process" : "fresh child processes"},
                          {"timing", "host steady_clock around K training steps, closed by a device synchronization"}};
  for (const auto& t : split_list(o.dtypes)) settings["dtypes"].push_back(engine::canonical_precision(t));
  settings.update(nlohmann::json(s));            // ci_target, confidence, min_time_s, ... (core/options.h)
  settings.update(nlohmann::json(o.inputs));     // data, variant, text, seq_len, seed, workers
  if (run_request.python.active()) {
    settings["impl"] = o.python.impl;
    settings["python_measurer"] = python_context(run_request.python);  // the interpreter and its torch
  }
  return settings;
}

// The plan in two lines, each within 100 columns for the default suite: what is measured, then the
// time it has.
std::vector<std::string> plan_lines(const RunFlags& o, const RunRequest& run_request) {
  const auto& req = run_request.suite;
  const auto n = req.plan.cases.size();
  const auto rounds = run_request.timing.rounds;
  const auto most = req.rounds.max_rounds;
  const auto rounds_text = rounds == 1 || most <= rounds ? fmt::format("{} round{} each", rounds, rounds == 1 ? "" : "s")
                                                       : fmt::format("{}-{} rounds each", rounds, most);
  return {fmt::format("{} case{} ({} on {}), {}, CI target +-{:.1f}%", n, n == 1 ? "" : "s",
                      fmt::join(run_request.models, ", "), fmt::join(engine::resolve_devices(o.devices), ", "), rounds_text,
                      100 * req.options.settings.stopping.ci_target),
          fmt::format("{}{}", req.budget_s > 0 ? fmt::format("time budget {}, at most {} a case",
                                                             format_duration(req.budget_s), format_duration(req.max_per_case_s))
                                                : fmt::format("at most {} a case", format_duration(req.max_per_case_s)),
                      o.quick ? fmt::format(" (--quick: a looser target, fewer samples{})", run_request.quick_note) : "")};
}

Verbosity run_verbosity(const RunFlags& o) {
  if (o.verbose && o.quiet) throw UsageError("--quiet and --verbose exclude each other (got both)");
  return o.quiet ? Verbosity::kQuiet : o.verbose ? Verbosity::kVerbose : Verbosity::kNormal;
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

// Time promises, said before measuring: each case's step time from the history, or for a case new
// to it, from one step measured now (its time comes out of the budget); the cases that cannot fit
// their share. Returns the time the probes took.
double promise_times(RunRequest& request, const std::vector<CaseHistoryPoint>& history, Printer& printer) {
  double probe_s = 0;
  const auto& cases = request.suite.plan.cases;
  std::vector<ProbedStep> probed;
  auto unseen = cases_without_history(cases, history);
  std::erase_if(unseen, [](const CaseSpec& c) { return is_python(c); });  // the C++ step says nothing of the Python loop's
  const auto probe_start = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < unseen.size(); ++k) {
    const auto& c = unseen[k];
    // On the progress line: one step of each new case, before the rounds (their count is not known yet).
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - probe_start).count();
    printer.progress({k, unseen.size()}, ProgressEvent{&c, "one step timed first", 0, 0, 0, 0}, elapsed,
                     std::max(0.0, request.suite.budget_s - elapsed));
    try {
      probed.push_back({c, engine::probe_step_s(c, request.suite.options.inputs)});
    } catch (const std::exception&) {  // the measurement will meet it again and say so
    }
  }
  if (!unseen.empty()) {
    probe_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - probe_start).count();
    if (request.suite.budget_s > 0) request.suite.budget_s = std::max(1e-3, request.suite.budget_s - probe_s);
    printer.note(fmt::format("one step of each case new to the history timed first ({} of {}, {}; counted in the budget)",
                             unseen.size(), cases.size(), format_duration(probe_s)));
  }
  const auto& st = request.suite.options.settings;
  const auto steps = (st.min_warmup_steps + st.stopping.min_samples) * static_cast<std::size_t>(request.timing.rounds);
  const double share = budget_share(request.suite.budget_s, request.suite.max_per_case_s, 0, cases.size());
  for (const auto& line : cases_that_cannot_fit(cases, history, share, steps, probed)) printer.note(line);
  return probe_s;
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
  run.context = collect_context(settings_json(o, cmd, request));
  // What on the machine distorts the timings (load, oversubscribed threads...): the whole of it in
  // the context (and the notes after the tables), its name in one line before measuring.
  const int threads = o.threads == 0 ? engine::host_threads() : o.threads;
  const auto findings = check_machine(read_machine_snapshot(0.5, threads));
  if (const auto machine = machine_summary(findings); !machine.empty()) run.context.warnings.push_back(machine);
  run.context.distorted_by = distorting_checks(findings);  // the run's mark in the history
  printer.context(run.context);
  for (const auto& line : plan_lines(o, request)) printer.plan(line);
  if (const auto headline = machine_headline(findings); !headline.empty() && verbosity == Verbosity::kNormal)
    printer.plan(headline);
  // The history as it was before this run: the time promises and the run-to-run spread read it.
  const auto history = store ? store->case_history() : std::vector<CaseHistoryPoint>{};
  const double probe_s = promise_times(request, history, printer);

  // Each case in interleaved rounds (fresh processes by default): the interval covers the next run.
  const auto each_round = with_python_cases(round_measurer(request.timing), request.python);
  const auto parity = engine::parity_trainer();
  const int failures = run_suite(request.suite, run, *each_round, *parity, printer);
  run.wall_s += probe_s;  // "done in" and the stored wall time include the probes
  // Earlier runs of the same cases (none with --no-save) and the prior: where they vary more than
  // this run's rounds, the interval is theirs (said in the column's name; the paragraph with --verbose).
  if (apply_run_to_run(run, history) > 0 && verbosity == Verbosity::kVerbose) printer.note(run_to_run_note(run));
  if (store) add_utilisation(run, *store, printer);
  printer.document(nlohmann::json(run));  // --json with the run-to-run intervals, the utilisation (and the probes' time)
  bool stored = true;
  if (store) {
    try {
      const auto ref = store->save_run(run);
      printer.note(fmt::format("stored as run {} (uid {}) in {}", ref.id, ref.uid, store->path()));
    } catch (const HistoryNotStoredError& e) {  // the table and --json still hold every case
      stored = false;
      printer.note(fmt::format("{}; the tables{} still hold the run", e.what(),
                               o.json_path.empty() ? "" : " and " + o.json_path));
    }
  }
  terminal_printer->set_closing(render_run_summary(run));
  const TerminalReportOptions report{.answer_first = verbosity != Verbosity::kVerbose,
                                     .quiet = verbosity == Verbosity::kQuiet,
                                     .max_advice = verbosity == Verbosity::kVerbose ? 0 : kAdviceAfterARun};
  printer.finished(run, render_terminal_report(run, report));
  return failures || !stored ? 1 : 0;
}


}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand("run", "Measure training on the CPU and every accelerator, side by side");
  cmd->add_option("--models,--model", o->models, "Comma-separated workloads: mlp, cnn, transformer, resnet18, bert-base, dcgan (--model-file: yours)")
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
  cmd->add_option("--width", o->width, "mlp hidden width (default 1024)");
  cmd->add_flag("--checkpoint", o->checkpoint,
                "Gradient checkpointing of the encoder blocks (transformer, bert-base): less memory, more compute");
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
