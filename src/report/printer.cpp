#include "report/printer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "core/durations.h"
#include "report/json_report.h"
#include "report/terminal.h"

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
  for (const auto& w : c.warnings) print_err(fmt::format("accelbench: warning: {}\n", w));
}

void TerminalPrinter::plan(const std::string& line) { print_err(fmt::format("accelbench: {}\n", line)); }

void TerminalPrinter::case_started(const CasePosition& at, const CaseSpec& /*spec*/, const std::string& label) {
  if (per_case_lines_) print_err(fmt::format("accelbench: [{}] {}...\n", at.index + 1, label));
}

void TerminalPrinter::progress(const CasePosition& at, const ProgressEvent& e, double run_elapsed_s, double eta_s) {
  if (!progress_line_) return;
  std::string detail = e.stage;
  if (e.stage == "measure")
    detail = fmt::format("{} samples, +-{:.1f}%", e.samples,
                         std::isfinite(e.relative_half_width) ? 100 * e.relative_half_width : 99.9);
  else if (e.stage == "warm-up")
    detail = fmt::format("warm-up step {}", e.samples);
  // A clock, not a duration: whole seconds ("0:07", "12:40"); "finishing" once no time is left.
  auto clock = [](double s) {
    const long t = std::lround(std::max(0.0, std::isfinite(s) ? s : 0.0));
    return fmt::format("{}:{:02d}", t / 60, static_cast<int>(t % 60));
  };
  const auto line = fmt::format("[{}/{}] {} on {}: {} | elapsed {} | {}", at.index + 1, at.total, e.spec->workload,
                                e.spec->device, detail, clock(run_elapsed_s),
                                eta_s >= 1 ? "~" + clock(eta_s) + " left" : std::string("finishing"));
  // One terminal line: never wider than the terminal (a wrapped line could not be rewritten with \r).
  const auto width = output_width(2);
  const auto shown = display_width(line) < width ? line : line.substr(0, width - 1);
  std::fprintf(stderr, "\r\033[K%s", shown.c_str());
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
    print_err(fmt::format("accelbench: [{}] {}\n", at.index + 1, line));
  else if (!result.ok())
    print_err(fmt::format("accelbench: {} on {} FAILED: {}\n", result.spec.workload, result.spec.device, result.error));
}

void TerminalPrinter::note(const std::string& line) {
  clear_progress();
  print_err(fmt::format("accelbench: {}\n", line));
}

void TerminalPrinter::finished(const RunResult& run, const std::string& report) {
  clear_progress();
  print_out(report);
  print_err(fmt::format("accelbench: done in {}{}\n", format_duration(run.wall_s),
                        json_path_.empty() ? "" : fmt::format(", results in {}", json_path_)));
}

}  // namespace accelbench
