#pragma once
// What every `accelbench sweep` shares: the options (model, device, stopping rule, data, output),
// their validation into MeasureOptions, the run record that streams to --json point by point and
// is stored at the end, the isolated measurement of one point in a child process, and the table
// cells. One file per sweep kind uses it: sweep_{batch,precision,threads,workers,crossover}_command.cpp.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/results.h"
#include "engine/runner.h"

namespace CLI {
class App;
}

namespace accelbench {

class Device;
class Workload;
class HistoryStore;
struct WorkloadOptions;

struct SweepCommonOptions {
  std::string model;
  std::string device;
  std::string dtype = "float32";
  std::int64_t batch_size = 64;     // the sweeps over something else than the batch
  int threads = 0;
  std::int64_t width = 0;
  bool checkpoint = false;
  double ci_target = 0.02;
  std::size_t min_samples = 10;
  std::string min_time = "0.5s";
  std::string max_time_per_point = "1m";
  std::string budget = "5m";
  std::string min_sample_time = "1ms";
  bool no_telemetry = false;
  bool synthetic = false;
  std::string data_dir;
  std::string variant;
  std::int64_t seq_len = 128;
  std::uint64_t seed = 0;
  std::string json_path;
  std::string db_path;
  bool no_save = false;
};

// Which of the common options a sweep offers (the one it sweeps is left out).
enum SweepOptionSet : unsigned {
  kSweepBatchOption = 1u << 0,
  kSweepDtypeOption = 1u << 1,
  kSweepThreadsOption = 1u << 2,
  kSweepDeviceOption = 1u << 3,
};
void add_common_sweep_options(CLI::App* cmd, SweepCommonOptions& o, unsigned set);

// The validated common options. Throws UsageError (one line) on bad input, before anything runs.
struct SweepSetup {
  MeasureOptions measure;
  double max_per_point_s = 60;
  double budget_s = 0;              // 0: none
  std::unique_ptr<Workload> workload;
  std::unique_ptr<Device> device;   // --device (absent when the sweep has no --device)
  std::string device_id;
  std::string dtype;                // canonical precision name
  std::unique_ptr<HistoryStore> store;
  nlohmann::json settings;          // every common option, for the run's context
  SweepSetup();
  ~SweepSetup();
  SweepSetup(SweepSetup&&) noexcept;
};
SweepSetup prepare_sweep(const SweepCommonOptions& o, const CLI::App& cmd, unsigned set, const std::string& kind);

// The options validate_workload_options() checks the inputs with (data, variant, width,
// checkpointing) in precision `dtype`.
WorkloadOptions input_check_options(const SweepCommonOptions& o, const std::string& dtype);

// The spec of one point from the common options.
CaseSpec base_spec(const SweepCommonOptions& o, const SweepSetup& s);

// Shares the sweep's time budget among its points: what is left divided by the points still to
// measure, capped by --max-time-per-point.
double point_allowance(const SweepSetup& s, double spent_s, std::size_t points_left);

// The run a sweep builds: cases as they are measured, the JSON document (the run schema plus a
// "sweep" block) rewritten after each point, stored in the history at the end.
class SweepRecord {
 public:
  SweepRecord(const std::string& command, nlohmann::json settings, std::string json_path);
  RunResult& run() { return run_; }
  const RunResult& run() const { return run_; }
  // Adds a case, then rewrites --json with the sweep block made from the run as it now stands.
  void add(CaseResult result, const std::function<nlohmann::json(const RunResult&)>& sweep_block);
  // Final document (sweep block with "finished": true), written and stored; returns it.
  nlohmann::json finish(nlohmann::json sweep_block, HistoryStore* store);
  double elapsed_s() const;

 private:
  RunResult run_;
  std::string json_path_;
  double start_;
  nlohmann::json document(const nlohmann::json& sweep_block) const;
};

// The header lines of a sweep's report: version, torch, CPU, then `title`.
std::string sweep_report_header(const RunResult& run, const std::string& title);
// Prints the sweep's report on stdout: `report` (header, table, best value), a note when a point
// was noisy, the advice (analysis/advisor.h on the document); then the "done" line on stderr.
void print_sweep_report(const SweepRecord& record, const nlohmann::json& document, const std::string& report,
                        const std::string& json_path);

// "best: 4 threads (the fewest within 5% of the best throughput, 3600 samples/s)" from a threads
// or workers sweep's block (`key` = "threads" | "workers"); "" when it has no best.
std::string best_setting_line(const nlohmann::json& sweep, const std::string& key);

// Table cells.
std::string throughput_with_ci(const CaseResult& c);  // "1.2k [1.1k, 1.3k]" samples/s, "~" when noisy
std::string peak_memory(const CaseResult& c);
std::string status_cell(const CaseResult& c);         // "ok", "OOM at 512", the error (shortened)

// One point in a child process (`_measure-case`): a crash, an abort or a kill is recorded as the
// point's error. The scratch folder holds the children's result files.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir();
  ~ScratchDir();
};
// The request a child gets and the options it rebuilds from it.
nlohmann::json measure_options_json(const MeasureOptions& m);
MeasureOptions measure_options_from_json(const nlohmann::json& j);
inline constexpr const char* kMeasureCaseCommand = "_measure-case";
CaseResult measure_isolated(const CaseSpec& spec, const MeasureOptions& mo, std::uint64_t memory_limit,
                            const ScratchDir& scratch, std::size_t index);

}  // namespace accelbench
