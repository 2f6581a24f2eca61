#include "optim/autocast.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace accelbench {

Precision parse_precision(const std::string& name) {
  if (name == "float32" || name == "fp32") return {"float32", false, at::kFloat};
  if (name == "bfloat16" || name == "bf16") return {"bfloat16", true, at::kBFloat16};
  if (name == "float16" || name == "fp16") return {"float16", true, at::kHalf};
  throw UsageError(fmt::format("unknown --dtype '{}'; available: float32, bfloat16, float16", name));
}

}  // namespace accelbench
