#pragma once
// Checks of the options that several commands share (run, profile, the sweeps), each throwing
// UsageError with one line before anything is measured.
#include <cstddef>
#include <cstdint>
#include <string>

namespace CLI {
class App;
class Option;
}

namespace accelbench {

// After parsing, every value typed on the command line, whatever the option: an empty value, a
// negative number for an unsigned option (CLI11 would wrap it around) or a whole number beyond 64
// bits (CLI11 would saturate it) is refused with a one-line UsageError naming the option.
void check_raw_values(const CLI::App& app);

// A fraction typed as a percentage: "5%" becomes "0.05" (and " 5 % " too); any other text is
// returned as it is, for the option's own conversion to judge. accept_percentage() installs it on
// an option that takes a fraction, so that --ci-target 5% works as compare's --fail-above 5% does.
std::string percentage_as_fraction(const std::string& text);
CLI::Option* accept_percentage(CLI::Option* option);

// An output file must be creatable: its directory exists and is writable, and it is not a directory
// (core/safe_write.h's check_output_path, then a probe of a regular file or new path).
void check_writable(const std::string& path, const char* option);
// Two paths that must not name the same file (core/safe_write.h's same_file), e.g. --json and --db:
// "--json x.db and --db x.db name the same file". Empty paths are not checked.
void check_distinct_files(const std::string& a, const char* option_a, const std::string& b, const char* option_b);
// A count given as text (e.g. --limit): decimal digits only, in [0, max_value]; "-1" is refused
// instead of wrapping around.
std::size_t parse_count(const std::string& text, const char* option, std::size_t max_value);
inline constexpr int kMaxThreadsPerCore = 4;
void check_threads(int threads, const char* option = "--threads");  // 0 (torch's default) up to 4 per logical core
// A batch size in [1, kMaxBatchSize]: larger ones overflow the size arithmetic of the data and the
// memory estimates long before any device could hold them.
inline constexpr std::int64_t kMaxBatchSize = std::int64_t{1} << 24;
void check_batch_size(std::int64_t batch, const char* option = "--batch-size");
inline constexpr std::size_t kMaxMinSamples = 1000000;
void check_stopping(double ci_target, std::size_t min_samples);  // --ci-target in (0, 1) (0% to 100%), --min-samples in [1, 10^6]
void check_seq_len(std::int64_t seq_len);                   // --seq-len in [2, 512]
void check_data_dir(const std::string& data_dir);           // --data-dir exists, when given
// --db given on the command line: its folder must exist (only the default location's folders are
// created), so that a typo does not leave a new folder tree behind.
void check_db_folder(const std::string& db_path);

}  // namespace accelbench
