#pragma once
// What fits the terminal: the output width (COLUMNS, else the terminal's own width, else 100 when the
// output is not a terminal), lines wrapped to it, and colour for verdicts, noisy cases and failures
// on terminals only (NO_COLOR honoured, plain when piped). No torch here.
#include <cstddef>
#include <string>

namespace accelbench {

// Width used when the output is not a terminal and COLUMNS is not set.
inline constexpr std::size_t kDefaultOutputWidth = 100;
// Narrowest width honoured (a smaller COLUMNS is raised to it).
inline constexpr std::size_t kMinOutputWidth = 40;

// The width for output on `fd`: COLUMNS when it is a number, else the terminal's width (ioctl
// TIOCGWINSZ), else kDefaultOutputWidth.
std::size_t output_width(int fd = 1);

// Colour on `fd`: a terminal, NO_COLOR unset or empty, TERM not "dumb".
bool colour_enabled(int fd);

// The number of characters `s` shows (UTF-8 code points; ANSI colour sequences count as none).
std::size_t display_width(const std::string& s);

// Every line longer than `width` broken at spaces (a word longer than the line is cut); the
// continuation lines are indented like the line's text after its label (two or more spaces after the
// first word group, as in "  --flag TEXT   description" or "PROBLEM      text"), else by the line's
// own indent (plus two when it is under four).
std::string wrap_lines(const std::string& text, std::size_t width);

// The words that carry a verdict in colour: FAILED, SLOWER, PROBLEM, ROUNDS DISAGREE, DRIFTING,
// LOSS ROSE, THROTTLED in red; FASTER in green; UNCERTAIN, noisy, LAUNCH-BOUND, INPUT-BOUND,
// DISTORTS in yellow. Whole words only.
std::string colourize(const std::string& text);

// Wrapped to the width of `fd`, and coloured when `fd` takes colour.
std::string fit_for(int fd, const std::string& text);

// Writes fit_for(1, text) to stdout / fit_for(2, text) to stderr.
void print_out(const std::string& text);
void print_err(const std::string& text);

}  // namespace accelbench
