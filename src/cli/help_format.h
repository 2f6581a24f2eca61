#pragma once
// --help that fits the terminal: every help text wrapped to the output width (report/terminal.h),
// the option column narrower on narrow terminals, the options of a long command grouped by purpose,
// and the environment variables accelbench reads once, in the footer of `accelbench --help` (each
// command's help points there in one line).
#include <cstddef>
#include <string>

namespace CLI {
class App;
}

namespace accelbench {

// Installs the wrapping formatter on `app`; call before adding the sub-commands (they copy it).
void use_fitting_help(CLI::App& app);

// The environment footer on `app`, and on every sub-command under it a line pointing to it; call
// after adding them.
void add_environment_footer(CLI::App& app);

// A command with more than kGroupedOptionsFrom options lists them under their purpose (what to
// measure, data, your own model, how long and how precise, telemetry, output and history), on
// every sub-command under `app`; call after adding them.
inline constexpr std::size_t kGroupedOptionsFrom = 12;
void group_options_by_purpose(CLI::App& app);

// The footer text.
std::string environment_help();

}  // namespace accelbench
