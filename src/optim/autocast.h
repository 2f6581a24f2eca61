#pragma once
// RAII autocast for any device type, mirroring Python's torch.autocast enter/exit (libtorch has
// no C++ guard). Used around the forward pass and the loss; backward runs outside it.
#include <ATen/autocast_mode.h>

#include <string>
#include <vector>

namespace accelbench {

class AutocastGuard {
 public:
  // enabled = false makes the guard a no-op (fp32 training).
  AutocastGuard(c10::DeviceType device, at::ScalarType dtype, bool enabled = true) : device_(device), active_(enabled) {
    if (!active_) return;
    prev_enabled_ = at::autocast::is_autocast_enabled(device_);
    prev_dtype_ = at::autocast::get_autocast_dtype(device_);
    at::autocast::set_autocast_enabled(device_, true);
    at::autocast::set_autocast_dtype(device_, dtype);
    at::autocast::increment_nesting();
  }
  ~AutocastGuard() {
    if (!active_) return;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(device_, prev_enabled_);
    at::autocast::set_autocast_dtype(device_, prev_dtype_);
  }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_;
  bool active_;
  bool prev_enabled_ = false;
  at::ScalarType prev_dtype_ = at::kFloat;
};

// "float32" | "tfloat32" (float32 with TF32 matmuls, CUDA) | "bfloat16" | "float16" (both
// autocast; float16 with loss scaling). Throws UsageError for other names.
struct Precision {
  std::string name = "float32";
  bool autocast = false;
  at::ScalarType dtype = at::kFloat;
  bool tf32 = false;  // float32 tensors, TF32 tensor-core matmuls (torch.backends.cuda.matmul.allow_tf32)
};
Precision parse_precision(const std::string& name);

// The precisions a device type can run, in sweep order: cpu float32 bfloat16 float16; cuda adds
// tfloat32; mps float32 float16 bfloat16.
std::vector<std::string> precisions_for(c10::DeviceType device);
// UsageError (one line) when `precision` cannot run on `device` (tfloat32 off CUDA).
void check_precision_on_device(const Precision& precision, c10::DeviceType device, const std::string& device_id);

// TF32 matmuls on (CUDA) for the guard's lifetime, when `enabled`; the previous setting is restored.
class Tf32Guard {
 public:
  explicit Tf32Guard(bool enabled);
  ~Tf32Guard();
  Tf32Guard(const Tf32Guard&) = delete;
  Tf32Guard& operator=(const Tf32Guard&) = delete;

 private:
  bool active_;
  bool previous_ = false;
};

}  // namespace accelbench
