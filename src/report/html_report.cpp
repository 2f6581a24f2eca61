// The HTML report: one self-contained file (inline CSS, inline SVG, one small inline script that only
// marks the page as loaded and checks its own charts; a Content-Security-Policy forbids any network
// access). Each chart has its data table beside it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <set>

#include "core/durations.h"
#include "core/sweep_records.h"
#include "report/article_reference.h"
#include "report/history_report.h"
#include "report/reports.h"
#include "report/svg_chart.h"

namespace accelbench {

namespace {

using Rows = std::vector<std::vector<std::string>>;

std::string html_table(const Rows& rows, const std::string& cls = "") {
  std::string out = fmt::format("<table{}>\n", cls.empty() ? "" : " class=\"" + cls + "\"");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += r == 0 ? "<thead><tr>" : "<tr>";
    for (const auto& c : rows[r]) out += (r == 0 ? "<th>" : "<td>") + xml_escape(c) + (r == 0 ? "</th>" : "</td>");
    out += r == 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string figure(const std::string& key, const std::string& caption, const std::string& svg, const Rows& table) {
  return fmt::format("<figure class=\"chart\" data-chart=\"{}\">\n<figcaption>{}</figcaption>\n<div class=\"chart-row\">\n"
                     "<div class=\"chart-body\">\n{}</div>\n<div class=\"chart-table\">\n{}</div>\n</div>\n</figure>\n",
                     key, xml_escape(caption), svg, html_table(table, "chart-data"));
}

// A chart the run has no data for: one item of the "Not in this run" list, not an empty panel.
std::string absent_item(const std::string& key, const std::string& caption, const std::string& why) {
  return fmt::format("<li data-absent=\"{}\"><strong>{}</strong>: {}</li>\n", key, xml_escape(caption), xml_escape(why));
}

// Each accelerator case's speed-up over the CPU's fastest measured precision, where that is another
// precision (a table of its own: the summary has one row per model, whatever its precision).
std::string over_fastest_cpu_table(const RunResult& run, bool published) {
  const auto t = over_fastest_cpu_rows(run, published);
  if (t.empty()) return "";
  return "<h3>Speed-up over the CPU's fastest precision</h3>\n" + html_table(t, "over-fastest-cpu") +
         fmt::format("<p class=\"note\">{}</p>\n", xml_escape(kOverFastestCpuNote));
}

// A precision sweep's speed-up per precision (bars with their CI, 1x marked) and its parity table.
std::string precision_figure(const PrecisionSweep& sw) {
  BarChartSpec spec{"chart-precision", "Speed-up over float32 per precision", "x (float32 step / this step)", {}, false, 1.0};
  Rows t{{"precision", fmt::format("speed-up [{}]", interval_name(false)), "loss vs float32", "parity"}};
  for (const auto& p : sw.points) {
    if (!p.speedup) continue;
    const auto& sp = *p.speedup;
    spec.items.push_back(BarItem{p.precision, sw.device, sp.ratio, sp.low, sp.high, false, {}});
    const bool has = p.parity && p.parity->error.empty() && p.parity->steps > 0;
    t.push_back({p.precision, format_ratio_ci(sp), has ? fmt::format("{:.2g}%", 100 * p.parity->loss_rel_diff) : "-",
                 p.parity_ok ? (*p.parity_ok ? "ok" : "drifts") : "-"});
  }
  if (spec.items.empty()) return "";
  return figure("sweep-precision", fmt::format("Precision sweep: {} on {}", sweep_loop_label(sw), sw.device), render_bar_chart(spec), t);
}

// A crossover sweep's speed-up against its axis, with the CI's bounds and the break-even line.
std::string crossover_figure(const CrossoverSweep& sw) {
  LineChartSpec spec{"chart-crossover", "Speed-up of the accelerator over the CPU", sw.axis, "x (CPU step / accelerator step)", {}, true};
  LineSeries ratio{"speed-up", {}}, low{interval_name(false) + " low", {}}, high{interval_name(false) + " high", {}}, even{"break-even (1x)", {}};
  Rows t{{sw.axis, fmt::format("speed-up [{}]", interval_name(false))}};
  for (const auto& p : sw.points) {
    const double x = static_cast<double>(p.x);
    even.points.emplace_back(x, 1.0);
    if (!p.speedup) continue;
    ratio.points.emplace_back(x, p.speedup->ratio);
    low.points.emplace_back(x, p.speedup->low);
    high.points.emplace_back(x, p.speedup->high);
    t.push_back({std::to_string(p.x), format_ratio_ci(*p.speedup)});
  }
  if (ratio.points.size() < 2) return "";
  spec.series = {ratio, low, high, even};
  return figure("sweep-crossover", fmt::format("Crossover: {} on {} against the CPU: {}", sweep_loop_label(sw), sw.device, sw.crossover_text),
                render_line_chart(spec), t);
}

// Only for sweeps of those kinds; "" otherwise, and for a block it cannot read.
std::string sweep_figure(const nlohmann::json& document) {
  std::optional<AnySweep> sweep;
  try {
    sweep = sweep_from_document(document);
  } catch (const std::exception&) {
    return "";
  }
  if (!sweep) return "";
  if (const auto* p = std::get_if<PrecisionSweep>(&*sweep)) return precision_figure(*p);
  if (const auto* c = std::get_if<CrossoverSweep>(&*sweep)) return crossover_figure(*c);
  return "";
}

constexpr const char* kStyle = R"css(
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1180px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 6px 0; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
.meta td, .meta th { text-align: left; }
.published { background: #fff4d6; border: 1px solid #e0b000; padding: 8px 12px; }
.warning { color: #a40; }
figure.chart { margin: 18px 0; padding: 10px; border: 1px solid #e3e3e3; border-radius: 4px; }
figure.chart figcaption { font-weight: bold; margin-bottom: 6px; }
.chart-row { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
.chart-table { max-height: 360px; overflow: auto; }
svg text { font-size: 11px; fill: #222; } svg .chart-title { font-size: 13px; font-weight: bold; }
.no-data { color: #777; font-style: italic; }
footer { margin-top: 2em; color: #777; font-size: 0.8em; }
)css";

// Marks the page loaded, counts each chart's elements, records script errors: for the browser test
// and for anyone who opens the page with the developer tools.
constexpr const char* kScript = R"js(
(function () {
  var errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message)); document.body.setAttribute('data-errors', errors.join(' | ')); });
  window.addEventListener('load', function () {
    var figs = document.querySelectorAll('figure.chart');
    var ok = 0, drawn = 0;
    for (var i = 0; i < figs.length; i++) {
      var f = figs[i];
      if (f.classList.contains('empty')) { f.setAttribute('data-check', 'empty'); continue; }
      drawn++;
      var svg = f.querySelector('svg');
      var marks = svg ? svg.querySelectorAll('rect.bar, rect.ref-bar, polyline.series').length : 0;
      var rows = f.querySelectorAll('table.chart-data tbody tr').length;
      var box = svg ? svg.getBoundingClientRect() : null;
      var good = svg && marks > 0 && rows > 0 && box && box.width > 0 && box.height > 0;
      f.setAttribute('data-marks', String(marks));
      f.setAttribute('data-rows', String(rows));
      f.setAttribute('data-check', good ? 'ok' : 'bad');
      if (good) ok++;
    }
    document.body.setAttribute('data-charts', String(drawn));
    document.body.setAttribute('data-charts-ok', String(ok));
    document.body.setAttribute('data-errors-count', String(errors.length));
    document.body.setAttribute('data-loaded', 'yes');
  });
})();
)js";

// One chart per case of the run that the history holds at least twice (same workload, device,
// precision and batch): its median step time in each stored run, with the interval the run stored,
// on a linear axis in ms up to kHistoryAxisOverMedians times the largest median (an interval beyond
// it clipped and marked); the table writes them as the case tables do.
constexpr double kHistoryAxisOverMedians = 2.0;
std::string history_figures(const ReportSource& src) {
  std::string out;
  int index = 0;
  for (const auto& c : src.run.cases) {
    if (!c.ok()) continue;
    std::vector<const CaseHistoryPoint*> points;
    for (const auto& p : src.history)
      if (p.is_case(c.spec))
        points.push_back(&p);
    if (points.size() < 2) continue;
    const std::string label = fmt::format("{} on {} ({}, batch {})", model_label(c.spec), c.spec.device, c.spec.dtype, c.spec.batch_size);
    BarChartSpec spec{fmt::format("chart-history-{}", index), fmt::format("Median step time per stored run ({}): {}", history_interval_name(points), label),
                      "ms per step", {}, false, std::nullopt, "{:.3g}"};
    Rows t{{"run", "when (UTC)", "torch", "median step", history_interval_name(points), "n"}};
    for (const auto* p : points) {
      const std::string run = fmt::format("run {}", p->run_id);
      spec.items.push_back(BarItem{run, c.spec.device, p->median * 1e3, p->ci_low * 1e3, p->ci_high * 1e3, false,
                                   format_seconds_short(p->median)});
      t.push_back({run, p->timestamp_utc, p->torch_version, format_seconds_short(p->median),
                   history_interval_text(*p, points),
                   std::to_string(p->n)});
    }
    double largest_median = 0;
    for (const auto* p : points) largest_median = std::max(largest_median, p->median * 1e3);
    spec.axis_max = kHistoryAxisOverMedians * largest_median;  // one absurd interval does not flatten the rest
    out += figure(fmt::format("history-{}", index++), "History: " + label, render_bar_chart(spec), t);
  }
  return out;
}

// What the run is, and where it was measured: the title, the published-figures note, the context
// table and the run's warnings.
std::string html_context_section(const ReportSource& src, const std::string& title, bool published) {
  const auto& run = src.run;
  const auto& ctx = run.context;
  std::string body = fmt::format("<h1>{}</h1>\n", xml_escape(title));
  if (published)
    body += fmt::format("<p class=\"published\"><strong>Published figures, not measurements.</strong> {} ({}; {})</p>\n",
                        xml_escape(ctx.settings.value("note", std::string())), xml_escape(ctx.settings.value("source", std::string())),
                        xml_escape(ctx.settings.value("method", std::string())));
  Rows meta{{"context", "value"}};
  meta.push_back({"command", run.command});
  if (!ctx.timestamp_utc.empty()) meta.push_back({"when (UTC)", ctx.timestamp_utc});
  meta.push_back({"machine", machine_description(ctx, true)});
  if (!ctx.os.empty()) meta.push_back({"system", fmt::format("{} {} {}", ctx.os, ctx.kernel, ctx.arch)});
  meta.push_back({"PyTorch", ctx.torch_version});
  meta.push_back({"accelbench", fmt::format("{} ({})", ctx.accelbench_version, ctx.git_commit)});
  for (const auto& d : ctx.devices)
    if (d.type != "cpu") meta.push_back({"accelerator " + d.id, d.name});
  if (run.wall_s > 0) meta.push_back({"wall time", format_duration(run.wall_s)});
  body += html_table(meta, "meta");
  for (const auto& w : ctx.warnings) body += fmt::format("<p class=\"warning\">warning: {}</p>\n", xml_escape(w));
  return body;
}

// The article's view of this run: per model, the epoch time on each device and the speed-ups over
// the CPU (the article's figures are in their own section), then the speed-ups over the CPU's fastest precision.
std::string html_summary_section(const RunResult& run, const std::vector<std::string>& devices, bool published) {
  const auto rows = report_rows(run);
  const auto loop = report_rows_loop(rows);
  Rows t{{loop.empty() ? std::string("model") : "model, " + loop}};
  for (const auto& d : devices) t[0].push_back(fmt::format("{} {}", d == "cpu" ? "CPU" : d, published ? "time" : "s/epoch"));
  for (const auto& d : devices)
    if (d != "cpu") t[0].push_back(fmt::format("speed-up {}{}", d, published ? "" : " [" + speedup_interval_name(run.speedups) + "]"));
  for (const auto& r : rows) {
    std::vector<std::string> row{r.label};
    for (const auto& d : devices) {
      const auto* c = find_row_case(run, r, d);
      if (!c) row.push_back("-");
      else if (!c->ok()) row.push_back("failed");
      else row.push_back(published ? fmt::format("{:g} {}", c->epoch_s_estimate, c->epoch_unit)
                                   : fmt::format("{:.1f}{}", c->epoch_s_estimate, c->noisy ? "~" : ""));
    }
    for (const auto& d : devices) {
      if (d == "cpu") continue;
      const auto* s = find_row_speedup(run.speedups, r.model, r.dtype, d, r.batch);
      row.push_back(!s ? "-" : published ? fmt::format("{:.2f}x", s->ratio) : speedup_ratio_text(*s));
    }
    t.push_back(row);
  }
  return "<h2>Training time and speed-up</h2>\n" + html_table(t, "summary") + over_fastest_cpu_table(run, published);
}

// What the chart steps add: figures to the page, in order, and items to the "Not in this run" list.
struct HtmlCharts {
  std::string figures, absent;
};

// Ratios far apart (1.1x beside 100x): a log scale keeps the small ones readable.
void use_log_scale_for_far_ratios(BarChartSpec& spec) {
  double lo = 0, hi = 0;
  for (const auto& it : spec.items)
    if (it.value > 0) {
      lo = lo == 0 ? it.value : std::min(lo, it.value);
      hi = std::max(hi, std::max(it.value, it.high));
    }
  if (lo > 0 && hi / lo > 15) {
    spec.log_scale = true;
    spec.y_label = "speed-up (x, log scale)";
  }
}

// 1. Speed-up per workload and device, with its interval's whiskers (the article's published figures
// are in their own section, never beside the user's; a published run's chart is the article's alone).
void add_speedup_chart(HtmlCharts& out, const RunResult& run, const std::vector<std::string>& models, bool published) {
  const auto which = speedup_interval_name(run.speedups);
  BarChartSpec spec{"chart-speedup", published ? "Published speed-up over the CPU" : fmt::format("Speed-up over the CPU (median ratio, {})", which),
                    "speed-up (x)", {}, false, 1.0, "{:.2f}x"};
  Rows t{{"workload", "device", "batch", published ? "speed-up (published)" : fmt::format("speed-up [{}]", which)}};
  // Several precisions or batch sizes of one model on one device: each bar names its own.
  std::map<std::tuple<std::string, std::string, std::string>, int> per_batch;
  bool several_dtypes = false;
  for (const auto& s : run.speedups) {
    ++per_batch[{s.label(), s.device, s.dtype}];
    several_dtypes = several_dtypes || s.dtype != run.speedups.front().dtype;
  }
  for (const auto& m : models) {
    for (const auto& s : run.speedups) {
      if (s.label() != m) continue;
      std::string series = several_dtypes ? fmt::format("{} {}", s.device, s.dtype) : s.device;
      if (per_batch[{s.label(), s.device, s.dtype}] > 1) series += fmt::format(" b{}", s.batch_size);
      if (published) series = "article M2 (published)";
      spec.items.push_back(BarItem{m, series, s.ratio, s.ci_low, s.ci_high, published, {}});
      t.push_back({m, several_dtypes ? fmt::format("{} {}", s.device, s.dtype) : s.device,
                   s.batch_size ? std::to_string(s.batch_size) : "-",
                   published ? fmt::format("{:.2f}x", s.ratio) : speedup_ratio_text(s)});
    }
  }
  use_log_scale_for_far_ratios(spec);
  if (run.speedups.empty())
    out.absent += absent_item("speedup", "Speed-up per workload and device",
                              "No speed-up in this run: no accelerator case had a CPU case to compare with.");
  else
    out.figures += figure("speedup", published ? "The article's published speed-up per workload (hatched)" : "Speed-up per workload and device",
                          render_bar_chart(spec), t);
}

// 2. Step time per device.
void add_step_time_chart(HtmlCharts& out, const RunResult& run, const std::vector<std::string>& devices, bool published) {
  BarChartSpec spec{"chart-step-time", published ? "Published time per device" : fmt::format("Median step time per device ({})", case_interval_name(run)),
                    published ? "seconds (log scale)" : "ms per step (log scale)", {}, true, std::nullopt, "{:.3g}"};
  Rows t{{"workload", "device", "batch", published ? "time" : "median step", published ? "interval" : case_interval_name(run), "n"}};
  std::map<std::pair<std::string, std::string>, std::set<std::int64_t>> batches;
  for (const auto& c : run.cases) batches[{model_label(c.spec), c.spec.device}].insert(c.spec.batch_size);
  std::vector<const CaseResult*> ordered;  // CPU first, then the devices in order of appearance
  for (const auto& d : devices)
    for (const auto& c : run.cases)
      if (c.spec.device == d) ordered.push_back(&c);
  for (const auto* cp : ordered) {
    const auto& c = *cp;
    if (!c.ok() || !(c.stats.median > 0)) continue;
    const double scale = published ? 1.0 : 1e3;
    const bool several = batches[{model_label(c.spec), c.spec.device}].size() > 1;
    const std::string series = c.spec.device + (several && !published ? fmt::format(" b{}", c.spec.batch_size) : "");
    const auto text = published ? fmt::format("{:g} {}", c.stats.median, c.epoch_unit) : format_seconds_short(c.stats.median);
    spec.items.push_back(BarItem{model_label(c.spec), series, c.stats.median * scale, c.stats.ci_low * scale,
                                 c.stats.ci_high * scale, published, text});
    t.push_back({model_label(c.spec), c.spec.device, std::to_string(c.spec.batch_size), text,
                 published ? "-" : case_interval_text(c), std::to_string(c.stats.n)});
  }
  if (spec.items.empty()) out.absent += absent_item("step-time", "Step time per device", "No successful case in this run.");
  else out.figures += figure("step-time", published ? "Time per device" : "Step time per device", render_bar_chart(spec), t);
}

// Utilisation: each case's achieved FLOP/s as a share of the measured matmul ceiling of its
// precision (`accelbench peak`); the table adds the device's busy share and the verdict.
void add_utilisation_chart(HtmlCharts& out, const RunResult& run) {
  BarChartSpec spec{"chart-utilisation", "Share of the measured matmul ceiling of the case's precision",
                    "% of the ceiling", {}, false, std::nullopt, "{:.1f}%"};
  Rows t{{"model", "device", "dtype", "achieved TFLOP/s", "share of the ceiling", "device busy", "verdict"}};
  for (const auto& c : run.cases) {
    if (!c.ok() || !c.ceiling_share) continue;
    const double pct = 100 * *c.ceiling_share;
    const auto group = c.spec.dtype == "float32" ? model_label(c.spec) : model_label(c.spec) + " " + c.spec.dtype;
    spec.items.push_back(BarItem{group, c.spec.device, pct, pct, pct, false, {}});
    t.push_back({model_label(c.spec), c.spec.device, c.spec.dtype, fmt::format("{:.2f}", c.achieved_flops_per_s / 1e12),
                 fmt::format("{:.1f}%", pct),
                 c.device_busy_fraction ? fmt::format("{:.0f}%", 100 * *c.device_busy_fraction) : std::string("-"),
                 c.bound.empty() ? std::string("-") : c.bound});
  }
  if (spec.items.empty())
    out.absent += absent_item("utilisation", "Utilisation per case",
                              "No case has a measured ceiling to compare with: `accelbench peak --device D` stores them.");
  else
    out.figures += figure("utilisation", "Utilisation per case: the share of the measured matmul ceiling (the table: the "
                          "device's busy share and the verdict)", render_bar_chart(spec), t);
}

// 3-4. Throughput and memory against batch size (a batch sweep, or any run with several batch
// sizes of a workload on a device).
void add_batch_size_charts(HtmlCharts& out, const RunResult& run, const std::vector<std::string>& models,
                           const std::vector<std::string>& devices) {
  std::map<std::pair<std::string, std::string>, std::set<std::int64_t>> sizes;
  for (const auto& c : run.cases)
    if (c.ok() && c.spec.batch_size > 0) sizes[{model_label(c.spec), c.spec.device}].insert(c.spec.batch_size);
  LineChartSpec thr{"chart-sweep-throughput", "Throughput against batch size", "batch size", "samples/s", {}, true};
  LineChartSpec mem{"chart-sweep-memory", "Peak memory against batch size", "batch size", "MiB", {}, true};
  Rows tt{{"workload", "device", "batch", "samples/s"}}, tm{{"workload", "device", "batch", "peak memory"}};
  for (const auto& m : models)
    for (const auto& d : devices) {
      auto it = sizes.find({m, d});
      if (it == sizes.end() || it->second.size() < 2) continue;
      LineSeries st{m + " on " + d, {}}, sm{m + " on " + d, {}};
      for (auto b : it->second)
        for (const auto& c : run.cases) {
          if (model_label(c.spec) != m || c.spec.device != d || c.spec.batch_size != b || !c.ok()) continue;
          st.points.emplace_back(static_cast<double>(b), c.samples_per_s);
          tt.push_back({m, d, std::to_string(b), format_count(c.samples_per_s)});
          if (const double bytes = peak_memory_bytes(c); bytes > 0) {
            sm.points.emplace_back(static_cast<double>(b), bytes / (1024.0 * 1024.0));
            tm.push_back({m, d, std::to_string(b), peak_memory_text(c)});
          }
          break;
        }
      if (st.points.size() >= 2) thr.series.push_back(st);
      if (sm.points.size() >= 2) mem.series.push_back(sm);
    }
  const std::string why = "No sweep in this run: each workload and device has one batch size (a sweep over batch sizes would show how they scale).";
  if (thr.series.empty()) out.absent += absent_item("sweep-throughput", "Throughput against batch size", why);
  else out.figures += figure("sweep-throughput", "Throughput against batch size", render_line_chart(thr), tt);
  if (mem.series.empty())
    out.absent += absent_item("sweep-memory", "Memory against batch size",
                              thr.series.empty() ? why : "The sweep's cases report no memory figure.");
  else out.figures += figure("sweep-memory", "Peak memory against batch size", render_line_chart(mem), tm);
}

// 5-6. Power and temperature over time (telemetry).
void add_telemetry_charts(HtmlCharts& out, const nlohmann::json& document) {
  const auto tel = telemetry_curves(document);
  LineChartSpec pw{"chart-power", "Power over time", "time (s)", "W", {}, false};
  LineChartSpec tc{"chart-temperature", "Temperature over time", "time (s)", "degrees C", {}, false};
  Rows tp{{"series", "points", "mean W", "max W"}}, tt{{"series", "points", "mean C", "max C"}};
  for (const auto& s : tel) {
    LineSeries a{s.label, {}}, b{s.label, {}};
    double psum = 0, pmax = 0, tsum = 0, tmax = -1e9;
    for (std::size_t i = 0; i < s.t_s.size(); ++i) {
      if (std::isfinite(s.power_w[i])) { a.points.emplace_back(s.t_s[i], s.power_w[i]); psum += s.power_w[i]; pmax = std::max(pmax, s.power_w[i]); }
      if (std::isfinite(s.temperature_c[i])) { b.points.emplace_back(s.t_s[i], s.temperature_c[i]); tsum += s.temperature_c[i]; tmax = std::max(tmax, s.temperature_c[i]); }
    }
    if (!a.points.empty()) {
      tp.push_back({s.label, std::to_string(a.points.size()), fmt::format("{:.1f}", psum / static_cast<double>(a.points.size())), fmt::format("{:.1f}", pmax)});
      pw.series.push_back(std::move(a));
    }
    if (!b.points.empty()) {
      tt.push_back({s.label, std::to_string(b.points.size()), fmt::format("{:.1f}", tsum / static_cast<double>(b.points.size())), fmt::format("{:.1f}", tmax)});
      tc.series.push_back(std::move(b));
    }
  }
  const std::string why = "No telemetry in this run (no power or temperature readings were recorded).";
  if (pw.series.empty()) out.absent += absent_item("power", "Power over time", why);
  else out.figures += figure("power", "Power over time (telemetry)", render_line_chart(pw), tp);
  if (tc.series.empty()) out.absent += absent_item("temperature", "Temperature over time", why);
  else out.figures += figure("temperature", "Temperature over time (telemetry)", render_line_chart(tc), tt);
}

// 7. Each case's median across the stored runs, with its intervals.
void add_history_charts(HtmlCharts& out, const ReportSource& src) {
  const auto history = history_figures(src);
  if (history.empty())
    out.absent += absent_item("history", "Each case across the stored runs",
                              src.history.empty() ? "No stored history for this run (a JSON file, or nothing stored)."
                                                  : "No case of this run has been stored twice yet.");
  out.figures += history;
}

// The charts, each beside its table, then the list of those this run has no data for.
std::string html_charts_section(const ReportSource& src, const std::vector<std::string>& devices,
                                const std::vector<std::string>& models, bool published) {
  HtmlCharts charts;
  add_speedup_chart(charts, src.run, models, published);
  add_step_time_chart(charts, src.run, devices, published);
  add_utilisation_chart(charts, src.run);
  add_batch_size_charts(charts, src.run, models, devices);
  // A precision or crossover sweep's own figure: speed-up per precision, or against the swept axis.
  charts.figures += sweep_figure(src.document);
  add_telemetry_charts(charts, src.document);
  if (!published) add_history_charts(charts, src);
  std::string body = "<h2>Charts</h2>\n" + charts.figures;
  if (!charts.absent.empty())
    body += "<section class=\"not-in-run\">\n<h3>Not in this run</h3>\n<ul>\n" + charts.absent + "</ul>\n</section>\n";
  return body;
}

// The notes column of a measured case: noise, warm-up, outliers, rounds, intervals, drift, launch
// bound, numerics, a rising loss.
std::string html_case_notes(const CaseResult& c) {
  std::vector<std::string> notes;
  if (c.noisy) notes.push_back("noisy");
  if (!c.warmup_stable) notes.push_back(c.stats.n <= 1 ? "ONE SAMPLE after an unsteady warm-up" : "warm-up not stable");
  if (c.stats.outliers) notes.push_back(fmt::format("{} outliers", c.stats.outliers));
  if (c.synthetic_data) notes.push_back("synthetic data");
  if (c.rounds.size() > 1) {
    std::vector<std::string> medians;
    for (const auto& r : c.rounds) medians.push_back(format_seconds_short(r.median_s));
    notes.push_back(fmt::format("rounds: {}{}", fmt::join(medians, ", "), c.rounds_disagree ? " (ROUNDS DISAGREE)" : ""));
  }
  if (c.run_to_run && c.run_to_run->widened)  // the column's interval is the next run's range
    notes.push_back(run_to_run_label(*c.run_to_run));
  if (c.drifting) notes.push_back("DRIFTING");
  if (c.device_busy_fraction)
    notes.push_back(fmt::format("device busy {:.0f}% of the step{}", 100 * *c.device_busy_fraction,
                                c.launch_bound ? ": LAUNCH-BOUND" : ""));
  if (!c.numerics.empty()) notes.push_back(c.numerics);
  if (loss_rose(c)) notes.push_back("LOSS ROSE");
  return fmt::format("{}", fmt::join(notes, "; "));
}

// Every case: its figures, or why it failed.
std::string html_cases_section(const RunResult& run) {
  Rows t{{"model", "device", "dtype", "batch", "threads", "median step", case_interval_name(run), "n", "samples/s", "peak memory", "notes"}};
  for (const auto& c : run.cases) {
    if (!c.ok()) {
      t.push_back({model_label(c.spec), c.spec.device, c.spec.dtype, std::to_string(c.spec.batch_size), std::to_string(c.spec.threads),
                   "-", "-", "-", "-", "-", "FAILED: " + c.error});
      continue;
    }
    t.push_back({model_label(c.spec), c.spec.device, c.spec.dtype, std::to_string(c.spec.batch_size), std::to_string(c.spec.threads),
                 format_seconds_short(c.stats.median),
                 case_interval_text(c), std::to_string(c.stats.n),
                 format_count(c.samples_per_s), peak_memory_text(c), html_case_notes(c)});
  }
  add_implementation_column(t, run);
  return "<h2>Cases</h2>\n" + html_table(t, "cases");
}

// The article's published figures, in their own section: no figure of this run beside them.
std::string html_article_section() {
  Rows t{{"case", "CPU", "MPS", "speed-up (article)"}};
  for (const auto& f : article_figures())
    t.push_back({fmt::format("{} (section {})", f.label, f.section), fmt::format("{:g} {}", f.cpu, f.unit),
                 fmt::format("{:g} {}", f.mps, f.unit), fmt::format("{:.2f}x", f.speedup)});
  return "<h2>The article's figures (MacBook Pro M2, PyTorch 2.5.1; published, not measured)</h2>\n" + html_table(t, "article");
}

// The page around the body: the security policy, the style, the checking script.
std::string html_page(const std::string& title, const std::string& body) {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>{}</title>\n<style>{}</style>\n</head>\n<body data-report=\"accelbench\">\n", xml_escape(title), kStyle);
  out += body;
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kScript);
  return out;
}

}  // namespace

std::string render_html_report(const ReportSource& src) {
  const auto& run = src.run;
  const bool published = is_published_run(run);
  const auto devices = report_devices(run);
  const auto models = report_workloads(run);
  const std::string title = fmt::format("accelbench report: {}", src.name.empty() ? "run" : src.name);
  std::string body = html_context_section(src, title, published);
  body += html_summary_section(run, devices, published);
  body += html_charts_section(src, devices, models, published);
  if (!published) body += html_cases_section(run);
  body += html_article_section();
  body += fmt::format("<footer>Generated by accelbench {} from {}. Self-contained: no network access, no external script.</footer>\n",
                      xml_escape(run.context.accelbench_version), xml_escape(src.name));
  return html_page(title, body);
}

}  // namespace accelbench
