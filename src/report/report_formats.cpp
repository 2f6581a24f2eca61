// The report formats, one row each: what `accelbench report --format` takes, the file endings that
// choose a format, how the help names it, and what renders it. The help texts, the messages and the
// shell completions read this table; a new format is a file of its own (render_<format>_report,
// declared in reports.h) and a row here.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/errors.h"
#include "core/lists.h"
#include "report/reports.h"

namespace accelbench {

namespace {

std::string lower_case(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> formats{
      {"md", {"markdown"}, {"md", "markdown"}, "Markdown", render_markdown_report},
      {"csv", {}, {"csv"}, "CSV", render_csv_report},
      {"html", {"htm"}, {"html", "htm"}, "a self-contained HTML page with charts", render_html_report},
      {"json", {}, {"json"}, "JSON", render_json_report},
  };
  return formats;
}

std::string report_format_names(const std::string& last_separator) {
  std::vector<std::string> names;
  for (const auto& f : report_formats()) names.push_back(f.name);
  return join_as_prose(names, last_separator);
}

std::string report_format_extensions() {
  std::vector<std::string> endings;
  for (const auto& f : report_formats()) endings.push_back("." + f.extensions.front());
  return join_as_prose(endings, " or ");
}

std::string report_format_descriptions() {
  std::vector<std::string> described;
  for (const auto& f : report_formats()) described.push_back(f.description);
  return join_as_prose(described, " or ");
}

namespace {
const ReportFormat& find_report_format(const std::string& format) {
  const auto f = lower_case(format);
  for (const auto& row : report_formats())
    if (f == row.name || std::find(row.aliases.begin(), row.aliases.end(), f) != row.aliases.end()) return row;
  throw UsageError(fmt::format("unknown report format '{}': use {}", format, report_format_names()));
}
}  // namespace

std::string normalize_report_format(const std::string& format) { return find_report_format(format).name; }

std::string report_format_of_path(const std::string& path) {
  auto dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
  const auto ext = lower_case(path.substr(dot + 1));
  for (const auto& row : report_formats())
    if (std::find(row.extensions.begin(), row.extensions.end(), ext) != row.extensions.end()) return row.name;
  return "";
}

std::string render_report(const ReportSource& src, const std::string& format) { return find_report_format(format).render(src); }

}  // namespace accelbench
