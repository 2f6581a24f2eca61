// Thermal zones: a hot machine throttles its clock during a case.
#include <fmt/format.h>

#include <algorithm>

#include "system/machine_checks.h"

namespace accelbench {

std::vector<MachineFinding> check_thermal(const MachineSnapshot& s) {
  if (s.temperatures_c.empty()) return {{"thermal", false, "not exposed (no /sys/class/thermal zone)", ""}};
  const double hottest = *std::max_element(s.temperatures_c.begin(), s.temperatures_c.end());
  const bool hot = hottest >= 90;
  return {{"thermal", hot, fmt::format("hottest of {} zone{} {:.0f} C", s.temperatures_c.size(), s.temperatures_c.size() == 1 ? "" : "s", hottest),
           hot ? "let it cool (run --cooldown 30s between cases), check the fans" : ""}};
}

std::vector<MachineFinding> check_machine(const MachineSnapshot& s) {
  std::vector<MachineFinding> out;
  for (auto part : {check_load(s), check_cpu(s), check_memory(s), check_thermal(s), check_gpus(s)}) out.insert(out.end(), part.begin(), part.end());
  return out;
}

std::string machine_summary(const std::vector<MachineFinding>& findings) {
  std::string out;
  for (const auto& f : findings)
    if (f.distorts) out += (out.empty() ? "" : "; ") + f.text;
  return out.empty() ? "" : std::string(kDistortionWarning) + ": " + out + " (accelbench doctor says how to fix it)";
}

std::vector<std::string> distorting_checks(const std::vector<MachineFinding>& findings) {
  std::vector<std::string> names;
  for (const auto& f : findings)
    if (f.distorts && std::find(names.begin(), names.end(), f.check) == names.end()) names.push_back(f.check);
  return names;
}

std::string machine_headline(const std::vector<MachineFinding>& findings) {
  const auto names = distorting_checks(findings);
  if (names.empty()) return "";
  std::string shown;
  std::size_t i = 0;
  for (; i < names.size() && (i == 0 || shown.size() + names[i].size() <= kHeadlineNamesWidth); ++i)
    shown += (i ? ", " : "") + names[i];
  if (i < names.size()) shown += fmt::format(" and {} more", names.size() - i);
  return "timings may be DISTORTED by: " + shown + " (see Notes)";
}

}  // namespace accelbench
