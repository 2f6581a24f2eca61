#pragma once
// The terminal report of each sweep kind, from its typed record (core/sweep_records.h) and the run
// whose cases its points name: the header, the table, the best value; then the end every sweep's
// report shares (the noisy note, the advice). No torch here.
#include <nlohmann/json.hpp>

#include <string>

#include "core/results.h"
#include "core/sweep_records.h"

namespace accelbench {

// Table cells and per-point lines (the peak memory: core/case_figures.h peak_memory_text).
std::string throughput_with_ci(const CaseResult& c);  // "1.2k -4/+5%" samples/s, "~" when noisy; "-"
std::string status_cell(const CaseResult& c);         // "ok", "OOM at 512", the error (shortened)

// The header lines of a sweep's report: version, torch, CPU, then `title`.
std::string sweep_report_header(const RunResult& run, const std::string& title);
// After a report: "~ = noisy" when a point was noisy, then the advice on `document` (run + sweep).
std::string sweep_report_ending(const RunResult& run, const nlohmann::json& document);

std::string render_batch_sweep(const RunResult& run, const BatchSweep& sweep);
std::string render_precision_sweep(const RunResult& run, const PrecisionSweep& sweep);
std::string render_setting_sweep(const RunResult& run, const SettingSweep& sweep);  // threads or workers
std::string render_crossover_sweep(const RunResult& run, const CrossoverSweep& sweep);

// "best: 4 threads (the fewest within 5% of the best throughput, 3600 samples/s)\n"; "" without a best.
std::string best_setting_line(const SettingSweep& sweep);

}  // namespace accelbench
