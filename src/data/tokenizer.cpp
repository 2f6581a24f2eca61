#include "data/tokenizer.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/errors.h"

namespace accelbench {

std::vector<LabelledText> read_labelled_text(const std::string& path, int num_labels) {
  if (!std::filesystem::exists(path)) throw UsageError(fmt::format("--text file not found: {}", path));
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("cannot read {}", path));
  std::vector<LabelledText> out;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines are allowed
    const auto tab = line.find('\t');
    if (tab == std::string::npos)
      throw UsageError(fmt::format("{}:{}: expected LABEL<TAB>text", path, line_no));
    const auto label_text = line.substr(0, tab);
    int label = -1;
    try {
      std::size_t used = 0;
      label = std::stoi(label_text, &used);
      if (used != label_text.size()) label = -1;
    } catch (const std::exception&) {
      label = -1;
    }
    if (label < 0 || label >= num_labels)
      throw UsageError(fmt::format("{}:{}: label '{}' out of range [0, {})", path, line_no, label_text, num_labels));
    out.push_back({label, line.substr(tab + 1)});
  }
  if (out.empty()) throw UsageError(fmt::format("{}: no examples (empty file)", path));
  return out;
}

std::vector<std::int32_t> tokenize(std::string_view text, std::size_t max_len) {
  std::vector<std::int32_t> ids{kClsId};
  auto emit = [&](std::string_view word) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : word) {
      h ^= static_cast<unsigned char>(std::tolower(c));
      h *= 1099511628211ull;
    }
    ids.push_back(static_cast<std::int32_t>(kFirstWordId + h % (kBertVocab - kFirstWordId)));
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalnum(c) || c >= 0x80) {
      std::size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || static_cast<unsigned char>(text[j]) >= 0x80)) ++j;
      emit(text.substr(i, j - i));
      i = j;
    } else {
      emit(text.substr(i, 1));  // punctuation is a token of its own
      ++i;
    }
  }
  if (max_len >= 2 && ids.size() > max_len - 1) ids.resize(max_len - 1);
  ids.push_back(kSepId);
  return ids;
}

}  // namespace accelbench
