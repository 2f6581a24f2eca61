// End-to-end tests of `accelbench sweep batch`: bad input, a point that crashes (the test-only
// workload test-abort, in a child process), an out-of-memory and its bisection (test-oom), the JSON.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

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

using accelbench::testing::expect_usage_error;

// Quick points: the tests check what the sweep does, not the figures.
const std::string kFast =
    " --ci-target 0.5 --min-samples 3 --min-time 0 --max-time-per-point 2s --no-telemetry --synthetic";
}  // namespace

TEST(SweepCli, BadInputIsOneLineAndExitCodeTwo) {
  expect_usage_error("sweep batch --model cnn --device cpu --memory-limit 1GiB", "the CPU has none");
  expect_usage_error("sweep batch --model cnn --device cpu --memory-limit=-4GiB", "must be positive");
  expect_usage_error("sweep batch --model cnn --device cpu --memory-limit lots", "invalid memory size 'lots'");
  expect_usage_error("sweep batch --model nope --device cpu", "unknown model 'nope'");
  expect_usage_error("sweep batch --model cnn --device tpu", "available: cpu");
  expect_usage_error("sweep batch --model cnn --device cpu --from 64 --to 32", "--from 64 is larger than --to 32");
  expect_usage_error("sweep batch --model cnn --device cpu --from 0", "--from must be at least 1");
  expect_usage_error("sweep batch --model cnn --device cpu --dtype float32,bfloat16", "one precision");
  expect_usage_error("sweep batch --device cpu", "--model");
  expect_usage_error("sweep", "subcommand");
  expect_usage_error("_measure-case --spec-json '{' --out /tmp/x", "not valid JSON");
}

TEST(SweepCli, HelpListsBatchAndHidesTheChildCommand) {
  auto r = run_cli("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("sweep"), std::string::npos);
  EXPECT_EQ(r.out.find("_measure-case"), std::string::npos);
  r = run_cli("sweep batch --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--memory-limit"), std::string::npos);
  EXPECT_NE(r.out.find("--no-isolate"), std::string::npos);
  // The test-only workloads exist only with ACCELBENCH_TEST_WORKLOADS=1.
  expect_usage_error("sweep batch --model test-abort --device cpu", "unknown model 'test-abort'");
}

TEST(SweepCli, ACrashIsRecordedAndTheSweepFinishes) {
  accelbench::testing::TempDir dir;
  const auto json = dir.file("sweep.json");
  const auto tmp = dir.file("tmp");
  std::filesystem::create_directory(tmp);
  const auto r = run_cli("sweep batch --model test-abort --device cpu --from 8 --to 32 --no-save --json " + json + kFast,
                         "ACCELBENCH_TEST_WORKLOADS=1 ACCELBENCH_TEST_ABORT_AT=16 TMPDIR=" + tmp);
  // The children's scratch folder is gone (removed without std::filesystem::remove_all, which
  // crashed through libtorch's copy on the CUDA build).
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "leftover in " << tmp;
  EXPECT_EQ(r.code, 1) << r.err;  // a point crashed
  EXPECT_NE(r.out.find("crashed: signal 6"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("test-abort: aborting at batch 16"), std::string::npos) << r.err;  // the child's own words
  EXPECT_NE(r.out.find("largest batch that ran: 8 (no out-of-memory up to 32; the larger points failed"), std::string::npos)
      << r.out;
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["schema"], "accelbench.run/1");
  EXPECT_EQ(j["command"], "sweep batch");
  ASSERT_EQ(j["cases"].size(), 3u);
  EXPECT_EQ(j["cases"][0]["status"], "ok");
  EXPECT_GT(j["cases"][0]["samples_per_s"].get<double>(), 0);
  for (int i : {1, 2}) {
    EXPECT_EQ(j["cases"][i]["status"], "failed");
    EXPECT_EQ(j["cases"][i]["error"].get<std::string>().rfind("crashed: signal 6", 0), 0u) << j["cases"][i]["error"];
  }
  const auto& s = j["sweep"];
  EXPECT_TRUE(s["finished"].get<bool>());
  EXPECT_TRUE(s["isolated"].get<bool>());
  EXPECT_EQ(s["largest_fit"], 8);
  EXPECT_TRUE(s["first_oom"].is_null());
  EXPECT_EQ(s["knee"], 8);
  EXPECT_EQ(s["points"][1]["outcome"], "failed");
}

TEST(SweepCli, OutOfMemoryIsBisectedToTheLargestBatchThatFits) {
  // test-oom runs out of memory above batch 20: 8 and 16 fit, 32 runs out, then [16, 32) is
  // bisected in steps of 1: 24 (OOM), 20 (fits), 22 (OOM), 21 (OOM). In this process (--no-isolate).
  accelbench::testing::TempDir dir;
  const auto json = dir.file("sweep.json"), db = dir.file("h.db");
  const auto r = run_cli("sweep batch --model test-oom --device cpu --to 64 --no-isolate --db " + db + " --json " + json + kFast,
                         "ACCELBENCH_TEST_WORKLOADS=1 ACCELBENCH_TEST_OOM_ABOVE=20");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("stored as run 1"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("OOM at 32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("largest batch that fits: 20"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(json));
  std::vector<std::int64_t> batches;
  for (const auto& c : j["cases"]) batches.push_back(c["batch_size"].get<std::int64_t>());
  EXPECT_EQ(batches, (std::vector<std::int64_t>{8, 16, 32, 24, 20, 22, 21}));
  EXPECT_EQ(j["cases"][2]["error"].get<std::string>().rfind("out of memory", 0), 0u) << j["cases"][2]["error"];
  const auto& s = j["sweep"];
  EXPECT_FALSE(s["isolated"].get<bool>());
  EXPECT_EQ(s["first_oom"], 32);
  EXPECT_EQ(s["smallest_oom"], 21);
  EXPECT_EQ(s["largest_fit"], 20);
  EXPECT_EQ(s["bisection"]["low"], 16);
  EXPECT_EQ(s["bisection"]["resolution"], 1);
  EXPECT_FALSE(s["knee"].is_null());
  EXPECT_EQ(s["points"][3]["phase"], "bisection");
}
