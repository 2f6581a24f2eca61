#include "report/printer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "core/durations.h"
#include "report/json_report.h"

namespace accelbench {

// ---- fan-out ----------------------------------------------------------------------------------

void FanOutPrinter::context(const RunContext& c) {
  for (auto& p : printers_) p->context(c);
}
void FanOutPrinter::plan(const std::string& line) {
  for (auto& p : printers_) p->plan(line);
}
void FanOutPrinter::case_started(const CasePosition& at, const CaseSpec& spec, const std::string& label) {
  for (auto& p : printers_) p->case_started(at, spec, label);
}
void FanOutPrinter::progress(const CasePosition& at, const ProgressEvent& e, double run_elapsed_s, double eta_s) {
  for (auto& p : printers_) p->progress(at, e, run_elapsed_s, eta_s);
}
void FanOutPrinter::case_finished(const CasePosition& at, const CaseResult& result, const std::string& line) {
  for (auto& p : printers_) p->case_finished(at, result, line);
}
void FanOutPrinter::note(const std::string& line) {
  for (auto& p : printers_) p->note(line);
}
void FanOutPrinter::document(const nlohmann::json& doc) {
  for (auto& p : printers_) p->document(doc);
}
void FanOutPrinter::finished(const RunResult& run, const std::string& report) {
  for (auto& p : printers_) p->finished(run, report);
}

// ---- JSON file --------------------------------------------------------------------------------

void JsonFilePrinter::document(const nlohmann::json& doc) { write_json_document(doc, path_); }

// ---- terminal ---------------------------------------------------------------------------------

TerminalPrinter::TerminalPrinter(bool per_case_lines, bool progress_line, std::string json_path)
    : per_case_lines_(per_case_lines), progress_line_(progress_line && ::isatty(2)), json_path_(std::move(json_path)) {}

void TerminalPrinter::context(const RunContext& c) {
  for (const auto& w : c.warnings) std::fprintf(stderr, "accelbench: warning: %s\n", w.c_str());
}

void TerminalPrinter::plan(const std::string& line) { std::fprintf(stderr, "accelbench: %s\n", line.c_str()); }

void TerminalPrinter::case_started(const CasePosition& at, const CaseSpec& /*spec*/, const std::string& label) {
  if (per_case_lines_) std::fprintf(stderr, "accelbench: [%zu] %s...\n", at.index + 1, label.c_str());
}

void TerminalPrinter::progress(const CasePosition& at, const ProgressEvent& e, double run_elapsed_s, double eta_s) {
  if (!progress_line_) return;
  std::string detail = e.stage;
  if (e.stage == "measure")
    detail = fmt::format("{} samples, +-{:.1f}%", e.samples,
                         std::isfinite(e.relative_half_width) ? 100 * e.relative_half_width : 99.9);
  else if (e.stage == "warm-up")
    detail = fmt::format("warm-up step {}", e.samples);
  const auto line = fmt::format("[{}/{}] {} on {}: {} | elapsed {} | ~{} left", at.index + 1, at.total, e.spec->workload,
                                e.spec->device, detail, format_duration(run_elapsed_s), format_duration(eta_s));
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  progress_dirty_ = true;
}

void TerminalPrinter::clear_progress() {
  if (progress_line_ && progress_dirty_) std::fprintf(stderr, "\r\033[K");
  progress_dirty_ = false;
}

void TerminalPrinter::case_finished(const CasePosition& at, const CaseResult& result, const std::string& line) {
  clear_progress();
  if (per_case_lines_)
    std::fprintf(stderr, "accelbench: [%zu] %s\n", at.index + 1, line.c_str());
  else if (!result.ok())
    std::fprintf(stderr, "accelbench: %s on %s failed: %s\n", result.spec.workload.c_str(), result.spec.device.c_str(),
                 result.error.c_str());
}

void TerminalPrinter::note(const std::string& line) {
  clear_progress();
  std::fprintf(stderr, "accelbench: %s\n", line.c_str());
}

void TerminalPrinter::finished(const RunResult& run, const std::string& report) {
  clear_progress();
  std::cout << report << std::flush;
  std::fprintf(stderr, "accelbench: done in %s%s\n", format_duration(run.wall_s).c_str(),
               json_path_.empty() ? "" : fmt::format(", results in {}", json_path_).c_str());
}

}  // namespace accelbench
