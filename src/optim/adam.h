#pragma once
// Adam/AdamW the way Python's torch.optim.Adam(fused=True) runs it: the fused ATen kernel
// (_fused_adam_/_fused_adamw_) on devices that have one (CPU, CUDA, MPS), libtorch's
// torch::optim::Adam elsewhere. The C++ optimizers have no fused option (libtorch-facts section 3).
#include <ATen/core/Tensor.h>

#include <memory>
#include <string>
#include <vector>

namespace accelbench {

struct AdamConfig {
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  bool decoupled_weight_decay = false;  // AdamW
  bool allow_fused = true;
};

class Adam {
 public:
  Adam(std::vector<at::Tensor> params, AdamConfig config);
  ~Adam();
  Adam(const Adam&) = delete;
  Adam& operator=(const Adam&) = delete;

  void step();
  // Fused kernels only: gradients scaled by `grad_scale`; the step is skipped on the device where
  // `found_inf` is non-zero (no host synchronization). Used by GradScaler.
  void step_scaled(const at::Tensor& grad_scale, const at::Tensor& found_inf);
  void zero_grad();                 // sets gradients to none, as Python's default
  void set_lr(double lr) { config_.lr = lr; }
  // Graph capture (--graphs): the fused kernel reads the learning rate from a device tensor, so
  // that a captured step follows set_lr(); load_lr_tensor() copies the value in (outside the graph,
  // a fill only when it changed). Fused kernels only.
  void use_lr_tensor();
  void load_lr_tensor();
  double lr() const { return config_.lr; }
  bool fused() const { return fused_; }
  std::string description() const;  // "adam (fused ATen kernel)"

  // Whether the fused kernels exist for this device type.
  static bool has_fused_kernel(c10::DeviceType type);

 private:
  void step_impl(const at::Tensor* grad_scale, const at::Tensor* found_inf);
  std::vector<at::Tensor> params_;
  AdamConfig config_;
  bool fused_ = false;
  std::vector<at::Tensor> exp_avg_, exp_avg_sq_, steps_;
  at::Tensor lr_tensor_;       // defined after use_lr_tensor()
  double lr_loaded_ = -1;      // the value lr_tensor_ holds
  struct Fallback;
  std::unique_ptr<Fallback> fallback_;
};

}  // namespace accelbench
