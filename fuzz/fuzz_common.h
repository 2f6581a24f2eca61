#pragma once
// What the fuzz targets share: a scratch file per process (tmpfs when there is one) holding the
// input, and the check that every error is one line.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

namespace fuzz {

inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    const auto d = std::filesystem::path(base) / ("accelbench-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d.string();
  }();
  return dir;
}

inline std::string write_scratch(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// Errors are one line: a message with a newline is a finding.
inline void check_one_line(const std::exception& e) {
  if (std::strchr(e.what(), '\n') != nullptr) {
    std::fprintf(stderr, "error message of more than one line:\n%s\n", e.what());
    std::abort();
  }
}

[[noreturn]] inline void finding(const char* what) {
  std::fprintf(stderr, "finding: %s\n", what);
  std::abort();
}

}  // namespace fuzz
