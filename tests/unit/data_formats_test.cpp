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
