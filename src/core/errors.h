#pragma once
// The errors accelbench reports, and how a message quotes what the user gave: one line each.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace accelbench {

// A mistake in what the user asked for (bad flag value, unknown model or device, unreadable input
// file). The command line prints it as one line and exits with code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The training itself went wrong. Recorded in the case's result.
struct CaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The loss became NaN or Inf (FailureKind::diverged).
struct DivergedError : CaseError {
  using CaseError::CaseError;
};

// User text as a message quotes it: control characters (a newline in an option value or a file
// line) escaped as \n, \t, \xNN so that the message stays one line; cut to `max_chars` with "...".
inline std::string printable(std::string_view text, std::size_t max_chars = 60) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  return out;
}

// Text as one line (an error message on stderr, a description in a completion file):
// newlines and carriage returns become spaces; trailing spaces go.
inline std::string one_line(std::string s) {
  for (auto& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}


}  // namespace accelbench
