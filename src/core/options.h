#pragma once
// The two records every command fills from its flags, each defined once (no torch here):
//  - WorkloadInputs: what a workload reads besides the case itself (its data, variant, text,
//    sequence length, seed, data pipeline). The case (core/results.h CaseSpec) holds what makes the
//    model: workload, device, precision, batch, threads, width, checkpointing.
//  - MeasureSettings: how a case is measured (stopping rule, warm-up, grouping of short steps,
//    phases, full epochs, telemetry).
// The torch-side WorkloadOptions (workloads/workload.h) is a CaseSpec's model fields, these inputs,
// and the torch device. The JSON conversions serve the run's context block and the request a
// child process measures (drivers/isolated_measurer.h).
//
// Adding an input that reaches a workload: a field here (and in to_json/from_json), its flag in
// cli/common_options.cpp, and the workload that reads it: three places.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "core/stopping.h"

namespace accelbench {

struct WorkloadInputs {
  bool use_real_data = true;    // the dataset files when present (else synthetic); --synthetic: false
  std::string data_dir;         // override of the dataset location (--data-dir)
  std::string variant;          // workload variant (resnet18: "torchvision" | "cifar")
  std::string text_path;        // bert-base: labelled text, one example a line (--text)
  std::int64_t seq_len = 128;   // bert-base sequence length
  std::uint64_t seed = 0;       // weights and data
  // The data pipeline: -1 = off (batches staged on the device; compute only), else the number of
  // loader worker threads (0 = batches produced in the training thread when needed).
  int workers = -1;
  // A model of the user's (accelbench run --model-file): a TorchScript file, its batch described in
  // text (core/model_spec.h; empty: the description embedded in the file) and its training FLOPs per
  // sample (0: the embedded figure, else unknown). The case is named after the file.
  std::string model_file;
  std::string model_input;
  std::string model_target;
  double model_flops_per_sample = 0;
  // The Python measurer (--impl python, --py-model): the interpreter it runs under (the harness
  // fills it in: --python, else the first python3 that imports torch), the user's model as
  // FILE.py:FACTORY (its batch from model_input and model_target), and the optimizer it trains with
  // ("" PyTorch's default Adam; "adam:fused", "adamw:foreach", "sgd"...).
  std::string python;
  std::string py_model;
  std::string py_optimizer;
};

struct MeasureSettings {
  StoppingRule stopping;              // max_time_s bounds the whole case: build, warm-up, sampling
  double min_sample_time_s = 1e-3;    // short steps are grouped K at a time so a sample lasts this long
  double max_warmup_fraction = 0.3;   // of the case's time
  std::size_t min_warmup_steps = 3;
  std::size_t floor_samples = 3;      // taken even past the deadline, so that a case says something
  bool phases = false;                // time forward / backward / optimizer separately
  bool full_epoch = false;            // after sampling, time real epochs end to end (not bounded by max_time_s)
  int epoch_repeats = 1;              // full epochs timed; olympic mean when 3 or more
  bool telemetry = true;              // energy, power, temperature, clocks, memory (src/telemetry)
  double telemetry_hz = 20;           // sampler readings per second
  int epochs = 1;                     // the full training run whose time and energy are predicted
};

// What one case's measurement needs besides its spec.
struct MeasureOptions {
  WorkloadInputs inputs;
  MeasureSettings settings;
};

void to_json(nlohmann::json& j, const WorkloadInputs& v);
void from_json(const nlohmann::json& j, WorkloadInputs& v);
void to_json(nlohmann::json& j, const MeasureSettings& v);
void from_json(const nlohmann::json& j, MeasureSettings& v);
void to_json(nlohmann::json& j, const MeasureOptions& v);
void from_json(const nlohmann::json& j, MeasureOptions& v);

}  // namespace accelbench
