// End-to-end: a tool people enjoy. Output fits COLUMNS=100 (run, compare, history, a
// sweep, every --help); the history managed (--json, rm, prune).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <regex>
#include <filesystem>
#include <algorithm>
#include <tuple>
#include <thread>
#include <sstream>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "e2e/cli_runner.h"
#include "report/json_report.h"
#include "store/history_store.h"
#include "support/synthetic_runs.h"

using namespace accelbench;
using namespace accelbench::testing;

namespace {

// The longest line (in characters) and the line itself.
std::pair<std::size_t, std::string> longest_line(const std::string& text) {
  std::pair<std::size_t, std::string> best{0, ""};
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::size_t n = 0;
    for (unsigned char c : line) n += (c & 0xC0) != 0x80;
    if (n > best.first) best = {n, line};
  }
  return best;
}

void expect_fits(const std::string& args, const std::string& env, std::size_t width, int code = 0) {
  const auto r = run_cli(args, env);
  EXPECT_EQ(r.code, code) << args << "\n" << r.err;
  for (const auto* text : {&r.out, &r.err}) {
    const auto [n, line] = longest_line(*text);
    EXPECT_LE(n, width) << args << ": a line of " << n << " characters:\n" << line;
  }
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << "colour when piped: " << args;
}

const std::string kTiny = " --quick --devices cpu --batch-size 16 --synthetic --max-time-per-case 2 --no-progress";
const std::string kFastPoint = " --ci-target 0.5 --min-samples 3 --min-time 0 --max-time-per-point 2s --no-telemetry --synthetic";

}  // namespace

TEST(ToolCli, EveryHelpFitsHundredColumns) {
  for (const char* cmd : {"", "run", "profile", "devices", "doctor", "history", "history rm", "history prune", "compare",
                          "report", "advise", "sweep", "sweep batch", "sweep precision", "sweep threads", "sweep workers",
                          "sweep crossover", "scale", "peak"})
    expect_fits(fmt::format("{} --help", cmd), "COLUMNS=100", 100);
  const auto r = run_cli("--help", "COLUMNS=100");
  EXPECT_NE(r.out.find("ACCELBENCH_DB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NO_COLOR"), std::string::npos) << r.out;
  // narrower still
  expect_fits("run --help", "COLUMNS=60", 60);
}

TEST(ToolCli, RunHistoryCompareAndSweepFitHundredColumns) {
  TempDir dir;
  const auto db = dir.file("h.db");
  const std::string env = "COLUMNS=100 ACCELBENCH_DB=" + db;
  expect_fits("run --models mlp,cnn" + kTiny, env, 100);
  expect_fits("run --models mlp" + kTiny, env, 100);
  expect_fits("history", env, 100);
  expect_fits("compare 1 2", env, 100);
  expect_fits("sweep threads --model mlp --max-threads 2" + kFastPoint, env, 100);
  expect_fits("peak --device cpu --quick --no-progress", env, 100);
  // compare of two wide synthetic runs (long reasons)
  SyntheticOptions o;
  write_json_report(make_run(o), dir.file("a.json"));
  o.slowdown = 1.3;
  o.seed = 2;
  write_json_report(make_run(o), dir.file("b.json"));
  expect_fits(fmt::format("compare {} {}", dir.file("a.json"), dir.file("b.json")), env, 100);
  expect_fits(fmt::format("report {} --format md", dir.file("a.json")), env, 1000);  // a file format: not wrapped
}

TEST(ToolCli, HistoryJsonRmAndPrune) {
  TempDir dir;
  const auto db = dir.file("h.db");
  {
    HistoryStore store(db);
    for (int i = 0; i < 5; ++i) {
      SyntheticOptions o;
      o.workloads = {"mlp"};
      o.seed = static_cast<std::uint64_t>(i + 1);
      store.save_run(make_run(o));
    }
  }
  const std::string env = "ACCELBENCH_DB=" + db;
  auto r = run_cli("history --json", env);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs"].size(), 5u);
  EXPECT_EQ(j["cases"].size(), 10u);  // mlp on cpu and cuda:0 in each run
  EXPECT_EQ(j["cases"][0]["ci_level"], 0.95);

  r = run_cli("history rm 2 4", env);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Removed 2 runs"), std::string::npos) << r.out;
  j = nlohmann::json::parse(run_cli("history --json", env).out);
  ASSERT_EQ(j["runs"].size(), 3u);
  EXPECT_EQ(j["runs"][1]["id"], 3);
  for (const auto& c : j["cases"]) EXPECT_NE(c["run_id"], 2);

  expect_usage_error("history rm 99", "no stored run '99'", env);
  r = run_cli("history --json", env);
  EXPECT_EQ(nlohmann::json::parse(r.out)["runs"].size(), 3u);  // all or none

  r = run_cli("history prune --keep 1 --dry-run", env);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Would remove 2 of 3 runs"), std::string::npos) << r.out;
  r = run_cli("history prune --older-than 90d", env);  // all stored just now
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Removed 0 of 3 runs"), std::string::npos) << r.out;
  r = run_cli("history prune --keep 1", env);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Removed 2 of 3 runs"), std::string::npos) << r.out;
  j = nlohmann::json::parse(run_cli("history --json", env).out);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["id"], 5);
  // one run of a case: too few to call a change (said in its row; under --verbose, under its table)
  r = run_cli("history", env);
  EXPECT_NE(r.out.find("too few runs (4 needed)"), std::string::npos) << r.out;
  r = run_cli("history --verbose", env);
  EXPECT_NE(r.out.find("1 run: too few to call a change"), std::string::npos) << r.out;

  expect_usage_error("history prune", "needs --older-than", env);
  expect_usage_error("history prune --older-than '3 parsecs'", "takes an age", env);
  expect_usage_error("history prune --older-than 90x", "takes an age", env);
  expect_usage_error("history prune --keep 0", "--keep must be at least 1", env);
}

TEST(ToolCli, DoctorFlagsABusyMachineAndOversubscribedThreads) {
  // A child that burns one core for as long as the test needs it.
  const pid_t burner = ::fork();
  ASSERT_GE(burner, 0);
  if (burner == 0) {
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto r = run_cli("doctor");
  ::kill(burner, SIGKILL);
  ::waitpid(burner, nullptr, 0);
  EXPECT_NE(r.out.find("PROBLEM      load: the machine is busy"), std::string::npos) << r.out;
  // Named among the three busiest, unless three other processes outrank it (a machine busier still).
  std::size_t named = 0;
  for (auto at = r.out.find("(pid "); at != std::string::npos; at = r.out.find("(pid ", at + 1)) ++named;
  if (named < 3) EXPECT_NE(r.out.find(fmt::format("(pid {})", burner)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  fix:"), std::string::npos) << r.out;

  const unsigned most = 4 * std::max(1u, std::thread::hardware_concurrency());  // the most --threads allows: 4 a core
  const auto o = run_cli(fmt::format("doctor --threads {}", most));
  EXPECT_NE(o.out.find(fmt::format("{} intra-op threads on", most)), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("oversubscribed"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("fix:       --threads"), std::string::npos) << o.out;
  // run names it in one line before measuring, and says it whole after the tables
  const auto run = run_cli("run --models mlp --threads 8 --no-save" + kTiny);
  const auto headline = run.err.find("accelbench: timings may be DISTORTED by: ");
  EXPECT_NE(headline, std::string::npos) << run.err;
  EXPECT_NE(run.err.find("threads", headline), std::string::npos) << run.err;
  EXPECT_GT(run.err.find("timings may be DISTORTED: "), headline) << run.err;
  EXPECT_NE(run.err.find("oversubscribed"), std::string::npos) << run.err;
}

TEST(ToolCli, ConsistentFlagsAndReportFormats) {
  TempDir dir;
  write_json_report(make_run(SyntheticOptions{}), dir.file("a.json"));
  // report --format json, and -o's extension
  auto r = run_cli(fmt::format("report {} --format json", dir.file("a.json")));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["cases"].size(), 6u);
  r = run_cli(fmt::format("report {} -o {}", dir.file("a.json"), dir.file("b.json")));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir.file("b.json")))["cases"].size(), 6u);
  expect_usage_error(fmt::format("report {} --format md -o {}", dir.file("a.json"), dir.file("c.json")),
                     "--format md does not match --output");
  // aliases: --model on run, --models on a sweep
  expect_usage_error("run --model nosuchmodel", "unknown model 'nosuchmodel'");
  expect_usage_error("sweep threads --models nosuchmodel", "unknown model 'nosuchmodel'");
  // a backend this libtorch lacks
  const auto cuda = run_cli("run --devices cuda --models mlp --no-save");
  if (cuda.code == 2) EXPECT_NE(cuda.err.find("TORCH_PREFIX"), std::string::npos) << cuda.err;
}

TEST(ToolCli, InstallsTheBinaryItsManPageAndCompletions) {
  TempDir dir;
  const auto prefix = dir.file("stage");
  const auto log = dir.file("install.log");
  const auto install = fmt::format("'{}' --install '{}' --prefix '{}' --component tool >'{}' 2>&1", ACCELBENCH_CMAKE,
                                   ACCELBENCH_BUILD_DIR, prefix, log);
  ASSERT_EQ(std::system(install.c_str()), 0) << slurp(log);
  auto sh = [&](const std::string& cmd) {
    const auto out = dir.file("sh.out");
    const int rc = std::system(fmt::format("{} >'{}' 2>&1", cmd, out).c_str());
    return std::make_pair(rc, slurp(out));
  };
  auto [rc, out] = sh(fmt::format("'{}/bin/accelbench' --version", prefix));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.rfind("accelbench ", 0), 0u) << out;
  // The installed command finds its engine in libexec/accelbench/ (a command that needs libtorch).
  std::tie(rc, out) = sh(fmt::format("'{}/bin/accelbench' devices --json", prefix));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_TRUE(std::filesystem::exists(prefix + "/libexec/accelbench/accelbench-engine"));
  // doctor names the installed engine, the torch it was built against beside the one it loaded, and
  // the Python cases' interpreter (ACCELBENCH_PYTHON first, as the pip launcher sets it).
  const std::string python = std::string(PYTHON_FOR_TESTS).empty() ? "/nonexistent/python3" : PYTHON_FOR_TESTS;
  std::tie(rc, out) = sh(fmt::format("COLUMNS=400 ACCELBENCH_DB='{}' ACCELBENCH_PYTHON='{}' '{}/bin/accelbench' doctor", dir.file("d.db"),
                                     python, prefix));
  EXPECT_NE(out.find(fmt::format("\nengine       {}/libexec/accelbench/accelbench-engine\n", prefix)), std::string::npos) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("\ntorch build  built against ([^ ]+ \\([^)]+\\)); loaded \\1 from /[^\n]+/lib\n")))
      << out;
  if (!std::string(PYTHON_FOR_TESTS).empty())
    EXPECT_NE(out.find(fmt::format("\npython cases {} (Python ", python)), std::string::npos) << out;
  if (!std::string(PYTHON_FOR_TESTS).empty()) EXPECT_NE(out.find("; from ACCELBENCH_PYTHON\n"), std::string::npos) << out;
  if (!std::string(PYTHON_FOR_TESTS).empty()) {  // the engine finds the installed Python measurer from libexec/
    const auto json = dir.file("python.json");
    std::tie(rc, out) = sh(fmt::format("ACCELBENCH_DB='{}' '{}/bin/accelbench' run --impl python --models mlp --devices cpu "
                                       "--rounds 1 --parity-steps 0 --no-telemetry --no-save --no-progress --batch-size 16 "
                                       "--max-time-per-case 2s --python '{}' --json '{}'",
                                       dir.file("h.db"), prefix, PYTHON_FOR_TESTS, json));
    ASSERT_EQ(rc, 0) << out;
    const auto measurer = nlohmann::json::parse(slurp(json))["context"]["settings"]["python_measurer"];
    EXPECT_EQ(measurer["worker"], prefix + "/share/accelbench/python") << measurer.dump();
  }
  // The Python measurer beside the binary (--impl python finds it there).
  EXPECT_TRUE(std::filesystem::exists(prefix + "/share/accelbench/python/accelbench_worker/__main__.py"));
  const auto man = prefix + "/share/man/man1/accelbench.1";
  if (std::system("command -v man >/dev/null 2>&1") == 0) {
    std::tie(rc, out) = sh(fmt::format("MANWIDTH=100 man -l '{}'", man));
    EXPECT_EQ(rc, 0) << out;
    for (const char* part : {"NAME", "accelbench sweep batch", "--older-than", "ACCELBENCH_DB", "EXIT STATUS"})
      EXPECT_NE(out.find(part), std::string::npos) << part << "\n" << out.substr(0, 2000);
  }
  const auto bash = prefix + "/share/bash-completion/completions/accelbench";
  auto complete = [&](const std::string& words, int cword) {
    return sh(fmt::format("bash -c 'source \"{}\"; COMP_WORDS=({}); COMP_CWORD={}; _accelbench; echo \"${{COMPREPLY[*]}}\"'", bash,
                          words, cword)).second;
  };
  std::tie(rc, out) = sh(fmt::format("bash -c 'source \"{}\"; complete -p accelbench'", bash));
  EXPECT_NE(out.find("complete -F _accelbench accelbench"), std::string::npos) << out;
  EXPECT_EQ(complete("accelbench sw", 1), "sweep\n");
  EXPECT_EQ(complete("accelbench sweep b", 2), "batch\n");
  EXPECT_EQ(complete("accelbench history pr", 2), "prune\n");
  EXPECT_NE(complete("accelbench history --j", 2).find("--json"), std::string::npos);
  EXPECT_NE(complete("accelbench run --models tr", 3).find("transformer"), std::string::npos);
  EXPECT_EQ(complete("accelbench report --format h", 3), "html\n");  // the table of report formats
  EXPECT_EQ(complete("accelbench _d", 1), "\n");  // hidden commands are not offered
  for (const auto& [shell, file] : {std::pair<std::string, std::string>{"zsh", "/share/zsh/site-functions/_accelbench"},
                                    {"fish", "/share/fish/vendor_completions.d/accelbench.fish"}}) {
    ASSERT_TRUE(std::filesystem::exists(prefix + file)) << file;
    if (std::system(fmt::format("command -v {} >/dev/null 2>&1", shell).c_str()) == 0)
      EXPECT_EQ(sh(fmt::format("{} -n '{}{}'", shell, prefix, file)).first, 0) << shell;
  }
}

TEST(ToolCli, RunSaysBeforeMeasuringWhichCaseCannotFit) {
  TempDir dir;
  const auto db = dir.file("h.db");
  {
    HistoryStore store(db);
    SyntheticOptions o;
    o.workloads = {"mlp"};  // mlp on cpu at batch 64: a 4 ms step
    store.save_run(make_run(o));
  }
  // --quick: 2 rounds of 2 warm-up steps + 5 samples = 14 steps, ~56 ms: more than a 50 ms share
  // --verbose says each note as it happens; by default the notes follow the tables, where what the
  // case's rounds met replaces the prediction.
  const auto r = run_cli("run --quick --models mlp --devices cpu --synthetic --no-progress --max-time-per-case 0.05s --verbose --db " + db);
  EXPECT_EQ(r.code, 0) << r.err;
  const auto warned = r.err.find("mlp on cpu (float32, batch 64) cannot fit: a step took");
  ASSERT_NE(warned, std::string::npos) << r.err;
  EXPECT_LT(warned, r.err.find("stored as run")) << "said before measuring:\n" << r.err;
}

// `accelbench peak` on the CPU: every ceiling the CPU has, measured (a positive median inside its
// interval) and said in the table; --json and the history hold the same; doctor then shows them; bad
// input refused before anything is measured.
TEST(ToolCli, PeakMeasuresTheCpuStoresItAndDoctorShowsIt) {
  TempDir dir;
  const auto db = dir.file("h.db"), json = dir.file("peak.json");
  const auto env = "ACCELBENCH_DB=" + db;
  const auto r = run_cli(fmt::format("peak --device cpu --quick --json {}", json), env);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  for (const char* row : {"matmul float32", "matmul bfloat16", "matmul float16", "copy on the device",
                          "launch, round trip", "launch, back to back"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Stored in " + db), std::string::npos) << r.out;
  const auto doc = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(doc["schema"], "accelbench.peaks/1");
  ASSERT_EQ(doc["devices"].size(), 1u);
  const auto& cpu = doc["devices"][0];
  EXPECT_EQ(cpu["device"], "cpu");
  ASSERT_EQ(cpu["ceilings"].size(), 6u);  // three matmuls, the copy, two launch figures: nothing unavailable
  for (const auto& c : cpu["ceilings"]) {
    ASSERT_TRUE(c.contains("median")) << c.dump();
    const double m = c["median"], lo = c["ci_low"], hi = c["ci_high"];
    EXPECT_GT(m, 0) << c.dump();
    EXPECT_LE(lo, m) << c.dump();
    EXPECT_GE(hi, m) << c.dump();
    EXPECT_EQ(c["samples"], 5) << c.dump();
    // the ceiling is the best of the five samples, kept beside them: the fastest rate, the shortest launch
    ASSERT_EQ(c["values"].size(), 5u) << c.dump();
    const auto values = c["values"].get<std::vector<double>>();
    const bool time = c["unit"] == "s";
    const double best = c["best"];
    EXPECT_DOUBLE_EQ(best, time ? *std::min_element(values.begin(), values.end()) : *std::max_element(values.begin(), values.end()))
        << c.dump();
    EXPECT_TRUE(time ? best <= m : best >= m) << c.dump();
  }
  // the float32 matmul at a size large enough to take 50 ms, or the CPU's largest (4096)
  EXPECT_NE(cpu["ceilings"][0]["size"].get<std::string>().find(" x "), std::string::npos);
  // the copy's buffers on transparent huge pages where the kernel offers them (madvise or always)
  const auto thp_modes = slurp("/sys/kernel/mm/transparent_hugepage/enabled");
  const bool thp = !thp_modes.empty() && thp_modes.find("[never]") == std::string::npos;
  EXPECT_EQ(cpu["ceilings"][3]["size"].get<std::string>().find(", huge pages (madvise)") != std::string::npos, thp)
      << cpu["ceilings"][3].dump();

  const auto d = run_cli("doctor", env);
  EXPECT_NE(d.out.find("ceilings     cpu     measured "), std::string::npos) << d.out;
  // the fastest matmul precision: float32 on most CPUs, bfloat16 where the CPU has bf16 instructions
  EXPECT_TRUE(d.out.find("matmul float32") != std::string::npos || d.out.find("matmul bfloat16") != std::string::npos) << d.out;
  const auto none = run_cli("doctor", "ACCELBENCH_DB=" + dir.file("none.db"));
  EXPECT_NE(none.out.find("ceilings     cpu     not measured yet: accelbench peak --device cpu"), std::string::npos)
      << none.out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.db")));  // doctor only reads the history

  // a run on the same history gets each case's utilisation; without ceilings it says how to get them
  const auto run_json = dir.file("run.json");
  const auto run = run_cli(fmt::format("run --models mlp --verbose --json {}{}", run_json, kTiny), env);  // every note
  ASSERT_EQ(run.code, 0) << run.err;
  const auto mlp = nlohmann::json::parse(slurp(run_json))["cases"][0]["utilisation"];
  ASSERT_TRUE(mlp["share_of_ceiling"].is_number()) << mlp.dump();
  EXPECT_GT(mlp["share_of_ceiling"].get<double>(), 0) << mlp.dump();
  EXPECT_DOUBLE_EQ(mlp["ceiling_flops_per_s"].get<double>(), cpu["ceilings"][0]["best"].get<double>());
  EXPECT_NE(unwrapped(run.out).find("of the float32 matmul"), std::string::npos) << run.out;  // wrapped at 100 columns
  const auto bare = run_cli("run --models mlp" + kTiny, "ACCELBENCH_DB=" + dir.file("bare.db"));
  EXPECT_NE(bare.err.find("no ceilings of cpu for torch"), std::string::npos) << bare.err;

  expect_usage_error("peak --device tpu", "tpu");
  expect_usage_error(fmt::format("peak --device cpu --json {} --db {}", db, db), "same file");
  expect_usage_error(fmt::format("peak --device cpu --json {}", dir.path.string()), "--json");
}

// A run's interval is where the next run's median falls: on a first run from its rounds (JSON
// run_to_run source "rounds"), then from the stored runs of its kind on this host. Run 5 follows
// four stored runs, the first doubled with SQLite: its interval comes from the history (alone, or
// pooled with the rounds where they disagree as much) and reaches past the doubled median.
TEST(ToolCli, RunTakesItsRangeFromTheRoundsThenFromTheHistory) {
  TempDir dir;
  const auto db = dir.file("h.db");
  const std::string args = "run --models mlp --devices cpu --quick --rounds 2 --in-process-rounds --parity-steps 0 "
                           "--no-telemetry --no-progress --max-time-per-case 3s --batch-size 16 --verbose --db " + db;
  for (int i = 1; i <= 5; ++i) {
    if (i > 1) {
      sqlite3* h = nullptr;
      ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
      // A busy machine marks some runs distorted and not others, which leaves them out of each
      // other's history (DistortionMarkTest, SpeedupSpread): unmarked here, every stored run counts.
      ASSERT_EQ(sqlite3_exec(h, "UPDATE runs SET distorted_by = NULL", nullptr, nullptr, nullptr), SQLITE_OK);
      if (i == 5)
        ASSERT_EQ(sqlite3_exec(h, "UPDATE cases SET median = median * 2 WHERE run_id = 1", nullptr, nullptr, nullptr), SQLITE_OK);
      sqlite3_close(h);
    }
    const auto json = dir.file(fmt::format("run{}.json", i));
    const auto r = run_cli(args + " --json " + json);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const auto c = nlohmann::json::parse(slurp(json))["cases"][0];
    const auto& rr = c["run_to_run"];
    ASSERT_TRUE(rr.is_object()) << "run " << i << ": " << c.dump().substr(0, 400);
    EXPECT_EQ(rr["earlier_runs"], i - 1);
    EXPECT_TRUE(rr["widened"].get<bool>());
    EXPECT_EQ(rr["kind"], "host-bound");
    const double median = c["stats"]["median"], high = c["stats"]["ci_high"], low = c["stats"]["ci_low"];
    const double half = rr["half_width_log"];
    EXPECT_NEAR(std::log(high / median), half, 1e-9) << rr.dump();
    EXPECT_NEAR(std::log(median / low), half, 1e-9) << rr.dump();
    EXPECT_NEAR(rr["level_half_width_log"].get<double>() * std::sqrt(2.0), half, 1e-9) << rr.dump();
    EXPECT_NE(unwrapped(r.err).find("where the next run's median should fall"), std::string::npos) << r.err;
    if (i == 1) {
      // Two rounds give the rounds' spread; on a busy machine the second may not fit the 3 s, and one
      // round leaves the named fallback.
      const bool two_rounds = c["rounds"].size() >= 2;
      EXPECT_EQ(rr["source"], two_rounds ? "rounds" : "fallback") << rr.dump();
      EXPECT_GE(rr["dof"].get<double>(), two_rounds ? 1 : 3);
    }
    if (i < 5) continue;
    // The history's alone where it varies beyond the rounds; pooled with them where the rounds
    // disagree as much (a busy machine): both reach past the doubled median.
    const auto source = rr["source"].get<std::string>();
    EXPECT_TRUE(source == "history" || source == "history and rounds") << rr.dump();
    EXPECT_GE(rr["dof"].get<double>(), 4);
    EXPECT_GE(high, 1.9 * median) << "the doubled run's median lies outside";
    EXPECT_LE(low, median / 1.9);
    EXPECT_NE(unwrapped(r.err).find(source == "history" ? "they varied more than this run's rounds" : "and this run's rounds"),
              std::string::npos) << r.err;
  }
}
