#pragma once
// Parsing and printing of durations and sizes as people write them: "90s", "4m", "1h30m", "250ms",
// "2.5" (seconds); "1.5 GB", "512MiB".
#include <cstdint>
#include <string>
#include <string_view>

#include "core/stats.h"

namespace accelbench {

// Throws UsageError (one line) on anything else, or on a negative value.
double parse_duration_seconds(std::string_view text);

std::string format_duration(double seconds);        // "1.23 ms", "4.2 s", "3m 05s"
std::string format_seconds_short(double seconds);   // step times: "812 us", "12.4 ms", "3.21 s"
std::string format_bytes(double bytes);             // "1.2 GiB"
// A ratio with its interval, the way every table writes a speed-up: "1.23x [1.20, 1.26]".
std::string format_ratio_ci(double ratio, double low, double high);
std::string format_ratio_ci(const RatioEstimate& r);
std::string format_count(double value);             // "12.3k", "4.5M"

}  // namespace accelbench
