// End-to-end tests of the results commands (history, compare, report) and of run's --db/--no-save,
// through the real binary. Runs are synthetic JSON files written with the library: no benchmark is
// run here except one tiny `run --no-save` check.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/json_report.h"
#include "store/history_store.h"
#include "core/t_distribution.h"
#include "support/synthetic_runs.h"
#include "support/text_util.h"

namespace fs = std::filesystem;
using namespace accelbench;
using accelbench::testing::make_run;
using accelbench::testing::SyntheticOptions;

namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

class ResultsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("accelbench-results-e2e-{}-{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = file("history.db");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  // The binary with a private history (ACCELBENCH_DB and XDG_DATA_HOME point into the test's folder).
  Result cli(const std::string& args) const {
    const auto out = file("stdout"), err = file("stderr");
    const std::string cmd = fmt::format("ACCELBENCH_DB='{}' XDG_DATA_HOME='{}' {} {} >'{}' 2>'{}' </dev/null", db_,
                                        dir_.string(), ACCELBENCH_BIN, args, out, err);
    const int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
  void expect_usage_error(const std::string& args, const std::string& fragment) const {
    const auto r = cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << "\n" << r.err;
  }
  std::string write_run(const std::string& name, const SyntheticOptions& o) const {
    const auto p = file(name);
    write_json_report(make_run(o), p);
    return p;
  }
  fs::path dir_;
  std::string db_;
};

}  // namespace

TEST_F(ResultsCli, ReportFromJsonInEveryFormat) {
  SyntheticOptions o;
  const auto json = write_run("run.json", o);
  for (const char* fmt_name : {"md", "csv", "html"}) {
    const auto out = file(std::string("report.") + fmt_name);
    const auto r = cli(fmt::format("report {} --format {} --output {}", json, fmt_name, out));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto text = slurp(out);
    EXPECT_GT(text.size(), 200u) << fmt_name;
  }
  EXPECT_NE(slurp(file("report.md")).find("| transformer |"), std::string::npos);
  EXPECT_EQ(slurp(file("report.csv")).rfind("run_id,", 0), 0u);
  EXPECT_NE(slurp(file("report.html")).find("data-chart=\"speedup\""), std::string::npos);
  // format from the extension; standard output without --output
  auto r = cli(fmt::format("report {} -o {}", json, file("x.html")));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(slurp(file("x.html")).rfind("<!DOCTYPE html>", 0), 0u);
  r = cli(fmt::format("report {}", json));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("# accelbench report", 0), 0u);
  // the built-in reference
  r = cli("report article-m2 --format md");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Published figures, not measurements"), std::string::npos);
  EXPECT_NE(r.out.find("654.8"), std::string::npos);
}

TEST_F(ResultsCli, StoredRunsHistoryAndLatestReport) {
  {
    HistoryStore store(db_);
    for (int i = 0; i < 10; ++i) {
      SyntheticOptions o;
      o.workloads = {"cnn"};
      o.seed = static_cast<std::uint64_t>(i + 1);
      o.torch_version = i < 6 ? "2.12.0" : "2.13.0";
      o.slowdown = i < 6 ? 1.0 : 1.12;  // torch 2.13 made cnn 12% slower
      store.save_run(make_run(o));
    }
  }
  auto r = cli("history --model cnn --device cuda");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("10 runs in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cnn on cuda:0"), std::string::npos);
  EXPECT_NE(r.out.find("cnn on cuda:0, by torch: 2.12.0: 6 runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("% at run 7 (torch 2.13.0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 change detected"), std::string::npos) << r.out;  // cuda only: one series
  r = cli("history --model cnn --device cuda --verbose");  // every run: the step's line under the table
  EXPECT_NE(r.out.find("by PyTorch version: torch 2.12.0: 6 runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("change at run 7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch 2.12.0 -> 2.13.0"), std::string::npos) << r.out;
  r = cli("history --model mlp");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("0 runs"), std::string::npos) << r.out;

  // report with no RUN: the latest stored run
  r = cli("report --format md");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("run 10 (uid"), std::string::npos) << r.out.substr(0, 200);
  // compare by ids: 6 (2.12) against 7 (2.13): SLOWER; --fail-above decides the exit code
  r = cli("compare 6 7");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("SLOWER"), std::string::npos) << r.out;
  r = cli("compare 6 7 --fail-above 5%");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("slower by more than 5%"), std::string::npos) << r.err;
  r = cli("compare 6 7 --fail-above 20%");
  EXPECT_EQ(r.code, 0) << r.err;
  r = cli("compare 1 2 --fail-above 5%");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SAME"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("SLOWER  "), std::string::npos) << r.out;
}

TEST_F(ResultsCli, CompareJsonFiles) {
  SyntheticOptions a;
  a.seed = 1;
  SyntheticOptions b = a;
  b.seed = 2;
  b.slowdown = 1.10;
  const auto ja = write_run("a.json", a), jb = write_run("b.json", b);
  auto r = cli(fmt::format("compare {} {} --fail-above 5%", ja, jb));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("6 SLOWER, 0 FASTER, 0 SAME, 0 UNCERTAIN"), std::string::npos) << r.out;
  r = cli(fmt::format("compare {} {} --fail-above 5%", jb, ja));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 SLOWER, 6 FASTER"), std::string::npos) << r.out;
  // the article's published figures have no samples and are whole-training times: refused, on either
  // side, with a one-line reason that points to `report` (not "No case in common" and exit 0)
  for (const auto& args : {fmt::format("compare article-m2 {}", ja), fmt::format("compare {} article-m2", ja)}) {
    r = cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("published figures"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("accelbench report"), std::string::npos) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_EQ(r.out.find("No case in common"), std::string::npos) << r.out;
  }
  // --fail-above with no case in common has checked nothing: exit 1, said so
  SyntheticOptions other = a;
  other.batch_sizes = {32};  // every case at another batch size
  const auto jc = write_run("c.json", other);
  r = cli(fmt::format("compare {} {} --fail-above 5%", ja, jc));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("No case in common."), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no case in common"), std::string::npos) << r.err;
  r = cli(fmt::format("compare {} {}", ja, jc));
  EXPECT_EQ(r.code, 0) << "without --fail-above it only reports: " << r.err;
}

// Runs that carry their run-to-run spread (run_to_run, as `run` writes it) are compared against it:
// two runs 25% apart on a machine whose runs vary by 10% (sd of a run's log median) are within
// run-to-run noise, and --fail-above 5% passes; a 30% slowdown on a machine that varies by 3% is
// SLOWER, and fails it.
TEST_F(ResultsCli, CompareJudgesAgainstTheRunToRunSpread) {
  auto write_with_spread = [&](const std::string& name, double slowdown, double sd_log, std::uint64_t seed) {
    SyntheticOptions o;
    o.seed = seed;
    o.slowdown = slowdown;
    auto run = make_run(o);
    for (auto& c : run.cases) {
      RunToRun r;
      r.sd_log = sd_log;
      r.dof = 12;
      r.half_width_log = t_quantile(0.975, 12) * sd_log * std::sqrt(2.0);
      r.level_half_width_log = t_quantile(0.975, 12) * sd_log;
      r.widened = true;
      r.kind = "host-bound";
      r.source = "history";
      c.run_to_run = r;
    }
    const auto p = file(name);
    write_json_report(run, p);
    return p;
  };
  const auto noisy_a = write_with_spread("na.json", 1.0, 0.10, 1), noisy_b = write_with_spread("nb.json", 1.25, 0.10, 2);
  auto r = cli(fmt::format("compare {} {} --fail-above 5% --verbose", noisy_a, noisy_b));  // --verbose: each reason
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 SLOWER, 0 FASTER"), std::string::npos) << r.out;
  EXPECT_NE(accelbench::testing::unwrapped(r.out).find("within run-to-run noise"), std::string::npos) << r.out;
  const auto quiet_a = write_with_spread("qa.json", 1.0, 0.03, 1), quiet_b = write_with_spread("qb.json", 1.30, 0.03, 2);
  r = cli(fmt::format("compare {} {} --fail-above 5% --verbose", quiet_a, quiet_b));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("6 SLOWER, 0 FASTER"), std::string::npos) << r.out;
  EXPECT_NE(accelbench::testing::unwrapped(r.out).find("beyond run-to-run noise"), std::string::npos) << r.out;
}

// Two runs of three models compared read in one screen: at most 8 lines, a line per case with its
// verdict and its interval at 95%; the method under --verbose. history of three runs: a row per case.
TEST_F(ResultsCli, CompareAndHistoryFitOneScreen) {
  SyntheticOptions a;
  a.devices = {"cpu"};
  SyntheticOptions b = a;
  b.seed = 2;
  b.slowdown = 1.10;
  {
    HistoryStore store(db_);
    for (const auto& o : {a, b, a}) store.save_run(make_run(o));
  }
  auto r = cli("compare 1 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LE(count_lines(r.out), 8) << r.out;
  EXPECT_NE(r.out.find("B/A 95%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 SLOWER"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Mann-Whitney"), std::string::npos) << r.out;
  r = cli("compare 1 2 --verbose");
  EXPECT_NE(r.out.find("Mann-Whitney"), std::string::npos) << r.out;
  r = cli("history");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LE(count_lines(r.out), 15) << r.out;
  EXPECT_EQ(r.out.find("when (UTC)"), r.out.rfind("when (UTC)")) << r.out;  // the runs' table alone has it
  r = cli("history --verbose");
  EXPECT_GT(count_lines(r.out), 25) << r.out;  // each case's runs in a table of its own
}

TEST_F(ResultsCli, BadInputIsOneLineExitTwoAndNoFile) {
  const auto out = file("out.html");
  const auto json = write_run("run.json", {});
  {
    HistoryStore store(db_);
    store.save_run(make_run());
  }
  expect_usage_error(fmt::format("report 999 --output {}", out), "no run '999'");
  expect_usage_error(fmt::format("compare 1 999"), "no run '999'");
  {
    std::ofstream o(file("other.json"));
    o << R"({"schema": "someone.else/3", "cases": []})";
  }
  expect_usage_error(fmt::format("report {} --output {}", file("other.json"), out), "unsupported schema");
  {
    std::ofstream o(file("text.json"));
    o << "this is not JSON\n";
  }
  expect_usage_error(fmt::format("report {} --output {}", file("text.json"), out), "not valid JSON");
  expect_usage_error(fmt::format("compare {} {}", json, file("missing.json")), "cannot read");
  expect_usage_error(fmt::format("report {} --output {}", json, file("no/such/dir/r.html")), "cannot write");
  expect_usage_error(fmt::format("report {} --format pdf --output {}", json, out), "unknown report format");
  expect_usage_error(fmt::format("compare {} {} --fail-above lots", json, json), "--fail-above");
  EXPECT_FALSE(fs::exists(out));
  // unwritable even for root: sysfs accepts no new file
  if (fs::is_directory("/sys/kernel")) {
    expect_usage_error(fmt::format("report {} --output /sys/accelbench-report.md", json), "cannot write");
    EXPECT_FALSE(fs::exists("/sys/accelbench-report.md"));
  }
  // an unwritable folder (skipped as root, who can write anywhere)
  if (::geteuid() != 0) {
    fs::create_directories(file("ro"));
    ::chmod(file("ro").c_str(), 0555);
    expect_usage_error(fmt::format("report {} --output {}", json, file("ro/r.md")), "cannot write");
    EXPECT_FALSE(fs::exists(file("ro/r.md")));
  }
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST_F(ResultsCli, CorruptDatabaseIsOneLineExitTwoAndUntouched) {
  {
    std::ofstream o(db_, std::ios::binary);
    o << "garbage garbage garbage garbage garbage\n";
  }
  const auto before = slurp(db_);
  expect_usage_error("history", "not an SQLite database");
  expect_usage_error("report --format md", "not an SQLite database");
  expect_usage_error("compare 1 2", "not an SQLite database");
  EXPECT_EQ(slurp(db_), before);
  EXPECT_FALSE(fs::exists(db_ + "-wal"));
}

TEST_F(ResultsCli, EmptyHistory) {
  auto r = cli("history");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("No history yet"), std::string::npos);
  EXPECT_FALSE(fs::exists(db_));  // reading never creates the database
  expect_usage_error("report --format md", "no stored run");
}

TEST_F(ResultsCli, RunStoresItselfUnlessNoSave) {
  auto r = cli("run --quick --models mlp --devices cpu --batch-size 16 --synthetic --max-time-per-case 2 --no-save --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(db_));
  r = cli(fmt::format("run --quick --models mlp --devices cpu --batch-size 16 --synthetic --max-time-per-case 2 --no-progress --db {}",
                      file("mine.db")));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("stored as run 1"), std::string::npos) << r.err;
  HistoryStore store(file("mine.db"));
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].case_count, 1u);
  EXPECT_EQ(store.load_run(runs[0].id).cases[0].spec.workload, "mlp");
  // a corrupt database is refused before anything is measured
  {
    std::ofstream o(file("bad.db"), std::ios::binary);
    o << "not a database at all, not even close\n";
  }
  // Refused before measuring: the JSON, written after each measured case, never appears.
  r = cli(fmt::format("run --quick --models mlp --devices cpu --synthetic --db {} --json {}", file("bad.db"),
                      file("refused.json")));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(file("refused.json")));
}
