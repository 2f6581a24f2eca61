#pragma once
// Reading the environment, one way for every switch and number accelbench takes from it
// (ACCELBENCH_CHANNELS_LAST, ACCELBENCH_CUDNN_BENCHMARK, ACCELBENCH_BERT_FUSED_QKV, the test
// workloads' knobs, the launcher's RANK and WORLD_SIZE...). No torch here.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace accelbench {

// The variable's value; "" when it is unset.
inline std::string env_string(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// A switch: unset or empty gives `fallback`, "0" false, anything else true.
inline bool env_switch(const char* name, bool fallback) {
  const auto v = env_string(name);
  return v.empty() ? fallback : v != "0";
}

// A decimal integer; nullopt when unset or empty. `valid` is false when it is set but not a whole
// decimal integer in range (the caller says what to do: fall back or refuse).
struct EnvInteger {
  std::optional<std::int64_t> value;
  bool valid = true;
};
inline EnvInteger env_integer(const char* name) {
  const auto v = env_string(name);
  if (v.empty()) return {};
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (errno == ERANGE || !end || *end != '\0') return {std::nullopt, false};
  return {static_cast<std::int64_t>(x), true};
}

}  // namespace accelbench
