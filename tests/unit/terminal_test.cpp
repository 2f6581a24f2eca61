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
