#pragma once
// The Runner: measures one case. Builds the model, optimizer and staged batches on the device,
// warms up until the step time is stable, then takes timed training steps (each sample closed by a
// device synchronization) until the median's CI meets its target or the time runs out.
#include <functional>
#include <string>

#include "core/results.h"
#include "core/stopping.h"

namespace accelbench {

class Device;
class Workload;
struct WorkloadOptions;

struct MeasureOptions {
  StoppingRule stopping;              // max_time_s bounds the whole case: build, warm-up, sampling
  double min_sample_time_s = 1e-3;    // short steps are grouped K at a time so a sample lasts this long
  double max_warmup_fraction = 0.3;   // of the case's time
  std::size_t min_warmup_steps = 3;
  std::size_t floor_samples = 3;      // taken even past the deadline, so that a case says something
  bool phases = false;                // time forward / backward / optimizer separately
  int workers = -1;                   // data pipeline: -1 off (staged batches), else loader threads
  std::string variant;                // workload variant (resnet18: "cifar")
  std::string text_path;              // bert-base: labelled text file
  std::int64_t seq_len = 128;         // bert-base sequence length
  bool full_epoch = false;
  int epoch_repeats = 1;              // full epochs timed; olympic mean when 3 or more            // after sampling, time one real epoch end to end (not bounded by max_time_s)
  bool telemetry = true;              // energy, power, temperature, clocks, memory (src/telemetry)
  double telemetry_hz = 20;           // sampler readings per second
  int epochs = 1;                     // the full training run whose time and energy are predicted
  std::uint64_t seed = 0;
  bool use_real_data = true;
  std::string data_dir;
};

struct ProgressEvent {
  const CaseSpec* spec = nullptr;
  std::string stage;                  // "build", "warm-up", "measure"
  std::size_t samples = 0;
  double relative_half_width = 0;
  double case_elapsed_s = 0;
  double case_allowance_s = 0;
};
using ProgressFn = std::function<void(const ProgressEvent&)>;

// The options a case's workload is built with: the spec's batch, precision, width and
// checkpointing on this device, the measurement's data, variant, sequence length and seed.
WorkloadOptions workload_options_for(const CaseSpec& spec, Device& device, const MeasureOptions& options);

// Never throws for what goes wrong inside the case (out of memory, NaN, a backend error): the
// result then has status "failed" and a one-line error.
CaseResult measure_case(const CaseSpec& spec, const Workload& workload, Device& device, const MeasureOptions& options,
                        const ProgressFn& progress = {});

}  // namespace accelbench
