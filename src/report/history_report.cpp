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

namespace {
// One case's series of stored runs: its points in order, the changes found, its medians by torch version.
struct CaseSeries {
  std::string label;  // "mlp on cpu (float32, batch 64)", the host added where the history holds several
  std::vector<CaseHistoryPoint> points;
  std::vector<ChangePoint> changes;
  std::vector<std::string> versions;  // "torch 2.13.0: 3 runs, median 1.98 ms", in order of first appearance
};

// `brief`: "2.13.0: 3 runs, 1.98 ms" for the one-row view.
std::vector<std::string> medians_by_version(const std::vector<CaseHistoryPoint>& pts, bool brief = false) {
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
    parts.push_back(fmt::format("{}{}: {} run{}, {}{}{}", brief ? "" : "torch ", v.empty() ? "?" : v, m.size(), m.size() == 1 ? "" : "s",
                                brief ? "" : "median ", format_seconds_short(med),
                                first == med ? "" : fmt::format(" ({:+.1f}%)", 100 * (med / first - 1))));
  }
  return parts;
}

std::vector<CaseSeries> case_series(const std::vector<CaseHistoryPoint>& points, const ChangeOptions& co, bool host_in_label) {
  struct Key {
    std::string workload, device, dtype, host;
    std::int64_t batch;
    bool operator<(const Key& k) const {
      return std::tie(workload, device, dtype, batch, host) < std::tie(k.workload, k.device, k.dtype, k.batch, k.host);
    }
  };
  std::map<Key, std::vector<CaseHistoryPoint>> grouped;
  for (const auto& p : points) grouped[{p.model(), p.device, p.dtype, p.host, p.batch_size}].push_back(p);
  std::vector<CaseSeries> out;
  for (auto& [k, pts] : grouped) {
    std::vector<SeriesPoint> sp;
    for (const auto& p : pts) sp.push_back({p.median, p.ci_low, p.ci_high});
    auto label = fmt::format("{} on {} ({}, batch {}{})", k.workload, k.device, k.dtype, k.batch,
                             host_in_label ? ", host " + k.host : "");
    auto changes = detect_changes(sp, co);
    auto versions = medians_by_version(pts);
    out.push_back({std::move(label), std::move(pts), std::move(changes), std::move(versions)});
  }
  return out;
}

std::string change_lines(const CaseSeries& s, const std::string& indent) {
  std::string out;
  for (const auto& c : s.changes)
    out += fmt::format("{}change at run {}: {} -> {} ({:+.1f}%), torch {} -> {}\n", indent, s.points[c.index].run_id,
                       format_seconds_short(c.before), format_seconds_short(c.after), 100 * (c.ratio - 1),
                       s.points[c.index - 1].torch_version, s.points[c.index].torch_version);
  return out;
}

std::string indented(std::string table) {
  for (std::size_t pos = 0; pos < table.size();) {
    table.insert(pos, "  ");
    pos = table.find('\n', pos);
    if (pos == std::string::npos) break;
    ++pos;
  }
  return table;
}

// Every run of one case: a table of its medians and intervals, the medians by torch version, the changes.
std::string series_detail(const CaseSeries& s) {
  const auto& pts = s.points;
  std::string out = fmt::format("{}: median step time, {} run{}\n", s.label, pts.size(), pts.size() == 1 ? "" : "s");
  std::vector<const CaseHistoryPoint*> refs;
  for (const auto& p : pts) refs.push_back(&p);
  std::vector<std::vector<std::string>> rows{{"run", "when (UTC)", "torch", "median", history_interval_name(refs), "n", "change"}};
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    std::string mark;
    for (const auto& c : s.changes)
      if (c.index == i) mark = fmt::format("<- step {:+.1f}% ({:.1f} sigma)", 100 * (c.ratio - 1), c.score);
    if (!p.distorted_by.empty()) mark += (mark.empty() ? "" : "; ") + std::string("DISTORTED");
    rows.push_back({std::to_string(p.run_id), when(p.timestamp_utc), p.torch_version, format_seconds_short(p.median),
                    history_interval_text(p, refs), std::to_string(p.n), mark});
  }
  out += indented(render_table(rows, 3));
  out += "  by PyTorch version: " + fmt::format("{}", fmt::join(s.versions, "; ")) + "\n";
  if (pts.size() < kMinRunsForChange)
    out += fmt::format("  {} run{}: too few to call a change (a step needs {} runs, two on each side of it)\n",
                       pts.size(), pts.size() == 1 ? "" : "s", kMinRunsForChange);
  else if (s.changes.empty())
    out += "  no change beyond the noise\n";
  return out + change_lines(s, "  ") + "\n";
}

std::string change_cell(const CaseSeries& s) {
  if (s.points.size() < kMinRunsForChange) return fmt::format("too few runs ({} needed)", kMinRunsForChange);
  if (s.changes.empty()) return "none beyond the noise";
  std::vector<std::string> steps;
  for (const auto& c : s.changes) {
    const auto& before = s.points[c.index - 1].torch_version;
    const auto& after = s.points[c.index].torch_version;
    steps.push_back(fmt::format("{:+.1f}% at run {}{}", 100 * (c.ratio - 1), s.points[c.index].run_id,
                                before == after ? "" : fmt::format(" (torch {})", after)));
  }
  return fmt::format("{}", fmt::join(steps, ", "));
}

// One row per case: its runs (those marked DISTORTED counted beside them), the latest run's median
// and interval, any change (and the torch version it came with); then, where a case ran under
// more than one torch version, its medians by version.
std::string series_table(const std::vector<CaseSeries>& series) {
  std::vector<const CaseHistoryPoint*> latest;
  for (const auto& s : series) latest.push_back(&s.points.back());
  std::vector<std::vector<std::string>> rows{{"case", "runs", "latest", history_interval_name(latest), "change"}};
  std::string below;
  for (const auto& s : series) {
    const auto& last = s.points.back();
    const auto marked = std::count_if(s.points.begin(), s.points.end(), [](const CaseHistoryPoint& p) { return !p.distorted_by.empty(); });
    rows.push_back({s.label, fmt::format("{}{}", s.points.size(), marked ? fmt::format(", {} DISTORTED", marked) : ""),
                    format_seconds_short(last.median), history_interval_text(last, latest), change_cell(s)});
    if (s.versions.size() > 1)
      below += fmt::format("  {} on {}, by torch: {}\n", last.model(), last.device, fmt::join(medians_by_version(s.points, true), "; "));
  }
  return render_table(rows, 1) + below;
}
}  // namespace

std::string render_case_history(const std::vector<CaseHistoryPoint>& points, const ChangeOptions& co, bool verbose) {
  const bool hosts = std::any_of(points.begin(), points.end(), [&](const CaseHistoryPoint& p) { return p.host != points.front().host; });
  const auto series = case_series(points, co, hosts);
  std::size_t changes_total = 0;
  for (const auto& s : series) changes_total += s.changes.size();
  std::string out;
  if (verbose)
    for (const auto& s : series) out += series_detail(s);
  else if (!series.empty())
    out += series_table(series);
  const auto rule = verbose ? fmt::format("a step in a case's median beyond {:.0f} standard errors of the noise (the runs' "
                                          "own intervals and the scatter between runs) and {:.0f}%", co.threshold, 100 * co.min_effect)
                            : fmt::format("a step beyond {:.0f} standard errors of the noise and {:.0f}%", co.threshold,
                                          100 * co.min_effect);
  out += fmt::format("{} change{} detected ({}{})\n", changes_total, changes_total == 1 ? "" : "s", rule,
                     verbose ? "" : "; --verbose: every run");
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

namespace {
std::string comparison_ratio_text(const SampleComparison& r) {
  if (!(r.ratio > 0)) return "-";
  if (r.too_wide) return fmt::format("{:.3f}x [too wide]", r.ratio);
  return format_ratio_ci(r.ratio, r.shown_low, r.shown_high, 3);
}

std::string comparison_method(const CompareOptions& co, bool between) {
  return fmt::format(
      "Verdict: Mann-Whitney U on the samples at alpha {:g} (the verdict reads the {:g}% interval), minimum effect "
      "{:g}%, SAME needs that interval within +-{:g}% when not significant. Two runs show a difference between them, "
      "not yet a lasting change: `accelbench history` calls a change from 4 runs of a case.{}\n",
      co.alpha, 100 * (1 - co.alpha), 100 * co.min_effect, 100 * co.equivalence_margin,
      between ? " Where both runs carry their run-to-run spread (the why column says so), the verdict and the "
                "interval are judged against it (a t test on the two runs' log medians), not against the samples: a "
                "change within run-to-run noise is SAME or UNCERTAIN."
              : "");
}

// One line where either run is marked: "A: timings may be DISTORTED (load, threads)", or both runs,
// their marks once where they agree; --verbose says what it means for the verdicts.
std::string distortion_line(const RunComparison& cmp) {
  const auto& a = cmp.distorted_a;
  const auto& b = cmp.distorted_b;
  if (a.empty() && b.empty()) return "";
  if (b.empty()) return fmt::format("A: timings may be DISTORTED ({})\n", fmt::join(a, ", "));
  if (a.empty()) return fmt::format("B: timings may be DISTORTED ({})\n", fmt::join(b, ", "));
  if (a == b) return fmt::format("A and B: timings may be DISTORTED ({})\n", fmt::join(a, ", "));
  return fmt::format("A and B: timings may be DISTORTED (A: {}; B: {})\n", fmt::join(a, ", "), fmt::join(b, ", "));
}
}  // namespace

std::string render_comparison(const RunComparison& cmp, const CompareOptions& co, bool verbose) {
  std::string out = distortion_line(cmp);
  const auto interval = fmt::format("B/A {:g}%", 100 * co.shown_level);
  std::vector<std::vector<std::string>> t{{"model", "device", "batch", "A median", "B median", interval, "verdict"}};
  if (verbose) t.front().insert(t.front().end(), {"p", "why"});
  const bool between = std::any_of(cmp.cases.begin(), cmp.cases.end(), [](const CaseComparison& c) { return c.result.between_runs; });
  std::map<Verdict, int> counts;
  for (const auto& c : cmp.cases) {
    const auto& r = c.result;
    ++counts[r.verdict];
    t.push_back({c.model, c.device, std::to_string(c.batch_size), r.n_a ? format_seconds_short(r.median_a) : "-",
                 r.n_b ? format_seconds_short(r.median_b) : "-", comparison_ratio_text(r), verdict_name(r.verdict)});
    if (verbose) t.back().insert(t.back().end(), {fmt::format("{:.2g}", r.p), r.reason});
  }
  out += cmp.cases.empty() ? std::string("No case in common.\n") : render_table(t, 3);
  for (const auto& s : cmp.only_in_a) out += "only in A, or failed: " + s + "\n";
  for (const auto& s : cmp.only_in_b) out += "only in B: " + s + "\n";
  out += fmt::format("{} SLOWER, {} FASTER, {} SAME, {} UNCERTAIN (B/A > 1: B is slower{})\n", counts[Verdict::Slower],
                     counts[Verdict::Faster], counts[Verdict::Same], counts[Verdict::Uncertain],
                     verbose ? "" : "; --verbose: why, and the method");
  if (verbose) out += "\n" + comparison_method(co, between);
  if (verbose && !(cmp.distorted_a.empty() && cmp.distorted_b.empty()))
    out += "A run marked DISTORTED was measured while the machine checks found its timings distorted: a difference "
           "may be the machine's.\n";
  return out;
}

}  // namespace accelbench
