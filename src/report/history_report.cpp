// History of the cases stored: each case's median step time over the runs, grouped by PyTorch
// version, with the changes the step detector (analysis/compare.h) finds. No torch here.
#include "report/history_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/durations.h"
#include "core/stats.h"
#include "report/terminal_table.h"

namespace accelbench {

namespace {
std::string when(const std::string& iso) { return iso.size() >= 16 ? iso.substr(0, 10) + " " + iso.substr(11, 5) : iso; }
}  // namespace

namespace {
bool mixed_intervals(const std::vector<const CaseHistoryPoint*>& points) {
  return std::any_of(points.begin(), points.end(), [&](const CaseHistoryPoint* p) { return p->next_run_range != points.front()->next_run_range; });
}
}  // namespace

std::string history_interval_name(const std::vector<const CaseHistoryPoint*>& points) {
  if (points.empty() || mixed_intervals(points)) return "95% interval";
  return interval_name(points.front()->next_run_range);
}

std::string history_interval_text(const CaseHistoryPoint& point, const std::vector<const CaseHistoryPoint*>& points) {
  const bool too_wide = point.next_run_range && point.ci_low > 0 && point.ci_high / point.ci_low > kTooWideFactor;
  const auto text = too_wide ? std::string("too wide") : format_relative_interval(point.median, point.ci_low, point.ci_high);
  return point.next_run_range && mixed_intervals(points) ? text + " (next run)" : text;
}

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
    std::vector<const CaseHistoryPoint*> refs;
    for (const auto& p : pts) sp.push_back({p.median, p.ci_low, p.ci_high}), refs.push_back(&p);
    const auto changes = detect_changes(sp, co);
    changes_total += changes.size();
    std::vector<std::vector<std::string>> rows{{"run", "when (UTC)", "torch", "median", history_interval_name(refs), "n", "change"}};
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const auto& p = pts[i];
      std::string mark;
      for (const auto& c : changes)
        if (c.index == i) mark = fmt::format("<- step {:+.1f}% ({:.1f} sigma)", 100 * (c.ratio - 1), c.score);
      if (!p.distorted_by.empty()) mark += (mark.empty() ? "" : "; ") + std::string("DISTORTED");
      rows.push_back({std::to_string(p.run_id), when(p.timestamp_utc), p.torch_version, format_seconds_short(p.median),
                      history_interval_text(p, refs),
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

void add_distortion_column(std::vector<std::vector<std::string>>& table, const std::vector<StoredRunInfo>& runs) {
  if (std::none_of(runs.begin(), runs.end(), [](const StoredRunInfo& r) { return !r.distorted_by.empty(); })) return;
  table.front().push_back("timings");
  for (std::size_t i = 0; i < runs.size() && i + 1 < table.size(); ++i)
    table[i + 1].push_back(runs[i].distorted_by.empty() ? "" : "DISTORTED: " + runs[i].distorted_by);
}

std::string distorted_runs_note(const std::vector<StoredRunInfo>& runs) {
  const auto marked = std::count_if(runs.begin(), runs.end(), [](const StoredRunInfo& r) { return !r.distorted_by.empty(); });
  if (marked == 0) return "";
  return fmt::format("DISTORTED: {} run{} measured while the machine checks found timings distorted (`accelbench report "
                     "ID` says how): left out of the next-run ranges of later runs measured without that distortion, "
                     "marked in `compare`; `accelbench history rm ID` removes a run\n",
                     marked, marked == 1 ? "" : "s");
}

std::string render_comparison(const RunComparison& cmp, const CompareOptions& co) {
  const double level = 1 - co.alpha;
  std::string out = fmt::format("B/A: B's median step time / A's (> 1: B is slower), with its {:g}% interval (1 - --alpha; run and "
                                "history print 95%)\n\n", 100 * level);
  for (const auto* side : {"A", "B"}) {
    const auto& marks = side[0] == 'A' ? cmp.distorted_a : cmp.distorted_b;
    if (!marks.empty())
      out += fmt::format("{} was measured while timings may have been DISTORTED (by: {}): a difference may be the "
                         "machine's\n",
                         side, fmt::join(marks, ", "));
  }
  if (!cmp.distorted_a.empty() || !cmp.distorted_b.empty()) out += "\n";
  std::vector<std::vector<std::string>> t{{"model", "device", "batch", "A median", "B median", "B/A", "p", "verdict", "why"}};
  const bool between = std::any_of(cmp.cases.begin(), cmp.cases.end(), [](const CaseComparison& c) { return c.result.between_runs; });
  std::map<Verdict, int> counts;
  for (const auto& c : cmp.cases) {
    const auto& r = c.result;
    ++counts[r.verdict];
    t.push_back({c.model, c.device, std::to_string(c.batch_size), r.n_a ? format_seconds_short(r.median_a) : "-",
                 r.n_b ? format_seconds_short(r.median_b) : "-",
                 !(r.ratio > 0) ? "-" : r.too_wide ? fmt::format("{:.3f}x [too wide]", r.ratio) : format_ratio_ci(r.ratio, r.ci_low, r.ci_high, 3),
                 fmt::format("{:.2g}", r.p), verdict_name(r.verdict), r.reason});
  }
  out += cmp.cases.empty() ? std::string("No case in common.\n") : render_table(t, 3);
  for (const auto& s : cmp.only_in_a) out += "only in A, or failed: " + s + "\n";
  for (const auto& s : cmp.only_in_b) out += "only in B: " + s + "\n";
  out += fmt::format("\n{} SLOWER, {} FASTER, {} SAME, {} UNCERTAIN. Verdict: Mann-Whitney U at alpha {:g}, minimum effect "
                     "{:g}%, SAME needs the interval within +-{:g}% when not significant. Two runs show a difference between "
                     "them, not yet a lasting change: `accelbench history` calls a change from 4 runs of a case.{}\n",
                     counts[Verdict::Slower], counts[Verdict::Faster], counts[Verdict::Same], counts[Verdict::Uncertain],
                     co.alpha, 100 * co.min_effect, 100 * co.equivalence_margin,
                     between ? " Where both runs carry their run-to-run spread (the why column says so), the verdict "
                               "and the interval are judged against it (a t test on the two runs' log medians), not "
                               "against the samples: a change within run-to-run noise is SAME or UNCERTAIN."
                             : "");
  return out;
}

}  // namespace accelbench
