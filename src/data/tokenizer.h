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

// Limits of a --text file: whole file and one line (the text is cut to --seq-len tokens anyway).
inline constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{1} << 31;
inline constexpr std::size_t kMaxTextLineBytes = std::size_t{1} << 20;

// Throws UsageError (one line, "path:line: ...") on a missing file, a directory or device, a file
// over kMaxTextFileBytes, an empty file or one of blank lines only, a line without a label, a label
// that is not plain decimal digits in [0, num_labels), a NUL byte, or a line over kMaxTextLineBytes.
std::vector<LabelledText> read_labelled_text(const std::string& path, int num_labels);

// Word ids of a text: [CLS] w1 w2 ... [SEP], truncated to max_len (keeping [SEP]); never longer
// than max_len (max_len < 2 gives the first max_len ids, without [SEP]).
std::vector<std::int32_t> tokenize(std::string_view text, std::size_t max_len);

}  // namespace accelbench
