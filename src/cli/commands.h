#pragma once
// Each sub-command registers its options on the CLI11 app and says what to do when chosen.
#include <functional>
#include <memory>
#include <string>

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

// `history rm ID...` and `history prune --older-than 90d | --keep N` under the `history` command
// (history_manage_command.cpp); `history_db` is history's own --db (used when the sub-command has
// none: `history --db X rm 3`).
void add_history_manage_commands(CLI::App& history, Action& action, std::shared_ptr<const std::string> history_db);
// "90d", "12w", "36h" in seconds; UsageError (one line) on anything else.
double parse_age_seconds(const std::string& text, const char* option);

// The fatal-signal handler (crash_handler.cpp): a backtrace, the faulting address and thread on
// stderr, then death by the same signal (so exit statuses and core dumps stay what they would be).
void install_crash_handler();

}  // namespace accelbench
