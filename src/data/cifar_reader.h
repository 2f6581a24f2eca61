#pragma once
// CIFAR-10 binary format: records of 1 label byte + 3072 pixel bytes (3 x 32 x 32, channel-major),
// in data_batch_1..5.bin (training) and test_batch.bin. Errors are one line naming the file.
#include <cstdint>
#include <string>
#include <vector>

namespace accelbench {

struct CifarData {
  std::vector<std::uint8_t> pixels;  // n x 3 x 32 x 32
  std::vector<std::uint8_t> labels;  // n, each in [0, 10)
  std::int64_t count() const { return static_cast<std::int64_t>(labels.size()); }
  std::string source;
};

// The dataset as the help names it (WorkloadInfo::dataset of resnet18).
inline constexpr const char* kCifar10Files = "CIFAR-10 binaries";
inline constexpr std::int64_t kCifarRecordBytes = 1 + 3 * 32 * 32;

// Reads one binary batch file. Throws UsageError (one line naming the file and the record) on a
// missing file, a directory or device, an empty or truncated file (size not a multiple of 3073
// bytes) or a label out of range. Sizes come from the file's length: nothing beyond it is allocated.
void read_cifar_file(const std::string& path, CifarData& into, std::int64_t max_items = -1);

// The training split of DIR: data_batch_1.bin .. data_batch_5.bin (those present, at least one;
// also accepts the files inside a cifar-10-batches-bin/ sub-directory).
CifarData load_cifar10_train(const std::string& dir, std::int64_t max_items = -1);

}  // namespace accelbench
