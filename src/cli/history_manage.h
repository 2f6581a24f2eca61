#pragma once
// `history rm ID...` and `history prune --older-than 90d | --keep N`: deleting stored runs.
#include <memory>
#include <string>

#include "cli/commands.h"

namespace accelbench {

// Adds `rm` and `prune` under the `history` command; `history_db` is history's own --db (used when
// the sub-command has none: `history --db X rm 3`).
void add_history_manage_commands(CLI::App& history, Action& action, std::shared_ptr<const std::string> history_db);

// "90d", "12w", "36h" in seconds; UsageError (one line) on anything else.
double parse_age_seconds(const std::string& text, const char* option);

}  // namespace accelbench
