// accelbench history rm / prune: delete stored runs, each deletion one transaction (all or none).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "core/errors.h"
#include "report/terminal.h"
#include "store/history_store.h"

namespace accelbench {

double parse_age_seconds(const std::string& text, const char* option) {
  std::size_t used = 0;
  double n = 0;
  try {
    n = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = used ? text.substr(used) : "";
  const double scale = unit == "d" ? 86400 : unit == "w" ? 7 * 86400 : unit == "h" ? 3600 : 0;
  if (!used || scale == 0 || !std::isfinite(n) || n < 0 || n > 36500)
    throw UsageError(fmt::format("{} takes an age such as 90d, 12w or 36h (got '{}')", option, text));
  return n * scale;
}

namespace {

std::string open_existing(const std::string& db_option) {
  const std::string db = db_option.empty() ? HistoryStore::default_path() : db_option;
  std::error_code ec;
  if (!std::filesystem::exists(db, ec)) throw UsageError(fmt::format("no history at {}: nothing to remove", db));
  return db;
}

int execute_rm(const std::string& db_option, const std::vector<std::string>& keys) {
  HistoryStore store(open_existing(db_option));
  std::vector<std::int64_t> ids;
  for (const auto& k : keys) {
    const auto id = store.resolve(k);
    if (!id) throw UsageError(fmt::format("no stored run '{}' in {} (see accelbench history); nothing was removed", k, store.path()));
    ids.push_back(*id);
  }
  const auto removed = store.remove_runs(ids);
  print_out(fmt::format("Removed {} run{} ({}) from {}.\n", removed, removed == 1 ? "" : "s", fmt::join(keys, ", "), store.path()));
  return 0;
}

int execute_prune(const std::string& db_option, const std::string& older_than, const std::string& keep_text, bool dry_run) {
  if (older_than.empty() && keep_text.empty()) throw UsageError("history prune needs --older-than AGE or --keep N (or both)");
  const double age = older_than.empty() ? 0 : parse_age_seconds(older_than, "--older-than");
  const std::size_t keep = keep_text.empty() ? 0 : parse_count(keep_text, "--keep", std::numeric_limits<int>::max());
  if (!keep_text.empty() && keep == 0) throw UsageError("--keep must be at least 1 (history rm removes single runs)");
  HistoryStore store(open_existing(db_option), dry_run ? HistoryAccess::kReadOnly : HistoryAccess::kReadWrite);
  const auto runs = store.list_runs();
  const auto ids = runs_to_prune(runs, older_than.empty() ? "" : utc_seconds_ago(age), keep);
  std::string what = older_than.empty() ? "" : fmt::format("stored more than {} ago", older_than);
  if (keep) what += fmt::format("{}beyond the newest {}", what.empty() ? "" : " or ", keep);
  if (dry_run) {
    print_out(fmt::format("Would remove {} of {} runs ({}): {}\n", ids.size(), runs.size(), what, fmt::join(ids, ", ")));
    return 0;
  }
  const auto removed = store.remove_runs(ids);
  print_out(fmt::format("Removed {} of {} runs ({}) from {}; {} left.\n", removed, runs.size(), what, store.path(),
                        runs.size() - removed));
  return 0;
}

}  // namespace

void add_history_manage_commands(CLI::App& history, Action& action, std::shared_ptr<const std::string> history_db) {
  auto db = std::make_shared<std::string>();
  auto keys = std::make_shared<std::vector<std::string>>();
  auto* rm = history.add_subcommand("rm", "Delete stored runs by id or uid (all or none)");
  rm->add_option("ID", *keys, "Run ids or uids, as `accelbench history` lists them")->required();
  rm->add_option("--db", *db, "History database (default: $ACCELBENCH_DB, else $XDG_DATA_HOME/accelbench/history.db)");
  auto chosen = [db, history_db]() { return db->empty() ? *history_db : *db; };
  rm->callback([&action, chosen, keys]() { action = [chosen, keys]() { return execute_rm(chosen(), *keys); }; });

  auto older = std::make_shared<std::string>();
  auto keep = std::make_shared<std::string>();
  auto dry = std::make_shared<bool>(false);
  auto* prune = history.add_subcommand("prune", "Delete the runs stored before an age and/or all but the newest N");
  prune->add_option("--older-than", *older, "Delete runs stored more than this long ago: 90d, 12w, 36h");
  prune->add_option("--keep", *keep, "Keep only the newest N runs");
  prune->add_flag("--dry-run", *dry, "Say which runs would be deleted; delete nothing");
  prune->add_option("--db", *db, "History database (default: $ACCELBENCH_DB, else $XDG_DATA_HOME/accelbench/history.db)");
  prune->callback([&action, chosen, older, keep, dry]() {
    action = [chosen, older, keep, dry]() { return execute_prune(chosen(), *older, *keep, *dry); };
  });
}

}  // namespace accelbench
