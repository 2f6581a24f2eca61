#pragma once
// --help that fits the terminal: every help text wrapped to the output width (report/terminal.h),
// the option column narrower on narrow terminals, and the environment variables accelbench reads in
// the footer of every command's help.
namespace CLI {
class App;
}

namespace accelbench {

// Installs the wrapping formatter on `app`; call before adding the sub-commands (they copy it).
void use_fitting_help(CLI::App& app);

// The environment footer on `app` and every sub-command under it; call after adding them.
void add_environment_footer(CLI::App& app);

// The footer text (also in README.md, "Environment variables").
const char* environment_help();

}  // namespace accelbench
