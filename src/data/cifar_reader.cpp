#include "data/cifar_reader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/safe_write.h"

namespace accelbench {

void read_cifar_file(const std::string& path, CifarData& into, std::int64_t max_items) {
  check_regular_input_file(path, "CIFAR-10 file");
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw UsageError(fmt::format("cannot read {}: {}", path, ec.message()));
  if (size == 0) throw UsageError(fmt::format("{}: empty file", path));
  if (size % kCifarRecordBytes != 0)
    throw UsageError(fmt::format("{}: truncated or not CIFAR-10 binary: {} bytes is not a multiple of the {}-byte record",
                                 path, size, kCifarRecordBytes));
  std::uint64_t n = size / kCifarRecordBytes;  // records present: every later size is bounded by it
  if (max_items >= 0) n = std::min<std::uint64_t>(n, static_cast<std::uint64_t>(max_items));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  std::vector<char> record(static_cast<std::size_t>(kCifarRecordBytes));
  try {
    into.pixels.reserve(into.pixels.size() + static_cast<std::size_t>(n) * 3072);
    into.labels.reserve(into.labels.size() + static_cast<std::size_t>(n));
  } catch (const std::exception&) {  // bad_alloc, length_error
    throw UsageError(fmt::format("{}: {} records do not fit in memory", path, n));
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!in.read(record.data(), kCifarRecordBytes))
      throw UsageError(fmt::format("{}: read failed at record {} (byte {}): the file shrank while being read", path, i,
                                   i * kCifarRecordBytes));
    const auto label = static_cast<std::uint8_t>(record[0]);
    if (label >= 10)
      throw UsageError(fmt::format("{}: record {} (byte {}) has label {} (out of range [0, 10))", path, i,
                                   i * kCifarRecordBytes, int(label)));
    into.labels.push_back(label);
    into.pixels.insert(into.pixels.end(), record.begin() + 1, record.end());
  }
}

CifarData load_cifar10_train(const std::string& dir_in, std::int64_t max_items) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir_in)) throw UsageError(fmt::format("--data-dir {} is not a directory", dir_in));
  std::string dir = dir_in;
  if (!fs::exists(fs::path(dir) / "data_batch_1.bin") && fs::exists(fs::path(dir) / "cifar-10-batches-bin"))
    dir = (fs::path(dir) / "cifar-10-batches-bin").string();
  CifarData d;
  int files = 0;
  for (int i = 1; i <= 5; ++i) {
    const auto p = fs::path(dir) / fmt::format("data_batch_{}.bin", i);
    if (!fs::exists(p)) continue;
    const std::int64_t left = max_items < 0 ? -1 : max_items - d.count();
    if (left == 0) break;
    read_cifar_file(p.string(), d, left);
    ++files;
  }
  if (files == 0) throw UsageError(fmt::format("no CIFAR-10 training files (data_batch_1.bin ... data_batch_5.bin) in {}", dir));
  d.source = fmt::format("cifar-10 ({}, {} images)", dir, d.count());
  return d;
}

}  // namespace accelbench
