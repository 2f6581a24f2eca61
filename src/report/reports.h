#pragma once
// Reports of one run: Markdown (mirrors the article's tables), CSV (one row per case), one
// self-contained HTML file with inline-SVG charts, each beside its table, and the JSON document.
// No torch here.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/case_figures.h"
#include "core/case_history.h"
#include "core/results.h"

namespace accelbench {

struct ReportSource {
  RunResult run;
  nlohmann::json document = nlohmann::json::object();  // the run's full JSON (telemetry and other extras)
  std::string name;                                      // "run 12 (uid 3fa2b1c0)" or the JSON file's path
  // Stored medians of the same cases up to this run, oldest first (a run from the history database;
  // empty for a JSON file): the HTML report's history charts.
  std::vector<CaseHistoryPoint> history;
};

// The report formats (report_formats.cpp), one row each, in the order the help lists them (the
// first is the default). The help texts, the messages and the shell completions read them.
struct ReportFormat {
  std::string name;                     // "md": what --format takes, and the messages say
  std::vector<std::string> aliases;     // other names --format takes ("markdown")
  std::vector<std::string> extensions;  // the file endings that choose it, the first the one the help names
  std::string description;              // "Markdown": how the report command's help names it
  std::string (*render)(const ReportSource& src);
};
const std::vector<ReportFormat>& report_formats();
// "md, csv, html or json" (`last_separator` before the last), ".md, .csv, .html or .json", and
// "Markdown, CSV, ... or JSON".
std::string report_format_names(const std::string& last_separator = " or ");
std::string report_format_extensions();
std::string report_format_descriptions();
// A format's name from a name or alias in any case ("MD", "markdown": "md"). Throws UsageError,
// naming the formats, on another.
std::string normalize_report_format(const std::string& format);
// The format a file's ending chooses (".md", ".markdown": "md"), "" for another.
std::string report_format_of_path(const std::string& path);
std::string render_report(const ReportSource& src, const std::string& format);
// The formats, one file each.
std::string render_markdown_report(const ReportSource& src);
std::string render_csv_report(const ReportSource& src);
std::string render_html_report(const ReportSource& src);
// The run's full JSON document (telemetry and other extras), else the run's JSON.
std::string render_json_report(const ReportSource& src);

// Writes text to path through write_file_atomically (core/safe_write.h): a regular file is replaced
// through a temporary renamed over it (no partial file is ever left), a symlink's target is
// replaced, a device node or /dev/stdout written in place. Throws UsageError (one line) when the
// path cannot be written.
void write_text_atomically(const std::string& path, const std::string& text);

// ---- what the reports share ---------------------------------------------------------------------
std::vector<std::string> report_devices(const RunResult& run);   // in order of appearance, CPU first
std::vector<std::string> report_workloads(const RunResult& run);
// The rows of the reports' first table: one per model, precision and batch size, in order of
// appearance. The label is the model's, followed by the precision where the run has more than one
// ("mlp bfloat16") and by the batch where it has more than one ("mlp b256": a batch sweep).
// A row of the article's table: a model in a precision at a batch size. Its label names the model,
// the loop that trains it where the run has rows of several loops ("mlp (Python)"; else the
// table's header says the one loop: report_rows_loop), the precision and batch where the run has several.
struct ReportRow {
  std::string model, dtype, label;
  std::string loop;                 // "C++", "Python", "Python, compile=reduce-overhead" ("" for the article's figures)
  std::int64_t batch = 0;
  bool several_batches = false;  // the run has more than one batch size
  bool loop_in_label = false;    // the run's rows are of several loops
};
std::vector<ReportRow> report_rows(const RunResult& run);
// "C++ loop", "Python loop": the one loop of every row, for the table's header ("" where they are
// several, or the article's).
std::string report_rows_loop(const std::vector<ReportRow>& rows);
// Whether the run has a case trained by another loop than the C++ engine (--impl python, --py-model):
// the case tables then have an implementation column ("impl": implementation_label()) and name the
// model without it (model_label_without_impl()).
bool has_implementation_column(const RunResult& run);
// A case table (a header row, then one row per case in run.cases' order, the model label first) with
// the implementation column after the model, when the run has one.
void add_implementation_column(std::vector<std::vector<std::string>>& table, const RunResult& run);
const CaseResult* find_row_case(const RunResult& run, const ReportRow& row, const std::string& device);
// The speed-up in `list` (run.speedups, run.speedups_over_fastest_cpu) of a model label, precision
// and batch size (0: any) on `device`.
const Speedup* find_row_speedup(const std::vector<Speedup>& list, const std::string& model, const std::string& dtype,
                                const std::string& device, std::int64_t batch);
// The case's speed-up over the CPU's fastest measured precision (run.speedups_over_fastest_cpu: the
// same model, device, dtype and batch), nullptr where it has none (the CPU's fastest is its own).
const Speedup* find_speedup_over_fastest_cpu(const RunResult& run, const CaseSpec& spec);
// "10.00x [9.99, 10.01] (cpu float32)": the speed-up with its 95% interval, then the CPU precision it is over.
std::string over_fastest_cpu_text(const Speedup& s);
// The table of each accelerator case's speed-up over the CPU's fastest precision (Markdown, HTML):
// a header row, then one row per speed-up; empty when the run has none.
std::vector<std::vector<std::string>> over_fastest_cpu_rows(const RunResult& run, bool published);
// The one-line note under the speed-ups over the CPU's fastest precision (Markdown, HTML).
inline constexpr const char* kOverFastestCpuNote =
    "Over the CPU's fastest: the speed-up over the CPU's fastest measured precision of the same model and batch "
    "(named in brackets), where that is another precision than the case's own (a CPU that emulates bfloat16 is "
    "faster in float32).";
// The machine as the reports' context tables name it: "host (CPU model; 8 physical / 16 logical
// cores[, 32 GiB])", the core counts left out where they are not known (the article's figures).
std::string machine_description(const RunContext& ctx, bool with_memory);
// The note on a case's next-run range: "CI: fallback constant", "CI: next run, from rounds",
// "CI: next run, from history (3 cases)".
std::string run_to_run_label(const RunToRun& r);
// What a speed-up column's interval is: "next run 95%" where the run-to-run spread set the
// intervals (Speedup::widened_by_history), else "this run 95%" (core/durations.h interval_name).
std::string speedup_interval_name(const std::vector<Speedup>& speedups);
// A case's step-time interval as every case table writes it: "-12/+15%" around the median
// (format_relative_interval), "-" with one sample. case_interval_name: the column's name, "next run
// 95%" where the run-to-run spread widened a case's interval, else "this run 95%".
std::string case_interval_text(const CaseResult& c);
std::string case_interval_name(const RunResult& run);
// A speed-up as the tables write it: "5.98x [4.73, 7.55]" (format_ratio_ci), or "5.98x [too wide]"
// where its next-run range spans more than kTooWideFactor (RunToRun::too_wide says why); a case's
// range the same: "too wide".
std::string speedup_ratio_text(const Speedup& s);
inline constexpr const char* kTooWideCell = "too wide";
// One sentence a user can act on: which device is faster and by how much where the interval
// excludes 1; where it does not, that this run cannot tell, and what would.
std::string speedup_words(const Speedup& s);

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
