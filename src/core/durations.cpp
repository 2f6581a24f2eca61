#include "core/durations.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "core/errors.h"

namespace accelbench {

double parse_duration_seconds(std::string_view text, const char* option) {
  // "--min-time: invalid duration 'abc'" when the option is known.
  const std::string original = printable(text);
  const std::string invalid = option ? fmt::format("{}: invalid duration '{}'", option, original)
                                     : fmt::format("invalid duration '{}'", original);
  auto bad = [&]() {
    return UsageError(fmt::format("{}: use e.g. 90s, 4m, 1h30m, 250ms or a number of seconds (0 to {})", invalid,
                                  kMaxDurationText));
  };
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty()) throw bad();
  if (text.front() == '-')
    throw UsageError(fmt::format("{}: must not be negative (0 to {})", invalid, kMaxDurationText));
  double total = 0;
  bool any = false;
  while (!text.empty()) {
    // Only plain decimal numbers: from_chars would also take "inf", "nan" and hexadecimal floats.
    if (!std::isdigit(static_cast<unsigned char>(text.front())) && text.front() != '.') throw bad();
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range)
      throw UsageError(fmt::format("{}: too large (0 to {})", invalid, kMaxDurationText));
    if (ec != std::errc() || ptr == text.data()) throw bad();
    text.remove_prefix(static_cast<std::size_t>(ptr - text.data()));
    std::size_t n = 0;
    while (n < text.size() && std::isalpha(static_cast<unsigned char>(text[n]))) ++n;
    const std::string_view unit = text.substr(0, n);
    text.remove_prefix(n);
    double scale;
    if (unit.empty()) {
      if (!text.empty() || any) throw bad();  // a bare number only on its own
      scale = 1;
    } else if (unit == "ms") scale = 1e-3;
    else if (unit == "us") scale = 1e-6;
    else if (unit == "s" || unit == "sec") scale = 1;
    else if (unit == "m" || unit == "min") scale = 60;
    else if (unit == "h") scale = 3600;
    else throw bad();
    if (!std::isfinite(value) || value < 0) throw bad();
    total += value * scale;
    if (!std::isfinite(total) || total > kMaxDurationSeconds)
      throw UsageError(fmt::format("{}: too large (0 to {})", invalid, kMaxDurationText));
    any = true;
  }
  return total;
}

double parse_budget_seconds(std::string_view text, const char* option) {
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  if (t == "none") return 0;
  const double s = parse_duration_seconds(text, option);
  if (!(s > 0))
    throw UsageError(fmt::format("{} {}: must be positive (up to {}); use 'none' for no budget", option, printable(text),
                                 kMaxDurationText));
  return s;
}

namespace {
// Rounds v (>= 0) to `decimals` decimals, as fmt prints it.
double rounded(double v, int decimals) {
  const double p = std::pow(10.0, decimals);
  return std::round(v * p) / p;
}
// The decimals that give v (>= 0, under 1000) four significant digits once rounded: 9.9996 takes 2
// ("10.00"), not 3 ("10.000"); 0 where even one decimal rounds to 1000.
int four_digit_decimals(double v) {
  int d = v < 10 ? 3 : (v < 100 ? 2 : 1);
  while (d > 0 && rounded(v, d) >= std::pow(10.0, 4 - d)) --d;
  return d;
}
}  // namespace

std::string format_seconds_short(double s) {
  if (!std::isfinite(s)) return "-";
  const double a = std::abs(s);
  // Each unit while the figure, rounded as printed, stays under 1000 of it (999.97 us is "1.000 ms").
  if (rounded(a * 1e6, 1) < 1000) return fmt::format("{:.1f} us", s * 1e6);
  if (const int d = four_digit_decimals(a * 1e3); d > 0) return fmt::format("{:.{}f} ms", s * 1e3, d);
  if (const int d = four_digit_decimals(a); d >= 2) return fmt::format("{:.{}f} s", s, d);  // "100 s" from 99.996 on
  return fmt::format("{:.0f} s", s);
}

std::string format_duration(double s) {
  if (!std::isfinite(s)) return "-";
  if (s < 60) return format_seconds_short(s);
  const auto total = static_cast<long long>(std::llround(s));
  if (total < 3600) return fmt::format("{}m {:02d}s", total / 60, static_cast<int>(total % 60));
  return fmt::format("{}h {:02d}m", total / 3600, static_cast<int>((total % 3600) / 60));
}

std::string format_bytes(double b) {
  if (!std::isfinite(b) || b < 0) return "-";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) { b /= 1024; ++u; }
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.{}f} {}", b, b < 10 ? 2 : (b < 100 ? 1 : 0), units[u]);
}

std::string format_ratio_ci(double ratio, double low, double high, int digits) {
  return fmt::format("{0:.{3}f}x [{1:.{3}f}, {2:.{3}f}]", ratio, low, high, digits);
}

std::string format_ratio_ci(const RatioEstimate& r) { return format_ratio_ci(r.ratio, r.low, r.high); }

std::string format_relative_interval(double center, double low, double high) {
  if (!(center > 0) || !std::isfinite(low) || !std::isfinite(high) || !(high >= low)) return "-";
  const double below = 100 * std::max(0.0, 1 - low / center), above = 100 * std::max(0.0, high / center - 1);
  const int digits = std::max(below, above) < 9.95 ? 1 : 0;
  const auto a = fmt::format("{:.{}f}", below, digits), b = fmt::format("{:.{}f}", above, digits);
  return a == b ? fmt::format("+-{}%", a) : fmt::format("-{}/+{}%", a, b);
}

std::string format_relative_half_width(double half) { return format_relative_interval(1, 1 - half, 1 + half); }

std::string interval_name(bool next_run, double level) {
  return fmt::format("{} {:g}%", next_run ? "next run" : "this run", 100 * level);
}

std::string format_count(double v) {
  if (!std::isfinite(v)) return "-";
  const double a = std::abs(v);
  if (a >= 1e9) return fmt::format("{:.2f}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.1f}k", v / 1e3);
  if (a >= 100) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

}  // namespace accelbench
