// The `accelbench` command. It answers `--version` itself and starts the engine (accelbench-engine,
// the commands of main.cpp, which link libtorch) for everything else, in its own process (exec: the
// same process id, arguments, environment and exit status). Loading libtorch registers its operators
// before main() runs, about 0.3 s on a 2-core machine; a command that needs no torch should not wait
// for it. The engine lies beside this binary (the build tree) or in ../libexec/accelbench/ (installed).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#include "core/build_info.h"

namespace {
namespace fs = std::filesystem;

// This binary's own path, symbolic links resolved (so that a link in a PATH folder finds the engine).
fs::path launcher_path(const char* argv0) {
  std::error_code ec;
#if defined(__APPLE__)
  std::uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);
  std::string path(size, '\0');
  if (_NSGetExecutablePath(path.data(), &size) == 0) return fs::canonical(path.c_str(), ec);
  return fs::canonical(argv0, ec);
#else
  auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::canonical(argv0, ec) : self;
#endif
}

fs::path engine_path(const fs::path& launcher_dir) {
  for (const auto& candidate : {launcher_dir / "accelbench-engine",
                                launcher_dir.parent_path() / "libexec" / "accelbench" / "accelbench-engine"})
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  return {};
}
}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("accelbench %s (%s)\n", accelbench::accelbench_version(), accelbench::accelbench_git_commit());
    return 0;
  }
  const auto dir = launcher_path(argv[0]).parent_path();
  const auto engine = engine_path(dir);
  if (engine.empty()) {
    std::fprintf(stderr,
                 "accelbench: error: its engine, accelbench-engine, is neither in %s nor in %s; reinstall accelbench\n",
                 dir.c_str(), (dir.parent_path() / "libexec" / "accelbench").c_str());
    return 1;
  }
  ::execv(engine.c_str(), argv);
  std::fprintf(stderr, "accelbench: error: cannot start %s: %s\n", engine.c_str(), std::strerror(errno));
  return 1;
}
