// The parsers of option values: durations (--budget, --max-time-per-case...), memory sizes
// (--memory-limit) and counts (--limit). Each accepts a value in its range or gives a one-line error.
#include <cmath>

#include "cli/option_checks.h"
#include "core/durations.h"
#include "core/errors.h"
#include "core/sweep_logic.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const double s = accelbench::parse_duration_seconds(text);
    if (!std::isfinite(s) || s < 0 || s > accelbench::kMaxDurationSeconds) fuzz::finding("duration out of range");
  } catch (const accelbench::UsageError& e) {
    fuzz::check_one_line(e);
  }
  try {
    const double s = accelbench::parse_budget_seconds(text);
    if (!std::isfinite(s) || s < 0 || s > accelbench::kMaxDurationSeconds) fuzz::finding("budget out of range");
  } catch (const accelbench::UsageError& e) {
    fuzz::check_one_line(e);
  }
  try {
    const auto b = accelbench::parse_memory_size(text);
    if (b < 1) fuzz::finding("memory size 0 accepted");
  } catch (const accelbench::UsageError& e) {
    fuzz::check_one_line(e);
  }
  try {
    if (accelbench::parse_count(text, "--limit", 1000000) > 1000000) fuzz::finding("count over the maximum");
  } catch (const accelbench::UsageError& e) {
    fuzz::check_one_line(e);
  }
  return 0;
}
