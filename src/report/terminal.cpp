#include "report/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace accelbench {

std::size_t output_width(int fd) {
  if (const char* c = std::getenv("COLUMNS"); c && *c) {
    char* end = nullptr;
    const long n = std::strtol(c, &end, 10);
    if (end && *end == '\0' && n > 0) return std::max<std::size_t>(kMinOutputWidth, static_cast<std::size_t>(n));
  }
  if (::isatty(fd)) {
    winsize ws{};
    if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
      return std::max<std::size_t>(kMinOutputWidth, static_cast<std::size_t>(ws.ws_col));
  }
  return kDefaultOutputWidth;
}

bool colour_enabled(int fd) {
  if (const char* n = std::getenv("NO_COLOR"); n && *n) return false;
  if (const char* t = std::getenv("TERM"); t && std::strcmp(t, "dumb") == 0) return false;
  return ::isatty(fd) != 0;
}

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b && i + 1 < s.size() && s[i + 1] == '[') {  // CSI ... final byte in @..~
      i += 2;
      while (i < s.size() && !(s[i] >= '@' && s[i] <= '~')) ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

namespace {

// The byte index just past the first `chars` visible characters of `s` (s.size() when shorter).
std::size_t byte_index_of(const std::string& s, std::size_t chars) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (n == chars) return i;
    ++n;
  }
  return s.size();
}

std::size_t leading_spaces(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

// Where a continuation line of `line` starts: the text after a label (two or more spaces after the
// first word group), else the line's own indent (plus two when it has little).
std::size_t hanging_indent(const std::string& line, std::size_t width) {
  const std::size_t lead = leading_spaces(line);
  const auto gap = line.find("  ", lead);
  if (gap != std::string::npos) {
    std::size_t h = gap;
    while (h < line.size() && line[h] == ' ') ++h;
    if (h < line.size() && h <= width / 2) return display_width(line.substr(0, h));
  }
  return std::min(lead < 4 ? lead + 2 : lead, width / 2);  // an indented paragraph keeps its indent
}

void wrap_one(const std::string& line, std::size_t width, std::string& out) {
  const std::size_t hang = hanging_indent(line, width);
  std::string cur = line;
  std::size_t floor = leading_spaces(line);  // never break inside the indent
  while (display_width(cur) > width) {
    const std::size_t limit = byte_index_of(cur, width);  // bytes of the first `width` characters
    std::size_t cut = std::string::npos;
    for (std::size_t i = limit; i > floor; --i)
      if (cur[i] == ' ') {
        cut = i;
        break;
      }
    std::string head, rest;
    if (cut == std::string::npos) {  // one word longer than the line: cut it
      head = cur.substr(0, limit);
      rest = cur.substr(limit);
    } else {
      head = cur.substr(0, cut);
      rest = cur.substr(cut);
    }
    while (!head.empty() && head.back() == ' ') head.pop_back();
    out += head + "\n";
    rest.erase(0, leading_spaces(rest));
    cur = std::string(hang, ' ') + rest;
    floor = hang;
  }
  out += cur;
}

}  // namespace

std::string wrap_lines(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    const auto line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (display_width(line) <= width) out += line;
    else wrap_one(line, width, out);
    if (nl == std::string::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

std::string colourize(const std::string& text) {
  static const std::vector<std::pair<const char*, const char*>> words = {
      {"FAILED", "31"},      {"SLOWER", "31"},    {"PROBLEM", "31"},      {"ROUNDS DISAGREE", "31"},
      {"DRIFTING", "31"},    {"LOSS ROSE", "31"}, {"THROTTLED", "31"},    {"FASTER", "32"},
      {"UNCERTAIN", "33"},   {"noisy", "33"},     {"LAUNCH-BOUND", "33"}, {"INPUT-BOUND", "33"},
      {"DISTORTS", "33"}};
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    bool matched = false;
    if (i == 0 || !word_char(text[i - 1])) {
      for (const auto& [w, code] : words) {
        const std::size_t n = std::strlen(w);
        if (text.compare(i, n, w) != 0) continue;
        if (i + n < text.size() && word_char(text[i + n])) continue;
        out += "\033[";
        out += code;
        out += 'm';
        out += w;
        out += "\033[0m";
        i += n;
        matched = true;
        break;
      }
    }
    if (!matched) out += text[i++];
  }
  return out;
}

std::string fit_for(int fd, const std::string& text) {
  auto out = wrap_lines(text, output_width(fd));
  return colour_enabled(fd) ? colourize(out) : out;
}

void print_out(const std::string& text) {
  const auto s = fit_for(1, text);
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

void print_err(const std::string& text) {
  const auto s = fit_for(2, text);
  std::fwrite(s.data(), 1, s.size(), stderr);
  std::fflush(stderr);
}

}  // namespace accelbench
