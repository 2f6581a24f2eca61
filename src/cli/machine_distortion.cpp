#include "cli/machine_distortion.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/engine.h"
#include "report/terminal.h"
#include "system/machine_checks.h"

namespace accelbench {

MachineDistortion read_machine_distortion(int threads) {
  const auto findings = check_machine(read_machine_snapshot(0.5, threads > 0 ? threads : engine::host_threads()));
  return {machine_summary(findings), machine_headline(findings), distorting_checks(findings)};
}

void mark_distortion(RunContext& context, const MachineDistortion& distortion) {
  if (!distortion.distorted()) return;
  context.warnings.push_back(distortion.warning);
  context.distorted_by = distortion.checks;
}

void warn_distortion(const MachineDistortion& distortion) {
  if (distortion.distorted()) print_err(fmt::format("accelbench: warning: {}\n", distortion.warning));
}

std::string distortion_closing(const MachineDistortion& distortion, const std::string& what) {
  if (!distortion.distorted()) return "";
  return fmt::format("warning: {} (by: {}; the warning above says how): these {} may be the machine's\n", kDistortionWarning,
                     fmt::join(distortion.checks, ", "), what);
}

}  // namespace accelbench
