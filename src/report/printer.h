#pragma once
// What a command says while and after it measures, as events (Google Benchmark's reporters,
// NVBench's printers): the context, the plan, each case as it starts, progresses and ends, notes,
// the document as it grows, and the end. A TerminalPrinter (below) writes the
// progress line or the per-point lines and the final report; a JsonFilePrinter rewrites --json
// after each case; a FanOutPrinter sends every event to several. The drivers (src/drivers) only
// emit events: no output is written anywhere else while measuring. No torch here.
#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/measurement.h"
#include "core/results.h"

namespace accelbench {

// Where a case stands in its command: the index (0-based) among `total` (0 when not known ahead,
// as in a batch sweep's bisection).
struct CasePosition {
  std::size_t index = 0;
  std::size_t total = 0;
};

class Printer {
 public:
  virtual ~Printer() = default;
  // The run's context is known (the machine, the settings): warnings about what distorts timings.
  virtual void context(const RunContext& /*context*/) {}
  // One line saying what will be measured, with how much time.
  virtual void plan(const std::string& /*line*/) {}
  // A case starts; `label` names it the way the command's lines do ("batch 64 (doubling)").
  virtual void case_started(const CasePosition& /*at*/, const CaseSpec& /*spec*/, const std::string& /*label*/) {}
  // Progress inside a case; `run_elapsed_s` since the command started, `eta_s` the estimate of what is left.
  virtual void progress(const CasePosition& /*at*/, const ProgressEvent& /*event*/, double /*run_elapsed_s*/,
                        double /*eta_s*/) {}
  // A case ended; `line` is what the command says about it ("batch 64: 1.2k samples/s ...").
  virtual void case_finished(const CasePosition& /*at*/, const CaseResult& /*result*/, const std::string& /*line*/) {}
  // A note on what happens between cases ("parity of cnn on cuda:0 against the CPU ...").
  virtual void note(const std::string& /*line*/) {}
  // The document (run schema, plus a "sweep" block for a sweep) changed: a case was added, or it is final.
  virtual void document(const nlohmann::json& /*doc*/) {}
  // The command is done: its report (table, advice) and the run as measured.
  virtual void finished(const RunResult& /*run*/, const std::string& /*report*/) {}
};

// Every event to each printer in turn.
class FanOutPrinter : public Printer {
 public:
  void add(std::unique_ptr<Printer> printer) { printers_.push_back(std::move(printer)); }
  void context(const RunContext& c) override;
  void plan(const std::string& line) override;
  void case_started(const CasePosition& at, const CaseSpec& spec, const std::string& label) override;
  void progress(const CasePosition& at, const ProgressEvent& e, double run_elapsed_s, double eta_s) override;
  void case_finished(const CasePosition& at, const CaseResult& result, const std::string& line) override;
  void note(const std::string& line) override;
  void document(const nlohmann::json& doc) override;
  void finished(const RunResult& run, const std::string& report) override;

 private:
  std::vector<std::unique_ptr<Printer>> printers_;
};

// Rewrites the JSON file (atomically) each time the document changes, so an interrupted command
// keeps what it measured.
class JsonFilePrinter : public Printer {
 public:
  explicit JsonFilePrinter(std::string path) : path_(std::move(path)) {}
  void document(const nlohmann::json& doc) override;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// How much a command says on stderr besides its report. kVerbose: every warning and note as it
// happens (the sweeps, `run --verbose`). kNormal (`run`): the plan lines before measuring, every
// other warning and note held until the report is out, then under "Notes:", grouped by the case they
// are about, each once (a note of work as it starts, ending in "...", is not held). kQuiet (`run
// --quiet`): no plan, no notes, no "done" line; a distortion of the timings still said on stderr.
enum class Verbosity { kQuiet, kNormal, kVerbose };

// Terminal output: warnings, the plan line, the case lines and the "done" line on stderr; the
// report on stdout. `per_case_lines`: a sweep's "[i] label..." / "[i] line" (else a run's
// progress line, and a line only for a failed case, which kNormal and kQuiet leave to the table).
// The progress line (a terminal only) never sits still: a thread redraws it every second between
// events, its clocks moved on by the time since the last event (ticked_progress).
class TerminalPrinter : public Printer {
 public:
  TerminalPrinter(bool per_case_lines, bool progress_line, std::string json_path, Verbosity verbosity = Verbosity::kVerbose);
  ~TerminalPrinter() override;
  TerminalPrinter(const TerminalPrinter&) = delete;
  TerminalPrinter& operator=(const TerminalPrinter&) = delete;
  // Printed on stdout after the report and the notes (a run's Summary), in every verbosity.
  void set_closing(std::string text) { closing_ = std::move(text); }
  void context(const RunContext& c) override;
  void plan(const std::string& line) override;
  void case_started(const CasePosition& at, const CaseSpec& spec, const std::string& label) override;
  void progress(const CasePosition& at, const ProgressEvent& e, double run_elapsed_s, double eta_s) override;
  void case_finished(const CasePosition& at, const CaseResult& result, const std::string& line) override;
  void note(const std::string& line) override;
  void finished(const RunResult& run, const std::string& report) override;

  // The progress line as last drawn, and when.
  struct ShownProgress {
    CasePosition at;
    CaseSpec spec;
    ProgressEvent event;
    double run_elapsed_s = 0, eta_s = 0;
    double over_s = 0;  // how long the case has gone on past its time (its stage in hand ends it)
    std::chrono::steady_clock::time_point drawn_at;
  };

 private:
  void clear_progress();  // these three with mutex_ held
  void draw_progress(const ShownProgress& p);
  void redraw_every_second();
  void hold(const std::string& line);  // a note for after the report (kNormal), once
  bool per_case_lines_;
  bool progress_line_;
  bool progress_dirty_ = false;
  std::mutex mutex_;  // stderr's lines between the events and the redrawing thread
  std::condition_variable wake_;
  bool stopping_ = false;
  ShownProgress shown_;
  std::thread redraw_;
  std::string json_path_;
  Verbosity verbosity_;
  std::vector<std::string> held_;
  std::string closing_;
};

// The held notes as printed after the report: "Notes:", then one item per subject ("mlp on cpu"),
// its notes under it, a prediction made before measuring ("... cannot fit: ...") left out where a
// later note on the same case says what happened. Empty when there are none.
std::string render_held_notes(const std::vector<std::string>& notes);

// The progress line `seconds` after it was drawn: the run's elapsed time on by `seconds`, the time
// left down by as much (never below 0; what goes below it counts as time over), the rest as it was.
// With no time left the line says how long it has gone over and what it waits for ("over by
// 0:12: waiting for the sample in hand"), never one word for long.
TerminalPrinter::ShownProgress ticked_progress(TerminalPrinter::ShownProgress p, double seconds);
// The progress line's text: "[2/6] mlp on cpu: 40 samples, +-3.1% | elapsed 0:12 | ~0:30 left".
std::string progress_text(const TerminalPrinter::ShownProgress& p);

}  // namespace accelbench
