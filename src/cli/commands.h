#pragma once
// Each sub-command registers its options on the CLI11 app and says what to do when chosen.
#include <functional>

namespace CLI {
class App;
}

namespace accelbench {

using Action = std::function<int()>;
void add_run_command(CLI::App& app, Action& action);
void add_profile_command(CLI::App& app, Action& action);
void add_devices_command(CLI::App& app, Action& action);
void add_doctor_command(CLI::App& app, Action& action);
void add_history_command(CLI::App& app, Action& action);
void add_compare_command(CLI::App& app, Action& action);
void add_report_command(CLI::App& app, Action& action);
void add_advise_command(CLI::App& app, Action& action);
void add_sweep_command(CLI::App& app, Action& action);
void add_peak_command(CLI::App& app, Action& action);  // the device's ceilings (peak_command.cpp)
// Hidden: `_measure-case`, run by an isolated sweep point's child process (measure_case_command.cpp).
void add_measure_case_command(CLI::App& app, Action& action);
// Hidden: `_docs --out DIR`, the man page and shell completions from the command tree (docs_command.cpp).
void add_docs_command(CLI::App& app, Action& action);
// `scale` (data-parallel, several GPUs) and its hidden per-rank command `_scale-rank`.
void add_scale_command(CLI::App& app, Action& action);
void add_scale_rank_command(CLI::App& app, Action& action);

}  // namespace accelbench
