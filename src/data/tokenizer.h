#pragma once
// Text classification input for bert-base: one labelled example a line ("LABEL<TAB>text"), and a
// simple deterministic tokenizer (lower-case words and punctuation, each hashed into the BERT
// vocabulary). It is not WordPiece: it exists to feed real text of realistic lengths, reproducibly,
// without a vocabulary file.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace accelbench {

inline constexpr std::int32_t kPadId = 0, kClsId = 101, kSepId = 102, kFirstWordId = 1000, kBertVocab = 30522;

struct LabelledText {
  int label = 0;
  std::string text;
};

// Throws UsageError on a missing or empty file, a line without a label, or a label outside
// [0, num_labels).
std::vector<LabelledText> read_labelled_text(const std::string& path, int num_labels);

// Word ids of a text: [CLS] w1 w2 ... [SEP], truncated to max_len (keeping [SEP]).
std::vector<std::int32_t> tokenize(std::string_view text, std::size_t max_len);

}  // namespace accelbench
