// The HTML report opened in a real browser: headless Chromium (Debian's `chromium`, installed by
// scripts/setup.sh; nothing is downloaded at run time). Skips when no Chromium is installed.
// Checks elements, not pixels: the page loads, its script ran without error, no resource was
// refused (the page must need none), and each chart has its marks and its table.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "report/reports.h"
#include "store/history_store.h"
#include "report/run_source.h"
#include "support/synthetic_runs.h"

namespace fs = std::filesystem;
using namespace accelbench;

namespace {

std::string find_chromium() {
  if (const char* env = std::getenv("ACCELBENCH_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
      const auto p = fs::path(dir) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  return "";
}

// Runs a command through the shell; returns its exit status, stdout into `out`.
int run(const std::string& cmd, std::string& out) {
  out.clear();
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class BrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty()) GTEST_SKIP() << "no chromium installed (scripts/setup.sh installs Debian's chromium)";
    dir_ = fs::temp_directory_path() / fmt::format("accelbench-browser-{}", ::getpid());
    fs::create_directories(dir_);
    accelbench::testing::SyntheticOptions o;
    o.batch_sizes = {32, 64, 128, 256};
    ReportSource src;
    src.run = accelbench::testing::make_run(o);
    src.document = accelbench::testing::with_telemetry(src.run);
    src.name = "synthetic sweep (browser test)";
    html_ = dir_ / "report.html";
    write_text_atomically(html_.string(), render_html_report(src));
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string chromium(const std::string& args, const std::string& log_name) {
    const auto log = dir_ / log_name;
    // --user-data-dir: a fresh profile of its own, so nothing of the user's is touched
    const std::string cmd = fmt::format(
        "timeout 60 '{}' --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions "
        "--user-data-dir='{}' --enable-logging=stderr --v=0 {} 'file://{}' 2>'{}'",
        chromium_, (dir_ / "profile").string(), args, html_.string(), log.string());
    std::string out;
    const int rc = run(cmd, out);
    log_ = slurp(log);
    EXPECT_EQ(rc, 0) << cmd << "\n" << log_;
    return out;
  }
  std::string chromium_, log_;
  fs::path dir_, html_;
};

}  // namespace

TEST_F(BrowserTest, ReportLoadsWithoutErrorsAndEveryChartHasItsElements) {
  const auto dom = chromium("--virtual-time-budget=5000 --dump-dom", "dump.log");
  ASSERT_NE(dom.find("data-loaded=\"yes\""), std::string::npos) << "the page's load handler did not run\n" << log_;
  EXPECT_NE(dom.find("data-errors-count=\"0\""), std::string::npos) << log_;
  EXPECT_EQ(dom.find("data-errors=\""), std::string::npos);
  EXPECT_NE(dom.find("data-charts=\"6\""), std::string::npos);
  EXPECT_NE(dom.find("data-charts-ok=\"6\""), std::string::npos);
  // each chart, as the browser laid it out
  std::regex fig_re("<figure class=\"chart\" data-chart=\"([a-z-]+)\"[^>]*data-check=\"([a-z]+)\"");
  std::size_t figures = 0;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), fig_re); it != std::sregex_iterator(); ++it) {
    ++figures;
    EXPECT_EQ((*it)[2], "ok") << "chart " << (*it)[1];
  }
  EXPECT_EQ(figures, 6u);
  // nothing refused or failed: the page needs no resource and its script has no error
  for (const char* bad : {"Refused to", "Uncaught", "ERR_", "Failed to load"})
    EXPECT_EQ(log_.find(bad), std::string::npos) << bad << " in chromium's log:\n" << log_;
}

TEST_F(BrowserTest, ScreenshotIsAPng) {
  const auto png = dir_ / "report.png";
  chromium(fmt::format("--hide-scrollbars --window-size=1200,2000 --screenshot='{}'", png.string()), "shot.log");
  const auto bytes = slurp(png);
  ASSERT_GT(bytes.size(), 20000u) << log_;
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  if (const char* keep = std::getenv("ACCELBENCH_KEEP_SCREENSHOT"); keep && *keep) fs::copy_file(png, keep, fs::copy_options::overwrite_existing);
}

// A CPU-only run as `report` reads it from the history database after two stored runs: the
// browser shows only panels with data (no empty figure; what the run lacks is one list) and the
// history chart of each case, each chart with its marks.
TEST_F(BrowserTest, CpuOnlyRunFromTheHistoryHasNoEmptyPanelAndItsHistoryCharts) {
  const auto db = (dir_ / "history.db").string();
  {
    HistoryStore store(db);
    for (std::uint64_t seed : {1, 2}) {
      accelbench::testing::SyntheticOptions o;
      o.devices = {"cpu"};
      o.seed = seed;
      store.save_run(accelbench::testing::make_run(o));
    }
  }
  const auto src = load_latest_run(db);
  ASSERT_EQ(src.history.size(), 6u);  // 3 cases x 2 runs
  const auto page = render_html_report(src);
  EXPECT_EQ(page.find("chart empty"), std::string::npos);
  write_text_atomically(html_.string(), page);
  const auto dom = chromium("--virtual-time-budget=5000 --dump-dom", "cpu-dump.log");
  ASSERT_NE(dom.find("data-loaded=\"yes\""), std::string::npos) << "the page's load handler did not run\n" << log_;
  EXPECT_NE(dom.find("data-errors-count=\"0\""), std::string::npos) << log_;
  std::regex fig_re("<figure class=\"chart\" data-chart=\"([a-z0-9-]+)\"[^>]*data-check=\"([a-z]+)\"");
  std::vector<std::string> charts;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), fig_re); it != std::sregex_iterator(); ++it) {
    charts.push_back((*it)[1]);
    EXPECT_EQ((*it)[2], "ok") << "chart " << (*it)[1];
  }
  EXPECT_EQ(charts, (std::vector<std::string>{"step-time", "history-0", "history-1", "history-2"}));
  EXPECT_NE(dom.find("data-charts=\"4\""), std::string::npos);
  EXPECT_NE(dom.find("data-charts-ok=\"4\""), std::string::npos);
  EXPECT_NE(dom.find("data-absent=\"speedup\""), std::string::npos);  // no accelerator: said once, in the list
}
