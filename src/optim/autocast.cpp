#include "optim/autocast.h"

#include <ATen/Context.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/errors.h"

namespace accelbench {

Precision parse_precision(const std::string& name) {
  if (name == "float32" || name == "fp32") return {"float32", false, at::kFloat, false};
  if (name == "tfloat32" || name == "tf32") return {"tfloat32", false, at::kFloat, true};
  if (name == "bfloat16" || name == "bf16") return {"bfloat16", true, at::kBFloat16, false};
  if (name == "float16" || name == "fp16") return {"float16", true, at::kHalf, false};
  throw UsageError(fmt::format("unknown precision '{}'; available: float32, tfloat32 (CUDA), bfloat16, float16", name));
}

std::vector<std::string> precisions_for(c10::DeviceType device) {
  if (device == c10::kCUDA) return {"float32", "tfloat32", "bfloat16", "float16"};
  return {"float32", "bfloat16", "float16"};
}

void check_precision_on_device(const Precision& precision, c10::DeviceType device, const std::string& device_id) {
  const auto allowed = precisions_for(device);
  if (std::find(allowed.begin(), allowed.end(), precision.name) == allowed.end())
    throw UsageError(fmt::format("precision {} is not available on {}; it supports {}", precision.name, device_id,
                                 fmt::join(allowed, ", ")));
}

Tf32Guard::Tf32Guard(bool enabled) : active_(enabled) {
  if (!active_) return;
  previous_ = at::globalContext().allowTF32CuBLAS();
  at::globalContext().setAllowTF32CuBLAS(true);
}

Tf32Guard::~Tf32Guard() {
  if (active_) at::globalContext().setAllowTF32CuBLAS(previous_);
}

}  // namespace accelbench
