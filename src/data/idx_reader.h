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
// Throws UsageError on a missing file, bad magic, unsupported type, truncation or trailing data.
IdxArray read_idx(const std::string& path, std::int64_t max_items = -1);

struct ImageClassificationData {
  IdxArray images;   // {n, rows, cols}
  IdxArray labels;   // {n}
  std::string source;
};

// Fashion-MNIST's training split from `dir` (train-images-idx3-ubyte[.gz], train-labels-...).
// Checks that images and labels agree in count and that labels are in [0, 10).
ImageClassificationData load_fashion_mnist(const std::string& dir, std::int64_t max_items = -1);

// Where the Debian package dataset-fashion-mnist puts the files.
inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";
// The directory to use: $ACCELBENCH_FASHION_MNIST if set, else the default; empty if neither
// holds the training files.
std::string find_fashion_mnist_dir();

}  // namespace accelbench
