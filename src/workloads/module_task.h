#pragma once
// The TrainingTask shared by the single-model classification workloads: a torch::nn module, a
// cross-entropy loss, Adam, and batches staged on the device before timing.
#include <torch/nn/module.h>

#include <functional>

#include "optim/adam.h"
#include "workloads/workload.h"

namespace accelbench {

struct StagedBatch {
  at::Tensor input, target;
};

struct StagedData {
  std::vector<StagedBatch> train;  // cycled through by forward_loss()
  StagedBatch eval;                // fixed batch (the first training batch) for the loss before/after
  std::string source;
  bool synthetic = false;
};

class ModuleTask final : public TrainingTask {
 public:
  using Forward = std::function<at::Tensor(const at::Tensor&)>;  // input -> logits
  ModuleTask(std::shared_ptr<torch::nn::Module> module, Forward forward, StagedData data, AdamConfig adam);

  at::Tensor forward_loss() override;
  void backward(const at::Tensor& loss) override;
  void optimizer_step() override;
  double evaluation_loss() override;
  std::int64_t parameter_count() const override;
  std::string data_source() const override { return data_.source; }
  bool synthetic_data() const override { return data_.synthetic; }
  std::string optimizer_description() const override { return optimizer_->description(); }

 private:
  std::shared_ptr<torch::nn::Module> module_;
  Forward forward_;
  StagedData data_;
  std::unique_ptr<Adam> optimizer_;
  std::size_t next_ = 0;
};

std::int64_t count_parameters(const torch::nn::Module& module);

// Image batches (N,1,28,28 float, normalised; int64 labels) for mlp and cnn: Fashion-MNIST when the
// files are there (and wanted), else synthetic images with a class-dependent pattern.
StagedData stage_image_batches(const WorkloadOptions& options);

}  // namespace accelbench
