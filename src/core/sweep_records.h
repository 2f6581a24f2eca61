#pragma once
// The typed record of each sweep kind: what `accelbench sweep <kind>` found, beside the run's cases
// (each point names its case by index). The drivers (src/drivers/*_sweep.cpp) fill them, the
// terminal tables (report/sweep_tables.h), the HTML report and the advisor read them. Their JSON is
// the document's "sweep" block, key for key as the sweeps have always written it, so that stored
// runs and files keep reading. No torch here.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/results.h"
#include "core/stats.h"
#include "core/sweep_logic.h"

namespace accelbench {

// ---- batch: throughput and memory against batch size ------------------------------------------
const char* outcome_name(PointOutcome o);  // "ok" | "out of memory" | "failed"

struct BatchSweepPoint {
  std::int64_t batch = 0;
  PointOutcome outcome = PointOutcome::failed;
  std::string phase;                     // "doubling" | "bisection"
  std::size_t case_index = 0;
  double samples_per_s = 0;              // written when it fit
  std::string error;                     // written when it did not
};

struct BisectionRange {
  std::int64_t low = 0, high = 0, resolution = 1;
};

// The sweep's model label ("mlp[graphs]", "mlp[python]"): model_label() of its model, width,
// checkpointing, graphs and the loop that trains it.
template <class Sweep>
std::string sweep_model_label(const Sweep& s) {
  CaseSpec spec{s.model, "", "", 0, 0, s.width, s.checkpoint, s.graphs};
  spec.impl = s.impl;
  spec.compile = s.compile;
  return model_label(spec);
}

// The sweep's model and the loop that trains it ("mlp", "mlp[python]"), for titles and advice that
// name the model alone.
template <class Sweep>
std::string sweep_loop_label(const Sweep& s) {
  CaseSpec spec;
  spec.workload = s.model;
  spec.impl = s.impl;
  spec.compile = s.compile;
  return model_label(spec);
}

struct BatchSweep {
  std::string model, device, dtype;
  std::int64_t width = 0;
  bool checkpoint = false;
  bool graphs = false;                   // every point's step as one CUDA graph (--graphs)
  std::string impl, compile;             // the loop at every point ("" the C++ engine, "python") and its compile mode
  std::int64_t from = 0, to = 0;
  bool to_default = false;
  bool isolated = true;
  std::optional<std::uint64_t> memory_limit_bytes;
  double knee_tolerance = kKneeTolerance;
  std::vector<BatchSweepPoint> points;
  std::optional<std::int64_t> knee, best_batch;
  std::optional<double> best_samples_per_s;
  std::optional<std::int64_t> largest_fit, first_oom, smallest_oom;
  std::optional<BisectionRange> bisection;
  bool finished = false;
};

// The knee is the largest batch that ran and no batch ran out of memory: the throughput was still
// rising where the range ended, so the range holds no knee (a larger --to would find it).
bool knee_at_range_end(const BatchSweep& s);

// ---- precision: speed-up over float32 and numerical parity -------------------------------------
inline constexpr double kParityTolerance = 0.02;

struct PrecisionSweepPoint {
  std::string precision;
  std::string outcome;                   // "ok" | "failed" | "not supported"
  std::string error;
  std::optional<std::size_t> case_index; // absent when not measured (not supported)
  double samples_per_s = 0, median_step_s = 0;  // written when it has a case
  std::optional<RatioEstimate> speedup;  // float32's median / this one's
  std::optional<Parity> parity;
  std::optional<bool> parity_ok;         // present with the parity
};

struct PrecisionSweep {
  std::string model, device;
  std::int64_t batch = 0, width = 0;
  bool checkpoint = false;
  bool graphs = false;                   // --graphs
  std::string impl, compile;             // the loop at every point ("" the C++ engine, "python") and its compile mode
  std::string reference = "float32";
  int parity_steps = 0;
  double parity_tolerance = kParityTolerance;
  double parity_threshold = kParityTolerance;   // older files: the tolerance
  std::optional<Parity> parity_floor;           // float32 against itself
  std::vector<PrecisionSweepPoint> points;
  std::optional<std::string> best;
  bool finished = false;
};

// The threshold a precision's loss drift is judged by: 2%, or twice float32's own run-to-run drift
// when that is larger (non-deterministic kernels: ResNet-18's cuDNN convolutions drift 2.2% from
// themselves after 10 steps on the H200).
double parity_threshold(const std::optional<Parity>& floor);

// ---- threads and workers: throughput against a setting -----------------------------------------
inline constexpr int kStagedWorkers = -1;  // the workers sweep's point with the batches staged on the device

struct SettingSweepPoint {
  int setting = 0;                       // threads, or workers (kStagedWorkers: "staged")
  std::string outcome;                   // "ok" | "failed"
  std::string error;
  std::size_t case_index = 0;
  std::optional<double> samples_per_s;
  std::optional<RatioEstimate> speedup;  // threads: over one thread
  std::optional<double> efficiency;      // threads: speed-up / threads
  std::optional<double> data_wait_fraction;  // workers (not staged)
  std::optional<bool> input_bound;
};

struct SettingSweep {
  std::string kind;                      // "threads" | "workers": also the points' key, "best_<kind>"
  std::string model, device, dtype;
  std::int64_t batch = 0, width = 0;
  bool checkpoint = false;
  bool graphs = false;                   // --graphs (workers)
  std::string impl, compile;             // the loop at every point ("" the C++ engine, "python") and its compile mode
  std::vector<SettingSweepPoint> points;
  double tolerance = kKneeTolerance;
  std::optional<double> staged_samples_per_s;   // workers only (the key is absent for threads)
  std::optional<int> best;                      // the fewest within the tolerance of the best
  std::optional<double> best_samples_per_s;
  bool finished = false;
};

// ---- crossover: where an accelerator overtakes the CPU -----------------------------------------
struct CrossoverSweepPoint {
  std::int64_t x = 0;
  std::size_t device_case_index = 0, cpu_case_index = 0;
  std::optional<RatioEstimate> speedup;  // CPU median / accelerator median
};

const char* crossover_kind_name(CrossoverKind kind);  // "accelerator_always" | "crosses" | ...

struct CrossoverSweep {
  std::string axis = "batch";            // "batch" | "width"
  std::string model, device, baseline_device = "cpu", dtype;
  std::optional<std::int64_t> batch;     // the batch of a width sweep
  std::int64_t width = 0;
  std::string impl, compile;             // the loop at every point ("" the C++ engine, "python") and its compile mode
  std::vector<CrossoverSweepPoint> points;
  Crossover crossover;
  std::string crossover_text;
  bool finished = false;
};

using AnySweep = std::variant<BatchSweep, PrecisionSweep, SettingSweep, CrossoverSweep>;

// The "sweep" block: to_json writes the keys of each kind; from_json reads them, throwing
// on a block it cannot read (a missing key, a wrong type): nlohmann::json::exception, or
// std::runtime_error from core/json_util.h's checked readers; callers catch std::exception.
void to_json(nlohmann::json& j, const BatchSweep& v);
void from_json(const nlohmann::json& j, BatchSweep& v);
void to_json(nlohmann::json& j, const PrecisionSweep& v);
void from_json(const nlohmann::json& j, PrecisionSweep& v);
void to_json(nlohmann::json& j, const SettingSweep& v);
void from_json(const nlohmann::json& j, SettingSweep& v);
void to_json(nlohmann::json& j, const CrossoverSweep& v);
void from_json(const nlohmann::json& j, CrossoverSweep& v);
nlohmann::json sweep_to_json(const AnySweep& sweep);

// The document's sweep, typed: nullopt when it has no "sweep" object or one of an unknown kind;
// throws (std::exception, as above) when the block cannot be read.
std::optional<AnySweep> sweep_from_document(const nlohmann::json& document);

}  // namespace accelbench
