#include "report/json_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/safe_write.h"
#include "report/reports.h"

namespace accelbench {

void write_json_report(const RunResult& run, const std::string& path) { write_json_document(nlohmann::json(run), path); }

void write_json_document(const nlohmann::json& document, const std::string& path) {
  write_file_atomically(path, document.dump(1) + "\n");
}

std::string render_json_report(const ReportSource& src) {
  return (src.document.is_object() && !src.document.empty() ? src.document : nlohmann::json(src.run)).dump(2) + "\n";
}

RunResult read_json_report(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) check_regular_input_file(path, "JSON file");  // a directory, a device
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
