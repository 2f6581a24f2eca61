#include "report/peak_tables.h"

#include <fmt/format.h>

#include "core/durations.h"

namespace accelbench {

namespace {

// A cube's size said short in the table ("16384 x 16384 x 16384" -> "16384^3"), so that the table fits
// 100 columns; the JSON keeps the long form.
std::string table_size(const std::string& size) {
  const auto x = size.find(" x ");
  if (x == std::string::npos) return size;
  const auto side = size.substr(0, x);
  return size == side + " x " + side + " x " + side ? side + "^3" : size;
}

}  // namespace

std::vector<std::vector<std::string>> ceilings_table_rows(const DeviceCeilings& c) {
  std::vector<std::vector<std::string>> rows{{"ceiling", "size", "best", "median", interval_name(false)}};
  for (const auto& x : c.ceilings) {
    if (!x.measured()) {
      rows.push_back({x.label(), "-", "not measured", "-", x.unavailable});
      continue;
    }
    // The interval relative to the median: short, and the same for every unit.
    rows.push_back({x.label(), table_size(x.size), format_ceiling_value(x.kind, x.value()), format_ceiling_value(x.kind, x.median),
                    format_relative_interval(x.median, x.ci_low, x.ci_high)});
  }
  return rows;
}

std::vector<std::string> sustained_lines(const DeviceCeilings& c) {
  std::vector<std::string> out;
  for (const auto& x : c.ceilings) {
    if (!x.measured() || !x.sustained || x.value() <= 0) continue;
    const double below = 1.0 - *x.sustained / x.value();
    out.push_back(fmt::format("{} held for {:.1f} s: {}{}", x.label(), x.sustained_s,
                              format_ceiling_value(x.kind, *x.sustained),
                              below >= 0.03 ? fmt::format(", {:.0f}% below its bursts (a power or thermal limit acts)",
                                                          100 * below)
                                            : ", as its bursts"));
  }
  return out;
}

std::string ceilings_summary(const DeviceCeilings& c) {
  std::vector<std::string> parts;
  const Ceiling* best = nullptr;
  for (const auto& x : c.ceilings)
    if (x.kind == CeilingKind::kMatmul && x.measured() && (!best || x.value() > best->value())) best = &x;
  if (best) parts.push_back(fmt::format("matmul {} {}", best->variant, format_ceiling_value(best->kind, best->value())));
  if (const auto* copy = c.find(CeilingKind::kCopy)) parts.push_back("copy " + format_ceiling_value(copy->kind, copy->value()));
  if (const auto* h2d = c.find(CeilingKind::kHostToDevice, "pinned"))
    parts.push_back("host to device " + format_ceiling_value(h2d->kind, h2d->value()));
  if (const auto* launch = c.find(CeilingKind::kLaunchBackToBack))
    parts.push_back(fmt::format("launch {} back to back", format_ceiling_value(launch->kind, launch->value())));
  std::string joined;
  for (const auto& p : parts) joined += (joined.empty() ? "" : ", ") + p;
  return fmt::format("measured {} (torch {}): {}", c.measured_utc.substr(0, 10), c.torch_version,
                     joined.empty() ? std::string("nothing measured") : joined);
}

}  // namespace accelbench
