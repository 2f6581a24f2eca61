#pragma once
// The TrainingTask shared by the single-model classification workloads: a torch::nn module, a
// cross-entropy loss, Adam(W), and either batches staged on the device before timing or a measured
// data pipeline (BatchLoader).
#include <torch/nn/module.h>

#include <functional>

#include "data/batch_loader.h"
#include "optim/adam.h"
#include "optim/grad_scaler.h"
#include "workloads/workload.h"

namespace accelbench {

struct StagedData {
  std::vector<StagedBatch> train;  // cycled through by forward_loss() (staged mode)
  StagedBatch eval;                // fixed batch (the first training batch) for the loss before/after
  std::string source;
  bool synthetic = false;
};

// Staged batches, or a pipeline when options.inputs.workers >= 0: produce(i) makes the i-th host batch.
// eval is always batch 0, staged.
StagedData stage_batches(const WorkloadOptions& options, const BatchProducer& produce);

class ModuleTask final : public TrainingTask {
 public:
  using Forward = std::function<at::Tensor(const StagedBatch&)>;  // batch -> logits
  // Called after each optimizer step (e.g. a learning-rate schedule).
  using AfterStep = std::function<void(Adam&, std::int64_t step)>;
  ModuleTask(std::shared_ptr<torch::nn::Module> module, Forward forward, StagedData data, AdamConfig adam,
             const std::string& dtype = "float32");

  // Switches to the data pipeline: batches come from `loader` instead of the staged ones.
  void use_pipeline(std::unique_ptr<BatchLoader> loader);
  // Appended to pipeline_description(), e.g. the convolution settings (", channels-last").
  void add_pipeline_note(std::string note) { pipeline_note_ += std::move(note); }
  // The learning rate of every update from `schedule` (set on the host before each step: no sync).
  void use_schedule(const LrSchedule& schedule);

  at::Tensor forward_loss() override;
  void backward(const at::Tensor& loss) override;
  void optimizer_step() override;
  double evaluation_loss() override;
  std::optional<double> gradient_norm() override;
  bool last_step_skipped() override;
  std::int64_t parameter_count() const override;
  std::vector<at::Tensor> trainable_parameters() override { return params_; }
  std::string data_source() const override { return data_.source; }
  bool synthetic_data() const override { return data_.synthetic; }
  std::string optimizer_description() const override {
    return optimizer_->description() + (schedule_.empty() ? "" : ", " + schedule_) +
           (scaler_ ? " + loss scaling (GradScaler)" : "");
  }
  double take_data_wait_s() override;
  std::string pipeline_description() const override;
  std::string numerics_description() const override { return numerics_; }
  void describe_numerics(std::string text) { numerics_ = std::move(text); }

  void enter_graph_mode() override;
  void prepare_replay() override;
  at::Tensor captured_step() override;
  void after_replay() override { count_step(); }

 private:
  StagedBatch next_batch();   // the next staged batch, or the pipeline's
  void update_parameters();   // the optimizer step (through the loss scaler in float16)
  void count_step();          // the step count and the learning rate of the next update
  std::string numerics_;  // numerics_description()
  std::shared_ptr<torch::nn::Module> module_;
  Forward forward_;
  StagedData data_;
  std::unique_ptr<Adam> optimizer_;
  std::unique_ptr<GradScaler> scaler_;  // float16 only
  std::vector<at::Tensor> params_;
  std::unique_ptr<BatchLoader> loader_;
  AfterStep after_step_;
  std::string schedule_;  // its description
  std::string pipeline_note_;
  std::size_t next_ = 0;
  std::int64_t steps_ = 0;
  bool autocast_ = false;
  at::ScalarType autocast_dtype_ = at::kFloat;
  c10::DeviceType device_type_ = c10::kCPU;
  double data_wait_s_ = 0;
  std::optional<StagedBatch> static_batch_;  // graph mode: what forward_loss() reads
};

std::int64_t count_parameters(const torch::nn::Module& module);

// The index-th augmented CIFAR-10 training batch (resnet18's data) for these options.
StagedBatch cifar_training_batch(const WorkloadOptions& options, std::int64_t index);

// Builds the task for a classification workload: staged batches, or the pipeline when asked.
std::unique_ptr<ModuleTask> make_module_task(std::shared_ptr<torch::nn::Module> module, ModuleTask::Forward forward,
                                             const WorkloadOptions& options, const BatchProducer& produce,
                                             std::string source, bool synthetic, AdamConfig adam = {});

// The schedule a workload trains with: options.lr_schedule when set, else the workload's own.
inline LrSchedule schedule_for(const WorkloadOptions& options, const LrSchedule& own) {
  return options.lr_schedule.value_or(own);
}

}  // namespace accelbench
