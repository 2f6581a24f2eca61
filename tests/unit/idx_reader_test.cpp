#include <gtest/gtest.h>

#include "core/errors.h"
#include "data/idx_reader.h"
#include "test_files.h"

using namespace accelbench;
using namespace accelbench::testing;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(IdxReader, ReadsGzipAndPlain) {
  TempDir dir;
  const std::vector<std::uint8_t> data{1, 2, 3, 4, 5, 6};
  write_gzip(dir.file("a.gz"), idx_bytes({3, 2}, data));
  write_plain(dir.file("a"), idx_bytes({3, 2}, data));
  for (const auto& name : {"a.gz", "a"}) {
    const auto a = read_idx(dir.file(name));
    EXPECT_EQ(a.dims, (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ(a.data, data);
  }
  const auto first = read_idx(dir.file("a.gz"), 2);
  EXPECT_EQ(first.count(), 2);
  EXPECT_EQ(first.data.size(), 4u);
}

TEST(IdxReader, BadMagic) {
  TempDir dir;
  write_plain(dir.file("bad"), {0x12, 0x34, 0x08, 0x01, 0, 0, 0, 1, 9});
  EXPECT_NE(error_of([&] { read_idx(dir.file("bad")); }).find("bad IDX magic"), std::string::npos);
}

TEST(IdxReader, UnsupportedType) {
  TempDir dir;
  write_plain(dir.file("f"), idx_bytes({1}, {0, 0, 0, 0}, 0x0D));
  EXPECT_NE(error_of([&] { read_idx(dir.file("f")); }).find("unsupported IDX element type"), std::string::npos);
}

TEST(IdxReader, Truncated) {
  TempDir dir;
  write_gzip(dir.file("t.gz"), idx_bytes({10, 4}, std::vector<std::uint8_t>(13, 1)));
  const auto msg = error_of([&] { read_idx(dir.file("t.gz")); });
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  EXPECT_NE(msg.find("t.gz"), std::string::npos) << "names the file: " << msg;
  write_plain(dir.file("h"), {0, 0, 8});
  EXPECT_NE(error_of([&] { read_idx(dir.file("h")); }).find("truncated IDX header"), std::string::npos);
}

TEST(IdxReader, CountMismatchTrailingData) {
  TempDir dir;
  write_plain(dir.file("x"), idx_bytes({2, 2}, {1, 2, 3, 4, 5}));
  EXPECT_NE(error_of([&] { read_idx(dir.file("x")); }).find("count mismatch"), std::string::npos);
}

TEST(IdxReader, MissingFile) {
  EXPECT_NE(error_of([] { read_idx("/nonexistent/file.gz"); }).find("not found"), std::string::npos);
}

TEST(FashionMnist, LoadsSmallSplitOfAnySize) {
  TempDir dir;
  write_fashion_like(dir.path.string(), 37);
  const auto d = load_fashion_mnist(dir.path.string());
  EXPECT_EQ(d.images.count(), 37);
  EXPECT_EQ(d.images.dims, (std::vector<std::int64_t>{37, 28, 28}));
  EXPECT_EQ(d.labels.count(), 37);
}

TEST(FashionMnist, ImageLabelCountMismatch) {
  TempDir dir;
  write_fashion_like(dir.path.string(), 5);
  write_gzip(dir.file("train-labels-idx1-ubyte.gz"), idx_bytes({4}, {1, 2, 3, 4}));
  EXPECT_NE(error_of([&] { load_fashion_mnist(dir.path.string()); }).find("count mismatch"), std::string::npos);
}

TEST(FashionMnist, LabelOutOfRange) {
  TempDir dir;
  write_fashion_like(dir.path.string(), 12, true, 12);
  EXPECT_NE(error_of([&] { load_fashion_mnist(dir.path.string()); }).find("out of range"), std::string::npos);
}

TEST(FashionMnist, DebianPackageFilesWhenInstalled) {
  if (find_fashion_mnist_dir().empty()) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  const auto d = load_fashion_mnist(find_fashion_mnist_dir(), 1000);
  EXPECT_EQ(d.images.count(), 1000);
  const auto full = read_idx(find_fashion_mnist_dir() + "/train-labels-idx1-ubyte.gz");
  EXPECT_EQ(full.count(), 60000);
}
