#pragma once
// The terminal report: reads like the article's table (model | CPU s/epoch | accelerator s/epoch |
// speed-up [95% CI]), then one line per case with its statistics.
#include <cstddef>
#include <string>

#include "core/results.h"

namespace accelbench {

// What the terminal report holds besides its tables. `answer_first` (run's default): the speed-up
// sentences are left to the Summary (render_run_summary), the version line follows the tables, the
// telemetry not available here is one line, and at most `max_advice` advice items are shown (the
// rest: `accelbench advise`), and at most kNotesShown items in a case's notes column (the most
// telling; the rest counted). `quiet`: the tables alone (no rounds, telemetry notes or advice).
inline constexpr std::size_t kNotesShown = 2;
struct TerminalReportOptions {
  bool answer_first = false;
  bool quiet = false;
  std::size_t max_advice = 0;  // 0: all
};
std::string render_terminal_report(const RunResult& run, const TerminalReportOptions& options = {});

// hyperfine's Summary: one line per model (and precision, batch), which device is faster and by how
// much with the interval the tables show, or that this run cannot tell; with one device, the step
// time and its interval.
std::string render_run_summary(const RunResult& run);

// A plain-text table: columns right-aligned except the first `left_columns`. No line is longer than
// `max_width` (0: the output's width, report/terminal.h): when the columns do not fit, the first
// columns (the keys, up to half the width) are repeated in a second table (and more) over the
// others, and a column wider than what is left wraps.
std::string render_table(const std::vector<std::vector<std::string>>& rows, std::size_t left_columns = 1,
                         std::size_t max_width = 0);

}  // namespace accelbench
