#pragma once
// Parsing and printing of durations and sizes as people write them: "90s", "4m", "1h30m", "250ms",
// "2.5" (seconds); "1.5 GB", "512MiB".
#include <cstdint>
#include <string>
#include <string_view>

#include "core/stats.h"

namespace accelbench {

// The longest duration accepted (a time budget, a pause): 30 days.
inline constexpr double kMaxDurationSeconds = 30.0 * 24 * 3600;
inline constexpr const char* kMaxDurationText = "720h (30 days)";

// Seconds in [0, kMaxDurationSeconds]. Throws UsageError (one line, with the accepted range) on
// anything else: a negative value, NaN/inf, a number too large, an unknown unit, trailing junk.
double parse_duration_seconds(std::string_view text, const char* option = nullptr);  // option: named in the message

// A time budget (--budget): "none" gives 0, meaning no budget; otherwise a positive duration as
// above. "0s" is refused ("must be positive; use 'none' for no budget") rather than silently
// meaning no budget. `option` names the option in the message.
double parse_budget_seconds(std::string_view text, const char* option = "--budget");

std::string format_duration(double seconds);        // "1.23 ms", "4.2 s", "3m 05s"
std::string format_seconds_short(double seconds);   // step times: "812 us", "12.4 ms", "3.21 s"
std::string format_bytes(double bytes);             // "1.2 GiB"
// A ratio with its interval, the way every table writes a speed-up: "1.23x [1.20, 1.26]".
std::string format_ratio_ci(double ratio, double low, double high);
std::string format_ratio_ci(const RatioEstimate& r);
// An interval's bounds alone, for a table that shows the estimate in its own column: "1.23 - 1.45".
std::string format_interval(double low, double high);
// An interval around `center` in per cent of it, each side apart: "-43/+76%" (a wide interval from
// log space is far from symmetric).
std::string format_relative_interval(double center, double low, double high);
std::string format_count(double value);             // "12.3k", "4.5M"

}  // namespace accelbench
