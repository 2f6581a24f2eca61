#include "optim/adam.h"

#include <ATen/ATen.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

namespace accelbench {

struct Adam::Fallback {
  std::unique_ptr<torch::optim::Optimizer> optimizer;
};

bool Adam::has_fused_kernel(c10::DeviceType type) {
  return type == c10::kCPU || type == c10::kCUDA || type == c10::kMPS;
}

Adam::Adam(std::vector<at::Tensor> params, AdamConfig config) : params_(std::move(params)), config_(config) {
  const auto type = params_.empty() ? c10::kCPU : params_.front().device().type();
  fused_ = config_.allow_fused && has_fused_kernel(type);
  for (const auto& p : params_)
    if (p.scalar_type() != params_.front().scalar_type() || p.device() != params_.front().device()) fused_ = false;
  if (fused_) {
    for (const auto& p : params_) {
      exp_avg_.push_back(at::zeros_like(p, at::MemoryFormat::Preserve));
      exp_avg_sq_.push_back(at::zeros_like(p, at::MemoryFormat::Preserve));
      // Python's fused Adam keeps `step` as a float32 tensor on the parameter's device.
      steps_.push_back(at::zeros({}, p.options().dtype(at::kFloat)));
    }
  } else {
    fallback_ = std::make_unique<Fallback>();
    if (config_.decoupled_weight_decay) {
      fallback_->optimizer = std::make_unique<torch::optim::AdamW>(
          params_, torch::optim::AdamWOptions(config_.lr)
                       .betas({config_.beta1, config_.beta2})
                       .eps(config_.eps)
                       .weight_decay(config_.weight_decay));
    } else {
      fallback_->optimizer = std::make_unique<torch::optim::Adam>(
          params_, torch::optim::AdamOptions(config_.lr)
                       .betas({config_.beta1, config_.beta2})
                       .eps(config_.eps)
                       .weight_decay(config_.weight_decay));
    }
  }
}

Adam::~Adam() = default;

void Adam::step() { step_impl(nullptr, nullptr); }

void Adam::step_scaled(const at::Tensor& grad_scale, const at::Tensor& found_inf) {
  TORCH_CHECK(fused_, "Adam::step_scaled needs the fused kernel");
  step_impl(&grad_scale, &found_inf);
}

void Adam::step_impl(const at::Tensor* grad_scale, const at::Tensor* found_inf) {
  if (!fused_) {
    for (auto& group : fallback_->optimizer->param_groups()) {
      if (config_.decoupled_weight_decay) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(config_.lr);
      else static_cast<torch::optim::AdamOptions&>(group.options()).lr(config_.lr);
    }
    fallback_->optimizer->step();
    return;
  }
  std::vector<at::Tensor> ps, gs, m, v, st;
  ps.reserve(params_.size());
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const auto& g = params_[i].grad();
    if (!g.defined()) continue;
    ps.push_back(params_[i]);
    gs.push_back(g);
    m.push_back(exp_avg_[i]);
    v.push_back(exp_avg_sq_[i]);
    st.push_back(steps_[i]);
  }
  if (ps.empty()) return;
  at::_foreach_add_(st, 1);
  std::optional<at::Tensor> scale, inf;
  if (grad_scale) scale = *grad_scale;
  if (found_inf) inf = *found_inf;
  if (lr_tensor_.defined()) {
    if (config_.decoupled_weight_decay)
      at::_fused_adamw_(ps, gs, m, v, {}, st, lr_tensor_, config_.beta1, config_.beta2, config_.weight_decay,
                        config_.eps, /*amsgrad=*/false, /*maximize=*/false, scale, inf);
    else
      at::_fused_adam_(ps, gs, m, v, {}, st, lr_tensor_, config_.beta1, config_.beta2, config_.weight_decay,
                       config_.eps, /*amsgrad=*/false, /*maximize=*/false, scale, inf);
  } else if (config_.decoupled_weight_decay) {
    at::_fused_adamw_(ps, gs, m, v, {}, st, config_.lr, config_.beta1, config_.beta2, config_.weight_decay,
                      config_.eps, /*amsgrad=*/false, /*maximize=*/false, scale, inf);
  } else {
    at::_fused_adam_(ps, gs, m, v, {}, st, config_.lr, config_.beta1, config_.beta2, config_.weight_decay,
                     config_.eps, /*amsgrad=*/false, /*maximize=*/false, scale, inf);
  }
  // A skipped step does not count (as torch.optim.Adam: steps -= found_inf).
  if (found_inf) {
    const std::vector<at::Tensor> infs(st.size(), *found_inf);
    at::_foreach_sub_(st, infs);
  }
}

void Adam::use_lr_tensor() {
  TORCH_CHECK(fused_, "Adam::use_lr_tensor needs the fused kernel");
  if (lr_tensor_.defined() || params_.empty()) return;
  lr_tensor_ = at::full({}, config_.lr, params_.front().options().dtype(at::kFloat));
  lr_loaded_ = config_.lr;
}

void Adam::load_lr_tensor() {
  if (!lr_tensor_.defined() || lr_loaded_ == config_.lr) return;
  lr_tensor_.fill_(config_.lr);
  lr_loaded_ = config_.lr;
}

void Adam::zero_grad() {
  for (auto& p : params_) {
    if (p.grad().defined()) p.mutable_grad().reset();
  }
}

std::string Adam::description() const {
  const std::string name = config_.decoupled_weight_decay ? "adamw" : "adam";
  return fused_ ? name + " (fused ATen kernel, as Python's fused=True)" : name + " (torch::optim, unfused)";
}

}  // namespace accelbench
