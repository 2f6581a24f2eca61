#include "workloads/module_task.h"

#include <torch/torch.h>

namespace accelbench {

std::int64_t count_parameters(const torch::nn::Module& module) {
  std::int64_t n = 0;
  for (const auto& p : module.parameters()) n += p.numel();
  return n;
}

ModuleTask::ModuleTask(std::shared_ptr<torch::nn::Module> module, Forward forward, StagedData data, AdamConfig adam)
    : module_(std::move(module)), forward_(std::move(forward)), data_(std::move(data)) {
  module_->train();
  optimizer_ = std::make_unique<Adam>(module_->parameters(), adam);
}

at::Tensor ModuleTask::forward_loss() {
  const auto& b = data_.train[next_++ % data_.train.size()];
  return torch::nn::functional::cross_entropy(forward_(b.input), b.target);
}

void ModuleTask::backward(const at::Tensor& loss) { loss.backward(); }

void ModuleTask::optimizer_step() {
  optimizer_->step();
  optimizer_->zero_grad();
}

double ModuleTask::evaluation_loss() {
  torch::NoGradGuard no_grad;
  module_->eval();
  const auto loss = torch::nn::functional::cross_entropy(forward_(data_.eval.input), data_.eval.target);
  const double value = loss.item<double>();
  module_->train();
  return value;
}

std::int64_t ModuleTask::parameter_count() const { return count_parameters(*module_); }

}  // namespace accelbench
