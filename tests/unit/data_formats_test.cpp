// CIFAR-10 binary reader and the bert-base text input (torch-free).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "core/errors.h"
#include "data/cifar_reader.h"
#include "data/tokenizer.h"
#include "test_files.h"

using namespace accelbench;
using accelbench::testing::TempDir;

namespace {
std::vector<std::uint8_t> cifar_records(int n, int label_offset = 0) {
  std::vector<std::uint8_t> b;
  for (int i = 0; i < n; ++i) {
    b.push_back(static_cast<std::uint8_t>((i + label_offset) % 10));
    for (int k = 0; k < 3072; ++k) b.push_back(static_cast<std::uint8_t>((i * 31 + k) & 0xff));
  }
  return b;
}
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Cifar, ReadsBatchFiles) {
  TempDir dir;
  accelbench::testing::write_plain(dir.file("data_batch_1.bin"), cifar_records(7));
  accelbench::testing::write_plain(dir.file("data_batch_2.bin"), cifar_records(5, 3));
  const auto d = load_cifar10_train(dir.path.string());
  EXPECT_EQ(d.count(), 12);
  EXPECT_EQ(d.pixels.size(), 12u * 3072);
  EXPECT_EQ(d.labels[7], 3);
  EXPECT_EQ(d.pixels[3072 + 1], static_cast<std::uint8_t>(31 + 1));
  EXPECT_EQ(load_cifar10_train(dir.path.string(), 9).count(), 9);
}

TEST(Cifar, CorruptFilesGiveClearErrors) {
  TempDir dir;
  auto truncated = cifar_records(3);
  truncated.resize(truncated.size() - 100);
  accelbench::testing::write_plain(dir.file("data_batch_1.bin"), truncated);
  EXPECT_NE(error_of([&] { load_cifar10_train(dir.path.string()); }).find("truncated"), std::string::npos);
  auto bad_label = cifar_records(2);
  bad_label[3073] = 12;
  accelbench::testing::write_plain(dir.file("data_batch_1.bin"), bad_label);
  EXPECT_NE(error_of([&] { load_cifar10_train(dir.path.string()); }).find("out of range"), std::string::npos);
  accelbench::testing::write_plain(dir.file("data_batch_1.bin"), {});
  EXPECT_NE(error_of([&] { load_cifar10_train(dir.path.string()); }).find("empty"), std::string::npos);
  TempDir none;
  EXPECT_NE(error_of([&] { load_cifar10_train(none.path.string()); }).find("no CIFAR-10 training files"), std::string::npos);
}

TEST(Tokenizer, DeterministicAndBounded) {
  const auto a = tokenize("A great, GREAT movie!", 128);
  const auto b = tokenize("a great, great movie!", 128);
  EXPECT_EQ(a, b);  // case-insensitive, deterministic
  ASSERT_EQ(a.size(), 8u);  // [CLS] a great , great movie ! [SEP]
  EXPECT_EQ(a.front(), kClsId);
  EXPECT_EQ(a.back(), kSepId);
  EXPECT_EQ(a[2], a[4]);  // "great" twice
  for (std::size_t i = 1; i + 1 < a.size(); ++i) {
    EXPECT_GE(a[i], kFirstWordId);
    EXPECT_LT(a[i], kBertVocab);
  }
  const auto t = tokenize("one two three four five six", 4);
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(t.back(), kSepId);
}

TEST(TextInput, ReadsAndRejectsBadFiles) {
  TempDir dir;
  {
    std::ofstream(dir.file("ok.tsv")) << "1\tgood film\n\n0\tawful\r\n";
  }
  const auto ex = read_labelled_text(dir.file("ok.tsv"), 2);
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[1].label, 0);
  EXPECT_EQ(ex[1].text, "awful");
  { std::ofstream(dir.file("empty.tsv")); }
  EXPECT_NE(error_of([&] { read_labelled_text(dir.file("empty.tsv"), 2); }).find("empty"), std::string::npos);
  { std::ofstream(dir.file("label.tsv")) << "1\tfine\n7\tbad label\n"; }
  EXPECT_NE(error_of([&] { read_labelled_text(dir.file("label.tsv"), 2); }).find("label.tsv:2: label '7' out of range"),
            std::string::npos);
  { std::ofstream(dir.file("notab.tsv")) << "just text\n"; }
  EXPECT_NE(error_of([&] { read_labelled_text(dir.file("notab.tsv"), 2); }).find("expected LABEL<TAB>text"), std::string::npos);
}

// -------------------------------------------------------------------------------------------------
// The IDX reader (data/idx_reader.h) and Fashion-MNIST's files: good, damaged, missing.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "data/idx_reader.h"
#include "test_files.h"

using namespace accelbench;
using namespace accelbench::testing;


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
