#pragma once
// Text helpers for tests that read what the tool prints.
#include <string>

namespace accelbench::testing {

// `text` with every run of spaces and line breaks made one space: a table's wrapped cell as one line.
inline std::string unwrapped(const std::string& text) {
  std::string out;
  for (char ch : text) {
    const bool space = ch == ' ' || ch == '\n';
    if (space && !out.empty() && out.back() == ' ') continue;
    out += space ? ' ' : ch;
  }
  return out;
}

}  // namespace accelbench::testing
