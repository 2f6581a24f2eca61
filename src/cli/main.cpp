// accelbench: how much faster does training really run on the accelerator than on the CPU?
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/help_format.h"
#include "cli/option_checks.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "engine/engine.h"

int main(int argc, char** argv) {
  using namespace accelbench;
  install_crash_handler();
  CLI::App app{"accelbench: measures how much faster PyTorch training runs on each accelerator than on the CPU,\n"
               "with medians, confidence intervals, speed-ups and memory. Exit codes: 0 ok, 1 a case failed or a\n"
               "check found a problem, 2 bad input."};
  app.set_version_flag("--version", fmt::format("accelbench {} ({})", accelbench_version(), accelbench_git_commit()));
  app.require_subcommand(1);
  use_fitting_help(app);  // before the sub-commands: they copy the formatter
  Action action;
  add_run_command(app, action);
  add_profile_command(app, action);
  add_devices_command(app, action);
  add_doctor_command(app, action);
  add_history_command(app, action);
  add_compare_command(app, action);
  add_report_command(app, action);
  add_advise_command(app, action);
  add_sweep_command(app, action);
  add_peak_command(app, action);
  add_measure_case_command(app, action);
  add_scale_command(app, action);
  add_scale_rank_command(app, action);
  add_docs_command(app, action);
  add_environment_footer(app);
  group_options_by_purpose(app);
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names, known;
    for (const auto* sub : app.get_subcommands({})) {
      known.push_back(sub->get_name());
      if (sub->get_name().rfind('_', 0) != 0) names.push_back(sub->get_name());  // hidden ones start with '_'
    }
    if (std::find(known.begin(), known.end(), argv[1]) == known.end()) {
      std::fprintf(stderr, "accelbench: error: unknown command '%s'; commands: %s\n", argv[1],
                   fmt::format("{}", fmt::join(names, ", ")).c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
    check_raw_values(app);  // empty values, negative unsigned and beyond-64-bit numbers, for every option
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "accelbench: error: %s (see --help)\n", one_line(e.what()).c_str());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "accelbench: error: %s\n", one_line(e.what()).c_str());
    return 2;
  }
  try {
    return action();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "accelbench: error: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    const auto torch_message = engine::torch_error_message(e);  // a c10::Error: without its backtrace
    if (!torch_message.empty()) std::fprintf(stderr, "accelbench: torch error: %s\n", one_line(torch_message).c_str());
    else std::fprintf(stderr, "accelbench: error: %s\n", one_line(e.what()).c_str());
    return 1;
  }
}
