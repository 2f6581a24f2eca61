// accelbench history: the stored runs, and each case's median over time grouped by PyTorch version,
// with the changes that stand out from the noise (a step detector over the runs, not a pairwise guess).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <tuple>

#include "analysis/compare.h"
#include "cli/commands.h"
#include "core/durations.h"
#include "core/errors.h"
#include "report/article_reference.h"
#include "report/terminal_table.h"
#include "store/history_store.h"

namespace accelbench {

namespace {

struct HistoryOptions {
  std::string db;
  std::string model, device;
  std::size_t limit = 20;
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
  HistoryStore store(db);
  HistoryFilter filter{o.model, o.device, 0};
  auto runs = store.list_runs(filter);
  const std::size_t total = runs.size();
  if (o.limit && runs.size() > o.limit) runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(o.limit));
  std::cout << fmt::format("{} run{} in {}{}\n\n", total, total == 1 ? "" : "s", db,
                           total > runs.size() ? fmt::format(" (the last {} shown; --limit 0 for all)", runs.size()) : "");
  if (runs.empty()) {
    std::cout << "No stored run matches.\n";
    return 0;
  }
  std::vector<std::vector<std::string>> t{{"id", "uid", "when (UTC)", "command", "torch", "host", "cases", "wall"}};
  for (const auto& r : runs)
    t.push_back({std::to_string(r.id), r.uid, when(r.timestamp_utc.empty() ? r.stored_utc : r.timestamp_utc), r.command,
                 r.torch_version, r.host, std::to_string(r.case_count), format_duration(r.wall_s)});
  std::cout << render_table(t, 6) << "\n";

  // Each case's medians over time.
  const auto points = store.case_history(filter);
  struct Key {
    std::string workload, device, dtype, host;
    std::int64_t batch;
    bool operator<(const Key& k) const {
      return std::tie(workload, device, dtype, batch, host) < std::tie(k.workload, k.device, k.dtype, k.batch, k.host);
    }
  };
  std::map<Key, std::vector<CaseHistoryPoint>> series;
  for (const auto& p : points) series[{p.workload, p.device, p.dtype, p.host, p.batch_size}].push_back(p);
  ChangeOptions co;
  co.min_effect = o.min_effect;
  co.threshold = o.threshold;
  std::size_t changes_total = 0;
  for (const auto& [k, pts] : series) {
    std::cout << fmt::format("{} on {} ({}, batch {}, host {}): median step time, {} run{}\n", k.workload, k.device, k.dtype,
                             k.batch, k.host, pts.size(), pts.size() == 1 ? "" : "s");
    std::vector<SeriesPoint> sp;
    for (const auto& p : pts) sp.push_back({p.median, p.ci_low, p.ci_high});
    const auto changes = detect_changes(sp, co);
    changes_total += changes.size();
    std::vector<std::vector<std::string>> rows{{"run", "when (UTC)", "torch", "median", "95% CI", "n", "change"}};
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const auto& p = pts[i];
      std::string mark;
      for (const auto& c : changes)
        if (c.index == i) mark = fmt::format("<- step {:+.1f}% ({:.1f} sigma)", 100 * (c.ratio - 1), c.score);
      rows.push_back({std::to_string(p.run_id), when(p.timestamp_utc), p.torch_version, format_seconds_short(p.median),
                      fmt::format("{} - {}", format_seconds_short(p.ci_low), format_seconds_short(p.ci_high)),
                      std::to_string(p.n), mark});
    }
    std::string table = render_table(rows, 3);
    for (std::size_t pos = 0; pos < table.size();) {  // indent
      table.insert(pos, "  ");
      pos = table.find('\n', pos);
      if (pos == std::string::npos) break;
      ++pos;
    }
    std::cout << table;
    // grouped by torch version, in order of first appearance
    std::vector<std::string> versions;
    std::map<std::string, std::vector<double>> by_version;
    for (const auto& p : pts) {
      if (!by_version.count(p.torch_version)) versions.push_back(p.torch_version);
      by_version[p.torch_version].push_back(p.median);
    }
    std::vector<std::string> parts;
    double first = 0;
    for (const auto& v : versions) {
      auto m = by_version[v];
      const double med = summarize(m).median;
      if (first == 0) first = med;
      parts.push_back(fmt::format("torch {}: {} run{}, median {}{}", v.empty() ? "?" : v, m.size(), m.size() == 1 ? "" : "s",
                                  format_seconds_short(med), first == med ? "" : fmt::format(" ({:+.1f}%)", 100 * (med / first - 1))));
    }
    std::cout << "  by PyTorch version: " << fmt::format("{}", fmt::join(parts, "; ")) << "\n";
    if (changes.empty()) std::cout << "  no change beyond the noise\n";
    for (const auto& c : changes)
      std::cout << fmt::format("  change at run {}: {} -> {} ({:+.1f}%), torch {} -> {}\n", pts[c.index].run_id,
                               format_seconds_short(c.before), format_seconds_short(c.after), 100 * (c.ratio - 1),
                               pts[c.index - 1].torch_version, pts[c.index].torch_version);
    std::cout << "\n";
  }
  std::cout << fmt::format("{} change{} detected. A change is a step in a case's median that exceeds {:.0f} standard errors "
                           "of the noise (the runs' own CIs and the scatter between runs) and {:.0f}%.\n",
                           changes_total, changes_total == 1 ? "" : "s", co.threshold, 100 * co.min_effect);
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
