#pragma once
// A workload is a model, its data and its loss, trained by a TrainingTask that the measurement
// engine drives step by step. One file per workload; the registry lists them.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/options.h"
#include "optim/lr_schedule.h"

namespace accelbench {

struct WorkloadInfo {
  std::string name;
  std::string description;          // one line
  std::int64_t samples_per_epoch = 0;
  std::string epoch_unit = "samples";
  std::int64_t parameter_count = 0; // analytic; the built model must agree (tests check)
  double train_flops_per_sample = 0;  // analytic: 3 x forward matmul/conv FLOPs (2 per MAC)
  bool has_width = false;           // the hidden width can be set (--width: mlp)
  std::int64_t default_width = 0;   // with has_width: its hidden width without --width
  bool has_checkpoint = false;      // gradient checkpointing of its blocks (--checkpoint: transformer, bert-base)
  // What --data-dir holds for it ("Fashion-MNIST IDX files"); empty: it trains on synthetic data only.
  std::string dataset;
  std::vector<std::string> variants;  // --variant's values, the default first; empty: it has none
  bool reads_text = false;          // it reads --text and --seq-len (bert-base)
  // --quick: its smaller case, where the default one takes too long for a quick look on a small CPU
  // (bert-base: batch 8, sequence 64); 0: the run's own.
  std::int64_t quick_batch_size = 0;
  std::int64_t quick_seq_len = 0;
  bool convolutional = false;       // most of its FLOPs are convolutions (cuDNN on CUDA: TF32 in float32 by default)
  // Why its training step cannot be captured as one device graph (--graphs); empty when it can
  // (its TrainingTask implements the graph hooks below: the built-in workloads).
  std::string graph_refusal = "its training task does not implement the graph hooks (TrainingTask::enter_graph_mode)";
  // Why it cannot be trained data-parallel (`scale`, `run --gpus`); empty when its TrainingTask
  // exposes its parameters to one optimizer (trainable_parameters).
  std::string data_parallel_refusal;
};

// What a workload is built with: the case's model fields (from its CaseSpec), the inputs it reads
// (core/options.h) and the torch device. Filled in one place: engine/case_measurement.h
// workload_options_for().
struct WorkloadOptions {
  c10::Device device = c10::Device(c10::kCPU);
  std::int64_t batch_size = 64;
  std::string dtype = "float32";    // "bfloat16": forward and loss under autocast (mixed precision)
  std::int64_t width = 0;           // mlp hidden width; 0: the workload's own
  bool checkpoint = false;          // recompute each encoder block in the backward pass (less memory)
  bool graphs = false;              // the step will be captured as a device graph (--graphs; checked only)
  WorkloadInputs inputs;            // data, variant, text, sequence length, seed, data pipeline
  int staged_batches = 8;           // distinct batches placed on the device beforehand, cycled
  int prefetch_per_worker = 2;
  // bert-base: linear learning-rate warm-up (of its 1,000-step cycle). 10, not 10% (100): a quick
  // run takes about 12 steps, and at 100 its learning rate would never pass 2.4e-6 (docs/workloads.md).
  std::int64_t warmup_steps = 10;
  // Tests and experiments: replaces the workload's own learning rate and schedule (docs/workloads.md).
  std::optional<LrSchedule> lr_schedule;
  bool dropout = true;              // false for numerical parity runs: dropout masks differ between devices
};

// A model with its optimizer and data on one device. step() = forward, loss, backward, optimizer.
// Nothing in here synchronizes the device: the engine does that around what it times.
class TrainingTask {
 public:
  virtual ~TrainingTask() = default;
  virtual at::Tensor forward_loss() = 0;            // next staged batch; returns a 0-dim loss
  virtual void backward(const at::Tensor& loss) = 0;
  virtual void optimizer_step() = 0;                // also clears the gradients
  virtual double evaluation_loss() = 0;             // loss on the first staged batch, eval mode, no grad (syncs)
  // L2 norm of the current gradients (after backward, before optimizer_step; loss scaling undone);
  // nullopt where the task cannot tell (a GAN's step is not separable). Synchronizes.
  virtual std::optional<double> gradient_norm() { return std::nullopt; }
  // Whether the last optimizer step was skipped by loss scaling (float16 with Inf/NaN gradients).
  // Synchronizes.
  virtual bool last_step_skipped() { return false; }
  virtual std::int64_t parameter_count() const = 0;
  // The tensors the optimizer updates, in registration order (data-parallel training averages their
  // gradients: src/distributed); empty where the task does not expose them (dcgan).
  virtual std::vector<at::Tensor> trainable_parameters() { return {}; }
  virtual std::string data_source() const = 0;
  virtual bool synthetic_data() const = 0;
  virtual std::string optimizer_description() const = 0;
  // A choice of numerics beyond what the precision usually means ("" for none): bert-base under
  // bfloat16/float16 autocast keeps its residual stream in 16 bits, where autocast's own rule makes
  // it float32 ("residual stream in bfloat16"). Said beside the case so that no one compares it with
  // a plain autocast run unknowingly.
  virtual std::string numerics_description() const { return {}; }

  virtual at::Tensor step() {
    auto loss = forward_loss();
    backward(loss);
    optimizer_step();
    return loss;
  }

  // --graphs (engine/graphed_task.h): the whole step captured once as a device graph and replayed.
  // A task whose WorkloadInfo has no graph_refusal implements these four; the engine calls
  // enter_graph_mode() once, then before every replay (and every eager step in graph mode)
  // prepare_replay(), and after every replay after_replay().
  // From here on: inputs read from static tensors, learning rates from device tensors.
  virtual void enter_graph_mode() {}
  // Outside the graph: the next batch copied into the static inputs, the learning rates into
  // their tensors. No host synchronization.
  virtual void prepare_replay() {}
  // What is captured: forward, loss, backward and the optimizer step, without the host's
  // bookkeeping (step count, schedule) and without clearing the gradients at its end (the captured
  // backward writes them anew in each replay). Returns the loss tensor the replays write.
  virtual at::Tensor captured_step() { return step(); }
  // After each replay: the host's bookkeeping that captured_step() left out.
  virtual void after_replay() {}
  // The device operations (kernels, copies, memsets) of one step, where known (a captured graph's
  // nodes); 0 otherwise.
  virtual std::int64_t device_operations_per_step() const { return 0; }
  // Whether forward / backward / optimizer can be timed apart (--phases).
  virtual bool supports_phases() const { return true; }
  // Seconds the training thread waited for input batches since the last call (data pipeline).
  virtual double take_data_wait_s() { return 0; }
  // Steps in one epoch's worth of distinct batches, when the task itself defines it (else 0).
  virtual std::string pipeline_description() const { return "staged on the device"; }
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual WorkloadInfo info() const = 0;
  // The figures for these options (a variant, a sequence length); by default those of info().
  virtual WorkloadInfo info_for(const WorkloadOptions& /*options*/) const { return info(); }
  virtual std::unique_ptr<TrainingTask> build(const WorkloadOptions& options) const = 0;
  // Checks the inputs these options name (a variant, data files) before anything is measured;
  // throws UsageError with a one-line message.
  virtual void validate(const WorkloadOptions& /*options*/) const {}
};

// Registry (registry.cpp: the one list of the built-in workloads, each with its factory)
std::vector<std::string> workload_names();                 // in the article's order, then those registered
// Whether python/accelbench_worker trains a twin of the workload (--impl python).
bool has_python_twin(const std::string& name);
// Adds a workload of a program built on the installed package (ACCELBENCH_REGISTER_WORKLOAD in
// include/accelbench/accelbench.h); returns true (for a static initializer).
using WorkloadFactory = std::function<std::unique_ptr<Workload>()>;
bool register_workload(const std::string& name, WorkloadFactory make);
// UsageError when unknown. A model file (inputs.model_file) is the workload named after the file
// (model_file_case_name): a TorchScript module (scripted_model.cpp).
std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadInputs& inputs = {});
// The options' checks common to every workload (--width, --checkpoint where the workload has
// them), then the workload's own validate(). Throws UsageError (one line).
void validate_workload_options(const Workload& workload, const WorkloadOptions& options);
std::unique_ptr<Workload> make_scripted_model_workload(const std::string& name);

}  // namespace accelbench
