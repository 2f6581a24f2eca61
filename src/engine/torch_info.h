#pragma once
// What the context block and `doctor` say about libtorch and its backends.
#include <string>
#include <vector>

#include "core/results.h"

namespace accelbench {

// Host, torch, backends and devices. `settings` is stored as given.
RunContext collect_context(const nlohmann::json& settings);

// Environment variables and settings that distort timings, each with its fix.
struct EnvironmentWarning {
  std::string problem, fix;
};
std::vector<EnvironmentWarning> timing_environment_warnings();

}  // namespace accelbench
