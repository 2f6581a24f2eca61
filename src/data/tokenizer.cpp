#include "data/tokenizer.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/safe_write.h"

namespace accelbench {

std::vector<LabelledText> read_labelled_text(const std::string& path, int num_labels) {
  check_regular_input_file(path, "--text file");
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw UsageError(fmt::format("cannot read {}: {}", path, ec.message()));
  if (size > kMaxTextFileBytes)
    throw UsageError(fmt::format("{}: {} bytes, more than the {} bytes a --text file may have", path, size,
                                 kMaxTextFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::vector<LabelledText> out;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (const auto nul = line.find('\0'); nul != std::string::npos)
      throw UsageError(fmt::format("{}:{}: NUL byte at column {} (not a text file)", path, line_no, nul + 1));
    if (line.size() > kMaxTextLineBytes)
      throw UsageError(fmt::format("{}:{}: line of {} bytes, longer than the {} bytes allowed", path, line_no, line.size(),
                                   kMaxTextLineBytes));
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines are allowed
    const auto tab = line.find('\t');
    if (tab == std::string::npos)
      throw UsageError(fmt::format("{}:{}: expected LABEL<TAB>text", path, line_no));
    std::string label_text = line.substr(0, tab);
    while (!label_text.empty() && label_text.back() == ' ') label_text.pop_back();
    while (!label_text.empty() && label_text.front() == ' ') label_text.erase(0, 1);
    // The label: decimal digits only (no sign, no spaces), in [0, num_labels).
    int label = -1;
    if (!label_text.empty() && label_text.size() <= 9 && label_text.find_first_not_of("0123456789") == std::string::npos)
      label = std::stoi(label_text);
    if (label < 0 || label >= num_labels)
      throw UsageError(fmt::format("{}:{}: label '{}' out of range [0, {})", path, line_no,
                                   printable(label_text, 40), num_labels));
    out.push_back({label, line.substr(tab + 1)});
  }
  if (in.bad()) throw UsageError(fmt::format("{}: read error after line {}", path, line_no));
  if (out.empty())
    throw UsageError(size == 0 ? fmt::format("{}: no examples (empty file)", path)
                               : fmt::format("{}: no examples (only blank lines)", path));
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
  if (max_len < 2) return std::vector<std::int32_t>(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(max_len));
  if (ids.size() > max_len - 1) ids.resize(max_len - 1);
  ids.push_back(kSepId);
  return ids;
}

}  // namespace accelbench
