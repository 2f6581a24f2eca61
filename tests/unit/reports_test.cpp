#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <regex>
#include <sstream>
#include <tuple>

#include "analysis/advisor.h"
#include "analysis/compare.h"
#include "core/durations.h"
#include "core/errors.h"
#include "report/article_reference.h"
#include "report/history_report.h"
#include "report/reports.h"
#include "report/svg_chart.h"
#include "report/sweep_tables.h"
#include "report/terminal_table.h"
#include "support/synthetic_runs.h"
#include "support/text_util.h"

namespace fs = std::filesystem;
using namespace accelbench;
using accelbench::testing::make_run;
using accelbench::testing::SyntheticOptions;
using accelbench::testing::unwrapped;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// The figure element of one chart (from <figure ... data-chart="key"> to </figure>).
std::string figure_of(const std::string& html, const std::string& key) {
  const auto start = html.find("data-chart=\"" + key + "\"");
  if (start == std::string::npos) return "";
  const auto end = html.find("</figure>", start);
  return html.substr(start, end - start);
}

// mlp in float32 and bfloat16 on the CPU and cuda:0; the CPU emulates bfloat16 (4x slower than its
// float32), so cuda:0's bfloat16 case has a speed-up over the CPU's fastest precision (float32): ~10x.
RunResult mixed_precision_run() {
  auto run = make_run(SyntheticOptions{.workloads = {"mlp"}});
  run.cases.clear();
  std::uint64_t seed = 7;
  for (const auto& [device, dtype, median] : std::vector<std::tuple<std::string, std::string, double>>{
           {"cpu", "float32", 0.010}, {"cpu", "bfloat16", 0.040}, {"cuda:0", "float32", 0.002}, {"cuda:0", "bfloat16", 0.001}}) {
    run.cases.push_back(accelbench::testing::make_case("mlp", device, 64, median, 0.001, 20, ++seed));
    run.cases.back().spec.dtype = dtype;
  }
  run.speedups = compute_speedups(run.cases);
  run.speedups_over_fastest_cpu = compute_speedups_over_fastest_cpu(run.cases);
  return run;
}

// The cells of one CSV line without quoted fields (none in these runs).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

// The "speedup" cell of each cuda:0 row of a CSV report, by the row's `key` column (e.g. "dtype").
std::vector<std::pair<std::string, double>> cuda_speedups_by(const std::string& csv, const std::string& key) {
  std::istringstream lines(csv);
  std::string header, line;
  std::getline(lines, header);
  const auto names = csv_cells(header);
  const auto col = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  std::vector<std::pair<std::string, double>> out;
  while (std::getline(lines, line)) {
    const auto cells = csv_cells(line);
    if (cells.at(col("device")) == "cuda:0") out.emplace_back(cells.at(col(key)), std::stod(cells.at(col("speedup"))));
  }
  return out;
}

ReportSource full_source() {
  SyntheticOptions o;
  o.batch_sizes = {32, 64, 128};  // a sweep
  ReportSource src;
  src.run = make_run(o);
  src.document = accelbench::testing::with_telemetry(src.run);
  src.name = "synthetic sweep";
  return src;
}
}  // namespace

TEST(ArticleReference, HasThePublishedFigures) {
  const auto run = article_reference_run();
  EXPECT_TRUE(is_published_run(run));
  EXPECT_FALSE(is_published_run(make_run()));
  EXPECT_EQ(run.cases.size(), 12u);
  ASSERT_EQ(run.speedups.size(), 6u);
  EXPECT_DOUBLE_EQ(article_speedup("mlp"), 1.09);
  EXPECT_DOUBLE_EQ(article_speedup("cnn"), 1.89);
  EXPECT_DOUBLE_EQ(article_speedup("transformer"), 2.26);
  EXPECT_DOUBLE_EQ(article_speedup("dcgan"), 2.04);
  EXPECT_EQ(run.context.torch_version, "2.5.1");
  EXPECT_DOUBLE_EQ(run.cases[4].stats.median, 654.8);  // transformer on the CPU
  EXPECT_DOUBLE_EQ(run.cases[5].stats.median, 289.3);
  EXPECT_TRUE(run.cases[0].samples.empty());            // no samples: published, not measured
  // it serializes as an ordinary run
  const RunResult back = nlohmann::json(run).get<RunResult>();
  EXPECT_TRUE(is_published_run(back));
}

TEST(Reports, MarkdownMirrorsTheArticleTables) {
  ReportSource src{make_run(), {}, "run 1"};
  const auto md = render_markdown_report(src);
  EXPECT_NE(md.find("# accelbench report: run 1"), std::string::npos);
  EXPECT_NE(md.find("| model, C++ loop | CPU s/epoch | cuda:0 s/epoch | speed-up cuda:0 [this run 95%] |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| transformer |"), std::string::npos);
  // the article's figures in their own section only, never in a column beside the user's
  const auto own = md.find("## The article's figures");
  ASSERT_NE(own, std::string::npos) << md;
  EXPECT_EQ(md.find("1.09x"), md.rfind("1.09x")) << md;
  EXPECT_GT(md.find("2.26x |"), own) << md;
  EXPECT_NE(md.find("| speed-up (article) |\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("speed-up (this run)"), std::string::npos) << md;
  // a run of the CPU alone: no column of speed-ups it has none of
  auto cpu_only = make_run();
  std::erase_if(cpu_only.cases, [](const CaseResult& c) { return c.spec.device != "cpu"; });
  cpu_only.speedups.clear();
  for (const auto& text : {render_markdown_report(ReportSource{cpu_only, {}, "run 2"}),
                           render_html_report(ReportSource{cpu_only, {}, "run 2"})}) {
    EXPECT_EQ(text.find("speed-up (this run)"), std::string::npos) << text;
    EXPECT_EQ(text.find("article (M2"), std::string::npos) << text;
  }
  EXPECT_NE(md.find("| BERT-base text classification (section 6) | 326 s/epoch | 148 s/epoch | 2.20x |"), std::string::npos) << md;
  const auto art = render_markdown_report(ReportSource{article_reference_run(), {}, kArticleRunName});
  EXPECT_NE(art.find("Published figures, not measurements"), std::string::npos);
  EXPECT_NE(art.find("| mlp | 42.3 s | 38.7 s | 1.09x |"), std::string::npos) << art;
  // Said once, and no core counts the article does not give.
  for (const auto& text : {art, render_html_report(ReportSource{article_reference_run(), {}, kArticleRunName})}) {
    EXPECT_EQ(text.find("not measurements"), text.rfind("not measurements")) << text;
    EXPECT_EQ(text.find("0 physical"), std::string::npos) << text;
  }
}

TEST(Reports, CsvHasOneRowPerCaseAndQuotes) {
  auto run = make_run();
  run.context.host = "host, with \"comma\"";
  const auto csv = render_csv_report(ReportSource{run, {}, "x"});
  std::istringstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("run_id,run_uid,published,", 0), 0u);
  const auto columns = count(header, ",") + 1;
  std::string line;
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    // commas inside the quoted host field do not count
    const auto unquoted = std::regex_replace(line, std::regex("\"([^\"]|\"\")*\""), "Q");
    EXPECT_EQ(count(unquoted, ",") + 1, columns) << line;
    EXPECT_NE(line.find("\"host, with \"\"comma\"\"\""), std::string::npos);
  }
  EXPECT_EQ(rows, run.cases.size());
}

TEST(Reports, HtmlIsSelfContainedWithEveryChartAndItsTable) {
  const auto src = full_source();
  const auto html = render_html_report(src);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // self-contained: no external resource of any kind
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(count(html, "http"), count(html, "http://www.w3.org/2000/svg") + count(html, "http-equiv"));
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_EQ(count(html, "<figure class=\"chart\""), 6u);  // all six drawn, none empty
  EXPECT_EQ(count(html, "<figure class=\"chart empty\""), 0u);
  const auto speedup = figure_of(html, "speedup");
  EXPECT_EQ(count(speedup, "<rect class=\"bar\""), 9u);      // 3 workloads x 3 batch sizes on cuda:0
  EXPECT_EQ(count(speedup, "<rect class=\"ref-bar\""), 0u);  // the article's figures are in their own section
  EXPECT_EQ(count(speedup, "class=\"whisker\""), 9u);
  EXPECT_EQ(count(speedup, "class=\"baseline\""), 1u);
  EXPECT_NE(speedup.find("<table class=\"chart-data\">"), std::string::npos);
  const auto step = figure_of(html, "step-time");
  EXPECT_EQ(count(step, "<rect class=\"bar\""), 18u);
  EXPECT_EQ(count(step, "class=\"whisker\""), 18u);
  for (const char* key : {"sweep-throughput", "sweep-memory"}) {
    const auto f = figure_of(html, key);
    EXPECT_EQ(count(f, "<polyline class=\"series\""), 6u) << key;  // 3 workloads x 2 devices
    EXPECT_EQ(count(f, "<circle class=\"point\""), 18u) << key;
    EXPECT_NE(f.find("<table class=\"chart-data\">"), std::string::npos);
  }
  for (const char* key : {"power", "temperature"}) {
    const auto f = figure_of(html, key);
    EXPECT_EQ(count(f, "<polyline class=\"series\""), 9u) << key;  // the accelerator cases
    EXPECT_NE(f.find("<table class=\"chart-data\">"), std::string::npos);
  }
  // ids are unique (each bar chart its own hatch pattern)
  std::regex id_re("id=\"([^\"]+)\"");
  std::set<std::string> ids;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), id_re); it != std::sregex_iterator(); ++it)
    EXPECT_TRUE(ids.insert((*it)[1]).second) << "duplicate id " << (*it)[1];
}

TEST(Reports, HtmlWithoutSweepOrTelemetrySaysSo) {
  const auto html = render_html_report(ReportSource{make_run(), {}, "run 1"});
  EXPECT_EQ(count(html, "<figure class=\"chart\""), 2u);
  // No empty panel: what the run lacks is one list, each item with its reason.
  EXPECT_EQ(count(html, "<figure class=\"chart empty\""), 0u);
  // sweep throughput and memory, power, temperature, history, utilisation (no ceilings)
  EXPECT_EQ(count(html, "<li data-absent="), 6u);
  EXPECT_NE(html.find("<h3>Not in this run</h3>"), std::string::npos);
  EXPECT_NE(html.find("No sweep in this run"), std::string::npos);
  EXPECT_NE(html.find("No telemetry in this run"), std::string::npos);
  EXPECT_NE(html.find("No stored history for this run"), std::string::npos);
  // escaping
  auto run = make_run();
  run.context.host = "<script>alert(1)</script>";
  const auto esc = render_html_report(ReportSource{run, {}, "x"});
  EXPECT_EQ(esc.find("<script>alert"), std::string::npos);
  EXPECT_NE(esc.find("&lt;script&gt;alert(1)"), std::string::npos);
  const auto art = render_html_report(ReportSource{article_reference_run(), {}, kArticleRunName});
  EXPECT_NE(art.find("Published figures, not measurements."), std::string::npos);
  EXPECT_EQ(count(figure_of(art, "speedup"), "<rect class=\"ref-bar\""), 6u);
}

// History: a chart per case of the run stored at least twice, its median per stored run with
// the run's interval, linear, in ms; a case stored once gets none.
TEST(Reports, HtmlHistoryChartForEachCaseStoredTwice) {
  ReportSource src{make_run(), {}, "run 3"};
  const auto& c = src.run.cases.at(0);
  for (int id = 1; id <= 3; ++id) {
    CaseHistoryPoint p;
    p.run_id = id;
    p.workload = c.spec.workload;
    p.device = c.spec.device;
    p.dtype = c.spec.dtype;
    p.batch_size = c.spec.batch_size;
    p.n = 20;
    p.median = 0.010 + 0.001 * id;
    p.ci_low = p.median - 0.0005;
    p.ci_high = p.median + 0.0005;
    src.history.push_back(p);
  }
  auto other = src.history.back();  // another case, stored once: no chart
  other.workload = "not-in-this-run";
  src.history.push_back(other);
  const auto html = render_html_report(src);
  const auto f = figure_of(html, "history-0");
  ASSERT_FALSE(f.empty()) << html;
  EXPECT_EQ(count(f, "<rect class=\"bar\""), 3u);
  EXPECT_EQ(count(f, "class=\"whisker\""), 3u);
  EXPECT_NE(f.find("ms per step"), std::string::npos);
  EXPECT_EQ(f.find("log scale"), std::string::npos);
  EXPECT_NE(f.find("<td>run 2</td>"), std::string::npos);
  EXPECT_NE(f.find("<td>12.00 ms</td><td>+-4.2%</td>"), std::string::npos) << f;  // run 2: median 12 ms, 11.5 to 12.5 ms
  EXPECT_NE(f.find("<th>this run 95%</th>"), std::string::npos) << f;
  EXPECT_EQ(html.find("data-chart=\"history-1\""), std::string::npos);
  EXPECT_EQ(html.find("data-absent=\"history\""), std::string::npos);
}

TEST(Reports, FormatsAndTelemetryParsing) {
  EXPECT_EQ(normalize_report_format("MD"), "md");
  EXPECT_EQ(normalize_report_format("markdown"), "md");
  EXPECT_EQ(normalize_report_format("html"), "html");
  EXPECT_THROW(normalize_report_format("pdf"), UsageError);
  nlohmann::json doc = {{"telemetry", {{"t_s", {0, 1, 2}}, {"power_w", {10, 11, 12}}}}, {"cases", nlohmann::json::array()}};
  const auto t = telemetry_curves(doc);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].t_s.size(), 3u);
  EXPECT_DOUBLE_EQ(t[0].power_w[2], 12);
  EXPECT_TRUE(std::isnan(t[0].temperature_c[0]));
  EXPECT_TRUE(telemetry_curves(nlohmann::json::object()).empty());
}

TEST(Reports, AtomicWriteLeavesNoPartialFile) {
  const auto dir = fs::temp_directory_path() / fmt::format("accelbench-reports-{}", ::getpid());
  fs::create_directories(dir);
  const auto good = (dir / "r.md").string();
  write_text_atomically(good, "hello\n");
  std::ifstream in(good);
  std::string s;
  std::getline(in, s);
  EXPECT_EQ(s, "hello");
  const auto bad = (dir / "no-such-dir" / "r.md").string();
  try {
    write_text_atomically(bad, "x");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_THROW(write_text_atomically(dir.string(), "x"), UsageError);  // a directory
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1u);  // only r.md: no temporary left behind
  fs::remove_all(dir);
}

TEST(Reports, HtmlDrawsAPrecisionSweepAndACrossover) {
  using nlohmann::json;
  auto sp = [](double r, double lo, double hi) { return json{{"ratio", r}, {"low", lo}, {"high", hi}}; };
  json precision = {{"kind", "precision"}, {"model", "bert-base"}, {"device", "cuda:0"},
                    {"points", json::array({
                        {{"precision", "float32"}, {"speedup", sp(1, 1, 1)}, {"parity", nullptr}, {"parity_ok", nullptr}},
                        {{"precision", "bfloat16"}, {"speedup", sp(3.75, 3.70, 3.76)},
                         {"parity", {{"steps", 10}, {"error", ""}, {"loss_rel_diff", 0.00016}}}, {"parity_ok", true}},
                        {{"precision", "float16"}, {"speedup", nullptr}, {"parity", nullptr}, {"parity_ok", nullptr}}})}};
  auto html = render_html_report(ReportSource{make_run(), json{{"sweep", precision}}, "run 1"});
  auto f = figure_of(html, "sweep-precision");
  EXPECT_EQ(count(f, "<rect class=\"bar\""), 2u) << f;  // float16 has no speed-up: no bar
  EXPECT_EQ(count(f, "class=\"baseline\""), 1u);      // 1x
  EXPECT_NE(f.find("3.75x [3.70, 3.76]"), std::string::npos) << f;
  EXPECT_NE(f.find("0.016%"), std::string::npos);
  EXPECT_EQ(html.find("data-chart=\"sweep-crossover\""), std::string::npos);

  json crossover = {{"kind", "crossover"}, {"axis", "batch"}, {"model", "mlp"}, {"device", "cuda:0"},
                    {"crossover", {{"text", "the accelerator overtakes the CPU at batch 16 and stays ahead"}}},
                    {"points", json::array({{{"x", 8}, {"speedup", sp(1.01, 0.99, 1.03)}},
                                            {{"x", 16}, {"speedup", sp(1.58, 1.56, 1.61)}},
                                            {{"x", 32}, {"speedup", nullptr}}})}};
  html = render_html_report(ReportSource{make_run(), json{{"sweep", crossover}}, "run 2"});
  f = figure_of(html, "sweep-crossover");
  EXPECT_EQ(count(f, "<polyline class=\"series\""), 4u) << f;  // speed-up, CI low, CI high, break-even
  EXPECT_NE(f.find("overtakes the CPU at batch 16"), std::string::npos);
  EXPECT_NE(f.find("1.58x [1.56, 1.61]"), std::string::npos) << f;
  // A block it cannot read draws nothing and does not throw.
  html = render_html_report(ReportSource{make_run(), json{{"sweep", {{"kind", "crossover"}}}}, "run 3"});
  EXPECT_EQ(html.find("data-chart=\"sweep-crossover\""), std::string::npos);
}

// Each round's median, the disagreement and the device's busy share reach the HTML's case table.
TEST(Reports, HtmlShowsRoundsAndTheDevicesBusyShare) {
  auto run = make_run();
  ASSERT_FALSE(run.cases.empty());
  auto& c = run.cases.front();
  c.rounds = {RoundResult{0.00180}, RoundResult{0.00210}, RoundResult{0.00175}};
  c.rounds_disagree = true;
  c.device_busy_fraction = 0.25;
  c.launch_bound = true;
  const auto html = render_html_report(ReportSource{run, {}, "run 1"});
  EXPECT_NE(html.find("rounds: 1.800 ms, 2.100 ms, 1.750 ms (ROUNDS DISAGREE)"), std::string::npos);
  EXPECT_NE(html.find("device busy 25% of the step: LAUNCH-BOUND"), std::string::npos);
}

// A case with one sample has no interval: "-" in Markdown and HTML (as in the terminal table), empty
// CI fields in the CSV, never "0.0%".
TEST(Reports, OneSampleCaseHasNoIntervalInAnyFormat) {
  auto run = make_run();
  auto& c = run.cases.front();
  c.samples = {0.5};
  c.stats = summarize(c.samples);
  c.relative_ci_half_width = 0;
  const ReportSource src{run, {}, "x"};
  const auto median = format_seconds_short(0.5);
  const auto md = render_markdown_report(src);
  EXPECT_NE(md.find("| " + median + " | - | 1 |"), std::string::npos) << md;
  const auto html = render_html_report(src);
  EXPECT_NE(html.find(median + "</td><td>-</td><td>1</td>"), std::string::npos);
  const auto csv = render_csv_report(src);
  EXPECT_NE(csv.find(",1,0.5,,,"), std::string::npos) << csv;
}

// --graphs: a sweep of graphs cases says so in its title and its JSON.
TEST(Reports, AGraphsSweepIsLabelledAsOne) {
  BatchSweep s;
  s.model = "mlp";
  s.device = "cuda:0";
  s.dtype = "float32";
  s.graphs = true;
  s.from = 8;
  s.to = 64;
  const auto text = render_batch_sweep(make_run(), s);
  EXPECT_NE(text.find("batch sweep: mlp[graphs] on cuda:0"), std::string::npos) << text;
  EXPECT_TRUE(nlohmann::json(s).get<BatchSweep>().graphs);
  PrecisionSweep p;
  p.model = "mlp";
  p.graphs = true;
  EXPECT_EQ(sweep_model_label(p), "mlp[graphs]");
}

// The HTML has a chart of each case's share of the measured ceiling, with the busy share and
// the verdict in its table, when the run has ceilings.
TEST(Reports, HtmlChartsTheUtilisationOfEachCase) {
  auto run = make_run();
  for (auto& c : run.cases) {
    if (c.spec.device == "cpu") continue;
    c.ceiling_share = 0.25;
    c.achieved_flops_per_s = 200e12;
    c.device_busy_fraction = 0.99;
    c.bound = "memory-bound";
  }
  const auto html = render_html_report(ReportSource{run, {}, "run 1"});
  const auto fig = figure_of(html, "utilisation");
  ASSERT_FALSE(fig.empty()) << html;
  EXPECT_NE(fig.find("<table class=\"chart-data\">"), std::string::npos);
  EXPECT_NE(fig.find("25.0%"), std::string::npos) << fig;
  EXPECT_NE(fig.find("memory-bound"), std::string::npos) << fig;
  EXPECT_EQ(html.find("data-absent=\"utilisation\""), std::string::npos);
}

// The Markdown states each accelerator case's speed-up over the CPU's fastest precision, with
// the precision it is over, in a table of its own with a note; a run without one has neither.
TEST(Reports, MarkdownShowsTheSpeedupOverTheCpusFastestPrecision) {
  const auto run = mixed_precision_run();
  ASSERT_EQ(run.speedups_over_fastest_cpu.size(), 1u);
  const auto& s = run.speedups_over_fastest_cpu[0];
  ASSERT_EQ(s.baseline_dtype, "float32");
  const auto figure = format_ratio_ci(s.ratio, s.ci_low, s.ci_high);
  EXPECT_EQ(figure.rfind("10.0", 0), 0u) << figure;
  const auto md = render_markdown_report(ReportSource{run, {}, "run 1"});
  EXPECT_NE(md.find("| model | dtype | device | batch | speed-up over the CPU's fastest [this run 95%] |"), std::string::npos) << md;
  EXPECT_NE(md.find("| mlp | bfloat16 | cuda:0 | 64 | " + figure + " (cpu float32) |"), std::string::npos) << md;
  EXPECT_EQ(count(md, "(cpu float32)"), 1u) << "only cuda:0's bfloat16 case: float32's own is the CPU's fastest";
  EXPECT_NE(md.find("speed-up over the CPU's fastest measured precision"), std::string::npos) << md;

  const auto plain = render_markdown_report(ReportSource{make_run(), {}, "run 1"});
  EXPECT_EQ(plain.find("over the CPU's fastest"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("(cpu "), std::string::npos) << plain;
}

TEST(Reports, HtmlShowsTheSpeedupOverTheCpusFastestPrecision) {
  const auto run = mixed_precision_run();
  ASSERT_EQ(run.speedups_over_fastest_cpu.size(), 1u);
  const auto& s = run.speedups_over_fastest_cpu[0];
  const auto figure = format_ratio_ci(s.ratio, s.ci_low, s.ci_high);
  const auto html = render_html_report(ReportSource{run, {}, "run 1"});
  // The apostrophe is escaped in HTML: the header as the page shows it.
  EXPECT_NE(html.find("<th>speed-up over the CPU" + xml_escape("'") + "s fastest [this run 95%]</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>mlp</td><td>bfloat16</td><td>cuda:0</td><td>64</td><td>" + figure + " (cpu float32)</td>"),
            std::string::npos)
      << html;
  EXPECT_EQ(count(html, "(cpu float32)"), 1u);
  EXPECT_NE(html.find("speed-up over the CPU&#39;s fastest measured precision"), std::string::npos);

  const auto plain = render_html_report(ReportSource{make_run(), {}, "run 1"});
  EXPECT_EQ(plain.find("over the CPU&#39;s fastest"), std::string::npos);
  EXPECT_EQ(plain.find("over-fastest-cpu"), std::string::npos);
  EXPECT_EQ(plain.find("(cpu "), std::string::npos);
}

// The CSV: four columns after the model, filled on the row of the case that has a speed-up over the
// CPU's fastest precision and empty on every other row; the numerics column after them; the next
// run's ranges last (empty: no interval was widened).
TEST(Reports, CsvAppendsTheSpeedupOverTheCpusFastestPrecision) {
  const auto run = mixed_precision_run();
  ASSERT_EQ(run.speedups_over_fastest_cpu.size(), 1u);
  const auto& s = run.speedups_over_fastest_cpu[0];
  std::istringstream in(render_csv_report(ReportSource{run, {}, "x"}));
  std::string line;
  std::getline(in, line);
  const auto header = csv_cells(line);
  ASSERT_EQ(header.size(), 44u) << line;
  EXPECT_EQ(header[26], "speedup");
  EXPECT_EQ(header[30], "model");
  EXPECT_EQ(std::vector<std::string>(header.begin() + 31, header.end()),
            (std::vector<std::string>{"speedup_over_fastest_cpu", "speedup_over_fastest_cpu_this_run_95_low",
                                      "speedup_over_fastest_cpu_this_run_95_high", "speedup_over_fastest_cpu_baseline_dtype",
                                      "numerics", "impl", "compile", "next_run_95_low_s", "next_run_95_high_s",
                                      "speedup_next_run_95_low", "speedup_next_run_95_high",
                                      "speedup_over_fastest_cpu_next_run_95_low", "speedup_over_fastest_cpu_next_run_95_high"}));
  std::size_t filled = 0, rows = 0;
  while (std::getline(in, line)) {
    const auto f = csv_cells(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    ++rows;
    if (f[8] == "cuda:0" && f[9] == "bfloat16") {
      ++filled;
      EXPECT_EQ(f[31], fmt::format("{:.9g}", s.ratio)) << line;
      EXPECT_NEAR(std::stod(f[31]), 10.0, 0.1) << line;
      EXPECT_EQ(f[32], fmt::format("{:.9g}", s.ci_low));
      EXPECT_EQ(f[33], fmt::format("{:.9g}", s.ci_high));
      EXPECT_EQ(f[34], "float32");
    } else {
      EXPECT_EQ(f[31] + f[32] + f[33] + f[34], "") << line;
    }
    EXPECT_EQ(f[38] + f[39] + f[40] + f[41] + f[42] + f[43], "") << line;
  }
  EXPECT_EQ(rows, 4u);
  EXPECT_EQ(filled, 1u);

  // a run without any: the same columns, empty
  std::istringstream plain(render_csv_report(ReportSource{make_run(), {}, "x"}));
  std::getline(plain, line);
  EXPECT_EQ(csv_cells(line).size(), 44u);
  while (std::getline(plain, line)) {
    const auto f = csv_cells(line);
    ASSERT_EQ(f.size(), 44u) << line;
    EXPECT_EQ(f[31] + f[32] + f[33] + f[34], "") << line;
  }
}

// A case's choice of numerics (bert-base's 16-bit residual stream) is in the Markdown and HTML
// reports' notes too, and in the CSV's last column; a run without one says nothing of it.
TEST(Reports, NumericsAreSaidInMarkdownHtmlAndCsv) {
  ReportSource src;
  src.name = "test";
  src.run = mixed_precision_run();
  src.run.cases[3].numerics = "residual stream in bfloat16";
  EXPECT_NE(render_markdown_report(src).find("residual stream in bfloat16"), std::string::npos);
  EXPECT_NE(render_html_report(src).find("residual stream in bfloat16"), std::string::npos);
  // CSV: the "numerics" column of that case's row; empty in the others.
  {
    std::istringstream lines(render_csv_report(src));
    std::string line;
    std::getline(lines, line);
    const auto header = csv_cells(line);
    const auto column = std::find(header.begin(), header.end(), "numerics") - header.begin();
    ASSERT_LT(column, static_cast<std::ptrdiff_t>(header.size()));
    std::vector<std::string> last;
    while (std::getline(lines, line)) last.push_back(csv_cells(line).at(column));
    ASSERT_EQ(last.size(), src.run.cases.size());
    for (std::size_t i = 0; i < last.size(); ++i) EXPECT_EQ(last[i], i == 3 ? "residual stream in bfloat16" : "") << i;
  }
  src.run.cases[3].numerics.clear();
  EXPECT_EQ(render_markdown_report(src).find("residual stream"), std::string::npos);
  EXPECT_EQ(render_html_report(src).find("residual stream"), std::string::npos);
  EXPECT_EQ(render_csv_report(src).find("residual stream"), std::string::npos);
}

// A run of two precisions: the first table of the Markdown and HTML reports has a row per model and
// precision, each with its own precision's speed-up (it showed float32's 5x on both rows), the CSV's
// speed-up cells are the row's own precision's, and the HTML chart's bars name their precision.
TEST(Reports, EachPrecisionRowShowsItsOwnSpeedup) {
  const auto run = mixed_precision_run();
  const auto line_starting = [](const std::string& text, const std::string& start) {
    const auto at = text.find("\n" + start);
    return at == std::string::npos ? std::string() : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
  };
  const auto md = render_markdown_report(ReportSource{run, {}, "run 1"});
  const auto fp32 = line_starting(md, "| mlp float32 |"), bf16 = line_starting(md, "| mlp bfloat16 |");
  ASSERT_FALSE(fp32.empty()) << md;
  ASSERT_FALSE(bf16.empty()) << md;
  const auto speedup_in = [](const std::string& row) {  // the number before "x [" (the row's one speed-up)
    const auto x = row.find("x [");
    const auto bar = row.rfind("| ", x);
    return x == std::string::npos || bar == std::string::npos ? 0.0 : std::stod(row.substr(bar + 2, x - bar - 2));
  };
  EXPECT_NEAR(speedup_in(fp32), 5.0, 0.1) << fp32;
  EXPECT_NEAR(speedup_in(bf16), 40.0, 0.5) << bf16;

  const auto html = render_html_report(ReportSource{run, {}, "run 1"});
  EXPECT_NE(html.find("<td>mlp bfloat16</td>"), std::string::npos);
  EXPECT_NE(html.find("cuda:0 bfloat16"), std::string::npos);

  const auto by_dtype = cuda_speedups_by(render_csv_report(ReportSource{run, {}, "run 1"}), "dtype");
  ASSERT_EQ(by_dtype.size(), 2u);
  for (const auto& [dtype, speedup] : by_dtype) EXPECT_NEAR(speedup, dtype == "bfloat16" ? 40.0 : 5.0, 0.5) << dtype;
}

// A run with two batch sizes (a batch sweep read back by `report`): each batch's row shows its own
// speed-up in every format, not the first batch's.
TEST(Reports, EachBatchRowShowsItsOwnSpeedup) {
  auto run = make_run(SyntheticOptions{.workloads = {"mlp"}});
  run.cases.clear();
  std::uint64_t seed = 11;
  for (const auto& [device, batch, median] : std::vector<std::tuple<std::string, std::int64_t, double>>{
           {"cpu", 32, 0.010}, {"cuda:0", 32, 0.002}, {"cpu", 128, 0.040}, {"cuda:0", 128, 0.002}})
    run.cases.push_back(accelbench::testing::make_case("mlp", device, batch, median, 0.001, 20, ++seed));
  run.speedups = compute_speedups(run.cases);
  ASSERT_EQ(run.speedups.size(), 2u);
  const auto rows = report_rows(run);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "mlp b32");
  EXPECT_EQ(rows[1].label, "mlp b128");
  const auto speedup_after = [](const std::string& text, const std::string& start) {  // the number before "x ["
    const auto at = text.find(start);
    if (at == std::string::npos) return 0.0;
    const auto x = text.find("x [", at);
    if (x == std::string::npos) return 0.0;
    auto from = x;
    while (from > 0 && (std::isdigit(static_cast<unsigned char>(text[from - 1])) || text[from - 1] == '.')) --from;
    return from == x ? 0.0 : std::stod(text.substr(from, x - from));
  };
  const auto md = render_markdown_report(ReportSource{run, {}, "run 1"});
  EXPECT_NEAR(speedup_after(md, "| mlp b32 |"), 5.0, 0.1) << md;
  EXPECT_NEAR(speedup_after(md, "| mlp b128 |"), 20.0, 0.3) << md;
  const auto terminal = render_terminal_report(run);
  EXPECT_NEAR(speedup_after(terminal, "\nmlp b32 "), 5.0, 0.1) << terminal;
  EXPECT_NEAR(speedup_after(terminal, "\nmlp b128 "), 20.0, 0.3) << terminal;
  const auto html = render_html_report(ReportSource{run, {}, "run 1"});
  EXPECT_NEAR(speedup_after(html, "<td>mlp b128</td>"), 20.0, 0.3);
  const auto by_batch = cuda_speedups_by(render_csv_report(ReportSource{run, {}, "run 1"}), "batch_size");
  ASSERT_EQ(by_batch.size(), 2u);
  for (const auto& [batch, speedup] : by_batch) EXPECT_NEAR(speedup, batch == "128" ? 20.0 : 5.0, 0.3) << batch;
}

// A case whose range comes from the named fallback constant (one round, no history): the table's
// column, headed "next run 95%", shows that range (the case's stats), the note names the constant,
// and the noisy note keeps the measurement's own precision.
TEST(Reports, TheCiColumnShowsTheIntervalThePriorWidened) {
  auto run = make_run(SyntheticOptions{.workloads = {"mlp"}});
  run.cases.resize(1);
  auto& c = run.cases[0];
  c.stats.median = 1e-3;
  c.stats.ci_low = 1e-3 / 1.8;
  c.stats.ci_high = 1.8e-3;
  c.relative_ci_half_width = 0.05;  // the rounds' own
  c.noisy = true;
  RunToRun rr;
  rr.half_width_log = std::log(1.8);
  rr.widened = true;
  rr.source = "fallback";
  rr.prior_sd_log = 0.13;
  rr.prior_basis = "the CPU: host-bound";
  c.run_to_run = rr;
  run.speedups.clear();
  const auto terminal = render_terminal_report(run);
  EXPECT_NE(terminal.find("-44/+80%"), std::string::npos) << terminal;
  EXPECT_EQ(terminal.find("+-5.0%  "), std::string::npos) << terminal;
  EXPECT_NE(unwrapped(terminal).find("noisy (this run 95% +-5.0% > target 2.0%)"), std::string::npos) << terminal;
  EXPECT_NE(unwrapped(terminal).find("CI: fallback constant"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("next run 95%"), std::string::npos) << terminal;
}

// The words under the speed-ups: which device is faster and by how much where the range excludes 1;
// where it does not, that this run cannot tell, and what would narrow it.
TEST(Reports, SpeedupWordsSayWhichDeviceIsFasterOrThatThisRunCannotTell) {
  Speedup s{"mlp", "cuda:0", "cpu", 64, "float32", 4.5, 2.0, 10.0};
  s.widened_by_history = true;
  EXPECT_EQ(speedup_words(s), "mlp: cuda:0 is faster than the cpu by 4.50x [2.00, 10.00] (next run 95%)");
  s.ratio = 0.5, s.ci_low = 0.4, s.ci_high = 0.6;  // the cpu's speed-up over cuda:0: 2x [1/0.6, 1/0.4]
  EXPECT_EQ(speedup_words(s), "mlp: the cpu is faster than cuda:0 by 2.00x [1.67, 2.50] (next run 95%)");
  s.ratio = 1.16, s.ci_low = 0.9, s.ci_high = 1.5;
  const auto cannot = speedup_words(s);
  EXPECT_NE(cannot.find("this run cannot tell whether cuda:0 or the cpu is faster"), std::string::npos) << cannot;
  EXPECT_NE(cannot.find("--graphs"), std::string::npos) << cannot;
  EXPECT_NE(cannot.find("--rounds"), std::string::npos) << cannot;
  EXPECT_EQ(speedup_interval_name({s}), "next run 95%");
  s.widened_by_history = false;
  EXPECT_EQ(speedup_interval_name({s}), "this run 95%");
}

// -------------------------------------------------------------------------------------------------
// Output that fits: wrapping, tables narrowed to a width (second table, wrapped cells), colour words,
// the width from COLUMNS; the history prune selection.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/fit_check.h"
#include "report/terminal.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "support/synthetic_runs.h"
#include "unit/test_files.h"

using namespace accelbench;

namespace {

std::size_t longest_line(const std::string& text) {
  std::size_t best = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) best = std::max(best, display_width(line));
  return best;
}

std::vector<std::vector<std::string>> wide_rows() {
  std::vector<std::vector<std::string>> t{{"model", "device", "dtype", "batch", "median step", "95% CI", "n", "samples/s",
                                           "TFLOP/s", "peak memory", "loss before->after", "data", "notes"}};
  for (int i = 0; i < 3; ++i)
    t.push_back({"transformer", "cpu", "float32", "64", "123.4 ms", "+-1.2%", "10", "12.3k", "0.123", "1.2 GiB",
                 "2.345->2.101", "synthetic",
                 "noisy (only 5 samples in the time allowed); 2 samples before a level change dropped; 1 outliers"});
  return t;
}

}  // namespace

TEST(Terminal, WrapsLongLinesWithAHangingIndent) {
  const std::string line = "  --parity-steps INT=5        Numerical parity beside each speed-up: train K steps on the "
                           "device and on the CPU from the same weights and batches (dropout off)";
  const auto out = wrap_lines(line + "\nshort\n", 60);
  EXPECT_LE(longest_line(out), 60u) << out;
  EXPECT_NE(out.find("\n                              "), std::string::npos) << out;  // continuation under the text
  EXPECT_NE(out.find("\nshort\n"), std::string::npos);
  // a word longer than the line is cut, never left over-long
  EXPECT_LE(longest_line(wrap_lines(std::string(250, 'x'), 100)), 100u);
  EXPECT_EQ(wrap_lines("fits", 10), "fits");
}

TEST(Terminal, WideTableBecomesTablesThatFit) {
  const auto rows = wide_rows();
  const auto natural = render_table(rows, 3, 1000);
  EXPECT_GT(longest_line(natural), 200u);  // the table as it was: one line per row
  for (std::size_t width : {100u, 80u, 60u}) {
    const auto fitted = render_table(rows, 3, width);
    EXPECT_LE(longest_line(fitted), width) << fitted;
    for (const char* cell : {"123.4 ms", "2.345->2.101", "0.123", "1.2 GiB"}) EXPECT_NE(fitted.find(cell), std::string::npos) << cell;
    EXPECT_NE(fitted.find("noisy"), std::string::npos);
    // the key column is repeated in each table
    std::size_t headers = 0;
    for (auto p = fitted.find("model"); p != std::string::npos; p = fitted.find("model", p + 1)) ++headers;
    EXPECT_GE(headers, 2u) << fitted;
  }
}

TEST(Terminal, NarrowTableIsUnchanged) {
  const std::vector<std::vector<std::string>> t{{"a", "b"}, {"x", "1"}};
  EXPECT_EQ(render_table(t, 1, 100), "a  b\n----\nx  1\n");
}

TEST(Terminal, ColourWordsOnly) {
  const auto c = colourize("1 SLOWER, 2 FASTER; SLOWERS noisy FAILED: x");
  EXPECT_NE(c.find("\033[31mSLOWER\033[0m,"), std::string::npos) << c;
  EXPECT_NE(c.find("\033[32mFASTER\033[0m"), std::string::npos);
  EXPECT_NE(c.find(" SLOWERS "), std::string::npos);  // not a whole word
  EXPECT_EQ(display_width(c), display_width("1 SLOWER, 2 FASTER; SLOWERS noisy FAILED: x"));
}

TEST(Terminal, WidthFromColumnsElseHundred) {
  ::setenv("COLUMNS", "123", 1);
  EXPECT_EQ(output_width(1), 123u);
  ::setenv("COLUMNS", "5", 1);
  EXPECT_EQ(output_width(1), kMinOutputWidth);
  ::unsetenv("COLUMNS");
  if (!::isatty(1)) EXPECT_EQ(output_width(1), kDefaultOutputWidth);
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(colour_enabled(1));
  ::unsetenv("NO_COLOR");
}

TEST(HistoryPrune, ByAgeAndByCount) {
  std::vector<StoredRunInfo> runs;
  const char* stored[] = {"2026-01-01T00:00:00Z", "2026-05-01T00:00:00Z", "2026-09-01T00:00:00Z", "2026-11-29T00:00:00Z"};
  for (int i = 0; i < 4; ++i) {
    StoredRunInfo r;
    r.id = i + 1;
    r.stored_utc = stored[i];
    runs.push_back(r);
  }
  const auto cutoff = utc_seconds_before("2026-11-30T00:00:00Z", 90 * 86400.0);
  EXPECT_EQ(cutoff, "2026-09-01T00:00:00Z");
  EXPECT_EQ(runs_to_prune(runs, cutoff, 0), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(runs_to_prune(runs, "", 1), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(runs_to_prune(runs, "", 10), (std::vector<std::int64_t>{}));
  EXPECT_EQ(runs_to_prune(runs, cutoff, 3), (std::vector<std::int64_t>{1, 2}));
}

TEST(HistoryPrune, RemoveRunsDeletesTheirCasesAndSpeedups) {
  accelbench::testing::TempDir dir;
  HistoryStore store(dir.file("h.db"));
  for (int i = 0; i < 3; ++i) store.save_run(accelbench::testing::make_run());
  ASSERT_EQ(store.list_runs().size(), 3u);
  EXPECT_EQ(store.remove_runs({1, 3}), 2u);
  const auto left = store.list_runs();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].id, 2);
  for (const auto& p : store.case_history()) EXPECT_EQ(p.run_id, 2);
  EXPECT_EQ(store.remove_runs({7}), 0u);  // not there: nothing removed
  EXPECT_EQ(store.list_runs().size(), 1u);
}

TEST(FitCheck, ACaseWhoseStoredStepCannotFitItsShareIsNamedBeforeMeasuring) {
  std::vector<CaseHistoryPoint> history(3);
  history[0] = {.run_id = 4, .workload = "transformer", .device = "cpu", .dtype = "float32", .batch_size = 64, .median = 9.0};
  history[1] = {.run_id = 6, .workload = "transformer", .device = "cpu", .dtype = "float32", .batch_size = 64, .median = 2.0};
  history[2] = {.run_id = 6, .workload = "mlp", .device = "cpu", .dtype = "float32", .batch_size = 64, .median = 0.004};
  const std::vector<CaseSpec> plan{{"mlp", "cpu"}, {"transformer", "cpu"}, {"cnn", "cpu"}};
  // 2 rounds of 2 warm-up steps + 5 samples = 14 steps: the transformer's 2 s steps need ~28 s > 10 s
  const auto lines = cases_that_cannot_fit(plan, history, 10.0, 14);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("transformer on cpu (float32, batch 64) cannot fit: a step took 2.000 s in run 6"), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("--budget"), std::string::npos);
  EXPECT_TRUE(cases_that_cannot_fit(plan, history, 60.0, 14).empty());  // the newest step fits a minute
  EXPECT_TRUE(cases_that_cannot_fit(plan, {}, 1.0, 14).empty());       // no history: no claim
  // A case the history lacks, judged from its probe; a case with history keeps the stored figure.
  const auto unseen = cases_without_history(plan, history);
  ASSERT_EQ(unseen.size(), 1u);
  EXPECT_EQ(unseen[0].workload, "cnn");
  const std::vector<ProbedStep> probed{{CaseSpec{"cnn", "cpu"}, 3.0}, {CaseSpec{"mlp", "cpu"}, 100.0}};
  const auto with_probe = cases_that_cannot_fit(plan, history, 10.0, 14, probed);
  ASSERT_EQ(with_probe.size(), 2u);
  EXPECT_NE(with_probe[1].find("cnn on cpu (float32, batch 64) cannot fit: a step took 3.000 s in a probe before measuring"),
            std::string::npos) << with_probe[1];
  EXPECT_EQ(with_probe[0].find("mlp"), std::string::npos) << "the stored mlp step (4 ms) wins over a probe";
}

// -------------------------------------------------------------------------------------------------
// Comparing runs: the Mann-Whitney test, compare's verdicts and regressions, changes over history.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/compare.h"
#include "core/errors.h"
#include "support/synthetic_runs.h"

using namespace accelbench;
using accelbench::testing::make_run;
using accelbench::testing::samples_around;
using accelbench::testing::SyntheticOptions;

TEST(MannWhitney, SeparatedSamples) {
  const std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
  const auto r = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(r.u, 0);
  // normal approximation with continuity correction: z = (0 - 12.5 + 0.5) / sqrt(25 * 11 / 12)
  EXPECT_NEAR(r.z, -12.0 / std::sqrt(25.0 * 11.0 / 12.0), 1e-12);
  EXPECT_NEAR(r.p, 0.01219, 1e-4);
}

TEST(MannWhitney, TiesAndIdenticalSamples) {
  const std::vector<double> same{2, 2, 2, 2, 2};
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p, 1.0);
  const std::vector<double> a{1, 2, 2, 3, 3, 3}, b{2, 3, 3, 4, 4, 5};
  const auto r = mann_whitney_u(a, b);
  // by hand: ranks of a = 1, 3, 3, 7, 7, 7 -> R = 28, U = 28 - 21 = 7; tie groups of 1, 3, 5, 2, 1
  // give sum(t^3 - t) = 150, so the variance is 36/12 * (13 - 150/132)
  EXPECT_DOUBLE_EQ(r.u, 7.0);
  EXPECT_NEAR(r.z, (7.0 - 18.0 + 0.5) / std::sqrt(3.0 * (13.0 - 150.0 / 132.0)), 1e-12);
  EXPECT_GT(r.p, 0.05);
}

TEST(Compare, KnownEqualIsSame) {
  const auto a = samples_around(0.010, 0.01, 30, 1);
  const auto b = samples_around(0.010, 0.01, 30, 2);
  const auto c = compare_samples(a, b);
  EXPECT_EQ(c.verdict, Verdict::Same) << c.reason;
  EXPECT_NEAR(c.ratio, 1.0, 0.01);
}

TEST(Compare, KnownTenPercentSlowerIsSlower) {
  const auto a = samples_around(0.010, 0.01, 30, 3);
  const auto b = samples_around(0.011, 0.01, 30, 4);
  const auto c = compare_samples(a, b);
  EXPECT_EQ(c.verdict, Verdict::Slower) << c.reason;
  EXPECT_NEAR(c.ratio, 1.10, 0.01);
  EXPECT_GT(c.ci_low, 1.05);
  EXPECT_LT(c.p, 1e-6);
  const auto back = compare_samples(b, a);
  EXPECT_EQ(back.verdict, Verdict::Faster) << back.reason;
}

TEST(Compare, TooFewSamplesIsUncertain) {
  const auto c = compare_samples(samples_around(0.01, 0.01, 4, 5), samples_around(0.02, 0.01, 30, 6));
  EXPECT_EQ(c.verdict, Verdict::Uncertain);
  EXPECT_NE(c.reason.find("too few"), std::string::npos);
}

TEST(Compare, NoisyAndInconclusiveIsUncertain) {
  const auto c = compare_samples(samples_around(0.01, 0.25, 8, 7), samples_around(0.0105, 0.25, 8, 8));
  EXPECT_EQ(c.verdict, Verdict::Uncertain) << c.reason << " p=" << c.p << " ci=" << c.ci_low << ".." << c.ci_high;
}

TEST(Compare, SignificantButTinyIsSame) {
  const auto c = compare_samples(samples_around(0.01, 0.001, 60, 9), samples_around(0.0101, 0.001, 60, 10));
  EXPECT_LT(c.p, 0.01);
  EXPECT_EQ(c.verdict, Verdict::Same) << c.reason;
}

TEST(Compare, RunsMatchCasesAndFlagRegressions) {
  SyntheticOptions base;
  base.seed = 1;
  SyntheticOptions slower = base;
  slower.seed = 2;
  slower.slowdown = 1.10;
  slower.workloads = {"mlp", "cnn"};  // transformer only in A
  const auto cmp = compare_runs(make_run(base), make_run(slower));
  ASSERT_EQ(cmp.cases.size(), 4u);
  for (const auto& c : cmp.cases) EXPECT_EQ(c.result.verdict, Verdict::Slower) << c.workload << " " << c.device;
  EXPECT_EQ(cmp.only_in_a.size(), 2u);
  EXPECT_TRUE(cmp.only_in_b.empty());
  EXPECT_EQ(regressions_beyond(cmp, 0.05).size(), 4u);
  EXPECT_TRUE(regressions_beyond(cmp, 0.20).empty());
  SyntheticOptions same = base;
  same.seed = 3;
  const auto eq = compare_runs(make_run(base), make_run(same));
  for (const auto& c : eq.cases) EXPECT_EQ(c.result.verdict, Verdict::Same) << c.workload << " " << c.device << ": " << c.result.reason;
  EXPECT_TRUE(regressions_beyond(eq, 0.05).empty());
}

TEST(Compare, ParseFraction) {
  EXPECT_DOUBLE_EQ(parse_fraction("5%", "--fail-above"), 0.05);
  EXPECT_DOUBLE_EQ(parse_fraction(" 12.5 % ", "--fail-above"), 0.125);
  EXPECT_DOUBLE_EQ(parse_fraction("0.05", "--fail-above"), 0.05);
  EXPECT_THROW(parse_fraction("five", "--fail-above"), UsageError);
  EXPECT_THROW(parse_fraction("-5%", "--fail-above"), UsageError);
  EXPECT_THROW(parse_fraction("", "--fail-above"), UsageError);
}

namespace {
std::vector<SeriesPoint> series(const std::vector<double>& medians, double rel_ci) {
  std::vector<SeriesPoint> out;
  for (double m : medians) out.push_back({m, m * (1 - rel_ci), m * (1 + rel_ci)});
  return out;
}
}  // namespace

TEST(Changes, FlatHistoryHasNone) {
  EXPECT_TRUE(detect_changes(series({1.0, 1.0, 1.0, 1.0}, 0.01)).empty());
  const auto noisy = samples_around(1.0, 0.02, 16, 11);
  EXPECT_TRUE(detect_changes(series(noisy, 0.02)).empty());
  EXPECT_TRUE(detect_changes({}).empty());
  EXPECT_TRUE(detect_changes(series({1.0}, 0.01)).empty());
}

TEST(Changes, StepBeyondTheNoiseIsFound) {
  auto m = samples_around(1.0, 0.01, 8, 12);
  for (double v : samples_around(1.10, 0.01, 6, 13)) m.push_back(v);
  const auto ch = detect_changes(series(m, 0.01));
  ASSERT_EQ(ch.size(), 1u);
  EXPECT_EQ(ch[0].index, 8u);
  EXPECT_NEAR(ch[0].ratio, 1.10, 0.02);
}

TEST(Changes, TwoStepsAndAStepWithinTheNoiseIsNot) {
  std::vector<double> m{1, 1.01, 0.99, 1, 1.2, 1.21, 1.19, 1.2, 0.9, 0.91, 0.9, 0.89};
  const auto ch = detect_changes(series(m, 0.01));
  ASSERT_EQ(ch.size(), 2u);
  EXPECT_EQ(ch[0].index, 4u);
  EXPECT_EQ(ch[1].index, 8u);
  EXPECT_LT(ch[1].ratio, 1.0);
  // a 3% step when each run's CI is +-10%: not beyond the noise
  EXPECT_TRUE(detect_changes(series({1, 1, 1, 1, 1.03, 1.03, 1.03, 1.03}, 0.10)).empty());
}

// --graphs: a graphs case is compared with the graphs case of the other run, never with the eager one.
TEST(Compare, AGraphsCaseMatchesOnlyAGraphsCase) {
  auto a = make_run();
  auto b = make_run();
  const auto accel = std::find_if(a.cases.begin(), a.cases.end(), [](const CaseResult& c) { return c.spec.device != "cpu"; });
  ASSERT_NE(accel, a.cases.end());
  auto graphs = *accel;
  graphs.spec.graphs = true;
  a.cases.push_back(graphs);  // in A only
  const auto c = compare_runs(a, b);
  EXPECT_EQ(c.cases.size(), b.cases.size());
  ASSERT_EQ(c.only_in_a.size(), 1u);
  EXPECT_NE(c.only_in_a[0].find("[graphs]"), std::string::npos) << c.only_in_a[0];
}

namespace {
RunToRun spread(double sd_log, double dof) {
  RunToRun r;
  r.sd_log = sd_log;
  r.dof = dof;
  r.widened = true;
  r.source = "history";
  return r;
}
}  // namespace

// Between two runs the judge is the run-to-run spread: ratio 1.25 when runs vary by 10% is within
// noise (t(0.995, 24) * sqrt(0.02) = 0.397 > log 1.25 = 0.223); a 30% slowdown when they vary by 3%
// is not (0.119 < 0.262); 1% when they vary by 0.5% is SAME (the interval lies within +-5%).
TEST(Compare, BetweenRunsJudgedAgainstTheRunToRunSpread) {
  CompareOptions o;
  SampleComparison noisy;
  noisy.ratio = 1.25;
  noisy.verdict = Verdict::Slower;
  judge_between_runs(noisy, spread(0.10, 12), spread(0.10, 12), o);
  EXPECT_TRUE(noisy.between_runs);
  EXPECT_EQ(noisy.verdict, Verdict::Uncertain);
  EXPECT_NE(noisy.reason.find("within run-to-run noise"), std::string::npos) << noisy.reason;
  EXPECT_NEAR(std::log(noisy.ci_high / 1.25), t_quantile(0.995, 24) * std::sqrt(0.02), 1e-9);
  EXPECT_GT(noisy.p, 0.01);
  SampleComparison planted;
  planted.ratio = 1.30;
  judge_between_runs(planted, spread(0.03, 12), spread(0.03, 12), o);
  EXPECT_EQ(planted.verdict, Verdict::Slower);
  EXPECT_LT(planted.p, 0.01);
  SampleComparison same;
  same.ratio = 1.01;
  judge_between_runs(same, spread(0.005, 12), spread(0.005, 12), o);
  EXPECT_EQ(same.verdict, Verdict::Same);
  SampleComparison older;  // a run without a spread (older files): the samples' verdict stays
  older.ratio = 1.3;
  older.verdict = Verdict::Slower;
  judge_between_runs(older, RunToRun{}, spread(0.03, 12), o);
  EXPECT_FALSE(older.between_runs);
  EXPECT_EQ(older.verdict, Verdict::Slower);
}

// compare_runs uses the cases' spreads, and --fail-above follows the verdict.
TEST(Compare, RunsWithTheirSpreadAreNotSlowerWithinNoise) {
  SyntheticOptions base, slower = base;
  slower.slowdown = 1.2;
  slower.seed = 2;
  auto a = make_run(base), b = make_run(slower);
  for (auto* run : {&a, &b})
    for (auto& c : run->cases) c.run_to_run = spread(0.10, 12);
  const auto cmp = compare_runs(a, b);
  ASSERT_FALSE(cmp.cases.empty());
  for (const auto& c : cmp.cases) EXPECT_EQ(c.result.verdict, Verdict::Uncertain) << c.workload << " " << c.result.reason;
  EXPECT_TRUE(regressions_beyond(cmp, 0.05).empty());
}

// The notes column keeps its two most telling items and counts the rest; --verbose (the full
// report) lists them all, with plurals right ("1 outlier").
TEST(Reports, TheNotesColumnKeepsTwoItemsAndCountsTheRest) {
  auto run = make_run(SyntheticOptions{.workloads = {"mlp"}});
  run.cases.resize(1);
  auto& c = run.cases[0];
  c.noisy = true;
  c.relative_ci_half_width = 0.176;
  c.rounds_disagree = true;
  c.drifting = true;
  c.stats.outliers = 1;
  run.speedups.clear();
  const auto short_form = unwrapped(render_terminal_report(run, {.answer_first = true}));
  EXPECT_NE(short_form.find("noisy +-18%; ROUNDS DISAGREE; +2"), std::string::npos) << short_form;
  EXPECT_EQ(short_form.find("DRIFTING"), std::string::npos) << short_form;
  const auto full = unwrapped(render_terminal_report(run));
  EXPECT_NE(full.find("ROUNDS DISAGREE; DRIFTING; 1 outlier"), std::string::npos) << full;
  EXPECT_EQ(full.find("1 outliers"), std::string::npos) << full;
  c.stats.outliers = 20;
  EXPECT_NE(unwrapped(render_terminal_report(run)).find("20 outliers"), std::string::npos);
}

// The Summary: one line per model, which device is faster and by how much with the interval the
// table shows, or that this run cannot tell; with the CPU alone, the step time and its interval.
TEST(Reports, TheSummarySaysWhichDeviceIsFasterPerModel) {
  RunResult run;
  std::uint64_t seed = 0;
  for (const auto& [model, cpu_s, gpu_s] : {std::tuple<const char*, double, double>{"mlp", 0.010, 0.002},
                                            {"cnn", 0.004, 0.008}})
    for (const auto& [device, median] : {std::pair<const char*, double>{"cpu", cpu_s}, {"cuda:0", gpu_s}})
      run.cases.push_back(accelbench::testing::make_case(model, device, 64, median, 0.0001, 20, ++seed));
  run.speedups = compute_speedups(run.cases);
  const auto summary = render_run_summary(run);
  EXPECT_EQ(summary.rfind("Summary:\n", 0), 0u) << summary;
  EXPECT_NE(summary.find("  mlp (C++ loop): cuda:0 ran 5.0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("] as fast as cpu (this run 95%)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("  cnn (C++ loop): cpu ran 2.0"), std::string::npos) << summary;
  EXPECT_EQ(std::count(summary.begin(), summary.end(), '\n'), 3) << summary;
  Speedup same{"mlp", "cuda:0", "cpu", 64, "float32", 1.02, 0.9, 1.2};
  run.speedups = {same};
  EXPECT_NE(render_run_summary(run).find("mlp (C++ loop): this run cannot tell cuda:0 from cpu: 1.02x [0.90, 1.20] (this run 95%)"),
            std::string::npos)
      << render_run_summary(run);
  run.cases.erase(std::remove_if(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.spec.device != "cpu"; }),
                  run.cases.end());
  run.speedups.clear();
  const auto cpu_only = render_run_summary(run);
  EXPECT_NE(cpu_only.find("  mlp (C++ loop): 10.00 ms a step on cpu (+-"), std::string::npos) << cpu_only;
  EXPECT_NE(cpu_only.find("%, this run 95%)\n"), std::string::npos) << cpu_only;
  // Said once after the lines, not on each (two models here).
  EXPECT_NE(cpu_only.find("  (CPU only: no accelerator, so no speed-up)\n"), std::string::npos) << cpu_only;
  EXPECT_EQ(cpu_only.find("; CPU only"), std::string::npos) << cpu_only;
  // The accelerator alone: no speed-up column of dashes, and the Summary says why there is none.
  RunResult gpu_only;
  gpu_only.cases.push_back(accelbench::testing::make_case("mlp", "cuda:0", 64, 0.002, 0.0001, 20, 7));
  const auto gpu_summary = render_run_summary(gpu_only);
  EXPECT_NE(gpu_summary.find("; no speed-up: no CPU case to compare with"), std::string::npos) << gpu_summary;
  EXPECT_EQ(gpu_summary.find("a device failed"), std::string::npos) << gpu_summary;
  const auto table = render_terminal_report(gpu_only);
  EXPECT_EQ(table.find("speed-up cuda:0"), std::string::npos) << table;
}

// Every speed-up says whose loop it is: the Summary on every line ("mlp (Python loop): ..."), the
// article's table in its header where every row is of one loop, on each row where they are several.
TEST(Reports, TheSummaryAndTheArticleTableNameTheLoop) {
  RunResult run;
  std::uint64_t seed = 0;
  for (const auto* impl : {"", "python"})
    for (const auto& [device, median] : {std::pair<const char*, double>{"cpu", 0.010}, {"cuda:0", 0.002}}) {
      run.cases.push_back(accelbench::testing::make_case("mlp", device, 64, median, 0.0001, 20, ++seed));
      run.cases.back().spec.impl = impl;
    }
  run.speedups = compute_speedups(run.cases);
  ASSERT_EQ(run.speedups.size(), 2u);
  const auto summary = render_run_summary(run);
  EXPECT_NE(summary.find("  mlp (C++ loop): cuda:0 ran 5.0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("  mlp (Python loop): cuda:0 ran 5.0"), std::string::npos) << summary;
  const auto both = render_terminal_report(run);
  EXPECT_NE(both.find("\nmlp (C++) "), std::string::npos) << both;
  EXPECT_NE(both.find("\nmlp (Python) "), std::string::npos) << both;
  EXPECT_NE(render_markdown_report(ReportSource{run, {}, "run 1"}).find("| mlp (Python) |"), std::string::npos);
  run.cases.resize(2);  // the C++ cases alone: the header names the loop
  run.speedups = compute_speedups(run.cases);
  const auto one = render_terminal_report(run);
  EXPECT_NE(one.find("\nmodel, C++ loop "), std::string::npos) << one;
  EXPECT_NE(render_markdown_report(ReportSource{run, {}, "run 1"}).find("| model, C++ loop |"), std::string::npos);
  EXPECT_NE(render_html_report(ReportSource{run, {}, "run 1"}).find("model, C++ loop"), std::string::npos);
}

// A run with Python cases: the case tables of every format have the implementation column (cpp,
// python, and the compile mode) and name the model without it; a run without one has no such column.
TEST(Reports, PythonCasesHaveAnImplementationColumnInEveryFormat) {
  auto run = make_run(SyntheticOptions{.workloads = {"mlp"}});
  run.cases.resize(1);
  run.speedups.clear();
  auto py = run.cases[0];
  py.spec.impl = "python";
  auto compiled = py;
  compiled.spec.compile = "reduce-overhead";
  run.cases.push_back(py);
  run.cases.push_back(compiled);
  const ReportSource src{run, {}, "run 1"};
  const auto terminal = render_terminal_report(run);
  EXPECT_NE(terminal.find("impl"), std::string::npos) << terminal;
  EXPECT_NE(unwrapped(terminal).find("python, compile=reduce-overhead"), std::string::npos) << terminal;
  const auto md = render_markdown_report(src);
  EXPECT_NE(md.find("| model | impl | device |"), std::string::npos) << md;
  EXPECT_NE(md.find("| mlp | cpp | "), std::string::npos) << md;
  EXPECT_NE(md.find("| mlp | python | "), std::string::npos) << md;
  EXPECT_NE(md.find("| mlp | python, compile=reduce-overhead | "), std::string::npos) << md;
  const auto html = render_html_report(src);
  EXPECT_NE(html.find("<td>mlp</td><td>python, compile=reduce-overhead</td>"), std::string::npos);
  std::istringstream lines(render_csv_report(src));
  std::string line;
  std::getline(lines, line);
  const auto header = csv_cells(line);
  const auto impl = std::find(header.begin(), header.end(), "impl") - header.begin();
  ASSERT_LT(impl + 1, static_cast<std::ptrdiff_t>(header.size())) << line;
  EXPECT_EQ(header[impl + 1], "compile");
  std::vector<std::pair<std::string, std::string>> impls;
  const auto from_end = header.size() - static_cast<std::size_t>(impl);  // a quoted model label holds commas: count from the end
  while (std::getline(lines, line)) {
    const auto cells = csv_cells(line);
    impls.emplace_back(cells[cells.size() - from_end], cells[cells.size() - from_end + 1]);
  }
  EXPECT_EQ(impls, (std::vector<std::pair<std::string, std::string>>{{"cpp", ""}, {"python", ""}, {"python", "reduce-overhead"}}));
  // Without Python cases: no implementation column.
  run.cases.resize(1);
  EXPECT_EQ(render_markdown_report(ReportSource{run, {}, "run 1"}).find("| impl |"), std::string::npos);
  EXPECT_EQ(render_html_report(ReportSource{run, {}, "run 1"}).find("<th>impl</th>"), std::string::npos);
  EXPECT_EQ(render_terminal_report(run).find(" impl "), std::string::npos);
}

// compare pairs a Python case with the same model's Python case of the other run (the same compile
// mode), never with the C++ case, and names it by its label.
TEST(Compare, PairsEachImplementationWithItself) {
  SyntheticOptions o;
  o.workloads = {"mlp"};
  o.devices = {"cpu"};
  o.seed = 1;
  auto a = make_run(o);
  ASSERT_EQ(a.cases.size(), 1u);
  auto py = a.cases[0];
  py.spec.impl = "python";
  for (auto& s : py.samples) s *= 3;  // the Python loop: three times the C++ step
  a.cases.push_back(py);
  auto compiled = py;
  compiled.spec.compile = "default";
  auto b = a;
  b.cases.push_back(compiled);  // only in B
  const auto cmp = compare_runs(a, b);
  ASSERT_EQ(cmp.cases.size(), 2u);
  EXPECT_EQ(cmp.cases[0].model, "mlp");
  EXPECT_EQ(cmp.cases[1].model, "mlp[python]");
  for (const auto& c : cmp.cases) EXPECT_NEAR(c.result.ratio, 1.0, 1e-9) << c.model;  // each against its own implementation
  ASSERT_EQ(cmp.only_in_b.size(), 1u);
  EXPECT_NE(cmp.only_in_b[0].find("mlp[python,compile=default]"), std::string::npos) << cmp.only_in_b[0];
}

// One case through every output: its step time's interval (the next run's range, -13/+15% around
// 17.19 s) and its speed-up (1.23x [1.20, 1.26]) are written the same way in each, named the same
// way, and no other interval style ("a - b" between two times, "[x%, y%]", "[95% CI]") appears;
// times in the reports read as the cases table's ("17.19 s", not "1.72e+04"); the article's
// published figures stay out of the columns and charts of this run.
TEST(Reports, EveryOutputWritesAnIntervalOneWay) {
  auto run = make_run(SyntheticOptions{.workloads = {"mlp"}});
  auto& c = run.cases.at(0);  // mlp on the CPU: the next run's range, widened by a fallback constant
  ASSERT_EQ(c.spec.device, "cpu");
  const double median = 17.19, factor = 1.15;
  c.stats.median = median, c.stats.ci_low = median / factor, c.stats.ci_high = median * factor;
  c.noisy = true;
  c.relative_ci_half_width = 0.05;  // this run's own precision, above its 2% target
  RunToRun rr;
  rr.half_width_log = std::log(factor);
  rr.widened = true;
  rr.source = "fallback";
  rr.prior_sd_log = 0.05;
  rr.prior_basis = "the CPU: host-bound";
  c.run_to_run = rr;
  run.speedups = {Speedup{"mlp", "cuda:0", "cpu", 64, "float32", 1.23, 1.20, 1.26}};
  ReportSource src{run, nlohmann::json(run), "one case", {}};
  for (const auto id : {1, 2}) {  // the case stored twice: the HTML report's history chart
    CaseHistoryPoint p{id, "uid", "2025-06-01T10:00:00Z", "2.13.0", "testhost", "mlp", "cpu", "float32", 64, 8, 20,
                       median, median / factor, median * factor};
    p.next_run_range = true;
    src.history.push_back(p);
  }
  const std::string interval = "-13/+15%", speedup = "1.23x [1.20, 1.26]";
  const std::map<std::string, std::string> outputs{
      {"terminal", unwrapped(render_terminal_report(run))},
      {"advice", unwrapped(render_advice(advise(run)))},
      {"markdown", render_markdown_report(src)},
      {"html", render_html_report(src)},
      {"history", render_case_history(src.history, ChangeOptions{})}};
  const std::regex between_times(R"(\d (us|ms|s) - \d)"), percent_pair(R"(\[[-+]?\d+(\.\d+)?%, [-+]?\d+(\.\d+)?%\])");
  for (const auto& [name, text] : outputs) {
    EXPECT_NE(text.find(interval), std::string::npos) << name << ":\n" << text;
    EXPECT_NE(text.find("next run 95%"), std::string::npos) << name << ":\n" << text;
    EXPECT_FALSE(std::regex_search(text, between_times)) << name << ":\n" << text;
    EXPECT_FALSE(std::regex_search(text, percent_pair)) << name << ":\n" << text;
    EXPECT_EQ(text.find("95% CI"), std::string::npos) << name << ":\n" << text;
    EXPECT_EQ(text.find("e+0"), std::string::npos) << name << ":\n" << text;
  }
  for (const auto* name : {"terminal", "markdown", "html"}) {
    const auto& text = outputs.at(name);
    EXPECT_NE(text.find(speedup), std::string::npos) << name << ":\n" << text;
    EXPECT_NE(text.find("[this run 95%]"), std::string::npos) << name << ":\n" << text;  // the speed-up column's interval
    EXPECT_NE(text.find("17.19 s"), std::string::npos) << name << ":\n" << text;
    EXPECT_EQ(text.find("this run)"), std::string::npos) << name << ":\n" << text;  // no "speed-up (this run)" by the article's
  }
  EXPECT_NE(outputs.at("terminal").find("noisy (this run 95% +-5.0% > target 2.0%)"), std::string::npos) << outputs.at("terminal");
  // The HTML speed-up chart and its table hold this run's figures only.
  const auto chart = figure_of(outputs.at("html"), "speedup");
  EXPECT_EQ(chart.find("article"), std::string::npos) << chart;
  EXPECT_EQ(chart.find("ref-bar"), std::string::npos) << chart;
  // CSV: the header names which interval each column holds; the case's next-run range in its own
  // columns; no published figure in a column of the run.
  const auto csv = render_csv_report(src);
  const auto header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find("next_run_95_low_s,next_run_95_high_s"), std::string::npos) << header;
  EXPECT_NE(header.find("speedup_this_run_95_low,speedup_this_run_95_high"), std::string::npos) << header;
  EXPECT_EQ(header.find("ci_low"), std::string::npos) << header;
  EXPECT_EQ(header.find("article"), std::string::npos) << header;
  // compare: B/A as every ratio is written, its level said once.
  auto slower = run;
  for (auto& x : slower.cases[1].samples) x *= 1.2;
  slower.cases[1].stats = summarize(slower.cases[1].samples);
  const CompareOptions co;
  const auto compared = render_comparison(compare_runs(run, slower, co), co);
  EXPECT_TRUE(std::regex_search(compared, std::regex(R"(1\.\d{3}x \[1\.\d{3}, 1\.\d{3}\])"))) << compared;
  EXPECT_EQ(count(compared, "95%"), 1u) << compared;  // the interval's level, as run prints it
  EXPECT_FALSE(std::regex_search(compared, percent_pair)) << compared;
  EXPECT_FALSE(std::regex_search(compared, between_times)) << compared;
}
