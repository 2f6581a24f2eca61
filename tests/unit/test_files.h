#pragma once
// Helpers for tests that need files: a temporary directory and IDX writers.
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace accelbench::testing {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() / ("accelbench-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

inline std::vector<std::uint8_t> idx_bytes(const std::vector<std::int32_t>& dims, const std::vector<std::uint8_t>& data,
                                           std::uint8_t type = 0x08) {
  std::vector<std::uint8_t> b{0, 0, type, static_cast<std::uint8_t>(dims.size())};
  for (auto d : dims) {
    b.push_back(static_cast<std::uint8_t>(d >> 24));
    b.push_back(static_cast<std::uint8_t>(d >> 16));
    b.push_back(static_cast<std::uint8_t>(d >> 8));
    b.push_back(static_cast<std::uint8_t>(d));
  }
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

inline void write_plain(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline void write_gzip(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

// A small Fashion-MNIST-like training split: n images 28x28 and n labels in [0, 10).
inline void write_fashion_like(const std::string& dir, int n, bool gzip = true, int label_max = 10) {
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(n) * 28 * 28), labels(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 7);
  for (int i = 0; i < n; ++i) labels[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i % label_max);
  auto images = idx_bytes({n, 28, 28}, pixels);
  auto lab = idx_bytes({n}, labels);
  if (gzip) {
    write_gzip(dir + "/train-images-idx3-ubyte.gz", images);
    write_gzip(dir + "/train-labels-idx1-ubyte.gz", lab);
  } else {
    write_plain(dir + "/train-images-idx3-ubyte", images);
    write_plain(dir + "/train-labels-idx1-ubyte", lab);
  }
}

}  // namespace accelbench::testing
