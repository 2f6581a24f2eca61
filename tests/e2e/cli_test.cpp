// End-to-end tests: the real accelbench binary, its exit codes, its output and its JSON.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.h"

namespace {
using accelbench::testing::count_lines;
using accelbench::testing::run_cli;
using accelbench::testing::slurp;
using Result = accelbench::testing::CliResult;

// The shared check, and no uncaught exception on the way.
void expect_usage_error(const std::string& args, const std::string& fragment) {
  const auto r = accelbench::testing::expect_usage_error(args, fragment);
  EXPECT_EQ(r.err.find("terminate"), std::string::npos);
}
}  // namespace

TEST(Cli, VersionAndHelp) {
  auto r = run_cli("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("accelbench"), std::string::npos);
  for (const char* sub : {"run", "devices", "doctor"}) {
    r = run_cli(std::string(sub) + " --help");
    EXPECT_EQ(r.code, 0) << sub;
    EXPECT_NE(r.out.find("--"), std::string::npos) << sub;
  }
}

// `accelbench` answers --version without its engine (no libtorch loaded), in the engine's own words,
// and says in one line that the engine is missing when a command needs it.
TEST(Cli, TheCommandAnswersVersionWithoutTheEngine) {
  const std::filesystem::path launcher(ACCELBENCH_BIN);
  const auto engine = launcher.parent_path() / "accelbench-engine";
  ASSERT_TRUE(std::filesystem::exists(engine));
  accelbench::testing::TempDir dir;
  const auto alone = dir.file("accelbench");
  std::filesystem::copy_file(launcher, alone);
  auto run = [&](const std::string& binary, const std::string& args) {
    const auto out = dir.file("out"), err = dir.file("err");
    const int status = std::system((binary + " " + args + " >" + out + " 2>" + err + " </dev/null").c_str());
    return Result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  };
  const auto from_engine = run(engine.string(), "--version");
  const auto from_launcher = run(alone, "--version");
  EXPECT_EQ(from_engine.code, 0);
  EXPECT_EQ(from_launcher.code, 0);
  EXPECT_EQ(from_launcher.out, from_engine.out);
  const auto without_engine = run(alone, "devices");
  EXPECT_EQ(without_engine.code, 1);
  EXPECT_EQ(count_lines(without_engine.err), 1) << without_engine.err;
  EXPECT_NE(without_engine.err.find("accelbench-engine"), std::string::npos) << without_engine.err;
}

TEST(Cli, DevicesJson) {
  const auto r = run_cli("devices --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["devices"][0]["id"], "cpu");
}

TEST(Cli, BadInputIsOneLineAndExitCodeTwo) {
  expect_usage_error("run --models nope", "unknown model 'nope'");
  expect_usage_error("run --devices tpu", "available: cpu");
  expect_usage_error("run --devices cuda:3", "available: cpu");
  expect_usage_error("run --batch-size 0", "--batch-size");
  expect_usage_error("run --batch-size abc", "batch-size");
  expect_usage_error("run --max-time-per-case -5", "negative");
  expect_usage_error("run --budget '3 parsecs'", "invalid duration");
  expect_usage_error("run --ci-target 2", "--ci-target");
  expect_usage_error("run --threads -1", "--threads");
  expect_usage_error("run --json /nonexistent-dir/x.json", "cannot write");
  expect_usage_error("run --data-dir /nonexistent-dir", "does not exist");
  expect_usage_error("frobnicate", "unknown command 'frobnicate'");
}

// --graphs: refused in one line, exit 2, before anything is measured, where nothing can
// capture a CUDA graph; the reason names the device.
TEST(Cli, GraphsOnTheCpuAreRefusedInOneLine) {
  expect_usage_error("run --graphs --devices cpu --models mlp", "--graphs: cpu: the CPU has no graph capture");
  expect_usage_error("sweep batch --graphs --device cpu --model mlp", "--graphs: cpu: the CPU has no graph capture");
  expect_usage_error("sweep precision --graphs --device cpu --model mlp", "--graphs: cpu: the CPU has no graph capture");
  expect_usage_error("run --graphs --devices cpu --models transformer --checkpoint", "--graphs");
}

// doctor exits 1 exactly when it prints a PROBLEM line (a variable or the machine's state: a busy
// machine is one, so the clean environment may still exit 1, with a PROBLEM line saying why).
TEST(Cli, DoctorFlagsDistortingEnvironment) {
  auto r = run_cli("doctor", "env -u CUDA_LAUNCH_BLOCKING -u OMP_NUM_THREADS -u MKL_NUM_THREADS -u PYTORCH_ENABLE_MPS_FALLBACK");
  EXPECT_EQ(r.code, r.out.find("PROBLEM") == std::string::npos ? 0 : 1) << r.out << r.err;
  EXPECT_NE(r.out.find("environment  no variable that distorts timings"), std::string::npos) << r.out;
  // "nothing that distorts timings" only in the verdict, and only where no PROBLEM line is printed
  const bool problem = r.out.find("PROBLEM") != std::string::npos;
  EXPECT_EQ(r.out.find("verdict      nothing that distorts timings") != std::string::npos, !problem) << r.out;
  EXPECT_EQ(r.out.find("verdict      timings distorted") != std::string::npos, problem) << r.out;
  EXPECT_NE(r.out.find("torch"), std::string::npos);
  EXPECT_NE(r.out.find("backend      cuda"), std::string::npos) << r.out;
  r = run_cli("doctor", "env CUDA_LAUNCH_BLOCKING=1");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("PROBLEM      CUDA_LAUNCH_BLOCKING"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unset CUDA_LAUNCH_BLOCKING"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("nothing that distorts timings"), std::string::npos) << r.out;
  // --db: the history the ceilings are read from (a missing one: not measured yet)
  r = run_cli("doctor --db /nonexistent/history.db", "env -u CUDA_LAUNCH_BLOCKING");
  EXPECT_NE(r.code, 2) << r.err;
  EXPECT_NE(r.out.find("ceilings     cpu     not measured yet"), std::string::npos) << r.out;
}

namespace {
// The longest line of `text` in characters (UTF-8 code points).
std::size_t longest_line(const std::string& text) {
  std::size_t longest = 0, n = 0;
  for (unsigned char c : text) {
    if (c == '\n') longest = std::max(longest, n), n = 0;
    else if ((c & 0xC0) != 0x80) ++n;
  }
  return std::max(longest, n);
}
}  // namespace

// Every line of doctor and of each command's --help within COLUMNS; the environment variables once,
// in `accelbench --help`; a long command's options under their purpose.
TEST(Cli, HelpAndDoctorFitColumnsAndTheEnvironmentIsSaidOnce) {
  const auto top = run_cli("--help", "COLUMNS=72");
  EXPECT_EQ(top.code, 0) << top.err;
  EXPECT_NE(top.out.find("ACCELBENCH_DB_WAIT"), std::string::npos) << top.out;
  EXPECT_LE(longest_line(top.out), 72u) << top.out;
  for (const char* sub : {"run", "sweep batch", "sweep crossover", "profile", "peak", "scale", "compare", "report",
                          "history", "doctor"}) {
    const auto r = run_cli(std::string(sub) + " --help", "COLUMNS=72");
    EXPECT_EQ(r.code, 0) << sub << r.err;
    EXPECT_EQ(r.out.find("ACCELBENCH_DB_WAIT"), std::string::npos) << sub << ": the environment block again\n" << r.out;
    EXPECT_NE(r.out.find("Environment variables: accelbench --help."), std::string::npos) << sub << r.out;
    EXPECT_LE(longest_line(r.out), 72u) << sub << r.out;
  }
  const auto run = run_cli("run --help", "COLUMNS=72");
  for (const char* group : {"What to measure:", "Data:", "Your own model:", "The Python loop:", "How long and how precise:",
                            "Telemetry:", "Output and history:"})
    EXPECT_NE(run.out.find(group), std::string::npos) << group << "\n" << run.out;
  // --impl is what to measure, not a model of one's own; --compile is off unless given
  const auto measure = run.out.find("What to measure:"), own = run.out.find("Your own model:");
  const auto impl = run.out.find("  --impl");
  EXPECT_TRUE(measure < impl && impl < own) << run.out;
  const auto own_end = run.out.find(":\n", own + 16);
  EXPECT_EQ(run.out.substr(own, own_end - own).find("--impl"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("TEXT=default"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--compile [MODE]"), std::string::npos) << run.out;
  const auto doctor = run_cli("doctor", "COLUMNS=72");
  EXPECT_LE(longest_line(doctor.out), 72u) << doctor.out;
}

namespace {
// stdout and stderr of one run in one file, in the order a terminal shows them.
std::string run_merged(const std::string& args, const accelbench::testing::TempDir& dir) {
  const auto all = dir.file("all.txt");
  const std::string cmd = "env -u ACCELBENCH_IMPL COLUMNS=100 ACCELBENCH_DB=" + dir.file("history.db") + " " + ACCELBENCH_BIN +
                          " " + args + " >" + all + " 2>&1 </dev/null";
  const int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << args << "\n" << slurp(all);
  return slurp(all);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
}  // namespace

// The answer first (hyperfine's way): at most three lines before the first table (what is measured,
// the budget, what distorts the timings), every line within COLUMNS, the notes after the tables and
// each once, and a Summary line per model at the end. --quiet: the tables and the Summary alone.
TEST(Cli, RunGivesTheAnswerFirst) {
  accelbench::testing::TempDir dir;
  const std::string run = "run --quick --models mlp --no-save --batch-size 16 --max-time-per-case 4";
  const auto out = run_merged(run, dir);
  const auto lines = lines_of(out);
  std::size_t before = 0, first_table = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("model", 0) == 0) {
      first_table = i;
      break;
    }
    if (!lines[i].empty()) ++before;
  }
  ASSERT_LT(first_table, lines.size()) << out;
  EXPECT_LE(before, 3u) << out;
  // The rounds announced are the rounds a case may get: the planned ones and, while they disagree, more.
  EXPECT_NE(lines.front().find("2-5 rounds each"), std::string::npos) << out;
  // The default loop is the user's: the Python one, where a python3 with torch is found (this build's).
  EXPECT_NE(lines.front().find("(mlp on cpu; Python loop)"), std::string::npos) << out;
  for (const auto& line : lines) EXPECT_LE(longest_line(line), 100u) << line;
  const auto summary = out.find("\nSummary:\n  mlp (Python loop): ");
  EXPECT_NE(summary, std::string::npos) << out;
  EXPECT_GT(summary, out.rfind("\nmodel ")) << "the Summary ends the report\n" << out;
  if (const auto notes = out.find("\nNotes:\n"); notes != std::string::npos) EXPECT_GT(notes, out.rfind("\nmodel ")) << out;
  EXPECT_EQ(out.find("Telemetry not available here"), std::string::npos) << out;  // one line: "Not measured here: ..."
  EXPECT_EQ(out.find("narrows it"), std::string::npos) << out;
  if (out.find("cannot fit") != std::string::npos) EXPECT_EQ(out.find("cannot fit"), out.rfind("cannot fit")) << out;

  auto quiet = run_merged(run + " --quiet", dir);
  // A distortion of the timings is said first even then (on a busy machine): the rest as without it.
  if (quiet.rfind("accelbench: warning: timings may be DISTORTED", 0) == 0) quiet.erase(0, quiet.find("\nmodel") + 1);
  EXPECT_EQ(quiet.find("accelbench:"), std::string::npos) << quiet;  // no plan, notes or "done" line
  EXPECT_EQ(quiet.find("Advice"), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find("Notes:"), std::string::npos) << quiet;
  EXPECT_NE(quiet.find("\nSummary:\n  mlp (Python loop): "), std::string::npos) << quiet;
  EXPECT_EQ(quiet.rfind("model", 0), 0u) << "the first line is a table's\n" << quiet;
  expect_usage_error("run --quiet --verbose", "--quiet and --verbose exclude each other");
}

// A fraction may be written as a percentage wherever one is taken: --ci-target 50% is 0.5 (as
// compare's --fail-above 5% is 0.05); out of range or malformed, one line and exit 2.
TEST(Cli, CiTargetTakesAPercentage) {
  accelbench::testing::TempDir dir;
  const auto json = dir.file("run.json"), db = dir.file("history.db");
  const auto r = run_cli("run --models mlp --devices cpu --batch-size 16 --synthetic --max-time-per-case 2 --min-samples 3 "
                         "--ci-target 50% --no-progress --json " + json, "ACCELBENCH_DB=" + db);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  EXPECT_DOUBLE_EQ(j["context"]["settings"]["ci_target"].get<double>(), 0.5) << j["context"]["settings"].dump();
  expect_usage_error("run --ci-target 150%", "--ci-target must be between 0% and 100%");
  expect_usage_error("run --ci-target 5%%", "--ci-target");
  expect_usage_error("sweep batch --model mlp --ci-target 0%", "--ci-target");
  // compare names only what it accepts: a run id or uid, or a JSON file (never article-m2, which it refuses)
  const auto c = run_cli("compare 1 99", "ACCELBENCH_DB=" + db);
  EXPECT_EQ(c.code, 2) << c.err;
  EXPECT_EQ(count_lines(c.err), 1) << c.err;
  EXPECT_NE(c.err.find("no run '99'"), std::string::npos) << c.err;
  EXPECT_EQ(c.err.find("article-m2"), std::string::npos) << c.err;
  const auto rep = run_cli("report 99", "ACCELBENCH_DB=" + db);  // report takes article-m2, and says so
  EXPECT_NE(rep.err.find("article-m2"), std::string::npos) << rep.err;
}

// A report file whose extension no format has is refused before anything is written; --format
// given with it writes that format under the name asked for.
TEST(Cli, ReportRefusesAnExtensionNoFormatHas) {
  accelbench::testing::TempDir dir;
  const auto pdf = dir.file("x.pdf");
  expect_usage_error("report article-m2 -o " + pdf, "no report format writes .pdf files");
  EXPECT_FALSE(std::filesystem::exists(pdf));
  const auto r = run_cli("report article-m2 --format md -o " + pdf);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(slurp(pdf).find("# accelbench report"), std::string::npos);
  EXPECT_EQ(run_cli("report article-m2 -o " + dir.file("x.html")).code, 0);
}

// A sweep over a device defaults as run does (every device: here the CPU alone); a crossover, which
// needs an accelerator, says there is none.
TEST(Cli, SweepDefaultsToEveryDeviceAsRunDoes) {
  const auto r = run_cli("sweep batch --model mlp --from 8 --to 8 --no-isolate --no-save --ci-target 50% --min-samples 3 "
                         "--min-time 0 --max-time-per-point 2s --no-telemetry --synthetic");
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("cpu"), std::string::npos) << r.out;
  expect_usage_error("sweep crossover --model mlp", "no accelerator");
}

TEST(Cli, QuickRunOnCpuWritesValidJsonForAllThreeModels) {
  accelbench::testing::TempDir dir;
  const auto path = dir.file("run.json");
  // Batch 8 keeps the transformer's CPU steps short; --quick bounds the time. 16 s a case (8 s a
  // round) holds the floor of 3 samples of a ~1.2 s transformer step on an idle 2-core machine; on
  // a busy one a round takes as many as fit, at least one, and a round that cannot fit what the
  // case's time leaves does not start: every case has at least one sample.
  const auto r = run_cli("run --quick --devices cpu --batch-size 8 --max-time-per-case 16 --json " + path);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("CPU s/epoch"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("--quick"), std::string::npos) << "quick mode says so: " << r.err;
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], "accelbench.run/1");
  EXPECT_FALSE(j["context"]["torch_version"].get<std::string>().empty());
  EXPECT_FALSE(j["context"]["cpu_model"].get<std::string>().empty());
  EXPECT_EQ(j["context"]["settings"]["batch_size"], 8);
  ASSERT_EQ(j["cases"].size(), 3u);
  std::vector<std::string> models;
  for (const auto& c : j["cases"]) {
    models.push_back(c["workload"]);
    EXPECT_EQ(c["status"], "ok") << c["error"];
    EXPECT_GE(c["samples"].size(), 1u);
    EXPECT_GT(c["stats"]["median"].get<double>(), 0);
    EXPECT_LE(c["stats"]["ci_low"].get<double>(), c["stats"]["median"].get<double>());
    EXPECT_TRUE(c.contains("loss_before") && c.contains("loss_after"));
    EXPECT_TRUE(c["synthetic_data"].is_boolean());
    EXPECT_FALSE(c["data_source"].get<std::string>().empty());
  }
  EXPECT_EQ(models, (std::vector<std::string>{"mlp", "cnn", "transformer"}));
  EXPECT_TRUE(j["cases"][2]["synthetic_data"].get<bool>());  // the transformer's tokens are synthetic
}

// Time promises: a case whose step is too long for its time takes as many samples as fit (at
// least one) and no round that cannot fit what the budget leaves, and says so. An mlp step of
// width 16384 and batch 2048 on one thread (160 GFLOP: seconds on one core of a 2-core VM, above
// 0.2 s on any core below 800 GFLOP/s); with the floor of 3 samples after 3 warm-up steps in
// each of 2 rounds it takes >= 2.4 s, so the second round cannot fit a 2 s budget on any host.
namespace {
struct CannotFitRun {
  Result cli;
  nlohmann::json json;
};
CannotFitRun run_case_that_cannot_fit(const accelbench::testing::TempDir& dir) {
  const auto path = dir.file("run.json");
  CannotFitRun out;
  out.cli = run_cli("run --models mlp --width 16384 --batch-size 2048 --threads 1 --devices cpu --max-time-per-case 2s "
                    "--budget 2s --rounds 2 --no-save --json " + path);
  std::ifstream in(path);
  if (in) out.json = nlohmann::json::parse(in);
  return out;
}
}  // namespace

TEST(Cli, ACaseThatCannotFitStopsAtTheBudgetAndSaysSo) {
  accelbench::testing::TempDir dir;
  const auto r = run_case_that_cannot_fit(dir);
  ASSERT_EQ(r.cli.code, 0) << r.cli.err << r.cli.out;
  ASSERT_EQ(r.json["cases"].size(), 1u);
  const auto& c = r.json["cases"][0];
  EXPECT_EQ(c["status"], "ok") << c["error"];
  EXPECT_GE(c["samples"].size(), 1u);
  EXPECT_TRUE(c["noisy"].get<bool>());
  EXPECT_NE(r.cli.err.find("too long for the time its round had"), std::string::npos) << r.cli.err;
  EXPECT_NE(r.cli.err.find("1 of 2 rounds"), std::string::npos) << r.cli.err;  // the second round did not start
}

// The same run's wall time: the budget, plus the step that crossed it (the longest sample, each one
// step here), plus 2 s of start-up (the child process loads libtorch). A timing claim: `timing` label.
TEST(Timing, ACaseThatCannotFitEndsWithinTheBudget) {
  accelbench::testing::TempDir dir;
  const auto r = run_case_that_cannot_fit(dir);
  ASSERT_EQ(r.cli.code, 0) << r.cli.err << r.cli.out;
  const auto samples = r.json["cases"][0]["samples"].get<std::vector<double>>();
  const double step = *std::max_element(samples.begin(), samples.end());
  EXPECT_LE(r.json["wall_s"].get<double>(), 2.0 + step + 2.0) << "budget 2 s, the longest step " << step << " s";
}

TEST(Cli, SyntheticFlagIsMarkedInTheTable) {
  const auto r = run_cli("run --quick --models mlp --devices cpu --batch-size 16 --synthetic --max-time-per-case 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("synthetic"), std::string::npos) << r.out;
}

TEST(Cli, BadDataFilesAreOneLineAndExitCodeTwo) {
  accelbench::testing::TempDir dir;
  // A truncated CIFAR-10 batch file.
  accelbench::testing::write_plain(dir.file("data_batch_1.bin"), std::vector<std::uint8_t>(3073 * 2 + 5, 1));
  expect_usage_error("run --models resnet18 --devices cpu --quick --data-dir " + dir.path.string(), "truncated");
  // An empty text file, then a label out of range.
  { std::ofstream(dir.file("empty.tsv")); }
  expect_usage_error("run --models bert-base --devices cpu --quick --text " + dir.file("empty.tsv"), "empty");
  { std::ofstream(dir.file("bad.tsv")) << "1\tgood\n3\tbad\n"; }
  expect_usage_error("run --models bert-base --devices cpu --quick --text " + dir.file("bad.tsv"), "out of range");
  expect_usage_error("run --models bert-base --text /nonexistent.tsv", "not found");
  expect_usage_error("run --models resnet18 --variant wide", "unknown resnet18 variant");
  expect_usage_error("run --workers -3", "--workers");
  expect_usage_error("run --repeats 3", "--repeats needs --full-epoch");
}
