#pragma once
// Small helpers shared by the Linux sources (private to src/telemetry).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/telemetry_source.h"

namespace accelbench::telemetry_detail {

std::string trim(std::string s);

// The file's first line, trimmed; nullopt (and *why set) when it cannot be read.
std::optional<std::string> read_line(const FileReader& reader, const std::string& path, std::string* why = nullptr);
// An integer file (sysfs values); nullopt (and *why) when unreadable or not a number.
std::optional<long long> read_integer(const FileReader& reader, const std::string& path, std::string* why = nullptr);

// Entries of a directory whose names start with `prefix`, sorted naturally (cpu2 before cpu10).
// Empty when the directory does not exist.
std::vector<std::filesystem::path> list_entries(const std::filesystem::path& dir, const std::string& prefix);

// "permission denied" -> a sentence with the fix for RAPL, etc.: plain strerror otherwise.
std::string describe_errno(int error);

}  // namespace accelbench::telemetry_detail
