// accelbench history: the stored runs, and each case's median over time grouped by PyTorch version,
// with the changes that stand out from the noise (a step detector over the runs, not a pairwise guess).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <limits>

#include "analysis/compare.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "core/durations.h"
#include "core/errors.h"
#include "report/article_reference.h"
#include "report/history_report.h"
#include "report/terminal_table.h"
#include "store/history_store.h"

namespace accelbench {

namespace {

struct HistoryOptions {
  std::string db;
  std::string model, device;
  std::string limit = "20";
  double min_effect = 0.02;
  double threshold = 4.0;
};

std::string when(const std::string& iso) { return iso.size() >= 16 ? iso.substr(0, 10) + " " + iso.substr(11, 5) : iso; }

int execute_history(const HistoryOptions& o) {
  const std::string db = o.db.empty() ? HistoryStore::default_path() : o.db;
  std::error_code ec;
  if (!std::filesystem::exists(db, ec)) {
    std::cout << fmt::format("No history yet: {} does not exist. `accelbench run` stores every run there (or --db PATH).\n", db);
    std::cout << fmt::format("Built-in reference: {} (the article's published M2 figures): accelbench report {}\n",
                             kArticleRunName, kArticleRunName);
    return 0;
  }
  HistoryStore store(db, HistoryAccess::kReadOnly);
  HistoryFilter filter{o.model, o.device, 0};
  auto runs = store.list_runs(filter);
  const std::size_t total = runs.size();
  if (limit && runs.size() > limit) runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(limit));
  std::cout << fmt::format("{} run{} in {}{}\n\n", total, total == 1 ? "" : "s", db,
                           total > runs.size() ? fmt::format(" (the last {} shown; --limit 0 for all)", runs.size()) : "");
  if (runs.empty()) {
    std::cout << "No stored run matches.\n";
    return 0;
  }
  std::vector<std::vector<std::string>> t{{"id", "uid", "when (UTC)", "command", "torch", "host", "cases", "wall"}};
  const std::size_t limit = parse_count(o.limit, "--limit", std::numeric_limits<std::size_t>::max());  // checked first
  for (const auto& r : runs)
    t.push_back({std::to_string(r.id), r.uid, when(r.timestamp_utc.empty() ? r.stored_utc : r.timestamp_utc), r.command,
                 r.torch_version, r.host, std::to_string(r.case_count), format_duration(r.wall_s)});
  std::cout << render_table(t, 6) << "\n";

  std::cout << render_case_history(store.case_history(filter), ChangeOptions{.min_effect = o.min_effect, .threshold = o.threshold});
  std::cout << fmt::format("Built-in reference: {} (the article's published M2 figures): accelbench report {}\n",
                           kArticleRunName, kArticleRunName);
  return 0;
}

}  // namespace

void add_history_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<HistoryOptions>();
  auto min_effect = std::make_shared<std::string>("2%");
  auto* cmd = app.add_subcommand("history", "Stored runs, each case's median over time by PyTorch version, and the changes found");
  cmd->add_option("--db", o->db, "History database (default: $XDG_DATA_HOME/accelbench/history.db)");
  cmd->add_option("--model", o->model, "Only this workload");
  cmd->add_option("--device", o->device, "Only this device (cuda matches cuda:0, cuda:1...)");
  cmd->add_option("--limit", o->limit, "Runs listed (0: all)")->capture_default_str();
  cmd->add_option("--min-effect", *min_effect, "Smallest step reported as a change")->capture_default_str();
  cmd->add_option("--threshold", o->threshold, "Step size, in standard errors of the noise, needed for a change")
      ->capture_default_str();
  cmd->callback([&action, o, min_effect]() {
    action = [o, min_effect]() {
      o->min_effect = parse_fraction(*min_effect, "--min-effect");
      if (!(o->threshold > 0)) throw UsageError("--threshold must be positive");
      return execute_history(*o);
    };
  });
}

}  // namespace accelbench
