// A run measured under a distortion the machine checks found is stored marked (schema 4, older
// databases marked from their stored warning), shown marked in `history` and `compare`; compare
// judges both runs of a case against one spread, the later run's, and says when it is too wide.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "analysis/compare.h"
#include "core/t_distribution.h"
#include "report/history_report.h"
#include "store/history_store.h"
#include "support/synthetic_runs.h"
#include "unit/test_files.h"

using namespace accelbench;
using accelbench::testing::make_run;
using accelbench::testing::SyntheticOptions;

namespace {

RunResult loaded_run() {
  auto run = make_run();
  run.context.warnings = {"timings may be DISTORTED: load 3.0 on 2 cores (accelbench doctor says how to fix it)"};
  run.context.distorted_by = {"load", "busy processes"};
  return run;
}

TEST(DistortionMark, AMarkedRunIsStoredListedAndReadBackMarked) {
  const accelbench::testing::TempDir dir;
  HistoryStore store(dir.file("history.db"));
  const auto busy = store.save_run(loaded_run());
  const auto idle = store.save_run(make_run());
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].distorted_by, "load, busy processes");
  EXPECT_EQ(runs[1].distorted_by, "");
  for (const auto& p : store.case_history()) {
    EXPECT_EQ(p.distorted_by, p.run_id == busy.id ? "load, busy processes" : "") << p.run_id;
    EXPECT_EQ(p.rounds, 0u);  // the synthetic cases have no rounds
  }
  EXPECT_EQ(store.load_run(busy.id).context.distorted_by, (std::vector<std::string>{"load", "busy processes"}));
  EXPECT_TRUE(store.load_run(idle.id).context.distorted_by.empty());
}

// A database from before the mark: migrated, a run whose stored context says "timings may be
// DISTORTED" is marked kUnnamedDistortion; read at its own schema (not migrated, as a read-only
// file is), it reads the same.
TEST(DistortionMark, AnOlderDatabaseMarksItsRunsFromTheirStoredWarning) {
  const accelbench::testing::TempDir dir;
  for (const bool migrate : {true, false}) {
    const auto path = dir.file(fmt::format("v3-{}.db", migrate));
    {
      HistoryStore old(path, 3);
      auto busy = loaded_run();
      busy.context.distorted_by.clear();  // an older accelbench wrote the warning alone
      old.save_run(busy);
      old.save_run(make_run());
    }
    HistoryStore store(path, migrate ? kHistorySchemaVersion : 3);
    EXPECT_EQ(store.schema_version(), migrate ? kHistorySchemaVersion : 3);
    const auto runs = store.list_runs();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].distorted_by, kUnnamedDistortion);
    EXPECT_EQ(runs[1].distorted_by, "");
    EXPECT_EQ(store.case_history().front().distorted_by, kUnnamedDistortion);
    EXPECT_EQ(store.load_run(runs[0].id).context.distorted_by, std::vector<std::string>{kUnnamedDistortion});
  }
}

TEST(DistortionMark, HistoryAndCompareShowTheMark) {
  std::vector<StoredRunInfo> runs(2);
  runs[0].distorted_by = "load";
  std::vector<std::vector<std::string>> table{{"id"}, {"1"}, {"2"}};
  add_distortion_column(table, runs);
  EXPECT_EQ(table[0].back(), "timings");
  EXPECT_EQ(table[1].back(), "DISTORTED: load");
  EXPECT_EQ(table[2].back(), "");
  EXPECT_NE(distorted_runs_note(runs).find("accelbench history rm"), std::string::npos);
  std::vector<std::vector<std::string>> clean{{"id"}, {"1"}};
  add_distortion_column(clean, {StoredRunInfo{}});
  EXPECT_EQ(clean[0].size(), 1u);  // no marked run: no column
  EXPECT_EQ(distorted_runs_note({StoredRunInfo{}}), "");
  CaseHistoryPoint p;
  p.workload = "mlp", p.device = "cpu", p.dtype = "float32", p.median = 1e-3, p.distorted_by = "load";
  EXPECT_NE(render_case_history({p}, {}).find("DISTORTED"), std::string::npos);
  const auto cmp = compare_runs(loaded_run(), make_run());
  const auto text = render_comparison(cmp, {});
  EXPECT_NE(text.find("A: timings may be DISTORTED (load, busy processes)"), std::string::npos) << text;
  EXPECT_EQ(text.find("B: timings"), std::string::npos) << text;
  EXPECT_EQ(text.find("A and B"), std::string::npos) << text;
}

RunToRun spread(double sd_log, double dof, std::string too_wide = "") {
  RunToRun r;
  r.sd_log = sd_log;
  r.dof = dof;
  r.widened = true;
  r.source = "history";
  r.too_wide = std::move(too_wide);
  return r;
}

// One spread for both runs of a case, the later run's: the same for A B as for B A; an earlier run
// stored with an absurd spread (measured under load) does not reach the comparison of a later one.
TEST(DistortionMark, CompareJudgesBothRunsAgainstTheLaterRunsSpread) {
  SyntheticOptions later_options;
  later_options.slowdown = 1.02;
  later_options.seed = 3;
  auto earlier = make_run(), later = make_run(later_options);
  later.context.timestamp_utc = "2025-06-01T11:00:00Z";
  for (auto& c : earlier.cases) c.run_to_run = spread(3.0, 4);  // poisoned: +-2000%
  for (auto& c : later.cases) c.run_to_run = spread(0.05, 12);
  const auto ab = compare_runs(earlier, later), ba = compare_runs(later, earlier);
  ASSERT_FALSE(ab.cases.empty());
  for (std::size_t i = 0; i < ab.cases.size(); ++i) {
    const auto& x = ab.cases[i].result;
    const auto& y = ba.cases[i].result;
    EXPECT_TRUE(x.between_runs);
    EXPECT_FALSE(x.too_wide);
    EXPECT_NEAR(std::log(x.ci_high / x.ci_low), std::log(y.ci_high / y.ci_low), 1e-12);
    EXPECT_NEAR(std::log(x.ci_high / x.ratio), t_quantile(0.995, 12) * std::sqrt(2 * 0.05 * 0.05), 1e-9);
  }
}

TEST(DistortionMark, CompareSaysWhyInsteadOfPrintingATooWideInterval) {
  auto a = make_run(), b = make_run();
  b.context.timestamp_utc = "2025-06-01T11:00:00Z";
  for (auto* run : {&a, &b})
    for (auto& c : run->cases) c.run_to_run = spread(1.5, 6, "its next run's range would span 900x: quiet the machine");
  const auto cmp = compare_runs(a, b);
  ASSERT_FALSE(cmp.cases.empty());
  const auto& r = cmp.cases[0].result;
  EXPECT_TRUE(r.too_wide);
  EXPECT_EQ(r.verdict, Verdict::Uncertain);
  EXPECT_NE(r.reason.find("too wide to tell: its next run's range would span 900x"), std::string::npos) << r.reason;
  const auto text = render_comparison(cmp, {});
  EXPECT_NE(text.find("[too wide]"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.000, "), std::string::npos) << text;
}

}  // namespace
