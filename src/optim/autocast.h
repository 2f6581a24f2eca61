#pragma once
// RAII autocast for any device type, mirroring Python's torch.autocast enter/exit (libtorch has
// no C++ guard). Used around the forward pass and the loss; backward runs outside it.
#include <ATen/autocast_mode.h>

#include <string>

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

// "float32" | "bfloat16" | "float16" (both autocast; float16 with loss scaling). Throws UsageError
// for other names.
struct Precision {
  std::string name = "float32";
  bool autocast = false;
  at::ScalarType dtype = at::kFloat;
};
Precision parse_precision(const std::string& name);

}  // namespace accelbench
