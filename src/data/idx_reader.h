#pragma once
// Reader for the IDX format of (Fashion-)MNIST, plain or gzip-compressed, of any size
// (libtorch's MNIST reader insists on 60000/10000 items). Errors are one line, naming the file.
#include <cstdint>
#include <string>
#include <vector>

namespace accelbench {

struct IdxArray {
  std::vector<std::int64_t> dims;    // e.g. {60000, 28, 28}
  std::vector<std::uint8_t> data;    // unsigned bytes (type 0x08), row-major
  std::int64_t count() const { return dims.empty() ? 0 : dims[0]; }
};

// Reads at most `max_items` items along the first dimension (all when negative).
// Throws UsageError (one line naming the file and the offset or field) on a missing file, a directory
// or device, bad magic, unsupported type, a dimension of 0 or over 2^31, dimensions whose product
// exceeds 2^40 bytes, truncation (data shorter than the dimensions declare), trailing data, and a
// corrupt gzip stream (told apart from a truncated header). Every size is checked against the bytes
// present before it is used: memory grows only with the data actually read.
IdxArray read_idx(const std::string& path, std::int64_t max_items = -1);

struct ImageClassificationData {
  IdxArray images;   // {n, rows, cols}
  IdxArray labels;   // {n}
  std::string source;
};

inline constexpr std::int64_t kFashionMnistRows = 28, kFashionMnistCols = 28;

// Fashion-MNIST's training split from `dir` (train-images-idx3-ubyte[.gz], train-labels-...).
// Checks that the images are 28x28 (what the workloads assume), that images and labels agree in
// count and that labels are in [0, 10).
ImageClassificationData load_fashion_mnist(const std::string& dir, std::int64_t max_items = -1);

// The dataset as the help names it (WorkloadInfo::dataset of the workloads that read it), and the
// variable that says where it is.
inline constexpr const char* kFashionMnistFiles = "Fashion-MNIST IDX files";
inline constexpr const char* kFashionMnistVariable = "ACCELBENCH_FASHION_MNIST";
// Where the Debian package dataset-fashion-mnist puts the files.
inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";
// The directory to use: $ACCELBENCH_FASHION_MNIST if set, else the default; empty if neither
// holds the training files.
std::string find_fashion_mnist_dir();

}  // namespace accelbench
