#pragma once
// What `accelbench peak` and `accelbench doctor` print of a device's ceilings (core/peak_records.h):
// the table, the sustained figures, the one-line summary. No torch here.
#include <string>
#include <vector>

#include "core/peak_records.h"

namespace accelbench {

// The table `peak` prints: one row per ceiling (label, size, the ceiling (its best sample), the
// median, the median's 95% CI relative to it), the unmeasured ones with their reason.
std::vector<std::vector<std::string>> ceilings_table_rows(const DeviceCeilings& c);
// One line per matmul with a sustained figure: "matmul bfloat16 held for 3.0 s: 690.8 TFLOP/s, 14%
// below its bursts (a power or thermal limit)".
std::vector<std::string> sustained_lines(const DeviceCeilings& c);
// One line for `doctor`: "measured 2026-12-01 (torch 2.11.0): matmul bfloat16 793 TFLOP/s, copy
// 4.1 TB/s, launch 4.2 us back to back" -- the fastest matmul, the copy, the launch.
std::string ceilings_summary(const DeviceCeilings& c);

}  // namespace accelbench
