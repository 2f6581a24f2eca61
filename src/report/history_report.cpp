// History of the cases stored: each case's median step time over the runs, grouped by PyTorch
// version, with the changes the step detector (analysis/compare.h) finds. No torch here.
#include "report/history_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <tuple>

#include "core/durations.h"
#include "core/stats.h"
#include "report/terminal_table.h"

namespace accelbench {

namespace {
std::string when(const std::string& iso) { return iso.size() >= 16 ? iso.substr(0, 10) + " " + iso.substr(11, 5) : iso; }
}  // namespace

std::string render_case_history(const std::vector<CaseHistoryPoint>& points, const ChangeOptions& co) {
  std::string out;
  // Each case's medians over time.
  struct Key {
    std::string workload, device, dtype, host;
    std::int64_t batch;
    bool operator<(const Key& k) const {
      return std::tie(workload, device, dtype, batch, host) < std::tie(k.workload, k.device, k.dtype, k.batch, k.host);
    }
  };
  std::map<Key, std::vector<CaseHistoryPoint>> series;
  for (const auto& p : points) series[{p.model(), p.device, p.dtype, p.host, p.batch_size}].push_back(p);
  std::size_t changes_total = 0;
  for (const auto& [k, pts] : series) {
    out += fmt::format("{} on {} ({}, batch {}, host {}): median step time, {} run{}\n", k.workload, k.device, k.dtype,
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
    out += table;
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
    out += "  by PyTorch version: " + fmt::format("{}", fmt::join(parts, "; ")) + "\n";
    if (pts.size() < kMinRunsForChange)
      out += fmt::format("  {} run{}: too few to call a change (a step needs {} runs, two on each side of it)\n",
                         pts.size(), pts.size() == 1 ? "" : "s", kMinRunsForChange);
    else if (changes.empty())
      out += "  no change beyond the noise\n";
    for (const auto& c : changes)
      out += fmt::format("  change at run {}: {} -> {} ({:+.1f}%), torch {} -> {}\n", pts[c.index].run_id,
                               format_seconds_short(c.before), format_seconds_short(c.after), 100 * (c.ratio - 1),
                               pts[c.index - 1].torch_version, pts[c.index].torch_version);
    out += "\n";
  }
  out += fmt::format("{} change{} detected. A change is a step in a case's median that exceeds {:.0f} standard errors "
                     "of the noise (the runs' own CIs and the scatter between runs) and {:.0f}%.\n",
                     changes_total, changes_total == 1 ? "" : "s", co.threshold, 100 * co.min_effect);
  return out;
}

}  // namespace accelbench
