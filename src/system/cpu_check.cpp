// CPU frequency governor, turbo, SMT, and the intra-op threads against the free cores.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "system/machine_checks.h"

namespace accelbench {

std::vector<MachineFinding> check_cpu(const MachineSnapshot& s) {
  std::vector<MachineFinding> out;
  if (s.governors.empty()) {
    out.push_back({"governor", false, "not exposed (no cpufreq in /sys: a VM or a container?)", ""});
  } else {
    const std::set<std::string> kinds(s.governors.begin(), s.governors.end());
    const bool slow = std::any_of(kinds.begin(), kinds.end(), [](const std::string& g) { return g != "performance"; });
    std::string list;
    for (const auto& g : kinds) list += (list.empty() ? "" : ", ") + g;
    out.push_back({"governor", slow, fmt::format("CPU frequency governor {}", list),
                   slow ? "sudo cpupower frequency-set -g performance (the clock then does not ramp during a case)" : ""});
  }
  if (!s.turbo) out.push_back({"turbo", false, "not exposed", ""});
  else
    out.push_back({"turbo", false, *s.turbo ? "turbo boost on: the clock varies with temperature and load" : "turbo boost off",
                   *s.turbo ? "for steadier numbers: echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo" : ""});
  if (!s.smt) out.push_back({"SMT", false, "not exposed", ""});
  else
    out.push_back({"SMT", false,
                   *s.smt ? fmt::format("SMT on: {} logical CPUs on {} cores", s.logical_cores, s.physical_cores) : "SMT off",
                   *s.smt ? "threads on sibling CPUs share a core: --threads at most the physical cores" : ""});
  const int free_cores = std::max(1, static_cast<int>(std::floor(s.logical_cores - busy_cores(s) + 0.25)));
  if (s.threads > 0) {
    const bool over = s.threads > free_cores;
    out.push_back({"threads", over,
                   fmt::format("{} intra-op thread{} on {} free core{} ({} logical, {:.1f} busy with other work){}", s.threads,
                               s.threads == 1 ? "" : "s", free_cores, free_cores == 1 ? "" : "s", s.logical_cores, busy_cores(s),
                               over ? ": oversubscribed, threads wait for each other at every op" : ""),
                   over ? fmt::format("--threads {} (or free the busy cores)", free_cores) : ""});
  }
  return out;
}

}  // namespace accelbench
