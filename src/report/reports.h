#pragma once
// Reports of one run: Markdown (mirrors the article's tables), CSV (one row per case), and one
// self-contained HTML file with inline-SVG charts, each beside its table. No torch here.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/results.h"
#include "store/history_store.h"

namespace accelbench {

struct ReportSource {
  RunResult run;
  nlohmann::json document = nlohmann::json::object();  // the run's full JSON (telemetry and other extras)
  std::string name;                                      // "run 12 (uid 3fa2b1c0)" or the JSON file's path
  // Stored medians of the same cases up to this run, oldest first (a run from the history database;
  // empty for a JSON file): the HTML report's history charts.
  std::vector<CaseHistoryPoint> history;
};

// "md", "csv", "html", "json" (also "markdown", "htm"). Throws UsageError on another format.
std::string normalize_report_format(const std::string& format);
// The format a file's extension names (.md/.markdown, .csv, .html/.htm, .json), "" for another.
std::string report_format_of_path(const std::string& path);
std::string render_report(const ReportSource& src, const std::string& format);
std::string render_markdown_report(const ReportSource& src);
std::string render_csv_report(const ReportSource& src);
std::string render_html_report(const ReportSource& src);

// Writes text to path through write_file_atomically (core/safe_write.h): a regular file is replaced
// through a temporary renamed over it (no partial file is ever left), a symlink's target is
// replaced, a device node or /dev/stdout written in place. Throws UsageError (one line) when the
// path cannot be written.
void write_text_atomically(const std::string& path, const std::string& text);

// ---- what the reports share ---------------------------------------------------------------------
std::vector<std::string> report_devices(const RunResult& run);   // in order of appearance, CPU first
std::vector<std::string> report_workloads(const RunResult& run);
const Speedup* find_speedup(const RunResult& run, const std::string& workload, const std::string& device);
std::string peak_memory_text(const CaseResult& c);
double peak_memory_bytes(const CaseResult& c);  // 0 when unknown

// Telemetry over time, read from the document: each case's "telemetry" (or the run's). The engine's
// format (core/telemetry_summary.h) is {"series": {"t_s": [...], "channels": {"nvml:0":
// {"power_w": [...], "temperature_c": [...]}, ...}}}: one curve per channel. Also accepted:
// {"samples": [{"t_s", "power_w", "temperature_c"}, ...]} or columns {"t_s": [...], "power_w": [...],
// "temperature_c": [...]} ("t"/"time_s", "power"/"watts", "temp_c"/"temperature" as well).
struct TelemetryCurve {
  std::string label;  // "cnn on cuda:0" or "run"
  std::vector<double> t_s, power_w, temperature_c;  // NaN where a value is missing
};
std::vector<TelemetryCurve> telemetry_curves(const nlohmann::json& document);

}  // namespace accelbench
