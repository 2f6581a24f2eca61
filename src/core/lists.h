#pragma once
// Comma-separated lists as people type them ("mlp, cnn", "0,1", "64,128"): the one parser of the
// tool (flags, CUDA_VISIBLE_DEVICES); and lists as the help and the messages write them ("md, csv,
// html or json"). Header-only so that the telemetry library, which sits below
// accelbench_core, can use it too. No torch here.
#include <string>
#include <string_view>
#include <vector>

namespace accelbench {

// "3x224x224" on 'x' -> {"3", "224", "224"}: every item as written, empty ones included (fields of a
// structured value, where an empty field is an error for the caller to name).
inline std::vector<std::string> split_fields(std::string_view text, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    out.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

// "a, b,c" -> {"a", "b", "c"}: items trimmed of spaces; empty items dropped unless `keep_empty`
// (where positions matter: "0,,1" -> {"0", "", "1"}).
inline std::vector<std::string> split_list(std::string_view text, bool keep_empty = false) {
  std::vector<std::string> out;
  for (std::string_view item : split_fields(text, ',')) {
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (keep_empty || !item.empty()) out.emplace_back(item);
  }
  return out;
}

// {"md", "csv", "html"} -> "md, csv or html" (`last_separator` before the last item; ", " between
// every item for ", "); one item as it is, none as "".
inline std::string join_as_prose(const std::vector<std::string>& items, std::string_view last_separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? last_separator : std::string_view(", ");
    out += items[i];
  }
  return out;
}

}  // namespace accelbench
