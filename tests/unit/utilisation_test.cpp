// Utilisation per case (core/utilisation): the share of the matmul ceiling of the case's precision
// and the verdict rules (launch-bound, compute-bound, small-kernel-bound, memory-bound; none without a busy share below
// half the ceiling), each with the evidence it rests on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/utilisation.h"

namespace accelbench {
namespace {

DeviceCeilings h200() {
  DeviceCeilings d;
  d.device = "cuda:0";
  d.device_name = "NVIDIA H200";
  d.torch_version = "2.11.0";
  d.measured_utc = "2026-12-01T04:20:00Z";
  d.ceilings = {{CeilingKind::kMatmul, "float32", "8192 x 8192 x 8192", 15, 50e12, 49e12, 51e12, ""},
                {CeilingKind::kMatmul, "bfloat16", "16384 x 16384 x 16384", 15, 700e12, 690e12, 705e12, ""}};
  return d;
}

CaseResult a_case(const std::string& dtype, double flops, std::optional<double> busy) {
  CaseResult c;
  c.spec.workload = "cnn";
  c.spec.device = "cuda:0";
  c.spec.dtype = dtype;
  c.achieved_flops_per_s = flops;
  c.device_busy_fraction = busy;
  c.launch_bound = busy && *busy < kLaunchBoundShare;
  return c;
}

TEST(Utilisation, VerdictsFromTheBusyShareAndTheCeiling) {
  auto launch = a_case("bfloat16", 7e12, 0.31);
  apply_ceilings(launch, h200());
  ASSERT_TRUE(launch.ceiling_share.has_value());
  EXPECT_DOUBLE_EQ(*launch.ceiling_share, 0.01);
  EXPECT_EQ(launch.bound, "launch-bound");
  EXPECT_NE(launch.bound_evidence.find("device busy 31% of the step"), std::string::npos) << launch.bound_evidence;
  EXPECT_EQ(utilisation_note(launch), "1% of the bfloat16 matmul ceiling");  // LAUNCH-BOUND is the busy note's

  auto compute = a_case("bfloat16", 420e12, 0.99);
  apply_ceilings(compute, h200());
  EXPECT_EQ(compute.bound, "compute-bound");
  EXPECT_EQ(utilisation_note(compute), "60% of the bfloat16 matmul ceiling: COMPUTE-BOUND");
  EXPECT_NE(compute.bound_evidence.find("420.0 TFLOP/s of 700.0 TFLOP/s"), std::string::npos) << compute.bound_evidence;

  auto memory = a_case("float32", 10e12, 0.98);
  apply_ceilings(memory, h200());
  EXPECT_EQ(memory.bound, "memory-bound");
  EXPECT_DOUBLE_EQ(*memory.ceiling_flops_per_s, 50e12);  // the case's own precision's ceiling
  EXPECT_NE(memory.bound_evidence.find("device busy 98% of the step, yet at 20% of the float32 matmul ceiling"),
            std::string::npos)
      << memory.bound_evidence;

  // No busy share (the CPU, MPS): compute-bound can be said, nothing else
  auto cpu_high = a_case("float32", 30e12, std::nullopt);
  apply_ceilings(cpu_high, h200());
  EXPECT_EQ(cpu_high.bound, "compute-bound");
  auto cpu_low = a_case("float32", 5e12, std::nullopt);
  apply_ceilings(cpu_low, h200());
  EXPECT_EQ(cpu_low.bound, "");
  EXPECT_NE(cpu_low.bound_evidence.find("no verdict"), std::string::npos) << cpu_low.bound_evidence;
  EXPECT_EQ(utilisation_note(cpu_low), "10% of the float32 matmul ceiling");
}

// A graph whose kernels are counted: busy, far from the ceiling, and kernels averaging under 10 us
// each is small-kernel-bound, not memory-bound; the same busy step with long kernels stays
// memory-bound; compute-bound and launch-bound are unchanged by a kernel count.
TEST(Utilisation, ACountedGraphOfTinyKernelsIsSmallKernelBound) {
  auto tiny = a_case("float32", 5e12, 0.99);
  tiny.stats.median = 117e-6;            // the mlp's graph on the H200
  tiny.device_operations_per_step = 30;  // 3.9 us a kernel
  apply_ceilings(tiny, h200());
  EXPECT_EQ(tiny.bound, "small-kernel-bound");
  EXPECT_NE(tiny.bound_evidence.find("30 kernels a step averaging 3.9 us each"), std::string::npos) << tiny.bound_evidence;
  EXPECT_EQ(utilisation_note(tiny), "10% of the float32 matmul ceiling: SMALL-KERNEL-BOUND");

  auto long_kernels = tiny;
  long_kernels.stats.median = 7.3e-3;  // 243 us a kernel
  apply_ceilings(long_kernels, h200());
  EXPECT_EQ(long_kernels.bound, "memory-bound");

  auto uncounted = tiny;
  uncounted.device_operations_per_step = 0;
  apply_ceilings(uncounted, h200());
  EXPECT_EQ(uncounted.bound, "memory-bound");

  auto compute = a_case("bfloat16", 420e12, 0.99);
  compute.stats.median = 117e-6;
  compute.device_operations_per_step = 30;
  apply_ceilings(compute, h200());
  EXPECT_EQ(compute.bound, "compute-bound");

  auto launch = a_case("float32", 5e12, 0.3);
  launch.stats.median = 117e-6;
  launch.device_operations_per_step = 30;
  apply_ceilings(launch, h200());
  EXPECT_EQ(launch.bound, "launch-bound");
}

// A float32 convolutional case on CUDA is measured against the tfloat32 ceiling (cuDNN's default),
// and says so: against the float32 one dcgan's graph reached 115%.
TEST(Utilisation, Float32ConvolutionsInTf32AreMeasuredAgainstTheTf32Ceiling) {
  auto ceilings = h200();
  ceilings.ceilings.push_back({CeilingKind::kMatmul, "tfloat32", "16384 x 16384 x 16384", 15, 400e12, 395e12, 402e12, ""});
  auto conv = a_case("float32", 60e12, 0.99);
  conv.ceiling_precision = "tfloat32";
  apply_ceilings(conv, ceilings);
  EXPECT_DOUBLE_EQ(*conv.ceiling_flops_per_s, 400e12);
  EXPECT_NEAR(*conv.ceiling_share, 0.15, 1e-12);
  EXPECT_NE(conv.bound_evidence.find("15% of the tfloat32 matmul ceiling (60.00 TFLOP/s of 400.0 TFLOP/s): its "
                                     "convolutions run in tfloat32"),
            std::string::npos)
      << conv.bound_evidence;
  EXPECT_EQ(utilisation_note(conv), "15% of the tfloat32 matmul ceiling: MEMORY-BOUND");
  const auto back = nlohmann::json::parse(nlohmann::json(conv).dump()).get<CaseResult>();
  EXPECT_EQ(back.ceiling_precision, "tfloat32");
  auto no_tf32_ceiling = a_case("float32", 60e12, 0.99);
  no_tf32_ceiling.ceiling_precision = "tfloat32";
  apply_ceilings(no_tf32_ceiling, h200());  // no tfloat32 ceiling measured: no share, no verdict
  EXPECT_FALSE(no_tf32_ceiling.ceiling_share.has_value());
}

TEST(Utilisation, NothingWithoutTheCeilingOfTheCasesPrecisionAndItSurvivesJson) {
  auto fp16 = a_case("float16", 100e12, 0.9);
  apply_ceilings(fp16, h200());  // no float16 ceiling measured
  EXPECT_FALSE(fp16.ceiling_share.has_value());
  EXPECT_EQ(fp16.bound, "");
  EXPECT_EQ(utilisation_note(fp16), "");
  auto no_flops = a_case("bfloat16", 0, 0.9);
  apply_ceilings(no_flops, h200());
  EXPECT_FALSE(no_flops.ceiling_share.has_value());

  auto c = a_case("bfloat16", 420e12, 0.99);
  apply_ceilings(c, h200());
  const auto back = nlohmann::json::parse(nlohmann::json(c).dump()).get<CaseResult>();
  ASSERT_TRUE(back.ceiling_share.has_value());
  EXPECT_DOUBLE_EQ(*back.ceiling_share, 0.6);
  EXPECT_DOUBLE_EQ(*back.ceiling_flops_per_s, 700e12);
  EXPECT_EQ(back.bound, "compute-bound");
  EXPECT_EQ(back.bound_evidence, c.bound_evidence);
  EXPECT_EQ(back.ceiling_measured_utc, "2026-12-01T04:20:00Z");
}

// The share is of the ceiling's best sample where the record keeps one (the median otherwise).
TEST(Utilisation, TheShareIsOfTheBestSample) {
  auto d = h200();
  d.ceilings[1].best = 800e12;
  auto c = a_case("bfloat16", 400e12, 0.99);
  apply_ceilings(c, d);
  ASSERT_TRUE(c.ceiling_share.has_value());
  EXPECT_DOUBLE_EQ(*c.ceiling_share, 0.5);
  EXPECT_DOUBLE_EQ(*c.ceiling_flops_per_s, 800e12);
  EXPECT_NE(c.bound_evidence.find("of 800.0 TFLOP/s"), std::string::npos) << c.bound_evidence;
}

}  // namespace
}  // namespace accelbench
