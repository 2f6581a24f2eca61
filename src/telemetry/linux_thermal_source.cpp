// The CPU's temperature, frequency and thermal throttling on Linux, from three sysfs trees:
// - /sys/class/hwmon/hwmonN (name + tempK_input, milli-degrees C): CPU chips only (coretemp,
//   k10temp, zenpower, cpu_thermal, ...); NVMe, GPU and Wi-Fi sensors are listed but not used;
// - /sys/class/thermal/thermal_zoneN (type + temp): used when no CPU hwmon chip exists, CPU-like
//   zone types only (x86_pkg_temp, cpu*, soc*);
// - /sys/devices/system/cpu/cpuN/cpufreq (scaling_cur_freq, kHz; base_frequency or
//   cpuinfo_max_freq as the reference) and cpuN/thermal_throttle/package_throttle_count.
// A reading is flagged throttled when a package throttle counter went up since the last reading,
// or when the fastest core runs below 80% of the reference frequency.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "telemetry/sysfs_util.h"
#include "telemetry/telemetry_source.h"

namespace accelbench {

namespace {
using namespace telemetry_detail;
namespace fs = std::filesystem;

bool is_cpu_hwmon(const std::string& name) {
  static const std::set<std::string> names{"coretemp", "k10temp", "zenpower", "cpu_thermal", "cpu-thermal",
                                           "soc_thermal", "cputemp", "k8temp", "via_cputemp", "fam15h_power"};
  return names.count(name) > 0;
}
bool is_cpu_zone(std::string type) {
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
  return type.find("x86_pkg") != std::string::npos || type.rfind("cpu", 0) == 0 || type.rfind("soc", 0) == 0 ||
         type.find("cpu-thermal") != std::string::npos || type.find("cpu_thermal") != std::string::npos;
}

class LinuxThermalSource final : public TelemetrySource {
 public:
  explicit LinuxThermalSource(const TelemetryRoots& roots) : reader_(roots.reader) { discover(roots); }

  std::string name() const override { return "linux-thermal"; }
  std::string role() const override { return "cpu"; }
  std::string description() const override { return description_; }
  bool available() const override { return !temp_paths_.empty() || !freq_paths_.empty() || !throttle_paths_.empty(); }
  std::string unavailable_reason() const override {
    return fmt::format("temperature: {}; clock: {}; throttle: {}", temp_origin_, clock_origin_, throttle_origin_);
  }
  std::vector<TelemetryFigureOrigin> figures() const override {
    return {{"temperature", !temp_paths_.empty(), temp_origin_},
            {"clock", !freq_paths_.empty(), clock_origin_},
            {"throttle", !throttle_paths_.empty() || (reference_khz_ > 0 && !freq_paths_.empty()), throttle_origin_}};
  }

  TelemetryReading read() override {
    TelemetryReading r;
    std::optional<double> hottest;
    for (const auto& p : temp_paths_)
      if (auto v = read_integer(reader_, p)) hottest = std::max(hottest.value_or(-1e9), static_cast<double>(*v) / 1000.0);
    r.temperature_c = hottest;
    std::optional<long long> fastest_khz;
    for (const auto& p : freq_paths_)
      if (auto v = read_integer(reader_, p)) fastest_khz = std::max(fastest_khz.value_or(0), *v);
    if (fastest_khz) {
      r.clock_mhz = static_cast<double>(*fastest_khz) / 1000.0;
      if (reference_khz_ > 0 && static_cast<double>(*fastest_khz) < kThrottleClockFraction * reference_khz_) {
        r.throttled = true;
        r.throttle_reasons.push_back(fmt::format("cpu clock below {:.0f}% of {:.0f} MHz", 100 * kThrottleClockFraction,
                                                 reference_khz_ / 1000.0));
      }
    }
    for (std::size_t i = 0; i < throttle_paths_.size(); ++i) {
      if (auto v = read_integer(reader_, throttle_paths_[i])) {
        if (last_throttle_count_[i] >= 0 && *v > last_throttle_count_[i]) {
          r.throttled = true;
          r.throttle_reasons.push_back("cpu package thermal throttle event");
        }
        last_throttle_count_[i] = *v;
      }
    }
    return r;
  }

 private:
  void discover(const TelemetryRoots& roots) {
    const fs::path sys(roots.sys);
    discover_temperatures(sys);
    discover_clocks(sys);
    description_ = fmt::format("temperature: {} | clock: {}", temp_origin_, clock_origin_);
  }

  // Temperatures: CPU hwmon chips first, else the CPU's thermal zones; temp_origin_ says which, or
  // what was found instead.
  void discover_temperatures(const fs::path& sys) {
    std::vector<std::string> other_chips, used_chips;
    const auto hwmon_dir = sys / "class" / "hwmon";
    for (const auto& chip : list_entries(hwmon_dir, "hwmon")) {
      auto name = read_line(reader_, (chip / "name").string());
      if (!name) continue;
      std::vector<std::string> inputs;
      for (const auto& f : list_entries(chip, "temp"))
        if (f.filename().string().size() > 6 && f.filename().string().ends_with("_input") &&
            read_integer(reader_, f.string()))
          inputs.push_back(f.string());
      if (inputs.empty()) continue;
      if (is_cpu_hwmon(*name)) {
        temp_paths_.insert(temp_paths_.end(), inputs.begin(), inputs.end());
        used_chips.push_back(fmt::format("{} ({}: {} inputs)", chip.filename().string(), *name, inputs.size()));
      } else {
        other_chips.push_back(*name);
      }
    }
    std::vector<std::string> other_zones, used_zones;
    if (temp_paths_.empty()) {
      for (const auto& zone : list_entries(sys / "class" / "thermal", "thermal_zone")) {
        auto type = read_line(reader_, (zone / "type").string());
        if (!type) continue;
        const auto temp = (zone / "temp").string();
        if (!read_integer(reader_, temp)) continue;
        if (is_cpu_zone(*type)) {
          temp_paths_.push_back(temp);
          used_zones.push_back(fmt::format("{} ({})", zone.filename().string(), *type));
        } else {
          other_zones.push_back(*type);
        }
      }
    }
    if (!used_chips.empty())
      temp_origin_ = fmt::format("hwmon: hottest of {}", fmt::join(used_chips, ", "));
    else if (!used_zones.empty())
      temp_origin_ = fmt::format("thermal zones: hottest of {}", fmt::join(used_zones, ", "));
    else if (other_chips.empty() && other_zones.empty())
      temp_origin_ = fmt::format("no readable sensor in {} or {} (a VM or container exposes none)", hwmon_dir.string(),
                                 (sys / "class" / "thermal").string());
    else
      temp_origin_ = fmt::format("no CPU sensor (found hwmon: {}; thermal zones: {})",
                                 other_chips.empty() ? "none" : fmt::format("{}", fmt::join(other_chips, ", ")),
                                 other_zones.empty() ? "none" : fmt::format("{}", fmt::join(other_zones, ", ")));
  }

  // Frequencies and the package throttle counters (one per package); clock_origin_ and
  // throttle_origin_ say what was found.
  void discover_clocks(const fs::path& sys) {
    const auto cpu_dir = sys / "devices" / "system" / "cpu";
    std::set<long long> packages_seen;
    for (const auto& cpu : list_entries(cpu_dir, "cpu")) {
      const auto n = cpu.filename().string().substr(3);
      if (n.empty() || !std::all_of(n.begin(), n.end(), [](unsigned char c) { return std::isdigit(c); })) continue;
      const auto cur = (cpu / "cpufreq" / "scaling_cur_freq").string();
      if (read_integer(reader_, cur)) {
        freq_paths_.push_back(cur);
        auto ref = read_integer(reader_, (cpu / "cpufreq" / "base_frequency").string());
        if (ref) base_used_ = true;
        else ref = read_integer(reader_, (cpu / "cpufreq" / "cpuinfo_max_freq").string());
        if (ref) reference_khz_ = std::max(reference_khz_, static_cast<double>(*ref));
      }
      const auto pkg_count = (cpu / "thermal_throttle" / "package_throttle_count").string();
      if (read_integer(reader_, pkg_count)) {
        const auto pkg = read_integer(reader_, (cpu / "topology" / "physical_package_id").string()).value_or(-1);
        if (packages_seen.insert(pkg).second || pkg < 0) throttle_paths_.push_back(pkg_count);
      }
    }
    last_throttle_count_.assign(throttle_paths_.size(), -1);
    clock_origin_ = freq_paths_.empty()
                        ? fmt::format("no cpufreq in {}/cpu*/cpufreq (a VM or container without frequency scaling "
                                      "information)",
                                      cpu_dir.string())
                        : fmt::format("cpufreq scaling_cur_freq: fastest of {} CPUs", freq_paths_.size());
    std::vector<std::string> rules;
    if (!throttle_paths_.empty())
      rules.push_back(fmt::format("thermal_throttle/package_throttle_count went up ({} package{})",
                                  throttle_paths_.size(), throttle_paths_.size() == 1 ? "" : "s"));
    if (reference_khz_ > 0 && !freq_paths_.empty())
      rules.push_back(fmt::format("fastest CPU below {:.0f}% of {} {:.0f} MHz", 100 * kThrottleClockFraction,
                                  base_used_ ? "base_frequency" : "cpuinfo_max_freq", reference_khz_ / 1000.0));
    throttle_origin_ = rules.empty() ? std::string("no thermal_throttle counters and no cpufreq reference frequency")
                                     : fmt::format("{}", fmt::join(rules, "; or "));
  }

  FileReader reader_;
  std::vector<std::string> temp_paths_, freq_paths_, throttle_paths_;
  std::vector<long long> last_throttle_count_;
  double reference_khz_ = 0;
  bool base_used_ = false;
  std::string temp_origin_, clock_origin_, throttle_origin_, description_;
};
}  // namespace

TelemetrySourcePtr open_linux_thermal_source(const TelemetryRoots& roots) {
  return std::make_shared<LinuxThermalSource>(roots);
}

}  // namespace accelbench
