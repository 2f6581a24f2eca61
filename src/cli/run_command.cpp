// accelbench run: the article's suite on the CPU and every accelerator, side by side.
#include <CLI/CLI.hpp>
#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "core/durations.h"
#include "core/errors.h"
#include "device/device.h"
#include "core/parity.h"
#include "engine/parity.h"
#include "engine/plan.h"
#include "engine/runner.h"
#include "engine/torch_info.h"
#include "optim/autocast.h"
#include "report/json_report.h"
#include "store/history_store.h"
#include "report/terminal_table.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {

struct RunOptions {
  std::string models = "mlp,cnn,transformer";
  std::string devices = "all";
  std::string dtypes = "float32";
  std::int64_t batch_size = 64;
  int threads = 0;
  double ci_target = 0.02;
  std::size_t min_samples = 10;
  std::string min_time = "0.5s";
  std::string max_time_per_case = "3m";
  std::string budget = "4m";
  std::string min_sample_time = "1ms";
  bool quick = false;
  bool phases = false;
  bool full_epoch = false;
  int repeats = 1;
  int workers = -1;
  std::string variant;
  std::string text_path;
  std::int64_t seq_len = 128;
  std::int64_t width = 0;
  bool checkpoint = false;
  int parity_steps = 5;
  bool no_telemetry = false;
  double telemetry_hz = 20;
  int epochs = 1;
  std::string cooldown = "0s";
  bool synthetic = false;
  std::string data_dir;
  std::uint64_t seed = 0;
  std::string json_path;
  bool no_progress = false;
  std::string db_path;  // history database (--db); empty: the default
  bool no_save = false;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = s.find(',', start);
    auto item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

class ProgressLine {
 public:
  ProgressLine(bool enabled, std::size_t total) : enabled_(enabled && ::isatty(2)), total_(total) {}
  void update(std::size_t index, const ProgressEvent& e, double run_elapsed, double eta) {
    if (!enabled_) return;
    std::string detail = e.stage;
    if (e.stage == "measure")
      detail = fmt::format("{} samples, +-{:.1f}%", e.samples, std::isfinite(e.relative_half_width) ? 100 * e.relative_half_width : 99.9);
    else if (e.stage == "warm-up")
      detail = fmt::format("warm-up step {}", e.samples);
    const auto line = fmt::format("[{}/{}] {} on {}: {} | elapsed {} | ~{} left", index + 1, total_, e.spec->workload,
                                  e.spec->device, detail, format_duration(run_elapsed), format_duration(eta));
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    dirty_ = true;
  }
  void clear() {
    if (enabled_ && dirty_) std::fprintf(stderr, "\r\033[K");
    dirty_ = false;
  }

 private:
  bool enabled_;
  std::size_t total_;
  bool dirty_ = false;
};

int execute_run(const RunOptions& o, const CLI::App& cmd) {
  // Validate everything before measuring anything.
  if (o.batch_size < 1) throw UsageError(fmt::format("--batch-size must be at least 1 (got {})", o.batch_size));
  check_threads(o.threads);
  check_stopping(o.ci_target, o.min_samples);
  const double min_time = parse_duration_seconds(o.min_time);
  double max_per_case = parse_duration_seconds(o.max_time_per_case);
  double budget = o.budget == "none" ? 0 : parse_duration_seconds(o.budget);
  const double min_sample_time = parse_duration_seconds(o.min_sample_time);
  if (max_per_case <= 0) throw UsageError("--max-time-per-case must be positive");
  auto models = split_list(o.models);
  if (models.empty()) throw UsageError("--models is empty; available: " + fmt::format("{}", fmt::join(workload_names(), ", ")));
  for (const auto& m : models) make_workload(m);  // throws on an unknown name
  const auto devices = resolve_device_list(o.devices);
  std::vector<std::string> dtypes;
  for (const auto& t : split_list(o.dtypes)) dtypes.push_back(parse_precision(t).name);
  if (dtypes.empty()) throw UsageError("--dtype is empty; available: float32, bfloat16");
  if (!o.json_path.empty()) check_writable(o.json_path, "--json");
  if (o.workers < -1) throw UsageError(fmt::format("--workers must be 0 or more (got {})", o.workers));
  if (o.repeats < 1) throw UsageError(fmt::format("--repeats must be at least 1 (got {})", o.repeats));
  if (o.repeats > 1 && !o.full_epoch) throw UsageError("--repeats needs --full-epoch");
  check_seq_len(o.seq_len);
  if (!o.text_path.empty() && !std::filesystem::exists(o.text_path))
    throw UsageError(fmt::format("--text file not found: {}", o.text_path));
  check_data_dir(o.data_dir);
  if (!(o.telemetry_hz >= 0.5 && o.telemetry_hz <= 1000))
    throw UsageError(fmt::format("--telemetry-hz must be between 0.5 and 1000 readings per second (got {})", o.telemetry_hz));
  if (o.epochs < 1) throw UsageError(fmt::format("--epochs must be at least 1 (got {})", o.epochs));
  if (cmd.count("--width") && o.width < 1) throw UsageError(fmt::format("--width must be at least 1 (got {})", o.width));
  if (o.parity_steps < 0 || o.parity_steps > 1000)
    throw UsageError(fmt::format("--parity-steps must be in [0, 1000] (got {})", o.parity_steps));
  for (const auto& d : devices) {
    const auto type = d == "cpu" ? c10::kCPU : open_device(d)->torch_device().type();
    for (const auto& t : dtypes) check_precision_on_device(parse_precision(t), type, d);
  }
  const double cooldown = parse_duration_seconds(o.cooldown);

  // The history is opened (created, migrated, or refused when damaged) before anything is measured.
  std::unique_ptr<HistoryStore> store;
  if (!o.no_save) store = std::make_unique<HistoryStore>(o.db_path.empty() ? HistoryStore::default_path() : o.db_path);

  MeasureOptions mo;
  mo.stopping.ci_target = o.ci_target;
  mo.stopping.min_samples = o.min_samples;
  mo.stopping.min_time_s = min_time;
  mo.min_sample_time_s = min_sample_time;
  mo.phases = o.phases;
  mo.full_epoch = o.full_epoch;
  mo.epoch_repeats = o.repeats;
  mo.workers = o.workers;
  mo.variant = o.variant;
  mo.text_path = o.text_path;
  mo.seq_len = o.seq_len;
  mo.telemetry = !o.no_telemetry;
  mo.telemetry_hz = o.telemetry_hz;
  mo.epochs = o.epochs;
  mo.seed = o.seed;
  mo.use_real_data = !o.synthetic;
  mo.data_dir = o.data_dir;
  if (o.quick) {
    // Quick: a looser target and small minimums; the numbers say less and the output says so.
    if (cmd.count("--ci-target") == 0) mo.stopping.ci_target = 0.05;
    if (cmd.count("--min-samples") == 0) mo.stopping.min_samples = 5;
    if (cmd.count("--min-time") == 0) mo.stopping.min_time_s = 0.2;
    if (cmd.count("--max-time-per-case") == 0) max_per_case = 10;
    if (cmd.count("--budget") == 0) budget = 60;
    mo.min_warmup_steps = 2;
  }

  {
    // Check the inputs each workload will read (data files, variants) before measuring anything.
    WorkloadOptions check;
    check.use_real_data = !o.synthetic;
    check.data_dir = o.data_dir;
    check.variant = o.variant;
    check.text_path = o.text_path;
    check.width = o.width;
    check.checkpoint = o.checkpoint;
    for (const auto& t : dtypes) {
      check.dtype = t;
      for (const auto& m : models) validate_workload_options(*make_workload(m), check);
    }
  }
  std::string quick_note;
  if (o.quick && std::find(models.begin(), models.end(), "bert-base") != models.end()) {
    // A bert-base step at batch 64, sequence 128 takes tens of seconds on a small CPU.
    if (cmd.count("--seq-len") == 0) mo.seq_len = 64;
    quick_note = fmt::format("; bert-base at batch {}, sequence {}", cmd.count("--batch-size") ? o.batch_size : 8, mo.seq_len);
  }
  PlanRequest req;
  req.models = models;
  req.devices = devices;
  req.dtypes = dtypes;
  req.batch_size = o.batch_size;
  req.threads = o.threads;
  req.width = o.width;
  req.checkpoint = o.checkpoint;
  auto plan = make_plan(req);
  if (o.quick && cmd.count("--batch-size") == 0)
    for (auto& c : plan.cases)
      if (c.workload == "bert-base") c.batch_size = 8;

  nlohmann::json settings{{"models", models},
                          {"devices", devices},
                          {"dtypes", dtypes},
                          {"batch_size", o.batch_size},
                          {"threads", o.threads == 0 ? at::get_num_threads() : o.threads},
                          {"ci_target", mo.stopping.ci_target},
                          {"confidence", mo.stopping.confidence},
                          {"min_samples", mo.stopping.min_samples},
                          {"min_time_s", mo.stopping.min_time_s},
                          {"max_time_per_case_s", max_per_case},
                          {"budget_s", budget},
                          {"min_sample_time_s", mo.min_sample_time_s},
                          {"min_warmup_steps", mo.min_warmup_steps},
                          {"quick", o.quick},
                          {"phases", o.phases},
                          {"full_epoch", o.full_epoch},
                          {"epoch_repeats", o.repeats},
                          {"workers", o.workers},
                          {"variant", o.variant},
                          {"text", o.text_path},
                          {"telemetry", !o.no_telemetry},
                          {"telemetry_hz", o.telemetry_hz},
                          {"epochs", o.epochs},
                          {"epochs_given", cmd.count("--epochs") > 0},
                          {"cooldown_s", cooldown},
                          {"synthetic_forced", o.synthetic},
                          {"data_dir", o.data_dir},
                          {"seed", o.seed},
                          {"width", o.width},
                          {"checkpoint", o.checkpoint},
                          {"parity_steps", o.parity_steps},
                          {"timing", "host steady_clock around K training steps, closed by a device synchronization"}};
  RunResult run;
  run.context = collect_context(settings);
  for (const auto& w : run.context.warnings) std::fprintf(stderr, "accelbench: warning: %s\n", w.c_str());

  std::fprintf(stderr, "accelbench: %zu case%s (%s on %s), %s, CI target +-%.1f%%%s\n", plan.cases.size(),
               plan.cases.size() == 1 ? "" : "s", fmt::format("{}", fmt::join(models, ", ")).c_str(),
               fmt::format("{}", fmt::join(devices, ", ")).c_str(),
               budget > 0 ? fmt::format("time budget {} shared among them (at most {} each)", format_duration(budget),
                                        format_duration(max_per_case)).c_str()
                          : fmt::format("at most {} per case", format_duration(max_per_case)).c_str(),
               100 * mo.stopping.ci_target,
               o.quick ? fmt::format(" [--quick: looser target, fewer samples{}]", quick_note).c_str() : "");

  BudgetScheduler scheduler(budget, max_per_case, plan.cases.size());
  ProgressLine progress(!o.no_progress, plan.cases.size());
  const auto run_start = std::chrono::steady_clock::now();
  auto elapsed = [&]() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count(); };
  int failures = 0;
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    const auto& spec = plan.cases[i];
    if (i > 0 && cooldown > 0) std::this_thread::sleep_for(std::chrono::duration<double>(cooldown));  // --cooldown
    auto workload = make_workload(spec.workload);
    auto device = open_device(spec.device);
    mo.stopping.max_time_s = scheduler.next_allowance();
    const std::size_t remaining_after = plan.cases.size() - i - 1;
    auto on_progress = [&](const ProgressEvent& e) {
      const double this_left = std::max(0.0, e.case_allowance_s - e.case_elapsed_s);
      const double rest = budget > 0 ? std::max(0.0, budget - scheduler.spent_s() - e.case_elapsed_s - this_left)
                                     : static_cast<double>(remaining_after) * max_per_case;
      progress.update(i, e, elapsed(), this_left + rest);
    };
    auto result = measure_case(spec, *workload, *device, mo, on_progress);
    progress.clear();
    scheduler.finished_case(result.wall_s);
    if (result.status != "ok") {
      ++failures;
      std::fprintf(stderr, "accelbench: %s on %s failed: %s\n", spec.workload.c_str(), spec.device.c_str(), result.error.c_str());
    }
    run.cases.push_back(std::move(result));
    run.wall_s = elapsed();
    if (!o.json_path.empty()) write_json_report(run, o.json_path);  // each case saved as soon as it is measured
  }
  run.speedups = compute_speedups(run.cases);
  // Numerical parity beside each speed-up: the same initial weights and batches on the device and
  // on the CPU, K steps each (dropout off).
  const int parity_steps = (o.quick && cmd.count("--parity-steps") == 0) ? 2 : o.parity_steps;
  if (parity_steps > 0 && !run.speedups.empty()) {
    for (auto& s : run.speedups) {
      const auto c = std::find_if(run.cases.begin(), run.cases.end(), [&](const CaseResult& x) {
        return x.spec.device == s.device && x.spec.workload == s.workload && x.spec.dtype == s.dtype &&
               x.spec.batch_size == s.batch_size && model_label(x.spec) == s.model;
      });
      if (c == run.cases.end()) continue;
      std::fprintf(stderr, "accelbench: parity of %s on %s against the CPU (%d steps each)...\n", s.model.c_str(), s.device.c_str(),
                   parity_steps);
      auto workload = make_workload(s.workload);
      auto device = open_device(s.device);
      auto cpu = open_device("cpu");
      CaseSpec cpu_spec = c->spec;
      cpu_spec.device = "cpu";
      cpu_spec.threads = o.threads;
      const auto on_device = train_for_parity(c->spec, *workload, *device, mo, parity_steps);
      const auto on_cpu = train_for_parity(cpu_spec, *workload, *cpu, mo, parity_steps);
      s.parity = make_parity(on_device, on_cpu, fmt::format("cpu {}", s.dtype));
    }
  }
  run.wall_s = elapsed();
  if (!o.json_path.empty()) write_json_report(run, o.json_path);
  if (store) {
    const auto ref = store->save_run(run);
    std::fprintf(stderr, "accelbench: stored as run %lld (uid %s) in %s\n", static_cast<long long>(ref.id), ref.uid.c_str(),
                 store->path().c_str());
  }
  std::cout << render_terminal_report(run) << std::flush;
  std::fprintf(stderr, "accelbench: done in %s%s\n", format_duration(run.wall_s).c_str(),
               o.json_path.empty() ? "" : fmt::format(", results in {}", o.json_path).c_str());
  return failures ? 1 : 0;
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Measure training on the CPU and every accelerator, side by side");
  cmd->add_option("--models", o->models, "Comma-separated workloads: mlp, cnn, transformer, resnet18, bert-base, dcgan")
      ->capture_default_str();
  cmd->add_option("--devices", o->devices, "Comma-separated devices (cpu, cuda, cuda:1, mps) or 'all'")->capture_default_str();
  cmd->add_option("--dtype", o->dtypes,
                  "Comma-separated precisions: float32, tfloat32 (CUDA: TF32 matmuls), bfloat16, float16 (autocast mixed "
                  "precision, fp32 weights; float16 with loss scaling)")
      ->capture_default_str();
  cmd->add_option("--batch-size", o->batch_size, "Training batch size")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU intra-op threads (0: torch's default, one per core)")->capture_default_str();
  cmd->add_option("--ci-target", o->ci_target, "Stop when the median's 95% CI is within +-this fraction")->capture_default_str();
  cmd->add_option("--min-samples", o->min_samples, "Minimum timed samples per case")->capture_default_str();
  cmd->add_option("--min-time", o->min_time, "Minimum sampling time per case")->capture_default_str();
  cmd->add_option("--max-time-per-case", o->max_time_per_case, "Most time one case may take (build, warm-up, sampling)")
      ->capture_default_str();
  cmd->add_option("--budget", o->budget, "Time budget shared among all cases ('none' for no budget)")->capture_default_str();
  cmd->add_option("--min-sample-time", o->min_sample_time, "Group short steps so one sample lasts at least this")
      ->capture_default_str();
  cmd->add_flag("--quick", o->quick, "Quick look: +-5% target, 5 samples, 10 s per case, 1 minute budget");
  cmd->add_flag("--phases", o->phases, "Time forward, backward and optimizer separately (adds synchronizations)");
  cmd->add_flag("--full-epoch", o->full_epoch,
                "After sampling, time one real epoch end to end (all distinct batches; not bounded by the case's time)");
  cmd->add_flag("--no-telemetry", o->no_telemetry, "Do not sample energy, power, temperature, clocks and memory");
  cmd->add_option("--telemetry-hz", o->telemetry_hz, "Telemetry readings per second during a case")->capture_default_str();
  cmd->add_option("--epochs", o->epochs, "Predict the time and energy of a training run of this many epochs")
      ->capture_default_str();
  cmd->add_option("--cooldown", o->cooldown, "Pause between cases so the devices cool down, e.g. 30s (not counted in --budget)")
      ->capture_default_str();
  cmd->add_flag("--synthetic", o->synthetic, "Use synthetic data even when the dataset files are present");
  cmd->add_option("--data-dir", o->data_dir,
                  "Dataset directory: Fashion-MNIST IDX files (mlp, cnn, dcgan) or CIFAR-10 binaries (resnet18)");
  cmd->add_option("--workers", o->workers,
                  "Measure the data pipeline with N loader threads (0: in the training thread); default: batches staged on the device");
  cmd->add_option("--repeats", o->repeats, "With --full-epoch: epochs to time (olympic mean: drop fastest and slowest)")
      ->capture_default_str();
  cmd->add_option("--variant", o->variant, "Workload variant (resnet18: torchvision or cifar)");
  cmd->add_option("--text", o->text_path, "bert-base: labelled text, one 'LABEL<TAB>text' a line (default: synthetic)");
  cmd->add_option("--seq-len", o->seq_len, "bert-base sequence length")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed for weights and data")->capture_default_str();
  cmd->add_option("--width", o->width, "mlp hidden width (default 1024)");
  cmd->add_flag("--checkpoint", o->checkpoint,
                "Gradient checkpointing of the encoder blocks (transformer, bert-base): less memory, more compute");
  cmd->add_option("--parity-steps", o->parity_steps,
                  "Numerical parity beside each speed-up: train K steps on the device and on the CPU from the same weights "
                  "and batches (dropout off) and compare the losses and gradient norms; 0: off")
      ->capture_default_str();
  cmd->add_option("--json", o->json_path, "Write every setting, sample and statistic to this JSON file");
  cmd->add_flag("--no-progress", o->no_progress, "No progress line on stderr");
  cmd->add_option("--db", o->db_path, "History database the run is stored in (default: $XDG_DATA_HOME/accelbench/history.db)");
  cmd->add_flag("--no-save", o->no_save, "Do not store the run in the history database");
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() { return execute_run(*o, *cmd); }; });
}

}  // namespace accelbench
