#include "workloads/module_task.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include "optim/autocast.h"

#include <cmath>

namespace accelbench {

std::int64_t count_parameters(const torch::nn::Module& module) {
  std::int64_t n = 0;
  for (const auto& p : module.parameters()) n += p.numel();
  return n;
}

namespace {
StagedBatch on_device(StagedBatch b, const c10::Device& d) {
  b.input = b.input.to(d);
  b.target = b.target.to(d);
  if (b.mask.defined()) b.mask = b.mask.to(d);
  return b;
}
}  // namespace

StagedData stage_batches(const WorkloadOptions& o, const BatchProducer& produce) {
  StagedData d;
  const int n = o.inputs.workers >= 0 ? 1 : o.staged_batches;
  for (int i = 0; i < n; ++i) d.train.push_back(on_device(produce(i), o.device));
  d.eval = d.train.front();
  return d;
}

std::unique_ptr<ModuleTask> make_module_task(std::shared_ptr<torch::nn::Module> module, ModuleTask::Forward forward,
                                             const WorkloadOptions& o, const BatchProducer& produce, std::string source,
                                             bool synthetic, AdamConfig adam) {
  auto data = stage_batches(o, produce);
  data.source = std::move(source);
  data.synthetic = synthetic;
  auto task = std::make_unique<ModuleTask>(std::move(module), std::move(forward), std::move(data), adam, o.dtype);
  if (o.inputs.workers >= 0) task->use_pipeline(std::make_unique<BatchLoader>(produce, o.inputs.workers, o.prefetch_per_worker, o.device));
  return task;
}

ModuleTask::ModuleTask(std::shared_ptr<torch::nn::Module> module, Forward forward, StagedData data, AdamConfig adam,
                       const std::string& dtype)
    : module_(std::move(module)), forward_(std::move(forward)), data_(std::move(data)) {
  module_->train();
  params_ = module_->parameters();
  optimizer_ = std::make_unique<Adam>(params_, adam);
  const auto precision = parse_precision(dtype);
  autocast_ = precision.autocast;
  autocast_dtype_ = precision.dtype;
  if (!params_.empty()) device_type_ = params_.front().device().type();
  if (precision.dtype == at::kHalf && !params_.empty()) scaler_ = std::make_unique<GradScaler>(params_.front().device());
}

void ModuleTask::use_schedule(const LrSchedule& schedule) {
  schedule_ = schedule.description();
  optimizer_->set_lr(schedule.lr_for_update(1));
  after_step_ = [schedule](Adam& opt, std::int64_t step) { opt.set_lr(schedule.lr_for_update(step + 1)); };
}

void ModuleTask::use_pipeline(std::unique_ptr<BatchLoader> loader) { loader_ = std::move(loader); }

StagedBatch ModuleTask::next_batch() {
  if (!loader_) return data_.train[next_++ % data_.train.size()];
  double wait = 0;
  auto b = loader_->next(wait);
  data_wait_s_ += wait;
  return b;
}

at::Tensor ModuleTask::forward_loss() {
  const StagedBatch b = static_batch_ ? *static_batch_ : next_batch();
  AutocastGuard autocast(device_type_, autocast_dtype_, autocast_);  // forward and loss; backward outside
  return torch::nn::functional::cross_entropy(forward_(b), b.target);
}

void ModuleTask::backward(const at::Tensor& loss) {
  if (scaler_) scaler_->scale(loss).backward();
  else loss.backward();
}

void ModuleTask::optimizer_step() {
  update_parameters();
  optimizer_->zero_grad();
  count_step();
}

void ModuleTask::update_parameters() {
  if (scaler_) {
    scaler_->step(*optimizer_, params_);
    scaler_->update();
  } else {
    optimizer_->step();
  }
}

void ModuleTask::count_step() {
  ++steps_;
  if (after_step_) after_step_(*optimizer_, steps_);
}

// Graph mode: the static batch is a copy of the first one (not the staged tensors themselves,
// which later copies would overwrite); the optimizer reads its learning rate from a tensor.
void ModuleTask::enter_graph_mode() {
  TORCH_CHECK(optimizer_->fused(), "graph capture needs the fused Adam kernel on this device");
  StagedBatch b = data_.train.front();
  b.input = b.input.clone();
  b.target = b.target.clone();
  if (b.mask.defined()) b.mask = b.mask.clone();
  static_batch_ = b;
  optimizer_->use_lr_tensor();
}

void ModuleTask::prepare_replay() {
  const StagedBatch b = next_batch();
  static_batch_->input.copy_(b.input, /*non_blocking=*/true);
  static_batch_->target.copy_(b.target, /*non_blocking=*/true);
  if (b.mask.defined()) static_batch_->mask.copy_(b.mask, /*non_blocking=*/true);
  optimizer_->load_lr_tensor();
}

at::Tensor ModuleTask::captured_step() {
  auto loss = forward_loss();
  backward(loss);
  update_parameters();
  return loss;
}

double ModuleTask::evaluation_loss() {
  torch::NoGradGuard no_grad;
  module_->eval();
  AutocastGuard autocast(device_type_, autocast_dtype_, autocast_);
  const auto loss = torch::nn::functional::cross_entropy(forward_(data_.eval), data_.eval.target);
  const double value = loss.item<double>();
  module_->train();
  return value;
}

std::optional<double> ModuleTask::gradient_norm() {
  return unscaled_gradient_norm(params_, scaler_.get());  // the gradients are still scaled by the loss scale
}

bool ModuleTask::last_step_skipped() { return scaler_ && scaler_->last_step_skipped(); }

std::int64_t ModuleTask::parameter_count() const { return count_parameters(*module_); }

double ModuleTask::take_data_wait_s() {
  const double w = data_wait_s_;
  data_wait_s_ = 0;
  return w;
}

std::string ModuleTask::pipeline_description() const {
  if (!loader_) return "staged on the device" + pipeline_note_;
  return fmt::format("data pipeline: {} worker thread{}{}{}", loader_->workers(), loader_->workers() == 1 ? "" : "s",
                     loader_->pinned() ? ", pinned memory, non-blocking copies" : "", pipeline_note_);
}

}  // namespace accelbench
