#include "optim/grad_scaler.h"

#include <ATen/ATen.h>

#include <cmath>

#include "optim/adam.h"

namespace accelbench {

GradScaler::GradScaler(const c10::Device& device, GradScalerConfig config) : config_(config) {
  const auto f = at::TensorOptions().device(device).dtype(at::kFloat);
  scale_ = at::full({}, config_.init_scale, f);
  growth_tracker_ = at::zeros({}, f.dtype(at::kInt));
  found_inf_ = at::zeros({}, f);
  one_ = at::ones({}, f);
}

void GradScaler::step(Adam& optimizer, const std::vector<at::Tensor>& params) {
  std::vector<at::Tensor> grads;
  for (const auto& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  found_inf_.zero_();
  if (grads.empty()) return;
  if (optimizer.fused()) {
    // Only look for Inf/NaN (inv_scale 1); the fused kernel unscales and skips on found_inf.
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, one_);
    optimizer.step_scaled(scale_, found_inf_);
    return;
  }
  const auto inv_scale = scale_.to(at::kDouble).reciprocal().to(at::kFloat);
  at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv_scale);
  if (found_inf_.item<float>() == 0.f) optimizer.step();  // a host synchronization, as Python's unfused path
}

void GradScaler::update() {
  at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, config_.growth_factor, config_.backoff_factor,
                         config_.growth_interval);
}

double GradScaler::scale_value() const { return scale_.item<double>(); }
bool GradScaler::last_step_skipped() const { return found_inf_.item<float>() != 0.f; }

std::optional<double> unscaled_gradient_norm(const std::vector<at::Tensor>& params, const GradScaler* scaler) {
  at::NoGradGuard no_grad;
  at::Tensor sum;
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    const auto sq = p.grad().to(at::kDouble).pow(2).sum();
    sum = sum.defined() ? sum + sq : sq;
  }
  if (!sum.defined()) return std::nullopt;
  double norm = std::sqrt(sum.item<double>());
  if (scaler) norm /= scaler->scale_value();
  return norm;
}

}  // namespace accelbench
