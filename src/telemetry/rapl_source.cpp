// RAPL (Running Average Power Limit) energy counters through the Linux powercap framework:
// /sys/class/powercap/intel-rapl:N (a CPU package, name "package-N") and intel-rapl:N:M (its
// sub-domains; "dram" is kept, "core"/"uncore" are parts of the package and would count twice).
// AMD CPUs use the same intel-rapl names. energy_uj counts micro-joules and wraps at
// max_energy_range_uj; the wrap is undone at each read, so a read at least once per wrap period
// (minutes at hundreds of watts) keeps the total right. Since Linux 5.10 energy_uj is readable by
// root only: then the source says so and how to allow it.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "telemetry/sysfs_util.h"
#include "telemetry/telemetry_source.h"

namespace accelbench {

namespace {
using namespace telemetry_detail;
namespace fs = std::filesystem;

class RaplSource final : public TelemetrySource {
 public:
  RaplSource(FileReader reader, std::string zone, std::string domain, std::string energy_path,
             std::optional<long long> max_range_uj, long long first_uj)
      : reader_(std::move(reader)),
        zone_(std::move(zone)),
        domain_(std::move(domain)),
        energy_path_(std::move(energy_path)),
        max_range_uj_(max_range_uj),
        last_uj_(first_uj) {}

  std::string name() const override { return "rapl:" + domain_; }
  std::string role() const override { return "cpu"; }
  std::string description() const override {
    return fmt::format("{} ({}), counter range {}", zone_, domain_,
                       max_range_uj_ ? fmt::format("{:.0f} J", *max_range_uj_ / 1e6) : std::string("unknown: wrap-arounds not undone"));
  }
  bool available() const override { return true; }
  std::vector<TelemetryFigureOrigin> figures() const override {
    return {{"energy", true, fmt::format("{} (RAPL energy_uj counter, micro-joules)", energy_path_)},
            {"power", true, "derived: energy counter difference between readings / time"}};
  }

  TelemetryReading read() override {
    TelemetryReading r;
    const auto uj = read_integer(reader_, energy_path_);
    if (!uj) return r;  // a failed read: no energy at this reading (the summary notices the gap)
    long long delta = *uj - last_uj_;
    if (delta < 0) {
      // The counter wrapped: it ran up to max_energy_range_uj and restarted from 0.
      delta = max_range_uj_ ? (*max_range_uj_ - last_uj_) + *uj : 0;
    }
    last_uj_ = *uj;
    total_uj_ += static_cast<unsigned long long>(delta);
    r.energy_j = static_cast<double>(total_uj_) / 1e6;
    return r;
  }

 private:
  FileReader reader_;
  std::string zone_, domain_, energy_path_;
  std::optional<long long> max_range_uj_;
  long long last_uj_ = 0;
  unsigned long long total_uj_ = 0;
};

std::string permission_hint(const std::string& path) {
  return fmt::format(
      "{}: permission denied (since Linux 5.10 RAPL energy is readable by root only; run as root, or allow it "
      "with: sudo chmod o+r /sys/class/powercap/intel-rapl:*/energy_uj /sys/class/powercap/intel-rapl:*:*/energy_uj)",
      path);
}
}  // namespace

std::vector<TelemetrySourcePtr> open_rapl_sources(const TelemetryRoots& roots) {
  const fs::path powercap = fs::path(roots.sys) / "class" / "powercap";
  std::error_code ec;
  if (!fs::is_directory(powercap, ec))
    return {make_unavailable_source(
        "rapl", "cpu",
        fmt::format("no {} (the kernel exposes no power-capping framework: a VM or container without it, or not Linux "
                    "on x86)",
                    powercap.string()))};

  std::vector<TelemetrySourcePtr> out;
  std::vector<std::string> skipped, failures;
  for (const auto& zone : list_entries(powercap, "intel-rapl:")) {
    const auto zone_name = zone.filename().string();
    const bool sub = std::count(zone_name.begin(), zone_name.end(), ':') >= 2;
    std::string why;
    const auto domain = read_line(roots.reader, (zone / "name").string(), &why);
    if (!domain) {
      failures.push_back(why);
      continue;
    }
    const bool keep = sub ? *domain == "dram" : domain->rfind("package", 0) == 0;
    if (!keep) {
      skipped.push_back(fmt::format("{} ({})", zone_name, *domain));
      continue;
    }
    // Sub-domains are named after their package: "package-0/dram".
    std::string label = *domain;
    if (sub) {
      const auto parent = zone_name.substr(0, zone_name.rfind(':'));
      const auto parent_name = read_line(roots.reader, (powercap / parent / "name").string());
      label = (parent_name ? *parent_name : parent) + "/" + *domain;
    }
    const auto energy_path = (zone / "energy_uj").string();
    const auto first = read_integer(roots.reader, energy_path, &why);
    if (!first) {
      const auto r = roots.reader(energy_path);
      failures.push_back((r.error == EACCES || r.error == EPERM) ? permission_hint(energy_path) : why);
      continue;
    }
    const auto range = read_integer(roots.reader, (zone / "max_energy_range_uj").string());
    out.push_back(std::make_shared<RaplSource>(roots.reader, zone_name, label, energy_path, range, *first));
  }
  if (!out.empty()) return out;
  std::string reason;
  if (!failures.empty()) reason = fmt::format("{}", fmt::join(failures, "; "));
  else if (!skipped.empty()) reason = fmt::format("no package or dram RAPL domain in {} (found {})", powercap.string(), fmt::join(skipped, ", "));
  else reason = fmt::format("no intel-rapl domain in {} (not an x86 CPU with RAPL, a VM that hides it, or the intel_rapl_common module is not loaded)", powercap.string());
  return {make_unavailable_source("rapl", "cpu", reason)};
}

}  // namespace accelbench
