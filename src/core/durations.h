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
// One way to write an interval, in every output (docs/methodology.md, "How intervals are written").
// A ratio (a speed-up, compare's new/old ratio) with its interval: "1.23x [1.20, 1.26]"; `digits`
// decimals (compare's ratios near 1 take 3).
std::string format_ratio_ci(double ratio, double low, double high, int digits = 2);
std::string format_ratio_ci(const RatioEstimate& r);
// A figure with a unit (a step time, a throughput, a FLOP rate): its interval relative to it, each
// side apart, "-12/+15%" (a wide interval from log space is far from symmetric), "+-2.1%" where both
// sides print the same; one decimal while both sides are under 10%. "-" for no interval.
std::string format_relative_interval(double center, double low, double high);
// A relative half-width alone (a precision reached, a spread): "+-2.1%", as format_relative_interval.
std::string format_relative_half_width(double half);
// Which interval a figure carries, as every header and label names it: "this run 95%" (this run's
// precision: where its own median lies) or "next run 95%" (where the next run's median falls).
std::string interval_name(bool next_run, double level = 0.95);
std::string format_count(double value);             // "12.3k", "4.5M"

}  // namespace accelbench
