// The batch sweep's decisions with known answers: doubling, bisection after an out-of-memory, the
// knee, memory sizes, the memory limit's checks; and the child process that runs a point.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/errors.h"
#include "core/child_process.h"
#include "core/sweep_logic.h"
#include "test_files.h"

using namespace accelbench;

namespace {

struct Simulated {
  std::vector<std::int64_t> measured;  // in the order the planner asked for them
  std::optional<std::int64_t> largest_fit, first_oom, smallest_oom;
};

// Drives the planner against an oracle that says how each batch ends.
Simulated simulate(std::int64_t from, std::int64_t to, const std::function<PointOutcome(std::int64_t)>& oracle) {
  BatchSweepPlanner p(from, to);
  Simulated s;
  while (auto b = p.next()) {
    s.measured.push_back(*b);
    p.record(*b, oracle(*b));
    if (s.measured.size() > 100) break;  // a bug would loop forever
  }
  s.largest_fit = p.largest_fit();
  s.first_oom = p.first_oom();
  s.smallest_oom = p.smallest_oom();
  return s;
}

std::function<PointOutcome(std::int64_t)> fits_up_to(std::int64_t limit) {
  return [limit](std::int64_t b) { return b <= limit ? PointOutcome::fit : PointOutcome::out_of_memory; };
}

using V = std::vector<std::int64_t>;

}  // namespace

TEST(SweepLogic, DoublingPoints) {
  EXPECT_EQ(doubling_points(8, 256), (V{8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(doubling_points(8, 100), (V{8, 16, 32, 64, 100}));
  EXPECT_EQ(doubling_points(8, 8), (V{8}));
  EXPECT_EQ(doubling_points(3, 20), (V{3, 6, 12, 20}));
  EXPECT_EQ(doubling_points(8, 4096).size(), 10u);
  EXPECT_TRUE(doubling_points(0, 8).empty());
  EXPECT_TRUE(doubling_points(16, 8).empty());
}

TEST(SweepLogic, BisectionStepIsASixteenthRoundedToMultiplesOfEight) {
  EXPECT_EQ(bisection_step(0, 8), 1);
  EXPECT_EQ(bisection_step(16, 32), 1);
  EXPECT_EQ(bisection_step(64, 128), 4);
  EXPECT_EQ(bisection_step(128, 256), 8);
  EXPECT_EQ(bisection_step(256, 512), 16);
  EXPECT_EQ(bisection_step(1024, 2048), 64);
  EXPECT_EQ(bisection_step(2048, 4096), 128);
  EXPECT_EQ(bisection_step(100, 300), 8);   // 12.5 -> 12 -> a multiple of 8
  EXPECT_EQ(bisection_step(0, 400), 24);    // 25 -> 24
}

TEST(SweepLogic, NoOutOfMemoryRunsTheWholeRange) {
  const auto s = simulate(8, 256, fits_up_to(1 << 20));
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(s.largest_fit, 256);
  EXPECT_FALSE(s.first_oom);
}

TEST(SweepLogic, OutOfMemoryStopsTheDoublingAndBisects) {
  // Fits up to 100: the doubling runs out at 128, then [64, 128) is bisected in steps of 4.
  const auto s = simulate(8, 512, fits_up_to(100));
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64, 128, 96, 112, 104, 100}));
  EXPECT_EQ(s.largest_fit, 100);
  EXPECT_EQ(s.first_oom, 128);
  EXPECT_EQ(s.smallest_oom, 104);
}

TEST(SweepLogic, LargeBatchesBisectInStepsOfOneSixteenth) {
  // Fits up to 3000: 4096 runs out; [2048, 4096) in steps of 128 -> 2944 (3072 does not fit).
  const auto s = simulate(8, 4096, fits_up_to(3000));
  EXPECT_EQ(s.first_oom, 4096);
  EXPECT_EQ(s.largest_fit, 2944);
  EXPECT_EQ(s.smallest_oom, 3072);
  EXPECT_EQ(s.measured.size(), 10u + 4u);  // the doubling, then 4 bisection points
}

TEST(SweepLogic, ResolutionIsReachedExactly) {
  // Every limit between two doubling points is found to the resolution: the answer is the largest
  // candidate (64 + 4k) not above the limit.
  for (std::int64_t limit = 64; limit < 128; ++limit) {
    const auto s = simulate(8, 512, fits_up_to(limit));
    ASSERT_TRUE(s.largest_fit) << limit;
    EXPECT_EQ(*s.largest_fit, 64 + (limit - 64) / 4 * 4) << limit;
    EXPECT_EQ(s.first_oom, 128) << limit;
  }
}

TEST(SweepLogic, OutOfMemoryAtTheFirstPointBisectsBelowIt) {
  const auto s = simulate(8, 512, fits_up_to(5));
  EXPECT_EQ(s.measured, (V{8, 4, 6, 5}));
  EXPECT_EQ(s.largest_fit, 5);
  EXPECT_EQ(s.first_oom, 8);
}

TEST(SweepLogic, NothingFits) {
  const auto s = simulate(8, 512, fits_up_to(0));
  EXPECT_EQ(s.measured, (V{8, 4, 2, 1}));
  EXPECT_FALSE(s.largest_fit);
  EXPECT_EQ(s.first_oom, 8);
  EXPECT_EQ(s.smallest_oom, 1);
}

TEST(SweepLogic, ACrashIsRecordedAndTheDoublingGoesOn) {
  const auto s = simulate(8, 64, [](std::int64_t b) { return b == 16 ? PointOutcome::failed : PointOutcome::fit; });
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64}));
  EXPECT_EQ(s.largest_fit, 64);
  EXPECT_FALSE(s.first_oom);
}

TEST(SweepLogic, CrashesFromSomeBatchOnRunToTheEndWithoutBisection) {
  const auto s = simulate(8, 64, [](std::int64_t b) { return b >= 16 ? PointOutcome::failed : PointOutcome::fit; });
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64}));
  EXPECT_EQ(s.largest_fit, 8);
  EXPECT_FALSE(s.first_oom);
}

TEST(SweepLogic, AFailureDuringTheBisectionCountsAsNotFitting) {
  // Fits up to 100, but 96 crashes: the bisection goes below it.
  const auto s = simulate(8, 512, [](std::int64_t b) {
    if (b == 96) return PointOutcome::failed;
    return b <= 100 ? PointOutcome::fit : PointOutcome::out_of_memory;
  });
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64, 128, 96, 80, 88, 92}));
  EXPECT_EQ(s.largest_fit, 92);
  EXPECT_EQ(s.smallest_oom, 128);
}

TEST(SweepLogic, BisectionStartsAboveTheLargestFitBelowTheOutOfMemory) {
  // 16 crashed, 32 ran out: the bisection is between 8 (the largest fit) and 32.
  BatchSweepPlanner p(8, 512);
  p.record(8, PointOutcome::fit);
  p.record(16, PointOutcome::failed);
  p.record(32, PointOutcome::out_of_memory);
  EXPECT_TRUE(p.bisecting());
  EXPECT_EQ(p.bisection_low(), 8);
  EXPECT_EQ(p.bisection_high(), 32);
  EXPECT_EQ(p.resolution(), 1);
  EXPECT_EQ(p.next(), 20);
}

TEST(SweepLogic, RemainingEstimate) {
  BatchSweepPlanner p(8, 256);
  EXPECT_EQ(p.remaining_estimate(), 6u);
  p.record(8, PointOutcome::fit);
  EXPECT_EQ(p.remaining_estimate(), 5u);
  p.record(16, PointOutcome::out_of_memory);  // [8, 16) in steps of 1: 3 bisection points
  EXPECT_EQ(p.remaining_estimate(), 3u);
}

TEST(SweepLogic, KneeIsTheSmallestBatchWithinFivePercentOfTheBest) {
  const std::vector<ThroughputPoint> pts{{8, 100}, {16, 190}, {32, 300}, {64, 390}, {128, 400}, {256, 395}};
  EXPECT_EQ(find_knee(pts), 64);  // 390 >= 0.95 x 400 = 380; 300 is not
  EXPECT_EQ(find_knee(pts, 0.30), 32);
  EXPECT_EQ(find_knee(pts, 0.0), 128);
  EXPECT_EQ(find_knee({{8, 96}, {16, 100}}), 8);
  EXPECT_EQ(find_knee({{8, 94}, {16, 100}}), 16);
  EXPECT_EQ(find_knee({{256, 400}, {8, 399}}), 8);  // order does not matter
  EXPECT_FALSE(find_knee({}));
  EXPECT_FALSE(find_knee({{8, 0}, {16, std::nan("")}}));
  EXPECT_EQ(find_knee({{8, std::nan("")}, {16, 50}}), 16);
}

TEST(SweepLogic, MemorySizes) {
  EXPECT_EQ(parse_memory_size("16GiB"), 16ull << 30);
  EXPECT_EQ(parse_memory_size(" 16 GiB "), 16ull << 30);
  EXPECT_EQ(parse_memory_size("16g"), 16ull << 30);
  EXPECT_EQ(parse_memory_size("8GB"), 8000000000ull);
  EXPECT_EQ(parse_memory_size("512MiB"), 512ull << 20);
  EXPECT_EQ(parse_memory_size("1.5GiB"), 3ull << 29);
  EXPECT_EQ(parse_memory_size("1000"), 1000ull);
  EXPECT_EQ(parse_memory_size("2TiB"), 2ull << 40);
  for (const char* bad : {"", "abc", "GiB", "16 parsecs", "16GiBs", "nan", "inf"})
    EXPECT_THROW(parse_memory_size(bad), UsageError) << bad;
  for (const char* nonpositive : {"-1GiB", "0", "0.1"}) {
    try {
      parse_memory_size(nonpositive);
      ADD_FAILURE() << nonpositive;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("must be positive"), std::string::npos) << e.what();
    }
  }
}

TEST(SweepLogic, MemoryLimitChecks) {
  DeviceDescription cpu{"cpu", "cpu", "CPU", -1, 64ull << 30};
  DeviceDescription gpu{"cuda:0", "cuda", "GPU", 0, 80ull << 30};
  DeviceDescription unknown{"cuda:1", "cuda", "GPU", 1, std::nullopt};
  DeviceDescription xpu{"xpu:0", "xpu", "Intel GPU", 0, 16ull << 30};
  auto message = [](const DeviceDescription& d, std::uint64_t bytes) -> std::string {
    try {
      check_memory_limit(d, bytes);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(cpu, 1ull << 30).find("the CPU has none"), std::string::npos);
  EXPECT_EQ(message(gpu, 16ull << 30), "");
  EXPECT_EQ(message(gpu, 80ull << 30), "");
  EXPECT_NE(message(gpu, 81ull << 30).find("larger than the memory of cuda:0 (80.0 GiB)"), std::string::npos)
      << message(gpu, 81ull << 30);
  EXPECT_NE(message(unknown, 1ull << 30).find("unknown"), std::string::npos);
  EXPECT_NE(message(xpu, 1ull << 30).find("cuda and mps"), std::string::npos);
}

TEST(ChildProcess, ExitCodesSignalsAndTimeouts) {
  accelbench::testing::TempDir dir;
  const auto err = dir.file("err");
  auto r = run_child({"/bin/sh", "-c", "echo first >&2; echo last words >&2; exit 3"}, err, 0);
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(describe_child_failure(r), "exited with code 3");
  EXPECT_EQ(last_line_of_file(err), "last words");

  r = run_child({"/bin/sh", "-c", "kill -ABRT $$"}, "", 0);
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.signal, 6);
  EXPECT_EQ(describe_child_failure(r).rfind("crashed: signal 6", 0), 0u) << describe_child_failure(r);

  r = run_child({"/bin/sh", "-c", "kill -KILL $$"}, "", 0);
  EXPECT_EQ(r.signal, 9);
  EXPECT_EQ(describe_child_failure(r).rfind("crashed: signal 9", 0), 0u) << describe_child_failure(r);

  r = run_child({"/bin/sleep", "60"}, "", 0.2);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, 9);
  EXPECT_LT(r.wall_s, 30);  // the 60 s sleep was ended, not waited for
  EXPECT_NE(describe_child_failure(r).find("after the time limit"), std::string::npos);

  r = run_child({"/nonexistent/program"}, "", 0);
  EXPECT_FALSE(r.started);
  EXPECT_NE(describe_child_failure(r).find("could not start"), std::string::npos);

  EXPECT_FALSE(self_executable_path().empty());
}

// ---- threads and workers sweeps ------------------------------------------------------------------

TEST(SweepLogic, ThreadPointsArePowersOfTwoThenTheMaximum) {
  EXPECT_EQ(thread_points(16), (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(thread_points(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(thread_points(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(thread_points(1), (std::vector<int>{1}));
}

TEST(SweepLogic, WorkerPointsStartAtZero) {
  EXPECT_EQ(worker_points(4), (std::vector<int>{0, 1, 2, 4}));
  EXPECT_EQ(worker_points(6), (std::vector<int>{0, 1, 2, 4, 6}));
  EXPECT_EQ(worker_points(1), (std::vector<int>{0, 1}));
  EXPECT_EQ(worker_points(0), (std::vector<int>{0}));
}

// ---- crossover -------------------------------------------------------------------------------------

TEST(Crossover, CrossesWhereTheCiLeavesOneForGood) {
  // CPU faster at 8 and 16, noise at 32, a lucky point at 64 (above 1) then noise at 128, then
  // faster from 256 on: the crossover is 256, not 64.
  const auto c = find_crossover({{8, 0.5, 0.4, 0.6},
                                 {16, 0.7, 0.6, 0.8},
                                 {32, 0.98, 0.9, 1.05},
                                 {64, 1.1, 1.02, 1.2},
                                 {128, 1.05, 0.97, 1.1},
                                 {256, 1.6, 1.4, 1.7},
                                 {512, 2.5, 2.3, 2.7}});
  EXPECT_EQ(c.kind, CrossoverKind::crosses);
  EXPECT_EQ(c.at, 256);
  EXPECT_EQ(c.cpu_until, 16);
  EXPECT_NE(describe_crossover(c, "batch").find("overtakes the CPU at batch 256"), std::string::npos);
}

TEST(Crossover, UnsortedInputIsSortedFirst) {
  const auto c = find_crossover({{512, 2.5, 2.3, 2.7}, {8, 0.5, 0.4, 0.6}, {64, 1.3, 1.2, 1.4}});
  EXPECT_EQ(c.kind, CrossoverKind::crosses);
  EXPECT_EQ(c.at, 64);
  EXPECT_EQ(c.cpu_until, 8);
}

TEST(Crossover, AlwaysFasterCpuAlwaysAndNever) {
  const auto a = find_crossover({{8, 1.2, 1.1, 1.3}, {16, 1.5, 1.4, 1.6}});
  EXPECT_EQ(a.kind, CrossoverKind::accelerator_always);
  EXPECT_EQ(a.at, 8);
  const auto b = find_crossover({{8, 0.5, 0.4, 0.6}, {16, 0.8, 0.7, 0.9}});
  EXPECT_EQ(b.kind, CrossoverKind::cpu_always);
  EXPECT_FALSE(b.at);
  EXPECT_EQ(b.cpu_until, 16);
  // The last point's CI touches 1: no crossover, even though an earlier point was faster.
  const auto n = find_crossover({{8, 0.5, 0.4, 0.6}, {16, 1.3, 1.2, 1.4}, {32, 1.02, 0.95, 1.1}});
  EXPECT_EQ(n.kind, CrossoverKind::never);
  EXPECT_FALSE(n.at);
  EXPECT_EQ(n.cpu_until, 8);
  EXPECT_EQ(find_crossover({}).kind, CrossoverKind::none);
  // Failed points (no ratio) are ignored.
  EXPECT_EQ(find_crossover({{8, 0, 0, 0}}).kind, CrossoverKind::none);
}
