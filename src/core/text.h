#pragma once
// Text as one line: for an error message on stderr, a description in a completion file. No torch here.
#include <string>

namespace accelbench {

// Newlines and carriage returns become spaces; trailing spaces go.
inline std::string one_line(std::string s) {
  for (auto& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace accelbench
