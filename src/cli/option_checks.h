#pragma once
// Checks of the options that several commands share (run, profile, the sweeps), each throwing
// UsageError with one line before anything is measured.
#include <cstddef>
#include <cstdint>
#include <string>

namespace accelbench {

// An output file must be creatable: its directory exists and is writable, and it is not a directory.
void check_writable(const std::string& path, const char* option);
void check_threads(int threads);                            // --threads: 0 (torch's default) or more
void check_stopping(double ci_target, std::size_t min_samples);  // --ci-target in (0, 1), --min-samples >= 1
void check_seq_len(std::int64_t seq_len);                   // --seq-len in [2, 512]
void check_data_dir(const std::string& data_dir);           // --data-dir exists, when given

}  // namespace accelbench
