#pragma once
// What on the machine distorts timings, read once before a command measures (system/machine_checks.h):
// for `run`, every sweep, `peak` and `profile` alike, so that no command measures under a distortion
// without saying so.
#include <string>
#include <vector>

#include "core/results.h"

namespace accelbench {

struct MachineDistortion {
  std::string warning;              // "timings may be DISTORTED: ... (accelbench doctor says how to fix it)"; "" when none
  std::string headline;             // its one-line form: "timings may be DISTORTED by: load, threads (see Notes)"
  std::vector<std::string> checks;  // the checks' names: the history's mark (RunContext::distorted_by)
  bool distorted() const { return !checks.empty(); }
};

// The machine read over half a second with `threads` intra-op threads (0: the host's).
MachineDistortion read_machine_distortion(int threads);

// The warning added to the context's warnings and the checks to its mark.
void mark_distortion(RunContext& context, const MachineDistortion& distortion);

// For a command that prints its own report (peak, profile): "accelbench: warning: <warning>" on
// stderr, where there is a distortion.
void warn_distortion(const MachineDistortion& distortion);
// The line that report ends with: "warning: timings may be DISTORTED (by: load, threads): these
// <what> may be the machine's"; "" where there is none.
std::string distortion_closing(const MachineDistortion& distortion, const std::string& what);

}  // namespace accelbench
