#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/results.h"
#include "report/json_report.h"
#include "report/terminal_table.h"
#include "test_files.h"

using namespace accelbench;

namespace {
CaseResult make_case(const std::string& model, const std::string& device, double step) {
  CaseResult c;
  c.spec = {model, device, "float32", 64, 2};
  for (int i = 0; i < 20; ++i) c.samples.push_back(step * (1 + 0.001 * (i % 5)));
  c.stats = summarize(c.samples);
  c.samples_per_epoch = 60000;
  c.epoch_s_estimate = c.stats.median * 938;
  c.memory.peak_allocated_bytes = 1234;
  c.memory.source = "test";
  c.loss_before = 2.3;
  c.loss_after = 1.1;
  return c;
}
}  // namespace

TEST(ResultsJson, RoundTrip) {
  RunResult run;
  run.context.torch_version = "2.13.0";
  run.context.devices.push_back({"cpu", "cpu", "Test CPU", -1, 8ull << 30});
  run.cases = {make_case("mlp", "cpu", 0.010), make_case("mlp", "cuda:0", 0.001)};
  run.cases[1].phases = PhaseSamples{{0.1}, {0.2}, {0.3}};
  run.speedups = compute_speedups(run.cases);
  ASSERT_EQ(run.speedups.size(), 1u);
  EXPECT_NEAR(run.speedups[0].ratio, 10.0, 1e-9);

  const nlohmann::json j = run;
  EXPECT_EQ(j["schema"], "accelbench.run/1");
  EXPECT_EQ(j["cases"][0]["samples"].size(), 20u);
  EXPECT_TRUE(j["cases"][0]["memory"]["peak_reserved_bytes"].is_null());
  const auto back = j.get<RunResult>();
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_EQ(back.cases[1].spec.device, "cuda:0");
  EXPECT_EQ(back.cases[0].samples, run.cases[0].samples);
  EXPECT_EQ(back.cases[0].memory.peak_allocated_bytes, std::optional<std::uint64_t>(1234));
  EXPECT_FALSE(back.cases[0].memory.peak_reserved_bytes.has_value());
  ASSERT_TRUE(back.cases[1].phases.has_value());
  EXPECT_EQ(back.cases[1].phases->optimizer, std::vector<double>{0.3});
  EXPECT_EQ(back.context.devices.at(0).name, "Test CPU");
}

TEST(ResultsJson, RejectsOtherSchemas) {
  nlohmann::json j{{"schema", "something/2"}};
  EXPECT_THROW(j.get<RunResult>(), std::runtime_error);
  EXPECT_THROW(nlohmann::json::array().get<RunResult>(), std::runtime_error);
}

TEST(JsonReport, AtomicWriteAndClearErrors) {
  accelbench::testing::TempDir dir;
  RunResult run;
  run.cases = {make_case("cnn", "cpu", 0.02)};
  write_json_report(run, dir.file("r.json"));
  EXPECT_EQ(read_json_report(dir.file("r.json")).cases.size(), 1u);
  EXPECT_THROW(write_json_report(run, dir.file("no/such/dir/r.json")), UsageError);
  EXPECT_FALSE(std::filesystem::exists(dir.file("no/such/dir/r.json")));
  accelbench::testing::write_plain(dir.file("bad.json"), {'{', 'x'});
  EXPECT_THROW(read_json_report(dir.file("bad.json")), UsageError);
  EXPECT_THROW(read_json_report(dir.file("missing.json")), UsageError);
}

TEST(TerminalReport, ArticleTableWithSpeedup) {
  RunResult run;
  run.cases = {make_case("mlp", "cpu", 0.010), make_case("mlp", "cuda:0", 0.001)};
  run.speedups = compute_speedups(run.cases);
  const auto text = render_terminal_report(run);
  EXPECT_NE(text.find("CPU s/epoch"), std::string::npos) << text;
  EXPECT_NE(text.find("cuda:0 s/epoch"), std::string::npos) << text;
  EXPECT_NE(text.find("10.00x ["), std::string::npos) << text;
}
