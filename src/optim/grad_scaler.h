#pragma once
// Loss scaling for float16 mixed precision, as Python's torch.amp.GradScaler, on the ATen _amp_
// ops (libtorch-facts section 2): scale the loss, find non-finite gradients, skip the optimizer
// step when there are any, and grow or back off the scale. With a fused Adam the gradients are
// unscaled inside the optimizer kernel and a skipped step needs no host synchronization, as
// Python's GradScaler does for fused optimizers.
#include <ATen/core/Tensor.h>

#include <optional>
#include <vector>

namespace accelbench {

class Adam;

struct GradScalerConfig {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int growth_interval = 2000;
};

class GradScaler {
 public:
  GradScaler(const c10::Device& device, GradScalerConfig config = {});

  at::Tensor scale(const at::Tensor& loss) const { return loss * scale_; }
  // Checks the gradients of `params`, then steps `optimizer` unless one was Inf or NaN.
  void step(Adam& optimizer, const std::vector<at::Tensor>& params);
  // Backs the scale off after an Inf/NaN, grows it after growth_interval clean steps.
  void update();

  double scale_value() const;         // synchronizes
  bool last_step_skipped() const;     // synchronizes

 private:
  GradScalerConfig config_;
  at::Tensor scale_, growth_tracker_, found_inf_, one_;
};

// The L2 norm of the parameters' gradients (those defined), unscaled by `scaler`'s loss scale when
// there is one (float16: the gradients are still scaled); none when no gradient is defined.
// Synchronizes (a read-back).
std::optional<double> unscaled_gradient_norm(const std::vector<at::Tensor>& params, const GradScaler* scaler);

}  // namespace accelbench
