#pragma once
// The typed records of a run: what was measured (CaseSpec), what came out (CaseResult), the
// comparisons between devices (Speedup), and the machine it ran on (RunContext).
// Plan -> Runner -> *Results* -> Store -> Reports/Advisor. No torch here.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/rounds.h"
#include "core/stats.h"
#include "core/telemetry_summary.h"

namespace accelbench {

inline constexpr const char* kRunSchema = "accelbench.run/1";

// One case = (workload, device, dtype, batch size, CPU threads).
struct CaseSpec {
  std::string workload;
  std::string device;           // "cpu", "cuda:0", "mps:0"
  std::string dtype = "float32";
  std::int64_t batch_size = 64;
  int threads = 0;              // CPU intra-op threads used during the case
  std::int64_t width = 0;       // mlp hidden width (--width); 0: the workload's own (1024)
  bool checkpoint = false;      // gradient checkpointing of the encoder blocks (--checkpoint)
  bool graphs = false;          // the whole training step replayed as one device graph (--graphs)
  // Which loop trains it (--impl): "" the C++ engine, "python" the Python measurer (a Python
  // child process: python/accelbench_worker, drivers/python_measurer.h), with `compile` its
  // torch.compile mode ("" eager; "default", "reduce-overhead", "max-autotune").
  std::string impl;
  std::string compile;
};

inline constexpr const char* kPythonImpl = "python";
inline bool is_python(const CaseSpec& spec) { return spec.impl == kPythonImpl; }
// "cpp" or "python": the loop that trains the case.
inline std::string impl_name(const CaseSpec& spec) { return spec.impl.empty() ? "cpp" : spec.impl; }
// The loop that trains the case, as a reader names it: "C++", "Python", "Python, compile=reduce-overhead".
inline std::string loop_name(const CaseSpec& spec) {
  return (spec.impl.empty() ? std::string("C++") : is_python(spec) ? std::string("Python") : spec.impl) +
         (spec.compile.empty() ? "" : ", compile=" + spec.compile);
}
// The implementation column of the tables: "cpp", "python" or "python, compile=reduce-overhead".
inline std::string implementation_label(const CaseSpec& spec) {
  return impl_name(spec) + (spec.compile.empty() ? "" : ", compile=" + spec.compile);
}

// "mlp", "mlp[width=4096]", "transformer[checkpoint]", "mlp[graphs]", "mlp[python]",
// "mlp[python,compile=reduce-overhead]": the workload with what changes its model, how its step is
// launched, or which loop trains it (the history keys a case by this label).
std::string model_label(const CaseSpec& spec);
// model_label() without the loop that trains the case ("mlp[python]" -> "mlp"): the model column
// beside an implementation column.
std::string model_label_without_impl(const CaseSpec& spec);

// Memory during a case. Every field is optional: a backend that cannot tell leaves it empty.
struct MemoryUsage {
  std::optional<std::uint64_t> peak_allocated_bytes;  // device allocator (tensors)
  std::optional<std::uint64_t> peak_reserved_bytes;   // device allocator (cached blocks)
  std::optional<std::uint64_t> allocated_bytes;       // at the end of the case
  std::optional<std::uint64_t> reserved_bytes;
  std::optional<std::uint64_t> peak_rss_bytes;        // host process resident set (peak in case)
  std::optional<std::uint64_t> baseline_rss_bytes;    // its resident set before the model was built
  std::string source;                                  // how it was read, or why not
};

// Per-phase times (seconds), each phase closed by a device synchronization (--phases).
struct PhaseSamples {
  std::vector<double> forward, backward, optimizer;
};

// How a case ended. A failed case keeps what it measured before it failed, a one-line error and
// the kind of failure, so that a sweep can tell the edge of memory from a crash.
enum class CaseStatus { ok, failed };
enum class FailureKind {
  none,
  out_of_memory,   // the allocator said so (c10::OutOfMemoryError, or the backend's message)
  diverged,        // the loss became NaN or Inf
  backend_error,   // any other error from the backend or the workload
  crashed,         // the child process measuring it died (signal, abort, time limit, no result)
};
const char* to_string(CaseStatus status);      // "ok" | "failed"
const char* to_string(FailureKind kind);       // "none" | "out_of_memory" | "diverged" | ...
// The kind an error message from an older file (without "failure") stands for.
FailureKind failure_kind_from_message(const std::string& error);

// One round of a case: a fresh process (or, with --in-process-rounds, a fresh model in this one)
// that built, warmed up and sampled on its own. Rounds differ by more than the samples inside one
// (launch latency, clocks, allocator and address-space layout): the case's interval comes from
// them (core/rounds.h).
struct RoundResult {
  double median_s = 0;          // median step time of the round's samples
  std::size_t samples = 0;      // samples the round kept (after any discarded by drift)
  int warmup_steps = 0;
  std::size_t discarded_samples = 0;  // samples before a level change, dropped as extended warm-up
  bool drifting = false;        // the level still moved when the round's time ran out
  double wall_s = 0;
};

// Where the next run's median falls (analysis/run_to_run): the run-to-run spread of a case's median,
// estimated for this host from the history of every case of the same kind and this run's rounds.
struct RunToRun {
  std::size_t earlier_runs = 0;  // this case's earlier runs in the history (same host, torch, threads)
  double sd_log = 0;             // the estimated sd of a run's log median (pooled, see source)
  double dof = 0;                // the degrees of freedom of that estimate (the t quantile's)
  double half_width_log = 0;     // t_{0.975, dof} * sd_log * sqrt(2): where the next run's median falls
  double level_half_width_log = 0;  // t_{0.975, dof} * sd_log: this run's own precision (the level's interval)
  bool widened = false;          // the case's interval (stats.ci_low/high) is the next run's range
  std::string kind;              // the kind of case it was pooled with: "host-bound", "device-bound", ...
  // "history" (earlier runs of cases of its kind varied more than the rounds), "history and rounds"
  // (they agree: both pooled), "rounds" (no history yet: this run's rounds of cases of its kind),
  // "fallback" (neither: a named constant, prior_sd_log, measured where prior_basis says). A
  // speed-up's: "ratio history", "paired rounds", "ratio history and paired rounds", "cases" (its
  // two cases' spreads added; analysis/speedup_spread.h).
  std::string source;
  std::size_t history_cases = 0;  // the cases whose stored runs took part
  double prior_sd_log = 0;       // the fallback constant's sd (0: none used)
  std::string prior_basis;       // where the fallback constant was measured
  // Stored runs of this case (of this speed-up) left out of its history: measured under a distortion
  // this run was not measured under (their run ids), or outliers (a median beyond kOutlierFactor of
  // the others' and beyond kOutlierSds robust sds of them).
  std::vector<std::int64_t> distorted_runs, outlier_runs;
  // Not empty where the next run's range would span more than kTooWideFactor: why, and what to do
  // instead; the reports say this in place of the range.
  std::string too_wide;
  bool uses_prior() const { return prior_sd_log > 0; }
  bool from_history() const { return source.rfind("history", 0) == 0 || source.rfind("ratio history", 0) == 0; }
};

// A next-run range wider than this (high / low) is not printed: the tool says why instead.
inline constexpr double kTooWideFactor = 10;

struct CaseResult {
  CaseSpec spec;
  CaseStatus status = CaseStatus::ok;
  FailureKind failure = FailureKind::none;
  std::string error;            // one line, when failed
  bool ok() const { return status == CaseStatus::ok; }
  bool out_of_memory() const { return failure == FailureKind::out_of_memory; }
  void fail(FailureKind kind, std::string message) {
    status = CaseStatus::failed;
    failure = kind;
    error = std::move(message);
  }

  // Timing: every sample is seconds per training step (a sample may average several steps
  // run back to back between two synchronizations; steps_per_sample says how many).
  std::vector<double> samples;
  int steps_per_sample = 1;
  Summary stats;
  bool noisy = false;           // the CI target was not met within the time allowed
  double ci_target = 0.02;
  double relative_ci_half_width = 0;  // achieved
  int warmup_steps = 0;
  double warmup_s = 0;
  bool warmup_stable = true;
  // Drift inside the measurement: samples before a level change found after warm-up are dropped
  // and counted as warm-up; a level still moving when the time ran out flags the case.
  std::size_t discarded_samples = 0;
  bool drifting = false;
  // Rounds (run --rounds N): each round's figures; `samples` is their concatenation in order and
  // stats.ci_low/ci_high the rounds' interval (interval_method says how it was made).
  std::vector<RoundResult> rounds;
  bool rounds_disagree = false;  // the rounds' medians differ by more than the CI target allows
  std::string interval_method;   // "" : the samples' own order-statistic interval
  // The spread of this case's median over earlier runs in the history (analysis/run_to_run), when
  // there are enough of them: the next run varies at least as much, so it may widen the interval.
  std::optional<RunToRun> run_to_run;
  double measure_s = 0;         // time spent sampling
  double wall_s = 0;            // build + warm-up + sampling

  // Derived throughput
  double samples_per_s = 0;     // batch_size / median step time
  std::int64_t samples_per_epoch = 0;
  std::string epoch_unit = "samples";
  double epoch_s_estimate = 0;  // median step time x steps per epoch (an estimate)
  std::optional<double> epoch_s_measured;  // --full-epoch: real epochs timed end to end (olympic mean)
  std::vector<double> epoch_s_all;         // each timed epoch
  double train_flops_per_sample = 0;
  double achieved_flops_per_s = 0;

  // The training is real
  double loss_before = 0, loss_after = 0;  // evaluation loss on a fixed batch
  std::int64_t parameter_count = 0;
  std::string data_source;      // "fashion-mnist (/usr/share/...)" or "synthetic"
  bool synthetic_data = false;
  std::string optimizer;        // e.g. "adam (fused ATen kernel)"
  std::string pipeline;         // "staged on the device" or the data pipeline's workers
  std::string numerics;         // a choice of numerics beyond the precision's usual one, else ""
                                // (bert-base: "residual stream in bfloat16"; TrainingTask::numerics_description)
  // The workload has blocks to checkpoint (WorkloadInfo::has_checkpoint): --checkpoint applies to
  // it, in the C++ engine's loop (the advisor's memory advice).
  bool checkpointable = false;

  // Data pipeline (--workers): per sample, the seconds per step spent waiting for input.
  std::vector<double> data_wait_samples;
  double data_wait_fraction = 0;  // median wait / median step
  bool input_bound = false;       // wait > 10% of the step

  // Device time (CUDA, XPU: the device's own events around each sample), beside the host's wall
  // time. The events' span includes the gaps in which the device waits for the host's launches, so
  // it tracks the host's clock (a cross-check: device_clock_ratio near 1), not the device's work.
  std::vector<double> device_samples;          // seconds per step, by the device's clock
  std::optional<double> device_clock_ratio;    // median device_samples / median host step
  // The device's busy time: a few extra samples in which the device's queue is held (a spin
  // kernel) while the host launches the steps, which then run back to back, with no launch gap
  // (Device::hold_queue; CUDA). Below kLaunchBoundShare of the step the host, not the accelerator,
  // sets the speed (launch-bound).
  std::vector<double> device_busy_samples;     // seconds per step the device needs on its own
  std::optional<double> device_busy_fraction;  // median device_busy_samples / median host step
  bool launch_bound = false;
  // --graphs: the kernels, copies and memsets one replay of the step's graph runs (0: not known,
  // as in an eager step, whose launches are not counted).
  std::int64_t device_operations_per_step = 0;

  // Utilisation, where `accelbench peak` stored this device's ceilings for this torch
  // (core/utilisation.h): the case's FLOP/s as a share of the matmul ceiling of its precision, and
  // a verdict from that and the busy share, with the evidence in words.
  std::optional<double> ceiling_flops_per_s;  // the measured matmul ceiling of the case's precision
  // The precision whose ceiling applies, where not the case's dtype: "tfloat32" for a float32
  // convolutional workload on CUDA, whose convolutions cuDNN runs in TF32 by default (dcgan's graph
  // reached 115% of the float32 ceiling on the H200).
  std::string ceiling_precision;
  std::string ceiling_measured_utc;           // when `peak` measured it
  std::optional<double> ceiling_share;        // achieved_flops_per_s / ceiling_flops_per_s
  // The precision whose measured matmul ceiling on this device is the highest, where it is clearly
  // (5%) above ceiling_precision's ("": none is; on a CPU that emulates bfloat16, float32's is the highest).
  std::string faster_precision;
  std::optional<double> faster_precision_flops_per_s;
  std::string bound;                          // "launch-bound", "small-kernel-bound", "compute-bound", "memory-bound" or ""
  std::string bound_evidence;                 // "device busy 31% of the step", ...

  MemoryUsage memory;
  std::optional<PhaseSamples> phases;
  // Energy, power, temperature, clocks and memory over the measured window (absent with
  // --no-telemetry); every figure names its source or says "unavailable: <reason>".
  std::optional<TelemetrySummary> telemetry;
};

// Below this share of the step spent busy on the device, a case is launch-bound.
inline constexpr double kLaunchBoundShare = 0.5;

// Whether the loss rose over the measured training (after > before): a benchmark of training that
// does not train measures the wrong thing, and the table says so.
bool loss_rose(const CaseResult& c);

// Numerical parity of training against a reference (float32 on the same device, or the CPU): the
// same initial weights and batches, dropout off, K optimizer steps on each (engine/parity.h).
struct Parity {
  std::string reference;                 // e.g. "cpu float32", "cuda:0 float32"
  int steps = 0;
  std::vector<double> losses, reference_losses;  // the training loss at each step
  double loss_rel_diff = 0;              // |loss_K - ref_K| / |ref_K|, at the last step
  double max_loss_rel_diff = 0;          // the largest over the K steps
  std::optional<double> grad_norm, reference_grad_norm;  // L2 norm of the gradients at step K (unscaled)
  std::optional<double> grad_norm_rel_diff;
  int skipped_steps = 0;                 // optimizer steps float16's loss scaling skipped (Inf/NaN gradients)
  std::string error;                     // why it could not be measured (then the figures are empty)
};

// Speed-up of a device over the baseline (the CPU) for one workload: ratio of medians
// (baseline / device; > 1 means the device is faster) with its 95% CI: from the rounds of both
// (core/rounds.h) when both have two or more, else a bootstrap of the samples.
// Whether the case has a 95% interval to show: two samples or more, or (one sample) the spread of
// earlier runs in the history (analysis/run_to_run).
inline bool has_interval(const CaseResult& c) { return c.stats.n >= 2 || (c.run_to_run && c.run_to_run->widened); }

struct Speedup {
  std::string workload;
  std::string device;
  std::string baseline_device = "cpu";
  std::int64_t batch_size = 0;
  std::string dtype;
  double ratio = 0, ci_low = 0, ci_high = 0;
  std::string model;            // model_label(): "mlp[width=4096]"; the workload's name when plain
  std::optional<Parity> parity; // the device's training against the CPU's (run --parity-steps)
  bool widened_by_history = false;  // ci_low/high: the next run's range from the cases' run-to-run spread (run)
  // This run's own precision: the interval of the ratio of the levels (0: not known). ci_low/high
  // are the next run's range where widened_by_history (what the table shows), else the same.
  double level_low = 0, level_high = 0;
  std::string baseline_dtype;   // the baseline's precision where it is not `dtype` (speedups_over_fastest_cpu)
  // The spread its next run's range rests on (analysis/run_to_run, `run`): of its own log ratio
  // (source "ratio history", "paired rounds", both) or its two cases' added ("cases").
  std::optional<RunToRun> run_to_run;
  // The model's label: `model`, or the workload's name where a record has none.
  const std::string& label() const { return model.empty() ? workload : model; }
};

struct DeviceDescription {
  std::string id, type, name;
  int index = -1;
  std::optional<std::uint64_t> total_memory_bytes;
};

// The context block: enough to tell later where and how a run was made.
struct RunContext {
  std::string accelbench_version, git_commit;
  std::string timestamp_utc;    // ISO 8601
  std::string host, os, kernel, arch;
  std::string cpu_model;
  int physical_cores = 0, logical_cores = 0;
  std::uint64_t memory_bytes = 0;
  std::string torch_version, cpu_capability, parallel_backend;
  std::string compiler;
  nlohmann::json backends = nlohmann::json::object();   // per backend: available, version, reason
  std::vector<DeviceDescription> devices;
  nlohmann::json settings = nlohmann::json::object();   // every option of the command
  std::vector<std::string> warnings;                    // environment that distorts timings, etc.
  // The machine checks that found the timings distorted as the run began ("load", "busy processes";
  // system/machine_checks.h): a run so marked is shown marked and left out of later runs' next-run
  // ranges. Read from a document without it (an older accelbench's): kUnnamedDistortion where a
  // warning says "timings may be DISTORTED", else empty.
  std::vector<std::string> distorted_by;
};
inline constexpr const char* kUnnamedDistortion = "a machine check";

struct RunResult {
  std::string schema = kRunSchema;
  std::string command = "run";
  RunContext context;
  std::vector<CaseResult> cases;
  std::vector<Speedup> speedups;
  // Each graphs case (--graphs) over the eager case of the same model on its device: baseline_device
  // is that device, model the graphs case's label ("mlp[graphs]").
  std::vector<Speedup> graph_speedups;
  // Each accelerator case over the CPU's fastest measured precision of the same model and batch,
  // where that is another precision than the case's own (baseline_dtype names it): the speed-up a
  // user who would train on the CPU at its best gets.
  std::vector<Speedup> speedups_over_fastest_cpu;
  double wall_s = 0;
};

// The case's samples split by round (rounds[i].samples each, in order); one round when it has none.
Rounds samples_by_round(const CaseResult& c);

// Speed-ups of every accelerator case over the CPU case of the same workload, dtype and batch (the
// CPU's eager step: a graphs case is compared with it too).
std::vector<Speedup> compute_speedups(const std::vector<CaseResult>& cases);
// Speed-ups of every graphs case over the eager case of the same model, dtype and batch on its device.
std::vector<Speedup> compute_graph_speedups(const std::vector<CaseResult>& cases);
// Speed-ups of every accelerator case over the fastest CPU case (lowest median) of the same model
// and batch in any precision, where that precision is not the case's own.
std::vector<Speedup> compute_speedups_over_fastest_cpu(const std::vector<CaseResult>& cases);

// JSON (the schema above). from_json accepts what to_json writes; throws std::runtime_error with
// a one-line message on another schema.
void to_json(nlohmann::json& j, const CaseSpec& v);
void from_json(const nlohmann::json& j, CaseSpec& v);
void to_json(nlohmann::json& j, const Summary& v);
void from_json(const nlohmann::json& j, Summary& v);
void to_json(nlohmann::json& j, const RoundResult& v);
void from_json(const nlohmann::json& j, RoundResult& v);
void to_json(nlohmann::json& j, const MemoryUsage& v);
void from_json(const nlohmann::json& j, MemoryUsage& v);
void to_json(nlohmann::json& j, const CaseResult& v);
void from_json(const nlohmann::json& j, CaseResult& v);
void to_json(nlohmann::json& j, const Parity& v);
void from_json(const nlohmann::json& j, Parity& v);
void to_json(nlohmann::json& j, const Speedup& v);
void from_json(const nlohmann::json& j, Speedup& v);
void to_json(nlohmann::json& j, const RunContext& v);
void from_json(const nlohmann::json& j, RunContext& v);
void to_json(nlohmann::json& j, const RunResult& v);
void from_json(const nlohmann::json& j, RunResult& v);

}  // namespace accelbench
