#include "cli/sweep_common.h"

#include "cli/option_checks.h"

#include <CLI/CLI.hpp>
#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "analysis/advisor.h"
#include "core/durations.h"
#include "core/errors.h"
#include "device/device.h"
#include "engine/child_process.h"
#include "engine/sweep_logic.h"
#include "engine/torch_info.h"
#include "optim/autocast.h"
#include "report/json_report.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

void add_common_sweep_options(CLI::App* cmd, SweepCommonOptions& o, unsigned set) {
  cmd->add_option("--model", o.model, "The workload: mlp, cnn, transformer, resnet18, bert-base, dcgan")->required();
  if (set & kSweepDeviceOption) cmd->add_option("--device", o.device, "The device: cpu, cuda, cuda:1, mps")->required();
  if (set & kSweepBatchOption) cmd->add_option("--batch-size", o.batch_size, "Training batch size")->capture_default_str();
  if (set & kSweepDtypeOption)
    cmd->add_option("--dtype", o.dtype, "One precision: float32, tfloat32 (CUDA), bfloat16, float16 (autocast)")
        ->capture_default_str();
  if (set & kSweepThreadsOption)
    cmd->add_option("--threads", o.threads, "CPU intra-op threads (0: torch's default, one per core)")->capture_default_str();
  cmd->add_option("--width", o.width, "mlp hidden width (default 1024)");
  cmd->add_flag("--checkpoint", o.checkpoint,
                "Gradient checkpointing of the encoder blocks (transformer, bert-base): less memory, more compute");
  cmd->add_option("--ci-target", o.ci_target, "Stop a point when the median's 95% CI is within +-this fraction")
      ->capture_default_str();
  cmd->add_option("--min-samples", o.min_samples, "Minimum timed samples per point")->capture_default_str();
  cmd->add_option("--min-time", o.min_time, "Minimum sampling time per point")->capture_default_str();
  cmd->add_option("--max-time-per-point", o.max_time_per_point, "Most time one point may take (build, warm-up, sampling)")
      ->capture_default_str();
  cmd->add_option("--budget", o.budget, "Time budget shared among the points ('none' for no budget)")->capture_default_str();
  cmd->add_option("--min-sample-time", o.min_sample_time, "Group short steps so one sample lasts at least this")
      ->capture_default_str();
  cmd->add_flag("--no-telemetry", o.no_telemetry, "Do not sample energy, power, temperature, clocks and memory");
  cmd->add_flag("--synthetic", o.synthetic, "Use synthetic data even when the dataset files are present");
  cmd->add_option("--data-dir", o.data_dir, "Dataset directory (Fashion-MNIST or CIFAR-10 files)");
  cmd->add_option("--variant", o.variant, "Workload variant (resnet18: torchvision or cifar)");
  cmd->add_option("--seq-len", o.seq_len, "bert-base sequence length")->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed for weights and data")->capture_default_str();
  cmd->add_option("--json", o.json_path, "Write the sweep (run schema plus a \"sweep\" block) to this JSON file, point by point");
  cmd->add_option("--db", o.db_path, "History database the sweep is stored in (default: $XDG_DATA_HOME/accelbench/history.db)");
  cmd->add_flag("--no-save", o.no_save, "Do not store the sweep in the history database");
}

SweepSetup::SweepSetup() = default;
SweepSetup::~SweepSetup() = default;
SweepSetup::SweepSetup(SweepSetup&&) noexcept = default;

SweepSetup prepare_sweep(const SweepCommonOptions& o, const CLI::App& cmd, unsigned set, const std::string& kind) {
  SweepSetup s;
  if ((set & kSweepBatchOption) && o.batch_size < 1)
    throw UsageError(fmt::format("--batch-size must be at least 1 (got {})", o.batch_size));
  check_threads(o.threads);
  check_stopping(o.ci_target, o.min_samples);
  const double min_time = parse_duration_seconds(o.min_time);
  s.max_per_point_s = parse_duration_seconds(o.max_time_per_point);
  s.budget_s = o.budget == "none" ? 0 : parse_duration_seconds(o.budget);
  const double min_sample_time = parse_duration_seconds(o.min_sample_time);
  if (s.max_per_point_s <= 0) throw UsageError("--max-time-per-point must be positive");
  if (o.dtype.find(',') != std::string::npos)
    throw UsageError(fmt::format("--dtype takes one precision per sweep (got '{}')", o.dtype));
  const auto precision = parse_precision(o.dtype);
  s.dtype = precision.name;
  check_seq_len(o.seq_len);
  if (cmd.count("--width") && o.width < 1) throw UsageError(fmt::format("--width must be at least 1 (got {})", o.width));
  check_data_dir(o.data_dir);
  s.workload = make_workload(o.model);  // UsageError naming the models when unknown
  if (set & kSweepDeviceOption) {
    s.device = open_device(o.device);  // UsageError naming the devices when unknown
    s.device_id = s.device->id();
    check_precision_on_device(precision, s.device->torch_device().type(), s.device_id);
  }
  if (!o.json_path.empty()) check_writable(o.json_path, "--json");
  validate_workload_options(*s.workload, input_check_options(o, s.dtype));
  auto& mo = s.measure;
  mo.stopping.ci_target = o.ci_target;
  mo.stopping.min_samples = o.min_samples;
  mo.stopping.min_time_s = min_time;
  mo.stopping.max_time_s = s.max_per_point_s;
  mo.min_sample_time_s = min_sample_time;
  mo.variant = o.variant;
  mo.seq_len = o.seq_len;
  mo.telemetry = !o.no_telemetry;
  mo.seed = o.seed;
  mo.use_real_data = !o.synthetic;
  mo.data_dir = o.data_dir;
  s.settings = {{"sweep", kind},
                {"models", nlohmann::json::array({o.model})},
                {"dtypes", nlohmann::json::array({s.dtype})},
                {"threads", o.threads == 0 ? at::get_num_threads() : o.threads},
                {"width", o.width},
                {"checkpoint", o.checkpoint},
                {"ci_target", mo.stopping.ci_target},
                {"confidence", mo.stopping.confidence},
                {"min_samples", mo.stopping.min_samples},
                {"min_time_s", mo.stopping.min_time_s},
                {"max_time_per_point_s", s.max_per_point_s},
                {"budget_s", s.budget_s},
                {"min_sample_time_s", mo.min_sample_time_s},
                {"variant", o.variant},
                {"telemetry", !o.no_telemetry},
                {"synthetic_forced", o.synthetic},
                {"data_dir", o.data_dir},
                {"seed", o.seed},
                {"timing", "host steady_clock around K training steps, closed by a device synchronization"}};
  if (set & kSweepBatchOption) s.settings["batch_size"] = o.batch_size;
  if (s.device) s.settings["devices"] = nlohmann::json::array({s.device_id});
  // The history is opened (created, migrated, or refused when damaged) before anything is measured.
  if (!o.no_save) s.store = std::make_unique<HistoryStore>(o.db_path.empty() ? HistoryStore::default_path() : o.db_path);
  return s;
}

WorkloadOptions input_check_options(const SweepCommonOptions& o, const std::string& dtype) {
  WorkloadOptions check;
  check.use_real_data = !o.synthetic;
  check.data_dir = o.data_dir;
  check.variant = o.variant;
  check.width = o.width;
  check.checkpoint = o.checkpoint;
  check.dtype = dtype;
  return check;
}

CaseSpec base_spec(const SweepCommonOptions& o, const SweepSetup& s) {
  CaseSpec spec;
  spec.workload = o.model;
  spec.device = s.device_id;
  spec.dtype = s.dtype;
  spec.batch_size = o.batch_size;
  spec.threads = o.threads;
  spec.width = o.width;
  spec.checkpoint = o.checkpoint;
  return spec;
}

double point_allowance(const SweepSetup& s, double spent_s, std::size_t points_left) {
  if (s.budget_s <= 0) return s.max_per_point_s;
  const double share = std::max(0.0, s.budget_s - spent_s) / static_cast<double>(std::max<std::size_t>(1, points_left));
  return std::min(s.max_per_point_s, share);
}

// ---- the record -------------------------------------------------------------------------------------

SweepRecord::SweepRecord(const std::string& command, nlohmann::json settings, std::string json_path)
    : json_path_(std::move(json_path)), start_(now_s()) {
  run_.command = command;
  run_.context = collect_context(settings);
  for (const auto& w : run_.context.warnings) std::fprintf(stderr, "accelbench: warning: %s\n", w.c_str());
}

double SweepRecord::elapsed_s() const { return now_s() - start_; }

nlohmann::json SweepRecord::document(const nlohmann::json& sweep_block) const {
  nlohmann::json doc = run_;
  doc["sweep"] = sweep_block;
  return doc;
}

void SweepRecord::add(CaseResult result, const std::function<nlohmann::json(const RunResult&)>& sweep_block) {
  run_.cases.push_back(std::move(result));
  run_.wall_s = elapsed_s();
  if (!json_path_.empty()) write_json_document(document(sweep_block(run_)), json_path_);  // each point as soon as it is measured
}

nlohmann::json SweepRecord::finish(nlohmann::json sweep_block, HistoryStore* store) {
  run_.wall_s = elapsed_s();
  sweep_block["finished"] = true;
  const auto doc = document(sweep_block);
  if (!json_path_.empty()) write_json_document(doc, json_path_);
  if (store) {
    const auto ref = store->save_run(run_, &doc);
    std::fprintf(stderr, "accelbench: stored as run %lld (uid %s) in %s\n", static_cast<long long>(ref.id), ref.uid.c_str(),
                 store->path().c_str());
  }
  return doc;
}

std::string sweep_report_header(const RunResult& run, const std::string& title) {
  const auto& ctx = run.context;
  return fmt::format("accelbench {} ({}) | torch {} | {} | {} cores\n{}\n\n", ctx.accelbench_version, ctx.git_commit,
                     ctx.torch_version, ctx.cpu_model.empty() ? "CPU" : ctx.cpu_model, ctx.physical_cores, title);
}

void print_sweep_report(const SweepRecord& record, const nlohmann::json& document, const std::string& report,
                        const std::string& json_path) {
  const auto& run = record.run();
  std::string out = report;
  if (std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.noisy; }))
    out += "~ = noisy: CI target not met in the time allowed.\n";
  if (const auto advice = render_advice(advise(run, document)); !advice.empty()) out += "\n" + advice;
  std::cout << out << std::flush;
  std::fprintf(stderr, "accelbench: done in %s%s\n", format_duration(run.wall_s).c_str(),
               json_path.empty() ? "" : fmt::format(", results in {}", json_path).c_str());
}

std::string best_setting_line(const nlohmann::json& sweep, const std::string& key) {
  const auto& best = sweep.at("best_" + key);
  if (best.is_null()) return "";
  return fmt::format("best: {} {} (the fewest within {:.0f}% of the best throughput, {} samples/s)\n", best.get<int>(), key,
                     100 * kKneeTolerance, format_count(sweep.at("best_samples_per_s").get<double>()));
}

// ---- table cells ------------------------------------------------------------------------------------

std::string peak_memory(const CaseResult& c) {
  if (c.memory.peak_allocated_bytes) return format_bytes(static_cast<double>(*c.memory.peak_allocated_bytes));
  if (c.memory.allocated_bytes) return format_bytes(static_cast<double>(*c.memory.allocated_bytes)) + " (now)";
  if (c.memory.peak_rss_bytes) return format_bytes(static_cast<double>(*c.memory.peak_rss_bytes)) + " RSS";
  return "-";
}

std::string throughput_with_ci(const CaseResult& c) {
  if (c.status != "ok" || c.stats.median <= 0) return "-";
  const double b = static_cast<double>(c.spec.batch_size);
  const double lo = c.stats.ci_high > 0 ? b / c.stats.ci_high : 0, hi = c.stats.ci_low > 0 ? b / c.stats.ci_low : 0;
  return fmt::format("{} [{}, {}]{}", format_count(c.samples_per_s), format_count(lo), format_count(hi), c.noisy ? "~" : "");
}

std::string status_cell(const CaseResult& c) {
  std::string status = c.status == "ok" ? "ok" : c.error;
  if (c.status != "ok" && status.rfind("out of memory", 0) == 0) status = fmt::format("OOM at {}", c.spec.batch_size);
  if (status.size() > 60) status = status.substr(0, 57) + "...";
  return status;
}

// ---- isolation -------------------------------------------------------------------------------------

ScratchDir::ScratchDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "accelbench-sweep-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw UsageError(fmt::format("cannot create a temporary folder in {}", tmpl));
  path = tmpl;
}

// Removed with POSIX calls, not std::filesystem::remove_all: the CUDA build of libtorch (pip torch
// 2.11+cu130) exports its own std::filesystem::remove_all, the dynamic linker binds this program's
// call to it, and there it jumps to a null pointer (SIGSEGV at the end of every isolated sweep on
// the H200; found with the crash handler's stack dump). The folder holds only plain files.
ScratchDir::~ScratchDir() {
  if (DIR* dir = ::opendir(path.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      ::unlink((path.string() + "/" + name).c_str());
    }
    ::closedir(dir);
  }
  ::rmdir(path.c_str());
}

nlohmann::json measure_options_json(const MeasureOptions& m) {
  return {{"ci_target", m.stopping.ci_target},
          {"confidence", m.stopping.confidence},
          {"min_samples", m.stopping.min_samples},
          {"min_time_s", m.stopping.min_time_s},
          {"max_time_s", m.stopping.max_time_s},
          {"min_sample_time_s", m.min_sample_time_s},
          {"max_warmup_fraction", m.max_warmup_fraction},
          {"min_warmup_steps", m.min_warmup_steps},
          {"floor_samples", m.floor_samples},
          {"workers", m.workers},
          {"variant", m.variant},
          {"text_path", m.text_path},
          {"seq_len", m.seq_len},
          {"telemetry", m.telemetry},
          {"telemetry_hz", m.telemetry_hz},
          {"epochs", m.epochs},
          {"seed", m.seed},
          {"use_real_data", m.use_real_data},
          {"data_dir", m.data_dir}};
}

MeasureOptions measure_options_from_json(const nlohmann::json& j) {
  MeasureOptions m;
  m.stopping.ci_target = j.at("ci_target").get<double>();
  m.stopping.confidence = j.at("confidence").get<double>();
  m.stopping.min_samples = j.at("min_samples").get<std::size_t>();
  m.stopping.min_time_s = j.at("min_time_s").get<double>();
  m.stopping.max_time_s = j.at("max_time_s").get<double>();
  m.min_sample_time_s = j.at("min_sample_time_s").get<double>();
  m.max_warmup_fraction = j.at("max_warmup_fraction").get<double>();
  m.min_warmup_steps = j.at("min_warmup_steps").get<std::size_t>();
  m.floor_samples = j.at("floor_samples").get<std::size_t>();
  m.workers = j.value("workers", -1);
  m.variant = j.at("variant").get<std::string>();
  m.text_path = j.value("text_path", std::string());
  m.seq_len = j.at("seq_len").get<std::int64_t>();
  m.telemetry = j.at("telemetry").get<bool>();
  m.telemetry_hz = j.at("telemetry_hz").get<double>();
  m.epochs = j.at("epochs").get<int>();
  m.seed = j.at("seed").get<std::uint64_t>();
  m.use_real_data = j.at("use_real_data").get<bool>();
  m.data_dir = j.at("data_dir").get<std::string>();
  return m;
}

// A point that overruns twice its time (plus two minutes for start-up and build) is killed.
CaseResult measure_isolated(const CaseSpec& spec, const MeasureOptions& mo, std::uint64_t memory_limit,
                            const ScratchDir& scratch, std::size_t index) {
  const auto out = (scratch.path / fmt::format("point-{}.json", index)).string();
  const auto err = (scratch.path / fmt::format("point-{}.stderr", index)).string();
  const nlohmann::json request{{"spec", spec}, {"measure", measure_options_json(mo)}, {"memory_limit_bytes", memory_limit}};
  const auto exe = self_executable_path();
  const double timeout = 2 * mo.stopping.max_time_s + 120;
  const auto outcome = run_child({exe, kMeasureCaseCommand, "--spec-json", request.dump(), "--out", out}, err, timeout);
  const auto child_err = slurp(err);
  if (!child_err.empty()) std::fputs(child_err.c_str(), stderr);  // the child's own messages, as they were
  CaseResult r;
  r.spec = spec;
  r.ci_target = mo.stopping.ci_target;
  r.wall_s = outcome.wall_s;
  if (outcome.exited && outcome.exit_code == 0) {
    try {
      r = nlohmann::json::parse(slurp(out)).get<CaseResult>();
      r.wall_s = std::max(r.wall_s, outcome.wall_s);  // start-up and build in the child count too
      return r;
    } catch (const std::exception& e) {
      r.status = "failed";
      r.error = fmt::format("the child's result could not be read: {}", e.what());
      return r;
    }
  }
  r.status = "failed";
  r.error = describe_child_failure(outcome);
  if (outcome.exited) {
    const auto last = last_line_of_file(err);
    r.error = "child " + r.error + (last.empty() ? "" : ": " + last);
  }
  return r;
}

}  // namespace accelbench
