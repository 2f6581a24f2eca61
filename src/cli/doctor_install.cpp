#include "cli/doctor_install.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>

#include "core/child_process.h"
#include "core/torch_build.h"
#include "drivers/python_measurer.h"

namespace accelbench {

namespace {
std::string torch_line(const std::string& torch_library_dir) {
  const auto built = built_torch();
  const auto torch_dir = std::filesystem::path(torch_library_dir).parent_path().string();
  const auto loaded = torch_library_dir.empty() ? std::nullopt : read_torch_build(torch_dir);
  if (!loaded)
    return fmt::format("torch build  built against {}; loaded from {} (no torch/version.py there)\n", built.describe(),
                       torch_library_dir.empty() ? std::string("an unknown folder") : torch_library_dir);
  const bool same = *loaded == built;
  return fmt::format("torch build  built against {}; loaded {} from {}{}\n", built.describe(), loaded->describe(),
                     torch_library_dir,
                     same ? "" : " (another torch: pip install --no-build-isolation --force-reinstall <source>)");
}

// The first interpreter the Python cases would try that has a torch (found without importing it).
std::string python_line() {
  const auto candidates = python_candidates();
  const char* from_launcher = std::getenv("ACCELBENCH_PYTHON");
  for (const auto& python : candidates) {
    const auto probe = probe_python(python);
    if (!probe || !probe->torch) continue;
    const bool named = from_launcher && python == from_launcher;
    return fmt::format("python cases {} (Python {}, torch {}){}\n", python, probe->python_version, probe->torch->describe(),
                       named ? "; from ACCELBENCH_PYTHON" : "");
  }
  return fmt::format("python cases none found: no torch in {}; --python PATH names one\n",
                     candidates.empty() ? std::string("any python3 on PATH") : fmt::format("{}", fmt::join(candidates, ", ")));
}
}  // namespace

std::string installation_lines(const std::string& torch_library_dir) {
  return fmt::format("engine       {}\n", self_executable_path()) + torch_line(torch_library_dir) + python_line();
}

}  // namespace accelbench
