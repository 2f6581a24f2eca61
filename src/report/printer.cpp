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
#include "system/machine_checks.h"

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

TerminalPrinter::TerminalPrinter(bool per_case_lines, bool progress_line, std::string json_path, Verbosity verbosity)
    : per_case_lines_(per_case_lines),
      progress_line_(progress_line && ::isatty(2) && verbosity != Verbosity::kQuiet),
      json_path_(std::move(json_path)),
      verbosity_(verbosity) {
  if (progress_line_) redraw_ = std::thread([this] { redraw_every_second(); });
}

TerminalPrinter::~TerminalPrinter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (redraw_.joinable()) redraw_.join();
}

TerminalPrinter::ShownProgress ticked_progress(TerminalPrinter::ShownProgress p, double seconds) {
  p.run_elapsed_s += seconds;
  p.over_s += std::max(0.0, seconds - p.eta_s);
  p.eta_s = std::max(0.0, p.eta_s - seconds);
  return p;
}

// Between events (a round in a child process, a step that takes a minute), the line's clocks move on.
void TerminalPrinter::redraw_every_second() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::seconds(1));
    if (stopping_ || !progress_dirty_) continue;
    const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - shown_.drawn_at).count();
    if (since >= 0.9) draw_progress(ticked_progress(shown_, since));
  }
}

void TerminalPrinter::hold(const std::string& line) {
  if (std::find(held_.begin(), held_.end(), line) == held_.end()) held_.push_back(line);
}

void TerminalPrinter::context(const RunContext& c) {
  for (const auto& w : c.warnings) {
    // --quiet drops the other warnings, never a distortion of the timings it prints.
    const bool distortion = w.rfind(kDistortionWarning, 0) == 0;
    if (verbosity_ == Verbosity::kVerbose || (verbosity_ == Verbosity::kQuiet && distortion))
      print_err(fmt::format("accelbench: warning: {}\n", w));
    else if (verbosity_ == Verbosity::kNormal) hold("warning: " + w);
  }
}

void TerminalPrinter::plan(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (verbosity_ != Verbosity::kQuiet) print_err(fmt::format("accelbench: {}\n", line));
}

void TerminalPrinter::case_started(const CasePosition& at, const CaseSpec& /*spec*/, const std::string& label) {
  std::lock_guard lock(mutex_);
  if (per_case_lines_) print_err(fmt::format("accelbench: [{}] {}...\n", at.index + 1, label));
}

void TerminalPrinter::progress(const CasePosition& at, const ProgressEvent& e, double run_elapsed_s, double eta_s) {
  if (!progress_line_) return;
  std::lock_guard lock(mutex_);
  shown_ = ShownProgress{at, e.spec ? *e.spec : CaseSpec{}, e, run_elapsed_s, eta_s, 0, std::chrono::steady_clock::now()};
  shown_.event.spec = nullptr;  // the copy above is what is drawn
  draw_progress(shown_);
}

std::string progress_text(const TerminalPrinter::ShownProgress& p) {
  const auto& e = p.event;
  std::string detail = e.stage;
  if (e.stage == "measure")
    detail = fmt::format("{} samples, {}", e.samples,
                         format_relative_half_width(std::isfinite(e.relative_half_width) ? e.relative_half_width : 0.999));
  else if (e.stage == "warm-up")
    detail = fmt::format("warm-up step {}", e.samples);
  // A clock, not a duration: whole seconds ("0:07", "12:40"); once no time is left, how long over and
  // what ends it.
  auto clock = [](double s) {
    const long t = std::lround(std::max(0.0, std::isfinite(s) ? s : 0.0));
    return fmt::format("{}:{:02d}", t / 60, static_cast<int>(t % 60));
  };
  return fmt::format("[{}/{}] {} on {}: {} | elapsed {} | {}", p.at.index + 1, p.at.total, p.spec.workload, p.spec.device,
                     detail, clock(p.run_elapsed_s),
                     p.eta_s >= 1 ? "~" + clock(p.eta_s) + " left"
                                  : fmt::format("over by {}: waiting for the {} in hand", clock(p.over_s),
                                                e.stage == "measure" ? std::string("sample") : e.stage));
}

void TerminalPrinter::draw_progress(const ShownProgress& p) {
  const auto line = progress_text(p);
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
  std::lock_guard lock(mutex_);
  clear_progress();
  if (per_case_lines_)
    print_err(fmt::format("accelbench: [{}] {}\n", at.index + 1, line));
  else if (!result.ok() && verbosity_ == Verbosity::kVerbose)  // else the table says it
    print_err(fmt::format("accelbench: {} on {} FAILED: {}\n", result.spec.workload, result.spec.device, result.error));
}

void TerminalPrinter::note(const std::string& line) {
  // A note of work as it starts ("parity of mlp on cuda:0 against the CPU ..."): news while it runs,
  // not after the report, where the table gives its outcome.
  const bool starting = line.size() > 3 && line.compare(line.size() - 3, 3, "...") == 0;
  if (verbosity_ == Verbosity::kNormal) {
    if (!starting) hold(line);
    return;
  }
  if (verbosity_ == Verbosity::kQuiet) return;
  std::lock_guard lock(mutex_);
  clear_progress();
  print_err(fmt::format("accelbench: {}\n", line));
}

void TerminalPrinter::finished(const RunResult& run, const std::string& report) {
  std::lock_guard lock(mutex_);
  clear_progress();
  print_out(report);
  if (const auto notes = render_held_notes(held_); !notes.empty()) print_err("\n" + notes);
  if (!closing_.empty()) print_out("\n" + closing_);
  if (verbosity_ == Verbosity::kQuiet) return;
  print_err(fmt::format("accelbench: done in {}{}\n", format_duration(run.wall_s),
                        json_path_.empty() ? "" : fmt::format(", results in {}", json_path_)));
}

namespace {
// "mlp on cpu" of "mlp on cpu: 1 of 2 rounds ..." or "mlp on cpu (float32, batch 64) cannot fit: ...";
// empty for a note about no case.
std::string note_subject(const std::string& note) {
  const auto end = std::min(note.find(": "), note.find(" ("));
  if (end == std::string::npos || end > 60) return "";
  const auto subject = note.substr(0, end);
  return subject.find(" on ") != std::string::npos && subject.find(' ') != 0 ? subject : "";
}
}  // namespace

std::string render_held_notes(const std::vector<std::string>& notes) {
  std::vector<std::string> subjects;  // in order of first appearance; "" for notes about no case
  std::vector<std::vector<std::string>> texts;
  for (const auto& n : notes) {
    const auto subject = note_subject(n);
    auto it = std::find(subjects.begin(), subjects.end(), subject);
    if (subject.empty() || it == subjects.end()) {
      subjects.push_back(subject);
      texts.emplace_back();
      it = subjects.end() - 1;
    }
    auto& list = texts[static_cast<std::size_t>(it - subjects.begin())];
    if (subject.empty()) list.push_back(n);
    else list.push_back(n.substr(n.compare(subject.size(), 2, ": ") == 0 ? subject.size() + 2 : subject.size() + 1));
  }
  std::string out;
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    auto list = texts[i];
    // A prediction before measuring, once the case's own notes say what happened.
    if (list.size() > 1)
      std::erase_if(list, [](const std::string& t) { return t.find("cannot fit: ") != std::string::npos; });
    if (subjects[i].empty()) {
      out += "  - " + list.front() + "\n";
      continue;
    }
    if (list.size() == 1) {
      out += fmt::format("  - {}{}{}\n", subjects[i], list.front().front() == '(' ? " " : ": ", list.front());
      continue;
    }
    out += fmt::format("  - {}:\n", subjects[i]);
    for (const auto& t : list) out += "      " + t + "\n";
  }
  return out.empty() ? "" : "Notes:\n" + out;
}

}  // namespace accelbench
