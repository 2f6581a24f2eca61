#include "cli/option_checks.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <thread>
#include <fstream>

#include "core/errors.h"
#include "core/safe_write.h"

namespace accelbench {

namespace {
std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

void check_raw_value(const CLI::Option& opt, const std::string& raw) {
  const std::string name = opt.get_positional() ? opt.get_name(true) : opt.get_name();  // "--seed", "RUN"
  const std::string v = trimmed(raw);
  if (v.empty()) throw UsageError(fmt::format("{} needs a value (got an empty one)", name));
  const std::string type = opt.get_type_name();
  if (type != "INT" && type != "UINT") return;
  if (type == "UINT" && v.front() == '-')
    throw UsageError(fmt::format("{} must not be negative (got '{}')", name, printable(v)));
  const char* first = v.data() + (v.front() == '+' ? 1 : 0);
  std::int64_t as_signed = 0;
  std::uint64_t as_unsigned = 0;
  const auto r = type == "UINT" ? std::from_chars(first, v.data() + v.size(), as_unsigned)
                                : std::from_chars(first, v.data() + v.size(), as_signed);
  if (r.ec == std::errc::result_out_of_range)
    throw UsageError(fmt::format("{} is out of range (got '{}')", name, printable(v)));
}
}  // namespace

void check_raw_values(const CLI::App& app) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_type_size_max() == 0 || opt->get_expected_min() == 0) continue;  // a flag, or a value that may be left out
    for (const auto& raw : opt->results()) check_raw_value(*opt, raw);
  }
  for (const CLI::App* sub : app.get_subcommands()) check_raw_values(*sub);
}

std::string percentage_as_fraction(const std::string& text) {
  const std::string t = trimmed(text);
  if (t.size() < 2 || t.back() != '%') return text;
  const std::string number = trimmed(t.substr(0, t.size() - 1));
  double v = 0;
  const auto r = std::from_chars(number.data(), number.data() + number.size(), v);
  if (number.empty() || r.ec != std::errc() || r.ptr != number.data() + number.size()) return text;
  return fmt::format("{}", v / 100);
}

CLI::Option* accept_percentage(CLI::Option* option) {
  return option->transform([](std::string text) { return percentage_as_fraction(text); }, "", "percentage");
}

void check_writable(const std::string& path, const char* option) {
  namespace fs = std::filesystem;
  check_output_path(path, option);  // not a directory; the folder (or the file, device) is writable
  // Probe a regular file or a new path by opening it (permission bits alone miss read-only files
  // such as sysfs's for root); a device or FIFO is not opened here (a FIFO would wait for a reader).
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) return;
  const bool existed = fs::exists(st);
  {
    std::ofstream probe(path, std::ios::app);
    if (!probe) throw UsageError(fmt::format("cannot write {} {}: the file cannot be opened for writing", option, path));
  }
  if (!existed) fs::remove(path, ec);
}

void check_distinct_files(const std::string& a, const char* option_a, const std::string& b, const char* option_b) {
  if (a.empty() || b.empty() || !same_file(a, b)) return;
  throw UsageError(fmt::format("{} {} and {} {} name the same file: give each its own file", option_a, a, option_b, b));
}

std::size_t parse_count(const std::string& text, const char* option, std::size_t max_value) {
  std::string t = text;
  while (!t.empty() && t.front() == ' ') t.erase(0, 1);
  while (!t.empty() && t.back() == ' ') t.pop_back();
  const auto bad = [&]() {
    return UsageError(fmt::format("{} must be a whole number from 0 to {} (got '{}')", option, max_value, printable(text)));
  };
  if (t.empty() || t.size() > 19 || t.find_first_not_of("0123456789") != std::string::npos) throw bad();
  const auto v = std::stoull(t);
  if (v > max_value) throw bad();
  return static_cast<std::size_t>(v);
}

void check_threads(int threads, const char* option) {
  if (threads < 0) throw UsageError(fmt::format("{} must be 0 (torch's default) or more (got {})", option, threads));
  // More threads than a few per logical core only oversubscribe the CPU (and absurd counts crashed
  // inside the thread pool's allocation).
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads > kMaxThreadsPerCore * cores)
    throw UsageError(fmt::format("{} must be at most {} ({} per logical core on this machine's {}; got {})", option,
                                 kMaxThreadsPerCore * cores, kMaxThreadsPerCore, cores, threads));
}

void check_batch_size(std::int64_t batch, const char* option) {
  if (batch < 1 || batch > kMaxBatchSize)
    throw UsageError(fmt::format("{} must be at least 1 and at most {} (got {})", option, kMaxBatchSize, batch));
}

void check_stopping(double ci_target, std::size_t min_samples) {
  if (!(ci_target > 0 && ci_target < 1))
    throw UsageError(fmt::format("--ci-target must be between 0% and 100% (exclusive), e.g. 2% or 0.02 (got {})", ci_target));
  if (min_samples < 1 || min_samples > kMaxMinSamples)
    throw UsageError(fmt::format("--min-samples must be in [1, {}] (got {})", kMaxMinSamples, min_samples));
}

void check_seq_len(std::int64_t seq_len) {
  if (seq_len < 2 || seq_len > 512) throw UsageError(fmt::format("--seq-len must be in [2, 512] (got {})", seq_len));
}

void check_db_folder(const std::string& db_path) {
  if (db_path.empty()) return;
  const auto parent = std::filesystem::path(db_path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw UsageError(fmt::format("--db {}: folder {} does not exist (create it, or leave --db out for the default history)",
                                 db_path, parent.string()));
}

void check_data_dir(const std::string& data_dir) {
  if (!data_dir.empty() && !std::filesystem::exists(data_dir))
    throw UsageError(fmt::format("--data-dir {} does not exist", data_dir));
}

}  // namespace accelbench
