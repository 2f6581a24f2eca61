// accelbench history: the stored runs, and each case's median over time grouped by PyTorch version,
// with the changes that stand out from the noise (a step detector over the runs, not a pairwise guess).
// `history --json` prints the same as JSON; `history rm` and `history prune` (history_manage_command.cpp)
// delete runs.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <limits>

#include "analysis/compare.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "core/durations.h"
#include "core/errors.h"
#include "report/article_reference.h"
#include "report/history_report.h"
#include "report/terminal.h"
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
  bool json = false;
  bool verbose = false;
};

std::string when(const std::string& iso) { return iso.size() >= 16 ? iso.substr(0, 10) + " " + iso.substr(11, 5) : iso; }

nlohmann::json history_json(const std::string& db, const std::vector<StoredRunInfo>& runs,
                            const std::vector<CaseHistoryPoint>& points) {
  nlohmann::json j{{"database", db}, {"runs", nlohmann::json::array()}, {"cases", nlohmann::json::array()}};
  for (const auto& r : runs)
    j["runs"].push_back({{"id", r.id}, {"uid", r.uid}, {"stored_utc", r.stored_utc}, {"timestamp_utc", r.timestamp_utc},
                         {"command", r.command}, {"torch_version", r.torch_version},
                         {"accelbench_version", r.accelbench_version}, {"git_commit", r.git_commit}, {"host", r.host},
                         {"cases", r.case_count}, {"wall_s", r.wall_s}, {"distorted_by", r.distorted_by}});
  for (const auto& p : points)
    j["cases"].push_back({{"run_id", p.run_id}, {"run_uid", p.run_uid}, {"timestamp_utc", p.timestamp_utc},
                          {"torch_version", p.torch_version}, {"host", p.host}, {"workload", p.workload},
                          {"device", p.device}, {"dtype", p.dtype}, {"batch_size", p.batch_size}, {"threads", p.threads},
                          {"n", p.n}, {"median_s", p.median}, {"ci_low_s", p.ci_low}, {"ci_high_s", p.ci_high},
                          {"ci_level", 0.95}, {"distorted_by", p.distorted_by}});
  return j;
}

int execute_history(const HistoryOptions& o) {
  const std::size_t limit = parse_count(o.limit, "--limit", std::numeric_limits<std::size_t>::max());  // checked first
  const std::string db = o.db.empty() ? HistoryStore::default_path() : o.db;
  const std::string reference = fmt::format(
      "Built-in reference: {} (the article's published M2 figures): accelbench report {}\n", kArticleRunName, kArticleRunName);
  std::error_code ec;
  if (!std::filesystem::exists(db, ec)) {
    if (o.json) std::fputs((history_json(db, {}, {}).dump(2) + "\n").c_str(), stdout);
    else print_out(fmt::format("No history yet: {} does not exist. `accelbench run` stores every run there (or --db PATH).\n", db) + reference);
    return 0;
  }
  HistoryStore store(db, HistoryAccess::kReadOnly);
  HistoryFilter filter{o.model, o.device, 0};
  auto runs = store.list_runs(filter);
  const std::size_t total = runs.size();
  if (limit && runs.size() > limit) runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(limit));
  if (o.json) {
    std::fputs((history_json(db, runs, store.case_history(filter)).dump(2) + "\n").c_str(), stdout);
    return 0;
  }
  std::string out = fmt::format("{} run{} in {}{}\n\n", total, total == 1 ? "" : "s", db,
                                total > runs.size() ? fmt::format(" (the last {} shown; --limit 0 for all)", runs.size()) : "");
  if (runs.empty()) {
    print_out(out + "No stored run matches.\n");
    return 0;
  }
  std::vector<std::vector<std::string>> t{{"id", "uid", "when (UTC)", "command", "torch", "host", "cases", "wall"}};
  for (const auto& r : runs)
    t.push_back({std::to_string(r.id), r.uid, when(r.timestamp_utc.empty() ? r.stored_utc : r.timestamp_utc), r.command,
                 r.torch_version, r.host, std::to_string(r.case_count), format_duration(r.wall_s)});
  add_distortion_column(t, runs);
  out += render_table(t, 6) + distorted_runs_note(runs) + "\n";
  out += render_case_history(store.case_history(filter), ChangeOptions{.min_effect = o.min_effect, .threshold = o.threshold},
                             o.verbose);
  print_out(out + reference);
  return 0;
}

}  // namespace

void add_history_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<HistoryOptions>();
  auto min_effect = std::make_shared<std::string>("2%");
  auto* cmd = app.add_subcommand("history", "Stored runs, each case's median over time by PyTorch version, and the changes "
                                            "found; `history rm` and `history prune` delete runs");
  cmd->add_option("--db", o->db, "History database (default: $ACCELBENCH_DB, else $XDG_DATA_HOME/accelbench/history.db)");
  cmd->add_option("--model,--models", o->model, "Only this workload");
  cmd->add_option("--device,--devices", o->device, "Only this device (cuda matches cuda:0, cuda:1...)");
  cmd->add_option("--limit", o->limit, "Runs listed (0: all)")->capture_default_str();
  cmd->add_option("--min-effect", *min_effect, "Smallest step reported as a change")->capture_default_str();
  cmd->add_option("--threshold", o->threshold, "Step size, in standard errors of the noise, needed for a change")
      ->capture_default_str();
  cmd->add_flag("--verbose,-v", o->verbose, "Every run of each case, its interval and marks, instead of one row per case");
  cmd->add_flag("--json", o->json, "Print the runs and each case's medians (95% CI) as JSON on stdout instead of the tables");
  cmd->require_subcommand(0, 1);
  add_history_manage_commands(*cmd, action, std::shared_ptr<const std::string>(o, &o->db));
  cmd->callback([&action, o, min_effect, cmd]() {
    if (!cmd->get_subcommands().empty()) return;  // rm / prune set the action
    action = [o, min_effect]() {
      o->min_effect = parse_fraction(*min_effect, "--min-effect");
      if (!(o->threshold > 0)) throw UsageError("--threshold must be positive");
      return execute_history(*o);
    };
  });
}

}  // namespace accelbench
