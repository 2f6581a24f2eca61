// Available memory, swap in use, and memory/CPU pressure (PSI).
#include <fmt/format.h>

#include <sstream>

#include "core/durations.h"
#include "system/machine_checks.h"

namespace accelbench {

std::optional<std::uint64_t> meminfo_bytes(const std::string& meminfo, const std::string& field) {
  std::istringstream in(meminfo);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) != 0) continue;
    std::istringstream v(line.substr(field.size() + 1));
    std::uint64_t kb = 0;
    if (v >> kb) return kb * 1024;
  }
  return std::nullopt;
}

std::optional<double> pressure_avg10(const std::string& text) {
  const auto some = text.find("some ");
  if (some == std::string::npos) return std::nullopt;
  const auto avg = text.find("avg10=", some);
  if (avg == std::string::npos) return std::nullopt;
  return std::strtod(text.c_str() + avg + 6, nullptr);
}

std::vector<MachineFinding> check_memory(const MachineSnapshot& s) {
  std::vector<MachineFinding> out;
  const auto total = meminfo_bytes(s.meminfo, "MemTotal"), available = meminfo_bytes(s.meminfo, "MemAvailable");
  if (total && available && *total > 0) {
    const double share = static_cast<double>(*available) / static_cast<double>(*total);
    const bool low = share < 0.1;
    out.push_back({"memory", low, fmt::format("{} of {} available ({:.0f}%)", format_bytes(double(*available)),
                                              format_bytes(double(*total)), 100 * share),
                   low ? "close memory-hungry programs: the allocator and the page cache fight for what is left" : ""});
  } else {
    out.push_back({"memory", false, "not exposed (no /proc/meminfo)", ""});
  }
  const auto swap_total = meminfo_bytes(s.meminfo, "SwapTotal"), swap_free = meminfo_bytes(s.meminfo, "SwapFree");
  const auto mem_psi = pressure_avg10(s.memory_pressure);
  if (swap_total && swap_free && *swap_total > 0) {
    const auto used = *swap_total - std::min(*swap_total, *swap_free);
    const bool thrashing = used > 0 && mem_psi && *mem_psi > 1.0;
    out.push_back({"swap", thrashing,
                   fmt::format("{} of swap in use{}", format_bytes(double(used)),
                               mem_psi ? fmt::format(", memory pressure {:.1f}% (avg10)", *mem_psi) : ""),
                   thrashing ? "free memory: pages are being swapped while programs wait" : ""});
  } else {
    out.push_back({"swap", false, "no swap", ""});
  }
  if (const auto cpu_psi = pressure_avg10(s.cpu_pressure); cpu_psi) {
    const bool contended = *cpu_psi > 10.0;
    out.push_back({"CPU pressure", contended, fmt::format("tasks waited for a CPU {:.1f}% of the last 10 s", *cpu_psi),
                   contended ? "fewer runnable programs (or fewer --threads)" : ""});
  }
  return out;
}

}  // namespace accelbench
