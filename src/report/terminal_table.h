#pragma once
// The terminal report: reads like the article's table (model | CPU s/epoch | accelerator s/epoch |
// speed-up [95% CI]), then one line per case with its statistics.
#include <string>

#include "core/results.h"

namespace accelbench {

std::string render_terminal_report(const RunResult& run);

// A plain-text table: columns right-aligned except the first `left_columns`. No line is longer than
// `max_width` (0: the output's width, report/terminal.h): when the columns do not fit, the first
// columns (the keys, up to half the width) are repeated in a second table (and more) over the
// others, and a column wider than what is left wraps.
std::string render_table(const std::vector<std::vector<std::string>>& rows, std::size_t left_columns = 1,
                         std::size_t max_width = 0);

}  // namespace accelbench
