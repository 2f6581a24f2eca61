#include <gtest/gtest.h>

#include "analysis/advisor.h"

using namespace accelbench;

namespace {
CaseResult make(const std::string& w, const std::string& d, double step, const std::string& dtype = "float32") {
  CaseResult c;
  c.spec = {w, d, dtype, 64, 2};
  for (int i = 0; i < 30; ++i) c.samples.push_back(step * (1 + 0.002 * (i % 5)));
  c.stats = summarize(c.samples);
  c.relative_ci_half_width = c.stats.ci_half_width_relative();
  c.loss_after = 0.5;
  return c;
}
bool has(const std::vector<Advice>& a, const std::string& rule) {
  return std::any_of(a.begin(), a.end(), [&](const Advice& x) { return x.rule == rule; });
}
// Every advice quotes at least one measured figure, and its text contains each.
void expect_cited(const std::vector<Advice>& a) {
  for (const auto& x : a) {
    ASSERT_FALSE(x.evidence.empty()) << x.rule;
    const auto value = x.evidence.front().substr(x.evidence.front().find('=') + 1);
    if (x.rule != "precision-faster") EXPECT_NE(x.text.find(value), std::string::npos) << x.rule << ": " << x.text;
  }
}
}  // namespace

TEST(Advisor, OverheadBoundAndSlowerAccelerator) {
  RunResult run;
  run.cases = {make("mlp", "cpu", 0.0010), make("mlp", "cuda:0", 0.0008), make("tiny", "cpu", 0.001),
               make("tiny", "cuda:0", 0.002), make("big", "cpu", 1.0), make("big", "cuda:0", 0.01)};
  run.speedups = compute_speedups(run.cases);
  const auto a = advise(run);
  EXPECT_TRUE(has(a, "overhead-bound"));
  EXPECT_TRUE(has(a, "accelerator-slower"));
  for (const auto& x : a) EXPECT_EQ(x.subject.find("big"), std::string::npos) << "a 100x speed-up needs no advice";
  expect_cited(a);
}

TEST(Advisor, InputBoundNoisyMemoryAndPrecision) {
  RunResult run;
  auto in = make("resnet18", "cuda:0", 0.01);
  in.input_bound = true;
  in.data_wait_fraction = 0.35;
  auto noisy = make("transformer", "cpu", 5.0);
  noisy.noisy = true;
  noisy.relative_ci_half_width = 0.145;
  noisy.ci_target = 0.02;
  auto full = make("bert-base", "cuda:0", 0.1);
  full.memory.peak_reserved_bytes = 90ull << 30;
  auto bf16 = make("bert-base", "cuda:0", 0.025, "bfloat16");
  run.context.devices.push_back({"cuda:0", "cuda", "GPU", 0, 100ull << 30});
  run.cases = {in, noisy, full, bf16};
  const auto a = advise(run);
  EXPECT_TRUE(has(a, "input-bound"));
  EXPECT_TRUE(has(a, "noisy"));
  EXPECT_TRUE(has(a, "memory-headroom"));
  EXPECT_TRUE(has(a, "precision-faster"));
  expect_cited(a);
  EXPECT_NE(render_advice(a).find("35.0%"), std::string::npos);
}

TEST(Advisor, NoMeasurementNoAdvice) {
  RunResult run;
  auto failed = make("mlp", "cuda:0", 0.001);
  failed.status = "failed";
  failed.noisy = true;
  run.cases = {failed};
  EXPECT_TRUE(advise(run).empty());
  EXPECT_EQ(render_advice({}), "");
}
