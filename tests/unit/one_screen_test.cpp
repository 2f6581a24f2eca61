// The answer on one screen: compare and history in a line per case, a distortion said by every
// printer that measured under it, tables only where they hold a figure, each mode's own Summary, the
// HTML history chart readable whatever one run's interval.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "analysis/compare.h"
#include "core/stats.h"
#include "report/history_report.h"
#include "report/printer.h"
#include "report/reports.h"
#include "report/svg_chart.h"
#include "report/sweep_tables.h"
#include "report/terminal_table.h"
#include "support/synthetic_runs.h"
#include "support/text_util.h"

using namespace accelbench;
using accelbench::testing::make_case;
using accelbench::testing::make_run;
using accelbench::testing::SyntheticOptions;

namespace {

std::size_t lines_of(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

RunResult three_models_on_cpu(std::uint64_t seed, double slowdown = 1.0) {
  SyntheticOptions o;
  o.devices = {"cpu"};
  o.seed = seed;
  o.slowdown = slowdown;
  return make_run(o);
}

constexpr const char* kDistortion = "timings may be DISTORTED: the machine is busy (accelbench doctor says how to fix it)";

}  // namespace

// compare of two runs of three models: a line per case with its verdict and its interval at 95% (as
// `run` prints), the counts in one line; the method and each reason only with --verbose.
TEST(OneScreen, CompareOfThreeModelsIsALinePerCaseAt95Percent) {
  const auto a = three_models_on_cpu(1), b = three_models_on_cpu(2, 1.10);
  const CompareOptions co;
  const auto cmp = compare_runs(a, b, co);
  ASSERT_EQ(cmp.cases.size(), 3u);
  const auto text = render_comparison(cmp, co);
  EXPECT_LE(lines_of(text), 7u) << text;  // with the runs' line of `compare`: at most 8
  EXPECT_NE(text.find("B/A 95%"), std::string::npos) << text;
  EXPECT_EQ(text.find("99%"), std::string::npos) << text;
  EXPECT_EQ(text.find("Mann-Whitney"), std::string::npos) << text;
  EXPECT_NE(text.find("3 SLOWER, 0 FASTER, 0 SAME, 0 UNCERTAIN"), std::string::npos) << text;
  for (const auto& c : cmp.cases) {
    const auto* ca = &*std::find_if(a.cases.begin(), a.cases.end(), [&](const CaseResult& x) { return x.spec.workload == c.workload; });
    const auto* cb = &*std::find_if(b.cases.begin(), b.cases.end(), [&](const CaseResult& x) { return x.spec.workload == c.workload; });
    const auto at95 = ratio_of_medians(cb->samples, ca->samples, 0.95);
    EXPECT_DOUBLE_EQ(c.result.shown_low, at95.low) << c.workload;
    EXPECT_DOUBLE_EQ(c.result.shown_high, at95.high) << c.workload;
    EXPECT_NE(text.find(fmt::format("[{:.3f}, {:.3f}]", at95.low, at95.high)), std::string::npos) << text;
  }
  const auto verbose = render_comparison(cmp, co, /*verbose=*/true);
  EXPECT_NE(verbose.find("Mann-Whitney U on the samples at alpha 0.01"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("why"), std::string::npos) << verbose;
}

// Judged against the run-to-run spread, the interval printed is the 95% one of the same t.
TEST(OneScreen, CompareBetweenRunsPrintsThe95PercentInterval) {
  SampleComparison r;
  r.ratio = 1.2;
  RunToRun spread;
  spread.sd_log = 0.05;
  spread.dof = 12;
  judge_between_runs(r, spread, spread, CompareOptions{});
  ASSERT_TRUE(r.between_runs);
  EXPECT_LT(r.ci_low, r.shown_low);  // the verdict's 99% interval is the wider
  EXPECT_NEAR(std::log(r.shown_high / r.ratio), 2.179 * 0.05 * std::sqrt(2.0), 1e-3);  // t(0.975, 12) = 2.179
}

// history: one row per case (its runs, the latest median and interval), not a table per case.
TEST(OneScreen, HistoryIsARowPerCase) {
  std::vector<CaseHistoryPoint> points;
  for (int run = 1; run <= 3; ++run)
    for (const char* model : {"mlp", "cnn", "transformer"}) {
      CaseHistoryPoint p;
      p.run_id = run, p.workload = model, p.device = "cpu", p.dtype = "float32", p.batch_size = 64, p.host = "h";
      p.torch_version = "2.13.0", p.timestamp_utc = "2025-06-01T10:00:00Z", p.n = 20;
      p.median = 0.01 * run, p.ci_low = 0.009 * run, p.ci_high = 0.011 * run;
      points.push_back(p);
    }
  const auto text = render_case_history(points, ChangeOptions{});
  EXPECT_LE(lines_of(text), 6u) << text;  // header, rule, three rows, the count of changes
  EXPECT_NE(text.find("mlp on cpu (float32, batch 64)"), std::string::npos) << text;
  EXPECT_NE(text.find("too few runs (4 needed)"), std::string::npos) << text;
  const auto verbose = render_case_history(points, ChangeOptions{}, /*verbose=*/true);
  EXPECT_GE(lines_of(verbose), 3 * 5u) << verbose;  // each case's runs in a table of its own
  EXPECT_NE(verbose.find("when (UTC)"), std::string::npos) << verbose;
}

// A sweep measured under a distortion says so beside its advice.
TEST(OneScreen, TheSweepReportSaysTheDistortion) {
  auto run = three_models_on_cpu(1);
  run.context.warnings = {kDistortion};
  run.context.distorted_by = {"load", "threads"};
  const auto ending = accelbench::testing::unwrapped(sweep_report_ending(run, nlohmann::json(run)));
  EXPECT_NE(ending.find("warning: timings may be DISTORTED (by: load, threads;"), std::string::npos) << ending;
  run.context.warnings = {"another warning"};
  run.context.distorted_by.clear();
  EXPECT_EQ(sweep_report_ending(run, nlohmann::json(run)).find("warning:"), std::string::npos);
}

// --quiet drops notes and warnings, never a distortion of the timings it prints.
TEST(OneScreen, QuietStillSaysTheDistortion) {
  RunContext ctx;
  ctx.warnings = {kDistortion, "another warning"};
  TerminalPrinter quiet(false, false, "", Verbosity::kQuiet);
  ::testing::internal::CaptureStderr();
  quiet.context(ctx);
  const auto err = accelbench::testing::unwrapped(::testing::internal::GetCapturedStderr());
  EXPECT_NE(err.find(std::string("accelbench: warning: ") + kDistortion), std::string::npos) << err;
  EXPECT_EQ(err.find("another warning"), std::string::npos) << err;
}

// After the report, the notes of what happened; not the notes of work as it started.
TEST(OneScreen, NotesOfWorkStartingAreNotHeld) {
  TerminalPrinter normal(false, false, "", Verbosity::kNormal);
  normal.note("parity of mlp on cuda:0 against the CPU (10 steps each)...");
  normal.note("stored as run 1 (uid abc) in /tmp/h.db");
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  normal.finished(RunResult{}, "report\n");
  ::testing::internal::GetCapturedStdout();
  const auto err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("stored as run 1"), std::string::npos) << err;
  EXPECT_EQ(err.find("parity of"), std::string::npos) << err;
}

// The run's report: no row of n/a figures, no column of "no", no parity block where all agree, one
// advice item a rule, the marks explained, and one line saying where the rest is.
TEST(OneScreen, TablesHoldInformation) {
  SyntheticOptions o;
  o.workloads = {"mlp", "cnn"};
  auto run = make_run(o);
  double spread = 0.2;
  for (auto& c : run.cases) {
    TelemetrySummary t;
    t.energy_j = c.spec.device == "cpu" ? TelemetryFigure::none("no RAPL") : TelemetryFigure::of(12.0, "nvml");
    t.energy_per_step_j = t.energy_j;
    t.max_temperature_c = c.spec.device == "cpu" ? TelemetryFigure::none("no zone") : TelemetryFigure::of(60, "nvml");
    t.mean_clock_mhz = TelemetryFigure::none("no clock");
    c.telemetry = t;
    c.noisy = true;
    c.run_to_run = RunToRun{};
    c.run_to_run->widened = true, c.run_to_run->source = "rounds", c.run_to_run->half_width_log = spread += 0.1;  // each its own figures
  }
  const std::vector<double> losses(10, 1.0);
  for (auto& s : run.speedups) s.parity = Parity{"cpu float32", 10, losses, losses, 0.001, 0.002, 1.0, 1.0, 0.001, 0, ""};
  const auto report = render_terminal_report(run, TerminalReportOptions{.answer_first = true, .max_advice = 5});
  const auto energy = report.substr(report.find("Energy and temperature"));
  const auto energy_table = energy.substr(0, energy.find("\n\n"));
  EXPECT_EQ(energy_table.find(" cpu "), std::string::npos) << energy_table;  // the CPU rows: all n/a
  EXPECT_NE(energy_table.find("cuda:0"), std::string::npos) << energy_table;
  EXPECT_EQ(energy_table.find("throttled"), std::string::npos) << energy_table;
  EXPECT_EQ(report.find("Numerical parity"), std::string::npos) << report;
  EXPECT_NE(report.find("More: "), std::string::npos) << report;
  ASSERT_NE(report.find("Advice"), std::string::npos) << report;
  const auto advice = report.substr(report.find("Advice"));
  std::size_t noisy_items = 0;
  for (std::size_t at = advice.find("compare runs only beyond it"); at != std::string::npos; at = advice.find("compare runs only beyond it", at + 1))
    ++noisy_items;
  EXPECT_EQ(noisy_items, 1u) << advice;
  EXPECT_NE(advice.find("the same rule for "), std::string::npos) << advice;
  EXPECT_NE(report.find("  data  "), std::string::npos) << report;  // synthetic data: said
  // Real data on every row: no column saying so; the rounds' medians: under --verbose.
  for (auto& c : run.cases) {
    c.synthetic_data = false;
    c.rounds = {RoundResult{}, RoundResult{}};
  }
  const auto real = render_terminal_report(run, TerminalReportOptions{.answer_first = true});
  EXPECT_EQ(real.find("  data  "), std::string::npos) << real;
  EXPECT_EQ(real.find("Rounds (each a fresh process"), std::string::npos) << real;
  EXPECT_NE(render_terminal_report(run).find("Rounds (each a fresh process"), std::string::npos);
  // One check that disagrees: its line alone, and that the others agree.
  run.speedups.front().parity->max_loss_rel_diff = 0.2;
  const auto disagreeing = render_terminal_report(run, TerminalReportOptions{.answer_first = true});
  EXPECT_NE(disagreeing.find("Numerical parity"), std::string::npos) << disagreeing;
  EXPECT_NE(disagreeing.find("(the other checks agree within 2%)"), std::string::npos) << disagreeing;
  // --verbose: every check.
  const auto verbose = render_terminal_report(run);
  EXPECT_NE(verbose.find("Numerical parity"), std::string::npos);
}

// A mark in the notes column is explained under the table, where one appears.
TEST(OneScreen, TheMarksAreExplainedWhereTheyAppear) {
  auto run = three_models_on_cpu(1);
  const TerminalReportOptions after_a_run{.answer_first = true};
  EXPECT_EQ(render_terminal_report(run, after_a_run).find("DRIFTING:"), std::string::npos);
  run.cases.front().drifting = true;
  run.cases.back().rounds_disagree = true;
  const auto report = render_terminal_report(run, after_a_run);
  EXPECT_NE(report.find("ROUNDS DISAGREE: its rounds (fresh processes) differ beyond the CI target; DRIFTING: its step "
                        "time still moved when its time ran out."),
            std::string::npos)
      << report;
}

// --graphs on the accelerator alone: the Summary gives the graphs-over-eager speed-ups, and says once
// why there is no speed-up over the CPU.
TEST(OneScreen, TheGraphsSummaryGivesTheGraphsSpeedups) {
  RunResult run;
  std::uint64_t seed = 0;
  for (const char* model : {"mlp", "cnn", "transformer"}) {
    auto eager = make_case(model, "cuda:0", 64, 0.004, 0.01, 20, ++seed);
    auto graphs = make_case(model, "cuda:0", 64, 0.001, 0.01, 20, ++seed);
    graphs.spec.graphs = true;
    run.cases.push_back(eager);
    run.cases.push_back(graphs);
  }
  run.graph_speedups = compute_graph_speedups(run.cases);
  ASSERT_EQ(run.graph_speedups.size(), 3u);
  const auto summary = render_run_summary(run);
  std::size_t graph_lines = 0;
  for (std::size_t at = summary.find("the CUDA graph on cuda:0 ran "); at != std::string::npos;
       at = summary.find("the CUDA graph on cuda:0 ran ", at + 1))
    ++graph_lines;
  EXPECT_EQ(graph_lines, 3u) << summary;
  EXPECT_NE(summary.find("as fast as the eager step (this run 95%)"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("no CPU case"), std::string::npos) << summary;  // every model has its speed-up
  // Without graphs: the reason once, not on every line.
  RunResult eager_only;
  for (const auto& c : run.cases)
    if (!c.spec.graphs) eager_only.cases.push_back(c);
  const auto plain = render_run_summary(eager_only);
  std::size_t reasons = 0;
  for (std::size_t at = plain.find("no CPU case"); at != std::string::npos; at = plain.find("no CPU case", at + 1)) ++reasons;
  EXPECT_EQ(reasons, 1u) << plain;
}

// A range too wide to show: the Summary says why in a few words; what to do about it is the advice's,
// said once.
TEST(OneScreen, TheSummaryLeavesWhatToDoToTheAdvice) {
  auto run = three_models_on_cpu(1);
  for (auto& c : run.cases) {
    c.run_to_run = RunToRun{};
    c.run_to_run->widened = true;
    c.run_to_run->too_wide = "its next run's range would span 90x: this run's rounds moved 6.5x; quiet the machine "
                             "(`accelbench doctor` names what distorts timings) and run again";
  }
  const auto summary = render_run_summary(run);
  EXPECT_NE(summary.find("(next run 95% not shown: its next run's range would span 90x: this run's rounds moved 6.5x)"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("quiet the machine"), std::string::npos) << summary;
}

// One run's absurd interval is clipped at the axis (twice the largest median) and marked; the other
// runs' bars stay readable.
TEST(OneScreen, TheHistoryChartClipsAnAbsurdInterval) {
  BarChartSpec spec{"h", "history", "ms per step", {}, false, std::nullopt, "{:.3g}"};
  spec.items = {{"run 1", "cpu", 18, 17, 19}, {"run 2", "cpu", 17, 16, 25000}, {"run 3", "cpu", 19, 18, 20}};
  spec.axis_max = 2 * 19.0;
  const auto svg = render_bar_chart(spec);
  EXPECT_NE(svg.find("class=\"clipped\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("it reaches 2.5e+04"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(">25000<"), std::string::npos) << svg;  // no tick that far up
  spec.axis_max.reset();
  EXPECT_EQ(render_bar_chart(spec).find("class=\"clipped\""), std::string::npos);
  // The HTML report's history chart sets that axis.
  auto run = three_models_on_cpu(1);
  ReportSource src{run, nlohmann::json(run), "run", {}};
  const auto& c = run.cases.front();
  for (int id = 1; id <= 3; ++id) {
    CaseHistoryPoint p;
    p.run_id = id, p.workload = c.spec.workload, p.device = c.spec.device, p.dtype = c.spec.dtype, p.batch_size = c.spec.batch_size;
    p.median = 0.018, p.ci_low = 0.017, p.ci_high = id == 2 ? 25.0 : 0.019;
    src.history.push_back(p);
  }
  EXPECT_NE(render_html_report(src).find("class=\"clipped\""), std::string::npos);
}
