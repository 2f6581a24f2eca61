// `scale`'s torch-free parts: the figures of a world size, weak-scaling efficiency, bus bandwidth,
// the rendezvous environment, and the launcher ending every rank when one fails (shell children).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "core/errors.h"
#include "core/scale_records.h"
#include "drivers/scale_launcher.h"
#include "report/scale_table.h"

namespace accelbench {
namespace {

RankMeasurement rank_with(int rank, int world, double step_s, double comm_s = 0) {
  RankMeasurement m;
  m.rank = rank;
  m.world_size = world;
  for (int i = 0; i < 20; ++i) m.samples.push_back(step_s * (1 + 0.001 * (i % 5)));
  if (comm_s > 0) m.comm_samples.assign(20, comm_s);
  m.gradient_bytes = 100'000'000;
  m.bare_allreduce_s = 0.001;
  return m;
}

TEST(Scale, BusBandwidthIsNcclTestsDefinition) {
  // 1 GB in 10 ms over 2 ranks: algbw 100 GB/s, busbw = algbw * 2(n-1)/n = 100 GB/s; over 8: 175.
  EXPECT_NEAR(allreduce_busbw_gbs(1e9, 0.01, 2), 100.0, 1e-9);
  EXPECT_NEAR(allreduce_busbw_gbs(1e9, 0.01, 8), 175.0, 1e-9);
  EXPECT_EQ(allreduce_busbw_gbs(1e9, 0.01, 1), 0.0);
}

TEST(Scale, StepTimeIsTheSlowestRanks) {
  auto p = summarize_scale_point(2, {rank_with(1, 2, 0.012, 0.003), rank_with(0, 2, 0.010, 0.002)}, 64);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.slowest_rank, 1);
  EXPECT_NEAR(p.step.median, 0.012 * 1.002, 1e-6);
  EXPECT_NEAR(p.samples_per_s, 128 / p.step.median, 1e-6);
  ASSERT_TRUE(p.comm_share);
  EXPECT_NEAR(*p.comm_share, 0.003 / p.step.median, 1e-9);
  ASSERT_TRUE(p.busbw_bare_gbs);
  EXPECT_NEAR(*p.busbw_bare_gbs, 100.0, 1e-9);  // 1e8 B in 1 ms: algbw 100 GB/s, x 2(2-1)/2
}

TEST(Scale, EfficiencyAgainstOneGpuWithCi) {
  ScaleResult r;
  r.points.push_back(summarize_scale_point(1, {rank_with(0, 1, 0.010)}, 64));
  r.points.push_back(summarize_scale_point(2, {rank_with(0, 2, 0.0125, 0.006), rank_with(1, 2, 0.0124, 0.006)}, 64));
  derive_scaling(r);
  ASSERT_TRUE(r.points[1].efficiency);
  EXPECT_NEAR(r.points[1].efficiency->ratio, 0.8, 1e-3);  // 10 ms / 12.5 ms
  EXPECT_LE(r.points[1].efficiency->low, r.points[1].efficiency->ratio);
  EXPECT_GE(r.points[1].efficiency->high, r.points[1].efficiency->ratio);
  EXPECT_NEAR(r.points[0].efficiency->ratio, 1.0, 1e-9);
  ASSERT_EQ(r.advice.size(), 1u);  // 80% with the all-reduce at 48% of the step: communication dominates
  EXPECT_NE(r.advice[0].find("communication dominates"), std::string::npos);
  const auto table = format_scale_table(r);
  EXPECT_NE(table.find("0.80x [0.80, 0.80]"), std::string::npos) << table;  // the efficiency, a ratio
  EXPECT_EQ(table.find("residual stream"), std::string::npos) << table;
  // A workload's own numerics (bert-base's 16-bit residual stream) are said in the table's first line.
  for (auto& p : r.points)
    for (auto& rank : p.ranks) rank.numerics = "residual stream in bfloat16";
  r.request.workload = "bert-base";
  r.request.dtype = "bfloat16";
  const auto bert = format_scale_table(r);
  EXPECT_EQ(bert.substr(0, bert.find('\n')).find("bert-base bfloat16 (residual stream in bfloat16) batch 64/GPU"), 0u) << bert;
}

// --overhead: each data-parallel sample has a baseline sample beside it; the host drifts by 40%
// across the samples and the paired ratio still reads the 5% that data parallelism costs.
TEST(Scale, OverheadIsThePairedRatioOfTheSlowestRank) {
  auto m = rank_with(0, 1, 0.010);
  for (std::size_t i = 0; i < m.samples.size(); ++i) {
    const double host = 1.0 + 0.4 * static_cast<double>(i % 4) / 3.0;
    m.baseline_samples.push_back(0.010 * host * (1 + 0.002 * static_cast<double>(i % 3)));
    m.samples[i] = 0.0105 * host * (1 + 0.002 * static_cast<double>((i + 1) % 3));
  }
  ScaleResult r;
  r.points.push_back(summarize_scale_point(1, {m}, 64));
  derive_scaling(r);
  const auto& p = r.points[0];
  ASSERT_TRUE(p.overhead);
  EXPECT_NEAR(p.overhead->ratio, 1.05, 0.002);
  EXPECT_GT(p.overhead->low, 1.04);
  EXPECT_LT(p.overhead->high, 1.06);
  const auto table = format_scale_table(r);
  EXPECT_NE(table.find("1 GPU: the data-parallel step is 1.050x [1.0"), std::string::npos) << table;
  EXPECT_NE(table.find("(rank 0, 20 pairs in this process: another process may differ"), std::string::npos) << table;
  ASSERT_EQ(r.advice.size(), 1u);
  EXPECT_NE(r.advice[0].find("data parallelism makes the step 1.050x [1.0"), std::string::npos) << r.advice[0];
  EXPECT_NEAR(nlohmann::json(p).at("overhead").at("ratio").get<double>(), p.overhead->ratio, 1e-12);
  // Without baseline samples (no --overhead), or with a count that does not pair: no figure.
  EXPECT_FALSE(summarize_scale_point(1, {rank_with(0, 1, 0.010)}, 64).overhead);
  m.baseline_samples.pop_back();
  EXPECT_FALSE(summarize_scale_point(1, {m}, 64).overhead);
}

TEST(Scale, AFailedRankIsNamed) {
  auto bad = rank_with(1, 2, 0.01);
  bad.error = "CUDA out of memory";
  auto p = summarize_scale_point(2, {rank_with(0, 2, 0.01), bad}, 64);
  EXPECT_EQ(p.error, "rank 1 failed: CUDA out of memory");
  auto missing = summarize_scale_point(2, {rank_with(0, 2, 0.01)}, 64);
  EXPECT_NE(missing.error.find("1 of 2 ranks"), std::string::npos);
}

TEST(Scale, RankMeasurementJsonRoundTrip) {
  auto m = rank_with(3, 4, 0.02, 0.004);
  m.bucket_bytes = {1 << 20, 25 << 20};
  const auto back = nlohmann::json(m).get<RankMeasurement>();
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.samples, m.samples);
  EXPECT_EQ(back.bucket_bytes, m.bucket_bytes);
  m.baseline_samples = {0.019, 0.018};
  m.reducer_host_s = 0.0004;
  m.reducer_copies_s = 0.0001;
  m.reducer_allreduce_calls_s = 0.0002;
  m.reducer_waits_s = 0.00003;
  const auto back2 = nlohmann::json(m).get<RankMeasurement>();
  EXPECT_EQ(back2.baseline_samples, m.baseline_samples);
  EXPECT_EQ(back2.reducer_host_s, 0.0004);
  EXPECT_EQ(back2.reducer_copies_s, 0.0001);
  EXPECT_EQ(back2.reducer_allreduce_calls_s, 0.0002);
  EXPECT_EQ(back2.reducer_waits_s, 0.00003);
  m.numerics = "residual stream in bfloat16";
  EXPECT_EQ(nlohmann::json(m).get<RankMeasurement>().numerics, "residual stream in bfloat16");
  ScaleRankRequest req;
  req.workload = "resnet18";
  req.bucket_mb = 12.5;
  EXPECT_EQ(nlohmann::json(req).get<ScaleRankRequest>().bucket_mb, 12.5);
  EXPECT_FALSE(nlohmann::json(req).get<ScaleRankRequest>().bucket_views);
  req.bucket_views = true;
  EXPECT_TRUE(nlohmann::json(req).get<ScaleRankRequest>().bucket_views);
  EXPECT_FALSE(nlohmann::json(req).get<ScaleRankRequest>().overhead);
  req.overhead = true;
  EXPECT_TRUE(nlohmann::json(req).get<ScaleRankRequest>().overhead);
  EXPECT_TRUE(nlohmann::json(req).get<ScaleRankRequest>().one_bucket_on_one_gpu);
  req.one_bucket_on_one_gpu = false;
  EXPECT_FALSE(nlohmann::json(req).get<ScaleRankRequest>().one_bucket_on_one_gpu);
  m.all_reduced_after_backward = true;
  EXPECT_TRUE(nlohmann::json(m).get<RankMeasurement>().all_reduced_after_backward);
}

// At one GPU without --bucket-mb the rank all-reduces one bucket after the backward pass; the table says so.
TEST(Scale, OneBucketAfterTheBackwardPassIsSaid) {
  auto m = rank_with(0, 1, 0.010);
  ScaleResult r;
  r.points.push_back(summarize_scale_point(1, {m}, 64));
  EXPECT_EQ(format_scale_table(r).find("one bucket"), std::string::npos);
  m.all_reduced_after_backward = true;
  r.points[0] = summarize_scale_point(1, {m}, 64);
  const auto table = format_scale_table(r);
  EXPECT_NE(table.find("1 GPU: every gradient in one bucket (95.4 MiB), all-reduced after the backward pass"),
            std::string::npos) << table;
}

TEST(Scale, RendezvousFromEnvironment) {
  ::setenv("WORLD_SIZE", "4", 1);
  ::setenv("RANK", "2", 1);
  ::unsetenv("LOCAL_RANK");
  ::setenv("MASTER_ADDR", "node0", 1);
  ::setenv("MASTER_PORT", "29511", 1);
  auto r = rendezvous_from_env();
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.local_rank, 2);  // LOCAL_RANK defaults to RANK (one host)
  EXPECT_EQ(r.master_addr, "node0");
  EXPECT_EQ(r.master_port, 29511);
  EXPECT_FALSE(r.join_agent_store);  // `accelbench scale` started the ranks: rank 0 serves the store
  ::setenv("TORCHELASTIC_USE_AGENT_STORE", "True", 1);  // torchrun's agent serves it
  EXPECT_TRUE(rendezvous_from_env().join_agent_store);
  ::setenv("TORCHELASTIC_USE_AGENT_STORE", "False", 1);
  EXPECT_FALSE(rendezvous_from_env().join_agent_store);
  ::unsetenv("TORCHELASTIC_USE_AGENT_STORE");
  ::setenv("RANK", "4", 1);
  EXPECT_THROW(rendezvous_from_env(), UsageError);  // rank >= world size
  ::unsetenv("RANK");
  EXPECT_THROW(rendezvous_from_env(), UsageError);
  for (const char* v : {"WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) ::unsetenv(v);
}

// Each "rank" is a shell: rank 1 fails at once, rank 0 would sleep for a minute; the launcher must
// name rank 1 and end rank 0 within the grace period.
TEST(Scale, LauncherEndsEveryRankWhenOneFails) {
  const auto dir = std::filesystem::temp_directory_path() / "accelbench-scale-launch-test";
  std::filesystem::remove_all(dir);
  RankLaunch l;
  l.argv = {"/bin/sh", "-c", "if [ \"$RANK\" = 1 ]; then echo 'boom on rank '$RANK >&2; exit 3; fi; sleep 60", "sh"};
  l.world_size = 2;
  l.work_dir = dir.string();
  l.grace_s = 1;
  l.timeout_s = 55;  // neither the sleep nor this limit ends the world within 30 s
  const auto t0 = std::chrono::steady_clock::now();
  const auto out = launch_ranks(l);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(out.failed_rank, 1);
  EXPECT_NE(out.error.find("rank 1 failed: exited with code 3"), std::string::npos) << out.error;
  EXPECT_NE(out.error.find("boom on rank 1"), std::string::npos) << out.error;
  EXPECT_LT(s, 30.0);  // rank 0 (a 60 s sleep) was ended, not waited for
}

TEST(Scale, LauncherTimeLimitEndsAHungWorld) {
  const auto dir = std::filesystem::temp_directory_path() / "accelbench-scale-timeout-test";
  RankLaunch l;
  l.argv = {"/bin/sh", "-c", "sleep 60", "sh"};
  l.world_size = 2;
  l.work_dir = dir.string();
  l.timeout_s = 1;
  l.grace_s = 1;
  const auto out = launch_ranks(l);
  EXPECT_NE(out.error.find("time limit"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace accelbench
