// The device-ceilings records of `accelbench peak` (core/peak_records): JSON both ways, damaged
// documents refused in one line, values and the table, doctor's summary, ages.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/peak_records.h"
#include "report/peak_tables.h"

namespace accelbench {
namespace {

DeviceCeilings sample_ceilings() {
  DeviceCeilings c;
  c.device = "cuda:0";
  c.device_name = "NVIDIA H200";
  c.torch_version = "2.11.0";
  c.host = "gpu-host";
  c.measured_utc = "2026-12-01T04:00:00Z";
  c.wall_s = 12.5;
  Ceiling fp32{CeilingKind::kMatmul, "float32", "4096 x 4096 x 4096", 15, 51.2e12, 51.0e12, 51.5e12, ""};
  Ceiling bf16{CeilingKind::kMatmul, "bfloat16", "16384 x 16384 x 16384", 15, 793.4e12, 790e12, 796e12, ""};
  Ceiling copy{CeilingKind::kCopy, "", "1.0 GiB", 15, 4.12e12, 4.1e12, 4.13e12, ""};
  Ceiling h2d{CeilingKind::kHostToDevice, "pinned", "256 MiB", 15, 55.1e9, 55.0e9, 55.2e9, ""};
  Ceiling pageable{CeilingKind::kHostToDevice, "pageable", "", 0, 0, 0, 0, "no pinned memory here"};
  Ceiling launch{CeilingKind::kLaunchBackToBack, "", "1 element", 15, 4.2e-6, 4.1e-6, 4.3e-6, ""};
  c.ceilings = {fp32, bf16, copy, h2d, pageable, launch};
  return c;
}

TEST(PeakRecords, JsonRoundTripKeepsEveryFieldAndTheUnmeasured) {
  const auto c = sample_ceilings();
  const auto j = to_json(c);
  EXPECT_EQ(j["schema"], "accelbench.peak/1");
  EXPECT_EQ(j["ceilings"][0]["unit"], "FLOP/s");
  EXPECT_EQ(j["ceilings"][4]["unavailable"], "no pinned memory here");
  EXPECT_FALSE(j["ceilings"][4].contains("median"));
  const auto back = ceilings_from_json(nlohmann::json::parse(j.dump()), "test");
  EXPECT_EQ(back.device, c.device);
  EXPECT_EQ(back.device_name, c.device_name);
  EXPECT_EQ(back.torch_version, c.torch_version);
  EXPECT_EQ(back.measured_utc, c.measured_utc);
  ASSERT_EQ(back.ceilings.size(), c.ceilings.size());
  for (std::size_t i = 0; i < c.ceilings.size(); ++i) {
    EXPECT_EQ(back.ceilings[i].kind, c.ceilings[i].kind) << i;
    EXPECT_EQ(back.ceilings[i].variant, c.ceilings[i].variant) << i;
    EXPECT_EQ(back.ceilings[i].samples, c.ceilings[i].samples) << i;
    EXPECT_DOUBLE_EQ(back.ceilings[i].median, c.ceilings[i].median) << i;
    EXPECT_DOUBLE_EQ(back.ceilings[i].ci_high, c.ceilings[i].ci_high) << i;
  }
  ASSERT_NE(back.find(CeilingKind::kMatmul, "bfloat16"), nullptr);
  EXPECT_EQ(back.find(CeilingKind::kHostToDevice, "pageable"), nullptr);  // not measured: not found
}

TEST(PeakRecords, DamagedDocumentsAreRefusedInOneLine) {
  const auto good = to_json(sample_ceilings());
  auto expect_refused = [](const nlohmann::json& j, const std::string& fragment) {
    try {
      ceilings_from_json(j, "ceilings.json");
      ADD_FAILURE() << "accepted: " << j.dump().substr(0, 200);
    } catch (const UsageError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_NE(m.find("ceilings.json"), std::string::npos) << m;
      EXPECT_NE(m.find(fragment), std::string::npos) << m;
    }
  };
  expect_refused(nlohmann::json::array(), "object");
  auto j = good;
  j["schema"] = "accelbench.run/1";
  expect_refused(j, "schema");
  j = good;
  j["ceilings"] = 3;
  expect_refused(j, "ceilings");
  j = good;
  j["ceilings"][0]["kind"] = "teleport\nline";
  expect_refused(j, "unknown ceiling");
  j = good;
  j["ceilings"][1]["samples"] = -4;
  expect_refused(j, "samples");
  j = good;
  j["ceilings"][1]["median"] = "fast";
  expect_refused(j, "median");
}

TEST(PeakRecords, ValuesTableAndSummaryInTheirUnits) {
  EXPECT_EQ(format_ceiling_value(CeilingKind::kMatmul, 793.4e12), "793.4 TFLOP/s");
  EXPECT_EQ(format_ceiling_value(CeilingKind::kMatmul, 1.2041e9), "1.204 GFLOP/s");
  EXPECT_EQ(format_ceiling_value(CeilingKind::kCopy, 4.12e12), "4.120 TB/s");
  EXPECT_EQ(format_ceiling_value(CeilingKind::kHostToDevice, 55.1e9), "55.10 GB/s");
  EXPECT_EQ(format_ceiling_value(CeilingKind::kLaunchBackToBack, 4.2e-6), "4.20 us");
  EXPECT_EQ(format_ceiling_value(CeilingKind::kLaunchRoundTrip, 2.5e-3), "2.500 ms");

  const auto rows = ceilings_table_rows(sample_ceilings());
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[2][0], "matmul bfloat16");
  EXPECT_EQ(rows[2][1], "16384^3");  // the JSON keeps "16384 x 16384 x 16384"
  EXPECT_EQ(rows[0][2], "best");
  EXPECT_EQ(rows[2][2], "793.4 TFLOP/s");    // no best sample kept (an older record): the median
  EXPECT_EQ(rows[2][3], "793.4 TFLOP/s");
  EXPECT_EQ(rows[2][4], "-0.4/+0.3%");  // the interval relative to the median
  EXPECT_EQ(rows[5][0], "host to device (pageable)");
  EXPECT_EQ(rows[5][2], "not measured");
  EXPECT_EQ(rows[5][4], "no pinned memory here");

  // doctor's line: the fastest matmul, the copy, pinned host to device, the launch
  EXPECT_EQ(ceilings_summary(sample_ceilings()),
            "measured 2026-12-01 (torch 2.11.0): matmul bfloat16 793.4 TFLOP/s, copy 4.120 TB/s, host to device "
            "55.10 GB/s, launch 4.20 us back to back");
}

// A matmul's sustained rate (the bursts' median is the ceiling): kept in the JSON, said in one line
// that names how far below the bursts it is; a ceiling without one has no line and no field.
TEST(PeakRecords, SustainedMatmulRateIsKeptAndSaid) {
  auto c = sample_ceilings();
  c.ceilings[1].sustained = 690.0e12;
  c.ceilings[1].sustained_s = 3.0;
  const auto j = to_json(c);
  EXPECT_DOUBLE_EQ(j["ceilings"][1]["sustained"].get<double>(), 690.0e12);
  EXPECT_FALSE(j["ceilings"][0].contains("sustained"));
  const auto back = ceilings_from_json(nlohmann::json::parse(j.dump()), "test");
  ASSERT_TRUE(back.ceilings[1].sustained.has_value());
  EXPECT_DOUBLE_EQ(*back.ceilings[1].sustained, 690.0e12);
  EXPECT_DOUBLE_EQ(back.ceilings[1].sustained_s, 3.0);
  EXPECT_FALSE(back.ceilings[0].sustained.has_value());
  const auto lines = sustained_lines(back);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "matmul bfloat16 held for 3.0 s: 690.0 TFLOP/s, 13% below its bursts (a power or thermal limit acts)");
  c.ceilings[1].sustained = 790.0e12;  // within 3% of the bursts
  EXPECT_EQ(sustained_lines(c)[0], "matmul bfloat16 held for 3.0 s: 790.0 TFLOP/s, as its bursts");
}

// The ceiling is the best sample where it was kept (the highest rate; the shortest launch), the
// median beside it; the samples and the best go through the JSON; a record without them (written
// before they were kept) reads as its median.
TEST(PeakRecords, TheBestSampleIsTheCeilingAndTravelsWithItsSamples) {
  auto c = sample_ceilings();
  c.ceilings[1].best = 801.0e12;
  c.ceilings[1].values = {790e12, 801e12, 793.4e12};
  c.ceilings[5].best = 4.0e-6;  // a launch: the shortest
  EXPECT_DOUBLE_EQ(c.ceilings[1].value(), 801.0e12);
  EXPECT_DOUBLE_EQ(c.ceilings[0].value(), 51.2e12);
  const auto j = to_json(c);
  EXPECT_DOUBLE_EQ(j["ceilings"][1]["best"].get<double>(), 801.0e12);
  EXPECT_EQ(j["ceilings"][1]["values"].size(), 3u);
  EXPECT_FALSE(j["ceilings"][0].contains("best"));
  EXPECT_FALSE(j["ceilings"][0].contains("values"));
  const auto back = ceilings_from_json(nlohmann::json::parse(j.dump()), "test");
  EXPECT_DOUBLE_EQ(back.ceilings[1].best, 801.0e12);
  EXPECT_EQ(back.ceilings[1].values, c.ceilings[1].values);
  EXPECT_DOUBLE_EQ(back.ceilings[0].value(), 51.2e12);
  const auto rows = ceilings_table_rows(back);
  EXPECT_EQ(rows[2][2], "801.0 TFLOP/s");
  EXPECT_EQ(rows[2][3], "793.4 TFLOP/s");
  EXPECT_EQ(rows[6][2], "4.00 us");
  EXPECT_EQ(ceilings_summary(back),
            "measured 2026-12-01 (torch 2.11.0): matmul bfloat16 801.0 TFLOP/s, copy 4.120 TB/s, host to device "
            "55.10 GB/s, launch 4.00 us back to back");
  auto damaged = j;
  damaged["ceilings"][1]["values"] = "many";
  EXPECT_THROW(ceilings_from_json(damaged, "test"), UsageError);
}

TEST(PeakRecords, AgesBetweenUtcTimes) {
  EXPECT_EQ(utc_seconds_between("2026-12-01T04:00:00Z", "2026-12-02T04:00:01Z"), 86401.0);
  EXPECT_EQ(utc_seconds_between("2026-12-01T04:00:00Z", "2026-11-30T04:00:00Z"), -86400.0);
  EXPECT_FALSE(utc_seconds_between("yesterday", "2026-12-01T04:00:00Z").has_value());
  EXPECT_FALSE(utc_seconds_between("2026-12-01T04:00:00Zjunk", "2026-12-01T04:00:00Z").has_value());
}

}  // namespace
}  // namespace accelbench

// -------------------------------------------------------------------------------------------------
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
