#include "report/json_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/errors.h"

namespace accelbench {

void write_json_report(const RunResult& run, const std::string& path) { write_json_document(nlohmann::json(run), path); }

void write_json_document(const nlohmann::json& document, const std::string& path) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw UsageError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    out << document.dump(1) << "\n";
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw UsageError(fmt::format("cannot write {}: write failed", path));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw UsageError(fmt::format("cannot write {}: {}", path, ec.message()));
  }
}

RunResult read_json_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(fmt::format("{} is not valid JSON (byte {})", path, e.byte));
  }
  try {
    return j.get<RunResult>();
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace accelbench
