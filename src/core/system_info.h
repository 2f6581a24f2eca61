#pragma once
// Facts about the host and the process, read from the OS (no torch).
#include <cstdint>
#include <optional>
#include <string>

namespace accelbench {

struct HostInfo {
  std::string host, os, kernel, arch, cpu_model, compiler;
  int physical_cores = 0, logical_cores = 0;
  std::uint64_t memory_bytes = 0;
};

HostInfo read_host_info();
std::string utc_timestamp_now();  // 2026-11-29T23:58:04Z

// Peak resident set of this process. On Linux the peak can be reset (per case); elsewhere it is
// the peak since the process started, and reset_peak_rss() returns false.
std::optional<std::uint64_t> peak_rss_bytes();
std::optional<std::uint64_t> current_rss_bytes();
bool reset_peak_rss();

}  // namespace accelbench
