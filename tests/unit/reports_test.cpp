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

#include "core/errors.h"
#include "core/durations.h"
#include "report/article_reference.h"
#include "report/reports.h"
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
  EXPECT_NE(md.find("| model | CPU s/epoch | cuda:0 s/epoch | speed-up cuda:0 [95% CI] | article (M2, published) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| transformer |"), std::string::npos);
  EXPECT_NE(md.find("2.26x |"), std::string::npos);  // the article's transformer beside the user's
  EXPECT_NE(md.find("| BERT-base text classification (section 6) | 326 s/epoch | 148 s/epoch | 2.20x |"), std::string::npos) << md;
  const auto art = render_markdown_report(ReportSource{article_reference_run(), {}, kArticleRunName});
  EXPECT_NE(art.find("Published figures, not measurements"), std::string::npos);
  EXPECT_NE(art.find("| mlp | 42.3 s | 38.7 s | 1.09x |"), std::string::npos) << art;
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
  EXPECT_EQ(count(speedup, "<rect class=\"ref-bar\""), 3u);  // the article's mlp, cnn, transformer
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
  EXPECT_NE(f.find("<td>11.5 - 12.5</td>"), std::string::npos) << f;  // run 2: median 12 ms, CI 11.5 - 12.5 ms
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
  EXPECT_NE(f.find("3.75x"), std::string::npos);
  EXPECT_NE(f.find("3.7 - 3.76"), std::string::npos);
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
  EXPECT_NE(f.find("1.58x"), std::string::npos);
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
  EXPECT_NE(md.find("| " + median + " | - | - | 1 |"), std::string::npos) << md;
  const auto html = render_html_report(src);
  EXPECT_NE(html.find(median + "</td><td>-</td><td>-</td><td>1</td>"), std::string::npos);
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
  EXPECT_NE(md.find("| model | dtype | device | batch | speed-up over the CPU's fastest [95% CI] |"), std::string::npos) << md;
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
  EXPECT_NE(html.find("<th>speed-up over the CPU&#39;s fastest [95% CI]</th>"), std::string::npos) << html;
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

// The CSV: four columns appended after the older ones (which keep their places), filled on the row of
// the case that has a speed-up over the CPU's fastest precision and empty on every other row; the
// numerics column after them.
TEST(Reports, CsvAppendsTheSpeedupOverTheCpusFastestPrecision) {
  const auto run = mixed_precision_run();
  ASSERT_EQ(run.speedups_over_fastest_cpu.size(), 1u);
  const auto& s = run.speedups_over_fastest_cpu[0];
  std::istringstream in(render_csv_report(ReportSource{run, {}, "x"}));
  std::string line;
  std::getline(in, line);
  const auto header = csv_cells(line);
  ASSERT_EQ(header.size(), 37u) << line;
  EXPECT_EQ(header[26], "speedup");
  EXPECT_EQ(header[31], "model") << "the older columns keep their places";
  EXPECT_EQ(std::vector<std::string>(header.begin() + 32, header.end()),
            (std::vector<std::string>{"speedup_over_fastest_cpu", "speedup_over_fastest_cpu_ci_low",
                                      "speedup_over_fastest_cpu_ci_high", "speedup_over_fastest_cpu_baseline_dtype",
                                      "numerics"}));
  std::size_t filled = 0, rows = 0;
  while (std::getline(in, line)) {
    const auto f = csv_cells(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    ++rows;
    if (f[8] == "cuda:0" && f[9] == "bfloat16") {
      ++filled;
      EXPECT_EQ(f[32], fmt::format("{:.9g}", s.ratio)) << line;
      EXPECT_NEAR(std::stod(f[32]), 10.0, 0.1) << line;
      EXPECT_EQ(f[33], fmt::format("{:.9g}", s.ci_low));
      EXPECT_EQ(f[34], fmt::format("{:.9g}", s.ci_high));
      EXPECT_EQ(f[35], "float32");
    } else {
      EXPECT_EQ(f[32] + f[33] + f[34] + f[35], "") << line;
    }
  }
  EXPECT_EQ(rows, 4u);
  EXPECT_EQ(filled, 1u);

  // a run without any: the same columns, empty
  std::istringstream plain(render_csv_report(ReportSource{make_run(), {}, "x"}));
  std::getline(plain, line);
  EXPECT_EQ(csv_cells(line).size(), 37u);
  while (std::getline(plain, line)) {
    const auto f = csv_cells(line);
    ASSERT_EQ(f.size(), 37u) << line;
    EXPECT_EQ(f[32] + f[33] + f[34] + f[35], "") << line;
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
  // CSV: the last column, "numerics", of that case's row; empty in the others.
  {
    std::istringstream lines(render_csv_report(src));
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(csv_cells(line).back(), "numerics");
    std::vector<std::string> last;
    while (std::getline(lines, line)) last.push_back(csv_cells(line).back());
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
  EXPECT_NE(unwrapped(terminal).find("noisy (+-5.0% > 2.0%)"), std::string::npos) << terminal;
  EXPECT_NE(unwrapped(terminal).find("CI: fallback constant"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("next run 95%"), std::string::npos) << terminal;
}

// The words under the speed-ups: which device is faster and by how much where the range excludes 1;
// where it does not, that this run cannot tell, and what would narrow it.
TEST(Reports, SpeedupWordsSayWhichDeviceIsFasterOrThatThisRunCannotTell) {
  Speedup s{"mlp", "cuda:0", "cpu", 64, "float32", 4.5, 2.0, 10.0};
  s.widened_by_history = true;
  EXPECT_EQ(speedup_words(s), "mlp: cuda:0 is faster than the cpu by 4.50x (next run, 2.00x to 10.00x)");
  s.ratio = 0.5, s.ci_low = 0.4, s.ci_high = 0.6;
  EXPECT_EQ(speedup_words(s), "mlp: the cpu is faster than cuda:0 by 2.00x (next run, 0.40x to 0.60x)");
  s.ratio = 1.16, s.ci_low = 0.9, s.ci_high = 1.5;
  const auto cannot = speedup_words(s);
  EXPECT_NE(cannot.find("this run cannot tell whether cuda:0 or the cpu is faster"), std::string::npos) << cannot;
  EXPECT_NE(cannot.find("--graphs"), std::string::npos) << cannot;
  EXPECT_NE(cannot.find("--rounds"), std::string::npos) << cannot;
  EXPECT_EQ(speedup_interval_name({s}), "next run 95%");
  s.widened_by_history = false;
  EXPECT_EQ(speedup_interval_name({s}), "95% CI");
}
