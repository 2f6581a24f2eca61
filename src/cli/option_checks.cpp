#include "cli/option_checks.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"

namespace accelbench {

void check_writable(const std::string& path, const char* option) {
  namespace fs = std::filesystem;
  if (path.empty()) throw UsageError(fmt::format("{} needs a file name", option));
  const auto abs = fs::absolute(path);
  const auto parent = abs.parent_path();
  if (fs::is_directory(abs)) throw UsageError(fmt::format("cannot write {} {}: it is a directory", option, path));
  if (!fs::is_directory(parent) || ::access(parent.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("cannot write {} {}: directory {} does not exist or is not writable", option, path,
                                 parent.string()));
  // Probe by opening it (permission bits alone miss read-only file systems such as sysfs for root).
  const bool existed = fs::exists(abs);
  {
    std::ofstream probe(abs, std::ios::app);
    if (!probe) throw UsageError(fmt::format("cannot write {} {}: the file cannot be opened for writing", option, path));
  }
  if (!existed) {
    std::error_code ec;
    fs::remove(abs, ec);
  }
}

void check_threads(int threads) {
  if (threads < 0) throw UsageError(fmt::format("--threads must be 0 (torch's default) or more (got {})", threads));
}

void check_stopping(double ci_target, std::size_t min_samples) {
  if (!(ci_target > 0 && ci_target < 1))
    throw UsageError(fmt::format("--ci-target must be a fraction in (0, 1), e.g. 0.02 for +-2% (got {})", ci_target));
  if (min_samples < 1) throw UsageError("--min-samples must be at least 1");
}

void check_seq_len(std::int64_t seq_len) {
  if (seq_len < 2 || seq_len > 512) throw UsageError(fmt::format("--seq-len must be in [2, 512] (got {})", seq_len));
}

void check_data_dir(const std::string& data_dir) {
  if (!data_dir.empty() && !std::filesystem::exists(data_dir))
    throw UsageError(fmt::format("--data-dir {} does not exist", data_dir));
}

}  // namespace accelbench
