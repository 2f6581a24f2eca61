// End-to-end: `accelbench profile` on the CPU (the real binary, the real kineto profiler).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cli_runner.h"

namespace {
using accelbench::testing::count_lines;
using accelbench::testing::run_cli;
using accelbench::testing::slurp;
using Result = accelbench::testing::CliResult;

using accelbench::testing::expect_usage_error;
}  // namespace

TEST(ProfileCli, MlpOnCpuJson) {
  const auto r = run_cli("profile mlp --device cpu --steps 2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);  // stdout is the JSON alone
  EXPECT_EQ(j["kind"], "accelbench.profile");
  EXPECT_EQ(j["workload"], "mlp");
  EXPECT_EQ(j["device"], "cpu");
  EXPECT_EQ(j["steps"], 2);
  EXPECT_EQ(j["share_basis"], "self CPU");
  EXPECT_TRUE(j["device_busy_ms"].is_null());
  EXPECT_GT(j["wall_ms"].get<double>(), 0);
  EXPECT_GT(j["host_busy_ms"].get<double>(), 0);
  ASSERT_GE(j["ops"].size(), 5u);
  ASSERT_LE(j["ops"].size(), 20u);  // --top 20
  bool has_matmul = false;
  double previous = 1e300, self_sum = 0;
  for (const auto& op : j["ops"]) {
    const auto name = op["name"].get<std::string>();
    EXPECT_EQ(name.rfind("aten::", 0), 0u) << name;
    EXPECT_GE(op["calls"].get<int>(), 2) << name << ": once per step at least";
    EXPECT_TRUE(op["device_ms"].is_null());
    const double self = op["self_cpu_ms"].get<double>();
    EXPECT_LE(self, previous) << "sorted by self CPU time";
    previous = self;
    self_sum += self;
    has_matmul = has_matmul || name == "aten::addmm" || name == "aten::mm";
  }
  EXPECT_TRUE(has_matmul) << j["ops"].dump(1);
  // The self times cannot exceed the host's busy time, nor that the wall time.
  EXPECT_LE(self_sum, j["host_busy_ms"].get<double>() * 1.0001);
  EXPECT_LE(j["host_busy_ms"].get<double>(), j["wall_ms"].get<double>() * 1.05);
  EXPECT_TRUE(j["copies"].empty());
  EXPECT_TRUE(j["cpu_ops"].empty());
}

TEST(ProfileCli, WithoutADeviceTheFirstAcceleratorElseTheCpu) {
  const auto listed = run_cli("devices --json");
  ASSERT_EQ(listed.code, 0) << listed.err;
  std::string expected = "cpu";
  for (const auto& d : nlohmann::json::parse(listed.out)["devices"])
    if (d["id"] != "cpu") {
      expected = d["id"].get<std::string>();
      break;
    }
  const auto r = run_cli("profile mlp --steps 1 --warmup 1 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["device"], expected);
  EXPECT_NE(r.err.find("on " + expected), std::string::npos) << r.err;  // the first line names it
}

TEST(ProfileCli, CnnTableAndChromeTrace) {
  accelbench::testing::TempDir dir;
  const auto trace = dir.file("trace.json"), json = dir.file("profile.json");
  const auto r = run_cli("profile cnn --device cpu --batch-size 16 --steps 1 --warmup 1 --top 5 --trace " + trace + " --json " + json);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("self CPU ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("aten::"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Chrome trace"), std::string::npos) << r.out;
  const auto t = nlohmann::json::parse(slurp(trace));
  EXPECT_GT(t["traceEvents"].size(), 10u);
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["ops"].size(), 5u);
  EXPECT_GT(j["ops_total"].get<int>(), 5);
  // --json goes through the atomic writer: the folder holds the two outputs and no temporary file.
  const auto files = std::distance(std::filesystem::directory_iterator(std::filesystem::path(json).parent_path()),
                                   std::filesystem::directory_iterator{});
  EXPECT_EQ(files, 2);
}

TEST(ProfileCli, BadInputIsOneLineAndExitCodeTwo) {
  expect_usage_error("profile nope --device cpu", "unknown model 'nope'");
  expect_usage_error("profile mlp --device tpu", "available: cpu");
  expect_usage_error("profile mlp --device cpu --steps 0", "--steps");
  expect_usage_error("profile mlp --device cpu --top 0", "--top");
  if (std::filesystem::is_directory("/sys/kernel"))  // sysfs: unwritable even for root
    expect_usage_error("profile mlp --device cpu --trace /sys/accelbench-trace.json", "cannot write --trace");
  expect_usage_error("profile mlp --device cpu --trace /tmp", "cannot write --trace");
  expect_usage_error("profile mlp --device cpu --json /nonexistent-dir/p.json", "cannot write --json");
  expect_usage_error("profile", "model");
}
